"""Where the cells of a sweep run: joblib's loky process pool, or a dask.distributed cluster.

One generator runs every backend (:func:`run_cells`): loky through joblib's
``Parallel(return_as="generator_unordered")``, dask by submitting each cell to the cluster's client
(``Client.map`` and ``as_completed``), and the task (:func:`cell_task`) does not know which one runs
it. Workers started here end with their parent, however it ends; a worker that dies raises
:class:`SweepError`, and so does a dask cluster left with no worker for
:func:`no_worker_timeout` seconds while cells are left to compute.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import numbers
import os
import re
import threading
import time
import warnings
from collections.abc import Generator
from concurrent.futures import BrokenExecutor

from joblib import Parallel, delayed, parallel_config

from simulations.sweep import cell
from simulations.synthetic import SyntheticConfig
from simulations.validation import first_line

__all__ = [
    "BACKENDS",
    "NO_WORKER_TIMEOUT",
    "NO_WORKER_TIMEOUT_VARIABLE",
    "SCHEDULER_TIMEOUT",
    "SweepError",
    "cell_task",
    "check_backend",
    "local_cluster",
    "no_worker_timeout",
    "resolve_n_jobs",
    "run_cells",
    "run_loky",
    "usable_cores",
]

BACKENDS: tuple[str, ...] = ("loky", "dask")
"""Where :func:`simulations.sweep.run_sweep` runs its cells: ``"loky"`` (joblib's process pool on
this machine) or ``"dask"`` (a ``dask.distributed`` cluster, each cell one task; needs the ``dask``
extra)."""

SCHEDULER_TIMEOUT = 10.0
"""Seconds to wait for a dask scheduler to answer (connect and handshake), and then for its first
worker to join."""

NO_WORKER_TIMEOUT = 60.0
"""Seconds a dask sweep waits while its cluster has no worker (or its scheduler does not answer)
and cells are left to compute, before it gives up with :class:`SweepError`. The scheduler keeps a
lost worker's cells and waits for another worker, forever; a worker that joins within this time
resumes the sweep. The environment variable named by :data:`NO_WORKER_TIMEOUT_VARIABLE` overrides
it (:func:`no_worker_timeout`)."""

NO_WORKER_TIMEOUT_VARIABLE = "GCUL_DASK_NO_WORKER_TIMEOUT"
"""The environment variable that sets :func:`no_worker_timeout`, in seconds (a positive number)."""

_DASK_POLL = 0.1  # seconds between two looks for finished cells on dask
_WORKER_POLL = 1.0  # seconds between two questions to the dask scheduler: how many workers?

_PARENT_POLL = 0.2  # seconds between two checks, in a worker process, that its parent lives

_DASK_MISSING = "the dask backend needs dask.distributed: pip install -e '.[dask]'"


class SweepError(RuntimeError):
    """The cells could not be run: a worker process died, or the dask cluster did not start.

    Every cell that finished before is in the cache (with ``cache_dir``), so a rerun resumes.
    """


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


def resolve_n_jobs(n_jobs: int) -> tuple[int, str | None]:
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


def no_worker_timeout() -> float:
    """Seconds a dask sweep waits with no worker before it gives up: :data:`NO_WORKER_TIMEOUT`, or
    the environment variable :data:`NO_WORKER_TIMEOUT_VARIABLE` if it is set.

    Raises
    ------
    ValueError
        The variable is set to something other than a finite positive number of seconds.

    Examples
    --------
    >>> no_worker_timeout() > 0
    True
    """
    text = os.environ.get(NO_WORKER_TIMEOUT_VARIABLE)
    if text is None:
        return NO_WORKER_TIMEOUT
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not 0.0 < seconds < float("inf"):
        raise ValueError(
            f"the environment variable {NO_WORKER_TIMEOUT_VARIABLE} must be a positive number of "
            f"seconds (how long a dask sweep waits with no worker); got {text!r}"
        )
    return seconds


def check_backend(backend: str, scheduler: str | None) -> tuple[str, str | None]:
    """``backend`` and ``scheduler`` checked (the address stripped); dask is imported now, so that
    a missing extra fails before any cell or cache file, not after the cached ones, and
    :func:`no_worker_timeout` is read."""
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
        no_worker_timeout()
    return backend, scheduler


CELL_SCORES_KEY = "_cell_scores"
"""The key under which :func:`cell_task` adds a cell's per-sample rejector scores to its row when
asked (``keep_scores``); the sweep takes it out before the row is checked or cached."""


def cell_task(
    seed: int,
    noise: float,
    config: SyntheticConfig,
    geometry_labels: str = "observed",
    keep_scores: bool = False,
):
    """Compute one cell in a worker: ``(seed, noise, row, seconds)``, the row unchecked (the
    parent checks it before caching it). With ``keep_scores`` the row also holds the cell's
    :class:`~simulations.rejectors.evaluate.CellScores` under :data:`CELL_SCORES_KEY`."""
    # cell.compute_row is looked up at call time, so that a test can replace it (in-process runs)
    start = time.perf_counter()
    if keep_scores:
        scores: dict = {}
        row = cell.compute_row(seed, noise, config, geometry_labels=geometry_labels, scores=scores)
        if "cell" in scores:
            row = {**row, CELL_SCORES_KEY: scores["cell"]}
    else:
        row = cell.compute_row(seed, noise, config, geometry_labels=geometry_labels)
    return seed, noise, row, time.perf_counter() - start


def run_cells(
    cells,
    config,
    n_jobs,
    backend="loky",
    scheduler=None,
    bar=None,
    geometry_labels="observed",
    keep_scores=frozenset(),
) -> Generator[tuple[int, float, dict, float], None, None]:
    """Yield ``(seed, noise, row, seconds)`` as cells finish (in any order).

    The rows of the cells in ``keep_scores`` (a set of ``(seed, noise)``) also hold their
    per-sample rejector scores (:func:`cell_task`).

    With loky the cells go through joblib's ``Parallel(return_as="generator_unordered")`` (with
    one job they run in this process, in order); with dask each cell is one task submitted to
    the cluster's client, and its result is yielded as it completes. :func:`cell_task` does not
    know which one runs it. ``bar`` (a :class:`~simulations.sweep.progress.ProgressBar`) is told
    how many cells run at once.

    When the consumer stops early (an exception, KeyboardInterrupt or SIGTERM turned into one),
    the joblib generator is closed at once, which makes loky terminate its worker processes
    instead of leaving them to run out their idle timeout; a dask client is closed too, and a
    local cluster with it (its worker processes end), while a remote scheduler forgets the
    cells of this client. When this process dies without a word (``kill -9``), each loky worker
    ends by itself (:func:`_watch_parent`), as a local cluster's workers do (dask's nannies
    watch their parent).

    Not joblib's dask backend: it runs every batch under ``parallel_config(backend="dask")``,
    which opens a dask client inside the worker; when the cluster closed under a running cell
    (SIGTERM), that client could outlive its worker's event loop and print a traceback
    (``Client.__del__``: "IOLoop is closed") on the command's stderr, in about 1 run in 25.

    A worker that dies (killed, out of memory) raises :class:`SweepError`.
    """
    if not cells:
        return
    n_jobs = min(n_jobs, len(cells))
    if bar is not None:
        bar.workers = n_jobs
    if backend == "dask":
        yield from _dask_cells(cells, config, n_jobs, scheduler, bar, geometry_labels, keep_scores)
        return
    if n_jobs == 1:
        for seed, noise in cells:
            yield cell_task(seed, noise, config, geometry_labels, (seed, noise) in keep_scores)
        return
    calls = (
        delayed(cell_task)(seed, noise, config, geometry_labels, (seed, noise) in keep_scores)
        for seed, noise in cells
    )
    outputs = run_loky(calls, n_jobs)
    try:
        # not `yield from`: our close() goes to run_loky's generator in the finally below
        for output in outputs:  # noqa: UP028
            yield output
    except SweepError as error:  # a worker process died
        raise SweepError(f"{error}: {_WORKER_DIED}") from None
    finally:
        outputs.close()


def run_loky(calls, n_jobs: int) -> Generator:
    """Yield the results of joblib ``delayed`` ``calls`` as they finish, on ``n_jobs`` loky
    worker processes that end with this process, however it ends.

    The one place where loky workers are started, for the sweep's cells (:func:`run_cells`) and
    for the splits of :func:`simulations.compare.compare`. Each worker watches its parent
    (:func:`_watch_parent`): a parent killed with ``kill -9`` leaves no worker (and so no loky
    resource tracker) behind for more than a second or two. When the consumer stops early (an
    exception, ``KeyboardInterrupt``, ``close()``), joblib's generator is closed at once, which
    terminates the workers rather than leaving them to their idle timeout.

    Raises
    ------
    SweepError
        A worker process died (killed, out of memory); the message is ``"a worker process ended
        unexpectedly (exit codes {...})"``, for the caller to say what was kept.
    """
    with parallel_config(backend="loky", initializer=_watch_parent, initargs=(os.getpid(),)):
        outputs = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(calls)
        try:
            for output in outputs:  # noqa: UP028
                yield output
        except BrokenExecutor as error:  # a worker process died
            codes = re.search(r"exit codes of the workers are (\{.*?\})", str(error))
            what = "a worker process ended unexpectedly"
            raise SweepError(what + (f" (exit codes {codes[1]})" if codes else "")) from None
        finally:
            with warnings.catch_warnings():
                # joblib warns that the cancelled tasks were "not used": that is the point here.
                warnings.simplefilter("ignore")
                outputs.close()


_WORKER_DIED = "killed, or out of memory; the cells finished before are cached and a rerun resumes"


def _dask_cells(cells, config, n_jobs, scheduler, bar, geometry_labels, keep_scores=frozenset()):
    """:func:`run_cells` on dask: one task per cell on the client of :func:`_dask_client`.

    A worker that dies while running a cell hands it back to the scheduler, which waits for
    another worker to run it, however long that takes; so the cluster's workers are counted every
    :data:`_WORKER_POLL` seconds, and :class:`SweepError` is raised once there has been none (or
    no answer from the scheduler) for :func:`no_worker_timeout` seconds in a row.
    """
    distributed = _import_distributed()
    timeout = no_worker_timeout()
    with _dask_client(n_jobs, scheduler) as client:
        if bar is not None and scheduler is not None:
            bar.workers = max(1, sum(client.nthreads().values()))
        n_cells = len(cells)
        futures = client.map(
            cell_task,
            [seed for seed, _ in cells],
            [noise for _, noise in cells],
            [config] * n_cells,
            [geometry_labels] * n_cells,
            [cell in keep_scores for cell in cells],
            pure=False,  # a key per submission: a rerun computes, never reuses another's result
        )
        where = (
            f"the dask scheduler at {scheduler!r}" if scheduler is not None
            else "the dask LocalCluster"
        )  # fmt: skip
        completed = distributed.as_completed(futures, loop=client.loop)
        left = n_cells
        watch = _WorkerWatch(client, timeout)
        try:
            while left:
                batch = completed.next_batch(block=False)
                for future in batch:
                    yield future.result()
                left -= len(batch)
                if batch:
                    watch.saw_work()
                elif left:
                    problem = watch.problem()
                    if problem is not None:
                        raise SweepError(
                            f"{where} has had {problem} for {timeout:g} s "
                            f"({NO_WORKER_TIMEOUT_VARIABLE}) with {left} cells left to compute: "
                            f"its workers died or left; {_FINISHED_KEPT}"
                        )
                    time.sleep(_DASK_POLL)
        except distributed.KilledWorker as error:  # after dask's retries on other workers
            raise SweepError(
                f"dask workers died while running a cell ({first_line(error)}): {_WORKER_DIED}"
            ) from None
        except distributed.client.FutureCancelledError as error:  # e.g. the scheduler died
            raise SweepError(
                f"{where} dropped the cells left to compute ({first_line(error)}), as it does "
                f"when it stops or restarts; {_FINISHED_KEPT}"
            ) from None


_FINISHED_KEPT = "the cells finished before are cached and a rerun resumes"


class _WorkerWatch:
    """Counts a dask cluster's workers, at most every :data:`_WORKER_POLL` seconds, and says when
    there has been none, or no answer from the scheduler, for ``timeout`` seconds in a row."""

    def __init__(self, client, timeout: float) -> None:
        self.client = client
        self.timeout = timeout
        self.asked = -float("inf")
        self.since: float | None = None  # since when no worker (or no answer) has been seen
        self.what = "no worker"

    def saw_work(self) -> None:
        """A cell finished: some worker is alive."""
        self.since = None

    def problem(self) -> str | None:
        """``"no worker"`` or ``"no answer from the scheduler"`` once that has lasted
        ``timeout`` seconds, else None."""
        now = time.monotonic()
        if now - self.asked >= _WORKER_POLL:
            self.asked = now
            try:
                workers = len(self.client.nthreads(callback_timeout=max(_WORKER_POLL, 5.0)))
                self.what = "no worker"
            except (OSError, TimeoutError):  # the scheduler is gone, or does not answer
                workers = 0
                self.what = "no answer from the scheduler"
            if workers:
                self.since = None
            elif self.since is None:
                self.since = now
        if self.since is not None and now - self.since >= self.timeout:
            return self.what
        return None


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


def local_cluster(n_workers: int):
    """A new quiet dask ``LocalCluster`` of ``n_workers`` single-threaded worker processes.

    The cluster the dask backend starts when no scheduler is given (the cells are
    single-threaded), and the one ``benchmarks/bench_sweep.py`` times: no dashboard, the
    scheduler's HTTP routes on a free port, nothing logged below CRITICAL. The caller closes it.

    Parameters
    ----------
    n_workers : int
        Worker processes, of one thread each.

    Returns
    -------
    dask.distributed.LocalCluster
        The running cluster (a context manager: ``with local_cluster(2) as cluster: ...``).

    Raises
    ------
    ImportError
        Without ``dask.distributed`` (the extra ``dask``), saying which extra to install.
    """
    distributed = _import_distributed()
    return distributed.LocalCluster(
        n_workers=n_workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        # the scheduler's HTTP routes (health, metrics) on any free port: on 8787, the default,
        # a second cluster on this machine warns that the port is taken
        scheduler_kwargs={"dashboard_address": ":0"},
        # quiet: a failed cell raises anyway; a worker that loses the scheduler while the
        # cluster closes logs a traceback at ERROR level
        silence_logs=logging.CRITICAL,
    )


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
                cluster = local_cluster(n_workers)
            except Exception as error:  # e.g. "Nanny failed to start." (a worker was killed)
                raise SweepError(
                    f"the dask LocalCluster of {n_workers} worker(s) did not start "
                    f"({first_line(error)}); the cells finished before are cached and a rerun "
                    "resumes"
                ) from None
            stack.enter_context(cluster)
            client = stack.enter_context(distributed.Client(cluster, set_as_default=False))
        else:
            # quiet: a scheduler that dies makes the client log its failed reconnection (a
            # traceback at ERROR level) while the sweep reports it in one line
            stack.enter_context(_quiet_logger("distributed.client"))
            _probe_scheduler(scheduler, SCHEDULER_TIMEOUT)
            try:
                client = distributed.Client(
                    scheduler, timeout=SCHEDULER_TIMEOUT, set_as_default=False
                )
            except (OSError, ValueError) as error:  # a timeout is an OSError
                raise ConnectionError(
                    f"cannot reach the dask scheduler at {scheduler!r} within "
                    f"{SCHEDULER_TIMEOUT:g} s ({first_line(error)}); is `dask scheduler` "
                    "running there?"
                ) from None
            stack.enter_context(client)
            try:
                client.wait_for_workers(1, timeout=SCHEDULER_TIMEOUT)
            # distributed's WorkerStartTimeoutError is an asyncio.TimeoutError, which is an
            # OSError (TimeoutError) from Python 3.11 on but not on 3.10
            except (OSError, ValueError, asyncio.TimeoutError) as error:
                raise ConnectionError(
                    f"the dask scheduler at {scheduler!r} has no worker after "
                    f"{SCHEDULER_TIMEOUT:g} s ({first_line(error)}); start one with "
                    f"`dask worker {scheduler} --nthreads 1`"
                ) from None
        yield client


@contextlib.contextmanager
def _quiet_logger(name: str):
    """Within the block, the logger ``name`` logs nothing below CRITICAL."""
    logger = logging.getLogger(name)
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


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
            f"({first_line(error)}); is `dask scheduler` running there?"
        )
    if isinstance(error, Exception):
        raise ConnectionError(
            f"no dask scheduler answered at {scheduler!r} ({type(error).__name__}: "
            f"{first_line(error)}); is `dask scheduler` running there?"
        )
    if isinstance(error, BaseException):  # KeyboardInterrupt, SystemExit (run() stores no other)
        raise error
    kind = reply.get("type") if isinstance(reply, dict) else None
    if kind != "Scheduler":
        raise ConnectionError(
            f"{scheduler!r} answered, but not as a dask scheduler (as {kind or 'something else'}); "
            "give the scheduler's address, e.g. tcp://HOST:8786"
        )
