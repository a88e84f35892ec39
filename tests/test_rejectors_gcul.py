"""Tests for simulations.rejectors.gcul: the margin's zero threshold is GCUL's own rule."""

from __future__ import annotations

import numpy as np
import pytest
from _rejector_data import PAPER, SMALL, cell
from _tolerances import U, linear_scores_rounding
from hypothesis import assume, given
from hypothesis import strategies as st

from simulations.gcul import GCUL
from simulations.models import LogisticRegression
from simulations.rejectors import RejectorContext, get_rejector
from simulations.rejectors.gcul import FittedGCULMargin

EPS = np.finfo(np.float64).eps


def assert_zero_threshold_is_gculs_rule(model, X):
    rejector = FittedGCULMargin(model)
    scores, labels = rejector.score_predict(X)
    gcul_labels = model.predict(X)
    accepted = gcul_labels != model.n_classes_
    np.testing.assert_array_equal(scores >= 0.0, accepted)
    np.testing.assert_array_equal(rejector.accept(X, 0.15), accepted)
    np.testing.assert_array_equal(labels[accepted], gcul_labels[accepted])  # GCUL's prediction
    return scores, labels, accepted


@pytest.mark.parametrize("seed", [10, 13, 16, 19])
@pytest.mark.parametrize("noise", [0.0, 0.4, 2.0, 6.0, 10.0, 16.0])
def test_zero_threshold_on_synthetic_cells(seed, noise):
    data, model, _ = cell(seed, noise, SMALL)
    for X in (data.X_test, data.X_train):
        assert_zero_threshold_is_gculs_rule(model, X)


@pytest.mark.parametrize("noise", [0.0, 6.0, 16.0])
def test_zero_threshold_on_paper_size_cells(noise):
    data, model, _ = cell(16, noise, PAPER)
    _, _, accepted = assert_zero_threshold_is_gculs_rule(model, data.X_test)
    assert 0 < accepted.sum() < accepted.size  # both sides of the threshold occur


def test_accept_set_does_not_depend_on_the_rejection_label():
    # GCUL(uncertain_label=-1) predicts -1 where it rejects, never n_classes_: the rejector's
    # accept set must still be GCUL's (the old one compared predict with n_classes_ and
    # accepted everything)
    data, default, _ = cell(16, 6.0, SMALL)
    model = GCUL(uncertain_label=-1).fit(data.X_train, data.y_train)
    rejector = get_rejector("gcul").fit(RejectorContext(data.X_train, data.y_train, model, 16))
    accepted = model.accepts(data.X_test)
    assert 0 < accepted.sum() < accepted.size
    np.testing.assert_array_equal(rejector.accept(data.X_test, 0.15), accepted)
    np.testing.assert_array_equal(accepted, model.predict(data.X_test) != -1)
    np.testing.assert_array_equal(accepted, default.accepts(data.X_test))
    np.testing.assert_array_equal(rejector.score(data.X_test) >= 0.0, accepted)


@pytest.mark.parametrize("reduce", ["pca", "lda"])
def test_zero_threshold_with_reduced_phase_two(reduce):
    data, _, _ = cell(14, 4.0, SMALL)
    model = GCUL(reduce=reduce, n_components=3).fit(data.X_train, data.y_train)
    assert_zero_threshold_is_gculs_rule(model, data.X_test)


@given(
    seed=st.integers(0, 2**32 - 1),
    n_classes=st.integers(2, 6),
    dim=st.integers(1, 6),
    spread=st.floats(0.3, 4.0),
)
def test_zero_threshold_on_random_blobs(seed, n_classes, dim, spread):
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-3, 3, (n_classes, dim))
    y = np.concatenate([np.arange(n_classes), rng.integers(0, n_classes, 60)])
    X = centres[y] + spread * rng.standard_normal((y.size, dim))
    try:
        model = GCUL().fit(X, y)
    except ValueError:  # the uncertain cluster took every sample: GCUL refuses, nothing to test
        assume(False)
    grid = rng.uniform(-6, 6, (200, dim))
    assert_zero_threshold_is_gculs_rule(model, np.concatenate([X, grid]))


def _tied_model(ties: str):
    """A fitted GCUL whose phase 3 is replaced by hand-made coefficients with exact ties."""
    data, _, _ = cell(15, 2.0, SMALL)
    model = GCUL().fit(data.X_train, data.y_train)
    K, d = model.n_classes_, data.X_train.shape[1]
    phase3 = LogisticRegression()
    phase3.classes_ = np.arange(K + 1)
    coef = np.zeros((K + 1, d))
    intercept = np.zeros(K + 1)
    if ties == "all":  # every score equal: GCUL accepts (first argmax) and predicts class 0
        pass
    elif ties == "uncertain_equals_best":  # s_u == s_0 exactly, the other classes far below
        coef[0, 0] = coef[K, 0] = 1.0
        intercept[1:K] = -50.0
    elif ties == "uncertain_one_ulp_above":
        coef[0, 0] = coef[K, 0] = 1.0
        intercept[K] = np.nextafter(0.0, 1.0)
        intercept[1:K] = -50.0
    phase3.coef_, phase3.intercept_ = coef, intercept
    model.phase3_ = phase3
    return model, data


@pytest.mark.parametrize("ties", ["all", "uncertain_equals_best", "uncertain_one_ulp_above"])
def test_zero_threshold_with_exact_ties(ties):
    model, data = _tied_model(ties)
    X = np.concatenate([data.X_test, np.zeros((3, data.X_test.shape[1]))])
    scores, labels, accepted = assert_zero_threshold_is_gculs_rule(model, X)
    if ties == "uncertain_one_ulp_above":
        # s_u - s_0 = 5e-324 (for x_0 = 0) or a rounding of it: GCUL rejects where it is > 0
        assert not accepted[-3:].any() and np.all(scores[-3:] < 0.0)
    else:
        assert accepted.all()
        np.testing.assert_array_equal(labels, 0)
        assert np.all(scores == 0.0) if ties == "all" else np.all(scores[-3:] == 0.0)


def test_margin_matches_phase_three_probabilities():
    data, model, _ = cell(16, 6.0, PAPER)
    rejector = FittedGCULMargin(model)
    proba = model.phase3_.predict_proba(data.X_test)
    u = int(np.flatnonzero(model.phase3_.classes_ == model.n_classes_)[0])
    reference = np.delete(proba, u, axis=1).max(axis=1) - proba[:, u]
    # The two sides' scores are X W^T + b and W X^T + b (another order): they differ by at most
    # 2 linear_scores_rounding, and M = p_r - p_u moves by at most the largest score change
    # (sum_j |dM/ds_j| <= 2 p_r (1 - p_r) + 2 p_u (1 - p_u) <= 1). From its own scores, each side
    # is within (K + 8)u of M (softmax: p_j within u/e + (K + 2)u p_j, a subtraction; margin:
    # the ratio of expm1 to a sum of K + 1 exps within (K + 6)u, log1p and expm1: (K + 8)u |M|):
    # (2K + 12)u in all, covered by 2 (K + 4) EPS = (4K + 16)u.
    K = model.n_classes_
    W, b = model.phase3_.coef_, model.phase3_.intercept_
    shift = 2 * linear_scores_rounding(W, b, data.X_test).max(axis=1)
    tolerance = 2 * (K + 4) * EPS + shift
    assert np.all(np.abs(rejector.margin(data.X_test) - reference) <= tolerance)


def test_score_is_increasing_in_the_margin_without_saturating():
    data, _, _ = cell(16, 0.0, PAPER)
    model = GCUL().fit(data.X_train, data.y_train)
    model.phase3_.coef_ = 10.0 * model.phase3_.coef_  # a sharper phase 3: margins round to 1
    model.phase3_.intercept_ = 10.0 * model.phase3_.intercept_
    rejector = FittedGCULMargin(model)
    scores = rejector.score(data.X_test)
    margins = rejector.margin(data.X_test)
    order = np.argsort(scores, kind="stable")
    assert np.all(np.diff(margins[order]) >= 0.0)
    saturated = margins == 1.0
    assert saturated.sum() > 100  # the margin ties at 1 for these ...
    assert np.unique(scores[saturated]).size == saturated.sum()  # ... the score still ranks them


def test_a_gcul_that_cannot_reject_accepts_everything():
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(-5, 1, (50, 2)), rng.normal(5, 1, (50, 2))])
    y = np.repeat([0, 1], 50)
    model = GCUL().fit(X, y)
    assert not model.can_reject_
    scores, labels, accepted = assert_zero_threshold_is_gculs_rule(model, X)
    assert accepted.all() and np.all(scores > 0.0)
    # the score is then -log(1 - msp) of phase 1: compare with its probabilities. Each side is
    # relatively off p_max by u (R + K + 3) from its own scores (R the range of a row's scores:
    # the gaps s_j - s_max carry u |gap| into their exps; the sum of K terms, then log1p/expm1
    # or the division), and log p_max moves by <= 2 (1 - p_max) <= 2 per unit of the largest
    # score change between the two orders (2 linear_scores_rounding).
    p_max = model.phase1_.predict_proba(X).max(axis=1)
    W, b = model.phase1_.coef_, model.phase1_.intercept_
    logits = X @ W.T + b
    R = logits.max(axis=1) - logits.min(axis=1)
    K = model.n_classes_
    shift = 2 * linear_scores_rounding(W, b, X).max(axis=1)
    rtol = 2 * U * (R + K + 3) + 2 * shift
    assert np.all(np.abs(-np.expm1(-scores) - p_max) <= rtol * p_max)


def test_a_confident_sample_of_a_gcul_that_cannot_reject_scores_inf_silently():
    # without an uncertain class the score is log1p(1 / others), others the other class's
    # exp(s_other - s_best): a gap of 709.8 to 744.4 makes others subnormal and 1 / others
    # overflow. That was a RuntimeWarning on stderr (gcul compare on embeddings of scale 3e5);
    # the score is +inf there, as where others is 0, and never decreases as the gap grows
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(-5, 1, (50, 2)), rng.normal(5, 1, (50, 2))])
    model = GCUL().fit(X, np.repeat([0, 1], 50))
    assert not model.can_reject_
    rejector = FittedGCULMargin(model)
    s = rejector.decision_scores(np.array([[0.0, 0.0], [1.0, 1.0]]))
    slope = abs(np.diff(s[1] - s[0])[0])  # the gap's growth per unit of t along (t, t)
    line = np.linspace(0.0, 1500.0 / slope, 4001)[:, None] * np.ones(2)  # gaps 0..1500
    scores, _ = rejector.score_predict(line)
    gaps = np.abs(np.subtract(*rejector.decision_scores(line)))
    assert np.any((gaps > 710.0) & (gaps < 744.0))  # the overflowing range is crossed
    ranked = scores[np.argsort(gaps, kind="stable")]
    assert np.all(ranked[1:] >= ranked[:-1])  # the score grows with the gap
    np.testing.assert_array_equal(scores[gaps > 710.0], np.inf)


def test_a_class_that_phase_three_never_saw_is_never_predicted():
    data, model, _ = cell(17, 3.0, SMALL)
    model = GCUL().fit(data.X_train, data.y_train)
    # refit phase 3 without class 2 (as if the uncertain cluster had taken all of it)
    relabelled = np.where(model.cluster_labels_ == model.uncertain_cluster_, 5, data.y_train)
    relabelled[relabelled == 2] = 5
    model.phase3_ = LogisticRegression().fit(data.X_train, relabelled)
    np.testing.assert_array_equal(model.phase3_.classes_, [0, 1, 3, 4, 5])
    _, labels, _ = assert_zero_threshold_is_gculs_rule(model, data.X_test)
    assert 2 not in labels


def test_registry_entry_reuses_the_fitted_model():
    data, model, context = cell(16, 6.0, PAPER)
    fitted = get_rejector("gcul").fit(context)
    assert fitted.model_ is model and fitted.coef_ is model.phase3_.coef_
    fresh = RejectorContext(data.X_train, data.y_train, model, seed=0)
    np.testing.assert_array_equal(
        get_rejector("gcul").fit(fresh).score(data.X_test), fitted.score(data.X_test)
    )
