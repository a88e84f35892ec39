r"""Theorem ``thm:gcul_effectiveness_sufficient_condition``: :math:`\lambda^* > \lambda` suffices.

The theorem substitutes :math:`r_1 \ge \hat r_1` and :math:`r_2 \le \hat r_2` into the monotone
:math:`S_{GCUL}` (section ``subsec:feasibility_threshold`` of [1]_). The monotone step is exact on
:math:`(0,1)^2`, certified here by factoring finite differences; outside the unit square
:math:`S` has poles at :math:`\rho \in \{0, 1\}` and the substitution breaks.

References
----------
.. [1] "GCUL: Ambiguity Identification in Text Emotion Classification via Cluster-Guided
   Learning" (the GCUL paper), section "Effectiveness threshold and feasibility region"
   (``subsec:feasibility_threshold``), Theorem ``thm:gcul_effectiveness_sufficient_condition``.
"""

from __future__ import annotations

import functools
import math

import sympy as sp

from ._expressions import (
    critical_lambda_expr,
    rejection_rate_expr,
    selectivity_closed_form,
)
from ._result import Finding, claim, decide, require
from ._symbolic import all_hold, identity_test, is_identity, search, show

__all__ = ["CLAIMS"]


@claim(
    "sufficient_condition.monotone_substitution",
    "thm:gcul_effectiveness_sufficient_condition",
    "By monotonicity, r1 >= r1_hat and r2 <= r2_hat give S(r1, r2) >= S(r1_hat, r2_hat) = "
    "lambda*, so lambda* > lambda implies S > lambda.",
)
def check_monotone_substitution() -> Finding:
    """Exact finite-difference certificates of monotonicity on (0,1)^2.

    Sources: Theorem ``thm:gcul_effectiveness_sufficient_condition``, Theorem ``thm:monotonicity``.
    """
    eps = sp.Symbol("epsilon", positive=True)
    r, a, b = sp.symbols("r a b", positive=True)

    def rho_term(x: sp.Expr, y: sp.Expr) -> sp.Expr:
        rho = rejection_rate_expr(eps, x, y)
        return rho * (1 - rho)

    s = selectivity_closed_form
    bracket1 = eps**2 * (a - r) * (b - r) + r * (1 - r)
    diff1 = (a - b) * eps * (1 - eps) * bracket1 / (rho_term(a, r) * rho_term(b, r))
    bracket2 = (1 - eps) ** 2 * (r - a) * (r - b) + r * (1 - r)
    diff2 = -(a - b) * eps * (1 - eps) * bracket2 / (rho_term(r, a) * rho_term(r, b))
    # B1 = eps^2 K + (1 - eps^2) r(1-r) with K = (a-r)(b-r) + r(1-r); K is bilinear in (a, b),
    # so on [0,1]^2 its minimum is at a corner: K(0,0) = r, K(1,1) = 1-r, K(0,1) = K(1,0) = 0.
    # Hence K >= 0 and B1 >= (1-eps^2) r(1-r) > 0; the same with eps -> 1-eps for B2.
    kk = (a - r) * (b - r) + r * (1 - r)
    corners = {(i, j): sp.expand(kk.subs({a: i, b: j})) for i in (0, 1) for j in (0, 1)}
    require(corners == {(0, 0): r, (1, 1): 1 - r, (0, 1): 0, (1, 0): 0}, f"corners {corners}")
    require(is_identity(bracket1, eps**2 * kk + (1 - eps**2) * r * (1 - r)), "B1 split")
    require(
        is_identity(bracket2, (1 - eps) ** 2 * kk + (1 - (1 - eps) ** 2) * r * (1 - r)), "B2 split"
    )
    third = (sp.Rational(1, 10), sp.Rational(1, 2), sp.Rational(9, 10))
    grid = {eps: third, r: third, a: (0, sp.Rational(1, 3), 1), b: (0, sp.Rational(1, 3), 1)}
    backup = search(
        lambda pt: bool(bracket1.xreplace(pt) > 0 and bracket2.xreplace(pt) > 0),
        "B1 > 0 and B2 > 0",
        grid,
    )
    require(backup.holds, backup.detail)
    return decide(
        all_hold(
            identity_test(s(eps, a, r) - s(eps, b, r), diff1, "finite difference in r1"),
            identity_test(s(eps, r, a) - s(eps, r, b), diff2, "finite difference in r2"),
        ),
        (
            "For r, a, b in (0,1): S(a, r) - S(b, r) = (a-b) eps(1-eps) B1 / (rho(1-rho)|_(a,r) "
            f"rho(1-rho)|_(b,r)) with B1 = {show(bracket1)}, and S(r, a) - S(r, b) = -(a-b) "
            f"eps(1-eps) B2 / (...) with B2 = {show(bracket2)}. Since |(a-r)(b-r)| <= r(1-r) on "
            "[0,1], B1 >= r(1-r)(1-eps^2) > 0 and B2 >= r(1-r)(1-(1-eps)^2) > 0; the rho(1-rho) "
            "factors are positive. So S(r1, r2) >= S(r1_hat, r2) >= S(r1_hat, r2_hat) whenever "
            "all four rates lie in (0,1) -- without needing r2 < r1 (cf. monotonicity.signs). "
            "The premise r1 >= r1_hat is the erratum global_rate_bounds.r1_bound (and "
            "r1_rigorous.loss_cover); the bounds hold in expectation, so the conclusion is about "
            "S at the expected rates (realised rates need concentration). Backup: "
            + backup.detail
            + "."
        ),
    )


@claim(
    "sufficient_condition.domain",
    "thm:gcul_effectiveness_sufficient_condition",
    "lambda* := S(r1_hat, r2_hat) with r1_hat, r2_hat of Eqs. (r1_hat), (r2_hat); "
    "lambda* > lambda is sufficient for S_GCUL > lambda.",
)
def check_domain() -> Finding:
    """Outside (0,1) the substitution fails: ρ̂ < 0 or ρ̂ > 1 flips the sign of S.

    Sources: Theorem ``thm:gcul_effectiveness_sufficient_condition``, Eqs. (r1_hat), (r2_hat),
    (r1_rigorous_bound).
    """
    lam = sp.Rational(3, 20)
    s = selectivity_closed_form
    rows = []

    def tail(snr: float) -> float:  # erfc(D/(2 sqrt2 sigma))/2
        return 0.5 * math.erfc(snr / (2 * math.sqrt(2)))

    def chernoff(snr: float) -> float:  # exp(-D^2/(8 sigma^2))
        return math.exp(-(snr**2) / 8)

    # S <= 1 on the unit square: rho(1-rho) - eps(1-eps)(r1-r2) is a sum of non-negative terms.
    e, x, y = sp.symbols("epsilon r1 r2", positive=True)
    rho = rejection_rate_expr(e, x, y)
    certificate = e**2 * x * (1 - x) + (1 - e) ** 2 * y * (1 - y) + 2 * e * (1 - e) * y * (1 - x)
    require(is_identity(rho * (1 - rho) - e * (1 - e) * (x - y), certificate), "S <= 1")

    # The geometries quoted below do produce these hats (one class, w = pi = 1).
    require(abs((1 - tail(2.5631031311)) - 0.9) < 1e-9, "case 1 r1_hat")
    require(abs(tail(0.5066942063) / (1 - 0.8) - 2.0) < 1e-9, "case 1 r2_hat")
    require(abs((1 - tail(0.4031949980) - chernoff(0.4031949980)) + 0.4) < 1e-9, "case 2 r1_hat")
    require(abs(tail(3.2897072539) / (1 - 0.5) - 0.1) < 1e-9, "case 2 r2_hat")
    cases = (
        # (eps, r1_hat, r2_hat, actual r1 = r2, geometry that produces the hats)
        (
            sp.Rational(4, 5),
            sp.Rational(9, 10),
            sp.Integer(2),
            sp.Rational(9, 10),
            "Gaussian method, one class, D/sigma_mix = 2.563, D/sigma_c = 0.507 "
            "(r2_hat <= 1/(2(1-eps)) can exceed 1 when eps > 1/2)",
        ),
        (
            sp.Rational(1, 2),
            sp.Rational(-2, 5),
            sp.Rational(1, 10),
            sp.Rational(1, 20),
            "union bound of thm:r1_rigorous, one class, D/sigma_mix = 0.403, D/sigma_c = 3.290 "
            "(r1_hat = 1 - (p + eta) >= -1/2)",
        ),
    )
    # The theorem as printed, over hats the printed formulas can produce (r1_hat in [-1/2, 1],
    # r2_hat in [0, 1/(2(1-eps))]) and rates satisfying its premises: lambda* > lambda must imply
    # S(r1, r2) > lambda. The two geometries above are tried first, then a grid.
    e_, h1, h2, x1, x2 = sp.symbols("epsilon r1_hat r2_hat r1 r2")
    half = sp.Rational(1, 2)
    grid = {
        e_: (sp.Rational(1, 5), half, sp.Rational(4, 5)),
        h1: (sp.Rational(-2, 5), 0, half, sp.Rational(9, 10)),
        h2: (0, sp.Rational(1, 10), half, 1, 2),
        x1: (sp.Rational(1, 20), sp.Rational(9, 10), 1),
        x2: (0, sp.Rational(1, 20), sp.Rational(9, 10)),
    }
    extra = [{e_: c[0], h1: c[1], h2: c[2], x1: c[3], x2: c[3]} for c in cases]

    def implication(score):
        score = functools.cache(score)

        def holds_at(pt):
            eps, r1h, r2h, r1, r2 = (pt[k] for k in (e_, h1, h2, x1, x2))
            if r2h > 1 / (2 * (1 - eps)) or not (r1 >= r1h and r2 <= r2h):
                return None  # hats the formulas cannot produce, or premises not met
            rho = rejection_rate_expr(eps, r1, r2)
            if not 0 < rho < 1:
                return None
            try:
                certified = score(eps, r1h, r2h)
            except (TypeError, ValueError):  # 0/0 at rho_hat = 0: nothing is certified
                return None
            if certified.has(sp.nan, sp.zoo):
                return None
            return bool(certified <= lam or s(eps, r1, r2) > lam)

        return holds_at

    def describe(pt):
        eps, r1h, r2h, r1, r2 = (pt[k] for k in (e_, h1, h2, x1, x2))
        return (
            f"eps={eps}, r1_hat={r1h}, r2_hat={r2h} (rho_hat={rejection_rate_expr(eps, r1h, r2h)}):"
            f" lambda*={s(eps, r1h, r2h)} > {lam}, yet r1={r1}, r2={r2} give "
            f"S={s(eps, r1, r2)} <= {lam}"
        )

    for eps, r1_hat, r2_hat, _actual, origin in cases:
        rows.append(f"eps={eps}, r1_hat={r1_hat}, r2_hat={r2_hat}: {origin}")
    printed = search(implication(s), f"lambda* > {lam} => S > {lam}", grid, extra, describe)
    clipped = search(
        implication(critical_lambda_expr), f"max(0, S(clip hats)) > {lam} => S > {lam}", grid
    )
    return decide(
        printed,
        (
            "S = eps(1-eps)(r1-r2)/(rho(1-rho)) changes sign through the poles rho = 0 and "
            "rho = 1. Eq. (r2_hat) can exceed 1 (q_c -> 1/2 as sigma_c/D_c grows, so r2_hat -> "
            "1/(2(1-eps))) and the union bound of thm:r1_rigorous can be negative (down to -1/2); "
            "then rho_hat falls outside (0,1), S(r1_hat, r2_hat) is positive for the wrong reason "
            "and exceeds lambda while rates satisfying the premises r1 >= r1_hat, r2 <= r2_hat "
            "give S = 0 < lambda: the implication of the theorem fails (a logical witness; the "
            "true rates of the generating geometry may still be good). In the first case "
            "lambda* = 55/42 > 1 >= S(r1, r2) for EVERY r1, r2 in [0,1] (0 < rho < 1), because "
            "rho(1-rho) - eps(1-eps)(r1-r2) = " + show(certificate) + " >= 0. Clipping the hats "
            "to [0,1] and reporting max(0, S) restores a conservative value (0 in both cases). "
            "Also inherits the r1 erratum (global_rate_bounds.r1_bound, r1_rigorous.loss_cover). "
            "Attainable hats: " + "; ".join(rows) + "."
        ),
        (
            "With r1_hat, r2_hat clipped to [0, 1] (r1_hat from the corrected bound E[r1] >= "
            "1 - sum_c p_c) and 0 < rho_hat < 1: any r1 >= r1_hat, r2 <= r2_hat in (0,1) give "
            "S(r1, r2) >= S(r1_hat, r2_hat); report lambda*_PRE = max(0, S(clip r1_hat, clip "
            "r2_hat)); lambda*_PRE > lambda is sufficient (for the expected rates)."
        ),
        clipped,
    )


CLAIMS = (check_monotone_substitution, check_domain)
