"""Shared pytest configuration: hypothesis profiles and a matplotlib fixture.

Hypothesis runs a deterministic profile by default (``derandomize=True`` so CI
is reproducible, ``deadline=None`` because these machines are shared and noisy).
Set ``GCUL_HYPOTHESIS_PROFILE=ci-heavy`` for a longer, randomised search.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "default",
    derandomize=True,
    deadline=None,
    max_examples=100,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "ci-heavy",
    derandomize=False,
    deadline=None,
    max_examples=2000,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("GCUL_HYPOTHESIS_PROFILE", "default"))


@pytest.fixture
def pyplot():
    """Matplotlib's pyplot on the non-interactive Agg backend; closes every figure after the test."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")
