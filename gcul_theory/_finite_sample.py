r"""A :math:`\lambda^*_{PRE}` whose rates hold with probability :math:`\ge 1-\delta` over one
training sample: :func:`finite_sample_lambda` and its helpers.

The predictor registry's bounds (:mod:`gcul_theory._predictors`) hold for the *expected* rates
with the centres known; this module also accounts for the finite sample (unbiased quadratic
forms of :mod:`gcul_theory._moments`, half-sample replicates, Hoeffding and Clopper-Pearson
terms). The Notes of :func:`finite_sample_lambda` state the model and what is guaranteed.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ._geometry import Geometry, estimate_geometry, scaled
from ._moments import covariance_traces, geometry_from_moments, quadratic_moments
from ._predictors import DEFAULT_METHOD, capture, contamination, critical
from ._validation import (
    as_float_scalar,
    as_generator,
    as_int,
    check_choice,
    check_delta,
    check_method,
)

__all__ = [
    "FINITE_SAMPLE_MIN_ERRORS",
    "FiniteSampleBound",
    "MAX_BOOT",
    "finite_sample_lambda",
    "hoeffding_deviation",
]

MAX_BOOT = 10**6
"""Most replicates (``n_boot``) of :func:`finite_sample_lambda` (each re-estimates the geometry
twice, on two random halves of the sample)."""


@dataclass(frozen=True)
class FiniteSampleBound:
    r"""Outcome of :func:`finite_sample_lambda`.

    Attributes
    ----------
    lambda_pre : float
        :math:`\max(0, S(\varepsilon, r_1^{lo}, r_2^{hi}))`.
    r1_lower : float
        Lower confidence bound on the capture fraction of a pool of ``n_errors`` errors.
    r2_upper : float
        The upper confidence bound on :math:`r_2` that ``lambda_pre`` uses (``contamination``).
    contamination : str
        "attractor" or "voronoi".
    r2_upper_attractor, r2_upper_voronoi : float
        Both upper confidence bounds on :math:`r_2` (Notes of :func:`finite_sample_lambda`).
    r1_model, r2_model : float
        The ``method``'s :math:`\hat r_1` and the attractor :math:`\hat r_2` of the registry on
        the full sample (:func:`estimate_geometry`, no finite-sample correction; biased upward
        when the dimension is not small against the error pool).
    r2_share : float
        The share of correctly classified training samples in the attractor's Voronoi cell.
    method : str
    delta : float
    n_errors, n_correct, n_boot : int
    r1_unbiased, r2_unbiased : float
        The same two rates from the geometry of unbiased quadratic forms
        (:func:`~gcul_theory._moments.quadratic_moments`), the centre of the replicates.
    """

    lambda_pre: float
    r1_lower: float
    r2_upper: float
    contamination: str
    r2_upper_attractor: float
    r2_upper_voronoi: float
    r1_model: float
    r2_model: float
    r2_share: float
    method: str
    delta: float
    n_errors: int
    n_correct: int
    n_boot: int
    r1_unbiased: float = 0.0
    r2_unbiased: float = 1.0


def _clopper_pearson_upper(k: int, n: int, alpha: float) -> float:
    if n == 0 or k >= n:
        return 1.0
    from scipy.stats import beta  # here, not at import: scipy.stats takes ~1 s to import

    return float(beta.ppf(1.0 - alpha, k + 1, n - k))


def _attractor_cell(Z, y, errors, n_classes):
    """Boolean mask: is each row strictly nearest to mu_mix among {mu_mix} and the clean means?

    ``Z`` is already scaled near 1 (:func:`~gcul_theory._geometry.scaled`): nearest centres do
    not change when Z is scaled by a power of two, and the means and squared norms then stay
    inside float64 (no overflow at 1e300, no underflow to ties at 1e-300).
    """
    centres = [Z[errors].mean(axis=0)]
    for c in range(n_classes):
        clean = Z[(~errors) & (y == c)]
        if clean.shape[0]:
            centres.append(clean.mean(axis=0))
    centres = np.vstack(centres)
    scores = -2.0 * Z @ centres.T + np.sum(centres * centres, axis=1)[None, :]
    return np.argmin(scores, axis=1) == 0


def hoeffding_deviation(n: int, log_inverse_alpha: float) -> float:
    r"""Hoeffding's deviation :math:`\sqrt{\log(1/\alpha)/(2n)}` of a mean of n draws in [0, 1].

    The term :func:`finite_sample_lambda` subtracts from the capture rate (and adds to the
    contamination rate), with :math:`\alpha = \delta/4`.

    Parameters
    ----------
    n : int
        Number of independent draws, at least 1.
    log_inverse_alpha : float
        :math:`\log(1/\alpha) \ge 0`, finite: the risk enters through its logarithm, so an
        :math:`\alpha` that underflows to 0 in float64 still has a finite term.

    Returns
    -------
    float
        :math:`t \ge 0` with :math:`P(\bar X \le E\bar X - t) \le \alpha` (and the same for
        the upper side) for the mean :math:`\bar X` of n independent variables in [0, 1].

    Raises
    ------
    TypeError, ValueError
        For ``n`` that is not an int of at least 1, or ``log_inverse_alpha`` that is not a
        finite scalar of at least 0; the message names the argument.

    Notes
    -----
    Hoeffding (1963): :math:`P(\bar X - E\bar X \le -t) \le e^{-2nt^2}`; setting the right
    side to :math:`\alpha` gives :math:`t = \sqrt{\log(1/\alpha)/(2n)}`. The package's
    ``proofs`` re-derive it with SymPy and check this function against it (claim
    ``predictors.finite_sample_hoeffding``).

    References
    ----------
    .. [1] W. Hoeffding, "Probability inequalities for sums of bounded random variables", J. Am.
       Stat. Assoc. 58 (1963).

    Examples
    --------
    >>> import math
    >>> from gcul_theory import hoeffding_deviation
    >>> round(hoeffding_deviation(100, math.log(1 / 0.05)), 4)
    0.1224
    >>> hoeffding_deviation(1, 0.0)
    0.0
    """
    n = as_int(n, "n", lower=1)
    log_inverse_alpha = as_float_scalar(log_inverse_alpha, "log_inverse_alpha", lower=0.0)
    return math.sqrt(log_inverse_alpha / (2.0 * n))


FINITE_SAMPLE_MIN_ERRORS = 4
"""Fewest errors :func:`finite_sample_lambda` needs (each half of the error pool needs two rows
for a spread); with fewer its bound is the vacuous one (``lambda_pre`` 0)."""


def _random_halves(group: np.ndarray, generator: np.random.Generator) -> np.ndarray:
    """Mask of a random half of every group: ``floor(n_g / 2)`` of its ``n_g`` rows."""
    order = np.lexsort((generator.random(group.size), group))
    sorted_groups = group[order]
    starts = np.searchsorted(sorted_groups, sorted_groups, side="left")
    sizes = np.bincount(group)[sorted_groups]
    first = np.zeros(group.size, dtype=bool)
    first[order] = (np.arange(group.size) - starts) < sizes // 2
    return first


def finite_sample_lambda(
    Z: ArrayLike,
    y: ArrayLike,
    y_pred: ArrayLike,
    method: str = DEFAULT_METHOD,
    delta: float = 0.05,
    n_boot: int = 200,
    rng: int | np.random.Generator | np.random.SeedSequence | None = 0,
    n_classes: int | None = None,
    contamination: str = "attractor",
) -> FiniteSampleBound:
    r"""A :math:`\lambda^*_{PRE}` whose rates hold with probability :math:`\ge 1-\delta` over the sample.

    The registry's bounds hold for the *expected* rates with the centres known. This one also
    accounts for one finite training sample: the bias and the estimation error of the centres,
    spreads and correlations (unbiased quadratic forms, and random half-samples for their
    spread) and the binomial fluctuation of the realised capture and contamination fractions
    (Hoeffding terms in :math:`|\mathcal E|` and :math:`N - |\mathcal E|`).

    Parameters
    ----------
    Z, y, y_pred : array_like
        As for :func:`estimate_geometry`.
    method : {"boole", "hunter_worsley", "gaussian_exact"}, default DEFAULT_METHOD
        The :math:`\hat r_1` whose lower confidence bound is computed; the default is
        "hunter_worsley".
    delta : float, default 0.05
        Total error probability in (0, 1), split in four equal parts.
    n_boot : int, default 200
        Half-sample replicates (Notes), from 20 to ``MAX_BOOT`` (10**6).
    rng : None, int, SeedSequence or Generator, default 0
        Randomness of the replicates (a non-negative int seed; a Generator is used as is).
    n_classes : int, optional
        As for :func:`estimate_geometry`.
    contamination : {"attractor", "voronoi"}, default "attractor"
        Which upper bound on :math:`r_2` enters ``lambda_pre`` (both are returned).

    Returns
    -------
    FiniteSampleBound

    Raises
    ------
    TypeError, ValueError
        For a ``method`` or ``contamination`` that is not one of the names above, ``delta``
        outside (0, 1) or not a scalar, ``n_boot`` not an int in [20, 10**6], an ``rng`` that
        is not a seed of the documented kinds, and whatever :func:`estimate_geometry` refuses;
        the message names the argument.

    Notes
    -----
    The model. Given which rows are errors and which are clean samples of each class, the rows
    are independent; the errors are iid :math:`\mathcal N(\mu_{mix}, \Sigma_{mix})`, the clean
    samples of class c iid with mean :math:`\mu_c` (the single-attractor model; the attractor
    term of :math:`r_2` also counts the attractor's chance-correct samples, module docstring).
    The target is the attractor's Voronoi cell of the *population* centres
    :math:`\{\mu_{mix}\} \cup \{\mu_c\}`: its capture probability is the orthant probability of
    :math:`h_c = D_c^2/(2\sqrt{G_{cc}})` and correlations :math:`G_{cc'}/\sqrt{G_{cc}G_{c'c'}}`,
    with :math:`D_c^2 = \|\mu_c - \mu_{mix}\|^2` and
    :math:`G_{cc'} = (\mu_c - \mu_{mix})^\top\Sigma_{mix}(\mu_{c'} - \mu_{mix})`.

    The construction. Plugging sample means into :math:`D_c^2` and :math:`G` adds the noise of
    the means, about :math:`d/n_E + d/n_c` in d dimensions; with few errors in many
    dimensions (text embeddings) that bias dominates, and a percentile bootstrap of the
    plug-in reproduces it instead of removing it (C = 2 cores at 3 e_1, 3 e_2 in d = 1000, 300
    each, 300 attractor samples, about 150 errors: the true D is 2.4, the plug-in 3.9, and the
    plug-in bootstrap violated its promise in 61 of 200 replications at δ = 0.2). So the centre
    is the geometry of the *unbiased* quadratic forms
    (:func:`~gcul_theory._moments.quadratic_moments` with
    :func:`~gcul_theory._moments.covariance_traces`: unbiased for :math:`D_c^2` under any law,
    for :math:`G` and :math:`\Delta_c^\top\Sigma_c\Delta_c` under the Gaussian model), and
    their spread comes from ``n_boot`` random half-samples: each group (the errors, the clean
    samples of each class) is split in two random halves, whose forms are independent and
    (corrected with the full sample's traces, which cancel in the difference when the halves
    have equal sizes) unbiased, and half their difference is added to the full sample's forms.
    That deviation has mean 0 and variance :math:`\operatorname{Var}_{n/2}/2`, at least the full
    sample's :math:`\operatorname{Var}_n` because these variances are sums of terms in
    :math:`1/n` and :math:`1/n^2` with non-negative coefficients (:math:`1/n` alone makes them
    equal; in high dimension the :math:`1/n^2` terms dominate and it is up to twice as large).
    (A nonparametric bootstrap cannot give this spread: its resamples repeat rows, which in
    high dimension inflates the spread of these forms; in that example 7.7 times for
    :math:`G_{cc}`.) The shares
    :math:`\varepsilon, \pi_c, \varepsilon_c` vary as in a multinomial resample of the rows.
    The rates of each such geometry are computed
    (:func:`~gcul_theory._moments.geometry_from_moments`, pessimistic where a form is not
    positive). With :math:`\delta' = \delta/4`, :math:`n_E = |\mathcal E|` and
    :math:`n_K = N - n_E`:

    * :math:`r_1^{lo} = \max(0, L_{\delta'} - \sqrt{\log(1/\delta')/(2 n_E)})`, where
      :math:`L_{\delta'}` is the :math:`\delta'` quantile of the method's :math:`\hat r_1` over
      the replicates' geometries;
    * "attractor": :math:`r_2^{hi} = \min(1, U_{1-\delta'} + \sqrt{\log(1/\delta')/(2 n_K)})`,
      with :math:`U_{1-\delta'}` the :math:`1-\delta'` quantile of the attractor
      :math:`\hat r_2` (module docstring) over the same geometries;
    * "voronoi": the Clopper–Pearson upper :math:`1-\delta'` bound on the share of the
      :math:`n_K` correctly classified samples whose nearest centre among
      :math:`\{\mu_{mix}\} \cup \{\mu_c\}` is :math:`\mu_{mix}` (no Gaussian assumption).

    What is guaranteed, by a union bound over the four parts: with probability at least
    :math:`1 - \delta` over the training sample, under the model, a fresh sample of
    :math:`n_E` errors and :math:`n_K` correct samples has a realised capture fraction
    :math:`\ge r_1^{lo}` and a realised contamination fraction :math:`\le r_2^{hi}` for the
    attractor's Voronoi cell of the population centres, so :math:`S(\varepsilon, r_1, r_2) \ge`
    ``lambda_pre`` for those fractions. The Hoeffding parts are exact. The replicate parts are
    approximate: the centre is unbiased and the spread at least the forms' own, but the shape
    is a normal-like approximation (the forms are skewed at small n) and the coverage is not
    proved; it was measured by Monte Carlo (``benchmarks/finite_sample_coverage.py``, recorded
    in ``benchmarks/finite_sample_coverage.md``) from d = 3 to d = 4,000 with about 20 to 2,000
    errors, isotropic and anisotropic spreads, 2 to 5 classes and capture rates from 0.42 to
    0.999: no violation in 1,400 replications (at δ = 0.2 and 0.05), where the bound it
    replaces broke its promise in 4 of the 9 scenarios (31% to 100% of the replications; 18 of
    20 at d = 1,500 with about 100 errors and an anisotropic pool, the test suite's case). The
    price of validity is width where d is large against the errors: at d = 1,000 with 150
    errors ``r1_lower`` averaged 0.43 for a true capture of 0.78, at d = 4,000 with 40 errors
    0.06; in low dimension it matches the bound it replaces (0.80 for 0.97 at d = 3).

    "voronoi" bounds the probability that a new correct sample falls in the Voronoi cell of the
    *estimated* centres instead; it is exact for fixed centres and ignores the :math:`O(d/N)`
    dependence of the centres on the same rows. Nothing is guaranteed about a
    GCUL whose phase 3 rejects a region other than the attractor's Voronoi cell.

    With fewer than ``FINITE_SAMPLE_MIN_ERRORS`` = 4 errors or no correct sample the bound is
    vacuous (``lambda_pre`` 0, ``r1_lower`` 0, ``r2_upper`` 1).

    Examples
    --------
    >>> import numpy as np
    >>> from gcul_theory import finite_sample_lambda
    >>> rng = np.random.default_rng(1)
    >>> centres = np.array([[-8.0, 0.0], [8.0, 0.0], [0.0, 0.0]])
    >>> Z = np.vstack([rng.normal(c, 1.0, (400, 2)) for c in centres])
    >>> y = np.r_[np.zeros(400, int), np.ones(400, int), rng.integers(0, 2, 400)]
    >>> y_pred = np.r_[np.zeros(400, int), np.ones(400, int), 1 - y[800:]]
    >>> fs = finite_sample_lambda(Z, y, y_pred, n_boot=50)
    >>> bool(0.0 < fs.lambda_pre < 1.0), bool(fs.r1_lower < fs.r1_model < 1.0)
    (True, True)
    >>> bool(fs.r2_upper > fs.r2_model)
    True
    """
    method = check_method(method, ("boole", "hunter_worsley", "gaussian_exact"))
    contamination = check_choice(contamination, ("attractor", "voronoi"), "contamination")
    delta = check_delta(delta)
    n_boot = as_int(n_boot, "n_boot", lower=20, upper=MAX_BOOT)
    generator = as_generator(rng, "rng")
    geometry = estimate_geometry(Z, y, y_pred, n_classes=n_classes)
    C = geometry.n_classes
    Z_a = scaled(np.asarray(Z, dtype=np.float64))[0]
    N = Z_a.shape[0]  # rates do not change with the scale
    y_a = np.asarray(y).astype(np.int64)
    y_pred_a = np.asarray(y_pred).astype(np.int64)
    errors = y_pred_a != y_a
    n_errors, n_correct = int(errors.sum()), int((~errors).sum())
    part = delta / 4.0  # 0.0 for a subnormal delta: the Hoeffding terms use log(1/part)
    log_inverse_part = math.log(4.0) - math.log(delta)
    r1_model = float(capture(geometry, method))
    r2_model = float(contamination_of(geometry))
    if n_errors < FINITE_SAMPLE_MIN_ERRORS or n_correct == 0:
        return FiniteSampleBound(
            0.0, 0.0, 1.0, contamination, 1.0, 1.0, r1_model, r2_model, 1.0, method, delta,
            n_errors, n_correct, n_boot, 0.0, 1.0,
        )  # fmt: skip
    traces = covariance_traces(Z_a, y_a, y_pred_a, C)
    centre = quadratic_moments(Z_a, y_a, y_pred_a, C, traces)
    centre_geometry = geometry_from_moments(centre)
    # Half-sample replicates: every group (the errors, the clean samples of each class) split
    # in two random halves; half the difference of the two halves' unbiased forms is a
    # mean-zero deviation whose variance is at least that of the full-sample forms.
    group = np.where(errors, C, y_a)
    cell_of = np.where(errors, C + y_a, y_a)  # (clean, c) -> c, (error, c) -> C + c
    cell_counts = np.bincount(cell_of, minlength=2 * C)
    boot_r1, boot_r2 = np.empty(n_boot), np.empty(n_boot)
    for b in range(n_boot):
        first = _random_halves(group, generator)
        one = quadratic_moments(Z_a[first], y_a[first], y_pred_a[first], C, traces)
        two = quadratic_moments(Z_a[~first], y_a[~first], y_pred_a[~first], C, traces)
        # The shares' own sampling noise: the counts of a multinomial resample of the rows.
        drawn = generator.multinomial(N, cell_counts / N)
        clean_n, error_n = drawn[:C].astype(float), drawn[C:].astype(float)
        class_n = clean_n + error_n
        eps_c = np.zeros(C)
        np.divide(error_n, class_n, out=eps_c, where=class_n > 0)
        pseudo = dataclasses.replace(
            centre,
            eps=error_n.sum() / N,
            pi=class_n / N,
            eps_c=eps_c,
            **{
                name: getattr(centre, name) + 0.5 * (getattr(one, name) - getattr(two, name))
                for name in ("distance2", "pool", "own")
            },
        )
        g = geometry_from_moments(pseudo)
        boot_r1[b] = float(capture(g, method))
        boot_r2[b] = float(contamination_of(g))
    r1_lower = max(
        0.0,
        float(np.quantile(boot_r1, part, method="inverted_cdf"))
        - hoeffding_deviation(n_errors, log_inverse_part),
    )
    r2_attractor = min(
        1.0,
        float(np.quantile(boot_r2, 1.0 - part, method="inverted_cdf"))
        + hoeffding_deviation(n_correct, log_inverse_part),
    )
    in_cell = _attractor_cell(Z_a, y_a, errors, C)
    k = int(np.count_nonzero(in_cell & ~errors))
    r2_voronoi = _clopper_pearson_upper(k, n_correct, part)
    r2_upper = r2_attractor if contamination == "attractor" else r2_voronoi
    lam = float(critical(np.asarray(geometry.eps), np.asarray(r1_lower), np.asarray(r2_upper)))
    return FiniteSampleBound(
        lambda_pre=lam,
        r1_lower=r1_lower,
        r2_upper=r2_upper,
        contamination=contamination,
        r2_upper_attractor=r2_attractor,
        r2_upper_voronoi=r2_voronoi,
        r1_model=r1_model,
        r2_model=r2_model,
        r2_share=k / n_correct,
        method=method,
        delta=delta,
        n_errors=n_errors,
        n_correct=n_correct,
        n_boot=n_boot,
        r1_unbiased=float(capture(centre_geometry, method)),
        r2_unbiased=float(contamination_of(centre_geometry)),
    )


def contamination_of(geometry: Geometry) -> np.ndarray:
    """The attractor r̂2 (the valid predictors' contamination bound), unvalidated."""
    return contamination(geometry, "boole")
