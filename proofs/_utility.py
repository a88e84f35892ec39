r"""The utility model: rates from counts, the risk normalisation, conditional vs joint error.

Claims of section ``subsec:selectivity_score`` of [1]_ ("Operational risk & utility gain" and
"Feasibility condition"), ahead of the appendix derivation of the criterion.

References
----------
.. [1] "GCUL: Ambiguity Identification in Text Emotion Classification via Cluster-Guided
   Learning" (the GCUL paper), section "Selectivity score and monotonicity"
   (``subsec:selectivity_score``) and appendix "Proofs and derivations for section
   ``subsec:selectivity_score``" (``app:utility_proofs``).
"""

from __future__ import annotations

import sympy as sp

from ._expressions import (
    clean_error_expr,
    joint_utility_expr,
    rejection_rate_expr,
    selectivity_closed_form,
    utility_expr,
)
from ._result import Finding, claim, decide, require
from ._symbolic import (
    UNIT_OPEN,
    all_hold,
    identity_test,
    is_identity,
    rate_symbols,
    show,
)

__all__ = ["CLAIMS_RISK", "CLAIMS_MODEL"]


@claim(
    "utility.risk_normalisation",
    "subsec:selectivity_score",
    "R_base = N eps eta1, R_GCUL = eps_clean eta1 + rho eta2, and "
    "U(lambda) := (R_base - R_GCUL)/eta1 = eps - eps_clean - lambda rho.",
)
def check_risk_normalisation() -> Finding:
    """The paper's risks mix a total (N ε η1) with per-sample rates; the quotient is off by (N-1)ε.

    Sources: section ``subsec:selectivity_score``, "Operational risk & utility gain".
    """
    lam, eps, r1, r2 = rate_symbols()
    n = sp.Symbol("N", positive=True, integer=True)
    eta1 = sp.Symbol("eta1", positive=True)
    rho = rejection_rate_expr(eps, r1, r2)
    clean = clean_error_expr(eps, r1, r2)
    r_gcul = clean * eta1 + rho * (lam * eta1)  # eta2 = lambda * eta1
    as_written = (n * eps * eta1 - r_gcul) / eta1
    gap = sp.factor(sp.cancel(as_written - utility_expr(lam, eps, r1, r2)))
    per_sample = (eps * eta1 - r_gcul) / eta1
    grid = {
        n: (2, 1000, 1),
        eps: UNIT_OPEN,
        eta1: (1,),
        lam: (0, sp.Rational(3, 20)),
        r1: (0, sp.Rational(1, 2), 1),
        r2: (0, sp.Rational(1, 2)),
    }
    return decide(
        identity_test(
            as_written, utility_expr(lam, eps, r1, r2), "(R_base - R_GCUL)/eta1 = U", grid
        ),
        (
            f"(R_base - R_GCUL)/eta1 - U(lambda) = {show(gap)} (cancel), non-zero for N > 1: "
            "R_base is a total over N samples while R_GCUL is a per-sample rate. With "
            "R_base = eps*eta1 the quotient equals U(lambda) identically."
        ),
        corrected=(
            "Per-sample risks: R_base = eps*eta1 and R_GCUL = eps_clean*eta1 + rho*eta2, so "
            "U(lambda) = (R_base - R_GCUL)/eta1 = eps - eps_clean - lambda*rho. Everything "
            "downstream uses U(lambda), so nothing else changes."
        ),
        corrected_test=lambda: identity_test(
            per_sample, utility_expr(lam, eps, r1, r2), "(eps eta1 - R_GCUL)/eta1 = U"
        ),
    )


@claim(
    "utility.rates_definition",
    "subsec:selectivity_score",
    "With r1 = |C_conf & E|/|E| and r2 = |C_conf minus E|/(N-|E|): "
    "rho = eps r1 + (1-eps) r2 and eps_clean = eps(1-r1)/(1-rho).",
)
def check_rates_definition() -> Finding:
    """ρ and ε_clean from the counts of the confusion cluster and the error pool.

    Sources: section ``subsec:selectivity_score``, display after "Feasibility condition".
    """
    _, eps, r1, r2 = rate_symbols()
    n = sp.Symbol("N", positive=True)
    errors = eps * n
    captured_errors = r1 * errors
    captured_clean = r2 * (n - errors)
    rho_counts = (captured_errors + captured_clean) / n
    accepted = n - (captured_errors + captured_clean)
    clean_counts = (errors - captured_errors) / accepted
    # The printed formulas, transcribed from the paper (display after "Feasibility condition"):
    # \rho = \varepsilon r_1 + (1-\varepsilon)r_2, \varepsilon_{clean} = \varepsilon(1-r_1)/(1 - \rho)
    rho_printed = eps * r1 + (1 - eps) * r2
    clean_printed = eps * (1 - r1) / (1 - rho_printed)
    require(is_identity(rho_printed, rejection_rate_expr(eps, r1, r2)), "rho helper")
    require(is_identity(clean_printed, clean_error_expr(eps, r1, r2)), "eps_clean helper")
    return decide(
        all_hold(
            identity_test(rho_counts, rho_printed, "rho from counts"),
            identity_test(clean_counts, clean_printed, "eps_clean from counts"),
        ),
        (
            "|C_conf|/N = (r1*eps*N + r2*(1-eps)*N)/N = eps*r1 + (1-eps)*r2 and "
            "(|E| - |C_conf & E|)/(N - |C_conf|) = eps*(1-r1)/(1-rho), both by cancel."
        ),
    )


@claim(
    "utility.conditional_error",
    "subsec:selectivity_score",
    "U(lambda) uses the conditional error eps_clean on accepted samples (a modelling choice).",
)
def check_conditional_error() -> Finding:
    """Remark: with the joint error ε(1-r1) (Chow's per-sample risk) the threshold is S + ε_clean.

    Sources: section ``subsec:selectivity_score``; the comparison is not in the paper.
    """
    lam, eps, r1, r2 = rate_symbols()
    rho = rejection_rate_expr(eps, r1, r2)
    clean = clean_error_expr(eps, r1, r2)
    s = selectivity_closed_form(eps, r1, r2)
    require(is_identity(eps * (1 - r1), (1 - rho) * clean), "joint error = (1-rho)*eps_clean")
    joint = joint_utility_expr(lam, eps, r1, r2)
    return decide(
        all_hold(
            identity_test(joint, rho * (s + clean - lam), "U_joint = rho*(S + eps_clean - lambda)"),
            identity_test(joint - utility_expr(lam, eps, r1, r2), rho * clean, "U_joint - U"),
        ),
        (
            "Internally consistent as defined. Remark: the joint error is "
            "eps*(1-r1) = (1-rho)*eps_clean, and the per-sample (Chow) utility "
            "U_joint = eps*r1 - lambda*rho = rho*(S + eps_clean - lambda) = U + rho*eps_clean, so "
            "with the joint error the threshold would be S + eps_clean >= S: the paper's "
            "criterion S > lambda is the more demanding of the two."
        ),
    )


CLAIMS_RISK = (check_risk_normalisation, check_rates_definition)
CLAIMS_MODEL = (check_conditional_error,)
