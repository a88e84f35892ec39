r"""Classroom figures: what ``gcul demo`` writes and what the notebooks in ``notebooks/`` draw.

Every figure is a projector slide: 12.8 x 7.2 in at 100 dpi (1280 x 720 pixels), no text under
14 pt, Okabe–Ito colours (colour-blind safe) with markers, line styles and hatches so that no
distinction rests on colour alone. Each ``figure_*`` function returns a
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
import math
import numbers
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.patheffects import withStroke

import gcul_theory
from simulations.figures import OKABE_ITO, save_figure, summarize_across_seeds
from simulations.gcul import GCUL
from simulations.report import (
    CERTIFIED,
    judged_columns,
    predictor_names,
    violation_masks,
    violation_table,
)
from simulations.synthetic import SyntheticConfig, make_dataset, noise_levels

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

FIGSIZE = (12.8, 7.2)
"""Inches; at :data:`DPI` a 1280 x 720 slide."""
DPI = 100
MIN_FONT_SIZE = 14
"""Points: the smallest text on any classroom figure (tick labels, legends, annotations)."""

# The paper's symbols as mathtext, for titles, labels and legends (a plain "λ*_EMP" would print
# its underscore)
_EMP = r"$\lambda^*_{\mathrm{EMP}}$"
_PRE = r"$\lambda^*_{\mathrm{PRE}}$"
_CERT = r"$\lambda^*_{\mathrm{CERT}}$"

_TEXT = 16  # axis labels, panel titles
_SMALL = MIN_FONT_SIZE  # ticks, legends, annotations
_TITLE = 19  # the figure's headline
_LINE = 3.0

CLASSROOM_CONFIG = SyntheticConfig(n_per_class=500, n_confusion=500)
"""The paper's protocol (K = 5, d = 10, S = 10, r = 1.5) with 500 instead of 2,000 samples per
population: the reduced sweep of notebook 4 and ``gcul demo``."""

# A colour, a marker and a hatch per class (colour-blind safe; shapes tell them apart in grey).
_CLASS_COLOURS = (
    OKABE_ITO["blue"],
    OKABE_ITO["orange"],
    OKABE_ITO["green"],
    OKABE_ITO["purple"],
    OKABE_ITO["sky_blue"],
    OKABE_ITO["vermillion"],
    OKABE_ITO["yellow"],
)
_CLASS_MARKERS = ("o", "s", "^", "D", "v", "P", "X")
_UNCERTAIN_COLOUR = "0.35"


def _new_figure(**kwargs) -> Figure:
    return Figure(figsize=FIGSIZE, dpi=DPI, layout="constrained", **kwargs)


def _style(ax: Axes, grid: bool = True) -> None:
    ax.tick_params(labelsize=_SMALL, width=1.0, length=4, pad=6)
    if grid:
        ax.grid(True, color="0.88", linewidth=0.8)
        ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def _legend(owner, handles, labels, **kwargs):
    options = {"fontsize": _SMALL, "frameon": True, "framealpha": 0.92, "edgecolor": "0.8"}
    options.update(kwargs)
    return owner.legend(handles, labels, **options)


def _check_real(name: str, value: Any, low: float, high: float, *, open_low=False, open_high=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got {value!r} ({type(value).__name__})")
    value = float(value)
    below = value <= low if open_low else value < low
    above = value >= high if open_high else value > high
    if not math.isfinite(value) or below or above:
        interval = f"{'(' if open_low else '['}{low:g}, {high:g}{')' if open_high else ']'}"
        raise ValueError(f"{name} must be in {interval}; got {value!r}")
    return value


def _check_int(name: str, value: Any, low: int, high: int) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Integral)
        or not low <= value <= high
    ):
        raise ValueError(f"{name} must be an integer in [{low}, {high}]; got {value!r}")
    return int(value)


# --------------------------------------------------------------------------------------------
# Notebook 1: GCUL in two dimensions
# --------------------------------------------------------------------------------------------

_SEED_2D = 20  # its three class centres form a wide triangle around the confusion population


@dataclass(frozen=True)
class TwoDimensionalRun:
    """A GCUL fitted on a 2-D instance of the synthetic protocol, and its test-split numbers.

    Attributes
    ----------
    noise, separation, seed : float, float, int
        The feature-noise σ, the centre scale S and the dataset seed.
    data : simulations.synthetic.Dataset
    model : GCUL
        Fitted on ``data.X_train, data.y_train``.
    base_accuracy : float
        Phase 1 on the test split.
    selective_accuracy : float
        Phase 3 on the test samples it accepts (1 when it rejects all of them, as in the sweep).
    rejection_rate : float
        Share of test samples phase 3 rejects.
    lambda_emp : float
        λ*_EMP = (ε - ε_sel)/ρ on the test split (:func:`gcul_theory.empirical_lambda`).
    lambda_pre : float
        λ*_PRE of the valid ``"hunter_worsley"`` predictor from the training error pool
        (:func:`gcul_theory.feasibility_report`).
    """

    noise: float
    separation: float
    seed: int
    data: Any
    model: GCUL
    base_accuracy: float
    selective_accuracy: float
    rejection_rate: float
    lambda_emp: float
    lambda_pre: float

    def summary(self) -> str:
        """The four numbers of the test split and λ*_PRE, one per line."""
        return "\n".join(
            [
                f"base accuracy (phase 1)        {100 * self.base_accuracy:5.1f} %",
                f"selective accuracy (accepted)  {100 * self.selective_accuracy:5.1f} %",
                f"rejection rate                 {100 * self.rejection_rate:5.1f} %",
                f"lambda*_EMP (test split)       {self.lambda_emp:6.3f}",
                f"lambda*_PRE (hunter_worsley)   {self.lambda_pre:6.3f}",
            ]
        )


def fit_2d(noise: float = 1.0, separation: float = 6.0, seed: int = _SEED_2D) -> TwoDimensionalRun:
    """Fit GCUL on three classes and a confusion population in the plane.

    The synthetic protocol of the paper with ``K = 3``, ``d = 2``, 250 samples per class and 250
    in the confusion population (labels uniform over the classes, around the mean of the
    centres), radius 1.5, class centres uniform in ``[-S, S]^2`` with ``S = separation``.

    Parameters
    ----------
    noise : float, default 1.0
        Feature-noise σ in [0, 10] (training labels flip with probability 0.025 σ).
    separation : float, default 6.0
        Centre scale S in (0, 20]: the centres of one seed scale with it.
    seed : int, default 20
        Dataset seed, in [0, 2**32).

    Returns
    -------
    TwoDimensionalRun

    Examples
    --------
    >>> run = fit_2d(noise=1.0)
    >>> run.model.n_classes_, run.model.uncertain_cluster_ is not None
    (3, True)
    >>> bool(run.selective_accuracy > run.base_accuracy)
    True
    """
    noise = _check_real("noise", noise, 0.0, 10.0)
    separation = _check_real("separation", separation, 0.0, 20.0, open_low=True)
    seed = _check_int("seed", seed, 0, 2**32 - 1)
    config = SyntheticConfig(
        n_classes=3,
        dim=2,
        center_scale=separation,
        radius=1.5,
        n_per_class=250,
        n_confusion=250,
        test_fraction=0.25,
    )
    data = make_dataset(seed, noise, config)
    model = GCUL().fit(data.X_train, data.y_train)
    base = model.phase1_.predict(data.X_test)
    selective = model.predict(data.X_test)
    rejected = selective == model.UNCERTAIN
    base_accuracy = float(np.mean(base == data.y_test))
    accepted = ~rejected
    selective_accuracy = (
        float(np.mean(selective[accepted] == data.y_test[accepted])) if accepted.any() else 1.0
    )
    rejection_rate = float(np.mean(rejected))
    lambda_emp = float(
        gcul_theory.empirical_lambda(1 - base_accuracy, 1 - selective_accuracy, rejection_rate)
    )
    report = gcul_theory.feasibility_report(
        data.X_train, data.y_train, model.phase1_.predict(data.X_train)
    )
    return TwoDimensionalRun(
        noise=noise,
        separation=separation,
        seed=seed,
        data=data,
        model=model,
        base_accuracy=base_accuracy,
        selective_accuracy=selective_accuracy,
        rejection_rate=rejection_rate,
        lambda_emp=lambda_emp,
        lambda_pre=float(report.lambda_pre["hunter_worsley"]),
    )


def _plane_grid(X: np.ndarray, n: int = 300):
    low, high = X.min(axis=0), X.max(axis=0)
    pad = 0.06 * (high - low)
    xs = np.linspace(low[0] - pad[0], high[0] + pad[0], n)
    ys = np.linspace(low[1] - pad[1], high[1] + pad[1], n)
    gx, gy = np.meshgrid(xs, ys)
    return gx, gy, np.column_stack([gx.ravel(), gy.ravel()])


def figure_gcul_2d(
    run: TwoDimensionalRun | None = None,
    *,
    noise: float = 1.0,
    separation: float = 6.0,
    seed: int = _SEED_2D,
) -> Figure:
    """The three phases of GCUL in the plane, and what rejecting buys on the test split.

    Left: phase-1 decision regions, the training samples, the error pool (crosses) and the
    initial K-Means centres (the median of each predicted class, a star at the median of the
    error pool). Middle: the K-Means clusters with their label purities; the least pure one is
    relabelled ``uncertain``. Right: phase-3 regions with the rejected area hatched, and the test
    samples. The headline gives base and selective accuracy, rejection rate and λ*_EMP.

    Parameters
    ----------
    run : TwoDimensionalRun, optional
        A fitted run (:func:`fit_2d`); otherwise one is fitted with ``noise``, ``separation``
        and ``seed``.
    noise, separation, seed
        As in :func:`fit_2d` (ignored when ``run`` is given).
    """
    if run is None:
        run = fit_2d(noise=noise, separation=separation, seed=seed)
    elif not isinstance(run, TwoDimensionalRun):
        raise TypeError(f"run must be a TwoDimensionalRun (see fit_2d); got {type(run).__name__}")
    model, data = run.model, run.data
    K = model.n_classes_
    X, y = data.X_train, data.y_train
    gx, gy, points = _plane_grid(np.concatenate([X, data.X_test]))
    regions1 = model.phase1_.predict(points).reshape(gx.shape)
    regions3 = model.predict(points).reshape(gx.shape)
    light = ListedColormap([_CLASS_COLOURS[k] for k in range(K)] + ["white"])

    fig = _new_figure()
    axes = fig.subplots(1, 3, sharex=True, sharey=True)
    for ax in axes:
        _style(ax, grid=False)
        ax.set_aspect("equal")
        ax.set_xlabel("$x_1$", fontsize=_TEXT)
    axes[0].set_ylabel("$x_2$", fontsize=_TEXT)

    # Phase 1: regions, samples, error pool, initial centres.
    ax = axes[0]
    ax.pcolormesh(
        gx,
        gy,
        regions1,
        cmap=light,
        vmin=-0.5,
        vmax=K + 0.5,
        alpha=0.18,
        shading="auto",
        rasterized=True,
    )
    for k in range(K):
        mine = y == k
        ax.scatter(
            X[mine, 0],
            X[mine, 1],
            s=12,
            marker=_CLASS_MARKERS[k],
            color=_CLASS_COLOURS[k],
            alpha=0.45,
            linewidths=0,
        )
    errors = model.error_mask_
    ax.scatter(X[errors, 0], X[errors, 1], s=22, marker="x", color="black", linewidths=1.0)
    init = model.init_centers_
    for k in range(K):
        ax.plot(
            *init[k],
            marker=_CLASS_MARKERS[k],
            markersize=16,
            color=_CLASS_COLOURS[k],
            markeredgecolor="black",
            markeredgewidth=2,
            linestyle="none",
        )
    if len(init) > K:
        ax.plot(
            *init[K],
            marker="*",
            markersize=26,
            color="white",
            markeredgecolor="black",
            markeredgewidth=2,
            linestyle="none",
        )
    ax.set_title(f"1. Phase 1: {int(errors.sum())} training errors", fontsize=_TEXT)

    # Phase 2: clusters and purities.
    ax = axes[1]
    clusters = model.cluster_labels_
    uncertain = model.uncertain_cluster_
    for c in range(len(model.cluster_centers_)):
        mine = clusters == c
        colour = _UNCERTAIN_COLOUR if c == uncertain else _CLASS_COLOURS[c % len(_CLASS_COLOURS)]
        marker = "x" if c == uncertain else _CLASS_MARKERS[c % len(_CLASS_MARKERS)]
        ax.scatter(
            X[mine, 0],
            X[mine, 1],
            s=12 if c != uncertain else 18,
            marker=marker,
            color=colour,
            alpha=0.5,
            linewidths=0 if c != uncertain else 0.9,
        )
    for c, centre in enumerate(model.cluster_centers_):
        purity = model.purities_[c]
        if not np.isfinite(purity):
            continue
        ax.plot(
            *centre,
            marker="*" if c == uncertain else _CLASS_MARKERS[c % 7],
            markersize=20,
            color="white",
            markeredgecolor="black",
            markeredgewidth=2,
            linestyle="none",
        )
        text = f"uncertain\npurity {purity:.2f}" if c == uncertain else f"purity {purity:.2f}"
        ax.annotate(
            text,
            centre,
            xytext=(0, 16),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize=_SMALL,
            fontweight="bold" if c == uncertain else None,
            bbox={
                "boxstyle": "round,pad=0.2",
                "facecolor": "white",
                "alpha": 0.85,
                "edgecolor": "none",
            },
        )
    ax.set_title("2. K-Means: least pure → uncertain", fontsize=_TEXT)

    # Phase 3: regions with the rejected area hatched, and the test samples.
    ax = axes[2]
    ax.pcolormesh(
        gx,
        gy,
        np.where(regions3 == K, np.nan, regions3),
        cmap=light,
        vmin=-0.5,
        vmax=K + 0.5,
        alpha=0.18,
        shading="auto",
        rasterized=True,
    )
    rejected_area = (regions3 == K).astype(float)
    if rejected_area.any():
        ax.contourf(
            gx, gy, rejected_area, levels=[0.5, 1.5], colors=["0.6"], alpha=0.45, hatches=["//"]
        )
        ax.contour(gx, gy, rejected_area, levels=[0.5], colors="black", linewidths=1.5)
    for k in range(K):
        mine = data.y_test == k
        ax.scatter(
            data.X_test[mine, 0],
            data.X_test[mine, 1],
            s=14,
            marker=_CLASS_MARKERS[k],
            color=_CLASS_COLOURS[k],
            alpha=0.7,
            linewidths=0,
        )
    ax.set_title(f"3. Phase 3: {100 * run.rejection_rate:.0f}% of test rejected", fontsize=_TEXT)

    fig.suptitle(
        f"GCUL in 2-D (σ = {run.noise:g}, S = {run.separation:g}): the confusion cluster "
        "becomes the rejected region\n"
        f"test split: accuracy {100 * run.base_accuracy:.1f}% → "
        f"{100 * run.selective_accuracy:.1f}% on accepted samples, "
        f"{100 * run.rejection_rate:.1f}% rejected, {_EMP} = {run.lambda_emp:.2f}",
        fontsize=_TEXT + 1,
    )
    handles = [
        Line2D(
            [],
            [],
            marker=_CLASS_MARKERS[k],
            color=_CLASS_COLOURS[k],
            linestyle="none",
            markersize=10,
        )
        for k in range(K)
    ]
    labels = [f"class {k}" for k in range(K)]
    handles += [
        Line2D([], [], marker="x", color="black", linestyle="none", markersize=9, mew=1.5),
        Line2D(
            [],
            [],
            marker="o",
            color="white",
            markeredgecolor="black",
            mew=2,
            linestyle="none",
            markersize=13,
        ),
        Line2D(
            [],
            [],
            marker="*",
            color="white",
            markeredgecolor="black",
            mew=2,
            linestyle="none",
            markersize=18,
        ),
        Patch(facecolor="0.6", alpha=0.6, hatch="//", edgecolor="black"),
    ]
    labels += [
        "error / uncertain",
        "initial or final centre",
        "error-pool median",
        "rejected region",
    ]
    _legend(fig, handles, labels, loc="outside lower center", ncol=4)
    return fig


# --------------------------------------------------------------------------------------------
# Notebook 2: the selectivity score
# --------------------------------------------------------------------------------------------


def _selectivity_grid(eps: float, n: int = 241):
    r = np.linspace(0.0, 1.0, n)
    r1, r2 = np.meshgrid(r, r)  # r1 along x, r2 along y
    valid = (r2 <= r1) & (r1 > 0)
    S = np.full(r1.shape, np.nan)
    S[valid] = gcul_theory.selectivity_score(eps, r1[valid], r2[valid])
    return r1, r2, S


def figure_selectivity_contours(
    eps_values: Sequence[float] = (0.1, 0.25, 0.5), lam: float = 0.15
) -> Figure:
    r"""Contours of S(ε, r1, r2) over the (r1, r2) square, one panel per ε, with S = λ drawn.

    S is Eq. (``eq:selectivity_score``) of the paper; rejecting pays (U(λ) > 0) exactly above
    the bold contour S = λ. The white triangle r2 > r1 is outside the theorem's domain.

    Parameters
    ----------
    eps_values : sequence of float, default (0.1, 0.25, 0.5)
        One to four base error rates ε in (0, 1).
    lam : float, default 0.15
        Rejection cost λ in [0, 1).
    """
    eps_values = tuple(eps_values)
    if not 1 <= len(eps_values) <= 4:
        raise ValueError(f"eps_values must hold 1 to 4 values; got {len(eps_values)}")
    eps_values = tuple(
        _check_real("eps_values", e, 0.0, 1.0, open_low=True, open_high=True) for e in eps_values
    )
    lam = _check_real("lam", lam, 0.0, 1.0, open_high=True)
    fig = _new_figure()
    axes = fig.subplots(1, len(eps_values), sharey=True, squeeze=False)[0]
    fig.get_layout_engine().set(wspace=0.06)  # keeps "1.0" and the next "0.0" apart
    levels = np.linspace(0.0, 1.0, 11)
    for ax, eps in zip(axes, eps_values, strict=True):
        r1, r2, S = _selectivity_grid(eps)
        filled = ax.contourf(r1, r2, S, levels=levels, cmap="viridis")
        ax.contour(r1, r2, S, levels=levels, colors="white", linewidths=0.6, alpha=0.6)
        if np.nanmax(S) > lam:
            ax.contour(
                r1,
                r2,
                S,
                levels=[lam],
                colors="black",
                linewidths=3.5,
                linestyles="--",
                path_effects=[withStroke(linewidth=7, foreground="white")],
            )
        ax.plot([0, 1], [0, 1], color="black", linewidth=1.2)
        ax.set_aspect("equal")
        _style(ax, grid=False)
        ax.set_xlabel("capture rate $r_1$", fontsize=_TEXT)
        ax.set_title(f"ε = {eps:g}", fontsize=_TEXT)
        ax.text(
            0.25,
            0.6,
            "$r_2 > r_1$\n(outside)",
            fontsize=_SMALL,
            ha="center",
            va="center",
            transform=ax.transAxes,
        )
    axes[0].set_ylabel("contamination rate $r_2$", fontsize=_TEXT)
    bar = fig.colorbar(
        filled, ax=list(axes), shrink=0.6, ticks=levels[::2], location="bottom", aspect=40
    )
    bar.set_label(r"$S_{\mathrm{GCUL}}(\varepsilon, r_1, r_2)$", fontsize=_TEXT)
    bar.ax.tick_params(labelsize=_SMALL)
    _legend(
        axes[0],
        [
            Line2D(
                [],
                [],
                color="black",
                linestyle="--",
                linewidth=3.5,
                path_effects=[withStroke(linewidth=7, foreground="white")],
            )
        ],
        [f"S = λ = {lam:g}"],
        loc="upper left",
        frameon=False,
    )
    fig.suptitle(
        f"Rejecting pays where S > λ: below and right of the dashed contour (λ = {lam:g})",
        fontsize=_TITLE,
    )
    return fig


def figure_selectivity_surface(eps: float = 0.25, lam: float = 0.15) -> Figure:
    """S(ε, r1, r2) at one ε as a surface over (r1, r2 ≤ r1), cut by the plane S = λ.

    Parameters
    ----------
    eps : float, default 0.25
        Base error rate ε in (0, 1).
    lam : float, default 0.15
        Rejection cost λ in [0, 1): the translucent plane.
    """
    eps = _check_real("eps", eps, 0.0, 1.0, open_low=True, open_high=True)
    lam = _check_real("lam", lam, 0.0, 1.0, open_high=True)
    r1, r2, S = _selectivity_grid(eps, n=81)
    fig = _new_figure()
    ax = fig.add_subplot(projection="3d")
    corners = np.array([0.0, 1.0])
    ax.plot_surface(
        *np.meshgrid(corners, corners),
        np.full((2, 2), lam),
        color=OKABE_ITO["vermillion"],
        alpha=0.3,
        linewidth=0,
    )
    ax.plot_surface(
        r1,
        r2,
        np.ma.masked_invalid(S),
        cmap="viridis",
        vmin=0,
        vmax=1,
        rstride=1,
        cstride=1,
        linewidth=0,
        antialiased=False,
    )
    # The curve S = λ on the surface: where rejecting starts to pay, and its shadow on the floor.
    r1_line = np.linspace(0.005, 1.0, 400)
    edge = []
    for a in r1_line:
        grid = np.linspace(0.0, a, 2000)
        s = gcul_theory.selectivity_score(eps, np.full_like(grid, a), grid)
        above = s >= lam
        edge.append(grid[above][-1] if above.any() else np.nan)
    edge = np.array(edge)
    keep = np.isfinite(edge)
    stroke = [withStroke(linewidth=7, foreground="white")]
    ax.plot(
        r1_line[keep],
        edge[keep],
        np.full(keep.sum(), lam),
        color="black",
        linewidth=_LINE,
        linestyle="--",
        zorder=5,
        path_effects=stroke,
    )
    ax.plot(
        r1_line[keep],
        edge[keep],
        np.zeros(keep.sum()),
        color="black",
        linewidth=2,
        linestyle=":",
        zorder=5,
    )
    ax.set_xlabel("capture rate $r_1$", fontsize=_TEXT, labelpad=14)
    ax.set_ylabel("contamination rate $r_2$", fontsize=_TEXT, labelpad=14)
    ax.set_zlabel(r"$S_{\mathrm{GCUL}}$", fontsize=_TEXT, labelpad=10)
    ax.tick_params(labelsize=_SMALL)
    ax.set_zlim(0, 1)
    ax.view_init(elev=24, azim=122)
    ax.set_box_aspect((1, 1, 0.75), zoom=0.95)
    _legend(
        fig,
        [
            Patch(color=OKABE_ITO["vermillion"], alpha=0.45),
            Line2D([], [], color="black", linestyle="--", linewidth=_LINE, path_effects=stroke),
            Line2D([], [], color="black", linestyle=":", linewidth=2),
        ],
        [f"plane S = λ = {lam:g}", "S = λ on the surface", "S = λ on the floor"],
        loc="center left",
        bbox_to_anchor=(0.02, 0.55),
    )
    fig.suptitle(
        f"S(ε = {eps:g}, r₁, r₂): rejecting pays where the surface is above the plane S = λ",
        fontsize=_TITLE,
    )
    return fig


_RATE_SETTINGS = ((0.9, 0.05), (0.7, 0.05), (0.9, 0.2), (0.5, 0.2))


def figure_utility_lines(
    eps: float = 0.25,
    settings: Sequence[tuple[float, float]] = _RATE_SETTINGS,
    lam: float = 0.15,
) -> Figure:
    r"""U(λ) = ε - ε_clean - λρ against λ for several (r1, r2): straight lines through λ = S.

    U(λ) = ρ (S - λ) (claim ``criterion.equivalence`` of ``gcul prove``), so each line crosses
    zero exactly at its own S(ε, r1, r2), marked with a dot.

    Parameters
    ----------
    eps : float, default 0.25
        Base error rate ε in (0, 1).
    settings : sequence of (r1, r2)
        One to six pairs with 0 <= r2 <= r1 <= 1, r1 > 0.
    lam : float, default 0.15
        The target λ, drawn as a vertical line.
    """
    eps = _check_real("eps", eps, 0.0, 1.0, open_low=True, open_high=True)
    lam = _check_real("lam", lam, 0.0, 1.0, open_high=True)
    settings = tuple(settings)
    if not 1 <= len(settings) <= 6:
        raise ValueError(f"settings must hold 1 to 6 (r1, r2) pairs; got {len(settings)}")
    for r1, r2 in settings:
        _check_real("r1", r1, 0.0, 1.0, open_low=True)
        _check_real("r2", r2, 0.0, float(r1))
    fig = _new_figure()
    ax = fig.add_subplot()
    _style(ax)
    lams = np.linspace(0.0, 1.0, 201)[:-1]  # utility takes λ in [0, 1)
    styles = ("-", "--", "-.", ":", (0, (5, 1, 1, 1)), (0, (8, 2)))
    handles, labels = [], []
    for index, (r1, r2) in enumerate(settings):
        colour, marker = _CLASS_COLOURS[index], _CLASS_MARKERS[index]
        U = gcul_theory.utility(lams, eps, r1, r2)
        S = float(gcul_theory.selectivity_score(eps, r1, r2))
        ax.plot(lams, U, color=colour, linestyle=styles[index], linewidth=_LINE)
        if S < 1:
            ax.plot(
                S,
                0.0,
                marker=marker,
                markersize=13,
                color=colour,
                markeredgecolor="black",
                linestyle="none",
                zorder=4,
            )
        handles.append(
            Line2D(
                [],
                [],
                color=colour,
                linestyle=styles[index],
                linewidth=_LINE,
                marker=marker,
                markersize=12,
                markeredgecolor="black",
            )
        )
        labels.append(f"$r_1$ = {r1:g}, $r_2$ = {r2:g}:  S = {S:.2f}")
    ax.axhline(0.0, color="black", linewidth=1.2)
    ax.axvline(lam, color="0.3", linestyle=":", linewidth=2)
    ax.annotate(
        f"λ = {lam:g}",
        (lam, ax.get_ylim()[1]),
        xytext=(6, -4),
        textcoords="offset points",
        va="top",
        fontsize=_SMALL,
    )
    ax.set_xlim(0, 1)
    ax.set_xlabel("rejection cost λ", fontsize=_TEXT)
    ax.set_ylabel(
        r"utility $U(\lambda) = \varepsilon - \varepsilon_{\mathrm{clean}} - \lambda\rho$",
        fontsize=_TEXT,
    )
    _legend(
        ax,
        handles,
        labels,
        loc="upper right",
        title=f"ε = {eps:g}; marker: U = 0 at λ = S",
        title_fontsize=_SMALL,
    )
    fig.suptitle(
        "U(λ) = ρ (S − λ): rejecting pays for every λ below S, and for none above", fontsize=_TITLE
    )
    return fig


def figure_monotonicity(
    eps: float = 0.25,
    r2_values: Sequence[float] = (0.0, 0.05, 0.1, 0.2),
    r1_values: Sequence[float] = (0.5, 0.7, 0.9, 1.0),
) -> Figure:
    """Theorem ``thm:monotonicity`` made visible: S rises with r1 and falls with r2.

    Left: S against r1 (r1 >= r2) for several r2. Right: S against r2 (r2 <= r1) for several r1.

    Parameters
    ----------
    eps : float, default 0.25
        Base error rate ε in (0, 1).
    r2_values, r1_values : sequence of float
        One to five values in [0, 1) (r2) and (0, 1] (r1).
    """
    eps = _check_real("eps", eps, 0.0, 1.0, open_low=True, open_high=True)
    r2_values = tuple(_check_real("r2_values", v, 0.0, 1.0, open_high=True) for v in r2_values)
    r1_values = tuple(_check_real("r1_values", v, 0.0, 1.0, open_low=True) for v in r1_values)
    for name, values in (("r2_values", r2_values), ("r1_values", r1_values)):
        if not 1 <= len(values) <= 5:
            raise ValueError(f"{name} must hold 1 to 5 values; got {len(values)}")
    fig = _new_figure()
    left, right = fig.subplots(1, 2, sharey=True)
    styles = ("-", "--", "-.", ":", (0, (5, 1, 1, 1)))
    for index, r2 in enumerate(r2_values):
        r1 = np.linspace(max(r2, 1e-3), 1.0, 300)
        left.plot(
            r1,
            gcul_theory.selectivity_score(eps, r1, np.full_like(r1, r2)),
            color=_CLASS_COLOURS[index],
            linestyle=styles[index],
            linewidth=_LINE,
            label=f"$r_2$ = {r2:g}",
        )
    for index, r1 in enumerate(r1_values):
        r2 = np.linspace(0.0, r1, 300)
        right.plot(
            r2,
            gcul_theory.selectivity_score(eps, np.full_like(r2, r1), r2),
            color=_CLASS_COLOURS[index],
            linestyle=styles[index],
            linewidth=_LINE,
            label=f"$r_1$ = {r1:g}",
        )
    for ax, xlabel, title in (
        (left, "capture rate $r_1$", "S rises with $r_1$ (∂S/∂r₁ > 0)"),
        (right, "contamination rate $r_2$", "S falls with $r_2$ (∂S/∂r₂ < 0)"),
    ):
        _style(ax)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel(xlabel, fontsize=_TEXT)
        ax.set_title(title, fontsize=_TEXT)
    _legend(left, *left.get_legend_handles_labels(), loc="lower right")
    _legend(right, *right.get_legend_handles_labels(), loc="upper right")
    fig.get_layout_engine().set(wspace=0.08)
    left.set_ylabel(r"$S_{\mathrm{GCUL}}$", fontsize=_TEXT)
    fig.suptitle(
        f"Theorem (monotonicity), ε = {eps:g}: catch more errors, or fewer clean samples, "
        "and S goes up",
        fontsize=_TITLE,
    )
    return fig


# --------------------------------------------------------------------------------------------
# Notebook 3: tails and bounds
# --------------------------------------------------------------------------------------------


def figure_tails(max_ratio: float = 20.0, n_draws: int = 1_000_000, seed: int = 3) -> Figure:
    r"""The loss tail P(Z > D/(2σ)) against D/σ: erfc, 1 − erf, Chernoff and Monte Carlo.

    Left (log scale): the exact tail ½ erfc(D/(2√2σ)) (:func:`gcul_theory.gaussian_tail`), the
    same computed as ½(1 − erf(·)) (it cancels to 0 past D/σ ≈ 16.6), the Chernoff bound
    exp(−D²/(8σ²)) (:func:`gcul_theory.chernoff_tail`) and a Monte Carlo estimate from
    ``n_draws`` standard normals with ±2 standard errors. Right: how many times the Chernoff
    bound overstates the tail.

    Parameters
    ----------
    max_ratio : float, default 20
        Largest D/σ, in [2, 40].
    n_draws : int, default 1,000,000
        Monte Carlo draws, in [1000, 10**7].
    seed : int, default 3
        Seed of the Monte Carlo draws.
    """
    from scipy.special import erf

    max_ratio = _check_real("max_ratio", max_ratio, 2.0, 40.0)
    n_draws = _check_int("n_draws", n_draws, 1000, 10**7)
    seed = _check_int("seed", seed, 0, 2**32 - 1)
    ratio = np.linspace(0.0, max_ratio, 401)
    exact = gcul_theory.gaussian_tail(ratio, 1.0)
    chernoff = gcul_theory.chernoff_tail(ratio, 1.0)
    naive = 0.5 * (1.0 - erf(ratio / (2.0 * math.sqrt(2.0))))
    draws = np.sort(np.random.default_rng(seed).standard_normal(n_draws))
    mc_ratio = np.arange(0.0, max_ratio + 1e-9, 1.0)
    counts = n_draws - np.searchsorted(draws, mc_ratio / 2.0, side="right")
    p_hat = counts / n_draws
    se = np.sqrt(p_hat * (1 - p_hat) / n_draws)
    seen = counts > 0

    fig = _new_figure()
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.6, 1]})
    _style(left)
    left.semilogy(
        ratio,
        chernoff,
        color=OKABE_ITO["vermillion"],
        linestyle="--",
        linewidth=_LINE,
        label="Chernoff bound exp(−D²/8σ²)",
    )
    left.semilogy(
        ratio, exact, color=OKABE_ITO["blue"], linewidth=_LINE, label="exact: ½ erfc(D/(2√2σ))"
    )
    shown = naive > 0
    left.semilogy(
        ratio[shown],
        naive[shown],
        color=OKABE_ITO["orange"],
        linestyle=":",
        linewidth=_LINE + 1,
        label="½ (1 − erf): cancels to 0",
    )
    if (~shown).any():
        cut = ratio[~shown][0]
        left.axvline(cut, color=OKABE_ITO["orange"], linestyle=":", linewidth=2)
        left.annotate(
            f"1 − erf = 0\nfrom D/σ ≈ {cut:.1f}",
            (cut, 0.86),
            xytext=(-8, 0),
            xycoords=("data", "axes fraction"),
            textcoords="offset points",
            ha="right",
            fontsize=_SMALL,
        )
    left.errorbar(
        mc_ratio[seen],
        p_hat[seen],
        yerr=2 * se[seen],
        fmt="o",
        markersize=9,
        markerfacecolor="white",
        markeredgecolor="black",
        ecolor="black",
        capsize=4,
        label=f"Monte Carlo, {n_draws:,} draws (±2 SE)",
    )
    left.set_ylim(max(float(exact[-1]) / 10, 1e-90), 1.0)
    left.set_xlim(0, max_ratio)
    left.set_xlabel("separation D/σ", fontsize=_TEXT)
    left.set_ylabel("tail probability", fontsize=_TEXT)
    _legend(left, *left.get_legend_handles_labels(), loc="lower left")
    left.set_title("Tails on a log scale", fontsize=_TEXT)

    _style(right)
    right.plot(
        ratio, chernoff / exact, color=OKABE_ITO["vermillion"], linestyle="--", linewidth=_LINE
    )
    right.set_ylim(0, None)
    right.set_xlim(0, max_ratio)
    right.set_xlabel("separation D/σ", fontsize=_TEXT)
    right.set_ylabel("Chernoff / exact", fontsize=_TEXT)
    right.set_title("How loose Chernoff is", fontsize=_TEXT)
    fig.suptitle(
        "Both tails shrink as D/σ grows; Chernoff stays an upper bound, loose by a growing factor",
        fontsize=_TITLE,
    )
    return fig


_PREDICTOR_STYLE = {
    # name: (colour, line style, marker)
    "gaussian": (OKABE_ITO["vermillion"], "--", "v"),
    "union": (OKABE_ITO["orange"], "--", "^"),
    "chernoff": (OKABE_ITO["purple"], "-.", "D"),
    "boole": (OKABE_ITO["blue"], "-", "s"),
    "hunter_worsley": (OKABE_ITO["green"], "-", "o"),
    "gaussian_exact": (OKABE_ITO["sky_blue"], ":", "P"),
    CERTIFIED: (OKABE_ITO["black"], "-", "*"),
}
_FALLBACK_STYLE = ("0.4", "-", "X")


def _kind_word(name: str) -> str:
    if name == CERTIFIED:
        return "finite-sample valid"
    entry = gcul_theory.predictor(name)
    return {"paper": "paper, NOT valid", "bound": "valid", "model": "model value"}.get(
        entry.kind, entry.kind
    )


def _orthogonal_geometry(n_classes: int, ratio: float) -> gcul_theory.Geometry:
    C = n_classes
    return gcul_theory.Geometry(
        eps=0.2,
        pi=np.full(C, 1.0 / C),
        eps_c=np.full(C, 0.2),
        D=np.full(C, ratio),
        sigma_mix=np.ones(C),
        sigma_c=np.ones(C),
        corr_mix=np.eye(C),
    )


def figure_capture_vs_classes(
    ratio: float = 4.0, max_classes: int = 30, n_draws: int = 20_000, seed: int = 20
) -> Figure:
    r"""r̂1 of every predictor against the true capture rate as the number of classes grows.

    The erratum ``r1_rigorous.loss_cover`` of ``gcul prove``: C classes, orthogonal class
    directions, an isotropic error pool, every D_c/σ_mix,c = ``ratio``. An error is captured only
    if it crosses none of the C boundaries, so E[r1] = (1 − p)^C with p = Φ(−D/(2σ)); the
    paper's bounds stay flat while E[r1] falls (at C = 20, D/σ = 4: 0.631 against the union
    bound's 0.842). Monte Carlo of the K-Means assignment rule (``proofs``'
    ``nearest_centre_capture``) checks E[r1] at a few C.

    Parameters
    ----------
    ratio : float, default 4.0
        D/σ of every class, in [1, 12].
    max_classes : int, default 30
        Largest C, in [4, 60].
    n_draws : int, default 20,000
        Monte Carlo draws per checked C, in [100, 10**6].
    seed : int, default 20
        Seed of the Monte Carlo draws.
    """
    from proofs import nearest_centre_capture

    ratio = _check_real("ratio", ratio, 1.0, 12.0)
    max_classes = _check_int("max_classes", max_classes, 4, 60)
    n_draws = _check_int("n_draws", n_draws, 100, 10**6)
    seed = _check_int("seed", seed, 0, 2**32 - 1)
    classes = np.arange(2, max_classes + 1)
    p = float(gcul_theory.gaussian_tail(ratio, 1.0))
    truth = (1.0 - p) ** classes
    r1_hat = {
        name: np.array(
            [
                float(gcul_theory.capture_rate_bound(_orthogonal_geometry(C, ratio), name))
                for C in classes
            ]
        )
        for name in gcul_theory.METHODS
    }
    checked = np.unique(np.clip([2, 5, 10, 20, 30, 45, 60], 2, max_classes))
    rng = np.random.default_rng(seed)
    mc, mc_se = [], []
    for C in checked:
        errors = rng.standard_normal((n_draws, C))
        captured = nearest_centre_capture(errors, np.zeros(C), -ratio * np.eye(C))
        mc.append(captured.mean())
        mc_se.append(math.sqrt(captured.mean() * (1 - captured.mean()) / n_draws))

    fig = _new_figure()
    ax = fig.add_subplot()
    _style(ax)
    handles, labels = [], []
    (true_line,) = ax.plot(classes, truth, color="black", linewidth=_LINE + 3, zorder=2)
    for name in gcul_theory.METHODS:
        colour, style, marker = _PREDICTOR_STYLE.get(name, _FALLBACK_STYLE)
        (line,) = ax.plot(
            classes,
            r1_hat[name],
            color=colour,
            linestyle=style,
            marker=marker,
            markevery=4,
            markersize=10,
            linewidth=_LINE,
            zorder=3,
        )
        handles.append(line)
        labels.append(f"{name} ({_kind_word(name)})")
    mc_artist = ax.errorbar(
        checked,
        mc,
        yerr=2 * np.array(mc_se),
        fmt="o",
        markersize=11,
        markerfacecolor="white",
        markeredgecolor="black",
        ecolor="black",
        markeredgewidth=2,
        capsize=4,
        zorder=5,
    )
    handles += [true_line, mc_artist]
    labels += [r"true $E[r_1] = (1-p)^C$", "Monte Carlo of the K-Means rule (±2 SE)"]
    if max_classes >= 20:
        at20 = 20 - 2
        ax.annotate(
            "",
            (20, truth[at20]),
            xytext=(20, r1_hat["union"][at20]),
            arrowprops={"arrowstyle": "<->", "linewidth": 2.5, "shrinkA": 0, "shrinkB": 0},
        )
        ax.annotate(
            f"C = 20: union's r̂₁ = {r1_hat['union'][at20]:.3f},\ntrue E[r₁] = {truth[at20]:.3f}",
            (20, 0.5 * (truth[at20] + r1_hat["union"][at20])),
            xytext=(10, 0),
            textcoords="offset points",
            va="center",
            fontsize=_SMALL,
            bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": "none"},
        )
    ax.set_xlim(1.5, max_classes + 0.5)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("number of classes C", fontsize=_TEXT)
    ax.set_ylabel("capture rate r₁ (predicted or true)", fontsize=_TEXT)
    _legend(
        fig,
        handles,
        labels,
        loc="outside right center",
        title=f"D/σ = {ratio:g}",
        title_fontsize=_SMALL,
    )
    fig.suptitle(
        "With many classes the paper's r̂₁ overshoots the true capture rate; the valid bounds "
        "stay below",
        fontsize=_TITLE,
    )
    return fig


# A calibration law with known rates (the example of gcul_theory.utility_confidence_bounds):
# P(rejected, base wrong) = 0.075, P(rejected, base right) = 0.025, P(accepted, base wrong,
# selective wrong) = 0.09, P(accepted, base wrong, selective right) = 0.01, P(accepted, both
# right) = 0.8. Then eps = 0.175, rho = 0.1, eps_sel = 0.09/0.9 = 0.1, U(lam) = 0.075 - 0.1 lam and
# the critical cost is 0.75.
_CAL_PROBABILITIES = np.array([0.075, 0.025, 0.09, 0.01, 0.8])
_CAL_EPS, _CAL_EPS_SEL, _CAL_RHO = 0.175, 0.1, 0.1


def figure_certified_interval(
    lam: float = 0.15, delta: float = 0.05, max_n: int = 30_000, seed: int = 7
) -> Figure:
    r"""The certified predictor's confidence interval on U(λ) shrinking as calibration data grow.

    Calibration samples come from a law with known rates (ε = 0.175, ε_sel = 0.1, ρ = 0.1, so
    U(λ) = 0.075 − 0.1 λ and the true critical cost is 0.75). Left: the one-sided (1 − δ) bounds
    of :func:`gcul_theory.utility_confidence_bounds` around the plug-in U(λ), for the first n
    samples of one stream. Right: λ*_CERT (:func:`gcul_theory.certified_lambda`) approaching the
    true critical cost from below.

    Parameters
    ----------
    lam : float, default 0.15
        Rejection cost λ in [0, 0.75).
    delta : float, default 0.05
        Risk δ in (0, 0.5).
    max_n : int, default 30,000
        Largest calibration set, in [1000, 200,000].
    seed : int, default 7
        Seed of the calibration stream.
    """
    lam = _check_real("lam", lam, 0.0, 0.75, open_high=True)
    delta = _check_real("delta", delta, 0.0, 0.5, open_low=True, open_high=True)
    max_n = _check_int("max_n", max_n, 1000, 200_000)
    seed = _check_int("seed", seed, 0, 2**32 - 1)
    kind = np.random.default_rng(seed).choice(5, size=max_n, p=_CAL_PROBABILITIES)
    rejected = kind <= 1
    base_wrong = (kind == 0) | (kind == 2) | (kind == 3)
    selective_wrong = kind == 2
    sizes = np.unique(np.round(np.geomspace(50, max_n, 16)).astype(int))
    lower, upper, plug_in, lam_cert = [], [], [], []
    for n in sizes:
        bw, aw, rej = base_wrong[:n], selective_wrong[:n], rejected[:n]
        lo, hi = gcul_theory.utility_confidence_bounds(bw, aw, rej, lam=lam, delta=delta)
        lower.append(lo)
        upper.append(hi)
        rho = rej.mean()
        eps_sel = aw[~rej].mean() if (~rej).any() else 0.0
        plug_in.append(bw.mean() - eps_sel - lam * rho)
        lam_cert.append(gcul_theory.certified_lambda(bw, aw, rej, delta=delta))
    true_u = _CAL_EPS - _CAL_EPS_SEL - lam * _CAL_RHO
    true_critical = (_CAL_EPS - _CAL_EPS_SEL) / _CAL_RHO

    fig = _new_figure()
    left, right = fig.subplots(1, 2)
    _style(left)
    left.fill_between(
        sizes,
        lower,
        upper,
        color=OKABE_ITO["sky_blue"],
        alpha=0.35,
        label=f"[lower, upper]: a {1 - 2 * delta:g} interval",
    )
    left.semilogx(
        sizes,
        lower,
        color=OKABE_ITO["blue"],
        marker="^",
        markersize=9,
        linewidth=_LINE,
        label=f"lower bound ({1 - delta:g})",
    )
    left.semilogx(
        sizes,
        upper,
        color=OKABE_ITO["blue"],
        marker="v",
        markersize=9,
        linewidth=_LINE,
        linestyle="--",
        label=f"upper bound ({1 - delta:g})",
    )
    left.semilogx(
        sizes,
        plug_in,
        color=OKABE_ITO["vermillion"],
        marker="o",
        markersize=7,
        linestyle="none",
        label="plug-in estimate",
    )
    left.axhline(true_u, color="black", linewidth=2, label=f"true U({lam:g}) = {true_u:.3f}")
    left.axhline(0.0, color="0.4", linestyle=":", linewidth=2)
    left.set_ylim(max(min(lower) - 0.02, -0.3), max(upper) + 0.02)
    left.set_xlabel("calibration samples n", fontsize=_TEXT)
    left.set_ylabel(f"utility U({lam:g})", fontsize=_TEXT)
    left.set_title("Certified bounds on U(λ) close in", fontsize=_TEXT)
    _legend(left, *left.get_legend_handles_labels(), loc="upper right")

    _style(right)
    right.semilogx(
        sizes,
        lam_cert,
        color=OKABE_ITO["green"],
        marker="s",
        markersize=9,
        linewidth=_LINE,
        label=f"{_CERT} (δ = {delta:g})",
    )
    right.axhline(
        true_critical, color="black", linewidth=2, label=f"true critical cost {true_critical:g}"
    )
    right.axhline(lam, color="0.4", linestyle=":", linewidth=2, label=f"λ = {lam:g}")
    right.set_ylim(0, 1)
    right.set_xlabel("calibration samples n", fontsize=_TEXT)
    right.set_ylabel(_CERT, fontsize=_TEXT)
    right.set_title(f"{_CERT} rises towards the truth from below", fontsize=_TEXT)
    _legend(right, *right.get_legend_handles_labels(), loc="center right")
    fig.suptitle(
        "The certified predictor needs data: its interval shrinks roughly like 1/√n",
        fontsize=_TITLE,
    )
    return fig


# --------------------------------------------------------------------------------------------
# Notebook 4: the phase transition
# --------------------------------------------------------------------------------------------


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

    levels = _check_int("levels", levels, 2, 51)
    grid = noise_levels(levels, step)
    return list(run_sweep(grid, list(seeds), n_jobs=n_jobs, config=config, progress=progress))


def _phase_panel(ax: Axes, rows, method: str, lam: float) -> tuple[int, int, list, list]:
    pre_column, emp_column = judged_columns(method)
    pre = summarize_across_seeds(rows, pre_column)
    emp = summarize_across_seeds(rows, emp_column)
    type_i, type_ii = violation_masks(rows, lam, method)
    noise = np.array([row["noise"] for row in rows], dtype=float)
    emp_values = np.array([row[emp_column] for row in rows], dtype=float)
    blue, vermillion = OKABE_ITO["blue"], OKABE_ITO["vermillion"]
    _style(ax)
    ax.fill_between(pre.noise, pre.low, pre.high, color=blue, alpha=0.2, linewidth=0)
    ax.fill_between(emp.noise, emp.low, emp.high, color=vermillion, alpha=0.2, linewidth=0)
    (pre_line,) = ax.plot(pre.noise, pre.mean, color=blue, linewidth=_LINE)
    (emp_line,) = ax.plot(emp.noise, emp.mean, color=vermillion, linestyle="--", linewidth=_LINE)
    target = ax.axhline(lam, color="black", linestyle=":", linewidth=2)
    (i_marks,) = ax.plot(
        noise[type_i],
        emp_values[type_i],
        linestyle="none",
        marker="o",
        markersize=12,
        markerfacecolor="none",
        markeredgecolor="black",
        markeredgewidth=2,
    )
    (ii_marks,) = ax.plot(
        noise[type_ii],
        emp_values[type_ii],
        linestyle="none",
        marker="X",
        markersize=13,
        color=OKABE_ITO["purple"],
        markeredgecolor="black",
        markeredgewidth=1,
    )
    n_i, n_ii = int(type_i.sum()), int(type_ii.sum())
    name = _CERT if method == CERTIFIED else f"{_PRE} {method}"
    ax.set_title(f"{name} ({_kind_word(method)}):\nType-I {n_i}, Type-II {n_ii}", fontsize=_TEXT)
    ax.set_xlabel("noise level σ", fontsize=_TEXT)
    band = Patch(color=blue, alpha=0.2, linewidth=0)
    emp_band = Patch(color=vermillion, alpha=0.2, linewidth=0)
    handles = [(band, pre_line), (emp_band, emp_line), target, i_marks, ii_marks]
    labels = [
        "predicted λ* (mean; band min–max)",
        f"{_EMP} on the test split",
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
    rows=None, methods: Sequence[str] = ("union", "hunter_worsley"), lam: float = 0.15
) -> Figure:
    """The paper's phase-transition figure, one panel per predictor, with violations marked.

    Each panel: the across-seed mean of the predictor's λ* (solid) and of λ*_EMP (dashed) with
    their min–max bands, the target λ (dotted), Type-I cells (open circles: predicted
    infeasible, yet rejecting paid) and Type-II cells (crosses: predicted feasible, yet it did
    not pay) at their (σ, λ*_EMP). The paper's figure (``fig:synthetic_dynamics``) is the
    ``"union"`` panel.

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
    lam = _check_real("lam", lam, 0.0, 1.0, open_high=True)
    methods = tuple(methods)
    if not 1 <= len(methods) <= 3:
        raise ValueError(f"methods must name 1 to 3 predictors; got {len(methods)}")
    fig = _new_figure()
    axes = fig.subplots(1, len(methods), sharey=True, squeeze=False)[0]
    counts = {}
    for ax, method in zip(axes, methods, strict=True):
        n_i, n_ii, handles, labels = _phase_panel(ax, rows, method, lam)
        counts[method] = (n_i, n_ii)
    axes[0].set_ylabel("critical rejection cost λ*", fontsize=_TEXT)
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
    _legend(fig, handles, labels, loc="outside lower center", ncol=3)
    n_seeds = len({row["seed"] for row in rows})
    n_levels = len({row["noise"] for row in rows})
    fig.suptitle(
        f"Rejecting stops paying as noise grows ({n_seeds} seeds × {n_levels} levels)",
        fontsize=_TITLE,
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
    lam = _check_real("lam", lam, 0.0, 1.0, open_high=True)
    # The demo's predictors (not the certified_noisy block the sweep rows now allow).
    methods = predictor_names() if methods is None else methods
    table = violation_table(rows, lam=lam, methods=methods)
    names = list(table.methods)
    type_i = np.array([table[name, "type_i"].count for name in names])
    type_ii = np.array([table[name, "type_ii"].count for name in names])
    fig = _new_figure()
    ax = fig.add_subplot()
    _style(ax)
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
                fontsize=_SMALL,
            )
    ax.set_yticks(position, [f"{name}\n({_kind_word(name)})" for name in names], fontsize=_SMALL)
    ax.set_xlabel(f"violations among {table.total} (seed, σ) cells at λ = {lam:g}", fontsize=_TEXT)
    ax.set_xlim(0, max(1, int(max(type_i.max(), type_ii.max()))) * 1.5)
    _legend(ax, *ax.get_legend_handles_labels(), loc="center right")
    unsafe = [name for name, count in zip(names, type_ii, strict=True) if count]
    unsafe_valid = [
        name for name in unsafe if name == CERTIFIED or gcul_theory.predictor(name).valid
    ]
    if not unsafe:
        finding = "no predictor made an unsafe (Type-II) call"
    elif not unsafe_valid:
        finding = f"unsafe (Type-II) calls only from {', '.join(unsafe)}; none from a valid one"
    else:
        finding = f"unsafe (Type-II) calls from {', '.join(unsafe)}"
    fig.suptitle(f"Violations of the λ* predictors at λ = {lam:g}:\n{finding}", fontsize=_TITLE)
    return fig


# --------------------------------------------------------------------------------------------
# Notebook 5: reading a proof
# --------------------------------------------------------------------------------------------


def _shade_region(ax, r1, r2, mask, colour, alpha, hatch, **edge) -> None:
    """Fill the region where ``mask`` holds (hatched) and draw its boundary with ``edge``."""
    ax.contourf(
        r1, r2, mask.astype(float), levels=[0.5, 1.5], colors=[colour], alpha=alpha, hatches=[hatch]
    )
    ax.contour(r1, r2, mask.astype(float), levels=[0.5], **edge)


def figure_sign_slip(eps: float = 0.1, lam: float = 0.15) -> Figure:
    r"""Where the appendix's "Rearranging terms" line holds, against where rejecting pays.

    Appendix ``app:criterion_derivation`` goes from line 3b, −r1 < −ρ + (λ/ε)ρ(ρ−1) (equivalent
    to U(λ) > 0), to line 4 printed as ρ − r1 > (λ/ε)ρ(1−ρ): the left-hand side changed sign
    (erratum ``criterion.step4_rearrange`` of ``gcul prove``). Left: the printed line 4 holds
    only where rejecting does *not* pay. Right: the corrected line r1 − ρ > (λ/ε)ρ(1−ρ) holds
    exactly where U(λ) > 0. The margins are those of :func:`proofs.criterion_margins`.

    Parameters
    ----------
    eps : float, default 0.1
        Base error rate ε in (0, 1).
    lam : float, default 0.15
        Rejection cost λ in [0, 1).
    """
    import sympy as sp

    from proofs import criterion_margins

    eps = _check_real("eps", eps, 0.0, 1.0, open_low=True, open_high=True)
    lam = _check_real("lam", lam, 0.0, 1.0, open_high=True)
    l_s, e_s, r1_s, r2_s = sp.symbols("lambda epsilon r1 r2", real=True)
    margins = criterion_margins(l_s, e_s, r1_s, r2_s)
    funcs = {
        key: sp.lambdify((l_s, e_s, r1_s, r2_s), margins[key], "numpy")
        for key in ("4", "4_corrected")
    }
    r = np.linspace(0.0, 1.0, 401)
    r1, r2 = np.meshgrid(r, r)
    rho = eps * r1 + (1 - eps) * r2
    inside = (rho > 0) & (rho < 1)
    pays = np.zeros(r1.shape, dtype=bool)
    pays[inside] = gcul_theory.utility(lam, eps, r1[inside], r2[inside]) > 0
    holds = {key: np.where(inside, f(lam, eps, r1, r2) > 0, False) for key, f in funcs.items()}

    fig = _new_figure()
    axes = fig.subplots(1, 2, sharey=True)
    pays_colour, line_colour = OKABE_ITO["green"], OKABE_ITO["orange"]
    for ax, key, title in (
        (axes[0], "4", "As printed: ρ − r₁ > (λ/ε)ρ(1−ρ)"),
        (axes[1], "4_corrected", "Corrected: r₁ − ρ > (λ/ε)ρ(1−ρ)"),
    ):
        _style(ax, grid=False)
        line = holds[key]
        if pays.any():
            _shade_region(
                ax, r1, r2, pays, pays_colour, 0.45, "\\\\", colors=[pays_colour], linewidths=3
            )
        if line.any():
            _shade_region(
                ax,
                r1,
                r2,
                line,
                line_colour,
                0.35,
                "//",
                colors="black",
                linewidths=2.5,
                linestyles="--",
            )
        covered = float(line[pays].mean()) if pays.any() else 0.0
        outside = float(line[inside & ~pays].mean()) if (inside & ~pays).any() else 0.0
        ax.set_title(
            f"{title}\nholds on {100 * covered:.0f}% of the region where rejecting "
            f"pays,\non {100 * outside:.0f}% of the rest",
            fontsize=_TEXT,
        )
        ax.set_xlabel("capture rate $r_1$", fontsize=_TEXT)
    axes[0].set_ylabel("contamination rate $r_2$", fontsize=_TEXT)
    handles = [
        Patch(facecolor=pays_colour, alpha=0.55, hatch="\\\\", edgecolor=pays_colour),
        Patch(facecolor=line_colour, alpha=0.45, hatch="//", edgecolor="black", linestyle="--"),
    ]
    labels = ["U(λ) > 0: rejecting pays\n(line 3b holds)", "the panel's line 4 holds"]
    _legend(axes[1], handles, labels, loc="upper left")
    fig.suptitle(
        f"The sign slip of “Rearranging terms” (ε = {eps:g}, λ = {lam:g}):\nthe printed line "
        "holds only where rejecting does not pay",
        fontsize=_TITLE,
    )
    return fig


# --------------------------------------------------------------------------------------------
# The registry, writing, and sliders
# --------------------------------------------------------------------------------------------


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
        "S rises with r1 and falls with r2 (Theorem monotonicity)",
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
