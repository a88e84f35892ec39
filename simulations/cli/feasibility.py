"""``gcul feasibility``: load the files, call :func:`simulations.feasibility.assess`, print."""

from __future__ import annotations

import argparse
import json

from simulations import registry
from simulations.cli.common import cost, emit, open_unit, seed, shown
from simulations.cli.loaders import (
    FORMATS,
    REGIME_NAMES,
    add_data_arguments,
    add_regime_arguments,
    check_row_counts,
    load_embeddings,
    read_labels,
)
from simulations.feasibility import VERDICT_DEFAULT

__all__ = ["VERDICT_DEFAULT", "add_parser", "method_name", "run"]


def method_name(text: str) -> str:
    """One ``--method`` word: a registry name or ``all``."""
    from gcul_theory import METHODS

    if text == "all" or text in METHODS:
        return text
    raise argparse.ArgumentTypeError(
        f"expected one of {', '.join(METHODS)} or all; got {shown(text)}"
    )


def add_parser(commands) -> None:
    """Add the command's parser to ``commands`` (argparse sub-parsers)."""
    from gcul_theory import COLUMN_LEGEND, MAX_CLASSES

    feasibility = commands.add_parser(
        "feasibility",
        help="will a reject option pay off on your own embeddings? (lambda*_PRE before running "
        "GCUL; --certify to certify it on held-out rows)",
        description="Read embeddings (N x d) and labels (N integers 0..C-1, every class "
        f"present, C <= {MAX_CLASSES}; or class names, a .npy array of str, which the report "
        "then prints), optionally phase-1 predictions, and print the "
        "feasibility report: lambda*_PRE of each requested predictor, a per-class table "
        "(columns defined below and in the report's legend) and a verdict naming the predictor "
        "and its guarantee, which is also the first line. With --certify the last (and first) "
        "line is the certified verdict, the "
        "strongest evidence; the one from geometry stays above it as 'geometric verdict:'. "
        "The verdict is never 'feasible' when GCUL cannot reject (no training error; with "
        "--certify, a fitted GCUL with no uncertain cluster or no rejection on the calibration "
        f"rows). Files: {FORMATS}, with no header row. Pickles and .npz archives are refused.",
        epilog="Per-class columns (the GCUL paper's symbols): "
        + "; ".join(f"{name}: {meaning}" for name, meaning in COLUMN_LEGEND)
        + ".",
    )
    add_data_arguments(feasibility)
    feasibility.add_argument(
        "--predictions",
        default=None,
        metavar="FILE",
        help="N phase-1 predictions, integers 0..C-1 (class names if --labels holds names): "
        "phase 1's IN-SAMPLE predictions on these "
        "rows (GCUL's own error pool), not cross-validated ones, which made every predictor "
        "less safe on real data. Without it gcul fits phase 1 itself (GCUL's multinomial "
        "logistic regression on the embeddings) and uses its in-sample predictions (or its "
        "out-of-fold ones with --error-pool out_of_fold, which excludes --predictions)",
    )
    feasibility.add_argument(
        "--lam",
        type=cost,
        default=0.15,
        help="relative rejection cost lambda in [0, 1) of the verdict (default: %(default)s)",
    )
    feasibility.add_argument(
        "--method",
        type=method_name,
        nargs="+",
        default=[VERDICT_DEFAULT],
        metavar="NAME",
        help="predictor(s) to report, or all; the verdict uses the first (all alone: "
        f"{VERDICT_DEFAULT}). One of: "
        + registry.described("predictor")
        + f" (default: {VERDICT_DEFAULT})",
    )
    feasibility.add_argument(
        "--certify",
        action="store_true",
        help="also split the rows at random (seeded by --seed; not stratified: the certificate "
        "needs calibration rows drawn iid, and a split that fixes each class's share makes a "
        "row's place depend on the other rows' labels), fit GCUL on the rest and certify on the "
        "calibration part: lambda*_CERT, bounds on U(lambda), a finite-sample verdict for that "
        "fitted GCUL",
    )
    feasibility.add_argument(
        "--calibration",
        type=open_unit,
        default=None,
        metavar="FRACTION",
        help="share of the rows held out to certify, in (0, 1) (rounded; at least one row, and "
        "every class must keep a row to fit on); needs --certify (default: 0.2)",
    )
    feasibility.add_argument(
        "--delta",
        type=open_unit,
        default=None,
        help="risk of the certificate, in (0, 1); needs --certify (default: 0.05)",
    )
    feasibility.add_argument(
        "--seed",
        type=seed,
        default=0,
        help="seed of the calibration split, an integer in [0, 2**32) (default: %(default)s)",
    )
    add_regime_arguments(feasibility)
    feasibility.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object on stdout instead of the text report",
    )
    feasibility.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``gcul feasibility``: read the arrays, assess them, print the report or its JSON."""
    from simulations.feasibility import assess

    # from the .npy headers, before any data is read
    check_row_counts(args.embeddings, args.labels, args.predictions)
    Z = load_embeddings(args.embeddings)
    y = read_labels(args.labels, "--labels")  # class names stay names: the report prints them
    y_pred = None if args.predictions is None else read_labels(args.predictions, "--predictions")
    names = {
        "Z": f"--embeddings {args.embeddings}",
        "y": f"--labels {args.labels}",
        "y_pred": f"--predictions {args.predictions}",
        "predictions": "--predictions",
        "certify": "--certify",
        "calibration": "--calibration",
        "delta": "--delta",
        "seed": "--seed",
        **REGIME_NAMES,
    }
    result = assess(
        Z,
        y,
        y_pred,
        lam=args.lam,
        methods=args.method,
        certify=args.certify,
        calibration=args.calibration,
        delta=args.delta,
        seed=args.seed,
        error_pool=args.error_pool,
        standardize=args.standardize,
        names=names,
    )
    emit(json.dumps(result.to_dict(), allow_nan=False) if args.json else result.format())
    return 0
