"""Tests for simulations.rejectors.entropy: against scipy.special.entr; 0 log 0 = 0."""

from __future__ import annotations

import numpy as np
from _rejector_data import PAPER, cell
from scipy.special import entr

from simulations.rejectors import get_rejector
from simulations.rejectors.entropy import negative_entropy

EPS = np.finfo(np.float64).eps


def test_entropy_equals_reference_on_phase_one_probabilities():
    data, model, context = cell(13, 6.0, PAPER)
    fitted = get_rejector("entropy").fit(context)
    scores, labels = fitted.score_predict(data.X_test)
    np.testing.assert_array_equal(labels, model.phase1_.predict(data.X_test))
    reference = -entr(model.phase1_.predict_proba(data.X_test)).sum(axis=1)
    K = model.n_classes_
    # both sums of K terms p log p with |p log p| <= 1/e; each p carries (K + 2) eps relative
    # rounding and each log p an absolute one of (K + 3) eps: |error| <= 2 K (2K + 5) eps
    np.testing.assert_allclose(scores, reference, rtol=0, atol=2 * K * (2 * K + 5) * EPS)
    assert np.all(scores <= 0.0) and np.all(scores >= -np.log(K) - 1e-12)


def test_zero_times_log_zero_is_zero():
    # a probability that underflows to 0 contributes exactly 0 (not nan)
    logits = np.array([[0.0, 1000.0, 0.0], [-1000.0, 0.0, 0.0], [-1000.0, 0.0, np.log(2.0)]])
    values = negative_entropy(logits)
    assert values[0] == 0.0 and values[1] == 0.0
    p = np.array([1 / 4, 1 / 4, 1 / 2])
    np.testing.assert_allclose(values[2], np.sum(p * np.log(p)), rtol=4 * EPS)
    assert not np.any(np.isnan(values))


def test_uniform_softmax_has_the_lowest_score():
    K = 7
    np.testing.assert_allclose(negative_entropy(np.zeros((K, 1))), [-np.log(K)], rtol=4 * EPS)
