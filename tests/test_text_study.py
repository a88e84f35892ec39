"""simulations.text.study: the text studies' pooled corpora and fine-tuned reader, on the committed
GoEmotions sample (tests/data/goemotions)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from simulations.text import load_goemotions
from simulations.text.study import CORPORA, MIN_CLASS_ROWS, load_finetuned, load_pooled

SAMPLE = Path(__file__).resolve().parent / "data" / "goemotions"


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("corpora")
    shutil.copytree(SAMPLE, root / "goemotions")
    return root


def test_pooled_is_the_three_files_in_order_less_rare_classes(root):
    parts = [load_goemotions(root / "goemotions", s) for s in ("train", "dev", "test")]
    texts = [t for p in parts for t in p.texts]
    y = np.concatenate([p.labels for p in parts])
    counts = np.bincount(y, minlength=len(parts[0].label_names))
    kept = np.flatnonzero(counts >= MIN_CLASS_ROWS)
    keep = np.isin(y, kept)
    pooled = load_pooled(root, "goemotions")
    assert pooled.texts == [t for t, k in zip(texts, keep, strict=True) if k]
    # labels renumbered onto the kept classes, in their order
    assert np.array_equal(pooled.label_names, [parts[0].label_names[c] for c in kept])
    assert np.array_equal(np.asarray(pooled.label_names)[pooled.y], np.asarray(parts[0].label_names)[y[keep]])
    assert pooled.y.dtype == np.int64
    assert pooled.note.startswith(f"{len(texts):,} rows (train + dev + test pooled)")
    if kept.size < counts.size:  # the sample is small: some classes fall under the floor
        assert f"classes with < {MIN_CLASS_ROWS} rows left out" in pooled.note


@pytest.mark.parametrize("name", ["kaggle", "", None, 3])
def test_an_unknown_corpus_is_refused_in_one_line(root, name):
    with pytest.raises(ValueError, match=r"^corpus must be one of carer, goemotions") as info:
        load_pooled(root, name)
    assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match=r"^corpus must be one of"):
        load_finetuned(root, name, root)


@pytest.mark.parametrize("seeds", [[], [1.0], [True], ["0"]])
def test_seeds_must_be_integers(root, seeds):
    with pytest.raises(ValueError, match=r"^seeds must be a non-empty sequence of integers"):
        load_finetuned(root, "goemotions", root, seeds)


def test_no_seed_folder_is_an_error_naming_the_folder(root, tmp_path):
    with pytest.raises(ValueError, match=r"goemotions: no seed<k> folder for seeds 0, 1, 2$"):
        load_finetuned(tmp_path, "goemotions", root)


def test_corpora_are_the_loaders_names():
    assert CORPORA == ("carer", "goemotions")
