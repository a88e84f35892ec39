r"""Theorem ``thm:monotonicity``: :math:`\partial S/\partial r_1 > 0`, :math:`\partial S/\partial r_2 < 0`.

Follows appendix ``app:proof_monotonicity`` of [1]_: quotient rule, the two numerator
identities, their signs as sums of non-negative terms, and :math:`D = \rho(1-\rho)/\varepsilon > 0`.

References
----------
.. [1] "GCUL: Ambiguity Identification in Text Emotion Classification via Cluster-Guided
   Learning" (the GCUL paper), appendix "Proof of Theorem ``thm:monotonicity`` (strict
   monotonicity)" (``app:proof_monotonicity``).
"""

from __future__ import annotations

import sympy as sp

from ._expressions import (
    rejection_rate_expr,
    selectivity_denominator,
    selectivity_expr,
    selectivity_gradient,
)
from ._result import Finding, Outcome, claim, decide, require
from ._symbolic import (
    all_hold,
    identity_test,
    is_identity,
    positivity_certificate,
    rate_symbols,
    search,
    unit_samples,
)

__all__ = ["CLAIMS"]


def _parts() -> dict[str, sp.Expr]:
    _, eps, r1, r2 = rate_symbols()
    a = 1 - eps
    den = selectivity_denominator(eps, r1, r2)
    return {
        "eps": eps,
        "r1": r1,
        "r2": r2,
        "a": a,
        "D": den,
        "S": selectivity_expr(eps, r1, r2),
        "dD1_printed": 1 - 2 * eps * r1 - 2 * a * r2,
        "dD2_printed": a / eps - 2 * a**2 / eps * r2 - 2 * a * r1,
    }


def _bracket(p: dict[str, sp.Expr], var: str, sign: int) -> sp.Expr:
    """``sign D - (r1 - r2) dD/d var`` with the printed dD/d var: the quotient rule's bracket."""
    return sign * p["D"] - (p["r1"] - p["r2"]) * p[f"dD{var[-1]}_printed"]


def _quotient_rule(var: str, sign: int) -> Outcome:
    """dD/d var as printed, and dS/d var = (a/D^2) times :func:`_bracket` (Parts 1 and 2)."""
    p = _parts()
    den = p["D"]
    quotient = p["a"] / den**2 * _bracket(p, var, sign)
    return all_hold(
        identity_test(sp.diff(den, p[var]), p[f"dD{var[-1]}_printed"], f"dD/d{var} as printed"),
        identity_test(sp.diff(p["S"], p[var]), quotient, f"quotient rule for dS/d{var}"),
    )


@claim(
    "monotonicity.part1_derivative",
    "app:proof_monotonicity",
    "dS/dr1 = (a/D^2)[D - (r1-r2) dD/dr1] with dD/dr1 = 1 - 2 eps r1 - 2 a r2.",
)
def check_part1_derivative() -> Finding:
    """Quotient rule for ∂S/∂r1 and the printed ∂D/∂r1. Sources: app:proof_monotonicity."""
    return decide(
        _quotient_rule("r1", 1),
        "diff(S, r1) equals the printed quotient-rule form; diff(D, r1) as printed.",
    )


@claim(
    "monotonicity.part1_numerator",
    "app:proof_monotonicity",
    "D - (r1-r2) dD/dr1 = eps (r1-r2)^2 + r2(1-r2)/eps.",
)
def check_part1_numerator() -> Finding:
    """Numerator identity of Part 1. Sources: app:proof_monotonicity."""
    p = _parts()
    eps, r1, r2 = p["eps"], p["r1"], p["r2"]
    rhs = eps * (r1 - r2) ** 2 + r2 / eps * (1 - r2)
    return decide(
        identity_test(_bracket(p, "r1", 1), rhs, "Part 1 numerator identity"),
        "D - (r1-r2)*dD/dr1 = eps*(r1-r2)**2 + r2*(1-r2)/eps identically.",
    )


@claim(
    "monotonicity.part2_derivative",
    "app:proof_monotonicity",
    "dS/dr2 = (a/D^2)[-D - (r1-r2) dD/dr2] with dD/dr2 = a/eps - 2 a^2 r2/eps - 2 a r1.",
)
def check_part2_derivative() -> Finding:
    """Quotient rule for ∂S/∂r2 and the printed ∂D/∂r2. Sources: app:proof_monotonicity."""
    return decide(
        _quotient_rule("r2", -1),
        "diff(S, r2) equals the printed quotient-rule form; diff(D, r2) as printed.",
    )


@claim(
    "monotonicity.part2_numerator",
    "app:proof_monotonicity",
    "-D - (r1-r2) dD/dr2 = -[a^2 (r1-r2)^2/eps + r1(1-r1)/eps].",
)
def check_part2_numerator() -> Finding:
    """Numerator identity of Part 2. Sources: app:proof_monotonicity."""
    p = _parts()
    eps, r1, r2, a = p["eps"], p["r1"], p["r2"], p["a"]
    rhs = -(a**2 / eps * (r1 - r2) ** 2 + r1 / eps * (1 - r1))
    return decide(
        identity_test(_bracket(p, "r2", -1), rhs, "Part 2 numerator identity"),
        "-D - (r1-r2)*dD/dr2 = -[a**2*(r1-r2)**2/eps + r1*(1-r1)/eps] identically.",
    )


@claim(
    "monotonicity.signs",
    "thm:monotonicity",
    "For 0 < eps < 1 and 0 < r2 < r1 < 1: dS/dr1 > 0 and dS/dr2 < 0.",
)
def check_signs() -> Finding:
    """Signs of the gradient, and the observation that r2 < r1 is never used.

    Sources: Theorem ``thm:monotonicity`` and appendix ``app:proof_monotonicity``.
    """
    p = _parts()
    eps, r1, r2, den = p["eps"], p["r1"], p["r2"], p["D"]
    rho = rejection_rate_expr(eps, r1, r2)
    require(is_identity(den, rho * (1 - rho) / eps), "D = rho(1-rho)/eps")
    g1, g2 = selectivity_gradient(eps, r1, r2)
    require(is_identity(sp.diff(p["S"], r1), g1), "gradient r1 (signed form)")
    require(is_identity(sp.diff(p["S"], r2), g2), "gradient r2 (signed form)")
    # The proof: each derivative, as one rational function, is certified positive (resp.
    # negative) on the whole open cube (0,1)^3 by substitution and factorisation.
    c1 = positivity_certificate(sp.diff(p["S"], r1), "dS/dr1 > 0", unit=(eps, r1, r2))
    c2 = positivity_certificate(-sp.diff(p["S"], r2), "-dS/dr2 > 0", unit=(eps, r1, r2))
    # Backup (not the proof): the signed form at seeded random points, r2 > r1 included.
    samples = unit_samples(9)
    grid = {eps: samples[:3], r1: samples[3:6], r2: samples[6:]}

    def signs_hold(point):
        v1, v2 = (g.xreplace(point) for g in (g1, g2))
        return bool(v1 > 0 and v2 < 0)

    backup = search(signs_hold, "dS/dr1 > 0 > dS/dr2", grid)
    require(backup.holds, backup.detail)
    return decide(
        all_hold(c1, c2),
        (
            "D = rho(1-rho)/eps > 0 because rho is a convex combination of r1, r2 in (0, 1). "
            "dS/dr1 = a/D^2 [eps (r1-r2)^2 + r2(1-r2)/eps] and dS/dr2 = -a/D^2 [a^2 (r1-r2)^2/eps"
            " + r1(1-r1)/eps]. Certified on the whole open cube 0 < eps, r1, r2 < 1: with "
            "u = t/(1+t) for each of eps, r1, r2 (t > 0), diff(S, r1) and -diff(S, r2) factor "
            "into polynomials with positive coefficients only. The hypothesis r2 < r1 is never "
            "used: S is strictly increasing in r1 and strictly decreasing in r2 on the whole "
            "open square (0,1)^2 (including r2 >= r1, where S <= 0). Backup: "
            + backup.detail
            + " (seeded random rationals, r2 > r1 included)."
        ),
    )


CLAIMS = (
    check_part1_derivative,
    check_part1_numerator,
    check_part2_derivative,
    check_part2_numerator,
    check_signs,
)
