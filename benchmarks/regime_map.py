r"""When does GCUL's rejection beat thresholding confidence? A regime map (issue 26, parts 2-4).

The paper's conclusion calls GCUL "a geometry-dependent selective learning framework rather than a
universal baseline" that helps "on datasets exhibiting coherent confusion structures" (section
"Conclusion and discussion"). The synthetic protocol of its section "Synthetic phase-transition verification"
fixes that geometry; :class:`simulations.synthetic.SyntheticConfig` now exposes it. This script
maps GCUL against MSP over it and asks whether the paper's own quantities predict the sign.

(1) **The map.** Five factors: the noise level σ, and the confusion population's radius ratio
    a (``confusion_radius_ratio``), shift t toward class 0 (``confusion_shift``), share q
    (``n_confusion``; q = n_conf / n_total) and label bias b toward its m = 2 nearest classes
    (``confusion_label_bias``). Not a full factorial: a full grid per pair of factors, the
    others at their default (:data:`PAIRS`, :data:`FACTORS`); σ is one axis of four of the six
    pairs. Every setting runs :data:`SEEDS` (20 seeds). Per cell (setting × seed), on the test
    split, with the package's own rejectors and evaluation (:mod:`simulations.rejectors`,
    :func:`simulations.rejectors.evaluate.evaluation_columns`, the sweep's definition of "at
    GCUL's coverage": every rejector accepts as many test samples as GCUL does, ties at the cut
    by their expected value): GCUL's coverage and selective risk, MSP's and the Bayes
    rejector's selective risk at GCUL's coverage. Per setting: the paired difference
    GCUL − MSP over seeds (mean ± SE, SE = sd/√n: the seeds are independent datasets), its
    two-sided t test (n − 1 df), and the share of the MSP-to-Bayes gap GCUL recovers,
    (R_MSP − R_GCUL)/(R_MSP − R_Bayes) from the seed means (delta-method SE). Significance in a
    phase diagram: Holm's step-down correction over the cells of that diagram, family-wise 5%.

(2) **Does the theory predict the sign?** Per cell, from the training split only: S_GCUL of
    GCUL's own rejection (its r1, r2 on the training split; S > λ iff rejecting pays at cost
    λ), λ*_PRE of the valid Hunter-Worsley predictor, S_exist
    (:func:`gcul_theory.structural_existence_confidence`), and two statistics derived here:
    ΔS_eq, the selectivity score of GCUL's rejection minus that of MSP's at the same training
    rejection rate ρ (at equal ρ, S = ε(r1 − ρ)/(ρ(1 − ρ)), so ΔS_eq = ε(r1_GCUL − r1_MSP)/(ρ(1 − ρ))
    and its sign is that of MSP's minus GCUL's phase-1 selective risk; indeed it equals that
    difference over ρ: the claim ``equal_coverage.order`` of ``gcul prove``), and Δ_train,
    GCUL's minus MSP's selective risk on the training split at GCUL's training coverage
    (observed labels). A setting's predictor is its mean over seeds; its outcome is the sign of
    the mean GCUL − MSP. The settings are
    split in two halves at random (seed :data:`HALF_SEED`): on the first, each predictor's
    orientation and an accuracy-maximising threshold are chosen; on the held-out half its ROC
    AUC (Mann-Whitney) is reported with DeLong's SE, a bootstrap SE that also redraws the seeds
    the settings share (:func:`bootstrap_auc_se`), and the chosen threshold's accuracy.

(3) **The text corpora** (``--corpora DIR``, optional): the same training-split predictors for
    every corpus × representation × split of ``benchmarks/text_emotion.py`` (same pooled
    corpora, same 5 stratified 80/20 splits, seed 0, same GCUL), and GCUL − MSP at GCUL's
    coverage recomputed on its test part and checked against that benchmark's ``compare.csv``
    (matched on the fine-tuning seed too where that file has one; rows it lacks are skipped and
    counted); each is placed on the predictor axes. With ``--finetuned DIR`` (the text
    benchmark's folder of a fine-tuned encoder, ``DIR/<corpus>/seed<k>/``), also the fine-tuned
    representation under that benchmark's held-out protocol (H), ``finetuned_heldout``: the
    rows the encoder never saw (validation + test, pooled), the same 5 stratified splits of
    them, one row per fine-tuning seed × split.

Why a script and not a ``gcul`` command: it is a study with fixed grids and a committed report,
like the other reproductions in ``benchmarks/``; it adds no CLI surface.

Run from the repository root::

    PYTHONPATH=$PWD python benchmarks/regime_map.py --out benchmarks/regime_map --jobs 2 \
        [--corpora /path/to/text-emotion --cache /tmp/text-cache \
         --finetuned /path/to/text-emotion/finetuned-minilm]

``--tables-only`` redraws every table and figure from the CSV files in ``--out``;
``--text-only`` (with ``--corpora``) recomputes only ``text.csv`` and then redraws, the cells
read from ``cells.csv``.

Writes into ``--out``: ``cells.csv`` (one row per setting × seed), ``settings.csv`` (one row per
setting), ``predictors.csv`` (AUCs), ``text.csv`` (one row per corpus × representation ×
fine-tuning seed × split, with ``--corpora``; the stand-ins are seed 0), ``regime_map.md`` (the
report) and the figures ``regime_map.png`` (the phase diagrams) and ``predictors.png`` (outcome
against each predictor). Every number depends only on
the grid and the seeds: the CSV files are identical for any ``--jobs`` and on every run.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import io
import math
import platform
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import gcul_theory  # noqa: E402
import simulations  # noqa: E402
from simulations.cli.common import Parser, positive_int  # noqa: E402
from simulations.statistics import (  # noqa: E402
    auc_bootstrap_se,
    best_threshold,
    delong_se,
    gap_share,
    holm,
    one_sample_t_pvalue,
    paired_difference,
    roc_auc,
)
from simulations.training_predictors import (  # noqa: E402
    TRAINING_PREDICTORS,
    theory_rule,
    training_predictors,
)
from simulations.figures import save_figure  # noqa: E402
from simulations.outputs import atomic_write_text, prepare_out_folder  # noqa: E402
from simulations.text.study import (  # noqa: E402
    CORPORA,
    FINETUNED_SEEDS,
    SEED,
    TEST_SIZE,
    load_finetuned,
    load_pooled,
)

LAM = 0.15  # the paper's λ_target
ALPHA = 0.05  # family-wise level of Holm's correction in each phase diagram
SEEDS = tuple(range(10, 30))  # the paper's seeds 10..19 and ten more
HALF_SEED = 26  # the random halves of the settings (choice / held out)
BOOT_SEED = 27  # the bootstrap of the held-out AUC over seeds and settings
N_BOOT = 1000  # its replicates: the SE's own relative sampling error is about 1/sqrt(2 N_BOOT)
VALID = "hunter_worsley"  # the tightest valid predictor (gcul_theory.DEFAULT_METHOD)
N_PER_CLASS = 2000  # the protocol's; q = n_conf / (K n_per_class + n_conf)
PAPER = 'the GCUL paper ("Ambiguity identification in text emotion classification via cluster-guided learning")'


@dataclasses.dataclass(frozen=True)
class Factor:
    """One axis of the map: its name, symbol, what it is, its default and its grid."""

    name: str
    symbol: str
    title: str
    default: float
    grid: tuple[float, ...]


FACTORS: dict[str, Factor] = {
    f.name: f
    for f in (
        Factor("sigma", "σ", "feature noise σ (labels flip with prob. 0.025σ)", 4.0,
               (0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)),
        Factor("ratio", "a", "confusion radius / class radius (confusion_radius_ratio)", 1.0,
               (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)),
        Factor("shift", "t", "confusion centre moved toward class 0 (confusion_shift)", 0.0,
               (0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0)),
        Factor("n_confusion", "q", "confusion share q = n_conf / n_total (n_confusion)", 2000,
               (250, 500, 1000, 2000, 4000, 8000, 16000)),
        Factor("bias", "b", "confusion labels biased to its 2 nearest classes (confusion_label_bias)",
               0.0, (0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0)),
    )
}  # fmt: skip
PAIRS: tuple[tuple[str, str], ...] = (
    ("sigma", "ratio"),
    ("sigma", "shift"),
    ("sigma", "n_confusion"),
    ("sigma", "bias"),
    ("shift", "bias"),
    ("ratio", "n_confusion"),
)
"""The phase diagrams: (y axis, x axis), a full grid of each pair, the other factors at default."""

Setting = tuple[float, float, float, int, float]  # (sigma, ratio, shift, n_confusion, bias)
NAMES = tuple(FACTORS)


def settings() -> list[Setting]:
    """Every setting of the study, each once, in a fixed order (pair by pair, row by row)."""
    default = {name: f.default for name, f in FACTORS.items()}
    out: list[Setting] = []
    for first, second in PAIRS:
        for u in FACTORS[first].grid:
            for v in FACTORS[second].grid:
                values = default | {first: u, second: v}
                setting = tuple(values[n] for n in NAMES)
                setting = (*setting[:3], int(setting[3]), setting[4])
                if setting not in out:
                    out.append(setting)
    return out


def share(n_confusion: int) -> float:
    """q = n_conf / n_total of the protocol's K = 5 classes of N_PER_CLASS samples."""
    return n_confusion / (5 * N_PER_CLASS + n_confusion)


def config_of(setting: Setting) -> tuple[Any, float]:
    """The :class:`~simulations.synthetic.SyntheticConfig` and σ of a setting."""
    sigma, ratio, shift, n_confusion, bias = setting
    config = simulations.synthetic.SyntheticConfig(
        n_per_class=N_PER_CLASS,
        n_confusion=int(n_confusion),
        confusion_radius_ratio=float(ratio),
        confusion_shift=float(shift),
        confusion_label_bias=float(bias),
    )
    return config, float(sigma)


# ------------------------------------------------------------------------ one cell, one split
def measure_cell(setting: Setting, seed: int) -> dict[str, float]:
    """One cell: fit GCUL on the (setting, seed) dataset; the test columns and the predictors."""
    from simulations.gcul import GCUL
    from simulations.rejectors import RejectorContext
    from simulations.rejectors.evaluate import evaluation_columns, evaluation_seed, score_rejectors

    config, noise = config_of(setting)
    data = simulations.make_dataset(seed, noise, config)
    model = GCUL().fit(data.X_train, data.y_train)
    # the sweep's evaluation (simulations.rejectors.evaluate.score_cell), only these rejectors
    context = RejectorContext(
        data.X_train, data.y_train, model, seed=evaluation_seed(seed), mixture=data.mixture
    )
    cell = score_rejectors(context, data.X_test, data.y_test, names=("gcul", "msp", "bayes"))
    columns = evaluation_columns(cell)
    return {
        "coverage": cell.n_accept / data.y_test.size,
        "base_error": float(np.count_nonzero(cell.base_wrong) / data.y_test.size),
        "risk_gcul": columns["sel_risk_gcul"],
        "risk_msp": columns["sel_risk_msp"],
        "risk_bayes": columns["sel_risk_bayes"],
        **training_predictors(model, data.X_train, data.y_train, VALID),
    }


def setting_task(
    index: int, setting: Setting, seeds: Sequence[int]
) -> tuple[int, list[dict], float]:
    """Every seed of one setting, with one BLAS thread; ``(index, rows, CPU seconds)``."""
    from simulations.models import single_threaded_blas

    start = time.process_time()
    rows = []
    with single_threaded_blas():
        for seed in seeds:
            row = {"setting": index, **dict(zip(NAMES, setting, strict=True))}
            row |= {"share": share(setting[3]), "seed": seed, **measure_cell(setting, seed)}
            rows.append(row)
    return index, rows, time.process_time() - start


# ------------------------------------------------------------------------------- summaries
PREDICTORS = tuple((p.column, p.label, p.kind, p.rule) for p in TRAINING_PREDICTORS)
"""(column, label, kind, the rule the theory itself gives for "GCUL beats MSP", if any)."""


def summarise_settings(rows: list[dict], setting_list: list[Setting]) -> list[dict]:
    """One row per setting: the paired difference, its test, the gap share, predictor means."""
    by_setting: dict[int, list[dict]] = {}
    for row in rows:
        by_setting.setdefault(row["setting"], []).append(row)
    halves = np.random.default_rng(np.random.SeedSequence(HALF_SEED)).permutation(len(setting_list))
    held_out = set(halves[len(setting_list) // 2 :].tolist())
    out = []
    for index, setting in enumerate(setting_list):
        block = by_setting[index]
        col = {k: np.array([r[k] for r in block], float) for k in block[0] if k != "setting"}
        mean, se, n = paired_difference(col["risk_gcul"], col["risk_msp"])
        gap, gap_se = gap_share(col["risk_msp"], col["risk_gcul"], col["risk_bayes"])
        gap_mean, gap_mean_se, _ = paired_difference(col["risk_msp"], col["risk_bayes"])
        summary = {"setting": index, **dict(zip(NAMES, setting, strict=True))}
        summary |= {
            "share": share(setting[3]),
            "seeds": len(block),
            "seeds_compared": n,
            "coverage": float(np.mean(col["coverage"])),
            "risk_gcul": float(np.nanmean(col["risk_gcul"])) if n else math.nan,
            "risk_msp": float(np.nanmean(col["risk_msp"])) if n else math.nan,
            "risk_bayes": float(np.nanmean(col["risk_bayes"])) if n else math.nan,
            "diff": mean,
            "diff_se": se,
            "p_value": one_sample_t_pvalue(mean, se, n),
            "msp_bayes_gap": gap_mean,
            "msp_bayes_gap_se": gap_mean_se,
            "gap_share": gap,
            "gap_share_se": gap_se,
            "held_out": int(index in held_out),
        }
        for column, *_ in PREDICTORS:
            summary[column] = float(np.mean(col[column]))
        out.append(summary)
    return out


def diagram(summaries: list[dict], pair: tuple[str, str]) -> dict[str, Any]:
    """The grid of one pair: values, GCUL − MSP, SE, and Holm's rejections over its cells."""
    first, second = pair
    f, g = FACTORS[first], FACTORS[second]
    default = {name: fac.default for name, fac in FACTORS.items()}
    index = {tuple(s[n] for n in NAMES): s for s in summaries}
    cells = []
    for u in f.grid:
        for v in g.grid:
            values = default | {first: u, second: v}
            cells.append(index[tuple(values[n] for n in NAMES)])
    shape = (len(f.grid), len(g.grid))
    diff = np.array([c["diff"] for c in cells]).reshape(shape)
    se = np.array([c["diff_se"] for c in cells]).reshape(shape)
    significant = holm([c["p_value"] for c in cells], ALPHA).reshape(shape)
    return {"pair": pair, "diff": diff, "se": se, "significant": significant, "cells": cells}


BLOCKS = {
    "all": lambda s: True,
    "Holm-significant": lambda s: bool(s["significant_any"]),
    f"σ = {FACTORS['sigma'].default:g} only": lambda s: s["sigma"] == FACTORS["sigma"].default,
}
"""The blocks of settings of the predictor table: a name and which settings it keeps."""


def predictor_table(summaries: list[dict]) -> list[dict]:
    """Per predictor: orientation and threshold chosen on one half, AUC ± SE on the other."""
    usable = [s for s in summaries if np.isfinite(s["diff"]) and s["diff"] != 0.0]
    choice = [s for s in usable if not s["held_out"]]
    test = [s for s in usable if s["held_out"]]
    out = []
    for block, keep in BLOCKS.items():
        c_set = [s for s in choice if keep(s)]
        t_set = [s for s in test if keep(s)]
        y_c = np.array([s["diff"] < 0 for s in c_set])
        y_t = np.array([s["diff"] < 0 for s in t_set])
        for column, label, kind, rule in PREDICTORS:
            x_c = np.array([s[column] for s in c_set])
            x_t = np.array([s[column] for s in t_set])
            auc_choice = roc_auc(x_c, y_c)
            sign = 1.0 if auc_choice >= 0.5 else -1.0
            cut = best_threshold(sign * x_c, y_c)
            natural = theory_rule(column, x_t, LAM)
            out.append({
                "predictor": column,
                "label": label,
                "kind": kind,
                "settings": block,
                "n_choice": len(c_set),
                "n_held_out": len(t_set),
                "n_gcul_better_held_out": int(y_t.sum()),
                "orientation": "higher = GCUL better" if sign > 0 else "lower = GCUL better",
                "auc_choice": max(auc_choice, 1.0 - auc_choice),
                "auc": roc_auc(sign * x_t, y_t),
                "auc_se": delong_se(sign * x_t, y_t),
                "threshold": sign * cut,
                "accuracy": float(np.mean((sign * x_t > cut) == y_t)) if len(t_set) else math.nan,
                "natural_rule": rule or "",
                "natural_accuracy": float(np.mean(natural == y_t)) if natural is not None else math.nan,
                "majority_accuracy": float(max(y_t.mean(), 1 - y_t.mean())) if len(t_set) else math.nan,
            })  # fmt: skip
    return out


def bootstrap_auc_se(
    rows: list[dict],
    summaries: list[dict],
    table: list[dict],
    n_boot: int = N_BOOT,
    seed: int = BOOT_SEED,
) -> None:
    r"""Add ``auc_se_boot`` to each row of ``table``: the SD of its held-out AUC when the seeds
    *and* the held-out settings are resampled.

    DeLong's SE treats the held-out settings as independent draws. They are not: every setting
    runs the same seeds, and a seed fixes the class centres and every other draw of the
    generator (:mod:`simulations.synthetic`), so the settings share their datasets' randomness.
    Each replicate draws the seeds with replacement, once for all settings (``rows``: one per
    setting × seed), recomputes every setting's mean GCUL − MSP (over the seeds where it is
    finite, as :func:`paired_difference`) and mean predictor, and draws the held-out settings of
    the row's block with replacement; the orientation chosen on the choice half is kept (the
    choice is not redone) and settings whose mean difference is exactly 0 are left out, as in
    :func:`predictor_table`. Replicates where one class of outcome is empty are skipped; NaN if
    fewer than two remain.
    """
    index = {s["setting"]: k for k, s in enumerate(summaries)}
    seeds = sorted({r["seed"] for r in rows})
    column = {seed: j for j, seed in enumerate(seeds)}
    names = ["risk_gcul", "risk_msp"] + [p for p, *_ in PREDICTORS]
    values = {name: np.full((len(summaries), len(seeds)), np.nan) for name in names}
    for r in rows:
        for name in names:
            values[name][index[r["setting"]], column[r["seed"]]] = r[name]
    groups = {
        block: np.array([k for k, s in enumerate(summaries) if s["held_out"] and keep(s)], int)
        for block, keep in BLOCKS.items()
    }
    signs = {
        (r["settings"], r["predictor"]): 1.0 if r["orientation"].startswith("higher") else -1.0
        for r in table
    }
    se = auc_bootstrap_se(
        values["risk_gcul"] - values["risk_msp"],
        {p: values[p] for p, *_ in PREDICTORS},
        groups,
        signs,
        n_boot=n_boot,
        seed=seed,
    )
    for r in table:
        r["auc_se_boot"] = se[r["settings"], r["predictor"]]


# ------------------------------------------------------------------------------- text corpora
FT_REP = "finetuned_heldout"  # the text benchmark's name of protocol (H) over compare's splits


def finetuned_inputs(folder: Path, root: Path) -> dict[str, list[tuple[int, np.ndarray, np.ndarray]]]:
    """The held-out rows of every fine-tuned seed found in ``folder/<corpus>/seed<k>/``.

    Each folder is read and checked as the text benchmark reads it
    (:func:`simulations.text.study.load_finetuned`: :func:`simulations.text.load_precomputed`'s
    format, and labels row for row equal to the corpus's own in ``root``); a corpus without a folder is left out. Returns, per corpus, one
    ``(seed, Z, y)`` per fine-tuning seed: the rows the encoder never saw (validation + test,
    pooled, in file order), as protocol (H) of the text benchmark fits ``gcul compare`` on them.

    Raises
    ------
    ValueError
        In one line: a folder that breaks the format or whose labels are not the corpus's, or no
        ``<corpus>/`` folder at all.
    """
    found: dict[str, list[tuple[int, np.ndarray, np.ndarray]]] = {}
    for corpus in CORPORA:
        if not (folder / corpus).is_dir():
            continue
        found[corpus] = []
        for seed, data in load_finetuned(folder, corpus, root, list(FINETUNED_SEEDS)):
            held = data.rows("validation", "test")
            found[corpus].append((seed, data.embeddings[held], data.labels[held]))
    if not found:
        raise ValueError(f"{folder}: no folder of {' or '.join(CORPORA)} in it")
    return found


def text_rows(
    root: Path, cache: Path | None, jobs: int, finetuned: dict[str, list[tuple]] | None = None
) -> list[dict]:
    """The training-split predictors and GCUL − MSP of every corpus × representation × split of
    ``benchmarks/text_emotion.py``: its stand-ins (seed 0, the pooled corpus) and, with
    ``finetuned`` (from :func:`finetuned_inputs`), the fine-tuned encoder under protocol (H), one
    row per fine-tuning seed × split of the held-out rows (representation :data:`FT_REP`)."""
    from simulations.compare import stratified_splits
    from simulations.text.representations import REPRESENTATIONS, cached_representation

    tasks = []
    for corpus in CORPORA:
        texts, y, _, _ = load_pooled(root, corpus)
        for method in REPRESENTATIONS:
            Z = cached_representation(
                method, texts, y, corpus=corpus, split="pooled", seed=SEED, cache_dir=cache
            )
            for i, (train, test) in enumerate(stratified_splits(y, 5, TEST_SIZE, SEED)):
                tasks.append((corpus, method, SEED, i, Z, y, train, test))
        for seed, Z, y_held in (finetuned or {}).get(corpus, []):
            for i, (train, test) in enumerate(stratified_splits(y_held, 5, TEST_SIZE, SEED)):
                tasks.append((corpus, FT_REP, seed, i, Z, y_held, train, test))
    if jobs > 1:
        from joblib import Parallel, delayed

        rows = Parallel(n_jobs=jobs, backend="loky")(delayed(_text_task)(*t) for t in tasks)
    else:
        rows = [_text_task(*t) for t in tasks]
    return rows


def _text_task(corpus, method, seed, split, Z, y, train, test) -> dict:
    """One corpus × representation × seed × split, as ``simulations.compare`` fits and scores it."""
    from simulations.gcul import GCUL
    from simulations.models import single_threaded_blas
    from simulations.rejectors import RejectorContext
    from simulations.rejectors.evaluate import score_rejectors

    start = time.process_time()
    with single_threaded_blas():
        X_train, X_test = (
            np.ascontiguousarray(Z[train], float),
            np.ascontiguousarray(Z[test], float),
        )
        model = GCUL().fit(X_train, y[train])
        context = RejectorContext(X_train, y[train], model, seed=np.random.SeedSequence(0))
        cell = score_rejectors(context, X_test, y[test], names=("gcul", "msp"))
        m = cell.n_accept
        risk_gcul = np.count_nonzero(cell.wrong["gcul"] & cell.gcul_accept) / m if m else math.nan
        risk_msp = float(
            gcul_theory.selective_risk_at_coverage(cell.scores["msp"], cell.wrong["msp"], m)
        )
        predictors = training_predictors(model, X_train, y[train], VALID)
    return {
        "corpus": corpus, "representation": method, "seed": int(seed), "split": split,
        "n_features": int(Z.shape[1]), "coverage": m / y[test].size,
        "risk_gcul": risk_gcul, "risk_msp": risk_msp if m else math.nan,
        **predictors, "cpu_seconds": time.process_time() - start,
    }  # fmt: skip


@dataclasses.dataclass(frozen=True)
class CompareCheck:
    """Our per-split selective risks against the text benchmark's ``compare.csv``.

    ``by_representation``: per representation found there, ``(largest |difference|, number of
    risks compared)``; ``absent``: risks of ours with no row there (a representation or seed that
    file does not have, or no file), skipped and counted; ``absent_from``: their representations.
    """

    by_representation: dict[str, tuple[float, int]]
    absent: int
    absent_from: tuple[str, ...] = ()

    @property
    def worst(self) -> float:
        """The largest |difference| over every risk compared (NaN if none was)."""
        return max((w for w, _ in self.by_representation.values()), default=math.nan)

    @property
    def checked(self) -> int:
        """How many risks were compared."""
        return sum(n for _, n in self.by_representation.values())

    def text(self) -> str:
        """One clause for the report: the representations that agree exactly together, each
        other one with its largest difference (a file from another run of that benchmark
        shows here, representation by representation)."""
        if not self.checked:
            return (f"not checked against that benchmark's `compare.csv` (none of the "
                    f"{self.absent} per-split risks is there, or no such file)")  # fmt: skip
        same = [m for m, (w, _) in self.by_representation.items() if w == 0.0]
        parts = []
        if same:
            n = sum(self.by_representation[m][1] for m in same)
            parts.append(f"0 (equal) for {', '.join(same)} ({n} risks)")
        parts += [f"{w:.3g} for {m} ({n} risks)" for m, (w, n) in self.by_representation.items()
                  if w != 0.0]  # fmt: skip
        clause = ("largest deviation of the per-split selective risks (GCUL's and MSP's) from "
                  f"that benchmark's `compare.csv`: {'; '.join(parts)}")  # fmt: skip
        if self.absent:
            clause += (f"; {self.absent} per-split risks are not in it "
                       f"({', '.join(self.absent_from)}; not checked)")  # fmt: skip
        return clause


def check_against_compare(rows: list[dict], compare_csv: Path) -> CompareCheck:
    """Compare our per-split GCUL and MSP selective risks with the text benchmark's
    ``compare.csv``, matched on corpus, representation, split, rejector and, where that file has
    a ``seed`` column, the fine-tuning seed (without one, every row is seed 0, the stand-ins')."""
    ours = {
        (r["corpus"], r["representation"], int(r.get("seed", 0)), int(r["split"]), name): r[f"risk_{name}"]
        for r in rows
        for name in ("gcul", "msp")
    }
    if not compare_csv.is_file():
        return CompareCheck({}, len(ours), tuple(dict.fromkeys(k[1] for k in ours)))
    with compare_csv.open(encoding="utf-8") as handle:
        theirs = {
            (r["corpus"], r["representation"], int(r.get("seed") or 0), int(r["split"]),
             r["rejector"]): float(r["sel_risk"])
            for r in csv.DictReader(handle)
        }  # fmt: skip
    found: dict[str, tuple[float, int]] = {}
    for key, value in ours.items():
        if key in theirs:
            both_nan = math.isnan(value) and math.isnan(theirs[key])  # no accepted sample in either
            gap = 0.0 if both_nan else abs(theirs[key] - value)
            worst, n = found.get(key[1], (0.0, 0))
            found[key[1]] = (max(worst, math.inf if math.isnan(gap) else gap), n + 1)
    missing = [k for k in ours if k not in theirs]
    return CompareCheck(found, len(missing), tuple(dict.fromkeys(k[1] for k in missing)))


def text_order(row: dict) -> tuple:
    """Stand-ins first (by name), then the fine-tuned rows, by seed; within each corpus."""
    return (row["corpus"], row["representation"] == FT_REP, row["representation"], row.get("seed", 0))


def text_label(row: dict) -> str:
    """The representation as the report names it: a fine-tuned row with its seed."""
    if row["representation"] == FT_REP:
        return f"{FT_REP}, seed {row['seed']}"
    return row["representation"]


def summarise_text(rows: list[dict]) -> list[dict]:
    """Mean over splits per corpus × representation × fine-tuning seed (the stand-ins have seed
    0); SE of GCUL − MSP by Nadeau & Bengio's correction (the splits overlap, as in
    ``benchmarks/text_emotion.py``). Each fine-tuning seed is its own row: the report gives the
    spread across seeds beside them (:func:`seed_spread`)."""
    from simulations.compare import estimate

    out = []
    keys = sorted({(r["corpus"], r["representation"], r.get("seed", 0)) for r in rows})
    for corpus, method, seed in keys:
        key = (corpus, method, seed)
        block = [r for r in rows if (r["corpus"], r["representation"], r.get("seed", 0)) == key]
        diffs = [r["risk_gcul"] - r["risk_msp"] for r in block]
        e = estimate(diffs, 0.25)  # test/train = 0.2/0.8
        summary = {"corpus": corpus, "representation": method, "seed": seed, "diff": e.mean,
                   "diff_se": e.se, "coverage": float(np.mean([r["coverage"] for r in block]))}  # fmt: skip
        for column, *_ in PREDICTORS:
            summary[column] = float(np.mean([r[column] for r in block]))
        out.append(summary)
    return sorted(out, key=text_order)


def seed_spread(summary: list[dict]) -> list[dict]:
    """Per corpus × representation with more than one seed: the seeds, and the mean, smallest
    and largest seed mean of GCUL − MSP and of every predictor."""
    out = []
    for corpus, method in dict.fromkeys((t["corpus"], t["representation"]) for t in summary):
        block = [t for t in summary if (t["corpus"], t["representation"]) == (corpus, method)]
        if len(block) < 2:
            continue
        row: dict[str, Any] = {"corpus": corpus, "representation": method,
                               "seeds": [t["seed"] for t in block]}  # fmt: skip
        for column in ("diff", "coverage", *(c for c, *_ in PREDICTORS)):
            values = [t[column] for t in block]
            row[column] = (float(np.mean(values)), min(values), max(values))
        out.append(row)
    return out


# ------------------------------------------------------------------------------- outputs
def write_csv(path: Path, rows: list[dict]) -> None:
    """Rows as CSV (floats with repr: the same file on every run)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        # float() first: a NumPy float64 is a float whose repr is "np.float64(...)"
        writer.writerow({k: repr(float(v)) if isinstance(v, float) else v for k, v in row.items()})
    atomic_write_text(path, buffer.getvalue())


def axis_label(name: str, value: float) -> str:
    if name == "n_confusion":
        return f"{share(int(value)):.3f}"
    return f"{value:g}"


def plot_map(diagrams: list[dict], path: Path, n_seeds: int) -> None:
    """One panel per pair: GCUL − MSP (points), zero contour, Holm-significant cells marked.

    The colour scale has two slopes (0 at the centre, the most negative and the most positive
    cell at the ends), so GCUL's small wins are as visible as MSP's larger ones.
    """
    low = min(min(np.nanmin(d["diff"]) for d in diagrams) * 100.0, -0.01)
    high = max(max(np.nanmax(d["diff"]) for d in diagrams) * 100.0, 0.01)
    norm = matplotlib.colors.TwoSlopeNorm(vmin=low, vcenter=0.0, vmax=high)
    fig, axes = plt.subplots(2, 3, figsize=(15, 9.2), constrained_layout=True)
    for ax, d in zip(axes.flat, diagrams, strict=True):
        first, second = d["pair"]
        f, g = FACTORS[first], FACTORS[second]
        z = 100.0 * d["diff"]
        image = ax.imshow(z, origin="lower", cmap="PuOr_r", norm=norm, aspect="auto")
        if np.nanmin(z) < 0.0 < np.nanmax(z):
            ax.contour(np.arange(z.shape[1]), np.arange(z.shape[0]), z, levels=[0.0],
                       colors="black", linewidths=1.6)  # fmt: skip
        rows_, cols_ = np.nonzero(d["significant"])
        better = z[rows_, cols_] < 0
        ax.scatter(cols_[better], rows_[better], marker="o", s=22, c="white", edgecolors="black",
                   linewidths=0.8, label="GCUL lower, Holm-significant")  # fmt: skip
        ax.scatter(cols_[~better], rows_[~better], marker="x", s=24, c="black",
                   linewidths=1.2, label="MSP lower, Holm-significant")  # fmt: skip
        ax.set_xticks(range(len(g.grid)), [axis_label(second, v) for v in g.grid], fontsize=8)
        ax.set_yticks(range(len(f.grid)), [axis_label(first, v) for v in f.grid], fontsize=8)
        ax.set_xlabel(f"{g.symbol}: {g.title}", fontsize=8.5)
        ax.set_ylabel(f"{f.symbol}: {f.title}", fontsize=8.5)
        others = ", ".join(
            f"{FACTORS[n].symbol} = {axis_label(n, FACTORS[n].default)}"
            for n in NAMES if n not in (first, second)
        )  # fmt: skip
        ax.set_title(f"GCUL − MSP over {f.symbol} × {g.symbol} ({others})", fontsize=9)
    bar = fig.colorbar(
        image, ax=axes, shrink=0.6, label="GCUL − MSP selective risk at GCUL's coverage (points)"
    )
    negative = np.linspace(low, 0.0, 4)[:-1]
    positive = np.linspace(0.0, high, 5)
    bar.set_ticks(np.concatenate([negative, positive]))
    bar.ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%+.2f"))
    handles, labels = axes.flat[0].get_legend_handles_labels()
    handles.append(plt.Line2D([], [], color="black", lw=1.6))
    labels.append("sign boundary (zero contour)")
    fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=9)
    fig.suptitle(
        f"Where GCUL's rejection beats MSP's: orange = MSP lower risk, purple = GCUL lower "
        f"(two-slope colour scale); {n_seeds} seeds per cell, Holm over each panel's cells at "
        f"{ALPHA:.0%}",
        fontsize=11,
    )
    save_figure(fig, path)
    plt.close(fig)


def plot_predictors(
    summaries: list[dict], table: list[dict], text: list[dict], path: Path, n_seeds: int
) -> None:
    """GCUL − MSP of every setting against each predictor; held-out settings filled; text
    corpora as labelled markers."""
    fig, axes = plt.subplots(2, 3, figsize=(15, 8.6), constrained_layout=True)
    aucs = {r["predictor"]: r for r in table if r["settings"] == "all"}
    markers = {"oof_logistic": "s", "lsa": "^", "wordllama": "D", FT_REP: "*"}
    sizes = {FT_REP: 13}
    colours = {"carer": "#0072B2", "goemotions": "#D55E00"}
    for ax, (column, label, _, _) in zip(axes.flat, PREDICTORS, strict=True):
        for held, style in ((0, {"facecolors": "none", "edgecolors": "#999999"}),
                            (1, {"c": "#555555"})):  # fmt: skip
            pts = [s for s in summaries if s["held_out"] == held and np.isfinite(s["diff"])]
            ax.scatter([s[column] for s in pts], [100 * s["diff"] for s in pts], s=10, lw=0.6,
                       label="held-out setting" if held else "setting used for the choice",
                       **style)  # fmt: skip
        labelled = set()
        for t in text:
            key = (t["corpus"], t["representation"])
            if t["representation"] == FT_REP:  # one legend entry for all its seeds
                seeds = [u["seed"] for u in text if (u["corpus"], u["representation"]) == key]
                entry = f"{t['corpus']} / fine-tuned, held out (H), seeds {', '.join(map(str, seeds))}"
            else:
                entry = f"{t['corpus']} / {t['representation']}"
            ax.errorbar(t[column], 100 * t["diff"], yerr=100 * t["diff_se"], fmt=markers[t["representation"]],
                        color=colours[t["corpus"]], ms=sizes.get(t["representation"], 7), mec="black",
                        capsize=2, zorder=3,
                        label="_nolegend_" if key in labelled else entry)  # fmt: skip
            labelled.add(key)
        ax.axhline(0.0, color="black", lw=0.8)
        row = aucs[column]
        if np.isfinite(row["threshold"]):
            ax.axvline(row["threshold"], color="#009E73", lw=1.2, ls="--",
                       label="threshold chosen on the other half")  # fmt: skip
        ax.set_xlabel(label, fontsize=9)
        ax.set_ylabel("GCUL − MSP (points; < 0: GCUL better)", fontsize=9)
        ax.set_title(
            f"held-out AUC {row['auc']:.2f}; SE {row['auc_se']:.2f} (DeLong), "
            f"{row['auc_se_boot']:.2f} (bootstrap:\nseeds and settings)",
            fontsize=9.5,
        )
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=5, fontsize=8.5)
    fig.suptitle(
        "Does a training-split quantity predict whether GCUL beats MSP? One point per setting "
        f"(mean of {n_seeds} seeds); text corpora: mean ± SE over 5 splits (fine-tuned: one "
        "star per fine-tuning seed)",
        fontsize=11,
    )
    save_figure(fig, path)
    plt.close(fig)


def says_gcul(cut: dict, value: float) -> bool:
    """Whether a predictor's ``value`` is on GCUL's side of the threshold chosen on the map
    (``cut``: its row of the predictor table, all settings)."""
    sign = 1.0 if cut["orientation"].startswith("higher") else -1.0
    return sign * value > sign * cut["threshold"]


def fmt_points(mean: float, se: float, digits: int = 2) -> str:
    if not np.isfinite(mean):
        return "—"
    return f"{100 * mean:+.{digits}f} ± {100 * se:.{digits}f}"


def report(summaries, diagrams, table, text, text_check, meta) -> str:
    """The Markdown report: every table with a title line and its legend."""
    lines = [
        "# When does GCUL's rejection beat thresholding confidence? A regime map",
        "",
        meta["made_by"],
        "",
        f'Cites {PAPER} by section title: the synthetic protocol of "Synthetic phase-transition '
        'verification" (K = 5 classes in d = 10, centre scale 10, class radius r = 1.5, 2,000 '
        "samples per class, 80/20 split, training labels flipped with probability 0.025σ, test "
        "labels clean), with the confusion population's geometry as the factors below; the "
        'quantities S_GCUL (section "Selectivity score and monotonicity"), λ*_PRE (section '
        '"Effectiveness threshold and feasibility region", with the valid Hunter-Worsley bound of '
        'r1 in place of the printed one) and S_exist (Corollary "Structural Confidence and Dense '
        'Convergence").',
        "",
        "**Legend (every table).** σ: feature noise; a: confusion radius / class radius; t: shift "
        "of the confusion centre from the centres' mean toward class 0 (1 = on it); q: confusion "
        "share n_conf / n_total; b: label bias of the confusion samples toward their m = 2 nearest "
        "classes (0 = uniform labels). Defaults: "
        + ", ".join(f"{f.symbol} = {axis_label(n, f.default)}" for n, f in FACTORS.items())
        + ". coverage: share of the test samples GCUL accepts (mean over seeds). R: selective risk "
        "(error rate among accepted test samples, clean labels); "
        "R_GCUL of GCUL's own accept set; R_MSP and R_Bayes of the maximum-softmax and the exact "
        "Bayes-posterior rejectors at GCUL's coverage (the same accepted count; ties by expected "
        "value). GCUL − MSP: mean over seeds of the paired difference R_GCUL − R_MSP, in "
        "percentage points, ± its SE (sd/√n over seeds); negative = GCUL better. gap share: "
        "(R_MSP − R_GCUL)/(R_MSP − R_Bayes) of the seed means ± delta-method SE (1 = GCUL at the "
        "Bayes floor, 0 = at MSP, < 0 = worse than MSP; '—' when the MSP−Bayes gap is not above "
        "2 SE). ★: significant after Holm's correction over the cells of the phase diagram at "
        f"family-wise {ALPHA:.0%} (two-sided one-sample t test of the paired differences, n − 1 "
        f"df). n: seeds compared (of {meta['n_seeds']}; a seed where GCUL accepts no test sample has no "
        "selective risk).",
        "",
        "## One factor at a time (the others at default)",
        "",
        "Table 1. GCUL against MSP and the Bayes floor along each factor; the row at the default "
        "setting is the same in every block.",
        "",
        "| factor | value | coverage | R_GCUL (%) | R_MSP (%) | R_Bayes (%) | GCUL − MSP (points) | gap share | n |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    default = {n: f.default for n, f in FACTORS.items()}
    index = {tuple(s[n] for n in NAMES): s for s in summaries}
    for name, f in FACTORS.items():
        for v in f.grid:
            values = default | {name: v}
            s = index[tuple(values[n] for n in NAMES)]
            star = " ★" if s["significant_any"] else ""
            shown_gap = (
                f"{s['gap_share']:+.2f} ± {s['gap_share_se']:.2f}"
                if np.isfinite(s["gap_share"]) and s["msp_bayes_gap"] > 2 * s["msp_bayes_gap_se"]
                else "—"
            )
            lines.append(
                f"| {f.symbol} | {axis_label(name, v)} | {s['coverage']:.3f} | "
                f"{100 * s['risk_gcul']:.2f} | {100 * s['risk_msp']:.2f} | {100 * s['risk_bayes']:.2f} | "
                f"{fmt_points(s['diff'], s['diff_se'])}{star} | {shown_gap} | {s['seeds_compared']} |"
            )
    lines += ["", "## Phase diagrams", "",
              "Figure `regime_map.png`: GCUL − MSP over two factors at a time (the others at "
              "default), the sign boundary (zero contour) and the Holm-significant cells marked "
              "(○ GCUL lower, × MSP lower). The tables give the same numbers.", ""]  # fmt: skip
    for k, d in enumerate(diagrams, start=2):
        first, second = d["pair"]
        f, g = FACTORS[first], FACTORS[second]
        n_sig = int(d["significant"].sum())
        n_better = int((d["significant"] & (d["diff"] < 0)).sum())
        lines += [
            f"Table {k}. GCUL − MSP (points) over {f.symbol} (rows) × {g.symbol} (columns); "
            f"{n_sig} of {d['diff'].size} cells significant after Holm ({n_better} with GCUL "
            "lower).",
            "",
            f"| {f.symbol} \\ {g.symbol} | "
            + " | ".join(axis_label(second, v) for v in g.grid)
            + " |",
            "|---|" + "--:|" * len(g.grid),
        ]
        for i, u in enumerate(f.grid):
            cells = []
            for j in range(len(g.grid)):
                mark = "★" if d["significant"][i, j] else ""
                cells.append(f"{100 * d['diff'][i, j]:+.2f}{mark}")
            lines.append(f"| {axis_label(first, u)} | " + " | ".join(cells) + " |")
        lines.append("")
    n_all = len(summaries)
    lines += [
        "## Does the theory predict the sign?",
        "",
        f"Each setting's outcome is the sign of its mean GCUL − MSP (settings with exactly 0 "
        f"left out); its predictor value is the mean over its seeds of the quantity computed on "
        f"the training split only (labels as observed, i.e. partly flipped). The {n_all} settings "
        f"were split at random in two halves (seed {HALF_SEED}); each predictor's orientation "
        '(which sign means "GCUL better") and threshold (the cut of highest accuracy) were '
        "chosen on the first half (within each block); AUC and accuracy are on the held-out "
        "half only. Blocks: all settings; only the settings whose difference is Holm-significant "
        "in some diagram (clear outcomes); only the settings at the default noise "
        f"σ = {FACTORS['sigma'].default:g}, where the geometry varies and σ does not (σ alone "
        "separates much of the map: the training error ε, which knows nothing of the geometry, "
        "is the reference).",
        "",
        "Predictors. S_GCUL: the paper's selectivity score of GCUL's own rejection on the training "
        "split (its r1 = share of phase-1 errors it rejects, r2 = share of correct samples it "
        "rejects; S > λ iff rejecting pays at cost λ = 0.15); λ*_PRE: the valid Hunter-Worsley "
        "bound's predicted critical cost; S_exist: the lower bound on the structural existence "
        "confidence; ΔS_eq (derived here): S of GCUL's rejection minus S of MSP's at the same "
        "training rejection rate ρ — at equal ρ, S = ε(r1 − ρ)/(ρ(1 − ρ)), so ΔS_eq > 0 iff GCUL's "
        "accept set holds fewer phase-1 errors than MSP's (`gcul prove --claim equal_coverage`); "
        "Δ_train: R_GCUL − R_MSP measured on the training split at GCUL's training coverage (a "
        "plug-in estimate of the outcome); ε: phase 1's training error (knows nothing of the "
        "geometry; a reference). AUC: probability that a held-out setting where GCUL is better "
        "ranks above one where MSP is (ties ½), ± DeLong's SE, which treats the held-out settings as "
        "independent; they are not (every setting runs the same seeds, and a seed fixes the class "
        "centres and every other draw), so bootstrap SE: the SD of the held-out AUC over "
        f"{N_BOOT} replicates that redraw the seeds (once for all settings) and the held-out "
        f"settings (seed {BOOT_SEED}; orientation kept); accuracy: of the threshold chosen "
        "on the other half; theory's rule: the accuracy of the rule the theory itself states, "
        "where there is one (no choice made); majority: accuracy of always predicting the "
        "held-out majority.",
        "",
        f'Table {len(diagrams) + 2}. Held-out ROC AUC of each predictor for "GCUL beats MSP".',
        "",
        "| settings | predictor | kind | orientation | AUC (choice half) | held-out AUC ± SE | "
        "bootstrap SE | held-out accuracy | theory's rule: accuracy | majority | "
        "held-out n (GCUL better) |",
        "|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for r in table:
        rule = f"{r['natural_rule']}: {r['natural_accuracy']:.2f}" if r["natural_rule"] else "—"
        lines.append(
            f"| {r['settings']} | {r['label']} | {r['kind']} | {r['orientation']} | "
            f"{r['auc_choice']:.3f} | {r['auc']:.3f} ± {r['auc_se']:.3f} | "
            f"{r['auc_se_boot']:.3f} | {r['accuracy']:.2f} | "
            f"{rule} | {r['majority_accuracy']:.2f} | {r['n_held_out']} ({r['n_gcul_better_held_out']}) |"
        )
    lines.append("")
    lines.append("Figure `predictors.png`: GCUL − MSP of every setting against each predictor.")
    lines.append("")
    if text:
        lines += [
            "## The text corpora on the map",
            "",
            "GoEmotions and dair-ai/emotion (CARER) in the representations of "
            "`benchmarks/text_emotion.py`, each split's predictors from its training part. The "
            "three stand-ins (out-of-fold TF-IDF scores, LSA, WordLlama with unit rows): the "
            "pooled corpora, its 5 stratified 80/20 splits (seed 0), the same GCUL as its "
            "`gcul compare` run. The fine-tuned encoder (`finetuned_heldout`, one row per "
            "fine-tuning seed), under that benchmark's held-out protocol (H): only the rows the "
            "encoder never saw (validation + test, pooled), the same 5 stratified splits of them, "
            "every model fitted on a split's training part; the encoder's own training rows, "
            "which it fits better than new text, are never used. GCUL − MSP at GCUL's coverage "
            f"recomputed here on each test part; {text_check.text()}. ± is Nadeau & Bengio's "
            "corrected SE over the splits (they overlap). "
            'Predicted: "GCUL better" or "MSP better" by each predictor\'s threshold chosen on '
            "the synthetic settings (Table above, all settings).",
            "",
            f"Table {len(diagrams) + 3}. Text corpora: outcome and predictors (means over splits).",
            "",
            "| corpus | representation | coverage | GCUL − MSP (points) | "
            + " | ".join(label.split(" (")[0].split(" = ")[0] for _, label, *_ in PREDICTORS)
            + " |",
            "|---|---|--:|--:|" + "--:|" * len(PREDICTORS),
        ]
        cuts = {r["predictor"]: r for r in table if r["settings"] == "all"}
        for t in text:
            cells = []
            for column, *_ in PREDICTORS:
                says = "GCUL" if says_gcul(cuts[column], t[column]) else "MSP"
                cells.append(f"{t[column]:.3f} ({says})")
            lines.append(
                f"| {t['corpus']} | {text_label(t)} | {t['coverage']:.3f} | "
                f"{fmt_points(t['diff'], t['diff_se'])} | " + " | ".join(cells) + " |"
            )
        lines.append("")
        for spread in seed_spread(text):
            lo_hi = {c: spread[c] for c in ("diff", "coverage", "delta_s_eq", "delta_train")}
            lines.append(
                f"{spread['corpus']}, {spread['representation']} over fine-tuning seeds "
                f"{', '.join(map(str, spread['seeds']))}: GCUL − MSP "
                f"{100 * lo_hi['diff'][0]:+.2f} points on average [smallest "
                f"{100 * lo_hi['diff'][1]:+.2f}, largest {100 * lo_hi['diff'][2]:+.2f}], coverage "
                f"{lo_hi['coverage'][0]:.3f} [{lo_hi['coverage'][1]:.3f}, {lo_hi['coverage'][2]:.3f}], "
                f"ΔS_eq {lo_hi['delta_s_eq'][0]:.3f} [{lo_hi['delta_s_eq'][1]:.3f}, "
                f"{lo_hi['delta_s_eq'][2]:.3f}], Δ_train {lo_hi['delta_train'][0]:.3f} "
                f"[{lo_hi['delta_train'][1]:.3f}, {lo_hi['delta_train'][2]:.3f}]."
            )
            lines.append("")
        sigma_rows = sigma_axis(summaries)
        lines += [
            f"Table {len(diagrams) + 4}. Text corpora on the σ axis: σ̂ is the σ at which the "
            "default geometry's mean training error ε equals the corpus's (linear interpolation "
            "between grid values; '< 0' or '> 10' off the grid), and the map's GCUL − MSP at σ̂ "
            "(interpolated the same way; at the nearest end off the grid) is what the map would "
            "predict there. Only σ is placed: the other factors are parameters of the "
            "generator (a confusion centre, radius, share and label law) that a corpus does not "
            "expose, and GCUL's rejection rate is not the confusion share (on the map it is "
            "close to q only at low noise and moves with σ). same sign: whether the map's value "
            "at σ̂ and the measured difference are both negative or both not.",
            "",
            "| corpus | representation | ε (training) | σ̂ | map's GCUL − MSP at σ̂ (points) | "
            "measured GCUL − MSP (points) | same sign |",
            "|---|---|--:|--:|--:|--:|---|",
        ]
        for t in text:
            sigma_hat, predicted = place_on_sigma(sigma_rows, t["eps_train"])
            lines.append(
                f"| {t['corpus']} | {text_label(t)} | {t['eps_train']:.3f} | {sigma_hat} | "
                f"{100 * predicted:+.2f} | {fmt_points(t['diff'], t['diff_se'])} | "
                f"{'yes' if (predicted < 0) == (t['diff'] < 0) else 'no'} |"
            )
        lines.append("")
    return "\n".join(lines)


def sigma_axis(summaries: list[dict]) -> list[dict]:
    """The settings of the default geometry, one per σ of the grid, in σ order."""
    default = {n: f.default for n, f in FACTORS.items() if n != "sigma"}
    rows = [s for s in summaries if all(s[n] == v for n, v in default.items())]
    return sorted(rows, key=lambda s: s["sigma"])


def place_on_sigma(rows: list[dict], eps: float) -> tuple[str, float]:
    """σ̂ (as text) where the default geometry's training error is ``eps``, and the map's
    GCUL − MSP there (both by linear interpolation on the σ grid; the end value off it)."""
    errors = np.array([r["eps_train"] for r in rows])
    sigmas = np.array([r["sigma"] for r in rows])
    diffs = np.array([r["diff"] for r in rows])
    if not np.all(np.diff(errors) > 0):  # interpolation needs ε increasing in σ
        return "—", math.nan
    predicted = float(np.interp(eps, errors, diffs))
    if eps < errors[0]:
        return f"< {sigmas[0]:g}", predicted
    if eps > errors[-1]:
        return f"> {sigmas[-1]:g}", predicted
    return f"{float(np.interp(eps, errors, sigmas)):.1f}", predicted


def main(argv: list[str] | None = None) -> int:
    parser = Parser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("benchmarks/regime_map"))
    parser.add_argument("--jobs", type=positive_int, default=2)
    parser.add_argument("--seeds", type=int, default=len(SEEDS), help=argparse.SUPPRESS)
    parser.add_argument("--corpora", type=Path, default=None)
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument(
        "--compare-csv",
        type=Path,
        default=Path(__file__).resolve().parent / "text_emotion" / "compare.csv",
    )
    parser.add_argument(
        "--finetuned",
        type=Path,
        default=None,
        metavar="DIR",
        help="with --corpora: a fine-tuned encoder's representations, DIR/<corpus>/seed<k>/ "
        "(the text benchmark's --finetuned), placed on the map under its held-out protocol (H)",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--tables-only",
        action="store_true",
        help="recompute the tables and figures from the CSV files already in --out",
    )
    mode.add_argument(
        "--text-only",
        action="store_true",
        help="with --corpora: recompute only the text rows (text.csv), then every table and "
        "figure, from cells.csv already in --out",
    )
    args = parser.parse_args(argv)
    for flag, given in (("--tables-only", args.tables_only), ("--text-only", args.text_only)):
        if given and not (args.out / "cells.csv").is_file():
            parser.error(f"{flag}: no cells.csv in --out {str(args.out)!r}; run the study first")
    if args.text_only and args.corpora is None:
        parser.error("--text-only recomputes the text rows: it needs --corpora")
    if args.finetuned is not None and (args.corpora is None or args.tables_only):
        parser.error("--finetuned needs --corpora (its labels are checked against the corpora's)")
    try:  # a real write now, not after the study's minutes of work
        prepare_out_folder(args.out, "--out")
        # the fine-tuned folders read and checked now, before the study's minutes of work
        finetuned = finetuned_inputs(args.finetuned, args.corpora) if args.finetuned else None
    except (ValueError, OSError) as error:
        parser.error(str(error).splitlines()[0])
    setting_list = settings()
    if args.tables_only or args.text_only:
        rows = read_csv(args.out / "cells.csv")
        seeds = tuple(sorted({r["seed"] for r in rows}))
        previous = (args.out / "regime_map.md").read_text(encoding="utf-8").splitlines()
        command = previous[2]  # the "Made by ..." line, kept as it was
        if args.text_only:
            text, text_timing = timed_text_rows(args, finetuned)
            command = with_text_timing(command, args, text_timing)
        else:
            text = read_csv(args.out / "text.csv") if (args.out / "text.csv").is_file() else []
    else:
        seeds = SEEDS[: args.seeds]
        rows, text, timing = compute(args, setting_list, seeds, finetuned)
        command = None
    summaries = summarise_settings(rows, setting_list)
    for s in summaries:
        s["significant_any"] = 0
    diagrams = [diagram(summaries, pair) for pair in PAIRS]
    for d in diagrams:
        for cell, sig in zip(d["cells"], d["significant"].ravel(), strict=True):
            cell["significant_any"] = max(cell["significant_any"], int(sig))
    table = predictor_table(summaries)
    bootstrap_auc_se(rows, summaries, table)
    text_summary = summarise_text(text) if text else []
    text_check = check_against_compare(text, args.compare_csv)
    args.out.mkdir(parents=True, exist_ok=True)
    write_csv(args.out / "cells.csv", rows)
    write_csv(args.out / "settings.csv", summaries)
    write_csv(args.out / "predictors.csv", table)
    if text:
        write_csv(args.out / "text.csv", text)
    plot_map(diagrams, args.out / "regime_map.png", len(seeds))
    plot_predictors(summaries, table, text_summary, args.out / "predictors.png", len(seeds))
    if command is None:
        command = (
            f"Made by `PYTHONPATH=$PWD python benchmarks/regime_map.py --out {args.out} "
            f"--jobs {args.jobs}"
            + (" --corpora CORPORA --cache CACHE" if args.corpora is not None else "")
            + (" --finetuned FINETUNED" if args.finetuned is not None else "")
            + f"` (simulations {simulations.__version__}, Python {platform.python_version()}, "
            f"NumPy {np.__version__}, {platform.machine()}, BLAS on one thread). {timing}"
        )
    meta = {"made_by": command, "n_seeds": len(seeds)}
    atomic_write_text(
        args.out / "regime_map.md",
        report(summaries, diagrams, table, text_summary, text_check, meta) + "\n",
    )
    print(command, file=sys.stderr)
    return 0


def compute(
    args: argparse.Namespace,
    setting_list: list[Setting],
    seeds: Sequence[int],
    finetuned: dict[str, list[tuple]] | None = None,
):
    """Run every cell (and the text corpora with ``--corpora``): ``(rows, text rows, timing)``."""
    started = time.perf_counter()
    tasks = [(i, s, seeds) for i, s in enumerate(setting_list)]
    if args.jobs > 1:
        from joblib import Parallel, delayed

        results = Parallel(n_jobs=args.jobs, backend="loky", batch_size=1)(
            delayed(setting_task)(*t) for t in tasks
        )
    else:
        results = [setting_task(*t) for t in tasks]
    results.sort(key=lambda r: r[0])
    rows = [row for _, block, _ in results for row in block]
    cpu_cells = sum(c for *_, c in results)
    wall = time.perf_counter() - started
    timing = (
        f"{len(setting_list)} settings × {len(seeds)} seeds = {len(rows)} cells: "
        f"{cpu_cells:.0f} s CPU in the cells, {wall:.0f} s wall with {args.jobs} worker(s)"
    )
    text: list[dict] = []
    if args.corpora is not None:
        text, text_timing = timed_text_rows(args, finetuned)
        timing += f"; {text_timing}"
    return rows, text, timing + "."


def timed_text_rows(
    args: argparse.Namespace, finetuned: dict[str, list[tuple]] | None
) -> tuple[list[dict], str]:
    """:func:`text_rows` of ``--corpora`` (and ``--finetuned``), and a clause saying its time."""
    t0 = time.perf_counter()
    text = text_rows(args.corpora, args.cache, args.jobs, finetuned)
    cpu_text = sum(r.pop("cpu_seconds") for r in text)
    return text, (
        f"text corpora: {cpu_text:.0f} s CPU, {time.perf_counter() - t0:.0f} s wall "
        "(representations cached)"
    )


def with_text_timing(made_by: str, args: argparse.Namespace, text_timing: str) -> str:
    """The report's "Made by" line after ``--text-only``: the cells' part kept, the text part
    (an earlier run's ``; text corpora: ...`` clause, if any) replaced by this run's."""
    kept = re.sub(r"; text corpora: [^;.]*\(representations cached\)", "", made_by)
    kept = kept.split(" Then `--text-only")[0]  # an earlier --text-only run's clause
    rerun = (
        "`--text-only --corpora CORPORA --cache CACHE"
        + (" --finetuned FINETUNED" if args.finetuned is not None else "")
        + f" --jobs {args.jobs}` recomputed the text rows (simulations {simulations.__version__}, "
        f"NumPy {np.__version__}): {text_timing}."
    )
    return f"{kept} Then {rerun}"


def read_csv(path: Path) -> list[dict]:
    """Rows of a CSV this script wrote: integers as int, other numbers as float, text as is."""
    out = []
    with path.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            parsed = {}
            for key, value in row.items():
                try:
                    parsed[key] = int(value)
                except ValueError:
                    try:
                        parsed[key] = float(value)
                    except ValueError:
                        parsed[key] = value
            out.append(parsed)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
