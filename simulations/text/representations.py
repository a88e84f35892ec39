r"""Texts to vectors for GCUL: three representations, and a cache of them on disk.

The paper runs GCUL on the 768-d embeddings of a *fine-tuned* DistilBERT. No model hub is
reachable here and no fine-tuning fits this package's budget, so three stand-ins, in order of
weight (how close each comes to the paper's space):

``"oof_logistic"`` (:func:`out_of_fold_scores`)
    TF-IDF of word 1–2 grams (at most 10,000 terms, the paper's TF-IDF baselines) and a
    multinomial logistic regression (scikit-learn, C = 1); each row's C decision scores come
    from the model fitted on the *other* folds (K random folds that do not depend on the
    labels). This is a **stand-in** for a fine-tuned encoder's penultimate layer: a supervised,
    label-shaped space of low dimension (C = 6 for dair-ai/emotion, 28 for GoEmotions) in which
    phase 1 has about the test error it has on unseen text. It is not DistilBERT, and it is
    not what the paper measured. A row's label never enters its own representation (a test
    checks it); it does enter the other rows' (their models were fitted on it).
``"lsa"`` (:func:`lsa`)
    Latent semantic analysis: the same TF-IDF, then a truncated SVD to 100 dimensions and
    rows scaled to unit length. Unsupervised (label-free), fitted on all the texts given.
``"wordllama"`` (:func:`sentence_embedding`)
    WordLlama's ``l2_supercat`` 256-d sentence embedding (the token embeddings of a large
    language model, distilled; average-pooled). Chosen because its weights and tokenizer are
    inside the wheel on the package index (``wordllama``, MIT licence, a 19 MB wheel), so it
    runs with no download at run time, and because it embeds a corpus of 20,000 texts in
    seconds on one core (an int8 ONNX MiniLM, the other offline route, takes about 6 ms a
    text: minutes a corpus). It is frozen, not fine-tuned: phase 1 on it is far weaker than on
    a fine-tuned encoder.

A user's own embeddings (e.g. of a fine-tuned DistilBERT, saved with ``numpy.save``) need none
of this: ``gcul compare --embeddings Z.npy`` and ``gcul feasibility`` take them.

Requires the optional extra ``text`` (``pip install "gcul[text]"``): scikit-learn (already a
dependency) and ``wordllama`` (imported only by :func:`sentence_embedding`).
"""

from __future__ import annotations

import hashlib
import io
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from simulations.certification import random_folds
from simulations.outputs import atomic_write_bytes
from simulations.validation import check_int

__all__ = [
    "MAX_FEATURES",
    "REPRESENTATIONS",
    "cached_representation",
    "lsa",
    "out_of_fold_scores",
    "sentence_embedding",
]

MAX_FEATURES = 10_000
"""Vocabulary cap of the TF-IDF (word 1–2 grams), as in the paper's TF-IDF baselines (appendix
"Experimental setup and hyperparameter", "Baseline models implementation")."""


def _tfidf() -> Any:
    from sklearn.feature_extraction.text import TfidfVectorizer

    return TfidfVectorizer(ngram_range=(1, 2), max_features=MAX_FEATURES, dtype=np.float64)


def _check_texts(texts: Any) -> list[str]:
    if isinstance(texts, str) or not isinstance(texts, Sequence):
        raise TypeError(f"texts must be a sequence of str; got {type(texts).__name__}")
    texts = list(texts)
    if not texts:
        raise ValueError("texts: got no text; at least one is needed")
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"texts[{i}]: expected str; got {type(text).__name__}")
    return texts


def out_of_fold_scores(
    texts: Sequence[str], labels: Any, n_folds: int = 5, seed: int = 0, *, C: float = 1.0
) -> np.ndarray:
    r"""Out-of-fold logistic-regression decision scores of TF-IDF features: a label-shaped space.

    The rows are dealt into ``n_folds`` random folds (:func:`simulations.certification.random_folds`,
    independent of the labels). For each fold, a TF-IDF (word 1–2 grams, :data:`MAX_FEATURES`
    terms) and a multinomial logistic regression (scikit-learn's, ``C``, lbfgs) are fitted on
    the other folds; the fold's rows get that model's decision scores. So the representation of
    a row depends on the texts and labels of the other folds and on its own text, never on its
    own label.

    Parameters
    ----------
    texts : sequence of str
        One text a row.
    labels : array_like of shape (N,)
        Integer labels ``0..C-1``; every class needs a row outside every fold.
    n_folds : int, default 5
        Number of folds K, 2..N.
    seed : int, default 0
        Seed of the folds, in ``[0, 2**32)``.
    C : float, default 1.0
        Inverse L2 strength of the logistic regression (the paper's TF-IDF baselines use 1).

    Returns
    -------
    ndarray of shape (N, C)
        Row ``i``: the decision scores :math:`w_c^\top x_i + b_c` of the model that did not see
        row ``i``, one column a class (two columns for two classes: ``-s`` and ``s``).

    Raises
    ------
    ValueError
        Labels not integers ``0..C-1`` of the texts' length, fewer than two classes, or a fold
        whose complement lacks a class.

    Examples
    --------
    >>> texts = ["so happy", "happy day", "glad and happy", "so sad", "sad day", "sad and low"] * 5
    >>> labels = [0, 0, 0, 1, 1, 1] * 5
    >>> Z = out_of_fold_scores(texts, labels, n_folds=3)
    >>> Z.shape, float(np.mean(Z.argmax(axis=1) == labels))
    ((30, 2), 1.0)
    """
    from sklearn.linear_model import LogisticRegression

    texts = _check_texts(texts)
    y = _check_labels(labels, len(texts))
    n_folds = check_int("n_folds", n_folds, 2, len(texts))
    seed = check_int("seed", seed, 0, 2**32 - 1)
    n_classes = int(y.max()) + 1
    folds = random_folds(len(texts), n_folds, seed)
    Z = np.empty((len(texts), n_classes), dtype=np.float64)
    for fold in range(n_folds):
        held = np.flatnonzero(folds == fold)
        fit = np.flatnonzero(folds != fold)
        missing = np.setdiff1d(np.arange(n_classes), y[fit])
        if missing.size:
            raise ValueError(
                f"labels: class {int(missing[0])} has no row outside fold {fold} of {n_folds} "
                f"(seed {seed}); every class needs rows in at least two folds"
            )
        vectorizer = _tfidf()
        X_fit = vectorizer.fit_transform([texts[i] for i in fit])
        model = LogisticRegression(C=C, max_iter=1000).fit(X_fit, y[fit])
        scores = model.decision_function(vectorizer.transform([texts[i] for i in held]))
        if n_classes == 2:
            scores = np.column_stack([-scores, scores])
        Z[held] = scores
    return Z


def lsa(texts: Sequence[str], n_components: int = 100, seed: int = 0) -> np.ndarray:
    """Latent semantic analysis: TF-IDF (word 1–2 grams), truncated SVD, rows to unit length.

    Unsupervised: fitted on all of ``texts`` (no label is read), as a user would on an
    unlabelled pool.

    Parameters
    ----------
    texts : sequence of str
    n_components : int, default 100
        Dimensions kept, 1..min(N, vocabulary) - 1.
    seed : int, default 0
        Seed of the randomised SVD, in ``[0, 2**32)``.

    Returns
    -------
    ndarray of shape (N, n_components)
        Unit-length rows (a text with no known term: a zero row).

    Examples
    --------
    >>> Z = lsa(["a happy day", "a sad day", "happy happy", "so sad"], n_components=2)
    >>> Z.shape, bool(np.allclose(np.linalg.norm(Z, axis=1), 1.0))
    ((4, 2), True)
    """
    from sklearn.decomposition import TruncatedSVD
    from sklearn.preprocessing import normalize

    texts = _check_texts(texts)
    n_components = check_int("n_components", n_components, 1)
    seed = check_int("seed", seed, 0, 2**32 - 1)
    X = _tfidf().fit_transform(texts)
    limit = min(X.shape) - 1
    if n_components > limit:
        raise ValueError(
            f"n_components must be at most {limit} (min(texts, terms) - 1); got {n_components}"
        )
    Z = TruncatedSVD(n_components=n_components, random_state=seed).fit_transform(X)
    return normalize(Z).astype(np.float64)


def sentence_embedding(texts: Sequence[str], norm: bool = True) -> np.ndarray:
    """WordLlama's 256-d ``l2_supercat`` sentence embeddings, from the weights inside its wheel.

    Loads with ``disable_download=True`` from the installed package's own folder (its default
    load looks for the tokenizer elsewhere and then asks a model hub), so nothing is fetched.

    Parameters
    ----------
    texts : sequence of str
    norm : bool, default True
        Scale each row to unit length, as WordLlama itself does before it compares, ranks or
        clusters sentences (its ``similarity``, ``rank`` and ``cluster`` embed with
        ``norm=True``): the convention of sentence-embedding models, whose geometry is the
        angle between rows. ``False`` gives the raw average-pooled token embeddings.

    Returns
    -------
    ndarray of shape (N, 256)
        Average-pooled token embeddings (unit rows if ``norm``), as float64.

    Raises
    ------
    ImportError
        ``wordllama`` is not installed (``pip install "gcul[text]"``).
    """
    texts = _check_texts(texts)
    try:
        import wordllama
    except ImportError:
        raise ImportError(
            'sentence_embedding needs wordllama: pip install "gcul[text]"'
        ) from None
    model = wordllama.WordLlama.load(
        cache_dir=Path(wordllama.__file__).parent, disable_download=True
    )
    return np.asarray(model.embed(texts, norm=bool(norm)), dtype=np.float64)


def _oof(texts: Sequence[str], labels: Any, seed: int) -> np.ndarray:
    return out_of_fold_scores(texts, labels, seed=seed)


def _lsa(texts: Sequence[str], labels: Any, seed: int) -> np.ndarray:
    return lsa(texts, seed=seed)


def _wordllama(texts: Sequence[str], labels: Any, seed: int) -> np.ndarray:
    return sentence_embedding(texts)


REPRESENTATIONS: dict[str, tuple[Callable[[Sequence[str], Any, int], np.ndarray], bool, str]] = {
    "oof_logistic": (_oof, True, "out-of-fold TF-IDF + logistic-regression scores (5 folds)"),
    "lsa": (_lsa, False, "LSA: TF-IDF -> truncated SVD, 100 d, unit rows"),
    "wordllama": (_wordllama, False, "WordLlama l2_supercat 256-d sentence embedding (frozen), unit rows"),
}
"""Every representation by name: ``(compute(texts, labels, seed), reads_labels, description)``."""


def cached_representation(
    method: str,
    texts: Sequence[str],
    labels: Any,
    *,
    corpus: str,
    split: str,
    seed: int = 0,
    cache_dir: str | os.PathLike[str] | None = None,
) -> np.ndarray:
    """A representation of :data:`REPRESENTATIONS`, read from or written to a cache on disk.

    The file is ``<cache_dir>/<corpus>-<split>-<method>-seed<seed>-<digest>.npy``: keyed by the
    corpus, the split, the method and the seed of its folds or SVD, and by a SHA-256 digest of
    the method's description, the texts (and, for a method that reads labels, the labels), so an
    edited corpus or a changed method is never served a stale file. Written atomically; a cached
    file that cannot be read (truncated, damaged) or has the wrong number of rows is computed
    again and replaced.

    Parameters
    ----------
    method : str
        A key of :data:`REPRESENTATIONS`.
    texts : sequence of str
    labels : array_like of shape (N,)
        Integer labels (read only by ``"oof_logistic"``).
    corpus, split : str
        Names in the file name (e.g. ``"carer"``, ``"all"``).
    seed : int, default 0
    cache_dir : path, optional
        Folder of the cache (created if missing); ``None`` computes without caching.

    Returns
    -------
    ndarray of shape (N, d)

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> texts, labels = ["a happy day", "a sad day", "happy happy", "so sad"] * 5, [0, 1, 0, 1] * 5
    >>> kwargs = dict(corpus="toy", split="all", cache_dir=folder)
    >>> first = cached_representation("oof_logistic", texts, labels, **kwargs)
    >>> again = cached_representation("oof_logistic", texts, labels, **kwargs)
    >>> bool(np.array_equal(first, again)), len(os.listdir(folder))
    (True, 1)
    """
    if method not in REPRESENTATIONS:
        raise ValueError(f"method must be one of {', '.join(REPRESENTATIONS)}; got {method!r}")
    compute, reads_labels, _ = REPRESENTATIONS[method]
    texts = _check_texts(texts)
    seed = check_int("seed", seed, 0, 2**32 - 1)
    for argument, value in (("corpus", corpus), ("split", split)):
        if not isinstance(value, str) or not value or not value.replace("_", "").isalnum():
            raise ValueError(f"{argument} must be a non-empty word (letters, digits, _); got {value!r}")
    if cache_dir is None:
        return compute(texts, labels, seed)
    digest = hashlib.sha256()
    # the description names what the method computes (e.g. "unit rows"): a method whose output
    # changes gets a new description, so a file cached before the change is never served
    digest.update(REPRESENTATIONS[method][2].encode("utf-8") + b"\0")
    for text in texts:
        digest.update(text.encode("utf-8") + b"\0")
    if reads_labels:
        digest.update(_check_labels(labels, len(texts)).tobytes())
    path = Path(cache_dir) / f"{corpus}-{split}-{method}-seed{seed}-{digest.hexdigest()[:16]}.npy"
    if path.is_file():
        try:
            cached = np.load(path, allow_pickle=False)
        except (OSError, ValueError, EOFError):
            cached = None  # truncated or damaged (e.g. a run killed mid-write by another tool)
        if isinstance(cached, np.ndarray) and cached.ndim == 2 and cached.shape[0] == len(texts):
            return cached
        # a cache is disposable: a file that cannot be read, or of the wrong shape, is computed
        # again and replaced
    Z = compute(texts, labels, seed)
    buffer = io.BytesIO()
    np.save(buffer, Z)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, buffer.getvalue())
    return Z


def _check_labels(labels: Any, n: int) -> np.ndarray:
    y = np.asarray(labels)
    if y.ndim != 1 or y.size != n or y.dtype.kind not in "iu":
        raise ValueError(
            f"labels: expected {n} integer labels (one a text); got {y.dtype} of shape {y.shape}"
        )
    y = y.astype(np.int64)
    if y.min() < 0 or np.unique(y).size < 2:
        raise ValueError("labels: expected integers 0..C-1 holding at least two classes")
    return y
