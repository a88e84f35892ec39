"""The fast paths that rest on an implementation detail of SciPy, NumPy or BLAS, in one place.

Three computations of the package are faster than their portable form because they rely on
something no library documents: a private SciPy routine, or the exact order in which a library
sums. Each one is declared here (:data:`FAST_PATHS`) with

- its *contract*: what it promises. All three promise results identical, bit for bit, to their
  portable path's, on the condition that the probe holds in the running process;
- its *probe*: a check, run once per process (for ``knn_tree_order``, once per dimension) on
  the first use, that the detail it relies on holds in the installed libraries;
- its *fallback*: the portable path, taken when the probe fails (or raises), and always when
  the fast paths are switched off.

The switch: the environment variable ``GCUL_FAST_PATHS`` (:data:`ENV_VAR`). Unset, empty or
``on``: each fast path is taken where its probe holds; ``off``: no probe runs and every
computation takes its portable path (the same results, slower). Any other value is refused
(``ValueError`` naming the variable). It is read at every decision, so a test may set it with
``monkeypatch.setenv``.

Who asks which paths are active, and why one is not, gets the answer from :func:`states`
(``gcul info`` prints it): a failed probe is never silent for whoever asks.

The fast paths:

``lbfgsb_core`` (:mod:`simulations.models._lbfgsb`)
    Drives SciPy's private L-BFGS-B core (``scipy.optimize._lbfgsb.setulb``) with the loop of
    ``scipy.optimize.minimize``'s ``_minimize_lbfgsb`` (:func:`drive_lbfgsb_core`), without
    ``minimize``'s wrappers (10-20% of a small fit). Rests on the core's argument list, which
    changed in SciPy 1.15 (the Fortran code translated to C); both interfaces are known
    (:func:`lbfgsb_core_api`). Probe: the interface is a known one, and a small ill-conditioned
    problem solved by both paths gives the same iterate, iteration count and status, bit for
    bit. Fallback: ``scipy.optimize.minimize(method="L-BFGS-B")``.
``kmeans_lean`` (:mod:`simulations.models._kmeans`)
    K-Means on a large ``X`` (2**22 values or more) centres it in place and reads it through a
    transposed view: one copy of ``X`` at the peak instead of three. Rests on two facts: (i) BLAS
    computes ``C @ X.T`` the same, bit for bit, whether ``X.T`` is a view or a contiguous copy;
    (ii) NumPy sums a C-contiguous matrix along axis 0 one row after the other, so that
    :func:`column_variances` may continue the sum a block of rows at a time. Probe: both on
    random data of three shapes. Fallback: the copies (``np.var`` and a contiguous ``X.T``).
``knn_tree_order`` (:mod:`simulations.rejectors.knn`)
    The ``knn`` rejector's k-d tree distances, below ``2**(d + 4)`` training rows, come from a
    screened brute force whose exact recompute sums squared differences in the order of SciPy's
    ``cKDTree`` (:func:`tree_squared_distances`): 2.5-3 times faster on the sweep's cells. Rests
    on that order (four accumulators, then the remainder), which SciPy does not document. Probe,
    per dimension ``d``: every distance a tree returns on random points spread over six decades
    is :func:`tree_squared_distances`'s square root. Fallback: the tree searches.

Where a change goes: a new fast path is an entry of :data:`FAST_PATHS` (its contract, probe and
fallback), with the code that relies on the undocumented detail here and its caller asking
:func:`active`; a test in ``tests/test_fastpaths.py`` that the fast and the portable paths give
the same bits, with :data:`ENV_VAR` both ways. This module imports NumPy only at import time
(SciPy inside the functions), so that importing :mod:`simulations.models` stays light.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = [
    "ENV_VAR",
    "FAST_PATHS",
    "FastPath",
    "FastPathState",
    "active",
    "column_variances",
    "drive_lbfgsb_core",
    "forced_off",
    "lbfgsb_core_api",
    "reset",
    "states",
    "tree_squared_distances",
]

ENV_VAR = "GCUL_FAST_PATHS"
"""The switch: ``off`` forces every portable path; unset, empty or ``on``: the probes decide."""

_ON, _OFF = ("", "on"), ("off",)


def forced_off() -> bool:
    """Whether :data:`ENV_VAR` switches every fast path off (read now, from ``os.environ``).

    Raises
    ------
    ValueError
        If the variable holds anything but ``on``, ``off`` or nothing (case and surrounding
        spaces ignored).
    """
    value = os.environ.get(ENV_VAR, "").strip().lower()
    if value in _OFF:
        return True
    if value in _ON:
        return False
    raise ValueError(
        f"{ENV_VAR} must be 'on' or 'off' (or unset: on); got {os.environ[ENV_VAR]!r}"
    )


@dataclass(frozen=True)
class FastPath:
    """One fast path: its name, where it is taken, its contract, probe and fallback.

    Attributes
    ----------
    name : str
        What :func:`active` and ``gcul info`` call it.
    where : str
        The module that takes it.
    contract : str
        What it promises against the portable path, and on what condition.
    fallback : str
        The portable path.
    probe : callable
        ``probe(key) -> str``: what was checked (a sentence) if the detail holds; raises
        :class:`ProbeFailed` (or anything else) with the reason if not. ``key`` is ``None``
        or, for a path probed per case, the case (the dimension for ``knn_tree_order``).
    shown_keys : tuple
        The keys :func:`states` probes to report the path (``(None,)``: the one probe).
    key_name : str
        What a key is, for a path probed per case (``"d"``: the number of features).
    """

    name: str
    where: str
    contract: str
    fallback: str
    probe: Callable[[int | None], str]
    shown_keys: tuple[int | None, ...] = (None,)
    key_name: str = ""


@dataclass(frozen=True)
class FastPathState:
    """Whether a fast path is active in this process, and why.

    Attributes
    ----------
    name : str
        The fast path (an entry of :data:`FAST_PATHS`).
    active : bool
        Taken where it applies (``False``: its fallback always is).
    reason : str
        Why: what the probe checked, why it failed, or that :data:`ENV_VAR` switched it off.
    """

    name: str
    active: bool
    reason: str


class ProbeFailed(Exception):
    """A probe's finding that the detail a fast path rests on does not hold here."""


_RESULTS: dict[tuple[str, int | None], FastPathState] = {}


def _probed(path: FastPath, key: int | None) -> FastPathState:
    """The probe's verdict for ``(path, key)``, run once per process."""
    cache_key = (path.name, key)
    if cache_key not in _RESULTS:
        try:
            found = FastPathState(path.name, True, path.probe(key))
        except ProbeFailed as failure:
            found = FastPathState(path.name, False, str(failure))
        except Exception as error:  # a probe that cannot even run: the fallback, said so
            found = FastPathState(
                path.name, False, f"the probe raised {type(error).__name__}: {error}"
            )
        _RESULTS[cache_key] = found
    return _RESULTS[cache_key]


def _path(name: str) -> FastPath:
    for path in FAST_PATHS:
        if path.name == name:
            return path
    known = ", ".join(path.name for path in FAST_PATHS)
    raise ValueError(f"no fast path named {name!r}; the fast paths are {known}")


def active(name: str, key: int | None = None) -> bool:
    """Whether the fast path ``name`` is taken (for ``key``, if it is probed per case).

    ``False`` without running the probe when :data:`ENV_VAR` is ``off``; else its probe's
    verdict, computed on the first call (per ``key``) and kept for the process.

    Parameters
    ----------
    name : str
        An entry of :data:`FAST_PATHS`: ``"lbfgsb_core"``, ``"kmeans_lean"`` or
        ``"knn_tree_order"``.
    key : int, optional
        The case, for a path probed per case (the number of features for ``knn_tree_order``).

    Returns
    -------
    bool
    """
    path = _path(name)
    if forced_off():
        return False
    return _probed(path, key).active


def states() -> tuple[FastPathState, ...]:
    """Every fast path's state in this process, in :data:`FAST_PATHS`'s order (probes run now
    where they have not yet).

    A path probed per case is active when every one of its ``shown_keys`` passes; its reason
    names the cases checked, or those that failed and why.

    Returns
    -------
    tuple of FastPathState
    """
    out = []
    off = forced_off()
    for path in FAST_PATHS:
        if off:
            out.append(FastPathState(path.name, False, f"switched off: {ENV_VAR}=off"))
            continue
        found = [_probed(path, key) for key in path.shown_keys]
        failed = [state for state in found if not state.active]
        if path.shown_keys == (None,):
            out.append(found[0])
        elif failed:
            out.append(FastPathState(path.name, False, "; ".join(s.reason for s in failed)))
        else:
            checked = ", ".join(str(key) for key in path.shown_keys)
            reason = (
                f"{found[0].reason} (checked for {path.key_name} = {checked}; any other "
                f"{path.key_name} on its first use)"
            )
            out.append(FastPathState(path.name, True, reason))
    return tuple(out)


def reset() -> None:
    """Forget every probe's verdict: the next use probes again (for tests)."""
    _RESULTS.clear()
    _CORE_API.clear()


# --------------------------------------------------------------------------------------------
# lbfgsb_core: SciPy's private L-BFGS-B core, driven without scipy.optimize.minimize

_MAXCOR = 10  # minimize's default number of stored corrections (maxcor)
_MAXFUN = 15000  # minimize's default cap on evaluations (maxfun)
_C_SIGNATURE = "setulb(m,x,l,u,nbd,f,g,factr,pgtol,wa,iwa,task,lsave,isave,dsave,maxls,ln_task)"
_FORTRAN_PREFIX = "setulb(m,x,l,u,nbd,f,g,factr,pgtol,wa,iwa,task,iprint,csave,lsave,isave,"


_CORE_API: list[str | None] = []  # lbfgsb_core_api's answer, once read


def lbfgsb_core_api() -> str | None:
    """The interface of this SciPy's L-BFGS-B core: ``"c"`` (SciPy >= 1.15), ``"fortran"``
    (SciPy < 1.15) or ``None`` (not one gcul knows), read once from the argument list its
    docstring begins with."""
    if not _CORE_API:
        from scipy.optimize import _lbfgsb

        _CORE_API.append(_api_of(getattr(_lbfgsb.setulb, "__doc__", None)))
    return _CORE_API[0]


def _api_of(doc: str | None) -> str | None:
    first = (doc or "").split("\n", 1)[0].replace(" ", "")
    if first == _C_SIGNATURE:
        return "c"
    if first.startswith(_FORTRAN_PREFIX):
        return "fortran"
    return None


def drive_lbfgsb_core(
    fun: Callable[[np.ndarray], tuple[float, np.ndarray]],
    x0: np.ndarray,
    maxiter: int,
    gtol: float,
    ftol: float,
    maxls: int,
) -> tuple[np.ndarray, int, int, str]:
    """The loop of SciPy's ``_minimize_lbfgsb`` for no bounds, on the core of
    :func:`lbfgsb_core_api`: ``(x, nit, status, message)`` as ``minimize``'s result has them.

    The same calls of the core with the same arguments, the objective evaluated at the same
    points, an evaluation at the point of the previous one reused as ``ScalarFunction`` reuses
    it: so the same iterates, bit for bit. ``x0`` must be a float64 vector; ``maxls > 0``.

    Raises
    ------
    RuntimeError
        If the core's interface is not one gcul knows.
    """
    from scipy.optimize import _lbfgsb

    api = lbfgsb_core_api()
    if api is None:
        raise RuntimeError("this SciPy's L-BFGS-B core has an interface gcul does not know")
    m, n = _MAXCOR, x0.size
    factr = ftol / np.finfo(float).eps
    c_api = api == "c"
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
    return x, nit, status, message


def _stop(task: np.ndarray, c_api: bool, code: int, text: str) -> None:
    if c_api:
        task[0], task[1] = 5, code
    else:
        task[:] = text


def _probe_lbfgsb_core(key: int | None = None) -> str:
    """A small ill-conditioned logistic-type problem, solved by the core and by ``minimize``."""
    import scipy
    from scipy.optimize import _lbfgsb, minimize

    api = lbfgsb_core_api()
    if api is None:
        first = (getattr(_lbfgsb.setulb, "__doc__", None) or "").split("\n", 1)[0]
        raise ProbeFailed(
            f"SciPy {scipy.__version__}'s L-BFGS-B core has an interface gcul does not know "
            f"({first.strip()[:80]!r})"
        )
    rng = np.random.default_rng(0)
    A = rng.normal(size=(40, 6)) * np.geomspace(1.0, 30.0, 6)
    b = rng.normal(size=40)

    def fun(theta: np.ndarray) -> tuple[float, np.ndarray]:
        r = A @ theta - b
        soft = np.logaddexp(0.0, r)
        gradient = A.T @ (1.0 - 1.0 / (1.0 + np.exp(r))) + theta
        return float(soft.sum() + 0.5 * theta @ theta), gradient

    maxiter, gtol, ftol, maxls = 200, 1e-10, 64 * np.finfo(float).eps, 50
    options = {"maxiter": maxiter, "gtol": gtol, "ftol": ftol, "maxls": maxls}
    x, nit, status, _ = drive_lbfgsb_core(fun, np.ones(6), maxiter, gtol, ftol, maxls)
    reference = minimize(fun, np.ones(6), method="L-BFGS-B", jac=True, options=options)
    if nit != reference.nit or status != reference.status:
        raise ProbeFailed(
            f"on the check problem the core stops after {nit} iterations (status {status}), "
            f"minimize after {reference.nit} (status {reference.status})"
        )
    if not np.array_equal(x, reference.x):
        raise ProbeFailed("on the check problem the core's minimiser differs from minimize's")
    return (
        f"SciPy {scipy.__version__}'s {'C' if api == 'c' else 'Fortran'} core agrees with "
        "minimize bit for bit on the check problem"
    )


# --------------------------------------------------------------------------------------------
# kmeans_lean: X centred in place and read through a transposed view

_VARIANCE_ROWS = 1 << 16  # values of the squared deviations held at once by column_variances


def column_variances(X: np.ndarray, rows: int | None = None) -> np.ndarray:
    """``np.var(X, axis=0)`` for a C-contiguous ``X`` with 2 columns or more, without a
    temporary of ``X``'s size.

    NumPy's operations (the sum of the rows, its division by ``n``, the squared deviations,
    their sum, its division by ``n``), with the sum of the squared deviations continued
    ``rows`` rows at a time (default: about 2**16 values at a time) in NumPy's order: the same
    numbers as ``np.var`` where NumPy sums along axis 0 one row after the other (the probe of
    ``kmeans_lean``).
    """
    n = X.shape[0]
    mean = np.add.reduce(X, axis=0, keepdims=True)
    np.true_divide(mean, n, out=mean)
    rows = rows or max(1, _VARIANCE_ROWS // X.shape[1])
    total = np.add.reduce(np.square(X[:rows] - mean), axis=0)
    for start in range(rows, n, rows):
        squares = np.concatenate([total[None], np.square(X[start : start + rows] - mean)])
        total = np.add.reduce(squares, axis=0)
    return np.true_divide(total, n)


def _probe_kmeans_lean(key: int | None = None) -> str:
    """The two facts of ``kmeans_lean``, with BLAS on one thread as K-Means runs it."""
    from simulations.models._blas import single_threaded_blas

    rng = np.random.default_rng(7)
    with single_threaded_blas():
        for n, d, k in ((1500, 37, 5), (700, 300, 12), (4000, 10, 3)):
            X = rng.standard_normal((n, d)) * 10.0 ** rng.uniform(-4.0, 4.0, d)
            C = rng.standard_normal((k, d))
            if not np.array_equal(C @ X.T, C @ np.ascontiguousarray(X.T)):
                raise ProbeFailed(
                    f"BLAS computes C @ X.T differently for a transposed view and a contiguous "
                    f"copy (X of {n} x {d}, {k} centres)"
                )
            if not np.array_equal(column_variances(X, rows=n // 3 + 1), np.var(X, axis=0)):
                raise ProbeFailed(
                    f"NumPy's sum along axis 0 is not continued row block by row block "
                    f"(np.var of a {n} x {d} matrix differs)"
                )
    return "BLAS's product is layout-independent and NumPy sums rows in order, on 3 shapes"


# --------------------------------------------------------------------------------------------
# knn_tree_order: squared distances summed in cKDTree's order


def tree_squared_distances(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Squared distances ``||X[i] - Y[i]||^2`` of paired rows, summed in cKDTree's order.

    SciPy's k-d tree (``sqeuclidean_distance_double`` of ``scipy/spatial/ckdtree``) adds the
    squared differences of coordinates ``j``, ``j + 4``, ``j + 8``, ... into four accumulators
    (``j = 0..3``) over the first ``4 floor(d / 4)`` coordinates, adds the accumulators in
    order, then the remaining coordinates one by one; each operation here is that float64
    operation, so the values are the tree's bit for bit (the probe of ``knn_tree_order``
    checks it against this SciPy's tree).

    Parameters
    ----------
    X, Y : ndarray of shape (m, d)
        Float64 rows.

    Returns
    -------
    ndarray of shape (m,)
    """
    with np.errstate(over="ignore"):  # beyond the float64 range: inf, as the tree's C code
        return _tree_sums(X - Y)


def _tree_sums(squares: np.ndarray) -> np.ndarray:
    """:func:`tree_squared_distances` of the differences ``squares`` (squared in place)."""
    squares *= squares
    d = squares.shape[1]
    whole = d - d % 4
    if whole:
        acc = squares[:, :4].copy()
        for start in range(4, whole, 4):
            acc += squares[:, start : start + 4]
        total = acc[:, 0] + acc[:, 1]
        total += acc[:, 2]
        total += acc[:, 3]
    else:
        total = np.zeros(squares.shape[0])
    for j in range(whole, d):
        total += squares[:, j]
    return total


def _probe_knn_tree_order(key: int | None) -> str:
    """Every distance cKDTree returns in dimension ``key``, on random points of coordinates
    spread over six decades (where another order of the sums, or a fused multiply-add, changes
    the last bits of most distances), against :func:`tree_squared_distances`'s."""
    import scipy
    from scipy.spatial import cKDTree

    if key is None:
        raise ValueError("knn_tree_order is probed per dimension: give the number of features")
    d = int(key)
    rng = np.random.default_rng(d)
    scale = 10.0 ** rng.uniform(-3.0, 3.0, (2, 48, d))
    Y = rng.standard_normal((48, d)) * scale[0]
    X = rng.standard_normal((48, d)) * scale[1]
    distances, _ = cKDTree(Y, leafsize=4).query(X, k=Y.shape[0])
    pairs = tree_squared_distances(np.repeat(X, Y.shape[0], axis=0), np.tile(Y, (48, 1)))
    ours = np.sort(np.sqrt(pairs).reshape(48, Y.shape[0]), axis=1)
    if not np.array_equal(ours, distances):
        raise ProbeFailed(
            f"SciPy {scipy.__version__}'s cKDTree does not sum squared distances in the order "
            f"gcul knows (d = {d}: {int(np.sum(ours != distances))} of {ours.size} differ)"
        )
    return f"SciPy {scipy.__version__}'s cKDTree sums squared distances in the known order"


FAST_PATHS: tuple[FastPath, ...] = (
    FastPath(
        name="lbfgsb_core",
        where="simulations.models (LogisticRegression, the trained rejectors' fits)",
        contract="the iterates of scipy.optimize.minimize(method='L-BFGS-B'), bit for bit, "
        "where SciPy's private core has a known interface and agrees on the check problem",
        fallback="scipy.optimize.minimize(method='L-BFGS-B')",
        probe=_probe_lbfgsb_core,
    ),
    FastPath(
        name="kmeans_lean",
        where="simulations.models.kmeans, on X of 2**22 values or more",
        contract="the partition, centres and iterations of the copies, bit for bit, where "
        "BLAS's product does not depend on the layout and NumPy sums rows in order",
        fallback="a centred copy of X and a contiguous copy of X.T (three copies at the peak)",
        probe=_probe_kmeans_lean,
    ),
    FastPath(
        name="knn_tree_order",
        where="the knn rejector, k-d tree distances below 2**(d + 4) training rows",
        contract="the k-d tree's k-th neighbour distances, bit for bit, where cKDTree sums "
        "squared differences in the known order (checked per dimension d)",
        fallback="the k-d tree (scipy.spatial.cKDTree) searches",
        probe=_probe_knn_tree_order,
        shown_keys=(1, 2, 3, 4, 5, 10),  # every remainder of d mod 4, and the sweep's d
        key_name="d",
    ),
)
"""Every fast path, with its contract, probe and fallback (module docstring)."""
