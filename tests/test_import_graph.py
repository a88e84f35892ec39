"""The import graph of ``gcul_theory`` and ``proofs``: no circle, and the layers of ``proofs``.

Edges are every import, at module level or inside a function (``_module_graph``): a lazy import
hides a circle from Python, not from this test (``proofs._criterion`` and ``proofs._utility``
imported each other, one of them lazily, before the expression builders moved to
``proofs._expressions``). The final step of the refactor (issue 15) adds ``simulations``.
"""

from __future__ import annotations

from _module_graph import cycles, import_graph, package_modules, project_uses, uses

PACKAGES = ("gcul_theory", "proofs")

#: The bottom layer of ``proofs``: it imports nothing else of ``proofs``.
PROOFS_BOTTOM = {"proofs._expressions", "proofs._lemmas", "proofs._symbolic", "proofs._result",
                 "proofs._trace", "proofs.citations"}  # fmt: skip
#: What runs and exports the claims: it may import any of them.
PROOFS_TOP = {"proofs", "proofs.__main__", "proofs._runner"}


def _graph(packages):
    modules = tuple(m for package in packages for m in package_modules(package))
    return import_graph(project_uses(packages), modules)


def test_no_import_circle():
    graph = _graph(PACKAGES)
    assert len(graph) > 30
    assert cycles(graph) == []


def test_proofs_claims_sit_on_the_bottom_layer_only():
    # Every claim module imports only the bottom layer (and gcul_theory), never another claim
    # module; the bottom layer imports only itself.
    graph = _graph(("proofs",))
    claim_modules = set(package_modules("proofs")) - PROOFS_BOTTOM - PROOFS_TOP
    assert len(claim_modules) >= 15
    for module in sorted(claim_modules):
        inside = {t for t in graph[module] if t.split(".")[0] == "proofs"}
        assert inside <= PROOFS_BOTTOM, (module, sorted(inside - PROOFS_BOTTOM))
    for module in sorted(PROOFS_BOTTOM):
        inside = {t for t in graph[module] if t.split(".")[0] == "proofs"}
        assert inside <= PROOFS_BOTTOM, (module, sorted(inside - PROOFS_BOTTOM))


def test_gcul_theory_imports_neither_simulations_nor_proofs():
    graph = _graph(("gcul_theory",))
    for module, targets in graph.items():
        assert all(t.split(".")[0] == "gcul_theory" for t in targets), (module, targets)


def test_a_lazy_import_circle_is_found():
    known, project = {"p", "p._a", "p._b"}, ("p",)
    found = uses("p._a", "from ._b import f\n", known, project=project) + uses(
        "p._b", "def g():\n    from ._a import h\n    return h\n", known, project=project
    )
    assert cycles(import_graph(found)) == [["p._a", "p._b"]]
    assert cycles(import_graph(found[:1])) == []


#: The only modules of ``simulations`` that import ``proofs``: where a user asks for a proof
#: (CONTRIBUTING.md, "Layers: what may import what").
SIMULATIONS_USING_PROOFS = {"simulations.cli.prove", "simulations.demo.proof", "simulations.demo.tails"}


def test_simulations_imports_proofs_only_where_a_user_asks_for_a_proof():
    graph = _graph(("gcul_theory", "proofs", "simulations"))
    using = {m for m, targets in graph.items() if m.startswith("simulations")
             and any(t.split(".")[0] == "proofs" for t in targets)}  # fmt: skip
    assert using == SIMULATIONS_USING_PROOFS
    for module, targets in graph.items():  # and nothing imports upwards into simulations
        if module.split(".")[0] in ("gcul_theory", "proofs"):
            assert not any(t.split(".")[0] == "simulations" for t in targets), (module, targets)


def test_a_benchmark_imports_no_other_benchmark_nor_a_test():
    """A benchmark is a driver of the packages' public API (CONTRIBUTING.md, "Layers: what may
    import what"): it imports no other benchmark or test module, by name or through ``sys.path``
    and a file loader."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    benchmarks = {p.stem for p in (root / "benchmarks").glob("*.py")}
    tests = {p.stem for p in (root / "tests").glob("*.py")}
    found = set()
    for path in sorted((root / "benchmarks").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            found |= {(path.stem, n.split(".")[0]) for n in names if n.split(".")[0] in benchmarks | tests}
        text = path.read_text(encoding="utf-8")
        if "sys.path.insert" in text or "spec_from_file_location" in text:
            found.add((path.stem, "a module loaded by path"))
    assert not found, sorted(found)
