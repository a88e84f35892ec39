"""Reading the arrays of ``gcul feasibility``: .npy files and text tables, checked before use.

Pickles and .npz archives are refused (never loaded); a .npy header is checked against the file's
size and the available memory before any data is read, and the row counts of several .npy files
against each other (:func:`check_row_counts`); a text table too large for the available memory
(:data:`TEXT_MEMORY_FACTOR`) is refused before it is parsed; a text table with a header row is
named, not skipped. Every failure is a :class:`~simulations.cli.common.CommandError` naming the
option and the file.
"""

from __future__ import annotations

import math
import os
import warnings
from pathlib import Path

import numpy as np

from simulations.cli.common import CommandError, shown
from simulations.validation import check_embeddings, first_line

__all__ = [
    "FORMATS",
    "REGIME_NAMES",
    "TEXT_MEMORY_FACTOR",
    "add_data_arguments",
    "add_regime_arguments",
    "available_memory",
    "check_row_counts",
    "load_embeddings",
    "load_labels",
    "read_array",
    "read_labels",
]

_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGIC = b"PK\x03\x04"
_TEXT_DELIMITERS = {".csv": ",", ".tsv": "\t"}  # any other text file: whitespace-separated

TEXT_MEMORY_FACTOR = 4.5
"""A text table is parsed only if this many times its size in bytes is available in memory.

NumPy's text parser peaks at 4.1-4.3 times the file's size for the densest tables, measured with
``tracemalloc`` on ``np.loadtxt``: ``0,0,...,0`` (2 bytes per number, 8 bytes of float64 each:
4.32x) and a line of NUL bytes (decoded to one 4-byte character per byte: 4.10x); a table of
``np.savetxt`` floats (25 bytes per number) peaks at 0.35x. The worst case is what a size alone
can bound: a 2 GB file of 8 KB of text then NUL bytes ran out of memory after 148 s at 7.4 GB.
A ``.npy`` file needs no parsing and is checked from its header instead."""

FORMATS = ".npy, or a text table: .csv (commas), .tsv (tabs), anything else whitespace-separated"
"""The file formats the loaders read."""


def add_data_arguments(parser) -> None:
    """Add ``--embeddings`` and ``--labels``, the files of a command on the user's data."""
    parser.add_argument(
        "--embeddings", required=True, metavar="FILE", help="N x d array of finite numbers"
    )
    parser.add_argument(
        "--labels",
        required=True,
        metavar="FILE",
        help="N observed labels: integers 0..C-1, or class names (a .npy array of str)",
    )


REGIME_NAMES = {"error_pool": "--error-pool", "standardize": "--standardize"}
"""How messages name the options of :func:`add_regime_arguments`."""


def add_regime_arguments(parser) -> None:
    """Add ``--error-pool`` and ``--standardize``: which phase 1 GCUL runs on the user's data."""
    parser.add_argument(
        "--error-pool",
        choices=("in_sample", "out_of_fold"),
        default="in_sample",
        help="GCUL's phase-1 error pool: in_sample (the paper's: phase 1's errors on its own "
        "training rows) or out_of_fold (its errors on held-out folds, 5 stratified folds, seed "
        "0; phase 1 itself is still fitted on every training row): use it when phase 1 "
        "separates its training rows, which leaves GCUL nothing to reject (default: "
        "%(default)s)",
    )
    parser.add_argument(
        "--standardize",
        action="store_true",
        help="standardise every feature (z-scores: mean and standard deviation fitted on the "
        "training rows only, then applied to the held-out ones) before GCUL and every other "
        "model; off by default (in Python: make_pipeline(StandardScaler(), GCUL()))",
    )


def _size(n_bytes: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if n_bytes < 1000 or unit == "TB":
            return f"{n_bytes:.0f} {unit}" if unit == "bytes" else f"{n_bytes:.1f} {unit}"
        n_bytes /= 1000
    raise AssertionError("unreachable")  # pragma: no cover


def _check_npy_dtype(dtype: np.dtype, where: str, names: bool = False) -> None:
    """Refuse a dtype other than numbers (and, with ``names``, str: class names)."""
    if names and dtype.kind == "U" and dtype.names is None:
        return
    if dtype.hasobject:
        raise CommandError(
            f"{where}: holds Python objects (a pickle), which are never loaded; save a numeric "
            "array with np.save"
            + (" (class names: np.save(path, np.asarray(labels, dtype=str)))" if names else "")
        )
    if dtype.names is not None:
        raise CommandError(f"{where}: is a structured array ({dtype}); save a plain numeric array")
    if dtype.kind == "c":
        raise CommandError(f"{where}: is complex ({dtype}); the values must be real")
    if names and dtype.kind == "S":
        raise CommandError(
            f"{where}: holds bytes ({dtype}), whose text encoding is unknown; save the class "
            "names as str (np.save(path, np.asarray(labels).astype(str)) after decoding them) "
            "or integers 0..C-1"
        )
    if dtype.kind in "US":
        raise CommandError(f"{where}: holds strings ({dtype}); expected numbers")
    if dtype.kind not in "biuf":
        raise CommandError(f"{where}: holds {dtype} values; expected numbers")


def _npy_header(source: Path, where: str) -> tuple[tuple[int, ...], np.dtype, int]:
    """``(shape, dtype, data offset)`` from a .npy file's header; the data are not read."""
    with source.open("rb") as stream:
        try:
            version = np.lib.format.read_magic(stream)
            if version == (1, 0):
                shape, _, dtype = np.lib.format.read_array_header_1_0(stream)
            elif version == (2, 0):
                shape, _, dtype = np.lib.format.read_array_header_2_0(stream)
            else:
                raise CommandError(
                    f"{where}: .npy format version {version[0]}.{version[1]} is not supported "
                    "(1.0 and 2.0 are)"
                )
        except (ValueError, EOFError) as exc:
            raise CommandError(f"{where}: not a valid .npy file ({first_line(exc)})") from None
        return shape, dtype, stream.tell()


def _read_npy(
    source: Path, where: str, keep_float: bool = False, names: bool = False
) -> np.ndarray:
    """Read a .npy file into memory after checking its header: a numeric dtype, a size the file
    holds, and memory for it and its float64 copy (none with ``keep_float`` for native float32
    or float64 data, kept as they are). The file is read once, never memory-mapped: a file
    changed or truncated later cannot change (or crash, SIGBUS) what was read."""
    file_size = source.stat().st_size
    shape, dtype, data_start = _npy_header(source, where)
    _check_npy_dtype(dtype, where, names)
    declared = math.prod(shape) * dtype.itemsize
    if declared > file_size - data_start:
        raise CommandError(
            f"{where}: the header declares shape {shape} of {dtype} ({_size(declared)}) but the "
            f"file holds {_size(file_size - data_start)} of data: truncated or corrupt"
        )
    # the array, then its float64 (or int64) copy; float32 or float64 data in this machine's
    # byte order are kept as they are (load_embeddings' shared_float32; big-endian '>f4' is
    # copied to float64 all the same)
    kept = keep_float and dtype.kind == "f" and dtype.itemsize in (4, 8) and dtype.isnative
    needed = declared + (0 if kept else math.prod(shape) * 8)
    free = available_memory()
    if free is not None and needed > free:
        raise CommandError(
            f"{where}: the header declares shape {shape} of {dtype} ({_size(declared)}); reading "
            f"it needs about {_size(needed)} of memory and {_size(free)} is available"
        )
    try:
        return np.load(source, allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise CommandError(f"{where}: cannot read the .npy data ({first_line(exc)})") from None


def available_memory() -> int | None:
    """Bytes of memory this process can still get, or None where the system does not say.

    The smaller of the kernel's estimate (``MemAvailable`` in ``/proc/meminfo``, Linux; else
    ``os.sysconf("SC_AVPHYS_PAGES")`` pages) and, inside a cgroup-v2 container, its
    ``memory.max`` less its ``memory.current``.

    Examples
    --------
    >>> free = available_memory()
    >>> free is None or free > 0
    True
    """
    estimates = []
    try:
        with open("/proc/meminfo", encoding="ascii") as stream:
            for line in stream:
                if line.startswith("MemAvailable:"):
                    estimates.append(int(line.split()[1]) * 1024)  # kB
                    break
    except (OSError, ValueError, IndexError):
        pass
    if not estimates:
        try:
            estimates.append(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
        except (OSError, ValueError, AttributeError):
            pass
    try:
        with open("/sys/fs/cgroup/memory.max", encoding="ascii") as stream:
            limit = stream.read().strip()
        with open("/sys/fs/cgroup/memory.current", encoding="ascii") as stream:
            current = int(stream.read().strip())
        if limit != "max":
            estimates.append(max(0, int(limit) - current))
    except (OSError, ValueError):
        pass
    positive = [estimate for estimate in estimates if estimate > 0]
    return min(positive) if positive else None


def _declared_rows(path: str, option: str, labels: bool) -> int | None:
    """The row count a .npy file's header declares (embeddings: the first axis; labels: the
    length of a 1-D array or of a single row or column), or None: not a .npy file, or a file
    that :func:`read_array` or the loaders will report in their own words (a bad dtype, a body
    shorter than declared, no values, a shape they refuse)."""
    source = Path(path)
    try:
        if not source.is_file():
            return None
        with source.open("rb") as stream:
            if not stream.read(len(_NPY_MAGIC)) == _NPY_MAGIC:
                return None
        shape, dtype, data_start = _npy_header(source, f"{option} {path}")
        _check_npy_dtype(dtype, f"{option} {path}", names=labels)
        sound = math.prod(shape) * dtype.itemsize <= source.stat().st_size - data_start
    except (OSError, CommandError):
        return None
    if not sound or math.prod(shape) == 0:
        return None
    if not labels:
        return shape[0] if len(shape) in (1, 2) else None
    if len(shape) == 1:
        return shape[0]
    if len(shape) == 2 and 1 in shape:
        return shape[0] * shape[1]
    return None


def check_row_counts(embeddings: str, labels: str, predictions: str | None = None) -> None:
    """Refuse label (and prediction) files whose length differs from the number of rows of the
    embeddings, from the .npy headers alone: before any file's data is read (a 4.6 GB body was
    read in 104 s before the mismatch was reported).

    Parameters
    ----------
    embeddings, labels : str
        The paths of ``--embeddings`` and ``--labels``.
    predictions : str, optional
        The path of ``--predictions``.

    Raises
    ------
    CommandError
        Two headers declare different row counts, in the words of the check after reading.
        Files that are not .npy (or not valid) are left to that check.
    """
    rows = _declared_rows(embeddings, "--embeddings", labels=False)
    if rows is None:
        return
    count = _declared_rows(labels, "--labels", labels=True)
    if count is not None and count != rows:
        raise CommandError(
            f"--labels {labels}: holds {count} labels for {rows} rows of --embeddings {embeddings}"
        )
    count = None if predictions is None else _declared_rows(predictions, "--predictions", True)
    if count is not None and count != rows:
        raise CommandError(
            f"--predictions {predictions}: holds {count} predictions for {rows} rows of "
            f"--embeddings {embeddings} (one per row, as in --labels {labels})"
        )


def _header_line(source: Path, delimiter: str | None) -> str | None:
    """The file's header row, if it has one, else None.

    A header row is the first line that is not blank or a ``#`` comment (``np.loadtxt`` skips
    those) when a non-empty field of it is not a number *and* every line after it reads as a
    number table: then the file is a table with a header, and nothing else. It is reported,
    never skipped: a header of numbers (pandas' default column names 0, 1, ...) cannot be told
    from data, so skipping only the others would make the meaning of a file depend on the
    names of its columns.
    """
    try:
        with source.open(encoding="utf-8", errors="replace") as stream:
            lines = ((n, line.split("#", 1)[0].strip()) for n, line in enumerate(stream, 1))
            number, content = next(((n, text) for n, text in lines if text), (0, ""))
        if not content:
            return None
        names = [field.strip() for field in content.split(delimiter)]
        if all(_is_number(field) or not field for field in names):
            return None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # a header and nothing else
            rest = np.loadtxt(
                source, delimiter=delimiter, ndmin=2, encoding="utf-8", skiprows=number
            )
    except (OSError, ValueError):
        return None
    return content if rest.size else None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _read_text(source: Path, head: bytes, where: str) -> np.ndarray:
    """Read a text table as a 2-D float64 array (an empty file is an error, not a warning).

    A NUL byte in its first or last 4 KiB makes it a binary file, refused unread (a 2 GB file of
    8 KB of text then NUL bytes was parsed for 67 s at 7.9 GB of memory, to fail there).
    """
    if b"\x00" in head:
        raise CommandError(f"{where}: is a binary file, not one of: {FORMATS}")
    delimiter = _TEXT_DELIMITERS.get(source.suffix.lower())
    size = source.stat().st_size
    free = available_memory()
    if free is not None and size * TEXT_MEMORY_FACTOR > free:
        raise CommandError(
            f"{where}: a text table of {_size(size)} may need {TEXT_MEMORY_FACTOR:g} times its "
            f"size in memory to parse ({_size(size * TEXT_MEMORY_FACTOR)}) and "
            f"{_size(free)} is available; save the array with np.save and pass the .npy file, "
            "which is checked from its header and read without parsing"
        )
    with source.open("rb") as stream:
        stream.seek(max(0, size - 4096))
        if b"\x00" in stream.read(4096):
            raise CommandError(f"{where}: is a binary file, not one of: {FORMATS}")
    with warnings.catch_warnings():
        # "loadtxt: input contained no data": an empty file is reported below, in one line
        warnings.simplefilter("ignore", UserWarning)
        try:
            array = np.loadtxt(source, delimiter=delimiter, ndmin=2, encoding="utf-8")
        except ValueError as exc:  # including UnicodeDecodeError
            header = _header_line(source, delimiter)
            if header is not None:
                raise CommandError(
                    f"{where}: its first line is a header ({shown(header)}); the file must "
                    "have no header row, only numbers (np.savetxt writes none; with pandas, "
                    "df.to_csv(path, header=False, index=False))"
                ) from None
            raise CommandError(
                f"{where}: cannot read it as a number table: {first_line(exc)}"
            ) from None
    if array.size == 0:
        raise CommandError(f"{where}: is empty (no numbers)")
    return array


def read_array(
    path: str, option: str, *, keep_float: bool = False, names: bool = False
) -> np.ndarray:
    """Read one array from ``path``; every failure is a ``CommandError`` naming option and path.
    ``keep_float``: the memory check of a .npy file counts no float64 copy of float32 data
    (:func:`_read_npy`). ``names``: a .npy array of str (class names) is read too."""
    source = Path(path)
    where = f"{option} {path}"
    if source.is_dir():
        raise CommandError(f"{where}: is a directory, not a file")
    if not source.exists():
        raise CommandError(f"{where}: no such file")
    if not source.is_file():
        raise CommandError(f"{where}: is not a regular file")
    try:
        with source.open("rb") as stream:
            head = stream.read(4096)
        if head.startswith(_ZIP_MAGIC) or source.suffix.lower() == ".npz":
            raise CommandError(
                f"{where}: is an .npz archive (a zip of arrays), not one array; extract the "
                "one you mean with np.load(path)[name] and save it with np.save"
            )
        if head.startswith(_NPY_MAGIC):
            return _read_npy(source, where, keep_float, names)
        if source.suffix.lower() == ".npy":
            raise CommandError(f"{where}: is not a .npy file (it lacks the NumPy magic string)")
        return _read_text(source, head, where)
    except OSError as exc:
        raise CommandError(f"{where}: cannot read it: {exc.strerror or first_line(exc)}") from None


def load_embeddings(path: str, *, shared_float32: bool = False) -> np.ndarray:
    """The ``(N, d)`` float64 embeddings, checked by :func:`simulations.validation.check_embeddings`
    (the check of the Python functions too): a 1-D ``.npy`` is refused, naming its shape, as
    ``compare`` and ``assess`` refuse a 1-D ``Z`` (a text file of one number per line is one
    column, ``N x 1``).

    With ``shared_float32`` (``gcul compare``) float32 values stay float32: joblib writes the
    array once to a memory-mapped file of its own, which the workers of ``--jobs`` share, so
    no float64 copy is made (at 100,000 x 768 float32: 0.31 GB here and 0.31 GB shared, in
    place of 0.61 GB of float64 here and as much written for the workers). The file is read
    once, not memory-mapped: it may change while the command runs without changing its result
    (issue 32: a truncated mapped file crashed a worker, or the command, with SIGBUS).
    """
    where = f"--embeddings {path}"
    array = read_array(path, "--embeddings", keep_float=shared_float32)
    try:
        return check_embeddings(array, where, keep_float32=shared_float32)
    except (TypeError, ValueError) as exc:
        raise CommandError(str(exc)) from None


def file_stamp(path: str) -> tuple[int, int, int, int, int] | None:
    """``(device, inode, size, modification time, status change time)`` of the file at
    ``path`` (times in ns), ``None`` if it is gone: taken before and after a file is read, it
    tells whether the file was replaced, rewritten or removed meanwhile. The status change time
    (``st_ctime``) changes on every write and cannot be set back by a user, unlike the
    modification time (``os.utime``): a rewrite of the same size with its old mtime restored
    shows in it."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return (
        status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns
    )  # fmt: skip


def load_labels(path: str, option: str) -> np.ndarray:
    """Labels as int64 class codes ``0..C-1``, one per row: :func:`read_labels`, whose class
    names (if the file holds names) become the codes of their sorted order
    (``np.unique(labels, return_inverse=True)``), as a user would encode them."""
    labels = read_labels(path, option)
    if labels.dtype.kind == "U":
        return np.unique(labels, return_inverse=True)[1].astype(np.int64).ravel()
    return labels


def read_labels(path: str, option: str) -> np.ndarray:
    """One label per row: non-negative int64 (integral floats such as ``3.0`` accepted), or
    class names, a .npy array of str (returned as read, never empty or blank).

    Bytes (``|S``) are refused (their text encoding is unknown), as are Python objects (a
    pickle, never loaded) and empty or blank names, each in one line naming the row.
    """
    where = f"{option} {path}"
    array = read_array(path, option, names=True)
    if array.ndim == 2 and 1 in array.shape:  # one column, or one row, of labels
        array = array.ravel()
    if array.ndim != 1:
        raise CommandError(f"{where}: expected one column of labels; got shape {array.shape}")
    if array.size == 0:
        raise CommandError(f"{where}: holds no labels")
    if array.dtype.kind == "U":
        blank = np.char.str_len(np.char.strip(array)) == 0
        if blank.any():
            row = int(np.argmax(blank))
            raise CommandError(
                f"{where}: row {row} holds an empty or blank class name ({str(array[row])!r}); "
                "every row needs its class"
            )
        return np.asarray(array)
    if array.dtype.kind == "f":
        bad = ~np.isfinite(array) | (array != np.round(array))
        if bad.any():
            row = int(np.argmax(bad))
            raise CommandError(
                f"{where}: labels must be integers; row {row} holds {float(array[row])!r}"
            )
        if np.abs(array).max() >= 2.0**63:
            row = int(np.argmax(np.abs(array)))
            raise CommandError(f"{where}: row {row} holds {float(array[row])!r}, not a class label")
    elif array.dtype.kind == "u" and array.max() > np.iinfo(np.int64).max:
        row = int(np.argmax(array))
        raise CommandError(f"{where}: row {row} holds {int(array[row])}, not a class label")
    labels = array.astype(np.int64)
    if labels.min() < 0:
        row = int(np.argmin(labels))
        raise CommandError(f"{where}: labels must be 0..C-1; row {row} holds {int(labels[row])}")
    return labels
