"""The science of one sweep cell: two GCUL fits on one ``(seed, σ)`` dataset, every λ* measured.

:func:`run_cell` computes one row of :data:`~simulations.results.ROW_COLUMNS`: λ*_PRE of every
predictor of :data:`gcul_theory.PREDICTORS` for a GCUL fitted on the whole training split, λ*_EMP of
that model on the test split, and the certified λ*_CERT of a second GCUL fitted on 80% of the
training split (:func:`certified_columns`). A row depends only on ``(seed, σ, config)``.

The certified fit (:func:`certified_columns`): a second GCUL fitted on 80% of the training split,
certified on the other 20%, adds three numbers to a cell:

``lambda_cert``
    λ*_CERT of :func:`gcul_theory.certified_lambda`, computed from the per-sample indicators of a
    held-out *calibration* part of the training split, for a GCUL fitted on the rest of it.
``lambda_emp_cert``
    λ*_EMP = (ε − ε_sel)/ρ measured on the test split for that *same* model, so the certified
    predictor is judged against the model it speaks for (the paper's ``lambda_emp`` column is
    measured for the model fitted on the whole training split, which is a different model).
``lambda_emp_cert_noisy``
    The same λ*_EMP with the test labels flipped by the protocol's own flip process at that σ
    (``Dataset.y_test_noisy``). The certificate speaks about the law of its calibration labels,
    which are flipped; with uniform flips at rate η over K classes the noisy-label utility is
    (1 − ηK/(K − 1)) times the clean one, so only this column judges the guarantee itself
    (the same label distribution on both sides); ``lambda_emp_cert`` judges what a user of
    clean labels would see.

The calibration part is a deterministic function of the seed only: a permutation drawn from
``numpy.random.SeedSequence([seed, CALIBRATION_TAG])``. It is the same for every σ of a seed (the
training split has the same samples, in the same order, at every σ: common random numbers), so the
trajectory of λ*_CERT in σ is smooth like the rest of the sweep.

References
----------
.. [1] "GCUL: Ambiguity Identification in Text Emotion Classification via Cluster-Guided
   Learning" (the GCUL paper), Section "Synthetic phase-transition verification"
   (``subsec:synthetic_exp``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

import gcul_theory
from simulations import registry
from simulations.models import single_threaded_blas
from simulations.rejectors.evaluate import evaluation_columns, score_cell
from simulations.results import (
    CONTAMINATION_MODELS,
    check_geometry_labels,
    check_row,
    contamination_column,
)
from simulations.synthetic import (
    Dataset,
    SyntheticConfig,
    check_config,
    check_noise,
    check_seed,
    make_dataset_unchecked,
)
from simulations.validation import (
    check_int,
    check_real,
    error_pool_renamed,
    removed_parameters,
)

if TYPE_CHECKING:  # scikit-learn loads in the workers, not the parent
    from simulations.certification import SelectiveOutcomes

__all__ = [
    "CALIBRATION_TAG",
    "DEFAULT_CONFIG",
    "LAMBDA_METHODS",
    "calibration_split",
    "certified_columns",
    "certified_indicators",
    "compute_row",
    "fit_and_measure",
    "fit_certified_model",
    "run_cell",
    "share",
]

DEFAULT_CONFIG = SyntheticConfig()
"""The paper's protocol (:class:`simulations.synthetic.SyntheticConfig` defaults)."""

LAMBDA_METHODS: tuple[str, ...] = tuple(entry.name for entry in gcul_theory.PREDICTORS)
"""Every predictor of :data:`gcul_theory.PREDICTORS`, reported side by side
(``lambda_pre_<method>``, ``r1_hat_<method>``)."""


@error_pool_renamed
def run_cell(
    seed: int,
    noise: float,
    config: SyntheticConfig = DEFAULT_CONFIG,
    *,
    level: int = -1,
    model_factory: Callable[[], Any] | None = None,
    profile: dict[str, float] | None = None,
    geometry_labels: str = "observed",
) -> dict[str, int | float]:
    """Fit GCUL on one ``(seed, σ)`` dataset and measure predicted, certified and empirical λ*.

    Parameters
    ----------
    seed : int
        Non-negative dataset seed.
    noise : float
        Noise level σ ≥ 0 (see :func:`simulations.synthetic.make_dataset`).
    config : SyntheticConfig, optional
        Protocol parameters; the paper's by default.
    level : int, optional
        Index of σ in the sweep's noise grid, stored in the ``level`` column (-1 by default,
        meaning the cell was run outside a sweep).
    model_factory : callable, optional
        Makes the unfitted estimator; :class:`simulations.gcul.GCUL` by default. Another
        implementation of the same three phases (the benchmark's scikit-learn pipeline) must
        expose GCUL's fitted attributes ``phase1_``, ``error_mask_``, ``cluster_labels_``,
        ``uncertain_cluster_``, ``n_classes_`` and ``predict``, and may expose ``train_pred_``
        (else ``phase1_.predict`` is called on the training split); it makes both fits of the
        cell.
    profile : dict, optional
        If given, filled with the wall seconds of two parts of the cell (for benchmarks; the row
        holds no time): ``"gaussian_exact"`` (its r̂1, a quasi-Monte Carlo orthant probability),
        ``"certified"`` (the second fit and the certificate) and ``"rejectors"`` (every rejector
        fitted and evaluated).
    geometry_labels : {"observed", "clean"}, default "observed"
        The training labels that the geometry behind every λ*_PRE (the error pool, the class
        shares and cores of :func:`gcul_theory.estimate_geometry`) is estimated with
        (:data:`simulations.results.GEOMETRY_LABELS`): ``"observed"``, the training labels as
        given (partly flipped), as the paper's Sec. ``subsec:assumptions1`` defines
        E = {ŷ ≠ y}; or ``"clean"``, the training labels before flipping (E = {ŷ ≠ y_clean}),
        the reading that reproduces the paper's ``tab:synthetic_gcul`` column and which no
        deployment can use (it needs to know which labels were flipped).
        Only λ*_PRE, r̂1 and r̂2 change: GCUL is fitted on the observed labels either way, and
        ``eps_train``, the cluster shares, λ*_EMP, the certified and the rejectors' columns are
        the same.

    Returns
    -------
    dict
        One row with the keys of :data:`~simulations.results.ROW_COLUMNS`:

        Training split (observed, possibly flipped labels; ``E`` = phase-1 error pool):
        ``eps_train`` = ``|E|/N``; ``lambda_pre_<m>`` = λ*_PRE and ``r1_hat_<m>`` = r̂1 for each
        predictor ``m`` of :data:`gcul_theory.PREDICTORS` (:data:`LAMBDA_METHODS`); ``r2_hat`` =
        the paper's r̂2 (Eq. (eq:r2_hat), Gaussian tail) and ``r2_hat_<model>`` = r̂2 under each
        other contamination model of the registry (``r2_hat_attractor``: chance-correct attractor
        samples counted); ``r1_cluster`` = ``|U ∩ E|/|E|`` and ``r2_cluster`` =
        ``|U \\ E|/(N - |E|)`` for the uncertain cluster ``U``.

        Test split (clean labels): ``base_acc`` (phase 1), ``selective_acc`` (phase 3 on the
        samples it accepts), ``rejection_rate``, ``lambda_emp`` = (ε - ε_sel)/ρ, ``r1_emp`` (share
        of phase-1 errors that phase 3 rejects), ``r2_emp`` (share of phase-1-correct samples it
        rejects).

        Certified predictor (a second fit, on 80% of the training split; see
        :func:`certified_columns`): ``lambda_cert`` = λ*_CERT
        certified on the other 20% (δ = 0.05) and ``lambda_emp_cert`` = λ*_EMP of that same model
        on the test split (``lambda_emp_cert_noisy``: on its labels flipped as the training
        labels are).

        Rejectors (:mod:`simulations.rejectors.evaluate`, test split): ``sel_risk_<r>`` (every
        rejector's selective risk at GCUL's coverage), ``aurc_<r>``, Chow's rule at λ = 0.15 for
        ``msp`` and ``bayes`` (``coverage_chow_<r>``, ``u_chow_<r>``, ``ujoint_chow_<r>``) and
        ``ujoint_gcul``; ``sel_risk_<r>`` and ``aurc_selectivenet`` are NaN when GCUL accepts
        no test sample.

        Plus ``seed``, ``noise``, ``level`` and ``flip_prob``. Every value lies in its range
        in :data:`~simulations.results.COLUMN_RANGES`; the row holds no wall time.

    Raises
    ------
    TypeError, ValueError
        For a bad seed, noise level, config, level or error pool (the message names the
        argument); a ValueError too if a computed value left its documented range (never
        silently written).

    Notes
    -----
    Conventions for empty denominators, so no row holds NaN: when phase 3 rejects every test
    sample, ``selective_acc`` is 1 (no accepted sample is wrong; then λ*_EMP = ε, the break-even
    cost of rejecting everything); a rate over an empty set (``r1_*`` with no base error,
    ``r2_*`` with no correct sample) is 0.

    BLAS runs single-threaded inside the cell (when ``threadpoolctl`` is importable): the solvers
    make many calls on tiny matrices, where waking BLAS threads costs more than the work.

    Examples
    --------
    >>> from simulations.synthetic import SyntheticConfig
    >>> row = run_cell(16, 0.0, SyntheticConfig(n_per_class=100, n_confusion=100))
    >>> row["seed"], row["noise"], row["flip_prob"]
    (16, 0.0, 0.0)
    >>> 0.0 <= row["rejection_rate"] <= 1.0 and row["lambda_pre_union"] >= 0.0
    True
    """
    config = check_config(config)
    seed = check_seed(seed)
    noise = check_noise(noise, config)
    level = check_int("level", level, -1)
    if profile is not None and not isinstance(profile, dict):
        raise TypeError(f"profile must be a dict or None; got {type(profile).__name__}")
    geometry_labels = check_geometry_labels(geometry_labels)
    row = compute_row(
        seed,
        noise,
        config,
        level=level,
        model_factory=model_factory,
        profile=profile,
        geometry_labels=geometry_labels,
    )
    return check_row(row, f"cell (seed={seed}, noise={noise!r})")


def compute_row(
    seed: int,
    noise: float,
    config: SyntheticConfig,
    *,
    level: int = -1,
    model_factory: Callable[[], Any] | None = None,
    profile: dict[str, float] | None = None,
    geometry_labels: str = "observed",
    scores: dict[str, Any] | None = None,
) -> dict[str, int | float]:
    """The row of :func:`run_cell` for arguments already checked, itself not checked.

    What a sweep's worker runs (:func:`simulations.sweep.backends.cell_task`): the sweep checks
    its arguments once, for the whole grid, and each row once, when it reaches the parent process
    and before it is cached. ``scores``, if given, receives the cell's per-sample rejector scores
    under ``"cell"`` (the :class:`~simulations.rejectors.evaluate.CellScores` its rejector columns
    come from: what the risk-coverage figure draws).
    """
    if model_factory is None:  # imported here: scikit-learn loads in the workers, not the parent
        from simulations.gcul import GCUL

        model_factory = GCUL
    with single_threaded_blas():
        metrics = fit_and_measure(
            make_dataset_unchecked(seed, noise, config),
            model_factory,
            seed,
            profile=profile,
            geometry_labels=geometry_labels,
            scores=scores,
        )
    return {
        "seed": seed,
        "noise": noise,
        "level": level,
        "flip_prob": config.flip_probability(noise),
        **metrics,
    }


@removed_parameters(
    3,
    ("noise", "config"),
    "the cell's sigma and the Bayes rejector's mixture are data's (data.mixture): pass "
    "(data, model_factory, seed, *, profile=None, geometry_labels='observed', scores=None)",
)
def fit_and_measure(
    data: Dataset,
    model_factory: Callable[[], Any],
    seed: int,
    *,
    profile: dict[str, float] | None = None,
    geometry_labels: str = "observed",
    scores: dict[str, Any] | None = None,
) -> dict[str, float]:
    """Every measured column of a cell's row (all but ``seed``, ``noise``, ``level``,
    ``flip_prob``): fit ``model_factory()`` on the training split, predict λ* from its error
    pool (judged against the training labels ``geometry_labels`` names), measure λ*_EMP on the
    test split, add the certified predictor's columns and every rejector's at GCUL's coverage
    (:func:`simulations.rejectors.evaluate.evaluate_cell`, the Bayes rejector's law being
    ``data.mixture``; ``scores``: as :func:`compute_row`). Its arguments are not checked (those
    of :func:`compute_row`, whose dataset is ``data``)."""
    model = model_factory().fit(data.X_train, data.y_train)

    # Training split: predicted λ* from the geometry of the phase-1 error pool, for every
    # predictor of the registry. r̂1 and r̂2 are computed once each and combined exactly as
    # gcul_theory.critical_lambda combines them (the orthant probability of "gaussian_exact" is
    # the expensive part: computing it twice would double it).
    y_pred_train = getattr(model, "train_pred_", None)  # GCUL keeps it from its fit
    if y_pred_train is None:
        y_pred_train = model.phase1_.predict(data.X_train)
    # the geometry of every λ*_PRE: phase 1's predictions judged against the observed labels, or
    # (geometry_labels="clean", the paper's reading) against the labels before flipping
    judged = data.y_train if geometry_labels == "observed" else data.y_train_clean
    geometry = gcul_theory.estimate_geometry(Z=data.X_train, y=judged, y_pred=y_pred_train)
    metrics: dict[str, float] = {}
    r2_by_model = {}
    for model_name in CONTAMINATION_MODELS:
        method = next(p.name for p in gcul_theory.PREDICTORS if p.contamination == model_name)
        r2_by_model[model_name] = gcul_theory.contamination_rate_bound(geometry, method)
        metrics[contamination_column(model_name)] = float(r2_by_model[model_name])
    for entry in gcul_theory.PREDICTORS:
        start = time.perf_counter()
        r1 = gcul_theory.capture_rate_bound(geometry, entry.name)
        if profile is not None and entry.name == "gaussian_exact":
            profile["gaussian_exact"] = time.perf_counter() - start
        r2 = r2_by_model[entry.contamination]
        lambda_pre = gcul_theory.critical_lambda_from_rates(geometry.eps, r1, r2)
        metrics[registry.method(entry.name).columns[0]] = float(lambda_pre)
        metrics[f"r1_hat_{entry.name}"] = float(r1)
    train_errors = np.asarray(model.error_mask_, dtype=bool)
    if model.uncertain_cluster_ is None:  # no training error: GCUL has nothing to reject
        uncertain = np.zeros_like(train_errors)
    else:
        uncertain = np.asarray(model.cluster_labels_) == model.uncertain_cluster_
    metrics["eps_train"] = share(train_errors, np.ones_like(train_errors))
    metrics["r1_cluster"] = share(uncertain, train_errors)
    metrics["r2_cluster"] = share(uncertain, ~train_errors)

    # Test split: what rejecting actually bought.
    test = model.indicators(data.X_test, data.y_test)
    metrics["base_acc"] = np.count_nonzero(~test.base_wrong) / test.base_wrong.size
    metrics["selective_acc"] = 1.0 - test.selective_error
    metrics["rejection_rate"] = test.rejection_rate
    metrics["lambda_emp"] = test.empirical_lambda()
    metrics["r1_emp"] = share(test.rejected, test.base_wrong)
    metrics["r2_emp"] = share(test.rejected, ~test.base_wrong)

    # The certified predictor: a second fit on 80% of the training split, certified on the rest,
    # judged by λ*_EMP of that same model on the test split.
    start = time.perf_counter()
    metrics.update(_certified(data, seed, model_factory))
    if profile is not None:
        profile["certified"] = time.perf_counter() - start

    # Selective-classification evaluation (issue 16): every rejector of the registry against
    # GCUL's accept set on the test split, and the Bayes limit.
    start = time.perf_counter()
    cell_scores = score_cell(data, model, seed)  # evaluate_cell, in two steps
    metrics.update(evaluation_columns(cell_scores))
    if scores is not None:
        scores["cell"] = cell_scores
    if profile is not None:
        profile["rejectors"] = time.perf_counter() - start
    return metrics


def share(selected: np.ndarray, within: np.ndarray) -> float:
    """``|selected ∩ within| / |within|``, and 0 when ``within`` is empty.

    Examples
    --------
    >>> float(share(np.array([True, False, True]), np.array([True, True, False])))
    0.5
    >>> share(np.array([True]), np.array([False]))
    0.0
    """
    n_within = np.count_nonzero(within)
    return np.count_nonzero(selected & within) / n_within if n_within else 0.0


# --------------------------------------------------------------------------------------------
# The certified fit of a cell

CALIBRATION_TAG = 0x63657274  # b"cert": the stream of the calibration split; never change it
"""Second entropy word of the calibration split's ``SeedSequence([seed, CALIBRATION_TAG])``."""


def calibration_split(n_train: int, seed: int, calibration: float = 0.2):
    """Indices ``(fit, calibrate)`` of a training split of ``n_train`` samples.

    Parameters
    ----------
    n_train : int
        Size of the training split (at least 2).
    seed : int
        Non-negative dataset seed; the split depends on ``(seed, n_train, calibration)`` only.
    calibration : float, default=0.2
        Share of the training split held out for calibration, in (0, 1); the calibration part has
        ``round(calibration * n_train)`` samples, at least 1, and leaves at least 1 to fit.

    Returns
    -------
    fit, calibrate : ndarray of int
        Disjoint sorted index arrays whose union is ``range(n_train)``.

    Examples
    --------
    >>> fit, cal = calibration_split(10, seed=3)
    >>> len(fit), len(cal), sorted(fit.tolist() + cal.tolist()) == list(range(10))
    (8, 2, True)
    """
    n_train = check_int("n_train", n_train, 2)
    seed = check_int("seed", seed, 0)
    calibration = check_real("calibration", calibration, 0.0, 1.0, open_low=True, open_high=True)
    return _split(n_train, seed, calibration)


def _split(n_train: int, seed: int, calibration: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`calibration_split` of checked arguments."""
    n_cal = min(max(int(round(calibration * n_train)), 1), n_train - 1)
    rng = np.random.default_rng(np.random.SeedSequence([seed, CALIBRATION_TAG]))
    order = rng.permutation(n_train)
    return np.sort(order[n_cal:]), np.sort(order[:n_cal])


def certified_indicators(
    data: Dataset,
    seed: int,
    model_factory: Callable[[], Any] | None = None,
    calibration: float = 0.2,
) -> dict[str, SelectiveOutcomes]:
    """Fit on the fit part, then the per-sample outcomes on the calibration part and the test split.

    Returns ``{"cal": ..., "test": ..., "test_noisy": ...}``, each the
    :class:`~simulations.certification.SelectiveOutcomes` (phase 1 wrong; phase 3 accepted *and*
    wrong; phase 3 rejected) of :meth:`simulations.gcul.GCUL.indicators`. Labels are the observed
    ones on the calibration part (a user has no others) and the clean ones on the test split, as
    for the sweep's ``lambda_emp``; ``test_noisy`` uses the test split's labels flipped as the
    training labels are (``Dataset.y_test_noisy``).
    """
    model, cal = fit_certified_model(data, seed, model_factory, calibration)
    return {
        "cal": model.indicators(data.X_train[cal], data.y_train[cal]),
        "test": model.indicators(data.X_test, data.y_test),
        "test_noisy": model.indicators(data.X_test, data.y_test_noisy),
    }


def fit_certified_model(
    data: Dataset,
    seed: int,
    model_factory: Callable[[], Any] | None = None,
    calibration: float = 0.2,
):
    """Fit ``model_factory()`` on the fit part of the training split; return it and the
    calibration indices (:func:`calibration_split`)."""
    fit, cal = _split(data.y_train.size, seed, calibration)
    if model_factory is None:  # imported here: scikit-learn loads in the workers, not the parent
        from simulations.gcul import GCUL

        model_factory = GCUL
    with single_threaded_blas():
        model = model_factory().fit(data.X_train[fit], data.y_train[fit])
    return model, cal


def certified_columns(
    data: Dataset,
    seed: int,
    noise: float,
    model_factory: Callable[[], Any] | None = None,
    calibration: float = 0.2,
    *,
    delta: float = 0.05,
) -> dict[str, float]:
    """The certified predictor of one sweep cell and the λ*_EMP it is judged against.

    Parameters
    ----------
    data : Dataset
        The cell's dataset, :func:`simulations.synthetic.make_dataset` ``(seed, noise)``.
    seed : int
        The cell's seed; it fixes the calibration split (:func:`calibration_split`).
    noise : float
        The cell's σ. The split does not depend on it (common random numbers); it is accepted so
        that the call names its cell, and checked to be a finite number >= 0 (``TypeError`` for
        a non-number, ``ValueError`` otherwise).
    model_factory : callable or None, default=None
        Makes the unfitted estimator (GCUL's ``phase1_``, ``predict``, ``n_classes_``; ``None``:
        :class:`simulations.gcul.GCUL`).
    calibration : float, default=0.2
        Share of the training split held out to certify.
    delta : float, default=0.05
        Risk level of :func:`gcul_theory.certified_lambda`.

    Returns
    -------
    dict
        ``{"lambda_cert": λ*_CERT, "lambda_emp_cert": λ*_EMP on the test split,
        "lambda_emp_cert_noisy": λ*_EMP on the test split with noisy labels}``, floats.

    Examples
    --------
    >>> from simulations.synthetic import SyntheticConfig, make_dataset
    >>> data = make_dataset(16, 0.0, SyntheticConfig(n_per_class=100, n_confusion=100))
    >>> row = certified_columns(data, 16, 0.0)
    >>> sorted(row), 0.0 <= row["lambda_cert"] < 1.0
    (['lambda_cert', 'lambda_emp_cert', 'lambda_emp_cert_noisy'], True)
    """
    if not isinstance(data, Dataset):
        raise TypeError(f"data must be a simulations.synthetic.Dataset; got {type(data).__name__}")
    check_real("noise", noise, 0.0)
    return _certified(data, seed, model_factory, calibration, delta=delta)


def _certified(
    data: Dataset,
    seed: int,
    model_factory: Callable[[], Any] | None = None,
    calibration: float = 0.2,
    *,
    delta: float = 0.05,
) -> dict[str, float]:
    """:func:`certified_columns` of arguments already checked (a sweep cell's)."""
    outcomes = certified_indicators(data, seed, model_factory, calibration)
    lambda_cert = gcul_theory.certified_lambda(*outcomes["cal"], delta=delta)
    return {
        "lambda_cert": float(lambda_cert),
        "lambda_emp_cert": outcomes["test"].empirical_lambda(),
        "lambda_emp_cert_noisy": outcomes["test_noisy"].empirical_lambda(),
    }
