"""Run every claim check in paper order, format the report, and the ``python -m proofs`` CLI."""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence

from . import (
    _chernoff,
    _corollary,
    _criterion,
    _monotonicity,
    _numeric,
    _rate_bounds,
    _rigorous,
    _sufficient,
    _tails,
    _utility,
    _voronoi,
)
from ._result import STATUSES, ClaimResult

__all__ = ["CHECKS", "run_all", "format_text", "format_markdown", "summary_line", "main"]

#: Every claim check, in the order the claims appear in the paper.
CHECKS: tuple[Callable[[], ClaimResult], ...] = (
    *_utility.CLAIMS_RISK,
    *_criterion.CLAIMS,
    *_utility.CLAIMS_MODEL,
    *_monotonicity.CLAIMS,
    *_voronoi.CLAIMS_REDUCTION,
    *_tails.CLAIMS,
    *_voronoi.CLAIMS_EVENTS,
    *_rate_bounds.CLAIMS,
    *_sufficient.CLAIMS,
    *_chernoff.CLAIMS,
    *_rigorous.CLAIMS,
    *_corollary.CLAIMS,
    *_numeric.CLAIMS,
)


def run_all() -> list[ClaimResult]:
    """Check every claim of the paper; one :class:`ClaimResult` per claim, in paper order.

    Returns
    -------
    list of ClaimResult
        Never raises for a broken derivation: such a claim comes back with ``status="failed"``.

    Examples
    --------
    >>> results = run_all()
    >>> sorted({r.status for r in results})
    ['erratum', 'verified']
    """
    return [check() for check in CHECKS]


def summary_line(results: Sequence[ClaimResult]) -> str:
    """One line: ``N claims: a verified, b erratum, c failed``."""
    counts = Counter(r.status for r in results)
    parts = ", ".join(f"{counts.get(s, 0)} {s}" for s in STATUSES)
    return f"{len(results)} claims: {parts}"


def format_text(results: Sequence[ClaimResult], verbose: bool = False) -> str:
    """Plain-text claim table; errata also show the corrected statement.

    Parameters
    ----------
    results : sequence of ClaimResult
    verbose : bool, optional
        Also print each claim's statement and what was established.
    """
    w_name = max(len("claim"), *(len(r.name) for r in results))
    w_ref = max(len("reference"), *(len(r.reference) for r in results))
    lines = [f"{'#':>3}  {'claim':<{w_name}}  {'reference':<{w_ref}}  status"]
    lines.append("-" * len(lines[0]) + "-" * 4)
    for i, r in enumerate(results, 1):
        lines.append(f"{i:>3}  {r.name:<{w_name}}  {r.reference:<{w_ref}}  {r.status}")
        if verbose:
            lines.append(f"     statement:   {r.statement}")
            lines.append(f"     established: {r.established}")
        if r.corrected:
            lines.append(f"     corrected:   {r.corrected}")
        lines.append(f"     evidence:    {r.evidence}")
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def format_markdown(results: Sequence[ClaimResult], verbose: bool = False) -> str:
    """Markdown claim table, then the corrected statements of the errata.

    Parameters
    ----------
    results : sequence of ClaimResult
    verbose : bool, optional
        Add a section with every claim's statement and what was established.
    """
    lines = [
        "| # | Claim | Reference | Status | Evidence |",
        "|---:|---|---|---|---|",
    ]
    for i, r in enumerate(results, 1):
        lines.append(
            f"| {i} | `{r.name}` | `{r.reference}` | **{r.status}** | {_cell(r.evidence)} |"
        )
    errata = [r for r in results if r.status == "erratum"]
    if errata:
        lines += ["", "### Corrections", ""]
        lines += [f"- `{r.name}` (`{r.reference}`): {_cell(r.corrected or '')}" for r in errata]
    if verbose:
        lines += ["", "### Details", ""]
        for r in results:
            lines += [
                f"- `{r.name}` ({r.status})",
                f"  - statement: {_cell(r.statement)}",
                f"  - established: {_cell(r.established)}",
            ]
    return "\n".join(lines)


class _Parser(argparse.ArgumentParser):
    """Argument parser whose errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m proofs",
        description=(
            "Re-derive every claim of the GCUL paper with SymPy (plus Monte Carlo where a "
            "probability is at stake) and print one row per claim."
        ),
    )
    parser.add_argument("--format", choices=("text", "markdown"), default="text")
    parser.add_argument(
        "--verbose", "-v", action="store_true", help="also print statements and what was shown"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point: print the claim table and a summary line.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name; ``sys.argv[1:]`` when None.
        ``--format {text,markdown}`` (default text), ``--verbose``.

    Returns
    -------
    int
        1 if any claim ``failed``, 2 on a usage error, else 0.
    """
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2)
        return int(exc.code or 0)
    start = time.perf_counter()
    results = run_all()
    elapsed = time.perf_counter() - start
    formatter = format_markdown if args.format == "markdown" else format_text
    print(formatter(results, verbose=args.verbose))
    print()
    line = f"{summary_line(results)} ({elapsed:.1f} s)"
    print(f"**{line}**" if args.format == "markdown" else line)
    return 1 if any(r.status == "failed" for r in results) else 0
