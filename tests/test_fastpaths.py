"""Tests for simulations._fastpaths: the switch, the probes' state, ``gcul info``.

Each fast path promises its portable path's results bit for bit; those identities are tested
where the paths are taken, with the switch both ways (the ``fast_paths`` fixture of conftest.py):
``test_lbfgsb.py`` (``lbfgsb_core``), ``test_models.py`` (``kmeans_lean``, the tests named
``kmeans_memory_lean`` and ``kmeans_overwrite_x``) and ``test_rejectors_knn.py``
(``knn_tree_order``). Here: that ``GCUL_FAST_PATHS=off`` makes every path report inactive and the
code take its fallback (read from the probes' public state and from what the code calls, never
from timing), that a failed probe says why, and that ``gcul info`` lists every path.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from _cli import run

from simulations.models import LogisticRegression
from simulations.models import _kmeans
from simulations.rejectors.knn import FittedKNN

NAMES = ("lbfgsb_core", "kmeans_lean", "knn_tree_order")
LARGE = (1 << 20, 8)  # 2**23 values: kmeans_lean's size (no array of that size is made)


class _StubPhase1:
    classes_ = np.arange(2)


def _fit_logistic():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 3))
    return LogisticRegression().fit(X, (X[:, 0] > 0).astype(int)).coef_


def _fast_calls(monkeypatch, fast_paths) -> list[str]:
    """Record a call of each fast path's own code (the driver of SciPy's core, the blockwise
    variances, the screened brute force's sums in the tree's order)."""
    calls: list[str] = []

    def spy(name, function):
        def wrapped(*args, **kwargs):
            calls.append(name)
            return function(*args, **kwargs)

        return wrapped

    monkeypatch.setattr(
        fast_paths, "drive_lbfgsb_core", spy("lbfgsb_core", fast_paths.drive_lbfgsb_core)
    )
    from simulations.rejectors import knn

    monkeypatch.setattr(
        knn, "tree_squared_distances", spy("knn_tree_order", knn.tree_squared_distances)
    )
    return calls


def _run_each_path():
    """Take every place a fast path applies: a logistic fit, K-Means's choice for a large X, a
    kNN search below 2**(d + 4) training rows. Returns what kmeans and knn chose."""
    _fit_logistic()
    lean = _kmeans.lean_applies(LARGE, 3)
    rng = np.random.default_rng(1)
    fitted = FittedKNN(rng.standard_normal((200, 4)), _StubPhase1(), 5)
    fitted.kth_distance(rng.standard_normal((30, 4)))
    return lean, fitted.search_


@pytest.mark.parametrize("value", ["off", "OFF", " off "])
def test_switched_off_every_path_is_inactive_and_the_fallback_is_taken(
    monkeypatch, fast_paths, value
):
    calls = _fast_calls(monkeypatch, fast_paths)
    monkeypatch.setenv(fast_paths.ENV_VAR, value)
    assert fast_paths.forced_off()
    states = fast_paths.states()
    assert [s.name for s in states] == list(NAMES)
    for state in states:
        assert not state.active and state.reason == "switched off: GCUL_FAST_PATHS=off"
    assert not any(fast_paths.active(name, 10) for name in NAMES)
    lean, search = _run_each_path()
    assert (lean, search, calls) == (False, "tree", [])
    assert fast_paths._RESULTS == {}  # no probe ran


@pytest.mark.parametrize("value", [None, "", "on", "On"])
def test_switched_on_the_probes_decide_and_the_fast_paths_are_taken(
    monkeypatch, fast_paths, value
):
    # lbfgsb_core and kmeans_lean hold on both of CI's stacks (test_lbfgsb.py and test_models.py
    # say so too); knn_tree_order is taken where its probe holds, as test_rejectors_knn.py allows
    calls = _fast_calls(monkeypatch, fast_paths)
    if value is None:
        monkeypatch.delenv(fast_paths.ENV_VAR, raising=False)
    else:
        monkeypatch.setenv(fast_paths.ENV_VAR, value)
    assert not fast_paths.forced_off()
    states = {state.name: state for state in fast_paths.states()}
    assert states["lbfgsb_core"].active and states["kmeans_lean"].active
    tree_order = fast_paths.active("knn_tree_order", 4)
    lean, search = _run_each_path()
    assert (lean, search) == (True, "screened" if tree_order else "tree")
    assert set(calls) == {"lbfgsb_core"} | ({"knn_tree_order"} if tree_order else set())


@pytest.mark.parametrize("value", ["0", "false", "portable", "of"])
def test_another_value_of_the_switch_is_refused(monkeypatch, fast_paths, value, capsys):
    monkeypatch.setenv(fast_paths.ENV_VAR, value)
    with pytest.raises(ValueError, match=f"GCUL_FAST_PATHS must be 'on' or 'off'.*{value!r}"):
        fast_paths.active("lbfgsb_core")
    code, out, err = run(["info"], capsys)
    assert code == 2 and out == ""
    assert err == (
        f"gcul info: error: GCUL_FAST_PATHS must be 'on' or 'off' (or unset: on); "
        f"got {value!r}\n"
    )


def test_an_unknown_name_is_refused(fast_paths):
    with pytest.raises(ValueError, match="no fast path named 'lean'; the fast paths are "):
        fast_paths.active("lean")


def _counting(monkeypatch, fast_paths, probe):
    """Replace kmeans_lean's probe by ``probe``, counting its calls."""
    calls = []

    def counted(key):
        calls.append(key)
        return probe(key)

    paths = tuple(
        dataclasses.replace(path, probe=counted) if path.name == "kmeans_lean" else path
        for path in fast_paths.FAST_PATHS
    )
    monkeypatch.setattr(fast_paths, "FAST_PATHS", paths)
    monkeypatch.delenv(fast_paths.ENV_VAR, raising=False)
    return calls


def test_a_probe_runs_once_per_process(monkeypatch, fast_paths):
    calls = _counting(monkeypatch, fast_paths, lambda key: "checked")
    for _ in range(3):
        assert fast_paths.active("kmeans_lean")
    fast_paths.states()
    assert calls == [None]
    fast_paths.reset()
    assert fast_paths.active("kmeans_lean") and calls == [None, None]


def test_a_probe_that_raises_leaves_the_path_inactive_and_says_why(monkeypatch, fast_paths):
    def broken(key):
        raise AttributeError("module 'numpy' has no attribute 'var'")

    _counting(monkeypatch, fast_paths, broken)
    assert not fast_paths.active("kmeans_lean")
    assert not _kmeans.lean_applies(LARGE, 3)  # the copies
    (state,) = [s for s in fast_paths.states() if s.name == "kmeans_lean"]
    assert state.reason == "the probe raised AttributeError: module 'numpy' has no attribute 'var'"


def test_the_kmeans_probe_tells_another_summation_order(monkeypatch, fast_paths):
    # variances summed in another order (pairwise over the whole column, then rounded
    # differently) are not np.var's bit for bit: the probe finds it and says which fact failed
    def other_order(X, rows=None):
        return np.mean((X - X.mean(axis=0)) ** 2, axis=0) * (1.0 + 2.0**-52)

    monkeypatch.delenv(fast_paths.ENV_VAR, raising=False)
    monkeypatch.setattr(fast_paths, "column_variances", other_order)
    assert not fast_paths.active("kmeans_lean")
    (state,) = [s for s in fast_paths.states() if s.name == "kmeans_lean"]
    assert state.reason.startswith("NumPy's sum along axis 0 is not continued row block by row")


def test_the_lbfgsb_probe_tells_a_different_minimiser(monkeypatch, fast_paths):
    drive = fast_paths.drive_lbfgsb_core

    def off_by_one_bit(*args, **kwargs):
        x, nit, status, message = drive(*args, **kwargs)
        return np.nextafter(x, np.inf), nit, status, message

    monkeypatch.delenv(fast_paths.ENV_VAR, raising=False)
    monkeypatch.setattr(fast_paths, "drive_lbfgsb_core", off_by_one_bit)
    assert not fast_paths.active("lbfgsb_core")
    (state,) = [s for s in fast_paths.states() if s.name == "lbfgsb_core"]
    assert state.reason == "on the check problem the core's minimiser differs from minimize's"


def test_every_fast_path_declares_its_contract_and_fallback(fast_paths):
    assert tuple(path.name for path in fast_paths.FAST_PATHS) == NAMES
    for path in fast_paths.FAST_PATHS:
        assert "bit for bit" in path.contract, path.name
        assert path.fallback and path.where, path.name
        assert path.name in fast_paths.__doc__, path.name  # documented in the module


@pytest.mark.parametrize("switch", ["on", "off"])
def test_gcul_info_lists_every_fast_path(monkeypatch, fast_paths, capsys, switch):
    monkeypatch.setenv(fast_paths.ENV_VAR, switch)
    code, out, err = run(["info"], capsys)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("gcul ") and "NumPy " in lines[0] and "SciPy " in lines[0]
    assert f"GCUL_FAST_PATHS is '{switch}'" in lines[1]
    expected = {state.name: state for state in fast_paths.states()}
    assert switch == "on" or not any(state.active for state in expected.values())
    for name in NAMES:
        (line,) = [line for line in lines if line.split()[:1] == [name]]
        status, reason = line.split()[1], line.split(None, 2)[2]
        assert status == ("active" if expected[name].active else "inactive"), line
        assert reason == expected[name].reason  # why, both ways
    code, out, _ = run(["info", "--json"], capsys)
    found = json.loads(out)
    assert code == 0 and found["switch"]["forced_off"] == (switch == "off")
    assert [path["name"] for path in found["fast_paths"]] == list(NAMES)
    assert [path["active"] for path in found["fast_paths"]] == [
        expected[name].active for name in NAMES
    ]
    assert all(path["reason"] and path["contract"] for path in found["fast_paths"])


def test_gcul_info_shows_why_a_probe_failed(monkeypatch, fast_paths, capsys):
    monkeypatch.delenv(fast_paths.ENV_VAR, raising=False)
    monkeypatch.setattr(fast_paths, "lbfgsb_core_api", lambda: None)
    code, out, _ = run(["info"], capsys)
    (line,) = [line for line in out.splitlines() if line.startswith("  lbfgsb_core ")]
    assert code == 0 and " inactive " in line
    assert "L-BFGS-B core has an interface gcul does not know" in line
