"""The regime map's CSV files: written with ``repr`` floats (the same bytes on every run), read
back with their types."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from simulations.outputs import atomic_write_text

__all__ = ["read_csv", "write_csv"]


def write_csv(path: Path, rows: list[dict]) -> None:
    """Rows as CSV (floats with repr: the same file on every run), written atomically.

    Parameters
    ----------
    path : pathlib.Path
        The file.
    rows : list of dict
        The rows, at least one; the first row's keys are the header.

    Raises
    ------
    ValueError
        If ``rows`` is empty.
    """
    if not rows:
        raise ValueError(f"rows must hold at least one row to write {path}; got none")
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        # float() first: a NumPy float64 is a float whose repr is "np.float64(...)"
        writer.writerow({k: repr(float(v)) if isinstance(v, float) else v for k, v in row.items()})
    atomic_write_text(path, buffer.getvalue())


def read_csv(path: Path) -> list[dict]:
    """Rows of a CSV :func:`write_csv` wrote: integers as int, other numbers as float, text as is.

    Parameters
    ----------
    path : pathlib.Path
        The file.

    Returns
    -------
    list of dict
        One dict per row, keyed by the header. A float written by :func:`write_csv` reads back
        equal (``repr`` round-trips).
    """
    out = []
    with path.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            parsed: dict[str, Any] = {}
            for key, value in row.items():
                try:
                    parsed[key] = int(value)
                except ValueError:
                    try:
                        parsed[key] = float(value)
                    except ValueError:
                        parsed[key] = value
            out.append(parsed)
    return out
