r"""Figures of the selective-classification comparison: risk–coverage curves and risk against σ.

- :func:`plot_risk_coverage`: the risk–coverage curve of every rejector of
  :data:`simulations.rejectors.REJECTORS` in three cells (one seed, a low, a mid and a high σ),
  GCUL's operating point marked, the Bayes curve drawn as the floor (the region below it shaded:
  no rejector reaches it in expectation). The per-sample scores are not in ``results.csv``: they
  are recomputed for the three cells (:func:`risk_coverage_cells`), deterministically, exactly as
  the sweep computes them.
- :func:`plot_baselines`: the selective risk at GCUL's coverage against σ, one line per rejector
  (mean over seeds), and its excess over the Bayes limit.

Drawn on :class:`matplotlib.figure.Figure` objects (never ``pyplot``), saved with
:func:`simulations.figures.save_figure` (atomic). Colours are Okabe–Ito with distinct line styles
(readable in greyscale).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.figure import Figure

import gcul_theory
from simulations import registry
from simulations.figures import FONT_SIZE
from simulations.gcul import GCUL
from simulations.models import single_threaded_blas
from simulations.rejectors.evaluate import CellScores, score_cell
from simulations.synthetic import SyntheticConfig, make_dataset

__all__ = [
    "RISK_COVERAGE_NOISE",
    "pick_levels",
    "plot_baselines",
    "plot_risk_coverage",
    "risk_coverage_cells",
]

RISK_COVERAGE_NOISE: tuple[float, float, float] = (2.0, 6.0, 12.0)
"""The σ of the three risk–coverage panels (one per band of :mod:`simulations.baselines`); the
nearest levels of the grid are drawn (:func:`pick_levels`)."""

_MIN_ACCEPTED = 24  # curves start at this accepted count: below it R(m) is a handful of samples


def pick_levels(
    grid: Sequence[float], wanted: Sequence[float] = RISK_COVERAGE_NOISE
) -> list[float]:
    """The distinct levels of ``grid`` nearest each of ``wanted`` (in order, duplicates dropped).

    Examples
    --------
    >>> pick_levels([0.0, 0.4, 2.0, 6.4, 12.0])
    [2.0, 6.4, 12.0]
    >>> pick_levels([0.0, 0.4])
    [0.4]
    """
    levels = np.asarray(grid, dtype=np.float64)
    out: list[float] = []
    for target in wanted:
        level = float(levels[np.argmin(np.abs(levels - target))])
        if level not in out:
            out.append(level)
    return out


def risk_coverage_cells(
    seed: int, noises: Sequence[float], config: SyntheticConfig | None = None
) -> list[tuple[float, CellScores]]:
    """Recompute the per-sample scores of cells ``(seed, σ)``, as the sweep computes them.

    The dataset, the GCUL fit (:class:`simulations.gcul.GCUL` defaults, BLAS on one thread) and
    every rejector (:func:`simulations.rejectors.evaluate.score_cell`) are those of
    :func:`simulations.sweep.cell.compute_row`, so the curves end at the row's values.
    """
    config = config or SyntheticConfig()
    cells = []
    with single_threaded_blas():
        for noise in noises:
            data = make_dataset(seed, noise, config)
            model = GCUL().fit(data.X_train, data.y_train)
            cells.append((float(noise), score_cell(data, model, seed, noise, config)))
    return cells


@dataclass
class RiskCoveragePlot:
    """The figure of :func:`plot_risk_coverage` and its Axes, one per cell."""

    figure: Figure
    axes: list


def plot_risk_coverage(cells: Sequence[tuple[float, CellScores]], *, seed: int) -> RiskCoveragePlot:
    """Risk–coverage curves of every rejector, one panel per cell (module docstring).

    Parameters
    ----------
    cells : sequence of (σ, CellScores)
        From :func:`risk_coverage_cells`.
    seed : int
        The cells' seed (for the title).
    """
    if not cells:
        raise ValueError("plot_risk_coverage needs at least one cell")
    fig = Figure(figsize=(7.0, 2.9), layout="constrained")
    axes = fig.subplots(1, len(cells), sharey=False, squeeze=False)[0].tolist()
    handles = {}
    for ax, (noise, cell) in zip(axes, cells, strict=True):
        n = cell.gcul_accept.size
        top = 0.0
        for entry in registry.methods("rejector"):
            if entry.name not in cell.scores:
                continue
            curve = gcul_theory.risk_coverage_curve(cell.scores[entry.name], cell.wrong[entry.name])
            start = min(_MIN_ACCEPTED, n) - 1
            x, y = curve.coverage[start:], curve.selective_risk[start:]
            style = entry.style
            (line,) = ax.plot(
                x,
                y,
                color=style.colour,
                linestyle=style.linestyle,
                linewidth=style.width,
                label=entry.label,
                zorder=3 if entry.name in ("gcul", "bayes") else 2,
            )
            handles[entry.name] = line
            top = max(top, float(y.max()))
            if entry.name == "bayes":
                ax.fill_between(x, 0.0, y, color="0.88", linewidth=0, zorder=1)
        m = cell.n_accept
        if m:
            risk = float(np.count_nonzero(cell.wrong["gcul"] & cell.gcul_accept) / m)
            (point,) = ax.plot(
                [m / n],
                [risk],
                marker="o",
                markersize=6,
                markerfacecolor="white",
                markeredgecolor=registry.method("gcul").style.colour,
                markeredgewidth=1.6,
                linestyle="none",
                zorder=4,
                label="GCUL's accept set",
            )
            handles["point"] = point
            ax.axvline(m / n, color="0.6", linewidth=0.6, linestyle=":", zorder=1)
        ax.set_xlim(0.0, 1.0)
        ax.set_ylim(0.0, min(1.0, 1.08 * top) if top > 0 else 1.0)
        ax.set_title(f"σ = {noise:g}", fontsize=FONT_SIZE + 1)
        ax.set_xlabel("coverage (share accepted)", fontsize=FONT_SIZE)
        _style(ax)
    axes[0].set_ylabel("selective risk (error among accepted)", fontsize=FONT_SIZE)
    order = [e.name for e in registry.methods("rejector") if e.name in handles] + (
        ["point"] if "point" in handles else []
    )
    fig.legend(
        [handles[k] for k in order],
        [handles[k].get_label() for k in order],
        loc="outside lower center",
        ncol=5,
        fontsize=FONT_SIZE - 0.5,
        frameon=False,
    )
    fig.suptitle(
        f"Risk–coverage curves of every rejector on the test split (seed {seed})\n"
        "circle: GCUL's own accept set; grey: below the Bayes floor, out of any rejector's reach "
        "(up to test-set noise)",
        fontsize=FONT_SIZE + 1,
    )
    return RiskCoveragePlot(fig, axes)


@dataclass
class BaselinesPlot:
    """The figure of :func:`plot_baselines`: ``risk`` and ``excess`` Axes."""

    figure: Figure
    risk: Any
    excess: Any


def plot_baselines(results: Sequence[Mapping[str, Any]] | Mapping[str, Any]) -> BaselinesPlot:
    """Selective risk at GCUL's coverage against σ, one line per rejector, and its excess over
    the Bayes limit (mean over seeds; cells where GCUL accepts nothing left out)."""
    if isinstance(results, Mapping):
        cols = {k: np.asarray(results[k], dtype=np.float64) for k in results}
    else:
        cols = {k: np.array([float(row[k]) for row in results]) for k in results[0]}
    noise = cols["noise"]
    levels = np.unique(noise)
    n_seeds = np.unique(cols["seed"]).size

    def level_means(column: np.ndarray) -> np.ndarray:
        out = np.full(levels.size, np.nan)
        for i, level in enumerate(levels):
            values = column[(noise == level) & ~np.isnan(column)]
            if values.size:
                out[i] = values.mean()
        return out

    fig = Figure(figsize=(7.0, 2.9), layout="constrained")
    risk_ax, excess_ax = fig.subplots(1, 2)
    bayes = level_means(cols["sel_risk_bayes"])
    for entry in registry.methods("rejector"):
        style = entry.style
        risk = level_means(cols[f"sel_risk_{entry.name}"])
        kwargs = dict(
            color=style.colour, linestyle=style.linestyle, linewidth=style.width, label=entry.label
        )
        risk_ax.plot(levels, risk, **kwargs)
        if entry.name != "bayes":
            excess = level_means(cols[f"sel_risk_{entry.name}"] - cols["sel_risk_bayes"])
            excess_ax.plot(levels, excess, **kwargs)
    risk_ax.fill_between(levels, 0.0, bayes, color="0.88", linewidth=0, zorder=1)
    excess_ax.axhline(0.0, color="black", linewidth=2.2)
    for band_edge in (4.0, 10.0):
        for ax in (risk_ax, excess_ax):
            ax.axvline(band_edge, color="0.6", linewidth=0.6, linestyle=":")
    risk_ax.set_ylabel("selective risk at GCUL's coverage", fontsize=FONT_SIZE)
    excess_ax.set_ylabel("excess over Bayes (risk − Bayes risk)", fontsize=FONT_SIZE)
    risk_ax.set_title("(a) every rejector at GCUL's accepted count", fontsize=FONT_SIZE + 1)
    excess_ax.set_title("(b) distance to the Bayes limit", fontsize=FONT_SIZE + 1)
    for ax in (risk_ax, excess_ax):
        ax.set_xlabel("noise level σ", fontsize=FONT_SIZE)
        ax.set_xlim(float(levels[0]), float(levels[-1]))
        _style(ax)
    risk_ax.set_ylim(bottom=0.0)
    handles, labels = risk_ax.get_legend_handles_labels()
    fig.legend(
        handles, labels, loc="outside lower center", ncol=4, fontsize=FONT_SIZE - 0.5, frameon=False
    )
    fig.suptitle(
        f"Test split, mean over {n_seeds} seeds; dotted: the σ bands of the baselines table",
        fontsize=FONT_SIZE + 1,
    )
    return BaselinesPlot(fig, risk_ax, excess_ax)


def _style(ax) -> None:
    ax.tick_params(labelsize=FONT_SIZE, width=0.8, length=3)
    ax.grid(True, color="0.9", linewidth=0.5)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
