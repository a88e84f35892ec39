"""Shared pytest configuration: hypothesis profiles and a matplotlib fixture.

Hypothesis profiles (chosen by ``GCUL_HYPOTHESIS_PROFILE``, else by the ``CI`` variable):

``ci``
    Derandomised (each test's examples derive from the test itself, no example database), so a
    CI failure reproduces exactly by running the same command again. The default when ``CI`` is
    set, as it is on the project's CI.
``dev``
    Randomised and deeper (300 examples per test), for local runs; the default otherwise. A
    failure prints its ``@reproduce_failure`` blob and the seed to pass as
    ``--hypothesis-seed`` to replay it.
``deep``
    Randomised, 3000 examples per test: a long search before a release.

``deadline=None`` everywhere: these machines are shared and noisy. The pytest header names the
profile and the seed in use.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

_COMMON = {"deadline": None, "print_blob": True, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("ci", derandomize=True, database=None, max_examples=100, **_COMMON)
settings.register_profile("dev", derandomize=False, max_examples=300, **_COMMON)
settings.register_profile("deep", derandomize=False, max_examples=3000, **_COMMON)

_ON_CI = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
PROFILE = os.environ.get("GCUL_HYPOTHESIS_PROFILE", "ci" if _ON_CI else "dev")
settings.load_profile(PROFILE)


def pytest_report_header(config: pytest.Config) -> str:
    seed = config.getoption("hypothesis_seed", default=None)
    if settings.default.derandomize:
        how = "derandomised: rerun the same command to reproduce a failure"
    elif seed is not None:
        how = f"seed {seed}"
    else:
        how = (
            "randomised: a failure prints the @reproduce_failure blob to replay it; "
            "GCUL_HYPOTHESIS_PROFILE=ci gives CI's derandomised search"
        )
    return f"gcul: hypothesis profile {PROFILE!r} ({settings.default.max_examples} examples), {how}"


@pytest.fixture
def pyplot():
    """Matplotlib's pyplot on the non-interactive Agg backend; closes every figure after the test."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")
