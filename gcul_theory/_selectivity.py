r"""Rejection rate, clean error, utility U(λ), selectivity score S_GCUL and λ*_EMP.

Section "Selectivity score and monotonicity" (``subsec:selectivity_score``) of [1]_.

References
----------
.. [1] "Ambiguity identification in text emotion classification via cluster-guided
   learning" (the GCUL paper).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._validation import as_float_array, as_output, broadcast

__all__ = [
    "rejection_rate",
    "clean_error",
    "utility",
    "selectivity_score",
    "selectivity_at_rate",
    "empirical_lambda",
]


def _validate_rates(eps: ArrayLike, r1: ArrayLike, r2: ArrayLike) -> list[np.ndarray]:
    eps_a = as_float_array(eps, "eps", lower=0.0, upper=1.0, lower_open=True, upper_open=True)
    r1_a = as_float_array(r1, "r1", lower=0.0, upper=1.0)
    r2_a = as_float_array(r2, "r2", lower=0.0, upper=1.0)
    return broadcast(eps_a, r1_a, r2_a, names=("eps", "r1", "r2"))


_U = 2.0**-53  # unit roundoff of float64
_SMALLEST_RATE = 2.0**-53  # smallest positive share of at most 2**53 samples (exact in float64)
_TINY_EPS = 2.0**-800  # below this, ε(1 - r1) may leave the normal range: scale ε first
_EPS_SHIFT = 200  # ε·2**200 >= 2**-874 stays normal; (1-ε)(1-r2)·2**200 <= 2**200 cannot overflow
_NO_TERM = -4000  # exponent given to a zero term so that it never sets the common exponent


def _one_minus_rho_scaled(
    eps: np.ndarray, r1: np.ndarray, r2: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Return ``(den, eps_s, k)`` with :math:`1 - \rho = 2^{-k}\,` ``den`` and ``eps_s`` :math:`= 2^k\varepsilon`.

    ``den = eps_s (1 - r1) + 2**k (1 - ε)(1 - r2)``: the stable form
    :math:`1-\rho = \varepsilon(1-r_1) + (1-\varepsilon)(1-r_2)`, a sum of two non-negative terms
    (no cancellation), with ε scaled by :math:`2^k` (exact) so that a subnormal ε does not
    underflow :math:`\varepsilon(1-r_1)`. Every factor is a difference of exact inputs, so each
    term carries at most three roundings.
    """
    k = np.where(eps < _TINY_EPS, _EPS_SHIFT, 0)
    eps_s = np.ldexp(eps, k)
    den = eps_s * (1.0 - r1) + np.ldexp((1.0 - eps) * (1.0 - r2), k)
    return den, eps_s, k


def _rho_scaled(eps: np.ndarray, r1: np.ndarray, r2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Return ``(rho_s, E)`` with :math:`\rho = 2^E\,` ``rho_s`` and ``rho_s`` in about [2**-55, 2].

    :math:`\rho = \varepsilon r_1 + (1-\varepsilon) r_2` is summed from mantissas
    (``np.frexp``) so that neither product underflows when an input is subnormal; a term is
    shifted down only relative to the larger one, where what it loses is far below one ulp of the
    sum. ``rho_s = 0`` (with ``E`` very negative) when :math:`r_1 = r_2 = 0`.
    """
    m_eps, e_eps = np.frexp(eps)
    m1, e1 = np.frexp(r1)
    m2, e2 = np.frexp(r2)
    exp_first = np.where(r1 > 0.0, e_eps + e1, _NO_TERM)
    exp_second = np.where(r2 > 0.0, e2, _NO_TERM)
    E = np.maximum(exp_first, exp_second)
    with np.errstate(under="ignore"):
        rho_s = np.ldexp(m_eps * m1, exp_first - E) + np.ldexp((1.0 - eps) * m2, exp_second - E)
    return rho_s, E


def _rejection_rate(eps: np.ndarray, r1: np.ndarray, r2: np.ndarray) -> np.ndarray:
    rho_s, E = _rho_scaled(eps, r1, r2)
    with np.errstate(under="ignore"):
        rho = np.ldexp(rho_s, E)
    # The exact ρ is a convex combination of r1, r2 ∈ [0, 1]; only rounding (at most a few
    # ulp, with ρ near 1) can take the computed value above 1.
    return np.minimum(rho, 1.0)


def _clean_error(eps: np.ndarray, r1: np.ndarray, r2: np.ndarray) -> np.ndarray:
    # ε_clean = ε(1-r1) / [ε(1-r1) + (1-ε)(1-r2)]: the numerator is one of the two non-negative
    # terms of the denominator, so the rounded quotient never exceeds 1 (rounding is monotone).
    den, eps_s, _ = _one_minus_rho_scaled(eps, r1, r2)
    out = np.zeros(den.shape)
    # den == 0 only when r1 == r2 == 1 (ρ = 1): nothing is accepted, so no accepted sample errs.
    np.divide(eps_s * (1.0 - r1), den, out=out, where=den > 0.0)
    return out


def _error_reduction(eps: np.ndarray, r1: np.ndarray, r2: np.ndarray) -> np.ndarray:
    r""":math:`\varepsilon - \varepsilon_{clean} = \varepsilon(1-\varepsilon)(r_1-r_2)/(1-\rho)`.

    Without cancellation: the form of the difference, not a difference of two rounded values.
    """
    den, eps_s, _ = _one_minus_rho_scaled(eps, r1, r2)
    out = eps.copy()  # ρ = 1: ε_clean is defined as 0, so the reduction is ε
    with np.errstate(under="ignore"):
        np.divide(eps_s * (1.0 - eps) * (r1 - r2), den, out=out, where=den > 0.0)
    return out


def selectivity_unchecked(eps: np.ndarray, r1: np.ndarray, r2: np.ndarray) -> np.ndarray:
    r""":func:`selectivity_score` without validation, for float arrays in [0, 1] with r2 <= r1.

    Computed as :math:`\frac{\varepsilon (r_1-r_2)}{\rho}\cdot\frac{1-\varepsilon}{1-\rho}`.
    The first factor is formed from mantissas and exponents (``np.frexp``), so that subnormal
    inputs do not underflow it.
    """
    eps, r1, r2 = np.broadcast_arrays(eps, r1, r2)
    m_eps, e_eps = np.frexp(eps)
    difference = r1 - r2  # exact inputs: one rounding, no cancellation error
    m_d, e_d = np.frexp(difference)
    rho_s, E = _rho_scaled(eps, r1, r2)
    den, _, k = _one_minus_rho_scaled(eps, r1, r2)
    regular = (difference > 0.0) & (den > 0.0)
    with np.errstate(divide="ignore", invalid="ignore", under="ignore", over="ignore"):
        mantissa = (m_eps * m_d / rho_s) * ((1.0 - eps) / den)
        score = np.ldexp(mantissa, e_eps + e_d - E + k)
    # r1 == r2 (< 1): ρ(1-ρ) > 0 and the numerator vanishes, S = 0 (this includes ρ = 0, where
    # nothing is rejected and U ≡ 0). r1 == r2 == 1 (ρ = 1): U(λ) = ε - λ, so S = ε keeps
    # S > λ ⟺ U(λ) > 0.
    score = np.where(regular, score, np.where((r1 == 1.0) & (r2 == 1.0), eps, 0.0))
    # Exactly, S <= 1 on r2 <= r1 (Notes of selectivity_score); only rounding (a few ulp, where
    # S is within a few ulp of 1) can take the computed value above 1.
    return np.minimum(score, 1.0)


def rejection_rate(eps: ArrayLike, r1: ArrayLike, r2: ArrayLike) -> float | np.ndarray:
    r"""Share of samples rejected, :math:`\rho = \varepsilon r_1 + (1-\varepsilon) r_2`.

    Parameters
    ----------
    eps : array_like
        Base error rate :math:`\varepsilon \in (0, 1)` of the phase-1 classifier.
    r1 : array_like
        Error capture rate :math:`r_1 \in [0, 1]`: share of misclassified samples rejected.
    r2 : array_like
        Clean contamination rate :math:`r_2 \in [0, 1]`: share of correct samples rejected.

    Returns
    -------
    float or ndarray
        :math:`\rho \in [0, 1]`, broadcast over the inputs.

    Notes
    -----
    .. math:: \rho = \varepsilon r_1 + (1-\varepsilon) r_2

    Section ``subsec:selectivity_score`` of [1]_ (the display after "Feasibility condition").
    The two products are formed from mantissas and exponents, so a subnormal input does not
    underflow them; the result is within 8 units of roundoff (:math:`8 \cdot 2^{-53}`) of the
    exact value, relative, for results above :math:`2^{-1070}` (tested against exact rational
    arithmetic). It is clipped to 1, which the exact value never exceeds.

    References
    ----------
    .. [1] The GCUL paper (reference in the module docstring).

    Examples
    --------
    >>> from gcul_theory import rejection_rate
    >>> rejection_rate(0.2, 0.9, 0.05)
    0.22000000000000003
    """
    eps_a, r1_a, r2_a = _validate_rates(eps, r1, r2)
    return as_output(_rejection_rate(eps_a, r1_a, r2_a))


def clean_error(eps: ArrayLike, r1: ArrayLike, r2: ArrayLike) -> float | np.ndarray:
    r"""Error rate among accepted samples, :math:`\varepsilon_{clean} = \varepsilon(1-r_1)/(1-\rho)`.

    Parameters
    ----------
    eps, r1, r2 : array_like
        Base error :math:`\varepsilon \in (0,1)`, capture rate :math:`r_1 \in [0,1]` and
        contamination rate :math:`r_2 \in [0,1]`; broadcast against each other.

    Returns
    -------
    float or ndarray
        :math:`\varepsilon_{clean} \in [0, 1]`.

    Notes
    -----
    .. math::

        \varepsilon_{clean} = \frac{\varepsilon (1 - r_1)}{1 - \rho}
        = \frac{\varepsilon (1 - r_1)}{\varepsilon (1 - r_1) + (1-\varepsilon)(1 - r_2)}

    Section ``subsec:selectivity_score`` of [1]_. Computed in the second form: :math:`1-\rho`
    as a sum of two non-negative terms (never as ``1 - rho``, which loses every digit when
    :math:`\rho` is near 1), with ε scaled by a power of two when it is tiny. The numerator is
    one term of the denominator, so the result never exceeds 1, and it is within 8 units of
    roundoff of the exact value. Edge case: :math:`\rho = 1` happens only for
    :math:`r_1 = r_2 = 1`; then nothing is accepted and the result is defined as 0 (no accepted
    sample is misclassified). With :math:`r_2 = 1 > r_1` every accepted sample is an error and
    the result is exactly 1.

    References
    ----------
    .. [1] The GCUL paper (reference in the module docstring).

    Examples
    --------
    Rejecting 90% of the errors and 5% of the correct samples of a 20%-error classifier:

    >>> from gcul_theory import clean_error
    >>> round(clean_error(0.2, 0.9, 0.05), 12)  # 0.2 * 0.1 / (1 - 0.22)
    0.025641025641
    """
    eps_a, r1_a, r2_a = _validate_rates(eps, r1, r2)
    return as_output(_clean_error(eps_a, r1_a, r2_a))


def utility(lam: ArrayLike, eps: ArrayLike, r1: ArrayLike, r2: ArrayLike) -> float | np.ndarray:
    r"""Normalised utility gain of rejecting, :math:`U(\lambda) = \varepsilon - \varepsilon_{clean} - \lambda\rho`.

    Parameters
    ----------
    lam : array_like
        Relative rejection cost :math:`\lambda = \eta_2/\eta_1 \in [0, 1)` (Assumption
        ``ass:error_cost``).
    eps, r1, r2 : array_like
        Base error :math:`\varepsilon \in (0,1)`, capture rate and contamination rate in [0, 1].

    Returns
    -------
    float or ndarray
        :math:`U(\lambda) \in [-2, 1]`; positive when rejecting pays.

    Notes
    -----
    .. math::

        U(\lambda) = \varepsilon - \varepsilon_{clean} - \lambda \rho
        = \frac{\varepsilon(1-\varepsilon)(r_1 - r_2)}{1-\rho} - \lambda\rho

    Section ``subsec:selectivity_score`` of [1]_. Computed in the second form, which has no
    cancellation in :math:`\varepsilon - \varepsilon_{clean}`; the error is within 8 units
    of roundoff of :math:`|\varepsilon - \varepsilon_{clean}| + \lambda\rho`, so the sign is
    right wherever U is not within that of 0. Exactly, :math:`-2 < U < 1`
    (:math:`\varepsilon_{clean} \le 1` and :math:`\lambda\rho < 1`). At :math:`\rho = 1`
    the clean error is 0 (see :func:`clean_error`), so :math:`U(\lambda) = \varepsilon - \lambda`.

    References
    ----------
    .. [1] The GCUL paper (reference in the module docstring).

    Examples
    --------
    >>> from gcul_theory import utility, selectivity_score
    >>> u = utility(0.15, 0.2, 0.9, 0.05)
    >>> bool(u > 0) == bool(selectivity_score(0.2, 0.9, 0.05) > 0.15)
    True
    """
    lam_a = as_float_array(lam, "lam", lower=0.0, upper=1.0, upper_open=True)
    eps_a, r1_a, r2_a = _validate_rates(eps, r1, r2)
    lam_a, eps_a, r1_a, r2_a = broadcast(lam_a, eps_a, r1_a, r2_a, names=("lam", "eps", "r1", "r2"))
    # ε - ε_clean in its cancellation-free form ε(1-ε)(r1-r2)/(1-ρ); the one remaining
    # subtraction, of λρ, is the comparison U(λ) is about.
    gain = _error_reduction(eps_a, r1_a, r2_a) - lam_a * _rejection_rate(eps_a, r1_a, r2_a)
    return as_output(gain)


def selectivity_score(eps: ArrayLike, r1: ArrayLike, r2: ArrayLike) -> float | np.ndarray:
    r"""GCUL selectivity score :math:`S_{GCUL}`; rejecting at cost λ pays iff :math:`S > \lambda`.

    Parameters
    ----------
    eps : array_like
        Base error :math:`\varepsilon \in (0, 1)`.
    r1 : array_like
        Error capture rate :math:`r_1 \in [0, 1]`.
    r2 : array_like
        Clean contamination rate :math:`r_2 \in [0, 1]` with :math:`r_2 \le r_1` (the domain of
        Theorem ``thm:monotonicity``).

    Returns
    -------
    float or ndarray
        :math:`S_{GCUL} \in [0, 1]`, broadcast over the inputs.

    Raises
    ------
    ValueError
        If any :math:`r_2 > r_1`, or an argument is out of range or not finite.

    Notes
    -----
    Eq. (``eq:selectivity_score``) of [1]_:

    .. math::

        S_{GCUL} = \frac{(1-\varepsilon)(r_1 - r_2)}{r_1 + \frac{1-\varepsilon}{\varepsilon} r_2
        - \varepsilon r_1^2 - \frac{(1-\varepsilon)^2}{\varepsilon} r_2^2 - 2(1-\varepsilon) r_1 r_2}
        = \frac{\varepsilon(1-\varepsilon)(r_1 - r_2)}{\rho(1-\rho)},

    and ``proofs`` shows the two are equal. The value is at most 1: expanding,

    .. math::

        \rho(1-\rho) - \varepsilon(1-\varepsilon)(r_1-r_2) = \varepsilon^2 r_1(1-r_1)
        + 2\varepsilon(1-\varepsilon) r_2 (1-r_1) + (1-\varepsilon)^2 r_2(1-r_2) \ge 0.

    It is computed as :math:`\frac{\varepsilon(r_1-r_2)}{\rho}\cdot\frac{1-\varepsilon}{1-\rho}`
    with :math:`1-\rho = \varepsilon(1-r_1) + (1-\varepsilon)(1-r_2)` (no cancellation) and
    the first factor in mantissa/exponent form (no underflow for subnormal inputs): within 8
    units of roundoff (:math:`8\cdot 2^{-53}`) of the exact value, relative, for results above
    :math:`2^{-1070}`, tested against exact rational arithmetic; a result rounded above 1 is
    clipped to 1. For
    :math:`0 < \rho < 1`, :math:`S > \lambda \iff U(\lambda) > 0` (appendix
    ``app:criterion_derivation``). Edge cases, chosen so that the equivalence holds on the
    closed domain: :math:`\rho = 0` (:math:`r_1 = r_2 = 0`, nothing rejected, :math:`U \equiv 0`)
    gives 0; :math:`\rho = 1` (:math:`r_1 = r_2 = 1`, everything rejected,
    :math:`U(\lambda) = \varepsilon - \lambda`) gives :math:`\varepsilon`.

    References
    ----------
    .. [1] The GCUL paper (reference in the module docstring).

    Examples
    --------
    The paper's σ = 0 cell rejects all errors and no correct sample (:math:`r_1=1, r_2=0`),
    so :math:`S = \varepsilon(1-\varepsilon)/(\varepsilon(1-\varepsilon)) = 1`:

    >>> from gcul_theory import selectivity_score
    >>> selectivity_score(0.135, 1.0, 0.0)
    1.0
    >>> round(selectivity_score(0.2, 0.9, 0.05), 10)  # 0.2*0.8*0.85 / (0.22*0.78)
    0.7925407925
    """
    eps_a, r1_a, r2_a = _validate_rates(eps, r1, r2)
    inverted = r2_a > r1_a
    if inverted.any():
        index = np.argwhere(inverted)[0]
        raise ValueError(
            "selectivity_score requires r2 <= r1 (the paper's Theorem “Strict Monotonicity of "
            "Selectivity Score”); got "
            f"r1={r1_a[tuple(index)]!r}, r2={r2_a[tuple(index)]!r}"
        )
    return as_output(selectivity_unchecked(eps_a, r1_a, r2_a))


def empirical_lambda(
    base_error: ArrayLike, selective_error: ArrayLike, rejection_rate: ArrayLike
) -> float | np.ndarray:
    r"""Empirical critical cost :math:`\lambda^*_{EMP} = (\varepsilon - \varepsilon_{sel})/\rho`.

    Parameters
    ----------
    base_error : array_like
        Error rate :math:`\varepsilon \in [0, 1]` of the base classifier on the evaluation set.
    selective_error : array_like
        Error rate :math:`\varepsilon_{sel} \in [0, 1]` of the selective classifier on the
        samples it accepts.
    rejection_rate : array_like
        Share :math:`\rho \in [0, 1]` of evaluation samples rejected.

    Returns
    -------
    float or ndarray
        :math:`\lambda^*_{EMP}`, with :math:`|\lambda^*_{EMP}| \le 1/\rho \le 2^{53}`; negative
        when rejecting makes the accepted error worse.

    Raises
    ------
    ValueError
        If an argument is out of range or not finite, or if ``rejection_rate`` lies in
        :math:`(0, 2^{-53})`, which no evaluation set can produce (below), naming it.

    Notes
    -----
    .. math:: \lambda^*_{EMP} = \frac{\varepsilon - \varepsilon_{sel}}{\rho}

    The empirical utility :math:`\varepsilon - \varepsilon_{sel} - \lambda\rho` is positive
    iff :math:`\lambda < \lambda^*_{EMP}` (metric "EMP λ*" of ``tab:metrics`` in [1]_).
    Edge case: :math:`\rho = 0` (nothing rejected: there is no rejection to price) gives 0.

    **Range.** When the selective classifier predicts what the base classifier predicts on the
    samples it accepts (the model of :func:`utility`, where :math:`\varepsilon_{clean}` is the
    base error among accepted samples), :math:`\varepsilon - \varepsilon_{sel} = \rho(w -
    \varepsilon_{sel})` with :math:`w` the base error rate among rejected samples, so
    :math:`\lambda^*_{EMP} = w - \varepsilon_{sel} \in [-1, 1]`. GCUL's selective classifier is
    the phase-3 model, retrained on K + 1 classes: on the samples it accepts it can be right
    where phase 1 was wrong and wrong where phase 1 was right, so every triple of rates in
    :math:`[0, 1]^3` can occur (on scikit-learn's bundled data sets, phase 3 made more accepted
    errors than phase 1 in some splits, which the model above excludes), and then
    :math:`|\lambda^*_{EMP}|` is bounded only by :math:`1/\rho`. Rates computed as counts over
    at most :math:`2^{53}` samples (the integers a float64 holds exactly) have
    :math:`\rho = 0` or :math:`\rho \ge 2^{-53}`; a smaller positive ρ is refused, which keeps
    the result finite and at most :math:`2^{53}` in magnitude.

    References
    ----------
    .. [1] The GCUL paper (reference in the module docstring).

    Examples
    --------
    The paper's σ = 0 row of ``tab:synthetic_gcul``: base 86.50%, selective 100%, rejection
    16.54%, so :math:`\lambda^*_{EMP} = 0.135/0.1654 \approx 0.82`:

    >>> from gcul_theory import empirical_lambda
    >>> round(empirical_lambda(0.135, 0.0, 0.1654), 2)
    0.82

    A phase-3 model that rejects 1% of the samples and gets every other one right, where phase 1
    was always wrong, pays off at any cost below 100:

    >>> empirical_lambda(1.0, 0.0, 0.01)
    100.0
    """
    eps_a = as_float_array(base_error, "base_error", lower=0.0, upper=1.0)
    sel_a = as_float_array(selective_error, "selective_error", lower=0.0, upper=1.0)
    rho_a = as_float_array(rejection_rate, "rejection_rate", lower=0.0, upper=1.0)
    eps_a, sel_a, rho_a = broadcast(
        eps_a, sel_a, rho_a, names=("base_error", "selective_error", "rejection_rate")
    )
    tiny = (rho_a > 0.0) & (rho_a < _SMALLEST_RATE)
    if tiny.any():
        raise ValueError(
            "rejection_rate must be 0 or at least 2**-53 (a share of at most 2**53 samples); "
            f"got {float(rho_a[tiny].flat[0])!r}"
        )
    out = np.zeros(eps_a.shape)
    np.divide(eps_a - sel_a, rho_a, out=out, where=rho_a > 0.0)
    return as_output(out)


def selectivity_at_rate(eps: ArrayLike, r1: ArrayLike, rho: ArrayLike) -> float | np.ndarray:
    r"""S_GCUL of a rejection given by its error capture :math:`r_1` and rejection rate :math:`\rho`.

    Two rejections of one base classifier compared *at the same rejection rate* (the regime
    map's GCUL against MSP at GCUL's coverage) differ only in :math:`r_1`; this is the paper's
    selectivity score written in :math:`(\varepsilon, r_1, \rho)`, defined also where the
    rejection prefers correct samples (:math:`r_2 > r_1`, a negative score).

    Parameters
    ----------
    eps : array_like
        Base error :math:`\varepsilon \in [0, 1]`.
    r1 : array_like
        Share of the errors rejected, :math:`r_1 \in [0, 1]`.
    rho : array_like
        Share of all samples rejected, :math:`\rho \in [0, 1]`.

    Returns
    -------
    float or ndarray
        :math:`S = \varepsilon(r_1 - \rho)/(\rho(1-\rho))`, broadcast over the inputs; 0 where
        :math:`\rho \in \{0, 1\}` or :math:`\varepsilon = 0` (nothing to compare).

    Raises
    ------
    ValueError
        If an argument is out of range or not finite.

    Notes
    -----
    With :math:`r_2 = (\rho - \varepsilon r_1)/(1-\varepsilon)` substituted into Eq.
    (``eq:selectivity_score``) of [1]_, :math:`S = \varepsilon(r_1 - \rho)/(\rho(1-\rho))`
    (claim ``equal_coverage.score`` of ``gcul prove``): equal to :func:`selectivity_score`
    where that is defined (:math:`0 \le r_2 \le r_1`), and extended to :math:`r_2 > r_1`.
    At equal :math:`\rho`, two rejections A and B have
    :math:`S_A - S_B = (\varepsilon_{clean,B} - \varepsilon_{clean,A})/\rho` (claim
    ``equal_coverage.order``): the difference of scores, ΔS_eq, is the difference of the
    selective risks over :math:`\rho`. Computed as ``eps * (r1 - rho) / (rho * (1 - rho))``,
    three roundings: within 4 units of roundoff of the exact value relative to
    :math:`\varepsilon(r_1 + \rho)/(\rho(1-\rho))` (cancellation in :math:`r_1 - \rho` is
    exact by Sterbenz when the two are within a factor 2). Inputs :math:`(\rho, r_1)` that no
    rejection can produce (:math:`\rho < \varepsilon r_1`) are not refused: the formula is
    evaluated as is.

    References
    ----------
    .. [1] The GCUL paper (reference in the module docstring).

    Examples
    --------
    >>> eps, r1, r2 = 0.2, 0.9, 0.05
    >>> rho = eps * r1 + (1 - eps) * r2  # 0.22
    >>> bool(abs(selectivity_at_rate(eps, r1, rho) - selectivity_score(eps, r1, r2)) < 1e-15)
    True
    >>> selectivity_at_rate(0.2, 0.1, 0.26) < 0  # r2 = 0.3 > r1: rejects more correct samples
    True
    >>> selectivity_at_rate(0.2, 0.5, 0.0)
    0.0
    """
    eps_a = as_float_array(eps, "eps", lower=0.0, upper=1.0)
    r1_a = as_float_array(r1, "r1", lower=0.0, upper=1.0)
    rho_a = as_float_array(rho, "rho", lower=0.0, upper=1.0)
    eps_a, r1_a, rho_a = broadcast(eps_a, r1_a, rho_a, names=("eps", "r1", "rho"))
    none = (eps_a <= 0.0) | (rho_a <= 0.0) | (rho_a >= 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        score = eps_a * (r1_a - rho_a) / (rho_a * (1.0 - rho_a))
    return as_output(np.where(none, 0.0, score))
