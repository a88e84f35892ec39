"""Time the full synthetic sweep on our NumPy GCUL and on a scikit-learn GCUL, in one run.

Both pipelines run the same cells through :func:`simulations.sweep.run_cell` (same data, same
λ* measurements; only the three phases' estimators differ), with the same joblib harness, the
same number of jobs and BLAS/OpenMP limited to one thread per worker (no oversubscription).
The work is the same on both sides: a cell fits GCUL twice (on the whole training split for the
λ*_PRE predictors, and on 80% of it for the certified predictor), and ``model_factory`` makes both
fits, so the scikit-learn pipeline fits twice per cell too.

Prints, one figure a line: both wall times and their ratio; what the certified predictor (its
second fit and the certificate) and the "gaussian_exact" predictor (a quasi-Monte Carlo orthant
probability) add to each sweep, summed over the cells (cell-seconds, from ``run_cell``'s
``profile``) and as a share of the sweep's cell time; then both violation tallies.

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

PARTS = ("certified", "gaussian_exact")  # the keys of run_cell's profile


def _cell(seed: int, noise: float, level: int, use_sklearn: bool) -> tuple[dict, dict, float]:
    """One cell: its row, the seconds of its parts (``profile``) and its wall time."""
    profile: dict[str, float] = {}
    start = time.perf_counter()
    row = run_cell(
        seed,
        noise,
        level=level,
        model_factory=SklearnGCUL if use_sklearn else None,
        profile=profile,
    )
    return row, profile, time.perf_counter() - start


def time_sweep(levels, seeds, n_jobs: int, use_sklearn: bool):
    """Wall time of the sweep, its rows, and the cell-seconds of each part and of whole cells."""
    cells = [(seed, float(noise), level) for seed in seeds for level, noise in enumerate(levels)]
    start = time.perf_counter()
    out = Parallel(n_jobs=n_jobs)(delayed(_cell)(s, n, lv, use_sklearn) for s, n, lv in cells)
    wall = time.perf_counter() - start
    rows = [row for row, _, _ in out]
    parts = {part: sum(profile[part] for _, profile, _ in out) for part in PARTS}
    return wall, rows, parts, sum(seconds for _, _, seconds in out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, default=41)
    parser.add_argument("--seeds", type=parse_seeds, default=parse_seeds("10-19"))
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    levels = noise_levels(args.levels)
    n_cells = len(levels) * len(args.seeds)
    print(f"{n_cells} cells, 2 GCUL fits per cell, {args.jobs} jobs, {os.cpu_count()} cores")
    # One BLAS/OpenMP thread per worker, set once when loky starts the workers (a per-cell
    # threadpool_limits costs ~3 ms a call here, on both sides). Warm the pool with a few real
    # cells of each pipeline so neither pays worker start-up or first imports in its timing.
    results = {}
    with parallel_config(backend="loky", inner_max_num_threads=1):
        for use_sklearn in (False, True):
            time_sweep(levels[:1], args.seeds[:1] * (2 * args.jobs), args.jobs, use_sklearn)
        for name, use_sklearn in (("numpy GCUL (ours)", False), ("scikit-learn GCUL", True)):
            results[name] = time_sweep(levels, args.seeds, args.jobs, use_sklearn)
            print(f"{name + ' sweep:':42s} {results[name][0]:8.1f} s wall", flush=True)
    (ours_wall, *_), (sk_wall, *_) = results.values()
    print(f"{'ratio ours / scikit-learn:':42s} {ours_wall / sk_wall:8.3f}")
    for name, (wall, _, parts, cell_seconds) in results.items():
        for part in PARTS:
            share = parts[part] / cell_seconds
            print(
                f"{f'{part} in {name}:':42s} {parts[part]:8.1f} cell-s of {cell_seconds:.1f} "
                f"({100 * share:.1f}% of the cell time, ~{share * wall:.1f} s of the wall time)"
            )
    for name, (_, rows, _, _) in results.items():
        print(f"\nviolations, {name}:")
        print(format_violations_text(violation_table(rows)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
