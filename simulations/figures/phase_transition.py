"""The phase transition of λ* (the paper's ``fig:synthetic_dynamics``): computed once, drawn by one
function in any style.

:meth:`PhaseTransitionData.from_results` computes what a phase-transition panel shows (the
across-seed mean and band of a predictor's λ* and of the λ*_EMP it is judged against, the target
λ, the violating cells); :func:`draw_phase_transition` draws it on an ``ax`` with a
:class:`~simulations.figures.style.PhaseTransitionStyle`. The paper's figure
(:func:`plot_phase_transition`), each panel of :func:`simulations.figures.plot_predictors` and the
classroom slide :func:`simulations.demo.figure_phase_transition` are that one drawing in three
styles, each adding its own frame, labels and legend.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.lines import Line2D

from simulations.figures.save import save_figure
from simulations.figures.style import (
    EMP_LABEL,
    FONT_SIZE,
    NOISE_LABEL,
    PAPER_LEGEND,
    PAPER_PHASE_STYLE,
    PhaseTransitionStyle,
    framed_legend,
    new_axes,
    style_axes,
)
from simulations.figures.summary import SeedSummary, crowding, summarize_across_seeds
from simulations.registry import PAPER_METHOD
from simulations.registry import method as judged_method
from simulations.report import (
    LAMBDA_TARGET,
    Results,
    check_lam,
    judged_columns,
    method_label,
    result_columns,
    violation_masks,
)

__all__ = [
    "SINGLE_LEVEL_HALF_WIDTH",
    "SINGLE_LEVEL_WINDOW",
    "PhaseCurveArtists",
    "PhaseTransitionArtists",
    "PhaseTransitionData",
    "PhaseTransitionPlot",
    "draw_phase_curves",
    "draw_phase_transition",
    "plot_phase_transition",
]

SINGLE_LEVEL_WINDOW = 0.5
"""With one noise level σ the x-axis spans σ ± this (σ units), as the paper's figure pads it."""
SINGLE_LEVEL_HALF_WIDTH = 0.04
"""With one noise level each band is a bar σ ± this wide (8% of the window)."""


@dataclass(frozen=True)
class PhaseTransitionData:
    """What a phase-transition panel shows, computed once from the sweep's cells.

    Attributes
    ----------
    method : str
        The predictor judged: a name of :data:`gcul_theory.PREDICTORS`, ``"certified"`` or
        ``"certified_noisy"``.
    lam : float
        The target rejection cost λ.
    pre, emp : SeedSummary
        The across-seed mean and band of the predictor's λ* and of the λ*_EMP it is judged
        against (:func:`simulations.report.judged_columns`), at each noise level.
    noise, emp_values : numpy.ndarray
        σ and λ*_EMP of every cell, in the order of the results.
    type_i, type_ii : numpy.ndarray of bool
        The Type-I and Type-II cells (:func:`simulations.report.violation_masks`).
    n_seeds : int
        Distinct seeds in the results.
    band : str
        What the band spans: ``"min–max"``, or ``"5–95% of seeds"`` above
        :data:`simulations.figures.CROWDED_SEEDS` seeds.
    crowded : bool
        Whether there are more than :data:`simulations.figures.CROWDED_SEEDS` seeds.
    """

    method: str
    lam: float
    pre: SeedSummary
    emp: SeedSummary
    noise: np.ndarray
    emp_values: np.ndarray
    type_i: np.ndarray
    type_ii: np.ndarray
    n_seeds: int
    band: str
    crowded: bool

    @classmethod
    def from_results(
        cls,
        results: Results,
        *,
        method: str = PAPER_METHOD,
        lam: float = LAMBDA_TARGET,
        purpose: str = "the phase-transition plot",
    ) -> PhaseTransitionData:
        """Summarise the cells of ``results`` for the panel of ``method`` at the target ``lam``.

        Parameters
        ----------
        results : list of dict or dict of arrays
            The sweep's cells; needs ``seed``, ``noise`` and the two columns of
            :func:`simulations.report.judged_columns` of ``method``.
        method : str, default "union"
            The predictor (the paper's is ``"union"``).
        lam : float, default 0.15
            The target rejection cost λ, finite and >= 0.
        purpose : str, default "the phase-transition plot"
            Completes "needed for ..." in the message naming a missing column.

        Raises
        ------
        TypeError, ValueError
            For a bad ``lam``, an unknown ``method``, or results without the columns needed (as
            :func:`simulations.report.result_columns` says).

        Examples
        --------
        >>> rows = [{"seed": s, "noise": n, "lambda_pre_union": 0.1, "lambda_emp": 0.2}
        ...         for s in (10, 11) for n in (0.0, 0.4)]
        >>> data = PhaseTransitionData.from_results(rows, lam=0.15)
        >>> data.counts, data.band, data.pre.noise.tolist()
        ((4, 0), 'min–max', [0.0, 0.4])
        """
        lam = check_lam(lam)
        pre_column, emp_column = judged_columns(method)
        cols = result_columns(results, ("seed", "noise", emp_column, pre_column), purpose)
        n_seeds = len(np.unique(cols["seed"]))
        spread, band = crowding(n_seeds)
        type_i, type_ii = violation_masks(cols, lam, method)
        return cls(
            method=method,
            lam=lam,
            pre=summarize_across_seeds(cols, pre_column, spread),
            emp=summarize_across_seeds(cols, emp_column, spread),
            noise=cols["noise"],
            emp_values=cols[emp_column],
            type_i=type_i,
            type_ii=type_ii,
            n_seeds=n_seeds,
            band=band,
            crowded=spread is not None,
        )

    @property
    def counts(self) -> tuple[int, int]:
        """``(Type-I, Type-II)``: how many cells each kind of violation has."""
        return int(self.type_i.sum()), int(self.type_ii.sum())


@dataclass
class PhaseCurveArtists:
    """What :func:`draw_phase_curves` drew on its Axes: the panel without its violation marks."""

    pre_band: PolyCollection  # the band of the predictor's λ* over seeds
    emp_band: PolyCollection  # the band of λ*_EMP over seeds
    target: Line2D  # horizontal line at λ
    pre: Line2D  # mean λ* over seeds
    emp: Line2D  # mean λ*_EMP over seeds


@dataclass
class PhaseTransitionArtists(PhaseCurveArtists):
    """What :func:`draw_phase_transition` drew on its Axes."""

    type_i: Line2D  # marks at (σ, λ*_EMP) of the Type-I cells
    type_ii: Line2D  # marks at (σ, λ*_EMP) of the Type-II cells


def _band(ax: Axes, summary: SeedSummary, single: bool, kwargs) -> PolyCollection:
    if not single:
        return ax.fill_between(summary.noise, summary.low, summary.high, **kwargs)
    x = float(summary.noise[0])
    edges = np.array([x - SINGLE_LEVEL_HALF_WIDTH, x + SINGLE_LEVEL_HALF_WIDTH])
    return ax.fill_between(edges, np.repeat(summary.low, 2), np.repeat(summary.high, 2), **kwargs)


def draw_phase_curves(
    ax: Axes, data: PhaseTransitionData, style: PhaseTransitionStyle = PAPER_PHASE_STYLE
) -> PhaseCurveArtists:
    """Draw a phase-transition panel on ``ax`` without marking its violating cells.

    Adds, in this order: the band of the predictor's λ* and of λ*_EMP over seeds
    (``fill_between``), the target λ (``axhline``) and the across-seed means of λ* and λ*_EMP,
    each with its look and ``zorder`` from ``style``. :func:`draw_phase_transition` adds the
    marks of the violating cells; :func:`simulations.figures.plot_predictors` counts them per σ
    in a strip of its own instead (hundreds of marks on a small panel hide the curves).

    With one noise level σ a line through one point would be invisible: each band is then a bar
    of half-width :data:`SINGLE_LEVEL_HALF_WIDTH`, each mean a marker (the style's
    ``pre_point``/``emp_point``), and the x-axis spans σ ± :data:`SINGLE_LEVEL_WINDOW`.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    data : PhaseTransitionData
        What to draw (:meth:`PhaseTransitionData.from_results`).
    style : PhaseTransitionStyle, default PAPER_PHASE_STYLE
        How to draw it (see :func:`draw_phase_transition`).

    Returns
    -------
    PhaseCurveArtists
        The five artists; never calls ``show()``.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> rows = [{"seed": s, "noise": n, "lambda_pre_union": 0.1, "lambda_emp": 0.2}
    ...         for s in (10, 11) for n in (0.0, 0.4)]
    >>> ax = Figure().add_subplot()
    >>> drawn = draw_phase_curves(ax, PhaseTransitionData.from_results(rows))
    >>> len(ax.lines), drawn.emp.get_ydata().tolist()
    (3, [0.2, 0.2])
    """
    if not isinstance(ax, Axes):
        raise TypeError(f"ax must be a matplotlib Axes; got {type(ax).__name__}")
    single = len(data.pre.noise) == 1
    pre_band = _band(ax, data.pre, single, style.pre_band)
    emp_band = _band(ax, data.emp, single, style.emp_band)
    target = ax.axhline(data.lam, **style.target)
    pre_kwargs = {**style.pre_line, **(style.pre_point if single else {})}
    emp_kwargs = {**style.emp_line, **(style.emp_point if single else {})}
    (pre_line,) = ax.plot(data.pre.noise, data.pre.mean, **pre_kwargs)
    (emp_line,) = ax.plot(data.emp.noise, data.emp.mean, **emp_kwargs)
    if single:
        x = float(data.pre.noise[0])
        ax.set_xlim(x - SINGLE_LEVEL_WINDOW, x + SINGLE_LEVEL_WINDOW)
    return PhaseCurveArtists(
        pre_band=pre_band, emp_band=emp_band, target=target, pre=pre_line, emp=emp_line
    )


def draw_phase_transition(
    ax: Axes, data: PhaseTransitionData, style: PhaseTransitionStyle = PAPER_PHASE_STYLE
) -> PhaseTransitionArtists:
    """Draw a phase-transition panel on ``ax``: the one drawing behind every such figure.

    Adds, in this order: the band of the predictor's λ* and of λ*_EMP over seeds
    (``fill_between``), the target λ (``axhline``), the across-seed means of λ* and λ*_EMP
    (:func:`draw_phase_curves`), and each violating cell at its own (σ, λ*_EMP): Type-I
    (λ* < λ ≤ λ*_EMP) and Type-II (λ*_EMP < λ ≤ λ*). ``style`` gives every artist's look and
    ``zorder``; above :data:`simulations.figures.CROWDED_SEEDS` seeds its ``crowded_marks``
    restyle the marks. The frame, labels, limits and legend are the caller's.

    With one noise level σ a line through one point would be invisible: each band is then a bar
    of half-width :data:`SINGLE_LEVEL_HALF_WIDTH`, each mean a marker (the style's
    ``pre_point``/``emp_point``), and the x-axis spans σ ± :data:`SINGLE_LEVEL_WINDOW`.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    data : PhaseTransitionData
        What to draw (:meth:`PhaseTransitionData.from_results`).
    style : PhaseTransitionStyle, default PAPER_PHASE_STYLE
        How to draw it: :data:`simulations.figures.PAPER_PHASE_STYLE` (the paper's figure),
        :data:`simulations.figures.PANEL_PHASE_STYLE` (a small panel) or
        :data:`simulations.demo.style.SLIDE_PHASE_STYLE` (a classroom slide).

    Returns
    -------
    PhaseTransitionArtists
        The seven artists; never calls ``show()``.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> rows = [{"seed": s, "noise": n, "lambda_pre_union": 0.1, "lambda_emp": 0.2}
    ...         for s in (10, 11) for n in (0.0, 0.4)]
    >>> ax = Figure().add_subplot()
    >>> drawn = draw_phase_transition(ax, PhaseTransitionData.from_results(rows))
    >>> len(drawn.type_i.get_xydata()), len(drawn.type_ii.get_xydata())
    (4, 0)
    """
    curves = draw_phase_curves(ax, data, style)
    crowded = style.crowded_marks if data.crowded else {}
    (type_i,) = ax.plot(
        data.noise[data.type_i], data.emp_values[data.type_i], **{**style.type_i, **crowded}
    )
    (type_ii,) = ax.plot(
        data.noise[data.type_ii], data.emp_values[data.type_ii], **{**style.type_ii, **crowded}
    )
    return PhaseTransitionArtists(
        pre_band=curves.pre_band,
        emp_band=curves.emp_band,
        target=curves.target,
        pre=curves.pre,
        emp=curves.emp,
        type_i=type_i,
        type_ii=type_ii,
    )


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
        # matplotlib types Axes.figure as Figure | SubFigure; save_figure needs (and assumes) the
        # top-level Figure the axes were drawn in. Type-level only.
        return cast(Figure, self.ax.figure)


def plot_phase_transition(
    results: Results,
    path: str | Path | None = None,
    *,
    lam: float = LAMBDA_TARGET,
    method: str = PAPER_METHOD,
    ax: Axes | None = None,
) -> PhaseTransitionPlot:
    """Plot λ*_PRE and λ*_EMP against the noise level σ (the paper's ``fig:synthetic_dynamics``).

    Two lines, the across-seed means of λ*_PRE (bound ``method``; solid, blue) and λ*_EMP
    (dashed, vermillion), each with a shaded band from the minimum to the maximum over seeds; the
    target λ as a dotted black line; and every violating (seed, σ) cell marked at its own
    (σ, λ*_EMP): Type-I (λ*_PRE < λ ≤ λ*_EMP) as open circles, Type-II (λ*_EMP < λ ≤ λ*_PRE) as
    crosses, with their counts in the legend. This is :func:`draw_phase_transition` in
    :data:`~simulations.figures.PAPER_PHASE_STYLE` with the paper's frame and legend.

    Parameters
    ----------
    results : list of dict or dict of arrays
        The sweep's cells; needs ``seed``, ``noise``, ``lambda_emp`` and ``lambda_pre_<method>``.
        With a single noise level each mean is drawn as a marker and each band as a bar.
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
    data = PhaseTransitionData.from_results(results, method=method, lam=lam)
    lam = data.lam
    ax = new_axes(ax)
    style_axes(ax)
    drawn = draw_phase_transition(ax, data, PAPER_PHASE_STYLE)

    lo, hi = float(data.noise.min()), float(data.noise.max())
    pad = 0.015 * (hi - lo) if hi > lo else SINGLE_LEVEL_WINDOW
    ax.set_xlim(lo - pad, hi + pad)
    ax.margins(y=0.04)
    ax.set_xlabel(NOISE_LABEL, fontsize=FONT_SIZE)
    ax.set_ylabel(r"Critical rejection cost $\lambda^*$", fontsize=FONT_SIZE)

    n_seeds = data.n_seeds
    seeds = f"{n_seeds} seed{'s' if n_seeds != 1 else ''}"
    handles: list[Artist | tuple[Artist, ...]] = [
        (drawn.pre_band, drawn.pre),
        (drawn.emp_band, drawn.emp),
        drawn.target,
    ]
    labels = [
        f"{judged_method(method).symbol} ({method_label(method)})",
        EMP_LABEL,
        rf"$\lambda_{{\mathrm{{target}}}} = {lam:g}$",
    ]
    title = f"mean of {seeds}\nband: {data.band}"
    # A legend entry only for a mark that is drawn; a kind with no cell is said in the title.
    for markers, kind, count in (
        (drawn.type_i, "Type-I", data.counts[0]),
        (drawn.type_ii, "Type-II", data.counts[1]),
    ):
        if count:
            handles.append(markers)
            labels.append(f"{kind} violation ({count})")
        else:
            title += f"\nno {kind} violation"
    # "best": the corner the curves leave free. On the paper's grid that is the upper right (the
    # figure is the same byte for byte); on a reduced grid (--levels 2..12), where both curves
    # stay high to the right edge, the upper right legend hid them.
    legend = framed_legend(
        ax, handles, labels, PAPER_LEGEND, title=title, title_fontsize=FONT_SIZE,
        alignment="left", loc="best",
    )  # fmt: skip
    plot = PhaseTransitionPlot(
        ax=ax,
        pre=drawn.pre,
        emp=drawn.emp,
        pre_band=drawn.pre_band,
        emp_band=drawn.emp_band,
        target=drawn.target,
        type_i=drawn.type_i,
        type_ii=drawn.type_ii,
        legend=legend,
    )
    if path is not None:
        plot.paths = save_figure(plot.figure, path)  # plot.ax is ax
    return plot
