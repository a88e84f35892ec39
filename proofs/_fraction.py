r"""The r1 proof's step "empirical fraction ≤ probability" (appendix ``app:proof_r1_rigorous``).

The proof of Theorem ``thm:r1_rigorous`` of [1]_ bounds the *realised* fraction of lost errors
by probabilities, :math:`|\mathcal E_{c,boundary}|/|\mathcal E_c| \le p_c^{loss}`, and the proof
of Theorem ``thm:global_rate_bounds`` speaks of the *expected* number of lost errors. For
:math:`n = |\mathcal E_c|` independent errors each lost with probability p the lost count is
Binomial(n, p): its mean is np, but it exceeds np with probability close to 1/2. The check
computes that probability exactly (rational arithmetic), then verifies the corrected statement:
the step holds in expectation (symbolic), and with probability :math:`\ge 1-\delta` after adding
Hoeffding's term (exact binomial tails).

References
----------
.. [1] "Ambiguity identification in text emotion classification via cluster-guided learning"
   (the GCUL paper), appendix "Proof of Theorem ``thm:r1_rigorous``" (``app:proof_r1_rigorous``)
   and appendix ``app:proof_global_rate_bounds``.
"""

from __future__ import annotations

import math

import sympy as sp

from ._lemmas import (
    binomial_upper_tail,
)
from ._result import Finding, claim, require
from ._trace import step

__all__ = ["hoeffding_term", "CLAIMS"]


def hoeffding_term(n: int, delta: float) -> float:
    r"""Hoeffding's deviation :math:`\sqrt{\log(1/\delta)/(2n)}` (one-sided, risk δ).

    Examples
    --------
    >>> round(hoeffding_term(100, 0.05), 4)
    0.1224
    """
    return math.sqrt(math.log(1.0 / delta) / (2.0 * n))


_N, _P = 100, sp.Rational(1, 10)
_DELTA = sp.Rational(1, 20)
_GRID = [(n, sp.Rational(p)) for n in (10, 50, 200) for p in ("1/50", "1/10", "1/4", "1/2")]


@claim(
    "r1_fraction.in_expectation",
    "app:proof_r1_rigorous",
    "|E_c,loss|/|E_c| <= |E_c,boundary|/|E_c| + |E_c,outlier|/|E_c| <= p_c^loss + "
    "eta_outlier,c, hence the empirical global capture rate r1 satisfies Eq. "
    "(eq:r1_rigorous_bound).",
)
def check_in_expectation() -> Finding:
    """Exact P(realised fraction > p) for n = 100, p = 1/10; then the corrected statements."""
    exceed = binomial_upper_tail(_N, _P, _P)
    step(f"X ~ Binomial({_N}, {_P}): P(X/n > p), exact", exceed, sp.N(exceed, 6))
    if exceed == 0:
        return Finding("verified", "the realised fraction never exceeds p", "P = 0")
    # Corrected (1): E[X/n] = p for every n (symbolic p and n).
    # sum_k k C(n,k) p^k q^(n-k) = p d/dp (p + q)^n (binomial theorem), then q = 1 - p.
    n = sp.Symbol("n", integer=True, positive=True)
    p, q = sp.symbols("p q", positive=True)
    mean = sp.powsimp(sp.expand((p * sp.diff((p + q) ** n, p)).subs(q, 1 - p) / n))
    step("E[X/n] = p d/dp (p+q)^n / n at q = 1 - p", mean)
    require(sp.simplify(mean - p) == 0, f"E[X/n] = {mean}, expected p")
    for size in range(1, 7):  # the binomial theorem itself, expanded
        direct = sum(j * sp.binomial(size, j) * p**j * (1 - p) ** (size - j) for j in range(size + 1))
        require(sp.expand(direct - size * p) == 0, f"E[X] = np at n = {size}")
    # Corrected (2): P(X/n > p + t) <= delta with t = sqrt(log(1/delta)/(2n)), exact tails.
    worst = sp.Integer(0)
    for size, prob in _GRID:
        t = hoeffding_term(size, float(_DELTA))
        threshold = prob + sp.Rational(t).limit_denominator(10**9)
        tail = binomial_upper_tail(size, prob, threshold)
        worst = max(worst, tail)
        require(tail <= _DELTA, f"n = {size}, p = {prob}: tail {float(tail)} > {_DELTA}")
    step("largest P(X/n > p + t_Hoeffding) over the grid (<= delta = 1/20)", worst)
    return Finding(
        status="erratum",
        established=(
            f"for |E_c| = {_N} errors each lost with probability p = {_P}, the lost count X is "
            f"Binomial({_N}, {_P}) and P(X/n > p) = {float(exceed):.4f} exactly (rational sum): the "
            "step fraction <= probability fails for about 4 samples in 10. SymPy gives "
            "E[X/n] = p d/dp (p + q)^n / n = p at q = 1 - p for symbolic n, p; "
            "the Hoeffding-corrected step holds with exact "
            f"binomial tails <= 1/20 on n in (10, 50, 200), p in (1/50, 1/10, 1/4, 1/2) "
            f"(largest {float(worst):.4f})."
        ),
        evidence=f"Binomial({_N}, {_P}): P(realised fraction > p) = {float(exceed):.4f}",
        corrected=(
            "In expectation: E[|E_c,boundary|/|E_c|] = p_c^loss, so Eq. (eq:r1_rigorous_bound) (when "
            "valid) bounds E[r1], not the realised r1. For the realised fraction, with probability "
            ">= 1 - delta: |E_c,boundary|/|E_c| <= p_c^loss + sqrt(log(1/delta)/(2|E_c|)) "
            "(Hoeffding)."
        ),
    )


CLAIMS = (check_in_expectation,)
