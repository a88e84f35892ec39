"""Notebook 2, the selectivity score S(ε, r1, r2) (Eq. ``eq:selectivity_score``): its contours
and surface, the utility lines U(λ) = ρ (S − λ), and Theorem ``thm:monotonicity`` made visible.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.patheffects import withStroke

import gcul_theory
from simulations.demo.style import (
    CLASS_COLOURS,
    CLASS_MARKERS,
    LINE,
    SMALL,
    TEXT,
    TITLE,
    legend,
    new_figure,
    style_axes,
)
from simulations.figures import OKABE_ITO
from simulations.validation import check_real

if TYPE_CHECKING:
    from matplotlib.typing import LineStyleType

__all__ = [
    "figure_monotonicity",
    "figure_selectivity_contours",
    "figure_selectivity_surface",
    "figure_utility_lines",
]


def _constrained_layout(fig: Figure) -> ConstrainedLayoutEngine:
    """The layout engine of a :func:`new_figure` figure (constrained layout)."""
    engine = fig.get_layout_engine()
    assert isinstance(engine, ConstrainedLayoutEngine)  # narrowing: new_figure sets it
    return engine


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
        check_real("eps_values", e, 0.0, 1.0, open_low=True, open_high=True) for e in eps_values
    )
    lam = check_real("lam", lam, 0.0, 1.0, open_high=True)
    fig = new_figure()
    axes = fig.subplots(1, len(eps_values), sharey=True, squeeze=False)[0]
    _constrained_layout(fig).set(wspace=0.06)  # keeps "1.0" and the next "0.0" apart
    levels = np.linspace(0.0, 1.0, 11)
    for ax, eps in zip(axes, eps_values, strict=True):
        r1, r2, S = _selectivity_grid(eps)
        filled = ax.contourf(r1, r2, S, levels=levels, cmap="viridis")
        ax.contour(r1, r2, S, levels=levels, colors="white", linewidths=0.6, alpha=0.6)
        if np.nanmax(S) > lam:
            edge = ax.contour(
                r1, r2, S, levels=[lam], colors="black", linewidths=3.5, linestyles="--"
            )
            # set after drawing: contour() ignores a path_effects keyword before matplotlib 3.9
            edge.set_path_effects([withStroke(linewidth=7, foreground="white")])
        ax.plot([0, 1], [0, 1], color="black", linewidth=1.2)
        # taller than wide (both axes are rates in [0, 1]): square panels left a band of 140
        # blank pixel rows between the title and the panels of the 16:9 slide
        ax.set_box_aspect(1.3)
        style_axes(ax, grid=False)
        ax.set_xlabel("capture rate $r_1$", fontsize=TEXT)
        ax.set_title(f"ε = {eps:g}", fontsize=TEXT)
        ax.text(
            0.25,
            0.6,
            "$r_2 > r_1$\n(outside)",
            fontsize=SMALL,
            ha="center",
            va="center",
            transform=ax.transAxes,
        )
    axes[0].set_ylabel("contamination rate $r_2$", fontsize=TEXT)
    bar = fig.colorbar(
        filled, ax=list(axes), shrink=0.6, ticks=levels[::2], location="bottom", aspect=40
    )
    bar.set_label(r"$S_{\mathrm{GCUL}}(\varepsilon, r_1, r_2)$", fontsize=TEXT)
    bar.ax.tick_params(labelsize=SMALL)
    legend(
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
        fontsize=TITLE,
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
    eps = check_real("eps", eps, 0.0, 1.0, open_low=True, open_high=True)
    lam = check_real("lam", lam, 0.0, 1.0, open_high=True)
    r1, r2, S = _selectivity_grid(eps, n=81)
    fig = new_figure()
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
    edge_values = []
    for a in r1_line:
        grid = np.linspace(0.0, a, 2000)
        s = np.asarray(gcul_theory.selectivity_score(eps, np.full_like(grid, a), grid))
        above = s >= lam
        edge_values.append(grid[above][-1] if above.any() else np.nan)
    edge = np.array(edge_values)
    keep = np.isfinite(edge)
    stroke = [withStroke(linewidth=7, foreground="white")]
    ax.plot(
        r1_line[keep],
        edge[keep],
        np.full(keep.sum(), lam),
        color="black",
        linewidth=LINE,
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
    ax.set_xlabel("capture rate $r_1$", fontsize=TEXT, labelpad=14)
    ax.set_ylabel("contamination rate $r_2$", fontsize=TEXT, labelpad=14)
    ax.set_zlabel(r"$S_{\mathrm{GCUL}}$", fontsize=TEXT, labelpad=10)
    ax.tick_params(labelsize=SMALL)
    ax.set_zlim(0, 1)
    ax.view_init(elev=24, azim=122)
    ax.set_box_aspect(
        (1, 1, 0.75), zoom=1.04
    )  # 0.95 left a band of 93 blank pixel rows under the title
    legend(
        fig,
        [
            Patch(color=OKABE_ITO["vermillion"], alpha=0.45),
            Line2D([], [], color="black", linestyle="--", linewidth=LINE, path_effects=stroke),
            Line2D([], [], color="black", linestyle=":", linewidth=2),
        ],
        [f"plane S = λ = {lam:g}", "S = λ on the surface", "S = λ on the floor"],
        loc="center left",
        bbox_to_anchor=(0.02, 0.55),
    )
    fig.suptitle(
        f"S(ε = {eps:g}, r₁, r₂): rejecting pays where the surface is above the plane S = λ",
        fontsize=TITLE,
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
    eps = check_real("eps", eps, 0.0, 1.0, open_low=True, open_high=True)
    lam = check_real("lam", lam, 0.0, 1.0, open_high=True)
    settings = tuple(settings)
    if not 1 <= len(settings) <= 6:
        raise ValueError(f"settings must hold 1 to 6 (r1, r2) pairs; got {len(settings)}")
    for r1, r2 in settings:
        check_real("r1", r1, 0.0, 1.0, open_low=True)
        check_real("r2", r2, 0.0, float(r1))
    fig = new_figure()
    ax = fig.add_subplot()
    style_axes(ax)
    lams = np.linspace(0.0, 1.0, 201)[:-1]  # utility takes λ in [0, 1)
    styles: tuple[LineStyleType, ...] = ("-", "--", "-.", ":", (0, (5, 1, 1, 1)), (0, (8, 2)))
    handles, labels = [], []
    for index, (r1, r2) in enumerate(settings):
        colour, marker = CLASS_COLOURS[index], CLASS_MARKERS[index]
        U = gcul_theory.utility(lams, eps, r1, r2)
        S = float(gcul_theory.selectivity_score(eps, r1, r2))
        ax.plot(lams, U, color=colour, linestyle=styles[index], linewidth=LINE)
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
                linewidth=LINE,
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
        fontsize=SMALL,
    )
    ax.set_xlim(0, 1)
    ax.set_xlabel("rejection cost λ", fontsize=TEXT)
    ax.set_ylabel(
        r"utility $U(\lambda) = \varepsilon - \varepsilon_{\mathrm{clean}} - \lambda\rho$",
        fontsize=TEXT,
    )
    legend(
        ax,
        handles,
        labels,
        loc="upper right",
        title=f"ε = {eps:g}; marker: U = 0 at λ = S",
        title_fontsize=SMALL,
    )
    fig.suptitle(
        "U(λ) = ρ (S − λ): rejecting pays for every λ below S, and for none above", fontsize=TITLE
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
    eps = check_real("eps", eps, 0.0, 1.0, open_low=True, open_high=True)
    r2_values = tuple(check_real("r2_values", v, 0.0, 1.0, open_high=True) for v in r2_values)
    r1_values = tuple(check_real("r1_values", v, 0.0, 1.0, open_low=True) for v in r1_values)
    for name, values in (("r2_values", r2_values), ("r1_values", r1_values)):
        if not 1 <= len(values) <= 5:
            raise ValueError(f"{name} must hold 1 to 5 values; got {len(values)}")
    fig = new_figure()
    left, right = fig.subplots(1, 2, sharey=True)
    styles = ("-", "--", "-.", ":", (0, (5, 1, 1, 1)))
    for index, r2 in enumerate(r2_values):
        r1_grid = np.linspace(max(r2, 1e-3), 1.0, 300)
        left.plot(
            r1_grid,
            gcul_theory.selectivity_score(eps, r1_grid, np.full_like(r1_grid, r2)),
            color=CLASS_COLOURS[index],
            linestyle=styles[index],
            linewidth=LINE,
            label=f"$r_2$ = {r2:g}",
        )
    for index, r1 in enumerate(r1_values):
        r2_grid = np.linspace(0.0, r1, 300)
        right.plot(
            r2_grid,
            gcul_theory.selectivity_score(eps, np.full_like(r2_grid, r1), r2_grid),
            color=CLASS_COLOURS[index],
            linestyle=styles[index],
            linewidth=LINE,
            label=f"$r_1$ = {r1:g}",
        )
    for ax, xlabel, title in (
        (left, "capture rate $r_1$", "S rises with $r_1$ (∂S/∂r₁ > 0)"),
        (right, "contamination rate $r_2$", "S falls with $r_2$ (∂S/∂r₂ < 0)"),
    ):
        style_axes(ax)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel(xlabel, fontsize=TEXT)
        ax.set_title(title, fontsize=TEXT)
    legend(left, *left.get_legend_handles_labels(), loc="lower right")
    legend(right, *right.get_legend_handles_labels(), loc="upper right")
    _constrained_layout(fig).set(wspace=0.08)
    left.set_ylabel(r"$S_{\mathrm{GCUL}}$", fontsize=TEXT)
    fig.suptitle(
        f"Catch more errors, or fewer clean samples, and S goes up (ε = {eps:g})\n"
        "the paper's Theorem “Strict Monotonicity of Selectivity Score”",
        fontsize=TITLE,
    )
    return fig
