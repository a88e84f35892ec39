"""Which estimator of the geometry reproduces the GCUL paper's synthetic λ*_PRE?

The package's union λ*_PRE (``gcul_theory.estimate_geometry`` on the training split with in-sample
phase-1 predictions, then ``gcul_theory.critical_lambda(g, "union")``) falls to 0 near σ ≈ 7 on the
synthetic sweep; the paper's seed-16 table (``tab:synthetic_gcul`` of the GCUL paper, "Ambiguity
identification in text emotion classification via cluster-guided learning") reaches 0 at σ = 8.8,
and the paper counts 25 Type-I violations (``tab:violation_analysis``) where we count 62.

This script tries the readings of the paper's definitions that its text admits (one option per
ambiguity, each quoted in :data:`READING_SOURCES`) and their combinations. For each reading it
estimates the geometry on every cell of the sweep (seeds 10–19 × σ = 0.4 i, i = 0..40; the
cells of :func:`simulations.sweep.run_cell`, whose λ*_EMP on the test split is used unchanged)
and prints one line per reading, sorted by the distance to the paper's seed-16 λ*_PRE column:

* ``d16``: mean |λ*_PRE(seed 16) − paper| over the 41 levels (our seed-16 draw is not the
  paper's, so also) ``dmean``: the same for the 10-seed mean of λ*_PRE;
* ``fall16`` / ``fallmean``: the first σ where λ*_PRE (seed 16 / 10-seed mean) drops below 0.15
  (paper: 7.6), and ``zero16``: the first σ where seed 16's λ*_PRE rounds to 0.00 (paper: 8.8);
* ``typeI`` / ``typeII`` over the 410 cells at λ = 0.15 (paper: 25 / 0).

The fits are cached per cell (``.npz``: phase-1 in-sample, 5-fold cross-validated and test
predictions, the K-Means partition, and the sweep row's λ*_EMP and λ*_PRE), so adding a reading
costs only the estimator.

Result (410 cells; the full listing is this script's output, the summary is in
``benchmarks/paper_estimator_results.md``): **the paper's estimator** is the package's union
predictor (Eq. ``eq:r1_rigorous_bound`` for r̂1, Eq. ``eq:r2_hat`` for r̂2, weights w_c, boundary
at D_c/2, clipped) applied to an error pool judged against the *clean* labels,
E = {ŷ ≠ y_clean} (and clean class cores), instead of the observed, partly flipped training labels
that Sec. ``subsec:assumptions1`` defines E with. Four implementations of that one change are
indistinguishable and all reproduce the paper: the pool from clean labels with ε, π from the
observed ones (``labels=pool_clean``: d16 0.009, dmean 0.007, Type-I/II 23/1), everything from
clean labels (``labels=clean``: 0.011, 0.013, 22/4; with cross-validated predictions 0.010, 0.012,
23/4), or the geometry on the test split, whose labels are clean (``split=test``: 0.010, 0.012,
23/2); each falls below 0.15 at σ = 7.2 (paper 7.6, where it prints 0.15 at 7.2) and reaches 0 at
σ = 8.4–8.8 (paper 8.8). The package's reading is at d16 0.079, Type-I/II 62/0, zero at 6.8.
Clean ε, π alone (``labels=rates_clean``: 0.085) or held-out predictions alone (``preds=cv``:
0.077) do not move it: the flipped labels inside the class cores (43% of the observed pool at
σ = 6, seed 16) widen σ_mix,c. No reading reproduces the paper's Type-II count of 0 together
with a small distance (the best with Type-II 0 is at d16 ≥ 0.05).

Usage::

    python benchmarks/paper_estimator.py                 # 410 cells, 2 jobs
    python benchmarks/paper_estimator.py --seeds 16 --top 20
    python benchmarks/paper_estimator.py --markdown benchmarks/paper_estimator_results.md
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import itertools
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

import gcul_theory
from gcul_theory._selectivity import selectivity_unchecked
from simulations.cli import parse_seeds
from simulations.cli.common import Parser, positive_int
from simulations.gcul import GCUL
from simulations.models import LogisticRegression, single_threaded_blas
from simulations.outputs import prepare_out_file, prepare_out_folder
from simulations.sweep import run_cell
from simulations.synthetic import make_dataset, noise_levels

LAMBDA = 0.15
CELL_VERSION = 1  # bump when the content of a cached cell changes
N_FOLDS = 5

# The paper's seed-16 λ*_PRE column, transcribed from Table tab:synthetic_gcul of the GCUL paper
# (column "λ*_PRE"; lines 1667 (σ = 0.0) to 1707 (σ = 16.0) of the paper's .tex source, one row
# per σ = 0.4 i, i = 0..40).
PAPER_SEED16_PRE = np.array(
    [
        0.96, 0.96, 0.95, 0.94, 0.92, 0.90, 0.87, 0.82, 0.75, 0.68,  # σ = 0.0 .. 3.6
        0.60, 0.53, 0.46, 0.39, 0.33, 0.27, 0.22, 0.18, 0.15, 0.11,  # σ = 4.0 .. 7.6
        0.07, 0.03, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00,  # σ = 8.0 .. 11.6
        0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00,  # σ = 12.0 .. 15.6
        0.00,  # σ = 16.0
    ]
)  # fmt: skip
# The same table's λ*_EMP column (same lines), for reference only.
PAPER_SEED16_EMP = np.array(
    [
        0.82, 0.81, 0.79, 0.79, 0.79, 0.79, 0.77, 0.75, 0.72, 0.65,
        0.64, 0.60, 0.55, 0.50, 0.40, 0.28, 0.21, 0.18, 0.18, 0.15,
        0.15, 0.11, 0.06, 0.08, 0.14, 0.15, 0.14, 0.10, 0.13, 0.10,
        0.10, 0.04, 0.04, 0.02, 0.04, 0.05, 0.03, 0.00, -0.01, 0.02,
        -0.01,
    ]
)  # fmt: skip
PAPER_TYPE_I, PAPER_TYPE_II = 25, 0  # Table tab:violation_analysis of the GCUL paper


# --------------------------------------------------------------------------------------------
# Readings


@dataclasses.dataclass(frozen=True)
class Reading:
    """One reading of the paper's estimator; the defaults are the package's (``estimate_geometry``
    + ``critical_lambda(g, "union")``). Each field is one ambiguity (see READING_SOURCES)."""

    method: str = "union"  # r1 bound: "union" (erf + Chernoff), "gaussian" (erf), "chernoff"
    split: str = "train"  # geometry on "train" (observed labels) or "test" (clean labels)
    labels: str = "observed"  # train split: E and ε, π from "observed" or "clean" labels, or the
    # pool from clean and the rates from observed labels ("pool_clean"), or the reverse ("rates_clean")
    preds: str = "in"  # phase-1 predictions on the training split: "in"-sample or "cv" (5-fold)
    pool: str = "pooled"  # σ_mix,c from the whole pool E ("pooled") or E_c = {E, y = c} ("per_class")
    pool_centre: str = "own"  # per-class pool spread about its own mean ("own") or about μ_mix ("mix")
    core: str = "correct"  # μ_c from correct samples of c, "class" (all y = c), "pred" (ŷ = c)
    sigma_c: str = "core"  # σ_c from the core's samples ("core") or all samples with y = c ("class")
    centre: str = "mean"  # μ's as "mean" or "median" (the initial centres of phase 2 are medians)
    kmeans: bool = False  # μ_mix, μ_c and their spreads from the final K-Means clusters
    r2_sigma: str = "c"  # r̂2's tail with σ_c ("c") or σ_mix,c ("mix")
    r2_weight: str = "pi"  # r̂2 = Σ π_c q_c/(1-ε) ("pi") or Σ π_c(1-ε_c) q_c/(1-ε) ("pi_correct")
    weights: str = "w"  # r̂1's class weights w_c = π_c ε_c/ε ("w") or 1/C ("uniform")
    threshold: str = "half"  # Voronoi boundary at D_c/2 ("half", the paper) or D_c ("full")
    clip: bool = True  # clip r̂1, r̂2 to [0, 1] and λ* = 0 where r̂1 <= r̂2; else raw max(0, S)

    def label(self) -> str:
        default = Reading()
        parts = [
            f"{f.name}={getattr(self, f.name)}"
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != getattr(default, f.name)
        ]
        return ",".join(parts) or "package (union)"


# Where each reading comes from in the GCUL paper (quoted).
READING_SOURCES = {
    "method": [
        "Thm thm:gcul_effectiveness_sufficient_condition: 'the critical rejection threshold λ* is "
        "evaluated at conservative rates' r̂1 of Eq. (eq:r1_hat) (erf only) -> gaussian",
        "Thm thm:r1_rigorous: 'the empirical global capture rate r1 satisfies the conservative "
        "lower bound' Eq. (eq:r1_rigorous_bound) (erf + exp) -> union",
        "Cor cor:attractor_properties / Eq. (eq:chernoff_outlier): the Chernoff term alone -> chernoff",
    ],
    "split/labels/preds": [
        "Sec. subsec:assumptions1: 'A base classifier f1 ... yields predictions ŷ_i = f1(x_i). "
        "The misclassified error pool is identified as E = {i : ŷ_i ≠ y_i}' (on which data, with "
        "which labels, and in- or out-of-sample, is not said)",
        "App. tab:metrics: 'Base Acc: Base classifier accuracy on test set' (the only ε the "
        "synthetic section reports is a test-set one) -> split=test",
        "Sec. subsec:synthetic_exp: 'random label corruption ... p_flip = 0.025η' (ε could count "
        "disagreement with the clean or the corrupted labels) -> labels",
    ],
    "pool": [
        "Sec. subsec:rigorous_r1_analysis: 'Let E_c := {i ∈ E : y_i = c} denote class c's error "
        "pool (|E_c| = Nπ_cε_c)' -> per_class",
        "App. app:proof_projection_tails: 'the 1D marginal projection variable "
        "z_c(X_c^err) = d̂_c^T(X_c^err − μ_mix) for error samples follows N(0, σ²_mix,c)' "
        "(class-c error samples, centred at μ_mix) -> pool_centre=mix",
        "Sec. subsec:feasibility_threshold: 'σ²_mix,c = d̂_c^T Σ_mix d̂_c' and Assumption "
        "ass:error_pool_approximation: 'directional variance σ²_err,c computed over E' -> pooled",
    ],
    "core/sigma_c/centre/kmeans": [
        "Sec. subsec:assumptions1: 'C clean class medians μ_c^(0) = median({z_i : ŷ_i = c}) and "
        "one explicit confusion attractor centroid μ_conf^(0) = median({z_i : i ∈ E})' -> "
        "core=pred, centre=median",
        "Assumption ass:initialization_stability: 'the updated centroid μ_conf remains "
        "topologically stable during K-Means' and Assumption ass:asymptotic_gaussian_subgaussian: "
        "'d̂_c = (μ_conf − μ_c)/‖μ_conf − μ_c‖' -> kmeans",
        "App. app:proof_projection_tails: 'for a clean sample X_c^clean ~ N(μ_c, Σ_c)' (clean = "
        "correctly classified, or all of class c?) -> core, sigma_c",
    ],
    "r2": [
        "App. app:proof_global_rate_bounds: 'clean samples count Nπ_c(1−ε_c) ≤ Nπ_c' (the "
        "printed r̂2 drops the (1−ε_c)) -> r2_weight=pi_correct",
        "Lemma lem:projection_tails defines q_c with σ_c; an implementation might reuse σ_mix,c -> "
        "r2_sigma=mix",
    ],
    "weights/threshold/clip": [
        "Thm thm:r1_rigorous proof: 'w_c = π_cε_c/ε and Σ w_c = 1' -> weights (uniform: 1/C)",
        "App. app:proof_voronoi: 'the decision boundary simplifies to z_c = D_c/2' (a reader "
        "measuring z_c from μ_mix to μ_c may put it at D_c) -> threshold",
        "Thm thm:monotonicity: 'For any 0 < ε < 1 and 0 < r2 < r1 < 1' (outside that domain S "
        "is not a selectivity) -> clip",
    ],
}


def single_changes() -> list[Reading]:
    """The package's reading and every reading that changes one option of it."""
    options = {
        "method": ["gaussian", "chernoff"],
        "split": ["test"],
        "labels": ["clean", "pool_clean", "rates_clean"],
        "preds": ["cv"],
        "pool": ["per_class"],
        "core": ["class", "pred"],
        "sigma_c": ["class"],
        "centre": ["median"],
        "kmeans": [True],
        "r2_sigma": ["mix"],
        "r2_weight": ["pi_correct"],
        "weights": ["uniform"],
        "threshold": ["full"],
        "clip": [False],
    }
    readings = [Reading()]
    for name, values in options.items():
        readings += [Reading(**{name: v}) for v in values]
    readings.append(Reading(pool="per_class", pool_centre="mix"))
    readings.append(Reading(labels="clean", preds="cv"))
    return readings


def combinations() -> list[Reading]:
    """A grid over the options that plausibly move λ*_PRE (duplicates removed)."""
    grid = {
        "method": ["union", "gaussian", "chernoff"],
        "data": [("train", "observed", "in"), ("train", "clean", "in"), ("train", "observed", "cv"),
                 ("test", "observed", "in")],
        "pool": [("pooled", "own"), ("per_class", "own"), ("per_class", "mix")],
        "core": ["correct", "class", "pred"],
        "sigma_c": ["core", "class"],
        "kmeans": [False, True],
        "r2_weight": ["pi", "pi_correct"],
    }  # fmt: skip
    out = []
    for method, data, pool, core, sigma_c, kmeans, r2_weight in itertools.product(
        *grid.values()
    ):
        if kmeans and (core != "correct" or sigma_c != "core" or pool != ("pooled", "own")):
            continue  # the K-Means reading fixes μ's and spreads from the clusters
        split, labels, preds = data
        out.append(
            Reading(
                method=method,
                split=split,
                labels=labels,
                preds=preds,
                pool=pool[0],
                pool_centre=pool[1],
                core=core,
                sigma_c=sigma_c,
                kmeans=kmeans,
                r2_weight=r2_weight,
            )
        )
    return out


# --------------------------------------------------------------------------------------------
# The estimator


def _centre(points: np.ndarray, how: str) -> np.ndarray:
    return np.median(points, axis=0) if how == "median" else points.mean(axis=0)


def _spread(points: np.ndarray, direction: np.ndarray, about: np.ndarray | None = None) -> float:
    """Std of the projections (ddof=1), or their RMS about the projection of ``about``."""
    if points.shape[0] < 2:
        return 0.0
    proj = points @ direction
    if about is None:
        return float(np.std(proj, ddof=1))
    return float(np.sqrt(np.mean((proj - about @ direction) ** 2)))


def estimate(cell: dict, r: Reading) -> float:
    """λ*_PRE of one cell under reading ``r``."""
    if r.split == "test":
        Z, y, y_pred = cell["X_test"], cell["y_test"], cell["pred_test"]
    else:
        Z = cell["X_train"]
        y_pred = cell["pred_in"] if r.preds == "in" else cell["pred_cv"]
        y = cell["y_train"] if r.labels in ("observed", "pool_clean") else cell["y_train_clean"]
    n, n_classes = y.size, int(cell["n_classes"])
    errors = y_pred != y
    counts = np.bincount(y, minlength=n_classes).astype(float)
    pi = counts / n
    eps_c = np.bincount(y[errors], minlength=n_classes) / np.maximum(counts, 1)
    eps = errors.mean()
    if r.split == "train" and r.labels in ("pool_clean", "rates_clean"):
        # ε, π, ε_c from one labelling, the pool E (and the cores) from the other
        y = cell["y_train_clean"] if r.labels == "pool_clean" else cell["y_train"]
        errors = y_pred != y
    if eps == 0.0 or eps == 1.0:
        return 0.0

    if r.kmeans:  # clusters of the phase-2 fit (training split, observed labels)
        clusters, centres = cell["clusters"], cell["centres"]
        uncertain = int(cell["uncertain"])
        mix_set = clusters == uncertain
        mu_mix = centres[uncertain]
        Zc = cell["X_train"]
    else:
        mix_set = errors
        mu_mix = _centre(Z[errors], r.centre)
        Zc = Z
    D = np.zeros(n_classes)
    s_mix = np.zeros(n_classes)
    s_c = np.zeros(n_classes)
    for c in range(n_classes):
        if r.kmeans:
            k = c if c < uncertain else c + 1  # the cluster initialised at class c's median
            core = clusters == k
            mu_c = centres[k]
        else:
            core = {
                "correct": (~errors) & (y == c),
                "class": y == c,
                "pred": y_pred == c,
            }[r.core]
            if not core.any():
                continue  # D = σ = 0: tails 1/2 (as estimate_geometry)
            mu_c = _centre(Zc[core], r.centre)
        diff = mu_mix - mu_c
        D[c] = float(np.linalg.norm(diff))
        if D[c] == 0.0:
            continue
        dhat = diff / D[c]
        if r.pool == "per_class" and not r.kmeans:
            pool_c = errors & (y == c)
            about = mu_mix if r.pool_centre == "mix" else None
            s_mix[c] = _spread(Zc[pool_c], dhat, about)
        else:
            s_mix[c] = _spread(Zc[mix_set], dhat)
        sc_set = core if (r.sigma_c == "core" or r.kmeans) else (y == c)
        s_c[c] = _spread(Zc[sc_set], dhat)

    Dt = 2.0 * D if r.threshold == "full" else D
    p = gcul_theory.gaussian_tail(Dt, s_mix)
    chern = gcul_theory.chernoff_tail(Dt, s_mix)
    loss = {"union": p + chern, "gaussian": p, "chernoff": chern}[r.method]
    w = pi * eps_c / eps if r.weights == "w" else np.full(n_classes, 1.0 / n_classes)
    r1 = 1.0 - float(np.sum(w * loss))
    q = gcul_theory.gaussian_tail(Dt, s_mix if r.r2_sigma == "mix" else s_c)
    v = pi if r.weights == "w" else np.full(n_classes, 1.0 / n_classes)
    if r.r2_weight == "pi_correct":
        v = v * (1.0 - eps_c)
    r2 = float(np.sum(v * q)) / (1.0 - eps)
    if r.clip:
        r1, r2 = min(max(r1, 0.0), 1.0), min(max(r2, 0.0), 1.0)
        if r1 <= r2:
            return 0.0
    return float(max(0.0, selectivity_unchecked(np.asarray(eps), np.asarray(r1), np.asarray(r2))))


# --------------------------------------------------------------------------------------------
# Cells (cached)


def _cv_predictions(X: np.ndarray, y: np.ndarray, seed: int) -> np.ndarray:
    """5-fold out-of-fold phase-1 predictions; folds fixed per seed (not per σ)."""
    order = np.random.default_rng(np.random.SeedSequence([seed, 8])).permutation(y.size)
    out = np.empty_like(y)
    for fold in np.array_split(order, N_FOLDS):
        train = np.ones(y.size, bool)
        train[fold] = False
        out[fold] = LogisticRegression(max_iter=500).fit(X[train], y[train]).predict(X[fold])
    return out


def fit_cell(seed: int, noise: float, cache_dir: Path) -> Path:
    path = cache_dir / f"v{CELL_VERSION}_seed{seed}_noise{noise:.1f}.npz"
    if path.exists():
        return path
    with single_threaded_blas():
        row = run_cell(seed, noise)  # the sweep's row: λ*_EMP and the package's λ*_PRE
        data = make_dataset(seed, noise)
        model = GCUL().fit(data.X_train, data.y_train)
        pred_cv = _cv_predictions(data.X_train, data.y_train, seed)
    arrays = {
        "pred_in": model.phase1_.predict(data.X_train),
        "pred_cv": pred_cv,
        "pred_test": model.phase1_.predict(data.X_test),
        "clusters": np.asarray(model.cluster_labels_),
        "centres": np.asarray(model.cluster_centers_),
        "uncertain": -1 if model.uncertain_cluster_ is None else model.uncertain_cluster_,
        "lambda_emp": row["lambda_emp"],
        "lambda_pre_union": row["lambda_pre_union"],
        "n_classes": model.n_classes_,
    }
    tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")
    np.savez(tmp, **arrays)
    os.replace(tmp, path)
    return path


def load_cell(seed: int, noise: float, cache_dir: Path) -> dict:
    path = cache_dir / f"v{CELL_VERSION}_seed{seed}_noise{noise:.1f}.npz"
    with np.load(path) as f:
        cell = {k: f[k] for k in f.files}
    data = make_dataset(seed, noise)
    cell.update(
        X_train=data.X_train,
        y_train=data.y_train,
        y_train_clean=data.y_train_clean,
        X_test=data.X_test,
        y_test=data.y_test,
    )
    return cell


def _estimator_key() -> str:
    """Fingerprint of the estimator code: cached λ*_PRE curves are reused only if it matches."""
    source = inspect.getsource(estimate) + inspect.getsource(Reading) + inspect.getsource(_spread)
    source += inspect.getsource(_centre)
    return hashlib.sha256(source.encode()).hexdigest()[:12]


def evaluate_seed(seed: int, grid: np.ndarray, readings: list[Reading], cache_dir: Path, key: str):
    """λ*_PRE[reading, level] and λ*_EMP[level] for one seed (curves cached per reading and
    estimator fingerprint ``key``)."""
    path = cache_dir / f"v{CELL_VERSION}_curves_seed{seed}_{grid.size}_{key}.npz"
    known: dict[str, np.ndarray] = {}
    if path.exists():
        with np.load(path) as f:
            known = {k: f[k] for k in f.files}
    todo = [r for r in readings if repr(r) not in known]
    if todo or "__emp__" not in known:
        emp = np.zeros(grid.size)
        package = np.zeros(grid.size)
        curves = np.zeros((len(todo), grid.size))
        for j, noise in enumerate(grid):
            cell = load_cell(seed, float(noise), cache_dir)
            emp[j] = float(cell["lambda_emp"])
            package[j] = float(cell["lambda_pre_union"])
            for i, r in enumerate(todo):
                curves[i, j] = estimate(cell, r)
        known.update({repr(r): curves[i] for i, r in enumerate(todo)})
        known["__emp__"], known["__package__"] = emp, package
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")
        np.savez(tmp, **known)
        os.replace(tmp, path)
    pre = np.stack([known[repr(r)] for r in readings])
    return seed, pre, known["__emp__"], known["__package__"]


# --------------------------------------------------------------------------------------------
# Summary


def first_below(grid: np.ndarray, curve: np.ndarray, threshold: float) -> float:
    below = np.flatnonzero(curve < threshold)
    return float(grid[below[0]]) if below.size else float("nan")


def summarise(readings, seeds, grid, pre, emp) -> list[dict]:
    """pre: (n_seeds, n_readings, n_levels); emp: (n_seeds, n_levels)."""
    lines = []
    i16 = seeds.index(16) if 16 in seeds else None
    for k, r in enumerate(readings):
        curves = pre[:, k, :]
        mean = curves.mean(axis=0)
        line = {
            "reading": r.label(),
            "dmean": float(np.mean(np.abs(mean - PAPER_SEED16_PRE))),
            "fallmean": first_below(grid, mean, LAMBDA),
            "typeI": int(np.sum((curves < LAMBDA) & (emp >= LAMBDA))),
            "typeII": int(np.sum((curves >= LAMBDA) & (emp < LAMBDA))),
        }
        if i16 is not None:
            line["d16"] = float(np.mean(np.abs(curves[i16] - PAPER_SEED16_PRE)))
            line["fall16"] = first_below(grid, curves[i16], LAMBDA)
            line["zero16"] = first_below(grid, curves[i16], 0.005)
        else:
            line["d16"] = line["fall16"] = line["zero16"] = float("nan")
        line["score"] = line["d16"] if i16 is not None else line["dmean"]
        lines.append(line)
    lines.sort(key=lambda line: (line["score"], line["reading"]))
    return lines


def format_lines(lines, n_cells: int, markdown: bool = False) -> str:
    head = ["d16", "dmean", "fall16", "zero16", "fallmean", "typeI", "typeII", "reading"]
    rows = []
    for line in lines:
        rows.append(
            [
                f"{line['d16']:.3f}",
                f"{line['dmean']:.3f}",
                f"{line['fall16']:.1f}",
                f"{line['zero16']:.1f}",
                f"{line['fallmean']:.1f}",
                f"{line['typeI']}",
                f"{line['typeII']}",
                line["reading"],
            ]
        )
    paper = ["0", "-", "7.6", "8.8", "-", f"{PAPER_TYPE_I}", f"{PAPER_TYPE_II}", "paper (seed 16 table)"]
    if markdown:
        out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        out += ["| " + " | ".join(row) + " |" for row in [paper] + rows]
        return "\n".join(out)
    widths = [max(len(x[i]) for x in [head, paper] + rows) for i in range(len(head) - 1)]
    fmt = "  ".join(f"{{:>{w}}}" for w in widths) + "  {}"
    out = [fmt.format(*head), fmt.format(*paper)] + [fmt.format(*row) for row in rows]
    out.append(f"({n_cells} cells; Type-I/II at λ = {LAMBDA})")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = Parser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="10-19")
    parser.add_argument("--levels", type=int, default=41)
    parser.add_argument("--jobs", type=positive_int, default=2)
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path(tempfile.gettempdir()) / "gcul_paper_estimator_cache",
        help="directory of the per-cell .npz fits (default: %(default)s)",
    )
    parser.add_argument("--readings", choices=["single", "all"], default="all")
    parser.add_argument("--top", type=int, default=0, help="print only the best N (0: all)")
    parser.add_argument("--markdown", type=Path, help="also write the table as Markdown here")
    args = parser.parse_args(argv)
    try:
        prepare_out_folder(args.cache, "--cache")
        if args.markdown is not None:
            prepare_out_file(args.markdown, "--markdown")
    except ValueError as error:
        parser.error(str(error))
    seeds = parse_seeds(args.seeds)
    grid = noise_levels(args.levels)
    readings = single_changes()
    if args.readings == "all":
        seen = set(readings)
        readings += [r for r in combinations() if r not in seen]

    start = time.perf_counter()
    cells = [(s, float(x)) for s in seeds for x in grid]
    Parallel(n_jobs=args.jobs)(delayed(fit_cell)(s, x, args.cache) for s, x in cells)
    fitted = time.perf_counter() - start
    key = _estimator_key()
    results = Parallel(n_jobs=args.jobs)(
        delayed(evaluate_seed)(s, grid, readings, args.cache, key) for s in seeds
    )
    results.sort(key=lambda t: t[0])
    pre = np.stack([t[1] for t in results])
    emp = np.stack([t[2] for t in results])
    package = np.stack([t[3] for t in results])
    # The package's reading must reproduce the sweep's own λ*_PRE (a check of this estimator).
    mismatch = np.max(np.abs(pre[:, 0, :] - package))
    if mismatch > 1e-9:
        print(f"warning: package reading differs from run_cell by {mismatch:.2e}", file=sys.stderr)
    lines = summarise(readings, list(seeds), grid, pre, emp)
    shown = lines[: args.top] if args.top else lines
    print(format_lines(shown, len(cells)))
    elapsed = time.perf_counter() - start
    print(
        f"{len(readings)} readings; fits {fitted:.1f} s, total {elapsed:.1f} s "
        f"(package reading vs run_cell: max |diff| = {mismatch:.1e})"
    )
    if args.markdown:
        singles = {r.label() for r in single_changes()}
        text = [
            "# Which estimator reproduces the GCUL paper's synthetic λ*_PRE?",
            "",
            "Written by `python benchmarks/paper_estimator.py --markdown "
            "benchmarks/paper_estimator_results.md` (its module docstring has the conclusion and "
            "the quotes each reading comes from). Columns: `d16` = mean |λ*_PRE(seed 16) − paper| "
            "over the 41 levels of Table tab:synthetic_gcul of the GCUL paper; `dmean` = the same "
            "for the 10-seed mean; `fall16`/`fallmean` = first σ with λ*_PRE < 0.15; `zero16` = "
            "first σ where seed 16's λ*_PRE rounds to 0.00; Type-I/II over seeds 10–19 × 41 "
            "levels at λ = 0.15 with the sweep's λ*_EMP. `reading` lists the options that differ "
            "from the package's estimator (`estimate_geometry` + `critical_lambda(g, \"union\")`).",
            "",
            "Conclusion: the paper's estimator is the package's union predictor applied to an "
            "error pool judged against the clean labels (E = {ŷ ≠ y_clean}); the four "
            "implementations of that change (`labels=pool_clean`, `labels=clean`, "
            "`labels=clean,preds=cv`, `split=test`) are indistinguishable and all reproduce the "
            "paper's column (d16 ≤ 0.011, Type-I 22–23 against 25), with 1–4 Type-II violations "
            "where the paper reports 0.",
            "",
            f"Single changes of the package's reading ({len(cells)} cells, λ = {LAMBDA}):",
            "",
            format_lines([line for line in lines if line["reading"] in singles], len(cells), True),
            "",
            f"The best {min(20, len(lines))} of all {len(lines)} readings:",
            "",
            format_lines(lines[:20], len(cells), True),
        ]
        args.markdown.write_text("\n".join(text) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
