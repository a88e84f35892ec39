r"""The ROC AUC of a score for a binary outcome, DeLong's SE, a crossed bootstrap SE, a threshold.

:func:`roc_auc` is the Mann-Whitney probability that a positive scores above a negative (ties
count ½), equal to scikit-learn's ``roc_auc_score``. :func:`delong_se` is its standard error for
independent units; :func:`auc_bootstrap_se` is the one to use when the units share randomness
(settings of a study that all run the same seeds), and :func:`best_threshold` the cut of
highest accuracy.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["auc_bootstrap_se", "best_threshold", "delong_se", "roc_auc"]


def _scores_and_outcome(scores: Any, positive: Any) -> tuple[np.ndarray, np.ndarray]:
    """Checked ``(scores, positive)``: 1-D, one length, finite real scores, boolean outcomes."""
    try:
        s = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError("scores must be a 1-D array of real numbers") from None
    y = np.asarray(positive)
    if s.ndim != 1 or y.ndim != 1:
        raise ValueError(f"scores and positive must be 1-D; got shapes {s.shape} and {y.shape}")
    if s.size != y.size:
        raise ValueError(f"scores and positive must have the same length; got {s.size} and {y.size}")
    if y.dtype != bool:
        if y.size and not np.isin(y, (0, 1)).all():
            raise ValueError("positive must be booleans (or 0/1)")
        y = y.astype(bool)
    if not np.isfinite(s).all():
        raise ValueError("scores must be finite (no NaN or inf)")
    return s, y


def _psi(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """:math:`\\psi(x_i, y_j) = 1[x_i > y_j] + \\tfrac12 1[x_i = y_j]`, positives by negatives."""
    return (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])


def roc_auc(scores: Sequence[float], positive: Sequence[bool]) -> float:
    r"""ROC AUC: P(score of a positive > score of a negative) + ½ P(tie) (Mann-Whitney).

    Parameters
    ----------
    scores : array_like of shape (n,)
        Finite real scores; higher means "positive".
    positive : array_like of shape (n,)
        The outcome, booleans (or 0/1).

    Returns
    -------
    float
        :math:`\frac{1}{mn}\sum_{i,j}\psi(x_i, y_j)` over the :math:`m` positives
        :math:`x_i` and :math:`n` negatives :math:`y_j`; NaN when either class is empty.

    Raises
    ------
    TypeError, ValueError
        In one line: inputs of different lengths or not 1-D, a non-finite score, an outcome
        that is not boolean.

    Examples
    --------
    >>> roc_auc([0.9, 0.8, 0.4, 0.5, 0.3], [True, True, True, False, False])  # 5/6
    0.8333333333333334
    """
    s, y = _scores_and_outcome(scores, positive)
    pos, neg = s[y], s[~y]
    if pos.size == 0 or neg.size == 0:
        return math.nan
    return float(_psi(pos, neg).mean())


def delong_se(scores: Sequence[float], positive: Sequence[bool]) -> float:
    r"""DeLong's standard error of :func:`roc_auc`, for independent units.

    Parameters
    ----------
    scores, positive : array_like of shape (n,)
        As :func:`roc_auc`.

    Returns
    -------
    float
        The SE; NaN unless there are at least two positives and two negatives.

    Raises
    ------
    TypeError, ValueError
        As :func:`roc_auc`.

    Notes
    -----
    With :math:`\psi` of :func:`roc_auc` over the :math:`m` positives :math:`x_i` and
    :math:`n` negatives :math:`y_j`, the structural components
    :math:`V_{10}(x_i) = \frac1n\sum_j \psi(x_i, y_j)` and
    :math:`V_{01}(y_j) = \frac1m\sum_i \psi(x_i, y_j)` give

    .. math:: \mathrm{SE}^2 = \frac{s^2(V_{10})}{m} + \frac{s^2(V_{01})}{n}

    (sample variances, ddof 1; DeLong, DeLong & Clarke-Pearson, "Comparing the areas under two
    or more correlated receiver operating characteristic curves", Biometrics 44, 1988). It
    assumes independent units: for units that share randomness, use :func:`auc_bootstrap_se`.

    Examples
    --------
    >>> round(delong_se([0.9, 0.8, 0.4, 0.5, 0.3], [True, True, True, False, False]) ** 2, 12)
    0.055555555556
    """
    s, y = _scores_and_outcome(scores, positive)
    pos, neg = s[y], s[~y]
    if pos.size < 2 or neg.size < 2:
        return math.nan
    psi = _psi(pos, neg)
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    return float(math.sqrt(v10.var(ddof=1) / pos.size + v01.var(ddof=1) / neg.size))


def best_threshold(scores: Sequence[float], positive: Sequence[bool]) -> float:
    """The cut ``c`` maximising the accuracy of "positive iff score > c".

    Parameters
    ----------
    scores, positive : array_like of shape (n,)
        As :func:`roc_auc`.

    Returns
    -------
    float
        One of the midpoints of the sorted distinct scores or ±inf; the smallest such cut on
        ties of accuracy. ``-inf`` for no scores.

    Raises
    ------
    TypeError, ValueError
        As :func:`roc_auc`.

    Examples
    --------
    >>> best_threshold([0.1, 0.2, 0.35, 0.4, 0.8], [False, False, True, False, True])
    0.275
    """
    s, y = _scores_and_outcome(scores, positive)
    values = np.unique(s)
    cuts = np.concatenate([[-np.inf], (values[:-1] + values[1:]) / 2.0, [np.inf]])
    accuracy = [np.mean((s > c) == y) for c in cuts]
    return float(cuts[int(np.argmax(accuracy))])


def auc_bootstrap_se(
    effect: Any,
    scores: Mapping[str, Any],
    groups: Mapping[str, Any],
    signs: Mapping[tuple[str, str], float],
    n_boot: int = 1000,
    seed: int = 0,
) -> dict[tuple[str, str], float]:
    r"""Bootstrap SE of :func:`roc_auc` when the units share their replicates (crossed design).

    A study with units (settings) crossed with replicates (seeds): every unit runs the same
    replicates, and a replicate fixes randomness every unit shares, so the units are not
    independent and :func:`delong_se` understates the uncertainty. Each bootstrap replicate
    draws the replicates with replacement, once for all units, recomputes every unit's outcome
    and scores from them, then draws the units of each group with replacement, and computes the
    AUC of every score in every group.

    Parameters
    ----------
    effect : array_like of shape (U, R)
        Per unit and replicate, the effect whose mean's sign is the outcome (NaN: none). A
        unit's outcome is positive iff its mean over the drawn replicates where the effect is
        finite is below 0 (the method is better); units whose mean is 0 or undefined are left
        out of that replicate.
    scores : mapping of str to array_like of shape (U, R)
        Per score name, its value per unit and replicate; a unit's score is its mean over the
        drawn replicates.
    groups : mapping of str to array_like of int
        Per group name, the units it resamples (indices into the rows of ``effect``).
    signs : mapping of (group, score name) to float
        The orientation of each score in each group (+1: higher means positive; -1: lower),
        chosen beforehand and kept in every replicate.
    n_boot : int, default 1000
        Number of bootstrap replicates; the SE's own relative sampling error is about
        :math:`1/\sqrt{2 n_{boot}}`.
    seed : int, default 0
        Root of the draws, ``default_rng(SeedSequence(seed))``.

    Returns
    -------
    dict of (group, score name) to float
        The SD (ddof 1) of the AUC over the replicates where both outcomes occur; NaN if fewer
        than two such replicates.

    Raises
    ------
    ValueError
        In one line: arrays of other shapes than ``effect``'s, a unit index out of range, a
        missing sign, ``n_boot < 1``.

    Notes
    -----
    Draw order, on one stream: per replicate, the replicate indices, then each group's unit
    indices in the order of ``groups`` (none for an empty group); the result depends only on
    the inputs and ``seed``.

    Examples
    --------
    >>> effect = np.array([[-1.0, -2.0], [1.0, 2.0], [-1.5, -1.0], [2.0, 0.5]])
    >>> score = {"x": -effect}
    >>> se = auc_bootstrap_se(effect, score, {"all": np.arange(4)}, {("all", "x"): 1.0}, 50)
    >>> se[("all", "x")]  # a perfect ranking in every replicate
    0.0
    """
    effect = np.asarray(effect, dtype=np.float64)
    if effect.ndim != 2:
        raise ValueError(f"effect must be a 2-D array (units, replicates); got shape {effect.shape}")
    n_units, n_reps = effect.shape
    values = {name: np.asarray(v, dtype=np.float64) for name, v in scores.items()}
    for name, v in values.items():
        if v.shape != effect.shape:
            raise ValueError(f"scores[{name!r}] must have effect's shape {effect.shape}; got {v.shape}")
    members = {name: np.asarray(g, dtype=np.int64).reshape(-1) for name, g in groups.items()}
    for name, g in members.items():
        if g.size and (g.min() < 0 or g.max() >= n_units):
            raise ValueError(f"groups[{name!r}] holds a unit index outside 0..{n_units - 1}")
    missing = [(g, s) for g in members for s in values if (g, s) not in signs]
    if missing:
        raise ValueError(f"signs has no orientation for {missing[0]!r}")
    if not isinstance(n_boot, int) or isinstance(n_boot, bool) or n_boot < 1:
        raise ValueError(f"n_boot must be an integer >= 1; got {n_boot!r}")
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    draws: dict[tuple[str, str], list[float]] = {(g, s): [] for g in members for s in values}
    for _ in range(n_boot):
        take = rng.integers(0, n_reps, n_reps)
        d = effect[:, take]
        finite = np.isfinite(d)
        with np.errstate(invalid="ignore"):
            mean_effect = np.where(finite, d, 0.0).sum(axis=1) / finite.sum(axis=1)
        means = {name: v[:, take].mean(axis=1) for name, v in values.items()}
        for group, held in members.items():
            pick = held[rng.integers(0, held.size, held.size)] if held.size else held
            pick = pick[np.isfinite(mean_effect[pick]) & (mean_effect[pick] != 0.0)]
            outcome = mean_effect[pick] < 0
            if outcome.all() or not outcome.any():
                continue
            for name in values:
                draws[group, name].append(roc_auc(signs[group, name] * means[name][pick], outcome))
    return {
        key: float(np.std(sample, ddof=1)) if len(sample) > 1 else math.nan
        for key, sample in draws.items()
    }
