"""Tests for simulations.models._lbfgsb: SciPy's L-BFGS-B core driven without ``minimize``.

The promise is bit-for-bit equality with ``scipy.optimize.minimize(method="L-BFGS-B")`` (same
iterates, same iteration count, same status and message), on every path a fit can end by:
convergence on the gradient, on the relative decrease, the iteration cap. And a SciPy whose core
has another interface falls back to ``minimize`` (the same answers, slower). Driving the core is the
fast path ``lbfgsb_core`` of ``simulations._fastpaths`` (the ``fast_paths`` fixture of conftest.py
switches it); CI runs this module with ``GCUL_FAST_PATHS=off`` too.
"""

from __future__ import annotations

import numpy as np
import pytest
from _rejector_data import SMALL, cell

from simulations.models import LogisticRegression, lbfgsb_minimize
from simulations.rejectors.deep_gamblers import fit_deep_gamblers
from simulations.rejectors.selectivenet import fit_selectivenet

FTOL = 64 * np.finfo(np.float64).eps


def _bits(array) -> np.ndarray:
    return np.ascontiguousarray(array, dtype=np.float64).view(np.int64)


def _softmax_problem(seed: int, n: int = 200, d: int = 4, K: int = 3):
    """A ridge-penalised multinomial logistic loss with badly scaled features."""
    rng = np.random.default_rng(seed)
    Z = np.vstack([(rng.normal(size=(n, d)) * rng.uniform(0.1, 8.0, d)).T, np.ones(n)])
    y = rng.integers(0, K, n)
    rows = np.arange(n)

    def fun(theta):
        scores = theta.reshape(K, d + 1) @ Z
        scores -= scores.max(axis=0)
        prob = np.exp(scores)
        prob /= prob.sum(axis=0)
        value = -np.log(prob[y, rows]).mean() + 1e-3 * theta @ theta
        prob[y, rows] -= 1.0
        return float(value), (prob @ Z.T / n).ravel() + 2e-3 * theta

    return fun, np.zeros(K * (d + 1))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(
    ("maxiter", "gtol"),
    [(500, 1e-8), (500, 1e-3), (3, 1e-8), (1, 1e-8)],  # converged (gradient, decrease), capped
)
def test_core_is_minimize_bit_for_bit(seed, maxiter, gtol):
    fun, x0 = _softmax_problem(seed)
    options = {"maxiter": maxiter, "gtol": gtol, "ftol": FTOL, "maxls": 50}
    core = lbfgsb_minimize(fun, x0, use_core=True, **options)
    reference = lbfgsb_minimize(fun, x0, use_core=False, **options)
    np.testing.assert_array_equal(_bits(core.x), _bits(reference.x))
    assert (core.nit, core.status, core.message) == (
        reference.nit,
        reference.status,
        reference.message,
    )
    if maxiter <= 3:
        assert core.status == 1 and core.nit == maxiter  # the cap, not convergence
    else:
        assert core.status == 0


def test_this_scipy_uses_the_core(monkeypatch, fast_paths):
    # SciPy 1.10-1.14 (Fortran core) and >= 1.15 (C core) are both known interfaces, and the
    # probe passes on both (whatever the switch of this run says)
    monkeypatch.delenv(fast_paths.ENV_VAR, raising=False)
    assert fast_paths.lbfgsb_core_api() in ("c", "fortran")
    assert fast_paths.active("lbfgsb_core")


def test_an_unknown_core_falls_back_to_minimize(monkeypatch, fast_paths):
    fun, x0 = _softmax_problem(3)
    options = {"maxiter": 500, "gtol": 1e-8, "ftol": FTOL, "maxls": 50}
    expected = lbfgsb_minimize(fun, x0, use_core=False, **options)
    monkeypatch.delenv(fast_paths.ENV_VAR, raising=False)
    monkeypatch.setattr(fast_paths, "lbfgsb_core_api", lambda: None)
    assert not fast_paths.active("lbfgsb_core")
    (state,) = [s for s in fast_paths.states() if s.name == "lbfgsb_core"]
    assert "an interface gcul does not know" in state.reason  # said, not silent
    result = lbfgsb_minimize(fun, x0, **options)
    np.testing.assert_array_equal(_bits(result.x), _bits(expected.x))
    with pytest.raises(RuntimeError, match="interface gcul does not know"):
        lbfgsb_minimize(fun, x0, use_core=True, **options)


def test_a_core_that_disagrees_with_minimize_is_not_used(monkeypatch, fast_paths):
    # an interface that reads as known but behaves otherwise: the check problem catches it
    def broken(*args):
        raise TypeError("setulb() takes another argument list")

    api = fast_paths.lbfgsb_core_api()
    monkeypatch.delenv(fast_paths.ENV_VAR, raising=False)
    monkeypatch.setattr(fast_paths, "lbfgsb_core_api", lambda: api)
    monkeypatch.setattr("scipy.optimize._lbfgsb.setulb", broken)
    assert not fast_paths.active("lbfgsb_core")
    (state,) = [s for s in fast_paths.states() if s.name == "lbfgsb_core"]
    assert state.reason == "the probe raised TypeError: setulb() takes another argument list"


@pytest.mark.parametrize(
    ("doc", "api"),
    [
        ("setulb(m,x,l,u,nbd,f,g,factr,pgtol,wa,iwa,task,lsave,isave,dsave,maxls,ln_task)", "c"),
        (
            "setulb(m,x,l,u,nbd,f,g,factr,pgtol,wa,iwa,task,iprint,csave,lsave,isave,dsave,"
            "maxls,[n])\n\nWrapper for ``setulb``.",
            "fortran",
        ),
        ("setulb(m, x, bounds, f, g, state)", None),
        (None, None),
    ],
)
def test_the_interface_is_read_from_the_core_signature(monkeypatch, fast_paths, doc, api):
    class Core:
        pass

    Core.__doc__ = doc
    monkeypatch.setattr("scipy.optimize._lbfgsb.setulb", Core)
    fast_paths.reset()
    assert fast_paths.lbfgsb_core_api() == api


def test_maxls_must_be_positive():
    fun, x0 = _softmax_problem(0)
    with pytest.raises(ValueError, match="maxls must be positive"):
        lbfgsb_minimize(fun, x0, maxiter=10, gtol=1e-5, ftol=FTOL, maxls=0, use_core=True)


@pytest.mark.parametrize("noise", [2.0, 8.0])
def test_the_sweeps_fits_are_those_of_minimize(monkeypatch, fast_paths, noise):
    # phase 1's logistic regression and the two trained rejectors, as a sweep cell fits them,
    # with the fast path on (the core) and switched off (minimize): the same bits
    data, model, context = cell(17, noise, SMALL)
    fits = {
        "logistic": lambda: LogisticRegression().fit(data.X_train, data.y_train).coef_,
        "selectivenet": lambda: fit_selectivenet(
            data.X_train, data.y_train, context.target_coverage, phase1=model.phase1_
        ).selection_,
        "deep_gamblers": lambda: fit_deep_gamblers(
            data.X_train, data.y_train, 3.0, phase1=model.phase1_
        ).coef_,
    }
    for name, fit in fits.items():
        monkeypatch.delenv(fast_paths.ENV_VAR, raising=False)
        assert fast_paths.active("lbfgsb_core")
        core = fit()
        monkeypatch.setenv(fast_paths.ENV_VAR, "off")
        assert not fast_paths.active("lbfgsb_core")
        reference = fit()
        np.testing.assert_array_equal(_bits(core), _bits(reference), err_msg=name)
