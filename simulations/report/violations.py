"""The violation analysis of the paper's ``tab:violation_analysis``: Type-I and Type-II counts
of every judged predictor (definitions in :mod:`simulations.report`)."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from simulations import registry
from simulations.registry import PAPER_METHOD
from simulations.report.columns import (
    LAMBDA_TARGET,
    Results,
    check_lam,
    judged_blocks,
    judged_columns,
    noise_key,
    result_columns,
)
from simulations.results import check_geometry_labels
from simulations.validation import error_pool_renamed

__all__ = [
    "KINDS",
    "PAPER_VIOLATIONS",
    "VERDICTS",
    "feasibility_verdict",
    "violation_masks",
    "violation_table",
    "ViolationCount",
    "ViolationTable",
]


KINDS = ("type_i", "type_ii", "overall")


#: What the paper reports in ``tab:violation_analysis`` (λ = 0.15, union bound, 41 levels x 10
#: seeds): kind -> (count, total).  Shown for reference beside the union block only.
PAPER_VIOLATIONS = {"type_i": (25, 410), "type_ii": (0, 410), "overall": (25, 410)}


_PAPER_LAMBDA = 0.15


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def violation_masks(
    results: Results, lam: float = LAMBDA_TARGET, method: str = "union"
) -> tuple[np.ndarray, np.ndarray]:
    """Boolean masks of the Type-I and Type-II cells, in the order of ``results``.

    Type-I: ``lambda_pre_<method> < lam <= lambda_emp``;
    Type-II: ``lambda_emp < lam <= lambda_pre_<method>``; for ``method="certified"``,
    ``lambda_cert`` and ``lambda_emp_cert`` in their place (:func:`judged_columns`).

    Examples
    --------
    >>> rows = [{"lambda_pre_union": 0.10, "lambda_emp": 0.20},
    ...         {"lambda_pre_union": 0.15, "lambda_emp": 0.14},
    ...         {"lambda_pre_union": 0.50, "lambda_emp": 0.40}]
    >>> type_i, type_ii = violation_masks(rows, lam=0.15, method="union")
    >>> type_i.tolist(), type_ii.tolist()
    ([True, False, False], [False, True, False])
    """
    lam = check_lam(lam)
    pre_name, emp_name = judged_columns(method)
    cols = result_columns(results, (pre_name, emp_name), "the violation analysis")
    pre, emp = cols[pre_name], cols[emp_name]
    predicted_feasible = pre >= lam
    effective = emp >= lam
    return (~predicted_feasible & effective), (predicted_feasible & ~effective)


VERDICTS = ("correct", "type_I", "type_II", "failed")
"""The verdicts of :func:`feasibility_verdict`, in table order."""


def feasibility_verdict(lambda_pre: float, lambda_emp: float, lam: float = LAMBDA_TARGET) -> str:
    """The verdict on one prediction of feasibility at cost ``lam``: one cell of
    :func:`violation_masks`, with a place for a predictor that gave no value.

    Predicted feasible is ``lambda_pre >= lam``, realised feasible ``lambda_emp >= lam``
    (λ* = λ counts as feasible on both sides).

    Parameters
    ----------
    lambda_pre : float
        The predicted λ*; NaN when the predictor returned no value.
    lambda_emp : float
        The realised λ*_EMP.
    lam : float, default=LAMBDA_TARGET
        The target rejection cost λ, finite and >= 0.

    Returns
    -------
    str
        ``"correct"`` (prediction and realisation agree), ``"type_I"`` (predicted infeasible,
        realised feasible: conservative), ``"type_II"`` (predicted feasible, realised infeasible:
        unsafe) or ``"failed"`` (``lambda_pre`` is NaN); one of :data:`VERDICTS`.

    Raises
    ------
    TypeError, ValueError
        In one line: ``lam`` not a finite real number >= 0.

    Examples
    --------
    >>> feasibility_verdict(0.05, 0.40), feasibility_verdict(0.30, 0.05)
    ('type_I', 'type_II')
    """
    lam = check_lam(lam)
    if math.isnan(lambda_pre):
        return "failed"
    predicted, realised = lambda_pre >= lam, lambda_emp >= lam
    if predicted == realised:
        return "correct"
    return "type_II" if predicted else "type_I"


@dataclass(frozen=True)
class ViolationCount:
    """One line of the violation table: ``count`` of ``total`` cells are of type ``kind``.

    ``paper_count``/``paper_total`` hold the paper's reported numbers (union bound, λ = 0.15)
    and are ``None`` for the other predictors. ``predicted``/``empirical`` name the columns the
    predictor was judged on; ``valid`` says whether it is a valid predictor (registry's ``valid``;
    True for the certified one).
    """

    method: str
    kind: str
    count: int
    total: int
    paper_count: int | None = None
    paper_total: int | None = None
    predicted: str = ""
    empirical: str = "lambda_emp"
    valid: bool = False

    @property
    def rate(self) -> float:
        """``count / total``, a fraction in [0, 1]."""
        return self.count / self.total

    @property
    def paper_rate(self) -> float | None:
        """The paper's rate as a fraction, or ``None``."""
        if self.paper_count is None or self.paper_total is None:
            return None
        return self.paper_count / self.paper_total


@dataclass(frozen=True)
class ViolationTable:
    """The violation analysis: for each predictor, Type-I, Type-II and Overall counts.

    Index it as ``table["union", "type_i"]``; iterate it to get the :class:`ViolationCount`
    entries, method by method, in the order Type-I, Type-II, Overall.
    """

    lam: float
    methods: tuple[str, ...]
    total: int
    n_seeds: int
    n_levels: int
    entries: tuple[ViolationCount, ...]
    geometry_labels: str = "observed"  # the labels of λ*_PRE's geometry (GEOMETRY_LABELS)

    def __getitem__(self, key: tuple[str, str]) -> ViolationCount:
        method, kind = key
        for entry in self.entries:
            if entry.method == method and entry.kind == kind:
                return entry
        raise KeyError(key)

    def __iter__(self) -> Iterator[ViolationCount]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def describe_runs(self) -> str:
        """``"410 runs (41 noise levels × 10 seeds)"``, or ``"N runs"`` off a full grid."""
        runs = _plural(self.total, "run")
        if self.n_seeds * self.n_levels == self.total:
            levels = _plural(self.n_levels, "noise level")
            return f"{runs} ({levels} × {_plural(self.n_seeds, 'seed')})"
        return runs

    @property
    def has_paper_reference(self) -> bool:
        return any(e.paper_count is not None for e in self.entries)


@error_pool_renamed
def violation_table(
    results: Results,
    lam: float = LAMBDA_TARGET,
    methods: Sequence[str] | None = None,
    *,
    geometry_labels: str = "observed",
) -> ViolationTable:
    """Count Type-I, Type-II and overall violations of each λ* predictor.

    Parameters
    ----------
    results : list of dict or dict of arrays
        The sweep's cells; needs ``seed``, ``noise`` and, for each method, the columns of
        :func:`judged_columns` (``lambda_pre_<method>`` and ``lambda_emp``; ``lambda_cert`` and
        ``lambda_emp_cert`` for ``"certified"``).
    lam : float, default 0.15
        The target rejection cost λ.
    methods : sequence of str, optional
        The predictors assessed, one block each, in this order: names of
        :data:`gcul_theory.PREDICTORS` or ``"certified"``. By default every one of them
        (:func:`predictor_names`, the registry read at call time).
    geometry_labels : {"observed", "clean"}, default "observed"
        The training labels the results' λ*_PRE geometry was estimated with (``gcul reproduce
        --geometry-labels``); the captions say it.

    Returns
    -------
    ViolationTable
        The paper's ``tab:violation_analysis`` per method.  When ``lam`` is 0.15 the union
        block carries the paper's reported counts (25/410 Type-I, 0/410 Type-II) for reference.

    Examples
    --------
    >>> rows = [{"seed": 10, "noise": 0.0, "lambda_emp": 0.8, "lambda_pre_union": 0.9},
    ...         {"seed": 10, "noise": 8.0, "lambda_emp": 0.2, "lambda_pre_union": 0.1}]
    >>> table = violation_table(rows, methods=("union",))
    >>> table["union", "type_i"].count, table["union", "overall"].total
    (1, 2)
    """
    lam = check_lam(lam)
    geometry_labels = check_geometry_labels(geometry_labels)
    judged, cols = judged_blocks(results, methods, "the violation analysis")
    methods = tuple(judged)
    total = len(cols["seed"])
    with_paper = math.isclose(lam, _PAPER_LAMBDA)
    entries = []
    for method in methods:
        type_i, type_ii = violation_masks(cols, lam, method)
        counts = {
            "type_i": int(type_i.sum()),
            "type_ii": int(type_ii.sum()),
            "overall": int(type_i.sum() + type_ii.sum()),
        }
        for kind in KINDS:
            paper = PAPER_VIOLATIONS[kind] if with_paper and method == PAPER_METHOD else None
            entries.append(
                ViolationCount(
                    method=method,
                    kind=kind,
                    count=counts[kind],
                    total=total,
                    paper_count=None if paper is None else paper[0],
                    paper_total=None if paper is None else paper[1],
                    predicted=judged[method][0],
                    empirical=judged[method][1],
                    valid=registry.method(method).validity.valid,
                )
            )
    return ViolationTable(
        lam=lam,
        methods=methods,
        total=total,
        n_seeds=len(np.unique(cols["seed"])),
        n_levels=len(np.unique(noise_key(cols["noise"]))),
        entries=tuple(entries),
        geometry_labels=geometry_labels,
    )
