"""Tests for simulations.synthetic: the protocol, common random numbers, argument checks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _tolerances import ALPHA, binomial_band, gamma, normal_quantile
from scipy.stats import chi2

from simulations import synthetic
from simulations.synthetic import Dataset, SyntheticConfig, make_dataset, mixture, noise_levels

SMALL = SyntheticConfig(n_per_class=200, n_confusion=200)
PAPER = SyntheticConfig()
#: The fields of a Dataset that hold its samples (all but ``mixture``, the law they come from).
ARRAYS = tuple(name for name in Dataset._fields if name != "mixture")


def _assert_same_arrays(a: Dataset, b: Dataset) -> None:
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


def _all_features(data: Dataset) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    X = np.concatenate([data.X_train, data.X_test])
    y = np.concatenate([data.y_train_clean, data.y_test])
    conf = np.concatenate([data.is_confusion_train, data.is_confusion_test])
    return X, y, conf


def _binomial_band(n: int, p: float) -> float:
    """Half-width of the exact binomial band at a false-failure probability of 1e-9 (shares of a
    random split are hypergeometric, whose tails are at most the binomial ones: Hoeffding 1963)."""
    return binomial_band(p, n)


def _spread_band(dof: int) -> float:
    """Relative half-width for a sample standard deviation: (dof)s²/σ² is chi²(dof), 1e-9."""
    return max(
        1 - math.sqrt(chi2.ppf(ALPHA / 2, dof) / dof), math.sqrt(chi2.isf(ALPHA / 2, dof) / dof) - 1
    )


# ---------------------------------------------------------------------------------------------
# Configuration and grid


def test_default_config_is_the_papers() -> None:
    # tab:synthetic_data_params and tab:noise_params
    assert (PAPER.n_classes, PAPER.dim, PAPER.center_scale, PAPER.radius) == (5, 10, 10.0, 1.5)
    assert (PAPER.n_per_class, PAPER.n_confusion) == (2000, 2000)
    assert (PAPER.test_fraction, PAPER.flip_per_noise) == (0.2, 0.025)
    assert (PAPER.n_total, PAPER.n_train, PAPER.n_test) == (12000, 9600, 2400)
    assert PAPER.max_noise == 40.0


def test_noise_levels_are_exact_decimals() -> None:
    grid = noise_levels()
    assert grid.shape == (41,)
    assert grid[0] == 0.0 and grid[-1] == 16.0
    for i, sigma in enumerate(grid):
        assert sigma == float(f"{0.4 * i:.1f}")  # 1.2, not 1.2000000000000002
    np.testing.assert_array_equal(noise_levels(3, 0.5), [0.0, 0.5, 1.0])


# ---------------------------------------------------------------------------------------------
# The protocol


def test_shapes_and_dtypes() -> None:
    data = make_dataset(3, 2.0, SMALL)
    n_train, n_test, d = SMALL.n_train, SMALL.n_test, SMALL.dim
    assert (n_train, n_test) == (960, 240)
    assert data.X_train.shape == (n_train, d) and data.X_test.shape == (n_test, d)
    for name in ("y_train", "y_train_clean", "is_confusion_train", "flipped_train"):
        assert getattr(data, name).shape == (n_train,), name
    for name in ("y_test", "is_confusion_test"):
        assert getattr(data, name).shape == (n_test,), name
    assert data.X_train.dtype == np.float64 and data.y_train.dtype == np.int64
    assert data.flipped_train.dtype == bool and data.is_confusion_test.dtype == bool
    for labels in (data.y_train, data.y_test, data.y_train_clean):
        assert labels.min() >= 0 and labels.max() < SMALL.n_classes
    X, y, conf = _all_features(data)
    assert conf.sum() == SMALL.n_confusion
    np.testing.assert_array_equal(
        np.bincount(y[~conf], minlength=SMALL.n_classes), [SMALL.n_per_class] * SMALL.n_classes
    )


def test_split_is_random_not_by_population() -> None:
    data = make_dataset(0, 0.0, PAPER)
    # The confusion population is 1/6 of all samples; both splits should hold about that share.
    for mask in (data.is_confusion_train, data.is_confusion_test):
        assert abs(mask.mean() - 1 / 6) < _binomial_band(mask.size, 1 / 6)


def test_no_noise_means_no_flips() -> None:
    data = make_dataset(5, 0.0, SMALL)
    assert not data.flipped_train.any()
    np.testing.assert_array_equal(data.y_train, data.y_train_clean)


def test_test_labels_stay_clean() -> None:
    clean = make_dataset(7, 0.0, PAPER)
    noisy = make_dataset(7, 16.0, PAPER)
    np.testing.assert_array_equal(noisy.y_test, clean.y_test)
    np.testing.assert_array_equal(noisy.y_train_clean, clean.y_train)
    np.testing.assert_array_equal(noisy.is_confusion_test, clean.is_confusion_test)
    assert noisy.flipped_train.any()


@pytest.mark.parametrize("sigma", [2.0, 8.0, 16.0])
def test_flip_share_matches_probability(sigma: float) -> None:
    p = PAPER.flip_per_noise * sigma
    shares = [make_dataset(seed, sigma, PAPER).flipped_train.mean() for seed in range(10, 14)]
    n = 4 * PAPER.n_train
    assert abs(np.mean(shares) - p) < _binomial_band(n, p)


def test_flips_go_to_another_class_uniformly() -> None:
    data = make_dataset(11, 40.0, PAPER)  # flip probability exactly 1
    assert data.flipped_train.all()
    np.testing.assert_array_equal(data.flipped_train, data.y_train != data.y_train_clean)
    K = PAPER.n_classes
    offsets = (data.y_train - data.y_train_clean) % K
    counts = np.bincount(offsets, minlength=K)
    assert counts[0] == 0
    expected = data.y_train.size / (K - 1)
    p = 1 / (K - 1)
    band = data.y_train.size * _binomial_band(data.y_train.size, p)  # each count is binomial
    assert np.all(np.abs(counts[1:] - expected) <= band), counts


def test_confusion_labels_are_uniform() -> None:
    data = make_dataset(12, 0.0, PAPER)
    _, y, conf = _all_features(data)
    K = PAPER.n_classes
    shares = np.bincount(y[conf], minlength=K) / conf.sum()
    assert np.all(np.abs(shares - 1 / K) < _binomial_band(int(conf.sum()), 1 / K))


def test_populations_have_the_protocol_geometry() -> None:
    data = make_dataset(13, 0.0, PAPER)
    X, y, conf = _all_features(data)
    K, r = PAPER.n_classes, PAPER.radius
    class_means = np.array([X[(y == k) & ~conf].mean(axis=0) for k in range(K)])
    # Centres are uniform in [-S, S]^d: class means lie inside, up to sampling error (normal,
    # standard error r/√n, at 1e-9: z = 6.11).
    z = normal_quantile()
    slack = z * r / math.sqrt(PAPER.n_per_class)
    assert np.all(np.abs(class_means) <= PAPER.center_scale + slack)
    # Spread around each centre is r in every direction: K·n - K degrees of freedom (the class
    # means estimated), and std's ddof = 0 divides by K·n, a bias of sqrt((Kn - K)/(Kn)).
    within = np.concatenate([X[(y == k) & ~conf] - class_means[k] for k in range(K)])
    dof = within.shape[0] - K
    bias = 1 - math.sqrt(dof / within.shape[0])
    np.testing.assert_allclose(within.std(axis=0), r, rtol=_spread_band(dof) + bias)
    # The confusion blob sits at the mean of the centres, with the same radius.
    conf_mean = X[conf].mean(axis=0)
    se = r * math.sqrt(1 / PAPER.n_confusion + 1 / (K * PAPER.n_per_class))
    assert np.all(np.abs(conf_mean - class_means.mean(axis=0)) <= z * se)
    n_conf = int(conf.sum())
    bias = 1 - math.sqrt((n_conf - 1) / n_conf)
    np.testing.assert_allclose(X[conf].std(axis=0), r, rtol=_spread_band(n_conf - 1) + bias)


# ---------------------------------------------------------------------------------------------
# Common random numbers and reproducibility


def test_feature_noise_is_sigma_times_one_fixed_matrix() -> None:
    base = make_dataset(21, 0.0, SMALL)
    unit = make_dataset(21, 1.0, SMALL)
    G_train, G_test = unit.X_train - base.X_train, unit.X_test - base.X_test
    # every entry of G is a standard normal: the std of N of them within the chi² band
    assert abs(G_train.std() - 1) <= _spread_band(G_train.size - 1) + 1 / G_train.size
    for sigma in (0.4, 7.2, 16.0):
        data = make_dataset(21, sigma, SMALL)
        for X, X0, G in ((data.X_train, base.X_train, G_train), (data.X_test, base.X_test, G_test)):
            # X = X0 + σG rounds once, the difference once more; G = (X0 + G) - X0 was rounded
            # the same way, an error σ times as large here
            slack = gamma(3) * (np.abs(X0) + sigma * np.abs(G)) + sigma * gamma(2) * (
                np.abs(X0) + np.abs(G)
            )
            assert np.all(np.abs((X - X0) - sigma * G) <= slack)


def test_flips_are_nested_in_sigma() -> None:
    grid = noise_levels()
    previous = make_dataset(22, float(grid[0]), PAPER)
    for sigma in grid[1:]:
        data = make_dataset(22, float(sigma), PAPER)
        assert np.all(data.flipped_train[previous.flipped_train])  # once flipped, stays flipped
        kept = previous.flipped_train
        np.testing.assert_array_equal(data.y_train[kept], previous.y_train[kept])  # same class
        previous = data
    assert previous.flipped_train.sum() > 0


def test_same_seed_same_arrays_different_seed_different() -> None:
    a, b = make_dataset(30, 3.2, SMALL), make_dataset(30, 3.2, SMALL)
    _assert_same_arrays(a, b)
    c = make_dataset(31, 3.2, SMALL)
    assert not np.array_equal(a.X_train, c.X_train)
    assert not np.array_equal(a.y_train, c.y_train)


def test_draws_do_not_depend_on_call_order_or_cache() -> None:
    first = make_dataset(40, 6.0, SMALL)
    synthetic._base_draws.cache_clear()
    for seed in (41, 39):  # other work in between, in another order
        make_dataset(seed, 1.0, SMALL)
    # Disturbing numpy's global generator must not matter: make_dataset never uses it.
    np.random.seed(0)  # noqa: NPY002
    np.random.standard_normal(5)  # noqa: NPY002
    again = make_dataset(40, 6.0, SMALL)
    _assert_same_arrays(first, again)


def test_returned_arrays_are_owned_by_the_caller() -> None:
    data = make_dataset(50, 1.0, SMALL)
    reference = make_dataset(50, 1.0, SMALL)
    for name in ARRAYS:
        array = getattr(data, name)
        assert array.flags.writeable, name
        array[...] = 0
    _assert_same_arrays(reference, make_dataset(50, 1.0, SMALL))
    # the law is shared, read-only: no caller can move another's
    assert not any(a.flags.writeable for a in data.mixture if isinstance(a, np.ndarray))


@pytest.mark.parametrize(
    ("seed", "noise", "config"),
    [(16, 0.0, SMALL), (3, 6.4, PAPER), (
        8, 2.0, SyntheticConfig(
            n_per_class=30, n_confusion=10, confusion_radius_ratio=0.5, confusion_shift=0.7,
            confusion_target=2, confusion_label_bias=0.6, confusion_label_classes=3,
        ),
    )],
)  # fmt: skip
def test_a_dataset_carries_the_mixture_of_its_cell(seed, noise, config) -> None:
    # the Bayes rejector reads data.mixture (it rebuilt mixture(seed, noise, config) before):
    # the same law, float for float, whether or not the base draws were cached
    synthetic._base_draws.cache_clear()
    for _ in range(2):
        law = make_dataset(seed, noise, config).mixture
        expected = mixture(seed, noise, config)
        assert type(law) is type(expected)
        for name in expected._fields:
            got, want = getattr(law, name), getattr(expected, name)
            assert type(got) is type(want), name
            np.testing.assert_array_equal(got, want, err_msg=name)
    hand_built = Dataset(*make_dataset(seed, noise, config)[: len(ARRAYS)])
    assert hand_built.mixture is None  # a dataset built by hand has no law


def test_base_draws_are_cached_per_config() -> None:
    # The base-draw cache is keyed by (seed, config): another radius gives other features.
    a = make_dataset(60, 0.0, SMALL)
    b = make_dataset(60, 0.0, SyntheticConfig(n_per_class=200, n_confusion=200, radius=2.0))
    assert a.X_train.shape == b.X_train.shape
    assert not np.array_equal(a.X_train, b.X_train)


# ---------------------------------------------------------------------------------------------
# Argument checks


@pytest.mark.parametrize(
    ("seed", "error", "match"),
    [
        (-1, ValueError, "seed must be a non-negative int.*-1"),
        (1.5, TypeError, "seed must be a non-negative int.*1.5"),
        (True, TypeError, "seed"),
        ("3", TypeError, "seed"),
    ],
)
def test_bad_seed(seed, error, match) -> None:
    with pytest.raises(error, match=match):
        make_dataset(seed, 0.0, SMALL)


@pytest.mark.parametrize(
    ("noise", "error", "match"),
    [
        (-0.4, ValueError, r"noise must be a finite number >= 0; got -0.4"),
        (math.nan, ValueError, "noise must be a finite"),
        (math.inf, ValueError, "noise must be a finite"),
        ("1", TypeError, "noise must be a real"),
        (None, TypeError, "noise must be a real"),
        (40.4, ValueError, r"flip probability.*1.01.*\[0, 40.0\]"),
    ],
)
def test_bad_noise(noise, error, match) -> None:
    with pytest.raises(error, match=match):
        make_dataset(0, noise, SMALL)


def test_numpy_scalars_are_accepted() -> None:
    a = make_dataset(np.int64(3), np.float64(0.8), SMALL)
    b = make_dataset(3, 0.8, SMALL)
    np.testing.assert_array_equal(a.X_train, b.X_train)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"n_classes": 1}, ValueError, "n_classes must be an integer >= 2; got 1"),
        ({"dim": 0}, ValueError, "dim must be an integer >= 1"),
        ({"n_per_class": 2.5}, TypeError, "n_per_class"),
        ({"radius": -1.0}, ValueError, r"radius must be in \[0, inf\); got -1.0"),
        ({"center_scale": math.inf}, ValueError, "center_scale"),
        ({"test_fraction": 1.0}, ValueError, r"test_fraction must be in \(0, 1\)"),
        ({"test_fraction": 0.0}, ValueError, "test_fraction"),
        ({"test_fraction": 1e-6}, ValueError, "leaves 0 of 12000"),
        ({"flip_per_noise": -0.1}, ValueError, "flip_per_noise"),
    ],
)
def test_bad_config(kwargs, error, match) -> None:
    with pytest.raises(error, match=match):
        SyntheticConfig(**kwargs)


def test_bad_config_type() -> None:
    with pytest.raises(TypeError, match="config must be a SyntheticConfig"):
        make_dataset(0, 0.0, {"n_classes": 5})


def test_flip_bound_follows_config() -> None:
    config = SyntheticConfig(n_per_class=20, n_confusion=20, flip_per_noise=0.5)
    make_dataset(0, 2.0, config)
    with pytest.raises(ValueError, match=r"noise must be in \[0, 2.0\]"):
        make_dataset(0, 2.5, config)
    never = SyntheticConfig(n_per_class=20, n_confusion=20, flip_per_noise=0.0)
    assert not make_dataset(0, 1e6, never).flipped_train.any()


def test_negative_zero_is_zero() -> None:
    value = synthetic.check_noise(-0.0, SMALL)
    assert value == 0.0 and math.copysign(1.0, value) == 1.0
    np.testing.assert_array_equal(
        make_dataset(0, -0.0, SMALL).X_train, make_dataset(0, 0, SMALL).X_train
    )
