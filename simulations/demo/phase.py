"""Notebook 4, the phase transition: a classroom-sized sweep (:func:`reduced_sweep`), the paper's
figure as a slide (:func:`figure_phase_transition`) and the violation counts of every predictor
(:func:`figure_violations`, the paper's ``tab:violation_analysis``).

The phase-transition panel is not redrawn here: it is
:func:`simulations.figures.draw_phase_transition`, the function behind the paper's figure, in the
slide style (:data:`simulations.demo.style.SLIDE_PHASE_STYLE`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from simulations import registry
from simulations.demo.style import (
    EMP,
    SLIDE_PHASE_STYLE,
    SMALL,
    TEXT,
    TITLE,
    kind_word,
    legend,
    new_figure,
    style_axes,
)
from simulations.figures import (
    NOISE_LABEL,
    OKABE_ITO,
    PhaseTransitionData,
    draw_phase_transition,
)
from simulations.report import predictor_names, violation_table
from simulations.synthetic import SyntheticConfig, noise_levels
from simulations.validation import check_int, check_real

__all__ = ["CLASSROOM_CONFIG", "figure_phase_transition", "figure_violations", "reduced_sweep"]

CLASSROOM_CONFIG = SyntheticConfig(n_per_class=500, n_confusion=500)
"""The paper's protocol (K = 5, d = 10, S = 10, r = 1.5) with 500 instead of 2,000 samples per
population: the reduced sweep of notebook 4 and ``gcul demo``."""


def reduced_sweep(
    seeds: Sequence[int] = (10, 11),
    levels: int = 21,
    step: float = 0.8,
    config: SyntheticConfig = CLASSROOM_CONFIG,
    n_jobs: int = 1,
    progress: bool = False,
) -> list[dict]:
    """A classroom-sized sweep: :func:`simulations.sweep.run_sweep` on a small grid.

    By default 2 seeds x 21 noise levels σ = 0.8 i (0 to 16, every other level of the paper) on
    :data:`CLASSROOM_CONFIG`; about 10 s on two cores. The rows are those of
    ``gcul reproduce``'s ``results.csv`` (same columns, same definitions).

    Parameters
    ----------
    seeds : sequence of int, default (10, 11)
    levels : int, default 21
        Number of noise levels, in [2, 51].
    step : float, default 0.8
        Spacing of the levels, > 0 (the largest σ must keep the flip probability ≤ 1).
    config : SyntheticConfig, default CLASSROOM_CONFIG
    n_jobs : int, default 1
        Worker processes, joblib semantics.
    progress : bool, default False
        Progress lines on stderr.
    """
    from simulations.sweep import run_sweep

    levels = check_int("levels", levels, 2, 51)
    grid = noise_levels(levels, step)
    return list(run_sweep(grid, list(seeds), n_jobs=n_jobs, config=config, progress=progress))


def _phase_panel(ax: Axes, rows, method: str, lam: float) -> tuple[int, int, list, list]:
    """One slide panel: :func:`simulations.figures.draw_phase_transition` in the slide style,
    with the slide's title and x label; returns the counts and the figure legend's entries."""
    data = PhaseTransitionData.from_results(
        rows, method=method, lam=lam, purpose="the phase-transition slide"
    )
    style_axes(ax)
    drawn = draw_phase_transition(ax, data, SLIDE_PHASE_STYLE)
    n_i, n_ii = data.counts
    name = registry.method(method).slide_title
    ax.set_title(f"{name} ({kind_word(method)}):\nType-I {n_i}, Type-II {n_ii}", fontsize=TEXT)
    ax.set_xlabel(NOISE_LABEL, fontsize=TEXT)
    pre_band, emp_band = SLIDE_PHASE_STYLE.pre_band, SLIDE_PHASE_STYLE.emp_band
    band = Patch(color=pre_band["color"], alpha=pre_band["alpha"], linewidth=0)
    emp_patch = Patch(color=emp_band["color"], alpha=emp_band["alpha"], linewidth=0)
    handles = [(band, drawn.pre), (emp_patch, drawn.emp), drawn.target, drawn.type_i, drawn.type_ii]
    labels = [
        f"predicted λ* (mean; band {data.band})",
        f"{EMP} on the test split",
        f"λ = {lam:g}",
        "Type-I: said no, would have paid",
        "Type-II: said yes, did not pay",
    ]
    return n_i, n_ii, handles, labels


def _check_rows(rows) -> list:
    if isinstance(rows, (str, bytes)) or not isinstance(rows, Sequence) or not rows:
        raise ValueError("rows must be a non-empty list of sweep rows (see reduced_sweep)")
    return list(rows)


def figure_phase_transition(
    rows=None,
    methods: Sequence[str] = (registry.PAPER_METHOD, registry.DEFAULT_PREDICTOR),
    lam: float = 0.15,
) -> Figure:
    """The paper's phase-transition figure, one panel per predictor, with violations marked.

    Each panel: the across-seed mean of the predictor's λ* (solid) and of λ*_EMP (dashed) with
    their min–max bands (5–95% above :data:`simulations.figures.CROWDED_SEEDS` seeds), the
    target λ (dotted), Type-I cells (open circles: predicted infeasible, yet rejecting paid) and
    Type-II cells (crosses: predicted feasible, yet it did not pay) at their (σ, λ*_EMP). The
    paper's figure (``fig:synthetic_dynamics``) is the ``"union"`` panel: each panel is the
    paper's drawing (:func:`simulations.figures.draw_phase_transition`) in the slide style
    (:data:`simulations.demo.style.SLIDE_PHASE_STYLE`).

    Parameters
    ----------
    rows : list of dict, optional
        Sweep rows (:func:`reduced_sweep`, or ``results.csv`` read back); run
        :func:`reduced_sweep` when omitted.
    methods : sequence of str, default ("union", "hunter_worsley")
        One to three predictors: names of :data:`gcul_theory.PREDICTORS` or ``"certified"``.
    lam : float, default 0.15
        Target rejection cost λ in [0, 1).
    """
    rows = reduced_sweep() if rows is None else _check_rows(rows)
    lam = check_real("lam", lam, 0.0, 1.0, open_high=True)
    methods = tuple(methods)
    if not 1 <= len(methods) <= 3:
        raise ValueError(f"methods must name 1 to 3 predictors; got {len(methods)}")
    fig = new_figure()
    axes = fig.subplots(1, len(methods), sharey=True, squeeze=False)[0]
    counts = {}
    for ax, method in zip(axes, methods, strict=True):
        n_i, n_ii, handles, labels = _phase_panel(ax, rows, method, lam)
        counts[method] = (n_i, n_ii)
    axes[0].set_ylabel("critical rejection cost λ*", fontsize=TEXT)
    # A legend entry only for a mark that some panel draws.
    drawn = [
        True,
        True,
        True,
        any(c[0] for c in counts.values()),
        any(c[1] for c in counts.values()),
    ]
    handles = [h for h, keep in zip(handles, drawn, strict=True) if keep]
    labels = [t for t, keep in zip(labels, drawn, strict=True) if keep]
    legend(fig, handles, labels, loc="outside lower center", ncol=3)
    n_seeds = len({row["seed"] for row in rows})
    n_levels = len({row["noise"] for row in rows})
    fig.suptitle(
        f"Rejecting stops paying as noise grows ({n_seeds} seeds × {n_levels} levels)",
        fontsize=TITLE,
    )
    return fig


def figure_violations(rows=None, lam: float = 0.15, methods: Sequence[str] | None = None) -> Figure:
    """Type-I and Type-II counts of every predictor (the paper's ``tab:violation_analysis``).

    Type-I (conservative): the predictor said "do not reject" and rejecting would have paid;
    Type-II (unsafe): it said "reject" and rejecting lost. Bars are hatched differently, so the
    two read apart in grey.

    Parameters
    ----------
    rows : list of dict, optional
        Sweep rows; run :func:`reduced_sweep` when omitted.
    lam : float, default 0.15
        Target rejection cost λ in [0, 1).
    methods : sequence of str, optional
        Predictors, by default every one of :data:`gcul_theory.PREDICTORS` and ``"certified"``.
    """
    rows = reduced_sweep() if rows is None else _check_rows(rows)
    lam = check_real("lam", lam, 0.0, 1.0, open_high=True)
    # The demo's predictors (not the certified_noisy block the sweep rows now allow).
    methods = predictor_names() if methods is None else methods
    table = violation_table(rows, lam=lam, methods=methods)
    names = list(table.methods)
    type_i = np.array([table[name, "type_i"].count for name in names])
    type_ii = np.array([table[name, "type_ii"].count for name in names])
    fig = new_figure()
    ax = fig.add_subplot()
    style_axes(ax)
    ax.grid(False, axis="y")
    position = np.arange(len(names))[::-1]
    height = 0.38
    bars_i = ax.barh(
        position + height / 2,
        type_i,
        height,
        color=OKABE_ITO["sky_blue"],
        edgecolor="black",
        hatch="//",
        label="Type-I (conservative)",
    )
    bars_ii = ax.barh(
        position - height / 2,
        type_ii,
        height,
        color=OKABE_ITO["vermillion"],
        edgecolor="black",
        hatch="xx",
        label="Type-II (unsafe)",
    )
    for bars, values in ((bars_i, type_i), (bars_ii, type_ii)):
        for bar, value in zip(bars, values, strict=True):
            ax.annotate(
                f"{value}",
                (bar.get_width(), bar.get_y() + bar.get_height() / 2),
                xytext=(5, 0),
                textcoords="offset points",
                va="center",
                fontsize=SMALL,
            )
    ax.set_yticks(position, [f"{name}\n({kind_word(name)})" for name in names], fontsize=SMALL)
    ax.set_xlabel(f"violations among {table.total} (seed, σ) cells at λ = {lam:g}", fontsize=TEXT)
    ax.set_xlim(0, max(1, int(max(type_i.max(), type_ii.max()))) * 1.5)
    legend(ax, *ax.get_legend_handles_labels(), loc="center right")
    unsafe = [name for name, count in zip(names, type_ii, strict=True) if count]
    unsafe_valid = [name for name in unsafe if registry.method(name).validity.valid]
    if not unsafe:
        finding = "no predictor made an unsafe (Type-II) call"
    elif not unsafe_valid:
        finding = f"unsafe (Type-II) calls only from {', '.join(unsafe)}; none from a valid one"
    else:
        finding = f"unsafe (Type-II) calls from {', '.join(unsafe)}"
    fig.suptitle(f"Violations of the λ* predictors at λ = {lam:g}:\n{finding}", fontsize=TITLE)
    return fig
