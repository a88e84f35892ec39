r"""Paired differences over independent replicates (seeds), their t test, and Holm's correction.

For studies that repeat an experiment on independent datasets (the regime map's seeds): the
mean of a paired difference and its naive SE (the replicates are independent, unlike the
overlapping splits of :func:`simulations.statistics.estimate`), the one-sample t test of that
mean, the share of a gap one method recovers, and Holm's step-down correction over a family of
tests; and how many of n independent events of probability p to expect at most
(:func:`binomial_quantile`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from simulations.validation import check_real

__all__ = ["binomial_quantile", "gap_share", "holm", "one_sample_t_pvalue", "paired_difference"]


def _vector(value: Any, name: str) -> np.ndarray:
    """``value`` as a 1-D float64 array (NaN allowed: the callers say how they treat it)."""
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a 1-D array of real numbers") from None
    if array.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of real numbers; got shape {array.shape}")
    return array


def _same_length(**arrays: np.ndarray) -> None:
    sizes = {name: a.size for name, a in arrays.items()}
    if len(set(sizes.values())) > 1:
        shown = ", ".join(f"{name} {size}" for name, size in sizes.items())
        raise ValueError(f"{' and '.join(sizes)} must have the same length; got {shown}")


def paired_difference(a: Sequence[float], b: Sequence[float]) -> tuple[float, float, int]:
    r"""Mean of ``a - b`` over the pairs where both are finite, its standard error and count.

    Parameters
    ----------
    a, b : array_like of shape (n,)
        Paired values, one per independent replicate (NaN: no value in that replicate).

    Returns
    -------
    mean : float
        :math:`\bar d` of :math:`d_i = a_i - b_i` over the finite pairs (``math.fsum``); NaN for
        none.
    se : float
        :math:`s_d/\sqrt n` (ddof 1): the replicates are independent; NaN for fewer than two.
    n : int
        Number of finite pairs.

    Raises
    ------
    TypeError, ValueError
        For inputs that are not 1-D real arrays of one length.

    Examples
    --------
    >>> mean, se, n = paired_difference([1.0, 2.0, 4.0, float("nan")], [0.0, 0.0, 1.0, 0.5])
    >>> mean, round(se, 12), n
    (2.0, 0.57735026919, 3)
    """
    a_, b_ = _vector(a, "a"), _vector(b, "b")
    _same_length(a=a_, b=b_)
    d = a_ - b_
    d = d[np.isfinite(d)]
    n = d.size
    if n == 0:
        return math.nan, math.nan, 0
    mean = math.fsum(d.tolist()) / n
    se = float(np.std(d, ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    return mean, se, n


def one_sample_t_pvalue(mean: float, se: float, n: int) -> float:
    r"""Two-sided p-value of the one-sample t test of a mean (:math:`n - 1` degrees of freedom).

    Parameters
    ----------
    mean, se : float
        The mean and its standard error (:func:`paired_difference`).
    n : int
        Number of values.

    Returns
    -------
    float
        :math:`2\,P(T_{n-1} > |\bar d/\mathrm{SE}|)`, SciPy's ``ttest_1samp`` against 0. A zero
        SE (every value equal) gives 1 for a zero mean and 0 otherwise; NaN for ``n < 2`` or a
        NaN SE.

    Examples
    --------
    >>> round(one_sample_t_pvalue(1.0, 0.5, 5), 6)
    0.116117
    >>> one_sample_t_pvalue(0.0, 0.0, 5), one_sample_t_pvalue(0.1, 0.0, 5)
    (1.0, 0.0)
    """
    from scipy import stats

    if n < 2 or math.isnan(se):
        return math.nan
    if se == 0.0:
        return 1.0 if mean == 0.0 else 0.0
    return float(2.0 * stats.t.sf(abs(mean / se), n - 1))


def holm(pvalues: Sequence[float], alpha: float = 0.05) -> np.ndarray:
    r"""Holm's step-down rejections at family-wise level ``alpha``.

    Parameters
    ----------
    pvalues : array_like of shape (m,)
        One p-value per test, in [0, 1]; NaN for a test that did not run (not counted in the
        family, never rejected).
    alpha : float, default 0.05
        Family-wise error rate, in (0, 1).

    Returns
    -------
    ndarray of shape (m,), bool
        True where the hypothesis is rejected.

    Raises
    ------
    TypeError, ValueError
        For p-values outside [0, 1] (or infinite), a non-1-D input, or ``alpha`` outside (0, 1).

    Notes
    -----
    Sort the :math:`m` finite p-values, :math:`p_{(1)} \le \dots \le p_{(m)}`; reject
    :math:`H_{(k)}` while :math:`p_{(k)} \le \alpha/(m - k + 1)`, stopping at the first that
    fails (Holm, "A simple sequentially rejective multiple test procedure", Scandinavian
    Journal of Statistics 6, 1979). Ties are taken in input order.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03, 0.2]).tolist()
    [True, False, False, False]
    """
    alpha = check_real("alpha", alpha, 0.0, 1.0, open_low=True, open_high=True)
    p = _vector(pvalues, "pvalues")
    finite = np.flatnonzero(np.isfinite(p))
    if np.isinf(p).any() or (p[finite] < 0.0).any() or (p[finite] > 1.0).any():
        raise ValueError("pvalues must lie in [0, 1] (NaN for a test that did not run)")
    reject = np.zeros(p.size, bool)
    order = finite[np.argsort(p[finite], kind="stable")]
    m = order.size
    for k, i in enumerate(order):
        if p[i] > alpha / (m - k):
            break
        reject[i] = True
    return reject


def gap_share(
    reference: Sequence[float], method: Sequence[float], floor: Sequence[float]
) -> tuple[float, float]:
    r"""Share of the gap between a reference and a floor that a method recovers, with its SE.

    Parameters
    ----------
    reference, method, floor : array_like of shape (n,)
        Per replicate, the risks of the reference (MSP), the method (GCUL) and the floor (the
        Bayes rejector); replicates where any is NaN are left out.

    Returns
    -------
    share, se : float
        :math:`\bar a/\bar b` with :math:`a_i = R^{ref}_i - R^{method}_i`,
        :math:`b_i = R^{ref}_i - R^{floor}_i`, and its delta-method SE
        :math:`\sqrt{(s_a^2 - 2Rs_{ab} + R^2 s_b^2)/n}/\bar b` (ddof 1). 1: the method reaches
        the floor; 0: the reference's risk; negative: above it. Both NaN when
        :math:`\bar b \le 0` (no gap to share) or fewer than two replicates.

    Raises
    ------
    TypeError, ValueError
        For inputs that are not 1-D real arrays of one length.

    Examples
    --------
    >>> share, se = gap_share([0.3, 0.4, 0.5], [0.25, 0.35, 0.5], [0.2, 0.3, 0.4])
    >>> round(share, 12), round(se, 12)
    (0.333333333333, 0.166666666667)
    """
    m, g, b = (_vector(x, n) for x, n in ((reference, "reference"), (method, "method"), (floor, "floor")))
    _same_length(reference=m, method=g, floor=b)
    keep = np.isfinite(m) & np.isfinite(g) & np.isfinite(b)
    a_i, b_i = (m - g)[keep], (m - b)[keep]
    n = a_i.size
    if n < 2:
        return math.nan, math.nan
    a_bar, b_bar = float(a_i.mean()), float(b_i.mean())
    if not b_bar > 0.0:
        return math.nan, math.nan
    ratio = a_bar / b_bar
    cov = np.cov(a_i, b_i, ddof=1)
    var = (cov[0, 0] - 2.0 * ratio * cov[0, 1] + ratio**2 * cov[1, 1]) / n
    return ratio, math.sqrt(max(var, 0.0)) / b_bar


def binomial_quantile(n: int, p: float, level: float = 0.95) -> int:
    """The ``level`` quantile of Binomial(n, p): at most this many of ``n`` independent events of
    probability ``p`` happen, with probability >= ``level``.

    With ``p = δ``, the most Type-II calls confirmed by the test split that a δ-valid predictor
    makes in ``n`` independent splits, with probability >= ``level`` (SciPy's ``binom.ppf``).

    Parameters
    ----------
    n : int
        Number of events, >= 0.
    p : float
        Probability of each, in [0, 1].
    level : float, default=0.95
        In (0, 1).

    Returns
    -------
    int

    Raises
    ------
    TypeError, ValueError
        In one line, naming the argument.

    Examples
    --------
    >>> binomial_quantile(20, 0.05)
    3
    """
    from scipy.stats import binom

    from simulations.validation import check_int

    n = check_int("n", n, 0)
    p = check_real("p", p, 0.0, 1.0)
    level = check_real("level", level, 0.0, 1.0, open_low=True, open_high=True)
    return int(binom.ppf(level, n, p))
