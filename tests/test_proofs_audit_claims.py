"""The claims added for the audit's MISSING list and the package's own predictors (``proofs``).

(a) each such claim's computed verdict and its witness numbers;
(b) the verdicts are computed, not preset: changing the input the check reads (the paper's
    tables, the numeric code of ``gcul_theory``) changes the verdict.

The report formats and ``--claim`` are tested in ``test_proofs_report_formats.py``.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

import proofs
from proofs import _certified, _conservative, _predictors, _runner

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
    assert ids.index("projection.clean_class_limit") < ids.index(
        "projection_tails.gaussian_integral"
    )
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

    entry = code.predictor("boole")
    mutated = dataclasses.replace(entry, r1=lambda g: entry.r1(g) + 1e-6)
    monkeypatch.setattr(code, "_BY_NAME", {**code._BY_NAME, "boole": mutated})
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
