r"""Is GCUL's rejection any good on *your* data? :func:`compare` answers what ``gcul compare`` prints.

:func:`compare` takes embeddings and labels, draws ``splits`` stratified train/test splits, fits
GCUL on each training part and every rejector of :data:`simulations.rejectors.REJECTORS` but
``bayes`` (which needs the data-generating law), and reports per rejector, as mean ± standard
error over the splits:

- its coverage at its *natural operating point* (GCUL: its own accept set; MSP: Chow's rule
  at λ; SelectiveNet: g ≥ 0.5, trained for GCUL's coverage); a rejector without one (entropy,
  Mahalanobis, kNN, Deep Gamblers) is operated at GCUL's coverage, and the table says so;
- its selective risk at GCUL's coverage (the same accepted count as GCUL on the test part,
  :func:`gcul_theory.selective_risk_at_coverage`), and the paired difference with GCUL's;
- its AURC (:func:`gcul_theory.aurc`);
- the paper's utility :math:`U = \varepsilon - \varepsilon_{sel} - \lambda\rho` and Chow's
  :math:`U_{joint} = \varepsilon - (1-\rho)\varepsilon_{sel} - \lambda\rho`
  (:func:`gcul_theory.joint_utility`) at its operating point, with :math:`\varepsilon` the
  test error of phase 1 (the classifier every rejector starts from), :math:`\varepsilon_{sel}`
  the error of the rejector's own predictions among the rows it accepts, :math:`\rho` the
  share it rejects;
- a one-line verdict (:func:`verdict`): Nadeau & Bengio's corrected resampled t test of the
  per-split differences with GCUL's, at a stated two-sided level; a tie when the selective
  risks are the same in every split.

It then gives the guarantee practitioners ask for (:class:`Guarantee`): a (1 − δ)
Clopper–Pearson upper bound on the selective risk of GCUL's accept set, and of MSP thresholded
at the same coverage, from a calibration split; and SGR's MSP threshold for a target risk.

Layout: :mod:`simulations.statistics` (the splits, :func:`estimate`, :func:`verdict`),
:mod:`~simulations.compare.settings` (``CompareSettings``: :func:`compare`'s options, declared,
checked once and frozen), :mod:`~simulations.compare.protocol` (:func:`compare`: the data's
checks, the per-split measurement, the guarantee), :mod:`~simulations.compare.result`
(:class:`CompareResult` and its text, Markdown and
JSON), :mod:`~simulations.compare.figure` (:func:`plot_risk_coverage`) and
:mod:`~simulations.compare.sensitivity` (the baselines along their knobs and GCUL across PCA
dimensions on one :class:`Split`: :func:`operating_points`, :func:`pca_sweep`; and
:func:`standardise`, the label-free scaling of raw features). A new rejector needs no
change here (it is an entry of :data:`simulations.rejectors.REJECTORS`); a new column of the
table goes into ``protocol`` (its measurement) and ``result`` (its rendering).

References
----------
.. [1] "Ambiguity identification in text emotion classification via cluster-guided learning"
   (the GCUL paper), section ``subsec:selective_exp`` (the comparison with MSP + Chow's rule,
   SelectiveNet and Mahalanobis rejection) and ``subsec:selectivity_score`` (the utility U).
.. [2] C. Nadeau and Y. Bengio, "Inference for the generalization error", Machine Learning 52
   (2003): the corrected variance of a mean over repeated random train/test splits.
"""

from __future__ import annotations

from simulations.compare.figure import plot_risk_coverage
from simulations.compare.sensitivity import (
    LAM_TARGET,
    MAHA_RETAINED,
    MSP_LAMBDAS,
    PRE_METHOD,
    SN_COVERAGES,
    Split,
    gcul_reference,
    operating_points,
    pca_sweep,
    standardise,
)
from simulations.compare.protocol import DEFAULT_CALIBRATION, DEFAULT_TEST_SIZE, MAX_SPLITS, compare
from simulations.compare.result import ASSUMPTION, CompareResult, Guarantee, RejectorSummary
from simulations.statistics import (
    DEFAULT_LEVEL,
    Estimate,
    Verdict,
    estimate,
    stratified_splits,
    t_critical,
    verdict,
)

__all__ = [
    "ASSUMPTION",
    "DEFAULT_LEVEL",
    "DEFAULT_CALIBRATION",
    "DEFAULT_TEST_SIZE",
    "LAM_TARGET",
    "MAHA_RETAINED",
    "MAX_SPLITS",
    "MSP_LAMBDAS",
    "PRE_METHOD",
    "SN_COVERAGES",
    "CompareResult",
    "Estimate",
    "Guarantee",
    "RejectorSummary",
    "Split",
    "Verdict",
    "compare",
    "estimate",
    "gcul_reference",
    "operating_points",
    "pca_sweep",
    "plot_risk_coverage",
    "standardise",
    "stratified_splits",
    "t_critical",
    "verdict",
]
