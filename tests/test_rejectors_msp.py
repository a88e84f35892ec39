"""Tests for simulations.rejectors.msp: against scikit-learn's probabilities; Chow's rule."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _rejector_data import PAPER, cell

from simulations.models import LogisticRegression
from simulations.rejectors import get_rejector
from simulations.rejectors.msp import FittedMSP, log_max_softmax

EPS = np.finfo(np.float64).eps


def sklearn_logistic(X, y):
    sklinear = pytest.importorskip("sklearn.linear_model")
    threadpoolctl = pytest.importorskip("threadpoolctl")
    with threadpoolctl.threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sklinear.LogisticRegression(C=1.0, tol=1e-10, max_iter=10000).fit(X, y)


def logit_gap_bound(a, b, X):
    """max over samples and classes of |s_a - s_b| for two linear models, plus the rounding of
    each: a dot product of d terms has error <= d eps sum|w_j x_j| (+ eps |b| for the intercept)."""
    coef_gap = (
        np.abs(a.coef_ - b.coef_) @ np.abs(X.T) + np.abs(a.intercept_ - b.intercept_)[:, None]
    )
    d = X.shape[1]
    rounding = (
        (d + 1)
        * EPS
        * (
            np.abs(a.coef_) @ np.abs(X.T)
            + np.abs(a.intercept_)[:, None]
            + np.abs(b.coef_) @ np.abs(X.T)
            + np.abs(b.intercept_)[:, None]
        )
    )
    return float(np.max(coef_gap + rounding))


@pytest.mark.parametrize("noise", [0.0, 8.0])
def test_msp_equals_sklearn_max_probability(noise):
    data, _, _ = cell(12, noise, PAPER)
    X, y = data.X_train[:3000], data.y_train[:3000]
    # both solvers converged tightly: the same optimum up to about 1e-5 (tests/test_models.py)
    ours = LogisticRegression(tol=1e-10, max_iter=5000).fit(X, y)
    theirs = sklearn_logistic(X, y)
    scores = FittedMSP(ours).score(data.X_test)
    reference = np.log(theirs.predict_proba(data.X_test).max(axis=1))
    # log p_max is 1-Lipschitz in each logit gap s_j - s_max, so it moves by at most
    # 2 max|s_ours - s_theirs|; plus the rounding of the two softmaxes (K + 4 operations each)
    # (the rounding of each side from its own logits: ours, the K - 1 exps of the gaps and their
    # sum within (K + 1)u relative (a gap's rounding u |g| e^g <= u/e), log1p of it within
    # (K + 1)u + u log K; theirs, p within (K + 2)u relative, its log within (K + 2)u + u log K:
    # (2K + 3 + 2 log K)u = 16.3u at K = 5, below 2 (K + 4) EPS = 36u)
    bound = 2.0 * logit_gap_bound(ours, theirs, data.X_test) + 2 * (5 + 4) * EPS
    assert bound < 1e-3  # not a tolerance: the comparison must not be vacuous
    np.testing.assert_allclose(scores, reference, rtol=0, atol=bound)


def test_msp_reuses_phase_one():
    data, model, context = cell(16, 6.0, PAPER)
    fitted = get_rejector("msp").fit(context)
    assert fitted.phase1_ is model.phase1_
    scores, labels = fitted.score_predict(data.X_test)
    np.testing.assert_array_equal(labels, model.phase1_.predict(data.X_test))
    reference = np.log(model.phase1_.predict_proba(data.X_test).max(axis=1))
    # the same model: the logits differ by rounding only (logit_gap_bound with no coefficient gap)
    bound = 2.0 * logit_gap_bound(model.phase1_, model.phase1_, data.X_test) + 18 * EPS
    np.testing.assert_allclose(scores, reference, rtol=0, atol=bound)


def test_log_max_softmax_does_not_saturate():
    logits = np.array([[0.0, 40.0, 800.0], [0.0, 0.0, 0.0]])
    log_p, best = log_max_softmax(logits)
    np.testing.assert_array_equal(best, [0, 0, 0])
    # exact values: -log 2, -log1p(e^-40), -log1p(e^-800) = -0.0 (e^-800 underflows). Ours:
    # log1p(1) and log(2) each within 1 ulp (glibc), <= 2u relative apiece; log1p(x) = x(1 -
    # x/2 + ...) for x = e^-40 (the same exp(-40.0) both sides) is 2e-18 relative off x, plus
    # 1 ulp: both within 4u = 2 EPS.
    np.testing.assert_allclose(log_p[:2], [-np.log(2.0), -np.exp(-40.0)], rtol=2 * EPS)
    assert log_p[1] < 0.0 and np.exp(log_p[1]) == 1.0  # the probability itself rounds to 1
    assert log_p[2] == 0.0


@pytest.mark.parametrize("lam", [0.0, 0.05, 0.15, 0.5, 0.8, 1.0])
def test_chow_rule(lam):
    data, model, context = cell(16, 6.0, PAPER)
    fitted = get_rejector("msp").fit(context)
    accept = fitted.accept(data.X_test, lam)
    p_max = np.exp(fitted.score(data.X_test))
    # Chow: accept iff p_max >= 1 - lam. accept compares log p_max with log1p(-lam) (within
    # 2u |log(1 - lam)|); here exp of it (u) is compared with fl(1 - lam) (u): they can disagree
    # only where |p_max - (1 - lam)| <= (1 - lam) u (2 |log(1 - lam)| + 3) < 8u for lam <= 0.8
    # (lam = 1: threshold -inf, every p_max >= 0). The window of 8 EPS = 16u covers it.
    close = np.abs(p_max - (1.0 - lam)) <= 8 * EPS
    np.testing.assert_array_equal(accept[~close], p_max[~close] >= 1.0 - lam)
    if lam == 1.0:
        assert accept.all()
    if lam == 0.0:
        assert not accept.any()  # every p_max < 1 exactly (all logits finite)
