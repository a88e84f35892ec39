r"""The symbolic expressions of the paper and of ``gcul_theory``: the bottom layer of ``proofs``.

One pure function per formula, symbols passed in (SymPy), each with its "Sources" note naming the
paper's label; no claim lives here. The claim modules (one per claim family, ``_utility.py``,
``_criterion.py``, ... ) build on these and on :mod:`proofs._lemmas`, :mod:`proofs._symbolic`,
:mod:`proofs._result` and :mod:`proofs._trace`, never on each other, so the package has no import
circle (``tests/test_import_graph.py``). ``lambdify`` an expression to compare it with the numeric
function of ``gcul_theory`` (the claims ``numeric.*`` do).

Where a formula goes: here, in the group of its section; a construction that only one claim
uses as its witness stays with that claim.

References
----------
.. [1] "GCUL: Ambiguity Identification in Text Emotion Classification via Cluster-Guided
   Learning" (the GCUL paper).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import sympy as sp

from ._symbolic import sympify_all

__all__ = [
    "rejection_rate_expr",
    "clean_error_expr",
    "utility_expr",
    "joint_utility_expr",
    "selectivity_denominator",
    "selectivity_expr",
    "selectivity_closed_form",
    "criterion_margins",
    "selectivity_gradient",
    "voronoi_margin",
    "projection",
    "normal_density",
    "normal_interval_probability",
    "gaussian_tail_expr",
    "capture_rate_bound_expr",
    "contamination_rate_bound_expr",
    "independent_capture_expr",
    "boole_capture_bound_expr",
    "clip_unit",
    "critical_lambda_expr",
    "chernoff_exponent",
    "chernoff_tail_expr",
    "rigorous_capture_bound_expr",
    "structural_existence_bound_expr",
    "attractor_contamination_expr",
]


# --------------------------------------------------------------------------------------------
# Utility model (section ``subsec:selectivity_score``)


def rejection_rate_expr(eps: sp.Expr, r1: sp.Expr, r2: sp.Expr) -> sp.Expr:
    r"""Rejection rate :math:`\rho = \varepsilon r_1 + (1-\varepsilon) r_2`.

    Sources: section ``subsec:selectivity_score`` of the paper, display after "Feasibility
    condition".

    Examples
    --------
    >>> import sympy as sp
    >>> eps, r1, r2 = sp.symbols("epsilon r1 r2")
    >>> rejection_rate_expr(eps, r1, r2)
    epsilon*r1 + r2*(1 - epsilon)
    """
    eps, r1, r2 = sympify_all(eps, r1, r2)
    return eps * r1 + (1 - eps) * r2


def clean_error_expr(eps: sp.Expr, r1: sp.Expr, r2: sp.Expr) -> sp.Expr:
    r"""Conditional error on accepted samples, :math:`\varepsilon(1-r_1)/(1-\rho)`.

    Sources: section ``subsec:selectivity_score``, display after "Feasibility condition".

    Examples
    --------
    >>> import sympy as sp
    >>> clean_error_expr(sp.Rational(1, 5), sp.Rational(9, 10), sp.Rational(1, 20))
    1/39
    """
    eps, r1, r2 = sympify_all(eps, r1, r2)
    return eps * (1 - r1) / (1 - rejection_rate_expr(eps, r1, r2))


def utility_expr(lam: sp.Expr, eps: sp.Expr, r1: sp.Expr, r2: sp.Expr) -> sp.Expr:
    r"""Normalised utility gain :math:`U(\lambda) = \varepsilon - \varepsilon_{clean} - \lambda\rho`.

    Sources: section ``subsec:selectivity_score``, definition of :math:`\mathcal U(\lambda)`.

    Examples
    --------
    >>> import sympy as sp
    >>> utility_expr(0, sp.Rational(1, 2), 1, 0)
    1/2
    """
    lam, eps, r1, r2 = sympify_all(lam, eps, r1, r2)
    return eps - clean_error_expr(eps, r1, r2) - lam * rejection_rate_expr(eps, r1, r2)


def joint_utility_expr(lam: sp.Expr, eps: sp.Expr, r1: sp.Expr, r2: sp.Expr) -> sp.Expr:
    r"""Utility with the joint (per-sample) error :math:`\varepsilon(1-r_1)` in place of
    :math:`\varepsilon_{clean}`: :math:`\varepsilon r_1 - \lambda\rho` (Chow's risk).

    Not in the paper; the alternative its modelling choice is compared with.

    Examples
    --------
    >>> import sympy as sp
    >>> joint_utility_expr(0, sp.Rational(1, 2), 1, 0)
    1/2
    """
    lam, eps, r1, r2 = sympify_all(lam, eps, r1, r2)
    return eps - eps * (1 - r1) - lam * rejection_rate_expr(eps, r1, r2)


# --------------------------------------------------------------------------------------------
# The criterion S_GCUL > lambda (Eq. ``eq:selectivity_score``, appendix ``app:criterion_derivation``)


def selectivity_denominator(eps: sp.Expr, r1: sp.Expr, r2: sp.Expr) -> sp.Expr:
    r"""Denominator :math:`D` of Eq. (``eq:selectivity_score``) as printed.

    .. math:: D = r_1 + \tfrac{1-\varepsilon}{\varepsilon} r_2 - \varepsilon r_1^2
              - \tfrac{(1-\varepsilon)^2}{\varepsilon} r_2^2 - 2(1-\varepsilon) r_1 r_2

    Sources: Eq. (``eq:selectivity_score``); the same :math:`D` opens ``app:proof_monotonicity``.
    """
    eps, r1, r2 = sympify_all(eps, r1, r2)
    a = 1 - eps
    return r1 + a / eps * r2 - eps * r1**2 - a**2 / eps * r2**2 - 2 * a * r1 * r2


def selectivity_expr(eps: sp.Expr, r1: sp.Expr, r2: sp.Expr) -> sp.Expr:
    r"""GCUL selectivity score as printed in Eq. (``eq:selectivity_score``): :math:`(1-\varepsilon)(r_1-r_2)/D`.

    Sources: Eq. (``eq:selectivity_score``) of the paper.

    Examples
    --------
    >>> import sympy as sp
    >>> selectivity_expr(sp.Rational(1, 5), sp.Rational(9, 10), sp.Rational(1, 20))
    340/429
    """
    eps, r1, r2 = sympify_all(eps, r1, r2)
    return (1 - eps) * (r1 - r2) / selectivity_denominator(eps, r1, r2)


def selectivity_closed_form(eps: sp.Expr, r1: sp.Expr, r2: sp.Expr) -> sp.Expr:
    r"""Factored form :math:`\varepsilon(1-\varepsilon)(r_1-r_2)/(\rho(1-\rho))` of :math:`S_{GCUL}`.

    Sources: the line "Thus, we obtain" of ``app:criterion_derivation``.

    Examples
    --------
    >>> import sympy as sp
    >>> selectivity_closed_form(sp.Rational(1, 5), sp.Rational(9, 10), sp.Rational(1, 20))
    340/429
    """
    eps, r1, r2 = sympify_all(eps, r1, r2)
    rho = rejection_rate_expr(eps, r1, r2)
    return eps * (1 - eps) * (r1 - r2) / (rho * (1 - rho))


def criterion_margins(lam: sp.Expr, eps: sp.Expr, r1: sp.Expr, r2: sp.Expr) -> dict[str, sp.Expr]:
    r"""Margins :math:`g_k` (line reads :math:`g_k > 0`) of every displayed line, as printed.

    Keys name the line: ``"U"`` (:math:`U(\lambda) > 0`), ``"1a"``/``"1b"`` ("Starting
    from"), ``"2a"``/``"2b"`` ("Dividing both sides by ε"), ``"3a"``/``"3b"`` ("Expanding the
    right-hand side"), ``"4"`` ("Rearranging terms", as printed), ``"4_corrected"``, ``"6a"``/
    ``"6b"`` ("Thus, we obtain").

    Sources: appendix ``app:criterion_derivation``.
    """
    rho = rejection_rate_expr(eps, r1, r2)
    clean = clean_error_expr(eps, r1, r2)
    k = lam / eps
    return {
        "U": utility_expr(lam, eps, r1, r2),
        "1a": eps - (clean + lam * rho),
        "1b": eps - (eps * (1 - r1) / (1 - rho) + lam * rho),
        "2a": (1 - k * rho) - (1 - r1) / (1 - rho),
        "2b": (1 - rho) * (1 - k * rho) - (1 - r1),
        "3a": (1 - rho - k * rho + k * rho**2) - (1 - r1),
        "3b": (-rho + k * rho * (rho - 1)) - (-r1),
        "4": (rho - r1) - k * rho * (1 - rho),
        "4_corrected": (r1 - rho) - k * rho * (1 - rho),
        "6a": (1 - eps) * (r1 - r2) - k * rho * (1 - rho),
        "6b": eps * (1 - eps) * (r1 - r2) / (rho * (1 - rho)) - lam,
    }


# --------------------------------------------------------------------------------------------
# Monotonicity (Theorem ``thm:monotonicity``)


def selectivity_gradient(eps: sp.Expr, r1: sp.Expr, r2: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    r"""Gradient of :math:`S_{GCUL}` in the signed form of ``app:proof_monotonicity``.

    .. math::

        \frac{\partial S}{\partial r_1} = \frac{a}{D^2}\left[\varepsilon(r_1-r_2)^2
            + \frac{r_2(1-r_2)}{\varepsilon}\right],\qquad
        \frac{\partial S}{\partial r_2} = -\frac{a}{D^2}\left[\frac{a^2}{\varepsilon}(r_1-r_2)^2
            + \frac{r_1(1-r_1)}{\varepsilon}\right],

    with :math:`a = 1-\varepsilon` and :math:`D = \rho(1-\rho)/\varepsilon`.

    Sources: appendix ``app:proof_monotonicity`` (Parts 1 and 2).

    Examples
    --------
    >>> import sympy as sp
    >>> half = sp.Rational(1, 2)
    >>> selectivity_gradient(half, sp.Rational(3, 4), sp.Rational(1, 4))
    (1, -1)
    """
    eps, r1, r2 = sympify_all(eps, r1, r2)
    a = 1 - eps
    den = selectivity_denominator(eps, r1, r2)
    num1 = eps * (r1 - r2) ** 2 + r2 * (1 - r2) / eps
    num2 = -(a**2 / eps * (r1 - r2) ** 2 + r1 * (1 - r1) / eps)
    return a / den**2 * num1, a / den**2 * num2


# --------------------------------------------------------------------------------------------
# The 1-D Voronoi reduction (appendix ``app:proof_voronoi``)


def voronoi_margin(x: sp.Matrix, mu_mix: sp.Matrix, mu_c: sp.Matrix) -> sp.Expr:
    r""":math:`\|x-\mu_c\|^2 - \|x-\mu_{mix}\|^2`: positive iff `x` is strictly closer to :math:`\mu_{mix}`.

    Sources: first display of ``app:proof_voronoi``.

    Examples
    --------
    >>> import sympy as sp
    >>> voronoi_margin(sp.Matrix([3]), sp.Matrix([0]), sp.Matrix([-2]))
    16
    """
    return (x - mu_c).dot(x - mu_c) - (x - mu_mix).dot(x - mu_mix)


def projection(x: sp.Matrix, mu_mix: sp.Matrix, mu_c: sp.Matrix) -> sp.Expr:
    r"""The statement's :math:`z_c(x) = \langle x - \mu_{mix}, (\mu_{mix}-\mu_c)/D_c\rangle`.

    Sources: "1D Voronoi Reduction", section ``subsec:feasibility_threshold``.

    Examples
    --------
    >>> import sympy as sp
    >>> projection(sp.Matrix([3]), sp.Matrix([0]), sp.Matrix([-2]))
    3
    """
    d = mu_mix - mu_c
    return (x - mu_mix).dot(d) / sp.sqrt(d.dot(d))


# --------------------------------------------------------------------------------------------
# Gaussian tails (Lemma ``lem:projection_tails``)


def normal_density(u: sp.Expr, mean: sp.Expr, sigma: sp.Expr) -> sp.Expr:
    r"""Density of :math:`\mathcal N(\text{mean}, \sigma^2)` at `u`.

    Examples
    --------
    >>> import sympy as sp
    >>> u = sp.Symbol("u", real=True)
    >>> sp.integrate(normal_density(u, 0, 1), (u, -sp.oo, sp.oo))
    1
    """
    u, mean, sigma = sympify_all(u, mean, sigma)
    return sp.exp(-((u - mean) ** 2) / (2 * sigma**2)) / (sp.sqrt(2 * sp.pi) * sigma)


@functools.cache
def normal_interval_probability(
    mean: sp.Expr, sigma: sp.Expr, lower: sp.Expr, upper: sp.Expr
) -> sp.Expr:
    r"""Probability of (lower, upper) under :math:`\mathcal N(\text{mean}, \sigma^2)`, by ``integrate``.

    Translates to the centred density and uses SymPy's ``manual`` integrator (substitution
    rules, as a person would integrate; fast and exact here). Cached: several claims
    integrate the same density over the same interval.

    Examples
    --------
    >>> import sympy as sp
    >>> normal_interval_probability(sp.Integer(0), sp.Integer(1), sp.Integer(0), sp.oo)
    1/2
    """
    v = sp.Symbol("v", real=True)
    # Translate u = v + mean, then integrate the centred density; fall back to the default
    # integrator should the manual one leave an unevaluated Integral.
    bounds = (v, lower - mean, upper - mean)
    result = sp.integrate(normal_density(v, 0, sigma), bounds, manual=True)
    if result.has(sp.Integral):
        result = sp.integrate(normal_density(v, 0, sigma), bounds)
    return result


def gaussian_tail_expr(D: sp.Expr, sigma: sp.Expr) -> sp.Expr:
    r"""Closed form :math:`\tfrac12\operatorname{erfc}(D/(2\sqrt2\sigma))` of the lemma's tails.

    Eqs. (``eq:p_loss_exact``) and (``eq:q_contam_exact``).

    Sources: Lemma ``lem:projection_tails``; shown equal to the integral by
    ``projection_tails.gaussian_integral``.

    Examples
    --------
    >>> import sympy as sp
    >>> gaussian_tail_expr(sp.Integer(0), sp.Integer(1))
    1/2
    """
    D, sigma = sympify_all(D, sigma)
    return sp.erfc(D / (2 * sp.sqrt(2) * sigma)) / 2


# --------------------------------------------------------------------------------------------
# Rate bounds (Theorem ``thm:global_rate_bounds``) and the corrected Boole bound


def capture_rate_bound_expr(
    eps: sp.Expr, pi: Sequence[sp.Expr], eps_c: Sequence[sp.Expr], p_loss: Sequence[sp.Expr]
) -> sp.Expr:
    r"""The paper's :math:`\hat r_1 = 1 - \varepsilon^{-1}\sum_c \pi_c\varepsilon_c p_c^{loss}`.

    Sources: Eqs. (``eq:r1_bound``) and (``eq:r1_hat``) with :math:`p_c^{loss}` left symbolic.

    Examples
    --------
    >>> import sympy as sp
    >>> h = sp.Rational(1, 2)
    >>> capture_rate_bound_expr(sp.Rational(1, 5), [h, h], [sp.Rational(1, 5)] * 2, [h, 0])
    3/4
    """
    eps, pi, eps_c, p_loss = sympify_all(eps, pi, eps_c, p_loss)
    return 1 - sum(p * e * q for p, e, q in zip(pi, eps_c, p_loss, strict=True)) / eps


def contamination_rate_bound_expr(
    eps: sp.Expr, pi: Sequence[sp.Expr], q_contam: Sequence[sp.Expr]
) -> sp.Expr:
    r"""The paper's :math:`\hat r_2 = (1-\varepsilon)^{-1}\sum_c \pi_c q_c^{contam}`.

    Sources: Eqs. (``eq:r2_bound``) and (``eq:r2_hat``) with :math:`q_c` left symbolic.

    Examples
    --------
    >>> import sympy as sp
    >>> h = sp.Rational(1, 2)
    >>> contamination_rate_bound_expr(h, [h, h], [sp.Rational(1, 10), 0])
    1/10
    """
    eps, pi, q_contam = sympify_all(eps, pi, q_contam)
    return sum(p * q for p, q in zip(pi, q_contam, strict=True)) / (1 - eps)


def independent_capture_expr(p_loss: Sequence[sp.Expr]) -> sp.Expr:
    r""":math:`E[r_1] = \prod_c (1 - p_c)` when the projections :math:`z_c` are independent.

    Holds for orthogonal directions :math:`\hat d_c` and isotropic :math:`\Sigma_{mix}`: an error is
    captured iff it stays inside every half-space :math:`\{z_c \le D_c/2\}` (proof's convention).

    Examples
    --------
    >>> import sympy as sp
    >>> independent_capture_expr([sp.Rational(1, 2), sp.Rational(1, 3)])
    1/3
    """
    (p_loss,) = sympify_all(p_loss)
    return sp.Mul(*[1 - p for p in p_loss])


def boole_capture_bound_expr(p_loss: Sequence[sp.Expr]) -> sp.Expr:
    r"""Corrected capture bound :math:`1 - \sum_c p_c` (Boole over all boundaries, unweighted).

    Examples
    --------
    >>> import sympy as sp
    >>> boole_capture_bound_expr([sp.Rational(1, 10), sp.Rational(1, 5)])
    7/10
    """
    (p_loss,) = sympify_all(p_loss)
    return 1 - sum(p_loss)


# --------------------------------------------------------------------------------------------
# The critical cost (Theorem ``thm:gcul_effectiveness_sufficient_condition``)


def clip_unit(x: sp.Expr) -> sp.Expr:
    """Clip to [0, 1]: ``Min(1, Max(0, x))``.

    Examples
    --------
    >>> import sympy as sp
    >>> [clip_unit(sp.Rational(v, 2)) for v in (-1, 1, 3)]
    [0, 1/2, 1]
    """
    (x,) = sympify_all(x)
    return sp.Min(1, sp.Max(0, x))


def critical_lambda_expr(eps: sp.Expr, r1_hat: sp.Expr, r2_hat: sp.Expr) -> sp.Expr:
    r"""Critical cost :math:`\lambda^*_{PRE}` from the (clipped) rate bounds.

    .. math:: \lambda^*_{PRE} = \max\big(0, S_{GCUL}(\varepsilon, \operatorname{clip}\hat r_1,
              \operatorname{clip}\hat r_2)\big)

    The package's reading of the theorem (clipped rates, negative scores reported as 0); the
    closed form is meaningful when the clipped rates give :math:`0 < \rho < 1`.

    Sources: Theorem ``thm:gcul_effectiveness_sufficient_condition``; Eq. (``eq:selectivity_score``).

    Examples
    --------
    >>> import sympy as sp
    >>> critical_lambda_expr(sp.Rational(1, 5), sp.Rational(9, 10), sp.Rational(1, 20))
    340/429
    >>> critical_lambda_expr(sp.Rational(4, 5), sp.Rational(9, 10), 2)
    0
    """
    eps, r1_hat, r2_hat = sympify_all(eps, r1_hat, r2_hat)
    return sp.Max(0, selectivity_closed_form(eps, clip_unit(r1_hat), clip_unit(r2_hat)))


# --------------------------------------------------------------------------------------------
# The Chernoff bound (Eq. ``eq:chernoff_outlier``)


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


# --------------------------------------------------------------------------------------------
# The rigorous capture bound (Theorem ``thm:r1_rigorous``)


def rigorous_capture_bound_expr(
    eps: sp.Expr,
    pi: Sequence[sp.Expr],
    eps_c: Sequence[sp.Expr],
    D: Sequence[sp.Expr],
    sigma_mix: Sequence[sp.Expr],
) -> sp.Expr:
    r"""Right-hand side of Eq. (``eq:r1_rigorous_bound``).

    .. math:: 1 - \sum_c \frac{\pi_c\varepsilon_c}{\varepsilon}\Big[e^{-D_c^2/(8\sigma_{mix,c}^2)}
              + \tfrac12\big(1 - \operatorname{erf}(D_c/(2\sqrt2\sigma_{mix,c}))\big)\Big]

    Sources: Eq. (``eq:r1_rigorous_bound``), Theorem ``thm:r1_rigorous``.

    Examples
    --------
    >>> import sympy as sp
    >>> rigorous_capture_bound_expr(sp.Rational(1, 5), [1], [sp.Rational(1, 5)], [0], [1])
    -1/2
    """
    eps, pi, eps_c, D, sigma_mix = sympify_all(eps, pi, eps_c, D, sigma_mix)
    total = 0
    for p, e, d, s in zip(pi, eps_c, D, sigma_mix, strict=True):
        total += (
            p * e / eps * (chernoff_tail_expr(d, s) + (1 - sp.erf(d / (2 * sp.sqrt(2) * s))) / 2)
        )
    return 1 - total


# --------------------------------------------------------------------------------------------
# Structural existence (Corollary ``cor:attractor_properties``)


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


# --------------------------------------------------------------------------------------------
# The package's attractor contamination (gcul_theory's valid predictors; not in the paper)


def attractor_contamination_expr(
    eps: sp.Expr, pi: Sequence[sp.Expr], q_contam: Sequence[sp.Expr]
) -> sp.Expr:
    r""":math:`\hat r_2` of the valid predictors: :math:`(\sum_c \pi_c q_c + \varepsilon/(C-1))/(1-\varepsilon)`.

    The package's model (not the paper's): the attractor's chance-correct samples, one in
    :math:`C-1` per error, are added to the clean cores' contamination.

    Examples
    --------
    >>> import sympy as sp
    >>> h = sp.Rational(1, 2)
    >>> attractor_contamination_expr(h, [h, h], [0, 0])
    1
    """
    eps = sp.sympify(eps)
    total = sum(sp.sympify(p) * sp.sympify(q) for p, q in zip(pi, q_contam, strict=True))
    return (total + eps / (len(pi) - 1)) / (1 - eps)
