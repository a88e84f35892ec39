r"""Chow's per-sample utility of a selective classifier, beside the paper's utility U(λ).

The paper (section ``subsec:selectivity_score``, "Operational risk & utility gain", of [1]_)
scores a selective classifier by

.. math:: \mathcal U(\lambda) = \varepsilon - \varepsilon_{sel} - \lambda\rho ,

with ε the base error, ε_sel the error rate *among accepted samples* and ρ the rejection rate.
The cost actually paid per sample, at η1 per accepted error and η2 = λη1 per rejection, is
:math:`\eta_1[(1-\rho)\varepsilon_{sel} + \lambda\rho]` (Chow [2]_), so the per-sample gain over
the base classifier is

.. math:: \mathcal U_{joint}(\lambda) = \varepsilon - (1-\rho)\,\varepsilon_{sel} - \lambda\rho
          = \mathcal U(\lambda) + \rho\,\varepsilon_{sel} .

:math:`\mathcal U_{joint}` is maximised, sample by sample, by Chow's rule (accept iff the
largest posterior is at least :math:`1 - \lambda`); :math:`\mathcal U` is not a risk and its
maximiser differs (``proofs`` claim ``joint_utility.maximiser``). Both are reported wherever
methods are compared.

References
----------
.. [1] "Ambiguity identification in text emotion classification via cluster-guided learning"
   (the GCUL paper).
.. [2] C. K. Chow, "On optimum recognition error and reject tradeoff", IEEE Trans. Inf. Theory
   16 (1970).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._validation import as_float_array, as_output, broadcast

__all__ = ["joint_utility"]


def joint_utility(
    lam: ArrayLike, eps: ArrayLike, selective_error: ArrayLike, rejection_rate: ArrayLike
) -> float | np.ndarray:
    r"""Chow's per-sample utility gain :math:`\varepsilon - (1-\rho)\varepsilon_{sel} - \lambda\rho`.

    Parameters
    ----------
    lam : array_like
        Relative rejection cost :math:`\lambda = \eta_2/\eta_1 \in [0, 1)` (Assumption
        ``ass:error_cost``), as in :func:`gcul_theory.utility`.
    eps : array_like
        Base error rate :math:`\varepsilon \in [0, 1]` on the evaluation set.
    selective_error : array_like
        Error rate :math:`\varepsilon_{sel} \in [0, 1]` among the accepted samples (0 when
        nothing is accepted, the convention of
        :func:`gcul_theory.selective_risk_at_coverage`).
    rejection_rate : array_like
        Share :math:`\rho \in [0, 1]` of samples rejected.

    Returns
    -------
    float or ndarray
        :math:`\mathcal U_{joint}(\lambda) \in [-1, 1]`, broadcast over the inputs; positive when
        the selective classifier's per-sample cost is below the base classifier's.

    Raises
    ------
    TypeError
        If an argument is not real-valued numeric data.
    ValueError
        If an argument is NaN, infinite or out of its range, or the shapes do not broadcast.

    Notes
    -----
    .. math::

        \mathcal U_{joint}(\lambda) = \varepsilon - (1-\rho)\,\varepsilon_{sel} - \lambda\rho
        = \mathcal U(\lambda) + \rho\,\varepsilon_{sel},

    with :math:`\mathcal U(\lambda) = \varepsilon - \varepsilon_{sel} - \lambda\rho` the paper's
    utility (section ``subsec:selectivity_score`` of [1]_). :math:`(1-\rho)\varepsilon_{sel}` is
    the share of evaluation samples that are accepted *and* wrong (the joint error), so
    :math:`\mathcal U_{joint}` is the per-sample cost saving in units of η1 (Chow's risk). Per
    sample, rejecting a sample whose prediction is wrong with probability :math:`e` changes the
    gain by :math:`e - \lambda`, so Chow's rule (reject iff :math:`e > \lambda`, i.e. accept iff
    the largest posterior is :math:`\ge 1 - \lambda`) maximises it; the paper's :math:`\mathcal U`
    divides the accepted errors by :math:`1 - \rho` and is maximised elsewhere (``proofs`` claim
    ``joint_utility.maximiser``). Rejecting everything (:math:`\rho = 1`) gives
    :math:`\varepsilon - \lambda` under both; rejecting nothing gives
    :math:`\varepsilon - \varepsilon_{sel}`. In terms of the paper's rates,
    :math:`\mathcal U_{joint} = \varepsilon r_1 - \lambda\rho` (``proofs.joint_utility_expr``).

    Range: :math:`\mathcal U_{joint} \le \varepsilon \le 1` and, since :math:`\lambda < 1`,
    :math:`(1-\rho)\varepsilon_{sel} + \lambda\rho \le 1`. Computed as written: :math:`1 - \rho`
    and the two products carry one rounding each, so the result is within
    :math:`4u\,(\varepsilon + (1-\rho)\varepsilon_{sel} + \lambda\rho)` of the exact value
    (:math:`u = 2^{-53}`).

    References
    ----------
    .. [1] The GCUL paper (reference in the module docstring).
    .. [2] Chow (1970), see the module docstring.

    Examples
    --------
    A rejector that keeps 70% of the samples with 10% error among them, from a 31% base error:

    >>> from gcul_theory import joint_utility
    >>> round(joint_utility(0.15, 0.31, 0.1, 0.3), 12)  # 0.31 - 0.7*0.1 - 0.15*0.3
    0.195
    >>> round(0.31 - 0.1 - 0.15 * 0.3, 12)  # the paper's U, lower by rho * eps_sel = 0.03
    0.165
    >>> joint_utility(0.15, 0.31, 0.0, 1.0)  # reject everything: eps - lam under both
    0.16
    """
    lam_a = as_float_array(lam, "lam", lower=0.0, upper=1.0, upper_open=True)
    eps_a = as_float_array(eps, "eps", lower=0.0, upper=1.0)
    sel_a = as_float_array(selective_error, "selective_error", lower=0.0, upper=1.0)
    rho_a = as_float_array(rejection_rate, "rejection_rate", lower=0.0, upper=1.0)
    lam_a, eps_a, sel_a, rho_a = broadcast(
        lam_a, eps_a, sel_a, rho_a, names=("lam", "eps", "selective_error", "rejection_rate")
    )
    return as_output(eps_a - (1.0 - rho_a) * sel_a - lam_a * rho_a)
