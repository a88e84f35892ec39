r"""The statistics of ``gcul compare`` and of the studies, in one place.

Splits of the rows (one implementation of a stratified held-out part, one of folds)::

    stratified_splits     gcul compare's S stratified train/test splits (one stream per split)
    stratified_split      one stratified held-out mask (GCUL.certify's calibration part)
    stratified_folds      stratified folds (GCUL's out-of-fold error pool)
    random_folds          label-blind random folds (the cross-fitted certificate)
    stratified_three_way_split  train / calibration / test within every class (real-data study)
    per_class_folds       folds dealt class by class from fold 0 (real-data study's CV)

Repeated splits of one dataset (they overlap: Nadeau & Bengio's corrected SE)::

    estimate, Estimate    mean over splits, corrected and naive SE
    verdict, Verdict      the corrected resampled t test of a paired difference (gcul compare)
    t_critical            the two-sided critical value of Student's t
    DEFAULT_LEVEL, TEST_NAME, finite_or_none

Independent replicates (seeds) and families of tests::

    paired_difference     mean of a − b over the finite pairs, SE sd/√n, n
    one_sample_t_pvalue   two-sided p-value of the one-sample t test
    gap_share             share of a reference-to-floor gap a method recovers, delta-method SE
    holm                  Holm's step-down rejections at a family-wise level
    binomial_quantile     how many of n independent events of probability p, at most (level)

Does a score predict a binary outcome?::

    roc_auc               Mann-Whitney AUC (ties ½), scikit-learn's roc_auc_score
    delong_se             DeLong's SE of the AUC (independent units)
    auc_bootstrap_se      bootstrap SE when the units share replicates (crossed design)
    best_threshold        the cut of highest accuracy

Where a change goes: a split in ``_splits.py`` (through its two rules), the resampled t test in
``_resampled.py``, the independent-replicate statistics in ``_paired.py``, the AUC in
``_auc.py``. This module imports only NumPy, SciPy and :mod:`simulations.validation`, so every
layer of ``simulations`` (GCUL, the certificate, ``compare``) and the benchmarks can use it.
"""

from __future__ import annotations

from simulations.statistics._auc import auc_bootstrap_se, best_threshold, delong_se, roc_auc
from simulations.statistics._paired import (
    binomial_quantile,
    gap_share,
    holm,
    one_sample_t_pvalue,
    paired_difference,
)
from simulations.statistics._resampled import (
    DEFAULT_LEVEL,
    TEST_NAME,
    Estimate,
    Verdict,
    estimate,
    finite_or_none,
    t_critical,
    verdict,
)
from simulations.statistics._splits import (
    per_class_folds,
    random_folds,
    stratified_folds,
    stratified_split,
    stratified_splits,
    stratified_three_way_split,
)

__all__ = [
    "DEFAULT_LEVEL",
    "TEST_NAME",
    "Estimate",
    "Verdict",
    "auc_bootstrap_se",
    "binomial_quantile",
    "best_threshold",
    "delong_se",
    "estimate",
    "finite_or_none",
    "gap_share",
    "holm",
    "one_sample_t_pvalue",
    "paired_difference",
    "per_class_folds",
    "random_folds",
    "roc_auc",
    "stratified_folds",
    "stratified_split",
    "stratified_splits",
    "stratified_three_way_split",
    "t_critical",
    "verdict",
]
