"""The ``gcul`` command line: ``gcul reproduce``, ``gcul prove`` and ``gcul feasibility``.

Every error is one line on stderr (``gcul: error: ...``) with exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import sys
import time
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

import numpy as np

__all__ = ["main", "parse_seeds"]

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class CommandError(Exception):
    """A user-facing error: printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


MAX_CELLS = 100_000
"""Most cells one ``gcul reproduce`` grid may hold (seeds x noise levels)."""

SEED_LIMIT = 2**32
"""Seeds must be below this (``0 <= seed < 2**32``)."""


def _shown(text: str, limit: int = 40) -> str:
    """``repr`` of a user's argument, shortened so that an error stays one short line."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text)} chars)"


def parse_seeds(text: str) -> list[int]:
    """Parse ``"10-19"``, ``"16"`` or ``"10,12,15-17"`` into a sorted list of distinct seeds.

    Seeds are integers in ``[0, 2**32)``; at most :data:`MAX_CELLS` distinct seeds. Ranges are
    counted before they are expanded, so ``"0-1000000000"`` is refused at once, without building
    a billion-element set.

    Raises
    ------
    argparse.ArgumentTypeError
        For a malformed list, a reversed range, a seed outside ``[0, 2**32)`` or too many seeds.

    Examples
    --------
    >>> parse_seeds("10-12,16")
    [10, 11, 12, 16]
    >>> parse_seeds("0-1000000000")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: seeds: at most 100000 distinct seeds ...; got 1000000001 in ...
    """
    ranges: list[tuple[int, int]] = []
    for part in text.split(","):
        part = part.strip()
        try:
            if "-" in part:
                low, high = (int(p) for p in part.split("-", 1))
            else:
                low = high = int(part)
            if low > high or low < 0:
                raise ValueError
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"seeds must look like 10-19 or 10,12,15-17 (non-negative integers); "
                f"got {_shown(text)}"
            ) from None
        if high >= SEED_LIMIT:
            raise argparse.ArgumentTypeError(
                f"seeds must be below 2**32 = {SEED_LIMIT}; got {high} in {_shown(text)}"
            )
        ranges.append((low, high))
    merged: list[list[int]] = []
    for low, high in sorted(ranges):
        if merged and low <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], high)
        else:
            merged.append([low, high])
    count = sum(high - low + 1 for low, high in merged)
    if count > MAX_CELLS:
        raise argparse.ArgumentTypeError(
            f"seeds: at most {MAX_CELLS} distinct seeds (a grid holds at most {MAX_CELLS} "
            f"cells); got {count} in {_shown(text)}"
        )
    return [seed for low, high in merged for seed in range(low, high + 1)]


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a positive integer; got {_shown(text)}"
        ) from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer; got {_shown(text)}")
    return value


def _jobs(text: str) -> int:
    """``--jobs``: a non-zero integer, joblib semantics (-1 = all usable cores)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value == 0:
        raise argparse.ArgumentTypeError(
            f"expected a non-zero integer (N workers, -1 = all usable cores, -2 = all but one); "
            f"got {_shown(text)}"
        )
    return value


def _cost(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1); got {text!r}") from None
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1); got {text!r}")
    return value


def _versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in ("gcul", "numpy", "scipy", "sympy", "matplotlib", "joblib"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _reproduce(args: argparse.Namespace) -> int:
    import os
    import signal
    import tempfile
    import threading

    from . import figures, report
    from ._results import atomic_write_text, check_row, write_csv, write_timings_csv
    from .sweep import _resolve_n_jobs, run_sweep
    from .synthetic import SyntheticConfig, noise_levels

    # 1. Every argument is checked before anything is created on disk.
    config = SyntheticConfig()
    step = 0.4
    top = round(step * (args.levels - 1), 10)
    if config.flip_probability(top) > 1.0:
        most = int(round(config.max_noise / step, 9)) + 1
        raise CommandError(
            f"--levels {args.levels} reaches sigma = {top:g}, whose label-flip probability "
            f"{config.flip_per_noise:g} * sigma is above 1; --levels must be at most {most}"
        )
    n_cells = len(args.seeds) * args.levels
    if n_cells > MAX_CELLS:
        raise CommandError(
            f"{len(args.seeds)} seeds x {args.levels} levels = {n_cells} cells; "
            f"a grid holds at most {MAX_CELLS} cells"
        )
    levels = noise_levels(args.levels, step)
    n_jobs, capped = _resolve_n_jobs(args.jobs)
    out = Path(args.out)
    cache = Path(args.cache) if args.cache else out / "cache"
    table_seed = 16 if 16 in args.seeds else args.seeds[0]
    names = ["results.csv", "timings.csv", "manifest.json"]
    for stem in ("violations", f"seed{table_seed}"):
        names += [f"{stem}.csv", f"{stem}.md", f"{stem}.tex"]
    names += ["phase_transition.png", "phase_transition.pdf"]

    # 2. --out and the cache must be writable folders (or creatable ones), and no output file may
    #    be a folder: checked now, not after every cell has run. Nothing is created until all
    #    paths pass.
    def check_folder(path: Path, option: str) -> None:
        if path.exists():
            if not path.is_dir():
                raise CommandError(f"{option}: {str(path)!r} is a file, not a folder")
            if not os.access(path, os.W_OK | os.X_OK):
                raise CommandError(f"{option}: folder {str(path)!r} is not writable")
            return
        ancestor = path.parent
        while not ancestor.exists() and ancestor != ancestor.parent:
            ancestor = ancestor.parent
        if not ancestor.is_dir():
            raise CommandError(
                f"{option}: cannot create {str(path)!r}: {str(ancestor)!r} is a file, not a folder"
            )
        if not os.access(ancestor, os.W_OK | os.X_OK):
            raise CommandError(
                f"{option}: cannot create {str(path)!r}: folder {str(ancestor)!r} is not writable"
            )

    check_folder(out, "--out")
    check_folder(cache, "--cache")
    for name in names:
        if (out / name).exists() and not (out / name).is_file():
            raise CommandError(f"--out: {str(out / name)!r} is a folder where a file goes")
    for path, option in ((out, "--out"), (cache, "--cache")):
        try:
            path.mkdir(parents=True, exist_ok=True)
            fd, probe = tempfile.mkstemp(dir=path, prefix=".gcul-write-test-")
            os.close(fd)
            os.unlink(probe)
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            raise CommandError(
                f"{option}: cannot create or write in {str(path)!r}: {reason}"
            ) from None

    print(
        f"gcul reproduce: {len(args.seeds)} seeds x {len(levels)} noise levels = {n_cells} "
        f"cells, {n_jobs} job(s), cache {cache}",
        file=sys.stderr,
    )
    if capped:
        print(f"gcul reproduce: --jobs {capped.removeprefix('n_jobs=')}", file=sys.stderr)

    # 3. SIGTERM stops the run as Ctrl-C does: the KeyboardInterrupt closes joblib's generator,
    #    which terminates the worker processes (no orphans); finished cells stay in the cache.
    received: list[int] = []

    def on_sigterm(signum: int, frame: object) -> None:
        received.append(signum)
        raise KeyboardInterrupt

    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, on_sigterm) if in_main_thread else None
    start = time.perf_counter()
    try:
        rows = run_sweep(
            levels,
            args.seeds,
            n_jobs=n_jobs,
            cache_dir=cache,
            config=config,
            progress=not args.quiet,
        )
        elapsed = time.perf_counter() - start
        timings = rows.timings
        # 4. Every row verifies before the first output file is written.
        rows = [check_row(row, f"cell (seed={row['seed']}, noise={row['noise']})") for row in rows]

        written = [write_csv(rows, out / "results.csv")]
        written.append(write_timings_csv(timings, out / "timings.csv"))
        written += report.write_violations(rows, out, lam=args.lam)
        written += report.write_seed_table(rows, out, seed=table_seed)
        drawing = figures.plot_phase_transition(rows, lam=args.lam, method=args.method)
        written += figures.save_figure(drawing.ax.figure, out / "phase_transition")

        manifest = {
            "command": "gcul reproduce",
            "argv": sys.argv[1:],
            "seeds": args.seeds,
            "noise_levels": [float(level) for level in levels],
            "lambda_target": args.lam,
            "figure_method": args.method,
            "n_jobs": n_jobs,
            "config": {key: getattr(config, key) for key in config.__dataclass_fields__},
            "n_cells": len(rows),
            "elapsed_seconds": round(elapsed, 3),
            "cell_seconds_total": round(float(sum(t["seconds"] for t in timings)), 3),
            "versions": _versions(),
            "platform": platform.platform(),
            "files": {path.name: _sha256(path) for path in written},
        }
        manifest_text = json.dumps(manifest, indent=2) + "\n"
        manifest_path = atomic_write_text(out / "manifest.json", manifest_text)
        written.append(manifest_path)
    except KeyboardInterrupt:
        cause = "SIGTERM" if received else "Ctrl-C"
        print(
            f"gcul: interrupted ({cause}); finished cells are kept in {cache} and a rerun resumes",
            file=sys.stderr,
        )
        return 128 + signal.SIGTERM if received else EXIT_INTERRUPTED
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        raise CommandError(f"cannot write{where}: {exc.strerror or exc}") from None
    finally:
        if in_main_thread:
            signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)

    print(report.format_violations_text(report.violation_table(rows, lam=args.lam)))
    print(f"\n{len(rows)} cells in {elapsed:.1f} s; wrote:")
    for path in written:
        print(f"  {path}")
    return 0


def _prove(args: argparse.Namespace) -> int:
    import proofs

    return proofs.main(["--format", args.format])


def _load_array(path: str, name: str) -> np.ndarray:
    source = Path(path)
    if not source.is_file():
        raise CommandError(f"{name} file not found: {path}")
    try:
        if source.suffix == ".npy":
            return np.load(source, allow_pickle=False)
        return np.loadtxt(source, delimiter="," if source.suffix == ".csv" else None, ndmin=1)
    except (ValueError, OSError) as exc:
        raise CommandError(f"cannot read {name} from {path}: {exc}") from None


def _feasibility(args: argparse.Namespace) -> int:
    from gcul_theory import feasibility_report

    Z = _load_array(args.embeddings, "embeddings")
    y = _load_array(args.labels, "labels")
    y_pred = _load_array(args.predictions, "predictions")
    if Z.ndim == 1:
        Z = Z[:, None]
    result = feasibility_report(Z, y, y_pred, lam=args.lam, method=args.method)
    print(result)
    return 0


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="gcul",
        description="GCUL: theory, numerically verified proofs and the synthetic phase-transition experiment.",
    )
    commands = parser.add_subparsers(
        dest="command", required=True, parser_class=_Parser, metavar="COMMAND"
    )

    reproduce = commands.add_parser(
        "reproduce",
        help="run the synthetic sweep and write the paper's figure and tables",
        description="Run the synthetic phase-transition sweep (default: the paper's 41 levels x "
        "seeds 10-19) and write results.csv, timings.csv, violations.*, seed16.*, "
        "phase_transition.* and manifest.json. results.csv is byte-identical for any --jobs and "
        "for a resumed run; the wall times go to timings.csv.",
    )
    reproduce.add_argument(
        "--out",
        default="results",
        metavar="DIR",
        help="output folder, created if needed; must be writable (default: %(default)s)",
    )
    reproduce.add_argument(
        "--jobs",
        type=_jobs,
        default=-1,
        metavar="N",
        help="worker processes: N, or -1 = all usable CPU cores, -2 = all but one; more than "
        "the usable cores is capped there (default: -1)",
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
        type=_positive_int,
        default=41,
        metavar="L",
        help="noise levels sigma = 0.4 i for i < L; at most 101, where the label-flip "
        "probability 0.025 sigma reaches 1 (default: %(default)s)",
    )
    reproduce.add_argument(
        "--method",
        choices=("gaussian", "union", "chernoff"),
        default="union",
        help="lambda*_PRE bound drawn in the figure (the tables show all three; default: union)",
    )
    reproduce.add_argument(
        "--lam",
        type=_cost,
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
        "--quiet", action="store_true", help="no progress lines on stderr (errors still show)"
    )
    reproduce.set_defaults(handler=_reproduce)

    prove = commands.add_parser(
        "prove", help="re-derive the paper's claims with SymPy and print the report"
    )
    prove.add_argument("--format", choices=("text", "markdown"), default="text")
    prove.set_defaults(handler=_prove)

    feasibility = commands.add_parser(
        "feasibility",
        help="will a reject option pay off on your own embeddings? (lambda*_PRE before running GCUL)",
        description="Read embeddings (N x d), labels and phase-1 predictions (.npy, .csv or "
        "whitespace text) and print the feasibility report.",
    )
    feasibility.add_argument("--embeddings", required=True, help="N x d array file")
    feasibility.add_argument("--labels", required=True, help="N integer labels in 0..C-1")
    feasibility.add_argument("--predictions", required=True, help="N phase-1 predictions in 0..C-1")
    feasibility.add_argument("--lam", type=_cost, default=0.15)
    feasibility.add_argument("--method", choices=("gaussian", "union", "chernoff"), default="union")
    feasibility.set_defaults(handler=_feasibility)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``gcul`` command line; returns the exit code."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args))
    except (CommandError, ValueError, TypeError) as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"gcul {args.command}: error: {message}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
