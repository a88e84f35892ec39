r"""``knn``: distance to the k-th nearest training sample (k = 10).

Score: :math:`-\lVert x - x_{(k)}(x)\rVert_2`, the negative Euclidean distance from :math:`x` to
its k-th nearest training sample (k = 10; the labels play no part). Prediction: phase 1's label
(the kNN distance only scores; it has no classifier of its own here). No natural operating point
at a cost λ.

Search: an exact k-d tree (:class:`scipy.spatial.cKDTree`, leaves of 128 points) when it pays, i.e. in low dimension:
when :math:`2^d \le n_{train}`; otherwise (high dimension, where a k-d tree visits nearly every
leaf and is slower than brute force) the exact brute force: the distances to all training samples
(:func:`scipy.spatial.distance.cdist`, differences first, so no cancellation) for chunks of query
rows at a time, holding at most about 2**22 distances (32 MiB) at once, and the k-th smallest by
``numpy.partition``. Both are exact up to the rounding of the distances (a few ulps).

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

__all__ = ["LEAF_SIZE", "N_NEIGHBORS", "FittedKNN", "REJECTOR", "fit"]

N_NEIGHBORS = 10
"""k: the rank of the training neighbour whose distance is the score."""

LEAF_SIZE = 128
"""Points per k-d tree leaf: on the paper-size cell (d = 10) about half the query time of
``cKDTree``'s default 16 (``benchmarks/bench_rejectors.py``, item ``knn_leaf16``)."""

_CHUNK_DISTANCES = 2**22  # distances held at once by the brute force


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
        """Distance from each row of ``X`` to its k-th nearest training sample, shape ``(n,)``."""
        k = self.n_neighbors
        if self.tree_ is not None:
            distances, _ = self.tree_.query(X, k=[k])
            return distances[:, 0]
        rows = max(1, _CHUNK_DISTANCES // self.X_train_.shape[0])
        out = np.empty(X.shape[0])
        for start in range(0, X.shape[0], rows):
            block = cdist(X[start : start + rows], self.X_train_)
            out[start : start + rows] = np.partition(block, k - 1, axis=1)[:, k - 1]
        return out

    def _score_predict(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return -self.kth_distance(X), np.asarray(self.phase1_.predict(X), dtype=np.int64)


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
