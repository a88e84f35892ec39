"""The packages type-check: ``python -m mypy gcul_theory simulations proofs`` reports no error.

The packages ship ``py.typed`` (PEP 561), so their annotations are part of the API. mypy's whole
configuration is ``[tool.mypy]`` in pyproject.toml (the command needs no flags); its cache goes
into a temporary folder, never into the checkout. A cold run takes about 7 s of CPU.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10: mypy itself depends on tomli there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("gcul_theory", "simulations", "proofs")
MYPY_TIMEOUT = 900  # seconds; a guard against a hang, not a speed requirement


@pytest.mark.slow  # mypy over the three packages: about 20 s
def test_mypy_reports_no_error(tmp_path):
    command = [sys.executable, "-m", "mypy", *PACKAGES, "--cache-dir", str(tmp_path / "cache")]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=MYPY_TIMEOUT)
    output = (done.stdout + done.stderr).strip()
    assert done.returncode == 0, f"{' '.join(command[1:])} failed:\n{output[-8000:]}"
    assert output.startswith("Success: no issues found"), output[-8000:]


def test_every_package_ships_py_typed():
    for package in PACKAGES:
        assert (ROOT / package / "py.typed").is_file(), f"{package}/py.typed is missing"


def _mypy_config() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["mypy"]


def test_missing_imports_are_ignored_only_for_untyped_third_party_packages():
    # An override may only name an installed third-party package that ships no type hints:
    # not one of ours, and not one that has since gained a py.typed (then it must be checked).
    config = _mypy_config()
    assert "ignore_missing_imports" not in config, "only per-module overrides may ignore imports"
    named = [
        module
        for override in config.get("overrides", [])
        if override.get("ignore_missing_imports")
        for module in override["module"]
    ]
    assert named
    for module in named:
        top = module.removesuffix(".*").split(".")[0]
        assert top not in PACKAGES, f"override {module!r} names one of the package's own modules"
        spec = importlib.util.find_spec(top)
        if spec is None:  # pragma: no cover - the test extra installs every one of them
            pytest.fail(f"override {module!r}: {top} is not installed")
        # a single-module distribution (threadpoolctl.py) cannot ship py.typed (PEP 561)
        for location in spec.submodule_search_locations or ():
            assert not (Path(location) / "py.typed").exists(), (
                f"{top} ships py.typed now: remove {module!r} from the mypy overrides"
            )


_IGNORE = re.compile(r"#\s*type:\s*ignore(?P<codes>\[[^\]]*\])?(?P<rest>.*)$")


def test_every_type_ignore_names_its_error_code_and_says_why():
    # `# type: ignore[code]` only, with the reason in a comment after it or on the line above.
    bad = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            lines = path.read_text(encoding="utf-8").splitlines()
            for number, line in enumerate(lines, start=1):
                match = _IGNORE.search(line)
                if match is None:
                    continue
                where = f"{path.relative_to(ROOT)}:{number}"
                if not match["codes"] or match["codes"] == "[]":
                    bad.append(f"{where}: no error code")
                    continue
                reason_after = match["rest"].strip().startswith("#")
                above = lines[number - 2].strip() if number >= 2 else ""
                if not (reason_after or above.startswith("#")):
                    bad.append(f"{where}: no comment saying why")
    assert not bad, "\n".join(bad)
