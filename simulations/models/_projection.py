"""Linear projections for GCUL's phase 2: PCA and LDA, as a :class:`LinearProjection`."""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral

import numpy as np
from scipy import linalg

from ._numerics import power_of_two_exponent
from ._validation import check_labels, check_matrix, check_positive

__all__ = ["LinearProjection", "lda", "pca"]


@dataclass(frozen=True)
class LinearProjection:
    """An affine projection ``(X - mean) @ weights`` learned by :func:`pca` or :func:`lda`.

    Attributes
    ----------
    kind : str
        ``"pca"`` or ``"lda"``.
    mean : ndarray of shape (n_features,)
        Centre subtracted before projecting (the data mean for PCA, the prior-weighted mean of
        the class means for LDA).
    weights : ndarray of shape (n_features, n_components)
        Projection matrix. For PCA its columns are the orthonormal principal axes
        (``PCA.components_.T``); for LDA they are the discriminant directions
        (``LinearDiscriminantAnalysis.scalings_``).
    explained_variance_ratio : ndarray of shape (n_components,)
        Share of the total (PCA) or between-class (LDA) variance along each component.
    """

    kind: str
    mean: np.ndarray
    weights: np.ndarray
    explained_variance_ratio: np.ndarray

    @property
    def n_components(self) -> int:
        """Dimension of the projected space."""
        return self.weights.shape[1]

    def transform(self, X) -> np.ndarray:
        """Project ``X`` (shape ``(n_samples, n_features)``) to ``(n_samples, n_components)``."""
        X = check_matrix(X, "X", n_features=self.mean.shape[0])
        return (X - self.mean) @ self.weights


def _check_n_components(n_components, upper: int, what: str) -> int:
    if n_components is None:
        return upper
    if isinstance(n_components, bool) or not isinstance(n_components, Integral):
        raise TypeError(f"n_components must be an integer or None; got {n_components!r}")
    as_int = int(n_components)  # exact for every Integral, so it compares as n_components does
    if not 1 <= as_int <= upper:
        raise ValueError(f"n_components must be in 1..{upper} ({what}); got {n_components}")
    return as_int


def pca(X, n_components: int | None = None) -> LinearProjection:
    r"""Principal component analysis, as ``sklearn.decomposition.PCA(n_components)``.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        Finite data.
    n_components : int or None, default=None
        Number of components, ``1..min(n_samples, n_features)``; ``None`` keeps them all.

    Returns
    -------
    LinearProjection
        ``weights`` holds the leading right singular vectors of the centred data as columns; the
        sign of each is fixed so that its largest-magnitude entry is positive (scikit-learn's
        ``svd_flip`` convention).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[-2.0, -1.0], [0.0, 0.0], [2.0, 1.0]])
    >>> projection = pca(X, n_components=1)
    >>> np.round(projection.weights.ravel() * np.sqrt(5), 6)
    array([2., 1.])
    >>> np.round(projection.transform(X).ravel() ** 2, 6)
    array([5., 0., 5.])
    """
    X = check_matrix(X, "X")
    k = _check_n_components(n_components, min(X.shape), "at most min(n_samples, n_features)")
    exponent = power_of_two_exponent(X)  # work on X * 2**-exponent: exact, no overflow
    X = np.ldexp(X, -exponent)
    mean = X.mean(axis=0)
    _, S, Vt = linalg.svd(X - mean, full_matrices=False)
    Vt = Vt[:k]
    signs = np.sign(Vt[np.arange(k), np.argmax(np.abs(Vt), axis=1)])
    signs[signs == 0] = 1.0
    variance = S**2
    total = variance.sum()
    ratio = variance[:k] / total if total > 0 else np.zeros(k)
    return LinearProjection("pca", np.ldexp(mean, exponent), (Vt * signs[:, None]).T, ratio)


def lda(X, y, n_components: int | None = None, tol: float = 1e-4) -> LinearProjection:
    r"""Linear discriminant analysis subspace, as ``LinearDiscriminantAnalysis(solver="svd")``.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        Finite data.
    y : array_like of shape (n_samples,)
        Integer class labels; at least two distinct values.
    n_components : int or None, default=None
        Number of discriminant directions, ``1..min(n_classes - 1, n_features)``; ``None``
        takes the maximum.
    tol : float, default=1e-4
        Singular values below ``tol`` (within-class step) or ``tol`` times the largest
        (between-class step) are treated as zero, as in scikit-learn.

    Returns
    -------
    LinearProjection
        ``transform`` equals scikit-learn's ``transform``. The number of components can be
        smaller than requested when the class means span fewer dimensions (as in scikit-learn).

    Notes
    -----
    The within-class scatter is whitened by an SVD of the within-class centred, per-feature
    standardised data scaled by :math:`n^{-1/2}`; the prior-weighted class means are then
    rotated onto their principal axes by a second SVD. The columns of ``weights`` maximise the
    ratio of between-class to within-class variance.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 3)) + np.repeat([[0, 0, 0], [4, 0, 0], [0, 4, 0]], 100, axis=0)
    >>> projection = lda(X, np.repeat([0, 1, 2], 100))
    >>> projection.n_components, projection.transform(X).shape
    (2, (300, 2))
    >>> bool(np.all(np.abs(projection.weights[2]) < 0.1))  # the third feature is pure noise
    True
    """
    X = check_matrix(X, "X")
    y = check_labels(y, "y", X.shape[0])
    tol = check_positive(tol, "tol")
    classes, y_encoded, counts = np.unique(y, return_inverse=True, return_counts=True)
    n_classes = classes.size
    if n_classes < 2:
        raise ValueError(f"y must contain at least two classes; got {n_classes}")
    n_samples, n_features = X.shape
    k_max = min(n_classes - 1, n_features)
    k = _check_n_components(n_components, k_max, "at most min(n_classes - 1, n_features)")

    exponent = power_of_two_exponent(X)  # work on X * 2**-exponent: exact, no overflow
    X = np.ldexp(X, -exponent)
    priors = counts / n_samples
    means = np.stack([X[y_encoded == c].mean(axis=0) for c in range(n_classes)])
    xbar = priors @ means
    within = X - means[y_encoded]
    std = within.std(axis=0)
    std[std == 0] = 1.0
    _, S, Vt = linalg.svd(np.sqrt(1.0 / n_samples) * (within / std), full_matrices=False)
    rank = int(np.sum(S > tol))
    scalings = (Vt[:rank] / std).T / S[:rank]
    between = (np.sqrt(n_samples * priors / (n_classes - 1)) * (means - xbar).T).T @ scalings
    _, S, Vt = linalg.svd(between, full_matrices=False)
    if S.size == 0 or S[0] == 0:
        raise ValueError(
            "lda found no discriminant direction: the class means of X coincide in the span "
            "of the within-class variation"
        )
    rank = int(np.sum(S > tol * S[0]))
    weights = (scalings @ Vt.T[:, :rank])[:, :k]
    ratio = (S**2 / np.sum(S**2))[: weights.shape[1]]
    # weights act on X * 2**-exponent: those of X are 2**-exponent times smaller
    return LinearProjection("lda", np.ldexp(xbar, exponent), np.ldexp(weights, -exponent), ratio)
