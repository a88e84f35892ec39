r"""Will GCUL's rejection beat MSP's here? The predictors a fitted GCUL's training split gives.

The regime map (:mod:`simulations.regime_map`, ``docs/explanation/regimes.md``) asks which
quantity, computed from the training split only, predicts whether GCUL's rejection has a lower
selective risk than thresholding the maximum softmax (MSP) at GCUL's coverage on new data.
:func:`training_predictors` computes them all from one fitted :class:`simulations.GCUL`:

- the paper's: S_GCUL of GCUL's own rejection (its :math:`r_1, r_2` on the training split),
  λ*_PRE of the valid Hunter-Worsley bound and S_exist
  (:func:`gcul_theory.critical_lambda`, :func:`gcul_theory.structural_existence_confidence`);
- ΔS_eq: S of GCUL's rejection minus S of MSP's at the same training rejection rate ρ
  (:func:`gcul_theory.selectivity_at_rate`); positive iff GCUL's accept set holds fewer of
  phase 1's errors than MSP's (claim ``equal_coverage.order`` of ``gcul prove``);
- Δ_train: GCUL's minus MSP's selective risk on the training split at GCUL's training
  coverage (observed labels), a plug-in estimate of the outcome.

:data:`TRAINING_PREDICTORS` lists them with the rule the theory itself states for "GCUL beats
MSP", where it has one (:func:`theory_rule`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

import gcul_theory

__all__ = ["TRAINING_PREDICTORS", "TrainingPredictor", "theory_rule", "training_predictors"]


@dataclasses.dataclass(frozen=True)
class TrainingPredictor:
    """One predictor of "GCUL beats MSP": its column, label, kind and the theory's own rule.

    Attributes
    ----------
    column : str
        Its key in :func:`training_predictors`' result.
    label : str
        As tables and figures name it.
    kind : str
        ``"paper"`` (a quantity of the paper), ``"derived"`` (derived from it here) or
        ``"reference"`` (knows nothing of the geometry).
    rule : str or None
        The rule the theory states for "GCUL beats MSP" (``"ΔS_eq > 0"``), or None.
    """

    column: str
    label: str
    kind: str
    rule: str | None


TRAINING_PREDICTORS: tuple[TrainingPredictor, ...] = (
    TrainingPredictor("s_gcul", "S_GCUL of GCUL's rejection (training split)", "paper", "S_GCUL > λ"),
    TrainingPredictor("lambda_pre", "λ*_PRE (Hunter-Worsley, valid)", "paper", "λ*_PRE > λ"),
    TrainingPredictor("s_exist", "S_exist (structural existence confidence)", "paper", None),
    TrainingPredictor(
        "delta_s_eq", "ΔS_eq = S_GCUL − S_MSP at equal ρ (derived)", "derived", "ΔS_eq > 0"
    ),
    TrainingPredictor(
        "delta_train", "Δ_train = R_GCUL − R_MSP on the training split", "derived", "Δ_train < 0"
    ),
    TrainingPredictor("eps_train", "ε, training error (no geometry; a reference)", "reference", None),
)
"""The predictors the regime map judges, in its order."""


def theory_rule(column: str, values: Any, lam: float = 0.15) -> np.ndarray | None:
    """The theory's own prediction "GCUL beats MSP" from a predictor's values, where it has one.

    Parameters
    ----------
    column : str
        A column of :data:`TRAINING_PREDICTORS`.
    values : array_like
        The predictor's values.
    lam : float, default 0.15
        The cost λ of a rejection (the paper's λ_target).

    Returns
    -------
    ndarray of bool or None
        S_GCUL > λ, λ*_PRE > λ, ΔS_eq > 0 or Δ_train < 0; None for a predictor without a rule.

    Raises
    ------
    ValueError
        For a column that is not a predictor's.

    Examples
    --------
    >>> theory_rule("delta_s_eq", [-0.1, 0.2]).tolist()
    [False, True]
    """
    names = [p.column for p in TRAINING_PREDICTORS]
    if column not in names:
        raise ValueError(f"column must be one of {', '.join(names)}; got {column!r}")
    values = np.asarray(values)
    if column in ("s_gcul", "lambda_pre"):
        return values > lam
    if column == "delta_s_eq":
        return values > 0.0
    if column == "delta_train":
        return values < 0.0
    return None


def training_predictors(
    model: Any, X_train: Any, y_train: Any, method: str = gcul_theory.DEFAULT_METHOD
) -> dict[str, float]:
    r"""The predictors of "GCUL beats MSP" of one fitted GCUL, from its training split only.

    Parameters
    ----------
    model : simulations.GCUL
        Fitted on ``X_train, y_train`` (its ``train_pred_``, phase 1's training predictions,
        define the errors).
    X_train : ndarray of shape (N, d)
        The training features.
    y_train : ndarray of shape (N,)
        The labels GCUL was fitted on (the observed ones), encoded ``0..K-1``.
    method : str, default ``gcul_theory.DEFAULT_METHOD``
        The bound of λ*_PRE (``"hunter_worsley"``, the tightest valid one).

    Returns
    -------
    dict of str to float
        In this order: ``eps_train`` (phase 1's training error ε), ``rho_train`` (GCUL's
        training rejection rate ρ), ``r1_gcul``, ``r2_gcul`` (the shares of errors and of
        correct samples GCUL rejects), ``r1_msp`` (MSP's expected error capture at GCUL's
        training coverage, ties by expected value), ``s_gcul``, ``lambda_pre``, ``s_exist``,
        ``delta_s_eq``, ``delta_train``.

    Raises
    ------
    ValueError
        If ``y_train`` does not have one label per row of ``X_train`` or per training
        prediction of ``model``.

    Notes
    -----
    With :math:`n` rows, :math:`e` phase-1 errors, GCUL accepting :math:`m` rows:
    :math:`\varepsilon = e/n`, :math:`\rho = 1 - m/n`; MSP's :math:`m` most confident rows
    hold :math:`m R_{MSP}` errors in expectation, so :math:`r_{1,MSP} = (e - m R_{MSP})/e`;
    :math:`S_{GCUL} = S(\varepsilon, r_{1,GCUL}, \rho)` and
    :math:`\Delta S_{eq} = S_{GCUL} - S(\varepsilon, r_{1,MSP}, \rho)` with
    :func:`gcul_theory.selectivity_at_rate`; :math:`\Delta_{train} = R_{GCUL} - R_{MSP}`
    (0 when GCUL accepts nothing). Without a training error: λ*_PRE = 0, S_exist = 1 and
    the rates 0 (nothing to reject).
    """
    from simulations.rejectors import RejectorContext
    from simulations.rejectors.evaluate import score_rejectors

    X_train, y_train = np.asarray(X_train), np.asarray(y_train)
    train_pred = np.asarray(model.train_pred_)
    if not (y_train.shape == train_pred.shape and X_train.shape[:1] == y_train.shape):
        raise ValueError(
            f"y_train must have one label per row of X_train and per training prediction; got "
            f"{y_train.shape[0] if y_train.ndim else 0} labels, {X_train.shape[0]} rows, "
            f"{train_pred.size} predictions"
        )
    errors = train_pred != y_train
    n = y_train.size
    n_err = int(np.count_nonzero(errors))
    eps = n_err / n
    if n_err:
        geometry = gcul_theory.estimate_geometry(Z=X_train, y=y_train, y_pred=train_pred)
        lambda_pre = float(gcul_theory.critical_lambda(geometry, method))
        s_exist = float(gcul_theory.structural_existence_confidence(geometry))
    else:  # no training error: nothing to reject, the predictors' defined values
        lambda_pre, s_exist = 0.0, 1.0
    context = RejectorContext(X_train, y_train, model, seed=np.random.SeedSequence(0))
    cell = score_rejectors(context, X_train, y_train, names=("msp",))
    rejected = ~cell.gcul_accept
    m = cell.n_accept
    rho = 1.0 - m / n
    r1_gcul = np.count_nonzero(rejected & errors) / n_err if n_err else 0.0
    r2_gcul = np.count_nonzero(rejected & ~errors) / (n - n_err) if n_err < n else 0.0
    risk_msp = float(
        gcul_theory.selective_risk_at_coverage(cell.scores["msp"], cell.wrong["msp"], m)
    )
    risk_gcul = np.count_nonzero(cell.wrong["gcul"] & cell.gcul_accept) / m if m else 0.0
    # MSP's m accepted samples hold m·R errors (in expectation over ties): it rejects the rest;
    # clipped to [0, 1] against the last bit of m·R
    r1_msp = min(max((n_err - m * risk_msp) / n_err, 0.0), 1.0) if n_err else 0.0
    s_gcul = float(gcul_theory.selectivity_at_rate(eps, r1_gcul, rho))
    return {
        "eps_train": eps,
        "rho_train": rho,
        "r1_gcul": r1_gcul,
        "r2_gcul": r2_gcul,
        "r1_msp": r1_msp,
        "s_gcul": s_gcul,
        "lambda_pre": lambda_pre,
        "s_exist": s_exist,
        "delta_s_eq": s_gcul - float(gcul_theory.selectivity_at_rate(eps, r1_msp, rho)),
        "delta_train": (risk_gcul - risk_msp) if m else 0.0,
    }
