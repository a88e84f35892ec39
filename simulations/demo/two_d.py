"""Notebook 1, GCUL in two dimensions: :func:`fit_2d` and :func:`figure_gcul_2d`.

GCUL fitted on three classes and a confusion population in the plane, and the three phases drawn
side by side: phase-1 regions and the error pool, the K-Means clusters and their purities, phase-3
regions with the rejected area hatched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.artist import Artist
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

import gcul_theory
from simulations.demo.style import (
    CLASS_COLOURS,
    CLASS_MARKERS,
    EMP,
    SMALL,
    TEXT,
    UNCERTAIN_COLOUR,
    legend,
    new_figure,
    style_axes,
)
from simulations.gcul import GCUL
from simulations.synthetic import SyntheticConfig, make_dataset
from simulations.validation import check_int, check_real

__all__ = ["TwoDimensionalRun", "figure_gcul_2d", "fit_2d"]

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
    noise = check_real("noise", noise, 0.0, 10.0)
    separation = check_real("separation", separation, 0.0, 20.0, open_low=True)
    seed = check_int("seed", seed, 0, 2**32 - 1)
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


PANEL_HEIGHT_RATIO = 1.15
"""Height over width of the plane shown in each panel of :func:`figure_gcul_2d`: with equal
axis scales, three panels side by side on a 16:9 slide fill its height at about this ratio (at
1:1 they left bands of 77 blank pixel rows above and below them)."""


def _plane_grid(X: np.ndarray, n: int = 300, height_ratio: float = 1.0):
    """A grid over the samples' bounding box, padded by 6 %, its y span at least
    ``height_ratio`` times its x span (widened about its centre)."""
    low, high = X.min(axis=0), X.max(axis=0)
    pad = 0.06 * (high - low)
    low, high = low - pad, high + pad
    span_x, span_y = high - low
    if span_y < height_ratio * span_x:
        centre, half = 0.5 * (low[1] + high[1]), 0.5 * height_ratio * span_x
        low[1], high[1] = centre - half, centre + half
    xs = np.linspace(low[0], high[0], n)
    ys = np.linspace(low[1], high[1], n)
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
    gx, gy, points = _plane_grid(np.concatenate([X, data.X_test]), height_ratio=PANEL_HEIGHT_RATIO)
    regions1 = model.phase1_.predict(points).reshape(gx.shape)
    regions3 = model.predict(points).reshape(gx.shape)
    light = ListedColormap([CLASS_COLOURS[k] for k in range(K)] + ["white"])

    def shade(ax, regions):
        """Light class regions over the grid (NaN: left blank)."""
        ax.pcolormesh(
            gx,
            gy,
            regions,
            cmap=light,
            vmin=-0.5,
            vmax=K + 0.5,
            alpha=0.18,
            shading="auto",
            rasterized=True,
        )

    fig = new_figure()
    axes = fig.subplots(1, 3, sharex=True, sharey=True)
    for ax in axes:
        style_axes(ax, grid=False)
        ax.set_aspect("equal")
        ax.set_xlabel("$x_1$", fontsize=TEXT)
    axes[0].set_ylabel("$x_2$", fontsize=TEXT)

    # Phase 1: regions, samples, error pool, initial centres.
    ax = axes[0]
    shade(ax, regions1)
    for k in range(K):
        mine = y == k
        ax.scatter(
            X[mine, 0],
            X[mine, 1],
            s=12,
            marker=CLASS_MARKERS[k],
            color=CLASS_COLOURS[k],
            alpha=0.45,
            linewidths=0,
        )
    errors = model.error_mask_
    ax.scatter(X[errors, 0], X[errors, 1], s=22, marker="x", color="black", linewidths=1.0)
    init = model.init_centers_
    for k in range(K):
        ax.plot(
            *init[k],
            marker=CLASS_MARKERS[k],
            markersize=16,
            color=CLASS_COLOURS[k],
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
    ax.set_title(f"1. Phase 1: {int(errors.sum())} training errors", fontsize=TEXT)

    # Phase 2: clusters and purities.
    ax = axes[1]
    clusters = model.cluster_labels_
    uncertain = model.uncertain_cluster_
    for c in range(len(model.cluster_centers_)):
        mine = clusters == c
        colour = UNCERTAIN_COLOUR if c == uncertain else CLASS_COLOURS[c % len(CLASS_COLOURS)]
        marker = "x" if c == uncertain else CLASS_MARKERS[c % len(CLASS_MARKERS)]
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
            marker="*" if c == uncertain else CLASS_MARKERS[c % 7],
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
            fontsize=SMALL,
            fontweight="bold" if c == uncertain else None,
            bbox={
                "boxstyle": "round,pad=0.2",
                "facecolor": "white",
                "alpha": 0.85,
                "edgecolor": "none",
            },
        )
    ax.set_title("2. K-Means: least pure → uncertain", fontsize=TEXT)

    # Phase 3: regions with the rejected area hatched, and the test samples.
    ax = axes[2]
    shade(ax, np.where(regions3 == K, np.nan, regions3))
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
            marker=CLASS_MARKERS[k],
            color=CLASS_COLOURS[k],
            alpha=0.7,
            linewidths=0,
        )
    ax.set_title(f"3. Phase 3: {100 * run.rejection_rate:.0f}% of test rejected", fontsize=TEXT)

    fig.suptitle(
        f"GCUL in 2-D (σ = {run.noise:g}, S = {run.separation:g}): the confusion cluster "
        "becomes the rejected region\n"
        f"test split: accuracy {100 * run.base_accuracy:.1f}% → "
        f"{100 * run.selective_accuracy:.1f}% on accepted samples, "
        f"{100 * run.rejection_rate:.1f}% rejected, {EMP} = {run.lambda_emp:.2f}",
        fontsize=TEXT + 1,
    )
    handles: list[Artist] = [
        Line2D(
            [],
            [],
            marker=CLASS_MARKERS[k],
            color=CLASS_COLOURS[k],
            linestyle="none",
            markersize=10,
        )
        for k in range(K)
    ]
    labels = [f"class {k}" for k in range(K)]
    handles += [
        Line2D([], [], marker="x", color="black", linestyle="none", markersize=9, mew=1.5),
        *(
            Line2D(
                [],
                [],
                marker=marker,
                color="white",
                markeredgecolor="black",
                mew=2,
                linestyle="none",
                markersize=size,
            )
            for marker, size in (("o", 13), ("*", 18))
        ),
        Patch(facecolor="0.6", alpha=0.6, hatch="//", edgecolor="black"),
    ]
    labels += [
        "error / uncertain",
        "initial or final centre",
        "error-pool median",
        "rejected region",
    ]
    legend(fig, handles, labels, loc="outside lower center", ncol=4)
    return fig
