"""The claim ``joint_utility.maximiser``: the paper's U is not a risk (proofs/_joint_utility.py).

(a) the computed verdict and its witness numbers, checked by hand;
(b) an independent brute force in exact ``fractions`` arithmetic (no SymPy): on random finite
    mixtures Chow's rule maximises U_joint over every accept rule and U = U_joint - rho eps_sel;
(c) the verdict is computed, not preset: a mixture where U and Chow agree gives no mixture
    counterexample, and a wrong ``gcul_theory.joint_utility`` makes the claim fail;
(d) ``--claim joint_utility.maximiser`` prints the derivation.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

import gcul_theory
import proofs
from proofs import _joint_utility, _runner

CLAIM = "joint_utility.maximiser"


@pytest.fixture(scope="module")
def result():
    return _joint_utility.check_maximiser()


# ---------------------------------------------------------------------------------------------
# (a) verdict and witnesses
# ---------------------------------------------------------------------------------------------


def test_verdict_is_an_erratum_with_the_hand_computed_witnesses(result):
    assert result.status == "erratum"
    assert result.reference == "subsec:selectivity_score"
    assert "R_GCUL = eps_clean eta1 + rho eta2" in result.statement
    # Mixture 'threshold' (weights 1/5, 3/10, 1/2; errors 0, 1/10, 2/5; lambda = 3/20; eps =
    # 23/100). Accept {1}: rho = 4/5, eps_sel = 0: U = 23/100 - 12/100 = 11/100. Chow accepts
    # {1, 2} (errors <= 3/20): rho = 1/2, eps_sel = (3/100)/(1/2) = 3/50:
    # U = 23/100 - 6/100 - 15/200 = 19/200, U_joint = 23/100 - 3/100 - 15/200 = 1/8.
    assert "'accept atoms {1}' (U = 11/100, U_joint = 11/100)" in result.evidence
    assert "'accept atoms {1, 2}' has U = 19/200 < 11/100 but U_joint = 1/8 > 11/100" in (
        result.evidence
    )
    # Mixture 'reject_all' (weights 3/10, 7/10; errors 1/10, 2/5; eps = 31/100): reject all
    # U = 31/100 - 15/100 = 4/25; Chow accepts {1}: rho = 7/10, eps_sel = 1/10:
    # U = 31/100 - 10/100 - 21/200 = 21/200, U_joint = 31/100 - 3/100 - 21/200 = 7/40.
    assert "'reject everything' (U = 4/25, U_joint = 4/25)" in result.evidence
    assert "has U = 21/200 < 4/25 but U_joint = 7/40 > 4/25" in result.evidence
    # R_GCUL/eta1 against the cost per sample at rho = 1/2, eps_sel = 3/50, lambda = 3/20:
    # 3/50 + 3/40 = 27/200 against (1/2)(3/50) + 3/40 = 21/200.
    assert "27/200 != 21/200" in result.evidence
    assert "U_joint(lambda) = eps - (1-rho) eps_sel - lambda rho = U(lambda) + rho eps_sel" in (
        result.corrected
    )
    assert "equal the exact values at all 16" in result.evidence


def test_maximisers_of_the_two_mixtures():
    threshold, reject_all = (_joint_utility.maximisers(m) for m in _joint_utility.MIXTURES)
    assert threshold["argmax_u"] == [frozenset({0})]
    assert threshold["chow"] == frozenset({0, 1}) and threshold["argmax_joint"] == [
        frozenset({0, 1})
    ]
    assert reject_all["argmax_u"] == [frozenset()]
    assert reject_all["chow"] == frozenset({0}) and reject_all["argmax_joint"] == [frozenset({0})]
    # Chow's rule is the confidence threshold 1 - lambda, one of the threshold rules.
    assert threshold["thresholds"] == [
        frozenset(),
        frozenset({0}),
        frozenset({0, 1}),
        frozenset({0, 1, 2}),
    ]


def test_claim_sits_after_the_utility_model_in_paper_order():
    ids = _runner.claim_ids()
    assert ids.index(CLAIM) == ids.index("utility.conditional_error") + 1


# ---------------------------------------------------------------------------------------------
# (b) an independent brute force (fractions only)
# ---------------------------------------------------------------------------------------------


def _rules(weights, errors, lam):
    """(accept set, U, U_joint, rho, eps_sel) of every deterministic accept rule."""
    eps = sum(w * e for w, e in zip(weights, errors, strict=True))
    out = []
    for accept in itertools.product((False, True), repeat=len(weights)):
        kept = sum(w for w, a in zip(weights, accept, strict=True) if a)
        wrong = sum(w * e for w, e, a in zip(weights, errors, accept, strict=True) if a)
        rho = 1 - kept
        sel = wrong / kept if kept else Fraction(0)
        out.append((accept, eps - sel - lam * rho, eps - wrong - lam * rho, rho, sel))
    return out


@st.composite
def mixtures(draw):
    k = draw(st.integers(1, 4))
    raw = draw(st.lists(st.integers(1, 20), min_size=k, max_size=k))
    weights = [Fraction(r, sum(raw)) for r in raw]
    errors = [Fraction(draw(st.integers(0, 10)), 20) for _ in range(k)]  # min posterior <= 1/2
    lam = Fraction(draw(st.integers(0, 19)), 20)
    return weights, errors, lam


@given(mixtures())
def test_chow_maximises_the_joint_utility_and_u_differs_by_rho_eps_sel(mixture):
    weights, errors, lam = mixture
    rules = _rules(weights, errors, lam)
    best = max(r[2] for r in rules)
    chow = tuple(e <= lam for e in errors)  # accept iff max posterior 1 - e >= 1 - lambda
    assert dict((r[0], r[2]) for r in rules)[chow] == best
    for _, u, u_joint, rho, sel in rules:
        assert u_joint - u == rho * sel


def test_the_sympy_enumeration_agrees_with_the_brute_force():
    for m in _joint_utility.MIXTURES:
        weights = [Fraction(str(w)) for w in m.weights]
        errors = [Fraction(str(e)) for e in m.errors]
        lam = Fraction(str(m.lam))
        brute = {
            frozenset(j for j, a in enumerate(acc) if a): (u, uj)
            for acc, u, uj, _, _ in _rules(weights, errors, lam)
        }
        values = _joint_utility.maximisers(m)["value"]
        assert {k: (Fraction(str(a)), Fraction(str(b))) for k, (a, b) in values.items()} == brute


# ---------------------------------------------------------------------------------------------
# (c) the verdict is computed
# ---------------------------------------------------------------------------------------------


def test_a_mixture_where_u_agrees_with_chow_gives_no_mixture_counterexample(monkeypatch):
    # Errors 0 and 1/2 at lambda = 1/10: Chow accepts the error-free atom, which is also U's
    # maximiser (U = eps - 0 - lambda rho is largest with eps_sel = 0 and the least rho).
    agree = _joint_utility.Mixture(
        "agree",
        (sp.Rational(1, 2), sp.Rational(1, 2)),
        (sp.Integer(1), sp.Rational(1, 2)),
        sp.Rational(1, 10),
    )
    res = _joint_utility.maximisers(agree)
    assert res["argmax_u"] == [res["chow"]] == [frozenset({0})]
    monkeypatch.setattr(_joint_utility, "MIXTURES", (agree,))
    r = _joint_utility.check_maximiser()
    # The identity R_GCUL/eta1 = cost per sample still fails, so it stays an erratum, but the
    # evidence has no mixture counterexample and no 'reject everything' sentence.
    assert r.status == "erratum"
    assert "27/200 != 21/200" in r.evidence
    assert "U is maximised by" not in r.evidence
    assert "rejecting everything earns" not in r.established


def test_a_wrong_joint_utility_in_gcul_theory_fails_the_claim(monkeypatch):
    def paper_u(lam, eps, selective_error, rejection_rate):  # the paper's U, not U_joint
        return eps - selective_error - lam * rejection_rate

    monkeypatch.setattr(gcul_theory, "joint_utility", paper_u)
    r = _joint_utility.check_maximiser()
    assert r.status == "failed"
    assert "gcul_theory.joint_utility" in r.evidence


def test_a_wrong_utility_in_gcul_theory_fails_the_claim(monkeypatch):
    real = gcul_theory.utility
    # a shift of 1e-9, far beyond the claim's comparison tolerance (proofs/_joint_utility.REL =
    # 1e-12 relative to values below 1, floor 1e-15), so the claim must see it
    monkeypatch.setattr(gcul_theory, "utility", lambda lam, *a: real(lam, *a) + 1e-9)
    r = _joint_utility.check_maximiser()
    assert r.status == "failed" and "gcul_theory.utility" in r.evidence


# ---------------------------------------------------------------------------------------------
# (d) the command line
# ---------------------------------------------------------------------------------------------


def test_claim_derivation_prints(capsys):
    assert proofs.main(["--claim", CLAIM]) == 0
    out = capsys.readouterr().out
    assert "verdict:        erratum" in out
    assert "dU/dr_j = w_j [(e_j - eps_sel)/(1 - rho) - lambda]" in out
