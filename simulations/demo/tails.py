"""Notebook 3, tails and bounds: the Gaussian loss tail computed three ways against Monte Carlo,
every predictor's r̂1 against the true capture rate as the number of classes grows (Lemma
``lem:projection_tails``, Theorems ``thm:global_rate_bounds`` and ``thm:r1_rigorous``), and the
certified interval on U(λ) shrinking with the calibration set.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.container import Container, ErrorbarContainer
from matplotlib.figure import Figure

import gcul_theory
from simulations import registry
from simulations.demo.style import (
    CERT,
    LINE,
    SMALL,
    TEXT,
    TITLE,
    kind_word,
    legend,
    new_figure,
    style_axes,
)
from simulations.figures import OKABE_ITO
from simulations.validation import check_int, check_real

__all__ = ["figure_capture_vs_classes", "figure_certified_interval", "figure_tails"]


def _monte_carlo(ax: Axes, x, y, yerr, **look: Any) -> ErrorbarContainer:
    """Monte Carlo estimates with their error bars: white circles edged in black, and ``look``."""
    return ax.errorbar(
        x,
        y,
        yerr=yerr,
        fmt="o",
        markerfacecolor="white",
        markeredgecolor="black",
        ecolor="black",
        capsize=4,
        **look,
    )


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

    max_ratio = check_real("max_ratio", max_ratio, 2.0, 40.0)
    n_draws = check_int("n_draws", n_draws, 1000, 10**7)
    seed = check_int("seed", seed, 0, 2**32 - 1)
    ratio = np.linspace(0.0, max_ratio, 401)
    exact = np.asarray(gcul_theory.gaussian_tail(ratio, 1.0))  # an array already (ratio is one)
    chernoff = gcul_theory.chernoff_tail(ratio, 1.0)
    naive = 0.5 * (1.0 - erf(ratio / (2.0 * math.sqrt(2.0))))
    draws = np.sort(np.random.default_rng(seed).standard_normal(n_draws))
    mc_ratio = np.arange(0.0, max_ratio + 1e-9, 1.0)
    counts = n_draws - np.searchsorted(draws, mc_ratio / 2.0, side="right")
    p_hat = counts / n_draws
    se = np.sqrt(p_hat * (1 - p_hat) / n_draws)
    seen = counts > 0

    fig = new_figure()
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.6, 1]})
    style_axes(left)
    left.semilogy(
        ratio,
        chernoff,
        color=OKABE_ITO["vermillion"],
        linestyle="--",
        linewidth=LINE,
        label="Chernoff bound exp(−D²/8σ²)",
    )
    left.semilogy(
        ratio, exact, color=OKABE_ITO["blue"], linewidth=LINE, label="exact: ½ erfc(D/(2√2σ))"
    )
    shown = naive > 0
    left.semilogy(
        ratio[shown],
        naive[shown],
        color=OKABE_ITO["orange"],
        linestyle=":",
        linewidth=LINE + 1,
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
            fontsize=SMALL,
        )
    _monte_carlo(
        left,
        mc_ratio[seen],
        p_hat[seen],
        2 * se[seen],
        markersize=9,
        label=f"Monte Carlo, {n_draws:,} draws (±2 SE)",
    )
    left.set_ylim(max(float(exact[-1]) / 10, 1e-90), 1.0)
    left.set_xlim(0, max_ratio)
    left.set_xlabel("separation D/σ", fontsize=TEXT)
    left.set_ylabel("tail probability", fontsize=TEXT)
    legend(left, *left.get_legend_handles_labels(), loc="lower left")
    left.set_title("Tails on a log scale", fontsize=TEXT)

    style_axes(right)
    right.plot(
        ratio, chernoff / exact, color=OKABE_ITO["vermillion"], linestyle="--", linewidth=LINE
    )
    right.set_ylim(0, None)
    right.set_xlim(0, max_ratio)
    right.set_xlabel("separation D/σ", fontsize=TEXT)
    right.set_ylabel("Chernoff / exact", fontsize=TEXT)
    right.set_title("How loose Chernoff is", fontsize=TEXT)
    fig.suptitle(
        "Both tails shrink as D/σ grows; Chernoff stays an upper bound, loose by a growing factor",
        fontsize=TITLE,
    )
    return fig


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

    ratio = check_real("ratio", ratio, 1.0, 12.0)
    max_classes = check_int("max_classes", max_classes, 4, 60)
    n_draws = check_int("n_draws", n_draws, 100, 10**6)
    seed = check_int("seed", seed, 0, 2**32 - 1)
    classes = np.arange(2, max_classes + 1)
    p = float(gcul_theory.gaussian_tail(ratio, 1.0))
    truth = (1.0 - p) ** classes
    r1_hat = {
        name: np.array(
            [
                float(gcul_theory.capture_rate_bound(_orthogonal_geometry(int(C), ratio), name))
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

    fig = new_figure()
    ax = fig.add_subplot()
    style_axes(ax)
    handles: list[Artist | Container] = []  # errorbar returns a Container
    labels: list[str] = []
    (true_line,) = ax.plot(classes, truth, color="black", linewidth=LINE + 3, zorder=2)
    for name in gcul_theory.METHODS:
        style = registry.method(name).style
        (line,) = ax.plot(
            classes,
            r1_hat[name],
            color=style.colour,
            linestyle=style.linestyle,
            marker=style.marker,
            markevery=4,
            markersize=10,
            linewidth=LINE,
            zorder=3,
        )
        handles.append(line)
        labels.append(f"{name} ({kind_word(name)})")
    mc_artist = _monte_carlo(
        ax,
        checked,
        mc,
        2 * np.array(mc_se),
        markersize=11,
        markeredgewidth=2,
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
            fontsize=SMALL,
            bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": "none"},
        )
    ax.set_xlim(1.5, max_classes + 0.5)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("number of classes C", fontsize=TEXT)
    ax.set_ylabel("capture rate r₁ (predicted or true)", fontsize=TEXT)
    legend(
        fig,
        handles,
        labels,
        loc="outside right center",
        title=f"D/σ = {ratio:g}",
        title_fontsize=SMALL,
    )
    fig.suptitle(
        "With many classes the paper's r̂₁ overshoots the true capture rate; the valid bounds "
        "stay below",
        fontsize=TITLE,
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
    lam = check_real("lam", lam, 0.0, 0.75, open_high=True)
    delta = check_real("delta", delta, 0.0, 0.5, open_low=True, open_high=True)
    max_n = check_int("max_n", max_n, 1000, 200_000)
    seed = check_int("seed", seed, 0, 2**32 - 1)
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

    fig = new_figure()
    left, right = fig.subplots(1, 2)
    style_axes(left)
    left.fill_between(
        sizes,
        lower,
        upper,
        color=OKABE_ITO["sky_blue"],
        alpha=0.35,
        label=f"[lower, upper]: a {1 - 2 * delta:g} interval",
    )
    for bound, marker, linestyle, side in ((lower, "^", "-", "lower"), (upper, "v", "--", "upper")):
        left.semilogx(
            sizes,
            bound,
            color=OKABE_ITO["blue"],
            marker=marker,
            markersize=9,
            linewidth=LINE,
            linestyle=linestyle,
            label=f"{side} bound ({1 - delta:g})",
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
    left.set_xlabel("calibration samples n", fontsize=TEXT)
    left.set_ylabel(f"utility U({lam:g})", fontsize=TEXT)
    left.set_title("Certified bounds on U(λ) close in", fontsize=TEXT)
    legend(left, *left.get_legend_handles_labels(), loc="upper right")

    style_axes(right)
    right.semilogx(
        sizes,
        lam_cert,
        color=OKABE_ITO["green"],
        marker="s",
        markersize=9,
        linewidth=LINE,
        label=f"{CERT} (δ = {delta:g})",
    )
    right.axhline(
        true_critical, color="black", linewidth=2, label=f"true critical cost {true_critical:g}"
    )
    right.axhline(lam, color="0.4", linestyle=":", linewidth=2, label=f"λ = {lam:g}")
    right.set_ylim(0, 1)
    right.set_xlabel("calibration samples n", fontsize=TEXT)
    right.set_ylabel(CERT, fontsize=TEXT)
    right.set_title(f"{CERT} rises towards the truth from below", fontsize=TEXT)
    legend(right, *right.get_legend_handles_labels(), loc="center right")
    fig.suptitle(
        "The certified predictor needs data: its interval shrinks roughly like 1/√n",
        fontsize=TITLE,
    )
    return fig
