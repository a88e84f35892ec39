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


def test_licence_file_is_the_declared_bsd_3_clause():
    assert 'license = { text = "BSD-3-Clause" }' in _pyproject()
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


def test_every_subpackage_is_shipped():
    # `packages = ["gcul_theory", "simulations", "proofs"]` left simulations.rejectors (and the
    # new simulations.figures and simulations.demo) out of every wheel and sdist build
    import warnings

    from setuptools.config.pyprojecttoml import read_configuration

    with warnings.catch_warnings():  # setuptools calls its [tool.setuptools] support "beta"
        warnings.simplefilter("ignore")
        config = read_configuration(REPO / "pyproject.toml")
    shipped = set(config["tool"]["setuptools"]["packages"])
    on_disk = {
        ".".join(init.parent.relative_to(REPO).parts)
        for package in PACKAGES
        for init in (REPO / package).rglob("__init__.py")
    }
    assert on_disk <= shipped, sorted(on_disk - shipped)
    assert {"simulations.figures", "simulations.demo", "simulations.rejectors"} <= on_disk
