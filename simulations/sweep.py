"""The synthetic sweep: two GCUL fits per ``(seed, σ)`` cell, in parallel, resumable.

:func:`run_cell` computes one row of :data:`~simulations._results.ROW_COLUMNS`: λ*_PRE of every
predictor of :data:`gcul_theory.PREDICTORS` for a GCUL fitted on the whole training split, and the
certified λ*_CERT of a second GCUL fitted on 80% of it (:mod:`simulations._certified_cell`);
:func:`run_sweep`
runs a grid of cells with joblib, caches every finished cell on disk and returns the rows sorted by
``(seed, noise)``. A row depends only on ``(seed, σ, config)`` — never on ``n_jobs``, the joblib
backend, the order in which cells run, or whether it came from the cache — and holds no wall time,
so the rows (and the ``results.csv`` written from them) are identical however the sweep ran. The
wall time of each cell is reported apart, in :attr:`SweepRows.timings`.

Every cached cell carries its own identity (seed, σ, the protocol config, a fingerprint of the code
that computed it) and a SHA-256 checksum of its canonical payload; a cache file that does not
verify, or whose values leave their documented ranges, is recomputed and reported on stderr.

References
----------
.. [1] "GCUL: Ambiguity Identification in Text Emotion Classification via Cluster-Guided
   Learning" (the GCUL paper), Section "Synthetic phase-transition verification"
   (``subsec:synthetic_exp``, ``fig:synthetic_dynamics``, ``tab:violation_analysis``) and its
   appendix counterpart in ``app:experimental_details`` (``tab:synthetic_data_params``,
   ``tab:gcul_params``).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import errno
import hashlib
import importlib
import json
import logging
import math
import numbers
import os
import re
import stat
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import BrokenExecutor
from pathlib import Path
from typing import Any

import numpy as np
import scipy
from joblib import Parallel, delayed, parallel_config

import gcul_theory
from gcul_theory._predictors import critical as _critical
from simulations._certified_cell import certified_columns
from simulations._results import (
    CONTAMINATION_MODELS,
    ROW_COLUMNS,
    atomic_write_text,
    check_row,
    check_writable,
    contamination_column,
    lock_folder,
    remove_stale_temporaries,
)
from simulations.gcul import GCUL
from simulations.models import _single_threaded_blas
from simulations.synthetic import (
    Dataset,
    SyntheticConfig,
    _check_config,
    _check_seed,
    check_noise,
    make_dataset,
)

__all__ = [
    "BACKENDS",
    "CACHE_VERSION",
    "CELL_MAX_BYTES",
    "LAMBDA_METHODS",
    "SweepError",
    "SweepRows",
    "run_cell",
    "run_sweep",
    "usable_cores",
]

DEFAULT_CONFIG = SyntheticConfig()

BACKENDS: tuple[str, ...] = ("loky", "dask")
"""Where :func:`run_sweep` runs its cells: ``"loky"`` (joblib's process pool on this machine) or
``"dask"`` (joblib's dask backend on a ``dask.distributed`` cluster; needs the ``dask`` extra)."""

SCHEDULER_TIMEOUT = 10.0
"""Seconds to wait for a dask scheduler to answer (connect and handshake), and then for its first
worker to join."""

CELL_MAX_BYTES = 1 << 20
"""Largest cache cell file that is read (1 MiB; a cell file is about 2 KB). A larger file, or
anything that is not a regular file (a folder, a FIFO, a device, a symbolic link), is not read: it
is reported and the cell recomputed."""

CACHE_LOCK = ".gcul-cache.lock"
"""The lock file a sweep keeps in its cache folder (see :func:`run_sweep`)."""

_PARENT_POLL = 0.2  # seconds between two checks, in a worker process, that its parent lives


class SweepError(RuntimeError):
    """The cells could not be run: a worker process died, or the dask cluster did not start.

    Every cell that finished before is in the cache (with ``cache_dir``), so a rerun resumes.
    """


_DASK_MISSING = "the dask backend needs dask.distributed: pip install -e '.[dask]'"

LAMBDA_METHODS: tuple[str, ...] = tuple(entry.name for entry in gcul_theory.PREDICTORS)
"""Every predictor of :data:`gcul_theory.PREDICTORS`, reported side by side
(``lambda_pre_<method>``, ``r1_hat_<method>``)."""

CACHE_VERSION = 4
"""Bump when the meaning of a cached row changes (columns, definitions, file format).

2: no ``seconds`` column in a row (the cell's wall time is stored beside it); identity and SHA-256
checksum in every cell file.
3: every registry predictor (``lambda_pre_<name>``, ``r1_hat_<name>``), ``r2_hat_attractor``, and
the certified fit (``lambda_cert``, ``lambda_emp_cert``).
4: ``lambda_emp_cert_noisy`` (the certified model's λ*_EMP on noisy test labels).
"""

# Source files that decide a row; their bytes are hashed into the cache key, so editing any of them
# invalidates cached cells instead of silently reusing them.
_CODE_FILES = (
    "synthetic.py",
    "gcul.py",
    "models.py",
    "sweep.py",
    "_results.py",
    "_certified_cell.py",
)  # simulations/
_CODE_PACKAGES = ("gcul_theory",)  # every .py file of these packages


def run_cell(
    seed: int,
    noise: float,
    config: SyntheticConfig = DEFAULT_CONFIG,
    *,
    level: int = -1,
    model_factory: Callable[[], Any] | None = None,
    profile: dict[str, float] | None = None,
) -> dict[str, int | float]:
    """Fit GCUL on one ``(seed, σ)`` dataset and measure predicted, certified and empirical λ*.

    Parameters
    ----------
    seed : int
        Non-negative dataset seed.
    noise : float
        Noise level σ ≥ 0 (see :func:`simulations.synthetic.make_dataset`).
    config : SyntheticConfig, optional
        Protocol parameters; the paper's by default.
    level : int, optional
        Index of σ in the sweep's noise grid, stored in the ``level`` column (-1 by default,
        meaning the cell was run outside a sweep).
    model_factory : callable, optional
        Makes the unfitted estimator; :class:`simulations.gcul.GCUL` by default. Another
        implementation of the same three phases (the benchmark's scikit-learn pipeline) must
        expose GCUL's fitted attributes ``phase1_``, ``error_mask_``, ``cluster_labels_``,
        ``uncertain_cluster_``, ``n_classes_`` and ``predict``, and may expose ``train_pred_``
        (else ``phase1_.predict`` is called on the training split); it makes both fits of the
        cell.
    profile : dict, optional
        If given, filled with the wall seconds of two parts of the cell (for benchmarks; the row
        holds no time): ``"gaussian_exact"`` (its r̂1, a quasi-Monte Carlo orthant probability)
        and ``"certified"`` (the second fit and the certificate).

    Returns
    -------
    dict
        One row with the keys of :data:`~simulations._results.ROW_COLUMNS`:

        Training split (observed, possibly flipped labels; ``E`` = phase-1 error pool):
        ``eps_train`` = ``|E|/N``; ``lambda_pre_<m>`` = λ*_PRE and ``r1_hat_<m>`` = r̂1 for each
        predictor ``m`` of :data:`gcul_theory.PREDICTORS` (:data:`LAMBDA_METHODS`); ``r2_hat`` =
        the paper's r̂2 (Eq. (eq:r2_hat), Gaussian tail) and ``r2_hat_<model>`` = r̂2 under each
        other contamination model of the registry (``r2_hat_attractor``: chance-correct attractor
        samples counted); ``r1_cluster`` = ``|U ∩ E|/|E|`` and ``r2_cluster`` =
        ``|U \\ E|/(N - |E|)`` for the uncertain cluster ``U``.

        Test split (clean labels): ``base_acc`` (phase 1), ``selective_acc`` (phase 3 on the
        samples it accepts), ``rejection_rate``, ``lambda_emp`` = (ε - ε_sel)/ρ, ``r1_emp`` (share
        of phase-1 errors that phase 3 rejects), ``r2_emp`` (share of phase-1-correct samples it
        rejects).

        Certified predictor (a second fit, on 80% of the training split; see
        :func:`simulations._certified_cell.certified_columns`): ``lambda_cert`` = λ*_CERT
        certified on the other 20% (δ = 0.05) and ``lambda_emp_cert`` = λ*_EMP of that same model
        on the test split (``lambda_emp_cert_noisy``: on its labels flipped as the training
        labels are).

        Plus ``seed``, ``noise``, ``level`` and ``flip_prob``. Every value lies in its range
        in :data:`~simulations._results.COLUMN_RANGES`; the row holds no wall time.

    Raises
    ------
    TypeError, ValueError
        For a bad seed, noise level, config or level (the message names the argument); a
        ValueError too if a computed value left its documented range (never silently written).

    Notes
    -----
    Conventions for empty denominators, so no row holds NaN: when phase 3 rejects every test
    sample, ``selective_acc`` is 1 (no accepted sample is wrong; then λ*_EMP = ε, the break-even
    cost of rejecting everything); a rate over an empty set (``r1_*`` with no base error,
    ``r2_*`` with no correct sample) is 0.

    BLAS runs single-threaded inside the cell (when ``threadpoolctl`` is importable): the solvers
    make many calls on tiny matrices, where waking BLAS threads costs more than the work.

    Examples
    --------
    >>> from simulations.synthetic import SyntheticConfig
    >>> row = run_cell(16, 0.0, SyntheticConfig(n_per_class=100, n_confusion=100))
    >>> row["seed"], row["noise"], row["flip_prob"]
    (16, 0.0, 0.0)
    >>> 0.0 <= row["rejection_rate"] <= 1.0 and row["lambda_pre_union"] >= 0.0
    True
    """
    config = _check_config(config)
    seed = _check_seed(seed)
    noise = check_noise(noise, config)
    level = _check_level(level)
    if profile is not None and not isinstance(profile, dict):
        raise TypeError(f"profile must be a dict or None; got {type(profile).__name__}")
    with _single_threaded_blas():
        metrics = _fit_and_measure(
            make_dataset(seed, noise, config), model_factory or GCUL, seed, noise, profile
        )
    row = {
        "seed": seed,
        "noise": noise,
        "level": level,
        "flip_prob": config.flip_probability(noise),
        **metrics,
    }
    return check_row(row, f"cell (seed={seed}, noise={noise!r})")


class SweepRows(list):
    """The rows of a sweep (a ``list`` of row dicts) and the wall time of each cell.

    Attributes
    ----------
    timings : list of dict
        One ``{"seed", "noise", "seconds"}`` dict per cell, in the order of the rows: the wall time
        of :func:`run_cell` when the cell was computed (for a cell served from the cache, the time
        it took when it was computed and cached). Not part of the rows, which hold no timing.
    cached : int
        How many of the rows were served from the cache (the others were computed by this call).
    """

    timings: list[dict[str, int | float]]
    cached: int


def run_sweep(
    noise_levels: Iterable[float],
    seeds: Iterable[int],
    n_jobs: int = 1,
    cache_dir: str | os.PathLike[str] | None = None,
    config: SyntheticConfig = DEFAULT_CONFIG,
    progress: bool = True,
    backend: str = "loky",
    scheduler: str | None = None,
    on_start: Callable[[int, int], object] | None = None,
) -> SweepRows:
    """Run :func:`run_cell` on every ``(seed, σ)`` of a grid; one row per cell.

    Parameters
    ----------
    noise_levels : iterable of float
        Distinct noise levels σ (e.g. :func:`simulations.synthetic.noise_levels`).
    seeds : iterable of int
        Distinct non-negative seeds (the paper uses 10..19).
    n_jobs : int, optional
        Worker processes (1 by default: in this process), joblib semantics: ``-1`` = all usable
        cores, ``-2`` = all but one, and so on. Capped at the usable cores (:func:`usable_cores`)
        with a one-line notice on stderr, and at the number of cells to compute. Rows do not
        depend on it. With ``backend="dask"`` it is the number of workers of the local cluster
        (one process each, one thread per process, even for ``n_jobs=1``); with a ``scheduler``
        the cluster's own workers run the cells and ``n_jobs`` is not used.
    cache_dir : path, optional
        Directory for the per-cell cache (created if needed). Every finished cell is written there
        at once (one small JSON file, atomically: a temporary file and a rename), so an
        interrupted sweep, even one killed with ``kill -9``, resumes where it stopped. A cell is
        reused only if its file verifies: a regular file (never a link followed, a FIFO or a
        device opened) of at most :data:`CELL_MAX_BYTES`, its SHA-256 checksum, its identity
        (seed, σ, the config, the code that computes it) and the range of every value; any other
        file is recomputed and replaced, with one summary line on stderr. The folder must be
        writable unless it already holds every cell of the grid (a read-only cache serves it).
        While the sweep runs it holds a shared lock on the folder (:data:`CACHE_LOCK`); a sweep
        that finds no other holder removes the temporary files a killed sweep left there.
    config : SyntheticConfig, optional
        Protocol parameters; the paper's by default.
    progress : bool, optional
        Show progress on stderr (done/total, elapsed, ETA): one self-overwriting line on a
        terminal, plain lines (every 10% of the cells or every 5 s, the final state once)
        otherwise.
    backend : {"loky", "dask"}, optional
        ``"loky"`` (default): joblib's process pool on this machine. ``"dask"``: joblib's dask
        backend on a ``dask.distributed`` cluster (the ``dask`` extra: ``pip install -e
        '.[dask]'``), a ``LocalCluster`` of ``n_jobs`` worker processes started for this call and
        closed when it returns (also on an error or an interrupt), unless ``scheduler`` is given.
        Rows, the cache and the progress are the same on both; only the cells not in the cache
        are sent to the workers, and nothing is started when every cell is cached.
    scheduler : str, optional
        Address of a running dask scheduler (``tcp://HOST:8786``), only with ``backend="dask"``.
        Every worker must import this package at the same version (the cache key of a row holds
        the code of this machine). It must answer as a dask scheduler (connect, handshake and an
        ``identity`` call), and a worker must join it, each within :data:`SCHEDULER_TIMEOUT`
        seconds. It is not contacted when every cell is cached.
    on_start : callable, optional
        Called once as ``on_start(n_cached, n_to_compute)`` when the cache has been read, before
        any cell is computed or any worker or cluster is started (e.g. to print what will run).

    Returns
    -------
    SweepRows
        A list of rows sorted by ``(seed, noise)``; ``level`` is the index of σ in the sorted
        noise grid. ``.timings`` holds the wall time of each cell, ``.cached`` the number of
        cells served from the cache.

    Raises
    ------
    TypeError, ValueError
        For a bad argument (the message names it): an empty or repeated grid or seed list, a
        negative or non-finite σ, a σ whose flip probability exceeds 1, ``n_jobs == 0``, a
        ``cache_dir`` that is not a folder, or is not writable while some cell is not in it, an
        unknown ``backend``, a ``scheduler`` without ``backend="dask"``.
    ImportError
        ``backend="dask"`` without dask.distributed installed (the message says what to install).
    ConnectionError
        The ``scheduler`` did not answer as a dask scheduler, or no worker joined it, within
        :data:`SCHEDULER_TIMEOUT` seconds.
    SweepError
        A worker process died (e.g. killed), or a local dask cluster did not start; the cells
        finished before are in the cache.
    OSError
        A cache file cannot be written (``filename`` names it).

    Notes
    -----
    Worker processes that this call starts on this machine (loky's, a local cluster's) end within
    seconds when this process dies, however it dies (``kill -9`` included): each watches its
    parent process, every 0.2 s once it has started (a worker still importing checks when it is
    done: 1.9 s at most after 30 kills at random instants).

    Examples
    --------
    >>> from simulations.synthetic import SyntheticConfig
    >>> small = SyntheticConfig(n_per_class=100, n_confusion=100)
    >>> rows = run_sweep([4.0, 0.0], seeds=[11, 10], config=small, progress=False)
    >>> [(row["seed"], row["noise"], row["level"]) for row in rows]
    [(10, 0.0, 0), (10, 4.0, 1), (11, 0.0, 0), (11, 4.0, 1)]
    >>> [(t["seed"], t["noise"]) for t in rows.timings][:2]
    [(10, 0.0), (10, 4.0)]
    """
    config = _check_config(config)
    grid = _check_noise_levels(noise_levels, config)
    seed_list = _check_seeds(seeds)
    n_jobs, notice = _resolve_n_jobs(n_jobs)
    if not isinstance(progress, bool):
        raise TypeError(f"progress must be a bool; got {progress!r}")
    backend, scheduler = _check_backend(backend, scheduler)
    if on_start is not None and not callable(on_start):
        raise TypeError(f"on_start must be a callable or None; got {on_start!r}")
    directory = None if cache_dir is None else _check_cache_dir(cache_dir)
    if notice:
        print(f"sweep: {notice}", file=sys.stderr, flush=True)

    level_of = {noise: index for index, noise in enumerate(grid)}
    cells = [(seed, noise) for seed in seed_list for noise in grid]
    rows: dict[tuple[int, float], dict[str, int | float]] = {}
    seconds: dict[tuple[int, float], float] = {}
    with contextlib.ExitStack() as stack:
        cache = None
        rejected: list[tuple[Path, str]] = []
        if directory is not None:
            cache = _CellCache(directory, config)
            unwritable = _unwritable(directory)
            if unwritable is None:
                lock = lock_folder(directory, CACHE_LOCK, "a gcul sweep", shared=True)
                if stack.enter_context(lock):  # no other sweep uses this cache: clean it
                    remove_stale_temporaries(directory, _is_cell_name)
            for cell in cells:
                cached = cache.load(*cell)
                if isinstance(cached, str):
                    rejected.append((cache.path(*cell), cached))
                elif cached is not None:
                    rows[cell], seconds[cell] = cached
        todo = [cell for cell in cells if cell not in rows]
        if todo and directory is not None and unwritable is not None:
            raise ValueError(
                f"cache_dir {str(directory)!r} is not a writable directory: {unwritable}; "
                f"{len(todo)} of the {len(cells)} cells are not in it (a read-only cache serves "
                "only a grid whose every cell it holds)"
            )
        if on_start is not None:
            on_start(len(rows), len(todo))
        if rejected:
            print(_describe_rejected(rejected), file=sys.stderr, flush=True)

        bar = _ProgressBar(total=len(cells), done=len(rows), enabled=progress, workers=n_jobs)
        finished = _run_cells(todo, config, n_jobs, backend, scheduler, bar)
        try:
            for seed, noise, row, elapsed in finished:
                row = check_row(row, f"cell (seed={seed}, noise={noise!r})")  # before caching it
                rows[seed, noise], seconds[seed, noise] = row, elapsed
                if cache is not None:
                    cache.store(row, elapsed)
                bar.advance(elapsed)
        finally:
            finished.close()  # now, not when collected: stops the workers (and a local cluster)
            bar.close()

    result = SweepRows()
    result.timings = []
    result.cached = len(cells) - len(todo)
    for seed, noise in cells:
        row = dict(rows[seed, noise])
        row["level"] = level_of[noise]
        result.append(check_row(row, f"cell (seed={seed}, noise={noise!r})"))
        result.timings.append({"seed": seed, "noise": noise, "seconds": seconds[seed, noise]})
    return result


def usable_cores() -> int:
    """Number of CPU cores this process may run on.

    ``os.process_cpu_count()`` on Python 3.13+, else the size of the CPU affinity mask
    (``os.sched_getaffinity``) where the OS has one, else ``os.cpu_count()`` (1 if unknown).

    Examples
    --------
    >>> usable_cores() >= 1
    True
    """
    count = None
    if hasattr(os, "process_cpu_count"):
        count = os.process_cpu_count()
    elif hasattr(os, "sched_getaffinity"):
        try:
            count = len(os.sched_getaffinity(0))
        except OSError:
            count = None
    if not count:
        count = os.cpu_count()
    return max(1, int(count or 1))


# --------------------------------------------------------------------------------------------
# The cell


def _fit_and_measure(
    data: Dataset,
    model_factory: Callable[[], Any],
    seed: int,
    noise: float,
    profile: dict[str, float] | None = None,
) -> dict[str, float]:
    model = model_factory().fit(data.X_train, data.y_train)

    # Training split: predicted λ* from the geometry of the phase-1 error pool, for every
    # predictor of the registry. r̂1 and r̂2 are computed once each and combined exactly as
    # gcul_theory.critical_lambda combines them (the orthant probability of "gaussian_exact" is
    # the expensive part: computing it twice would double it).
    y_pred_train = getattr(model, "train_pred_", None)  # GCUL keeps it from its fit
    if y_pred_train is None:
        y_pred_train = model.phase1_.predict(data.X_train)
    geometry = gcul_theory.estimate_geometry(Z=data.X_train, y=data.y_train, y_pred=y_pred_train)
    metrics: dict[str, float] = {}
    r2_by_model = {}
    for model_name in CONTAMINATION_MODELS:
        method = next(p.name for p in gcul_theory.PREDICTORS if p.contamination == model_name)
        r2_by_model[model_name] = gcul_theory.contamination_rate_bound(geometry, method)
        metrics[contamination_column(model_name)] = float(r2_by_model[model_name])
    for entry in gcul_theory.PREDICTORS:
        start = time.perf_counter()
        r1 = gcul_theory.capture_rate_bound(geometry, entry.name)
        if profile is not None and entry.name == "gaussian_exact":
            profile["gaussian_exact"] = time.perf_counter() - start
        r2 = r2_by_model[entry.contamination]
        lambda_pre = _critical(np.asarray(geometry.eps), np.asarray(r1), np.asarray(r2))
        metrics[entry.column] = float(lambda_pre)
        metrics[f"r1_hat_{entry.name}"] = float(r1)
    error_pool = np.asarray(model.error_mask_, dtype=bool)
    if model.uncertain_cluster_ is None:  # no training error: GCUL has nothing to reject
        uncertain = np.zeros_like(error_pool)
    else:
        uncertain = np.asarray(model.cluster_labels_) == model.uncertain_cluster_
    metrics["eps_train"] = _share(error_pool, np.ones_like(error_pool))
    metrics["r1_cluster"] = _share(uncertain, error_pool)
    metrics["r2_cluster"] = _share(uncertain, ~error_pool)

    # Test split: what rejecting actually bought.
    base_correct = model.phase1_.predict(data.X_test) == data.y_test
    selective = model.predict(data.X_test)
    rejected = selective == model.n_classes_
    accepted = ~rejected
    n_test = data.y_test.size
    base_error = np.count_nonzero(~base_correct) / n_test
    rejection_rate = np.count_nonzero(rejected) / n_test
    n_accepted = np.count_nonzero(accepted)
    selective_error = (
        np.count_nonzero(selective[accepted] != data.y_test[accepted]) / n_accepted
        if n_accepted
        else 0.0
    )
    metrics["base_acc"] = np.count_nonzero(base_correct) / n_test
    metrics["selective_acc"] = 1.0 - selective_error
    metrics["rejection_rate"] = rejection_rate
    metrics["lambda_emp"] = float(
        gcul_theory.empirical_lambda(base_error, selective_error, rejection_rate)
    )
    metrics["r1_emp"] = _share(rejected, ~base_correct)
    metrics["r2_emp"] = _share(rejected, base_correct)

    # The certified predictor: a second fit on 80% of the training split, certified on the rest,
    # judged by λ*_EMP of that same model on the test split.
    start = time.perf_counter()
    metrics.update(certified_columns(data, seed, noise, model_factory))
    if profile is not None:
        profile["certified"] = time.perf_counter() - start
    return metrics


def _share(selected: np.ndarray, within: np.ndarray) -> float:
    """``|selected ∩ within| / |within|``, and 0 when ``within`` is empty."""
    n_within = np.count_nonzero(within)
    return np.count_nonzero(selected & within) / n_within if n_within else 0.0


# --------------------------------------------------------------------------------------------
# Running many cells


def _cell_task(seed: int, noise: float, config: SyntheticConfig):
    # Look run_cell up at call time so a test can monkeypatch it (in-process backends).
    start = time.perf_counter()
    row = run_cell(seed, noise, config)
    return seed, noise, row, time.perf_counter() - start


def _run_cells(
    cells, config, n_jobs, backend="loky", scheduler=None, bar=None
) -> Iterator[tuple[int, float, dict, float]]:
    """Yield ``(seed, noise, row, seconds)`` as cells finish (in any order).

    One call site runs every backend: ``joblib.parallel_config`` chooses it around the same
    ``Parallel(return_as="generator_unordered")``, and :func:`_cell_task` does not know which
    one runs it. With loky and one job the cells run in this process, in order. ``bar`` (a
    :class:`_ProgressBar`) is told how many cells run at once.

    When the consumer stops early (an exception, KeyboardInterrupt or SIGTERM turned into one),
    the joblib generator is closed at once, which makes loky terminate its worker processes
    instead of leaving them to run out their idle timeout; a dask client is closed too, and a
    local cluster with it (its worker processes end), while a remote scheduler forgets the
    cells of this client. When this process dies without a word (``kill -9``), each loky worker
    ends by itself (:func:`_watch_parent`), as a local cluster's workers do (dask's nannies
    watch their parent).

    A worker that dies (killed, out of memory) raises :class:`SweepError`.
    """
    if not cells:
        return
    n_jobs = min(n_jobs, len(cells))
    if bar is not None:
        bar.workers = n_jobs
    if backend == "loky" and n_jobs == 1:
        for seed, noise in cells:
            yield _cell_task(seed, noise, config)
        return
    with contextlib.ExitStack() as stack:
        if backend == "dask":
            client = stack.enter_context(_dask_client(n_jobs, scheduler))
            stack.enter_context(parallel_config(backend="dask", client=client))
            n_jobs = -1  # every thread of the cluster
            if bar is not None and scheduler is not None:
                bar.workers = max(1, sum(client.nthreads().values()))
        else:
            stack.enter_context(
                parallel_config(backend="loky", initializer=_watch_parent, initargs=(os.getpid(),))
            )
        parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
        outputs = parallel(delayed(_cell_task)(seed, noise, config) for seed, noise in cells)
        killed = _import_distributed().KilledWorker if backend == "dask" else BrokenExecutor
        try:
            # not `yield from`: that would pass our close() on to joblib's generator outside the
            # catch_warnings below
            for output in outputs:  # noqa: UP028
                yield output
        except (BrokenExecutor, killed) as error:  # a worker process died
            if isinstance(error, BrokenExecutor):  # loky
                codes = re.search(r"exit codes of the workers are (\{.*?\})", str(error))
                what = "a worker process ended unexpectedly" + (
                    f" (exit codes {codes[1]})" if codes else ""
                )
            else:  # dask, after its retries on other workers
                what = f"dask workers died while running a cell ({_first_line(error)})"
            raise SweepError(
                f"{what}: killed, or out of memory; the cells finished before are cached and a "
                "rerun resumes"
            ) from None
        finally:
            with warnings.catch_warnings():
                # joblib warns that the cancelled tasks were "not used": that is the point here.
                warnings.simplefilter("ignore")
                outputs.close()


def _watch_parent(parent: int) -> None:
    """Worker initializer: end this worker process within :data:`_PARENT_POLL` seconds of the
    death of ``parent``, the process that runs the sweep.

    loky's workers otherwise outlive a parent killed with ``kill -9`` by up to their idle timeout
    (300 s), computing and holding the caller's stderr open (19 of 25 kills left 2 workers and 2
    resource trackers, which end when the workers do). A thread polls ``os.getppid()``, which
    changes when the parent dies (the orphan is adopted), on every platform; ``PR_SET_PDEATHSIG``
    is not used, since on Linux it fires when the parent *thread* that started the worker ends.
    """

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_POLL)
        os._exit(1)  # no cleanup to run: the parent that wanted the result is gone

    threading.Thread(target=watch, name="gcul-watch-parent", daemon=True).start()


def _import_distributed():
    """``dask.distributed``, or an ImportError that says which extra to install."""
    try:
        import dask.distributed as distributed
    except ImportError as error:
        raise ImportError(f"{_DASK_MISSING} ({error})") from None
    return distributed


@contextlib.contextmanager
def _dask_client(n_workers: int, scheduler: str | None):
    """A ``dask.distributed.Client`` on ``scheduler``, or on a new quiet ``LocalCluster``.

    The local cluster has ``n_workers`` worker processes of one thread each (the cells are
    single-threaded), no dashboard, and logs nothing below CRITICAL. The client (and the local
    cluster) are closed on the way out, whatever ends the block.
    """
    distributed = _import_distributed()
    with contextlib.ExitStack() as stack:
        if scheduler is None:
            try:
                cluster = distributed.LocalCluster(
                    n_workers=n_workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    # the scheduler's HTTP routes (health, metrics) on any free port: on 8787, the
                    # default, a second cluster on this machine warns that the port is taken
                    scheduler_kwargs={"dashboard_address": ":0"},
                    # quiet: a failed cell raises here anyway; a worker that loses the
                    # scheduler while the cluster closes logs a traceback at ERROR level
                    silence_logs=logging.CRITICAL,
                )
            except Exception as error:  # e.g. "Nanny failed to start." (a worker was killed)
                raise SweepError(
                    f"the dask LocalCluster of {n_workers} worker(s) did not start "
                    f"({_first_line(error)}); the cells finished before are cached and a rerun "
                    "resumes"
                ) from None
            stack.enter_context(cluster)
            client = stack.enter_context(distributed.Client(cluster, set_as_default=False))
        else:
            _probe_scheduler(scheduler, SCHEDULER_TIMEOUT)
            try:
                client = distributed.Client(
                    scheduler, timeout=SCHEDULER_TIMEOUT, set_as_default=False
                )
            except (OSError, ValueError) as error:  # a timeout is an OSError
                raise ConnectionError(
                    f"cannot reach the dask scheduler at {scheduler!r} within "
                    f"{SCHEDULER_TIMEOUT:g} s ({_first_line(error)}); is `dask scheduler` "
                    "running there?"
                ) from None
            stack.enter_context(client)
            try:
                client.wait_for_workers(1, timeout=SCHEDULER_TIMEOUT)
            except (OSError, ValueError) as error:
                raise ConnectionError(
                    f"the dask scheduler at {scheduler!r} has no worker after "
                    f"{SCHEDULER_TIMEOUT:g} s ({_first_line(error)}); start one with "
                    f"`dask worker {scheduler} --nthreads 1`"
                ) from None
        yield client


def _probe_scheduler(scheduler: str, timeout: float) -> None:
    """Check within about ``timeout`` seconds that a dask scheduler answers at ``scheduler``.

    ``distributed.Client(address, timeout=...)`` bounds only the TCP connect: its handshake waits
    forever on a listener that accepts and never answers (an HTTP server, a stray socket: 1,258 s
    measured before it was stopped). Here the connect, the handshake and an ``identity`` call each
    run under a deadline, in a thread with its own event loop (so this works whether or not the
    caller runs one). A ConnectionError says what went wrong.
    """
    from distributed.comm import connect

    async def identity() -> object:
        # connect() retries a refused connection until `timeout`, then says so: its own message
        # is the clearest, so the deadline around it (which also bounds its handshake) is later
        comm = await asyncio.wait_for(connect(scheduler, timeout=timeout), timeout + 1.0)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await asyncio.wait_for(comm.read(), timeout)
        finally:
            comm.abort()

    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["reply"] = asyncio.run(identity())
        except BaseException as error:  # reported below, in the caller's thread
            outcome["error"] = error

    thread = threading.Thread(target=run, name="gcul-scheduler-probe", daemon=True)
    thread.start()
    thread.join(2 * timeout + 5.0)  # the deadlines above end it sooner
    error = outcome.get("error")
    reply = outcome.get("reply")
    if isinstance(error, (asyncio.TimeoutError, TimeoutError)) or thread.is_alive():
        raise ConnectionError(
            f"{scheduler!r} accepted the connection but did not answer as a dask scheduler "
            f"within {timeout:g} s; is it a dask scheduler (`dask scheduler` listens on "
            "tcp://HOST:8786)?"
        )
    if isinstance(error, OSError) and "Timed out trying to connect" in str(error):
        raise ConnectionError(
            f"cannot reach the dask scheduler at {scheduler!r} within {timeout:g} s "
            f"({_first_line(error)}); is `dask scheduler` running there?"
        )
    if isinstance(error, Exception):
        raise ConnectionError(
            f"no dask scheduler answered at {scheduler!r} ({type(error).__name__}: "
            f"{_first_line(error)}); is `dask scheduler` running there?"
        )
    if error is not None:  # KeyboardInterrupt, SystemExit
        raise error
    kind = reply.get("type") if isinstance(reply, dict) else None
    if kind != "Scheduler":
        raise ConnectionError(
            f"{scheduler!r} answered, but not as a dask scheduler (as {kind or 'something else'}); "
            "give the scheduler's address, e.g. tcp://HOST:8786"
        )


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


class _ProgressBar:
    """Progress on stderr: done/total, elapsed time, ETA.

    On a terminal, one self-overwriting line (``\\r``), redrawn at most every 0.2 s. Otherwise
    (a file, a pipe, a CI log) plain lines: the first state, then whenever another 10% of the
    cells is done or 5 s have passed, and the final state exactly once.

    The ETA leaves out what happens once: starting the worker processes, and the first cell of
    each worker, which pays for its imports and first calls (1.7 s against 0.15 s for the next
    ones, measured with 2 workers). The elapsed time over the cells done, which it was, said
    11m36s after the first cell of a 50 s run. So it is "?" until a cell after the first
    ``workers`` ends; then the remaining cells, in rounds of ``workers`` at once, times the mean
    time those later cells took in their workers; from ``11 * workers`` cells on, the remaining
    cells over the rate at which cells have ended since the first ``workers`` ended (which also
    counts the time spent between cells: dispatch, the cache, a machine shared with other work;
    it waits for ``10 * workers`` cells in that window because workers that end cells together
    make the rate of a short window low by up to one cell).
    """

    _MIN_INTERVAL = 0.2  # seconds between redraws on a terminal
    _LOG_INTERVAL = 5.0  # seconds between plain lines in a log ...
    _LOG_STEPS = 10  # ... or one line per tenth of the cells

    def __init__(self, total: int, done: int, enabled: bool, workers: int = 1) -> None:
        self.total, self.done, self.enabled = total, done, enabled
        self.cached = done
        self.workers = max(1, workers)  # cells computed at once
        self.cell_seconds = 0.0  # summed over the computed cells after the first `workers`
        self.start = time.perf_counter()
        self.steady: float | None = None  # when the first `workers` computed cells had ended
        isatty = getattr(sys.stderr, "isatty", None)
        self.tty = bool(isatty and isatty())
        self.last_draw = -np.inf
        self.last_step = -1
        self.last_logged: int | None = None
        self.width = 0
        self._draw(force=True)

    def advance(self, seconds: float = 0.0) -> None:
        self.done += 1
        computed = self.done - self.cached
        if computed > self.workers:
            self.cell_seconds += seconds
        elif computed == self.workers:
            self.steady = time.perf_counter()
        self._draw(force=self.done == self.total and self.tty)

    def close(self) -> None:
        if not self.enabled:
            return
        if self.tty:
            self._draw(force=True)
            sys.stderr.write("\n")
        elif self.last_logged != self.done:
            self._draw(force=True)
        sys.stderr.flush()

    def _draw(self, force: bool) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        step = self.done * self._LOG_STEPS // max(self.total, 1)
        if not force:
            if self.tty and now - self.last_draw < self._MIN_INTERVAL:
                return
            if not self.tty and (
                self.done == self.total  # the final line is written once, by close()
                or (step == self.last_step and now - self.last_draw < self._LOG_INTERVAL)
            ):
                return
        self.last_draw, self.last_step = now, step
        text = self._text(now)
        if self.tty:
            sys.stderr.write("\r" + text.ljust(self.width))
            self.width = len(text)
        else:
            sys.stderr.write(text + "\n")
            self.last_logged = self.done
        sys.stderr.flush()

    def _text(self, now: float) -> str:
        elapsed = now - self.start
        computed = self.done - self.cached
        remaining = self.total - self.done
        if remaining == 0:
            eta = "0s"
        elif computed >= 11 * self.workers and self.steady is not None and now > self.steady:
            rate = (computed - self.workers) / (now - self.steady)  # cells a second, steady state
            eta = _format_seconds(remaining / rate)
        elif computed > self.workers:
            rounds = math.ceil(remaining / self.workers)
            eta = _format_seconds(rounds * self.cell_seconds / (computed - self.workers))
        else:
            eta = "?"
        cached = f" ({self.cached} cached)" if self.cached else ""
        return (
            f"sweep: {self.done}/{self.total} cells{cached} | elapsed "
            f"{_format_seconds(elapsed)} | ETA {eta}"
        )


def _format_seconds(seconds: float) -> str:
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m{secs:02d}s"
    if minutes:
        return f"{minutes}m{secs:02d}s"
    return f"{secs}s"


# --------------------------------------------------------------------------------------------
# The on-disk cell cache

_CELL_FORMAT = "gcul-sweep-cell"
_CELL_KEYS = frozenset(
    {"format", "cache_version", "key", "code", "config", "seed", "noise", "row", "seconds"}
)


class _CellCache:
    """One JSON file per finished cell, keyed by (seed, σ, config, code version).

    A file is ``{"sha256": <hex>, "payload": {...}}``. The payload names the cell (``seed``,
    ``noise``, ``config``, ``code`` fingerprint, the cache ``key`` derived from them and the
    versions, ``cache_version``) and holds its ``row`` (without ``level``, which belongs to a
    grid, not a cell) and ``seconds`` (the wall time of the cell). The checksum is the SHA-256 of
    the canonical JSON of the payload (sorted keys, no spaces, no NaN), so any edit to the file
    shows. The checksum catches corruption and edits, not a forger who recomputes it; the range
    check on every value still applies.
    """

    def __init__(self, directory: Path, config: SyntheticConfig) -> None:
        self.directory = directory
        self.config = dataclasses.asdict(config)
        self.flip_per_noise = config.flip_per_noise
        self.code = _code_fingerprint()
        self.key = _cache_key(config, self.code)

    def path(self, seed: int, noise: float) -> Path:
        return self.directory / f"cell-{self.key[:16]}-seed{seed}-noise{noise!r}.json"

    def load(self, seed: int, noise: float) -> tuple[dict[str, int | float], float] | str | None:
        """``(row, seconds)`` of a verified cached cell; None if there is no file; else the reason
        the file was not trusted (a short phrase)."""
        data = _read_cell_file(self.path(seed, noise))
        if data is None or isinstance(data, str):
            return data
        try:
            return self._verify(json.loads(data.decode("utf-8")), seed, noise)
        except UnicodeDecodeError:
            return "not UTF-8 text"
        except ValueError:
            return "not valid JSON"
        except RecursionError:  # '[' * 100000 + ']' * 100000 raised it on every rerun
            return "not a gcul cell file (nested too deeply)"

    def _verify(
        self, document: object, seed: int, noise: float
    ) -> tuple[dict[str, int | float], float] | str:
        if not isinstance(document, dict) or set(document) != {"sha256", "payload"}:
            return "not a gcul cell file"
        payload = document["payload"]
        if not isinstance(payload, dict) or set(payload) != _CELL_KEYS:
            return "not a gcul cell file"
        try:
            canonical = _canonical_json(payload)
        except ValueError:
            return "NaN or infinity in the file"
        if document["sha256"] != hashlib.sha256(canonical).hexdigest():
            return "checksum mismatch"
        for name, expected in self._identity(seed, noise).items():
            value = payload[name]
            if value != expected or type(value) is not type(expected):
                return f"belongs to another cell ({name} differs)"
        stored = payload["row"]
        if not isinstance(stored, dict) or "level" in stored:
            return "not a gcul cell file"
        try:
            row = check_row({**stored, "level": -1}, "cached row")
        except ValueError as error:
            return f"bad value: {str(error).removeprefix('cached row: ')}"
        if row["seed"] != seed or row["noise"] != noise:
            return "belongs to another cell (row seed/noise differ)"
        if row["flip_prob"] != self.flip_per_noise * noise:
            return "belongs to another cell (flip_prob differs)"
        elapsed = payload["seconds"]
        if type(elapsed) is not float or not 0.0 <= elapsed < math.inf:
            return f"bad value: seconds must be a finite float >= 0; got {elapsed!r}"
        return row, elapsed

    def _identity(self, seed: int, noise: float) -> dict:
        """What a cell file must carry to be this cell of this sweep's config and code."""
        return {
            "format": _CELL_FORMAT,
            "cache_version": CACHE_VERSION,
            "key": self.key,
            "code": self.code,
            "config": self.config,
            "seed": seed,
            "noise": noise,
        }

    def store(self, row: dict[str, int | float], seconds: float) -> None:
        seed, noise = int(row["seed"]), float(row["noise"])
        payload = {
            **self._identity(seed, noise),
            "row": {column: value for column, value in row.items() if column != "level"},
            "seconds": float(seconds),
        }
        canonical = _canonical_json(payload)
        document = {"sha256": hashlib.sha256(canonical).hexdigest(), "payload": payload}
        path = self.path(seed, noise)
        if path.is_dir() and not path.is_symlink():  # os.replace cannot replace a folder
            try:
                path.rmdir()  # an empty folder in the way of the cell: nothing is lost
            except OSError:
                raise IsADirectoryError(
                    errno.EISDIR,
                    "a folder that is not empty is where this cell goes; remove it",
                    str(path),
                ) from None
        atomic_write_text(path, json.dumps(document, indent=1) + "\n")


def _read_cell_file(path: Path) -> bytes | str | None:
    """The bytes of a cache cell file; None if there is none; else why it is not read.

    Only a regular file of at most :data:`CELL_MAX_BYTES` is read, opened without following a
    symbolic link and without blocking: a FIFO cell hung ``read_text`` forever, a cell linked to
    ``/dev/zero`` was read to 2.46 GB, and a 1 GB cell was read whole.
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        return f"unreadable ({error.strerror or type(error).__name__})"
    kind = _file_kind(info.st_mode)
    if kind != "a regular file":
        return f"{kind}, not a cell file"
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        return None
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "a symbolic link, not a cell file"
        return f"unreadable ({error.strerror or type(error).__name__})"
    try:
        info = os.fstat(fd)  # what was opened (it may have been swapped since the lstat)
        kind = _file_kind(info.st_mode)
        if kind != "a regular file":
            return f"{kind}, not a cell file"
        if info.st_size > CELL_MAX_BYTES:
            return f"too large ({info.st_size} bytes; a cell file is at most {CELL_MAX_BYTES})"
        chunks, size = [], 0
        while size <= CELL_MAX_BYTES:
            chunk = os.read(fd, CELL_MAX_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > CELL_MAX_BYTES:  # it grew while being read
            return f"too large (over {CELL_MAX_BYTES} bytes)"
        return b"".join(chunks)
    except OSError as error:
        return f"unreadable ({error.strerror or type(error).__name__})"
    finally:
        os.close(fd)


def _file_kind(mode: int) -> str:
    """What a file is, from its ``st_mode``: "a regular file", "a folder", "a FIFO", ..."""
    for test, kind in (
        (stat.S_ISREG, "a regular file"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return kind
    return "not a regular file"


def _is_cell_name(name: str) -> bool:
    """Whether ``name`` is the name of a cache cell file (see :meth:`_CellCache.path`)."""
    return name.startswith("cell-") and name.endswith(".json")


def _canonical_json(payload: dict) -> bytes:
    """The bytes that are hashed: sorted keys, no whitespace, ASCII, NaN/inf refused."""
    return json.dumps(
        payload, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    ).encode("ascii")


def _describe_rejected(rejected: list[tuple[Path, str]]) -> str:
    """One stderr line for the cache files that did not verify."""
    shown = "; ".join(f"{path.name}: {reason}" for path, reason in rejected[:3])
    more = f"; and {len(rejected) - 3} more" if len(rejected) > 3 else ""
    return (
        f"sweep: {len(rejected)} cached cell(s) did not verify and are recomputed ({shown}{more})"
    )


def _cache_key(config: SyntheticConfig, code: str) -> str:
    description = {
        "cache_version": CACHE_VERSION,
        "columns": list(ROW_COLUMNS),
        "config": dataclasses.asdict(config),
        "code": code,
        "numpy": np.__version__,
        "scipy": scipy.__version__,
    }
    return hashlib.sha256(json.dumps(description, sort_keys=True).encode()).hexdigest()


def _code_fingerprint() -> str:
    """SHA-256 of the source files that compute a row (a missing file hashes as absent)."""
    here = Path(__file__).resolve().parent
    files = [(f"simulations/{name}", here / name) for name in _CODE_FILES]
    for package in _CODE_PACKAGES:
        for location in importlib.import_module(package).__path__:
            if Path(location).is_dir():
                files += [(f"{package}/{p.name}", p) for p in sorted(Path(location).glob("*.py"))]
    digest = hashlib.sha256()
    for name, path in files:
        digest.update(name.encode() + b"\0")
        digest.update(path.read_bytes() if path.is_file() else b"<absent>")
        digest.update(b"\0")
    return digest.hexdigest()


# --------------------------------------------------------------------------------------------
# Argument checks


def _check_backend(backend: str, scheduler: str | None) -> tuple[str, str | None]:
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise ValueError(
            f"backend must be one of {', '.join(map(repr, BACKENDS))}; got {backend!r}"
        )
    if scheduler is not None:
        if not isinstance(scheduler, str) or not scheduler.strip():
            raise TypeError(
                f"scheduler must be a dask scheduler address such as 'tcp://HOST:8786', or "
                f"None; got {scheduler!r}"
            )
        if backend != "dask":
            raise ValueError(
                f"scheduler is the address of a dask scheduler: it needs backend='dask'; got "
                f"backend={backend!r} with scheduler={scheduler!r}"
            )
        scheduler = scheduler.strip()
    if backend == "dask":
        _import_distributed()  # fail before any cell or cache file, not after the cached ones
    return backend, scheduler


def _check_level(level: int) -> int:
    if isinstance(level, bool) or not isinstance(level, numbers.Integral) or level < -1:
        raise ValueError(f"level must be an int >= -1; got {level!r}")
    return int(level)


def _check_noise_levels(noise_levels: Iterable[float], config: SyntheticConfig) -> list[float]:
    values = _as_list(noise_levels, "noise_levels")
    grid = []
    for value in values:
        try:
            grid.append(check_noise(value, config))
        except (TypeError, ValueError) as error:
            raise type(error)(f"noise_levels: {error}") from None
    _check_distinct(grid, "noise_levels")
    return sorted(grid)


def _check_seeds(seeds: Iterable[int]) -> list[int]:
    values = _as_list(seeds, "seeds")
    checked = []
    for value in values:
        try:
            checked.append(_check_seed(value))
        except (TypeError, ValueError) as error:
            raise type(error)(f"seeds: {error}") from None
    _check_distinct(checked, "seeds")
    return sorted(checked)


def _as_list(values, name: str) -> list:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError(f"{name} must be a non-empty iterable of numbers; got {values!r}")
    values = np.asarray(values).ravel().tolist() if isinstance(values, np.ndarray) else list(values)
    if not values:
        raise ValueError(f"{name} must be non-empty; got an empty sequence")
    return values


def _check_distinct(values: list, name: str) -> None:
    seen: set = set()
    duplicates = sorted({v for v in values if v in seen or seen.add(v)})
    if duplicates:
        raise ValueError(f"{name} must be distinct; repeated: {duplicates}")


def _resolve_n_jobs(n_jobs: int) -> tuple[int, str | None]:
    """The number of worker processes to start, and a notice if ``n_jobs`` was capped.

    joblib semantics: a positive ``n_jobs`` is a count; ``-1`` means all usable cores, ``-2`` all
    but one, and so on (at least 1). A count above :func:`usable_cores` is capped there: more
    processes than cores only add memory and contention (``--jobs 999`` on 2 cores started about
    975 processes).
    """
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral):
        raise TypeError(f"n_jobs must be a non-zero int (-1 = all usable cores); got {n_jobs!r}")
    if n_jobs == 0:
        raise ValueError("n_jobs must be a non-zero int (-1 = all usable cores); got 0")
    cores = usable_cores()
    if n_jobs < 0:
        return max(1, cores + 1 + int(n_jobs)), None
    if n_jobs > cores:
        return cores, f"n_jobs={int(n_jobs)} capped at the {cores} usable CPU core(s)"
    return int(n_jobs), None


def _check_cache_dir(cache_dir: str | os.PathLike[str]) -> Path:
    """Create the cache directory if needed (its writability is checked by :func:`run_sweep`,
    only when a cell is missing from it)."""
    if not isinstance(cache_dir, (str, os.PathLike)):
        raise TypeError(f"cache_dir must be a path or None; got {cache_dir!r}")
    path = Path(cache_dir)
    if path.is_symlink() and not path.exists():
        raise ValueError(
            f"cache_dir {str(path)!r} is a symbolic link to {os.readlink(path)!r}, which does not "
            "exist; create that folder or give another cache_dir"
        )
    if path.exists() and not path.is_dir():
        kind = _file_kind(path.stat().st_mode)
        raise ValueError(f"cache_dir must be a directory; {str(path)!r} is {kind}")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise ValueError(f"cache_dir {str(path)!r} is not a writable directory: {reason}") from None
    return path


def _unwritable(folder: Path) -> str | None:
    """None if a file can be created in ``folder``, else the reason (e.g. "Permission denied")."""
    try:
        check_writable(folder)
    except OSError as error:
        return error.strerror or type(error).__name__
    return None
