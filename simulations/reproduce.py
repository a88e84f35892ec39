"""One run of the synthetic experiment, from its arguments to its files: :func:`reproduce`.

``reproduce(out)`` is what ``gcul reproduce --out OUT`` runs (the command only parses its options
and prints what this returns): it checks every argument and every output path before anything is
created, takes the lock of the output folder, runs the sweep (:func:`simulations.sweep.run_sweep`,
resumable through its cache), and writes the files of :data:`OUTPUTS`, the manifest last. One list,
:data:`OUTPUTS`, names the files: the check before the run and the writers after it both read it.

Files (in ``out``): ``results.csv`` (one row per cell; byte-identical for any number of workers,
backend or resumed run), ``timings.csv`` (wall time of each cell), ``violations.{csv,md,tex}``
(the paper's ``tab:violation_analysis``, one block per predictor), ``seed<S>.{csv,md,tex}`` (the
paper's ``tab:synthetic_gcul``; S = 16, the paper's seed, when it is in the grid, else the first
seed), ``phase_transition.{png,pdf}`` (the paper's ``fig:synthetic_dynamics``),
``predictors.{png,pdf}`` (one panel per predictor), ``baselines.{csv,md,tex}`` (GCUL's
rejection against every rejector and the Bayes limit, by σ band: :mod:`simulations.baselines`)
and ``baselines.{png,pdf}`` (selective risk at GCUL's coverage against σ),
``risk_coverage.{png,pdf}`` (risk–coverage curves of every rejector in three cells of the table's
seed: :mod:`simulations.baseline_figures`) and ``manifest.json`` (the arguments, the
versions and the SHA-256 of every other file).

Where a change goes: a new output file is one entry of :data:`OUTPUTS` and one writer, the method
``_Run.write_<stem>`` (found by its name; a test checks that every stem has one); a new argument is a parameter of
:func:`reproduce`, checked there once, and an option of ``simulations/cli``'s reproduce command.

References
----------
.. [1] "GCUL: Ambiguity Identification in Text Emotion Classification via Cluster-Guided
   Learning" (the GCUL paper), Section "Synthetic phase-transition verification"
   (``subsec:synthetic_exp``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import platform
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from simulations.outputs import (
    FolderInUseError,
    atomic_write_text,
    check_folder,
    check_writable,
    file_kind,
    lock_folder,
    remove_stale_temporaries,
)
from simulations.validation import (
    argument_namer,
    check_int,
    check_real,
    error_pool_renamed,
    first_line,
)

# The sweep, the tables and the figures are imported when a run starts, not with this module:
# the command line reads MAX_CELLS and OUT_LOCK from here at every start (1.4 s of imports).

__all__ = [
    "CLEAN_FIGURE_NOTE",
    "GEOMETRY_LABELS_MEANING",
    "MAX_CELLS",
    "OUTPUTS",
    "OUT_LOCK",
    "Interrupted",
    "Reproduction",
    "output_names",
    "reproduce",
]

MAX_CELLS = 100_000
"""Most cells one grid may hold (seeds x noise levels)."""

OUT_LOCK = ".gcul-reproduce.lock"
"""The lock file :func:`reproduce` holds in ``out`` while it runs (removed when it ends)."""

OUTPUTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("results", ("csv",)),
    ("timings", ("csv",)),
    ("violations", ("csv", "md", "tex")),
    ("seed{seed}", ("csv", "md", "tex")),
    ("phase_transition", ("png", "pdf")),
    ("predictors", ("png", "pdf")),
    ("baselines", ("csv", "md", "tex", "png", "pdf")),
    ("risk_coverage", ("png", "pdf")),
    ("manifest", ("json",)),
)
"""The files of a run, in the order they are written, as ``(stem, suffixes)``; ``{seed}`` is the
seed of the per-seed table. The manifest comes last: while it exists, every file it lists has the
hash it gives."""

_SEED_TABLE = re.compile(r"seed\d+\.(?:csv|md|tex)")  # a per-seed table of any seed

GEOMETRY_LABELS_MEANING = {
    "observed": "the error pool of every lambda*_PRE is judged against the observed, partly "
    "flipped training labels, as the paper defines it and as a deployment has them",
    "clean": "the error pool of every lambda*_PRE is judged against the clean training labels "
    "(before flipping), the reading that reproduces the paper's column; no deployment has "
    "clean labels",
}
"""What each ``geometry_labels`` means, as the manifest says it (under the keys ``error_pool``
and ``error_pool_meaning``, after the option's former name, kept so that the manifest keeps its
format)."""

CLEAN_FIGURE_NOTE = (
    "Error pool judged against the clean training labels\n"
    "(--geometry-labels clean), the paper's reading;\n"
    "no deployment has clean labels"
)
"""The title of each figure of a ``geometry_labels="clean"`` run (broken into lines that fit the
single-column width of ``phase_transition``)."""


def output_names(table_seed: int) -> list[str]:
    """The file names of :data:`OUTPUTS` for a run whose per-seed table is of ``table_seed``.

    Examples
    --------
    >>> output_names(16)[:4]
    ['results.csv', 'timings.csv', 'violations.csv', 'violations.md']
    >>> len(output_names(16)), "seed16.tex" in output_names(16)
    (20, True)
    """
    return [name for stem, suffixes in OUTPUTS for name in _file_names(stem, suffixes, table_seed)]


def _file_names(stem: str, suffixes: tuple[str, ...], table_seed: int) -> list[str]:
    return [f"{stem.format(seed=table_seed)}.{suffix}" for suffix in suffixes]


class Interrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C or SIGTERM; the cells finished before are in the cache.

    Attributes
    ----------
    cause : {"Ctrl-C", "SIGTERM"}
        What stopped it.
    cache : Path
        The cache folder that holds the finished cells (a rerun resumes from it).
    exit_code : int
        The exit code of a command stopped so: 130 for Ctrl-C, 128 + SIGTERM for SIGTERM.
    """

    def __init__(self, cause: str, cache: Path) -> None:
        super().__init__(f"interrupted ({cause}); finished cells are kept in {cache}")
        self.cause, self.cache = cause, cache

    @property
    def exit_code(self) -> int:
        return 128 + signal.SIGTERM if self.cause == "SIGTERM" else 130


@dataclasses.dataclass(frozen=True)
class Reproduction:
    """What a run of :func:`reproduce` did.

    Attributes
    ----------
    out, cache : Path
        The output folder and the cache folder.
    rows : simulations.sweep.SweepRows
        One row per cell, sorted by ``(seed, noise)`` (their wall times in ``rows.timings``).
    violations : simulations.report.ViolationTable
        The violation analysis written to ``violations.*`` (print it with
        :func:`simulations.report.format_violations_text`).
    written : tuple of Path
        Every file written, in the order of :data:`OUTPUTS` (the manifest last).
    elapsed : float
        Wall seconds of the sweep.
    manifest : dict
        The content of ``manifest.json``.
    """

    out: Path
    cache: Path
    rows: Any
    violations: Any
    written: tuple[Path, ...]
    elapsed: float
    manifest: dict


@error_pool_renamed
def reproduce(
    out: str | os.PathLike[str] = "results",
    *,
    seeds: Iterable[int] = range(10, 20),
    levels: int = 41,
    n_jobs: int = -1,
    backend: str = "loky",
    scheduler: str | None = None,
    lam: float = 0.15,
    method: str | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    progress: bool = True,
    geometry_labels: str = "observed",
    argv: Sequence[str] | None = None,
    names: Mapping[str, str] | None = None,
) -> Reproduction:
    """Run the synthetic sweep on a grid and write the paper's tables and figures into ``out``.

    Parameters
    ----------
    out : path, default "results"
        Output folder, created if needed; must be writable. One run at a time: a second run on
        the same folder is refused while the first runs (a lock, :data:`OUT_LOCK`, that the
        kernel drops when the run ends, however it ends).
    seeds : iterable of int, default 10..19
        Distinct dataset seeds in ``[0, 2**32)``.
    levels : int, default 41
        Noise levels ``σ = 0.4 i`` for ``i < levels``
        (:func:`simulations.synthetic.noise_levels`); at least 2 (the figures draw curves over σ)
        and at most 101 (the label-flip probability 0.025 σ reaches 1 there). At most
        :data:`MAX_CELLS` cells in all.
    n_jobs : int, default -1
        Worker processes, joblib semantics (-1 = all usable cores, -2 = all but one); more than
        the usable cores is capped there, with a notice on stderr. With ``backend="dask"`` the
        workers of the local cluster.
    backend : {"loky", "dask"}, default "loky"
        Where the cells run (see :func:`simulations.sweep.run_sweep`); results.csv is the same
        byte for byte.
    scheduler : str, optional
        Address of a running dask scheduler (needs ``backend="dask"``).
    lam : float, default 0.15
        Target rejection cost λ in [0, 1) of the violation counts and the figures.
    method : str, optional
        The λ*_PRE predictor drawn in the paper's figure (a name of
        :data:`gcul_theory.METHODS`); default :data:`simulations.registry.PAPER_METHOD`, the
        paper's ``"union"``. The tables and the predictors figure show every one.
    cache_dir : path, optional
        The per-cell cache folder (default ``out/cache``); a rerun resumes from it.
    progress : bool, default True
        Print a header (what runs, and where) and the sweep's progress on stderr. Notices (a
        capped ``n_jobs``) and the cache's reports show either way.
    geometry_labels : {"observed", "clean"}, default "observed"
        The training labels that the geometry behind every λ*_PRE is estimated with (its error
        pool E = {ŷ ≠ y}, the class shares and the class cores). ``"observed"``: the training
        labels as given, partly flipped, as the paper's Sec. ``subsec:assumptions1`` defines it
        and as any deployment has them. ``"clean"``: the training labels before flipping, the
        reading that reproduces the paper's ``tab:synthetic_gcul`` column and its violation
        counts, so that its table and figure can be set beside the paper's; no deployment has
        clean labels. GCUL, λ*_EMP and the certificate are the same either way. The manifest,
        the captions of ``violations.*`` and ``seed*.*`` and the figures say which was used.
    argv : sequence of str, optional
        The command line to record in the manifest (``gcul reproduce`` passes its own); without
        it the manifest records a Python call.
    names : mapping, optional
        How error messages name the arguments, e.g. ``{"out": "--out"}`` (the command line
        passes its option names); by default their Python names.

    Returns
    -------
    Reproduction
        The rows, the violation table, the files written, the wall time and the manifest.

    Raises
    ------
    TypeError, ValueError
        For an argument out of its range, an output path that cannot be a folder or a file, a
        folder that cannot be created or written (the message names the argument); nothing is
        created on disk then. Also for a row whose value left its documented range (no file is
        written then).
    ImportError
        ``backend="dask"`` without dask.distributed installed.
    simulations.outputs.FolderInUseError
        Another run holds ``out`` (its ``holder`` names it).
    ConnectionError
        The dask ``scheduler`` did not answer, or has no worker.
    simulations.sweep.SweepError
        A worker process died, or a local dask cluster did not start; finished cells are cached.
    OSError
        Once the run has started (every check passed, the lock held): a file could not be
        written (``filename`` names it); the previous file stays whole.
    Interrupted
        Ctrl-C or SIGTERM (when called from the main thread, SIGTERM stops the run as Ctrl-C
        does: the workers end, finished cells stay in the cache).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:  # doctest: +SKIP
    ...     run = reproduce(tmp, seeds=[10], levels=2, n_jobs=1, progress=False)
    ...     [path.name for path in run.written][:2]
    ['results.csv', 'timings.csv']
    """
    from simulations import sweep
    from simulations.results import check_geometry_labels
    from simulations.synthetic import SyntheticConfig, noise_levels

    name = argument_namer(names)
    levels = _check_levels(levels, name)
    lam = check_real(name("lam"), lam, 0.0, 1.0, open_high=True)
    method = _check_method(method, name)
    geometry_labels = check_geometry_labels(geometry_labels, name("geometry_labels"))
    if not isinstance(progress, bool):
        raise TypeError(f"{name('progress')} must be a bool; got {progress!r}")
    if argv is not None:
        argv = [str(arg) for arg in argv]
    if scheduler is not None and backend != "dask":
        raise ValueError(
            f"{name('scheduler')} {_shown(str(scheduler))} needs {name('backend')} dask (got "
            f"{name('backend')} {backend})"
        )
    if backend == "dask":  # before the grid: a missing extra is named before anything else
        try:
            sweep.backends.check_backend(backend, scheduler)
        except ImportError as exc:
            raise ImportError(f"{name('backend')} dask: {first_line(exc)}") from None
    config = SyntheticConfig()
    step = float(noise_levels(2)[1])  # the grid's step, as noise_levels defines it
    top = round(step * (levels - 1), 10)
    if config.flip_probability(top) > 1.0:
        most = int(round(config.max_noise / step, 9)) + 1
        raise ValueError(
            f"{name('levels')} {levels} reaches sigma = {top:g}, whose label-flip probability "
            f"{config.flip_per_noise:g} * sigma is above 1; {name('levels')} must be at most {most}"
        )
    # the sweep's own arguments (seeds, n_jobs, backend, scheduler, cache_dir): checked once, by
    # the sweep, for the whole grid; nothing is created yet
    if not isinstance(out, (str, os.PathLike)):
        raise TypeError(f"{name('out')} must be a path; got {out!r}")
    out = Path(out)
    plan = sweep.plan_sweep(
        noise_levels(levels, step),
        seeds,
        n_jobs=n_jobs,
        cache_dir=out / "cache" if cache_dir is None else cache_dir,
        config=config,
        backend=backend,
        scheduler=scheduler,
        geometry_labels=geometry_labels,
    )
    cache = plan.cache_dir
    assert cache is not None  # narrowing: plan_sweep above was given a cache_dir
    n_cells = len(plan.seeds) * levels
    if n_cells > MAX_CELLS:
        raise ValueError(
            f"{len(plan.seeds)} seeds x {levels} levels = {n_cells} cells; "
            f"a grid holds at most {MAX_CELLS} cells"
        )
    table_seed = 16 if 16 in plan.seeds else plan.seeds[0]
    names_out = output_names(table_seed)

    # --out must be a writable folder (or a creatable one), the cache a folder (writable only if
    # a cell is missing from it: the sweep checks that), and each output name free for a file:
    # checked now, not after every cell has run. Nothing is created until all pass. An output
    # that is a symbolic link is replaced by the file (never written through).
    check_folder(out, name("out"), writable=True)
    if cache_dir is None and cache.is_symlink():
        target = os.readlink(cache)
        raise ValueError(
            f"{name('out')}: {str(cache)!r} is a symbolic link (to {target!r}); the cache goes "
            f"inside {name('out')} unless {name('cache_dir')} names it: remove the link, or pass "
            f"{name('cache_dir')} {target}"
        )
    check_folder(cache, name("cache_dir"), writable=False)
    for file_name in names_out:
        kind = file_kind(out / file_name, regular="a file")
        if kind not in (None, "a file", "a symbolic link"):
            raise ValueError(f"{name('out')}: {str(out / file_name)!r} is {kind} where a file goes")
    for path, option in ((out, name("out")), (cache, name("cache_dir"))):
        try:
            path.mkdir(parents=True, exist_ok=True)
            if path == out:
                check_writable(out)
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            raise ValueError(
                f"{option}: cannot create or write in {str(path)!r}: {reason}"
            ) from None

    # One run at a time in out: a second is refused, naming the holder. The kernel drops the lock
    # when this process ends, however it ends, so a lock never outlives its run.
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(lock_folder(out, OUT_LOCK, "gcul reproduce"))
        except FolderInUseError:
            raise
        except OSError as exc:  # the lock file is a link, a folder, ...: out cannot be used
            reason = exc.strerror or first_line(exc)
            raise ValueError(f"{exc.filename}: {reason}" if exc.filename else reason) from None
        # what a run killed while writing left behind (no other run writes here: we hold the lock)
        remove_stale_temporaries(
            out, lambda file: file in names_out or bool(_SEED_TABLE.fullmatch(file))
        )
        run = _Run(
            out=out,
            sweep=plan,
            lam=lam,
            method=method,
            table_seed=table_seed,
            progress=progress,
            argv=argv,
            name=name,
        )
        if plan.notice:
            notice = plan.notice.removeprefix("n_jobs=")
            print(f"gcul reproduce: {name('n_jobs')} {notice}", file=sys.stderr)
        return run.execute()


@dataclasses.dataclass
class _Run:
    """The sweep and the outputs of one checked, locked run."""

    out: Path
    sweep: Any  # the simulations.sweep.SweepPlan
    lam: float
    method: str
    table_seed: int
    progress: bool
    argv: list[str] | None
    name: Callable[[str], str]
    counts: dict[str, int] = dataclasses.field(default_factory=dict)  # cached, computed
    rows: Any = None
    elapsed: float = 0.0
    manifest_data: dict = dataclasses.field(default_factory=dict)

    def announce(self, n_cached: int, n_compute: int) -> None:
        """The header, once the cache has been read: what runs, and where."""
        self.counts.update(cached=n_cached, computed=n_compute)
        if not self.progress:
            return
        plan = self.sweep
        workers = min(plan.n_jobs, n_compute)
        if n_compute == 0:
            where = "all in the cache: nothing to compute"
        elif plan.scheduler is not None:
            where = f"{n_compute} to compute on the dask scheduler at {plan.scheduler}"
        elif plan.backend == "dask":
            where = f"{n_compute} to compute on a dask LocalCluster of {workers} worker(s)"
        else:
            where = f"{n_compute} to compute with {workers} job(s)"
        cached = f"{n_cached} in the cache, " if n_cached and n_compute else ""
        print(
            f"gcul reproduce: {len(plan.seeds)} seed{'s' if len(plan.seeds) != 1 else ''} x "
            f"{len(plan.grid)} noise levels = "
            f"{n_cached + n_compute} cells, {cached}{where}; cache {plan.cache_dir}",
            file=sys.stderr,
            flush=True,
        )

    def execute(self) -> Reproduction:
        from simulations import report

        # SIGTERM stops the run as Ctrl-C does: the KeyboardInterrupt closes joblib's generator,
        # which terminates the worker processes (no orphans); finished cells stay in the cache.
        received: list[int] = []

        def on_sigterm(signum: int, frame: object) -> None:
            received.append(signum)
            raise KeyboardInterrupt

        in_main_thread = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGTERM, on_sigterm) if in_main_thread else None
        try:
            start = time.perf_counter()
            # every row verifies (the sweep checks each) before the first output file is written
            self.rows = self.sweep.run(
                progress=self.progress,
                on_start=self.announce,
                keep_scores=[(self.table_seed, level) for level in self.risk_coverage_levels()],
            )
            self.elapsed = time.perf_counter() - start
            written = self.write()
        except KeyboardInterrupt:
            raise Interrupted("SIGTERM" if received else "Ctrl-C", self.sweep.cache_dir) from None
        except ConnectionError as exc:  # the dask scheduler (an OSError, but not a file's)
            remote = self.sweep.scheduler is not None
            prefix = self.name("scheduler") if remote else self.name("backend") + " dask"
            raise ConnectionError(f"{prefix}: {first_line(exc)}") from None
        finally:
            if in_main_thread:
                signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
        return Reproduction(
            out=self.out,
            cache=self.sweep.cache_dir,
            rows=self.rows,
            violations=report.violation_table(
                self.rows, lam=self.lam, geometry_labels=self.sweep.geometry_labels
            ),
            written=tuple(written),
            elapsed=self.elapsed,
            manifest=self.manifest_data,
        )

    def write(self) -> list[Path]:
        """Write every file of :data:`OUTPUTS`, in order, the manifest last.

        The manifest goes first and comes back last: while it exists, every file it lists has the
        hash it gives. Each output is written atomically (a temporary file, then a rename), so a
        run killed here leaves whole files, old or new, and no manifest; a rerun repairs.
        """
        (self.out / "manifest.json").unlink(missing_ok=True)
        written: list[Path] = []
        for stem, suffixes in OUTPUTS:
            paths = getattr(self, "write_" + stem.format(seed=""))(written)
            expected = _file_names(stem, suffixes, self.table_seed)
            if [path.name for path in paths] != expected:  # pragma: no cover - a writer's bug
                raise RuntimeError(f"the writer of {stem} wrote {paths}, not {expected}")
            written += paths
        return written

    # The writers, one per entry of OUTPUTS, named write_<stem> (``seed{seed}``: write_seed):
    # each returns the paths it wrote.

    def write_results(self, written: list[Path]) -> list[Path]:
        from simulations.results import write_csv

        return [write_csv(self.rows, self.out / "results.csv")]

    def write_timings(self, written: list[Path]) -> list[Path]:
        from simulations.results import write_timings_csv

        return [write_timings_csv(self.rows.timings, self.out / "timings.csv")]

    def write_violations(self, written: list[Path]) -> list[Path]:
        from simulations import report

        labels = self.sweep.geometry_labels
        return report.write_violations(
            self.rows, self.out, lam=self.lam, geometry_labels=labels
        )

    def write_seed(self, written: list[Path]) -> list[Path]:
        from simulations import report

        labels = self.sweep.geometry_labels
        return report.write_seed_table(
            self.rows, self.out, seed=self.table_seed, geometry_labels=labels
        )

    def write_phase_transition(self, written: list[Path]) -> list[Path]:
        from simulations import figures

        drawing = figures.plot_phase_transition(self.rows, lam=self.lam, method=self.method)
        return self.save_figure(drawing.figure, "phase_transition", clean_note=True)

    def write_predictors(self, written: list[Path]) -> list[Path]:
        from simulations import figures

        panels = figures.plot_predictors(self.rows, lam=self.lam)
        return self.save_figure(panels.figure, "predictors", clean_note=True)

    def write_baselines(self, written: list[Path]) -> list[Path]:
        from simulations import baseline_figures, baselines

        tables = baselines.write_baselines(self.rows, self.out, n_test=self.sweep.config.n_test)
        drawing = baseline_figures.plot_baselines(self.rows)
        return tables + self.save_figure(drawing.figure, "baselines")

    def write_risk_coverage(self, written: list[Path]) -> list[Path]:
        from simulations import baseline_figures

        levels = self.risk_coverage_levels()
        kept = getattr(self.rows, "scores", {})
        if all((self.table_seed, level) in kept for level in levels):  # computed by this run
            cells = [(level, kept[self.table_seed, level]) for level in levels]
        else:  # served from the cache: recomputed, as the sweep computed them
            cells = baseline_figures.risk_coverage_cells(
                self.table_seed, levels, self.sweep.config
            )
        drawing = baseline_figures.plot_risk_coverage(cells, seed=self.table_seed)
        return self.save_figure(drawing.figure, "risk_coverage")

    def risk_coverage_levels(self) -> list[float]:
        """The σ of the risk-coverage panels: the grid's levels nearest 2, 6 and 12."""
        from simulations import baseline_figures

        return baseline_figures.pick_levels([float(level) for level in self.sweep.grid])

    def save_figure(self, figure: Any, stem: str, *, clean_note: bool = False) -> list[Path]:
        """Save ``figure`` as ``out/stem.png`` and ``.pdf``; titled with
        :data:`CLEAN_FIGURE_NOTE` if ``clean_note`` and the run judged against clean labels."""
        from simulations import figures

        if clean_note and self.sweep.geometry_labels == "clean":
            figure.suptitle(CLEAN_FIGURE_NOTE, fontsize="small")
        return figures.save_figure(figure, self.out / stem)

    def write_manifest(self, written: list[Path]) -> list[Path]:
        computed = self.counts.get("computed", 0)
        plan = self.sweep
        timings = self.rows.timings
        self.manifest_data = {
            "command": "gcul reproduce" if self.argv is not None else "simulations.reproduce",
            "argv": self.argv,
            "seeds": list(plan.seeds),
            "noise_levels": [float(level) for level in plan.grid],
            "lambda_target": self.lam,
            "figure_method": self.method,
            # the training labels of every lambda*_PRE's geometry (geometry_labels), under the
            # keys of the option's former name, so that the manifest keeps its format
            "error_pool": plan.geometry_labels,
            "error_pool_meaning": GEOMETRY_LABELS_MEANING[plan.geometry_labels],
            "n_jobs": plan.n_jobs,
            # where this run computed its cells; null when every cell came from the cache
            "backend": plan.backend if computed else None,
            "scheduler": plan.scheduler if computed else None,
            "cells_computed": computed,
            "cells_cached": self.counts.get("cached", 0),
            "config": {key: getattr(plan.config, key) for key in plan.config.__dataclass_fields__},
            "n_cells": len(self.rows),
            "elapsed_seconds": round(self.elapsed, 3),
            "cell_seconds_total": round(float(sum(t["seconds"] for t in timings)), 3),
            "versions": _versions(),
            "platform": platform.platform(),
            "files": {path.name: _sha256(path) for path in written},
        }
        text = json.dumps(self.manifest_data, indent=2) + "\n"
        return [atomic_write_text(self.out / "manifest.json", text)]


# --------------------------------------------------------------------------------------------
# Argument checks (once, here)


def _check_levels(levels: int, name: Callable[[str], str]) -> int:
    try:
        return check_int(name("levels"), levels, 2)
    except ValueError:
        if levels != 1:
            raise
        raise ValueError(
            f"{name('levels')} {levels} is a single noise level (sigma = 0); the figures draw "
            f"every quantity as a curve over sigma, so {name('levels')} must be at least 2"
        ) from None


def _check_method(method: str | None, name: Callable[[str], str]) -> str:
    from gcul_theory import METHODS
    from simulations.registry import PAPER_METHOD

    if method is None:
        return PAPER_METHOD
    if method not in METHODS:
        raise ValueError(f"{name('method')} must be one of {', '.join(METHODS)}; got {method!r}")
    return method


def _shown(text: str, limit: int = 40) -> str:
    """``repr`` of a user's argument, shortened so that an error stays one short line."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text)} chars)"


def _versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for package in ("gcul", "numpy", "scipy", "sympy", "matplotlib", "joblib"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "not installed"
    return versions


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
