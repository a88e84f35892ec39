r"""Tools and lemmas that several claims of ``proofs`` share (a bottom layer; no claim here).

* :func:`erf_identity_test` (with :func:`same_erf`): an identity between expressions in
  erf/erfc, as an :class:`~proofs._result.Outcome` that names a point where it fails;
* :func:`erfc_below_gaussian_certificate`: :math:`e^{-x^2} \ge \operatorname{erfc}(x)` for
  :math:`x \ge 0`, the step behind both the Chernoff domination and the rigorous bound;
* :func:`binomial_upper_tail`: exact binomial tails (rational arithmetic);
* :func:`nearest_centre_capture` and :data:`MONTE_CARLO_SEED`: the K-Means (nearest-centre)
  assignment the Monte Carlo checks of the capture rate run.

``--claim ID`` records the ``is_identity`` calls made here as derivation steps, as it does in the
claim modules (:data:`proofs._runner._MODULES`).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import sympy as sp

from ._result import Outcome, ProofCheckError
from ._symbolic import is_identity

__all__ = [
    "MONTE_CARLO_SEED",
    "binomial_upper_tail",
    "erf_identity_test",
    "erfc_below_gaussian_certificate",
    "nearest_centre_capture",
    "same_erf",
]


def same_erf(lhs: sp.Expr, rhs: sp.Expr) -> bool:
    """Identity check for expressions in erf/erfc: rewrite erfc as 1 - erf, then compare."""
    return is_identity(sp.expand(lhs.rewrite(sp.erf)), sp.expand(rhs.rewrite(sp.erf)))


def erf_identity_test(lhs: sp.Expr, rhs: sp.Expr, label: str, points: tuple[dict, ...]) -> Outcome:
    """:func:`same_erf` as an :class:`Outcome`; a failure names a point where the two differ.

    `points` are exact points tried for the counterexample (the values are compared at 30
    digits); the identity itself is decided symbolically.
    """
    if same_erf(lhs, rhs):
        return Outcome(True, f"{label}: lhs - rhs = 0 after rewrite(erf)")
    for point in points:
        a, b = sp.N(lhs.xreplace(point), 30), sp.N(rhs.xreplace(point), 30)
        if a != b:
            coords = ", ".join(f"{k}={v}" for k, v in point.items())
            return Outcome(False, f"{label} fails at {coords}: {sp.N(a, 8)} != {sp.N(b, 8)}")
    raise ProofCheckError(f"{label}: not an identity, yet equal at every point tried")


def erfc_below_gaussian_certificate() -> Outcome:
    r"""Certify :math:`e^{-x^2} \ge \operatorname{erfc}(x)` for every :math:`x \ge 0`.

    :math:`g(x) = e^{-x^2} - \operatorname{erfc}(x)` has :math:`g(0) = 0`, :math:`g(\infty) = 0`
    and :math:`g'(x) = 2e^{-x^2}(1/\sqrt\pi - x)`: a positive factor times a linear one, so
    :math:`g` rises on :math:`[0, 1/\sqrt\pi]` and falls to its limit 0 after; hence
    :math:`g \ge 0`. Each fact is computed (``diff``/``factor``, ``subs``, ``limit``).
    """
    x = sp.Symbol("x", nonnegative=True)
    g = sp.exp(-(x**2)) - sp.erfc(x)
    dg = sp.factor(sp.diff(g, x))
    sign_form = 2 * sp.exp(-(x**2)) * (1 / sp.sqrt(sp.pi) - x)
    facts = {
        "g'(x) = 2 exp(-x^2) (1/sqrt(pi) - x)": is_identity(dg, sign_form),
        "g(0) = 0": g.subs(x, 0) == 0,
        "lim g = 0": sp.limit(g, x, sp.oo) == 0,
    }
    failed = [k for k, ok in facts.items() if not ok]
    if failed:
        return Outcome(False, "exp(-x^2) >= erfc(x): " + ", ".join(failed) + " not shown")
    return Outcome(
        True,
        "g = exp(-x^2) - erfc(x): " + ", ".join(facts) + "; g increases then decreases to 0, "
        "so g >= 0 on [0, oo)",
    )


def binomial_upper_tail(n: int, p: sp.Rational, threshold: sp.Rational) -> sp.Rational:
    """Exact ``P(X/n > threshold)`` for ``X ~ Binomial(n, p)`` (rational `p`, `threshold`).

    Examples
    --------
    >>> binomial_upper_tail(2, sp.Rational(1, 2), sp.Rational(1, 2))
    1/4
    """
    p, threshold = Fraction(str(sp.Rational(p))), Fraction(str(sp.Rational(threshold)))
    total = sum(
        (math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1) if k > threshold * n),
        Fraction(0),
    )
    return sp.Rational(total.numerator, total.denominator)


MONTE_CARLO_SEED = 20240611


def nearest_centre_capture(
    points: np.ndarray, mu_mix: np.ndarray, class_centres: np.ndarray
) -> np.ndarray:
    """Boolean mask: is each row of `points` strictly nearest to `mu_mix` (K-Means assignment)?

    Parameters
    ----------
    points : ndarray, shape (n, d)
    mu_mix : ndarray, shape (d,)
    class_centres : ndarray, shape (C, d)

    Returns
    -------
    ndarray of bool, shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> nearest_centre_capture(np.array([[3.0], [-1.5]]), np.zeros(1), np.array([[-2.0]]))
    array([ True, False])
    """
    centres = np.vstack([mu_mix[None, :], class_centres])
    # ||x - m||^2 = ||x||^2 - 2 x.m + ||m||^2; the ||x||^2 term is common to every centre.
    scores = -2.0 * points @ centres.T + np.sum(centres * centres, axis=1)[None, :]
    return np.argmin(scores, axis=1) == 0
