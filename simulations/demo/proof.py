"""Notebook 5, reading a proof: where the appendix's "Rearranging terms" line
(``app:criterion_derivation``) holds, against where rejecting pays.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch

import gcul_theory
from simulations.demo.style import TEXT, TITLE, legend, new_figure, style_axes
from simulations.figures import OKABE_ITO
from simulations.validation import check_real

__all__ = ["figure_sign_slip"]


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

    eps = check_real("eps", eps, 0.0, 1.0, open_low=True, open_high=True)
    lam = check_real("lam", lam, 0.0, 1.0, open_high=True)
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

    fig = new_figure()
    axes = fig.subplots(1, 2, sharey=True)
    pays_colour, line_colour = OKABE_ITO["green"], OKABE_ITO["orange"]
    for ax, key, title in (
        (axes[0], "4", "As printed: ρ − r₁ > (λ/ε)ρ(1−ρ)"),
        (axes[1], "4_corrected", "Corrected: r₁ − ρ > (λ/ε)ρ(1−ρ)"),
    ):
        style_axes(ax, grid=False)
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
            fontsize=TEXT,
        )
        ax.set_xlabel("capture rate $r_1$", fontsize=TEXT)
    axes[0].set_ylabel("contamination rate $r_2$", fontsize=TEXT)
    handles = [
        Patch(facecolor=pays_colour, alpha=0.55, hatch="\\\\", edgecolor=pays_colour),
        Patch(facecolor=line_colour, alpha=0.45, hatch="//", edgecolor="black", linestyle="--"),
    ]
    labels = ["U(λ) > 0: rejecting pays\n(line 3b holds)", "the panel's line 4 holds"]
    legend(axes[1], handles, labels, loc="upper left")
    fig.suptitle(
        f"The sign slip of “Rearranging terms” (ε = {eps:g}, λ = {lam:g}):\nthe printed line "
        "holds only where rejecting does not pay",
        fontsize=TITLE,
    )
    return fig
