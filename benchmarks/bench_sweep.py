"""Speed of the synthetic sweep, side by side with scikit-learn, printed one figure a line.

What one run measures (every figure over ``--repeats`` runs, min and median):

1. **Ratio ours / scikit-learn**, ``--jobs`` jobs (2 by default), on the grid ``--seeds`` x
   ``--levels`` (the paper's: seeds 10-19 x the 41 levels of
   :func:`simulations.synthetic.noise_levels`). Both pipelines run the same cells through
   :func:`simulations.sweep.run_cell` (same data, same measurements; only the three phases'
   estimators differ) in the same harness: one joblib loky pool, BLAS/OpenMP at one thread per
   worker, the pool warmed with real cells of both pipelines before any timing. The work is the
   same on both sides: ``model_factory`` makes both GCUL fits of a cell (the λ*_PRE fit on the
   training split and the certified predictor's fit on 80% of it), so
   :class:`SklearnGCUL` (below) fits twice per cell as ours does. Within each repeat
   the two sides run back to back, and the order alternates between repeats (ours first, then
   scikit-learn first, ...), so drifting load on a shared machine hits both sides alike; the
   ratio of a repeat is computed from its own two wall times. Also printed: the share of the
   cell-seconds (``run_cell``'s ``profile``) that the certified predictor (its second fit and the
   certificate) and the "gaussian_exact" predictor (a quasi-Monte Carlo orthant probability) take.
2. **Cells per second of our pipeline** through :func:`simulations.sweep.run_sweep` (no cache):
   with 1 job on the seeds ``--serial-seeds`` (10-11 by default) x ``--levels`` (in this
   process); with ``--jobs`` jobs on loky (the grid of 1; the pool warmed by an earlier small
   ``run_sweep``); on a dask ``LocalCluster`` of ``--jobs`` single-threaded worker processes
   (``backend="dask"``, ``scheduler=`` its address). The cluster is started once by this script,
   and its start-up (until every worker has joined) and the first small ``run_sweep`` on the fresh
   workers (their imports) are reported apart; only the ``run_sweep`` calls of the grid are
   timed.
3. **``gcul reproduce`` end to end**: ``python -m simulations.cli reproduce --out TMP --quiet
   --seeds ... --levels ...`` (this checkout first on ``PYTHONPATH``; default ``--jobs``, i.e.
   every usable core; a fresh output folder and so a fresh cache each time), timed from outside
   the subprocess. The sweep's own time is ``elapsed_seconds`` of the ``manifest.json`` it writes
   (the ``run_sweep`` call, worker start included); the time outside the sweep is the
   end-to-end wall minus it (interpreter start, imports, argument checks, tables, figures,
   manifest).
4. **Sanity**: the rows of our pipeline from the harness, from ``run_sweep`` on loky (and on dask,
   and the 1-job subset when ``--serial-seeds`` lies within ``--seeds``) must be equal, value for
   value; the script says so, or exits with 1.
   Then both violation tallies (:func:`simulations.report.violation_table`).

Everything goes to stdout at the end (progress goes to stderr), with the load average before
and after: on a busy machine, compare the medians and rerun on a quiet one.

Usage::

    python benchmarks/bench_sweep.py                  # the paper's grid, 2 jobs, 3 repeats
    python benchmarks/bench_sweep.py --levels 5 --seeds 10-11 --repeats 1   # quick check
    python benchmarks/bench_sweep.py --skip-sklearn --skip-dask --skip-reproduce

Options: ``--levels N`` (41), ``--seeds LIST`` (10-19), ``--serial-seeds LIST`` (10-11; the
1-job grid, a subset to keep it short), ``--jobs N`` (2), ``--repeats N`` (3),
``--skip-sklearn``, ``--skip-dask`` (no dask needed then), ``--skip-reproduce``. Run it from the
checkout (``PYTHONPATH=$PWD python benchmarks/bench_sweep.py``); scikit-learn is needed unless
``--skip-sklearn``.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed, parallel_config

from simulations.cli import parse_seeds
from simulations.cli.common import Parser
from simulations.report import format_violations_text, violation_table
from simulations.sweep import run_cell, run_sweep
from simulations.sweep.backends import local_cluster
from simulations.synthetic import noise_levels

ROOT = Path(__file__).resolve().parents[1]
PARTS = ("certified", "gaussian_exact")  # the keys of run_cell's profile


class SklearnGCUL:
    """GCUL's three phases on scikit-learn estimators: the comparison point of this benchmark.

    Same protocol as :class:`simulations.gcul.GCUL` without dimensionality reduction (phase 1
    ``LogisticRegression`` lbfgs with ``C=1`` and ``max_iter=500``; phase 2 ``KMeans`` from the
    same median initial centres, ``n_init=1``, ``max_iter=100``, Lloyd; the least pure cluster
    becomes uncertain; phase 3 on K + 1 classes), exposing the fitted attributes that
    :func:`simulations.sweep.run_cell` reads. scikit-learn is imported only when it is fitted
    (``--skip-sklearn`` needs none).
    """

    def __init__(self, C: float = 1.0, max_iter: int = 500, kmeans_max_iter: int = 100):
        self.C = C
        self.max_iter = max_iter
        self.kmeans_max_iter = kmeans_max_iter

    def _logistic(self):
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression(C=self.C, solver="lbfgs", max_iter=self.max_iter)

    def fit(self, X: np.ndarray, y: np.ndarray) -> SklearnGCUL:
        import warnings

        from sklearn.cluster import KMeans
        from sklearn.exceptions import ConvergenceWarning

        n_classes = int(y.max()) + 1
        with warnings.catch_warnings():
            # Heavily noised cells may stop at max_iter, exactly as in the package's pipeline.
            warnings.simplefilter("ignore", ConvergenceWarning)
            phase1 = self._logistic().fit(X, y)
            y_pred = phase1.predict(X)
            error_mask = y_pred != y
            init = [
                np.median(X[y_pred == c] if np.any(y_pred == c) else X[y == c], axis=0)
                for c in range(n_classes)
            ]
            if error_mask.any():
                init.append(np.median(X[error_mask], axis=0))
            init = np.stack(init)
            km = KMeans(
                n_clusters=len(init),
                init=init,
                n_init=1,
                max_iter=self.kmeans_max_iter,
                algorithm="lloyd",
            ).fit(X)
            labels = km.labels_
            purities = np.full(len(init), np.nan)
            for k in range(len(init)):
                members = y[labels == k]
                if members.size:
                    purities[k] = np.bincount(members, minlength=n_classes).max() / members.size
            if error_mask.any():
                uncertain = int(np.nanargmin(purities))
                phase3 = self._logistic().fit(X, np.where(labels == uncertain, n_classes, y))
            else:
                uncertain, phase3 = None, phase1
        self.n_classes_ = n_classes
        self.phase1_ = phase1
        self.error_mask_ = error_mask
        self.cluster_labels_ = labels
        self.purities_ = purities
        self.uncertain_cluster_ = uncertain
        self.phase3_ = phase3
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.phase3_.predict(X)


def _cell(seed: int, noise: float, level: int, use_sklearn: bool) -> tuple[dict, dict, float]:
    """One cell: its row, the seconds of its parts (``profile``) and its wall time."""
    model_factory = SklearnGCUL if use_sklearn else None
    profile: dict[str, float] = {}
    start = time.perf_counter()
    row = run_cell(seed, noise, level=level, model_factory=model_factory, profile=profile)
    return row, profile, time.perf_counter() - start


def harness_sweep(levels, seeds, n_jobs: int, use_sklearn: bool):
    """Wall time of the grid in the harness, its rows, and the cell-seconds of each part."""
    cells = [(seed, float(noise), level) for seed in seeds for level, noise in enumerate(levels)]
    start = time.perf_counter()
    out = Parallel(n_jobs=n_jobs)(delayed(_cell)(s, n, lv, use_sklearn) for s, n, lv in cells)
    wall = time.perf_counter() - start
    rows = [row for row, _, _ in out]
    parts = {part: sum(profile[part] for _, profile, _ in out) for part in PARTS}
    parts["cell"] = sum(seconds for _, _, seconds in out)
    return wall, rows, parts


def timed_sweep(levels, seeds, **kwargs):
    """Wall time of one :func:`run_sweep` call and its rows (plain dicts)."""
    start = time.perf_counter()
    rows = run_sweep(levels, seeds, progress=False, **kwargs)
    return time.perf_counter() - start, [dict(row) for row in rows]


def timed_reproduce(levels: int, seeds: str) -> tuple[float, float]:
    """End-to-end wall of ``gcul reproduce`` in a fresh folder, and its sweep's own seconds."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    with tempfile.TemporaryDirectory(prefix="gcul-bench-") as tmp:
        out = Path(tmp) / "out"
        command = [sys.executable, "-m", "simulations.cli", "reproduce", "--out", str(out)]
        command += ["--quiet", "--seeds", seeds, "--levels", str(levels)]
        start = time.perf_counter()
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - start
        if done.returncode != 0:
            sys.stderr.write(done.stdout + done.stderr)
            raise SystemExit(f"bench_sweep: gcul reproduce failed with exit code {done.returncode}")
        manifest = json.loads((out / "manifest.json").read_text())
    return wall, float(manifest["elapsed_seconds"])


def start_cluster(n_workers: int):
    """A quiet dask ``LocalCluster`` of single-threaded worker processes, its client and start-up."""
    from dask.distributed import Client

    start = time.perf_counter()
    cluster = local_cluster(n_workers)  # the dask backend's own LocalCluster
    client = Client(cluster, set_as_default=False)
    client.wait_for_workers(n_workers)
    return cluster, client, time.perf_counter() - start


def _stats(values: list[float], unit: str, digits: int, best=min) -> str:
    what = "min" if best is min else "max"
    text = (
        f"median {statistics.median(values):.{digits}f}{unit}, "
        f"{what} {best(values):.{digits}f}{unit}"
    )
    if len(values) > 1:
        text += f" over {len(values)} runs ({', '.join(f'{v:.{digits}f}' for v in values)})"
    else:
        text += " (1 run)"
    return text


def _load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def _note(text: str) -> None:
    print(f"bench_sweep: {text}", file=sys.stderr, flush=True)


def _same(name: str, rows: list[dict], reference: list[dict], problems: list[str]) -> str:
    if rows == reference:
        return f"{name}: equal ({len(rows)} rows)"
    problems.append(name)
    if len(rows) != len(reference):
        return f"{name}: DIFFERENT ({len(rows)} rows, {len(reference)} expected)"
    differing = sum(a != b for a, b in zip(rows, reference, strict=True))
    return f"{name}: DIFFERENT ({differing} of {len(reference)} rows)"


def main() -> int:
    parser = Parser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, default=41, help="noise levels (default: 41)")
    parser.add_argument("--seeds", default="10-19", help="seeds of the grid (default: 10-19)")
    parser.add_argument(
        "--serial-seeds", default="10-11", help="seeds of the 1-job grid (default: 10-11)"
    )
    parser.add_argument("--jobs", type=int, default=2, help="jobs / dask workers (default: 2)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each figure (default: 3)")
    parser.add_argument("--skip-sklearn", action="store_true", help="no scikit-learn side")
    parser.add_argument("--skip-dask", action="store_true", help="no dask LocalCluster")
    parser.add_argument("--skip-reproduce", action="store_true", help="no `gcul reproduce` run")
    args = parser.parse_args()
    if args.levels < 1 or args.jobs < 1 or args.repeats < 1:
        parser.error(
            f"--levels, --jobs and --repeats must be at least 1; got {args.levels}, "
            f"{args.jobs}, {args.repeats}"
        )
    seeds, serial_seeds = parse_seeds(args.seeds), parse_seeds(args.serial_seeds)
    levels = [float(noise) for noise in noise_levels(args.levels)]
    n_cells, n_serial = len(levels) * len(seeds), len(levels) * len(serial_seeds)
    grid = f"{n_cells} cells (seeds {args.seeds} x {args.levels} levels)"
    serial_grid = f"{n_serial} cells (seeds {args.serial_seeds} x {args.levels} levels)"
    load_before = _load()

    sides = [("ours", False)] + ([] if args.skip_sklearn else [("scikit-learn", True)])
    walls: dict[str, list[float]] = {name: [] for name, _ in sides}
    parts: dict[str, list[dict]] = {name: [] for name, _ in sides}
    rows: dict[str, list[dict]] = {}
    serial, loky, dask, e2e, inside = [], [], [], [], []
    sweep_rows: dict[str, list[dict]] = {}
    cluster = client = None
    cluster_start = dask_warmup = None
    try:
        # Warm every pool with real cells before any timing: the harness's loky pool (one BLAS
        # thread per worker, set once when loky starts it) with both pipelines, run_sweep's loky
        # pool, and the dask workers (their first imports).
        _note("warming up")
        warm_seeds = seeds[:1] * (2 * args.jobs)
        with parallel_config(backend="loky", inner_max_num_threads=1):
            for _, use_sklearn in sides:
                harness_sweep(levels[:1], warm_seeds, args.jobs, use_sklearn)
        timed_sweep(levels[: 2 * args.jobs], seeds[:1], n_jobs=args.jobs)
        if not args.skip_dask:
            cluster, client, cluster_start = start_cluster(args.jobs)
            dask_warmup, _ = timed_sweep(
                levels[: 2 * args.jobs],
                seeds[:1],
                backend="dask",
                scheduler=cluster.scheduler_address,
            )

        for repeat in range(args.repeats):
            order = sides if repeat % 2 == 0 else sides[::-1]
            with parallel_config(backend="loky", inner_max_num_threads=1):
                for name, use_sklearn in order:
                    _note(f"repeat {repeat + 1}/{args.repeats}: harness, {name}")
                    wall, rows[name], cell_parts = harness_sweep(
                        levels, seeds, args.jobs, use_sklearn
                    )
                    walls[name].append(wall)
                    parts[name].append(cell_parts)
            _note(f"repeat {repeat + 1}/{args.repeats}: run_sweep, 1 job")
            wall, sweep_rows["1 job"] = timed_sweep(levels, serial_seeds, n_jobs=1)
            serial.append(n_serial / wall)
            _note(f"repeat {repeat + 1}/{args.repeats}: run_sweep, {args.jobs} jobs loky")
            wall, sweep_rows["loky"] = timed_sweep(levels, seeds, n_jobs=args.jobs)
            loky.append(n_cells / wall)
            if cluster is not None:
                _note(f"repeat {repeat + 1}/{args.repeats}: run_sweep, dask")
                wall, sweep_rows["dask"] = timed_sweep(
                    levels, seeds, backend="dask", scheduler=cluster.scheduler_address
                )
                dask.append(n_cells / wall)
            if not args.skip_reproduce:
                _note(f"repeat {repeat + 1}/{args.repeats}: gcul reproduce")
                wall, sweep_seconds = timed_reproduce(args.levels, args.seeds)
                e2e.append(wall)
                inside.append(sweep_seconds)
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()

    jobs = f"{args.jobs} jobs"
    lines = [
        f"machine: {os.cpu_count()} cores, {load_before} before, {_load()} after; "
        f"{args.repeats} runs of each figure",
        f"grid: {grid}, 2 GCUL fits per cell (both sides)",
    ]
    for name in walls:
        lines.append(f"wall {name}, {jobs}, harness, {grid}: {_stats(walls[name], ' s', 2)}")
    if "scikit-learn" in walls:
        ratios = [a / b for a, b in zip(walls["ours"], walls["scikit-learn"], strict=True)]
        lines.append(
            f"ratio ours/scikit-learn, {jobs}: {_stats(ratios, '', 3)} "
            "(each run's ratio from its own two walls)"
        )
    for name in walls:
        shares = ", ".join(
            f"{part} {100 * statistics.median(p[part] / p['cell'] for p in parts[name]):.1f}%"
            for part in PARTS
        )
        lines.append(f"share of the cell-seconds, {name} (median over the runs): {shares}")
    lines.append(f"cells/s ours, 1 job (run_sweep, {serial_grid}): {_stats(serial, '', 2, max)}")
    lines.append(
        f"cells/s ours, {jobs} loky (run_sweep, warm pool, {grid}): {_stats(loky, '', 2, max)}"
    )
    if dask:
        lines.append(
            f"cells/s ours, dask LocalCluster of {args.jobs} workers (run_sweep, {grid}): "
            f"{_stats(dask, '', 2, max)}"
        )
        lines.append(
            f"dask LocalCluster start-up, {args.jobs} workers joined: {cluster_start:.2f} s "
            f"(once); first run_sweep on the fresh workers ({2 * args.jobs} cells): "
            f"{dask_warmup:.2f} s; neither counted above"
        )
    if e2e:
        outside = [total - sweep for total, sweep in zip(e2e, inside, strict=True)]
        lines.append(f"gcul reproduce end to end, default jobs, {grid}: {_stats(e2e, ' s', 2)}")
        lines.append(
            f"gcul reproduce, its sweep (manifest elapsed_seconds): {_stats(inside, ' s', 2)}"
        )
        lines.append(
            f"gcul reproduce, time outside the sweep (end to end - sweep): {_stats(outside, ' s', 2)}"
        )

    problems: list[str] = []
    reference = rows["ours"]
    subset = [row for row in reference if row["seed"] in set(serial_seeds)]
    checks = [_same(f"run_sweep {jobs} loky vs harness", sweep_rows["loky"], reference, problems)]
    if "dask" in sweep_rows:
        checks.append(_same("run_sweep dask vs harness", sweep_rows["dask"], reference, problems))
    if set(serial_seeds) <= set(seeds):
        checks.append(_same("run_sweep 1 job vs harness", sweep_rows["1 job"], subset, problems))
    lines += [f"rows of ours, {check}" for check in checks]
    print("\n".join(lines))
    for name, side_rows in rows.items():
        print(f"\nviolations, {name}:")
        print(format_violations_text(violation_table(side_rows)))
    if problems:
        print(f"\nrows differ: {', '.join(problems)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
