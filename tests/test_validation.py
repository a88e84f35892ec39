"""simulations.validation: the scalar checks at the public boundary (used by simulations.demo)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simulations import demo
from simulations.validation import argument_namer, check_int, check_real


@pytest.mark.parametrize(
    ("kwargs", "value", "expected"),
    [
        ({"low": 0.0, "high": 1.0}, 0, 0.0),
        ({"low": 0.0, "high": 1.0}, 1, 1.0),  # closed ends are allowed
        ({"low": 0.0, "high": 1.0}, np.float32(0.5), 0.5),
        ({"low": 0.0}, 1e300, 1e300),  # no upper end
        ({"high": 0.0}, -1e300, -1e300),  # no lower end
    ],
)
def test_check_real_accepts_and_returns_a_float(kwargs, value, expected):
    result = check_real("x", value, **kwargs)
    assert type(result) is float and result == expected


@pytest.mark.parametrize(
    ("value", "kwargs", "error", "message"),
    [
        (0.0, {"open_low": True}, ValueError, r"x must be in \(0, 1\]; got 0.0"),
        (1.0, {"open_high": True}, ValueError, r"x must be in \[0, 1\); got 1.0"),
        (-0.5, {}, ValueError, r"x must be in \[0, 1\]; got -0.5"),
        (math.nan, {}, ValueError, r"x must be in \[0, 1\]; got nan"),
        (math.inf, {}, ValueError, r"got inf"),
        (True, {}, TypeError, r"x must be a real number; got True \(bool\)"),
        ("0.5", {}, TypeError, r"x must be a real number; got '0.5' \(str\)"),
        (None, {}, TypeError, r"got None \(NoneType\)"),
    ],
)
def test_check_real_refuses_naming_the_argument_range_and_value(value, kwargs, error, message):
    with pytest.raises(error, match=message):
        check_real("x", value, 0.0, 1.0, **kwargs)


def test_an_unbounded_end_is_said_as_inf():
    with pytest.raises(ValueError, match=r"x must be in \[0, inf\); got -1"):
        check_real("x", -1, 0.0)
    with pytest.raises(ValueError, match=r"x must be in \(-inf, 0\]; got nan"):
        check_real("x", math.nan, high=0.0)


def test_check_int():
    assert check_int("n", np.int64(7), 0, 10) == 7 and type(check_int("n", 7, 0, 10)) is int
    assert check_int("n", 10**30, 0) == 10**30  # no upper end
    with pytest.raises(ValueError, match=r"n must be an integer in \[0, 10\]; got 11"):
        check_int("n", 11, 0, 10)
    with pytest.raises(ValueError, match=r"n must be an integer <= 3; got 4"):
        check_int("n", 4, high=3)
    with pytest.raises(ValueError, match=r"n must be an integer >= 2; got 1"):
        check_int("n", 1, 2)
    with pytest.raises(TypeError, match=r"n must be an integer; got 1.5 \(float\)"):
        check_int("n", 1.5)
    for bad in (3.0, True, "3", None):
        with pytest.raises(TypeError, match=r"n must be an integer in \[0, 10\]; got "):
            check_int("n", bad, 0, 10)


def test_demo_refuses_a_float_where_an_integer_is_due_with_a_type_error():
    # demo's own _check_int raised ValueError for n_draws=1e6 (a float): a wrong type is a
    # TypeError, as everywhere else in the package
    with pytest.raises(TypeError, match=r"n_draws must be an integer in \[1000, 10000000\]"):
        demo.figure_tails(n_draws=1e6)
    with pytest.raises(TypeError, match=r"seed must be an integer in \[0, 4294967295\]"):
        demo.fit_2d(seed=True)


def test_argument_namer_serves_compare_and_reproduce_alike():
    name = argument_namer({"lam": "--lam"})
    assert (name("lam"), name("seed")) == ("--lam", "seed")
    assert argument_namer(None)("out") == "out"
    with pytest.raises(TypeError, match="names must be a mapping of argument names or None; got 3"):
        argument_namer(3)
