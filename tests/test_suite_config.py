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
