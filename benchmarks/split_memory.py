"""Peak memory of one `gcul compare` split at paper scale, step by step, in this process.

The steps of ``simulations.compare.protocol._run_split`` for the first split of
:func:`simulations.compare.stratified_splits` (70% training rows) of ``paper_scale``'s
embeddings (100,000 x 768 float32 by default): the float64 training rows, the GCUL fit (K-Means
timed and measured apart; it centres the training rows in place), the training rows gathered
again and the test rows with GCUL's outcomes, then each rejector (fit + score),
all with one BLAS thread. For each step: the peak of the memory allocated through Python and
NumPy during it (tracemalloc, everything alive then included), what is still allocated after
it, and its CPU seconds. The embeddings are generated before tracing starts (in ``gcul compare``
they are a memory-mapped file the workers share). Run from the repository root::

    PYTHONPATH=$PWD python benchmarks/split_memory.py [--n 100000] [--d 768]
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paper_scale import D, N, compared_rejectors, make_embeddings  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=N)
    parser.add_argument("--d", type=int, default=D)
    args = parser.parse_args()
    Z, y = make_embeddings(args.n, args.d)

    import simulations._guided_clustering as guided
    from simulations.compare import protocol
    from simulations.gcul import GCUL, fit_in_place
    from simulations.models import single_threaded_blas
    from simulations.statistics import stratified_splits

    (train, test), *_ = stratified_splits(y, 1, 0.3, seed=0)
    print("| step | peak GB | allocated after GB | CPU s |\n|---|--:|--:|--:|")

    def step(label: str, start: float) -> None:
        current, peak = tracemalloc.get_traced_memory()
        cpu = time.process_time() - start
        print(f"| {label} | {peak / 1e9:.2f} | {current / 1e9:.2f} | {cpu:.1f} |", flush=True)
        tracemalloc.reset_peak()

    lloyd = guided.lloyd

    def measured_lloyd(*arguments, **keywords):
        step("GCUL fit up to K-Means (phase 1, initial centres)", fit_start[0])
        start = time.process_time()
        out = lloyd(*arguments, **keywords)
        step("K-Means (phase 2)", start)
        fit_start[0] = time.process_time()
        return out

    fit_start = [0.0]
    guided.lloyd = measured_lloyd
    tracemalloc.start()
    with single_threaded_blas():
        start = time.process_time()
        X_train = protocol._rows_float64(Z, train)
        y_train, y_test = y[train], y[test]
        step("training rows, float64", start)
        fit_start[0] = time.process_time()
        # as _run_split: K-Means centres the training rows in place, which are gathered again
        model = fit_in_place(GCUL(), X_train, y_train)
        step("rest of the GCUL fit", fit_start[0])
        start = time.process_time()
        del X_train
        X_train, X_test = protocol._rows_float64(Z, train), protocol._rows_float64(Z, test)
        model.indicators(X_test, y_test)
        step("training rows again, test rows and GCUL's outcomes", start)
        for entry, context in compared_rejectors(X_train, y_train, model):
            start = time.process_time()
            entry.fit(context).score_predict(X_test)
            step(f"rejector {entry.name}", start)
    guided.lloyd = lloyd
    return 0


if __name__ == "__main__":
    sys.exit(main())
