"""The registry of judged methods (simulations.registry): one entry per method, the only place
that states a method's label, style, validity wording, guarantee and results columns."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import gcul_theory
from simulations import registry
from simulations.rejectors import REJECTORS

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "simulations"

#: results.csv's header at main 7493ae2 (the commit before the registry): its order is fixed.
ROW_COLUMNS_7493AE2 = (
    "seed,noise,level,flip_prob,base_acc,selective_acc,rejection_rate,lambda_emp,"
    "lambda_pre_gaussian,lambda_pre_union,lambda_pre_chernoff,lambda_pre_boole,"
    "lambda_pre_hunter_worsley,lambda_pre_gaussian_exact,r1_hat_gaussian,r1_hat_union,"
    "r1_hat_chernoff,r1_hat_boole,r1_hat_hunter_worsley,r1_hat_gaussian_exact,r2_hat,"
    "r2_hat_attractor,eps_train,r1_cluster,r2_cluster,r1_emp,r2_emp,lambda_cert,"
    "lambda_emp_cert,lambda_emp_cert_noisy,sel_risk_gcul,sel_risk_msp,sel_risk_entropy,"
    "sel_risk_mahalanobis,sel_risk_knn,sel_risk_selectivenet,sel_risk_deep_gamblers,"
    "sel_risk_bayes,aurc_gcul,aurc_msp,aurc_entropy,aurc_mahalanobis,aurc_knn,"
    "aurc_selectivenet,aurc_deep_gamblers,aurc_bayes,coverage_chow_msp,u_chow_msp,"
    "ujoint_chow_msp,coverage_chow_bayes,u_chow_bayes,ujoint_chow_bayes,ujoint_gcul"
).split(",")


def test_row_columns_are_assembled_from_the_registry_in_the_order_of_main():
    from simulations.results import CERTIFIED_COLUMNS, ROW_COLUMNS

    # main's columns keep their order; a new registry entry adds only its own columns
    assert [c for c in ROW_COLUMNS if c in ROW_COLUMNS_7493AE2] == ROW_COLUMNS_7493AE2
    added = {c for m in registry.METHODS for c in m.columns} - set(ROW_COLUMNS_7493AE2)
    assert set(ROW_COLUMNS) - set(ROW_COLUMNS_7493AE2) == added
    predictors = registry.methods("predictor")
    assert [m.predicted for m in predictors] == [c for c in ROW_COLUMNS if "lambda_pre_" in c]
    assert CERTIFIED_COLUMNS == ("lambda_cert", "lambda_emp_cert", "lambda_emp_cert_noisy")


def test_every_theory_predictor_and_rejector_has_one_entry_in_order():
    names = [m.name for m in registry.METHODS]
    assert len(set(names)) == len(names)
    predictors = registry.methods("predictor")
    assert tuple(m.name for m in predictors) == gcul_theory.METHODS
    for entry in predictors:
        theory = gcul_theory.predictor(entry.name)
        assert entry.compute is theory
        assert entry.validity.valid is theory.valid
        assert entry.columns == (f"lambda_pre_{entry.name}", f"r1_hat_{entry.name}")
        assert (entry.predicted, entry.empirical) == (entry.columns[0], "lambda_emp")
        assert entry.guarantee == gcul_theory.guarantee_phrase(entry.name)
    rejectors = registry.methods("rejector")
    assert [m.name for m in rejectors] == [r.name for r in REJECTORS]
    for entry, rejector in zip(rejectors, REJECTORS, strict=True):
        assert entry.compute is None and entry.label == rejector.label
        assert entry.style.width is not None
        # every rejector carries its own marker, but the Bayes floor (a thin line under them)
        assert (entry.style.marker is None) == (entry.name == "bayes")
    markers = [m.style.marker for m in rejectors if m.style.marker is not None]
    assert len(set(markers)) == len(markers) == len(rejectors) - 1
    for entry in registry.METHODS:
        assert entry.family in registry.FAMILIES
        assert entry.label and entry.guarantee and entry.style.colour


def test_every_drawn_method_has_its_own_look():
    for family, attribute in (("predictor", "marker"), ("rejector", "width")):
        looks = [(m.style.colour, m.style.linestyle) for m in registry.methods(family)]
        assert len(set(looks)) == len(looks), family
        assert all(getattr(m.style, attribute) is not None for m in registry.methods(family))
    for m in registry.methods("predictor"):
        assert m.style.colour in registry.OKABE_ITO.values()
    # every rejector's colour is colour-blind safe and dark enough for a thin line on white:
    # Okabe–Ito but its yellow (relative luminance 0.78, contrast 1.2 : 1), or Tol's wine
    yellow = registry.OKABE_ITO["yellow"]
    for m in registry.methods("rejector"):
        assert m.style.colour in (*registry.OKABE_ITO.values(), registry.TOL_WINE), m.name
        assert m.style.colour != yellow, m.name


def test_one_default_predictor_and_one_paper_predictor_stated_once():
    from simulations.cli import build_parser
    from simulations.feasibility import VERDICT_DEFAULT

    assert registry.DEFAULT_PREDICTOR == gcul_theory.DEFAULT_METHOD == VERDICT_DEFAULT
    assert registry.method(registry.DEFAULT_PREDICTOR).validity.valid
    assert registry.PAPER_METHOD == "union"
    parser = build_parser()
    assert parser.parse_args(["reproduce"]).method == registry.PAPER_METHOD
    args = parser.parse_args(["feasibility", "--embeddings", "x.npy", "--labels", "y.npy"])
    assert args.method == [registry.DEFAULT_PREDICTOR]


@pytest.mark.parametrize("bad", ["bogus", "Union", ""])
def test_method_refuses_an_unknown_name_in_one_line(bad):
    with pytest.raises(ValueError, match=f"^unknown method {re.escape(repr(bad))}; known: ") as e:
        registry.method(bad)
    assert "\n" not in str(e.value) and "bayes" in str(e.value)


def test_methods_refuses_an_unknown_family_in_one_line():
    with pytest.raises(ValueError, match="^family must be one of 'predictor', 'certificate'"):
        registry.methods("bound")
    assert registry.methods() == registry.METHODS
    assert len(registry.methods("certificate")) == 2


def test_the_validity_words_agree_with_the_flag():
    words = {True: {"valid", "finite-sample valid"}, False: {"not valid", "model value"}}
    for m in registry.methods("predictor") + registry.methods("certificate"):
        assert m.validity.word in words[m.validity.valid], m.name
        assert ("NOT" in m.validity.slide) is (m.validity.word == "not valid"), m.name


def test_terminal_and_markdown_captions_describe_each_block_with_the_same_sentence():
    # Before the registry the terminal said "λ*_EMP of that same model (lambda_emp_cert)" where
    # the Markdown and LaTeX captions said "... of that same model on the test split".
    from _figure_data import rows_for_panels

    from simulations import report

    rows = [row | {"lambda_emp_cert_noisy": row["lambda_emp_cert"]} for row in rows_for_panels()]
    table = report.violation_table(rows)
    text = report.format_violations_text(table)
    markdown = report.format_violations_markdown(table)
    for m in registry.methods("certificate"):
        assert m.name in table.methods
        assert f"  {m.name}: {m.judged_on}\n" in text
        assert f"- **{m.label}**: {m.judged_on}.\n" in markdown  # its line of the legend


# --------------------------------------------------------------------------------------------
# Nothing of a method outside the registry (read from the source)
# --------------------------------------------------------------------------------------------


def _sources():
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name != "registry.py":
            yield path, ast.parse(path.read_text(encoding="utf-8"))


def _strings(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node


_JUDGED = set(registry.judged_names())
_NAMES = {m.name for m in registry.METHODS}
# Every method's wordings, rejectors' labels included (each Rejector reads its label from the
# registry). A wording of one word ("valid", "MSP") is too common to look for.
_WORDINGS = {
    text
    for m in registry.METHODS
    for text in (
        m.label,
        m.validity.word,
        m.validity.slide,
        m.validity.reason,
        m.guarantee,
        m.judged_on,
        m.operating_point,
    )
    if " " in text
}

#: Files that may keep a table keyed by method names: the reason.
ALLOWED_TABLES = {
    "simulations/compare/result.py": "Guarantee.to_dict: the JSON fields of its attributes named "
    "gcul, msp and sgr, not a table of what a method is",
    "simulations/compare/sensitivity.py": "operating_points' result: each baseline's rows along "
    "its own knob, keyed by the rejector that made them",
    "simulations/text/paper_values.py": "the GCUL paper's appendix tables, transcribed: its "
    "numbers per method, not a property of the method",
    "simulations/text/tables.py": "the knob each baseline is swept along in the operating-points "
    "table (λ, target coverage, retained share) and its title there: the sweep's, not the method's",
    "simulations/text/figures.py": "the operating-points figure's markers and shades, kept as "
    "they were drawn (the committed figure is byte-identical); one axis per knob, not a style "
    "of the method across the package",
}


def test_no_label_or_validity_wording_of_a_method_outside_the_registry():
    found = [
        f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}"
        for path, tree in _sources()
        for node in _strings(tree)
        if node.value in _WORDINGS
    ]
    assert not found, "\n".join(found)


def test_no_table_keyed_by_method_names_outside_the_registry():
    found = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path, tree in _sources()
        if str(path.relative_to(ROOT)) not in ALLOWED_TABLES
        for node in ast.walk(tree)
        if isinstance(node, ast.Dict)
        and sum(isinstance(k, ast.Constant) and k.value in _NAMES for k in node.keys) >= 2
    ]
    assert not found, "\n".join(found)


#: (file, line text) where a judged method's name is compared: the reason it is allowed.
ALLOWED_COMPARISONS = {
    (
        "simulations/sweep/cell.py",
        'if profile is not None and entry.name == "gaussian_exact":',
    ): "times the orthant probability for the profile, not a property of the method's output",
}


def test_no_special_case_of_a_judged_method():
    found = []
    for path, tree in _sources():
        lines = path.read_text(encoding="utf-8").splitlines()
        for node in ast.walk(tree):
            if not isinstance(node, ast.Compare):
                continue
            operands = [node.left, *node.comparators]
            named = any(
                (isinstance(o, ast.Constant) and o.value in _JUDGED)
                or (isinstance(o, ast.Name) and o.id in {"CERTIFIED", "CERTIFIED_NOISY"})
                for o in operands
            )
            where = (str(path.relative_to(ROOT)), lines[node.lineno - 1].strip())
            if named and where not in ALLOWED_COMPARISONS:
                found.append(f"{where[0]}:{node.lineno}: {where[1]}")
    assert not found, "\n".join(found)
