"""simulations.text.representations: the out-of-fold space never reads a row's own label, LSA,
WordLlama offline, and the cache."""

from __future__ import annotations

import numpy as np
import pytest
from test_text_corpora import SAMPLE

from simulations.certification import random_folds
from simulations.text import load_goemotions
from simulations.text.representations import (
    REPRESENTATIONS,
    cached_representation,
    lsa,
    out_of_fold_scores,
)

WORDS = {
    0: ["happy", "glad", "joy", "smile", "great"],
    1: ["sad", "cry", "tears", "lonely", "grief"],
    2: ["angry", "mad", "furious", "hate", "rage"],
}


def _toy(n: int = 90, seed: int = 0) -> tuple[list[str], np.ndarray]:
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    texts = [" ".join(rng.choice(WORDS[int(c)], 3)) + " today" for c in y]
    return texts, y


def test_out_of_fold_row_never_reads_its_own_label():
    # Flip one row's label: its own representation must not move (bit for bit), while rows
    # of the other folds, whose models were fitted on that label, do. A representation fitted
    # in-sample (the row's own label in its model) fails the first assertion.
    texts, y = _toy()
    before = out_of_fold_scores(texts, y, n_folds=5, seed=3)
    folds = random_folds(len(texts), 5, seed=3)
    for row in (0, 41):
        flipped = y.copy()
        flipped[row] = (y[row] + 1) % 3
        after = out_of_fold_scores(texts, flipped, n_folds=5, seed=3)
        assert np.array_equal(after[row], before[row])
        assert np.array_equal(after[folds == folds[row]], before[folds == folds[row]])
        moved = np.abs(after - before).max(axis=1) > 0
        assert moved[folds != folds[row]].any()  # the test can see a leak


def test_in_sample_scores_would_fail_the_leak_check():
    # The same check on the in-sample scores (one model fitted on every row): flipping the row's
    # label moves its own scores, so the check above is not vacuous.
    from sklearn.linear_model import LogisticRegression

    from simulations.text.representations import _tfidf

    texts, y = _toy()
    X = _tfidf().fit_transform(texts)
    flipped = y.copy()
    flipped[0] = 1
    a = LogisticRegression(max_iter=1000).fit(X, y).decision_function(X)[0]
    b = LogisticRegression(max_iter=1000).fit(X, flipped).decision_function(X)[0]
    assert not np.array_equal(a, b)


def test_out_of_fold_scores_are_label_shaped_and_predictive():
    texts, y = _toy(120)
    Z = out_of_fold_scores(texts, y, n_folds=4)
    assert Z.shape == (120, 3) and np.isfinite(Z).all()
    assert (Z.argmax(axis=1) == y).mean() > 0.9  # the class words separate the toy classes
    # folds depend only on (N, seed), not on the labels
    assert np.array_equal(random_folds(120, 4, 0), random_folds(120, 4, 0))


def test_out_of_fold_on_the_goemotions_sample():
    corpus = load_goemotions(SAMPLE, "train")
    keep = np.isin(corpus.labels, np.flatnonzero(np.bincount(corpus.labels) >= 10))
    _, y = np.unique(corpus.labels[keep], return_inverse=True)
    texts = [t for t, k in zip(corpus.texts, keep, strict=True) if k]
    Z = out_of_fold_scores(texts, y, n_folds=3)
    assert Z.shape == (len(texts), int(y.max()) + 1)


def test_out_of_fold_errors():
    texts, y = _toy(12)
    with pytest.raises(ValueError, match="labels: expected 12 integer labels"):
        out_of_fold_scores(texts, y[:5])
    with pytest.raises(ValueError, match="n_folds"):
        out_of_fold_scores(texts, y, n_folds=1)
    rare = y.copy()
    rare[:] = 0
    rare[0] = 1
    with pytest.raises(ValueError, match="class 1 has no row outside fold"):
        out_of_fold_scores(texts, rare, n_folds=3)
    with pytest.raises(TypeError, match="texts must be a sequence of str"):
        out_of_fold_scores("one text", y)


def test_lsa_unit_rows_and_label_free():
    texts, _ = _toy()
    Z = lsa(texts, n_components=5, seed=1)
    assert Z.shape == (90, 5)
    # unit length within rounding of a 5-term sum of squares: 5 * 4 eps relative
    assert np.allclose(np.linalg.norm(Z, axis=1), 1.0, rtol=0, atol=20 * np.finfo(float).eps)
    assert np.array_equal(Z, lsa(texts, n_components=5, seed=1))
    with pytest.raises(ValueError, match="n_components must be at most"):
        lsa(texts[:3], n_components=5)


def test_wordllama_runs_offline():
    pytest.importorskip("wordllama")
    from simulations.text.representations import sentence_embedding

    texts = ["i am so happy today", "this is terrible and sad"]
    Z = sentence_embedding(texts)
    assert Z.shape == (2, 256) and Z.dtype == np.float64 and np.isfinite(Z).all()
    assert not np.allclose(Z[0], Z[1])
    # unit rows by default (WordLlama's own convention when it compares sentences): a norm of
    # 256 float32 squares is within 256 ulps of float32 of 1 (then widened to float64)
    assert np.allclose(np.linalg.norm(Z, axis=1), 1.0, rtol=0, atol=256 * np.finfo(np.float32).eps)
    raw = sentence_embedding(texts, norm=False)
    assert not np.allclose(np.linalg.norm(raw, axis=1), 1.0, rtol=0, atol=1e-3)
    # the same directions: normalising the raw rows gives the default's rows
    unit = raw / np.linalg.norm(raw, axis=1, keepdims=True)
    assert np.allclose(unit, Z, rtol=0, atol=256 * np.finfo(np.float32).eps)


def test_cache_is_keyed_by_method_seed_and_content(tmp_path):
    texts, y = _toy(60)
    first = cached_representation("oof_logistic", texts, y, corpus="toy", split="all", seed=0,
                                  cache_dir=tmp_path)  # fmt: skip
    again = cached_representation("oof_logistic", texts, y, corpus="toy", split="all", seed=0,
                                  cache_dir=tmp_path)  # fmt: skip
    assert np.array_equal(first, again) and len(list(tmp_path.iterdir())) == 1
    # another seed, other labels (the method reads them), other texts: new files
    cached_representation("oof_logistic", texts, y, corpus="toy", split="all", seed=1, cache_dir=tmp_path)
    cached_representation("oof_logistic", texts, (y + 1) % 3, corpus="toy", split="all", cache_dir=tmp_path)
    cached_representation("oof_logistic", texts[::-1], y, corpus="toy", split="all", cache_dir=tmp_path)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert len(names) == 4 and all(n.startswith("toy-all-oof_logistic-seed") for n in names)
    # a cached file is what is returned: overwrite the only file of a fresh cache, read it back
    alone = tmp_path / "alone"
    cached_representation("oof_logistic", texts, y, corpus="toy", split="all", cache_dir=alone)
    (path,) = alone.iterdir()
    np.save(path, np.zeros((60, 3)))
    served = cached_representation("oof_logistic", texts, y, corpus="toy", split="all", cache_dir=alone)
    assert np.array_equal(served, np.zeros((60, 3)))
    with pytest.raises(ValueError, match="method must be one of"):
        cached_representation("bert", texts, y, corpus="toy", split="all")
    with pytest.raises(ValueError, match="corpus must be a non-empty word"):
        cached_representation("lsa", texts, y, corpus="../x", split="all", cache_dir=tmp_path)
    assert set(REPRESENTATIONS) == {"oof_logistic", "lsa", "wordllama"}


@pytest.mark.parametrize("damage", ["truncate", "garbage", "rows"])
def test_a_damaged_cache_file_is_computed_again(tmp_path, damage):
    # a truncated .npy in the cache raised a traceback from np.load; now it is recomputed
    texts, y = _toy(60)
    kwargs = dict(corpus="toy", split="all", seed=0, cache_dir=tmp_path)
    first = cached_representation("oof_logistic", texts, y, **kwargs)
    (path,) = tmp_path.iterdir()
    if damage == "truncate":
        path.write_bytes(path.read_bytes()[:100])
    elif damage == "garbage":
        path.write_bytes(b"not a numpy file")
    else:
        np.save(path, np.zeros((7, 3)))  # another corpus's rows under this key
    again = cached_representation("oof_logistic", texts, y, **kwargs)
    assert np.array_equal(first, again)
    assert np.array_equal(np.load(path), first)  # and the file is whole again
