"""The regime map's report: every table in Markdown, each with a title line and its legend."""

from __future__ import annotations

import numpy as np

from simulations.regime_map._figures import axis_label
from simulations.regime_map._grid import ALPHA, BOOT_SEED, FACTORS, HALF_SEED, N_BOOT, NAMES
from simulations.regime_map._summaries import PREDICTORS, place_on_sigma, says_gcul, sigma_axis
from simulations.regime_map._text import seed_spread, text_label

__all__ = ["PAPER", "fmt_points", "report"]

PAPER = 'the GCUL paper ("Ambiguity identification in text emotion classification via cluster-guided learning")'
"""How the report names the paper it cites (by title, never by a file path)."""


def fmt_points(mean: float, se: float, digits: int = 2) -> str:
    """A difference of rates in percentage points, ± its SE, as the report prints it.

    Parameters
    ----------
    mean, se : float
        The difference and its SE, as rates (0.01 is one point).
    digits : int, default 2
        Decimals.

    Returns
    -------
    str
        ``"+1.23 ± 0.45"``, or ``"—"`` when ``mean`` is not finite.

    Examples
    --------
    >>> from simulations.regime_map import fmt_points
    >>> fmt_points(-0.0123, 0.0045), fmt_points(float("nan"), 0.0)
    ('-1.23 ± 0.45', '—')
    """
    if not np.isfinite(mean):
        return "—"
    return f"{100 * mean:+.{digits}f} ± {100 * se:.{digits}f}"


def report(summaries, diagrams, table, text, text_check, meta) -> str:
    """The Markdown report: every table with a title line and its legend.

    Parameters
    ----------
    summaries : list of dict
        :func:`summarise_settings`' rows after :func:`phase_diagrams`.
    diagrams : list of dict
        :func:`phase_diagrams`' result.
    table : list of dict
        :func:`predictor_table`'s rows with ``auc_se_boot``.
    text : list of dict
        :func:`summarise_text`' rows; empty leaves the text section out.
    text_check : CompareCheck
        :func:`check_against_compare`'s result (worded in the text section).
    meta : dict
        ``made_by``: the line saying how the report was made; ``n_seeds``: seeds per setting.

    Returns
    -------
    str
        The report, without a final newline: Table 1 (one factor at a time), a table per phase
        diagram, the predictor table, and with ``text`` the text corpora and their σ̂.
    """
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
