"""The equal-coverage claims (proofs._equal_coverage) are verified, and fail when the closed form
they assert, or the numeric function they cross-check, is wrong."""

from __future__ import annotations

import sympy as sp

import gcul_theory
from proofs import _equal_coverage


def test_both_claims_verified():
    assert [check().status for check in _equal_coverage.CLAIMS] == ["verified", "verified"]


def test_a_wrong_closed_form_fails(monkeypatch):
    # S at fixed rho with (1 - rho) squared: not the paper's S, so the identity must fail
    monkeypatch.setattr(
        _equal_coverage,
        "equal_coverage_score",
        lambda eps, rho, r1: eps * (r1 - rho) / (rho * (1 - rho) ** 2),
    )
    assert _equal_coverage.check_score().status == "failed"


def test_a_mutated_numeric_score_fails(monkeypatch):
    real = gcul_theory.selectivity_score
    monkeypatch.setattr(gcul_theory, "selectivity_score", lambda e, a, b: 1.001 * real(e, a, b))
    assert _equal_coverage.check_score().status == "failed"


def test_order_sign_at_a_point():
    # r1A = 0.9 > r1B = 0.5 at eps = 1/5, rho = 1/4: A has the larger S and the lower eps_clean
    eps, rho = sp.Rational(1, 5), sp.Rational(1, 4)
    s = [_equal_coverage.equal_coverage_score(eps, rho, sp.Rational(r)) for r in ("9/10", "1/2")]
    clean = [eps * (1 - sp.Rational(r)) / (1 - rho) for r in ("9/10", "1/2")]
    assert s[0] > s[1] and clean[0] < clean[1]
