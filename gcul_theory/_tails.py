r"""Directional tail probabilities: the Gaussian tail (Lemma ``lem:projection_tails``) and
the Chernoff sub-Gaussian tail (Eq. ``eq:chernoff_outlier``) of [1]_.

References
----------
.. [1] The GCUL paper, ``shared/paper/gcul_paper.tex``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import erfc

from ._validation import as_float_array, as_output, broadcast

__all__ = ["gaussian_tail", "chernoff_tail"]

_TWO_SQRT_TWO = 2.0 * np.sqrt(2.0)


def _validate(D: ArrayLike, sigma: ArrayLike) -> list[np.ndarray]:
    D_a = as_float_array(D, "D", lower=0.0)
    sigma_a = as_float_array(sigma, "sigma", lower=0.0)
    return broadcast(D_a, sigma_a, names=("D", "sigma"))


def _gaussian_tail(D: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    # x = D / (2√2 σ); σ = 0 with D > 0 is a point mass inside the boundary (x = ∞, tail 0);
    # D = 0 puts the boundary through the centre (x = 0, tail ½) whatever σ is.
    x = np.full(np.broadcast(D, sigma).shape, np.inf)
    np.divide(D, _TWO_SQRT_TWO * sigma, out=x, where=sigma > 0.0)
    x = np.where(D == 0.0, 0.0, x)
    return 0.5 * erfc(x)


def _chernoff_tail(D: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    exponent = np.full(np.broadcast(D, sigma).shape, np.inf)
    np.divide(D * D, 8.0 * sigma * sigma, out=exponent, where=sigma > 0.0)
    exponent = np.where(D == 0.0, 0.0, exponent)
    return np.exp(-exponent)


def gaussian_tail(D: ArrayLike, sigma: ArrayLike) -> float | np.ndarray:
    r"""Gaussian tail beyond the Voronoi midpoint, :math:`\tfrac12\operatorname{erfc}(D/(2\sqrt2\sigma))`.

    The probability that a :math:`\mathcal N(0, \sigma^2)` projection exceeds :math:`D/2`:
    the boundary loss :math:`p_c^{loss}` (with :math:`\sigma = \sigma_{mix,c}`) and the
    contamination :math:`q_c^{contam}` (with :math:`\sigma = \sigma_c`).

    Parameters
    ----------
    D : array_like
        Centroid distance :math:`D_c \ge 0`.
    sigma : array_like
        Directional standard deviation :math:`\sigma \ge 0`.

    Returns
    -------
    float or ndarray
        Tail probability in :math:`[0, \tfrac12]`, broadcast over the inputs.

    Notes
    -----
    Eqs. (``eq:p_loss_exact``) and (``eq:q_contam_exact``), Lemma ``lem:projection_tails`` of [1]_:

    .. math::

        \frac12\left[1 - \operatorname{erf}\left(\frac{D}{2\sqrt2\,\sigma}\right)\right]
        = \frac12 \operatorname{erfc}\left(\frac{D}{2\sqrt2\,\sigma}\right)
        = \Phi\left(-\frac{D}{2\sigma}\right).

    Computed with ``scipy.special.erfc``, never ``1 - erf``, so deep tails keep full relative
    accuracy (``1 - erf`` is exactly 0 beyond :math:`D/\sigma \approx 17`).
    Edge cases: :math:`D = 0` gives :math:`\tfrac12` for every :math:`\sigma` (the boundary
    passes through the centre); :math:`\sigma = 0 < D` gives 0 (a point mass inside the cell).
    NaN, inf and negative inputs raise ``ValueError``.

    References
    ----------
    .. [1] The GCUL paper, ``shared/paper/gcul_paper.tex``.

    Examples
    --------
    At :math:`D = 2\sigma` the midpoint is one standard deviation away: :math:`\Phi(-1)`.

    >>> from scipy.stats import norm
    >>> from gcul_theory import gaussian_tail
    >>> bool(abs(gaussian_tail(2.0, 1.0) - norm.sf(1.0)) < 1e-16)
    True
    >>> gaussian_tail(0.0, 3.0)
    0.5
    """
    D_a, sigma_a = _validate(D, sigma)
    return as_output(_gaussian_tail(D_a, sigma_a))


def chernoff_tail(D: ArrayLike, sigma: ArrayLike) -> float | np.ndarray:
    r"""Chernoff (sub-Gaussian) bound on the tail beyond :math:`D/2`, :math:`\exp(-D^2/(8\sigma^2))`.

    Parameters
    ----------
    D : array_like
        Centroid distance :math:`D_c \ge 0`.
    sigma : array_like
        Sub-Gaussian variance proxy, as a standard deviation :math:`\sigma \ge 0`.

    Returns
    -------
    float or ndarray
        The bound :math:`\eta \in [0, 1]`; it dominates :func:`gaussian_tail` everywhere.

    Notes
    -----
    Eq. (``eq:chernoff_outlier``) of [1]_, from minimising :math:`-tD/2 + t^2\sigma^2/2`
    over :math:`t > 0` at :math:`t^* = D/(2\sigma^2)`:

    .. math:: \eta_{outlier,c} \le \exp\left(-\frac{D_c^2}{8\sigma_{mix,c}^2}\right)

    Edge cases: :math:`D = 0` gives 1; :math:`\sigma = 0 < D` gives 0.

    References
    ----------
    .. [1] The GCUL paper, ``shared/paper/gcul_paper.tex``.

    Examples
    --------
    >>> import math
    >>> from gcul_theory import chernoff_tail, gaussian_tail
    >>> chernoff_tail(4.0, 1.0) == math.exp(-2.0)
    True
    >>> bool(chernoff_tail(4.0, 1.0) >= gaussian_tail(4.0, 1.0))
    True
    """
    D_a, sigma_a = _validate(D, sigma)
    return as_output(_chernoff_tail(D_a, sigma_a))
