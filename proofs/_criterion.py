r"""Derivation of the effectiveness criterion :math:`S_{GCUL} > \lambda` (appendix
``app:criterion_derivation`` of [1]_), line by line.

Each displayed inequality is written as a *margin* :math:`g_k` so that the line reads
:math:`g_k > 0`. Line :math:`k+1` is equivalent to line :math:`k` on the domain
:math:`0 < \varepsilon < 1`, :math:`0 \le \lambda < 1`, :math:`0 \le r_1, r_2 \le 1`,
:math:`0 < \rho < 1` when :math:`g_{k+1} = c_k\, g_k` with a factor :math:`c_k > 0` there; this
is checked with ``cancel``. When a line is not such a multiple, a rational point where one
line holds and the other does not is exhibited.

References
----------
.. [1] "GCUL: Ambiguity Identification in Text Emotion Classification via Cluster-Guided
   Learning" (the GCUL paper), appendix "Derivation of the effectiveness criterion (Eq.
   ``eq:selectivity_score``)" (``app:criterion_derivation``).
"""

from __future__ import annotations

import sympy as sp

from ._expressions import (
    criterion_margins,
    rejection_rate_expr,
    selectivity_closed_form,
    selectivity_denominator,
    selectivity_expr,
    utility_expr,
)
from ._result import Finding, Outcome, claim, decide, require
from ._symbolic import (
    UNIT_OPEN,
    identity_test,
    is_identity,
    rate_symbols,
    search,
)

__all__ = ["CLAIMS"]


def _symbols_and_rho() -> tuple[sp.Symbol, sp.Symbol, sp.Symbol, sp.Symbol, sp.Expr]:
    """``(lam, eps, r1, r2, rho)``: :func:`rate_symbols` and the rejection rate in them."""
    lam, eps, r1, r2 = rate_symbols()
    return lam, eps, r1, r2, rejection_rate_expr(eps, r1, r2)


def _unit_steps(*lines: str) -> list[tuple[str, str, sp.Expr, str]]:
    """The steps of :func:`_chain` claiming each of ``lines`` equal to the one before (factor 1)."""
    return [
        (prev, nxt, sp.Integer(1), "1") for prev, nxt in zip(lines[:-1], lines[1:], strict=True)
    ]


def _chain(steps: list[tuple[str, str, sp.Expr, str]]) -> Outcome:
    """Test that each line is equivalent to the previous one on the domain.

    Each step ``(prev, next, factor, label)`` claims ``g_next = factor * g_prev`` with a factor
    positive on the domain (`label` prints it in terms of rho). When the identity holds the step
    is certified; when it does not, the grid of the domain (0 < eps < 1, 0 <= lambda < 1,
    0 <= r1, r2 <= 1, 0 < rho < 1) is searched for a point where one line holds and the other
    does not -- a counterexample to the equivalence.
    """
    out = []
    margins = criterion_margins(*rate_symbols())
    lam, eps, r1, r2 = rate_symbols()
    grid = {lam: (0, *UNIT_OPEN), eps: UNIT_OPEN, r1: (0, *UNIT_OPEN, 1), r2: (0, *UNIT_OPEN, 1)}
    for prev, nxt, factor, label in steps:
        if is_identity(margins[nxt], factor * margins[prev]):
            out.append(f"g[{nxt}] = {label}*g[{prev}]")
            continue

        def same_sign(point, prev=prev, nxt=nxt):
            rho = rejection_rate_expr(point[eps], point[r1], point[r2])
            if not 0 < rho < 1:
                return None
            a, b = (margins[k].xreplace(point) for k in (prev, nxt))
            return bool(a > 0) == bool(b > 0)

        def describe(point, prev=prev, nxt=nxt):
            a, b = (margins[k].xreplace(point) for k in (prev, nxt))
            coords = ", ".join(f"{k}={v}" for k, v in point.items())
            return f"{coords}: margin of line {prev} = {a}, of line {nxt} = {b}"

        return search(same_sign, f"line {prev} <=> line {nxt}", grid, describe=describe)
    return Outcome(True, "; ".join(out))


_STATEMENT_START = (
    "U(lambda) > 0  <=>  eps_clean + lambda rho < eps  ==>  eps(1-r1)/(1-rho) + lambda rho < eps."
)


@claim("criterion.step1_start", "app:criterion_derivation", _STATEMENT_START)
def check_step1() -> Finding:
    """'Starting from' line: substitution of ε_clean, factor 1. Sources: app:criterion_derivation."""
    return decide(
        _chain(_unit_steps("U", "1a", "1b")),
        "Both lines are U(lambda) > 0 rewritten with factor 1 (cancel).",
    )


@claim(
    "criterion.step2_divide",
    "app:criterion_derivation",
    "Dividing by eps > 0: (1-r1)/(1-rho) < 1 - (lambda/eps) rho  ==>  "
    "1-r1 < (1-rho)(1 - (lambda/eps) rho).",
)
def check_step2() -> Finding:
    """'Dividing both sides by ε': factors 1/ε and (1-ρ). Sources: app:criterion_derivation."""
    _, eps, r1, r2, rho = _symbols_and_rho()
    return decide(
        _chain([("1b", "2a", 1 / eps, "(1/eps)"), ("2a", "2b", 1 - rho, "(1-rho)")]),
        "Equivalences with positive factors 1/eps and (1-rho) (positive since eps > 0, rho < 1).",
    )


@claim(
    "criterion.step3_expand",
    "app:criterion_derivation",
    "1-r1 < 1 - rho - (lambda/eps) rho + (lambda/eps) rho^2  ==>  "
    "-r1 < -rho + (lambda/eps) rho (rho-1).",
)
def check_step3() -> Finding:
    """'Expanding the right-hand side': both factor 1. Sources: app:criterion_derivation."""
    return decide(
        _chain(_unit_steps("2b", "3a", "3b")),
        "Pure expansion and subtraction of 1 (factor 1 each).",
    )


@claim(
    "criterion.step4_rearrange",
    "app:criterion_derivation",
    "Rearranging terms: rho - r1 > (lambda/eps) rho (1-rho).",
)
def check_step4() -> Finding:
    """'Rearranging terms' flips the sign of the left-hand side. Sources: app:criterion_derivation."""
    lam, eps, r1, r2, rho = _symbols_and_rho()
    m = criterion_margins(*rate_symbols())
    kterm = lam / eps * rho * (1 - rho)
    # As printed: g4 = -g3b - 2 (lambda/eps) rho (1-rho): not a positive multiple of g3b.
    require(is_identity(m["4"], -m["3b"] - 2 * kterm), "g4 = -g3b - 2k")
    return decide(
        _chain(_unit_steps("3b", "4")),
        (
            "From -r1 < -rho + (lambda/eps) rho (rho-1) (line 3b) rearranging gives "
            "r1 - rho > (lambda/eps) rho (1-rho) (factor 1). The printed line has margin "
            "g4 = -g3b - 2(lambda/eps) rho (1-rho), not a positive multiple of g3b, and is not "
            "equivalent to U > 0. The following 'Thus' line (1-eps)(r1-r2) > ... is the "
            "consequence of the corrected line, so the final result is unaffected."
        ),
        corrected="r1 - rho > (lambda/eps) rho (1-rho)",
        corrected_test=lambda: _chain(_unit_steps("3b", "4_corrected")),
    )


@claim(
    "criterion.step5_substitute",
    "app:criterion_derivation",
    "Substituting rho = eps r1 + (1-eps) r2: rho - r1 = (1-eps) r2 - (1-eps) r1 = "
    "(1-eps)(r2 - r1).",
)
def check_step5() -> Finding:
    """The identity for ρ - r1 (true as printed). Sources: app:criterion_derivation."""
    _, eps, r1, r2, rho = _symbols_and_rho()
    mid = (1 - eps) * r2 - (1 - eps) * r1
    first = identity_test(rho - r1, mid, "rho - r1 = (1-eps) r2 - (1-eps) r1")
    second = identity_test(mid, (1 - eps) * (r2 - r1), "= (1-eps)(r2-r1)")
    return decide(
        Outcome(first.holds and second.holds, f"{first.detail}; {second.detail}"),
        (
            "Both equalities hold identically (cancel). Note it is the left-hand side of the "
            "mis-signed step 4; with the corrected step, r1 - rho = (1-eps)(r1 - r2) is used."
        ),
    )


@claim(
    "criterion.step6_thus",
    "app:criterion_derivation",
    "Thus (1-eps)(r1-r2) > (lambda/eps) rho (1-rho)  ==>  lambda < eps(1-eps)(r1-r2)/(rho(1-rho)).",
)
def check_step6() -> Finding:
    """'Thus, we obtain': factor 1 from the corrected step 4, then ε/(ρ(1-ρ)).

    Sources: app:criterion_derivation.
    """
    lam, eps, r1, r2, rho = _symbols_and_rho()
    m = criterion_margins(*rate_symbols())
    outcome = _chain(
        [
            ("4_corrected", "6a", sp.Integer(1), "1"),
            ("6a", "6b", eps / (rho * (1 - rho)), "(eps/(rho*(1-rho)))"),
        ],
    )
    # With the printed step 4 and step 5 one would get (1-eps)(r2-r1) > ..., i.e. not line 6a.
    printed_route = (1 - eps) * (r2 - r1) - lam / eps * rho * (1 - rho)
    require(is_identity(printed_route, m["4"]), "printed 4 + 5 give (1-eps)(r2-r1) > ...")
    require(not is_identity(printed_route, m["6a"]), "printed route unexpectedly gives 6a")
    return decide(
        outcome,
        (
            "Line 6a follows from the corrected step 4 (factor 1), not from the printed one "
            "(which with step 5 gives (1-eps)(r2-r1) > ...); then line 6b with the factor "
            "eps/(rho(1-rho)), positive for 0 < rho < 1."
        ),
    )


@claim(
    "criterion.step7_expand_rho",
    "app:criterion_derivation",
    "rho(1-rho) = eps r1 + (1-eps) r2 - eps^2 r1^2 - (1-eps)^2 r2^2 - 2 eps(1-eps) r1 r2.",
)
def check_step7() -> Finding:
    """Expansion of ρ(1-ρ), both printed lines. Sources: app:criterion_derivation."""
    _, eps, r1, r2, rho = _symbols_and_rho()
    line1 = (eps * r1 + (1 - eps) * r2) * (1 - eps * r1 - (1 - eps) * r2)
    line2 = (
        eps * r1
        + (1 - eps) * r2
        - eps**2 * r1**2
        - (1 - eps) ** 2 * r2**2
        - 2 * eps * (1 - eps) * r1 * r2
    )
    first = identity_test(rho * (1 - rho), line1, "rho(1-rho) = first line")
    second = identity_test(line1, line2, "first line = second line")
    return decide(
        Outcome(first.holds and second.holds, f"{first.detail}; {second.detail}"),
        "Both printed lines equal rho*(1-rho) identically (expand).",
    )


@claim(
    "criterion.step8_closed_form",
    "eq:selectivity_score",
    "Dividing numerator and denominator by eps gives Eq. (selectivity_score) = "
    "eps(1-eps)(r1-r2)/(rho(1-rho)).",
)
def check_step8() -> Finding:
    """Eq. (selectivity_score) equals the factored form. Sources: eq:selectivity_score."""
    _, eps, r1, r2, rho = _symbols_and_rho()
    den = selectivity_denominator(eps, r1, r2)
    require(is_identity(den, rho * (1 - rho) / eps), "D = rho(1-rho)/eps")
    return decide(
        identity_test(
            selectivity_expr(eps, r1, r2),
            selectivity_closed_form(eps, r1, r2),
            "S as printed = eps(1-eps)(r1-r2)/(rho(1-rho))",
        ),
        (
            "The printed denominator is D = rho(1-rho)/eps and the printed S equals "
            "eps(1-eps)(r1-r2)/(rho(1-rho)) identically (cancel)."
        ),
    )


@claim(
    "criterion.equivalence",
    "eq:selectivity_score",
    "Solving U(lambda) > 0 yields the criterion S_GCUL > lambda.",
)
def check_equivalence() -> Finding:
    """U(λ) = ρ (S - λ), hence S > λ ⟺ U(λ) > 0 for 0 < ρ < 1. Sources: eq:selectivity_score."""
    lam, eps, r1, r2, rho = _symbols_and_rho()
    s = selectivity_expr(eps, r1, r2)
    u = utility_expr(lam, eps, r1, r2)
    return decide(
        identity_test(u, rho * (s - lam), "U = rho (S - lambda)"),
        (
            "U(lambda) = rho*(S_GCUL - lambda) identically (cancel), so on 0 < rho < 1 (the "
            "whole domain except r1 = r2 = 0, where U = 0 and S is 0/0, and r1 = r2 = 1) "
            "S_GCUL > lambda <=> U(lambda) > 0, for every lambda, not only lambda in [0, 1)."
        ),
    )


CLAIMS = (
    check_step1,
    check_step2,
    check_step3,
    check_step4,
    check_step5,
    check_step6,
    check_step7,
    check_step8,
    check_equivalence,
)
