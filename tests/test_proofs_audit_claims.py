"""Tests of the claims added for the audit's MISSING list, the package's predictors, and the CLI.

(a) each new claim's computed verdict and its witness numbers;
(b) the verdicts are computed, not preset: changing the input the check reads (the paper's
    tables, the numeric code of ``gcul_theory``) changes the verdict;
(c) the report formats parse (JSON loads, LaTeX has booktabs rules, every format carries
    statement, computation and correction), ``--claim ID`` works for every id and fails cleanly
    for a bad one, also through ``gcul prove``.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

import proofs
from proofs import _certified, _conservative, _predictors, _runner
from simulations.cli import main as gcul_main

#: The new claims, in paper order, with the verdict their checks compute.
NEW_STATUS = {
    "space.independence": "erratum",
    "projection.error_pool_limit": "erratum",
    "projection.clean_class_limit": "erratum",
    "asymptotics.tails_shrink": "verified",
    "variance_proxy.directional_variance": "erratum",
    "r1_fraction.in_expectation": "erratum",
    "asymptotics.dispersion_limit": "erratum",
    "conservative.lambda_pre_lower_bound": "erratum",
    "predictors.boole": "verified",
    "predictors.hunter_worsley": "verified",
    "predictors.finite_sample_hoeffding": "verified",
    "certified.guarantee": "verified",
}


@pytest.fixture(scope="module")
def results():
    return {r.name: r for r in proofs.run_all()}


# ---------------------------------------------------------------------------------------------
# (a) verdicts and witnesses
# ---------------------------------------------------------------------------------------------


def test_new_claims_have_their_computed_verdicts(results):
    assert {name: results[name].status for name in NEW_STATUS} == NEW_STATUS


def test_new_claims_come_in_paper_order():
    ids = _runner.claim_ids()
    positions = [ids.index(name) for name in NEW_STATUS]
    assert positions == sorted(positions)
    # anchors: the remark precedes the utility model; the projections follow the reduction.
    assert ids[0] == "space.independence"
    assert ids.index("voronoi.reduction") < ids.index("projection.error_pool_limit")
    assert ids.index("projection.clean_class_limit") < ids.index("projection_tails.gaussian_integral")
    # the paper's claims end with the certified predictor; the numeric cross-checks of
    # gcul_theory (not claims of the paper) come after them.
    paper_ids = [name for name in ids if not name.startswith("numeric.")]
    assert paper_ids[-1] == "certified.guarantee"
    assert ids[len(paper_ids) :] == [name for name in ids if name.startswith("numeric.")]


def test_every_erratum_has_a_counterexample_and_a_correction(results):
    for name in NEW_STATUS:
        r = results[name]
        assert r.statement and r.established and r.evidence, name
        assert (r.corrected is not None) == (r.status == "erratum"), name


def test_witness_numbers(results):
    # tab:synthetic_gcul has lambda*_PRE > lambda*_EMP in 13 of its 41 rows, counted by hand
    # from the paper's table (sigma_f = 0.0 ... 3.6, 6.4, 15.2, 16.0); tab:dair_gcul at d = 5.
    assert "13 of 41" in results["conservative.lambda_pre_lower_bound"].evidence
    assert "d = 5: 0.33 > 0.31" in results["conservative.lambda_pre_lower_bound"].evidence
    # Z = 99/100 w.p. 1/100: tail 1/100; exp(-1250/99) = 3.28e-6 (by hand).
    assert "tail 1/100" in results["variance_proxy.directional_variance"].evidence
    assert "3.28e-06" in results["variance_proxy.directional_variance"].evidence
    assert "= -1/2" in results["asymptotics.dispersion_limit"].evidence
    # Phi(1) - 1/2 = 0.34134 (normal table)
    assert "0.3413" in results["projection.error_pool_limit"].evidence
    # P(Binomial(100, 0.1) > 10) = 0.41684 (scipy.stats.binom.sf(10, 100, 0.1))
    assert "0.4168" in results["r1_fraction.in_expectation"].evidence
    assert "D = 1/2 in R^3, 0 after" in results["space.independence"].evidence


def test_paper_tables_transcribed_whole():
    sizes = {name: len(rows) for name, rows in _conservative.PAPER_TABLES.items()}
    assert sizes == {
        "tab:synthetic_gcul": 41,
        "tab:dair_gcul": 12,
        "tab:kaggle_gcul": 12,
        "tab:goemotions_gcul": 12,
    }
    first = _conservative.PAPER_TABLES["tab:synthetic_gcul"][0]
    assert first == ("0.0", Fraction("0.96"), Fraction("0.82"))


# ---------------------------------------------------------------------------------------------
# (b) verdicts follow their inputs
# ---------------------------------------------------------------------------------------------


def test_conservative_verdict_flips_when_the_tables_agree(monkeypatch):
    agreeing = {
        name: tuple((k, min(pre, emp), emp) for k, pre, emp in rows)
        for name, rows in _conservative.PAPER_TABLES.items()
    }
    monkeypatch.setattr(_conservative, "PAPER_TABLES", agreeing)
    assert _conservative.check_lambda_pre_lower_bound().status == "verified"


def test_boole_check_catches_a_mutated_capture_bound(monkeypatch):
    from gcul_theory import _predictors as code

    original = code._boole
    monkeypatch.setattr(code, "_CAPTURE", {**code._CAPTURE, "boole": lambda g: original(g) + 1e-6})
    result = _predictors.check_boole()
    assert result.status == "failed" and "capture_rate_bound(boole)" in result.evidence


def test_hoeffding_check_catches_a_mutated_term(monkeypatch):
    import gcul_theory

    # the log term dropped
    monkeypatch.setattr(gcul_theory, "hoeffding_deviation", lambda n, a: (2.0 * n) ** -0.5)
    assert _predictors.check_finite_sample_hoeffding().status == "failed"


def test_certified_check_catches_an_overconfident_predictor(monkeypatch):
    import gcul_theory

    _certified.null_boundary_violations.cache_clear()
    monkeypatch.setattr(gcul_theory, "certified_lambda", lambda *a, **k: 0.99)
    try:
        result = _certified.check_guarantee()
    finally:
        _certified.null_boundary_violations.cache_clear()
    assert result.status == "failed" and "violation rate 1.0" in result.evidence


# ---------------------------------------------------------------------------------------------
# (c) formats and --claim
# ---------------------------------------------------------------------------------------------


def test_json_format_parses_and_is_complete(capsys):
    assert proofs.main(["--format", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    claims = payload["claims"]
    assert [c["id"] for c in claims] == _runner.claim_ids()
    assert payload["summary"]["claims"] == len(claims) and payload["summary"]["failed"] == 0
    for c in claims:
        assert c["reference"] and c["statement"] and c["computed"] and c["status"]
        if c["status"] == "erratum":
            assert c["counterexample"] and c["corrected"]
        else:
            assert c["counterexample"] is None and c["corrected"] is None


def test_latex_format_has_booktabs_and_every_claim(capsys):
    assert proofs.main(["--format", "latex"]) == 0
    out = capsys.readouterr().out
    for rule in (r"\toprule", r"\midrule", r"\bottomrule", r"\begin{longtable}", r"\end{longtable}"):
        assert rule in out
    assert out.count(r"\emph{Statement:}") == len(_runner.CHECKS)
    assert out.count(r"\emph{Corrected:}") == out.count(r"\textbf{erratum}") > 0
    assert "\\texttt{conservative.lambda\\_pre\\_lower\\_bound}" in out


def test_text_and_markdown_show_statement_and_computation(capsys):
    assert proofs.main([]) == 0
    text = capsys.readouterr().out
    assert text.count("statement:") == text.count("computed:") == len(_runner.CHECKS)
    assert proofs.main(["--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert md.count("  - statement:") == md.count("  - computed:") == len(_runner.CHECKS)
    assert "  - counterexample: tab:synthetic_gcul: 13 of 41" in md


def test_claim_option_works_for_every_claim(capsys):
    for claim_id in _runner.claim_ids():
        assert proofs.main(["--claim", claim_id]) == 0, claim_id
        out = capsys.readouterr().out
        assert out.startswith(f"claim:          {claim_id}\n"), claim_id
        assert "statement:" in out and "verdict:" in out, claim_id


def test_claim_option_prints_the_derivation_steps(capsys):
    assert proofs.main(["--claim", "asymptotics.dispersion_limit"]) == 0
    out = capsys.readouterr().out
    assert "step 2: its limit as sigma -> oo" in out
    assert "verdict:        erratum" in out and "corrected:" in out and "counterexample:" in out
    # pretty-printed 3/2 and -1/2 on their own lines
    lines = [ln.strip() for ln in out.splitlines()]
    assert "3/2" in lines and "-1/2" in lines


def test_claim_option_json(capsys):
    assert proofs.main(["--claim", "variance_proxy.directional_variance", "--format", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["status"] == "erratum" and payload["steps"]
    assert any("1/100" in e for st in payload["steps"] for e in st["expressions"])


def test_unknown_claim_is_one_line_exit_2_with_close_matches(capsys):
    assert proofs.main(["--claim", "asymptotics.dispersion_limt"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("python -m proofs: error: unknown claim 'asymptotics.dispersion_limt'")
    assert "close matches: asymptotics.dispersion_limit" in lines[0]


def test_gcul_prove_passes_format_and_claim(capsys):
    assert gcul_main(["prove", "--claim", "space.independence"]) == 0
    assert "verdict:        erratum" in capsys.readouterr().out
    assert gcul_main(["prove", "--claim", "nope"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("gcul prove: error: unknown claim 'nope'")
    assert gcul_main(["prove", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["failed"] == 0
