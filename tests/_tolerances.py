"""Tolerances shared by the test modules, each one derived from an error bound.

Floating point
    ``U = 2**-53`` is the unit roundoff of float64: a correctly rounded operation returns
    ``x(1 + δ)`` with ``|δ| <= U``. ``gamma(k) = kU/(1 - kU)`` bounds the relative error of ``k``
    such roundings in a product or quotient (Higham, *Accuracy and Stability of Numerical
    Algorithms*, 2nd ed., Lemma 3.1). A tolerance is then ``gamma(k)`` times the condition number
    of the operation, written next to it.

Monte Carlo
    Every statistical check of the suite is allowed a false-failure probability of at most
    ``ALPHA = 1e-9`` when the property it tests holds. One run of the suite (profile ``ci`` or
    ``dev``) makes fewer than 1,000 such checks (each module counts its own next to them), so a
    correct package fails a run by chance with probability below ``1e-6`` (union bound).
"""

from __future__ import annotations

import math

from scipy.stats import binom
from scipy.stats import t as student_t

U = 2.0**-53  # unit roundoff of float64
ALPHA = 1e-9  # false-failure probability allowed per statistical check (< 1,000 checks a run)


def gamma(k: int) -> float:
    """Relative error bound ``kU/(1 - kU)`` of ``k`` roundings (Higham, Lemma 3.1)."""
    return k * U / (1.0 - k * U)


# Accuracy of the tails (gcul_theory._tails). The Gaussian tail is ½erfc(x) for x < ½, else
# ½erfcx(x)·exp(-x²) with x² carried exactly (error-free products, to 2**-104 relative): its
# error is that of scipy's erfc/erfcx, S. G. Johnson's Faddeeva package, documented to at least
# 13 significant digits (1e-13 relative), plus a few roundings (the argument, two exps, three
# products: gamma(8)). The Chernoff tail exp(-x²) is two exps of exact arguments and one product:
# gamma(10) allows 4 ulp for each exp (glibc documents 1 ulp) and a reference's own rounding.
# The worst measured over the suite's draws is 5u for both.
GAUSSIAN_REL = 1e-13 + gamma(8)
CHERNOFF_REL = gamma(10)


def score_rate_condition(eps: float, r1: float, r2: float) -> float:
    """``|∂S/∂r1| + |∂S/∂r2|`` bounded: how much S(ε, r1, r2) moves per unit move of its rates.

    S = A(r1 - r2)/Q with A = ε(1 - ε), Q = ρ(1 - ρ), ρ = εr1 + (1 - ε)r2, so the sum of the
    partial derivatives is at most 2A/Q + A|r1 - r2||1 - 2ρ|/Q² (inf where Q = 0).
    """
    rho = eps * r1 + (1.0 - eps) * r2
    Q = rho * (1.0 - rho)
    if Q <= 0.0:
        return math.inf
    A = eps * (1.0 - eps)
    return 2.0 * A / Q + A * abs(r1 - r2) * abs(1.0 - 2.0 * rho) / Q**2


def binomial_band(p: float, n: int, alpha: float = ALPHA) -> float:
    """Half-width ``b`` with ``P(|X/n - p| > b) <= alpha`` for ``X ~ Binomial(n, p)``.

    From the exact binomial quantiles: ``P(X < ppf(alpha/2)) < alpha/2`` and
    ``P(X > isf(alpha/2)) <= alpha/2``. For a sum of independent Bernoulli variables of mean
    ``np`` with unequal probabilities (Poisson-binomial), the upper tail beyond ``np + 1`` is at
    most the binomial one (Hoeffding 1956, Theorem 4), so such uses add one count, ``1/n``.
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be in [0, 1]; got {p!r}")
    low = binom.ppf(alpha / 2.0, n, p)
    high = binom.isf(alpha / 2.0, n, p)
    return max(p - low / n, high / n - p, 0.0)


def normal_quantile(alpha: float = ALPHA) -> float:
    """``z`` with ``P(|Z| > z) = alpha`` for a standard normal ``Z`` (6.11 at 1e-9)."""
    return float(student_t.isf(alpha / 2.0, math.inf))


def t_quantile(dof: int, alpha: float = ALPHA) -> float:
    """``t`` with ``P(|T| > t) = alpha`` for Student's t with ``dof`` degrees of freedom."""
    return float(student_t.isf(alpha / 2.0, dof))
