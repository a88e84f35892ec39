"""Tests for simulations.sweep and simulations._results: rows, determinism, the cell cache, CSV."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest

import gcul_theory
from simulations import sweep
from simulations._results import ROW_COLUMNS, read_csv, to_columns, write_csv
from simulations.gcul import GCUL
from simulations.sweep import run_cell, run_sweep
from simulations.synthetic import SyntheticConfig, make_dataset

TINY = SyntheticConfig(n_per_class=200, n_confusion=200)
GRID = [0.0, 4.0, 8.0]
SEEDS = [10, 11]
FRACTIONS = (
    "flip_prob",
    "base_acc",
    "selective_acc",
    "rejection_rate",
    "r1_hat_gaussian",
    "r1_hat_union",
    "r1_hat_chernoff",
    "r2_hat",
    "eps_train",
    "r1_cluster",
    "r2_cluster",
    "r1_emp",
    "r2_emp",
)


def _without_seconds(rows):
    return [{k: v for k, v in row.items() if k != "seconds"} for row in rows]


@pytest.fixture(scope="module")
def reference_rows():
    """The TINY grid run serially, without a cache."""
    return run_sweep(GRID, SEEDS, n_jobs=1, config=TINY, progress=False)


@pytest.fixture
def calls(monkeypatch):
    """Record every (seed, noise) that sweep computes (in-process, i.e. n_jobs=1)."""
    recorded: list[tuple[int, float]] = []
    real = sweep.run_cell

    def counting(seed, noise, config, **kwargs):
        recorded.append((seed, noise))
        return real(seed, noise, config, **kwargs)

    monkeypatch.setattr(sweep, "run_cell", counting)
    return recorded


# ---------------------------------------------------------------------------------------------
# One cell


def test_row_schema_and_ranges(reference_rows) -> None:
    assert len(reference_rows) == len(GRID) * len(SEEDS)
    for row in reference_rows:
        assert tuple(row) == ROW_COLUMNS
        assert type(row["seed"]) is int and type(row["level"]) is int
        assert all(type(row[c]) is float for c in ROW_COLUMNS if c not in ("seed", "level"))
        assert all(math.isfinite(row[c]) for c in ROW_COLUMNS)
        for column in FRACTIONS:
            assert 0.0 <= row[column] <= 1.0, (column, row[column])
        for method in sweep.LAMBDA_METHODS:
            assert row[f"lambda_pre_{method}"] >= 0.0
        assert row["flip_prob"] == TINY.flip_per_noise * row["noise"]
        assert row["seconds"] > 0.0
    assert [(r["seed"], r["noise"], r["level"]) for r in reference_rows] == [
        (s, n, GRID.index(n)) for s in SEEDS for n in GRID
    ]


def test_row_rates_are_consistent(reference_rows) -> None:
    for row in reference_rows:
        base_error = 1.0 - row["base_acc"]
        # ρ = ε r1 + (1 - ε) r2 holds exactly for the empirical rates on the test split.
        rho = gcul_theory.rejection_rate(base_error, row["r1_emp"], row["r2_emp"])
        assert rho == pytest.approx(row["rejection_rate"], abs=1e-12)
        expected = gcul_theory.empirical_lambda(
            base_error, 1.0 - row["selective_acc"], row["rejection_rate"]
        )
        assert row["lambda_emp"] == pytest.approx(expected, abs=1e-12)
        # Paper's bounds: the conservative union bound never exceeds the Gaussian-only one.
        assert row["r1_hat_union"] <= row["r1_hat_gaussian"] + 1e-15
        assert row["lambda_pre_union"] <= row["lambda_pre_gaussian"] + 1e-15


def test_cell_matches_an_independent_computation() -> None:
    seed, noise = 12, 3.2
    row = run_cell(seed, noise, TINY)
    data = make_dataset(seed, noise, TINY)
    model = GCUL().fit(data.X_train, data.y_train)
    y_pred = model.phase1_.predict(data.X_train)
    np.testing.assert_array_equal(model.error_mask_, y_pred != data.y_train)
    assert row["eps_train"] == np.mean(y_pred != data.y_train)
    geometry = gcul_theory.estimate_geometry(Z=data.X_train, y=data.y_train, y_pred=y_pred)
    assert row["lambda_pre_union"] == gcul_theory.critical_lambda(geometry, method="union")
    assert row["base_acc"] == np.mean(model.phase1_.predict(data.X_test) == data.y_test)
    rejected = model.predict(data.X_test) == model.n_classes_
    assert row["rejection_rate"] == np.mean(rejected)
    uncertain = model.cluster_labels_ == model.uncertain_cluster_
    assert row["r1_cluster"] == np.mean(uncertain[model.error_mask_])
    assert row["level"] == -1


def test_cell_without_training_errors_is_defined() -> None:
    # No confusion population and separated centres: phase 1 makes no error, nothing is rejected.
    row = run_cell(3, 0.0, SyntheticConfig(n_per_class=100, n_confusion=0))
    assert row["eps_train"] == 0.0 and row["base_acc"] == 1.0
    assert row["rejection_rate"] == 0.0 and row["selective_acc"] == 1.0
    assert row["lambda_emp"] == 0.0 and row["r1_cluster"] == 0.0 and row["r1_emp"] == 0.0
    assert all(math.isfinite(row[c]) for c in ROW_COLUMNS)


def test_direct_cell_equals_sweep_row(reference_rows) -> None:
    row = run_cell(11, 4.0, TINY, level=1)
    (expected,) = [r for r in reference_rows if (r["seed"], r["noise"]) == (11, 4.0)]
    assert _without_seconds([row]) == _without_seconds([expected])


def test_run_cell_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="noise must be a finite number >= 0"):
        run_cell(0, -1.0, TINY)
    with pytest.raises(ValueError, match="seed must be a non-negative int"):
        run_cell(-3, 0.0, TINY)
    with pytest.raises(ValueError, match="level must be an int >= -1"):
        run_cell(0, 0.0, TINY, level=-2)


# ---------------------------------------------------------------------------------------------
# Determinism: rows depend on (seed, σ, config) only


def test_two_jobs_give_identical_rows(reference_rows) -> None:
    rows = run_sweep(GRID, SEEDS, n_jobs=2, config=TINY, progress=False)
    assert _without_seconds(rows) == _without_seconds(reference_rows)


def test_cell_order_does_not_matter(reference_rows) -> None:
    shuffled_grid, shuffled_seeds = GRID[::-1], SEEDS[::-1]
    rows = run_sweep(shuffled_grid, shuffled_seeds, n_jobs=1, config=TINY, progress=False)
    assert _without_seconds(rows) == _without_seconds(reference_rows)
    cells = [(s, n) for s in SEEDS for n in GRID]
    random.Random(0).shuffle(cells)
    direct = {cell: run_cell(*cell, TINY, level=GRID.index(cell[1])) for cell in cells}
    in_order = [direct[s, n] for s in SEEDS for n in GRID]
    assert _without_seconds(in_order) == _without_seconds(reference_rows)


# ---------------------------------------------------------------------------------------------
# The cell cache


def test_cache_serves_finished_cells(tmp_path, calls, reference_rows) -> None:
    first = run_sweep(GRID, SEEDS, cache_dir=tmp_path, config=TINY, progress=False)
    assert len(calls) == 6
    assert len(list(tmp_path.glob("*.json"))) == 6
    assert _without_seconds(first) == _without_seconds(reference_rows)
    calls.clear()
    again = run_sweep(GRID, SEEDS, cache_dir=tmp_path, config=TINY, progress=False)
    assert calls == []
    assert again == first  # bit for bit, seconds included: served from the cache
    # A sub-grid reuses the same cells; level is the index in the grid of this sweep.
    sub = run_sweep([8.0], [11], cache_dir=tmp_path, config=TINY, progress=False)
    assert calls == [] and sub[0]["level"] == 0 and sub[0]["base_acc"] == first[-1]["base_acc"]


def test_cache_recomputes_only_a_missing_cell(tmp_path, calls) -> None:
    first = run_sweep(GRID, SEEDS, cache_dir=tmp_path, config=TINY, progress=False)
    (victim,) = tmp_path.glob("*seed11-noise4.0.json")
    victim.unlink()
    calls.clear()
    again = run_sweep(GRID, SEEDS, cache_dir=tmp_path, config=TINY, progress=False)
    assert calls == [(11, 4.0)]
    assert _without_seconds(again) == _without_seconds(first)


def test_interrupted_sweep_resumes(tmp_path, monkeypatch, reference_rows) -> None:
    real = sweep.run_cell
    done: list[tuple[int, float]] = []

    class Interrupted(Exception):
        pass

    def interrupted_after_three(seed, noise, config, **kwargs):
        if len(done) == 3:
            raise Interrupted
        done.append((seed, noise))
        return real(seed, noise, config, **kwargs)

    monkeypatch.setattr(sweep, "run_cell", interrupted_after_three)
    with pytest.raises(Interrupted):
        run_sweep(GRID, SEEDS, cache_dir=tmp_path, config=TINY, progress=False)
    assert len(list(tmp_path.glob("*.json"))) == 3
    assert not list(tmp_path.glob("*.tmp"))  # no half-written file left behind

    resumed: list[tuple[int, float]] = []

    def counting(seed, noise, config, **kwargs):
        resumed.append((seed, noise))
        return real(seed, noise, config, **kwargs)

    monkeypatch.setattr(sweep, "run_cell", counting)
    rows = run_sweep(GRID, SEEDS, cache_dir=tmp_path, config=TINY, progress=False)
    assert sorted(resumed + done) == sorted((s, n) for s in SEEDS for n in GRID)
    assert not set(resumed) & set(done)
    assert _without_seconds(rows) == _without_seconds(reference_rows)


def test_parallel_run_fills_the_cache(tmp_path, calls) -> None:
    rows = run_sweep([0.0, 4.0], [10], n_jobs=2, cache_dir=tmp_path, config=TINY, progress=False)
    assert len(list(tmp_path.glob("*.json"))) == 2
    again = run_sweep([0.0, 4.0], [10], n_jobs=1, cache_dir=tmp_path, config=TINY, progress=False)
    assert calls == [] and again == rows


def test_changed_config_never_reuses_cells(tmp_path, calls) -> None:
    run_sweep([4.0], [10], cache_dir=tmp_path, config=TINY, progress=False)
    other = SyntheticConfig(n_per_class=200, n_confusion=200, radius=1.6)
    calls.clear()
    rows = run_sweep([4.0], [10], cache_dir=tmp_path, config=other, progress=False)
    assert calls == [(10, 4.0)]
    assert rows[0]["base_acc"] == run_cell(10, 4.0, other)["base_acc"]
    assert len(list(tmp_path.glob("*.json"))) == 2  # both configs' cells live side by side


def test_changed_code_or_version_never_reuses_cells(tmp_path, calls, monkeypatch) -> None:
    run_sweep([0.0], [10], cache_dir=tmp_path, config=TINY, progress=False)
    calls.clear()
    monkeypatch.setattr(sweep, "CACHE_VERSION", sweep.CACHE_VERSION + 1)
    run_sweep([0.0], [10], cache_dir=tmp_path, config=TINY, progress=False)
    assert calls == [(10, 0.0)]
    calls.clear()
    monkeypatch.setattr(sweep, "_code_fingerprint", lambda: "edited source")
    run_sweep([0.0], [10], cache_dir=tmp_path, config=TINY, progress=False)
    assert calls == [(10, 0.0)]


def test_unreadable_or_foreign_cache_files_are_recomputed(tmp_path, calls) -> None:
    first = run_sweep([0.0, 4.0], [10], cache_dir=tmp_path, config=TINY, progress=False)
    (truncated,) = tmp_path.glob("*noise0.0.json")
    truncated.write_text('{"key": ', encoding="utf-8")
    (tampered,) = tmp_path.glob("*noise4.0.json")
    payload = json.loads(tampered.read_text(encoding="utf-8"))
    payload["noise"] = 4.4  # a file whose content belongs to another cell
    tampered.write_text(json.dumps(payload), encoding="utf-8")
    calls.clear()
    again = run_sweep([0.0, 4.0], [10], cache_dir=tmp_path, config=TINY, progress=False)
    assert sorted(calls) == [(10, 0.0), (10, 4.0)]
    assert _without_seconds(again) == _without_seconds(first)


# ---------------------------------------------------------------------------------------------
# Progress bar and arguments


def test_progress_bar(tmp_path, capsys) -> None:
    run_sweep([0.0, 4.0], [10], cache_dir=tmp_path, config=TINY, progress=True)
    err = capsys.readouterr().err
    assert "2/2 cells" in err and "elapsed" in err and "ETA" in err and err.endswith("\n")
    run_sweep([0.0, 4.0], [10], cache_dir=tmp_path, config=TINY, progress=True)
    assert "2/2 cells (2 cached)" in capsys.readouterr().err
    run_sweep([0.0, 4.0], [10], cache_dir=tmp_path, config=TINY, progress=False)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"noise_levels": []}, ValueError, "noise_levels must be non-empty"),
        ({"noise_levels": [0.0, 0.0]}, ValueError, r"noise_levels must be distinct; .*\[0.0\]"),
        ({"noise_levels": [-1.0]}, ValueError, "noise_levels: noise must be a finite number"),
        ({"noise_levels": [50.0]}, ValueError, "noise_levels: .*flip probability"),
        ({"noise_levels": 1.0}, TypeError, "noise_levels must be a non-empty iterable"),
        ({"seeds": []}, ValueError, "seeds must be non-empty"),
        ({"seeds": [1, 1]}, ValueError, r"seeds must be distinct; repeated: \[1\]"),
        ({"seeds": [-1]}, ValueError, "seeds: seed must be a non-negative int"),
        ({"seeds": [1.5]}, TypeError, "seeds: seed must be a non-negative int"),
        ({"n_jobs": 0}, ValueError, "n_jobs must be a non-zero int"),
        ({"n_jobs": 1.5}, TypeError, "n_jobs must be a non-zero int"),
        ({"cache_dir": 3}, TypeError, "cache_dir must be a path or None"),
        ({"config": {}}, TypeError, "config must be a SyntheticConfig"),
        ({"progress": "yes"}, TypeError, "progress must be a bool"),
    ],
)
def test_run_sweep_rejects_bad_arguments(kwargs, error, match) -> None:
    arguments = {"noise_levels": [0.0], "seeds": [0], "config": TINY, "progress": False}
    with pytest.raises(error, match=match):
        run_sweep(**(arguments | kwargs))


def test_cache_dir_must_be_a_directory(tmp_path) -> None:
    file = tmp_path / "file"
    file.write_text("", encoding="utf-8")
    with pytest.raises(ValueError, match="cache_dir must be a directory"):
        run_sweep([0.0], [0], cache_dir=file, config=TINY, progress=False)


def test_numpy_grid_is_accepted(reference_rows) -> None:
    rows = run_sweep(np.array(GRID[:1]), np.array([10]), config=TINY, progress=False)
    assert _without_seconds(rows) == _without_seconds(reference_rows[:1])


# ---------------------------------------------------------------------------------------------
# CSV and columns


def test_csv_round_trip_is_exact(tmp_path, reference_rows) -> None:
    path = write_csv(reference_rows, tmp_path / "results.csv")
    assert read_csv(path) == reference_rows
    header = path.read_text(encoding="utf-8").splitlines()[0]
    assert header == ",".join(ROW_COLUMNS)


def test_csv_round_trip_of_awkward_floats(tmp_path) -> None:
    values = [0.1 + 0.2, 1e-300, 5e-324, 1.0 - 2**-53, 123456789.123456789, math.inf, math.nan]
    rows = [{c: v for c in ROW_COLUMNS} | {"seed": i, "level": -1} for i, v in enumerate(values)]
    back = read_csv(write_csv(rows, tmp_path / "awkward.csv"))
    for row, value in zip(back, values, strict=True):
        got = row["noise"]
        assert (math.isnan(got) and math.isnan(value)) or got == value
        assert type(row["seed"]) is int


def test_csv_rejects_bad_rows_and_files(tmp_path) -> None:
    row = {c: 0.5 for c in ROW_COLUMNS} | {"seed": 1, "level": 0}
    with pytest.raises(ValueError, match="missing \\['seconds'\\]"):
        write_csv([{k: v for k, v in row.items() if k != "seconds"}], tmp_path / "a.csv")
    with pytest.raises(ValueError, match="extra \\['bogus'\\]"):
        write_csv([row | {"bogus": 1.0}], tmp_path / "a.csv")
    with pytest.raises(ValueError, match="seed must be an int"):
        write_csv([row | {"seed": 1.0}], tmp_path / "a.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(ValueError, match="header must be the columns"):
        read_csv(bad)
    path = write_csv([row], tmp_path / "ok.csv")
    path.write_text(path.read_text(encoding="utf-8").replace("0.5", "x", 1), encoding="utf-8")
    with pytest.raises(ValueError, match="line 2: noise must be a float; got 'x'"):
        read_csv(path)


def test_to_columns(reference_rows) -> None:
    columns = to_columns(reference_rows)
    assert tuple(columns) == ROW_COLUMNS
    assert columns["seed"].dtype == np.int64 and columns["base_acc"].dtype == np.float64
    np.testing.assert_array_equal(columns["noise"], [r["noise"] for r in reference_rows])
    assert to_columns([])["seed"].shape == (0,)
