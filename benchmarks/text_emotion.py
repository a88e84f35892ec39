"""The GCUL paper's real-data tables, in kind, on GoEmotions and dair-ai/emotion (issue 22).

The paper's evidence is on text emotion corpora (section "Empirical evaluation"): a benchmark
table on a Kaggle set, the comparison with MSP + Chow, SelectiveNet and Mahalanobis rejection
across operating points, a PCA-dimension sweep of λ*_PRE against λ*_EMP, and the claim that
λ*_PRE screens out GoEmotions, the corpus where no selective method pays. This script runs all
four on the two corpora that are public (the Kaggle set is not reachable), with three
representations of :mod:`simulations.text.representations` standing in for the paper's
fine-tuned DistilBERT (which no model hub here can serve):

(a) ``oof_logistic``: out-of-fold TF-IDF + logistic-regression scores (a label-shaped space, a
    stand-in for a fine-tuned encoder's penultimate layer); (b) ``lsa``; (c) ``wordllama``.

Each corpus is pooled (train + dev + test; GoEmotions' single-label rows), then
``--splits`` stratified 80/20 train/test splits (:func:`simulations.compare.stratified_splits`,
seed 0; the splits of :func:`simulations.compare.compare` with the same arguments, so every
table below is on the same splits). Means over splits carry Nadeau & Bengio's corrected SE
(:func:`simulations.compare.estimate`). Per-split rows go to CSV files beside the Markdown, and
the tables are computed from those rows only (``summarise_*``), so a test recomputes them.

Why a script in ``benchmarks/`` and not a ``gcul text`` command: it reproduces the paper's
tables from corpora a user downloads (the package ships neither), with an optional extra
(``gcul[text]``) and a 10–20 minute budget, like the other reproductions in this folder; a user
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
import math
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from operating_points import Split, operating_points  # noqa: E402  (benchmarks/ is on sys.path)

import gcul_theory  # noqa: E402
import simulations  # noqa: E402
from simulations.compare import compare, estimate, stratified_splits  # noqa: E402
from simulations.figures import save_figure  # noqa: E402
from simulations.gcul import GCUL  # noqa: E402
from simulations.models import single_threaded_blas  # noqa: E402
from simulations.outputs import atomic_write_text  # noqa: E402
from simulations.registry import PAPER_METHOD  # noqa: E402
from simulations.text import load_carer, load_goemotions  # noqa: E402
from simulations.text.representations import REPRESENTATIONS, cached_representation  # noqa: E402

LAM = 0.15  # the paper's λ_target
DELTA = 0.05
TEST_SIZE = 0.2
SEED = 0
VALID = gcul_theory.DEFAULT_METHOD  # "hunter_worsley", the tightest valid predictor
MIN_CLASS_ROWS = 10  # a class with fewer pooled rows is left out (none on the real corpora)
PCA_DIMS = (2, 3, 4, 5, 8, 10, 20, 40, 80, 160, 320, 768)  # the paper's, capped at d
REDUCED = 10  # the paper's 768 -> 10 (its GCUL hyper-parameter table)
CORPORA = ("carer", "goemotions")
CORPUS_TITLE = {"carer": "dair-ai/emotion (CARER)", "goemotions": "GoEmotions"}
METHODS = tuple(REPRESENTATIONS)
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
COLORS = {"oof_logistic": "#0072B2", "lsa": "#E69F00", "wordllama": "#009E73", "paper": "#000000"}
SHORT = {"oof_logistic": "(a) out-of-fold TF-IDF+LR", "lsa": "(b) LSA", "wordllama": "(c) WordLlama"}


# ------------------------------------------------------------------------------------ data
def load_corpus(root: Path, name: str) -> tuple[list[str], np.ndarray, tuple[str, ...], str]:
    """Pool train, dev and test of a corpus; drop classes under MIN_CLASS_ROWS rows."""
    loader: Callable[..., Any] = load_carer if name == "carer" else load_goemotions
    parts = [loader(root / name, split) for split in ("train", "dev", "test")]
    texts = [t for p in parts for t in p.texts]
    y = np.concatenate([p.labels for p in parts])
    names = parts[0].label_names
    counts = np.bincount(y, minlength=len(names))
    keep_classes = np.flatnonzero(counts >= MIN_CLASS_ROWS)
    note = f"{len(texts):,} rows (train + dev + test pooled)"
    dropped = sum(p.n_dropped for p in parts)
    if dropped:
        note += f"; {dropped:,} multi-label rows left out"
    if keep_classes.size < counts.size:
        gone = [names[c] for c in np.flatnonzero(counts < MIN_CLASS_ROWS)]
        keep = np.isin(y, keep_classes)
        texts = [t for t, k in zip(texts, keep, strict=True) if k]
        y = np.searchsorted(keep_classes, y[keep])
        names = tuple(names[c] for c in keep_classes)
        note += f"; classes with < {MIN_CLASS_ROWS} rows left out: {', '.join(gone)}"
    return texts, y.astype(np.int64), names, note


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


def measure_variant(variant: str, Z, y, train, test) -> dict:
    """Fit one GCUL variant on ``train``; its phase-1 and selective numbers on ``test``, its
    λ*_PRE (valid and paper's) on the training part, λ*_CERT and λ*_EMP on the test part."""
    kwargs = dict(VARIANTS[variant])
    n_classes = int(y.max()) + 1
    if kwargs.get("reduce") == "pca":
        kwargs["n_components"] = min(REDUCED, Z.shape[1])
    elif kwargs.get("reduce") == "lda":
        kwargs["n_components"] = min(REDUCED, n_classes - 1, Z.shape[1])
    model = GCUL(**kwargs).fit(Z[train], y[train])
    return _measure(model, Z, y, train, test) | {"variant": variant}


def _measure(model: GCUL, Z, y, train, test) -> dict:
    X_test, y_test = Z[test], y[test]
    outcome = model.indicators(X_test, y_test)
    base_pred = model.phase1_.predict(X_test)
    accepted = ~outcome.rejected
    selective_pred = model.predict(X_test)
    n_acc = int(accepted.sum())
    space = Z[train] if model.reducer_ is None else model.reducer_.transform(Z[train])
    if model.can_reject_:
        report = gcul_theory.feasibility_report(
            space, y[train], model.train_pred_, lam=LAM, n_classes=int(y.max()) + 1
        )
        pre_valid = float(report.lambda_pre[VALID])
        pre_paper = float(report.lambda_pre[PAPER_METHOD])
    else:
        pre_valid = pre_paper = 0.0
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
    }


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


def run_dataset(corpus: str, method: str, Z: np.ndarray, y: np.ndarray, splits: int) -> dict:
    """Every measurement of one (corpus, representation): per-split rows and CPU seconds."""
    cpu: dict[str, float] = {}
    split_list = stratified_splits(y, splits, TEST_SIZE, SEED)
    key = {"corpus": corpus, "representation": method}
    rows, sweep, points = [], [], []
    with single_threaded_blas():
        t = time.process_time()
        for i, (train, test) in enumerate(split_list):
            for variant in VARIANTS:
                rows.append(key | {"split": i} | measure_variant(variant, Z, y, train, test))
        cpu["(i) benchmark + (iv) screening"] = time.process_time() - t

        t = time.process_time()
        result = compare(Z, y, lam=LAM, splits=splits, seed=SEED, test_size=TEST_SIZE)
        compare_rows = []
        for r in result.rejectors:
            for i in range(splits):
                compare_rows.append(
                    key
                    | {"split": i, "rejector": r.name, "label": r.label,
                       "operating_point": r.operating_point}
                    | {k: getattr(r, k).values[i]
                       for k in ("coverage", "sel_risk", "difference", "aurc", "u", "u_joint")}
                )  # fmt: skip
        verdicts = {r.name: r.verdict for r in result.rejectors}
        cpu["(ii) gcul compare"] = time.process_time() - t

        t = time.process_time()
        for i, (train, test) in enumerate(split_list):
            split = Split(
                f"{corpus}/{method}", Z[train], y[train], Z[test], y[test],
                np.random.SeedSequence(SEED, spawn_key=(1, i)),
            )  # fmt: skip
            res = operating_points(split)
            g = res["gcul"]
            points.append(key | {"split": i, "method": "gcul", "param": math.nan,
                                 "base_acc": g["base_acc"], "sel_acc": g["sel_acc"],
                                 "rejection": g["rej"]})  # fmt: skip
            for m in ("msp", "selectivenet", "mahalanobis"):
                for r in res[m]:
                    points.append(key | {"split": i, "method": m, "param": r["param"],
                                         "base_acc": r["base_acc"], "sel_acc": r["sel_acc"],
                                         "rejection": r["rej"]})  # fmt: skip
        cpu["(ii) operating points"] = time.process_time() - t

        t = time.process_time()
        for i, (train, test) in enumerate(split_list):
            for k in dims_for(Z.shape[1]):
                model = GCUL(reduce="pca", n_components=k).fit(Z[train], y[train])
                m = _measure(model, Z, y, train, test)
                sweep.append(key | {"split": i, "d": k} | m)
        cpu["(iii) PCA sweep"] = time.process_time() - t
    return {
        "rows": rows,
        "compare": compare_rows,
        "verdicts": verdicts,
        "points": points,
        "sweep": sweep,
        "cpu": cpu,
        "n_features": int(Z.shape[1]),
    }


# ------------------------------------------------------------------------------ summaries
def ratio_of(rows: list[dict]) -> float:
    return rows[0]["n_test"] / rows[0]["n_train"]


def mean_se(rows: list[dict], column: str, ratio: float) -> tuple[float, float]:
    """Mean over splits and Nadeau & Bengio's corrected SE (NaN values dropped)."""
    values = [r[column] for r in rows if not math.isnan(r[column])]
    if not values:
        return math.nan, math.nan
    e = estimate(values, ratio)
    return e.mean, e.se


def select(rows: list[dict], **where: Any) -> list[dict]:
    return [r for r in rows if all(r[k] == v for k, v in where.items())]


def fmt(mean: float, se: float, scale: float = 100.0, digits: int = 2) -> str:
    if math.isnan(mean):
        return "—"
    if math.isnan(se):
        return f"{scale * mean:.{digits}f}"
    return f"{scale * mean:.{digits}f} ± {scale * se:.{digits}f}"


def _paper(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def table_benchmark(rows: list[dict], ratio: float, corpus: str) -> list[str]:
    paper10 = PAPER_GCUL[corpus][REDUCED]
    lines = [
        f"| representation | model | accuracy (%) | macro-F1 (%) | rejection (%) | "
        f"{PAPER}, {CORPUS_TITLE[corpus]}, PCA d = 10: accuracy / rejection (%) |",
        "|---|---|--:|--:|--:|---|",
    ]
    for method in METHODS:
        block = select(rows, corpus=corpus, representation=method, variant="gcul")
        if not block:
            continue
        lines.append(
            f"| {SHORT[method]} | phase 1 (logistic regression) | "
            f"{fmt(*mean_se(block, 'base_acc', ratio))} | {fmt(*mean_se(block, 'base_f1', ratio))} "
            f"| — | {paper10[0]:.2f} / — (fine-tuned DistilBERT) |"
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


def table_compare(compare_rows: list[dict], verdicts: dict, corpus: str, ratio: float) -> list[str]:
    lines = [
        "| representation | rejector | operating point | coverage (%) | sel. risk at GCUL's "
        "coverage (%) | minus GCUL's (points) | U at its operating point | verdict (`gcul compare`) |",
        "|---|---|---|--:|--:|--:|--:|---|",
    ]
    for method in METHODS:
        for name in ("gcul", "msp", "selectivenet", "mahalanobis", "entropy", "knn", "deep_gamblers"):
            part = select(compare_rows, corpus=corpus, representation=method, rejector=name)
            if not part:
                continue
            verdict = verdicts.get((corpus, method), {}).get(name, "")
            lines.append(
                f"| {SHORT[method]} | {part[0]['label']} | {part[0]['operating_point']} | "
                f"{fmt(*mean_se(part, 'coverage', ratio))} | {fmt(*mean_se(part, 'sel_risk', ratio))} | "
                + ("—" if name == "gcul" else fmt(*mean_se(part, "difference", ratio)))
                + f" | {fmt(*mean_se(part, 'u', ratio), scale=1.0, digits=4)} | {verdict} |"
            )
    return [*lines, ""]


def table_operating(points: list[dict], corpus: str, ratio: float, method_name: str) -> list[str]:
    lines = [
        f"| {KNOB[method_name]} | "
        + " | ".join(f"{SHORT[m]}: sel. acc / rej. (%)" for m in METHODS)
        + f" | {PAPER} (DistilBERT): sel. acc / rej. (%) |",
        "|--:|" + "--:|" * (len(METHODS) + 1),
    ]
    paper = {round(p[0], 2): p for p in PAPER_OPERATING[corpus][method_name]}
    params = sorted({r["param"] for r in select(points, corpus=corpus, method=method_name)},
                    reverse=method_name == "mahalanobis")  # fmt: skip
    for param in params + [math.nan]:
        cells = []
        for m in METHODS:
            if math.isnan(param):
                part = select(points, corpus=corpus, representation=m, method="gcul")
            else:
                part = select(points, corpus=corpus, representation=m, method=method_name, param=param)
            if not part:
                cells.append("—")
                continue
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
        p = PAPER_GCUL[corpus].get(d)
        ref = "—" if p is None else f"{p[1]:.2f} / {p[2]:.2f}, {p[3]:.2f}, {p[4]:.2f}"
        lines.append(
            f"| {d} | {fmt(*mean_se(part, 'sel_acc', ratio))} | {fmt(*mean_se(part, 'rejection', ratio))} | "
            + " | ".join(fmt(*mean_se(part, c, ratio), scale=1.0, digits=3)
                         for c in ("lambda_pre_valid", "lambda_pre_paper", "lambda_cert", "lambda_emp"))
            + f" | {ref} |"
        )  # fmt: skip
    return [*lines, ""]


def screening_rows(rows: list[dict], verdicts: dict) -> list[dict]:
    """One row per (corpus, representation): GCUL (no reduction) and what screens it."""
    out = []
    for corpus in CORPORA:
        for method in METHODS:
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
            row["msp_verdict"] = verdicts.get((corpus, method), {}).get("msp", "")
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

    def yes(b: bool) -> str:
        return "yes" if b else "no"

    for r in screen:
        p = paper[r["corpus"]]
        lines.append(
            f"| {CORPUS_TITLE[r['corpus']]} | {SHORT[r['representation']]} | "
            f"{fmt(*r['base_acc'])} | {fmt(*r['sel_acc'])} | {fmt(*r['rejection'])} | "
            + " | ".join(fmt(*r[c], scale=1.0, digits=3)
                         for c in ("lambda_pre_valid", "lambda_pre_paper", "lambda_cert", "lambda_emp"))
            + f" | {fmt(*r['utility'], scale=1.0, digits=4)} | {yes(r['pays'])} | "
            f"{yes(r['flag_valid'])} / {yes(r['flag_paper'])} | {yes(r['certified'])} | "
            f"{p[0]:.2f}, {p[1]:.2f}, {p[3]:.2f}, {p[4]:.2f} |"
        )  # fmt: skip
    return [*lines, ""]


# ---------------------------------------------------------------------------------- figures
def plot_operating(points: list[dict], corpora: list[str]) -> plt.Figure:
    """Selective accuracy against rejection rate: each baseline along its knob, GCUL's point."""
    columns = [*(m for m in METHODS if select(points, representation=m)), "paper"]
    fig, axes = plt.subplots(len(corpora), len(columns), figsize=(3.4 * len(columns), 3.1 * len(corpora) + 1.2),
                             squeeze=False)  # fmt: skip
    markers = {"msp": "o-", "selectivenet": "s-", "mahalanobis": "^-"}
    shades = {"msp": 1.0, "selectivenet": 0.65, "mahalanobis": 0.35}
    for i, corpus in enumerate(corpora):
        for j, column in enumerate(columns):
            ax = axes[i, j]
            color = COLORS[column]
            for m in markers:
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
            title = f"{PAPER} (DistilBERT)" if column == "paper" else SHORT[column]
            ax.set_title(f"{CORPUS_TITLE[corpus]}\n{title}", fontsize=8.5)
            ax.set_xlabel("rejection rate (%)", fontsize=8)
            if j == 0:
                ax.set_ylabel("selective accuracy (%)", fontsize=8)
            ax.tick_params(labelsize=7)
    handles = [
        plt.Line2D([], [], color="grey", marker="o", ms=3, label="MSP + Chow, λ = 0.1 … 1.0"),
        plt.Line2D([], [], color="grey", marker="s", ms=3, alpha=0.65, label="SelectiveNet, c = 0.60 … 0.96"),
        plt.Line2D([], [], color="grey", marker="^", ms=3, alpha=0.35, label="Mahalanobis, q = 100% … 64%"),
        plt.Line2D([], [], color="#D55E00", marker="*", ls="", ms=11, mec="black", label="GCUL (no knob)"),
        plt.Line2D([], [], color="grey", ls=":", label="phase-1 accuracy"),
    ]  # fmt: skip
    fig.legend(handles=handles, loc="upper center", ncol=3, fontsize=8, frameon=False,
               bbox_to_anchor=(0.5, 1 - 0.3 / fig.get_figheight()))
    fig.suptitle("Operating points: selective accuracy against rejection, mean over splits",
                 y=1 - 0.05 / fig.get_figheight(), fontsize=10)  # fmt: skip
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.85 / fig.get_figheight()))
    return fig


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
    columns = [*(m for m in METHODS if select(sweep, representation=m)), "paper"]
    fig, axes = plt.subplots(len(corpora), len(columns), figsize=(3.4 * len(columns), 3.0 * len(corpora) + 1.2),
                             squeeze=False, sharey=True)  # fmt: skip
    styles = {
        "lambda_pre_valid": ("o-", "#0072B2", f"λ*_PRE valid ({VALID})"),
        "lambda_pre_paper": ("o--", "#56B4E9", f"λ*_PRE paper's ({PAPER_METHOD})"),
        "lambda_cert": ("d-", "#009E73", f"λ*_CERT (δ = {DELTA})"),
        "lambda_emp": ("s-", "#D55E00", "λ*_EMP (test)"),
    }
    for i, corpus in enumerate(corpora):
        for j, column in enumerate(columns):
            ax = axes[i, j]
            if column == "paper":
                ds = sorted(PAPER_GCUL[corpus])
                ax.plot(ds, [PAPER_GCUL[corpus][d][3] for d in ds], "o--", color="#56B4E9", ms=4)
                ax.plot(ds, [PAPER_GCUL[corpus][d][4] for d in ds], "s-", color="#D55E00", ms=4)
                title = f"{PAPER} (DistilBERT 768 d)"
            else:
                ds = sorted({r["d"] for r in select(sweep, corpus=corpus, representation=column)})
                for c, (style, color, _) in styles.items():
                    means = [nan_mean([r[c] for r in select(sweep, corpus=corpus, representation=column, d=d)]) for d in ds]
                    ax.plot(ds, means, style, color=color, ms=4, lw=1.2)
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
    fig.legend(handles=handles, loc="upper center", ncol=3, fontsize=8, frameon=False,
               bbox_to_anchor=(0.5, 1 - 0.3 / fig.get_figheight()))
    fig.suptitle("λ*_PRE against λ*_EMP across PCA dimensions, mean over splits "
                 f"(y clipped to [{SWEEP_YLIM[0]}, {SWEEP_YLIM[1]}]: the tables hold every value)",
                 y=1 - 0.05 / fig.get_figheight(), fontsize=10)  # fmt: skip
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.85 / fig.get_figheight()))
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
def render(out: Path, data_notes: dict, tables: dict, cpu: dict, wall: float, splits: int,
           command: str) -> str:  # fmt: skip
    rows, compare_rows, points, sweep = (tables[k] for k in ("rows", "compare", "points", "sweep"))
    verdicts = tables["verdicts"]
    corpora = [c for c in CORPORA if select(rows, corpus=c)]
    lines = [
        "# GCUL on text emotion corpora: the paper's real-data tables, in kind",
        "",
        f"Made by `{command}` (simulations {simulations.__version__}, Python "
        f"{platform.python_version()}, NumPy {np.__version__}, {platform.machine()}, BLAS on one "
        f"thread). Wall time {wall:.0f} s. Per-split rows: `rows.csv`, `compare.csv`, "
        "`operating_points.csv`, `pca_sweep.csv` (every table below is computed from them); "
        "figures: `operating_points.png`, `pca_sweep.png`.",
        "",
        f"Cites the GCUL paper (\"Ambiguity identification in text emotion classification via "
        f"cluster-guided learning\") by section and table title. Data: "
        + "; ".join(f"{CORPUS_TITLE[c]}: {data_notes[c]}" for c in corpora)
        + f". {splits} stratified train/test splits (test {TEST_SIZE:.0%} of every class, seed "
        f"{SEED}); λ = {LAM}; ± is Nadeau & Bengio's corrected standard error over the splits.",
        "",
        "**What could not be reproduced.** The paper's main table is on a Kaggle set of 106,355 "
        "texts in 11 emotions that is not reachable here; its phase 1 is a fine-tuned "
        "DistilBERT (768 d) that no model hub here can serve. The representations below are "
        "stand-ins: (a) out-of-fold TF-IDF + logistic-regression decision scores (5 label-free "
        "folds; a supervised, label-shaped space like a fine-tuned encoder's last layer, of "
        "dimension C), (b) LSA (TF-IDF → SVD, 100 d), (c) WordLlama's frozen 256-d sentence "
        "embedding. Phase 1 is the package's logistic regression on each.",
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
        "corpus and representation, beside the paper's appendix row at PCA d = 10 (tables "
        "\"GCUL results on Dair-AI emotion dataset\" and \"GCUL results on GoEmotions dataset\"). "
        "'MSP vs GCUL' is `gcul compare`'s verdict at GCUL's coverage.",
        "",
        "| corpus | representation | phase-1 acc (%) | GCUL sel. acc (%) | rejection (%) | λ*_PRE valid | λ*_EMP | MSP vs GCUL (`gcul compare`) | paper: acc → sel. acc, rej. (%), λ*_PRE, λ*_EMP |",
        "|---|---|--:|--:|--:|--:|--:|---|---|",
    ]  # fmt: skip
    screen = screening_rows(rows, verdicts)
    for r in screen:
        p = PAPER_GCUL[r["corpus"]][REDUCED]
        lines.append(
            f"| {CORPUS_TITLE[r['corpus']]} | {SHORT[r['representation']]} | {fmt(*r['base_acc'])} | "
            f"{fmt(*r['sel_acc'])} | {fmt(*r['rejection'])} | "
            f"{fmt(*r['lambda_pre_valid'], scale=1.0, digits=3)} | {fmt(*r['lambda_emp'], scale=1.0, digits=3)} | "
            f"{r['msp_verdict']} | {p[0]:.2f} → {p[1]:.2f}, {p[2]:.2f}, {p[3]:.2f}, {p[4]:.2f} |"
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
        for method in METHODS:
            a = select(rows, corpus=corpus, representation=method, variant="gcul")
            b = select(rows, corpus=corpus, representation=method, variant="gcul_oof_pool")
            if a and b:
                pools.append(f"{SHORT[method]} {np.mean([r['n_error_pool'] for r in a]):.0f} in-sample vs "
                             f"{np.mean([r['n_error_pool'] for r in b]):.0f} out-of-fold")  # fmt: skip
        lines += [f"Phase-1 error pool (training rows, mean over splits): {'; '.join(pools)}.", ""]

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
        "the paper's utility at the rejector's own operating point. The paper reports no "
        "number at GCUL's coverage; its operating-point tables follow.",
        "",
    ]
    for corpus in corpora:
        ratio = ratio_of(select(rows, corpus=corpus))
        lines += [f"### {CORPUS_TITLE[corpus]}", "", *table_compare(compare_rows, verdicts, corpus, ratio)]
    lines += [
        "### Across operating points",
        "",
        "Title: selective accuracy / rejection rate (%) of each baseline along its knob, mean ± "
        "SE over the splits, with GCUL's own point (no knob) as the last row. In kind, the "
        "paper's figure \"Operating-point sensitivity of selective classification baselines on "
        "the Kaggle dataset.\" and its appendix tables \"MSP / SelectiveNet / Mahalanobis "
        "results on Dair-AI emotion dataset\" and \"... on GoEmotions dataset\" (beside, the "
        "paper's DistilBERT numbers). MSP accepts iff phase 1's largest probability ≥ 1 − λ; "
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
        "\"GCUL results on ... dataset\" (beside, at the same d). Figure: `pca_sweep.png`.",
        "",
    ]
    for corpus in corpora:
        ratio = ratio_of(select(rows, corpus=corpus))
        for method in METHODS:
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
        "exactly the rows where rejection does not pay.",
        "",
        *table_screening(screen),
    ]
    return "\n".join(lines) + "\n"


def redraw(out: Path) -> list[Path]:
    """Draw ``operating_points.png`` and ``pca_sweep.png`` again from the CSV files in ``out``
    alone (no corpus, no representation, no fit: seconds, not the 15-minute run)."""
    tables = tables_from_csv(out)
    corpora = [c for c in CORPORA if select(tables["sweep"], corpus=c)]
    written = save_figure(plot_operating(tables["points"], corpora), out / "operating_points.png",
                          dpi=110)  # fmt: skip
    written += save_figure(plot_sweep(tables["sweep"], corpora), out / "pca_sweep.png", dpi=110)
    plt.close("all")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", nargs="?", help="folder holding goemotions/ and carer/")
    parser.add_argument("--out", required=True, help="folder for the Markdown, CSV and figures")
    parser.add_argument("--redraw", action="store_true",
                        help="only draw the figures again from the CSV files in --out")
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--cache", default=None, help="folder caching the representations")
    parser.add_argument("--jobs", type=int, default=1, help="corpus x representation tasks at once")
    parser.add_argument("--max-rows", type=int, default=None,
                        help="subsample a larger pooled corpus to this many rows (stratified)")
    parser.add_argument("--corpus", choices=CORPORA, action="append", help="default: both")
    parser.add_argument("--representation", choices=METHODS, action="append", help="default: all")
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
    if args.splits < 2:
        print("error: --splits must be at least 2 (a standard error needs two)", file=sys.stderr)
        return 2
    root, out = Path(args.corpora), Path(args.out)
    corpora = args.corpus or list(CORPORA)
    methods = args.representation or list(METHODS)
    try:
        out.mkdir(parents=True, exist_ok=True)
        data = {c: load_corpus(root, c) for c in corpora}
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
    cpu: dict[str, float] = {}
    tasks = []
    t = time.process_time()
    for corpus in corpora:
        texts, y, _, _ = data[corpus]
        for method in methods:
            Z = cached_representation(method, texts, y, corpus=corpus, split="pooled", seed=SEED,
                                      cache_dir=args.cache)  # fmt: skip
            if args.max_rows is not None and y.size > args.max_rows:
                keep = subsample(y, args.max_rows)
                Z, y_kept = Z[keep], y[keep]
            else:
                y_kept = y
            tasks.append((corpus, method, Z, y_kept))
            print(f"{corpus}/{method}: {Z.shape}", file=sys.stderr, flush=True)
    cpu["representations (cached after the first run)"] = time.process_time() - t
    if args.jobs > 1:
        from joblib import Parallel, delayed

        results = Parallel(n_jobs=args.jobs)(
            delayed(run_dataset)(c, m, Z, y, args.splits) for c, m, Z, y in tasks
        )
    else:
        results = [run_dataset(c, m, Z, y, args.splits) for c, m, Z, y in tasks]
    tables: dict[str, Any] = {"rows": [], "compare": [], "points": [], "sweep": [], "verdicts": {}}
    for (corpus, method, _, _), res in zip(tasks, results, strict=True):
        print(f"{corpus}/{method}: " + ", ".join(f"{k} {v:.0f} s" for k, v in res["cpu"].items()),
              file=sys.stderr, flush=True)  # fmt: skip
        tables["rows"] += res["rows"]
        tables["compare"] += res["compare"]
        tables["points"] += res["points"]
        tables["sweep"] += res["sweep"]
        tables["verdicts"][(corpus, method)] = res["verdicts"]
        for part, seconds in res["cpu"].items():
            cpu[part] = cpu.get(part, 0.0) + seconds
    t = time.process_time()
    for name, key in (("rows", "rows"), ("compare", "compare"), ("operating_points", "points"),
                      ("pca_sweep", "sweep")):  # fmt: skip
        atomic_write_text(out / f"{name}.csv", to_csv(tables[key]))
    verdict_rows = [
        {"corpus": c, "representation": m, "rejector": r, "verdict": v}
        for (c, m), vs in tables["verdicts"].items() for r, v in vs.items()
    ]  # fmt: skip
    atomic_write_text(out / "verdicts.csv", to_csv(verdict_rows))
    save_figure(plot_operating(tables["points"], corpora), out / "operating_points.png", dpi=110)
    save_figure(plot_sweep(tables["sweep"], corpora), out / "pca_sweep.png", dpi=110)
    plt.close("all")
    cpu["tables and figures"] = time.process_time() - t
    wall = time.perf_counter() - started
    notes = {c: data[c][3] for c in corpora}
    command = "PYTHONPATH=$PWD python benchmarks/text_emotion.py CORPORA --out " + str(out)
    if args.splits != 5:
        command += f" --splits {args.splits}"
    if args.max_rows is not None:
        command += f" --max-rows {args.max_rows}"
    if args.jobs != 1:
        command += f" --jobs {args.jobs}"
    text = render(out, notes, tables, cpu, wall, args.splits, command)
    atomic_write_text(out / "text_emotion.md", text)
    print(f"wrote {out / 'text_emotion.md'} ({wall:.0f} s)", file=sys.stderr)
    return 0


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
