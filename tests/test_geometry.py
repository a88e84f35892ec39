"""Geometry and estimate_geometry (gcul_theory._geometry): recovery, invariances, degenerate cases."""

from __future__ import annotations

import numpy as np
import pytest
from _tolerances import ALPHA, gamma, normal_quantile
from hypothesis import example, given
from hypothesis import strategies as st
from scipy.stats import chi2

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
        "axis": [0, 1],
        "cov_mix": cov_mix,
        "covs": covs,
        "n": (n_err, n_clean),
    }
    return np.vstack(Z), np.concatenate(y), np.concatenate(y_pred), truth


def recovery_tolerances(truth: dict) -> dict:
    """Sampling tolerances of the estimates, each exceeded with probability <= ALPHA = 1e-9.

    D̂_c = |d_c + Δ| with Δ = error of the two means: along d̂_c it is normal with variance
    (Σ_mix + Σ_c)_kk/n, across it |Δ_⊥|² <= chi²_2 quantile times the largest variances, which
    adds |Δ_⊥|²/(2D) and tilts d̂_c by θ <= |Δ_⊥|/(D - |Δ_∥|). A spread along a fixed axis:
    (n - 1)s²/σ² is chi²_{n-1}; the tilt adds at most θ²·λ_max/σ² to s²/σ² (Σ is diagonal
    and d̂_c an axis, so the first-order term vanishes). 6 checks per seed, 3 seeds.
    """
    z = normal_quantile()
    n_err, n_clean = truth["n"]
    perp_quantile = chi2.isf(ALPHA, 2)
    out = {"D": [], "sigma_mix": [], "sigma_c": []}
    for c, k in enumerate(truth["axis"]):
        cov_c = truth["covs"][c]
        D = truth["D"][c]
        along = np.sqrt(truth["cov_mix"][k, k] / n_err + cov_c[k, k] / n_clean)
        largest = np.max(np.diag(truth["cov_mix"])) / n_err + np.max(np.diag(cov_c)) / n_clean
        perp2 = perp_quantile * largest
        out["D"].append(z * along + perp2 / (2 * (D - z * along)))
        theta2 = perp2 / (D - z * along) ** 2
        for name, cov, n in (("sigma_mix", truth["cov_mix"], n_err), ("sigma_c", cov_c, n_clean)):
            var = cov[k, k]
            spread = max(
                1 - np.sqrt(chi2.ppf(ALPHA / 2, n - 1) / (n - 1)),
                np.sqrt(chi2.isf(ALPHA / 2, n - 1) / (n - 1)) - 1,
            )
            out[name].append(spread + theta2 * np.max(np.diag(cov)) / (2 * var))
    return {name: np.array(values) for name, values in out.items()}


def two_route_bounds(error_rows: np.ndarray, clean_rows: np.ndarray) -> tuple[float, float, float]:
    """How far two evaluations of D, s_mix and s_c (any summation order) can differ in floats.

    A mean of n rows is within gamma(n)·mean|x| of exact in any order (Higham eq. 4.4) and D is
    1-Lipschitz in the two means, so D's bound is absolute (the means can cancel); the direction
    d̂ then tilts by <= 2·tol_D/D. s² = d̂ᵀΣ̂d̂: the covariance's sums are within
    gamma(n + 3)·mean|x - m|², and the tilt moves s² by <= 2·trace(Σ̂)·tilt; s = √s² halves the
    relative error. Each bound is doubled: both evaluations carry it. Returns
    ``(tol_D, rel_s_mix, rel_s_c)``.
    """
    mean_error = gamma(len(error_rows)) * np.abs(error_rows).mean(axis=0)
    mean_error += gamma(len(clean_rows)) * np.abs(clean_rows).mean(axis=0)
    D = float(np.linalg.norm(error_rows.mean(axis=0) - clean_rows.mean(axis=0)))
    tol_D = 2 * (float(np.linalg.norm(mean_error)) + gamma(8) * D)
    tilt = 2 * tol_D / D
    direction = (error_rows.mean(axis=0) - clean_rows.mean(axis=0)) / D
    relative = []
    for rows in (error_rows, clean_rows):
        cov = np.atleast_2d(np.cov(rows, rowvar=False, ddof=1))
        var = float(direction @ cov @ direction)
        centred = float(np.sum((rows - rows.mean(axis=0)) ** 2, axis=1).mean()) * 1.01
        error = gamma(len(rows) + 3) * centred + 2 * float(np.trace(cov)) * tilt
        relative.append(2 * error / (2 * var))
    return tol_D, relative[0], relative[1]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_recovers_known_distances_and_spreads(seed):
    Z, y, y_pred, truth = gaussian_world(np.random.default_rng(seed))
    g = estimate_geometry(Z, y, y_pred)
    # Standard errors: mean ~ σ/√4000 ≈ 0.024; std ~ σ/√8000 ≈ 1 %; tolerances at 1e-9 a check
    # (recovery_tolerances): D within 0.15 and 0.25, spreads within 8 %.
    tolerance = recovery_tolerances(truth)
    assert np.all(np.abs(g.D - truth["D"]) <= tolerance["D"]), (g.D, tolerance["D"])
    for name in ("sigma_mix", "sigma_c"):
        relative = np.abs(getattr(g, name) / truth[name] - 1)
        assert np.all(relative <= tolerance[name]), (name, relative, tolerance[name])
    assert float(g.eps) == pytest.approx(4000 / 12000, rel=gamma(4), abs=0)  # count ratios
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
        # two summation orders, the library's and numpy's (two_route_bounds)
        tol_D, rel_mix, rel_c = two_route_bounds(Z[errors], clean)
        assert g.D[c] == pytest.approx(D, rel=0, abs=tol_D)
        assert g.sigma_mix[c] == pytest.approx(np.sqrt(d_hat @ cov_mix @ d_hat), rel=rel_mix, abs=0)
        cov_c = np.cov(clean, rowvar=False, ddof=1)
        assert g.sigma_c[c] == pytest.approx(np.sqrt(d_hat @ cov_c @ d_hat), rel=rel_c, abs=0)
        # count ratios, each rounded once (or a few times): within gamma(4)
        assert g.pi[c] == pytest.approx(np.mean(y == c), rel=gamma(4), abs=0)
        assert g.eps_c[c] == pytest.approx(np.mean(errors[y == c]), rel=gamma(4), abs=0)
    assert float(g.eps) == pytest.approx(errors.mean(), rel=gamma(4), abs=0)
    # three products and a sum of three non-negative terms: gamma(2) + gamma(2) each side
    assert float((g.pi * g.eps_c).sum()) == pytest.approx(float(g.eps), rel=gamma(8), abs=0)


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
    # a is within half of two_route_bounds(Z) of the exact geometry of Z, which the exact
    # transformation leaves unchanged; b is within half of two_route_bounds(Z q^T + shift) of the
    # exact geometry of the rounded transformed rows, each moved by <= gamma(3)(|shift| + |Z_i|_1)
    # per coordinate: the means move by <= √3 times the mean move, the spreads by that over s.
    errors = y_pred != y
    moved = Z @ q.T + shift
    move = gamma(3) * (abs(shift) + np.abs(Z).sum(axis=1))
    for c in range(3):
        clean = (~errors) & (y == c)
        if not clean.any() or not errors.any():
            continue
        bound_a = two_route_bounds(Z[errors], Z[clean])
        bound_b = two_route_bounds(moved[errors], moved[clean])
        shift_D = np.sqrt(3) * (move[errors].mean() + move[clean].mean())
        tol_D = (bound_a[0] + bound_b[0]) / 2 + shift_D
        assert b.D[c] == pytest.approx(a.D[c], rel=0, abs=tol_D)
        tilt = 2 * shift_D / a.D[c]
        trace = np.trace(np.cov(Z, rowvar=False))
        for k, (name, rows) in enumerate((("sigma_mix", errors), ("sigma_c", clean)), start=1):
            value = getattr(a, name)[c]
            rel = (bound_a[k] + bound_b[k]) / 2 + (trace * tilt + 2 * move[rows].mean()) / value**2
            assert getattr(b, name)[c] == pytest.approx(value, rel=rel, abs=0)
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


def test_every_sample_misclassified_places_every_core_at_the_attractor():
    # Found by tests/test_fuzz.py: no clean sample at all crashed the per-class sums.
    Z = np.random.default_rng(2).normal(size=(6, 2))
    g = estimate_geometry(Z, [0, 1, 2, 0, 1, 2], [1, 2, 0, 1, 2, 0])
    assert float(g.eps) == 1.0 and g.D.tolist() == [0.0, 0.0, 0.0]
    assert any("classes 0..2 have no correctly classified sample" in n for n in g.notes)
    assert critical_lambda(g) == 0.0


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
        (
            np.zeros((4, 2)),
            [0, 1, 0, 1],
            [0, 1, 1, -1],
            ValueError,
            ["y_pred", "non-negative", "-1"],
        ),
        (
            np.zeros((4, 2)),
            [0, 0, 0, 0],
            [0, 0, 0, 0],
            ValueError,
            ["y", "n_classes", "at least two"],
        ),
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
    with pytest.raises(
        ValueError, match=r"y labels must lie in 0\.\.1 \(n_classes = 2, given\); got 2"
    ):
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


# --------------------------------------------------------------------------------------------
# Hardening (issue 6): tolerances relative to the numbers, labels that are surely wrong, Z at the
# edges of float64, work in O(number of distinct labels).


def test_identity_tolerance_is_relative():
    # An absolute 1e-8 accepted this geometry; its error-pool weights sum to 5 and
    # structural_existence_confidence returned -4.0.
    with pytest.raises(ValueError, match="eps must equal sum_c pi_c"):
        Geometry(**{**GOOD, "eps": 1e-9, "eps_c": [5e-9, 5e-9]})
    with pytest.raises(ValueError, match="pi must sum to 1"):
        Geometry(**{**GOOD, "pi": [0.5, 0.5 + 1e-9]})


def test_identity_accepts_counts_rounded_to_float():
    # Ten classes of a 3-sample-per-class set: every π_c and ε_c is a rounded count ratio.
    pi = np.full(10, 0.1)  # sums to 0.9999999999999999
    eps_c = np.arange(10) / 3 % 1
    g = Geometry(
        eps=float(np.sum(pi * eps_c)),
        pi=pi,
        eps_c=eps_c,
        D=np.ones(10),
        sigma_mix=np.ones(10),
        sigma_c=np.ones(10),
    )
    # ε = float(sum π_c ε_c) is within gamma(10) of the exact sum; each weight π_c ε_c/ε within
    # gamma(3) (frexp products); the 10-term sum gamma(10): 1 within gamma(23)
    assert abs(g.weights.sum() - 1.0) <= gamma(23)


@pytest.mark.slow  # 5 s: a hypothesis search over geometries
@given(
    eps_c=st.lists(st.floats(0.0, 1.0), min_size=2, max_size=6),
    seed=st.integers(0, 2**32 - 1),
    D=st.sampled_from([0.0, 5e-324, 1.0, 1e300]),
    sigma=st.sampled_from([0.0, 5e-324, 1.0, 1e300, 1.7e308]),
)
@example(eps_c=[1.0] * 6, seed=0, D=0.0, sigma=0.0)  # sum_c pi_c * 1 rounded to 1 + 2**-52
def test_bounds_stay_in_range_on_every_accepted_geometry(eps_c, seed, D, sigma):
    from gcul_theory import (
        METHODS,
        capture_rate_bound,
        contamination_rate_bound,
        structural_existence_confidence,
    )

    C = len(eps_c)
    pi = np.random.default_rng(seed).dirichlet(np.ones(C))
    eps_c = np.array(eps_c)
    implied = float(np.sum(pi * eps_c))
    # The largest ε the relative tolerance accepts: the weights then sum to just above 1.
    # (implied itself can round to just above 1 when every eps_c is 1: clip, eps lies in [0, 1])
    for eps in (
        min(1.0, implied),
        implied * (1 - 3 * C * 2.0**-53),
        min(1.0, implied * (1 + 3 * C * 2.0**-53)),
    ):
        g = Geometry(
            eps=eps,
            pi=pi,
            eps_c=eps_c,
            D=[D] * C,
            sigma_mix=[sigma] * C,
            sigma_c=[sigma] * C,
            corr_mix=np.eye(C),  # so "hunter_worsley" and "gaussian_exact" are checked too
        )
        assert 0.0 <= structural_existence_confidence(g) <= 1.0
        for method in METHODS:
            assert 0.0 <= capture_rate_bound(g, method) <= 1.0
            assert 0.0 <= contamination_rate_bound(g, method) <= 1.0
            assert 0.0 <= critical_lambda(g, method) <= 1.0


def small_world(n=60, seed=0):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 3))
    y = rng.integers(0, 3, n)
    y_pred = np.where(rng.random(n) < 0.3, rng.integers(0, 3, n), y)
    return Z, y, y_pred


@pytest.mark.parametrize("label", [10**6, 10**7])
def test_a_stray_huge_label_is_refused_naming_the_empty_classes(label):
    # One label of 10**6 took 12 s (a loop over 10**6 classes); 10**7 ended in a MemoryError.
    Z, y, y_pred = small_world()
    y[0] = label
    with pytest.raises(ValueError) as info:
        estimate_geometry(Z, y, y_pred)
    message = str(info.value)
    assert f"empty classes: 3..{label - 1}" in message
    assert "np.unique(y, return_inverse=True)" in message and "n_classes" in message
    assert len(message) < 600


def test_one_based_labels_are_refused():
    Z, y, y_pred = small_world()
    with pytest.raises(ValueError, match=r"empty classes: 0\. "):
        estimate_geometry(Z, y + 1, y_pred + 1)
    g = estimate_geometry(Z, y + 1, y_pred + 1, n_classes=4)  # explicit: allowed, with a note
    assert g.pi[0] == 0.0 and any("never occur in y" in note for note in g.notes)


def test_explicit_n_classes_is_bounded_and_cheap():
    from gcul_theory._geometry import MAX_CLASSES

    Z, y, y_pred = small_world()
    with pytest.raises(ValueError, match=f"n_classes must be at most {MAX_CLASSES}; got 1000000"):
        estimate_geometry(Z, y, y_pred, n_classes=10**6)
    g = estimate_geometry(Z, y, y_pred, n_classes=MAX_CLASSES)  # per present class only
    reference = estimate_geometry(Z, y, y_pred)
    for name in ("D", "sigma_mix", "sigma_c", "pi", "eps_c"):
        np.testing.assert_array_equal(getattr(g, name)[:3], getattr(reference, name))
    assert np.all(g.D[3:] == 0.0) and np.all(g.pi[3:] == 0.0)
    assert sum("never occur" in note for note in g.notes) == 1  # one note, not 4093


def test_many_classes_match_the_per_class_definition():
    # K > d takes the scatter-matrix route for sigma_mix; it must agree with the projections.
    rng = np.random.default_rng(3)
    Z = rng.normal(size=(3000, 2)) * [1.0, 3.0]
    y = rng.integers(0, 40, 3000)
    y_pred = np.where(rng.random(3000) < 0.3, rng.integers(0, 40, 3000), y)
    g = estimate_geometry(Z, y, y_pred)
    errors = y_pred != y
    mu_mix = Z[errors].mean(axis=0)
    for c in range(40):
        clean = Z[(~errors) & (y == c)]
        d_hat = (mu_mix - clean.mean(axis=0)) / g.D[c]
        tol_D, rel_mix, rel_c = two_route_bounds(Z[errors], clean)  # two summation routes
        D = np.linalg.norm(mu_mix - clean.mean(axis=0))
        assert g.D[c] == pytest.approx(D, rel=0, abs=tol_D)
        assert g.sigma_mix[c] == pytest.approx(np.std(Z[errors] @ d_hat, ddof=1), rel=rel_mix, abs=0)
        assert g.sigma_c[c] == pytest.approx(np.std(clean @ d_hat, ddof=1), rel=rel_c, abs=0)


@pytest.mark.parametrize("scale", [2.0**700, 1e200, 1e-200, 2.0**-1000])
def test_scaled_z_scales_the_geometry(scale):
    # Z * 1e200 overflowed into "D must be finite" (issue 6, §3).
    Z, y, y_pred = small_world()
    a = estimate_geometry(Z, y, y_pred)
    b = estimate_geometry(Z * scale, y, y_pred)
    # A power of two scales exactly; 1e±200 rounds every coordinate once (relative u): D and the
    # spreads then move by u·mean|x| over D (the means cancel), the rest is two_route_bounds.
    errors = y_pred != y
    for c in range(3):
        clean = Z[(~errors) & (y == c)]
        tol_D, rel_mix, rel_c = two_route_bounds(Z[errors], clean)
        tol_D += 2 * 2.0**-53 * float(np.linalg.norm(np.abs(Z).mean(axis=0)))
        rel = {"D": tol_D / a.D[c], "sigma_mix": rel_mix, "sigma_c": rel_c}
        tilt = 2 * tol_D / a.D[c]
        for name in ("D", "sigma_mix", "sigma_c"):
            value = getattr(a, name)[c]
            spread = 0.0 if name == "D" else 2 * np.trace(np.cov(Z, rowvar=False)) * tilt / value**2
            assert getattr(b, name)[c] / scale == pytest.approx(value, rel=rel[name] + spread, abs=0)


def test_distances_beyond_float64_name_z():
    Z = np.array([[1.7e308], [1.7e308], [-1.7e308], [-1.7e308]])
    with pytest.raises(ValueError, match="Z is too large"):
        estimate_geometry(Z, [0, 0, 1, 1], [0, 1, 1, 1])


@pytest.mark.parametrize(
    ("Z", "y", "y_pred", "kind", "words"),
    [
        (np.zeros((4, 0)), [0, 1, 0, 1], [0, 1, 1, 1], ValueError, ["Z", "at least one column"]),
        (np.zeros((4, 2)), [0, 1, 0, 1.0], [0, 1, 1, 1], None, []),  # integral floats: accepted
        (np.zeros((4, 2)), [0, 1, 0, 1e300], [0, 1, 1, 1], ValueError, ["y", "1e+300"]),
        (
            np.zeros((4, 2)),
            np.array([0, 1, 0, 2**63], dtype=np.uint64),
            [0, 1, 1, 1],
            ValueError,
            ["y", str(2**63)],
        ),
        (np.zeros((4, 2)), [True, False, True, False], [0, 1, 1, 1], TypeError, ["y", "bool"]),
        (np.zeros((4, 2)), [0, 1, 0, 1], [[0, 1], [1]], TypeError, ["y_pred"]),
    ],
)
def test_more_bad_inputs(Z, y, y_pred, kind, words):
    if kind is None:
        estimate_geometry(Z, y, y_pred)
        return
    with pytest.raises(kind) as info:
        estimate_geometry(Z, y, y_pred)
    for word in words:
        assert word in str(info.value)


def test_corr_mix_matches_the_projection_correlations():
    # corr_mix (used by the correlation-aware predictors) from the vectorised pool scatter.
    rng = np.random.default_rng(11)
    for width, n_classes in ((5, 3), (2, 6)):  # K <= d (projections) and K > d (scatter matrix)
        Z = rng.normal(size=(900, width)) * np.arange(1, width + 1)
        y = rng.integers(0, n_classes, 900)
        y_pred = np.where(rng.random(900) < 0.4, rng.integers(0, n_classes, 900), y)
        g = estimate_geometry(Z, y, y_pred)
        errors = y_pred != y
        mu_mix = Z[errors].mean(axis=0)
        directions = np.array(
            [(mu_mix - Z[(~errors) & (y == c)].mean(axis=0)) / g.D[c] for c in range(n_classes)]
        )
        expected = np.corrcoef((Z[errors] - mu_mix) @ directions.T, rowvar=False)
        # r_ij = c_ij/(s_i s_j): with s_i, s_j within ε_i, ε_j relative (two_route_bounds, both
        # routes included), |Δr_ij| <= 3(ε_i + ε_j) (Cauchy-Schwarz on the perturbed projections)
        eps_s = np.array(
            [two_route_bounds(Z[errors], Z[(~errors) & (y == c)])[1] for c in range(n_classes)]
        )
        tolerance = 3 * (eps_s[:, None] + eps_s)
        assert np.all(np.abs(g.corr_mix - expected) <= tolerance), (g.corr_mix - expected, tolerance)


def test_corr_mix_is_validated():
    with pytest.raises(ValueError, match="corr_mix must have shape"):
        Geometry(**GOOD, corr_mix=np.eye(3))
    with pytest.raises(ValueError, match="corr_mix must be symmetric"):
        Geometry(**GOOD, corr_mix=[[1.0, 0.5], [0.2, 1.0]])
    with pytest.raises(ValueError, match="corr_mix must have a unit diagonal"):
        Geometry(**GOOD, corr_mix=[[0.9, 0.0], [0.0, 1.0]])
    assert Geometry(**GOOD).corr_mix is None


@pytest.mark.parametrize("d", [1, 7, 40])
def test_class_moments_gathered_into_a_buffer_are_those_of_the_sorted_copy(d):
    # estimate_geometry gathers each class's clean rows (and each block of them) into one
    # reused buffer instead of a sorted copy of nearly all of Z: the same means and spreads,
    # bit for bit (d = 1 too, where NumPy's sums along rows would take another order)
    from gcul_theory import _geometry

    rng = np.random.default_rng(d)
    Z = rng.standard_normal((6000, d)) * 10.0 ** rng.uniform(-3, 3, d)
    y = rng.integers(0, 5, 6000)
    rows = np.flatnonzero(rng.random(6000) < 0.9)
    classes, counts, means, Z_sorted, index = _geometry.class_means(Z, y, rows)
    gathered = _geometry._gathered_class_means(Z, y, rows)
    np.testing.assert_array_equal(gathered[0], classes)
    np.testing.assert_array_equal(gathered[1], counts)
    np.testing.assert_array_equal(gathered[2], means)
    np.testing.assert_array_equal(Z[gathered[3]], Z_sorted)
    directions = rng.standard_normal((classes.size, d))
    np.testing.assert_array_equal(
        _geometry._gathered_spreads(Z, gathered[3], gathered[4], means, directions),
        _geometry._spreads_of_classes(Z_sorted, index, means, directions),
    )


@pytest.mark.parametrize("core", ["class", "predicted"])
def test_core_readings_match_their_definitions(core):
    # mu_c and sigma_c from every row labelled c ("class") or predicted c ("predicted"); the
    # error pool (mu_mix, sigma_mix's covariance) is the same as for the default reading
    rng = np.random.default_rng(11)
    Z = rng.normal(size=(300, 4)) + np.repeat(np.eye(4)[:3] * 3, 100, axis=0)
    y = np.repeat([0, 1, 2], 100)
    y_pred = np.where(rng.random(300) < 0.3, rng.integers(0, 3, 300), y)
    g = estimate_geometry(Z, y, y_pred, core=core)
    default = estimate_geometry(Z, y, y_pred)
    errors = y_pred != y
    mu_mix = Z[errors].mean(axis=0)
    cov_mix = np.cov(Z[errors], rowvar=False, ddof=1)
    for c in range(3):
        rows = Z[(y if core == "class" else y_pred) == c]
        d = mu_mix - rows.mean(axis=0)
        d_hat = d / np.linalg.norm(d)
        tol_D, rel_mix, rel_c = two_route_bounds(Z[errors], rows)
        assert g.D[c] == pytest.approx(np.linalg.norm(d), rel=0, abs=tol_D)
        assert g.sigma_mix[c] == pytest.approx(np.sqrt(d_hat @ cov_mix @ d_hat), rel=rel_mix, abs=0)
        cov_c = np.cov(rows, rowvar=False, ddof=1)
        assert g.sigma_c[c] == pytest.approx(np.sqrt(d_hat @ cov_c @ d_hat), rel=rel_c, abs=0)
        # and it is another number than the default reading's (the rows differ)
        assert abs(g.D[c] - default.D[c]) > 100 * tol_D
    # eps, pi and eps_c do not depend on the reading: the same arrays bit for bit
    for name in ("eps", "pi", "eps_c"):
        assert np.array_equal(getattr(g, name), getattr(default, name))


def test_core_default_is_the_correctly_classified_reading():
    rng = np.random.default_rng(3)
    Z = rng.normal(size=(120, 3))
    y = rng.integers(0, 3, 120)
    y_pred = np.where(rng.random(120) < 0.3, rng.integers(0, 3, 120), y)
    a, b = estimate_geometry(Z, y, y_pred), estimate_geometry(Z, y, y_pred, core="correct")
    for name in ("D", "sigma_mix", "sigma_c", "eps", "pi", "eps_c"):
        assert np.array_equal(getattr(a, name), getattr(b, name))


def test_core_reading_is_validated_and_named_in_notes():
    Z = np.arange(12.0).reshape(6, 2)
    y = np.array([0, 0, 0, 1, 1, 1])
    with pytest.raises(ValueError, match="core must be one of 'correct', 'class', 'predicted'; got 'mean'"):
        estimate_geometry(Z, y, y, core="mean")
    # class 1 is never predicted: no core under the "predicted" reading, and the note says so
    y_pred = np.array([0, 0, 0, 0, 0, 1 - 1])
    g = estimate_geometry(Z, y, y_pred, core="predicted")
    assert any("no sample predicted as it" in note for note in g.notes), g.notes
    assert g.D[1] == 0.0
