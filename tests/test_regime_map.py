"""The statistics of benchmarks/regime_map.py on tiny inputs, against hand computations (exact
fractions) and scikit-learn / SciPy: the paired SE, the t test, Holm, the gap share and its SE,
the ROC AUC and DeLong's SE, the threshold choice, and S at equal coverage."""

from __future__ import annotations

import importlib.util
import math
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import gcul_theory

_BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
_SPEC = importlib.util.spec_from_file_location(
    "gcul_benchmark_regime_map", _BENCH / "regime_map.py"
)
bench = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = bench
_SPEC.loader.exec_module(bench)

# Each statistic below is a handful of float operations on numbers of order 1: its rounding
# error is below 64 units of roundoff, so REL = 64 * 2**-53 separates a right formula from any
# wrong one (the wrong ones differ in the first digits).
REL = 64 * 2.0**-53


def test_paired_difference_mean_and_se_by_hand():
    # d = (1, 2, 3): mean 2, sd 1, SE 1/sqrt(3); the NaN pair is left out
    mean, se, n = bench.paired_difference([1.0, 2.0, 4.0, math.nan], [0.0, 0.0, 1.0, 0.5])
    assert (mean, n) == (2.0, 3)
    assert se == pytest.approx(1 / math.sqrt(3), rel=REL)
    assert math.isnan(bench.paired_difference([1.0], [0.0])[1])


def test_t_test_is_scipys_one_sample_test():
    d = np.array([0.3, -0.1, 0.4, 0.2, 0.25])
    mean, se, n = bench.paired_difference(d, np.zeros_like(d))
    assert bench.t_test(mean, se, n) == pytest.approx(stats.ttest_1samp(d, 0.0).pvalue, rel=1e-12)
    assert bench.t_test(0.0, 0.0, 5) == 1.0 and bench.t_test(0.1, 0.0, 5) == 0.0


def test_holm_step_down_by_hand():
    # sorted 0.01 <= 0.05/4 rejects; 0.03 > 0.05/3 stops: only the first
    assert bench.holm([0.01, 0.04, 0.03, 0.2]).tolist() == [True, False, False, False]
    # 0.001 <= 0.05/3, 0.02 <= 0.05/2, 0.024 <= 0.05/1: all
    assert bench.holm([0.024, 0.001, 0.02]).tolist() == [True, True, True]
    # a NaN p-value is not counted in m and never rejects: 0.02 <= 0.05/2
    assert bench.holm([0.02, math.nan, 0.03]).tolist() == [True, False, True]


def test_gap_share_and_delta_method_se_by_hand():
    msp, gcul, bayes = [0.3, 0.4, 0.5], [0.25, 0.35, 0.5], [0.2, 0.3, 0.4]
    # a = msp - gcul = (1/20, 1/20, 0), b = msp - bayes = (1/10, 1/10, 1/10): R = (1/30)/(1/10)
    a = [Fraction(1, 20), Fraction(1, 20), Fraction(0)]
    a_bar = sum(a) / 3
    var_a = sum((x - a_bar) ** 2 for x in a) / 2  # b is constant: cov(a, b) = var(b) = 0
    se = math.sqrt(var_a / 3) / 0.1
    share, share_se = bench.gap_share(msp, gcul, bayes)
    assert share == pytest.approx(1 / 3, rel=REL)
    assert share_se == pytest.approx(se, rel=REL)
    # with a non-constant b the covariance terms count: against the formula in exact fractions
    msp, gcul, bayes = [0.3, 0.5, 0.4, 0.6], [0.28, 0.45, 0.41, 0.5], [0.2, 0.42, 0.33, 0.49]
    fa = [Fraction(m) - Fraction(g) for m, g in zip(msp, gcul, strict=True)]
    fb = [Fraction(m) - Fraction(b) for m, b in zip(msp, bayes, strict=True)]
    ma, mb = sum(fa) / 4, sum(fb) / 4
    r = ma / mb
    saa = sum((x - ma) ** 2 for x in fa) / 3
    sbb = sum((x - mb) ** 2 for x in fb) / 3
    sab = sum((x - ma) * (y - mb) for x, y in zip(fa, fb, strict=True)) / 3
    want = math.sqrt((saa - 2 * r * sab + r * r * sbb) / 4) / mb
    share, share_se = bench.gap_share(msp, gcul, bayes)
    assert share == pytest.approx(float(r), rel=REL)
    assert share_se == pytest.approx(float(want), rel=1e-9)  # the float inputs' own rounding
    # no gap (MSP at the floor): undefined, never a division by ~0
    assert all(math.isnan(x) for x in bench.gap_share([0.1, 0.1], [0.2, 0.1], [0.1, 0.1]))


def test_auc_is_sklearns_and_delong_se_by_hand():
    from sklearn.metrics import roc_auc_score

    scores = [0.9, 0.8, 0.4, 0.5, 0.3]
    positive = [True, True, True, False, False]
    # psi rows (positives) vs (0.5, 0.3): (1, 1), (1, 1), (0, 1): AUC = 5/6
    assert bench.roc_auc(scores, positive) == pytest.approx(5 / 6, rel=REL)
    # V10 = (1, 1, 1/2): s^2 = 1/12; V01 = (2/3, 1): s^2 = 1/18; SE^2 = (1/12)/3 + (1/18)/2
    assert bench.delong_se(scores, positive) == pytest.approx(math.sqrt(1 / 18), rel=REL)
    rng = np.random.default_rng(5)
    s = rng.integers(0, 6, 40).astype(float)  # many ties: each counts 1/2
    y = rng.random(40) < 0.4
    assert bench.roc_auc(s, y) == pytest.approx(roc_auc_score(y, s), rel=REL)


def test_delong_se_matches_its_definition_on_random_data():
    # against the structural-components formula written out with loops
    rng = np.random.default_rng(7)
    s, y = rng.normal(size=30), rng.random(30) < 0.5
    pos, neg = s[y], s[~y]
    v10 = [np.mean([1.0 * (p > q) + 0.5 * (p == q) for q in neg]) for p in pos]
    v01 = [np.mean([1.0 * (p > q) + 0.5 * (p == q) for p in pos]) for q in neg]
    want = math.sqrt(np.var(v10, ddof=1) / len(pos) + np.var(v01, ddof=1) / len(neg))
    assert bench.delong_se(s, y) == pytest.approx(want, rel=1e-12)


def test_best_threshold_maximises_accuracy():
    x = np.array([0.1, 0.2, 0.35, 0.4, 0.8])
    y = np.array([False, False, True, False, True])
    cut = bench.best_threshold(x, y)
    assert np.mean((x > cut) == y) == 0.8 and 0.2 < cut < 0.35


def test_selectivity_at_equal_coverage_is_gcul_theorys():
    eps, r1, r2 = 0.2, 0.9, 0.05
    rho = eps * r1 + (1 - eps) * r2
    want = gcul_theory.selectivity_score(eps, r1, r2)
    assert bench.selectivity_extended(eps, r1, rho) == pytest.approx(want, rel=REL)
    # r2 > r1 (the rejection prefers correct samples): defined, negative
    assert bench.selectivity_extended(0.2, 0.1, 0.2 * 0.1 + 0.8 * 0.3) < 0
    assert bench.selectivity_extended(0.2, 0.5, 0.0) == 0.0


def test_settings_cover_every_pair_grid_once():
    setting_list = bench.settings()
    assert len(set(setting_list)) == len(setting_list)
    for first, second in bench.PAIRS:
        want = len(bench.FACTORS[first].grid) * len(bench.FACTORS[second].grid)
        default = {n: f.default for n, f in bench.FACTORS.items()}
        got = [
            s for s in setting_list
            if all(s[i] == default[n] for i, n in enumerate(bench.NAMES) if n not in (first, second))
        ]  # fmt: skip
        assert len(got) == want


def test_orientation_and_threshold_come_from_the_choice_half_only():
    # on the choice half a higher predictor means "GCUL better" (diff < 0); on the held-out
    # half the opposite: a table that chose on the held-out half (or on both) would not give 0
    def summary(value, diff, held_out):
        row = {column: value for column, *_ in bench.PREDICTORS}
        return row | {"diff": diff, "held_out": held_out, "significant_any": 1, "sigma": 4.0}

    choice = [summary(v, -0.01 if v > 0.5 else 0.01, 0) for v in (0.1, 0.2, 0.7, 0.8)]
    test = [summary(v, 0.01 if v > 0.5 else -0.01, 1) for v in (0.15, 0.25, 0.75, 0.85)]
    table = bench.predictor_table(choice + test)
    for row in table:
        assert row["orientation"] == "higher = GCUL better"
        assert row["auc_choice"] == 1.0 and row["auc"] == 0.0 and row["accuracy"] == 0.0
        assert 0.2 < row["threshold"] < 0.7


def _bootstrap_inputs(shock):
    """20 held-out settings k = 0..19 over 10 seeds j: GCUL − MSP = (k − 9.5) + shock(k, j), the
    predictor −k ("higher = GCUL better"), every setting in every block."""
    rows, summaries = [], []
    for k in range(20):
        summaries.append({"setting": k, "held_out": 1, "significant_any": 1, "sigma": 4.0})
        for j in range(10):
            row = {"setting": k, "seed": j, "risk_msp": 0.0, "risk_gcul": k - 9.5 + shock(k, j)}
            rows.append(row | {column: -float(k) for column, *_ in bench.PREDICTORS})
    table = [
        {"settings": block, "predictor": column, "orientation": "higher = GCUL better"}
        for block in bench.BLOCKS
        for column, *_ in bench.PREDICTORS
    ]
    return rows, summaries, table


def test_bootstrap_redraws_the_seeds_once_for_all_settings():
    # a shock common to every setting of a seed (±5) moves every mean together: the ranking, and
    # so the AUC (1), survive every replicate; redrawing seeds per setting would scramble the
    # settings near 0 and give a positive SE
    rows, summaries, table = _bootstrap_inputs(lambda k, j: 5.0 if j % 2 else -5.0)
    bench.bootstrap_auc_se(rows, summaries, table, n_boot=200)
    assert all(r["auc_se_boot"] == 0.0 for r in table)
    # a shock of each setting's own: the outcomes near 0 flip between replicates
    rng = np.random.default_rng(3)
    own = rng.choice([-5.0, 5.0], size=(20, 10))
    rows, summaries, table = _bootstrap_inputs(lambda k, j: own[k, j])
    bench.bootstrap_auc_se(rows, summaries, table, n_boot=200)
    assert all(r["auc_se_boot"] > 0.01 for r in table)
    again = [dict(r) for r in table]
    bench.bootstrap_auc_se(rows, summaries, again, n_boot=200)
    assert [r["auc_se_boot"] for r in again] == [r["auc_se_boot"] for r in table]  # seeded


def test_delta_s_eq_is_the_training_risk_difference_over_rho():
    # claim equal_coverage.order: S_A - S_B = (eps_clean,B - eps_clean,A)/rho at equal rho; here
    # with the phase-1 errors of a fitted GCUL on the training split, MSP's accept set of GCUL's
    # size against GCUL's own, each risk counted directly
    from simulations.gcul import GCUL
    from simulations.synthetic import SyntheticConfig, make_dataset

    data = make_dataset(10, 4.0, SyntheticConfig(n_per_class=150, n_confusion=150))
    model = GCUL().fit(data.X_train, data.y_train)
    got = bench.training_predictors(model, data.X_train, data.y_train)
    errors = model.train_pred_ != data.y_train
    accept = ~model.indicators(data.X_train, data.y_train).rejected
    m = int(np.count_nonzero(accept))
    assert 0 < m < errors.size and errors.any()
    risk_gcul = np.count_nonzero(errors & accept) / m
    from simulations.rejectors.msp import FittedMSP

    score, labels = FittedMSP(model.phase1_).score_predict(data.X_train)
    assert np.array_equal(labels, model.train_pred_)  # MSP's errors are phase 1's
    risk_msp = gcul_theory.selective_risk_at_coverage(score, errors, m)
    rho = 1 - m / errors.size
    assert got["rho_train"] == pytest.approx(rho, rel=REL)
    # a few operations on numbers of order 0.01-1 each way: 64 units of roundoff, relative to
    # the terms' size (the difference itself may be small)
    scale = (risk_msp + risk_gcul) / rho
    assert abs(got["delta_s_eq"] - (risk_msp - risk_gcul) / rho) <= REL * scale
