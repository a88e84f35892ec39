"""Tests for simulations.rejectors.selectivenet (and the optimisers of _linear it shares)."""

from __future__ import annotations

import numpy as np
import pytest
from _rejector_data import PAPER, SMALL, cell
from scipy.optimize import check_grad
from scipy.special import expit, log_softmax

from simulations.rejectors import get_rejector
from simulations.rejectors._linear import adam, whitening
from simulations.rejectors.selectivenet import fit_selectivenet, selective_loss

EPS = np.finfo(np.float64).eps
H = np.sqrt(EPS)  # scipy.optimize.check_grad's forward-difference step


def naive_loss(theta, ZT, y, K, c, penalty, auxiliary, alpha=0.5, lam=32.0):
    """The loss written out as in Geifman & El-Yaniv 2019, Eqs. (2)-(4), plus the ridge."""
    P = theta.reshape(-1, ZT.shape[0])
    rows = np.arange(y.size)
    ce = -log_softmax((P[:K] @ ZT).T, axis=1)[rows, y]
    g = expit(P[K] @ ZT)
    phi = g.mean()
    selective = np.mean(ce * g) / phi + lam * max(0.0, c - phi) ** 2
    total = alpha * selective
    if auxiliary:
        total += (1 - alpha) * np.mean(-log_softmax((P[K + 1 :] @ ZT).T, axis=1)[rows, y])
    return total + 0.5 * penalty * np.sum(P[:, :-1] ** 2)


def _problem(auxiliary, coverage):
    data, _, _ = cell(11, 6.0, SMALL)
    ZT = whitening(data.X_train).design(data.X_train)[:, :400]
    y = data.y_train[:400]
    rows = 5 + 1 + (5 if auxiliary else 0)
    theta = np.random.default_rng(3).normal(0.0, 0.5, rows * ZT.shape[0])
    return theta, ZT, y, coverage


@pytest.mark.parametrize("auxiliary", [False, True])
@pytest.mark.parametrize("coverage", [0.2, 0.95])  # the coverage penalty inactive / active
def test_loss_value_and_gradient(auxiliary, coverage):
    theta, ZT, y, c = _problem(auxiliary, coverage)
    penalty = 0.01

    def value(t):
        return selective_loss(t, ZT, y, 5, c, penalty, auxiliary=auxiliary)[0]

    def gradient(t):
        return selective_loss(t, ZT, y, 5, c, penalty, auxiliary=auxiliary)[1]

    f = value(theta)
    # the same value as the formula written out: two summation orders of m terms of size <= f
    np.testing.assert_allclose(f, naive_loss(theta, ZT, y, 5, c, penalty, auxiliary), rtol=1e-13)
    phi = expit(theta.reshape(-1, ZT.shape[0])[5] @ ZT).mean()
    assert (phi < c) == (coverage == 0.95)
    # forward differences with step h err by <= h/2 max|f''| + 2 eps |f| / h per entry; the
    # curvature along each coordinate is measured from the analytic gradient (central
    # differences of it, accurate to O(h^2))
    p = theta.size
    curvature = max(
        abs(gradient(theta + 1e-4 * e)[i] - gradient(theta - 1e-4 * e)[i]) / 2e-4
        for i, e in enumerate(np.eye(p))
    )
    bound = np.sqrt(p) * (H / 2 * curvature + 2 * EPS * abs(f) / H)
    assert check_grad(value, gradient, theta) <= 4 * bound


def _pytorch_adam_reference(grad, theta, steps, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    """torch.optim.Adam's documented algorithm (amsgrad=False, weight_decay=0, maximize=False)."""
    m = np.zeros_like(theta)
    v = np.zeros_like(theta)
    for t in range(1, steps + 1):
        g = grad(theta, t)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        m_hat = m / (1 - b1**t)
        v_hat = v / (1 - b2**t)
        theta = theta - lr * m_hat / (np.sqrt(v_hat) + eps)
    return theta


def test_adam_is_pytorchs_algorithm():
    target = np.array([3.0, -2.0, 0.5, 1e-3])
    n, batch = 10, 4  # 3 batches an epoch, the last of 2 rows

    calls = []

    def loss(theta, rows):
        calls.append(rows.copy())
        scale = 1.0 + rows.sum() / 10.0  # depends on the batch: checks the batches are used
        return 0.0, scale * (theta - target)

    rng = np.random.default_rng(0)
    ours = adam(loss, np.zeros(4), n, rng, epochs=5, lr=0.1, batch_size=batch).theta
    assert [len(rows) for rows in calls[:3]] == [4, 4, 2]
    assert all(
        sorted(np.concatenate(calls[3 * e : 3 * e + 3]).tolist()) == list(range(n))
        for e in range(5)
    )
    reference = _pytorch_adam_reference(
        lambda theta, t: (1.0 + calls[t - 1].sum() / 10.0) * (theta - target),
        np.zeros(4),
        len(calls),
        lr=0.1,
    )
    # the same operations regrouped (PyTorch divides by sqrt(1 - b2^t) inside the denominator):
    # a few eps relative per step, over 15 steps of size <= lr
    np.testing.assert_allclose(ours, reference, rtol=0, atol=15 * 16 * EPS * 0.1)


def test_lbfgs_fit_reaches_about_the_target_coverage():
    data, model, context = cell(16, 6.0, PAPER)
    fitted = get_rejector("selectivenet").fit(context)
    assert fitted.solver_ == "lbfgs" and fitted.converged_ and fitted.auxiliary_ is None
    c = context.target_coverage
    train_coverage = np.mean(fitted.accept(data.X_train, 0.15))
    # the penalty makes coverage >= c a soft constraint: the optimum sits just above c
    assert c - 0.02 <= train_coverage <= c + 0.05
    scores, labels = fitted.score_predict(data.X_test)
    np.testing.assert_array_equal(fitted.accept(data.X_test, 0.9), scores >= 0.0)
    assert np.mean(labels == data.y_test) > 0.7  # the prediction head classifies


def test_adam_is_deterministic_from_its_seed():
    data, model, _ = cell(13, 4.0, SMALL)
    runs = [
        fit_selectivenet(data.X_train, data.y_train, 0.8, solver="adam", seed=s, epochs=2)
        for s in (5, 5, 6)
    ]
    np.testing.assert_array_equal(runs[0].selection_, runs[1].selection_)
    np.testing.assert_array_equal(runs[0].auxiliary_, runs[1].auxiliary_)
    assert not np.array_equal(runs[0].selection_, runs[2].selection_)
    assert runs[0].n_iter_ == 2 * int(np.ceil(data.y_train.size / 256))


def test_validation():
    X, y = np.zeros((4, 2)), np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match=r"target_coverage must be in \(0, 1\]; got 0"):
        fit_selectivenet(X, y, 0)
    with pytest.raises(ValueError, match="solver must be 'adam' or 'lbfgs'; got 'sgd'"):
        fit_selectivenet(X, y, 0.5, solver="sgd")
    with pytest.raises(ValueError, match="y must hold labels 0..K-1 with K >= 2"):
        fit_selectivenet(X, np.zeros(4, int), 0.5)
    with pytest.raises(TypeError, match="seed must be a SeedSequence or an int >= 0"):
        fit_selectivenet(X, y, 0.5, seed="a")
    with pytest.raises(ValueError, match="gtol must be a finite number > 0; got 0"):
        fit_selectivenet(X, y, 0.5, gtol=0)
