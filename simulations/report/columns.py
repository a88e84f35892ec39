"""Reading sweep results for the tables and figures, once, and the blocks they judge.

The input of every table of :mod:`simulations.report` and figure of :mod:`simulations.figures`:
a list of dicts (one per cell, the sweep's rows) or a mapping of column name to an array of equal
length (e.g. a dict of NumPy arrays, or anything with ``keys()`` and ``[name]``). Only the columns
a table needs are required; values may be numbers or numeric strings (as read back from
``results.csv``). :func:`result_columns` validates them once.

The blocks of the violation analysis are the judged methods of :mod:`simulations.registry`
(families "predictor" and "certificate"); :func:`judged_columns`, :func:`validity_line` and
:func:`method_label` read what the tables say of each from there.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np

from simulations import registry

__all__ = [
    "CERTIFIED",
    "CERTIFIED_NOISY",
    "LAMBDA_TARGET",
    "check_lam",
    "check_methods",
    "has_column",
    "judged_blocks",
    "judged_columns",
    "judged_methods",
    "materialize",
    "method_label",
    "noise_key",
    "predictor_names",
    "result_columns",
    "validity_line",
    "Results",
]


#: A sweep result: rows (one mapping per cell) or columns (name -> equal-length array).
Results = Sequence[Mapping[str, Any]] | Mapping[str, Any]


# What materialize returns: a mapping of columns, or a list of rows not yet checked to be mappings
Materialized = list[Any] | Mapping[str, Any]


LAMBDA_TARGET = 0.15


CERTIFIED = "certified"
"""The block of the certified predictor (:data:`simulations.registry.METHODS`): ``lambda_cert``
judged against ``lambda_emp_cert``."""


CERTIFIED_NOISY = "certified_noisy"
"""The block judging ``lambda_cert`` against ``lambda_emp_cert_noisy`` (noisy test labels)."""


def materialize(results: Results) -> Materialized:
    """A mapping of columns as is; any other iterable of rows as a list (one pass only)."""
    if isinstance(results, (str, bytes)):
        raise TypeError(
            f"results must be a list of row dicts or a dict of columns; got {results!r}"
        )
    if hasattr(results, "keys") and not isinstance(results, Sequence):
        return results
    try:
        return list(results)
    except TypeError:
        raise TypeError(
            "results must be a list of row dicts or a dict of columns; "
            f"got {type(results).__name__}"
        ) from None


def result_columns(results: Results, needed: Sequence[str], purpose: str) -> dict[str, np.ndarray]:
    """Return the ``needed`` columns of ``results`` as float arrays, validated once.

    The one reader of sweep results for the tables here and the figures of
    :mod:`simulations.figures`.

    Parameters
    ----------
    results : list of dict or dict of arrays
        The sweep's cells (see the module's docstring); values may be numeric strings.
    needed : sequence of str
        The columns to return.
    purpose : str
        What they are for, completing "needed for {purpose}" in the messages.

    Returns
    -------
    dict of str to numpy.ndarray
        One float64 array per name of ``needed``, in the order of ``results``.

    Raises
    ------
    TypeError
        If ``results`` is neither rows nor columns, or a row is not a mapping.
    ValueError
        Naming the missing column, the empty input, the non-numeric or non-finite cell, a
        non-integer ``seed`` or a negative ``noise``.

    Examples
    --------
    >>> result_columns([{"seed": 10, "noise": "0.4"}], ("noise",), "a doctest")["noise"]
    array([0.4])
    """
    results = materialize(results)
    if isinstance(results, list):
        for i, row in enumerate(results):
            if not isinstance(row, Mapping):
                raise TypeError(f"results row {i} must be a mapping; got {type(row).__name__}")
            missing = [name for name in needed if name not in row]
            if missing:
                raise ValueError(
                    f"results row {i} is missing column(s) {', '.join(map(repr, missing))} "
                    f"needed for {purpose}"
                )
        raw = {name: np.asarray([row[name] for row in results]) for name in needed}
    else:
        present = set(results.keys())
        missing = [name for name in needed if name not in present]
        if missing:
            raise ValueError(
                f"results is missing column(s) {', '.join(map(repr, missing))} needed for "
                f"{purpose}; present: {', '.join(sorted(map(str, present)))}"
            )
        raw = {name: np.asarray(results[name]).ravel() for name in needed}
        lengths = {name: len(col) for name, col in raw.items()}
        if len(set(lengths.values())) > 1:
            raise ValueError(f"results columns have different lengths: {lengths}")
    n = len(next(iter(raw.values()))) if raw else 0
    if n == 0:
        raise ValueError(f"results is empty: {purpose} needs at least one (seed, noise) cell")
    columns: dict[str, np.ndarray] = {}
    for name, col in raw.items():
        try:
            values = col.astype(float)
        except (TypeError, ValueError):
            raise ValueError(f"results column {name!r} is not numeric: {col[:5]!r}...") from None
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise ValueError(
                f"results column {name!r} has a non-finite value {float(values[bad[0]])!r} "
                f"(row {bad[0]}); {purpose} needs finite values"
            )
        columns[name] = values
    if "seed" in columns and np.any(columns["seed"] != np.round(columns["seed"])):
        i = int(np.flatnonzero(columns["seed"] != np.round(columns["seed"]))[0])
        raise ValueError(
            f"results column 'seed' must hold integers; got {float(columns['seed'][i])} (row {i})"
        )
    if "noise" in columns and np.any(columns["noise"] < 0):
        i = int(np.flatnonzero(columns["noise"] < 0)[0])
        raise ValueError(
            f"results column 'noise' must be >= 0; got {float(columns['noise'][i])} (row {i})"
        )
    return columns


def has_column(results: Materialized, name: str) -> bool:
    """Whether every row (or the mapping of columns) has ``name``; ``results`` is materialized."""
    if isinstance(results, list):
        return all(isinstance(row, Mapping) and name in row for row in results)
    return name in results.keys()


def check_lam(lam: float) -> float:
    """Return the target rejection cost λ as a float: a finite real number >= 0.

    Raises
    ------
    TypeError
        If ``lam`` is not a real number (``bool`` included).
    ValueError
        If ``lam`` is NaN, infinite or negative.

    Examples
    --------
    >>> check_lam(0.15)
    0.15
    """
    if isinstance(lam, bool) or not isinstance(lam, (int, float, np.integer, np.floating)):
        raise TypeError(f"lam must be a real number; got {lam!r}")
    lam = float(lam)
    if not math.isfinite(lam) or lam < 0:
        raise ValueError(f"lam (the target rejection cost λ) must be finite and >= 0; got {lam}")
    return lam


def predictor_names() -> tuple[str, ...]:
    """Every block of the violation analysis judged by default, in order: the predictors and the
    certified predictor of :data:`simulations.registry.METHODS` (read at call time).

    Examples
    --------
    >>> predictor_names()[:3], predictor_names()[-1]
    (('gaussian', 'union', 'chernoff'), 'certified')
    """
    return registry.judged_names(always=True)


def judged_methods(results: Results) -> tuple[str, ...]:
    """The blocks judged by default: :func:`predictor_names`, then each registry block judged
    only when ``results`` (a list of rows or a mapping of columns) has its ``empirical`` column
    (``certified_noisy`` and ``lambda_emp_cert_noisy``).

    Examples
    --------
    >>> judged_methods([{"lambda_emp_cert_noisy": 0.1}])[-2:]
    ('certified', 'certified_noisy')
    """
    results = materialize(results)
    entries = [registry.method(name) for name in registry.judged_names()]
    return tuple(m.name for m in entries if m.always or has_column(results, cast(str, m.empirical)))


def judged_columns(method: str) -> tuple[str, str]:
    """The results columns a predictor is judged on: ``(predicted, empirical)`` of its registry
    entry.

    A theory predictor: ``lambda_pre_<name>`` against ``lambda_emp``; the certified predictor:
    ``lambda_cert`` against ``lambda_emp_cert`` (λ*_EMP of the model it certifies).

    Examples
    --------
    >>> judged_columns("union"), judged_columns("certified")
    (('lambda_pre_union', 'lambda_emp'), ('lambda_cert', 'lambda_emp_cert'))
    """
    (method,) = check_methods((method,))
    entry = registry.method(method)
    return cast(str, entry.predicted), cast(str, entry.empirical)


def validity_line(methods: Sequence[str] | None = None) -> str:
    """One sentence saying which predictors are valid and why (the registry's ``validity``).

    Examples
    --------
    >>> import textwrap
    >>> print(textwrap.fill(validity_line(("union", "boole", "gaussian_exact", "certified")), 90))
    Valid: boole (in expectation, under the paper's Gaussian model); certified (finite-sample
    valid for the model it certifies). Not valid: union (as printed in the paper);
    gaussian_exact (model value, not a bound).
    """
    methods = check_methods(methods)
    groups: dict[tuple[bool, str], list[str]] = {}
    for name in methods:
        validity = registry.method(name).validity
        groups.setdefault((validity.valid, validity.reason), []).append(name)
    parts = []
    for flag, title in ((True, "Valid"), (False, "Not valid")):
        items = [
            f"{', '.join(names)} ({reason})" for (ok, reason), names in groups.items() if ok is flag
        ]
        if items:
            parts.append(f"{title}: {'; '.join(items)}.")
    return " ".join(parts)


def method_label(method: str) -> str:
    """The display name of a method in tables and figures, the ``label`` of its registry entry
    (an unknown name is refused by :func:`simulations.registry.method`).

    Examples
    --------
    >>> method_label("hunter_worsley"), method_label("certified_noisy")
    ('Hunter–Worsley', 'Certified, noisy labels')
    """
    return registry.method(method).label


def judged_blocks(
    results: Results, methods: Sequence[str] | None, purpose: str
) -> tuple[dict[str, tuple[str, str]], dict[str, np.ndarray]]:
    """The blocks to judge and the columns they need, read once: ``(judged, cols)``.

    ``judged`` maps each of ``methods`` (by default :func:`judged_methods` of ``results``) to
    its :func:`judged_columns`, in order; ``cols`` holds ``seed``, ``noise`` and those columns
    (:func:`result_columns`, with ``purpose`` in its messages).

    Examples
    --------
    >>> rows = [{"seed": 10, "noise": 0.0, "lambda_emp": 0.8, "lambda_pre_union": 0.9}]
    >>> judged, cols = judged_blocks(rows, ("union",), "a doctest")
    >>> judged, sorted(cols)
    ({'union': ('lambda_pre_union', 'lambda_emp')}, ['lambda_emp', 'lambda_pre_union', 'noise', 'seed'])
    """
    results = materialize(results)
    methods = check_methods(judged_methods(results) if methods is None else methods)
    judged = {method: judged_columns(method) for method in methods}
    needed = tuple(dict.fromkeys(("seed", "noise", *(c for pair in judged.values() for c in pair))))
    return judged, result_columns(results, needed, purpose)


def check_methods(methods: Sequence[str] | None) -> tuple[str, ...]:
    """Return ``methods`` as a tuple of known, distinct block names (None: :func:`predictor_names`).

    A single name may be given as a string. The allowed names are :func:`predictor_names` and
    :data:`CERTIFIED_NOISY`.

    Raises
    ------
    ValueError
        If ``methods`` is empty, names an unknown block or repeats one.

    Examples
    --------
    >>> check_methods("union"), check_methods(("boole", "certified"))
    (('union',), ('boole', 'certified'))
    """
    if methods is None:
        return predictor_names()
    allowed = registry.judged_names()
    if isinstance(methods, str):
        methods = (methods,)
    methods = tuple(methods)
    if not methods:
        raise ValueError(f"methods must name at least one of {allowed}")
    for m in methods:
        if m not in allowed:
            raise ValueError(f"unknown method {m!r}; allowed: {', '.join(allowed)}")
    if len(set(methods)) != len(methods):
        raise ValueError(f"methods has duplicates: {methods}")
    return methods


def noise_key(noise: np.ndarray) -> np.ndarray:
    """Noise values rounded to 9 decimals, so that ``0.4 * 3`` and ``1.2`` are the same level.

    Examples
    --------
    >>> noise_key(np.array([0.4 * 3, 1.2])).tolist()
    [1.2, 1.2]
    """
    return np.round(noise, 9)
