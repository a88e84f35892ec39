"""Tests for simulations.rejectors.deep_gamblers."""

from __future__ import annotations

import numpy as np
import pytest
from _rejector_data import PAPER, SMALL, cell
from scipy.optimize import check_grad
from scipy.special import softmax

from simulations.rejectors import get_rejector
from simulations.rejectors._linear import whitening
from simulations.rejectors.deep_gamblers import default_payoff, fit_deep_gamblers, gamblers_loss

EPS = np.finfo(np.float64).eps
H = np.sqrt(EPS)


def _problem():
    data, _, _ = cell(11, 6.0, SMALL)
    ZT = whitening(data.X_train).design(data.X_train)[:, :400]
    theta = np.random.default_rng(4).normal(0.0, 0.7, 6 * ZT.shape[0])
    return theta, ZT, data.y_train[:400]


@pytest.mark.parametrize("payoff", [1.2, 3.0, 4.9])
def test_loss_value_and_gradient(payoff):
    theta, ZT, y = _problem()
    penalty = 0.01

    def value(t):
        return gamblers_loss(t, ZT, y, np.log(payoff), penalty)[0]

    def gradient(t):
        return gamblers_loss(t, ZT, y, np.log(payoff), penalty)[1]

    # Liu et al.'s loss as their reference code writes it: -log(p_y + p_abstain / o)
    p = softmax(theta.reshape(6, -1) @ ZT, axis=0)
    naive = np.mean(-np.log(p[y, np.arange(y.size)] + p[5] / payoff))
    naive += 0.5 * penalty * np.sum(theta.reshape(6, -1)[:, :-1] ** 2)
    f = value(theta)
    np.testing.assert_allclose(f, naive, rtol=1e-13)  # two summation orders of m terms
    # forward-difference error bound as in test_rejectors_selectivenet
    curvature = max(
        abs(gradient(theta + 1e-4 * e)[i] - gradient(theta - 1e-4 * e)[i]) / 2e-4
        for i, e in enumerate(np.eye(theta.size))
    )
    bound = np.sqrt(theta.size) * (H / 2 * curvature + 2 * EPS * abs(f) / H)
    assert check_grad(value, gradient, theta) <= 4 * bound


def test_score_is_the_log_odds_of_betting():
    data, model, context = cell(16, 6.0, PAPER)
    fitted = get_rejector("deep_gamblers").fit(context)
    assert fitted.payoff_ == default_payoff(5) == 3.0 and fitted.converged_
    scores, labels = fitted.score_predict(data.X_test)
    p = softmax(fitted.coef_ @ fitted.whitening_.design(data.X_test), axis=0)
    # log((1 - p_a) / p_a) from probabilities: relative rounding (K + 3) eps in p_a and in
    # 1 - p_a, amplified by 1 / (1 - p_a) and 1 / p_a (both bounded here)
    reference = np.log1p(-p[5]) - np.log(p[5])
    tolerance = 4 * 8 * EPS * (1 / p[5] + 1 / (1 - p[5]))
    assert np.all(np.abs(scores - reference) <= tolerance)
    np.testing.assert_array_equal(labels, np.argmax(p[:5], axis=0))
    assert np.mean(labels == data.y_test) > 0.7


def test_pretrained_start_and_determinism():
    data, model, _ = cell(13, 4.0, SMALL)
    one = fit_deep_gamblers(data.X_train, data.y_train, 3.0, phase1=model.phase1_)
    two = fit_deep_gamblers(data.X_train, data.y_train, 3.0, phase1=model.phase1_)
    np.testing.assert_array_equal(one.coef_, two.coef_)
    adam = [
        fit_deep_gamblers(data.X_train, data.y_train, 3.0, solver="adam", seed=s, epochs=1)
        for s in (1, 1, 2)
    ]
    np.testing.assert_array_equal(adam[0].coef_, adam[1].coef_)
    assert not np.array_equal(adam[0].coef_, adam[2].coef_)


def test_coefficients_from_raw_reproduce_phase_one():
    data, model, _ = cell(13, 4.0, SMALL)
    white = whitening(data.X_train)
    rows = white.coefficients_from_raw(model.phase1_.coef_, model.phase1_.intercept_)
    ours = rows @ white.design(data.X_test)
    theirs = model.phase1_.decision_function(data.X_test).T
    # the same affine map regrouped: W (x - m) + (b + W m) with W = V diag(a) U^T folded through
    # the orthogonal U (entries <= 1, d terms per product, three products): each term's error
    # is <= 4 d (d + 2) eps times |W| (|x| + |m|) + |b| (the sizes of what is summed)
    d = data.X_test.shape[1]
    W, b = model.phase1_.coef_, model.phase1_.intercept_
    size = np.abs(W) @ (np.abs(data.X_test) + np.abs(white.mean)).T + np.abs(b)[:, None]
    assert np.all(np.abs(ours - theirs) <= 4 * d * (d + 2) * EPS * size)


def test_validation():
    X, y = np.zeros((4, 2)), np.array([0, 1, 2, 1])
    for payoff in (1.0, 3.0, 0.5):
        with pytest.raises(ValueError, match=r"payoff must be in \(1, K\) = \(1, 3\)"):
            fit_deep_gamblers(X, y, payoff)
    with pytest.raises(TypeError, match="payoff must be a real number"):
        fit_deep_gamblers(X, y, "2")
    with pytest.raises(ValueError, match="solver must be 'adam' or 'lbfgs'"):
        fit_deep_gamblers(X, y, 2.0, solver="newton")
    with pytest.raises(ValueError, match="gtol must be a finite number > 0"):
        fit_deep_gamblers(X, y, 2.0, gtol=float("inf"))
