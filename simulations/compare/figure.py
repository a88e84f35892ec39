"""The risk-coverage figure of a :class:`simulations.compare.CompareResult` (``gcul compare --plot``)."""

from __future__ import annotations

from typing import Any

from simulations import registry
from simulations.compare.result import CompareResult

__all__ = ["plot_risk_coverage"]

# --------------------------------------------------------------------------------------------
# The figure


def plot_risk_coverage(result: CompareResult, ax: Any = None) -> Any:
    """Draw the risk–coverage curves of the first split, GCUL's operating point marked.

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
        ax = Figure(figsize=(5.0, 3.6), layout="constrained").add_subplot()
    curves = result.curves
    coverage_gcul, risk_gcul = curves["_gcul_point"]
    for key, value in curves.items():
        if key.startswith("_"):
            continue
        label, coverage, risk = value
        style = registry.method(key).style
        ax.plot(
            coverage,
            risk,
            color=style.colour,
            linestyle=style.linestyle,
            linewidth=style.width,
            label=label,
            zorder=3 if key == "gcul" else 2,
        )
    ax.axvline(coverage_gcul, color="0.6", linewidth=0.8, linestyle="--", zorder=1)
    ax.plot(
        [coverage_gcul],
        [risk_gcul],
        marker="o",
        markersize=7,
        markerfacecolor="white",
        markeredgecolor=registry.method("gcul").style.colour,
        linestyle="none",
        zorder=4,
        label="GCUL's operating point",
    )
    ax.set_xlabel("coverage (share of test rows accepted)")
    ax.set_ylabel("selective risk")
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(bottom=0.0)
    ax.grid(True, color="0.88", linewidth=0.5)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.set_title(
        f"Risk–coverage, first of {result.splits} splits ({result.n_test} test rows, "
        f"lam {result.lam:g})",
        fontsize=9,
    )
    ax.legend(fontsize=7, frameon=False, loc="upper left")
    return ax
