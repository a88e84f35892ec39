"""The test command's own configuration (``tests/conftest.py``): one verdict for one checkout.

Each test runs pytest in a fresh interpreter, with ``tests/conftest.py`` loaded as a plugin, on a
tiny property test in a temporary folder that records the examples hypothesis drew and the
settings it drew them under. About a second per run.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

PROBE = """
import json, os
import hypothesis as hy

DRAWS = []


@hy.given(hy.strategies.integers())
def test_draws(x):
    DRAWS.append(x)


def test_record():
    current = hy.settings.default
    with open(os.environ["GCUL_PROBE_OUT"], "w") as out:
        json.dump(
            {
                "profile": hy.settings.get_current_profile_name(),
                "derandomize": current.derandomize,
                "database": repr(current.database),
                "draws": DRAWS,
            },
            out,
        )
"""


def run_probe(
    folder: Path, *args: str, **variables: str | None
) -> tuple[subprocess.CompletedProcess, dict]:
    """Run the probe under tests/conftest.py; ``variables`` set (or, as None, unset) variables."""
    (folder / "test_probe.py").write_text(PROBE)
    (folder / "pytest.ini").write_text("[pytest]\n")  # not the project's configuration
    record = folder / "record.json"
    record.unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "GCUL_HYPOTHESIS_PROFILE")}
    env.pop("PYTEST_ADDOPTS", None)
    for name, value in variables.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    env["GCUL_PROBE_OUT"] = str(record)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(TESTS), env.get("PYTHONPATH")) if p)
    command = [sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider"]
    done = subprocess.run(
        [*command, *args, "test_probe.py"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done, (json.loads(record.read_text()) if record.exists() else {})


@pytest.mark.slow  # 7 s: pytest subprocesses, with and without CI set
def test_the_readme_command_is_derandomised_without_a_database_whether_or_not_ci_is_set(tmp_path):
    runs = [
        run_probe(tmp_path, CI=None),
        run_probe(tmp_path, CI=None),
        run_probe(tmp_path, CI="1"),
        run_probe(tmp_path, CI="false"),
    ]
    for done, record in runs:
        assert done.returncode == 0, done.stdout + done.stderr
        assert record["derandomize"] is True
        assert record["database"] == "None"
        assert record["profile"] == "ci"
        assert "hypothesis profile 'ci'" in done.stdout and "derandomised" in done.stdout
        assert len(record["draws"]) >= 50
    # the same examples on every run, with CI unset or set
    assert all(record["draws"] == runs[0][1]["draws"] for _, record in runs)
    assert not (tmp_path / ".hypothesis" / "examples").exists()


@pytest.mark.slow  # three pytest runs in fresh interpreters
def test_the_dev_profile_names_its_seed_and_the_seed_replays_the_run(tmp_path):
    first, drawn = run_probe(tmp_path, GCUL_HYPOTHESIS_PROFILE="dev")
    assert first.returncode == 0, first.stdout + first.stderr
    found = re.search(r"randomised with seed (\d+)", first.stdout)
    assert found, first.stdout
    assert drawn["profile"] == "dev" and drawn["derandomize"] is False
    assert drawn["database"] == "None"
    again, replayed = run_probe(
        tmp_path, f"--hypothesis-seed={found[1]}", GCUL_HYPOTHESIS_PROFILE="dev"
    )
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"randomised with seed {found[1]}" in again.stdout
    assert replayed["draws"] == drawn["draws"]
    other, elsewhere = run_probe(
        tmp_path, f"--hypothesis-seed={int(found[1]) + 1}", GCUL_HYPOTHESIS_PROFILE="dev"
    )
    assert other.returncode == 0 and elsewhere["draws"] != drawn["draws"]
    assert not (tmp_path / ".hypothesis" / "examples").exists()


def test_an_unknown_profile_is_refused_naming_the_choices(tmp_path):
    done, record = run_probe(tmp_path, GCUL_HYPOTHESIS_PROFILE="fast")
    assert done.returncode == 4 and record == {}
    assert "ci, dev, deep" in done.stderr and "'fast'" in done.stderr
    assert "Traceback" not in done.stderr


# ---------------------------------------------------------------------------------------------
# The two tiers: the README's `python -m pytest` runs the fast one, `-m slow` the other, CI both

ROOT = TESTS.parent
README_COMMAND = 'python -m pip install -e ".[test]" && python -m pytest'

TIERS_PROBE = """
import pytest


def test_fast():
    pass


@pytest.mark.slow
def test_slow():
    pass
"""


def _tier_run(folder: Path, *args: str) -> subprocess.CompletedProcess:
    """pytest on TIERS_PROBE under the project's own addopts and markers (pyproject.toml)."""
    import shlex
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11 (job 1); job 2's 3.10 has none

    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    options = options["tool"]["pytest"]["ini_options"]
    markers = "".join(f"\n    {marker}" for marker in options["markers"])
    (folder / "pytest.ini").write_text(
        f"[pytest]\naddopts = {shlex.join(options['addopts'])}\nmarkers ={markers}\n"
    )
    (folder / "test_tiers.py").write_text(TIERS_PROBE)
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-v", *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow  # 5 s: pytest subprocesses collecting both tiers
def test_the_readme_command_runs_the_fast_tier_and_minus_m_slow_the_slow_one(tmp_path):
    # Before the tiers, `python -m pytest` ran the slow tests too (the marker only let a run
    # deselect them): 2,706 tests, 338-393 s on an idle 2-core CI machine (issue 32).
    default = _tier_run(tmp_path)
    assert default.returncode == 0, default.stdout + default.stderr
    assert "test_fast PASSED" in default.stdout and "test_slow" not in default.stdout
    assert "1 passed, 1 deselected" in default.stdout
    slow = _tier_run(tmp_path, "-m", "slow")  # a later -m replaces the one in addopts
    assert slow.returncode == 0, slow.stdout + slow.stderr
    assert "test_slow PASSED" in slow.stdout and "test_fast" not in slow.stdout
    every = _tier_run(tmp_path, "-m", "slow or not slow")
    assert "2 passed" in every.stdout, every.stdout


def test_ci_runs_the_readme_command_then_the_slow_tier_and_contributing_says_so():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert README_COMMAND in readme
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    readme_at = ci.index(README_COMMAND)  # the README's command, exactly, as a line of its own
    assert ci[readme_at + 1] == "python -m pytest -m slow"  # then the slow tier, same venv
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert "python -m pytest -m slow" in contributing
