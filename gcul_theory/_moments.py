r"""Quadratic moments of the error-pool geometry, plug-in or unbiased (for
:func:`~gcul_theory.finite_sample_lambda`).

A :class:`~gcul_theory.Geometry` is made of quadratic forms of the class and error-pool means and
covariances; :func:`quadratic_moments` estimates them (plug-in, or with the unbiased traces of
:func:`covariance_traces` without the upward bias of the noise of the means) and
:func:`geometry_from_moments` turns them back into a Geometry.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._geometry import Geometry, class_means, class_rates, row_blocks

__all__ = [
    "CovarianceTraces",
    "QuadraticMoments",
    "covariance_traces",
    "geometry_from_moments",
    "quadratic_moments",
]


@dataclass(frozen=True, eq=False)
class QuadraticMoments:
    r"""The quadratic forms a :class:`Geometry` is made of, per class c and pair (c, c').

    With :math:`\Delta_c = \mu_c - \mu_{mix}`: ``distance2`` :math:`= \|\Delta_c\|^2 = D_c^2`,
    ``pool`` :math:`= \Delta_c^\top \Sigma_{mix} \Delta_{c'}` (so
    :math:`\sigma_{mix,c}^2 = \text{pool}_{cc}/D_c^2` and ``corr_mix`` is ``pool`` scaled to a unit
    diagonal) and ``own`` :math:`= \Delta_c^\top \Sigma_c \Delta_c` (so
    :math:`\sigma_c^2 = \text{own}_c/D_c^2`). NaN marks a value that the sample cannot give (a
    class with too few correctly classified samples). Built by :func:`quadratic_moments`; turned
    into a Geometry by :func:`geometry_from_moments`.

    Attributes
    ----------
    eps, pi, eps_c : float, ndarray (C,), ndarray (C,)
        As in :class:`Geometry` (plain shares: they are unbiased as they are).
    distance2 : ndarray (C,)
    pool : ndarray (C, C)
    own : ndarray (C,)
    n_errors : int
        Size of the error pool.
    n_clean : ndarray (C,) of int
        Correctly classified samples of each class.
    """

    eps: float
    pi: np.ndarray
    eps_c: np.ndarray
    distance2: np.ndarray
    pool: np.ndarray
    own: np.ndarray
    n_errors: int
    n_clean: np.ndarray


@dataclass(frozen=True, eq=False)
class CovarianceTraces:
    r"""Unbiased traces of the error pool's and the clean classes' covariances.

    Attributes
    ----------
    mix, mix_square : float
        :math:`\operatorname{tr}\Sigma_{mix}` and :math:`\operatorname{tr}\Sigma_{mix}^2`.
    clean, clean_square, product : ndarray (C,)
        :math:`\operatorname{tr}\Sigma_c`, :math:`\operatorname{tr}\Sigma_c^2` and
        :math:`\operatorname{tr}(\Sigma_{mix}\Sigma_c)`; NaN for a class with fewer than three
        correctly classified samples.
    """

    mix: float
    mix_square: float
    clean: np.ndarray
    clean_square: np.ndarray
    product: np.ndarray


def _trace_of_square(X: np.ndarray) -> float:
    """tr(W²) of the scatter W = XᵀX of rows X (n, d), in the cheaper of n²d and nd²."""
    n, d = X.shape
    inner = X @ X.T if n <= d else X.T @ X
    return float(np.sum(inner * inner))


def _trace_of_product(X: np.ndarray, Y: np.ndarray) -> float:
    """tr(W_X W_Y) of the scatters W_X = XᵀX and W_Y = YᵀY, in the cheaper of n m d and
    (n + m) d²; rows of Y are taken in blocks."""
    (n, d), m = X.shape, Y.shape[0]
    if n * m <= (n + m) * d:
        total = 0.0
        step = row_blocks(m, max(n, 1)).step
        for start in range(0, m, step):
            cross = X @ Y[start : start + step].T
            total += float(np.sum(cross * cross))
        return total
    return float(np.sum((X.T @ X) * (Y.T @ Y)))


def _unbiased_trace_of_square(scatter_trace_square: float, scatter_trace: float, n: int) -> float:
    r"""Unbiased tr(Σ²) of a Gaussian sample of n >= 3 rows, from tr(W²) and tr(W) of its
    scatter W = (n - 1) S: :math:`\frac{\nu^2}{(\nu+2)(\nu-1)}(\operatorname{tr}S^2 -
    (\operatorname{tr}S)^2/\nu)` with ν = n - 1 (from the Wishart moments
    E tr S² = (1 + 1/ν) tr Σ² + (tr Σ)²/ν and E (tr S)² = (tr Σ)² + 2 tr Σ²/ν)."""
    nu = n - 1.0
    tr_s2 = scatter_trace_square / nu**2
    tr_s = scatter_trace / nu
    return nu**2 / ((nu + 2.0) * (nu - 1.0)) * (tr_s2 - tr_s**2 / nu)


def _groups(Z: np.ndarray, y: np.ndarray, y_pred: np.ndarray, n_classes: int):
    """Error pool rows, and per class its clean rows' count, mean and block of ``Z_sorted``."""
    errors = y_pred != y
    present, present_counts, present_means, Z_sorted, _ = class_means(Z, y, np.flatnonzero(~errors))
    n_clean = np.zeros(n_classes, dtype=np.int64)
    n_clean[present] = present_counts
    means = np.zeros((n_classes, Z.shape[1]))
    means[present] = present_means
    starts = np.zeros(n_classes, dtype=np.int64)
    starts[present] = np.r_[0, np.cumsum(present_counts)[:-1]]
    return errors, Z[errors], n_clean, means, starts, Z_sorted


def covariance_traces(
    Z: np.ndarray, y: np.ndarray, y_pred: np.ndarray, n_classes: int
) -> CovarianceTraces:
    r"""The unbiased traces of :class:`CovarianceTraces` (inputs as :func:`quadratic_moments`).

    :math:`\operatorname{tr}S` and :math:`\operatorname{tr}(S_{mix}S_c)` (two independent
    samples) are unbiased for any law; :math:`\operatorname{tr}\Sigma^2` is estimated by
    :math:`\frac{\nu^2}{(\nu+2)(\nu-1)}(\operatorname{tr}S^2 - (\operatorname{tr}S)^2/\nu)`,
    ν = n - 1, unbiased for a Gaussian sample. Work: O(n_E d min(n_E, d)) and
    O(N d min(n, d)).
    """
    errors, Z_err, n_clean, means, starts, Z_sorted = _groups(Z, y, y_pred, n_classes)
    n_errors = Z_err.shape[0]
    nan_c = np.full(n_classes, np.nan)
    clean, clean_square, product = nan_c.copy(), nan_c.copy(), nan_c.copy()
    if n_errors < 3:
        return CovarianceTraces(np.nan, np.nan, clean, clean_square, product)
    X_err = Z_err - Z_err.mean(axis=0)
    scatter = float(np.sum(X_err * X_err))
    mix = scatter / (n_errors - 1)
    mix_square = _unbiased_trace_of_square(_trace_of_square(X_err), scatter, n_errors)
    for c in np.flatnonzero(n_clean >= 3):
        n_c = int(n_clean[c])
        X_c = Z_sorted[starts[c] : starts[c] + n_c] - means[c]
        scatter_c = float(np.sum(X_c * X_c))
        clean[c] = scatter_c / (n_c - 1)
        clean_square[c] = _unbiased_trace_of_square(_trace_of_square(X_c), scatter_c, n_c)
        product[c] = _trace_of_product(X_err, X_c) / ((n_errors - 1) * (n_c - 1))
    return CovarianceTraces(mix, mix_square, clean, clean_square, product)


def quadratic_moments(
    Z: np.ndarray,
    y: np.ndarray,
    y_pred: np.ndarray,
    n_classes: int,
    traces: CovarianceTraces | None = None,
) -> QuadraticMoments:
    r"""Plug-in, or with ``traces`` unbiased, estimates of :math:`D_c^2`,
    :math:`\Delta_c^\top\Sigma_{mix}\Delta_{c'}` and :math:`\Delta_c^\top\Sigma_c\Delta_c`.

    The plug-in values (no ``traces``) are those :func:`estimate_geometry` uses: the sample
    means and the ddof = 1 covariances put into the quadratic forms. They are biased upward by
    the noise of the means, :math:`E\|\hat\Delta_c\|^2 = D_c^2 + \operatorname{tr}\Sigma_{mix}/n_E
    + \operatorname{tr}\Sigma_c/n_c`, which in d dimensions is about :math:`d/n_E + d/n_c`:
    with d = 1000, 150 errors and 375 clean samples a true D = 2.4 is estimated near 3.9. With
    the unbiased ``traces`` of :func:`covariance_traces` (n_E errors and n_c clean samples of
    class c in *this* sample, S their ddof = 1 covariances, :math:`\hat\Delta_c` the difference
    of their means) the bias is removed:

    .. math::

        \widetilde{D_c^2} &= \|\hat\Delta_c\|^2 - \operatorname{tr}\Sigma_{mix}/n_E
            - \operatorname{tr}\Sigma_c/n_c, \\
        \widetilde{G}_{cc'} &= \hat\Delta_c^\top S_{mix}\hat\Delta_{c'}
            - \operatorname{tr}\Sigma_{mix}^2/n_E
            - [c = c']\operatorname{tr}(\Sigma_{mix}\Sigma_c)/n_c, \\
        \widetilde{H}_c &= \hat\Delta_c^\top S_c\hat\Delta_c
            - \operatorname{tr}\Sigma_c^2/n_c - \operatorname{tr}(\Sigma_c\Sigma_{mix})/n_E .

    Given which rows are errors and which are clean samples of each class (rows iid within each
    group, groups independent), and the traces at their true values, the first is unbiased for
    any law (:math:`E\|\hat\Delta\|^2 = \|\Delta\|^2 + \operatorname{tr}\operatorname{Cov}\hat\Delta`);
    the second when the errors are Gaussian (the single-attractor model: then
    :math:`\hat\mu_{mix}` and :math:`S_{mix}` are independent); the third when the clean samples
    of class c are Gaussian too. With estimated traces they stay unbiased (the traces are
    unbiased and enter linearly) when the traces come from other rows, and nearly so from the
    same rows. Unbiased values can be negative (noise larger than the signal);
    :func:`geometry_from_moments` then takes the pessimistic convention.

    Parameters
    ----------
    Z : ndarray (N, d) float64
        Representations, already validated and scaled (finite squares).
    y, y_pred : ndarray (N,) int64
        Labels and predictions in ``0..n_classes - 1``.
    n_classes : int
    traces : CovarianceTraces, optional

    Returns
    -------
    QuadraticMoments
        NaN for a class with fewer than two clean samples, and everywhere with fewer than two
        errors.

    Notes
    -----
    Work: O(N d + n_E d C).

    Examples
    --------
    Two classes at 3 e1 and 3 e2 in 1,000 dimensions and an error pool at the origin: the
    plug-in distance is inflated by the noise of the means, the unbiased one is not.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> d = 1000
    >>> Z = np.vstack([rng.normal(0, 1, (300, d)) + 3 * np.eye(d)[c] for c in (0, 1)]
    ...               + [rng.normal(0, 1, (150, d))])
    >>> y = np.r_[np.zeros(300, int), np.ones(300, int), rng.integers(0, 2, 150)]
    >>> y_pred = np.r_[y[:600], 1 - y[600:]]  # the 150 pool samples are the errors
    >>> plug = quadratic_moments(Z, y, y_pred, 2)
    >>> fair = quadratic_moments(Z, y, y_pred, 2, covariance_traces(Z, y, y_pred, 2))
    >>> np.sqrt(plug.distance2).round(1).tolist(), np.sqrt(fair.distance2).round(1).tolist()
    ([4.4, 4.4], [3.1, 3.0])
    """
    errors, Z_err, n_clean, means, starts, Z_sorted = _groups(Z, y, y_pred, n_classes)
    n_errors = Z_err.shape[0]
    pi, eps_c, eps = class_rates(y, errors, n_classes)
    distance2 = np.full(n_classes, np.nan)
    pool = np.full((n_classes, n_classes), np.nan)
    own = np.full(n_classes, np.nan)
    if n_errors >= 2:
        mu_mix = Z_err.mean(axis=0)
        defined = n_clean >= 2
        delta = np.where(defined[:, None], means - mu_mix, 0.0)  # (C, d)
        projected = (Z_err - mu_mix) @ delta.T  # (n_E, C)
        pool = projected.T @ projected / (n_errors - 1)
        distance2 = np.einsum("cd,cd->c", delta, delta)
        for c in np.flatnonzero(defined):
            n_c = int(n_clean[c])
            X_c = Z_sorted[starts[c] : starts[c] + n_c] - means[c]
            own[c] = float(np.sum((X_c @ delta[c]) ** 2)) / (n_c - 1)
        if traces is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                distance2 = distance2 - traces.mix / n_errors - traces.clean / n_clean
                pool = pool - traces.mix_square / n_errors
                pool[np.diag_indices(n_classes)] -= traces.product / n_clean
                own = own - traces.clean_square / n_clean - traces.product / n_errors
        undefined = ~defined
        distance2[undefined] = np.nan
        own[undefined] = np.nan
        pool[undefined, :] = np.nan
        pool[:, undefined] = np.nan
    return QuadraticMoments(eps, pi, eps_c, distance2, pool, own, n_errors, n_clean)


def geometry_from_moments(moments: QuadraticMoments) -> Geometry:
    r"""The :class:`Geometry` of :class:`QuadraticMoments`, pessimistic where they are not usable.

    :math:`D_c = \sqrt{\text{distance2}_c}`, :math:`\sigma_{mix,c} = \sqrt{\text{pool}_{cc}}/D_c`,
    :math:`\sigma_c = \sqrt{\text{own}_c}/D_c` and ``corr_mix`` the pool matrix scaled to a unit
    diagonal (entries clipped to [-1, 1]). A class whose ``distance2`` or ``pool`` diagonal is not
    positive or not finite, or whose ``own`` is negative or not finite, is placed at the
    attractor (D = σ = 0, an identity row of ``corr_mix``): its boundary is crossed with
    probability 1/2 and half its clean core counts as contamination, the pessimistic convention
    of :func:`estimate_geometry` for a class with no clean core. Without errors (``eps`` = 0)
    every D and σ is 0.
    """
    C = moments.pi.shape[0]
    d2, g, h = moments.distance2, np.diagonal(moments.pool), moments.own
    with np.errstate(invalid="ignore"):
        usable = (d2 > 0) & (g > 0) & (h >= 0) & np.isfinite(d2 + g + h)
    usable &= moments.eps > 0
    D = np.where(usable, np.sqrt(np.where(usable, d2, 1.0)), 0.0)
    safe_d2 = np.where(usable, d2, 1.0)
    sigma_mix = np.where(usable, np.sqrt(np.where(usable, g, 0.0) / safe_d2), 0.0)
    sigma_c = np.where(usable, np.sqrt(np.where(usable, h, 0.0) / safe_d2), 0.0)
    corr = np.eye(C)
    if usable.sum() >= 2:
        idx = np.flatnonzero(usable)
        scale = np.sqrt(g[idx])
        block = moments.pool[np.ix_(idx, idx)] / np.outer(scale, scale)
        block = np.clip(0.5 * (block + block.T), -1.0, 1.0)
        np.fill_diagonal(block, 1.0)
        corr[np.ix_(idx, idx)] = block
    notes: tuple[str, ...] = ()
    if not usable.all() and moments.eps > 0:
        notes = (
            f"{int((~usable).sum())} of {C} classes placed at the attractor (D = sigma = 0): "
            "their estimated distance or spreads were not positive",
        )
    return Geometry(moments.eps, moments.pi, moments.eps_c, D, sigma_mix, sigma_c, notes, corr)
