"""Loaders of simulations.text.corpora: the committed GoEmotions sample, synthetic CARER files
(nothing of CARER is committed), and malformed files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simulations.text import CARER_LABELS, Corpus, load_carer, load_goemotions

SAMPLE = Path(__file__).parent / "data" / "goemotions"


def _raw_rows(split: str) -> list[list[str]]:
    lines = (SAMPLE / f"{split}.tsv").read_text(encoding="utf-8").splitlines()
    return [line.split("\t") for line in lines if line.strip()]


@pytest.mark.parametrize("split", ["train", "dev", "test"])
def test_goemotions_single_label_keeps_exactly_the_one_label_rows(split):
    rows = _raw_rows(split)
    corpus = load_goemotions(SAMPLE, split)
    single = [r for r in rows if "," not in r[1]]
    assert isinstance(corpus, Corpus) and corpus.name == "goemotions" and corpus.split == split
    assert len(corpus) == len(single) and corpus.n_dropped == len(rows) - len(single)
    assert corpus.n_dropped > 0  # the sample holds multi-label rows, so the filter is exercised
    assert corpus.texts == tuple(r[0] for r in single)
    assert corpus.labels.tolist() == [int(r[1]) for r in single]
    names = (SAMPLE / "labels.txt").read_text().split()
    assert corpus.label_names == tuple(names) and len(names) == 28
    assert corpus.label_names[27] == "neutral"


def test_goemotions_multi_label_is_a_multi_hot_matrix():
    rows = _raw_rows("train")
    corpus = load_goemotions(SAMPLE, "train", single_label=False)
    assert corpus.labels.shape == (len(rows), 28) and corpus.n_dropped == 0
    for row, raw in zip(corpus.labels, rows, strict=True):
        assert np.flatnonzero(row).tolist() == sorted(int(i) for i in raw[1].split(","))


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder


def test_carer_reads_every_split_and_maps_label_words(tmp_path):
    folder = _write(tmp_path, "train.txt", "i feel fine;joy\ni feel; odd;surprise\n")
    _write(folder, "val.txt", "\ni am so sad;sadness\n")  # the published val.txt opens blank
    _write(folder, "test.txt", "".join(f"text {w};{w}\n" for w in CARER_LABELS))
    train = load_carer(folder)
    assert train.texts == ("i feel fine", "i feel; odd") and train.labels.tolist() == [1, 5]
    for split in ("dev", "val"):
        dev = load_carer(folder, split)
        assert dev.split == "dev" and dev.texts == ("i am so sad",) and dev.labels.tolist() == [0]
    test = load_carer(folder, "test")
    assert test.labels.tolist() == list(range(6)) and test.label_names == CARER_LABELS
    assert test.labels.dtype == np.int64


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("fine;joy\nno separator here\n", r"train\.txt:2: expected 'text;label'"),
        ("fine;joy\nbad;happiness\n", r"train\.txt:2: unknown label 'happiness'"),
    ],
)
def test_carer_malformed_line_names_file_and_line(tmp_path, text, message):
    _write(tmp_path, "train.txt", text)
    with pytest.raises(ValueError, match=message):
        load_carer(tmp_path)


def _goemotions(tmp_path: Path, train: str, labels: str = "a\nb\nc\n") -> Path:
    _write(tmp_path, "labels.txt", labels)
    return _write(tmp_path, "train.tsv", train)


@pytest.mark.parametrize(
    ("train", "labels", "message"),
    [
        ("x\t0\tid1\ny\t1\n", "a\nb\nc\n", r"train\.tsv:2: expected 3 tab-separated fields.*got 2"),
        ("x\t0\tid1\ny\t3\tid2\n", "a\nb\nc\n", r"train\.tsv:2: label id '3' is not an integer in 0\.\.2"),
        ("x\t0,z\tid1\n", "a\nb\nc\n", r"train\.tsv:1: label id 'z'"),
        ("x\t\tid1\n", "a\nb\nc\n", r"train\.tsv:1: label id ''"),
        ("x\t0\tid1\n", "a\nb\na\n", r"labels\.txt:3: label name 'a' is repeated"),
        ("x\t0\tid1\n", "a\n", r"labels\.txt: names 1 label"),
    ],
)
def test_goemotions_malformed_file_names_file_and_line(tmp_path, train, labels, message):
    folder = _goemotions(tmp_path, train, labels)
    with pytest.raises(ValueError, match=message):
        load_goemotions(folder)


def test_goemotions_not_utf8_names_the_line(tmp_path):
    folder = _goemotions(tmp_path, "x\t0\tid1\n")
    (folder / "train.tsv").write_bytes(b"x\t0\tid1\ny\xff\t1\tid2\n")
    with pytest.raises(ValueError, match=r"train\.tsv:2: not UTF-8"):
        load_goemotions(folder)


def test_wrong_folder_and_missing_file(tmp_path):
    with pytest.raises(ValueError, match=r"is not a folder.*GoEmotions.*github\.com"):
        load_goemotions(tmp_path / "nowhere")
    with pytest.raises(ValueError, match=r"labels\.txt: no such file.*train\.tsv, dev\.tsv"):
        load_goemotions(tmp_path)
    # the CARER folder given to the GoEmotions loader, and the other way round
    _write(tmp_path / "carer", "train.txt", "fine;joy\n")
    with pytest.raises(ValueError, match=r"labels\.txt: no such file"):
        load_goemotions(tmp_path / "carer")
    with pytest.raises(ValueError, match=r"train\.txt: no such file.*val\.txt.*huggingface"):
        load_carer(SAMPLE)
    with pytest.raises(ValueError, match=r"split must be one of 'train', 'dev', 'test'; got 'val'"):
        load_goemotions(SAMPLE, "val")
    with pytest.raises(TypeError, match="path must be a folder path"):
        load_carer(3)
    with pytest.raises(TypeError, match="single_label must be True or False"):
        load_goemotions(SAMPLE, single_label=1)


def test_every_error_is_one_line(tmp_path):
    _write(tmp_path, "train.txt", "bad line\n")
    with pytest.raises(ValueError) as info:
        load_carer(tmp_path)
    assert "\n" not in str(info.value)
