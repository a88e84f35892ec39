r"""The certified predictor λ*_CERT of ``gcul_theory`` (beyond the paper): its guarantee.

``gcul_theory.certified_lambda`` certifies, from a held-out calibration set, the largest λ at
which the utility :math:`U(\lambda) = \varepsilon - \varepsilon_{sel} - \lambda\rho` of section
``subsec:selectivity_score`` of [1]_ is positive with confidence :math:`1-\delta`. The stated
proof: :math:`\lambda^*_{CERT} > \lambda` implies :math:`L(\lambda) > 0`, and
:math:`P(L(\lambda) > U(\lambda)) \le \delta` (a union bound over two exact Clopper–Pearson
intervals and two betting tests, each of whose capital at the true parameters is a non-negative
martingale of expectation 1, so Markov's inequality bounds its risk). The check reproduces the
two algebraic facts the proof rests on (SymPy) and runs a small Monte Carlo at the null
boundary :math:`U(\lambda_0) = 0`, reporting the violation rate with its standard error.

References
----------
.. [1] "Ambiguity identification in text emotion classification via cluster-guided learning"
   (the GCUL paper), section ``subsec:selectivity_score``.
.. [2] I. Waudby-Smith and A. Ramdas, "Estimating means of bounded random variables by betting",
   J. R. Stat. Soc. B 86 (2024).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import sympy as sp

from ._result import Finding, claim, require
from ._trace import step

__all__ = ["CERTIFIED_REPS", "CERTIFIED_SEED", "null_boundary_violations", "CLAIMS"]

CERTIFIED_SEED = 20261122
"""Seed of the calibration sets of the Monte Carlo check."""

CERTIFIED_REPS = 200
"""Calibration sets drawn (standard error of a rate near δ = 0.1: 0.021)."""

# The law of the Monte Carlo: rho = P(rejected) = 1/10, a = P(base wrong | rejected) = 3/4,
# b = P(base wrong | accepted) = 1/10, eps_sel = P(selective wrong | accepted) = 2/25.
_LAW = {"rho": sp.Rational(1, 10), "a": sp.Rational(3, 4), "b": sp.Rational(1, 10),
        "eps_sel": sp.Rational(2, 25)}
_N = 300
_DELTA = 0.1


def _null_lambda() -> sp.Rational:
    """λ0 with U(λ0) = 0 under the Monte Carlo's law (SymPy solve; 17/20)."""
    lam = sp.Symbol("lambda")
    rho, a, b, eps_sel = (_LAW[k] for k in ("rho", "a", "b", "eps_sel"))
    utility = rho * a + (1 - rho) * b - eps_sel - lam * rho
    (root,) = sp.solve(sp.Eq(utility, 0), lam)
    return root


@functools.cache
def null_boundary_violations(reps: int = CERTIFIED_REPS) -> tuple[int, int, float]:
    r"""Count calibration sets with :math:`\lambda^*_{CERT} > \lambda_0` where :math:`U(\lambda_0) = 0`.

    Returns
    -------
    violations, reps, lambda0 : int, int, float
    """
    from gcul_theory import certified_lambda

    lam0 = float(_null_lambda())
    rng = np.random.default_rng(CERTIFIED_SEED)
    rho, a, b, e = (float(_LAW[k]) for k in ("rho", "a", "b", "eps_sel"))
    count = 0
    for _ in range(reps):
        rejected = rng.random(_N) < rho
        base_wrong = np.where(rejected, rng.random(_N) < a, rng.random(_N) < b)
        selective_wrong = ~rejected & (rng.random(_N) < e)
        count += certified_lambda(base_wrong, selective_wrong, rejected, delta=_DELTA) > lam0
    return count, reps, lam0


@claim(
    "certified.guarantee",
    "subsec:selectivity_score (beyond)",
    "certified_lambda (betting): for every fixed lambda in [0, 1) and iid calibration samples, "
    "P(lambda*_CERT > lambda and U(lambda) <= 0) <= delta.",
)
def check_guarantee() -> Finding:
    """The proof's algebra (SymPy) and a Monte Carlo at the null boundary with its SE."""
    rho, a, mu, lam, rho_lo, rho_hi = sp.symbols("rho a mu lambda rho_lo rho_hi", real=True)
    b, eps_sel = sp.symbols("b eps_sel", real=True)
    # (1) U(lambda) = rho (a - lambda) + (1 - rho) b - eps_sel, with eps = rho a + (1 - rho) b.
    U = (rho * a + (1 - rho) * b) - eps_sel - lam * rho
    decomposed = rho * (a - lam) + ((1 - rho) * b - eps_sel)
    step("U(lambda) = eps - eps_sel - lambda rho = rho (a - lambda) + mu", U, decomposed)
    require(sp.expand(U - decomposed) == 0, "decomposition of U")
    # (2) U is affine in rho, so on [rho_lo, rho_hi] it is >= the smaller end value.
    t = sp.Symbol("t", nonnegative=True)
    inside = rho_lo + t * (rho_hi - rho_lo)
    affine = sp.expand(decomposed.subs(rho, inside))
    require(sp.degree(affine, t) == 1, "U is affine in rho")
    step("U along rho in [rho_lo, rho_hi] (degree 1 in t)", affine)
    # (3) Markov: the capital K >= 0 with E K = 1 gives P(K >= 1/delta) <= delta.
    violations, reps, lam0 = null_boundary_violations()
    rate = violations / reps
    se = math.sqrt(max(_DELTA * (1 - _DELTA), rate * (1 - rate)) / reps)
    step("Monte Carlo: violations / reps at the null boundary lambda0", violations, reps, lam0)
    require(rate <= _DELTA + 2 * se, f"violation rate {rate} > delta {_DELTA} + 2 SE {se}")
    return Finding(
        status="verified",
        established=(
            "stated proof: lambda*_CERT > lambda implies L(lambda) > 0, and P(L(lambda) > U(lambda)) "
            "<= delta by a union bound over two exact Clopper-Pearson intervals (0.02 delta each) "
            "and two betting tests (0.48 delta each; the capital at the true parameters is "
            "non-negative with expectation 1, Markov). SymPy: U = rho (a - lambda) + mu and U is "
            "affine in rho (so its minimum over the rho interval is at an end). Monte Carlo at "
            f"U(lambda0) = 0 (lambda0 = {lam0:g}; rho = 1/10, a = 3/4, b = 1/10, eps_sel = 2/25; "
            f"n = {_N}, delta = {_DELTA}, {reps} calibration sets, seed {CERTIFIED_SEED})."
        ),
        evidence=(
            f"P(lambda*_CERT > lambda0) = {violations}/{reps} = {rate:.3f} (SE {se:.3f}) "
            f"<= delta = {_DELTA}"
        ),
    )


CLAIMS = (check_guarantee,)
