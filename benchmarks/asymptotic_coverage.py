"""Where the ``"asymptotic"`` certificate of :func:`gcul_theory.utility_confidence_bounds` fails.

Every law of the scan sits on the null boundary U(λ0) = 0 of the paper's utility
U(λ) = ε − ε_sel − λρ, so the rate at which the (1 − δ) lower bound at λ0 is positive is the
bound's non-coverage; a valid bound keeps it at most δ. The laws are spanned by the rejection rate
ρ, the break-even cost λ0, the share a = P(base wrong | rejected) and the accepted samples' joint
error q11 = P(base and selective wrong | accepted); the remaining cell (base wrong but fixed, or
base right but made wrong) is solved so that U(λ0) = 0.

The asymptotic bound depends on the calibration set only through its six cell counts (rejected x
base wrong, accepted x base wrong x selective wrong), so each replication draws one multinomial
vector and :func:`lower_from_counts` evaluates the bound for all of them at once; it is checked
against ``utility_confidence_bounds(..., method="asymptotic")`` (the code as shipped, before its
refusal rule) on 2,000 random count vectors before the scan. The rule proposed from this scan is
applied as :func:`refused` (observed counts only).

Usage::

    PYTHONPATH=$PWD python benchmarks/asymptotic_coverage.py            # the full scan (~3 min)
    PYTHONPATH=$PWD python benchmarks/asymptotic_coverage.py --reps 2000  # quicker

It prints the worst laws without and with the refusal rule, and the non-coverage by the smaller
of the two expected counts nρ and n(1 − ρ); benchmarks/asymptotic_coverage.md records a run.
"""

from __future__ import annotations

import argparse
import itertools
import math
import time

import numpy as np
from scipy import special, stats

N_VALUES = (50, 100, 200, 400, 1000, 2000, 5000)
RHO_VALUES = (0.01, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 0.95, 0.98, 0.99)
LAM_VALUES = (0.05, 0.15, 0.5, 0.9)
A_SHARES = (0.0, 0.5, 1.0)  # a = lam0 + share * (1 - lam0)
Q11_VALUES = (0.0, 0.05, 0.3)
DELTA_VALUES = (0.01, 0.05, 0.1)


def null_law(rho, lam0, a, q11):
    """Cell probabilities (rej&bw, rej&~bw, acc&bw&aw, acc&bw&~aw, acc&~bw&aw, acc&~bw&~aw)
    with U(lam0) = 0, or None when no such law exists for these parameters."""
    # U = rho (a - lam0) + (1 - rho) b - eps_sel with b = q11 + q10, eps_sel = q11 + q01.
    rhs = -rho * (a - lam0) + rho * q11  # = (1 - rho) q10 - q01
    q10, q01 = (rhs / (1 - rho), 0.0) if rhs >= 0 else (0.0, -rhs)
    q00 = 1.0 - q11 - q10 - q01
    if min(q10, q01, q00) < 0.0 or not 0.0 <= a <= 1.0:
        return None
    p = np.array(
        [rho * a, rho * (1 - a), (1 - rho) * q11, (1 - rho) * q10, (1 - rho) * q01, (1 - rho) * q00]
    )
    utility = p[0] + p[2] + p[3] - (p[2] + p[4]) / (1 - rho) - lam0 * rho
    assert abs(utility) < 1e-12, utility
    return np.clip(p, 0.0, 1.0) / np.clip(p, 0.0, 1.0).sum()


# Per cell: base wrong, accepted-and-wrong, rejected.
_BW = np.array([1, 0, 1, 1, 0, 0], float)
_AW = np.array([0, 0, 1, 0, 1, 0], float)
_REJ = np.array([1, 1, 0, 0, 0, 0], float)


def lower_from_counts(counts, lam, delta):
    """The asymptotic (1 - delta) lower bound on U(lam) of each row of cell counts (R, 6), as
    gcul_theory's _AsymptoticParts computes it; -inf where nothing (or everything) is rejected."""
    counts = np.asarray(counts, float)
    n = counts.sum(axis=1)
    w = counts / n[:, None]
    rho = w @ _REJ
    accept = 1.0 - rho
    ok = (rho > 0) & (rho < 1)
    safe_accept = np.where(ok, accept, 1.0)
    eps = w @ _BW
    eps_sel = (counts @ _AW) / np.where(ok, n * safe_accept, 1.0)
    f0 = (
        _BW[None, :]
        - _AW[None, :] / safe_accept[:, None]
        - _REJ[None, :] * (eps_sel / safe_accept)[:, None]
    )
    mean_f0 = (w * f0).sum(axis=1)
    c00 = (w * (f0 - mean_f0[:, None]) ** 2).sum(axis=1)
    c01 = (w * (f0 - mean_f0[:, None]) * (_REJ[None, :] - rho[:, None])).sum(axis=1)
    c11 = rho * (1 - rho)
    variance = np.maximum(c00 - 2 * lam * c01 + lam**2 * c11, 0.0)
    lower = eps - eps_sel - lam * rho + special.ndtri(delta) * np.sqrt(variance / n)
    return np.where(ok, lower, -np.inf)


def refused(counts, min_count):
    """The refusal rule: fewer than ``min_count`` rejected or accepted calibration samples."""
    counts = np.asarray(counts)
    rejected = counts[:, 0] + counts[:, 1]
    accepted = counts.sum(axis=1) - rejected
    return (rejected < min_count) | (accepted < min_count)


def check_against_the_code(seed=1, draws=2000):
    """Largest |lower_from_counts - utility_confidence_bounds(method="asymptotic")| over random
    count vectors that the code does not refuse (and whose bound it does not clip)."""
    from gcul_theory import ASYMPTOTIC_MIN_COUNT, utility_confidence_bounds

    rng = np.random.default_rng(seed)
    worst, checked = 0.0, 0
    while checked < draws:
        n = int(rng.integers(2 * ASYMPTOTIC_MIN_COUNT, 10 * ASYMPTOTIC_MIN_COUNT))
        counts = rng.multinomial(n, rng.dirichlet(np.full(6, 0.5)))
        if refused(counts[None], ASYMPTOTIC_MIN_COUNT)[0]:
            continue
        cell = np.repeat(np.arange(6), counts)
        bw, aw, rej = _BW[cell] > 0, _AW[cell] > 0, _REJ[cell] > 0
        lam, delta = float(rng.uniform(0, 0.99)), float(rng.uniform(0.001, 0.3))
        code = utility_confidence_bounds(bw, aw, rej, lam, delta, method="asymptotic")[0]
        ours = float(lower_from_counts(counts[None], lam, delta)[0])
        if -1.0 - lam < ours < 1.0:
            worst = max(worst, abs(code - ours))
            checked += 1
    return worst


def scan(reps, min_count, seed=2026):
    rows = []
    for n, rho, lam0, share, q11, delta in itertools.product(
        N_VALUES, RHO_VALUES, LAM_VALUES, A_SHARES, Q11_VALUES, DELTA_VALUES
    ):
        a = lam0 + share * (1 - lam0)
        p = null_law(rho, lam0, a, q11)
        if p is None:
            continue
        rng = np.random.default_rng(np.random.SeedSequence([seed, len(rows)]))
        counts = rng.multinomial(n, p, size=reps)
        hit = lower_from_counts(counts, lam0, delta) > 0.0
        kept = hit & ~refused(counts, min_count)
        kept_3 = hit & ~refused(counts, 3 * min_count)
        rows.append((n, rho, lam0, a, q11, delta, hit.mean(), kept.mean(), kept_3.mean()))
    return rows


def upper_95(k, reps):
    return 1.0 if k >= reps else float(stats.beta.ppf(0.975, k + 1, reps - k))


def report(rows, reps, min_count):
    def show(title, index):
        print(f"\n{title}")
        print("| n | rho | lam0 | a | q11 | delta | rate | 95% CI upper | rate / delta |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in sorted(rows, key=lambda r: -r[index] / r[5])[:12]:
            k = round(r[index] * reps)
            print(
                f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:.3f} | {r[4]} | {r[5]} | {r[index]:.4f} | "
                f"{upper_95(k, reps):.4f} | {r[index] / r[5]:.2f} |"
            )

    show("Worst laws, no refusal (non-coverage / delta):", 6)
    show(f"Worst laws, refused below {min_count} rejected or accepted samples:", 7)
    print("\nWorst non-coverage / delta by the smaller expected count min(n rho, n (1 - rho)):")
    print("| min expected count | laws | worst rate / delta (no refusal) | with refusal |")
    print("|---|---:|---:|---:|")
    edges = (0, 5, 10, 20, 40, 80, 160, 320, math.inf)
    for lo, hi in itertools.pairwise(edges):
        group = [r for r in rows if lo <= min(r[0] * r[1], r[0] * (1 - r[1])) < hi]
        if group:
            print(
                f"| [{lo}, {hi}) | {len(group)} | {max(r[6] / r[5] for r in group):.2f} | "
                f"{max(r[7] / r[5] for r in group):.2f} |"
            )
    print("\nWorst non-coverage / delta over the laws, by delta (the docstring's table):")
    print(
        "| rejected and accepted counts | "
        + " | ".join(f"delta = {d}" for d in DELTA_VALUES)
        + " |"
    )
    print("|---|" + "---:|" * len(DELTA_VALUES))
    for label, index in (
        ("any (no refusal)", 6),
        (f"both >= {min_count}", 7),
        (f"both >= {3 * min_count}", 8),
    ):
        worst = [max(r[index] / r[5] for r in rows if r[5] == d) for d in DELTA_VALUES]
        print(f"| {label} | " + " | ".join(f"{w:.2f}" for w in worst) + " |")
    over = [r for r in rows if r[7] > r[5] and upper_95(round(r[7] * reps), reps) > r[5]]
    bad = [r for r in rows if stats.binom.sf(round(r[7] * reps) - 1, reps, r[5]) < 1e-3]
    print(
        f"\n{len(rows)} laws x {reps} calibration sets; with the refusal rule, {len(over)} laws "
        f"have a rate above delta, {len(bad)} of them significantly "
        "(binomial P(count >= observed | rate = delta) < 1e-3)."
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=4000)
    parser.add_argument("--min-count", type=int, default=None)
    args = parser.parse_args()
    min_count = args.min_count
    if min_count is None:
        from gcul_theory import ASYMPTOTIC_MIN_COUNT

        min_count = ASYMPTOTIC_MIN_COUNT
    start = time.perf_counter()
    print(f"largest |formula - code| on 2000 random count vectors: {check_against_the_code():.2e}")
    rows = scan(args.reps, min_count)
    report(rows, args.reps, min_count)
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
