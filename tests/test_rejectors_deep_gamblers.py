"""Tests for simulations.rejectors.deep_gamblers."""

from __future__ import annotations

import numpy as np
import pytest
from _rejector_data import PAPER, SMALL, cell
from _tolerances import U, gamma
from scipy.optimize import check_grad
from scipy.special import logsumexp, softmax

from simulations.rejectors import get_rejector
from simulations.rejectors._linear import whitening
from simulations.rejectors.deep_gamblers import default_payoff, fit_deep_gamblers, gamblers_loss

EPS = np.finfo(np.float64).eps
H = np.sqrt(EPS)


def loss_rounding(theta, ZT, y, payoff, penalty):
    """A bound on |computed - exact| of one evaluation of the loss, by either formula.

    The scores P Z carry gamma(d + 1) |P| |Z| each (dot products), and a term
    l = log sum_k e^s_k - log(e^s_y + e^s_K / o) is 2-Lipschitz in their largest change. From
    given scores, ours (shift by the largest, R the range: u R; the log of a sum of K + 1 exps:
    u (R + K + 1 + log(K + 1)); the abstention's score minus log o and logaddexp: u (3R + 3 |log o|
    + 2); the difference: u l) errs by u (5R + 4 |log o| + K + 3 + log(K + 1) + l), more than
    the written-out formula (a softmax within u (R + K + 3), a sum and a log: u (R + K + 5 + l)).
    The mean of m terms adds gamma(m + 1) of itself, the ridge gamma(p + 2) of itself, their sum
    2u of the value.
    """
    P = theta.reshape(-1, ZT.shape[0])
    K = P.shape[0] - 1
    m = y.size
    logits = P @ ZT
    shared = gamma(ZT.shape[0]) * (np.abs(P) @ np.abs(ZT))
    R = logits.max(axis=0) - logits.min(axis=0)
    log_o = abs(np.log(payoff))
    bet = np.logaddexp(logits[y, np.arange(m)], logits[K] - np.log(payoff))
    loss = logsumexp(logits, axis=0) - bet
    each = 2 * shared.max(axis=0) + U * (5 * R + 4 * log_o + K + 3 + np.log(K + 1) + loss)
    ridge = 0.5 * penalty * np.sum(P[:, :-1] ** 2)
    value = loss.mean() + ridge
    return each.mean() + gamma(m + 1) * loss.mean() + gamma(P.size + 2) * ridge + 2 * U * value


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
    delta_f = loss_rounding(theta, ZT, y, payoff, penalty)
    assert abs(f - naive) <= 2 * delta_f  # each within loss_rounding of the exact value
    # forward-difference error bound as in test_rejectors_selectivenet (the curvature measured
    # at theta and doubled: an a posteriori estimate)
    curvature = max(
        abs(gradient(theta + 1e-4 * e)[i] - gradient(theta - 1e-4 * e)[i]) / 2e-4
        for i, e in enumerate(np.eye(theta.size))
    )
    steps = H * curvature + 2 * delta_f / H + U * np.abs(gradient(theta)).max()
    assert check_grad(value, gradient, theta) <= np.sqrt(theta.size) * steps


def test_score_is_the_log_odds_of_betting():
    data, model, context = cell(16, 6.0, PAPER)
    fitted = get_rejector("deep_gamblers").fit(context)
    assert fitted.payoff_ == default_payoff(5) == 3.0 and fitted.converged_
    scores, labels = fitted.score_predict(data.X_test)
    logits = fitted.coef_ @ fitted.whitening_.design(data.X_test)  # the same floats as ours
    p = softmax(logits, axis=0)
    # Ours, log sum_k<K e^s_k - s_K from the scores: the log-sum-exp over the K classes
    # (u (R + K + log K), R their range) and its value (u |log_bet|), the difference (u |score|).
    # The reference, log1p(-p_a) - log(p_a) from probabilities within d = u (R' + K + 3)
    # relative (R' the range of all K + 1 scores): d / (1 - p_a) through the two logs, plus
    # their roundings and the difference's.
    reference = np.log1p(-p[5]) - np.log(p[5])
    K = 5
    R = logits[:K].max(axis=0) - logits[:K].min(axis=0)
    ours = U * (R + K + np.log(K) + np.abs(logsumexp(logits[:K], axis=0)) + np.abs(scores))
    d = U * (logits.max(axis=0) - logits.min(axis=0) + K + 3)
    theirs = d / (1 - p[5]) + U * (np.abs(np.log1p(-p[5])) + np.abs(np.log(p[5])) + np.abs(scores))
    assert np.all(np.abs(scores - reference) <= ours + theirs)
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
    # The same affine map regrouped: with a the column norms of A and U = A diag(1/a), exactly
    # V z + b' = W U U^T (x - m) + W m + b, so the map itself is off by
    # |w_k| |U^T U - I|_2 |x - m| (U is orthogonal to rounding: measured a posteriori, the
    # product's own rounding gamma(d) |U|^T |U| included). The products then round: z = A^T x -
    # A^T m, V = W U / a, b' = b + W m and [V, b'] [z, 1] within gamma(2d + 7) of the sizes
    # |W| |U| |U|^T (|x| + |m|) + |W| |m| + |b| (|V| |A|^T <= |W| |U| |U|^T); theirs, W x + b,
    # within gamma(d + 1) (|W| |x| + |b|).
    d = data.X_test.shape[1]
    W, b = model.phase1_.coef_, model.phase1_.intercept_
    a = np.sqrt(np.sum(white.A**2, axis=0))
    Umat = white.A / a
    orthogonality = np.linalg.norm(Umat.T @ Umat - np.eye(d), 2)
    orthogonality += gamma(d) * np.linalg.norm(np.abs(Umat).T @ np.abs(Umat), 2)
    centred = np.linalg.norm(data.X_test - white.mean, axis=1)
    folded = np.linalg.norm(W, axis=1)[:, None] * orthogonality * centred[None, :]
    spread = np.abs(Umat) @ np.abs(Umat).T @ (np.abs(data.X_test) + np.abs(white.mean)).T
    size = np.abs(W) @ spread + (np.abs(W) @ np.abs(white.mean) + np.abs(b))[:, None]
    rounding = gamma(2 * d + 7) * size
    rounding += gamma(d + 1) * (np.abs(W) @ np.abs(data.X_test).T + np.abs(b)[:, None])
    assert np.all(np.abs(ours - theirs) <= folded + rounding)


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
