"""The GCUL paper's real-data tables, in kind, on GoEmotions and dair-ai/emotion (issue 22).

The paper's evidence is on text emotion corpora (section "Empirical evaluation"): a benchmark
table on a Kaggle set, the comparison with MSP + Chow, SelectiveNet and Mahalanobis rejection
across operating points, a PCA-dimension sweep of λ*_PRE against λ*_EMP, and the claim that
λ*_PRE screens out GoEmotions, the corpus where no selective method pays. This script runs all
four on the two corpora that are public (the Kaggle set is not reachable), on a fine-tuned
encoder read from disk (``--finetuned DIR``, the paper's kind of representation, under the
paper's protocol (P) and held out (H)) and on stand-ins of :mod:`simulations.text.representations`
computed from the texts:

(a) ``oof_logistic``: out-of-fold TF-IDF + logistic-regression scores (a label-shaped space);
(b) ``lsa`` (measured only when named: ``--representation lsa``); (c) ``wordllama``.

Each corpus is pooled (train + dev + test; GoEmotions' single-label rows), then
``--splits`` stratified 80/20 train/test splits (:func:`simulations.compare.stratified_splits`,
seed 0; the splits of :func:`simulations.compare.compare` with the same arguments, so every
table below is on the same splits). Means over splits carry Nadeau & Bengio's corrected SE
(:func:`simulations.compare.estimate`). Per-split rows go to CSV files beside the Markdown, and
the tables are computed from those rows only (``summarise_*``), so a test recomputes them.

Why a script in ``benchmarks/`` and not a ``gcul text`` command: it reproduces the paper's
tables from corpora a user downloads (the package ships neither), with an optional extra
(``gcul[text]``) and a 25-minute budget on two cores, like the other reproductions in this folder; a user
with their own embeddings already has ``gcul compare`` and ``gcul feasibility``.

Run from the repository root::

    PYTHONPATH=$PWD python benchmarks/text_emotion.py /path/to/text-emotion \\
        --out benchmarks/text_emotion [--splits 5] [--cache .cache/text] [--jobs 2]

``/path/to/text-emotion`` holds ``goemotions/`` (``train.tsv``, ``dev.tsv``, ``test.tsv``,
``labels.txt``) and ``carer/`` (``train.txt``, ``val.txt``, ``test.txt``); see
:mod:`simulations.text.corpora` for the public copies. Writes into ``--out``:
``text_emotion.md`` (every table), ``rows.csv`` (one row per corpus, representation, split and
GCUL variant), ``compare.csv``, ``operating_points.csv``, ``pca_sweep.csv``, and the figures
``operating_points.png`` and ``pca_sweep.png``. The figures alone are drawn again from the CSV
files, in seconds, by::

    PYTHONPATH=$PWD python benchmarks/text_emotion.py --redraw --out benchmarks/text_emotion
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from operating_points import MSP_LAMBDAS, Split, operating_points  # noqa: E402  (benchmarks/ is on sys.path)

import gcul_theory  # noqa: E402
import simulations  # noqa: E402
from simulations.compare import DEFAULT_LEVEL, compare, estimate, stratified_splits, verdict  # noqa: E402
from simulations.figures import save_figure  # noqa: E402
from simulations.gcul import GCUL  # noqa: E402
from simulations.models import single_threaded_blas  # noqa: E402
from simulations.outputs import atomic_write_text, check_folder, check_writable  # noqa: E402
from simulations.registry import PAPER_METHOD  # noqa: E402
from simulations.rejectors import RejectorContext, get_rejector  # noqa: E402
from simulations.text.representations import REPRESENTATIONS, cached_representation  # noqa: E402
from simulations.text.study import CORPORA, CORPUS_TITLE, LAM, MIN_CLASS_ROWS, SEED, TEST_SIZE  # noqa: E402
from simulations.text.study import FINETUNED_SEEDS as FT_SEEDS  # noqa: E402
from simulations.text.study import load_finetuned as finetuned_inputs  # noqa: E402
from simulations.text.study import load_pooled as load_corpus  # noqa: E402

DELTA = 0.05
VALID = gcul_theory.DEFAULT_METHOD  # "hunter_worsley", the tightest valid predictor
PCA_DIMS = (2, 3, 4, 5, 8, 10, 20, 40, 80, 160, 320, 768)  # the paper's, capped at d
REDUCED = 10  # the paper's 768 -> 10 (its GCUL hyper-parameter table)
METHODS = tuple(REPRESENTATIONS)
# The default run: (b) LSA, the linear reduction of (a)'s TF-IDF features and weaker than (a)
# and (c) on both corpora in every earlier run, is measured only when named (--representation
# lsa), to keep the whole benchmark within its time budget.
DEFAULT_METHODS = tuple(m for m in METHODS if m != "lsa")
# The PCA sweep runs on (a) and the fine-tuned encoder (the paper's sweep is on fine-tuned
# embeddings); --sweep-standins adds (b) and (c).
SWEPT = ("oof_logistic",)
PAPER = "the GCUL paper"

# ------------------------------------------------------------------------------ the paper's numbers
# Table "Overall performance comparison of all models." (section "Benchmark performance on
# real-world datasets"), on the Kaggle set: accuracy (%), macro-F1, rejection (%).
PAPER_KAGGLE = {
    "TF-IDF + logistic regression": (84.02, 0.8433, None),
    "DistilBERT (phase 1)": (89.37, 0.8958, None),
    "GCUL + PCA": (95.85, 0.9594, 10.24),
    "GCUL + LDA": (94.98, 0.9504, 8.49),
}
# Appendix "Complete experimental results", tables "GCUL results on ... dataset": PCA d ->
# (base acc %, sel acc %, rej %, λ*_PRE, λ*_EMP).
PAPER_GCUL = {
    "carer": {
        2: (92.6, 93.65, 2.35, 0.00, 0.00), 3: (92.6, 95.92, 5.70, 0.00, 0.25),
        4: (92.6, 95.79, 4.95, 0.22, 0.27), 5: (92.6, 95.73, 5.10, 0.33, 0.31),
        8: (92.6, 95.79, 4.95, 0.10, 0.24), 10: (92.6, 95.69, 4.95, 0.11, 0.23),
        20: (92.6, 95.79, 4.95, 0.18, 0.33), 40: (92.6, 95.69, 4.95, 0.21, 0.38),
        80: (92.6, 95.69, 4.95, 0.24, 0.42), 160: (92.6, 95.69, 4.95, 0.25, 0.48),
        320: (92.6, 95.69, 4.95, 0.28, 0.56), 768: (92.6, 95.69, 4.95, 0.32, 0.70),
    },
    "goemotions": {
        2: (37.99, 38.15, 3.24, 0, 0), 3: (37.99, 38.19, 2.48, 0, 0), 4: (37.99, 38.09, 3.06, 0, 0),
        5: (37.99, 38.01, 2.48, 0, 0), 8: (37.99, 38.35, 4.06, 0, 0), 10: (37.99, 38.23, 2.81, 0, 0),
        20: (37.99, 38.14, 1.85, 0, 0), 40: (37.99, 37.93, 2.22, 0, 0), 80: (37.99, 38.02, 2.20, 0, 0),
        160: (37.99, 37.94, 2.22, 0, 0), 320: (37.99, 37.95, 2.19, 0, 0), 768: (37.99, 38.03, 2.21, 0, 0),
    },
}  # fmt: skip
# Appendix tables "MSP / SelectiveNet / Mahalanobis results on ... dataset": knob -> (base acc %,
# sel acc %, rej %).
PAPER_OPERATING = {
    "carer": {
        "msp": [(0.1, 92.55, 98.81, 11.70), (0.2, 92.55, 98.81, 11.70), (0.3, 92.55, 98.81, 11.70),
                (0.4, 92.55, 97.06, 8.25), (0.5, 92.55, 94.09, 3.55), (0.6, 92.55, 93.64, 2.45),
                (0.7, 92.55, 92.55, 0.0), (0.8, 92.55, 92.55, 0.0), (0.9, 92.55, 92.55, 0.0),
                (1.0, 92.55, 92.55, 0.0)],
        "selectivenet": [(0.60, 93.10, 98.82, 40.75), (0.64, 93.00, 98.43, 36.50),
                         (0.68, 93.30, 98.67, 32.40), (0.72, 93.45, 98.04, 28.45),
                         (0.76, 93.10, 96.74, 24.75), (0.80, 93.20, 96.74, 20.25),
                         (0.84, 93.05, 96.54, 16.25), (0.88, 93.15, 96.57, 12.60),
                         (0.92, 93.15, 93.67, 7.60), (0.96, 93.30, 93.64, 4.15)],
        "mahalanobis": [(1.00, 92.55, 92.55, 0), (0.96, 92.55, 93.91, 4), (0.92, 92.55, 93.97, 8),
                        (0.88, 92.55, 94.20, 12), (0.84, 92.55, 94.35, 16), (0.80, 92.55, 94.31, 20),
                        (0.76, 92.55, 94.28, 24), (0.72, 92.55, 94.17, 28), (0.68, 92.55, 93.97, 32),
                        (0.64, 92.55, 93.75, 36)],
    },
    "goemotions": {
        "msp": [(lam, 37.99, 100.0, 99.83) for lam in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6)]
               + [(lam, 37.99, 37.99, 0.0) for lam in (0.7, 0.8, 0.9, 1.0)],
        "selectivenet": [(0.60, 37.75, 45.43, 39.94), (0.64, 37.47, 44.30, 35.94),
                         (0.68, 37.46, 43.68, 32.12), (0.72, 37.57, 42.79, 28.06),
                         (0.76, 37.94, 42.45, 23.82), (0.80, 37.27, 41.00, 19.85),
                         (0.84, 37.94, 41.10, 16.16), (0.88, 37.86, 40.07, 11.85),
                         (0.92, 38.30, 39.76, 7.82), (0.96, 38.00, 38.71, 3.74)],
        "mahalanobis": [(1.00, 37.99, 37.99, 0), (0.96, 37.99, 38.14, 4), (0.92, 37.99, 38.37, 8),
                        (0.88, 37.99, 38.49, 12), (0.84, 37.99, 38.69, 16), (0.80, 37.99, 38.80, 20),
                        (0.76, 37.99, 38.94, 24), (0.72, 37.99, 39.05, 28), (0.68, 37.99, 39.40, 32),
                        (0.64, 37.99, 39.66, 36)],
    },
}  # fmt: skip
SWEEP_YLIM = (-0.4, 1.1)
KNOB = {"msp": "λ", "selectivenet": "target c", "mahalanobis": "retained q"}
KNOB_TITLE = {
    "msp": "MSP + Chow's rule",
    "selectivenet": "SelectiveNet (linear, g ≥ 0.5)",
    "mahalanobis": "Mahalanobis, top q retained",
}
# The fine-tuned encoder (read with --finetuned DIR, DIR/<corpus>/seed<k>/ in the format of
# simulations.text.load_precomputed), under the two protocols every table names:
# (P) the paper's: every rejector fitted on the train split's representations, which the encoder
#     was fine-tuned on, judged on the test split;
# (H) held out: fitted only on rows the encoder never saw: validation -> test ("finetuned_valtest"),
#     and `gcul compare`'s stratified splits over the validation + test rows ("finetuned_heldout").
FT_FIXED = {"finetuned_paper": ("train", "test"), "finetuned_valtest": ("validation", "test")}
FT_SPLITS = "finetuned_heldout"
FT_REPS = (*FT_FIXED, FT_SPLITS)
PROTOCOL = {
    **{m: "stratified splits of all rows" for m in METHODS},
    "finetuned_paper": "(P) the paper's: train split -> test split",
    "finetuned_valtest": "(H) held out: validation -> test",
    FT_SPLITS: "(H) held out: `gcul compare`'s splits of validation + test",
}
ALL_REPS = (*METHODS, *FT_REPS)
CORES = ("correct", "class", "predicted")  # the readings of mu_c (estimate_geometry's core=)
COLORS = {"oof_logistic": "#0072B2", "lsa": "#E69F00", "wordllama": "#009E73",
          "finetuned_paper": "#CC79A7", "finetuned_valtest": "#882255", "paper": "#000000"}  # fmt: skip
SHORT = {
    "oof_logistic": "(a) out-of-fold TF-IDF+LR",
    "lsa": "(b) LSA",
    "wordllama": "(c) WordLlama (unit rows)",
    "finetuned_paper": "(d) fine-tuned MiniLM (P)",
    "finetuned_valtest": "(d) fine-tuned MiniLM (H, val → test)",
    FT_SPLITS: "(d) fine-tuned MiniLM (H, splits of val + test)",
}
HEAD_LABEL = "fine-tuned head's MSP"


# ------------------------------------------------------------------------------------ data
# ------------------------------------------------------------------------------- measures
def macro_f1(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Mean over the classes present in y_true or y_pred of 2TP / (2TP + FP + FN)
    (scikit-learn's ``f1_score(average="macro")``); NaN for no rows."""
    if y_true.size == 0:
        return math.nan
    scores = []
    for c in np.union1d(y_true, y_pred):
        tp = np.count_nonzero((y_true == c) & (y_pred == c))
        fp = np.count_nonzero((y_true != c) & (y_pred == c))
        fn = np.count_nonzero((y_true == c) & (y_pred != c))
        scores.append(2 * tp / (2 * tp + fp + fn))
    return float(np.mean(scores))


VARIANTS: dict[str, dict[str, Any]] = {
    "gcul": {},
    "gcul_pca": {"reduce": "pca"},
    "gcul_lda": {"reduce": "lda"},
    "gcul_oof_pool": {"error_pool": "out_of_fold"},
}
VARIANT_TITLE = {
    "gcul": "GCUL",
    "gcul_pca": f"GCUL + PCA ({REDUCED} d)",
    "gcul_lda": f"GCUL + LDA (≤ {REDUCED} d)",
    "gcul_oof_pool": "GCUL, out-of-fold error pool",
}


def fit_variant(variant: str, Z, y, train) -> GCUL:
    """One GCUL variant of :data:`VARIANTS` fitted on the rows ``train``."""
    kwargs = dict(VARIANTS[variant])
    n_classes = int(y.max()) + 1
    if kwargs.get("reduce") == "pca":
        kwargs["n_components"] = min(REDUCED, Z.shape[1])
    elif kwargs.get("reduce") == "lda":
        kwargs["n_components"] = min(REDUCED, n_classes - 1, Z.shape[1])
    return GCUL(**kwargs).fit(Z[train], y[train])


def measure_variant(variant: str, Z, y, train, test) -> dict:
    """Fit one GCUL variant on ``train``; its phase-1 and selective numbers on ``test``, its
    λ*_PRE (valid and paper's) on the training part, λ*_CERT and λ*_EMP on the test part."""
    return _measure(fit_variant(variant, Z, y, train), Z, y, train, test) | {"variant": variant}


def _measure(model: GCUL, Z, y, train, test, probs=None) -> dict:
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
    """Sorted indices of a stratified subsample of ``n`` rows (every class in proportion,
    at least MIN_CLASS_ROWS each), seeded by SEED."""
    rng = np.random.default_rng(np.random.SeedSequence(SEED, spawn_key=(9,)))
    share = n / y.size
    keep = []
    for c in range(int(y.max()) + 1):
        rows = np.flatnonzero(y == c)
        take = min(rows.size, max(MIN_CLASS_ROWS, int(round(share * rows.size))))
        keep.append(rng.choice(rows, take, replace=False))
    return np.sort(np.concatenate(keep))


def nan_mean(values: list[float]) -> float:
    """Mean of the values that are not NaN; NaN (without a warning) when none is left."""
    kept = [v for v in values if not math.isnan(v)]
    return float(np.mean(kept)) if kept else math.nan


def dims_for(d: int) -> list[int]:
    return sorted({k for k in PCA_DIMS if k <= d} | {d})


def compare_csv_rows(result, key: dict, split_list: list) -> list[dict]:
    """``compare.csv``'s rows of one `gcul compare` result: one per rejector and split."""
    return [
        key
        | {"split": i, "n_train": int(train.size), "n_test": int(test.size), "rejector": r.name,
           "label": r.label, "operating_point": r.operating_point}
        | {k: getattr(r, k).values[i] for k in ("coverage", "sel_risk", "difference", "aurc", "u", "u_joint")}
        for r in result.rejectors
        for i, (train, test) in enumerate(split_list)
    ]  # fmt: skip


def run_standin_split(corpus: str, method: str, Z: np.ndarray, y: np.ndarray, splits: int, i: int,
                      sweep: bool) -> dict:  # fmt: skip
    """Every per-split measurement of one (corpus, stand-in representation) on split ``i`` of
    ``splits``: the GCUL variants, the baselines along their knobs and, with ``sweep``, the PCA
    sweep. One task per split, so that two workers share a corpus's work evenly; GCUL() and
    GCUL + PCA at d = 10, fitted once for table (i), are reused by the operating points and the
    sweep (the fits are deterministic: reusing them changes no number)."""
    cpu: dict[str, float] = {}
    train, test = stratified_splits(y, splits, TEST_SIZE, SEED)[i]
    key = {"corpus": corpus, "representation": method, "seed": SEED}
    rows, points, swept = [], [], []
    with single_threaded_blas():
        t = time.process_time()
        fitted, measured = {}, {}
        for variant in VARIANTS:
            fitted[variant] = fit_variant(variant, Z, y, train)
            measured[variant] = _measure(fitted[variant], Z, y, train, test)
            rows.append(key | {"split": i} | measured[variant] | {"variant": variant})
        cpu["(i) benchmark + (iv) screening"] = time.process_time() - t

        t = time.process_time()
        points = _points(corpus, method, SEED, i, Z, y, train, test, model=fitted["gcul"])
        cpu["(ii) operating points"] = time.process_time() - t

        if sweep:
            t = time.process_time()
            swept = _sweep(key | {"split": i}, Z, y, train, test, None, measured["gcul_pca"])
            cpu["(iii) PCA sweep"] = time.process_time() - t
    return {"rows": rows, "compare": [], "verdicts": {}, "points": points, "sweep": swept,
            "cpu": cpu, "n_features": int(Z.shape[1])}  # fmt: skip


def run_standin_compare(corpus: str, method: str, Z: np.ndarray, y: np.ndarray, splits: int) -> dict:
    """`gcul compare` on one (corpus, stand-in representation): its rows and verdicts."""
    key = {"corpus": corpus, "representation": method, "seed": SEED}
    with single_threaded_blas():
        t = time.process_time()
        result = compare(Z, y, lam=LAM, splits=splits, seed=SEED, test_size=TEST_SIZE)
        compare_rows = compare_csv_rows(result, key, stratified_splits(y, splits, TEST_SIZE, SEED))
        verdicts = {r.name: r.verdict for r in result.rejectors}
        cpu = {"(ii) gcul compare": time.process_time() - t}
    return {"rows": [], "compare": compare_rows, "verdicts": verdicts, "points": [], "sweep": [],
            "cpu": cpu, "n_features": int(Z.shape[1])}  # fmt: skip


def _sweep(key: dict, Z, y, train, test, probs, at_reduced: dict | None, skip_reduced: bool = False) -> list[dict]:
    """The PCA sweep's rows on one split: ``GCUL(reduce="pca", n_components=k)`` for every k of
    :func:`dims_for`. At k = min(REDUCED, d), the d of GCUL + PCA in table (i), ``at_reduced``
    (that variant's measurement) is used as it is; with ``skip_reduced`` that row is left out
    (the caller adds it from the variant's task)."""
    reduced = min(REDUCED, Z.shape[1])
    rows = []
    for k in dims_for(Z.shape[1]):
        if k == reduced and skip_reduced:
            continue
        if k == reduced and at_reduced is not None:
            m = at_reduced
        else:
            m = _measure(GCUL(reduce="pca", n_components=k).fit(Z[train], y[train]), Z, y, train, test, probs)
        rows.append(key | {"d": k} | m)
    return rows


# ------------------------------------------------------------------- the fine-tuned encoder
def head_at(probs: np.ndarray, y: np.ndarray, m: int) -> dict:
    """The fine-tuned head's maximum softmax probability as a rejector on test rows: its
    selective risk among the ``m`` rows it is most confident on (ties by their expected value),
    and at its own operating point, Chow's rule p_max >= 1 - λ, its coverage and the paper's
    utility U = ε - ε_sel - λρ and Chow's U_joint, ε being the head's own error (the model a
    practitioner with this head deploys)."""
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


def fixed_compare(model: GCUL, Z, y, probs, train, test, seed: int) -> list[dict]:
    """GCUL, phase 1's MSP and the fine-tuned head's MSP on one fixed train/test split: coverage,
    U and U_joint at each one's own operating point, selective risk at GCUL's coverage."""
    X_test, y_test = Z[test], y[test]
    outcome = model.indicators(X_test, y_test)
    n = test.size
    m = int(np.count_nonzero(~outcome.rejected))
    gcul_risk = outcome.selective_error
    rho = outcome.rejection_rate
    rows = [{"rejector": "gcul", "label": "GCUL", "operating_point": "own accept set",
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
    rows.append({"rejector": "msp", "label": "MSP", "operating_point": "Chow: p_max >= 1 - lam",
                 "coverage": 1.0 - rho, "sel_risk": risk, "difference": risk - gcul_risk,
                 "aurc": float(gcul_theory.aurc(scores, wrong)),
                 "u": outcome.base_error - eps_sel - LAM * rho,
                 "u_joint": float(gcul_theory.joint_utility(LAM, outcome.base_error, eps_sel, rho))})  # fmt: skip
    head = head_at(probs[test], y_test, m)
    rows.append({"rejector": "head_msp", "label": HEAD_LABEL, "operating_point": "Chow: p_max >= 1 - lam",
                 "coverage": head["coverage"], "sel_risk": head["sel_risk"],
                 "difference": head["sel_risk"] - gcul_risk, "aurc": head["aurc"], "u": head["u"],
                 "u_joint": head["u_joint"]})  # fmt: skip
    assert n == y_test.size
    return rows


def run_finetuned_fixed(corpus: str, rep: str, seed: int, Z, y, probs, train, test) -> dict:
    """Every measurement of one fine-tuned seed under a fixed-split protocol of :data:`FT_FIXED`
    but the PCA sweep (:func:`run_finetuned_sweep`, a task of its own): the GCUL variants and
    the μ_c readings, GCUL against both MSPs at GCUL's coverage, the baselines along their
    knobs (and the head's MSP along λ). GCUL() is fitted once and reused by the operating points;
    GCUL + PCA's measurement is returned (``"at_reduced"``) for the sweep's row at its d."""
    cpu: dict[str, float] = {}
    key = {"corpus": corpus, "representation": rep, "seed": seed, "split": 0}
    rows, points, measured, fitted = [], [], {}, {}
    with single_threaded_blas():
        t = time.process_time()
        for variant in VARIANTS:
            fitted[variant] = fit_variant(variant, Z, y, train)
            measured[variant] = _measure(fitted[variant], Z, y, train, test, probs)
            rows.append(key | measured[variant] | {"variant": variant})
            if variant == "gcul":
                sizes = {"n_train": int(train.size), "n_test": int(test.size)}
                compare_rows = [key | sizes | r for r in fixed_compare(fitted["gcul"], Z, y, probs, train, test, seed)]
        cpu["(i) benchmark + (iv) screening"] = time.process_time() - t

        t = time.process_time()
        points = _points(corpus, rep, seed, 0, Z, y, train, test, probs, model=fitted["gcul"])
        cpu["(ii) operating points"] = time.process_time() - t
    return {"rows": rows, "compare": compare_rows, "verdicts": {}, "points": points, "sweep": [],
            "cpu": cpu, "n_features": int(Z.shape[1]), "at_reduced": measured["gcul_pca"]}  # fmt: skip


def run_finetuned_sweep(corpus: str, rep: str, seed: int, Z, y, probs, train, test) -> dict:
    """The PCA sweep of one fine-tuned seed under a fixed-split protocol, but its row at GCUL +
    PCA's d, which :func:`run_finetuned_fixed` measures (``main`` puts it in its place)."""
    key = {"corpus": corpus, "representation": rep, "seed": seed, "split": 0}
    with single_threaded_blas():
        t = time.process_time()
        sweep = _sweep(key, Z, y, train, test, probs, None, skip_reduced=True)
        cpu = {"(iii) PCA sweep": time.process_time() - t}
    return {"rows": [], "compare": [], "verdicts": {}, "points": [], "sweep": sweep, "cpu": cpu,
            "n_features": int(Z.shape[1])}  # fmt: skip


def run_finetuned_splits(corpus: str, seed: int, Z, y, probs, splits: int) -> dict:
    """(H) by `gcul compare`'s protocol on the rows the encoder never saw (validation + test,
    pooled), with the fine-tuned head's MSP scored on the same test parts at GCUL's coverage
    and judged by the same corrected resampled t test."""
    rep = FT_SPLITS
    key = {"corpus": corpus, "representation": rep, "seed": seed}
    t = time.process_time()
    with single_threaded_blas():
        result = compare(Z, y, lam=LAM, splits=splits, seed=SEED, test_size=TEST_SIZE)
    split_list = stratified_splits(y, splits, TEST_SIZE, SEED)  # compare's splits (same arguments)
    compare_rows = compare_csv_rows(result, key, split_list)
    verdicts = {r.name: r.verdict for r in result.rejectors}
    gcul = next(r for r in result.rejectors if r.name == "gcul")
    differences = []
    for i, (train, test) in enumerate(split_list):
        m = int(round(gcul.coverage.values[i] * test.size))
        head = head_at(probs[test], y[test], m)
        difference = head["sel_risk"] - gcul.sel_risk.values[i]
        differences.append(difference)
        compare_rows.append(key | {"split": i, "n_train": int(train.size), "n_test": int(test.size),
                                   "rejector": "head_msp", "label": HEAD_LABEL,
                                   "operating_point": "Chow: p_max >= 1 - lam",
                                   "coverage": head["coverage"], "sel_risk": head["sel_risk"],
                                   "difference": difference, "aurc": head["aurc"],
                                   "u": head["u"], "u_joint": head["u_joint"]})  # fmt: skip
    ratio = split_list[0][1].size / split_list[0][0].size
    verdicts["head_msp"] = verdict(HEAD_LABEL, estimate(differences, ratio)).text()
    return {"rows": [], "compare": compare_rows, "verdicts": verdicts, "points": [], "sweep": [],
            "cpu": {"(ii) gcul compare": time.process_time() - t}, "n_features": int(Z.shape[1])}  # fmt: skip


def _points(corpus, rep, seed, split, Z, y, train, test, probs=None, model=None) -> list[dict]:
    """The baselines along their knobs and GCUL's own point on one split (and, with ``probs``,
    the fine-tuned head's MSP along Chow's λ); ``model`` is GCUL() fitted on ``train``."""
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


# ------------------------------------------------------------------------------ summaries
def ratio_of(rows: list[dict]) -> float:
    return rows[0]["n_test"] / rows[0]["n_train"]


def mean_se(rows: list[dict], column: str, ratio: float) -> tuple[float, float, float, float]:
    """Mean, split SE and seed range of ``column`` (NaN values dropped).

    Per representation seed (the fine-tuning seed; the stand-ins have one): the mean over its
    splits and Nadeau & Bengio's corrected SE (NaN for one fixed split). With one seed, that
    mean and SE and no range (NaN, NaN); with several, the mean of the seeds' means, the root
    mean square of their split SEs (the split-to-split uncertainty within one seed), and the
    smallest and largest seed mean (the spread across fine-tuning seeds).
    """
    per_seed = []
    for seed in sorted({r.get("seed", SEED) for r in rows}):
        values = [r[column] for r in rows if r.get("seed", SEED) == seed and not math.isnan(r[column])]
        if values:
            e = estimate(values, ratio)
            per_seed.append((e.mean, e.se))
    if not per_seed:
        return math.nan, math.nan, math.nan, math.nan
    if len(per_seed) == 1:
        return per_seed[0][0], per_seed[0][1], math.nan, math.nan
    means = [m for m, _ in per_seed]
    se = math.sqrt(float(np.mean([e * e for _, e in per_seed])))
    return float(np.mean(means)), se, min(means), max(means)


def select(rows: list[dict], **where: Any) -> list[dict]:
    return [r for r in rows if all(r[k] == v for k, v in where.items())]


def fmt(mean: float, se: float, lo: float = math.nan, hi: float = math.nan, *,
        scale: float = 100.0, digits: int = 2) -> str:  # fmt: skip
    """``mean ± SE [lo, hi]``: the SE over splits (left out for one fixed split), the range over
    fine-tuning seeds (left out for one seed)."""
    if math.isnan(mean):
        return "—"
    text = f"{scale * mean:.{digits}f}"
    if not math.isnan(se):
        text += f" ± {scale * se:.{digits}f}"
    if not math.isnan(lo):
        text += f" [{scale * lo:.{digits}f}, {scale * hi:.{digits}f}]"
    return text


def _paper(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


PAPER_PHASE1 = "logistic regression on DistilBERT 768-d embeddings"


def _paper_phase1(corpus: str) -> str:
    """The paper's phase-1 accuracy as its appendix names it (and, for GoEmotions, the caveat)."""
    text = f"{PAPER_GCUL[corpus][REDUCED][0]:.2f} / — ({PAPER_PHASE1}"
    return text + (", another GoEmotions release)" if corpus == "goemotions" else ")")


def reps_in(rows: list[dict], corpus: str, *, fixed_only: bool = False) -> list[str]:
    """The representations present for ``corpus``, in :data:`ALL_REPS` order."""
    present = {r["representation"] for r in rows if r["corpus"] == corpus}
    return [m for m in ALL_REPS if m in present and not (fixed_only and m == FT_SPLITS)]


def table_benchmark(rows: list[dict], ratio: float, corpus: str) -> list[str]:
    paper10 = PAPER_GCUL[corpus][REDUCED]
    lines = [
        f"| representation | model | accuracy (%) | macro-F1 (%) | rejection (%) | "
        f"{PAPER}, {CORPUS_TITLE[corpus]}, PCA d = 10: accuracy / rejection (%) |",
        "|---|---|--:|--:|--:|---|",
    ]
    for method in reps_in(rows, corpus):
        block = select(rows, corpus=corpus, representation=method, variant="gcul")
        if not block:
            continue
        ratio = ratio_of(block)
        lines.append(
            f"| {SHORT[method]} | phase 1 (logistic regression) | "
            f"{fmt(*mean_se(block, 'base_acc', ratio))} | {fmt(*mean_se(block, 'base_f1', ratio))} "
            f"| — | {_paper_phase1(corpus)} |"
        )
        if method in FT_FIXED:
            lines.append(
                f"| {SHORT[method]} | the fine-tuned head (its own softmax) | "
                f"{fmt(*mean_se(block, 'head_acc', ratio))} | {fmt(*mean_se(block, 'head_f1', ratio))} "
                "| — | — |"
            )
        for variant in VARIANTS:
            part = select(rows, corpus=corpus, representation=method, variant=variant)
            paper = f"{paper10[1]:.2f} / {paper10[2]:.2f}" if variant == "gcul_pca" else "—"
            lines.append(
                f"| {SHORT[method]} | {VARIANT_TITLE[variant]} | "
                f"{fmt(*mean_se(part, 'sel_acc', ratio))} | {fmt(*mean_se(part, 'sel_f1', ratio))} "
                f"| {fmt(*mean_se(part, 'rejection', ratio))} | {paper} |"
            )
    return [*lines, ""]


REJECTOR_ORDER = ("gcul", "msp", "head_msp", "selectivenet", "mahalanobis", "entropy", "knn", "deep_gamblers")


def fixed_verdict(part: list[dict]) -> str:
    """The verdict cell of a fixed-split protocol: no t test (one split per seed), the
    difference of every seed."""
    seeds = sorted({r["seed"] for r in part})
    values = ", ".join(f"{100 * select(part, seed=k)[0]['difference']:+.2f}" for k in seeds)
    return (f"no t test (one fixed split per seed); minus GCUL's, seed by seed "
            f"({', '.join(map(str, seeds))}): {values} points")  # fmt: skip


def seed_verdicts(part: list[dict]) -> str:
    """The verdict cell of `gcul compare`'s protocol over several fine-tuning seeds: the corrected
    resampled t test of each seed's per-split differences (as `gcul compare` runs it), counted
    and listed seed by seed. Recomputed from the rows, so it is a function of the CSV files."""
    label = part[0]["label"]
    found = []
    for seed in sorted({r["seed"] for r in part}):
        rows = sorted(select(part, seed=seed), key=lambda r: r["split"])
        v = verdict(label, estimate([r["difference"] for r in rows], ratio_of(rows)))
        found.append((seed, v))
    counts = {o: sum(v.outcome == o for _, v in found) for o in ("lower", "higher", "no difference")}
    head = ", ".join(f"{o} in {n} of {len(found)} seeds" for o, n in counts.items() if n)
    detail = "; ".join(
        f"seed {k}: {100 * v.difference:+.2f} ± {100 * v.se:.2f} points, p = {v.p_value:.2g}" for k, v in found
    )
    return f"{label} vs GCUL at level {DEFAULT_LEVEL}: {head} ({detail})"


def table_compare(compare_rows: list[dict], verdicts: dict, corpus: str, ratio: float) -> list[str]:
    lines = [
        "| representation | rejector | operating point | coverage (%) | sel. risk at GCUL's "
        "coverage (%) | minus GCUL's (points) | U at its operating point | verdict (`gcul compare`) |",
        "|---|---|---|--:|--:|--:|--:|---|",
    ]
    for method in reps_in(compare_rows, corpus):
        for name in REJECTOR_ORDER:
            part = select(compare_rows, corpus=corpus, representation=method, rejector=name)
            if not part:
                continue
            ratio = ratio_of(part)
            if name == "gcul":
                verdict_text = "the reference"
            elif method in FT_FIXED:
                verdict_text = fixed_verdict(part)
            elif method == FT_SPLITS:
                verdict_text = seed_verdicts(part)
            else:
                verdict_text = verdicts.get((corpus, method), {}).get(name, "")
            lines.append(
                f"| {SHORT[method]} | {part[0]['label']} | {part[0]['operating_point']} | "
                f"{fmt(*mean_se(part, 'coverage', ratio))} | {fmt(*mean_se(part, 'sel_risk', ratio))} | "
                + ("—" if name == "gcul" else fmt(*mean_se(part, "difference", ratio)))
                + f" | {fmt(*mean_se(part, 'u', ratio), scale=1.0, digits=4)} | {verdict_text} |"
            )
    return [*lines, ""]


def table_operating(points: list[dict], corpus: str, ratio: float, method_name: str) -> list[str]:
    reps = reps_in(points, corpus)
    columns = [(m, method_name) for m in reps]
    if method_name == "msp":
        columns += [(m, "head_msp") for m in reps if select(points, representation=m, method="head_msp")]
    lines = [
        f"| {KNOB[method_name]} | "
        + " | ".join(f"{SHORT[m]}{': ' + HEAD_LABEL if k == 'head_msp' else ''}: sel. acc / rej. (%)"
                     for m, k in columns)
        + f" | {PAPER} ({PAPER_PHASE1}): sel. acc / rej. (%) |",
        "|--:|" + "--:|" * (len(columns) + 1),
    ]  # fmt: skip
    paper = {round(p[0], 2): p for p in PAPER_OPERATING[corpus][method_name]}
    params = sorted({r["param"] for r in select(points, corpus=corpus, method=method_name)},
                    reverse=method_name == "mahalanobis")  # fmt: skip
    for param in params + [math.nan]:
        cells = []
        for m, kind in columns:
            if math.isnan(param):
                part = [] if kind == "head_msp" else select(points, corpus=corpus, representation=m, method="gcul")
            else:
                part = select(points, corpus=corpus, representation=m, method=kind, param=param)
            if not part:
                cells.append("—")
                continue
            ratio = ratio_of(part) if "n_train" in part[0] else ratio
            cells.append(
                f"{fmt(*mean_se(part, 'sel_acc', ratio))} / {fmt(*mean_se(part, 'rejection', ratio))}"
            )
        if math.isnan(param):
            p10 = PAPER_GCUL[corpus][REDUCED]
            label, ref = "GCUL (own point)", f"{p10[1]:.2f} / {p10[2]:.2f} (PCA d = 10)"
        else:
            p = paper.get(round(param, 2))
            label = f"{param:.2f}" if method_name != "mahalanobis" else f"{100 * param:.0f}%"
            ref = "—" if p is None else f"{p[2]:.2f} / {p[3]:.2f}"
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {ref} |")
    return [*lines, ""]


def table_sweep(sweep: list[dict], corpus: str, method: str, ratio: float) -> list[str]:
    lines = [
        "| PCA d | sel. acc (%) | rejection (%) | λ*_PRE valid | λ*_PRE paper's | λ*_CERT | "
        f"λ*_EMP | {PAPER}: sel. acc / rej. (%), λ*_PRE, λ*_EMP |",
        "|--:|--:|--:|--:|--:|--:|--:|---|",
    ]
    for d in sorted({r["d"] for r in select(sweep, corpus=corpus, representation=method)}):
        part = select(sweep, corpus=corpus, representation=method, d=d)
        ratio = ratio_of(part)
        p = PAPER_GCUL[corpus].get(d)
        ref = "—" if p is None else f"{p[1]:.2f} / {p[2]:.2f}, {p[3]:.2f}, {p[4]:.2f}"
        lines.append(
            f"| {d} | {fmt(*mean_se(part, 'sel_acc', ratio))} | {fmt(*mean_se(part, 'rejection', ratio))} | "
            + " | ".join(fmt(*mean_se(part, c, ratio), scale=1.0, digits=3)
                         for c in ("lambda_pre_valid", "lambda_pre_paper", "lambda_cert", "lambda_emp"))
            + f" | {ref} |"
        )  # fmt: skip
    return [*lines, ""]


def table_cores(rows: list[dict], corpus: str) -> list[str]:
    """λ*_PRE like with like: unreduced and at the paper's PCA d = 10, under each reading of μ_c,
    with the valid predictor and the paper's, beside λ*_EMP of the same GCUL."""
    p = PAPER_GCUL[corpus][REDUCED]
    lines = [
        "| representation | space | λ*_PRE paper's: correct / class / predicted | λ*_PRE valid: "
        "correct / class / predicted | λ*_EMP | rejection pays | "
        f"{PAPER} (PCA d = 10): λ*_PRE, λ*_EMP |",
        "|---|---|---|---|--:|:-:|---|",
    ]
    for method in reps_in(rows, corpus):
        for variant, space in (("gcul", "unreduced"), ("gcul_pca", f"PCA d = {REDUCED}")):
            part = select(rows, corpus=corpus, representation=method, variant=variant)
            if not part:
                continue
            ratio = ratio_of(part)
            cells = []
            for which in ("paper", "valid"):
                cells.append(" / ".join(
                    fmt(*mean_se(part, f"lambda_pre_{which}" + ("" if core == "correct" else f"_{core}"), ratio),
                        scale=1.0, digits=3)
                    for core in CORES))  # fmt: skip
            emp = mean_se(part, "lambda_emp", ratio)
            lines.append(
                f"| {SHORT[method]} | {space} | {cells[0]} | {cells[1]} | "
                f"{fmt(*emp, scale=1.0, digits=3)} | {'yes' if emp[0] > LAM else 'no'} | "
                f"{p[3]:.2f}, {p[4]:.2f} |"
            )
    return [*lines, ""]


def coverage_spread(rows: list[dict], corpus: str, method: str) -> str:
    """GCUL's rejection (%) in every split (stand-ins) or seed (fine-tuned), in order."""
    part = select(rows, corpus=corpus, representation=method, variant="gcul")
    return ", ".join(f"{100 * r['rejection']:.1f}" for r in sorted(part, key=lambda r: (r["seed"], r["split"])))


def screening_rows(rows: list[dict], verdicts: dict, compare_rows: list[dict] | None = None) -> list[dict]:
    """One row per (corpus, representation): GCUL (no reduction) and what screens it."""
    out = []
    for corpus in CORPORA:
        for method in reps_in(rows, corpus):
            part = select(rows, corpus=corpus, representation=method, variant="gcul")
            if not part:
                continue
            ratio = ratio_of(part)
            row: dict[str, Any] = {"corpus": corpus, "representation": method}
            for column in ("base_acc", "sel_acc", "rejection", "lambda_pre_valid",
                           "lambda_pre_paper", "lambda_cert", "lambda_emp", "utility"):  # fmt: skip
                row[column] = mean_se(part, column, ratio)
            row["pays"] = row["lambda_emp"][0] > LAM
            row["flag_valid"] = row["lambda_pre_valid"][0] < LAM
            row["flag_paper"] = row["lambda_pre_paper"][0] < LAM
            row["certified"] = row["lambda_cert"][0] > LAM
            row["spread"] = coverage_spread(rows, corpus, method)
            if method == "finetuned_valtest" and compare_rows:  # `gcul compare` on (H): val + test
                for name, column in (("msp", "msp_verdict"), ("head_msp", "head_verdict")):
                    held = select(compare_rows, corpus=corpus, representation=FT_SPLITS, rejector=name)
                    row[column] = seed_verdicts(held) if held else ""
            elif method in FT_FIXED:
                fixed = compare_rows or []
                row["msp_verdict"] = fixed_verdict(select(fixed, corpus=corpus, representation=method, rejector="msp")) if fixed else ""
                row["head_verdict"] = fixed_verdict(select(fixed, corpus=corpus, representation=method, rejector="head_msp")) if fixed else ""
            else:
                row["msp_verdict"] = verdicts.get((corpus, method), {}).get("msp", "")
                row["head_verdict"] = "—"
            out.append(row)
    return out


def table_screening(screen: list[dict]) -> list[str]:
    paper = {"carer": PAPER_GCUL["carer"][REDUCED], "goemotions": PAPER_GCUL["goemotions"][REDUCED]}
    lines = [
        "| corpus | representation | phase-1 acc (%) | GCUL sel. acc (%) | rejection (%) | "
        f"λ*_PRE valid | λ*_PRE paper's | λ*_CERT | λ*_EMP | U(λ={LAM}) | rejection pays "
        f"(λ*_EMP > {LAM}) | flagged by λ*_PRE valid / paper's (< {LAM}) | certified "
        f"(λ*_CERT > {LAM}) | {PAPER} (PCA d = 10): acc, sel. acc, λ*_PRE, λ*_EMP |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|:-:|:-:|:-:|---|",
    ]
    lines[0] = lines[0].replace("| rejection (%) |", "| rejection (%) | rejection per split or seed (%) |", 1)
    lines[1] = "|---|---|--:|--:|--:|---|--:|--:|--:|--:|--:|:-:|:-:|:-:|---|"

    def yes(b: bool) -> str:
        return "yes" if b else "no"

    for r in screen:
        p = paper[r["corpus"]]
        lines.append(
            f"| {CORPUS_TITLE[r['corpus']]} | {SHORT[r['representation']]} | "
            f"{fmt(*r['base_acc'])} | {fmt(*r['sel_acc'])} | {fmt(*r['rejection'])} | {r['spread']} | "
            + " | ".join(fmt(*r[c], scale=1.0, digits=3)
                         for c in ("lambda_pre_valid", "lambda_pre_paper", "lambda_cert", "lambda_emp"))
            + f" | {fmt(*r['utility'], scale=1.0, digits=4)} | {yes(r['pays'])} | "
            f"{yes(r['flag_valid'])} / {yes(r['flag_paper'])} | {yes(r['certified'])} | "
            f"{p[0]:.2f}, {p[1]:.2f}, {p[3]:.2f}, {p[4]:.2f} |"
        )  # fmt: skip
    return [*lines, ""]


# --------------------------------------------------------------------------- README summary
README_REPS = ("oof_logistic", "wordllama", "finetuned_paper", "finetuned_valtest")
README_NAME = {
    "oof_logistic": "(a) TF-IDF + LR scores, 5 splits",
    "wordllama": "(c) WordLlama, unit rows, 5 splits",
    "finetuned_paper": "(d) fine-tuned MiniLM, (P) the paper's protocol",
    "finetuned_valtest": "(d) fine-tuned MiniLM, (H) held out",
}


def _range(values: list[float], scale: float, digits: int) -> str:
    """``mean`` for one value, ``mean [smallest, largest]`` for several (the fine-tuning seeds)."""
    text = f"{scale * float(np.mean(values)):.{digits}f}"
    if len(values) > 1:
        text += f" [{scale * min(values):.{digits}f}, {scale * max(values):.{digits}f}]"
    return text


def _seed_means(part: list[dict], column: str) -> list[float]:
    """The mean of ``column`` over the splits of each seed, seed by seed."""
    seeds = sorted({r["seed"] for r in part})
    return [float(np.mean([r[column] for r in part if r["seed"] == k])) for k in seeds]


def _verdict_cell(part: list[dict]) -> str:
    """How a rejector did against GCUL at GCUL's coverage, in a few words: the corrected
    resampled t test per seed over its splits (`gcul compare`'s), or, for one fixed split per
    seed, the differences."""
    seeds = sorted({r["seed"] for r in part})
    per_seed = [sorted(select(part, seed=k), key=lambda r: r["split"]) for k in seeds]
    if all(len(rows) == 1 for rows in per_seed):
        values = ", ".join(f"{100 * rows[0]['difference']:+.1f}" for rows in per_seed)
        return f"{values} points (one split per seed, no test)"
    outcomes = [verdict(part[0]["label"], estimate([r["difference"] for r in rows], ratio_of(rows)))
                for rows in per_seed]  # fmt: skip
    words = {"lower": "lower risk", "higher": "higher risk"}
    counted = []
    for outcome in ("lower", "higher", "no difference"):
        chosen = [v for v in outcomes if v.outcome == outcome]
        if not chosen:
            continue
        text = words.get(outcome, outcome)
        if outcome != "no difference":
            text += " by " + _range([abs(v.difference) for v in chosen], 100.0, 1) + " points"
        if len(outcomes) > 1:
            text += f" in {len(chosen)} of {len(outcomes)} seeds"
        counted.append(text)
    return "; ".join(counted)


def readme_findings(tables: dict) -> str:
    """The README's table of the text results, computed from the CSV rows alone (the README
    holds this text; its test recomputes it). Accuracy, rejection and λ* of GCUL + PCA at the
    paper's d = 10, as the paper's appendix rows are; the verdicts of GCUL without reduction at
    its coverage, as `gcul compare` runs it."""
    rows, compare_rows = tables["rows"], tables["compare"]
    lines = [
        "| corpus | representation | PCA d = 10: phase 1 → GCUL accuracy (%), rejected (%) | "
        "PCA d = 10: λ*_PRE (paper's) → λ*_EMP | phase-1 MSP vs GCUL at GCUL's coverage | "
        "fine-tuned head's MSP vs GCUL |",
        "| :--- | :--- | :--- | :--- | :--- | :--- |",
    ]
    for corpus in CORPORA:
        for method in README_REPS:
            part = select(rows, corpus=corpus, representation=method, variant="gcul_pca")
            if not part:
                continue
            held = FT_SPLITS if method == "finetuned_valtest" else method
            cells = []
            for name in ("msp", "head_msp"):
                chosen = select(compare_rows, corpus=corpus, representation=held, rejector=name)
                cells.append(_verdict_cell(chosen) if chosen else "—")
            if method == "finetuned_valtest":
                cells = [f"`gcul compare`: {c}" for c in cells]
            lines.append(
                f"| {CORPUS_TITLE[corpus].split(' (')[0]} | {README_NAME[method]} | "
                f"{_range(_seed_means(part, 'base_acc'), 100.0, 1)} → "
                f"{_range(_seed_means(part, 'sel_acc'), 100.0, 1)}, "
                f"{_range(_seed_means(part, 'rejection'), 100.0, 1)} | "
                f"{_range(_seed_means(part, 'lambda_pre_paper'), 1.0, 2)} → "
                f"{_range(_seed_means(part, 'lambda_emp'), 1.0, 2)} | {cells[0]} | {cells[1]} |"
            )
        base, sel, rejected, pre, emp = PAPER_GCUL[corpus][REDUCED]
        lines.append(
            f"| {CORPUS_TITLE[corpus].split(' (')[0]} | the paper (LR on DistilBERT) | {base} → "
            f"{sel}, {rejected} | {pre:.2f} → {emp:.2f} | — | — |"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------------------------- figures
def plot_operating(points: list[dict], corpora: list[str]) -> plt.Figure:
    """Selective accuracy against rejection rate: each baseline along its knob, GCUL's point."""
    columns = [*(m for m in ALL_REPS if select(points, representation=m)), "paper"]
    fig, axes = plt.subplots(len(corpora), len(columns), figsize=(3.4 * len(columns), 3.1 * len(corpora) + 1.0),
                             squeeze=False)  # fmt: skip
    markers = {"msp": "o-", "selectivenet": "s-", "mahalanobis": "^-", "head_msp": "D--"}
    shades = {"msp": 1.0, "selectivenet": 0.65, "mahalanobis": 0.35, "head_msp": 1.0}
    for i, corpus in enumerate(corpora):
        for j, column in enumerate(columns):
            ax = axes[i, j]
            color = COLORS[column]
            for m in markers:
                if m == "head_msp" and not select(points, corpus=corpus, representation=column, method=m):
                    continue
                if column == "paper":
                    pts = PAPER_OPERATING[corpus][m]
                    rej = [p[3] for p in pts]
                    acc = [p[2] for p in pts]
                    base = pts[0][1]
                else:
                    params = sorted({r["param"] for r in select(points, corpus=corpus, representation=column, method=m)})
                    rej, acc = [], []
                    for q in params:
                        part = select(points, corpus=corpus, representation=column, method=m, param=q)
                        rej.append(100 * np.mean([r["rejection"] for r in part]))
                        acc.append(100 * nan_mean([r["sel_acc"] for r in part]))
                    base = 100 * nan_mean([r["base_acc"] for r in select(points, corpus=corpus, representation=column, method="gcul")])
                ax.plot(rej, acc, markers[m], color=color, alpha=shades[m], ms=3, lw=1)
            if column == "paper":
                p = PAPER_GCUL[corpus][REDUCED]
                gx, gy = p[2], p[1]
            else:
                g = select(points, corpus=corpus, representation=column, method="gcul")
                gx = 100 * nan_mean([r["rejection"] for r in g])
                gy = 100 * nan_mean([r["sel_acc"] for r in g])
            ax.plot([gx], [gy], "*", color="#D55E00", ms=13, mec="black", mew=0.6, zorder=5)
            ax.axhline(base, color="grey", ls=":", lw=1)
            ax.set_xlim(-2, 102)
            title = f"{PAPER} (LR on DistilBERT)" if column == "paper" else SHORT[column]
            ax.set_title(f"{CORPUS_TITLE[corpus]}\n{title}", fontsize=8.5)
            ax.set_xlabel("rejection rate (%)", fontsize=8)
            if j == 0:
                ax.set_ylabel("selective accuracy (%)", fontsize=8)
            ax.tick_params(labelsize=7)
    # the legend shows each curve's marker and line in the panels' own colour (a panel's colour is
    # its representation; the first column's colour stands for all), never a colour no curve has
    ink = COLORS[columns[0]]
    handles = [
        plt.Line2D([], [], color=ink, marker="o", ms=3, label="phase-1 MSP + Chow, λ = 0.1 … 1.0"),
        plt.Line2D([], [], color=ink, marker="s", ms=3, alpha=0.65, label="SelectiveNet, c = 0.60 … 0.96"),
        plt.Line2D([], [], color=ink, marker="^", ms=3, alpha=0.35, label="Mahalanobis, q = 100% … 64%"),
        plt.Line2D([], [], color="#D55E00", marker="*", ls="", ms=11, mec="black", label="GCUL (no knob)"),
        plt.Line2D([], [], color="grey", ls=":", label="phase-1 accuracy"),
    ]  # fmt: skip
    if select(points, method="head_msp"):
        handles.insert(3, plt.Line2D([], [], color=ink, marker="D", ls="--", ms=3,
                                     label="fine-tuned head's MSP + Chow, λ = 0.1 … 1.0"))  # fmt: skip
    legend = fig.legend(handles=handles, loc="upper center", ncol=3, fontsize=8, frameon=False,
                        bbox_to_anchor=(0.5, 1 - 0.3 / fig.get_figheight()))
    fig.suptitle(_wrapped("Operating points: selective accuracy against rejection, mean over splits "
                          "or seeds (colour: the panel's representation)", fig),
                 y=1 - 0.05 / fig.get_figheight(), fontsize=10)  # fmt: skip
    _panels_below(fig, legend)
    return fig


def _panels_below(fig: plt.Figure, legend: Any) -> None:
    """Lay the panels out under the title and the legend, as close as they fit (the legend's
    drawn height decides, not a guess that leaves a gap or an overlap)."""
    fig.canvas.draw()
    legend.set_in_layout(False)
    if fig._suptitle is not None:  # placed by hand above the legend
        fig._suptitle.set_in_layout(False)
    top = legend.get_window_extent().transformed(fig.transFigure.inverted()).y0
    fig.tight_layout(rect=(0, 0, 1, top - 0.05 / fig.get_figheight()))


def _wrapped(title: str, fig: plt.Figure) -> str:
    """``title`` broken into lines that fit the figure's width at 10 pt (about 0.09 inch a
    character), so a narrow figure of a reduced run does not clip its title at both edges."""
    import textwrap

    return "\n".join(textwrap.wrap(title, width=max(30, int(fig.get_figwidth() / 0.09))))


def thin_tick_labels(fig: plt.Figure, pad_px: float = 3.0) -> list[tuple[int, str]]:
    """Hide x tick labels that would overlap their left neighbour, panel by panel.

    On a log axis the labels of close dimensions (80 and 100, 8 and 10) collide; a label is kept
    if its drawn extent clears the last kept one by ``pad_px`` pixels, and the last label (the
    largest dimension) is always kept, at the cost of its left neighbour. Call after the layout
    is final. Returns ``(panel index, label)`` of every label hidden.
    """
    renderer = fig.canvas.get_renderer()
    hidden = []
    for index, ax in enumerate(fig.axes):
        labels = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
        if not labels:
            continue
        boxes = [t.get_window_extent(renderer) for t in labels]
        order = sorted(range(len(labels)), key=lambda k: boxes[k].x0)
        kept = [order[0]]
        for k in order[1:]:
            if boxes[k].x0 >= boxes[kept[-1]].x1 + pad_px:
                kept.append(k)
            elif k == order[-1] and len(kept) > 1:  # the largest dimension wins the clash
                kept[-1] = k
        for k in range(len(labels)):
            if k not in kept:
                labels[k].set_visible(False)
                hidden.append((index, labels[k].get_text()))
    return hidden


def plot_sweep(sweep: list[dict], corpora: list[str]) -> plt.Figure:
    """λ*_PRE (valid, paper's), λ*_CERT and λ*_EMP across PCA dimensions."""
    columns = [*(m for m in ALL_REPS if select(sweep, representation=m)), "paper"]
    fig, axes = plt.subplots(len(corpora), len(columns), figsize=(3.4 * len(columns), 3.0 * len(corpora) + 1.0),
                             squeeze=False, sharey=True)  # fmt: skip
    styles = {
        "lambda_pre_valid": ("o-", "#0072B2", f"λ*_PRE valid ({VALID})"),
        "lambda_pre_paper": ("o--", "#56B4E9", f"λ*_PRE paper's ({PAPER_METHOD})"),
        "lambda_cert": ("d-.", "#009E73", f"λ*_CERT (δ = {DELTA})"),
        "lambda_emp": ("s-", "#D55E00", "λ*_EMP (test)"),
    }
    for i, corpus in enumerate(corpora):
        for j, column in enumerate(columns):
            ax = axes[i, j]
            if column == "paper":
                ds = sorted(PAPER_GCUL[corpus])
                ax.plot(ds, [PAPER_GCUL[corpus][d][3] for d in ds], "o--", color="#56B4E9", ms=4, zorder=4)
                ax.plot(ds, [PAPER_GCUL[corpus][d][4] for d in ds], "s-", color="#D55E00", ms=4)
                title = f"{PAPER} (DistilBERT 768 d)"  # its d sweep is on its fine-tuned embeddings
            else:
                ds = sorted({r["d"] for r in select(sweep, corpus=corpus, representation=column)})
                for c, (style, color, _) in styles.items():
                    means = [nan_mean([r[c] for r in select(sweep, corpus=corpus, representation=column, d=d)]) for d in ds]
                    # where curves coincide (often at 0) the broken lines are drawn over the solid
                    # ones and the solid ones are wider, so that every one stays in sight
                    solid = style.endswith("-") and not style.endswith(("--", "-."))
                    ax.plot(ds, means, style, color=color, ms=5 if solid else 3.5, lw=2.0 if solid else 1.2,
                            zorder=2 if solid else 4)  # fmt: skip
                title = SHORT[column]
            ax.axhline(LAM, color="grey", ls=":", lw=1)
            ax.set_ylim(*SWEEP_YLIM)  # a mean λ*_EMP over splits with ρ near 0 can be far out
            ax.set_xscale("log", base=2)
            ax.set_xticks(ds)
            ax.set_xticklabels([str(d) for d in ds], fontsize=6)
            ax.minorticks_off()
            ax.set_title(f"{CORPUS_TITLE[corpus]}\n{title}", fontsize=8.5)
            ax.set_xlabel("PCA dimensions of phase 2", fontsize=8)
            if j == 0:
                ax.set_ylabel("critical cost λ*", fontsize=8)
            ax.tick_params(labelsize=7)
    handles = [plt.Line2D([], [], color=color, marker=style[0], ls=style[1:], ms=4, label=label)
               for style, color, label in styles.values()]  # fmt: skip
    handles.append(plt.Line2D([], [], color="grey", ls=":", label=f"λ = {LAM}"))
    legend = fig.legend(handles=handles, loc="upper center", ncol=3, fontsize=8, frameon=False,
                        bbox_to_anchor=(0.5, 1 - 0.3 / fig.get_figheight()))
    fig.suptitle(_wrapped("λ*_PRE against λ*_EMP across PCA dimensions, mean over splits or seeds "
                          f"(y clipped to [{SWEEP_YLIM[0]}, {SWEEP_YLIM[1]}]: the tables hold every value)", fig),
                 y=1 - 0.05 / fig.get_figheight(), fontsize=10)  # fmt: skip
    _panels_below(fig, legend)
    thin_tick_labels(fig)  # 80 and 100 (LSA), 8 and 10 (the paper's panel) collided
    return fig


# ------------------------------------------------------------------------------------- CSV
def to_csv(rows: list[dict]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    for r in rows:
        writer.writerow({k: (repr(float(v)) if isinstance(v, float) else v) for k, v in r.items()})
    return buffer.getvalue()


def read_csv(path: Path) -> list[dict]:
    """Rows of a CSV written by :func:`to_csv`, numbers back as int or float."""
    out = []
    with open(path, newline="", encoding="utf-8") as handle:
        for r in csv.DictReader(handle):
            row: dict[str, Any] = {}
            for k, v in r.items():
                try:
                    row[k] = int(v)
                except ValueError:
                    try:
                        row[k] = float(v)
                    except ValueError:
                        row[k] = v
            out.append(row)
    return out


# -------------------------------------------------------------------------------- the report
def _load_note(load: list[float] | None) -> str:
    """``" (load average 0.0 at the start, 2.0 at the end, 2 cores)"``, or nothing unknown."""
    if not load or any(math.isnan(v) for v in load):
        return ""
    return f" (1-minute load average {load[0]:.1f} at the start, {load[1]:.1f} at the end, {os.cpu_count()} cores)"


def _goemotions_range(rows: list[dict]) -> str:
    """The smallest and largest phase-1 test accuracy (%) of GoEmotions over the representations
    measured (each the mean over its splits or seeds), e.g. "50–62%"."""
    means = [np.mean([r["base_acc"] for r in select(rows, corpus="goemotions", representation=m, variant="gcul")])
             for m in ALL_REPS if select(rows, corpus="goemotions", representation=m, variant="gcul")]  # fmt: skip
    return f"{100 * min(means):.0f}–{100 * max(means):.0f}%" if means else "(not measured)"


def render(out: Path, data_notes: dict, tables: dict, cpu: dict, wall: float, splits: int,
           command: str, load: list[float] | None = None) -> str:  # fmt: skip
    rows, compare_rows, points, sweep = (tables[k] for k in ("rows", "compare", "points", "sweep"))
    verdicts = tables["verdicts"]
    corpora = [c for c in CORPORA if select(rows, corpus=c)]
    lines = [
        "# GCUL on text emotion corpora: the paper's real-data tables, in kind",
        "",
        f"Made by `{command}` (simulations {simulations.__version__}, Python "
        f"{platform.python_version()}, NumPy {np.__version__}, {platform.machine()}, BLAS on one "
        f"thread). Wall time {wall:.0f} s{_load_note(load)}. Per-split rows: `rows.csv`, `compare.csv`, "
        "`operating_points.csv`, `pca_sweep.csv` (every table below is computed from them); "
        "figures: `operating_points.png`, `pca_sweep.png`.",
        "",
        f"Cites the GCUL paper (\"Ambiguity identification in text emotion classification via "
        f"cluster-guided learning\") by section and table title. Data: "
        + "; ".join(f"{CORPUS_TITLE[c]}: {data_notes[c]}" for c in corpora)
        + f". {splits} stratified train/test splits (test {TEST_SIZE:.0%} of every class, seed "
        f"{SEED}); λ = {LAM}; ± is Nadeau & Bengio's corrected standard error over the splits.",
        "",
        "**Reproducible to what.** Byte for byte on one machine and library build: the same "
        "command there writes the same CSV files. On another CPU or library build, within the "
        "standard errors: BLAS summation orders move the last digits of every fit, a near-tie "
        "at GCUL's cut (or at K-Means' assignment) can then move a split's coverage by a few "
        "rows, and the TF-IDF stand-ins also depend on scikit-learn's release (one fresh "
        "environment gave split 0 of (a) on CARER a phase-1 accuracy of 0.87225 against 0.8695 "
        "here). The test suite checks a fresh run of the fine-tuned rows against these CSV "
        "files to the tolerance it states, when the data is at hand.",
        "",
        "**Representations.** Stand-ins, computed here from the texts over stratified splits of "
        "all pooled rows: (a) out-of-fold TF-IDF + logistic-regression decision scores (5 "
        "label-free folds; a supervised, label-shaped space of dimension C); (b) LSA (TF-IDF → "
        "SVD, 100 d, unit rows), "
        + ("measured here; " if any(r["representation"] == "lsa" for r in rows) else
           "not in this run (it is measured when named, `--representation lsa`: the linear "
           "reduction of (a)'s features; in the run committed before it left the default "
           "(4b1549f), its phase 1 reached 41.9% on CARER and 47.8% on GoEmotions, below (a) and "
           "(c) on both); ")
        + "(c) WordLlama's frozen 256-d sentence embedding, in unit rows "
        "as WordLlama itself compares sentences. (a) holds each row's decision scores "
        "w_c·x + b_c, the inputs of the softmax (log-probabilities up to a per-row constant), "
        "not probabilities: that is the form of a fine-tuned head's logits, and it keeps the "
        "space linear in the features, whereas the softmax squeezes every confident row into a "
        "corner of the simplex where Euclidean distances no longer follow the classifier's "
        "margins (given as probabilities instead, the same model moves GCUL's operating point "
        "by a few points of coverage, the verdicts standing: `benchmarks/text_score_form.py` "
        "measures it). "
        + ("(d) A fine-tuned encoder, read from disk (`--finetuned`): all-MiniLM-L6-v2 (384 d) "
           "fine-tuned with the paper's DistilBERT recipe on the train split only, 3 fine-tuning "
           "seeds, with its classification head's logits. It is judged under two protocols, "
           "named in every table: (P) the paper's, every rejector fitted on the train split's "
           "representations (which the encoder was fine-tuned on, so they are fitted: their "
           "phase-1 error is lower than on new rows) and judged on the test split; (H) held "
           "out, fitted only on rows the encoder never saw: validation → test, and `gcul "
           "compare`'s splits of the validation + test rows. Over the seeds a cell reads "
           "mean ± split SE [smallest, largest seed mean]; a fixed split has no split SE. "
           "GoEmotions (P) has seed 0 only (the other seeds' folders hold validation and test "
           "rows). " if any(m in FT_REPS for m in {r["representation"] for r in rows}) else "")
        + "Phase 1 is the package's logistic regression on each representation; "
        "'the fine-tuned head's MSP' thresholds the fine-tuned model's own softmax, the "
        "confidence a practitioner who fine-tuned the model would threshold.",
        "",
        "**The paper's numbers beside ours.** The paper's phase 1 is logistic regression on "
        "DistilBERT 768-d embeddings (its appendix: \"Base classifier: Logistic Regression, "
        "max_iter = 500\"), so its MSP tables threshold that classifier: phase-1 MSP here. Its "
        "GoEmotions is probably another release or labelling: its dataset profile counts 55,298 "
        "\"neutral\" rows where this split has 17,772 in all, and its phase 1 reaches 37.99% "
        "where every representation here gives " + _goemotions_range(rows) + "; set its GoEmotions rows beside ours with "
        "that in mind. Its main table is on a Kaggle set of 106,355 texts in 11 emotions that is "
        "not reachable here.",
        "",
        "Symbols: phase-1 acc = test accuracy of GCUL's phase-1 classifier; sel. acc = accuracy "
        "among the accepted test rows; rejection = share of test rows rejected; macro-F1 = mean "
        "over classes of 2TP/(2TP+FP+FN) (on the accepted rows for a selective model); λ*_PRE "
        f"valid = the pre-deployment critical cost with the valid predictor `{VALID}`, paper's "
        f"= with the paper's `{PAPER_METHOD}` (not a valid lower bound), both from the training "
        "part; λ*_CERT = the largest λ whose 95% lower confidence bound on U(λ) is positive, "
        "from the test part as calibration rows; λ*_EMP = (ε − ε_sel)/ρ on the test part; "
        "U(λ) = ε − ε_sel − λρ (the paper's utility).",
        "",
        "CPU seconds per part (process time, summed over the corpus × representation tasks):",
        "",
        "| part | CPU s |",
        "|---|--:|",
    ]
    lines += [f"| {part} | {seconds:.0f} |" for part, seconds in cpu.items()]
    lines.append("")

    lines += [
        "## Findings",
        "",
        "Title: does rejecting pay, and does the screening say so? GCUL without reduction per "
        "corpus, representation and protocol, beside the paper's appendix row at PCA d = 10 "
        "(tables \"GCUL results on Dair-AI emotion dataset\" and \"GCUL results on GoEmotions "
        "dataset\"; its phase 1 is logistic regression on DistilBERT embeddings). 'MSP vs GCUL' "
        "is `gcul compare`'s verdict at GCUL's coverage (for (d) (H), on its splits of "
        "validation + test; for (d) (P), one fixed split per seed, so the difference of each "
        "seed and no test).",
        "",
        "| corpus | representation | phase-1 acc (%) | GCUL sel. acc (%) | rejection (%) | λ*_PRE valid | λ*_EMP | phase-1 MSP vs GCUL | fine-tuned head's MSP vs GCUL | paper: acc → sel. acc, rej. (%), λ*_PRE, λ*_EMP |",
        "|---|---|--:|--:|--:|--:|--:|---|---|---|",
    ]  # fmt: skip
    screen = screening_rows(rows, verdicts, compare_rows)
    for r in screen:
        p = PAPER_GCUL[r["corpus"]][REDUCED]
        lines.append(
            f"| {CORPUS_TITLE[r['corpus']]} | {SHORT[r['representation']]} | {fmt(*r['base_acc'])} | "
            f"{fmt(*r['sel_acc'])} | {fmt(*r['rejection'])} | "
            f"{fmt(*r['lambda_pre_valid'], scale=1.0, digits=3)} | {fmt(*r['lambda_emp'], scale=1.0, digits=3)} | "
            f"{r['msp_verdict']} | {r['head_verdict']} | {p[0]:.2f} → {p[1]:.2f}, {p[2]:.2f}, {p[3]:.2f}, {p[4]:.2f} |"
        )  # fmt: skip
    lines.append("")

    lines += [
        "## (i) Benchmark table",
        "",
        "Title: phase-1 accuracy and macro-F1; GCUL, GCUL + PCA and GCUL + LDA selective "
        "accuracy, macro-F1 and rejection (the paper's \"Uncertainty Rate\"), and GCUL with the "
        "out-of-fold error pool (`GCUL(error_pool=\"out_of_fold\")`). In kind, the paper's table "
        "\"Overall performance comparison of all models.\" (section \"Benchmark performance on "
        "real-world datasets\"), which is on the Kaggle set: there, TF-IDF + logistic "
        "regression 84.02% / 0.8433, DistilBERT 89.37% / 0.8958, GCUL + PCA 95.85% / 0.9594 "
        "rejecting 10.24%, GCUL + LDA 94.98% / 0.9504 rejecting 8.49%. Beside each corpus, the "
        "paper's own row for it (appendix, PCA d = 10). PCA keeps 10 dimensions (or d), LDA "
        "min(10, C − 1).",
        "",
    ]
    for corpus in corpora:
        ratio = ratio_of(select(rows, corpus=corpus))
        lines += [f"### {CORPUS_TITLE[corpus]}", "", *table_benchmark(rows, ratio, corpus)]
        pools = []
        for method in reps_in(rows, corpus):
            a = select(rows, corpus=corpus, representation=method, variant="gcul")
            b = select(rows, corpus=corpus, representation=method, variant="gcul_oof_pool")
            if a and b:
                pools.append(f"{SHORT[method]} {np.mean([r['n_error_pool'] for r in a]):.0f} in-sample vs "
                             f"{np.mean([r['n_error_pool'] for r in b]):.0f} out-of-fold")  # fmt: skip
        lines += [f"Phase-1 error pool (training rows, mean over splits or seeds): {'; '.join(pools)}.", ""]

    lines += [
        "## (ii) GCUL against MSP + Chow, SelectiveNet and Mahalanobis",
        "",
        "Title: every rejector at GCUL's coverage, by `gcul compare`'s protocol "
        "(`simulations.compare.compare`, the same splits). In kind, the paper's section "
        "\"Comparison with selective classification baselines\". Coverage is at each "
        "rejector's own operating point (GCUL: its accept set; MSP: Chow's rule at λ; "
        "SelectiveNet: g ≥ 0.5 trained for GCUL's coverage), or GCUL's coverage for a rejector "
        "without one; 'sel. risk at GCUL's coverage' ranks the test rows by the rejector's score "
        "and keeps as many as GCUL does; 'minus GCUL's' < 0 means the baseline is better; U is "
        "the paper's utility at the rejector's own operating point (for the fine-tuned head's "
        "MSP, with ε its own error). The fine-tuned head's MSP is scored on the same test rows "
        "at GCUL's coverage and judged by the same corrected resampled t test. Under (P) and "
        "(H, val → test) each seed has one fixed split: the rows give GCUL, phase 1's MSP and "
        "the head's MSP there, without a t test. The paper reports no number at GCUL's "
        "coverage; its operating-point tables follow.",
        "",
    ]
    for corpus in corpora:
        ratio = ratio_of(select(rows, corpus=corpus))
        lines += [f"### {CORPUS_TITLE[corpus]}", "", *table_compare(compare_rows, verdicts, corpus, ratio)]
    lines += [
        "### Across operating points",
        "",
        "Title: selective accuracy / rejection rate (%) of each baseline along its knob, mean ± "
        "SE over the splits (stand-ins) or mean [smallest, largest] over the fine-tuning seeds, "
        "with GCUL's own point (no knob) as the last row. In kind, the "
        "paper's figure \"Operating-point sensitivity of selective classification baselines on "
        "the Kaggle dataset.\" and its appendix tables \"MSP / SelectiveNet / Mahalanobis "
        "results on Dair-AI emotion dataset\" and \"... on GoEmotions dataset\" (beside, the "
        "paper's numbers, whose MSP thresholds logistic regression on DistilBERT embeddings). "
        "MSP accepts iff phase 1's largest probability ≥ 1 − λ (the fine-tuned head's MSP: iff "
        "the head's largest probability ≥ 1 − λ); "
        "SelectiveNet is trained for target coverage c and accepts iff g ≥ 0.5; Mahalanobis keeps "
        "the top q of the test rows by score. Figure: `operating_points.png`.",
        "",
    ]
    for corpus in corpora:
        ratio = ratio_of(select(rows, corpus=corpus))
        for m in ("msp", "selectivenet", "mahalanobis"):
            lines += [f"**{CORPUS_TITLE[corpus]}: {KNOB_TITLE[m]}**", "",
                      *table_operating(points, corpus, ratio, m)]  # fmt: skip

    lines += [
        "## (iii) PCA-dimension sweep: λ*_PRE against λ*_EMP",
        "",
        "Title: `GCUL(reduce=\"pca\", n_components=d)` for the paper's dimensions up to the "
        "representation's own d; λ*_PRE on the training part in the projected space (the space "
        "phase 2 clusters in), with the valid predictor and with the paper's; λ*_CERT and "
        "λ*_EMP on the test part. In kind, the paper's figures \"Sensitivity of GCUL to "
        "representation dimensionality on the Kaggle dataset.\" and \"Theoretical and empirical "
        "critical rejection costs across representation dimensions.\", and its appendix tables "
        "\"GCUL results on ... dataset\" (beside, at the same d). The paper's sweep is on "
        "fine-tuned embeddings: it runs here on the fine-tuned encoder and on (a), the cheapest "
        "stand-in" + (", and on the other stand-ins measured (`--sweep-standins`)"
                      if any(r["representation"] in ("lsa", "wordllama") for r in sweep) else
                      " (`--sweep-standins` adds (c), and (b) when it is measured)")
        + ". Figure: `pca_sweep.png`.",
        "",
    ]
    for corpus in corpora:
        ratio = ratio_of(select(rows, corpus=corpus))
        for method in ALL_REPS:
            if select(sweep, corpus=corpus, representation=method):
                lines += [f"**{CORPUS_TITLE[corpus]}, {SHORT[method]}**", "",
                          *table_sweep(sweep, corpus, method, ratio)]  # fmt: skip

    lines += [
        "## (iv) Failure screening",
        "",
        "Title: does λ*_PRE (or the certified λ*) flag the corpus where rejection does not pay? "
        "In kind, the paper's paragraph \"Cross-dataset robustness and failure case screening\" "
        "(section \"Comparison with selective classification baselines\"), which reports "
        "λ*_PRE = 0 on GoEmotions, where no selective method paid. GCUL without reduction. "
        f"'Rejection pays' is λ*_EMP > {LAM} on the test part (U({LAM}) > 0); 'flagged' is "
        f"λ*_PRE < {LAM}; 'certified' is λ*_CERT > {LAM}. A screen is right when it flags "
        "exactly the rows where rejection does not pay. 'Rejection per split or seed' lists "
        "GCUL's rejection in every split (stand-ins) or fine-tuning seed, which the mean ± SE "
        "alone would hide. Where it jumps (GoEmotions (a): 3.4–3.6% in two splits, 1.0% in three), "
        "the cause is GCUL's rule of relabelling exactly one cluster, the least pure: several "
        "clusters are nearly as impure and of very different sizes, and which one is least pure "
        "changes with the split (there, as `benchmarks/text_unstable.py` prints, a cluster of about 1,500 training rows at purity 0.32–0.33 "
        "or one of about 450 at 0.30–0.31, the runner-up as close as 0.002). "
        "`benchmarks/text_unstable.py` prints each split's chosen cluster, its size and purity, "
        "and the next purities.",
        "",
        *table_screening(screen),
        "## (v) λ*_PRE like with like: the space and the reading of μ_c",
        "",
        "Title: the paper's screening value set beside ours in the same space. λ*_PRE of the "
        "GCUL without reduction (unreduced space) and of GCUL + PCA at the paper's d = 10 (the "
        "space its appendix rows are in), each under three readings of a class core μ_c: the "
        "mean of class c's correctly classified training rows ('correct', the package's "
        "default), of all its rows ('class'), and of the rows predicted as c ('predicted'). "
        "The paper's definitions support 'correct': its capture- and contamination-rate theorem "
        "models class c's *clean* samples as N(μ_c, Σ_c) and counts the contamination over the "
        "correctly classified rows; 'predicted' is the set whose median its appendix takes as "
        "K-Means' initial centre of class c (an initialisation, not the theorem's μ_c), and "
        "'class' mixes the error pool into the core it is measured against. In kind, the "
        "paper's paragraph \"Cross-dataset robustness and failure case screening\".",
        "",
    ]
    for corpus in corpora:
        lines += [f"**{CORPUS_TITLE[corpus]}**", "", *table_cores(rows, corpus)]
    return "\n".join(lines) + "\n"


def redraw(out: Path) -> list[Path]:
    """Write ``text_emotion.md``, ``operating_points.png`` and ``pca_sweep.png`` again from the
    CSV files and ``run.json`` in ``out`` alone (no corpus, no representation, no fit: seconds,
    not the 25-minute run)."""
    tables = tables_from_csv(out)
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    text = render(out, run["notes"], tables, run["cpu"], run["wall"], run["splits"], run["command"],
                  run.get("load"))  # fmt: skip
    atomic_write_text(out / "text_emotion.md", text)
    corpora = [c for c in CORPORA if select(tables["rows"], corpus=c)]
    written = save_figure(plot_operating(tables["points"], corpora), out / "operating_points.png",
                          dpi=110)  # fmt: skip
    written += save_figure(plot_sweep(tables["sweep"], corpora), out / "pca_sweep.png", dpi=110)
    plt.close("all")
    return [out / "text_emotion.md", *written]


def _run_task(task: tuple) -> dict:
    kind, args = task[0], task[1:]
    runner = {"standin_split": run_standin_split, "standin_compare": run_standin_compare,
              "fixed": run_finetuned_fixed, "fixed_sweep": run_finetuned_sweep,
              "splits": run_finetuned_splits}[kind]  # fmt: skip
    return runner(*args)


def _task_name(task: tuple) -> str:
    kind = task[0]
    if kind == "standin_split":
        return f"{task[1]}/{task[2]} split {task[6]}"
    if kind == "standin_compare":
        return f"{task[1]}/{task[2]} compare"
    if kind == "splits":
        return f"{task[1]}/{FT_SPLITS} seed {task[2]}"
    return f"{task[1]}/{task[2]} seed {task[3]}" + (" PCA sweep" if kind == "fixed_sweep" else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", nargs="?", help="folder holding goemotions/ and carer/")
    parser.add_argument("--out", required=True, help="folder for the Markdown, CSV and figures")
    parser.add_argument("--redraw", action="store_true",
                        help="only write the report and figures again from the CSV files and run.json in --out")
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--cache", default=None, help="folder caching the representations")
    parser.add_argument("--jobs", type=int, default=1, help="tasks at once (processes)")
    parser.add_argument("--max-rows", type=int, default=None,
                        help="subsample a larger pooled corpus to this many rows (stratified)")
    parser.add_argument("--corpus", choices=CORPORA, action="append", help="default: both")
    parser.add_argument("--representation", choices=(*METHODS, "finetuned"), action="append",
                        help="default: the stand-ins (a) oof_logistic and (c) wordllama, and "
                             "'finetuned' when --finetuned is given; (b) lsa only when named")
    parser.add_argument("--sweep-standins", action="store_true",
                        help="run the PCA sweep on the stand-ins (b) and (c) as well (it runs on "
                             "(a) and the fine-tuned encoder; about 10 more CPU minutes)")
    parser.add_argument("--finetuned", default=None, metavar="DIR",
                        help="folder of a fine-tuned encoder's representations, DIR/<corpus>/seed<k>/ "
                             "(embeddings.npy, labels.npy, split.npy, logits.npy)")
    parser.add_argument("--seed", type=int, choices=FT_SEEDS, action="append", dest="seeds",
                        help="fine-tuning seeds to read (default: every one found)")
    parser.add_argument("--protocol", choices=("P", "H"), action="append", dest="protocols",
                        help="the fine-tuned protocols to run: P (the paper's, train -> test), H "
                             "(held out: validation -> test and compare's splits of validation + "
                             "test); default: both")
    args = parser.parse_args(argv)
    if args.redraw:
        try:
            for path in redraw(Path(args.out)):
                print(f"wrote {path}", file=sys.stderr)
        except (OSError, KeyError, ValueError) as exc:
            print(f"error: --redraw: {str(exc).splitlines()[0]}", file=sys.stderr)
            return 2
        return 0
    if args.corpora is None:
        parser.error("the corpora folder is required (unless --redraw)")
    for option, value, least in (("--splits", args.splits, 2), ("--jobs", args.jobs, 1)):
        if value < least:
            why = " (a standard error needs two)" if option == "--splits" else ""
            print(f"error: {option} must be at least {least}{why}; got {value}", file=sys.stderr)
            return 2
    root, out = Path(args.corpora), Path(args.out)
    corpora = args.corpus or list(CORPORA)
    methods = args.representation or [*DEFAULT_METHODS, *(["finetuned"] if args.finetuned else [])]
    if "finetuned" in methods and not args.finetuned:
        print("error: --representation finetuned needs --finetuned DIR", file=sys.stderr)
        return 2
    seeds = sorted(set(args.seeds or FT_SEEDS))
    try:
        # --out first, with a real write: a bad folder is refused before minutes of work
        check_folder(out, "--out", writable=True)
        out.mkdir(parents=True, exist_ok=True)
        check_writable(out)
        if args.cache is not None:
            check_folder(Path(args.cache), "--cache", writable=True)
        data = {c: load_corpus(root, c) for c in corpora}
        finetuned = {}
        if "finetuned" in methods:
            finetuned = {c: finetuned_inputs(Path(args.finetuned), c, root, seeds) for c in corpora}
    except (ValueError, OSError) as exc:
        print(f"error: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    if args.max_rows is not None:
        for corpus in corpora:
            texts, y, names, note = data[corpus]
            if y.size > args.max_rows:
                note += (f"; subsampled to {args.max_rows:,} of these rows (stratified, seed "
                         f"{SEED}) to fit the time budget, representations computed on all rows")
                data[corpus] = (texts, y, names, note)
    started = time.perf_counter()
    load_start = os.getloadavg()[0] if hasattr(os, "getloadavg") else math.nan
    cpu: dict[str, float] = {}
    tasks: list[tuple] = []
    t = time.process_time()
    for corpus in corpora:
        texts, y, _, _ = data[corpus]
        for method in (m for m in methods if m != "finetuned"):
            try:
                Z = cached_representation(method, texts, y, corpus=corpus, split="pooled", seed=SEED,
                                          cache_dir=args.cache)  # fmt: skip
            except (ValueError, OSError) as exc:
                print(f"error: {corpus}/{method}: {str(exc).splitlines()[0]}", file=sys.stderr)
                return 2
            if args.max_rows is not None and y.size > args.max_rows:
                keep = subsample(y, args.max_rows)
                Z, y_kept = Z[keep], y[keep]
            else:
                y_kept = y
            for i in range(args.splits):
                tasks.append(("standin_split", corpus, method, Z, y_kept, args.splits, i,
                              method in SWEPT or args.sweep_standins))  # fmt: skip
            tasks.append(("standin_compare", corpus, method, Z, y_kept, args.splits))
            print(f"{corpus}/{method}: {Z.shape}", file=sys.stderr, flush=True)
        protocols = args.protocols or ["P", "H"]
        for seed, ft in finetuned.get(corpus, []):
            probs = ft.head_probabilities()
            for rep, (fit_part, test_part) in FT_FIXED.items():
                if ("P" if rep == "finetuned_paper" else "H") not in protocols:
                    continue
                train, test = ft.rows(fit_part), ft.rows(test_part)
                if train.size and test.size:
                    for kind in ("fixed", "fixed_sweep"):
                        tasks.append((kind, corpus, rep, seed, ft.embeddings, ft.labels, probs, train, test))
            if "H" in protocols:
                held = ft.rows("validation", "test")
                tasks.append(("splits", corpus, seed, ft.embeddings[held], ft.labels[held], probs[held],
                              args.splits))  # fmt: skip
            print(f"{corpus}/finetuned seed {seed}: {ft.embeddings.shape}, {ft.counts()}", file=sys.stderr, flush=True)
    cpu["representations (cached after the first run)"] = time.process_time() - t
    # the largest tasks first, so that two workers finish together; results come back in task order
    order = sorted(range(len(tasks)), key=lambda i: -_cost(tasks[i]))
    if args.jobs > 1:
        from joblib import Parallel, delayed

        ran = Parallel(n_jobs=args.jobs)(delayed(_run_task)(tasks[i]) for i in order)
    else:
        ran = [_run_task(tasks[i]) for i in order]
    results: list[dict] = [{}] * len(tasks)
    for i, res in zip(order, ran, strict=True):
        results[i] = res
    tables: dict[str, Any] = {"rows": [], "compare": [], "points": [], "sweep": [], "verdicts": {}}
    at_reduced = None
    for task, res in zip(tasks, results, strict=True):
        print(f"{_task_name(task)}: " + ", ".join(f"{k} {v:.0f} s" for k, v in res["cpu"].items()),
              file=sys.stderr, flush=True)  # fmt: skip
        tables["rows"] += res["rows"]
        tables["compare"] += res["compare"]
        tables["points"] += res["points"]
        sweep = res["sweep"]
        if task[0] == "fixed":
            at_reduced = res["at_reduced"]
        elif task[0] == "fixed_sweep":
            # the row at GCUL + PCA's d, measured by the "fixed" task just before, in its place
            d, reduced = res["n_features"], min(REDUCED, res["n_features"])
            key = {"corpus": task[1], "representation": task[2], "seed": task[3], "split": 0}
            sweep = list(sweep)
            sweep.insert(dims_for(d).index(reduced), key | {"d": reduced} | at_reduced)
        tables["sweep"] += sweep
        if res["verdicts"]:
            rep = task[2] if task[0] == "standin_compare" else FT_SPLITS
            # one verdict text per (corpus, representation); fine-tuned seeds are kept apart
            key = (task[1], rep) if task[0] == "standin_compare" else (task[1], rep, task[2])
            tables["verdicts"][key] = res["verdicts"]
        for part, seconds in res["cpu"].items():
            cpu[part] = cpu.get(part, 0.0) + seconds
    t = time.process_time()
    for name, key in (("rows", "rows"), ("compare", "compare"), ("operating_points", "points"),
                      ("pca_sweep", "sweep")):  # fmt: skip
        atomic_write_text(out / f"{name}.csv", to_csv(tables[key]))
    verdict_rows = [
        {"corpus": k[0], "representation": k[1], "seed": k[2] if len(k) > 2 else SEED,
         "rejector": r, "verdict": v}
        for k, vs in tables["verdicts"].items() for r, v in vs.items()
    ]  # fmt: skip
    atomic_write_text(out / "verdicts.csv", to_csv(verdict_rows))
    cpu["CSV files"] = time.process_time() - t
    run = {"notes": {c: data[c][3] for c in corpora}, "cpu": cpu,
           "wall": time.perf_counter() - started, "splits": args.splits,
           "command": command_line(args, out),
           "load": [load_start, os.getloadavg()[0] if hasattr(os, "getloadavg") else math.nan]}  # fmt: skip
    atomic_write_text(out / "run.json", json.dumps(run, indent=1, ensure_ascii=False) + "\n")
    redraw(out)  # the report and figures are a function of the CSV files (and run.json) alone
    print(f"wrote {out / 'text_emotion.md'} ({run['wall']:.0f} s)", file=sys.stderr)
    return 0


def _cost(task: tuple) -> float:
    """A rough CPU cost of a task, to start the largest first (rows × columns × classes, times
    the number of fits it makes)."""
    kind = task[0]
    if kind in ("fixed", "fixed_sweep"):
        Z, y = task[4][task[7]], task[5][task[7]]
        fits = 6.0 if kind == "fixed" else 8.0  # 4 variants + the baselines; 11 PCA d
    elif kind == "standin_split":
        Z, y = task[3], task[4]
        fits = (6.0 + (8.0 if task[7] else 0.0)) * (1.0 - TEST_SIZE)
    else:  # a `gcul compare` run over every split
        Z, y = task[3], task[4]
        fits = 2.5 * task[-1] * (1.0 - TEST_SIZE)  # the last item is the number of splits
    return float(Z.shape[0]) * Z.shape[1] * (int(y.max()) + 1) * fits


def command_line(args: argparse.Namespace, out: Path) -> str:
    """The command as run, every option that chose what was measured included (a partial run
    reads as one)."""
    command = "PYTHONPATH=$PWD python benchmarks/text_emotion.py CORPORA --out " + str(out)
    if args.finetuned:
        command += " --finetuned FINETUNED"
    for corpus in args.corpus or []:
        command += f" --corpus {corpus}"
    for method in args.representation or []:
        command += f" --representation {method}"
    for seed in args.seeds or []:
        command += f" --seed {seed}"
    for protocol in args.protocols or []:
        command += f" --protocol {protocol}"
    if args.splits != 5:
        command += f" --splits {args.splits}"
    if args.max_rows is not None:
        command += f" --max-rows {args.max_rows}"
    if args.sweep_standins:
        command += " --sweep-standins"
    if args.cache is not None:
        command += " --cache CACHE"
    if args.jobs != 1:
        command += f" --jobs {args.jobs}"
    return command


def tables_from_csv(out: Path) -> dict:
    """The per-split rows read back from ``out`` (what a test recomputes the tables from)."""
    verdicts: dict = {}
    for r in read_csv(out / "verdicts.csv"):
        verdicts.setdefault((r["corpus"], r["representation"]), {})[r["rejector"]] = r["verdict"]
    return {
        "rows": read_csv(out / "rows.csv"),
        "compare": read_csv(out / "compare.csv"),
        "points": read_csv(out / "operating_points.csv"),
        "sweep": read_csv(out / "pca_sweep.csv"),
        "verdicts": verdicts,
    }


if __name__ == "__main__":
    sys.exit(main())
