r"""The text benchmark's two figures, drawn from its per-split rows.

- :func:`plot_operating`: selective accuracy against rejection rate, each baseline along its
  knob and GCUL's own point, one panel per corpus and representation, and the GCUL paper's
  own curves (its figure "Operating-point sensitivity of selective classification baselines",
  in kind);
- :func:`plot_sweep`: λ*_PRE (valid and paper's), λ*_CERT and λ*_EMP across PCA dimensions
  (its figures "Theoretical and empirical critical rejection costs across representation
  dimensions.", in kind).

As every figure of :mod:`simulations.figures`, they are drawn on a
:class:`matplotlib.figure.Figure` with an Agg canvas, never through ``pyplot``: no display, no
backend of the user's touched, nothing to close. Save them with
:func:`simulations.figures.save_figure`. Colours are Okabe–Ito.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from simulations.registry import PAPER_METHOD
from simulations.text.measures import DELTA, REDUCED, VALID
from simulations.text.paper_values import PAPER, PAPER_GCUL, PAPER_OPERATING
from simulations.text.study import CORPUS_TITLE, LAM
from simulations.text.tables import SHORT, nan_mean, select
from simulations.text.tasks import ALL_REPS

__all__ = ["COLORS", "SWEEP_YLIM", "plot_operating", "plot_sweep", "thin_tick_labels"]

COLORS = {"oof_logistic": "#0072B2", "lsa": "#E69F00", "wordllama": "#009E73",
          "finetuned_paper": "#CC79A7", "finetuned_valtest": "#882255", "paper": "#000000"}  # fmt: skip
"""Each panel's colour: its representation's (Okabe–Ito), the paper's black."""
SWEEP_YLIM = (-0.4, 1.1)
"""The y range of :func:`plot_sweep` (a mean λ*_EMP over splits with ρ near 0 can be far out)."""


def _figure(size: tuple[float, float]) -> Figure:
    """A figure of ``size`` inches on its own Agg canvas (what ``pyplot`` would give, without it)."""
    fig = Figure(figsize=size)
    FigureCanvasAgg(fig)
    return fig


def _check_corpora(corpora: Sequence[str]) -> None:
    if not corpora or any(c not in PAPER_GCUL for c in corpora):
        raise ValueError(f"corpora must be a non-empty list of {', '.join(PAPER_GCUL)}; got {list(corpora)!r}")


def plot_operating(points: Sequence[Mapping[str, Any]], corpora: Sequence[str]) -> Figure:
    """Selective accuracy against rejection rate: each baseline along its knob, GCUL's point.

    One row of panels per corpus, one column per representation present in ``points`` and one
    for the paper's appendix numbers (:data:`~simulations.text.paper_values.PAPER_OPERATING`);
    each curve is the mean over splits or seeds at every knob value, the star GCUL's own point,
    the dotted line phase 1's accuracy.

    Parameters
    ----------
    points : sequence of mapping
        The rows of ``operating_points.csv``.
    corpora : sequence of str
        The corpora to draw, in order (keys of :data:`~simulations.text.paper_values.PAPER_GCUL`).

    Returns
    -------
    matplotlib.figure.Figure
        Laid out, with a title and a legend above the panels.

    Raises
    ------
    ValueError
        ``corpora`` is empty or names an unknown corpus.
    """
    _check_corpora(corpora)
    columns = [*(m for m in ALL_REPS if select(points, representation=m)), "paper"]
    fig = _figure((3.4 * len(columns), 3.1 * len(corpora) + 1.0))
    axes = fig.subplots(len(corpora), len(columns), squeeze=False)
    markers = {"msp": "o-", "selectivenet": "s-", "mahalanobis": "^-", "head_msp": "D--"}
    shades = {"msp": 1.0, "selectivenet": 0.65, "mahalanobis": 0.35, "head_msp": 1.0}
    for i, corpus in enumerate(corpora):
        for j, column in enumerate(columns):
            ax = axes[i, j]
            color = COLORS[column]
            for m in markers:
                if m == "head_msp" and not select(points, corpus=corpus, representation=column, method=m):
                    continue
                if column == "paper":
                    pts = PAPER_OPERATING[corpus][m]
                    rej = [p[3] for p in pts]
                    acc = [p[2] for p in pts]
                    base = pts[0][1]
                else:
                    params = sorted({r["param"] for r in select(points, corpus=corpus, representation=column, method=m)})
                    rej, acc = [], []
                    for q in params:
                        part = select(points, corpus=corpus, representation=column, method=m, param=q)
                        rej.append(100 * np.mean([r["rejection"] for r in part]))
                        acc.append(100 * nan_mean([r["sel_acc"] for r in part]))
                    base = 100 * nan_mean([r["base_acc"] for r in select(points, corpus=corpus, representation=column, method="gcul")])
                ax.plot(rej, acc, markers[m], color=color, alpha=shades[m], ms=3, lw=1)
            if column == "paper":
                p = PAPER_GCUL[corpus][REDUCED]
                gx, gy = p[2], p[1]
            else:
                g = select(points, corpus=corpus, representation=column, method="gcul")
                gx = 100 * nan_mean([r["rejection"] for r in g])
                gy = 100 * nan_mean([r["sel_acc"] for r in g])
            ax.plot([gx], [gy], "*", color="#D55E00", ms=13, mec="black", mew=0.6, zorder=5)
            ax.axhline(base, color="grey", ls=":", lw=1)
            ax.set_xlim(-2, 102)
            title = f"{PAPER} (LR on DistilBERT)" if column == "paper" else SHORT[column]
            ax.set_title(f"{CORPUS_TITLE[corpus]}\n{title}", fontsize=8.5)
            ax.set_xlabel("rejection rate (%)", fontsize=8)
            if j == 0:
                ax.set_ylabel("selective accuracy (%)", fontsize=8)
            ax.tick_params(labelsize=7)
    # the legend shows each curve's marker and line in the panels' own colour (a panel's colour is
    # its representation; the first column's colour stands for all), never a colour no curve has
    ink = COLORS[columns[0]]
    handles = [
        Line2D([], [], color=ink, marker="o", ms=3, label="phase-1 MSP + Chow, λ = 0.1 … 1.0"),
        Line2D([], [], color=ink, marker="s", ms=3, alpha=0.65, label="SelectiveNet, c = 0.60 … 0.96"),
        Line2D([], [], color=ink, marker="^", ms=3, alpha=0.35, label="Mahalanobis, q = 100% … 64%"),
        Line2D([], [], color="#D55E00", marker="*", ls="", ms=11, mec="black", label="GCUL (no knob)"),
        Line2D([], [], color="grey", ls=":", label="phase-1 accuracy"),
    ]  # fmt: skip
    if select(points, method="head_msp"):
        handles.insert(3, Line2D([], [], color=ink, marker="D", ls="--", ms=3,
                                     label="fine-tuned head's MSP + Chow, λ = 0.1 … 1.0"))  # fmt: skip
    legend = fig.legend(handles=handles, loc="upper center", ncol=3, fontsize=8, frameon=False,
                        bbox_to_anchor=(0.5, 1 - 0.3 / fig.get_figheight()))
    heading = fig.suptitle(_wrapped("Operating points: selective accuracy against rejection, mean over "
                                    "splits or seeds (colour: the panel's representation)", fig),
                           y=1 - 0.05 / fig.get_figheight(), fontsize=10)  # fmt: skip
    _panels_below(fig, legend, heading)
    return fig


def _panels_below(fig: Figure, legend: Any, heading: Any) -> None:
    """Lay the panels out under the title and the legend, as close as they fit (the legend's
    drawn height decides, not a guess that leaves a gap or an overlap)."""
    fig.canvas.draw()
    legend.set_in_layout(False)
    heading.set_in_layout(False)  # the figure's title, placed by hand above the legend
    top = legend.get_window_extent().transformed(fig.transFigure.inverted()).y0
    fig.tight_layout(rect=(0, 0, 1, top - 0.05 / fig.get_figheight()))


def _wrapped(title: str, fig: Figure) -> str:
    """``title`` broken into lines that fit the figure's width at 10 pt (about 0.09 inch a
    character), so a narrow figure of a reduced run does not clip its title at both edges."""
    return "\n".join(textwrap.wrap(title, width=max(30, int(fig.get_figwidth() / 0.09))))


def thin_tick_labels(fig: Figure, pad_px: float = 3.0) -> list[tuple[int, str]]:
    """Hide x tick labels that would overlap their left neighbour, panel by panel.

    On a log axis the labels of close dimensions (80 and 100, 8 and 10) collide; a label is kept
    if its drawn extent clears the last kept one by ``pad_px`` pixels, and the last label (the
    largest dimension) is always kept, at the cost of its left neighbour. Call after the layout
    is final.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        On a canvas that can render (Agg).
    pad_px : float, default 3
        The least gap, in pixels, between two labels kept; non-negative.

    Returns
    -------
    list of (int, str)
        ``(panel index, label)`` of every label hidden.

    Raises
    ------
    ValueError
        ``pad_px`` is negative or not finite.
    TypeError
        ``fig``'s canvas cannot render (a plain :class:`matplotlib.figure.Figure` without one).
    """
    if not (np.isfinite(pad_px) and pad_px >= 0):
        raise ValueError(f"pad_px must be a finite number >= 0; got {pad_px!r}")
    get_renderer = getattr(fig.canvas, "get_renderer", None)
    if get_renderer is None:
        raise TypeError(f"fig must be on a canvas that renders (Agg); got {type(fig.canvas).__name__}")
    renderer = get_renderer()
    hidden = []
    for index, ax in enumerate(fig.axes):
        labels = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
        if not labels:
            continue
        boxes = [t.get_window_extent(renderer) for t in labels]
        order = sorted(range(len(labels)), key=lambda k: boxes[k].x0)
        kept = [order[0]]
        for k in order[1:]:
            if boxes[k].x0 >= boxes[kept[-1]].x1 + pad_px:
                kept.append(k)
            elif k == order[-1] and len(kept) > 1:  # the largest dimension wins the clash
                kept[-1] = k
        for k in range(len(labels)):
            if k not in kept:
                labels[k].set_visible(False)
                hidden.append((index, labels[k].get_text()))
    return hidden


def plot_sweep(sweep: Sequence[Mapping[str, Any]], corpora: Sequence[str]) -> Figure:
    """λ*_PRE (valid, paper's), λ*_CERT and λ*_EMP across PCA dimensions.

    One row of panels per corpus, one column per representation present in ``sweep`` and one
    for the paper's appendix numbers (:data:`~simulations.text.paper_values.PAPER_GCUL`); each
    curve is the mean over splits or seeds, y clipped to :data:`SWEEP_YLIM`; tick labels that
    would collide are hidden (:func:`thin_tick_labels`).

    Parameters
    ----------
    sweep : sequence of mapping
        The rows of ``pca_sweep.csv``.
    corpora : sequence of str
        The corpora to draw, in order.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        ``corpora`` is empty or names an unknown corpus.
    """
    _check_corpora(corpora)
    columns = [*(m for m in ALL_REPS if select(sweep, representation=m)), "paper"]
    fig = _figure((3.4 * len(columns), 3.0 * len(corpora) + 1.0))
    axes = fig.subplots(len(corpora), len(columns), squeeze=False, sharey=True)
    styles = {
        "lambda_pre_valid": ("o-", "#0072B2", f"λ*_PRE valid ({VALID})"),
        "lambda_pre_paper": ("o--", "#56B4E9", f"λ*_PRE paper's ({PAPER_METHOD})"),
        "lambda_cert": ("d-.", "#009E73", f"λ*_CERT (δ = {DELTA})"),
        "lambda_emp": ("s-", "#D55E00", "λ*_EMP (test)"),
    }
    for i, corpus in enumerate(corpora):
        for j, column in enumerate(columns):
            ax = axes[i, j]
            if column == "paper":
                ds = sorted(PAPER_GCUL[corpus])
                ax.plot(ds, [PAPER_GCUL[corpus][d][3] for d in ds], "o--", color="#56B4E9", ms=4, zorder=4)
                ax.plot(ds, [PAPER_GCUL[corpus][d][4] for d in ds], "s-", color="#D55E00", ms=4)
                title = f"{PAPER} (DistilBERT 768 d)"  # its d sweep is on its fine-tuned embeddings
            else:
                ds = sorted({r["d"] for r in select(sweep, corpus=corpus, representation=column)})
                for c, (style, color, _) in styles.items():
                    means = [nan_mean([r[c] for r in select(sweep, corpus=corpus, representation=column, d=d)]) for d in ds]
                    # where curves coincide (often at 0) the broken lines are drawn over the solid
                    # ones and the solid ones are wider, so that every one stays in sight
                    solid = style.endswith("-") and not style.endswith(("--", "-."))
                    ax.plot(ds, means, style, color=color, ms=5 if solid else 3.5, lw=2.0 if solid else 1.2,
                            zorder=2 if solid else 4)  # fmt: skip
                title = SHORT[column]
            ax.axhline(LAM, color="grey", ls=":", lw=1)
            ax.set_ylim(*SWEEP_YLIM)  # a mean λ*_EMP over splits with ρ near 0 can be far out
            ax.set_xscale("log", base=2)
            ax.set_xticks(ds)
            ax.set_xticklabels([str(d) for d in ds], fontsize=6)
            ax.minorticks_off()
            ax.set_title(f"{CORPUS_TITLE[corpus]}\n{title}", fontsize=8.5)
            ax.set_xlabel("PCA dimensions of phase 2", fontsize=8)
            if j == 0:
                ax.set_ylabel("critical cost λ*", fontsize=8)
            ax.tick_params(labelsize=7)
    handles = [Line2D([], [], color=color, marker=style[0], ls=style[1:], ms=4, label=label)
               for style, color, label in styles.values()]  # fmt: skip
    handles.append(Line2D([], [], color="grey", ls=":", label=f"λ = {LAM}"))
    legend = fig.legend(handles=handles, loc="upper center", ncol=3, fontsize=8, frameon=False,
                        bbox_to_anchor=(0.5, 1 - 0.3 / fig.get_figheight()))
    heading = fig.suptitle(_wrapped("λ*_PRE against λ*_EMP across PCA dimensions, mean over splits or seeds "
                                    f"(y clipped to [{SWEEP_YLIM[0]}, {SWEEP_YLIM[1]}]: the tables hold every "
                                    "value)", fig), y=1 - 0.05 / fig.get_figheight(), fontsize=10)  # fmt: skip
    _panels_below(fig, legend, heading)
    thin_tick_labels(fig)  # 80 and 100 (LSA), 8 and 10 (the paper's panel) collided
    return fig


