"""``gcul demo``: write the classroom figures (PNG and PDF) without Jupyter."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from simulations.cli.common import CommandError, emit, jobs, shown

__all__ = ["add_parser", "figure_name", "run"]


def figure_name(text: str) -> str:
    """One ``gcul demo --only`` word: a classroom figure's name."""
    from simulations.demo import FIGURES

    names = [spec.name for spec in FIGURES]
    if text in names:
        return text
    raise argparse.ArgumentTypeError(
        f"expected a figure name ({', '.join(names)}; gcul demo --list describes them); "
        f"got {shown(text)}"
    )


def add_parser(commands) -> None:
    """Add the command's parser to ``commands`` (argparse sub-parsers)."""
    demo = commands.add_parser(
        "demo",
        help="write the classroom figures (PNG and PDF, 1280 x 720) without Jupyter",
        description="Draw the figures of the classroom notebooks (notebooks/ in the source "
        "tree) and write each as NAME.png (1280 x 720 pixels, text >= 14 pt, colour-blind "
        "safe) and NAME.pdf. The two notebook-4 figures run a reduced sweep (2 seeds x 21 "
        "noise levels, about 10-30 s). The output is the same on every run.",
    )
    target = demo.add_mutually_exclusive_group(required=True)
    target.add_argument("--out", metavar="DIR", help="output folder, created if needed")
    target.add_argument(
        "--list", action="store_true", help="name every figure with one line about it, and exit"
    )
    demo.add_argument(
        "--only",
        type=figure_name,
        nargs="+",
        default=None,
        metavar="NAME",
        help="write only these figures (names from --list)",
    )
    demo.add_argument(
        "--jobs",
        type=jobs,
        default=1,
        metavar="N",
        help="worker processes of the reduced sweep, joblib semantics (default: %(default)s)",
    )
    demo.add_argument(
        "--quiet", action="store_true", help="no progress lines on stderr (errors still show)"
    )
    demo.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``gcul demo``: list or write the classroom figures."""
    from simulations import demo

    if args.list:
        if args.only:
            raise CommandError("--only chooses figures to write; use it with --out, not --list")
        width = max(len(spec.name) for spec in demo.FIGURES)
        for spec in demo.FIGURES:
            emit(f"{spec.name:<{width}}  notebook {spec.notebook}: {spec.description}")
        return 0
    from simulations.outputs import check_folder

    out = Path(args.out)
    try:
        check_folder(out, "--out", writable=True)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    names = list(dict.fromkeys(args.only)) if args.only else None
    progress = None if args.quiet else (lambda line: print(f"gcul demo: {line}", file=sys.stderr))
    start = time.perf_counter()
    try:
        written = demo.write_figures(out, names, n_jobs=args.jobs, progress=progress)
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        raise CommandError(f"cannot write{where}: {exc.strerror or exc}") from None
    emit(f"{len(written) // 2} figures in {time.perf_counter() - start:.1f} s; wrote:")
    for path in written:
        emit(f"  {path}")
    return 0
