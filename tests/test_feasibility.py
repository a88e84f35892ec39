"""feasibility_report (gcul_theory._report): the practitioner's pre-deployment check."""

from __future__ import annotations

import numpy as np
import pytest

from gcul_theory import METHODS, critical_lambda, estimate_geometry, feasibility_report


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
