"""feasibility_report (gcul_theory._report): the practitioner's pre-deployment check."""

from __future__ import annotations

import numpy as np
import pytest

from gcul_theory import (
    COLUMN_LEGEND,
    METHODS,
    PREDICTORS,
    critical_lambda,
    estimate_geometry,
    feasibility_report,
    guarantee_phrase,
)


def blob_world(rng, gap=8.0, n=400):
    """Two class cores and a confusion blob between them that phase 1 always gets wrong."""
    centres = np.array([[-gap, 0.0], [gap, 0.0], [0.0, 0.0]])
    Z = np.vstack([rng.normal(c, 1.0, (n, 2)) for c in centres])
    y = np.r_[np.zeros(n, int), np.ones(n, int), rng.integers(0, 2, n)]
    y_pred = np.r_[np.zeros(n, int), np.ones(n, int), 1 - y[2 * n :]]
    return Z, y, y_pred


def test_separated_blob_is_feasible_and_report_is_consistent():
    Z, y, y_pred = blob_world(np.random.default_rng(0))
    report = feasibility_report(Z, y, y_pred, lam=0.15)
    g = estimate_geometry(Z, y, y_pred)
    assert report.feasible
    assert report.verdict.startswith("feasible")
    for method in METHODS:
        assert report.lambda_pre[method] == critical_lambda(g, method)
    assert len(report.per_class) == 2
    assert report.per_class[0]["p_loss"] <= report.per_class[0]["eta_outlier"]
    text = str(report)
    for word in ("gaussian", "union", "chernoff", "r2_hat", "verdict:", "S_exist"):
        assert word in text


def test_overlapping_blob_is_not_certified():
    Z, y, y_pred = blob_world(np.random.default_rng(1), gap=1.0)
    report = feasibility_report(Z, y, y_pred, lam=0.15)
    assert not report.feasible
    assert "sufficient, not necessary" in report.verdict


def test_method_changes_the_verdict_at_an_intermediate_cost():
    Z, y, y_pred = blob_world(np.random.default_rng(2), gap=3.2)
    lam_pre = feasibility_report(Z, y, y_pred).lambda_pre
    assert lam_pre["union"] < lam_pre["gaussian"]
    lam = 0.5 * (lam_pre["union"] + lam_pre["gaussian"])
    assert feasibility_report(Z, y, y_pred, lam=lam, method="gaussian").feasible
    assert not feasibility_report(Z, y, y_pred, lam=lam, method="union").feasible


def test_no_error_is_explained():
    Z, y, _ = blob_world(np.random.default_rng(3))
    report = feasibility_report(Z, y, y)
    assert not report.feasible
    assert "no error" in report.verdict
    assert "note: no misclassified sample" in str(report)


@pytest.mark.parametrize(
    ("kwargs", "words"), [({"lam": 1.0}, "lam"), ({"method": "erf"}, "method")]
)
def test_bad_arguments(kwargs, words):
    Z, y, y_pred = blob_world(np.random.default_rng(4), n=20)
    with pytest.raises(ValueError, match=words):
        feasibility_report(Z, y, y_pred, **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "kind", "words"),
    [
        ({"lam": [0.1]}, ValueError, ["lam", "scalar", "(1,)"]),  # named neither lam nor scalar
        ({"lam": np.nan}, ValueError, ["lam", "finite"]),
        ({"lam": "0.1"}, TypeError, ["lam"]),
        ({"method": None}, TypeError, ["method"]),
        ({"n_classes": 10**7}, ValueError, ["n_classes", "4096"]),
    ],
)
def test_bad_arguments_are_named(kwargs, kind, words):
    Z, y, y_pred = blob_world(np.random.default_rng(4), n=20)
    with pytest.raises(kind) as info:
        feasibility_report(Z, y, y_pred, **kwargs)
    for word in words:
        assert word in str(info.value)


def test_a_label_of_ten_million_is_refused_not_a_memory_error():
    # Was: 2 minutes, then a MemoryError traceback (issue 6, §3).
    Z, y, y_pred = blob_world(np.random.default_rng(5), n=20)
    y[0] = 10**7
    with pytest.raises(ValueError, match="empty classes: 2..9999999"):
        feasibility_report(Z, y, y_pred)


def test_messages_that_embed_inputs_are_capped():
    Z, y, y_pred = blob_world(np.random.default_rng(6), n=20)
    with pytest.raises(ValueError) as info:
        feasibility_report(Z, y, y_pred, method="x" * 10**6)
    assert "method" in str(info.value) and len(str(info.value)) < 300
    with pytest.raises(TypeError) as info:
        feasibility_report(Z, y, y_pred, lam="9" * 10**6)
    assert "lam" in str(info.value) and len(str(info.value)) < 300


def test_printed_table_skips_classes_that_never_occur():
    Z, y, y_pred = blob_world(np.random.default_rng(7), n=50)
    report = feasibility_report(Z, y, y_pred, n_classes=1000)
    assert len(report.per_class) == 1000
    text = str(report)
    # two class rows, not 1000 (the rest: predictors, the legend of the columns, notes)
    assert len([line for line in text.splitlines() if line.split()[:1] in (["0"], ["1"])]) == 2
    assert len(text.splitlines()) < 20 + len(COLUMN_LEGEND) + 1
    assert "998 of 1000 classes never occur in y" in text


@pytest.mark.parametrize("lam", [0.0, 0.15])
def test_no_error_is_never_feasible_even_at_zero_cost(lam):
    # Was: at lam = 0, lambda*_PRE = 0 >= 0 gave "feasible" for a GCUL that cannot reject.
    Z, y, _ = blob_world(np.random.default_rng(3))
    for method in METHODS:
        report = feasibility_report(Z, y, y, lam=lam, method=method)
        assert not report.feasible
        assert report.verdict.startswith("not feasible") and "eps = 0" in report.verdict


@pytest.mark.parametrize(
    ("method", "phrase"),
    [
        ("hunter_worsley", "valid in expectation under the paper's Gaussian model"),
        ("boole", "valid in expectation under the paper's Gaussian model"),
        ("union", "the paper's printed bound, NOT a valid lower bound"),
        ("gaussian_exact", "a model value under the paper's Gaussian model, not a bound"),
    ],
)
def test_verdict_names_the_predictor_and_its_guarantee(method, phrase):
    Z, y, y_pred = blob_world(np.random.default_rng(0))
    report = feasibility_report(Z, y, y_pred, lam=0.15, method=method)
    assert report.verdict.startswith(f"feasible by {method} ({phrase}): ")
    low = feasibility_report(*blob_world(np.random.default_rng(1), gap=1.0), method=method)
    assert low.verdict.startswith(f"not certified by {method} ({phrase}): ")


def test_format_restricts_rows_and_shows_kinds():
    Z, y, y_pred = blob_world(np.random.default_rng(0))
    report = feasibility_report(Z, y, y_pred)
    text = report.format(["union", "boole"])
    rows = [line.split()[0] for line in text.splitlines()[3:5]]
    assert rows == ["union", "boole"]
    assert "hunter_worsley" not in text.split("kind:")[0]
    assert "union          paper  NO" in text and "boole          bound  yes" in text
    assert str(report) == report.format()
    for name in METHODS:
        assert report.r2_hat_by_method[name] >= 0.0
    assert report.r2_hat == report.r2_hat_by_method["hunter_worsley"]
    # the paper's r2_hat leaves out the attractor's chance-correct samples: smaller
    assert report.r2_hat_by_method["union"] < report.r2_hat_by_method["boole"]


def test_guarantee_phrase_is_public_and_refuses_by_the_argument_name():
    assert guarantee_phrase("boole") == "valid in expectation under the paper's Gaussian model"
    assert guarantee_phrase(PREDICTORS[0]) == "the paper's printed bound, NOT a valid lower bound"
    assert guarantee_phrase("gaussian_exact").startswith("a model value")
    # the argument is called method: a refusal names it (it began "name must be" before)
    with pytest.raises(TypeError, match="^method must be"):
        guarantee_phrase(123)
    with pytest.raises(ValueError, match="^method must be"):
        guarantee_phrase("bogus")


def test_column_legend_is_public_and_printed_under_the_table():
    names = [name for name, _ in COLUMN_LEGEND]
    assert names[:3] == ["pi", "eps_c", "D"] and "q_contam" in names
    assert all(isinstance(text, str) and len(text) > 20 for _, text in COLUMN_LEGEND)
