"""Numerical helpers shared by the solvers: exact power-of-two scaling, a fast first argmin,
label encoding."""

from __future__ import annotations

import numpy as np

__all__ = ["encode_known_labels", "encode_labels", "first_argmin", "power_of_two_exponent"]


def encode_labels(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(y, return_inverse=True)`` for a 1-D label array ``y`` of any dtype.

    Returns ``(classes, encoded)``: the sorted distinct labels (``y``'s dtype) and the index of
    each label in them (``intp``). Small non-negative integer labels (as GCUL's phases use) are
    counted instead of sorted; when they are exactly ``0..K-1`` the encoding is ``y`` itself.
    """
    if y.dtype.kind in "iu" and y.size and y.min() >= 0 and y.max() < 2 * y.size:
        encoded = y.astype(np.intp, copy=False)
        counts = np.bincount(encoded)
        present = counts > 0
        if present.all():
            return np.arange(counts.size).astype(y.dtype, copy=False), encoded
        return np.flatnonzero(present).astype(y.dtype), (np.cumsum(present) - 1)[encoded]
    classes, encoded = np.unique(y, return_inverse=True)
    return classes, encoded.reshape(-1)


def power_of_two_exponent(*arrays: np.ndarray) -> int:
    """Exponent ``e`` such that ``arrays * 2**-e`` have their largest magnitude in [0.5, 1).

    Scaling by a power of two is exact (barring underflow of entries about ``2**-1022`` times
    smaller than the largest), so the solvers run on data of magnitude about 1 whatever the
    units of ``X``: no sum of squares overflows for ``X`` near ``1e300`` and none underflows for
    ``X`` near ``1e-300``. For data that needs no scaling the results are bit for bit those
    of the unscaled computation (every operation commutes with an exact power-of-two scale),
    as long as nothing overflows or underflows.
    """
    # max |a| as max(max a, -min a): the same number without an |a| temporary as large as a
    largest = max((max(float(a.max()), -float(a.min())) if a.size else 0.0) for a in arrays)
    if largest == 0.0:
        return 0
    return int(np.frexp(largest)[1])


def _lowest_set_bit_table(n_bits: int) -> np.ndarray:
    values = np.arange(2**n_bits)
    lowest = values & -values
    table = np.zeros(2**n_bits, dtype=np.uint8)
    table[1:] = np.log2(lowest[1:]).astype(np.uint8)
    return table


_LOWEST_SET_BIT = {8: _lowest_set_bit_table(8), 16: _lowest_set_bit_table(16)}
_BIT_SHIFTS = np.arange(16, dtype=np.uint64)[:, None]


def first_argmin(distances: np.ndarray, *, one_hot: bool = False):
    """``np.argmin(distances, axis=0)`` (first index on ties) for a ``(K, n)`` array, faster.

    NumPy's argmin along a short axis costs a function call per column; for ``K <= 16`` the rows
    equal to the column minimum are packed into a bit mask instead (bit ``k`` from row ``k``),
    and a table maps each mask to its lowest set bit, i.e. the first minimising row. The masks
    are built 8 bytes at a time: each row of 0/1 flags (``uint8`` for ``K <= 8``, ``uint16``
    up to 16; padded to a multiple of 8 bytes) is read as ``uint64`` words, shifted by ``k``
    and or-ed in, which never carries across the lanes of a word. The indices are ``uint8``
    then (``intp`` for ``K > 16``).

    With ``one_hot=True`` returns ``(indices, mask)``: ``mask`` is the ``(K, n)`` boolean matrix
    ``indices == arange(K)[:, None]`` when no column has a tie for its minimum (it is then the
    matrix of minima itself), ``None`` otherwise (or for ``K > 16``).
    """
    n_rows, n = distances.shape
    if n_rows > 16:
        indices = np.argmin(distances, axis=0)
        return (indices, None) if one_hot else indices
    n_bits, dtype = (8, np.uint8) if n_rows <= 8 else (16, np.uint16)
    lanes = 64 // n_bits  # columns per 64-bit word
    width = -(-n // lanes) * lanes
    is_min = np.zeros((n_rows, width), dtype=bool)
    np.equal(distances, np.minimum.reduce(distances, axis=0), out=is_min[:, :n])
    flags = is_min.view(np.uint8) if n_bits == 8 else is_min.astype(np.uint16)
    words = flags.view(np.uint64)
    code = np.bitwise_or.reduce(words << _BIT_SHIFTS[:n_rows], axis=0).view(dtype)[:n]
    indices = _LOWEST_SET_BIT[n_bits].take(code)
    if not one_hot:
        return indices
    tied = np.any(code & (code - dtype(1)))  # a mask with two bits or more
    return indices, None if tied else is_min[:, :n]


_MAX_LISTED = 5  # labels quoted in an error message, at most


def encode_known_labels(y: np.ndarray, classes: np.ndarray, name: str) -> np.ndarray:
    """The index in sorted distinct ``classes`` of each label of 1-D ``y`` (``intp``).

    Raises ``ValueError`` naming ``name`` when a label of ``y`` is not one of ``classes``
    (quoting at most five of them), or when ``y`` and ``classes`` cannot be compared (strings
    against numbers).
    """
    try:
        index = np.searchsorted(classes, y)
        found = classes[np.minimum(index, classes.size - 1)] == y
    except (TypeError, ValueError) as exc:  # e.g. strings against numbers
        raise ValueError(
            f"{name} must hold labels of the fitted classes {classes.tolist()[:_MAX_LISTED]}"
            f"{'...' if classes.size > _MAX_LISTED else ''}; got labels of dtype {y.dtype}"
        ) from exc
    found = np.asarray(found, dtype=bool)
    if not found.all():
        unknown = np.unique(y[~found])
        listed = unknown[:_MAX_LISTED].tolist()
        more = f" and {unknown.size - _MAX_LISTED} more" if unknown.size > _MAX_LISTED else ""
        raise ValueError(
            f"{name} holds labels that are not fitted classes: {listed}{more}; the classes are "
            f"{classes.tolist()[:_MAX_LISTED]}{'...' if classes.size > _MAX_LISTED else ''}"
        )
    return index.astype(np.intp, copy=False)
