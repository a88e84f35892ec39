"""No module of gcul_theory, proofs or simulations, and no script of benchmarks/ or docs/, uses a
private name (``_x``) of another module.

A helper that another module needs gets a public name in its own (possibly private) module, and
what another *package* needs is public API (``gcul_theory.hoeffding_deviation``,
``gcul_theory.critical_lambda_from_rates``, ...). Read from the source, at every level
(``_module_graph``): ``from X import _name``, ``X._name`` through a bound module, and across
packages any private module (``from gcul_theory._report import ...``). The final step of the
refactor (issue 15, step 8) added ``simulations`` to ``PACKAGES``; issue 33 added the scripts of
``benchmarks/`` and ``docs/`` (the Sphinx extension), which use the packages' public names only.
"""

from __future__ import annotations

import pytest
from _module_graph import PROJECT, ROOT, package_modules, private_uses, project_uses, uses

PACKAGES = ("gcul_theory", "proofs", "simulations")
#: The folders of scripts that use the packages: the studies and the documentation's extension.
SCRIPTS = ("benchmarks", "docs")
SCANNED = PACKAGES + SCRIPTS

#: Studies that measure an internal on purpose, each for a reason no public name would serve.
CERTIFIED = ("a design study of the betting bound of certified_lambda: it re-runs the bound with "
             "other δ shares, bet caps and bet levels (variants the package does not offer, some "
             "not valid), so it calls and re-tunes the construction's own parts")
ORTHANT = ("measures the Genz integration behind 'gaussian_exact' (its point count, its standard "
           "error, the scipy path it replaced), internal on purpose (_orthant's __all__ is empty); "
           "users reach it through capture_rate_bound")
UNCLIPPED = ("evaluates S_GCUL on the paper's unclipped readings (r1 outside [0, 1] or below r2), "
             "which the public selectivity_score refuses on purpose")
SPLIT_STEPS = ("measures gcul compare's split step by step: it runs the split's own row gather "
               "and wraps the K-Means inside GCUL.fit to measure it apart (no public hook should "
               "exist)")

#: (importer module, used module, name or None): the reason it is allowed.
ALLOWED: dict[tuple[str, str, str | None], str] = {
    **{('benchmarks.certified_delta_monotone', 'gcul_theory._certified', name): CERTIFIED
       for name in (None, '_SIDE_SHARE', '_cp_two_sided', '_two_group_bound', 'last_positive')},
    **{('benchmarks.certified_tightening', 'gcul_theory._certified', name): CERTIFIED
       for name in (None, '_CAP', '_SIDE_SHARE', '_cp_two_sided', '_two_group_bound')},
    **{('benchmarks.orthant', 'gcul_theory._orthant', name): ORTHANT
       for name in ('ORTHANT_SEED', 'crossable', 'orthant_probability', 'upper_orthant')},
    ('benchmarks.orthant', 'gcul_theory._predictors', 'thresholds'): ORTHANT,
    ('benchmarks.orthant_accuracy', 'gcul_theory._orthant', None): ORTHANT,
    ('benchmarks.orthant_accuracy', 'gcul_theory._orthant', 'ORTHANT_POINTS'): ORTHANT,
    ('benchmarks.orthant_accuracy', 'gcul_theory._predictors', None): ORTHANT,
    ('benchmarks.orthant_accuracy', 'gcul_theory._predictors', 'thresholds'): ORTHANT,
    ('benchmarks.paper_estimator', 'gcul_theory._selectivity', 'selectivity_unchecked'): UNCLIPPED,
    ('benchmarks.paper_scale', 'simulations._guided_clustering', None): SPLIT_STEPS,
    ('benchmarks.paper_scale', 'simulations._guided_clustering', 'lloyd'): SPLIT_STEPS,
    ('benchmarks.paper_scale', 'simulations.compare.protocol', '_rows_float64'): SPLIT_STEPS,
}


@pytest.mark.slow  # 4 s: parses every module of the repository
def test_no_module_uses_a_private_name_of_another_module():
    found = [
        u
        for u in private_uses(project_uses(SCANNED))
        if (u.importer, u.target, u.name) not in ALLOWED
    ]
    assert not found, "\n".join(
        f"{u.importer} line {u.line} uses {u.target}{'.' + u.name if u.name else ''}: {u.how}"
        for u in found
    )


@pytest.mark.slow  # 4 s: parses every module of the repository
def test_every_allowed_entry_is_still_needed_and_says_why():
    found = {(u.importer, u.target, u.name) for u in private_uses(project_uses(SCANNED))}
    for key, reason in ALLOWED.items():
        assert key in found, f"{key} is allowed but no longer used: remove it"
        assert len(reason) > 20, key


KNOWN = {"gcul_theory", "gcul_theory._geometry", "gcul_theory._tails", "gcul_theory._predictors",
         "gcul_theory._report", "proofs", "proofs._space", "proofs._runner"}  # fmt: skip


@pytest.mark.parametrize(
    ("importer", "source", "flagged"),
    [
        # the patterns this refactor removed, each refused
        (
            "gcul_theory._finite_sample",
            "from ._geometry import _scaled",
            ["gcul_theory._geometry._scaled"],
        ),
        (
            "gcul_theory._bounds",
            "from ._tails import _chernoff_tail as t",
            ["gcul_theory._tails._chernoff_tail"],
        ),
        (
            "proofs._predictors",
            "def f():\n    from gcul_theory import _predictors as code\n    return code._hoeffding(1, 2)",
            ["gcul_theory._predictors", "gcul_theory._predictors._hoeffding"],
        ),
        (
            "proofs._x",
            "import gcul_theory as gt\ngt._predictors._boole(g)",
            ["gcul_theory._predictors", "gcul_theory._predictors._boole"],
        ),
        (
            "proofs._x",
            "from gcul_theory._report import guarantee_phrase",
            ["gcul_theory._report.guarantee_phrase"],
        ),
        ("proofs._x", "import gcul_theory._report", ["gcul_theory._report"]),
        # how a package is built, each allowed
        ("gcul_theory._bounds", "from ._geometry import Geometry", []),
        ("proofs._runner", "from . import _space\n_space.CLAIMS", []),
        ("proofs._x", "import gcul_theory as gt\ngt.hoeffding_deviation(1, 2.0)", []),
        ("gcul_theory._x", "import numpy as np\nnp._NoValue", []),
        ("gcul_theory._x", "from ._tails import __all__", []),
    ],
)
def test_the_check_tells_private_from_public(importer, source, flagged):
    found = private_uses(uses(importer, source, KNOWN))
    assert sorted({u.target + (f".{u.name}" if u.name else "") for u in found}) == sorted(flagged)


def test_the_check_reads_every_module_of_the_packages():
    for package in PACKAGES:
        modules = package_modules(package)
        assert f"{package}" in modules and len(modules) > 10
    assert set(PACKAGES) <= set(PROJECT) and (ROOT / "simulations").is_dir()
    scripts = {name for folder in SCRIPTS for name in package_modules(folder)}
    assert {"docs._ext.gcul_docs", "docs.conf", "benchmarks.regime_map"} <= scripts


def test_the_docs_extension_uses_proofs_public_citations_only():
    # it imported proofs._citations._NAMED and ._section and proofs._paper_labels (issue 33 item 5)
    found = [u for u in project_uses(("docs",)) if u.importer == "docs._ext.gcul_docs"]
    assert not private_uses(found)
    assert {u.name for u in found if u.target == "proofs.citations"} == {"cite_rest"}
    assert not [u for u in found if u.target.startswith("proofs._")]
