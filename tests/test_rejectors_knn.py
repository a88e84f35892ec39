"""Tests for simulations.rejectors.knn: against a full distance matrix, both search paths."""

from __future__ import annotations

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
