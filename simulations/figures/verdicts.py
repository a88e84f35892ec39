"""Shares of correct / Type-I / Type-II verdicts per λ* predictor, as stacked horizontal bars.

The figure of the real-data validation of the λ* predictors (``benchmarks/predictors.py``):
one bar per predictor, grouped by where its phase-1 predictions came from, the unsafe
(Type-II) share printed at the right of each bar.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from simulations.report.violations import VERDICTS

__all__ = ["VERDICT_COLOURS", "VERDICT_GROUPS", "VerdictSharesPlot", "plot_verdict_shares"]

VERDICT_COLOURS = {
    "correct": "#009E73", "type_I": "#E69F00", "type_II": "#D55E00", "failed": "#999999"
}  # fmt: skip
"""Okabe–Ito colours of the verdicts (:data:`simulations.report.VERDICTS`)."""

VERDICT_GROUPS = (
    ("in_sample", "geometry, in-sample phase-1 ŷ (GCUL's own error pool)"),
    ("cross_validated", "geometry, 5-fold cross-validated phase-1 ŷ"),
    ("calibration", "held-out calibration split"),
)
"""The groups of bars, in order: a row's ``predictions`` and the group's header."""

_NAMES = {"correct": "correct", "type_I": "Type-I (conservative)", "type_II": "Type-II (unsafe)",
          "failed": "no value (failed)"}  # fmt: skip


@dataclass
class VerdictSharesPlot:
    """What :func:`plot_verdict_shares` drew, and the files it wrote."""

    figure: Figure
    ax: Axes
    paths: list[Path]


def plot_verdict_shares(
    pooled: Sequence[Mapping],
    path_stem: str | Path,
    title: str,
    *,
    lam: float,
    kinds: Mapping[str, str],
) -> VerdictSharesPlot:
    """Stacked horizontal bars of correct / Type-I / Type-II per predictor, pooled over families.

    One group of bars per kind of phase-1 predictions (:data:`VERDICT_GROUPS`: in-sample,
    5-fold CV, the held-out calibration split); the unsafe (Type-II) share is printed at the
    right of each bar. A verdict with no mark gets no legend entry. Drawn on a
    :class:`~matplotlib.figure.Figure` (no ``pyplot``) and saved as ``<path_stem>.png`` and
    ``.pdf`` at 150 dpi.

    Parameters
    ----------
    pooled : sequence of mapping
        One row per ``(predictions, predictor)``: ``predictions``, ``predictor``, ``n`` and the
        count of every verdict of :data:`simulations.report.VERDICTS`; all with the same ``n``.
    path_stem : str or Path
        Where to write, without suffix.
    title : str
        The figure's title (may hold newlines).
    lam : float
        The cost λ of the verdicts, named on the x axis.
    kinds : mapping
        Predictor name -> what kind of value it is ("valid bound", ...), shown beside the name.

    Returns
    -------
    VerdictSharesPlot

    Raises
    ------
    ValueError
        In one line: no row of ``pooled`` in any group.
    """
    labels, shares, ypos, headers = [], [], [], []
    y = 0.0
    for key, header in VERDICT_GROUPS:
        members = [s for s in pooled if s["predictions"] == key]
        if not members:
            continue
        headers.append((y, header))
        y -= 1.0
        for s in members:
            labels.append(f"{s['predictor']}  ({kinds[s['predictor']]})")
            shares.append([s[v] / s["n"] for v in VERDICTS])
            ypos.append(y)
            y -= 1.0
        y -= 0.4
    if not labels:
        groups = [key for key, _ in VERDICT_GROUPS]
        raise ValueError(f"pooled has no row whose predictions is one of {groups}")
    share = np.array(shares)  # (predictor rows, verdicts)
    y_at = np.array(ypos)
    fig = Figure(figsize=(8.0, 0.3 * (len(labels) + len(headers)) + 1.9))
    ax = fig.subplots()
    left = np.zeros(len(labels))
    for j, v in enumerate(VERDICTS):
        if not share[:, j].any():
            continue  # no legend entry without a mark
        colour = VERDICT_COLOURS[v]
        ax.barh(y_at, share[:, j], left=left, color=colour, label=_NAMES[v], height=0.75)
        left += share[:, j]
    unsafe = VERDICT_COLOURS["type_II"]
    for y_, unsafe_share in zip(y_at, share[:, 2], strict=True):
        ax.text(1.015, y_, f"{unsafe_share:.0%}", va="center", fontsize=8, color=unsafe)
    ax.text(1.015, headers[0][0], "unsafe", va="center", fontsize=8, color=unsafe,
            fontweight="bold")  # fmt: skip
    for y_, header in headers:
        ax.text(0.0, y_, header, va="center", fontsize=8.5, fontweight="bold")
    ax.set_yticks(y_at, labels, fontsize=8)
    ax.set_ylim(y_at.min() - 0.7, headers[0][0] + 0.7)
    ax.set_xlim(0, 1)
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_xlabel(f"share of the {pooled[0]['n']} splits (verdict at λ = {lam})")
    fig.suptitle(title, fontsize=9.5, x=0.02, ha="left")
    handles, legend_labels = ax.get_legend_handles_labels()
    ax.legend(handles, legend_labels, loc="lower left", bbox_to_anchor=(-0.02, 1.0), ncol=4,
              fontsize=8, frameon=False, borderaxespad=0.2)  # fmt: skip
    fig.tight_layout()
    paths = [Path(path_stem).with_suffix(f".{ext}") for ext in ("png", "pdf")]
    for path in paths:
        fig.savefig(path, dpi=150)
    return VerdictSharesPlot(fig, ax, paths)
