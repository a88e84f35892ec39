r"""Rejectors: GCUL's rejection and the methods it is judged against, one module per method.

Each rejector turns a training split (and the GCUL fitted on it) into a *score* on new samples
(higher = keep), a *prediction* (the class it outputs when it accepts), and, where the method has
one, a *natural operating point* at a rejection cost λ. Every computation is NumPy/SciPy and
deterministic given the context's seed.

=================  ==========================================================  ====================
name               score (prediction)                                          operating point at λ
=================  ==========================================================  ====================
``gcul``           phase 3's margin max_k P(k) − P(uncertain) (phase 3's       GCUL's own accept
                   argmax over the K classes)                                  set (λ not used)
``msp``            phase 1's maximum softmax probability (phase 1's)           Chow: p_max ≥ 1 − λ
``entropy``        negative softmax entropy of phase 1 (phase 1's)             none
``mahalanobis``    −min_k Mahalanobis distance, shared covariance + 1e-4 I     none
                   (the nearest mean's class)
``knn``            −distance to the 10th training neighbour (phase 1's)        none
``selectivenet``   selection logit of a linear SelectiveNet trained for the    g(x) ≥ 0.5 (λ not
                   target coverage (its prediction head)                       used)
``deep_gamblers``  −p_abstain of a linear gambler's-loss model (argmax of      none
                   its K class outputs)
``bayes``          max of the generator's exact posterior (its argmax);        Chow: max P ≥ 1 − λ
                   synthetic protocol only
=================  ==========================================================  ====================

Scores are reported on a strictly increasing transform where the textbook quantity rounds to a
constant for confident samples (``msp`` and ``bayes``: the log of the probability; ``gcul``:
:math:`-\log(1 - M)`; ``selectivenet``: the logit of g; ``deep_gamblers``: the log-odds of not
abstaining). Rankings, risk–coverage curves and operating points are those of the textbook
quantity; each module says how.

The interface
-------------
- :class:`RejectorContext` ``(X_train, y_train, model, seed, target_coverage=None,
  mixture=None)``: what a rejector may be fitted from, validated once. ``model`` is the GCUL
  fitted on ``(X_train, y_train)``: ``gcul``, ``msp`` and ``entropy`` reuse its phase-1 and phase-3
  models, nothing is refitted. ``seed`` is a :class:`numpy.random.SeedSequence` (or an int);
  a rejector that draws uses its own child stream (:func:`child_seed`), so results do not depend
  on which other rejectors ran, or in which order.
- :class:`Rejector`: one frozen registry entry, ``(name, label, description, operating_point,
  reference, needs_truth, needs_target_coverage, fit)``, with
  ``fit(context: RejectorContext) -> FittedRejector``.
- :class:`FittedRejector`: ``score_predict(X) -> (scores, labels)`` (one pass), ``score(X)``,
  ``predict(X)``, and ``accept(X, lam) -> bool mask`` when ``has_operating_point`` (else it raises
  ``ValueError``); ``accept_scores(scores, lam)``, the same mask from scores already computed,
  where the accept set is a threshold on the score (``msp``, ``bayes``). ``X`` is validated
  (finite, real, the training's number of features).
- :data:`REJECTORS`: the entries in the order gcul, msp, entropy, mahalanobis, knn,
  selectivenet, deep_gamblers, bayes; :func:`get_rejector` finds one by name.
- :mod:`simulations.rejectors.evaluate`: every rejector against GCUL's accept set on a test split
  (selective risk at GCUL's coverage, AURC, Chow's rule and both utilities): the columns the sweep
  adds to each row of ``results.csv``.

To add a rejector
-----------------
1. Write ``simulations/rejectors/<name>.py``: a subclass of :class:`FittedRejector` with
   ``name``, ``_score_predict(X)`` (``X`` already validated) and, if the method has a natural
   operating point, ``has_operating_point = True`` and ``_accept(X, lam)``; a function
   ``fit(context) -> FittedRejector`` that raises ``ValueError`` naming what the context lacks;
   and ``REJECTOR = Rejector(...)`` with ``label=registry.method(name).label``. If it draws
   random numbers, give it a new stream id (``child_seed(context.seed, id)``; ids in use:
   0 selectivenet, 1 deep_gamblers; never reuse or renumber one).
2. Append its ``REJECTOR`` to :data:`REJECTORS` here, and its entry (label and line style) to
   :data:`simulations.registry.METHODS`, from which ``Rejector.label`` is read.
3. Add ``tests/test_rejectors_<name>.py``: the method against an independent reference, its
   determinism and its input validation; the registry tests in ``tests/test_rejectors.py`` pick
   the new entry up.

Examples
--------
>>> import numpy as np
>>> from simulations.gcul import GCUL
>>> from simulations.synthetic import SyntheticConfig, make_dataset
>>> data = make_dataset(16, 4.0, SyntheticConfig(n_per_class=100, n_confusion=100))
>>> model = GCUL().fit(data.X_train, data.y_train)
>>> context = RejectorContext(data.X_train, data.y_train, model, seed=16)
>>> msp = get_rejector("msp").fit(context)
>>> scores, labels = msp.score_predict(data.X_test)
>>> scores.shape, bool(np.array_equal(labels, model.phase1_.predict(data.X_test)))
((120,), True)
>>> gcul = get_rejector("gcul").fit(context)
>>> bool(np.array_equal(gcul.score(data.X_test) >= 0, gcul.accept(data.X_test, 0.15)))
True
>>> [entry.name for entry in REJECTORS]  # doctest: +NORMALIZE_WHITESPACE
['gcul', 'msp', 'entropy', 'mahalanobis', 'knn', 'selectivenet', 'deep_gamblers', 'bayes']
"""

from __future__ import annotations

from simulations.rejectors import (
    bayes,
    deep_gamblers,
    entropy,
    gcul,
    knn,
    mahalanobis,
    msp,
    selectivenet,
)
from simulations.rejectors._base import FittedRejector, Rejector, RejectorContext, child_seed

__all__ = [
    "REJECTORS",
    "FittedRejector",
    "Rejector",
    "RejectorContext",
    "child_seed",
    "get_rejector",
]

REJECTORS: tuple[Rejector, ...] = (
    gcul.REJECTOR,
    msp.REJECTOR,
    entropy.REJECTOR,
    mahalanobis.REJECTOR,
    knn.REJECTOR,
    selectivenet.REJECTOR,
    deep_gamblers.REJECTOR,
    bayes.REJECTOR,
)
"""Every rejector, in the order tables and figures list them."""


def get_rejector(name: str) -> Rejector:
    """The registry entry called ``name``.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the known ones).
    """
    for entry in REJECTORS:
        if entry.name == name:
            return entry
    known = ", ".join(entry.name for entry in REJECTORS)
    raise ValueError(f"unknown rejector {name!r}; known: {known}")
