r"""The baselines across their operating points, and GCUL across PCA dimensions, on one split.

:func:`simulations.compare.compare` judges every rejector at *one* operating point (its own, or
GCUL's coverage). The GCUL paper also asks how the baselines fare along their knobs and how GCUL
fares as phase 2's space shrinks (its figure "Operating-point sensitivity of selective
classification baselines on the Kaggle dataset.", its appendix tables of MSP, SelectiveNet and
Mahalanobis results, and its PCA-dimension sweep of λ*_PRE against λ*_EMP). This module measures
both on one train/test :class:`Split`:

- :func:`operating_points`: MSP with Chow's rule at every λ of :data:`MSP_LAMBDAS`, a linear
  SelectiveNet trained for every target coverage of :data:`SN_COVERAGES` (operated at g ≥ 0.5),
  Mahalanobis rejection keeping every share of :data:`MAHA_RETAINED`, and GCUL's own operating
  point (:func:`gcul_reference`, which has no knob);
- :func:`pca_sweep`: ``GCUL(reduce="pca", n_components=k)`` for every k, with λ*_PRE of
  :data:`PRE_METHOD` on the projected training features and λ*_EMP on the test part.

Every row holds a base accuracy (the rejector's own predictions on the whole test part),
a selective accuracy (among the accepted rows; NaN when none is) and a rejection rate.
:func:`standardise` is the label-free scaling the benchmarks apply to raw features before GCUL's
distance-based phase 2.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

import gcul_theory
from simulations.gcul import GCUL
from simulations.rejectors import RejectorContext, get_rejector
from simulations.validation import check_int

__all__ = [
    "LAM_TARGET",
    "MAHA_RETAINED",
    "MSP_LAMBDAS",
    "PRE_METHOD",
    "SN_COVERAGES",
    "Split",
    "gcul_reference",
    "operating_points",
    "pca_sweep",
    "standardise",
]

LAM_TARGET = 0.15  # the paper's λ_target (its table of experimental parameters)
PRE_METHOD = "hunter_worsley"
MSP_LAMBDAS = tuple(round(0.1 * i, 1) for i in range(1, 11))
SN_COVERAGES = tuple(round(0.60 + 0.04 * i, 2) for i in range(10))
MAHA_RETAINED = tuple(round(1.00 - 0.04 * i, 2) for i in range(10))


@dataclass
class Split:
    """One train/test split: what the models are fitted on and what they are judged against.

    Attributes
    ----------
    name : str
        How reports name the split (``"digits"``, ``"carer/oof_logistic"``).
    X_train : ndarray of shape (n_train, d)
        The training features.
    y_train : ndarray of shape (n_train,)
        The labels the models are fitted on (the observed, possibly flipped, labels).
    X_test : ndarray of shape (n_test, d)
        The test features.
    y_test : ndarray of shape (n_test,)
        The labels the models are judged against (the clean labels).
    seed : numpy.random.SeedSequence
        The root of the rejectors' randomness (SelectiveNet's initialisation).
    notes : list of str
        Free notes for a report.

    Raises
    ------
    ValueError
        On construction, in one line: a feature array not 2-D, a label array not 1-D, a count of
        labels that is not the count of rows, train and test of different widths, or an empty part.
    TypeError
        ``seed`` is not a :class:`numpy.random.SeedSequence`.
    """

    name: str
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    seed: np.random.SeedSequence
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        for part in ("train", "test"):
            X, y = getattr(self, f"X_{part}"), getattr(self, f"y_{part}")
            if np.ndim(X) != 2 or np.ndim(y) != 1:
                raise ValueError(
                    f"Split {self.name!r}: X_{part} must be 2-D and y_{part} 1-D; "
                    f"got shapes {np.shape(X)} and {np.shape(y)}"
                )
            if len(X) != len(y) or len(y) == 0:
                raise ValueError(
                    f"Split {self.name!r}: X_{part} and y_{part} must hold the same number of rows, "
                    f"at least one; got {len(X)} and {len(y)}"
                )
        if np.shape(self.X_train)[1] != np.shape(self.X_test)[1]:
            raise ValueError(
                f"Split {self.name!r}: X_train and X_test must have the same columns; "
                f"got {np.shape(self.X_train)[1]} and {np.shape(self.X_test)[1]}"
            )
        if not isinstance(self.seed, np.random.SeedSequence):
            raise TypeError(f"Split {self.name!r}: seed must be a numpy SeedSequence; got {type(self.seed).__name__}")


def standardise(Z: np.ndarray) -> np.ndarray:
    """Scale every column to mean 0 and variance 1 over all rows; a constant column is centred only.

    A label-free transform (the same for training and test rows), used because GCUL's phase 2
    (K-Means) is distance-based.

    Parameters
    ----------
    Z : ndarray of shape (N, d), float
        The features; ``N >= 1``.

    Returns
    -------
    ndarray of shape (N, d)
        ``(Z - mean) / std`` column by column, with ``std`` replaced by 1 where it is 0 (the
        constant pixels of scikit-learn's digits).

    Raises
    ------
    ValueError
        ``Z`` is not 2-D or has no rows.

    Examples
    --------
    >>> import numpy as np
    >>> standardise(np.array([[1.0, 5.0], [3.0, 5.0]])).tolist()
    [[-1.0, 0.0], [1.0, 0.0]]
    """
    if np.ndim(Z) != 2 or len(Z) == 0:
        raise ValueError(f"Z must be a 2-D array with at least one row; got shape {np.shape(Z)}")
    scale = Z.std(axis=0)
    scale[scale == 0] = 1.0  # constant pixels of digits
    return (Z - Z.mean(axis=0)) / scale


def _row(param: float, base_correct: np.ndarray, accepted_correct: np.ndarray, n: int) -> dict:
    n_acc = accepted_correct.size
    return {
        "param": param,
        "base_acc": float(np.mean(base_correct)),
        "sel_acc": float(np.mean(accepted_correct)) if n_acc else float("nan"),
        "rej": 1.0 - n_acc / n,
    }


def gcul_reference(model: GCUL, split: Split) -> dict[str, float]:
    """GCUL's own operating point on the test part of ``split``, and its λ*_EMP.

    Parameters
    ----------
    model : GCUL
        Fitted (on ``split``'s training rows, for the numbers to mean what they say).
    split : Split
        The test rows it is judged on.

    Returns
    -------
    dict
        ``base_acc`` (phase 1's accuracy on the test part), ``sel_acc`` (among the accepted
        rows; NaN when none is), ``rej`` (the share rejected) and ``lambda_emp``
        (:meth:`simulations.certification.SelectiveOutcomes.empirical_lambda`).
    """
    ind = model.indicators(split.X_test, split.y_test)
    n = split.y_test.size
    n_acc = int((~ind.rejected).sum())
    return {
        "base_acc": 1.0 - float(ind.base_wrong.mean()),
        "sel_acc": 1.0 - float(ind.selective_wrong.sum()) / n_acc if n_acc else float("nan"),
        "rej": 1.0 - n_acc / n,
        "lambda_emp": ind.empirical_lambda(),
    }


def operating_points(split: Split, model: GCUL | None = None) -> dict[str, Any]:
    """MSP, SelectiveNet and Mahalanobis across their knobs, and GCUL's reference, on one split.

    Every rejector comes from :mod:`simulations.rejectors`, fitted on the GCUL of the training
    rows: MSP with Chow's rule (accept iff phase 1's largest probability ≥ 1 − λ) at every λ of
    :data:`MSP_LAMBDAS`; a linear SelectiveNet trained for every target coverage c of
    :data:`SN_COVERAGES` and operated at its own rule g(x) ≥ 0.5 (one fit per c); Mahalanobis
    rejection keeping the ``round(q n)`` best-scored test rows for every q of
    :data:`MAHA_RETAINED` (ties at the cut by their expected value,
    :func:`gcul_theory.selective_risk_at_coverage`).

    Parameters
    ----------
    split : Split
        The training rows the models are fitted on and the test rows they are judged on.
    model : GCUL, optional
        ``GCUL()`` fitted on ``split``'s training rows, when the caller has it already (the fit
        is deterministic, so passing it saves a fit and changes no number); else it is fitted
        here.

    Returns
    -------
    dict
        ``"gcul"``: :func:`gcul_reference`'s dict, plus ``sel_acc_msp_at_gcul`` and
        ``sel_acc_mahalanobis_at_gcul`` (each baseline's selective accuracy among its
        ``m`` best-scored test rows, ``m`` the number GCUL accepts); ``"msp"``,
        ``"selectivenet"``, ``"mahalanobis"``: one dict per knob value, with ``param`` (the
        knob), ``base_acc`` (the rejector's own predictions on the whole test part),
        ``sel_acc`` (NaN when nothing is accepted) and ``rej``.

    Raises
    ------
    TypeError
        ``model`` is neither None nor a fitted :class:`~simulations.GCUL`.
    """
    if model is None:
        model = GCUL().fit(split.X_train, split.y_train)
    elif not isinstance(model, GCUL) or not hasattr(model, "phase1_"):
        raise TypeError(f"model must be None or a fitted GCUL; got {type(model).__name__}")
    y, n = split.y_test, split.y_test.size
    context = RejectorContext(split.X_train, split.y_train, model, seed=split.seed)
    msp = get_rejector("msp").fit(context)
    _, msp_labels = msp.score_predict(split.X_test)
    msp_correct = msp_labels == y
    rows_msp = [
        _row(lam, msp_correct, msp_correct[msp.accept(split.X_test, lam)], n) for lam in MSP_LAMBDAS
    ]
    rows_sn = []
    for c in SN_COVERAGES:
        ctx = RejectorContext(
            split.X_train, split.y_train, model, seed=split.seed, target_coverage=c
        )
        sn = get_rejector("selectivenet").fit(ctx)
        _, labels = sn.score_predict(split.X_test)
        correct = labels == y
        rows_sn.append(_row(c, correct, correct[sn.accept(split.X_test, LAM_TARGET)], n))
    maha = get_rejector("mahalanobis").fit(context)
    scores, labels = maha.score_predict(split.X_test)
    wrong = labels != y
    # MSP and Mahalanobis at GCUL's coverage: their m best-scored test samples, m = GCUL's count
    gcul = gcul_reference(model, split)
    m_gcul = int(round((1.0 - gcul["rej"]) * n))
    msp_scores = msp.score(split.X_test)
    for key, sc, wr in (("msp", msp_scores, ~msp_correct), ("mahalanobis", scores, wrong)):
        risk = float(gcul_theory.selective_risk_at_coverage(sc, wr, m_gcul))
        gcul[f"sel_acc_{key}_at_gcul"] = 1.0 - risk if m_gcul else float("nan")
    rows_maha = []
    for q in MAHA_RETAINED:
        m = int(round(q * n))
        risk = float(gcul_theory.selective_risk_at_coverage(scores, wrong, m))
        rows_maha.append(
            {
                "param": q,
                "base_acc": 1.0 - float(wrong.mean()),
                "sel_acc": 1.0 - risk if m else float("nan"),
                "rej": 1.0 - m / n,
            }
        )
    return {
        "gcul": gcul,
        "msp": rows_msp,
        "selectivenet": rows_sn,
        "mahalanobis": rows_maha,
    }


def pca_sweep(split: Split, dims: tuple[int, ...]) -> list[dict[str, float]]:
    """``GCUL(reduce="pca", n_components=k)`` for every k: accuracy, rejection, λ*_PRE, λ*_EMP.

    λ*_PRE is :data:`PRE_METHOD`'s (:func:`gcul_theory.feasibility_report` at
    :data:`LAM_TARGET`) on the *projected* training features, the space phase 2 clusters in,
    with phase 1's in-sample predictions and the observed labels: from the training rows alone.

    Parameters
    ----------
    split : Split
        The training and test rows.
    dims : tuple of int
        The numbers of components, each in ``1 .. d``.

    Returns
    -------
    list of dict
        One per k, in the order of ``dims``: :func:`gcul_reference`'s keys plus ``k`` and
        ``lambda_pre``.

    Raises
    ------
    ValueError
        ``dims`` is empty or holds a value outside ``1 .. d``.
    """
    d = split.X_train.shape[1]
    if len(dims) == 0:
        raise ValueError("dims must hold at least one number of components; got none")
    for k in dims:
        check_int("dims", k, 1, d)
    rows = []
    for k in dims:
        model = GCUL(reduce="pca", n_components=k).fit(split.X_train, split.y_train)
        ref = gcul_reference(model, split)
        reducer = model.reducer_
        assert reducer is not None  # reduce="pca" always fits one
        Z = reducer.transform(split.X_train)
        report = gcul_theory.feasibility_report(
            Z, split.y_train, model.train_pred_, lam=LAM_TARGET, method=PRE_METHOD
        )
        ref.update(k=k, lambda_pre=float(report.lambda_pre[PRE_METHOD]))
        rows.append(ref)
    return rows
