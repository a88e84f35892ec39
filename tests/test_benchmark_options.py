"""The benchmark scripts refuse a bad ``--out`` (and ``--cache``, ``--markdown``, ``--csv``) or a
``--jobs`` below 1 before any work, in one line on stderr with exit code 2 (issue 32, item 5).

``benchmarks/regime_map.py --out <a regular file>`` ran its 90 s study, then ended in a
``FileExistsError`` traceback. Every script is run in this process (its ``main`` with the
arguments of the case), with NumPy's random generators replaced by a function that fails the test:
every study draws its data first, so a check that came after the work would fail here at once
rather than after minutes. :func:`simulations.outputs.prepare_out_folder` and
:func:`~simulations.outputs.prepare_out_file` are tested on their own first.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from simulations.outputs import WRITE_PROBE_PREFIX, prepare_out_file, prepare_out_folder

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
LINUX = Path("/proc/self/fd").is_dir()


# ---------------------------------------------------------------------------------------------
# The helpers


def test_prepare_out_folder_creates_the_folder_and_leaves_no_probe(tmp_path):
    out = tmp_path / "a" / "b"
    assert prepare_out_folder(out) == out
    assert out.is_dir() and list(out.iterdir()) == []
    assert prepare_out_folder(out) == out  # an existing folder is fine, and left as it was


def test_prepare_out_folder_refuses_a_file_and_a_path_under_a_file(tmp_path):
    (tmp_path / "file").write_text("keep")
    with pytest.raises(ValueError, match=r"^--out: '.*file' is a file, not a folder$"):
        prepare_out_folder(tmp_path / "file")
    with pytest.raises(ValueError, match=r"^--dir: cannot create '.*file/sub': '.*file' is a file"):
        prepare_out_folder(tmp_path / "file" / "sub", "--dir")
    assert (tmp_path / "file").read_text() == "keep"


@pytest.mark.skipif(not LINUX, reason="/proc is Linux's")
def test_prepare_out_folder_asks_the_file_system(tmp_path):
    # os.access says yes to root everywhere; /proc takes no new file, for root either
    with pytest.raises(ValueError, match=r"^--out: cannot create or write in '/proc': "):
        prepare_out_folder("/proc")


def test_prepare_out_file_refuses_a_folder_and_creates_the_parent(tmp_path):
    with pytest.raises(ValueError, match=r"^--out: '.*' is a folder where a file goes$"):
        prepare_out_file(tmp_path)
    report = tmp_path / "new" / "report.md"
    assert prepare_out_file(report) == report
    assert report.parent.is_dir() and not report.exists()
    (tmp_path / "old.md").write_text("old")
    assert prepare_out_file(tmp_path / "old.md").read_text() == "old"  # replaced later, not now


def test_prepare_out_folder_error_is_one_line(tmp_path):
    odd = tmp_path / "line\nbreak"
    odd.write_text("")
    with pytest.raises(ValueError) as caught:
        prepare_out_folder(odd)
    assert "\n" not in str(caught.value)


# ---------------------------------------------------------------------------------------------
# The scripts


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"gcul_benchmark_options_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def no_work(monkeypatch):
    """Put ``benchmarks/`` on the path, as running a script from its folder does."""
    monkeypatch.syspath_prepend(str(BENCH))


def _refuse(*args, **kwargs):
    raise AssertionError("the study started before its options were checked")


def _run(name: str, argv: list[str], monkeypatch, capsys) -> tuple[int, str]:
    """``main()`` of ``benchmarks/<name>.py`` with ``argv``, NumPy's random generators refused
    once the script is imported (SciPy draws some at import): ``(exit code, stderr)``."""
    module = _load(name)
    monkeypatch.setattr(np.random, "default_rng", _refuse)
    monkeypatch.setattr(np.random, "SeedSequence", _refuse)
    monkeypatch.setattr(sys, "argv", [f"{name}.py", *argv])
    try:
        code = module.main()
    except SystemExit as stop:
        code = stop.code
    captured = capsys.readouterr()
    assert captured.out == ""
    return code, captured.err


def _bad_outs(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "a-file").write_text("keep")
    (tmp_path / "a-folder").mkdir()
    return {"file": tmp_path / "a-file", "folder": tmp_path / "a-folder"}


FOLDER_OUT = ["regime_map", "predictors"]  # --out is a folder
FILE_OUT = ["compare_null", "operating_points", "paper_scale", "real_data"]  # --out is a file


@pytest.mark.parametrize("name", FOLDER_OUT)
def test_a_regular_file_as_out_folder_is_refused_at_once(name, tmp_path, no_work, monkeypatch, capsys):
    bad = _bad_outs(tmp_path)["file"]
    code, err = _run(name, ["--out", str(bad), "--jobs", "1"], monkeypatch, capsys)
    assert code == 2
    assert err.splitlines() == [f"{name}.py: error: --out: {str(bad)!r} is a file, not a folder"]
    assert bad.read_text() == "keep"


@pytest.mark.parametrize("name", FILE_OUT)
def test_a_folder_as_out_file_is_refused_at_once(name, tmp_path, no_work, monkeypatch, capsys):
    bad = _bad_outs(tmp_path)["folder"]
    code, err = _run(name, ["--out", str(bad)], monkeypatch, capsys)
    assert code == 2
    assert err.splitlines() == [f"{name}.py: error: --out: {str(bad)!r} is a folder where a file goes"]


@pytest.mark.skipif(not LINUX, reason="/proc is Linux's")
@pytest.mark.parametrize("name", FOLDER_OUT + FILE_OUT)
def test_an_out_the_file_system_refuses_is_refused_at_once(name, no_work, monkeypatch, capsys):
    out = "/proc/gcul-out" if name in FOLDER_OUT else "/proc/gcul-out.md"
    code, err = _run(name, ["--out", out], monkeypatch, capsys)
    assert code == 2
    assert len(err.splitlines()) == 1 and err.startswith(f"{name}.py: error: --out: cannot create")


@pytest.mark.parametrize(
    ("name", "argv"),
    [
        ("certified_sweep", ["--cache", "{file}"]),
        ("paper_estimator", ["--cache", "{file}"]),
        ("paper_estimator", ["--cache", "{tmp}/cache", "--markdown", "{folder}"]),
        ("predictor_sweep", ["--csv", "{folder}"]),
    ],
)
def test_other_output_options_are_checked_at_once(name, argv, tmp_path, no_work, monkeypatch, capsys):
    paths = {"tmp": tmp_path, **_bad_outs(tmp_path)}
    code, err = _run(name, [a.format(**paths) for a in argv], monkeypatch, capsys)
    assert code == 2
    option = argv[-2]
    assert len(err.splitlines()) == 1 and err.startswith(f"{name}.py: error: {option}: ")


@pytest.mark.parametrize(
    "name",
    [
        "regime_map", "predictors", "paper_scale", "certified_sweep", "paper_estimator",
        "predictor_sweep", "bench_sweep", "cell_identity",
    ],
)  # fmt: skip
@pytest.mark.parametrize("jobs", ["0", "-1"])
def test_jobs_below_one_is_refused_in_one_line(name, jobs, tmp_path, no_work, monkeypatch, capsys):
    argv = ["--jobs", jobs]
    if name in FOLDER_OUT:
        argv += ["--out", str(tmp_path / "out")]
    if name == "certified_sweep":
        argv += ["--cache", str(tmp_path / "cache")]
    code, err = _run(name, argv, monkeypatch, capsys)
    assert code == 2
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{name}.py: error: ")
    assert "--jobs" in lines[0] and jobs in lines[0]


def test_tables_only_without_a_study_is_one_line(tmp_path, no_work, monkeypatch, capsys):
    code, err = _run("regime_map", ["--tables-only", "--out", str(tmp_path)], monkeypatch, capsys)
    assert code == 2
    assert err.splitlines() == [
        f"regime_map.py: error: --tables-only: no cells.csv in --out {str(tmp_path)!r}; "
        "run the study first"
    ]


def test_replot_without_a_study_is_one_line_and_creates_nothing(
    tmp_path, no_work, monkeypatch, capsys
):
    out = tmp_path / "out"
    code, err = _run("predictors", ["--out", str(out), "--replot"], monkeypatch, capsys)
    assert code == 2
    assert err.splitlines() == [
        f"predictors.py: error: --replot: no rows.csv in --out {str(out)!r}; run the study first"
    ]
    assert os.listdir(tmp_path) == []


def test_a_good_out_folder_is_created_with_no_probe_left(tmp_path, no_work, monkeypatch, capsys):
    # the check passes and the study starts: here, the no_work fixture stops it at its first draw
    out = tmp_path / "new" / "out"
    with pytest.raises(AssertionError, match="the study started"):
        _run("regime_map", ["--out", str(out), "--jobs", "1", "--seeds", "1"], monkeypatch, capsys)
    assert out.is_dir()
    assert not any(p.name.startswith(WRITE_PROBE_PREFIX) for p in out.iterdir())
