"""``gcul compare --plot``: the legend sits beside the axes, not on the curves, and no marker at
coverage 0 or 1 is cut by the frame. On scikit-learn's digits the legend, drawn in the upper
left inside the axes, lay on the Deep Gamblers and SelectiveNet curves, whose risk is highest
at the lowest coverage; the title said "lam 0.15" where every other figure says λ."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg

from simulations import registry
from simulations.compare.figure import plot_risk_coverage


def _result():
    """Curves whose risk is highest at the lowest coverage (the upper left), as on digits."""
    coverage = np.arange(1, 301) / 300
    curves = {}
    for index, name in enumerate(["gcul", "msp", "entropy", "deep_gamblers", "selectivenet"]):
        risk = 0.03 + (0.3 - 0.05 * index) * np.exp(-coverage / 0.05)
        curves[name] = (registry.method(name).label, coverage, risk)
    curves["_gcul_point"] = (0.9, float(curves["gcul"][2][269]))
    return SimpleNamespace(curves=curves, splits=10, n_test=300, lam=0.15)


def test_the_legend_is_beside_the_axes_and_no_marker_is_cut():
    ax = plot_risk_coverage(_result())
    fig = ax.figure
    FigureCanvasAgg(fig).draw()
    frame = ax.get_window_extent()
    legend = ax.get_legend().get_window_extent()
    assert legend.x0 >= frame.x1  # right of the axes: it covers no curve
    assert legend.x1 <= fig.bbox.x1 + 0.5 and legend.y0 >= fig.bbox.y0 - 0.5  # not cut off
    to_pixels = fig.dpi / 72.0
    for line in ax.lines:
        if line.get_marker() in (None, "None", "", " ") or not line.get_clip_on():
            continue
        radius = (line.get_markersize() + line.get_markeredgewidth()) / 2 * to_pixels
        xs = line.get_transform().transform(np.column_stack(line.get_data()))[:, 0]
        assert xs.min() - radius >= frame.x0 - 0.5, line.get_label()
        assert xs.max() + radius <= frame.x1 + 0.5, line.get_label()


def test_the_title_names_lambda_as_the_other_figures_do():
    title = plot_risk_coverage(_result()).get_title()
    assert "λ = 0.15" in title and "lam" not in title
