"""Tests for simulations.sweep, simulations.results and simulations.outputs: rows, determinism,
the cell cache, CSV."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import math
import os
import random
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import types
from pathlib import Path

import numpy as np
import pytest
from _tolerances import GAUSSIAN_REL, gamma, score_rate_condition

import gcul_theory
from simulations import sweep
from simulations.gcul import GCUL
from simulations.outputs import current_umask
from simulations.results import (
    COLUMN_RANGES,
    ROW_COLUMNS,
    check_row,
    read_csv,
    to_columns,
    write_csv,
    write_timings_csv,
)
from simulations.sweep import run_cell, run_sweep
from simulations.sweep.cell import certified_columns
from simulations.synthetic import SyntheticConfig, make_dataset

TINY = SyntheticConfig(n_per_class=200, n_confusion=200)
GRID = [0.0, 4.0, 8.0]
SEEDS = [10, 11]
FRACTIONS = (
    "flip_prob",
    "base_acc",
    "selective_acc",
    "rejection_rate",
    *(f"r1_hat_{entry.name}" for entry in gcul_theory.PREDICTORS),
    *(f"lambda_pre_{entry.name}" for entry in gcul_theory.PREDICTORS),
    "r2_hat",
    "r2_hat_attractor",
    "lambda_cert",
    "eps_train",
    "r1_cluster",
    "r2_cluster",
    "r1_emp",
    "r2_emp",
)


@pytest.fixture(scope="module")
def reference_rows():
    """The TINY grid run serially, without a cache."""
    return run_sweep(GRID, SEEDS, n_jobs=1, config=TINY, progress=False)


@pytest.fixture
def calls(monkeypatch):
    """Record every (seed, noise) that sweep computes (in-process, i.e. n_jobs=1)."""
    recorded: list[tuple[int, float]] = []
    real = sweep.cell.compute_row

    def counting(seed, noise, config, **kwargs):
        recorded.append((seed, noise))
        return real(seed, noise, config, **kwargs)

    monkeypatch.setattr(sweep.cell, "compute_row", counting)
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
        assert "seconds" not in row  # wall times live in SweepRows.timings / timings.csv
    assert [(r["seed"], r["noise"], r["level"]) for r in reference_rows] == [
        (s, n, GRID.index(n)) for s in SEEDS for n in GRID
    ]


def test_row_rates_are_consistent(reference_rows) -> None:
    for row in reference_rows:
        base_error = 1.0 - row["base_acc"]
        # ρ = ε r1 + (1 - ε) r2 holds exactly for the empirical rates on the test split.
        # ρ = ε r1 + (1 - ε) r2 holds exactly for the empirical rates on the test split.
        rho = gcul_theory.rejection_rate(base_error, row["r1_emp"], row["r2_emp"])
        # Each rate is a count ratio rounded once; 1 - base_acc rounds again (terms <= 1), and
        # ρ's own computation rounds 3 times (test_selectivity): <= gamma(10) in all
        assert rho == pytest.approx(row["rejection_rate"], rel=0, abs=gamma(10))
        selective_error = 1.0 - row["selective_acc"]
        expected = gcul_theory.empirical_lambda(base_error, selective_error, row["rejection_rate"])
        # the same quotient from differently rounded rates: their rounding over ρ (as λ*_EMP
        # in test_selectivity), both sides
        if row["rejection_rate"] > 0:
            slack = 2 * gamma(8) * (base_error + selective_error) / row["rejection_rate"]
            slack += gamma(4) * abs(expected)
        else:
            slack = 0.0
        assert row["lambda_emp"] == pytest.approx(expected, rel=0, abs=slack)
        # Paper's bounds: the conservative union bound never exceeds the Gaussian-only one,
        # exactly; each float r̂1 carries its tails' GAUSSIAN_REL and a few roundings of terms
        # <= 1, and λ*_PRE that times S's condition in its rates plus S's own rounding
        rate_slack = 2 * (GAUSSIAN_REL + gamma(12))
        assert row["r1_hat_union"] <= row["r1_hat_gaussian"] + rate_slack
        condition = score_rate_condition(base_error, row["r1_hat_gaussian"], row["r2_hat"])
        lambda_slack = min(condition * rate_slack, 1.0) + 2 * gamma(13)
        assert row["lambda_pre_union"] <= row["lambda_pre_gaussian"] + lambda_slack


def test_cell_matches_an_independent_computation() -> None:
    seed, noise = 12, 3.2
    row = run_cell(seed, noise, TINY)
    data = make_dataset(seed, noise, TINY)
    model = GCUL().fit(data.X_train, data.y_train)
    y_pred = model.phase1_.predict(data.X_train)
    np.testing.assert_array_equal(model.error_mask_, y_pred != data.y_train)
    assert row["eps_train"] == np.mean(y_pred != data.y_train)
    geometry = gcul_theory.estimate_geometry(Z=data.X_train, y=data.y_train, y_pred=y_pred)
    for entry in gcul_theory.PREDICTORS:  # every predictor, bit for bit as the public functions
        assert row[f"lambda_pre_{entry.name}"] == gcul_theory.critical_lambda(
            geometry, method=entry.name
        )
        assert row[f"r1_hat_{entry.name}"] == gcul_theory.capture_rate_bound(geometry, entry.name)
    assert row["r2_hat"] == gcul_theory.contamination_rate_bound(geometry, "union")
    assert row["r2_hat_attractor"] == gcul_theory.contamination_rate_bound(geometry, "boole")
    # The certified predictor: a second fit on 80% of the training split.
    certified = ("lambda_cert", "lambda_emp_cert", "lambda_emp_cert_noisy")
    assert {c: row[c] for c in certified} == certified_columns(data, seed, noise)
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
    assert [row] == [expected]


def test_run_cell_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="noise must be a finite number >= 0"):
        run_cell(0, -1.0, TINY)
    with pytest.raises(ValueError, match="seed must be a non-negative int"):
        run_cell(-3, 0.0, TINY)
    with pytest.raises(ValueError, match="level must be an integer >= -1; got -2"):
        run_cell(0, 0.0, TINY, level=-2)
    with pytest.raises(TypeError, match="profile must be a dict or None; got list"):
        run_cell(0, 0.0, TINY, profile=[])


def test_sigma_is_checked_once_where_it_enters_not_on_its_way_through_a_cell(monkeypatch) -> None:
    # issue 33 item 3: one cell checked σ in run_cell, make_dataset, mixture (rebuilt for the
    # Bayes rejector) and certified_columns; now only where it enters: run_cell, or the sweep's
    # grid once per level
    from simulations import synthetic

    checked = []
    real_noise, real_real = synthetic.check_noise, sweep.cell.check_real

    def check_noise(noise, config):
        checked.append(noise)
        return real_noise(noise, config)

    def check_real(name, value, *args, **kwargs):
        if name == "noise":
            checked.append(value)
        return real_real(name, value, *args, **kwargs)

    for module in (synthetic, sweep.cell, sweep.grid):
        monkeypatch.setattr(module, "check_noise", check_noise)
    monkeypatch.setattr(sweep.cell, "check_real", check_real)
    row = run_cell(10, 0.8, TINY)
    assert checked == [0.8]
    checked.clear()
    rows = run_sweep([0.0, 0.8], [10], n_jobs=1, config=TINY, progress=False)  # in this process
    assert checked == [0.0, 0.8]
    assert rows[1] == row | {"level": 1}
    # a public generator still checks what a user passes it, in one line
    with pytest.raises(ValueError, match=r"^noise must be a finite number >= 0; got -0\.5$"):
        make_dataset(0, -0.5, TINY)
    with pytest.raises(ValueError, match=r"^noise must be a finite number >= 0; got nan$"):
        synthetic.mixture(0, math.nan, TINY)


def test_fit_and_measure_in_its_former_form_is_one_line() -> None:
    data = make_dataset(0, 0.8, TINY)
    pattern = r"^fit_and_measure\(\) no longer takes noise or config; .* pass \(data, "
    with pytest.raises(TypeError, match=pattern):
        sweep.cell.fit_and_measure(data, GCUL, 0, 0.8, config=TINY)
    with pytest.raises(TypeError, match=pattern):
        sweep.cell.fit_and_measure(data, GCUL, 0, config=TINY)


def test_certified_columns_checks_noise_as_every_real_argument() -> None:
    data = make_dataset(0, 0.0, TINY)
    with pytest.raises(ValueError, match=r"noise must be in \[0, inf\); got -1.0"):
        certified_columns(data, 0, -1.0)
    with pytest.raises(TypeError, match="noise must be a real number; got '1' \\(str\\)"):
        certified_columns(data, 0, "1")  # a wrong type is a TypeError (was ValueError)


def test_row_has_every_registry_predictor_and_the_certified_one(reference_rows) -> None:
    names = [entry.name for entry in gcul_theory.PREDICTORS]
    assert sweep.LAMBDA_METHODS == tuple(names)
    assert {"boole", "hunter_worsley", "gaussian_exact"} <= set(names)
    for entry in gcul_theory.PREDICTORS:
        assert f"lambda_pre_{entry.name}" in ROW_COLUMNS and f"r1_hat_{entry.name}" in ROW_COLUMNS
        assert (
            COLUMN_RANGES[f"lambda_pre_{entry.name}"]
            == COLUMN_RANGES[f"r1_hat_{entry.name}"]
            == (0.0, 1.0)
        )
    assert {"r2_hat", "r2_hat_attractor", "lambda_cert", "lambda_emp_cert"} <= set(ROW_COLUMNS)
    assert COLUMN_RANGES["lambda_emp_cert"] == COLUMN_RANGES["lambda_emp"]
    for row in reference_rows:
        assert math.isfinite(row["lambda_emp_cert"])
        assert abs(row["lambda_emp"]) * row["rejection_rate"] <= 1.0
        # The valid predictors are ordered: Hunter-Worsley adds pairwise terms to Boole, and the
        # model value is projected above Hunter-Worsley.
        assert row["r1_hat_boole"] <= row["r1_hat_hunter_worsley"] <= row["r1_hat_gaussian_exact"]
        # The attractor model adds the chance-correct samples to the paper's r2 numerator.
        assert row["r2_hat_attractor"] >= row["r2_hat"]
    # The certified column is not a copy of the paper's: its model is a different fit.
    assert any(row["lambda_emp_cert"] != row["lambda_emp"] for row in reference_rows)


def test_certified_row_uses_the_model_factory_for_both_fits(monkeypatch) -> None:
    made: list[int] = []

    def factory():
        made.append(1)
        return GCUL()

    assert run_cell(10, 4.0, TINY, model_factory=factory) == run_cell(10, 4.0, TINY)
    assert len(made) == 2  # the full fit and the certified fit


def test_profile_reports_the_expensive_parts() -> None:
    profile: dict[str, float] = {}
    row = run_cell(10, 4.0, TINY, profile=profile)
    assert set(profile) == {"gaussian_exact", "certified", "rejectors"}
    assert all(seconds > 0.0 for seconds in profile.values())
    assert row == run_cell(10, 4.0, TINY)  # the row holds no timing


# ---------------------------------------------------------------------------------------------
# Determinism: rows depend on (seed, σ, config) only


def test_two_jobs_give_identical_rows(reference_rows) -> None:
    rows = run_sweep(GRID, SEEDS, n_jobs=2, config=TINY, progress=False)
    assert rows == reference_rows


def test_cell_order_does_not_matter(reference_rows) -> None:
    shuffled_grid, shuffled_seeds = GRID[::-1], SEEDS[::-1]
    rows = run_sweep(shuffled_grid, shuffled_seeds, n_jobs=1, config=TINY, progress=False)
    assert rows == reference_rows
    cells = [(s, n) for s in SEEDS for n in GRID]
    random.Random(0).shuffle(cells)
    direct = {cell: run_cell(*cell, TINY, level=GRID.index(cell[1])) for cell in cells}
    in_order = [direct[s, n] for s in SEEDS for n in GRID]
    assert in_order == reference_rows


# ---------------------------------------------------------------------------------------------
# The cell cache


def test_cache_serves_finished_cells(tmp_path, calls, reference_rows) -> None:
    first = run_sweep(GRID, SEEDS, cache_dir=tmp_path, config=TINY, progress=False)
    assert len(calls) == 6
    assert len(list(tmp_path.glob("*.json"))) == 6
    assert first == reference_rows
    calls.clear()
    again = run_sweep(GRID, SEEDS, cache_dir=tmp_path, config=TINY, progress=False)
    assert calls == []
    assert again == first  # bit for bit: served from the cache
    assert again.timings == first.timings  # the wall times recorded when the cells ran
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
    assert again == first


def test_interrupted_sweep_resumes(tmp_path, monkeypatch, reference_rows) -> None:
    real = sweep.cell.compute_row
    done: list[tuple[int, float]] = []

    class Interrupted(Exception):
        pass

    def interrupted_after_three(seed, noise, config, **kwargs):
        if len(done) == 3:
            raise Interrupted
        done.append((seed, noise))
        return real(seed, noise, config, **kwargs)

    monkeypatch.setattr(sweep.cell, "compute_row", interrupted_after_three)
    with pytest.raises(Interrupted):
        run_sweep(GRID, SEEDS, cache_dir=tmp_path, config=TINY, progress=False)
    assert len(list(tmp_path.glob("*.json"))) == 3
    assert not list(tmp_path.glob("*.tmp"))  # no half-written file left behind

    resumed: list[tuple[int, float]] = []

    def counting(seed, noise, config, **kwargs):
        resumed.append((seed, noise))
        return real(seed, noise, config, **kwargs)

    monkeypatch.setattr(sweep.cell, "compute_row", counting)
    rows = run_sweep(GRID, SEEDS, cache_dir=tmp_path, config=TINY, progress=False)
    assert sorted(resumed + done) == sorted((s, n) for s in SEEDS for n in GRID)
    assert not set(resumed) & set(done)
    assert rows == reference_rows


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
    monkeypatch.setattr(sweep.cache, "CACHE_VERSION", sweep.CACHE_VERSION + 1)
    run_sweep([0.0], [10], cache_dir=tmp_path, config=TINY, progress=False)
    assert calls == [(10, 0.0)]
    calls.clear()
    monkeypatch.setattr(sweep.cache, "code_fingerprint", lambda: "edited source")
    run_sweep([0.0], [10], cache_dir=tmp_path, config=TINY, progress=False)
    assert calls == [(10, 0.0)]


_CACHED_CODE = """
import json, sys
from pathlib import Path
from simulations.sweep import run_sweep
from simulations.synthetic import SyntheticConfig
cache = Path(sys.argv[1])
run_sweep([0.0], [10], cache_dir=cache, config=SyntheticConfig(n_per_class=40, n_confusion=40),
          progress=False)
(cell,) = cache.glob("cell-*.json")
print(json.loads(cell.read_text(encoding="utf-8"))["payload"]["code"])
"""


@pytest.mark.slow  # 6 s: sweeps over copies of the package
def test_an_added_or_moved_module_never_reuses_cells(tmp_path) -> None:
    # The code fingerprint hashed a hard-coded list of six files of simulations/ (and the top
    # folder of gcul_theory/): a module added to simulations/, or to a subfolder of it, left the
    # cached cells in use. Here the packages are copied, changed, and a cell cached by each copy.
    repo = Path(__file__).resolve().parents[1]
    tree = tmp_path / "tree"
    for package in ("simulations", "gcul_theory"):
        shutil.copytree(
            repo / package, tree / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1")

    def code() -> str:
        cache = tmp_path / f"cache{len(codes)}"
        # cwd: `python -c` imports from its working directory first
        run = [sys.executable, "-c", _CACHED_CODE, str(cache)]
        done = subprocess.run(
            run, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    codes: list[str] = []
    codes.append(code())
    (tree / "simulations" / "added_module.py").write_text("X = 1\n", encoding="utf-8")
    codes.append(code())
    (tree / "simulations" / "rejectors" / "added_rejector.py").write_text(
        "Y = 2\n", encoding="utf-8"
    )
    codes.append(code())
    (tree / "simulations" / "added_module.py").rename(tree / "simulations" / "moved_module.py")
    codes.append(code())
    assert len(set(codes)) == len(codes), codes


def test_unreadable_or_foreign_cache_files_are_recomputed(tmp_path, calls) -> None:
    first = run_sweep([0.0, 4.0], [10], cache_dir=tmp_path, config=TINY, progress=False)
    (truncated,) = tmp_path.glob("*noise0.0.json")
    truncated.write_text('{"key": ', encoding="utf-8")
    (tampered,) = tmp_path.glob("*noise4.0.json")
    document = json.loads(tampered.read_text(encoding="utf-8"))
    document.get("payload", document)["noise"] = 4.4  # content that belongs to another cell
    tampered.write_text(json.dumps(document), encoding="utf-8")
    calls.clear()
    again = run_sweep([0.0, 4.0], [10], cache_dir=tmp_path, config=TINY, progress=False)
    assert sorted(calls) == [(10, 0.0), (10, 4.0)]
    assert again == first


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
    assert rows == reference_rows[:1]


# ---------------------------------------------------------------------------------------------
# CSV and columns


def test_csv_round_trip_is_exact(tmp_path, reference_rows) -> None:
    path = write_csv(reference_rows, tmp_path / "results.csv")
    assert read_csv(path) == reference_rows
    header = path.read_text(encoding="utf-8").splitlines()[0]
    assert header == ",".join(ROW_COLUMNS)


def test_csv_round_trip_of_awkward_floats(tmp_path) -> None:
    values = [0.1 + 0.2, 1e-300, 5e-324, 1.0 - 2**-53, 0.0, 1.0]
    rows = [{c: v for c in ROW_COLUMNS} | {"seed": i, "level": -1} for i, v in enumerate(values)]
    # a row whose rejection_rate is 1 has NaN selective risks (GCUL accepts nothing)
    rows = [row | {"rejection_rate": 0.5} if row["rejection_rate"] == 1.0 else row for row in rows]
    rows.append(rows[0] | {"seed": 99, "noise": 123456789.123456789})
    back = read_csv(write_csv(rows, tmp_path / "awkward.csv"))
    assert back == rows  # exact, including the denormal 5e-324 and 1 - 2**-53
    assert all(type(row["seed"]) is int for row in back)


def test_csv_rejects_bad_rows_and_files(tmp_path) -> None:
    row = {c: 0.5 for c in ROW_COLUMNS} | {"seed": 1, "level": 0}
    with pytest.raises(ValueError, match="missing \\['r2_emp'\\]"):
        write_csv([{k: v for k, v in row.items() if k != "r2_emp"}], tmp_path / "a.csv")
    with pytest.raises(ValueError, match="extra \\['seconds'\\]"):
        write_csv([row | {"seconds": 1.0}], tmp_path / "a.csv")  # timings are not row columns
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


# ---------------------------------------------------------------------------------------------
# Hardening (issue 6, section 2): worker cap, cache integrity, byte identity, file modes,
# writability, progress in logs.


def _cell_document(path):
    return json.loads(path.read_text(encoding="utf-8"))


def _stored_row(document):
    """The row dict inside a cache file (``payload.row`` now; ``row`` in the version-1 format)."""
    return document.get("payload", document)["row"]


def _reseal(document):
    """Recompute the checksum after an edit, as someone forging a cache file would."""
    if "sha256" in document:
        payload = document["payload"]
        canonical = json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()
        document["sha256"] = hashlib.sha256(canonical).hexdigest()
    return document


def test_usable_cores_follows_the_affinity_mask() -> None:
    if hasattr(os, "process_cpu_count"):  # Python 3.13+
        expected = os.process_cpu_count()
    elif hasattr(os, "sched_getaffinity"):
        expected = len(os.sched_getaffinity(0))
    else:
        expected = os.cpu_count()
    assert sweep.usable_cores() == expected


@pytest.mark.parametrize(
    ("n_jobs", "expected", "notice"),
    [(999, 2, True), (3, 2, True), (2, 2, False), (-1, 2, False), (-2, None, False)],
)
def test_n_jobs_is_capped_at_the_usable_cores(
    monkeypatch, capsys, pool_sizes, n_jobs, expected, notice
):
    # --jobs 999 on a 2-core machine started ~975 worker processes and exhausted memory.
    monkeypatch.setattr(sweep.backends, "usable_cores", lambda: 2, raising=False)
    rows = run_sweep(GRID, [10], n_jobs=n_jobs, config=TINY, progress=False)
    assert len(rows) == 3
    # -2 = all but one = 1 worker: run in this process, no pool at all.
    assert pool_sizes == ([] if expected is None else [expected])
    err = capsys.readouterr().err
    if notice:
        assert err == f"sweep: n_jobs={n_jobs} capped at the 2 usable CPU core(s)\n"
    else:
        assert err == ""


def test_pool_is_never_larger_than_the_work(monkeypatch, pool_sizes) -> None:
    monkeypatch.setattr(sweep.backends, "usable_cores", lambda: 64, raising=False)
    run_sweep([0.0, 4.0], [10], n_jobs=64, config=TINY, progress=False)
    assert pool_sizes == [2]  # two cells: two workers, not 64


def _edit_base_acc(document, other):
    _stored_row(document)["base_acc"] = 0.123  # a plain edit; checksum left as it was


def _forge_negative_lambda(document, other):
    # |lambda_emp| > 1/rejection_rate (rejection_rate is 0.129 here) even with a valid checksum
    _stored_row(document)["lambda_emp"] = -70.0
    _reseal(document)


def _forge_nan(document, other):
    _stored_row(document)["selective_acc"] = math.nan
    _reseal(document)


def _forge_string(document, other):
    _stored_row(document)["rejection_rate"] = "0.5"
    _reseal(document)


def _copy_other_level(document, other):
    # The row of σ = 0 pasted into the σ = 4 file, keeping the cell's own seed and noise.
    row = _stored_row(document)
    row.update({k: v for k, v in _stored_row(other).items() if k not in ("seed", "noise")})


def _forge_other_level(document, other):
    _copy_other_level(document, other)
    _reseal(document)


@pytest.mark.parametrize(
    ("tamper", "reason"),
    [
        (_edit_base_acc, "checksum mismatch"),
        (
            _forge_negative_lambda,
            "lambda_emp must be in [-1/rejection_rate, 1/rejection_rate] (0 when rejection_rate "
            "is 0); got -70.0 with rejection_rate",
        ),
        (_forge_nan, "NaN or infinity"),
        (_forge_string, "rejection_rate must be a float; got '0.5'"),
        (_copy_other_level, "checksum mismatch"),
        (_forge_other_level, "flip_prob differs"),
    ],
)
def test_tampered_cache_files_are_recomputed(tmp_path, calls, capsys, tamper, reason) -> None:
    # Edited values (base_acc = 0.123, lambda_emp = -70), NaN, strings and a row copied from
    # another noise level all used to be served from the cache into results.csv.
    first = run_sweep([0.0, 4.0], [10], cache_dir=tmp_path, config=TINY, progress=False)
    (victim,) = tmp_path.glob("*noise4.0.json")
    (other,) = tmp_path.glob("*noise0.0.json")
    document = _cell_document(victim)
    tamper(document, _cell_document(other))
    victim.write_text(json.dumps(document), encoding="utf-8")
    calls.clear()
    capsys.readouterr()
    again = run_sweep([0.0, 4.0], [10], cache_dir=tmp_path, config=TINY, progress=False)
    assert calls == [(10, 4.0)]
    assert again == first
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "1 cached cell(s) did not verify and are recomputed" in err[0], err
    assert victim.name in err[0] and reason in err[0], err
    # The bad file was replaced by a good one: a third run computes nothing and says nothing.
    calls.clear()
    assert run_sweep([0.0, 4.0], [10], cache_dir=tmp_path, config=TINY, progress=False) == first
    assert calls == [] and capsys.readouterr().err == ""


def test_cache_file_carries_identity_and_checksum(tmp_path) -> None:
    run_sweep([4.0], [10], cache_dir=tmp_path, config=TINY, progress=False)
    (path,) = tmp_path.glob("*.json")
    document = _cell_document(path)
    payload = document["payload"]
    assert payload["seed"] == 10 and payload["noise"] == 4.0
    assert payload["config"] == dataclasses.asdict(TINY)
    assert payload["code"] == sweep.cache.code_fingerprint()
    assert payload["cache_version"] == sweep.CACHE_VERSION == 6
    # the default reading of --geometry-labels, under the key it has had since before issue 33
    assert payload["error_pool"] == "observed"
    assert "level" not in payload["row"]  # a cell's row does not depend on the grid
    assert payload["seconds"] > 0.0
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()
    assert document["sha256"] == hashlib.sha256(canonical).hexdigest()


def test_file_of_another_cell_is_recomputed(tmp_path, calls, capsys) -> None:
    run_sweep([0.0, 4.0], [10], cache_dir=tmp_path, config=TINY, progress=False)
    (source,) = tmp_path.glob("*noise0.0.json")
    (target,) = tmp_path.glob("*noise4.0.json")
    target.write_bytes(source.read_bytes())  # a whole, valid, checksummed file of another cell
    calls.clear()
    run_sweep([0.0, 4.0], [10], cache_dir=tmp_path, config=TINY, progress=False)
    assert calls == [(10, 4.0)]
    assert "belongs to another cell (noise differs)" in capsys.readouterr().err


def test_a_cell_of_the_other_geometry_labels_is_recomputed(tmp_path, calls, capsys) -> None:
    # the two readings of the geometry labels differ in the lambda*_PRE columns: a cell of one must
    # never be read as a cell of the other, even when its file is put where the other's goes
    run_sweep([4.0], [10], cache_dir=tmp_path, config=TINY, progress=False)
    (observed,) = tmp_path.glob("*.json")
    calls.clear()
    run_sweep([4.0], [10], cache_dir=tmp_path, config=TINY, progress=False, geometry_labels="clean")
    assert calls == [(10, 4.0)]  # not read from the observed cell
    (clean,) = set(tmp_path.glob("*.json")) - {observed}
    clean.write_bytes(observed.read_bytes())  # a whole, valid, checksummed observed cell
    calls.clear()
    run_sweep([4.0], [10], cache_dir=tmp_path, config=TINY, progress=False, geometry_labels="clean")
    assert calls == [(10, 4.0)]
    assert "belongs to another cell (key differs)" in capsys.readouterr().err


def test_many_bad_cache_files_give_one_summary_line(tmp_path, calls, capsys) -> None:
    run_sweep(GRID, SEEDS, cache_dir=tmp_path, config=TINY, progress=False)
    for path in tmp_path.glob("*.json"):
        path.write_text("{}", encoding="utf-8")
    capsys.readouterr()
    calls.clear()
    run_sweep(GRID, SEEDS, cache_dir=tmp_path, config=TINY, progress=False)
    assert len(calls) == 6
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("sweep: 6 cached cell(s) did not verify") and "and 3 more" in line


def test_lambda_emp_below_minus_one_is_a_valid_row() -> None:
    # A 100-seed x 81-level grid with n_per_class = n_confusion = 40 stopped at this cell:
    # "lambda_emp must be in [-1.0, 1.0]; got -1.0104529616724738". Phase 3 relabels 8 of the 41
    # accepted test samples, so its error there (18/41) exceeds phase 1's overall error (14/48)
    # by more than the rejection rate (7/48): lambda_emp = (14/48 - 18/41) / (7/48).
    row = run_cell(1, 6.4, SyntheticConfig(n_per_class=40, n_confusion=40))
    assert row["rejection_rate"] == 7 / 48
    # a quotient of rounded rates: their rounding amplified by 48/7, both sides (test_selectivity)
    exact = (14 / 48 - 18 / 41) / (7 / 48)
    slack = 2 * gamma(8) * (14 / 48 + 18 / 41) * 48 / 7 + gamma(4) * abs(exact)
    assert row["lambda_emp"] == pytest.approx(exact, rel=0, abs=slack)
    assert row["lambda_emp"] < -1.0


@pytest.mark.parametrize(("rejection_rate", "lambda_emp"), [(0.25, 4.5), (0.25, -4.5), (0.0, 0.25)])
def test_lambda_emp_beyond_one_over_the_rejection_rate_is_refused(rejection_rate, lambda_emp):
    row = {c: 0.5 for c in ROW_COLUMNS} | {"seed": 16, "level": 0}
    row |= {"rejection_rate": rejection_rate, "lambda_emp": lambda_emp}
    with pytest.raises(ValueError, match=r"row: lambda_emp must be in \[-1/rejection_rate, 1/"):
        check_row(row)
    check_row(row | {"lambda_emp": 4.0 if rejection_rate else 0.0})  # |4.0| * 0.25 = 1 holds


def test_a_computed_row_out_of_range_is_refused(monkeypatch) -> None:
    real = sweep.cell.fit_and_measure

    def broken(*args, **kwargs):
        return real(*args, **kwargs) | {"lambda_pre_union": 1.0000000000000002}

    monkeypatch.setattr(sweep.cell, "fit_and_measure", broken)
    with pytest.raises(ValueError, match=r"cell \(seed=10, noise=0.0\): lambda_pre_union must"):
        run_cell(10, 0.0, TINY)


def _csv_bytes(rows, path):
    return write_csv(rows, path).read_bytes()


def test_results_csv_is_byte_identical_for_any_jobs_and_a_resumed_run(
    tmp_path, monkeypatch, reference_rows
) -> None:
    # The `seconds` column made results.csv differ byte for byte between runs.
    serial = _csv_bytes(reference_rows, tmp_path / "serial.csv")
    rows = run_sweep(GRID, SEEDS, n_jobs=2, config=TINY, progress=False)
    assert _csv_bytes(rows, tmp_path / "parallel.csv") == serial

    real = sweep.cell.compute_row
    done = []

    def interrupted_after_two(seed, noise, config, **kwargs):
        if len(done) == 2:
            raise KeyboardInterrupt
        done.append((seed, noise))
        return real(seed, noise, config, **kwargs)

    monkeypatch.setattr(sweep.cell, "compute_row", interrupted_after_two)
    with pytest.raises(KeyboardInterrupt):
        run_sweep(GRID, SEEDS, cache_dir=tmp_path / "cache", config=TINY, progress=False)
    monkeypatch.setattr(sweep.cell, "compute_row", real)
    resumed = run_sweep(GRID, SEEDS, cache_dir=tmp_path / "cache", config=TINY, progress=False)
    assert _csv_bytes(resumed, tmp_path / "resumed.csv") == serial
    # The wall times are reported beside the rows, one per cell, in the same order.
    assert [(t["seed"], t["noise"]) for t in resumed.timings] == [
        (r["seed"], r["noise"]) for r in resumed
    ]
    assert all(t["seconds"] > 0.0 for t in resumed.timings)


@pytest.fixture
def umask():
    """Set the process umask for one test, restore it afterwards."""
    previous = os.umask(0o022)
    yield lambda value: os.umask(value)
    os.umask(previous)


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002])
def test_results_and_cache_files_respect_the_umask(tmp_path, umask, mask, reference_rows):
    # results.csv and the cache files were created with mode 0600 (tempfile.mkstemp).
    umask(mask)
    expected = 0o666 & ~mask
    path = write_csv(reference_rows, tmp_path / "results.csv")
    assert stat.S_IMODE(path.stat().st_mode) == expected
    run_sweep([0.0], [10], cache_dir=tmp_path / "cache", config=TINY, progress=False)
    (cell,) = (tmp_path / "cache").glob("*.json")
    assert stat.S_IMODE(cell.stat().st_mode) == expected
    timings = write_timings_csv([{"seed": 1, "noise": 0.0, "seconds": 0.5}], tmp_path / "t.csv")
    assert stat.S_IMODE(timings.stat().st_mode) == expected


def test_current_umask_reads_without_changing_it(umask) -> None:
    umask(0o027)
    assert current_umask() == 0o027
    assert os.umask(0o027) == 0o027  # unchanged by the read


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in a read-only folder")
def test_read_only_cache_dir_is_refused_before_any_cell(tmp_path, calls) -> None:
    tmp_path.chmod(0o500)
    try:
        with pytest.raises(ValueError, match="cache_dir .* is not a writable directory"):
            run_sweep([0.0], [10], cache_dir=tmp_path, config=TINY, progress=False)
    finally:
        tmp_path.chmod(0o700)
    assert calls == []


def test_unwritable_cache_dir_is_refused_before_any_cell(tmp_path, calls, monkeypatch) -> None:
    # Runs as root too: the write probe itself is made to fail as on a read-only file system.
    def read_only(*args, **kwargs):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(tempfile, "mkstemp", read_only)
    with pytest.raises(ValueError, match="is not a writable directory: Read-only file system"):
        run_sweep([0.0], [10], cache_dir=tmp_path / "cache", config=TINY, progress=False)
    assert calls == []


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _fake_cell(seed, noise, config, **kwargs):
    """A valid row made up at once, so progress tests can run many cells."""
    row = {c: 0.5 for c in ROW_COLUMNS}
    return row | {"seed": seed, "noise": noise, "level": -1, "flip_prob": 0.025 * noise}


def test_progress_in_a_log_is_plain_lines(monkeypatch, capsys) -> None:
    # The bar redrew with "\r" on a non-terminal: one long log line, the final state twice.
    monkeypatch.setattr(sweep.cell, "compute_row", _fake_cell)
    grid = [0.4 * i for i in range(25)]
    run_sweep(grid, [10, 11], config=TINY, progress=True)
    err = capsys.readouterr().err
    assert "\r" not in err and err.endswith("\n")
    lines = err.splitlines()
    assert lines[0].startswith("sweep: 0/50 cells")
    assert sum(line.startswith("sweep: 50/50 cells") for line in lines) == 1
    assert lines[-1].startswith("sweep: 50/50 cells")
    # About one line per tenth of the work (5 s never pass here), not one per cell.
    assert 10 <= len(lines) <= 12, lines


def test_progress_on_a_terminal_redraws_one_line(monkeypatch) -> None:
    monkeypatch.setattr(sweep.cell, "compute_row", _fake_cell)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    run_sweep([0.0, 0.4, 0.8], [10], config=TINY, progress=True)
    text = terminal.getvalue()
    assert text.startswith("\rsweep: 0/3 cells") and text.endswith("\n")
    assert text.count("\n") == 1 and "\rsweep: 3/3 cells" in text


def test_interrupted_progress_in_a_log_ends_with_the_last_state(monkeypatch, capsys) -> None:
    done = []

    def fails_at_the_third(seed, noise, config, **kwargs):
        if len(done) == 2:
            raise RuntimeError("boom")
        done.append(noise)
        return _fake_cell(seed, noise, config)

    monkeypatch.setattr(sweep.cell, "compute_row", fails_at_the_third)
    with pytest.raises(RuntimeError):
        run_sweep([0.0, 0.4, 0.8, 1.2], [10], config=TINY, progress=True)
    lines = capsys.readouterr().err.splitlines()
    assert lines[-1].startswith("sweep: 2/4 cells") and len(set(lines)) == len(lines)


def test_module_docstring_cites_the_paper_by_title() -> None:
    assert "gcul_paper.tex" not in sweep.__doc__
    assert "Cluster-Guided" in sweep.__doc__ and "subsec:synthetic_exp" in sweep.__doc__


def test_every_column_has_a_documented_range() -> None:
    # A column added to ROW_COLUMNS without a range would make check_row fail with a KeyError.
    assert set(COLUMN_RANGES) == set(ROW_COLUMNS)
    for column, (low, high) in COLUMN_RANGES.items():
        assert low < high, column
    with pytest.raises(ValueError, match=r"row 0: r2_emp must be in \[0.0, 1.0\]; got -0.25"):
        row = {c: 0.5 for c in ROW_COLUMNS} | {"seed": 1, "level": 0, "r2_emp": -0.25}
        check_row(row, "row 0")


def test_a_model_without_train_pred_gives_the_same_row() -> None:
    # run_cell reuses GCUL's train_pred_; another implementation (the benchmark's scikit-learn
    # pipeline) has none and phase1_.predict is called instead, with the same result
    class WithoutTrainPred(GCUL):
        def fit(self, X, y):
            super().fit(X, y)
            del self.train_pred_
            return self

    assert run_cell(11, 2.0, TINY, model_factory=WithoutTrainPred) == run_cell(11, 2.0, TINY)


def _seconds(text: str) -> int:
    """Seconds of a progress-bar duration such as ``1h02m03s``, ``2m05s`` or ``49s``."""
    match = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m)?(\d+)s", text)
    assert match, text
    hours, minutes, seconds = (int(part or 0) for part in match.groups())
    return 3600 * hours + 60 * minutes + seconds


def test_eta_leaves_out_the_start_up_of_the_workers(monkeypatch) -> None:
    # The first ETA said 11m36s for a 50 s run: elapsed time over the cells done counted the
    # start of the worker processes (here 1 s) and the first cell of each worker (1.7 s more than
    # the others: its imports and first calls) once per cell.
    start_up, first_cell, cell_seconds, workers, total = 1.0, 1.7, 0.24, 2, 410
    clock = [0.0]  # a fake clock: the test does not sleep
    monkeypatch.setattr(
        sweep.progress, "time", types.SimpleNamespace(perf_counter=lambda: clock[0])
    )
    monkeypatch.setattr(sweep.backends, "usable_cores", lambda: workers)

    def two_workers(cells, *args, **kwargs):
        clock[0] += start_up
        for index, (seed, noise) in enumerate(cells):
            seconds = cell_seconds + (first_cell if index < workers else 0.0)
            if index % workers == 0:  # the two workers each end a cell every 0.24 s
                clock[0] += seconds
            yield seed, noise, _fake_cell(seed, noise, TINY), seconds

    monkeypatch.setattr(sweep.backends, "run_cells", two_workers)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    grid = [round(0.4 * i, 10) for i in range(41)]
    run_sweep(grid, list(range(10, 20)), n_jobs=workers, config=TINY, progress=True)
    states = re.findall(r"sweep: (\d+)/410 cells \| elapsed \S+ \| ETA (\S+)", terminal.getvalue())
    checked = 0
    for done, eta in states:
        remaining = total - int(done)
        if int(done) <= workers:
            assert eta == "?", (done, eta)  # only the first cells, which pay for the start
            continue
        truth = math.ceil(remaining / workers) * cell_seconds
        # Exact before the steady window (the mean of equal cell times). In it the rate counts
        # the cells ended since the first `workers` (c - workers of them, c computed) over the
        # time since then, which runs up to one cell ahead when a worker's cell has ended and
        # its partner's has not: the ETA is then off by at most truth / (c - workers) plus one
        # round of cells; the display rounds to whole seconds (0.5).
        tolerance = truth / (int(done) - workers) + cell_seconds + 0.5
        assert abs(_seconds(eta) - truth) <= tolerance, (done, eta, truth)
        checked += 1
    assert checked >= 100 and states[2][0] == "3"  # from the first cell after them on
