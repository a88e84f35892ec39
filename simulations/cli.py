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


def parse_seeds(text: str) -> list[int]:
    """Parse ``"10-19"``, ``"16"`` or ``"10,12,15-17"`` into a sorted list of distinct seeds.

    Examples
    --------
    >>> parse_seeds("10-12,16")
    [10, 11, 12, 16]
    """
    seeds: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        try:
            if "-" in part:
                low, high = (int(p) for p in part.split("-", 1))
                if low > high:
                    raise ValueError
                seeds.update(range(low, high + 1))
            else:
                seeds.add(int(part))
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"seeds must look like 10-19 or 10,12,15-17 (non-negative integers); got {text!r}"
            ) from None
    if not seeds or min(seeds) < 0:
        raise argparse.ArgumentTypeError(f"seeds must be non-negative integers; got {text!r}")
    return sorted(seeds)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer; got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer; got {text!r}")
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
    from . import figures, report
    from ._results import write_csv
    from .sweep import run_sweep
    from .synthetic import SyntheticConfig, noise_levels

    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CommandError(f"cannot create output directory {str(out)!r}: {exc.strerror}") from None
    cache = Path(args.cache) if args.cache else out / "cache"
    levels = noise_levels(args.levels)
    config = SyntheticConfig()
    if levels[-1] * config.flip_per_noise > 1.0:
        raise CommandError(f"--levels {args.levels} reaches a label-flip probability above 1")
    print(
        f"gcul reproduce: {len(args.seeds)} seeds x {len(levels)} noise levels "
        f"= {len(args.seeds) * len(levels)} cells, {args.jobs} job(s), cache {cache}",
        file=sys.stderr,
    )
    start = time.perf_counter()
    try:
        rows = run_sweep(
            levels,
            args.seeds,
            n_jobs=args.jobs,
            cache_dir=cache,
            config=config,
            progress=not args.quiet,
        )
    except KeyboardInterrupt:
        print(
            f"gcul: interrupted; finished cells are kept in {cache} and a rerun resumes",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    elapsed = time.perf_counter() - start

    written = [write_csv(rows, out / "results.csv")]
    written += report.write_violations(rows, out, lam=args.lam)
    table_seed = 16 if 16 in args.seeds else args.seeds[0]
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
        "n_jobs": args.jobs,
        "config": {key: getattr(config, key) for key in config.__dataclass_fields__},
        "n_cells": len(rows),
        "elapsed_seconds": round(elapsed, 3),
        "cell_seconds_total": round(float(sum(row["seconds"] for row in rows)), 3),
        "versions": _versions(),
        "platform": platform.platform(),
        "files": {path.name: _sha256(path) for path in written},
    }
    manifest_path = out / "manifest.json"
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    written.append(manifest_path)

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
        "seeds 10-19) and write results.csv, violations.*, seed16.*, phase_transition.* and manifest.json.",
    )
    reproduce.add_argument(
        "--out", default="results", help="output directory (default: %(default)s)"
    )
    reproduce.add_argument(
        "--jobs", type=_positive_int, default=2, help="parallel jobs (default: %(default)s)"
    )
    reproduce.add_argument(
        "--seeds", type=parse_seeds, default=parse_seeds("10-19"), help="seeds, e.g. 10-19"
    )
    reproduce.add_argument(
        "--levels",
        type=_positive_int,
        default=41,
        help="noise levels sigma = 0.4 i, i < LEVELS (default: 41)",
    )
    reproduce.add_argument(
        "--method",
        choices=("gaussian", "union", "chernoff"),
        default="union",
        help="lambda*_PRE bound drawn in the figure (the tables show all three; default: union)",
    )
    reproduce.add_argument(
        "--lam", type=_cost, default=0.15, help="target rejection cost (default: 0.15)"
    )
    reproduce.add_argument(
        "--cache", default=None, help="per-cell cache directory (default: OUT/cache)"
    )
    reproduce.add_argument("--quiet", action="store_true", help="no progress bar")
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
