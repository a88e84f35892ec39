"""Tests of the certified predictor: validity by Monte Carlo at the null boundary, properties."""

from __future__ import annotations

import numpy as np
import pytest
from _blob_data import confusion_blobs
from _tolerances import ALPHA, gamma
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from gcul_theory import (
    ASYMPTOTIC_MIN_COUNT,
    NULL_BOUNDARY_LAWS,
    _certified,
    certified_lambda,
    draw_calibration_outcomes,
    null_boundary_law,
    utility_confidence_bounds,
)
from gcul_theory._certified import (
    UtilityBounds,
    check_delta,
    check_indicators,
    check_lam,
    last_positive,
)
from simulations.gcul import GCUL, Certificate

LAM = 0.15


def binomial_limit(reps, delta, false_failure=ALPHA):
    """Smallest count k with P(Binomial(reps, delta) >= k) < false_failure: a bound whose
    violation rate is at most delta reaches k violations with probability below false_failure."""
    return next(k for k in range(reps + 2) if binom.sf(k - 1, reps, delta) < false_failure)


def _false_certification_rate(bound, law, n, reps, seed):
    rng = np.random.default_rng(seed)
    p = null_boundary_law(*law)
    hits = sum(bound(*draw_calibration_outcomes(rng, p, n)) > 0.0 for _ in range(reps))
    return hits / reps


@pytest.mark.parametrize("name", sorted(NULL_BOUNDARY_LAWS))
def test_betting_bound_is_valid_at_the_null_boundary(name):
    # P(lower(lam) > 0) <= delta when U(lam) = 0 (the worst case of U(lam) <= 0), and
    # lambda_cert > lam implies lower(lam) > 0, so this is the guarantee of certified_lambda.
    # If it holds, the count of false certifications is at most Binomial(300, 0.05), which
    # reaches binomial_limit(300, 0.05) = 43 with probability 7.1e-10 < ALPHA (three laws:
    # three of the suite's Monte Carlo checks, tests/_tolerances.py).
    delta, reps = 0.05, 300
    rate = _false_certification_rate(
        lambda *ind: utility_confidence_bounds(*ind, lam=LAM, delta=delta)[0],
        NULL_BOUNDARY_LAWS[name],
        n=400,
        reps=reps,
        seed=np.random.SeedSequence([7, len(name)]),
    )
    assert round(rate * reps) < binomial_limit(reps, delta), rate


def test_the_monte_carlo_check_can_fail():
    # The same harness on the plug-in estimate (no confidence margin) certifies about half the
    # time at the null boundary, far above the limit of 43 of 300: the check has power.
    def plug_in(bw, aw, rej):
        return bw.mean() - aw.sum() / (~rej).sum() - LAM * rej.mean()

    rate = _false_certification_rate(plug_in, NULL_BOUNDARY_LAWS["sweep_like"], 400, 300, 11)
    assert round(rate * 300) >= binomial_limit(300, 0.05)


@pytest.mark.parametrize(
    ("rho", "lam0", "a", "q11", "delta"),
    [
        (0.05, 0.9, 0.95, 0.05, 0.01),  # few rejected: non-coverage 0.224 before the refusal
        (0.95, 0.15, 0.15, 0.05, 0.05),  # few accepted: 0.299 (benchmarks/asymptotic_coverage.py)
    ],
)
def test_asymptotic_bound_refuses_the_regime_where_it_fails(rho, lam0, a, q11, delta):
    # With n = 200 these laws have about 10 rejected (or accepted) samples, where the delta
    # method's measured non-coverage was 22-30 times (6 times) delta; it is now refused.
    law = _null_law_from_a(rho, lam0, a, q11)
    ind = draw_calibration_outcomes(np.random.default_rng(0), law, 200)
    for call in (
        lambda: utility_confidence_bounds(*ind, lam=lam0, delta=delta, method="asymptotic"),
        lambda: certified_lambda(*ind, delta=delta, method="asymptotic"),
    ):
        with pytest.raises(ValueError, match="at least 100 rejected and 100 accepted") as info:
            call()
        assert f"got {int(ind[2].sum())} rejected" in str(info.value)
        assert "method='betting'" in str(info.value)


def test_asymptotic_bound_is_given_from_the_minimum_count_on():
    rejected = np.r_[np.ones(ASYMPTOTIC_MIN_COUNT), np.zeros(ASYMPTOTIC_MIN_COUNT)].astype(bool)
    base_wrong = np.r_[np.ones(80), np.zeros(20), np.ones(30), np.zeros(70)].astype(bool)
    selective_wrong = np.r_[np.zeros(100), np.ones(10), np.zeros(90)].astype(bool)
    lower, upper = utility_confidence_bounds(
        base_wrong, selective_wrong, rejected, method="asymptotic"
    )
    # U_hat(0.15) = 0.55 - 0.1 - 0.075 = 0.375, inside its own interval
    assert lower < 0.375 < upper
    with pytest.raises(ValueError, match="got 99 rejected"):
        utility_confidence_bounds(
            base_wrong, selective_wrong, rejected & (np.arange(200) > 0), method="asymptotic"
        )


def _null_law_from_a(rho, lam0, a, q11):
    """As null_boundary_law, parametrised by a = P(base wrong | rejected) (the benchmark's laws)."""
    rhs = -rho * (a - lam0) + rho * q11  # (1 - rho) q10 - q01
    q10, q01 = (rhs / (1 - rho), 0.0) if rhs >= 0 else (0.0, -rhs)
    return null_boundary_law(rho, q11, q10, q01, lam=lam0)


def test_certified_lambda_matches_the_bound():
    rng = np.random.default_rng(5)
    p = null_boundary_law(*NULL_BOUNDARY_LAWS["moderate"], lam=0.3)
    for _ in range(20):
        ind = draw_calibration_outcomes(rng, p, 500)
        lam_cert = certified_lambda(*ind)
        for lam in (0.1, 0.2, 0.3, 0.5):
            if lam_cert > lam:
                assert utility_confidence_bounds(*ind, lam=lam)[0] > 0


@st.composite
def indicators(draw):
    n = draw(st.integers(10, 300))
    seed = draw(st.integers(0, 2**32 - 1))
    p_rej = draw(st.floats(0.0, 0.6))
    p_bw_rej = draw(st.floats(0.0, 1.0))
    p_bw_acc = draw(st.floats(0.0, 0.6))
    p_fix = draw(st.floats(0.0, 0.3))
    rng = np.random.default_rng(seed)
    rej = rng.random(n) < p_rej
    bw = np.where(rej, rng.random(n) < p_bw_rej, rng.random(n) < p_bw_acc)
    aw = bw & ~rej & (rng.random(n) >= p_fix)
    aw |= ~bw & ~rej & (rng.random(n) < p_fix / 3)
    return bw, aw, rej


@settings(max_examples=40)
@given(indicators())
def test_never_above_the_plug_in_and_zero_without_rejection(ind):
    bw, aw, rej = ind
    lam_cert = certified_lambda(bw, aw, rej)
    r = int(rej.sum())
    if r == 0:
        assert lam_cert == 0.0
        return
    m = rej.size - r
    selective = aw.sum() / m if m else 0.0
    plug_in = (bw.mean() - selective) / rej.mean()
    # the certified λ is below the plug-in in exact arithmetic; the plug-in's rounding is that
    # of a difference of rates amplified by 1/ρ̂ (as λ*_EMP in test_selectivity), the bisection's
    # result is a float: one ulp
    slack = gamma(6) * (bw.mean() + selective) / rej.mean() + 2.0**-52
    assert lam_cert <= max(plug_in, 0.0) + slack


@settings(max_examples=40)
@given(indicators(), st.floats(0.0, 0.9), st.floats(0.0, 0.09))
def test_lower_bound_decreases_in_lambda(ind, lam, step):
    lower_a = utility_confidence_bounds(*ind, lam=lam)[0]
    lower_b = utility_confidence_bounds(*ind, lam=lam + step)[0]
    # Monotone and ordered in exact arithmetic; each bound is a float computation on terms
    # <= 3 (about 20 roundings) with inner bisections to 2**-80 of ranges of width <= 4:
    slack = 4 * 2.0**-80 + 2 * 3 * gamma(20)
    assert lower_b <= lower_a + slack
    upper = utility_confidence_bounds(*ind, lam=lam)[1]
    assert lower_a <= upper + slack


# --- δ: each level valid on its own; bounds at two levels are not nested ------------------------
#
# A property test once asserted that certified_lambda is non-decreasing in δ; hypothesis
# (README's randomised loop, seed 7) falsified it with the calibration set below. The bets are
# sized for the level, so two values of δ run two different tests (Notes of
# utility_confidence_bounds); do not re-add that property. What holds is tested instead: with
# the bets held fixed the bound is monotone in its threshold, and each level is valid.


def _bits(*rows):
    return np.array([c == "1" for c in "".join(rows)])


# n = 167, 9 rejected (8 of them base errors), 84 accepted base errors of which 15 are fixed and
# 4 new errors (data order matters: the bets are predictable).
INVERSION_EXAMPLE = (
    _bits(
        "101110100110100011001100011000011111110011100110011010001010001110010111001111111110",
        "11110010011111101111011110000000011011011110110101100011000101111010100100001100001",
    ),
    _bits(
        "001110100110000011001100011000011011100111100000001010001010001011010110000001110100",
        "11110010010111101011000110000000001011010100110101100011001101110110100000001100001",
    ),
    _bits(
        "000000000000000000000000000000000100000000000100010000010000000100000000001000001000",
        "00000000000000000000001000000000000000000000000000000000000000000000000100000000000",
    ),
)


def test_certified_lambda_is_not_monotone_in_delta():
    # The counterexample hypothesis found: the more confident certificate certifies the larger
    # λ, by 0.015, far beyond the rounding of the two bisections (< 1e-12: the slack of the
    # property test this replaces).
    ind = INVERSION_EXAMPLE
    assert ind[0].size == 167 and int(ind[2].sum()) == 9
    confident = certified_lambda(*ind, delta=0.125)
    loose = certified_lambda(*ind, delta=0.25)
    assert 0.049 < confident < 0.051 and 0.034 < loose < 0.035
    # Both are valid at their own level; the inversion comes from the bets, not from the
    # Clopper-Pearson intervals: at the binding end (the upper end of the rho interval) the
    # bound with the bets of δ = 0.25 at both thresholds is ordered, with each level's own bets
    # it is not.
    bw, aw, rej = check_indicators(*ind)
    share = _certified._SIDE_SHARE
    r, k = int(rej.sum()), int(bw[rej].sum())
    rho = _certified._cp_two_sided(r, bw.size, share * 0.25)[1]
    a_ci = _certified._cp_two_sided(k, r, share * 0.25)

    def level(delta):
        return np.log(2.0 / (1.0 - 2.0 * share)) - np.log(delta)

    def offset(delta, bets):
        return _certified._two_group_bound(bw, aw, rej, rho, a_ci, level(delta), 1.0, level(bets))

    assert offset(0.125, 0.25) < offset(0.25, 0.25)  # fixed bets: the looser level is higher
    assert offset(0.125, 0.125) > offset(0.25, 0.25)  # sized bets: inverted


@settings(max_examples=40)
@given(indicators(), st.floats(0.005, 0.3), st.floats(0.005, 0.3), st.floats(0.005, 0.3))
def test_betting_bound_is_monotone_in_its_threshold_with_the_bets_fixed(ind, d1, d2, bet_delta):
    # log K is the same sum for both thresholds, so {log K >= level} only grows as the level
    # falls; the bisections of nested predicates from the same bracket stay ordered (the early
    # stop returns the plain bisection's result, test_bisect_stops_early_with_the_plain_result)
    # and the minimum over the ends of the a interval keeps the order: exact, no slack.
    bw, aw, rej = check_indicators(*ind)
    r = int(rej.sum())
    if r in (0, rej.size):
        return
    share = _certified._SIDE_SHARE
    small, large = sorted((d1, d2))

    def level(delta):
        return float(np.log(2.0 / (1.0 - 2.0 * share)) - np.log(delta))

    a_ci = _certified._cp_two_sided(int(bw[rej].sum()), r, share * large)
    for rho in _certified._cp_two_sided(r, rej.size, share * large):
        for sign in (1.0, -1.0):
            tight, loose = (
                _certified._two_group_bound(
                    bw, aw, rej, rho, a_ci, level(d), sign, level(bet_delta)
                )
                for d in (small, large)
            )
            assert tight <= loose


# The regime of the counterexample (INVERSION_EXAMPLE's rates: rho = 0.054, a = P(base wrong |
# rejected) = 0.89, 0.44 kept and 0.095 fixed accepted base errors), with the new errors raised
# to 0.112 to put it on the null boundary U(0.04) = 0, near the example's certified λ.
FEW_REJECTED_NULL = (0.054, 0.44, 0.095, 0.112)


@pytest.mark.parametrize("delta", [0.01, 0.125, 0.25])
def test_betting_bound_is_valid_at_each_level(delta):
    # P(lower(0.04) > 0) <= delta at U(0.04) = 0 with n = 167 (about 9 rejected), at a small
    # level and at the two of the counterexample: each level is valid on its own. If it holds,
    # the count of false certifications of 300 is at most Binomial(300, delta), which reaches
    # binomial_limit(300, delta) with probability below ALPHA (three of the suite's Monte Carlo
    # checks, tests/_tolerances.py). Measured: 0, 2 and 2 of 300 (limits 19, 77 and 123).
    reps, lam = 300, 0.04
    rng = np.random.default_rng(np.random.SeedSequence([7, int(delta * 1000)]))
    p = null_boundary_law(*FEW_REJECTED_NULL, lam=lam)
    hits = sum(
        utility_confidence_bounds(*draw_calibration_outcomes(rng, p, 167), lam=lam, delta=delta)[0]
        > 0.0
        for _ in range(reps)
    )
    assert hits < binomial_limit(reps, delta), hits


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"base_wrong": [1, 0], "selective_wrong": [0], "rejected": [0, 1]}, "same length"),
        ({"base_wrong": [], "selective_wrong": [], "rejected": []}, "empty"),
        ({"base_wrong": [2, 0], "selective_wrong": [0, 0], "rejected": [0, 1]}, "0/1"),
        ({"base_wrong": [1, 0], "selective_wrong": [0, 1], "rejected": [0, 1]}, "accepted and"),
        (
            {"base_wrong": [1, 0], "selective_wrong": [0, 0], "rejected": [0, 1], "delta": 1.0},
            "delta",
        ),
        ({"base_wrong": [[1, 0]], "selective_wrong": [[0, 0]], "rejected": [[0, 1]]}, "1-D"),
    ],
)
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        certified_lambda(**kwargs)


def test_bad_method_and_lam():
    ind = ([1, 0], [0, 0], [0, 1])
    with pytest.raises(ValueError, match="method"):
        certified_lambda(*ind, method="hoeffding")
    with pytest.raises(ValueError, match="lam"):
        utility_confidence_bounds(*ind, lam=1.0)


def test_gcul_certify_returns_a_consistent_certificate():
    rng = np.random.default_rng(0)
    model = GCUL().fit(*confusion_blobs(rng, 300))
    cert = model.certify(*confusion_blobs(rng, 500), lam=0.15, delta=0.05)
    assert isinstance(cert, Certificate)
    assert cert.n == 2000 and cert.lam == 0.15 and cert.delta == 0.05
    assert cert.gain_lower <= cert.gain_upper
    assert cert.feasible == (cert.gain_lower > 0)
    # equivalent in exact arithmetic; near λ = 0.15 the verdict rests on the rounding of the
    # lower bound (<= 4·2**-80 + 3·gamma(20)) over its slope -ρ̂ (>= 1/n in magnitude)
    edge = 2.0**-80 + 2 * (4 * 2.0**-80 + 3 * gamma(20)) * cert.n
    assert cert.feasible == (cert.lambda_cert > 0.15) or abs(cert.lambda_cert - 0.15) <= edge
    with pytest.raises(ValueError, match="features"):
        model.certify(np.zeros((3, 5)), [0, 1, 2])


def _plain_bisection(passes, lo, hi, steps=80):
    """The bisection as it was: every one of the steps, no early stop."""
    if not passes(lo):
        return lo
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        if passes(mid):
            lo = mid
        else:
            hi = mid
    return lo


@settings(max_examples=200, deadline=None)
@given(
    st.floats(-3.0, 1.0),
    st.floats(-3.0, 1.0),
    st.integers(0, 2**32 - 1),
)
def test_bisect_stops_early_with_the_plain_result(threshold, hi, seed):
    from gcul_theory._certified import _bisect

    # a monotone verdict, and one that is not (a hash of the point): the early stop must not
    # change the result in either case
    flips = np.random.default_rng(seed)
    salt = int(flips.integers(1, 2**31))
    for passes in (
        lambda mu: mu <= threshold,
        lambda mu: mu <= threshold or hash((mu, salt)) % 3 == 0,
    ):
        assert _bisect(passes, -3.0, hi) == _plain_bisection(passes, -3.0, hi)


# --- the trivial range -1 - lam <= U(lam) <= 1 (issue 14, section 3) ----------------------------


def _small_draws(count, seed):
    """Indicators of ``count`` small calibration sets (2 to 30 rows) of random laws."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(2, 31))
        rej = rng.random(n) < rng.random()
        bw = rng.random(n) < rng.random()
        aw = bw & ~rej & (rng.random(n) < rng.random())
        yield (bw, aw, rej), float(rng.uniform(0.0, 0.99)), float(rng.uniform(0.01, 0.3))


def test_bounds_stay_in_the_trivial_range():
    # Before the fix about two thirds of these draws gave a bound outside [-1 - lam, 1] (as low
    # as -3.98 and as high as 3.99): with a few rows the confidence margins exceed the range.
    outside = []
    for ind, lam, delta in _small_draws(300, 14):
        lower, upper = utility_confidence_bounds(*ind, lam=lam, delta=delta)
        if not -1.0 - lam <= lower <= upper <= 1.0:
            outside.append((lower, upper, lam))
    assert not outside, outside[:3]


def test_gcul_certificates_stay_in_the_trivial_range():
    rng = np.random.default_rng(1)
    centres = np.array([[-3.0, 0.0], [3.0, 0.0], [0.0, 4.0]])
    X = np.concatenate(
        [rng.normal(c, 1.0, (40, 2)) for c in centres]
        + [rng.normal(centres.mean(axis=0), 1.0, (40, 2))]
    )
    y = np.concatenate([np.repeat([0, 1, 2], 40), rng.integers(0, 3, 40)])
    model = GCUL().fit(X, y)
    lam = 0.15
    certificates = [model.certify(X[i : i + 6], y[i : i + 6], lam=lam) for i in range(0, 160, 6)]
    certificates += list(GCUL().certify_cross_fit(X, y, lam=lam, n_splits=20, seed=3).folds)
    assert any(c.gain_upper == 1.0 for c in certificates)  # some bounds were clipped
    for c in certificates:
        assert -1.0 - lam <= c.gain_lower <= c.gain_upper <= 1.0, c


# --- The building blocks of the cross-fitted certificate (gcul_theory._certified) -------------


@settings(max_examples=40)
@given(indicators(), st.floats(0.01, 0.3))
def test_certified_lambda_is_the_last_positive_point_of_the_clipped_lower_bound(ind, delta):
    # certified_lambda bisects the unclipped lower bound; clipping to [-1 - lam, 1] keeps its
    # sign, so the same bisection of UtilityBounds.lower (what a cross-fit combines) lands on
    # the same float.
    bounds = UtilityBounds(*check_indicators(*ind), check_delta(delta))
    assert last_positive(bounds.lower) == certified_lambda(*ind, delta=delta)
    for lam in (0.0, 0.15, 0.5, 0.99):
        assert bounds.bounds(lam) == utility_confidence_bounds(*ind, lam=lam, delta=delta)


def test_last_positive_ends():
    assert last_positive(lambda lam: -1.0) == 0.0
    assert last_positive(lambda lam: 1.0) == 1.0
    root = last_positive(lambda lam: 0.3 - lam)
    assert root < 0.3 and 0.3 - root <= 2**-53  # adjacent floats bracket the root


def test_check_lam_and_check_delta():
    assert check_lam(0.15) == 0.15 and check_delta(0.05) == 0.05
    with pytest.raises(ValueError, match="lam"):
        check_lam(1.0)
    with pytest.raises(ValueError, match="delta"):
        check_delta(0.0)
