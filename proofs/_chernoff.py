r"""The directional Chernoff bound, Eq. (``eq:chernoff_outlier``) and appendix
``app:proof_chernoff`` of [1]_.

The proof's free Chernoff parameter is called :math:`\lambda` in the paper, the letter of the
rejection cost; here it is :math:`t`.

References
----------
.. [1] "GCUL: Ambiguity Identification in Text Emotion Classification via Cluster-Guided
   Learning" (the GCUL paper), appendix "Proof of lemma for directional chernoff outlier bound"
   (``app:proof_chernoff``), Eq. (``eq:chernoff_outlier``).
"""

from __future__ import annotations

import mpmath
import sympy as sp

from ._result import Finding, claim, require
from ._symbolic import is_identity, show, sympify_all

__all__ = ["chernoff_exponent", "chernoff_tail_expr", "CLAIMS"]


def chernoff_exponent(t: sp.Expr, D: sp.Expr, sigma: sp.Expr) -> sp.Expr:
    r"""Exponent :math:`-tD/2 + t^2\sigma^2/2` of the Chernoff bound for :math:`P(Z > D/2)`.

    Sources: appendix ``app:proof_chernoff`` (with the paper's :math:`\lambda` renamed :math:`t`).

    Examples
    --------
    >>> import sympy as sp
    >>> chernoff_exponent(sp.Integer(1), sp.Integer(4), sp.Integer(1))
    -3/2
    """
    t, D, sigma = sympify_all(t, D, sigma)
    return -t * D / 2 + t**2 * sigma**2 / 2


def chernoff_tail_expr(D: sp.Expr, sigma: sp.Expr) -> sp.Expr:
    r"""The optimised bound :math:`\exp(-D^2/(8\sigma^2))` of Eq. (``eq:chernoff_outlier``).

    Examples
    --------
    >>> import sympy as sp
    >>> chernoff_tail_expr(sp.Integer(4), sp.Integer(1))
    exp(-2)
    """
    D, sigma = sympify_all(D, sigma)
    return sp.exp(-(D**2) / (8 * sigma**2))


@claim(
    "chernoff.optimal_parameter",
    "eq:chernoff_outlier",
    "Minimising -lambda D/2 + lambda^2 sigma^2/2 over lambda > 0 gives lambda* = D/(2 sigma^2) "
    "and eta_outlier <= exp(-D^2/(8 sigma^2)).",
)
def check_optimal_parameter() -> Finding:
    """Stationary point, second derivative, optimal value. Sources: app:proof_chernoff."""
    t, u = sp.symbols("t u", real=True)
    D = sp.Symbol("D", positive=True)
    sigma = sp.Symbol("sigma", positive=True)
    f = chernoff_exponent(t, D, sigma)
    stationary = sp.solve(sp.diff(f, t), t)
    require(len(stationary) == 1, f"stationary points: {stationary}")
    t_star = stationary[0]
    require(is_identity(t_star, D / (2 * sigma**2)), "t* = D/(2 sigma^2)")
    curvature = sp.diff(f, t, 2)
    require(curvature.is_positive is True, "second derivative positive")
    value = f.subs(t, t_star)
    require(is_identity(value, -(D**2) / (8 * sigma**2)), "optimal exponent")
    # The Gaussian model meets the sub-Gaussian hypothesis with equality: completing the square,
    # t u - u^2/(2 sigma^2) = -(u - t sigma^2)^2/(2 sigma^2) + t^2 sigma^2/2, so E e^{tZ} = e^{t^2 sigma^2/2}.
    require(
        is_identity(
            t * u - u**2 / (2 * sigma**2),
            -((u - t * sigma**2) ** 2) / (2 * sigma**2) + t**2 * sigma**2 / 2,
        ),
        "completed square",
    )
    return Finding(
        status="verified",
        established=(
            f"d/dt = 0 only at t* = {show(t_star)} (> 0, so admissible), d2/dt2 = "
            f"{show(curvature)} > 0, exponent at t* = {show(value)}. Completing the square shows "
            "N(0, sigma^2) has E exp(tZ) = exp(t^2 sigma^2/2), i.e. meets the sub-Gaussian "
            "hypothesis with equality. Remark (not an erratum): the proof names the Chernoff "
            "parameter lambda, the same letter as the rejection cost lambda = eta2/eta1."
        ),
        evidence=f"solve(diff(f, t)) = [{show(t_star)}]; f(t*) = {show(value)}",
    )


@claim(
    "chernoff.dominates_gaussian",
    "eq:chernoff_outlier",
    "The Chernoff bound exp(-D^2/(8 sigma^2)) dominates the exact Gaussian tail "
    "(1/2) erfc(D/(2 sqrt2 sigma)) for all D >= 0, sigma > 0.",
)
def check_dominates_gaussian() -> Finding:
    """e^{-x²} ≥ erfc(x) ≥ ½ erfc(x) for x ≥ 0, x = D/(2√2σ).

    Sources: Eq. (``eq:chernoff_outlier``) versus Eq. (``eq:p_loss_exact``); the inequality is
    implicit in the paper (both enter thm:r1_rigorous).
    """
    x = sp.Symbol("x", nonnegative=True)
    D = sp.Symbol("D", nonnegative=True)
    sigma = sp.Symbol("sigma", positive=True)
    require(
        is_identity(chernoff_tail_expr(D, sigma), sp.exp(-((D / (2 * sp.sqrt(2) * sigma)) ** 2))),
        "D^2/(8 sigma^2) = x^2",
    )
    g = sp.exp(-(x**2)) - sp.erfc(x)
    dg = sp.diff(g, x)
    require(is_identity(dg, sp.exp(-(x**2)) * (2 / sp.sqrt(sp.pi) - 2 * x)), "g'(x)")
    require(g.subs(x, 0) == 0, "g(0) = 0")
    require(sp.limit(g, x, sp.oo) == 0, "g(oo) = 0")
    # Numerical spot check at 40 digits on a grid of exact rationals x = k/8, k = 0..80.
    with mpmath.workdps(40):
        ratios = [
            (mpmath.exp(-((mpmath.mpf(k) / 8) ** 2)) / (mpmath.erfc(mpmath.mpf(k) / 8) / 2), k)
            for k in range(81)
        ]
    worst, k_worst = min(ratios)
    require(worst >= 2, f"ratio below 2: {worst}")
    return Finding(
        status="verified",
        established=(
            "With x = D/(2 sqrt2 sigma), D^2/(8 sigma^2) = x^2. g(x) = exp(-x^2) - erfc(x) has "
            "g(0) = 0, g(oo) = 0 (limit) and g'(x) = exp(-x^2)(2/sqrt(pi) - 2x): g rises on "
            "[0, 1/sqrt(pi)] and falls to 0 after, so g >= 0 on [0, oo). Hence "
            "exp(-x^2) >= erfc(x) = 2 * (1/2) erfc(x): the Chernoff bound is at least twice the "
            "exact Gaussian tail."
        ),
        evidence=(
            "min over x = k/8 (k = 0..80) of exp(-x^2)/((1/2)erfc(x)) = "
            f"{mpmath.nstr(worst, 8)} (at x = {sp.Rational(k_worst, 8)})"
        ),
    )


CLAIMS = (check_optimal_parameter, check_dominates_gaussian)
