r"""``bayes``: the Bayes-optimal rejector of the synthetic protocol (its exact posterior).

For the ``(seed, σ)`` cell, :func:`simulations.synthetic.mixture` gives the law of a test sample:
class :math:`k` is :math:`\mathcal N(c_k, s^2 I)` with weight :math:`n_{pc}`, the confusion
population :math:`\mathcal N(\bar c, s^2 I)` with weight :math:`n_{conf}` and a label uniform
over the :math:`K` classes, :math:`s^2 = r^2 + σ^2`; test labels are never flipped. So

.. math::

    P(y = k \mid x) = \frac{n_{pc}\, e^{-\lVert x - c_k\rVert^2 / 2s^2}
        + \frac{n_{conf}}{K} e^{-\lVert x - \bar c\rVert^2 / 2s^2}}
        {n_{pc} \sum_j e^{-\lVert x - c_j\rVert^2 / 2s^2}
        + n_{conf}\, e^{-\lVert x - \bar c\rVert^2 / 2s^2}}

(the normalising constants of the normals are equal and cancel), computed in log space with
``logaddexp`` and ``logsumexp``, so points far from every centre (where every density underflows)
get their exact limit. Score: :math:`\log \max_k P(y = k \mid x)`. Prediction: the (first)
argmax. Operating point: Chow's rule, accept iff :math:`\max_k P(y = k \mid x) \ge 1 - λ`,
decided in log space; with the true posterior it maximises Chow's per-sample gain
:math:`U_{joint}` and, for every number of accepted samples :math:`m`, accepting the :math:`m`
largest scores minimises the expected number of errors given the test features: no rejector
that sees only :math:`x` does better in expectation (the floor of every risk–coverage curve).

Synthetic protocol only: it needs ``RejectorContext.mixture``.

References
----------
.. [1] C. K. Chow, "On optimum recognition error and reject tradeoff", IEEE Trans. Inf. Theory
   16(1), 1970.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from simulations import registry
from simulations.rejectors._base import (
    FittedRejector,
    Rejector,
    RejectorContext,
    log_chow_threshold,
)
from simulations.synthetic import Mixture

__all__ = ["FittedBayes", "REJECTOR", "fit", "log_posterior"]


def log_posterior(law: Mixture, X: np.ndarray) -> np.ndarray:
    r"""Log posterior :math:`\log P(y = k \mid x)` of the mixture ``law``, shape ``(K, n)``.

    Parameters
    ----------
    law : simulations.synthetic.Mixture
        The data-generating mixture; ``law.spread`` must be positive.
    X : ndarray of shape (n, d)
        Finite features.

    Returns
    -------
    ndarray of shape (K, n)
        Each column's exponentials sum to 1.

    Examples
    --------
    >>> import numpy as np
    >>> from simulations.synthetic import Mixture
    >>> law = Mixture(np.array([[-1.0], [1.0]]), np.array([0.0]), 1.0, 10, 0, 1.0, 0.0)
    >>> p = np.exp(log_posterior(law, np.array([[0.0], [1.0]])))
    >>> np.round(p[1], 12).tolist()  # 1 / (1 + e^-2) at x = 1
    [0.5, 0.880797077978]
    """
    scale = 2.0 * law.spread**2
    # squared distances from differences (no cancellation far from the centres), shape (K, n)
    diff = X[None, :, :] - law.centers[:, None, :]
    class_terms = np.log(law.n_per_class) - np.einsum("knd,knd->kn", diff, diff) / scale
    if law.n_confusion:
        diff_c = X - law.confusion_center
        n_classes = law.centers.shape[0]
        confusion = np.log(law.n_confusion / n_classes) - np.einsum("nd,nd->n", diff_c, diff_c) / (
            scale
        )
        joint = np.logaddexp(class_terms, confusion)
    else:
        joint = class_terms
    return joint - logsumexp(joint, axis=0)


class FittedBayes(FittedRejector):
    """The posterior of a known mixture as a rejector.

    Parameters
    ----------
    law : simulations.synthetic.Mixture
        The data-generating law; its spread must be positive.
    """

    name = "bayes"
    has_operating_point = True

    def __init__(self, law: Mixture) -> None:
        if not isinstance(law, Mixture):
            raise TypeError(
                f"law must be a simulations.synthetic.Mixture; got {type(law).__name__}"
            )
        if not law.spread > 0.0:
            raise ValueError(
                "the Bayes posterior needs a positive spread sqrt(radius**2 + noise**2); got "
                f"{law.spread!r} (radius={law.radius!r}, noise={law.noise!r}): the classes are "
                "point masses"
            )
        super().__init__(law.centers.shape[1], law.centers.shape[0])
        self.law_ = law

    def _score_predict(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        log_p = log_posterior(self.law_, X)
        best = np.argmax(log_p, axis=0)
        return log_p[best, np.arange(X.shape[0])], best.astype(np.int64)

    def _accept(self, X: np.ndarray, lam: float) -> np.ndarray:
        return self._score_predict(X)[0] >= log_chow_threshold(lam)

    def _score_threshold(self, lam: float) -> float:
        return log_chow_threshold(lam)


def fit(context: RejectorContext) -> FittedBayes:
    """The posterior of ``context.mixture`` (synthetic protocol only; nothing is fitted).

    Raises
    ------
    ValueError
        If ``context.mixture`` is None (no known data-generating law).
    """
    if context.mixture is None:
        raise ValueError(
            "the 'bayes' rejector needs the data-generating law (synthetic protocol only): "
            "pass mixture=simulations.synthetic.mixture(seed, noise, config) to RejectorContext"
        )
    return FittedBayes(context.mixture)


REJECTOR = Rejector(
    name="bayes",
    label=registry.method("bayes").label,
    description=(
        "max of the exact posterior of the generator's mixture (as its log); prediction: its argmax"
    ),
    operating_point="Chow's rule on the posterior: accept iff max P(y | x) >= 1 - lam",
    reference="Chow 1970; the mixture of simulations.synthetic.mixture",
    needs_truth=True,
    needs_target_coverage=False,
    fit=fit,
)
