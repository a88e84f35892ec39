"""Tests for simulations.rejectors.entropy: against scipy.special.entr; 0 log 0 = 0."""

from __future__ import annotations

import mpmath
import numpy as np
from _rejector_data import PAPER, cell
from _tolerances import U, gamma
from scipy.special import entr, logsumexp

from simulations.rejectors import get_rejector
from simulations.rejectors.entropy import negative_entropy


def own_rounding(logits: np.ndarray) -> np.ndarray:
    """Bound on |negative_entropy(logits) - exact value| per column (K classes, u = 2**-53).

    logsumexp (scipy: max, exp of the gaps, a sum, a log, the max added) errs by at most
    e_LSE = u (R + K + log K + |LSE|), R the range of the logits; log p_j = s_j - LSE then by
    a_j = u |log p_j| + e_LSE. A term p log p moves by p |1 + log p| a_j (first order), where
    p |1 + log p| <= 1 and p |1 + log p| |log p| <= 1: in all u K + (1 + log K) e_LSE. The exps,
    the products and the sum of K terms add (K + 1) u H <= (K + 1) u log K.
    """
    K = logits.shape[0]
    R = logits.max(axis=0) - logits.min(axis=0)
    lse = np.abs(logsumexp(logits, axis=0))
    e_lse = U * (R + K + np.log(K) + lse)
    return U * K + (1 + np.log(K)) * e_lse + (K + 1) * U * np.log(K)


def test_entropy_equals_reference_on_phase_one_probabilities():
    data, model, context = cell(13, 6.0, PAPER)
    fitted = get_rejector("entropy").fit(context)
    scores, labels = fitted.score_predict(data.X_test)
    np.testing.assert_array_equal(labels, model.phase1_.predict(data.X_test))
    reference = -entr(model.phase1_.predict_proba(data.X_test)).sum(axis=1)
    K = model.n_classes_
    W, b = model.phase1_.coef_, model.phase1_.intercept_
    logits = W @ data.X_test.T + b[:, None]
    # The reference's logits are X W^T + b, another order of the same d + 1 terms: the two
    # differ by <= 2 gamma(d + 1) (|W| |x| + |b|) per class, and H moves by at most
    # sum_j p_j |log p_j + H| <= 2 log K per unit of the largest logit change. Its softmax
    # (exp of the gaps, a sum, a division: p within u (R + K + 2) relative) moves each p log p
    # by p |1 + log p| <= 1 times that, and entr and the sum add (K + 1) u log K; ours is
    # own_rounding.
    d = data.X_test.shape[1]
    size = (np.abs(W) @ np.abs(data.X_test).T + np.abs(b)[:, None]).max(axis=0)
    logit_shift = 2 * np.log(K) * 2 * gamma(d + 1) * size
    R = logits.max(axis=0) - logits.min(axis=0)
    theirs = (1 + np.log(K)) * U * (R + K + 2) + (K + 1) * U * np.log(K)
    tolerance = own_rounding(logits) + theirs + logit_shift
    assert np.all(np.abs(scores - reference) <= tolerance)
    # -H <= 0 exactly (log p = s - LSE <= 0: LSE >= max s, rounding is monotone); -H >= -log K
    # to within the rounding of both sides (np.log(K): u log K)
    assert np.all(scores <= 0.0)
    assert np.all(scores >= -np.log(K) - own_rounding(logits) - U * np.log(K))


def test_zero_times_log_zero_is_zero():
    # a probability that underflows to 0 contributes exactly 0 (not nan)
    logits = np.array([[0.0, 1000.0, 0.0], [-1000.0, 0.0, 0.0], [-1000.0, 0.0, np.log(2.0)]])
    values = negative_entropy(logits)
    assert values[0] == 0.0 and values[1] == 0.0
    # about -(1/4 log 4 + 1/4 log 4 + 1/2 log 2) = -(3/2) log 2: the exact value of these float
    # logits at 50 digits, rounded (u |exact|), to own_rounding
    with mpmath.workdps(50):
        s = [mpmath.mpf(float(v)) for v in logits[:, 2]]
        log_z = mpmath.log(mpmath.fsum(mpmath.exp(v) for v in s))
        exact = float(mpmath.fsum(mpmath.exp(v - log_z) * (v - log_z) for v in s))
    assert abs(values[2] - exact) <= own_rounding(logits[:, 2:])[0] + U * abs(exact)
    assert not np.any(np.isnan(values))


def test_uniform_softmax_has_the_lowest_score():
    K = 7
    exact = float(-mpmath.log(K))  # the mpmath value rounded: u |exact| more
    bound = own_rounding(np.zeros((K, 1)))[0] + U * abs(exact)
    assert abs(negative_entropy(np.zeros((K, 1)))[0] - exact) <= bound
