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


# ---------------------------------------------------------------------------------------------
# Empty files, a byte order mark, label ids that int() takes but are not ASCII digits (issue 32)


@pytest.mark.parametrize("content", ["", "\n", "  \n\t\r\n\n"])
def test_an_empty_or_blank_split_file_is_refused_naming_it(tmp_path, content):
    # both loaded as 0 rows without a word
    _write(tmp_path, "train.txt", content)
    with pytest.raises(ValueError, match=r"train\.txt: the file is (empty|blank); expected the rows"):
        load_carer(tmp_path)
    folder = _goemotions(tmp_path, content)
    with pytest.raises(ValueError, match=r"train\.tsv: the file is (empty|blank)"):
        load_goemotions(folder)


def test_an_empty_labels_file_is_refused_naming_it(tmp_path):
    folder = _goemotions(tmp_path, "x\t0\tid1\n", labels="")
    with pytest.raises(ValueError, match=r"labels\.txt: the file is empty"):
        load_goemotions(folder)


def test_goemotions_with_only_multi_label_rows_is_refused(tmp_path):
    folder = _goemotions(tmp_path, "x\t0,1\tid1\ny\t1,2\tid2\n")
    with pytest.raises(ValueError, match=r"train\.tsv: no single-label row \(2 rows"):
        load_goemotions(folder)
    assert load_goemotions(folder, single_label=False).labels.tolist() == [[1, 1, 0], [0, 1, 1]]


def test_a_byte_order_mark_is_not_part_of_the_first_name_or_text(tmp_path):
    # the BOM stayed in the first label name ('\ufeffa') and the first text ('\ufeffx')
    bom = "\ufeff"
    folder = _goemotions(tmp_path, bom + "x\t0\tid1\ny\t1\tid2\n", labels=bom + "a\nb\nc\n")
    corpus = load_goemotions(folder)
    assert corpus.label_names == ("a", "b", "c") and corpus.texts == ("x", "y")
    _write(tmp_path, "test.txt", bom + "i feel fine;joy\n")
    assert load_carer(tmp_path, "test").texts == ("i feel fine",)


def test_a_bom_does_not_shift_the_line_of_a_decoding_error(tmp_path):
    folder = _goemotions(tmp_path, "x\t0\tid1\n")
    (folder / "train.tsv").write_bytes(b"\xef\xbb\xbfx\t0\tid1\ny\xff\t1\tid2\n")
    with pytest.raises(ValueError, match=r"train\.tsv:2: not UTF-8"):
        load_goemotions(folder)


@pytest.mark.parametrize("word", ["1_0", "\u0663", "+1", " 1", "1 ", "\uff11", "0x1", "1.0"])
def test_goemotions_label_ids_are_ascii_digits_only(tmp_path, word):
    # int() took '1_0' as 10 and '٣' (ARABIC-INDIC DIGIT THREE) as 3
    labels = "".join(f"l{i}\n" for i in range(12))
    folder = _goemotions(tmp_path, f"x\t0\tid1\ny\t{word}\tid2\n", labels=labels)
    with pytest.raises(ValueError) as info:
        load_goemotions(folder)
    message = str(info.value)
    assert f"train.tsv:2: label id {word!r} is not an integer in 0..11" in message
    assert "\n" not in message


def test_goemotions_label_ids_with_leading_zeros_are_ascii_digits(tmp_path):
    folder = _goemotions(tmp_path, "x\t00\tid1\ny\t02\tid2\n")
    assert load_goemotions(folder).labels.tolist() == [0, 2]
