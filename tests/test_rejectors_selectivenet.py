"""Tests for simulations.rejectors.selectivenet (and the optimisers of _linear it shares)."""

from __future__ import annotations

import numpy as np
import pytest
from _rejector_data import PAPER, SMALL, cell
from _tolerances import U, gamma
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


def cross_entropy_rounding(logits, y, shared):
    """Per sample, a bound on the error of -log softmax(logits)[y] (logits (K, m)).

    Its logits carry ``shared`` (the matrix product's rounding, per entry) and -log softmax is
    2-Lipschitz in their largest change (sum_k |d ce/d s_k| = 2 (1 - p_y)); then, from the
    given logits, the shift by the largest (u R, R a column's range), the exps, their sum of K
    and its log (u (R + K + log K)), the difference (u ce): u (2R + K + log K + ce).
    """
    K = logits.shape[0]
    R = logits.max(axis=0) - logits.min(axis=0)
    ce = -log_softmax(logits.T, axis=1)[np.arange(y.size), y]
    return 2 * shared.max(axis=0) + U * (2 * R + K + np.log(K) + ce), ce


def loss_rounding(theta, ZT, y, K, c, penalty, auxiliary, alpha=0.5, lam=32.0):
    """A bound on |computed - exact| of one evaluation of the loss, in any summation order.

    With e_i the cross-entropies' errors (cross_entropy_rounding), g_i = expit(u_i) off by
    g(1 - g) |du_i| + 2u g (the product's rounding |du_i|, expit to 1 ulp), phi and
    A = mean(ce g) off by their terms' errors plus gamma(m + 1) of themselves (a sum of m
    non-negative terms and a division); A/phi by e_A/phi + A e_phi/phi**2 + u A/phi; the coverage
    penalty lam s**2 (s = c - phi) by 2 lam s (e_phi + u (c + phi)) + 2u lam s**2; the ridge
    by gamma(p + 2) of itself; the sums and products joining the terms by 4u of the value.
    """
    P = theta.reshape(-1, ZT.shape[0])
    m = y.size
    size = np.abs(P) @ np.abs(ZT)
    shared = gamma(ZT.shape[0]) * size  # each score: a dot product of d + 1 terms
    e_ce, ce = cross_entropy_rounding(P[:K] @ ZT, y, shared[:K])
    g = expit(P[K] @ ZT)
    e_g = g * (1 - g) * shared[K] + 2 * U * g
    phi, A = g.mean(), np.mean(ce * g)
    e_phi = e_g.mean() + gamma(m + 1) * phi
    e_A = np.mean(e_ce * g + ce * e_g) + gamma(m + 1) * A
    short = max(0.0, c - phi)
    selective = A / phi + lam * short**2
    e_sel = e_A / phi + A * e_phi / phi**2 + U * A / phi
    if short > 0.0:
        e_sel += 2 * lam * short * (e_phi + U * (c + phi)) + 2 * U * lam * short**2
    total, error = alpha * selective, alpha * e_sel
    if auxiliary:
        e_aux, ce_aux = cross_entropy_rounding(P[K + 1 :] @ ZT, y, shared[K + 1 :])
        total += (1 - alpha) * ce_aux.mean()
        error += (1 - alpha) * (e_aux.mean() + gamma(m + 1) * ce_aux.mean())
    ridge = 0.5 * penalty * np.sum(P[:, :-1] ** 2)
    return error + gamma(P.size + 2) * ridge + 4 * U * (total + ridge)


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
    # the same value as the formula written out: both within loss_rounding of the exact value
    delta_f = loss_rounding(theta, ZT, y, 5, c, penalty, auxiliary)
    assert abs(f - naive_loss(theta, ZT, y, 5, c, penalty, auxiliary)) <= 2 * delta_f
    phi = expit(theta.reshape(-1, ZT.shape[0])[5] @ ZT).mean()
    assert (phi < c) == (coverage == 0.95)
    # check_grad: forward differences with step h = H (scipy recomputes the step as the exact
    # difference of the two floats) err by <= h/2 max|f''| + 2 delta_f / h + u |df| / h per
    # entry, delta_f the evaluation error (loss_rounding); the analytic gradient's own rounding
    # (about u per term) is 1e-8 times smaller. The curvature along each coordinate is measured
    # at theta from the analytic gradient (central differences, step 1e-4; they agree with step
    # 1e-6 to 1e-9 relative here) and doubled for its variation over [theta, theta + h e_i]:
    # an a posteriori estimate, not a proof. The norm over p entries: sqrt(p) times the largest.
    p = theta.size
    curvature = max(
        abs(gradient(theta + 1e-4 * e)[i] - gradient(theta - 1e-4 * e)[i]) / 2e-4
        for i, e in enumerate(np.eye(p))
    )
    steps = H * curvature + 2 * delta_f / H + U * np.abs(gradient(theta)).max()
    assert check_grad(value, gradient, theta) <= np.sqrt(p) * steps


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


def adam_divergence_bound(scales, theta, target, lr, b1=0.9, b2=0.999, eps=1e-8):
    """How far two float evaluations of Adam on g_t = scale_t (theta - target) can part.

    Both update m and v with the same operations (so they agree given the same theta) and
    differ in the grouping of the step delta = lr m / (p (sqrt(v / q) + eps)), p = 1 - b1^t,
    q = 1 - b2^t (the same floats on both sides): each grouping is within gamma(7) of the exact
    step, and each rounds theta - delta: a local gap of 2 gamma(7) |delta_t| + 2u |theta_t+1|.
    A gap in theta_t+1 reaches the last theta times the sensitivity dtheta_T/dtheta_t+1, the
    product of the steps' Jacobians in (theta, m, v) along the trajectory (first order; every
    coordinate evolves on its own).
    """
    theta = theta.astype(float).copy()
    m, v = np.zeros_like(theta), np.zeros_like(theta)
    steps = []
    for t, scale in enumerate(scales, start=1):
        g = scale * (theta - target)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        p, q = 1 - b1**t, 1 - b2**t
        root = np.sqrt(v / q)
        den = root + eps
        delta = lr / p * m / den
        d_m = lr / p / den  # d delta / d m'
        d_v = np.where(v > 0, -lr / p * m / den**2 / (2 * np.sqrt(v) * np.sqrt(q)), 0.0)
        jacobian = np.array(
            [
                [1 - d_m * (1 - b1) * scale - d_v * 2 * (1 - b2) * g * scale, -d_m * b1, -d_v * b2],
                [(1 - b1) * scale + 0 * g, b1 + 0 * g, 0 * g],
                [2 * (1 - b2) * g * scale, 0 * g, b2 + 0 * g],
            ]
        )  # (3, 3, coordinates)
        theta = theta - delta
        steps.append((jacobian, 2 * gamma(7) * np.abs(delta) + 2 * U * np.abs(theta)))
    bound = np.zeros_like(theta)
    sensitivity = np.array([np.ones_like(theta), 0 * theta, 0 * theta])  # d theta_T / d state
    for jacobian, gap in reversed(steps):
        bound += np.abs(sensitivity[0]) * gap
        sensitivity = np.einsum("ic,ijc->jc", sensitivity, jacobian)
    return bound


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
    # adam_divergence_bound, the steps' roundings carried to the end by the trajectory's
    # sensitivities
    scales = [1.0 + rows.sum() / 10.0 for rows in calls]
    atol = adam_divergence_bound(scales, np.zeros(4), target, lr=0.1)
    assert np.all(np.abs(ours - reference) <= atol), (ours - reference, atol)


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
    # the seed check Deep Gamblers has (shared since issue 15): a negative int is refused by name,
    # not by numpy's SeedSequence
    with pytest.raises(TypeError, match="seed must be a SeedSequence or an int >= 0; got -1"):
        fit_selectivenet(X, y, 0.5, seed=-1)
    with pytest.raises(ValueError, match="gtol must be a finite number > 0; got 0"):
        fit_selectivenet(X, y, 0.5, gtol=0)
