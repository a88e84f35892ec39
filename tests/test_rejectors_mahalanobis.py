"""Tests for simulations.rejectors.mahalanobis: against a brute-force inverse-covariance form."""

from __future__ import annotations

import numpy as np
import pytest
from _rejector_data import PAPER, cell

from simulations.rejectors import get_rejector
from simulations.rejectors.mahalanobis import COVARIANCE_REGULARIZATION, FittedMahalanobis

EPS = np.finfo(np.float64).eps


def brute_force(X_train, y_train, X, n_classes, regularization=COVARIANCE_REGULARIZATION):
    """Means, tied covariance and d_k(x)^2 = (x - mu_k)^T inv(Sigma) (x - mu_k), point by point."""
    d = X_train.shape[1]
    means = np.array([X_train[y_train == k].mean(axis=0) for k in range(n_classes)])
    covariance = sum(
        (X_train[i] - means[y_train[i]])[:, None] * (X_train[i] - means[y_train[i]])[None, :]
        for i in range(0, X_train.shape[0])
    ) / X_train.shape[0] + regularization * np.eye(d)
    inverse = np.linalg.inv(covariance)
    squared = np.array([[(x - m) @ inverse @ (x - m) for m in means] for x in X])
    return means, covariance, np.sqrt(squared.T)


@pytest.mark.parametrize("noise", [0.0, 6.0, 16.0])
def test_against_brute_force(noise):
    data, _, _ = cell(18, noise, PAPER)
    X_train, y_train = data.X_train[::4], data.y_train[::4]  # brute force is slow: a subsample
    fitted = FittedMahalanobis(X_train, y_train, 5)
    X = data.X_test[:300]
    means, covariance, reference = brute_force(X_train, y_train, X, 5)
    n, d = X_train.shape
    # means and covariance: sums of n terms, relative error <= n eps (entrywise, of the sum of
    # absolute values: the centred products' magnitudes)
    np.testing.assert_allclose(fitted.means_, means, rtol=0, atol=n * EPS * np.abs(X_train).max())
    centred = X_train - means[y_train]
    scale = (np.abs(centred).T @ np.abs(centred)) / n
    assert np.all(np.abs(fitted.covariance_ - covariance) <= 2 * n * EPS * scale)
    distances = fitted.distances(X)
    # Cholesky + triangular solves (backward stable) and inv (error ~ d eps kappa) each give
    # d_k(x) with absolute error <= c d eps kappa(Sigma) ||L^-1||_2 (||x|| + ||mu_k||), c <= 4 for
    # both together; a relative term covers the distance itself
    kappa = np.linalg.cond(covariance)
    inv_norm = np.sqrt(np.linalg.norm(np.linalg.inv(covariance), 2))
    size = np.linalg.norm(X, axis=1)[None, :] + np.linalg.norm(means, axis=1)[:, None]
    tolerance = 4 * (d + 2) * EPS * kappa * (inv_norm * size + reference)
    assert np.all(np.abs(distances - reference) <= tolerance)
    scores, labels = fitted.score_predict(X)
    np.testing.assert_array_equal(scores, -distances.min(axis=0))
    np.testing.assert_array_equal(labels, np.argmin(distances, axis=0))
    # the brute force's nearest class, wherever the two nearest are not within the tolerance
    gap = np.sort(reference, axis=0)[1] - np.sort(reference, axis=0)[0]
    clear = gap > 2 * tolerance.max()
    np.testing.assert_array_equal(labels[clear], np.argmin(reference, axis=0)[clear])


def test_registry_entry_fits_the_observed_labels():
    data, _, context = cell(16, 12.0, PAPER)
    fitted = get_rejector("mahalanobis").fit(context)
    assert data.flipped_train.any()  # noisy labels: the means are those of the observed ones
    means = np.array([data.X_train[data.y_train == k].mean(axis=0) for k in range(5)])
    # two summation orders of n values: |difference| <= 2 n eps max|x|
    bound = 2 * data.X_train.shape[0] * EPS * np.abs(data.X_train).max()
    np.testing.assert_allclose(fitted.means_, means, rtol=0, atol=bound)


def test_regularisation_makes_a_singular_covariance_usable():
    rng = np.random.default_rng(0)
    base = rng.standard_normal((200, 2))
    X = np.column_stack([base, base[:, 0] + base[:, 1]])  # rank 2 in 3 dimensions
    y = rng.integers(0, 3, 200)
    fitted = FittedMahalanobis(X, y, 3)
    np.testing.assert_allclose(np.linalg.eigvalsh(fitted.covariance_)[0], 1e-4, rtol=1e-6)
    assert np.all(np.isfinite(fitted.score(X)))
    with pytest.raises(ValueError, match="regularised shared covariance is not positive"):
        FittedMahalanobis(X, y, 3, regularization=0.0)
    with pytest.raises(ValueError, match="regularization must be a finite number >= 0"):
        FittedMahalanobis(X, y, 3, regularization=-1.0)


def test_far_points_do_not_cancel():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((300, 2))
    y = (X[:, 0] > 0).astype(int)
    fitted = FittedMahalanobis(X, y, 2)
    far = np.array([[1e8, 0.0], [1e8 + 1.0, 0.0]])
    distances = fitted.distances(far)
    # one unit further out is one unit / sigma further: no loss to cancellation at 1e8
    step = distances[:, 1] - distances[:, 0]
    L_inv = np.linalg.inv(fitted.cholesky_)
    expected = np.linalg.norm(L_inv @ np.array([1.0, 0.0]))
    np.testing.assert_allclose(step, expected, rtol=1e-6)  # 1e8 * eps / step ~ 2e-8 relative
