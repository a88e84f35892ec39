r"""Guarantees on the selective risk: a Clopper–Pearson bound, and SGR's threshold choice.

Two answers to the practitioner's question "how wrong can the accepted predictions be?", from a
held-out calibration split:

- :func:`selective_risk_upper_bound`: for an accept rule fixed *before* the calibration rows are
  seen (GCUL's accept set, or a confidence threshold chosen on other data), the exact one-sided
  Clopper–Pearson [2]_ upper confidence bound on its selective risk;
- :func:`sgr_threshold`: Selection with Guaranteed Risk (Geifman & El-Yaniv [3]_), which
  *chooses* a score threshold on the calibration split so that the selective risk stays below a
  target with confidence :math:`1 - \delta`.

The selective risk of an accept rule g is :math:`R = P(\text{wrong} \mid g \text{ accepts})` on a
new draw of the deployment law (the population version of the selective risk of
:func:`gcul_theory.selective_risk_at_coverage`).

References
----------
.. [1] "Ambiguity identification in text emotion classification via cluster-guided learning"
   (the GCUL paper), section ``subsec:selective_exp``.
.. [2] C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial limits illustrated in
   the case of the binomial", Biometrika 26 (1934).
.. [3] Y. Geifman and R. El-Yaniv, "Selective classification for deep neural networks",
   NeurIPS 2017, Algorithm 1 (SGR), Lemma 3.1 and Theorem 3.2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from ._risk_coverage import check_scores_wrong, tied_groups
from ._validation import (
    as_array,
    as_float_array,
    as_float_scalar,
    as_output,
    broadcast,
    check_delta,
    shown,
)

__all__ = ["SGRResult", "selective_risk_upper_bound", "sgr_threshold"]

_SAFETY = 2.0**-40
"""Added to every computed Clopper–Pearson bound so that it is never below the exact one.

``1 - betaincinv(m - x, x + 1, δ)`` has an absolute error of at most the error of ``betaincinv``
(measured at most 25 ulp of its value against 40-digit mpmath on a grid of m ≤ 400 and
δ ≥ 1e-9) plus half an ulp of 1 from the subtraction: below 26 · 2**-52 = 5.8e-15, far below
2**-40 = 9.1e-13. tests/test_selective_metrics.py checks ``exact <= returned <= exact + 2**-39``
against mpmath."""


# --------------------------------------------------------------------------------------------
# Clopper-Pearson


def _count(value: Any, name: str) -> np.ndarray:
    allowed = "a non-negative int or array of non-negative ints"
    if isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be {allowed}; got {shown(value)}")
    array = as_array(value, name, allowed)
    if array.dtype == bool or not np.issubdtype(array.dtype, np.integer):
        raise TypeError(f"{name} must be {allowed}; got {shown(value)} (dtype {array.dtype})")
    if (array < 0).any():
        raise ValueError(f"{name} must be {allowed}; got {shown(array[array < 0].flat[0])}")
    return array.astype(np.int64)


def _cp_upper(n_wrong: np.ndarray, n_accepted: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """Exact one-sided (1 - delta) Clopper-Pearson upper bound, raised by ``_SAFETY``; 1 if x = m.

    The bound u solves P(Bin(m, u) <= x) = delta, i.e. I_{1-u}(m - x, x + 1) = delta, so
    u = 1 - betaincinv(m - x, x + 1, delta): delta enters exactly (betaincinv(..., 1 - delta)
    would lose its digits when delta is small).
    """
    full = n_wrong >= n_accepted  # includes n_accepted == 0: nothing is known, R <= 1
    a = np.where(full, 1, n_accepted - n_wrong)
    b = n_wrong + 1
    with np.errstate(invalid="ignore"):
        bound = 1.0 - special.betaincinv(a.astype(float), b.astype(float), delta)
    return np.where(full, 1.0, np.minimum(bound + _SAFETY, 1.0))


def selective_risk_upper_bound(
    n_wrong: int | ArrayLike, n_accepted: int | ArrayLike, delta: float | ArrayLike = 0.05
) -> float | np.ndarray:
    r"""(1 − δ) upper confidence bound on the selective risk of a fixed accept rule (Clopper–Pearson).

    Parameters
    ----------
    n_wrong : int or array_like of int
        Accepted calibration samples whose prediction is wrong.
    n_accepted : int or array_like of int
        Calibration samples the rule accepts; ``n_wrong <= n_accepted``.
    delta : float or array_like, default=0.05
        Risk δ ∈ (0, 1) of the bound.

    Returns
    -------
    float or ndarray
        The bound :math:`\hat b \in (0, 1]`, broadcast over the inputs: 1.0 when nothing is
        accepted or every accepted sample is wrong.

    Raises
    ------
    TypeError
        For counts that are not integers (floats and bools included) or a non-numeric δ.
    ValueError
        For negative counts, ``n_wrong > n_accepted``, δ outside (0, 1) or shapes that do not
        broadcast.

    Notes
    -----
    With :math:`x` = ``n_wrong`` and :math:`m` = ``n_accepted``, the exact one-sided
    Clopper–Pearson bound [1]_ is the :math:`b` with :math:`P(\mathrm{Bin}(m, b) \le x) = \delta`:

    .. math:: \hat b = 1 - I^{-1}_{\delta}(m - x,\ x + 1) \quad (x < m), \qquad \hat b = 1
              \quad (x = m),

    :math:`I^{-1}` the inverse regularised incomplete beta function (``scipy.special.
    betaincinv``), then raised by :math:`2^{-40}` so that rounding never puts it below the exact
    bound (module constant ``_SAFETY``).

    **Guarantee.** Assume the calibration rows are iid draws of the deployment law and the
    accept rule (the classifier and the rule that rejects) was fixed before they were seen.
    Then, conditionally on the number :math:`m` accepted, the accepted rows are iid draws of the
    law given acceptance, so :math:`x \sim \mathrm{Bin}(m, R)` with :math:`R` the rule's
    selective risk, and

    .. math:: P(R > \hat b \mid m) \le \delta \quad \text{for every } m,

    hence also unconditionally. The bound is conservative: the exact violation probability is
    at most δ for every :math:`R` and :math:`m`, and smaller between the attainable values
    (tests/test_selective_metrics.py computes it exactly). A rule tuned on the calibration rows
    themselves (e.g. a threshold picked to match a coverage *on them*) is not fixed: use
    :func:`sgr_threshold`, or choose the rule on other data. For GCUL, the accept set is
    phase 3's prediction of a model trained on the training split, which is fixed.

    Edge cases: :math:`m = 0` gives 1.0 (no accepted sample, nothing is known about R); the
    bound is then trivially valid.

    References
    ----------
    .. [1] C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial limits illustrated
       in the case of the binomial", Biometrika 26 (1934).

    Examples
    --------
    400 calibration samples accepted, 12 of them wrong (3%):

    >>> from gcul_theory import selective_risk_upper_bound
    >>> round(selective_risk_upper_bound(12, 400, delta=0.05), 4)  # beta.ppf(0.95, 13, 388)
    0.0482
    >>> selective_risk_upper_bound(0, 0)
    1.0

    From per-sample indicators: ``n_wrong = (wrong & accepted).sum()``,
    ``n_accepted = accepted.sum()``.
    """
    x = _count(n_wrong, "n_wrong")
    m = _count(n_accepted, "n_accepted")
    d = as_float_array(delta, "delta", lower=0.0, upper=1.0, lower_open=True, upper_open=True)
    x, m, d = broadcast(x, m, d, names=("n_wrong", "n_accepted", "delta"))
    over = x > m
    if over.any():
        index = tuple(np.argwhere(over)[0])
        raise ValueError(
            "n_wrong must be at most n_accepted (the wrong samples are among the accepted ones); "
            f"got n_wrong={int(x[index])}, n_accepted={int(m[index])}"
        )
    return as_output(_cp_upper(x, m, d))


# --------------------------------------------------------------------------------------------
# SGR


@dataclass(frozen=True)
class SGRResult:
    r"""Outcome of :func:`sgr_threshold`; ``str(result)`` prints it.

    Attributes
    ----------
    feasible : bool
        Whether some threshold's bound is below the target risk.
    threshold : float
        Accept a sample iff its score is ``>= threshold``; ``inf`` (accept nothing) when not
        feasible.
    n_accepted : int
        Calibration samples the threshold accepts (0 when not feasible).
    coverage : float
        ``n_accepted / n`` on the calibration split.
    selective_risk : float
        Error rate among the accepted calibration samples (0.0 when none).
    risk_bound : float
        The (1 − δ/k) Clopper–Pearson bound of the chosen threshold, :math:`\hat b` < target
        (1.0 when not feasible).
    target_risk, delta : float
        The requested risk :math:`r^*` and confidence :math:`1 - \delta`.
    n : int
        Calibration samples.
    n_tests : int
        Thresholds the binary search tested (at most ``k``).
    delta_per_test : float
        :math:`\delta/k`, :math:`k = \lceil\log_2(n + 1)\rceil`.
    reason : str
        One sentence: what was certified, or why nothing was.
    """

    feasible: bool
    threshold: float
    n_accepted: int
    coverage: float
    selective_risk: float
    risk_bound: float
    target_risk: float
    delta: float
    n: int
    n_tests: int
    delta_per_test: float
    reason: str

    def __str__(self) -> str:
        head = "SGR: feasible" if self.feasible else "SGR: no threshold"
        return f"{head} (target risk {self.target_risk:g}, delta {self.delta:g}): {self.reason}"


def _min_accepted(target_risk: float, delta_test: float) -> int:
    """Fewest accepted samples, all correct, whose bound 1 - delta_test**(1/m) is below target."""
    return math.floor(math.log(delta_test) / math.log1p(-target_risk)) + 1


def sgr_threshold(
    scores: ArrayLike, wrong: ArrayLike, target_risk: float, delta: float = 0.05
) -> SGRResult:
    r"""Selection with Guaranteed Risk: the lowest score threshold whose risk bound meets a target.

    Parameters
    ----------
    scores : array_like of float, shape (n,)
        Score of each calibration sample (higher = keep), from a scoring function fixed before
        the calibration split is seen.
    wrong : array_like of bool or 0/1, shape (n,)
        Whether the classifier's prediction of the calibration sample is wrong.
    target_risk : float
        Desired selective risk :math:`r^* \in (0, 1)`.
    delta : float, default=0.05
        Risk δ ∈ (0, 1).

    Returns
    -------
    SGRResult
        The threshold, its calibration coverage, selective risk and bound, and a reason;
        ``feasible`` is False (threshold ``inf``, accept nothing) when no tested threshold's bound
        is below ``target_risk``, with the number of samples that would be needed.

    Raises
    ------
    TypeError, ValueError
        For invalid scores / wrong (as :func:`gcul_theory.risk_coverage_curve`),
        ``target_risk`` outside (0, 1) or ``delta`` outside (0, 1).

    Notes
    -----
    Algorithm 1 of Geifman & El-Yaniv [1]_, over the distinct calibration scores
    :math:`t_1 > t_2 > \dots > t_U` (a rule "accept iff score :math:`\ge t_u`" accepts all tied
    samples together): a binary search for the largest :math:`u` whose bound
    :math:`\hat b_u = \mathrm{CP}(x_u, m_u, \delta/k)` (:func:`selective_risk_upper_bound`, with
    :math:`m_u` accepted and :math:`x_u` of them wrong) is below :math:`r^*`, with
    :math:`k = \lceil \log_2(n+1) \rceil` (the most thresholds a binary search over at most
    :math:`n` candidates tests; [1]_ writes :math:`\lceil\log_2 n\rceil` over the n sample
    scores). A passing test moves the search to lower thresholds (more coverage), a failing one
    to higher; the result is the last threshold that passed, which has the highest coverage of
    those that passed.

    **Guarantee, as stated in [1]_ (Theorem 3.2).** For iid calibration rows and a scoring
    function and classifier fixed before them, :math:`P(R(\hat t) > \hat b) \le \delta`, with
    :math:`R(t) = P(\text{wrong} \mid \text{score} \ge t)` the selective risk on the deployment
    law. The proof in [1]_ applies Lemma 3.1 (the Clopper–Pearson bound of a *fixed* threshold,
    our :func:`selective_risk_upper_bound`) at each of the :math:`k` tested thresholds and takes
    a union bound; the tested thresholds are calibration scores chosen by the search, so each
    step is not literally a fixed rule, and we do not prove the adaptive case here. It is
    checked by Monte Carlo where the assumptions hold and at their edges (n from 20 to 10,000,
    risks near 0 and 1, laws whose risk equals the target at every high threshold, a
    conditional error that is not monotone in the score, tied scores; δ = 0.05 and 0.2):
    over 56 configurations of 10,000 calibration draws each, the largest one-sided 95% upper
    bound on the violation rate was 0.50 δ, while the same search without the union bound
    (each test at δ) violated at rates up to 0.32 for δ = 0.2 (benchmarks/
    selective_guarantees.py, results in benchmarks/selective_guarantees_results.md;
    tests/test_selective_metrics.py runs a fast version). When no threshold qualifies the
    function refuses: ``feasible`` is False and ``reason`` says how many all-correct accepted
    samples a bound below :math:`r^*` needs at :math:`\delta/k`.

    References
    ----------
    .. [1] Y. Geifman and R. El-Yaniv, "Selective classification for deep neural networks",
       NeurIPS 2017.

    Examples
    --------
    2000 calibration samples whose error probability falls with the score:

    >>> import numpy as np
    >>> from gcul_theory import sgr_threshold
    >>> rng = np.random.default_rng(0)
    >>> scores = rng.random(2000)
    >>> wrong = rng.random(2000) < 0.4 * (1 - scores) ** 2
    >>> result = sgr_threshold(scores, wrong, target_risk=0.05, delta=0.05)
    >>> result.feasible, result.risk_bound < 0.05, 0.3 < result.coverage < 0.7
    (True, True, True)
    >>> sgr_threshold(scores[:20], wrong[:20], target_risk=0.01).feasible
    False
    """
    s, w = check_scores_wrong(scores, wrong)
    target = as_float_scalar(
        target_risk, "target_risk", lower=0.0, upper=1.0, lower_open=True, upper_open=True
    )
    delta = check_delta(delta)
    n = s.size
    values, sizes, errors, _, _ = tied_groups(s, w)
    accepted = np.cumsum(sizes)  # rule u accepts the u highest groups
    accepted_wrong = np.cumsum(errors)
    k = math.ceil(math.log2(n + 1))
    delta_test = delta / k

    def bound(u: int) -> float:  # rule u = 1..U
        x, m = accepted_wrong[u - 1 : u], accepted[u - 1 : u]
        return float(_cp_upper(x, m, np.array([delta_test]))[0])

    lo, hi = 0, values.size + 1  # lo passes (0: accept nothing), hi fails (a sentinel)
    best: tuple[int, float] | None = None
    last_failure: tuple[int, float] | None = None
    n_tests = 0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        b = bound(mid)
        n_tests += 1
        if b < target:
            lo, best = mid, (mid, b)
        else:
            hi, last_failure = mid, (mid, b)
    if n_tests > k:  # pragma: no cover - a binary search over U <= n candidates makes <= k tests
        raise AssertionError(f"SGR made {n_tests} tests, more than k = {k}")
    common: dict[str, Any] = {  # the keyword fields both results share (float and int)
        "target_risk": target,
        "delta": delta,
        "n": n,
        "n_tests": n_tests,
        "delta_per_test": delta_test,
    }
    if best is None:
        assert last_failure is not None and last_failure[0] == 1
        need = _min_accepted(target, delta_test)
        reason = (
            f"no threshold qualifies: even the highest-scoring group (score >= {values[0]:.6g}: "
            f"{int(accepted[0])} accepted, {int(accepted_wrong[0])} wrong) has a "
            f"(1 - delta/k) bound {last_failure[1]:.4g} >= target_risk {target:g} "
            f"(k = {k}, delta/k = {delta_test:.3g}); a bound below the target needs at least "
            f"{need} accepted samples with no error"
        )
        return SGRResult(False, math.inf, 0, 0.0, 0.0, 1.0, reason=reason, **common)
    u, b = best
    m, x = int(accepted[u - 1]), int(accepted_wrong[u - 1])
    reason = (
        f"accept score >= {values[u - 1]:.6g}: {m} of {n} calibration samples "
        f"(coverage {m / n:.3f}), {x} wrong ({x / m:.3f}); with confidence {1 - delta:g} the "
        f"selective risk is <= {b:.4g} < {target:g} ({n_tests} tests at delta/k = "
        f"{delta_test:.3g})"
    )
    return SGRResult(True, float(values[u - 1]), m, m / n, x / m, b, reason=reason, **common)
