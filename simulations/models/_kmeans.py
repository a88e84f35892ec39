"""K-Means (Lloyd's algorithm from given initial centres), as GCUL's phase 2 runs it."""

from __future__ import annotations

from numbers import Real
from typing import Literal, overload

import numpy as np

from simulations import _fastpaths

from ._blas import single_threaded_blas
from ._numerics import first_argmin, power_of_two_exponent
from ._validation import check_matrix, check_positive

__all__ = ["kmeans", "lean_applies", "lloyd"]


def _assign(XT: np.ndarray, centers: np.ndarray, out: np.ndarray | None = None):
    """Nearest centre of each column of ``XT`` (first one on ties), from ``||c||^2 - 2 c.x``.

    ``||x||^2`` is omitted as in scikit-learn: it does not change the nearest centre. ``out``,
    of shape ``(n_clusters, n_samples)``, takes the distances (a new array if ``None``). Returns
    ``(labels, mask)`` as ``first_argmin(..., one_hot=True)``.
    """
    distances = np.matmul(-2.0 * centers, XT, out=out)
    distances += np.einsum("ij,ij->i", centers, centers)[:, None]
    return first_argmin(distances, one_hot=True)


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


@overload
def kmeans(
    X, init, max_iter: int = ..., tol: float = ..., *, return_n_iter: Literal[False] = ...
) -> tuple[np.ndarray, np.ndarray]: ...
@overload
def kmeans(
    X, init, max_iter: int = ..., tol: float = ..., *, return_n_iter: Literal[True]
) -> tuple[np.ndarray, np.ndarray, int]: ...
@overload
def kmeans(
    X, init, max_iter: int = ..., tol: float = ..., *, return_n_iter: bool = ...
) -> tuple[np.ndarray, np.ndarray] | tuple[np.ndarray, np.ndarray, int]: ...
def kmeans(
    X, init, max_iter: int = 100, tol: float = 1e-4, *, return_n_iter: bool = False
) -> tuple[np.ndarray, np.ndarray] | tuple[np.ndarray, np.ndarray, int]:
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
    return_n_iter : bool, default=False
        Also return the number of iterations (as ``sklearn.cluster.k_means`` does).

    Returns
    -------
    labels : ndarray of shape (n_samples,)
        Index of the nearest final centre of each sample (``int64``).
    centers : ndarray of shape (n_clusters, n_features)
        Final centres.
    n_iter : int
        Only with ``return_n_iter=True``: the number of Lloyd iterations run, at most
        ``max_iter``, counted as scikit-learn's ``KMeans.n_iter_``.

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
    >>> kmeans(X, init=[[1.0, 1.0], [9.0, 9.0]], return_n_iter=True)[2]
    2
    """
    X = check_matrix(X, "X")
    init = check_matrix(init, "init", n_features=X.shape[1])
    max_iter = check_positive(max_iter, "max_iter", integer=True)
    if isinstance(tol, bool) or not isinstance(tol, Real) or not (0 <= tol < np.inf):
        raise ValueError(f"tol must be a finite number >= 0; got {tol!r}")
    if init.shape[0] > X.shape[0]:
        raise ValueError(
            f"init has {init.shape[0]} centres, more than the {X.shape[0]} samples of X"
        )
    labels, centers, n_iter = lloyd(X, init, max_iter, float(tol))
    return (labels, centers, n_iter) if return_n_iter else (labels, centers)


def lloyd(
    X: np.ndarray, init: np.ndarray, max_iter: int, tol: float, *, overwrite_X: bool = False
) -> tuple[np.ndarray, np.ndarray, int]:
    """The body of :func:`kmeans` for validated arguments, with the number of iterations.

    ``X`` and ``init`` must be what :func:`kmeans` would accept (finite float64 matrices with
    the same number of columns, ``1 <= len(init) <= len(X)``, ``max_iter >= 1``, ``tol >= 0``);
    nothing is checked. Returns ``(labels, centers, n_iter)``: those of :func:`kmeans` and the
    number of Lloyd iterations run, counted as scikit-learn's ``KMeans.n_iter_`` counts them
    (at most ``max_iter``).

    With ``overwrite_X`` (a writeable, C-contiguous ``X``) a large ``X`` (the memory-lean path,
    :func:`lean_applies`) is scaled and centred in place, with no copy at all: the same
    operations on the same values, so the same result, bit for bit, and ``X`` left holding
    garbage. Small data are copied as without it (and ``X`` is left alone).
    """
    n_clusters = init.shape[0]
    # run on X and init times 2**-exponent (exact): no squared distance overflows or underflows
    exponent = power_of_two_exponent(X, init)
    # a large X is centred in place and read through a transposed view, never copied again
    # (lean_applies): the same numbers, for one copy of X instead of three at the peak (none
    # with overwrite_X: the caller's X is scaled and centred where it lies)
    lean = lean_applies(X.shape, n_clusters)
    if lean and overwrite_X:
        if exponent:
            np.ldexp(X, -exponent, out=X)  # elementwise: np.ldexp(X, -exponent)'s values
        init = np.ldexp(init, -exponent)
    else:
        X, init = np.ldexp(X, -exponent), np.ldexp(init, -exponent)
    if tol > 0:
        variances = _fastpaths.column_variances(X) if lean else np.var(X, axis=0)
        tol_abs = float(np.mean(variances) * tol)
    else:
        tol_abs = 0.0
    mean = X.mean(axis=0)
    if lean:
        X -= mean
        XT = X.T
    else:
        X = X - mean
        XT = np.ascontiguousarray(X.T)
    centers = init - mean
    distances = np.empty((n_clusters, X.shape[0]))  # reused by every assignment
    labels_old = np.full(X.shape[0], -1)
    any_empty = True  # whether the centres came from labels with an empty cluster
    strict = False
    n_iter = max_iter
    with single_threaded_blas():
        for iteration in range(max_iter):
            labels, mask = _assign(XT, centers, out=distances)
            unchanged = np.array_equal(labels, labels_old)
            if unchanged and not any_empty:
                # the update would recompute the current centres from the same labels (a zero
                # shift): stop as it would, without recomputing them
                strict = True
                n_iter = iteration + 1
                break
            centers_new, any_empty = _update_centers(X, labels, centers, n_clusters, mask)
            shift = float(((centers_new - centers) ** 2).sum())
            centers = centers_new
            if unchanged:
                strict = True
                n_iter = iteration + 1
                break
            if shift <= tol_abs:
                n_iter = iteration + 1
                break
            labels_old = labels
        if not strict:
            labels, _ = _assign(XT, centers, out=distances)
    return labels.astype(np.int64), np.ldexp(centers + mean, exponent), n_iter


_LEAN_ELEMENTS = 1 << 22  # X of 32 MB or more: lloyd's memory-lean path (lean_applies)


def lean_applies(shape: tuple[int, int], n_clusters: int) -> bool:
    """Whether :func:`lloyd` takes its memory-lean path for data of ``shape``.

    For ``X`` of at least 2**22 values with 2 columns or more and 2 clusters or more, and only
    where the fast path ``kmeans_lean`` of :mod:`simulations._fastpaths` is active (its probe,
    run once per process, checks the two facts it rests on: BLAS computes ``centres @ X.T`` the
    same whether ``X.T`` is a view or a copy, and NumPy sums a matrix's rows in order, which
    :func:`~simulations._fastpaths.column_variances` continues a block of rows at a time; the
    switch ``GCUL_FAST_PATHS=off`` turns it off). Otherwise the copies: the same results.
    """
    if shape[0] * shape[1] < _LEAN_ELEMENTS or shape[1] < 2 or n_clusters < 2:
        return False
    return _fastpaths.active("kmeans_lean")
