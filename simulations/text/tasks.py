r"""The text benchmark's units of work: one task per split, protocol or sweep, and their results merged.

A *task* is a tuple ``(kind, *arguments)`` that :func:`run_task` runs in any process (so that
joblib can spread them over workers); every kind returns a dict of the same shape:
``rows``, ``compare``, ``points``, ``sweep`` (rows of ``rows.csv``, ``compare.csv``,
``operating_points.csv``, ``pca_sweep.csv``), ``verdicts`` (`gcul compare`'s verdict texts by
rejector), ``cpu`` (process seconds by part) and ``n_features``. :func:`collect_results` merges
them, in task order, into the tables the report is computed from.

The kinds, by the representation and its protocol:

- a stand-in representation of :data:`METHODS`, over stratified splits of all pooled rows:
  ``"standin_split"`` (:func:`run_standin_split`, one split) and ``"standin_compare"``
  (:func:`run_standin_compare`, `gcul compare` over every split);
- a fine-tuned encoder, under the two protocols every table names: (P) the paper's, every
  rejector fitted on the train split's representations, which the encoder was fine-tuned on,
  judged on the test split; (H) held out, fitted only on rows the encoder never saw
  (:data:`FT_FIXED` names both fixed splits): ``"fixed"`` (:func:`run_finetuned_fixed`),
  ``"fixed_sweep"`` (:func:`run_finetuned_sweep`) and ``"splits"``
  (:func:`run_finetuned_splits`, `gcul compare`'s splits of validation + test,
  :data:`FT_SPLITS`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from simulations import registry
from simulations.compare import compare, estimate, stratified_splits, verdict
from simulations.models import single_threaded_blas
from simulations.text.measures import (
    HEAD_LABEL,
    REDUCED,
    VARIANTS,
    dims_for,
    fit_variant,
    fixed_compare,
    head_at,
    measure_model,
    operating_point_rows,
    pca_sweep_rows,
)
from simulations.text.representations import REPRESENTATIONS
from simulations.text.study import LAM, SEED, TEST_SIZE
from simulations.validation import check_int

__all__ = [
    "ALL_REPS",
    "DEFAULT_METHODS",
    "FT_FIXED",
    "FT_REPS",
    "FT_SPLITS",
    "METHODS",
    "SWEPT",
    "TASKS",
    "collect_results",
    "compare_csv_rows",
    "run_finetuned_fixed",
    "run_finetuned_splits",
    "run_finetuned_sweep",
    "run_standin_compare",
    "run_standin_split",
    "run_task",
    "task_cost",
    "task_name",
]

METHODS = tuple(REPRESENTATIONS)
"""The stand-in representations computed from the texts (:mod:`simulations.text.representations`)."""
# The default run: (b) LSA, the linear reduction of (a)'s TF-IDF features and weaker than (a)
# and (c) on both corpora in every earlier run, is measured only when named (--representation
# lsa), to keep the whole benchmark within its time budget.
DEFAULT_METHODS = tuple(m for m in METHODS if m != "lsa")
# The PCA sweep runs on (a) and the fine-tuned encoder (the paper's sweep is on fine-tuned
# embeddings); --sweep-standins adds (b) and (c).
SWEPT = ("oof_logistic",)
# The fine-tuned encoder's fixed splits: (P) train -> test; (H) validation -> test.
FT_FIXED = {"finetuned_paper": ("train", "test"), "finetuned_valtest": ("validation", "test")}
FT_SPLITS = "finetuned_heldout"  # (H): `gcul compare`'s stratified splits of validation + test
FT_REPS = (*FT_FIXED, FT_SPLITS)
ALL_REPS = (*METHODS, *FT_REPS)
"""Every representation a table may hold, in the order the tables list them."""


def compare_csv_rows(
    result: Any, key: Mapping[str, Any], split_list: Sequence[tuple[np.ndarray, np.ndarray]]
) -> list[dict[str, Any]]:
    """``compare.csv``'s rows of one `gcul compare` result: one per rejector and split.

    Parameters
    ----------
    result : simulations.compare.CompareResult
        From :func:`simulations.compare.compare`.
    key : mapping
        The columns that open every row (corpus, representation, seed).
    split_list : sequence of (train, test)
        The splits ``result`` was computed on, in order.

    Returns
    -------
    list of dict
        ``key``, ``split``, ``n_train``, ``n_test``, ``rejector``, ``label``, ``operating_point``
        and the split's ``coverage``, ``sel_risk``, ``difference``, ``aurc``, ``u``, ``u_joint``.
    """
    return [
        dict(key)
        | {"split": i, "n_train": int(train.size), "n_test": int(test.size), "rejector": r.name,
           "label": r.label, "operating_point": r.operating_point}
        | {k: getattr(r, k).values[i] for k in ("coverage", "sel_risk", "difference", "aurc", "u", "u_joint")}
        for r in result.rejectors
        for i, (train, test) in enumerate(split_list)
    ]  # fmt: skip


def _result(**parts: Any) -> dict[str, Any]:
    empty: dict[str, Any] = {"rows": [], "compare": [], "verdicts": {}, "points": [], "sweep": []}
    return empty | parts


def run_standin_split(corpus: str, method: str, Z: np.ndarray, y: np.ndarray, splits: int, i: int,
                      sweep: bool) -> dict[str, Any]:  # fmt: skip
    """Every per-split measurement of one (corpus, stand-in representation) on split ``i`` of ``splits``.

    The GCUL variants (:data:`~simulations.text.measures.VARIANTS`), the baselines along their
    knobs and, with ``sweep``, the PCA sweep. One task per split, so that two workers share a
    corpus's work evenly; GCUL() and GCUL + PCA at d = 10, fitted once for the benchmark table,
    are reused by the operating points and the sweep (the fits are deterministic: reusing them
    changes no number).

    Parameters
    ----------
    corpus, method : str
        The corpus and the stand-in representation (the rows' first columns).
    Z : ndarray of shape (N, d)
        The representation of every row.
    y : ndarray of shape (N,), int
        The labels.
    splits : int
        How many stratified splits (:func:`simulations.compare.stratified_splits` with
        :data:`~simulations.text.study.TEST_SIZE` and :data:`~simulations.text.study.SEED`), at least 2.
    i : int
        Which split, ``0 .. splits - 1``.
    sweep : bool
        Run the PCA sweep too.

    Returns
    -------
    dict
        A task's result (see the module's docstring).

    Raises
    ------
    ValueError
        ``splits`` is below 2 or ``i`` outside ``0 .. splits - 1``.
    """
    check_int("splits", splits, 2)
    check_int("i", i, 0, splits - 1)
    cpu: dict[str, float] = {}
    train, test = stratified_splits(y, splits, TEST_SIZE, SEED)[i]
    key = {"corpus": corpus, "representation": method, "seed": SEED}
    rows, points, swept = [], [], []
    with single_threaded_blas():
        t = time.process_time()
        fitted, measured = {}, {}
        for variant in VARIANTS:
            fitted[variant] = fit_variant(variant, Z, y, train)
            measured[variant] = measure_model(fitted[variant], Z, y, train, test)
            rows.append(key | {"split": i} | measured[variant] | {"variant": variant})
        cpu["(i) benchmark + (iv) screening"] = time.process_time() - t

        t = time.process_time()
        points = operating_point_rows(corpus, method, SEED, i, Z, y, train, test, model=fitted["gcul"])
        cpu["(ii) operating points"] = time.process_time() - t

        if sweep:
            t = time.process_time()
            swept = pca_sweep_rows(key | {"split": i}, Z, y, train, test, None, measured["gcul_pca"])
            cpu["(iii) PCA sweep"] = time.process_time() - t
    return _result(rows=rows, points=points, sweep=swept, cpu=cpu, n_features=int(Z.shape[1]))


def run_standin_compare(corpus: str, method: str, Z: np.ndarray, y: np.ndarray, splits: int) -> dict[str, Any]:
    """`gcul compare` on one (corpus, stand-in representation): its rows and verdicts.

    Parameters
    ----------
    corpus, method, Z, y, splits
        As :func:`run_standin_split` takes them.

    Returns
    -------
    dict
        A task's result, with ``compare`` and ``verdicts``.
    """
    key = {"corpus": corpus, "representation": method, "seed": SEED}
    with single_threaded_blas():
        t = time.process_time()
        result = compare(Z, y, lam=LAM, splits=splits, seed=SEED, test_size=TEST_SIZE)
        compare_rows = compare_csv_rows(result, key, stratified_splits(y, splits, TEST_SIZE, SEED))
        verdicts = {r.name: r.verdict for r in result.rejectors}
        cpu = {"(ii) gcul compare": time.process_time() - t}
    return _result(compare=compare_rows, verdicts=verdicts, cpu=cpu, n_features=int(Z.shape[1]))


def run_finetuned_fixed(corpus: str, rep: str, seed: int, Z: np.ndarray, y: np.ndarray, probs: np.ndarray,
                        train: np.ndarray, test: np.ndarray) -> dict[str, Any]:  # fmt: skip
    """Every measurement of one fine-tuned seed under a fixed split of :data:`FT_FIXED` but the PCA sweep.

    The GCUL variants and the μ_c readings, GCUL against both MSPs at GCUL's coverage
    (:func:`~simulations.text.measures.fixed_compare`), the baselines along their knobs (and the
    head's MSP along λ). GCUL() is fitted once and reused by the operating points; GCUL + PCA's
    measurement is returned (``"at_reduced"``) for the sweep's row at its d
    (:func:`run_finetuned_sweep` leaves that row out; :func:`collect_results` puts it in).

    Parameters
    ----------
    corpus : str
        The corpus.
    rep : str
        A key of :data:`FT_FIXED`.
    seed : int
        The fine-tuning seed.
    Z, y, probs : ndarray
        The encoder's embeddings, the labels and the head's softmax, of every row.
    train, test : ndarray of int
        The fixed split's rows.

    Returns
    -------
    dict
        A task's result, with ``at_reduced``.
    """
    cpu: dict[str, float] = {}
    key = {"corpus": corpus, "representation": rep, "seed": seed, "split": 0}
    rows, points, measured, fitted = [], [], {}, {}
    with single_threaded_blas():
        t = time.process_time()
        for variant in VARIANTS:
            fitted[variant] = fit_variant(variant, Z, y, train)
            measured[variant] = measure_model(fitted[variant], Z, y, train, test, probs)
            rows.append(key | measured[variant] | {"variant": variant})
            if variant == "gcul":
                sizes = {"n_train": int(train.size), "n_test": int(test.size)}
                compare_rows = [key | sizes | r for r in fixed_compare(fitted["gcul"], Z, y, probs, train, test, seed)]
        cpu["(i) benchmark + (iv) screening"] = time.process_time() - t

        t = time.process_time()
        points = operating_point_rows(corpus, rep, seed, 0, Z, y, train, test, probs, model=fitted["gcul"])
        cpu["(ii) operating points"] = time.process_time() - t
    return _result(rows=rows, compare=compare_rows, points=points, cpu=cpu, n_features=int(Z.shape[1]),
                   at_reduced=measured["gcul_pca"])  # fmt: skip


def run_finetuned_sweep(corpus: str, rep: str, seed: int, Z: np.ndarray, y: np.ndarray, probs: np.ndarray,
                        train: np.ndarray, test: np.ndarray) -> dict[str, Any]:  # fmt: skip
    """The PCA sweep of one fine-tuned seed under a fixed split, but its row at GCUL + PCA's d.

    That row is :func:`run_finetuned_fixed`'s measurement, which :func:`collect_results` puts
    in its place.

    Parameters
    ----------
    corpus, rep, seed, Z, y, probs, train, test
        As :func:`run_finetuned_fixed` takes them.

    Returns
    -------
    dict
        A task's result, with ``sweep``.
    """
    key = {"corpus": corpus, "representation": rep, "seed": seed, "split": 0}
    with single_threaded_blas():
        t = time.process_time()
        sweep = pca_sweep_rows(key, Z, y, train, test, probs, None, skip_reduced=True)
        cpu = {"(iii) PCA sweep": time.process_time() - t}
    return _result(sweep=sweep, cpu=cpu, n_features=int(Z.shape[1]))


def run_finetuned_splits(corpus: str, seed: int, Z: np.ndarray, y: np.ndarray, probs: np.ndarray,
                         splits: int) -> dict[str, Any]:  # fmt: skip
    """(H) by `gcul compare`'s protocol on the rows the encoder never saw, with the head's MSP beside it.

    `gcul compare` on the validation + test rows, pooled; the fine-tuned head's MSP is scored
    on the same test parts at GCUL's coverage (:func:`~simulations.text.measures.head_at`) and
    judged by the same corrected resampled t test (:func:`simulations.compare.verdict`).

    Parameters
    ----------
    corpus : str
        The corpus.
    seed : int
        The fine-tuning seed.
    Z, y, probs : ndarray
        The embeddings, labels and head's softmax of the validation and test rows.
    splits : int
        How many stratified splits.

    Returns
    -------
    dict
        A task's result, with ``compare`` and ``verdicts`` (``head_msp``'s included).
    """
    rep = FT_SPLITS
    key = {"corpus": corpus, "representation": rep, "seed": seed}
    t = time.process_time()
    with single_threaded_blas():
        result = compare(Z, y, lam=LAM, splits=splits, seed=SEED, test_size=TEST_SIZE)
    split_list = stratified_splits(y, splits, TEST_SIZE, SEED)  # compare's splits (same arguments)
    compare_rows = compare_csv_rows(result, key, split_list)
    verdicts = {r.name: r.verdict for r in result.rejectors}
    gcul = next(r for r in result.rejectors if r.name == "gcul")
    differences = []
    for i, (train, test) in enumerate(split_list):
        m = int(round(gcul.coverage.values[i] * test.size))
        head = head_at(probs[test], y[test], m)
        difference = head["sel_risk"] - gcul.sel_risk.values[i]
        differences.append(difference)
        compare_rows.append(key | {"split": i, "n_train": int(train.size), "n_test": int(test.size),
                                   "rejector": "head_msp", "label": HEAD_LABEL,
                                   "operating_point": registry.method("msp").operating_point,
                                   "coverage": head["coverage"], "sel_risk": head["sel_risk"],
                                   "difference": difference, "aurc": head["aurc"],
                                   "u": head["u"], "u_joint": head["u_joint"]})  # fmt: skip
    ratio = split_list[0][1].size / split_list[0][0].size
    verdicts["head_msp"] = verdict(HEAD_LABEL, estimate(differences, ratio)).text()
    return _result(compare=compare_rows, verdicts=verdicts, cpu={"(ii) gcul compare": time.process_time() - t},
                   n_features=int(Z.shape[1]))  # fmt: skip


TASKS: dict[str, Callable[..., dict[str, Any]]] = {
    "standin_split": run_standin_split,
    "standin_compare": run_standin_compare,
    "fixed": run_finetuned_fixed,
    "fixed_sweep": run_finetuned_sweep,
    "splits": run_finetuned_splits,
}
"""Every kind of task, by the name a task tuple opens with."""


def _kind(task: Sequence[Any]) -> str:
    if not task or task[0] not in TASKS:
        raise ValueError(f"a task must open with one of {', '.join(TASKS)}; got {task[:1]!r}")
    return task[0]


def run_task(task: Sequence[Any]) -> dict[str, Any]:
    """Run one task ``(kind, *arguments)``: ``TASKS[kind](*arguments)``.

    Parameters
    ----------
    task : tuple
        A kind of :data:`TASKS` and its function's positional arguments.

    Returns
    -------
    dict
        The task's result (see the module's docstring).

    Raises
    ------
    ValueError
        The task's kind is not one of :data:`TASKS`.
    """
    return TASKS[_kind(task)](*task[1:])


def task_name(task: Sequence[Any]) -> str:
    """How the progress lines name a task: ``"carer/oof_logistic split 0"``, ``"carer/finetuned_paper seed 1"``.

    Parameters
    ----------
    task : tuple
        A task of :func:`run_task`.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        The task's kind is not one of :data:`TASKS`.
    """
    kind = _kind(task)
    if kind == "standin_split":
        return f"{task[1]}/{task[2]} split {task[6]}"
    if kind == "standin_compare":
        return f"{task[1]}/{task[2]} compare"
    if kind == "splits":
        return f"{task[1]}/{FT_SPLITS} seed {task[2]}"
    return f"{task[1]}/{task[2]} seed {task[3]}" + (" PCA sweep" if kind == "fixed_sweep" else "")


def task_cost(task: Sequence[Any]) -> float:
    """A rough CPU cost of a task, to start the largest first: rows × columns × classes × fits.

    Parameters
    ----------
    task : tuple
        A task of :func:`run_task`.

    Returns
    -------
    float
        Comparable between tasks only.

    Raises
    ------
    ValueError
        The task's kind is not one of :data:`TASKS`.
    """
    kind = _kind(task)
    if kind in ("fixed", "fixed_sweep"):
        Z, y = task[4][task[7]], task[5][task[7]]
        fits = 6.0 if kind == "fixed" else 8.0  # 4 variants + the baselines; 11 PCA d
    elif kind == "standin_split":
        Z, y = task[3], task[4]
        fits = (6.0 + (8.0 if task[7] else 0.0)) * (1.0 - TEST_SIZE)
    else:  # a `gcul compare` run over every split
        Z, y = task[3], task[4]
        fits = 2.5 * task[-1] * (1.0 - TEST_SIZE)  # the last item is the number of splits
    return float(Z.shape[0]) * Z.shape[1] * (int(y.max()) + 1) * fits


def collect_results(
    tasks: Sequence[Sequence[Any]], results: Sequence[Mapping[str, Any]]
) -> tuple[dict[str, Any], dict[str, float]]:
    """Merge the tasks' results, in task order, into the tables the report is computed from.

    A ``"fixed_sweep"`` task's sweep gets the row at GCUL + PCA's d from the ``"fixed"`` task
    just before it (its ``at_reduced``), in its place; `gcul compare`'s verdict texts are kept
    by ``(corpus, representation)`` for a stand-in and ``(corpus, representation, seed)`` for a
    fine-tuned seed.

    Parameters
    ----------
    tasks : sequence of tuple
        The tasks, in the order the tables list their rows.
    results : sequence of dict
        :func:`run_task`'s result of each task, in the same order.

    Returns
    -------
    tables : dict
        ``rows``, ``compare``, ``points``, ``sweep`` (lists of row dicts) and ``verdicts``.
    cpu : dict of str to float
        The process seconds of every part, summed over the tasks.

    Raises
    ------
    ValueError
        ``tasks`` and ``results`` differ in length, or a ``"fixed_sweep"`` task has no
        ``"fixed"`` task before it.
    """
    if len(tasks) != len(results):
        raise ValueError(f"tasks and results must be as many; got {len(tasks)} and {len(results)}")
    tables: dict[str, Any] = {"rows": [], "compare": [], "points": [], "sweep": [], "verdicts": {}}
    cpu: dict[str, float] = {}
    at_reduced = None
    for task, res in zip(tasks, results, strict=True):
        tables["rows"] += res["rows"]
        tables["compare"] += res["compare"]
        tables["points"] += res["points"]
        sweep = res["sweep"]
        if task[0] == "fixed":
            at_reduced = res["at_reduced"]
        elif task[0] == "fixed_sweep":
            if at_reduced is None:
                raise ValueError(f"{task_name(task)}: no 'fixed' task before this 'fixed_sweep' task")
            # the row at GCUL + PCA's d, measured by the "fixed" task just before, in its place
            d, reduced = res["n_features"], min(REDUCED, res["n_features"])
            key = {"corpus": task[1], "representation": task[2], "seed": task[3], "split": 0}
            sweep = list(sweep)
            sweep.insert(dims_for(d).index(reduced), key | {"d": reduced} | at_reduced)
        tables["sweep"] += sweep
        if res["verdicts"]:
            rep = task[2] if task[0] == "standin_compare" else FT_SPLITS
            # one verdict text per (corpus, representation); fine-tuned seeds are kept apart
            verdict_key = (task[1], rep) if task[0] == "standin_compare" else (task[1], rep, task[2])
            tables["verdicts"][verdict_key] = res["verdicts"]
        for part, seconds in res["cpu"].items():
            cpu[part] = cpu.get(part, 0.0) + seconds
    return tables, cpu
