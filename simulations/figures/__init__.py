"""Figures of the synthetic experiment: the phase transition of λ* (``fig:synthetic_dynamics``)
and the same picture for every λ* predictor, one small panel each.

Everything is drawn on :class:`matplotlib.figure.Figure` objects, never through ``pyplot``: a
script or a CLI can save figures without a display and without touching the user's backend, and
``show()`` is never called.  A plotting function takes an ``ax`` (or makes a single-column figure,
3.4 in wide, 8 pt text) and returns a small dataclass holding the Axes and the artists it drew.

Colours are Okabe–Ito (colour-blind safe); the curves also differ by line style, so the figure
reads in greyscale.

Compute once, draw with a style (scikit-learn's ``Display`` pattern): the phase-transition panel
is computed by :meth:`PhaseTransitionData.from_results` and drawn by the one function
:func:`draw_phase_transition`, which the paper's figure (:func:`plot_phase_transition`), every
panel of :func:`plot_predictors` and the classroom slide
(:func:`simulations.demo.figure_phase_transition`) call, each with its own style.

Where a change goes:

- the look of the paper's figures (sizes, fonts, colours, line styles, markers, the validity
  wording of a panel title): :mod:`simulations.figures.style`;
- what the phase-transition panel shows: :mod:`simulations.figures.phase_transition`
  (:func:`draw_phase_transition` draws it for the paper and the slides alike);
- the one-panel-per-predictor figure: :mod:`simulations.figures.predictors`; the accuracy panel:
  :mod:`simulations.figures.accuracy`;
- across-seed statistics and the band over many seeds: :mod:`simulations.figures.summary`;
- which curves of a panel lie on one another (named in the legend):
  :mod:`simulations.figures.overlap`;
- the shares of correct / Type-I / Type-II verdicts of the real-data validation:
  :mod:`simulations.figures.verdicts`;
- file formats and atomic writes: :mod:`simulations.figures.save`;
- a new figure: a module here with a ``plot_*`` function that takes an ``ax`` (or makes one),
  returns what it drew, and is re-exported below.
"""

from simulations.figures.accuracy import AccuracyPlot, plot_accuracy
from simulations.figures.phase_transition import (
    SINGLE_LEVEL_HALF_WIDTH,
    SINGLE_LEVEL_WINDOW,
    PhaseCurveArtists,
    PhaseTransitionArtists,
    PhaseTransitionData,
    PhaseTransitionPlot,
    draw_phase_curves,
    draw_phase_transition,
    plot_phase_transition,
)
from simulations.figures.overlap import (
    COINCIDE_SHARE,
    Coincidence,
    coincidence_notes,
    coinciding_curves,
)
from simulations.figures.predictors import (
    PANEL_COLUMNS,
    PANEL_SIZE,
    PredictorsPlot,
    plot_predictors,
)
from simulations.figures.save import save_figure
from simulations.figures.style import (
    FONT_SIZE,
    NOISE_LABEL,
    OKABE_ITO,
    PANEL_PHASE_STYLE,
    PAPER_PHASE_STYLE,
    SINGLE_COLUMN_SIZE,
    PhaseTransitionStyle,
    rejector_line_kwargs,
)
from simulations.figures.summary import CROWDED_SEEDS, SeedSummary, summarize_across_seeds
from simulations.figures.verdicts import (
    VERDICT_COLOURS,
    VERDICT_GROUPS,
    VerdictSharesPlot,
    plot_verdict_shares,
)

__all__ = [
    "AccuracyPlot",
    "COINCIDE_SHARE",
    "CROWDED_SEEDS",
    "Coincidence",
    "FONT_SIZE",
    "NOISE_LABEL",
    "OKABE_ITO",
    "PANEL_COLUMNS",
    "PANEL_PHASE_STYLE",
    "PANEL_SIZE",
    "PAPER_PHASE_STYLE",
    "PhaseCurveArtists",
    "PhaseTransitionArtists",
    "PhaseTransitionData",
    "PhaseTransitionPlot",
    "PhaseTransitionStyle",
    "PredictorsPlot",
    "SINGLE_COLUMN_SIZE",
    "SINGLE_LEVEL_HALF_WIDTH",
    "SINGLE_LEVEL_WINDOW",
    "SeedSummary",
    "VERDICT_COLOURS",
    "VERDICT_GROUPS",
    "VerdictSharesPlot",
    "coincidence_notes",
    "coinciding_curves",
    "draw_phase_curves",
    "draw_phase_transition",
    "plot_accuracy",
    "plot_phase_transition",
    "plot_predictors",
    "plot_verdict_shares",
    "rejector_line_kwargs",
    "save_figure",
    "summarize_across_seeds",
]
