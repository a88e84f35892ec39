"""The text benchmark's science in the package (simulations.text.measures, tasks, tables,
report, figures, csv_rows, paper_values): validation, and properties that would break if the
code were wrong. The end-to-end runs of the driver are tests/test_text_emotion_benchmark.py."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from simulations.compare import MSP_LAMBDAS, estimate
from simulations.gcul import GCUL
from simulations.text import study
from simulations.text.csv_rows import read_csv, tables_from_csv, to_csv, verdict_csv_rows
from simulations.text.figures import plot_operating, plot_sweep, thin_tick_labels
from simulations.text.measures import (
    PCA_DIMS,
    REDUCED,
    VARIANTS,
    dims_for,
    fit_variant,
    head_at,
    macro_f1,
    measure_model,
    operating_point_rows,
    pca_sweep_rows,
    subsample,
)
from simulations.text.paper_values import PAPER_GCUL, PAPER_KAGGLE, PAPER_OPERATING
from simulations.text.report import readme_findings, render, seed_means, verdict_cell
from simulations.text.tables import fmt, mean_se, ratio_of, seed_verdicts, select, table_operating
from simulations.text.tasks import collect_results, run_standin_split, run_task, task_name

COMMITTED = Path(__file__).resolve().parents[1] / "benchmarks" / "text_emotion"


def _data(n: int = 150, d: int = 6, seed: int = 0):
    """Three overlapping classes in d dimensions: phase 1 errs, so GCUL has an error pool."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    Z = 1.2 * np.eye(3, d)[y] + rng.normal(size=(n, d))
    test = np.arange(n)[np.arange(n) % 5 == 0]
    train = np.arange(n)[np.arange(n) % 5 != 0]
    probs = np.exp(2.0 * Z[:, :3])
    return Z, y, train, test, probs / probs.sum(axis=1, keepdims=True)


# ------------------------------------------------------------------------------- measures
def test_macro_f1_matches_scikit_learn_and_checks_shapes():
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(1)
    for _ in range(20):
        y_true, y_pred = rng.integers(0, 5, 50), rng.integers(0, 6, 50)
        expected = f1_score(y_true, y_pred, average="macro", zero_division=0)
        # the same sum of at most 6 ratios in another order: a few ulps
        assert math.isclose(macro_f1(y_true, y_pred), expected, rel_tol=1e-12)
    assert math.isnan(macro_f1(np.array([], int), np.array([], int)))
    assert macro_f1(np.array([2, 0, 1]), np.array([2, 0, 1])) == 1.0
    with pytest.raises(ValueError, match="same shape"):
        macro_f1(np.zeros(3, int), np.zeros(4, int))


def test_subsample_is_stratified_and_keeps_small_classes():
    y = np.repeat([0, 1, 2], [9000, 900, 12])
    keep = subsample(y, 1000)
    counts = np.bincount(y[keep], minlength=3)
    # each class in proportion (round(share * m_c)), but never under MIN_CLASS_ROWS
    assert counts.tolist() == [round(9000 * 1000 / 9912), round(900 * 1000 / 9912), study.MIN_CLASS_ROWS]
    assert np.array_equal(keep, np.unique(keep)) and np.array_equal(keep, subsample(y, 1000))
    for bad in (0, y.size + 1):
        with pytest.raises(ValueError, match="n must be"):
            subsample(y, bad)


def test_dims_for_is_the_papers_dimensions_up_to_d_and_d():
    for d in (1, 2, 7, 10, 384, 1000):
        dims = dims_for(d)
        assert dims[-1] == d and dims == sorted(set(dims)) and all(k <= d for k in dims)
        assert set(dims) - {d} == {k for k in PCA_DIMS if k <= d} - {d}
    with pytest.raises(ValueError, match="d must be"):
        dims_for(0)


def test_fit_variant_names_and_dimensions():
    Z, y, train, _, _ = _data(d=12)
    assert fit_variant("gcul_pca", Z, y, train).reducer_.n_components == REDUCED
    assert fit_variant("gcul_lda", Z, y, train).reducer_.n_components == 2  # C - 1 = 2 < 10
    with pytest.raises(ValueError, match="variant must be one of"):
        fit_variant("gcul_umap", Z, y, train)


def test_measure_model_counts_agree_with_the_models_indicators():
    Z, y, train, test, probs = _data()
    model = GCUL().fit(Z[train], y[train])
    row = measure_model(model, Z, y, train, test, probs)
    outcome = model.indicators(Z[test], y[test])
    accepted = ~outcome.rejected
    assert (row["n_train"], row["n_test"]) == (train.size, test.size)
    assert row["rejection"] == pytest.approx(1.0 - accepted.mean(), abs=1e-15)
    assert row["base_acc"] == pytest.approx(np.mean(model.phase1_.predict(Z[test]) == y[test]), abs=1e-15)
    assert row["head_acc"] == pytest.approx(np.mean(probs[test].argmax(axis=1) == y[test]), abs=1e-15)
    # U(λ) = ε − ε_sel − λρ, the paper's utility, from the same counts
    assert row["utility"] == pytest.approx(
        outcome.base_error - outcome.selective_error - study.LAM * outcome.rejection_rate, abs=1e-15
    )
    assert math.isnan(measure_model(model, Z, y, train, test)["head_acc"])  # no head: NaN
    with pytest.raises(ValueError, match="probs must be"):
        measure_model(model, Z, y, train, test, probs[:10])


def test_head_at_is_chows_rule_on_the_heads_softmax():
    rng = np.random.default_rng(4)
    probs = rng.dirichlet(np.ones(4) * 0.5, size=200)
    y = rng.integers(0, 4, 200)
    res = head_at(probs, y, 200)
    wrong = probs.argmax(axis=1) != y
    accept = probs.max(axis=1) >= 1.0 - study.LAM
    assert res["sel_risk"] == pytest.approx(wrong.mean(), abs=1e-15)  # every row kept: the error
    assert res["coverage"] == pytest.approx(accept.mean(), abs=1e-15)
    rho, eps = 1.0 - accept.mean(), wrong.mean()
    assert res["u"] == pytest.approx(eps - wrong[accept].mean() - study.LAM * rho, abs=1e-14)
    assert math.isnan(head_at(probs, y, 0)["sel_risk"])
    with pytest.raises(ValueError, match="m must be"):
        head_at(probs, y, 201)
    with pytest.raises(ValueError, match="one row per label"):
        head_at(probs, y[:-1], 10)


def test_pca_sweep_rows_reuse_the_reduced_measurement_or_skip_it():
    Z, y, train, test, _ = _data(d=12)
    marker = {"sel_acc": -1.0}
    rows = pca_sweep_rows({"corpus": "c"}, Z, y, train, test, None, marker)
    assert [r["d"] for r in rows] == dims_for(12)
    assert [r for r in rows if r["d"] == REDUCED] == [{"corpus": "c", "d": REDUCED, "sel_acc": -1.0}]
    skipped = pca_sweep_rows({"corpus": "c"}, Z, y, train, test, None, None, skip_reduced=True)
    assert [r["d"] for r in skipped] == [k for k in dims_for(12) if k != REDUCED]
    assert skipped == [r for r in rows if r["d"] != REDUCED]  # the other rows: the same numbers


def test_operating_point_rows_add_the_heads_msp_along_lambda():
    Z, y, train, test, probs = _data()
    rows = operating_point_rows("c", "r", 0, 0, Z, y, train, test, probs)
    head = [r for r in rows if r["method"] == "head_msp"]
    assert [r["param"] for r in head] == list(MSP_LAMBDAS)
    rejection = [r["rejection"] for r in head]
    assert rejection == sorted(rejection, reverse=True) and rejection[-1] == 0.0
    assert [r["method"] for r in rows[:1]] == ["gcul"] and math.isnan(rows[0]["param"])
    assert not any(r["method"] == "head_msp" for r in operating_point_rows("c", "r", 0, 0, Z, y, train, test))


# ------------------------------------------------------------------------------------ tasks
def test_tasks_refuse_unknown_kinds_and_bad_splits():
    with pytest.raises(ValueError, match="a task must open with one of"):
        run_task(("standin_whatever", 1))
    with pytest.raises(ValueError, match="a task must open with one of"):
        task_name(())
    Z, y, *_ = _data()
    with pytest.raises(ValueError, match="i must be"):
        run_standin_split("c", "r", Z, y, 2, 2, False)
    with pytest.raises(ValueError, match="splits must be"):
        run_standin_split("c", "r", Z, y, 1, 0, False)
    assert task_name(("fixed_sweep", "carer", "finetuned_paper", 1)) == "carer/finetuned_paper seed 1 PCA sweep"


def _empty(**parts):
    return {"rows": [], "compare": [], "verdicts": {}, "points": [], "sweep": [], "cpu": {}} | parts


def test_collect_results_puts_the_reduced_row_in_its_place_and_sums_cpu():
    d = 12
    sweep = [{"corpus": "c", "representation": "finetuned_paper", "seed": 0, "split": 0, "d": k, "x": k}
             for k in dims_for(d) if k != REDUCED]  # fmt: skip
    tasks = [("fixed", "c", "finetuned_paper", 0), ("fixed_sweep", "c", "finetuned_paper", 0),
             ("standin_compare", "c", "oof_logistic")]  # fmt: skip
    results = [_empty(at_reduced={"x": "reduced"}, cpu={"a": 1.0}), _empty(sweep=sweep, n_features=d, cpu={"a": 2.0}),
               _empty(verdicts={"msp": "MSP better"}, cpu={"b": 4.0})]  # fmt: skip
    tables, cpu = collect_results(tasks, results)
    assert [r["d"] for r in tables["sweep"]] == dims_for(d)
    assert tables["sweep"][dims_for(d).index(REDUCED)]["x"] == "reduced"
    assert tables["verdicts"] == {("c", "oof_logistic"): {"msp": "MSP better"}}
    assert cpu == {"a": 3.0, "b": 4.0}
    with pytest.raises(ValueError, match="as many"):
        collect_results(tasks, results[:2])
    with pytest.raises(ValueError, match="no 'fixed' task"):
        collect_results(tasks[1:2], results[1:2])


# ----------------------------------------------------------------------------------- tables
def _rows(values, seeds):
    return [{"seed": s, "x": v, "n_test": 1, "n_train": 4} for v, s in zip(values, seeds, strict=True)]


def test_mean_se_one_seed_is_the_corrected_estimate_and_several_seeds_pool_it():
    one = _rows([0.1, 0.3, 0.2], [0, 0, 0])
    e = estimate([0.1, 0.3, 0.2], 0.25)
    mean, se, lo, hi = mean_se(one, "x", ratio_of(one))
    assert (mean, se) == (e.mean, e.se) and math.isnan(lo) and math.isnan(hi)  # one seed: no range
    many = _rows([0.1, 0.3, 0.5, 0.9, float("nan")], [0, 0, 1, 1, 1])
    mean, se, lo, hi = mean_se(many, "x", 0.25)
    a, b = estimate([0.1, 0.3], 0.25), estimate([0.5, 0.9], 0.25)  # NaN dropped
    assert mean == pytest.approx((a.mean + b.mean) / 2, abs=1e-15)
    assert se == pytest.approx(math.sqrt((a.se**2 + b.se**2) / 2), rel=1e-15)
    assert (lo, hi) == (a.mean, b.mean)
    assert all(math.isnan(v) for v in mean_se(_rows([float("nan")], [0]), "x", 0.25))
    with pytest.raises(ValueError, match="ratio must be positive"):
        mean_se(one, "x", 0.0)
    with pytest.raises(ValueError, match="at least one row"):
        ratio_of([])


def test_fmt_and_select():
    assert fmt(math.nan, 0.1) == "—"
    assert fmt(0.123, math.nan) == "12.30"
    assert fmt(0.5, 0.01, 0.4, 0.6) == "50.00 ± 1.00 [40.00, 60.00]"
    rows = [{"a": 1, "b": 2}, {"a": 1, "b": 3}, {"a": 2, "b": 2}]
    assert select(rows, a=1, b=2) == [rows[0]] and select(rows) == rows


def test_verdict_cells_refuse_no_rows_and_read_the_rows():
    with pytest.raises(ValueError, match="at least one row"):
        seed_verdicts([])
    with pytest.raises(ValueError, match="at least one row"):
        verdict_cell([])
    fixed = [{"seed": s, "split": 0, "label": "MSP", "difference": d} for s, d in ((0, -0.012), (1, 0.004))]
    assert verdict_cell(fixed) == "-1.2, +0.4 points (one split per seed, no test)"
    with pytest.raises(ValueError, match="method_name must be one of"):
        table_operating([], "carer", 0.25, "entropy")


# --------------------------------------------------------------------------------- CSV files
def _read_back(text: str, folder: Path) -> list[dict]:
    path = folder / "rows.csv"
    path.write_text(text, encoding="utf-8")
    return read_csv(path)


def test_csv_round_trip_is_exact(tmp_path):
    rows = [{"corpus": "carer", "split": 3, "x": 0.1 + 0.2, "y": float("nan"), "z": 1e-300, "w": -2.5e17}]
    back = _read_back(to_csv(rows), tmp_path)
    assert back[0]["corpus"] == "carer" and back[0]["split"] == 3
    assert back[0]["x"] == 0.1 + 0.2 and math.isnan(back[0]["y"]) and back[0]["z"] == 1e-300
    assert back[0]["w"] == -2.5e17
    with pytest.raises(ValueError, match="at least one row"):
        to_csv([])


def test_verdict_rows_read_back_as_the_verdicts_of_the_stand_ins(tmp_path):
    verdicts = {("carer", "oof_logistic"): {"msp": "MSP better"}, ("carer", "finetuned_heldout", 2): {"msp": "tie"}}
    rows = verdict_csv_rows(verdicts, study.SEED)
    assert [r["seed"] for r in rows] == [study.SEED, 2]
    expected = {"corpus": "carer", "representation": "oof_logistic", "seed": study.SEED, "rejector": "msp",
                "verdict": "MSP better"}  # fmt: skip
    assert _read_back(to_csv(rows), tmp_path)[0] == expected


# --------------------------------------------------------- the committed report and figures
@pytest.fixture(scope="module")
def committed():
    return tables_from_csv(COMMITTED)


#: The clause of the report's first line naming the environment that renders it: the committed
#: report names the machine that made it (Python 3.11.7, NumPy 2.4.6), CI's oldest stack its own.
_ENVIRONMENT = re.compile(r"Python [^,]+, NumPy [^,]+, [^,]+, BLAS on one thread")


def test_the_committed_report_is_a_function_of_the_committed_rows(committed):
    # byte for byte but for the environment clause: the report render() writes from the CSV
    # files and run.json, and the one committed (what --redraw checks end to end in the slow tier).
    # Exact on any machine, since it only re-reads committed files (CONTRIBUTING.md, "What
    # identical means")
    run = json.loads((COMMITTED / "run.json").read_text(encoding="utf-8"))
    text = render(run["notes"], committed, run["cpu"], run["wall"], run["splits"], run["command"], run.get("load"))
    want = (COMMITTED / "text_emotion.md").read_text(encoding="utf-8")
    assert len(_ENVIRONMENT.findall(text)) == len(_ENVIRONMENT.findall(want)) == 1
    assert _ENVIRONMENT.sub("ENV", text) == _ENVIRONMENT.sub("ENV", want)


def test_the_papers_numbers_are_those_the_report_and_readme_quote(committed):
    text = " ".join((COMMITTED / "text_emotion.md").read_text(encoding="utf-8").split())
    for name, (acc, f1, rejected) in PAPER_KAGGLE.items():
        assert f"{acc:.2f}% / {f1:.4f}" in text, name
        if rejected is not None:
            assert f"rejecting {rejected:.2f}%" in text, name
    for corpus in study.CORPORA:
        assert sorted(PAPER_GCUL[corpus]) == list(PAPER_GCUL[corpus]) and REDUCED in PAPER_GCUL[corpus]
        assert {len(v) for v in PAPER_OPERATING[corpus].values()} == {10}
    table = readme_findings(committed)
    base, sel, rejected, pre, emp = PAPER_GCUL["carer"][REDUCED]
    assert f"the paper (LR on DistilBERT) | {base} → {sel}, {rejected} | {pre:.2f} → {emp:.2f} |" in table


def test_seed_means_are_per_seed(committed):
    part = select(committed["rows"], corpus="carer", representation="finetuned_valtest", variant="gcul")
    means = seed_means(part, "sel_acc")
    assert len(means) == len({r["seed"] for r in part}) > 1
    assert means[0] == np.mean([r["sel_acc"] for r in part if r["seed"] == min(r["seed"] for r in part)])


def test_figures_are_drawn_without_pyplot_and_check_their_arguments(committed):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    points = select(committed["points"], corpus="carer", representation="finetuned_valtest")
    fig = plot_operating(points, ["carer"])
    assert isinstance(fig.canvas, FigureCanvasAgg) and fig.canvas.manager is None  # no pyplot figure
    assert len(fig.axes) == 2  # the representation and the paper
    with pytest.raises(ValueError, match="corpora must be"):
        plot_sweep(committed["sweep"], [])
    with pytest.raises(ValueError, match="corpora must be"):
        plot_operating(points, ["kaggle"])
    with pytest.raises(ValueError, match="pad_px"):
        thin_tick_labels(fig, -1.0)
    assert set(VARIANTS) == {"gcul", "gcul_pca", "gcul_lda", "gcul_oof_pool"}
