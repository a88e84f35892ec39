"""simulations.compare.sensitivity: the baselines along their knobs (operating_points) and GCUL across PCA
dimensions on one split, and the label-free standardisation (formerly in benchmarks/)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simulations.compare import (
    MAHA_RETAINED,
    MSP_LAMBDAS,
    SN_COVERAGES,
    Split,
    gcul_reference,
    operating_points,
    pca_sweep,
    standardise,
)
from simulations.gcul import GCUL


def _split(n: int = 240, d: int = 4, seed: int = 3) -> Split:
    """Three overlapping Gaussian classes with a tenth of the training labels flipped: errors for
    phase 1 to make, so that GCUL has an error pool."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    X = 1.5 * np.eye(3, d)[y] + rng.normal(size=(n, d))
    y_fit = y.copy()
    flip = rng.random(n) < 0.1
    y_fit[flip] = (y[flip] + 1) % 3
    cut = 3 * n // 4
    return Split("toy", X[:cut], y_fit[:cut], X[cut:], y[cut:], np.random.SeedSequence(seed))


@pytest.fixture(scope="module")
def toy():
    split = _split()
    return split, operating_points(split)


def test_standardise_gives_mean_zero_variance_one_and_centres_a_constant_column():
    Z = np.column_stack([np.arange(5.0), np.full(5, 7.0), np.array([1.0, 1.0, 2.0, 2.0, 9.0])])
    out = standardise(Z)
    # mean of 5 standardised values: rounding of a sum of 5 numbers of order 1, a few ulps
    assert np.allclose(out.mean(axis=0), 0.0, atol=1e-15 * 5)
    assert np.allclose(out[:, [0, 2]].std(axis=0), 1.0, rtol=1e-15 * 10)
    assert np.array_equal(out[:, 1], np.zeros(5))  # constant: centred, not divided by 0
    with pytest.raises(ValueError, match="2-D"):
        standardise(np.arange(3.0))


@pytest.mark.parametrize(
    "change, error, words",
    [
        ({"y_train": np.zeros(3, int)}, ValueError, "same number of rows"),
        ({"X_test": np.zeros((4, 5))}, ValueError, "same columns"),
        ({"X_train": np.zeros(10)}, ValueError, "2-D"),
        ({"seed": 0}, TypeError, "SeedSequence"),
    ],
)
def test_split_refuses_inconsistent_parts(change, error, words):
    parts = {"X_train": np.zeros((10, 4)), "y_train": np.zeros(10, int), "X_test": np.zeros((4, 4)),
             "y_test": np.zeros(4, int), "seed": np.random.SeedSequence(0)} | change  # fmt: skip
    with pytest.raises(error, match=words):
        Split("bad", **parts)


def test_operating_points_cover_every_knob_and_follow_their_rules(toy):
    split, res = toy
    n = split.y_test.size
    assert [r["param"] for r in res["msp"]] == list(MSP_LAMBDAS)
    assert [r["param"] for r in res["selectivenet"]] == list(SN_COVERAGES)
    assert [r["param"] for r in res["mahalanobis"]] == list(MAHA_RETAINED)
    # Chow's rule accepts iff p_max >= 1 - λ: a larger λ accepts a superset, so rejection falls
    rej = [r["rej"] for r in res["msp"]]
    assert rej == sorted(rej, reverse=True) and rej[-1] == 0.0  # λ = 1 accepts every row
    # Mahalanobis keeps exactly round(q n) rows
    for r in res["mahalanobis"]:
        assert r["rej"] == pytest.approx(1.0 - round(r["param"] * n) / n, abs=1e-15)
    # one model's own predictions on the whole test split: the base accuracy does not move with λ
    assert len({r["base_acc"] for r in res["msp"]}) == 1
    g = res["gcul"]
    assert 0.0 <= g["rej"] <= 1.0 and set(g) >= {"sel_acc_msp_at_gcul", "sel_acc_mahalanobis_at_gcul"}


def test_operating_points_reuse_a_fitted_model_without_changing_a_number(toy):
    split, res = toy
    again = operating_points(split, GCUL().fit(split.X_train, split.y_train))
    np.testing.assert_equal(again, res)  # exact, NaN equal to NaN (the fit is deterministic)
    with pytest.raises(TypeError, match="fitted GCUL"):
        operating_points(split, GCUL())


def test_gcul_reference_is_the_models_own_accept_set():
    split = _split()
    model = GCUL().fit(split.X_train, split.y_train)
    ref = gcul_reference(model, split)
    accepted = ~model.indicators(split.X_test, split.y_test).rejected
    assert ref["rej"] == pytest.approx(1.0 - accepted.mean(), abs=1e-15)
    pred = np.asarray(model.predict(split.X_test))
    if accepted.any():
        assert ref["sel_acc"] == pytest.approx(np.mean(pred[accepted] == split.y_test[accepted]), abs=1e-12)


def test_pca_sweep_rows_in_order_and_dims_checked():
    split = _split()
    rows = pca_sweep(split, (2, 4))
    assert [r["k"] for r in rows] == [2, 4]
    assert all(math.isfinite(r["lambda_pre"]) for r in rows)
    with pytest.raises(ValueError, match="dims"):
        pca_sweep(split, (2, 5))  # d = 4
    with pytest.raises(ValueError, match="at least one"):
        pca_sweep(split, ())
