"""Time one sweep cell (:func:`simulations.sweep.run_cell`) on two source trees, side by side.

Each repetition runs the same cells serially (one process, one job) on the reference tree and then
on this tree, each in its own subprocess with the tree first on ``PYTHONPATH`` (after one warm-up
cell, so imports and first calls are not timed). Prints, one line each, the per-cell mean wall
time over the cells of every repetition, then its min and median over the repetitions and their
ratio: for the whole cell, without the "gaussian_exact" predictor (its quasi-Monte Carlo orthant
probability, timed by ``run_cell``'s ``profile``), and the process CPU time of the whole cell
(less sensitive than wall time to other processes on a shared machine).

Usage::

    git -C /path/to/main archive main | tar -x -C /tmp/mainref
    python benchmarks/bench_cell.py --ref /tmp/mainref                 # 7 repetitions of 18 cells
    python benchmarks/bench_cell.py --ref /tmp/mainref --repeat 3 --seeds 10 --step 10
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
KEYS = ("cell", "cell_without_gaussian_exact", "cell_cpu")


def _time_cells(seeds: list[int], step: int) -> dict[str, float]:
    """Per-cell mean wall seconds of the grid's cells, whole and without gaussian_exact."""
    from simulations.sweep import run_cell
    from simulations.synthetic import noise_levels

    levels = [float(v) for v in noise_levels()][::step]
    run_cell(seeds[0], levels[len(levels) // 2])  # warm-up: imports, caches, first calls
    total = cpu = gaussian = 0.0
    for seed in seeds:
        for noise in levels:
            profile: dict[str, float] = {}
            start, start_cpu = time.perf_counter(), time.process_time()
            run_cell(seed, noise, profile=profile)
            total += time.perf_counter() - start
            cpu += time.process_time() - start_cpu
            gaussian += profile["gaussian_exact"]
    n = len(seeds) * len(levels)
    return {
        "cell": total / n,
        "cell_without_gaussian_exact": (total - gaussian) / n,
        "cell_cpu": cpu / n,
        "n": n,
    }


def _run(tree: Path, seeds: str, step: int) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    command = [
        sys.executable,
        str(HERE / "bench_cell.py"),
        "--child",
        "--seeds",
        seeds,
        "--step",
        str(step),
    ]
    out = subprocess.run(
        command, env=env, check=True, cwd=str(tree), capture_output=True, text=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", type=Path, help="the reference source tree (e.g. main)")
    parser.add_argument("--tree", type=Path, default=HERE.parent, help="tree to time (this one)")
    parser.add_argument("--seeds", default="10,11")
    parser.add_argument("--step", type=int, default=5, help="every step-th of the 41 levels")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    if args.child:
        print(json.dumps(_time_cells(seeds, args.step)))
        return 0
    if args.ref is None:
        parser.error("--ref is required")
    times: dict[str, dict[str, list[float]]] = {"ref": {}, "tree": {}}
    for rep in range(args.repeat):
        for side, tree in (("ref", args.ref), ("tree", args.tree)):
            result = _run(tree, args.seeds, args.step)
            for key in KEYS:
                times[side].setdefault(key, []).append(result[key])
            print(
                f"rep {rep + 1} {side:4s}: {result['n']} cells, per cell "
                f"{1e3 * result['cell']:.1f} ms, without gaussian_exact "
                f"{1e3 * result['cell_without_gaussian_exact']:.1f} ms, "
                f"CPU {1e3 * result['cell_cpu']:.1f} ms",
                flush=True,
            )
    for key in KEYS:
        ref, new = times["ref"][key], times["tree"][key]
        print(
            f"{key}: ref min {1e3 * min(ref):.1f} ms median {1e3 * statistics.median(ref):.1f} ms"
            f" | tree min {1e3 * min(new):.1f} ms median {1e3 * statistics.median(new):.1f} ms"
            f" | speed-up min {min(ref) / min(new):.2f}x"
            f" median {statistics.median(ref) / statistics.median(new):.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
