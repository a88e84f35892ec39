"""Seeded splits of the rows: stratified held-out parts and folds, one implementation of each.

Two rules do all the work, and every public helper here calls them:

- a stratified held-out part (:func:`_held_out_rows`): each class's rows, shuffled, give their
  first ``round(fraction * m_c)`` rows, at most ``m_c - 1`` (the rest keeps every class);
- folds (:func:`_deal`): an order of the rows dealt round-robin to the folds.

The helpers differ only in what they shuffle and how they seed it, which the old call sites
fixed and every committed number depends on: :func:`stratified_splits` (``gcul compare``'s
splits, one stream per split), :func:`stratified_split` (one held-out mask), :func:`random_folds`
(label-blind folds, the cross-fitted certificate's) and :func:`stratified_folds` (the
out-of-fold error pool's).

Two more, of the real-data validation study (``benchmarks/predictors.py``), keep their own
rounding and dealing, which its committed numbers depend on: :func:`stratified_three_way_split`
(train / calibration / test within every class, Python's ``round``, half to even) and
:func:`per_class_folds` (each class dealt to the folds from fold 0).
"""

from __future__ import annotations

import math
from numbers import Integral
from typing import Any

import numpy as np

__all__ = [
    "per_class_folds",
    "random_folds",
    "stratified_folds",
    "stratified_split",
    "stratified_splits",
    "stratified_three_way_split",
]


def _seed_sequence(seed: Any, name: str = "seed") -> np.random.SeedSequence:
    # int(seed) is exact for every Integral, so it compares as seed does
    if not isinstance(seed, Integral) or isinstance(seed, bool) or not 0 <= int(seed) < 2**32:
        raise ValueError(f"{name} must be an integer in [0, 2**32); got {seed!r}")
    return np.random.SeedSequence(int(seed))


def _count(value: Any, name: str, low: int) -> int:
    if not isinstance(value, Integral) or isinstance(value, bool) or int(value) < low:
        raise ValueError(f"{name} must be an integer >= {low}; got {value!r}")
    return int(value)


def _fraction(value: Any, name: str) -> float:
    try:
        fraction = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real number in (0, 1); got {value!r}") from None
    if isinstance(value, bool) or not 0.0 < fraction < 1.0:
        raise ValueError(f"{name} must be a real number in (0, 1); got {value!r}")
    return fraction


def _labels(y: Any, *, codes: bool) -> np.ndarray:
    """``y`` as a non-empty 1-D array; with ``codes``, of whole numbers >= 0 (any real dtype)."""
    array = np.asarray(y)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"y must be a non-empty 1-D array of labels; got shape {array.shape}")
    if codes:
        if array.dtype == bool or not np.issubdtype(array.dtype, np.number):
            raise TypeError(f"y must hold integer labels 0..C-1; got dtype {array.dtype}")
        if not (np.all(np.isfinite(array)) and np.all(array >= 0) and np.all(array == np.floor(array))):
            raise ValueError("y must hold integer labels 0..C-1 (whole numbers >= 0)")
    return array


def _take(fraction: float, size: int) -> int:
    """Rows of a class of ``size`` that go to the held-out part: round half up, at most size - 1."""
    return max(0, min(int(math.floor(fraction * size + 0.5)), size - 1))


def _held_out_rows(
    class_rows: list[np.ndarray], fraction: float, rng: np.random.Generator
) -> np.ndarray:
    """The held-out rows: class by class, the first :func:`_take` rows of a shuffle of each."""
    parts = [rng.permutation(rows)[: _take(fraction, rows.size)] for rows in class_rows]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def _deal(order: np.ndarray, n_folds: int) -> np.ndarray:
    """Fold id of each row when the rows, in ``order``, are dealt round-robin to the folds."""
    folds = np.empty(order.size, dtype=np.int64)
    folds[order] = np.arange(order.size) % n_folds
    return folds


def stratified_splits(
    y: Any, n_splits: int, test_size: float, seed: int
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``n_splits`` stratified train/test splits of the rows, as sorted index arrays.

    Class :math:`c` with :math:`m_c` rows puts ``round(test_size * m_c)`` of them in the test
    part, clipped to ``[0, m_c - 1]`` so that the training part holds every class. Split ``i``
    shuffles with ``default_rng(SeedSequence(seed, spawn_key=(0, i)))``: the same seed gives the
    same splits, and split ``i`` does not depend on how many splits are drawn. These are the
    splits of ``gcul compare``.

    (scikit-learn's ``StratifiedShuffleSplit`` is not used: scikit-learn is not a dependency of
    the package, and its allocation of the test rows among classes is its own.)

    Parameters
    ----------
    y : array_like of shape (N,)
        Labels ``0..C-1`` (whole numbers; a label of no row is allowed).
    n_splits : int
        Number of splits, >= 1.
    test_size : float
        Share of each class held out, in (0, 1).
    seed : int
        Root of the shuffles, in ``[0, 2**32)``.

    Returns
    -------
    list of (train, test)
        Index arrays, sorted, disjoint, together ``0..N-1``.

    Raises
    ------
    TypeError, ValueError
        In one line, naming the argument: labels that are not whole numbers >= 0 in a non-empty
        1-D array, ``n_splits < 1``, ``test_size`` outside (0, 1), a bad seed.

    Examples
    --------
    >>> y = np.repeat([0, 1], [20, 10])
    >>> train, test = stratified_splits(y, 1, 0.3, seed=0)[0]
    >>> np.bincount(y[test]).tolist(), np.bincount(y[train]).tolist()
    ([6, 3], [14, 7])
    """
    y = _labels(y, codes=True)
    n_splits = _count(n_splits, "n_splits", 1)
    test_size = _fraction(test_size, "test_size")
    _seed_sequence(seed)
    classes = [np.flatnonzero(y == c) for c in range(int(y.max()) + 1)]
    splits = []
    for i in range(n_splits):
        rng = np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(0, i)))
        mask = np.zeros(y.size, dtype=bool)
        mask[_held_out_rows(classes, test_size, rng)] = True
        splits.append((np.flatnonzero(~mask), np.flatnonzero(mask)))
    return splits


def stratified_split(y: Any, fraction: float, seed: int = 0) -> np.ndarray:
    """Boolean mask of a stratified held-out part holding about ``fraction`` of every class.

    Class c contributes ``round(fraction * m_c)`` of its ``m_c`` rows (shuffled by
    ``default_rng(SeedSequence(seed))``, one stream through the classes in sorted order), at
    most ``m_c - 1``, so that the rest still holds every class.

    Parameters
    ----------
    y : array_like of shape (N,)
        Labels (any values :func:`numpy.unique` sorts).
    fraction : float
        Share of each class held out, in (0, 1).
    seed : int, default=0
        In ``[0, 2**32)``.

    Returns
    -------
    ndarray of shape (N,), bool
        True for the held-out rows.

    Raises
    ------
    TypeError, ValueError
        In one line: an empty or not 1-D ``y``, ``fraction`` outside (0, 1), a bad seed.

    Examples
    --------
    >>> mask = stratified_split(np.repeat([0, 1], [50, 10]), 0.2, seed=0)
    >>> int(mask[:50].sum()), int(mask[50:].sum())
    (10, 2)
    """
    rng = np.random.default_rng(_seed_sequence(seed))
    y = _labels(y, codes=False)
    fraction = _fraction(fraction, "fraction")
    mask = np.zeros(y.size, dtype=bool)
    mask[_held_out_rows([np.flatnonzero(y == c) for c in np.unique(y)], fraction, rng)] = True
    return mask


def random_folds(n_samples: int, n_splits: int, seed: int = 0) -> np.ndarray:
    """Assign each of ``n_samples`` rows to one of ``n_splits`` folds at random; returns fold ids.

    A uniformly random permutation (``default_rng(SeedSequence(seed))``) dealt round-robin:
    fold sizes differ by at most one, and the assignment does not depend on the data (not even
    on the labels), so a fold of iid rows is an iid sample (the premise of
    :func:`simulations.certification.certify_cross_fit`).

    Parameters
    ----------
    n_samples : int
        Number of rows, >= 0.
    n_splits : int
        Number of folds, >= 1.
    seed : int, default=0
        In ``[0, 2**32)``.

    Returns
    -------
    ndarray of shape (n_samples,), int64

    Examples
    --------
    >>> folds = random_folds(10, 3, seed=0)
    >>> np.bincount(folds).tolist()
    [4, 3, 3]
    """
    rng = np.random.default_rng(_seed_sequence(seed))
    n_samples = _count(n_samples, "n_samples", 0)
    return _deal(rng.permutation(n_samples), _count(n_splits, "n_splits", 1))


def stratified_folds(y: Any, n_folds: int, random_state: int = 0) -> np.ndarray:
    """Fold id (``0..n_folds-1``) of each row, stratified by ``y`` and seeded.

    The rows of each class, in an order shuffled by
    ``default_rng(SeedSequence(random_state))``, class after class (sorted labels), are dealt
    round-robin to the folds, the count running on from one class to the next: every class's
    rows are spread over the folds with counts differing by at most one, and so are the folds'
    sizes. Deterministic; no warning for a class with fewer rows than folds (it is in fewer
    folds). These are the folds of ``GCUL(error_pool="out_of_fold")``.

    Parameters
    ----------
    y : array_like of shape (n_samples,)
        Labels (any values :func:`numpy.unique` sorts).
    n_folds : int
        Number of folds, at least 2.
    random_state : int, default=0
        Seed in ``[0, 2**32)``.

    Returns
    -------
    ndarray of shape (n_samples,), int64

    Examples
    --------
    >>> folds = stratified_folds(np.repeat([0, 1], [6, 4]), 3)
    >>> np.bincount(folds).tolist(), np.bincount(folds[:6]).tolist()
    ([4, 3, 3], [2, 2, 2])
    """
    rng = np.random.default_rng(_seed_sequence(random_state, "random_state"))
    y = _labels(y, codes=False)
    n_folds = _count(n_folds, "n_folds", 2)
    _, codes = np.unique(y, return_inverse=True)
    order = np.concatenate(
        [rng.permutation(np.flatnonzero(codes == c)) for c in range(int(codes.max()) + 1)]
    )
    return _deal(order, n_folds)


def _generator(seed: Any) -> np.random.Generator:
    """A Generator from an int seed in ``[0, 2**32)``, a SeedSequence or a Generator (as is)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    return np.random.default_rng(_seed_sequence(seed))


def stratified_three_way_split(
    y: Any, train_size: float = 0.6, calibration_size: float = 0.2, seed: Any = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stratified train / calibration / test indices (by default 60/20/20 within every class).

    Class by class (sorted labels), the class's rows are shuffled by one generator; the first
    ``round(train_size * m_c)`` go to the training part, the next
    ``round(calibration_size * m_c)`` to the calibration part and the rest to the test part
    (Python's ``round``, half to even; unlike :func:`stratified_splits`, a class may leave a part
    empty). These are the splits of the real-data validation of the λ* predictors.

    Parameters
    ----------
    y : array_like of shape (N,)
        Labels (any values :func:`numpy.unique` sorts).
    train_size, calibration_size : float, default=0.6, 0.2
        Shares of each class in the training and calibration parts, each in (0, 1), together
        below 1.
    seed : int, SeedSequence or Generator, default=0
        An int in ``[0, 2**32)`` or a SeedSequence seeds ``default_rng``; a Generator is used
        as is (and advanced).

    Returns
    -------
    (train, calibration, test) : tuple of ndarray
        Index arrays, sorted, disjoint, together ``0..N-1``.

    Raises
    ------
    TypeError, ValueError
        In one line, naming the argument: an empty or not 1-D ``y``, a share outside (0, 1),
        shares summing to 1 or more, a bad seed.

    Examples
    --------
    >>> y = np.repeat([0, 1], [10, 5])
    >>> train, cal, test = stratified_three_way_split(y, seed=0)
    >>> [np.bincount(y[part]).tolist() for part in (train, cal, test)]
    [[6, 3], [2, 1], [2, 1]]
    """
    y = _labels(y, codes=False)
    train_size = _fraction(train_size, "train_size")
    calibration_size = _fraction(calibration_size, "calibration_size")
    if train_size + calibration_size >= 1.0:
        raise ValueError(
            "train_size + calibration_size must be below 1; got "
            f"{train_size!r} + {calibration_size!r}"
        )
    rng = _generator(seed)
    parts: list[list[np.ndarray]] = [[], [], []]
    for c in np.unique(y):
        idx = rng.permutation(np.flatnonzero(y == c))
        n_train = int(round(train_size * idx.size))
        n_cal = int(round(calibration_size * idx.size))
        parts[0].append(idx[:n_train])
        parts[1].append(idx[n_train : n_train + n_cal])
        parts[2].append(idx[n_train + n_cal :])
    train, calibration, test = (np.sort(np.concatenate(p)) for p in parts)
    return train, calibration, test


def per_class_folds(y: Any, n_folds: int, seed: Any = 0) -> np.ndarray:
    """Fold id (``0..n_folds-1``) of each row: each class's shuffled rows dealt from fold 0.

    For ``c = 0..max(y)``, the rows of class ``c``, shuffled by one generator, are dealt
    round-robin to the folds starting again at fold 0 (unlike :func:`stratified_folds`, whose
    count runs on from one class to the next): every class is spread over the folds with counts
    differing by at most one, and the low folds are the larger ones. These are the folds of the
    cross-validated phase-1 predictions of the real-data validation of the λ* predictors.

    Parameters
    ----------
    y : array_like of shape (N,)
        Labels ``0..C-1`` (whole numbers).
    n_folds : int
        Number of folds, at least 2.
    seed : int, SeedSequence or Generator, default=0
        As in :func:`stratified_three_way_split`.

    Returns
    -------
    ndarray of shape (N,), int64

    Raises
    ------
    TypeError, ValueError
        In one line: labels that are not whole numbers >= 0 in a non-empty 1-D array,
        ``n_folds < 2``, a bad seed.

    Examples
    --------
    >>> folds = per_class_folds(np.repeat([0, 1], [4, 4]), 3)
    >>> np.bincount(folds).tolist()
    [4, 2, 2]
    """
    y = _labels(y, codes=True)
    n_folds = _count(n_folds, "n_folds", 2)
    rng = _generator(seed)
    fold = np.empty(y.size, dtype=np.int64)
    for c in range(int(y.max()) + 1):
        idx = rng.permutation(np.flatnonzero(y == c))
        fold[idx] = np.arange(idx.size) % n_folds
    return fold
