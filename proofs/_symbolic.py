"""Small SymPy helpers shared by the claim modules (no claim lives here).

Besides the identity test, the helpers that turn a statement into an :class:`~._result.Outcome`:
:func:`identity_test` (an identity, or a concrete point where the two sides differ),
:func:`search` (a counterexample search over exact rational points of the domain) and
:func:`positivity_certificate` (a sign over a whole domain of positive and unit-interval
symbols, by substitution and factorisation into polynomials with positive coefficients).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterable, Mapping, Sequence

import sympy as sp

from ._result import Outcome

__all__ = [
    "is_identity",
    "show",
    "rate_symbols",
    "tail_symbols",
    "class_symbols",
    "sympify_all",
    "UNIT_OPEN",
    "UNIT_CLOSED",
    "unit_samples",
    "identity_test",
    "search",
    "positivity_certificate",
    "all_hold",
]

#: Interior points of (0, 1) used by every counterexample search (exact rationals).
UNIT_OPEN = tuple(sp.Rational(k, 10) for k in (1, 3, 5, 7, 9)) + (sp.Rational(1, 3),)
#: The same with the boundary points 0 and 1.
UNIT_CLOSED = (sp.Integer(0), *UNIT_OPEN, sp.Integer(1))
_SEARCH_SEED = 20240611


def unit_samples(
    n: int, seed: int = _SEARCH_SEED, denominator: int = 97
) -> tuple[sp.Rational, ...]:
    """`n` random rationals ``k/denominator`` in (0, 1), from a fixed seed (reproducible)."""
    rng = random.Random(seed)
    return tuple(sp.Rational(rng.randrange(1, denominator), denominator) for _ in range(n))


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


def tail_symbols() -> tuple[sp.Symbol, sp.Symbol]:
    """Return ``(D, sigma)``: a centroid distance and a standard deviation, both positive.

    The Gaussian-tail claims share them; SymPy symbols of one name and assumptions are equal,
    so expressions built from them (and the cached integrals) match across claims.
    """
    return sp.Symbol("D", positive=True), sp.Symbol("sigma", positive=True)


def class_symbols() -> tuple[tuple[sp.Symbol, ...], tuple[sp.Symbol, ...]]:
    """Return ``(pis, epss)``: the shares pi1..pi3 and error rates epsilon1..epsilon3 of three
    classes, all positive (the three-class examples of the rate-bound claims)."""
    return sp.symbols("pi1:4", positive=True), sp.symbols("epsilon1:4", positive=True)


def sympify_all(*args: object) -> tuple:
    """``sympify`` each argument (sequences element-wise) so Python ints never divide as floats."""
    out = []
    for a in args:
        if isinstance(a, (list, tuple)):
            out.append([sp.sympify(x) for x in a])
        else:
            out.append(sp.sympify(a))
    return tuple(out)


def _points(domain: Mapping[sp.Symbol, Sequence[sp.Expr]], extra: Iterable[Mapping]) -> Iterable:
    yield from extra
    keys = list(domain)
    for values in itertools.product(*(domain[k] for k in keys)):
        yield dict(zip(keys, values, strict=True))


def _fmt(point: Mapping) -> str:
    return ", ".join(f"{k}={show(v)}" for k, v in point.items())


def _value(expr: sp.Expr, point: Mapping) -> sp.Expr | None:
    """Exact value of `expr` at `point`; None where it is undefined (a pole, 0/0)."""
    try:
        value = expr.xreplace(dict(point))
    except ZeroDivisionError:
        return None
    if value.has(sp.zoo, sp.nan, sp.oo, -sp.oo) or not value.is_number:
        return None
    return value


def identity_test(
    lhs: sp.Expr,
    rhs: sp.Expr,
    label: str,
    domain: Mapping[sp.Symbol, Sequence[sp.Expr]] | None = None,
    extra: Iterable[Mapping] = (),
) -> Outcome:
    """Test ``lhs = rhs`` identically; if it is not, find a point of `domain` where they differ.

    Parameters
    ----------
    lhs, rhs : sympy.Expr
    label : str
        How the identity is named in the outcome.
    domain : mapping of Symbol to sequence of exact values, optional
        Grid searched for a counterexample (its Cartesian product, after `extra`). Defaults to
        ``UNIT_CLOSED`` for every free symbol.
    extra : iterable of mappings, optional
        Points tried first.

    Returns
    -------
    Outcome
        Holds with the certificate ``cancel(lhs - rhs) = 0``, or fails with a concrete point
        and the two values there.

    Raises
    ------
    ProofCheckError
        If the difference is not identically zero but no grid point shows it (no witness).
    """
    from ._result import ProofCheckError

    if is_identity(lhs, rhs):
        return Outcome(True, f"{label}: cancel(lhs - rhs) = 0")
    diff = lhs - rhs
    if domain is None:
        domain = {s: UNIT_CLOSED for s in sorted(diff.free_symbols, key=str)}
    for point in _points(domain, extra):
        a, b = _value(lhs, point), _value(rhs, point)
        if a is None or b is None:
            continue
        if sp.N(a - b, 30) != 0:
            return Outcome(False, f"{label} fails at {_fmt(point)}: {show(a)} != {show(b)}")
    raise ProofCheckError(f"{label}: not an identity, but no point of the grid shows it")


def search(
    holds_at: Callable[[Mapping], bool | None],
    label: str,
    domain: Mapping[sp.Symbol, Sequence[sp.Expr]],
    extra: Iterable[Mapping] = (),
    describe: Callable[[Mapping], str] | None = None,
) -> Outcome:
    """Counterexample search: evaluate `holds_at` at every point of the grid (after `extra`).

    Parameters
    ----------
    holds_at : callable
        Takes a point (mapping symbol -> exact value) and returns True where the statement holds,
        False where it fails, None where the point is outside the statement's domain.
    label : str
        The statement, for the outcome.
    domain : mapping of Symbol to sequence of exact values
        The grid (Cartesian product); include boundary points and random samples.
    extra : iterable of mappings, optional
        Points tried first (e.g. a witness found by hand, re-checked here).
    describe : callable, optional
        Text for a failing point (default: the coordinates).

    Returns
    -------
    Outcome
        Fails at the first counterexample; holds (a sampled statement, not a proof) otherwise.
    """
    n = 0
    for point in _points(domain, extra):
        verdict = holds_at(point)
        if verdict is None:
            continue
        n += 1
        if not verdict:
            text = describe(point) if describe else _fmt(point)
            return Outcome(False, f"{label} fails at {text}")
    return Outcome(True, f"{label} holds at all {n} grid points in its domain")


def positivity_certificate(
    expr: sp.Expr,
    label: str,
    unit: Sequence[sp.Symbol] = (),
    positive: Sequence[sp.Symbol] = (),
) -> Outcome:
    r"""Certify ``expr > 0`` on the whole domain: `unit` symbols in (0, 1), `positive` ones > 0.

    Substitutes :math:`u = t/(1+t)` (:math:`t > 0`, a bijection onto (0, 1)) for each `unit`
    symbol and :math:`p = t` for each positive one and puts the result over one denominator
    (``cancel``; if the expanded form has a negative coefficient, ``factor`` is tried). The
    certificate is that every factor of numerator and denominator is a polynomial in the new
    positive variables with only positive coefficients (or a positive constant): a sum of
    positive terms, so the expression is strictly positive everywhere. The outcome fails when
    some factor has a negative coefficient (no certificate; this does not prove the sign
    wrong).

    Returns
    -------
    Outcome
        Holds with the factored form as certificate.
    """
    subs = {}
    fresh = []
    for i, s in enumerate(unit):
        t = sp.Symbol(f"t{i}", positive=True)
        subs[s] = t / (1 + t)
        fresh.append(t)
    for i, s in enumerate(positive):
        t = sp.Symbol(f"p{i}", positive=True)
        subs[s] = t
        fresh.append(t)
    transformed = sp.cancel(sp.together(sp.sympify(expr).xreplace(subs)))
    numerator, denominator = transformed.as_numer_denom()
    bad = _non_positive_parts(numerator, denominator, fresh, factorise=False)
    if bad:  # expanded form has a negative coefficient: try the factored form
        transformed = sp.factor(transformed)
        numerator, denominator = transformed.as_numer_denom()
        bad = _non_positive_parts(numerator, denominator, fresh, factorise=True)
    subst = ", ".join(f"{s} = {show(v)}" for s, v in subs.items())
    if bad:
        return Outcome(False, f"{label}: no certificate (factors {'; '.join(bad)})")
    return Outcome(
        True,
        f"{label}: with {subst} (all t > 0) it is {show(transformed)}, a ratio of polynomials "
        "with positive coefficients",
    )


def _non_positive_parts(
    numerator: sp.Expr, denominator: sp.Expr, variables: Sequence[sp.Symbol], factorise: bool
) -> list[str]:
    """The parts (polynomials in `variables`) that have a non-positive coefficient."""
    bad = []
    for part in (numerator, denominator):
        if factorise and variables:
            coeff, factors = sp.factor_list(part, *variables)
            pieces = [f for f, _ in factors]
        else:
            coeff, pieces = sp.Integer(1), [part]
        if not (coeff.is_number and coeff > 0):
            bad.append(show(coeff))
        for piece in pieces:
            coeffs = sp.Poly(piece, *variables).coeffs() if variables else [piece]
            if not all(c.is_number and c > 0 for c in coeffs):
                bad.append(show(piece))
    return bad


def all_hold(*outcomes: Outcome) -> Outcome:
    """Conjunction of outcomes: the first failing one (its counterexample), else all certificates."""
    for outcome in outcomes:
        if not outcome.holds:
            return outcome
    return Outcome(True, "; ".join(o.detail for o in outcomes))
