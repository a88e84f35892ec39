"""Loaders of the GCUL paper's two public text emotion corpora: GoEmotions and dair-ai/emotion.

Each loader is given the folder of a published copy (the package ships neither corpus and
downloads nothing) and returns a :class:`Corpus`: the texts, one integer label a text, and the
label names. A wrong folder, a missing file, a file without a row or a malformed line is a
one-line ``ValueError`` naming the file (and the line). Files are UTF-8, with or without a byte
order mark (BOM), which is not part of the first line's text.

Where the public copies are:

- GoEmotions (Demszky et al. 2020, Apache-2.0), the "original" 28-label split (27 emotions +
  neutral; train 43,410, dev 5,426, test 5,427 comments):
  https://github.com/google-research/google-research/tree/master/goemotions/data
  (``train.tsv``, ``dev.tsv``, ``test.tsv``; the label names are ``emotions.txt`` there, to be
  saved as ``labels.txt``), or the same files with ``labels.txt`` in
  https://github.com/monologg/GoEmotions-pytorch/tree/master/data/original.
- dair-ai/emotion (the CARER corpus, Saravia et al. 2018; 6 emotions; train 16,000, val 2,000,
  test 2,000 tweets), research and education use only: https://huggingface.co/datasets/dair-ai/emotion
  (another format), and as ``train.txt``/``val.txt``/``test.txt`` (``text;label`` lines), the files this
  loader reads, in Kaggle's "Emotions dataset for NLP" and in
  https://github.com/Ashugujjar3/Tweet_emotion-detector (commit 8e69c5e).
"""

from __future__ import annotations

import codecs
import dataclasses
import os
import re
from pathlib import Path

import numpy as np

__all__ = ["CARER_LABELS", "Corpus", "load_carer", "load_goemotions"]

CARER_LABELS = ("sadness", "joy", "love", "anger", "fear", "surprise")
"""dair-ai/emotion's label names in the order of its integer ids (0 = sadness through 5 = surprise),
as the Hugging Face copy numbers them."""

_SPLITS = ("train", "dev", "test")
_GOEMOTIONS_URL = "https://github.com/google-research/google-research/tree/master/goemotions/data"
_CARER_URL = "https://huggingface.co/datasets/dair-ai/emotion"
_LABEL_ID = re.compile(r"[0-9]+")
"""A label id of a GoEmotions file: ASCII digits only (``int`` would also take ``1_0``, ``+1``,
`` 1`` and other scripts' digits such as ``٣``)."""


@dataclasses.dataclass(frozen=True)
class Corpus:
    """Texts with their labels, one split of one corpus.

    Attributes
    ----------
    name : str
        ``"goemotions"`` or ``"carer"``.
    split : str
        ``"train"``, ``"dev"`` or ``"test"``.
    texts : tuple of str
        One text a row, in the file's order.
    labels : ndarray
        Of shape (N,), integer label ids ``0..C-1`` (single-label); for GoEmotions with
        ``single_label=False`` of shape (N, C), 0/1 (``int8``), one column a label.
    label_names : tuple of str
        ``label_names[c]`` names label ``c``.
    n_dropped : int
        Rows of the file left out (GoEmotions with ``single_label=True``: rows with more than one
        label); 0 otherwise.
    """

    name: str
    split: str
    texts: tuple[str, ...]
    labels: np.ndarray
    label_names: tuple[str, ...]
    n_dropped: int = 0

    def __len__(self) -> int:
        return len(self.texts)


def _folder(path: str | os.PathLike[str], corpus: str, url: str) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a folder path (str or os.PathLike); got {path!r}")
    folder = Path(path)
    if not folder.is_dir():
        raise ValueError(
            f"path: {str(folder)!r} is not a folder; pass the folder of the {corpus} files "
            f"(public copy: {url})"
        )
    return folder


def _check_split(split: object, choices: tuple[str, ...]) -> str:
    if split not in choices:
        raise ValueError(f"split must be one of {', '.join(map(repr, choices))}; got {split!r}")
    return str(split)


def _lines(file: Path, corpus: str, url: str) -> list[str]:
    if not file.is_file():
        raise ValueError(
            f"{file}: no such file; the {corpus} folder holds {_expected(corpus)} "
            f"(public copy: {url})"
        )
    data = file.read_bytes()
    data = data.removeprefix(codecs.BOM_UTF8)  # an editor's BOM, not the first text's start
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ValueError(f"{file}:{line}: not UTF-8 text ({exc.reason})") from None
    if not text.strip():
        raise ValueError(
            f"{file}: the file is {'blank' if text else 'empty'}; expected the rows of the "
            f"{corpus} split (public copy: {url})"
        )
    return text.split("\n")


def _expected(corpus: str) -> str:
    if corpus == "GoEmotions":
        return "train.tsv, dev.tsv, test.tsv and labels.txt"
    return "train.txt, val.txt and test.txt"


def load_goemotions(
    path: str | os.PathLike[str], split: str = "train", single_label: bool = True
) -> Corpus:
    """Read one split of GoEmotions from the folder of its published TSV files.

    Parameters
    ----------
    path : str or os.PathLike
        Folder holding ``train.tsv``, ``dev.tsv``, ``test.tsv`` (a line: the text, a tab, the
        comma-separated label ids, a tab, the comment id) and ``labels.txt`` (one label name a
        line; line ``c + 1`` names id ``c``). Blank lines are skipped; a label id is ASCII
        digits (``[0-9]+``).
    split : {"train", "dev", "test"}, default "train"
    single_label : bool, default True
        Keep only the rows with exactly one label (the paper's single-label task; on the
        original split 36,308 of 43,410 train, 4,548 of 5,426 dev and 4,590 of 5,427 test rows)
        and return one integer label a row; the number of rows left out is ``n_dropped``. With
        ``False`` every row is kept and ``labels`` is a 0/1 matrix of shape (N, C).

    Returns
    -------
    Corpus

    Raises
    ------
    ValueError
        ``path`` is not a folder, a file is missing, empty or blank, no row is left (with
        ``single_label``: every row has several labels), or a line is malformed (not three
        tab-separated fields, a label id that is not ASCII digits naming one of ``0..C-1``, a
        repeated label name); the message names the file and the line.

    Examples
    --------
    >>> import pathlib
    >>> sample = pathlib.Path(__file__).parents[2] / "tests" / "data" / "goemotions"
    >>> corpus = load_goemotions(sample, "dev")
    >>> len(corpus.label_names), corpus.label_names[27], corpus.labels.dtype
    (28, 'neutral', dtype('int64'))
    """
    folder = _folder(path, "GoEmotions", _GOEMOTIONS_URL)
    split = _check_split(split, _SPLITS)
    if not isinstance(single_label, bool):
        raise TypeError(f"single_label must be True or False; got {single_label!r}")
    names_file = folder / "labels.txt"
    names: list[str] = []
    for number, line in enumerate(_lines(names_file, "GoEmotions", _GOEMOTIONS_URL), 1):
        name = line.strip()
        if not name:
            continue
        if name in names:
            raise ValueError(f"{names_file}:{number}: label name {name!r} is repeated")
        names.append(name)
    if len(names) < 2:
        raise ValueError(f"{names_file}: names {len(names)} label(s); at least 2 are needed")
    n_labels = len(names)
    file = folder / f"{split}.tsv"
    texts: list[str] = []
    label_sets: list[list[int]] = []
    dropped = 0
    for number, line in enumerate(_lines(file, "GoEmotions", _GOEMOTIONS_URL), 1):
        if not line.strip():
            continue
        fields = line.rstrip("\r").split("\t")
        if len(fields) != 3:
            raise ValueError(
                f"{file}:{number}: expected 3 tab-separated fields (text, label ids, comment "
                f"id); got {len(fields)}"
            )
        ids = []
        for word in fields[1].split(","):
            label = int(word) if _LABEL_ID.fullmatch(word) else -1
            if not 0 <= label < n_labels:
                raise ValueError(
                    f"{file}:{number}: label id {word!r} is not an integer in 0..{n_labels - 1} "
                    f"(the ids of {names_file.name})"
                )
            ids.append(label)
        if single_label and len(ids) != 1:
            dropped += 1
            continue
        texts.append(fields[0])
        label_sets.append(ids)
    if not texts:
        raise ValueError(
            f"{file}: no single-label row ({dropped} rows, each with several labels); pass "
            "single_label=False to keep them"
        )
    if single_label:
        labels = np.array([ids[0] for ids in label_sets], dtype=np.int64)
    else:
        labels = np.zeros((len(label_sets), n_labels), dtype=np.int8)
        for row, ids in enumerate(label_sets):
            labels[row, ids] = 1
    return Corpus("goemotions", split, tuple(texts), labels, tuple(names), dropped)


def load_carer(path: str | os.PathLike[str], split: str = "train") -> Corpus:
    """Read one split of dair-ai/emotion (CARER) from the folder of its ``text;label`` files.

    Parameters
    ----------
    path : str or os.PathLike
        Folder holding ``train.txt``, ``val.txt`` and ``test.txt``: a line is the text, a
        semicolon, and the label as a word (one of :data:`CARER_LABELS`); the text is what
        precedes the line's last semicolon. Blank lines are skipped (the published
        ``val.txt`` opens with one).
    split : {"train", "dev", "val", "test"}, default "train"
        ``"dev"`` and ``"val"`` both read ``val.txt``.

    Returns
    -------
    Corpus
        Labels are the ids of :data:`CARER_LABELS` (0 = sadness, ..., 5 = surprise); ``split``
        is ``"dev"`` for ``val.txt``.

    Raises
    ------
    ValueError
        ``path`` is not a folder, the file is missing, empty or blank, or a line has no ``;``
        or an unknown label word; the message names the file and the line.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "test.txt").write_text("i feel fine;joy\\ni am scared;fear\\n")
    >>> corpus = load_carer(folder, "test")
    >>> corpus.texts, corpus.labels.tolist()
    (('i feel fine', 'i am scared'), [1, 4])
    """
    folder = _folder(path, "dair-ai/emotion (CARER)", _CARER_URL)
    split = _check_split(split, ("train", "dev", "val", "test"))
    split = "dev" if split == "val" else split
    file = folder / f"{'val' if split == 'dev' else split}.txt"
    ids = {name: i for i, name in enumerate(CARER_LABELS)}
    texts: list[str] = []
    labels: list[int] = []
    for number, line in enumerate(_lines(file, "dair-ai/emotion (CARER)", _CARER_URL), 1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        text, sep, word = line.rpartition(";")
        if not sep:
            raise ValueError(f"{file}:{number}: expected 'text;label'; the line has no ';'")
        label = ids.get(word.strip())
        if label is None:
            raise ValueError(
                f"{file}:{number}: unknown label {word.strip()!r}; expected one of "
                f"{', '.join(CARER_LABELS)}"
            )
        texts.append(text)
        labels.append(label)
    return Corpus("carer", split, tuple(texts), np.array(labels, dtype=np.int64), CARER_LABELS)
