"""Geometry and estimate_geometry (gcul_theory._geometry): recovery, invariances, degenerate cases."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gcul_theory import Geometry, critical_lambda, estimate_geometry


def gaussian_world(rng, n_err=4000, n_clean=4000):
    """An error attractor at the origin and two class cores, with known anisotropic covariances."""
    mu_mix = np.zeros(3)
    mu = np.array([[6.0, 0.0, 0.0], [0.0, -4.0, 0.0]])
    cov_mix = np.diag([1.0, 2.25, 0.5])
    covs = [np.diag([0.64, 1.0, 1.0]), np.diag([1.0, 4.0, 1.0])]
    Z = [rng.multivariate_normal(mu_mix, cov_mix, n_err)]
    y = [rng.integers(0, 2, n_err)]
    y_pred = [1 - y[0]]  # every attractor sample is misclassified
    for c in range(2):
        Z.append(rng.multivariate_normal(mu[c], covs[c], n_clean))
        y.append(np.full(n_clean, c))
        y_pred.append(np.full(n_clean, c))
    truth = {
        "D": np.linalg.norm(mu_mix - mu, axis=1),
        "sigma_mix": np.sqrt([1.0, 2.25]),  # d̂ are the coordinate axes: the diagonal entries
        "sigma_c": np.sqrt([0.64, 4.0]),
    }
    return np.vstack(Z), np.concatenate(y), np.concatenate(y_pred), truth


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_recovers_known_distances_and_spreads(seed):
    Z, y, y_pred, truth = gaussian_world(np.random.default_rng(seed))
    g = estimate_geometry(Z, y, y_pred)
    # Standard errors: mean ~ σ/√4000 ≈ 0.024; std ~ σ/√8000 ≈ 1 %.
    np.testing.assert_allclose(g.D, truth["D"], atol=0.1)
    np.testing.assert_allclose(g.sigma_mix, truth["sigma_mix"], rtol=0.05)
    np.testing.assert_allclose(g.sigma_c, truth["sigma_c"], rtol=0.05)
    assert float(g.eps) == pytest.approx(4000 / 12000)
    assert g.notes == ()


def test_matches_the_covariance_definition_exactly():
    rng = np.random.default_rng(7)
    Z = rng.normal(size=(300, 4))
    y = rng.integers(0, 3, 300)
    y_pred = np.where(rng.random(300) < 0.3, rng.integers(0, 3, 300), y)
    g = estimate_geometry(Z, y, y_pred)
    errors = y_pred != y
    mu_mix = Z[errors].mean(axis=0)
    cov_mix = np.cov(Z[errors], rowvar=False, ddof=1)
    for c in range(3):
        clean = Z[(~errors) & (y == c)]
        d = mu_mix - clean.mean(axis=0)
        D = np.linalg.norm(d)
        d_hat = d / D
        assert g.D[c] == pytest.approx(D, rel=1e-12)
        assert g.sigma_mix[c] == pytest.approx(np.sqrt(d_hat @ cov_mix @ d_hat), rel=1e-10)
        cov_c = np.cov(clean, rowvar=False, ddof=1)
        assert g.sigma_c[c] == pytest.approx(np.sqrt(d_hat @ cov_c @ d_hat), rel=1e-10)
        assert g.pi[c] == pytest.approx(np.mean(y == c))
        assert g.eps_c[c] == pytest.approx(np.mean(errors[y == c]))
    assert float(g.eps) == pytest.approx(errors.mean())
    assert float((g.pi * g.eps_c).sum()) == pytest.approx(float(g.eps))


@given(seed=st.integers(0, 2**32 - 1), shift=st.floats(-100, 100))
def test_invariant_under_rotation_translation_and_permutation(seed, shift):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(120, 3)) * [1.0, 2.0, 3.0]
    y = rng.integers(0, 3, 120)
    y_pred = np.where(rng.random(120) < 0.4, rng.integers(0, 3, 120), y)
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    order = rng.permutation(120)
    a = estimate_geometry(Z, y, y_pred, n_classes=3)
    b = estimate_geometry((Z @ q.T + shift)[order], y[order], y_pred[order], n_classes=3)
    for name in ("D", "sigma_mix", "sigma_c"):
        np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=1e-7, atol=1e-6)
    np.testing.assert_array_equal(a.eps_c, b.eps_c)


def test_no_error_gives_zero_lambda_with_a_note():
    Z = np.random.default_rng(0).normal(size=(50, 2))
    y = np.repeat([0, 1], 25)
    g = estimate_geometry(Z, y, y)
    assert float(g.eps) == 0.0
    assert any("no misclassified" in note for note in g.notes)
    assert critical_lambda(g) == 0.0
    assert np.all(np.isfinite(g.D))


def test_class_without_clean_sample_is_placed_at_the_attractor():
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(60, 2))
    y = np.repeat([0, 1, 2], 20)
    y_pred = y.copy()
    y_pred[40:] = 0  # class 2 is always wrong
    g = estimate_geometry(Z, y, y_pred)
    assert g.D[2] == 0.0 and g.sigma_c[2] == 0.0 and g.sigma_mix[2] == 0.0
    assert any("class 2 has no correctly classified sample" in note for note in g.notes)
    assert np.isfinite(critical_lambda(g, "union"))


def test_single_error_and_single_clean_sample_have_zero_spread():
    Z = np.array([[0.0, 0.0], [1.0, 0.0], [5.0, 0.0], [5.0, 1.0], [6.0, 0.0]])
    y = np.array([0, 0, 1, 1, 1])
    y_pred = np.array([0, 1, 1, 1, 1])  # one error (index 1); class 0 has one clean sample
    g = estimate_geometry(Z, y, y_pred)
    assert g.sigma_mix.tolist() == [0.0, 0.0]
    assert g.sigma_c[0] == 0.0
    assert any("single misclassified" in n for n in g.notes)
    assert any("class 0 has one correctly classified" in n for n in g.notes)


@pytest.mark.parametrize(
    ("Z", "y", "y_pred", "kind", "words"),
    [
        (np.full((4, 2), np.nan), [0, 1, 0, 1], [0, 1, 1, 1], ValueError, ["Z", "finite"]),
        (np.zeros(4), [0, 1, 0, 1], [0, 1, 1, 1], ValueError, ["Z", "two-dimensional"]),
        (np.zeros((4, 2)), [0, 1, 0], [0, 1, 1, 1], ValueError, ["y", "one label per row"]),
        (np.zeros((4, 2)), [0, 1, 0, 1], [0, 1, 1, -1], ValueError, ["y_pred", "0..1", "-1"]),
        (np.zeros((4, 2)), [0, 0, 0, 0], [0, 0, 0, 0], ValueError, ["n_classes", "at least 2"]),
        (np.zeros((4, 2)), [0, 0.5, 0, 1], [0, 1, 1, 1], ValueError, ["y", "integer"]),
        (np.zeros((4, 2)), ["a", "b", "a", "b"], [0, 1, 1, 1], TypeError, ["y", "integer"]),
    ],
)
def test_bad_inputs_raise(Z, y, y_pred, kind, words):
    with pytest.raises(kind) as info:
        estimate_geometry(Z, np.asarray(y), np.asarray(y_pred))
    for word in words:
        assert word in str(info.value)


def test_label_beyond_n_classes_raises():
    with pytest.raises(ValueError, match=r"y labels must lie in 0\.\.1; got 2"):
        estimate_geometry(np.zeros((3, 2)), np.array([0, 1, 2]), np.array([0, 1, 1]), n_classes=2)


GOOD = dict(
    eps=0.1, pi=[0.5, 0.5], eps_c=[0.1, 0.1], D=[4.0, 4.0], sigma_mix=[1.0, 1.0], sigma_c=[1.0, 1.0]
)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"pi": [0.6, 0.6]}, ["pi", "sum to 1"]),
        ({"eps": 0.2}, ["eps", "sum_c pi_c * eps_c"]),
        ({"D": [4.0, 4.0, 4.0]}, ["D", "shape"]),
        ({"sigma_c": [1.0, -1.0]}, ["sigma_c", "-1.0"]),
        (
            {"pi": [1.0], "eps_c": [0.1], "D": [1.0], "sigma_mix": [1.0], "sigma_c": [1.0]},
            ["two classes"],
        ),
    ],
)
def test_geometry_validates(change, words):
    with pytest.raises(ValueError) as info:
        Geometry(**{**GOOD, **change})
    for word in words:
        assert word in str(info.value)


def test_geometry_is_frozen_and_read_only():
    g = Geometry(**GOOD)
    with pytest.raises(AttributeError):
        g.eps = 0.3
    with pytest.raises(ValueError):
        g.D[0] = 1.0


def test_stacked_geometries_evaluate_like_single_ones():
    singles = [Geometry(**{**GOOD, "D": [d, d + 1]}) for d in (1.0, 3.0, 6.0)]
    stacked = Geometry(
        eps=[0.1] * 3,
        pi=[[0.5, 0.5]] * 3,
        eps_c=[[0.1, 0.1]] * 3,
        D=[[d, d + 1] for d in (1.0, 3.0, 6.0)],
        sigma_mix=[[1.0, 1.0]] * 3,
        sigma_c=[[1.0, 1.0]] * 3,
    )
    for method in ("gaussian", "union", "chernoff"):
        np.testing.assert_array_equal(
            critical_lambda(stacked, method), [critical_lambda(g, method) for g in singles]
        )
