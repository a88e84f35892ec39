"""Splits and estimates of :func:`simulations.compare.compare`: stratified train/test splits, the
mean over splits with Nadeau & Bengio's corrected standard error, and the verdict it supports."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

__all__ = ["Estimate", "estimate", "finite_or_none", "stratified_splits", "verdict"]

# --------------------------------------------------------------------------------------------
# Splits and estimates


def stratified_splits(
    y: np.ndarray, n_splits: int, test_size: float, seed: int
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``n_splits`` stratified train/test splits of the rows, as sorted index arrays.

    Class :math:`c` with :math:`m_c` rows puts ``round(test_size * m_c)`` of them in the test
    part, clipped to ``[0, m_c - 1]`` so that the training part holds every class. Split ``i``
    shuffles with ``default_rng(SeedSequence(seed, spawn_key=(0, i)))``: the same seed gives the
    same splits, and split ``i`` does not depend on how many splits are drawn.

    (scikit-learn's ``StratifiedShuffleSplit`` is not used: scikit-learn is not a dependency of
    the package, and its allocation of the test rows among classes is its own.)

    Parameters
    ----------
    y : ndarray of shape (N,)
        Labels ``0..C-1``.
    n_splits : int
        Number of splits.
    test_size : float
        Share of each class held out, in (0, 1).
    seed : int
        Root of the shuffles.

    Returns
    -------
    list of (train, test)
        Index arrays, sorted, disjoint, together ``0..N-1``.

    Examples
    --------
    >>> y = np.repeat([0, 1], [20, 10])
    >>> train, test = stratified_splits(y, 1, 0.3, seed=0)[0]
    >>> np.bincount(y[test]).tolist(), np.bincount(y[train]).tolist()
    ([6, 3], [14, 7])
    """
    classes = [np.flatnonzero(y == c) for c in range(int(y.max()) + 1)]
    takes = [min(int(math.floor(test_size * rows.size + 0.5)), rows.size - 1) for rows in classes]
    splits = []
    for i in range(n_splits):
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0, i)))
        test = np.concatenate(
            [rng.permutation(rows)[:take] for rows, take in zip(classes, takes, strict=True)]
        )
        mask = np.zeros(y.size, dtype=bool)
        mask[test] = True
        splits.append((np.flatnonzero(~mask), np.flatnonzero(mask)))
    return splits


@dataclasses.dataclass(frozen=True)
class Estimate:
    """A mean over splits and its standard errors.

    Attributes
    ----------
    mean : float
        Mean over the splits.
    se : float
        Nadeau & Bengio's corrected standard error, :math:`\\sqrt{(1/S + n_{test}/n_{train})
        s^2}` (NaN for one split): the splits share rows, so the naive :math:`s/\\sqrt S`
        understates the uncertainty of the mean (module reference [2]).
    se_naive : float
        :math:`s/\\sqrt S`, for reference (NaN for one split).
    values : tuple of float
        The value of every split.
    """

    mean: float
    se: float
    se_naive: float
    values: tuple[float, ...]

    def to_dict(self) -> dict:
        return {
            "mean": finite_or_none(self.mean),
            "se": finite_or_none(self.se),
            "se_naive": finite_or_none(self.se_naive),
            "values": [finite_or_none(v) for v in self.values],
        }


def estimate(values: Any, test_over_train: float) -> Estimate:
    r"""Mean of per-split values with Nadeau & Bengio's corrected standard error.

    Parameters
    ----------
    values : array_like of shape (S,)
        One value per split.
    test_over_train : float
        :math:`n_{test}/n_{train}` of the splits.

    Returns
    -------
    Estimate

    Notes
    -----
    .. math:: \mathrm{SE} = \sqrt{\Bigl(\frac1S + \frac{n_{test}}{n_{train}}\Bigr) s^2},

    :math:`s^2` the sample variance over the :math:`S` splits (Nadeau & Bengio 2003). The
    correction accounts for the correlation between splits that share training and test rows;
    it is a heuristic (their "corrected resampled t-test"), not an exact interval.

    Examples
    --------
    >>> e = estimate([0.1, 0.2, 0.3], 0.5)
    >>> round(e.mean, 12), round(e.se_naive, 12), round(e.se, 12)
    (0.2, 0.057735026919, 0.091287092918)
    """
    array = np.asarray(values, dtype=np.float64)
    mean = math.fsum(array.tolist()) / array.size
    if array.size < 2:
        return Estimate(mean, math.nan, math.nan, tuple(array.tolist()))
    variance = math.fsum(((array - mean) ** 2).tolist()) / (array.size - 1)
    se = math.sqrt((1.0 / array.size + test_over_train) * variance)
    return Estimate(mean, se, math.sqrt(variance / array.size), tuple(array.tolist()))


def verdict(label: str, difference: float, se: float) -> str:
    """One line: how a rejector's selective risk at GCUL's coverage compares with GCUL's.

    Parameters
    ----------
    label : str
        The rejector's name as printed (``"MSP"``).
    difference : float
        Mean over splits of its selective risk minus GCUL's, at GCUL's coverage.
    se : float
        Standard error of ``difference`` (NaN for one split).

    Returns
    -------
    str
        "lower by x ± y points" (better than GCUL) or "higher by x ± y points" (worse) when
        ``|difference| > 2 se``, else "no difference within 2 SE"; points are percentage
        points (``100 * difference``).

    Examples
    --------
    >>> verdict("MSP", -0.012, 0.004)
    "at GCUL's coverage, MSP's selective risk is lower by 1.20 ± 0.40 points"
    >>> verdict("kNN", 0.05, 0.01)
    "at GCUL's coverage, kNN's selective risk is higher by 5.00 ± 1.00 points"
    >>> verdict("MSP", 0.006, 0.004)
    "at GCUL's coverage, MSP's selective risk is within 2 SE of GCUL's (+0.60 ± 0.40 points): no difference"
    """
    head = f"at GCUL's coverage, {label}'s selective risk is"
    points, se_points = 100.0 * difference, 100.0 * se
    if math.isnan(se):
        return f"{head} {points:+.2f} points from GCUL's (one split: no standard error to judge it)"
    if abs(difference) <= 2.0 * se:
        return (
            f"{head} within 2 SE of GCUL's ({points:+.2f} ± {se_points:.2f} points): no difference"
        )
    word = "lower" if difference < 0 else "higher"
    return f"{head} {word} by {abs(points):.2f} ± {se_points:.2f} points"


def finite_or_none(value: float) -> float | None:
    """``value`` as a float, or ``None`` where it is NaN or infinite (JSON has neither).

    Examples
    --------
    >>> finite_or_none(0.5), finite_or_none(float("nan"))
    (0.5, None)
    """
    value = float(value)
    return value if math.isfinite(value) else None
