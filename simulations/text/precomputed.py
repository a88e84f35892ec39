"""Precomputed representations read from a folder: a fine-tuned encoder's embeddings as input.

The GCUL paper's real-data rows come from a *fine-tuned* transformer, which the package does not
train. Whoever fine-tunes one (on a GPU, elsewhere) saves what it computes into a folder, and the
package reads that folder like any other representation. The format (one folder per corpus and
fine-tuning seed, e.g. ``finetuned-minilm/carer/seed0/``):

============== ============================ ====================================================
file           shape, dtype                 what
============== ============================ ====================================================
embeddings.npy (N, d), float16/32/64        the encoder's representation of each row (the input
                                            of its classification head)
labels.npy     (N,), any integer dtype      the label of each row, 0..C-1
split.npy      (N,), any integer dtype      0 = train (the rows the encoder was fine-tuned on),
                                            1 = validation, 2 = test
logits.npy     (N, C), float16/32/64        optional: the fine-tuned head's own logits (its
                                            softmax is the confidence a practitioner with this
                                            model would threshold)
============== ============================ ====================================================

Every array is read with ``allow_pickle=False`` and widened to float64 (labels to int64, split
ids to int8); a file that breaks the format is refused with a one-line ``ValueError`` naming the
file. Nothing is downloaded; the folder is the user's.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["SPLIT_NAMES", "Precomputed", "load_precomputed"]

SPLIT_NAMES = {0: "train", 1: "validation", 2: "test"}
"""The split ids of ``split.npy`` and their names."""


@dataclass(frozen=True)
class Precomputed:
    """A representation read by :func:`load_precomputed`.

    Attributes
    ----------
    embeddings : ndarray of shape (N, d), float64
    labels : ndarray of shape (N,), int64, in ``0..n_classes-1``
    split : ndarray of shape (N,), int8, in {0, 1, 2} (:data:`SPLIT_NAMES`)
    logits : ndarray of shape (N, n_classes), float64, or None
    n_classes : int
    folder : Path
    """

    embeddings: np.ndarray
    labels: np.ndarray
    split: np.ndarray
    logits: np.ndarray | None
    n_classes: int
    folder: Path

    def rows(self, *parts: str) -> np.ndarray:
        """Sorted indices of the rows in the named parts (``"train"``, ``"validation"``,
        ``"test"``)."""
        ids = {name: key for key, name in SPLIT_NAMES.items()}
        unknown = [p for p in parts if p not in ids]
        if unknown or not parts:
            raise ValueError(f"parts must be some of {', '.join(ids)}; got {parts!r}")
        return np.flatnonzero(np.isin(self.split, [ids[p] for p in parts]))

    def counts(self) -> dict[str, int]:
        """Rows per part, by name (parts with no row included, as 0)."""
        return {name: int(np.count_nonzero(self.split == key)) for key, name in SPLIT_NAMES.items()}

    def head_probabilities(self) -> np.ndarray:
        """Softmax of :attr:`logits` (float64, each row summing to 1 within rounding).

        Raises
        ------
        ValueError
            The folder has no ``logits.npy``.
        """
        if self.logits is None:
            raise ValueError(f"{self.folder}: no logits.npy, so no head probabilities")
        shifted = self.logits - self.logits.max(axis=1, keepdims=True)
        weights = np.exp(shifted)
        return weights / weights.sum(axis=1, keepdims=True)


def _load(path: Path) -> np.ndarray:
    try:
        array = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except (OSError, ValueError, EOFError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ValueError(f"{path}: not a readable .npy file ({reason})") from None
    if not isinstance(array, np.ndarray):
        raise ValueError(f"{path}: holds an archive, not one array")
    return array


def _floats(path: Path, array: np.ndarray, ndim: int) -> np.ndarray:
    if array.dtype.kind != "f":
        raise ValueError(f"{path}: expected floats (float16/32/64); got {array.dtype}")
    if array.ndim != ndim:
        raise ValueError(f"{path}: expected {ndim} dimensions; got shape {array.shape}")
    out = np.asarray(array, dtype=np.float64)
    if not np.all(np.isfinite(out)):
        bad = int(np.flatnonzero(~np.isfinite(out).reshape(out.shape[0], -1).all(axis=1))[0])
        raise ValueError(f"{path}: holds a value that is not finite (NaN or inf), first in row {bad}")
    return out


def _integers(path: Path, array: np.ndarray, n: int) -> np.ndarray:
    if array.dtype.kind not in "iu":
        raise ValueError(f"{path}: expected integers; got {array.dtype}")
    if array.shape != (n,):
        raise ValueError(f"{path}: expected shape ({n},), one value per row of embeddings.npy; got {array.shape}")
    return array.astype(np.int64)


def load_precomputed(
    folder: str | os.PathLike[str], n_classes: int | None = None
) -> Precomputed:
    """Read a folder of precomputed representations (the format in the module docstring).

    Parameters
    ----------
    folder : path
        Holds ``embeddings.npy``, ``labels.npy``, ``split.npy`` and, optionally, ``logits.npy``.
    n_classes : int, optional
        The number of classes C. Default: the width of ``logits.npy`` if present, else the
        largest label + 1.

    Returns
    -------
    Precomputed

    Raises
    ------
    ValueError
        In one line naming the file: a missing or unreadable file; embeddings that are not a 2-D
        float array with at least one row and column, or not finite; labels or split ids that
        are not integers, not one per row, or outside ``0..C-1`` and {0, 1, 2}; no test row;
        logits that are not (N, C) finite floats; ``n_classes`` below 2 or below the largest
        label + 1.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> np.save(folder / "embeddings.npy", np.eye(4, dtype=np.float16))
    >>> np.save(folder / "labels.npy", np.array([0, 1, 0, 1], dtype=np.int16))
    >>> np.save(folder / "split.npy", np.array([0, 0, 2, 2], dtype=np.int8))
    >>> data = load_precomputed(folder)
    >>> data.embeddings.dtype, data.n_classes, data.counts()
    (dtype('float64'), 2, {'train': 2, 'validation': 0, 'test': 2})
    >>> data.rows("test").tolist()
    [2, 3]
    """
    root = Path(folder)
    if not root.is_dir():
        raise ValueError(f"{root}: not a folder (expected embeddings.npy, labels.npy, split.npy)")
    path = root / "embeddings.npy"
    Z = _floats(path, _load(path), 2)
    if Z.shape[0] < 1 or Z.shape[1] < 1:
        raise ValueError(f"{path}: expected at least one row and one column; got shape {Z.shape}")
    n = Z.shape[0]
    path = root / "labels.npy"
    y = _integers(path, _load(path), n)
    path = root / "split.npy"
    split = _integers(path, _load(path), n)
    bad = ~np.isin(split, list(SPLIT_NAMES))
    if bad.any():
        raise ValueError(
            f"{path}: split ids must be 0 (train), 1 (validation) or 2 (test); got "
            f"{int(split[bad][0])} in row {int(np.flatnonzero(bad)[0])}"
        )
    if not np.any(split == 2):
        raise ValueError(f"{path}: no test row (split id 2)")
    logits = None
    path = root / "logits.npy"
    if path.exists():
        logits = _floats(path, _load(path), 2)
        if logits.shape[0] != n:
            raise ValueError(
                f"{path}: expected {n} rows, one per row of embeddings.npy; got shape {logits.shape}"
            )
    if n_classes is None:
        n_classes = logits.shape[1] if logits is not None else int(y.max()) + 1
    elif isinstance(n_classes, bool) or not isinstance(n_classes, int | np.integer):
        raise TypeError(f"n_classes must be an int; got {n_classes!r}")
    n_classes = int(n_classes)
    if n_classes < 2:
        raise ValueError(f"{root}: n_classes must be at least 2; got {n_classes}")
    label_path = root / "labels.npy"
    outside = (y < 0) | (y >= n_classes)
    if outside.any():
        raise ValueError(
            f"{label_path}: labels must lie in 0..{n_classes - 1}; got {int(y[outside][0])} in "
            f"row {int(np.flatnonzero(outside)[0])}"
        )
    if logits is not None and logits.shape[1] != n_classes:
        raise ValueError(
            f"{path}: expected {n_classes} columns, one per class; got shape {logits.shape}"
        )
    return Precomputed(Z, y, split.astype(np.int8), logits, n_classes, root)
