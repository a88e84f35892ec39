"""Time the "gaussian_exact" orthant probability, old (scipy) against new (Genz), in one run.

The geometries are those of the paper grid (seeds 10-19 x the 41 noise levels by default), each
computed once as :func:`simulations.sweep.run_cell` computes it: the synthetic dataset of the
cell, phase 1 of GCUL (a :class:`simulations.models.LogisticRegression` with GCUL's ``C`` and
``max_iter``, fitted single-threaded exactly as :meth:`simulations.gcul.GCUL.fit` fits it) and
:func:`gcul_theory.estimate_geometry` on its training predictions.

Both sides compute r̂1 of "gaussian_exact" one geometry per call, as a sweep cell does:

* old: the implementation on main before this change, ``scipy.stats.multivariate_normal.cdf``
  with ``maxpts=100_000`` and ``rng=np.random.default_rng(ORTHANT_SEED)`` over the crossable
  boundaries, then the same projection onto ``[hunter_worsley, 1 - max_c p_c]``;
* new: :func:`gcul_theory.capture_rate_bound` with ``method="gaussian_exact"``.

Old and new take turns within every repetition (so that the machine's load falls on both
alike). A third line times the new one on the whole grid as one broadcast batch. Prints one line per
figure: the min and median over ``--repeat`` repetitions of the time per geometry, the speed-up,
and the max and mean ``|old - new|`` over the geometries, with the largest standard error that
the new one reports.

Usage::

    python benchmarks/orthant.py                   # seeds 10-19 x 41 levels, 3 repetitions
    python benchmarks/orthant.py --seeds 10-11 --repeat 2
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from scipy.special import ndtr
from scipy.stats import multivariate_normal

import gcul_theory
from gcul_theory._orthant import ORTHANT_SEED, crossable, orthant_probability, upper_orthant
from gcul_theory._predictors import thresholds
from simulations.cli import parse_seeds
from simulations.gcul import GCUL
from simulations.models import LogisticRegression, _single_threaded_blas
from simulations.synthetic import make_dataset, noise_levels

OLD_MAXPTS = 100_000  # main's ORTHANT_MAXPTS


def grid_geometries(seeds, levels):
    """The training geometry of every cell, as ``run_cell`` estimates it."""
    defaults = GCUL()
    geometries = []
    with _single_threaded_blas():
        for seed in seeds:
            for noise in levels:
                data = make_dataset(seed, float(noise))
                phase1 = LogisticRegression(C=defaults.C, max_iter=defaults.max_iter)
                phase1.fit(data.X_train, data.y_train)
                y_pred = phase1.predict(data.X_train)
                geometries.append(gcul_theory.estimate_geometry(data.X_train, data.y_train, y_pred))
    return geometries


def old_orthant(h: np.ndarray, rho: np.ndarray) -> float:
    """main's ``_orthant`` before this change, verbatim but for the constant's and helpers' names."""
    keep = crossable(h)
    h, rho = h[keep], rho[np.ix_(keep, keep)]
    if h.size == 0:
        return 1.0
    if h.size == 1:
        return float(ndtr(h[0]))
    if h.size == 2:
        return float(1.0 - ndtr(-h[0]) - ndtr(-h[1]) + upper_orthant(h[0], h[1], rho[0, 1]))
    rng = np.random.default_rng(ORTHANT_SEED)
    return float(
        multivariate_normal.cdf(
            h, mean=np.zeros(h.size), cov=rho, maxpts=OLD_MAXPTS, rng=rng, allow_singular=True
        )
    )


def old_gaussian_exact(geometry) -> float:
    """main's r̂1 of "gaussian_exact" for one geometry with an error pool."""
    if not geometry.eps > 0.0:
        return 0.0
    value = old_orthant(thresholds(geometry), geometry.corr_mix)
    p = gcul_theory.gaussian_tail(geometry.D, geometry.sigma_mix)
    # hunter_worsley clipped to [0, 1] (as capture_rate_bound returns it) gives the same result:
    # the orthant value is >= 0 and the final clip is to [0, 1].
    hunter_worsley = gcul_theory.capture_rate_bound(geometry, "hunter_worsley")
    r1 = np.clip(value, hunter_worsley, 1.0 - p.max(axis=-1))
    return float(np.clip(r1, 0.0, 1.0))


def new_gaussian_exact(geometry) -> float:
    return float(gcul_theory.capture_rate_bound(geometry, "gaussian_exact"))


def time_per_geometry(functions, geometries, repeat):
    """Seconds per geometry of each repetition of each function, and the values of the last one.

    The functions take turns within every repetition, so that a change in the machine's load
    falls on all of them alike.
    """
    times = [[] for _ in functions]
    values = [None for _ in functions]
    for _ in range(repeat):
        for i, function in enumerate(functions):
            start = time.perf_counter()
            values[i] = np.array([function(g) for g in geometries])
            times[i].append((time.perf_counter() - start) / len(geometries))
    return times, values


def batched(geometries):
    """The grid as one broadcast Geometry (all cells have the same number of classes)."""
    fields = ("eps", "pi", "eps_c", "D", "sigma_mix", "sigma_c", "corr_mix")
    stacked = {f: np.stack([np.asarray(getattr(g, f)) for g in geometries]) for f in fields}
    return gcul_theory.Geometry(**stacked)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="10-19", help="seed range, e.g. 10-19 (default)")
    parser.add_argument("--levels", type=int, default=41, help="noise levels (default 41)")
    parser.add_argument("--repeat", type=int, default=3, help="repetitions (default 3)")
    args = parser.parse_args(argv)
    seeds = parse_seeds(args.seeds)
    geometries = grid_geometries(seeds, noise_levels(args.levels))
    n = len(geometries)
    dims = sorted({int(crossable(thresholds(g)).sum()) for g in geometries})
    print(f"geometries: {n} (seeds {args.seeds} x {args.levels} levels), orthant dimensions {dims}")

    new_gaussian_exact(geometries[0])  # the Sobol' points of each dimension, computed once
    (old_times, new_times), (old, new) = time_per_geometry(
        (old_gaussian_exact, new_gaussian_exact), geometries, args.repeat
    )
    grid = batched(geometries)
    batch_times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        together = gcul_theory.capture_rate_bound(grid, "gaussian_exact")
        batch_times.append((time.perf_counter() - start) / n)
    h = np.stack([thresholds(g) for g in geometries])
    _, errors = orthant_probability(h, np.stack([g.corr_mix for g in geometries]))

    def line(name, times):
        return (
            f"{name}: min {1e3 * min(times):.2f} ms, median {1e3 * statistics.median(times):.2f} "
            f"ms per geometry ({args.repeat} repetitions)"
        )

    print(line(f"old orthant (scipy multivariate_normal.cdf, maxpts {OLD_MAXPTS})", old_times))
    print(line("new orthant (Genz, one geometry per call)", new_times))
    print(line("new orthant (Genz, the grid as one batch)", batch_times))
    print(
        f"speed-up, one geometry per call: min {min(old_times) / min(new_times):.1f}x, "
        f"median {statistics.median(old_times) / statistics.median(new_times):.1f}x"
    )
    difference = np.abs(old - new)
    print(
        f"|old - new| over {n} geometries: max {difference.max():.2e}, "
        f"mean {difference.mean():.2e}; new standard error: max {errors.max():.2e}, "
        f"median {np.median(errors):.2e}"
    )
    print(f"batch == one per call, bit for bit: {bool(np.array_equal(together, new))}")


if __name__ == "__main__":
    main()
