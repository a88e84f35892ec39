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

from ._expressions import (
    chernoff_exponent,
    chernoff_tail_expr,
)
from ._lemmas import (
    erfc_below_gaussian_certificate,
)
from ._result import Finding, claim, decide, require
from ._symbolic import all_hold, identity_test, is_identity, show, tail_symbols

__all__ = ["CLAIMS"]


@claim(
    "chernoff.optimal_parameter",
    "eq:chernoff_outlier",
    "Minimising -lambda D/2 + lambda^2 sigma^2/2 over lambda > 0 gives lambda* = D/(2 sigma^2) "
    "and eta_outlier <= exp(-D^2/(8 sigma^2)).",
)
def check_optimal_parameter() -> Finding:
    """Stationary point, second derivative, optimal value. Sources: app:proof_chernoff."""
    t, u = sp.symbols("t u", real=True)
    D, sigma = tail_symbols()
    f = chernoff_exponent(t, D, sigma)
    stationary = sp.solve(sp.diff(f, t), t)
    require(len(stationary) == 1, f"stationary points: {stationary}")
    t_star = stationary[0]
    curvature = sp.diff(f, t, 2)
    require(curvature.is_positive is True, "second derivative positive")
    value = f.subs(t, t_star)
    # The helper used by every later claim (and by the numeric cross-checks) is the derived
    # optimum, exp(f(t*)), not a second transcription.
    require(is_identity(sp.log(chernoff_tail_expr(D, sigma)), value), "helper = exp(f(t*))")
    # The Gaussian model meets the sub-Gaussian hypothesis with equality: completing the square,
    # t u - u^2/(2 sigma^2) = -(u - t sigma^2)^2/(2 sigma^2) + t^2 sigma^2/2, so E e^{tZ} = e^{t^2 sigma^2/2}.
    require(
        is_identity(
            t * u - u**2 / (2 * sigma**2),
            -((u - t * sigma**2) ** 2) / (2 * sigma**2) + t**2 * sigma**2 / 2,
        ),
        "completed square",
    )
    # As printed: \lambda^* = D/(2\sigma^2) and \exp\left( -\frac{D_c^2}{8\sigma_{\mathrm{mix},c}^2} \right)
    return decide(
        all_hold(
            identity_test(t_star, D / (2 * sigma**2), "t* = D/(2 sigma^2)"),
            identity_test(value, -(D**2) / (8 * sigma**2), "f(t*) = -D^2/(8 sigma^2)"),
        ),
        (
            f"d/dt = 0 only at t* = {show(t_star)} (> 0, so admissible), d2/dt2 = "
            f"{show(curvature)} > 0, exponent at t* = {show(value)}. Completing the square shows "
            "N(0, sigma^2) has E exp(tZ) = exp(t^2 sigma^2/2), i.e. meets the sub-Gaussian "
            "hypothesis with equality. Remark (not an erratum): the proof names the Chernoff "
            "parameter lambda, the same letter as the rejection cost lambda = eta2/eta1."
        ),
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
    D = sp.Symbol("D", nonnegative=True)
    sigma = sp.Symbol("sigma", positive=True)
    require(
        is_identity(chernoff_tail_expr(D, sigma), sp.exp(-((D / (2 * sp.sqrt(2) * sigma)) ** 2))),
        "D^2/(8 sigma^2) = x^2",
    )
    # Backup (not the proof): 40-digit values on the grid x = k/8, k = 0..80.
    with mpmath.workdps(40):
        ratios = [
            (mpmath.exp(-((mpmath.mpf(k) / 8) ** 2)) / (mpmath.erfc(mpmath.mpf(k) / 8) / 2), k)
            for k in range(81)
        ]
    worst, k_worst = min(ratios)
    require(worst >= 2, f"ratio below 2: {worst}")
    return decide(
        erfc_below_gaussian_certificate(),
        (
            "With x = D/(2 sqrt2 sigma), D^2/(8 sigma^2) = x^2. g(x) = exp(-x^2) - erfc(x) has "
            "g(0) = 0, g(oo) = 0 (limit) and g'(x) = 2 exp(-x^2)(1/sqrt(pi) - x): g rises on "
            "[0, 1/sqrt(pi)] and falls to 0 after, so g >= 0 on [0, oo). Hence "
            "exp(-x^2) >= erfc(x) = 2 * (1/2) erfc(x): the Chernoff bound is at least twice the "
            "exact Gaussian tail. Backup: min over x = k/8 (k = 0..80) of "
            f"exp(-x^2)/((1/2)erfc(x)) = {mpmath.nstr(worst, 8)} (at x = "
            f"{sp.Rational(k_worst, 8)})."
        ),
    )


CLAIMS = (check_optimal_parameter, check_dominates_gaussian)
