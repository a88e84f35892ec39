r"""``gcul``: GCUL's own rejection, scored by phase 3's margin over the uncertain class.

Score: phase 3's margin :math:`M(x) = \max_{k<K} P_3(k \mid x) - P_3(\mathrm{uncertain} \mid x)`,
reported as the strictly increasing transform :math:`-\log(1 - M) \in (-\log 2, \infty)`,
which keeps every ranking and the zero threshold of :math:`M` but does not round to a constant
where :math:`M` rounds to 1 in float64 (confident samples would all tie there).
Operating point: GCUL's own accept set, ``GCUL.accepts(X)`` (``GCUL.predict(X)`` is not the
rejection label, whichever it is); whatever λ is (GCUL's rule has no cost parameter: λ only
judges it). Exactly that set is ``score >= 0``.
Prediction: phase 3's argmax over the ``K`` real classes (the first on ties), which is what
``GCUL.predict`` returns wherever it accepts.

References
----------
.. [1] "GCUL: Ambiguity Identification in Text Emotion Classification via Cluster-Guided
   Learning" (the GCUL paper), Algorithm ``alg:gcul``, section ``subsec:pipeline``.
"""

from __future__ import annotations

import numpy as np

from simulations import registry
from simulations.rejectors._base import FittedRejector, Rejector, RejectorContext

__all__ = ["FittedGCULMargin", "REJECTOR", "fit"]

# the negative float nearest zero: the score of a rejected sample whose margin rounds to zero
_NEGATIVE_TINY = -np.finfo(np.float64).smallest_subnormal


class FittedGCULMargin(FittedRejector):
    r"""GCUL's phase-3 margin as a score, and GCUL's accept set.

    Parameters
    ----------
    model : GCUL
        A fitted GCUL (its ``phase3_`` and ``n_classes_`` are used; nothing is refitted).

    Notes
    -----
    Let :math:`s_j = w_j^\top x + b_j` be phase 3's decision scores, computed with the same
    operations as ``GCUL.predict`` (so their bits are the same), :math:`r` the first real class of
    largest score, :math:`u` the uncertain class and :math:`\Delta = s_r - s_u`. ``GCUL.predict``
    takes the first argmax of the scores, the uncertain class coming last, so it rejects iff
    :math:`\Delta < 0` (ties go to the real class). With :math:`t = e^{-|\Delta|}` and
    :math:`S` the sum of :math:`e^{s_j - \max(s_r, s_u)}` over the other real classes,

    .. math::

        -\log(1 - M) = \operatorname{log1p}\Bigl(\frac{-\operatorname{expm1}(-\Delta)}
        {2t + S}\Bigr) \ (\Delta \ge 0), \qquad
        \operatorname{log1p}\Bigl(\frac{\operatorname{expm1}(\Delta)}{2 + S}\Bigr)
        \ (\Delta < 0),

    sums of positive terms only, so accurate; the first is :math:`\ge 0` and the second
    :math:`< 0` in floating point too, except where :math:`\operatorname{expm1}(\Delta)/(2 + S)`
    underflows to zero (:math:`|\Delta|` below about ``1e-308``), where the score is set to the
    negative number nearest zero. So ``score >= 0`` is exactly GCUL's accept rule.

    A GCUL that learned no uncertain class (``can_reject_`` false: no training error) never
    rejects; then :math:`P_3(\mathrm{uncertain}) = 0` and :math:`M` is phase 3's (= phase 1's)
    maximum softmax probability, at least :math:`1/K`, so every score is positive. A real class
    that phase 3 never saw (the uncertain cluster took all its samples) has probability 0 and is
    never predicted, as in ``GCUL.predict``.
    """

    name = "gcul"
    has_operating_point = True

    def __init__(self, model) -> None:
        phase3 = model.phase3_
        super().__init__(phase3.coef_.shape[1], model.n_classes_)
        self.model_ = model
        classes = np.asarray(phase3.classes_)
        self.coef_ = phase3.coef_
        self.intercept_ = phase3.intercept_
        self.column_labels_ = classes
        uncertain = np.flatnonzero(classes == model.n_classes_)
        self.uncertain_column_ = int(uncertain[0]) if uncertain.size else None

    def decision_scores(self, X: np.ndarray) -> np.ndarray:
        """Phase 3's scores :math:`s`, shape ``(n_columns, n)``, bit for bit as ``GCUL.predict``
        computes them (it takes the first argmin of ``-(coef_ @ X.T) - intercept_``)."""
        negative = -(self.coef_ @ X.T)
        negative -= self.intercept_[:, None]
        return -negative

    def _score_predict(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        s = self.decision_scores(X)
        u = self.uncertain_column_
        real = s if u is None else np.delete(s, u, axis=0)
        real_labels = self.column_labels_ if u is None else np.delete(self.column_labels_, u)
        best = np.argmax(real, axis=0)  # the first on ties, as GCUL.predict
        labels = real_labels[best].astype(np.int64)
        columns = np.arange(real.shape[1])
        s_best = real[best, columns]
        if u is None:  # no uncertain class: M is the maximum softmax probability
            exps = np.exp(real - s_best)
            exps[best, columns] = 0.0
            others = exps.sum(axis=0)  # the other classes, relative to the best one
            # M = 1 / (1 + others), so -log(1 - M) = log1p(1 / others) (+inf where M = 1, and
            # where others is below about 5.6e-309, a subnormal whose reciprocal overflows)
            with np.errstate(divide="ignore", over="ignore"):
                return np.log1p(1.0 / others), labels
        s_u = s[u]
        delta = s_best - s_u  # exact in sign: the difference of distinct floats is never 0
        accept = delta >= 0.0
        # the other real classes, relative to the larger of s_best and s_u, summed without the
        # two leading terms (subtracting them from a full sum would cancel)
        exps = np.exp(real - np.maximum(s_best, s_u))
        exps[best, columns] = 0.0
        rest = exps.sum(axis=0)
        gap = np.abs(delta)
        with np.errstate(divide="ignore", over="ignore"):  # 1 - M below 1e-308: +inf (ties)
            ratio = np.where(
                accept,
                -np.expm1(-gap) / (2.0 * np.exp(-gap) + rest),
                np.expm1(-gap) / (2.0 + rest),
            )
        score = np.log1p(ratio)
        score[~accept & (score >= 0.0)] = _NEGATIVE_TINY
        return score, labels

    def _accept(self, X: np.ndarray, lam: float) -> np.ndarray:
        # phase 3 speaks the codes 0..K-1 and K (uncertain), whatever labels and rejection label
        # the model was fitted with: this is GCUL.accepts(X) without needing that method
        return self.model_.phase3_.predict(X) != self.model_.n_classes_

    def margin(self, X) -> np.ndarray:
        """The margin :math:`M = \\max_k P_3(k) - P_3(\\mathrm{uncertain})` itself, in (-1, 1]."""
        return -np.expm1(-self.score(X))


def fit(context: RejectorContext) -> FittedGCULMargin:
    """The ``gcul`` rejector of ``context.model`` (nothing is fitted)."""
    return FittedGCULMargin(context.model)


REJECTOR = Rejector(
    name="gcul",
    label=registry.method("gcul").label,
    description=(
        "phase 3's margin max_k P(k) - P(uncertain), as -log(1 - margin); prediction: phase 3's"
        " argmax over the K classes"
    ),
    operating_point="GCUL's own accept set (GCUL.accepts), i.e. margin >= 0",
    reference="the GCUL paper, Algorithm “Guided clustering-based uncertain learning (GCUL)”",
    needs_truth=False,
    needs_target_coverage=False,
    fit=fit,
)
