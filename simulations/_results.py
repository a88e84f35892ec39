"""Rows of the synthetic sweep: the column schema, exact CSV round trips, column views.

A row is a ``dict`` with the keys of :data:`ROW_COLUMNS`: ``seed`` and ``level`` are ``int``, every
other value is a ``float``; accuracies and rates are fractions in [0, 1]. Floats are written with
``repr``, the shortest string that reads back to the same double, so ``read_csv(write_csv(rows))``
returns the rows bit for bit.
"""

from __future__ import annotations

import csv
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np

__all__ = ["INT_COLUMNS", "ROW_COLUMNS", "normalize_row", "read_csv", "to_columns", "write_csv"]

ROW_COLUMNS: tuple[str, ...] = (
    "seed",
    "noise",
    "level",
    "flip_prob",
    "base_acc",
    "selective_acc",
    "rejection_rate",
    "lambda_emp",
    "lambda_pre_gaussian",
    "lambda_pre_union",
    "lambda_pre_chernoff",
    "r1_hat_gaussian",
    "r1_hat_union",
    "r1_hat_chernoff",
    "r2_hat",
    "eps_train",
    "r1_cluster",
    "r2_cluster",
    "r1_emp",
    "r2_emp",
    "seconds",
)
"""Columns of a sweep row, in CSV order."""

INT_COLUMNS: frozenset[str] = frozenset({"seed", "level"})
"""Columns holding integers; all others hold floats."""


def write_csv(rows: Iterable[Mapping[str, object]], path: str | os.PathLike[str]) -> Path:
    """Write sweep rows to ``path`` (atomically: a temporary file, then ``os.replace``).

    Every row must have exactly the keys of :data:`ROW_COLUMNS`. Floats are written with ``repr``
    so that :func:`read_csv` returns them exactly. Returns the path written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> row = {c: 0.1 for c in ROW_COLUMNS} | {"seed": 16, "level": 0}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = write_csv([row], pathlib.Path(tmp) / "rows.csv")
    ...     read_csv(path) == [row]
    True
    """
    path = Path(path)
    lines = [_format_row(row, index) for index, row in enumerate(rows)]
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(ROW_COLUMNS)
            writer.writerows(lines)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def read_csv(path: str | os.PathLike[str]) -> list[dict[str, int | float]]:
    """Read rows written by :func:`write_csv`, typed back (``int`` for ``seed``/``level``).

    Raises ``ValueError`` if the header is not :data:`ROW_COLUMNS` or a value does not parse.
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
            rows.append(
                {
                    column: _parse(column, text, f"{path}, line {line_number}")
                    for column, text in zip(ROW_COLUMNS, values, strict=True)
                }
            )
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
    """Check a row's keys and turn its values into Python ``int``/``float`` in column order."""
    return dict(zip(ROW_COLUMNS, _typed_values(row, None), strict=True))


def _format_row(row: Mapping[str, object], index: int) -> list[str]:
    return [repr(value) for value in _typed_values(row, index)]


def _typed_values(row: Mapping[str, object], index: int | None) -> list[int | float]:
    where = "row" if index is None else f"row {index}"
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
            try:
                values.append(float(value))  # type: ignore[arg-type]
            except (TypeError, ValueError):
                raise ValueError(f"{where}: {column} must be a float; got {value!r}") from None
    return values


def _parse(column: str, text: str, where: str) -> int | float:
    try:
        return int(text) if column in INT_COLUMNS else float(text)
    except ValueError:
        kind = "an int" if column in INT_COLUMNS else "a float"
        raise ValueError(f"{where}: {column} must be {kind}; got {text!r}") from None
