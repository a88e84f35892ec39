"""Phase 1's regime made visible (issue 22 item 3, issue 23 item 6): ``gcul compare`` and ``gcul
feasibility`` say in one line when phase 1 leaves GCUL no (or at most K) errors to reject by,
offer ``--error-pool out_of_fold`` and ``--standardize``; and both refuse a 1-D Z in the same words
(one shared check, :func:`simulations.validation.check_embeddings`)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from _cli import run
from sklearn.preprocessing import StandardScaler

from simulations._error_pool import looks_standardized, phase1_regime
from simulations.compare import compare
from simulations.statistics import stratified_splits
from simulations.feasibility import assess
from simulations.gcul import GCUL
from simulations.validation import check_embeddings


def separable(n=150, d=200, seed=0):
    """Random labels on more features than rows: phase 1 separates any training part."""
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), np.repeat(np.arange(3), n // 3)


def overlapping(n=60, seed=0):
    """Three overlapping 2-D classes: phase 1 errs in sample, GCUL rejects."""
    rng = np.random.default_rng(seed)
    centres = np.array([[-1.5, 0.0], [1.5, 0.0], [0.0, 2.0]])
    Z = np.vstack([rng.normal(c, 1.2, (n, 2)) for c in centres])
    return Z * [1.0, 300.0] + [5.0, -40.0], np.repeat(np.arange(3), n)  # columns on other scales


@pytest.fixture
def files(tmp_path):
    Z, y = separable()
    np.save(tmp_path / "Z.npy", Z)
    np.save(tmp_path / "y.npy", y)
    np.save(tmp_path / "Z1.npy", Z[:, 0])
    return tmp_path


def command(name, folder, embeddings="Z.npy", *extra):
    labels = str(folder / "y.npy")
    return [name, "--embeddings", str(folder / embeddings), "--labels", labels, *extra]


REGIME = "phase 1 makes no training error (in-sample pool: it separates its training rows)"


def regime_lines(text):
    return [line for line in text.splitlines() if line.startswith("phase 1 makes")]


# ----------------------------------------------------------------------------------------------
# A 1-D Z: the same refusal, in the same words, from both commands and both functions
# ----------------------------------------------------------------------------------------------


def test_both_commands_refuse_a_1d_npy_in_the_same_line(files, capsys):
    messages = []
    for name in ("compare", "feasibility"):
        code, out, err = run(command(name, files, "Z1.npy"), capsys)
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and "Traceback" not in err
        prefix = f"gcul {name}: error: "
        assert err.startswith(prefix)
        messages.append(err[len(prefix) :])
    assert messages[0] == messages[1]
    assert messages[0] == (
        f"--embeddings {files / 'Z1.npy'}: expected a 2-D array (N rows x d columns); got shape "
        "(150,) (for one feature per row, save Z.reshape(-1, 1))\n"
    )


def test_both_functions_refuse_a_1d_z_in_the_same_words():
    Z, y = separable()
    messages = []
    for function in (compare, assess):
        with pytest.raises(ValueError) as info:
            function(Z[:, 0], y)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert "got shape (150,)" in messages[0] and messages[0].startswith("Z: ")
    with pytest.raises(ValueError, match=r"got shape \(150,\)"):
        check_embeddings(Z[:, 0])


def test_a_one_column_text_file_is_still_one_feature(tmp_path, capsys):
    # text tables are 2-D by construction: one number a line is N x 1, as before
    Z, y = overlapping()
    np.savetxt(tmp_path / "Z.txt", Z[:, :1])
    np.save(tmp_path / "y.npy", y)
    code, out, _ = run(command("feasibility", tmp_path, "Z.txt"), capsys)
    assert code == 0 and "verdict: " in out


# ----------------------------------------------------------------------------------------------
# The one line, and what it offers
# ----------------------------------------------------------------------------------------------


def test_compare_says_in_one_line_that_phase_1_has_no_error(files, capsys):
    code, out, _ = run(command("compare", files, "Z.npy", "--splits", "2", "--quiet"), capsys)
    assert code == 0
    (line,) = regime_lines(out)
    # the features are standard normal: --standardize is not offered (issue 32, item 9)
    assert line == f"{REGIME} in 2 of 2 splits, so GCUL cannot reject: try --error-pool out_of_fold"
    assert out.splitlines()[2] == line  # under the base error, before the table
    code, out, _ = run(
        command("compare", files, "Z.npy", "--splits", "2", "--quiet", "--json"), capsys
    )
    data = json.loads(out)
    assert code == 0 and data["error_pool"] == {
        "pool": "in_sample",
        "standardize": False,
        "n_errors": [0, 0],
        "message": line,
    }
    assert data["gcul_coverage"]["mean"] == 1.0


def test_compare_with_the_out_of_fold_pool_can_reject_and_says_nothing(files, capsys):
    extra = ("--splits", "2", "--quiet", "--json", "--error-pool", "out_of_fold")
    code, out, _ = run(command("compare", files, "Z.npy", *extra), capsys)
    data = json.loads(out)
    assert code == 0 and data["error_pool"]["pool"] == "out_of_fold"
    # random labels: out of fold phase 1 is wrong on about 2/3 of the 105 training rows
    assert min(data["error_pool"]["n_errors"]) > 35 and data["error_pool"]["message"] is None
    assert data["gcul_coverage"]["mean"] < 1.0


def test_feasibility_says_it_in_one_line_and_its_pool_is_gculs(files, capsys):
    code, out, _ = run(command("feasibility", files), capsys)
    assert code == 0
    (line,) = regime_lines(out)
    assert line == f"{REGIME}, so GCUL cannot reject: try --error-pool out_of_fold"
    assert out.splitlines()[-2] == line and out.splitlines()[-1].startswith("verdict: not feasible")
    extra = ("--error-pool", "out_of_fold", "--json")
    code, out, _ = run(command("feasibility", files, "Z.npy", *extra), capsys)
    data = json.loads(out)
    Z, y = separable()
    model = GCUL(error_pool="out_of_fold").fit(Z, y)
    # lambda*_PRE describes exactly the pool that GCUL(error_pool="out_of_fold") clusters
    assert data["error_pool"]["n_errors"] == model.n_error_pool_ > 0
    assert data["eps"] == pytest.approx(model.n_error_pool_ / y.size, rel=0, abs=0)
    assert data["predictions"] == "fitted out-of-fold" and data["error_pool"]["message"] is None
    # ... and says that this pairing is not validated, and how to make sure
    assert any("not a validated predictor" in n and "(--certify)" in n for n in data["notes"])


def test_the_python_functions_spell_the_python_arguments():
    Z, y = separable()
    result = assess(Z, y)
    assert result.error_pool["message"] == f"{REGIME}, so GCUL cannot reject: try error_pool='out_of_fold'"
    assert result.error_pool["message"] in result.format().splitlines()
    assert assess(Z, y, standardize=True).error_pool["message"].endswith(
        "try error_pool='out_of_fold'"
    )
    compared = compare(Z, y, splits=1, error_pool="out_of_fold", standardize=True)
    assert compared.error_pool["message"] is None


def test_standardize_is_offered_only_for_features_that_are_not_standardised(files, capsys):
    # it was offered for features already standardised, which it would leave as they are
    Z, y = separable()
    unscaled = Z * 10.0 + 5.0  # means 5, SDs 10: far from 0 and 1
    offer = "try error_pool='out_of_fold' or standardize=True"
    assert assess(unscaled, y).error_pool["message"] == f"{REGIME}, so GCUL cannot reject: {offer}"
    assert compare(unscaled, y, splits=1).error_pool["message"].endswith(offer)
    assert compare(Z, y, splits=1).error_pool["message"].endswith("try error_pool='out_of_fold'")
    np.save(files / "Zu.npy", unscaled)
    code, out, _ = run(command("feasibility", files, "Zu.npy"), capsys)
    assert code == 0
    assert regime_lines(out) == [
        f"{REGIME}, so GCUL cannot reject: try --error-pool out_of_fold or --standardize"
    ]


@pytest.mark.parametrize(
    ("mean", "sd", "standardised"),
    [
        (0.0, 1.0, True),
        (0.45, 1.9, True),  # inside the rule: |mean| <= 0.5 and 0.5 <= SD <= 2
        (-0.45, 0.55, True),
        (0.6, 1.0, False),
        (-0.6, 1.0, False),
        (0.0, 2.2, False),
        (0.0, 0.4, False),
        (3.0, 0.0, False),  # a constant feature far from 0
        (0.2, 0.0, True),  # a constant feature near 0: scaling leaves it constant
    ],
)
def test_looks_standardized_rule(mean, sd, standardised):
    # column 0 is an exactly standardised column moved to (mean, SD); column 1 is standardised
    rng = np.random.default_rng(0)
    base = StandardScaler().fit_transform(rng.normal(size=(400, 2)))
    Z = base.copy()
    Z[:, 0] = mean + sd * base[:, 0]
    assert looks_standardized(Z) is standardised
    assert looks_standardized(Z.astype(np.float32)) is standardised  # float32: summed in float64


def test_looks_standardized_reads_in_blocks(monkeypatch):
    # blocks of 7 rows give the moments of the whole (the block size changes no answer)
    import simulations._error_pool as error_pool

    rng = np.random.default_rng(1)
    Z = StandardScaler().fit_transform(rng.normal(size=(50, 3))) * 1.5 + 0.3
    monkeypatch.setattr(error_pool, "_ROWS_PER_BLOCK", 7)
    assert looks_standardized(Z) is True
    assert looks_standardized(Z + 0.3) is False  # means 0.6


def test_few_errors_are_said_too_and_no_line_when_phase_1_errs_enough():
    # K = 3: at most 3 errors in a pool is too few (fewer than phase 2's 4 clusters)
    assert "at most K = 3 errors, fewer than phase 2's 4 clusters" in phase1_line([2], 3)
    assert phase1_line([4], 3) is None
    Z, y = overlapping()
    assert assess(Z, y).error_pool["message"] is None
    assert compare(Z, y, splits=1).error_pool["message"] is None


def phase1_line(sizes, n_classes):
    return phase1_regime(sizes, n_classes, "in_sample", ["--standardize"])


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--error-pool", "oof"), "argument --error-pool: invalid choice: 'oof'"),
        (
            ("--error-pool", "out_of_fold", "--predictions", "{}/y.npy"),
            "--error-pool out_of_fold computes phase 1's predictions; it cannot be combined with "
            "--predictions",
        ),
    ],
)
def test_bad_regime_options_are_one_line(files, capsys, extra, message):
    extra = tuple(e.format(files) for e in extra)
    code, out, err = run(command("feasibility", files, "Z.npy", *extra), capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert message in err


def test_bad_regime_arguments_in_python_name_the_argument():
    Z, y = overlapping()
    for function in (compare, assess):
        message = "error_pool must be one of 'in_sample', 'out_of_fold'; got 'oof'"
        with pytest.raises(ValueError, match=message):
            function(Z, y, error_pool="oof")
        with pytest.raises(TypeError, match="standardize must be True or False; got 'yes'"):
            function(Z, y, standardize="yes")


# ----------------------------------------------------------------------------------------------
# --standardize: z-scores fitted on the training rows only
# ----------------------------------------------------------------------------------------------


def test_compare_standardizes_with_the_training_part_only():
    # one split: standardising Z by hand with that split's training rows and comparing without
    # the option gives the same arrays to every model, so the same numbers, bit for bit
    Z, y = overlapping()
    ((train, _),) = stratified_splits(y, 1, 0.3, 0)
    by_hand = StandardScaler().fit(Z[train]).transform(Z)
    inside = compare(Z, y, splits=1, standardize=True)
    outside = compare(by_hand, y, splits=1)
    for ours, theirs in zip(inside.rejectors, outside.rejectors, strict=True):
        assert ours.to_dict() == theirs.to_dict()
    # ... and not with every row: z-scores of all rows give other features, other numbers
    everywhere = compare(StandardScaler().fit_transform(Z), y, splits=1)
    assert any(
        a.to_dict() != b.to_dict()
        for a, b in zip(inside.rejectors, everywhere.rejectors, strict=True)
    )
    assert inside.error_pool["standardize"] is True


def test_feasibility_standardizes_the_geometry_and_certifies_a_pipeline(files, capsys):
    Z, y = overlapping()
    scaled = assess(Z, y, standardize=True, methods=["all"]).to_dict()
    by_hand = assess(StandardScaler().fit_transform(Z), y, methods=["all"]).to_dict()
    for key in ("eps", "s_exist", "predictors", "per_class", "verdict"):
        assert scaled[key] == by_hand[key]
    assert scaled["error_pool"]["standardize"] is True
    certified = assess(Z, y, standardize=True, certify=True, calibration=0.3)
    assert certified.certificate["n"] == 54 and certified.certificate["can_reject"]


def test_feasibility_standardize_on_the_command_line(files, capsys):
    # random labels in 200 dimensions stay separable once standardised: the line now offers only
    # the out-of-fold pool, and the JSON records the option
    code, out, _ = run(command("feasibility", files, "Z.npy", "--standardize", "--json"), capsys)
    data = json.loads(out)
    assert code == 0 and data["error_pool"]["standardize"] is True
    assert data["error_pool"]["message"] == (
        f"{REGIME}, so GCUL cannot reject: try --error-pool out_of_fold"
    )
