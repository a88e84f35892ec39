"""simulations.text.precomputed: the folder format of a fine-tuned encoder's representations,
read and validated (every refusal one line naming the file)."""

from __future__ import annotations

import numpy as np
import pytest

from simulations.text.precomputed import SPLIT_NAMES, load_precomputed


def _folder(root, n=12, d=3, classes=3, with_logits=True, **override):
    rng = np.random.default_rng(0)
    arrays = {
        "embeddings": rng.normal(size=(n, d)).astype(np.float16),
        "labels": (np.arange(n) % classes).astype(np.int16),
        "split": np.repeat([0, 1, 2], n // 3).astype(np.int8),
    }
    if with_logits:
        arrays["logits"] = rng.normal(size=(n, classes)).astype(np.float16)
    arrays.update(override)
    root.mkdir(parents=True, exist_ok=True)
    for name, value in arrays.items():
        if value is not None:
            np.save(root / f"{name}.npy", value, allow_pickle=True)
    return root


def test_reads_and_widens(tmp_path):
    folder = _folder(tmp_path / "f")
    data = load_precomputed(folder)
    raw = np.load(folder / "embeddings.npy")
    assert data.embeddings.dtype == np.float64 and np.array_equal(data.embeddings, raw.astype(np.float64))
    assert data.labels.dtype == np.int64 and data.split.dtype == np.int8
    assert data.n_classes == 3 and data.counts() == {"train": 4, "validation": 4, "test": 4}
    assert data.rows("validation", "test").tolist() == list(range(4, 12))
    p = data.head_probabilities()
    # softmax: positive, rows sum to 1 within 3 classes' rounding (a few ulps), order kept
    assert np.all(p > 0) and np.allclose(p.sum(axis=1), 1.0, rtol=0, atol=8 * np.finfo(float).eps)
    assert np.array_equal(p.argmax(axis=1), data.logits.argmax(axis=1))
    assert set(SPLIT_NAMES.values()) == {"train", "validation", "test"}


def test_logits_are_optional_and_classes_come_from_labels(tmp_path):
    data = load_precomputed(_folder(tmp_path / "f", with_logits=False))
    assert data.logits is None and data.n_classes == 3
    with pytest.raises(ValueError, match="no logits.npy"):
        data.head_probabilities()
    assert load_precomputed(tmp_path / "f", n_classes=5).n_classes == 5


@pytest.mark.parametrize(
    ("override", "file", "words"),
    [
        ({"embeddings": None}, "embeddings.npy", "no such file"),
        ({"labels": None}, "labels.npy", "no such file"),
        ({"split": None}, "split.npy", "no such file"),
        ({"embeddings": np.zeros((12, 3), np.int32)}, "embeddings.npy", "expected floats"),
        ({"embeddings": np.zeros(12)}, "embeddings.npy", "expected 2 dimensions"),
        ({"embeddings": np.zeros((0, 3))}, "embeddings.npy", "at least one row"),
        ({"embeddings": np.full((12, 3), np.nan)}, "embeddings.npy", "not finite"),
        ({"embeddings": np.array([{"a": 1}], dtype=object)}, "embeddings.npy", "not a readable .npy"),
        ({"labels": np.zeros(11, np.int64)}, "labels.npy", r"expected shape \(12,\)"),
        ({"labels": np.zeros(12, np.float32)}, "labels.npy", "expected integers"),
        ({"labels": np.r_[np.zeros(11, int), 3]}, "labels.npy", r"labels must lie in 0..2; got 3 in row 11"),
        ({"labels": np.r_[np.zeros(11, int), -1]}, "labels.npy", "got -1 in row 11"),
        ({"split": np.full(12, 3, np.int8)}, "split.npy", "got 3 in row 0"),
        ({"split": np.zeros(12, np.int8)}, "split.npy", "no test row"),
        ({"split": np.zeros((12, 1), np.int8)}, "split.npy", "expected shape"),
        ({"logits": np.zeros((11, 3))}, "logits.npy", "expected 12 rows"),
        ({"logits": np.zeros((12, 3), np.int8)}, "logits.npy", "expected floats"),
        ({"logits": np.full((12, 3), np.inf)}, "logits.npy", "not finite"),
    ],
)
def test_refusals_are_one_line_naming_the_file(tmp_path, override, file, words):
    folder = _folder(tmp_path / "f", **override)
    with pytest.raises(ValueError, match=words) as info:
        load_precomputed(folder)
    message = str(info.value)
    assert "\n" not in message and str(folder / file) in message


def test_width_of_logits_against_n_classes(tmp_path):
    folder = _folder(tmp_path / "f")
    with pytest.raises(ValueError, match=r"logits.npy: expected 4 columns"):
        load_precomputed(folder, n_classes=4)
    with pytest.raises(ValueError, match="labels must lie in 0..1"):
        load_precomputed(_folder(tmp_path / "g", with_logits=False), n_classes=2)
    with pytest.raises(ValueError, match="not a folder"):
        load_precomputed(tmp_path / "missing")
    with pytest.raises(ValueError, match="parts must be some of"):
        load_precomputed(folder).rows("dev")
