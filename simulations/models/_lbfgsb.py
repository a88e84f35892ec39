"""Unbounded L-BFGS-B by SciPy's own core, without ``scipy.optimize.minimize`` around it.

``minimize(method="L-BFGS-B", jac=True)`` wraps the objective in ``MemoizeJac`` and
``ScalarFunction`` (a copy of ``x`` and bookkeeping on every evaluation) and builds an
``OptimizeResult`` with an inverse-Hessian operator at the end: on the sweep's small problems
(a few hundred parameters, 20-60 evaluations) that is 10-20% of a fit. :func:`lbfgsb` drives the
same core (``scipy.optimize._lbfgsb.setulb``) with the loop of ``_minimize_lbfgsb``, so the
iterates, and so every result, are the same bit for bit: the same calls of the core with the same
arguments, the objective evaluated at the same points, an evaluation at the point of the previous
one reused as ``ScalarFunction`` reuses it.

The core is private to SciPy and its interface changed in SciPy 1.15 (the Fortran code translated
to C: integer task codes instead of a 60-character task string). Both interfaces are known here
(:data:`CORE_API`, read from the core's signature); on first use a small problem is solved by the
core and by ``minimize`` and the two answers compared bit for bit. If the interface is neither
known one, or the check fails, every call goes through ``minimize`` (same results, slower).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from scipy.optimize import _lbfgsb, minimize

__all__ = ["CORE_API", "LbfgsbResult", "core_in_use", "lbfgsb"]

Objective = Callable[[np.ndarray], tuple[float, np.ndarray]]

_MAXCOR = 10  # minimize's default number of stored corrections (maxcor)
_MAXFUN = 15000  # minimize's default cap on evaluations (maxfun)


def _core_api() -> str | None:
    """``"c"`` (SciPy >= 1.15), ``"fortran"`` (SciPy < 1.15) or ``None`` (not known), from the
    argument list of the core's docstring."""
    doc = (getattr(_lbfgsb.setulb, "__doc__", None) or "").split("\n", 1)[0].replace(" ", "")
    if doc == "setulb(m,x,l,u,nbd,f,g,factr,pgtol,wa,iwa,task,lsave,isave,dsave,maxls,ln_task)":
        return "c"
    if doc.startswith("setulb(m,x,l,u,nbd,f,g,factr,pgtol,wa,iwa,task,iprint,csave,lsave,isave,"):
        return "fortran"
    return None


CORE_API: str | None = _core_api()
"""The interface of this SciPy's L-BFGS-B core that :func:`lbfgsb` drives: ``"c"``, ``"fortran"``,
or ``None`` (every call goes through ``scipy.optimize.minimize``)."""


class LbfgsbResult(NamedTuple):
    """What the callers use of ``minimize``'s result: ``x``, ``nit``, ``status`` (0 converged,
    1 an iteration or evaluation cap, 2 another stop) and ``message``."""

    x: np.ndarray
    nit: int
    status: int
    message: str


def lbfgsb(
    fun: Objective,
    x0: np.ndarray,
    *,
    maxiter: int,
    gtol: float,
    ftol: float,
    maxls: int,
    use_core: bool | None = None,
) -> LbfgsbResult:
    """Minimise ``fun`` without bounds from ``x0``, exactly as
    ``scipy.optimize.minimize(fun, x0, method="L-BFGS-B", jac=True, options={"maxiter": maxiter,
    "gtol": gtol, "ftol": ftol, "maxls": maxls})`` does (module docstring).

    Parameters
    ----------
    fun : callable
        ``fun(x) -> (value, gradient)``; it must not keep or modify ``x`` (the core updates it
        in place).
    x0 : ndarray of shape (n,)
        Start (copied).
    maxiter, gtol, ftol, maxls
        ``minimize``'s options of the same names (``maxls`` > 0).
    use_core : bool or None, default=None
        ``None``: the core when :func:`core_in_use`, else ``minimize``; ``True`` or ``False``
        force one (``True`` raises ``RuntimeError`` if :data:`CORE_API` is ``None``).

    Returns
    -------
    LbfgsbResult
    """
    if use_core is None:
        use_core = core_in_use()
    if not use_core:
        result = minimize(
            fun,
            x0,
            method="L-BFGS-B",
            jac=True,
            options={"maxiter": maxiter, "gtol": gtol, "ftol": ftol, "maxls": maxls},
        )
        return LbfgsbResult(result.x, int(result.nit), int(result.status), str(result.message))
    if CORE_API is None:
        raise RuntimeError("this SciPy's L-BFGS-B core has an interface gcul does not know")
    if not maxls > 0:
        raise ValueError("maxls must be positive.")
    return _drive_core(fun, np.asarray(x0, dtype=np.float64).ravel(), maxiter, gtol, ftol, maxls)


def _drive_core(
    fun: Objective, x0: np.ndarray, maxiter: int, gtol: float, ftol: float, maxls: int
) -> LbfgsbResult:
    """The loop of SciPy's ``_minimize_lbfgsb`` for no bounds, on the core of :data:`CORE_API`."""
    m, n = _MAXCOR, x0.size
    factr = ftol / np.finfo(float).eps
    c_api = CORE_API == "c"
    int_type = np.int32 if c_api else _lbfgsb.types.intvar.dtype
    x = np.array(x0, dtype=np.float64)
    nbd = np.zeros(n, int_type)
    low, up = np.zeros(n), np.zeros(n)
    wa = np.zeros(2 * m * n + 5 * n + 11 * m * m + 8 * m)
    iwa = np.zeros(3 * n, int_type)
    lsave, isave, dsave = np.zeros(4, int_type), np.zeros(44, int_type), np.zeros(29)
    # ScalarFunction evaluates at x0 first, and reuses the last value while the point has not
    # moved; the core is first called with f = 0 and g = 0, as minimize calls it
    value, gradient = fun(np.copy(x))
    last_x, nfev, nit = np.copy(x), 1, 0
    f: float | np.ndarray = np.array(0.0)
    g = np.zeros(n)
    if c_api:
        task, ln_task = np.zeros(2, np.int32), np.zeros(2, np.int32)
    else:
        task, csave = np.zeros(1, "S60"), np.zeros(1, "S60")
        task[:] = "START"
    while True:
        if c_api:
            g = g.astype(np.float64)
            _lbfgsb.setulb(
                m, x, low, up, nbd, f, g, factr, gtol, wa, iwa, task, lsave, isave, dsave,
                maxls, ln_task,
            )  # fmt: skip
            state = int(task[0])
            wants_fg, new_x = state == 3, state == 1
        else:
            _lbfgsb.setulb(
                m, x, low, up, nbd, f, g, factr, gtol, wa, iwa, task, -1, csave, lsave, isave,
                dsave, maxls,
            )  # fmt: skip
            text = task.tobytes()
            wants_fg, new_x = text.startswith(b"FG"), text.startswith(b"NEW_X")
        if wants_fg:
            if not np.array_equal(x, last_x):
                value, gradient = fun(np.copy(x))
                last_x[:] = x
                nfev += 1
            f, g = value, gradient
        elif new_x:
            nit += 1
            if nit >= maxiter:
                _stop(task, c_api, 504, "STOP: TOTAL NO. of ITERATIONS REACHED LIMIT")
            elif nfev > _MAXFUN:
                _stop(task, c_api, 502, "STOP: TOTAL NO. of f AND g EVALUATIONS EXCEEDS LIMIT")
        else:
            break
    if c_api:
        from scipy.optimize import _lbfgsb_py

        converged = int(task[0]) == 4
        message = (
            f"{_lbfgsb_py.status_messages[int(task[0])]}: "
            f"{_lbfgsb_py.task_messages[int(task[1])]}"
        )
    else:
        message = task.tobytes().strip(b"\x00").strip().decode()
        converged = message.startswith("CONV")
    status = 0 if converged else 1 if (nfev > _MAXFUN or nit >= maxiter) else 2
    return LbfgsbResult(x, nit, status, message)


def _stop(task: np.ndarray, c_api: bool, code: int, text: str) -> None:
    if c_api:
        task[0], task[1] = 5, code
    else:
        task[:] = text


_CORE_CHECKED: list[bool] = []


def core_in_use() -> bool:
    """Whether :func:`lbfgsb` drives the core: :data:`CORE_API` is known and, on a check problem
    solved once per process, the core and ``minimize`` agree bit for bit."""
    if not _CORE_CHECKED:
        _CORE_CHECKED.append(CORE_API is not None and _core_agrees())
    return _CORE_CHECKED[0]


def _core_agrees() -> bool:
    """Solve a small ill-conditioned logistic-type problem by both paths and compare."""
    rng = np.random.default_rng(0)
    A = rng.normal(size=(40, 6)) * np.geomspace(1.0, 30.0, 6)
    b = rng.normal(size=40)

    def fun(theta: np.ndarray) -> tuple[float, np.ndarray]:
        r = A @ theta - b
        soft = np.logaddexp(0.0, r)
        gradient = A.T @ (1.0 - 1.0 / (1.0 + np.exp(r))) + theta
        return float(soft.sum() + 0.5 * theta @ theta), gradient

    def solve(use_core: bool) -> LbfgsbResult:
        return lbfgsb(
            fun,
            np.ones(6),
            maxiter=200,
            gtol=1e-10,
            ftol=64 * np.finfo(float).eps,
            maxls=50,
            use_core=use_core,
        )

    try:
        core = solve(True)
    except Exception:  # an interface that reads as known but is not: use minimize
        return False
    reference = solve(False)
    return (
        core.nit == reference.nit
        and core.status == reference.status
        and np.array_equal(core.x, reference.x)
    )
