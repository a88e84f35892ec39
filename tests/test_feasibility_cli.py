"""`gcul feasibility`'s options (issue 7, section 3): --method, optional --predictions,
--certify, --json, and the refusal to say "feasible" when GCUL cannot reject."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import numpy as np
import pytest
from _blob_data import feasibility_blobs as blobs
from _cli import run

from gcul_theory import MAX_CLASSES, METHODS, PREDICTORS, feasibility_report
from gcul_theory._report import COLUMN_LEGEND
from simulations import cli
from simulations.feasibility import VERDICT_DEFAULT, requested_methods


@pytest.fixture
def files(tmp_path):
    Z, y, y_pred = blobs()
    np.save(tmp_path / "Z.npy", Z)
    np.save(tmp_path / "y.npy", y)
    np.save(tmp_path / "p.npy", y_pred)
    return tmp_path


def base(folder: Path, predictions=True):
    argv = ["feasibility", "--embeddings", str(folder / "Z.npy"), "--labels", str(folder / "y.npy")]
    return argv + (["--predictions", str(folder / "p.npy")] if predictions else [])


def table_rows(out):
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("method "))
    rows = []
    for line in lines[start + 1 :]:
        if line.lstrip().startswith("kind:"):
            break
        rows.append(line.split()[0])
    return rows


# --- --method ----------------------------------------------------------------------------------


def test_default_method_is_the_valid_hunter_worsley(files, capsys):
    code, out, err = run(base(files), capsys)
    assert code == 0, err
    assert table_rows(out) == ["hunter_worsley"]
    verdict = out.splitlines()[-1]
    assert verdict.startswith(
        "verdict: feasible by hunter_worsley (valid in expectation under the paper's Gaussian "
        "model): "
    )
    # the CLI's default is the library's
    default = inspect.signature(feasibility_report).parameters["method"].default
    assert VERDICT_DEFAULT == default


def test_several_methods_first_one_decides(files, capsys):
    code, out, err = run(base(files) + ["--method", "union", "boole", "union"], capsys)
    assert code == 0, err
    assert table_rows(out) == ["union", "boole"]  # the repeat is dropped
    assert out.splitlines()[-1].startswith(
        "verdict: feasible by union (the paper's printed bound, NOT a valid lower bound): "
    )


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["all"], ["hunter_worsley"] + [m for m in METHODS if m != "hunter_worsley"]),
        (["union", "all"], ["union"] + [m for m in METHODS if m != "union"]),
        (["boole"], ["boole"]),
    ],
)
def test_all_expands_to_the_registry(words, expected):
    assert requested_methods(words) == expected


def test_all_reports_every_registered_predictor(files, capsys):
    code, out, err = run(base(files) + ["--method", "all"], capsys)
    assert code == 0, err
    assert sorted(table_rows(out)) == sorted(entry.name for entry in PREDICTORS)
    for entry in PREDICTORS:
        (row,) = [line for line in out.splitlines() if line.split()[:1] == [entry.name]]
        assert row.split()[1:3] == [entry.kind, "yes" if entry.valid else "NO"]


# --- --predictions omitted ---------------------------------------------------------------------


def test_predictions_omitted_fits_phase_one_in_sample(files, capsys):
    from simulations.models import LogisticRegression

    code, out, err = run(base(files, predictions=False) + ["--json"], capsys)
    assert code == 0, err
    result = json.loads(out)
    assert result["predictions"] == "fitted in-sample"
    assert any("fitted here" in note and "in-sample" in note for note in result["notes"])
    # the same numbers as feasibility_report on GCUL's phase-1 in-sample predictions
    Z, y, _ = blobs()
    y_pred = LogisticRegression(C=1.0, max_iter=500).fit(Z, y).predict(Z)
    report = feasibility_report(Z, y, y_pred)
    assert result["eps"] == float(report.geometry.eps)
    assert result["predictors"][0]["lambda_pre"] == report.lambda_pre["hunter_worsley"]
    code, text, _ = run(base(files, predictions=False), capsys)
    assert "note: phase-1 predictions: fitted here" in text


def test_predictions_omitted_still_checks_labels(tmp_path, capsys):
    Z, y, _ = blobs(n=20)
    np.save(tmp_path / "Z.npy", Z)
    np.save(tmp_path / "y.npy", y + 1)  # 1-based
    code, out, err = run(base(tmp_path, predictions=False), capsys)
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"gcul feasibility: error: --labels {tmp_path / 'y.npy'} must use the classes 0..C-1, "
        "each at least once (C = 3 from the largest label); missing [0] (1-based labels? "
        "subtract 1). Encode other labels with np.unique(y, return_inverse=True)"
    ]
    np.save(tmp_path / "y.npy", y[:10])
    code, out, err = run(base(tmp_path, predictions=False), capsys)
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"gcul feasibility: error: --labels {tmp_path / 'y.npy'}: holds 10 labels for 60 rows "
        f"of --embeddings {tmp_path / 'Z.npy'}"
    ]


# --- inputs that exhausted time or memory (issue 14, section 2) ----------------------------------


def test_wide_embeddings_factorise_nothing_larger_than_the_rows(tmp_path, capsys, monkeypatch):
    # 100 x 20,000 embeddings ran past 300 s in an eigendecomposition of the d x d covariance
    # (12.6 s at d = 4,000). Phase 1 now works in the sample space: no eigendecomposition may
    # be larger than the number of rows (d = 3,000 keeps the old code's covariance at 72 MB).
    from scipy import linalg  # the module the models' solvers call eigh from

    n, d = 60, 3000
    rng = np.random.default_rng(0)
    np.save(tmp_path / "Z.npy", rng.normal(size=(n, d)))
    np.save(tmp_path / "y.npy", np.arange(n) % 3)
    real_eigh = linalg.eigh

    def small_eigh(a, *args, **kwargs):
        assert a.shape[0] <= n, f"eigendecomposition of a {a.shape} matrix for {n} rows"
        return real_eigh(a, *args, **kwargs)

    monkeypatch.setattr(linalg, "eigh", small_eigh)
    code, out, err = run(base(tmp_path, predictions=False) + ["--json"], capsys)
    assert code == 0, err
    result = json.loads(out)
    assert result["n"] == n and result["predictions"] == "fitted in-sample"


@pytest.mark.parametrize("predictions", [False, True])
def test_more_classes_than_the_cap_are_refused_before_fitting(
    tmp_path, capsys, monkeypatch, predictions
):
    # 10**5 distinct labels spent 28.5 s and 9.6 GB fitting phase 1 before "out of memory";
    # the report refuses more than MAX_CLASSES classes anyway, so nothing may be fitted
    from simulations import models

    n = MAX_CLASSES + 1
    np.save(tmp_path / "Z.npy", np.random.default_rng(0).normal(size=(n, 2)))
    np.save(tmp_path / "y.npy", np.arange(n))
    np.save(tmp_path / "p.npy", np.arange(n)[::-1])

    def no_fit(*args, **kwargs):
        raise AssertionError("phase 1 was fitted")

    monkeypatch.setattr(models.LogisticRegression, "fit", no_fit)
    code, out, err = run(base(tmp_path, predictions=predictions), capsys)
    assert code == 2 and out == ""
    files = f"--labels {tmp_path / 'y.npy'}" + (
        f" and --predictions {tmp_path / 'p.npy'} hold" if predictions else " holds"
    )
    assert err.splitlines() == [
        f"gcul feasibility: error: {files} {n} distinct labels; the feasibility report "
        f"supports at most {MAX_CLASSES} classes (gcul_theory.MAX_CLASSES)"
    ]


# --- what the report's words mean (issue 14, section 4) ----------------------------------------


def test_every_per_class_column_is_defined_citing_the_paper_by_title(files, capsys):
    code, out, err = run(base(files), capsys)
    assert code == 0, err
    lines = out.splitlines()
    (header,) = [line for line in lines if line.split()[:2] == ["class", "pi"]]
    (s_exist,) = [line for line in lines if re.fullmatch(r"  S_exist >= [0-9.]+", line)]
    start = lines.index("  columns (the GCUL paper's symbols):")
    legend = {line.split()[0]: line for line in lines[start + 1 : start + 1 + len(COLUMN_LEGEND)]}
    for column in header.split()[1:]:
        assert column in legend, column
    assert any(line.lstrip().startswith("S_exist >= s  ") for line in legend.values())
    # the paper by the titles a reader finds in it, never a LaTeX label (eq:p_loss_exact, ...)
    titles = {
        "p_loss": "Lemma “Boundary Loss and Contamination Probabilities”",
        "eta_outlier": "“Rigorous capture rate bounds via",
        "q_contam": "the same Lemma",
        "S_exist": "Corollary “Structural Confidence and Dense Convergence”",
    }
    for name, title in titles.items():
        assert title in legend[name], name
    assert not re.search(r"\b(eq|cor|lem|thm):[a-z_]", out)
    assert s_exist  # the line the legend's last entry defines
    # --help carries the same definitions
    code, text, _ = run(["feasibility", "--help"], capsys)
    flat = " ".join(text.split())
    for name, meaning in COLUMN_LEGEND:
        assert f"{name}: {' '.join(meaning.split())}" in flat, name


def test_docs_define_the_per_class_columns_citing_the_paper_by_number_and_title():
    # the command line reference of the documentation (moved there from the README, issue 23);
    # it cites the paper as its PDF prints it (number and section title), never by LaTeX label
    from proofs.citations import PAPER_LABELS

    page = Path(__file__).resolve().parents[1] / "docs" / "reference" / "cli.md"
    readme = page.read_text(encoding="utf-8")
    section = readme[readme.index("- `gcul feasibility --embeddings") :]
    section = section[: section.index("\n- `gcul demo")]
    flat = " ".join(section.split())
    for name, _ in COLUMN_LEGEND:
        assert f"`{name}`" in section, name
    for label in ("eq:p_loss_exact", "eq:chernoff_outlier", "eq:q_contam_exact"):
        item = PAPER_LABELS[label]
        assert f"Eq. ({item.number}) in section {item.section}" in flat, label
        assert item.section_title in flat, label
    corollary = PAPER_LABELS["cor:attractor_properties"]
    assert f"Corollary {corollary.number} “{corollary.title}”" in flat
    assert not re.search(r"\b(eq|cor|lem|thm):[a-z_]", section)
    assert "geometric verdict:" in section  # and which verdict line comes last


def test_with_certify_the_last_verdict_is_the_certified_one(files, capsys):
    # the old last line was the geometric verdict, weaker evidence than the certificate printed
    # above it: here the geometry says "feasible" and the certificate does not
    argv = base(files) + ["--certify"]
    code, out, err = run(argv + ["--json"], capsys)
    assert code == 0, err
    result = json.loads(out)
    assert result["verdict"]["feasible"] is True
    assert result["certificate"]["feasible"] is False
    code, text, err = run(argv, capsys)
    assert code == 0, err
    lines = text.splitlines()
    assert lines[-1] == f"verdict: {result['certificate']['verdict']}"
    # the same line first, for the reader who reads no further (issue 32, item 9)
    assert [line for line in lines if line.startswith("verdict: ")] == [lines[-1]] * 2
    assert lines[0] == lines[-1]
    (geometric,) = [line for line in lines if line.startswith("geometric verdict: ")]
    assert geometric == f"geometric verdict: {result['verdict']['text']}"
    assert lines.index(geometric) < len(lines) - 1
    # without --certify the geometric verdict is the verdict
    code, text, _ = run(base(files), capsys)
    assert text.splitlines()[-1] == f"verdict: {result['verdict']['text']}"
    assert "geometric verdict: " not in text


# --- refusal when GCUL cannot reject -------------------------------------------------------------


@pytest.mark.parametrize("lam", ["0", "0.15"])
@pytest.mark.parametrize("method", ["hunter_worsley", "union", "gaussian"])
def test_no_training_error_is_never_feasible(files, capsys, lam, method):
    argv = base(files)
    argv[-1] = str(files / "y.npy")  # predictions = labels: eps = 0
    code, out, err = run(argv + ["--lam", lam, "--method", method, "--json"], capsys)
    assert code == 0, err
    result = json.loads(out)
    assert result["eps"] == 0.0
    assert result["verdict"]["feasible"] is False
    assert result["verdict"]["text"].startswith("not feasible: the base classifier makes no error")
    assert all(p["feasible"] is False for p in result["predictors"])


def separable(tmp_path):
    """Two far blobs: phase 1 makes no training error, so GCUL has no uncertain cluster."""
    rng = np.random.default_rng(3)
    Z = np.vstack([rng.normal(-20.0, 1.0, (40, 2)), rng.normal(20.0, 1.0, (40, 2))])
    y = np.repeat([0, 1], 40)
    y_pred = y.copy()
    y_pred[0] = 1  # one wrong *given* prediction: the geometry alone has an error pool
    np.save(tmp_path / "Z.npy", Z)
    np.save(tmp_path / "y.npy", y)
    np.save(tmp_path / "p.npy", y_pred)
    return tmp_path


def test_certify_refuses_when_the_fitted_gcul_cannot_reject(tmp_path, capsys):
    folder = separable(tmp_path)
    argv = base(folder) + ["--lam", "0", "--method", "union", "--certify", "--json"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    result = json.loads(out)
    assert result["eps"] > 0.0  # the given predictions hold one error ...
    assert result["predictors"][0]["feasible"] is True  # ... so the geometry alone says yes
    certificate = result["certificate"]
    assert certificate["can_reject"] is False and certificate["feasible"] is False
    assert "no uncertain cluster" in certificate["verdict"]
    assert result["verdict"]["feasible"] is False
    assert result["verdict"]["text"].startswith("not feasible: the GCUL fitted on 64 rows")
    code, text, _ = run(argv[:-1], capsys)
    assert text.splitlines()[-1].startswith("verdict: not feasible: the GCUL fitted on")


# --- --certify -----------------------------------------------------------------------------------


def test_certify_on_a_tiny_dataset(tmp_path, capsys):
    Z, y, y_pred = blobs(n=20)
    for name, array in (("Z", Z), ("y", y), ("p", y_pred)):
        np.save(tmp_path / f"{name}.npy", array)
    code, out, err = run(base(tmp_path) + ["--certify"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    (head,) = [line for line in lines if line.startswith("certificate (")]
    # 60 rows, 20% of them (rounded) held out at random: 12
    assert head.startswith("certificate (GCUL fitted on 48 rows, certified on n = 12 held-out")
    assert any(line.startswith("  lambda*_CERT = ") for line in lines)
    assert any(line.startswith("  U(0.15) in [") for line in lines)
    assert any(line.startswith("geometric verdict: ") for line in lines)
    assert lines[-1].startswith("verdict: ")


def test_certify_matches_gcul_certify_on_the_same_split(files, capsys):
    # The split was stratified (gcul.stratified_split): a fixed share of each class held out, so
    # whether a row was held out depended on the other rows' labels, and the calibration rows
    # were not the iid sample the certificate's proof needs. It is now a uniformly random subset
    # chosen without looking at the data, the sweep's calibration_split.
    from simulations.gcul import GCUL
    from simulations.sweep.cell import calibration_split

    argv = base(files) + ["--certify", "--calibration", "0.3", "--delta", "0.1", "--seed", "7"]
    code, out, err = run(argv + ["--json"], capsys)
    assert code == 0, err
    certificate = json.loads(out)["certificate"]
    Z, y, _ = blobs()
    fit, held = calibration_split(y.size, 7, 0.3)
    expected = GCUL().fit(Z[fit], y[fit]).certify(Z[held], y[held], lam=0.15, delta=0.1)
    assert certificate["n"] == expected.n == held.size == round(0.3 * y.size)
    assert certificate["n_fit"] == fit.size
    assert certificate["lambda_cert"] == expected.lambda_cert
    assert certificate["gain_lower"] == expected.gain_lower
    assert certificate["gain_upper"] == expected.gain_upper
    assert (certificate["seed"], certificate["calibration"], certificate["delta"]) == (7, 0.3, 0.1)
    # another seed, another split
    code, out, _ = run(argv[:-1] + ["8", "--json"], capsys)
    assert json.loads(out)["certificate"]["gain_lower"] != certificate["gain_lower"]


def test_certify_is_reproducible(files, capsys):
    argv = base(files) + ["--certify", "--json"]
    assert run(argv, capsys)[1] == run(argv, capsys)[1]


# --- --json --------------------------------------------------------------------------------------

TOP_KEYS = [
    "lam",
    "n",
    "n_classes",
    "eps",
    "predictions",
    "s_exist",
    "predictors",
    "verdict",
    "certificate",
    "per_class",
    "notes",
    "error_pool",
]
PREDICTOR_KEYS = [
    "name",
    "kind",
    "valid",
    "guarantee",
    "lambda_pre",
    "r1_hat",
    "r2_hat",
    "feasible",
]
CERTIFICATE_KEYS = [
    "lambda_cert",
    "gain_lower",
    "gain_upper",
    "feasible",
    "can_reject",
    "n",
    "n_fit",
    "n_rejected",
    "calibration",
    "lam",
    "delta",
    "seed",
    "guarantee",
    "verdict",
]


@pytest.mark.parametrize("certify", [False, True])
def test_json_schema(files, capsys, certify):
    argv = base(files) + ["--json", "--method", "all"] + (["--certify"] if certify else [])
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert err == ""
    assert out.count("\n") == 1  # one object, one line, nothing else on stdout
    result = json.loads(out)
    assert list(result) == TOP_KEYS
    assert [p["name"] for p in result["predictors"]] == requested_methods(["all"])
    for entry in result["predictors"]:
        assert list(entry) == PREDICTOR_KEYS
        registered = next(e for e in PREDICTORS if e.name == entry["name"])
        assert (entry["kind"], entry["valid"]) == (registered.kind, registered.valid)
        for key in ("lambda_pre", "r1_hat", "r2_hat"):
            assert isinstance(entry[key], float) and 0.0 <= entry[key] <= 1.0
    assert list(result["verdict"]) == ["method", "kind", "guarantee", "feasible", "text"]
    assert result["verdict"]["method"] == "hunter_worsley"
    # the given predictions' pool: 200 errors of 600 rows, enough (more than K = 2)
    assert result["error_pool"] == {
        "pool": "given",
        "standardize": False,
        "n_errors": 200,
        "message": None,
    }
    assert isinstance(result["lam"], float) and isinstance(result["eps"], float)
    assert all(isinstance(row["class"], int) for row in result["per_class"])
    if certify:
        assert list(result["certificate"]) == CERTIFICATE_KEYS
        assert isinstance(result["certificate"]["lambda_cert"], float)
    else:
        assert result["certificate"] is None
    # the same numbers as the library
    Z, y, y_pred = blobs()
    report = feasibility_report(Z, y, y_pred)
    for entry in result["predictors"]:
        assert entry["lambda_pre"] == report.lambda_pre[entry["name"]]
        assert entry["r1_hat"] == report.r1_hat[entry["name"]]
        assert entry["r2_hat"] == report.r2_hat_by_method[entry["name"]]


def test_json_errors_stay_on_stderr(tmp_path, capsys):
    code, out, err = run(
        ["feasibility", "--embeddings", str(tmp_path / "no.npy"), "--labels", "x", "--json"],
        capsys,
    )
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"gcul feasibility: error: --embeddings {tmp_path / 'no.npy'}: no such file"
    ]


# --- bad values ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ["--method", "erf"],
            f"argument --method: expected one of {', '.join(METHODS)} or all; got 'erf'",
        ),
        (["--method"], "argument --method: expected at least one argument"),
        (
            ["--certify", "--calibration", "0"],
            "argument --calibration: expected a number strictly between 0 and 1; got '0'",
        ),
        (
            ["--certify", "--calibration", "1.0"],
            "argument --calibration: expected a number strictly between 0 and 1; got '1.0'",
        ),
        (
            ["--certify", "--calibration", "nan"],
            "argument --calibration: expected a number strictly between 0 and 1; got 'nan'",
        ),
        (
            ["--certify", "--delta", "-0.1"],
            "argument --delta: expected a number strictly between 0 and 1; got '-0.1'",
        ),
        (
            ["--certify", "--delta", "five"],
            "argument --delta: expected a number strictly between 0 and 1; got 'five'",
        ),
        (["--calibration", "0.2"], "--calibration applies to the certificate only; add --certify"),
        (["--delta", "0.1"], "--delta applies to the certificate only; add --certify"),
        (["--seed", "-1"], "argument --seed: expected an integer in [0, 2**32); got '-1'"),
        (
            ["--seed", "4294967296"],
            "argument --seed: expected an integer in [0, 2**32); got '4294967296'",
        ),
        (["--seed", "1.5"], "argument --seed: expected an integer in [0, 2**32); got '1.5'"),
    ],
)
def test_bad_values_are_one_line(files, capsys, extra, message):
    code, out, err = run(base(files) + extra, capsys)
    assert code == 2
    assert out == ""
    assert err.splitlines() == [f"gcul feasibility: error: {message}"]


def test_the_split_does_not_fix_the_class_shares(tmp_path, capsys):
    # Stratified, every seed held out the same number of rows of each class (round(0.3 m_c));
    # drawn at random, the count of a class among the held-out rows varies with the seed.
    from simulations.gcul import GCUL
    from simulations.sweep.cell import calibration_split

    Z, y, y_pred = blobs(n=20)  # 60 rows
    for name, array in (("Z", Z), ("y", y), ("p", y_pred)):
        np.save(tmp_path / f"{name}.npy", array)
    zeros = set()
    for seed in range(8):
        argv = base(tmp_path) + ["--certify", "--calibration", "0.3", "--seed", str(seed)]
        code, out, err = run(argv + ["--json"], capsys)
        assert code == 0, err
        certificate = json.loads(out)["certificate"]
        fit, held = calibration_split(y.size, seed, 0.3)
        expected = GCUL().fit(Z[fit], y[fit]).certify(Z[held], y[held], lam=0.15, delta=0.05)
        assert (certificate["n"], certificate["gain_lower"]) == (18, expected.gain_lower)
        zeros.add(int(np.count_nonzero(y[held] == 0)))
    assert len(zeros) > 1, zeros


def test_a_split_that_holds_out_a_whole_class_is_refused(tmp_path, capsys):
    # Stratified, every class kept a row to fit on; drawn at random, the one row of a rare class
    # can be held out, and GCUL cannot then be fitted on that class: one line, exit code 2.
    from simulations.sweep.cell import calibration_split

    Z, y, y_pred = blobs(n=20)
    Z, y, y_pred = np.vstack([Z, [[0.0, 9.0]]]), np.r_[y, 2], np.r_[y_pred, 2]  # class 2: 1 row
    for name, array in (("Z", Z), ("y", y), ("p", y_pred)):
        np.save(tmp_path / f"{name}.npy", array)
    seed = next(s for s in range(100) if y.size - 1 in calibration_split(y.size, s, 0.5)[1])
    argv = base(tmp_path) + ["--certify", "--calibration", "0.5", "--seed", str(seed)]
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"gcul feasibility: error: --calibration 0.5 with --seed {seed} holds out every row of "
        "class 2 (1 of 61 rows), so GCUL cannot be fitted on it; lower --calibration, choose "
        "another --seed or pass more rows of that class"
    ]
    other = next(s for s in range(100) if y.size - 1 not in calibration_split(y.size, s, 0.5)[1])
    argv[-1] = str(other)
    assert run(argv, capsys)[0] == 0


def test_reproduce_method_lists_the_registry(capsys):
    (parser,) = [
        action.choices["reproduce"]
        for action in cli.build_parser()._actions
        if hasattr(action, "choices") and isinstance(action.choices, dict)
    ]
    (method,) = [a for a in parser._actions if "--method" in a.option_strings]
    assert tuple(method.choices) == METHODS
    for entry in PREDICTORS:
        assert entry.name in method.help
    assert "NOT a valid lower bound" in method.help
    code, out, err = run(["reproduce", "--method", "erf"], capsys)
    assert code == 2
    assert "invalid choice: 'erf'" in err and "hunter_worsley" in err
