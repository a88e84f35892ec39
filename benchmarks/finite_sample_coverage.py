"""Coverage of :func:`gcul_theory.finite_sample_lambda` by Monte Carlo under its own model.

Every scenario draws training samples exactly from the single-attractor model the function
assumes: C class cores ``N(gap * e_c, I)`` in R^d (``n_core`` samples each, labelled and
predicted c), and ``n_att`` attractor samples ``N(0, Σ)`` with labels and predictions drawn
uniformly and independently (so about ``n_att (1 - 1/C)`` errors, whose law is the attractor's).
Σ is the identity, or ``scale² `` on the class directions e_1..e_C and 1 elsewhere
("anisotropic": the error pool spreads along the directions that decide its capture, which a
direction estimated in high dimension misses).

The population centres are the attractor's mean 0 and the means of the correct samples,
``gap e_c * n_core / (n_core + n_att / C²)`` (each core pulled towards 0 by its expected
chance-correct attractor samples). Per replication: one training sample, the bound, then a fresh
pool of ``n_errors`` errors and ``n_correct`` correct samples from the model; a violation is a
fresh capture fraction (share of the fresh errors nearest to 0 among the centres) below
``r1_lower`` or a fresh contamination fraction above ``r2_upper``. The function promises a
violation rate of at most δ.

Usage::

    PYTHONPATH=$PWD python benchmarks/finite_sample_coverage.py            # all scenarios
    PYTHONPATH=$PWD python benchmarks/finite_sample_coverage.py --only audit --reps 40
    PYTHONPATH=/work/main python benchmarks/finite_sample_coverage.py      # the code before

Prints one table row per scenario: violations / replications with a Clopper-Pearson 95%
interval, the r1 and r2 parts, the true expected capture, and the mean r1_lower.
benchmarks/finite_sample_coverage.md records runs.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import stats

from gcul_theory import SingleAttractorModel

# name: (d, C, gap, n_core, n_att, anisotropy scale, delta, n_boot, replications)
SCENARIOS = {
    "audit": (1000, 2, 3.0, 300, 300, 1.0, 0.2, 200, 200),
    "d4000_40_errors": (4000, 2, 3.0, 150, 80, 1.0, 0.2, 100, 100),
    "anisotropic_d500": (500, 2, 4.0, 300, 300, 2.0, 0.2, 100, 100),
    "five_classes_d1000": (1000, 5, 4.0, 200, 400, 1.0, 0.2, 100, 100),
    "capture_near_1": (200, 2, 8.0, 300, 300, 1.0, 0.2, 100, 100),
    "capture_low": (500, 3, 1.5, 300, 300, 1.0, 0.2, 100, 100),
    "small_n_d100": (100, 2, 4.0, 30, 40, 1.0, 0.2, 100, 200),
    "low_dim_d3": (3, 3, 5.0, 300, 150, 1.0, 0.05, 100, 300),
    "large_n_d50": (50, 3, 3.0, 1500, 3000, 1.0, 0.05, 100, 100),
}


def run(name, reps=None, seed=2026):
    d, C, gap, n_core, n_att, scale, delta, n_boot, default_reps = SCENARIOS[name]
    reps = reps or default_reps
    rng = np.random.default_rng(np.random.SeedSequence([seed, len(name), d, C]))
    model = SingleAttractorModel(d, C, gap, n_core, n_att, scale)
    draws = [model.captured(rng.normal(0, 1, (10_000, d)) * model.std) for _ in range(10)]
    truth = float(np.mean([c.mean() for c in draws]))  # E[r1] from 100,000 draws (SE < 0.0016)
    fails = f1 = f2 = 0
    lowers = []
    for b, cap, con in model.replications(rng, reps, delta, n_boot):
        a, c = cap < b.r1_lower, con > b.r2_upper
        f1 += a
        f2 += c
        fails += a or c
        lowers.append(b.r1_lower)
    lo = stats.beta.ppf(0.025, fails, reps - fails + 1) if fails else 0.0
    hi = stats.beta.ppf(0.975, fails + 1, reps - fails) if fails < reps else 1.0
    return {
        "scenario": name,
        "d": d,
        "C": C,
        "delta": delta,
        "reps": reps,
        "violations": fails,
        "rate": fails / reps,
        "ci": (lo, hi),
        "r1_part": f1,
        "r2_part": f2,
        "truth": truth,
        "r1_lower": float(np.mean(lowers)),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=list(SCENARIOS))
    parser.add_argument("--reps", type=int, default=None)
    args = parser.parse_args()
    print(
        "| scenario | d | C | δ | violations | rate [95% CI] | r1 part | r2 part | E[r1] | mean r1_lower | s |"
    )
    print("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|")
    for name in args.only:
        start = time.perf_counter()
        r = run(name, args.reps)
        print(
            f"| {r['scenario']} | {r['d']} | {r['C']} | {r['delta']} | {r['violations']}/{r['reps']} "
            f"| {r['rate']:.3f} [{r['ci'][0]:.3f}, {r['ci'][1]:.3f}] | {r['r1_part']} | "
            f"{r['r2_part']} | {r['truth']:.3f} | {r['r1_lower']:.3f} | "
            f"{time.perf_counter() - start:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
