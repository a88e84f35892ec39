r"""``bayes``: the Bayes-optimal rejector of the synthetic protocol (its exact posterior).

For the ``(seed, σ)`` cell, :func:`simulations.synthetic.mixture` gives the law of a test sample:
class :math:`k` is :math:`\mathcal N(c_k, s^2 I)` with weight :math:`n_{pc}`, the confusion
population :math:`\mathcal N(c_{conf}, s_c^2 I)` with weight :math:`n_{conf}` and a label of law
:math:`π` (``confusion_label_law``: uniform over the :math:`K` classes by default), with
:math:`s^2 = r^2 + σ^2` and :math:`s_c^2 = (a r)^2 + σ^2`; test labels are never flipped. So,
with :math:`D_k = \lVert x - c_k\rVert^2` and :math:`D_c = \lVert x - c_{conf}\rVert^2`,

.. math::

    P(y = k \mid x) = \frac{n_{pc}\, e^{-D_k / 2s^2}
        + n_{conf}\, π_k\, (s / s_c)^d\, e^{-D_c / 2s_c^2}}
        {n_{pc} \sum_j e^{-D_j / 2s^2}
        + n_{conf}\, (s / s_c)^d\, e^{-D_c / 2s_c^2}}

(the normals' common factor :math:`(2π s^2)^{-d/2}` cancels; the confusion component keeps the
ratio :math:`(s / s_c)^d` of its normalising constant to the classes'), computed in log space
with ``logaddexp`` and ``logsumexp``, so points far from every centre (where every density
underflows) get their exact limit. When :math:`s_c = s` and :math:`π` is uniform (the paper's
blob) the confusion term is :math:`\log(n_{conf}/K) - D_c/2s^2`, the very floats of the
uniform case. Score: :math:`\log \max_k P(y = k \mid x)`. Prediction: the (first)
argmax. Operating point: Chow's rule, accept iff :math:`\max_k P(y = k \mid x) \ge 1 - λ`,
decided in log space; with the true posterior it maximises Chow's per-sample gain
:math:`U_{joint}` and, for every number of accepted samples :math:`m`, accepting the :math:`m`
largest scores minimises the expected number of errors given the test features: no rejector
that sees only :math:`x` does better in expectation (the floor of every risk–coverage curve).

Synthetic protocol only: it needs ``RejectorContext.mixture`` (a cell's
``simulations.synthetic.Dataset.mixture``).

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
        The data-generating mixture; ``law.spread`` must be positive, and so must
        ``law.confusion_spread`` if ``law.n_confusion > 0`` (:class:`FittedBayes` checks both).
    X : ndarray of shape (n, d)
        Finite features.

    Returns
    -------
    ndarray of shape (K, n)
        Each column's exponentials sum to 1. A class with :math:`π_k = 0` and no chance of its
        own (``n_per_class`` is positive, so none) would get ``-inf``.

    Notes
    -----
    The joint log term of class :math:`k` is
    :math:`\operatorname{logaddexp}(\log n_{pc} - D_k/2s^2,\;
    \log n_{conf} + \log π_k - d \log(s_c/s) - D_c/2s_c^2)`; see the module docstring.

    Examples
    --------
    >>> import numpy as np
    >>> from simulations.synthetic import Mixture
    >>> uniform = np.array([0.5, 0.5])
    >>> law = Mixture(np.array([[-1.0], [1.0]]), np.array([0.0]), 1.0, 10, 0, 1.0, 0.0,
    ...               confusion_spread=1.0, confusion_label_law=uniform)
    >>> p = np.exp(log_posterior(law, np.array([[0.0], [1.0]])))
    >>> np.round(p[1], 12).tolist()  # 1 / (1 + e^-2) at x = 1
    [0.5, 0.880797077978]
    >>> biased = law._replace(n_confusion=10, confusion_label_law=np.array([0.0, 1.0]))
    >>> p = np.exp(log_posterior(biased, np.array([[0.0]])))[:, 0]  # at x = 0, the blob's centre
    >>> bool(np.isclose(p[1], (np.exp(-0.5) + 1) / (2 * np.exp(-0.5) + 1), rtol=1e-15, atol=0))
    True
    """
    scale = 2.0 * law.spread**2
    # squared distances from differences (no cancellation far from the centres), shape (K, n)
    diff = X[None, :, :] - law.centers[:, None, :]
    class_terms = np.log(law.n_per_class) - np.einsum("knd,knd->kn", diff, diff) / scale
    if not law.n_confusion:
        joint = class_terms
    else:
        diff_c = X - law.confusion_center
        distances_c = np.einsum("nd,nd->n", diff_c, diff_c)
        n_classes, dim = law.centers.shape
        pi = np.asarray(law.confusion_label_law, dtype=float)
        if law.confusion_spread == law.spread:  # the classes' normalising constant: it cancels
            confusion = -distances_c / scale
        else:
            scale_c = 2.0 * law.confusion_spread**2
            confusion = -dim * np.log(law.confusion_spread / law.spread) - distances_c / scale_c
        if np.all(pi == pi[0]):  # uniform: one weight log(n_conf / K), as in the paper's blob
            confusion = np.log(law.n_confusion / n_classes) + confusion
        else:
            with np.errstate(divide="ignore"):  # pi_k = 0: a weight of -inf, exactly
                log_weights = np.log(law.n_confusion) + np.log(pi)
            confusion = log_weights[:, None] + confusion[None, :]
        joint = np.logaddexp(class_terms, confusion)
    return joint - logsumexp(joint, axis=0)


class FittedBayes(FittedRejector):
    """The posterior of a known mixture as a rejector.

    Parameters
    ----------
    law : simulations.synthetic.Mixture
        The data-generating law; its spreads must be positive, their squares not underflowing
        (s above about 1.6e-162), and its ``confusion_label_law`` a
        probability vector over the ``K`` classes (sum within 1e-9 of 1).
    """

    name = "bayes"
    has_operating_point = True

    def __init__(self, law: Mixture) -> None:
        if not isinstance(law, Mixture):
            raise TypeError(
                f"law must be a simulations.synthetic.Mixture; got {type(law).__name__}"
            )
        # log_posterior divides by 2 s**2 (and 2 s_c**2): a spread whose square underflows to 0
        # (s below about 1.6e-162) is a point mass in float64 (a division by zero, 0/0 at a centre)
        if not 2.0 * law.spread**2 > 0.0:
            raise ValueError(
                "the Bayes posterior needs a positive spread sqrt(radius**2 + noise**2) whose "
                f"square does not underflow; got {law.spread!r} (radius={law.radius!r}, "
                f"noise={law.noise!r}): the classes are point masses"
            )
        K = law.centers.shape[0]
        pi = np.asarray(law.confusion_label_law)
        if law.n_confusion and not 2.0 * law.confusion_spread**2 > 0.0:
            raise ValueError(
                "the Bayes posterior needs a positive confusion_spread when n_confusion > 0, "
                f"whose square does not underflow; got {law.confusion_spread!r}: the confusion "
                "population is a point mass"
            )
        if (
            pi.shape != (K,)
            or not np.all(np.isfinite(pi))
            or np.any(pi < 0)
            or abs(float(pi.sum()) - 1.0) > 1e-9  # a computed law is within (K + 2) u of 1
        ):
            raise ValueError(
                f"law.confusion_label_law must be a probability vector of shape ({K},); got "
                f"{np.array2string(pi, threshold=8)}"
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
            "pass mixture=simulations.synthetic.mixture(seed, noise, config) (or the "
            "mixture of the cell's make_dataset) to RejectorContext"
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
