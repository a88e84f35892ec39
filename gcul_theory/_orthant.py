r"""The orthant probability of a multivariate normal, :math:`P(W_c > -h_c \text{ for all } c)`.

The model value ``"gaussian_exact"`` of the predictor registry (:mod:`gcul_theory._predictors`)
is :math:`E[r_1] = P(W > -h) = \Phi_R(h)` for :math:`W \sim \mathcal N(0, R)`, over the
boundaries that can be crossed (their crossing probabilities left out add up to at most 1e-12).
Exact to rounding for C <= 2 (Owen's T); otherwise Genz's separation of variables [1]_: the
variables ordered most restrictive limit first, the last two integrated in closed form (the
bivariate normal, which keeps the integrand smooth when R is nearly singular) and the others by
randomised quasi-Monte Carlo on fixed points, ``ORTHANT_RANDOMISATIONS = 8`` independent Owen
scramblings of ``ORTHANT_POINTS = 2048`` Sobol' points seeded from ``ORTHANT_SEED``, so every call
returns the same bits (for the same NumPy and SciPy), alone or in a batch. The code works on
thresholds and correlation matrices only (no :class:`~gcul_theory.Geometry`), as SciPy keeps
Genz's code in its own ``_qmvnt.py``.

Accuracy, measured where it was measured (``benchmarks/orthant_accuracy.py``, recorded
in ``benchmarks/orthant_accuracy.md``): the largest difference from the same estimator
with 16 times the points (2^15 per scrambling), over random geometries with thresholds
:math:`h_c` uniform in [0.5, 2.5] (20 per row up to C = 16, 8 above), for three kinds
of correlation matrix, and the largest standard error the method reported (the spread
of the 8 scramblings over sqrt 8; if the scramblings' means are normal, the error
exceeds three of them with probability 2% and five with 0.16%, by Student's t with 7
degrees of freedom):

====  ========  ===============  ==============  ===========
C     random R  rank-10 R (a)    equicorr. 1/2   largest SE
====  ========  ===============  ==============  ===========
3     1.8e-6    9.6e-7           6.4e-8          1.3e-5
4     1.1e-4    1.1e-5           7.1e-7          1.6e-4
6     1.5e-4    3.4e-5           1.8e-6          1.4e-4
8     2.9e-4    2.5e-4           5.5e-6          3.8e-4
12    3.4e-4    1.0e-3           6.8e-6          6.8e-4
16    2.7e-4    7.8e-4           1.5e-5          8.6e-4
24    1.9e-4    9.6e-4           9.8e-6          5.8e-4
32    1.3e-4    4.7e-4           6.8e-5          4.8e-4
48    1.8e-5    2.6e-4           9.8e-5          4.2e-4
64    1.3e-5    5.2e-4           1.1e-5          3.8e-4
====  ========  ===============  ==============  ===========

(a) The correlations of C random vectors in 10 dimensions: singular from C = 11, like
the class directions of a low-dimensional geometry.

The reference's own standard error reached 1.8e-4, so differences below about 2e-4
are within its noise; no difference exceeded 4.0 reported standard errors. With many
classes the error is about 1e-3 at worst (C = 12 to 24, nearly singular R), not the
1e-5 of a few classes. The synthetic sweep (C = 5) has nearly singular correlations
(smallest eigenvalue 1.6e-5 to 1e-2): there the standard error is 1.5e-5 median and
1.8e-4 at worst over its 410 geometries, and on 41 of them the error
against the same method with 2^21 points (standard error at most 1.5e-6) is 2.2e-5 mean
and 2.9e-4 at worst, where scipy's ``multivariate_normal.cdf`` with 10^5 points, used
before, is off by 1.0e-4 and 5.8e-4 (on three of them, scipy with 2e7 points agrees with
the 2^21-point value to 8e-7). The registry's "gaussian_exact" projects the estimate onto
:math:`[\text{hunter\_worsley}, 1 - \max_c p_c]`, an interval that contains the exact
value, which can only reduce its error.

References
----------
.. [1] A. Genz, "Numerical computation of multivariate normal probabilities", J. Comput. Graph.
   Stat. 1 (1992); A. Genz and F. Bretz, "Computation of Multivariate Normal and t
   Probabilities", Springer (2009).
.. [2] D. B. Owen, "Tables for computing bivariate normal probabilities", Ann. Math. Stat. 27
   (1956).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.special import log_ndtr, ndtr, ndtri, owens_t

__all__: list[str] = []  # internal: the registry's "gaussian_exact" and "hunter_worsley" use it

ORTHANT_SEED = 20261122
"""Seed of the fixed Sobol' scramblings of the orthant probability ("gaussian_exact")."""

ORTHANT_MAX_CLASSES = 64
"""Most classes (after dropping the boundaries that cannot be crossed) of a "gaussian_exact" orthant
probability: its cost grows with the square of the dimension (measured 0.4 s at 64 classes on this
project's loaded 2-core machine, against about 10 ms at 5); beyond it the method raises
``ValueError`` and :func:`feasibility_report` leaves it out with a note."""

ORTHANT_RANDOMISATIONS = 8
"""Independent scramblings of the Sobol' points of a "gaussian_exact" orthant probability: its
value is their mean and its standard error their standard deviation over ``sqrt(8)``."""

ORTHANT_POINTS = 2**11
"""Sobol' points per scrambling of a "gaussian_exact" orthant probability (all
``ORTHANT_RANDOMISATIONS * ORTHANT_POINTS = 16384`` points in every dimension). Chosen on the
synthetic sweep's nearly singular correlations, where the error falls as 1/points: 2048 give a
standard error of 1.5e-5 median (error 2.2e-5 mean) in 8.8 ms per geometry against 40 ms for
scipy's 10^5-point lattice rule (``benchmarks/orthant.py``, one run on a 2-core machine);
1024 take 4 ms for a standard error of 3.0e-5 median (error 5.3e-5 mean)."""


def upper_orthant(a: np.ndarray, b: np.ndarray, rho: np.ndarray) -> np.ndarray:
    r""":math:`P(W_1 > a, W_2 > b)` for a standard bivariate normal with correlation ρ, a, b ≥ 0.

    Owen's (1956) formula with Owen's T function; exact to rounding. ``a = inf`` gives 0,
    ``a = 0`` the limit of the formula (checked against ``multivariate_normal.cdf`` in the tests).
    """
    a, b, rho = np.broadcast_arrays(a, b, rho)
    s = np.sqrt(np.maximum(1.0 - rho * rho, 0.0))
    qa, qb = ndtr(-a), ndtr(-b)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        general = (
            0.5 * (qa + qb)
            # (b/a - rho)/s, not (b - rho a)/(a s): the latter loses every digit to underflow
            # when a and b are subnormal (a = b = 5e-324, rho = 1/2 gave 1/4 instead of 1/3)
            - owens_t(a, (b / a - rho) / s)
            - owens_t(b, (a / b - rho) / s)
        )
        slope = rho / s  # a = 0 < b: 1/2 Q(b) + T(b, rho/s); b = 0 < a by symmetry
        one_zero_a = 0.5 * qb + owens_t(b, slope)
        one_zero_b = 0.5 * qa + owens_t(a, slope)
    both_zero = 0.25 + np.arcsin(np.clip(rho, -1.0, 1.0)) / (2.0 * np.pi)
    out = np.where(a == 0.0, one_zero_a, np.where(b == 0.0, one_zero_b, general))
    out = np.where((a == 0.0) & (b == 0.0), both_zero, out)
    # Degenerate correlations: comonotone and countermonotone pairs (Frechet bounds).
    out = np.where(rho >= 1.0, np.minimum(qa, qb), out)
    out = np.where(rho <= -1.0, np.maximum(qa + qb - 1.0, 0.0), out)
    out = np.where(np.isinf(a) | np.isinf(b), 0.0, out)
    lower, upper = np.maximum(qa + qb - 1.0, 0.0), np.minimum(qa, qb)
    return np.clip(np.nan_to_num(out, nan=0.0), lower, upper)


_NEGLIGIBLE_LOSS = 1e-12  # total boundary loss the orthant may leave out (far below its error)

_SINGULAR_VARIANCE = 1e-12  # a conditional variance at most this is taken as 0 (singular R)


def crossable(h: np.ndarray) -> np.ndarray:
    """Mask of the boundaries an orthant probability keeps: every boundary but the least crossable
    ones whose crossing probabilities add up to at most 1e-12 (leaving out constraint c changes the
    probability by at most p_c = Φ(-h_c)); infinite h_c (p_c = 0) always drop out."""
    loss = ndtr(-h)
    order = np.argsort(loss, axis=-1, kind="stable")
    dropped = np.cumsum(np.take_along_axis(loss, order, axis=-1), axis=-1) <= _NEGLIGIBLE_LOSS
    keep = np.ones(h.shape, dtype=bool)
    np.put_along_axis(keep, order, ~dropped, axis=-1)
    return keep & np.isfinite(h)


@functools.lru_cache(maxsize=8)
def sobol_points(dimension: int) -> np.ndarray:
    """The fixed quasi-random points of a ``dimension + 2``-variate orthant probability.

    Shape ``(dimension, ORTHANT_RANDOMISATIONS, ORTHANT_POINTS)``: scrambling r is the first
    ``ORTHANT_POINTS`` points of an Owen-scrambled Sobol' sequence seeded with
    ``SeedSequence([ORTHANT_SEED, dimension, r])``; read-only, computed once per dimension.
    """
    from scipy.stats import qmc  # here, not at import: scipy.stats takes ~1 s to import

    log2 = ORTHANT_POINTS.bit_length() - 1
    sets = []
    for r in range(ORTHANT_RANDOMISATIONS):
        seed = np.random.default_rng(np.random.SeedSequence([ORTHANT_SEED, dimension, r]))
        try:
            engine = qmc.Sobol(dimension, scramble=True, rng=seed)
        except TypeError:  # SciPy < 1.15 calls it ``seed``
            engine = qmc.Sobol(dimension, scramble=True, seed=seed)
        sets.append(engine.random_base2(log2).T)
    points = np.ascontiguousarray(np.stack(sets, axis=1))
    points.flags.writeable = False
    return points


def _ordered_cholesky(b: np.ndarray, R: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Genz and Bretz's ordering and Cholesky factor of ``P(W <= b)``, ``W ~ N(0, R)``.

    For a batch ``b`` (G, k) and ``R`` (G, k, k): variable i is, among the ones left, the one
    whose limit is most restrictive given the truncated means of the ones before it
    (``min Φ((b_j - L_j· ȳ)/σ_j)``); variables whose conditional variance is 0 (at most
    ``_SINGULAR_VARIANCE``: a singular R) go last, with a zero pivot and a zero column. Returns
    the permuted limits and the lower-triangular ``L`` (``L Lᵀ`` is the permuted R).
    """
    G, k = b.shape
    rows = np.arange(G)
    perm = np.tile(np.arange(k), (G, 1))
    L = np.zeros((G, k, k))
    ybar = np.zeros((G, k))
    for i in range(k):
        bb = np.take_along_axis(b, perm, axis=1)
        RR = R[rows[:, None, None], perm[:, :, None], perm[:, None, :]]
        tail = L[:, i:, :i]
        var = np.diagonal(RR, axis1=1, axis2=2)[:, i:] - (tail * tail).sum(axis=-1)
        shift = (tail * ybar[:, None, :i]).sum(axis=-1)
        free = var > _SINGULAR_VARIANCE
        with np.errstate(divide="ignore", invalid="ignore"):
            limit = (bb[:, i:] - shift) / np.sqrt(np.where(free, var, 1.0))
            score = np.where(free, ndtr(limit), np.inf)
        j = i + np.argmin(score, axis=1)
        perm[rows, i], perm[rows, j] = perm[rows, j], perm[rows, i].copy()
        L[rows, i], L[rows, j] = L[rows, j], L[rows, i].copy()
        bb = np.take_along_axis(b, perm, axis=1)
        RR = R[rows[:, None, None], perm[:, :, None], perm[:, None, :]]
        pivot = RR[:, i, i] - (L[:, i, :i] ** 2).sum(axis=-1)
        free = pivot > _SINGULAR_VARIANCE
        Lii = np.sqrt(np.where(free, pivot, 1.0))
        covariance = RR[:, i + 1 :, i] - (L[:, i + 1 :, :i] * L[:, i, None, :i]).sum(axis=-1)
        column = covariance / Lii[:, None]
        L[:, i, i] = np.where(free, Lii, 0.0)
        L[:, i + 1 :, i] = np.where(free[:, None], column, 0.0)
        # The mean of y_i truncated to (-inf, z]: -φ(z)/Φ(z), in logs for z far below 0.
        z = (bb[:, i] - (L[:, i, :i] * ybar[:, :i]).sum(axis=-1)) / Lii
        mean = -np.exp(-0.5 * z * z - 0.5 * math.log(2.0 * math.pi) - log_ndtr(z))
        ybar[:, i] = np.where(free & np.isfinite(mean), mean, 0.0)
    return np.take_along_axis(b, perm, axis=1), L


_FAR = 40.0  # Φ(-40) and Φ(40) are 0 and 1 in double precision
_TINY_ARGUMENT = 1e-300


def _cdf_ratio(numerator: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Φ(numerator / scale), and the indicator of numerator >= 0 where scale is 0."""
    if np.all(scale > 0.0):
        return ndtr(numerator / scale)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = numerator / scale
    return np.where(scale > 0.0, ndtr(ratio), (numerator >= 0.0).astype(float))


def bivariate_cdf(x: np.ndarray, y: np.ndarray, rho: np.ndarray) -> np.ndarray:
    """``P(X <= x, Y <= y)`` for a standard bivariate normal with correlation ``rho`` (Owen 1956).

    ``Φ(x)/2 + Φ(y)/2 - T(x, a_x) - T(y, a_y) - β`` with Owen's T, ``a_x = (y - ρx)/(x s)``,
    ``a_y = (x - ρy)/(y s)``, ``s = sqrt(1 - ρ²)`` and ``β = 1/2`` where x and y have opposite
    signs; ``|ρ| = 1`` by the Fréchet bounds it reaches; clipped to them everywhere.
    """
    x = np.clip(x, -_FAR, _FAR)  # Φ(±40) is 0 and 1 in double precision
    y = np.clip(y, -_FAR, _FAR)
    x = np.where(x == 0.0, _TINY_ARGUMENT, x)  # T(0, a) is the limit at 0 of T(x, a_x)
    y = np.where(y == 0.0, _TINY_ARGUMENT, y)
    px, py = ndtr(x), ndtr(y)
    lower, upper = np.maximum(px + py - 1.0, 0.0), np.minimum(px, py)
    s = np.sqrt(np.maximum((1.0 - rho) * (1.0 + rho), 0.0))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        general = (
            0.5 * (px + py)
            - owens_t(x, (y - rho * x) / (x * s))
            - owens_t(y, (x - rho * y) / (y * s))
            - np.where((x < 0.0) != (y < 0.0), 0.5, 0.0)
        )
    out = np.where(rho >= 1.0, upper, np.where(rho <= -1.0, lower, general))
    return np.clip(np.nan_to_num(out, nan=0.0), lower, upper)


def _genz(b: np.ndarray, L: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``P(W <= b)`` for ``W = L Z`` by Genz's separation of variables, and its standard error.

    ``b`` (G, k) and ``L`` (G, k, k) from :func:`_ordered_cholesky`, k >= 3. The first k - 2
    variables are integrated on the fixed points of :func:`sobol_points`, the last two in closed
    form (:func:`bivariate_cdf`), which removes the steepest factor of a nearly singular R.
    Every operation is elementwise or a reduction along the points, so a geometry's bits do not
    depend on the batch it comes in.
    """
    G, k = b.shape
    W = sobol_points(k - 2)  # (k - 2, M, n)
    col = (slice(None), None, None)  # a per-geometry scalar against (G, M, n)
    smallest, below_one = np.finfo(float).tiny, 1.0 - np.finfo(float).epsneg
    e = np.broadcast_to(_cdf_ratio(b[:, 0], L[:, 0, 0])[col], (G, *W.shape[1:]))
    weight = np.ones((G, *W.shape[1:]))
    y = []
    for i in range(1, k - 1):
        y.append(ndtri(np.clip(W[i - 1] * e, smallest, below_one)))
        weight *= e
        if i < k - 2:
            shift = sum(L[:, i, j][col] * y[j] for j in range(i))
            e = _cdf_ratio(b[:, i][col] - shift, L[:, i, i][col])
    i = k - 2
    c1 = b[:, i][col] - sum(L[:, i, j][col] * y[j] for j in range(i))
    c2 = b[:, i + 1][col] - sum(L[:, i + 1, j][col] * y[j] for j in range(i))
    s1 = L[:, i, i]
    s2 = np.hypot(L[:, i + 1, i], L[:, i + 1, i + 1])
    rho = np.where((s1 > 0.0) & (s2 > 0.0), L[:, i + 1, i] / np.where(s2 > 0.0, s2, 1.0), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        x1 = np.where(s1[col] > 0.0, c1 / s1[col], np.where(c1 >= 0.0, np.inf, -np.inf))
        x2 = np.where(s2[col] > 0.0, c2 / s2[col], np.where(c2 >= 0.0, np.inf, -np.inf))
    per_scrambling = (weight * bivariate_cdf(x1, x2, rho[col])).mean(axis=-1)  # (G, M)
    value = per_scrambling.mean(axis=-1)
    error = per_scrambling.std(axis=-1, ddof=1) / math.sqrt(per_scrambling.shape[-1])
    return value, error


_CHUNK_ELEMENTS = 2**20  # most (geometry, scrambling, point, variable) values held at once


def orthant_probability(h: np.ndarray, rho: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``P(W_c > -h_c for all c)`` over the boundaries of :func:`crossable`, and its standard error.

    ``h`` (G, C) and ``rho`` (G, C, C), one row per geometry. Exact to rounding (standard error 0)
    when at most two boundaries are kept; otherwise :func:`_genz`, on batches of the geometries
    that keep the same number of boundaries. ``h_c = +inf`` drops boundary c; ``h_c = -inf``
    makes the probability 0.
    """
    never = np.any(h == -np.inf, axis=-1)
    keep = crossable(h) & ~never[:, None]
    counts = keep.sum(axis=-1)
    # The kept boundaries first, in their original order.
    index = np.argsort(~keep, axis=-1, kind="stable")
    hk = np.take_along_axis(h, index, axis=-1)
    rows = np.arange(h.shape[0])[:, None, None]
    rk = rho[rows, index[:, :, None], index[:, None, :]]
    value = np.ones(h.shape[0])
    error = np.zeros(h.shape[0])
    one, two = counts == 1, counts == 2
    value[one] = ndtr(hk[one, 0])
    a, b = hk[two, 0], hk[two, 1]
    value[two] = 1.0 - ndtr(-a) - ndtr(-b) + upper_orthant(a, b, rk[two, 0, 1])
    for k in np.unique(counts[counts >= 3]):
        members = np.flatnonzero(counts == k)
        step = max(1, _CHUNK_ELEMENTS // (k * ORTHANT_RANDOMISATIONS * ORTHANT_POINTS))
        for start in range(0, members.size, step):
            chunk = members[start : start + step]
            # P(W > -h) = P(-W <= h), and -W has the same correlation matrix.
            limits, factor = _ordered_cholesky(hk[chunk, :k], rk[chunk, :k, :k])
            value[chunk], error[chunk] = _genz(limits, factor)
    value[never] = 0.0
    return value, error
