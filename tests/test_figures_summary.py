"""simulations.figures.summary: across-seed statistics of a results column."""

from __future__ import annotations

import numpy as np
import pytest
from _figure_data import make_rows

from simulations.figures import summarize_across_seeds


def test_summary_percentiles_are_checked():
    rows = make_rows(seeds=(10, 11), n_levels=2)
    with pytest.raises(ValueError, match=r"spread must be percentages 0 <= p <= q <= 100"):
        summarize_across_seeds(rows, "lambda_emp", spread=(90.0, 10.0))


def test_summary_across_seeds():
    rows = make_rows()
    summary = summarize_across_seeds(rows, "lambda_emp")
    values = np.array([r["lambda_emp"] for r in rows]).reshape(3, 41)
    np.testing.assert_array_equal(summary.low, values.min(axis=0))  # selections: exact
    np.testing.assert_array_equal(summary.high, values.max(axis=0))
    assert np.all(summary.n_seeds == 3)
