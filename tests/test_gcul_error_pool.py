"""``GCUL(error_pool="in_sample"|"out_of_fold")``: phase 1's error pool from its training rows (the
paper's, the default) or from out-of-fold predictions (issue 22, item 3).

The out-of-fold pool is checked against a brute-force reference: folds dealt by hand, one
logistic regression fitted per fold through the public API, the pool compared row by row.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression as SklearnLogisticRegression

from simulations.gcul import (
    ERROR_POOLS,
    GCUL,
    few_errors,
    out_of_fold_predictions,
    stratified_folds,
)
from simulations.models import LogisticRegression


def overlapping(n_per_class=30, seed=0):
    """Three 2-D Gaussian classes close enough that phase 1 errs in and out of sample."""
    rng = np.random.default_rng(seed)
    centres = np.array([[-1.5, 0.0], [1.5, 0.0], [0.0, 2.0]])
    X = np.vstack([rng.normal(c, 1.2, (n_per_class, 2)) for c in centres])
    y = np.repeat(np.arange(3), n_per_class)
    order = rng.permutation(y.size)  # classes interleaved, so fold order is not row order
    return X[order], y[order]


def separable_high_dimension(n=120, d=200, seed=1):
    """Random labels on ``d > n`` Gaussian features: any labelling is linearly separable."""
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), rng.integers(0, 3, n)


def hand_folds(y, n_folds, random_state):
    """The documented dealing, written out: each class's rows shuffled by
    ``default_rng(SeedSequence(random_state))`` class after class, then numbered 0, 1, ...,
    n_folds - 1, 0, ... with the count running on across classes."""
    rng = np.random.default_rng(np.random.SeedSequence(random_state))
    folds = np.full(y.size, -1)
    count = 0
    for c in sorted(set(y.tolist())):
        for row in rng.permutation(np.flatnonzero(y == c)):
            folds[row] = count % n_folds
            count += 1
    return folds


# ----------------------------------------------------------------------------------------------
# The out-of-fold pool against a brute-force reference
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("n_folds", "random_state"), [(3, 7), (5, 0), (4, 123456789)])
def test_the_out_of_fold_pool_is_the_brute_force_one(n_folds, random_state):
    X, y = overlapping()
    model = GCUL(error_pool="out_of_fold", n_folds=n_folds, random_state=random_state).fit(X, y)
    folds = hand_folds(y, n_folds, random_state)
    np.testing.assert_array_equal(model.error_pool_folds_, folds)
    reference = np.empty_like(y)
    for k in range(n_folds):
        held = folds == k
        fold_model = LogisticRegression(C=1.0, max_iter=500).fit(X[~held], y[~held])
        reference[held] = fold_model.predict(X[held])
    np.testing.assert_array_equal(model.train_pred_, reference)
    np.testing.assert_array_equal(model.error_mask_, reference != y)
    assert model.n_error_pool_ == np.count_nonzero(reference != y) > 0
    # it is another pool than the in-sample one (what the option exists for)
    in_sample = GCUL().fit(X, y)
    assert not np.array_equal(in_sample.error_mask_, model.error_mask_)
    # phase 2 started from that pool: the last initial centre is the median of its rows
    np.testing.assert_array_equal(
        model.init_centers_[-1], np.median(X[reference != y], axis=0)
    )
    # ... and phase 1, the deployed base classifier, is still fitted on every training row
    whole = LogisticRegression(C=1.0, max_iter=500).fit(X, y)
    np.testing.assert_array_equal(model.phase1_.coef_, whole.coef_)
    np.testing.assert_array_equal(model.phase1_.intercept_, whole.intercept_)
    np.testing.assert_array_equal(model.phase1_.predict(X), in_sample.train_pred_)


def test_the_folds_are_stratified_and_partition_the_rows():
    y = np.repeat([0, 1, 2, 3], [17, 9, 4, 1])
    folds = stratified_folds(y, 5, random_state=3)
    sizes = np.bincount(folds, minlength=5)
    assert sizes.sum() == y.size and sizes.max() - sizes.min() <= 1
    for c in range(4):
        per_fold = np.bincount(folds[y == c], minlength=5)
        assert per_fold.max() - per_fold.min() <= 1
    np.testing.assert_array_equal(folds, stratified_folds(y, 5, random_state=3))  # determinism
    assert not np.array_equal(folds, stratified_folds(y, 5, random_state=4))


def test_the_pool_agrees_with_scikit_learns_logistic_regression_per_fold():
    # an independent implementation of phase 1's objective (scikit-learn's lbfgs, C = 1); the
    # two minimise the same strictly convex objective, so they can disagree only on a row whose
    # top two scores are within the solvers' tolerance: every row's margin is checked first
    X, y = overlapping(seed=4)
    model = GCUL(error_pool="out_of_fold", n_folds=3, random_state=11).fit(X, y)
    folds = hand_folds(y, 3, 11)
    reference = np.empty_like(y)
    for k in range(3):
        held = folds == k
        sk = SklearnLogisticRegression(C=1.0, max_iter=10_000, tol=1e-10).fit(X[~held], y[~held])
        scores = np.sort(sk.decision_function(X[held]), axis=1)
        assert (scores[:, -1] - scores[:, -2]).min() > 1e-4  # no near-tie: predictions are stable
        reference[held] = sk.predict(X[held])
    np.testing.assert_array_equal(model.error_mask_, reference != y)


def test_a_fold_whose_rest_holds_one_class_predicts_that_class():
    # class 0 has a single row: the fold holding it is predicted from class 1 alone
    X = np.arange(10.0)[:, None]
    y = np.array([0] + [1] * 9)
    folds = stratified_folds(y, 2, random_state=0)
    y_pred = out_of_fold_predictions(X, y, folds)
    assert y_pred[0] == 1  # an error: a class a fold's model never saw cannot be predicted


# ----------------------------------------------------------------------------------------------
# The default is unchanged; unused parameters are ignored as documented
# ----------------------------------------------------------------------------------------------


def test_in_sample_is_the_default_and_ignores_the_fold_parameters():
    X, y = overlapping(seed=2)
    default = GCUL().fit(X, y)
    other = GCUL(error_pool="in_sample", n_folds=3, random_state=99).fit(X, y)
    assert GCUL().error_pool == "in_sample" and ERROR_POOLS == ("in_sample", "out_of_fold")
    np.testing.assert_array_equal(default.train_pred_, default.phase1_.predict(X))
    for name in ("train_pred_", "error_mask_", "cluster_labels_", "init_centers_"):
        np.testing.assert_array_equal(getattr(default, name), getattr(other, name))
    np.testing.assert_array_equal(default.predict(X), other.predict(X))
    assert default.error_pool_folds_ is None and default.n_error_pool_ > 0
    assert default.error_pool_note_ is None


def test_the_out_of_fold_fit_is_deterministic_and_clonable():
    X, y = overlapping(seed=3)
    model = GCUL(error_pool="out_of_fold", n_folds=4, random_state=5)
    first, second = clone(model).fit(X, y), clone(model).fit(X, y)
    np.testing.assert_array_equal(first.error_mask_, second.error_mask_)
    np.testing.assert_array_equal(first.predict(X), second.predict(X))
    assert clone(model).get_params()["error_pool"] == "out_of_fold"


@pytest.mark.parametrize(
    ("params", "error", "message"),
    [
        ({"error_pool": "oof"}, ValueError, "error_pool must be one of 'in_sample', 'out_of_fold'"),
        ({"error_pool": None}, ValueError, "error_pool must be one of"),
        ({"n_folds": 1}, ValueError, "n_folds"),
        ({"n_folds": 2.0}, TypeError, "n_folds"),
        ({"random_state": -1}, ValueError, "random_state"),
        ({"random_state": 2**32}, ValueError, "random_state"),
        ({"random_state": None}, TypeError, "random_state"),
        ({"error_pool": "out_of_fold", "n_folds": 91}, ValueError, "n_folds must be at most"),
    ],
)
def test_bad_parameters_are_refused_in_fit(params, error, message):
    X, y = overlapping()  # 90 rows
    model = GCUL(**params)  # __init__ stores, fit validates
    with pytest.raises(error, match=message):
        model.fit(X, y)


# ----------------------------------------------------------------------------------------------
# The regime where it matters: phase 1 separates its training set
# ----------------------------------------------------------------------------------------------


def test_a_separating_phase_1_has_an_empty_in_sample_pool_and_a_non_empty_out_of_fold_one():
    X, y = separable_high_dimension()
    in_sample = GCUL().fit(X, y)  # pytest turns any warning into an error: fit warns of nothing
    assert in_sample.n_error_pool_ == 0 and not in_sample.can_reject_
    assert not (~in_sample.accepts(X)).any()
    note = in_sample.error_pool_note_
    assert note.startswith(
        "phase 1 makes no training error (in-sample pool: it separates its training rows), so "
        "GCUL cannot reject: try error_pool='out_of_fold' or standardised features"
    )
    out_of_fold = GCUL(error_pool="out_of_fold").fit(X, y)
    # random labels: out of fold phase 1 is right about a third of the time
    assert out_of_fold.n_error_pool_ > y.size // 3 and out_of_fold.can_reject_
    assert out_of_fold.error_pool_note_ is None


def test_no_out_of_fold_error_means_separable_classes():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(-20, 1, (30, 2)), rng.normal(20, 1, (30, 2))])
    model = GCUL(error_pool="out_of_fold").fit(X, np.repeat([0, 1], 30))
    assert model.n_error_pool_ == 0 and not model.can_reject_
    assert model.error_pool_note_ == (
        "phase 1 makes no out-of-fold error (out-of-fold pool), so GCUL cannot reject: the "
        "classes look separable here; rejecting has little to catch"
    )


def test_the_note_threshold_is_fewer_errors_than_clusters():
    # K classes: K + 1 clusters in phase 2; a pool of at most K errors is "too few"
    assert few_errors(0, 3) and few_errors(3, 3) and not few_errors(4, 3)


def test_a_fit_with_few_errors_carries_the_note():
    # two far classes and two mislabelled rows: 2 errors <= K = 2
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(-5, 1, (50, 2)), rng.normal(5, 1, (50, 2))])
    y = np.repeat([0, 1], 50)
    y[[0, 60]] = [1, 0]
    model = GCUL().fit(X, y)
    assert model.n_error_pool_ == 2
    assert model.error_pool_note_ == (
        "phase 1 makes only 2 training errors (in-sample pool; at most K = 2 errors, fewer than "
        "phase 2's 3 clusters), so GCUL rejects, if at all, around a few isolated errors rather "
        "than a confusion region: try error_pool='out_of_fold' or standardised features "
        "(make_pipeline(StandardScaler(), GCUL()))"
    )

