"""simulations.figures.overlap: which curves of a panel lie on one another, and how a legend
names them (issue 32: five curves on zero together at σ = 2, two of them unseen)."""

from __future__ import annotations

import numpy as np

from simulations.figures import Coincidence, coincidence_notes, coinciding_curves

X = np.arange(1, 101) / 100  # coverage 0.01 .. 1.00


def test_curves_on_one_another_form_one_group_with_their_run():
    zero_then_up = np.where(X <= 0.8, 0.0, X - 0.8)
    curves = {
        "gcul": (X, zero_then_up),
        "msp": (X, zero_then_up + 0.001),  # within tol everywhere
        "bayes": (X, np.where(X <= 0.9, 0.0, X - 0.9)),  # at 0.81 msp is 0.011 above it
        "knn": (X, 0.3 + 0 * X),  # nowhere near
    }
    (group,) = coinciding_curves(curves, tol=0.01)
    assert group.names == ("gcul", "msp", "bayes")
    # all three within 0.01 of one another from 0.01 up to 0.80; msp 0.001 above the others
    assert (group.low, group.high) == (0.01, 0.8)
    assert group.risk == (0.0, 0.001) and group.spread == 0.001


def test_a_short_run_or_another_grid_is_no_coincidence():
    apart = np.where(X <= 0.2, 0.0, 0.5)  # together on 20 of 100 points only
    assert coinciding_curves({"a": (X, 0 * X), "b": (X, apart)}, tol=0.01) == []
    # the same values on another coverage grid (another test split) are not compared
    other = X * 0.99
    assert coinciding_curves({"a": (X, 0 * X), "b": (other, 0 * X)}, tol=0.01) == []
    # a lower share admits the short run
    (group,) = coinciding_curves({"a": (X, 0 * X), "b": (X, apart)}, tol=0.01, min_share=0.2)
    assert (group.low, group.high, group.risk) == (0.01, 0.2, (0.0, 0.0))


def test_groups_are_disjoint_and_led_by_the_topmost_curve():
    low, high = 0.1 + 0 * X, 0.4 + 0 * X
    curves = {"gcul": (X, low), "knn": (X, high), "msp": (X, low), "mahalanobis": (X, high)}
    groups = coinciding_curves(curves, tol=0.01)
    assert [g.names for g in groups] == [("gcul", "msp"), ("knn", "mahalanobis")]


def test_notes_name_each_group_in_the_given_order():
    labels = {"gcul": "GCUL", "msp": "MSP", "entropy": "Entropy", "bayes": "Bayes (oracle)"}
    order = ["gcul", "msp", "entropy", "bayes"]
    zero = Coincidence(("bayes", "msp", "gcul"), 0.04, 0.83, 0.0, (0.0, 0.0))
    near = Coincidence(("msp", "bayes"), 0.32, 0.57, 0.008, (0.24, 0.342))
    notes = coincidence_notes({"σ = 2": [zero], "σ = 12": [near], "σ = 6": []}, labels, order)
    assert notes == [
        "σ = 2: GCUL, MSP and Bayes (oracle) coincide (zero risk) for coverage 0.04–0.83",
        "σ = 12: MSP and Bayes (oracle) coincide (risk 0.240–0.342) for coverage 0.32–0.57",
    ]
    assert coincidence_notes({"": [near]}, labels, order)[0].startswith("MSP and Bayes")
