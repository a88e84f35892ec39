"""``gcul reproduce`` hardening (issue 6, sections 2-4): workers, cache, files, signals, arguments.

Each test reproduces a defect of the command as it was; the comment above it says which. The grids
are tiny (one or two seeds, two noise levels of the paper's protocol: a cell takes about 0.1 s).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import stat
import time
from pathlib import Path

import pytest
from _cli import OUTPUTS, cached_cells, child_session, gcul, run, small, wait_while_running

import gcul_theory
import simulations.sweep
from simulations.cli import build_parser, parse_seeds
from simulations.results import ROW_COLUMNS, TIMING_COLUMNS
from simulations.sweep.processes import session_processes, wait_for_session_end

# ---------------------------------------------------------------------------------------------
# 1. Workers: capped at the usable cores; -1 = all of them; default all of them


@pytest.mark.slow  # 6 s: small `gcul reproduce` runs with several --jobs
@pytest.mark.parametrize(
    ("jobs", "workers", "notice"),
    [
        (["--jobs", "999"], 3, "gcul reproduce: --jobs 999 capped at the 3 usable CPU core(s)"),
        # each case is a whole 4-cell run (about 8 s): the cap above stays in the fast tier
        pytest.param(["--jobs", "-1"], 3, None, marks=pytest.mark.slow),
        pytest.param(["--jobs", "-2"], 2, None, marks=pytest.mark.slow),
        # the default: all usable cores (it was a fixed 2)
        pytest.param([], 3, None, marks=pytest.mark.slow),
    ],
)
def test_jobs_are_capped_at_the_usable_cores(
    tmp_path, capsys, monkeypatch, pool_sizes, jobs, workers, notice
):
    # `--jobs 999` on a 2-core machine started ~975 worker processes and exhausted memory.
    monkeypatch.setattr(simulations.sweep.backends, "usable_cores", lambda: 3)
    argv = [arg for arg in small(tmp_path / "out", *jobs, seeds="10-11") if arg != "--quiet"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert pool_sizes == [workers]
    lines = [line for line in err.splitlines() if not line.startswith("sweep: ")]  # progress
    assert lines[-1].startswith("gcul reproduce: 2 seeds x 2 noise levels = 4 cells, 4 to ")
    assert f"with {workers} job(s)" in lines[-1]
    assert lines[:-1] == ([notice] if notice else []), lines
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["n_jobs"] == workers


# ---------------------------------------------------------------------------------------------
# 2. The cache: nothing is written before every row verifies


def test_a_bad_row_writes_no_output_file(tmp_path, capsys, monkeypatch):
    # Out-of-range values overwrote results.csv first, then the run exited 2.
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.csv").write_text("the previous results\n", encoding="utf-8")
    real = simulations.sweep.cell.compute_row

    def out_of_range(seed, noise, config, **kwargs):
        return dict(real(seed, noise, config, **kwargs), base_acc=1.5)

    monkeypatch.setattr(simulations.sweep.cell, "compute_row", out_of_range)
    code, _, err = run(small(out, "--jobs", "1"), capsys)
    assert code == 2
    assert err.splitlines()[-1] == (
        "gcul reproduce: error: cell (seed=10, noise=0.0): base_acc must be in [0.0, 1.0]; got 1.5"
    )
    assert (out / "results.csv").read_text(encoding="utf-8") == "the previous results\n"
    assert sorted(p.name for p in out.iterdir()) == ["cache", "results.csv"]
    assert list((out / "cache").glob("*.json")) == []  # a bad row is not cached either


@pytest.mark.slow  # 11 s: two whole small `gcul reproduce` runs
def test_tampered_cache_is_recomputed_and_reported(tmp_path, capsys, computed):
    # An edited cache file (base_acc = 0.123) went into results.csv with exit 0.
    out = tmp_path / "out"
    code, _, err = run(small(out, "--jobs", "1"), capsys)
    assert code == 0, err
    original = (out / "results.csv").read_bytes()
    (victim,) = (out / "cache").glob("*noise0.4.json")
    document = json.loads(victim.read_text(encoding="utf-8"))
    document["payload"]["row"]["base_acc"] = 0.123
    victim.write_text(json.dumps(document), encoding="utf-8")
    computed.clear()
    code, _, err = run(small(out, "--jobs", "1"), capsys)
    assert code == 0, err
    assert computed == [(10, 0.4)]
    assert "1 cached cell(s) did not verify and are recomputed" in err
    assert (out / "results.csv").read_bytes() == original


# ---------------------------------------------------------------------------------------------
# 5. results.csv is byte-identical for any --jobs and for a resumed run; timings apart


@pytest.mark.slow  # four reproduce runs (serial, parallel, interrupted, resumed)
def test_results_csv_is_byte_identical_across_jobs_and_resume(tmp_path, capsys, monkeypatch):
    # The `seconds` column made results.csv (and its sha256 in the manifest) differ every run.
    code, _, err = run(small(tmp_path / "serial", "--jobs", "1", seeds="10-11"), capsys)
    assert code == 0, err
    code, _, err = run(small(tmp_path / "parallel", "--jobs", "2", seeds="10-11"), capsys)
    assert code == 0, err

    real = simulations.sweep.cell.compute_row
    done: list[tuple[int, float]] = []

    def interrupted_at_the_third(seed, noise, config, **kwargs):
        if len(done) == 2:
            raise KeyboardInterrupt
        done.append((seed, noise))
        return real(seed, noise, config, **kwargs)

    monkeypatch.setattr(simulations.sweep.cell, "compute_row", interrupted_at_the_third)
    resumed = tmp_path / "resumed"
    code, _, err = run(small(resumed, "--jobs", "1", seeds="10-11"), capsys)
    assert code == 130
    assert err.splitlines()[-1] == (
        f"gcul: interrupted (Ctrl-C); finished cells are kept in {resumed / 'cache'} "
        "and a rerun resumes"
    )
    assert not (resumed / "results.csv").exists()
    monkeypatch.setattr(simulations.sweep.cell, "compute_row", real)
    code, _, err = run(small(resumed, "--jobs", "1", seeds="10-11"), capsys)
    assert code == 0, err

    runs = [tmp_path / "serial", tmp_path / "parallel", resumed]
    contents = {(path / "results.csv").read_bytes() for path in runs}
    assert len(contents) == 1
    header = next(iter(contents)).decode().splitlines()[0]
    assert header == ",".join(ROW_COLUMNS) and "seconds" not in header
    manifests = [json.loads((path / "manifest.json").read_text()) for path in runs]
    assert len({m["files"]["results.csv"] for m in manifests}) == 1
    for path, manifest in zip(runs, manifests, strict=True):
        lines = (path / "timings.csv").read_text(encoding="utf-8").splitlines()
        assert lines[0] == ",".join(TIMING_COLUMNS) and len(lines) == 1 + 4
        seconds = [float(line.split(",")[2]) for line in lines[1:]]
        assert all(s > 0.0 for s in seconds)
        assert manifest["cell_seconds_total"] == round(sum(seconds), 3)
        assert "timings.csv" in manifest["files"]


@pytest.mark.slow  # 5 s: a whole small `gcul reproduce` run
def test_every_predictor_has_a_block_and_a_panel(tmp_path, capsys):
    # issue 7, section 3: the printed table, violations.* and predictors.* cover every predictor
    # of the registry and the certified one; the manifest lists both figures.
    out = tmp_path / "out"
    code, printed, err = run(small(out, "--jobs", "1"), capsys)
    assert code == 0, err
    names = [entry.name for entry in gcul_theory.PREDICTORS] + ["certified", "certified_noisy"]
    table_rows = [p[0] for p in map(str.split, printed.splitlines()) if p[2:3] == ["Type-I"]]
    assert table_rows == names
    assert "Valid: boole, hunter_worsley" in printed
    assert "certified (finite-sample valid for the model it certifies)" in printed
    blocks = [line.split(",")[0] for line in (out / "violations.csv").read_text().splitlines()]
    assert blocks[1::3] == names
    manifest = json.loads((out / "manifest.json").read_text())
    assert {"predictors.png", "predictors.pdf", "phase_transition.png"} <= set(manifest["files"])
    header = (out / "results.csv").read_text().splitlines()[0].split(",")
    for entry in gcul_theory.PREDICTORS:
        assert f"lambda_pre_{entry.name}" in header and f"r1_hat_{entry.name}" in header
    assert {"r2_hat", "r2_hat_attractor", "lambda_cert", "lambda_emp_cert"} <= set(header)


# ---------------------------------------------------------------------------------------------
# 4. File modes


@pytest.mark.slow  # 6 s: a whole small `gcul reproduce` run
def test_outputs_and_cache_get_the_umask_mode(tmp_path, capsys):
    # results.csv and the cache files were created 0600 (mkstemp), the other outputs 0644.
    previous = os.umask(0o022)
    try:
        code, _, err = run(small(tmp_path / "out", "--jobs", "1"), capsys)
    finally:
        os.umask(previous)
    assert code == 0, err
    out = tmp_path / "out"
    modes = {name: stat.S_IMODE((out / name).stat().st_mode) for name in OUTPUTS}
    modes |= {p.name: stat.S_IMODE(p.stat().st_mode) for p in (out / "cache").glob("*.json")}
    assert len(modes) == len(OUTPUTS) + 2
    assert set(modes.values()) == {0o644}, {k: oct(v) for k, v in modes.items()}


# ---------------------------------------------------------------------------------------------
# 6. Paths and arguments are checked before anything is computed or created


def _file(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("make", "options", "message"),
    [
        (lambda t: _file(t / "out"), [], "--out: '{t}/out' is a file, not a folder"),
        (
            lambda t: (t / "out" / "results.csv").mkdir(parents=True),
            [],
            "--out: '{t}/out/results.csv' is a folder where a file goes",
        ),
        (
            lambda t: (t / "out" / "timings.csv").mkdir(parents=True),
            [],
            "--out: '{t}/out/timings.csv' is a folder where a file goes",
        ),
        (
            lambda t: _file(t / "blocker"),
            ["--cache", "{t}/blocker/cache"],
            "--cache: cannot create '{t}/blocker/cache': '{t}/blocker' is a file, not a folder",
        ),
        (
            lambda t: _file(t / "out" / "cache"),
            [],
            "--cache: '{t}/out/cache' is a file, not a folder",
        ),
    ],
)
def test_bad_output_paths_fail_before_any_cell(tmp_path, capsys, computed, make, options, message):
    # OUT/results.csv being a folder gave a traceback after every cell had run.
    make(tmp_path)
    options = [option.format(t=tmp_path) for option in options]
    code, _, err = run(small(tmp_path / "out", "--jobs", "1", *options), capsys)
    assert code == 2
    assert err.splitlines() == [f"gcul reproduce: error: {message.format(t=tmp_path)}"]
    assert computed == []


def test_unwritable_folder_fails_before_any_cell(tmp_path, capsys, computed, monkeypatch):
    # A read-only file system: the write probe fails (simulated, so it also holds for root).
    import tempfile

    def read_only(*args, **kwargs):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(tempfile, "mkstemp", read_only)
    code, _, err = run(small(tmp_path / "out", "--jobs", "1"), capsys)
    assert code == 2
    assert err.splitlines() == [
        f"gcul reproduce: error: --out: cannot create or write in '{tmp_path}/out': "
        "Read-only file system"
    ]
    assert computed == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in a read-only folder")
def test_read_only_folder_fails_before_any_cell(tmp_path, capsys, computed):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        code, _, err = run(small(locked / "out", "--jobs", "1"), capsys)
    finally:
        locked.chmod(0o700)
    assert code == 2 and len(err.splitlines()) == 1 and "is not writable" in err
    assert computed == []


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            ["--levels", "100000"],
            "--levels 100000 reaches sigma = 39999.6, whose label-flip probability 0.025 * sigma "
            "is above 1; --levels must be at most 101",
        ),
        (
            ["--levels", "102"],
            "--levels 102 reaches sigma = 40.4, whose label-flip probability 0.025 * sigma is "
            "above 1; --levels must be at most 101",
        ),
        (
            ["--seeds", "0-99999", "--levels", "3"],
            "100000 seeds x 3 levels = 300000 cells; a grid holds at most 100000 cells",
        ),
    ],
)
def test_bad_grid_creates_nothing(tmp_path, capsys, monkeypatch, options, message):
    # `--levels 100000` created --out before refusing the flip probability.
    def never(*args, **kwargs):
        raise AssertionError("the sweep started")

    monkeypatch.setattr(simulations.sweep.SweepPlan, "run", never)
    out = tmp_path / "out"
    code, _, err = run(["reproduce", "--out", str(out), "--quiet", *options], capsys)
    assert code == 2
    assert err.splitlines() == [f"gcul reproduce: error: {message}"]
    assert not out.exists()


def test_largest_grid_is_accepted(tmp_path, capsys, monkeypatch):
    seen = {}

    def record(plan, **kwargs):
        seen["cells"] = len(plan.grid) * len(plan.seeds)
        raise KeyboardInterrupt  # stop before computing anything

    monkeypatch.setattr(simulations.sweep.SweepPlan, "run", record)
    argv = ["reproduce", "--out", str(tmp_path), "--seeds", "0-989", "--levels", "101"]
    code, _, _ = run(argv, capsys)
    assert code == 130 and seen["cells"] == 990 * 101 <= 100_000


# ---------------------------------------------------------------------------------------------
# 7. Seeds: bounded, parsed without materialising huge ranges


def test_huge_seed_range_is_refused_at_once():
    # `--seeds 0-1000000000` was a MemoryError inside argument parsing.
    start = time.perf_counter()
    with pytest.raises(argparse.ArgumentTypeError, match="at most 100000 distinct seeds"):
        parse_seeds("0-1000000000")
    assert time.perf_counter() - start < 5.0  # generous: it takes microseconds


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("0-100000", "at most 100000 distinct seeds .*; got 100001 in '0-100000'"),
        ("0-50000,40000-90000,90001-100000", "got 100001 in"),  # overlaps counted once
        ("4294967296", r"seeds must be below 2\*\*32 = 4294967296; got 4294967296"),
        ("10-99999999999999999999", r"below 2\*\*32"),
        ("x" * 1000, r"got 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'\.\.\. \(1000 chars\)$"),
    ],
)
def test_parse_seeds_bounds(text, match):
    with pytest.raises(argparse.ArgumentTypeError, match=match):
        parse_seeds(text)


def test_parse_seeds_at_the_bounds():
    assert parse_seeds("0-99999") == list(range(100_000))
    assert parse_seeds("4294967295") == [2**32 - 1]
    assert parse_seeds("5-7,6-9,20") == [5, 6, 7, 8, 9, 20]


def test_huge_seed_range_is_one_line_on_the_command_line(capsys):
    code, _, err = run(["reproduce", "--seeds", "0-1000000000"], capsys)
    assert code == 2
    assert err.splitlines() == [
        "gcul reproduce: error: argument --seeds: seeds: at most 100000 distinct seeds (a grid "
        "holds at most 100000 cells); got 1000000001 in '0-1000000000'"
    ]


# ---------------------------------------------------------------------------------------------
# 9. Help texts


def test_every_reproduce_option_has_a_help_text(capsys):
    parser = build_parser()
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    reproduce = commands.choices["reproduce"]
    for action in reproduce._actions:
        if action.option_strings == ["--error-pool"]:  # a former name, refused with a hint
            continue  # (tests/test_geometry_labels.py), so hidden from the help
        assert action.help and action.help != argparse.SUPPRESS, action.option_strings
    code, out, _ = run(["reproduce", "--help"], capsys)
    assert code == 0
    assert "timings.csv" in out and "-1 = all usable CPU cores" in out and "2**32" in out


# ---------------------------------------------------------------------------------------------
# 3. SIGTERM terminates the worker pool: no orphan process




@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_sigterm_leaves_no_worker_behind(tmp_path):
    # SIGTERM on a `--jobs 2` run left 2 workers and 2 resource trackers alive for minutes.
    out = tmp_path / "out"
    argv = gcul("reproduce", "--out", str(out))
    argv += ["--seeds", "10-29", "--levels", "41", "--jobs", "2"]  # 820 cells: minutes of work
    log = tmp_path / "stderr"
    with child_session(argv, log, stdout=tmp_path / "stdout") as proc:
        # the first cells are done
        wait_while_running(proc, lambda: cached_cells(out) >= 2, 120, "cell finished", log)
        assert len(session_processes(proc.pid)) >= 3  # the command and its two workers at least
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=60)
        assert wait_for_session_end(proc.pid, 5) == {}
        assert code == 128 + signal.SIGTERM
        err = (tmp_path / "stderr").read_text()
        assert err.splitlines()[-1] == (
            f"gcul: interrupted (SIGTERM); finished cells are kept in {out / 'cache'} and a "
            "rerun resumes"
        )
        assert "Traceback" not in err
        assert not (out / "results.csv").exists()
        assert cached_cells(out) >= 2 and not list((out / "cache").glob("*.tmp"))
