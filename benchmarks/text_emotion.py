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
the tables are computed from those rows only, so a test recomputes them.

This script is the driver: options, the list of tasks, running them, writing the files. The
science is in the package, :mod:`simulations.text`: the corpora and the shared protocol
(:mod:`~simulations.text.study`), the measurements (:mod:`~simulations.text.measures`), the
tasks and their merge (:mod:`~simulations.text.tasks`), the tables
(:mod:`~simulations.text.tables`), the report (:mod:`~simulations.text.report`), the figures
(:mod:`~simulations.text.figures`), the CSV files (:mod:`~simulations.text.csv_rows`) and the
paper's numbers (:mod:`~simulations.text.paper_values`); the baselines along their knobs are
:func:`simulations.compare.operating_points`.

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
import json
import math
import os
import sys
import time
from pathlib import Path

from simulations.figures import save_figure
from simulations.outputs import atomic_write_text, check_folder, check_writable
from simulations.text.csv_rows import CSV_FILES, tables_from_csv, to_csv, verdict_csv_rows
from simulations.text.figures import plot_operating, plot_sweep
from simulations.text.measures import subsample
from simulations.text.report import render
from simulations.text.representations import cached_representation
from simulations.text.study import CORPORA, FINETUNED_SEEDS, SEED, load_finetuned, load_pooled
from simulations.text.tables import select
from simulations.text.tasks import (
    DEFAULT_METHODS,
    FT_FIXED,
    METHODS,
    SWEPT,
    collect_results,
    run_task,
    task_cost,
    task_name,
)


def redraw(out: Path) -> list[Path]:
    """Write ``text_emotion.md``, ``operating_points.png`` and ``pca_sweep.png`` again from the
    CSV files and ``run.json`` in ``out`` alone (no corpus, no representation, no fit: seconds,
    not the 25-minute run)."""
    tables = tables_from_csv(out)
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    text = render(run["notes"], tables, run["cpu"], run["wall"], run["splits"], run["command"], run.get("load"))
    atomic_write_text(out / "text_emotion.md", text)
    corpora = [c for c in CORPORA if select(tables["rows"], corpus=c)]
    written = save_figure(plot_operating(tables["points"], corpora), out / "operating_points.png",
                          dpi=110)  # fmt: skip
    written += save_figure(plot_sweep(tables["sweep"], corpora), out / "pca_sweep.png", dpi=110)
    return [out / "text_emotion.md", *written]


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
    parser.add_argument("--seed", type=int, choices=FINETUNED_SEEDS, action="append", dest="seeds",
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
    for option, value, least in (("--splits", args.splits, 2), ("--jobs", args.jobs, 1),
                                 ("--max-rows", args.max_rows, 1)):  # fmt: skip
        if value is not None and value < least:
            why = " (a standard error needs two)" if option == "--splits" else ""
            print(f"error: {option} must be at least {least}{why}; got {value}", file=sys.stderr)
            return 2
    root, out = Path(args.corpora), Path(args.out)
    corpora = args.corpus or list(CORPORA)
    methods = args.representation or [*DEFAULT_METHODS, *(["finetuned"] if args.finetuned else [])]
    if "finetuned" in methods and not args.finetuned:
        print("error: --representation finetuned needs --finetuned DIR", file=sys.stderr)
        return 2
    seeds = sorted(set(args.seeds or FINETUNED_SEEDS))
    try:
        # --out first, with a real write: a bad folder is refused before minutes of work
        check_folder(out, "--out", writable=True)
        out.mkdir(parents=True, exist_ok=True)
        check_writable(out)
        if args.cache is not None:
            check_folder(Path(args.cache), "--cache", writable=True)
        data = {c: load_pooled(root, c) for c in corpora}
        finetuned = {}
        if "finetuned" in methods:
            finetuned = {c: load_finetuned(Path(args.finetuned), c, root, seeds) for c in corpora}
    except (ValueError, OSError) as exc:
        print(f"error: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    if args.max_rows is not None:
        for corpus in corpora:
            if data[corpus].y.size > args.max_rows:
                note = (f"; subsampled to {args.max_rows:,} of these rows (stratified, seed "
                        f"{SEED}) to fit the time budget, representations computed on all rows")
                data[corpus] = data[corpus]._replace(note=data[corpus].note + note)
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
    order = sorted(range(len(tasks)), key=lambda i: -task_cost(tasks[i]))
    if args.jobs > 1:
        from joblib import Parallel, delayed

        ran = Parallel(n_jobs=args.jobs)(delayed(run_task)(tasks[i]) for i in order)
    else:
        ran = [run_task(tasks[i]) for i in order]
    results: list[dict] = [{}] * len(tasks)
    for i, res in zip(order, ran, strict=True):
        results[i] = res
    for task, res in zip(tasks, results, strict=True):
        print(f"{task_name(task)}: " + ", ".join(f"{k} {v:.0f} s" for k, v in res["cpu"].items()),
              file=sys.stderr, flush=True)  # fmt: skip
    tables, task_cpu = collect_results(tasks, results)
    for part, seconds in task_cpu.items():
        cpu[part] = cpu.get(part, 0.0) + seconds
    t = time.process_time()
    for key, name in CSV_FILES.items():
        atomic_write_text(out / f"{name}.csv", to_csv(tables[key]))
    atomic_write_text(out / "verdicts.csv", to_csv(verdict_csv_rows(tables["verdicts"], SEED)))
    cpu["CSV files"] = time.process_time() - t
    run = {"notes": {c: data[c][3] for c in corpora}, "cpu": cpu,
           "wall": time.perf_counter() - started, "splits": args.splits,
           "command": command_line(args, out),
           "load": [load_start, os.getloadavg()[0] if hasattr(os, "getloadavg") else math.nan]}  # fmt: skip
    atomic_write_text(out / "run.json", json.dumps(run, indent=1, ensure_ascii=False) + "\n")
    redraw(out)  # the report and figures are a function of the CSV files (and run.json) alone
    print(f"wrote {out / 'text_emotion.md'} ({run['wall']:.0f} s)", file=sys.stderr)
    return 0


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



if __name__ == "__main__":
    sys.exit(main())
