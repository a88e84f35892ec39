"""The regime map's CSV files: written with ``repr`` floats (the same bytes on every run), read
back with their types."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from simulations.outputs import atomic_write_text

__all__ = ["read_csv", "write_csv"]


def write_csv(path: Path, rows: list[dict]) -> None:
    """Rows as CSV (floats with repr: the same file on every run)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        # float() first: a NumPy float64 is a float whose repr is "np.float64(...)"
        writer.writerow({k: repr(float(v)) if isinstance(v, float) else v for k, v in row.items()})
    atomic_write_text(path, buffer.getvalue())


def read_csv(path: Path) -> list[dict]:
    """Rows of a CSV this script wrote: integers as int, other numbers as float, text as is."""
    out = []
    with path.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            parsed = {}
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
