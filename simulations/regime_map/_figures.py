"""The regime map's figures: the phase diagrams and the outcome against each predictor.

Drawn on :class:`matplotlib.figure.Figure` objects, never through ``pyplot`` (as
:mod:`simulations.figures`): they save without a display and leave the user's backend alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.colors
import matplotlib.ticker
import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from simulations.figures import save_figure
from simulations.regime_map._grid import ALPHA, FACTORS, NAMES, share
from simulations.regime_map._summaries import PREDICTORS
from simulations.regime_map._text import FT_REP

__all__ = ["axis_label", "plot_map", "plot_predictors"]


def axis_label(name: str, value: float) -> str:
    """A factor's value as the tables and figures print it: q (three decimals) for
    ``n_confusion``, else the value itself (``%g``).

    Parameters
    ----------
    name : str
        A factor's name (:data:`FACTORS`).
    value : float
        Its value.

    Returns
    -------
    str

    Examples
    --------
    >>> from simulations.regime_map import axis_label
    >>> axis_label("n_confusion", 2000), axis_label("sigma", 4.0)
    ('0.167', '4')
    """
    if name == "n_confusion":
        return f"{share(int(value)):.3f}"
    return f"{value:g}"


def plot_map(diagrams: list[dict], path: Path, n_seeds: int) -> Figure:
    """One panel per pair: GCUL − MSP (points), zero contour, Holm-significant cells marked.

    The colour scale has two slopes (0 at the centre, the most negative and the most positive
    cell at the ends), so GCUL's small wins are as visible as MSP's larger ones.

    Parameters
    ----------
    diagrams : list of dict
        :func:`phase_diagrams`' result, six of them (a 2 × 3 grid of panels).
    path : pathlib.Path
        Where the figure is saved (:func:`simulations.figures.save_figure`; ``.png``: one file).
    n_seeds : int
        The seeds per cell, as the title says.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn and saved.
    """
    low = min(min(np.nanmin(d["diff"]) for d in diagrams) * 100.0, -0.01)
    high = max(max(np.nanmax(d["diff"]) for d in diagrams) * 100.0, 0.01)
    norm = matplotlib.colors.TwoSlopeNorm(vmin=low, vcenter=0.0, vmax=high)
    fig = Figure(figsize=(15, 9.2), layout="constrained")
    axes = fig.subplots(2, 3)
    for ax, d in zip(axes.flat, diagrams, strict=True):
        first, second = d["pair"]
        f, g = FACTORS[first], FACTORS[second]
        z = 100.0 * d["diff"]
        image = ax.imshow(z, origin="lower", cmap="PuOr_r", norm=norm, aspect="auto")
        if np.nanmin(z) < 0.0 < np.nanmax(z):
            ax.contour(np.arange(z.shape[1]), np.arange(z.shape[0]), z, levels=[0.0],
                       colors="black", linewidths=1.6)  # fmt: skip
        rows_, cols_ = np.nonzero(d["significant"])
        better = z[rows_, cols_] < 0
        ax.scatter(cols_[better], rows_[better], marker="o", s=22, c="white", edgecolors="black",
                   linewidths=0.8, label="GCUL lower, Holm-significant")  # fmt: skip
        ax.scatter(cols_[~better], rows_[~better], marker="x", s=24, c="black",
                   linewidths=1.2, label="MSP lower, Holm-significant")  # fmt: skip
        ax.set_xticks(range(len(g.grid)), [axis_label(second, v) for v in g.grid], fontsize=8)
        ax.set_yticks(range(len(f.grid)), [axis_label(first, v) for v in f.grid], fontsize=8)
        ax.set_xlabel(f"{g.symbol}: {g.title}", fontsize=8.5)
        ax.set_ylabel(f"{f.symbol}: {f.title}", fontsize=8.5)
        others = ", ".join(
            f"{FACTORS[n].symbol} = {axis_label(n, FACTORS[n].default)}"
            for n in NAMES if n not in (first, second)
        )  # fmt: skip
        ax.set_title(f"GCUL − MSP over {f.symbol} × {g.symbol} ({others})", fontsize=9)
    bar = fig.colorbar(
        image, ax=axes, shrink=0.6, label="GCUL − MSP selective risk at GCUL's coverage (points)"
    )
    negative = np.linspace(low, 0.0, 4)[:-1]
    positive = np.linspace(0.0, high, 5)
    ticks: Any = np.concatenate([negative, positive])
    bar.set_ticks(ticks)
    bar.ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%+.2f"))
    handles, labels = axes.flat[0].get_legend_handles_labels()
    handles.append(Line2D([], [], color="black", lw=1.6))
    labels.append("sign boundary (zero contour)")
    fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=9)
    fig.suptitle(
        f"Where GCUL's rejection beats MSP's: orange = MSP lower risk, purple = GCUL lower "
        f"(two-slope colour scale); {n_seeds} seeds per cell, Holm over each panel's cells at "
        f"{ALPHA:.0%}",
        fontsize=11,
    )
    save_figure(fig, path)
    return fig


def plot_predictors(
    summaries: list[dict], table: list[dict], text: list[dict], path: Path, n_seeds: int
) -> Figure:
    """GCUL − MSP of every setting against each predictor; held-out settings filled; text
    corpora as labelled markers.

    Parameters
    ----------
    summaries : list of dict
        :func:`summarise_settings`' rows.
    table : list of dict
        :func:`predictor_table`'s rows with ``auc_se_boot`` (:func:`add_bootstrap_se`); the
        block ``"all"`` gives each panel's threshold and title.
    text : list of dict
        :func:`summarise_text`' rows (may be empty): one marker per corpus × representation
        (× fine-tuning seed), ± its SE.
    path : pathlib.Path
        Where the figure is saved (:func:`simulations.figures.save_figure`).
    n_seeds : int
        The seeds per setting, as the title says.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn and saved, one panel per predictor of :data:`PREDICTORS`.
    """
    fig = Figure(figsize=(15, 8.6), layout="constrained")
    axes = fig.subplots(2, 3)
    aucs = {r["predictor"]: r for r in table if r["settings"] == "all"}
    markers = {"oof_logistic": "s", "lsa": "^", "wordllama": "D", FT_REP: "*"}
    sizes = {FT_REP: 13}
    colours = {"carer": "#0072B2", "goemotions": "#D55E00"}
    for ax, (column, label, _, _) in zip(axes.flat, PREDICTORS, strict=True):
        for held, style in ((0, {"facecolors": "none", "edgecolors": "#999999"}),
                            (1, {"c": "#555555"})):  # fmt: skip
            pts = [s for s in summaries if s["held_out"] == held and np.isfinite(s["diff"])]
            ax.scatter([s[column] for s in pts], [100 * s["diff"] for s in pts], s=10, lw=0.6,
                       label="held-out setting" if held else "setting used for the choice",
                       **style)  # fmt: skip
        labelled = set()
        for t in text:
            key = (t["corpus"], t["representation"])
            if t["representation"] == FT_REP:  # one legend entry for all its seeds
                seeds = [u["seed"] for u in text if (u["corpus"], u["representation"]) == key]
                entry = f"{t['corpus']} / fine-tuned, held out (H), seeds {', '.join(map(str, seeds))}"
            else:
                entry = f"{t['corpus']} / {t['representation']}"
            ax.errorbar(t[column], 100 * t["diff"], yerr=100 * t["diff_se"], fmt=markers[t["representation"]],
                        color=colours[t["corpus"]], ms=sizes.get(t["representation"], 7), mec="black",
                        capsize=2, zorder=3,
                        label="_nolegend_" if key in labelled else entry)  # fmt: skip
            labelled.add(key)
        ax.axhline(0.0, color="black", lw=0.8)
        row = aucs[column]
        if np.isfinite(row["threshold"]):
            ax.axvline(row["threshold"], color="#009E73", lw=1.2, ls="--",
                       label="threshold chosen on the other half")  # fmt: skip
        ax.set_xlabel(label, fontsize=9)
        ax.set_ylabel("GCUL − MSP (points; < 0: GCUL better)", fontsize=9)
        ax.set_title(
            f"held-out AUC {row['auc']:.2f}; SE {row['auc_se']:.2f} (DeLong), "
            f"{row['auc_se_boot']:.2f} (bootstrap:\nseeds and settings)",
            fontsize=9.5,
        )
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=5, fontsize=8.5)
    fig.suptitle(
        "Does a training-split quantity predict whether GCUL beats MSP? One point per setting "
        f"(mean of {n_seeds} seeds); text corpora: mean ± SE over 5 splits (fine-tuned: one "
        "star per fine-tuning seed)",
        fontsize=11,
    )
    save_figure(fig, path)
    return fig
