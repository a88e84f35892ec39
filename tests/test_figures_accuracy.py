"""simulations.figures.accuracy: base accuracy, selective accuracy and rejection rate against σ."""

from __future__ import annotations

import numpy as np
import pytest
from _figure_data import make_rows, opaque_pixels
from _tolerances import gamma

from simulations.figures import OKABE_ITO, plot_accuracy, plot_phase_transition


def test_draws_into_a_given_axes_and_never_shows(pyplot, monkeypatch):
    def no_show(*args, **kwargs):
        raise AssertionError("show() must not be called")

    monkeypatch.setattr(pyplot, "show", no_show)
    fig, (left, right) = pyplot.subplots(1, 2)
    drawn = plot_phase_transition(make_rows(), ax=left)
    accuracy = plot_accuracy(make_rows(), ax=right)
    assert drawn.ax is left and accuracy.ax is right
    assert len(right.lines) == 3
    # shares times 100 against the decimal: the share and the product round once each
    np.testing.assert_allclose(accuracy.base.get_ydata()[0], 86.5, rtol=gamma(2), atol=0)
    np.testing.assert_allclose(accuracy.rejection.get_ydata(), 16.5, rtol=gamma(2), atol=0)
    assert len(fig.axes) == 2


def test_plot_accuracy_saves(tmp_path):
    drawn = plot_accuracy(make_rows(), tmp_path / "accuracy.png")
    assert [p.name for p in drawn.paths] == ["accuracy.png"]
    assert drawn.paths[0].stat().st_size > 0


def test_accuracy_bad_inputs():
    rows = make_rows(seeds=(10,), n_levels=3)
    with pytest.raises(ValueError, match="'rejection_rate'"):
        plot_accuracy([{k: v for k, v in r.items() if k != "rejection_rate"} for r in rows])


def test_a_single_noise_level_draws_each_mean_as_a_marker():
    # one σ: three lines through one point each drew nothing
    drawn = plot_accuracy(make_rows(n_levels=1))
    for line in (drawn.base, drawn.selective, drawn.rejection):
        assert line.get_marker() not in ("None", "", None, " ")
    drawn.legend.remove()  # its handles are the three colours on their own
    for colour in (OKABE_ITO["green"], OKABE_ITO["purple"]):  # black is also the text's colour
        assert opaque_pixels(drawn.ax.figure, colour) >= 10, colour
