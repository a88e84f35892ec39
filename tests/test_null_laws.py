"""The laws on the null boundary U(λ) = 0 that check the certified bound, and their sampler."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from _tolerances import gamma
from hypothesis import assume, given
from hypothesis import strategies as st

from gcul_theory import NULL_BOUNDARY_LAWS, draw_calibration_outcomes, null_boundary_law


def _rates(p):
    """``(rho, eps, eps_sel)`` of a law: the rejection rate, the base error, the selective error
    among accepted samples (cells of gcul_theory._null_laws' table)."""
    rho = p[0] + p[1]
    return rho, p[0] + p[2] + p[3], (p[2] + p[4]) / (1.0 - rho)


@pytest.mark.parametrize("name", sorted(NULL_BOUNDARY_LAWS))
@pytest.mark.parametrize("lam", [0.15, 0.3])
def test_each_law_of_the_suite_lies_on_the_null_boundary(name, lam):
    p = null_boundary_law(*NULL_BOUNDARY_LAWS[name], lam=lam)
    assert p.shape == (6,) and (p >= 0.0).all()
    rho, eps, eps_sel = _rates(p)
    # U(lam) = 0 exactly; in floats about a dozen roundings of terms <= 1 + lam
    assert abs(eps - eps_sel - lam * rho) <= gamma(12) * (1 + lam)
    assert abs(p.sum() - 1.0) <= gamma(12)
    assert rho == pytest.approx(NULL_BOUNDARY_LAWS[name][0], abs=gamma(4))


@given(
    st.fractions(Fraction(1, 100), Fraction(99, 100), max_denominator=1000),
    st.lists(st.fractions(0, 1, max_denominator=1000), min_size=3, max_size=3),
    st.fractions(0, Fraction(99, 100), max_denominator=100),
)
def test_the_law_is_the_exact_one_where_it_exists(rho, qs, lam):
    # the same construction in exact arithmetic: U(lam) = eps - eps_sel - lam rho = 0, with
    # eps_sel = q11 + q01 the error among accepted samples. The three shares are drawn by stick
    # breaking, so that q11 + q10 + q01 <= 1 always holds (an assume() here discarded five draws
    # in six and failed Hypothesis's filter health check) and every point of the simplex,
    # its faces included, can be drawn
    f11, f10, f01 = qs
    q11, q10 = f11, (1 - f11) * f10
    q01 = (1 - f11) * (1 - f10) * f01
    a = lam + (q11 + q01 - (1 - rho) * (q11 + q10)) / rho
    assume(min(abs(a), abs(a - 1)) > 1e-9)  # where a rounds across 0 or 1, either answer holds
    args = [float(v) for v in (rho, q11, q10, q01)]
    if not 0 <= a <= 1:
        with pytest.raises(ValueError, match="no law with these rates has U"):
            null_boundary_law(*args, lam=float(lam))
        return
    exact = [rho * a, rho * (1 - a), (1 - rho) * q11, (1 - rho) * q10, (1 - rho) * q01,
             (1 - rho) * (1 - q11 - q10 - q01)]  # fmt: skip
    eps, eps_sel = exact[0] + exact[2] + exact[3], (exact[2] + exact[4]) / (1 - rho)
    assert sum(exact) == 1 and eps - eps_sel == lam * rho
    p = null_boundary_law(*args, lam=float(lam))
    # each cell a handful of roundings of inputs in [0, 1] and of a (whose own error is that of
    # a quotient by rho amplified by 1/rho <= 100): absolute error far below 1e-12
    np.testing.assert_allclose(p, [float(v) for v in exact], rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"rho": 0.0}, ValueError, r"rho must lie in \(0, 1\); got 0.0"),
        ({"rho": 1.0}, ValueError, r"rho must lie in \(0, 1\); got 1.0"),
        ({"rho": "0.3"}, TypeError, "rho"),
        ({"q10": -0.01}, ValueError, r"q10 must lie in \[0, 1\]; got -0.01"),
        ({"q01": float("nan")}, ValueError, "q01 must be finite"),
        ({"lam": 1.0}, ValueError, r"lam must lie in \[0, 1\); got 1.0"),
        ({"q11": 0.5, "q10": 0.3, "q01": 0.3}, ValueError, "q11 \\+ q10 \\+ q01 must be at most 1"),
        ({"rho": 0.05, "q11": 0.0, "q10": 0.5}, ValueError, r"would be a = .*, outside \[0, 1\]"),
    ],
)
def test_null_boundary_law_refuses_bad_arguments(kwargs, error, match):
    args = {"rho": 0.3, "q11": 0.1, "q10": 0.02, "q01": 0.05} | kwargs
    with pytest.raises(error, match=match):
        null_boundary_law(**args)


@pytest.mark.parametrize(
    ("cell", "rejected", "base_wrong", "selective_wrong"),
    [
        (0, True, True, False),
        (1, True, False, False),
        (2, False, True, True),
        (3, False, True, False),
        (4, False, False, True),
        (5, False, False, False),
    ],
)
def test_each_cell_gives_its_indicators(cell, rejected, base_wrong, selective_wrong):
    law = np.eye(6)[cell]
    bw, aw, rej = draw_calibration_outcomes(np.random.default_rng(0), law, 5)
    assert bw.dtype == aw.dtype == rej.dtype == bool
    assert (rej == rejected).all() and (bw == base_wrong).all() and (aw == selective_wrong).all()


def test_draws_follow_the_generator_and_advance_it():
    law = null_boundary_law(*NULL_BOUNDARY_LAWS["moderate"])
    rng = np.random.default_rng(3)
    first, second = draw_calibration_outcomes(rng, law, 50), draw_calibration_outcomes(rng, law, 50)
    cells = np.random.default_rng(3).choice(6, size=100, p=law)
    for drawn, part in ((first, cells[:50]), (second, cells[50:])):
        np.testing.assert_array_equal(drawn[2], part <= 1)
        np.testing.assert_array_equal(drawn[0], np.isin(part, (0, 2, 3)))
    seeded = draw_calibration_outcomes(3, law, 50)
    for a, b in zip(seeded, first, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    ("rng", "law", "n", "error", "match"),
    [
        (0, np.full(6, 1 / 6), 0, ValueError, "n must be an int of at least 1; got 0"),
        (0, np.full(6, 1 / 6), 2.0, TypeError, "n must be an int of at least 1"),
        (0, np.full(5, 0.2), 3, ValueError, r"law must be 6 probabilities, of shape \(6,\); got"),
        (0, [0.5, 0.6, -0.1, 0, 0, 0], 3, ValueError, r"law must lie in \[0, inf\); got -0.1"),
        (0, [0.5, 0.5, 0.1, 0, 0, 0], 3, ValueError, "law must sum to 1; its 6 probabilities sum"),
        (0, [0.5, 0.5, np.nan, 0, 0, 0], 3, ValueError, "law must be finite"),
        (0, ["a"] * 6, 3, TypeError, "law"),
        ("seed", np.full(6, 1 / 6), 3, TypeError, "rng must be None"),
    ],
)
def test_draw_calibration_outcomes_refuses_bad_arguments(rng, law, n, error, match):
    with pytest.raises(error, match=match):
        draw_calibration_outcomes(rng, law, n)
