"""Properties of ρ, ε_clean, U(λ), S_GCUL and λ*_EMP (gcul_theory._selectivity)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from gcul_theory import (
    clean_error,
    empirical_lambda,
    rejection_rate,
    selectivity_score,
    utility,
)

unit_open = st.floats(min_value=1e-6, max_value=1 - 1e-6, allow_nan=False)
unit_closed = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
cost = st.floats(min_value=0.0, max_value=1.0, exclude_max=True, allow_nan=False)


@st.composite
def ordered_rates(draw: st.DrawFn) -> tuple[float, float]:
    """0 <= r2 <= r1 <= 1, the domain of Theorem thm:monotonicity."""
    a, b = draw(unit_closed), draw(unit_closed)
    return max(a, b), min(a, b)


def paper_expanded_score(eps: float, r1: float, r2: float) -> float:
    """Eq. (eq:selectivity_score) exactly as printed, an independent oracle for the factored form."""
    a = 1.0 - eps
    denominator = r1 + a / eps * r2 - eps * r1**2 - a**2 / eps * r2**2 - 2 * a * r1 * r2
    return a * (r1 - r2) / denominator


@given(eps=unit_open, rates=ordered_rates(), lam=cost)
@example(eps=0.2, rates=(0.0, 0.0), lam=0.0)  # ρ = 0: nothing rejected, U ≡ 0, S = 0
@example(eps=0.2, rates=(1.0, 1.0), lam=0.1)  # ρ = 1: everything rejected, U = ε - λ, S = ε
@example(eps=0.2, rates=(1.0, 1.0), lam=0.3)
@example(eps=0.135, rates=(1.0, 0.0), lam=0.15)  # the paper's σ = 0 cell
def test_score_exceeds_cost_iff_utility_positive(eps, rates, lam):
    r1, r2 = rates
    score = selectivity_score(eps, r1, r2)
    gain = utility(lam, eps, r1, r2)
    assume(abs(score - lam) > 1e-9 and abs(gain) > 1e-12)  # drop draws on the boundary itself
    assert (score > lam) == (gain > 0)


@given(eps=unit_open, rates=ordered_rates())
def test_factored_score_equals_printed_closed_form(eps, rates):
    r1, r2 = rates
    rho = eps * r1 + (1 - eps) * r2
    assume(0.01 < rho < 0.99)
    assert selectivity_score(eps, r1, r2) == pytest.approx(
        paper_expanded_score(eps, r1, r2), rel=1e-9
    )


@given(eps=unit_open, rates=ordered_rates(), step=st.floats(1e-4, 1.0))
def test_strictly_increasing_in_r1(eps, rates, step):
    r1, r2 = rates
    higher = min(1.0, r1 + step)
    assume(higher - r1 > 1e-4 and 0 < r2 < r1 and higher < 1)
    assert selectivity_score(eps, higher, r2) > selectivity_score(eps, r1, r2)


@given(eps=unit_open, rates=ordered_rates(), step=st.floats(1e-4, 1.0))
def test_strictly_decreasing_in_r2(eps, rates, step):
    r1, r2 = rates
    higher = min(r1, r2 + step)
    assume(higher - r2 > 1e-4 and 0 < r2 and r1 < 1)
    assert selectivity_score(eps, r1, higher) < selectivity_score(eps, r1, r2)


@given(eps=unit_open, rates=ordered_rates())
def test_empirical_lambda_equals_score_when_selective_error_is_the_clean_error(eps, rates):
    # (ε - ε_clean)/ρ = ε(1-ε)(r1-r2)/(ρ(1-ρ)): λ*_EMP and S_GCUL are one quantity.
    r1, r2 = rates
    rho = rejection_rate(eps, r1, r2)
    assume(1e-6 < rho < 1 - 1e-6)
    emp = empirical_lambda(eps, clean_error(eps, r1, r2), rho)
    assert emp == pytest.approx(selectivity_score(eps, r1, r2), rel=1e-9, abs=1e-12)


@given(eps=unit_open, r1=unit_closed, r2=unit_closed)
def test_rates_stay_in_unit_interval(eps, r1, r2):
    assert 0.0 <= rejection_rate(eps, r1, r2) <= 1.0
    assert 0.0 <= clean_error(eps, r1, r2) <= 1.0


def test_degenerate_corners_have_defined_values():
    assert selectivity_score(0.3, 0.0, 0.0) == 0.0
    assert utility(0.2, 0.3, 0.0, 0.0) == 0.0
    assert selectivity_score(0.3, 1.0, 1.0) == 0.3
    assert clean_error(0.3, 1.0, 1.0) == 0.0
    assert utility(0.2, 0.3, 1.0, 1.0) == pytest.approx(0.1)
    assert empirical_lambda(0.2, 0.1, 0.0) == 0.0


def test_paper_sigma0_row_lambda_emp():
    # tab:synthetic_gcul, σ = 0: base 86.50 %, selective 100 %, rejection 16.54 %, EMP λ* = 0.82.
    assert empirical_lambda(1 - 0.8650, 0.0, 0.1654) == pytest.approx(0.82, abs=0.005)


def test_empirical_lambda_can_be_negative():
    # tab:synthetic_gcul, σ = 16: selective accuracy below base accuracy gives λ*_EMP < 0.
    assert empirical_lambda(1 - 0.4571, 1 - 0.4561, 0.1696) < 0


def test_broadcasting_and_scalar_output():
    eps = np.array([0.1, 0.2, 0.3])[:, None]
    r1 = np.array([0.9, 0.8])
    out = selectivity_score(eps, r1, 0.05)
    assert out.shape == (3, 2)
    assert out[1, 0] == selectivity_score(0.2, 0.9, 0.05)
    assert isinstance(selectivity_score(0.2, 0.9, 0.05), float)
    assert isinstance(utility(0.1, 0.2, 0.9, 0.05), float)


@pytest.mark.parametrize(
    ("call", "kind", "words"),
    [
        (lambda: selectivity_score(0.0, 0.5, 0.1), ValueError, ["eps", "(0, 1)", "0.0"]),
        (lambda: selectivity_score(1.0, 0.5, 0.1), ValueError, ["eps", "(0, 1)"]),
        (lambda: selectivity_score(0.2, 1.5, 0.1), ValueError, ["r1", "[0, 1]", "1.5"]),
        (lambda: selectivity_score(0.2, 0.5, -0.1), ValueError, ["r2", "-0.1"]),
        (lambda: selectivity_score(0.2, 0.1, 0.5), ValueError, ["r2 <= r1", "0.1", "0.5"]),
        (lambda: selectivity_score(np.nan, 0.5, 0.1), ValueError, ["eps", "finite", "nan"]),
        (lambda: selectivity_score(0.2, np.inf, 0.1), ValueError, ["r1", "finite"]),
        (lambda: selectivity_score("0.2", 0.5, 0.1), TypeError, ["eps"]),
        (
            lambda: selectivity_score(0.2, [0.5, 0.6], [0.1, 0.2, 0.3]),
            ValueError,
            ["r1(2,)", "r2(3,)"],
        ),
        (lambda: utility(1.0, 0.2, 0.5, 0.1), ValueError, ["lam", "[0, 1)"]),
        (lambda: utility(-0.1, 0.2, 0.5, 0.1), ValueError, ["lam"]),
        (lambda: empirical_lambda(0.2, 0.1, 1.2), ValueError, ["rejection_rate", "1.2"]),
        (lambda: rejection_rate(0.2, None, 0.1), TypeError, ["r1"]),
        (lambda: rejection_rate(0.2, True, 0.1), TypeError, ["r1"]),
    ],
)
def test_bad_input_names_argument_range_and_value(call, kind, words):
    with pytest.raises(kind) as info:
        call()
    for word in words:
        assert word in str(info.value)
