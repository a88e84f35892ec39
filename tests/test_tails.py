"""Gaussian and Chernoff tails (gcul_theory._tails): accuracy, ordering, monotonicity, edges."""

from __future__ import annotations

import math
import warnings

import mpmath
import numpy as np
import pytest
from _tolerances import CHERNOFF_REL, GAUSSIAN_REL, gamma
from hypothesis import assume, example, given
from hypothesis import strategies as st
from scipy.stats import norm

from gcul_theory import chernoff_tail, gaussian_tail

# GAUSSIAN_REL and CHERNOFF_REL: the tails' accuracy, derived in _tolerances.

positive = st.floats(min_value=1e-3, max_value=1e3, allow_nan=False)
ratio = st.floats(min_value=0.0, max_value=60.0, allow_nan=False)


def mp_gaussian_tail(D: float, sigma: float) -> float:
    with mpmath.workdps(50):
        D_, s_ = mpmath.mpf(D), mpmath.mpf(sigma)
        return float(mpmath.erfc(D_ / (2 * mpmath.sqrt(2) * s_)) / 2)


def mp_chernoff_tail(D: float, sigma: float) -> float:
    with mpmath.workdps(50):
        D_, s_ = mpmath.mpf(D), mpmath.mpf(sigma)
        return float(mpmath.exp(-(D_**2) / (8 * s_**2)))


# Pinned deep-tail values, from:
#   import mpmath as mp; mp.mp.dps = 40
#   mp.erfc(mp.mpf(D) / (2 * mp.sqrt(2))) / 2   for D = 3, 30, 60 (σ = 1)
@pytest.mark.parametrize(
    ("D", "expected"),
    [
        (3.0, 0.0668072012688580660044940409798860795229),
        (30.0, 3.67096619931275088578608965533474348641e-51),
        (60.0, 4.906713927148187059533809256580190471966e-198),
    ],
)
def test_pinned_deep_tails(D, expected):
    assert gaussian_tail(D, 1.0) == pytest.approx(expected, rel=GAUSSIAN_REL, abs=0)
    # 1 - erf loses everything here: the reason the package uses erfc.
    if D >= 30:
        assert 0.5 * (1 - math.erf(D / (2 * math.sqrt(2)))) == 0.0


@given(snr=ratio, sigma=positive)
def test_gaussian_tail_matches_mpmath_to_1e13(snr, sigma):
    D = snr * sigma
    assert gaussian_tail(D, sigma) == pytest.approx(
        mp_gaussian_tail(D, sigma), rel=GAUSSIAN_REL, abs=0
    )


@given(snr=ratio, sigma=positive)
def test_chernoff_tail_matches_mpmath_to_1e13(snr, sigma):
    D = snr * sigma
    assert chernoff_tail(D, sigma) == pytest.approx(
        mp_chernoff_tail(D, sigma), rel=CHERNOFF_REL, abs=0
    )


@given(snr=st.floats(0.0, 30.0), sigma=positive)
def test_gaussian_tail_is_normal_survival_at_half_distance(snr, sigma):
    D = snr * sigma
    # scipy's norm.sf is ½erfc(x/√2), as accurate as ours (GAUSSIAN_REL), but of the rounded
    # argument D/(2σ) (two roundings, then the scaling by 1/√2), amplified by the tail's
    # condition number x·φ(x)/Q(x) <= 1 + x² (x <= 15 here): both errors add
    x = D / (2 * sigma)
    rel = 2 * GAUSSIAN_REL + gamma(3) * (1 + x * x)
    assert gaussian_tail(D, sigma) == pytest.approx(norm.sf(x), rel=rel, abs=0)


@given(D=st.floats(0.0, 1e3), sigma=st.floats(0.0, 1e3))
@example(D=45.0, sigma=6.2341198696741214e-68)  # once gave NaN: 0 * inf in the refinement
def test_chernoff_dominates_gaussian_dominates_zero(D, sigma):
    g = gaussian_tail(D, sigma)
    assert 0.0 <= g <= 0.5
    assert chernoff_tail(D, sigma) >= g


@given(D=st.floats(0.0, 200.0), extra=st.floats(1e-3, 50.0), sigma=positive)
def test_tails_decrease_in_distance(D, extra, sigma):
    assert gaussian_tail(D + extra, sigma) <= gaussian_tail(D, sigma)
    assert chernoff_tail(D + extra, sigma) <= chernoff_tail(D, sigma)


@given(D=st.floats(1e-3, 200.0), sigma=positive, extra=st.floats(1e-3, 50.0))
def test_tails_increase_in_spread(D, sigma, extra):
    assert gaussian_tail(D, sigma + extra) >= gaussian_tail(D, sigma)
    assert chernoff_tail(D, sigma + extra) >= chernoff_tail(D, sigma)


def test_edge_cases():
    assert gaussian_tail(0.0, 2.0) == 0.5
    assert gaussian_tail(0.0, 0.0) == 0.5
    assert gaussian_tail(1.0, 0.0) == 0.0
    assert chernoff_tail(0.0, 2.0) == 1.0
    assert chernoff_tail(0.0, 0.0) == 1.0
    assert chernoff_tail(1.0, 0.0) == 0.0
    assert gaussian_tail(1e308, 1e-308) == 0.0
    assert gaussian_tail(1.7e308, 5e-324) == 0.0 and chernoff_tail(1.7e308, 5e-324) == 0.0
    out = gaussian_tail(np.array([0.0, 2.0, 4.0]), np.array([[1.0], [2.0]]))
    assert out.shape == (2, 3)
    assert out[1, 2] == gaussian_tail(4.0, 2.0)


@pytest.mark.parametrize("func", [gaussian_tail, chernoff_tail])
@pytest.mark.parametrize(
    ("D", "sigma", "name"),
    [(-1.0, 1.0, "D"), (1.0, -1.0, "sigma"), (np.nan, 1.0, "D"), (1.0, np.inf, "sigma")],
)
def test_bad_input_raises_naming_argument(func, D, sigma, name):
    with pytest.raises(ValueError, match=name):
        func(D, sigma)


# The whole finite range of σ: Dekker's splitting overflowed above σ ≈ 1.3e300 (NaN) and lost
# its error term for subnormal σ. D and σ are drawn as a ratio and a binary exponent.
@given(
    snr=ratio,
    mantissa=st.floats(0.5, 1.0, exclude_max=True),
    exponent=st.integers(-1074, 1024),
)
@example(snr=2.0, mantissa=0.5, exponent=1015)  # gaussian_tail(2e305, 1e305)-like
@example(snr=3.0, mantissa=0.5, exponent=-1073)  # σ = 5e-324
def test_tails_match_mpmath_over_the_whole_finite_range(snr, mantissa, exponent):
    sigma = math.ldexp(mantissa, exponent)
    D = snr * sigma
    assume(0.0 < sigma < math.inf and D < math.inf)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g, c = gaussian_tail(D, sigma), chernoff_tail(D, sigma)
    assert g == pytest.approx(mp_gaussian_tail(D, sigma), rel=GAUSSIAN_REL, abs=0)
    assert c == pytest.approx(mp_chernoff_tail(D, sigma), rel=CHERNOFF_REL, abs=0)


@pytest.mark.parametrize(
    ("D", "sigma"),
    [(1.0, 1e301), (2e305, 1e305), (1e308, 1.7e308), (5e-324, 1.7e308), (1e-300, 1e-310)],
)
def test_huge_and_tiny_arguments_give_finite_tails(D, sigma):
    # chernoff_tail(1.0, 1e301) and gaussian_tail(2e305, 1e305) were NaN (issue 6, §1).
    g, c = gaussian_tail(D, sigma), chernoff_tail(D, sigma)
    assert g == pytest.approx(mp_gaussian_tail(D, sigma), rel=GAUSSIAN_REL, abs=0)
    assert c == pytest.approx(mp_chernoff_tail(D, sigma), rel=CHERNOFF_REL, abs=0)
