"""The on-disk split cache of :func:`simulations.compare.compare`: one checksummed JSON file per
finished split, so that a run stopped by a dead worker, Ctrl-C or ``kill -9`` loses no finished
split and a rerun resumes.

It is the sweep's cell cache (:mod:`simulations.sweep.cache`) for another unit of work, and uses
its parts: the canonical JSON that is hashed and the SHA-256 checksum around it, written and
verified by the same functions (:func:`~simulations.sweep.cache.checksummed`,
:func:`~simulations.sweep.cache.read_checksummed`, whose read of a cache file is
:func:`~simulations.sweep.cache.read_cell_file`'s: a regular file of bounded size, never through a
link, never blocking), the fingerprint of the code, the atomic write
(:func:`~simulations.outputs.atomic_write_text`) and the folder's shared lock
(:func:`~simulations.outputs.lock_folder`), whose first holder removes what a killed writer left.

A split's file is named by everything its numbers depend on: the run's key (the data's
fingerprint: the bytes, dtype and shape of ``Z``, of the fit labels and of the scored labels; λ;
the seed; GCUL's error pool; ``standardize``; the rejectors compared; the code and the NumPy,
SciPy and scikit-learn versions) and the split itself (its index and a hash of its training and
test rows, which ``splits`` and ``test_size`` decide). The options that only summarise the
splits (``level``, ``delta``, ``calibration``, ``target_risk``) are not part of it: a rerun with
another ``level`` reuses every split.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from simulations.outputs import atomic_write_text
from simulations.sweep.cache import (
    CELL_MAX_BYTES,
    canonical_json,
    checksummed,
    code_fingerprint,
    read_checksummed,
)

__all__ = [
    "SPLIT_CACHE_VERSION",
    "SPLIT_LOCK",
    "SplitCache",
    "data_fingerprint",
    "is_split_name",
]

SPLIT_CACHE_VERSION = 1
"""Bump when the meaning of a cached split changes (what a split measures, the file format)."""

SPLIT_LOCK = ".gcul-compare-cache.lock"
"""The lock file a comparison keeps (shared) in its cache folder while it runs."""

_FORMAT = "gcul-compare-split"
_MEASURES = frozenset({"natural", "coverage", "sel_risk", "aurc", "u", "u_joint"})
_BYTES_PER_CURVE_VALUE = 64  # a float in JSON takes at most 24 characters, and ", "


def data_fingerprint(*arrays: np.ndarray) -> str:
    """SHA-256 of the dtype, the shape and the bytes of each array, in order (C-contiguous
    arrays are hashed in place, without a copy)."""
    digest = hashlib.sha256()
    for array in arrays:
        array = np.ascontiguousarray(array)
        digest.update(f"{array.dtype.str}{array.shape}".encode() + b"\0")
        digest.update(array.data.cast("B"))  # the buffer itself, no copy
        digest.update(b"\0")
    return digest.hexdigest()


def is_split_name(name: str) -> bool:
    """Whether ``name`` is the name of a split file (see :meth:`SplitCache.path`)."""
    return name.startswith("split-") and name.endswith(".json")


class SplitCache:
    """One JSON file per finished split of one comparison (see the module's description).

    Parameters
    ----------
    directory : Path
        An existing folder.
    identity : dict
        What makes two runs' splits the same, JSON-serialisable (:func:`data_fingerprint` of the
        data, λ, the seed, the options, the rejectors); the code and library versions are added.
    n_curve_values : int
        How many numbers the first split's risk–coverage curves hold at most: a file is read only
        up to :data:`~simulations.sweep.cache.CELL_MAX_BYTES` plus 64 bytes for each.
    """

    def __init__(self, directory: Path, identity: dict, n_curve_values: int) -> None:
        import scipy
        import sklearn

        self.directory = Path(directory)
        self.identity = {
            **identity,
            "format": _FORMAT,
            "version": SPLIT_CACHE_VERSION,
            "code": code_fingerprint(),
            "numpy": np.__version__,
            "scipy": scipy.__version__,
            "sklearn": sklearn.__version__,
        }
        self.key = hashlib.sha256(canonical_json(self.identity)).hexdigest()
        self.max_bytes = CELL_MAX_BYTES + _BYTES_PER_CURVE_VALUE * int(n_curve_values)

    @staticmethod
    def _split_hash(train: np.ndarray, test: np.ndarray) -> str:
        return data_fingerprint(np.asarray(train, np.int64), np.asarray(test, np.int64))

    def path(self, index: int, train: np.ndarray, test: np.ndarray) -> Path:
        """Where the file of split ``index`` (of rows ``train``, ``test``) goes."""
        parts = self._split_hash(train, test)
        return self.directory / f"split-{self.key[:16]}-{index}-{parts[:16]}.json"

    def load(self, index: int, train: np.ndarray, test: np.ndarray) -> dict | str | None:
        """The measurements of a verified cached split; None if there is no file; else the
        reason the file was not trusted (a short phrase)."""
        expected = self._payload_identity(index, train, test)
        path = self.path(index, train, test)
        payload = read_checksummed(path, {*expected, "measured"}, "split", self.max_bytes)
        if payload is None or isinstance(payload, str):
            return payload
        for name, value in expected.items():
            if payload[name] != value:
                return f"belongs to another split ({name} differs)"
        try:
            measured = _decode(payload["measured"])
            _check_measured(measured, want_curves=index == 0)
        except (KeyError, TypeError, ValueError) as error:
            return f"bad value ({error})"
        return measured

    def store(self, index: int, train: np.ndarray, test: np.ndarray, measured: dict) -> None:
        """Write split ``index``'s measurements, atomically (a temporary file, then a rename)."""
        payload = {**self._payload_identity(index, train, test), "measured": encode(measured)}
        document = json.dumps(checksummed(payload), separators=(",", ":"))
        atomic_write_text(self.path(index, train, test), document + "\n")

    def forget(self, index: int, train: np.ndarray, test: np.ndarray) -> None:
        """Remove split ``index``'s file, if there is one."""
        try:
            os.unlink(self.path(index, train, test))
        except FileNotFoundError:
            pass

    def _payload_identity(self, index: int, train: np.ndarray, test: np.ndarray) -> dict:
        return {
            "key": self.key,
            "identity": self.identity,
            "index": int(index),
            "split": self._split_hash(train, test),
        }


def encode(value: Any) -> Any:
    """``value`` (a split's measurements) as JSON data that :func:`_decode` turns back into the
    same types and bits: a non-finite float, an array, a tuple and a dict are tagged."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else {"float": repr(value)}
    if isinstance(value, str) or value is None:
        return value
    if isinstance(value, np.ndarray):
        return {
            "ndarray": value.dtype.str,
            "shape": list(value.shape),
            "values": [encode(item) for item in value.ravel().tolist()],
        }
    if isinstance(value, tuple):
        return {"tuple": [encode(item) for item in value]}
    if isinstance(value, list):
        return [encode(item) for item in value]
    if isinstance(value, dict):
        return {"dict": {str(key): encode(item) for key, item in value.items()}}
    raise TypeError(f"cannot cache a {type(value).__name__}")


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(item) for item in value]
    if not isinstance(value, dict):
        return value
    if set(value) == {"float"} and value["float"] in ("nan", "inf", "-inf"):
        return float(value["float"])
    if set(value) == {"tuple"} and isinstance(value["tuple"], list):
        return tuple(_decode(item) for item in value["tuple"])
    if set(value) == {"dict"} and isinstance(value["dict"], dict):
        return {key: _decode(item) for key, item in value["dict"].items()}
    if set(value) == {"ndarray", "shape", "values"}:
        dtype = np.dtype(value["ndarray"])
        if dtype.kind not in "biuf" or dtype.hasobject:
            raise ValueError(f"an array of {dtype}")
        values = [_decode(item) for item in value["values"]]
        return np.array(values, dtype=dtype).reshape(value["shape"])
    raise ValueError("an unknown tagged value")


def _check_measured(measured: Any, *, want_curves: bool) -> None:
    """Raise ValueError or TypeError unless ``measured`` has the shape of a split's measurements
    (:func:`simulations.compare.protocol._run_split`), its rates in [0, 1]."""
    if not isinstance(measured, dict):
        raise TypeError("not a split's measurements")
    if ("curves" in measured) != want_curves:
        raise ValueError("curves where none belong, or none where they do")
    if not isinstance(measured["can_reject"], bool):
        raise TypeError("can_reject is not a bool")
    if type(measured["n_error_pool"]) is not int or measured["n_error_pool"] < 0:
        raise ValueError("n_error_pool is not a count")
    if not _rate(measured["base_error"]):
        raise ValueError("base_error is not in [0, 1]")
    names = set(measured) - {"can_reject", "n_error_pool", "base_error", "curves"}
    if "gcul" not in names:
        raise ValueError("no GCUL measurement")
    for name in names:
        entry = measured[name]
        if not isinstance(entry, dict) or set(entry) != _MEASURES:
            raise ValueError(f"{name}: not a rejector's measurements")
        if not isinstance(entry["natural"], bool):
            raise TypeError(f"{name}: natural is not a bool")
        if not (_rate(entry["coverage"]) and _rate(entry["sel_risk"]) and _rate(entry["aurc"])):
            raise ValueError(f"{name}: a rate outside [0, 1]")
        for key in ("u", "u_joint"):
            if type(entry[key]) is not float or not -2.0 <= entry[key] <= 1.0:
                raise ValueError(f"{name}: {key} outside [-2, 1]")


def _rate(value: Any) -> bool:
    return type(value) is float and (0.0 <= value <= 1.0 or math.isnan(value))
