"""Tests for simulations.rejectors.knn: against a full distance matrix, both search paths."""

from __future__ import annotations

import os

import numpy as np
import pytest
from _rejector_data import PAPER, cell

from simulations.rejectors import get_rejector
from simulations.rejectors.knn import N_NEIGHBORS, FittedKNN

EPS = np.finfo(np.float64).eps


def brute_kth(X_train, X, k):
    distances = np.sqrt(((X[:, None, :] - X_train[None, :, :]) ** 2).sum(axis=2))
    return np.sort(distances, axis=1)[:, k - 1]


def rtol(d):
    # each distance: a sum of d squares (relative error <= d eps) and a square root (eps / 2),
    # computed twice; the k-th order statistic is monotone in the distances, so it keeps the
    # relative bound
    return 2 * (d + 2) * EPS


def test_paper_cell_uses_the_tree_and_matches_brute_force():
    data, model, context = cell(16, 6.0, PAPER)
    fitted = get_rejector("knn").fit(context)
    assert fitted.algorithm_ == "kd_tree" and fitted.n_neighbors == N_NEIGHBORS == 10
    X = data.X_test[:400]
    scores, labels = fitted.score_predict(X)
    np.testing.assert_allclose(-scores, brute_kth(data.X_train, X, 10), rtol=rtol(10), atol=0)
    np.testing.assert_array_equal(labels, model.phase1_.predict(X))


@pytest.mark.parametrize("d", [3, 24])
def test_both_paths_agree_with_brute_force(d):
    rng = np.random.default_rng(d)
    X_train = rng.standard_normal((700, d))
    X_train[:20] = X_train[0]  # duplicates: ties among the neighbours
    X = np.concatenate([rng.standard_normal((150, d)), X_train[:5]])
    _, model, _ = cell(16, 6.0, PAPER)
    reference = brute_kth(X_train, X, 10)
    auto = FittedKNN(X_train, _StubPhase1(), 10)
    assert auto.algorithm_ == ("kd_tree" if d == 3 else "brute")
    for algorithm, leaf_size in (("kd_tree", 128), ("kd_tree", 1), ("brute", 128)):
        fitted = FittedKNN(X_train, _StubPhase1(), 10, algorithm=algorithm, leaf_size=leaf_size)
        np.testing.assert_allclose(fitted.kth_distance(X), reference, rtol=rtol(d), atol=0)
    # a training point among 20 copies: its 10th neighbour is itself, at distance 0
    assert np.all(FittedKNN(X_train, _StubPhase1(), 10, "brute").kth_distance(X[-5:-4]) == 0.0)


def test_brute_force_in_chunks(monkeypatch):
    from simulations.rejectors import knn

    monkeypatch.setattr(knn, "_CHUNK_DISTANCES", 1000)  # 2 query rows per chunk
    rng = np.random.default_rng(5)
    X_train, X = rng.standard_normal((500, 4)), rng.standard_normal((37, 4))
    fitted = FittedKNN(X_train, _StubPhase1(), 3, algorithm="brute")
    np.testing.assert_allclose(fitted.kth_distance(X), brute_kth(X_train, X, 3), rtol=rtol(4))


class _StubPhase1:
    classes_ = np.arange(2)

    @staticmethod
    def predict(X):
        return np.zeros(X.shape[0], dtype=np.int64)


def test_validation():
    X = np.zeros((5, 2))
    with pytest.raises(ValueError, match=r"n_neighbors must be in 1..5 \(the training samples\)"):
        FittedKNN(X, _StubPhase1(), 6)
    with pytest.raises(TypeError, match="n_neighbors must be an int"):
        FittedKNN(X, _StubPhase1(), 2.0)
    with pytest.raises(ValueError, match="algorithm must be 'auto', 'kd_tree' or 'brute'"):
        FittedKNN(X, _StubPhase1(), 2, algorithm="ball_tree")
    with pytest.raises(ValueError, match="leaf_size must be an int >= 1; got 0"):
        FittedKNN(X, _StubPhase1(), 2, leaf_size=0)


# --------------------------------------------------------------------------------------------
# The screened brute force: bit for bit the k-th smallest of cdist against every training row


def _cdist_reference(X_train, X, k):
    from scipy.spatial.distance import cdist

    return np.partition(cdist(X, X_train), k - 1, axis=1)[:, k - 1]


def _digits():
    from sklearn.datasets import load_digits

    Z = load_digits().data.astype(np.float64)
    scale = Z.std(axis=0)
    scale[scale == 0] = 1.0
    return (Z - Z.mean(axis=0)) / scale


def _float32_embeddings():
    rng = np.random.default_rng(3)
    centres = rng.normal(0.0, 1.6, (11, 32)) @ rng.standard_normal((32, 256)) / np.sqrt(32)
    Z = centres[rng.integers(0, 11, 2600)] + 0.3 * rng.standard_normal((2600, 256))
    return Z.astype(np.float32).astype(np.float64)


def _hard_case(Z, case):
    """``Z`` (standard normal rows) made hard as ``case`` says, in place; returned."""
    if case == "offset":  # far from the origin: the identity cancels without centring
        Z += 1e4
    elif case == "duplicates":
        Z[:40] = Z[0]
        Z[40:80] = Z[1] + 1e-12
    elif case == "huge":
        Z *= 1e250
    elif case == "tiny":
        Z *= 1e-300  # partly subnormal in float32 before the power-of-two scaling
    return Z


@pytest.mark.parametrize(
    "case", ["digits", "float32", "offset", "duplicates", "huge", "tiny", "outliers"]
)
@pytest.mark.parametrize("k", [1, 10])
def test_screened_brute_force_is_cdist_bit_for_bit(case, k, monkeypatch):
    from simulations.rejectors import knn

    rng = np.random.default_rng(11)
    if case == "digits":
        Z = _digits()
    elif case == "float32":
        Z = _float32_embeddings()
    else:
        Z = _hard_case(rng.standard_normal((1500, 70)), case)
    X_train, X = Z[: 2 * len(Z) // 3], Z[2 * len(Z) // 3 :]
    if case == "outliers":
        X = X.copy()
        X[:3] *= 1e30  # far beyond the training data: its block takes cdist
    calls = []
    monkeypatch.setattr(knn, "_CHUNK_DISTANCES", 50 * len(X_train))  # several blocks
    original = knn._cdist_kth
    monkeypatch.setattr(knn, "_cdist_kth", lambda *a: calls.append(len(a[0])) or original(*a))
    fitted = FittedKNN(X_train, _StubPhase1(), k, algorithm="brute")
    got = fitted.kth_distance(X)
    np.testing.assert_array_equal(got, _cdist_reference(X_train, X, k))  # every bit
    # the screening ran (no block fell back to cdist against every row) except for outliers
    assert calls == ([50] if case == "outliers" else [])


def test_screening_margin_bounds_the_screened_error():
    # The screened squared distances of a block against the exact ones (cdist on the centred,
    # scaled float64 points, whose own error, a relative (d + 2) * 2**-53, is 2**-29 times
    # below the float32 margin's terms): every error is within screening_margin.
    from scipy.spatial.distance import cdist

    from simulations.rejectors import knn

    rng = np.random.default_rng(4)
    for scale, offset in ((1.0, 0.0), (1e-3, 50.0), (7.0, -3e3)):
        Y = offset + scale * rng.standard_normal((400, 500))
        X = offset + scale * rng.standard_normal((60, 500))
        fitted = FittedKNN(Y, _StubPhase1(), 10, algorithm="brute")
        Y_screen, mean, exponent, y_norms = fitted._screening()
        X_screen = knn._centred(X, mean, exponent)
        x_norms = np.einsum("ij,ij->i", X_screen, X_screen)
        screened = (X_screen @ Y_screen.T) * np.float32(-2.0) + y_norms + x_norms[:, None]
        exact = np.ldexp(cdist(X - mean, Y - mean), -exponent) ** 2
        margin = knn.screening_margin(x_norms, float(y_norms.max()), 500)
        error = np.abs(screened.astype(np.float64) - exact).max(axis=1)
        assert np.all(error <= margin)
        # and the margin is not vacuous: within 1000 times the largest error seen
        assert np.all(margin <= 1000 * error.max())


# --------------------------------------------------------------------------------------------
# The k-d tree's distances by the screened brute force: bit for bit the tree's answer


def _tree_reference(X_train, X, k):
    from scipy.spatial import cKDTree

    return cKDTree(X_train, leafsize=128, balanced_tree=False).query(X, k=[k])[0][:, 0]


@pytest.mark.parametrize(("seed", "noise"), [(16, 0.0), (16, 6.0), (11, 12.0), (19, 16.0)])
def test_sweep_cells_screened_in_the_tree_order_are_the_tree_bit_for_bit(seed, noise):
    from simulations.rejectors import knn

    data, _, context = cell(seed, noise, PAPER)
    fitted = get_rejector("knn").fit(context)
    assert fitted.algorithm_ == "kd_tree"
    # this SciPy's tree sums as tree_squared_distances does (else the tree itself searches)
    assert fitted.search_ == ("screened" if knn.tree_order_known(10) else "tree")
    got = fitted.kth_distance(data.X_test)
    np.testing.assert_array_equal(got, _tree_reference(data.X_train, data.X_test, 10))


@pytest.mark.parametrize("fast_paths", ["on", "off"], indirect=True)
@pytest.mark.parametrize("d", [3, 6, 8, 9])
@pytest.mark.parametrize("case", ["plain", "offset", "duplicates", "huge", "tiny", "outliers"])
@pytest.mark.parametrize("k", [1, 10])
def test_screened_tree_order_is_the_tree_bit_for_bit(d, case, k, monkeypatch, fast_paths):
    # every remainder of d modulo 4 (the tree's four accumulators, then one by one); with the
    # fast path knn_tree_order switched off the tree itself searches (the same bits)
    from simulations.rejectors import knn

    if os.environ.get(fast_paths.ENV_VAR) == "off":
        assert not knn.tree_order_known(d)  # the switch, whatever the probe would say

    rng = np.random.default_rng(d)
    n_train = 2 ** (d + 3)  # below 2**(d + 4): screened
    Z = _hard_case(rng.standard_normal((n_train + 300, d)), case)
    X_train, X = Z[:n_train], Z[n_train:]
    if case == "outliers":
        X = X.copy()
        X[:3] *= 1e30  # its block is searched by the tree
    monkeypatch.setattr(knn, "_CHUNK_DISTANCES", 1)  # never used by the tree-order path
    fitted = FittedKNN(X_train, _StubPhase1(), k)
    assert fitted.algorithm_ == "kd_tree"
    assert fitted.search_ == ("screened" if knn.tree_order_known(d) else "tree")
    np.testing.assert_array_equal(fitted.kth_distance(X), _tree_reference(X_train, X, k))


def test_tree_order_check_tells_another_summation_order(monkeypatch, fast_paths):
    # the check has teeth: sums in plain coordinate order (as cdist adds them) are not the
    # tree's, and a FittedKNN then lets the tree search
    from simulations.rejectors import knn

    def sequential(X, Y):
        squares = (X - Y) ** 2
        total = np.zeros(squares.shape[0])
        for j in range(squares.shape[1]):
            total += squares[:, j]
        return total

    monkeypatch.delenv(fast_paths.ENV_VAR, raising=False)
    monkeypatch.setattr(fast_paths, "tree_squared_distances", sequential)
    assert not knn.tree_order_known(10)
    (state,) = [s for s in fast_paths.states() if s.name == "knn_tree_order"]
    assert not state.active
    assert "does not sum squared distances in the order gcul knows (d = 10:" in state.reason
    rng = np.random.default_rng(2)
    X_train = rng.standard_normal((3000, 10))
    assert FittedKNN(X_train, _StubPhase1(), 10).search_ == "tree"


def test_search_follows_the_training_size():
    # the screened brute force below 2**(d + 4) training rows, the tree from there on
    from simulations.rejectors import knn

    rng = np.random.default_rng(9)
    small, large = rng.standard_normal((2**9, 5)), rng.standard_normal((2**9 + 1, 5))
    assert FittedKNN(small[:-1], _StubPhase1()).search_ == (
        "screened" if knn.tree_order_known(5) else "tree"
    )
    assert FittedKNN(large, _StubPhase1()).search_ == "tree"
    assert FittedKNN(large, _StubPhase1(), algorithm="brute").search_ == "screened"
    with pytest.raises(AttributeError, match="a 'brute' FittedKNN has no k-d tree"):
        _ = FittedKNN(large, _StubPhase1(), algorithm="brute").tree_
