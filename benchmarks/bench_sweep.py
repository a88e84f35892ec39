"""Time the full synthetic sweep on our NumPy GCUL and on a scikit-learn GCUL, in one run.

Both pipelines run the same cells through :func:`simulations.sweep.run_cell` (same data, same
λ* measurements; only the three phases' estimators differ), with the same joblib harness, the
same number of jobs and BLAS/OpenMP limited to one thread per worker (no oversubscription).
Prints both wall times, their ratio and both violation tallies.

Usage::

    python benchmarks/bench_sweep.py                 # the paper's 41 levels x seeds 10-19, 2 jobs
    python benchmarks/bench_sweep.py --levels 11 --seeds 10-11
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from joblib import Parallel, delayed, parallel_config

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sklearn_gcul import SklearnGCUL  # noqa: E402

from simulations.cli import parse_seeds  # noqa: E402
from simulations.report import format_violations_text, violation_table  # noqa: E402
from simulations.sweep import run_cell  # noqa: E402
from simulations.synthetic import noise_levels  # noqa: E402


def _cell(seed: int, noise: float, level: int, use_sklearn: bool) -> dict:
    return run_cell(seed, noise, level=level, model_factory=SklearnGCUL if use_sklearn else None)


def time_sweep(levels, seeds, n_jobs: int, use_sklearn: bool) -> tuple[float, list[dict]]:
    cells = [(seed, float(noise), level) for seed in seeds for level, noise in enumerate(levels)]
    start = time.perf_counter()
    rows = Parallel(n_jobs=n_jobs)(delayed(_cell)(s, n, lv, use_sklearn) for s, n, lv in cells)
    return time.perf_counter() - start, rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, default=41)
    parser.add_argument("--seeds", type=parse_seeds, default=parse_seeds("10-19"))
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    levels = noise_levels(args.levels)
    n_cells = len(levels) * len(args.seeds)
    print(f"{n_cells} cells, {args.jobs} jobs each, {os.cpu_count()} cores", flush=True)
    # One BLAS/OpenMP thread per worker, set once when loky starts the workers (a per-cell
    # threadpool_limits costs ~3 ms a call here, on both sides). Warm the pool with a few real
    # cells of each pipeline so neither pays worker start-up or first imports in its timing.
    with parallel_config(backend="loky", inner_max_num_threads=1):
        for use_sklearn in (False, True):
            time_sweep(levels[:1], args.seeds[:1] * (2 * args.jobs), args.jobs, use_sklearn)
        ours_time, ours = time_sweep(levels, args.seeds, args.jobs, use_sklearn=False)
        print(f"numpy GCUL (ours):    {ours_time:8.1f} s", flush=True)
        sk_time, theirs = time_sweep(levels, args.seeds, args.jobs, use_sklearn=True)
        print(f"scikit-learn GCUL:    {sk_time:8.1f} s", flush=True)
    print(f"ratio ours / sklearn: {ours_time / sk_time:8.3f}")
    for name, rows in (("ours", ours), ("scikit-learn", theirs)):
        print(f"\nviolations, {name}:")
        print(format_violations_text(violation_table(rows)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
