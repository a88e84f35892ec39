"""Tests for simulations.rejectors.mahalanobis: against a brute-force inverse-covariance form."""

from __future__ import annotations

import numpy as np
import pytest
from _rejector_data import PAPER, cell
from _tolerances import U, gamma

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


def distance_tolerance(fitted, X, means, covariance, reference):
    """Bound on |ours - brute force| for every d_k(x), shape (K, n): derivation in the comments."""
    d = X.shape[1]
    # d_k(x) = |L^-1 (x - mu_k)| with Sigma = L L^T. Ours, against the exact value of its own
    # (float) means and covariance: Cholesky's backward error (Higham Thm 10.3, |dSigma|_2 <=
    # d gamma(d + 1) |Sigma|_2) moves d_k by kappa d gamma(d + 1) / 2 relative; the solves for
    # x and mu_k (Thm 8.5, |dL| <= gamma(d) |L|) by sqrt(kappa d) gamma(d) |L^-1| (|x| + |mu_k|);
    # the difference, squares, sum and root by gamma(d + 2) relative. The two routes' means
    # and covariances differ as measured: |L^-1| |dmu_k| + d_k |Sigma^-1| |dSigma| / 2 (first
    # order). The brute force's inverse X is checked a posteriori: X - Sigma^-1 =
    # Sigma^-1 (Sigma X - I), the residual computed to gamma(d) |Sigma| |X|; its quadratic form
    # r^T X r with r = x - mu (u |r|) then errs by |r|^2 (|Sigma^-1| res + 2u |X|) +
    # gamma(2d) |r|^T |X| |r|, and the square root turns a squared error e into
    # min(e / d_k, sqrt(e)) plus u d_k.
    kappa = np.linalg.cond(covariance)
    sigma_inv = np.linalg.norm(np.linalg.inv(covariance), 2)
    inv_norm = np.sqrt(sigma_inv)  # |L^-1|_2
    size = np.linalg.norm(X, axis=1)[None, :] + np.linalg.norm(means, axis=1)[:, None]
    ours = reference * (kappa * d * gamma(d + 1) / 2 + gamma(d + 2))
    ours += np.sqrt(kappa * d) * gamma(d) * inv_norm * size
    shift_mu = inv_norm * np.linalg.norm(fitted.means_ - means, axis=1)[:, None]
    shift_sigma = reference * sigma_inv * np.linalg.norm(fitted.covariance_ - covariance, 2) / 2
    inverse = np.linalg.inv(covariance)
    residual = np.linalg.norm(covariance @ inverse - np.eye(d), 2)
    residual += gamma(d) * np.linalg.norm(np.abs(covariance) @ np.abs(inverse), 2)
    r = X[None, :, :] - means[:, None, :]  # (K, n, d)
    r2 = np.sum(r**2, axis=2)
    absolute_form = np.einsum("kni,ij,knj->kn", np.abs(r), np.abs(inverse), np.abs(r))
    squared_error = r2 * (sigma_inv * residual + 2 * U * np.linalg.norm(inverse, 2))
    squared_error += gamma(2 * d) * absolute_form
    theirs = np.minimum(squared_error / reference, np.sqrt(squared_error)) + U * reference
    tolerance = ours + shift_mu + shift_sigma + theirs
    return tolerance


@pytest.mark.parametrize("noise", [0.0, 6.0, 16.0])
def test_against_brute_force(noise):
    data, _, _ = cell(18, noise, PAPER)
    X_train, y_train = data.X_train[::4], data.y_train[::4]  # brute force is slow: a subsample
    fitted = FittedMahalanobis(X_train, y_train, 5)
    X = data.X_test[:300]
    means, covariance, reference = brute_force(X_train, y_train, X, 5)
    n, d = X_train.shape
    # means: sums over the n rows (one-hot products: zeros add exactly) in any order, within
    # gamma(n + 1) mean|x| each (Higham eq. 4.4, and the division); two routes: <= n EPS max|x|.
    np.testing.assert_allclose(fitted.means_, means, rtol=0, atol=n * EPS * np.abs(X_train).max())
    # covariance: centred by either route's means (a mean's error e moves a class's scatter by
    # n_k e e^T only, the centred rows summing to 0), sums of n products and a division: within
    # gamma(n + 2) of |centred|^T |centred| / n entrywise each; two routes: <= 2 n EPS scale.
    centred = X_train - means[y_train]
    scale = (np.abs(centred).T @ np.abs(centred)) / n
    assert np.all(np.abs(fitted.covariance_ - covariance) <= 2 * n * EPS * scale)
    distances = fitted.distances(X)
    tolerance = distance_tolerance(fitted, X, means, covariance, reference)
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
    # two summation orders of n values: within gamma(n + 1) mean|x| each, so |difference| <=
    # 2 gamma(n + 1) max|x| <= 2 n EPS max|x|
    bound = 2 * data.X_train.shape[0] * EPS * np.abs(data.X_train).max()
    np.testing.assert_allclose(fitted.means_, means, rtol=0, atol=bound)


def test_regularisation_makes_a_singular_covariance_usable():
    # A property that holds on every platform and BLAS/LAPACK: with the third column an exact
    # linear combination of the first two, the unregularised covariance is singular in exact
    # arithmetic, but whether Cholesky of its *rounded* value fails depends on rounding (it
    # did not with numpy 2.4.6 / scipy-openblas 0.3.31: last pivot 2.1e-8). So the test checks
    # what the regularisation is for: the regularised covariance is the one used (its smallest
    # eigenvalue is the 1e-4 added), and the distances match a brute-force inverse of it.
    rng = np.random.default_rng(0)
    base = rng.standard_normal((200, 2))
    X = np.column_stack([base, base[:, 0] + base[:, 1]])  # rank 2 in 3 dimensions
    y = rng.integers(0, 3, 200)
    fitted = FittedMahalanobis(X, y, 3)
    # Exactly 1e-4 for exact rank-2 data; the third column's rounding (u |x_0 + x_1| along
    # (1, 1, -1)/sqrt 3) adds a variance below u**2 max|x|**2; the covariance's rounding
    # (gamma(n + 2) |centred|^T |centred| / n entrywise) moves eigenvalues by at most its norm
    # (Weyl); eigvalsh is backward stable (|dlambda| <= p(d) u |C|_2, p(d) <= d**2 here).
    centred = X - fitted.means_[y]
    scale = np.abs(centred).T @ np.abs(centred) / X.shape[0]
    atol = gamma(X.shape[0] + 2) * np.linalg.norm(scale) + U**2 * np.abs(X).max() ** 2 * 4
    atol += gamma(9) * np.linalg.norm(fitted.covariance_, 2)
    np.testing.assert_allclose(np.linalg.eigvalsh(fitted.covariance_)[0], 1e-4, rtol=0, atol=atol)
    queries = rng.standard_normal((50, 3)) * 3.0
    means, covariance, reference = brute_force(X, y, queries, 3)
    tolerance = distance_tolerance(fitted, queries, means, covariance, reference)
    assert np.all(np.abs(fitted.distances(queries) - reference) <= tolerance)
    assert np.all(np.isfinite(fitted.score(X)))
    with pytest.raises(ValueError, match="regularization must be a finite number >= 0"):
        FittedMahalanobis(X, y, 3, regularization=-1.0)


def test_a_feature_constant_within_classes_needs_the_regularisation():
    # Exactly singular whatever the rounding: the third feature equals its class's value, so its
    # centred column is exactly 0 (x - mean of equal numbers is 0 in floating point), the
    # covariance's third row and column are exactly 0 and Cholesky meets a pivot of exactly 0.
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 120)
    X = np.column_stack([rng.standard_normal((120, 2)), np.array([0.5, -1.25, 2.0])[y]])
    with pytest.raises(ValueError, match="regularised shared covariance is not positive"):
        FittedMahalanobis(X, y, 3, regularization=0.0)
    fitted = FittedMahalanobis(X, y, 3)
    assert fitted.covariance_[2, 2] == COVARIANCE_REGULARIZATION  # 0 + 1e-4, exactly
    assert np.all(np.isfinite(fitted.distances(X)))


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
    # In the metric of the computed L both points' distances differ by |L^-1 e_1| up to the
    # curvature, below |L^-1 e_1|**2 / d + |L^-1 e_1| (|L^-1 mu| / d)**2. Each computed
    # distance errs by the solves' sqrt(kappa_L d) gamma(d) |L^-1| (|x| + |mu|) (Higham Thm 8.5)
    # plus gamma(d + 2) of itself; the reference's triangular inverse and norm by
    # kappa_L gamma(d + 2) of it: 1e8 times u over a step near 1, about 1e-7 relative.
    d = 2
    kappa_L = np.linalg.cond(fitted.cholesky_)
    inv_norm = np.linalg.norm(L_inv, 2)
    mean_norm = np.linalg.norm(fitted.means_, axis=1)
    each = (
        np.sqrt(kappa_L * d) * gamma(d) * inv_norm * (np.linalg.norm(far, axis=1).max() + mean_norm)
    )
    each += gamma(d + 2) * distances.max(axis=1)
    white_mean = np.linalg.norm(L_inv @ fitted.means_.T, axis=0)
    curvature = expected**2 / distances[:, 0] + expected * (white_mean / distances[:, 0]) ** 2
    atol = 2 * each + curvature + kappa_L * gamma(d + 2) * expected
    assert np.all(np.abs(step - expected) <= atol), (step - expected, atol)


def test_distances_in_blocks_are_those_of_all_columns_at_once(monkeypatch):
    # each distance is computed alone (differences, squares, a sum over d), so computing a block
    # of query rows at a time changes no bit of it; the reference is the whole (K', d, n) array
    from scipy import linalg

    from simulations.rejectors import mahalanobis

    rng = np.random.default_rng(21)
    X = rng.standard_normal((900, 40)) * rng.uniform(0.1, 10.0, 40)
    y = rng.integers(0, 7, 900)
    queries = 3.0 * rng.standard_normal((1001, 40))
    fitted = mahalanobis.FittedMahalanobis(X, y, 7)
    white = linalg.solve_triangular(fitted.cholesky_, queries.T, lower=True)
    diff = white[None, :, :] - fitted._white_means.T[:, :, None]
    reference = np.sqrt(np.einsum("kdn,kdn->kn", diff, diff))
    for block in (2**22, 7 * 40 * 64, 7 * 40 * 3 + 5):  # one block; 64 rows; 3 rows
        monkeypatch.setattr(mahalanobis, "_BLOCK_DIFFERENCES", block)
        np.testing.assert_array_equal(fitted.distances(queries), reference)
