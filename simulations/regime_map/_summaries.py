"""The regime map's summaries: per setting, per phase diagram, per predictor.

- :func:`summarise_settings`: one row per setting, the paired difference GCUL − MSP over seeds
  (mean ± SE, its two-sided t test), the share of the MSP-to-Bayes gap GCUL recovers and each
  predictor's mean; the settings split in two random halves (seed :data:`HALF_SEED`);
- :func:`phase_diagrams` (:func:`diagram`): the grid of each pair of :data:`PAIRS`, with
  Holm's rejections over its cells at family-wise :data:`ALPHA`;
- :func:`predictor_table`: each predictor's orientation and threshold chosen on one half, its
  ROC AUC (± DeLong's SE) and accuracy on the other; :func:`add_bootstrap_se` adds the
  bootstrap SE that also redraws the seeds the settings share
  (:func:`simulations.statistics.auc_bootstrap_se`);
- :func:`sigma_axis`, :func:`place_on_sigma`: a dataset placed on the map's σ axis by its
  training error; :func:`says_gcul`: a predictor's verdict at its chosen threshold.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from simulations.regime_map._grid import (
    ALPHA,
    BOOT_SEED,
    FACTORS,
    HALF_SEED,
    LAM,
    N_BOOT,
    NAMES,
    PAIRS,
    Setting,
    share,
)
from simulations.statistics import (
    auc_bootstrap_se,
    best_threshold,
    delong_se,
    gap_share,
    holm,
    one_sample_t_pvalue,
    paired_difference,
    roc_auc,
)
from simulations.training_predictors import TRAINING_PREDICTORS, theory_rule
from simulations.validation import check_int, check_real

__all__ = [
    "BLOCKS",
    "PREDICTORS",
    "add_bootstrap_se",
    "diagram",
    "phase_diagrams",
    "place_on_sigma",
    "predictor_table",
    "says_gcul",
    "sigma_axis",
    "summarise_settings",
]

PREDICTORS = tuple((p.column, p.label, p.kind, p.rule) for p in TRAINING_PREDICTORS)
"""(column, label, kind, the rule the theory itself gives for "GCUL beats MSP", if any)."""


def summarise_settings(rows: list[dict], setting_list: list[Setting]) -> list[dict]:
    """One row per setting: the paired difference, its test, the gap share, predictor means.

    Parameters
    ----------
    rows : list of dict
        One row per cell (setting × seed), as :func:`setting_task` writes them: ``setting``
        (an index into ``setting_list``), ``coverage``, ``risk_gcul``, ``risk_msp``,
        ``risk_bayes`` and every column of :data:`PREDICTORS`.
    setting_list : list of tuple
        The settings, e.g. :func:`settings`; every one needs at least one row.

    Returns
    -------
    list of dict
        Per setting, in order: its index and factors, ``share``, ``seeds`` and ``seeds_compared``
        (the seeds where GCUL accepted a test sample), the mean ``coverage`` and selective risks,
        ``diff`` = mean of R_GCUL − R_MSP ± ``diff_se`` (sd/√n over seeds, by
        :func:`simulations.statistics.paired_difference`) and its two-sided t test's
        ``p_value``; the MSP-to-Bayes gap ± SE and the ``gap_share`` GCUL recovers ± its
        delta-method SE (:func:`simulations.statistics.gap_share`); ``held_out`` (1 for the half
        of the settings drawn with seed :data:`HALF_SEED` to judge the predictors on, 0 for the
        half that chooses them), then each predictor's mean over seeds.

    Raises
    ------
    ValueError
        If a setting of ``setting_list`` has no row, or a row names a setting not in it.
    """
    if {row["setting"] for row in rows} != set(range(len(setting_list))):
        raise ValueError(
            f"rows must hold every setting 0..{len(setting_list) - 1} of setting_list and no other"
        )
    by_setting: dict[int, list[dict]] = {}
    for row in rows:
        by_setting.setdefault(row["setting"], []).append(row)
    halves = np.random.default_rng(np.random.SeedSequence(HALF_SEED)).permutation(len(setting_list))
    held_out = set(halves[len(setting_list) // 2 :].tolist())
    out = []
    for index, setting in enumerate(setting_list):
        block = by_setting[index]
        col: dict[str, Any] = {
            k: np.array([r[k] for r in block], float) for k in block[0] if k != "setting"
        }
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
    """The grid of one pair: GCUL − MSP, its SE, and Holm's rejections over its cells.

    Parameters
    ----------
    summaries : list of dict
        :func:`summarise_settings`' rows; they must hold the pair's full grid (the other
        factors at default).
    pair : tuple of str
        ``(y factor, x factor)``, two names of :data:`FACTORS`.

    Returns
    -------
    dict
        ``pair``; ``diff`` and ``se``, arrays of shape (len(y grid), len(x grid)) of the mean
        GCUL − MSP and its SE; ``significant``, the same shape, Holm's step-down rejections of
        the cells' t tests at family-wise :data:`ALPHA`
        (:func:`simulations.statistics.holm`); ``cells``, the summaries row by row.

    Raises
    ------
    ValueError
        If ``pair`` is not two different factors, or a cell of its grid has no summary.
    """
    if len(pair) != 2 or pair[0] == pair[1] or not set(pair) <= set(FACTORS):
        raise ValueError(f"pair must be two different factors of {', '.join(FACTORS)}; got {pair!r}")
    first, second = pair
    f, g = FACTORS[first], FACTORS[second]
    default = {name: fac.default for name, fac in FACTORS.items()}
    index = {tuple(s[n] for n in NAMES): s for s in summaries}
    cells = []
    for u in f.grid:
        for v in g.grid:
            values = default | {first: u, second: v}
            key = tuple(values[n] for n in NAMES)
            if key not in index:
                raise ValueError(f"summaries lack the setting {key} of the {first} × {second} grid")
            cells.append(index[key])
    shape = (len(f.grid), len(g.grid))
    diff = np.array([c["diff"] for c in cells]).reshape(shape)
    se = np.array([c["diff_se"] for c in cells]).reshape(shape)
    significant = holm([c["p_value"] for c in cells], ALPHA).reshape(shape)
    return {"pair": pair, "diff": diff, "se": se, "significant": significant, "cells": cells}


def phase_diagrams(summaries: list[dict]) -> list[dict[str, Any]]:
    """Every phase diagram of :data:`PAIRS`; marks each summary's ``significant_any``.

    Holm's correction is over the cells of one diagram at a time (family-wise :data:`ALPHA`);
    a setting is ``significant_any`` if it is significant in at least one diagram.

    Parameters
    ----------
    summaries : list of dict
        :func:`summarise_settings`' rows; each gets (or has reset) the column
        ``significant_any``: 1 if its difference is Holm-significant in some diagram, else 0.

    Returns
    -------
    list of dict
        :func:`diagram` of each pair, in the order of :data:`PAIRS`.
    """
    for s in summaries:
        s["significant_any"] = 0
    diagrams = [diagram(summaries, pair) for pair in PAIRS]
    for d in diagrams:
        for cell, sig in zip(d["cells"], d["significant"].ravel(), strict=True):
            cell["significant_any"] = max(cell["significant_any"], int(sig))
    return diagrams


BLOCKS = {
    "all": lambda s: True,
    "Holm-significant": lambda s: bool(s["significant_any"]),
    f"σ = {FACTORS['sigma'].default:g} only": lambda s: s["sigma"] == FACTORS["sigma"].default,
}
"""The blocks of settings of the predictor table: a name and which settings it keeps."""


def predictor_table(summaries: list[dict]) -> list[dict]:
    """Per predictor: orientation and threshold chosen on one half, AUC ± SE on the other.

    A setting's outcome is "GCUL better" when its mean GCUL − MSP is below 0 (settings with a
    difference of exactly 0, or NaN, are left out). Within each block of :data:`BLOCKS`, each
    predictor's orientation (which sign means "GCUL better": the one whose AUC is at least ½)
    and its threshold (the cut of highest accuracy,
    :func:`simulations.statistics.best_threshold`) are chosen on the settings with
    ``held_out == 0``; the AUC (:func:`simulations.statistics.roc_auc`), DeLong's SE and the
    threshold's accuracy are measured on those with ``held_out == 1``, beside the accuracy of
    the rule the theory itself states (:func:`simulations.training_predictors.theory_rule`, cost
    :data:`LAM`) and of always predicting the held-out majority.

    Parameters
    ----------
    summaries : list of dict
        :func:`summarise_settings`' rows after :func:`phase_diagrams` (which adds
        ``significant_any``).

    Returns
    -------
    list of dict
        One row per block × predictor (blocks in :data:`BLOCKS`' order, predictors in
        :data:`PREDICTORS`' order): ``predictor``, ``label``, ``kind``, ``settings`` (the block),
        ``n_choice``, ``n_held_out``, ``n_gcul_better_held_out``, ``orientation``,
        ``auc_choice``, ``auc``, ``auc_se``, ``threshold``, ``accuracy``, ``natural_rule``,
        ``natural_accuracy``, ``majority_accuracy``.

    Raises
    ------
    ValueError
        If a summary lacks a column the table reads (run :func:`phase_diagrams` first).
    """
    needed = {"diff", "held_out", "significant_any", "sigma", *(c for c, *_ in PREDICTORS)}
    for s in summaries:
        if not needed <= set(s):
            raise ValueError(f"a summary lacks {sorted(needed - set(s))}; run phase_diagrams first")
    usable = [s for s in summaries if np.isfinite(s["diff"]) and s["diff"] != 0.0]
    choice = [s for s in usable if not s["held_out"]]
    test = [s for s in usable if s["held_out"]]
    out = []
    for block, keep in BLOCKS.items():
        c_set = [s for s in choice if keep(s)]
        t_set = [s for s in test if keep(s)]
        y_c: Any = np.array([s["diff"] < 0 for s in c_set])
        y_t: Any = np.array([s["diff"] < 0 for s in t_set])
        for column, label, kind, rule in PREDICTORS:
            x_c: Any = np.array([s[column] for s in c_set])
            x_t: Any = np.array([s[column] for s in t_set])
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


def add_bootstrap_se(
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
    fewer than two remain. The resampling itself is :func:`simulations.statistics.auc_bootstrap_se`;
    this function arranges the study's rows for it.

    Parameters
    ----------
    rows : list of dict
        One row per cell: ``setting`` (the index of its summary's ``setting``), ``seed``,
        ``risk_gcul``, ``risk_msp`` and every column of :data:`PREDICTORS`.
    summaries : list of dict
        :func:`summarise_settings`' rows after :func:`phase_diagrams`.
    table : list of dict
        :func:`predictor_table`'s rows (their ``settings``, ``predictor`` and ``orientation``
        are read); each gets ``auc_se_boot``.
    n_boot : int, default :data:`N_BOOT`
        Bootstrap replicates (at least 1).
    seed : int, default :data:`BOOT_SEED`
        The bootstrap's seed.

    Raises
    ------
    ValueError
        If ``n_boot`` is below 1 or a row names a setting that no summary has.
    """
    n_boot = check_int("n_boot", n_boot, low=1)
    known = {s["setting"] for s in summaries}
    if any(r["setting"] not in known for r in rows):
        raise ValueError("rows name a setting that no summary has")
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



def sigma_axis(summaries: list[dict]) -> list[dict]:
    """The settings of the default geometry, one per σ of the grid, in σ order.

    Parameters
    ----------
    summaries : list of dict
        :func:`summarise_settings`' rows (or rows read back from ``settings.csv``).

    Returns
    -------
    list of dict
        The rows whose factors other than σ are at their default, sorted by σ.
    """
    default = {n: f.default for n, f in FACTORS.items() if n != "sigma"}
    rows = [s for s in summaries if all(s[n] == v for n, v in default.items())]
    return sorted(rows, key=lambda s: s["sigma"])


def place_on_sigma(rows: list[dict], eps: float) -> tuple[str, float]:
    """σ̂ (as text) where the default geometry's training error is ``eps``, and the map's
    GCUL − MSP there (both by linear interpolation on the σ grid; the end value off it).

    Parameters
    ----------
    rows : list of dict
        :func:`sigma_axis`' rows (``sigma``, ``eps_train``, ``diff``), at least one.
    eps : float
        A dataset's training error ε, in [0, 1].

    Returns
    -------
    sigma_hat : str
        σ̂ to one decimal, or ``"< σ_min"`` / ``"> σ_max"`` off the grid, or ``"—"`` if the
        training error does not increase with σ along ``rows`` (no interpolation then).
    predicted : float
        The map's GCUL − MSP at σ̂ (at the nearest end off the grid; NaN with ``"—"``).

    Raises
    ------
    ValueError
        If ``rows`` is empty or ``eps`` is not in [0, 1].
    """
    eps = check_real("eps", eps, 0.0, 1.0)
    if not rows:
        raise ValueError("rows must hold at least one setting of the σ axis; got none")
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



def says_gcul(cut: dict, value: float) -> bool:
    """Whether a predictor's ``value`` is on GCUL's side of the threshold chosen on the map.

    Parameters
    ----------
    cut : dict
        The predictor's row of :func:`predictor_table` (its ``orientation`` and ``threshold``).
    value : float
        The predictor's value on a dataset.

    Returns
    -------
    bool
        True if the threshold rule says "GCUL better" (strictly beyond the threshold on the
        side its orientation names).
    """
    sign = 1.0 if cut["orientation"].startswith("higher") else -1.0
    return sign * value > sign * cut["threshold"]
