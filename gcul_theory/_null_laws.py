r"""Laws of calibration outcomes on the null boundary U(λ) = 0, and a sampler of them.

The guarantee of :func:`gcul_theory.certified_lambda` is a statement about laws with
U(λ) ≤ 0: λ*_CERT exceeds λ with probability at most δ. Its worst case is the boundary
U(λ) = 0, where a Monte Carlo check of the guarantee draws its calibration sets. A law of one
calibration sample is six cell probabilities over (rejected, base wrong, selective wrong),

====  ========  ==========  ===============
cell  rejected  base wrong  selective wrong
====  ========  ==========  ===============
0     yes       yes         no
1     yes       no          no
2     no        yes         yes
3     no        yes         no
4     no        no          yes
5     no        no          no
====  ========  ==========  ===============

(a rejected sample is never "accepted and wrong"), and :func:`null_boundary_law` gives the one
with a rejection rate ρ, accepted-sample rates q11, q10, q01 and U(λ) = 0 exactly.
:data:`NULL_BOUNDARY_LAWS` holds the three laws the test suite and the certified bound's studies
use; :func:`draw_calibration_outcomes` draws calibration sets from a law.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._validation import as_float_array, as_float_scalar, as_generator, as_int

__all__ = ["NULL_BOUNDARY_LAWS", "draw_calibration_outcomes", "null_boundary_law"]

NULL_BOUNDARY_LAWS: dict[str, tuple[float, float, float, float]] = {
    "sweep_like": (0.12, 0.42, 0.007, 0.006),
    "small_rho_large_eps_sel": (0.03, 0.47, 0.0346, 0.03),
    "moderate": (0.30, 0.10, 0.02, 0.05),
}
"""``name: (rho, q11, q10, q01)`` of three laws, each on the null boundary U(0.15) = 0 through
:func:`null_boundary_law` (and inside the law's domain for λ up to 0.3 at least): like the
synthetic sweep's transition cells (the accepted base and selective errors nearly coincide), a
small ρ with a large ε_sel, and a moderate law."""

_CELLS = 6
_SUM_TOLERANCE = float(np.sqrt(np.finfo(np.float64).eps))  # numpy's Generator.choice's own


def null_boundary_law(
    rho: float, q11: float, q10: float, q01: float, lam: float = 0.15
) -> np.ndarray:
    r"""The law of one calibration sample with U(λ) = 0 for given accepted-sample rates.

    Parameters
    ----------
    rho : float
        Rejection rate ρ ∈ (0, 1).
    q11, q10, q01 : float
        Among accepted samples: base and selective classifier both wrong (q11), base wrong and
        selective right (q10, the errors rejecting fixes), base right and selective wrong (q01,
        the errors it makes). Each ≥ 0, with q11 + q10 + q01 ≤ 1.
    lam : float, default=0.15
        The relative rejection cost λ ∈ [0, 1) at which U(λ) = 0.

    Returns
    -------
    ndarray of shape (6,)
        The probabilities of the six cells of the module's table, summing to 1.

    Raises
    ------
    TypeError, ValueError
        For an argument outside its range, or rates for which no base error rate among the
        rejected samples puts U(λ) at 0 (the message gives the one needed).

    Notes
    -----
    With b = q11 + q10 the base error and ε_sel = q11 + q01 the selective error among accepted
    samples, the base error among rejected samples is chosen as

    .. math:: a = \lambda + \frac{\varepsilon_{sel} - (1 - \rho)\, b}{\rho} ,

    so that ε = ρa + (1 − ρ)b and U(λ) = ε − ε_sel − λρ = 0 exactly (up to the rounding of a
    dozen terms at most 1 + λ). The law exists when a ∈ [0, 1].

    Examples
    --------
    >>> p = null_boundary_law(0.3, 0.1, 0.02, 0.05)
    >>> rho, eps = p[0] + p[1], p[0] + p[2] + p[3]
    >>> eps_sel = (p[2] + p[4]) / (1 - rho)  # the error among accepted samples
    >>> bool(abs(eps - eps_sel - 0.15 * rho) < 1e-15), round(float(p.sum()), 12)
    (True, 1.0)
    """
    rho = as_float_scalar(rho, "rho", lower=0.0, upper=1.0, lower_open=True, upper_open=True)
    q11, q10, q01 = (as_float_scalar(q, name, lower=0.0, upper=1.0)
                     for q, name in ((q11, "q11"), (q10, "q10"), (q01, "q01")))  # fmt: skip
    lam = as_float_scalar(lam, "lam", lower=0.0, upper=1.0, upper_open=True)
    if q11 + q10 + q01 > 1.0:
        raise ValueError(f"q11 + q10 + q01 must be at most 1; got {q11 + q10 + q01!r}")
    b, eps_sel = q11 + q10, q11 + q01
    a = lam + (eps_sel - (1 - rho) * b) / rho
    if not 0.0 <= a <= 1.0:
        raise ValueError(
            "no law with these rates has U(lam) = 0: the base error among rejected samples "
            f"would be a = lam + (q11 + q01 - (1 - rho)(q11 + q10))/rho = {a!r}, outside [0, 1]"
        )
    q00 = 1.0 - q11 - q10 - q01
    return np.array(
        [rho * a, rho * (1 - a), (1 - rho) * q11, (1 - rho) * q10, (1 - rho) * q01, (1 - rho) * q00]
    )


def draw_calibration_outcomes(
    rng: Any, law: Any, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` iid calibration samples of a law: the indicators :func:`certified_lambda` takes.

    Parameters
    ----------
    rng : None, int, SeedSequence or Generator
        Seeds :func:`numpy.random.default_rng`; a Generator is used as is (its stream advances).
    law : array_like of shape (6,)
        The cell probabilities of the module's table (:func:`null_boundary_law`), each ≥ 0,
        summing to 1 (as :meth:`numpy.random.Generator.choice` requires).
    n : int
        Number of samples, at least 1.

    Returns
    -------
    base_wrong, selective_wrong, rejected : ndarray of bool, shape (n,)
        Per sample: the base classifier is wrong; the selective classifier accepted it and is
        wrong; it is rejected. The three arguments of :func:`gcul_theory.certified_lambda`.

    Raises
    ------
    TypeError, ValueError
        For a bad ``rng``, ``n``, or a ``law`` that is not six non-negative finite
        probabilities summing to 1 (to numpy's tolerance, about 1.5e-8).

    Examples
    --------
    >>> law = null_boundary_law(*NULL_BOUNDARY_LAWS["moderate"])
    >>> base_wrong, selective_wrong, rejected = draw_calibration_outcomes(0, law, 1000)
    >>> bool((selective_wrong & rejected).any()), bool(0.25 < rejected.mean() < 0.35)
    (False, True)
    """
    rng = as_generator(rng)
    n = as_int(n, "n", lower=1)
    p = as_float_array(law, "law", lower=0.0)
    if p.shape != (_CELLS,):
        raise ValueError(f"law must be {_CELLS} probabilities, of shape ({_CELLS},); got {p.shape}")
    if abs(math.fsum(p) - 1.0) > _SUM_TOLERANCE:
        raise ValueError(f"law must sum to 1; its {_CELLS} probabilities sum to {math.fsum(p)!r}")
    cell = rng.choice(_CELLS, size=n, p=p)
    rejected = cell <= 1
    base_wrong = np.isin(cell, (0, 2, 3))
    selective_wrong = np.isin(cell, (2, 4))
    return base_wrong, selective_wrong, rejected
