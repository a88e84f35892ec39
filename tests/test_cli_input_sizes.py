"""Huge inputs are refused before they are read (issue 25, item 3).

A ``.npy`` file is judged from its header: its row count against the labels' (both headers), and
its size against the available memory; a text table from its size in bytes against the available
memory (``TEXT_MEMORY_FACTOR`` times the size). The huge files here are sparse (``truncate``):
they take no disk space, and a guard makes every test fail, rather than read them, on code that
would read them.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from _cli import run

import simulations.cli.loaders as loaders


@pytest.fixture
def never_read(monkeypatch):
    """Fail the test if a .npy body or a text table is read."""

    def refuse(*args, **kwargs):
        raise AssertionError("the data were read before the file was refused")

    monkeypatch.setattr(np, "load", refuse)
    monkeypatch.setattr(np, "loadtxt", refuse)


def sparse_npy(path, shape, dtype="<f8"):
    """A valid .npy header declaring ``shape``, and a sparse body of the declared size."""
    header = {"descr": dtype, "fortran_order": False, "shape": shape}
    with open(path, "wb") as stream:
        np.lib.format.write_array_header_1_0(stream, header)
        stream.truncate(stream.tell() + int(np.prod(shape)) * np.dtype(dtype).itemsize)
    return path


def data_argv(command, embeddings, labels, *extra):
    argv = [command, "--embeddings", str(embeddings), "--labels", str(labels), *extra]
    return argv + (["--splits", "2", "--quiet"] if command == "compare" else [])


@pytest.mark.parametrize("command", ["compare", "feasibility"])
def test_a_huge_npy_with_too_few_labels_is_refused_from_the_headers(
    tmp_path, capsys, never_read, command
):
    # A valid header declaring 2^28 x 1 float64 with a sparse body was read in full (4.6 GB,
    # 104 s) before the label-length mismatch was reported.
    embeddings = sparse_npy(tmp_path / "Z.npy", (2**28, 1))
    labels = tmp_path / "y.npy"
    with open(labels, "wb") as stream:
        np.lib.format.write_array(stream, np.zeros(50, dtype=np.int64))
    start = time.process_time()
    code, out, err = run(data_argv(command, embeddings, labels), capsys)
    assert time.process_time() - start < 5  # the headers only (about 10 ms here)
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"gcul {command}: error: --labels {labels}: holds 50 labels for {2**28} rows of "
        f"--embeddings {embeddings}"
    ]


def test_predictions_are_counted_from_their_header(tmp_path, capsys, never_read):
    embeddings = sparse_npy(tmp_path / "Z.npy", (2**28, 4))
    labels = sparse_npy(tmp_path / "y.npy", (1, 2**28), "<i8")  # one row of labels: counted
    predictions = sparse_npy(tmp_path / "p.npy", (2**27,), "<i8")
    argv = data_argv("feasibility", embeddings, labels, "--predictions", str(predictions))
    code, out, err = run(argv, capsys)
    assert code == 2
    assert err.splitlines() == [
        f"gcul feasibility: error: --predictions {predictions}: holds {2**27} predictions for "
        f"{2**28} rows of --embeddings {embeddings} (one per row, as in --labels {labels})"
    ]


def test_a_npy_larger_than_the_memory_is_refused_from_its_header(tmp_path, capsys, monkeypatch):
    # rows match, so only the memory can refuse it: the body (1000 x 3 float64, 24,000 bytes)
    # and its float64 copy need 48,000 bytes
    Z = np.random.default_rng(0).normal(size=(1000, 3))
    np.save(tmp_path / "Z.npy", Z)
    np.save(tmp_path / "y.npy", np.arange(1000) % 2)
    monkeypatch.setattr(loaders, "available_memory", lambda: 47_999)
    code, out, err = run(data_argv("feasibility", tmp_path / "Z.npy", tmp_path / "y.npy"), capsys)
    assert code == 2
    assert err.splitlines() == [
        f"gcul feasibility: error: --embeddings {tmp_path / 'Z.npy'}: the header declares shape "
        "(1000, 3) of float64 (24.0 KB); reading it needs about 48.0 KB of memory and 48.0 KB "
        "is available"
    ]
    monkeypatch.setattr(loaders, "available_memory", lambda: 48_000)
    assert np.array_equal(loaders.load_embeddings(str(tmp_path / "Z.npy")), Z)


def test_a_text_table_is_parsed_only_if_its_size_fits_the_memory(tmp_path, monkeypatch):
    # the rule: TEXT_MEMORY_FACTOR (4.5) x the file's size must be available
    table = tmp_path / "Z.csv"
    table.write_text("0,1,0,1\n" * 12_500)  # 100,000 bytes: 450,000 needed
    monkeypatch.setattr(loaders, "available_memory", lambda: 450_000)
    assert loaders.load_embeddings(str(table)).shape == (12_500, 4)
    monkeypatch.setattr(loaders, "available_memory", lambda: 449_999)
    with pytest.raises(loaders.CommandError) as info:
        loaders.load_embeddings(str(table))
    assert str(info.value) == (
        f"--embeddings {table}: a text table of 100.0 KB may need 4.5 times its size in memory "
        "to parse (450.0 KB) and 450.0 KB is available; save the array with np.save and pass "
        "the .npy file, which is checked from its header and read without parsing"
    )
    monkeypatch.setattr(loaders, "available_memory", lambda: None)  # unknown: parsed
    assert loaders.load_embeddings(str(table)).shape == (12_500, 4)


@pytest.mark.parametrize("command", ["compare", "feasibility"])
def test_a_terabyte_text_table_is_refused_before_parsing(tmp_path, capsys, never_read, command):
    # A 2 GB text file of 8 KB of text then NUL bytes ran out of memory after 148 s (7.4 GB
    # peak). Here 8 KB of numbers then NUL bytes up to 1 TiB, sparse: no machine that runs this
    # has 4.5 TiB free, so it is refused before parsing.
    free = loaders.available_memory()
    if free is None or free > 4.5 * 2**40:
        pytest.skip("the system does not say how much memory is free, or has 4.5 TiB")
    table = tmp_path / "Z.txt"
    with open(table, "wb") as stream:
        stream.write(b"1 2\n" * 2048)
        stream.truncate(2**40)
    labels = tmp_path / "y.txt"
    labels.write_text("0\n1\n")
    code, out, err = run(data_argv(command, table, labels), capsys)
    assert code == 2 and out == ""
    (line,) = err.splitlines()
    assert line.startswith(
        f"gcul {command}: error: --embeddings {table}: a text table of 1.1 TB may need 4.5 times "
        "its size in memory to parse (4.9 TB) and "
    ), line
    assert line.endswith(" is available; save the array with np.save and pass the .npy file, "
                         "which is checked from its header and read without parsing")  # fmt: skip


def test_text_then_nul_bytes_is_refused_unread_even_where_it_fits(
    tmp_path, capsys, never_read, monkeypatch
):
    # 8 KB of numbers then NUL bytes (sparse, 2 GiB) was parsed for 67 s at 7.9 GB of memory on a
    # machine with 22 GB free, to fail there: NUL bytes at the end make it a binary file too.
    table = tmp_path / "Z.txt"
    with open(table, "wb") as stream:
        stream.write(b"1 2\n" * 2048)
        stream.truncate(2**31)
    labels = tmp_path / "y.txt"
    labels.write_text("0\n1\n")
    monkeypatch.setattr(loaders, "available_memory", lambda: 2**40)  # it fits, here
    code, out, err = run(data_argv("feasibility", table, labels), capsys)
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"gcul feasibility: error: --embeddings {table}: is a binary file, not one of: "
        f"{loaders.FORMATS}"
    ]


@pytest.mark.parametrize(
    ("dtype", "needed"),
    [("float32", 12_000), ("float16", 6_000 + 24_000), (">f4", 12_000 + 24_000)],
)
def test_compare_reads_its_npy_once_and_needs_memory_only_for_a_copy(
    tmp_path, monkeypatch, dtype, needed
):
    # gcul compare reads the .npy once (never maps it: issue 32) and keeps float32 (or float64)
    # values as they are:
    # 1000 x 3 float32 needs its own 12,000 bytes, no float64 copy; float16 is still widened
    # to a float64 copy (24,000 bytes) besides its 6,000, and so is big-endian float32 (not
    # np.float32: check_embeddings makes the copy, which the check once left uncounted)
    Z = np.random.default_rng(0).normal(size=(1000, 3)).astype(dtype)
    np.save(tmp_path / "Z.npy", Z)
    monkeypatch.setattr(loaders, "available_memory", lambda: needed - 1)
    with pytest.raises(loaders.CommandError, match=f"needs about {needed / 1000:.1f} KB"):
        loaders.load_embeddings(str(tmp_path / "Z.npy"), shared_float32=True)
    monkeypatch.setattr(loaders, "available_memory", lambda: needed)
    loaded = loaders.load_embeddings(str(tmp_path / "Z.npy"), shared_float32=True)
    assert loaded.dtype == (np.float32 if dtype == "float32" else np.float64)
    assert not isinstance(loaded.base, np.memmap)
    np.testing.assert_array_equal(loaded, Z)


def test_compare_never_maps_its_npy(tmp_path, monkeypatch):
    # a file system that refuses mmap (some network and FUSE mounts) is no matter: the file is
    # read once, never mapped (a mapped file truncated during a run raised SIGBUS: issue 32)
    Z = np.random.default_rng(0).normal(size=(50, 3)).astype(np.float32)
    np.save(tmp_path / "Z.npy", Z)
    load = np.load
    modes = []

    def no_mmap(*args, mmap_mode=None, **kwargs):
        modes.append(mmap_mode)
        if mmap_mode is not None:
            raise OSError(19, "No such device")
        return load(*args, **kwargs)

    monkeypatch.setattr(np, "load", no_mmap)
    loaded = loaders.load_embeddings(str(tmp_path / "Z.npy"), shared_float32=True)
    assert modes == [None]  # one read, no attempt to map
    assert loaded.dtype == np.float32 and not isinstance(loaded.base, np.memmap)
    np.testing.assert_array_equal(loaded, Z)
