"""The ``gcul`` command line (simulations.cli): one-line errors, exit codes, the three commands."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import numpy as np
import pytest
from _blob_data import feasibility_blobs
from _cli import run

from simulations.cli import parse_seeds


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("10-19", list(range(10, 20))),
        ("16", [16]),
        ("10,12,15-17", [10, 12, 15, 16, 17]),
        ("3,3", [3]),
    ],
)
def test_parse_seeds(text, expected):
    assert parse_seeds(text) == expected


@pytest.mark.parametrize("text", ["", "a", "19-10", "-1", "1-", "1.5"])
def test_parse_seeds_rejects(text):
    with pytest.raises(argparse.ArgumentTypeError, match="seeds"):
        parse_seeds(text)


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["bogus"],
        ["reproduce", "--jobs", "0"],
        ["reproduce", "--seeds", "x"],
        ["reproduce", "--levels", "-3"],
        ["reproduce", "--method", "erf"],
        ["reproduce", "--lam", "1.5"],
        ["prove", "--format", "html"],
        [
            "feasibility",
            "--embeddings",
            "missing.npy",
            "--labels",
            "y.npy",
            "--predictions",
            "p.npy",
        ],
    ],
)
def test_errors_are_one_line_with_exit_code_2(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(argv, capsys)
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    assert "error" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ["reproduce", "--bogus"],
        ["prove", "--format", "text", "--bogus", "x"],
        ["compare", "--embeddings", "Z.npy", "--labels", "y.npy", "--bogus"],
        ["demo", "--list", "--bogus"],
    ],
)
def test_an_unknown_option_is_named_by_its_command(argv, capsys):
    # argparse's parse_args reports extra arguments as "gcul: error:"; the command's own name
    # tells the reader which command refused them, before anything runs or is read
    code, out, err = run(argv, capsys)
    extra = " ".join(argv[argv.index("--bogus") :])
    assert (code, out) == (2, "")
    assert err.splitlines() == [f"gcul {argv[0]}: error: unrecognized arguments: {extra}"]


def test_an_unknown_option_before_the_command_is_named_by_gcul(capsys):
    # `gcul --bogus compare ...`: the option was given to gcul, not to compare (as parse_args
    # said); one after the command's name is the command's
    code, out, err = run(
        ["--bogus", "compare", "--embeddings", "Z.npy", "--labels", "y.npy"], capsys
    )
    assert (code, out) == (2, "")
    assert err.splitlines() == ["gcul: error: unrecognized arguments: --bogus"]


def test_console_script_error_is_one_line():
    proc = subprocess.run(
        [sys.executable, "-m", "simulations.cli", "reproduce", "--jobs", "many"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "gcul reproduce: error: argument --jobs: expected a non-zero integer "
        "(N workers, -1 = all usable cores, -2 = all but one); got 'many'"
    ]


def test_feasibility_on_files(tmp_path, capsys):
    Z, y, y_pred = feasibility_blobs(200, 0)
    np.save(tmp_path / "Z.npy", Z)
    np.savetxt(tmp_path / "y.csv", y, fmt="%d", delimiter=",")
    np.save(tmp_path / "p.npy", y_pred)
    argv = [
        "feasibility",
        "--embeddings",
        str(tmp_path / "Z.npy"),
        "--labels",
        str(tmp_path / "y.csv"),
    ]
    code, out, err = run([*argv, "--predictions", str(tmp_path / "p.npy")], capsys)
    assert code == 0, err
    assert "verdict: feasible" in out
    np.save(tmp_path / "bad.npy", y_pred[:10])
    code, out, err = run([*argv, "--predictions", str(tmp_path / "bad.npy")], capsys)
    assert code == 2
    assert err.strip().splitlines() == [
        f"gcul feasibility: error: --predictions {tmp_path / 'bad.npy'}: holds 10 predictions "
        f"for 600 rows of --embeddings {tmp_path / 'Z.npy'} (one per row, as in --labels "
        f"{tmp_path / 'y.csv'})"
    ]


@pytest.mark.slow  # 4 s: every proof, in a subprocess
def test_prove_exits_zero_and_prints_markdown(capsys):
    code, out, err = run(["prove", "--format", "markdown"], capsys)
    assert code == 0, err
    assert "|" in out and "erratum" in out


@pytest.mark.slow
def test_reproduce_small_grid_writes_every_file(tmp_path, capsys):
    out_dir = tmp_path / "out"
    code, out, err = run(
        [
            "reproduce",
            "--out",
            str(out_dir),
            "--seeds",
            "16",
            "--levels",
            "2",
            "--jobs",
            "1",
            "--quiet",
        ],
        capsys,
    )
    assert code == 0, err
    expected = [
        "results.csv",
        "violations.csv",
        "violations.md",
        "violations.tex",
        "seed16.csv",
        "seed16.md",
        "seed16.tex",
        "phase_transition.png",
        "phase_transition.pdf",
        "manifest.json",
    ]
    for name in expected:
        assert (out_dir / name).stat().st_size > 0, name
    manifest = json.loads((out_dir / "manifest.json").read_text())
    assert manifest["seeds"] == [16]
    assert manifest["noise_levels"] == [0.0, 0.4]
    assert manifest["n_cells"] == 2
    assert "Type-I" in out
    assert str(out_dir / "results.csv") in out
