r"""``msp``: the maximum softmax probability of phase 1, with Chow's rule at cost λ.

Score: :math:`\log \max_k P_1(k \mid x)` of GCUL's phase-1 logistic regression (a strictly
increasing transform of the maximum softmax probability, computed as
:math:`-\operatorname{log1p}(\sum_{j \ne k^*} e^{s_j - s_{k^*}})` so that it does not round to
a constant where the probability rounds to 1). Prediction: phase 1's label,
``phase1_.predict``. Operating point: Chow's rule, accept iff the maximum probability is at least
:math:`1 - λ`, decided in log space (:math:`\log p_{max} \ge \log(1 - λ)`); it is the optimal
rule for :math:`U_{joint}` when the probabilities are the true posterior.

References
----------
.. [1] D. Hendrycks and K. Gimpel, "A baseline for detecting misclassified and out-of-distribution
   examples in neural networks", ICLR 2017.
.. [2] C. K. Chow, "On optimum recognition error and reject tradeoff", IEEE Trans. Inf. Theory
   16(1), 1970.
"""

from __future__ import annotations

import numpy as np

from simulations import registry
from simulations.rejectors._base import Phase1Rejector, Rejector, log_chow_threshold

__all__ = ["FittedMSP", "REJECTOR", "fit", "log_max_softmax"]


def log_max_softmax(logits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Log of the largest softmax probability and its (first) argmax, along axis 0.

    Parameters
    ----------
    logits : ndarray of shape (K, n)
        Finite scores.

    Returns
    -------
    log_p_max : ndarray of shape (n,)
        :math:`-\operatorname{log1p}(\sum_{j \ne k^*} e^{s_j - s_{k^*}})`, at most 0; accurate to
        a few ulps relative even where :math:`p_{max}` rounds to 1.
    argmax : ndarray of shape (n,), intp
        :math:`k^*`, the first maximising row.

    Examples
    --------
    >>> import numpy as np
    >>> log_p, k = log_max_softmax(np.array([[0.0, 50.0], [np.log(3.0), 0.0]]))
    >>> np.round(np.exp(log_p), 12).tolist(), k.tolist()
    ([0.75, 1.0], [1, 0])
    >>> bool(log_p[1] < 0.0)  # e^-50, not rounded away
    True
    """
    best = np.argmax(logits, axis=0)
    columns = np.arange(logits.shape[1])
    exps = np.exp(logits - logits[best, columns])
    exps[best, columns] = 0.0
    return -np.log1p(exps.sum(axis=0)), best


class FittedMSP(Phase1Rejector):
    """Maximum softmax probability of a fitted multinomial logistic regression (``phase1``: as
    :class:`~simulations.rejectors._base.Phase1Rejector`)."""

    name = "msp"
    has_operating_point = True

    def _score_predict(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        log_p_max, _ = log_max_softmax(self.logits(X))
        return log_p_max, self.phase1_labels(X)

    def _accept(self, X: np.ndarray, lam: float) -> np.ndarray:
        return self._score_predict(X)[0] >= log_chow_threshold(lam)

    def _score_threshold(self, lam: float) -> float:
        return log_chow_threshold(lam)


fit = FittedMSP.from_context
"""The ``msp`` rejector of ``context.model.phase1_`` (nothing is fitted)."""


REJECTOR = Rejector(
    name="msp",
    label=registry.method("msp").label,
    description="phase 1's maximum softmax probability (as its log); prediction: phase 1's",
    operating_point="Chow's rule: accept iff max probability >= 1 - lam",
    reference="Hendrycks & Gimpel 2017 (MSP); Chow 1970 (the rule)",
    needs_truth=False,
    needs_target_coverage=False,
    fit=fit,
)
