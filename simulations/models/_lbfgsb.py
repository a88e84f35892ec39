"""Unbounded L-BFGS-B by SciPy's own core, without ``scipy.optimize.minimize`` around it.

``minimize(method="L-BFGS-B", jac=True)`` wraps the objective in ``MemoizeJac`` and
``ScalarFunction`` (a copy of ``x`` and bookkeeping on every evaluation) and builds an
``OptimizeResult`` with an inverse-Hessian operator at the end: on the sweep's small problems
(a few hundred parameters, 20-60 evaluations) that is 10-20% of a fit. :func:`lbfgsb` drives the
same core with the loop of ``_minimize_lbfgsb``, so the iterates, and so every result, are the
same bit for bit.

The core is private to SciPy: driving it is the fast path ``lbfgsb_core`` of
:mod:`simulations._fastpaths`, which holds the driver, its probe (run once per process) and the
switch ``GCUL_FAST_PATHS=off``. Where the probe fails, or the switch is off, every call goes
through ``minimize`` (same results, slower); ``gcul info`` says which.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from scipy.optimize import minimize

from simulations import _fastpaths

__all__ = ["LbfgsbResult", "lbfgsb"]

Objective = Callable[[np.ndarray], tuple[float, np.ndarray]]


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
        ``None``: the core when the fast path ``lbfgsb_core`` is active (``gcul info`` says
        whether; ``GCUL_FAST_PATHS=off`` switches it off), else ``minimize``; ``True`` or
        ``False`` force one (``True`` raises ``RuntimeError`` if the core's interface is not
        one gcul knows).

    Returns
    -------
    LbfgsbResult
    """
    if use_core is None:
        use_core = _fastpaths.active("lbfgsb_core")
    if not use_core:
        result = minimize(
            fun,
            x0,
            method="L-BFGS-B",
            jac=True,
            options={"maxiter": maxiter, "gtol": gtol, "ftol": ftol, "maxls": maxls},
        )
        return LbfgsbResult(result.x, int(result.nit), int(result.status), str(result.message))
    if _fastpaths.lbfgsb_core_api() is None:
        raise RuntimeError("this SciPy's L-BFGS-B core has an interface gcul does not know")
    if not maxls > 0:
        raise ValueError("maxls must be positive.")
    x0 = np.asarray(x0, dtype=np.float64).ravel()
    return LbfgsbResult(*_fastpaths.drive_lbfgsb_core(fun, x0, maxiter, gtol, ftol, maxls))
