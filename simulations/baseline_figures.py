r"""Figures of the selective-classification comparison: risk–coverage curves and risk against σ.

- :func:`plot_risk_coverage`: the risk–coverage curve of every rejector of
  :data:`simulations.rejectors.REJECTORS` in three cells (one seed, a low, a mid and a high σ),
  GCUL's operating point marked, the Bayes curve drawn as the floor, thin and under every other
  curve (the region below it shaded: no rejector reaches it in expectation), GCUL on top. The per-sample scores are not in ``results.csv``: they
  are recomputed for the three cells (:func:`risk_coverage_cells`), deterministically, exactly as
  the sweep computes them.
- :func:`plot_baselines`: the selective risk at GCUL's coverage against σ, one line per rejector
  (mean over seeds), its excess over the Bayes limit, and that excess magnified at low σ.

Drawn on :class:`matplotlib.figure.Figure` objects (never ``pyplot``), saved with
:func:`simulations.figures.save_figure` (atomic). Colours are Okabe–Ito with distinct line styles
and markers (readable in greyscale); every mark is named in the legend.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

import gcul_theory
from simulations import registry
from simulations.figures import (
    COINCIDE_SHARE,
    FONT_SIZE,
    NOISE_LABEL,
    SINGLE_LEVEL_WINDOW,
    coincidence_notes,
    coinciding_curves,
    rejector_line_kwargs,
)
from simulations.figures.style import mark_coverage, mark_operating_point
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
    from simulations.gcul import GCUL  # here: scikit-learn loads where a fit runs, not on import

    config = config or SyntheticConfig()
    cells = []
    with single_threaded_blas():
        for noise in noises:
            data = make_dataset(seed, noise, config)
            model = GCUL().fit(data.X_train, data.y_train)
            cells.append((float(noise), score_cell(data, model, seed)))
    return cells


_FLOOR_FILL = "0.90"  # the region below the Bayes risk
_FLOOR_ZORDER = 1.0


def _line_kwargs(entry: Any, names: Sequence[str], marked: bool = True) -> dict[str, Any]:
    return rejector_line_kwargs(entry.name, names, marked=marked)


def _floor_patch() -> Patch:
    return Patch(facecolor=_FLOOR_FILL, edgecolor="none", label="below the Bayes risk")


@dataclass
class RiskCoveragePlot:
    """The figure of :func:`plot_risk_coverage` and its Axes, one per cell; ``lines`` holds,
    per Axes, each rejector's curve by name; ``legend`` is the figure's legend, whose title
    names the curves that coincide; ``coincide`` holds, per Axes, those groups
    (:func:`coinciding_curves`)."""

    figure: Figure
    axes: list
    lines: list = field(default_factory=list)
    legend: Any = None
    coincide: list = field(default_factory=list)


def plot_risk_coverage(cells: Sequence[tuple[float, CellScores]], *, seed: int) -> RiskCoveragePlot:
    """Risk–coverage curves of every rejector, one panel per cell (module docstring).

    The Bayes curve is a thin black line over a shaded floor (nothing reaches below it, up to
    test-set noise), drawn under every other curve; GCUL is drawn on top, then MSP; every other
    curve carries its own markers, spread so that curves on one another show each marker side
    by side. Curves that lie on one another (at σ = 2 five curves lie at zero risk up to a
    coverage of about 0.8, the Bayes floor, which has no marker, under them) are named in the
    legend's title, with the coverage where they coincide (:func:`coinciding_curves`, within
    :data:`COINCIDE_SHARE` of the panel's height). The y-axis starts a little below 0, so a
    curve at zero risk is drawn above the axis, not on it.

    Parameters
    ----------
    cells : sequence of (σ, CellScores)
        From :func:`risk_coverage_cells`.
    seed : int
        The cells' seed (for the title).
    """
    if not cells:
        raise ValueError("plot_risk_coverage needs at least one cell")
    fig = Figure(figsize=(7.0, 3.2), layout="constrained")
    axes = fig.subplots(1, len(cells), sharey=False, squeeze=False)[0].tolist()
    entries = list(registry.methods("rejector"))
    names = [e.name for e in entries]
    handles: dict[str, Any] = {}
    drawn_lines, coincide = [], []
    for ax, (noise, cell) in zip(axes, cells, strict=True):
        n = cell.gcul_accept.size
        top = 0.0
        lines = {}
        drawn: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for entry in entries:
            if entry.name not in cell.scores:
                continue
            curve = gcul_theory.risk_coverage_curve(cell.scores[entry.name], cell.wrong[entry.name])
            start = min(_MIN_ACCEPTED, n) - 1
            x, y = curve.coverage[start:], curve.selective_risk[start:]
            (line,) = ax.plot(x, y, **_line_kwargs(entry, names))
            lines[entry.name] = handles[entry.name] = line
            drawn[entry.name] = (x, y)
            top = max(top, float(y.max()))
            if entry.name == "bayes":
                ax.fill_between(
                    x, -1.0, y, color=_FLOOR_FILL, linewidth=0, zorder=_FLOOR_ZORDER
                )
        drawn_lines.append(lines)
        m = cell.n_accept
        if m:
            risk = float(np.count_nonzero(cell.wrong["gcul"] & cell.gcul_accept) / m)
            handles["point"] = mark_operating_point(ax, m / n, risk, "GCUL's accept set")
            handles["coverage"] = mark_coverage(ax, m / n)
        ax.set_xlim(0.0, 1.0)
        high = min(1.0, 1.08 * top) if top > 0 else 1.0
        ax.set_ylim(-0.03 * high, high)  # a curve at zero risk stays above the x-axis
        topmost = sorted(drawn, key=lambda name: -lines[name].get_zorder())
        coincide.append(
            coinciding_curves({k: drawn[k] for k in topmost}, tol=COINCIDE_SHARE * 1.03 * high)
        )
        ax.set_title(f"σ = {noise:g}", fontsize=FONT_SIZE + 1)
        ax.set_xlabel("coverage (share accepted)", fontsize=FONT_SIZE)
        _style(ax)
    axes[0].set_ylabel("selective risk (error among accepted)", fontsize=FONT_SIZE)
    order = [name for name in names if name in handles]
    legend_handles = [handles[k] for k in order] + [_floor_patch()]
    legend_labels = [handles[k].get_label() for k in order] + ["below the Bayes risk"]
    if "point" in handles:
        legend_handles += [handles["point"], handles["coverage"]]
        legend_labels += ["GCUL's accept set", "GCUL's coverage"]
    notes = coincidence_notes(
        {f"σ = {noise:g}": groups for (noise, _), groups in zip(cells, coincide, strict=True)},
        {e.name: e.label for e in entries},
        names,
    )
    legend = fig.legend(
        legend_handles,
        legend_labels,
        loc="outside lower center",
        ncol=4,
        fontsize=FONT_SIZE - 0.5,
        frameon=False,
        title="\n".join(notes) if notes else None,
        title_fontsize=FONT_SIZE - 0.5,
    )
    fig.suptitle(
        f"Risk–coverage curves of every rejector on the test split (seed {seed})\n"
        "Bayes (oracle): the floor, thin, with the region below it shaded; GCUL drawn on top",
        fontsize=FONT_SIZE + 1,
    )
    return RiskCoveragePlot(fig, axes, drawn_lines, legend, coincide)


@dataclass
class BaselinesPlot:
    """The figure of :func:`plot_baselines`: ``risk``, ``excess`` and ``zoom`` Axes; ``lines``
    maps each Axes' name to its rejectors' lines by name; ``legend`` is the figure's legend;
    ``off_scale`` the rejectors the magnified panel leaves out (their excess is off its scale)
    and ``off_scale_note`` the text that names them on that panel (None when it leaves none out).
    """

    figure: Figure
    risk: Any
    excess: Any
    zoom: Any = None
    lines: dict = field(default_factory=dict)
    legend: Any = None
    off_scale: list = field(default_factory=list)
    off_scale_note: Any = None


ZOOM_UP_TO = 6.0
"""Panel (c) of :func:`plot_baselines` magnifies the noise levels σ ≤ this, where the rejectors
near the Bayes floor lie within a few thousandths of one another."""

EDGE_MARGIN = 0.04
"""The margin left of the first and right of the last noise level in each panel of
:func:`plot_baselines`, as a share of the range: wider than a marker's radius plus its edge
((4.2 + 1.0) / 2 pt = 0.036 in) in the narrowest panel (about 1.6 in wide at 7 in)."""

_BAND_EDGES = (4.0, 10.0)  # the σ bands of simulations.baselines.BANDS


def _note_share(lines: int) -> float:
    """The share of panel (c)'s height its off-scale note of ``lines`` lines takes: 6.5 pt
    lines spaced 1.2 apart, plus a line's worth of margin, on a panel at least 1.5 in (108 pt)
    high (about 1.9 in in the 7 x 3.1 in figure)."""
    return (lines + 1) * (FONT_SIZE - 1.5) * 1.2 / 108.0


def plot_baselines(results: Sequence[Mapping[str, Any]] | Mapping[str, Any]) -> BaselinesPlot:
    """Selective risk at GCUL's coverage against σ, one line per rejector, and its excess over
    the Bayes limit (mean over seeds; cells where GCUL accepts nothing left out).

    Three panels: (a) the risk of every rejector, the region below the Bayes risk shaded; (b) the
    excess over the Bayes risk of every rejector; (c) that excess magnified, for σ ≤
    :data:`ZOOM_UP_TO` and the rejectors that stay within a quarter of the largest excess there
    (the ones that overlap in (a) and (b)); the rejectors it leaves out, which the figure's
    legend lists, are named on it with the range of their excess there ("off scale: …"). Every
    line carries its rejector's markers; the σ band edges of the baselines table (σ = 4, 10) are
    dotted where the grid reaches them, and named in the legend only then.
    """
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

    fig = Figure(figsize=(7.0, 3.1), layout="constrained")
    risk_ax, excess_ax, zoom_ax = fig.subplots(1, 3, width_ratios=(1.0, 1.0, 0.8))
    entries = list(registry.methods("rejector"))
    names = [e.name for e in entries]
    bayes = level_means(cols["sel_risk_bayes"])
    excess = {
        e.name: level_means(cols[f"sel_risk_{e.name}"] - cols["sel_risk_bayes"])
        for e in entries
        if e.name != "bayes"
    }
    low = levels <= ZOOM_UP_TO + 1e-9 if levels[0] <= ZOOM_UP_TO else np.ones(levels.size, bool)
    largest = max(float(np.nanmax(np.abs(v[low]), initial=0.0)) for v in excess.values())
    close = [
        name
        for name, values in excess.items()
        if float(np.nanmax(np.abs(values[low]), initial=0.0)) <= 0.25 * largest
    ]
    lines: dict[str, dict[str, Any]] = {"risk": {}, "excess": {}, "zoom": {}}
    risk_ax.fill_between(levels, -1.0, bayes, color=_FLOOR_FILL, linewidth=0, zorder=_FLOOR_ZORDER)
    for entry in entries:
        kwargs = _line_kwargs(entry, names)
        (lines["risk"][entry.name],) = risk_ax.plot(
            levels, level_means(cols[f"sel_risk_{entry.name}"]), **kwargs
        )
        if entry.name == "bayes":
            continue
        (lines["excess"][entry.name],) = excess_ax.plot(levels, excess[entry.name], **kwargs)
        if entry.name in close:
            (lines["zoom"][entry.name],) = zoom_ax.plot(
                levels[low], excess[entry.name][low], **kwargs
            )
    for panel, ax in (("excess", excess_ax), ("zoom", zoom_ax)):  # Bayes: zero excess
        lines[panel]["bayes"] = ax.axhline(
            0.0, **_line_kwargs(registry.method("bayes"), names, marked=False)
        )
    edges = [edge for edge in _BAND_EDGES if levels[0] < edge < levels[-1]]
    for edge in edges:
        for ax in (risk_ax, excess_ax):
            ax.axvline(edge, color="0.45", linewidth=0.7, linestyle=":", zorder=1.2)
    risk_ax.set_ylabel("selective risk at GCUL's coverage", fontsize=FONT_SIZE)
    excess_ax.set_ylabel("excess over Bayes (risk − Bayes risk)", fontsize=FONT_SIZE)
    risk_ax.set_title("(a) risk at GCUL's accepted count", fontsize=FONT_SIZE)
    excess_ax.set_title("(b) distance to the Bayes limit", fontsize=FONT_SIZE)
    zoom_high = float(levels[low][-1])
    zoom_ax.set_title(f"(c) (b) magnified, σ ≤ {zoom_high:g}", fontsize=FONT_SIZE)
    # the legend lists every rejector: the panel says which it leaves out, and why, in a band
    # above its curves (its y-range grows by that band, so the note covers none of them)
    off_scale = [name for name in excess if name not in close]
    note = None
    if off_scale:
        ranges = []
        for name in off_scale:
            values = excess[name][low][~np.isnan(excess[name][low])]
            text = f"{values.min():.3f}–{values.max():.3f}" if values.size else "no value"
            ranges.append(f"{registry.method(name).label}: {text}")
        note = zoom_ax.text(
            0.03, 0.98, "\n".join([f"off scale, excess at σ ≤ {zoom_high:g}:", *ranges]),
            transform=zoom_ax.transAxes, ha="left", va="top", fontsize=FONT_SIZE - 1.5,
            linespacing=1.2, zorder=6,
        )  # fmt: skip
        drawn = [0.0] + [float(v) for n in close for v in excess[n][low] if not np.isnan(v)]
        bottom, top = min(drawn), max(drawn)
        height = top - bottom if top > bottom else 1e-3
        bottom, top = bottom - 0.05 * height, top + 0.05 * height
        zoom_ax.set_ylim(bottom, bottom + (top - bottom) / (1.0 - _note_share(len(ranges) + 1)))
    for ax in (risk_ax, excess_ax, zoom_ax):
        ax.set_xlabel(NOISE_LABEL, fontsize=FONT_SIZE)
        _style(ax)
    # a margin of EDGE_MARGIN of the range each side, so that no marker at the first or last
    # level is cut by the panel's edge; one level alone is shown within SINGLE_LEVEL_WINDOW
    for ax, (lo, hi) in (
        (risk_ax, (float(levels[0]), float(levels[-1]))),
        (excess_ax, (float(levels[0]), float(levels[-1]))),
        (zoom_ax, (float(levels[0]), zoom_high)),
    ):
        pad = EDGE_MARGIN * (hi - lo) if hi > lo else SINGLE_LEVEL_WINDOW
        ax.set_xlim(lo - pad, hi + pad)
    risk_top = float(np.nanmax([np.nanmax(v.get_ydata()) for v in lines["risk"].values()]))
    risk_ax.set_ylim(-0.03 * risk_top, 1.05 * risk_top)
    handles = [lines["risk"][name] for name in names]
    labels = [h.get_label() for h in handles]
    handles.append(_floor_patch())
    labels.append("below the Bayes risk (a)")
    if edges:
        handles.append(Line2D([], [], color="0.45", linewidth=0.7, linestyle=":"))
        labels.append("σ bands of the baselines table")
    legend = fig.legend(
        handles, labels, loc="outside lower center", ncol=4, fontsize=FONT_SIZE - 0.5,
        frameon=False,
    )  # fmt: skip
    seeds = f"{n_seeds} seed{'s' if n_seeds != 1 else ''}"
    fig.suptitle(f"Test split, mean over {seeds}", fontsize=FONT_SIZE + 1)
    return BaselinesPlot(fig, risk_ax, excess_ax, zoom_ax, lines, legend, off_scale, note)


def _style(ax) -> None:
    ax.tick_params(labelsize=FONT_SIZE, width=0.8, length=3)
    ax.grid(True, color="0.9", linewidth=0.5)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
