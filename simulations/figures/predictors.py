"""Every λ* predictor, one small panel each: the phase-transition panel in the panel style."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from matplotlib.axes import Axes
from matplotlib.container import BarContainer
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, MaxNLocator

from simulations.figures.phase_transition import (
    SINGLE_LEVEL_HALF_WIDTH,
    SINGLE_LEVEL_WINDOW,
    PhaseTransitionData,
    draw_phase_curves,
)
from simulations.figures.save import save_figure
from simulations.figures.style import (
    CERT_LABEL,
    EMP_LABEL,
    FONT_SIZE,
    NOISE_LABEL,
    PANEL_LEGEND,
    PANEL_PHASE_STYLE,
    PANEL_VIOLATION_BARS,
    PRE_LABEL,
    framed_legend,
    style_axes,
    validity_word,
)
from simulations.figures.summary import crowding
from simulations.report import LAMBDA_TARGET, Results, check_lam, method_label
from simulations.report.columns import judged_blocks

__all__ = ["PANEL_COLUMNS", "PANEL_SIZE", "STRIP_HEIGHT", "PredictorsPlot", "plot_predictors"]

PANEL_COLUMNS = 4  # panels per row of plot_predictors
PANEL_SIZE = (1.75, 1.6)  # inches per panel: four panels span a two-column page (7 in)
STRIP_HEIGHT = 0.45  # inches: the strip under each panel that counts its violations per σ


@dataclass
class PredictorsPlot:
    """What :func:`plot_predictors` drew: one panel per predictor, its violation strip under it,
    plus a key.

    ``axes``, ``strips``, ``type_i``, ``type_ii`` and ``legends`` are keyed by predictor name,
    in panel order; ``type_i[name]`` and ``type_ii[name]`` are the bars of the strip (one per
    noise level, its height the seeds whose cell there is that kind of violation; the Type-II
    bars stacked on the Type-I ones); ``legends[name]`` is None for a panel with no violation
    (it has no legend at all). ``counts[name]`` is ``(type_i, type_ii)``. ``key`` is the shared
    legend of the lines (and of the bars that appear in some strip), in the spare panel slot or
    under the grid.
    """

    figure: Figure
    axes: dict[str, Axes]
    strips: dict[str, Axes]
    type_i: dict[str, BarContainer]
    type_ii: dict[str, BarContainer]
    legends: dict[str, Legend | None]
    counts: dict[str, tuple[int, int]]
    key: Legend
    paths: list[Path] = field(default_factory=list)


def plot_predictors(
    results: Results,
    path: str | Path | None = None,
    *,
    lam: float = LAMBDA_TARGET,
    methods: Sequence[str] | None = None,
) -> PredictorsPlot:
    """One small panel per λ* predictor: its λ* and λ*_EMP against σ, violations counted under it.

    Every panel draws, like :func:`plot_phase_transition`, the across-seed mean of the
    predictor's λ* (solid, blue) and of the λ*_EMP it is judged against (dashed, vermillion), each
    with its min–max band over seeds (5–95% above :data:`CROWDED_SEEDS` seeds) and the target λ
    (dotted). The violating (seed, σ) cells are not marked on the curves (on the paper's grid
    the Gaussian bound's 208 Type-II cells, one mark each, hid its λ*_EMP curve and band for
    σ > 8): a strip under the panel counts them at each σ, a bar of the seeds whose cell is
    Type-I (black) with the Type-II ones (purple) stacked on it, on a scale from 0 to the
    number of seeds. The certified panel draws λ*_CERT against λ*_EMP of the model it certifies
    (``lambda_emp_cert``). The title names the predictor, whether it is valid (the registry's
    ``valid`` and ``kind``: "valid", "not valid", "model value"; "finite-sample valid" for the
    certified one) and its counts; a panel's legend lists only the kinds of violation its strip
    shows, and a panel with none has no legend (its strip says "no violation"). The key of the
    lines and bars takes the spare slot of a part-filled last row, or sits under the grid.
    Panels share both axes (and strips theirs), so a reader compares them at a glance. Each
    panel is :func:`draw_phase_curves` in :data:`~simulations.figures.PANEL_PHASE_STYLE`, each
    strip drawn in :data:`~simulations.figures.style.PANEL_VIOLATION_BARS`.

    Parameters
    ----------
    results : list of dict or dict of arrays
        The sweep's cells; needs ``seed``, ``noise`` and the columns of
        :func:`simulations.report.judged_columns` of every predictor drawn.
    path : str or Path, optional
        Where to save (see :func:`save_figure`); the paths written are in ``paths``.
    lam : float, default 0.15
        The target rejection cost λ.
    methods : sequence of str, optional
        The predictors, one panel each, in this order; by default every predictor of
        :data:`gcul_theory.PREDICTORS` (read at call time), ``"certified"``, and
        ``"certified_noisy"`` where ``results`` has its column
        (:func:`simulations.report.judged_methods`).

    Returns
    -------
    PredictorsPlot
        The figure, its Axes and the artists drawn; never calls ``show()``.
    """
    lam = check_lam(lam)
    judged, cols = judged_blocks(results, methods, "the predictors figure")
    methods = tuple(judged)
    n_seeds = len(np.unique(cols["seed"]))
    _, band_text = crowding(n_seeds)

    ncols = min(PANEL_COLUMNS, len(methods) + 1)  # room for the key beside a single panel
    nrows = math.ceil(len(methods) / ncols)
    # inches for the key under the grid (two rows of three entries), when no slot is spare
    key_height = 1.0 if len(methods) % ncols == 0 else 0.0
    fig = Figure(
        figsize=(
            PANEL_SIZE[0] * ncols,
            (PANEL_SIZE[1] + STRIP_HEIGHT) * nrows + 0.15 + key_height,
        ),
        layout="constrained",
    )
    # rows of panels, each with its strip under it; every Axes shares σ, panels share λ*,
    # strips share the seed count
    grid = fig.subplots(
        2 * nrows,
        ncols,
        sharex=True,
        squeeze=False,
        gridspec_kw={"height_ratios": [PANEL_SIZE[1], STRIP_HEIGHT] * nrows},
    )
    flat, strip_slots = list(grid[0::2].ravel()), list(grid[1::2].ravel())
    for ax in flat[1:]:
        ax.sharey(flat[0])
    for strip in strip_slots[1:]:
        strip.sharey(strip_slots[0])
    small = FONT_SIZE - 1

    lo, hi = float(cols["noise"].min()), float(cols["noise"].max())
    pad = 0.015 * (hi - lo) if hi > lo else SINGLE_LEVEL_WINDOW
    low_y = min(0.0, *(float(cols[pair[1]].min()) for pair in judged.values()))
    high_y = max(1.0, *(float(cols[c].max()) for pair in judged.values() for c in pair))
    levels = np.unique(cols["noise"])
    # bars 80% of the grid step wide: side by side, never touching; one level: the band's width
    width = 0.8 * float(np.diff(levels).min()) if levels.size > 1 else 2 * SINGLE_LEVEL_HALF_WIDTH

    axes, strips, type_i_artists, type_ii_artists, legends, counts = {}, {}, {}, {}, {}, {}
    for index, method in enumerate(methods):
        ax, strip = flat[index], strip_slots[index]
        data = PhaseTransitionData.from_results(
            cols, method=method, lam=lam, purpose="the predictors figure"
        )
        for panel in (ax, strip):
            style_axes(panel)
            panel.xaxis.set_major_locator(MaxNLocator(nbins=4, steps=[1, 2, 4, 5, 10]))
            panel.tick_params(labelsize=small)
            panel.yaxis.set_tick_params(labelleft=index % ncols == 0)
        draw_phase_curves(ax, data, PANEL_PHASE_STYLE)
        at_level = np.searchsorted(levels, data.noise)
        per_level_i = np.bincount(at_level[data.type_i], minlength=levels.size)
        per_level_ii = np.bincount(at_level[data.type_ii], minlength=levels.size)
        type_i_artists[method] = strip.bar(
            levels, per_level_i, width, **PANEL_VIOLATION_BARS["type_i"]
        )
        type_ii_artists[method] = strip.bar(
            levels, per_level_ii, width, bottom=per_level_i, **PANEL_VIOLATION_BARS["type_ii"]
        )
        n_i, n_ii = counts[method] = data.counts
        ax.set_title(
            f"{method_label(method)} ({validity_word(method)})\nType-I {n_i}, Type-II {n_ii}",
            fontsize=small,
            pad=3,
        )
        handles, labels = [], []
        if n_i:
            handles.append(type_i_artists[method])
            labels.append(f"Type-I ({n_i})")
        if n_ii:
            handles.append(type_ii_artists[method])
            labels.append(f"Type-II ({n_ii})")
        legends[method] = framed_legend(ax, handles, labels, PANEL_LEGEND) if handles else None
        if not handles:  # an empty strip says why it is empty
            strip.text(
                0.5, 0.5, "no violation", transform=strip.transAxes, ha="center",
                va="center", fontsize=small, color="0.35",
            )  # fmt: skip
        axes[method], strips[method] = ax, strip
        ax.xaxis.set_tick_params(labelbottom=False)
        if index % ncols == 0:
            ax.set_ylabel(r"$\lambda^*$", fontsize=small)
            strip.set_ylabel("seeds", fontsize=small)
        if index + ncols >= len(methods):  # the lowest panel of its column
            strip.set_xlabel(NOISE_LABEL, fontsize=small)
            strip.xaxis.set_tick_params(labelbottom=True)
    flat[0].set_xlim(lo - pad, hi + pad)
    flat[0].set_ylim(low_y - 0.03, high_y + 0.03)
    flat[0].yaxis.set_major_locator(MaxNLocator(nbins=5, steps=[1, 2, 5, 10]))
    strip_slots[0].set_ylim(0, n_seeds)
    strip_slots[0].yaxis.set_major_locator(FixedLocator([0, n_seeds]))

    # The key: the lines every panel draws, and the bars that appear in at least one strip.
    # In the spare slot of a last row that panels partly fill; under the grid (a figure legend)
    # when the panels fill every row, so that no row holds the key alone beside empty slots.
    for spare in (*flat[len(methods) :], *strip_slots[len(methods) :]):
        spare.set_axis_off()
    spare_slot = len(methods) % ncols != 0
    style = PANEL_PHASE_STYLE
    single = len(data.pre.noise) == 1  # the panels draw each mean as a marker: so does the key
    pre_point, emp_point = (style.pre_point, style.emp_point) if single else ({}, {})
    proxies = [
        Line2D(
            [],
            [],
            color=style.pre_line["color"],
            linewidth=style.pre_line["linewidth"],
            **pre_point,
        ),
        Line2D(
            [],
            [],
            color=style.emp_line["color"],
            linestyle=style.emp_line["linestyle"],
            linewidth=style.emp_line["linewidth"],
            **emp_point,
        ),
        Line2D(
            [],
            [],
            color=style.target["color"],
            linestyle=style.target["linestyle"],
            linewidth=style.target["linewidth"],
        ),
    ]
    texts = [
        f"{PRE_LABEL} of the panel's predictor\n({CERT_LABEL} in Certified)",
        f"{EMP_LABEL} (of the model\nit certifies, in Certified)",
        rf"$\lambda = {lam:g}$",
    ]
    if any(n_i for n_i, _ in counts.values()):
        proxies.append(next(a for m, a in type_i_artists.items() if counts[m][0]))
        texts.append(r"Type-I: $\lambda^* < \lambda \leq \lambda^*_{\mathrm{EMP}}$")
    if any(n_ii for _, n_ii in counts.values()):
        proxies.append(next(a for m, a in type_ii_artists.items() if counts[m][1]))
        texts.append(r"Type-II: $\lambda^*_{\mathrm{EMP}} < \lambda \leq \lambda^*$")
    seeds = f"{n_seeds} seed{'s' if n_seeds != 1 else ''}"
    title = f"mean of {seeds}; band: {band_text}"
    if any(n_i or n_ii for n_i, n_ii in counts.values()):
        title += f"\nbars under each panel: the seeds (of {n_seeds})\nviolating at that σ"
    key_look = dict(
        fontsize=small, title=title, title_fontsize=small,
        frameon=False, handlelength=2.0, handletextpad=0.5, labelspacing=0.5, alignment="left",
    )  # fmt: skip
    if spare_slot:
        key = flat[len(methods)].legend(proxies, texts, loc="center", **key_look)
    else:
        key = fig.legend(
            proxies, texts, loc="outside lower center", ncol=min(3, len(proxies)), **key_look
        )
    plot = PredictorsPlot(
        figure=fig,
        axes=axes,
        strips=strips,
        type_i=type_i_artists,
        type_ii=type_ii_artists,
        legends=legends,
        counts=counts,
        key=key,
    )
    if path is not None:
        plot.paths = save_figure(fig, path)
    return plot
