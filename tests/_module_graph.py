"""The imports of the project's own modules, read from their source (``ast``), nothing imported.

Used by ``test_private_imports.py`` (no module imports a private name of another module) and
``test_import_graph.py`` (no import circle; the layers of ``proofs``). Every ``import`` statement
counts, at module level or inside a function (a lazy import hides a circle, it does not remove
it), and so does every attribute read through a name bound to a project module
(``code._hoeffding`` after ``from gcul_theory import _predictors as code``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The project's top-level packages: an import of one of them is an import of the project.
PROJECT = ("gcul_theory", "proofs", "simulations")


def is_private(name: str) -> bool:
    """``_x`` is private; dunders (``__init__``, ``__all__``) are not."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def package_modules(package: str, root: Path = ROOT) -> dict[str, Path]:
    """Every module of ``package`` (subpackages too), by dotted name: ``{"proofs._utility": path}``."""
    found = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


@dataclass(frozen=True)
class Use:
    """One use of a module by another: ``target`` (a module), and ``name`` if a name of it is used."""

    importer: str
    target: str
    name: str | None
    line: int
    how: str  # the source text of the statement or attribute read, for messages


def _package_of(module: str, is_package: bool) -> str:
    return module if is_package else module.rpartition(".")[0]


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = _package_of(module, is_package)
    for _ in range(node.level - 1):
        base = base.rpartition(".")[0]
    return f"{base}.{node.module}" if node.module else base


def uses(
    module: str,
    source: str,
    known: set[str],
    is_package: bool = False,
    project: tuple[str, ...] = PROJECT,
) -> list[Use]:
    """Every use, by ``module`` (its ``source``), of the modules in ``known`` and of their names.

    ``from M import n`` is a use of module ``M.n`` when that is a module in ``known``, else of the
    name ``n`` of ``M``; ``import M`` a use of ``M``; ``alias.attr`` and longer chains read
    through a name bound to a module of ``known`` are uses of the modules they pass and of the
    first attribute that is not a module.
    """
    tree = ast.parse(source)
    found: list[Use] = []
    bound: dict[str, str] = {}  # local name -> module it refers to

    def text(node: ast.AST) -> str:
        return ast.get_source_segment(source, node) or ast.dump(node)

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = _resolve(module, is_package, node)
            if base.split(".")[0] not in project:
                continue
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                if candidate in known:
                    found.append(Use(module, candidate, None, node.lineno, text(node)))
                    bound[alias.asname or alias.name] = candidate
                else:
                    found.append(Use(module, base, alias.name, node.lineno, text(node)))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] not in project:
                    continue
                found.append(Use(module, alias.name, None, node.lineno, text(node)))
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    bound[top] = top
    inner_links = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    for node in ast.walk(tree):
        # the outermost attribute chains rooted at a bound name: a.b.c -> ("a", ["b", "c"])
        if not isinstance(node, ast.Attribute) or id(node) in inner_links:
            continue
        chain, inner = [], node
        while isinstance(inner, ast.Attribute):
            chain.append(inner.attr)
            inner = inner.value
        if not isinstance(inner, ast.Name) or inner.id not in bound:
            continue
        chain.reverse()
        current = bound[inner.id]
        for attr in chain:
            if f"{current}.{attr}" in known:
                current = f"{current}.{attr}"
                found.append(Use(module, current, None, node.lineno, text(node)))
                continue
            found.append(Use(module, current, attr, node.lineno, text(node)))
            break
    return found


def project_uses(packages: tuple[str, ...], root: Path = ROOT) -> list[Use]:
    """The uses made by every module of ``packages``, of any module of the project."""
    known: set[str] = set()
    for package in PROJECT:
        if (root / package).is_dir():
            known |= set(package_modules(package, root))
    out = []
    for package in packages:
        for name, path in package_modules(package, root).items():
            source = path.read_text(encoding="utf-8")
            out.extend(uses(name, source, known, is_package=path.name == "__init__.py"))
    return out


def private_uses(found: list[Use]) -> list[Use]:
    """The uses of a private name of another module, or of a private module of another package.

    Inside one package, importing a sibling module whose file name is private (``from ._geometry
    import Geometry``, ``from . import _utility``) is how the package is built; what is refused is
    a private *name* of another module (``from ._tails import _gaussian_tail``,
    ``code._hoeffding``) and, across packages, any private module (``from gcul_theory._report
    import guarantee_phrase``, ``import gcul_theory._certified``).
    """
    bad = []
    for use in found:
        if use.target == use.importer:
            continue
        if use.name is not None and is_private(use.name):
            bad.append(use)
            continue
        other_package = use.target.split(".")[0] != use.importer.split(".")[0]
        if other_package and any(is_private(part) for part in use.target.split(".")[1:]):
            bad.append(use)
    return bad


def import_graph(found: list[Use], nodes: tuple[str, ...] = ()) -> dict[str, set[str]]:
    """Module -> the project modules it imports (a name of a module counts as the module).

    ``nodes`` are modules to include even if they import nothing of the project.
    """
    graph: dict[str, set[str]] = {node: set() for node in nodes}
    for use in found:
        graph.setdefault(use.importer, set())
        if use.target != use.importer:
            graph[use.importer].add(use.target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out
