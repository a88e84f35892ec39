"""The settings of :func:`simulations.compare.compare`: one validated, frozen object.

:func:`~simulations.compare.compare` takes its options as keyword arguments (its public
signature), builds one :class:`CompareSettings` from them, and passes that object whole to every
step that needs an option: the splits, each split's measurement (in a worker process too), the
split cache and the guarantee. What each option may be is declared once, in
:data:`CONSTRAINTS` (scikit-learn's ``_parameter_constraints``), and checked once, when the
object is made: a bad value is refused there, in one line naming the option, and no step after
it checks again.
"""

from __future__ import annotations

import dataclasses
import numbers
import os
from collections.abc import Mapping
from types import MappingProxyType

from simulations.statistics import DEFAULT_LEVEL
from simulations.gcul import ERROR_POOL
from simulations.validation import (
    SEED,
    Boolean,
    Constraint,
    Folder,
    Interval,
    NonZeroInt,
    OrNone,
    argument_namer,
    check_parameters,
)

__all__ = [
    "CONSTRAINTS",
    "DEFAULT_CALIBRATION",
    "DEFAULT_TEST_SIZE",
    "MAX_SPLITS",
    "CompareSettings",
]

DEFAULT_TEST_SIZE = 0.3
"""Share of each class in the test part of a split, by default."""

DEFAULT_CALIBRATION = 0.3
"""Share of the rows held out (at random, not stratified) to calibrate the guarantee."""

MAX_SPLITS = 1000
"""At most this many splits (each refits GCUL and every rejector)."""

_SHARE = Interval(numbers.Real, 0.0, 1.0, closed="neither")

CONSTRAINTS: Mapping[str, Constraint] = MappingProxyType(
    {
        "lam": Interval(numbers.Real, 0.0, 1.0, closed="left"),
        "splits": Interval(numbers.Integral, 1, MAX_SPLITS),
        "seed": SEED,
        "test_size": _SHARE,
        "delta": _SHARE,
        "calibration": _SHARE,
        "target_risk": OrNone(_SHARE),
        "level": _SHARE,
        "error_pool": ERROR_POOL,  # GCUL's own constraint: one check, one message
        "standardize": Boolean(),
        "n_jobs": NonZeroInt(),
        "cache_dir": OrNone(Folder()),
        "keep_cache": Boolean(),
    }
)
"""What each setting may be (:mod:`simulations.validation`'s constraints), in the order they are
checked; every field of :class:`CompareSettings` but ``names`` has an entry."""


@dataclasses.dataclass(frozen=True)
class CompareSettings:
    """The options of one :func:`~simulations.compare.compare` run, checked once and frozen.

    Every parameter is :func:`~simulations.compare.compare`'s of the same name, with the same
    default and the same allowed values (:data:`CONSTRAINTS`); the object holds them normalised
    (floats, ints, ``bool``, a :class:`~pathlib.Path`).

    Parameters
    ----------
    lam : float, default 0.15
        Relative rejection cost λ in [0, 1).
    splits : int, default 10
        Number of stratified train/test splits, 1..:data:`MAX_SPLITS`.
    seed : int, default 0
        Seed of the splits, the rejectors' draws and the calibration split, in [0, 2**32).
    test_size : float, default :data:`DEFAULT_TEST_SIZE`
        Share of every class in the test part, in (0, 1).
    delta : float, default 0.05
        Risk of the guarantee's bounds, in (0, 1).
    calibration : float, default :data:`DEFAULT_CALIBRATION`
        Share of the rows held out to calibrate the guarantee, in (0, 1).
    target_risk : float or None, default None
        SGR's target selective risk for MSP, in (0, 1); None: GCUL's on the tuning rows.
    level : float, default 0.05
        Two-sided level of the verdicts' test, in (0, 1).
    error_pool : {"in_sample", "out_of_fold"}, default "in_sample"
        GCUL's phase-1 error pool (checked by :data:`simulations.gcul.ERROR_POOL`, as GCUL's).
    standardize : bool, default False
        Standardise the features on each fit's training rows.
    n_jobs : int, default 1
        Worker processes for the splits, non-zero (-1 = all usable cores).
    cache_dir : path or None, default None
        Folder of the split cache (kept as a :class:`pathlib.Path`).
    keep_cache : bool, default True
        False: remove this run's split files once it has succeeded.
    names : mapping of str to str, optional
        How messages name the options (the command line passes its own spellings); kept as a
        copy (a dict), and left out of equality: it is not a setting of the computation.

    Raises
    ------
    TypeError, ValueError
        The first option (in :data:`CONSTRAINTS`' order) that its constraint refuses, in one
        line naming it (as ``names`` shows it), the allowed values and the bad value.

    Examples
    --------
    >>> settings = CompareSettings(lam=0.2, splits=3)
    >>> settings.lam, settings.splits, settings.cache_dir
    (0.2, 3, None)
    >>> CompareSettings(test_size=1.0, names={"test_size": "--test-size"})
    Traceback (most recent call last):
    ...
    ValueError: --test-size must be in (0, 1); got 1.0
    """

    lam: float = 0.15
    splits: int = 10
    seed: int = 0
    test_size: float = DEFAULT_TEST_SIZE
    delta: float = 0.05
    calibration: float = DEFAULT_CALIBRATION
    target_risk: float | None = None
    level: float = DEFAULT_LEVEL
    error_pool: str = "in_sample"
    standardize: bool = False
    n_jobs: int = 1
    cache_dir: str | os.PathLike[str] | None = None  # stored as a Path
    keep_cache: bool = True
    names: Mapping[str, str] | None = dataclasses.field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        name = argument_namer(self.names)  # a TypeError for anything but a mapping or None
        object.__setattr__(self, "names", dict(self.names or {}))  # a copy of the caller's
        values = {key: getattr(self, key) for key in CONSTRAINTS}
        for key, value in check_parameters(CONSTRAINTS, values, name).items():
            object.__setattr__(self, key, value)

    def name(self, argument: str) -> str:
        """How messages name ``argument``: its entry of ``names``, else ``argument`` itself."""
        return (self.names or {}).get(argument, argument)
