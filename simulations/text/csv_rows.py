"""The text benchmark's per-split rows as CSV files, written and read back exactly.

Every table of the report is computed from these rows alone, so a test (or ``--redraw``)
recomputes the report from the files: :func:`to_csv` writes a float as its ``repr`` (the
shortest text that reads back as the same double) and :func:`read_csv` reads it back as the
same number; :func:`tables_from_csv` reads a run's five files.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["CSV_FILES", "read_csv", "tables_from_csv", "to_csv", "verdict_csv_rows"]

CSV_FILES = {"rows": "rows", "compare": "compare", "points": "operating_points", "sweep": "pca_sweep"}
"""The tables' keys and the stems of the CSV files that hold them (``verdicts.csv`` beside them)."""


def to_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    """The rows as CSV text: the first row's keys as the header, a float as its ``repr``.

    Parameters
    ----------
    rows : sequence of mapping
        At least one row; every row has the first row's keys.

    Returns
    -------
    str
        Lines ending in ``"\\n"``.

    Raises
    ------
    ValueError
        ``rows`` is empty, or a row has a key the first row lacks.

    Examples
    --------
    >>> print(to_csv([{"corpus": "carer", "sel_acc": 0.1 + 0.2, "split": 0}]), end="")
    corpus,sel_acc,split
    carer,0.30000000000000004,0
    """
    if not rows:
        raise ValueError("rows must hold at least one row; got none")
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    for r in rows:
        writer.writerow({k: (repr(float(v)) if isinstance(v, float) else v) for k, v in r.items()})
    return buffer.getvalue()


def read_csv(path: str | Path) -> list[dict[str, Any]]:
    """The rows of a CSV file written by :func:`to_csv`, numbers back as int or float.

    Parameters
    ----------
    path : str or path-like
        The file.

    Returns
    -------
    list of dict
        One per line after the header; a cell that reads as an int is an int, else as a float
        a float (``nan`` too), else the text.

    Raises
    ------
    OSError
        The file cannot be read (``FileNotFoundError`` names it).
    """
    out = []
    with open(path, newline="", encoding="utf-8") as handle:
        for r in csv.DictReader(handle):
            row: dict[str, Any] = {}
            for k, v in r.items():
                try:
                    row[k] = int(v)
                except ValueError:
                    try:
                        row[k] = float(v)
                    except ValueError:
                        row[k] = v
            out.append(row)
    return out


def verdict_csv_rows(verdicts: Mapping[tuple[Any, ...], Mapping[str, str]], seed: int) -> list[dict[str, Any]]:
    """``verdicts.csv``'s rows: one per (corpus, representation[, seed]) and rejector.

    Parameters
    ----------
    verdicts : mapping
        ``{(corpus, representation): {rejector: text}}`` for a stand-in,
        ``{(corpus, representation, seed): ...}`` for a fine-tuned seed
        (:func:`simulations.text.tasks.collect_results`'s ``verdicts``).
    seed : int
        The seed written for a key without one (the stand-ins').

    Returns
    -------
    list of dict
        ``corpus``, ``representation``, ``seed``, ``rejector``, ``verdict``.
    """
    return [
        {"corpus": k[0], "representation": k[1], "seed": k[2] if len(k) > 2 else seed,
         "rejector": r, "verdict": v}
        for k, vs in verdicts.items() for r, v in vs.items()
    ]  # fmt: skip


def tables_from_csv(out: str | Path) -> dict[str, Any]:
    """The per-split rows of a run read back from its folder: what the report is computed from.

    Parameters
    ----------
    out : str or path-like
        The folder holding ``rows.csv``, ``compare.csv``, ``operating_points.csv``,
        ``pca_sweep.csv`` and ``verdicts.csv``.

    Returns
    -------
    dict
        ``rows``, ``compare``, ``points``, ``sweep`` (lists of rows, :func:`read_csv`) and
        ``verdicts`` (``{(corpus, representation): {rejector: text}}``).

    Raises
    ------
    OSError
        A file is missing or unreadable (``FileNotFoundError`` names it).
    """
    out = Path(out)
    verdicts: dict = {}
    for r in read_csv(out / "verdicts.csv"):
        verdicts.setdefault((r["corpus"], r["representation"]), {})[r["rejector"]] = r["verdict"]
    return {key: read_csv(out / f"{stem}.csv") for key, stem in CSV_FILES.items()} | {"verdicts": verdicts}
