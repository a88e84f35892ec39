"""Tests for simulations.gcul: the three GCUL phases on synthetic-protocol data."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from _blob_data import confusion_blobs
from _protocol_data import N_CLASSES, N_FEATURES, protocol_data
from _tolerances import binomial_band, gamma
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError

from simulations._guided_clustering import cluster_purities as _purities
from simulations._guided_clustering import column_medians as _column_medians
from simulations.gcul import GCUL
from simulations.models import LinearProjection, LogisticRegression, kmeans


@functools.cache
def fitted(seed: int, sigma: float, reduce=None, n_components=None):
    data = protocol_data(seed, sigma)
    model = GCUL(reduce=reduce, n_components=n_components).fit(data["X_train"], data["y_train"])
    return data, model


# ----------------------------------------------------------------------------------------------
# The phase transition's clean end: at sigma = 0 the confusion blob is what gets rejected
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [10, 11, 12])
def test_sigma0_uncertain_cluster_is_the_confusion_blob(seed):
    data, model = fitted(seed, 0.0)
    uncertain = model.cluster_labels_ == model.uncertain_cluster_
    blob = data["blob_train"]
    assert uncertain[blob].mean() > 0.95  # the blob is captured ...
    assert blob[uncertain].mean() > 0.95  # ... and little else
    # its purity is near 1/K (labels uniform over K), every other cluster is nearly pure
    purities = np.delete(model.purities_, model.uncertain_cluster_)
    assert model.purities_[model.uncertain_cluster_] < 0.35
    assert purities.min() > 0.95


@pytest.mark.parametrize("seed", [10, 11, 12])
def test_sigma0_rejection_and_selective_accuracy_match_the_paper(seed):
    # paper: base accuracy about 86.5%, selective accuracy 100%, refusal about 16.5% (1/6)
    data, model = fitted(seed, 0.0)
    X_test, y_test = data["X_test"], data["y_test"]
    base_accuracy = np.mean(model.phase1_.predict(X_test) == y_test)
    y_pred = model.predict(X_test)
    rejected = y_pred == model.UNCERTAIN
    n = y_test.size
    # Sampling (1e-9 a check, _tolerances): the paper's 86.5% and ours are two estimates on
    # 2,400 test samples each, so they differ by at most √2 binomial bands; the blob is 1/6 of
    # the data and its share of the random test split is hypergeometric, whose tails are at
    # most the binomial ones (Hoeffding 1963, §6). GCUL then rejects the blob and only the blob
    # (a requirement, up to 1% of the test set), so the rejected share is within both of 1/6.
    assert abs(base_accuracy - 0.865) <= np.sqrt(2) * binomial_band(0.865, n)
    assert abs(data["blob_test"].mean() - 1 / 6) <= binomial_band(1 / 6, n)
    assert np.mean(rejected != data["blob_test"]) <= 0.01
    assert np.mean(y_pred[~rejected] == y_test[~rejected]) > 0.995
    assert np.mean(rejected[data["blob_test"]]) > 0.95


@pytest.mark.parametrize("sigma", [0.0, 4.0, 16.0])
def test_predict_returns_only_labels_0_to_K(sigma):
    data, model = fitted(10, sigma)
    y_pred = model.predict(data["X_test"])
    assert y_pred.shape == data["y_test"].shape
    assert np.issubdtype(y_pred.dtype, np.integer)
    assert set(np.unique(y_pred).tolist()) <= set(range(N_CLASSES + 1))


def test_attributes_after_fit_are_consistent():
    data, model = fitted(10, 4.0)
    X, y = data["X_train"], data["y_train"]
    n = len(y)
    assert model.n_classes_ == N_CLASSES == model.uncertain_label_ == model.UNCERTAIN
    np.testing.assert_array_equal(model.classes_, np.arange(N_CLASSES))
    assert isinstance(model.phase1_, LogisticRegression)
    assert isinstance(model.phase3_, LogisticRegression)
    assert model.reducer_ is None and model.can_reject_
    np.testing.assert_array_equal(model.error_mask_, model.phase1_.predict(X) != y)
    np.testing.assert_array_equal(model.phase3_.classes_, np.arange(N_CLASSES + 1))
    # phase 2: K + 1 centres = predicted-class medians + error-pool median, then Lloyd
    y_pred = model.phase1_.predict(X)
    expected_init = [np.median(X[y_pred == c], axis=0) for c in range(N_CLASSES)]
    expected_init.append(np.median(X[model.error_mask_], axis=0))
    # a median is the middle value or the mean of the two middle ones: <= 2 roundings of values
    # up to max|X| (whichever of the usual formulas each side uses)
    median_slack = gamma(2) * np.abs(X).max()
    np.testing.assert_allclose(
        model.init_centers_, np.stack(expected_init), rtol=0, atol=median_slack
    )
    labels, centers = kmeans(X, model.init_centers_, max_iter=100)
    np.testing.assert_array_equal(model.cluster_labels_, labels)
    # the same function on the same inputs: bit for bit (the project's reproducibility promise)
    np.testing.assert_array_equal(model.cluster_centers_, centers)
    assert model.cluster_labels_.shape == (n,)
    assert model.cluster_centers_.shape == (N_CLASSES + 1, N_FEATURES)
    # the least pure cluster is the uncertain one, and phase 3 learned exactly that relabelling
    assert model.purities_.shape == (N_CLASSES + 1,)
    assert np.all((model.purities_ > 0) & (model.purities_ <= 1))
    assert model.uncertain_cluster_ == int(np.argmin(model.purities_))
    relabelled = np.where(model.cluster_labels_ == model.uncertain_cluster_, N_CLASSES, y)
    refit = LogisticRegression().fit(X, relabelled)
    np.testing.assert_array_equal(model.phase3_.coef_, refit.coef_)  # the same fit, bit for bit


def test_pipeline_matches_a_scikit_learn_pipeline_at_low_noise():
    # The two phase-1 fits stop at slightly different points near the same optimum, so a few
    # training predictions (error pool, class medians) can differ; at low noise Lloyd absorbs
    # that. (At high noise it is chaotic: one changed phase-1 prediction can move the partition,
    # as it does between two scikit-learn tolerances; test_models checks K-Means itself exactly.)
    sklinear = pytest.importorskip("sklearn.linear_model")
    skcluster = pytest.importorskip("sklearn.cluster")
    threadpoolctl = pytest.importorskip("threadpoolctl")
    data, model = fitted(10, 0.0)
    X, y = data["X_train"], data["y_train"]
    with threadpoolctl.threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        phase1 = sklinear.LogisticRegression(C=1.0, max_iter=500).fit(X, y)
        y_pred = phase1.predict(X)
        init = np.stack(
            [np.median(X[y_pred == c], axis=0) for c in range(N_CLASSES)]
            + [np.median(X[y_pred != y], axis=0)]
        )
        clusters = skcluster.KMeans(N_CLASSES + 1, init=init, n_init=1, max_iter=100).fit(X)
        purities = _purities(clusters.labels_, y, N_CLASSES + 1, N_CLASSES)
        uncertain = int(np.argmin(purities))
        relabelled = np.where(clusters.labels_ == uncertain, N_CLASSES, y)
        phase3 = sklinear.LogisticRegression(C=1.0, max_iter=500).fit(X, relabelled)
    assert np.sum(model.error_mask_ != (y_pred != y)) <= 5
    assert np.mean(model.cluster_labels_ == clusters.labels_) >= 0.999
    assert model.uncertain_cluster_ == uncertain
    agreement = np.mean(model.predict(data["X_test"]) == phase3.predict(data["X_test"]))
    assert agreement >= 0.999


# ----------------------------------------------------------------------------------------------
# Reduction before clustering
# ----------------------------------------------------------------------------------------------


def test_full_pca_is_a_rotation_and_leaves_the_clusters_unchanged():
    _, raw = fitted(11, 0.0)
    _, rotated = fitted(11, 0.0, "pca", None)
    assert isinstance(rotated.reducer_, LinearProjection) and rotated.reducer_.kind == "pca"
    np.testing.assert_array_equal(rotated.cluster_labels_, raw.cluster_labels_)
    assert rotated.uncertain_cluster_ == raw.uncertain_cluster_


@pytest.mark.parametrize(("reduce", "n_components"), [("pca", 3), ("lda", None), ("lda", 2)])
def test_reduced_clustering_runs_in_the_reduced_space(reduce, n_components):
    data, model = fitted(12, 0.0, reduce, n_components)
    dimension = n_components or N_CLASSES - 1
    assert model.reducer_.kind == reduce and model.reducer_.n_components == dimension
    assert model.cluster_centers_.shape == (N_CLASSES + 1, dimension)
    assert model.init_centers_.shape == (N_CLASSES + 1, dimension)
    y_pred = model.predict(data["X_test"])  # phase 3 still uses the raw features
    assert set(np.unique(y_pred).tolist()) <= set(range(N_CLASSES + 1))


def test_lda_reduction_still_finds_the_blob_at_sigma0():
    data, model = fitted(12, 0.0, "lda", None)
    uncertain = model.cluster_labels_ == model.uncertain_cluster_
    assert uncertain[data["blob_train"]].mean() > 0.9


# ----------------------------------------------------------------------------------------------
# UNCERTAIN
# ----------------------------------------------------------------------------------------------


def test_uncertain_label_semantics():
    data, model = fitted(10, 0.0)
    assert model.UNCERTAIN == model.uncertain_label_ == model.n_classes_
    assert isinstance(model.UNCERTAIN, int)
    assert "uncertain_label_" in repr(GCUL.UNCERTAIN)
    y_pred = model.predict(data["X_test"])
    with pytest.raises(TypeError, match="model.UNCERTAIN"):
        _ = y_pred == GCUL.UNCERTAIN  # would silently be all-False otherwise
    with pytest.raises(AttributeError, match="call fit first"):
        _ = GCUL().UNCERTAIN


# ----------------------------------------------------------------------------------------------
# Degenerate cases
# ----------------------------------------------------------------------------------------------


def test_no_training_error_means_no_uncertain_cluster_and_no_rejection():
    rng = np.random.default_rng(0)
    centres = np.array([[-20.0, 0.0], [20.0, 0.0], [0.0, 20.0]])
    X = np.concatenate([rng.normal(c, 1.0, (50, 2)) for c in centres])
    y = np.repeat([0, 1, 2], 50)
    model = GCUL().fit(X, y)
    assert not model.error_mask_.any()
    assert model.uncertain_cluster_ is None and not model.can_reject_
    assert model.phase3_ is model.phase1_
    assert model.init_centers_.shape == (3, 2)  # class medians only
    assert model.purities_.shape == (3,)
    grid = rng.uniform(-40, 40, (500, 2))
    assert set(np.unique(model.predict(grid)).tolist()) <= {0, 1, 2}


def test_class_never_predicted_starts_from_the_median_of_its_labels():
    # class 2 is a handful of points inside class 0: phase 1 never predicts it
    rng = np.random.default_rng(1)
    X = np.concatenate(
        [
            rng.normal(-5.0, 1.0, (100, 2)),
            rng.normal(5.0, 1.0, (100, 2)),
            rng.normal(-5.0, 1.0, (4, 2)),
        ]
    )
    y = np.repeat([0, 1, 2], [100, 100, 4])
    model = GCUL().fit(X, y)
    assert not np.any(model.phase1_.predict(X) == 2)
    # the mean of the two middle values of 4 (<= 2 roundings of values up to max|X|)
    np.testing.assert_allclose(
        model.init_centers_[2],
        np.median(X[y == 2], axis=0),
        rtol=0,
        atol=gamma(2) * np.abs(X).max(),
    )
    assert model.can_reject_


def test_purities_of_clusters():
    cluster_labels = np.array([0, 0, 0, 1, 1, 3, 3, 3, 3])
    y = np.array([1, 1, 2, 0, 1, 2, 2, 2, 2])
    purities = _purities(cluster_labels, y, n_clusters=4, n_classes=3)
    # count ratios: one correctly rounded division on each side (gamma(1) if one multiplies)
    np.testing.assert_allclose(purities[[0, 1, 3]], [2 / 3, 1 / 2, 1.0], rtol=gamma(1), atol=0)
    assert np.isnan(purities[2])  # empty cluster: never chosen by nanargmin
    tie = _purities(np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]), 2, 2)
    assert int(np.nanargmin(tie)) == 0  # ties: the lowest index


def test_uncertain_cluster_with_every_sample_is_an_error():
    X = np.ones((20, 2))
    y = np.tile([0, 1], 10)
    with pytest.raises(ValueError, match="every training sample"):
        GCUL().fit(X, y)


# ----------------------------------------------------------------------------------------------
# Bad input
# ----------------------------------------------------------------------------------------------

X_SMALL = np.random.default_rng(2).normal(size=(12, 3))


@pytest.mark.parametrize(
    ("y", "match"),
    [
        (np.zeros(12, dtype=int), r"at least two classes; got 1 class \(\[0\]\)"),
        (np.tile([0, 1], 5), r"inconsistent numbers of samples: \[12, 10\]"),
        (np.tile([0.0, 0.5], 6), "Unknown label type: continuous"),
        (np.tile([0.0, np.nan], 6), "Input y contains NaN"),
    ],
)
def test_fit_rejects_bad_labels(y, match):
    with pytest.raises(ValueError, match=match):
        GCUL().fit(X_SMALL, y)


@pytest.mark.parametrize(
    ("kwargs", "kind", "match"),
    [
        ({"reduce": "tsne"}, ValueError, "reduce must be one of None, 'pca', 'lda'; got 'tsne'"),
        ({"C": 0.0}, ValueError, r"C must be in \(0, inf\); got 0.0"),
        ({"max_iter": 0}, ValueError, "max_iter must be an integer >= 1"),
        ({"kmeans_max_iter": 1.5}, TypeError, r"kmeans_max_iter must be an integer >= 1; got 1.5"),
        ({"reduce": "lda", "n_components": 5}, ValueError, r"n_components must be in 1\.\.2"),
        ({"lam": 1.5}, ValueError, r"lam must be in \[0, 1\]; got 1.5"),
        ({"lam": "0.1"}, TypeError, "lam must be a real number; got '0.1'"),
        ({"C": np.inf}, ValueError, r"C must be in \(0, inf\); got inf"),
        ({"uncertain_label": [3]}, TypeError, "uncertain_label must be None, a string or a number"),
        ({"uncertain_label": True}, TypeError, "uncertain_label must be None, a string or a"),
        ({"uncertain_label": np.nan}, ValueError, "uncertain_label must be finite; got nan"),
        ({"uncertain_label": 1}, ValueError, "uncertain_label=1 is a class of y"),
        ({"uncertain_label": "x"}, TypeError, "uncertain_label must be a number like the labels"),
    ],
)
def test_fit_rejects_bad_parameters(kwargs, kind, match):
    with pytest.raises(kind, match=match):
        GCUL(**kwargs).fit(X_SMALL, np.tile([0, 1, 2], 4))


def test_fit_in_place_is_fit_with_the_training_rows_consumed(monkeypatch):
    # gcul compare's need (K-Means centring a split's training rows where they lie) is met by
    # simulations.gcul.fit_in_place, not by calling GCUL's private _fit from another module:
    # the same fit, bit for bit, and K-Means told it may overwrite X
    from simulations import _fastpaths, _guided_clustering
    from simulations.gcul import fit_in_place
    from simulations.models import _kmeans

    rng = np.random.default_rng(5)
    y = np.repeat([0, 1, 2], 30)
    X = 2.0 * rng.standard_normal((3, 4))[y] + rng.standard_normal((y.size, 4))
    copied = GCUL().fit(X, y)
    calls = []
    lloyd = _kmeans.lloyd

    def spy(*args, **kwargs):
        calls.append(kwargs.get("overwrite_X", False))
        return lloyd(*args, **kwargs)

    monkeypatch.setattr(_kmeans, "_LEAN_ELEMENTS", 10)  # the in-place path on this small X
    monkeypatch.setattr(_guided_clustering, "lloyd", spy)
    consumed = X.copy()
    in_place = fit_in_place(GCUL(), consumed, y)
    assert calls == [True]
    if _fastpaths.active("kmeans_lean"):  # else (GCUL_FAST_PATHS=off) K-Means copies X
        assert not np.array_equal(consumed, X)  # scaled and centred where it lay
    np.testing.assert_array_equal(in_place.cluster_labels_, copied.cluster_labels_)
    np.testing.assert_array_equal(in_place.cluster_centers_, copied.cluster_centers_)
    np.testing.assert_array_equal(in_place.decision_function(X), copied.decision_function(X))


def test_no_module_calls_gcul_private_fit():
    # no private method of GCUL is called from another module (issue 33)
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parents[1]
    callers = [
        path.relative_to(root).as_posix()
        for folder in ("simulations", "benchmarks")
        for path in sorted((root / folder).rglob("*.py"))
        if path.name != "gcul.py" and re.search(r"\)\._fit\(|GCUL[^\n]*\._fit\(", path.read_text())
    ]
    assert callers == []


def test_fit_and_predict_reject_bad_features():
    y = np.tile([0, 1, 2], 4)
    bad = X_SMALL.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        GCUL().fit(bad, y)
    with pytest.raises(ValueError, match="Expected 2D array, got 1D array"):
        GCUL().fit(X_SMALL[:, 0], y)
    with pytest.raises(NotFittedError, match="not fitted"):
        GCUL().predict(X_SMALL)
    model = GCUL().fit(X_SMALL, y)
    with pytest.raises(ValueError, match="X has 2 features, but GCUL is expecting 3 features"):
        model.predict(X_SMALL[:, :2])


# ----------------------------------------------------------------------------------------------
# Labels: any labels are encoded inside fit (issue 17); the phases see 0..K-1
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "codes",
    [
        [0, 1, 3],  # a missing label (refused before issue 17)
        [-1, 0, 1],  # negative labels
        [1, 2, 3],  # one-based labels
        [0, 10**6, 10**18],  # labels far apart (the old check listed the missing ones)
    ],
)
def test_any_integer_labels_give_the_fit_of_their_codes(codes):
    data, reference = fitted(10, 4.0)
    labels = np.asarray(codes + [max(codes) + 5, max(codes) + 9], dtype=np.int64)
    y = labels[data["y_train"]]
    model = GCUL().fit(data["X_train"], y)
    np.testing.assert_array_equal(model.classes_, labels)
    assert model.uncertain_label_ == max(codes) + 10  # floor(max) + 1: never a class
    # the phases run on the codes 0..K-1: the same fit, bit for bit
    np.testing.assert_array_equal(model.phase3_.coef_, reference.phase3_.coef_)
    np.testing.assert_array_equal(model.cluster_labels_, reference.cluster_labels_)
    table = np.append(labels, model.uncertain_label_)
    np.testing.assert_array_equal(
        model.predict(data["X_test"]), table[reference.predict(data["X_test"])]
    )


def test_a_huge_label_costs_nothing():
    # The old code built bincount(minlength=max(y) + 1) (a MemoryError for 10**18); labels are
    # now sorted, never counted up to their largest value
    y = np.r_[np.tile([0, 1], 5), 1, 10**18]
    model = GCUL().fit(X_SMALL, y)
    assert model.classes_.tolist() == [0, 1, 10**18]
    assert model.uncertain_label_ == 10**18 + 1


def test_a_label_at_the_top_of_its_dtype_needs_an_explicit_uncertain_label():
    top = np.iinfo(np.int64).max
    y = np.r_[np.tile([0, 1], 5), 1, top]
    with pytest.raises(ValueError, match=r"max\(classes_\) \+ 1 = 9223372036854775808, which"):
        GCUL().fit(X_SMALL, y)
    model = GCUL(uncertain_label=-1).fit(X_SMALL, y)
    assert model.uncertain_label_ == -1
    assert set(model.predict(X_SMALL).tolist()) <= {0, 1, top, -1}


def test_complex_features_are_refused():
    with pytest.raises(ValueError, match="Complex data not supported"):
        GCUL().fit(X_SMALL + 1j, np.tile([0, 1, 2], 4))


def test_huge_features_give_the_same_predictions():
    # The old code failed in phase 1 ("array must not contain infs or NaNs"). Every phase now
    # works on X times a power of two; the phase-1/3 logistic fits on 1e300 X are unpenalised
    # (effective C = 1e600), which on this cell changes no prediction (measured: test
    # predictions equal on seeds 10/11, sigma 0, 4, 8).
    data, model = fitted(10, 4.0)
    huge = GCUL().fit(data["X_train"] * 1e300, data["y_train"])
    assert huge.uncertain_cluster_ == model.uncertain_cluster_
    np.testing.assert_array_equal(huge.cluster_labels_, model.cluster_labels_)
    np.testing.assert_array_equal(
        huge.predict(data["X_test"] * 1e300), model.predict(data["X_test"])
    )


def test_predict_on_a_row_of_1e308_is_defined_without_warning():
    # the old code leaked "overflow encountered in matmul" (an error under this suite's
    # filterwarnings); the row now gets the label of largest exact phase-3 score. On these
    # blobs |W| is about 2, so 1e308 * W overflows float64.
    X, y = _cross_fit_data(n=60)
    model = GCUL().fit(X, y)
    assert np.abs(model.phase3_.coef_).max() > 1.8
    far = np.array([[1e308, 1e308], [1e308, 0.0], [-1e308, 1e308], [0.0, -1e308]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        labels = model.predict(np.vstack([X[:5], far]))
    W = model.phase3_.coef_
    np.testing.assert_array_equal(labels[5:], np.argmax(np.ldexp(far, -1024) @ W.T, axis=1))
    np.testing.assert_array_equal(labels[:5], model.predict(X[:5]))
    assert set(labels.tolist()) <= set(range(model.n_classes_ + 1))


# --- cross-fitted certificate (issue 7, section 2) ---------------------------------------------


def _cross_fit_data(n=150, seed=0):
    return confusion_blobs(np.random.default_rng(seed), n)


def test_cross_fit_is_each_fold_certified_at_delta_over_k_then_averaged():
    from simulations.gcul import random_folds

    X, y = _cross_fit_data()
    model = GCUL()
    cert = model.certify_cross_fit(X, y, lam=0.15, delta=0.06, n_splits=3, seed=4)
    assert not hasattr(model, "phase3_")  # self is not fitted by it
    assert (cert.n, cert.n_splits, cert.seed, cert.delta, cert.lam) == (600, 3, 4, 0.06, 0.15)
    folds = random_folds(y.size, 3, seed=4)
    for k, fold in enumerate(cert.folds):
        held = folds == k
        direct = GCUL().fit(X[~held], y[~held]).certify(X[held], y[held], 0.15, 0.02)
        assert fold.n == direct.n == int(held.sum())
        assert fold.delta == pytest.approx(0.02, rel=gamma(3), abs=0)  # 0.06/3 vs the literal
        assert fold.gain_lower == direct.gain_lower
        assert fold.gain_upper == direct.gain_upper
        # Two 80-step bisections on [0, 1] of the same lower bound by two code paths: they part
        # only where the bound is within its rounding of 0 (a few ulp of terms <= 2: gamma(10)·2)
        # and its slope in λ is -ρ̂, at least 1/n in magnitude
        tolerance = 2.0**-80 + gamma(10) * 2 * fold.n
        assert fold.lambda_cert == pytest.approx(direct.lambda_cert, rel=0, abs=tolerance)
    # the library averages the same fold values in the same order: equal
    assert cert.gain_lower == np.mean([f.gain_lower for f in cert.folds])
    assert cert.gain_upper == np.mean([f.gain_upper for f in cert.folds])
    assert cert.gain_lower <= cert.gain_upper
    assert cert.feasible == (cert.gain_lower > 0.0)


def test_cross_fit_lambda_cert_is_the_last_positive_average_lower_bound():
    X, y = _cross_fit_data(n=400, seed=1)
    cert = GCUL().certify_cross_fit(X, y, n_splits=2, seed=0)
    assert 0.0 < cert.lambda_cert < 1.0  # this geometry certifies something

    def average_lower(lam):
        from simulations.gcul import random_folds

        folds = random_folds(y.size, 2, seed=0)
        values = []
        for k in range(2):
            held = folds == k
            m = GCUL().fit(X[~held], y[~held])
            values.append(m.certify(X[held], y[held], lam=lam, delta=0.025).gain_lower)
        return np.mean(values)

    # probe points 1e-3 either side: far beyond where the test's recomputation and the library
    # can disagree (gamma(10)·2n = 9e-13, as in the test above)
    assert average_lower(max(cert.lambda_cert - 1e-3, 0.0)) > 0.0
    assert average_lower(min(cert.lambda_cert + 1e-3, 0.999)) <= 0.0
    # each fold's lower bound is non-increasing in lam, so a positive average at lam needs one
    # fold certified up to lam: the average certifies no more than the best fold (up to the
    # bisections' resolution and rounding, as in the test above)
    slack = 2.0**-80 + gamma(10) * 2 * max(f.n for f in cert.folds)
    assert cert.lambda_cert <= max(f.lambda_cert for f in cert.folds) + slack


def test_cross_fit_is_reproducible_and_seeded():
    X, y = _cross_fit_data(n=60)
    a = GCUL().certify_cross_fit(X, y, n_splits=3, seed=1)
    b = GCUL().certify_cross_fit(X, y, n_splits=3, seed=1)
    c = GCUL().certify_cross_fit(X, y, n_splits=3, seed=2)
    assert a == b
    assert a.gain_lower != c.gain_lower


def test_cross_fit_certificate_is_a_certificate_with_its_folds():
    """A cross-fit result has a Certificate's fields, in its order, then n_splits, seed, folds."""
    import dataclasses

    from simulations.gcul import Certificate, CrossFitCertificate

    names = [f.name for f in dataclasses.fields(Certificate)]
    assert names == ["lambda_cert", "gain_lower", "gain_upper", "feasible", "n", "lam", "delta"]
    assert [f.name for f in dataclasses.fields(CrossFitCertificate)] == [
        *names,
        "n_splits",
        "seed",
        "folds",
    ]
    X, y = _cross_fit_data(n=60)
    cert = GCUL().certify_cross_fit(X, y, n_splits=3, seed=1)
    assert isinstance(cert, Certificate)
    assert all(type(fold) is Certificate for fold in cert.folds)


def test_cross_fit_with_a_gcul_that_cannot_reject_certifies_nothing():
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(-20.0, 1.0, (30, 2)), rng.normal(20.0, 1.0, (30, 2))])
    y = np.repeat([0, 1], 30)
    cert = GCUL().certify_cross_fit(X, y, lam=0.0, n_splits=3)
    assert not cert.feasible and cert.lambda_cert == 0.0
    assert cert.gain_lower == -1.0  # the trivial bound -1 - lam of every fold, averaged exactly
    assert all(f.gain_upper == 1.0 for f in cert.folds)


@pytest.mark.parametrize(
    ("kwargs", "kind", "words"),
    [
        ({"n_splits": 1}, ValueError, "n_splits must be an integer in [2, n_samples = 80]; got 1"),
        ({"n_splits": 81}, ValueError, "got 81"),
        ({"n_splits": 2.0}, ValueError, "got 2.0"),
        ({"n_splits": True}, ValueError, "got True"),
        ({"delta": 0.0}, ValueError, "delta must be in (0, 1); got 0.0"),
        ({"delta": "0.1"}, TypeError, "delta"),
        ({"lam": 1.0}, ValueError, "lam must be in [0, 1); got 1.0"),
        ({"seed": -1}, ValueError, "seed must be an integer in [0, 2**32); got -1"),
        ({"seed": 2**32}, ValueError, "seed must be an integer in [0, 2**32)"),
    ],
)
def test_cross_fit_bad_arguments(kwargs, kind, words):
    X, y = _cross_fit_data(n=20)
    with pytest.raises(kind) as info:
        GCUL().certify_cross_fit(X, y, **kwargs)
    assert words in str(info.value)


def test_cross_fit_needs_every_class_twice():
    X, y = _cross_fit_data(n=20)
    y = y.copy()
    y[y == 2] = 1
    y[0] = 2  # class 2 occurs once
    with pytest.raises(ValueError, match="class 2 occurs 1 time"):
        GCUL().certify_cross_fit(X, y)


@settings(max_examples=50)
@given(
    n_samples=st.integers(2, 200),
    n_splits=st.integers(2, 6),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_folds_are_balanced_and_seeded(n_samples, n_splits, seed):
    from simulations.gcul import random_folds

    assume(n_samples >= n_splits)
    folds = random_folds(n_samples, n_splits, seed)
    sizes = np.bincount(folds, minlength=n_splits)
    assert sizes.max() - sizes.min() <= 1 and sizes.sum() == n_samples
    assert np.array_equal(folds, random_folds(n_samples, n_splits, seed))


def test_cross_fit_refuses_a_partition_that_leaves_a_class_out_of_a_training_part():
    from simulations.gcul import random_folds

    X, y = _cross_fit_data(n=20)
    y = y.copy()
    y[y == 2] = 1
    folds = random_folds(y.size, 5, seed=0)
    y[np.flatnonzero(folds == 3)[:2]] = 2  # class 2: two rows, both in fold 3
    with pytest.raises(ValueError, match="put all 2 rows of class 2 in fold 3"):
        GCUL().certify_cross_fit(X, y, n_splits=5, seed=0)


@settings(max_examples=50)
@given(
    counts=st.lists(st.integers(1, 40), min_size=2, max_size=5),
    fraction=st.floats(0.01, 0.99),
    seed=st.integers(0, 2**32 - 1),
)
def test_stratified_split_keeps_every_class_for_fitting(counts, fraction, seed):
    from simulations.gcul import stratified_split

    y = np.repeat(np.arange(len(counts)), counts)
    held = stratified_split(y, fraction, seed)
    for c, m in enumerate(counts):
        taken = int(held[y == c].sum())
        assert taken == min(int(np.floor(fraction * m + 0.5)), m - 1)
    assert set(y[~held]) == set(range(len(counts)))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(
            st.sampled_from([-0.0, 0.0, 1.0, -1.0, 2.5, 5e-324, -7.25]), min_size=2, max_size=2
        ),
        min_size=1,
        max_size=15,
    ),
    st.integers(0, 2**32 - 1),
)
def test_column_medians_are_np_median_bit_for_bit(rows, seed):
    # odd and even counts, ties and zeros of both signs: np.median's result to the bit
    Z = np.array(rows)
    mask = np.random.default_rng(seed).random(len(rows)) < 0.7
    assume(mask.any())
    ours = _column_medians(np.ascontiguousarray(Z.T), mask)
    expected = np.median(Z[mask], axis=0)
    np.testing.assert_array_equal(ours.view(np.int64), expected.view(np.int64))


def test_train_pred_is_the_phase1_prediction_of_the_training_set():
    data = protocol_data(12, 3.0)
    model = GCUL().fit(data["X_train"], data["y_train"])
    np.testing.assert_array_equal(model.train_pred_, model.phase1_.predict(data["X_train"]))
    np.testing.assert_array_equal(model.error_mask_, model.train_pred_ != data["y_train"])


# --------------------------------------------------------------------------------------------
# One measurement of a fitted GCUL on a test split (issue 15: it was written in four places)


def test_indicators_are_the_measurement_the_sweep_and_compare_report() -> None:
    from simulations.certification import SelectiveOutcomes
    from simulations.sweep.cell import fit_and_measure
    from simulations.synthetic import SyntheticConfig, make_dataset

    config = SyntheticConfig(n_per_class=100, n_confusion=100)
    data = make_dataset(16, 4.0, config)
    model = GCUL().fit(data.X_train, data.y_train)
    outcomes = model.indicators(data.X_test, data.y_test)
    # the definitions, written out once more here on purpose (what the four copies computed)
    n = data.y_test.size
    base_wrong = model.phase1_.predict(data.X_test) != data.y_test
    selective = model.predict(data.X_test)
    rejected = selective == model.n_classes_
    n_accepted = np.count_nonzero(~rejected)
    assert 0 < np.count_nonzero(rejected) < n  # both rates are exercised
    np.testing.assert_array_equal(outcomes.base_wrong, base_wrong)
    np.testing.assert_array_equal(outcomes.rejected, rejected)
    np.testing.assert_array_equal(outcomes.selective_wrong, (selective != data.y_test) & ~rejected)
    assert outcomes.base_error == np.count_nonzero(base_wrong) / n
    assert outcomes.rejection_rate == np.count_nonzero(rejected) / n
    selective_error = np.count_nonzero(selective[~rejected] != data.y_test[~rejected]) / n_accepted
    assert outcomes.selective_error == selective_error
    row = fit_and_measure(data, GCUL, 16)
    assert row["lambda_emp"] == outcomes.empirical_lambda()  # bit for bit: the same arithmetic
    assert row["rejection_rate"] == outcomes.rejection_rate
    assert row["selective_acc"] == 1.0 - outcomes.selective_error
    assert isinstance(outcomes, SelectiveOutcomes)


def test_selective_outcomes_edges() -> None:
    from simulations.certification import SelectiveOutcomes

    wrong = np.array([True, False, True, False])
    everything = SelectiveOutcomes(wrong, np.zeros(4, bool), np.ones(4, bool))
    assert everything.selective_error == 0.0  # nothing accepted: 0 by convention
    assert everything.rejection_rate == 1.0 and everything.empirical_lambda() == 0.5
    nothing = SelectiveOutcomes(wrong, wrong, np.zeros(4, bool))
    assert nothing.rejection_rate == 0.0 and nothing.empirical_lambda() == 0.0  # rho = 0: 0
    assert nothing.selective_error == nothing.base_error == 0.5


def test_initial_centers_of_large_data_gather_each_group_bit_for_bit(monkeypatch):
    # large Z: each group's rows gathered and transposed alone, no transposed copy of all of Z;
    # the medians are those of the small-data path, every bit (zeros of both signs included)
    import simulations._guided_clustering as guided

    rng = np.random.default_rng(0)
    Z = rng.standard_normal((5000, 40))
    Z[:, 3] = -0.0
    Z[::2, 5] = 0.0
    y = rng.integers(0, 4, 5000)
    y_pred = y.copy()
    y_pred[:300] = (y_pred[:300] + 1) % 4
    errors = y_pred != y
    expected = guided.initial_centers(Z, y, y_pred, errors, 4)
    monkeypatch.setattr(guided, "_GATHER_ELEMENTS", 10)
    got = guided.initial_centers(Z, y, y_pred, errors, 4)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))


def test_fit_overwriting_x_is_fit_bit_for_bit(monkeypatch):
    # GCUL._fit(overwrite_X=True) (gcul compare's training rows, gathered again afterwards)
    # lets phase 2's K-Means centre X in place: every fitted array is fit's, every bit, and X
    # is overwritten (so the in-place path is the one tested)
    from simulations.models import _kmeans

    data = protocol_data(seed=5, sigma=3.0, n_per_class=300)
    X, y = data["X_train"], data["y_train"]
    reference = GCUL().fit(X, y)
    assert reference.can_reject_
    monkeypatch.setattr(_kmeans, "_LEAN_ELEMENTS", 1000)
    mine = np.array(X, dtype=np.float64, order="C")
    model = GCUL()._fit(mine, y, overwrite_X=True)
    assert not np.array_equal(mine, X)
    for name in ("cluster_labels_", "cluster_centers_", "purities_", "init_centers_", "n_iter_"):
        np.testing.assert_array_equal(getattr(model, name), getattr(reference, name))
    for phase in ("phase1_", "phase3_"):
        for part in ("coef_", "intercept_"):
            np.testing.assert_array_equal(
                getattr(getattr(model, phase), part), getattr(getattr(reference, phase), part)
            )
    # a read-only X is never written to
    frozen = np.array(X, dtype=np.float64, order="C")
    frozen.flags.writeable = False
    np.testing.assert_array_equal(
        GCUL()._fit(frozen, y, overwrite_X=True).cluster_centers_, reference.cluster_centers_
    )
