"""Tests of simulations.figures: what the phase-transition plot draws, and saving it."""

from __future__ import annotations

import dataclasses
import math
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from _tolerances import gamma
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.image import imread

import gcul_theory
from simulations.figures import (
    OKABE_ITO,
    PANEL_COLUMNS,
    SINGLE_COLUMN_SIZE,
    plot_accuracy,
    plot_phase_transition,
    plot_predictors,
    save_figure,
    summarize_across_seeds,
)
from simulations.report import predictor_names


def make_rows(seeds=(10, 11, 12), n_levels=41, rng_seed=0):
    """Fabricated sweep rows: λ*_PRE and λ*_EMP as decreasing logistic curves in σ."""
    rng = np.random.default_rng(rng_seed)
    rows = []
    for seed in seeds:
        shift = rng.normal(0, 0.35)
        for level in range(n_levels):
            sigma = 0.4 * level
            logistic = 1 / (1 + np.exp((sigma - 4.3 - shift) / 1.5))
            pre = max(0.0, 1.05 * (logistic - 0.05))
            emp = 0.8 / (1 + np.exp((sigma - 5.4 - shift) / 1.0)) + rng.normal(0, 0.03)
            rows.append(
                {
                    "seed": seed,
                    "noise": sigma,
                    "level": level,
                    "base_acc": 0.865 - 0.025 * sigma,
                    "selective_acc": min(1.0, 0.865 - 0.025 * sigma + 0.1 * emp),
                    "rejection_rate": 0.165,
                    "lambda_emp": emp,
                    **{f"lambda_pre_{e.name}": 0.8 * pre for e in gcul_theory.PREDICTORS},
                    "lambda_pre_gaussian": min(1.0, 1.2 * pre),
                    "lambda_pre_union": pre,
                    "lambda_pre_chernoff": 0.6 * pre,
                    "lambda_cert": 0.9 * pre,
                    "lambda_emp_cert": emp,
                }
            )
    return rows


def rows_with_known_violations():
    """Three seeds where only (seed 11, σ = 8.0) is Type-I and (seed 12, σ = 2.0) is Type-II."""
    rows = make_rows()
    for row in rows:  # first make every cell agree with the prediction at λ = 0.15
        row["lambda_emp"] = row["lambda_pre_union"] + (
            0.01 if row["lambda_pre_union"] >= 0.15 else 0
        )
        row["lambda_emp"] = (
            min(row["lambda_emp"], 0.14) if row["lambda_pre_union"] < 0.15 else row["lambda_emp"]
        )
    type_i = next(r for r in rows if r["seed"] == 11 and r["level"] == 20)
    type_i["lambda_pre_union"], type_i["lambda_emp"] = 0.05, 0.31
    type_ii = next(r for r in rows if r["seed"] == 12 and r["level"] == 5)
    type_ii["lambda_pre_union"], type_ii["lambda_emp"] = 0.70, 0.12
    return rows


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
    assert "sigma" in ax.get_xlabel() and "lambda" in ax.get_ylabel()


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
    assert panels.key.get_title().get_text() == "mean of 30 seeds; band: 5–95% of seeds"
    for marks in (*panels.type_i.values(), *panels.type_ii.values()):
        assert marks.get_zorder() < 3 and marks.get_alpha() < 1  # the mean lines are at 3
    few = plot_phase_transition(make_rows(seeds=range(20), n_levels=21), method="union", lam=0.3)
    assert "band: min–max" in few.legend.get_title().get_text()  # up to CROWDED_SEEDS seeds


def test_summary_percentiles_are_checked():
    rows = make_rows(seeds=(10, 11), n_levels=2)
    with pytest.raises(ValueError, match=r"spread must be percentages 0 <= p <= q <= 100"):
        summarize_across_seeds(rows, "lambda_emp", spread=(90.0, 10.0))


# --------------------------------------------------------------------------------------------
# One panel per predictor


def rows_for_panels():
    """Cells where every predictor agrees with its λ*_EMP at λ = 0.15, except: union has one
    Type-I (seed 11, σ = 8.0) and one Type-II (seed 12, σ = 2.0); chernoff one Type-II (seed 10,
    σ = 4.0); certified one Type-I (seed 10, σ = 12.0) judged against lambda_emp_cert."""
    rows = make_rows()
    for row in rows:
        feasible = row["lambda_pre_union"] >= 0.15
        row["lambda_emp"] = row["lambda_emp_cert"] = 0.5 if feasible else 0.05
        for entry in gcul_theory.PREDICTORS:
            row[entry.column] = 0.6 if feasible else 0.02
        row["lambda_cert"] = row[gcul_theory.PREDICTORS[0].column]
    pick = {(r["seed"], r["level"]): r for r in rows}
    pick[11, 20]["lambda_pre_union"], pick[11, 20]["lambda_emp"] = 0.05, 0.31
    pick[11, 20]["lambda_emp_cert"] = 0.01  # the certified model is not effective there
    for entry in gcul_theory.PREDICTORS:
        if entry.name != "union":  # the other predictors are right about (11, 8.0)
            pick[11, 20][entry.column] = 0.5
    pick[11, 20]["lambda_cert"] = 0.0
    pick[12, 5]["lambda_emp"], pick[12, 5]["lambda_pre_union"] = 0.12, 0.70
    for entry in gcul_theory.PREDICTORS:
        if entry.name != "union":
            pick[12, 5][entry.column] = 0.0
    pick[12, 5]["lambda_cert"] = 0.9  # certified is judged against lambda_emp_cert: right here
    for entry in gcul_theory.PREDICTORS:  # only chernoff predicts (10, 4.0) feasible
        pick[10, 10][entry.column] = 0.40 if entry.name == "chernoff" else 0.0
    pick[10, 10]["lambda_emp"] = 0.10
    pick[10, 10]["lambda_cert"], pick[10, 10]["lambda_emp_cert"] = 0.6, 0.40
    pick[10, 30]["lambda_cert"], pick[10, 30]["lambda_emp_cert"] = 0.05, 0.45
    return rows


def panel_legend_texts(drawn, method):
    legend = drawn.legends[method]
    return [] if legend is None else [t.get_text() for t in legend.get_texts()]


def test_predictors_figure_has_one_panel_per_predictor(tmp_path):
    drawn = plot_predictors(rows_for_panels(), tmp_path / "predictors")
    names = predictor_names()
    assert list(drawn.axes) == list(names)
    assert names[-1] == "certified" and len(names) == len(gcul_theory.PREDICTORS) + 1
    assert len(set(drawn.axes.values())) == len(names)
    # The panels and the key fill a grid of PANEL_COLUMNS; unused slots are switched off.
    assert len(drawn.figure.axes) == math.ceil((len(names) + 1) / PANEL_COLUMNS) * PANEL_COLUMNS
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
        # λ target, the two mean lines, two marker sets; two bands.
        assert len(ax.lines) == 5 and len(ax.collections) == 2
        colours = {line.get_color() for line in ax.lines[1:3]}
        assert colours == {OKABE_ITO["blue"], OKABE_ITO["vermillion"]}


def test_a_panel_with_nothing_to_mark_has_no_legend_entry_for_it():
    drawn = plot_predictors(rows_for_panels())
    for name in drawn.axes:
        n_i, n_ii = drawn.counts[name]
        texts = panel_legend_texts(drawn, name)
        assert any(t.startswith("Type-I ") for t in texts) == (n_i > 0), (name, texts)
        assert any(t.startswith("Type-II ") for t in texts) == (n_ii > 0), (name, texts)
        assert (drawn.legends[name] is None) == (n_i == n_ii == 0)
        assert len(drawn.type_i[name].get_xydata()) == n_i
        assert len(drawn.type_ii[name].get_xydata()) == n_ii
    assert panel_legend_texts(drawn, "union") == ["Type-I (1)", "Type-II (1)"]
    assert panel_legend_texts(drawn, "chernoff") == ["Type-II (1)"]
    assert drawn.type_i["union"].get_xydata().tolist() == [[8.0, 0.31]]
    # The key explains a marker only if some panel shows it.
    key = [t.get_text() for t in drawn.key.get_texts()]
    assert any(t.startswith("Type-I:") for t in key) and any(t.startswith("Type-II:") for t in key)
    rows = rows_for_panels()
    for row in rows:  # remove every Type-II
        if row["lambda_emp"] < 0.15:
            for entry in gcul_theory.PREDICTORS:
                row[entry.column] = min(row[entry.column], 0.02)
    quiet = plot_predictors(rows)
    assert all(n_ii == 0 for _, n_ii in quiet.counts.values())
    assert not any(t.get_text().startswith("Type-II:") for t in quiet.key.get_texts())
    assert any(t.get_text().startswith("Type-I:") for t in quiet.key.get_texts())
    assert all("Type-II" not in t for name in quiet.axes for t in panel_legend_texts(quiet, name))


def test_certified_panel_is_judged_against_lambda_emp_cert():
    rows = rows_for_panels()
    drawn = plot_predictors(rows, methods=("certified",))
    # (10, 12.0): λ*_CERT = 0.05 < λ ≤ lambda_emp_cert = 0.45 -> Type-I, marked at lambda_emp_cert.
    assert drawn.type_i["certified"].get_xydata().tolist() == [[12.0, 0.45]]
    # (12, 2.0): λ*_CERT = 0.9 with lambda_emp = 0.12 but lambda_emp_cert = 0.5: no Type-II.
    assert drawn.counts["certified"] == (1, 0)
    emp_line = drawn.axes["certified"].lines[2]
    values = np.array([r["lambda_emp_cert"] for r in rows]).reshape(3, 41)
    np.testing.assert_allclose(  # means of 3 seeds in two summation orders
        emp_line.get_ydata(), values.mean(axis=0), rtol=0, atol=2 * gamma(3) * np.abs(values).max()
    )


def test_adding_a_registry_entry_adds_a_panel(monkeypatch):
    extra = dataclasses.replace(
        gcul_theory.predictor("boole"), name="boole_twin", column="lambda_pre_boole_twin"
    )
    monkeypatch.setattr(gcul_theory, "PREDICTORS", (*gcul_theory.PREDICTORS, extra))
    rows = [r | {"lambda_pre_boole_twin": r["lambda_pre_boole"]} for r in rows_for_panels()]
    drawn = plot_predictors(rows)
    assert list(drawn.axes)[-2:] == ["boole_twin", "certified"]
    assert drawn.counts["boole_twin"] == drawn.counts["boole"]
    assert "boole twin (valid)" in drawn.axes["boole_twin"].get_title()


def test_summary_across_seeds():
    rows = make_rows()
    summary = summarize_across_seeds(rows, "lambda_emp")
    values = np.array([r["lambda_emp"] for r in rows]).reshape(3, 41)
    np.testing.assert_array_equal(summary.low, values.min(axis=0))  # selections: exact
    np.testing.assert_array_equal(summary.high, values.max(axis=0))
    assert np.all(summary.n_seeds == 3)


def test_writes_png_and_pdf_from_a_stem(tmp_path):
    drawn = plot_phase_transition(make_rows(), tmp_path / "figs" / "phase_transition")
    assert [p.name for p in drawn.paths] == ["phase_transition.png", "phase_transition.pdf"]
    png, pdf = drawn.paths
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert pdf.read_bytes()[:5] == b"%PDF-"
    height, width = imread(png).shape[:2]
    assert (width, height) == (
        round(SINGLE_COLUMN_SIZE[0] * 200),
        round(SINGLE_COLUMN_SIZE[1] * 200),
    )


def test_save_figure_single_file_and_formats(tmp_path):
    drawn = plot_phase_transition(make_rows())
    assert drawn.paths == []
    (only,) = save_figure(drawn.figure, tmp_path / "one.pdf")
    assert only.name == "one.pdf" and sorted(p.name for p in tmp_path.iterdir()) == ["one.pdf"]
    paths = save_figure(drawn.figure, tmp_path / "run.v2", formats=("svg",))
    assert [p.name for p in paths] == ["run.v2.svg"]
    with pytest.raises(ValueError, match="unknown figure format 'gif'"):
        save_figure(drawn.figure, tmp_path / "x", formats=("gif",))


def test_same_results_give_the_same_files(tmp_path):
    first = plot_phase_transition(make_rows(), tmp_path / "first").paths
    second = plot_phase_transition(make_rows(), tmp_path / "second").paths
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes()  # no timestamps in the PDF


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


def test_module_does_not_import_pyplot(tmp_path):
    script = textwrap.dedent(
        f"""
        import sys
        from simulations.figures import plot_phase_transition
        rows = [dict(seed=s, noise=n, lambda_emp=0.5, lambda_pre_union=0.4)
                for s in (1, 2) for n in (0.0, 0.4)]
        plot_phase_transition(rows, {str(tmp_path / "fig")!r})
        assert "matplotlib.pyplot" not in sys.modules, "pyplot was imported"
        """
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)
    assert (tmp_path / "fig.png").stat().st_size > 0


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
    with pytest.raises(ValueError, match="'rejection_rate'"):
        plot_accuracy([{k: v for k, v in r.items() if k != "rejection_rate"} for r in rows])
