"""Packaging metadata: one version everywhere, the declared licence shipped, type hints marked."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("gcul_theory", "simulations", "proofs")


def _pyproject() -> str:
    return (REPO / "pyproject.toml").read_text(encoding="utf-8")


def test_citation_version_and_licence_match_pyproject():
    citation = (REPO / "CITATION.cff").read_text(encoding="utf-8")
    declared = re.search(r'^version = "([^"]+)"', _pyproject(), flags=re.MULTILINE).group(1)
    assert re.search(r"^version: (\S+)$", citation, flags=re.MULTILINE).group(1) == declared
    assert re.search(r"^license: (\S+)$", citation, flags=re.MULTILINE).group(1) == "BSD-3-Clause"
    assert re.search(r"^cff-version: 1\.2\.0$", citation, flags=re.MULTILINE)
    # the paper the package implements is cited beside it
    assert "Cluster-Guided Learning" in citation


def _config() -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: pytest depends on tomli there
        import tomli as tomllib
    return tomllib.loads(_pyproject())


def test_licence_file_is_the_declared_bsd_3_clause():
    project = _config()["project"]
    # PEP 639: an SPDX expression and the files (the table form ends 2027-02-18), which needs
    # setuptools >= 77 to build
    assert project["license"] == "BSD-3-Clause"
    assert project["license-files"] == ["LICENSE"]
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]
    assert _config()["build-system"]["requires"] == ["setuptools>=77"]
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("BSD 3-Clause License\n")
    # the three clauses of the SPDX BSD-3-Clause text
    for clause in (
        "Redistributions of source code",
        "Redistributions in binary form",
        "Neither the name of the copyright holder",
    ):
        assert clause in text


@pytest.mark.parametrize("package", PACKAGES)
def test_every_package_is_marked_typed(package):
    assert (REPO / package / "py.typed").is_file()
    assert '"*" = ["py.typed"]' in _pyproject()


def test_the_papers_label_table_is_shipped_as_package_data():
    # proofs.citations reads proofs/paper_labels.csv through importlib.resources; a wheel without
    # it fails at import (issue 33 item 5: the table became data, no longer a Python module)
    data = _config()["tool"]["setuptools"]["package-data"]
    assert "paper_labels.csv" in data["proofs"]
    assert (REPO / "proofs" / "paper_labels.csv").is_file()


def test_every_subpackage_is_shipped():
    # `packages = ["gcul_theory", "simulations", "proofs"]` left simulations.rejectors (and the
    # new simulations.figures and simulations.demo) out of every wheel and sdist build. The
    # include patterns are matched as setuptools' find_packages matches them (fnmatch on the
    # dotted name), read with tomllib so that no installed setuptools version is assumed.
    from fnmatch import fnmatchcase

    patterns = _config()["tool"]["setuptools"]["packages"]["find"]["include"]
    on_disk = {
        ".".join(init.parent.relative_to(REPO).parts)
        for package in PACKAGES
        for init in (REPO / package).rglob("__init__.py")
    }
    shipped = {name for name in on_disk if any(fnmatchcase(name, p) for p in patterns)}
    assert on_disk <= shipped, sorted(on_disk - shipped)
    assert {"simulations.figures", "simulations.demo", "simulations.rejectors"} <= on_disk


def test_project_metadata_names_its_addresses_authors_and_classifiers():
    project = _config()["project"]
    urls = project["urls"]
    assert {"Repository", "Documentation", "Issues"} <= set(urls)
    assert urls["Issues"] == urls["Repository"] + "/issues"
    assert all(url.startswith("https://") for url in urls.values())
    assert project["authors"] and all(author.get("name") for author in project["authors"])
    classifiers = project["classifiers"]
    assert "Programming Language :: Python :: 3 :: Only" in classifiers
    assert "Typing :: Typed" in classifiers  # the packages ship py.typed


def test_sdist_manifest_holds_what_the_tests_read():
    """`pytest` on an unpacked sdist needs conftest, the helper modules, the notebooks the tests
    execute, the docs they build, the benchmark scripts they load and the files they read: the
    sdist once shipped tests/test_*.py alone (72 collection errors)."""
    manifest = (REPO / "MANIFEST.in").read_text(encoding="utf-8").splitlines()
    grafted = {line.split()[1] for line in manifest if line.startswith("graft ")}
    included = {
        word for line in manifest if line.startswith("include ") for word in line.split()[1:]
    }
    assert {"tests", "docs", "notebooks", "benchmarks"} <= grafted
    # every top-level file or folder that a test names under the checkout's root (ROOT, REPO
    # or parents[1], then a quoted name) is in the sdist
    named = set()
    for test in (REPO / "tests").glob("*.py"):
        source = test.read_text(encoding="utf-8")
        named |= set(re.findall(r'(?:ROOT|REPO|parents\[1\]) / "([^"/]+)"', source))
    automatic = {
        "pyproject.toml",
        "README.md",
        "LICENSE",
        "MANIFEST.in",
        *PACKAGES,
    }  # setuptools adds these
    missing = {name for name in named if name not in grafted | included | automatic}
    assert not missing, sorted(missing)
    for name in included:
        assert (REPO / name).is_file(), name
