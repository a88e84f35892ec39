"""The ``gcul`` command line: ``gcul reproduce``, ``prove``, ``feasibility``, ``compare``, ``demo``,
``info``.

Every error is one line on stderr (``gcul: error: ...``) with exit code 2, never a traceback; a
bare ``gcul`` also prints the command list (on stdout, like ``--help``). ``gcul --version``
prints the version. Output cut short by its reader (``| head``) ends quietly with exit code 1.

One module per command (``reproduce.py``, ``prove.py``, ``feasibility.py``, ``demo.py``,
``info.py``), each with ``add_parser(commands)`` and ``run(args)``: the command parses its
options, calls the public function that does the work (:func:`simulations.reproduce.reproduce`,
:func:`simulations.feasibility.assess`, ...) and prints what it returns. What they share (the
parser class, one-line errors, argument types) is in ``common.py``; reading arrays from files in
``loaders.py``. A new command is a new module here and one line in :data:`COMMANDS`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from simulations.cli import compare, demo, feasibility, info, prove, reproduce
from simulations.cli.common import (
    EXIT_BROKEN_PIPE,
    EXIT_USAGE,
    Parser,
    discard_stdout,
    gcul_version,
    parse_seeds,
    run,
    stdout_error,
)

__all__ = ["COMMANDS", "build_parser", "main", "parse_seeds"]

COMMANDS = (reproduce, prove, feasibility, compare, demo, info)
"""The modules of the commands, in the order ``gcul --help`` lists them."""


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``gcul``: ``--version`` and one sub-parser per module of :data:`COMMANDS`."""
    parser = Parser(
        prog="gcul",
        description="GCUL: theory, numerically verified proofs and the synthetic phase-transition experiment.",
        epilog="`gcul COMMAND --help` describes a command.",
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"gcul {gcul_version()}",
        help="print the installed version of gcul and exit",
    )
    commands = parser.add_subparsers(
        dest="command", required=True, parser_class=Parser, metavar="COMMAND"
    )
    for command in COMMANDS:
        command.add_parser(commands)
    # the names a bare `gcul` lists in its error (a new command appears there by itself)
    parser.command_names = tuple(commands.choices)
    # each command's parser, so that an unknown option is reported by the command it was given
    # to ("gcul compare: error: unrecognized arguments: ..."), see common.run
    parser.command_parsers = dict(commands.choices)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``gcul`` command line; returns the exit code.

    A reader that closes the pipe early (``gcul ... | head -2``) ends the command quietly with
    exit code 1, as the Python documentation recommends for ``BrokenPipeError``.
    """
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        try:
            code = run(parser, argv)
        finally:
            # flush here, not at exit, so that a closed pipe is caught below (also after
            # --help and --version, which leave through SystemExit)
            sys.stdout.flush()
    except BrokenPipeError:
        discard_stdout()
        return EXIT_BROKEN_PIPE
    except OSError as error:  # stdout cannot be written (a full disk) after --help, --version
        named = stdout_error(error)  # which also points stdout at the null device
        print(f"gcul: error: {named.filename}: {named.strerror or error}", file=sys.stderr)
        return EXIT_USAGE
    return code
