r"""What the text benchmark measures on one train/test split of a representation.

The GCUL paper's real-data tables, in kind (section "Empirical evaluation"), are made of a few
measurements, each defined once here and called by :mod:`simulations.text.tasks`:

- :func:`measure_model`: a fitted GCUL's phase-1 and selective accuracy and macro-F1
  (:func:`macro_f1`), its rejection, λ*_PRE under each reading of the class core μ_c
  (:data:`CORES`) with the valid predictor (:data:`VALID`) and the paper's, λ*_CERT and λ*_EMP,
  and the paper's utility U; :func:`fit_variant` and :func:`measure_variant` do it for one of the
  GCUL variants of :data:`VARIANTS` (plain, + PCA, + LDA, out-of-fold error pool);
- :func:`operating_point_rows`: the baselines along their knobs and GCUL's own point
  (:func:`simulations.compare.operating_points`), and a fine-tuned head's MSP along Chow's λ;
- :func:`pca_sweep_rows`: GCUL with ``reduce="pca"`` for every dimension of :func:`dims_for`;
- :func:`head_at` and :func:`fixed_compare`: a fine-tuned head's own softmax as a rejector, and
  GCUL against both MSPs on one fixed split;
- :func:`subsample`: a stratified subsample of a corpus too large for the time budget.

Every function is deterministic: the randomness comes from :data:`simulations.text.study.SEED`
through named :class:`numpy.random.SeedSequence` children.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

import gcul_theory
from simulations.compare import MSP_LAMBDAS, Split, operating_points
from simulations.gcul import GCUL
from simulations.registry import PAPER_METHOD, method
from simulations.rejectors import RejectorContext, get_rejector
from simulations.text.study import LAM, MIN_CLASS_ROWS, SEED
from simulations.validation import check_int

__all__ = [
    "CORES",
    "DELTA",
    "HEAD_LABEL",
    "PCA_DIMS",
    "REDUCED",
    "VALID",
    "VARIANTS",
    "dims_for",
    "fit_variant",
    "fixed_compare",
    "head_at",
    "macro_f1",
    "measure_model",
    "measure_variant",
    "operating_point_rows",
    "pca_sweep_rows",
    "subsample",
]

DELTA = 0.05
"""The error level of λ*_CERT (a 95% lower confidence bound on U(λ))."""
VALID = gcul_theory.DEFAULT_METHOD  # "hunter_worsley", the tightest valid predictor
PCA_DIMS = (2, 3, 4, 5, 8, 10, 20, 40, 80, 160, 320, 768)  # the paper's, capped at d
REDUCED = 10  # the paper's 768 -> 10 (its GCUL hyper-parameter table)
CORES = ("correct", "class", "predicted")  # the readings of mu_c (estimate_geometry's core=)
HEAD_LABEL = "fine-tuned head's MSP"

VARIANTS: dict[str, dict[str, Any]] = {
    "gcul": {},
    "gcul_pca": {"reduce": "pca"},
    "gcul_lda": {"reduce": "lda"},
    "gcul_oof_pool": {"error_pool": "out_of_fold"},
}
"""The GCUL variants of the benchmark table, by name: their keyword arguments to :class:`GCUL`
(PCA keeps :data:`REDUCED` dimensions or d, LDA min(:data:`REDUCED`, C − 1, d))."""


def macro_f1(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Macro-F1: the mean over the classes present in ``y_true`` or ``y_pred`` of 2TP / (2TP + FP + FN).

    scikit-learn's ``f1_score(average="macro")`` over the same classes.

    Parameters
    ----------
    y_true, y_pred : ndarray of shape (n,), int
        The true and the predicted labels.

    Returns
    -------
    float
        In [0, 1]; NaN for no rows.

    Raises
    ------
    ValueError
        ``y_true`` and ``y_pred`` differ in shape.

    Examples
    --------
    >>> import numpy as np
    >>> macro_f1(np.array([0, 0, 1, 1]), np.array([0, 1, 1, 1]))
    0.7333333333333334
    """
    if np.shape(y_true) != np.shape(y_pred):
        raise ValueError(f"y_true and y_pred must have the same shape; got {np.shape(y_true)} and {np.shape(y_pred)}")
    if y_true.size == 0:
        return math.nan
    scores = []
    for c in np.union1d(y_true, y_pred):
        tp = np.count_nonzero((y_true == c) & (y_pred == c))
        fp = np.count_nonzero((y_true != c) & (y_pred == c))
        fn = np.count_nonzero((y_true == c) & (y_pred != c))
        scores.append(2 * tp / (2 * tp + fp + fn))
    return float(np.mean(scores))


def fit_variant(variant: str, Z: np.ndarray, y: np.ndarray, train: np.ndarray) -> GCUL:
    """One GCUL variant of :data:`VARIANTS` fitted on the rows ``train``.

    Parameters
    ----------
    variant : str
        A key of :data:`VARIANTS`.
    Z : ndarray of shape (N, d)
        The representation of every row.
    y : ndarray of shape (N,), int
        The labels ``0 .. C - 1``.
    train : ndarray of int
        The training rows.

    Returns
    -------
    GCUL
        Fitted on ``Z[train], y[train]``.

    Raises
    ------
    ValueError
        ``variant`` is not one of :data:`VARIANTS`.
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}; got {variant!r}")
    kwargs = dict(VARIANTS[variant])
    n_classes = int(y.max()) + 1
    if kwargs.get("reduce") == "pca":
        kwargs["n_components"] = min(REDUCED, Z.shape[1])
    elif kwargs.get("reduce") == "lda":
        kwargs["n_components"] = min(REDUCED, n_classes - 1, Z.shape[1])
    return GCUL(**kwargs).fit(Z[train], y[train])


def measure_variant(variant: str, Z: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray) -> dict[str, Any]:
    """Fit one GCUL variant on ``train`` and measure it (:func:`measure_model`) on ``test``.

    Parameters
    ----------
    variant : str
        A key of :data:`VARIANTS`.
    Z, y, train, test
        As :func:`measure_model` takes them.

    Returns
    -------
    dict
        :func:`measure_model`'s row, with ``"variant"``.

    Raises
    ------
    ValueError
        ``variant`` is not one of :data:`VARIANTS`.
    """
    return measure_model(fit_variant(variant, Z, y, train), Z, y, train, test) | {"variant": variant}


def measure_model(
    model: GCUL, Z: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray, probs: np.ndarray | None = None
) -> dict[str, Any]:
    """A fitted GCUL's numbers on one split: one row of ``rows.csv``.

    Parameters
    ----------
    model : GCUL
        Fitted on ``Z[train], y[train]``.
    Z : ndarray of shape (N, d)
        The representation of every row.
    y : ndarray of shape (N,), int
        The labels ``0 .. C - 1``.
    train, test : ndarray of int
        The training and test rows.
    probs : ndarray of shape (N, C), optional
        A fine-tuned head's softmax of every row: its own test accuracy and macro-F1 are
        reported as ``head_acc`` and ``head_f1`` (NaN without it).

    Returns
    -------
    dict
        ``n_train``, ``n_test``, ``n_error_pool``; on the test rows ``base_acc`` and
        ``base_f1`` (phase 1), ``sel_acc`` and ``sel_f1`` (among the accepted rows; NaN when
        none is), ``rejection``, ``lambda_cert`` (:meth:`GCUL.certify` at :data:`LAM`,
        :data:`DELTA`), ``lambda_emp`` and ``utility`` (U(λ) = ε − ε_sel − λρ); on the training
        rows, in the space phase 2 clusters in, ``lambda_pre_valid`` and ``lambda_pre_paper``
        (:data:`VALID`'s and the paper's predictor with the class cores of the correctly
        classified rows) and ``lambda_pre_<valid|paper>_<class|predicted>`` under the other
        readings of μ_c (:data:`CORES`); 0 where GCUL cannot reject.

    Raises
    ------
    ValueError
        ``probs`` is given but does not hold one row per row of ``Z``.
    """
    if probs is not None and (np.ndim(probs) != 2 or len(probs) != len(Z)):
        raise ValueError(f"probs must be a 2-D array with one row per row of Z ({len(Z)}); got shape {np.shape(probs)}")
    X_test, y_test = Z[test], y[test]
    head = probs[test].argmax(axis=1) if probs is not None else None
    outcome = model.indicators(X_test, y_test)
    base_pred = model.phase1_.predict(X_test)
    accepted = ~outcome.rejected
    selective_pred = model.predict(X_test)
    n_acc = int(accepted.sum())
    space = Z[train] if model.reducer_ is None else model.reducer_.transform(Z[train])
    # λ*_PRE under each reading of the class core μ_c ("correct": the correctly classified rows,
    # the paper's clean samples and the package's default; "class": every row of the class;
    # "predicted": the rows predicted as it), with the valid predictor and with the paper's
    pre = {}
    for core in CORES:
        if model.can_reject_:
            geometry = gcul_theory.estimate_geometry(
                space, y[train], model.train_pred_, n_classes=int(y.max()) + 1, core=core
            )
            pre[core] = tuple(float(gcul_theory.critical_lambda(geometry, m)) for m in (VALID, PAPER_METHOD))
        else:
            pre[core] = (0.0, 0.0)
    pre_valid, pre_paper = pre["correct"]
    certificate = model.certify(X_test, y_test, lam=LAM, delta=DELTA)
    return {
        "n_train": int(train.size),
        "n_test": int(test.size),
        "n_error_pool": int(model.n_error_pool_),
        "base_acc": 1.0 - outcome.base_error,
        "base_f1": macro_f1(y_test, base_pred),
        "sel_acc": 1.0 - float(outcome.selective_wrong.sum()) / n_acc if n_acc else math.nan,
        "sel_f1": macro_f1(y_test[accepted], np.asarray(selective_pred)[accepted]),
        "rejection": outcome.rejection_rate,
        "lambda_pre_valid": pre_valid,
        "lambda_pre_paper": pre_paper,
        "lambda_cert": float(certificate.lambda_cert),
        "lambda_emp": float(outcome.empirical_lambda()),
        "utility": outcome.base_error - outcome.selective_error - LAM * outcome.rejection_rate,
        **{f"lambda_pre_{which}_{core}": pre[core][k]
           for core in CORES[1:] for k, which in enumerate(("valid", "paper"))},
        # the fine-tuned head's own test accuracy and macro-F1 (NaN for a stand-in)
        "head_acc": float(np.mean(head == y_test)) if head is not None else math.nan,
        "head_f1": macro_f1(y_test, head) if head is not None else math.nan,
    }  # fmt: skip


def subsample(y: np.ndarray, n: int) -> np.ndarray:
    """Sorted indices of a stratified subsample of about ``n`` rows, seeded by :data:`~simulations.text.study.SEED`.

    Every class keeps ``round(n / N * N_c)`` of its ``N_c`` rows, but at least
    :data:`~simulations.text.study.MIN_CLASS_ROWS` (or all it has), drawn without replacement.

    Parameters
    ----------
    y : ndarray of shape (N,), int
        The labels ``0 .. C - 1``.
    n : int
        The rows wanted, ``1 <= n <= N``.

    Returns
    -------
    ndarray of int
        Sorted, distinct row indices.

    Raises
    ------
    ValueError
        ``n`` is outside ``1 .. N``.
    """
    check_int("n", n, 1, int(y.size))
    rng = np.random.default_rng(np.random.SeedSequence(SEED, spawn_key=(9,)))
    share = n / y.size
    keep = []
    for c in range(int(y.max()) + 1):
        rows = np.flatnonzero(y == c)
        take = min(rows.size, max(MIN_CLASS_ROWS, int(round(share * rows.size))))
        keep.append(rng.choice(rows, take, replace=False))
    return np.sort(np.concatenate(keep))


def dims_for(d: int) -> list[int]:
    """The PCA dimensions swept on a representation of dimension ``d``: :data:`PCA_DIMS` up to ``d``, and ``d``.

    Parameters
    ----------
    d : int
        The representation's dimension, at least 1.

    Returns
    -------
    list of int
        Increasing, ending at ``d``.

    Raises
    ------
    ValueError
        ``d`` is less than 1.

    Examples
    --------
    >>> dims_for(12)
    [2, 3, 4, 5, 8, 10, 12]
    """
    check_int("d", d, 1)
    return sorted({k for k in PCA_DIMS if k <= d} | {d})


def pca_sweep_rows(
    key: Mapping[str, Any], Z: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray,
    probs: np.ndarray | None, at_reduced: Mapping[str, Any] | None, skip_reduced: bool = False,
) -> list[dict[str, Any]]:  # fmt: skip
    """The PCA sweep's rows on one split: ``GCUL(reduce="pca", n_components=k)`` for every k of :func:`dims_for`.

    Parameters
    ----------
    key : mapping
        The columns that open every row (corpus, representation, seed, split).
    Z, y, train, test, probs
        As :func:`measure_model` takes them.
    at_reduced : mapping or None
        The measurement of GCUL + PCA at k = min(:data:`REDUCED`, d) (the benchmark table's
        variant ``gcul_pca``), used as it is for that row (the fit is deterministic: reusing it
        changes no number); None measures it here.
    skip_reduced : bool, default False
        Leave the row at k = min(:data:`REDUCED`, d) out (the caller adds it from the variant's
        task).

    Returns
    -------
    list of dict
        ``key | {"d": k} | measure_model(...)`` for every k, in increasing order.
    """
    reduced = min(REDUCED, Z.shape[1])
    rows = []
    for k in dims_for(Z.shape[1]):
        if k == reduced and skip_reduced:
            continue
        if k == reduced and at_reduced is not None:
            m = at_reduced
        else:
            m = measure_model(GCUL(reduce="pca", n_components=k).fit(Z[train], y[train]), Z, y, train, test, probs)
        rows.append(dict(key) | {"d": k} | dict(m))
    return rows


def head_at(probs: np.ndarray, y: np.ndarray, m: int) -> dict[str, float]:
    """A fine-tuned head's maximum softmax probability as a rejector on test rows.

    Its selective risk among the ``m`` rows it is most confident on (ties by their expected
    value, :func:`gcul_theory.selective_risk_at_coverage`), its AURC, and at its own operating
    point, Chow's rule p_max ≥ 1 − λ at :data:`~simulations.text.study.LAM`, its coverage, the
    paper's utility U = ε − ε_sel − λρ and Chow's U_joint, ε being the head's own error (the
    model a practitioner with this head deploys).

    Parameters
    ----------
    probs : ndarray of shape (n, C)
        The head's softmax on the test rows.
    y : ndarray of shape (n,), int
        Their labels.
    m : int
        How many rows to keep for the selective risk, ``0 <= m <= n`` (NaN risk for 0).

    Returns
    -------
    dict
        ``base_acc``, ``sel_risk``, ``coverage``, ``aurc``, ``u``, ``u_joint``.

    Raises
    ------
    ValueError
        ``probs`` is not 2-D with one row per label, or ``m`` is outside ``0 .. n``.
    """
    if np.ndim(probs) != 2 or np.ndim(y) != 1 or len(probs) != len(y):
        raise ValueError(f"probs must be 2-D with one row per label; got shapes {np.shape(probs)} and {np.shape(y)}")
    check_int("m", m, 0, len(y))
    scores = probs.max(axis=1)
    wrong = probs.argmax(axis=1) != y
    eps = float(wrong.mean())
    accept = scores >= 1.0 - LAM
    rho = 1.0 - float(accept.mean())
    eps_sel = float(wrong[accept].mean()) if accept.any() else 0.0
    return {
        "base_acc": 1.0 - eps,
        "sel_risk": float(gcul_theory.selective_risk_at_coverage(scores, wrong, m)) if m else math.nan,
        "coverage": 1.0 - rho,
        "aurc": float(gcul_theory.aurc(scores, wrong)),
        "u": eps - eps_sel - LAM * rho,
        "u_joint": float(gcul_theory.joint_utility(LAM, eps, eps_sel, rho)),
    }


def fixed_compare(
    model: GCUL, Z: np.ndarray, y: np.ndarray, probs: np.ndarray, train: np.ndarray, test: np.ndarray, seed: int
) -> list[dict[str, Any]]:
    """GCUL, phase 1's MSP and a fine-tuned head's MSP on one fixed train/test split.

    Parameters
    ----------
    model : GCUL
        ``GCUL()`` fitted on ``Z[train], y[train]``.
    Z, y, train, test
        As :func:`measure_model` takes them.
    probs : ndarray of shape (N, C)
        The head's softmax of every row.
    seed : int
        The fine-tuning seed (names phase 1's MSP's seed, ``SeedSequence(SEED, spawn_key=(3, seed))``).

    Returns
    -------
    list of dict
        Three rows of ``compare.csv`` (``gcul``, ``msp``, ``head_msp``): ``coverage``, ``u`` and
        ``u_joint`` at each one's own operating point (GCUL's accept set, Chow's rule at λ),
        ``sel_risk`` at GCUL's coverage, ``difference`` from GCUL's, ``aurc`` (NaN for GCUL).
    """
    X_test, y_test = Z[test], y[test]
    outcome = model.indicators(X_test, y_test)
    m = int(np.count_nonzero(~outcome.rejected))
    gcul_risk = outcome.selective_error
    rho = outcome.rejection_rate
    rows = [{"rejector": "gcul", "label": "GCUL", "operating_point": method("gcul").operating_point,
             "coverage": 1.0 - rho, "sel_risk": gcul_risk, "difference": 0.0, "aurc": math.nan,
             "u": outcome.base_error - gcul_risk - LAM * rho,
             "u_joint": float(gcul_theory.joint_utility(LAM, outcome.base_error, gcul_risk, rho))}]  # fmt: skip
    context = RejectorContext(Z[train], y[train], model, seed=np.random.SeedSequence(SEED, spawn_key=(3, seed)))
    msp = get_rejector("msp").fit(context)
    scores, labels = msp.score_predict(X_test)
    wrong = labels != y_test
    accept = msp.accept(X_test, LAM)
    eps_sel = float(wrong[accept].mean()) if accept.any() else 0.0
    risk = float(gcul_theory.selective_risk_at_coverage(scores, wrong, m)) if m else math.nan
    rho = 1.0 - float(accept.mean())
    rows.append({"rejector": "msp", "label": "MSP", "operating_point": method("msp").operating_point,
                 "coverage": 1.0 - rho, "sel_risk": risk, "difference": risk - gcul_risk,
                 "aurc": float(gcul_theory.aurc(scores, wrong)),
                 "u": outcome.base_error - eps_sel - LAM * rho,
                 "u_joint": float(gcul_theory.joint_utility(LAM, outcome.base_error, eps_sel, rho))})  # fmt: skip
    head = head_at(probs[test], y_test, m)
    rows.append({"rejector": "head_msp", "label": HEAD_LABEL, "operating_point": method("msp").operating_point,
                 "coverage": head["coverage"], "sel_risk": head["sel_risk"],
                 "difference": head["sel_risk"] - gcul_risk, "aurc": head["aurc"], "u": head["u"],
                 "u_joint": head["u_joint"]})  # fmt: skip
    return rows


def operating_point_rows(
    corpus: str, rep: str, seed: int, split: int, Z: np.ndarray, y: np.ndarray, train: np.ndarray,
    test: np.ndarray, probs: np.ndarray | None = None, model: GCUL | None = None,
) -> list[dict[str, Any]]:  # fmt: skip
    """The baselines along their knobs and GCUL's own point on one split: rows of ``operating_points.csv``.

    Parameters
    ----------
    corpus, rep : str
        The corpus and representation, the rows' first columns.
    seed : int
        The representation's seed (a fine-tuning seed, or :data:`~simulations.text.study.SEED`).
    split : int
        The split's index.
    Z, y, train, test
        As :func:`measure_model` takes them.
    probs : ndarray of shape (N, C), optional
        A fine-tuned head's softmax of every row: adds its MSP along Chow's λ
        (:data:`simulations.compare.MSP_LAMBDAS`), method ``head_msp``.
    model : GCUL, optional
        ``GCUL()`` fitted on ``train``, to save a fit (see
        :func:`simulations.compare.operating_points`).

    Returns
    -------
    list of dict
        ``method`` (``gcul``, ``msp``, ``selectivenet``, ``mahalanobis``, ``head_msp``),
        ``param`` (the knob; NaN for GCUL), ``base_acc``, ``sel_acc``, ``rejection``.
    """
    key = {"corpus": corpus, "representation": rep, "seed": seed, "split": split}
    res = operating_points(Split(
        f"{corpus}/{rep}", Z[train], y[train], Z[test], y[test],
        np.random.SeedSequence(SEED, spawn_key=(1, split) if probs is None else (1, split, seed)),
    ), model)  # fmt: skip
    g = res["gcul"]
    points = [key | {"method": "gcul", "param": math.nan, "base_acc": g["base_acc"],
                     "sel_acc": g["sel_acc"], "rejection": g["rej"]}]  # fmt: skip
    for m in ("msp", "selectivenet", "mahalanobis"):
        for r in res[m]:
            points.append(key | {"method": m, "param": r["param"], "base_acc": r["base_acc"],
                                 "sel_acc": r["sel_acc"], "rejection": r["rej"]})  # fmt: skip
    if probs is not None:
        scores = probs[test].max(axis=1)
        correct = probs[test].argmax(axis=1) == y[test]
        for lam in MSP_LAMBDAS:
            accept = scores >= 1.0 - lam
            points.append(key | {"method": "head_msp", "param": lam, "base_acc": float(correct.mean()),
                                 "sel_acc": float(correct[accept].mean()) if accept.any() else math.nan,
                                 "rejection": 1.0 - float(accept.mean())})  # fmt: skip
    return points
