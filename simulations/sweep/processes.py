"""The live processes of a session, read from Linux ``/proc``: did every worker end?

A sweep's workers (loky's, or a dask ``LocalCluster``'s) must not outlive the command that started
them, whether it ends, is interrupted or is killed. The tests of that, and
``benchmarks/kill_reproduce.py``, start the command in a session of its own
(``subprocess.Popen(..., start_new_session=True)``, so the session id is the command's pid) and
then read which processes of that session are still alive: this module is that one reader.
"""

from __future__ import annotations

import time
from pathlib import Path

__all__ = ["session_processes", "wait_for_session_end"]


def session_processes(session: int) -> dict[int, str]:
    """The live (non-zombie) processes of ``session``: ``{pid: command line}``, by pid.

    Read from ``/proc/<pid>/stat`` (field 6, the session id; field 3, the state, ``Z`` for a
    zombie) and ``/proc/<pid>/cmdline``; a process that ends while it is read is left out.

    Parameters
    ----------
    session : int
        The session id: the pid of the process started with ``start_new_session=True``.

    Returns
    -------
    dict of int to str
        Each live member's pid and its command line (arguments joined by spaces), pids in
        increasing order; empty when none is left.

    Raises
    ------
    OSError
        Where there is no ``/proc`` (not Linux).

    Examples
    --------
    >>> import os, sys
    >>> os.getpid() in session_processes(os.getsid(0)) if sys.platform == "linux" else True
    True
    """
    members = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            text = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:  # the process ended while we looked
            continue
        fields = text[text.rindex(")") + 2 :].split()  # after "pid (comm) "
        state, session_id = fields[0], int(fields[3])
        if session_id == session and state != "Z":
            members[int(entry.name)] = command.strip()
    return dict(sorted(members.items()))


def wait_for_session_end(session: int, timeout: float, poll: float = 0.1) -> dict[int, str]:
    """Wait up to ``timeout`` seconds for every process of ``session`` to end.

    Parameters
    ----------
    session : int
        The session id (see :func:`session_processes`).
    timeout : float
        Seconds to wait at most.
    poll : float, default 0.1
        Seconds between two reads of ``/proc``.

    Returns
    -------
    dict of int to str
        The processes still alive when it returns (:func:`session_processes`): empty as soon as
        none is left, else those alive after ``timeout``.
    """
    deadline = time.monotonic() + timeout
    alive = session_processes(session)
    while alive and time.monotonic() < deadline:
        time.sleep(poll)
        alive = session_processes(session)
    return alive
