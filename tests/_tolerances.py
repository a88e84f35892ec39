"""Tolerances shared by the test modules, each one derived from an error bound.

Floating point
    ``U = 2**-53`` is the unit roundoff of float64: a correctly rounded operation returns
    ``x(1 + δ)`` with ``|δ| <= U``. ``gamma(k) = kU/(1 - kU)`` bounds the relative error of ``k``
    such roundings in a product or quotient (Higham, *Accuracy and Stability of Numerical
    Algorithms*, 2nd ed., Lemma 3.1). A tolerance is then ``gamma(k)`` times the condition number
    of the operation, written next to it.

Monte Carlo
    Every statistical check of the suite is allowed a false-failure probability of at most
    ``ALPHA = 1e-9`` when the property it tests holds (a check split into several statistics
    gives each its share of ALPHA). One run of the suite (profile ``ci`` or ``dev``: the
    hypothesis-driven checks are capped by ``@settings``) makes at most 650 such checks, each
    module counting its own next to them::

        test_rejectors_bayes    155   (24 chi-square, 5 binomial, 126 Hoeffding)
        test_predictors         137
        test_bounds             102
        test_proofs             100
        test_synthetic           94   (2 + 3 + 4 + 5 binomial, 80 normal / chi-square)
        test_geometry            18
        test_selective_metrics    9
        test_finite_sample        7   (5 coverage counts, 1 of 10 means, 1 of 3 means)
        test_gcul                 6
        test_certified            7   (6 coverage counts, 1 power check)
        test_noisy_judgement      3
        test_synthetic_geometry  12   (9 normal moments, 3 multinomial label counts)
        total                   650

    so a correct package fails a run by chance with probability below 650e-9 < 1e-6 (union
    bound). A new check must fit under the remaining 350.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import binom
from scipy.stats import t as student_t

U = 2.0**-53  # unit roundoff of float64
ALPHA = 1e-9  # false-failure probability allowed per statistical check (650 checks a run)


def gamma(k: int) -> float:
    """Relative error bound ``kU/(1 - kU)`` of ``k`` roundings (Higham, Lemma 3.1)."""
    return k * U / (1.0 - k * U)


# Accuracy of the tails (gcul_theory._tails). The Gaussian tail is ½erfc(x) for x < ½, else
# ½erfcx(x)·exp(-x²) with x² carried exactly (error-free products, to 2**-104 relative): its
# error is that of scipy's erfc/erfcx, S. G. Johnson's Faddeeva package, documented to at least
# 13 significant digits (1e-13 relative), plus a few roundings (the argument, two exps, three
# products: gamma(8)). The Chernoff tail exp(-x²) is two exps of exact arguments and one product:
# gamma(10) allows 4 ulp for each exp (glibc documents 1 ulp) and a reference's own rounding.
# The worst measured over the suite's draws is 5u for both.
GAUSSIAN_REL = 1e-13 + gamma(8)
CHERNOFF_REL = gamma(10)


def score_rate_condition(eps: float, r1: float, r2: float) -> float:
    """``|∂S/∂r1| + |∂S/∂r2|`` bounded: how much S(ε, r1, r2) moves per unit move of its rates.

    S = A(r1 - r2)/Q with A = ε(1 - ε), Q = ρ(1 - ρ), ρ = εr1 + (1 - ε)r2, so the sum of the
    partial derivatives is at most 2A/Q + A|r1 - r2||1 - 2ρ|/Q² (inf where Q = 0).
    """
    rho = eps * r1 + (1.0 - eps) * r2
    Q = rho * (1.0 - rho)
    if Q <= 0.0:
        return math.inf
    A = eps * (1.0 - eps)
    return 2.0 * A / Q + A * abs(r1 - r2) * abs(1.0 - 2.0 * rho) / Q**2


def binomial_band(p: float, n: int, alpha: float = ALPHA) -> float:
    """Half-width ``b`` with ``P(|X/n - p| > b) <= alpha`` for ``X ~ Binomial(n, p)``.

    From the exact binomial quantiles: ``P(X < ppf(alpha/2)) < alpha/2`` and
    ``P(X > isf(alpha/2)) <= alpha/2``. For a sum of independent Bernoulli variables of mean
    ``np`` with unequal probabilities (Poisson-binomial), the upper tail beyond ``np + 1`` is at
    most the binomial one (Hoeffding 1956, Theorem 4), so such uses add one count, ``1/n``.
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be in [0, 1]; got {p!r}")
    low = binom.ppf(alpha / 2.0, n, p)
    high = binom.isf(alpha / 2.0, n, p)
    return max(p - low / n, high / n - p, 0.0)


def normal_quantile(alpha: float = ALPHA) -> float:
    """``z`` with ``P(|Z| > z) = alpha`` for a standard normal ``Z`` (6.11 at 1e-9)."""
    return float(student_t.isf(alpha / 2.0, math.inf))


def t_quantile(dof: int, alpha: float = ALPHA) -> float:
    """``t`` with ``P(|T| > t) = alpha`` for Student's t with ``dof`` degrees of freedom."""
    return float(student_t.isf(alpha / 2.0, dof))


def self_normalised_quantile(alpha: float, n: int, skewness: float) -> float:
    """``z`` with ``2 Q(z) exp(|skewness| z**3 / (3 sqrt(n))) <= alpha``, Q the normal tail.

    The tolerance, in standard errors, of a mean of ``n`` iid draws divided by its own standard
    error (``(mean - truth) / (std / sqrt(n))``) when the draws are skewed. In the moderate
    deviation range the self-normalised sum's tail is the normal one times
    ``exp(-+ skewness z**3 / (3 sqrt(n)))`` to first order (Jing, Shao & Wang, Ann. Probab. 31,
    2003, Theorem 2.1 and its Cramér series): the heavier side is bounded by that factor, the
    other by the normal tail. An approximation, not a bound: used where no exact tail exists,
    with ``skewness`` an upper estimate of the measured one.
    """
    from scipy.optimize import brentq
    from scipy.stats import norm

    def excess(z: float) -> float:
        log_tail = math.log(2.0) + norm.logsf(z) + abs(skewness) * z**3 / (3.0 * math.sqrt(n))
        return log_tail - math.log(alpha)

    return float(brentq(excess, 0.0, 50.0))


def mean_rounding(rows) -> np.ndarray:
    """Per coordinate, how far a computed mean of ``rows`` (n, d) can be from the exact one.

    Any order of summation: within ``gamma(n - 1)`` of the sum of the absolute values (Higham,
    eq. 4.4), and one more rounding for the division by n: ``gamma(n) * mean(|x|)``.
    """
    rows = np.asarray(rows, dtype=float)
    return gamma(rows.shape[0]) * np.abs(rows).mean(axis=0)


def projection_geometry_rounding(error_rows, clean_rows: list) -> dict:
    """How far two evaluations of the projection geometry of the same rows can differ.

    The geometry of ``gcul_theory.estimate_geometry`` (and ``geometry_from_moments`` of
    plug-in moments): per class c, ``D_c = |mu_mix - mu_c|``, the spreads ``sigma_mix,c`` and
    ``sigma_c`` of the error rows and of class c's clean rows along ``d_c = (mu_mix - mu_c)/D_c``,
    and ``corr_mix`` the correlation of the error rows' projections on two such directions.
    Whatever the order of the sums (a covariance matrix then a quadratic form, or projections
    then their squares), one evaluation errs by at most, with u the unit roundoff:

    - the means: ``mean_rounding`` each; the difference one more rounding: a vector ``E`` of
      per-coordinate bounds on the computed ``mu_mix - mu_c``;
    - ``D``: ``|E|`` plus the norm's own ``gamma(d + 1)`` (d squares, their sum, a root);
    - the direction: ``theta <= 2|E|/D + gamma(d + 2)`` (the angle of a vector moved by |E|,
      then a division by the rounded norm);
    - a spread ``s**2 = d^T S d`` over rows x_i with mean mu (S with n - 1): the mean's error
      e adds ``n (e.d)**2/(n - 1)`` (the first-order term vanishes, the centred rows summing to
      0), the direction's ``(2 theta + theta**2) |S|_2`` with ``|S|_2 <= tr S``, and the
      arithmetic (every product of the sum sum_i (sum_j (x_ij - mu_j) d_j)**2, grouped either
      way, carries at most ``K = n + d**2 + 2d + 4`` roundings) ``gamma(K)`` times
      ``Q = sum_i (sum_j |x_ij - mu_j| |d_j|)**2 / (n - 1)``; the square root halves the
      relative error and adds u;
    - a correlation ``r = d_a^T S d_b / (s_a s_b)``: the numerator as a spread (with
      ``sqrt(Q_a Q_b)``, Cauchy-Schwarz, and ``theta_a + theta_b + theta_a theta_b``), over
      ``s_a s_b``, plus ``|r|`` times both spreads' relative errors and ``gamma(4) |r|``.

    Two evaluations differ by at most the sum of their bounds: every value returned is twice
    the single-evaluation bound. Returns ``{"D": absolute, "sigma_mix": relative, "sigma_c":
    relative, "corr_mix": absolute (C, C)}`` with one entry per class of ``clean_rows`` (a list
    of (n_c, d) arrays). First order in u: the bounds are far above the second-order terms.
    """
    X_e = np.asarray(error_rows, dtype=float)
    n_e, d = X_e.shape
    mu_e = X_e.mean(axis=0)
    S_e = np.cov(X_e, rowvar=False, ddof=1).reshape(d, d)
    e_e = mean_rounding(X_e)
    K_e = gamma(n_e + d * d + 2 * d + 4)
    out = {"D": [], "sigma_mix": [], "sigma_c": []}
    directions, thetas, spreads_e, rel_e, abs_forms = [], [], [], [], []
    for rows in clean_rows:
        X_c = np.asarray(rows, dtype=float)
        n_c = X_c.shape[0]
        mu_c = X_c.mean(axis=0)
        delta = mu_e - mu_c
        D = float(np.linalg.norm(delta))
        e_c = mean_rounding(X_c)
        E = float(np.linalg.norm(e_e + e_c + U * np.abs(delta)))
        out["D"].append(2 * (E + gamma(d + 1) * (D + E)))
        theta = 2 * E / D + gamma(d + 2)
        direction = delta / D
        relative = []
        for X, mu, S, e, n in ((X_e, mu_e, S_e, e_e, n_e), (X_c, mu_c, None, e_c, n_c)):
            if S is None:
                S = np.cov(X, rowvar=False, ddof=1).reshape(d, d)
            s2 = float(direction @ S @ direction)
            Q = float(np.sum((np.abs(X - mu) @ np.abs(direction)) ** 2) / (n - 1))
            K = gamma(n + d * d + 2 * d + 4)
            error = K * Q + (2 * theta + theta**2) * np.trace(S) + n * float(e @ e) / (n - 1)
            relative.append(error / s2 / 2 + U)
            if S is S_e:
                spreads_e.append(np.sqrt(s2))
                abs_forms.append(Q)
        out["sigma_mix"].append(2 * relative[0])
        out["sigma_c"].append(2 * relative[1])
        directions.append(direction)
        thetas.append(theta)
        rel_e.append(relative[0])
    C = len(clean_rows)
    corr = np.zeros((C, C))
    trace_e = float(np.trace(S_e))
    shift = n_e * float(e_e @ e_e) / (n_e - 1)
    for a in range(C):
        for b in range(C):
            if a == b:
                continue
            r = float(directions[a] @ S_e @ directions[b]) / (spreads_e[a] * spreads_e[b])
            numerator = (
                K_e * np.sqrt(abs_forms[a] * abs_forms[b])
                + (thetas[a] + thetas[b] + thetas[a] * thetas[b]) * trace_e
                + shift
            )
            single = numerator / (spreads_e[a] * spreads_e[b])
            single += abs(r) * (rel_e[a] + rel_e[b] + gamma(4))
            corr[a, b] = 2 * single
    return {name: np.array(values) for name, values in out.items()} | {"corr_mix": corr}


def linear_scores_rounding(W, b, X) -> np.ndarray:
    """Bound on the rounding of the scores ``W x + b`` of each row x of X, shape (n, K).

    A dot product of d terms, in any order, is within ``gamma(d)`` of the sum of the absolute
    values of its products (Higham, eq. 3.5); adding the intercept is one more rounding:
    ``gamma(d + 1) (|W| |x| + |b|)``. Two evaluations in different orders (``X @ W.T + b``
    and ``W @ X.T + b[:, None]``) differ by at most twice this.
    """
    W, b, X = (np.asarray(a, dtype=float) for a in (W, b, X))
    return gamma(W.shape[1] + 1) * (np.abs(X) @ np.abs(W).T + np.abs(b))
