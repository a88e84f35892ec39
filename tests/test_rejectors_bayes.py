"""Tests for simulations.rejectors.bayes and simulations.synthetic.mixture.

The mixture is checked against the generator's own draws (exactly where the radius is 0, by exact
chi-square and binomial tails otherwise); the posterior against a hand computation in mpmath; the
Bayes rejector's optimality by a Monte Carlo test against every other rejector.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from _rejector_data import PAPER, cell
from _tolerances import ALPHA, U
from scipy import stats

from simulations.rejectors import REJECTORS, get_rejector
from simulations.rejectors.bayes import FittedBayes, log_posterior
from simulations.synthetic import Mixture, SyntheticConfig, make_dataset, mixture

# ----------------------------------------------------------------------------------------------
# The mixture is the generator's


@pytest.mark.parametrize("noise", [0.0, 3.2])
def test_mixture_centres_are_the_generators_draws(noise):
    config = SyntheticConfig(radius=0.0, n_per_class=40, n_confusion=40)
    law = mixture(7, noise, config)
    data = make_dataset(7, 0.0, config)  # radius 0 and no noise: every sample is its centre
    X = np.concatenate([data.X_train, data.X_test])
    y = np.concatenate([data.y_train_clean, data.y_test])
    confusion = np.concatenate([data.is_confusion_train, data.is_confusion_test])
    np.testing.assert_array_equal(X[~confusion], law.centers[y[~confusion]])
    np.testing.assert_array_equal(
        X[confusion], np.broadcast_to(law.confusion_center, X[confusion].shape)
    )
    np.testing.assert_array_equal(law.confusion_center, law.centers.mean(axis=0))
    assert law.spread == math.hypot(0.0, noise)
    # the centres do not depend on the sizes, the radius, the noise or the split
    other = mixture(7, 1.0, SyntheticConfig(n_per_class=5, n_confusion=0, test_fraction=0.5))
    np.testing.assert_array_equal(other.centers, law.centers)
    assert (other.n_per_class, other.n_confusion, other.radius, other.noise) == (5, 0, 1.5, 1.0)


def test_mixture_validates_like_make_dataset():
    with pytest.raises(ValueError, match="noise must be a finite number >= 0"):
        mixture(1, -1.0)
    with pytest.raises(TypeError, match="seed must be a non-negative int"):
        mixture(1.5, 1.0)
    with pytest.raises(TypeError, match="config must be a SyntheticConfig"):
        mixture(1, 1.0, {"n_classes": 3})


# Exact tails: 2 cells x 6 components x 2 statistics, each with false-failure probability
# DELTA = ALPHA = 1e-9; the label check below adds 5 binomial checks at DELTA: 29 of the suite's
# Monte Carlo checks (tests/_tolerances.py).
DELTA = ALPHA


@pytest.mark.parametrize("noise", [0.0, 5.0])
def test_test_split_follows_the_mixture(noise):
    config = SyntheticConfig(n_per_class=3000, n_confusion=3000)
    law = mixture(9, noise, config)
    data = make_dataset(9, noise, config)
    d = config.dim
    components = [(data.y_test == k) & ~data.is_confusion_test for k in range(5)]
    components.append(data.is_confusion_test)
    means = list(law.centers) + [law.confusion_center]
    spreads = [law.spread] * 5 + [law.confusion_spread]
    for rows, mean, spread in zip(components, means, spreads, strict=True):
        Z = (data.X_test[rows] - mean) / spread  # N(0, I) per row, if the law is right
        n = Z.shape[0]
        # given the split (independent of the features), sum ||Z||^2 ~ chi2(n d) exactly
        total = float(np.sum(Z**2))
        low, high = stats.chi2.ppf(DELTA / 2, n * d), stats.chi2.isf(DELTA / 2, n * d)
        assert low <= total <= high, (noise, total, n * d)
        # and n ||mean of Z||^2 ~ chi2(d) exactly
        assert n * float(np.sum(Z.mean(axis=0) ** 2)) <= stats.chi2.isf(DELTA, d)


def test_confusion_labels_are_uniform():
    config = SyntheticConfig(n_per_class=10, n_confusion=20000)
    data = make_dataset(4, 0.0, config)
    labels = np.concatenate(
        [data.y_train_clean[data.is_confusion_train], data.y_test[data.is_confusion_test]]
    )
    counts = np.bincount(labels, minlength=5)
    # each count is Binomial(20000, 1/5); exact quantiles: P(below low) < DELTA/2 and
    # P(above high) <= DELTA/2
    low, high = stats.binom.ppf(DELTA / 2, 20000, 1 / 5), stats.binom.isf(DELTA / 2, 20000, 1 / 5)
    assert np.all((low <= counts) & (counts <= high)), counts


# ----------------------------------------------------------------------------------------------
# The posterior


def _hand_posterior(law: Mixture, x: float) -> list[mpmath.mpf]:
    """P(y = k | x) for a one-dimensional law, with 50 significant digits."""
    mpmath.mp.dps = 50
    s2 = 2 * mpmath.mpf(law.spread) ** 2
    phi = [mpmath.exp(-((mpmath.mpf(x) - mpmath.mpf(c)) ** 2) / s2) for c in law.centers[:, 0]]
    phi_c = mpmath.exp(-((mpmath.mpf(x) - mpmath.mpf(law.confusion_center[0])) ** 2) / s2)
    K = len(phi)
    joint = [law.n_per_class * p + mpmath.mpf(law.n_confusion) / K * phi_c for p in phi]
    total = sum(joint)
    return [j / total for j in joint]


def test_posterior_of_a_two_class_toy_by_hand():
    config = SyntheticConfig(n_classes=2, dim=1, n_per_class=30, n_confusion=10)
    law = mixture(3, 0.8, config)
    spread = law.spread
    xs = [law.confusion_center[0] + t * spread for t in (-3.0, -1.0, -0.1, 0.0, 0.5, 2.0, 4.0)]
    xs += [law.centers[0, 0], law.centers[1, 0], 1e3 * spread, -1e3 * spread]
    X = np.array(xs)[:, None]
    ours = np.exp(log_posterior(law, X))
    sum_tolerance = []
    for i, x in enumerate(xs):
        hand = _hand_posterior(law, x)
        # Absolute errors of the log terms (u = 2**-53; D = (x - mu)**2 / 2s**2 <= D_max; the
        # log weights log 30 and log 5 below L = 3.5 in size): each quadratic term gamma(5) D
        # (difference, square, 2s**2, division), minus its log weight: 2u L (log) + u (D + L);
        # logaddexp with the confusion term: u |a - b| + 2u + u |result| <= 3u (D + L) + 2u;
        # so a joint term errs by e_J <= 9u D + 6u L + 2u. logsumexp over K = 2 of them adds
        # u max|a - a_max| + (K + 1)u + u |LSE| <= 3u (D + L) + 4u; the posterior exp(J - LSE)
        # is relatively off by e_J + e_LSE + u |J - LSE| (<= 2 (D + L)) + u (exp) + u (the
        # mpmath value rounded to float): 23u D + 17u L + 10u <= u (23 D_max + 70).
        D_max = max((x - c) ** 2 for c in [*law.centers[:, 0], law.confusion_center[0]]) / (
            2 * spread**2
        )
        tolerance = U * (23 * D_max + 70)
        # a result below the normal range (2**-1022) errs by half a subnormal ulp, both sides
        for k in range(2):
            assert abs(ours[k, i] - float(hand[k])) <= tolerance * float(hand[k]) + 2.0**-1074
        # the posteriors' sum: exp(LSE(J) - LSE_computed) times the terms' roundings: the
        # logsumexp error above, u |J - LSE| per term, the exps and the sum: u (5 D_max + 20)
        sum_tolerance.append(U * (5 * (D_max + 3.5) + 20))
    # far points: the densities underflow in float64, the posterior does not
    assert np.all(np.isfinite(ours))
    assert np.all(np.abs(ours.sum(axis=0) - 1.0) <= np.array(sum_tolerance))


def test_without_confusion_and_with_zero_spread():
    uniform = np.array([0.5, 0.5])
    law = Mixture(
        np.array([[0.0, 0.0], [2.0, 0.0]]), np.array([1.0, 0.0]), 1.0, 10, 0, 1.0, 0.0, 1.0, uniform
    )
    p = np.exp(log_posterior(law, np.array([[1.0, 5.0]])))
    # Both joint terms are the same float J = log 10 - 26/2 (equal distances), so only the
    # logsumexp's rounding moves exp(J - LSE) off 1/2: log 2 (u log 2) plus J (u |LSE|), the
    # subtraction (u log 2), the exp (u): u (|J| + 4) relative.
    np.testing.assert_allclose(p[:, 0], [0.5, 0.5], rtol=U * (13.0 - np.log(10.0) + 4))
    flat = law._replace(spread=0.0, radius=0.0)
    with pytest.raises(ValueError, match="the Bayes posterior needs a positive spread"):
        FittedBayes(flat)
    with pytest.raises(TypeError, match="law must be a simulations.synthetic.Mixture"):
        FittedBayes((1, 2))


def test_chow_rule_on_the_posterior():
    data, _, context = cell(16, 8.0, PAPER)
    fitted = get_rejector("bayes").fit(context)
    scores, labels = fitted.score_predict(data.X_test)
    p = np.exp(log_posterior(context.mixture, data.X_test))
    np.testing.assert_array_equal(labels, np.argmax(p, axis=0))
    for lam in (0.05, 0.15, 0.4):
        # accept compares the log posterior with log1p(-lam) (within 2u |log(1 - lam)|); here
        # exp of it (u) is compared with fl(1 - lam) (u): the two can disagree only where
        # |p - (1 - lam)| <= (1 - lam) u (2 |log(1 - lam)| + 3), within ulps of the threshold
        close = np.abs(p.max(axis=0) - (1 - lam)) <= (1 - lam) * U * (2 * abs(np.log1p(-lam)) + 4)
        accept = fitted.accept(data.X_test, lam)
        np.testing.assert_array_equal(accept[~close], p.max(axis=0)[~close] >= 1 - lam)


# ----------------------------------------------------------------------------------------------
# The floor: no rejector beats the posterior beyond noise

MC_CELLS = [(16, 2.0), (16, 8.0), (16, 14.0)]
MC_COVERAGES = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
MC_SAMPLES = 20000
N_CHECKS = len(MC_CELLS) * (len(REJECTORS) - 1) * len(MC_COVERAGES)  # 126 Monte Carlo checks
MC_DELTA = ALPHA  # per check (tests/_tolerances.py: the suite's total stays below 1e-6)


def draw(law: Mixture, n: int, rng: np.random.Generator):
    """n iid samples of the mixture, drawn as the generator does (component, then x, then y)."""
    K, d = law.centers.shape
    weights = np.array([law.n_per_class] * K + [law.n_confusion], dtype=float)
    component = rng.choice(K + 1, size=n, p=weights / weights.sum())
    means = np.concatenate([law.centers, law.confusion_center[None]])
    spreads = np.where(component < K, law.spread, law.confusion_spread)
    X = means[component] + spreads[:, None] * rng.standard_normal((n, d))
    pi = law.confusion_label_law
    uniform = bool(np.all(pi == pi[0]))  # the paper's labels: the draws this test always made
    labels = rng.integers(0, K, n) if uniform else rng.choice(K, size=n, p=pi)
    y = np.where(component < K, component, labels)
    return X, y


def top(scores: np.ndarray, m: int) -> np.ndarray:
    """Indices of the m highest scores (ties by index)."""
    return np.argsort(-scores, kind="stable")[:m]


@pytest.mark.parametrize(("seed", "noise"), MC_CELLS)
def test_no_rejector_beats_the_bayes_posterior(seed, noise):
    r"""Conditionally on the test features (and the training data), the test labels are
    independent draws of the posterior. For m accepted samples, let D = (errors of Bayes among
    its m top scores) - (errors of rejector r among its m top scores). E[D | X] <= 0: Bayes
    accepts the m largest P(correct | x) and predicts its argmax. D is a sum of independent
    terms, D_i in {-1, 0, 1} where both accept i with different labels (range 2), in {0, 1} or
    {-1, 0} where one of them accepts i (range 1), 0 elsewhere. Hoeffding:
    P(D >= t) <= exp(-2 t^2 / sum range_i^2); t is set so that this is MC_DELTA."""
    data, model, context = cell(seed, noise, PAPER)
    X, y = draw(context.mixture, MC_SAMPLES, np.random.default_rng([seed, 99]))
    bayes_scores, bayes_labels = get_rejector("bayes").fit(context).score_predict(X)
    bayes_wrong = bayes_labels != y
    for entry in REJECTORS:
        if entry.name == "bayes":
            continue
        scores, labels = entry.fit(context).score_predict(X)
        wrong = labels != y
        for coverage in MC_COVERAGES:
            m = int(round(coverage * MC_SAMPLES))
            B, R = np.zeros(MC_SAMPLES, bool), np.zeros(MC_SAMPLES, bool)
            B[top(bayes_scores, m)] = True
            R[top(scores, m)] = True
            D = int(np.count_nonzero(bayes_wrong & B)) - int(np.count_nonzero(wrong & R))
            both = B & R
            ranges = np.count_nonzero(B ^ R) + 4 * np.count_nonzero(both & (labels != bayes_labels))
            t = math.sqrt(ranges * math.log(1 / MC_DELTA) / 2)
            assert D <= t, (entry.name, coverage, D, t)
