"""The regime map's CSV files: written with ``repr`` floats (the same bytes on every run), read
back with their types."""

from __future__ import annotations

from pathlib import Path

from simulations.outputs import atomic_write_text
from simulations.text.csv_rows import read_csv as _read_rows
from simulations.text.csv_rows import to_csv

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
    atomic_write_text(path, to_csv(rows))  # the text benchmark's format: one writer, one reader


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
    return _read_rows(path)
