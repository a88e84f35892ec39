"""Small SymPy helpers shared by the claim modules (no claim lives here)."""

from __future__ import annotations

import sympy as sp

__all__ = ["is_identity", "show", "rate_symbols", "sympify_all"]


def is_identity(lhs: sp.Expr, rhs: sp.Expr) -> bool:
    """Return True if ``lhs - rhs`` is identically zero as a rational function.

    Puts the difference over one denominator (``together``) and expands the numerator: exact
    for rational functions of the symbols, which is all the algebraic claims need (no blind
    ``simplify``). Falls back to ``cancel`` for anything the expansion leaves non-zero.
    """
    numerator, _ = sp.together(lhs - rhs).as_numer_denom()
    if sp.expand(numerator) == 0:
        return True
    return sp.cancel(lhs - rhs) == 0


def show(expr: sp.Expr) -> str:
    """Render `expr` on one line, compactly, for the ``established``/``evidence`` texts."""
    return sp.sstr(expr)


def rate_symbols() -> tuple[sp.Symbol, sp.Symbol, sp.Symbol, sp.Symbol]:
    """Return ``(lam, eps, r1, r2)`` with the sign assumptions of the paper's domain.

    ε is positive and λ, r1, r2 are non-negative; the upper bounds (ε < 1, λ < 1, r ≤ 1,
    ρ < 1) are not expressible as SymPy assumptions and are used explicitly where a factor's
    sign is argued.
    """
    lam = sp.Symbol("lambda", nonnegative=True)
    eps = sp.Symbol("epsilon", positive=True)
    r1 = sp.Symbol("r1", nonnegative=True)
    r2 = sp.Symbol("r2", nonnegative=True)
    return lam, eps, r1, r2


def sympify_all(*args: object) -> tuple:
    """``sympify`` each argument (sequences element-wise) so Python ints never divide as floats."""
    out = []
    for a in args:
        if isinstance(a, (list, tuple)):
            out.append([sp.sympify(x) for x in a])
        else:
            out.append(sp.sympify(a))
    return tuple(out)
