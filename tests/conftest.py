"""Shared pytest configuration: hypothesis profiles, the fast-path switch and the fixtures
several modules use.

``python -m pytest`` (the README's test command) gives one verdict for one checkout: hypothesis
runs **derandomised and without an example database**, whether or not ``CI`` is set, so every
run on every machine tries the same examples and a failure reproduces by running the same command
again. The randomised, deeper search is a separate command for developers, to run with many seeds
before a change is finished.

Hypothesis profiles (``GCUL_HYPOTHESIS_PROFILE=NAME`` or ``--hypothesis-profile=NAME``):

``ci``
    The default. Derandomised (each test's examples derive from a hash of the test itself),
    100 examples per test, no example database. The name says that the README's command and the
    project's CI (``.ci/run`` runs that command) are the same search.
``dev``
    Randomised, 300 examples per test, no example database. The run's seed is
    ``--hypothesis-seed=N`` if given, else one drawn here; either way the header names it, and
    rerunning with ``--hypothesis-seed=N`` replays the whole run example for example.
``deep``
    Randomised as ``dev``, 3000 examples per test: a long search before a release.

The developer's randomised search over the property tests (20 seeds; all must pass)::

    for s in $(seq 1 20); do
        GCUL_HYPOTHESIS_PROFILE=dev python -m pytest -p no:cacheprovider -q -m "not slow" \
            --hypothesis-seed=$s $(grep -l "from hypothesis" tests/test_*.py) || echo "seed $s"
    done

No profile uses an example database (``.hypothesis/examples``). With one, a failure found once is
replayed first on every later run of that checkout: the verdict then depends on hidden local
state (a newcomer whose first run hit a too-tight tolerance saw the package "fail" forever),
and a seeded run is no longer a function of its seed. What a developer needs from a database is
the replay, and the seed gives it without state: the failing run's command replays it, and
hypothesis prints the shrunk example and its ``@reproduce_failure`` blob. A failure found that way
is then pinned in the test file with ``@example(...)``, where every run and every checkout
replays it.

``deadline=None`` everywhere: these machines are shared and noisy. The pytest header names the
profile, the number of examples and the seed in use.
"""

from __future__ import annotations

import os
import secrets

import pytest
from hypothesis import HealthCheck, settings

PROFILES = ("ci", "dev", "deep")
DEFAULT_PROFILE = "ci"

_COMMON = {
    "deadline": None,
    "print_blob": True,
    "database": None,
    "suppress_health_check": [HealthCheck.too_slow],
}
settings.register_profile("ci", derandomize=True, max_examples=100, **_COMMON)
settings.register_profile("dev", derandomize=False, max_examples=300, **_COMMON)
settings.register_profile("deep", derandomize=False, max_examples=3000, **_COMMON)


def _requested_profile(config: pytest.Config | None = None) -> str:
    """The profile asked for: ``--hypothesis-profile``, else the variable, else ``ci``."""
    option = config.getoption("hypothesis_profile", default=None) if config else None
    return option or os.environ.get("GCUL_HYPOTHESIS_PROFILE", "").strip() or DEFAULT_PROFILE


# Loaded when this file is imported, before any test module applies @given or @settings (both
# read settings.default then); pytest_configure below checks the name and handles the option.
if _requested_profile() in PROFILES:
    settings.load_profile(_requested_profile())


@pytest.hookimpl(tryfirst=True)  # before hypothesis' plugin reads --hypothesis-seed
def pytest_configure(config: pytest.Config) -> None:
    profile = _requested_profile(config)
    if profile not in PROFILES:
        raise pytest.UsageError(
            f"hypothesis profile must be one of {', '.join(PROFILES)} "
            f"(GCUL_HYPOTHESIS_PROFILE or --hypothesis-profile); got {profile!r}"
        )
    settings.load_profile(profile)
    if (
        not settings.default.derandomize
        and config.getoption("hypothesis_seed", default=None) is None
    ):
        # A randomised run without a seed gets one, so that the header can name it and
        # --hypothesis-seed replays the run exactly.
        config.option.hypothesis_seed = str(secrets.randbelow(10**6))


def pytest_report_header(config: pytest.Config) -> str:
    name = settings.get_current_profile_name()
    examples = settings.default.max_examples
    if settings.default.derandomize:
        how = (
            "derandomised, no example database: the same examples on every run; "
            "rerun the same command to reproduce a failure"
        )
    else:
        seed = config.getoption("hypothesis_seed", default=None)
        how = (
            f"randomised with seed {seed}, no example database: "
            f"--hypothesis-seed={seed} replays this run"
        )
    from simulations import _fastpaths

    switch = os.environ.get(_fastpaths.ENV_VAR)
    paths = "every portable path forced" if switch == "off" else "each where its probe holds"
    return [
        f"gcul: hypothesis profile {name!r} ({examples} examples per test), {how}",
        f"gcul: fast paths {_fastpaths.ENV_VAR}={switch or ''} ({paths}; gcul info)",
    ]


@pytest.fixture
def fast_paths(request, monkeypatch):
    """Run a test with the fast paths on (``GCUL_FAST_PATHS`` unset) or forced off, and the
    probes' verdicts forgotten before and after: parametrize it with ``["on", "off"]``
    (``indirect=True``), or use it unparametrized for fresh probes under the process's switch.
    Yields :mod:`simulations._fastpaths`."""
    from simulations import _fastpaths

    switch = getattr(request, "param", None)
    if switch == "on":
        monkeypatch.delenv(_fastpaths.ENV_VAR, raising=False)
    elif switch == "off":
        monkeypatch.setenv(_fastpaths.ENV_VAR, "off")
    _fastpaths.reset()
    yield _fastpaths
    _fastpaths.reset()


@pytest.fixture
def pyplot():
    """Matplotlib's pyplot on the non-interactive Agg backend; closes every figure after the test."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")


@pytest.fixture
def computed(monkeypatch):
    """Record every cell the sweep computes in this process (``n_jobs=1``): ``[(seed, σ)]``."""
    import simulations.sweep

    cells: list[tuple[int, float]] = []
    real = simulations.sweep.cell.compute_row

    def counting(seed, noise, config, **kwargs):
        cells.append((seed, noise))
        return real(seed, noise, config, **kwargs)

    monkeypatch.setattr(simulations.sweep.cell, "compute_row", counting)
    return cells


@pytest.fixture
def pool_sizes(monkeypatch):
    """Replace the sweep's ``joblib.Parallel`` by one that runs the tasks in this process and
    records the ``n_jobs`` of every pool the sweep asks for: the list, in order."""
    import simulations.sweep

    sizes: list[int] = []

    class RecordingParallel:
        def __init__(self, n_jobs, **kwargs):
            sizes.append(n_jobs)

        def __call__(self, tasks):
            return (function(*args, **kwargs) for function, args, kwargs in tasks)

    monkeypatch.setattr(simulations.sweep.backends, "Parallel", RecordingParallel)
    return sizes
