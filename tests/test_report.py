"""Tests of simulations.report: violation counts, the per-seed table and the writers."""

from __future__ import annotations

import csv
import dataclasses
import math
import re

import numpy as np
import pytest
from _registry_twin import add_boole_twin
from _tolerances import gamma

import gcul_theory
from simulations import report
from simulations.report import (
    format_seed_table_csv,
    format_seed_table_latex,
    format_seed_table_markdown,
    format_violations_latex,
    format_violations_markdown,
    format_violations_text,
    seed_table,
    violation_masks,
    violation_table,
    write_seed_table,
    write_violations,
)

PAPER = ("gaussian", "union", "chernoff")
METHODS = report.predictor_names()  # every registry predictor, then "certified"
N_BLOCKS = len(METHODS)
SIGMAS = [0.4 * i for i in range(41)]


def make_rows(seeds=range(10, 20), n_levels=41, rng_seed=0):
    """Fabricated sweep rows that look like the paper's: decreasing logistic λ* curves in σ."""
    rng = np.random.default_rng(rng_seed)
    rows = []
    for seed in seeds:
        shift = rng.normal(0, 0.35)
        for level in range(n_levels):
            sigma = 0.4 * level
            logistic = 1 / (1 + np.exp((sigma - 4.3 - shift) / 1.5))
            pre = {
                m: max(0.0, k * (logistic - 0.05) + rng.normal(0, 0.01))
                for m, k in (("gaussian", 1.2), ("union", 1.05), ("chernoff", 0.6))
            }
            for entry in gcul_theory.PREDICTORS:  # the other predictors: a lower curve
                pre.setdefault(entry.name, max(0.0, 0.8 * (logistic - 0.05)))
            emp = 0.8 / (1 + np.exp((sigma - 5.4 - shift) / 1.0)) + rng.normal(0, 0.03)
            base = 0.865 - 0.025 * sigma
            rejection = 0.165
            rows.append(
                {
                    "seed": seed,
                    "noise": sigma,
                    "level": level,
                    "flip_prob": 0.025 * sigma,
                    "base_acc": base,
                    "selective_acc": min(1.0, base + 0.1 * emp),
                    "rejection_rate": rejection,
                    "lambda_emp": emp,
                    **{f"lambda_pre_{m}": value for m, value in pre.items()},
                    "lambda_cert": max(0.0, 0.9 * (logistic - 0.1)),
                    "lambda_emp_cert": emp + rng.normal(0, 0.02),
                }
            )
    return rows


# Hand-built cells at λ = 0.15: (λ*_PRE gaussian, union, chernoff, λ*_EMP).  Expected kinds:
#   a: g none (0.15 ≥ λ, 0.15 ≥ λ), u I, c I
#   b: g II (0.15 ≥ λ > 0.10), u II, c none (0.14 < λ, 0.10 < λ)
#   c: g none, u none, c I
#   d: none (both below λ; λ*_EMP slightly negative)
#   e: II for all three (λ*_EMP = 0.1499 < λ)
#   f: I for all three
HAND = [
    (0.15, 0.10, 0.00, 0.15),
    (0.15, 0.15, 0.14, 0.10),
    (0.30, 0.20, 0.05, 0.40),
    (0.00, 0.00, 0.00, -0.02),
    (0.90, 0.80, 0.60, 0.1499),
    (0.10, 0.10, 0.10, 0.90),
]
HAND_COUNTS = {
    "gaussian": {"type_i": 1, "type_ii": 2, "overall": 3},
    "union": {"type_i": 2, "type_ii": 2, "overall": 4},
    "chernoff": {"type_i": 3, "type_ii": 1, "overall": 4},
}
# The certified predictor of the same six cells, (λ*_CERT, λ*_EMP of the certified model):
#   a: I (0.10 < λ ≤ 0.20); b: II (0.20 ≥ λ > 0.10); c, d, e, f: agreement.
# Judged against lambda_emp instead, e would be Type-II (0.50 ≥ λ > 0.1499) and f Type-I
# (0.10 < λ ≤ 0.90): 2 and 2, not 1 and 1.
HAND_CERT = [(0.10, 0.20), (0.20, 0.10), (0.20, 0.30), (0.00, 0.00), (0.50, 0.60), (0.10, 0.05)]
HAND_COUNTS["certified"] = {"type_i": 1, "type_ii": 1, "overall": 2}


def hand_rows():
    cells = [(seed, noise) for seed in (1, 2) for noise in (0.0, 0.4, 0.8)]
    rows = []
    for (seed, noise), (g, u, c, e), (cert, emp_cert) in zip(cells, HAND, HAND_CERT, strict=True):
        row = {"seed": seed, "noise": noise, "lambda_emp": e}
        for entry in gcul_theory.PREDICTORS:  # the other predictors as union
            row[f"lambda_pre_{entry.name}"] = {"gaussian": g, "chernoff": c}.get(entry.name, u)
        rows.append(row | {"lambda_cert": cert, "lambda_emp_cert": emp_cert})
    return rows


def as_columns(rows):
    return {key: np.array([row[key] for row in rows]) for key in rows[0]}


# --------------------------------------------------------------------------------------------
# Violation counts
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", [*PAPER, "certified"])
def test_hand_built_counts_per_method(method):
    table = violation_table(hand_rows(), lam=0.15)
    for kind, count in HAND_COUNTS[method].items():
        entry = table[method, kind]
        assert entry.count == count
        assert entry.total == 6
        assert entry.rate == pytest.approx(count / 6, rel=gamma(1), abs=0)  # one division
    assert table.total == 6 and table.n_seeds == 2 and table.n_levels == 3


def test_boundaries_pre_equal_lambda_is_feasible_emp_equal_lambda_is_effective():
    type_i, type_ii = violation_masks(hand_rows(), lam=0.15, method="union")
    # a: λ*_PRE < λ = λ*_EMP -> Type-I; b: λ*_PRE = λ > λ*_EMP -> Type-II.
    assert type_i.tolist() == [True, False, False, False, False, True]
    assert type_ii.tolist() == [False, True, False, False, True, False]
    type_i, type_ii = violation_masks(hand_rows(), lam=0.15, method="gaussian")
    assert not type_i[0] and not type_ii[0]  # λ*_PRE = λ*_EMP = λ: agreement


def test_certified_block_is_judged_against_lambda_emp_cert():
    rows = hand_rows()
    type_i, type_ii = violation_masks(rows, lam=0.15, method="certified")
    assert type_i.tolist() == [True, False, False, False, False, False]
    assert type_ii.tolist() == [False, True, False, False, False, False]
    table = violation_table(rows)
    assert (table["certified", "type_i"].count, table["certified", "type_ii"].count) == (1, 1)
    entry = table["certified", "overall"]
    assert (entry.predicted, entry.empirical, entry.valid) == (
        "lambda_cert",
        "lambda_emp_cert",
        True,
    )
    # Without the certified model's λ*_EMP there is no certified block: lambda_emp won't do.
    for row in rows:
        del row["lambda_emp_cert"]
    with pytest.raises(ValueError, match="'lambda_emp_cert'"):
        violation_table(rows)
    with pytest.raises(ValueError, match="'lambda_emp_cert'"):
        violation_table(rows, methods=("certified",))


def test_one_block_per_registry_predictor_and_certified():
    table = violation_table(make_rows())
    names = [entry.name for entry in gcul_theory.PREDICTORS]
    assert table.methods == (*names, "certified")
    assert {"gaussian", "union", "chernoff", "boole", "hunter_worsley", "gaussian_exact"} <= set(
        names
    )
    for entry in gcul_theory.PREDICTORS:
        assert table[entry.name, "type_i"].valid is entry.valid
        assert table[entry.name, "type_i"].predicted == f"lambda_pre_{entry.name}"
        assert table[entry.name, "type_i"].empirical == "lambda_emp"


def test_adding_a_registry_entry_adds_a_block(monkeypatch, tmp_path):
    add_boole_twin(monkeypatch)
    rows = [row | {"lambda_pre_boole_twin": row["lambda_pre_boole"]} for row in make_rows()]
    table = violation_table(rows)
    assert table.methods[-2:] == ("boole_twin", "certified")
    assert table["boole_twin", "type_i"] == dataclasses.replace(
        table["boole", "type_i"], method="boole_twin", predicted="lambda_pre_boole_twin"
    )
    text = format_violations_text(table)
    assert ", boole_twin (in expectation, under the paper's Gaussian model)" in text
    assert "| boole twin | yes | Type-I |" in format_violations_markdown(table)
    paths = write_violations(rows, tmp_path)
    assert sum(line.startswith("boole_twin,") for line in paths[0].read_text().splitlines()) == 3
    without = [{k: v for k, v in row.items() if k != "lambda_pre_boole_twin"} for row in rows]
    with pytest.raises(ValueError, match="lambda_pre_boole_twin"):
        violation_table(without)  # the new block needs its column


def test_validity_line_follows_the_registry():
    line = report.validity_line()
    valid, _, invalid = line.partition("Not valid:")
    for entry in gcul_theory.PREDICTORS:
        assert entry.name in (valid if entry.valid else invalid), entry.name
    assert "certified (finite-sample valid for the model it certifies)" in valid
    assert "gaussian_exact (model value, not a bound)" in invalid
    assert report.validity_line(("union",)) == "Not valid: union (as printed in the paper)."


def test_overall_is_sum_and_order_of_entries():
    table = violation_table(make_rows(), lam=0.15)
    assert [(e.method, e.kind) for e in table] == [(m, k) for m in METHODS for k in report.KINDS]
    for method in METHODS:
        assert (
            table[method, "overall"].count
            == table[method, "type_i"].count + table[method, "type_ii"].count
        )
        assert table[method, "overall"].total == 410
    assert table.describe_runs == "410 runs (41 noise levels × 10 seeds)"


def test_counts_match_a_direct_count():
    rows = make_rows(rng_seed=3)
    table = violation_table(rows, lam=0.3, methods=("chernoff", "union"))
    assert table.methods == ("chernoff", "union")
    for method in ("chernoff", "union"):
        pre = np.array([r[f"lambda_pre_{method}"] for r in rows])
        emp = np.array([r["lambda_emp"] for r in rows])
        assert table[method, "type_i"].count == np.sum((pre < 0.3) & (emp >= 0.3))
        assert table[method, "type_ii"].count == np.sum((pre >= 0.3) & (emp < 0.3))


def test_paper_reference_only_beside_union_at_015():
    table = violation_table(hand_rows())
    assert table["union", "type_i"].paper_count == 25
    assert table["union", "type_ii"].paper_count == 0
    assert table["union", "overall"].paper_total == 410
    assert table["union", "overall"].paper_rate == pytest.approx(25 / 410, rel=gamma(1), abs=0)
    assert table["gaussian", "type_i"].paper_count is None
    assert table["chernoff", "overall"].paper_rate is None
    other = violation_table(hand_rows(), lam=0.2)
    assert not other.has_paper_reference
    assert "Paper" not in format_violations_markdown(other)


def test_dict_of_columns_and_strings_give_the_same_table():
    rows = make_rows(seeds=(10, 11), rng_seed=5)
    expected = violation_table(rows)
    assert violation_table(as_columns(rows)) == expected
    as_text = [{k: str(v) for k, v in row.items()} for row in rows]  # as csv.DictReader gives
    assert violation_table(as_text) == expected


# --------------------------------------------------------------------------------------------
# Per-seed table
# --------------------------------------------------------------------------------------------


def test_seed_table_has_one_sorted_row_per_level():
    rows = make_rows()
    rng = np.random.default_rng(1)
    shuffled = [rows[i] for i in rng.permutation(len(rows))]
    table = seed_table(shuffled, seed=16)
    assert table.seed == 16 and len(table) == 41
    assert [r.noise for r in table] == sorted(r.noise for r in table)
    assert [r.level for r in table] == list(range(41))
    original = {r["level"]: r for r in rows if r["seed"] == 16}
    for row in table:
        assert row.lambda_emp == original[row.level]["lambda_emp"]
        assert row.lambda_pre_chernoff == original[row.level]["lambda_pre_chernoff"]


def test_seed_table_without_level_column():
    rows = [{k: v for k, v in r.items() if k != "level"} for r in make_rows(seeds=(16,))]
    table = seed_table(rows)
    assert all(r.level is None for r in table)
    assert len(table_lines(format_seed_table_markdown(table))) == 2 + 41


def test_negative_zero_is_not_printed():
    rows = make_rows(seeds=(16,), n_levels=2)
    rows[0]["lambda_emp"] = -0.001
    rows[1]["lambda_emp"] = -0.012
    table = seed_table(rows)
    markdown = format_seed_table_markdown(table)
    assert "-0.00" not in markdown and "| -0.01 |" in markdown
    assert "$-$0.01" in format_seed_table_latex(table)


# --------------------------------------------------------------------------------------------
# Writers and formats
# --------------------------------------------------------------------------------------------


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def table_lines(markdown):
    return [line for line in markdown.splitlines() if line.startswith("|")]


def strip_math(latex):
    return re.sub(r"\$[^$]*\$", "", latex)


def assert_latex_escaped(latex):
    body = "\n".join(line for line in latex.splitlines() if not line.startswith("% requires"))
    text = re.sub(r"\\label\{[^}]*\}", "", strip_math(body))
    assert not re.search(r"(?<!\\)%", text), "unescaped % outside math"
    assert not re.search(r"(?<!\\)_", text), "unescaped _ outside math"
    assert body.count("{") == body.count("}")


def test_write_violations(tmp_path):
    rows = make_rows()
    paths = write_violations(rows, tmp_path / "new" / "dir")
    assert [p.name for p in paths] == ["violations.csv", "violations.md", "violations.tex"]
    assert all(p.stat().st_size > 0 for p in paths)
    table = violation_table(rows)

    parsed = read_csv(paths[0])
    assert list(parsed[0]) == list(report.VIOLATIONS_CSV_COLUMNS)
    assert len(parsed) == 3 * N_BLOCKS
    for line, entry in zip(parsed, table, strict=True):
        assert (line["method"], line["violation_type"]) == (entry.method, entry.kind)
        assert int(line["count"]) == entry.count and int(line["total"]) == entry.total
        assert float(line["rate"]) == entry.rate  # full precision round trip
        assert float(line["lam"]) == 0.15
        if entry.paper_count is None:
            assert line["paper_count"] == line["paper_rate"] == ""
        else:
            assert int(line["paper_count"]) == entry.paper_count

    markdown = paths[1].read_text(encoding="utf-8")
    assert len(table_lines(markdown)) == 2 + 3 * N_BLOCKS
    assert "| Union | no | Type-I |" in markdown and "25 / 410" in markdown
    assert "| Certified | yes | Type-I |" in markdown and "lambda_emp_cert" in markdown
    assert "Valid: boole, hunter_worsley" in markdown

    latex = paths[2].read_text(encoding="utf-8")
    for token in (r"\toprule", r"\midrule", r"\bottomrule", r"\label{tab:violation_analysis}"):
        assert token in latex
    assert r"\begin{table}" in latex and r"\caption{" in latex
    assert r"Rate (\%)" in latex and r"\lambda^*_{\mathrm{PRE}}" in latex
    assert r"\lambda^*_{\mathrm{CERT}}" in latex and r"hunter\_worsley" in latex
    assert latex.count(r"\midrule") == N_BLOCKS
    assert_latex_escaped(latex)
    rows_tex = [line for line in latex.splitlines() if line.endswith(r"\\")]
    assert len(rows_tex) == 1 + 3 * N_BLOCKS and all(line.count("&") == 6 for line in rows_tex)


def test_write_seed_table(tmp_path):
    rows = make_rows()
    paths = write_seed_table(rows, tmp_path, seed=13)
    assert [p.name for p in paths] == ["seed13.csv", "seed13.md", "seed13.tex"]

    parsed = read_csv(paths[0])
    assert len(parsed) == 41
    assert list(parsed[0])[:3] == ["seed", "level", "noise"]
    noise = [float(line["noise"]) for line in parsed]
    assert noise == sorted(noise) and noise == SIGMAS
    original = {r["level"]: r for r in rows if r["seed"] == 13}
    for line in parsed:
        source = original[int(line["level"])]
        for key in ("base_acc", "selective_acc", "rejection_rate", "lambda_emp"):
            assert float(line[key]) == source[key]  # fractions, full precision
        assert all(float(line[f"lambda_pre_{m}"]) == source[f"lambda_pre_{m}"] for m in PAPER)

    markdown = paths[1].read_text(encoding="utf-8")
    lines = table_lines(markdown)
    assert len(lines) == 2 + 41
    first = [cell.strip() for cell in lines[2].strip("|").split("|")]
    source = original[0]
    assert first[0] == "0.0"
    assert first[1] == f"{100 * source['base_acc']:.2f}"
    assert first[4] == f"{source['lambda_pre_union']:.2f}"
    assert first[5] == f"{source['lambda_emp']:.2f}"
    assert [cell.strip() for cell in lines[-1].strip("|").split("|")][0] == "16.0"

    latex = paths[2].read_text(encoding="utf-8")
    assert r"\toprule" in latex and r"\bottomrule" in latex
    assert r"\label{tab:synthetic_gcul_seed13}" in latex
    assert_latex_escaped(latex)
    rows_tex = [line for line in latex.splitlines() if line.endswith(r"\\")]
    assert len(rows_tex) == 2 + 41 and all(line.count("&") == 7 for line in rows_tex)


def test_seed16_label_matches_paper():
    latex = format_seed_table_latex(seed_table(make_rows(seeds=(16,))))
    assert r"\label{tab:synthetic_gcul}" in latex


# --- the paper's values beside ours (issue 14, section 4) ---------------------------------------


def test_paper_seed16_table_is_transcribed_whole():
    from fractions import Fraction

    from proofs import _conservative

    table = report.PAPER_SEED16_TABLE
    # the table's decimal literals (u relative) against 0.4 * i (0.4's rounding and the
    # product's): within gamma(3) relative, exactly 0 at i = 0
    assert [row[0] for row in table] == pytest.approx(SIGMAS, rel=gamma(3), abs=0)
    # the lambda columns against the independent transcription of the proofs package
    theirs = _conservative.PAPER_TABLES["tab:synthetic_gcul"]
    assert [(Fraction(str(pre)), Fraction(str(emp))) for *_, pre, emp in table] == [
        (pre, emp) for _, pre, emp in theirs
    ]
    # rows of the paper's table, as printed (sigma, base, selective, rejection, pre, emp)
    assert table[0] == (0.0, 86.50, 100.0, 16.54, 0.96, 0.82)
    assert table[15] == (6.0, 80.08, 83.73, 13.21, 0.27, 0.28)
    assert table[25] == (10.0, 62.38, 64.46, 13.96, 0.00, 0.15)
    assert table[40] == (16.0, 45.71, 45.61, 16.96, 0.00, -0.01)
    assert all(
        0 < base <= 100 and 0 < sel <= 100 and 0 < rej < 100 for _, base, sel, rej, *_ in table
    )


def test_seed16_table_sets_the_papers_values_beside_ours(tmp_path):
    # the old seed16.{md,tex,csv} had no paper column: a reader saw λ*_PRE 0.06 against the
    # paper's 0.27 at σ = 6 with no explanation
    rows = make_rows(seeds=(16, 17))
    table = seed_table(rows, seed=16)
    assert table.has_paper_reference and all(row.paper is not None for row in table)
    six = table.rows[15]
    assert six.noise == pytest.approx(6.0, rel=gamma(2), abs=0)  # 0.4 * 15: two roundings
    assert (six.paper.base_acc, six.paper.lambda_pre, six.paper.lambda_emp) == (0.8008, 0.27, 0.28)

    markdown = format_seed_table_markdown(table)
    lines = table_lines(markdown)
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    assert header == [
        "Noise σ", "Base Acc (%)", "paper", "Sel Acc (%)", "paper", "Rej Rate (%)", "paper",
        "λ*_PRE (union)", "paper", "λ*_EMP", "paper", "λ*_PRE (Gaussian)", "λ*_PRE (Chernoff)",
    ]  # fmt: skip
    cells = [cell.strip() for cell in lines[2 + 15].strip("|").split("|")]
    assert cells[0] == "6.0" and cells[1] == f"{100 * six.base_acc:.2f}"
    assert cells[2:3] + cells[4:5] + cells[6:7] + cells[8:9] + cells[10:11] == [
        "80.08", "83.73", "13.21", "0.27", "0.28",
    ]  # fmt: skip
    assert markdown.startswith("# GCUL under varying noise levels on synthetic data (seed 16)\n")
    prose = "\n".join(line for line in markdown.splitlines() if not line.startswith("|"))
    for words in (
        "“GCUL performance under varying noise levels on synthetic data (seed 16)”",
        "“Synthetic phase-transition verification”",
        "clean labels",
        "“Mathematical framework and foundational assumptions”",
        "no deployment",
    ):
        assert words in prose
    assert "tab:" not in prose and "subsec:" not in prose and "README" not in prose
    assert "not computed here" not in markdown

    latex = format_seed_table_latex(table)
    assert_latex_escaped(latex)
    assert r"\begin{tabular}{ccccccccccccc}" in latex and "ours & paper" in latex
    body = [line for line in latex.splitlines() if line.endswith(r"\\") and line[0].isdigit()]
    assert len(body) == 41 and all(line.count("&") == 12 for line in body)
    assert body[15].startswith("6.0 & ") and " & 0.27 & " in body[15]
    assert "clean labels" in latex and "Mathematical framework and foundational" in latex
    caption = latex[latex.index(r"\caption{") : latex.index(r"\label{")]
    assert "tab:" not in caption and "subsec:" not in caption and "README" not in caption

    paths = write_seed_table(rows, tmp_path, seed=16)
    parsed = read_csv(paths[0])
    assert list(parsed[0])[-5:] == list(report.PAPER_SEED_CSV_COLUMNS)
    assert float(parsed[15]["paper_lambda_pre_union"]) == 0.27
    assert float(parsed[15]["paper_base_acc"]) == 0.8008  # fractions, as ours
    # another seed has no paper column: the paper tabulates seed 16 only
    other = seed_table(rows, seed=17)
    assert not other.has_paper_reference
    assert "| paper |" not in format_seed_table_markdown(other)
    assert "paper_" not in format_seed_table_csv(other)


def test_seed16_table_at_levels_the_paper_lacks_leaves_the_paper_cells_empty():
    rows = make_rows(seeds=(16,), n_levels=2)
    rows[1]["noise"] = 0.25  # not a level of the paper's table
    table = seed_table(rows)
    assert table.rows[0].paper is not None and table.rows[1].paper is None
    last = table_lines(format_seed_table_markdown(table))[-1]
    assert last.startswith("| 0.25 |") and last.count("| — |") == 5
    assert format_seed_table_csv(table).splitlines()[-1].endswith(",,,,,")


def test_violation_tables_explain_the_papers_counts():
    # the old text said "not computed here" beside the paper's 25 against our 62
    table = violation_table(make_rows())
    for text in (
        format_violations_markdown(table),
        format_violations_latex(table),
        format_violations_text(table),
    ):
        assert "not computed here" not in text
        assert "clean labels" in text and "no deployment has" in text
        assert "Mathematical framework and foundational assumptions" in text
        assert "Quantitative reliability analysis of theoretical feasibility" in text
        assert "--geometry-labels clean" in text or "-{}-geometry-labels clean" in text
        prose = text.split(r"\label{")[0]  # a LaTeX label belongs in \label only
        assert "tab:" not in prose and "subsec:" not in prose and "README" not in prose
    assert_latex_escaped(format_violations_latex(table))
    # away from the paper's λ there is no paper column and no explanation
    other = violation_table(make_rows(), lam=0.3)
    assert "clean labels" not in format_violations_markdown(other)


def test_latex_escape():
    assert report.formats.latex_escape("a_b%c&d") == r"a\_b\%c\&d"


def test_text_format_lists_every_method_and_the_paper():
    text = format_violations_text(violation_table(make_rows()))
    for word in (*METHODS, "Type-I", "Type-II", "Overall", "25 / 410", "lambda_emp_cert"):
        assert word in text
    assert "Paper columns: the counts printed" in text and report.validity_line() in text
    rows = [line for line in text.splitlines() if "/ 410" in line]
    assert len(rows) == 3 * N_BLOCKS
    assert len({len(line) for line in rows if line.count("/") == 2}) == 1  # union, with paper
    assert len({len(line) for line in rows if line.count("/") == 1}) == 1  # aligned columns


def test_latex_without_paper_has_four_columns():
    latex = format_violations_latex(violation_table(hand_rows(), lam=0.5))
    assert r"\begin{tabular}{lllrr}" in latex and "Paper" not in latex


# --------------------------------------------------------------------------------------------
# Bad inputs
# --------------------------------------------------------------------------------------------


def test_missing_column_is_named():
    rows = hand_rows()
    del rows[3]["lambda_pre_union"]
    with pytest.raises(ValueError, match=r"row 3 is missing column\(s\) 'lambda_pre_union'"):
        violation_table(rows)
    columns = as_columns(hand_rows())
    del columns["lambda_emp"]
    with pytest.raises(ValueError, match="missing column.*'lambda_emp'"):
        violation_table(columns)
    with pytest.raises(ValueError, match="'base_acc'"):
        seed_table(hand_rows(), seed=1)


def test_only_needed_columns_are_required():
    rows = [{k: v for k, v in r.items() if k != "lambda_pre_chernoff"} for r in hand_rows()]
    table = violation_table(rows, methods=("union",))
    assert table["union", "overall"].count == 4
    with pytest.raises(ValueError, match="lambda_pre_chernoff"):
        violation_table(rows)


@pytest.mark.parametrize("empty", [[], {"seed": [], "noise": [], "lambda_emp": []}])
def test_empty_results(empty):
    if isinstance(empty, dict):
        empty = {**empty, **{column: [] for m in METHODS for column in report.judged_columns(m)}}
    with pytest.raises(ValueError, match="empty"):
        violation_table(empty)


def test_seed_absent_is_named():
    with pytest.raises(ValueError, match=r"seed 99 is absent.*10, 11"):
        seed_table(make_rows(seeds=(10, 11)), seed=99)
    with pytest.raises(ValueError, match="seed 99 is absent"):
        write_seed_table(make_rows(seeds=(10,)), "unused", seed=99)


def test_bad_method_and_lambda():
    with pytest.raises(ValueError, match="unknown method 'hoeffding'"):
        violation_table(hand_rows(), methods=("union", "hoeffding"))
    with pytest.raises(ValueError, match="at least one"):
        violation_table(hand_rows(), methods=())
    with pytest.raises(ValueError, match="duplicates"):
        violation_table(hand_rows(), methods=("union", "union"))
    for lam in (-0.1, math.nan, math.inf):
        with pytest.raises(ValueError, match="lam"):
            violation_table(hand_rows(), lam=lam)
    with pytest.raises(TypeError, match="lam"):
        violation_table(hand_rows(), lam="0.15")


def test_non_finite_values_and_mismatched_lengths():
    rows = hand_rows()
    rows[2]["lambda_emp"] = float("nan")
    with pytest.raises(ValueError, match=r"'lambda_emp' has a non-finite value nan \(row 2\)"):
        violation_table(rows)
    columns = as_columns(hand_rows())
    columns["noise"] = columns["noise"][:-1]
    with pytest.raises(ValueError, match="different lengths"):
        violation_table(columns)
    rows = hand_rows()
    rows[0]["lambda_emp"] = "high"
    with pytest.raises(ValueError, match="'lambda_emp' is not numeric"):
        violation_table(rows)


def test_percent_instead_of_fraction_and_duplicate_levels():
    rows = make_rows(seeds=(16,), n_levels=3)
    rows[1]["base_acc"] = 86.5
    with pytest.raises(ValueError, match=r"'base_acc' must be a fraction in \[0, 1\]; got 86.5"):
        seed_table(rows)
    rows = make_rows(seeds=(16,), n_levels=3)
    rows.append(dict(rows[1]))
    with pytest.raises(ValueError, match="more than one row at noise 0.4"):
        seed_table(rows)


def test_bad_container_types():
    with pytest.raises(TypeError, match="row 1 must be a mapping"):
        violation_table([hand_rows()[0], 3])
    with pytest.raises(TypeError, match="list of row dicts"):
        violation_table(42)
    with pytest.raises(TypeError, match="seed must be an integer"):
        seed_table(make_rows(seeds=(16,)), seed=16.0)


def test_a_generator_of_rows_is_read_once():
    rows = make_rows(seeds=(16,))
    assert len(seed_table(row for row in rows)) == 41
    assert violation_table(iter(rows)).total == 41


def test_non_integer_seed():
    rows = hand_rows()
    rows[1]["seed"] = 1.5
    with pytest.raises(ValueError, match=r"'seed' must hold integers; got 1.5 \(row 1\)"):
        violation_table(rows)
