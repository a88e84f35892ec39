"""The regime map's grid: its five factors, the settings it runs, and one setting's data.

A setting is a tuple ``(sigma, ratio, shift, n_confusion, bias)`` (:data:`NAMES`): the noise
level σ of the paper's synthetic protocol and four parameters of its confusion population
(:class:`simulations.synthetic.SyntheticConfig`). :data:`PAIRS` names the phase diagrams: a full
grid of each pair of factors, the others at their default; :func:`settings` lists every setting
of them once.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import simulations
from simulations.validation import check_int, check_real

__all__ = [
    "ALPHA",
    "BOOT_SEED",
    "FACTORS",
    "HALF_SEED",
    "LAM",
    "NAMES",
    "N_BOOT",
    "N_PER_CLASS",
    "PAIRS",
    "SEEDS",
    "VALID",
    "Factor",
    "config_of",
    "settings",
    "share",
]

LAM = 0.15
"""The paper's λ_target: the cost at which the theory's own rules judge a rejection."""
ALPHA = 0.05
"""The family-wise level of Holm's correction in each phase diagram."""
SEEDS = tuple(range(10, 30))
"""The seeds every setting runs: the paper's seeds 10..19 and ten more."""
HALF_SEED = 26
"""The seed of the random halves of the settings (the choice half and the held-out half)."""
BOOT_SEED = 27
"""The seed of the bootstrap of the held-out AUC over seeds and settings."""
N_BOOT = 1000
"""The bootstrap's replicates: the SE's own relative sampling error is about 1/sqrt(2 N_BOOT)."""
VALID = "hunter_worsley"
"""The valid λ* predictor of the cells (the tightest valid one, ``gcul_theory.DEFAULT_METHOD``)."""
N_PER_CLASS = 2000
"""The protocol's samples per class; q = n_conf / (K n_per_class + n_conf)."""


@dataclasses.dataclass(frozen=True)
class Factor:
    """One axis of the map: its name, symbol, what it is, its default and its grid.

    Attributes
    ----------
    name : str
        Its key in :data:`FACTORS` and its column in the tables (``"sigma"``, ``"ratio"``,
        ``"shift"``, ``"n_confusion"``, ``"bias"``).
    symbol : str
        Its symbol in the report and the figures (σ, a, t, q, b).
    title : str
        An axis label saying what it is.
    default : float
        Its value while another pair of factors is mapped.
    grid : tuple of float
        Its values on the map, increasing.
    """

    name: str
    symbol: str
    title: str
    default: float
    grid: tuple[float, ...]


FACTORS: dict[str, Factor] = {
    f.name: f
    for f in (
        Factor("sigma", "σ", "feature noise σ (labels flip with prob. 0.025σ)", 4.0,
               (0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)),
        Factor("ratio", "a", "confusion radius / class radius (confusion_radius_ratio)", 1.0,
               (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)),
        Factor("shift", "t", "confusion centre moved toward class 0 (confusion_shift)", 0.0,
               (0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0)),
        Factor("n_confusion", "q", "confusion share q = n_conf / n_total (n_confusion)", 2000,
               (250, 500, 1000, 2000, 4000, 8000, 16000)),
        Factor("bias", "b", "confusion labels biased to its 2 nearest classes (confusion_label_bias)",
               0.0, (0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0)),
    )
}  # fmt: skip
"""The five factors of the map, by name, in the order of a setting's tuple (:data:`NAMES`)."""
PAIRS: tuple[tuple[str, str], ...] = (
    ("sigma", "ratio"),
    ("sigma", "shift"),
    ("sigma", "n_confusion"),
    ("sigma", "bias"),
    ("shift", "bias"),
    ("ratio", "n_confusion"),
)
"""The phase diagrams: (y axis, x axis), a full grid of each pair, the other factors at default."""

Setting = tuple[float, float, float, int, float]  # (sigma, ratio, shift, n_confusion, bias)
NAMES = tuple(FACTORS)
"""The factors' names in the order of a setting's tuple ``(sigma, ratio, shift, n_confusion, bias)``."""


def settings() -> list[Setting]:
    """Every setting of the study, each once, in a fixed order (pair by pair, row by row).

    Returns
    -------
    list of tuple
        The settings of every phase diagram of :data:`PAIRS` (a full grid of the pair, the
        other factors at their default), a setting shared by two diagrams listed once, where
        it first appears. Its index in this list is the ``setting`` column of the tables.

    Examples
    --------
    >>> from simulations.regime_map import settings
    >>> grid = settings()
    >>> len(grid), grid[0]
    (361, (0.0, 0.25, 0.0, 2000, 0.0))
    """
    default = {name: f.default for name, f in FACTORS.items()}
    out: list[Setting] = []
    for first, second in PAIRS:
        for u in FACTORS[first].grid:
            for v in FACTORS[second].grid:
                values = default | {first: u, second: v}
                raw = tuple(values[n] for n in NAMES)
                setting: Setting = (raw[0], raw[1], raw[2], int(raw[3]), raw[4])
                if setting not in out:
                    out.append(setting)
    return out


def share(n_confusion: int) -> float:
    """The confusion share q = n_conf / n_total of the protocol's K = 5 classes.

    Parameters
    ----------
    n_confusion : int
        The confusion population's size n_conf (at least 0); every class has
        :data:`N_PER_CLASS` samples.

    Returns
    -------
    float
        ``n_confusion / (5 * N_PER_CLASS + n_confusion)``, in [0, 1).

    Raises
    ------
    TypeError
        If ``n_confusion`` is not an integer.
    ValueError
        If it is negative.

    Examples
    --------
    >>> from simulations.regime_map import share
    >>> share(2000), round(share(16000), 3)
    (0.16666666666666666, 0.615)
    """
    n_confusion = check_int("n_confusion", n_confusion, low=0)
    return n_confusion / (5 * N_PER_CLASS + n_confusion)


def config_of(setting: Setting) -> tuple[Any, float]:
    """The :class:`~simulations.synthetic.SyntheticConfig` and the noise level σ of a setting.

    Parameters
    ----------
    setting : tuple
        ``(sigma, ratio, shift, n_confusion, bias)``, e.g. an item of :func:`settings`.

    Returns
    -------
    config : simulations.synthetic.SyntheticConfig
        The protocol with :data:`N_PER_CLASS` samples per class and the setting's confusion
        population (its size, radius ratio, shift and label bias).
    sigma : float
        The noise level, the ``noise`` of :func:`simulations.make_dataset`.

    Raises
    ------
    TypeError
        If ``setting`` is not a sequence of five numbers.
    ValueError
        If a value is out of its range (σ below 0, or what
        :class:`~simulations.synthetic.SyntheticConfig` refuses).

    Examples
    --------
    >>> from simulations.regime_map import config_of
    >>> config, sigma = config_of((4.0, 1.0, 0.0, 2000, 0.0))
    >>> config.n_confusion, sigma
    (2000, 4.0)
    """
    if isinstance(setting, str) or not hasattr(setting, "__len__") or len(setting) != len(NAMES):
        raise TypeError(f"setting must be a sequence ({', '.join(NAMES)}); got {setting!r}")
    check_real("sigma", setting[0], low=0.0)
    check_int("n_confusion", setting[3], low=0)
    sigma, ratio, shift, n_confusion, bias = setting
    config = simulations.synthetic.SyntheticConfig(
        n_per_class=N_PER_CLASS,
        n_confusion=int(n_confusion),
        confusion_radius_ratio=float(ratio),
        confusion_shift=float(shift),
        confusion_label_bias=float(bias),
    )
    return config, float(sigma)

