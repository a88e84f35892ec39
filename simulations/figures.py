"""Figures of the synthetic experiment: the phase transition of λ* (``fig:synthetic_dynamics``)
and the same picture for every λ* predictor, one small panel each.

Everything is drawn on :class:`matplotlib.figure.Figure` objects, never through ``pyplot``: a
script or a CLI can save figures without a display and without touching the user's backend, and
``show()`` is never called.  A plotting function takes an ``ax`` (or makes a single-column figure,
3.4 in wide, 8 pt text) and returns a small dataclass holding the Axes and the artists it drew.

Colours are Okabe–Ito (colour-blind safe); the curves also differ by line style, so the figure
reads in greyscale.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from simulations.outputs import atomic_write_bytes
from simulations.report import (
    CERTIFIED,
    LAMBDA_TARGET,
    Results,
    _check_lam,
    _check_methods,
    _columns,
    _is_valid,
    _label,
    _noise_key,
    _registry_entry,
    judged_columns,
    judged_methods,
    violation_masks,
)

__all__ = [
    "AccuracyPlot",
    "PhaseTransitionPlot",
    "PredictorsPlot",
    "SeedSummary",
    "plot_accuracy",
    "plot_phase_transition",
    "plot_predictors",
    "save_figure",
    "summarize_across_seeds",
]

#: Okabe & Ito (2008) colour-blind-safe palette.
OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
}

FONT_SIZE = 8
SINGLE_COLUMN_SIZE = (3.4, 2.6)  # inches: one column of a two-column paper
_LINE_WIDTH = 2.0
_BAND_ALPHA = 0.22

CROWDED_SEEDS = 20
"""Above this many seeds (twice the paper's 10) a figure stays readable by drawing, instead of the
min–max band, the 5–95% band over seeds (a min–max over 100 seeds is drawn by its outliers), and
the violating cells as small translucent marks under the mean lines (thousands of them otherwise
hide the lines)."""
_CROWDED_BAND = (5.0, 95.0)
_SAVE_FORMATS = ("png", "pdf")
_KNOWN_SUFFIXES = {"png", "pdf", "svg", "eps", "ps", "jpg", "jpeg", "tif", "tiff", "webp"}

_PRE_LABEL = r"$\lambda^*_{\mathrm{PRE}}$"
_EMP_LABEL = r"$\lambda^*_{\mathrm{EMP}}$"
_CERT_LABEL = r"$\lambda^*_{\mathrm{CERT}}$"


# --------------------------------------------------------------------------------------------
# Aggregation
# --------------------------------------------------------------------------------------------


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
    cols = _columns(results, ("seed", "noise", column), f"the across-seed summary of {column!r}")
    keys = _noise_key(cols["noise"])
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


# --------------------------------------------------------------------------------------------
# Saving
# --------------------------------------------------------------------------------------------


def save_figure(
    fig: Figure,
    path: str | Path,
    *,
    formats: Sequence[str] = _SAVE_FORMATS,
    dpi: int = 200,
) -> list[Path]:
    """Save ``fig`` and return the paths written.

    If ``path`` ends in an image suffix (``.png``, ``.pdf``, ``.svg``, ...), write that one file;
    otherwise treat it as a stem and write ``stem.png`` and ``stem.pdf`` (or ``formats``).
    Raster output uses ``dpi`` (200); PDF embeds TrueType fonts (``pdf.fonttype`` 42, as journals
    ask) and carries no creation date, so re-saving an unchanged figure gives the same file.
    Parent directories are created.

    Each file is drawn into memory and written atomically
    (:func:`simulations.outputs.atomic_write_bytes`): a process killed while saving leaves the
    previous file whole (it left truncated PDFs), and a symbolic link at the destination is
    replaced by the file, never written through.
    """
    path = Path(path)
    suffix = path.suffix.lower().lstrip(".")
    if suffix in _KNOWN_SUFFIXES:
        targets = [path]
    else:
        if isinstance(formats, str) or not formats:
            raise ValueError(f"formats must be a non-empty sequence of suffixes; got {formats!r}")
        for fmt in formats:
            if fmt.lower().lstrip(".") not in _KNOWN_SUFFIXES:
                raise ValueError(
                    f"unknown figure format {fmt!r}; allowed: {sorted(_KNOWN_SUFFIXES)}"
                )
        targets = [path.with_name(f"{path.name}.{fmt.lower().lstrip('.')}") for fmt in formats]
    written = []
    for target in targets:
        target.parent.mkdir(parents=True, exist_ok=True)
        fmt = target.suffix.lower().lstrip(".")
        metadata = {"pdf": {"CreationDate": None}, "svg": {"Date": None}}.get(fmt)
        buffer = io.BytesIO()
        with matplotlib.rc_context({"pdf.fonttype": 42, "ps.fonttype": 42, "svg.hashsalt": "gcul"}):
            fig.savefig(buffer, format=fmt, dpi=dpi, metadata=metadata)
        written.append(atomic_write_bytes(target, buffer.getvalue()))
    return written


def _crowding(n_seeds: int) -> tuple[tuple[float, float] | None, str, dict]:
    """The band's percentiles (None: min–max), its description and the style of the violation
    marks, for a grid of ``n_seeds`` seeds (see :data:`CROWDED_SEEDS`)."""
    if n_seeds <= CROWDED_SEEDS:
        return None, "min–max", {}
    low, high = _CROWDED_BAND
    return _CROWDED_BAND, f"{low:g}–{high:g}% of seeds", {"alpha": 0.35, "zorder": 2.5}


def _new_axes(ax: Axes | None) -> Axes:
    if ax is not None:
        if not isinstance(ax, Axes):
            raise TypeError(f"ax must be a matplotlib Axes; got {type(ax).__name__}")
        return ax
    fig = Figure(figsize=SINGLE_COLUMN_SIZE, layout="constrained")
    return fig.add_subplot()


def _style_axes(ax: Axes) -> None:
    ax.xaxis.set_major_locator(MaxNLocator(nbins=8, steps=[1, 2, 4, 5, 10]))
    ax.tick_params(labelsize=FONT_SIZE, width=0.8, length=3)
    ax.grid(True, axis="both", color="0.85", linewidth=0.5)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


# --------------------------------------------------------------------------------------------
# The phase transition of λ*
# --------------------------------------------------------------------------------------------


@dataclass
class PhaseTransitionPlot:
    """What :func:`plot_phase_transition` drew."""

    ax: Axes
    pre: Line2D  # mean λ*_PRE over seeds
    emp: Line2D  # mean λ*_EMP over seeds
    pre_band: PolyCollection  # min–max of λ*_PRE over seeds (5–95% above CROWDED_SEEDS seeds)
    emp_band: PolyCollection  # min–max of λ*_EMP over seeds (5–95% above CROWDED_SEEDS seeds)
    target: Line2D  # horizontal line at λ
    type_i: Line2D  # markers at (σ, λ*_EMP) of the Type-I cells
    type_ii: Line2D  # markers at (σ, λ*_EMP) of the Type-II cells
    legend: Legend
    paths: list[Path] = field(default_factory=list)

    @property
    def figure(self) -> Figure:
        return self.ax.figure


def plot_phase_transition(
    results: Results,
    path: str | Path | None = None,
    *,
    lam: float = LAMBDA_TARGET,
    method: str = "union",
    ax: Axes | None = None,
) -> PhaseTransitionPlot:
    """Plot λ*_PRE and λ*_EMP against the noise level σ (the paper's ``fig:synthetic_dynamics``).

    Two lines, the across-seed means of λ*_PRE (bound ``method``; solid, blue) and λ*_EMP
    (dashed, vermillion), each with a shaded band from the minimum to the maximum over seeds; the
    target λ as a dotted black line; and every violating (seed, σ) cell marked at its own
    (σ, λ*_EMP): Type-I (λ*_PRE < λ ≤ λ*_EMP) as open circles, Type-II (λ*_EMP < λ ≤ λ*_PRE) as
    crosses, with their counts in the legend.

    Parameters
    ----------
    results : list of dict or dict of arrays
        The sweep's cells; needs ``seed``, ``noise``, ``lambda_emp`` and ``lambda_pre_<method>``.
    path : str or Path, optional
        Where to save: a file name with a suffix, or a stem for ``stem.png`` and ``stem.pdf``
        (see :func:`save_figure`).  The paths written are in the result's ``paths``.
    lam : float, default 0.15
        The target rejection cost λ.
    method : str, default "union"
        The predictor drawn: a name of :data:`gcul_theory.PREDICTORS` (``"union"`` is the
        paper's) or ``"certified"`` (λ*_CERT against λ*_EMP of the model it certifies).
    ax : Axes, optional
        Draw here; otherwise a new single-column figure (3.4 x 2.6 in) is made without pyplot.

    Returns
    -------
    PhaseTransitionPlot
        The Axes and the artists drawn; never calls ``show()``.
    """
    lam = _check_lam(lam)
    pre_column, emp_column = judged_columns(method)
    cols = _columns(results, ("seed", "noise", emp_column, pre_column), "the phase-transition plot")
    n_seeds = len(np.unique(cols["seed"]))
    spread, band_text, crowded = _crowding(n_seeds)
    pre = summarize_across_seeds(cols, pre_column, spread)
    emp = summarize_across_seeds(cols, emp_column, spread)
    type_i, type_ii = violation_masks(cols, lam, method)

    ax = _new_axes(ax)
    _style_axes(ax)
    blue, vermillion = OKABE_ITO["blue"], OKABE_ITO["vermillion"]
    pre_band = ax.fill_between(
        pre.noise, pre.low, pre.high, color=blue, alpha=_BAND_ALPHA, linewidth=0, zorder=1
    )
    emp_band = ax.fill_between(
        emp.noise, emp.low, emp.high, color=vermillion, alpha=_BAND_ALPHA, linewidth=0, zorder=1
    )
    target = ax.axhline(lam, color=OKABE_ITO["black"], linestyle=":", linewidth=1.3, zorder=2)
    (pre_line,) = ax.plot(
        pre.noise, pre.mean, color=blue, linestyle="-", linewidth=_LINE_WIDTH, zorder=3
    )
    (emp_line,) = ax.plot(
        emp.noise, emp.mean, color=vermillion, linestyle=(0, (4, 1.5)), linewidth=_LINE_WIDTH,
        zorder=3,
    )  # fmt: skip
    (type_i_markers,) = ax.plot(
        cols["noise"][type_i], cols[emp_column][type_i], linestyle="none", marker="o",
        markersize=3.5, markerfacecolor="none", markeredgecolor=OKABE_ITO["black"],
        markeredgewidth=0.8, **({"zorder": 4} | crowded),
    )  # fmt: skip
    (type_ii_markers,) = ax.plot(
        cols["noise"][type_ii], cols[emp_column][type_ii], linestyle="none", marker="x",
        markersize=4, markeredgecolor=OKABE_ITO["purple"], markeredgewidth=1.2,
        **({"zorder": 4} | crowded),
    )  # fmt: skip

    lo, hi = float(cols["noise"].min()), float(cols["noise"].max())
    pad = 0.015 * (hi - lo) if hi > lo else 0.5
    ax.set_xlim(lo - pad, hi + pad)
    ax.margins(y=0.04)
    ax.set_xlabel(r"Noise level $\sigma_{\mathrm{noise}}$", fontsize=FONT_SIZE)
    ax.set_ylabel(r"Critical rejection cost $\lambda^*$", fontsize=FONT_SIZE)

    seeds = f"{n_seeds} seed{'s' if n_seeds != 1 else ''}"
    handles = [(pre_band, pre_line), (emp_band, emp_line), target]
    labels = [
        f"{_CERT_LABEL if method == CERTIFIED else _PRE_LABEL} ({_label(method)})",
        _EMP_LABEL,
        rf"$\lambda_{{\mathrm{{target}}}} = {lam:g}$",
    ]
    title = f"mean of {seeds}\nband: {band_text}"
    # A legend entry only for a mark that is drawn; a kind with no cell is said in the title.
    for markers, kind, count in (
        (type_i_markers, "Type-I", int(type_i.sum())),
        (type_ii_markers, "Type-II", int(type_ii.sum())),
    ):
        if count:
            handles.append(markers)
            labels.append(f"{kind} violation ({count})")
        else:
            title += f"\nno {kind} violation"
    legend = ax.legend(
        handles,
        labels,
        title=title,
        loc="upper right",
        fontsize=FONT_SIZE,
        title_fontsize=FONT_SIZE,
        frameon=True,
        framealpha=0.9,
        edgecolor="none",
        handlelength=2.2,
        handletextpad=0.5,
        labelspacing=0.25,
        borderpad=0.3,
        borderaxespad=0.2,
        alignment="left",
    )
    drawn = PhaseTransitionPlot(
        ax=ax,
        pre=pre_line,
        emp=emp_line,
        pre_band=pre_band,
        emp_band=emp_band,
        target=target,
        type_i=type_i_markers,
        type_ii=type_ii_markers,
        legend=legend,
    )
    if path is not None:
        drawn.paths = save_figure(ax.figure, path)
    return drawn


# --------------------------------------------------------------------------------------------
# Every predictor, one panel each
# --------------------------------------------------------------------------------------------

PANEL_COLUMNS = 4  # panels per row of plot_predictors
PANEL_SIZE = (1.75, 1.6)  # inches per panel: four panels span a two-column page (7 in)


@dataclass
class PredictorsPlot:
    """What :func:`plot_predictors` drew: one panel per predictor, plus a key panel.

    ``axes``, ``type_i``, ``type_ii`` and ``legends`` are keyed by predictor name, in panel
    order; ``legends[name]`` is None for a panel with no violation to mark (it has no legend at
    all). ``counts[name]`` is ``(type_i, type_ii)``. ``key`` is the shared legend of the lines
    (and of the markers that appear in some panel), drawn in its own empty panel.
    """

    figure: Figure
    axes: dict[str, Axes]
    type_i: dict[str, Line2D]
    type_ii: dict[str, Line2D]
    legends: dict[str, Legend | None]
    counts: dict[str, tuple[int, int]]
    key: Legend
    paths: list[Path] = field(default_factory=list)


def _validity_word(method: str) -> str:
    """What a panel title says of a predictor: from the registry's ``valid`` and ``kind``."""
    if method == CERTIFIED:
        return "finite-sample valid"
    if _is_valid(method):
        return "valid"
    entry = _registry_entry(method)
    return "model value" if entry.kind == "model" else "not valid"


def plot_predictors(
    results: Results,
    path: str | Path | None = None,
    *,
    lam: float = LAMBDA_TARGET,
    methods: Sequence[str] | None = None,
) -> PredictorsPlot:
    """One small panel per λ* predictor: its λ* and λ*_EMP against σ, violations marked.

    Every panel draws, like :func:`plot_phase_transition`, the across-seed mean of the
    predictor's λ* (solid, blue) and of the λ*_EMP it is judged against (dashed, vermillion), each
    with its min–max band over seeds (5–95% above :data:`CROWDED_SEEDS` seeds, where the marks
    are also small and translucent), the target λ (dotted), and each violating (seed, σ) cell at
    its own (σ, λ*_EMP): Type-I as open circles, Type-II as crosses. The certified panel draws
    λ*_CERT against λ*_EMP of the model it certifies (``lambda_emp_cert``). The title names the
    predictor, whether it is valid (the registry's ``valid`` and ``kind``: "valid", "not
    valid", "model value"; "finite-sample valid" for the certified one) and its counts; a
    panel's legend lists only the kinds of violation it marks, and a panel with none has no
    legend. A last, empty panel holds the key
    of the lines. Panels share both axes, so a reader compares them at a glance.

    Parameters
    ----------
    results : list of dict or dict of arrays
        The sweep's cells; needs ``seed``, ``noise`` and the columns of
        :func:`simulations.report.judged_columns` of every predictor drawn.
    path : str or Path, optional
        Where to save (see :func:`save_figure`); the paths written are in ``paths``.
    lam : float, default 0.15
        The target rejection cost λ.
    methods : sequence of str, optional
        The predictors, one panel each, in this order; by default every predictor of
        :data:`gcul_theory.PREDICTORS` (read at call time), ``"certified"``, and
        ``"certified_noisy"`` where ``results`` has its column
        (:func:`simulations.report.judged_methods`).

    Returns
    -------
    PredictorsPlot
        The figure, its Axes and the artists drawn; never calls ``show()``.
    """
    lam = _check_lam(lam)
    methods = _check_methods(judged_methods(results) if methods is None else methods)
    judged = {method: judged_columns(method) for method in methods}
    needed = tuple(dict.fromkeys(("seed", "noise", *(c for pair in judged.values() for c in pair))))
    cols = _columns(results, needed, "the predictors figure")
    n_seeds = len(np.unique(cols["seed"]))
    spread, band_text, crowded = _crowding(n_seeds)

    n_panels = len(methods) + 1  # and the key
    ncols = min(PANEL_COLUMNS, n_panels)
    nrows = math.ceil(n_panels / ncols)
    fig = Figure(
        figsize=(PANEL_SIZE[0] * ncols, PANEL_SIZE[1] * nrows + 0.15), layout="constrained"
    )
    grid = fig.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False)
    flat = list(grid.ravel())
    blue, vermillion = OKABE_ITO["blue"], OKABE_ITO["vermillion"]
    small = FONT_SIZE - 1

    lo, hi = float(cols["noise"].min()), float(cols["noise"].max())
    pad = 0.015 * (hi - lo) if hi > lo else 0.5
    low_y = min(0.0, *(float(cols[pair[1]].min()) for pair in judged.values()))
    high_y = max(1.0, *(float(cols[c].max()) for pair in judged.values() for c in pair))

    axes, type_i_artists, type_ii_artists, legends, counts = {}, {}, {}, {}, {}
    for index, method in enumerate(methods):
        ax = flat[index]
        pre_column, emp_column = judged[method]
        pre = summarize_across_seeds(cols, pre_column, spread)
        emp = summarize_across_seeds(cols, emp_column, spread)
        type_i, type_ii = violation_masks(cols, lam, method)
        _style_axes(ax)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=4, steps=[1, 2, 4, 5, 10]))
        ax.tick_params(labelsize=small)
        ax.fill_between(pre.noise, pre.low, pre.high, color=blue, alpha=_BAND_ALPHA, linewidth=0)
        ax.fill_between(
            emp.noise, emp.low, emp.high, color=vermillion, alpha=_BAND_ALPHA, linewidth=0
        )
        ax.axhline(lam, color=OKABE_ITO["black"], linestyle=":", linewidth=1.0, zorder=2)
        ax.plot(pre.noise, pre.mean, color=blue, linestyle="-", linewidth=1.4, zorder=3)
        ax.plot(
            emp.noise, emp.mean, color=vermillion, linestyle=(0, (4, 1.5)), linewidth=1.4,
            zorder=3,
        )  # fmt: skip
        (type_i_artists[method],) = ax.plot(
            cols["noise"][type_i], cols[emp_column][type_i], linestyle="none", marker="o",
            markersize=3, markerfacecolor="none", markeredgecolor=OKABE_ITO["black"],
            markeredgewidth=0.7, **({"zorder": 4} | crowded),
        )  # fmt: skip
        (type_ii_artists[method],) = ax.plot(
            cols["noise"][type_ii], cols[emp_column][type_ii], linestyle="none", marker="x",
            markersize=3.5, markeredgecolor=OKABE_ITO["purple"], markeredgewidth=1.0,
            **({"zorder": 4} | crowded),
        )  # fmt: skip
        n_i, n_ii = int(type_i.sum()), int(type_ii.sum())
        counts[method] = (n_i, n_ii)
        validity = _validity_word(method)
        ax.set_title(
            f"{_label(method)} ({validity})\nType-I {n_i}, Type-II {n_ii}",
            fontsize=small,
            pad=3,
        )
        handles, labels = [], []
        if n_i:
            handles.append(type_i_artists[method])
            labels.append(f"Type-I ({n_i})")
        if n_ii:
            handles.append(type_ii_artists[method])
            labels.append(f"Type-II ({n_ii})")
        legends[method] = (
            ax.legend(
                handles,
                labels,
                loc="upper right",
                fontsize=small - 1,
                frameon=True,
                framealpha=0.85,
                edgecolor="none",
                handlelength=1.0,
                handletextpad=0.3,
                labelspacing=0.2,
                borderpad=0.25,
                borderaxespad=0.2,
            )  # fmt: skip
            if handles
            else None
        )
        axes[method] = ax
        row, column = divmod(index, ncols)
        if column == 0:
            ax.set_ylabel(r"$\lambda^*$", fontsize=small)
        if index + ncols >= len(methods):  # the lowest panel of its column
            ax.set_xlabel(r"$\sigma_{\mathrm{noise}}$", fontsize=small)
            ax.xaxis.set_tick_params(labelbottom=True)
    flat[0].set_xlim(lo - pad, hi + pad)
    flat[0].set_ylim(low_y - 0.03, high_y + 0.03)

    # The key: the lines every panel draws, and the markers that appear in at least one panel.
    key_ax = flat[len(methods)]
    for spare in flat[len(methods) :]:
        spare.set_axis_off()
    proxies = [
        Line2D([], [], color=blue, linewidth=1.4),
        Line2D([], [], color=vermillion, linestyle=(0, (4, 1.5)), linewidth=1.4),
        Line2D([], [], color=OKABE_ITO["black"], linestyle=":", linewidth=1.0),
    ]
    texts = [
        f"{_PRE_LABEL} of the panel's predictor\n({_CERT_LABEL} in Certified)",
        f"{_EMP_LABEL} (of the model\nit certifies, in Certified)",
        rf"$\lambda = {lam:g}$",
    ]
    if any(n_i for n_i, _ in counts.values()):
        proxies.append(next(a for m, a in type_i_artists.items() if counts[m][0]))
        texts.append(r"Type-I: $\lambda^* < \lambda \leq \lambda^*_{\mathrm{EMP}}$")
    if any(n_ii for _, n_ii in counts.values()):
        proxies.append(next(a for m, a in type_ii_artists.items() if counts[m][1]))
        texts.append(r"Type-II: $\lambda^*_{\mathrm{EMP}} < \lambda \leq \lambda^*$")
    seeds = f"{n_seeds} seed{'s' if n_seeds != 1 else ''}"
    key = key_ax.legend(
        proxies, texts, loc="center", fontsize=small, title=f"mean of {seeds}; band: {band_text}",
        title_fontsize=small, frameon=False, handlelength=2.0, handletextpad=0.5,
        labelspacing=0.5, alignment="left",
    )  # fmt: skip
    drawn = PredictorsPlot(
        figure=fig,
        axes=axes,
        type_i=type_i_artists,
        type_ii=type_ii_artists,
        legends=legends,
        counts=counts,
        key=key,
    )
    if path is not None:
        drawn.paths = save_figure(fig, path)
    return drawn


# --------------------------------------------------------------------------------------------
# Accuracy and rejection rate
# --------------------------------------------------------------------------------------------


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
    while the rejection rate stays near the confusion share.  Saves to ``path`` like
    :func:`save_figure` when given; never calls ``show()``.
    """
    cols = _columns(
        results,
        ("seed", "noise", "base_acc", "selective_acc", "rejection_rate"),
        "the accuracy plot",
    )
    ax = _new_axes(ax)
    _style_axes(ax)
    styles = {
        "base_acc": ("Base accuracy", OKABE_ITO["black"], "-"),
        "selective_acc": ("Selective accuracy", OKABE_ITO["green"], (0, (4, 1.5))),
        "rejection_rate": ("Rejection rate", OKABE_ITO["purple"], (0, (1, 1.2))),
    }
    lines = {}
    for column, (label, colour, style) in styles.items():
        summary = summarize_across_seeds(cols, column)
        (lines[column],) = ax.plot(
            summary.noise, 100 * summary.mean, color=colour, linestyle=style,
            linewidth=_LINE_WIDTH, label=label,
        )  # fmt: skip
    lo, hi = float(cols["noise"].min()), float(cols["noise"].max())
    pad = 0.015 * (hi - lo) if hi > lo else 0.5
    ax.set_xlim(lo - pad, hi + pad)
    ax.set_ylim(0, 102)
    ax.set_xlabel(r"Noise level $\sigma_{\mathrm{noise}}$", fontsize=FONT_SIZE)
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
        drawn.paths = save_figure(ax.figure, path)
    return drawn
