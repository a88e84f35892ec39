"""Rows of the synthetic sweep: the column schema and ranges, exact CSV round trips, column views.

A row is a ``dict`` with the keys of :data:`ROW_COLUMNS`: ``seed`` and ``level`` are ``int``, every
other value is a ``float`` inside the range :data:`COLUMN_RANGES` gives for its column (accuracies
and rates are fractions in [0, 1]; no value is NaN, except the :data:`NULLABLE_COLUMNS` of a cell
where GCUL rejects every test sample, written ``nan``). Floats are written with ``repr``, the shortest
string that reads back to the same double, so ``read_csv(write_csv(rows))`` returns the rows bit for
bit. A row holds no wall time, so the CSV of a sweep is byte-identical however it was run; the time
each cell took goes to a separate file (:data:`TIMING_COLUMNS`, :func:`write_timings_csv`).

Files are written atomically (:func:`simulations.outputs.atomic_write_text`).
"""

from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np

import gcul_theory
from simulations import registry
from simulations.outputs import atomic_write_text
from simulations.rejectors.evaluate import (
    EVALUATION_COLUMNS,
    EVALUATION_RANGES,
    NULLABLE_COLUMNS,
    check_evaluation,
)

__all__ = [
    "CERTIFIED_COLUMNS",
    "NULLABLE_COLUMNS",
    "COLUMN_RANGES",
    "CONTAMINATION_MODELS",
    "GEOMETRY_LABELS",
    "GEOMETRY_LABEL_COLUMNS",
    "INT_COLUMNS",
    "ROW_COLUMNS",
    "TIMING_COLUMNS",
    "check_geometry_labels",
    "check_row",
    "contamination_column",
    "normalize_row",
    "read_csv",
    "to_columns",
    "write_csv",
    "write_timings_csv",
]


def _predictor_columns() -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The columns of the registry's predictors (:data:`simulations.registry.METHODS`, family
    "predictor"): ``lambda_pre_<name>`` of each, then ``r1_hat_<name>`` of each, and one r̂2
    column per contamination model of :data:`gcul_theory.PREDICTORS` (``r2_hat`` for the
    paper's, ``r2_hat_<model>`` else)."""
    predictors = registry.methods("predictor")
    lambda_pre = tuple(m.columns[0] for m in predictors)
    r1_hat = tuple(column for m in predictors for column in m.columns[1:])
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

CERTIFIED_COLUMNS: tuple[str, ...] = tuple(
    column for m in registry.methods("certificate") for column in m.columns
)
"""The certified predictor of a cell, ``lambda_cert``, ``lambda_emp_cert``,
``lambda_emp_cert_noisy``: the columns of the registry's certificates
(:func:`simulations.sweep.cell.certified_columns` computes them)."""

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
    *EVALUATION_COLUMNS,
)
"""Columns of a sweep row, in CSV order (no wall time: see :data:`TIMING_COLUMNS`).

``lambda_pre_<name>`` and ``r1_hat_<name>`` for every predictor of
:data:`simulations.registry.METHODS` (the paper's three first), one r̂2 column per
contamination model (:func:`contamination_column`), the certified predictor's ``lambda_cert``,
``lambda_emp_cert``, ``lambda_emp_cert_noisy``, and last the rejectors' columns of
:data:`simulations.rejectors.evaluate.EVALUATION_COLUMNS` (``sel_risk_<r>``,
``aurc_<r>``, Chow's rule of ``msp`` and ``bayes``, ``ujoint_gcul``).
"""

GEOMETRY_LABELS: tuple[str, ...] = ("observed", "clean")
"""The training labels that the geometry behind every λ*_PRE of a row is estimated with (``gcul
reproduce --geometry-labels``): the ``y`` of :func:`gcul_theory.estimate_geometry`, hence the
error pool E = {ŷ ≠ y}, ε, the class shares π_c, the error rates ε_c and each class's correctly
classified samples. ``"observed"``: the training labels as given (partly flipped), as the paper's
Sec. ``subsec:assumptions1`` defines E = {ŷ ≠ y} and as a deployment has them (the default);
``"clean"``: the training labels before flipping (E = {ŷ ≠ y_clean}), the reading that
reproduces the paper's ``tab:synthetic_gcul`` λ*_PRE column, which no deployment can use.

Not to be confused with ``simulations.gcul.ERROR_POOLS`` (``GCUL(error_pool=...)``, ``gcul
compare|feasibility --error-pool``): *which rows* phase 1's errors come from. The files of a run
still name this choice ``error_pool`` (the key of ``manifest.json`` and of a cached cell's
identity), its former name, so that those files keep their format."""

GEOMETRY_LABEL_COLUMNS: tuple[str, ...] = (*_LAMBDA_PRE, *_R1_HAT, *_R2_HAT)
"""The columns of a row that depend on :data:`GEOMETRY_LABELS` (the estimated geometry and what
it predicts); every other column is the same for both readings."""


def check_geometry_labels(geometry_labels: object, name: str = "geometry_labels") -> str:
    """``geometry_labels`` if it is one of :data:`GEOMETRY_LABELS`; else a ValueError naming
    ``name``, the allowed values and the bad one.

    Examples
    --------
    >>> check_geometry_labels("clean")
    'clean'
    >>> check_geometry_labels("noisy")
    Traceback (most recent call last):
    ...
    ValueError: geometry_labels must be one of 'observed', 'clean'; got 'noisy'
    """
    if not isinstance(geometry_labels, str) or geometry_labels not in GEOMETRY_LABELS:
        allowed = ", ".join(map(repr, GEOMETRY_LABELS))
        raise ValueError(f"{name} must be one of {allowed}; got {geometry_labels!r}")
    return geometry_labels


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
    **EVALUATION_RANGES,  # NaN too where NULLABLE_COLUMNS says, see check_row
}
"""Closed range ``(low, high)`` of every column; every value is finite (``noise`` < inf), except
the :data:`NULLABLE_COLUMNS` of a cell where GCUL accepts no test sample (NaN there).

Accuracies, rates, shares and r̂ bounds are fractions in [0, 1]; λ*_PRE and λ*_CERT are in [0, 1];
λ*_EMP (``lambda_emp``, ``lambda_emp_cert``) is any finite number, and :func:`check_row` checks
``|lambda_emp| ≤ 1/rejection_rate`` (0 when nothing is rejected);
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
        For missing or extra keys, a value of the wrong type, NaN (allowed only in the
        :data:`NULLABLE_COLUMNS` of a row whose ``rejection_rate`` is 1), or a value outside the column's
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
        if column in NULLABLE_COLUMNS and math.isnan(value):
            continue  # allowed only when GCUL accepts nothing: check_evaluation below
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
    problem = check_evaluation(normalized, rho)
    if problem is not None:
        raise ValueError(f"{where}: {problem}")
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
