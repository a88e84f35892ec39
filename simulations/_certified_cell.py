"""The certified fit of one sweep cell: fit on 80% of the training split, certify on the other 20%.

:func:`certified_columns` adds two numbers to a ``(seed, σ)`` cell of the synthetic sweep:

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
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

import gcul_theory
from simulations.models import _single_threaded_blas
from simulations.synthetic import Dataset

__all__ = ["CALIBRATION_TAG", "certified_columns", "certified_indicators", "calibration_split"]

CALIBRATION_TAG = 0x63657274  # b"cert": the stream of the calibration split; never change it
"""Second entropy word of the calibration split's ``SeedSequence([seed, CALIBRATION_TAG])``."""

DEFAULT_LAM = 0.15  # the paper's λ; certified_lambda itself scans all λ


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
    n_train = _check_int("n_train", n_train, minimum=2)
    seed = _check_int("seed", seed, minimum=0)
    calibration = _check_calibration(calibration)
    n_cal = min(max(int(round(calibration * n_train)), 1), n_train - 1)
    rng = np.random.default_rng(np.random.SeedSequence([seed, CALIBRATION_TAG]))
    order = rng.permutation(n_train)
    return np.sort(order[n_cal:]), np.sort(order[:n_cal])


def certified_indicators(
    data: Dataset,
    seed: int,
    model_factory: Callable[[], Any] | None = None,
    calibration: float = 0.2,
) -> dict[str, np.ndarray]:
    """Fit on the fit part, then the per-sample indicators on the calibration part and the test split.

    Returns a dict of boolean arrays ``{cal,test}_{base_wrong,selective_wrong,rejected}``:
    phase 1 wrong; phase 3 accepted *and* wrong (never true on a rejected sample); phase 3 rejected.
    Labels are the observed ones on the calibration part (a user has no others) and the clean ones
    on the test split, as for the sweep's ``lambda_emp``; ``test_noisy_*`` uses the test split's
    labels flipped as the training labels are (``Dataset.y_test_noisy``).
    """
    model, cal = fit_certified_model(data, seed, model_factory, calibration)
    out: dict[str, np.ndarray] = {}
    for name, X, y in (
        ("cal", data.X_train[cal], data.y_train[cal]),
        ("test", data.X_test, data.y_test),
        ("test_noisy", data.X_test, data.y_test_noisy),
    ):
        for key, value in indicators(model, X, y).items():
            out[f"{name}_{key}"] = value
    return out


def fit_certified_model(
    data: Dataset,
    seed: int,
    model_factory: Callable[[], Any] | None = None,
    calibration: float = 0.2,
):
    """Fit ``model_factory()`` on the fit part of the training split; return it and the
    calibration indices (:func:`calibration_split`)."""
    fit, cal = calibration_split(data.y_train.size, seed, calibration)
    if model_factory is None:  # imported here: scikit-learn loads in the workers, not the parent
        from simulations.gcul import GCUL as model_factory
    with _single_threaded_blas():
        model = model_factory().fit(data.X_train[fit], data.y_train[fit])
    return model, cal


def indicators(model: Any, X: np.ndarray, y: np.ndarray) -> dict[str, np.ndarray]:
    """``base_wrong``, ``selective_wrong`` (accepted and wrong) and ``rejected`` of a fitted GCUL."""
    with _single_threaded_blas():
        base_wrong = model.phase1_.predict(X) != y
        selective = model.predict(X)
    rejected = selective == model.n_classes_
    return {
        "base_wrong": base_wrong,
        "selective_wrong": (selective != y) & ~rejected,
        "rejected": rejected,
    }


def empirical_lambda_from_indicators(base_wrong, selective_wrong, rejected) -> float:
    """λ*_EMP = (ε − ε_sel)/ρ of boolean indicators (0 when nothing is rejected; ε_sel = 0 when
    everything is), the sweep's conventions."""
    n = base_wrong.size
    n_rejected = int(np.count_nonzero(rejected))
    n_accepted = n - n_rejected
    base_error = np.count_nonzero(base_wrong) / n
    selective_error = np.count_nonzero(selective_wrong) / n_accepted if n_accepted else 0.0
    return float(gcul_theory.empirical_lambda(base_error, selective_error, n_rejected / n))


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
        that the call names its cell, and checked to be a finite number >= 0.
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
    if (
        isinstance(noise, bool)
        or not isinstance(noise, numbers.Real)
        or not np.isfinite(noise)
        or noise < 0
    ):
        raise ValueError(f"noise must be a finite number >= 0; got {noise!r}")
    ind = certified_indicators(data, seed, model_factory, calibration)
    lambda_cert = gcul_theory.certified_lambda(
        ind["cal_base_wrong"], ind["cal_selective_wrong"], ind["cal_rejected"], delta=delta
    )
    lambda_emp = empirical_lambda_from_indicators(
        ind["test_base_wrong"], ind["test_selective_wrong"], ind["test_rejected"]
    )
    lambda_emp_noisy = empirical_lambda_from_indicators(
        ind["test_noisy_base_wrong"], ind["test_noisy_selective_wrong"], ind["test_noisy_rejected"]
    )
    return {
        "lambda_cert": float(lambda_cert),
        "lambda_emp_cert": lambda_emp,
        "lambda_emp_cert_noisy": lambda_emp_noisy,
    }


def _check_int(name: str, value: object, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int >= {minimum}; got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}; got {value!r}")
    return int(value)


def _check_calibration(calibration: object) -> float:
    if isinstance(calibration, bool) or not isinstance(calibration, numbers.Real):
        raise TypeError(f"calibration must be a number in (0, 1); got {calibration!r}")
    if not 0.0 < float(calibration) < 1.0:
        raise ValueError(f"calibration must be in (0, 1); got {calibration!r}")
    return float(calibration)
