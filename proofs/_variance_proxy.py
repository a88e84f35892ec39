r"""Is the directional variance a sub-Gaussian variance proxy? (Eq. ``eq:chernoff_outlier``).

Section "Rigorous capture rate bounds via sub-Gaussian concentration" of [1]_ takes the
variance proxy to be :math:`\sigma_{mix,c}^2 = \hat d_c^\top\Sigma_{mix}\hat d_c` (the
projection's variance) and, citing Vershynin's Proposition 2.5.2, concludes
:math:`\eta_{outlier,c} \le e^{-D_c^2/(8\sigma_{mix,c}^2)}`. A variance proxy K² must satisfy
:math:`E e^{tZ} \le e^{t^2K^2/2}` for every t; the variance is the smallest candidate, not a
valid one in general. The check evaluates, with exact rationals, a two-point projection whose
tail beyond :math:`D/2` is 1/100 while the printed Chernoff value is :math:`3.3\cdot10^{-6}`.

References
----------
.. [1] "Ambiguity identification in text emotion classification via cluster-guided learning"
   (the GCUL paper), Eq. (``eq:chernoff_outlier``) and appendix ``app:proof_chernoff``.
.. [2] W. Hoeffding, "Probability inequalities for sums of bounded random variables", JASA 58
   (1963): a variable in [a, b] has variance proxy (b - a)^2 / 4 (Hoeffding's lemma).
"""

from __future__ import annotations

import sympy as sp

from ._result import Finding, claim, require
from ._trace import step

__all__ = ["two_point_projection", "CLAIMS"]


def two_point_projection() -> dict[str, sp.Expr]:
    r"""The witness: Z = 99/100 with probability 1/100, else -1/100 (mean 0), and D = 1.

    Returns
    -------
    dict
        ``p``, ``high``, ``low``, ``variance`` (= 99/10000), ``D``, ``tail`` (P(Z > D/2)),
        ``chernoff`` (exp(-D^2/(8 variance))), ``hoeffding_proxy`` ((b - a)^2/4).

    Examples
    --------
    >>> w = two_point_projection()
    >>> w["variance"], w["tail"], float(w["chernoff"]) < 4e-6
    (99/10000, 1/100, True)
    """
    p = sp.Rational(1, 100)
    high, low = 1 - p, -p
    mean = p * high + (1 - p) * low
    variance = p * high**2 + (1 - p) * low**2 - mean**2
    D = sp.Integer(1)
    tail = p if high > D / 2 else sp.Integer(0)
    tail = tail + ((1 - p) if low > D / 2 else 0)
    return {
        "p": p,
        "high": high,
        "low": low,
        "mean": mean,
        "variance": variance,
        "D": D,
        "tail": tail,
        "chernoff": sp.exp(-(D**2) / (8 * variance)),
        "hoeffding_proxy": (high - low) ** 2 / 4,
    }


@claim(
    "variance_proxy.directional_variance",
    "eq:chernoff_outlier",
    "Under sub-Gaussian concentration with variance proxy sigma_mix,c^2 = d_c^T Sigma_mix d_c, the "
    "Chernoff bound for the directional outlier fraction yields eta_outlier,c <= "
    "exp(-D_c^2/(8 sigma_mix,c^2)) [E e^{lambda Z_c} <= exp(lambda^2 sigma_mix,c^2/2), Vershynin "
    "Prop. 2.5.2].",
)
def check_directional_variance() -> Finding:
    """Two-point projection: exact tail against the printed Chernoff value; then the correction."""
    w = two_point_projection()
    require(w["mean"] == 0, "the witness must be centred")
    step("Z in {99/100 (prob 1/100), -1/100}: mean, variance", w["mean"], w["variance"])
    step("P(Z > D/2) with D = 1, and exp(-D^2/(8 Var Z))", w["tail"], w["chernoff"])
    if not w["tail"] > w["chernoff"]:
        return Finding("verified", "tail within the Chernoff value", f"{w['tail']} <= ...")
    # The MGF condition with K^2 = Var Z fails at the Chernoff optimum t = D/(2 Var Z).
    t = w["D"] / (2 * w["variance"])
    mgf = w["p"] * sp.exp(t * w["high"]) + (1 - w["p"]) * sp.exp(t * w["low"])
    proxy_bound = sp.exp(t**2 * w["variance"] / 2)
    step("E exp(tZ) and exp(t^2 Var Z / 2) at t = D/(2 Var Z)", mgf, proxy_bound)
    require(sp.N(mgf - proxy_bound, 30) > 0, "the MGF condition should fail at t = D/(2 Var Z)")
    # Corrected statement, part 1: Hoeffding's proxy (b - a)^2/4 = 1/4 gives a bound >= the tail.
    K2 = w["hoeffding_proxy"]
    corrected_value = sp.exp(-(w["D"] ** 2) / (8 * K2))
    step("Hoeffding proxy (b-a)^2/4 and its Chernoff value exp(-D^2/(8 K^2))", K2, corrected_value)
    require(sp.N(corrected_value - w["tail"], 30) >= 0, "Hoeffding's proxy must bound the tail")
    # Part 2: for a Gaussian projection the variance is a valid proxy. f(x) = e^{-x^2/2} -
    # Phi_bar(x) has f(0) = 1/2, f(oo) = 0 and f'(x) = phi(x) (1 - sqrt(2 pi) x): f rises to
    # x0 = 1/sqrt(2 pi) and then decreases to 0, so f >= 0 on x >= 0.
    x = sp.Symbol("x", nonnegative=True)
    f = sp.exp(-(x**2) / 2) - sp.erfc(x / sp.sqrt(2)) / 2
    fprime = sp.diff(f, x)
    expected = sp.exp(-(x**2) / 2) * (1 - sp.sqrt(2 * sp.pi) * x) / sp.sqrt(2 * sp.pi)
    require(sp.expand(fprime - expected) == 0, f"derivative {fprime}")
    require(f.subs(x, 0) == sp.Rational(1, 2), "f(0)")
    require(f.subs(x, sp.oo) == 0, "f(oo)")
    step("Gaussian: f(x) = exp(-x^2/2) - erfc(x/sqrt 2)/2, f'(x)", f, fprime)
    return Finding(
        status="erratum",
        established=(
            "Z = 99/100 w.p. 1/100 and -1/100 otherwise (mean 0, Var Z = 99/10000), D = 1: "
            "P(Z > D/2) = 1/100 exactly, while exp(-D^2/(8 Var Z)) = exp(-1250/99); at "
            "t = D/(2 Var Z) the MGF E e^{tZ} exceeds exp(t^2 Var Z/2), so Var Z is not a variance "
            "proxy. Hoeffding's proxy 1/4 gives exp(-1/2) >= 1/100; for a Gaussian projection "
            "exp(-x^2/2) >= erfc(x/sqrt 2)/2 (f(0) = 1/2, f(oo) = 0, f' = phi(x)(1 - sqrt(2 pi) x))."
        ),
        evidence=(
            f"two-point projection: tail {w['tail']} = 0.01 > Chernoff value "
            f"exp(-1250/99) = {float(w['chernoff']):.2e}"
        ),
        corrected=(
            "eta_outlier,c <= exp(-D_c^2/(8 K_c^2)) with K_c^2 a genuine sub-Gaussian variance "
            "proxy of z_c (E e^{t z_c} <= e^{t^2 K_c^2/2} for all t; e.g. (b-a)^2/4 for z_c in "
            "[a, b]), which is >= Var z_c and can be much larger; K_c^2 = d_c^T Sigma_mix d_c is "
            "valid when z_c is Gaussian."
        ),
    )


CLAIMS = (check_directional_variance,)
