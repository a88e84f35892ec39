"""``python -m proofs``: print the claim table; exit 1 if any claim failed.

A reader that closes the pipe early (``python -m proofs --claim ID | head -1``) ends the command
quietly with exit code 1, as ``gcul`` does (the Python documentation's note on SIGPIPE), instead
of a ``BrokenPipeError`` traceback.
"""

import os
import sys

from ._runner import main


def _run() -> int:
    try:
        try:
            return main()
        finally:
            sys.stdout.flush()  # here, not at exit, so that a closed pipe is caught below
    except BrokenPipeError:
        # point stdout at the null device, or the interpreter's final flush fails again
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 1


raise SystemExit(_run())
