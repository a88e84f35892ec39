r"""``knn``: distance to the k-th nearest training sample (k = 10).

Score: :math:`-\lVert x - x_{(k)}(x)\rVert_2`, the negative Euclidean distance from :math:`x` to
its k-th nearest training sample (k = 10; the labels play no part). Prediction: phase 1's label
(the kNN distance only scores; it has no classifier of its own here). No natural operating point
at a cost λ.

Search: an exact k-d tree (:class:`scipy.spatial.cKDTree`, leaves of 128 points) when it pays, i.e.
in low dimension: when :math:`2^d \le n_{train}`; otherwise (high dimension, where a k-d tree visits
nearly every leaf and is slower than brute force) an exact brute force in two steps, for blocks of
query rows at a time:

1. *screening* at matrix-product speed: the squared distances to every training sample from the
   identity :math:`\lVert x\rVert^2 + \lVert y\rVert^2 - 2x^\top y` (one float32 BLAS product
   per block, on data centred at the training mean and scaled by a power of two), the k-th
   smallest of each row by ``numpy.partition``, and as candidates every training sample within
   a proven margin of it;
2. the *exact recompute*: :func:`scipy.spatial.distance.cdist` (differences first, no
   cancellation) on the candidates only, whose k-th smallest is the score.

The margin (:func:`screening_margin`) bounds the error of a screened squared distance against
the exact one, so the candidates hold every training sample at most as far as the exact k-th
neighbour, and the score is *bit for bit* the k-th smallest of ``cdist`` against all training
samples (what this module computed before the screening). Training data whose centred values
overflow float64 or float32, and blocks holding a query row far outside the training data
(squared screened norm above :math:`2^{100}`), take ``cdist`` against every training sample.
Memory: a block holds at most about 2**22 screened distances (16 MiB; with the partition's copy
and the candidate mask under 40 MiB), plus a centred float32 copy of the training samples
(:math:`4 n_{train} d` bytes: 215 MB for 70,000 x 768).

References
----------
.. [1] Y. Sun, Y. Ming, X. Zhu and Y. Li, "Out-of-distribution detection with deep nearest
   neighbors", ICML 2022 (the k-th nearest-neighbour distance as a score).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist

from simulations import registry
from simulations.rejectors._base import FittedRejector, Rejector, RejectorContext

__all__ = ["LEAF_SIZE", "N_NEIGHBORS", "FittedKNN", "REJECTOR", "fit", "screening_margin"]

N_NEIGHBORS = 10
"""k: the rank of the training neighbour whose distance is the score."""

LEAF_SIZE = 128
"""Points per k-d tree leaf: on the paper-size cell (d = 10) about half the query time of
``cKDTree``'s default 16 (``benchmarks/bench_rejectors.py``, item ``knn_leaf16``)."""

_CHUNK_DISTANCES = 2**22  # distances held at once by the brute force

_U32 = 2.0**-24  # unit roundoff of float32, the screening dtype
_U64 = 2.0**-53  # unit roundoff of float64
_MAX_QUERY_SQ_NORM = np.float32(2.0**100)  # screened query rows beyond: cdist (no overflow)


def _gamma(k: int, u: float) -> float:
    """``k u / (1 - k u)``: bound on the relative error of ``k`` roundings (Higham, Lemma 3.1)."""
    return k * u / (1.0 - k * u)


def screening_margin(sq_norms: np.ndarray, max_sq_norm: float, n_features: int) -> np.ndarray:
    r"""Bound on the error of a screened squared distance, per query row.

    The screened points are :math:`x' = \mathrm{fl}_{32}(2^{-e}\,\mathrm{fl}_{64}(x - m))` (the
    data centred at the training mean :math:`m`, scaled by a power of two, rounded to float32),
    and the screened squared distance is
    :math:`s = \mathrm{fl}(\mathrm{fl}(-2\,\mathrm{fl}(x'^\top y') + n_y) + n_x)` with the
    computed squared norms :math:`n_x = \mathrm{fl}(\lVert x'\rVert^2)`. Then, with
    :math:`d = ` ``n_features``, :math:`\gamma_k = ku/(1 - ku)` and :math:`u = 2^{-24}`,

    .. math::

        |s - 2^{-2e}\lVert x - y\rVert^2| \le M(x) = (1 + 2^{-20})\left[\frac{2\gamma_{d+2}
        + 2u'(2 + u')/(1 - u')^2}{1 - \gamma_d}\,(n_x + \max_y n_y) + (d + 2)^2\,2^{-100}
        \right]

    for every training point :math:`y`, where :math:`u' = u + 2^{-53} + 2^{-77}`. Derivation:
    (i) the product and the norms are sums of :math:`d` products, each within
    :math:`\gamma_d\,|x'|^\top|y'|` (any summation order, as BLAS may use), and two more
    roundings add up to :math:`\gamma_{d+2}(\lVert x'\rVert^2 + \lVert y'\rVert^2 +
    2|x'|^\top|y'|) \le 2\gamma_{d+2}(\lVert x'\rVert^2 + \lVert y'\rVert^2)` against
    :math:`\lVert x' - y'\rVert^2`; (ii) each coordinate of :math:`x'` is within
    :math:`u'|\cdot|` of the exact scaled centred coordinate, so
    :math:`|\lVert x'-y'\rVert - d_{xy}| \le \delta = u'R` with
    :math:`R = \lVert x-m\rVert + \lVert y-m\rVert` (scaled), and the squares differ by at
    most :math:`\delta(2R + \delta) \le 2u'(2+u')(\lVert x-m\rVert^2 + \lVert y-m\rVert^2)`,
    where :math:`\lVert x-m\rVert^2 \le n_x/((1-\gamma_d)(1-u')^2)`; (iii) gradual underflow
    adds at most :math:`(4d + 4)\,2^{-150}` per product term times :math:`2R + 1`, far below
    the absolute term, as the scaling puts the largest coordinate at :math:`2^{10}` or more;
    (iv) :math:`1 + 2^{-20}` covers the float64 rounding of this formula itself.

    Screening keeps every training point with :math:`s \le t + 2M(x)`, :math:`t` the k-th
    smallest :math:`s` of the row: at least :math:`k` points have :math:`s \le t`, so the exact
    k-th squared distance is at most :math:`t + M`, and every point at most that far has
    :math:`s \le t + 2M`.

    Parameters
    ----------
    sq_norms : ndarray of shape (n,)
        :math:`n_x` of the query rows (float32 or float64 values).
    max_sq_norm : float
        :math:`\max_y n_y` over the training points.
    n_features : int
        :math:`d`.

    Returns
    -------
    ndarray of shape (n,)
        :math:`M(x)`, float64.
    """
    d = int(n_features)
    u_prime = _U32 + _U64 + _U32 * _U64
    gamma_d = _gamma(d, _U32)
    factor = (
        2.0 * _gamma(d + 2, _U32) + 2.0 * u_prime * (2.0 + u_prime) / (1.0 - u_prime) ** 2
    ) / (1.0 - gamma_d)
    absolute = (d + 2) ** 2 * 2.0**-100
    total = factor * (np.asarray(sq_norms, dtype=np.float64) + float(max_sq_norm)) + absolute
    return total * (1.0 + 2.0**-20)


class FittedKNN(FittedRejector):
    """k-th nearest-neighbour distance to a training set, plus phase 1's predictions.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Training features, as validated by :class:`RejectorContext` (finite float64).
    phase1 : simulations.models.LogisticRegression
        Gives the predictions (``phase1.predict``).
    n_neighbors : int, default=N_NEIGHBORS
        k, in ``1..n``.
    algorithm : {"auto", "kd_tree", "brute"}, default="auto"
        ``"auto"``: the k-d tree iff ``2**d <= n``.
    leaf_size : int, default=LEAF_SIZE
        Points per leaf of the k-d tree (``cKDTree``'s ``leafsize``); the result does not depend
        on it, the time does.
    """

    name = "knn"

    def __init__(
        self,
        X: np.ndarray,
        phase1,
        n_neighbors: int = N_NEIGHBORS,
        algorithm: str = "auto",
        leaf_size: int = LEAF_SIZE,
    ):
        n, d = X.shape
        if isinstance(n_neighbors, bool) or not isinstance(n_neighbors, (int, np.integer)):
            raise TypeError(f"n_neighbors must be an int in 1..{n}; got {n_neighbors!r}")
        if not 1 <= n_neighbors <= n:
            raise ValueError(
                f"n_neighbors must be in 1..{n} (the training samples); got {n_neighbors!r}"
            )
        if algorithm not in ("auto", "kd_tree", "brute"):
            raise ValueError(f"algorithm must be 'auto', 'kd_tree' or 'brute'; got {algorithm!r}")
        if (
            isinstance(leaf_size, bool)
            or not isinstance(leaf_size, (int, np.integer))
            or leaf_size < 1
        ):
            raise ValueError(f"leaf_size must be an int >= 1; got {leaf_size!r}")
        super().__init__(d, len(phase1.classes_))
        if algorithm == "auto":
            algorithm = "kd_tree" if d < 63 and 2**d <= n else "brute"
        self.n_neighbors = int(n_neighbors)
        self.algorithm_ = algorithm
        self.phase1_ = phase1
        self.X_train_ = X
        self.tree_ = (
            cKDTree(X, leafsize=int(leaf_size), balanced_tree=False)
            if algorithm == "kd_tree"
            else None
        )

    def kth_distance(self, X: np.ndarray) -> np.ndarray:
        """Distance from each row of ``X`` to its k-th nearest training sample, shape ``(n,)``.

        The brute force is exact: bit for bit the k-th smallest of
        ``scipy.spatial.distance.cdist(X, X_train_)`` per row (see the module's docstring).
        """
        k = self.n_neighbors
        if self.tree_ is not None:
            distances, _ = self.tree_.query(X, k=[k])
            return distances[:, 0]
        screen = self._screening()
        if screen is not None:
            centred = _centred(X, *screen[1:3])
            if centred is not None:
                return _screened_kth(X, centred, self.X_train_, screen[0], screen[3], k)
        return _cdist_kth(X, self.X_train_, k)

    def _screening(self):
        """``(Y', mean, exponent, n_y)`` of the training samples, made once; ``None`` beyond the
        float64 range."""
        if not hasattr(self, "_screen"):
            Y = self.X_train_
            mean = Y.mean(axis=0)
            with np.errstate(over="ignore", invalid="ignore"):
                spread = np.max(np.abs(Y - mean)) if Y.shape[0] else 0.0
            self._screen = None
            if np.isfinite(spread) and np.all(np.isfinite(mean)):
                # largest centred coordinate scaled into [2**10, 2**11) (exact: a power of two)
                exponent = int(np.frexp(spread)[1]) - 11 if spread > 0 else 0
                centred = _centred(Y, mean, exponent)
                if centred is not None:
                    sq_norms = np.einsum("ij,ij->i", centred, centred)
                    self._screen = (centred, mean, exponent, sq_norms)
        return self._screen

    def _score_predict(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return -self.kth_distance(X), np.asarray(self.phase1_.predict(X), dtype=np.int64)


def _centred(X: np.ndarray, mean: np.ndarray, exponent: int) -> np.ndarray | None:
    """``float32(2**-exponent (X - mean))``, or ``None`` if a value leaves the float32 range."""
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.empty(X.shape, dtype=np.float32)
        rows = max(1, _CHUNK_DISTANCES // max(X.shape[1], 1))
        for start in range(0, X.shape[0], rows):  # a float64 block at a time, never all of X
            block = np.ldexp(X[start : start + rows] - mean, -exponent)
            out[start : start + rows] = block
    return out if np.all(np.isfinite(out)) else None


def _cdist_kth(X: np.ndarray, Y: np.ndarray, k: int) -> np.ndarray:
    """The k-th smallest of ``cdist(X, Y)`` per row, for chunks of query rows at a time."""
    rows = max(1, _CHUNK_DISTANCES // Y.shape[0])
    out = np.empty(X.shape[0])
    for start in range(0, X.shape[0], rows):
        block = cdist(X[start : start + rows], Y)
        out[start : start + rows] = np.partition(block, k - 1, axis=1)[:, k - 1]
    return out


def _screened_kth(
    X: np.ndarray,
    X_screen: np.ndarray,
    Y: np.ndarray,
    Y_screen: np.ndarray,
    Y_sq_norms: np.ndarray,
    k: int,
) -> np.ndarray:
    """:func:`_cdist_kth` of ``(X, Y)``, by screening in float32 and recomputing the candidates.

    ``X_screen``, ``Y_screen``: the screened points (:func:`_centred`), ``Y_sq_norms`` their
    squared norms. Per block of query rows: the screened squared distances by one BLAS product,
    the candidates within :func:`screening_margin` of the k-th smallest, and ``cdist`` on them.
    """
    n_train, d = Y_screen.shape
    rows = max(1, _CHUNK_DISTANCES // n_train)
    out = np.empty(X.shape[0])
    max_sq_norm = float(Y_sq_norms.max())
    for start in range(0, X.shape[0], rows):
        stop = min(start + rows, X.shape[0])
        Q = X_screen[start:stop]
        q_norms = np.einsum("ij,ij->i", Q, Q)
        if not np.all(q_norms <= _MAX_QUERY_SQ_NORM):  # far outliers: no float32 overflow
            out[start:stop] = _cdist_kth(X[start:stop], Y, k)
            continue
        screened = Q @ Y_screen.T  # x'^T y'
        screened *= -2.0  # exact
        screened += Y_sq_norms
        screened += q_norms[:, None]
        kth = np.partition(screened, k - 1, axis=1)[:, k - 1].astype(np.float64)
        limit = kth + 2.0 * screening_margin(q_norms, max_sq_norm, d)
        limit32 = limit.astype(np.float32)
        below = limit32 < limit  # round the limit up, never down, to float32
        limit32[below] = np.nextafter(limit32[below], np.float32(np.inf))
        keep = screened <= limit32[:, None]
        for i in range(stop - start):
            candidates = np.flatnonzero(keep[i])
            exact = cdist(X[start + i : start + i + 1], Y[candidates])[0]
            out[start + i] = np.partition(exact, k - 1)[k - 1]
    return out


def fit(context: RejectorContext) -> FittedKNN:
    """Index ``context``'s training split (k = 10)."""
    return FittedKNN(context.X_train, context.model.phase1_)


REJECTOR = Rejector(
    name="knn",
    label=registry.method("knn").label,
    description="-distance to the 10th nearest training sample; prediction: phase 1's",
    operating_point=None,
    reference="Sun et al. 2022 (deep nearest neighbours), k = 10",
    needs_truth=False,
    needs_target_coverage=False,
    fit=fit,
)
