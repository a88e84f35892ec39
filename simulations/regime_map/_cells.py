"""One cell of the regime map (a setting × a seed), and every cell of a list of settings.

A cell fits GCUL on the synthetic dataset of its setting and seed and measures, on the test
split, with the sweep's own rejectors and evaluation (:mod:`simulations.rejectors`; "at GCUL's
coverage": every rejector accepts as many test samples as GCUL does, ties at the cut by their
expected value), GCUL's coverage and selective risk and MSP's and the Bayes rejector's selective
risk at GCUL's coverage; and, on the training split only, the predictors of
:func:`simulations.training_predictors.training_predictors`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

import simulations
from simulations.regime_map._grid import NAMES, VALID, Setting, config_of, share
from simulations.training_predictors import training_predictors
from simulations.validation import check_int

__all__ = ["measure_cell", "measure_settings", "setting_task"]


def measure_cell(setting: Setting, seed: int) -> dict[str, float]:
    """One cell: fit GCUL on the (setting, seed) dataset; the test columns and the predictors.

    Parameters
    ----------
    setting : tuple
        ``(sigma, ratio, shift, n_confusion, bias)`` (see :func:`config_of`).
    seed : int
        The dataset's seed (:func:`simulations.make_dataset`).

    Returns
    -------
    dict
        ``coverage`` (share of the test samples GCUL accepts), ``base_error`` (phase 1's test
        error), ``risk_gcul``, ``risk_msp``, ``risk_bayes`` (selective risks at GCUL's coverage,
        clean test labels; NaN when GCUL accepts nothing), then the training-split predictors
        (:data:`simulations.training_predictors.TRAINING_PREDICTORS`, valid bound
        :data:`VALID`).

    Raises
    ------
    TypeError, ValueError
        If ``setting`` or ``seed`` is not a valid setting or seed (one line).
    """
    from simulations.gcul import GCUL
    from simulations.rejectors import RejectorContext
    from simulations.rejectors.evaluate import evaluation_columns, evaluation_seed, score_rejectors

    config, noise = config_of(setting)
    data = simulations.make_dataset(seed, noise, config)
    model = GCUL().fit(data.X_train, data.y_train)
    # the sweep's evaluation (simulations.rejectors.evaluate.score_cell), only these rejectors
    context = RejectorContext(
        data.X_train, data.y_train, model, seed=evaluation_seed(seed), mixture=data.mixture
    )
    cell = score_rejectors(context, data.X_test, data.y_test, names=("gcul", "msp", "bayes"))
    columns = evaluation_columns(cell)
    return {
        "coverage": cell.n_accept / data.y_test.size,
        "base_error": float(np.count_nonzero(cell.base_wrong) / data.y_test.size),
        "risk_gcul": columns["sel_risk_gcul"],
        "risk_msp": columns["sel_risk_msp"],
        "risk_bayes": columns["sel_risk_bayes"],
        **training_predictors(model, data.X_train, data.y_train, VALID),
    }


def setting_task(
    index: int, setting: Setting, seeds: Sequence[int]
) -> tuple[int, list[dict], float]:
    """Every seed of one setting, with one BLAS thread; ``(index, rows, CPU seconds)``.

    Parameters
    ----------
    index : int
        The setting's index in :func:`settings` (the ``setting`` column).
    setting : tuple
        The setting, ``(sigma, ratio, shift, n_confusion, bias)``.
    seeds : sequence of int
        The seeds, in order.

    Returns
    -------
    index : int
        ``index``, as given (the tasks may finish in any order).
    rows : list of dict
        One row per seed: ``setting``, the factors (:data:`NAMES`), ``share``, ``seed``, then
        :func:`measure_cell`'s columns.
    cpu_seconds : float
        The CPU time the task took (``time.process_time``).
    """
    from simulations.models import single_threaded_blas

    start = time.process_time()
    rows = []
    with single_threaded_blas():
        for seed in seeds:
            row = {"setting": index, **dict(zip(NAMES, setting, strict=True))}
            row |= {"share": share(setting[3]), "seed": seed, **measure_cell(setting, seed)}
            rows.append(row)
    return index, rows, time.process_time() - start



def measure_settings(
    setting_list: Sequence[Setting], seeds: Sequence[int], jobs: int = 1
) -> tuple[list[dict], float]:
    """Every cell of ``setting_list`` × ``seeds``, on ``jobs`` worker processes.

    Parameters
    ----------
    setting_list : sequence of tuple
        The settings, e.g. :func:`settings`; a setting's index here is its ``setting`` column.
    seeds : sequence of int
        The seeds every setting runs (:data:`SEEDS` in the study).
    jobs : int, default 1
        Worker processes (joblib's ``loky`` backend, one setting a task); 1 runs in this process.

    Returns
    -------
    rows : list of dict
        :func:`setting_task`'s rows, setting by setting, seed by seed: the same for any
        ``jobs``.
    cpu_seconds : float
        The CPU time of the cells, summed over the tasks.

    Raises
    ------
    TypeError, ValueError
        If ``jobs`` is not an integer of at least 1, or ``seeds`` is empty.
    """
    jobs = check_int("jobs", jobs, low=1)
    if len(seeds) == 0:
        raise ValueError("seeds must hold at least one seed; got none")
    tasks = [(i, s, seeds) for i, s in enumerate(setting_list)]
    if jobs > 1:
        from joblib import Parallel, delayed

        results = Parallel(n_jobs=jobs, backend="loky", batch_size=1)(
            delayed(setting_task)(*t) for t in tasks
        )
    else:
        results = [setting_task(*t) for t in tasks]
    results.sort(key=lambda r: r[0])
    rows = [row for _, block, _ in results for row in block]
    return rows, sum(c for *_, c in results)
