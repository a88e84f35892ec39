"""Rows of the synthetic sweep: the column schema and ranges, exact CSV round trips, column views.

A row is a ``dict`` with the keys of :data:`ROW_COLUMNS`: ``seed`` and ``level`` are ``int``, every
other value is a ``float`` inside the range :data:`COLUMN_RANGES` gives for its column (accuracies
and rates are fractions in [0, 1]; no value is NaN). Floats are written with ``repr``, the shortest
string that reads back to the same double, so ``read_csv(write_csv(rows))`` returns the rows bit for
bit. A row holds no wall time, so the CSV of a sweep is byte-identical however it was run; the time
each cell took goes to a separate file (:data:`TIMING_COLUMNS`, :func:`write_timings_csv`).
"""

from __future__ import annotations

import contextlib
import csv
import errno
import io
import math
import os
import re
import socket
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np

import gcul_theory

__all__ = [
    "CERTIFIED_COLUMNS",
    "COLUMN_RANGES",
    "CONTAMINATION_MODELS",
    "INT_COLUMNS",
    "ROW_COLUMNS",
    "TIMING_COLUMNS",
    "WRITE_PROBE_PREFIX",
    "FolderInUseError",
    "atomic_write_bytes",
    "atomic_write_text",
    "check_row",
    "check_writable",
    "contamination_column",
    "current_umask",
    "lock_folder",
    "normalize_row",
    "read_csv",
    "remove_stale_temporaries",
    "to_columns",
    "write_csv",
    "write_timings_csv",
]


def _predictor_columns() -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """``lambda_pre_<name>``, ``r1_hat_<name>`` of every registry predictor, and one r̂2 column per
    contamination model of the registry (``r2_hat`` for the paper's, ``r2_hat_<model>`` else)."""
    lambda_pre = tuple(entry.column for entry in gcul_theory.PREDICTORS)
    r1_hat = tuple(f"r1_hat_{entry.name}" for entry in gcul_theory.PREDICTORS)
    r2_hat = tuple(contamination_column(model) for model in CONTAMINATION_MODELS)
    return lambda_pre, r1_hat, r2_hat


CONTAMINATION_MODELS: tuple[str, ...] = tuple(
    dict.fromkeys(entry.contamination for entry in gcul_theory.PREDICTORS)
)
"""The r̂2 models of :data:`gcul_theory.PREDICTORS` (``"paper"``, ``"attractor"``), registry order."""


def contamination_column(model: str) -> str:
    """The results column of r̂2 under contamination ``model``: ``r2_hat`` for the paper's
    Eq. (eq:r2_hat), ``r2_hat_<model>`` for any other.

    Examples
    --------
    >>> contamination_column("paper"), contamination_column("attractor")
    ('r2_hat', 'r2_hat_attractor')
    """
    return "r2_hat" if model == "paper" else f"r2_hat_{model}"


_LAMBDA_PRE, _R1_HAT, _R2_HAT = _predictor_columns()

CERTIFIED_COLUMNS: tuple[str, ...] = ("lambda_cert", "lambda_emp_cert", "lambda_emp_cert_noisy")
"""The certified predictor of a cell (:func:`simulations._certified_cell.certified_columns`)."""

ROW_COLUMNS: tuple[str, ...] = (
    "seed",
    "noise",
    "level",
    "flip_prob",
    "base_acc",
    "selective_acc",
    "rejection_rate",
    "lambda_emp",
    *_LAMBDA_PRE,
    *_R1_HAT,
    *_R2_HAT,
    "eps_train",
    "r1_cluster",
    "r2_cluster",
    "r1_emp",
    "r2_emp",
    *CERTIFIED_COLUMNS,
)
"""Columns of a sweep row, in CSV order (no wall time: see :data:`TIMING_COLUMNS`).

``lambda_pre_<name>`` and ``r1_hat_<name>`` for every predictor of :data:`gcul_theory.PREDICTORS`
(the paper's three first), one r̂2 column per contamination model (:func:`contamination_column`),
and the certified predictor's ``lambda_cert`` / ``lambda_emp_cert`` last.
"""

INT_COLUMNS: frozenset[str] = frozenset({"seed", "level"})
"""Columns holding integers; all others hold floats."""

_UNIT = (0.0, 1.0)
COLUMN_RANGES: dict[str, tuple[float, float]] = {
    "seed": (0, math.inf),  # a non-negative int
    "noise": (0.0, math.inf),  # σ ≥ 0, finite
    "level": (-1, math.inf),  # index in the noise grid; -1 outside a sweep
    "flip_prob": _UNIT,
    "base_acc": _UNIT,
    "selective_acc": _UNIT,
    "rejection_rate": _UNIT,
    # λ*_EMP = (ε - ε_sel)/ρ, 0 when ρ = 0. ε is the error of phase 1 and ε_sel that of phase 3,
    # another classifier, on the samples it accepts, so ε - ε_sel is not ρ times a difference of
    # two rates and λ*_EMP is not within [-1, 1]: with n_per_class = n_confusion = 40, the cell
    # (seed 1, σ = 6.4) has ε = 14/48, ρ = 7/48 and ε_sel = 18/41 (phase 3 relabels 8 accepted
    # samples), λ*_EMP = -1.0105. Only |ε - ε_sel| ≤ 1 holds, i.e. |λ*_EMP| ≤ 1/ρ, which
    # check_row checks against the row's ρ (rejection_rate).
    "lambda_emp": (-math.inf, math.inf),
    **{column: _UNIT for column in _LAMBDA_PRE},  # λ*_PRE = max(0, S_GCUL), S_GCUL ≤ 1
    **{column: _UNIT for column in _R1_HAT},  # r̂1 is clipped to [0, 1]
    **{column: _UNIT for column in _R2_HAT},  # r̂2 is clipped to [0, 1]
    "eps_train": _UNIT,
    "r1_cluster": _UNIT,
    "r2_cluster": _UNIT,
    "r1_emp": _UNIT,
    "r2_emp": _UNIT,
    "lambda_cert": _UNIT,  # λ*_CERT = sup of certified λ in [0, 1); 1 when every λ < 1 is
    # λ*_EMP of the certified model: as lambda_emp (its ρ is not in the row)
    "lambda_emp_cert": (-math.inf, math.inf),
    "lambda_emp_cert_noisy": (-math.inf, math.inf),  # the same on noisy test labels
}
"""Closed range ``(low, high)`` of every column; every value is finite (``noise`` < inf).

Accuracies, rates, shares and r̂ bounds are fractions in [0, 1]; λ*_PRE and λ*_CERT are in [0, 1];
λ*_EMP (``lambda_emp``, ``lambda_emp_cert``) is any finite number, and :func:`check_row` checks
|``lambda_emp``| ≤ 1/``rejection_rate`` (0 when nothing is rejected);
``seed`` ≥ 0, ``level`` ≥ -1, ``noise`` ≥ 0.
"""

TIMING_COLUMNS: tuple[str, ...] = ("seed", "noise", "seconds")
"""Columns of ``timings.csv``: the wall time of each cell (outside any byte-identity promise)."""


def write_csv(rows: Iterable[Mapping[str, object]], path: str | os.PathLike[str]) -> Path:
    """Write sweep rows to ``path`` (atomically: a temporary file, then ``os.replace``).

    Every row must pass :func:`check_row` (exactly the keys of :data:`ROW_COLUMNS`, every value in
    its :data:`COLUMN_RANGES`); all rows are checked before the file is touched, so a bad row
    leaves an existing file as it was. Floats are written with ``repr`` so that :func:`read_csv`
    returns them exactly. The file gets the permissions of a newly created file (``0o666`` minus
    the umask). Returns the path written.

    Raises
    ------
    ValueError
        For a row with missing or extra keys, a wrongly typed value, or a value out of range (the
        message names the row, the column, the value and the range).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> row = {c: 0.1 for c in ROW_COLUMNS} | {"seed": 16, "level": 0}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = write_csv([row], pathlib.Path(tmp) / "rows.csv")
    ...     read_csv(path) == [row]
    True
    """
    lines = [
        [repr(value) for value in check_row(row, f"row {index}").values()]
        for index, row in enumerate(rows)
    ]
    return _write_table(path, ROW_COLUMNS, lines)


def write_timings_csv(
    timings: Iterable[Mapping[str, object]], path: str | os.PathLike[str]
) -> Path:
    """Write per-cell wall times (keys :data:`TIMING_COLUMNS`) to ``path``, atomically.

    ``seed`` is a non-negative int, ``noise`` and ``seconds`` are finite floats ≥ 0. Returns the
    path written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = write_timings_csv([{"seed": 16, "noise": 0.4, "seconds": 1.5}],
    ...                              pathlib.Path(tmp) / "timings.csv")
    ...     path.read_text(encoding="utf-8").splitlines()
    ['seed,noise,seconds', '16,0.4,1.5']
    """
    lines = []
    for index, timing in enumerate(timings):
        where = f"timing {index}"
        if set(timing) != set(TIMING_COLUMNS):
            raise ValueError(f"{where}: keys must be {TIMING_COLUMNS}; got {sorted(timing)}")
        seed = timing["seed"]
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"{where}: seed must be a non-negative int; got {seed!r}")
        values: list[str] = [repr(int(seed))]
        for column in ("noise", "seconds"):
            value = _as_float(timing[column], column, where)
            if not 0.0 <= value < math.inf:
                raise ValueError(f"{where}: {column} must be a finite number >= 0; got {value!r}")
            values.append(repr(value))
        lines.append(values)
    return _write_table(path, TIMING_COLUMNS, lines)


def read_csv(path: str | os.PathLike[str]) -> list[dict[str, int | float]]:
    """Read rows written by :func:`write_csv`, typed back (``int`` for ``seed``/``level``).

    Raises ``ValueError`` if the header is not :data:`ROW_COLUMNS`, a value does not parse or a
    value is outside its :data:`COLUMN_RANGES` (the message names the line).
    """
    path = Path(path)
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None or tuple(header) != ROW_COLUMNS:
            raise ValueError(f"{path}: header must be the columns {ROW_COLUMNS}; got {header}")
        rows = []
        for line_number, values in enumerate(reader, start=2):
            if len(values) != len(ROW_COLUMNS):
                raise ValueError(
                    f"{path}, line {line_number}: expected {len(ROW_COLUMNS)} values, "
                    f"got {len(values)}"
                )
            where = f"{path}, line {line_number}"
            row = {
                column: _parse(column, text, where)
                for column, text in zip(ROW_COLUMNS, values, strict=True)
            }
            rows.append(check_row(row, where))
    return rows


def to_columns(rows: Sequence[Mapping[str, object]]) -> dict[str, np.ndarray]:
    """Turn rows into one array per column (``int64`` for ``seed``/``level``, else ``float64``).

    Examples
    --------
    >>> rows = [{c: 0.5 for c in ROW_COLUMNS} | {"seed": s, "level": 0} for s in (10, 11)]
    >>> to_columns(rows)["seed"].tolist(), to_columns(rows)["base_acc"].dtype
    ([10, 11], dtype('float64'))
    """
    return {
        column: np.array(
            [row[column] for row in rows],
            dtype=np.int64 if column in INT_COLUMNS else np.float64,
        )
        for column in ROW_COLUMNS
    }


def normalize_row(row: Mapping[str, object]) -> dict[str, int | float]:
    """Check a row's keys and turn its values into Python ``int``/``float`` in column order.

    Only keys and types are checked; :func:`check_row` also checks every value's range.
    """
    return dict(zip(ROW_COLUMNS, _typed_values(row, "row"), strict=True))


def check_row(row: Mapping[str, object], where: str = "row") -> dict[str, int | float]:
    """Validate one sweep row and return it normalised (Python types, column order).

    Parameters
    ----------
    row : mapping
        Exactly the keys of :data:`ROW_COLUMNS`.
    where : str, optional
        How to name the row in an error message (e.g. ``"row 3"`` or a file and line).

    Returns
    -------
    dict
        The row, ``int`` for :data:`INT_COLUMNS` and ``float`` for the others.

    Raises
    ------
    ValueError
        For missing or extra keys, a value of the wrong type, NaN, or a value outside the column's
        range in :data:`COLUMN_RANGES` (the message names the column, the value and the range).

    Examples
    --------
    >>> row = {c: 0.5 for c in ROW_COLUMNS} | {"seed": 16, "level": 0}
    >>> check_row(row)["base_acc"]
    0.5
    >>> check_row(row | {"base_acc": 1.5})
    Traceback (most recent call last):
    ...
    ValueError: row: base_acc must be in [0.0, 1.0]; got 1.5
    """
    normalized = dict(zip(ROW_COLUMNS, _typed_values(row, where), strict=True))
    for column, value in normalized.items():
        low, high = COLUMN_RANGES[column]
        if not (low <= value <= high and math.isfinite(value)):
            if column in INT_COLUMNS:
                allowed = f"an int >= {low}"
            elif low == -math.inf and high == math.inf:
                allowed = "a finite number"
            elif high == math.inf:
                allowed = f"a finite number >= {low}"
            else:
                allowed = f"in [{low}, {high}]"
            raise ValueError(f"{where}: {column} must be {allowed}; got {value!r}")
    rho, lambda_emp = normalized["rejection_rate"], normalized["lambda_emp"]
    if abs(lambda_emp) * rho > 1.0 + 1e-12 or (rho == 0.0 and lambda_emp != 0.0):
        raise ValueError(
            f"{where}: lambda_emp must be in [-1/rejection_rate, 1/rejection_rate] (0 when "
            f"rejection_rate is 0); got {lambda_emp!r} with rejection_rate {rho!r}"
        )
    return normalized


def _typed_values(row: Mapping[str, object], where: str) -> list[int | float]:
    if not isinstance(row, Mapping):
        raise ValueError(f"{where}: must be a mapping of ROW_COLUMNS; got {type(row).__name__}")
    keys = set(row)
    if keys != set(ROW_COLUMNS):
        missing = [c for c in ROW_COLUMNS if c not in keys]
        extra = sorted(keys - set(ROW_COLUMNS))
        raise ValueError(f"{where}: keys must be ROW_COLUMNS; missing {missing}, extra {extra}")
    values: list[int | float] = []
    for column in ROW_COLUMNS:
        value = row[column]
        if column in INT_COLUMNS:
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise ValueError(f"{where}: {column} must be an int; got {value!r}")
            values.append(int(value))
        else:
            values.append(_as_float(value, column, where))
    return values


def _as_float(value: object, column: str, where: str) -> float:
    """``float(value)`` for a real number (not a bool or a string); else a ValueError."""
    if isinstance(value, (bool, str, bytes)) or not isinstance(value, (int, float, np.number)):
        raise ValueError(f"{where}: {column} must be a float; got {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{where}: {column} must be a float; got {value!r}") from None


def _parse(column: str, text: str, where: str) -> int | float:
    try:
        return int(text) if column in INT_COLUMNS else float(text)
    except ValueError:
        kind = "an int" if column in INT_COLUMNS else "a float"
        raise ValueError(f"{where}: {column} must be {kind}; got {text!r}") from None


# --------------------------------------------------------------------------------------------
# Writing files atomically, with the permissions of an ordinary new file, never through a link

_UMASK_LOCK = threading.Lock()

_TEMPORARY = re.compile(r"\.(?P<name>.+)\.[a-z0-9_]{8}\.tmp")
"""The name of a temporary file of :func:`atomic_write_bytes`: ``.<destination>.<8 random>.tmp``
(:func:`tempfile.mkstemp`'s random part is 8 characters of ``[a-z0-9_]``)."""

WRITE_PROBE_PREFIX = ".gcul-write-test-"
"""Prefix of the empty file created (and at once removed) to check that a folder is writable."""


def current_umask() -> int:
    """The process umask, read without changing it where the OS allows (Linux ``/proc``).

    Elsewhere it is read by setting a strict umask (``0o077``) and restoring it at once, under a
    lock; a file created by another thread in that instant gets stricter, never looser, rights.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _UMASK_LOCK:
        umask = os.umask(0o077)
        os.umask(umask)
    return umask


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and ``os.replace``.

    Every output of ``gcul reproduce`` and every cache cell is written this way, so that no
    reader, and no later run, ever sees a partly written file, whatever kills the process.

    Parameters
    ----------
    path : path
        The destination. Its folder must exist.
    data : bytes
        The whole content.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    OSError
        When the folder cannot hold the file (no space, read-only, a folder at ``path``, ...);
        ``filename`` is ``path`` (not the temporary file) and ``path`` is as it was.

    Notes
    -----
    - The temporary file ``.<name>.<8 random characters>.tmp`` is created with ``O_EXCL`` (by
      :func:`tempfile.mkstemp`), so nothing already there, a symbolic link included, is opened.
    - ``os.replace`` swaps the directory entry: a symbolic link at ``path`` is replaced by the new
      file and the file it pointed to is never opened nor changed; a FIFO or a socket there is
      replaced the same way. A folder at ``path`` is refused (``IsADirectoryError``).
    - The data are flushed to the disk (``fsync``) before the rename, so after an operating-system
      crash ``path`` holds either its old or its new content, not an empty file.
    - The file gets mode ``0o666 & ~umask`` (as ``open(path, "w")`` would give), not the ``0o600``
      of :func:`tempfile.mkstemp`.
    - On any failure, an exception or an interrupt (``KeyboardInterrupt``), the temporary file is
      removed; after ``kill -9`` it stays behind, and :func:`remove_stale_temporaries` removes it.

    Examples
    --------
    >>> import os, tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     folder = pathlib.Path(tmp)
    ...     _ = (folder / "victim").write_text("keep me")
    ...     os.symlink(folder / "victim", folder / "out.txt")
    ...     _ = atomic_write_bytes(folder / "out.txt", b"new")
    ...     (folder / "victim").read_text(), (folder / "out.txt").is_symlink()
    ('keep me', False)
    """
    path = Path(path)
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be bytes; got {type(data).__name__}")
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise _naming(error, path) from None
    try:
        try:
            os.chmod(tmp, 0o666 & ~current_umask())
            _write_all(fd, data)
            _flush_to_disk(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException as error:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise _naming(error, path) from None
        raise
    return path


def atomic_write_text(path: str | os.PathLike[str], text: str) -> Path:
    r"""Write ``text`` (UTF-8, newlines as given) to ``path`` with :func:`atomic_write_bytes`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = atomic_write_text(pathlib.Path(tmp) / "a.txt", "σ\n")
    ...     path.read_bytes()
    b'\xcf\x83\n'
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str; got {type(text).__name__}")
    return atomic_write_bytes(path, text.encode("utf-8"))


def _write_all(fd: int, data: bytes) -> None:
    """``os.write`` until every byte is written (a write may be short)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _flush_to_disk(fd: int) -> None:
    try:
        os.fsync(fd)
    except OSError as error:  # a file system that cannot sync (some FUSE/network mounts)
        if error.errno not in (errno.EINVAL, errno.ENOTSUP):
            raise


def _naming(error: OSError, path: Path) -> OSError:
    """The same error (class, errno, text), naming ``path`` rather than a temporary file."""
    if error.errno is None:
        return error
    return type(error)(error.errno, error.strerror or os.strerror(error.errno), str(path))


def remove_stale_temporaries(
    folder: str | os.PathLike[str], is_destination: Callable[[str], bool]
) -> list[Path]:
    """Remove the temporary files that an earlier, killed writer left in ``folder``.

    Call it only while holding the lock of ``folder`` (:func:`lock_folder`): a temporary file of
    a live writer must not be removed.

    Parameters
    ----------
    folder : path
        The folder to clean (a missing folder has nothing to clean).
    is_destination : callable
        ``is_destination(name)`` is true for the names of the files this folder's writer writes;
        only their temporary files (``.<name>.<8 random>.tmp``, see :func:`atomic_write_bytes`)
        and the folder's write probes (:data:`WRITE_PROBE_PREFIX`) are removed, and only regular
        files or symbolic links (a link is removed, never followed).

    Returns
    -------
    list of Path
        The files removed.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     folder = pathlib.Path(tmp)
    ...     for name in (".results.csv.abcd1234.tmp", ".notes.txt.abcd1234.tmp", "keep.tmp"):
    ...         _ = (folder / name).write_text("")
    ...     removed = remove_stale_temporaries(folder, lambda name: name == "results.csv")
    ...     [p.name for p in removed], sorted(p.name for p in folder.iterdir())
    (['.results.csv.abcd1234.tmp'], ['.notes.txt.abcd1234.tmp', 'keep.tmp'])
    """
    removed = []
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return removed
    for entry in entries:
        match = _TEMPORARY.fullmatch(entry.name)
        stale = entry.name.startswith(WRITE_PROBE_PREFIX) or bool(
            match and is_destination(match["name"])
        )
        if not stale or entry.is_dir(follow_symlinks=False):
            continue
        try:
            os.unlink(entry.path)
        except FileNotFoundError:
            continue
        removed.append(Path(entry.path))
    return removed


def check_writable(folder: str | os.PathLike[str]) -> None:
    """Create and remove an empty file in ``folder``; an ``OSError`` if that is not possible.

    (``os.access`` answers for the real user id and ignores read-only mounts; this asks the file
    system itself.)
    """
    fd, probe = tempfile.mkstemp(dir=folder, prefix=WRITE_PROBE_PREFIX)
    os.close(fd)
    with contextlib.suppress(FileNotFoundError):  # removed as stale by a cleaning process
        os.unlink(probe)


# --------------------------------------------------------------------------------------------
# A lock on a folder

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_WINDOWS_LOCK_OFFSET = 1 << 30  # msvcrt locks a byte range; past the holder's text


class FolderInUseError(RuntimeError):
    """Another process holds the lock of a folder (see :func:`lock_folder`).

    Attributes
    ----------
    folder : Path
        The folder.
    holder : str
        Who holds it, as the holder wrote it: ``"gcul reproduce, pid 123 on HOST, started
        2025-01-31T12:00:00+01:00"`` (``"another process"`` if it could not be read).
    """

    def __init__(self, folder: Path, holder: str) -> None:
        super().__init__(f"{str(folder)!r} is in use by {holder}")
        self.folder, self.holder = folder, holder


@contextlib.contextmanager
def lock_folder(
    folder: str | os.PathLike[str], name: str, purpose: str, *, shared: bool = False
) -> Iterator[bool]:
    """Hold the lock of ``folder`` (its lock file ``name``) for the duration of the block.

    Parameters
    ----------
    folder : path
        An existing folder.
    name : str
        The lock file's name in ``folder``, e.g. ``".gcul-reproduce.lock"``: one name per kind of
        holder, so that a process may hold two locks on one folder.
    purpose : str
        What holds the lock, written into the lock file so that a refused process can name the
        holder (with the pid, the host name and the start time).
    shared : bool, optional
        ``False`` (default): an exclusive lock, refused at once (:class:`FolderInUseError`) while
        any other process holds the lock. ``True``: a shared lock, which other shared holders may
        hold too; if it can first be taken exclusively (no other holder: every temporary file in
        the folder is stale), the block is told so.

    Yields
    ------
    bool
        True when the lock was taken exclusively (at least at first), so no other process writes
        in ``folder`` through this lock; the caller may then call :func:`remove_stale_temporaries`.

    Raises
    ------
    FolderInUseError
        An exclusive lock while another process holds the lock (its ``holder`` names it).
    OSError
        The lock file cannot be created or opened; a lock file that is a symbolic link, a folder
        or another non-regular file is refused (``filename`` is the lock file), never followed.

    Notes
    -----
    POSIX ``flock``: the kernel releases the lock when its process ends, however it ends (also
    ``kill -9``), so there is never a stale lock to remove by hand. The lock file is opened
    close-on-exec, so worker processes do not inherit (and keep) it. An exclusive holder removes
    the lock file when it is done (a file left by a killed holder is simply locked again); a
    process that locked a file just removed that way notices it and locks the new one. A shared
    lock file stays. Where ``fcntl`` is missing (Windows), ``msvcrt.locking`` takes an exclusive
    lock on one byte (released by the OS when the process ends; the file stays) and a shared lock
    is not taken (its block gets False).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with lock_folder(tmp, ".example.lock", "an example") as exclusive:
    ...         exclusive
    True
    """
    folder = Path(folder)
    path = folder / name
    if fcntl is None and shared:  # pragma: no cover - Windows has no shared lock here
        yield False
        return
    for _ in range(_LOCK_ATTEMPTS):
        fd = _open_lock_file(path)
        try:
            exclusive = _try_lock(fd, exclusive=True)
            if not exclusive:
                if not shared:
                    raise FolderInUseError(folder, _read_holder(fd))
                fcntl.flock(fd, fcntl.LOCK_SH)  # waits only while a holder cleans up (moments)
        except BaseException:
            os.close(fd)
            raise
        if _is_file_at(fd, path):
            break
        os.close(fd)  # the holder removed this file as we locked it: lock the new one
    else:  # pragma: no cover - a lock file that keeps vanishing
        raise OSError(errno.EAGAIN, "the lock file keeps being removed", str(path))
    try:
        if exclusive:
            started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
            holder = f"{purpose}, pid {os.getpid()} on {socket.gethostname()}, started {started}"
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
            _write_all(fd, (holder + "\n").encode("utf-8", "replace"))
            if shared:
                fcntl.flock(fd, fcntl.LOCK_SH)  # let other shared holders in from now on
        yield exclusive
    finally:
        if not shared and fcntl is not None and _is_file_at(fd, path):
            os.unlink(path)  # while still locked; a waiting process then locks a new file
        os.close(fd)  # releases the lock


_LOCK_ATTEMPTS = 100


def _open_lock_file(path: Path) -> int:
    """Open (creating it) the lock file ``path``: a regular file, never through a link."""
    flags = os.O_RDWR | os.O_CREAT | _O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0)
    try:
        if _O_NOFOLLOW == 0 and path.is_symlink():  # pragma: no cover - no O_NOFOLLOW
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path))
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise OSError(error.errno, "a symbolic link, not gcul's lock file", str(path)) from None
        if error.errno == errno.EISDIR:
            raise OSError(error.errno, "a folder, not gcul's lock file", str(path)) from None
        raise _naming(error, path) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file, so not gcul's lock file", str(path))
    return fd


def _is_file_at(fd: int, path: Path) -> bool:
    """Whether ``path`` still names the file open as ``fd`` (not removed, not replaced)."""
    try:
        here = os.lstat(path)
    except FileNotFoundError:
        return False
    there = os.fstat(fd)
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _try_lock(fd: int, exclusive: bool) -> bool:
    if fcntl is not None:
        try:
            fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True
    import msvcrt  # pragma: no cover - Windows

    os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)  # pragma: no cover
    try:  # pragma: no cover
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except OSError:  # pragma: no cover
        return False
    return True  # pragma: no cover


def _read_holder(fd: int) -> str:
    try:
        text = os.pread(fd, 4096, 0) if hasattr(os, "pread") else b""
        holder = text.decode("utf-8", "replace").strip().splitlines()
    except OSError:
        holder = []
    return holder[0] if holder and holder[0].strip() else "another process"


def _write_table(
    path: str | os.PathLike[str], header: Sequence[str], lines: list[list[str]]
) -> Path:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(lines)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write_text(path, buffer.getvalue())
