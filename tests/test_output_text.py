"""Every output a user reads alone explains itself, and cites the paper by the titles a reader
finds in it, never by a LaTeX label (``tab:violation_analysis``, ``subsec:assumptions1``) or a
file the user may not have ("see the README") (issue 23, item 4).

Scanned: the tables ``gcul reproduce`` writes (Markdown, LaTeX captions, CSV, the manifest) and
prints, the help of every command, ``gcul demo --list``, what ``gcul compare`` and ``gcul
feasibility`` print, the report of ``gcul prove`` and every claim's derivation in each of its
formats (text, Markdown, JSON, LaTeX; JSON keeps the label in ``reference_label``, a field for
programs); the documentation's sources (``docs/``: .md, .rst), ``CONTRIBUTING.md`` and the
README, where a label may stand in parentheses after the title it names; and, from the source,
every string literal of ``simulations`` and ``gcul_theory`` that is not a docstring (a docstring
may name a label beside a title, for the developer holding the paper's source).
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import numpy as np
import pytest
from _figure_data import baseline_rows, make_rows

from simulations import baselines, report
from simulations.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]

#: A LaTeX cross-reference label of the paper: tab:…, subsec:…, eq:…, thm:…, ... (digits too:
#: thm:r1_rigorous), or an equation named by its label without the prefix, as the claims once
#: printed "Eq. (selectivity_score)" and "Eqs. (r1_hat), (r2_hat)".
LATEX_LABEL = r"\b(?:tab|sec|subsec|fig|eq|thm|app|alg|lem|cor|ass):[A-Za-z0-9_\\]+"
LABEL = re.compile(LATEX_LABEL + r"|\bEqs?\.\s*\((?:eq:)?[a-z][a-z0-9]*_[a-z0-9_]*\)")
#: A reference to a document the reader of an output may not have.
ELSEWHERE = re.compile(r"README|see the docs")


def _prose(text: str) -> str:
    r"""``text`` without its ``\label{…}`` commands: a LaTeX table carries its label there, for
    the document that includes it; only the words a reader reads are checked."""
    return re.sub(r"\\label\{[^}]*\}", "", text)


def assert_cites_no_label(text: str, where: str) -> None:
    found = LABEL.findall(_prose(text)) + ELSEWHERE.findall(text)
    assert not found, f"{where}: {found}"


def test_the_pattern_finds_what_the_old_outputs_said():
    # the old violations.md and seed16.md (71c4f8c) said these; the titles that replace them pass
    assert LABEL.search("the counts printed in the paper's tab:violation_analysis (union)")
    assert LABEL.search("as the paper's Sec. subsec:assumptions1 defines it")
    assert LABEL.search(r"the paper's tab:violation\_analysis")
    assert LABEL.search("union bound of thm:r1_rigorous").group() == "thm:r1_rigorous"
    assert LABEL.search("gives Eq. (selectivity_score) = ...")  # the old gcul prove
    assert LABEL.search("are Eqs. (r1_hat), (r2_hat) and")
    assert not LABEL.search("Eq. (4) in section 3.2 “Selectivity score and monotonicity”")
    assert ELSEWHERE.search("(README: “Where the paper is wrong as written”)")
    assert_cites_no_label(r"\caption{A.}" "\n" r"\label{tab:violation_analysis}", "a label")
    assert_cites_no_label("table “GCUL performance under varying noise levels”", "a title")


def _string_literals(path: Path):
    """The string constants of a module that are not docstrings (module, class, function, and
    the bare string statements that document an attribute)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    documenting = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in documenting:
                yield node.lineno, node.value


def test_no_string_the_package_shows_names_a_latex_label():
    found = []
    for package in ("simulations", "gcul_theory"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for line, text in _string_literals(path):
                if LABEL.fullmatch(text):  # a \label{} argument of a LaTeX table (its default)
                    continue
                found += [f"{path.relative_to(ROOT)}:{line}: {m}" for m in LABEL.findall(text)]
    assert not found, found


@pytest.fixture(scope="module")
def reproduced(tmp_path_factory):
    """``gcul reproduce`` on seed 16 (the paper's seed: its columns are printed) at two noise
    levels (σ = 0, 0.4: two σ bands of the baselines table stay empty), and what it printed."""
    import contextlib
    import io

    out = tmp_path_factory.mktemp("reproduce") / "out"
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(["reproduce", "--out", str(out), "--seeds", "16", "--levels", "2", "--jobs", "1"])
    assert code == 0, stderr.getvalue()
    return out, stdout.getvalue() + stderr.getvalue()


@pytest.mark.slow  # 6 s with the module's `reproduced` fixture: a whole `gcul reproduce` run
def test_every_written_table_has_a_title_a_legend_and_the_papers_titles(reproduced):
    out, printed = reproduced
    assert_cites_no_label(printed, "gcul reproduce's output")
    texts = sorted(p for p in out.iterdir() if p.suffix in (".md", ".txt", ".tex", ".csv", ".json"))
    assert {p.name for p in texts} >= {"violations.md", "seed16.md", "baselines.md"}
    for path in texts:
        assert_cites_no_label(path.read_text(encoding="utf-8"), path.name)
    for name in ("violations.md", "seed16.md", "baselines.md"):
        text = (out / name).read_text(encoding="utf-8")
        lines = text.splitlines()
        assert lines[0].startswith("# ") and len(lines[0]) > 20, name  # a title line
        legend = [line for line in lines if line.startswith("- **")]
        assert len(legend) >= 5, name  # every symbol defined, one bullet each
        assert re.search(r"section “[A-Z][^”]+”", text), name  # the paper's section, by title
        assert text.index(legend[0]) < text.index("| "), name  # the legend comes before the table
    legend = (out / "baselines.md").read_text(encoding="utf-8")
    for symbol in ("U", "U_joint", "AURC", "GCUL − r", "better / tied / worse", "±"):
        assert f"- **{symbol}**: " in legend, symbol
    violations = (out / "violations.md").read_text(encoding="utf-8")
    for symbol in ("λ*_PRE", "λ*_EMP", "Type-I (conservative)", "Type-II (unsafe)"):
        assert f"- **{symbol}**: " in violations, symbol
    assert "“Quantitative reliability analysis of theoretical feasibility" in violations
    seed16 = (out / "seed16.md").read_text(encoding="utf-8")
    assert "“GCUL performance under varying noise levels on synthetic data (seed 16)”" in seed16


@pytest.mark.slow  # uses `reproduced` (a whole `gcul reproduce` run, 6 s)
def test_an_empty_band_shows_a_dash_not_zero_counts(reproduced):
    out, _ = reproduced
    rows = [line for line in (out / "baselines.md").read_text().splitlines() if "| " in line]
    assert not any("0 / 0 / 0" in line for line in rows)
    empty = [line for line in rows if line.startswith(("| 4 < σ ≤ 10 |", "| σ > 10 |"))]
    assert len(empty) == 2 and all(line.endswith("| — |") for line in empty)
    csv_rows = (out / "baselines.csv").read_text().splitlines()[1:]
    for line in csv_rows:  # band,rejector,n_cells,...,better,tied,worse: empty, not 0,0,0
        fields = line.split(",")
        if fields[2] == "0":
            assert fields[-3:] == ["", "", ""], line


def test_clean_pool_and_other_seed_captions_cite_no_label(tmp_path):
    rows = make_rows(seeds=(16, 17))
    for pool in ("observed", "clean"):
        table = report.violation_table(rows, geometry_labels=pool)
        for text in (
            report.format_violations_markdown(table),
            report.format_violations_latex(table),
            report.format_violations_text(table),
        ):
            assert_cites_no_label(text, f"violations, {pool}")
        for seed in (16, 17):
            seed_table = report.seed_table(rows, seed=seed, geometry_labels=pool)
            for text in (
                report.format_seed_table_markdown(seed_table),
                report.format_seed_table_latex(seed_table),
            ):
                assert_cites_no_label(text, f"seed {seed}, {pool}")


def _help_texts():
    parser = build_parser()
    yield "gcul --help", parser.format_help()
    actions = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    for name, sub in actions[0].choices.items():
        yield f"gcul {name} --help", sub.format_help()


@pytest.mark.parametrize(("where", "text"), list(_help_texts()))
def test_help_cites_no_label(where, text):
    assert_cites_no_label(text, where)


def test_what_the_commands_print_cites_no_label(tmp_path, capsys):
    rng = np.random.default_rng(0)
    centres = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])
    y = np.repeat(np.arange(3), 40)
    Z = centres[y] + 1.5 * rng.standard_normal((y.size, 2))
    np.save(tmp_path / "Z.npy", Z)
    np.save(tmp_path / "y.npy", y)
    data = ["--embeddings", str(tmp_path / "Z.npy"), "--labels", str(tmp_path / "y.npy")]
    for argv in (
        ["demo", "--list"],
        ["feasibility", *data, "--method", "all"],
        ["compare", *data, "--splits", "1", "--quiet"],
    ):
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == 0, (argv, err)
        assert out.strip(), argv
        assert_cites_no_label(out + err, " ".join(argv[:1]))


def test_the_baselines_formats_cite_titles():
    rows = baseline_rows()
    table = baselines.baselines_table(rows, n_test=100)
    markdown = baselines.format_baselines_markdown(table)
    latex = baselines.format_baselines_latex(table)
    for text in (markdown, latex):
        assert_cites_no_label(text, "baselines")
        assert "Comparison with selective classification baselines" in text


def test_the_classroom_notebooks_cite_no_label():
    import json

    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for index, cell in enumerate(cells):
            assert_cites_no_label("".join(cell["source"]), f"{path.name}, cell {index}")


# ------------------------------------------------------------------------------- gcul prove


def _without_label_fields(payload):
    """A JSON report without its machine-readable ``reference_label`` fields (a label there is
    for a program, beside the ``reference`` a reader reads)."""
    if isinstance(payload, dict):
        return {k: _without_label_fields(v) for k, v in payload.items() if k != "reference_label"}
    if isinstance(payload, list):
        return [_without_label_fields(v) for v in payload]
    return payload


def _readable(text: str, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(_without_label_fields(json.loads(text)), ensure_ascii=False)
    return text


@pytest.mark.slow  # 11 s over its four formats: every proof, each format
@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "latex"])
def test_gcul_prove_cites_the_papers_titles_in_every_format(fmt, capsys):
    assert main(["prove", "--format", fmt]) == 0
    out, err = capsys.readouterr()
    assert_cites_no_label(_readable(out, fmt) + err, f"gcul prove --format {fmt}")
    quote = ("``", "''") if fmt == "latex" else ("“", "”")
    title = f"Theorem 3.1 {quote[0]}Strict Monotonicity of Selectivity Score{quote[1]}"
    assert title in out, fmt  # the reference column, by number and title
    if fmt == "json":
        claims = json.loads(out)["claims"]
        by_id = {claim["id"]: claim for claim in claims}
        assert by_id["monotonicity.signs"]["reference_label"] == "thm:monotonicity"
        assert by_id["monotonicity.signs"]["reference"] == title
        assert sum(claim["reference_label"] is not None for claim in claims) == len(claims) - 1


@pytest.mark.slow  # 9 s: every claim's derivation in four formats
def test_every_claim_derivation_cites_the_papers_titles_in_every_format(capsys):
    import proofs

    for claim_id in proofs.claim_ids():
        for fmt in ("text", "markdown", "json", "latex"):
            assert main(["prove", "--claim", claim_id, "--format", fmt]) == 0, (claim_id, fmt)
            out, err = capsys.readouterr()
            assert_cites_no_label(_readable(out, fmt) + err, f"gcul prove --claim {claim_id}")


# ------------------------------------------------------------------------- documentation

#: A label in parentheses right after the title it names: ``“Title” (`eq:x`)`` or ``“Title”
#: (eq:x)``, the one place a documentation page may show one.
BESIDE_A_TITLE = re.compile(r"”\s*\(`*" + LATEX_LABEL + r"`*\)")


def _documentation():
    yield ROOT / "README.md"
    yield ROOT / "CONTRIBUTING.md"
    for path in sorted((ROOT / "docs").rglob("*")):
        if path.suffix in (".md", ".rst") and "_build" not in path.parts:
            yield path


def test_the_documentation_cites_titles_and_a_label_only_beside_its_title():
    pages = list(_documentation())
    assert len(pages) >= 10
    for path in pages:
        text = BESIDE_A_TITLE.sub("”", path.read_text(encoding="utf-8"))
        found = LABEL.findall(text)
        assert not found, f"{path.relative_to(ROOT)}: {found}"


def test_a_label_beside_its_title_is_the_only_one_allowed():
    assert BESIDE_A_TITLE.sub("”", "Theorem 3.5 “Rigorous …” (`thm:r1_rigorous`)") == (
        "Theorem 3.5 “Rigorous …”"
    )
    assert LABEL.search(BESIDE_A_TITLE.sub("”", "Theorem `thm:r1_rigorous` (“Rigorous …”)"))
    assert LABEL.search(BESIDE_A_TITLE.sub("”", "see (`thm:r1_rigorous`)"))
