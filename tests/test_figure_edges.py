"""No marker of the baselines figure is cut by the edge of its panel.

``baselines.png`` drew its curves with markers but set each panel's σ range to the grid's first
and last level exactly, so the marker at σ = 0 and at the last level (σ = 16, and σ = 6 in the
magnified panel) showed as half a marker (issue 23: "no clipped markers"). A grid whose only
level at or below the magnified range is one level made that panel's range empty (matplotlib's
"identical low and high xlims" warning).
"""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from simulations import baseline_figures, registry

REJECTORS = [m.name for m in registry.methods("rejector")]


def _rows(levels, seeds=(1, 2)):
    rows = []
    for seed in seeds:
        for sigma in levels:
            bayes = 0.5 / (1 + np.exp(-(sigma - 6)))
            row = {"seed": seed, "noise": float(sigma)}
            for index, name in enumerate(REJECTORS):
                row[f"sel_risk_{name}"] = bayes + (0.0 if name == "bayes" else 0.002 * (index + 1))
            rows.append(row)
    return rows


def _cut_markers(drawn):
    """(panel, label, σ) of every data point of a marked line whose marker, drawn there, would
    reach past the left or right edge of its panel (in display pixels)."""
    fig = drawn.figure
    FigureCanvasAgg(fig).draw()
    to_pixels = fig.dpi / 72.0
    cut = []
    for ax in (drawn.risk, drawn.excess, drawn.zoom):
        left, right = ax.get_window_extent().intervalx
        for line in ax.lines:
            if line.get_marker() in (None, "None", "", " "):
                continue
            radius = (line.get_markersize() + line.get_markeredgewidth()) / 2 * to_pixels
            x = np.asarray(line.get_xdata(), float)
            y = np.asarray(line.get_ydata(), float)
            xs = ax.transData.transform(np.column_stack([x, y]))[:, 0]
            for sigma, pixel in zip(x, xs, strict=True):
                if pixel - radius < left - 0.5 or pixel + radius > right + 0.5:
                    cut.append((ax.get_title(), line.get_label(), float(sigma)))
    return cut


@pytest.mark.parametrize("n_levels", [41, 9, 2])
def test_no_marker_is_cut_by_a_panel_edge(n_levels):
    drawn = baseline_figures.plot_baselines(_rows(0.4 * np.arange(n_levels)))
    assert _cut_markers(drawn) == []
    # the panels still span the grid: no level left out of a panel that should show it
    levels = 0.4 * np.arange(n_levels)
    for ax in (drawn.risk, drawn.excess):
        low, high = ax.get_xlim()
        assert low < levels[0] and high > levels[-1]
        assert high - low < 1.1 * (levels[-1] - levels[0])  # a margin, not a second grid


def test_one_level_in_the_magnified_range_gives_that_panel_a_width():
    drawn = baseline_figures.plot_baselines(_rows([2.0, 12.0]))  # no warning (pytest: error)
    low, high = drawn.zoom.get_xlim()
    assert low < 2.0 < high
    assert _cut_markers(drawn) == []
