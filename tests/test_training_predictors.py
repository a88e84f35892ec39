"""simulations.training_predictors and gcul_theory.selectivity_at_rate: ΔS_eq is the training
split's risk difference over ρ (claim equal_coverage.order), S at a rate is the paper's S where
that is defined, and the regime map's committed predictor columns are reproduced."""

from __future__ import annotations

import numpy as np
import pytest

import gcul_theory
from simulations.training_predictors import TRAINING_PREDICTORS, theory_rule, training_predictors

REL = 64 * 2.0**-53  # a few float operations on numbers of order 0.01-1


def test_selectivity_at_rate_is_gcul_theorys_score():
    eps, r1, r2 = 0.2, 0.9, 0.05
    rho = eps * r1 + (1 - eps) * r2
    want = gcul_theory.selectivity_score(eps, r1, r2)
    assert gcul_theory.selectivity_at_rate(eps, r1, rho) == pytest.approx(want, rel=REL)
    # r2 > r1 (the rejection prefers correct samples): defined, negative
    assert gcul_theory.selectivity_at_rate(0.2, 0.1, 0.2 * 0.1 + 0.8 * 0.3) < 0
    assert gcul_theory.selectivity_at_rate(0.2, 0.5, 0.0) == 0.0
    assert gcul_theory.selectivity_at_rate(0.0, 0.5, 0.3) == 0.0
    # 0.2 (0.5 - 0.25)/(0.25 * 0.75) = 4/15
    assert gcul_theory.selectivity_at_rate([0.2, 0.2], 0.5, [1.0, 0.25]).tolist() == [0.0, pytest.approx(4 / 15, rel=REL)]
    # the regime map's formula, bit for bit (its committed numbers were made with it)
    for eps, r1, rho in ((0.31, 0.47, 0.12), (0.05, 0.9, 0.061), (0.4, 0.2, 0.33)):
        assert gcul_theory.selectivity_at_rate(eps, r1, rho) == eps * (r1 - rho) / (rho * (1.0 - rho))
    with pytest.raises(ValueError, match="rho must lie in"):
        gcul_theory.selectivity_at_rate(0.2, 0.5, 1.5)


def test_delta_s_eq_is_the_training_risk_difference_over_rho():
    # claim equal_coverage.order: S_A - S_B = (eps_clean,B - eps_clean,A)/rho at equal rho; here
    # with the phase-1 errors of a fitted GCUL on the training split, MSP's accept set of GCUL's
    # size against GCUL's own, each risk counted directly
    from simulations.gcul import GCUL
    from simulations.rejectors.msp import FittedMSP
    from simulations.synthetic import SyntheticConfig, make_dataset

    data = make_dataset(10, 4.0, SyntheticConfig(n_per_class=150, n_confusion=150))
    model = GCUL().fit(data.X_train, data.y_train)
    got = training_predictors(model, data.X_train, data.y_train)
    assert list(got) == [
        "eps_train", "rho_train", "r1_gcul", "r2_gcul", "r1_msp",
        "s_gcul", "lambda_pre", "s_exist", "delta_s_eq", "delta_train",
    ]  # fmt: skip
    assert {p.column for p in TRAINING_PREDICTORS} <= set(got)
    errors = model.train_pred_ != data.y_train
    accept = ~model.indicators(data.X_train, data.y_train).rejected
    m = int(np.count_nonzero(accept))
    assert 0 < m < errors.size and errors.any()
    risk_gcul = np.count_nonzero(errors & accept) / m
    score, labels = FittedMSP(model.phase1_).score_predict(data.X_train)
    assert np.array_equal(labels, model.train_pred_)  # MSP's errors are phase 1's
    risk_msp = gcul_theory.selective_risk_at_coverage(score, errors, m)
    rho = 1 - m / errors.size
    assert got["rho_train"] == pytest.approx(rho, rel=REL)
    # relative to the terms' size (the difference itself may be small)
    scale = (risk_msp + risk_gcul) / rho
    assert abs(got["delta_s_eq"] - (risk_msp - risk_gcul) / rho) <= REL * scale
    with pytest.raises(ValueError, match="one label per row"):
        training_predictors(model, data.X_train, data.y_train[:-1])


def test_theory_rules():
    assert theory_rule("s_gcul", [0.1, 0.2]).tolist() == [False, True]
    assert theory_rule("lambda_pre", [0.2], lam=0.25).tolist() == [False]
    assert theory_rule("delta_train", [-0.01, 0.0]).tolist() == [True, False]
    assert theory_rule("s_exist", [0.5]) is None
    with pytest.raises(ValueError, match="column must be one of"):
        theory_rule("auc", [0.5])
