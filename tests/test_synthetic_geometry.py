"""Tests for the confusion population's geometry (issue 26): SyntheticConfig's confusion_* fields,
the draws of simulations.synthetic and the Bayes posterior that follows them.

- The defaults are the old generator, array for array: make_dataset against the generator of
  aac7925 recomputed here from its streams.
- Each factor changes the data as stated: the confusion samples' mean and covariance against
  their closed forms (exact chi-square / Student tails on fixed seeds), the label counts against
  π (exact binomial tails), and every other draw untouched; each statistical check is shown to
  FAIL on samples of a wrongly implemented generator.
- The posterior of a moved, resized blob with a biased label law against mpmath at 50 digits,
  with the normalising constants written out (nothing cancelled).
- Validation: one-line errors naming the field; the sweep's cache key sees every field.

Monte Carlo budget (tests/_tolerances.py): 9 moment checks (3 configs x mean, variances,
correlations) and 3 label checks, each at false-failure probability ALPHA = 1e-9 when the
generator is right: 12 checks.
"""

from __future__ import annotations

import dataclasses
import math

import mpmath
import numpy as np
import pytest
from _tolerances import ALPHA, U
from scipy import stats

from simulations import synthetic
from simulations.rejectors.bayes import FittedBayes, log_posterior
from simulations.sweep.cache import cache_key
from simulations.synthetic import Mixture, SyntheticConfig, make_dataset, mixture

# ----------------------------------------------------------------------------------------------
# Helpers: the closed forms, computed here from the interface's words (not from the module)


def _stream(seed: int, stream: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(stream,)))


def _expected_center(centers: np.ndarray, shift: float, target: int) -> np.ndarray:
    """c̄ + t (c_τ - c̄)."""
    mean = centers.mean(axis=0)
    return mean + shift * (centers[target] - mean)


def _expected_law(centers: np.ndarray, center: np.ndarray, bias: float, m: int) -> np.ndarray:
    """π_k = (1 - b)/K + b 1[k in N_m]/m, N_m by Euclidean distance, ties by the smaller index."""
    K = centers.shape[0]
    distances = np.linalg.norm(centers - center, axis=1)
    nearest = sorted(range(K), key=lambda k: (distances[k], k))[:m]
    law = np.full(K, (1.0 - bias) / K)
    for k in nearest:
        law[k] += bias / m
    return law


def _confusion_rows(data) -> tuple[np.ndarray, np.ndarray]:
    """Features and clean labels of every confusion sample (both splits)."""
    X = np.concatenate([data.X_train[data.is_confusion_train], data.X_test[data.is_confusion_test]])
    y = np.concatenate(
        [data.y_train_clean[data.is_confusion_train], data.y_test[data.is_confusion_test]]
    )
    return X, y


def _moment_failures(X: np.ndarray, center: np.ndarray, spread: float) -> list[str]:
    """What of "the rows are iid N(center, spread² I)" the rows contradict, at ALPHA per check.

    Given the seed's centres, a confusion sample is center + a r z + σ g with z, g independent
    standard normals: exactly N(center, s_c² I), s_c² = (a r)² + σ², independently across
    samples (the split only permutes them). Three checks, each with false-failure probability
    ALPHA when that holds:

    - mean: n |x̄ - center|² / s_c² ~ chi²(d) exactly; fail above its 1 - ALPHA quantile;
    - variances: (n - 1) S_jj / s_c² ~ chi²(n - 1) exactly per coordinate; each two-sided at
      ALPHA / d (Bonferroni over the d coordinates);
    - isotropy: for j != k the sample correlation r_jk of two independent normal coordinates
      has r sqrt((n - 2)/(1 - r²)) ~ t(n - 2) exactly; each two-sided at ALPHA / (d(d-1)/2).
    """
    n, d = X.shape
    failures = []
    mean_stat = n * float(np.sum((X.mean(axis=0) - center) ** 2)) / spread**2
    if mean_stat > stats.chi2.isf(ALPHA, d):
        failures.append(f"mean: chi2 = {mean_stat:.1f} on {d} dof")
    variance_stat = (n - 1) * X.var(axis=0, ddof=1) / spread**2
    share = ALPHA / d
    low, high = stats.chi2.ppf(share / 2, n - 1), stats.chi2.isf(share / 2, n - 1)
    if np.any((variance_stat < low) | (variance_stat > high)):
        ratio = X.var(axis=0, ddof=1) / spread**2
        failures.append(f"variance / s_c^2 in [{ratio.min():.4f}, {ratio.max():.4f}]")
    corr = np.corrcoef(X, rowvar=False)[np.triu_indices(d, 1)]
    t_stat = np.abs(corr) * math.sqrt(n - 2) / np.sqrt(1 - corr**2)
    if np.any(t_stat > stats.t.isf(ALPHA / corr.size / 2, n - 2)):
        failures.append(f"correlation up to {np.abs(corr).max():.4f}")
    return failures


def _label_failures(y: np.ndarray, law: np.ndarray) -> list[str]:
    """Whether the label counts contradict iid labels of law π: each count is Binomial(n, π_k)
    exactly; exact two-sided quantiles at ALPHA / K each (Bonferroni): false-failure
    probability at most ALPHA. (π_k = 0 or 1 make the band a point: the count must be exact.)"""
    n, K = y.size, law.size
    counts = np.bincount(y, minlength=K)
    share = ALPHA / K
    low = stats.binom.ppf(share / 2, n, law)
    high = stats.binom.isf(share / 2, n, law)
    bad = (counts < low) | (counts > high)
    return [f"class {k}: {counts[k]} of {n}, pi = {law[k]:.4f}" for k in np.flatnonzero(bad)]


BIG = dict(n_per_class=20, n_confusion=20000)  # 20,000 confusion samples; the classes are few

# (config, σ): a grown, moved blob with noise; a shrunk blob on a centre without noise; the
# default geometry with noise (its law must still be the paper's)
MOMENT_CASES = [
    (
        SyntheticConfig(**BIG, confusion_radius_ratio=2.5, confusion_shift=0.6, confusion_target=2),
        1.2,
    ),
    (
        SyntheticConfig(**BIG, confusion_radius_ratio=0.3, confusion_shift=1.0, confusion_target=4),
        0.0,
    ),
    (SyntheticConfig(**BIG), 2.0),
]


# ----------------------------------------------------------------------------------------------
# The defaults are the old generator


def _old_make_dataset(seed: int, noise: float, config: SyntheticConfig) -> tuple:
    """make_dataset as aac7925 wrote it (blob at the centres' mean, radius r, uniform labels),
    from the same streams: the arrays the defaults must reproduce bit for bit."""
    K, d, r = config.n_classes, config.dim, config.radius
    n_clean, n_conf, n_total = K * config.n_per_class, config.n_confusion, config.n_total
    centers = _stream(seed, 0).uniform(-config.center_scale, config.center_scale, (K, d))
    y_pop = np.repeat(np.arange(K, dtype=np.int64), config.n_per_class)
    X_pop = centers[y_pop] + r * _stream(seed, 1).standard_normal((n_clean, d))
    rng_conf = _stream(seed, 2)
    X_conf = centers.mean(axis=0) + r * rng_conf.standard_normal((n_conf, d))
    y_conf = rng_conf.integers(0, K, size=n_conf, dtype=np.int64)
    X, y = np.concatenate([X_pop, X_conf]), np.concatenate([y_pop, y_conf])
    is_conf = np.arange(n_total) >= n_clean
    G = _stream(seed, 4).standard_normal((n_total, d))
    flip_u = _stream(seed, 5).random(n_total)
    flip_target = (y + _stream(seed, 6).integers(1, K, size=n_total, dtype=np.int64)) % K
    rng_test = _stream(seed, 7)
    test_u = rng_test.random(n_total)
    test_target = (y + rng_test.integers(1, K, size=n_total, dtype=np.int64)) % K
    order = _stream(seed, 3).permutation(n_total)
    test, train = order[: config.n_test], order[config.n_test :]
    p = config.flip_per_noise * noise
    flipped = flip_u[train] < p
    return (
        X[train] + noise * G[train],
        np.where(flipped, flip_target[train], y[train]),
        X[test] + noise * G[test],
        y[test],
        y[train],
        is_conf[train],
        is_conf[test],
        flipped,
        np.where(test_u[test] < p, test_target[test], y[test]),
    )


@pytest.mark.parametrize(
    "config",
    [
        SyntheticConfig(),
        SyntheticConfig(n_classes=3, dim=2, radius=2, n_per_class=50, n_confusion=70),
        # t = 0 and b = 0 leave the target and m without effect: still the old data
        SyntheticConfig(
            n_per_class=300,
            n_confusion=300,
            confusion_radius_ratio=1.0,
            confusion_shift=0.0,
            confusion_target=3,
            confusion_label_bias=0.0,
            confusion_label_classes=5,
        ),
    ],
)
@pytest.mark.parametrize(("seed", "noise"), [(16, 0.0), (10, 3.2)])
def test_defaults_are_the_old_generator(config, seed, noise):
    ours = make_dataset(seed, noise, config)
    arrays = [name for name in ours._fields if name != "mixture"]  # the law is not a sample
    for name, old in zip(arrays, _old_make_dataset(seed, noise, config), strict=True):
        assert getattr(ours, name).dtype == old.dtype, name
        np.testing.assert_array_equal(getattr(ours, name), old, err_msg=name)
    law = mixture(seed, noise, config)
    np.testing.assert_array_equal(law.confusion_center, law.centers.mean(axis=0))
    assert law.confusion_spread == law.spread == math.hypot(config.radius, noise)
    np.testing.assert_array_equal(
        law.confusion_label_law, np.full(config.n_classes, 1 / config.n_classes)
    )


# ----------------------------------------------------------------------------------------------
# Each factor changes the data as stated


@pytest.mark.parametrize(("config", "noise"), MOMENT_CASES)
def test_confusion_moments_are_the_closed_forms(config, noise):
    seed = 31
    data = make_dataset(seed, noise, config)
    X, _ = _confusion_rows(data)
    assert X.shape[0] == config.n_confusion
    law = mixture(seed, noise, config)
    center = _expected_center(law.centers, config.confusion_shift, config.confusion_target)
    spread = math.sqrt((config.confusion_radius_ratio * config.radius) ** 2 + noise**2)
    assert _moment_failures(X, center, spread) == []
    # the Mixture states the same law: the centre up to the rounding of c̄ + t (c_τ - c̄) against
    # (1 - t) c̄ + t c_τ (a few ulps of the largest |c|: 4u S), the spread to hypot's 1 ulp
    np.testing.assert_allclose(
        law.confusion_center, center, rtol=0, atol=4 * U * config.center_scale
    )
    assert law.confusion_spread == pytest.approx(spread, rel=2 * U)
    if config.confusion_shift == 1.0:  # exactly on the target's centre
        np.testing.assert_array_equal(law.confusion_center, law.centers[config.confusion_target])


def test_moment_checks_fail_on_wrong_generators():
    """The checks above are not vacuous: samples of a generator that gets one factor wrong fail
    them. Each wrong generator is realised as the right one at the wrong value (the ratio applied
    twice, a², the shift applied twice, t², the wrong target, the radius left unscaled, the
    noise left out of the spread). On these seeds the closest call is the noise left out: its
    variance ratios are 0.90-0.92 where the band is 1 ± 0.064 and one standard error 0.01, so 8
    standard errors out; the others are further (the mean's chi² at 150 to 216,000 on 10 dof)."""
    config, noise = MOMENT_CASES[0]
    seed = 31
    a, t, tau = config.confusion_radius_ratio, config.confusion_shift, config.confusion_target
    law = mixture(seed, noise, config)
    center = _expected_center(law.centers, t, tau)
    spread = math.hypot(a * config.radius, noise)
    wrong = {
        "ratio applied twice": (dataclasses.replace(config, confusion_radius_ratio=a * a), noise),
        "shift applied twice": (dataclasses.replace(config, confusion_shift=t * t), noise),
        "wrong target": (dataclasses.replace(config, confusion_target=(tau + 1) % 5), noise),
        "radius not scaled": (dataclasses.replace(config, confusion_radius_ratio=1.0), noise),
    }
    for name, (wrong_config, wrong_noise) in wrong.items():
        X, _ = _confusion_rows(make_dataset(seed, wrong_noise, wrong_config))
        assert _moment_failures(X, center, spread) != [], name
    # the noise left out of the confusion spread: rows without σ g, held against s_c
    X, _ = _confusion_rows(make_dataset(seed, 0.0, config))
    assert _moment_failures(X, center, spread) != []


LABEL_CASES = [
    # biased toward the 2 classes nearest a moved blob
    SyntheticConfig(**BIG, confusion_shift=0.5, confusion_target=1, confusion_label_bias=0.7),
    # every label on the single nearest class (π is a point mass: the counts are exact)
    SyntheticConfig(
        **BIG, confusion_radius_ratio=0.5, confusion_label_bias=1.0, confusion_label_classes=1
    ),
    # m = K: biased "toward" every class, which is the uniform law again
    SyntheticConfig(**BIG, confusion_label_bias=0.3, confusion_label_classes=5),
]


@pytest.mark.parametrize("config", LABEL_CASES)
def test_confusion_labels_follow_the_law(config):
    seed = 8
    data = make_dataset(seed, 0.4, config)
    _, y = _confusion_rows(data)
    law = mixture(seed, 0.4, config)
    expected = _expected_law(
        law.centers,
        law.confusion_center,
        config.confusion_label_bias,
        config.confusion_label_classes,
    )
    # π_k is (1 - b)/K + b/m or (1 - b)/K: three roundings each, both ways
    np.testing.assert_allclose(law.confusion_label_law, expected, rtol=4 * U, atol=0)
    assert math.fsum(law.confusion_label_law) == pytest.approx(1.0, abs=(5 + 2) * U)
    assert _label_failures(y, expected) == []


def test_label_checks_fail_on_wrong_generators():
    """A generator that relabels iff u > b (the law with 1 - b), or that takes N_m from the
    unmoved centre, fails the label check: the count of a favoured class is off by more than
    40 binomial standard errors (n = 20,000)."""
    config = LABEL_CASES[0]
    seed = 8
    law = mixture(seed, 0.4, config)
    expected = _expected_law(law.centers, law.confusion_center, 0.7, 2)
    flipped = dataclasses.replace(config, confusion_label_bias=0.3)
    _, y = _confusion_rows(make_dataset(seed, 0.4, flipped))
    assert _label_failures(y, expected) != []
    unmoved_law = _expected_law(law.centers, law.centers.mean(axis=0), 0.7, 2)
    assert not np.array_equal(unmoved_law, expected)  # this seed's nearest classes do move
    _, y = _confusion_rows(make_dataset(seed, 0.4, config))
    assert _label_failures(y, unmoved_law) != []


def test_nearest_classes_ties_go_to_the_smaller_index():
    config = SyntheticConfig(
        n_classes=4, dim=2, confusion_label_bias=1.0, confusion_label_classes=2
    )
    square = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])  # all at 1 from c̄ = 0
    center, nearest, law = synthetic._confusion_geometry(square, config)
    np.testing.assert_array_equal(center, [0.0, 0.0])
    assert nearest.tolist() == [0, 1]
    assert law.tolist() == [0.5, 0.5, 0.0, 0.0]
    moved = dataclasses.replace(config, confusion_shift=0.5, confusion_target=2)
    center, nearest, _ = synthetic._confusion_geometry(square, moved)
    np.testing.assert_array_equal(center, [-0.5, 0.0])
    assert nearest.tolist() == [2, 1]  # 0.5 from class 2, then classes 1 and 3 tie: 1 first


def test_each_factor_touches_only_its_own_draws():
    """Common random numbers: the geometry moves the confusion features (ratio, shift) or the
    confusion labels (bias) and nothing else; the class samples, the split, the feature noise and
    the flip uniforms are the default's."""
    base = SyntheticConfig(n_per_class=200, n_confusion=400)
    seed, noise = 5, 2.0
    default = make_dataset(seed, noise, base)
    geometry = dataclasses.replace(
        base, confusion_radius_ratio=1.7, confusion_shift=0.4, confusion_target=3
    )
    labels = dataclasses.replace(base, confusion_label_bias=0.6, confusion_label_classes=3)
    for config, features_move, labels_move in ((geometry, True, False), (labels, False, True)):
        data = make_dataset(seed, noise, config)
        np.testing.assert_array_equal(data.is_confusion_train, default.is_confusion_train)
        np.testing.assert_array_equal(data.is_confusion_test, default.is_confusion_test)
        for split in ("train", "test"):
            conf = getattr(default, f"is_confusion_{split}")
            X, X0 = getattr(data, f"X_{split}"), getattr(default, f"X_{split}")
            y_name = "y_train_clean" if split == "train" else "y_test"
            y, y0 = getattr(data, y_name), getattr(default, y_name)
            np.testing.assert_array_equal(X[~conf], X0[~conf])
            np.testing.assert_array_equal(y[~conf], y0[~conf])
            assert np.all(np.any(X[conf] != X0[conf], axis=1)) == features_move
            if not features_move:
                np.testing.assert_array_equal(X[conf], X0[conf])
            if labels_move:
                # a label is redrawn iff u < b: some (about b (1 - 1/m) of them) change
                assert 0 < np.count_nonzero(y[conf] != y0[conf]) < conf.sum()
            else:
                np.testing.assert_array_equal(y[conf], y0[conf])
        # the flips are the same uniforms: the same training rows flip
        np.testing.assert_array_equal(data.flipped_train, default.flipped_train)


def test_confusion_share():
    config = SyntheticConfig(n_per_class=300, n_confusion=500)
    assert config.confusion_share == 500 / 2000
    data = make_dataset(1, 0.0, config)
    assert int(data.is_confusion_train.sum() + data.is_confusion_test.sum()) == 500
    assert SyntheticConfig(n_confusion=0).confusion_share == 0.0


# ----------------------------------------------------------------------------------------------
# The Bayes posterior of the new law against an independent computation


def _mp_posterior(law: Mixture, x: np.ndarray) -> list[mpmath.mpf]:
    """P(y = k | x) at 50 digits from the densities themselves, normalising constants included:
    n_pc N(x; c_k, s² I) + n_conf π_k N(x; c_conf, s_c² I), over the sum across k."""
    mpmath.mp.dps = 50
    d = x.size
    point = [mpmath.mpf(float(v)) for v in x]

    def density(mean, spread):
        s2 = mpmath.mpf(float(spread)) ** 2
        squared = mpmath.fsum(
            (p - mpmath.mpf(float(m))) ** 2 for p, m in zip(point, mean, strict=True)
        )
        return (2 * mpmath.pi * s2) ** (-mpmath.mpf(d) / 2) * mpmath.exp(-squared / (2 * s2))

    blob = density(law.confusion_center, law.confusion_spread)
    joint = [
        law.n_per_class * density(c, law.spread) + law.n_confusion * mpmath.mpf(float(p)) * blob
        for c, p in zip(law.centers, law.confusion_label_law, strict=True)
    ]
    total = mpmath.fsum(joint)
    return [j / total for j in joint]


POSTERIOR_CASES = [
    # moved and grown blob, uniform labels (s_c != s: the normalising constants do not cancel)
    (
        SyntheticConfig(
            n_per_class=300,
            n_confusion=600,
            confusion_radius_ratio=2.0,
            confusion_shift=0.7,
            confusion_target=1,
        ),
        1.0,
    ),
    # moved and shrunk blob with a biased label law, no noise
    (
        SyntheticConfig(
            n_per_class=300,
            n_confusion=600,
            confusion_radius_ratio=0.4,
            confusion_shift=0.3,
            confusion_target=4,
            confusion_label_bias=0.8,
        ),
        0.0,
    ),
    # the blob's labels all on its nearest class (π has zeros: weights of -inf), same radius
    (
        SyntheticConfig(
            n_per_class=300, n_confusion=900, confusion_label_bias=1.0, confusion_label_classes=1
        ),
        2.4,
    ),
]


@pytest.mark.parametrize(("config", "noise"), POSTERIOR_CASES)
def test_posterior_of_the_new_geometry_against_mpmath(config, noise):
    seed = 12
    law = mixture(seed, noise, config)
    data = make_dataset(seed, noise, config)
    K, d = law.centers.shape
    # points: confusion and class test samples, the blob's centre, each class centre, and two far
    # points where every float64 density underflows
    conf_rows = data.X_test[data.is_confusion_test][:12]
    class_rows = data.X_test[~data.is_confusion_test][:8]
    far = law.confusion_center + np.array([[300.0] * d, [-250.0] + [0.0] * (d - 1)])
    X = np.concatenate([conf_rows, class_rows, law.confusion_center[None], law.centers, far])
    ours = np.exp(log_posterior(law, X))
    # Error bound (u = 2**-53). Every log term J_k = logaddexp(a_k, b_k) with
    # a_k = log n_pc - D_k / 2s² and b_k = log n_conf + log π_k - d log(s_c / s) - D_c / 2s_c²:
    # a squared distance of d terms errs by gamma(d + 2) relative (differences, squares, sum),
    # 2s² by 4u, the quotient by u: (d + 8)u Q with Q = D / 2s²; each log by u |log|, each sum
    # by u |result|; d log(s_c / s) by d (3u) more (two hypots and the quotient under the log);
    # logaddexp adds u |a - b| + 2u. With T = max over components of Q plus
    # L = |log n| + |log π_k| + d |log(s_c / s)| (the terms' sizes), |error of J_k| <=
    # (d + 8)u T + 4u T + 3du + 2u = (d + 12)u T + (3d + 2)u. logsumexp over K terms adds the
    # same plus u |J - J_max| + (K + 1)u + u |LSE| <= 2u T + (K + 1)u; exp(J - LSE) is then
    # relatively off by the two, u |J - LSE| <= 2u T, the exp's u and the reference's rounding
    # to float, u: (2d + 30)u T + (6d + K + 7)u.
    logs = np.log([law.n_per_class, law.n_confusion])
    with np.errstate(divide="ignore"):
        log_pi = np.abs(np.log(law.confusion_label_law))
    log_pi = np.max(log_pi[np.isfinite(log_pi)])
    size = logs.max() + log_pi + d * abs(math.log(law.confusion_spread / law.spread))
    for i, x in enumerate(X):
        Q = max(
            float(np.max(np.sum((x - law.centers) ** 2, axis=1))) / (2 * law.spread**2),
            float(np.sum((x - law.confusion_center) ** 2)) / (2 * law.confusion_spread**2),
        )
        tolerance = U * ((2 * d + 30) * (Q + size) + 6 * d + K + 7)
        reference = _mp_posterior(law, x)
        for k in range(K):
            # a result below the normal range (2**-1022) errs by half a subnormal ulp, both sides
            assert (
                abs(ours[k, i] - float(reference[k]))
                <= tolerance * float(reference[k]) + 2.0**-1074
            ), (i, k)
    # the old posterior (the blob at c̄, radius r, uniform labels) is measurably another one
    old = law._replace(
        confusion_center=law.centers.mean(axis=0),
        confusion_spread=law.spread,
        confusion_label_law=np.full(K, 1 / K),
    )
    assert np.max(np.abs(np.exp(log_posterior(old, conf_rows)) - ours[:, :12])) > 0.01


def test_fitted_bayes_refuses_a_law_that_is_not_a_law():
    law = mixture(3, 1.0, SyntheticConfig(n_per_class=20, n_confusion=20))
    with pytest.raises(ValueError, match="positive confusion_spread when n_confusion > 0"):
        FittedBayes(law._replace(confusion_spread=0.0))
    for bad in (np.full(4, 0.25), np.array([0.5, 0.5, 0.5, -0.5, 0.0]), np.full(5, 0.3)):
        with pytest.raises(
            ValueError, match=r"confusion_label_law must be a probability vector of shape \(5,\)"
        ):
            FittedBayes(law._replace(confusion_label_law=bad))
    FittedBayes(law._replace(confusion_spread=0.0, n_confusion=0))  # no blob, no blob spread


def test_fitted_bayes_refuses_a_blob_spread_whose_square_underflows():
    # a = 1e-200 at sigma = 0: s_c = 1.5e-200 > 0, but 2 s_c**2 is 0 in float64, so the posterior
    # would divide by zero (and 0/0 at the blob's centre); refused like a point mass
    config = SyntheticConfig(n_per_class=20, n_confusion=20, confusion_radius_ratio=1e-200)
    law = mixture(3, 0.0, config)
    assert law.confusion_spread > 0.0 and 2.0 * law.confusion_spread**2 == 0.0
    with pytest.raises(ValueError, match="positive confusion_spread when n_confusion > 0") as got:
        FittedBayes(law)
    assert "underflow" in str(got.value) and "\n" not in str(got.value)
    FittedBayes(mixture(3, 0.5, config))  # any noise makes it a spread again
    # the classes' spread likewise (radius 1e-200 at sigma = 0)
    tiny = mixture(3, 0.0, SyntheticConfig(n_per_class=20, n_confusion=0, radius=1e-200))
    with pytest.raises(ValueError, match="positive spread .* whose square does not underflow"):
        FittedBayes(tiny)


# ----------------------------------------------------------------------------------------------
# Validation and the sweep's cache


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (
            {"confusion_radius_ratio": 0.0},
            ValueError,
            r"^confusion_radius_ratio must be in \(0, inf\); got 0.0$",
        ),
        ({"confusion_radius_ratio": -2.0}, ValueError, "confusion_radius_ratio"),
        ({"confusion_radius_ratio": math.inf}, ValueError, "confusion_radius_ratio"),
        ({"confusion_radius_ratio": math.nan}, ValueError, "confusion_radius_ratio"),
        (
            {"confusion_radius_ratio": "2"},
            TypeError,
            "^confusion_radius_ratio must be a real number",
        ),
        ({"confusion_shift": 1.5}, ValueError, r"^confusion_shift must be in \[0, 1\]; got 1.5$"),
        ({"confusion_shift": -0.1}, ValueError, "confusion_shift"),
        ({"confusion_shift": None}, TypeError, "confusion_shift"),
        ({"confusion_shift": True}, TypeError, "confusion_shift"),
        (
            {"confusion_target": 7},
            ValueError,
            r"^confusion_target must be an integer in \[0, 4\]; got 7 \(a class index: n_classes is 5\)$",
        ),
        ({"confusion_target": -1}, ValueError, "confusion_target"),
        ({"confusion_target": 1.0}, TypeError, "confusion_target"),
        (
            {"n_classes": 3, "confusion_target": 3},
            ValueError,
            r"confusion_target must be an integer in \[0, 2\]",
        ),
        (
            {"confusion_label_bias": 1.01},
            ValueError,
            r"^confusion_label_bias must be in \[0, 1\]; got 1.01$",
        ),
        ({"confusion_label_bias": math.nan}, ValueError, "confusion_label_bias"),
        ({"confusion_label_bias": "0.5"}, TypeError, "confusion_label_bias"),
        (
            {"confusion_label_classes": 0},
            ValueError,
            r"^confusion_label_classes must be an integer in \[1, 5\]; got 0 \(a number of classes: n_classes is 5\)$",
        ),
        ({"confusion_label_classes": 6}, ValueError, "confusion_label_classes"),
        ({"confusion_label_classes": 2.0}, TypeError, "confusion_label_classes"),
    ],
)
def test_bad_geometry(kwargs, error, match):
    with pytest.raises(error, match=match) as caught:
        SyntheticConfig(**kwargs)
    assert "\n" not in str(caught.value)


def test_numpy_scalars_are_stored_as_python_numbers():
    config = SyntheticConfig(
        confusion_radius_ratio=np.float32(0.5),
        confusion_shift=np.float64(0.25),
        confusion_target=np.int64(3),
        confusion_label_bias=np.float64(0.5),
        confusion_label_classes=np.int32(3),
    )
    values = [
        getattr(config, f.name)
        for f in dataclasses.fields(config)
        if f.name.startswith("confusion_")
    ]
    assert [type(v) for v in values] == [float, float, int, float, int]
    cache_key(config, "code")  # the config hashes as JSON


@pytest.mark.parametrize(
    "change",
    [
        {"confusion_radius_ratio": 1.5},
        {"confusion_shift": 0.5},
        {"confusion_shift": 0.5, "confusion_target": 2},
        {"confusion_label_bias": 0.5},
        {"confusion_label_bias": 0.5, "confusion_label_classes": 3},
    ],
)
def test_cache_key_sees_the_geometry(change):
    """A sweep cache of the default config never serves a non-default one: the key hashes every
    field (and a cell file carries the config it was computed for)."""
    default = SyntheticConfig()
    other = dataclasses.replace(default, **change)
    assert cache_key(other, "code") != cache_key(default, "code")
    # and the in-memory cache of base draws is keyed by the whole config too: drawn after the
    # default one, the other config's data is its own
    small = SyntheticConfig(n_per_class=10, n_confusion=50)
    first = make_dataset(0, 0.0, small)
    second = make_dataset(0, 0.0, dataclasses.replace(small, **change))
    moved = not np.array_equal(first.X_test, second.X_test)
    relabelled = not np.array_equal(first.y_test, second.y_test)
    assert moved or relabelled


@pytest.mark.parametrize("name", ["confusion_shift", "confusion_label_bias"])
def test_negative_zero_is_stored_as_zero(name):
    """-0.0 is in [0, 1] and gives the default's data; it is stored as 0.0, so that the config,
    equal to the default, also has the default's cache key (JSON spells -0.0 apart)."""
    config = SyntheticConfig(**{name: -0.0})
    assert math.copysign(1.0, getattr(config, name)) == 1.0
    assert cache_key(config, "code") == cache_key(SyntheticConfig(), "code")
