"""Rate bounds, λ*_PRE and S_exist (gcul_theory._bounds): orderings, Monte Carlo, known limits.

The Monte Carlo tests draw Gaussian clusters in d dimensions under the lemma's own assumptions,
assign every point to its nearest centre (the Voronoi model of ``app:proof_voronoi``) and compare
the measured rates with the bounds inside a binomial band, over hypothesis-drawn seeds (no test
hinges on one lucky seed). Each band is the exact binomial one at a false-failure probability of
``ALPHA = 1e-9`` per check (``_tolerances``); this module makes at most 2·15 + 10 + 6·10 + 2 = 102
such checks a run (the examples are capped by ``@settings``, whatever the profile).
"""

from __future__ import annotations

import numpy as np
import pytest
from _tolerances import binomial_band, gamma
from hypothesis import given, settings
from hypothesis import strategies as st

from gcul_theory import (
    METHODS,
    Geometry,
    capture_rate_bound,
    chernoff_tail,
    contamination_rate_bound,
    critical_lambda,
    critical_lambda_from_rates,
    estimate_geometry,
    gaussian_tail,
    selectivity_score,
    structural_existence_confidence,
)

N_MC = 20_000
seeds = st.integers(0, 2**32 - 1)


def band(p: float, n: int = N_MC) -> float:
    """P(|share - p| > band) <= 1e-9 for a Binomial(n, p) share (exact quantiles)."""
    return binomial_band(p, n)


def random_spd(rng, d):
    a = rng.normal(size=(d, d))
    return a @ a.T / d + 0.2 * np.eye(d)


def nearest(points, centres):
    distances = ((points[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
    return distances.argmin(axis=1)


@st.composite
def geometries(draw):
    seed = draw(seeds)
    rng = np.random.default_rng(seed)
    C = draw(st.integers(2, 6))
    pi = rng.dirichlet(np.ones(C))
    eps_c = rng.uniform(0.0, 0.6, C)
    a = rng.normal(size=(C, C + 1))
    gram = a @ a.T
    scale = np.sqrt(np.diag(gram))
    corr = gram / np.outer(scale, scale)
    corr = 0.5 * (corr + corr.T)
    np.fill_diagonal(corr, 1.0)
    return Geometry(
        eps=float(pi @ eps_c),
        pi=pi,
        eps_c=eps_c,
        D=rng.uniform(0.0, 20.0, C),
        sigma_mix=rng.uniform(0.1, 5.0, C),
        sigma_c=rng.uniform(0.1, 5.0, C),
        corr_mix=corr,
    )


# --- Lemma projection_tails under its own assumptions -------------------------------------------


@settings(max_examples=15)
@given(seed=seeds, d=st.integers(2, 12), snr=st.floats(0.5, 6.0))
def test_measured_boundary_loss_and_contamination_match_the_lemma(seed, d, snr):
    rng = np.random.default_rng(seed)
    cov_mix, cov_c = random_spd(rng, d), random_spd(rng, d)
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    mu_mix = rng.normal(size=d)
    sigma_mix, sigma_c = np.sqrt(u @ cov_mix @ u), np.sqrt(u @ cov_c @ u)
    D = snr * sigma_mix
    mu_c = mu_mix - D * u
    centres = np.vstack([mu_mix, mu_c])
    errors = rng.multivariate_normal(mu_mix, cov_mix, N_MC)
    clean = rng.multivariate_normal(mu_c, cov_c, N_MC)
    lost = np.mean(nearest(errors, centres) == 1)
    captured_clean = np.mean(nearest(clean, centres) == 0)
    p_loss, q_contam = gaussian_tail(D, sigma_mix), gaussian_tail(D, sigma_c)
    # Each draw is lost independently with probability exactly p_loss (the lemma): Binomial.
    assert abs(lost - p_loss) <= band(p_loss)
    assert abs(captured_clean - q_contam) <= band(q_contam)


# --- The rate bounds where their assumptions hold ------------------------------------------------


@settings(max_examples=10)
@given(seed=seeds, snr=st.floats(1.0, 8.0), C=st.integers(2, 5))
def test_contamination_bound_holds_with_many_classes(seed, snr, C):
    """r2 <= r̂2: a clean sample is captured only if it is nearer the attractor than its own core."""
    rng = np.random.default_rng(seed)
    d = C + 1
    directions = np.linalg.qr(rng.normal(size=(d, d)))[0][:C]
    sigma = 1.0
    D = snr * sigma * rng.uniform(0.8, 1.2, C)
    mu_mix = np.zeros(d)
    cores = mu_mix - D[:, None] * directions
    n_clean = np.full(C, 4000)
    n_err = rng.integers(200, 800, C)
    clean = [rng.normal(cores[c], sigma, (n_clean[c], d)) for c in range(C)]
    assigned = nearest(np.vstack(clean), np.vstack([mu_mix, cores]))
    r2 = np.mean(assigned == 0)
    n = n_clean + n_err
    g = Geometry(
        eps=n_err.sum() / n.sum(),
        pi=n / n.sum(),
        eps_c=n_err / n,
        D=D,
        sigma_mix=np.full(C, sigma),
        sigma_c=np.full(C, sigma),
    )
    # The captured count is a sum of independent Bernoulli(q_c), q_c <= the bound's terms: its
    # upper tail is at most the Binomial one of the same mean, plus a count (binomial_band).
    r2_hat = contamination_rate_bound(g)
    assert r2 <= r2_hat + band(r2_hat, n_clean.sum()) + 1.0 / n_clean.sum()


@settings(max_examples=10)
@given(seed=seeds, snr=st.floats(1.0, 10.0), d=st.integers(2, 8))
def test_capture_bounds_hold_when_errors_face_a_single_boundary(seed, snr, d):
    """r1 >= r̂1 when every error belongs to one class whose core is the only one within reach.

    This is the two-cell situation the paper's proof counts (``app:proof_global_rate_bounds``):
    r̂1 (gaussian) is then E[r1] itself, and the Chernoff and union versions add slack.
    """
    rng = np.random.default_rng(seed)
    u = np.linalg.qr(rng.normal(size=(d, d)))[0][:2]
    sigma = 1.0
    D = np.array([snr * sigma, 60.0 * sigma])  # class 1's core is far out of reach
    mu_mix = np.zeros(d)
    cores = mu_mix - D[:, None] * u
    errors = rng.normal(mu_mix, sigma, (N_MC, d))
    r1 = np.mean(nearest(errors, np.vstack([mu_mix, cores])) == 0)
    g = Geometry(
        eps=0.1,
        pi=[0.5, 0.5],
        eps_c=[0.2, 0.0],
        D=D,
        sigma_mix=[sigma] * 2,
        sigma_c=[sigma] * 2,
        corr_mix=np.eye(2),  # orthonormal directions, isotropic pool
    )
    p = gaussian_tail(D[0], sigma)
    for method in METHODS:  # r1 ~ Binomial(N_MC, 1 - p)/N_MC, and every bound is <= 1 - p
        assert r1 >= capture_rate_bound(g, method) - band(1 - p)
    # Weights (1, 0) here: 1 - w·p with w = 1(1 + δ) to gamma(3) (frexp product and quotient)
    # and one rounding each for the product, the sum and the subtraction: |error| <= gamma(6).
    assert capture_rate_bound(g, "gaussian") == pytest.approx(1 - p, rel=0, abs=gamma(6))


# --- Where the assumptions fail: the bound breaks (documented, not hidden) ------------------------


def test_gaussian_capture_bound_overshoots_when_errors_can_leak_across_two_boundaries():
    """Erratum rate_bounds.r1: with two class cells the paper's weighted r̂1 exceeds E[r1].

    Two cores on opposite sides of one attractor: an error is lost across either boundary, so
    E[r1] = 1 - 2p while r̂1 = 1 - (p/2 + p/2) = 1 - p.
    """
    rng = np.random.default_rng(20261122)
    sigma, D = 1.0, 2.0
    mu_mix = np.zeros(2)
    cores = np.array([[-D, 0.0], [D, 0.0]])
    errors = rng.normal(mu_mix, sigma, (N_MC, 2))
    r1 = np.mean(nearest(errors, np.vstack([mu_mix, cores])) == 0)
    g = Geometry(
        eps=0.2,
        pi=[0.5, 0.5],
        eps_c=[0.2, 0.2],
        D=[D, D],
        sigma_mix=[sigma] * 2,
        sigma_c=[sigma] * 2,
    )
    p = gaussian_tail(D, sigma)
    assert abs(r1 - (1 - 2 * p)) <= band(2 * p)  # r1 ~ Binomial(N_MC, 1 - 2p)/N_MC exactly
    # the bound exceeds E[r1] by p = 0.16, the sampling band is 0.018: it fails for sure
    assert capture_rate_bound(g, "gaussian") - r1 > band(2 * p)


def test_bounds_break_when_errors_split_across_two_attractors():
    """Assumption ass:single_attractor fails: the paper's conclusion admits the bound then breaks.

    The error pool is two blobs, each sitting beside the other class's core; their mean (the
    estimated attractor) lies between the cores where no error is. Nearly every error is nearer a
    class core than the attractor (r1 ≈ 0), yet the estimated geometry promises r̂1 ≈ 0.69
    (gaussian) and ≈ 0.12 (chernoff); only the union bound stays valid, and only by being vacuous.
    """
    rng = np.random.default_rng(5)
    n = 2000
    Z = np.vstack(
        [
            rng.normal([-8.0, 0.0], 1.0, (n, 2)),  # class 0 core, correct
            rng.normal([8.0, 0.0], 1.0, (n, 2)),  # class 1 core, correct
            rng.normal([8.0, 6.0], 1.0, (n // 4, 2)),  # class-0 errors beside class 1
            rng.normal([-8.0, -6.0], 1.0, (n // 4, 2)),  # class-1 errors beside class 0
        ]
    )
    y = np.r_[np.zeros(n, int), np.ones(n, int), np.zeros(n // 4, int), np.ones(n // 4, int)]
    y_pred = np.r_[np.zeros(n, int), np.ones(n, int), np.ones(n // 4, int), np.zeros(n // 4, int)]
    g = estimate_geometry(Z, y, y_pred)
    errors = y_pred != y
    centres = np.vstack(
        [Z[errors].mean(axis=0), Z[~errors & (y == 0)].mean(0), Z[~errors & (y == 1)].mean(0)]
    )
    r1 = np.mean(nearest(Z[errors], centres) == 0)
    assert r1 < 0.01
    assert capture_rate_bound(g, "gaussian") > 0.6
    assert capture_rate_bound(g, "chernoff") > 0.1
    assert capture_rate_bound(g, "union") == 0.0
    assert critical_lambda(g, "gaussian") > 0.5  # predicts a pay-off that cannot happen


# --- Orderings and monotonicity over random geometries --------------------------------------------


@given(g=geometries())
def test_bound_orderings(g):
    gauss, union, chern = (capture_rate_bound(g, m) for m in ("gaussian", "union", "chernoff"))
    assert 0.0 <= union <= chern <= gauss <= 1.0
    assert 0.0 <= contamination_rate_bound(g) <= 1.0
    lam = {m: critical_lambda(g, m) for m in METHODS}
    assert all(0.0 <= v <= 1.0 for v in lam.values())
    # exact order r1 union <= chernoff <= gaussian; S is monotone in r1 exactly, and each float
    # S(ε, r1, r2) is within gamma(13) of it (derived and checked in test_selectivity)
    assert lam["union"] <= lam["chernoff"] <= lam["gaussian"] * (1 + 2 * gamma(13))
    assert union <= structural_existence_confidence(g) <= 1.0


@given(g=geometries(), factor=st.floats(1.0, 10.0))
def test_critical_lambda_grows_with_separation(g, factor):
    wider = Geometry(
        g.eps, g.pi, g.eps_c, g.D * factor, g.sigma_mix, g.sigma_c, corr_mix=g.corr_mix
    )
    for method in METHODS:
        # monotone exactly; the two float values each carry <= gamma(13) relative error (S's
        # bound, derived and checked in test_selectivity); λ* <= 1
        assert critical_lambda(wider, method) >= critical_lambda(g, method) - 2 * gamma(13)


@given(g=geometries())
def test_critical_lambda_is_the_score_at_the_bounds(g):
    from gcul_theory import selectivity_score

    for method in METHODS:
        r1, r2 = capture_rate_bound(g, method), contamination_rate_bound(g, method)
        expected = selectivity_score(float(g.eps), r1, r2) if r1 > r2 else 0.0
        # the same function of the same floats: equal to the last bit
        assert critical_lambda(g, method) == max(0.0, expected)


def test_structural_existence_confidence_tends_to_one_when_dense():
    base = dict(eps=0.2, pi=[0.5, 0.5], eps_c=[0.2, 0.2], sigma_c=[1.0, 1.0])
    values = [
        structural_existence_confidence(Geometry(**base, D=[1.0, 1.0], sigma_mix=[s, s]))
        for s in (1.0, 0.3, 0.1, 0.03)
    ]
    assert values == sorted(values)
    assert values[-1] == 1.0 - chernoff_tail(1.0, 0.03)
    assert values[-1] == 1.0  # the tail exp(-1/(8·0.03²)) = 1e-60 vanishes next to 1


def test_degenerate_error_rates_give_zero_lambda():
    none = Geometry(
        eps=0.0,
        pi=[0.5, 0.5],
        eps_c=[0.0, 0.0],
        D=[0.0, 0.0],
        sigma_mix=[0.0, 0.0],
        sigma_c=[0.0, 0.0],
        corr_mix=np.eye(2),  # as estimate_geometry fills it; the default method needs it
    )
    assert critical_lambda(none) == 0.0
    assert capture_rate_bound(none) == 0.0
    assert structural_existence_confidence(none) == 1.0
    assert contamination_rate_bound(none) == 0.0  # no attractor, nothing captured
    everything = Geometry(
        eps=1.0,
        pi=[0.5, 0.5],
        eps_c=[1.0, 1.0],
        D=[3.0, 3.0],
        sigma_mix=[1.0, 1.0],
        sigma_c=[1.0, 1.0],
        corr_mix=np.eye(2),
    )
    assert critical_lambda(everything) == 0.0
    assert contamination_rate_bound(everything) == 1.0


def test_bad_arguments():
    g = Geometry(
        eps=0.1,
        pi=[0.5, 0.5],
        eps_c=[0.1, 0.1],
        D=[4.0, 4.0],
        sigma_mix=[1.0, 1.0],
        sigma_c=[1.0, 1.0],
    )
    with pytest.raises(ValueError, match="method must be one of"):
        critical_lambda(g, "erf")
    with pytest.raises(TypeError, match="geometry must be a gcul_theory.Geometry"):
        critical_lambda({"eps": 0.1})
    with pytest.raises(ValueError, match="method"):
        contamination_rate_bound(g, "bogus")


# --- critical_lambda_from_rates: critical_lambda's last step, public -------------------------------


@settings(max_examples=30)
@given(g=geometries(), method=st.sampled_from(METHODS))
def test_critical_lambda_from_rates_is_critical_lambda_to_the_bit(g, method):
    # The sweep computes r1_hat and r2_hat once and combines them: the result must be the one
    # critical_lambda returns, bit for bit (results.csv is compared byte for byte).
    r1, r2 = capture_rate_bound(g, method), contamination_rate_bound(g, method)
    assert critical_lambda_from_rates(g.eps, r1, r2) == critical_lambda(g, method)


def test_critical_lambda_from_rates_defined_values_and_broadcasting():
    assert critical_lambda_from_rates(0.1, 0.2, 0.3) == 0.0  # r2_hat > r1_hat: nothing certified
    assert critical_lambda_from_rates(0.1, 0.5, 0.5) == 0.0
    assert critical_lambda_from_rates(0.0, 1.0, 0.0) == 0.0  # no error to reject
    assert critical_lambda_from_rates(1.0, 1.0, 0.0) == 0.0  # no correct sample to keep
    assert critical_lambda_from_rates(0.135, 1.0, 0.0) == 1.0  # the paper's sigma = 0 cell
    both = critical_lambda_from_rates([0.2, 0.2], 0.9, [0.05, 0.95])
    assert isinstance(both, np.ndarray) and both.shape == (2,) and both[1] == 0.0
    assert both[0] == selectivity_score(0.2, 0.9, 0.05)  # the same computation of S


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ((1.5, 0.5, 0.1), "eps"),
        ((0.1, -0.1, 0.1), "r1_hat"),
        ((0.1, 0.5, float("nan")), "r2_hat"),
        ((0.1, "x", 0.1), "r1_hat"),
        (([0.1, 0.2], [0.5, 0.5, 0.5], 0.1), "r1_hat"),
    ],
)
def test_critical_lambda_from_rates_refuses_by_name(args, words):
    with pytest.raises((TypeError, ValueError), match=words):
        critical_lambda_from_rates(*args)
