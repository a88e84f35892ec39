"""Monte Carlo of the selective-risk guarantees: the fixed-rule Clopper-Pearson bound and SGR.

``gcul_theory.selective_risk_upper_bound`` promises P(R > b) <= delta for an accept rule fixed
before the calibration rows are seen; ``gcul_theory.sgr_threshold`` (Geifman & El-Yaniv 2017)
promises P(R(t) > b) <= delta for the threshold t it chooses on them. R is the selective risk on
the deployment law, P(wrong | score >= t). Each law below draws iid calibration rows
(score, wrong) with a known conditional error e(s) = P(wrong | score = s), so R(t) is exact:
scores are uniform on [0, 1] and e is piecewise linear (R(t) = integral of e over [t, 1] divided by
1 - t, by the trapezoid rule on the knots, which is exact), or scores take five tied levels.

The laws cover the assumptions and their edges: a calibrated and a steep monotone e; "boundary"
laws whose risk equals the target at every threshold above 1/2 (every passing test there is a
violation, the worst case of each test) at a moderate risk, near 0 and near 1; a non-monotone
e (the highest scores are over-confident); tied scores; n from 20 to 10,000 and delta 0.05 and
0.2. A negative control runs SGR without its union bound (each test at delta instead of
delta/k) on a boundary law: its violation rate exceeds delta, so the harness can see a broken
guarantee.

For each configuration: the violation count over ``--reps`` calibration draws, the rate, its
one-sided 95% Clopper-Pearson upper bound, and how often a threshold was found. The exact
worst-case violation probability of the fixed-rule bound (sup over R, for fixed m) is computed
from the binomial law, without Monte Carlo.

Usage::

    PYTHONPATH=$PWD python benchmarks/selective_guarantees.py \\
        --markdown benchmarks/selective_guarantees_results.md

tests/test_selective_metrics.py loads this file and runs a small version of the same checks.
"""

from __future__ import annotations

import argparse
import math
import platform
import time
from dataclasses import dataclass

import numpy as np
import scipy
from scipy import special, stats

from gcul_theory import selective_risk_upper_bound, sgr_threshold

SEED = 20261123


@dataclass(frozen=True)
class Law:
    """iid (score, wrong) with a known selective risk R(t) = P(wrong | score >= t).

    Either ``knots`` (scores uniform on [0, 1], e piecewise linear through the knots) or
    ``levels`` (scores take each level with equal probability, e given per level).
    """

    name: str
    target: float
    description: str
    knots: tuple[tuple[float, float], ...] = ()
    levels: tuple[tuple[float, float], ...] = ()  # (score, e) pairs

    def sample(self, rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
        if self.levels:
            pick = rng.integers(0, len(self.levels), size=n)
            scores = np.array([s for s, _ in self.levels])[pick]
            error = np.array([e for _, e in self.levels])[pick]
        else:
            scores = rng.random(n)
            xs, es = zip(*self.knots, strict=True)
            error = np.interp(scores, xs, es)
        return scores, rng.random(n) < error

    def risk(self, t: float) -> float:
        """R(t) = P(wrong | score >= t), exact."""
        if self.levels:
            kept = [e for s, e in self.levels if s >= t]
            return math.fsum(kept) / len(kept) if kept else 0.0
        if t >= 1.0:
            return float(np.interp(1.0, *zip(*self.knots, strict=True)))
        t = max(t, 0.0)
        xs, es = (list(v) for v in zip(*self.knots, strict=True))
        inner = [x for x in xs if t < x < 1.0]
        points = [t, *inner, 1.0]
        values = np.interp(points, xs, es)
        area = math.fsum(
            (points[i + 1] - points[i]) * (values[i] + values[i + 1]) / 2.0
            for i in range(len(points) - 1)
        )
        return area / (1.0 - t)


def boundary_law(name: str, r: float, top: float, description: str) -> Law:
    """e = r for scores >= 1/2 and rising linearly to ``top`` at 0: R(t) = r for every t >= 1/2."""
    return Law(name, r, description, knots=((0.0, top), (0.5, r), (1.0, r)))


LAWS: dict[str, Law] = {
    law.name: law
    for law in (
        Law("calibrated", 0.05, "e(s) = (1 - s)/2, R(t) = (1 - t)/4", knots=((0, 0.5), (1, 0))),
        Law(
            "steep",
            0.02,
            "e falls steeply: 0.9, 0.25, 0.03, 0 at s = 0, 0.3, 0.6, 1",
            knots=((0, 0.9), (0.3, 0.25), (0.6, 0.03), (1, 0)),
        ),
        boundary_law("boundary", 0.1, 0.25, "R(t) = target = 0.1 for every t >= 1/2"),
        boundary_law("near_zero", 0.005, 0.1, "R(t) = target = 0.005 for t >= 1/2 (risk near 0)"),
        boundary_law("near_one", 0.95, 1.0, "R(t) = target = 0.95 for t >= 1/2 (risk near 1)"),
        Law(
            "overconfident",
            0.2,
            "not monotone: e = 0.3 on the top decile, falling from 0.5 to 0.075 below it",
            knots=((0, 0.5), (0.85, 0.075), (0.9, 0.3), (1, 0.3)),
        ),
        Law(
            "tied",
            0.08,
            "five tied score levels 0, 1/4, ..., 1 with e = 0.5, 0.3, 0.15, 0.06, 0.02",
            levels=((1.0, 0.02), (0.75, 0.06), (0.5, 0.15), (0.25, 0.3), (0.0, 0.5)),
        ),
    )
}

NEGATIVE_CONTROL = boundary_law(
    "boundary_0.3", 0.3, 0.5, "R(t) = target = 0.3 for t >= 1/2; SGR without its union bound"
)


@dataclass(frozen=True)
class Count:
    """Violations over ``reps`` draws, and how many draws found a threshold."""

    violations: int
    reps: int
    feasible: int

    @property
    def rate(self) -> float:
        return self.violations / self.reps

    def upper95(self) -> float:
        """One-sided 95% Clopper-Pearson upper bound on the true violation rate."""
        return float(selective_risk_upper_bound(self.violations, self.reps, 0.05))


def sgr_violations(
    law: Law, n: int, delta: float, reps: int, seed: int, union_bound: bool = True
) -> Count:
    """Draws with a threshold found and R(threshold) > its bound (the guarantee's failure)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, n, int(delta * 1000)]))
    k = math.ceil(math.log2(n + 1))
    run_delta = delta if union_bound else min(delta * k, 0.999)  # no union: delta per test
    violations = feasible = 0
    for _ in range(reps):
        scores, wrong = law.sample(rng, n)
        result = sgr_threshold(scores, wrong, law.target, run_delta)
        if result.feasible:
            feasible += 1
            violations += law.risk(result.threshold) > result.risk_bound
    return Count(violations, reps, feasible)


def fixed_rule_violations(
    law: Law, threshold: float, n: int, delta: float, reps: int, seed: int
) -> Count:
    """Draws where R(threshold) exceeds the Clopper-Pearson bound of the fixed rule."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, n, int(delta * 1000), 7]))
    risk = law.risk(threshold)
    violations = 0
    for _ in range(reps):
        scores, wrong = law.sample(rng, n)
        accepted = scores >= threshold
        bound = selective_risk_upper_bound(
            int(np.count_nonzero(wrong & accepted)), int(np.count_nonzero(accepted)), delta
        )
        violations += risk > bound
    return Count(violations, reps, reps)


def exact_worst_violation(m: int, delta: float) -> tuple[float, float]:
    """sup over R of P(R > bound(X)), X ~ Bin(m, R): attained as R decreases to a bound value.

    Returns the supremum and the R where it is approached. For R just above b(x), the violation
    event is {X <= x}, of probability P(Bin(m, b(x)) <= x) (continuity in R).
    """
    bounds = selective_risk_upper_bound(np.arange(m + 1), m, delta)
    worst, where = 0.0, 0.0
    for x in range(m):  # b(m) = 1: R > 1 is impossible
        p = float(stats.binom.cdf(x, m, bounds[x]))
        if p > worst:
            worst, where = p, float(bounds[x])
    return worst, where


def _table(rows: list[list[str]], header: list[str]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _p_value(count: Count, delta: float) -> float:
    """P(Bin(reps, delta) >= violations): small if the true rate is above delta."""
    return float(special.bdtrc(count.violations - 1, count.reps, delta))


#: Family-wise level of the verdict column: a row is flagged when its p-value is below
#: FAMILY_LEVEL / (number of rows of the report), so a valid guarantee flags any row of the
#: whole report with probability <= FAMILY_LEVEL (Bonferroni).
FAMILY_LEVEL = 0.01


def _count_row(c: Count, delta: float, n_rows: int) -> list[str]:
    p = _p_value(c, delta)
    verdict = "rate > delta" if p < FAMILY_LEVEL / n_rows else "consistent"
    return [
        f"{c.feasible / c.reps:.3f}",
        str(c.violations),
        f"{c.rate:.4f}",
        f"{c.upper95():.4f}",
        f"{p:.2g}",
        verdict,
    ]


_COUNT_HEADER = ["found", "violations", "rate", "95% upper", "p (rate <= delta)", "verdict"]


def run(reps: int, seed: int, ns: tuple[int, ...], deltas: tuple[float, ...]) -> str:
    start = time.perf_counter()
    configs = [(law, n, d) for law in LAWS.values() for n in ns for d in deltas]
    n_rows = 2 * len(configs)  # the SGR and the fixed-rule tables
    out = []

    rows, worst_ratio, flagged = [], 0.0, 0
    for law, n, delta in configs:
        c = sgr_violations(law, n, delta, reps, seed)
        worst_ratio = max(worst_ratio, c.upper95() / delta)
        row = _count_row(c, delta, n_rows)
        flagged += row[-1] != "consistent"
        rows.append([law.name, f"{law.target:g}", str(n), f"{delta:g}", *row])
    sgr_seconds = time.perf_counter() - start
    out.append("## SGR (`sgr_threshold`): violation = a threshold found and R(t) > its bound\n")
    out.append(_table(rows, ["law", "target", "n", "delta", *_COUNT_HEADER]))
    out.append(
        f"\nRows flagged: {flagged} of {len(rows)}. Largest 95% upper bound on the violation "
        f"rate, as a multiple of delta: {worst_ratio:.3f}. ({sgr_seconds:.0f} s)\n"
    )

    rows = []
    for n in ns:
        for delta in deltas:
            c = sgr_violations(NEGATIVE_CONTROL, n, delta, reps, seed, union_bound=False)
            rows.append([str(n), f"{delta:g}", *_count_row(c, delta, n_rows)])
    out.append(
        "## Negative control: SGR without the union bound (each test at delta), law "
        f"`{NEGATIVE_CONTROL.name}` ({NEGATIVE_CONTROL.description})\n"
    )
    out.append(_table(rows, ["n", "delta", *_COUNT_HEADER]))
    out.append("")

    rows, flagged = [], 0
    for law, n, delta in configs:
        c = fixed_rule_violations(law, 0.5, n, delta, reps, seed)
        row = _count_row(c, delta, n_rows)
        flagged += row[-1] != "consistent"
        rows.append([law.name, f"{law.risk(0.5):.4g}", str(n), f"{delta:g}", *row[1:]])
    out.append(
        "## Fixed rule (`selective_risk_upper_bound`): accept score >= 1/2, "
        "violation = R(1/2) > bound\n"
    )
    out.append(_table(rows, ["law", "R(1/2)", "n", "delta", *_COUNT_HEADER[1:]]))
    out.append(
        f"\nRows flagged: {flagged} of {len(rows)}. The Clopper-Pearson bound is nearly exact "
        "for large m, so its violation rate approaches delta there (and the 95% upper bound of "
        "a Monte Carlo estimate near delta exceeds delta about half the time); the verdict is "
        "the one-sided binomial test of rate <= delta.\n"
    )

    rows = []
    for m in (1, 2, 5, 10, 30, 100, 1000, 10_000):
        for delta in deltas:
            worst, where = exact_worst_violation(m, delta)
            rows.append(
                [
                    str(m),
                    f"{delta:g}",
                    f"{worst:.12g}",
                    f"{delta - worst:.2g}",
                    f"{where:.6g}",
                    "yes" if worst <= delta else "NO",
                ]
            )
    out.append(
        "## Fixed rule, exact: sup over R of P(R > bound) for m accepted (binomial law, "
        "no Monte Carlo)\n"
    )
    out.append(
        _table(rows, ["m", "delta", "sup violation", "delta - sup", "approached at R", "<= delta"])
    )
    out.append("")
    total = time.perf_counter() - start
    head = (
        "# Selective-risk guarantees by Monte Carlo\n\n"
        "Written by `PYTHONPATH=$PWD python benchmarks/selective_guarantees.py --markdown "
        f"benchmarks/selective_guarantees_results.md --reps {reps}` (seed {seed}; "
        f"{total:.0f} s on {platform.machine()}, Python {platform.python_version()}, "
        f"NumPy {np.__version__}, SciPy {scipy.__version__}). Laws (module docstring):\n\n"
        + "\n".join(
            f"- `{law.name}` (target {law.target:g}): {law.description}" for law in LAWS.values()
        )
        + "\n\n`found`: share of draws where SGR returned a threshold (a violation needs one). "
        "`95% upper`: one-sided 95% Clopper-Pearson upper bound on the true violation rate "
        "from the Monte Carlo count. `p (rate <= delta)`: P(Bin(reps, delta) >= violations), "
        "the one-sided test of the guarantee; `verdict` flags a row when p < "
        f"{FAMILY_LEVEL:g} / {n_rows} (the rows of the two Monte Carlo tables, Bonferroni: a "
        f"valid guarantee flags some row with probability <= {FAMILY_LEVEL:g}).\n"
    )
    return head + "\n" + "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--markdown", default=None, help="write the report to this file")
    args = parser.parse_args(argv)
    report = run(args.reps, args.seed, ns=(20, 100, 1000, 10_000), deltas=(0.05, 0.2))
    print(report)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as handle:
            handle.write(report + "\n")


if __name__ == "__main__":
    main()
