"""Tests for simulations.compare (issue 16, section 6) and `gcul compare`.

compare's numbers against an independent computation (scikit-learn's logistic regression for
MSP, exact fractions for the metrics), determinism, the splitter, the verdict's sign logic, the
guarantee's bookkeeping, and the command line with good and bad input.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
import warnings
from fractions import Fraction

import numpy as np
import pytest
from _cli import run
from scipy import stats

from gcul_theory import selective_risk_upper_bound
from simulations.compare import (
    MAX_SPLITS,
    compare,
    estimate,
    stratified_splits,
    verdict,
)
from simulations.gcul import GCUL
from simulations.sweep.backends import usable_cores

U = 2.0**-53  # unit roundoff of float64


def blobs(n=80, seed=3):
    """Three overlapping classes in 2-D (3n rows): phase 1 errs, GCUL rejects."""
    rng = np.random.default_rng(seed)
    centres = np.array([[-2.0, 0.0], [2.0, 0.0], [0.0, 2.5]])
    Z = np.vstack([rng.normal(c, 1.3, (n, 2)) for c in centres])
    y = np.repeat([0, 1, 2], n)
    return Z, y


@pytest.fixture(scope="module")
def small():
    Z, y = blobs()
    return Z, y, compare(Z, y, splits=3, seed=5)


# --------------------------------------------------------------------------------------------
# The splitter and the estimate


def test_stratified_splits_partition_and_stratify():
    y = np.repeat([0, 1, 2], [40, 13, 2])
    splits = stratified_splits(y, 4, 0.3, seed=9)
    for train, test in splits:
        assert np.array_equal(np.sort(np.r_[train, test]), np.arange(y.size))
        # class c: round(0.3 m_c) test rows, at most m_c - 1 -> 12, 4, 1 (0.6 rounds to 1)
        assert np.bincount(y[test], minlength=3).tolist() == [12, 4, 1]
        assert np.bincount(y[train], minlength=3).min() >= 1
    assert len({tuple(test) for _, test in splits}) == 4  # the splits differ
    # split i does not depend on how many splits are drawn, and the seed fixes every bit
    again = stratified_splits(y, 2, 0.3, seed=9)
    for (a, b), (c, d) in zip(again, splits[:2], strict=False):
        assert np.array_equal(a, c) and np.array_equal(b, d)


def test_stratified_splits_keep_every_class_in_training():
    y = np.repeat([0, 1], [10, 2])
    for train, test in stratified_splits(y, 5, 0.8, seed=1):
        # class 1: round(0.8 * 2) = 2 test rows, clipped to 1 so that training keeps one
        assert np.bincount(y[train], minlength=2).tolist() == [2, 1]
        assert np.bincount(y[test], minlength=2).tolist() == [8, 1]


def test_estimate_formula():
    values = [0.1, 0.25, 0.4, 0.3]
    e = estimate(values, 0.5)
    s2 = np.var(values, ddof=1)
    # mean and variance: a few roundings each; sqrt of a product: 2 more (relative 8u)
    assert e.mean == pytest.approx(np.mean(values), rel=8 * U)
    assert e.se == pytest.approx(math.sqrt((1 / 4 + 0.5) * s2), rel=16 * U)
    assert e.se_naive == pytest.approx(math.sqrt(s2 / 4), rel=16 * U)
    one = estimate([0.2], 0.5)
    assert one.mean == 0.2 and math.isnan(one.se) and math.isnan(one.se_naive)


# --------------------------------------------------------------------------------------------
# The verdict


@pytest.mark.parametrize(
    ("values", "word"),
    [
        ([-0.03, -0.02, -0.025, -0.028], "lower by 2.58 ± "),
        ([0.03, 0.02, 0.025, 0.028], "higher by 2.58 ± "),
        ([0.0, 0.0, 0.0, 0.0], "the same as GCUL's in every split: a tie"),
        ([0.01, -0.01, 0.005, 0.0], "no difference at level 0.05"),
        ([1e-9] * 4, "no verdict"),  # constant over splits, but not zero: no spread to test
        ([-1e-9] * 4, "no verdict"),
    ],
)
def test_verdict_sign(values, word):
    text = verdict("MSP", estimate(values, 0.4)).text()
    assert text.startswith("at GCUL's coverage, MSP's selective risk is")
    assert word in text


def test_verdict_one_split():
    v = verdict("MSP", estimate([0.01], 0.4))
    assert v.outcome == "no verdict" and "one split: the t test needs at least 2" in v.text()


def test_compare_verdicts_follow_the_differences(small):
    _, _, result = small
    critical = stats.t.ppf(1 - 0.05 / 2, result.splits - 1)
    for r in result.rejectors[1:]:
        d, se = r.difference.mean, r.difference.se
        assert r.verdict == r.test.text() and r.test.level == 0.05
        if abs(d / se) <= critical:
            assert "no difference at level 0.05" in r.verdict
        else:
            assert ("lower by" if d < 0 else "higher by") in r.verdict
        # the difference is the paired difference of the selective risks, split by split
        gcul = result.rejectors[0].sel_risk.values
        assert r.difference.values == tuple(
            a - b for a, b in zip(r.sel_risk.values, gcul, strict=True)
        )
    best = min(result.rejectors, key=lambda r: r.sel_risk.mean)
    assert result.best == best.label and result.lowest == (best.label,)


# --------------------------------------------------------------------------------------------
# Against an independent computation


def sklearn_probabilities(X_train, y_train, X_test):
    sklinear = pytest.importorskip("sklearn.linear_model")
    threadpoolctl = pytest.importorskip("threadpoolctl")
    with threadpoolctl.threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = sklinear.LogisticRegression(C=1.0, tol=1e-10, max_iter=10000)
        model.fit(X_train, y_train)
    return model, model.predict_proba(X_test)


def logit_gap(ours, theirs, X):
    """Per row, max over classes of |s_ours - s_theirs|, plus the rounding of both dot products
    (d + 1 terms each: (d + 1) eps sum|w_j x_j|, Higham's bound for a dot product)."""
    eps = np.finfo(np.float64).eps
    d = X.shape[1]
    gap = np.abs((ours.coef_ - theirs.coef_) @ X.T + (ours.intercept_ - theirs.intercept_)[:, None])
    size = (
        np.abs(ours.coef_) @ np.abs(X.T)
        + np.abs(theirs.coef_) @ np.abs(X.T)
        + np.abs(ours.intercept_)[:, None]
        + np.abs(theirs.intercept_)[:, None]
    )
    return np.max(gap + (d + 1) * eps * size, axis=0)


def exact_errors(order, wrong):
    """E(m) for m = 0..n of the ranking ``order`` (no ties), as integers."""
    return np.r_[0, np.cumsum(wrong[order])]


def check_msp(result, i, m, log_p, wrong, bound):
    """Check split ``i`` of ``result``'s MSP numbers against the probabilities ``log_p`` of
    another computation, which may differ from compare's by up to ``bound[j]`` on row j.

    Rows whose log p_max lie within the sum of their bounds (chained) may be ranked in either
    order by the two computations: E(m) is bracketed by ranking each chain's wrong rows last
    (low) and first (high), and compare's numbers must lie in the brackets; the same for the
    rows near Chow's threshold. Returns how many quantities were pinned exactly.
    """
    msp = result.rejector("msp")
    n = log_p.size
    order = np.argsort(-log_p, kind="stable")
    sorted_bound = bound[order]
    apart = np.diff(log_p[order]) < -(sorted_bound[1:] + sorted_bound[:-1])
    chain = np.r_[0, np.cumsum(apart)]
    low = exact_errors(order[np.lexsort((wrong[order], chain))], wrong)
    high = exact_errors(order[np.lexsort((~wrong[order], chain))], wrong)
    pinned = 0
    if m:
        lo, hi = Fraction(int(low[m]), m), Fraction(int(high[m]), m)
        ours = msp.sel_risk.values[i]
        # ours is E/m, one correctly rounded division; float() of a Fraction too: monotone
        assert float(lo) <= ours <= float(hi)
        if lo == hi:
            assert ours == float(lo)
            pinned += 1
    # AURC: the mean of E(m)/m; ours is within 5u relative of the exact value (gcul_theory.aurc)
    aurc_low = sum(Fraction(int(low[k]), k) for k in range(1, n + 1)) / n
    aurc_high = sum(Fraction(int(high[k]), k) for k in range(1, n + 1)) / n
    assert float(aurc_low) * (1 - 5 * U) <= msp.aurc.values[i] <= float(aurc_high) * (1 + 5 * U)
    pinned += aurc_low == aurc_high
    # Chow's rule p_max >= 1 - lam, with the rows within their bound of the threshold either way
    threshold = math.log1p(-result.lam)
    sure = log_p - bound >= threshold
    maybe = log_p + bound >= threshold
    assert sure.sum() / n <= msp.coverage.values[i] <= maybe.sum() / n
    if np.array_equal(sure, maybe):
        kept = int(sure.sum())
        assert msp.coverage.values[i] == kept / n
        lam = Fraction(result.lam)
        eps = Fraction(int(wrong.sum()), n)
        eps_sel = Fraction(int((wrong & sure).sum()), kept) if kept else Fraction(0)
        rho = 1 - Fraction(kept, n)
        # U: 1 - coverage, lam * rho, eps_sel and two subtractions, terms <= 1: <= 6u absolute;
        # U_joint: joint_utility's bound 4u (eps + (1-rho) eps_sel + lam rho) <= 12u, plus the
        # 2u of rho and eps_sel as inputs
        u = eps - eps_sel - lam * rho
        u_joint = eps - (1 - rho) * eps_sel - lam * rho
        assert msp.u.values[i] == pytest.approx(float(u), rel=0, abs=8 * U)
        assert msp.u_joint.values[i] == pytest.approx(float(u_joint), rel=0, abs=16 * U)
        pinned += 1
    return pinned


def splits_of(result, Z, y):
    """compare's splits and, per split, the GCUL it fitted (GCUL.fit is deterministic)."""
    for i, (train, test) in enumerate(stratified_splits(y, result.splits, result.test_size, 5)):
        yield i, train, test, GCUL().fit(Z[train], y[train])


def test_numbers_against_exact_recomputation(small):
    """Every split's MSP and GCUL numbers, recomputed with exact fractions from phase 1's own
    probabilities (predict_proba: a different formula from the rejector's log1p form)."""
    Z, y, result = small
    for i, _train, test, model in splits_of(result, Z, y):
        predicted = model.predict(Z[test])
        m = int(np.count_nonzero(predicted != model.n_classes_))
        log_p = np.log(model.phase1_.predict_proba(Z[test]).max(axis=1))
        wrong = model.phase1_.predict(Z[test]) != y[test]
        # the two formulas of log p_max agree to a few ulps of the logits (|s| < 100 here):
        # 1e-12 absolute is far above that and far below any gap between rows
        assert check_msp(result, i, m, log_p, wrong, np.full(log_p.size, 1e-12)) == 3
        n = y[test].size
        assert result.base_error.values[i] == int(wrong.sum()) / n
        x = int(np.count_nonzero((predicted != model.n_classes_) & (predicted != y[test])))
        assert result.rejector("gcul").sel_risk.values[i] == (x / m if m else 0.0)
        assert result.gcul_coverage.values[i] == m / n
        assert 0 < m < n  # GCUL rejects some rows and keeps some: the comparison bites


def test_msp_against_sklearn(small):
    """MSP's numbers within the brackets that scikit-learn's probabilities allow."""
    Z, y, result = small
    pinned = 0
    for i, train, test, model in splits_of(result, Z, y):
        m = int(np.count_nonzero(model.predict(Z[test]) != model.n_classes_))
        theirs, proba = sklearn_probabilities(Z[train], y[train], Z[test])
        # log p_max of row j moves by at most 2 max_k |s_ours - s_theirs| between the models.
        # GCUL's phase 1 stops at its default gtol 1e-4 and differs from scikit-learn's
        # (tol 1e-10) by up to about 1e-2 in the logits (the package's LR at tol 1e-10 matches
        # it to 1e-6: tests/test_rejectors_msp.py)
        bound = 2.0 * logit_gap(model.phase1_, theirs, Z[test]) + 1e-12
        assert bound.max() < 5e-2
        predicted = proba.argmax(axis=1)
        assert np.array_equal(predicted, model.phase1_.predict(Z[test]))
        pinned += check_msp(result, i, m, np.log(proba.max(axis=1)), predicted != y[test], bound)
    assert pinned >= 3  # at least three of the nine quantities pinned exactly: not vacuous


def test_every_rejector_is_compared_but_bayes(small):
    _, _, result = small
    names = [r.name for r in result.rejectors]
    assert names == [
        "gcul",
        "msp",
        "entropy",
        "mahalanobis",
        "knn",
        "selectivenet",
        "deep_gamblers",
    ]
    natural = {r.name for r in result.rejectors if r.natural}
    assert natural == {"gcul", "msp", "selectivenet"}
    for r in result.rejectors:
        if not r.natural:  # operated at GCUL's coverage
            assert r.coverage.values == result.gcul_coverage.values
            assert r.operating_point == "GCUL's coverage"
    # a rejector that GCUL beats or loses to: the comparison is not all ties on this data
    assert result.gcul_coverage.mean < 1.0


def test_guarantee_bookkeeping(small):
    _, _, result = small
    g = result.guarantee
    assert g.n_train + g.n_tune + g.n_cal == result.n
    assert g.n_cal == round(0.3 * result.n)
    for part in (g.gcul, g.msp):
        assert part["coverage"] == part["n_accepted"] / g.n_cal
        assert part["bound"] == selective_risk_upper_bound(
            part["n_wrong"], part["n_accepted"], g.delta
        )
        assert part["risk"] <= part["bound"]
    assert 0.0 < g.msp["threshold"] <= 1.0
    sgr = g.sgr
    if "feasible" in sgr and sgr["feasible"]:
        assert sgr["bound"] < sgr["target_risk"]


# --------------------------------------------------------------------------------------------
# Determinism and rendering


def test_same_seed_same_bits(small):
    Z, y, result = small
    again = compare(Z, y, splits=3, seed=5)
    assert json.dumps(again.to_dict()) == json.dumps(result.to_dict())
    assert again.format() == result.format()
    other = compare(Z, y, splits=3, seed=6)
    assert other.to_dict()["gcul_coverage"] != result.to_dict()["gcul_coverage"]


def test_renderings(small):
    _, _, result = small
    text = result.format()
    assert "MSP: at GCUL's coverage, MSP's selective risk is" in text
    assert "with confidence 0.95 its selective risk is <=" in text
    markdown = result.to_markdown()
    assert markdown.count("\n| ") == len(result.rejectors) + 1  # header + one row each
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert data["rejectors"][1]["name"] == "msp"
    assert data["guarantee"]["assumption"].startswith("calibration and deployment rows are iid")


def test_the_text_says_which_question_u_and_u_joint_answer(small):
    # U = -0.015 beside U_joint = +0.014 with no word on which answers what (issue 32, item 9)
    _, _, result = small
    lines = result.format().splitlines()
    table_end = lines.index("", 4)  # the blank line under the table
    legend = lines[table_end + 1 : table_end + 4]
    assert legend[0].startswith("U and U_joint, at each rejector's operating point (eps: ")
    assert legend[1].startswith("  U = eps - eps_sel - lam*rho, the paper's utility and its criterion")
    assert "error avoided on the accepted rows minus the rejection cost" in legend[1]
    assert legend[2].startswith("  U_joint = eps - (1-rho)*eps_sel - lam*rho, Chow's joint loss")
    assert "errors counted over all rows" in legend[2]
    assert lines[table_end + 4] == "" and lines[table_end + 5].startswith("verdicts: ")
    assert "U and U_joint" not in result.to_markdown()  # the committed Markdown tables stay


def test_progress_messages():
    Z, y = blobs(n=30)
    seen = []
    compare(Z, y, splits=2, progress=seen.append)
    assert seen[0] == "2 split(s) of 63 training / 27 test rows, 1 worker(s)"
    assert [s.split(" (")[0] for s in seen[1:3]] == ["split 1/2 done", "split 2/2 done"]
    assert all(re.search(r"; \d+s elapsed, ETA \d+s$", s) for s in seen[1:3])
    assert seen[2].endswith("ETA 0s") and seen[3] == "guarantee: done"


def test_any_number_of_jobs_gives_the_same_result():
    # a split depends on (seed, index) only and runs with one BLAS thread: two loky workers
    # (splits finishing in any order) and this process give the same JSON, to the last digit
    Z, y = blobs(n=40, seed=8)
    seen = []
    one = compare(Z, y, splits=4, seed=2)
    two = compare(Z, y, splits=4, seed=2, n_jobs=2, progress=seen.append)
    assert json.dumps(two.to_dict()) == json.dumps(one.to_dict())
    assert seen[0].endswith(f"{min(2, usable_cores())} worker(s)")
    assert sorted(s.split(" (split #")[1][0] for s in seen[1:5]) == ["1", "2", "3", "4"]
    for bad in (0, 1.5, True):
        with pytest.raises(TypeError, match="n_jobs must be a non-zero int"):
            compare(Z, y, n_jobs=bad)


def test_float32_embeddings_are_not_widened_but_give_the_float64_result():
    # float32 rows are widened split by split (exact), so the result is that of the same
    # numbers passed as float64
    Z, y = blobs(n=40, seed=9)
    Z32 = Z.astype(np.float32)
    got = compare(Z32, y, splits=2, seed=1)
    assert json.dumps(got.to_dict()) == json.dumps(
        compare(Z32.astype(np.float64), y, splits=2, seed=1).to_dict()
    )


# --------------------------------------------------------------------------------------------
# Validation


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"splits": 0}, "splits must be an integer in [1, 1000]; got 0"),
        ({"splits": MAX_SPLITS + 1}, "splits must be an integer in [1, 1000]"),
        ({"lam": 1.0}, "lam must be in [0, 1); got 1.0"),
        ({"lam": float("nan")}, "lam must be in [0, 1); got nan"),
        ({"test_size": 0.0}, "test_size must be in (0, 1)"),
        ({"delta": 1.0}, "delta must be in (0, 1)"),
        ({"calibration": 1.5}, "calibration must be in (0, 1)"),
        ({"target_risk": 0.0}, "target_risk must be in (0, 1)"),
        ({"seed": -1}, "seed must be an integer in [0, 4294967295]"),
    ],
)
def test_bad_arguments(kwargs, message):
    Z, y = blobs(n=20)
    with pytest.raises(ValueError) as info:
        compare(Z, y, **kwargs)
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("Z", "y", "message"),
    [
        (np.zeros((6, 2)), np.zeros(6, int), "y: holds a single class (0)"),
        (np.zeros((6, 2)), np.array([0, 0, 0, 1, 1, 2]), "y: class 2 has 1 row;"),
        (np.zeros((6, 2)), np.array([0, 0, 0, 2, 2, 2]), "y: class 1 has 0 rows"),
        (np.zeros((6, 2)), np.array([0, 1, 0]), "y: holds 3 labels for 6 rows of Z"),
        (np.array([[0.0, np.nan]] * 6), np.array([0, 1] * 3), "Z: row 0 holds NaN"),
        (
            np.zeros(6),
            np.array([0, 1] * 3),
            "Z: expected a 2-D array (N rows x d columns); got shape (6,)",
        ),
        (np.zeros((12, 2)), np.array([0, 1] * 6), "at least 10 are needed"),
    ],
)
def test_bad_data(Z, y, message):
    with pytest.raises(ValueError) as info:
        compare(Z, y, splits=1)
    assert message in str(info.value)


# --------------------------------------------------------------------------------------------
# The command line


@pytest.fixture
def files(tmp_path):
    Z, y = blobs(n=30)
    np.save(tmp_path / "Z.npy", Z)
    np.save(tmp_path / "y.npy", y)
    np.save(tmp_path / "short.npy", y[:50])
    np.save(tmp_path / "one.npy", np.zeros(y.size, int))
    Z_nan = Z.copy()
    Z_nan[7, 1] = np.nan
    np.save(tmp_path / "nan.npy", Z_nan)
    return tmp_path


def argv(folder, embeddings="Z.npy", labels="y.npy", *extra):
    return [
        "compare",
        "--embeddings",
        str(folder / embeddings),
        "--labels",
        str(folder / labels),
        *extra,
    ]


@pytest.mark.parametrize(
    ("embeddings", "labels", "extra", "message"),
    [
        ("missing.npy", "y.npy", (), "--embeddings {}/missing.npy: no such file"),
        ("Z.npy", "short.npy", (), "holds 50 labels for 90 rows of --embeddings"),
        ("Z.npy", "one.npy", (), "holds a single class (0); at least two are needed"),
        ("nan.npy", "y.npy", (), "row 7 holds NaN or inf"),
        ("Z.npy", "y.npy", ("--splits", "0"), "argument --splits: expected a positive integer"),
        ("Z.npy", "y.npy", ("--splits", "1001"), "--splits must be in 1..1000; got 1001"),
        ("Z.npy", "y.npy", ("--lam", "1.2"), "argument --lam: expected a number in [0, 1)"),
        ("Z.npy", "y.npy", ("--lam", "-0.1"), "argument --lam: expected a number in [0, 1)"),
        ("Z.npy", "y.npy", ("--plot", "out.txt"), "the file name must end in .png"),
    ],
)
def test_cli_bad_input_is_one_line(files, capsys, embeddings, labels, extra, message):
    code, out, err = run(argv(files, embeddings, labels, *extra), capsys)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("gcul compare: error: ")
    assert message.format(files) in err
    assert "Traceback" not in err


def test_cli_no_traceback_in_a_subprocess(files):
    """The console entry point itself: one line, exit 2 (not only main() under pytest)."""
    done = subprocess.run(
        [sys.executable, "-m", "simulations.cli", *argv(files, "Z.npy", "one.npy")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_cli_json_plot_and_progress(files, capsys, tmp_path):
    plot = tmp_path / "rc.png"
    code, out, err = run(
        argv(files, "Z.npy", "y.npy", "--splits", "2", "--json", "--plot", str(plot)), capsys
    )
    assert code == 0
    data = json.loads(out)
    assert data["splits"] == 2 and data["rejectors"][0]["name"] == "gcul"
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert err.splitlines() == [
        line for line in err.splitlines() if line.startswith("gcul compare: ")
    ]
    assert "split 2/2 done" in err and "ETA" in err
    code, out, err = run(argv(files, "Z.npy", "y.npy", "--splits", "1", "--quiet"), capsys)
    assert code == 0 and err == ""
    assert "one split: the t test needs at least 2" in out
    # --jobs: the same numbers; --quiet silences the progress of the workers' splits too
    code, out_jobs, err = run(
        argv(files, "Z.npy", "y.npy", "--splits", "2", "--json", "--jobs", "2", "--quiet"),
        capsys,
    )
    assert code == 0 and err == "" and json.loads(out_jobs) == data


def test_fit_labels_train_and_truth_scores(small):
    Z, y, result = small
    same = compare(Z, y, splits=3, seed=5, y_fit=y)
    assert json.dumps(same.to_dict()) == json.dumps(result.to_dict())
    # fitted on labels with classes 0 and 1 swapped, scored against y: phase 1 is wrong on
    # nearly every row of those classes (2/3 of the rows), so the base error is far above y's
    swapped = np.array([1, 0, 2])[y]
    flipped = compare(Z, y, splits=3, seed=5, y_fit=swapped)
    assert flipped.base_error.mean > 0.5 > result.base_error.mean
    with pytest.raises(ValueError, match=r"y_fit: holds 5 labels for 240 rows of Z"):
        compare(Z, y, y_fit=y[:5])
    with pytest.raises(ValueError, match=r"y_fit: holds the classes 0..1; y holds 0..2"):
        compare(Z, y, y_fit=np.minimum(y, 1))


def test_the_training_rows_centred_in_place_give_the_same_comparison(monkeypatch):
    # each split lets GCUL's K-Means centre its float64 training rows in place (one copy less
    # at the peak) and gathers them again for the rejectors; the guarantee's fit does the same
    # with its own copy. With the in-place path forced on this small input, the JSON is that of
    # the copies, to the last digit, and the caller's embeddings are untouched
    from simulations.models import _kmeans

    Z, y = blobs(n=60, seed=4)
    before = Z.copy()
    copies = json.dumps(compare(Z, y, splits=2, seed=3).to_dict())
    calls = []
    lloyd = _kmeans.lloyd

    def spy(X, *args, **kwargs):
        calls.append(kwargs.get("overwrite_X", False))
        return lloyd(X, *args, **kwargs)

    monkeypatch.setattr(_kmeans, "_LEAN_ELEMENTS", 10)
    monkeypatch.setattr("simulations._guided_clustering.lloyd", spy)
    assert json.dumps(compare(Z, y, splits=2, seed=3).to_dict()) == copies
    assert calls == [True, True, True]  # two splits and the guarantee
    np.testing.assert_array_equal(Z, before)


def test_the_command_keeps_a_float32_npy_and_gives_the_float64_result(tmp_path, capsys):
    # gcul compare reads a .npy once and keeps float32 (joblib shares that one copy with the
    # loky workers, rather than a float64 copy); the result is the API's on the same numbers in
    # float64, and the file is never written to
    from simulations.cli.loaders import load_embeddings

    Z, y = blobs(n=40, seed=9)
    Z32 = Z.astype(np.float32)
    np.save(tmp_path / "Z.npy", Z32)
    np.save(tmp_path / "y.npy", y)
    loaded = load_embeddings(str(tmp_path / "Z.npy"), shared_float32=True)
    assert loaded.dtype == np.float32 and not isinstance(loaded.base, np.memmap)
    code, out, _ = run(
        [
            "compare",
            "--embeddings",
            str(tmp_path / "Z.npy"),
            "--labels",
            str(tmp_path / "y.npy"),
            "--splits",
            "2",
            "--seed",
            "1",
            "--json",
            "--quiet",
        ],
        capsys,
    )
    assert code == 0
    expected = compare(Z32.astype(np.float64), y, splits=2, seed=1).to_dict()
    assert json.loads(out)["rejectors"] == json.loads(json.dumps(expected))["rejectors"]
    np.testing.assert_array_equal(np.load(tmp_path / "Z.npy"), Z32)
    assert load_embeddings(str(tmp_path / "Z.npy")).dtype == np.float64  # other commands


@pytest.mark.parametrize("change", ["replace", "rewrite", "rewrite_same_mtime", "remove"])
def test_a_file_changed_during_the_run_does_not_change_its_result(
    files, capsys, monkeypatch, change
):
    # gcul compare mapped --embeddings and read it as the splits needed it, and each worker of
    # --jobs mapped it again by its name: a file replaced, rewritten or removed during the run
    # gave splits of two files (base error 0.54 instead of 0.048 with --jobs 2), a worker's
    # traceback, or, once the stamp caught those, still a wrong result that looked complete for
    # a rewrite of the same size whose mtime was restored with os.utime (issue 32, item 4). Now
    # the file is read once, at the start: the result is that of the file as read, and one note
    # says that the file changed
    import os

    import simulations.compare

    path = files / "Z.npy"
    os.utime(path, ns=(0, 10**18))  # written well before the run, as a real file is
    clean_code, clean, _ = run(
        argv(files, "Z.npy", "y.npy", "--splits", "2", "--quiet", "--json"), capsys
    )
    assert clean_code == 0
    other = np.load(path)[::-1].copy()  # the same shape, other rows
    real = simulations.compare.compare

    def changing(*args, **kwargs):
        if change == "replace":
            np.save(files / "new.npy", other)
            os.replace(files / "new.npy", path)
        elif change.startswith("rewrite"):
            before = os.stat(path)
            np.save(path, other)
            if change == "rewrite_same_mtime":
                os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
                assert os.stat(path).st_size == before.st_size
        else:
            path.unlink()
        return real(*args, **kwargs)

    monkeypatch.setattr(simulations.compare, "compare", changing)
    code, out, err = run(
        argv(files, "Z.npy", "y.npy", "--splits", "2", "--quiet", "--json"), capsys
    )
    assert (code, out) == (0, clean)
    assert err.splitlines() == [
        f"gcul compare: note: --embeddings {path} changed during the run; the result is that "
        "of the file as it was read at the start"
    ]


def test_a_same_size_rewrite_with_its_mtime_restored_while_the_file_is_read_is_refused(
    files, capsys, monkeypatch
):
    # the stamp (device, inode, size, mtime) missed a rewrite of the same size whose mtime was
    # restored (os.utime); st_ctime, now in the stamp, changes on every write and a user cannot
    # set it back: a file changed between the stamp and the end of its read is refused
    import os

    from simulations.cli import loaders

    path = files / "Z.npy"
    other = np.load(path)[::-1].copy()
    read = loaders.read_array

    def rewritten_while_read(*args, **kwargs):
        array = read(*args, **kwargs)
        before = os.stat(path)
        np.save(path, other)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        return array

    monkeypatch.setattr(loaders, "read_array", rewritten_while_read)
    code, out, err = run(argv(files, "Z.npy", "y.npy", "--splits", "2", "--quiet"), capsys)
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        f"gcul compare: error: --embeddings {path}: the file changed while it was read, so no "
        "result is given; run it again with the file left as it is"
    ]


def test_the_split_cache_resumes_verifies_and_keeps_every_bit(tmp_path):
    # issue 32: every split is written to cache_dir as it finishes; a rerun takes it from
    # there and gives the same result to the last bit (the JSON, and the first split's curves
    # the figure draws), whatever n_jobs; a file that does not verify (here: edited) is
    # reported and computed again; another lam is another cache entry, another level is not
    Z, y = blobs(n=40, seed=8)
    fresh = compare(Z, y, splits=3, seed=2)
    seen = []
    first = compare(Z, y, splits=3, seed=2, cache_dir=tmp_path, n_jobs=2, progress=seen.append)
    files = sorted(tmp_path.glob("split-*.json"))
    assert len(files) == 3 and seen[0].endswith("2 worker(s)")
    edited = files[1].read_text().replace('"index":1', '"index":7')
    files[1].write_text(edited)
    seen.clear()
    again = compare(Z, y, splits=3, seed=2, cache_dir=tmp_path, level=0.1, progress=seen.append)
    assert seen[0].endswith(f"2 in the cache {tmp_path}, 1 to compute with 1 worker(s)")
    assert seen[1].startswith(
        f"1 cached split(s) did not verify and are recomputed ({files[1].name}"
    )
    assert "checksum mismatch" in seen[1]
    fresh_level = compare(Z, y, splits=3, seed=2, level=0.1)
    for result, expected in ((first, fresh), (again, fresh_level)):
        assert json.dumps(result.to_dict()) == json.dumps(expected.to_dict())
        assert result.curves.keys() == fresh.curves.keys()
        for key, value in fresh.curves.items():
            for part, fresh_part in zip(result.curves[key], value):
                np.testing.assert_array_equal(part, fresh_part, strict=True)
    compare(Z, y, splits=3, seed=2, lam=0.2, cache_dir=tmp_path, keep_cache=False)
    assert sorted(tmp_path.glob("split-*.json")) == files  # lam's files: removed at the end
    with pytest.raises(ValueError, match="cache_dir must be a directory"):
        compare(Z, y, splits=3, cache_dir=files[0])
