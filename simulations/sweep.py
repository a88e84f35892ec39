"""The synthetic sweep: one GCUL fit per ``(seed, σ)`` cell, in parallel, resumable.

:func:`run_cell` computes one row of :data:`~simulations._results.ROW_COLUMNS`; :func:`run_sweep`
runs a grid of cells with joblib, caches every finished cell on disk and returns the rows sorted by
``(seed, noise)``. A row depends only on ``(seed, σ, config)`` — never on ``n_jobs``, the joblib
backend, the order in which cells run, or whether it came from the cache — except ``seconds``, the
wall time of the cell.

References
----------
.. [1] The GCUL paper, ``paper/gcul_paper.tex``, ``subsec:synthetic_exp`` and the appendix
   "Synthetic phase-transition verification".
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import numbers
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import scipy
from joblib import Parallel, delayed

import gcul_theory
from simulations._results import ROW_COLUMNS, normalize_row
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

__all__ = ["CACHE_VERSION", "LAMBDA_METHODS", "run_cell", "run_sweep"]

DEFAULT_CONFIG = SyntheticConfig()

LAMBDA_METHODS: tuple[str, ...] = ("gaussian", "union", "chernoff")
"""The r1 bounds reported side by side (``lambda_pre_<method>``, ``r1_hat_<method>``)."""

CACHE_VERSION = 1
"""Bump when the meaning of a cached row changes (columns, definitions)."""

# Source files that decide a row; their bytes are hashed into the cache key, so editing any of them
# invalidates cached cells instead of silently reusing them.
_CODE_FILES = ("synthetic.py", "gcul.py", "models.py", "sweep.py", "_results.py")  # simulations/
_CODE_PACKAGES = ("gcul_theory",)  # every .py file of these packages


def run_cell(
    seed: int,
    noise: float,
    config: SyntheticConfig = DEFAULT_CONFIG,
    *,
    level: int = -1,
    model_factory: Callable[[], Any] | None = None,
) -> dict[str, int | float]:
    """Fit GCUL on one ``(seed, σ)`` dataset and measure predicted and empirical λ*.

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
        ``uncertain_cluster_``, ``n_classes_`` and ``predict``.

    Returns
    -------
    dict
        One row with the keys of :data:`~simulations._results.ROW_COLUMNS`:

        Training split (observed, possibly flipped labels; ``E`` = phase-1 error pool):
        ``eps_train`` = |E|/N; ``lambda_pre_<m>`` = λ*_PRE and ``r1_hat_<m>`` = r̂1 for each
        ``m`` in :data:`LAMBDA_METHODS`; ``r2_hat`` = r̂2 (Gaussian tail); ``r1_cluster`` =
        |U ∩ E|/|E| and ``r2_cluster`` = |U \\ E|/(N - |E|) for the uncertain cluster ``U``.

        Test split (clean labels): ``base_acc`` (phase 1), ``selective_acc`` (phase 3 on the
        samples it accepts), ``rejection_rate``, ``lambda_emp`` = (ε - ε_sel)/ρ, ``r1_emp`` (share
        of phase-1 errors that phase 3 rejects), ``r2_emp`` (share of phase-1-correct samples it
        rejects).

        Plus ``seed``, ``noise``, ``level``, ``flip_prob`` and ``seconds`` (wall time).

    Raises
    ------
    TypeError, ValueError
        For a bad seed, noise level, config or level (the message names the argument).

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
    start = time.perf_counter()
    config = _check_config(config)
    seed = _check_seed(seed)
    noise = check_noise(noise, config)
    level = _check_level(level)
    with _single_threaded_blas():
        metrics = _fit_and_measure(make_dataset(seed, noise, config), model_factory or GCUL)
    row = {
        "seed": seed,
        "noise": noise,
        "level": level,
        "flip_prob": config.flip_probability(noise),
        **metrics,
        "seconds": time.perf_counter() - start,
    }
    return normalize_row(row)


def run_sweep(
    noise_levels: Iterable[float],
    seeds: Iterable[int],
    n_jobs: int = 1,
    cache_dir: str | os.PathLike[str] | None = None,
    config: SyntheticConfig = DEFAULT_CONFIG,
    progress: bool = True,
) -> list[dict[str, int | float]]:
    """Run :func:`run_cell` on every ``(seed, σ)`` of a grid; one row per cell.

    Parameters
    ----------
    noise_levels : iterable of float
        Distinct noise levels σ (e.g. :func:`simulations.synthetic.noise_levels`).
    seeds : iterable of int
        Distinct non-negative seeds (the paper uses 10..19).
    n_jobs : int, optional
        Worker processes, joblib semantics (-1 = all cores). Rows do not depend on it.
    cache_dir : path, optional
        Directory for the per-cell cache. Every finished cell is written there at once (one small
        JSON file, atomically), so an interrupted sweep resumes where it stopped; a cell is reused
        only if seed, σ, the config and the code that computes it all match.
    config : SyntheticConfig, optional
        Protocol parameters; the paper's by default.
    progress : bool, optional
        Show a one-line progress bar (done/total, elapsed, ETA) on stderr.

    Returns
    -------
    list of dict
        Rows sorted by ``(seed, noise)``; ``level`` is the index of σ in the sorted noise grid.

    Raises
    ------
    TypeError, ValueError
        For a bad argument (the message names it): an empty or repeated grid or seed list, a
        negative or non-finite σ, a σ whose flip probability exceeds 1, ``n_jobs == 0``.

    Examples
    --------
    >>> from simulations.synthetic import SyntheticConfig
    >>> small = SyntheticConfig(n_per_class=100, n_confusion=100)
    >>> rows = run_sweep([4.0, 0.0], seeds=[11, 10], config=small, progress=False)
    >>> [(row["seed"], row["noise"], row["level"]) for row in rows]
    [(10, 0.0, 0), (10, 4.0, 1), (11, 0.0, 0), (11, 4.0, 1)]
    """
    config = _check_config(config)
    grid = _check_noise_levels(noise_levels, config)
    seed_list = _check_seeds(seeds)
    n_jobs = _check_n_jobs(n_jobs)
    if not isinstance(progress, bool):
        raise TypeError(f"progress must be a bool; got {progress!r}")
    cache = None if cache_dir is None else _CellCache(_check_cache_dir(cache_dir), config)

    level_of = {noise: index for index, noise in enumerate(grid)}
    cells = [(seed, noise) for seed in seed_list for noise in grid]
    rows: dict[tuple[int, float], dict[str, int | float]] = {}
    if cache is not None:
        for cell in cells:
            cached = cache.load(*cell)
            if cached is not None:
                rows[cell] = cached
    todo = [cell for cell in cells if cell not in rows]

    bar = _ProgressBar(total=len(cells), done=len(rows), enabled=progress)
    try:
        for seed, noise, row in _run_cells(todo, config, n_jobs):
            rows[seed, noise] = row
            if cache is not None:
                cache.store(row)
            bar.advance()
    finally:
        bar.close()

    result = []
    for seed, noise in cells:
        row = dict(rows[seed, noise])
        row["level"] = level_of[noise]
        result.append(row)
    return result


# --------------------------------------------------------------------------------------------
# The cell


def _fit_and_measure(data: Dataset, model_factory: Callable[[], Any]) -> dict[str, float]:
    model = model_factory().fit(data.X_train, data.y_train)

    # Training split: predicted λ* from the geometry of the phase-1 error pool.
    y_pred_train = model.phase1_.predict(data.X_train)
    geometry = gcul_theory.estimate_geometry(Z=data.X_train, y=data.y_train, y_pred=y_pred_train)
    metrics: dict[str, float] = {}
    for method in LAMBDA_METHODS:
        metrics[f"lambda_pre_{method}"] = float(
            gcul_theory.critical_lambda(geometry, method=method)
        )
        metrics[f"r1_hat_{method}"] = float(gcul_theory.capture_rate_bound(geometry, method))
    metrics["r2_hat"] = float(gcul_theory.contamination_rate_bound(geometry, "gaussian"))
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
    return metrics


def _share(selected: np.ndarray, within: np.ndarray) -> float:
    """``|selected ∩ within| / |within|``, and 0 when ``within`` is empty."""
    n_within = np.count_nonzero(within)
    return np.count_nonzero(selected & within) / n_within if n_within else 0.0


# --------------------------------------------------------------------------------------------
# Running many cells


def _cell_task(seed: int, noise: float, config: SyntheticConfig):
    # Look run_cell up at call time so a test can monkeypatch it (in-process backends).
    return seed, noise, run_cell(seed, noise, config)


def _run_cells(cells, config, n_jobs) -> Iterator[tuple[int, float, dict]]:
    """Yield ``(seed, noise, row)`` as cells finish (in any order)."""
    if not cells:
        return
    if n_jobs == 1 or len(cells) == 1:
        for seed, noise in cells:
            yield _cell_task(seed, noise, config)
        return
    parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    yield from parallel(delayed(_cell_task)(seed, noise, config) for seed, noise in cells)


class _ProgressBar:
    """A single self-overwriting line on stderr: done/total, elapsed time, ETA."""

    _MIN_INTERVAL = 0.2  # seconds between redraws on a terminal
    _MIN_INTERVAL_LOG = 5.0  # ... and when stderr is a file or a CI log

    def __init__(self, total: int, done: int, enabled: bool) -> None:
        self.total, self.done, self.enabled = total, done, enabled
        self.cached = done
        self.start = time.perf_counter()
        isatty = getattr(sys.stderr, "isatty", None)
        self.interval = self._MIN_INTERVAL if isatty and isatty() else self._MIN_INTERVAL_LOG
        self.last_draw = -np.inf
        self.width = 0
        self._draw(force=True)

    def advance(self) -> None:
        self.done += 1
        self._draw(force=self.done == self.total)

    def close(self) -> None:
        if self.enabled:
            self._draw(force=True)
            sys.stderr.write("\n")
            sys.stderr.flush()

    def _draw(self, force: bool) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if not force and now - self.last_draw < self.interval:
            return
        self.last_draw = now
        elapsed = now - self.start
        computed = self.done - self.cached
        remaining = self.total - self.done
        if remaining == 0:
            eta = "0s"
        elif computed:
            eta = _format_seconds(elapsed / computed * remaining)
        else:
            eta = "?"
        cached = f" ({self.cached} cached)" if self.cached else ""
        text = (
            f"sweep: {self.done}/{self.total} cells{cached} | elapsed "
            f"{_format_seconds(elapsed)} | ETA {eta}"
        )
        sys.stderr.write("\r" + text.ljust(self.width))
        sys.stderr.flush()
        self.width = len(text)


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


class _CellCache:
    """One JSON file per finished cell, keyed by (seed, σ, config, code version)."""

    def __init__(self, directory: Path, config: SyntheticConfig) -> None:
        self.directory = directory
        self.key = _cache_key(config)

    def path(self, seed: int, noise: float) -> Path:
        return self.directory / f"cell-{self.key[:16]}-seed{seed}-noise{noise!r}.json"

    def load(self, seed: int, noise: float) -> dict[str, int | float] | None:
        """The cached row of a cell, or None if absent, unreadable or from another key."""
        path = self.path(seed, noise)
        try:
            payload = json.loads(path.read_text(encoding="utf-8"))
            if payload["key"] != self.key or payload["seed"] != seed or payload["noise"] != noise:
                return None
            row = normalize_row(payload["row"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if row["seed"] != seed or row["noise"] != noise:
            return None
        return row

    def store(self, row: dict[str, int | float]) -> None:
        seed, noise = int(row["seed"]), float(row["noise"])
        payload = {"key": self.key, "seed": seed, "noise": noise, "row": row}
        text = json.dumps(payload, indent=1, allow_nan=True)
        path = self.path(seed, noise)
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def _cache_key(config: SyntheticConfig) -> str:
    description = {
        "cache_version": CACHE_VERSION,
        "columns": list(ROW_COLUMNS),
        "config": dataclasses.asdict(config),
        "code": _code_fingerprint(),
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


def _check_n_jobs(n_jobs: int) -> int:
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral):
        raise TypeError(f"n_jobs must be a non-zero int (-1 = all cores); got {n_jobs!r}")
    if n_jobs == 0:
        raise ValueError("n_jobs must be a non-zero int (-1 = all cores); got 0")
    return int(n_jobs)


def _check_cache_dir(cache_dir: str | os.PathLike[str]) -> Path:
    if not isinstance(cache_dir, (str, os.PathLike)):
        raise TypeError(f"cache_dir must be a path or None; got {cache_dir!r}")
    path = Path(cache_dir)
    if path.exists() and not path.is_dir():
        raise ValueError(f"cache_dir must be a directory; {str(path)!r} is a file")
    path.mkdir(parents=True, exist_ok=True)
    return path
