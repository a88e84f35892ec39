"""Record the steps of one derivation so ``--claim ID`` can print them (no claim lives here).

A check records the expressions it works with through :func:`step`; outside :func:`tracing` the
call does nothing, so the normal run pays nothing. :func:`tracing` also wraps the helpers
``show`` and ``is_identity`` in every claim module's namespace for the duration of one check,
so the derivations that do not call :func:`step` themselves still yield their expressions and
identity tests.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from types import ModuleType

import sympy as sp

__all__ = ["Step", "step", "tracing"]


@dataclass(frozen=True)
class Step:
    """One recorded step: a label and the SymPy expressions it concerns."""

    label: str
    exprs: tuple[sp.Basic, ...]


_ACTIVE: list[list[Step]] = []


def step(label: str, *exprs: object) -> None:
    """Record `label` and `exprs` (sympified) if a :func:`tracing` block is active."""
    if _ACTIVE:
        converted = []
        for e in exprs:
            try:
                converted.append(sp.sympify(e))
            except (sp.SympifyError, TypeError):
                converted.append(sp.Symbol(str(e)))
        _ACTIVE[-1].append(Step(label, tuple(converted)))


@contextlib.contextmanager
def tracing(modules: tuple[ModuleType, ...] = ()) -> Iterator[list[Step]]:
    """Collect the steps recorded while the block runs; yields the (growing) list.

    Parameters
    ----------
    modules : tuple of module
        Claim modules whose ``show`` and ``is_identity`` are wrapped while the block runs (and
        restored after it, even on error).
    """
    steps: list[Step] = []
    saved: list[tuple[ModuleType, str, object]] = []
    for module in modules:
        original_show = getattr(module, "show", None)
        if callable(original_show):
            saved.append((module, "show", original_show))

            def traced_show(expr, _orig=original_show):
                step("expression", expr)
                return _orig(expr)

            # replaces the module's own show (callable, checked above); mypy only knows ModuleType
            module.show = traced_show  # type: ignore[attr-defined]
        original_identity = getattr(module, "is_identity", None)
        if callable(original_identity):
            saved.append((module, "is_identity", original_identity))

            def traced_identity(lhs, rhs, *args, _orig=original_identity, **kwargs):
                holds = _orig(lhs, rhs, *args, **kwargs)
                step(f"identity lhs = rhs: {'holds' if holds else 'does NOT hold'}", lhs, rhs)
                return holds

            module.is_identity = traced_identity  # type: ignore[attr-defined]  # as show above
    _ACTIVE.append(steps)
    try:
        yield steps
    finally:
        _ACTIVE.pop()
        for module, name, original in saved:
            setattr(module, name, original)
