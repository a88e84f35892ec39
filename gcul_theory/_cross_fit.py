r"""Cross-fitted confidence bounds on the utility U(λ): K models, each judged on the fold it
never saw, their bounds averaged.

A user with no spare calibration data splits the rows into K folds, fits one selective
classifier per fold on the other folds and records its per-sample outcomes on the fold it did
not see. :func:`cross_fit_utility_bounds` turns those K sets of outcomes into bounds on the
*average* utility of the K fold models, the cross-fitted counterpart of
:func:`~gcul_theory.utility_confidence_bounds` and :func:`~gcul_theory.certified_lambda`.

References
----------
.. [1] "Ambiguity identification in text emotion classification via cluster-guided learning"
   (the GCUL paper), section ``subsec:selectivity_score`` (the utility U(λ)).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._certified import UtilityBounds, check_indicators, check_lam, last_positive
from ._validation import check_delta

__all__ = ["CrossFitBounds", "cross_fit_utility_bounds"]


@dataclasses.dataclass(frozen=True)
class CrossFitBounds:
    """Result of :func:`cross_fit_utility_bounds`.

    Attributes
    ----------
    lambda_cert : float
        The largest λ with the average lower bound positive on ``[0, λ]`` (0 if none, 1 if
        every λ < 1).
    lower, upper : float
        Averages over the folds of each fold's one-sided (1 − δ/K) lower and upper bounds on
        its U(lam).
    fold_lambda_cert, fold_lower, fold_upper : tuple of float
        Each fold's own λ*_CERT and bounds at lam, at risk δ/K (what
        :func:`~gcul_theory.certified_lambda` and :func:`~gcul_theory.utility_confidence_bounds`
        return for that fold at ``delta / K``).
    lam, delta : float
        The cost and the total risk.
    """

    lambda_cert: float
    lower: float
    upper: float
    fold_lambda_cert: tuple[float, ...]
    fold_lower: tuple[float, ...]
    fold_upper: tuple[float, ...]
    lam: float
    delta: float


def cross_fit_utility_bounds(
    folds: Sequence[tuple[Any, Any, Any]], lam: float = 0.15, delta: float = 0.05
) -> CrossFitBounds:
    r"""Bounds on the average utility of K fold models, each certified on its held-out fold.

    Parameters
    ----------
    folds : sequence of K triples ``(base_wrong, selective_wrong, rejected)``
        For fold k, the per-sample indicators of the fold model :math:`f_k` (fitted without
        fold k) on the rows of fold k, as :func:`~gcul_theory.utility_confidence_bounds` takes
        them: base classifier wrong; accepted *and* wrong (False on rejected rows); rejected.
        ``K >= 1``; the folds may differ in size.
    lam : float, default=0.15
        Relative rejection cost λ ∈ [0, 1).
    delta : float, default=0.05
        Total risk δ ∈ (0, 1), split equally over the folds (δ/K each).

    Returns
    -------
    CrossFitBounds
        ``lower``/``upper`` (averages of the folds' bounds at ``lam``), ``lambda_cert`` (the
        last λ where the average lower bound is positive) and each fold's own values.

    Raises
    ------
    TypeError, ValueError
        ``folds`` not a non-empty sequence of triples; a fold's indicators invalid (as
        :func:`~gcul_theory.utility_confidence_bounds` refuses them; the message names the
        fold); ``lam`` outside [0, 1); ``delta`` outside (0, 1).

    Notes
    -----
    Assumptions: the rows are iid draws of the deployment law, and the assignment of rows to
    folds is drawn independently of them (a random partition; not stratified by label, which
    would make a fold's rows depend on the other folds' labels). Then, given the partition and
    :math:`f_k` (a function of the other folds only), the rows of fold k are still iid draws of
    the law, so the betting bound of :func:`~gcul_theory.utility_confidence_bounds` at risk
    :math:`\delta/K` gives :math:`L_k(\lambda)` with :math:`P(L_k(\lambda) > U_k(\lambda)) \le
    \delta/K`, :math:`U_k(\lambda) = \varepsilon - \varepsilon_{sel} - \lambda\rho` of
    :math:`f_k` on the law. By a union bound over the K folds, with probability at least
    :math:`1 - \delta` every :math:`L_k \le U_k`, hence

    .. math:: \bar L(\lambda) = \frac1K \sum_k L_k(\lambda) \le \bar U(\lambda)
              = \frac1K \sum_k U_k(\lambda) .

    ``lower`` is :math:`\bar L(\text{lam})`; ``upper`` is the same average of the upper
    bounds, so ``[lower, upper]`` is a :math:`1 - 2\delta` interval on :math:`\bar U`.
    ``lambda_cert`` is the largest λ with :math:`\bar L > 0` on :math:`[0, \lambda]` (each
    :math:`L_k`, clipped to the trivial range :math:`[-1-\lambda, 1]`, is non-increasing in λ,
    and so is :math:`\bar L`), found by an 80-step bisection; for every fixed λ,
    :math:`P(\text{lambda\_cert} > \lambda \text{ and } \bar U(\lambda) \le 0) \le \delta`.

    The K sets of indicators are *not* pooled into one sample: they come from K different
    models, so their union is not an iid sample of any one model's outcomes. A fold with no
    rejected or no accepted row contributes the trivial bounds :math:`(-1-\lambda, 1)`. Nothing
    is guaranteed about a model refitted on all the rows, which no fold judged.

    Examples
    --------
    Two folds of the data of :func:`~gcul_theory.utility_confidence_bounds` (400 rows each;
    U(0.15) = 0.06 in both):

    >>> import numpy as np
    >>> rejected = np.r_[np.ones(40), np.zeros(360)].astype(bool)
    >>> base_wrong = np.r_[np.ones(30), np.zeros(10), np.ones(40), np.zeros(320)]
    >>> selective_wrong = np.r_[np.zeros(40), np.ones(36), np.zeros(324)]
    >>> fold = (base_wrong, selective_wrong, rejected)
    >>> bounds = cross_fit_utility_bounds([fold, fold], lam=0.15, delta=0.05)
    >>> bool(bounds.lower < 0.06 < bounds.upper), bounds.fold_lower[0] == bounds.lower
    (True, True)
    >>> from gcul_theory import utility_confidence_bounds
    >>> bounds.fold_lower[0] == utility_confidence_bounds(*fold, lam=0.15, delta=0.025)[0]
    True
    """
    if isinstance(folds, str | bytes) or not isinstance(folds, Sequence):
        raise TypeError(
            f"folds must be a sequence of (base_wrong, selective_wrong, rejected) triples; got "
            f"{type(folds).__name__}"
        )
    if len(folds) == 0:
        raise ValueError("folds must hold at least one (base_wrong, selective_wrong, rejected)")
    lam = check_lam(lam)
    delta = check_delta(delta)
    checked = []
    for k, fold in enumerate(folds):
        if isinstance(fold, str | bytes) or not isinstance(fold, Sequence) or len(fold) != 3:
            raise TypeError(
                f"folds[{k}] must be a (base_wrong, selective_wrong, rejected) triple; got "
                f"{type(fold).__name__}"
            )
        try:
            checked.append(check_indicators(*fold))
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"folds[{k}]: {exc}") from exc
    fold_delta = delta / len(checked)
    # each fold's bounds, clipped to the trivial range as utility_confidence_bounds clips them
    bounds = [UtilityBounds(*fold, fold_delta) for fold in checked]

    def mean_lower(value: float) -> float:
        return float(np.mean([fold.lower(value) for fold in bounds]))

    fold_lower = tuple(fold.lower(lam) for fold in bounds)
    fold_upper = tuple(fold.upper(lam) for fold in bounds)
    return CrossFitBounds(
        lambda_cert=last_positive(mean_lower),
        lower=float(np.mean(fold_lower)),
        upper=float(np.mean(fold_upper)),
        fold_lambda_cert=tuple(last_positive(fold.lower) for fold in bounds),
        fold_lower=fold_lower,
        fold_upper=fold_upper,
        lam=lam,
        delta=delta,
    )
