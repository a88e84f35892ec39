"""Can the certified bound be tightened by its δ split or its bets? (issue 14, section 3).

At the null boundary U(0.15) = 0 of three laws (:data:`gcul_theory.NULL_BOUNDARY_LAWS`: the
sweep's transition cells, a small ρ with a large ε_sel, a moderate law), with n = 1,920
calibration samples (the sweep's 20% of the training split), the mean λ*_CERT (the true
break-even cost is 0.15) of:

* ``shipped``: the construction as shipped (2% of δ on each Clopper-Pearson interval, bets
  capped at 0.99);
* ``share 0.005`` / ``share 0.1``: 0.5% or 10% of δ on each Clopper-Pearson interval;
* ``cap 0.999``: bets capped at 0.999;
* ``single test at rho_hat``: one betting test at the *estimated* ρ with all of δ (NOT valid:
  it ignores the uncertainty of ρ), the most a better treatment of ρ could gain;
* ``delta x4``: the shipped bound at δ = 0.2, what spending four times the risk buys;
* ``asymptotic``: the delta method at δ = 0.05 (NOT valid), the normal-theory width (NaN where
  it refuses: fewer than 100 rejected samples).

Usage::

    PYTHONPATH=$PWD python benchmarks/certified_tightening.py

benchmarks/certified_tightening.md records a run.
"""

from __future__ import annotations

import math
import numpy as np

import gcul_theory._certified as certified
from gcul_theory import (
    NULL_BOUNDARY_LAWS,
    certified_lambda,
    draw_calibration_outcomes,
    null_boundary_law,
)

N, REPS, DELTA = 1920, 200, 0.05


def shipped(ind, share=certified._SIDE_SHARE, cap=certified._CAP, delta=DELTA):
    saved = certified._SIDE_SHARE, certified._CAP
    certified._SIDE_SHARE, certified._CAP = share, cap
    try:
        return certified_lambda(*ind, delta=delta)
    finally:
        certified._SIDE_SHARE, certified._CAP = saved


def single_test(ind):
    bw, aw, rej = ind
    rho = rej.mean()
    a_ci = certified._cp_two_sided(int(bw[rej].sum()), int(rej.sum()), 1e-12)
    offset = certified._two_group_bound(bw, aw, rej, rho, a_ci, math.log(1 / DELTA), 1.0)
    return min(max(offset / rho, 0.0), 1.0)


VARIANTS = {
    "shipped": shipped,
    "share 0.005": lambda ind: shipped(ind, share=0.005),
    "share 0.1": lambda ind: shipped(ind, share=0.1),
    "cap 0.999": lambda ind: shipped(ind, cap=0.999),
    "single test at rho_hat (not valid)": single_test,
    "delta x4 (0.2)": lambda ind: shipped(ind, delta=0.2),
    "asymptotic (not valid)": lambda ind: asymptotic(ind),
}


def asymptotic(ind):
    """The delta method's λ*_CERT; NaN where it refuses (fewer than 100 rejected samples)."""
    try:
        return certified_lambda(*ind, delta=DELTA, method="asymptotic")
    except ValueError:
        return math.nan


def main():
    print(f"mean lambda*_CERT over {REPS} calibration sets of n = {N} (true break-even 0.15)")
    print("| variant | " + " | ".join(NULL_BOUNDARY_LAWS) + " |")
    print("|---|" + "---:|" * len(NULL_BOUNDARY_LAWS))
    draws = {}
    for name, law in NULL_BOUNDARY_LAWS.items():
        rng = np.random.default_rng(np.random.SeedSequence([14, len(name)]))
        p = null_boundary_law(*law, lam=0.15)
        draws[name] = [draw_calibration_outcomes(rng, p, N) for _ in range(REPS)]
    for variant, bound in VARIANTS.items():
        means = [np.nanmean([bound(ind) for ind in draws[name]]) for name in NULL_BOUNDARY_LAWS]
        print(f"| {variant} | " + " | ".join(f"{m:.4f}" for m in means) + " |", flush=True)


if __name__ == "__main__":
    main()
