r"""Lemma ``lem:projection_tails``: the Gaussian tail beyond the Voronoi midpoint.

Appendix ``app:proof_projection_tails`` of [1]_: the upper tail of
:math:`\mathcal N(0, \sigma^2)` beyond :math:`D/2`, integrated by SymPy, and the substitution
:math:`t = u/(\sqrt2\sigma)` that turns it into :math:`\tfrac12\operatorname{erfc}`.

References
----------
.. [1] "GCUL: Ambiguity Identification in Text Emotion Classification via Cluster-Guided
   Learning" (the GCUL paper), appendix "Proof of Lemma ``lem:projection_tails`` (boundary loss and
   contamination probabilities)" (``app:proof_projection_tails``).
"""

from __future__ import annotations

import sympy as sp

from ._expressions import (
    gaussian_tail_expr,
    normal_density,
    normal_interval_probability,
)
from ._lemmas import (
    erf_identity_test,
)
from ._result import Finding, claim, decide, require
from ._symbolic import all_hold, is_identity, show, tail_symbols

__all__ = ["CLAIMS"]


@claim(
    "projection_tails.gaussian_integral",
    "eq:p_loss_exact",
    "p_loss = int_{D/2}^oo N(0, sigma^2) du = (1/2)[1 - erf(D/(2 sqrt(2) sigma))].",
)
def check_gaussian_integral() -> Finding:
    """SymPy integrates the upper tail. Sources: Eq. (p_loss_exact), app:proof_projection_tails."""
    D, sigma = tail_symbols()
    integral = normal_interval_probability(sp.Integer(0), sigma, D / 2, sp.oo)
    # Eq. (eq:p_loss_exact) as printed:
    # \frac{1}{2}\left[1 - \operatorname{erf}\left( \frac{D_c}{2\sqrt{2}\sigma_{\mathrm{mix},c}} \right)\right]
    printed = sp.Rational(1, 2) * (1 - sp.erf(D / (2 * sp.sqrt(2) * sigma)))
    points = ({D: 1, sigma: 1}, {D: 4, sigma: 1})
    return decide(
        all_hold(
            erf_identity_test(integral, printed, "integral = printed p_loss", points),
            erf_identity_test(
                integral, gaussian_tail_expr(D, sigma), "integral = erfc form", points
            ),
        ),
        (
            "integrate(N(0, sigma^2) density, (u, D/2, oo), manual=True) with D, sigma > 0 equals "
            "(1 - erf(D/(2*sqrt(2)*sigma)))/2 = erfc(D/(2*sqrt(2)*sigma))/2 (both rewritten in "
            f"erf); integrate(...) = {show(sp.factor(integral))}."
        ),
    )


@claim(
    "projection_tails.substitution",
    "app:proof_projection_tails",
    "With t = u/(sqrt(2) sigma): p_loss = (1/sqrt(pi)) int_{D/(2 sqrt2 sigma)}^oo e^{-t^2} dt "
    "= (1/2)[1 - (2/sqrt(pi)) int_0^{D/(2 sqrt2 sigma)} e^{-t^2} dt].",
)
def check_substitution() -> Finding:
    """Change of variables and the split of the integral. Sources: app:proof_projection_tails."""
    D, sigma = tail_symbols()
    t = sp.Symbol("t", real=True)
    u_of_t = sp.sqrt(2) * sigma * t
    u = sp.Symbol("u", real=True)
    transformed = normal_density(u, 0, sigma).subs(u, u_of_t) * sp.diff(u_of_t, t)
    require(
        is_identity(sp.powsimp(transformed), sp.exp(-(t**2)) / sp.sqrt(sp.pi)),
        "integrand after substitution",
    )
    lower = sp.solve(sp.Eq(u_of_t, D / 2), t)
    x0 = D / (2 * sp.sqrt(2) * sigma)
    require(len(lower) == 1 and is_identity(lower[0], x0), "lower limit")
    left = sp.integrate(sp.exp(-(t**2)), (t, x0, sp.oo), manual=True) / sp.sqrt(sp.pi)
    right = (1 - 2 / sp.sqrt(sp.pi) * sp.integrate(sp.exp(-(t**2)), (t, 0, x0), manual=True)) / 2
    points = ({D: 1, sigma: 1}, {D: 4, sigma: 1})
    return decide(
        all_hold(
            erf_identity_test(left, right, "split of the integral", points),
            erf_identity_test(left, gaussian_tail_expr(D, sigma), "integral = tail", points),
        ),
        (
            "u = sqrt(2)*sigma*t maps the density times du/dt to exp(-t**2)/sqrt(pi) and the "
            "lower limit D/2 to D/(2*sqrt(2)*sigma); both printed integrals equal "
            "(1 - erf(x0))/2 by integrate; density(sqrt(2)*sigma*t)*sqrt(2)*sigma = "
            "exp(-t**2)/sqrt(pi)."
        ),
    )


CLAIMS = (check_gaussian_integral, check_substitution)
