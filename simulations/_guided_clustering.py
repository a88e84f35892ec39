"""GCUL's phase 2 helpers: the guided initial centres (class and error-pool medians) and the
purity of each cluster (section ``subsec:pipeline`` of the GCUL paper)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simulations.models import LinearProjection, kmeans, lda, pca
from simulations.models._kmeans import lloyd

__all__ = [
    "GuidedClustering",
    "cluster_purities",
    "column_medians",
    "guided_clustering",
    "initial_centers",
]


class GuidedClustering(NamedTuple):
    """What phase 2 learned (the fields become GCUL's fitted attributes of the same names)."""

    reducer: LinearProjection | None
    init_centers: np.ndarray
    cluster_labels: np.ndarray
    cluster_centers: np.ndarray
    purities: np.ndarray
    n_iter: int


def guided_clustering(
    X: np.ndarray,
    y: np.ndarray,
    y_pred: np.ndarray,
    error_mask: np.ndarray,
    n_classes: int,
    reduce: str | None,
    n_components: int | None,
    max_iter: int,
    *,
    overwrite_X: bool = False,
) -> GuidedClustering:
    """Phase 2 of GCUL on a validated training set (labels encoded ``0..K-1``).

    Fits the projection ``reduce`` (``None``, ``"pca"`` or ``"lda"`` with ``n_components``),
    starts Lloyd's K-Means (``max_iter`` iterations at most, ``tol=1e-4``) from
    :func:`initial_centers` of phase 1's predictions ``y_pred`` and error pool ``error_mask``,
    and measures each cluster's purity (:func:`cluster_purities`). Call it with BLAS
    single-threaded. ``overwrite_X``: without a projection, K-Means may scale and centre a
    large ``X`` in place (:func:`~simulations.models._kmeans.lloyd`), leaving garbage in it.
    """
    if reduce == "pca":
        reducer = pca(X, n_components)
    elif reduce == "lda":
        reducer = lda(X, y, n_components)
    else:
        reducer = None
    Z = X if reducer is None else reducer.transform(X)
    init = initial_centers(Z, y, y_pred, error_mask, n_classes)
    if reducer is None:  # kmeans on X, validated already: straight to its iterations
        labels, centers, n_iter = lloyd(Z, init, max_iter, 1e-4, overwrite_X=overwrite_X)
    else:
        labels, centers, n_iter = kmeans(Z, init, max_iter=max_iter, return_n_iter=True)
    purities = cluster_purities(labels, y, len(init), n_classes)
    return GuidedClustering(reducer, init, labels, centers, purities, n_iter)


def cluster_purities(cluster_labels: np.ndarray, y: np.ndarray, n_clusters: int, n_classes: int):
    """Majority-label share of ``y`` in each cluster; NaN for an empty cluster."""
    counts = np.bincount(cluster_labels * n_classes + y, minlength=n_clusters * n_classes)
    counts = counts.reshape(n_clusters, n_classes)
    sizes = counts.sum(axis=1)
    purities = np.full(n_clusters, np.nan)
    filled = sizes > 0
    purities[filled] = counts[filled].max(axis=1) / sizes[filled]
    return purities


def column_medians(ZT: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``np.median(ZT.T[rows], axis=0)``, bit for bit, from the transposed data ``ZT``.

    ``rows`` is a boolean mask with at least one true entry.

    ``np.median`` partitions each column of the ``(m, d)`` selection (a strided pass per column)
    and returns the mean of the middle value(s), a sum that starts from ``0.0`` divided by 1 or
    2. Here every feature's values are one contiguous row of ``ZT.compress(rows, axis=1)``,
    partitioned in one call around the upper middle position; the same middle values are then
    summed and divided the same way (starting from ``0.0`` turns a ``-0.0`` median into ``0.0``,
    as in ``np.median``, whichever zero the partition put there).
    """
    return _middle_values(ZT.compress(rows, axis=1))  # a copy, partitioned in place


def _middle_values(part: np.ndarray) -> np.ndarray:
    """The medians of the rows of ``part`` (a C-contiguous copy of the selected columns, of at
    least one column), as :func:`column_medians` computes them; ``part`` is partitioned."""
    m = part.shape[1]
    half = m // 2
    part.partition(half, axis=1)  # the middle value of each row (the upper one if m is even)
    if m % 2:
        return part[:, half] + 0.0
    # the lower middle value is the largest of the values left of the upper one
    return (0.0 + np.maximum.reduce(part[:, :half], axis=1) + part[:, half]) / 2


def initial_centers(Z, y, y_pred, error_mask, n_classes: int) -> np.ndarray:
    """Phase 2's initial centres: the median of each predicted class (of the samples labelled
    with it when phase 1 never predicts it), then that of the error pool if it is not empty."""
    predicted = np.bincount(y_pred, minlength=n_classes)
    masks = [(y_pred == c) if predicted[c] else (y == c) for c in range(n_classes)]
    if error_mask.any():
        masks.append(error_mask)
    if Z.size < _GATHER_ELEMENTS:
        ZT = np.ascontiguousarray(Z.T)
        return np.stack([column_medians(ZT, rows) for rows in masks])
    # large Z: no transposed copy of all of it, each group's rows gathered and transposed
    # alone (the same values in the same order as ZT.compress(rows, axis=1))
    return np.stack([_middle_values(np.ascontiguousarray(Z[rows].T)) for rows in masks])


_GATHER_ELEMENTS = 1 << 22  # Z of 32 MB or more: initial_centers gathers each group alone
