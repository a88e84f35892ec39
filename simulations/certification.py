r"""Certify that rejecting pays: GCUL's calibration certificate and its cross-fitted variant.

:func:`certify` judges a fitted GCUL (or a fitted ``Pipeline`` ending in one) on held-out
calibration data; :func:`certify_cross_fit` fits one model per fold and judges each on the fold
it never saw, for users with no spare rows. Both speak about the utility of rejecting,

.. math:: U(\lambda) = \varepsilon - \varepsilon_{sel} - \lambda\rho ,

of section ``subsec:selectivity_score`` of the GCUL paper [1]_ (ε the base error, ε_sel the
error among accepted samples, ρ the rejection rate), through the finite-sample bounds of
:func:`gcul_theory.utility_confidence_bounds`, :func:`gcul_theory.certified_lambda` and
:func:`gcul_theory.cross_fit_utility_bounds`. :meth:`simulations.gcul.GCUL.certify` and
:meth:`~simulations.gcul.GCUL.certify_cross_fit` call these functions.

References
----------
.. [1] "Ambiguity identification in text emotion classification via cluster-guided learning"
   (the GCUL paper), section ``subsec:selectivity_score``.
"""

from __future__ import annotations

import dataclasses
from numbers import Integral
from typing import Any, NamedTuple

import numpy as np
from sklearn.base import clone
from sklearn.pipeline import Pipeline
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_consistent_length, check_is_fitted, column_or_1d

import gcul_theory
from simulations.models._numerics import encode_known_labels, encode_labels
from simulations.statistics import random_folds, stratified_split  # re-exported: the old path
from simulations.validation import check_real

__all__ = [
    "Certificate",
    "CrossFitCertificate",
    "SelectiveOutcomes",
    "certify",
    "certify_cross_fit",
    "random_folds",
    "stratified_split",
]


class SelectiveOutcomes(NamedTuple):
    r"""Per-sample outcomes of a fitted GCUL on labelled data, and the rates they give.

    What :meth:`simulations.gcul.GCUL.indicators` returns: the one measurement of a fitted GCUL
    on a test (or calibration) split that the sweep (:mod:`simulations.sweep.cell`), the
    rejectors' evaluation, :func:`simulations.compare.compare`, :func:`certify` and the benchmarks
    share; the three arrays are the inputs of :func:`gcul_theory.utility_confidence_bounds`.

    Notes
    -----
    With :math:`n` samples, :math:`\varepsilon` = ``base_error``, :math:`\rho` =
    ``rejection_rate`` and :math:`\varepsilon_{sel}` = ``selective_error`` (0 when nothing is
    accepted), :meth:`empirical_lambda` is the realised critical cost
    :math:`\lambda^*_{EMP} = (\varepsilon - \varepsilon_{sel})/\rho` (0 when nothing is
    rejected) of :func:`gcul_theory.empirical_lambda` (metric "EMP λ*" of the paper's
    ``tab:metrics``).

    Examples
    --------
    >>> import numpy as np
    >>> outcomes = SelectiveOutcomes(
    ...     base_wrong=np.array([True, True, False, False]),
    ...     selective_wrong=np.array([False, False, True, False]),
    ...     rejected=np.array([True, True, False, False]),
    ... )
    >>> [float(rate) for rate in (outcomes.base_error, outcomes.rejection_rate)]
    [0.5, 0.5]
    >>> float(outcomes.selective_error)  # 1 wrong of the 2 accepted
    0.5
    >>> outcomes.empirical_lambda()
    0.0
    """

    base_wrong: np.ndarray
    """Phase 1 (the base classifier) is wrong."""
    selective_wrong: np.ndarray
    """GCUL accepted the sample *and* is wrong (never true on a rejected sample)."""
    rejected: np.ndarray
    """GCUL rejected the sample."""

    @property
    def base_error(self) -> float:
        """ε: the share of the samples that phase 1 gets wrong."""
        return np.count_nonzero(self.base_wrong) / self.base_wrong.size

    @property
    def rejection_rate(self) -> float:
        """ρ: the share of the samples that GCUL rejects."""
        return np.count_nonzero(self.rejected) / self.rejected.size

    @property
    def selective_error(self) -> float:
        """ε_sel: the share of the accepted samples that GCUL gets wrong; 0 if it accepts none."""
        n_accepted = self.rejected.size - np.count_nonzero(self.rejected)
        return np.count_nonzero(self.selective_wrong) / n_accepted if n_accepted else 0.0

    def empirical_lambda(self) -> float:
        """λ*_EMP of these outcomes (Notes), as a float."""
        return float(
            gcul_theory.empirical_lambda(self.base_error, self.selective_error, self.rejection_rate)
        )


@dataclasses.dataclass(frozen=True)
class Certificate:
    """Result of :func:`certify` (and :meth:`simulations.gcul.GCUL.certify`).

    Attributes
    ----------
    lambda_cert : float
        λ*_CERT: the largest cost at which rejecting is certified to pay (0 if none).
    gain_lower, gain_upper : float
        One-sided (1 − δ) lower and upper confidence bounds on U(lam) = ε − ε_sel − lam·ρ;
        together a (1 − 2δ) interval.
    feasible : bool
        ``gain_lower > 0``: rejecting at cost ``lam`` pays, with confidence 1 − δ.
    n : int
        Calibration samples.
    lam, delta : float
        The cost and the risk certified.
    """

    lambda_cert: float
    gain_lower: float
    gain_upper: float
    feasible: bool
    n: int
    lam: float
    delta: float


@dataclasses.dataclass(frozen=True)
class CrossFitCertificate(Certificate):
    """Result of :func:`certify_cross_fit` (and :meth:`simulations.gcul.GCUL.certify_cross_fit`).

    A :class:`Certificate` (its fields, in its order) of the fold models' *average* utility, with
    the folds it averages.

    Attributes
    ----------
    lambda_cert : float
        The largest cost at which the *average* utility of the K fold models is certified
        positive (0 if none).
    gain_lower, gain_upper : float
        The averages over the folds of each fold's one-sided (1 − δ/K) bounds on its U(lam):
        with probability at least 1 − δ, ``gain_lower`` ≤ the average utility (and the same for
        ``gain_upper`` from above).
    feasible : bool
        ``gain_lower > 0``.
    n : int
        Rows used, every one held out exactly once.
    lam, delta : float
        The cost and the total risk.
    n_splits, seed : int
        Folds K and the seed of their assignment.
    folds : tuple of Certificate
        Each fold model's own certificate on its held-out fold, at risk δ/K.
    """

    n_splits: int
    seed: int
    folds: tuple[Certificate, ...]


def _final_step(estimator: Any, what: str):
    """``(final GCUL, transform of the steps before it or None)`` of a GCUL or a Pipeline."""
    if isinstance(estimator, Pipeline):
        final, head = estimator.steps[-1][1], estimator[:-1]
    else:
        final, head = estimator, None
    if not callable(getattr(final, "indicators", None)):
        raise TypeError(
            f"estimator must be {what} GCUL or a sklearn Pipeline whose last step is one; got "
            f"{type(final).__name__}" + (" as the last step" if head is not None else "")
        )
    return final, head


def certify(estimator, X_cal, y_cal, lam: float = 0.15, delta: float = 0.05) -> Certificate:
    """Certify on held-out data that rejecting pays at cost ``lam``, with risk ``delta``.

    Parameters
    ----------
    estimator : GCUL or sklearn.pipeline.Pipeline
        A fitted :class:`~simulations.gcul.GCUL`, or a fitted ``Pipeline`` whose last step is
        one: ``X_cal`` then goes through the earlier steps' ``transform`` first, as
        ``Pipeline.predict`` sends it.
    X_cal : array_like of shape (n, n_features)
        Calibration features, *not* used in ``fit`` (iid with the deployment data).
    y_cal : array_like of shape (n,)
        Their labels, each one of the model's ``classes_``.
    lam : float, default=0.15
        Relative rejection cost λ ∈ [0, 1).
    delta : float, default=0.05
        Risk δ ∈ (0, 1).

    Returns
    -------
    Certificate
        λ*_CERT (:func:`gcul_theory.certified_lambda`), the one-sided (1 − δ) lower and upper
        bounds on the utility U(lam) (:func:`gcul_theory.utility_confidence_bounds`, method
        ``"betting"``), ``feasible = gain_lower > 0``, ``n``, ``lam`` and ``delta``.

    Raises
    ------
    sklearn.exceptions.NotFittedError
        The model (or an earlier pipeline step) is not fitted.
    TypeError
        ``estimator`` is neither a GCUL nor a Pipeline ending in one.
    ValueError
        Bad calibration data (a label outside ``classes_``, another number of features than
        in ``fit``, NaN/inf), ``lam`` outside [0, 1), ``delta`` outside (0, 1).

    Notes
    -----
    The guarantee (:func:`gcul_theory.certified_lambda`) holds for calibration rows that are
    iid draws of the deployment law, independent of the data the model was fitted on; it is
    about this fitted model. Fit a pipeline's scaler on the fitting rows only (as ``Pipeline``
    does): a scaler that saw the calibration rows would make the model depend on them.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from simulations.gcul import GCUL
    >>> rng = np.random.default_rng(0)
    >>> centres = np.array([[-6.0, 0.0], [6.0, 0.0], [0.0, 8.0]])
    >>> def draw(k):
    ...     X = np.concatenate([rng.normal(c, 1.0, (k, 2)) for c in centres]
    ...                        + [rng.normal(centres.mean(axis=0), 1.0, (k, 2))])
    ...     return X, np.concatenate([np.repeat([0, 1, 2], k), rng.integers(0, 3, k)])
    >>> pipeline = make_pipeline(StandardScaler(), GCUL()).fit(*draw(200))
    >>> certificate = certify(pipeline, *draw(200))
    >>> certificate.n, bool(certificate.gain_lower <= certificate.gain_upper)
    (800, True)
    """
    final, head = _final_step(estimator, "a fitted")
    check_is_fitted(final)
    y_cal = column_or_1d(y_cal)
    encode_known_labels(y_cal, final.classes_, "y_cal")  # checked here to name y_cal
    if head is not None:
        X_cal = head.transform(X_cal)
    base_wrong, selective_wrong, rejected = final.indicators(X_cal, y_cal)
    lower, upper = gcul_theory.utility_confidence_bounds(
        base_wrong, selective_wrong, rejected, lam=lam, delta=delta
    )
    return Certificate(
        lambda_cert=gcul_theory.certified_lambda(
            base_wrong, selective_wrong, rejected, delta=delta
        ),
        gain_lower=lower,
        gain_upper=upper,
        feasible=bool(lower > 0.0),
        n=int(rejected.size),
        lam=float(lam),
        delta=float(delta),
    )


def _rows(X, mask: np.ndarray):
    """The rows of ``X`` selected by a boolean mask (a DataFrame by position)."""
    return X.iloc[np.flatnonzero(mask)] if hasattr(X, "iloc") else X[mask]


def certify_cross_fit(
    estimator,
    X,
    y,
    lam: float = 0.15,
    delta: float = 0.05,
    n_splits: int = 5,
    seed: int = 0,
) -> CrossFitCertificate:
    r"""Certify by K-fold cross-fitting, for users with no spare calibration data.

    The rows are split into ``n_splits`` folds by a uniformly random partition drawn
    independently of the data (:func:`random_folds`, seeded by
    ``numpy.random.SeedSequence(seed)``); for each fold k a clone of ``estimator`` (its
    hyper-parameters, unfitted: :func:`sklearn.base.clone`) is fitted on the other folds and
    judged on fold k, which it never saw. ``estimator`` itself is neither used as a fitted
    model nor modified. A ``Pipeline`` is cloned whole, so its earlier steps (a scaler) are
    fitted on each fold's training part only.

    Parameters
    ----------
    estimator : GCUL or sklearn.pipeline.Pipeline
        A :class:`~simulations.gcul.GCUL`, or a ``Pipeline`` whose last step is one; fitted or
        not.
    X : array_like of shape (n_samples, n_features)
        All the labelled data there is (what the pipeline's first step accepts).
    y : array_like of shape (n_samples,)
        Labels, every class at least twice; the random partition must leave every class in
        every fold's training part (else ``ValueError``).
    lam : float, default=0.15
        Relative rejection cost λ ∈ [0, 1).
    delta : float, default=0.05
        Total risk δ ∈ (0, 1), split equally over the folds.
    n_splits : int, default=5
        Number of folds K, at least 2 and at most ``n_samples``.
    seed : int, default=0
        Seed of the random fold assignment, in ``[0, 2**32)``. Choose it before looking at
        the result: redrawing the partition until a certificate appears voids the guarantee.

    Returns
    -------
    CrossFitCertificate
        ``lambda_cert``, ``gain_lower`` and ``gain_upper`` speak about the *average* utility
        of the K fold models (:func:`gcul_theory.cross_fit_utility_bounds`); ``folds`` holds
        each fold's own certificate at risk δ/K.

    Raises
    ------
    TypeError
        ``estimator`` is neither a GCUL nor a Pipeline ending in one; ``delta``/``lam`` not
        numbers.
    ValueError
        Bad ``lam``, ``delta``, ``n_splits`` or ``seed``; a class with fewer than two rows; a
        partition that puts every row of a class in one fold; whatever the fold fits refuse.

    Notes
    -----
    What is guaranteed, for iid rows (features and labels) of the deployment law: with
    probability at least 1 − δ, ``gain_lower`` is at most the average over the K fold models of
    their utilities U_k(lam), and for every fixed λ, P(``lambda_cert`` > λ and that average
    utility at λ is ≤ 0) ≤ δ (the argument, a union bound over the folds' betting bounds at
    δ/K, is in :func:`gcul_theory.cross_fit_utility_bounds`).

    Why the folds are not stratified by label: a stratified assignment is a function of the
    labels, so a fold's label counts are fixed by the other folds' labels and its rows are
    no longer an iid sample of the law (given the labels, they are independent but not
    identically distributed, and the betting bound's argument needs iid rows). A class
    whose rows the random partition puts all in one fold would be missing from that fold
    model's training part; that case is refused (``ValueError``), which removes outcomes
    and so cannot raise the risk above δ.

    Each fold is certified alone, at δ/K, with n/K samples, which costs tightness against one
    held-out split of the same size (a fold model that cannot reject contributes the trivial
    bound -1 - λ). On 4,000 rows of the Examples' geometry (1,000 per blob), K = 5 gave
    λ*_CERT = 0.39 against 0.44 for :func:`certify` on one random 20% split (fold 0 of
    ``random_folds(4000, 5, seed=0)``): cross-fitting does not buy tightness; it serves users
    who cannot spare rows.

    What is *not* guaranteed: anything about the model refitted on all rows (the one a user
    would deploy), which none of the folds judged. It is usually close to the fold models
    (trained on (K-1)/K of the data) but no finite-sample statement covers it; for that,
    hold out calibration data and use :func:`certify`.

    Examples
    --------
    >>> import numpy as np
    >>> from simulations.gcul import GCUL
    >>> rng = np.random.default_rng(0)
    >>> centres = np.array([[-6.0, 0.0], [6.0, 0.0], [0.0, 8.0]])
    >>> X = np.concatenate([rng.normal(c, 1.0, (300, 2)) for c in centres]
    ...                    + [rng.normal(centres.mean(axis=0), 1.0, (300, 2))])
    >>> y = np.concatenate([np.repeat([0, 1, 2], 300), rng.integers(0, 3, 300)])
    >>> cert = certify_cross_fit(GCUL(), X, y, n_splits=3)
    >>> len(cert.folds), cert.n, bool(cert.gain_lower <= cert.gain_upper)
    (3, 1200, True)
    """
    _final_step(estimator, "a")
    if not hasattr(X, "iloc"):
        X = np.asarray(X)
    y = column_or_1d(y)
    check_consistent_length(X, y)
    check_classification_targets(y)
    # the ranges gcul_theory.cross_fit_utility_bounds accepts: lam in [0, 1), delta in (0, 1)
    lam = check_real("lam", lam, 0.0, 1.0, open_high=True)
    delta = check_real("delta", delta, 0.0, 1.0, open_low=True, open_high=True)
    n = y.size
    if not isinstance(n_splits, Integral) or isinstance(n_splits, bool) or not 2 <= n_splits <= n:
        raise ValueError(f"n_splits must be an integer in [2, n_samples = {n}]; got {n_splits!r}")
    classes, y_encoded = encode_labels(y)
    labels = classes.tolist()  # Python scalars, for messages
    counts = np.bincount(y_encoded, minlength=classes.size)
    if counts.min() < 2:
        c = int(np.argmin(counts))
        raise ValueError(
            f"y must hold every class at least twice for cross-fitting; class {labels[c]!r} "
            f"occurs {int(counts[c])} time(s)"
        )
    folds = random_folds(n, int(n_splits), seed)
    for k in range(n_splits):
        trained = np.bincount(y_encoded[folds != k], minlength=classes.size)
        if not trained.all():
            c = int(np.flatnonzero(trained == 0)[0])
            raise ValueError(
                f"the random fold assignment (seed {seed}) put all {int(counts[c])} rows of "
                f"class {labels[c]!r} in fold {k}, so that fold's model could not learn it; use "
                "fewer folds (n_splits) or certify on held-out data (GCUL.certify)"
            )
    outcomes, sizes = [], []
    for k in range(n_splits):
        held_out = folds == k
        model = clone(estimator).fit(_rows(X, ~held_out), y[~held_out])
        final, head = _final_step(model, "a")
        X_held = _rows(X, held_out)
        if head is not None:
            X_held = head.transform(X_held)
        outcomes.append(final.indicators(X_held, y[held_out]))
        sizes.append(int(held_out.sum()))
    bounds = gcul_theory.cross_fit_utility_bounds(outcomes, lam=lam, delta=delta)
    fold_delta = delta / n_splits
    certificates = tuple(
        Certificate(
            lambda_cert=lambda_cert,
            gain_lower=lower,
            gain_upper=upper,
            feasible=bool(lower > 0.0),
            n=size,
            lam=lam,
            delta=fold_delta,
        )
        for lambda_cert, lower, upper, size in zip(
            bounds.fold_lambda_cert, bounds.fold_lower, bounds.fold_upper, sizes, strict=True
        )
    )
    return CrossFitCertificate(
        lambda_cert=bounds.lambda_cert,
        gain_lower=bounds.lower,
        gain_upper=bounds.upper,
        feasible=bool(bounds.lower > 0.0),
        n=int(n),
        lam=lam,
        delta=delta,
        n_splits=int(n_splits),
        seed=int(seed),
        folds=certificates,
    )
