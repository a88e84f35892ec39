r"""Classroom figures: what ``gcul demo`` writes and what the notebooks in ``notebooks/`` draw.

Every figure is a projector slide: 12.8 x 7.2 in at 100 dpi (1280 x 720 pixels), no text under
14 pt, Okabe–Ito colours (colour-blind safe) with markers, line styles and hatches so that no
distinction rests on colour alone (:mod:`simulations.demo.style`). Each ``figure_*`` function returns a
:class:`matplotlib.figure.Figure` made without ``pyplot`` (a notebook shows it as the value of a
cell; :func:`write_figures` saves it) and never calls ``show()``. Everything random is seeded, so
the same call draws the same figure.

The figures, by notebook (``FIGURES`` names them; ``gcul demo --list`` prints this list):

1. GCUL in two dimensions: :func:`figure_gcul_2d` (on :func:`fit_2d`).
2. The selectivity score: :func:`figure_selectivity_contours`,
   :func:`figure_selectivity_surface`, :func:`figure_utility_lines`,
   :func:`figure_monotonicity`.
3. Tails and bounds: :func:`figure_tails`, :func:`figure_capture_vs_classes`,
   :func:`figure_certified_interval`.
4. The phase transition: :func:`figure_phase_transition` and :func:`figure_violations` (on
   :func:`reduced_sweep`).
5. Reading a proof: :func:`figure_sign_slip`.

:func:`sliders` puts ipywidgets sliders on any of them in a notebook (``None`` without
ipywidgets, so a notebook also runs headless).

Where a change goes:

- the look of every slide (sizes, fonts, palette, markers, a predictor's line and wording, the
  slide style of the phase-transition panel): :mod:`simulations.demo.style`;
- a slide of a notebook: that notebook's module, :mod:`~simulations.demo.two_d` (1),
  :mod:`~simulations.demo.selectivity` (2), :mod:`~simulations.demo.tails` (3),
  :mod:`~simulations.demo.phase` (4), :mod:`~simulations.demo.proof` (5);
- the phase-transition panel itself: :func:`simulations.figures.draw_phase_transition`, which
  the paper's figure draws too (one drawing, two styles);
- a new slide: a ``figure_*`` function in its topic's module (arguments checked with
  :mod:`simulations.validation`), re-exported here and entered in :data:`FIGURES`;
- writing the slides and the sliders: this module.

References
----------
.. [1] "GCUL: Ambiguity Identification in Text Emotion Classification via Cluster-Guided
   Learning" (the GCUL paper): Eq. (``eq:selectivity_score``), Theorem ``thm:monotonicity``,
   Lemma ``lem:projection_tails``, Theorems ``thm:global_rate_bounds`` and ``thm:r1_rigorous``,
   the synthetic experiment (``subsec:synthetic_exp``, ``fig:synthetic_dynamics``,
   ``tab:violation_analysis``) and appendix ``app:criterion_derivation``.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from matplotlib.figure import Figure

from simulations.demo.phase import (
    CLASSROOM_CONFIG,
    figure_phase_transition,
    figure_violations,
    reduced_sweep,
)
from simulations.demo.proof import figure_sign_slip
from simulations.demo.selectivity import (
    figure_monotonicity,
    figure_selectivity_contours,
    figure_selectivity_surface,
    figure_utility_lines,
)
from simulations.demo.style import DPI, FIGSIZE, MIN_FONT_SIZE
from simulations.demo.tails import (
    figure_capture_vs_classes,
    figure_certified_interval,
    figure_tails,
)
from simulations.demo.two_d import TwoDimensionalRun, figure_gcul_2d, fit_2d
from simulations.figures import save_figure

__all__ = [
    "CLASSROOM_CONFIG",
    "DPI",
    "FIGSIZE",
    "FIGURES",
    "MIN_FONT_SIZE",
    "DemoFigure",
    "TwoDimensionalRun",
    "figure_capture_vs_classes",
    "figure_certified_interval",
    "figure_gcul_2d",
    "figure_monotonicity",
    "figure_phase_transition",
    "figure_selectivity_contours",
    "figure_selectivity_surface",
    "figure_sign_slip",
    "figure_tails",
    "figure_utility_lines",
    "figure_violations",
    "fit_2d",
    "reduced_sweep",
    "sliders",
    "write_figures",
]


@dataclass(frozen=True)
class DemoFigure:
    """One classroom figure: its file stem, the notebook that draws it and one line about it."""

    name: str
    notebook: int
    description: str
    draw: Callable[..., Figure]
    needs_sweep: bool = False


FIGURES: tuple[DemoFigure, ...] = (
    DemoFigure(
        "gcul_2d", 1, "the three phases of GCUL in the plane, rejected area hatched", figure_gcul_2d
    ),
    DemoFigure(
        "selectivity_contours",
        2,
        "contours of S(eps, r1, r2) for three eps, S = lambda drawn",
        figure_selectivity_contours,
    ),
    DemoFigure(
        "selectivity_surface",
        2,
        "S(eps, r1, r2) as a surface cut by the plane lambda",
        figure_selectivity_surface,
    ),
    DemoFigure(
        "utility_lines",
        2,
        "U(lambda) against lambda: straight lines through lambda = S",
        figure_utility_lines,
    ),
    DemoFigure(
        "monotonicity",
        2,
        "S rises with r1 and falls with r2 (Theorem: Strict Monotonicity of Selectivity Score)",
        figure_monotonicity,
    ),
    DemoFigure(
        "tails",
        3,
        "erfc vs 1 - erf vs Chernoff vs Monte Carlo tails as D/sigma grows",
        figure_tails,
    ),
    DemoFigure(
        "capture_vs_classes",
        3,
        "r1_hat of every predictor against the true capture rate as C grows",
        figure_capture_vs_classes,
    ),
    DemoFigure(
        "certified_interval",
        3,
        "the certified interval on U(lambda) and lambda*_CERT as n grows",
        figure_certified_interval,
    ),
    DemoFigure(
        "phase_transition",
        4,
        "the paper's figure: lambda* against sigma, violations marked (reduced sweep)",
        figure_phase_transition,
        needs_sweep=True,
    ),
    DemoFigure(
        "violations",
        4,
        "Type-I / Type-II counts of every predictor (reduced sweep)",
        figure_violations,
        needs_sweep=True,
    ),
    DemoFigure(
        "sign_slip", 5, "the sign slip of the appendix's 'Rearranging terms' line", figure_sign_slip
    ),
)
"""Every classroom figure, in notebook order; ``gcul demo --list`` prints them."""

_BY_NAME = {spec.name: spec for spec in FIGURES}


def write_figures(
    out_dir: str | Path,
    names: Sequence[str] | None = None,
    *,
    n_jobs: int = 1,
    progress: Callable[[str], None] | None = None,
) -> list[Path]:
    """Draw classroom figures and save each as ``NAME.png`` (1280 x 720) and ``NAME.pdf``.

    Parameters
    ----------
    out_dir : path
        Folder, created if needed.
    names : sequence of str, optional
        Names from :data:`FIGURES`; all of them by default.
    n_jobs : int, default 1
        Worker processes of the reduced sweep (the two notebook-4 figures share one sweep).
    progress : callable, optional
        Called with one line of text per step (``gcul demo`` prints them on stderr).

    Returns
    -------
    list of Path
        The files written, two per figure, in :data:`FIGURES` order.
    """
    if names is None:
        specs = list(FIGURES)
    else:
        unknown = [name for name in names if name not in _BY_NAME]
        if unknown:
            raise ValueError(f"unknown figure {unknown[0]!r}; known: {', '.join(_BY_NAME)}")
        specs = [spec for spec in FIGURES if spec.name in set(names)]
    out = Path(out_dir)
    say = progress or (lambda line: None)
    rows = None
    written: list[Path] = []
    for index, spec in enumerate(specs, 1):
        start = time.perf_counter()
        if spec.needs_sweep and rows is None:
            say("running the reduced sweep (2 seeds x 21 noise levels) for the notebook-4 figures")
            rows = reduced_sweep(n_jobs=n_jobs)
        fig = spec.draw(rows) if spec.needs_sweep else spec.draw()
        written += save_figure(fig, out / spec.name, dpi=DPI)
        say(f"[{index}/{len(specs)}] {spec.name} ({time.perf_counter() - start:.1f} s)")
    return written


def sliders(function: Callable[..., Figure], /, **ranges):
    """Sliders for ``function``'s keyword arguments, redrawing its figure on release.

    Parameters
    ----------
    function : callable
        A ``figure_*`` function of this module (or any function returning a figure).
    **ranges : (min, max, step)
        One float slider per keyword argument; it starts at the function's default.

    Returns
    -------
    ipywidgets.interactive or None
        The widget (display it as a cell's value), or None when ipywidgets is not installed
        (a notebook then shows only its static figure). An error raised by the first drawing
        propagates, so a headless run of the notebook fails on it.
    """
    signature = inspect.signature(function)
    controls = {}
    for name, spec in ranges.items():
        if name not in signature.parameters:
            raise ValueError(f"{getattr(function, '__name__', function)} has no argument {name!r}")
        low, high, step = (float(v) for v in spec)
        default = signature.parameters[name].default
        if default is inspect.Parameter.empty or not low <= default <= high:
            raise ValueError(f"the default of {name!r} must lie in [{low:g}, {high:g}]")
        controls[name] = (low, high, step, float(default))
    try:
        import ipywidgets
    except ImportError:
        print("(ipywidgets is not installed: the static figure above is all there is)")
        return None
    widgets = {
        name: ipywidgets.FloatSlider(
            value=value,
            min=low,
            max=high,
            step=step,
            description=name,
            continuous_update=False,
            style={"description_width": "initial"},
        )
        for name, (low, high, step, value) in controls.items()
    }
    errors: list[BaseException] = []

    def draw(**kwargs):
        try:
            return function(**kwargs)
        except Exception as exc:  # shown in the widget; re-raised below on the first drawing
            errors.append(exc)
            raise

    widget = ipywidgets.interactive(draw, {"manual": False, "auto_display": True}, **widgets)
    if errors:
        raise errors[0]
    return widget
