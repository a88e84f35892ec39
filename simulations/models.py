"""Minimal NumPy/SciPy models used by the GCUL simulation.

Each model reproduces one scikit-learn estimator exactly enough for the synthetic protocol
(same objective, same convergence rules, same subspaces), without importing scikit-learn:

- :class:`LogisticRegression`: multinomial L2 logistic regression, the objective of
  ``sklearn.linear_model.LogisticRegression(C=C, solver="lbfgs")``;
- :func:`kmeans`: Lloyd's algorithm from given initial centres, the iteration of
  ``sklearn.cluster.KMeans(init=init, n_init=1, algorithm="lloyd")``;
- :func:`pca` and :func:`lda`: the projections of ``sklearn.decomposition.PCA`` and
  ``sklearn.discriminant_analysis.LinearDiscriminantAnalysis(solver="svd")``, returned as a
  :class:`LinearProjection`.

Inputs are validated at these public entry points: ``X`` must be a real, finite numeric matrix
(complex and string arrays raise ``TypeError`` rather than being cast, as in scikit-learn).
Every solver runs on ``X`` times a power of two that brings its largest magnitude into
``[0.5, 1)``; the scaling is exact, so results do not change for data of ordinary scale, and
features near ``1e300`` or ``1e-300`` neither overflow nor underflow.

If ``threadpoolctl`` is installed, the solvers keep BLAS on one thread while they run (see
``_single_threaded_blas``); without it they are correct but can be much slower on small
machines.
"""

from __future__ import annotations

import contextlib
import functools
import warnings
from dataclasses import dataclass
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from scipy import linalg
from scipy.optimize import minimize

__all__ = [
    "ConvergenceWarning",
    "LinearProjection",
    "LogisticRegression",
    "kmeans",
    "lda",
    "pca",
    "single_threaded_blas",
]


class ConvergenceWarning(UserWarning):
    """An iterative solver stopped before meeting its convergence criterion."""


# ----------------------------------------------------------------------------------------------
# Validation (public boundary only; private helpers assume valid input)
# ----------------------------------------------------------------------------------------------


def _check_matrix(X, name: str, *, n_features: int | None = None) -> np.ndarray:
    """Return ``X`` as a finite, C-contiguous float64 matrix with at least one row.

    Complex, string and object arrays are refused (``TypeError``) instead of being cast, as
    scikit-learn does; booleans and integers are converted.
    """
    try:
        raw = np.asarray(X)
    except (TypeError, ValueError) as exc:  # e.g. ragged nested sequences
        raise TypeError(f"{name} must be a numeric 2-D array; got {type(X).__name__}") from exc
    if raw.dtype.kind == "c":
        raise TypeError(
            f"{name} must be real; got complex dtype {raw.dtype} (pass X.real explicitly if the "
            "imaginary part is meant to be dropped)"
        )
    if raw.dtype.kind not in "biufO":
        raise TypeError(f"{name} must be a numeric 2-D array; got dtype {raw.dtype}")
    try:
        arr = raw.astype(np.float64, copy=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric 2-D array; got dtype {raw.dtype}") from exc
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_samples, n_features); got ndim={arr.ndim}"
        )
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} must have at least one sample and one feature; got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite values; found NaN or inf")
    if n_features is not None and arr.shape[1] != n_features:
        raise ValueError(
            f"{name} has {arr.shape[1]} features, but the model was fitted with {n_features}"
        )
    return np.ascontiguousarray(arr)


_INT64_LIMIT = 2.0**63  # float labels at or beyond this do not fit in int64


def _check_labels(y, name: str, n_samples: int) -> np.ndarray:
    """Return ``y`` as a 1-D int64 vector of length ``n_samples`` (integer-valued labels).

    Messages quote at most one offending value, never the array.
    """
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of labels; got ndim={arr.ndim}")
    if arr.shape[0] != n_samples:
        raise ValueError(f"{name} has {arr.shape[0]} labels, but X has {n_samples} samples")
    if arr.dtype.kind in "ib":
        return arr.astype(np.int64)
    if arr.dtype.kind == "u":
        if arr.size and arr.max() > np.iinfo(np.int64).max:
            raise ValueError(f"{name} labels must fit in int64; got {int(arr.max())}")
        return arr.astype(np.int64)
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} must contain only finite labels; found NaN or inf")
        fractional = arr != np.round(arr)
        if np.any(fractional):
            raise ValueError(
                f"{name} must contain integer class labels; found {float(arr[fractional][0])!r}"
            )
        if arr.size and np.abs(arr).max() >= _INT64_LIMIT:
            raise ValueError(f"{name} labels must fit in int64; got {float(np.abs(arr).max())!r}")
        return arr.astype(np.int64)
    raise TypeError(
        f"{name} must contain integer class labels; got dtype {arr.dtype} (encode other labels "
        f"first: classes, {name} = np.unique({name}, return_inverse=True))"
    )


def _encode_labels(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(y, return_inverse=True)`` for int64 labels ``y``, by counting when they are
    small non-negative integers (as GCUL's are), sorting otherwise."""
    if y.size and y.min() >= 0 and y.max() < 2 * y.size:
        counts = np.bincount(y)
        present = counts > 0
        if present.all():
            return np.arange(counts.size, dtype=y.dtype), y
        return np.flatnonzero(present).astype(y.dtype), (np.cumsum(present) - 1)[y]
    return np.unique(y, return_inverse=True)


def _power_of_two_exponent(*arrays: np.ndarray) -> int:
    """Exponent ``e`` such that ``arrays * 2**-e`` have their largest magnitude in [0.5, 1).

    Scaling by a power of two is exact (barring underflow of entries about ``2**-1022`` times
    smaller than the largest), so the solvers run on data of magnitude about 1 whatever the
    units of ``X``: no sum of squares overflows for ``X`` near ``1e300`` and none underflows for
    ``X`` near ``1e-300``. For data that needs no scaling the results are bit for bit those
    of the unscaled computation (every operation commutes with an exact power-of-two scale),
    as long as nothing overflows or underflows.
    """
    largest = max((float(np.max(np.abs(a))) if a.size else 0.0) for a in arrays)
    if largest == 0.0:
        return 0
    return int(np.frexp(largest)[1])


def _check_positive(value, name: str, *, integer: bool = False):
    kind = Integral if integer else Real
    if isinstance(value, bool) or not isinstance(value, kind):
        what = "an integer" if integer else "a real number"
        raise TypeError(f"{name} must be {what} > 0; got {value!r}")
    if not (value > 0 and np.isfinite(value)):
        raise ValueError(f"{name} must be > 0 and finite; got {value!r}")
    return int(value) if integer else float(value)


def _lowest_set_bit_table(n_bits: int) -> np.ndarray:
    values = np.arange(2**n_bits)
    lowest = values & -values
    table = np.zeros(2**n_bits, dtype=np.uint8)
    table[1:] = np.log2(lowest[1:]).astype(np.uint8)
    return table


_LOWEST_SET_BIT = {8: _lowest_set_bit_table(8), 16: _lowest_set_bit_table(16)}
_BIT_SHIFTS = np.arange(16, dtype=np.uint64)[:, None]


def _first_argmin(distances: np.ndarray, *, one_hot: bool = False):
    """``np.argmin(distances, axis=0)`` (first index on ties) for a ``(K, n)`` array, faster.

    NumPy's argmin along a short axis costs a function call per column; for ``K <= 16`` the rows
    equal to the column minimum are packed into a bit mask instead (bit ``k`` from row ``k``),
    and a table maps each mask to its lowest set bit, i.e. the first minimising row. The masks
    are built 8 bytes at a time: each row of 0/1 flags (``uint8`` for ``K <= 8``, ``uint16``
    up to 16; padded to a multiple of 8 bytes) is read as ``uint64`` words, shifted by ``k``
    and or-ed in, which never carries across the lanes of a word. The indices are ``uint8``
    then (``intp`` for ``K > 16``).

    With ``one_hot=True`` returns ``(indices, mask)``: ``mask`` is the ``(K, n)`` boolean matrix
    ``indices == arange(K)[:, None]`` when no column has a tie for its minimum (it is then the
    matrix of minima itself), ``None`` otherwise (or for ``K > 16``).
    """
    n_rows, n = distances.shape
    if n_rows > 16:
        indices = np.argmin(distances, axis=0)
        return (indices, None) if one_hot else indices
    n_bits, dtype = (8, np.uint8) if n_rows <= 8 else (16, np.uint16)
    lanes = 64 // n_bits  # columns per 64-bit word
    width = -(-n // lanes) * lanes
    is_min = np.zeros((n_rows, width), dtype=bool)
    np.equal(distances, np.minimum.reduce(distances, axis=0), out=is_min[:, :n])
    flags = is_min.view(np.uint8) if n_bits == 8 else is_min.astype(np.uint16)
    words = flags.view(np.uint64)
    code = np.bitwise_or.reduce(words << _BIT_SHIFTS[:n_rows], axis=0).view(dtype)[:n]
    indices = _LOWEST_SET_BIT[n_bits].take(code)
    if not one_hot:
        return indices
    tied = np.any(code & (code - dtype(1)))  # a mask with two bits or more
    return indices, None if tied else is_min[:, :n]


# ----------------------------------------------------------------------------------------------
# Multinomial logistic regression
# ----------------------------------------------------------------------------------------------


class _WhitenedMultinomialLoss:
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


def _whitened_design(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
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
    eigval, U = linalg.eigh(cov)
    top = eigval[-1] if eigval[-1] > 0 else 1.0
    keep = eigval > 1e-10 * top
    a = np.ones_like(eigval)
    a[keep] = 1.0 / np.sqrt(eigval[keep])
    A = U * a
    ZT = np.empty((d + 1, n))
    np.dot(A.T, X.T, out=ZT[:d])
    ZT[:d] -= (mean @ A)[:, None]
    ZT[d] = 1.0
    return ZT, A, a, mean


def _wide_whitened_design(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_whitened_design` for ``n < d``: ``A`` is ``d x r`` with ``r <= n - 1``.

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


class _ScaledDesign(NamedTuple):
    """What every logistic regression on one ``X`` shares, whatever its labels.

    ``exponent`` is :func:`_power_of_two_exponent` of ``X``; the rest is
    :func:`_whitened_design` of ``X * 2**-exponent``. GCUL's phases 1 and 3 fit on the same
    ``X``: building this once serves both, and the fits are those of two separate
    :meth:`LogisticRegression.fit` calls, bit for bit. ``ZT`` is never written to.
    """

    exponent: int
    ZT: np.ndarray
    A: np.ndarray
    a: np.ndarray
    mean: np.ndarray


def _scaled_design(X: np.ndarray) -> _ScaledDesign:
    """The :class:`_ScaledDesign` of a validated ``X`` (call it with BLAS single-threaded)."""
    exponent = _power_of_two_exponent(X)
    return _ScaledDesign(exponent, *_whitened_design(np.ldexp(X, -exponent)))


# cap on the penalty metric a_j of the coefficients of X (a_j**2 <= 2**600), so the penalty stays
# finite: a_j above it means a variance of X below 2**-600 (about 2e-181) along that direction,
# where a penalty of at least 2**600 / (C n) already holds that coefficient at zero unless C is
# astronomically large
_MAX_PENALTY_METRIC = 2.0**300


try:  # optional: keeps BLAS single-threaded inside the many tiny calls of the solvers
    from threadpoolctl import ThreadpoolController as _ThreadpoolController
except ImportError:  # pragma: no cover - exercised only without threadpoolctl
    _ThreadpoolController = None


@functools.cache
def _threadpool_controller():
    return _ThreadpoolController()


def _single_threaded_blas():
    """Context limiting BLAS to one thread (a no-op without ``threadpoolctl``).

    L-BFGS-B and Lloyd make hundreds of calls on matrices of a few dozen entries to a few
    hundred thousand; on small machines waking BLAS worker threads for each one (NumPy's and
    SciPy's OpenBLAS each keep their own pool) costs milliseconds per call, more than the call
    itself. scikit-learn limits its K-Means the same way.
    """
    if _ThreadpoolController is None:
        return contextlib.nullcontext()
    return _threadpool_controller().limit(limits=1, user_api="blas")


def single_threaded_blas():
    """Context limiting BLAS to one thread while it is open (a no-op without ``threadpoolctl``).

    What the sweep's cells run under (see the private helper of the same name for why): for
    code outside this module that fits or scores the models of a cell as the sweep does.

    Examples
    --------
    >>> import numpy as np
    >>> with single_threaded_blas():
    ...     float(np.ones((2, 2)) @ np.ones(2) @ np.ones(2))
    4.0
    """
    return _single_threaded_blas()


class LogisticRegression:
    r"""Multinomial logistic regression with an L2 penalty, fitted by L-BFGS.

    Minimises the objective of scikit-learn's ``LogisticRegression(C=C, solver="lbfgs")`` for
    three or more classes (full softmax over ``K`` classes, unpenalised intercept; for two
    classes see Notes):

    .. math::

        \frac{1}{n}\sum_{i=1}^{n}\Bigl[\log\sum_{k} e^{w_k^\top x_i + b_k}
        - (w_{y_i}^\top x_i + b_{y_i})\Bigr] + \frac{1}{2Cn}\lVert W\rVert_F^2 ,

    which is :math:`C\sum_i \ell_i + \tfrac12\lVert W\rVert_F^2` divided by :math:`Cn`, so its
    minimiser is the same. It is strictly convex in :math:`W` and in the intercepts up to a common
    shift, which stays zero (the intercepts sum to zero), as in scikit-learn.

    Parameters
    ----------
    C : float, default=1.0
        Inverse regularisation strength, > 0.
    max_iter : int, default=500
        Maximum number of L-BFGS iterations.
    tol : float, default=1e-4
        L-BFGS-B ``gtol``: the fit stops when the largest absolute entry of the gradient of the
        objective above, taken in the whitened coordinates described in Notes, is at most
        ``tol``. Whitening makes it independent of the units of the features; see Notes for how
        close to the optimum it stops compared with scikit-learn.

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
        Sorted distinct labels seen in ``fit``.
    coef_ : ndarray of shape (K, n_features)
        Coefficients :math:`W` in the original feature space.
    intercept_ : ndarray of shape (K,)
        Intercepts :math:`b` (they sum to zero).
    n_iter_ : int
        Number of L-BFGS iterations run.
    converged_ : bool
        Whether L-BFGS met its convergence criterion. When it did not, ``fit`` also issues a
        :class:`ConvergenceWarning`.

    Notes
    -----
    The problem is solved in an equivalent, better conditioned parametrisation: the features
    are centred and whitened, :math:`z = A^\top (x - \bar x)` with :math:`A = U\,\mathrm{diag}(a)`
    from the eigendecomposition :math:`\mathrm{Cov}(X) = U\,\mathrm{diag}(s)\,U^\top`,
    :math:`a_j = s_j^{-1/2}` (and :math:`a_j = 1` on directions of zero variance). With
    :math:`W = V A^\top` the penalty is :math:`\sum_j a_j^2\lVert V_{:,j}\rVert^2`, so the
    objective is exactly the one above; the mean folds into the intercept, which is not
    penalised. On the synthetic protocol L-BFGS then needs 2-4 times fewer iterations than on
    raw features, each one a single fused pass (one product each way, a stable log-sum-exp).
    With fewer samples than features (:math:`n < d`) :math:`U` holds only the at most
    :math:`n - 1` directions the centred samples span, from an SVD of the :math:`n \times d`
    centred data: the fit costs :math:`O(n^2 d)` instead of :math:`O(d^3)`, and the optimum is
    the same, since a coefficient component orthogonal to every centred sample shifts a class's
    scores by a constant (absorbed by its intercept) and only adds to the penalty.

    Both solvers stop near, not at, the common optimum. On the synthetic protocol (seeds 10-19,
    σ = 0, 1, ..., 16, phase 1) scikit-learn's ``gtol=1e-4`` on raw features leaves its
    coefficients up to ``4e-3`` from the optimum, and this model's default ``tol=1e-4`` about
    as far (``tol=1e-5``: ``3e-4``, for about 30% more iterations). Their test predictions
    agree on 99.97% of the points overall (at worst 99.75% in one cell); scikit-learn's own
    predictions agree with those of the exact optimum on 99.985%.

    For two classes scikit-learn minimises the binomial objective
    :math:`C\sum_i \ell(u^\top x_i + \beta) + \tfrac12\lVert u\rVert^2` instead. Its minimiser
    is that of the two-class softmax objective with ``C / 2`` (rows :math:`\mp u/2`, intercepts
    :math:`\mp\beta/2`), which is what is fitted then: ``coef_`` keeps two rows, and
    ``coef_[1] - coef_[0]`` is scikit-learn's ``coef_[0]``.

    The L2 penalty is on the coefficients in the units of ``X``, so the fit is not invariant to
    the scale of ``X``: fitting :math:`sX` with ``C`` is fitting :math:`X` with :math:`Cs^2`
    (exactly so, bit for bit, when :math:`s` is a power of two). Features near ``1e300`` are
    therefore fitted essentially without penalty, and features near ``1e-300`` give zero
    coefficients and intercepts :math:`\log p_k` (centred) from the class frequencies
    :math:`p_k`. To keep both ends well conditioned the solver works on ``X`` times a power of
    two, and rescales a whitened direction whose penalty curvature exceeds 1 (it never does for
    data of ordinary scale); neither changes the objective.

    BLAS is limited to one thread during the fit when ``threadpoolctl`` is installed; see
    ``_single_threaded_blas``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.concatenate([rng.normal(-2, 1, (50, 2)), rng.normal(2, 1, (50, 2))])
    >>> y = np.repeat([3, 7], 50)
    >>> model = LogisticRegression().fit(X, y)
    >>> model.classes_
    array([3, 7])
    >>> bool(model.converged_), float(np.mean(model.predict(X) == y)) > 0.95
    (True, True)
    >>> bool(np.allclose(model.predict_proba(X).sum(axis=1), 1.0))
    True
    """

    def __init__(self, C: float = 1.0, max_iter: int = 500, tol: float = 1e-4):
        self.C = C
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, X, y) -> LogisticRegression:
        """Fit the model.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Finite, real training features.
        y : array_like of shape (n_samples,)
            Integer class labels (integral floats are accepted); at least two distinct values.

        Returns
        -------
        self : LogisticRegression

        Raises
        ------
        TypeError
            ``X`` complex or not numeric; ``y`` not numeric.
        ValueError
            Shapes, NaN/inf, non-integral labels, fewer than two classes, bad ``C``/``tol``.
        """
        C, max_iter, tol = self._check_params()
        X = _check_matrix(X, "X")
        y = _check_labels(y, "y", X.shape[0])
        with _single_threaded_blas():
            return self._fit_design(_scaled_design(X), y, stacklevel=2)

    def _check_params(self) -> tuple[float, int, float]:
        return (
            _check_positive(self.C, "C"),
            _check_positive(self.max_iter, "max_iter", integer=True),
            _check_positive(self.tol, "tol"),
        )

    def _fit_design(self, design: _ScaledDesign, y: np.ndarray, *, stacklevel: int = 1):
        """Fit on the design of a validated ``X`` and its validated int64 labels ``y``.

        The body of :meth:`fit` (which builds ``design``); call it with BLAS single-threaded.
        A :class:`ConvergenceWarning` is attributed to the frame ``stacklevel`` levels up from
        this method (1: its caller), as ``warnings.warn`` counts.
        """
        C, max_iter, tol = self._check_params()
        classes, y_encoded = _encode_labels(y)
        if classes.size < 2:
            raise ValueError(
                f"y must contain at least two classes; got only {classes.size} ({classes.tolist()})"
            )
        n_classes = classes.size
        # the solver works on X * 2**-exponent (largest magnitude in [0.5, 1)): exact, and no
        # square of X overflows or underflows; the penalty stays that of the coefficients of X
        # (see Notes)
        exponent, ZT, A, a, mean = design
        n_features, n_samples = ZT.shape[0] - 1, ZT.shape[1]
        # two classes: scikit-learn fits the binomial model, whose optimum is the two-class
        # multinomial optimum for C / 2 (see Notes)
        C_multinomial = C / 2 if n_classes == 2 else C
        # the coefficients of X are those of the scaled X times 2**-exponent, so the metric
        # of the penalty is (a * 2**-exponent)**2 (capped: see _MAX_PENALTY_METRIC)
        with np.errstate(over="ignore"):
            a_penalty = np.minimum(np.ldexp(a, -exponent), _MAX_PENALTY_METRIC)
        # a direction whose penalty curvature a_j**2 / (C n) exceeds 1 (the data curvature is
        # at most about 1 in whitened coordinates) is rescaled so that it is 1: the same
        # objective, reparametrised, without which L-BFGS stalls at V = 0 when X is tiny
        # (say 1e-100). Every factor is 1 for data of ordinary scale: nothing changes then
        # (dividing by 1 is exact, so the shared ZT is used as it is).
        rescale = np.sqrt(np.maximum(a_penalty**2 / (C_multinomial * n_samples), 1.0))
        if np.any(rescale != 1.0):
            ZT = ZT.copy()
            ZT[:n_features] /= rescale[:, None]
        A = A / rescale
        a_penalty = a_penalty / rescale
        loss = _WhitenedMultinomialLoss(ZT, y_encoded, n_classes, a_penalty, C_multinomial)
        options = {"maxiter": max_iter, "maxls": 50, "gtol": tol, "ftol": 64 * np.finfo(float).eps}
        result = minimize(
            loss,
            np.zeros(n_classes * (n_features + 1)),
            method="L-BFGS-B",
            jac=True,
            options=options,
        )
        theta = result.x.reshape(n_classes, n_features + 1)
        coef_scaled = theta[:, :n_features] @ A.T  # coefficients of X * 2**-exponent
        self.classes_ = classes
        self.coef_ = np.ldexp(coef_scaled, -exponent)
        self.intercept_ = theta[:, n_features] - coef_scaled @ mean
        self.n_iter_ = int(result.nit)
        self.converged_ = bool(result.status == 0)
        if not self.converged_:
            warnings.warn(
                f"L-BFGS did not converge after {self.n_iter_} iterations "
                f"(max_iter={max_iter}, tol={tol}): {result.message}",
                ConvergenceWarning,
                stacklevel=stacklevel + 1,
            )
        return self

    def _check_fitted_input(self, X) -> np.ndarray:
        if not hasattr(self, "coef_"):
            raise AttributeError("This LogisticRegression is not fitted yet; call fit first")
        return _check_matrix(X, "X", n_features=self.coef_.shape[1])

    def decision_function(self, X) -> np.ndarray:
        """Linear scores :math:`X W^\\top + b`, shape ``(n_samples, K)``.

        A score beyond the float64 range (``X`` near ``1e308``) overflows to ``inf`` with
        NumPy's warning; :meth:`predict` and :meth:`predict_proba` stay defined there.
        """
        X = self._check_fitted_input(X)
        return X @ self.coef_.T + self.intercept_

    def predict_proba(self, X) -> np.ndarray:
        """Softmax class probabilities, shape ``(n_samples, K)``, columns ordered as ``classes_``.

        A row whose scores overflow float64 gets the softmax of its exact scores, computed from
        :meth:`_scaled_scores` (in practice one-hot on the class of largest score: the gaps
        between scores are then far beyond ``exp``'s range).
        """
        X = self._check_fitted_input(X)
        with np.errstate(over="ignore", invalid="ignore"):
            scores = X @ self.coef_.T + self.intercept_
            # a score or a gap between two scores beyond the float64 range (NaN from inf - inf)
            overflowed = ~np.isfinite(scores.max(axis=1) - scores.min(axis=1))
        if overflowed.any():
            scaled, shift = self._scaled_scores(X[overflowed])
            scaled -= scaled.max(axis=1, keepdims=True)
            with np.errstate(over="ignore"):  # a gap beyond the float64 range is -inf: exp 0
                scores[overflowed] = np.ldexp(scaled, shift[:, None])
        scores -= scores.max(axis=1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=1, keepdims=True)
        return scores

    def predict(self, X) -> np.ndarray:
        """Most probable label of each row of ``X``, shape ``(n_samples,)``.

        Ties go to the first class in ``classes_``, as with ``np.argmax``. A row so large that
        a score overflows float64 (entries near ``1e308``) gets the class of largest exact
        score, compared after dividing the row's scores by a power of two (see
        :meth:`_scaled_scores`): no warning, no NaN. The intercepts are then negligible, so
        such a row takes the class whose coefficient vector points furthest along it.
        """
        return self._predict_valid(self._check_fitted_input(X))

    def _predict_valid(self, X: np.ndarray) -> np.ndarray:
        """:meth:`predict` of a fitted model on an ``X`` already validated for it."""
        with np.errstate(over="ignore", invalid="ignore"):
            negative_scores = -(self.coef_ @ X.T)  # shape (K, n): one fast argmin over classes
            negative_scores -= self.intercept_[:, None]
        overflowed = ~np.all(np.isfinite(negative_scores), axis=0)
        if overflowed.any():
            negative_scores[:, overflowed] = -self._scaled_scores(X[overflowed])[0].T
        return self.classes_[_first_argmin(negative_scores)]

    def _scaled_scores(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Scores of the rows of ``X`` divided by ``2**shift``, per row: ``(scores, shift)``.

        ``scores[i] = (W x_i + b) * 2**-shift[i]`` with ``shift[i] = f + e_i``, where
        ``2**f`` and ``2**e_i`` bound ``max |W|`` and ``max |x_i|``: computed as
        ``(W 2**-f)(x_i 2**-e_i) + b 2**-shift[i]``, every scaling exact, every product term
        below 1 in magnitude, so nothing overflows (for ``d`` below ``1e308`` features) and
        the order of the scores of a row is that of its exact scores, up to rounding. Used
        only for rows whose plain scores overflow, where ``shift[i] > 0``.
        """
        f = _power_of_two_exponent(self.coef_)
        e = np.frexp(np.max(np.abs(X), axis=1))[1]
        shift = f + e
        scores = np.ldexp(X, -e[:, None]) @ np.ldexp(self.coef_, -f).T
        scores += np.ldexp(self.intercept_[None, :], -shift[:, None])
        return scores, shift


# ----------------------------------------------------------------------------------------------
# K-Means (Lloyd)
# ----------------------------------------------------------------------------------------------


def _assign(XT: np.ndarray, centers: np.ndarray, out: np.ndarray | None = None):
    """Nearest centre of each column of ``XT`` (first one on ties), from ``||c||^2 - 2 c.x``.

    ``||x||^2`` is omitted as in scikit-learn: it does not change the nearest centre. ``out``,
    of shape ``(n_clusters, n_samples)``, takes the distances (a new array if ``None``). Returns
    ``(labels, mask)`` as ``_first_argmin(..., one_hot=True)``.
    """
    distances = np.matmul(-2.0 * centers, XT, out=out)
    distances += np.einsum("ij,ij->i", centers, centers)[:, None]
    return _first_argmin(distances, one_hot=True)


def _update_centers(X, labels, centers_old, n_clusters, mask=None):
    """M-step with scikit-learn's relocation of empty clusters; ``(centers, any_empty)``.

    ``any_empty`` tells whether a cluster was empty in ``labels``. When none was, the centres
    depend on ``labels`` only (not on ``centers_old``). ``mask``, if given, is the boolean
    ``labels == arange(n_clusters)[:, None]`` (from ``_assign``), which saves recomputing it.
    """
    if mask is None:
        mask = labels == np.arange(n_clusters)[:, None]
    one_hot = mask.astype(np.float64, order="C")
    sums = one_hot @ X
    sizes = np.bincount(labels, minlength=n_clusters).astype(np.float64)  # exact: one_hot's sums
    empty = np.flatnonzero(sizes == 0)
    if empty.size:
        distances = ((X - centers_old[labels]) ** 2).sum(axis=1)
        far = np.argpartition(distances, -empty.size)[: -empty.size - 1 : -1]
        if distances.max() > 0:
            for new_cluster, index in zip(empty, far, strict=True):
                old_cluster = labels[index]
                sums[old_cluster] -= X[index]
                sums[new_cluster] = X[index]
                sizes[new_cluster] = 1.0
                sizes[old_cluster] -= 1.0
    filled = sizes > 0
    if filled.all():
        return sums / sizes[:, None], bool(empty.size)
    largest = np.argmax(sizes)
    centers = np.empty_like(sums)
    centers[filled] = sums[filled] / sizes[filled, None]
    centers[~filled] = sums[largest] / sizes[largest]
    return centers, True


def kmeans(X, init, max_iter: int = 100, tol: float = 1e-4) -> tuple[np.ndarray, np.ndarray]:
    r"""Lloyd's K-Means from given initial centres (one run).

    Reproduces ``sklearn.cluster.KMeans(n_clusters=len(init), init=init, n_init=1,
    max_iter=max_iter, tol=tol, algorithm="lloyd")``: same partition for the same data and
    initial centres.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        Finite data.
    init : array_like of shape (n_clusters, n_features)
        Finite initial centres; ``1 <= n_clusters <= n_samples``.
    max_iter : int, default=100
        Maximum number of Lloyd iterations.
    tol : float, default=1e-4
        Relative tolerance; see Notes.

    Returns
    -------
    labels : ndarray of shape (n_samples,)
        Index of the nearest final centre of each sample (``int64``).
    centers : ndarray of shape (n_clusters, n_features)
        Final centres.

    Notes
    -----
    As in scikit-learn: the data (and the initial centres) are centred on the data mean first;
    one iteration assigns every sample to its nearest centre (the first on ties), then moves each
    centre to the mean of its samples. The run stops when the assignment no longer changes
    ("strict convergence") or when the total squared centre shift
    :math:`\sum_k\lVert c_k^{new}-c_k^{old}\rVert^2` is at most ``tol`` times the mean of the
    per-feature variances of ``X``; without strict convergence a final assignment step makes
    ``labels`` consistent with ``centers``. A cluster left empty by an assignment is relocated to
    the sample farthest from its own centre (farthest first, one sample per empty cluster), and
    the sample's weight moves with it; if all samples coincide with their centres nothing is
    relocated and the empty centre is placed on the largest cluster. A cluster can therefore be
    empty in ``labels`` only in such degenerate cases.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [10.0, 10.0], [10.0, 11.0]])
    >>> labels, centers = kmeans(X, init=[[1.0, 1.0], [9.0, 9.0]])
    >>> labels
    array([0, 0, 1, 1])
    >>> centers
    array([[ 0. ,  0.5],
           [10. , 10.5]])
    """
    X = _check_matrix(X, "X")
    init = _check_matrix(init, "init", n_features=X.shape[1])
    max_iter = _check_positive(max_iter, "max_iter", integer=True)
    if isinstance(tol, bool) or not isinstance(tol, Real) or not (0 <= tol < np.inf):
        raise ValueError(f"tol must be a finite number >= 0; got {tol!r}")
    if init.shape[0] > X.shape[0]:
        raise ValueError(
            f"init has {init.shape[0]} centres, more than the {X.shape[0]} samples of X"
        )
    return _lloyd(X, init, max_iter, float(tol))


def _lloyd(X: np.ndarray, init: np.ndarray, max_iter: int, tol: float):
    """The body of :func:`kmeans`, for validated arguments."""
    n_clusters = init.shape[0]
    # run on X and init times 2**-exponent (exact): no squared distance overflows or underflows
    exponent = _power_of_two_exponent(X, init)
    X, init = np.ldexp(X, -exponent), np.ldexp(init, -exponent)
    tol_abs = float(np.mean(np.var(X, axis=0)) * tol) if tol > 0 else 0.0
    mean = X.mean(axis=0)
    X = X - mean
    centers = init - mean

    XT = np.ascontiguousarray(X.T)
    distances = np.empty((n_clusters, X.shape[0]))  # reused by every assignment
    labels_old = np.full(X.shape[0], -1)
    any_empty = True  # whether the centres came from labels with an empty cluster
    strict = False
    with _single_threaded_blas():
        for _ in range(max_iter):
            labels, mask = _assign(XT, centers, out=distances)
            unchanged = np.array_equal(labels, labels_old)
            if unchanged and not any_empty:
                # the update would recompute the current centres from the same labels (a zero
                # shift): stop as it would, without recomputing them
                strict = True
                break
            centers_new, any_empty = _update_centers(X, labels, centers, n_clusters, mask)
            shift = float(((centers_new - centers) ** 2).sum())
            centers = centers_new
            if unchanged:
                strict = True
                break
            if shift <= tol_abs:
                break
            labels_old = labels
        if not strict:
            labels, _ = _assign(XT, centers, out=distances)
    return labels.astype(np.int64), np.ldexp(centers + mean, exponent)


# ----------------------------------------------------------------------------------------------
# Linear projections: PCA and LDA
# ----------------------------------------------------------------------------------------------


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
        X = _check_matrix(X, "X", n_features=self.mean.shape[0])
        return (X - self.mean) @ self.weights


def _check_n_components(n_components, upper: int, what: str) -> int:
    if n_components is None:
        return upper
    if isinstance(n_components, bool) or not isinstance(n_components, Integral):
        raise TypeError(f"n_components must be an integer or None; got {n_components!r}")
    if not 1 <= n_components <= upper:
        raise ValueError(f"n_components must be in 1..{upper} ({what}); got {n_components}")
    return int(n_components)


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
    X = _check_matrix(X, "X")
    k = _check_n_components(n_components, min(X.shape), "at most min(n_samples, n_features)")
    exponent = _power_of_two_exponent(X)  # work on X * 2**-exponent: exact, no overflow
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
    X = _check_matrix(X, "X")
    y = _check_labels(y, "y", X.shape[0])
    tol = _check_positive(tol, "tol")
    classes, y_encoded, counts = np.unique(y, return_inverse=True, return_counts=True)
    n_classes = classes.size
    if n_classes < 2:
        raise ValueError(f"y must contain at least two classes; got {n_classes}")
    n_samples, n_features = X.shape
    k_max = min(n_classes - 1, n_features)
    k = _check_n_components(n_components, k_max, "at most min(n_classes - 1, n_features)")

    exponent = _power_of_two_exponent(X)  # work on X * 2**-exponent: exact, no overflow
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
