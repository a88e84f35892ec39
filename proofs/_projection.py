r"""The projections' Gaussian limits (Assumption ``ass:asymptotic_gaussian_subgaussian``).

Before Lemma ``lem:projection_tails`` of [1]_: "the 1D marginal projections of the
misclassified pool and clean class c converge weakly to univariate Gaussians
:math:`\mathcal N(0, \sigma_{mix,c}^2)` and :math:`\mathcal N(-D_c, \sigma_c^2)`", citing
Diaconis and Freedman (1984) and Klartag (2007). Those theorems speak of *most* directions of
the sphere; :math:`\hat d_c` is chosen from the data. The check computes the exact Kolmogorov
distance between the projection on a data-chosen coordinate axis and the normal law of the same
mean and variance, for every dimension d at once, and then the Berry–Esseen bound of the same
pool on a direction drawn at random (the case the cited theorems cover).

References
----------
.. [1] "Ambiguity identification in text emotion classification via cluster-guided learning"
   (the GCUL paper), Assumption "Asymptotic Gaussianity and Sub-Gaussian Dispersion"
   (``ass:asymptotic_gaussian_subgaussian``) and the paragraph "Concentration of directional
   projection measures" before Lemma ``lem:projection_tails``.
.. [2] P. Diaconis and D. Freedman, "Asymptotics of graphical projection pursuit", Ann. Statist.
   12 (1984).
.. [3] I. G. Shevtsova, "An improvement of convergence rate estimates in the Lyapunov theorem",
   Dokl. Math. 82 (2010): Berry–Esseen constant 0.56 for independent, non-identical summands.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import sympy as sp

from ._result import Finding, claim, require
from ._trace import step

__all__ = [
    "BERRY_ESSEEN_CONSTANT",
    "PROJECTION_SEED",
    "kolmogorov_two_point",
    "kolmogorov_uniform",
    "random_direction_berry_esseen",
    "CLAIMS",
]

BERRY_ESSEEN_CONSTANT = 0.56
"""Shevtsova's (2010) constant for sums of independent, non-identically distributed terms."""

PROJECTION_SEED = 20261122
"""Seed of the random direction of the corrected statement."""

_x = sp.Symbol("x", real=True)


def _Phi(z: sp.Expr) -> sp.Expr:
    return (1 + sp.erf(z / sp.sqrt(2))) / 2


def kolmogorov_two_point() -> sp.Expr:
    r"""Exact :math:`\sup_x |F(x) - \Phi(x)|` for F the law of a fair ±1 coin (mean 0, variance 1).

    F is 0, 1/2, 1 on :math:`(-\infty,-1)`, :math:`[-1,1)`, :math:`[1,\infty)`; Φ is increasing,
    so the supremum is reached at a jump: the largest of :math:`\Phi(-1)`,
    :math:`|1/2 - \Phi(\pm 1)|` and :math:`1 - \Phi(1)`.

    Examples
    --------
    >>> float(kolmogorov_two_point())  # doctest: +ELLIPSIS
    0.3413...
    """
    candidates = [
        _Phi(-1) - 0,
        sp.Abs(sp.Rational(1, 2) - _Phi(-1)),
        sp.Abs(sp.Rational(1, 2) - _Phi(1)),
        1 - _Phi(1),
    ]
    values = [sp.expand(c) for c in candidates]
    return max(values, key=lambda v: float(v))


def kolmogorov_uniform() -> sp.Float:
    r"""Exact-to-30-digits :math:`\sup_x |F(x) - \Phi(\sqrt3 x)|` for F uniform on [-1, 1].

    Both laws have mean 0 and variance 1/3. Outside [-1, 1] the difference is at most
    :math:`\Phi(-\sqrt3)`; inside, :math:`g(x) = (x+1)/2 - \Phi(\sqrt3 x)` is odd and its
    interior critical points solve :math:`1/2 = \sqrt3\,\varphi(\sqrt3 x)` (SymPy ``solve``).

    Examples
    --------
    >>> round(float(kolmogorov_uniform()), 4)  # a 2e6-point grid with scipy gives 0.05721
    0.0572
    """
    g = (_x + 1) / 2 - _Phi(sp.sqrt(3) * _x)
    # g'(x) = 1/2 - sqrt(3) phi(sqrt(3) x) = 0  <=>  x^2 = (2/3) log(2 sqrt(3) / sqrt(2 pi)).
    root = sp.sqrt(sp.Rational(2, 3) * sp.log(2 * sp.sqrt(3) / sp.sqrt(2 * sp.pi)))
    critical = [root, -root]
    slope = sp.diff(g, _x)
    require(all(abs(sp.N(slope.subs(_x, c), 40)) < 1e-35 for c in critical), "critical points")
    values = [sp.Abs(g.subs(_x, c)) for c in critical] + [sp.Abs(g.subs(_x, e)) for e in (-1, 1)]
    values.append(_Phi(-sp.sqrt(3)))
    return max(sp.N(v, 30) for v in values)


def random_direction_berry_esseen(d: int = 10_000) -> float:
    r"""Berry–Esseen bound on the Kolmogorov distance of :math:`\theta^\top X` from N(0, 1).

    X uniform on :math:`\{-1, 1\}^d` (independent fair coins) and θ uniform on the unit sphere
    (seed :data:`PROJECTION_SEED`): :math:`\theta^\top X` is a sum of independent terms
    :math:`\theta_i X_i` of variance :math:`\theta_i^2` (total 1) and third absolute moment
    :math:`|\theta_i|^3`, so the distance is at most :math:`0.56 \sum_i |\theta_i|^3`.

    Examples
    --------
    >>> random_direction_berry_esseen() < 0.01
    True
    """
    theta = np.random.default_rng(PROJECTION_SEED).standard_normal(d)
    theta /= np.linalg.norm(theta)
    return float(BERRY_ESSEEN_CONSTANT * np.sum(np.abs(theta) ** 3))


_CORRECTED = (
    "Diaconis-Freedman and Klartag give near-Gaussian projections on MOST directions of the "
    "sphere (here: a random direction of the same pool is within {be:.4f} of normal in Kolmogorov "
    "distance, Berry-Esseen), not on a direction chosen from the data. Gaussianity of z_c along "
    "d_c is a modelling assumption (exact when the pool is Gaussian: E exp(t d^T X) = "
    "exp(t d^T mu + t^2 d^T Sigma d / 2)); it must be checked on the data, not cited."
)


@functools.cache
def _verify_corrected() -> tuple[float, str]:
    """Random direction: Berry-Esseen < 0.01; Gaussian pool: the projection's MGF is normal."""
    be = random_direction_berry_esseen()
    require(be < 0.01, f"Berry-Esseen bound on a random direction {be} is not below 0.01")
    t = sp.Symbol("t", real=True)
    # The exponents of the two MGFs (both are exp of a polynomial in t).
    m1, m2, a, b = sp.symbols("m1 m2 a b", real=True)
    s11, s22 = sp.symbols("s11 s22", positive=True)
    s12 = sp.Symbol("s12", real=True)
    mu, Sigma, dv = sp.Matrix([m1, m2]), sp.Matrix([[s11, s12], [s12, s22]]), sp.Matrix([a, b])
    # MGF of a Gaussian vector at the vector t*d, against the MGF of N(d^T mu, d^T Sigma d) at t.
    vector_exponent = (t * dv).dot(mu) + (t * dv).dot(Sigma * (t * dv)) / 2
    scalar_exponent = t * dv.dot(mu) + t**2 * dv.dot(Sigma * dv) / 2
    require(sp.expand(vector_exponent - scalar_exponent) == 0, "Gaussian projection MGF")
    step(
        "a Gaussian pool's projection has the MGF of N(d^T mu, d^T Sigma d)",
        sp.exp(scalar_exponent),
    )
    return be, _CORRECTED.format(be=be)


def _kolmogorov_finding(
    K: sp.Expr | float, established: str, evidence: Callable[[float], str]
) -> Finding:
    """``verified`` if the Kolmogorov distance ``K`` to the normal law is 0, else the erratum.

    The erratum carries the corrected statement of :func:`_verify_corrected` and
    ``evidence(berry_esseen)``, the Berry-Esseen bound it computes on a random direction.
    """
    if float(K) < 1e-12:  # a normal projection would pass
        return Finding("verified", "Kolmogorov distance 0", f"K = {K}")
    be, corrected = _verify_corrected()
    return Finding(
        status="erratum", established=established, evidence=evidence(be), corrected=corrected
    )


@claim(
    "projection.error_pool_limit",
    "ass:asymptotic_gaussian_subgaussian",
    "The 1D marginal projection of the misclassified pool along the data-chosen direction d_c "
    "converges weakly to N(0, sigma_mix,c^2), sigma_mix,c^2 = d_c^T Sigma_mix d_c "
    "(Diaconis-Freedman; Klartag).",
)
def check_error_pool_limit() -> Finding:
    """Two-point pool: Kolmogorov distance on the axis d_c = e_1, for every dimension d."""
    K = kolmogorov_two_point()
    step("error pool uniform on {-1,1}^d, d_c = e_1: z_c is a fair +-1 coin for every d", K)
    step("sup_x |F(x) - Phi(x)| (exact)", K)
    return _kolmogorov_finding(
        K,
        established=(
            "error pool uniform on the hypercube {-1,1}^d (mean 0, covariance I) with the class "
            "centroid on the first axis, so d_c = e_1: z_c = X_1 is a fair +-1 coin in every "
            f"dimension d; its Kolmogorov distance to N(0, 1) is {sp.sstr(K)} exactly, which does "
            "not tend to 0 as d grows."
        ),
        evidence=lambda be: (
            f"K(z_c, N(0,1)) = {sp.sstr(K)} = {float(K):.4f} for all d; random "
            f"direction (d = 10^4, seed {PROJECTION_SEED}): Berry-Esseen <= {be:.4f}"
        ),
    )


@claim(
    "projection.clean_class_limit",
    "ass:asymptotic_gaussian_subgaussian",
    "The 1D marginal projection of clean class c along d_c converges weakly to N(-D_c, sigma_c^2), "
    "sigma_c^2 = d_c^T Sigma_c d_c (Diaconis-Freedman; Klartag).",
)
def check_clean_class_limit() -> Finding:
    """Uniform cube class: Kolmogorov distance of U[-1,1] from N(0, 1/3) on the axis d_c = e_1."""
    K = kolmogorov_uniform()
    step("clean class uniform on [-1,1]^d around mu_c, d_c = e_1: z_c + D_c ~ U[-1,1]", K)
    return _kolmogorov_finding(
        K,
        established=(
            "clean class uniform on the cube mu_c + [-1,1]^d with d_c = e_1: z_c + D_c is uniform "
            "on [-1, 1] (variance 1/3) in every dimension d; the supremum of |F - Phi(sqrt(3) x)| "
            "over the critical points of the difference (SymPy solve) and the interval ends is "
            f"{float(K):.6f}, constant in d."
        ),
        evidence=lambda _be: f"K(z_c + D_c, N(0, 1/3)) = {float(K):.6f} > 0 for all d",
    )


CLAIMS = (check_error_pool_limit, check_clean_class_limit)
