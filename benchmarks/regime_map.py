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
    others at their default (``simulations.regime_map.PAIRS``, ``FACTORS``); σ is one axis of four of the six
    pairs. Every setting runs ``SEEDS`` (20 seeds). Per cell (setting × seed), on the test
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
    split in two halves at random (seed ``HALF_SEED``): on the first, each predictor's
    orientation and an accuracy-maximising threshold are chosen; on the held-out half its ROC
    AUC (Mann-Whitney) is reported with DeLong's SE, a bootstrap SE that also redraws the seeds
    the settings share (:func:`simulations.regime_map.add_bootstrap_se`), and the chosen
    threshold's accuracy.

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

The science is :mod:`simulations.regime_map` (the grid, one cell, the summaries, the text rows,
the figures and the report's text) with :mod:`simulations.statistics` and
:mod:`simulations.training_predictors`; this script runs it and writes the files.

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
import platform
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

import simulations
from simulations.cli.common import Parser, positive_int
from simulations.outputs import atomic_write_text, prepare_out_folder
from simulations.regime_map import (
    SEEDS,
    add_bootstrap_se,
    check_against_compare,
    finetuned_inputs,
    measure_settings,
    phase_diagrams,
    plot_map,
    plot_predictors,
    predictor_table,
    read_csv,
    report,
    settings,
    summarise_settings,
    summarise_text,
    text_rows,
    write_csv,
)


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
    diagrams = phase_diagrams(summaries)
    table = predictor_table(summaries)
    add_bootstrap_se(rows, summaries, table)
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
    setting_list: list[tuple],
    seeds: Sequence[int],
    finetuned: dict[str, list[tuple]] | None = None,
):
    """Run every cell (and the text corpora with ``--corpora``): ``(rows, text rows, timing)``."""
    started = time.perf_counter()
    rows, cpu_cells = measure_settings(setting_list, seeds, args.jobs)
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


if __name__ == "__main__":
    raise SystemExit(main())
