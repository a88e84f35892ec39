"""What every ``gcul`` command shares: the parser class, one-line errors, argument types.

Every error is one line on stderr (``gcul COMMAND: error: ...``) with exit code 2, never a
traceback (:func:`run`); Ctrl-C is one line and exit code 130; out of memory is one line. A reader
that closes the pipe early ends the command quietly (:func:`discard_stdout`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from importlib import metadata
from typing import NoReturn, TypeVar

from simulations.reproduce import MAX_CELLS  # a light module: a run imports the rest
from simulations.validation import first_line

_N = TypeVar("_N", int, float)

__all__ = [
    "EXIT_BROKEN_PIPE",
    "EXIT_INTERRUPTED",
    "EXIT_USAGE",
    "MAX_MESSAGE",
    "SEED_LIMIT",
    "CommandError",
    "Parser",
    "cost",
    "discard_stdout",
    "emit",
    "flush_stdout",
    "gcul_version",
    "jobs",
    "open_unit",
    "parse_seeds",
    "positive_int",
    "run",
    "seed",
    "shown",
]

EXIT_USAGE = 2
EXIT_BROKEN_PIPE = 1  # as the Python docs' note on SIGPIPE
EXIT_INTERRUPTED = 130
MAX_MESSAGE = 1000
"""Characters of an error message that are printed, at most."""


class CommandError(Exception):
    """A user-facing error: printed as one line, exit code 2."""


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit code 2."""

    #: The top-level parser's subcommand names (set by simulations.cli.build_parser; a
    #: declaration only, so a subcommand's parser has no such attribute).
    command_names: tuple[str, ...]
    #: The top-level parser's parser of each subcommand, by name (set there too): an unknown
    #: option is reported by the command it was given to (:func:`run`).
    command_parsers: dict[str, argparse.ArgumentParser]

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


SEED_LIMIT = 2**32
"""Seeds must be below this (``0 <= seed < 2**32``)."""


def shown(text: str, limit: int = 40) -> str:
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
                f"got {shown(text)}"
            ) from None
        if high >= SEED_LIMIT:
            raise argparse.ArgumentTypeError(
                f"seeds must be below 2**32 = {SEED_LIMIT}; got {high} in {shown(text)}"
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
            f"cells); got {count} in {shown(text)}"
        )
    return [seed for low, high in merged for seed in range(low, high + 1)]


def _checked(
    text: str, convert: Callable[[str], _N], accept: Callable[[_N], bool], expected: str
) -> _N:
    """``convert(text)`` if it parses and is accepted; else an ``ArgumentTypeError`` saying what
    was ``expected`` and what was given (shortened, :func:`shown`)."""
    try:
        value = convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}; got {shown(text)}") from None
    if not accept(value):
        raise argparse.ArgumentTypeError(f"expected {expected}; got {shown(text)}")
    return value


def positive_int(text: str) -> int:
    """``--levels`` and other counts: an integer >= 1."""
    return _checked(text, int, lambda value: value >= 1, "a positive integer")


def jobs(text: str) -> int:
    """``--jobs``: a non-zero integer, joblib semantics (-1 = all usable cores)."""
    return _checked(
        text,
        int,
        lambda value: value != 0,
        "a non-zero integer (N workers, -1 = all usable cores, -2 = all but one)",
    )


def cost(text: str) -> float:
    """``--lam``: a number in [0, 1)."""
    return _checked(text, float, lambda value: 0.0 <= value < 1.0, "a number in [0, 1)")


def open_unit(text: str) -> float:
    """A number strictly between 0 and 1 (``--calibration``, ``--delta``)."""
    return _checked(
        text, float, lambda value: 0.0 < value < 1.0, "a number strictly between 0 and 1"
    )


def seed(text: str) -> int:
    """``--seed``: an integer in [0, 2**32)."""
    return _checked(text, int, lambda value: 0 <= value < SEED_LIMIT, "an integer in [0, 2**32)")


def gcul_version() -> str:
    """The installed distribution's version, else ``simulations.__version__`` (source tree)."""
    try:
        return metadata.version("gcul")
    except metadata.PackageNotFoundError:
        from simulations import __version__

        return __version__


def discard_stdout() -> None:
    """Point stdout at the null device after a closed pipe (the Python docs' "Note on SIGPIPE").

    Otherwise the interpreter's final flush of stdout fails again and prints "Exception ignored
    ... BrokenPipeError". A no-op when stdout has no file descriptor (e.g. under pytest).
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def emit(text: str) -> None:
    """``print(text)`` on stdout; a failed write names stdout and where it points.

    Without this a full disk under ``gcul feasibility > report.txt`` said only "error: No space
    left on device", naming no file (see :func:`stdout_error`).
    """
    try:
        print(text)
    except BrokenPipeError:
        raise  # main() ends quietly
    except OSError as error:
        raise stdout_error(error) from None


def flush_stdout() -> None:
    """``sys.stdout.flush()``; a failed write names stdout and where it points."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        raise stdout_error(error) from None


def stdout_error(error: OSError) -> OSError:
    """``error`` (its class and errno) with ``filename`` naming stdout: ``"stdout"``, and the file
    it is redirected to where the system says (``/proc/self/fd/1`` on Linux), e.g.
    ``"stdout (/mnt/full/report.txt)"``."""
    where = "stdout"
    try:
        target = os.readlink(f"/proc/self/fd/{sys.stdout.fileno()}")
    except (OSError, ValueError, AttributeError):  # no such file system, or no descriptor
        target = None
    if target:
        where = f"stdout ({target})"
    discard_stdout()  # the rest would fail too, and the interpreter's last flush with a traceback
    if error.errno is None:
        return OSError(f"{where}: {first_line(error)}")
    return type(error)(error.errno, error.strerror or os.strerror(error.errno), where)


def run(parser: argparse.ArgumentParser, argv: list[str]) -> int:
    if not argv:
        # the command list is what a bare `gcul` asks for: print it (stdout, like --help); the
        # error itself keeps the one-line contract on stderr, and the exit code says nothing ran
        parser.print_help()
        names = tuple(getattr(parser, "command_names", ()))
        listed = f"{', '.join(names[:-1])} or {names[-1]}; " if len(names) > 1 else ""
        print(f"gcul: error: a command is required ({listed}listed above)", file=sys.stderr)
        return EXIT_USAGE
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # parse_args would say "gcul: error:"; the command's own parser names it
        name = getattr(args, "command", None)
        command = getattr(parser, "command_parsers", {}).get(name)
        if name in argv and any(token in argv[: argv.index(name)] for token in unknown):
            command = None  # given before the command's name: to gcul itself
        (command or parser).error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        code = int(args.handler(args))
        flush_stdout()  # here, so that a full disk is one line naming stdout, exit code 2
        return code
    except KeyboardInterrupt:
        print(f"gcul {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except MemoryError:
        print(
            f"gcul {args.command}: error: out of memory; the input is too large for this machine",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except BrokenPipeError:
        raise  # main() ends quietly
    except (CommandError, ValueError, TypeError, OSError) as exc:
        message = first_line(exc)
        if isinstance(exc, OSError) and exc.strerror:  # a file or the system: name the file
            message = f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
        if len(message) > MAX_MESSAGE:
            message = message[: MAX_MESSAGE - 3] + "..."
        print(f"gcul {args.command}: error: {message}", file=sys.stderr)
        return EXIT_USAGE
