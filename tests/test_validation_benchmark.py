"""The real-data validation benchmark (``benchmarks/predictors.py``): its verdict bookkeeping.

The benchmark's driver is not part of the package; it is loaded from its file. Its science is:
the verdict (:func:`simulations.report.feasibility_verdict`), the tallies
(:func:`simulations.report.verdict_summary`), the 3-way split and the CV folds
(:mod:`simulations.statistics`), the label flips (:func:`simulations.synthetic.flip_labels`).
These tests run its core on one tiny split and on hand-made cases whose verdicts are known.
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
from simulations.report import (
    VERDICTS,
    feasibility_verdict,
    format_verdict_summary_markdown,
    format_verdict_summary_wide,
    verdict_summary,
)
from simulations.statistics import binomial_quantile, per_class_folds, stratified_three_way_split
from simulations.synthetic import flip_labels

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
    assert feasibility_verdict(lambda_pre, lambda_emp, LAM) == expected
    assert feasibility_verdict(lambda_pre, lambda_emp) == expected  # LAMBDA_TARGET = 0.15


@pytest.mark.parametrize(
    ("lam", "error"), [(-0.1, ValueError), (math.nan, ValueError), ("x", TypeError)]
)
def test_verdict_rejects_a_bad_lambda(lam, error):
    with pytest.raises(error, match="lam"):
        feasibility_verdict(0.2, 0.2, lam)


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
    summary = verdict_summary(rows, bench.PREDICTOR_NAMES)
    table = {(s["predictions"], s["predictor"]): s for s in summary}
    union = table["in_sample", "union"]
    assert (union["n"], union["correct"], union["type_I"], union["type_II"]) == (5, 1, 2, 2)
    assert (union["confirmed_type_I"], union["confirmed_type_II"]) == (1, 1)
    assert (union["no_reject"], union["unsafe_rate"]) == (1, 0.4)
    boole = table["in_sample", "boole"]
    assert (boole["n"], boole["correct"], boole["failed"], boole["unsafe_rate"]) == (2, 1, 1, 0.0)
    assert table["calibration", "certified"]["type_I"] == 1
    # the pooled table has one row per (predictions, predictor), family "all"
    pooled = verdict_summary(rows, bench.PREDICTOR_NAMES, by_family=False)
    assert {s["family"] for s in pooled} == {"all"} and len(pooled) == 3
    # the tables: one line per summary row, and the wide table's certified cell alone
    assert format_verdict_summary_markdown(pooled).count("\n") == 2 + 3
    assert "| all | in_sample | union | 5 | 1 | 2 | 1 | 2 | 1 | 0 | 1 | 0.40 |" in (
        format_verdict_summary_markdown(pooled)
    )
    rows += [{**r, "predictions": "cross_validated"} for r in rows if r["predictor"] != "certified"]
    wide = format_verdict_summary_wide(verdict_summary(rows, ["union", "boole", "certified"]),
                                       ["union", "boole", "certified"])  # fmt: skip
    assert wide.splitlines()[2:] == [
        "| toy | union | 5 | 1 / 2 / 2 | 1 / 2 / 2 |",
        "| toy | boole | 2 | 1 / 0 / 0 (1 failed) | 1 / 0 / 0 (1 failed) |",
        "| toy | certified (calibration) | 1 | 0 / 1 / 0 | |",
    ]


def test_summary_refuses_an_unknown_predictor_or_a_short_row():
    row = _summary_row("union", "correct")
    with pytest.raises(ValueError, match="not in predictor_order"):
        verdict_summary([row], ["boole"])
    with pytest.raises(ValueError, match="lacks"):
        verdict_summary([{k: v for k, v in row.items() if k != "verdict"}], ["union"])
    assert VERDICTS == ("correct", "type_I", "type_II", "failed")


def test_binomial_band():
    # P(Bin(20, 0.05) <= 2) = 0.9245 < 0.95 <= P(<= 3) = 0.9841 (summing the binomial pmf by hand)
    assert binomial_quantile(20, 0.05) == 3
    assert binomial_quantile(0, 0.05) == 0 and binomial_quantile(10, 1.0) == 10
    with pytest.raises(ValueError, match="level"):
        binomial_quantile(20, 0.05, level=1.0)


def test_split_and_label_noise():
    y = np.repeat(np.arange(3), [50, 30, 20])
    train, cal, test = stratified_three_way_split(y, 0.6, 0.2, np.random.default_rng(0))
    assert np.array_equal(np.sort(np.concatenate([train, cal, test])), np.arange(y.size))
    # stratified: 60/20/20 within every class
    assert np.array_equal(np.bincount(y[train]), [30, 18, 12])
    assert np.array_equal(np.bincount(y[cal]), [10, 6, 4])
    assert np.array_equal(np.bincount(y[test]), [10, 6, 4])
    # the same seed, the same split; a Generator, a SeedSequence or an int all seed it
    again = stratified_three_way_split(y, 0.6, 0.2, np.random.SeedSequence(0))
    assert all(np.array_equal(a, b) for a, b in zip((train, cal, test), again, strict=True))
    # Python's round, half to even: a class of 5 puts round(2.5) = 2 in the training part
    five = stratified_three_way_split(np.zeros(5, int), 0.5, 0.3, seed=1)
    assert [part.size for part in five] == [2, 2, 1]
    with pytest.raises(ValueError, match="below 1"):
        stratified_three_way_split(y, 0.7, 0.3)
    with pytest.raises(ValueError, match="calibration_size"):
        stratified_three_way_split(y, 0.6, 0.0)
    flipped = flip_labels(y, 0.3, 3, np.random.default_rng(1))
    changed = flipped != y
    assert changed.sum() == 30  # round(0.3 * 100), every chosen label moves to another class
    assert set(np.unique(flipped)) <= {0, 1, 2}
    assert np.array_equal(y, np.repeat(np.arange(3), [50, 30, 20]))  # y itself is not changed
    assert np.array_equal(flip_labels(y, 0.0, 3, seed=5), y)
    with pytest.raises(ValueError, match="labels in 0..1"):
        flip_labels(y, 0.1, 2)
    with pytest.raises(ValueError, match="share"):
        flip_labels(y, 1.5, 3)


def test_per_class_folds_deal_each_class_from_fold_zero():
    y = np.repeat(np.arange(2), [7, 3])
    folds = per_class_folds(y, 5, seed=0)
    # each class dealt 0, 1, 2, ... from fold 0: class 0 gives 2, 2, 1, 1, 1; class 1 gives 1, 1, 1
    assert np.bincount(folds[:7], minlength=5).tolist() == [2, 2, 1, 1, 1]
    assert np.bincount(folds[7:], minlength=5).tolist() == [1, 1, 1, 0, 0]
    assert np.array_equal(folds, per_class_folds(y, 5, np.random.default_rng(0)))
    with pytest.raises(ValueError, match="n_folds"):
        per_class_folds(y, 1)


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
        assert row["verdict"] == feasibility_verdict(row["lambda_pre"], lambda_emp, LAM)
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
    train, cal, test = stratified_three_way_split(y, 0.6, 0.2, np.random.default_rng(ss_split))
    mean, scale = X[train].mean(axis=0), X[train].std(axis=0)
    Z = (X - mean) / scale
    y_train = flip_labels(y[train], 0.2, 3, np.random.default_rng(ss_noise))
    model = bench.GCUL().fit(Z[train], y_train)
    certificate = model.certify(Z[cal], y[cal], lam=LAM, delta=bench.DELTA)
    assert rows[-1]["lambda_pre"] == certificate.lambda_cert
    assert lambda_emp == model.indicators(Z[test], y[test]).empirical_lambda()


def test_verdict_shares_figure(tmp_path):
    pytest.importorskip("matplotlib")
    from simulations.figures import plot_verdict_shares

    pooled = [
        {"predictions": p, "predictor": name, "n": 4, "correct": 2, "type_I": 1, "type_II": 1,
         "failed": 0}
        for p, name in (("in_sample", "union"), ("cross_validated", "union"),
                        ("calibration", "certified"))
    ]  # fmt: skip
    kinds = {"union": "paper", "certified": "valid, finite-sample"}
    plot = plot_verdict_shares(pooled, tmp_path / "v", "title", lam=LAM, kinds=kinds)
    assert [p.name for p in plot.paths] == ["v.png", "v.pdf"]
    assert all(p.is_file() for p in plot.paths)
    # three bars per drawn verdict (no "failed" bar: no mark, no legend entry), three groups
    assert [t.get_text() for t in plot.ax.get_legend().get_texts()] == [
        "correct", "Type-I (conservative)", "Type-II (unsafe)",
    ]
    assert len(plot.ax.patches) == 9
    labels = [t.get_text() for t in plot.ax.get_yticklabels()]
    assert labels[-1] == "certified  (valid, finite-sample)"
    with pytest.raises(ValueError, match="no row"):
        plot_verdict_shares([], tmp_path / "w", "t", lam=LAM, kinds=kinds)
