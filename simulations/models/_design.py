"""The whitened design and the fused multinomial loss behind
:class:`~simulations.models.LogisticRegression`.

The design depends on ``X`` only, so fits of several label vectors on one ``X`` (GCUL's phases 1
and 3) build it once (:func:`scaled_design`) and share it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import linalg

from ._numerics import power_of_two_exponent

__all__ = ["ScaledDesign", "WhitenedMultinomialLoss", "scaled_design", "whitened_design"]


class WhitenedMultinomialLoss:
    """Fused loss and gradient of the multinomial objective in whitened coordinates.

    ``ZT`` holds the centred, whitened features ``z_i = A^T (x_i - mean)`` as columns, with a
    last row of ones for the intercept (``A = U diag(a)`` from the eigendecomposition of the
    covariance of ``X``). The parameters are ``theta = [V, b]`` of shape ``(K, d + 1)``; the
    original coefficients are ``W = V A^T`` and the original intercept is ``b - W mean``. As
    ``U`` is orthogonal, ``||W||_F^2 = sum_j a_j^2 ||V[:, j]||^2``: the penalty is diagonal in
    ``V`` and the objective is the original one, unchanged.
    """

    def __init__(self, ZT: np.ndarray, y_encoded: np.ndarray, n_classes: int, a: np.ndarray, C):
        self.n, self.K = ZT.shape[1], n_classes
        self.ZT = ZT
        # sum of z_i over the samples of each class: the gradient of the linear term
        one_hot = (y_encoded == np.arange(n_classes)[:, None]).astype(np.float64)
        self.YZ = one_hot @ ZT.T
        # l2_reg_strength = 1 / (C n) in the metric a_j^2; the intercept row is not penalised
        self.penalty = np.append(a**2, 0.0) / (C * self.n)
        self._prob = np.empty((n_classes, self.n))
        self._row_max, self._norm, self._log_norm = np.empty((3, self.n))

    def __call__(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        # The same operations, in the same order, as the textbook version (scores V @ ZT, a
        # stable log-sum-exp, softmax, gradient (prob - one_hot) @ ZT.T / n + penalty), written
        # into buffers allocated once per fit instead of fresh arrays on every call.
        V = theta.reshape(self.K, -1)
        prob = self._prob
        np.dot(V, self.ZT, out=prob)
        row_max = np.maximum.reduce(prob, axis=0, out=self._row_max)
        prob -= row_max
        np.exp(prob, out=prob)
        norm = np.add.reduce(prob, axis=0, out=self._norm)
        penalised = self.penalty * V
        log_norm = np.log(norm, out=self._log_norm)
        loss = (log_norm.sum() + row_max.sum() - np.vdot(V, self.YZ)) / self.n + 0.5 * np.vdot(
            penalised, V
        )
        prob /= norm  # softmax probabilities, shape (K, n)
        grad = prob @ self.ZT.T
        grad -= self.YZ
        grad /= self.n
        grad += penalised
        return float(loss), grad.ravel()


def whitened_design(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(ZT, A, a, mean)``: whitened, centred features as rows of ``ZT``, plus ones.

    ``A = U diag(a)`` with ``Cov(X) = U diag(s) U^T`` and ``a_j = s_j^{-1/2}``. With at least
    as many samples as features (``n >= d``, the synthetic protocol) ``U`` is the full ``d x d``
    eigenbasis and ``a_j = 1`` on directions of (numerically) zero variance; the covariance
    comes from ``X^T X / n - m m^T``, or from the explicitly centred data when the mean is so
    large against the spread that this would cancel badly. Rounding here only affects how well
    ``A`` conditions the problem, never the objective, which is the same for any invertible
    ``A``.

    With fewer samples than features (``n < d``, e.g. 100 text embeddings of dimension 20,000)
    the work is done in the sample space instead (:func:`_wide_whitened_design`): ``U`` holds
    only the directions the centred samples span, at most ``n - 1`` of them, found by an SVD
    of the ``n x d`` centred data in ``O(n^2 d)`` time and ``O(n d)`` memory rather than an
    eigendecomposition of the ``d x d`` covariance (``O(d^3)``, ``O(d^2)``: hours and 3 GB at
    ``d = 20,000``). The objective is unchanged: a coefficient component orthogonal to every
    centred sample adds the same constant to every score of a class (absorbed by its
    intercept) and only increases the penalty, so the optimum has none.
    """
    n, d = X.shape
    if n < d:
        return _wide_whitened_design(X)
    mean = np.ones(n) @ X / n
    cov = X.T @ X / n - np.outer(mean, mean)
    if mean @ mean > 1e6 * max(np.trace(cov), np.finfo(np.float64).tiny):
        X_centred = X - mean
        cov = X_centred.T @ X_centred / n
    A, a = _whitening(cov)
    ZT = np.empty((d + 1, n))
    np.dot(A.T, X.T, out=ZT[:d])
    ZT[:d] -= (mean @ A)[:, None]
    ZT[d] = 1.0
    return ZT, A, a, mean


def _whitening(cov: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(A, a)`` of :func:`whitened_design` from the ``d x d`` covariance: ``A = U diag(a)``
    with ``a_j = s_j^{-1/2}`` over ``eigh``'s eigenpairs, and ``a_j = 1`` where
    ``s_j <= 1e-10 max(s)`` (no variance to whiten, numerically)."""
    eigval, U = linalg.eigh(cov)
    top = eigval[-1] if eigval[-1] > 0 else 1.0
    keep = eigval > 1e-10 * top
    a = np.ones_like(eigval)
    a[keep] = 1.0 / np.sqrt(eigval[keep])
    return U * a, a


def _wide_whitened_design(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`whitened_design` for ``n < d``: ``A`` is ``d x r`` with ``r <= n - 1``.

    The thin SVD ``X - mean = P diag(t) Q^T`` gives the covariance's non-zero eigenpairs,
    ``s_j = t_j^2 / n`` with eigenvectors the rows of ``Q^T``, orthonormal to working
    precision (so ``A^T A = diag(a^2)``: the penalty metric is exact). Directions with
    ``s_j <= 1e-10 max(s)`` are dropped, as the ``n >= d`` path leaves them unwhitened; with
    no spread at all (every row the same) one direction is kept, ``a = 1``, so that the
    design still has a feature row.
    """
    n, d = X.shape
    mean = np.ones(n) @ X / n
    X_centred = X - mean
    _, singular, QT = linalg.svd(X_centred, full_matrices=False, check_finite=False)
    eigval = singular**2 / n
    top = eigval[0] if eigval[0] > 0 else 1.0
    keep = eigval > 1e-10 * top
    if not keep.any():
        keep[0] = True
        a = np.ones(1)
    else:
        a = 1.0 / np.sqrt(eigval[keep])
    A = QT[keep].T * a
    r = a.size
    ZT = np.empty((r + 1, n))
    np.dot(A.T, X_centred.T, out=ZT[:r])
    ZT[r] = 1.0
    return ZT, A, a, mean


class ScaledDesign(NamedTuple):
    """What every logistic regression on one ``X`` shares, whatever its labels.

    ``exponent`` is :func:`power_of_two_exponent` of ``X``; the rest is
    :func:`whitened_design` of ``X * 2**-exponent``. GCUL's phases 1 and 3 fit on the same
    ``X``: building this once serves both, and the fits are those of two separate
    :meth:`simulations.models.LogisticRegression.fit` calls, bit for bit. ``ZT`` is never written to.
    """

    exponent: int
    ZT: np.ndarray
    A: np.ndarray
    a: np.ndarray
    mean: np.ndarray


def scaled_design(X: np.ndarray) -> ScaledDesign:
    """The :class:`ScaledDesign` of a validated ``X`` (call it with BLAS single-threaded).

    Without a scaled copy of ``X`` when none is needed (:func:`_unscaled_whitened_design`): the
    same design, bit for bit, for about a third less memory (a 100,000 x 768 ``X`` is 614 MB).
    """
    exponent = power_of_two_exponent(X)
    if exponent == 0:  # X * 2**0 is X
        return ScaledDesign(0, *whitened_design(X))
    design = _unscaled_whitened_design(X, exponent)
    if design is None:
        design = whitened_design(np.ldexp(X, -exponent))
    return ScaledDesign(exponent, *design)


_EXACT_RANGE = 450  # nonzero entries within 2**±450: no product or sum of two leaves float64


def _unscaled_whitened_design(X: np.ndarray, exponent: int):
    r""":func:`whitened_design` of ``X * 2**-exponent`` computed from ``X``, or ``None``.

    Where it answers, the answer is the scaled copy's bit for bit, by two facts. (i) A power of
    two commutes with every rounding of a product or sum that neither overflows nor leaves the
    normal range: when every nonzero entry of ``X`` and of ``X * 2**-exponent`` lies within
    :math:`2^{\pm 450}`, every product of two entries (or of an entry and 1) lies within
    :math:`2^{\pm 900}` and every partial sum is 0 or a multiple of the smallest product's unit
    in the last place (at least :math:`2^{-953}`) below :math:`n\,2^{900}`, in both; so the
    mean (``ones @ X``) and the Gram matrix (``X.T @ X``, the same BLAS routine) of the scaled
    copy are those of ``X`` times :math:`2^{-e}` and :math:`4^{-e}`, and ``eigh`` receives the
    same covariance. (ii) The whitened rows ``A.T @ (X 2^{-e}).T`` are computed as
    ``(A 2^{-e}).T @ X.T``: every product is the same real number, hence the same float, when
    ``A * 2**-exponent`` is exact (checked: it scales back to ``A``). Otherwise (entries beyond
    that range, fewer rows than columns, or data whose mean is far from the origin, which
    :func:`whitened_design` centres explicitly) ``None``: the caller makes the scaled copy.
    """
    n, d = X.shape
    if n < d or exponent > _EXACT_RANGE:
        return None
    smallest = np.inf
    rows = max(1, (1 << 20) // max(d, 1))
    for start in range(0, n, rows):  # the smallest nonzero magnitude, a block at a time
        block = np.abs(X[start : start + rows])
        smallest = min(smallest, float(np.min(block, where=block > 0, initial=np.inf)))
    if smallest < 2.0 ** (max(exponent, 0) - _EXACT_RANGE):
        return None
    mean = np.ldexp(np.ones(n) @ X, -exponent) / n
    cov = np.ldexp(X.T @ X, -2 * exponent) / n - np.outer(mean, mean)
    if mean @ mean > 1e6 * max(np.trace(cov), np.finfo(np.float64).tiny):
        return None  # whitened_design centres the scaled copy explicitly
    A, a = _whitening(cov)
    A_scaled = np.ldexp(A, -exponent)
    if not np.array_equal(np.ldexp(A_scaled, exponent), A):  # an entry left the normal range
        return None
    ZT = np.empty((d + 1, n))
    np.dot(A_scaled.T, X.T, out=ZT[:d])
    ZT[:d] -= (mean @ A)[:, None]
    ZT[d] = 1.0
    return ZT, A, a, mean
