"""The on-disk cell cache of the sweep: one checksummed JSON file per finished cell.

Every cached cell carries its own identity (seed, σ, the protocol config, a fingerprint of the code
that computed it) and a SHA-256 checksum of its canonical payload; a cache file that does not
verify, or whose values leave their documented ranges, is recomputed and reported on stderr. Only a
regular file of at most :data:`CELL_MAX_BYTES` is read, never through a link, never blocking.
"""

from __future__ import annotations

import dataclasses
import errno
import hashlib
import importlib
import json
import math
import os
from collections.abc import Set
from pathlib import Path

import numpy as np
import scipy

from simulations.outputs import atomic_write_text, check_writable, mode_kind
from simulations.results import NULLABLE_COLUMNS, ROW_COLUMNS, check_row
from simulations.synthetic import SyntheticConfig

__all__ = [
    "CACHE_LOCK",
    "CACHE_VERSION",
    "CELL_MAX_BYTES",
    "CODE_PACKAGES",
    "CellCache",
    "cache_key",
    "canonical_json",
    "checksummed",
    "code_fingerprint",
    "describe_rejected",
    "is_cell_name",
    "prepare_cache_dir",
    "read_cell_file",
    "read_checksummed",
    "unwritable",
]

CELL_MAX_BYTES = 1 << 20
"""Largest cache cell file that is read (1 MiB; a cell file is about 2 KB). A larger file, or
anything that is not a regular file (a folder, a FIFO, a device, a symbolic link), is not read: it
is reported and the cell recomputed."""

CACHE_LOCK = ".gcul-cache.lock"
"""The lock file a sweep keeps in its cache folder (see :func:`simulations.sweep.run_sweep`)."""

CACHE_VERSION = 6
"""Bump when the meaning of a cached row changes (columns, definitions, file format).

2: no ``seconds`` column in a row (the cell's wall time is stored beside it); identity and SHA-256
checksum in every cell file.
3: every registry predictor (``lambda_pre_<name>``, ``r1_hat_<name>``), ``r2_hat_attractor``, and
the certified fit (``lambda_cert``, ``lambda_emp_cert``).
4: ``lambda_emp_cert_noisy`` (the certified model's λ*_EMP on noisy test labels).
5: ``error_pool`` in the identity of a cell (what its λ*_PRE's error pool is judged against;
now the ``geometry_labels`` argument, still stored under this key).
6: the rejectors' columns (``sel_risk_<r>``, ``aurc_<r>``, Chow's rule, ``ujoint_gcul``; issue 16);
a NaN of :data:`simulations.results.NULLABLE_COLUMNS` is stored as JSON ``null``.
"""

CODE_PACKAGES: tuple[str, ...] = ("simulations", "gcul_theory")
"""The packages whose source decides a row: every ``.py`` file under their folders (found by
walking them, subfolders included, not from a list of names) is hashed into the cache key, so
editing, adding, moving or removing any of them invalidates cached cells instead of silently
reusing them."""

_CELL_FORMAT = "gcul-sweep-cell"
_CELL_KEYS = frozenset(
    {
        "format",
        "cache_version",
        "key",
        "code",
        "config",
        "seed",
        "noise",
        "error_pool",
        "row",
        "seconds",
    }
)


class CellCache:
    """One JSON file per finished cell, keyed by (seed, σ, config, geometry labels, code version).

    A file is ``{"sha256": <hex>, "payload": {...}}``. The payload names the cell (``seed``,
    ``noise``, ``config``, ``code`` fingerprint, the cache ``key`` derived from them and the
    versions, ``cache_version``) and holds its ``row`` (without ``level``, which belongs to a
    grid, not a cell) and ``seconds`` (the wall time of the cell). The checksum is the SHA-256 of
    the canonical JSON of the payload (sorted keys, no spaces, no NaN), so any edit to the file
    shows. The checksum catches corruption and edits, not a forger who recomputes it; the range
    check on every value still applies.
    """

    def __init__(
        self, directory: Path, config: SyntheticConfig, geometry_labels: str = "observed"
    ) -> None:
        self.directory = directory
        self.config = dataclasses.asdict(config)
        self.geometry_labels = geometry_labels
        self.flip_per_noise = config.flip_per_noise
        self.code = code_fingerprint()
        self.key = cache_key(config, self.code, geometry_labels)

    def path(self, seed: int, noise: float) -> Path:
        """Where the file of cell ``(seed, noise)`` goes."""
        return self.directory / f"cell-{self.key[:16]}-seed{seed}-noise{noise!r}.json"

    def load(self, seed: int, noise: float) -> tuple[dict[str, int | float], float] | str | None:
        """``(row, seconds)`` of a verified cached cell; None if there is no file; else the reason
        the file was not trusted (a short phrase)."""
        payload = read_checksummed(self.path(seed, noise), _CELL_KEYS, "cell")
        if payload is None or isinstance(payload, str):
            return payload
        return self._verify(payload, seed, noise)

    def _verify(
        self, payload: dict, seed: int, noise: float
    ) -> tuple[dict[str, int | float], float] | str:
        for name, expected in self._identity(seed, noise).items():
            value = payload[name]
            if value != expected or type(value) is not type(expected):
                return f"belongs to another cell ({name} differs)"
        stored = payload["row"]
        if not isinstance(stored, dict) or "level" in stored:
            return "not a gcul cell file"
        stored = _from_json_row(stored)
        try:
            row = check_row({**stored, "level": -1}, "cached row")
        except ValueError as error:
            return f"bad value: {str(error).removeprefix('cached row: ')}"
        if row["seed"] != seed or row["noise"] != noise:
            return "belongs to another cell (row seed/noise differ)"
        if row["flip_prob"] != self.flip_per_noise * noise:
            return "belongs to another cell (flip_prob differs)"
        elapsed = payload["seconds"]
        if type(elapsed) is not float or not 0.0 <= elapsed < math.inf:
            return f"bad value: seconds must be a finite float >= 0; got {elapsed!r}"
        return row, elapsed

    def _identity(self, seed: int, noise: float) -> dict:
        """What a cell file must carry to be this cell of this sweep's config and code."""
        return {
            "format": _CELL_FORMAT,
            "cache_version": CACHE_VERSION,
            "key": self.key,
            "code": self.code,
            "config": self.config,
            "seed": seed,
            "noise": noise,
            # the choice keeps the key of its former name, error_pool: renaming the key would
            # change every cell file's format for no gain
            "error_pool": self.geometry_labels,
        }

    def store(self, row: dict[str, int | float], seconds: float) -> None:
        seed, noise = int(row["seed"]), float(row["noise"])
        payload = {
            **self._identity(seed, noise),
            "row": _to_json_row(row),
            "seconds": float(seconds),
        }
        document = checksummed(payload)
        path = self.path(seed, noise)
        if path.is_dir() and not path.is_symlink():  # os.replace cannot replace a folder
            try:
                path.rmdir()  # an empty folder in the way of the cell: nothing is lost
            except OSError:
                raise IsADirectoryError(
                    errno.EISDIR,
                    "a folder that is not empty is where this cell goes; remove it",
                    str(path),
                ) from None
        atomic_write_text(path, json.dumps(document, indent=1) + "\n")


# NaN (the rejectors' columns of a cell where GCUL accepts nothing) as JSON null, and back: the
# canonical JSON that is hashed refuses NaN. Only NULLABLE_COLUMNS may come back as NaN.
def _to_json_row(row: dict[str, int | float]) -> dict[str, int | float | None]:
    return {
        column: None if isinstance(value, float) and math.isnan(value) else value
        for column, value in row.items()
        if column != "level"
    }


def _from_json_row(stored: dict) -> dict:
    return {
        column: math.nan if value is None and column in NULLABLE_COLUMNS else value
        for column, value in stored.items()
    }


def read_cell_file(path: Path, max_bytes: int = CELL_MAX_BYTES) -> bytes | str | None:
    """The bytes of a cache cell file; None if there is none; else why it is not read.

    Only a regular file of at most ``max_bytes`` (:data:`CELL_MAX_BYTES` by default) is read,
    opened without following a symbolic link and without blocking: a FIFO cell hung
    ``read_text`` forever, a cell linked to ``/dev/zero`` was read to 2.46 GB, and a 1 GB cell
    was read whole.
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        return f"unreadable ({error.strerror or type(error).__name__})"
    kind = mode_kind(info.st_mode)
    if kind != "a regular file":
        return f"{kind}, not a cell file"
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        return None
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "a symbolic link, not a cell file"
        return f"unreadable ({error.strerror or type(error).__name__})"
    try:
        info = os.fstat(fd)  # what was opened (it may have been swapped since the lstat)
        kind = mode_kind(info.st_mode)
        if kind != "a regular file":
            return f"{kind}, not a cell file"
        if info.st_size > max_bytes:
            return f"too large ({info.st_size} bytes; a cell file is at most {max_bytes})"
        chunks, size = [], 0
        while size <= max_bytes:
            chunk = os.read(fd, max_bytes + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > max_bytes:  # it grew while being read
            return f"too large (over {max_bytes} bytes)"
        return b"".join(chunks)
    except OSError as error:
        return f"unreadable ({error.strerror or type(error).__name__})"
    finally:
        os.close(fd)


def checksummed(payload: dict) -> dict:
    """``{"sha256": ..., "payload": payload}``: the document of a cache file, its checksum the
    SHA-256 of :func:`canonical_json` of ``payload`` (what :func:`read_checksummed` verifies)."""
    return {"sha256": hashlib.sha256(canonical_json(payload)).hexdigest(), "payload": payload}


def read_checksummed(
    path: Path, keys: Set[str], kind: str, max_bytes: int = CELL_MAX_BYTES
) -> dict | str | None:
    """The verified payload of a checksummed cache file; None if there is none; else why not.

    The file is read as :func:`read_cell_file` reads it; it must be UTF-8 JSON of the form
    :func:`checksummed` writes, its payload an object with exactly the keys ``keys`` and the
    checksum of its canonical JSON. What the payload's values mean is the caller's to check.
    The sweep's cells and :func:`simulations.compare.compare`'s splits are such files.

    Parameters
    ----------
    path : Path
        The file.
    keys : set of str
        The payload's keys.
    kind : str
        What the file holds (``"cell"``, ``"split"``), for the reasons.
    max_bytes : int, default CELL_MAX_BYTES
        The largest file that is read.

    Returns
    -------
    dict or str or None
        The payload; None when there is no file; else the reason the file is not trusted, a
        short phrase (e.g. ``"checksum mismatch"``, ``"not a gcul cell file"``).

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "cell.json"
    >>> _ = path.write_text(json.dumps(checksummed({"seed": 16})))
    >>> read_checksummed(path, {"seed"}, "cell")
    {'seed': 16}
    >>> _ = path.write_text(json.dumps({"sha256": "0", "payload": {"seed": 16}}))
    >>> read_checksummed(path, {"seed"}, "cell")
    'checksum mismatch'
    """
    data = read_cell_file(path, max_bytes)
    if data is None or isinstance(data, str):
        return data
    try:
        document = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        return "not UTF-8 text"
    except ValueError:
        return "not valid JSON"
    except RecursionError:  # '[' * 100000 + ']' * 100000 raised it on every rerun
        return f"not a gcul {kind} file (nested too deeply)"
    if not isinstance(document, dict) or set(document) != {"sha256", "payload"}:
        return f"not a gcul {kind} file"
    payload = document["payload"]
    if not isinstance(payload, dict) or set(payload) != keys:
        return f"not a gcul {kind} file"
    try:
        canonical = canonical_json(payload)
    except ValueError:
        return "NaN or infinity in the file"
    except RecursionError:
        return f"not a gcul {kind} file (nested too deeply)"
    if document["sha256"] != hashlib.sha256(canonical).hexdigest():
        return "checksum mismatch"
    return payload


def is_cell_name(name: str) -> bool:
    """Whether ``name`` is the name of a cache cell file (see :meth:`CellCache.path`)."""
    return name.startswith("cell-") and name.endswith(".json")


def canonical_json(payload: dict) -> bytes:
    """The bytes that are hashed: sorted keys, no whitespace, ASCII, NaN/inf refused."""
    return json.dumps(
        payload, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    ).encode("ascii")


def describe_rejected(rejected: list[tuple[Path, str]]) -> str:
    """One stderr line for the cache files that did not verify."""
    shown = "; ".join(f"{path.name}: {reason}" for path, reason in rejected[:3])
    more = f"; and {len(rejected) - 3} more" if len(rejected) > 3 else ""
    return (
        f"sweep: {len(rejected)} cached cell(s) did not verify and are recomputed ({shown}{more})"
    )


def cache_key(config: SyntheticConfig, code: str, geometry_labels: str = "observed") -> str:
    """SHA-256 of what makes the cells of a sweep the same: the cache version, the columns, the
    protocol ``config``, the ``code`` fingerprint, the ``geometry_labels`` reading (under the
    key of its former name, ``error_pool``, so that the same code gives the same key) and the
    NumPy and SciPy versions."""
    description = {
        "cache_version": CACHE_VERSION,
        "columns": list(ROW_COLUMNS),
        "config": dataclasses.asdict(config),
        "code": code,
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "error_pool": geometry_labels,
    }
    return hashlib.sha256(json.dumps(description, sort_keys=True).encode()).hexdigest()


def code_fingerprint() -> str:
    """SHA-256 of the path (relative to its package) and the bytes of every ``.py`` file under
    the folders of :data:`CODE_PACKAGES`, in sorted order."""
    files: list[tuple[str, Path]] = []
    for package in CODE_PACKAGES:
        for location in importlib.import_module(package).__path__:
            root = Path(location)
            files += [
                (f"{package}/{path.relative_to(root).as_posix()}", path)
                for path in root.rglob("*.py")
                if path.is_file()
            ]
    digest = hashlib.sha256()
    for name, path in sorted(files):
        digest.update(name.encode() + b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def prepare_cache_dir(path: Path) -> Path:
    """Create the cache folder ``path`` if needed; a ValueError if it cannot be a folder.

    Its writability is checked when the sweep runs, only when a cell is missing from it.
    """
    if path.is_symlink() and not path.exists():
        raise ValueError(
            f"cache_dir {str(path)!r} is a symbolic link to {os.readlink(path)!r}, which does not "
            "exist; create that folder or give another cache_dir"
        )
    if path.exists() and not path.is_dir():
        kind = mode_kind(path.stat().st_mode)
        raise ValueError(f"cache_dir must be a directory; {str(path)!r} is {kind}")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise ValueError(f"cache_dir {str(path)!r} is not a writable directory: {reason}") from None
    return path


def unwritable(folder: Path) -> str | None:
    """None if a file can be created in ``folder``, else the reason (e.g. "Permission denied")."""
    try:
        check_writable(folder)
    except OSError as error:
        return error.strerror or type(error).__name__
    return None
