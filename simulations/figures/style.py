"""The paper's style: one column of a two-column paper, 8 pt text, Okabe–Ito colours.

Everything a figure of :mod:`simulations.figures` looks like, apart from what it shows: sizes,
fonts, the axes' frame, the legends' frame (:func:`framed_legend`) and symbols, and
:data:`PAPER_PHASE_STYLE` / :data:`PANEL_PHASE_STYLE`, the paper's two looks of the
phase-transition panel that :func:`simulations.figures.draw_phase_transition` draws. The classroom slides have their own
style over the same drawing function (:mod:`simulations.demo.style`).

A method's colour, line style and validity wording are its entry of :mod:`simulations.registry`
(:func:`validity_word` reads it; :data:`OKABE_ITO` is the registry's palette). A change of look
goes here; a change of what a figure shows goes in its module
(:mod:`~simulations.figures.phase_transition`, :mod:`~simulations.figures.predictors`,
:mod:`~simulations.figures.accuracy`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from simulations import registry
from simulations.registry import OKABE_ITO

__all__ = [
    "ACCURACY_STYLES",
    "BAND_ALPHA",
    "CERT_LABEL",
    "EMP_LABEL",
    "FONT_SIZE",
    "LINE_WIDTH",
    "MARKER_SIZE",
    "MARK_SPACING",
    "NOISE_LABEL",
    "OKABE_ITO",
    "PANEL_LEGEND",
    "PANEL_PHASE_STYLE",
    "PANEL_VIOLATION_BARS",
    "PAPER_LEGEND",
    "PAPER_PHASE_STYLE",
    "PRE_LABEL",
    "PhaseTransitionStyle",
    "SINGLE_COLUMN_SIZE",
    "framed_legend",
    "mark_coverage",
    "mark_operating_point",
    "new_axes",
    "rejector_line_kwargs",
    "style_axes",
    "validity_word",
]


FONT_SIZE = 8
SINGLE_COLUMN_SIZE = (3.4, 2.6)  # inches: one column of a two-column paper
LINE_WIDTH = 2.0
BAND_ALPHA = 0.22

NOISE_LABEL = "noise level σ"
"""The x label of every figure and slide drawn against the noise level: one name for σ."""

PRE_LABEL = r"$\lambda^*_{\mathrm{PRE}}$"
EMP_LABEL = r"$\lambda^*_{\mathrm{EMP}}$"
CERT_LABEL = r"$\lambda^*_{\mathrm{CERT}}$"


def _frozen(**kwargs: Any) -> Mapping[str, Any]:
    return MappingProxyType(kwargs)


@dataclass(frozen=True)
class PhaseTransitionStyle:
    """How :func:`simulations.figures.draw_phase_transition` draws each of its artists.

    Each field holds the Matplotlib keyword arguments of one artist (as scikit-learn's
    ``line_kw``): ``pre_band``/``emp_band`` of ``Axes.fill_between``, ``target`` of
    ``Axes.axhline``, the others of ``Axes.plot``. Artists are added in the order band, band,
    target, mean, mean, Type-I, Type-II; their ``zorder`` decides what is drawn on top.

    Attributes
    ----------
    pre_band, emp_band : mapping
        The across-seed bands of λ* and λ*_EMP.
    target : mapping
        The horizontal line at the target λ.
    pre_line, emp_line : mapping
        The across-seed means.
    type_i, type_ii : mapping
        The marks of the violating cells at (σ, λ*_EMP).
    crowded_marks : mapping
        Merged into ``type_i`` and ``type_ii`` above
        :data:`simulations.figures.CROWDED_SEEDS` seeds (small, translucent, under the means).
    pre_point, emp_point : mapping
        Merged into ``pre_line`` and ``emp_line`` when the results hold one noise level: a
        line through one point is invisible, so each mean is drawn as a marker.
    """

    pre_band: Mapping[str, Any]
    emp_band: Mapping[str, Any]
    target: Mapping[str, Any]
    pre_line: Mapping[str, Any]
    emp_line: Mapping[str, Any]
    type_i: Mapping[str, Any]
    type_ii: Mapping[str, Any]
    crowded_marks: Mapping[str, Any]
    pre_point: Mapping[str, Any]
    emp_point: Mapping[str, Any]


_BLUE, _VERMILLION = OKABE_ITO["blue"], OKABE_ITO["vermillion"]
_EMP_DASHES = (0, (4, 1.5))


def _paper_look(
    line: float,
    target: float,
    circle: tuple[float, float],
    cross: tuple[float, float],
    point: float,
    marks: Mapping[str, Any] = MappingProxyType({}),
) -> PhaseTransitionStyle:
    """The paper's look of the panel at one size: widths of the means and the target, (size,
    edge width) of the Type-I circles and the Type-II crosses, the size of a mean's marker, and
    ``marks``: keywords merged into both kinds of violation mark."""
    return PhaseTransitionStyle(
        pre_band=_frozen(color=_BLUE, alpha=BAND_ALPHA, linewidth=0, zorder=1),
        emp_band=_frozen(color=_VERMILLION, alpha=BAND_ALPHA, linewidth=0, zorder=1),
        target=_frozen(color=OKABE_ITO["black"], linestyle=":", linewidth=target, zorder=2),
        pre_line=_frozen(color=_BLUE, linestyle="-", linewidth=line, zorder=3),
        emp_line=_frozen(color=_VERMILLION, linestyle=_EMP_DASHES, linewidth=line, zorder=3),
        type_i=_frozen(
            linestyle="none",
            marker="o",
            markersize=circle[0],
            markerfacecolor="none",
            markeredgecolor=OKABE_ITO["black"],
            markeredgewidth=circle[1],
            **{"zorder": 4, **marks},
        ),
        type_ii=_frozen(
            linestyle="none",
            marker="x",
            markersize=cross[0],
            markeredgecolor=OKABE_ITO["purple"],
            markeredgewidth=cross[1],
            **{"zorder": 4, **marks},
        ),
        crowded_marks=_frozen(alpha=0.35, zorder=2.5),  # under the means, over the bands
        pre_point=_frozen(marker="s", markersize=point),
        emp_point=_frozen(marker="D", markersize=point - 0.5),
    )


PAPER_PHASE_STYLE = _paper_look(
    line=LINE_WIDTH, target=1.3, circle=(3.5, 0.8), cross=(4, 1.2), point=5
)
"""The paper's figure (``fig:synthetic_dynamics``): :func:`simulations.figures.plot_phase_transition`."""

PANEL_PHASE_STYLE = _paper_look(
    line=1.4,
    target=1.0,
    circle=(2.6, 0.6),
    cross=(3.0, 0.8),
    point=4,
    marks=_frozen(zorder=2.5, alpha=0.75, clip_on=False, in_layout=False),
)
"""The small panels of :func:`simulations.figures.plot_predictors` (1.75 x 1.6 in each): the
paper's look, smaller. That figure draws the curves only
(:func:`simulations.figures.draw_phase_curves`) and counts the violations per σ in a strip under
each panel (:data:`PANEL_VIOLATION_BARS`): the 208 Type-II cells of the Gaussian bound on the
paper's grid, one mark each, hid its λ*_EMP curve and band for σ > 8 even under the means. Its
marks (under the means, never clipped at the panel's edge) serve a caller that marks each cell
on a small panel."""

PANEL_VIOLATION_BARS = _frozen(
    type_i=_frozen(color=OKABE_ITO["black"], linewidth=0, zorder=2),
    type_ii=_frozen(color=OKABE_ITO["purple"], linewidth=0, zorder=2),
)
"""The bars of the violation strip under each panel of :func:`simulations.figures.plot_predictors`
(keywords of ``Axes.bar``): at each σ the seeds whose cell is a Type-I violation (black, as the
paper's open circles) with the Type-II ones stacked on them (purple, as its crosses)."""

PAPER_LEGEND = _frozen(
    fontsize=FONT_SIZE,
    framealpha=0.9,
    handlelength=2.2,
    handletextpad=0.5,
    labelspacing=0.25,
    borderpad=0.3,
)
"""Sizes and spacing of the legend of the paper's figure (:func:`framed_legend`)."""

PANEL_LEGEND = _frozen(
    fontsize=FONT_SIZE - 2,
    framealpha=0.85,
    handlelength=1.0,
    handletextpad=0.3,
    labelspacing=0.2,
    borderpad=0.25,
)
"""Sizes and spacing of the legend of a panel of :func:`simulations.figures.plot_predictors`."""

ACCURACY_STYLES = {
    # column: (label, colour, line style, marker of a single noise level)
    "base_acc": ("Base accuracy", OKABE_ITO["black"], "-", "o"),
    "selective_acc": ("Selective accuracy", OKABE_ITO["green"], _EMP_DASHES, "s"),
    "rejection_rate": ("Rejection rate", OKABE_ITO["purple"], (0, (1, 1.2)), "^"),
}
"""The three lines of :func:`simulations.figures.plot_accuracy`; with one noise level a line
through one point is invisible, so each mean is drawn as its marker instead."""


def new_axes(ax: Axes | None) -> Axes:
    """``ax`` if given (checked to be an Axes), else the Axes of a new single-column figure.

    The figure is a :class:`matplotlib.figure.Figure` (3.4 x 2.6 in, constrained layout) made
    without ``pyplot``.

    Raises
    ------
    TypeError
        If ``ax`` is neither None nor a Matplotlib Axes.
    """
    if ax is not None:
        if not isinstance(ax, Axes):
            raise TypeError(f"ax must be a matplotlib Axes; got {type(ax).__name__}")
        return ax
    fig = Figure(figsize=SINGLE_COLUMN_SIZE, layout="constrained")
    return fig.add_subplot()


def framed_legend(
    ax: Axes, handles: Sequence[Any], labels: Sequence[str], look: Mapping[str, Any], **extra: Any
) -> Legend:
    """A legend on a light frame with no edge, in the upper right corner of ``ax`` unless
    ``extra`` names another ``loc``, with the sizes and spacing of ``look``
    (:data:`PAPER_LEGEND`, :data:`PANEL_LEGEND`) and any other ``extra`` keyword of
    :meth:`matplotlib.axes.Axes.legend` (a title)."""
    return ax.legend(
        handles,
        labels,
        loc=extra.pop("loc", "upper right"),
        frameon=True,
        edgecolor="none",
        borderaxespad=0.2,
        **look,
        **extra,
    )


def style_axes(ax: Axes) -> None:
    """The paper's frame: 8 pt ticks on at most 8 bins, a light grid below, no top/right spine."""
    ax.xaxis.set_major_locator(MaxNLocator(nbins=8, steps=[1, 2, 4, 5, 10]))
    ax.tick_params(labelsize=FONT_SIZE, width=0.8, length=3)
    ax.grid(True, axis="both", color="0.85", linewidth=0.5)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def validity_word(method: str) -> str:
    """What a panel title says of a method: ``validity.word`` of its entry of
    :mod:`simulations.registry` (:func:`~simulations.registry.method` refuses an unknown name).

    Examples
    --------
    >>> validity_word("boole"), validity_word("union"), validity_word("gaussian_exact")
    ('valid', 'not valid', 'model value')
    """
    return registry.method(method).validity.word


# How the rejectors' curves are drawn (risk–coverage, risk against σ, ``gcul compare --plot``):
# the Bayes floor thin and under every other curve; the others above it in reverse registry
# order, so that GCUL (first in the registry) is on top and MSP next; each marked at points
# spread along the curve at an offset of its own, so that curves lying on one another (all at
# zero risk at σ = 2) still show every marker.
_REJECTOR_ZORDER = 2.0  # + a rank in (0, 1): GCUL highest
_BAYES_ZORDER = 1.5  # over a shaded floor (zorder 1), under every other curve
MARKER_SIZE = 4.2  # points; with its 1 pt edge a mark is 5.2 pt across
MARK_SPACING = 0.036
"""The distance, as a share of the axes' diagonal, between the marks of two rejectors whose curves
lie on one another: 6.5 pt on the smallest panel drawn (baselines.png (c), a diagonal of about
2.5 in = 180 pt), more than a mark is across (5.2 pt), so no mark covers another's. Along one
curve its marks repeat every ``MARK_SPACING`` times the number of marked curves (at least 0.16).
"""


def rejector_line_kwargs(
    name: str, names: Sequence[str] | None = None, *, marked: bool = True
) -> dict[str, Any]:
    """The keyword arguments of ``Axes.plot`` for the curve of the rejector ``name``.

    Its registry style (colour, line style, width, label), a ``zorder`` that puts the Bayes
    floor under every curve and the registry's first rejector (GCUL) on top, then MSP, and, if
    ``marked``, its hollow markers, at an offset of :data:`MARK_SPACING` of the axes' diagonal
    times its rank among the marked rejectors of ``names`` (the rejectors drawn together; by
    default every rejector of the registry), repeating every :data:`MARK_SPACING` times their
    number: where curves coincide, each one's markers lie side by side with the others', none
    covering another.

    Examples
    --------
    >>> gcul, msp, bayes = (rejector_line_kwargs(n) for n in ("gcul", "msp", "bayes"))
    >>> gcul["zorder"] > msp["zorder"] > bayes["zorder"], gcul["marker"], "marker" in bayes
    (True, 'o', False)
    """
    names = list(names) if names is not None else [m.name for m in registry.methods("rejector")]
    entry = registry.method(name)
    style = entry.style
    rank = names.index(name) if name in names else len(names)
    zorder = (
        _BAYES_ZORDER
        if name == "bayes"
        else _REJECTOR_ZORDER + (len(names) + 1 - rank) / (len(names) + 2)
    )
    kwargs: dict[str, Any] = dict(
        color=style.colour,
        linestyle=style.linestyle,
        linewidth=style.width,
        label=entry.label,
        zorder=zorder,
    )
    if marked and style.marker is not None:
        marks = [n for n in names if registry.method(n).style.marker is not None]
        mark_rank = marks.index(name) if name in marks else len(marks)
        period = max(0.16, MARK_SPACING * max(len(marks), mark_rank + 1))
        kwargs |= dict(
            marker=style.marker,
            markersize=MARKER_SIZE,
            markerfacecolor="white",
            markeredgecolor=style.colour,
            markeredgewidth=1.0,
            markevery=(MARK_SPACING * (mark_rank + 0.5), period),
        )
    return kwargs


def mark_operating_point(ax: Axes, coverage: float, risk: float, label: str) -> Line2D:
    """Mark GCUL's operating point ``(coverage, risk)`` on a risk–coverage panel.

    An open black circle above every curve (``zorder`` 5), drawn whole at the panel's edge (not
    clipped), so that it reads on whichever curve passes there; the risk–coverage figures of
    ``gcul reproduce`` (``risk_coverage.png``) and ``gcul compare --plot`` both mark it so.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    coverage, risk : float
        GCUL's share of accepted samples and its error among them.
    label : str
        The legend's wording.

    Returns
    -------
    matplotlib.lines.Line2D
        The marker.

    Examples
    --------
    >>> point = mark_operating_point(Figure().add_subplot(), 0.8, 0.1, "GCUL")
    >>> point.get_marker(), point.get_markeredgecolor(), point.get_zorder()
    ('o', 'black', 5)
    """
    (point,) = ax.plot(
        [coverage],
        [risk],
        marker="o",
        markersize=8,
        markerfacecolor="none",
        markeredgecolor="black",
        markeredgewidth=1.4,
        linestyle="none",
        zorder=5,
        clip_on=False,
        label=label,
    )
    return point


def mark_coverage(ax: Axes, coverage: float) -> Line2D:
    """Mark GCUL's coverage on a risk–coverage panel: a dotted grey vertical line under the curves.

    Labelled ``"GCUL's coverage"``; see :func:`mark_operating_point`.

    Examples
    --------
    >>> line = mark_coverage(Figure().add_subplot(), 0.8)
    >>> line.get_xdata(), line.get_linestyle(), line.get_label()
    ([0.8, 0.8], ':', "GCUL's coverage")
    """
    return ax.axvline(
        coverage, color="0.35", linewidth=0.8, linestyle=":", zorder=1.2, label="GCUL's coverage"
    )
