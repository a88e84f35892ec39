"""The rejection label of GCUL: ``uncertain_label`` checked, resolved against the classes seen in
``fit``, and the ``GCUL.UNCERTAIN`` descriptor."""

from __future__ import annotations

from numbers import Real

import numpy as np

__all__ = [
    "DEFAULT_UNCERTAIN_STRING",
    "UncertainLabel",
    "check_uncertain_label",
    "resolve_uncertain_label",
]

DEFAULT_UNCERTAIN_STRING = "uncertain"
"""The rejection label ``uncertain_label=None`` picks for string (or object) labels."""


class UncertainLabel:
    """Descriptor behind ``GCUL.UNCERTAIN``: the rejection label of a fitted model.

    The rejection label depends on the labels seen in ``fit`` (``uncertain_label_``), so it is
    known only after ``fit``. On a fitted model ``model.UNCERTAIN`` is ``uncertain_label_``. On
    the class, ``GCUL.UNCERTAIN`` is this sentinel: it documents the convention and refuses to be
    compared with labels, so that ``y_pred == GCUL.UNCERTAIN`` fails loudly instead of being
    all-False.
    """

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        if not hasattr(instance, "uncertain_label_"):
            raise AttributeError(
                "UNCERTAIN is the rejection label uncertain_label_ of a fitted GCUL; call fit first"
            )
        return instance.uncertain_label_

    def __repr__(self) -> str:
        return "GCUL.UNCERTAIN (the rejection label uncertain_label_ of a fitted GCUL)"

    def __eq__(self, other):
        raise TypeError(
            "GCUL.UNCERTAIN depends on the labels seen in fit; compare with model.UNCERTAIN "
            "(or model.uncertain_label_) of a fitted model instead, or use model.accepts(X)"
        )

    __ne__ = __eq__
    __hash__ = object.__hash__
    # ``ndarray == GCUL.UNCERTAIN`` then returns NotImplemented and Python calls __eq__ above.
    # Without it, NumPy < 2 catches the TypeError, warns "elementwise comparison failed" and
    # returns False: the all-False comparison this sentinel exists to prevent.
    __array_ufunc__ = None


def _is_number(value) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool | np.bool_)


def _numeric_labels(classes: np.ndarray) -> bool:
    if classes.dtype.kind in "biuf":
        return True
    return classes.dtype.kind == "O" and all(_is_number(c) for c in classes.tolist())


def check_uncertain_label(label) -> None:
    """Refuse an ``uncertain_label`` that is not ``None``, a string or a finite number.

    Raises
    ------
    TypeError
        ``label`` is neither ``None``, a string nor a real number (booleans are refused).
    ValueError
        ``label`` is a NaN or infinite number.
    """
    if label is None or isinstance(label, str):
        return
    if not _is_number(label):
        raise TypeError(f"uncertain_label must be None, a string or a number; got {label!r}")
    if not np.isfinite(label):
        raise ValueError(f"uncertain_label must be finite; got {label!r}")


def resolve_uncertain_label(label, classes: np.ndarray):
    """The rejection label for sorted distinct ``classes``: ``label``, or the default for ``None``.

    ``None`` gives, for numeric labels, the smallest integer above every class,
    ``floor(max(classes)) + 1`` (``K`` for ``0..K-1``; a Python ``int`` for integer and boolean
    labels, a ``float`` for float labels) and, for string or object labels,
    :data:`DEFAULT_UNCERTAIN_STRING`. An explicit ``label`` must be a number for numeric labels
    and a string for the others.

    Raises
    ------
    TypeError
        ``label`` of the other kind than the labels.
    ValueError
        The label (given or picked) is one of ``classes``; ``max(classes) + 1`` does not fit the
        integer dtype of ``classes``.
    """
    numeric = _numeric_labels(classes)
    if label is None:
        if not numeric:
            label = DEFAULT_UNCERTAIN_STRING
        elif classes.dtype.kind == "f":
            label = float(np.floor(classes[-1])) + 1.0
        else:
            label = int(classes.tolist()[-1]) + 1
            if classes.dtype.kind in "iu" and label > np.iinfo(classes.dtype).max:
                raise ValueError(
                    f"uncertain_label=None picks max(classes_) + 1 = {label}, which does not fit "
                    f"the labels' dtype {classes.dtype}; pass uncertain_label"
                )
    elif numeric != _is_number(label):
        kind = "a number" if numeric else "a string"
        raise TypeError(f"uncertain_label must be {kind} like the labels of y; got {label!r}")
    if np.any(classes == label):
        raise ValueError(
            f"uncertain_label={label!r} is a class of y; the rejection label must differ from "
            "every class (pass another uncertain_label)"
        )
    return label
