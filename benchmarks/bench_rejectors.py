"""Cost per cell of every rejector, side by side with the cost of the sweep's cell today.

On one paper-size cell (``make_dataset(16, 6.0)``: 9,600 training and 2,400 test samples, d = 10,
K = 5) each repetition times, in one process with BLAS on one thread (as the sweep runs):

- ``cell``: :func:`simulations.sweep.run_cell` on that cell (two GCUL fits, λ* of every predictor,
  the certificate): what a cell of ``gcul reproduce`` costs today;
- for every rejector of :data:`simulations.rejectors.REJECTORS`: ``fit(context)`` followed by
  ``score_predict`` on the test split (the context is built once from the cell's GCUL, which the
  sweep has already fitted; the target coverage of SelectiveNet is GCUL's test coverage);
- ``all rejectors``: their sum;
- ``knn_leaf16``: the knn rejector with ``cKDTree``'s default leaves of 16 points (not in the
  sum), beside its leaves of 128.

The order of the timed items rotates with the repetition. Prints one figure a line: min and
median over the repetitions of the wall time and of the process CPU time, in ms, and the ratio of
the median to the cell's median.

Usage::

    python benchmarks/bench_rejectors.py                    # 15 repetitions of (16, 6.0)
    python benchmarks/bench_rejectors.py --repeat 5 --noise 2.0 12.0
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np
from threadpoolctl import threadpool_limits

from simulations.gcul import GCUL
from simulations.rejectors import REJECTORS
from simulations.rejectors.evaluate import coverage_context
from simulations.rejectors.knn import FittedKNN
from simulations.sweep import run_cell
from simulations.synthetic import make_dataset, mixture


def _context(seed: int, noise: float):
    data = make_dataset(seed, noise)
    with threadpool_limits(1):
        model = GCUL().fit(data.X_train, data.y_train)
    context = coverage_context(
        data, model, seed=np.random.SeedSequence([seed, 0]), mixture=mixture(seed, noise)
    )
    return data, context


def _timed(function) -> tuple[float, float]:
    start, start_cpu = time.perf_counter(), time.process_time()
    function()
    return time.perf_counter() - start, time.process_time() - start_cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--noise", type=float, nargs="+", default=[6.0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    for noise in args.noise:
        data, context = _context(args.seed, noise)
        items = {"cell": lambda noise=noise: run_cell(args.seed, noise)}
        for entry in REJECTORS:

            def rejector(entry=entry, context=context, X=data.X_test):
                with threadpool_limits(1):
                    entry.fit(context).score_predict(X)

            items[entry.name] = rejector

        def knn_leaf16(context=context, X=data.X_test):  # cKDTree's default leaves, for scale
            with threadpool_limits(1):
                FittedKNN(context.X_train, context.model.phase1_, leaf_size=16).score_predict(X)

        items["knn_leaf16"] = knn_leaf16
        for function in items.values():  # warm-up: imports, caches, first calls
            function()
        wall: dict[str, list[float]] = {name: [] for name in items}
        cpu: dict[str, list[float]] = {name: [] for name in items}
        names = list(items)
        for rep in range(args.repeat):
            shift = rep % len(names)
            for name in names[shift:] + names[:shift]:
                seconds, cpu_seconds = _timed(items[name])
                wall[name].append(seconds)
                cpu[name].append(cpu_seconds)
        rejector_names = [entry.name for entry in REJECTORS]  # knn_leaf16 is not in the sum
        wall["all rejectors"] = [
            sum(x) for x in zip(*(wall[n] for n in rejector_names), strict=True)
        ]
        cpu["all rejectors"] = [sum(x) for x in zip(*(cpu[n] for n in rejector_names), strict=True)]
        reference = statistics.median(wall["cell"])
        print(
            f"# seed {args.seed}, noise {noise}: {data.y_train.size} train / {data.y_test.size} "
            f"test, {args.repeat} repetitions; ms: wall min / median, CPU min / median, "
            "median / cell's median"
        )
        for name in [*names, "all rejectors"]:
            w, c = wall[name], cpu[name]
            print(
                f"{name}: wall {1e3 * min(w):.1f} / {1e3 * statistics.median(w):.1f} ms, "
                f"CPU {1e3 * min(c):.1f} / {1e3 * statistics.median(c):.1f} ms, "
                f"{statistics.median(w) / reference:.2f}x cell"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
