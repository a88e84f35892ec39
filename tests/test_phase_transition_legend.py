"""The phase-transition figure's legend does not hide its curves: on a reduced grid (one seed,
two noise levels, where λ*_PRE and λ*_EMP stay high to the right edge) the legend, fixed in the
upper right corner, covered both; it now takes the corner the curves leave free, and on the
paper's grid (41 levels) that is still the upper right."""

from __future__ import annotations

import numpy as np
import pytest
from _figure_data import make_rows
from matplotlib.backends.backend_agg import FigureCanvasAgg

from simulations.figures import plot_phase_transition


def _covered(drawn) -> dict[str, int]:
    """How many vertices of each curve lie under the legend's box (display pixels)."""
    fig = drawn.ax.figure
    FigureCanvasAgg(fig).draw()
    box = drawn.legend.get_window_extent()
    covered = {}
    for name, line in (("pre", drawn.pre), ("emp", drawn.emp), ("target", drawn.target)):
        xy = line.get_transform().transform(np.column_stack(line.get_data()))
        covered[name] = int(np.count_nonzero([box.contains(x, y) for x, y in xy]))
    return covered


@pytest.mark.parametrize(("seeds", "levels"), [((10,), 2), ((10, 11, 12), 12)])
def test_the_legend_covers_no_curve_on_a_reduced_grid(seeds, levels):
    drawn = plot_phase_transition(make_rows(seeds=seeds, n_levels=levels))
    covered = _covered(drawn)
    assert covered["pre"] == 0 and covered["emp"] == 0, covered


def test_on_the_papers_grid_the_legend_stays_in_the_upper_right():
    drawn = plot_phase_transition(make_rows(seeds=tuple(range(10, 20)), n_levels=41))
    assert _covered(drawn) == {"pre": 0, "emp": 0, "target": 0}
    box = drawn.legend.get_window_extent()
    axes = drawn.ax.get_window_extent()
    pad = 0.05 * min(axes.width, axes.height)  # the legend's border padding, well within 5%
    assert box.x1 > axes.x1 - pad and box.y1 > axes.y1 - pad  # anchored in the upper right
