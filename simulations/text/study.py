"""The text studies' shared protocol: which corpora, pooled how, split how, and the fine-tuned reader.

The GCUL paper's real-data evidence (section "Empirical evaluation") is re-run in kind by the text
benchmark and placed on the regime map; both read the corpora and the fine-tuned encoder's
representations the same way, defined once here:

- :data:`CORPORA` and :data:`CORPUS_TITLE`: the two public corpora, GoEmotions and dair-ai/emotion
  (CARER), by the names their loaders in :mod:`simulations.text.corpora` use.
- :func:`load_pooled`: a corpus's train, dev and test files pooled into one labelled set (the
  stand-in representations are computed on it and split by
  :func:`simulations.statistics.stratified_splits` with :data:`TEST_SIZE` and :data:`SEED`).
- :func:`load_finetuned`: a fine-tuned encoder's folders ``<folder>/<corpus>/seed<k>/``, each
  checked row for row against the corpus it claims to come from.

Core dependencies only (the corpora are read as text files); the representations computed from
the texts are in :mod:`simulations.text.representations` (the optional extra ``text``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from simulations.text.corpora import load_carer, load_goemotions
from simulations.text.precomputed import Precomputed, load_precomputed

__all__ = [
    "CORPORA",
    "CORPUS_TITLE",
    "FINETUNED_SEEDS",
    "LAM",
    "MIN_CLASS_ROWS",
    "SEED",
    "TEST_SIZE",
    "PooledCorpus",
    "load_finetuned",
    "load_pooled",
]

CORPORA = ("carer", "goemotions")
CORPUS_TITLE = {"carer": "dair-ai/emotion (CARER)", "goemotions": "GoEmotions"}
LAM = 0.15  # the paper's λ_target
TEST_SIZE = 0.2  # the held-out share of each stratified split
SEED = 0  # the splits' seed (and the stand-in representations')
MIN_CLASS_ROWS = 10  # a class with fewer pooled rows is left out (none on the real corpora)
FINETUNED_SEEDS = (0, 1, 2)  # the fine-tuning seeds of the shipped fine-tuned encoder


class PooledCorpus(NamedTuple):
    """A corpus's three files pooled: what :func:`load_pooled` returns.

    Attributes
    ----------
    texts : list of str
        The sentences, train then dev then test, in file order.
    y : ndarray of int64
        Their labels, ``0 .. len(label_names) - 1``.
    label_names : tuple of str
        The names of the classes kept.
    note : str
        One sentence saying how many rows were pooled and what was left out.
    """

    texts: list[str]
    y: np.ndarray
    label_names: tuple[str, ...]
    note: str


def _loader(name: object) -> Callable[..., Any]:
    if not isinstance(name, str) or name not in CORPORA:
        raise ValueError(f"corpus must be one of {', '.join(CORPORA)}, got {name!r}")
    return load_carer if name == "carer" else load_goemotions


def load_pooled(root: str | Path, name: str) -> PooledCorpus:
    """Pool a corpus's train, dev and test files; leave out classes under :data:`MIN_CLASS_ROWS` rows.

    Parameters
    ----------
    root : str or path-like
        The folder holding ``goemotions/`` and ``carer/`` in the layout their loaders read
        (:func:`~simulations.text.load_goemotions`, :func:`~simulations.text.load_carer`).
    name : {"carer", "goemotions"}
        Which corpus.

    Returns
    -------
    PooledCorpus
        ``(texts, y, label_names, note)``; GoEmotions' multi-label rows are left out by its
        loader, and the note says how many.

    Raises
    ------
    ValueError
        ``name`` is not one of :data:`CORPORA`, or a file breaks its corpus's format (the
        loader's one-line message).
    """
    loader = _loader(name)
    root = Path(root)
    parts = [loader(root / name, split) for split in ("train", "dev", "test")]
    texts = [t for p in parts for t in p.texts]
    y = np.concatenate([p.labels for p in parts])
    names = parts[0].label_names
    counts = np.bincount(y, minlength=len(names))
    keep_classes = np.flatnonzero(counts >= MIN_CLASS_ROWS)
    note = f"{len(texts):,} rows (train + dev + test pooled)"
    dropped = sum(p.n_dropped for p in parts)
    if dropped:
        note += f"; {dropped:,} multi-label rows left out"
    if keep_classes.size < counts.size:
        gone = [names[c] for c in np.flatnonzero(counts < MIN_CLASS_ROWS)]
        keep = np.isin(y, keep_classes)
        texts = [t for t, k in zip(texts, keep, strict=True) if k]
        y = np.searchsorted(keep_classes, y[keep])
        names = tuple(names[c] for c in keep_classes)
        note += f"; classes with < {MIN_CLASS_ROWS} rows left out: {', '.join(gone)}"
    return PooledCorpus(texts, y.astype(np.int64), names, note)


def load_finetuned(
    folder: str | Path, corpus: str, root: str | Path, seeds: Sequence[int] = FINETUNED_SEEDS
) -> list[tuple[int, Precomputed]]:
    """The fine-tuned encoder's seeds of ``corpus`` found in ``folder/<corpus>/seed<k>/``.

    Each folder is read and validated by :func:`~simulations.text.load_precomputed`, then checked
    row for row against the corpus's own labels (train, then dev, then test, as the loaders
    return them): a folder made from another corpus or release is refused rather than measured.

    Parameters
    ----------
    folder : str or path-like
        The folder holding ``<corpus>/seed<k>/``.
    corpus : {"carer", "goemotions"}
        Which corpus.
    root : str or path-like
        The corpora's folder, as :func:`load_pooled` reads it.
    seeds : sequence of int, default :data:`FINETUNED_SEEDS`
        The fine-tuning seeds to look for; a missing ``seed<k>/`` is skipped.

    Returns
    -------
    list of (int, Precomputed)
        One ``(seed, data)`` per folder found, in the order of ``seeds``.

    Raises
    ------
    ValueError
        In one line: ``corpus`` unknown, ``seeds`` empty or not integers, a folder that breaks
        the format or whose labels and split ids are not the corpus's rows in order, or no
        ``seed<k>/`` folder at all.
    """
    loader = _loader(corpus)
    seeds = list(seeds)
    if not seeds or not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in seeds):
        raise ValueError(f"seeds must be a non-empty sequence of integers, got {seeds!r}")
    folder, root = Path(folder), Path(root)
    parts = {key: loader(root / corpus, name).labels for key, name in ((0, "train"), (1, "dev"), (2, "test"))}
    found = []
    for seed in seeds:
        path = folder / corpus / f"seed{seed}"
        if not path.exists():
            continue
        data = load_precomputed(path, n_classes=len(loader(root / corpus, "test").label_names))
        expected = np.concatenate([parts[k] for k in (0, 1, 2) if np.any(data.split == k)])
        present = [k for k in (0, 1, 2) if np.any(data.split == k)]
        order_ok = np.array_equal(data.split, np.repeat(present, [parts[k].size for k in present])) \
            if expected.size == data.labels.size else False
        if not order_ok or not np.array_equal(data.labels, expected):
            raise ValueError(
                f"{path}: its labels and split ids are not the {corpus} corpus's rows in order "
                f"(train, dev, test: {', '.join(str(parts[k].size) for k in (0, 1, 2))} rows); "
                "was it made from another release?"
            )
        found.append((int(seed), data))
    if not found:
        raise ValueError(f"{folder / corpus}: no seed<k> folder for seeds {', '.join(map(str, seeds))}")
    return found
