r"""Rate bounds r̂1, r̂2, the critical cost λ*_PRE and the structural existence confidence.

Theorems ``thm:global_rate_bounds``, ``thm:gcul_effectiveness_sufficient_condition`` and
``thm:r1_rigorous`` and Corollary ``cor:attractor_properties`` of [1]_.

``method`` names a predictor of the registry :data:`~gcul_theory.PREDICTORS` (module
``gcul_theory._predictors``, which documents the model and each guarantee):

* the paper's printed bounds, kept to reproduce its tables and NOT valid lower bounds on the
  capture rate (errata ``global_rate_bounds.r1_bound`` and ``r1_rigorous.loss_cover`` of the
  package's ``proofs``): ``"gaussian"`` (:math:`p_c^{loss}` alone, Theorem
  ``thm:global_rate_bounds``; an *upper* bound on :math:`E[r_1]` with more than one class),
  ``"union"`` (:math:`p_c^{loss} + \exp(-D_c^2/(8\sigma_{mix,c}^2))`, Theorem ``thm:r1_rigorous``;
  fails from C = 8 classes at :math:`D/\sigma = 4`: with C = 20, :math:`E[r_1] = 0.631 < 0.842`),
  ``"chernoff"`` (the Chernoff term alone);
* valid lower bounds on :math:`E[r_1]` under the single-attractor Gaussian model: ``"boole"``
  (:math:`1 - \sum_c p_c`), ``"hunter_worsley"`` (Boole plus the pairwise intersections along a
  maximum spanning tree);
* the model value ``"gaussian_exact"`` (the multivariate-normal orthant probability).

The default, :data:`~gcul_theory.DEFAULT_METHOD` = ``"hunter_worsley"``, is the tightest valid
bound; it needs ``Geometry.corr_mix``, which :func:`~gcul_theory.estimate_geometry` always fills
(a Geometry built without it is refused with a ``ValueError`` naming ``corr_mix``, and
``method="boole"`` needs nothing beyond the per-class geometry). On the synthetic sweep (410
cells, λ = 0.15; the benchmark ``benchmarks/predictor_sweep.py``) neither has a Type-II
violation (union: 0, gaussian: 208), with Type-I 94 ("boole") and 69 ("hunter_worsley") against
the union bound's 62.

References
----------
.. [1] The GCUL paper, "Ambiguity identification in text emotion classification via
   cluster-guided learning".
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._geometry import Geometry
from ._predictors import DEFAULT_METHOD, METHODS, capture, contamination, critical
from ._tails import chernoff_tail_unchecked
from ._validation import as_float_array, as_output, broadcast, check_method

__all__ = [
    "METHODS",
    "capture_rate_bound",
    "contamination_rate_bound",
    "critical_lambda",
    "critical_lambda_from_rates",
    "structural_existence_confidence",
]


def _check_geometry(geometry: object) -> Geometry:
    if not isinstance(geometry, Geometry):
        raise TypeError(
            f"geometry must be a gcul_theory.Geometry (see estimate_geometry); got {type(geometry).__name__}"
        )
    return geometry


def _check_predictor_inputs(geometry: object, method: object) -> tuple[Geometry, str]:
    """The checks of the functions that take a geometry and a predictor name in METHODS."""
    return _check_geometry(geometry), check_method(method, METHODS)


def capture_rate_bound(geometry: Geometry, method: str = DEFAULT_METHOD) -> float | np.ndarray:
    r"""Capture rate :math:`\hat r_1` of a predictor: a lower bound on :math:`E[r_1]` if it is valid.

    Parameters
    ----------
    geometry : Geometry
        Error-pool geometry, e.g. from :func:`estimate_geometry`.
    method : str, default DEFAULT_METHOD ("hunter_worsley")
        A name in :data:`METHODS` (the registry :data:`~gcul_theory.PREDICTORS` says which are
        valid). "hunter_worsley" and "gaussian_exact" need ``geometry.corr_mix``: without it
        they raise ``ValueError`` (use ``method="boole"``, the valid bound that needs no
        correlations).

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
    ``proofs`` records that, with more than one class cell, these are not lower bounds on
    :math:`E[r_1]` as the paper states (errata ``global_rate_bounds.r1_bound`` and
    ``r1_rigorous.loss_cover``). The valid ones, with :math:`p_c = \tfrac12\operatorname{erfc}(
    D_c/(2\sqrt2\sigma_{mix,c}))` and :math:`q_{cc'}` the probability of crossing both
    boundaries c and c' (bivariate normal, correlation ``corr_mix``):

    .. math::

        \hat r_1^{boole} = 1 - \sum_c p_c, \qquad
        \hat r_1^{HW} = 1 - \Big[\sum_c p_c - \max_{T} \sum_{(c,c') \in T} q_{cc'}\Big]

    (T ranges over spanning trees of the classes). A value below 0 is a vacuous lower bound and
    is clipped to 0. With no errors (:math:`\varepsilon = 0`) :math:`r_1` is undefined and the
    vacuous bound 0 is returned.

    References
    ----------
    .. [1] The GCUL paper, "Ambiguity identification in text emotion classification via
       cluster-guided learning".

    Examples
    --------
    >>> from gcul_theory import Geometry, capture_rate_bound, gaussian_tail
    >>> g = Geometry(eps=0.1, pi=[0.5, 0.5], eps_c=[0.1, 0.1], D=[4.0, 4.0],
    ...              sigma_mix=[1.0, 1.0], sigma_c=[1.0, 1.0])
    >>> capture_rate_bound(g, "gaussian") == 1 - gaussian_tail(4.0, 1.0)
    True
    >>> bool(capture_rate_bound(g, "union") < capture_rate_bound(g, "chernoff"))
    True
    >>> capture_rate_bound(g, "boole") == 1 - 2 * gaussian_tail(4.0, 1.0)
    True
    >>> capture_rate_bound(g)  # the default, "hunter_worsley", needs corr_mix
    Traceback (most recent call last):
    ...
    ValueError: method "hunter_worsley" needs the correlations of the error pool's projections, ...

    With orthogonal class directions and an isotropic pool the two projections are
    independent, and "hunter_worsley" is exact for two classes: :math:`(1 - p)^2`.

    >>> g = Geometry(eps=0.1, pi=[0.5, 0.5], eps_c=[0.1, 0.1], D=[4.0, 4.0],
    ...              sigma_mix=[1.0, 1.0], sigma_c=[1.0, 1.0], corr_mix=[[1, 0], [0, 1]])
    >>> bool(abs(capture_rate_bound(g) - (1 - gaussian_tail(4.0, 1.0)) ** 2) < 1e-15)
    True
    """
    geometry, method = _check_predictor_inputs(geometry, method)
    return as_output(capture(geometry, method))


def contamination_rate_bound(
    geometry: Geometry, method: str = DEFAULT_METHOD
) -> float | np.ndarray:
    r"""Upper bound :math:`\hat r_2` on the clean contamination rate :math:`r_2`.

    Parameters
    ----------
    geometry : Geometry
        Error-pool geometry, e.g. from :func:`estimate_geometry`.
    method : str, default DEFAULT_METHOD ("hunter_worsley")
        A name in :data:`METHODS`. The paper's three use the paper's :math:`\hat r_2`; the others
        add the attractor's chance-correct samples (below). It needs no ``corr_mix``.

    Returns
    -------
    float or ndarray
        :math:`\hat r_2 \in [0, 1]`, one value per geometry.

    Notes
    -----
    Eq. (``eq:r2_hat``) of [1]_, for "gaussian", "union" and "chernoff":

    .. math::

        \hat r_2 = \frac{1}{1-\varepsilon} \sum_c \pi_c \cdot \tfrac12
        \operatorname{erfc}\left(\frac{D_c}{2\sqrt2\sigma_c}\right)

    It bounds only the clean class cores. The attractor also yields correctly classified samples
    (phase 1 right by chance), which K-Means puts in the attractor's cell; if the attractor's
    labels are uniform over the C classes and independent of phase 1, each error comes with
    :math:`1/(C-1)` of them in expectation, so the other methods add
    :math:`\varepsilon/(C-1)` to the sum: an upper bound on :math:`E[r_2]` under that model.

    Clipped to 1 (an upper bound above 1 is vacuous; ``proofs`` erratum
    ``sufficient_condition.domain`` shows the unclipped value can exceed 1). With no correct
    sample (:math:`\varepsilon = 1`) :math:`r_2` is undefined and the vacuous bound 1 is returned;
    with no error (:math:`\varepsilon = 0`) there is no attractor and the result is 0.

    References
    ----------
    .. [1] The GCUL paper, "Ambiguity identification in text emotion classification via
       cluster-guided learning".

    Examples
    --------
    >>> from gcul_theory import Geometry, contamination_rate_bound, gaussian_tail
    >>> g = Geometry(eps=0.1, pi=[0.5, 0.5], eps_c=[0.1, 0.1], D=[4.0, 4.0],
    ...              sigma_mix=[1.0, 1.0], sigma_c=[1.0, 1.0])
    >>> bool(abs(contamination_rate_bound(g, "union") - gaussian_tail(4.0, 1.0) / 0.9) < 1e-15)
    True
    >>> bool(abs(contamination_rate_bound(g) - (gaussian_tail(4.0, 1.0) + 0.1) / 0.9) < 1e-15)
    True
    """
    geometry, method = _check_predictor_inputs(geometry, method)
    return as_output(contamination(geometry, method))


def critical_lambda(geometry: Geometry, method: str = DEFAULT_METHOD) -> float | np.ndarray:
    r"""Predicted critical rejection cost :math:`\lambda^*_{PRE} = \max(0, S_{GCUL}(\hat r_1, \hat r_2))`.

    Rejecting at cost :math:`\lambda` is predicted to pay when :math:`\lambda^*_{PRE} > \lambda`.

    Parameters
    ----------
    geometry : Geometry
        Error-pool geometry, e.g. from :func:`estimate_geometry`.
    method : str, default DEFAULT_METHOD ("hunter_worsley")
        The predictor (see :func:`capture_rate_bound`). The default, "hunter_worsley", is the
        tightest valid bound and needs ``geometry.corr_mix`` (which :func:`estimate_geometry`
        fills; without it, ``ValueError``); "boole" is the valid bound that needs no more than
        the per-class geometry; the paper's printed bounds ("gaussian", "union", "chernoff")
        are not valid lower bounds and are kept to reproduce the paper.

    Returns
    -------
    float or ndarray
        :math:`\lambda^*_{PRE} \in [0, 1]`, one value per geometry.

    Notes
    -----
    Theorem ``thm:gcul_effectiveness_sufficient_condition`` of [1]_: by monotonicity,
    :math:`S(r_1, r_2) \ge S(\hat r_1, \hat r_2) = \lambda^*` when :math:`r_1 \ge \hat r_1` and
    :math:`r_2 \le \hat r_2`, so :math:`\lambda^* > \lambda` is sufficient for
    :math:`U(\lambda) > 0` (for the expected rates, and only for a valid ``method``; see
    :func:`~gcul_theory.finite_sample_lambda` for one finite sample). Defined values: 0 when
    :math:`\hat r_2 \ge \hat r_1` (no selectivity is certified; the score would be
    :math:`\le 0`), and 0 when :math:`\varepsilon \in \{0, 1\}` (no errors to reject, or no
    correct sample to keep). :func:`critical_lambda_from_rates` does this last step alone.

    References
    ----------
    .. [1] The GCUL paper, "Ambiguity identification in text emotion classification via
       cluster-guided learning".

    Examples
    --------
    Well separated classes (orthogonal directions, isotropic pool: ``corr_mix`` the identity):
    the paper's bounds are nearly perfect and :math:`\lambda^*` is near 1; the valid default
    also charges the attractor's chance-correct samples (:math:`\hat r_2 = (0.1/(C-1))/0.9`).

    >>> from gcul_theory import Geometry, critical_lambda, selectivity_score
    >>> g = Geometry(eps=0.1, pi=[0.5, 0.5], eps_c=[0.1, 0.1], D=[20.0, 20.0],
    ...              sigma_mix=[1.0, 1.0], sigma_c=[1.0, 1.0], corr_mix=[[1, 0], [0, 1]])
    >>> round(critical_lambda(g, "union"), 6)
    1.0
    >>> bool(abs(critical_lambda(g) - selectivity_score(0.1, 1.0, 0.1 / 0.9)) < 1e-12)
    True
    >>> g = Geometry(eps=0.1, pi=[0.5, 0.5], eps_c=[0.1, 0.1], D=[1.0, 1.0],
    ...              sigma_mix=[1.0, 1.0], sigma_c=[1.0, 1.0], corr_mix=[[1, 0], [0, 1]])
    >>> critical_lambda(g, "boole")
    0.0
    >>> round(critical_lambda(g), 4)  # the default also counts errors lost across both boundaries
    0.0088
    """
    geometry, method = _check_predictor_inputs(geometry, method)
    r1 = capture(geometry, method)
    r2 = contamination(geometry, method)
    return as_output(critical(geometry.eps, r1, r2))


def critical_lambda_from_rates(
    eps: ArrayLike, r1_hat: ArrayLike, r2_hat: ArrayLike
) -> float | np.ndarray:
    r"""Critical cost :math:`\lambda^*_{PRE}` from given rates :math:`\varepsilon, \hat r_1, \hat r_2`.

    What :func:`critical_lambda` does after it has computed :math:`\hat r_1` and
    :math:`\hat r_2`: for a caller that computes the rates once (e.g. one :math:`\hat r_2`
    shared by several predictors, or an expensive "gaussian_exact" :math:`\hat r_1`) and
    combines them, with the same result to the bit.

    Parameters
    ----------
    eps : array_like
        Base error :math:`\varepsilon \in [0, 1]`.
    r1_hat : array_like
        Capture rate :math:`\hat r_1 \in [0, 1]` (e.g. :func:`capture_rate_bound`).
    r2_hat : array_like
        Contamination rate :math:`\hat r_2 \in [0, 1]` (e.g. :func:`contamination_rate_bound`).

    Returns
    -------
    float or ndarray
        :math:`\lambda^*_{PRE} \in [0, 1]`, broadcast over the inputs.

    Raises
    ------
    TypeError, ValueError
        For arguments that are not real numbers, are NaN or infinite, lie outside [0, 1], or do
        not broadcast; the message names the argument.

    Notes
    -----
    Theorem ``thm:gcul_effectiveness_sufficient_condition`` of [1]_ with Eq.
    (``eq:selectivity_score``):

    .. math::

        \lambda^*_{PRE} = \max\left(0, \frac{\varepsilon(1-\varepsilon)(\hat r_1 - \hat r_2)}
        {\rho(1-\rho)}\right), \qquad \rho = \varepsilon\hat r_1 + (1-\varepsilon)\hat r_2 .

    Defined values, as :func:`critical_lambda`: 0 when :math:`\hat r_2 \ge \hat r_1` (no
    selectivity is certified) and 0 when :math:`\varepsilon \in \{0, 1\}`. Unlike
    :func:`selectivity_score`, :math:`\hat r_2 > \hat r_1` is not an error: a pessimistic
    contamination bound may exceed the capture bound.

    References
    ----------
    .. [1] The GCUL paper, "Ambiguity identification in text emotion classification via
       cluster-guided learning".

    Examples
    --------
    >>> from gcul_theory import (Geometry, capture_rate_bound, contamination_rate_bound,
    ...                          critical_lambda, critical_lambda_from_rates)
    >>> g = Geometry(eps=0.1, pi=[0.5, 0.5], eps_c=[0.1, 0.1], D=[4.0, 4.0],
    ...              sigma_mix=[1.0, 1.0], sigma_c=[1.0, 1.0])
    >>> r1, r2 = capture_rate_bound(g, "union"), contamination_rate_bound(g, "union")
    >>> critical_lambda_from_rates(0.1, r1, r2) == critical_lambda(g, "union")
    True
    >>> critical_lambda_from_rates(0.1, 0.2, 0.3)  # r2_hat > r1_hat: nothing certified
    0.0
    """
    eps_a = as_float_array(eps, "eps", lower=0.0, upper=1.0)
    r1_a = as_float_array(r1_hat, "r1_hat", lower=0.0, upper=1.0)
    r2_a = as_float_array(r2_hat, "r2_hat", lower=0.0, upper=1.0)
    eps_a, r1_a, r2_a = broadcast(eps_a, r1_a, r2_a, names=("eps", "r1_hat", "r2_hat"))
    return as_output(critical(eps_a, r1_a, r2_a))


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
    .. [1] The GCUL paper, "Ambiguity identification in text emotion classification via
       cluster-guided learning".

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
    tails = chernoff_tail_unchecked(geometry.D, geometry.sigma_mix)
    outliers = (geometry.weights * tails).sum(axis=-1)
    # Exactly, the weights sum to 1 and each tail is in [0, 1], so 1 - outliers is in [0, 1];
    # the weights' sum may exceed 1 by the rounding Geometry tolerates, and the clip undoes it.
    return as_output(np.where(geometry.eps > 0.0, np.clip(1.0 - outliers, 0.0, 1.0), 1.0))
