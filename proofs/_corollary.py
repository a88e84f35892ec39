r"""Corollary ``cor:attractor_properties``: structural existence confidence and the dense limit.

Appendix ``app:proof_asymptotic`` of [1]_.

References
----------
.. [1] "GCUL: Ambiguity Identification in Text Emotion Classification via Cluster-Guided
   Learning" (the GCUL paper), appendix "Proof of corollary ``cor:attractor_properties``
   (asymptotic convergence)" (``app:proof_asymptotic``).
"""

from __future__ import annotations

import sympy as sp

from ._expressions import (
    capture_rate_bound_expr,
    chernoff_tail_expr,
    gaussian_tail_expr,
    rigorous_capture_bound_expr,
    structural_existence_bound_expr,
)
from ._result import Finding, Outcome, claim, decide, require
from ._symbolic import all_hold, identity_test, is_identity

__all__ = ["CLAIMS"]


def _classes(n: int = 3) -> dict[str, tuple[sp.Symbol, ...]]:
    return {
        "pi": sp.symbols(f"pi1:{n + 1}", positive=True),
        "eps_c": sp.symbols(f"epsilon1:{n + 1}", positive=True),
        "eta": sp.symbols(f"eta1:{n + 1}", nonnegative=True),
        "D": sp.symbols(f"D1:{n + 1}", positive=True),
        "sigma": sp.symbols(f"sigma1:{n + 1}", positive=True),
    }


@claim(
    "corollary.existence_bound",
    "cor:attractor_properties",
    "S_exist := 1 - sum_c (pi_c eps_c/eps) eta_outlier,c >= "
    "1 - sum_c (pi_c eps_c/eps) exp(-D_c^2/(8 sigma_mix,c^2)).",
)
def check_existence_bound() -> Finding:
    """S_exist minus its bound is a non-negative combination. Sources: cor:attractor_properties."""
    k = _classes()
    eps = sum(p * e for p, e in zip(k["pi"], k["eps_c"], strict=True))
    w = [p * e / eps for p, e in zip(k["pi"], k["eps_c"], strict=True)]
    s_exist = 1 - sum(wc * ec for wc, ec in zip(w, k["eta"], strict=True))
    bound = structural_existence_bound_expr(eps, k["pi"], k["eps_c"], k["D"], k["sigma"])
    # As printed: \mathcal{S}_{\mathrm{exist}} \ge 1 - \sum_{c=1}^C \frac{\pi_c \varepsilon_c}
    # {\varepsilon} \exp\left( -\frac{D_c^2}{8\sigma_{\mathrm{mix},c}^2} \right)
    printed = 1 - sum(
        p * e / eps * sp.exp(-(d**2) / (8 * sg**2))
        for p, e, d, sg in zip(k["pi"], k["eps_c"], k["D"], k["sigma"], strict=True)
    )
    require(is_identity(printed, bound), "helper = printed bound")
    printed_gap = sum(
        wc * (sp.exp(-(d**2) / (8 * sg**2)) - ec)
        for wc, d, sg, ec in zip(w, k["D"], k["sigma"], k["eta"], strict=True)
    )
    return decide(
        all_hold(
            identity_test(
                s_exist - printed, printed_gap, "S_exist - bound = sum_c w_c (exp - eta_c)"
            ),
            Outcome(
                all(x.is_positive for x in (*k["pi"], *k["eps_c"])),
                "w_c = pi_c eps_c/eps > 0 and exp(...) - eta_c >= 0 by eq:chernoff_outlier",
            ),
        ),
        (
            "S_exist - bound = sum_c w_c (exp(-D_c^2/(8 sigma_c^2)) - eta_c) identically, and "
            "each term is >= 0 given w_c >= 0 and eq:chernoff_outlier (eta_c <= exp(...)). As "
            "with the theorem, eta_c is an empirical fraction and the Chernoff bound is on a "
            "probability, so the inequality holds in expectation. Since the outlier event is the "
            "boundary-loss event (r1_rigorous.outlier_event), S_exist is the own-boundary "
            "capture rate and its bound is the 'chernoff' r1_hat, with the same multi-boundary "
            "caveat (r1_rigorous.loss_cover)."
        ),
    )


@claim(
    "corollary.dense_limit",
    "app:proof_asymptotic",
    "As max_c sigma_mix,c/D_c -> 0: S_exist -> 1 and the bound of Eq. (r1_rigorous_bound) "
    "tends to the bound of Eq. (r1_bound).",
)
def check_dense_limit() -> Finding:
    """Limits of the Chernoff and Gaussian terms as σ/D → 0. Sources: app:proof_asymptotic."""
    s = sp.Symbol("s", positive=True)  # s = sigma/D
    # The printed terms with D = 1, sigma = s: e^{-D^2/(8 sigma^2)}, (1/2)[1 - erf(D/(2 sqrt2 sigma))]
    eta_s = sp.exp(-1 / (8 * s**2))
    p_s = sp.Rational(1, 2) * (1 - sp.erf(1 / (2 * sp.sqrt(2) * s)))
    limits = Outcome(
        sp.limit(eta_s, s, 0, "+") == 0 and sp.limit(p_s, s, 0, "+") == 0,
        "limit(exp(-1/(8 s^2)), s, 0+) = 0 and limit((1 - erf(1/(2 sqrt2 s)))/2, s, 0+) = 0",
    )
    k = _classes()
    eps = sum(p * e for p, e in zip(k["pi"], k["eps_c"], strict=True))
    rigorous = rigorous_capture_bound_expr(eps, k["pi"], k["eps_c"], k["D"], k["sigma"])
    tails = [gaussian_tail_expr(d, sg) for d, sg in zip(k["D"], k["sigma"], strict=True)]
    gaussian = capture_rate_bound_expr(eps, k["pi"], k["eps_c"], tails)
    w = [p * e / eps for p, e in zip(k["pi"], k["eps_c"], strict=True)]
    penalty = sum(
        wc * chernoff_tail_expr(d, sg) for wc, d, sg in zip(w, k["D"], k["sigma"], strict=True)
    )
    return decide(
        all_hold(
            limits,
            identity_test(
                sp.expand((gaussian - rigorous).rewrite(sp.erf)),
                sp.expand(penalty),
                "Eq. (r1_bound) - Eq. (r1_rigorous_bound) = sum_c w_c exp(-D_c^2/(8 sigma_c^2))",
            ),
        ),
        (
            "limit(exp(-1/(8 s^2)), s, 0+) = 0 and limit(erfc(1/(2 sqrt2 s))/2, s, 0+) = 0 with "
            "s = sigma/D; S_exist <= 1 (eta >= 0) and its bound -> 1, so S_exist -> 1. Eq. "
            "(r1_bound) - Eq. (r1_rigorous_bound) = sum_c w_c exp(-D_c^2/(8 sigma_c^2)) "
            "identically, which -> 0: the two bounds converge (both to 1, so 'recovering' Eq. "
            "(r1_bound) is a statement about a vanishing difference). Inherits the erratum "
            "r1_rigorous.loss_cover: the limit of a bound that can fail."
        ),
    )


CLAIMS = (check_existence_bound, check_dense_limit)
