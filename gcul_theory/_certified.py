r"""A finite-sample certified critical cost λ*_CERT from a held-out calibration set.

The paper's λ*_PRE predicts from geometry whether rejecting pays; λ*_CERT *certifies* it from the
per-sample outcomes of a fitted selective classifier on held-out data. Both speak about the
utility of section ``subsec:selectivity_score`` of the GCUL paper [1]_,

.. math:: U(\lambda) = \varepsilon - \varepsilon_{sel} - \lambda\rho ,

with ε the base error, ρ the rejection rate and ε_sel the error *among accepted samples* — the
quantity that λ*_EMP = (ε − ε_sel)/ρ measures (metric "EMP λ*" of ``tab:metrics``).

References
----------
.. [1] "Ambiguity identification in text emotion classification via cluster-guided learning"
   (the GCUL paper), section ``subsec:selectivity_score``.
.. [2] I. Waudby-Smith and A. Ramdas, "Estimating means of bounded random variables by betting",
   J. R. Stat. Soc. B 86 (2024), section 3 (fixed-n predictable plug-in betting intervals).
.. [3] C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial limits illustrated in
   the case of the binomial", Biometrika 26 (1934).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from ._validation import as_float_scalar, as_indicator, check_delta, check_method

__all__ = [
    "ASYMPTOTIC_MIN_COUNT",
    "CERTIFIED_METHODS",
    "certified_lambda",
    "utility_confidence_bounds",
]

CERTIFIED_METHODS: tuple[str, ...] = ("betting", "asymptotic")
"""``"betting"``: finite-sample valid (the default). ``"asymptotic"``: delta method, not valid
for finite samples (its measured non-coverage is in the Notes of
:func:`utility_confidence_bounds`); refused below :data:`ASYMPTOTIC_MIN_COUNT`."""

ASYMPTOTIC_MIN_COUNT = 100
"""Fewest rejected, and fewest accepted, calibration samples ``method="asymptotic"`` accepts.

Below it the delta method's measured non-coverage reached 77 δ (``benchmarks/asymptotic_coverage.py``,
Notes of :func:`utility_confidence_bounds`)."""

# Share of delta spent on each of the two Clopper-Pearson intervals (rho, and a given rho).
_SIDE_SHARE = 0.02
# Betting truncation: a factor 1 + nu (Z - mu) never drops below 1 - _CAP at the worst Z.
_CAP = 0.99
_BISECTION_STEPS = 80


# --------------------------------------------------------------------------------------------
# Validation


def check_indicators(
    base_wrong: ArrayLike, selective_wrong: ArrayLike, rejected: ArrayLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The three per-sample indicators as boolean arrays, validated as the public functions do.

    Raises ``TypeError``/``ValueError`` (naming the argument) for arrays that are not 1-D
    booleans or 0/1 of one common non-zero length, or for ``selective_wrong`` true on a rejected
    sample. Used by :func:`utility_confidence_bounds`, :func:`certified_lambda` and the
    cross-fitted certificate.
    """
    bw = as_indicator(base_wrong, "base_wrong")
    aw = as_indicator(selective_wrong, "selective_wrong")
    rej = as_indicator(rejected, "rejected")
    if not bw.size == aw.size == rej.size:
        raise ValueError(
            "base_wrong, selective_wrong and rejected must have the same length; got "
            f"{bw.size}, {aw.size}, {rej.size}"
        )
    if bw.size == 0:
        raise ValueError("base_wrong, selective_wrong and rejected must not be empty")
    clash = aw & rej
    if clash.any():
        raise ValueError(
            "selective_wrong means 'accepted and wrong', so it must be False on rejected samples; "
            f"it is True on {int(clash.sum())} rejected sample(s) (first at index "
            f"{int(np.flatnonzero(clash)[0])}). Pass (y_selective != y) & ~rejected"
        )
    return bw, aw, rej


def check_lam(lam: Any) -> float:
    """``lam`` as a float in [0, 1), or ``TypeError``/``ValueError`` naming ``lam``."""
    return as_float_scalar(lam, "lam", lower=0.0, upper=1.0, upper_open=True)


def _check_calibration(
    base_wrong: ArrayLike, selective_wrong: ArrayLike, rejected: ArrayLike, delta: Any, method: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, str]:
    """The checks that :func:`utility_confidence_bounds` and :func:`certified_lambda` share.

    The indicators (:func:`check_indicators`), ``delta``, ``method``, and for
    ``method="asymptotic"`` the minimum counts; returns ``(bw, aw, rej, delta, method)``.
    """
    bw, aw, rej = check_indicators(base_wrong, selective_wrong, rejected)
    delta = check_delta(delta)
    method = check_method(method, CERTIFIED_METHODS)
    r = int(rej.sum())
    m = rej.size - r
    if method == "asymptotic" and min(r, m) < ASYMPTOTIC_MIN_COUNT:
        raise ValueError(
            f"method='asymptotic' needs at least {ASYMPTOTIC_MIN_COUNT} rejected and "
            f"{ASYMPTOTIC_MIN_COUNT} accepted calibration samples; got {r} rejected and {m} "
            "accepted. Below that the delta method's measured non-coverage reached 77 times "
            "delta; use method='betting' (finite-sample valid)"
        )
    return bw, aw, rej, delta, method


# --------------------------------------------------------------------------------------------
# Clopper-Pearson


def _cp_two_sided(k: int, n: int, alpha: float) -> tuple[float, float]:
    """Exact two-sided (1 - alpha) Clopper-Pearson interval of a binomial proportion."""
    if n == 0:
        return 0.0, 1.0
    lo = 0.0 if k == 0 else float(special.betaincinv(k, n - k + 1, alpha / 2))
    hi = 1.0 if k == n else float(special.betaincinv(k + 1, n - k, 1 - alpha / 2))
    return lo, hi


# --------------------------------------------------------------------------------------------
# The betting construction


class _BettingParts:
    """The betting bound; everything that does not depend on λ is computed once."""

    def __init__(self, bw, aw, rej, delta: float, upper: bool):
        n = bw.size
        r = int(rej.sum())
        m = n - r
        self.degenerate = r == 0 or m == 0
        if self.degenerate:
            return
        self.upper = upper
        side_delta = _SIDE_SHARE * delta  # 0.0 (a trivial interval) for a subnormal delta
        self.rho_ci = _cp_two_sided(r, n, side_delta)
        a_ci = _cp_two_sided(int(bw[rej].sum()), r, side_delta)
        # One test per end of the rho interval, each at risk (delta - 2 side_delta) / 2; its
        # level log(1/risk) from log(delta), which stays finite where the risk underflows.
        bet_level = math.log(2.0 / (1.0 - 2.0 * _SIDE_SHARE)) - math.log(delta)
        sign = -1.0 if upper else 1.0
        # The bound on U(λ) at each end rho' of the rho interval is offset(rho') - sign rho' λ.
        self.offsets = [
            _two_group_bound(bw, aw, rej, rho, a_ci, bet_level, sign) for rho in self.rho_ci
        ]

    def lower(self, lam: ArrayLike) -> np.ndarray:
        """The (1 - δ) lower bound on U(λ) (minus the upper bound when ``upper``)."""
        lam = np.asarray(lam, dtype=float)
        sign = -1.0 if self.upper else 1.0
        ends = [off - sign * rho * lam for off, rho in zip(self.offsets, self.rho_ci, strict=True)]
        return np.minimum(*ends)


def _two_group_bound(bw, aw, rej, rho, a_ci, level, sign, bet_level=None):
    r"""Lower bound on sign * (rho a + E[(1 - rho) bw - aw | accepted]) given the rejection pattern.

    Conditional on which samples were rejected, x_i = bw_i of the rejected samples are iid with
    mean a, and g_j = (1 - rho) bw_j - aw_j of the accepted ones iid with mean mu; all independent.
    For a candidate (a, mu) the capital

    .. math:: K(a, \mu) = \prod_{rej} (1 + \nu_i (s x_i - s a))
              \prod_{acc} (1 + \nu_j (s g_j - s \mu)), \quad s = \pm 1,

    with bets nu >= 0 chosen from earlier samples only (data order) and capped so that every
    factor stays >= 1 - _CAP > 0, has expectation 1 at the true (a, mu); by Markov's inequality
    P(K(a, mu) >= 1/delta) <= delta, where ``level`` is log(1/delta). The bets are proportional
    to the weights (rho t / r on the rejected, t / m on the accepted samples, t from the running
    variance), so log K depends on (a, mu) mostly through rho a + mu. log K is concave in each
    coordinate, so the non-rejected region's boundary mu = h(a) is concave and the smallest
    rho a + h(a) over a in the exact Clopper-Pearson interval of a is reached at one of its ends.

    The bets are sized for the level: t = sqrt(2 bet_level / tau2), with ``bet_level`` = ``level``
    unless given (the fixed-n predictable plug-in of [2]_). With the bets held fixed the result
    is non-decreasing as ``level`` falls (the rejected set {log K >= level} only grows, and the
    bisections of nested predicates stay ordered); with ``bet_level = level`` it need not be,
    which is why bounds at two values of delta are not nested (Notes of
    :func:`utility_confidence_bounds`).
    """
    r = int(rej.sum())
    m = bw.size - r
    x = sign * bw.astype(float)
    g = sign * ((1.0 - rho) * bw - aw)
    value = np.where(rej, x, g)
    # Predictable running variances of each group (one pseudo-observation of variance 1/4).
    var_r = _running_variance(value, rej)
    var_a = _running_variance(value, ~rej)
    tau2 = rho**2 * var_r / r + var_a / m
    t = np.sqrt(2.0 * (level if bet_level is None else bet_level) / tau2)
    g_range = 2.0 - rho
    nu = np.where(rej, np.minimum(rho * t / r, _CAP), np.minimum(t / m, _CAP / g_range))
    x_vals, x_nu = value[rej], nu[rej]
    g_vals, g_nu = value[~rej], nu[~rej]
    g_high = 1.0 - rho if sign > 0 else 1.0

    terms = np.empty_like(g_vals)  # log1p(g_nu * (g_vals - mu)), computed in place

    def h(a_signed: float) -> float:
        fixed = float(np.sum(np.log1p(x_nu * (x_vals - a_signed))))
        lo, hi = -3.0, g_high  # signed mu (true mu <= g_high); log K decreases in mu

        def rejected(mu):
            np.subtract(g_vals, mu, out=terms)
            np.multiply(g_nu, terms, out=terms)
            np.log1p(terms, out=terms)
            return fixed + float(np.sum(terms)) >= level

        return _bisect(rejected, lo, hi)

    # signed a ranges over sign * [a_lo, a_hi]; rho * a + mu in signed units.
    ends = [sign * a for a in a_ci]
    return min(rho * a_s + h(a_s) for a_s in ends)


def _bisect(passes, lo: float, hi: float, ends_known: bool = False) -> float:
    """``_BISECTION_STEPS`` halvings of ``[lo, hi]`` keeping ``passes(lo)``; returns ``lo``.

    ``lo`` is returned at once if it does not pass, and ``hi`` is never evaluated unless a
    midpoint rounds to it. The steps stop early, with the same result, once the interval can no
    longer change: the midpoint of two adjacent floats rounds to one of them, whose verdict is
    then known (``lo`` passes; ``hi``, once evaluated, does not), so every remaining step would
    repeat the previous one. ``ends_known=True``: the caller has seen ``passes(lo)`` true and
    ``passes(hi)`` false, and neither is evaluated again.
    """
    if not ends_known and not passes(lo):
        return lo
    hi_known = ends_known  # whether passes(hi) is known (then it is False)
    for _ in range(_BISECTION_STEPS):
        mid = 0.5 * (lo + hi)
        if mid == lo or (mid == hi and hi_known):
            break
        if passes(mid):
            lo = mid
        else:
            hi, hi_known = mid, True
    return lo


def _running_variance(value: np.ndarray, member: np.ndarray) -> np.ndarray:
    """Predictable variance of ``value`` over earlier members, with one pseudo-sample of 1/4."""
    v = np.where(member, value, 0.0)
    w = member.astype(float)
    cnt = np.concatenate([[0.0], np.cumsum(w)[:-1]])
    s1 = np.concatenate([[0.0], np.cumsum(v)[:-1]])
    s2 = np.concatenate([[0.0], np.cumsum(v * v)[:-1]])
    mean = np.divide(s1, cnt, out=np.zeros_like(s1), where=cnt > 0)
    ss = np.maximum(s2 - cnt * mean**2, 0.0)
    return (0.25 + ss) / (cnt + 1.0)


# --------------------------------------------------------------------------------------------
# The asymptotic (delta method) construction


class _AsymptoticParts:
    def __init__(self, bw, aw, rej, delta: float, upper: bool):
        n = bw.size
        self.n = n
        self.rho = rej.mean()
        self.degenerate = self.rho in (0.0, 1.0)
        if self.degenerate:
            return
        accept = 1.0 - self.rho
        self.eps = bw.mean()
        self.eps_sel = aw.sum() / (n - rej.sum())
        # Influence function of U(λ) = P(bw) - P(aw)/(1 - rho) - λ rho, without the λ term:
        self.f0 = bw - aw / accept - rej * self.eps_sel / accept
        self.rej = rej.astype(float)
        self.z = -special.ndtri(delta)  # scipy.stats.norm.isf(delta), without importing stats
        self.upper = upper

    def lower(self, lam: ArrayLike) -> np.ndarray:
        lam = np.asarray(lam, dtype=float)
        u_hat = self.eps - self.eps_sel - lam * self.rho
        c00 = np.var(self.f0)
        c01 = np.mean((self.f0 - self.f0.mean()) * (self.rej - self.rho))
        c11 = self.rho * (1.0 - self.rho)
        variance = np.maximum(c00 - 2.0 * lam * c01 + lam**2 * c11, 0.0)
        half = self.z * np.sqrt(variance / self.n)
        return -(u_hat + half) if self.upper else u_hat - half


def bound_parts(
    bw: np.ndarray, aw: np.ndarray, rej: np.ndarray, delta: float, method: str, upper: bool
) -> _BettingParts | _AsymptoticParts:
    """The one-sided bound of ``method`` on U(λ) with everything that does not depend on λ done.

    For validated inputs (:func:`check_indicators`, :func:`check_delta`, a name in
    :data:`CERTIFIED_METHODS`). The result has ``degenerate`` (True when nothing, or
    everything, is rejected: then only the trivial bounds hold and ``lower`` must not be called)
    and ``lower(lam)``: the (1 - δ) lower bound on U(λ), or, with ``upper=True``, minus the
    (1 - δ) upper bound; unclipped (:class:`UtilityBounds` clips), concave and non-increasing
    in λ for ``upper=False``.
    """
    cls = _BettingParts if method == "betting" else _AsymptoticParts
    return cls(bw, aw, rej, delta, upper)


def trivial_bounds(lam: float) -> tuple[float, float]:
    """``(-1 - lam, 1)``: the bounds on U(λ) that hold for every law."""
    # -1 - λ <= -ε_sel - λρ <= U(λ) <= ε <= 1 for any law.
    return -1.0 - lam, 1.0


def clip_to_trivial(lower: float, upper: float, lam: float) -> tuple[float, float]:
    """Both bounds moved into the trivial range [-1 - λ, 1] that holds U(λ) for every law.

    Clipping a valid lower (upper) bound into a range that always holds U(λ) keeps it valid and
    can only tighten it; small calibration sets otherwise give bounds as wide as [-4, 4].
    """
    least, most = trivial_bounds(lam)
    return min(max(lower, least), most), min(max(upper, least), most)


class UtilityBounds:
    """One-sided (1 - δ) lower and upper bounds on U(λ) of one calibration set, at any λ.

    What :func:`utility_confidence_bounds` computes, with the work that does not depend on λ
    done once: for a caller that evaluates the bounds at many λ (a bisection, the folds of a
    cross-fitted certificate). Inputs are validated (:func:`check_indicators`,
    :func:`check_delta`, a name in :data:`CERTIFIED_METHODS`); the method's minimum counts
    (``"asymptotic"``) are the caller's to check.

    Both bounds are clipped to the trivial range ``[-1 - lam, 1]``, which holds U(λ) for every
    law (so a clipped bound stays valid); clipping keeps ``lower`` non-increasing in λ and does
    not move the set of λ where it is positive. With nothing, or everything, rejected
    (``degenerate``) they are the trivial bounds.
    """

    def __init__(
        self, bw: np.ndarray, aw: np.ndarray, rej: np.ndarray, delta: float, method: str = "betting"
    ):
        self._low = bound_parts(bw, aw, rej, delta, method, upper=False)
        self.degenerate = self._low.degenerate
        self._high = None if self.degenerate else bound_parts(bw, aw, rej, delta, method, True)

    def bounds(self, lam: float) -> tuple[float, float]:
        """``(lower, upper)`` at ``lam``: each holds with probability at least 1 - δ."""
        if self._high is None:
            return trivial_bounds(lam)
        return clip_to_trivial(float(self._low.lower(lam)), float(-self._high.lower(lam)), lam)

    def lower(self, lam: float) -> float:
        """The (1 - δ) lower bound on U(lam)."""
        return self.bounds(lam)[0]

    def upper(self, lam: float) -> float:
        """The (1 - δ) upper bound on U(lam)."""
        return self.bounds(lam)[1]


def last_positive(lower: Callable[[float], float]) -> float:
    """``sup{lam in [0, 1): lower > 0 on [0, lam]}`` for a non-increasing ``lower``.

    0 when ``lower(0) <= 0``, 1 when ``lower(1) > 0``; otherwise ``_BISECTION_STEPS`` halvings
    of [0, 1] keeping ``lower(lo) > 0 >= lower(hi)``, stopped early (same result) once ``lo``
    and ``hi`` are adjacent floats. :func:`certified_lambda` is this of its lower bound.
    """
    if not lower(0.0) > 0.0:
        return 0.0
    if lower(1.0) > 0.0:
        return 1.0
    # lower(0) > 0 >= lower(1); non-increasing, so positive on [0, lo] at every step
    return _bisect(lambda lam: lower(lam) > 0.0, 0.0, 1.0, ends_known=True)


# --------------------------------------------------------------------------------------------
# Public functions


def utility_confidence_bounds(
    base_wrong: ArrayLike,
    selective_wrong: ArrayLike,
    rejected: ArrayLike,
    lam: float = 0.15,
    delta: float = 0.05,
    method: str = "betting",
) -> tuple[float, float]:
    r"""One-sided (1 − δ) lower and upper confidence bounds on the utility U(λ) of rejecting.

    Parameters
    ----------
    base_wrong : array_like of bool or 0/1, shape (n,)
        Per calibration sample: the base (phase-1) classifier is wrong.
    selective_wrong : array_like of bool or 0/1, shape (n,)
        Per calibration sample: the selective classifier *accepted* the sample *and* is wrong.
        Must be False (0) wherever ``rejected`` is True: pass ``(y_sel != y) & ~rejected``.
    rejected : array_like of bool or 0/1, shape (n,)
        Per calibration sample: the selective classifier rejected it.
    lam : float, default=0.15
        Relative rejection cost λ ∈ [0, 1).
    delta : float, default=0.05
        Risk δ ∈ (0, 1) of each one-sided bound.
    method : {"betting", "asymptotic"}, default="betting"
        ``"betting"`` is finite-sample valid (Notes); ``"asymptotic"`` is the delta method,
        valid only as n → ∞ (its measured non-coverage is in the Notes), and refused with
        fewer than :data:`ASYMPTOTIC_MIN_COUNT` = 100 rejected or accepted samples.

    Returns
    -------
    lower, upper : float
        ``P(lower > U(λ)) ≤ δ`` and ``P(upper < U(λ)) ≤ δ`` for iid calibration samples, so
        ``[lower, upper]`` is a (1 − 2δ) interval. Both lie in the trivial range
        ``[-1 - lam, 1]``, which holds U(λ) for every law (a bound beyond it is clipped to it).

    Raises
    ------
    TypeError, ValueError
        For arrays that are not 1-D booleans/0-1 of one common non-zero length, for
        ``selective_wrong`` true on a rejected sample, ``lam`` outside [0, 1), ``delta``
        outside (0, 1), an unknown ``method``, or ``method="asymptotic"`` with fewer than
        :data:`ASYMPTOTIC_MIN_COUNT` rejected or accepted samples.

    Notes
    -----
    With bw, aw, rej the three indicators, ρ = P(rej), a = P(bw | rej), b = P(bw | accepted) and
    ε_sel = P(aw | accepted),

    .. math:: U(\lambda) = \varepsilon - \varepsilon_{sel} - \lambda\rho
              = \rho(a - \lambda) + (1 - \rho) b - \varepsilon_{sel} .

    U is not the mean of per-sample terms (ε_sel is a ratio), so the construction conditions on
    the rejection pattern. Given which samples were rejected (r of them, m = n − r accepted), the
    rejected samples' bw are iid Bernoulli(a), the accepted samples' g = (1 − ρ')bw − aw iid with
    mean μ = (1 − ρ')b − ε_sel, all independent, and :math:`U(\rho') = \rho'(a - \lambda) + \mu`
    for a fixed ρ'. U(ρ) is linear in ρ, so on the event that ρ lies in its exact two-sided
    Clopper–Pearson interval [1]_ (risk 0.02δ) it is at least the smaller of U(ρ_lo), U(ρ_hi).
    For each end ρ' a two-group betting test [2]_ (risk 0.48δ each) rejects a candidate (a, μ)
    when the capital :math:`\prod_{rej}(1 + \nu_i(bw_i - a))\prod_{acc}(1 + \nu_j(g_j - \mu))`
    reaches 1/δ'; the bets are non-negative, use earlier samples only (fixed-n predictable
    plug-in, proportional to the weights ρ' and 1) and keep each factor positive, so the
    capital at the true (a, μ) has expectation 1 and Markov's inequality bounds the risk. The
    lower bound is the smallest ρ'a + μ − ρ'λ over candidates not rejected with a in its exact
    Clopper–Pearson interval (risk 0.02δ); log-concavity of the capital puts it at an end of that
    interval. A union bound over the four events gives δ; no normal approximation enters. The
    bound is exact-rate (a betting bound adapts to the variance, unlike Hoeffding's) and is
    a minimum of two affine functions of λ, so concave and decreasing in λ.

    Bounds at different δ are not nested. Each δ gives a bound valid at its own level, but two
    values of δ run two different tests: the bets are sized for the level
    (:math:`\nu \propto \sqrt{2\log(1/\delta')}`, the fixed-n predictable plug-in of [2]_),
    and the log-capital at a candidate, grown by the larger bets of a smaller δ, can outrun
    its larger threshold :math:`\log(1/\delta')`; the ends of the ρ interval move with δ as
    well, and the bound at one end is not concave in that end ρ' (so the narrower ρ interval of
    a larger δ can end where the bound is lower). So a smaller δ can give a *larger* lower
    bound. For example, 167 calibration samples with 9 rejected (8 of them base errors)
    and 84 accepted base errors of which 15 are fixed (and 4 new errors) give
    :func:`certified_lambda` = 0.0500 at δ = 0.125 and 0.0346 at δ = 0.25
    (``tests/test_certified.py``). Measured by ``benchmarks/certified_delta_monotone.py``
    (λ*_CERT at nine δ from 0.005 to 0.3 per calibration set): no inversion over 1,500 draws
    of small random laws nor over 540 sets of the sweep-like laws at n = 200 - 1,920; in 59 of
    1,500 sets with 2 - 12% rejected of n = 100 - 400 (3 - 24 rejected samples), by up to 0.038
    in λ*_CERT. Bets sized at one fixed level (that of δ = 0.05) leave 2 of those 1,500 sets
    inverted (through the ρ interval) and lower the mean λ*_CERT at δ = 0.3 by 9 - 44%. So do
    not read the bounds at several δ as nested intervals, nor the smallest δ at which a λ is
    certified as a p-value.

    ``"asymptotic"``: :math:`\hat U - z_{1-\delta}\,\hat\sigma/\sqrt n` with the influence
    function :math:`bw - aw/(1-\rho) - rej\,(\lambda + \varepsilon_{sel}/(1-\rho))`. It is a
    comparison, not a certificate: its non-coverage P(lower > U(λ)) at the null boundary
    U(λ) = 0 exceeds δ at every sample size measured. Measured by
    ``benchmarks/asymptotic_coverage.py`` (8,967 laws: n from 50 to 5,000, ρ from 0.01 to
    0.99, break-even λ from 0.05 to 0.9, 4,000 calibration sets each; worst non-coverage over
    the laws, as a multiple of δ):

    ============================================  ========  ========  ========
    rejected and accepted counts                  δ = 0.01  δ = 0.05  δ = 0.1
    ============================================  ========  ========  ========
    any (no refusal)                              77        16        7.9
    both >= 100 (``ASYMPTOTIC_MIN_COUNT``)        4.6       2.2       1.5
    both >= 300                                   2.8       1.6       1.3
    ============================================  ========  ========  ========

    It fails worst when few samples are accepted or rejected (the worst laws of the first row:
    n = 50 - 400 with ρ = 0.9 - 0.99, under 40 accepted samples; the same at ρ = 0.01 - 0.1)
    and, with many of both, when one kind of outcome is rare, e.g. break-even λ near 1 with the
    rejected samples almost all base errors and a few dozen accepted samples made wrong: the
    sum is then skewed and the normal quantile too short. So fewer than
    ``ASYMPTOTIC_MIN_COUNT`` = 100 rejected or accepted samples are refused, and above it the
    table bounds what was seen, not what can happen.

    Edge cases: with no rejected or no accepted calibration sample the bounds are the trivial
    ``(-1 - lam, 1)`` (``-1 - λ <= U(λ) <= 1`` for every law).

    References
    ----------
    .. [1] C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial limits illustrated
       in the case of the binomial", Biometrika 26 (1934).
    .. [2] I. Waudby-Smith and A. Ramdas, "Estimating means of bounded random variables by
       betting", J. R. Stat. Soc. B 86 (2024), section 3.

    Examples
    --------
    400 samples; 40 rejected, 30 of them base errors; 40 accepted base errors of which the
    selective classifier keeps 36 wrong and fixes 4 (ε = 0.175, ε_sel = 0.1, ρ = 0.1, so
    U(0.15) = 0.06):

    >>> import numpy as np
    >>> rejected = np.r_[np.ones(40), np.zeros(360)].astype(bool)
    >>> base_wrong = np.r_[np.ones(30), np.zeros(10), np.ones(40), np.zeros(320)]
    >>> selective_wrong = np.r_[np.zeros(40), np.ones(36), np.zeros(324)]
    >>> lower, upper = utility_confidence_bounds(base_wrong, selective_wrong, rejected, 0.15)
    >>> bool(lower < 0.06 < upper), bool(lower > 0)
    (True, True)
    """
    bw, aw, rej, delta, method = _check_calibration(
        base_wrong, selective_wrong, rejected, delta, method
    )
    lam = check_lam(lam)
    return UtilityBounds(bw, aw, rej, delta, method).bounds(lam)


def certified_lambda(
    base_wrong: ArrayLike,
    selective_wrong: ArrayLike,
    rejected: ArrayLike,
    delta: float = 0.05,
    method: str = "betting",
) -> float:
    r"""Certified critical cost λ*_CERT: the largest λ at which U(λ) > 0 with confidence 1 − δ.

    Parameters
    ----------
    base_wrong, selective_wrong, rejected : array_like of bool or 0/1, shape (n,)
        Per-sample indicators on a held-out calibration set, as in
        :func:`utility_confidence_bounds`: base classifier wrong; selective classifier accepted
        *and* wrong (False on rejected samples); rejected.
    delta : float, default=0.05
        Risk δ ∈ (0, 1).
    method : {"betting", "asymptotic"}, default="betting"
        The lower bound used (see :func:`utility_confidence_bounds`); only ``"betting"`` carries
        the finite-sample guarantee below. ``"asymptotic"`` is refused with fewer than
        :data:`ASYMPTOTIC_MIN_COUNT` rejected or accepted samples.

    Returns
    -------
    float
        :math:`\lambda^*_{CERT} = \sup\{\lambda \in [0, 1) : L(\lambda') > 0 \ \forall
        \lambda' \le \lambda\}`, with L the (1 − δ) lower bound on U; 0 when no λ is certified
        (always when nothing, or everything, is rejected); 1 when every λ < 1 is.

    Notes
    -----
    Guarantee (``"betting"``): for every fixed λ ∈ [0, 1) and iid calibration samples,

    .. math:: P\big(\lambda^*_{CERT} > \lambda \ \text{and}\ U(\lambda) \le 0\big) \le \delta ,

    because λ*_CERT > λ implies L(λ) > 0, and P(L(λ) > U(λ)) ≤ δ. The utility is the paper's,
    with ε_sel the error among accepted samples, so λ*_CERT is comparable with λ*_EMP =
    (ε − ε_sel)/ρ of the test split. It is *not* the critical cost of the per-sample (Chow) gain
    1[bw] − 1[aw] − λ·1[rej], which is λ*_EMP + ε_sel. A held-out (or cross-fitted) calibration
    set is needed: indicators of the training set itself are not iid draws of the deployment law.

    L is concave in λ, so ``min(L(0), L(λ))`` is its non-increasing envelope and its last
    positive point is found by bisection.

    λ*_CERT is valid at each δ separately but is *not* monotone in δ: the bets of the betting
    bound are sized for the level, so a smaller δ can certify a larger λ (e.g. 0.0500 at
    δ = 0.125 against 0.0346 at δ = 0.25 on 167 samples with 9 rejected; rare, and seen only
    with few rejected samples: Notes of :func:`utility_confidence_bounds`). Fix δ before
    looking at the data; taking the largest λ*_CERT over several δ voids the guarantee.

    Examples
    --------
    The data of :func:`utility_confidence_bounds` (plug-in λ*_EMP = 0.075/0.1 = 0.75), repeated
    5 times (n = 2000):

    >>> import numpy as np
    >>> rejected = np.tile(np.r_[np.ones(40), np.zeros(360)], 5).astype(bool)
    >>> base_wrong = np.tile(np.r_[np.ones(30), np.zeros(10), np.ones(40), np.zeros(320)], 5)
    >>> selective_wrong = np.tile(np.r_[np.zeros(40), np.ones(36), np.zeros(324)], 5)
    >>> lam_cert = certified_lambda(base_wrong, selective_wrong, rejected)
    >>> bool(0.5 < lam_cert < 0.75)
    True
    >>> certified_lambda(base_wrong, selective_wrong, np.zeros(2000, bool) & rejected)
    0.0
    """
    bw, aw, rej, delta, method = _check_calibration(
        base_wrong, selective_wrong, rejected, delta, method
    )
    parts = bound_parts(bw, aw, rej, delta, method, upper=False)
    if parts.degenerate:
        return 0.0
    # L is concave: where L(0) > 0 it is positive on an interval [0, root), whose end
    # last_positive finds.
    return last_positive(lambda lam: float(parts.lower(lam)))
