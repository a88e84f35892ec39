"""``gcul reproduce``: parse the options, call :func:`simulations.reproduce.reproduce`, print."""

from __future__ import annotations

import argparse
import sys

from simulations import registry
from simulations.cli.common import (
    CommandError,
    cost,
    emit,
    jobs,
    parse_seeds,
    positive_int,
)
from simulations.reproduce import MAX_CELLS
from simulations.validation import first_line

__all__ = ["RENAMED_ERROR_POOL", "REPRODUCE_OPTIONS", "add_parser", "run"]

REPRODUCE_OPTIONS = {
    "out": "--out",
    "seeds": "--seeds",
    "levels": "--levels",
    "n_jobs": "--jobs",
    "backend": "--backend",
    "scheduler": "--scheduler",
    "lam": "--lam",
    "method": "--method",
    "cache_dir": "--cache",
    "progress": "--quiet",
    "geometry_labels": "--geometry-labels",
}
"""How ``gcul reproduce`` names the arguments of :func:`simulations.reproduce.reproduce`."""

RENAMED_ERROR_POOL = (
    "--error-pool was renamed --geometry-labels (observed|clean), e.g. --geometry-labels clean; "
    "--error-pool now means only which rows phase 1's errors come from (gcul compare, gcul "
    "feasibility)"
)
"""The one-line error for ``gcul reproduce --error-pool`` (the option's former name)."""


class _RenamedErrorPool(argparse.Action):
    """``--error-pool``, with or without a value: a usage error whose one line,
    :data:`RENAMED_ERROR_POOL`, names the new option."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        parser.error(RENAMED_ERROR_POOL)


def add_parser(commands) -> None:
    """Add the command's parser to ``commands`` (argparse sub-parsers)."""

    reproduce = commands.add_parser(
        "reproduce",
        help="run the synthetic sweep and write the paper's figure and tables",
        description="Run the synthetic phase-transition sweep (default: the paper's 41 levels x "
        "seeds 10-19) and write results.csv, timings.csv, violations.* (one block per "
        f"predictor: {', '.join(registry.judged_names())}), seed16.* (the paper's per-level "
        "table; seedN.* for the first seed N when 16 is not run), phase_transition.* (the "
        "paper's figure), predictors.* (one panel per predictor), baselines.* (GCUL against "
        "every rejector and the Bayes limit, by noise band), risk_coverage.* (the "
        "risk-coverage curves of that seed at three noise levels) and manifest.json. "
        "results.csv is byte-identical for any --jobs and for a resumed run; the wall times go "
        "to timings.csv.",
    )
    reproduce.add_argument(
        "--out",
        default="results",
        metavar="DIR",
        help="output folder, created if needed; must be writable. One run at a time: a second "
        "run on the same folder is refused while the first runs (default: %(default)s)",
    )
    reproduce.add_argument(
        "--jobs",
        type=jobs,
        default=-1,
        metavar="N",
        help="worker processes: N, or -1 = all usable CPU cores, -2 = all but one; more than "
        "the usable cores is capped there; with --backend dask, the workers of the LocalCluster "
        "(default: -1)",
    )
    reproduce.add_argument(
        "--seeds",
        type=parse_seeds,
        default=parse_seeds("10-19"),
        metavar="LIST",
        help=f"dataset seeds, e.g. 10-19 or 10,12,15-17; each below 2**32, at most {MAX_CELLS} "
        "cells in all (default: 10-19)",
    )
    reproduce.add_argument(
        "--levels",
        type=positive_int,
        default=41,
        metavar="L",
        help="noise levels sigma = 0.4 i for i < L; at least 2 (the figures draw curves over "
        "sigma), at most 101, where the label-flip probability 0.025 sigma reaches 1 "
        "(default: %(default)s)",
    )
    reproduce.add_argument(
        "--method",
        choices=tuple(m.name for m in registry.methods("predictor")),
        default=registry.PAPER_METHOD,
        help="lambda*_PRE predictor drawn in the paper's figure, one of: "
        + registry.described("predictor")
        + " (the tables and the predictors figure show every one; default: "
        + f"{registry.PAPER_METHOD}, the paper's)",
    )
    reproduce.add_argument(
        "--lam",
        type=cost,
        default=0.15,
        metavar="COST",
        help="target rejection cost lambda in [0, 1) for the violation counts (default: 0.15)",
    )
    reproduce.add_argument(
        "--cache",
        default=None,
        metavar="DIR",
        help="per-cell cache folder; a rerun resumes from it (default: OUT/cache)",
    )
    reproduce.add_argument(
        "--backend",
        choices=("loky", "dask"),
        default="loky",
        help="where the cells run: loky (joblib's process pool here) or dask (a dask.distributed "
        "cluster; needs pip install -e '.[dask]'): a LocalCluster of --jobs workers, or the "
        "cluster of --scheduler. results.csv is the same byte for byte (default: %(default)s)",
    )
    reproduce.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="address of a running dask scheduler, e.g. tcp://HOST:8786 (needs --backend dask; "
        "its workers run the cells and --jobs is not used; every worker needs gcul installed)",
    )
    reproduce.add_argument(
        "--geometry-labels",
        choices=("observed", "clean"),
        default="observed",
        help="the training labels that the geometry behind every lambda*_PRE (its error pool "
        "E = {y_pred != y}, the class shares and the class cores) is estimated with: observed (the "
        "training labels as given, partly flipped, as the paper defines it and as a deployment "
        "has them) or clean (the training labels before flipping: the reading that reproduces "
        "the paper's seed-16 column and violation counts, to set them beside the paper's; no "
        "deployment has clean labels, and the manifest, the table captions and the figures say "
        "so). GCUL, lambda*_EMP and the certificate are the same either way (default: "
        "%(default)s)",
    )
    # the former name of --geometry-labels (issue 33); --error-pool now means only which rows
    # phase 1's errors come from (gcul compare, gcul feasibility), so here it is refused with a hint
    reproduce.add_argument(
        "--error-pool", nargs="?", action=_RenamedErrorPool, help=argparse.SUPPRESS
    )
    reproduce.add_argument(
        "--quiet",
        action="store_true",
        help="no header and no progress lines on stderr (warnings and errors still show)",
    )
    reproduce.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``gcul reproduce``: :func:`simulations.reproduce.reproduce`, then print what it wrote."""
    from simulations.outputs import FolderInUseError
    from simulations.report import format_violations_text
    from simulations.reproduce import Interrupted, reproduce
    from simulations.sweep import SweepError

    try:
        run = reproduce(
            args.out,
            seeds=args.seeds,
            levels=args.levels,
            n_jobs=args.jobs,
            backend=args.backend,
            scheduler=args.scheduler,
            lam=args.lam,
            method=args.method,
            cache_dir=args.cache,
            progress=not args.quiet,
            geometry_labels=args.geometry_labels,
            argv=sys.argv[1:],
            names=REPRODUCE_OPTIONS,
        )
    except Interrupted as exc:
        print(
            f"gcul: interrupted ({exc.cause}); finished cells are kept in {exc.cache} and a "
            "rerun resumes",
            file=sys.stderr,
        )
        return exc.exit_code
    except FolderInUseError as exc:
        raise CommandError(
            f"--out {str(exc.folder)!r} is in use by {exc.holder}; wait for it to end or choose "
            "another --out"
        ) from None
    except SweepError as exc:  # a worker died, a local cluster did not start
        raise CommandError(first_line(exc)) from None
    except ImportError as exc:  # --backend dask without dask.distributed
        raise CommandError(first_line(exc)) from None
    except ConnectionError:  # the dask scheduler: its message names the option
        raise
    except OSError as exc:  # once the run has started: a file could not be written
        where = f" {exc.filename}" if exc.filename else ""
        raise CommandError(f"cannot write{where}: {exc.strerror or exc}") from None

    emit(format_violations_text(run.violations))
    emit(f"\n{len(run.rows)} cells in {run.elapsed:.1f} s; wrote:")
    for path in run.written:
        emit(f"  {path}")
    return 0
