"""The risk-coverage figure of a :class:`simulations.compare.CompareResult` (``gcul compare --plot``)."""

from __future__ import annotations

import textwrap
from typing import Any

import numpy as np

from simulations.compare.result import CompareResult

__all__ = ["plot_risk_coverage"]

# --------------------------------------------------------------------------------------------
# The figure


def plot_risk_coverage(result: CompareResult, ax: Any = None) -> Any:
    """Draw the risk–coverage curves of the first split, GCUL's operating point marked.

    Each curve carries its rejector's markers, spread so that curves on one another show each
    one's side by side; curves that coincide (:func:`simulations.figures.coinciding_curves`)
    are named in the legend's title, with the coverage where they do.

    Parameters
    ----------
    result : CompareResult
        From :func:`compare`.
    ax : matplotlib Axes, optional
        Where to draw; a new figure's axes by default.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on (``ax.figure`` to save it, e.g. with
        :func:`simulations.figures.save_figure`).
    """
    from matplotlib.figure import Figure

    if ax is None:
        ax = Figure(figsize=(6.4, 3.6), layout="constrained").add_subplot()
    from simulations.figures import (
        COINCIDE_SHARE,
        coincidence_notes,
        coinciding_curves,
        rejector_line_kwargs,
    )
    from simulations.figures.style import mark_coverage, mark_operating_point

    curves = result.curves
    coverage_gcul, risk_gcul = curves["_gcul_point"]
    names = [key for key in curves if not key.startswith("_")]
    top = 0.0
    lines = {}
    for key in names:
        label, coverage, risk = curves[key]
        # GCUL on top, then MSP; each curve with its own markers (curves that coincide still
        # show each one's marks)
        (lines[key],) = ax.plot(
            coverage, risk, **(rejector_line_kwargs(key, names) | {"label": label})
        )
        top = max(top, float(max(risk, default=0.0)))
    mark_coverage(ax, coverage_gcul)
    mark_operating_point(ax, coverage_gcul, risk_gcul, "GCUL's operating point")
    ax.set_xlabel("coverage (share of test rows accepted)")
    ax.set_ylabel("selective risk")
    ax.set_xlim(-0.02, 1.02)  # a marker at coverage 0 or 1 is drawn whole
    high = min(1.0, 1.08 * top) if top > 0 else 1.0
    ax.set_ylim(-0.03 * high, high)  # a curve at zero risk stays above the x-axis
    ax.grid(True, color="0.88", linewidth=0.5)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.set_title(
        f"Risk–coverage, first of {result.splits} splits ({result.n_test} test rows, "
        f"λ = {result.lam:g})",
        fontsize=9,
    )
    # beside the axes: inside, every corner holds a curve (the upper left the risk of the
    # fewest accepted rows, the right end the base error and GCUL's operating point)
    topmost = sorted(names, key=lambda key: -lines[key].get_zorder())
    groups = coinciding_curves(
        {key: (np.asarray(curves[key][1]), np.asarray(curves[key][2])) for key in topmost},
        tol=COINCIDE_SHARE * 1.03 * high,
    )
    notes = coincidence_notes({"": groups}, {key: curves[key][0] for key in names}, names)
    ax.legend(
        fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0,
        title="\n".join(textwrap.fill(note, 34) for note in notes) if notes else None,
        title_fontsize=7, alignment="left",
    )  # fmt: skip
    return ax
