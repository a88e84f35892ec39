"""simulations.figures.phase_transition: the panel computed once (PhaseTransitionData), drawn by
one function (draw_phase_transition) in any style, and the paper's figure (plot_phase_transition)."""

from __future__ import annotations

import numpy as np
import pytest
from _figure_data import make_rows, opaque_pixels, rows_with_known_violations
from _tolerances import gamma
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from simulations.figures import (
    NOISE_LABEL,
    OKABE_ITO,
    PANEL_PHASE_STYLE,
    PAPER_PHASE_STYLE,
    SINGLE_LEVEL_HALF_WIDTH,
    SINGLE_LEVEL_WINDOW,
    PhaseTransitionData,
    draw_phase_transition,
    plot_phase_transition,
    plot_predictors,
)


def test_a_violation_kind_with_no_cell_has_no_legend_entry(pyplot):
    # Every cell predicted exactly right: nothing to mark, so no marker entry (STYLE: no legend
    # entry without a mark); the title says there was none.
    rows = [
        {"seed": s, "noise": n, "lambda_pre_union": 0.5, "lambda_emp": 0.5}
        for s in (10, 11)
        for n in (0.0, 1.0)
    ]
    drawn = plot_phase_transition(rows)
    assert not any("violation (" in t for t in legend_texts(drawn))
    title = drawn.legend.get_title().get_text()
    assert "no Type-I violation" in title and "no Type-II violation" in title


def legend_texts(drawn):
    return [text.get_text() for text in drawn.legend.get_texts()]


def test_draws_two_means_target_and_violation_markers():
    drawn = plot_phase_transition(rows_with_known_violations(), lam=0.15)
    ax = drawn.ax
    assert isinstance(ax, Axes) and isinstance(ax.figure, Figure)
    assert len(ax.lines) == 5  # mean λ*_PRE, mean λ*_EMP, λ target, Type-I, Type-II
    assert len(ax.collections) == 2  # the two min–max bands
    assert set(ax.lines) == {drawn.pre, drawn.emp, drawn.target, drawn.type_i, drawn.type_ii}

    lo, hi = ax.get_xlim()
    assert lo <= 0.0 and hi >= 16.0 and hi - lo < 17.0
    assert np.all(np.asarray(drawn.target.get_ydata()) == 0.15)

    assert drawn.type_i.get_xydata().tolist() == [[8.0, 0.31]]
    assert drawn.type_ii.get_xydata().tolist() == [[2.0, 0.12]]
    texts = legend_texts(drawn)
    assert "Type-I violation (1)" in texts and "Type-II violation (1)" in texts
    assert any("union" in t.lower() for t in texts) and any("0.15" in t for t in texts)
    assert "3 seeds" in drawn.legend.get_title().get_text()
    assert "min–max" in drawn.legend.get_title().get_text()
    assert ax.get_xlabel() == NOISE_LABEL and "lambda" in ax.get_ylabel()  # one name for σ


def test_mean_lines_and_bands_follow_the_seeds():
    rows = make_rows()
    drawn = plot_phase_transition(rows, method="chernoff", lam=0.3)
    noise = np.array([0.4 * i for i in range(41)])
    pre = np.array([r["lambda_pre_chernoff"] for r in rows]).reshape(3, 41)
    emp = np.array([r["lambda_emp"] for r in rows]).reshape(3, 41)
    # 0.4·i against the library's grid: two roundings of values <= 16
    np.testing.assert_allclose(drawn.pre.get_xdata(), noise, rtol=0, atol=gamma(2) * 16)
    # means of 3 seeds summed in two orders: gamma(3) of the largest |value| each
    np.testing.assert_allclose(
        drawn.pre.get_ydata(), pre.mean(axis=0), rtol=0, atol=2 * gamma(3) * np.abs(pre).max()
    )
    np.testing.assert_allclose(
        drawn.emp.get_ydata(), emp.mean(axis=0), rtol=0, atol=2 * gamma(3) * np.abs(emp).max()
    )
    band = drawn.emp_band.get_paths()[0].vertices
    # the band's edges are the extreme values themselves, copied
    assert band[:, 1].min() == emp.min() and band[:, 1].max() == emp.max()
    assert np.all(np.asarray(drawn.target.get_ydata()) == 0.3)
    assert any("Chernoff" in t for t in legend_texts(drawn))


def test_a_grid_of_many_seeds_draws_a_percentile_band_and_light_marks_under_the_lines():
    # With 100 seeds x 81 levels the min-max band was drawn by a few outliers (λ*_EMP from -4.9 to
    # 5.6 with n_per_class = 40) and 2,453 opaque marks above the mean lines hid them.
    rows = make_rows(seeds=range(30), n_levels=21)
    drawn = plot_phase_transition(rows, method="union", lam=0.3)
    emp = np.array([r["lambda_emp"] for r in rows]).reshape(30, 21)
    band = drawn.emp_band.get_paths()[0].vertices
    # a percentile interpolates linearly between two order statistics: <= 4 roundings of
    # values up to max|emp|, whichever formula each side uses
    slack = gamma(4) * np.abs(emp).max()
    assert band[:, 1].min() == pytest.approx(np.percentile(emp, 5, axis=0).min(), rel=0, abs=slack)
    assert band[:, 1].max() == pytest.approx(np.percentile(emp, 95, axis=0).max(), rel=0, abs=slack)
    assert band[:, 1].max() < emp.max()
    assert "band: 5–95% of seeds" in drawn.legend.get_title().get_text()
    for marks in (drawn.type_i, drawn.type_ii):
        assert marks.get_zorder() < drawn.pre.get_zorder() and marks.get_alpha() < 1
    panels = plot_predictors(rows, lam=0.3)
    assert panels.key.get_title().get_text().startswith("mean of 30 seeds; band: 5–95% of seeds\n")
    for ax in panels.axes.values():  # the violations are counted in the strips, not marked here
        assert len(ax.lines) == 3 and not ax.patches  # the target and the two means
    few = plot_phase_transition(make_rows(seeds=range(20), n_levels=21), method="union", lam=0.3)
    assert "band: min–max" in few.legend.get_title().get_text()  # up to CROWDED_SEEDS seeds


def test_bad_inputs():
    rows = make_rows(seeds=(10,), n_levels=3)
    with pytest.raises(ValueError, match="unknown method 'exact'"):
        plot_phase_transition(rows, method="exact")
    with pytest.raises(ValueError, match="'lambda_emp'"):
        plot_phase_transition([{k: v for k, v in r.items() if k != "lambda_emp"} for r in rows])
    with pytest.raises(ValueError, match="empty"):
        plot_phase_transition([])
    with pytest.raises(ValueError, match="lam"):
        plot_phase_transition(rows, lam=-1.0)
    with pytest.raises(TypeError, match="ax must be a matplotlib Axes"):
        plot_phase_transition(rows, ax="left")


def test_a_single_noise_level_is_drawn_as_marks_and_bars_not_an_empty_figure():
    # One σ: a line through one point and a band of zero width drew nothing (the CLI refuses
    # --levels 1; the function drew an empty figure). Now each mean is a marker, each band a bar.
    rows = make_rows(n_levels=1)
    drawn = plot_phase_transition(rows, lam=0.15)
    pre = np.array([r["lambda_pre_union"] for r in rows])
    emp = np.array([r["lambda_emp"] for r in rows])
    for band, values in ((drawn.pre_band, pre), (drawn.emp_band, emp)):
        vertices = band.get_paths()[0].vertices
        assert vertices[:, 0].min() == -SINGLE_LEVEL_HALF_WIDTH  # σ = 0 ± the half-width
        assert vertices[:, 0].max() == SINGLE_LEVEL_HALF_WIDTH
        assert vertices[:, 1].min() == values.min() and vertices[:, 1].max() == values.max()
    for line in (drawn.pre, drawn.emp):
        assert line.get_marker() not in ("None", "", None, " ")
    assert drawn.ax.get_xlim() == (-SINGLE_LEVEL_WINDOW, SINGLE_LEVEL_WINDOW)
    drawn.legend.remove()  # its handles are blue and vermillion lines on their own
    for colour in (OKABE_ITO["blue"], OKABE_ITO["vermillion"]):
        # a 5 pt (4.5 pt) marker at 100 dpi is about 7 px wide: dozens of inside pixels
        assert opaque_pixels(drawn.figure, colour) >= 10, colour


def test_a_single_noise_level_in_the_predictors_figure_is_drawn_too():
    drawn = plot_predictors(make_rows(n_levels=1), methods=("union", "boole"))
    drawn.key.remove()
    for legend in drawn.legends.values():
        if legend is not None:
            legend.remove()
    for name, ax in drawn.axes.items():
        for line in ax.lines[1:3]:  # the two means (after the target)
            assert line.get_marker() not in ("None", "", None, " "), name
    assert opaque_pixels(drawn.figure, OKABE_ITO["blue"]) >= 2 * 10
    assert opaque_pixels(drawn.figure, OKABE_ITO["vermillion"]) >= 2 * 10


def test_draw_phase_transition_draws_the_data_in_the_style_given(pyplot):
    rows = rows_with_known_violations()
    data = PhaseTransitionData.from_results(rows, method="union", lam=0.15)
    assert data.counts == (1, 1) and data.band == "min–max" and not data.crowded
    fig, (paper_ax, panel_ax) = pyplot.subplots(1, 2)
    paper = draw_phase_transition(paper_ax, data, PAPER_PHASE_STYLE)
    panel = draw_phase_transition(panel_ax, data, PANEL_PHASE_STYLE)
    # the same data in both
    for a, b in zip(
        (paper.pre, paper.emp, paper.type_i, paper.type_ii),
        (panel.pre, panel.emp, panel.type_i, panel.type_ii),
        strict=True,
    ):
        np.testing.assert_array_equal(a.get_xydata(), b.get_xydata())
    assert paper.type_i.get_xydata().tolist() == [[8.0, 0.31]]
    # in two looks: the paper's lines are wider than the panels'
    assert paper.pre.get_linewidth() == PAPER_PHASE_STYLE.pre_line["linewidth"] == 2.0
    assert panel.pre.get_linewidth() == PANEL_PHASE_STYLE.pre_line["linewidth"] == 1.4
    assert paper.type_ii.get_marker() == "x" and paper.type_ii.get_zorder() == 4
    # added in the documented order: target first among the lines, then the means, the marks
    assert list(paper_ax.lines) == [paper.target, paper.pre, paper.emp, paper.type_i, paper.type_ii]
    with pytest.raises(TypeError, match="ax must be a matplotlib Axes"):
        draw_phase_transition("left", data)
