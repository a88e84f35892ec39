r"""Two rejections at the same coverage: S_GCUL orders them as their selective risks do.

Beyond the GCUL paper [1]_: the regime map (``benchmarks/regime_map.py``, issue 26) compares
GCUL's rejection with MSP's *at GCUL's coverage* and asks whether a training-split quantity
predicts which is better. Its derived predictor ΔS_eq rests on these two claims about the
paper's utility model (section "Selectivity score and monotonicity", Eq. ``eq:selectivity_score``), for one base
classifier with error :math:`\varepsilon \in (0, 1)` and a rejection that captures a share
:math:`r_1` of its errors and :math:`r_2` of its correct samples, rejecting
:math:`\rho = \varepsilon r_1 + (1-\varepsilon) r_2`:

``equal_coverage.score``
    At a fixed rejection rate :math:`\rho \in (0, 1)`, :math:`r_2` is determined by :math:`r_1`,
    :math:`r_2 = (\rho - \varepsilon r_1)/(1-\varepsilon)`, and then

    .. math:: S_{GCUL} = \frac{\varepsilon (r_1 - \rho)}{\rho(1-\rho)}, \qquad
              \varepsilon_{clean} = \frac{\varepsilon(1 - r_1)}{1-\rho}.

``equal_coverage.order``
    Two rejections A, B of the same base classifier at the same :math:`\rho`:
    :math:`S_A - S_B = \varepsilon(r_{1A} - r_{1B})/(\rho(1-\rho))` and
    :math:`\varepsilon_{clean,A} - \varepsilon_{clean,B} = -\varepsilon(r_{1A} - r_{1B})/(1-\rho)`,
    so :math:`(S_A - S_B)(\varepsilon_{clean,A} - \varepsilon_{clean,B}) =
    -\varepsilon^2 (r_{1A} - r_{1B})^2/(\rho(1-\rho)^2) \le 0`: the rejection with the larger
    selectivity score has the lower selective risk (strictly, unless :math:`r_{1A} = r_{1B}`).
    Indeed :math:`S_A - S_B = (\varepsilon_{clean,B} - \varepsilon_{clean,A})/\rho`: the
    difference of the scores is the difference of the selective risks divided by :math:`\rho`,
    so the regime map's ΔS_eq is the training split's phase-1 selective risk of MSP minus that of
    GCUL's rejection, at GCUL's coverage, over ρ.

Both are identities of rational functions (checked with ``cancel``), cross-checked against
:func:`gcul_theory.selectivity_score` and :func:`gcul_theory.clean_error` at rational points
of the domain where those are defined (:math:`0 \le r_2 \le r_1`).

What it does not say: GCUL's phase 3 relabels the samples it accepts, so its selective risk is
not exactly the phase-1 :math:`\varepsilon_{clean}` of its accept set; the regime map measures
that difference (Δ_train against ΔS_eq).

References
----------
.. [1] "GCUL: Ambiguity Identification in Text Emotion Classification via Cluster-Guided
   Learning" (the GCUL paper), section "Selectivity score and monotonicity" (``subsec:selectivity_score``),
   Eq. ``eq:selectivity_score``.
"""

from __future__ import annotations

import sympy as sp

from ._expressions import clean_error_expr, selectivity_closed_form, selectivity_expr
from ._result import Finding, Outcome, claim, decide, require
from ._symbolic import identity_test, is_identity, show
from ._trace import step

__all__ = ["CLAIMS"]

# rational points (eps, rho, r1) with 0 < rho < 1 and r2 = (rho - eps r1)/(1 - eps) in [0, r1]
_POINTS = (
    (sp.Rational(1, 5), sp.Rational(1, 4), sp.Rational(9, 10)),
    (sp.Rational(1, 10), sp.Rational(1, 8), sp.Rational(1, 2)),
    (sp.Rational(1, 3), sp.Rational(1, 2), sp.Rational(3, 4)),
    (sp.Rational(2, 5), sp.Rational(3, 5), sp.Rational(1, 1)),
)


def _symbols() -> tuple[sp.Symbol, sp.Symbol, sp.Symbol, sp.Symbol]:
    """``(eps, rho, r1a, r1b)``, positive; the domain is 0 < eps, rho < 1, 0 <= r1 <= 1."""
    return sp.symbols("epsilon rho r1a r1b", positive=True)


def equal_coverage_r2(eps: sp.Expr, rho: sp.Expr, r1: sp.Expr) -> sp.Expr:
    r""":math:`r_2 = (\rho - \varepsilon r_1)/(1-\varepsilon)`: the contamination a rejection of
    rate :math:`\rho` has when it captures :math:`r_1` of the errors (solving
    :math:`\rho = \varepsilon r_1 + (1-\varepsilon) r_2`).

    Sources: the display after "Feasibility condition" of ``subsec:selectivity_score``.
    """
    return (rho - eps * r1) / (1 - eps)


def equal_coverage_score(eps: sp.Expr, rho: sp.Expr, r1: sp.Expr) -> sp.Expr:
    r""":math:`\varepsilon(r_1 - \rho)/(\rho(1-\rho))`, the claimed S at fixed :math:`\rho`."""
    return eps * (r1 - rho) / (rho * (1 - rho))


def _cross_check(eps: sp.Symbol, rho: sp.Symbol, r1: sp.Symbol) -> None:
    """The closed forms against gcul_theory's numeric functions at :data:`_POINTS`."""
    import gcul_theory

    for e, p, a in _POINTS:
        r2 = equal_coverage_r2(e, p, a)
        require(0 <= r2 <= a, f"point outside the domain: r2 = {r2}")
        point = {eps: e, rho: p, r1: a}
        score = float(equal_coverage_score(eps, rho, r1).xreplace(point))
        numeric = float(gcul_theory.selectivity_score(float(e), float(a), float(r2)))
        # both are within 8 units of roundoff of the exact value (selectivity_score's Notes)
        require(abs(score - numeric) <= 16 * 2.0**-53 * max(abs(score), 1e-300) + 1e-300,
                f"S at {point}: {score!r} != gcul_theory {numeric!r}")  # fmt: skip
        clean = float((eps * (1 - r1) / (1 - rho)).xreplace(point))
        numeric_clean = float(gcul_theory.clean_error(float(e), float(a), float(r2)))
        require(abs(clean - numeric_clean) <= 16 * 2.0**-53 * max(clean, 1e-300),
                f"eps_clean at {point}: {clean!r} != gcul_theory {numeric_clean!r}")  # fmt: skip


@claim(
    "equal_coverage.score",
    "eq:selectivity_score",
    "At a fixed rejection rate rho: S_GCUL = eps (r1 - rho)/(rho (1 - rho)) and "
    "eps_clean = eps (1 - r1)/(1 - rho).",
)
def check_score() -> Finding:
    """S_GCUL and ε_clean with r2 eliminated at fixed ρ. Sources: eq:selectivity_score."""
    eps, rho, r1, _ = _symbols()
    r2 = equal_coverage_r2(eps, rho, r1)
    step("r2 at fixed rho", r2)
    target = equal_coverage_score(eps, rho, r1)
    printed = identity_test(
        selectivity_expr(eps, r1, r2), target, "Eq. selectivity_score at r2(rho)"
    )
    factored = identity_test(
        selectivity_closed_form(eps, r1, r2), target, "factored form at r2(rho)"
    )
    clean = identity_test(clean_error_expr(eps, r1, r2), eps * (1 - r1) / (1 - rho), "eps_clean")
    _cross_check(eps, rho, r1)
    holds = printed.holds and factored.holds and clean.holds
    return decide(
        Outcome(holds, "; ".join(o.detail for o in (printed, factored, clean))),
        f"With r2 = {show(r2)}: S_GCUL = {show(target)} (the printed Eq. and its factored form) "
        "and eps_clean = eps(1 - r1)/(1 - rho); equal to gcul_theory.selectivity_score and "
        "clean_error at rational points with 0 <= r2 <= r1.",
    )


@claim(
    "equal_coverage.order",
    "eq:selectivity_score",
    "Two rejections of one base classifier at the same rejection rate: the one with the larger "
    "S_GCUL has the lower selective risk eps_clean (strictly unless r1 is equal); "
    "S_A - S_B = (eps_clean,B - eps_clean,A)/rho.",
)
def check_order() -> Finding:
    """(S_A − S_B)(ε_clean,A − ε_clean,B) = −ε²(r1A − r1B)²/(ρ(1 − ρ)²) ≤ 0, and
    S_A − S_B = (ε_clean,B − ε_clean,A)/ρ.

    Sources: eq:selectivity_score.
    """
    eps, rho, r1a, r1b = _symbols()

    def score(r1):
        return selectivity_closed_form(eps, r1, equal_coverage_r2(eps, rho, r1))

    def clean(r1):
        return clean_error_expr(eps, r1, equal_coverage_r2(eps, rho, r1))

    ds, dc = score(r1a) - score(r1b), clean(r1a) - clean(r1b)
    product = -(eps**2) * (r1a - r1b) ** 2 / (rho * (1 - rho) ** 2)
    step("S_A - S_B", ds)
    step("eps_clean,A - eps_clean,B", dc)
    first = identity_test(ds, eps * (r1a - r1b) / (rho * (1 - rho)), "S_A - S_B")
    second = identity_test(dc, -eps * (r1a - r1b) / (1 - rho), "eps_clean,A - eps_clean,B")
    third = identity_test(ds * dc, product, "(S_A - S_B)(eps_clean,A - eps_clean,B)")
    risks = identity_test(ds, -dc / rho, "S_A - S_B = (eps_clean,B - eps_clean,A)/rho")
    # the product's sign: eps^2 (r1a - r1b)^2 >= 0 over rho (1 - rho)^2 > 0 on 0 < rho < 1
    require(is_identity(product * rho * (1 - rho) ** 2, -(eps**2) * (r1a - r1b) ** 2), "sign form")
    holds = first.holds and second.holds and third.holds and risks.holds
    return decide(
        Outcome(holds, "; ".join(o.detail for o in (first, second, third, risks))),
        "S_A - S_B = eps (r1A - r1B)/(rho (1 - rho)) and eps_clean,A - eps_clean,B = "
        "-eps (r1A - r1B)/(1 - rho): their product is -eps^2 (r1A - r1B)^2/(rho (1 - rho)^2) "
        "<= 0 on 0 < rho < 1, zero only at r1A = r1B; and S_A - S_B = (eps_clean,B - "
        "eps_clean,A)/rho. At equal coverage, ordering two rejections by S_GCUL is ordering them "
        "by selective risk, reversed; the difference of the scores is that of the risks over rho.",
    )


CLAIMS = (check_score, check_order)
