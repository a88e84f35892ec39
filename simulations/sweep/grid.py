"""A grid of sweep cells: its arguments checked once (:func:`plan_sweep`), its run
(:meth:`SweepPlan.run`) and its rows (:class:`SweepRows`); :func:`run_sweep` does both.

Every argument of a sweep is checked here, once, for the whole grid, before any file is touched or
any cell runs; the cells themselves are not checked again, and each computed row is checked once,
when it reaches this process and before it is cached (a cached row when it is read back).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from simulations.outputs import lock_folder, remove_stale_temporaries
from simulations.results import check_geometry_labels, check_row
from simulations.sweep import backends, cache
from simulations.sweep.cell import DEFAULT_CONFIG
from simulations.sweep.progress import ProgressBar
from simulations.synthetic import SyntheticConfig, check_config, check_noise, check_seed
from simulations.validation import error_pool_renamed

__all__ = ["SweepPlan", "SweepRows", "plan_sweep", "run_sweep"]


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
    scores : dict
        ``{(seed, noise): CellScores}`` of the cells of ``keep_scores`` (:meth:`SweepPlan.run`)
        that this call computed (none for a cell served from the cache).
    """

    timings: list[dict[str, int | float]]
    cached: int
    scores: dict


@dataclasses.dataclass(frozen=True)
class SweepPlan:
    """The checked arguments of a sweep (:func:`plan_sweep`); :meth:`run` runs it.

    Attributes
    ----------
    grid : tuple of float
        The noise levels, sorted; ``level`` in a row is the index of its σ here.
    seeds : tuple of int
        The seeds, sorted.
    n_jobs : int
        Worker processes to start (``n_jobs`` resolved: -1 is all usable cores; capped there).
    notice : str or None
        Why ``n_jobs`` was capped, if it was (``"n_jobs=999 capped at the 2 usable CPU
        core(s)"``).
    backend, scheduler : str, str or None
        Where the cells run.
    config : SyntheticConfig
        The protocol.
    cache_dir : Path or None
        The cache folder (created when the plan runs).
    geometry_labels : {"observed", "clean"}
        The training labels that λ*_PRE's geometry (its error pool, class shares and class
        cores) is estimated with (:data:`simulations.results.GEOMETRY_LABELS`).
    """

    grid: tuple[float, ...]
    seeds: tuple[int, ...]
    n_jobs: int
    notice: str | None
    backend: str
    scheduler: str | None
    config: SyntheticConfig
    cache_dir: Path | None
    geometry_labels: str = "observed"

    @property
    def cells(self) -> list[tuple[int, float]]:
        """Every ``(seed, σ)`` of the grid, sorted by seed, then σ."""
        return [(seed, noise) for seed in self.seeds for noise in self.grid]

    def run(
        self,
        progress: bool = True,
        on_start: Callable[[int, int], object] | None = None,
        keep_scores: Iterable[tuple[int, float]] = (),
    ) -> SweepRows:
        """Run every cell not in the cache; see :func:`run_sweep` (``progress``, ``on_start``,
        what is raised, what is returned). The computed cells of ``keep_scores`` (``(seed, σ)``
        pairs) also give their per-sample rejector scores (``SweepRows.scores``)."""
        keep_scores = frozenset(keep_scores)
        if not isinstance(progress, bool):
            raise TypeError(f"progress must be a bool; got {progress!r}")
        if on_start is not None and not callable(on_start):
            raise TypeError(f"on_start must be a callable or None; got {on_start!r}")
        directory = None if self.cache_dir is None else cache.prepare_cache_dir(self.cache_dir)
        level_of = {noise: index for index, noise in enumerate(self.grid)}
        cells = self.cells
        rows: dict[tuple[int, float], dict[str, int | float]] = {}
        seconds: dict[tuple[int, float], float] = {}
        kept: dict[tuple[int, float], object] = {}
        with contextlib.ExitStack() as stack:
            store = None
            rejected: list[tuple[Path, str]] = []
            if directory is not None:
                store = cache.CellCache(directory, self.config, self.geometry_labels)
                unwritable = cache.unwritable(directory)
                if unwritable is None:
                    lock = lock_folder(directory, cache.CACHE_LOCK, "a gcul sweep", shared=True)
                    if stack.enter_context(lock):  # no other sweep uses this cache: clean it
                        remove_stale_temporaries(directory, cache.is_cell_name)
                for cell in cells:
                    cached = store.load(*cell)
                    if isinstance(cached, str):
                        rejected.append((store.path(*cell), cached))
                    elif cached is not None:
                        rows[cell], seconds[cell] = cached
            todo = [cell for cell in cells if cell not in rows]
            if todo and directory is not None and unwritable is not None:
                raise ValueError(
                    f"cache_dir {str(directory)!r} is not a writable directory: {unwritable}; "
                    f"{len(todo)} of the {len(cells)} cells are not in it (a read-only cache "
                    "serves only a grid whose every cell it holds)"
                )
            if on_start is not None:
                on_start(len(rows), len(todo))
            if rejected:
                print(cache.describe_rejected(rejected), file=sys.stderr, flush=True)

            bar = ProgressBar(
                total=len(cells), done=len(rows), enabled=progress, workers=self.n_jobs
            )
            finished = backends.run_cells(
                todo,
                self.config,
                self.n_jobs,
                self.backend,
                self.scheduler,
                bar,
                self.geometry_labels,
                keep_scores,
            )
            try:
                for seed, noise, row, elapsed in finished:
                    if backends.CELL_SCORES_KEY in row:  # not a column: out before the check
                        row = dict(row)
                        kept[seed, noise] = row.pop(backends.CELL_SCORES_KEY)
                    # the one check of a computed row: here, before it is cached
                    row = check_row(row, f"cell (seed={seed}, noise={noise!r})")
                    rows[seed, noise], seconds[seed, noise] = row, elapsed
                    if store is not None:
                        store.store(row, elapsed)
                    bar.advance(elapsed)
            finally:
                finished.close()  # now, not when collected: stops the workers (and a local cluster)
                bar.close()

        result = SweepRows()
        result.timings = []
        result.cached = len(cells) - len(todo)
        result.scores = kept
        for seed, noise in cells:
            row = dict(rows[seed, noise])  # checked (computed or read back), in column order
            row["level"] = level_of[noise]
            result.append(row)
            result.timings.append({"seed": seed, "noise": noise, "seconds": seconds[seed, noise]})
        return result


@error_pool_renamed
def plan_sweep(
    noise_levels: Iterable[float],
    seeds: Iterable[int],
    n_jobs: int = 1,
    cache_dir: str | os.PathLike[str] | None = None,
    config: SyntheticConfig = DEFAULT_CONFIG,
    backend: str = "loky",
    scheduler: str | None = None,
    geometry_labels: str = "observed",
) -> SweepPlan:
    """Check the arguments of a sweep, once, for the whole grid; nothing is run or created.

    The arguments are those of :func:`run_sweep`. The cache folder is only checked to be a path
    here; whether it can be a folder, and is writable, is checked when the plan runs (the file
    system may change in between).

    Returns
    -------
    SweepPlan
        The grid and seeds sorted, ``n_jobs`` resolved, the backend checked (dask imported).

    Raises
    ------
    TypeError, ValueError, ImportError
        As :func:`run_sweep`, for its arguments.

    Examples
    --------
    >>> plan = plan_sweep([4.0, 0.0], [11, 10], n_jobs=1)
    >>> plan.grid, plan.seeds, plan.cells[:2]
    ((0.0, 4.0), (10, 11), [(10, 0.0), (10, 4.0)])
    """
    config = check_config(config)
    grid = _check_noise_levels(noise_levels, config)
    seed_list = _check_seeds(seeds)
    n_jobs, notice = backends.resolve_n_jobs(n_jobs)
    backend, scheduler = backends.check_backend(backend, scheduler)
    if cache_dir is not None and not isinstance(cache_dir, (str, os.PathLike)):
        raise TypeError(f"cache_dir must be a path or None; got {cache_dir!r}")
    geometry_labels = check_geometry_labels(geometry_labels)
    return SweepPlan(
        grid=tuple(grid),
        seeds=tuple(seed_list),
        n_jobs=n_jobs,
        notice=notice,
        backend=backend,
        scheduler=scheduler,
        config=config,
        cache_dir=None if cache_dir is None else Path(cache_dir),
        geometry_labels=geometry_labels,
    )


@error_pool_renamed
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
    geometry_labels: str = "observed",
) -> SweepRows:
    """Run :func:`~simulations.sweep.cell.run_cell` on every ``(seed, σ)`` of a grid; a row a cell.

    Parameters
    ----------
    noise_levels : iterable of float
        Distinct noise levels σ (e.g. :func:`simulations.synthetic.noise_levels`).
    seeds : iterable of int
        Distinct non-negative seeds (the paper uses 10..19).
    n_jobs : int, optional
        Worker processes (1 by default: in this process), joblib semantics: ``-1`` = all usable
        cores, ``-2`` = all but one, and so on. Capped at the usable cores
        (:func:`~simulations.sweep.backends.usable_cores`) with a one-line notice on stderr, and
        at the number of cells to compute. Rows do not depend on it. With ``backend="dask"`` it
        is the number of workers of the local cluster (one process each, one thread per process,
        even for ``n_jobs=1``); with a ``scheduler`` the cluster's own workers run the cells and
        ``n_jobs`` is not used.
    cache_dir : path, optional
        Directory for the per-cell cache (created if needed). Every finished cell is written there
        at once (one small JSON file, atomically: a temporary file and a rename), so an
        interrupted sweep, even one killed with ``kill -9``, resumes where it stopped. A cell is
        reused only if its file verifies: a regular file (never a link followed, a FIFO or a
        device opened) of at most :data:`~simulations.sweep.cache.CELL_MAX_BYTES`, its SHA-256
        checksum, its identity (seed, σ, the config, the code that computes it) and the range of
        every value; any other file is recomputed and replaced, with one summary line on stderr.
        The folder must be writable unless it already holds every cell of the grid (a read-only
        cache serves it). While the sweep runs it holds a shared lock on the folder
        (:data:`~simulations.sweep.cache.CACHE_LOCK`); a sweep that finds no other holder removes
        the temporary files a killed sweep left there.
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
        ``identity`` call), and a worker must join it, each within
        :data:`~simulations.sweep.backends.SCHEDULER_TIMEOUT` seconds. It is not contacted when
        every cell is cached.
    on_start : callable, optional
        Called once as ``on_start(n_cached, n_to_compute)`` when the cache has been read, before
        any cell is computed or any worker or cluster is started (e.g. to print what will run).
    geometry_labels : {"observed", "clean"}, default "observed"
        The training labels that the geometry behind every λ*_PRE is estimated with (see
        :func:`~simulations.sweep.cell.run_cell`); part of each cached cell's identity, so the
        two readings never share a cell.

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
        :data:`~simulations.sweep.backends.SCHEDULER_TIMEOUT` seconds.
    SweepError
        A worker process died (e.g. killed), a local dask cluster did not start, or the dask
        cluster has had no worker for :func:`~simulations.sweep.backends.no_worker_timeout`
        seconds (60 unless ``GCUL_DASK_NO_WORKER_TIMEOUT`` says otherwise) with cells left; the
        cells finished before are in the cache.
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
    plan = plan_sweep(
        noise_levels, seeds, n_jobs, cache_dir, config, backend, scheduler, geometry_labels
    )
    if not isinstance(progress, bool):  # before the notice, as every other argument
        raise TypeError(f"progress must be a bool; got {progress!r}")
    if plan.notice:
        print(f"sweep: {plan.notice}", file=sys.stderr, flush=True)
    return plan.run(progress=progress, on_start=on_start)


# --------------------------------------------------------------------------------------------
# Argument checks


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
            checked.append(check_seed(value))
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
    repeated: set = set()
    for v in values:
        (repeated if v in seen else seen).add(v)
    duplicates = sorted(repeated)
    if duplicates:
        raise ValueError(f"{name} must be distinct; repeated: {duplicates}")
