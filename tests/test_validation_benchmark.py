"""The real-data validation benchmark (``benchmarks/predictors.py``): its verdict bookkeeping.

The benchmark is not part of the package; it is loaded from its file. These tests run its core on
one tiny split and on hand-made cases whose verdicts are known.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from _tolerances import gamma

from simulations.certification import SelectiveOutcomes

pytest.importorskip("sklearn")

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "predictors.py"
_SPEC = importlib.util.spec_from_file_location("gcul_benchmark_predictors", _PATH)
bench = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = bench  # dataclasses look their module up
_SPEC.loader.exec_module(bench)

LAM = bench.LAM


@pytest.mark.parametrize(
    ("lambda_pre", "lambda_emp", "expected"),
    [
        (0.30, 0.40, "correct"),  # both feasible
        (0.05, 0.00, "correct"),  # both infeasible
        (0.05, 0.40, "type_I"),  # predicted infeasible, rejecting paid: conservative
        (0.30, 0.05, "type_II"),  # predicted feasible, rejecting lost: unsafe
        (LAM, LAM, "correct"),  # lambda* = lambda counts as feasible on both sides (>=)
        (LAM, math.nextafter(LAM, 0.0), "type_II"),
        (math.nextafter(LAM, 0.0), LAM, "type_I"),
        (math.nan, 0.4, "failed"),
    ],
)
def test_verdict_hand_made(lambda_pre, lambda_emp, expected):
    assert bench.verdict(lambda_pre, lambda_emp) == expected


def test_empirical_lambda_conventions():
    # the benchmark's lambda*_EMP is the package's (GCUL.indicators(...).empirical_lambda(), since
    # issue 15 no longer a copy of its own): its conventions, checked here as they were.
    # 10 test samples: base wrong on 4; the model rejects 2 of them and errs on 1 accepted one.
    # eps = 0.4, rho = 0.2, eps_sel = 1/8 (8 accepted), so lambda*_EMP = (0.4 - 0.125)/0.2
    # = 1.375: the raw ratio, not clipped (rejecting pays at any cost below it).
    base_wrong = np.r_[np.ones(4, bool), np.zeros(6, bool)]
    rejected = np.r_[np.ones(2, bool), np.zeros(8, bool)]
    selective_wrong = np.r_[np.zeros(2, bool), np.ones(1, bool), np.zeros(7, bool)]
    # rates rounded from counts against decimals: their rounding over ρ = 0.2, both sides
    slack = 2 * gamma(8) * (0.4 + 1 / 8) / 0.2 + gamma(4) * 1.375
    outcomes = SelectiveOutcomes(base_wrong, selective_wrong, rejected)
    assert outcomes.empirical_lambda() == pytest.approx((0.4 - 1 / 8) / 0.2, rel=0, abs=slack)
    # nothing rejected: lambda*_EMP = 0 (the package's convention), so "feasible" is unsafe
    nothing = np.zeros(10, bool)
    assert SelectiveOutcomes(base_wrong, selective_wrong, nothing).empirical_lambda() == 0.0


def _summary_row(predictor, v, can_reject=True, confirmed=False, predictions="in_sample"):
    # "confirmed": the test split's own confidence bound on U(lambda) agrees with the verdict
    return {
        "family": "toy",
        "predictions": predictions,
        "predictor": predictor,
        "verdict": v,
        "can_reject": can_reject,
        "confirmed": confirmed,
        "valid": predictor != "union",
    }


def test_summarise_counts_hand_made_rows():
    rows = [
        _summary_row("union", "correct"),
        _summary_row("union", "type_II", confirmed=True),
        _summary_row("union", "type_II", can_reject=False),
        _summary_row("union", "type_I"),
        _summary_row("union", "type_I", confirmed=True),
        _summary_row("boole", "correct"),
        _summary_row("boole", "failed"),
        _summary_row("certified", "type_I", predictions="calibration"),
    ]
    table = {(s["predictions"], s["predictor"]): s for s in bench.summarise(rows)}
    union = table["in_sample", "union"]
    assert (union["n"], union["correct"], union["type_I"], union["type_II"]) == (5, 1, 2, 2)
    assert (union["confirmed_type_I"], union["confirmed_type_II"]) == (1, 1)
    assert (union["no_reject"], union["unsafe_rate"]) == (1, 0.4)
    boole = table["in_sample", "boole"]
    assert (boole["n"], boole["correct"], boole["failed"], boole["unsafe_rate"]) == (2, 1, 1, 0.0)
    assert table["calibration", "certified"]["type_I"] == 1
    # the pooled table has one row per (predictions, predictor), family "all"
    pooled = bench.summarise(rows, by_family=False)
    assert {s["family"] for s in pooled} == {"all"} and len(pooled) == 3


def test_binomial_band():
    # P(Bin(20, 0.05) <= 2) = 0.9245 < 0.95 <= P(<= 3) = 0.9841 (summing the binomial pmf by hand)
    assert bench.binomial_band(20, 0.05) == 3


def test_split_and_label_noise():
    y = np.repeat(np.arange(3), [50, 30, 20])
    train, cal, test = bench.split_indices(y, np.random.default_rng(0))
    assert np.array_equal(np.sort(np.concatenate([train, cal, test])), np.arange(y.size))
    # stratified: 60/20/20 within every class
    assert np.array_equal(np.bincount(y[train]), [30, 18, 12])
    assert np.array_equal(np.bincount(y[cal]), [10, 6, 4])
    flipped = bench.flip_labels(y, 0.3, 3, np.random.default_rng(1))
    changed = flipped != y
    assert changed.sum() == 30  # round(0.3 * 100), every chosen label moves to another class
    assert set(np.unique(flipped)) <= {0, 1, 2}


def _blobs(separation, seed=0, n=60):
    rng = np.random.default_rng(seed)
    centres = separation * np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    X = np.vstack([rng.normal(c, 1.0, (n, 2)) for c in centres])
    return X, np.repeat(np.arange(3), n)


def test_no_training_error_cannot_reject_and_feasible_is_unsafe():
    family = bench.Family("separated blobs", "blobs")
    rows, _ = bench.run_split(family, 0, 0, data=_blobs(separation=30.0))
    assert all(not row["can_reject"] and row["eps_train"] == 0.0 for row in rows)
    # GCUL cannot reject, so lambda*_EMP = 0; every predictor sees no error and predicts 0
    assert all(row["lambda_emp"] == 0.0 and row["lambda_pre"] == 0.0 for row in rows)
    assert all(row["verdict"] == "correct" for row in rows)
    # a predictor that said "feasible" there would be counted unsafe
    forced = bench._row(rows[0], "in_sample", "union", False, 0.9, 0.0)
    assert forced["verdict"] == "type_II" and forced["predicted_feasible"]


def test_one_split_bookkeeping_is_consistent_and_deterministic():
    family = bench.Family("overlapping blobs, 20% noise", "blobs", label_noise=0.2)
    data = _blobs(separation=2.0)
    rows, timing = bench.run_split(family, 3, 1, data=data)
    again, _ = bench.run_split(family, 3, 1, data=data)
    assert rows == again
    assert timing["fit_seconds"] >= 0.0 and timing["certify_seconds"] >= 0.0
    names = [entry.name for entry in bench.gcul_theory.PREDICTORS] + [bench.FINITE]
    expected = [("in_sample", n) for n in names] + [("cross_validated", n) for n in names]
    assert [(r["predictions"], r["predictor"]) for r in rows] == [
        *expected,
        ("calibration", "certified"),
    ]
    (lambda_emp,) = {r["lambda_emp"] for r in rows}  # one model, one test split
    assert rows[0]["n_train"] + rows[0]["n_cal"] + rows[0]["n_test"] == 180
    for row in rows:
        assert row["verdict"] == bench.verdict(row["lambda_pre"], lambda_emp)
        assert row["predicted_feasible"] == (row["lambda_pre"] >= LAM)
        assert row["realised_feasible"] == (lambda_emp >= LAM)
        assert row["confirmed"] == (
            (row["verdict"] == "type_II" and row["test_upper"] <= 0.0)
            or (row["verdict"] == "type_I" and row["test_lower"] > 0.0)
        )
        assert row["test_lower"] <= row["test_upper"]
    # the in-sample rows use GCUL's own error pool; 20% of the training labels are flipped
    assert rows[0]["eps_pool"] == rows[0]["eps_train"] >= 0.1
    # the certified row is GCUL.certify on the calibration part, for the same model
    ss_split, ss_noise, *_ = np.random.SeedSequence([bench.ROOT_SEED, 3, 1]).spawn(5)
    X, y = data
    train, cal, test = bench.split_indices(y, np.random.default_rng(ss_split))
    mean, scale = X[train].mean(axis=0), X[train].std(axis=0)
    Z = (X - mean) / scale
    y_train = bench.flip_labels(y[train], 0.2, 3, np.random.default_rng(ss_noise))
    model = bench.GCUL().fit(Z[train], y_train)
    certificate = model.certify(Z[cal], y[cal], lam=LAM, delta=bench.DELTA)
    assert rows[-1]["lambda_pre"] == certificate.lambda_cert
    assert lambda_emp == model.indicators(Z[test], y[test]).empirical_lambda()
