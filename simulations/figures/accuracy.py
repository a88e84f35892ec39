"""Base accuracy, selective accuracy and rejection rate against σ: the companion panel."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.lines import Line2D

from simulations.figures.phase_transition import SINGLE_LEVEL_WINDOW
from simulations.figures.save import save_figure
from simulations.figures.style import (
    ACCURACY_STYLES,
    FONT_SIZE,
    NOISE_LABEL,
    LINE_WIDTH,
    new_axes,
    style_axes,
)
from simulations.figures.summary import summarize_across_seeds
from simulations.report import Results, result_columns

__all__ = ["AccuracyPlot", "plot_accuracy"]


@dataclass
class AccuracyPlot:
    """What :func:`plot_accuracy` drew (lines of across-seed means, in percent)."""

    ax: Axes
    base: Line2D
    selective: Line2D
    rejection: Line2D
    legend: Legend
    paths: list[Path] = field(default_factory=list)


def plot_accuracy(
    results: Results, path: str | Path | None = None, *, ax: Axes | None = None
) -> AccuracyPlot:
    """Base accuracy, selective accuracy and rejection rate (across-seed means, %) against σ.

    A companion panel to :func:`plot_phase_transition`: the selective gain closes as σ grows
    while the rejection rate stays near the confusion share. With a single noise level each
    mean is drawn as a marker. Saves to ``path`` like :func:`save_figure` when given; never
    calls ``show()``.
    """
    cols = result_columns(
        results,
        ("seed", "noise", "base_acc", "selective_acc", "rejection_rate"),
        "the accuracy plot",
    )
    ax = new_axes(ax)
    style_axes(ax)
    lines = {}
    for column, (label, colour, style, marker) in ACCURACY_STYLES.items():
        summary = summarize_across_seeds(cols, column)
        point: dict[str, Any] = (
            {"marker": marker, "markersize": 5} if len(summary.noise) == 1 else {}
        )
        (lines[column],) = ax.plot(
            summary.noise, 100 * summary.mean, color=colour, linestyle=style,
            linewidth=LINE_WIDTH, label=label, **point,
        )  # fmt: skip
    lo, hi = float(cols["noise"].min()), float(cols["noise"].max())
    pad = 0.015 * (hi - lo) if hi > lo else SINGLE_LEVEL_WINDOW
    ax.set_xlim(lo - pad, hi + pad)
    ax.set_ylim(0, 102)
    ax.set_xlabel(NOISE_LABEL, fontsize=FONT_SIZE)
    ax.set_ylabel("Test set (%)", fontsize=FONT_SIZE)
    legend = ax.legend(
        loc="best", fontsize=FONT_SIZE, framealpha=0.9, edgecolor="none",
        handlelength=2.6,
    )  # fmt: skip
    drawn = AccuracyPlot(
        ax=ax,
        base=lines["base_acc"],
        selective=lines["selective_acc"],
        rejection=lines["rejection_rate"],
        legend=legend,
    )
    if path is not None:
        # matplotlib types Axes.figure as Figure | SubFigure; save_figure needs (and assumes)
        # the top-level Figure. Type-level only.
        drawn.paths = save_figure(cast(Figure, ax.figure), path)
    return drawn
