"""The one way the tests call the ``gcul`` command line in-process."""

from __future__ import annotations

from simulations.cli import main


def run(argv, capsys):
    """``(exit code, stdout, stderr)`` of ``gcul ARGV`` (argparse's SystemExit included)."""
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err
