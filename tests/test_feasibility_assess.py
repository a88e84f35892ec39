"""``simulations.feasibility.assess``: what ``gcul feasibility`` prints, from Python (issue 15, step 5).

The command line is tested in test_feasibility_cli.py and test_cli_inputs.py; here the function it
calls, with arrays rather than files.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from _blob_data import feasibility_blobs as blobs

from gcul_theory import feasibility_report
from simulations.cli import main
from simulations.feasibility import VERDICT_DEFAULT, Assessment, assess, requested_methods


@pytest.mark.parametrize("certify", [False, True])
def test_the_command_prints_what_assess_returns(tmp_path, capsys, certify):
    Z, y, y_pred = blobs()
    for name, array in (("Z", Z), ("y", y), ("p", y_pred)):
        np.save(tmp_path / f"{name}.npy", array)
    argv = ["feasibility", "--embeddings", str(tmp_path / "Z.npy"), "--labels"]
    argv += [str(tmp_path / "y.npy"), "--predictions", str(tmp_path / "p.npy"), "--method", "all"]
    argv += ["--certify"] if certify else []
    result = assess(Z, y, y_pred, methods=["all"], certify=certify)
    assert isinstance(result, Assessment)

    # the same, but for how the options are named
    def as_the_command_names_them(text: str) -> str:
        text = text.replace("calibration 0.2, seed 0", "--calibration 0.2, --seed 0")
        return text.replace("read from y_pred;", "read from --predictions;")

    assert main([*argv, "--json"]) == 0
    expected = result.to_dict()
    expected["notes"] = [as_the_command_names_them(note) for note in expected["notes"]]
    assert json.loads(capsys.readouterr().out) == expected
    assert main(argv) == 0
    assert capsys.readouterr().out.rstrip("\n") == as_the_command_names_them(result.format())


def test_the_numbers_are_the_librarys():
    Z, y, y_pred = blobs()
    result = assess(Z, y, y_pred, methods=["union", "boole"])
    report = feasibility_report(Z, y, y_pred, method="union")
    assert result.methods == ("union", "boole") and result.predictions == "given"
    assert result.report.lambda_pre == report.lambda_pre
    assert result.verdict == report.verdict and result.feasible == report.feasible
    assert result.certificate is None
    assert result.to_dict()["n"] == 3 * 200


def test_default_method_and_all():
    assert requested_methods([VERDICT_DEFAULT]) == ["hunter_worsley"]
    Z, y, y_pred = blobs(n=40)
    assert assess(Z, y, y_pred).methods == ("hunter_worsley",)
    with pytest.raises(ValueError, match="methods: expected names of gaussian, .* or all; got 'x'"):
        requested_methods(["x"])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda Z, y, p: (Z, y[:10], p),
            "y: holds 10 labels for 120 rows of Z",
        ),
        (
            lambda Z, y, p: (Z, y, p[:10]),
            "y_pred: holds 10 predictions for 120 rows of Z (one per row, as in y)",
        ),
        (
            lambda Z, y, p: (Z, y + 1, None),
            "y must use the classes 0..C-1, each at least once (C = 3 from the largest label); "
            "missing [0] (1-based labels? subtract 1)",
        ),
        (lambda Z, y, p: (Z, y * 0, p * 0), "y and y_pred hold a single class (0)"),
        (lambda Z, y, p: (Z[:, 0], y, p), "Z: expected a 2-D array (N rows x d columns)"),
        (lambda Z, y, p: (Z, y.astype(float), p), "y: expected one integer label per row"),
    ],
)
def test_messages_name_the_python_arguments(change, message):
    Z, y, y_pred = change(*blobs(n=40))
    with pytest.raises(ValueError) as info:
        assess(Z, y, y_pred)
    assert str(info.value).startswith(message), str(info.value)


def test_names_say_how_messages_name_the_arguments():
    Z, y, _ = blobs(n=40)
    with pytest.raises(ValueError, match=r"^--calibration applies to the certificate only; add "):
        assess(Z, y, calibration=0.3, names={"calibration": "--calibration"})
    with pytest.raises(
        ValueError, match=r"^delta applies to the certificate only; add certify=True"
    ):
        assess(Z, y, delta=0.1)
    with pytest.raises(ValueError, match=r"^calibration must be a number strictly between 0 and 1"):
        assess(Z, y, certify=True, calibration=1.5)


# ---------------------------------------------------------------------------------------------
# The certificate's verdict: "does not pay" when its upper bound is below 0 (issue 32, item 9)


def four_blobs(n=300, seed=0):
    """Three class cores and a confusion blob among them (4n rows)."""
    rng = np.random.default_rng(seed)
    centres = np.array([[-6.0, 0.0], [6.0, 0.0], [0.0, 6.0], [0.0, 2.0]])
    Z = np.vstack([rng.normal(c, 1.0, (n, 2)) for c in centres])
    return Z, np.r_[np.repeat([0, 1, 2], n), rng.integers(0, 3, n)]


def test_an_upper_bound_below_zero_says_rejecting_does_not_pay():
    # the old text, "(too few calibration rows, or rejecting does not pay)", left the reader to
    # guess although the whole interval was below 0
    Z, y = four_blobs()
    result = assess(Z, y, lam=0.9, certify=True, calibration=0.5)
    certificate = result.certificate
    assert certificate["gain_upper"] < 0
    assert certificate["verdict"] == (
        "not feasible: rejecting does not pay at cost 0.9: the 0.95 upper bound on U(0.9) is "
        f"{certificate['gain_upper']:.4f} < 0 (the upper bound is below 0: P(U(0.9) > this "
        "bound) <= delta = 0.05 over the calibration split, for this GCUL fitted on 600 rows)"
    )
    assert "too few calibration rows" not in result.format()
    assert result.format().splitlines()[0] == f"verdict: {certificate['verdict']}"


def test_an_interval_across_zero_keeps_the_open_wording():
    Z, y = four_blobs()
    certificate = assess(Z, y, lam=0.9, certify=True, calibration=0.2).certificate
    assert certificate["gain_lower"] <= 0 <= certificate["gain_upper"]
    assert certificate["verdict"].startswith("not certified: the 0.95 lower bound on U(0.9) is ")
    assert certificate["verdict"].endswith("(too few calibration rows, or rejecting does not pay)")


def test_the_verdict_comes_first():
    # ~35 lines came before the verdict; now the first line is the last one, the strongest
    Z, y = four_blobs(n=100)
    for certify in (False, True):
        lines = assess(Z, y, certify=certify).format().splitlines()
        assert lines[0].startswith("verdict: ") and lines[0] == lines[-1]
        assert lines[1] == "GCUL feasibility report"
