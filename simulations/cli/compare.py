"""``gcul compare``: load the files, call :func:`simulations.compare.compare`, print (and plot)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import threading
from pathlib import Path

from simulations.cli.common import (
    EXIT_INTERRUPTED,
    CommandError,
    cost,
    emit,
    flush_stdout,
    jobs,
    open_unit,
    positive_int,
    seed,
    shown,
)
from simulations.cli.loaders import (
    FORMATS,
    REGIME_NAMES,
    add_data_arguments,
    add_regime_arguments,
    check_row_counts,
    file_stamp,
    load_embeddings,
    load_labels,
)
from simulations.outputs import check_writable
from simulations.validation import first_line

__all__ = ["add_parser", "run"]


def add_parser(commands) -> None:
    """Add the command's parser to ``commands`` (argparse sub-parsers)."""
    compare = commands.add_parser(
        "compare",
        help="is GCUL's rejection any good on your embeddings? GCUL against MSP + Chow, "
        "entropy, Mahalanobis, kNN, SelectiveNet and Deep Gamblers over stratified splits",
        description="Read embeddings (N x d) and labels (N integers 0..C-1, every class with at "
        "least 2 rows), draw --splits stratified train/test splits, fit GCUL on each training "
        "part and every baseline rejector, and print per rejector: its coverage at its natural "
        "operating point (GCUL: its accept set; MSP: Chow's rule; SelectiveNet: g >= 0.5; the "
        "others: GCUL's coverage), its selective risk at GCUL's coverage (mean +- SE over the "
        "splits, SE corrected for rows shared by splits), AURC, the paper's U and Chow's "
        "U_joint, and a verdict against GCUL (a two-sided corrected resampled t test at "
        "--level; a tie when the selective risks are the same in every split). Then a "
        "guarantee from a random calibration split: (1 - delta) Clopper-Pearson bounds on the "
        "selective risk of GCUL and of MSP at the same coverage, and SGR's MSP threshold for a "
        "target risk. "
        f"Files: {FORMATS}, with no header row. Pickles and .npz archives are refused.",
    )
    add_data_arguments(compare)
    compare.add_argument(
        "--lam",
        type=cost,
        default=0.15,
        help="relative rejection cost lambda in [0, 1) (Chow's rule, U, U_joint; default: "
        "%(default)s)",
    )
    compare.add_argument(
        "--splits",
        type=positive_int,
        default=10,
        help="number of stratified train/test splits, 1..1000 (default: %(default)s)",
    )
    compare.add_argument(
        "--test-size",
        type=open_unit,
        default=0.3,
        metavar="FRACTION",
        help="share of every class in the test part, in (0, 1) (default: %(default)s)",
    )
    compare.add_argument(
        "--seed",
        type=seed,
        default=0,
        help="seed of the splits and of the rejectors' draws, an integer in [0, 2**32) "
        "(default: %(default)s)",
    )
    compare.add_argument(
        "--delta",
        type=open_unit,
        default=0.05,
        help="risk of the guarantee's bounds, in (0, 1) (default: %(default)s)",
    )
    compare.add_argument(
        "--level",
        type=open_unit,
        default=0.05,
        metavar="ALPHA",
        help="two-sided level of the verdicts' test (the corrected resampled t test of Nadeau "
        "& Bengio on the per-split differences, splits - 1 degrees of freedom), in (0, 1) "
        "(default: %(default)s)",
    )
    compare.add_argument(
        "--calibration",
        type=open_unit,
        default=0.3,
        metavar="FRACTION",
        help="share of the rows held out at random for the guarantee, in (0, 1) "
        "(default: %(default)s)",
    )
    compare.add_argument(
        "--target-risk",
        type=open_unit,
        default=None,
        metavar="RISK",
        help="SGR's target selective risk for MSP, in (0, 1) (default: GCUL's selective risk "
        "on the tuning rows)",
    )
    add_regime_arguments(compare)
    compare.add_argument(
        "--jobs",
        type=jobs,
        default=1,
        metavar="N",
        help="worker processes for the splits: N, or -1 = all usable CPU cores, -2 = all but "
        "one; capped at the usable cores. The numbers are the same for any N; each worker holds "
        "one split's rows in float64. A worker that dies (killed, or out of memory: try fewer "
        "--jobs) ends the command with one line, exit code 2, its finished splits kept in the "
        "cache (default: %(default)s)",
    )
    compare.add_argument(
        "--cache",
        default=None,
        metavar="DIR",
        help="folder of the split cache: each split is written there as it finishes, and a run "
        "finds there the splits of an earlier run of the same data and options (--lam, --seed, "
        "--splits, --test-size, --error-pool, --standardize; not --level, --delta, "
        "--calibration, --target-risk), so a stopped run resumes, with the same result. "
        "Default: a checkpoint in $XDG_CACHE_HOME/gcul/compare (~/.cache/gcul/compare), whose "
        "files of a run are removed when it succeeds",
    )
    compare.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object on stdout instead of the text report",
    )
    compare.add_argument(
        "--plot",
        default=None,
        metavar="FILE",
        help="also write the risk-coverage curves of the first split to FILE (.png, .pdf, "
        ".svg; written atomically)",
    )
    compare.add_argument(
        "--quiet",
        action="store_true",
        help="no progress messages on stderr (by default: a line as the splits start, one per "
        "split done with the elapsed time and an ETA, one when the guarantee is done)",
    )
    compare.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``gcul compare``: read the arrays, compare, print the report or its JSON."""
    from simulations.compare import MAX_SPLITS, compare

    if args.splits > MAX_SPLITS:
        raise CommandError(f"--splits must be in 1..{MAX_SPLITS}; got {args.splits}")
    if args.plot is not None:
        _check_plot_path(args.plot)
    check_row_counts(args.embeddings, args.labels)  # from the .npy headers, before any data
    stamp = file_stamp(args.embeddings)
    # read once into memory (float32 kept: the splits gather float64 rows), never mapped:
    # joblib shares this copy with the workers, and the file may change from now on
    Z = load_embeddings(args.embeddings, shared_float32=True)
    if file_stamp(args.embeddings) != stamp:
        raise CommandError(
            f"--embeddings {args.embeddings}: the file changed while it was read, so no result "
            "is given; run it again with the file left as it is"
        )
    y = load_labels(args.labels, "--labels")
    cache, keep = (Path(args.cache), True) if args.cache else (_checkpoint_folder(), False)
    names = {
        "Z": f"--embeddings {args.embeddings}",
        "y": f"--labels {args.labels}",
        "lam": "--lam",
        "splits": "--splits",
        "seed": "--seed",
        "test_size": "--test-size",
        "delta": "--delta",
        "level": "--level",
        "calibration": "--calibration",
        "target_risk": "--target-risk",
        **REGIME_NAMES,
        "n_jobs": "--jobs",
        "cache_dir": "--cache",
    }

    def progress(message: str) -> None:
        print(f"gcul compare: {message}", file=sys.stderr, flush=True)

    from simulations.sweep.backends import SweepError  # joblib: imported when the command runs

    try:
        with _sigterm_interrupts():
            result = compare(
                Z,
                y,
                lam=args.lam,
                splits=args.splits,
                seed=args.seed,
                test_size=args.test_size,
                delta=args.delta,
                level=args.level,
                calibration=args.calibration,
                target_risk=args.target_risk,
                error_pool=args.error_pool,
                standardize=args.standardize,
                progress=None if args.quiet else progress,
                names=names,
                n_jobs=args.jobs,
                cache_dir=cache,
                keep_cache=keep,
            )
    except SweepError as exc:  # a worker died: the message says what is kept
        raise CommandError(first_line(exc)) from None
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the workers are stopped by now
        kept = (
            f"the finished splits are kept in {cache} and a rerun resumes from them"
            if cache
            else "no split is kept (no writable cache folder; pass --cache DIR)"
        )
        print(f"gcul compare: interrupted; {kept}", file=sys.stderr)
        return EXIT_INTERRUPTED
    if file_stamp(args.embeddings) != stamp:  # not an error: the run used what was read
        print(
            f"gcul compare: note: --embeddings {args.embeddings} changed during the run; the "
            "result is that of the file as it was read at the start",
            file=sys.stderr,
            flush=True,
        )
    # the report first: a --plot that fails now (a full disk) does not take the result with it
    emit(json.dumps(result.to_dict(), allow_nan=False) if args.json else result.format())
    if args.plot is not None:
        from simulations.compare import plot_risk_coverage
        from simulations.figures import save_figure

        flush_stdout()  # the report is out before the figure is drawn
        ax = plot_risk_coverage(result)
        try:
            save_figure(ax.figure, args.plot)
        except OSError as exc:
            raise CommandError(
                f"--plot {_plot_shown(args.plot)}: cannot write the figure ({_reason(exc)}); "
                "the report above is complete"
            ) from None
    return 0


def _checkpoint_folder() -> Path | None:
    """The default split cache of ``gcul compare``: ``$XDG_CACHE_HOME/gcul/compare`` (or
    ``~/.cache/gcul/compare``), created if needed; None if it cannot be created or written, and
    the run then keeps no split."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = Path(base) / "gcul" / "compare"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        check_writable(folder)
    except OSError:
        return None
    return folder


@contextlib.contextmanager
def _sigterm_interrupts():
    """Within the block, SIGTERM raises KeyboardInterrupt (as Ctrl-C does) in the main thread:
    the workers are stopped and the finished splits stay in the cache."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_sigterm(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


_PLOT_SUFFIXES = (".png", ".pdf", ".svg")


def _plot_shown(path: str) -> str:
    """The --plot path as an error quotes it: whole, up to 240 characters."""
    return shown(path, 240)


def _check_plot_path(path: str) -> None:
    """Refuse a --plot path that cannot be written, before the (long) comparison runs."""
    from pathlib import Path

    target = Path(path)
    if target.suffix.lower() not in _PLOT_SUFFIXES:
        raise CommandError(
            f"--plot {_plot_shown(path)}: the file name must end in {', '.join(_PLOT_SUFFIXES)}"
        )
    if target.is_dir():
        raise CommandError(f"--plot {_plot_shown(path)}: is a directory")
    parent = target.parent
    if not parent.is_dir():
        raise CommandError(f"--plot {_plot_shown(path)}: the folder {str(parent)!r} does not exist")
    try:  # a real probe (a file created and removed there): permissions, read-only mounts, /proc
        check_writable(parent)
    except OSError as exc:
        raise CommandError(
            f"--plot {_plot_shown(path)}: cannot write in the folder {str(parent)!r} "
            f"({_reason(exc)})"
        ) from None


def _reason(error: OSError) -> str:
    """What went wrong, without the file name the message already gives."""
    return error.strerror or first_line(error)
