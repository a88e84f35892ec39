"""simulations.demo.phase (notebook 4): the phase-transition slide, which is the paper's panel
(simulations.figures.draw_phase_transition) in the slide style, and the violation counts."""

from __future__ import annotations

import numpy as np
import pytest
from _demo_data import tiny_rows
from _figure_data import make_rows, opaque_pixels

from simulations import demo
from simulations.demo.style import SLIDE_PHASE_STYLE
from simulations.figures import OKABE_ITO, plot_phase_transition


def test_violations_title_names_an_unsafe_valid_predictor():
    # boole says feasible (0.5 >= 0.15) where rejecting lost (lambda_emp 0.1): a Type-II call
    rows = [
        {"seed": 10, "noise": 0.0, "lambda_emp": 0.1, "lambda_pre_boole": 0.5,
         "lambda_pre_gaussian": 0.0},
        {"seed": 10, "noise": 1.0, "lambda_emp": 0.4, "lambda_pre_boole": 0.0,
         "lambda_pre_gaussian": 0.0},
    ]  # fmt: skip
    fig = demo.figure_violations(rows, methods=("gaussian", "boole"))
    assert fig.get_suptitle().endswith("unsafe (Type-II) calls from boole")
    rows[0]["lambda_pre_boole"] = 0.0
    fig = demo.figure_violations(rows, methods=("gaussian", "boole"))
    assert fig.get_suptitle().endswith("no predictor made an unsafe (Type-II) call")


def test_phase_transition_legend_lists_only_drawn_marks():
    fig = demo.figure_phase_transition(list(tiny_rows()), methods=("hunter_worsley",), lam=0.999)
    (legend,) = fig.legends
    labels = [t.get_text() for t in legend.get_texts()]
    # at lambda = 0.999 no cell is effective, so no Type-I mark; Type-II only if one is drawn
    assert not any(label.startswith("Type-I:") for label in labels)


def test_the_slide_and_the_paper_draw_one_panel_in_two_styles():
    # 30 seeds: the paper's figure draws the 5-95% band and light marks; the slide had its own
    # copy of the panel, which drew the min-max band (outliers) and opaque marks over the lines.
    rows = make_rows(seeds=range(30), n_levels=21)
    paper = plot_phase_transition(rows, method="union", lam=0.3)
    slide = demo.figure_phase_transition(rows, methods=("union",), lam=0.3)
    ax = slide.axes[0]
    assert len(ax.collections) == 2 and len(ax.lines) == 5
    for paper_band, slide_band in zip(paper.ax.collections, ax.collections, strict=True):
        np.testing.assert_array_equal(  # the same numbers, copied: exact
            paper_band.get_paths()[0].vertices, slide_band.get_paths()[0].vertices
        )

    def data(lines):
        return sorted(line.get_xydata().tobytes() for line in lines)

    assert data(paper.ax.lines) == data(ax.lines)
    # two looks: the slide's means are 3 pt wide, the paper's 2 pt
    widths = {line.get_linewidth() for line in ax.lines if len(line.get_xydata()) == 21}
    assert widths == {SLIDE_PHASE_STYLE.pre_line["linewidth"]} == {3.0}
    assert paper.pre.get_linewidth() == 2.0
    (legend,) = slide.legends
    labels = [t.get_text() for t in legend.get_texts()]
    assert "predicted λ* (mean; band 5–95% of seeds)" in labels
    marks = [line for line in ax.lines if line.get_marker() in ("o", "X")]
    assert marks and all(m.get_alpha() == 0.35 and m.get_zorder() < 2 for m in marks)


def test_a_single_noise_level_slide_draws_marks_not_nothing():
    rows = make_rows(n_levels=1)
    fig = demo.figure_phase_transition(rows, methods=("union", "boole"))
    for legend in fig.legends:
        legend.remove()  # its handles are blue and vermillion on their own
    for ax in fig.axes:
        means = [
            line
            for line in ax.lines
            if line.get_color() in (OKABE_ITO["blue"], OKABE_ITO["vermillion"])
        ]
        assert len(means) == 2 and all(m.get_marker() in ("s", "D") for m in means)
    for colour in (OKABE_ITO["blue"], OKABE_ITO["vermillion"]):
        assert opaque_pixels(fig, colour) >= 2 * 10, colour


@pytest.mark.parametrize("methods", [(), ("union",) * 4])
def test_phase_transition_slide_counts_its_panels(methods):
    with pytest.raises(ValueError, match="methods must name 1 to 3 predictors"):
        demo.figure_phase_transition(make_rows(n_levels=2), methods=methods)
