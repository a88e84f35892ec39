"""Across-seed statistics of a results column, and how wide a band to draw over many seeds.

Compute once, draw with a style: the figures summarise the sweep's cells here and draw the
summaries in :mod:`~simulations.figures.phase_transition`, :mod:`~simulations.figures.predictors`
and :mod:`~simulations.figures.accuracy`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulations.report import Results, noise_key, result_columns

__all__ = ["CROWDED_SEEDS", "SeedSummary", "crowding", "summarize_across_seeds"]

CROWDED_SEEDS = 20
"""Above this many seeds (twice the paper's 10) a figure stays readable by drawing, instead of the
min–max band, the 5–95% band over seeds (a min–max over 100 seeds is drawn by its outliers), and
the violating cells as small translucent marks under the mean lines (thousands of them otherwise
hide the lines)."""
_CROWDED_BAND = (5.0, 95.0)


@dataclass(frozen=True)
class SeedSummary:
    """Across-seed statistics of one column at each noise level (arrays of equal length)."""

    noise: np.ndarray
    mean: np.ndarray
    low: np.ndarray  # minimum over seeds (or the lower percentile of ``spread``)
    high: np.ndarray  # maximum over seeds (or the upper percentile of ``spread``)
    n_seeds: np.ndarray  # seeds present at each level


def summarize_across_seeds(
    results: Results, column: str, spread: tuple[float, float] | None = None
) -> SeedSummary:
    """Mean, minimum and maximum of ``column`` over seeds at each noise level, sorted by σ.

    With ``spread = (p, q)`` (percentages, ``0 <= p <= q <= 100``), ``low`` and ``high`` are the
    p-th and q-th percentiles over seeds (``numpy.percentile``, linear) instead.

    Examples
    --------
    >>> rows = [{"seed": s, "noise": n, "lambda_emp": v}
    ...         for s, n, v in [(10, 0.0, 0.8), (11, 0.0, 0.6), (10, 0.4, 0.5)]]
    >>> summary = summarize_across_seeds(rows, "lambda_emp")
    >>> summary.noise.tolist(), summary.mean.round(2).tolist(), summary.n_seeds.tolist()
    ([0.0, 0.4], [0.7, 0.5], [2, 1])
    >>> summarize_across_seeds(rows, "lambda_emp", spread=(25.0, 75.0)).low.round(2).tolist()
    [0.65, 0.5]
    """
    if spread is not None:
        p, q = spread
        if not 0.0 <= p <= q <= 100.0:
            raise ValueError(f"spread must be percentages 0 <= p <= q <= 100; got {spread!r}")
    cols = result_columns(
        results, ("seed", "noise", column), f"the across-seed summary of {column!r}"
    )
    keys = noise_key(cols["noise"])
    levels, inverse = np.unique(keys, return_inverse=True)
    values = cols[column]
    mean = np.array([values[inverse == k].mean() for k in range(len(levels))])
    if spread is None:
        low = np.array([values[inverse == k].min() for k in range(len(levels))])
        high = np.array([values[inverse == k].max() for k in range(len(levels))])
    else:
        low = np.array([np.percentile(values[inverse == k], p) for k in range(len(levels))])
        high = np.array([np.percentile(values[inverse == k], q) for k in range(len(levels))])
    n_seeds = np.array([len(np.unique(cols["seed"][inverse == k])) for k in range(len(levels))])
    return SeedSummary(noise=levels, mean=mean, low=low, high=high, n_seeds=n_seeds)


def crowding(n_seeds: int) -> tuple[tuple[float, float] | None, str]:
    """The band's percentiles (None: min–max) and its description for ``n_seeds`` seeds.

    Up to :data:`CROWDED_SEEDS` seeds the band runs from the minimum to the maximum over seeds;
    above, from the 5th to the 95th percentile.

    Examples
    --------
    >>> crowding(10), crowding(100)
    ((None, 'min–max'), ((5.0, 95.0), '5–95% of seeds'))
    """
    if n_seeds <= CROWDED_SEEDS:
        return None, "min–max"
    low, high = _CROWDED_BAND
    return _CROWDED_BAND, f"{low:g}–{high:g}% of seeds"
