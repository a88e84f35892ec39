r"""``knn``: distance to the k-th nearest training sample (k = 10).

Score: :math:`-\lVert x - x_{(k)}(x)\rVert_2`, the negative Euclidean distance from :math:`x` to
its k-th nearest training sample (k = 10; the labels play no part). Prediction: phase 1's label
(the kNN distance only scores; it has no classifier of its own here). No natural operating point
at a cost λ.

Search: in low dimension (:math:`2^d \le n_{train}`, ``algorithm="kd_tree"``) the distances
are those of an exact k-d tree (:class:`scipy.spatial.cKDTree`, leaves of 128 points): each the
square root of a sum of squared differences accumulated in the tree's own order
(:func:`tree_squared_distances`). The tree searches them when :math:`n_{train} \ge 2^{d+4}`;
below, where a k-d tree visits a large share of the leaves, the same numbers come from a
screened brute force (below) whose exact recompute sums in the tree's order, bit for bit the
tree's answer: on the sweep's cells (d = 10, 9,600 training x 2,400 test rows) 21 ms of CPU a
cell on average against the tree's 50 (2.5-3x at σ ≥ 6, about even at σ < 1). The screened
path is the fast path ``knn_tree_order`` of :mod:`simulations._fastpaths`: used only after a
check, once per process and dimension, that this SciPy's tree sums in that order (else, and with
``GCUL_FAST_PATHS=off``, the tree searches; ``gcul info`` says which).

In high dimension (``algorithm="brute"``), where a k-d tree visits nearly every leaf and is
slower than brute force, an exact brute force whose distances are those of
:func:`scipy.spatial.distance.cdist`.

Both brute forces run in two steps, for blocks of query rows at a time:

1. *screening* at matrix-product speed: the squared distances to every training sample from the
   identity :math:`\lVert x\rVert^2 + \lVert y\rVert^2 - 2x^\top y` (one float32 BLAS product
   per block, on data centred at the training mean and scaled by a power of two); the training
   samples are split into groups of at most 16 (:func:`_group_count`), and the k-th smallest
   of the groups' minima, :math:`U \ge t` (:math:`t` the k-th smallest screened distance: k
   groups hold k distinct samples at most :math:`U` away), bounds the search; as candidates,
   every training sample of a group whose minimum is within a proven margin of :math:`U`,
   itself within that margin;
2. the *exact recompute* on the candidates only, whose k-th smallest is the score: in the
   tree's order (``kd_tree``) or by :func:`scipy.spatial.distance.cdist` (``brute``;
   differences first, no cancellation).

The margin (:func:`screening_margin`) bounds the error of a screened squared distance against
the exact one, so the candidates hold every training sample at most as far as the exact k-th
neighbour, and the score is *bit for bit* the k-th smallest of the exact distances against all
training samples (what this module computed before the screening). Training data whose centred
values overflow float64 or float32, and blocks holding a query row far outside the training data
(squared screened norm above :math:`2^{100}`), take the tree or ``cdist`` against every
training sample. Memory: a block holds at most about 2**22 screened distances (16 MiB; with
the group minima and the candidate masks under 40 MiB; 2**20 in the tree's case, a block that
stays in cache; one buffer for all the blocks), plus one float32 copy of the training samples,
centred, as the product's columns (:math:`4 n_{train} d` bytes: 215 MB for 70,000 x 768).

References
----------
.. [1] Y. Sun, Y. Ming, X. Zhu and Y. Li, "Out-of-distribution detection with deep nearest
   neighbors", ICML 2022 (the k-th nearest-neighbour distance as a score).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist

from simulations import _fastpaths, registry
from simulations._fastpaths import tree_squared_distances
from simulations.rejectors._base import FittedRejector, Rejector, RejectorContext

__all__ = [
    "LEAF_SIZE",
    "N_NEIGHBORS",
    "FittedKNN",
    "REJECTOR",
    "fit",
    "screening_margin",
    "tree_order_known",
    "tree_squared_distances",
]

N_NEIGHBORS = 10
"""k: the rank of the training neighbour whose distance is the score."""

LEAF_SIZE = 128
"""Points per k-d tree leaf: on the paper-size cell (d = 10) about half the query time of
``cKDTree``'s default 16 (``benchmarks/bench_rejectors.py``, item ``knn_leaf16``)."""

_CHUNK_DISTANCES = 2**22  # distances held at once by the brute force
_CACHE_DISTANCES = 2**20  # by the screening in the tree's order: a block that stays in cache

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

    Screening keeps every training point with :math:`s \le U + 2M(x)`, where :math:`U \ge t`,
    :math:`t` the k-th smallest :math:`s` of the row: at least :math:`k` points have
    :math:`s \le t`, so the exact k-th squared distance is at most :math:`t + M`, and every
    point at most that far has :math:`s \le t + 2M \le U + 2M`. (The recomputed distances are
    themselves within a relative :math:`(d + 2)\,2^{-53}` of the exact ones, far inside the
    slack of (iv).) The screening computes :math:`x'^\top(-2y')` rather than
    :math:`-2\,x'^\top y'`: scaling by a power of two is exact, so the rounding errors are
    those of (i), doubled, with no more underflow (the product is computed as
    :math:`(-2x')^\top y'`, the same numbers).

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
        Whose distances: ``"kd_tree"``, the k-d tree's (searched by the tree, or by the
        screened brute force summing in the tree's order: module docstring); ``"brute"``,
        :func:`scipy.spatial.distance.cdist`'s. ``"auto"``: ``"kd_tree"`` iff ``2**d <= n``.
    leaf_size : int, default=LEAF_SIZE
        Points per leaf of the k-d tree (``cKDTree``'s ``leafsize``); the result does not depend
        on it, the time does.

    Attributes
    ----------
    algorithm_ : str
        ``"kd_tree"`` or ``"brute"``.
    search_ : str
        How the distances are searched: ``"tree"`` (the k-d tree), ``"screened"`` (a screened
        brute force, with the tree's distances for ``"kd_tree"``, ``cdist``'s for ``"brute"``).
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
        self.leaf_size = int(leaf_size)
        self.search_ = "screened"
        if algorithm == "kd_tree" and (n >= 2 ** (d + 4) or not tree_order_known(d)):
            self.search_ = "tree"
        self._tree = None

    @property
    def tree_(self) -> cKDTree:
        """The k-d tree of the training samples (``"kd_tree"`` only; built on first use)."""
        if self.algorithm_ != "kd_tree":
            raise AttributeError("a 'brute' FittedKNN has no k-d tree")
        if self._tree is None:
            self._tree = cKDTree(self.X_train_, leafsize=self.leaf_size, balanced_tree=False)
        return self._tree

    def kth_distance(self, X: np.ndarray) -> np.ndarray:
        """Distance from each row of ``X`` to its k-th nearest training sample, shape ``(n,)``.

        Exact: bit for bit the k-th smallest of the tree's distances (``"kd_tree"``) or of
        ``scipy.spatial.distance.cdist(X, X_train_)`` (``"brute"``) per row (see the module's
        docstring).
        """
        k = self.n_neighbors
        tree = self.algorithm_ == "kd_tree"
        if self.search_ == "screened":
            screen = self._screening()
            if screen is not None:
                centred = _centred(X, *screen[1:3])
                if centred is not None:
                    return _screened_kth(X, centred, self, screen)
        if tree:
            return _tree_kth(X, self)
        return _cdist_kth(X, self.X_train_, k)

    def _screening(self):
        """``(Y', mean, exponent, n_y)`` of the training samples, made once; ``None`` beyond the
        float64 range."""
        if not hasattr(self, "_screen"):
            Y = self.X_train_
            mean = Y.mean(axis=0)
            with np.errstate(over="ignore", invalid="ignore"):
                # max |Y - mean| from the columns' extremes, without Y's size twice over: a
                # rounded difference is monotone in Y and -(a - b) rounds as b - a
                spread = (
                    max(np.max(Y.max(axis=0) - mean), np.max(mean - Y.min(axis=0)))
                    if Y.shape[0]
                    else 0.0
                )
            self._screen = None
            if np.isfinite(spread) and np.all(np.isfinite(mean)):
                # largest centred coordinate scaled into [2**10, 2**11) (exact: a power of two)
                exponent = int(np.frexp(spread)[1]) - 11 if spread > 0 else 0
                # Y' written straight into the columns the screening's product reads (padded
                # to whole groups of samples, see _screened_kth): one float32 copy of Y
                n, d = Y.shape
                groups = _group_count(n, self.n_neighbors)
                columns = np.zeros((d, groups * -(-n // groups)), dtype=np.float32)
                centred = _centred(Y, mean, exponent, out=columns[:, :n].T)
                if centred is not None:
                    sq_norms = np.einsum("ij,ij->i", centred, centred)
                    self._screen = (centred, mean, exponent, sq_norms)
                    self._columns = columns
        return self._screen

    def _score_predict(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return -self.kth_distance(X), np.asarray(self.phase1_.predict(X), dtype=np.int64)


def tree_order_known(n_features: int) -> bool:
    """Whether the screened brute force may stand in for the k-d tree in dimension
    ``n_features``: the fast path ``knn_tree_order`` of :mod:`simulations._fastpaths` is
    active there (its probe, once per process and dimension, checks that this SciPy's k-d tree
    sums squared distances as :func:`tree_squared_distances` does; the switch
    ``GCUL_FAST_PATHS=off`` turns it off)."""
    return _fastpaths.active("knn_tree_order", int(n_features))


def _centred(
    X: np.ndarray, mean: np.ndarray, exponent: int, out: np.ndarray | None = None
) -> np.ndarray | None:
    """``float32(2**-exponent (X - mean))`` (into ``out`` if given, a float32 array or view of
    ``X``'s shape), or ``None`` if a value leaves the float32 range."""
    with np.errstate(over="ignore", invalid="ignore"):
        if out is None:
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


def _tree_kth(X: np.ndarray, fitted: FittedKNN) -> np.ndarray:
    """The k-th smallest of the tree's distances per row, searched by ``fitted``'s tree."""
    distances, _ = fitted.tree_.query(X, k=[fitted.n_neighbors])
    return distances[:, 0]


def _group_count(n_train: int, k: int) -> int:
    """Groups of the screening: at most 16 training samples each, and at least ``k`` groups."""
    return -(-n_train // max(1, min(16, n_train // k)))


def _screened_kth(
    X: np.ndarray, X_screen: np.ndarray, fitted: FittedKNN, screen: tuple
) -> np.ndarray:
    """:meth:`FittedKNN.kth_distance` of ``X`` by screening in float32 and recomputing the
    candidates (module docstring).

    ``X_screen``: the screened query rows (:func:`_centred`); ``screen``: the training samples'
    ``(Y', mean, exponent, n_y)`` (:meth:`FittedKNN._screening`). For ``"kd_tree"`` the exact
    distances are the tree's (:func:`tree_squared_distances`; blocks of 2**20 screened
    distances, which stay in cache), for ``"brute"`` ``cdist``'s (blocks of 2**22); a block
    that cannot be screened is searched against every training sample, by the tree or by
    ``cdist``.

    The training samples are laid out in ``g`` groups (:func:`_group_count`) of the columns
    ``j, j + g, j + 2g, ...`` of a matrix padded with samples at an infinite squared norm.
    """
    Y_screen, _, _, Y_sq_norms = screen
    Y, k, tree = fitted.X_train_, fitted.n_neighbors, fitted.algorithm_ == "kd_tree"
    n_train, d = Y_screen.shape
    groups = _group_count(n_train, k)
    size = -(-n_train // groups)  # samples per group
    # y' as columns (Y_screen is a view of them), padded to groups * size zero columns whose
    # n_y is +inf
    Y_columns = fitted._columns
    norms = np.full(groups * size, np.inf, dtype=np.float32)
    norms[:n_train] = Y_sq_norms
    max_sq_norm = float(Y_sq_norms.max())
    rows = max(1, (_CACHE_DISTANCES if tree else _CHUNK_DISTANCES) // n_train)
    out = np.empty(X.shape[0])
    # one buffer for every block's screened distances and one for their group minima: a block
    # allocated anew each time is returned to the system and faults its pages in again
    block_buffer = np.empty((min(rows, X.shape[0]), groups * size), dtype=np.float32)
    minima_buffer = np.empty((min(rows, X.shape[0]), groups), dtype=np.float32)
    for start in range(0, X.shape[0], rows):
        stop = min(start + rows, X.shape[0])
        Q = X_screen[start:stop]
        q_norms = np.einsum("ij,ij->i", Q, Q)
        if not np.all(q_norms <= _MAX_QUERY_SQ_NORM):  # far outliers: no float32 overflow
            out[start:stop] = (
                _tree_kth(X[start:stop], fitted) if tree else _cdist_kth(X[start:stop], Y, k)
            )
            continue
        # (-2 x')^T y': -2 is exact, so every product and sum is -2 times that of x'^T y'
        partial = np.matmul(Q * np.float32(-2.0), Y_columns, out=block_buffer[: stop - start])
        partial += norms  # s - n_x, rounded as s is before its last addition
        by_group = partial.reshape(stop - start, size, groups)
        # fl(a + n_x) is non-decreasing in a: the minimum of s over a group is fl(min a + n_x)
        minima = np.minimum.reduce(by_group, axis=1, out=minima_buffer[: stop - start])
        minima += q_norms[:, None]
        bound = np.partition(minima, k - 1, axis=1)[:, k - 1].astype(np.float64)  # U >= t
        limit = bound + 2.0 * screening_margin(q_norms, max_sq_norm, d)
        limit32 = limit.astype(np.float32)
        below = limit32 < limit  # round the limit up, never down, to float32
        limit32[below] = np.nextafter(limit32[below], np.float32(np.inf))
        row, group = np.nonzero(minima <= limit32[:, None])
        screened = by_group[row, :, group]
        screened += q_norms[row, None]  # s of every sample of the candidate groups
        keep_at, member = np.nonzero(screened <= limit32[row, None])
        rows_kept = row[keep_at]  # non-decreasing
        columns = group[keep_at] + groups * member
        if tree:
            distances = tree_squared_distances(X[start + rows_kept], Y[columns])
            order = np.lexsort((distances, rows_kept))
            first = np.searchsorted(rows_kept, np.arange(stop - start))
            out[start:stop] = np.sqrt(distances[order[first + k - 1]])
        else:
            bounds = np.searchsorted(rows_kept, np.arange(stop - start + 1))
            for i in range(stop - start):
                candidates = columns[bounds[i] : bounds[i + 1]]
                exact_row = cdist(X[start + i : start + i + 1], Y[candidates])[0]
                out[start + i] = np.partition(exact_row, k - 1)[k - 1]
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
