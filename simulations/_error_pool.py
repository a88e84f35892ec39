"""Phase 1's error pool, in sample or out of fold: the folds and the out-of-fold predictions.

:class:`simulations.gcul.GCUL` (``error_pool="out_of_fold"``) and ``gcul feasibility
--error-pool out_of_fold`` draw the same folds from the same seed, so λ*_PRE describes exactly the
pool that GCUL clusters. Public through :mod:`simulations.gcul`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from simulations.statistics import stratified_folds  # the one implementation, re-exported

__all__ = [
    "ERROR_POOLS",
    "few_errors",
    "out_of_fold_predictions",
    "phase1_regime",
    "regime_suggestions",
    "stratified_folds",
]

ERROR_POOLS = ("in_sample", "out_of_fold")
"""The two error pools of phase 1: its training errors (the paper's), or its out-of-fold errors."""


def few_errors(n_errors: int, n_classes: int) -> bool:
    """Whether an error pool of ``n_errors`` rows is too small for phase 2: ``n_errors <= K``.

    Phase 2 runs K-Means with ``K + 1`` clusters, the last one started at the pool's median, and
    relabels the least pure cluster ``uncertain``. With no error there is no such cluster and
    GCUL cannot reject. With at most ``K`` errors there are fewer error rows than clusters: the
    pool cannot fill even one cluster beside the ``K`` class clusters, so the uncertain cluster is
    chosen by the purity of clusters of correctly classified rows, not by a confusion region,
    and the pool's covariance (ddof = 1, the geometry behind λ*_PRE) rests on at most ``K``
    points, too few to estimate anything: rejection, if any, does not come from phase 1's
    confusion. (``K >= 2``, so the threshold also covers the single error, whose covariance is
    undefined.)

    Examples
    --------
    >>> few_errors(0, 10), few_errors(10, 10), few_errors(11, 10)
    (True, True, False)
    """
    return n_errors <= n_classes


def out_of_fold_predictions(
    X: np.ndarray, y: np.ndarray, folds: np.ndarray, *, C: float = 1.0, max_iter: int = 500
) -> np.ndarray:
    """Phase 1's out-of-fold predictions: each fold predicted by a model fitted on the others.

    Each model is GCUL's phase 1 (:class:`~simulations.models.LogisticRegression` with ``C`` and
    ``max_iter``) fitted on the rows outside the fold. A class absent from those rows cannot be
    predicted for the fold (its rows there are errors); when those rows hold a single class, the
    fold is predicted as that class (what a one-class model predicts).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Finite float64 features (validated by the caller).
    y : ndarray of shape (n_samples,)
        Labels.
    folds : ndarray of shape (n_samples,)
        Fold id of each row (:func:`stratified_folds`).
    C, max_iter : float, int
        Phase 1's parameters.

    Returns
    -------
    ndarray of shape (n_samples,)
        The prediction of every row, a label of ``y``.
    """
    # imported here: this module is light (``gcul feasibility``'s parser imports it), the models
    # bring scikit-learn
    from simulations.models import LogisticRegression, single_threaded_blas
    from simulations.models._design import scaled_design
    from simulations.models._logistic import fit_design

    y = np.asarray(y)
    y_pred = np.empty_like(y)
    with single_threaded_blas():
        for fold in np.unique(folds):
            held = folds == fold
            rest_labels = y[~held]
            if np.unique(rest_labels).size < 2:
                y_pred[held] = rest_labels[0]
                continue
            model = fit_design(
                LogisticRegression(C=C, max_iter=max_iter),
                scaled_design(np.ascontiguousarray(X[~held])),
                rest_labels,
                stacklevel=3,
            )
            y_pred[held] = model.predict(X[held])
    return y_pred


STANDARDIZED_MEAN = 0.5
"""A feature counts as standardised when its mean is within this of 0 (and its SD as below)."""

STANDARDIZED_SD = (0.5, 2.0)
"""... and its standard deviation (ddof = 0, as ``StandardScaler``) within this range; a
constant feature (SD 0) counts as standardised too, as scaling leaves it constant."""

_ROWS_PER_BLOCK = 8192  # rows read at once: the moments of a memory-mapped file without a copy


def looks_standardized(Z: np.ndarray) -> bool:
    """Whether every feature of ``Z`` is already about standardised, so that ``--standardize``
    would change little: its mean within :data:`STANDARDIZED_MEAN` of 0 and its standard
    deviation in :data:`STANDARDIZED_SD` (or 0).

    Computed in blocks of rows in float64 (two passes: the means, then the squared deviations),
    so a memory-mapped ``Z`` is read, never copied whole.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> Z = rng.normal(0.0, 1.0, (500, 3))
    >>> looks_standardized(Z), looks_standardized(16 * Z + 8), looks_standardized(Z / 30)
    (True, False, False)
    """
    n = Z.shape[0]
    if n == 0:
        return True
    blocks = range(0, n, _ROWS_PER_BLOCK)
    total = np.zeros(Z.shape[1])
    for start in blocks:
        total += np.sum(Z[start : start + _ROWS_PER_BLOCK], axis=0, dtype=np.float64)
    mean = total / n
    squares = np.zeros(Z.shape[1])
    for start in blocks:
        block = np.asarray(Z[start : start + _ROWS_PER_BLOCK], dtype=np.float64) - mean
        squares += np.einsum("ij,ij->j", block, block)
    sd = np.sqrt(squares / n)
    low, high = STANDARDIZED_SD
    # constant: an SD at the rounding of the mean (the two passes leave ~1e-16 |mean| there)
    constant = sd <= 1e-9 * (1.0 + np.abs(mean))
    scaled = constant | ((sd >= low) & (sd <= high))
    return bool(np.all((np.abs(mean) <= STANDARDIZED_MEAN) & scaled))


def regime_suggestions(
    error_pool: str,
    standardize: bool,
    name: Callable[[str], str],
    Z: np.ndarray | None = None,
) -> list[str]:
    """The options not yet used that give phase 1 errors to learn from, as the caller spells
    them: ``name("error_pool")`` starting with ``--`` means the command line
    (``--error-pool out_of_fold``, ``--standardize``), else Python (``error_pool='out_of_fold'``,
    ``standardize=True``). ``error_pool="given"`` (predictions supplied) suggests no pool.
    Standardising is suggested only for features that are not already about standardised
    (:func:`looks_standardized` of ``Z``, the features as given; without ``Z`` it is suggested
    whenever it is off).

    Examples
    --------
    >>> regime_suggestions("in_sample", False, {"error_pool": "--error-pool",
    ...                                         "standardize": "--standardize"}.get)
    ['--error-pool out_of_fold', '--standardize']
    >>> regime_suggestions("out_of_fold", False, str)
    ['standardize=True']
    """
    cli = name("error_pool").startswith("--")
    out = []
    if error_pool == "in_sample":
        out.append(f"{name('error_pool')} out_of_fold" if cli else "error_pool='out_of_fold'")
    if not standardize and (Z is None or not looks_standardized(Z)):
        out.append(name("standardize") if cli else "standardize=True")
    return out


def phase1_regime(
    n_errors: list[int],
    n_classes: int,
    error_pool: str,
    suggestions: list[str],
    unit: str = "splits",
) -> str | None:
    """One line saying that phase 1 left GCUL no (or too few) errors to reject by; else ``None``.

    Parameters
    ----------
    n_errors : list of int
        Size of the error pool of each fit (one per split of ``gcul compare``; one for ``gcul
        feasibility``).
    n_classes : int
        Number of classes ``K``; a pool of at most ``K`` errors is too few (:func:`few_errors`).
    error_pool : {"in_sample", "out_of_fold"}
        Which pool the sizes are of.
    suggestions : list of str
        What to try, as the caller's interface spells it (``"--error-pool out_of_fold"``,
        ``"standardize=True"``, ...); none left means the classes look separable.
    unit : str, default "splits"
        What the fits are, when there are several.

    Returns
    -------
    str or None

    Examples
    --------
    >>> print(phase1_regime([0, 0, 5], 10, "in_sample", ["--error-pool out_of_fold"]))
    ... # doctest: +NORMALIZE_WHITESPACE
    phase 1 makes no training error (in-sample pool: it separates its training rows) in 2 of 3
    splits, and at most K = 10 errors, fewer than phase 2's 11 clusters, in 1 more of 3 splits,
    so GCUL cannot reject, or rejects around a few isolated errors rather than a confusion region:
    try --error-pool out_of_fold
    >>> phase1_regime([12, 40], 10, "in_sample", []) is None
    True
    """
    total = len(n_errors)
    empty = sum(n == 0 for n in n_errors)
    few = sum(n > 0 and few_errors(n, n_classes) for n in n_errors)
    if not empty and not few:
        return None
    noun = "training error" if error_pool == "in_sample" else "out-of-fold error"
    pool = "in-sample pool" if error_pool == "in_sample" else "out-of-fold pool"
    # no in-sample error at all: phase 1 separates its training rows, say it
    separated = f"{pool}: it separates its training rows" if error_pool == "in_sample" else pool
    scarce = f"at most K = {n_classes} errors, fewer than phase 2's {n_classes + 1} clusters"
    if total == 1:
        if empty:
            head = f"phase 1 makes no {noun} ({separated})"
        else:
            head = f"phase 1 makes only {n_errors[0]} {noun}s ({pool}; {scarce})"
    else:
        parts = [f"no {noun} ({separated}) in {empty} of {total} {unit}"] if empty else []
        if few:
            parts.append(f"{scarce}, in {few}{' more' if empty else ''} of {total} {unit}")
        head = "phase 1 makes " + ", and ".join(parts)
    if few:  # a few errors make clusters of one or two samples: GCUL may reject, but not a region
        consequence = (
            "so GCUL cannot reject, or rejects around a few isolated errors rather than a"
            " confusion region"
            if empty
            else "so GCUL rejects, if at all, around a few isolated errors rather than a confusion"
            " region"
        )
    else:
        consequence = "so GCUL cannot reject"
    advice = (
        "try " + " or ".join(suggestions)
        if suggestions
        else "the classes look separable here; rejecting has little to catch"
    )
    return f"{head}, {consequence}: {advice}"
