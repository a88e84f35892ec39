"""Class names as labels (issue 32, item 7): ``gcul feasibility`` and ``gcul compare`` read a .npy
array of str, encode the names by their sorted order (``np.unique(y, return_inverse=True)``) and
print the names wherever a report names a class; the numbers are those of the same codes given as
integers. Bytes, blank names, a mix of names and numbers are refused in one line.

Before, both commands refused names ("holds strings (<U5)") although the how-to on embeddings
says the labels may be integers or strings.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from _cli import run

from simulations.feasibility import assess

NAMES = np.array(["sad", "joy", "anger"])  # sorted: anger = 0, joy = 1, sad = 2


def blobs(n=120, seed=0):
    """Three class cores and a confusion blob between them (4n rows); codes 0..2."""
    rng = np.random.default_rng(seed)
    centres = np.array([[-6.0, 0.0], [6.0, 0.0], [0.0, 6.0], [0.0, 2.0]])
    Z = np.vstack([rng.normal(c, 1.0, (n, 2)) for c in centres])
    y = np.r_[np.repeat([0, 1, 2], n), rng.integers(0, 3, n)]
    return Z, y


@pytest.fixture
def files(tmp_path):
    """Z.npy, the labels as names (names.npy) and as the codes of their sorted order (codes.npy)."""
    Z, y = blobs()
    names = NAMES[y]
    np.save(tmp_path / "Z.npy", Z)
    np.save(tmp_path / "names.npy", names)
    np.save(tmp_path / "codes.npy", np.unique(names, return_inverse=True)[1])
    return tmp_path


def feasibility(folder, labels, *extra):
    return [
        "feasibility", "--embeddings", str(folder / "Z.npy"), "--labels", str(folder / labels),
        *extra,
    ]  # fmt: skip


def per_class_first_column(out: str) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:2] == ["class", "pi"])
    rows = []
    for line in lines[start + 1 :]:
        if line.lstrip().startswith("columns"):
            break
        rows.append(line.split()[0])
    return rows


def test_feasibility_prints_the_class_names(files, capsys):
    code, out, err = run(feasibility(files, "names.npy", "--certify"), capsys)
    assert code == 0, err
    assert per_class_first_column(out) == ["anger", "joy", "sad"]


def test_feasibility_numbers_are_those_of_the_codes(files, capsys):
    # the same report, but for the first column, as with the codes of the names' sorted order
    code, by_name, err = run(feasibility(files, "names.npy", "--certify", "--method", "all"), capsys)
    assert code == 0, err
    code, by_code, err = run(feasibility(files, "codes.npy", "--certify", "--method", "all"), capsys)
    assert code == 0, err
    for name, code_ in (("anger", "0"), ("joy", "1"), ("sad", "2")):
        by_name = by_name.replace(f"\n  {name:>11} ", f"\n  {code_:>11} ")
    assert by_name == by_code


def test_feasibility_json_names_the_classes(files, capsys):
    code, out, err = run(feasibility(files, "names.npy", "--json"), capsys)
    assert code == 0, err
    by_name = json.loads(out)
    code, out, err = run(feasibility(files, "codes.npy", "--json"), capsys)
    by_code = json.loads(out)
    assert by_name.pop("class_names") == ["anger", "joy", "sad"]
    assert "class_names" not in by_code  # integer labels: the JSON is as it was
    assert [row.pop("class") for row in by_name["per_class"]] == ["anger", "joy", "sad"]
    assert [row.pop("class") for row in by_code["per_class"]] == [0, 1, 2]
    assert by_name == by_code


def test_feasibility_with_predictions_as_names(files, capsys):
    Z, y = blobs()
    rng = np.random.default_rng(1)
    y_pred = np.where(rng.random(y.size) < 0.2, (y + 1) % 3, y)
    np.save(files / "pred_names.npy", NAMES[y_pred])
    np.save(files / "pred_codes.npy", np.searchsorted(np.sort(NAMES), NAMES[y_pred]))
    code, by_name, err = run(
        feasibility(files, "names.npy", "--predictions", str(files / "pred_names.npy"), "--json"),
        capsys,
    )
    assert code == 0, err
    code, by_code, err = run(
        feasibility(files, "codes.npy", "--predictions", str(files / "pred_codes.npy"), "--json"),
        capsys,
    )
    assert code == 0, err
    by_name, by_code = json.loads(by_name), json.loads(by_code)
    assert by_name["predictors"] == by_code["predictors"] and by_name["eps"] == by_code["eps"]
    # a predicted name that no label holds: refused (an integer one is refused by the geometry)
    np.save(files / "pred_other.npy", np.where(np.arange(y.size) == 0, "zzz", NAMES[y]))
    code, out, err = run(
        feasibility(files, "names.npy", "--predictions", str(files / "pred_other.npy")), capsys
    )
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"gcul feasibility: error: --predictions {files / 'pred_other.npy'}: predicts 'zzz', a "
        f"class that no label of --labels {files / 'names.npy'} holds (1 such name(s)); every "
        "class needs its rows"
    ]


def test_names_and_integer_predictions_are_refused(files, capsys):
    code, out, err = run(
        feasibility(files, "names.npy", "--predictions", str(files / "codes.npy")), capsys
    )
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"gcul feasibility: error: --labels {files / 'names.npy'} holds class names and "
        f"--predictions {files / 'codes.npy'} does not; pass both as names or both as integers "
        "0..C-1"
    ]


def test_compare_with_names_is_compare_with_their_codes(files, capsys):
    argv = ["compare", "--embeddings", str(files / "Z.npy"), "--splits", "2", "--quiet", "--json"]
    code, by_name, err = run([*argv, "--labels", str(files / "names.npy")], capsys)
    assert code == 0, err
    code, by_code, err = run([*argv, "--labels", str(files / "codes.npy")], capsys)
    assert code == 0, err
    assert by_name == by_code  # the report names no class; every number is the codes'


# --- the Python function, and what is refused -------------------------------------------------


def test_assess_takes_names_as_a_list_or_an_object_array():
    Z, y = blobs()
    names = NAMES[y]
    expected = assess(Z, names).to_dict()
    assert assess(Z, names.tolist()).to_dict() == expected
    assert assess(Z, names.astype(object)).to_dict() == expected
    assert expected["class_names"] == ["anger", "joy", "sad"]


@pytest.mark.parametrize(
    ("labels", "error", "message"),
    [
        (lambda y: NAMES[y].astype(bytes), TypeError, r"^y: holds bytes \(\|S5\), whose text"),
        (
            lambda y: np.where(y == 0, None, NAMES[y]).tolist() and [3, *NAMES[y][1:].tolist()],
            TypeError,
            r"^y: mixes class names \(str\) with int; pass all names",
        ),
        (
            lambda y: np.where(np.arange(y.size) == 5, "", NAMES[y]),
            ValueError,
            r"^y: row 5 holds an empty or blank class name \(''\)",
        ),
        (
            lambda y: np.where(np.arange(y.size) == 5, "\t ", NAMES[y]),
            ValueError,
            r"^y: row 5 holds an empty or blank class name",
        ),
    ],
    ids=["bytes", "mixed", "empty", "blank"],
)
def test_assess_refuses_what_is_not_one_kind_of_names(labels, error, message):
    Z, y = blobs()
    with pytest.raises(error, match=message):
        assess(Z, labels(y))


def test_a_single_name_is_a_single_class():
    Z, y = blobs()
    with pytest.raises(ValueError, match=r"^y holds a single class \('joy'\); at least two"):
        assess(Z, np.full(y.size, "joy"))
