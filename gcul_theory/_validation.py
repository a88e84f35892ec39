"""Input validation shared by the public functions of :mod:`gcul_theory`.

Validation happens once, at the public boundary; private helpers assume valid input.
Every message names the argument, the allowed range and the offending value.
"""

from __future__ import annotations

import reprlib
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np

if TYPE_CHECKING:  # typing.Unpack from Python 3.11; the annotations are never evaluated
    from typing_extensions import Unpack

__all__: list[str] = []

MAX_SHOWN = 120  # characters of an input value shown in an error message

_REPR = reprlib.Repr()
_REPR.maxstring = MAX_SHOWN
_REPR.maxother = MAX_SHOWN
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 8


def shown(value: Any) -> str:
    """``repr(value)`` for an error message, at most about :data:`MAX_SHOWN` characters.

    Messages embed the offending value; a 10-million-character string or array must not become
    a 10-million-character message.
    """
    if isinstance(value, np.generic):
        value = value.item()
    try:
        text = _REPR.repr(value)
    except Exception:  # a broken __repr__ must not hide the real error
        text = f"<{type(value).__name__} object>"
    if len(text) > MAX_SHOWN:
        text = text[: MAX_SHOWN - 3] + "..."
    return text


class Interval(TypedDict, total=False):
    """The range keywords of :func:`as_float_array` (``None``: unbounded; ``*_open``: excluded)."""

    lower: float | None
    upper: float | None
    lower_open: bool
    upper_open: bool


def _interval(
    lower: float | None = None,
    upper: float | None = None,
    lower_open: bool = False,
    upper_open: bool = False,
) -> str:
    left = "(" if lower_open or lower is None else "["
    right = ")" if upper_open or upper is None else "]"
    lo = "-inf" if lower is None else f"{lower:g}"
    hi = "inf" if upper is None else f"{upper:g}"
    return f"{left}{lo}, {hi}{right}"


def as_array(value: Any, name: str, expected: str) -> np.ndarray:
    """``np.asarray(value)``, refusing with a ``TypeError`` that names ``name`` what is not data.

    ``None``, strings and bytes are refused outright (NumPy would make 0-d object or string
    arrays of them); so is anything NumPy cannot turn into an array, such as a ragged nested list
    (NumPy's own message would not say which argument it was). ``expected`` completes the
    message "{name} must be {expected}".
    """
    if value is None or isinstance(value, str | bytes):
        raise TypeError(f"{name} must be {expected}; got {shown(value)}")
    try:
        return np.asarray(value)
    except Exception as exc:  # ragged nested lists, objects whose __array__ fails
        raise TypeError(f"{name} must be {expected}; got {shown(value)} ({exc})"[:400]) from exc


def as_indicator(value: Any, name: str) -> np.ndarray:
    """Return a 1-D boolean array from booleans or 0/1 numbers, naming ``name`` in errors.

    Raises
    ------
    TypeError
        If the data are not booleans or real numbers (strings, objects, None).
    ValueError
        If the array is not 1-D or holds a value other than 0 and 1 (NaN included).
    """
    array = as_array(value, name, "a 1-D array of booleans or 0/1")
    if array.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one entry per sample); got shape {array.shape}")
    if array.dtype == bool:
        return array
    if not (np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)):
        raise TypeError(f"{name} must hold booleans or 0/1; got dtype {array.dtype}")
    bad = ~np.isin(array, (0, 1))
    if bad.any():
        raise ValueError(f"{name} must hold only 0/1 (or booleans); got {shown(array[bad][0])}")
    return array.astype(bool)


def as_float_array(
    value: Any,
    name: str,
    *,
    lower: float | None = None,
    upper: float | None = None,
    lower_open: bool = False,
    upper_open: bool = False,
) -> np.ndarray:
    """Return ``value`` as a float64 array after checking type, finiteness and range.

    Raises
    ------
    TypeError
        If ``value`` is not real-valued numeric data (strings, objects, complex, None).
    ValueError
        If any element is NaN or infinite, or lies outside the interval.
    """
    array = as_array(value, name, "a real number or array of real numbers")
    if array.dtype == bool or not (
        np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)
    ):
        raise TypeError(
            f"{name} must be a real number or array of real numbers; got dtype {array.dtype}"
        )
    with np.errstate(over="ignore", invalid="ignore"):  # longdouble beyond float64 becomes inf
        array = array.astype(np.float64, copy=False)
    # the checks a block of values at a time: no mask as large as a large array (a 100,000 x 768
    # one would take four of 77 MB); the first bad value in C order, as over the whole array
    blocks = _flat_blocks(array)
    if any(((block == 0.0) & np.signbit(block)).any() for block in blocks):
        # -0.0 is 0.0; a copy keeps the caller's array untouched
        array = np.where((array == 0.0) & np.signbit(array), 0.0, array)
        blocks = _flat_blocks(array)
    for block in blocks:
        finite = np.isfinite(block)
        if not finite.all():
            bad = float(block[~finite][0])
            raise ValueError(f"{name} must be finite float64 values (no NaN or inf); got {bad!r}")
    if lower is None and upper is None:
        return array
    interval = _interval(lower, upper, lower_open, upper_open)
    for block in blocks:
        outside = np.zeros(block.shape, dtype=bool)
        if lower is not None:
            outside |= (block <= lower) if lower_open else (block < lower)
        if upper is not None:
            outside |= (block >= upper) if upper_open else (block > upper)
        if outside.any():
            bad = float(block[outside][0])
            raise ValueError(f"{name} must lie in {interval}; got {bad!r}")
    return array


_CHECK_BLOCK = 1 << 20  # values checked at once by as_float_array


def _flat_blocks(array: np.ndarray) -> list[np.ndarray]:
    """``array``'s values in C order as consecutive 1-D views of at most ``_CHECK_BLOCK``
    values (one raveled copy if ``array`` is not C-contiguous)."""
    flat = array.reshape(-1)
    return [flat[start : start + _CHECK_BLOCK] for start in range(0, flat.size, _CHECK_BLOCK)]


def as_float_scalar(value: Any, name: str, **interval: Unpack[Interval]) -> float:
    """Return ``value`` as a Python float after the checks of :func:`as_float_array`.

    ``interval`` holds the range keywords of :func:`as_float_array` (``lower``, ``upper``,
    ``lower_open``, ``upper_open``), passed on to it.

    Raises
    ------
    TypeError
        As :func:`as_float_array`.
    ValueError
        As :func:`as_float_array`, or if ``value`` is not a scalar (a 0-d array is one).
    """
    array = as_float_array(value, name, **interval)
    if array.ndim != 0:
        raise ValueError(
            f"{name} must be a scalar in {_interval(**interval)}; got an array of shape "
            f"{array.shape}"
        )
    return float(array)


def check_delta(delta: Any) -> float:
    """``delta`` as a float in (0, 1), or ``TypeError``/``ValueError`` naming ``delta``."""
    return as_float_scalar(delta, "delta", lower=0.0, upper=1.0, lower_open=True, upper_open=True)


def as_int(value: Any, name: str, *, lower: int, upper: int | None = None) -> int:
    """Return ``value`` as a Python int, refusing bools, floats and values outside the range."""
    allowed = (
        f"an int in [{lower}, {upper}]" if upper is not None else f"an int of at least {lower}"
    )
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise TypeError(f"{name} must be {allowed}; got {shown(value)}")
    if value < lower or (upper is not None and value > upper):
        raise ValueError(f"{name} must be {allowed}; got {shown(value)}")
    return int(value)


def as_generator(value: Any, name: str = "rng") -> np.random.Generator:
    """``np.random.default_rng(value)`` for the seeds a public ``rng`` argument documents.

    Accepts ``None``, a non-negative int, a :class:`numpy.random.SeedSequence`, a
    :class:`numpy.random.BitGenerator` or a :class:`numpy.random.Generator` (returned as is, so
    the caller's stream advances).
    """
    seeds = (int, np.integer, np.random.SeedSequence, np.random.BitGenerator, np.random.Generator)
    if isinstance(value, bool | np.bool_) or not (value is None or isinstance(value, seeds)):
        raise TypeError(
            f"{name} must be None, a non-negative int, a numpy SeedSequence or Generator; "
            f"got {shown(value)}"
        )
    if isinstance(value, int | np.integer) and value < 0:
        raise ValueError(f"{name} must be a non-negative int seed; got {shown(value)}")
    return np.random.default_rng(value)


def broadcast(*arrays: np.ndarray, names: tuple[str, ...]) -> list[np.ndarray]:
    """Broadcast arrays against each other, naming the arguments if their shapes clash."""
    try:
        return list(np.broadcast_arrays(*arrays))
    except ValueError as exc:
        shapes = ", ".join(f"{n}{a.shape}" for n, a in zip(names, arrays, strict=True))
        raise ValueError(f"shapes do not broadcast: {shapes}") from exc


def as_output(array: np.ndarray) -> float | np.ndarray:
    """Scalars in, floats out: unwrap 0-d arrays to a Python float."""
    array = np.asarray(array, dtype=np.float64)
    return float(array) if array.ndim == 0 else array


def check_choice(value: Any, allowed: tuple[str, ...], name: str) -> str:
    """Validate the string argument ``name`` against the choices ``allowed``."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, one of {allowed}; got {shown(value)}")
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}; got {shown(value)}")
    return value


def check_method(method: Any, allowed: tuple[str, ...]) -> str:
    """Validate a method name against ``allowed``."""
    return check_choice(method, allowed, "method")
