"""The synthetic phase-transition protocol of the paper (``subsec:synthetic_exp``).

One *seed* fixes every random draw of the experiment; the noise level σ only scales them. A dataset
for ``(seed, σ)`` is built from σ-independent base draws (common random numbers):

- class centres ``c_k ~ U([-S, S]^d)``, ``k = 0..K-1``;
- ``n_per_class`` samples of class ``k`` from ``N(c_k, r² I)``;
- ``n_confusion`` samples from the *confusion population* ``N(c_conf, (a r)² I)``: its centre
  ``c_conf = c̄ + t (c_τ - c̄)`` lies on the segment from the centres' mean ``c̄ = mean_k c_k`` to
  the centre of class ``τ`` (``confusion_shift`` t, ``confusion_target`` τ), its radius is
  ``confusion_radius_ratio`` a times the classes' ``r``; its labels have the law
  ``π_k = (1 - b)/K + b 1[k ∈ N_m]/m`` (``confusion_label_bias`` b), ``N_m`` the
  ``m = confusion_label_classes`` classes whose centres are nearest to ``c_conf`` (ties by
  index): uniform over the ``K`` classes at ``b = 0``, uniform over ``N_m`` at ``b = 1``. A
  label is drawn uniform over the ``K`` classes, then, iff a uniform ``u < b``, replaced by
  ``N_m[j]`` with ``j`` uniform on ``0..m-1`` (``u`` and ``j`` from a stream of their own, drawn
  only when ``b > 0``). Its share of the samples is ``n_confusion / n_total``. The defaults (``a = 1``, ``t = 0``,
  ``b = 0``) are the paper's blob: ``N(c̄, r² I)`` with uniform labels;
- a random train/test split (``test_fraction`` of the samples go to the test split);
- one standard-normal matrix ``G``; the features at σ are ``X + σ G``;
- one uniform ``u_i`` and one "other class" offset ``o_i ∈ {1..K-1}`` per sample; a *training*
  label flips to ``(y_i + o_i) mod K`` iff ``u_i < 0.025 σ`` (so a label flipped at σ stays
  flipped, to the same class, at every larger σ). Test labels stay clean.
- beside them, ``y_test_noisy``: the test labels flipped by the same process (probability
  0.025 σ, to a uniformly chosen other class, a flip kept at every larger σ) from a stream of
  its own, so that the certified predictor can be judged on labels distributed as its
  calibration labels are; no other draw depends on it.

Every stream comes from ``numpy.random.SeedSequence(seed, spawn_key=(stream,))`` — the same child
``SeedSequence(seed).spawn(...)`` would produce — so the draws depend on ``(seed, config)`` only:
never on σ, on the order of calls, on other seeds, or on global state.

Tables ``tab:synthetic_data_params`` and ``tab:noise_params`` of [1] give the defaults.

References
----------
.. [1] "GCUL: Ambiguity Identification in Text Emotion Classification via Cluster-Guided
   Learning" (the GCUL paper), section "Synthetic phase-transition
   verification" (``subsec:synthetic_exp``) and appendix "Experimental setup and
   hyperparameter" (``app:experimental_details``: ``tab:synthetic_data_params``,
   ``tab:noise_params``).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import numbers
from typing import NamedTuple

import numpy as np

from simulations.validation import check_int, check_real

__all__ = [
    "Dataset",
    "Mixture",
    "SyntheticConfig",
    "flip_labels",
    "make_dataset",
    "mixture",
    "noise_levels",
]

# Stream ids of the base draws; ``SeedSequence(seed, spawn_key=(id,))``. Never renumber: it would
# change every dataset. New streams get new ids.
_STREAM_CENTERS = 0
_STREAM_CLASS_SAMPLES = 1
_STREAM_CONFUSION = 2
_STREAM_SPLIT = 3
_STREAM_FEATURE_NOISE = 4
_STREAM_FLIP_UNIFORM = 5
_STREAM_FLIP_OTHER_CLASS = 6
_STREAM_TEST_FLIP = 7  # y_test_noisy: a uniform, then an offset, per sample
_STREAM_CONFUSION_LABEL = 8  # confusion labels' bias (drawn only if b > 0): uniforms, then indices

# Number of base datasets kept in memory (one per (seed, config)); a full-size one is about 2.5 MB.
_BASE_CACHE_SIZE = 32


@dataclasses.dataclass(frozen=True)
class SyntheticConfig:
    """Parameters of the synthetic protocol; the defaults are the paper's.

    Parameters
    ----------
    n_classes : int
        Number of classes ``K`` (at least 2).
    dim : int
        Feature dimension ``d``.
    center_scale : float
        ``S``: class centres are uniform in ``[-S, S]^d``.
    radius : float
        ``r``: the standard deviation of every population around its centre.
    n_per_class : int
        Samples drawn around each class centre.
    n_confusion : int
        Samples in the confusion population; its share of all samples is
        :attr:`confusion_share`.
    test_fraction : float
        Share of all samples put in the test split, in (0, 1); the test split has
        ``round(test_fraction * n_total)`` samples.
    flip_per_noise : float
        A training label flips with probability ``flip_per_noise * σ`` (0.025 in the paper), which
        must stay at most 1.
    confusion_radius_ratio : float, default 1.0
        ``a > 0`` (finite): the confusion population's standard deviation is ``a * radius``
        around its centre (before the feature noise σ, which every population gets).
    confusion_shift : float, default 0.0
        ``t`` in [0, 1]: the confusion centre is ``c̄ + t (c_τ - c̄)``, with ``c̄`` the mean of
        the class centres and ``τ = confusion_target``; 0 keeps it at ``c̄``, 1 puts it on
        ``c_τ``.
    confusion_target : int, default 0
        ``τ`` in ``0..n_classes-1``: the class whose centre the confusion centre moves toward.
    confusion_label_bias : float, default 0.0
        ``b`` in [0, 1]: a confusion sample's label has the law
        ``π_k = (1 - b)/K + b 1[k ∈ N_m]/m``, ``N_m`` the ``m`` classes whose centres are nearest
        (Euclidean) to the confusion centre, ties broken by the smaller index.
    confusion_label_classes : int, default 2
        ``m`` in ``1..n_classes``: the size of ``N_m``.

    Notes
    -----
    The defaults reproduce the paper's data bit for bit: the confusion population is
    ``N(c̄, r² I)`` with labels uniform over the classes. How the draws realise the law is in the
    module docstring and :func:`mixture`.

    Examples
    --------
    >>> SyntheticConfig().n_total, SyntheticConfig().n_test
    (12000, 2400)
    >>> round(SyntheticConfig().confusion_share, 6)
    0.166667
    >>> SyntheticConfig(confusion_target=7)
    Traceback (most recent call last):
    ...
    ValueError: confusion_target must be an integer in [0, 4]; got 7 (a class index: n_classes is 5)
    """

    n_classes: int = 5
    dim: int = 10
    center_scale: float = 10.0
    radius: float = 1.5
    n_per_class: int = 2000
    n_confusion: int = 2000
    test_fraction: float = 0.2
    flip_per_noise: float = 0.025
    confusion_radius_ratio: float = 1.0
    confusion_shift: float = 0.0
    confusion_target: int = 0
    confusion_label_bias: float = 0.0
    confusion_label_classes: int = 2

    def __post_init__(self) -> None:
        check_int("n_classes", self.n_classes, 2)
        check_int("dim", self.dim, 1)
        check_int("n_per_class", self.n_per_class, 1)
        check_int("n_confusion", self.n_confusion, 0)
        check_real("center_scale", self.center_scale, 0.0)
        check_real("radius", self.radius, 0.0)
        check_real("flip_per_noise", self.flip_per_noise, 0.0)
        check_real("test_fraction", self.test_fraction, 0.0, 1.0, open_low=True, open_high=True)
        if not 1 <= self.n_test <= self.n_total - 1:
            raise ValueError(
                f"test_fraction={self.test_fraction!r} leaves {self.n_test} of {self.n_total} "
                "samples for the test split; both splits need at least one sample"
            )
        # The geometry's fields are stored as Python floats and ints (a NumPy scalar is accepted
        # and converted, -0.0 becomes 0.0), so that the sweep's cache key, which hashes the
        # config as JSON, takes them as they are and equal configs share it.
        geometry = {
            "confusion_radius_ratio": check_real(
                "confusion_radius_ratio", self.confusion_radius_ratio, 0.0, open_low=True
            ),
            "confusion_shift": check_real("confusion_shift", self.confusion_shift, 0.0, 1.0),
            "confusion_label_bias": check_real(
                "confusion_label_bias", self.confusion_label_bias, 0.0, 1.0
            ),
        }
        K = int(self.n_classes)
        for name, low, high, what in (
            ("confusion_target", 0, K - 1, "a class index"),
            ("confusion_label_classes", 1, K, "a number of classes"),
        ):
            try:
                geometry[name] = check_int(name, getattr(self, name), low, high)
            except ValueError as error:
                raise ValueError(f"{error} ({what}: n_classes is {K})") from None
        for name, value in geometry.items():
            # + 0 turns -0.0 into 0.0 (as check_noise does): an equal config has one cache key
            object.__setattr__(self, name, value + 0)

    @property
    def confusion_share(self) -> float:
        """The confusion population's share of all samples, ``n_confusion / n_total``."""
        return self.n_confusion / self.n_total

    @property
    def n_total(self) -> int:
        """All samples: ``n_classes * n_per_class + n_confusion``."""
        return self.n_classes * self.n_per_class + self.n_confusion

    @property
    def n_test(self) -> int:
        """Size of the test split, ``round(test_fraction * n_total)``."""
        return int(round(self.test_fraction * self.n_total))

    @property
    def n_train(self) -> int:
        """Size of the training split."""
        return self.n_total - self.n_test

    def flip_probability(self, noise: float) -> float:
        """Label-flip probability ``flip_per_noise * noise`` at noise level σ."""
        return self.flip_per_noise * float(noise)

    @property
    def max_noise(self) -> float:
        """Largest σ whose flip probability is at most 1 (``inf`` when labels never flip)."""
        return math.inf if self.flip_per_noise == 0 else 1.0 / self.flip_per_noise


class Dataset(NamedTuple):
    """One ``(seed, σ)`` dataset of the synthetic protocol.

    ``X_*`` are ``float64`` arrays of shape ``(n, dim)``; labels are ``int64`` in ``0..K-1``;
    masks are ``bool``. ``y_train`` holds the observed (possibly flipped) training labels,
    ``y_train_clean`` the labels before flipping; ``flipped_train == (y_train != y_train_clean)``.
    ``is_confusion_*`` marks samples of the confusion population. ``y_test_noisy`` is ``y_test``
    flipped by the training labels' process at the same σ (independent draws of its own). The
    arrays are fresh copies that the caller owns. ``mixture`` is the law the samples were drawn
    from (:func:`mixture` of the same ``(seed, σ, config)``, what the Bayes rejector needs; its
    arrays are read-only), or None for a dataset built by hand.
    """

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    y_train_clean: np.ndarray
    is_confusion_train: np.ndarray
    is_confusion_test: np.ndarray
    flipped_train: np.ndarray
    y_test_noisy: np.ndarray
    mixture: Mixture | None = None


class _Base(NamedTuple):
    """σ-independent draws of one seed, already split; all arrays read-only."""

    X_train: np.ndarray  # clean features
    X_test: np.ndarray
    G_train: np.ndarray  # standard-normal feature noise
    G_test: np.ndarray
    y_train: np.ndarray  # clean labels
    y_test: np.ndarray
    is_confusion_train: np.ndarray
    is_confusion_test: np.ndarray
    flip_uniform_train: np.ndarray  # u_i in [0, 1)
    flip_target_train: np.ndarray  # the label a flip turns y_i into (never y_i)
    flip_uniform_test: np.ndarray  # the test labels' own u_i and flip targets (y_test_noisy)
    flip_target_test: np.ndarray
    centers: np.ndarray  # the class centres c_k (the mixture's)


def noise_levels(n_levels: int = 41, step: float = 0.4) -> np.ndarray:
    """The noise grid ``σ_i = step * i``, ``i = 0..n_levels-1``, rounded to 10 decimals.

    Rounding makes every level the float nearest its decimal value (``1.2``, not
    ``1.2000000000000002``), so a σ compares equal across runs, files and machines.

    Examples
    --------
    >>> grid = noise_levels()
    >>> len(grid), float(grid[3]), float(grid[-1])
    (41, 1.2, 16.0)
    """
    check_int("n_levels", n_levels, 1)
    check_real("step", step, 0.0, open_low=True)
    return np.round(float(step) * np.arange(int(n_levels)), 10)


def make_dataset(seed: int, noise: float, config: SyntheticConfig | None = None) -> Dataset:
    """Build the dataset of one ``(seed, σ)`` cell of the synthetic protocol.

    Parameters
    ----------
    seed : int
        Non-negative seed; it fixes every random draw (see the module docstring).
    noise : float
        σ ≥ 0: the standard deviation of the feature noise; training labels flip with probability
        ``config.flip_per_noise * σ``, which must be at most 1 (σ ≤ 40 by default).
    config : SyntheticConfig, optional
        Protocol parameters; the paper's by default.

    Returns
    -------
    Dataset
        Train/test features and labels plus the ground truth (clean labels, confusion membership,
        which training labels flipped, the mixture the samples come from).

    Examples
    --------
    >>> small = SyntheticConfig(n_per_class=20, n_confusion=20)
    >>> data = make_dataset(16, 0.4, small)
    >>> data.X_train.shape, data.X_test.shape
    ((96, 10), (24, 10))
    >>> bool(np.array_equal(make_dataset(16, 0.4, small).X_train, data.X_train))
    True
    """
    config = check_config(config)
    return make_dataset_unchecked(check_seed(seed), check_noise(noise, config), config)


def make_dataset_unchecked(seed: int, noise: float, config: SyntheticConfig) -> Dataset:
    """:func:`make_dataset` of arguments already checked (:func:`check_seed`,
    :func:`check_noise`, :func:`check_config`), itself checking nothing.

    What a sweep's cell runs (:func:`simulations.sweep.cell.compute_row`): the sweep checks σ
    once, for the whole grid, and a single cell once, at :func:`simulations.sweep.run_cell`.
    """
    base = _base_draws(seed, config)
    X_train = base.X_train + noise * base.G_train
    X_test = base.X_test + noise * base.G_test
    flipped = base.flip_uniform_train < config.flip_probability(noise)
    y_train = np.where(flipped, base.flip_target_train, base.y_train)
    flipped_test = base.flip_uniform_test < config.flip_probability(noise)
    return Dataset(
        X_train=X_train,
        y_train=y_train,
        X_test=X_test,
        y_test=base.y_test.copy(),
        y_train_clean=base.y_train.copy(),
        is_confusion_train=base.is_confusion_train.copy(),
        is_confusion_test=base.is_confusion_test.copy(),
        flipped_train=flipped,
        y_test_noisy=np.where(flipped_test, base.flip_target_test, base.y_test),
        mixture=_mixture(base.centers, noise, config),
    )


def flip_labels(y, share: float, n_classes: int, seed=0) -> np.ndarray:
    """A copy of ``y`` with ``round(share * n)`` labels, chosen at random, each flipped to a
    uniformly chosen other class.

    Label noise for data nobody here generated (the real-data validation of the λ* predictors
    flips a share of its training labels): unlike :func:`make_dataset`'s flips (each label flips
    with a probability), exactly ``round(share * n)`` rows (Python's ``round``) are drawn without
    replacement, then one offset ``o in 1..K-1`` per chosen row, ``y -> (y + o) mod K``.

    Parameters
    ----------
    y : array_like of shape (n,)
        Integer labels ``0..n_classes-1``.
    share : float
        Share of the labels flipped, in [0, 1].
    n_classes : int
        Number of classes K, at least 2.
    seed : int, SeedSequence or Generator, default=0
        An int or a SeedSequence seeds ``default_rng``; a Generator is used as is (and advanced).

    Returns
    -------
    ndarray of shape (n,)
        The labels, ``round(share * n)`` of them changed to another class.

    Raises
    ------
    TypeError, ValueError
        In one line: ``y`` not a 1-D array of integers in ``0..n_classes-1``, ``share`` outside
        [0, 1], ``n_classes < 2``.

    Examples
    --------
    >>> y = np.zeros(10, dtype=np.int64)
    >>> int((flip_labels(y, 0.3, 3, seed=0) != y).sum())
    3
    """
    share = check_real("share", share, 0.0, 1.0)
    n_classes = check_int("n_classes", n_classes, 2)
    y = np.array(y)
    if y.ndim != 1 or not np.issubdtype(y.dtype, np.integer):
        raise TypeError(f"y must be a 1-D array of integer labels; got {y.dtype}, shape {y.shape}")
    if y.size and not (0 <= y.min() and y.max() < n_classes):
        raise ValueError(f"y must hold labels in 0..{n_classes - 1}; got {y.min()}..{y.max()}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    chosen = rng.choice(y.size, size=int(round(share * y.size)), replace=False)
    shift = rng.integers(1, n_classes, size=chosen.size)
    y[chosen] = (y[chosen] + shift) % n_classes
    return y


class Mixture(NamedTuple):
    r"""The law of one sample of a ``(seed, σ)`` dataset: a mixture of ``K + 1`` isotropic normals.

    ``centers[k]`` (shape ``(K, d)``) is the mean of class ``k``, whose covariance is
    ``spread**2 * I`` with ``spread = hypot(radius, noise)``; class ``k`` has weight
    ``n_per_class / n_total`` and label ``k``. ``confusion_center`` (shape ``(d,)``) is the mean of
    the confusion population (the centres' mean moved by ``confusion_shift``), its covariance
    ``confusion_spread**2 * I`` with ``confusion_spread = hypot(confusion_radius_ratio * radius,
    noise)``; it has weight ``n_confusion / n_total`` and a label drawn from
    ``confusion_label_law`` (shape ``(K,)``, summing to 1) independently of the features.
    ``radius`` and ``noise`` are the classes' ``r`` and the ``σ`` that make ``spread``. See
    :func:`mixture`.
    """

    centers: np.ndarray
    confusion_center: np.ndarray
    spread: float
    n_per_class: int
    n_confusion: int
    radius: float
    noise: float
    confusion_spread: float
    confusion_label_law: np.ndarray


def mixture(seed: int, noise: float, config: SyntheticConfig | None = None) -> Mixture:
    r"""The data-generating mixture of the ``(seed, σ)`` cell: what the Bayes posterior needs.

    Parameters
    ----------
    seed : int
        Non-negative seed, as in :func:`make_dataset`.
    noise : float
        σ ≥ 0, as in :func:`make_dataset`.
    config : SyntheticConfig, optional
        Protocol parameters; the paper's by default.

    Returns
    -------
    Mixture
        The centres (the same draws as :func:`make_dataset` makes for this seed: nothing is drawn
        twice differently, and no other stream is touched), the confusion centre, the spreads,
        the confusion labels' law and the component sizes.

    Notes
    -----
    How :func:`make_dataset` builds a sample, read off the code: the centres ``c_k`` are one draw
    ``U([-S, S]^d)`` per seed; class ``k`` holds exactly ``n_per_class`` samples ``c_k + r z``;
    the confusion population ``n_confusion`` samples ``c_{conf} + a r z`` with
    ``c_{conf} = \bar c + t (c_τ - \bar c)`` (``\bar c`` the mean of the centres, ``a`` the
    ``confusion_radius_ratio``, ``t`` the ``confusion_shift``, ``τ`` the ``confusion_target``),
    each labelled independently of ``z``: a label ``v`` uniform on ``0..K-1``, replaced by
    ``N_m[j]`` (``j`` uniform on ``0..m-1``) iff a uniform ``u < b``, so that

    .. math::

        P(y = k \mid \text{confusion}) = π_k = \frac{1 - b}{K} + b\,\frac{1[k \in N_m]}{m},

    ``N_m`` the ``m`` classes whose centres are nearest to ``c_{conf}`` (ties by index). Every
    sample, of the training *and* the test split, gets feature noise ``σ g`` with ``g`` standard
    normal and independent of ``z``; the split is a uniformly random subset of ``n_test``
    samples; only training labels are flipped. Hence a test sample is marginally distributed as

    .. math::

        x \sim \sum_k \tfrac{n_{pc}}{N} \mathcal N(c_k, s^2 I)
        + \tfrac{n_{conf}}{N} \mathcal N(c_{conf}, s_c^2 I), \qquad s^2 = r^2 + σ^2,
        \quad s_c^2 = (a r)^2 + σ^2,

    and its (clean) label has the posterior

    .. math::

        P(y = k \mid x) \propto n_{pc}\, φ(x; c_k, s^2 I)
        + n_{conf}\, π_k\, φ(x; c_{conf}, s_c^2 I).

    This is the law of each sample given the seed's centres. The split draws the test set
    without replacement from a population with fixed component sizes, so the test samples are
    exchangeable, not independent: their component counts are hypergeometric, not multinomial.
    For training samples the observed label is flipped with probability ``flip_per_noise * σ``,
    which this mixture does not describe.

    Examples
    --------
    >>> small = SyntheticConfig(n_per_class=20, n_confusion=20)
    >>> law = mixture(16, 2.0, small)
    >>> law.centers.shape, round(law.spread, 6), round(law.confusion_spread, 6)
    ((5, 10), 2.5, 2.5)
    >>> bool(np.array_equal(law.confusion_center, law.centers.mean(axis=0)))
    True
    >>> law.confusion_label_law.tolist()
    [0.2, 0.2, 0.2, 0.2, 0.2]
    >>> bool(np.array_equal(mixture(16, 2.0).centers, law.centers))  # sizes do not move centres
    True
    >>> moved = mixture(16, 2.0, SyntheticConfig(confusion_shift=1.0, confusion_target=3,
    ...                                          confusion_radius_ratio=0.5))
    >>> bool(np.array_equal(moved.confusion_center, law.centers[3])), round(moved.confusion_spread, 6)
    (True, 2.136001)
    """
    config = check_config(config)
    seed = check_seed(seed)
    noise = check_noise(noise, config)
    centers = _draw_centers(seed, config)
    centers.flags.writeable = False
    return _mixture(centers, noise, config)


def _mixture(centers: np.ndarray, noise: float, config: SyntheticConfig) -> Mixture:
    """:func:`mixture` of a seed's read-only class centres (:func:`_draw_centers`), σ and config,
    already checked."""
    confusion_center, _, label_law = _confusion_geometry(centers, config)
    confusion_center.flags.writeable = False
    label_law.flags.writeable = False
    radius = float(config.radius)
    return Mixture(
        centers=centers,
        confusion_center=confusion_center,
        spread=math.hypot(radius, noise),
        n_per_class=int(config.n_per_class),
        n_confusion=int(config.n_confusion),
        radius=radius,
        noise=noise,
        confusion_spread=math.hypot(float(config.confusion_radius_ratio) * radius, noise),
        confusion_label_law=label_law,
    )


def check_noise(noise: float, config: SyntheticConfig) -> float:
    """Validate a noise level for ``config``; return it as a Python float.

    Raises ``TypeError`` for a non-real value and ``ValueError`` for NaN, ±inf, a negative σ, or a σ
    whose flip probability ``config.flip_per_noise * σ`` exceeds 1.
    """
    if isinstance(noise, bool) or not isinstance(noise, numbers.Real):
        raise TypeError(f"noise must be a real number >= 0; got {noise!r} ({type(noise).__name__})")
    value = float(noise) + 0.0  # + 0.0 turns -0.0 into 0.0, so one σ has one spelling
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"noise must be a finite number >= 0; got {noise!r}")
    flip = config.flip_probability(value)
    if flip > 1.0:
        raise ValueError(
            f"noise={value!r} gives a label-flip probability flip_per_noise * noise = {flip!r} > 1;"
            f" noise must be in [0, {config.max_noise!r}] for flip_per_noise="
            f"{config.flip_per_noise!r}"
        )
    return value


def check_seed(seed: int) -> int:
    """Validate a seed of the protocol; return it as a Python int.

    Raises ``TypeError`` for a non-integer (``bool`` included) and ``ValueError`` for a negative one.
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be a non-negative int; got {seed!r} ({type(seed).__name__})")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative int (>= 0); got {seed!r}")
    return int(seed)


def check_config(config: SyntheticConfig | None) -> SyntheticConfig:
    """``config``, or the paper's :class:`SyntheticConfig` for ``None``; ``TypeError`` otherwise."""
    if config is None:
        return SyntheticConfig()
    if not isinstance(config, SyntheticConfig):
        raise TypeError(f"config must be a SyntheticConfig; got {type(config).__name__}")
    return config


def _rng(seed: int, stream: int) -> np.random.Generator:
    """The generator of one stream: the ``stream``-th child of ``SeedSequence(seed)``."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(stream,)))


def _draw_centers(seed: int, config: SyntheticConfig) -> np.ndarray:
    """The class centres ``c_k ~ U([-S, S]^d)`` of one seed, shape ``(K, d)``: the whole of stream
    ``_STREAM_CENTERS`` (so they depend on ``seed``, ``n_classes``, ``dim`` and ``center_scale``
    only)."""
    K, d, S = config.n_classes, config.dim, config.center_scale
    return _rng(seed, _STREAM_CENTERS).uniform(-S, S, (K, d))


def _confusion_geometry(
    centers: np.ndarray, config: SyntheticConfig
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The confusion population's centre ``c̄ + t (c_τ - c̄)``, shape ``(d,)``; ``N_m``, the
    indices of the ``m`` centres nearest to it (ties by index), shape ``(m,)``; and its label law
    ``π``, shape ``(K,)``. Nothing is drawn.

    At ``t = 0`` the centre is ``centers.mean(axis=0)`` itself and at ``t = 1`` it is ``c_τ``
    itself (the interpolation ``(1 - t) c̄ + t c_τ`` is exact at both ends); at ``b = 0`` every
    ``π_k`` is the float ``1/K``.
    """
    K = config.n_classes
    mean = centers.mean(axis=0)
    shift = float(config.confusion_shift)
    if shift == 0.0:
        center = mean
    else:
        center = (1.0 - shift) * mean + shift * centers[config.confusion_target]
    diff = centers - center
    distances = np.einsum("kd,kd->k", diff, diff)
    m = int(config.confusion_label_classes)
    nearest = np.argsort(distances, kind="stable")[:m]
    bias = float(config.confusion_label_bias)
    law = np.full(K, (1.0 - bias) / K)
    law[nearest] += bias / m
    return center, nearest, law


@functools.lru_cache(maxsize=_BASE_CACHE_SIZE)
def _base_draws(seed: int, config: SyntheticConfig) -> _Base:
    """Draw everything that does not depend on σ, once per ``(seed, config)``."""
    K, d, r = config.n_classes, config.dim, config.radius
    n_clean, n_conf = K * config.n_per_class, config.n_confusion
    n_total = config.n_total

    centers = _draw_centers(seed, config)
    y_clean_pop = np.repeat(np.arange(K, dtype=np.int64), config.n_per_class)
    X_clean_pop = centers[y_clean_pop] + r * _rng(seed, _STREAM_CLASS_SAMPLES).standard_normal(
        (n_clean, d)
    )
    conf_center, nearest, _ = _confusion_geometry(centers, config)
    conf_radius = float(config.confusion_radius_ratio) * r  # a * r; exactly r at a = 1
    rng_conf = _rng(seed, _STREAM_CONFUSION)
    X_conf = conf_center + conf_radius * rng_conf.standard_normal((n_conf, d))
    y_conf = rng_conf.integers(0, K, size=n_conf, dtype=np.int64)
    bias = float(config.confusion_label_bias)
    if bias > 0.0:  # stream 8 is drawn only here: at b = 0 the labels are the paper's
        rng_label = _rng(seed, _STREAM_CONFUSION_LABEL)
        u = rng_label.random(n_conf)
        j = rng_label.integers(0, nearest.size, size=n_conf, dtype=np.int64)
        y_conf = np.where(u < bias, nearest[j], y_conf).astype(np.int64, copy=False)

    X = np.concatenate([X_clean_pop, X_conf])
    y = np.concatenate([y_clean_pop, y_conf])
    is_conf = np.concatenate([np.zeros(n_clean, dtype=bool), np.ones(n_conf, dtype=bool)])
    # Per-sample draws are indexed by the sample (before the split), so they do not depend on it.
    G = _rng(seed, _STREAM_FEATURE_NOISE).standard_normal((n_total, d))
    flip_u = _rng(seed, _STREAM_FLIP_UNIFORM).random(n_total)
    offset = _rng(seed, _STREAM_FLIP_OTHER_CLASS).integers(1, K, size=n_total, dtype=np.int64)
    flip_target = (y + offset) % K
    rng_test_flip = _rng(seed, _STREAM_TEST_FLIP)
    test_flip_u = rng_test_flip.random(n_total)
    test_flip_target = (y + rng_test_flip.integers(1, K, size=n_total, dtype=np.int64)) % K

    order = _rng(seed, _STREAM_SPLIT).permutation(n_total)
    test, train = order[: config.n_test], order[config.n_test :]
    arrays = _Base(
        X_train=X[train],
        X_test=X[test],
        G_train=G[train],
        G_test=G[test],
        y_train=y[train],
        y_test=y[test],
        is_confusion_train=is_conf[train],
        is_confusion_test=is_conf[test],
        flip_uniform_train=flip_u[train],
        flip_target_train=flip_target[train],
        flip_uniform_test=test_flip_u[test],
        flip_target_test=test_flip_target[test],
        centers=centers,
    )
    for array in arrays:
        array.flags.writeable = False
    return arrays
