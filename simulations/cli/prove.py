"""``gcul prove``: re-derive the paper's claims with SymPy (:func:`proofs.main`)."""

from __future__ import annotations

import argparse

from simulations.cli.common import stdout_error

__all__ = ["add_parser", "run"]


def add_parser(commands) -> None:
    """Add the command's parser to ``commands`` (argparse sub-parsers)."""
    prove = commands.add_parser(
        "prove",
        help="re-derive the paper's claims with SymPy and print the report",
        description="Check every claim of the GCUL paper (and of the package's own predictors): "
        "each row gives where the claim is in the paper (number and title, as its PDF prints "
        "them), the statement as printed, what was computed, the verdict (verified / erratum / "
        "failed) and, for an erratum, the counterexample and the corrected statement. Exit 1 if "
        "a check failed.",
    )
    prove.add_argument(
        "--format",
        choices=("text", "markdown", "json", "latex"),
        default="text",
        help="report as plain text, a Markdown table, JSON or a booktabs LaTeX longtable; with "
        "--claim, that claim's derivation in the same format (default: %(default)s)",
    )
    prove.add_argument(
        "--claim",
        metavar="ID",
        default=None,
        help="print one claim's derivation step by step, e.g. asymptotics.dispersion_limit "
        "(an unknown ID exits 2 and lists close matches)",
    )
    prove.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``gcul prove``: the claims' report of :mod:`proofs`."""
    import proofs

    argv = ["--format", args.format]
    if args.claim is not None:
        argv += ["--claim", args.claim]
    try:
        return proofs.main(argv, prog="gcul prove")
    except BrokenPipeError:
        raise
    except OSError as error:  # the report, printed on stdout, could not be written (a full disk)
        if error.filename is not None:
            raise
        raise stdout_error(error) from None
