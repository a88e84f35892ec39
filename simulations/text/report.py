r"""The text benchmark's report: ``text_emotion.md`` and the README's table, from the per-split rows.

:func:`render` writes the whole report (the findings, then the tables (i)–(v) of
:mod:`simulations.text.tables`, each with a title that says what it shows and which of the GCUL
paper's tables or figures it stands for, by title); :func:`readme_findings` writes the
README's summary of the text results. Both are functions of the rows read back from the CSV
files (:func:`simulations.text.csv_rows.tables_from_csv`) and the run's facts (data notes, CPU
seconds, wall time, command), so a test recomputes them.
"""

from __future__ import annotations

import math
import os
import platform
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

import simulations
from simulations.compare import estimate, verdict
from simulations.registry import PAPER_METHOD
from simulations.text.measures import REDUCED, VALID
from simulations.text.paper_values import PAPER_GCUL, PAPER_KAGGLE
from simulations.text.study import CORPORA, CORPUS_TITLE, LAM, SEED, TEST_SIZE
from simulations.text.tables import (
    KNOB_TITLE,
    SHORT,
    Rows,
    fmt,
    ratio_of,
    reps_in,
    screening_rows,
    select,
    table_benchmark,
    table_compare,
    table_cores,
    table_operating,
    table_screening,
    table_sweep,
)
from simulations.text.tasks import ALL_REPS, FT_REPS, FT_SPLITS

__all__ = ["README_NAME", "README_REPS", "readme_findings", "render", "seed_means", "verdict_cell"]


README_REPS = ("oof_logistic", "wordllama", "finetuned_paper", "finetuned_valtest")
"""The representations the README's table shows, in order."""
README_NAME = {
    "oof_logistic": "(a) TF-IDF + LR scores, 5 splits",
    "wordllama": "(c) WordLlama, unit rows, 5 splits",
    "finetuned_paper": "(d) fine-tuned MiniLM, (P) the paper's protocol",
    "finetuned_valtest": "(d) fine-tuned MiniLM, (H) held out",
}


def _range(values: Sequence[float], scale: float, digits: int) -> str:
    """``mean`` for one value, ``mean [smallest, largest]`` for several (the fine-tuning seeds)."""
    text = f"{scale * float(np.mean(values)):.{digits}f}"
    if len(values) > 1:
        text += f" [{scale * min(values):.{digits}f}, {scale * max(values):.{digits}f}]"
    return text


def seed_means(part: Rows, column: str) -> list[float]:
    """The mean of ``column`` over the splits of each seed, seed by seed.

    Parameters
    ----------
    part : sequence of mapping
        Rows with ``seed`` and ``column``.
    column : str
        The column.

    Returns
    -------
    list of float
        One mean per seed, in increasing seed order.

    Examples
    --------
    >>> seed_means([{"seed": 1, "x": 1.0}, {"seed": 0, "x": 2.0}, {"seed": 1, "x": 3.0}], "x")
    [2.0, 2.0]
    """
    seeds = sorted({r["seed"] for r in part})
    return [float(np.mean([r[column] for r in part if r["seed"] == k])) for k in seeds]


def verdict_cell(part: Rows) -> str:
    """How a rejector did against GCUL at GCUL's coverage, in a few words.

    The corrected resampled t test per seed over its splits (`gcul compare`'s,
    :func:`simulations.compare.verdict`), counted over the seeds with the range of the
    differences; or, for one fixed split per seed, the differences.

    Parameters
    ----------
    part : sequence of mapping
        The ``compare.csv`` rows of one rejector, corpus and representation, at least one.

    Returns
    -------
    str
        E.g. ``"lower risk by 1.2 [0.9, 1.5] points in 3 of 3 seeds"``.

    Raises
    ------
    ValueError
        ``part`` is empty.
    """
    if not part:
        raise ValueError("part must hold at least one row; got none")
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


def readme_findings(tables: Mapping[str, Any]) -> str:
    """The README's table of the text results, computed from the CSV rows alone.

    The README holds this text, and its test recomputes it. Accuracy, rejection and λ* of GCUL +
    PCA at the paper's d = 10, as the paper's appendix rows are; the verdicts of GCUL without
    reduction at its coverage, as `gcul compare` runs it (:func:`verdict_cell`); the paper's
    own row per corpus.

    Parameters
    ----------
    tables : mapping
        :func:`simulations.text.csv_rows.tables_from_csv`'s dict (``rows`` and ``compare`` are read).

    Returns
    -------
    str
        The Markdown table, without a final newline.
    """
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
                cells.append(verdict_cell(chosen) if chosen else "—")
            if method == "finetuned_valtest":
                cells = [f"`gcul compare`: {c}" for c in cells]
            lines.append(
                f"| {CORPUS_TITLE[corpus].split(' (')[0]} | {README_NAME[method]} | "
                f"{_range(seed_means(part, 'base_acc'), 100.0, 1)} → "
                f"{_range(seed_means(part, 'sel_acc'), 100.0, 1)}, "
                f"{_range(seed_means(part, 'rejection'), 100.0, 1)} | "
                f"{_range(seed_means(part, 'lambda_pre_paper'), 1.0, 2)} → "
                f"{_range(seed_means(part, 'lambda_emp'), 1.0, 2)} | {cells[0]} | {cells[1]} |"
            )
        base, sel, rejected, pre, emp = PAPER_GCUL[corpus][REDUCED]
        lines.append(
            f"| {CORPUS_TITLE[corpus].split(' (')[0]} | the paper (LR on DistilBERT) | {base} → "
            f"{sel}, {rejected} | {pre:.2f} → {emp:.2f} | — | — |"
        )
    return "\n".join(lines)



def _load_note(load: Sequence[float] | None) -> str:
    """``" (load average 0.0 at the start, 2.0 at the end, 2 cores)"``, or nothing unknown."""
    if not load or any(math.isnan(v) for v in load):
        return ""
    return f" (1-minute load average {load[0]:.1f} at the start, {load[1]:.1f} at the end, {os.cpu_count()} cores)"


def _goemotions_range(rows: Rows) -> str:
    """The smallest and largest phase-1 test accuracy (%) of GoEmotions over the representations
    measured (each the mean over its splits or seeds), e.g. "50–62%"."""
    means = [np.mean([r["base_acc"] for r in select(rows, corpus="goemotions", representation=m, variant="gcul")])
             for m in ALL_REPS if select(rows, corpus="goemotions", representation=m, variant="gcul")]  # fmt: skip
    return f"{100 * min(means):.0f}–{100 * max(means):.0f}%" if means else "(not measured)"


def render(data_notes: Mapping[str, str], tables: Mapping[str, Any], cpu: Mapping[str, float], wall: float,
           splits: int, command: str, load: Sequence[float] | None = None) -> str:  # fmt: skip
    """The whole report, ``text_emotion.md``, from the per-split rows and the run's facts.

    Parameters
    ----------
    data_notes : mapping of str to str
        Per corpus, the sentence saying what was pooled and left out
        (:func:`simulations.text.study.load_pooled`'s note).
    tables : mapping
        :func:`simulations.text.csv_rows.tables_from_csv`'s dict.
    cpu : mapping of str to float
        CPU seconds per part of the run.
    wall : float
        The run's wall time, in seconds.
    splits : int
        The number of stratified splits.
    command : str
        The command as run (shown at the top).
    load : sequence of 2 float, optional
        The 1-minute load average at the start and the end (left out when unknown or NaN).

    Returns
    -------
    str
        The Markdown, ending in a newline.
    """
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
        "real-world datasets\"), which is on the Kaggle set: there, "
        + ", ".join(f"{name} {acc:.2f}% / {f1:.4f}" + ("" if rejected is None else f" rejecting {rejected:.2f}%")
                    for name, (acc, f1, rejected) in PAPER_KAGGLE.items())
        + ". Beside each corpus, the "
        "paper's own row for it (appendix, PCA d = 10). PCA keeps 10 dimensions (or d), LDA "
        "min(10, C − 1).",
        "",
    ]
    for corpus in corpora:
        lines += [f"### {CORPUS_TITLE[corpus]}", "", *table_benchmark(rows, corpus)]
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
        lines += [f"### {CORPUS_TITLE[corpus]}", "", *table_compare(compare_rows, verdicts, corpus)]
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
        for method in ALL_REPS:
            if select(sweep, corpus=corpus, representation=method):
                lines += [f"**{CORPUS_TITLE[corpus]}, {SHORT[method]}**", "",
                          *table_sweep(sweep, corpus, method)]  # fmt: skip

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
