"""The predictor registry (gcul_theory._predictors): validity of each bound under its own model.

Monte Carlo tests draw the error pool from the single-attractor Gaussian model with random
geometries (random, non-orthogonal class directions and a random covariance), assign each draw to
its nearest centre among {mu_mix} and the class cores, and compare the captured share with each
bound inside an exact binomial band, over hypothesis-drawn seeds.

Statistical tolerances (``_tolerances``): each check may fail by chance with probability at most
``ALPHA = 1e-9`` when what it tests holds. Binomial shares use exact binomial quantiles; an orthant
probability of "gaussian_exact" is the mean of ``ORTHANT_RANDOMISATIONS = 8`` independent Owen
scramblings, so (value - truth)/error is Student's t with 7 degrees of freedom (the scrambled
estimates being iid and near normal, Loh 2003), and its tolerance is ``T7 = 42.75`` standard
errors. This module makes at most 3·12 + 4 + 3·8 + 1 + 5 + 3·12 + 3·6 + 5 + 6 + 1 = 137 such
checks a run (the examples are capped by ``@settings``). Tolerances of quadrature references add
the error estimate ``scipy.integrate.quad`` returns.
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest
from _tolerances import ALPHA, U, binomial_band, gamma, score_rate_condition, t_quantile
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import integrate
from scipy.special import ndtr
from scipy.stats import binom, multivariate_normal

import gcul_theory as gt
from gcul_theory import (
    DEFAULT_METHOD,
    METHODS,
    PREDICTORS,
    Geometry,
    capture_rate_bound,
    contamination_rate_bound,
    critical_lambda,
    estimate_geometry,
    feasibility_report,
    finite_sample_lambda,
    gaussian_tail,
    predictor,
)
from gcul_theory._orthant import (
    ORTHANT_MAX_CLASSES,
    bivariate_cdf,
    orthant_probability,
    upper_orthant,
)
from gcul_theory._predictors import max_spanning_tree_weight

N_MC = 20_000
# scipy's multivariate_normal.cdf takes rng= from 1.15 on, random_state= before, and nothing at
# 1.10 (the floor; its Fortran integrator draws its own points): the reference is within its
# abseps whichever stream it uses
_CDF_PARAMETERS = inspect.signature(multivariate_normal.cdf).parameters
SCIPY_RNG = next(
    (lambda rng, name=name: {name: rng})
    for name in ("rng", "random_state", None)
    if name is None or name in _CDF_PARAMETERS
)
if "rng" not in _CDF_PARAMETERS and "random_state" not in _CDF_PARAMETERS:
    SCIPY_RNG = lambda rng: {}  # noqa: E731
seeds = st.integers(0, 2**32 - 1)
VALID = ("boole", "hunter_worsley")
T7 = t_quantile(7)  # P(|t_7| > 42.75) = 1e-9: the tolerance of an orthant, in standard errors


def band(p: float, n: int = N_MC) -> float:
    """P(|share - p| > band) <= 1e-9 for a Binomial(n, p) share (exact quantiles)."""
    return binomial_band(p, n)


def score_slack(eps: float, r1: float, r2: float, rate_slack: float) -> float:
    """How far the float λ* = S(ε, r1, r2) may move when r1 and r2 move by ``rate_slack`` each:
    S's condition in its rates times the move, plus the rounding of two values of S
    (gamma(13) each, test_selectivity's bound)."""
    condition = score_rate_condition(eps, r1, r2)
    return min(condition * rate_slack, 1.0) + 2 * gamma(13)


def widest_band(p: float, slack: float, n: int = N_MC) -> float:
    """The binomial band at the p within ``slack`` of ``p`` nearest 1/2 (the true p is unknown)."""
    return band(min(max(0.5, p - slack), p + slack), n)


def captured(points, mu_mix, cores):
    """Nearest-centre rule: is each point strictly nearest to mu_mix (K-Means assignment)?"""
    centres = np.vstack([mu_mix[None, :], cores])
    scores = -2.0 * points @ centres.T + np.sum(centres * centres, axis=1)[None, :]
    return np.argmin(scores, axis=1) == 0


def model_geometry(D, directions, cov, eps=0.2):
    """The Geometry of the single-attractor model with mu_mix = 0 and mu_c = -D_c d_c."""
    C = D.shape[0]
    sigma = np.sqrt(np.einsum("ci,ij,cj->c", directions, cov, directions))
    corr = directions @ cov @ directions.T / np.outer(sigma, sigma)
    corr = np.clip(0.5 * (corr + corr.T), -1.0, 1.0)
    np.fill_diagonal(corr, 1.0)
    return Geometry(
        eps=eps,
        pi=np.full(C, 1.0 / C),
        eps_c=np.full(C, eps),
        D=D,
        sigma_mix=sigma,
        sigma_c=sigma,
        corr_mix=corr,
    )


def random_world(rng, C, d, snr_low=1.0, snr_high=6.0):
    directions = rng.normal(size=(C, d))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    a = rng.normal(size=(d, d))
    cov = a @ a.T / d + 0.2 * np.eye(d)
    sigma = np.sqrt(np.einsum("ci,ij,cj->c", directions, cov, directions))
    D = rng.uniform(snr_low, snr_high, C) * sigma
    return D, directions, cov


# --- The registry ---------------------------------------------------------------------------------


def test_registry_names_every_method_its_guarantee_and_column():
    assert METHODS == tuple(p.name for p in PREDICTORS)
    assert METHODS[:3] == ("gaussian", "union", "chernoff")
    assert {p.name for p in PREDICTORS if p.valid} == set(VALID)
    for entry in PREDICTORS:
        assert entry.valid == (entry.kind == "bound")
        assert entry.guarantee and entry.description
        assert predictor(entry.name) is entry
    for name in ("gaussian", "union", "chernoff"):
        assert "NOT" in predictor(name).guarantee
    assert predictor("gaussian_exact").kind == "model"
    assert predictor(DEFAULT_METHOD).valid
    with pytest.raises(ValueError, match="method must be one of"):
        predictor("bonferroni")


def test_defaults_are_the_valid_default():
    g = Geometry(
        eps=0.1,
        pi=[0.5, 0.5],
        eps_c=[0.1, 0.1],
        D=[4.0, 4.0],
        sigma_mix=[1.0, 1.0],
        sigma_c=[1.0, 1.0],
        corr_mix=np.eye(2),  # the default needs the correlations
    )
    assert critical_lambda(g) == critical_lambda(g, DEFAULT_METHOD)
    assert capture_rate_bound(g) == capture_rate_bound(g, DEFAULT_METHOD)
    assert contamination_rate_bound(g) == contamination_rate_bound(g, DEFAULT_METHOD)
    rng = np.random.default_rng(0)
    Z = np.vstack([rng.normal(c, 1.0, (200, 2)) for c in ([-6.0, 0.0], [6.0, 0.0], [0.0, 0.0])])
    y = np.r_[np.zeros(200, int), np.ones(200, int), rng.integers(0, 2, 200)]
    y_pred = np.r_[np.zeros(200, int), np.ones(200, int), 1 - y[400:]]
    report = feasibility_report(Z, y, y_pred)
    assert report.method == "hunter_worsley" and predictor(report.method).valid
    assert set(report.lambda_pre) == set(METHODS)


def test_one_default_stated_once():
    # Every function of gcul_theory with a ``method`` among the predictors defaults to
    # DEFAULT_METHOD, the tightest valid bound (before: "boole" for three of them and
    # "hunter_worsley" for the other two).
    assert DEFAULT_METHOD == "hunter_worsley" and predictor(DEFAULT_METHOD).valid
    functions = (
        capture_rate_bound,
        contamination_rate_bound,
        critical_lambda,
        feasibility_report,
        finite_sample_lambda,
    )
    for func in functions:
        assert inspect.signature(func).parameters["method"].default == DEFAULT_METHOD, func


def test_the_default_refuses_a_geometry_without_correlations_by_name():
    # No silent change of predictor: a hand-built Geometry without corr_mix is refused by the
    # default exactly as by an explicit "hunter_worsley", and the message says the two ways out.
    g = Geometry(
        eps=0.1,
        pi=[0.5, 0.5],
        eps_c=[0.1, 0.1],
        D=[4.0, 4.0],
        sigma_mix=[1.0, 1.0],
        sigma_c=[1.0, 1.0],
    )
    for func in (capture_rate_bound, critical_lambda):
        with pytest.raises(ValueError, match="corr_mix") as info:
            func(g)
        assert 'method="boole"' in str(info.value) and "hunter_worsley" in str(info.value)
    # the contamination bound needs no correlations: the default's r2 is the attractor one
    assert contamination_rate_bound(g) == contamination_rate_bound(g, "boole")


def test_methods_that_need_correlations_say_so():
    g = Geometry(
        eps=0.1,
        pi=[0.5, 0.5],
        eps_c=[0.1, 0.1],
        D=[4.0, 4.0],
        sigma_mix=[1.0, 1.0],
        sigma_c=[1.0, 1.0],
    )
    for method in ("hunter_worsley", "gaussian_exact"):
        with pytest.raises(ValueError, match="corr_mix"):
            critical_lambda(g, method)
    for method in ("gaussian", "union", "chernoff", "boole"):
        assert 0.0 <= critical_lambda(g, method) <= 1.0


@pytest.mark.parametrize(
    ("corr", "words"),
    [
        ([[1.0, 0.5], [0.4, 1.0]], "symmetric"),
        ([[0.9, 0.5], [0.5, 1.0]], "unit diagonal"),
        ([[1.0, 1.5], [1.5, 1.0]], "[-1, 1]"),
        (np.eye(3), "shape"),
        ([[1.0, np.nan], [np.nan, 1.0]], "finite"),
    ],
)
def test_corr_mix_is_validated(corr, words):
    with pytest.raises(ValueError, match="corr_mix") as info:
        Geometry(
            eps=0.1,
            pi=[0.5, 0.5],
            eps_c=[0.1, 0.1],
            D=[4.0, 4.0],
            sigma_mix=[1.0, 1.0],
            sigma_c=[1.0, 1.0],
            corr_mix=corr,
        )
    assert words in str(info.value)


def test_estimate_geometry_fills_the_projection_correlations():
    rng = np.random.default_rng(3)
    cores = np.array([[-6.0, 0.0, 0.0], [0.0, -6.0, 0.0], [4.0, 4.0, 0.0]])
    Z = np.vstack([rng.normal(c, 1.0, (300, 3)) for c in cores] + [rng.normal(0, 1.5, (300, 3))])
    y = np.r_[np.repeat([0, 1, 2], 300), rng.integers(0, 3, 300)]
    y_pred = np.r_[np.repeat([0, 1, 2], 300), (y[900:] + 1) % 3]
    g = estimate_geometry(Z, y, y_pred)
    errors = y_pred != y
    mu_mix = Z[errors].mean(axis=0)
    directions = np.vstack([mu_mix - Z[~errors & (y == c)].mean(axis=0) for c in range(3)])
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    cov = np.cov(Z[errors], rowvar=False, ddof=1)
    expected = directions @ cov @ directions.T
    expected /= np.outer(np.sqrt(np.diag(expected)), np.sqrt(np.diag(expected)))
    # Two summation orders over the 300 errors: each mean and covariance entry differs by at most
    # gamma(300) relative to the sums of |terms| (Higham eq. 4.4), which are within a factor 3 of
    # the values here (centres 6 apart, unit spread); the directions, the quadratic form and the
    # normalisation add a few roundings: |Δ| <= 10·gamma(300) = 3.3e-13 <= 1e-12.
    np.testing.assert_allclose(g.corr_mix, expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(
        g.sigma_mix, np.sqrt(np.diag(directions @ cov @ directions.T)), rtol=1e-12, atol=0
    )
    none = estimate_geometry(Z, y, y)  # no error: identity, and every method gives 0
    np.testing.assert_array_equal(none.corr_mix, np.eye(3))
    assert all(critical_lambda(none, m) == 0.0 for m in METHODS)


# --- Building blocks ---------------------------------------------------------------------------


@settings(max_examples=40)
@given(
    a=st.floats(0.0, 6.0) | st.just(0.0),
    b=st.floats(0.0, 6.0),
    rho=st.floats(-0.999, 0.999) | st.sampled_from([-1.0, 0.0, 1.0]),
)
# subnormal limits: the slopes (b - rho a)/(a s) underflowed and gave 1/4 instead of 1/3 (found by
# a randomised run); the ratio b/a overflowing to inf
@example(a=5e-324, b=5e-324, rho=0.5)
@example(a=1e-320, b=5.0, rho=0.2)
@example(a=5.0, b=1e-310, rho=-0.5)
# near rho = 1 the integrand steps from ~0 to phi(x) within s = sqrt(1 - rho^2) of x = b / rho;
# quad over [a, inf) stepped over it (1e-16 for 9.9e-10), so the reference splits there
@example(a=0.0, b=6.0, rho=0.999)
def test_bivariate_orthant_matches_quadrature(a, b, rho):
    """P(W1 > a, W2 > b) = integral over x > a of phi(x) Q((b - rho x)/sqrt(1 - rho^2))."""
    if abs(rho) == 1.0:
        expected = min(ndtr(-a), ndtr(-b)) if rho > 0 else max(ndtr(-a) + ndtr(-b) - 1.0, 0.0)
    else:
        s = math.sqrt(1.0 - rho * rho)

        def integrand(x):
            return math.exp(-0.5 * x * x) / math.sqrt(2 * math.pi) * ndtr(-(b - rho * x) / s)

        # split at the step (phi is below 1e-300 beyond x = 40, where nothing is left to miss)
        ends = [a, b / rho, np.inf] if rho > 0 and a < b / rho < 40.0 else [a, np.inf]
        pieces = [
            integrate.quad(integrand, lo, hi, epsabs=1e-14, epsrel=1e-12)
            for lo, hi in zip(ends[:-1], ends[1:], strict=True)
        ]
        expected = sum(value for value, _ in pieces)
        quad_error = sum(error for _, error in pieces)
    # Owen's formula: four terms <= 1/2, each to a few ulp (ndtr; scipy's owens_t, accurate to
    # double precision), and the slope (b/a - ρ)/s rounded with relative error <= gamma(4) + u/s²
    # (1 - ρ² cancels: s² >= 0.002 at |ρ| <= 0.999), moving T by <= |Δslope|/(2π(1 + slope²))
    # <= (gamma(4) + 500u)/(4π): in all <= 1e-13; plus quad's error estimates for the reference.
    tolerance = 1e-13 + quad_error if abs(rho) < 1.0 else 1e-13
    assert float(upper_orthant(np.float64(a), np.float64(b), np.float64(rho))) == pytest.approx(
        expected, rel=0, abs=tolerance
    )


def test_maximum_spanning_tree_weight():
    # A 4-cycle with a heavy chord: the best tree takes 5, 4 and 3 (hand computed; Kruskal).
    q = np.zeros((4, 4))
    for (i, j), w in {(0, 1): 1.0, (1, 2): 4.0, (2, 3): 2.0, (3, 0): 3.0, (0, 2): 5.0}.items():
        q[i, j] = q[j, i] = w
    assert max_spanning_tree_weight(q) == 12.0
    assert max_spanning_tree_weight(np.stack([q, 2 * q])).tolist() == [12.0, 24.0]


# --- Validity under the model (Monte Carlo) ------------------------------------------------------


@settings(max_examples=12)
@given(seed=seeds, C=st.integers(2, 7), extra=st.integers(0, 3))
def test_valid_bounds_hold_and_the_model_value_matches_under_the_model(seed, C, extra):
    rng = np.random.default_rng(seed)
    d = C + extra
    D, directions, cov = random_world(rng, C, d)
    g = model_geometry(D, directions, cov)
    errors = rng.multivariate_normal(np.zeros(d), cov, N_MC)
    r1 = float(captured(errors, np.zeros(d), -D[:, None] * directions).mean())
    boole, hw, exact = (
        capture_rate_bound(g, m) for m in ("boole", "hunter_worsley", "gaussian_exact")
    )
    # r1 ~ Binomial(N_MC, E[r1])/N_MC; each bound is <= E[r1] (one-sided, at the bound's p).
    assert r1 >= boole - band(boole)
    assert r1 >= hw - band(hw)
    # The model value is an orthant to T7 of its standard errors (then projected onto an
    # interval holding E[r1], which only brings it nearer); the share is within the band of the
    # true E[r1], which lies within that error of it.
    qmc = T7 * orthant(g.D / (2.0 * g.sigma_mix), g.corr_mix)[1]
    assert abs(r1 - exact) <= widest_band(exact, qmc) + qmc


@pytest.mark.parametrize("C", [2, 3])
def test_hunter_worsley_is_exact_for_two_classes_and_tight_for_three(C):
    rng = np.random.default_rng([7, C])
    D, directions, cov = random_world(rng, C, C + 1, 0.5, 2.0)
    g = model_geometry(D, directions, cov)
    exact, hw = capture_rate_bound(g, "gaussian_exact"), capture_rate_bound(g, "hunter_worsley")
    if C == 2:
        # Both are 1 - Q(a) - Q(b) + P(W1 > a, W2 > b) in closed form (Owen's T), each to 1e-13
        # (the bound derived in test_bivariate_orthant_matches_quadrature).
        assert hw == pytest.approx(exact, rel=0, abs=2e-13)
    else:
        # three boundaries: the model value is an orthant estimate, to T7 standard errors
        assert hw <= exact + T7 * orthant(g.D / (2.0 * g.sigma_mix), g.corr_mix)[1] + 2e-13
        assert capture_rate_bound(g, "boole") < hw


def test_c20_counterexample_union_fails_boole_and_hunter_worsley_hold():
    """Erratum r1_rigorous.loss_cover: C = 20 orthogonal boundaries, D/sigma = 4.

    E[r1] = (1 - p)^20 = 0.631 with p = erfc(sqrt 2)/2 (the proofs package's SymPy value), while
    the paper's union bound promises 0.842; the valid bounds stay below the measured capture.
    """
    C, snr = 20, 4.0
    g = model_geometry(np.full(C, snr), np.eye(C), np.eye(C))
    p = gaussian_tail(snr, 1.0)
    exact = (1.0 - p) ** C
    # 0.631 and 0.842 as printed, to three decimals: within half a unit of the last digit
    assert exact == pytest.approx(0.631, rel=0, abs=5e-4)
    assert capture_rate_bound(g, "union") == pytest.approx(0.842, rel=0, abs=5e-4)
    rng = np.random.default_rng(20261122)
    r1 = float(captured(rng.standard_normal((N_MC, C)), np.zeros(C), -snr * np.eye(C)).mean())
    assert abs(r1 - exact) <= band(exact)  # iid standard normals: Binomial(N_MC, exact) exactly
    # the paper's bound fails: it exceeds the share by more than the sampling band (0.21 > 0.021)
    assert capture_rate_bound(g, "union") - r1 > band(exact)
    assert capture_rate_bound(g, "gaussian") > r1 and capture_rate_bound(g, "chernoff") > r1
    # 1 - sum of C products w_c p_c (w_c to gamma(3)): |Δ| <= gamma(C + 4)·(1 + C p)
    assert capture_rate_bound(g, "boole") == pytest.approx(
        1.0 - C * p, rel=0, abs=gamma(C + 4) * (1 + C * p)
    )
    assert capture_rate_bound(g, "boole") <= capture_rate_bound(g, "hunter_worsley") <= r1
    # R = I: every factor of the separation of variables is a constant (standard error 0); the
    # product of C factors and the sums over the points round: |Δ| <= gamma(2C + 20) (see
    # test_orthant_of_independent_boundaries_is_the_product_of_phi)
    assert capture_rate_bound(g, "gaussian_exact") == pytest.approx(
        exact, rel=0, abs=gamma(2 * C + 20)
    )
    # ... and, as the erratum says, the union bound first fails at C = 8 at this D/sigma.
    fails = [
        capture_rate_bound(model_geometry(np.full(k, snr), np.eye(k), np.eye(k)), "union")
        > (1.0 - p) ** k
        for k in range(2, 21)
    ]
    assert fails.index(True) + 2 == 8 and all(fails[6:])


@settings(max_examples=8)
@given(seed=seeds, C=st.integers(2, 5))
def test_attractor_contamination_bound_holds_with_chance_correct_samples(seed, C):
    """r2 <= r̂2 (valid methods) when the attractor's samples are right by chance 1/C of the time.

    Clean cores of C classes plus an attractor whose labels and phase-1 predictions are
    independent and uniform: a 1/C share of it is correct by chance and lands in the attractor's
    cell, which the paper's r̂2 (clean cores only) ignores.
    """
    rng = np.random.default_rng(seed)
    d = C + 2
    directions = np.linalg.qr(rng.normal(size=(d, d)))[0][:C]
    D = rng.uniform(8.0, 12.0, C)
    n_core, n_att = 3000, 150 * C * C  # 150 chance-correct attractor samples per class
    Z = np.vstack(
        [rng.normal(-D[c] * directions[c], 1.0, (n_core, d)) for c in range(C)]
        + [rng.normal(0.0, 1.0, (n_att, d))]
    )
    y = np.r_[np.repeat(np.arange(C), n_core), rng.integers(0, C, n_att)]
    y_pred = np.r_[np.repeat(np.arange(C), n_core), rng.integers(0, C, n_att)]
    g = estimate_geometry(Z, y, y_pred)
    errors = y_pred != y
    cores = np.vstack([Z[~errors & (y == c)].mean(axis=0) for c in range(C)])
    in_cell = captured(Z, Z[errors].mean(axis=0), cores)
    r2 = float(in_cell[~errors].mean())
    n_correct = int((~errors).sum())
    # r2 is the share of the n_correct correct samples in the attractor's cell; given the cell,
    # the samples are independent, each captured with probability <= the bound: the count's
    # upper tail is at most the Binomial one at the bound, plus a count (Hoeffding 1956).
    for method in VALID:
        bound = contamination_rate_bound(g, method)
        assert r2 <= bound + band(bound, n_correct) + 1.0 / n_correct
    paper = contamination_rate_bound(g, "union")
    assert r2 > paper + band(paper, n_correct) + 1.0 / n_correct  # the paper's r̂2 fails


# --- Properties over random geometries -------------------------------------------------------


@st.composite
def model_geometries(draw):
    seed = draw(seeds)
    rng = np.random.default_rng(seed)
    C = draw(st.integers(2, 6))
    D, directions, cov = random_world(rng, C, C + draw(st.integers(0, 2)), 0.0, 8.0)
    pi = rng.dirichlet(np.ones(C))
    eps_c = rng.uniform(0.01, 0.6, C)
    g = model_geometry(D, directions, cov)
    return Geometry(
        eps=float(pi @ eps_c),
        pi=pi,
        eps_c=eps_c,
        D=g.D,
        sigma_mix=g.sigma_mix,
        sigma_c=rng.uniform(0.1, 5.0, C) * g.sigma_mix,
        corr_mix=g.corr_mix,
    )


@settings(max_examples=40)
@given(g=model_geometries())
def test_boole_le_hunter_worsley_le_exact_le_one(g):
    boole, hw, exact = (
        capture_rate_bound(g, m) for m in ("boole", "hunter_worsley", "gaussian_exact")
    )
    assert 0.0 <= boole <= hw <= exact <= 1.0
    lam = {m: critical_lambda(g, m) for m in ("boole", "hunter_worsley", "gaussian_exact")}
    assert all(0.0 <= v <= 1.0 for v in lam.values())
    # S is monotone in r1 in real arithmetic; each float S is within gamma(13) of it (derived
    # and checked against exact rationals in test_selectivity), so two may cross by 2·gamma(13)
    # (a randomised run found HW 0.4155221576139158 > exact 0.4155221576139157 at C = 2).
    ulps = 2 * gamma(13)
    assert lam["boole"] <= lam["hunter_worsley"] * (1 + ulps)
    assert lam["hunter_worsley"] <= lam["gaussian_exact"] * (1 + ulps)
    r2 = {m: contamination_rate_bound(g, m) for m in METHODS}
    assert all(0.0 <= v <= 1.0 for v in r2.values())
    assert r2["boole"] >= r2["union"]  # the chance-correct samples only add contamination


def test_gaussian_exact_never_below_hunter_worsley_when_they_meet():
    # Two boundaries with correlation near 1: E[r1] = hunter_worsley = 1 - max_c p_c in real
    # arithmetic, and hunter_worsley rounded an ulp above 1 - max_c p_c, to which the model value
    # was clipped (found by a randomised run of the test above; 337 of 3000 such geometries).
    r = 0.9998159755084624
    g = Geometry(
        eps=0.3,
        pi=[0.5, 0.5],
        eps_c=[0.3, 0.3],
        D=[5.826652389801878, 4.749015035405447],
        sigma_mix=[0.6737937957800101, 2.5354690060279417],
        sigma_c=[0.6737937957800101, 2.5354690060279417],
        corr_mix=[[1.0, r], [r, 1.0]],
    )
    assert capture_rate_bound(g, "hunter_worsley") <= capture_rate_bound(g, "gaussian_exact")


@settings(max_examples=30)
@given(g=model_geometries(), factor=st.floats(1.0, 4.0))
def test_valid_predictors_are_monotone_in_separation(g, factor):
    wider = Geometry(
        g.eps, g.pi, g.eps_c, g.D * factor, g.sigma_mix, g.sigma_c, corr_mix=g.corr_mix
    )
    # Monotone exactly. Each float r̂1 is within C·1e-13 (C - 1 Owen's T terms of the spanning
    # tree, derived in test_bivariate_orthant_matches_quadrature; the Boole part to gamma(C + 4)),
    # so two of them may cross by 2e-12 at C <= 6, and λ* by that times S's sensitivity to its
    # rates, plus S's own rounding (score_slack).
    rate_slack = 2e-12
    for method in ("boole", "hunter_worsley"):
        assert capture_rate_bound(wider, method) >= capture_rate_bound(g, method) - rate_slack
        r1, r2 = capture_rate_bound(g, method), contamination_rate_bound(g, method)
        slack = score_slack(float(g.eps), r1, r2, rate_slack)
        assert critical_lambda(wider, method) >= critical_lambda(g, method) - slack
    # the model value is a quasi-Monte Carlo estimate: monotone up to T7 of each one's errors
    qmc = T7 * sum(orthant(x.D / (2.0 * x.sigma_mix), x.corr_mix)[1] for x in (g, wider))
    assert capture_rate_bound(wider, "gaussian_exact") >= (
        capture_rate_bound(g, "gaussian_exact") - qmc - rate_slack
    )


def test_gaussian_exact_is_reproducible_bit_for_bit():
    rng = np.random.default_rng(11)
    D, directions, cov = random_world(rng, 5, 6, 0.5, 3.0)
    g = model_geometry(D, directions, cov)
    values = {capture_rate_bound(g, "gaussian_exact") for _ in range(3)}
    assert len(values) == 1


# --- The orthant probability of "gaussian_exact" (Genz's separation of variables) -------------


def orthant(h, R):
    """``P(W > -h)`` for one geometry and its standard error, from the batched orthant code.

    Tolerances: ``T7 = 42.75`` standard errors, P(|t_7| > T7) = 1e-9 (t with the 7 degrees of
    freedom of 8 scramblings), for fixed inputs too: the points are fixed, but a NumPy or SciPy
    that scrambles differently is a fresh draw (8 standard errors, 9e-5 a draw, made a
    randomised run fail about once in 1,000).
    """
    value, error = orthant_probability(
        np.asarray(h, float)[None, :], np.asarray(R, float)[None, :, :]
    )
    return float(value[0]), float(error[0])


def correlation(A):
    C = A @ A.T
    s = np.sqrt(np.diag(C))
    R = C / np.outer(s, s)
    np.fill_diagonal(R, 1.0)
    return 0.5 * (R + R.T)


@settings(max_examples=20)
@given(d=st.integers(3, 12), seed=seeds)
def test_orthant_of_independent_boundaries_is_the_product_of_phi(d, seed):
    # R = I: every factor of the separation of variables is a constant, so the result is exact.
    h = np.random.default_rng(seed).uniform(0.0, 4.0, d)
    value, error = orthant(h, np.eye(d))
    # d factors multiplied (gamma(2d) with the ratios) and 2048 x 8 equal values averaged
    # (pairwise sums of at most 20 levels): |Δ| <= gamma(2d + 20), and so is the spread
    assert value == pytest.approx(float(np.prod(ndtr(h))), rel=0, abs=gamma(2 * d + 20))
    assert error <= gamma(2 * d + 20)


def test_orthant_in_the_largest_supported_dimension():
    d = ORTHANT_MAX_CLASSES
    value, _ = orthant(np.full(d, 3.0), np.eye(d))
    # as in the test above: |Δ| <= gamma(2d + 20), plus the reference's power, gamma(d)
    assert value == pytest.approx(float(ndtr(3.0)) ** d, rel=0, abs=gamma(3 * d + 20))
    # Equicorrelated rho = 1/2 at h = 0: W_c = (Z_c - Z_0)/sqrt 2, so the orthant is the event
    # that Z_0 is the smallest of d + 1 exchangeable normals, probability 1/(d + 1).
    R = np.full((d, d), 0.5) + 0.5 * np.eye(d)
    value, error = orthant(np.zeros(d), R)
    assert error <= 2e-4  # the precision gaussian_exact promises at its largest dimension
    assert abs(value - 1.0 / (d + 1)) <= T7 * error


@pytest.mark.parametrize("d", [3, 4, 5, 6, 8])
def test_equicorrelated_half_orthant_is_one_over_d_plus_one(d):
    R = np.full((d, d), 0.5) + 0.5 * np.eye(d)
    value, error = orthant(np.zeros(d), R)
    assert error <= 1e-5  # the precision gaussian_exact promises in 3 to 8 dimensions
    assert abs(value - 1.0 / (d + 1)) <= T7 * error + 8 * U


@settings(max_examples=12)
@given(
    loadings=st.lists(st.floats(-0.95, 0.95), min_size=3, max_size=8),
    seed=seeds,
)
def test_one_factor_orthant_matches_quadrature(loadings, seed):
    """R_ij = l_i l_j: given the factor z, the W_i are independent, so
    P(W <= h) = integral of phi(z) prod_i Phi((h_i - l_i z)/sqrt(1 - l_i^2)) dz (to 1e-12)."""
    lam = np.asarray(loadings)
    h = np.random.default_rng(seed).uniform(0.0, 3.0, lam.size)
    R = np.outer(lam, lam)
    np.fill_diagonal(R, 1.0)
    s = np.sqrt(1.0 - lam * lam)

    def integrand(z):
        density = math.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
        return density * float(np.prod(ndtr((h - lam * z) / s)))

    expected, quad_error = integrate.quad(
        integrand, -40.0, 40.0, epsabs=1e-13, epsrel=1e-12, limit=200
    )
    value, error = orthant(h, R)
    # the precision gaussian_exact promises in 3 to 8 dimensions (worst of 2,400 draws: 4.8e-5)
    assert error <= 2e-4
    assert abs(value - expected) <= T7 * error + quad_error + 1e-13


@settings(max_examples=6)
@given(d=st.integers(3, 8), seed=seeds)
def test_orthant_matches_scipy_with_many_points(d, seed):
    """Against scipy's randomised lattice rule run to an absolute error of 1e-6 (up to 10^6 points)."""
    rng = np.random.default_rng(seed)
    R = correlation(rng.normal(size=(d, d + 4)))
    h = rng.uniform(0.0, 3.0, d)
    expected = multivariate_normal.cdf(
        h, mean=np.zeros(d), cov=R, maxpts=1_000_000, abseps=1e-6, releps=0.0, **SCIPY_RNG(rng)
    )
    value, error = orthant(h, R)
    # scipy's lattice rule stops at an error estimate of 1e-6, about 3 of its standard errors
    # (Genz and Bretz 2009, §4.2.2): 2e-5 is over 60 of them, P(exceeded) far below 1e-9
    assert abs(value - expected) <= T7 * error + 2e-5


@settings(max_examples=40)
@given(
    x=st.floats(-8.0, 8.0) | st.sampled_from([0.0, -np.inf, np.inf]),
    y=st.floats(-8.0, 8.0) | st.just(0.0),
    rho=st.floats(-0.999, 0.999) | st.sampled_from([-1.0, 0.0, 1.0]),
)
def test_bivariate_cdf_matches_quadrature(x, y, rho):
    """P(X <= x, Y <= y) = integral over t < x of phi(t) Phi((y - rho t)/sqrt(1 - rho^2))."""
    reference_error = 0.0
    if abs(rho) == 1.0:
        px, py = ndtr(x), ndtr(y)
        expected = min(px, py) if rho > 0 else max(px + py - 1.0, 0.0)
    elif x == -np.inf:
        expected = 0.0
    else:
        s = math.sqrt(1.0 - rho * rho)

        def integrand(t):
            return math.exp(-0.5 * t * t) / math.sqrt(2 * math.pi) * ndtr((y - rho * t) / s)

        expected, reference_error = integrate.quad(
            integrand, -np.inf, x, epsabs=1e-14, epsrel=1e-12
        )
    got = float(bivariate_cdf(np.float64(x), np.float64(y), np.float64(rho)))
    # Owen's formula to 1e-13 (derived in test_bivariate_orthant_matches_quadrature), plus the
    # reference's quadrature error estimate
    assert got == pytest.approx(expected, rel=0, abs=1e-13 + reference_error)


def test_orthant_with_a_singular_correlation_and_infinite_limits():
    # Boundaries 0 and 1 coincide (correlation 1): the orthant is the bivariate one of the
    # tighter of the two and boundary 2 (Owen's T, exact to rounding).
    R = np.array([[1.0, 1.0, 0.3], [1.0, 1.0, 0.3], [0.3, 0.3, 1.0]])
    h = np.array([0.5, 1.0, 0.7])
    exact = 1.0 - ndtr(-0.5) - ndtr(-0.7) + float(upper_orthant(0.5, 0.7, 0.3))
    value, error = orthant(h, R)
    assert abs(value - exact) <= T7 * error + 2e-13 and error <= 1e-5  # Owen's T: 1e-13 each
    # A rank-4 correlation of 5 boundaries against 4 iid variables: W = A Z, one draw of 2e6.
    rng = np.random.default_rng(20261122)
    A = rng.normal(size=(5, 4))
    A /= np.linalg.norm(A, axis=1, keepdims=True)
    h = np.array([0.8, 1.0, 0.6, 1.2, 0.9])
    value, error = orthant(h, A @ A.T)
    draws = rng.standard_normal((2_000_000, 4)) @ A.T
    mc = float(np.all(draws < h, axis=1).mean())
    qmc = T7 * error  # the share is Binomial at the true value, within qmc of ``value``
    assert abs(value - mc) <= widest_band(value, qmc, draws.shape[0]) + qmc
    # An infinite limit drops out (never crossed); a zero one stays (h = 0, rho = 1/2: 1/4).
    R = np.full((4, 4), 0.5) + 0.5 * np.eye(4)
    value, error = orthant([0.0, np.inf, 0.0, 0.0], R)
    assert abs(value - 0.25) <= T7 * error + 8 * U
    assert orthant([0.0, -np.inf, 0.0, 0.0], R) == (0.0, 0.0)  # a boundary always crossed
    assert orthant([np.inf] * 4, R) == (1.0, 0.0)


# (seed, noise level of the paper grid, P(W > -h)): scipy's multivariate_normal.cdf over the
# crossable boundaries with maxpts=20_000_000, abseps=1e-9, releps=0, rng=default_rng(0) (50-65 s
# each). Separation of variables with 2^22 points gave 0.9999802830667605, 0.2465910589295916 and
# 0.1539775189071946 (standard errors 1.5e-8, 2.3e-8, 1.6e-8): the two references differ by at most
# 8e-7, so the truth is known to about 1e-6 (both rules lose accuracy on these nearly singular
# correlations); the tolerance adds 2e-6, their spread rounded up with a factor 2.5.
SWEEP_ORTHANTS = [
    (10, 0, 0.9999803090840669),
    (13, 20, 0.2465902727904592),
    (17, 40, 0.15397751265159124),
]


@pytest.mark.parametrize(("seed", "level", "expected"), SWEEP_ORTHANTS)
def test_gaussian_exact_on_synthetic_sweep_geometries(seed, level, expected):
    """The nearly singular correlations of the synthetic sweep (smallest eigenvalue 3e-4 to 2e-3
    here), with the geometry estimated as simulations.sweep._fit_and_measure estimates it."""
    from simulations.gcul import GCUL
    from simulations.synthetic import make_dataset, noise_levels

    data = make_dataset(seed, float(noise_levels()[level]))
    model = GCUL().fit(data.X_train, data.y_train)
    g = estimate_geometry(data.X_train, data.y_train, model.phase1_.predict(data.X_train))
    h = g.D / (2.0 * g.sigma_mix)
    value, error = orthant(h, g.corr_mix)
    assert error <= 1e-4  # the precision gaussian_exact promises on the sweep's geometries
    assert abs(value - expected) <= T7 * error + 2e-6
    r1 = capture_rate_bound(g, "gaussian_exact")  # projected onto [hunter_worsley, 1 - max p]
    assert abs(r1 - expected) <= T7 * error + 2e-6


def test_orthant_bits_do_not_depend_on_the_batch():
    rng = np.random.default_rng(4)
    hs, Rs = [], []
    for d in (2, 3, 5, 5, 6):
        R = np.eye(6)
        R[:d, :d] = correlation(rng.normal(size=(d, d + 1)))
        h = np.full(6, np.inf)
        h[:d] = rng.uniform(0.0, 2.0, d)
        hs.append(h)
        Rs.append(R)
    batch, errors = orthant_probability(np.stack(hs), np.stack(Rs))
    for i, (h, R) in enumerate(zip(hs, Rs, strict=True)):
        alone, error = orthant_probability(h[None], R[None])
        assert alone[0] == batch[i] and error[0] == errors[i]  # bit for bit
    again, _ = orthant_probability(np.stack(hs), np.stack(Rs))
    assert np.array_equal(again, batch)


# --- The finite-sample option --------------------------------------------------------------------


def attractor_sample(rng, n_core=300, n_att=150, gap=5.0):
    cores = np.array([[-gap, 0.0], [gap, 0.0], [0.0, gap]])
    Z = np.vstack(
        [rng.normal(c, 1.0, (n_core, 2)) for c in cores] + [rng.normal(0, 1.0, (n_att, 2))]
    )
    y = np.r_[np.repeat([0, 1, 2], n_core), rng.integers(0, 3, n_att)]
    y_pred = np.r_[np.repeat([0, 1, 2], n_core), rng.integers(0, 3, n_att)]
    return Z, y, y_pred, cores


def test_finite_sample_bound_is_below_the_plug_in_and_monotone_in_delta():
    Z, y, y_pred, _ = attractor_sample(np.random.default_rng(5))
    results = [finite_sample_lambda(Z, y, y_pred, delta=d, n_boot=60) for d in (0.01, 0.05, 0.2)]
    assert [r.lambda_pre for r in results] == sorted(r.lambda_pre for r in results)
    for r in results:
        assert r.r1_lower < r.r1_model
        assert r.r2_upper == r.r2_upper_attractor > r.r2_model
        assert r.r2_upper_voronoi > r.r2_share
        assert r.n_errors + r.n_correct == len(y)
    again = finite_sample_lambda(Z, y, y_pred, delta=0.05, n_boot=60)
    assert again == results[1]  # rng=0 by default: reproducible


def test_finite_sample_bound_covers_a_fresh_pool_under_the_model():
    """P(fresh capture fraction < r1_lower or fresh contamination > r2_upper) <= delta.

    Over 30 training samples with delta = 0.05 the count of failures is Binomial(30, <= 0.05) if
    the guarantee holds, and at most ``binom.isf(1e-9, 30, 0.05) = 12`` are allowed
    (P(Binomial(30, 0.05) >= 13) = 9e-9 by the exact tail; ALPHA of ``_tolerances``). The
    earlier limit of 4 had P(more) = 0.016, a false failure in one seed of 64; 12 of 30 only
    detects failure rates above about 0.4 (tests/test_finite_sample.py checks high
    dimension with more trials).
    """
    rng = np.random.default_rng(2026)
    failures = 0
    for _ in range(30):
        Z, y, y_pred, cores = attractor_sample(rng)
        bound = finite_sample_lambda(Z, y, y_pred, n_boot=40, rng=rng)
        fresh = rng.normal(0.0, 1.0, (bound.n_errors, 2))
        # Errors are the attractor's samples labelled wrong; their law is the attractor's. The
        # centres the geometry estimates are the means of the correct samples: each core pulled
        # towards the attractor by its expected 150/9 chance-correct samples.
        centres = cores * 300.0 / (300.0 + 150.0 / 9.0)
        share = float(captured(fresh, np.zeros(2), centres).mean())
        # A fresh set of correct samples: the three cores and the chance-correct attractor ones.
        n_chance = rng.binomial(bound.n_correct, (150.0 / 3.0) / (900.0 + 150.0 / 3.0))
        correct = np.vstack(
            [rng.normal(0.0, 1.0, (n_chance, 2))]
            + [
                rng.normal(c, 1.0, (bound.n_correct - n_chance, 2))[i::3]
                for i, c in enumerate(cores)
            ]
        )
        contaminated = float(captured(correct, np.zeros(2), centres).mean())
        failures += (share < bound.r1_lower) or (contaminated > bound.r2_upper)
    assert failures <= binom.isf(ALPHA, 30, 0.05)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"delta": 0.0}, "delta"),
        ({"delta": 1.0}, "delta"),
        ({"n_boot": 5}, "n_boot"),
        ({"method": "union"}, "method"),
        ({"contamination": "paper"}, "contamination"),
    ],
)
def test_finite_sample_bad_arguments(kwargs, words):
    Z, y, y_pred, _ = attractor_sample(np.random.default_rng(1), n_core=20, n_att=20)
    with pytest.raises(ValueError, match=words):
        finite_sample_lambda(Z, y, y_pred, **kwargs)


def test_finite_sample_without_errors_is_vacuous():
    Z, y, _, _ = attractor_sample(np.random.default_rng(2), n_core=30, n_att=0)
    result = finite_sample_lambda(Z, y, y)
    assert (result.lambda_pre, result.r1_lower, result.r2_upper) == (0.0, 0.0, 1.0)


def test_public_names_are_exported():
    for name in ("PREDICTORS", "Predictor", "predictor", "finite_sample_lambda", "DEFAULT_METHOD"):
        assert name in gt.__all__
