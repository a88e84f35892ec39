"""Faults and hostile files (issue 14, section 2): links, FIFOs, kills, a second run, full disks.

Each test reproduces a defect of ``gcul reproduce`` or of the sweep's cache as it was; the comment
above it says what happened. Faults are injected, never waited for: a FIFO made with
``os.mkfifo``, symbolic links to files outside ``--out`` and to ``/dev/zero``, a write cut short by
the kernel (``RLIMIT_FSIZE``, so ``write()`` itself fails or kills), a worker that kills itself,
``kill -9`` of the main process. The grids are tiny (a cell of the paper's protocol takes about
0.1 s).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from _cli import (
    OUTPUTS,
    cached_cells,
    child_session,
    environment,
    gcul,
    run,
    small,
    wait_while_running,
)

import simulations.sweep
from simulations.cli import main
from simulations.reproduce import OUT_LOCK
from simulations.sweep import CACHE_LOCK, CELL_MAX_BYTES, run_sweep
from simulations.sweep.processes import session_processes, wait_for_session_end
from simulations.synthetic import SyntheticConfig

LINUX = Path("/proc/self/task").is_dir()
TINY = SyntheticConfig(n_per_class=200, n_confusion=200)
SAME_EVERY_RUN = tuple(name for name in OUTPUTS if name not in ("timings.csv", "manifest.json"))


def manifest_mismatches(out: Path) -> list[str]:
    """Files the manifest of ``out`` lists with a hash they do not have (or that are missing)."""
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    bad = []
    for name, digest in manifest["files"].items():
        path = out / name
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            bad.append(name)
    return bad


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> dict[str, bytes]:
    """The outputs of ``small(OUT, "--jobs", "1")`` in a fresh folder: what every run must give."""
    out = tmp_path_factory.mktemp("clean") / "out"
    assert main(small(out, "--jobs", "1")) == 0
    return {name: (out / name).read_bytes() for name in OUTPUTS}


# ---------------------------------------------------------------------------------------------
# 1. Nothing is written outside --out


@pytest.mark.slow  # two reproduce runs (this one and the clean one), compared byte for byte
def test_no_output_is_written_through_a_symbolic_link(tmp_path, capsys, clean):
    # `ln -s VICTIM OUT/violations.md; gcul reproduce --out OUT` exited 0 and the victim held the
    # violation table: 10 of the 13 outputs were written in place, through the link.
    out, outside = tmp_path / "out", tmp_path / "outside"
    out.mkdir()
    outside.mkdir()
    for name in OUTPUTS:
        (outside / name).write_text(f"victim {name}\n", encoding="utf-8")
        (out / name).symlink_to(outside / name)
    code, _, err = run(small(out, "--jobs", "1"), capsys)
    assert code == 0, err
    victims = {path.name: path.read_text(encoding="utf-8") for path in outside.iterdir()}
    assert victims == {name: f"victim {name}\n" for name in OUTPUTS}
    for name in OUTPUTS:
        assert (out / name).is_file() and not (out / name).is_symlink(), name
    assert {name: (out / name).read_bytes() for name in SAME_EVERY_RUN} == {
        name: clean[name] for name in SAME_EVERY_RUN
    }
    assert manifest_mismatches(out) == []


@pytest.mark.slow  # two reproduce runs
def test_a_cache_cell_linked_outside_is_replaced_not_followed(tmp_path, capsys):
    # The cell was read through the link (and a link to /dev/zero was read to 2.46 GB).
    out, victim = tmp_path / "out", tmp_path / "victim.json"
    assert run(small(out, "--jobs", "1"), capsys)[0] == 0
    (cell,) = (out / "cache").glob("*noise0.4.json")
    original = cell.read_bytes()
    victim.write_bytes(original)
    cell.unlink()
    cell.symlink_to(victim)
    code, _, err = run(small(out, "--jobs", "1"), capsys)
    assert code == 0, err
    assert "a symbolic link, not a cell file" in err
    assert cell.is_file() and not cell.is_symlink()
    assert victim.read_bytes() == original  # untouched


@pytest.mark.slow  # whole reproduce runs
def test_a_cache_folder_linked_outside_out_is_refused(tmp_path, capsys, computed):
    # OUT/cache -> a folder elsewhere: every cell file was written there.
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "cache").symlink_to(elsewhere)
    code, _, err = run(small(out, "--jobs", "1"), capsys)
    assert code == 2
    assert err.splitlines() == [
        f"gcul reproduce: error: --out: '{out}/cache' is a symbolic link (to '{elsewhere}'); the "
        "cache goes inside --out unless --cache names it: remove the link, or pass --cache "
        f"{elsewhere}"
    ]
    assert computed == [] and list(elsewhere.iterdir()) == []
    # naming the folder is the way to use it
    code, _, err = run(small(out, "--jobs", "1", "--cache", str(elsewhere)), capsys)
    assert code == 0, err
    assert len(list(elsewhere.glob("cell-*.json"))) == 2


def test_a_lock_file_that_is_a_link_is_refused_not_followed(tmp_path, capsys, computed):
    out, victim = tmp_path / "out", tmp_path / "victim"
    out.mkdir()
    victim.write_text("keep me\n", encoding="utf-8")
    (out / OUT_LOCK).symlink_to(victim)
    code, _, err = run(small(out, "--jobs", "1"), capsys)
    assert code == 2
    assert err.splitlines() == [
        f"gcul reproduce: error: {out / OUT_LOCK}: a symbolic link, not gcul's lock file"
    ]
    assert victim.read_text(encoding="utf-8") == "keep me\n" and computed == []


# ---------------------------------------------------------------------------------------------
# 2. A run killed while it writes leaves whole files, and the rerun repairs


FILE_LIMIT = 32 * 1024  # bytes: above every table and cell, below the first PNG (about 50 KB)

KILLED_BY_THE_KERNEL_AT_THE_LIMIT = (
    "import signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_DFL); "  # Python ignores it
    "from simulations.cli import main; sys.exit(main(sys.argv[1:]))"
)


def _limit_file_size() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))


@pytest.mark.skipif(not LINUX, reason="RLIMIT_FSIZE and SIGXFSZ as on Linux")
@pytest.mark.slow  # kills a reproduce run mid-write, then reruns it
def test_a_run_killed_mid_write_leaves_whole_files_and_the_rerun_repairs(tmp_path, capsys, clean):
    # kill -9 left phase_transition.pdf / predictors.pdf truncated in 7 of 48 kills, also over a
    # complete earlier run, whose manifest then listed hashes that no longer matched. Here the
    # kernel kills the run inside write() of the first PNG (SIGXFSZ at RLIMIT_FSIZE): the same
    # instant every time.
    out = tmp_path / "out"
    code, _, err = run(small(out, "--jobs", "1", "--lam", "0.3"), capsys)  # other tables, figures
    assert code == 0, err
    before = {name: (out / name).read_bytes() for name in OUTPUTS}
    assert before["violations.csv"] != clean["violations.csv"]
    assert before["phase_transition.png"] != clean["phase_transition.png"]

    argv = [sys.executable, "-c", KILLED_BY_THE_KERNEL_AT_THE_LIMIT, *small(out, "--jobs", "1")]
    killed = subprocess.run(
        argv, env=environment(), capture_output=True, preexec_fn=_limit_file_size, timeout=600
    )
    assert killed.returncode == -signal.SIGXFSZ, killed.stderr.decode()
    assert (out / "violations.csv").read_bytes() == clean["violations.csv"]  # it got that far
    for name in OUTPUTS:
        if (out / name).exists():
            assert (out / name).read_bytes() in (before[name], clean[name]), name
    if (out / "manifest.json").exists():
        assert manifest_mismatches(out) == []
    (partial,) = out.glob(".phase_transition.png.*.tmp")  # where it died
    assert partial.stat().st_size == FILE_LIMIT

    code, _, err = run(small(out, "--jobs", "1"), capsys)
    assert code == 0, err
    assert {name: (out / name).read_bytes() for name in SAME_EVERY_RUN} == {
        name: clean[name] for name in SAME_EVERY_RUN
    }
    assert manifest_mismatches(out) == []
    assert not partial.exists() and list(out.glob(".*.tmp")) == []


@pytest.mark.skipif(not LINUX, reason="RLIMIT_FSIZE as on Linux")
def test_a_failed_write_names_the_file(tmp_path):
    # "disk full names no file": `cannot write: No space left on device`. Here write() fails with
    # EFBIG (RLIMIT_FSIZE; Python ignores SIGXFSZ) when the first cache cell passes 100 bytes.
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "simulations.cli", *small(out, "--jobs", "1")]

    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100))

    done = subprocess.run(argv, env=environment(), capture_output=True, text=True, preexec_fn=limit)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert re.fullmatch(
        rf"gcul reproduce: error: cannot write {re.escape(str(out))}/cache/cell-[0-9a-f]{{16}}-"
        r"seed10-noise0\.0\.json: File too large",
        line,
    ), line
    assert list((out / "cache").glob("*.tmp")) == []


# ---------------------------------------------------------------------------------------------
# 3. One run at a time in --out


@pytest.mark.slow  # two concurrent reproduce runs
def test_a_second_run_on_the_same_folder_is_refused_naming_the_first(tmp_path, capsys, computed):
    # Two runs on one folder (--lam 0.15 and --lam 0.30) left the violations of one and the
    # figures and manifest of the other, with a self-consistent manifest.
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "simulations.cli", "reproduce", "--out", str(out)]
    argv += ["--seeds", "10-29", "--levels", "41", "--jobs", "1", "--lam", "0.3"]  # minutes
    first = subprocess.Popen(
        argv, env=environment(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        header = first.stderr.readline()  # printed once the lock is held and the cache read
        assert header.startswith("gcul reproduce: 20 seeds x 41 noise levels"), header
        code, _, err = run(small(out, "--jobs", "1"), capsys)
        assert code == 2
        (line,) = err.splitlines()
        started = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}"
        assert re.fullmatch(
            rf"gcul reproduce: error: --out '{re.escape(str(out))}' is in use by gcul reproduce, "
            rf"pid {first.pid} on {re.escape(socket.gethostname())}, started {started}; wait for "
            "it to end or choose another --out",
            line,
        ), line
        assert computed == []
        first.kill()  # kill -9: the kernel drops its lock; its lock file stays behind
        first.wait(timeout=60)
        assert (out / OUT_LOCK).exists()
        code, _, err = run(small(out, "--jobs", "1"), capsys)
        assert code == 0, err  # no stale lock to remove by hand
        assert not (out / OUT_LOCK).exists()  # removed by the run that held it
    finally:
        first.kill()
        first.wait(timeout=60)
        first.stderr.close()


@pytest.mark.slow  # 7 s: whole small `gcul reproduce` runs
def test_stale_temporaries_are_removed_and_nothing_else(tmp_path, capsys):
    # The *.tmp files of a killed run were never cleaned.
    out = tmp_path / "out"
    cache = out / "cache"
    cache.mkdir(parents=True)
    stale = [
        out / ".violations.md.abcd1234.tmp",
        out / ".phase_transition.pdf.x_y_z_09.tmp",
        out / ".seed16.tex.zz99yy88.tmp",  # a table of another run's seed
        out / ".gcul-write-test-k2j4h6g8",
        cache / ".cell-0123456789abcdef-seed10-noise0.0.json.abcd1234.tmp",
        cache / ".gcul-write-test-abcdefgh",
    ]
    kept = [out / "notes.tmp", out / ".mine.txt.abcd1234.tmp", cache / "keep.txt"]
    for path in stale + kept:
        path.write_text("x", encoding="utf-8")
    code, _, err = run(small(out, "--jobs", "1"), capsys)
    assert code == 0, err
    assert [path.name for path in stale if path.exists()] == []
    assert all(path.exists() for path in kept)


# ---------------------------------------------------------------------------------------------
# 4. Hostile cache cells: never a hang, never a huge read, never a traceback; recomputed


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _too_large(path: Path) -> None:
    path.write_bytes(b" " * (2 * CELL_MAX_BYTES))


def _nested(path: Path) -> None:
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")


def _empty_folder(path: Path) -> None:
    path.mkdir()


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (_fifo, "a FIFO (named pipe), not a cell file"),  # read_text hung forever
        (_dev_zero, "a symbolic link, not a cell file"),  # read to 2.46 GB
        (_too_large, f"too large ({2 * CELL_MAX_BYTES} bytes; a cell file is at most 1048576)"),
        (_nested, "not a gcul cell file (nested too deeply)"),  # RecursionError on every rerun
        (_empty_folder, "a folder, not a cell file"),  # the rerun failed naming a .tmp file
    ],
    ids=["fifo", "dev-zero", "too-large", "nested-json", "folder"],
)
def test_a_hostile_cache_cell_is_reported_and_recomputed(tmp_path, capsys, make, reason):
    first = run_sweep([0.0, 4.0], [10], cache_dir=tmp_path, config=TINY, progress=False)
    (cell,) = tmp_path.glob("*noise4.0.json")
    cell.unlink()
    make(cell)
    capsys.readouterr()
    result: dict[str, object] = {}

    def sweep() -> None:
        try:
            result["rows"] = run_sweep(
                [0.0, 4.0], [10], cache_dir=tmp_path, config=TINY, progress=False
            )
        except BaseException as error:  # reported below
            result["error"] = error

    thread = threading.Thread(target=sweep, daemon=True)  # a hang fails the test, not the suite
    thread.start()
    thread.join(timeout=120)
    assert not thread.is_alive(), "the sweep hangs on the cache cell"
    assert "error" not in result, result.get("error")
    assert result["rows"] == first
    (line,) = capsys.readouterr().err.splitlines()
    assert line == (
        f"sweep: 1 cached cell(s) did not verify and are recomputed ({cell.name}: {reason})"
    )
    assert cell.is_file() and not cell.is_symlink()
    assert run_sweep([0.0, 4.0], [10], cache_dir=tmp_path, config=TINY, progress=False) == first
    assert capsys.readouterr().err == ""  # the cell was replaced by a good one


@pytest.mark.slow  # whole reproduce runs
def test_a_folder_that_is_not_empty_at_a_cell_is_named(tmp_path, capsys):
    # The error named the temporary file (.cell-...json.XXXX.tmp), and every rerun failed so.
    out = tmp_path / "out"
    assert run(small(out, "--jobs", "1"), capsys)[0] == 0
    (cell,) = (out / "cache").glob("*noise0.4.json")
    cell.unlink()
    cell.mkdir()
    (cell / "something").write_text("x", encoding="utf-8")
    code, _, err = run(small(out, "--jobs", "1"), capsys)
    assert code == 2
    assert err.splitlines() == [
        f"sweep: 1 cached cell(s) did not verify and are recomputed ({cell.name}: a folder, not "
        "a cell file)",
        f"gcul reproduce: error: cannot write {cell}: a folder that is not empty is where this "
        "cell goes; remove it",
    ]
    (cell / "something").unlink()
    code, _, err = run(small(out, "--jobs", "1"), capsys)  # an empty folder is replaced
    assert code == 0, err
    assert cell.is_file()


def test_a_read_only_cache_serves_a_grid_it_holds(tmp_path, monkeypatch):
    # A read-only cache was refused even when every cell was in it.
    first = run_sweep([0.0, 4.0], [10], cache_dir=tmp_path, config=TINY, progress=False)

    def read_only(*args, **kwargs):  # as on a read-only file system (also when run as root)
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(tempfile, "mkstemp", read_only)
    assert run_sweep([0.0, 4.0], [10], cache_dir=tmp_path, config=TINY, progress=False) == first
    with pytest.raises(
        ValueError,
        match=r"is not a writable directory: Read-only file system; 1 of the 3 cells are not in",
    ):
        run_sweep([0.0, 4.0, 8.0], [10], cache_dir=tmp_path, config=TINY, progress=False)


def test_the_cache_lock_is_shared_and_kept(tmp_path):
    # Sweeps that share a cache run side by side; the one that finds no other cleans it.
    (tmp_path / ".cell-x.json.abcd1234.tmp").write_text("", encoding="utf-8")
    from simulations.outputs import lock_folder

    with lock_folder(tmp_path, CACHE_LOCK, "another sweep", shared=True) as exclusive:
        assert exclusive
        run_sweep([0.0], [10], cache_dir=tmp_path, config=TINY, progress=False)
        assert (tmp_path / ".cell-x.json.abcd1234.tmp").exists()  # not alone: nothing cleaned
    run_sweep([0.0], [10], cache_dir=tmp_path, config=TINY, progress=False)
    assert not (tmp_path / ".cell-x.json.abcd1234.tmp").exists()
    assert (tmp_path / CACHE_LOCK).is_file()


# ---------------------------------------------------------------------------------------------
# 5. Messages about paths


def test_a_fifo_where_an_output_goes_is_named_a_fifo(tmp_path, capsys, computed):
    # It was called "a folder".
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / "violations.md")
    code, _, err = run(small(out, "--jobs", "1"), capsys)
    assert code == 2 and computed == []
    assert err.splitlines() == [
        f"gcul reproduce: error: --out: '{out}/violations.md' is a FIFO (named pipe) where a "
        "file goes"
    ]


def test_a_dangling_out_link_is_named(tmp_path, capsys, computed):
    # It said "File exists".
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "missing")
    code, _, err = run(small(link, "--jobs", "1"), capsys)
    assert code == 2 and computed == []
    assert err.splitlines() == [
        f"gcul reproduce: error: --out: '{link}' is a symbolic link to '{tmp_path}/missing', "
        "which does not exist; create that folder or choose another --out"
    ]


# ---------------------------------------------------------------------------------------------
# 6. Dead workers: one line, exit code 2, and a rerun that resumes


@pytest.mark.slow  # kills a loky worker of a run, then reruns it
def test_a_killed_loky_worker_is_one_line_and_the_rerun_resumes(tmp_path, capsys, monkeypatch):
    # kill -9 of a worker gave a TerminatedWorkerError traceback and exit code 1 (10 of 10).
    out = tmp_path / "out"
    real = simulations.sweep.backends.cell_task

    def killed_at_sigma_08(seed, noise, config, *args):  # local: pickled by value to loky
        if noise == 0.8:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(seed, noise, config, *args)

    monkeypatch.setattr(simulations.sweep.backends, "cell_task", killed_at_sigma_08)
    argv = ["reproduce", "--out", str(out), "--seeds", "10", "--levels", "3", "--quiet"]
    code, _, err = run([*argv, "--jobs", "2"], capsys)
    assert code == 2
    assert err.splitlines() == [
        "gcul reproduce: error: a worker process ended unexpectedly (exit codes {SIGKILL(-9)}): "
        "killed, or out of memory; the cells finished before are cached and a rerun resumes"
    ]
    cached = {path.name for path in (out / "cache").glob("*.json")}
    monkeypatch.setattr(simulations.sweep.backends, "cell_task", real)
    code, _, err = run([*argv, "--jobs", "2"], capsys)
    assert code == 0, err
    assert cached <= {path.name for path in (out / "cache").glob("*.json")}
    code, _, err = run(
        ["reproduce", "--out", str(tmp_path / "serial"), *argv[3:], "--jobs", "1"], capsys
    )
    assert code == 0, err
    assert (out / "results.csv").read_bytes() == (tmp_path / "serial" / "results.csv").read_bytes()




@pytest.mark.slow
@pytest.mark.skipif(not LINUX, reason="reads the process table in /proc")
def test_workers_end_within_seconds_of_a_killed_main_process(tmp_path):
    # kill -9 of the main process left 2 loky workers and 2 resource trackers running for up to
    # 286 s (19 of 25 kills), holding the caller's stderr open.
    out = tmp_path / "out"
    argv = gcul("reproduce", "--out", str(out))
    argv += ["--seeds", "10-29", "--levels", "41", "--jobs", "2"]  # 820 cells: minutes of work
    log = tmp_path / "stderr"
    with child_session(argv, log) as proc:
        # the workers are computing
        wait_while_running(proc, lambda: cached_cells(out) >= 2, 120, "cell finished", log)
        assert len(session_processes(proc.pid)) >= 3  # the command and its two workers at least
        proc.kill()  # SIGKILL: no handler runs, nothing is closed
        proc.wait(timeout=10)
        assert wait_for_session_end(proc.pid, 10) == {}  # each worker checks its parent every 0.2 s


# ---------------------------------------------------------------------------------------------
# 7. Section 4: --levels 1, --quiet


def test_a_single_noise_level_is_refused(tmp_path, capsys, computed):
    # `--levels 1` exited 0 and drew an empty figure (a curve of one point).
    code, _, err = run(["reproduce", "--out", str(tmp_path / "out"), "--levels", "1"], capsys)
    assert code == 2 and computed == [] and not (tmp_path / "out").exists()
    assert err.splitlines() == [
        "gcul reproduce: error: --levels 1 is a single noise level (sigma = 0); the figures draw "
        "every quantity as a curve over sigma, so --levels must be at least 2"
    ]


@pytest.mark.slow  # 6 s: a whole small `gcul reproduce` run
def test_quiet_prints_nothing_on_stderr(tmp_path, capsys):
    # --quiet still printed the header.
    code, out, err = run(small(tmp_path / "out", "--jobs", "1"), capsys)
    assert code == 0 and err == "" and "wrote:" in out


# ---------------------------------------------------------------------------------------------
# 8. The writer itself


def test_a_writer_that_dies_mid_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    import errno

    import simulations.outputs as outputs

    target = tmp_path / "phase_transition.pdf"
    target.write_bytes(b"the old figure")
    real = outputs._write_all

    def half_then_disk_full(fd, data):
        real(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(outputs, "_write_all", half_then_disk_full)
    with pytest.raises(OSError) as info:
        outputs.atomic_write_bytes(target, b"x" * 10_000)
    assert (info.value.errno, info.value.filename) == (errno.ENOSPC, str(target))
    assert target.read_bytes() == b"the old figure"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["phase_transition.pdf"]


# ---------------------------------------------------------------------------------------------
# 8. gcul compare under faults (issue 32, items 1-3): a dead worker, a killed command, a
#    truncated --embeddings file


def _compare_files(folder: Path, n: int = 60, d: int = 2) -> tuple[Path, Path]:
    """Three overlapping classes (3n rows, d features; phase 1 errs and GCUL rejects), saved."""
    import numpy as np

    rng = np.random.default_rng(3)
    centres = rng.normal(0.0, 2.0, (3, d))
    Z = np.vstack([rng.normal(c, 1.3, (n, d)) for c in centres]).astype(np.float32)
    np.save(folder / "Z.npy", Z)
    np.save(folder / "y.npy", np.repeat([0, 1, 2], n))
    return folder / "Z.npy", folder / "y.npy"


def test_a_killed_compare_worker_is_one_line_and_the_rerun_resumes(
    tmp_path, capsys, monkeypatch
):
    # kill -9 of a loky worker of `gcul compare --jobs 2` gave exit 1, a 32-line
    # TerminatedWorkerError traceback, and lost every finished split (7 of 7). Now one line,
    # exit 2, the finished splits kept in the default checkpoint folder; the rerun resumes them
    # and prints what a run never interrupted prints, byte for byte; then the checkpoint's
    # files of the run are removed.
    import simulations.compare.protocol as protocol

    Z, y = _compare_files(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    checkpoint = tmp_path / "xdg" / "gcul" / "compare"
    argv = ["compare", "--embeddings", str(Z), "--labels", str(y), "--splits", "3", "--json"]
    code, clean, err = run([*argv, "--quiet"], capsys)  # uninterrupted, in this process
    assert code == 0, err
    real = protocol._split_task

    def killed_at_split_3(*task):  # local: pickled by value to loky
        if task[5] == 2:  # the split's index: dies once another split is in the checkpoint
            deadline = time.monotonic() + 60
            while not list(checkpoint.glob("split-*.json")) and time.monotonic() < deadline:
                time.sleep(0.05)
            os.kill(os.getpid(), signal.SIGKILL)
        return real(*task)

    monkeypatch.setattr(protocol, "_split_task", killed_at_split_3)
    code, out, err = run([*argv, "--quiet", "--jobs", "2"], capsys)
    assert (code, out) == (2, "")
    assert re.fullmatch(
        r"gcul compare: error: a worker process ended unexpectedly \(exit codes "
        r"\{SIGKILL\(-9\)\}\): killed, or out of memory \(each worker holds one split's rows "
        r"in float64: fewer --jobs need less memory\); ([12]) of the 3 splits finished and are "
        rf"kept in {re.escape(str(checkpoint))}: a rerun resumes from them\n",
        err,
    ), err
    kept = {path.name for path in checkpoint.glob("split-*.json")}
    assert len(kept) == int(re.search(r"; (\d) of the 3", err)[1])
    assert not [path for path in checkpoint.iterdir() if path.name.endswith(".tmp")]

    monkeypatch.setattr(protocol, "_split_task", real)
    code, out, err = run([*argv, "--jobs", "2"], capsys)
    assert code == 0, err
    assert f"{len(kept)} in the cache {checkpoint}, {3 - len(kept)} to compute" in err
    assert out == clean  # the rerun's JSON is the uninterrupted run's, byte for byte
    assert list(checkpoint.glob("split-*.json")) == []  # a checkpoint: gone once it succeeded


@pytest.mark.slow
@pytest.mark.skipif(not LINUX, reason="reads the process table in /proc")
def test_compare_workers_end_within_seconds_of_a_killed_command(tmp_path):
    # kill -9 of `gcul compare --jobs 2` left its 2 loky workers and resource trackers running
    # for 45 to more than 300 s (each ~1.5 GB at the paper's scale). Each worker now watches its
    # parent (the sweep's run_loky): all are gone within seconds, and so is the folder where
    # joblib shared the embeddings with them (JOBLIB_TEMP_FOLDER here, to be looked at).
    Z, y = _compare_files(tmp_path, n=1300, d=96)  # 1.5 MB of float32: joblib shares a memmap
    shared = tmp_path / "joblib"
    shared.mkdir()
    argv = gcul("compare", "--embeddings", str(Z), "--labels", str(y), "--splits", "100")
    argv += ["--jobs", "2"]
    env = {**environment(), "JOBLIB_TEMP_FOLDER": str(shared), "XDG_CACHE_HOME": str(tmp_path)}
    log = tmp_path / "stderr"
    with child_session(argv, log, env=env) as proc:
        wait_while_running(
            proc, lambda: "split 1/100 done" in log.read_text(), 120, "split finished", log
        )  # computing
        assert len(session_processes(proc.pid)) >= 3  # the command and its two workers at least
        assert list(shared.iterdir())  # the embeddings, shared with the workers
        proc.kill()  # SIGKILL: no handler runs, nothing is closed
        proc.wait(timeout=10)
        assert wait_for_session_end(proc.pid, 10) == {}  # each worker checks its parent every 0.2 s
        deadline = time.monotonic() + 5  # the resource tracker removes the folder as it ends
        while list(shared.iterdir()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert list(shared.iterdir()) == []


_TRUNCATED_DURING_THE_RUN = """
import os, sys
import simulations.compare
from simulations.cli import main

path, real = sys.argv[1], simulations.compare.compare

def truncated(*args, **kwargs):  # the file is cut to its header once the run has started
    os.truncate(path, 128)
    return real(*args, **kwargs)

simulations.compare.compare = truncated
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.slow  # 8 s: a `gcul compare` subprocess whose input is truncated mid-run
@pytest.mark.skipif(not LINUX, reason="SIGBUS of a truncated mapped file, as on Linux")
def test_compare_gives_its_result_when_its_npy_is_truncated_during_the_run(tmp_path):
    # truncating the memory-mapped --embeddings during `gcul compare --jobs 2`: 13/20 clean,
    # 6/20 a 17-line "Fatal Python error: Bus error" dump from a worker, 1/20 the command itself
    # killed by SIGBUS (exit -7, no message). The file is now read once, never mapped: the run
    # gives the result of the file as read, and one line names the file that changed.
    Z, y = _compare_files(tmp_path, n=800, d=96)  # 1 MB of float32: joblib shares a memmap
    argv = ["compare", "--embeddings", str(Z), "--labels", str(y), "--splits", "2", "--json"]
    argv += ["--quiet", "--jobs", "2"]
    env = {**environment(), "XDG_CACHE_HOME": str(tmp_path)}  # the checkpoint: removed at the end
    clean = subprocess.run(
        [sys.executable, "-m", "simulations.cli", *argv], capture_output=True, text=True,
        env=env, timeout=300, check=False,
    )  # fmt: skip
    assert clean.returncode == 0, clean.stderr
    done = subprocess.run(
        [sys.executable, "-c", _TRUNCATED_DURING_THE_RUN, str(Z), *argv],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (0, clean.stdout), done.stderr
    assert done.stderr.splitlines() == [
        f"gcul compare: note: --embeddings {Z} changed during the run; the result is that of "
        "the file as it was read at the start"
    ]
    assert Z.stat().st_size == 128
