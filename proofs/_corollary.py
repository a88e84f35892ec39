r"""Corollary ``cor:attractor_properties``: structural existence confidence and the dense limit.

Appendix ``app:proof_asymptotic`` of [1]_.

References
----------
.. [1] "GCUL: Ambiguity Identification in Text Emotion Classification via Cluster-Guided
   Learning" (the GCUL paper), appendix "Proof of corollary ``cor:attractor_properties``
   (asymptotic convergence)" (``app:proof_asymptotic``).
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from ._chernoff import chernoff_tail_expr
from ._rate_bounds import capture_rate_bound_expr
from ._result import Finding, claim, require
from ._rigorous import rigorous_capture_bound_expr
from ._symbolic import is_identity, sympify_all
from ._tails import gaussian_tail_expr

__all__ = ["structural_existence_bound_expr", "CLAIMS"]


def structural_existence_bound_expr(
    eps: sp.Expr,
    pi: Sequence[sp.Expr],
    eps_c: Sequence[sp.Expr],
    D: Sequence[sp.Expr],
    sigma_mix: Sequence[sp.Expr],
) -> sp.Expr:
    r"""Lower bound on the structural existence confidence :math:`S_{exist}`.

    .. math:: 1 - \sum_c \frac{\pi_c\varepsilon_c}{\varepsilon} e^{-D_c^2/(8\sigma_{mix,c}^2)}

    Sources: Corollary ``cor:attractor_properties``.

    Examples
    --------
    >>> import sympy as sp
    >>> structural_existence_bound_expr(sp.Rational(1, 5), [1], [sp.Rational(1, 5)], [4], [1])
    1 - exp(-2)
    """
    eps, pi, eps_c, D, sigma_mix = sympify_all(eps, pi, eps_c, D, sigma_mix)
    return 1 - sum(
        p * e / eps * chernoff_tail_expr(d, s)
        for p, e, d, s in zip(pi, eps_c, D, sigma_mix, strict=True)
    )


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
    gap = sum(
        wc * (chernoff_tail_expr(d, s) - ec)
        for wc, d, s, ec in zip(w, k["D"], k["sigma"], k["eta"], strict=True)
    )
    require(is_identity(s_exist - bound, gap), "S_exist - bound")
    return Finding(
        status="verified",
        established=(
            "S_exist - bound = sum_c w_c (exp(-D_c^2/(8 sigma_c^2)) - eta_c) identically, and "
            "each term is >= 0 given w_c >= 0 and eq:chernoff_outlier (eta_c <= exp(...)). As "
            "with the theorem, eta_c is an empirical fraction and the Chernoff bound is on a "
            "probability, so the inequality holds in expectation. Since the outlier event is the "
            "boundary-loss event (r1_rigorous.outlier_event), S_exist is the own-boundary "
            "capture rate and its bound is the 'chernoff' r1_hat, with the same multi-boundary "
            "caveat (r1_rigorous.loss_cover)."
        ),
        evidence="cancel(S_exist - bound - sum_c w_c (exp(...) - eta_c)) = 0",
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
    eta_s = chernoff_tail_expr(sp.Integer(1), s)
    p_s = gaussian_tail_expr(sp.Integer(1), s)
    require(sp.limit(eta_s, s, 0, "+") == 0, "Chernoff term -> 0")
    require(sp.limit(p_s, s, 0, "+") == 0, "Gaussian term -> 0")
    k = _classes()
    eps = sum(p * e for p, e in zip(k["pi"], k["eps_c"], strict=True))
    rigorous = rigorous_capture_bound_expr(eps, k["pi"], k["eps_c"], k["D"], k["sigma"])
    tails = [gaussian_tail_expr(d, sg) for d, sg in zip(k["D"], k["sigma"], strict=True)]
    gaussian = capture_rate_bound_expr(eps, k["pi"], k["eps_c"], tails)
    w = [p * e / eps for p, e in zip(k["pi"], k["eps_c"], strict=True)]
    penalty = sum(
        wc * chernoff_tail_expr(d, sg) for wc, d, sg in zip(w, k["D"], k["sigma"], strict=True)
    )
    require(
        is_identity(sp.expand((gaussian - rigorous).rewrite(sp.erf)), sp.expand(penalty)),
        "difference of the two bounds = Chernoff penalty",
    )
    return Finding(
        status="verified",
        established=(
            "limit(exp(-1/(8 s^2)), s, 0+) = 0 and limit(erfc(1/(2 sqrt2 s))/2, s, 0+) = 0 with "
            "s = sigma/D; S_exist <= 1 (eta >= 0) and its bound -> 1, so S_exist -> 1. Eq. "
            "(r1_bound) - Eq. (r1_rigorous_bound) = sum_c w_c exp(-D_c^2/(8 sigma_c^2)) "
            "identically, which -> 0: the two bounds converge (both to 1, so 'recovering' Eq. "
            "(r1_bound) is a statement about a vanishing difference). Inherits the erratum "
            "r1_rigorous.loss_cover: the limit of a bound that can fail."
        ),
        evidence="limit(exp(-1/(8*s**2)), s, 0, '+') = 0; cancel(r1_bound - r1_rig - penalty) = 0",
    )


CLAIMS = (check_existence_bound, check_dense_limit)
