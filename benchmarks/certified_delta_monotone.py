"""How often, and how much, is λ*_CERT not monotone in δ? And what would fixed bets cost?

The betting bound's bets are tuned to the level (t = √(2 log(1/δ')/τ²), the fixed-n predictable
plug-in of Waudby-Smith and Ramdas), so the tests at two values of δ are different tests and
their certified λ need not be ordered. For each calibration set λ*_CERT is computed at the nine
levels ``DELTAS``; a set is *inverted* when some smaller δ certifies a larger λ (by more than
1e-12). Families of calibration sets:

* ``test generator``: the draws of tests/test_certified.py's ``indicators`` strategy (n 10-300);
* ``null laws n=...``: the three laws :data:`gcul_theory.NULL_BOUNDARY_LAWS` on the null
  boundary U(0.15) = 0, at n = 200, 500 and 1,920 (the sweep's calibration size);
* ``few rejected``: the regime of the hypothesis counterexample (n 100-400, 2-12% rejected,
  70-100% of them base errors, 30-60% base errors among the accepted, 0-30% of them fixed).

Two constructions: ``shipped`` (gcul_theory.certified_lambda), and ``bets at 0.05``: the same
with the bets' level fixed at that of δ = 0.05 whatever δ (a valid, δ-independent choice; equal
to shipped at δ = 0.05).

Usage::

    PYTHONPATH=$PWD python benchmarks/certified_delta_monotone.py

benchmarks/certified_delta_monotone.md records a run.
"""

from __future__ import annotations

import math
import numpy as np

import gcul_theory._certified as certified
from gcul_theory import NULL_BOUNDARY_LAWS, draw_calibration_outcomes, null_boundary_law

DELTAS = (0.005, 0.01, 0.02, 0.05, 0.1, 0.125, 0.2, 0.25, 0.3)
SHARE = certified._SIDE_SHARE


def level(delta):
    return math.log(2.0 / (1.0 - 2.0 * SHARE)) - math.log(delta)


def lam_cert(ind, delta, bet_delta=None):
    """certified_lambda (betting), with the bets' level that of ``bet_delta`` (None: delta)."""
    bw, aw, rej = (np.asarray(v, bool) for v in ind)
    r, n = int(rej.sum()), bw.size
    if r in (0, n):
        return 0.0
    rho_ci = certified._cp_two_sided(r, n, SHARE * delta)
    a_ci = certified._cp_two_sided(int(bw[rej].sum()), r, SHARE * delta)
    bet_level = level(delta if bet_delta is None else bet_delta)
    offsets = [
        certified._two_group_bound(bw, aw, rej, rho, a_ci, level(delta), 1.0, bet_level)
        for rho in rho_ci
    ]
    return certified.last_positive(
        lambda lam: min(o - rho * lam for o, rho in zip(offsets, rho_ci, strict=True))
    )


def test_generator(rng):
    n = int(rng.integers(10, 301))
    p_rej, p_bw_rej = rng.uniform(0, 0.6), rng.uniform(0, 1)
    p_bw_acc, p_fix = rng.uniform(0, 0.6), rng.uniform(0, 0.3)
    rej = rng.random(n) < p_rej
    bw = np.where(rej, rng.random(n) < p_bw_rej, rng.random(n) < p_bw_acc)
    aw = bw & ~rej & (rng.random(n) >= p_fix)
    aw |= ~bw & ~rej & (rng.random(n) < p_fix / 3)
    return bw, aw, rej


def few_rejected(rng):
    n = int(rng.integers(100, 401))
    rej = rng.random(n) < rng.uniform(0.02, 0.12)
    p_bw_rej, p_bw_acc = rng.uniform(0.7, 1.0), rng.uniform(0.3, 0.6)
    bw = np.where(rej, rng.random(n) < p_bw_rej, rng.random(n) < p_bw_acc)
    aw = bw & ~rej & (rng.random(n) >= rng.uniform(0.0, 0.3))
    return bw, aw, rej


def families():
    rng = np.random.default_rng(2024)
    yield "test generator", [test_generator(rng) for _ in range(1500)]
    rng = np.random.default_rng(7)
    for n in (200, 500, 1920):
        laws = [null_boundary_law(*NULL_BOUNDARY_LAWS[name]) for name in sorted(NULL_BOUNDARY_LAWS)]
        sets = [draw_calibration_outcomes(rng, p, n) for p in laws for _ in range(60)]
        yield f"null laws n={n}", sets
    rng = np.random.default_rng(11)
    yield "few rejected", [few_rejected(rng) for _ in range(1500)]


def scan(sets, bet_delta):
    lams = np.array([[lam_cert(ind, d, bet_delta) for d in DELTAS] for ind in sets])
    inverted, worst, rejected_counts, largest = 0, (1.0, ""), [], 0.0
    for i, row in enumerate(lams):
        bad = False
        for a in range(len(DELTAS)):
            for b in range(a + 1, len(DELTAS)):
                if row[a] > row[b] + 1e-12:
                    bad = True
                    largest = max(largest, row[a] - row[b])
                    ratio = row[a] / row[b] if row[b] > 0 else math.inf
                    if ratio > worst[0]:
                        n, r = sets[i][0].size, int(sets[i][2].sum())
                        worst = (
                            ratio,
                            f"{row[a]:.4f} at δ={DELTAS[a]} vs {row[b]:.4f} at δ={DELTAS[b]}"
                            f" (n={n}, {r} rejected)",
                        )
        if bad:
            inverted += 1
            rejected_counts.append(int(sets[i][2].sum()))
    return lams, inverted, worst, rejected_counts, largest


def main():
    print(
        "| family | construction | sets | certifying at some δ | inverted | rejected counts"
        " of the inverted | largest λ(small δ) - λ(large δ) | worst λ(small δ)/λ(large δ) |"
    )
    print("|---|---|---:|---:|---:|---|---:|---|")
    means = []
    for name, sets in families():
        for label, bet_delta in (("shipped", None), ("bets at 0.05", 0.05)):
            lams, inverted, worst, counts, largest = scan(sets, bet_delta)
            span = f"{min(counts)}-{max(counts)}" if counts else "-"
            print(
                f"| {name} | {label} | {len(sets)} | {int((lams.max(axis=1) > 0).sum())} | "
                f"{inverted} | {span} | {largest:.4f} | {worst[0]:.3g} {worst[1]} |",
                flush=True,
            )
            means.append((name, label, lams.mean(axis=0)))
    print()
    print("mean λ*_CERT per δ")
    print("| family | construction | " + " | ".join(f"δ={d}" for d in DELTAS) + " |")
    print("|---|---|" + "---:|" * len(DELTAS))
    for name, label, row in means:
        print(f"| {name} | {label} | " + " | ".join(f"{v:.4f}" for v in row) + " |")


if __name__ == "__main__":
    main()
