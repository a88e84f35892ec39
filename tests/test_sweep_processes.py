"""``simulations.sweep.processes``: the live processes of a session, read from Linux ``/proc``.

The one reader behind every check that a command's workers end with it (tests/test_faults.py,
tests/test_reproduce_cli.py, tests/test_dask_backend.py, benchmarks/kill_reproduce.py), each of
which had its own copy. A child started in a session of its own stands in for a command.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simulations.sweep.processes import session_processes, wait_for_session_end

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads Linux /proc")

SLEEPER = [sys.executable, "-c", "import time; time.sleep(60)"]


def test_a_session_lists_its_live_members_with_their_command_lines():
    proc = subprocess.Popen(SLEEPER, start_new_session=True)
    try:
        members = session_processes(proc.pid)
        assert members == {proc.pid: " ".join(SLEEPER)}
        assert os.getpid() not in members  # the caller is in another session
        assert os.getpid() in session_processes(os.getsid(0))
    finally:
        proc.kill()
        proc.wait(timeout=10)
    assert session_processes(proc.pid) == {}


def test_a_zombie_is_not_a_live_member():
    proc = subprocess.Popen(SLEEPER, start_new_session=True)
    try:
        os.kill(proc.pid, signal.SIGKILL)  # dead, but not reaped yet: a zombie
        deadline = time.monotonic() + 10
        stat = Path(f"/proc/{proc.pid}/stat")
        while stat.read_text().rsplit(")", 1)[1].split()[0] != "Z":
            assert time.monotonic() < deadline, "the child did not die within 10 s"
            time.sleep(0.01)
        assert session_processes(proc.pid) == {}
    finally:
        proc.wait(timeout=10)


def test_waiting_returns_as_soon_as_the_session_is_empty_or_the_survivors_at_the_deadline():
    proc = subprocess.Popen(SLEEPER, start_new_session=True)
    try:
        start = time.monotonic()
        assert wait_for_session_end(proc.pid, 0.3, poll=0.05) == {proc.pid: " ".join(SLEEPER)}
        assert time.monotonic() - start >= 0.3
        proc.kill()
        proc.wait(timeout=10)
        start = time.monotonic()
        assert wait_for_session_end(proc.pid, 30) == {}
        assert time.monotonic() - start < 10  # it did not wait out its 30 s
    finally:
        proc.kill()
        proc.wait(timeout=10)
