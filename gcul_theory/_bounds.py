r"""Rate bounds r̂1, r̂2, the critical cost λ*_PRE and the structural existence confidence.

Theorems ``thm:global_rate_bounds``, ``thm:gcul_effectiveness_sufficient_condition`` and
``thm:r1_rigorous`` and Corollary ``cor:attractor_properties`` of [1]_.

``method`` selects the tail that bounds the per-class boundary loss in :math:`\hat r_1`:

* ``"gaussian"``: :math:`p_c^{loss}` alone (Theorem ``thm:global_rate_bounds``, erf only);
* ``"union"``: :math:`p_c^{loss} + \exp(-D_c^2/(8\sigma_{mix,c}^2))` (Theorem
  ``thm:r1_rigorous``, the paper's conservative bound);
* ``"chernoff"``: the Chernoff term alone.

:math:`\hat r_2` always uses the Gaussian tail (the paper gives no other bound on it).

References
----------
.. [1] The GCUL paper, ``shared/paper/gcul_paper.tex``.
"""

from __future__ import annotations

import numpy as np

from ._geometry import Geometry
from ._selectivity import _selectivity
from ._tails import _chernoff_tail, _gaussian_tail
from ._validation import as_output, check_method

__all__ = [
    "METHODS",
    "capture_rate_bound",
    "contamination_rate_bound",
    "critical_lambda",
    "structural_existence_confidence",
]

METHODS: tuple[str, ...] = ("gaussian", "union", "chernoff")


def _check_geometry(geometry: object) -> Geometry:
    if not isinstance(geometry, Geometry):
        raise TypeError(
            f"geometry must be a gcul_theory.Geometry (see estimate_geometry); got {type(geometry).__name__}"
        )
    return geometry


def _loss_tail(geometry: Geometry, method: str) -> np.ndarray:
    if method == "gaussian":
        return _gaussian_tail(geometry.D, geometry.sigma_mix)
    if method == "chernoff":
        return _chernoff_tail(geometry.D, geometry.sigma_mix)
    return _gaussian_tail(geometry.D, geometry.sigma_mix) + _chernoff_tail(
        geometry.D, geometry.sigma_mix
    )


def _capture(geometry: Geometry, method: str) -> np.ndarray:
    loss = (geometry.weights * _loss_tail(geometry, method)).sum(axis=-1)
    r1 = np.clip(1.0 - loss, 0.0, 1.0)
    return np.where(geometry.eps > 0.0, r1, 0.0)


def _contamination(geometry: Geometry) -> np.ndarray:
    contaminated = (geometry.pi * _gaussian_tail(geometry.D, geometry.sigma_c)).sum(axis=-1)
    clean_share = 1.0 - geometry.eps
    r2 = np.ones(clean_share.shape)
    np.divide(contaminated, clean_share, out=r2, where=clean_share > 0.0)
    # No error pool means no attractor to capture anything: r2 = 0 exactly.
    return np.where(geometry.eps > 0.0, np.clip(r2, 0.0, 1.0), 0.0)


def capture_rate_bound(geometry: Geometry, method: str = "union") -> float | np.ndarray:
    r"""Lower bound :math:`\hat r_1` on the error capture rate :math:`r_1`.

    Parameters
    ----------
    geometry : Geometry
        Error-pool geometry, e.g. from :func:`estimate_geometry`.
    method : {"gaussian", "union", "chernoff"}, default "union"
        Which tail bounds the boundary loss (module docstring).

    Returns
    -------
    float or ndarray
        :math:`\hat r_1 \in [0, 1]`, one value per geometry.

    Notes
    -----
    With :math:`w_c = \pi_c \varepsilon_c / \varepsilon`, Eq. (``eq:r1_hat``) ("gaussian") and
    Eq. (``eq:r1_rigorous_bound``) ("union") of [1]_:

    .. math::

        \hat r_1 = 1 - \sum_c w_c \left[\tfrac12\operatorname{erfc}\left(
        \frac{D_c}{2\sqrt2\sigma_{mix,c}}\right) + \exp\left(-\frac{D_c^2}{8\sigma_{mix,c}^2}\right)\right]

    (the bracket keeps only its first term for "gaussian", only its second for "chernoff").
    A value below 0 is a vacuous lower bound and is clipped to 0. With no errors
    (:math:`\varepsilon = 0`) :math:`r_1` is undefined and the vacuous bound 0 is returned.
    ``proofs`` records that, with more than one class cell, this is not a lower bound on
    :math:`r_1` as the paper states (errata ``global_rate_bounds.r1_bound`` and
    ``r1_rigorous.loss_cover``).

    References
    ----------
    .. [1] The GCUL paper, ``shared/paper/gcul_paper.tex``.

    Examples
    --------
    >>> from gcul_theory import Geometry, capture_rate_bound, gaussian_tail
    >>> g = Geometry(eps=0.1, pi=[0.5, 0.5], eps_c=[0.1, 0.1], D=[4.0, 4.0],
    ...              sigma_mix=[1.0, 1.0], sigma_c=[1.0, 1.0])
    >>> capture_rate_bound(g, "gaussian") == 1 - gaussian_tail(4.0, 1.0)
    True
    >>> bool(capture_rate_bound(g, "union") < capture_rate_bound(g, "chernoff"))
    True
    """
    geometry = _check_geometry(geometry)
    method = check_method(method, METHODS)
    return as_output(_capture(geometry, method))


def contamination_rate_bound(geometry: Geometry, method: str = "union") -> float | np.ndarray:
    r"""Upper bound :math:`\hat r_2` on the clean contamination rate :math:`r_2`.

    Parameters
    ----------
    geometry : Geometry
        Error-pool geometry, e.g. from :func:`estimate_geometry`.
    method : {"gaussian", "union", "chernoff"}, default "union"
        Accepted for symmetry with :func:`capture_rate_bound` and validated; every method uses
        the Gaussian tail here, as the paper does.

    Returns
    -------
    float or ndarray
        :math:`\hat r_2 \in [0, 1]`, one value per geometry.

    Notes
    -----
    Eq. (``eq:r2_hat``) of [1]_:

    .. math::

        \hat r_2 = \frac{1}{1-\varepsilon} \sum_c \pi_c \cdot \tfrac12
        \operatorname{erfc}\left(\frac{D_c}{2\sqrt2\sigma_c}\right)

    Clipped to 1 (an upper bound above 1 is vacuous; ``proofs`` erratum
    ``sufficient_condition.domain`` shows the unclipped value can exceed 1). With no correct
    sample (:math:`\varepsilon = 1`) :math:`r_2` is undefined and the vacuous bound 1 is returned;
    with no error (:math:`\varepsilon = 0`) there is no attractor and the result is 0.

    References
    ----------
    .. [1] The GCUL paper, ``shared/paper/gcul_paper.tex``.

    Examples
    --------
    >>> from gcul_theory import Geometry, contamination_rate_bound, gaussian_tail
    >>> g = Geometry(eps=0.1, pi=[0.5, 0.5], eps_c=[0.1, 0.1], D=[4.0, 4.0],
    ...              sigma_mix=[1.0, 1.0], sigma_c=[1.0, 1.0])
    >>> bool(abs(contamination_rate_bound(g) - gaussian_tail(4.0, 1.0) / 0.9) < 1e-15)
    True
    """
    geometry = _check_geometry(geometry)
    check_method(method, METHODS)
    return as_output(_contamination(geometry))


def critical_lambda(geometry: Geometry, method: str = "union") -> float | np.ndarray:
    r"""Predicted critical rejection cost :math:`\lambda^*_{PRE} = \max(0, S_{GCUL}(\hat r_1, \hat r_2))`.

    Rejecting at cost :math:`\lambda` is predicted to pay when :math:`\lambda^*_{PRE} > \lambda`.

    Parameters
    ----------
    geometry : Geometry
        Error-pool geometry, e.g. from :func:`estimate_geometry`.
    method : {"gaussian", "union", "chernoff"}, default "union"
        The bound used for :math:`\hat r_1` (see :func:`capture_rate_bound`).

    Returns
    -------
    float or ndarray
        :math:`\lambda^*_{PRE} \in [0, 1]`, one value per geometry.

    Notes
    -----
    Theorem ``thm:gcul_effectiveness_sufficient_condition`` of [1]_: by monotonicity,
    :math:`S(r_1, r_2) \ge S(\hat r_1, \hat r_2) = \lambda^*` when :math:`r_1 \ge \hat r_1` and
    :math:`r_2 \le \hat r_2`, so :math:`\lambda^* > \lambda` is sufficient for
    :math:`U(\lambda) > 0`. Defined values: 0 when :math:`\hat r_2 \ge \hat r_1` (no selectivity
    is certified; the score would be :math:`\le 0`), and 0 when :math:`\varepsilon \in \{0, 1\}`
    (no errors to reject, or no correct sample to keep).

    References
    ----------
    .. [1] The GCUL paper, ``shared/paper/gcul_paper.tex``.

    Examples
    --------
    Well separated classes: the bounds are nearly perfect and :math:`\lambda^*` is near 1.

    >>> from gcul_theory import Geometry, critical_lambda
    >>> g = Geometry(eps=0.1, pi=[0.5, 0.5], eps_c=[0.1, 0.1], D=[20.0, 20.0],
    ...              sigma_mix=[1.0, 1.0], sigma_c=[1.0, 1.0])
    >>> round(critical_lambda(g), 6)
    1.0
    >>> g = Geometry(eps=0.1, pi=[0.5, 0.5], eps_c=[0.1, 0.1], D=[1.0, 1.0],
    ...              sigma_mix=[1.0, 1.0], sigma_c=[1.0, 1.0])
    >>> critical_lambda(g)
    0.0
    """
    geometry = _check_geometry(geometry)
    method = check_method(method, METHODS)
    r1 = _capture(geometry, method)
    r2 = _contamination(geometry)
    eps = geometry.eps
    interior = (eps > 0.0) & (eps < 1.0) & (r1 > r2)
    score = _selectivity(np.where(interior, eps, 0.5), r1, r2)
    return as_output(np.where(interior, np.maximum(score, 0.0), 0.0))


def structural_existence_confidence(geometry: Geometry) -> float | np.ndarray:
    r"""Lower bound on the structural existence confidence :math:`\mathcal S_{exist}`.

    Parameters
    ----------
    geometry : Geometry
        Error-pool geometry, e.g. from :func:`estimate_geometry`.

    Returns
    -------
    float or ndarray
        :math:`1 - \sum_c w_c \exp(-D_c^2/(8\sigma_{mix,c}^2)) \in [0, 1]`.

    Notes
    -----
    Corollary ``cor:attractor_properties`` of [1]_, with :math:`w_c = \pi_c\varepsilon_c/\varepsilon`:

    .. math::

        \mathcal S_{exist} \ge 1 - \sum_c \frac{\pi_c\varepsilon_c}{\varepsilon}
        \exp\left(-\frac{D_c^2}{8\sigma_{mix,c}^2}\right) \to 1
        \quad\text{as } \max_c \sigma_{mix,c}/D_c \to 0.

    With no errors (:math:`\varepsilon = 0`) there is no outlier and the value is 1.

    References
    ----------
    .. [1] The GCUL paper, ``shared/paper/gcul_paper.tex``.

    Examples
    --------
    >>> import math
    >>> from gcul_theory import Geometry, structural_existence_confidence
    >>> g = Geometry(eps=0.1, pi=[0.5, 0.5], eps_c=[0.1, 0.1], D=[4.0, 4.0],
    ...              sigma_mix=[1.0, 1.0], sigma_c=[1.0, 1.0])
    >>> structural_existence_confidence(g) == 1 - math.exp(-2.0)
    True
    """
    geometry = _check_geometry(geometry)
    outliers = (geometry.weights * _chernoff_tail(geometry.D, geometry.sigma_mix)).sum(axis=-1)
    # Exactly, the weights sum to 1 and each tail is in [0, 1], so 1 - outliers is in [0, 1];
    # the weights' sum may exceed 1 by the rounding Geometry tolerates, and the clip undoes it.
    return as_output(np.where(geometry.eps > 0.0, np.clip(1.0 - outliers, 0.0, 1.0), 1.0))
