r"""``entropy``: the negative Shannon entropy of phase 1's softmax.

Score: :math:`-H(x) = \sum_k P_1(k \mid x) \log P_1(k \mid x)` (nats), with
:math:`0 \log 0 = 0`: the log-probabilities come from the logits
(:math:`\log P_1(k) = s_k - \operatorname{logsumexp}(s)`, always finite), so a probability that
underflows to 0 contributes exactly 0. Prediction: phase 1's label. No natural operating point
at a cost λ: the entropy of a posterior is not a probability of error, so no threshold on it is
Chow's rule for every K.

References
----------
.. [1] C. E. Shannon, "A mathematical theory of communication", 1948; used as a rejection score
   e.g. by Geifman & El-Yaniv, "Selective classification for deep neural networks", NeurIPS 2017
   (as an alternative confidence function).
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from simulations import registry
from simulations.rejectors._base import Phase1Rejector, Rejector

__all__ = ["FittedEntropy", "REJECTOR", "fit", "negative_entropy"]


def negative_entropy(logits: np.ndarray) -> np.ndarray:
    r"""Negative entropy :math:`\sum_k p_k \log p_k` of ``softmax(logits)`` along axis 0.

    Parameters
    ----------
    logits : ndarray of shape (K, n)
        Finite scores.

    Returns
    -------
    ndarray of shape (n,)
        In :math:`[-\log K, 0]`; 0 for a one-hot softmax, :math:`-\log K` for a uniform one.

    Examples
    --------
    >>> import numpy as np
    >>> values = negative_entropy(np.array([[0.0, 0.0, 800.0], [0.0, -1000.0, 0.0]]))
    >>> np.round(values, 12).tolist()  # uniform; p = (1, e^-1000 = 0.0): 0 log 0 = 0; one-hot
    [-0.69314718056, 0.0, 0.0]
    """
    log_p = logits - logsumexp(logits, axis=0)
    return np.sum(np.exp(log_p) * log_p, axis=0)


class FittedEntropy(Phase1Rejector):
    """Negative softmax entropy of a fitted multinomial logistic regression (``phase1``: as
    :class:`~simulations.rejectors._base.Phase1Rejector`)."""

    name = "entropy"

    def _score_predict(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return negative_entropy(self.logits(X)), self.phase1_labels(X)


fit = FittedEntropy.from_context
"""The ``entropy`` rejector of ``context.model.phase1_`` (nothing is fitted)."""


REJECTOR = Rejector(
    name="entropy",
    label=registry.method("entropy").label,
    description="negative softmax entropy of phase 1 (0 log 0 = 0); prediction: phase 1's",
    operating_point=None,
    reference="Shannon entropy of the phase-1 softmax (Geifman & El-Yaniv 2017)",
    needs_truth=False,
    needs_target_coverage=False,
    fit=fit,
)
