"""Tests for gcul_theory.cross_fit_utility_bounds: K held-out folds, each at δ/K, averaged."""

from __future__ import annotations

import numpy as np
import pytest
from _tolerances import gamma
from hypothesis import given, settings
from hypothesis import strategies as st

from gcul_theory import (
    CrossFitBounds,
    certified_lambda,
    cross_fit_utility_bounds,
    utility_confidence_bounds,
)


def fold(n, rho, a, b, eps_sel, seed):
    """Indicators of n rows: a share rho rejected (base-wrong with probability a), the accepted
    base-wrong with probability b and accepted-and-wrong with probability eps_sel."""
    rng = np.random.default_rng(seed)
    rejected = rng.random(n) < rho
    base_wrong = np.where(rejected, rng.random(n) < a, rng.random(n) < b)
    selective_wrong = ~rejected & (rng.random(n) < eps_sel)
    return base_wrong, selective_wrong, rejected


FOLDS = [fold(300, 0.15, 0.8, 0.1, 0.05, seed) for seed in (1, 2, 3)]


def test_each_fold_is_certified_at_delta_over_k():
    bounds = cross_fit_utility_bounds(FOLDS, lam=0.2, delta=0.06)
    assert isinstance(bounds, CrossFitBounds)
    assert (bounds.lam, bounds.delta) == (0.2, 0.06)
    for k, indicators in enumerate(FOLDS):
        lower, upper = utility_confidence_bounds(*indicators, lam=0.2, delta=0.02)
        assert (bounds.fold_lower[k], bounds.fold_upper[k]) == (lower, upper)
        assert bounds.fold_lambda_cert[k] == certified_lambda(*indicators, delta=0.02)
    # the averages of the same values in the same order
    assert bounds.lower == np.mean(bounds.fold_lower)
    assert bounds.upper == np.mean(bounds.fold_upper)
    assert bounds.lower <= bounds.upper


def test_lambda_cert_is_where_the_average_lower_bound_turns():
    bounds = cross_fit_utility_bounds(FOLDS, delta=0.05)
    assert 0.0 < bounds.lambda_cert < 1.0

    def average_lower(lam):
        return np.mean([utility_confidence_bounds(*f, lam=lam, delta=0.05 / 3)[0] for f in FOLDS])

    # 1e-6 either side: far beyond the bisection's 2**-80 and the rounding of the average
    # (three terms <= 2 in magnitude: gamma(3) * 2), over its slope -ρ̂ <= -1/n
    assert average_lower(bounds.lambda_cert - 1e-6) > 0.0
    assert average_lower(bounds.lambda_cert + 1e-6) <= 0.0
    # a positive average needs one fold positive: no further than the best fold certifies
    slack = 2.0**-80 + gamma(3) * 2 * 300
    assert bounds.lambda_cert <= max(bounds.fold_lambda_cert) + slack


def test_one_fold_is_the_held_out_certificate():
    bounds = cross_fit_utility_bounds(FOLDS[:1], lam=0.1, delta=0.05)
    assert (bounds.lower, bounds.upper) == utility_confidence_bounds(*FOLDS[0], 0.1, 0.05)
    assert bounds.lambda_cert == certified_lambda(*FOLDS[0], delta=0.05)


def test_a_fold_that_rejects_nothing_contributes_the_trivial_bounds():
    base_wrong, selective_wrong, rejected = FOLDS[0]
    nothing = (base_wrong, base_wrong, np.zeros_like(rejected))
    bounds = cross_fit_utility_bounds([FOLDS[1], nothing], lam=0.3, delta=0.05)
    assert (bounds.fold_lower[1], bounds.fold_upper[1]) == (-1.3, 1.0)
    assert bounds.fold_lambda_cert[1] == 0.0
    assert bounds.lower == np.mean([bounds.fold_lower[0], -1.3])


@settings(max_examples=30, deadline=None)
@given(
    n_folds=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
    lam=st.floats(0.0, 0.95),
)
def test_the_average_lower_bound_never_exceeds_the_best_fold_and_the_upper(n_folds, seed, lam):
    rng = np.random.default_rng(seed)
    folds = [
        fold(int(rng.integers(20, 200)), rng.uniform(0, 0.5), 0.7, 0.1, 0.05, seed + k)
        for k in range(n_folds)
    ]
    bounds = cross_fit_utility_bounds(folds, lam=lam, delta=0.1)
    assert min(bounds.fold_lower) <= bounds.lower <= max(bounds.fold_lower)
    assert bounds.lower <= bounds.upper
    assert all(-1.0 - lam <= value <= 1.0 for value in bounds.fold_lower + bounds.fold_upper)


@pytest.mark.parametrize(
    ("folds", "kwargs", "kind", "match"),
    [
        ([], {}, ValueError, "at least one"),
        ("abc", {}, TypeError, "folds must be a sequence"),
        ([FOLDS[0][:2]], {}, TypeError, r"folds\[0\] must be a .* triple"),
        ([FOLDS[0], ([1, 0], [0, 1], [0, 1])], {}, ValueError, r"folds\[1\]: selective_wrong"),
        ([FOLDS[0], ([2, 0], [0, 0], [0, 1])], {}, ValueError, r"folds\[1\]: base_wrong"),
        (FOLDS, {"lam": 1.0}, ValueError, r"lam must lie in \[0, 1\); got 1.0"),
        (FOLDS, {"delta": 0.0}, ValueError, r"delta must lie in \(0, 1\); got 0.0"),
    ],
)
def test_bad_input(folds, kwargs, kind, match):
    with pytest.raises(kind, match=match):
        cross_fit_utility_bounds(folds, **kwargs)
