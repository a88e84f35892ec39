"""Checks of scalar arguments at a public boundary of :mod:`simulations`.

One place for "a real number in an interval" and "an integer in a range", so that a module does
not grow its own ``_check_real``/``_check_int``. Validation happens once, where a public function
receives its arguments; private helpers assume valid input. Every message names the argument, the
allowed range and the bad value (scikit-learn's convention).

:func:`check_embeddings` is the one check of an embedding matrix, shared by
:func:`simulations.compare.compare`, :func:`simulations.feasibility.assess` and the loaders of
``gcul compare`` and ``gcul feasibility``, so that each refuses a bad ``Z`` in the same words.

Used by :mod:`simulations.demo`, :mod:`simulations.compare`, :mod:`simulations.synthetic`,
:mod:`simulations.sweep` and :mod:`simulations.reproduce`; a new check of a scalar goes here, not
into a private ``_check_*`` of its module.

A function or an estimator with many options declares them once, as a table of constraints
(:class:`Interval`, :class:`Options`, :class:`Boolean`, :class:`OrNone` ...; scikit-learn's
``_parameter_constraints``), which :func:`check_parameters` applies in one place: the settings of
:func:`simulations.compare.compare` (:class:`simulations.compare.settings.CompareSettings`) and
:class:`simulations.gcul.GCUL`'s parameters. A constraint two tables share is one object
(:data:`SEED`; ``ERROR_POOL`` of :mod:`simulations._error_pool`).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import numbers
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar, Union

__all__ = [
    "SEED",
    "Boolean",
    "Constraint",
    "Folder",
    "Hook",
    "Interval",
    "NonZeroInt",
    "Options",
    "OrNone",
    "argument_namer",
    "check_parameters",
    "check_embeddings",
    "check_int",
    "check_real",
    "error_pool_renamed",
    "first_line",
    "removed_parameters",
    "renamed_keyword",
]

_Function = TypeVar("_Function", bound=Callable[..., Any])


def _interval(low: float | None, high: float | None, open_low: bool, open_high: bool) -> str:
    left = "(" if open_low or low is None else "["
    right = ")" if open_high or high is None else "]"
    lo = "-inf" if low is None else f"{low:g}"
    hi = "inf" if high is None else f"{high:g}"
    return f"{left}{lo}, {hi}{right}"


def check_real(
    name: str,
    value: Any,
    low: float | None = None,
    high: float | None = None,
    *,
    open_low: bool = False,
    open_high: bool = False,
) -> float:
    """Return ``value`` as a float after checking that it is a finite real in an interval.

    Parameters
    ----------
    name : str
        The argument's name, as the message shows it.
    value : object
        What the caller passed.
    low, high : float, optional
        The interval's ends; ``None`` leaves that side unbounded.
    open_low, open_high : bool, default False
        Whether ``low`` (``high``) itself is excluded.

    Returns
    -------
    float

    Raises
    ------
    TypeError
        If ``value`` is not a real number (``bool`` is refused: ``True`` is not a rate).
    ValueError
        If ``value`` is NaN, infinite or outside the interval.

    Examples
    --------
    >>> check_real("eps", 0.25, 0.0, 1.0, open_low=True, open_high=True)
    0.25
    >>> check_real("eps", 1.0, 0.0, 1.0, open_low=True, open_high=True)
    Traceback (most recent call last):
    ...
    ValueError: eps must be in (0, 1); got 1.0
    >>> check_real("ratio", "4", 1.0, 12.0)
    Traceback (most recent call last):
    ...
    TypeError: ratio must be a real number; got '4' (str)
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got {value!r} ({type(value).__name__})")
    number = float(value)
    below = low is not None and (number <= low if open_low else number < low)
    above = high is not None and (number >= high if open_high else number > high)
    if not math.isfinite(number) or below or above:
        interval = _interval(low, high, open_low, open_high)
        raise ValueError(f"{name} must be in {interval}; got {value!r}")
    return number


def check_int(name: str, value: Any, low: int | None = None, high: int | None = None) -> int:
    """Return ``value`` as an int after checking that it is an integer in ``[low, high]``.

    Parameters
    ----------
    name : str
        The argument's name, as the message shows it.
    value : object
        What the caller passed; any :class:`numbers.Integral` (``numpy.int64`` too) but ``bool``.
    low, high : int, optional
        The range's ends, both included; ``None`` leaves that side unbounded. The message says
        "an integer in [low, high]", or "an integer >= low" ("<= high") for a one-sided range.

    Returns
    -------
    int

    Raises
    ------
    TypeError
        If ``value`` is not an integer (a float such as ``3.0`` is refused, and so is ``bool``).
    ValueError
        If ``value`` is outside the range.

    Examples
    --------
    >>> check_int("seed", 7, 0, 2**32 - 1)
    7
    >>> check_int("n_draws", 10, 1000, 10**7)
    Traceback (most recent call last):
    ...
    ValueError: n_draws must be an integer in [1000, 10000000]; got 10
    >>> check_int("n_classes", 1, 2)
    Traceback (most recent call last):
    ...
    ValueError: n_classes must be an integer >= 2; got 1
    """
    if low is not None and high is not None:
        allowed = f"an integer in [{low}, {high}]"
    elif low is not None:
        allowed = f"an integer >= {low}"
    elif high is not None:
        allowed = f"an integer <= {high}"
    else:
        allowed = "an integer"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be {allowed}; got {value!r} ({type(value).__name__})")
    as_int = int(value)  # exact for every Integral, so it compares as value does
    if (low is not None and as_int < low) or (high is not None and as_int > high):
        raise ValueError(f"{name} must be {allowed}; got {value!r}")
    return as_int


# --------------------------------------------------------------------------------------------
# Declared constraints: one table of (parameter -> what it may be), checked in one place


@dataclasses.dataclass(frozen=True)
class Interval:
    """A real number, or an integer, in an interval: :func:`check_real` or :func:`check_int`.

    Parameters
    ----------
    kind : {numbers.Real, numbers.Integral}
        What the value must be (``bool`` is neither, as in :func:`check_real`).
    low, high : float or int, optional
        The interval's ends; ``None`` leaves that side unbounded.
    closed : {"both", "left", "right", "neither"}, default "both"
        Which ends belong to the interval (scikit-learn's ``Interval``); an integer range is
        always closed.

    Examples
    --------
    >>> Interval(numbers.Real, 0, 1, closed="left").check("lam", 0.5)
    0.5
    >>> Interval(numbers.Integral, 1, 1000).check("splits", 0)
    Traceback (most recent call last):
    ...
    ValueError: splits must be an integer in [1, 1000]; got 0
    """

    kind: type
    low: float | None = None
    high: float | None = None
    closed: str = "both"

    def __post_init__(self) -> None:
        if self.kind not in (numbers.Real, numbers.Integral):
            raise TypeError(f"kind must be numbers.Real or numbers.Integral; got {self.kind!r}")
        if self.closed not in ("both", "left", "right", "neither"):
            raise ValueError(f"closed must be both, left, right or neither; got {self.closed!r}")
        if self.kind is numbers.Integral and self.closed != "both":
            raise ValueError("an integer range is closed: closed must be 'both'")

    def check(self, name: str, value: Any) -> float | int:
        """``value`` as a float (an int) if it is in the interval; else TypeError/ValueError."""
        if self.kind is numbers.Integral:
            low = None if self.low is None else int(self.low)
            high = None if self.high is None else int(self.high)
            return check_int(name, value, low, high)
        return check_real(
            name,
            value,
            self.low,
            self.high,
            open_low=self.closed in ("right", "neither"),
            open_high=self.closed in ("left", "neither"),
        )


@dataclasses.dataclass(frozen=True)
class Options:
    """One of a few strings, or None where it is listed (scikit-learn's ``StrOptions``);
    anything else is a ValueError.

    Examples
    --------
    >>> Options(("in_sample", "out_of_fold")).check("error_pool", "oof")
    Traceback (most recent call last):
    ...
    ValueError: error_pool must be one of 'in_sample', 'out_of_fold'; got 'oof'
    """

    values: tuple[str | None, ...]

    def check(self, name: str, value: Any) -> str | None:
        """``value`` if it is one of :attr:`values` (a string, or None if listed); else a
        ValueError naming them."""
        if not (isinstance(value, str) or value is None) or value not in self.values:
            allowed = ", ".join(map(repr, self.values))
            raise ValueError(f"{name} must be one of {allowed}; got {value!r}")
        return value


@dataclasses.dataclass(frozen=True)
class Boolean:
    """``True`` or ``False`` (``numpy.bool_`` too, returned as ``bool``); else a TypeError.

    Examples
    --------
    >>> Boolean().check("standardize", "yes")
    Traceback (most recent call last):
    ...
    TypeError: standardize must be True or False; got 'yes'
    """

    def check(self, name: str, value: Any) -> bool:
        """``bool(value)`` if ``value`` is a boolean; else a TypeError."""
        import numpy as np

        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False; got {value!r}")
        return bool(value)


@dataclasses.dataclass(frozen=True)
class NonZeroInt:
    """A non-zero integer, joblib's ``n_jobs`` (-1 = all usable cores); else a TypeError.

    Examples
    --------
    >>> NonZeroInt().check("n_jobs", 0)
    Traceback (most recent call last):
    ...
    TypeError: n_jobs must be a non-zero int (-1 = all usable cores); got 0
    """

    def check(self, name: str, value: Any) -> int:
        """``int(value)`` if it is a non-zero integer (not ``bool``); else a TypeError."""
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value == 0:
            raise TypeError(f"{name} must be a non-zero int (-1 = all usable cores); got {value!r}")
        return int(value)


@dataclasses.dataclass(frozen=True)
class Folder:
    """A path (``str`` or ``os.PathLike``), returned as a :class:`pathlib.Path`; else a TypeError.

    Examples
    --------
    >>> Folder().check("cache_dir", 3)
    Traceback (most recent call last):
    ...
    TypeError: cache_dir must be a path or None; got 3
    """

    def check(self, name: str, value: Any) -> Path:
        """``Path(value)`` if ``value`` is a path; else a TypeError."""
        if not isinstance(value, (str, os.PathLike)):
            raise TypeError(f"{name} must be a path or None; got {value!r}")
        return Path(value)


@dataclasses.dataclass(frozen=True)
class Hook:
    """A callable; else a TypeError.

    Examples
    --------
    >>> Hook().check("progress", 3)
    Traceback (most recent call last):
    ...
    TypeError: progress must be callable or None; got 3
    """

    def check(self, name: str, value: Any) -> Callable[..., Any]:
        """``value`` if it is callable; else a TypeError."""
        if not callable(value):
            raise TypeError(f"{name} must be callable or None; got {value!r}")
        return value


@dataclasses.dataclass(frozen=True)
class OrNone:
    """``None``, or what ``constraint`` allows (scikit-learn's ``[None, constraint]``).

    Examples
    --------
    >>> OrNone(Interval(numbers.Real, 0, 1, closed="neither")).check("target_risk", None)
    """

    constraint: Constraint

    def check(self, name: str, value: Any) -> Any:
        """``None`` if ``value`` is None, else ``constraint.check(name, value)``."""
        return None if value is None else self.constraint.check(name, value)


Constraint = Union[Interval, Options, Boolean, NonZeroInt, Folder, Hook, OrNone]
"""What a parameter may be: one of the constraint classes of this module, each with a
``check(name, value)`` that returns the value normalised (a float, an int, a Path ...) or raises
a one-line TypeError/ValueError naming ``name``, the allowed values and the bad value."""

SEED = Interval(numbers.Integral, 0, 2**32 - 1)
"""A seed of ``numpy.random.SeedSequence``/``default_rng`` as the package takes it (compare's
``seed``, GCUL's ``random_state``): an integer in [0, 2**32)."""


def check_parameters(
    constraints: Mapping[str, Constraint],
    values: Mapping[str, Any],
    name: Callable[[str], str] = str,
) -> dict[str, Any]:
    """Check every parameter of ``values`` against its entry of ``constraints``, in the table's
    order; return the values normalised.

    The one check of a function's or an estimator's many scalar options (scikit-learn's
    ``validate_parameter_constraints``): a table declares what each may be, this applies it at the
    public boundary, and private helpers assume valid values.

    Parameters
    ----------
    constraints : mapping of str to Constraint
        What each parameter may be.
    values : mapping of str to object
        The parameters' values; the same keys as ``constraints``.
    name : callable, default str
        How messages name a parameter (:func:`argument_namer`).

    Returns
    -------
    dict
        ``{parameter: normalised value}``, in the table's order.

    Raises
    ------
    TypeError, ValueError
        The first parameter that its constraint refuses, in one line that names it (as
        ``name`` shows it), the allowed values and the bad value.
    KeyError
        If ``values`` and ``constraints`` name different parameters (a programming error).

    Examples
    --------
    >>> table = {"lam": Interval(numbers.Real, 0, 1, closed="left"), "flag": Boolean()}
    >>> check_parameters(table, {"lam": 0.25, "flag": False})
    {'lam': 0.25, 'flag': False}
    >>> check_parameters(table, {"lam": 1, "flag": False}, argument_namer({"lam": "--lam"}))
    Traceback (most recent call last):
    ...
    ValueError: --lam must be in [0, 1); got 1
    """
    if set(values) != set(constraints):
        raise KeyError(
            f"parameters without a constraint or a value: {sorted(set(values) ^ set(constraints))}"
        )
    return {key: check.check(name(key), values[key]) for key, check in constraints.items()}


def argument_namer(names: Mapping[str, str] | None) -> Callable[[str], str]:
    """How a function's error messages name its arguments: ``names[argument]``, else ``argument``.

    A command line passes its option names (``{"out": "--out"}``) so that a message speaks of
    the option the user typed; a Python caller passes nothing.

    Parameters
    ----------
    names : mapping of str to str, or None
        The shown name of each argument that has one.

    Returns
    -------
    callable
        ``argument -> shown name``.

    Raises
    ------
    TypeError
        If ``names`` is neither a mapping nor None.

    Examples
    --------
    >>> name = argument_namer({"out": "--out"})
    >>> name("out"), name("seed")
    ('--out', 'seed')
    """
    if names is not None and not isinstance(names, Mapping):
        raise TypeError(f"names must be a mapping of argument names or None; got {names!r}")
    given = dict(names or {})
    return lambda argument: given.get(argument, argument)


def renamed_keyword(old: str, new: str, hint: str) -> Callable[[_Function], _Function]:
    """A decorator: a call that passes the keyword ``old`` (a parameter renamed ``new``) is
    refused with a TypeError that says so, instead of Python's bare "unexpected keyword".

    Parameters
    ----------
    old, new : str
        The parameter's former and present names.
    hint : str
        Appended to the message after a semicolon: what ``old`` means now, if anything.

    Returns
    -------
    callable
        The decorator; the decorated function keeps its name, docstring and signature
        (``functools.wraps``).

    Examples
    --------
    >>> @renamed_keyword("colour", "color", "colour is British")
    ... def paint(color="red"):
    ...     return color
    >>> paint(color="blue")
    'blue'
    >>> paint(colour="blue")
    Traceback (most recent call last):
    ...
    TypeError: paint() got the keyword 'colour', renamed 'color'; colour is British
    """

    def decorate(function: _Function) -> _Function:
        @functools.wraps(function)
        def checked(*args: Any, **kwargs: Any) -> Any:
            if old in kwargs:
                message = f"{function.__name__}() got the keyword {old!r}, renamed {new!r}"
                raise TypeError(f"{message}; {hint}")
            return function(*args, **kwargs)

        return checked  # type: ignore[return-value]  # the wrapper has the signature of the function it wraps

    return decorate


def removed_parameters(
    kept: int, removed: tuple[str, ...], hint: str
) -> Callable[[_Function], _Function]:
    """A decorator: a call in a function's former form, with the parameters ``removed`` (which
    came after its first ``kept`` positional ones) passed by position or by keyword, is refused
    with a one-line TypeError that says what to pass, instead of Python's bare "takes 3
    positional arguments but 5 were given".

    Parameters
    ----------
    kept : int
        How many positional arguments the function takes now.
    removed : tuple of str
        The names of the parameters it no longer has.
    hint : str
        Appended to the message after a semicolon: what to pass instead.

    Returns
    -------
    callable
        The decorator; the decorated function keeps its name, docstring and signature
        (``functools.wraps``).

    Examples
    --------
    >>> @removed_parameters(1, ("size",), "the brush knows its size: paint(brush)")
    ... def paint(brush):
    ...     return brush
    >>> paint("round")
    'round'
    >>> paint("round", 3)
    Traceback (most recent call last):
    ...
    TypeError: paint() no longer takes size; the brush knows its size: paint(brush)
    """
    names = " or ".join(removed)

    def decorate(function: _Function) -> _Function:
        @functools.wraps(function)
        def checked(*args: Any, **kwargs: Any) -> Any:
            if len(args) > kept or not kwargs.keys().isdisjoint(removed):
                raise TypeError(f"{function.__name__}() no longer takes {names}; {hint}")
            return function(*args, **kwargs)

        return checked  # type: ignore[return-value]  # the wrapper has the signature of the function it wraps

    return decorate


error_pool_renamed = renamed_keyword(
    "error_pool",
    "geometry_labels",
    "the training labels of lambda*_PRE's geometry ('observed' or 'clean', "
    "simulations.results.GEOMETRY_LABELS); error_pool now means only which rows phase 1's "
    "errors come from (GCUL, compare, assess)",
)
"""The decorator of every public function whose ``error_pool="observed"|"clean"`` was renamed
``geometry_labels`` (issue 33: :func:`simulations.reproduce.reproduce`,
:func:`simulations.sweep.run_sweep` and the sweep's and report's other public functions): that
keyword is refused with a TypeError naming ``geometry_labels``."""


def first_line(error: BaseException) -> str:
    """The first line of ``error``'s message, or its type's name if the message is empty.

    What a one-line error (``gcul``'s exit-2 messages, the sweep's ``SweepError``) quotes of an
    underlying exception.

    Examples
    --------
    >>> first_line(ValueError("bad value" + chr(10) + "more detail"))
    'bad value'
    >>> first_line(KeyError())
    'KeyError'
    """
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def check_embeddings(Z: Any, name: str = "Z", *, keep_float32: bool = False) -> Any:
    """Return ``Z`` as a C-contiguous float64 ``(N, d)`` array after checking it.

    The one check of an embedding matrix: :func:`simulations.compare.compare`,
    :func:`simulations.feasibility.assess` and the ``--embeddings`` loader of ``gcul compare``
    and ``gcul feasibility`` all call it, so a bad ``Z`` is refused in the same words by each.

    Parameters
    ----------
    Z : array_like
        Embeddings: real numbers, ``N >= 1`` rows of ``d >= 1`` columns, all finite.
    name : str, default "Z"
        How the message names it (``"--embeddings Z.npy"`` on the command line).
    keep_float32 : bool, default False
        Return a float32 ``Z`` as C-contiguous float32 (no float64 copy of a large embedding
        matrix; :func:`simulations.compare.compare` widens each split's rows itself).

    Returns
    -------
    numpy.ndarray of shape (N, d), float64 (float32 for a float32 ``Z`` with ``keep_float32``)

    Raises
    ------
    TypeError
        Not real numbers (strings, objects, complex).
    ValueError
        Not 2-D (a 1-D array too: one feature per row is ``Z.reshape(-1, 1)``, said in the
        message, never guessed), no rows or no columns, a row holding NaN or inf (the first
        such row is named).

    Examples
    --------
    >>> check_embeddings([[1, 2], [3, 4]]).dtype
    dtype('float64')
    >>> check_embeddings([1.0, 2.0, 3.0], "--embeddings z.npy")
    Traceback (most recent call last):
    ...
    ValueError: --embeddings z.npy: expected a 2-D array (N rows x d columns); got shape (3,) \
(for one feature per row, save Z.reshape(-1, 1))
    """
    import numpy as np

    try:
        array = np.asarray(Z)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name}: expected an array of real numbers ({first_line(exc)})") from None
    if array.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected real numbers; got dtype {array.dtype}")
    if array.ndim != 2:
        hint = " (for one feature per row, save Z.reshape(-1, 1))" if array.ndim == 1 else ""
        raise ValueError(
            f"{name}: expected a 2-D array (N rows x d columns); got shape {array.shape}{hint}"
        )
    if array.shape[0] == 0 or array.shape[1] == 0:
        raise ValueError(f"{name}: has no values (shape {array.shape})")
    with np.errstate(over="ignore"):  # long double beyond float64: caught as inf just below
        dtype = np.float32 if keep_float32 and array.dtype == np.float32 else np.float64
        array = np.ascontiguousarray(array, dtype=dtype)
    finite = np.isfinite(array).all(axis=1)
    if not finite.all():
        row = int(np.argmin(finite))
        raise ValueError(f"{name}: row {row} holds NaN or inf; the values must be finite")
    return array
