r"""Two qualitative statements about the tails: "shrink as D/σ grows", and the σ → ∞ remark.

After Theorem ``thm:global_rate_bounds`` of [1]_: "larger centroid separation :math:`D_c`
relative to directional variance proxies :math:`\sigma_{mix,c}, \sigma_c` exponentially
depresses boundary loss and contamination via erf". After Theorem ``thm:r1_rigorous``: "when
dispersion diverges (:math:`\sigma_{mix,c} \to \infty`), the exponential term smoothly bounds
the capture rate without unphysical measure collapse". The first is proved over the whole
domain from the signs of the partial derivatives (products of factors of known sign under the
symbols' assumptions); the second is a limit computed by SymPy.

References
----------
.. [1] "Ambiguity identification in text emotion classification via cluster-guided learning"
   (the GCUL paper), the paragraph after Theorem ``thm:global_rate_bounds`` and the paragraph
   after Theorem ``thm:r1_rigorous`` (section ``subsec:rigorous_r1_analysis``).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ._result import Finding, claim, require
from ._symbolic import tail_symbols
from ._trace import step

__all__ = ["per_class_loss_expr", "informative_threshold", "CLAIMS"]

_SAMPLE_SEED = 20261122


def _tail(D: sp.Expr, sigma: sp.Expr) -> sp.Expr:
    """The printed tail (1/2)[1 - erf(D/(2 sqrt 2 sigma))], transcribed from Eq. (eq:p_loss_exact)."""
    return (1 - sp.erf(D / (2 * sp.sqrt(2) * sigma))) / 2


def per_class_loss_expr(x: sp.Expr) -> sp.Expr:
    r"""The bracket of Eq. (``eq:r1_rigorous_bound``) at :math:`x = D_c/\sigma_{mix,c}`.

    .. math:: g(x) = e^{-x^2/8} + \tfrac12\big[1 - \operatorname{erf}(x/(2\sqrt2))\big]

    Examples
    --------
    >>> per_class_loss_expr(0)
    3/2
    """
    x = sp.sympify(x)
    return sp.exp(-(x**2) / 8) + _tail(x, 1)


def informative_threshold() -> sp.Float:
    r"""The :math:`x_0` with :math:`g(x_0) = 1`: the bound is positive for one class iff :math:`x > x_0`.

    Examples
    --------
    >>> round(float(informative_threshold()), 4)  # g(1.4572) = 0.7669 + 0.2331 (by hand)
    1.4572
    """
    x = sp.Symbol("x", positive=True)
    return sp.nsolve(per_class_loss_expr(x) - 1, x, 2.5, prec=30)


def _sign_over_domain(expr: sp.Expr, want: str, symbols: tuple, sampler) -> tuple[bool, str]:
    """Decide the sign of `expr` on the symbols' domain: SymPy's assumptions, else sampling.

    Returns ``(holds, how)``. A sampled counterexample makes ``holds`` False; SymPy proving the
    sign makes it True; sampling without a counterexample is not a proof and raises.
    """
    decided = expr.is_negative if want == "negative" else expr.is_positive
    if decided is True:
        return True, f"SymPy assumptions: {sp.sstr(expr)} is {want}"
    f = sp.lambdify(symbols, expr, "mpmath")
    for point in sampler():
        value = f(*point)
        if (value >= 0) if want == "negative" else (value <= 0):
            return False, f"at {point}: {value}"
    require(False, f"could not prove that {sp.sstr(expr)} is {want} (no counterexample found)")
    raise AssertionError("unreachable")  # pragma: no cover


def _samples():
    rng = np.random.default_rng(_SAMPLE_SEED)
    fixed = [(0.0, 1.0), (1e-6, 1e-6), (50.0, 1.0), (1.0, 50.0)]
    return fixed + [tuple(v) for v in rng.uniform(0.0, 20.0, size=(200, 2)) + (0.0, 1e-3)]


@claim(
    "asymptotics.tails_shrink",
    "thm:global_rate_bounds",
    "Larger centroid separation D_c relative to directional variance proxies sigma_mix,c, sigma_c "
    "exponentially depresses boundary loss and contamination via erf(.).",
)
def check_tails_shrink() -> Finding:
    """Signs of dT/dD and dT/dsigma over D >= 0, sigma > 0; and T <= exp(-D^2/(8 sigma^2))."""
    D = sp.Symbol("D", nonnegative=True)
    sigma = sp.Symbol("sigma", positive=True)
    T = _tail(D, sigma)
    dD, dsigma = sp.diff(T, D), sp.diff(T, sigma)
    step("T(D, sigma) = (1/2)[1 - erf(D/(2 sqrt 2 sigma))]", T)
    step("dT/dD (negative: -exp(.)/(2 sqrt(2 pi) sigma))", dD)
    step("dT/dsigma (>= 0, > 0 for D > 0)", dsigma)
    holds_D, how_D = _sign_over_domain(dD, "negative", (D, sigma), _samples)
    D_pos = sp.Symbol("D", positive=True)
    holds_s, how_s = _sign_over_domain(dsigma.subs(D, D_pos), "positive", (D_pos, sigma), _samples)
    # "exponentially": T <= exp(-x^2/8) with x = D/sigma, since h(x) = exp(-x^2/8) - T(x, 1) has
    # h(0) = 1/2, h(oo) = 0 and h'(x) = exp(-x^2/8) (1/sqrt(8 pi) - x/4): up, then down to 0.
    x = sp.Symbol("x", nonnegative=True)
    h = sp.exp(-(x**2) / 8) - _tail(x, 1)
    h_prime = sp.diff(h, x)
    expected = sp.exp(-(x**2) / 8) * (1 / sp.sqrt(8 * sp.pi) - x / 4)
    require(sp.expand(h_prime - expected) == 0, f"h'(x) = {h_prime}")
    require(h.subs(x, 0) == sp.Rational(1, 2) and h.subs(x, sp.oo) == 0, "h(0), h(oo)")
    step("exp(-x^2/8) - T(x, 1) and its derivative (unimodal, ends 1/2 and 0)", h, h_prime)
    if holds_D and holds_s:
        return Finding(
            status="verified",
            established=(
                "over the whole domain D >= 0, sigma > 0 (SymPy's sign assumptions, no sampling): "
                "dT/dD = -exp(-D^2/(8 sigma^2))/(2 sqrt(2 pi) sigma) < 0 and dT/dsigma = "
                "D exp(-D^2/(8 sigma^2))/(2 sqrt(2 pi) sigma^2) > 0 for D > 0; and "
                "T <= exp(-(D/sigma)^2/8) (h = exp(-x^2/8) - T rises from 1/2 to its maximum at "
                "x = sqrt(2/pi) and falls to 0)."
            ),
            evidence=f"dT/dD: {how_D}; dT/dsigma: {how_s}",
        )
    return Finding(
        status="erratum",
        established="a sign of the partial derivatives fails somewhere on the domain",
        evidence=f"dT/dD: {how_D}; dT/dsigma: {how_s}",
        corrected="the tails are not monotone in D/sigma everywhere (see evidence)",
    )


@claim(
    "asymptotics.dispersion_limit",
    "thm:r1_rigorous",
    "When dispersion diverges (sigma_mix,c -> oo), the exponential term smoothly bounds the "
    "capture rate without unphysical measure collapse.",
)
def check_dispersion_limit() -> Finding:
    """Limit of Eq. (eq:r1_rigorous_bound) as every sigma_mix,c -> oo, with sum_c w_c = 1."""
    D, sigma = tail_symbols()
    w = sp.symbols("w1:4", positive=True)
    bracket = sp.exp(-(D**2) / (8 * sigma**2)) + _tail(D, sigma)
    per_class = sp.limit(bracket, sigma, sp.oo)
    step("per-class bracket exp(-D^2/(8 sigma^2)) + T(D, sigma)", bracket)
    step("its limit as sigma -> oo", per_class)
    bound_limit = sp.expand((1 - sum(wc * per_class for wc in w)).subs(w[-1], 1 - sum(w[:-1])))
    step("limit of 1 - sum_c w_c [bracket] with sum_c w_c = 1", bound_limit)
    if bound_limit.is_nonnegative:
        return Finding(
            "verified", "the limiting bound is non-negative", f"limit {sp.sstr(bound_limit)}"
        )
    # Corrected statement: g(x) = bracket at x = D/sigma decreases strictly from 3/2 to 0, so the
    # bound is vacuous (<= 0) when every D_c/sigma_mix,c <= x0 with g(x0) = 1.
    x = sp.Symbol("x", positive=True)
    g = per_class_loss_expr(x)
    g_prime = sp.diff(g, x)
    step("g(x) = exp(-x^2/8) + T(x, 1) and g'(x)", g, g_prime)
    require(g_prime.is_negative is True, f"g'(x) = {g_prime} should be negative for x > 0")
    require(per_class_loss_expr(0) == sp.Rational(3, 2) and g.subs(x, sp.oo) == 0, "g(0), g(oo)")
    x0 = informative_threshold()
    require(abs(sp.N(g.subs(x, x0) - 1, 25)) < 1e-20, "g(x0) = 1")
    step("x0 with g(x0) = 1", x0)
    return Finding(
        status="erratum",
        established=(
            "SymPy: lim_{sigma->oo} [exp(-D^2/(8 sigma^2)) + (1/2)(1 - erf(D/(2 sqrt2 sigma)))] = 3/2, "
            "so with sum_c w_c = 1 the bound tends to 1 - 3/2 = -1/2 < 0 <= r1: it says nothing. "
            "g(x) = exp(-x^2/8) + (1/2)(1 - erf(x/(2 sqrt 2))) has g' < 0 for x > 0 (SymPy sign), "
            f"g(0) = 3/2, g(oo) = 0, and g(x0) = 1 at x0 = {float(x0):.4f}."
        ),
        evidence=f"lim bound = {sp.sstr(bound_limit)} (every sigma_mix,c -> oo)",
        corrected=(
            "As sigma_mix,c -> oo the bound of Eq. (eq:r1_rigorous_bound) tends to -1/2 and is "
            "vacuous; it is positive only if sum_c w_c g(D_c/sigma_mix,c) < 1, with g decreasing "
            f"from 3/2 to 0 and g(x0) = 1 at x0 = {float(x0):.4f}: if every D_c/sigma_mix,c <= "
            f"{float(x0):.4f} it bounds r1 by a non-positive number."
        ),
    )


CLAIMS_SHRINK = (check_tails_shrink,)
CLAIMS_DISPERSION = (check_dispersion_limit,)
CLAIMS = CLAIMS_SHRINK + CLAIMS_DISPERSION
