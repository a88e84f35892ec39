"""simulations.figures.predictors: one panel per λ* predictor, each the phase-transition panel."""

from __future__ import annotations

import math

import numpy as np
from _figure_data import rows_for_panels
from _registry_twin import add_boole_twin
from _tolerances import gamma

import gcul_theory
from simulations.figures import OKABE_ITO, PANEL_COLUMNS, plot_predictors
from simulations.report import predictor_names


def panel_legend_texts(drawn, method):
    legend = drawn.legends[method]
    return [] if legend is None else [t.get_text() for t in legend.get_texts()]


def bars(container):
    """(σ, seeds) of each bar of a strip that counts at least one seed."""
    return [
        (round(bar.get_x() + bar.get_width() / 2, 9), round(bar.get_height()))
        for bar in container
        if bar.get_height() > 0
    ]


def test_predictors_figure_has_one_panel_per_predictor(tmp_path):
    drawn = plot_predictors(rows_for_panels(), tmp_path / "predictors")
    names = predictor_names()
    assert list(drawn.axes) == list(names)
    assert names[-1] == "certified" and len(names) == len(gcul_theory.PREDICTORS) + 1
    assert len(set(drawn.axes.values())) == len(names)
    # The panels fill a grid of PANEL_COLUMNS, each with its violation strip under it; the key
    # takes the spare slot of a part-filled last row, or sits under the grid when the panels
    # fill every row (no row for the key alone)
    assert list(drawn.strips) == list(names)
    assert len(drawn.figure.axes) == 2 * math.ceil(len(names) / PANEL_COLUMNS) * PANEL_COLUMNS
    assert [p.name for p in drawn.paths] == ["predictors.png", "predictors.pdf"]
    assert drawn.paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    expected = {name: (0, 0) for name in names}
    expected |= {"union": (1, 1), "chernoff": (0, 1), "certified": (1, 0)}
    assert drawn.counts == expected
    for name, ax in drawn.axes.items():
        n_i, n_ii = expected[name]
        title = ax.get_title()
        assert f"Type-I {n_i}, Type-II {n_ii}" in title
        entry = next((e for e in gcul_theory.PREDICTORS if e.name == name), None)
        if entry is None:
            assert "finite-sample valid" in title
        elif entry.valid:
            assert "(valid)" in title
        else:
            assert "not valid" in title or "model value" in title
        # λ target, the two mean lines and two bands; no mark of a violating cell on them
        assert len(ax.lines) == 3 and len(ax.collections) == 2 and not ax.patches
        colours = {line.get_color() for line in ax.lines[1:3]}
        assert colours == {OKABE_ITO["blue"], OKABE_ITO["vermillion"]}
        # the strip: a bar of each kind at each of the 41 levels, on the scale 0..3 seeds
        strip = drawn.strips[name]
        assert len(strip.patches) == 2 * 41 and strip.get_ylim() == (0, 3)


def test_a_panel_with_nothing_to_mark_has_no_legend_entry_for_it():
    drawn = plot_predictors(rows_for_panels())
    for name in drawn.axes:
        n_i, n_ii = drawn.counts[name]
        texts = panel_legend_texts(drawn, name)
        assert any(t.startswith("Type-I ") for t in texts) == (n_i > 0), (name, texts)
        assert any(t.startswith("Type-II ") for t in texts) == (n_ii > 0), (name, texts)
        assert (drawn.legends[name] is None) == (n_i == n_ii == 0)
        assert sum(n for _, n in bars(drawn.type_i[name])) == n_i
        assert sum(n for _, n in bars(drawn.type_ii[name])) == n_ii
    assert panel_legend_texts(drawn, "union") == ["Type-I (1)", "Type-II (1)"]
    assert panel_legend_texts(drawn, "chernoff") == ["Type-II (1)"]
    # one seed at the level of each violating cell: (11, 8.0) Type-I, (12, 2.0) Type-II
    assert bars(drawn.type_i["union"]) == [(8.0, 1)]
    assert bars(drawn.type_ii["union"]) == [(2.0, 1)]
    assert bars(drawn.type_ii["chernoff"]) == [(4.0, 1)]
    # The key explains a marker only if some panel shows it.
    key = [t.get_text() for t in drawn.key.get_texts()]
    assert any(t.startswith("Type-I:") for t in key) and any(t.startswith("Type-II:") for t in key)
    rows = rows_for_panels()
    for row in rows:  # remove every Type-II
        if row["lambda_emp"] < 0.15:
            for entry in gcul_theory.PREDICTORS:
                row[f"lambda_pre_{entry.name}"] = min(row[f"lambda_pre_{entry.name}"], 0.02)
    quiet = plot_predictors(rows)
    assert all(n_ii == 0 for _, n_ii in quiet.counts.values())
    assert not any(t.get_text().startswith("Type-II:") for t in quiet.key.get_texts())
    assert any(t.get_text().startswith("Type-I:") for t in quiet.key.get_texts())
    assert all("Type-II" not in t for name in quiet.axes for t in panel_legend_texts(quiet, name))


def test_certified_panel_is_judged_against_lambda_emp_cert():
    rows = rows_for_panels()
    drawn = plot_predictors(rows, methods=("certified",))
    # (10, 12.0): λ*_CERT = 0.05 < λ ≤ lambda_emp_cert = 0.45 -> Type-I, counted at σ = 12.
    assert bars(drawn.type_i["certified"]) == [(12.0, 1)]
    # (12, 2.0): λ*_CERT = 0.9 with lambda_emp = 0.12 but lambda_emp_cert = 0.5: no Type-II.
    assert drawn.counts["certified"] == (1, 0)
    emp_line = drawn.axes["certified"].lines[2]
    values = np.array([r["lambda_emp_cert"] for r in rows]).reshape(3, 41)
    np.testing.assert_allclose(  # means of 3 seeds in two summation orders
        emp_line.get_ydata(), values.mean(axis=0), rtol=0, atol=2 * gamma(3) * np.abs(values).max()
    )


def test_adding_a_registry_entry_adds_a_panel(monkeypatch):
    add_boole_twin(monkeypatch)
    rows = [r | {"lambda_pre_boole_twin": r["lambda_pre_boole"]} for r in rows_for_panels()]
    drawn = plot_predictors(rows)
    assert list(drawn.axes)[-2:] == ["boole_twin", "certified"]
    assert drawn.counts["boole_twin"] == drawn.counts["boole"]
    assert "boole twin (valid)" in drawn.axes["boole_twin"].get_title()
