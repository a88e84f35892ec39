r"""Rejection rate, clean error, utility U(λ), selectivity score S_GCUL and λ*_EMP.

Section "Selectivity score and monotonicity" (``subsec:selectivity_score``) of [1]_.

References
----------
.. [1] "Ambiguity identification in text emotion classification via cluster-guided
   learning" (the GCUL paper), ``shared/paper/gcul_paper.tex``.
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
    "empirical_lambda",
]


def _validate_rates(eps: ArrayLike, r1: ArrayLike, r2: ArrayLike) -> list[np.ndarray]:
    eps_a = as_float_array(eps, "eps", lower=0.0, upper=1.0, lower_open=True, upper_open=True)
    r1_a = as_float_array(r1, "r1", lower=0.0, upper=1.0)
    r2_a = as_float_array(r2, "r2", lower=0.0, upper=1.0)
    return broadcast(eps_a, r1_a, r2_a, names=("eps", "r1", "r2"))


def _rejection_rate(eps: np.ndarray, r1: np.ndarray, r2: np.ndarray) -> np.ndarray:
    return eps * r1 + (1.0 - eps) * r2


def _clean_error(eps: np.ndarray, r1: np.ndarray, r2: np.ndarray) -> np.ndarray:
    rho = _rejection_rate(eps, r1, r2)
    accepted = 1.0 - rho
    out = np.zeros(np.broadcast(eps, r1, r2).shape)
    # rho == 1 only when r1 == r2 == 1: nothing is accepted, so no accepted sample errs.
    np.divide(eps * (1.0 - r1), accepted, out=out, where=accepted > 0.0)
    return out


def _selectivity(eps: np.ndarray, r1: np.ndarray, r2: np.ndarray) -> np.ndarray:
    rho = _rejection_rate(eps, r1, r2)
    denominator = rho * (1.0 - rho)
    numerator = eps * (1.0 - eps) * (r1 - r2)
    out = np.zeros(np.broadcast(eps, r1, r2).shape)
    np.divide(numerator, denominator, out=out, where=denominator > 0.0)
    # rho == 1 (r1 == r2 == 1): U(λ) = ε - λ, so S = ε keeps S > λ ⟺ U(λ) > 0.
    return np.where(rho >= 1.0, eps, out)


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

    References
    ----------
    .. [1] The GCUL paper, ``shared/paper/gcul_paper.tex``.

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
    .. math:: \varepsilon_{clean} = \frac{\varepsilon (1 - r_1)}{1 - \rho}

    Section ``subsec:selectivity_score`` of [1]_. Edge case: :math:`\rho = 1` happens only
    for :math:`r_1 = r_2 = 1`; then nothing is accepted and the result is defined as 0 (no
    accepted sample is misclassified).

    References
    ----------
    .. [1] The GCUL paper, ``shared/paper/gcul_paper.tex``.

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
        :math:`U(\lambda)`; positive when rejecting pays.

    Notes
    -----
    .. math:: U(\lambda) = \varepsilon - \varepsilon_{clean} - \lambda \rho

    Section ``subsec:selectivity_score`` of [1]_. At :math:`\rho = 1` the clean error is 0
    (see :func:`clean_error`), so :math:`U(\lambda) = \varepsilon - \lambda`.

    References
    ----------
    .. [1] The GCUL paper, ``shared/paper/gcul_paper.tex``.

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
    rho = _rejection_rate(eps_a, r1_a, r2_a)
    return as_output(eps_a - _clean_error(eps_a, r1_a, r2_a) - lam_a * rho)


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

    computed in the second (factored) form; ``proofs`` shows the two are equal. For
    :math:`0 < \rho < 1`, :math:`S > \lambda \iff U(\lambda) > 0` (appendix
    ``app:criterion_derivation``). Edge cases, chosen so that the equivalence holds on the
    closed domain: :math:`\rho = 0` (:math:`r_1 = r_2 = 0`, nothing rejected, :math:`U \equiv 0`)
    gives 0; :math:`\rho = 1` (:math:`r_1 = r_2 = 1`, everything rejected,
    :math:`U(\lambda) = \varepsilon - \lambda`) gives :math:`\varepsilon`.

    References
    ----------
    .. [1] The GCUL paper, ``shared/paper/gcul_paper.tex``.

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
            "selectivity_score requires r2 <= r1 (Theorem thm:monotonicity); got "
            f"r1={r1_a[tuple(index)]!r}, r2={r2_a[tuple(index)]!r}"
        )
    return as_output(_selectivity(eps_a, r1_a, r2_a))


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
        :math:`\lambda^*_{EMP}`; may be negative when rejecting makes the accepted error worse.

    Notes
    -----
    .. math:: \lambda^*_{EMP} = \frac{\varepsilon - \varepsilon_{sel}}{\rho}

    The empirical utility :math:`\varepsilon - \varepsilon_{sel} - \lambda\rho` is positive
    iff :math:`\lambda < \lambda^*_{EMP}` (metric "EMP λ*" of ``tab:metrics`` in [1]_).
    Edge case: :math:`\rho = 0` (nothing rejected, utility identically 0) gives 0.

    References
    ----------
    .. [1] The GCUL paper, ``shared/paper/gcul_paper.tex``.

    Examples
    --------
    The paper's σ = 0 row of ``tab:synthetic_gcul``: base 86.50%, selective 100%, rejection
    16.54%, so :math:`\lambda^*_{EMP} = 0.135/0.1654 \approx 0.82`:

    >>> from gcul_theory import empirical_lambda
    >>> round(empirical_lambda(0.135, 0.0, 0.1654), 2)
    0.82
    """
    eps_a = as_float_array(base_error, "base_error", lower=0.0, upper=1.0)
    sel_a = as_float_array(selective_error, "selective_error", lower=0.0, upper=1.0)
    rho_a = as_float_array(rejection_rate, "rejection_rate", lower=0.0, upper=1.0)
    eps_a, sel_a, rho_a = broadcast(
        eps_a, sel_a, rho_a, names=("base_error", "selective_error", "rejection_rate")
    )
    out = np.zeros(eps_a.shape)
    np.divide(eps_a - sel_a, rho_a, out=out, where=rho_a > 0.0)
    return as_output(out)
