"""The slide style: what every classroom figure looks like, apart from what it shows.

A slide is 12.8 x 7.2 in at 100 dpi (1280 x 720 pixels) with no text under 14 pt, Okabe–Ito
colours (colour-blind safe) with markers, line styles and hatches, so that no distinction rests on
colour alone. This module holds the sizes and fonts, the palette and the markers of the classes,
the wording of a predictor's validity on a slide (its style and words are entries of
:mod:`simulations.registry`), the frame of an Axes, the
legend, and :data:`SLIDE_PHASE_STYLE`, the slide's look of the phase-transition panel that
:func:`simulations.figures.draw_phase_transition` draws (the paper's looks are in
:mod:`simulations.figures.style`).

A change of look goes here; a change of what a slide shows goes in its topic's module.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from simulations import registry
from simulations.figures import OKABE_ITO, PhaseTransitionStyle

__all__ = [
    "CERT",
    "CLASS_COLOURS",
    "CLASS_MARKERS",
    "DPI",
    "EMP",
    "FIGSIZE",
    "LINE",
    "MIN_FONT_SIZE",
    "PRE",
    "SLIDE_PHASE_STYLE",
    "SMALL",
    "TEXT",
    "TITLE",
    "UNCERTAIN_COLOUR",
    "kind_word",
    "legend",
    "new_figure",
    "style_axes",
]

FIGSIZE = (12.8, 7.2)
"""Inches; at :data:`DPI` a 1280 x 720 slide."""
DPI = 100
MIN_FONT_SIZE = 14
"""Points: the smallest text on any classroom figure (tick labels, legends, annotations)."""

# The paper's symbols as mathtext, for titles, labels and legends (a plain "λ*_EMP" would print
# its underscore)
EMP = r"$\lambda^*_{\mathrm{EMP}}$"
PRE = r"$\lambda^*_{\mathrm{PRE}}$"
CERT = r"$\lambda^*_{\mathrm{CERT}}$"

TEXT = 16  # axis labels, panel titles
SMALL = MIN_FONT_SIZE  # ticks, legends, annotations
TITLE = 19  # the figure's headline
LINE = 3.0

# A colour, a marker and a hatch per class (colour-blind safe; shapes tell them apart in grey).
CLASS_COLOURS = (
    OKABE_ITO["blue"],
    OKABE_ITO["orange"],
    OKABE_ITO["green"],
    OKABE_ITO["purple"],
    OKABE_ITO["sky_blue"],
    OKABE_ITO["vermillion"],
    OKABE_ITO["yellow"],
)
CLASS_MARKERS = ("o", "s", "^", "D", "v", "P", "X")
UNCERTAIN_COLOUR = "0.35"


def kind_word(name: str) -> str:
    """What a slide says of a predictor, ``validity.slide`` of its registry entry: ``"paper, NOT
    valid"``, ``"valid"``, ``"model value"`` or ``"finite-sample valid"``.

    Examples
    --------
    >>> kind_word("union"), kind_word("boole"), kind_word("certified")
    ('paper, NOT valid', 'valid', 'finite-sample valid')
    """
    return registry.method(name).validity.slide


def _frozen(**kwargs: Any) -> Mapping[str, Any]:
    return MappingProxyType(kwargs)


_BLUE, _VERMILLION = OKABE_ITO["blue"], OKABE_ITO["vermillion"]

SLIDE_PHASE_STYLE = PhaseTransitionStyle(
    pre_band=_frozen(color=_BLUE, alpha=0.2, linewidth=0),
    emp_band=_frozen(color=_VERMILLION, alpha=0.2, linewidth=0),
    # Drawn in this order: bands (1), means (2), target (2.1), marks (2.2), all under the
    # spines (2.5).
    target=_frozen(color="black", linestyle=":", linewidth=2, zorder=2.1),
    pre_line=_frozen(color=_BLUE, linewidth=LINE, zorder=2),
    emp_line=_frozen(color=_VERMILLION, linestyle="--", linewidth=LINE, zorder=2),
    type_i=_frozen(
        linestyle="none",
        marker="o",
        markersize=12,
        markerfacecolor="none",
        markeredgecolor="black",
        markeredgewidth=2,
        zorder=2.2,
    ),
    type_ii=_frozen(
        linestyle="none",
        marker="X",
        markersize=13,
        color=OKABE_ITO["purple"],
        markeredgecolor="black",
        markeredgewidth=1,
        zorder=2.2,
    ),
    crowded_marks=_frozen(alpha=0.35, zorder=1.5),  # under the means, over the bands
    pre_point=_frozen(marker="s", markersize=11),
    emp_point=_frozen(marker="D", markersize=10),
)
"""The phase-transition panel on a slide (:func:`simulations.demo.figure_phase_transition`)."""


def new_figure(**kwargs) -> Figure:
    """A blank slide: a :class:`~matplotlib.figure.Figure` of :data:`FIGSIZE` at :data:`DPI`,
    constrained layout, made without ``pyplot``; ``kwargs`` go to the Figure."""
    return Figure(figsize=FIGSIZE, dpi=DPI, layout="constrained", **kwargs)


def style_axes(ax: Axes, grid: bool = True) -> None:
    """The slide's frame: 14 pt ticks, a light grid below (unless ``grid`` is False), no
    top/right spine."""
    ax.tick_params(labelsize=SMALL, width=1.0, length=4, pad=6)
    if grid:
        ax.grid(True, color="0.88", linewidth=0.8)
        ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def legend(owner, handles, labels, **kwargs):
    """``owner.legend(handles, labels)`` (an Axes or a Figure) in 14 pt with a light frame;
    ``kwargs`` override."""
    options = {"fontsize": SMALL, "frameon": True, "framealpha": 0.92, "edgecolor": "0.8"}
    options.update(kwargs)
    return owner.legend(handles, labels, **options)
