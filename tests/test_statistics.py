"""simulations.statistics on tiny inputs, against hand computations (exact fractions), SciPy and
scikit-learn; DeLong's SE against a Monte Carlo on iid data; the splits' invariants and their
committed outputs (the numbers every compare run and certificate depend on)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from simulations import statistics as st

# Each statistic below is a handful of float operations on numbers of order 1: its rounding
# error is below 64 units of roundoff, so REL = 64 * 2**-53 separates a right formula from any
# wrong one (the wrong ones differ in the first digits).
REL = 64 * 2.0**-53


def test_paired_difference_mean_and_se_by_hand():
    # d = (1, 2, 3): mean 2, sd 1, SE 1/sqrt(3); the NaN pair is left out
    mean, se, n = st.paired_difference([1.0, 2.0, 4.0, math.nan], [0.0, 0.0, 1.0, 0.5])
    assert (mean, n) == (2.0, 3)
    assert se == pytest.approx(1 / math.sqrt(3), rel=REL)
    assert math.isnan(st.paired_difference([1.0], [0.0])[1])
    assert st.paired_difference([math.nan], [0.0])[2] == 0


def test_t_pvalue_is_scipys_one_sample_test():
    d = np.array([0.3, -0.1, 0.4, 0.2, 0.25])
    mean, se, n = st.paired_difference(d, np.zeros_like(d))
    want = stats.ttest_1samp(d, 0.0).pvalue
    # the two t statistics differ by a few ulps (another order of the same 5-term sums); the
    # t law's upper tail at t ~ 2.5 with 4 df has a condition number |t f(t) / sf(t)| below 10,
    # so the p-values differ by under 10 * 8 * 2**-53 ~ 1e-14 relative: 1e-12 leaves room
    assert st.one_sample_t_pvalue(mean, se, n) == pytest.approx(want, rel=1e-12)
    assert st.one_sample_t_pvalue(0.0, 0.0, 5) == 1.0 and st.one_sample_t_pvalue(0.1, 0.0, 5) == 0.0
    assert math.isnan(st.one_sample_t_pvalue(0.1, 0.1, 1))


def test_holm_step_down_by_hand():
    # sorted 0.01 <= 0.05/4 rejects; 0.03 > 0.05/3 stops: only the first
    assert st.holm([0.01, 0.04, 0.03, 0.2]).tolist() == [True, False, False, False]
    # 0.001 <= 0.05/3, 0.02 <= 0.05/2, 0.024 <= 0.05/1: all
    assert st.holm([0.024, 0.001, 0.02]).tolist() == [True, True, True]
    # a NaN p-value is not counted in m and never rejects: 0.02 <= 0.05/2
    assert st.holm([0.02, math.nan, 0.03]).tolist() == [True, False, True]
    # at alpha = 0.1: 0.03 <= 0.1/3, 0.04 <= 0.1/2, 0.2 > 0.1/1 stops; Bonferroni would keep one
    assert st.holm([0.2, 0.04, 0.03], alpha=0.1).tolist() == [False, True, True]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: st.holm([0.5, 1.5]), "pvalues must lie in [0, 1]"),
        (lambda: st.holm([0.5], alpha=1.0), "alpha must"),
        (lambda: st.holm([[0.5]]), "pvalues must be a 1-D array"),
        (lambda: st.roc_auc([0.1, 0.2], [True]), "same length"),
        (lambda: st.roc_auc([0.1, math.nan], [True, False]), "scores must be finite"),
        (lambda: st.roc_auc([0.1, 0.2], [2, 0]), "positive must be booleans"),
        (lambda: st.paired_difference([1.0, 2.0], [1.0]), "same length"),
        (lambda: st.stratified_splits([0, 1, 1], 1, 1.5, 0), "test_size must be"),
        (lambda: st.stratified_splits([0, -1, 1], 1, 0.5, 0), "integer labels"),
        (lambda: st.stratified_splits([0, 1, 1], 0, 0.5, 0), "n_splits must be"),
        (lambda: st.random_folds(10, 2, seed=-1), "seed must be"),
        (lambda: st.stratified_folds([0, 1], 1), "n_folds must be"),
        (lambda: st.auc_bootstrap_se(np.zeros((2, 2)), {"x": np.zeros(2)}, {}, {}), "shape"),
    ],
)
def test_bad_input_is_refused_in_one_line(call, message):
    with pytest.raises((TypeError, ValueError)) as info:
        call()
    assert message in str(info.value) and "\n" not in str(info.value)


def test_gap_share_and_delta_method_se_by_hand():
    msp, gcul, bayes = [0.3, 0.4, 0.5], [0.25, 0.35, 0.5], [0.2, 0.3, 0.4]
    # a = msp - gcul = (1/20, 1/20, 0), b = msp - bayes = (1/10, 1/10, 1/10): R = (1/30)/(1/10)
    a = [Fraction(1, 20), Fraction(1, 20), Fraction(0)]
    a_bar = sum(a) / 3
    var_a = sum((x - a_bar) ** 2 for x in a) / 2  # b is constant: cov(a, b) = var(b) = 0
    share, share_se = st.gap_share(msp, gcul, bayes)
    assert share == pytest.approx(1 / 3, rel=REL)
    assert share_se == pytest.approx(math.sqrt(var_a / 3) / 0.1, rel=REL)
    # with a non-constant b the covariance terms count: against the formula in exact fractions
    msp, gcul, bayes = [0.3, 0.5, 0.4, 0.6], [0.28, 0.45, 0.41, 0.5], [0.2, 0.42, 0.33, 0.49]
    fa = [Fraction(m) - Fraction(g) for m, g in zip(msp, gcul, strict=True)]
    fb = [Fraction(m) - Fraction(b) for m, b in zip(msp, bayes, strict=True)]
    ma, mb = sum(fa) / 4, sum(fb) / 4
    r = ma / mb
    saa = sum((x - ma) ** 2 for x in fa) / 3
    sbb = sum((x - mb) ** 2 for x in fb) / 3
    sab = sum((x - ma) * (y - mb) for x, y in zip(fa, fb, strict=True)) / 3
    want = math.sqrt((saa - 2 * r * sab + r * r * sbb) / 4) / mb
    share, share_se = st.gap_share(msp, gcul, bayes)
    assert share == pytest.approx(float(r), rel=REL)
    # exact fractions of the float inputs against float arithmetic: each difference m - g, m - b
    # rounds once (2**-53 relative), the sums and products of 4 terms a few times more, and the
    # combination saa - 2 r sab + r**2 sbb cancels by a factor of at most about 100 here, so the
    # SE is within about 100 * 20 * 2**-53 ~ 2e-13 relative; 1e-9 is far above that
    assert share_se == pytest.approx(float(want), rel=1e-9)
    # no gap (MSP at the floor): undefined, never a division by ~0
    assert all(math.isnan(x) for x in st.gap_share([0.1, 0.1], [0.2, 0.1], [0.1, 0.1]))


def test_auc_is_sklearns_and_delong_se_by_hand():
    from sklearn.metrics import roc_auc_score

    scores = [0.9, 0.8, 0.4, 0.5, 0.3]
    positive = [True, True, True, False, False]
    # psi rows (positives) vs (0.5, 0.3): (1, 1), (1, 1), (0, 1): AUC = 5/6
    assert st.roc_auc(scores, positive) == pytest.approx(5 / 6, rel=REL)
    # V10 = (1, 1, 1/2): s^2 = 1/12; V01 = (2/3, 1): s^2 = 1/18; SE^2 = (1/12)/3 + (1/18)/2
    assert st.delong_se(scores, positive) == pytest.approx(math.sqrt(1 / 18), rel=REL)
    rng = np.random.default_rng(5)
    s = rng.integers(0, 6, 40).astype(float)  # many ties: each counts 1/2
    y = rng.random(40) < 0.4
    assert st.roc_auc(s, y) == pytest.approx(roc_auc_score(y, s), rel=REL)
    assert st.roc_auc(s, y.astype(int)) == st.roc_auc(s, y)  # 0/1 outcomes as booleans
    assert math.isnan(st.roc_auc([0.1, 0.2], [True, True]))
    assert math.isnan(st.delong_se([0.1, 0.2, 0.3], [True, True, False]))


def test_delong_se_matches_its_definition_on_random_data():
    # against the structural-components formula written out with loops
    rng = np.random.default_rng(7)
    s, y = rng.normal(size=30), rng.random(30) < 0.5
    pos, neg = s[y], s[~y]
    v10 = [np.mean([1.0 * (p > q) + 0.5 * (p == q) for q in neg]) for p in pos]
    v01 = [np.mean([1.0 * (p > q) + 0.5 * (p == q) for p in pos]) for q in neg]
    want = math.sqrt(np.var(v10, ddof=1) / len(pos) + np.var(v01, ddof=1) / len(neg))
    # the same sums of at most 30 terms in another order: each variance within 30 * 2**-53
    # relative times its condition (the terms are in [0, 1], their spread about 0.3: a factor
    # under 10), the square root halving it; about 2e-14 relative, below 1e-12
    assert st.delong_se(s, y) == pytest.approx(want, rel=1e-12)


def test_delong_se_is_the_auc_spread_on_iid_data():
    # 600 iid datasets of 40 positives ~ N(1, 1) and 40 negatives ~ N(0, 1) (AUC about 0.76):
    # the SD of the AUC over datasets against DeLong's SE (its mean over them). The SD's own
    # relative sampling error is about 1/sqrt(2 * 600) = 2.9%; DeLong's estimator is consistent,
    # its small-sample bias at 40 + 40 a few percent. A band of 15% is more than 5 sampling SEs
    # of the SD beyond that bias: a false failure has probability below 1e-6.
    rng = np.random.default_rng(np.random.SeedSequence(33))
    y = np.repeat([True, False], 40)
    aucs, ses = [], []
    for _ in range(600):
        s = np.concatenate([rng.normal(1.0, 1.0, 40), rng.normal(0.0, 1.0, 40)])
        aucs.append(st.roc_auc(s, y))
        ses.append(st.delong_se(s, y))
    assert np.std(aucs, ddof=1) == pytest.approx(np.mean(ses), rel=0.15)


def test_best_threshold_maximises_accuracy():
    x = np.array([0.1, 0.2, 0.35, 0.4, 0.8])
    y = np.array([False, False, True, False, True])
    cut = st.best_threshold(x, y)
    assert np.mean((x > cut) == y) == 0.8 and 0.2 < cut < 0.35
    assert st.best_threshold([0.1, 0.2], [True, True]) == -math.inf


def _crossed(shock):
    """20 units k over 10 replicates j: effect (k − 9.5) + shock(k, j), score −k (higher =
    positive = lower effect), one group of every unit."""
    k = np.arange(20.0)[:, None]
    effect = (k - 9.5) + np.array([[shock(i, j) for j in range(10)] for i in range(20)])
    return effect, {"x": np.broadcast_to(-k, effect.shape)}, {"all": np.arange(20)}, {("all", "x"): 1.0}


def test_bootstrap_redraws_the_replicates_once_for_all_units():
    # a shock common to every unit of a replicate (±5) moves every mean together: the ranking,
    # and so the AUC (1), survive every bootstrap replicate; redrawing the replicates per unit
    # would scramble the units near 0 and give a positive SE
    se = st.auc_bootstrap_se(*_crossed(lambda k, j: 5.0 if j % 2 else -5.0), n_boot=200)
    assert se == {("all", "x"): 0.0}
    own = np.random.default_rng(3).choice([-5.0, 5.0], size=(20, 10))
    args = _crossed(lambda k, j: own[k, j])
    se = st.auc_bootstrap_se(*args, n_boot=200)
    assert se[("all", "x")] > 0.01
    assert st.auc_bootstrap_se(*args, n_boot=200) == se  # seeded
    assert st.auc_bootstrap_se(*args, n_boot=200, seed=1) != se


# The splits of 57c1102 (before the helpers were written once), for fixed inputs: compare's
# splits, the certificate's calibration mask and folds, and the out-of-fold error pool's folds.
_Y = np.array([0, 1, 2, 0, 1, 0, 0, 2, 1, 1, 0, 2, 2, 0])


def test_splits_reproduce_their_committed_outputs():
    ((_, test),) = st.stratified_splits(_Y, 1, 0.3, seed=4)
    assert test.tolist() == [5, 8, 10, 11]
    assert st.stratified_split(_Y, 0.3, seed=4).nonzero()[0].tolist() == [1, 3, 5, 7]
    assert st.random_folds(14, 3, seed=4).tolist() == [0, 1, 1, 2, 1, 0, 0, 2, 1, 0, 2, 1, 0, 2]
    assert st.stratified_folds(_Y, 3, 4).tolist() == [2, 0, 2, 0, 1, 1, 2, 1, 0, 2, 1, 0, 1, 0]


@pytest.mark.parametrize("test_size", [0.1, 0.25, 0.5, 0.9])
def test_stratified_splits_partition_the_rows_and_keep_every_class(test_size):
    y = np.repeat([0, 1, 3], [7, 2, 11])  # label 2 has no row
    for train, test in st.stratified_splits(y, 4, test_size, seed=1):
        assert np.array_equal(np.sort(np.concatenate([train, test])), np.arange(y.size))
        assert set(y[train]) == {0, 1, 3}
        for c, m in ((0, 7), (1, 2), (3, 11)):
            assert np.count_nonzero(y[test] == c) == min(math.floor(test_size * m + 0.5), m - 1)
