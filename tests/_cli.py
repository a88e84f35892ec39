"""How the tests call the ``gcul`` command line: in-process, or as a child process in a session
of its own (:func:`child_session`, for the tests that kill a command and look for its workers);
a small ``gcul reproduce`` run."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from simulations.cli import main

REPO = Path(__file__).resolve().parents[1]


def run(argv, capsys):
    """``(exit code, stdout, stderr)`` of ``gcul ARGV`` (argparse's SystemExit included)."""
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


#: What ``gcul reproduce`` writes for one seed (10), in writing order.
OUTPUTS = (
    "results.csv",
    "timings.csv",
    "violations.csv",
    "violations.md",
    "violations.tex",
    "seed10.csv",
    "seed10.md",
    "seed10.tex",
    "phase_transition.png",
    "phase_transition.pdf",
    "predictors.png",
    "predictors.pdf",
    "baselines.csv",
    "baselines.md",
    "baselines.tex",
    "baselines.png",
    "baselines.pdf",
    "risk_coverage.png",
    "risk_coverage.pdf",
    "manifest.json",
)


def small(out, *extra, seeds="10"):
    """The argv of a quiet ``gcul reproduce`` of two noise levels into ``out`` (``extra`` added)."""
    return ["reproduce", "--out", str(out), "--seeds", seeds, "--levels", "2", "--quiet", *extra]


def environment() -> dict[str, str]:
    """The environment of a child process: it imports this worktree and writes no bytecode."""
    path = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    return dict(os.environ, PYTHONPATH=path, PYTHONDONTWRITEBYTECODE="1")


def gcul(*args: str) -> list[str]:
    """The argv of ``gcul ARGS`` run by this interpreter from this worktree (``-m simulations.cli``)."""
    return [sys.executable, "-m", "simulations.cli", *args]


@contextlib.contextmanager
def child_session(
    argv: Sequence[str],
    stderr: Path,
    *,
    stdout: Path | int = subprocess.DEVNULL,
    env: dict[str, str] | None = None,
) -> Iterator[subprocess.Popen]:
    """Start ``argv`` in a session of its own (its workers join it); yield the child.

    ``stderr`` is the file its standard error is written to; ``stdout`` another file, or
    ``subprocess.DEVNULL`` (the default) or ``subprocess.STDOUT`` (into ``stderr``'s file).
    ``env`` defaults to :func:`environment`. However the block ends (a passed test, a
    failed assertion), the whole session is killed (SIGKILL: whatever a failed check left
    running) and the child reaped, so no test leaves a command or its workers behind.
    """
    with contextlib.ExitStack() as files:
        err = files.enter_context(open(stderr, "w"))
        if stdout == subprocess.STDOUT:
            out = err
        elif isinstance(stdout, int):
            out = stdout
        else:
            out = files.enter_context(open(stdout, "w"))
        proc = subprocess.Popen(
            argv,
            stdout=out,
            stderr=err,
            env=environment() if env is None else env,
            start_new_session=True,
        )  # the child holds its own copies of the files, closed here
    try:
        yield proc
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)


def wait_while_running(
    proc: subprocess.Popen,
    done: Callable[[], bool],
    seconds: float,
    what: str,
    log: Path,
    *,
    poll: float = 0.05,
) -> None:
    """Poll until ``done()``; fail if ``proc`` ends first (with the text of its ``log``) or if
    ``seconds`` pass ("no ``what`` in ``seconds`` s")."""
    deadline = time.monotonic() + seconds
    while not done():
        assert proc.poll() is None, log.read_text()
        assert time.monotonic() < deadline, f"no {what} in {seconds:g} s"
        time.sleep(poll)


def cached_cells(out: Path) -> int:
    """How many cells the cache of a ``gcul reproduce --out OUT`` run holds."""
    return len(list((out / "cache").glob("*.json")))
