r"""Selective risk, the risk–coverage curve, AURC, E-AURC and AUGRC of a scored rejector.

A rejector gives each evaluation sample a score (higher = keep) and the base classifier is right
or wrong on it. Accepting the :math:`m` highest-scoring samples has the *selective risk*
:math:`R(m) = E(m)/m`, with :math:`E(m)` the number of wrong samples among them; the curve of
:math:`R` against the coverage :math:`m/n` is the risk–coverage curve of Geifman & El-Yaniv [2]_,
and the areas under it rank rejectors independently of an operating point.

**Ties.** When samples at the cut share a score, "the :math:`m` highest" is not a set; every
function here uses the expected value under a uniformly random order of the tied samples
(equivalently, the tied group is accepted in proportion). If the cut at :math:`m` falls in a
group of :math:`s` tied samples, :math:`w` of them wrong, with :math:`c` samples (and :math:`C`
errors) strictly above it,

.. math:: E(m) = C + (m - c)\,\frac{w}{s},

so :math:`E` is piecewise linear in :math:`m`, exact (an integer) at the ends of every tied group,
and every result depends only on the tied groups' counts: it is the same, bit for bit, for any
order of the samples and for any strictly increasing transform of the scores.

Conventions, and where they differ from fd-shifts [4]_ and TorchUncertainty [5]_ (read in their
sources: fd-shifts ``fd_shifts/analysis/rc_stats.py`` and ``rc_stats_utils.py`` at commit
c4467ae, 2024-10-19; TorchUncertainty ``src/torch_uncertainty/metrics/classification/
risk_coverage.py`` at commit 0d0df2b, 2026-01-28):

- **AURC** is the mean selective risk over :math:`m = 1, \dots, n` (the definition of [3]_, and a
  right Riemann sum over coverage). fd-shifts integrates its risk–coverage points with the
  trapezoid rule, one point per *distinct* score plus a point at coverage 0 carrying the last
  risk; without ties its value (divided by its display scale 1000) is
  ``aurc + (R(1) - R(n)) / (2 n)``. TorchUncertainty uses the trapezoid over
  :math:`m = 1, \dots, n`, divided by :math:`1 - 1/n`, i.e.
  ``(n aurc - (R(1) + R(n)) / 2) / (n - 1)``, NaN for :math:`n < 2`, and breaks ties by the
  order ``torch.argsort`` returns.
- **E-AURC** subtracts the AURC of the oracle ranking (every correct sample above every wrong one)
  for the same :math:`n` and number of errors :math:`k`, in its exact finite-:math:`n` form
  :math:`\frac1n\sum_{j=1}^{k} \frac{j}{n-k+j}`. fd-shifts (and [3]_) subtract the continuous
  limit :math:`r + (1-r)\ln(1-r)`, :math:`r = k/n`, which is smaller by :math:`f\,r/(2n)`, the
  factor :math:`f` in [0.86, 1.00] when :math:`k \le n - 2` (it tends to 1 as :math:`n - k` grows,
  to 0.92 at :math:`k = n - 2`) and in [0.77, 0.85] when :math:`k = n - 1` (0.83-0.85 for
  :math:`n \ge 10`), computed exactly for every :math:`k < n \le 400`. So the E-AURC of [3]_,
  whose AURC is ours, is positive for a perfect ranking. fd-shifts' is negative for every perfect
  ranking with distinct scores: its trapezoid AURC of the oracle is ours less :math:`r/(2n)`,
  so its E-AURC is :math:`-(1-f)\,r/(2n)` (-0.028 at :math:`n = 2`, scores [1, 0], wrong
  [F, T]; its ``RiskCoverageStats`` gave a negative value for all 19,900 perfect rankings with
  :math:`n \le 200`), and its docstring warns that it can be negative with tied scores. Ours is
  never negative (the oracle's :math:`E(m) = \max(0, m-n+k)` is the least possible at every
  :math:`m`, and the floating-point evaluation keeps that order, see :func:`e_aurc`).
- **AUGRC** [6]_ is the area under the generalised risk :math:`E(m)/n` against coverage
  :math:`m/n`, by the trapezoid rule through the origin :math:`(0, 0)`; with the linear
  interpolation of tied groups this is the exact area under the piecewise-linear curve and it
  equals fd-shifts' value (without its display scale), ties included; its oracle value is
  :math:`r^2/2`, as in [6]_. TorchUncertainty omits the first trapezoid (from coverage 0 to
  :math:`1/n`) and divides by :math:`1 - 1/n`.
- **No accepted sample** (:math:`m = 0`): the selective risk is 0 by convention (no accepted
  sample is wrong), as :func:`gcul_theory.clean_error` at :math:`\rho = 1` and the paper's utility
  :math:`U = \varepsilon - \lambda` of rejecting everything. Never NaN.

Floating point: the counts are exact integers; every :math:`E(m)` carries at most two roundings
and every :math:`R(m)` three, so each is within :math:`3u` (:math:`u = 2^{-53}`) of its exact
value, relative; the areas are correctly rounded sums (``math.fsum``) of these non-negative terms
followed by one division, within :math:`5u` relative of the exact area (tested against exact
rational arithmetic).

References
----------
.. [1] "Ambiguity identification in text emotion classification via cluster-guided learning"
   (the GCUL paper), section ``subsec:selective_exp``.
.. [2] Y. Geifman and R. El-Yaniv, "Selective classification for deep neural networks",
   NeurIPS 2017.
.. [3] Y. Geifman, G. Uziel and R. El-Yaniv, "Bias-reduced uncertainty estimation for deep
   neural classifiers", ICLR 2019.
.. [4] fd-shifts, https://github.com/IML-DKFZ/fd-shifts (``RiskCoverageStats``).
.. [5] TorchUncertainty, https://github.com/ENSTA-U2IS-AI/torch-uncertainty (``AURC``,
   ``AUGRC``).
.. [6] L. Traub, J. Bungert, C. Lüth et al., "Overcoming common flaws in the evaluation of
   selective classification systems", NeurIPS 2024.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ._validation import as_array, as_float_array, as_indicator, shown

__all__ = [
    "RiskCoverageCurve",
    "selective_risk_at_coverage",
    "risk_coverage_curve",
    "aurc",
    "e_aurc",
    "augrc",
]


class RiskCoverageCurve(NamedTuple):
    """The risk–coverage curve of :func:`risk_coverage_curve`, one entry per m = 1..n.

    Attributes
    ----------
    coverage : ndarray, shape (n,)
        :math:`m/n`, increasing from :math:`1/n` to 1.
    selective_risk : ndarray, shape (n,)
        :math:`R(m) = E(m)/m` in [0, 1]: error rate among the m highest-scoring samples.
    generalized_risk : ndarray, shape (n,)
        :math:`E(m)/n` in [0, 1]: accepted errors per evaluation sample (the integrand of AUGRC).
    """

    coverage: np.ndarray
    selective_risk: np.ndarray
    generalized_risk: np.ndarray


# --------------------------------------------------------------------------------------------
# Validation


def check_scores_wrong(scores: Any, wrong: Any) -> tuple[np.ndarray, np.ndarray]:
    """Validate a score per sample (finite reals, 1-D) and a wrong indicator of the same length.

    Raises
    ------
    TypeError
        For data that are not real numbers (scores) or booleans / 0-1 (wrong).
    ValueError
        For NaN or infinite scores, arrays that are not 1-D, unequal lengths, or no sample.
    """
    raw = as_array(scores, "scores", "a 1-D array of real numbers")
    # A boolean score (e.g. an accept set, True = keep) ranks True above False.
    s = as_float_array(raw.astype(np.float64) if raw.dtype == bool else raw, "scores")
    if s.ndim != 1:
        raise ValueError(f"scores must be 1-D (one score per sample); got shape {s.shape}")
    w = as_indicator(wrong, "wrong")
    if s.size != w.size:
        raise ValueError(
            f"scores and wrong must have the same length (one entry per sample); got {s.size} "
            f"and {w.size}"
        )
    if s.size == 0:
        raise ValueError("scores and wrong must not be empty (there is no sample to rank)")
    return s, w


# --------------------------------------------------------------------------------------------
# The expected error count E(m) under random tie-breaking


def tied_groups(scores: np.ndarray, wrong: np.ndarray) -> tuple[np.ndarray, ...]:
    """Groups of equal scores, highest first: ``(values, sizes, errors, starts, errors_above)``.

    ``starts[g]`` samples and ``errors_above[g]`` errors lie strictly above group ``g``. Only the
    groups' counts are returned, so the result does not depend on the order of the samples.
    """
    order = np.argsort(-scores, kind="stable")  # -0.0 and 0.0 compare equal: one group
    ranked = scores[order]
    first = np.empty(ranked.size, dtype=bool)
    first[0] = True
    np.not_equal(ranked[1:], ranked[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    sizes = np.diff(np.append(starts, ranked.size))
    errors = np.add.reduceat(wrong[order].astype(np.int64), starts)
    errors_above = np.concatenate(([0], np.cumsum(errors)[:-1]))
    return ranked[starts], sizes, errors, starts, errors_above


def expected_errors(scores: np.ndarray, wrong: np.ndarray) -> np.ndarray:
    r""":math:`E(m)`, m = 0..n (length n + 1): expected errors among the m highest scores.

    :math:`E(m) = C + (m - c)\,w/s` inside a tied group (module docstring); integer products,
    so each entry is two roundings from exact, and exact at the ends of every group.
    """
    _, sizes, errors, starts, errors_above = tied_groups(scores, wrong)
    group = np.repeat(np.arange(sizes.size), sizes)
    m = np.arange(1, scores.size + 1, dtype=np.int64)
    inside = (m - starts[group]) * errors[group]  # exact: at most n**2 < 2**53 for n < 9e7
    out = np.empty(scores.size + 1)
    out[0] = 0.0
    out[1:] = errors_above[group] + inside / sizes[group]
    return out


def _selective_risks(expected: np.ndarray) -> np.ndarray:
    """R(m) = E(m)/m for m = 1..n (one more rounding)."""
    return expected[1:] / np.arange(1, expected.size, dtype=np.float64)


def _mean_selective_risk(scores: np.ndarray, wrong: np.ndarray) -> float:
    """AURC of validated inputs: the correctly rounded sum of R(m), m = 1..n, divided by n."""
    return math.fsum(_selective_risks(expected_errors(scores, wrong)).tolist()) / scores.size


def _check_n_accept(value: Any, n: int) -> np.ndarray:
    allowed = f"an int (or array of ints) in [0, {n}] (the number of samples)"
    if isinstance(value, bool | np.bool_):
        raise TypeError(f"n_accept must be {allowed}; got {shown(value)}")
    array = as_array(value, "n_accept", allowed)
    if array.dtype == bool or not np.issubdtype(array.dtype, np.integer):
        raise TypeError(f"n_accept must be {allowed}; got {shown(value)} (dtype {array.dtype})")
    outside = (array < 0) | (array > n)
    if outside.any():
        raise ValueError(f"n_accept must be {allowed}; got {shown(array[outside].flat[0])}")
    return array.astype(np.int64)


# --------------------------------------------------------------------------------------------
# Public functions


def selective_risk_at_coverage(
    scores: ArrayLike, wrong: ArrayLike, n_accept: int | ArrayLike
) -> float | np.ndarray:
    r"""Error rate among the ``n_accept`` highest-scoring samples, ties by their expected value.

    Parameters
    ----------
    scores : array_like of float or bool, shape (n,)
        One finite score per evaluation sample; higher = keep (accepted first; True > False).
    wrong : array_like of bool or 0/1, shape (n,)
        Whether the classifier's prediction of the sample is wrong.
    n_accept : int or array_like of int
        Number of samples accepted, in [0, n]; an array gives one risk per entry (same shape).

    Returns
    -------
    float or ndarray
        :math:`R(m) = E(m)/m \in [0, 1]` at :math:`m` = ``n_accept``; 0.0 where
        ``n_accept == 0``.

    Raises
    ------
    TypeError
        For scores that are not real numbers, ``wrong`` that is not booleans or 0/1, or an
        ``n_accept`` that is not an integer (a float such as 3.0 or a bool included).
    ValueError
        For NaN or infinite scores, arrays that are not 1-D, unequal lengths, no sample, a
        ``wrong`` value other than 0/1, or ``n_accept`` outside [0, n].

    Notes
    -----
    With :math:`c` samples (:math:`C` of them wrong) scoring strictly above the cut and a group of
    :math:`s` samples tied at the cut, :math:`w` of them wrong,

    .. math:: R(m) = \frac{E(m)}{m}, \qquad E(m) = C + (m - c)\frac{w}{s},

    the expected error rate when the tied samples are accepted in a uniformly random order
    (section "Ties" of the module docstring). The result does not depend on the order of the
    samples (bit for bit) and is invariant under strictly increasing transforms of the scores.
    To compare rejectors at GCUL's coverage, pass ``n_accept`` = the number of samples GCUL
    accepts: every rejector is then judged on the same accepted count.

    Edge cases: ``n_accept = 0`` gives 0.0 by convention (nothing accepted, so no accepted
    sample is wrong; the convention of :func:`gcul_theory.clean_error` at :math:`\rho = 1`), so
    the result is never NaN; ``n_accept = n`` gives the base error rate :math:`k/n`. Within
    :math:`3u` (:math:`u = 2^{-53}`) of the exact value, relative.

    References
    ----------
    .. [1] Geifman and El-Yaniv (2017), see the module docstring.

    Examples
    --------
    Five samples; the two at score 0.5 are tied at the cut of ``n_accept = 2``, one of them
    wrong, so the second accepted sample is wrong with probability 1/2:

    >>> from gcul_theory import selective_risk_at_coverage
    >>> scores = [0.9, 0.5, 0.5, 0.2, 0.1]
    >>> wrong = [False, True, False, True, True]
    >>> selective_risk_at_coverage(scores, wrong, 2)  # (0 + 1/2) / 2
    0.25
    >>> selective_risk_at_coverage(scores, wrong, [0, 3, 5])
    array([0.        , 0.33333333, 0.6       ])
    """
    s, w = check_scores_wrong(scores, wrong)
    m = _check_n_accept(n_accept, s.size)
    expected = expected_errors(s, w)
    out = np.zeros(m.shape)
    np.divide(expected[m], m, out=out, where=m > 0)
    return float(out) if out.ndim == 0 else out


def risk_coverage_curve(scores: ArrayLike, wrong: ArrayLike) -> RiskCoverageCurve:
    r"""Selective and generalised risk at every coverage m/n, m = 1..n, ties by expected value.

    Parameters
    ----------
    scores : array_like of float, shape (n,)
        One finite score per sample; higher = keep.
    wrong : array_like of bool or 0/1, shape (n,)
        Whether the prediction of the sample is wrong.

    Returns
    -------
    RiskCoverageCurve
        ``coverage`` :math:`m/n`, ``selective_risk`` :math:`R(m) = E(m)/m` and
        ``generalized_risk`` :math:`E(m)/n`, each of shape (n,), in order of increasing
        coverage.

    Raises
    ------
    TypeError, ValueError
        As :func:`selective_risk_at_coverage` (without ``n_accept``).

    Notes
    -----
    One point per accepted count :math:`m = 1, \dots, n`, tied groups interpolated linearly in
    the error count (module docstring), so ``selective_risk[m - 1]`` equals
    ``selective_risk_at_coverage(scores, wrong, m)`` and the curve has no point at coverage 0,
    where the selective risk is undefined. fd-shifts returns one point per distinct score (from
    coverage 1 down) plus a point at coverage 0; at the ends of the tied groups its points are
    ours. :func:`aurc` is the mean of ``selective_risk``; :func:`augrc` the trapezoid area under
    ``generalized_risk`` from :math:`(0, 0)`.

    Examples
    --------
    >>> from gcul_theory import risk_coverage_curve
    >>> curve = risk_coverage_curve([0.9, 0.5, 0.5, 0.2], [False, True, False, True])
    >>> curve.coverage.tolist()
    [0.25, 0.5, 0.75, 1.0]
    >>> curve.selective_risk.tolist()  # 0, (1/2)/2, 1/3, 2/4
    [0.0, 0.25, 0.3333333333333333, 0.5]
    """
    s, w = check_scores_wrong(scores, wrong)
    n = s.size
    expected = expected_errors(s, w)
    coverage = np.arange(1, n + 1, dtype=np.float64) / n
    return RiskCoverageCurve(coverage, _selective_risks(expected), expected[1:] / n)


def aurc(scores: ArrayLike, wrong: ArrayLike) -> float:
    r"""Area under the risk–coverage curve: the mean selective risk over m = 1..n.

    Parameters
    ----------
    scores : array_like of float, shape (n,)
        One finite score per sample; higher = keep.
    wrong : array_like of bool or 0/1, shape (n,)
        Whether the prediction of the sample is wrong.

    Returns
    -------
    float
        AURC in [0, 1]; lower is better.

    Raises
    ------
    TypeError, ValueError
        As :func:`risk_coverage_curve`.

    Notes
    -----
    .. math:: \mathrm{AURC} = \frac1n \sum_{m=1}^{n} R(m), \qquad R(m) = \frac{E(m)}{m},

    the definition of Geifman, Uziel & El-Yaniv (2019) [1]_, with ties at every cut by their
    expected value (module docstring). Differences from fd-shifts (trapezoid over distinct
    scores, times 1000) and TorchUncertainty (trapezoid over m, divided by 1 - 1/n) are stated
    in the module docstring. A correctly rounded sum (``math.fsum``) of the :math:`R(m)`, then
    one division: within :math:`5u` of the exact value, relative.

    References
    ----------
    .. [1] Geifman, Uziel and El-Yaniv (2019), see the module docstring.

    Examples
    --------
    >>> from gcul_theory import aurc
    >>> aurc([0.9, 0.5, 0.5, 0.2], [False, True, False, True])  # (0 + 1/4 + 1/3 + 1/2) / 4
    0.2708333333333333
    """
    s, w = check_scores_wrong(scores, wrong)
    return _mean_selective_risk(s, w)


def _oracle_risks(n: int, k: int) -> np.ndarray:
    """R(m) of the oracle ranking (correct samples first): max(0, m - n + k)/m, m = 1..n."""
    m = np.arange(1, n + 1, dtype=np.float64)
    return np.maximum(m - (n - k), 0.0) / m  # m - (n - k): exact integers in float64


def e_aurc(scores: ArrayLike, wrong: ArrayLike) -> float:
    r"""Excess AURC: AURC minus that of the oracle ranking with the same errors (always >= 0).

    Parameters
    ----------
    scores : array_like of float, shape (n,)
        One finite score per sample; higher = keep.
    wrong : array_like of bool or 0/1, shape (n,)
        Whether the prediction of the sample is wrong.

    Returns
    -------
    float
        E-AURC in [0, 1); 0 exactly for a ranking that puts every correct sample above every
        wrong one, and when all or none of the samples are wrong.

    Raises
    ------
    TypeError, ValueError
        As :func:`risk_coverage_curve`.

    Notes
    -----
    Geifman, Uziel & El-Yaniv (2019) [1]_: :math:`\mathrm{E\text{-}AURC} = \mathrm{AURC} -
    \mathrm{AURC}^*`, where :math:`\mathrm{AURC}^*` is the AURC of the oracle ranking, which
    accepts the :math:`n - k` correct samples first (:math:`k` = number wrong):

    .. math::

        \mathrm{AURC}^* = \frac1n \sum_{m=n-k+1}^{n} \frac{m - (n-k)}{m}
        = \frac1n \sum_{j=1}^{k} \frac{j}{n - k + j},

    the exact finite-:math:`n` value (a sum of positive terms, no cancellation). [1]_ and
    fd-shifts use its continuous limit :math:`r + (1-r)\ln(1-r)`, :math:`r = k/n`, which is
    smaller by :math:`f\,r/(2n)`, :math:`0.77 \le f \le 1` (module docstring). Every ranking has
    :math:`E(m) \ge \max(0, m - n + k)` at every :math:`m` (at most :math:`n - k` accepted samples
    are correct), so E-AURC is non-negative; the computed value is too: every computed
    :math:`R(m)` is at least the computed oracle term (rounding is monotone and the oracle's
    :math:`E(m)` is an integer), and a correctly rounded sum is monotone.

    References
    ----------
    .. [1] Geifman, Uziel and El-Yaniv (2019), see the module docstring.

    Examples
    --------
    The oracle of 1000 samples with 100 errors, against the continuous limit:

    >>> import math
    >>> import numpy as np
    >>> from gcul_theory import aurc, e_aurc
    >>> wrong = np.arange(1000) < 100
    >>> oracle = aurc(~wrong, wrong)
    >>> round(oracle, 7), round(0.1 + 0.9 * math.log(0.9), 7)
    (0.0052255, 0.0051755)
    >>> e_aurc(~wrong, wrong)
    0.0
    >>> e_aurc(wrong, wrong) > 0  # the worst ranking: every wrong sample first
    True
    """
    s, w = check_scores_wrong(scores, wrong)
    n, k = s.size, int(np.count_nonzero(w))
    achieved = _mean_selective_risk(s, w)
    optimum = math.fsum(_oracle_risks(n, k).tolist()) / n
    return achieved - optimum


def augrc(scores: ArrayLike, wrong: ArrayLike) -> float:
    r"""Area under the generalised risk–coverage curve (Traub et al. 2024).

    Parameters
    ----------
    scores : array_like of float, shape (n,)
        One finite score per sample; higher = keep.
    wrong : array_like of bool or 0/1, shape (n,)
        Whether the prediction of the sample is wrong.

    Returns
    -------
    float
        AUGRC in [0, 1/2]; lower is better; exactly :math:`r^2/2` for the oracle ranking
        and :math:`r - r^2/2` for the worst one (every wrong sample first), :math:`r` = the
        error rate.

    Raises
    ------
    TypeError, ValueError
        As :func:`risk_coverage_curve`.

    Notes
    -----
    The generalised risk at coverage :math:`m/n` is :math:`E(m)/n`, the accepted errors per
    evaluation sample (the joint probability of "accepted and wrong"). Its area by the trapezoid
    rule through the origin,

    .. math::

        \mathrm{AUGRC} = \frac1n \sum_{m=1}^{n} \frac{E(m-1) + E(m)}{2n},
        \qquad E(0) = 0,

    is the exact area under the piecewise-linear curve (:math:`E` is linear inside each tied
    group), and equals fd-shifts' ``augrc`` divided by its display scale 1000 [1]_. The oracle
    ranking gives :math:`k^2/(2n^2) = r^2/2` exactly (its optimum in fd-shifts and [1]_). The
    terms are non-negative, summed correctly rounded (``math.fsum``): within :math:`5u` of the
    exact value, relative.

    References
    ----------
    .. [1] Traub et al. (2024), see the module docstring.

    Examples
    --------
    >>> import numpy as np
    >>> from gcul_theory import augrc
    >>> wrong = np.arange(10) < 3
    >>> augrc(~wrong, wrong)  # the oracle: 0.3**2 / 2
    0.045
    >>> augrc([0.9, 0.5, 0.5, 0.2], [False, True, False, True])  # (0 + 1/4 + 3/4 + 3/2) / 16
    0.15625
    """
    s, w = check_scores_wrong(scores, wrong)
    n = s.size
    expected = expected_errors(s, w)
    halves = (expected[:-1] + expected[1:]) * 0.5
    return math.fsum(halves.tolist()) / float(n * n)
