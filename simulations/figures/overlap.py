"""Curves drawn on one another: which of a panel's curves coincide, and over which run of x.

A curve under another that lies within a line's width of it is hidden there; the risk–coverage
figures (:func:`simulations.baseline_figures.plot_risk_coverage`, ``gcul compare --plot``) name
each such group so that a reader knows the hidden curves are there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

__all__ = ["COINCIDE_SHARE", "Coincidence", "coinciding_curves", "coincidence_notes"]

COINCIDE_SHARE = 0.01
"""Two curves of a risk–coverage panel coincide where they lie within this share of the panel's
risk range of each other: 1.3 pt on a panel about 130 pt high, less than GCUL's line is wide
(1.8 pt), so the one below is hidden there."""


@dataclass(frozen=True)
class Coincidence:
    """Curves that lie on one another over a run of coverage (:func:`coinciding_curves`).

    ``names`` in the order given; ``low`` and ``high`` the coverage where the run starts and
    ends; ``spread`` the largest gap between them over the run (0: the same risk everywhere);
    ``risk`` the smallest and largest risk of any of them over the run.
    """

    names: tuple[str, ...]
    low: float
    high: float
    spread: float
    risk: tuple[float, float]


def coinciding_curves(
    curves: Mapping[str, tuple[np.ndarray, np.ndarray]], tol: float, min_share: float = 0.25
) -> list[Coincidence]:
    """Groups of curves drawn on one another: within ``tol`` over a run of at least
    ``min_share`` of their points.

    ``curves`` maps a name to its ``(coverage, risk)``, topmost first; each group starts at the
    first curve not yet grouped and takes every later one on the same coverage grid within
    ``tol`` of it at ``min_share`` of the points or more; the run is the longest stretch where
    the whole group lies within ``tol``. Curves drawn on one another hide those below; a figure
    names each group so that a reader knows the hidden ones are there.

    Examples
    --------
    >>> x = np.linspace(0.1, 1.0, 10)
    >>> flat, rising = np.where(x <= 0.8, 0.0, x - 0.8), x / 2
    >>> [(g.names, g.low, g.high, g.spread) for g in coinciding_curves(
    ...     {"gcul": (x, flat), "msp": (x, flat.copy()), "knn": (x, rising)}, tol=0.01)]
    [(('gcul', 'msp'), 0.1, 1.0, 0.0)]
    """
    pending = list(curves)
    groups = []
    while pending:
        head = pending.pop(0)
        x, y = curves[head]
        members = [head] + [
            name
            for name in pending
            if np.array_equal(curves[name][0], x)
            and np.mean(np.abs(curves[name][1] - y) <= tol) >= min_share
        ]
        if len(members) < 2:
            continue
        stack = np.vstack([curves[name][1] for name in members])
        together = np.ptp(stack, axis=0) <= tol
        # the longest run of consecutive points where every member lies within tol
        edges = np.flatnonzero(np.diff(np.concatenate(([0], together.astype(np.int8), [0]))))
        starts, ends = edges[0::2], edges[1::2]
        if starts.size == 0:
            continue
        longest = int(np.argmax(ends - starts))
        start, end = int(starts[longest]), int(ends[longest])
        if end - start < min_share * x.size:
            continue
        run = stack[:, start:end]
        groups.append(
            Coincidence(
                names=tuple(members),
                low=float(x[start]),
                high=float(x[end - 1]),
                spread=float(np.ptp(run, axis=0).max()),
                risk=(float(run.min()), float(run.max())),
            )
        )
        pending = [name for name in pending if name not in members]
    return groups


def coincidence_notes(
    groups: Mapping[str, list[Coincidence]], labels: Mapping[str, str], order: list[str]
) -> list[str]:
    """One line per group of coinciding curves, for a legend's title: ``groups`` maps a panel's
    name (e.g. "σ = 2", or "" for a single panel) to its groups, ``labels`` a curve's name to
    its label, ``order`` the order in which to name them.

    Examples
    --------
    >>> group = Coincidence(("msp", "gcul"), 0.01, 0.82, 0.003, (0.0, 0.003))
    >>> coincidence_notes({"σ = 2": [group]}, {"gcul": "GCUL", "msp": "MSP"}, ["gcul", "msp"])
    ['σ = 2: GCUL and MSP coincide (risk 0.000–0.003) for coverage 0.01–0.82']
    """
    notes = []
    for panel, found in groups.items():
        for group in found:
            names = [labels[name] for name in order if name in group.names]
            low, high = group.risk
            risk = "zero risk" if high == 0 else f"risk {low:.3f}–{high:.3f}"
            head = f"{panel}: " if panel else ""
            notes.append(
                f"{head}{', '.join(names[:-1])} and {names[-1]} coincide ({risk}) "
                f"for coverage {group.low:.2f}–{group.high:.2f}"
            )
    return notes
