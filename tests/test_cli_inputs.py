"""`gcul feasibility` on bad files, and the CLI as people use it (issue 6, sections 3 and 4).

Every bad input must give exactly one line on stderr, ``gcul feasibility: error: ...`` naming the
file (or files) and what is wrong, exit code 2, nothing on stdout, no traceback, no warning.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest
from _blob_data import feasibility_blobs
from _cli import run

import simulations
from simulations import cli

REPO = Path(__file__).resolve().parents[1]


def good_data():
    """Three blobs: classes 0 and 1, and a confusion blob that phase 1 gets wrong (600 rows)."""
    return feasibility_blobs(200, 0)


def write_inputs(folder: Path, **replace) -> dict[str, Path]:
    """Write good Z.npy, y.npy and p.npy; ``replace`` maps embeddings/labels/predictions to a
    function ``(folder, Z, y, y_pred) -> Path`` writing a bad file instead."""
    Z, y, y_pred = good_data()
    names = {"embeddings": "Z.npy", "labels": "y.npy", "predictions": "p.npy"}
    paths = {role: folder / name for role, name in names.items()}
    np.save(paths["embeddings"], Z)
    np.save(paths["labels"], y)
    np.save(paths["predictions"], y_pred)
    for role, make in replace.items():
        paths[role] = make(folder, Z, y, y_pred)
    return paths


def argv_for(paths):
    return [
        "feasibility",
        "--embeddings",
        str(paths["embeddings"]),
        "--labels",
        str(paths["labels"]),
        "--predictions",
        str(paths["predictions"]),
    ]


# --- writers of bad files ------------------------------------------------------------------


def missing(folder, *_):
    return folder / "nowhere.npy"


def directory(folder, *_):
    (folder / "adir.npy").mkdir()
    return folder / "adir.npy"


def npz_named_npy(folder, Z, *_):
    with open(folder / "archive.npy", "wb") as stream:
        np.savez(stream, Z=Z)
    return folder / "archive.npy"


def npz(folder, Z, *_):
    np.savez(folder / "archive.npz", Z=Z)
    return folder / "archive.npz"


def header_claims(shape, dtype="<f8"):
    def make(folder, *_):
        path = folder / "huge.npy"
        with open(path, "wb") as stream:
            header = {"descr": dtype, "fortran_order": False, "shape": shape}
            np.lib.format.write_array_header_1_0(stream, header)
            stream.write(np.zeros(6).tobytes())
        return path

    return make


def truncated(folder, Z, *_):
    path = folder / "cut.npy"
    np.save(path, Z)
    path.write_bytes(path.read_bytes()[:-8])
    return path


def object_array(folder, *_):
    path = folder / "objects.npy"
    np.save(path, np.array([{"a": 1}] * 600, dtype=object), allow_pickle=True)
    return path


def text(name, content):
    def make(folder, *_):
        (folder / name).write_text(content)
        return folder / name

    return make


def binary(name, content):
    def make(folder, *_):
        (folder / name).write_bytes(content)
        return folder / name

    return make


def npy(name, transform):
    def make(folder, Z, y, y_pred):
        np.save(folder / name, transform(Z, y, y_pred))
        return folder / name

    return make


def with_nan(Z, *_):
    Z = Z.copy()
    Z[5, 1] = np.nan
    return Z


def with_label(value, dtype=None):
    def transform(Z, y, y_pred):
        y = y.astype(dtype or np.asarray(value).dtype)
        y[7] = value
        return y

    return transform


BAD_INPUTS = [
    # (id, which file is bad, writer, expected text after "error: ", which paths it names)
    ("missing file", "embeddings", missing, r"nowhere\.npy: no such file", "embeddings"),
    ("directory", "labels", directory, r"adir\.npy: is a directory", "labels"),
    ("npz named .npy", "embeddings", npz_named_npy, r"is an \.npz archive", "embeddings"),
    ("npz", "embeddings", npz, r"archive\.npz: is an \.npz archive", "embeddings"),
    (
        "header claims (1e10, 3)",
        "embeddings",
        header_claims((10**10, 3)),
        r"declares shape \(10000000000, 3\) of float64 \(240\.0 GB\) but the file holds 48 "
        r"bytes of data: truncated or corrupt",
        "embeddings",
    ),
    ("truncated data", "embeddings", truncated, r"truncated or corrupt", "embeddings"),
    ("pickle", "embeddings", object_array, r"Python objects \(a pickle\)", "embeddings"),
    ("empty csv", "labels", text("empty.csv", ""), r"empty\.csv: is empty", "labels"),
    ("blank lines", "labels", text("blank.txt", "\n\n# comment\n"), r"is empty", "labels"),
    ("float labels", "labels", text("y.csv", "0\n1.5\n"), r"row 1 holds 1\.5", "labels"),
    (
        "float predictions",
        "predictions",
        npy("p.npy", lambda Z, y, p: p + 0.25),
        r"labels must be integers; row 0 holds 0\.25",
        "predictions",
    ),
    ("NaN label", "labels", npy("y.npy", with_label(np.nan, float)), r"row 7 holds nan", "labels"),
    (
        "huge integral float label",
        "labels",
        npy("y.npy", with_label(1e300, float)),
        r"row 7 holds 1e\+300, not a class label",
        "labels",
    ),
    (
        "uint64 beyond int64",
        "labels",
        npy("y.npy", with_label(2**64 - 1, np.uint64)),
        r"row 7 holds 18446744073709551615",
        "labels",
    ),
    (
        "wrong extension (binary)",
        "embeddings",
        binary("picture.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
        r"picture\.png: is a binary file",
        "embeddings",
    ),
    (
        "wrong extension (json text)",
        "embeddings",
        text("Z.json", '{"Z": [[1, 2], [3, 4]]}'),
        r"Z\.json: cannot read it as a number table",
        "embeddings",
    ),
    (
        ".npy without the magic",
        "labels",
        text("y.npy", "0\n1\n"),
        r"y\.npy: is not a \.npy file",
        "labels",
    ),
    ("ragged csv", "embeddings", text("Z.csv", "1,2\n3,4,5\n"), r"number of columns", "embeddings"),
    (
        "3-D embeddings",
        "embeddings",
        npy("Z3.npy", lambda Z, y, p: Z.reshape(600, 1, 2)),
        r"expected a 2-D array \(N rows x d columns\); got shape \(600, 1, 2\)",
        "embeddings",
    ),
    (
        "no rows",
        "embeddings",
        npy("Z0.npy", lambda Z, y, p: Z[:0]),
        r"has no values \(shape \(0, 2\)\)",
        "embeddings",
    ),
    (
        "complex embeddings",
        "embeddings",
        npy("Zc.npy", lambda Z, y, p: Z + 1j),
        r"is complex \(complex128\)",
        "embeddings",
    ),
    ("NaN in Z", "embeddings", npy("Zn.npy", with_nan), r"row 5 holds NaN or inf", "embeddings"),
    ("inf in a csv", "embeddings", text("Z.csv", "1,2\n3,inf\n"), r"row 1 holds NaN", "embeddings"),
    (
        "bytes labels",  # string labels are class names (tests/test_string_labels.py); bytes not
        "labels",
        npy("yb.npy", lambda Z, y, p: np.where(y == 0, b"cat", b"dog")),
        r"holds bytes \(\|S3\), whose text encoding is unknown",
        "labels",
    ),
    (
        "string embeddings",
        "embeddings",
        npy("Zs.npy", lambda Z, y, p: Z.astype(str)),
        r"holds strings \(<U\d+\); expected numbers$",
        "embeddings",
    ),
    (
        "a blank class name",
        "labels",
        npy("yw.npy", lambda Z, y, p: np.where(np.arange(y.size) == 3, " ", "cat")),
        r"row 3 holds an empty or blank class name \(' '\)",
        "labels",
    ),
    (
        "two label columns",
        "labels",
        npy("y2.npy", lambda Z, y, p: np.c_[y, y]),
        r"expected one column of labels; got shape \(600, 2\)",
        "labels",
    ),
    (
        "mismatched lengths",  # the old message named gcul_theory's y_pred and Z, not the file
        "predictions",
        npy("p10.npy", lambda Z, y, p: p[:10]),
        r"holds 10 predictions for 600 rows of --embeddings .*Z\.npy \(one per row, as in "
        r"--labels .*y\.npy\)$",
        "predictions",
    ),
    (
        "csv with a header row",  # the old message: "could not convert string 'x' to float64"
        "embeddings",
        text("Zh.csv", "x,y\n1,2\n3,4\n"),
        r"Zh\.csv: its first line is a header \('x,y'\); the file must have no header row",
        "embeddings",
    ),
    (
        "labels with a header row",
        "labels",
        text("yh.txt", "# written by hand\n\nlabel\n0\n1\n"),
        r"yh\.txt: its first line is a header \('label'\); the file must have no header row",
        "labels",
    ),
    (
        "a bad field below the first line is no header",
        "labels",
        text("yb.csv", "0\n1\nx\n"),
        r"yb\.csv: cannot read it as a number table: could not convert string 'x'",
        "labels",
    ),
    (
        "a first line of words over a body that is not numbers either is no header",
        "labels",
        text("yw.csv", "label\n0\nx\n"),
        r"yw\.csv: cannot read it as a number table: could not convert string 'label'",
        "labels",
    ),
    ("negative label", "labels", npy("yn.npy", with_label(-3)), r"row 7 holds -3", "labels"),
    (
        "prediction out of range",
        "predictions",
        npy("p7.npy", with_label(7)),
        r"classes 0\.\.C-1, each at least once \(C = 8 from the largest label\); missing "
        r"\[2, 3, 4, 5, 6\]\. Encode other labels with np\.unique\(y, return_inverse=True\)$",
        "both",
    ),
    (
        "one-based labels",  # labels and predictions: the same file, 1-based
        "labels",
        npy("y1.npy", lambda Z, y, p: y + 1),
        r"missing \[0\] \(1-based labels\? subtract 1\)",
        "same",
    ),
    (
        "a label of 10**7 (was 2 minutes, then MemoryError)",
        "labels",
        npy("yb.npy", with_label(10**7)),
        r"C = 10000001 .*missing 9999998 labels",
        "both",
    ),
    (
        "a label of 2**62",
        "labels",
        npy("yb.npy", with_label(2**62)),
        r"missing 4611686018427387902 labels",
        "both",
    ),
    (
        "a single class",  # labels and predictions: the same file of zeros
        "labels",
        npy("y0.npy", lambda Z, y, p: 0 * y),
        r"hold a single class \(0\); at least two are needed",
        "same",
    ),
]


@pytest.mark.parametrize(
    ("role", "make", "expected", "names"),
    [case[1:] for case in BAD_INPUTS],
    ids=[case[0] for case in BAD_INPUTS],
)
def test_bad_input_is_one_line_naming_the_file(tmp_path, capsys, role, make, expected, names):
    paths = write_inputs(tmp_path, **{role: make})
    if names == "same":  # the bad labels file also serves as the predictions
        paths["predictions"] = paths["labels"]
    code, out, err = run(argv_for(paths), capsys)
    assert code == 2, err
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("gcul feasibility: error: "), err
    assert re.search(expected, lines[0]), lines[0]
    assert "Traceback" not in err and "Warning" not in err
    if names in ("embeddings", "labels", "predictions"):
        assert f"--{names} {paths[names]}: " in lines[0]
    elif names in ("both", "same"):
        assert f"--labels {paths['labels']} and --predictions {paths['predictions']}" in lines[0]


def test_integral_float_labels_and_text_files_are_accepted(tmp_path, capsys):
    Z, y, y_pred = good_data()
    np.savetxt(tmp_path / "Z.txt", Z)  # whitespace-separated
    np.savetxt(tmp_path / "y.csv", y.astype(float), delimiter=",")  # 0.000000000000000000e+00
    np.savetxt(tmp_path / "p.tsv", y_pred[None, :], delimiter="\t", fmt="%.1f")  # one row
    names = {"embeddings": "Z.txt", "labels": "y.csv", "predictions": "p.tsv"}
    paths = {role: tmp_path / name for role, name in names.items()}
    code, out, err = run(argv_for(paths), capsys)
    assert code == 0, err
    assert err == ""
    assert "verdict: feasible" in out


def test_a_npy_file_is_read_whatever_its_name(tmp_path, capsys):
    paths = write_inputs(tmp_path)
    renamed = tmp_path / "Z.dat"
    renamed.write_bytes(paths["embeddings"].read_bytes())
    code, out, err = run(argv_for({**paths, "embeddings": renamed}), capsys)
    assert code == 0, err
    assert "verdict: feasible" in out


def test_a_pickle_is_never_unpickled(tmp_path, capsys):
    # Unpickling this object would create `marker` (pickle calls open(marker, "w")).
    marker = tmp_path / "unpickled"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    path = tmp_path / "evil.npy"
    np.save(path, np.array([Payload()] * 600, dtype=object), allow_pickle=True)
    paths = write_inputs(tmp_path)
    code, _, err = run(argv_for({**paths, "labels": path}), capsys)
    assert code == 2
    assert "Python objects (a pickle), which are never loaded" in err
    assert not marker.exists()


def test_errors_from_the_computation_are_capped_to_one_short_line(monkeypatch, tmp_path, capsys):
    import gcul_theory

    def explode(*args, **kwargs):
        raise ValueError("y = [" + ", ".join(["12345"] * 200_000) + "]\nsecond line")

    monkeypatch.setattr(gcul_theory, "feasibility_report", explode)
    code, out, err = run(argv_for(write_inputs(tmp_path)), capsys)
    assert code == 2
    assert len(err.splitlines()) == 1
    assert len(err) < 1100
    assert err.rstrip().endswith("...")


@pytest.mark.parametrize(
    ("exception", "code", "text"),
    [
        (MemoryError, 2, "gcul feasibility: error: out of memory; the input is too large"),
        (KeyboardInterrupt, 130, "gcul feasibility: interrupted"),
    ],
)
def test_memory_error_and_interrupt_are_one_line(
    monkeypatch, tmp_path, capsys, exception, code, text
):
    import gcul_theory

    def fail(*args, **kwargs):
        raise exception

    monkeypatch.setattr(gcul_theory, "feasibility_report", fail)
    got, _, err = run(argv_for(write_inputs(tmp_path)), capsys)
    assert got == code
    assert err.splitlines() == [text + (" for this machine" if exception is MemoryError else "")]


# --- the command line itself ---------------------------------------------------------------


def test_bare_gcul_prints_the_command_list_and_one_error_line(capsys):
    code, out, err = run([], capsys)
    assert code == 2
    assert out.startswith("usage: gcul")
    for command in ("reproduce", "prove", "feasibility", "--version"):
        assert command in out
    assert err.splitlines() == [
        "gcul: error: a command is required (reproduce, prove, feasibility, compare, demo or "
        "info; listed above)"
    ]


def test_version_is_the_installed_one(capsys):
    code, out, _ = run(["--version"], capsys)
    assert code == 0
    try:
        expected = metadata.version("gcul")
    except metadata.PackageNotFoundError:
        expected = simulations.__version__
    assert out == f"gcul {expected}\n"


def test_version_falls_back_to_the_package_version(monkeypatch, capsys):
    def not_installed(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", not_installed)
    code, out, _ = run(["--version"], capsys)
    assert code == 0
    assert out == f"gcul {simulations.__version__}\n"


def test_package_version_matches_pyproject():
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    declared = re.search(r'^version = "([^"]+)"', pyproject, flags=re.MULTILINE).group(1)
    assert simulations.__version__ == declared


def _subcommands():
    parser = cli.build_parser()
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return parser, commands.choices


def test_every_option_has_a_help_text():
    parser, subcommands = _subcommands()
    parsers = [("gcul", parser)] + [
        (name, sub)
        for name, sub in subcommands.items()
        if name != "reproduce"  # another module
    ]
    for name, each in parsers:
        for action in each._actions:
            if action.option_strings or isinstance(action, argparse._StoreAction):
                assert action.help and action.help != argparse.SUPPRESS, (name, action.dest)


# --- a reader that stops early ---------------------------------------------------------------


@pytest.mark.parametrize("extra", [[], ["--help"]], ids=["report", "help"])
def test_closed_pipe_ends_quietly(tmp_path, extra):
    # `gcul feasibility ... | head -2`: here the reader closes the pipe before gcul writes at
    # all, so every write fails. The old code ended in a BrokenPipeError traceback.
    paths = write_inputs(tmp_path)
    path = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": path}
    proc = subprocess.Popen(
        [sys.executable, "-m", "simulations.cli", *argv_for(paths), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=REPO,
    )
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.stderr.close()
    code = proc.wait(timeout=120)
    assert err == ""
    # exit 1 as the Python docs do; --help may also end 0 where argparse itself swallows the
    # failed write (it catches OSError around its print)
    assert code in ((1,) if not extra else (0, 1))


# --- what users read: docstrings cite the paper, not files they do not have ------------------


@pytest.mark.parametrize("package", ["simulations", "proofs"])
def test_docstrings_cite_the_paper_by_title_not_by_path(package):
    # users have neither shared/paper/gcul_paper.tex nor DESIGN.md (the old docstrings cited both).
    offenders = [
        f"{path.relative_to(REPO)}:{number}"
        for path in sorted((REPO / package).rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "gcul_paper.tex" in line or "DESIGN.md" in line
    ]
    assert offenders == []


@pytest.mark.parametrize("command", [["reproduce"], ["feasibility", "--embeddings", "x.npy"]])
def test_a_long_bad_number_is_shortened_in_its_one_line_error(capsys, command):
    # --lam quoted the whole argument (repr), unlike --jobs, --levels and --seed, which are
    # shortened by cli.common.shown: a 200-character value made a 200-character error line.
    bad = "9" * 200
    code, _, err = run([*command, "--lam", bad, "--labels", "y.npy"], capsys)
    assert code == 2
    (line,) = err.strip().splitlines()[-1:]
    assert line.endswith(
        f"argument --lam: expected a number in [0, 1); got '{'9' * 40}'... (200 chars)"
    )
    assert len(line) < 160
