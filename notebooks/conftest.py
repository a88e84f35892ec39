"""pytest configuration for ``pytest --nbmake notebooks/``: no cell waits out its time limit.

The stall this removes (issue 32): ``pytest --nbmake`` on a notebook took 5 min 22 s where the
same notebook runs in about 20 s, and about one run in four, under load, waited the whole
per-cell limit (``--nbmake-timeout``, 300 s) on the cell of ``demo.sliders`` and then passed.

The cause, measured (not ours, nor nbmake's): nbclient waits for a cell's reply with one poll
of the kernel's shell socket (a ``zmq.asyncio`` socket, which watches libzmq's edge-triggered
``ZMQ_FD``). The slider cell's ``ipywidgets`` output widget makes nbclient answer each output
it captures with a ``comm_msg`` on that same socket, and ``jupyter_client.session.Session.send``
sends it through a *blocking shadow* of the socket. When the reply has arrived and the event
loop has not yet looked at the socket, that send makes libzmq process the arrival itself and
clear the edge, and nothing tells the asyncio socket: its poll sleeps until its timeout, then
finds the reply. pyzmq's own asyncio send looks at ``ZMQ_EVENTS`` again after sending for this
reason; ``Session.send`` bypasses it. A stand-alone repro (a DEALER with a pending
``poll(5000)``, the reply in, the loop busy for 0.2 s, one shadow send) waits 5.00 s, 5 times of 5;
with the look after the send, 0.25 s.

So, for nbmake runs, ``Session.send`` on an asyncio socket is followed by that look (when
something waits on the socket), which wakes the poll at once. The suite's own notebook test
(``tests/test_notebooks.py``) guards the same waits by polling in 1 s slices.
"""

from __future__ import annotations

import functools

import pytest


def wake_pollers_after_send(send):
    """``Session.send`` followed by pyzmq's re-check of the socket's events (module docstring)."""
    if getattr(send, "wakes_pollers", False):
        return send

    @functools.wraps(send)
    def send_then_wake(self, stream, *args, **kwargs):
        sent = send(self, stream, *args, **kwargs)
        import zmq.asyncio

        # what zmq.asyncio's own send does after sending (pyzmq's private names: where a release
        # renames them, nothing is done, and tests/test_notebooks.py says the stall is back)
        waiting = getattr(stream, "_recv_futures", None)
        recheck = getattr(stream, "_schedule_remaining_events", None)
        if isinstance(stream, zmq.asyncio.Socket) and not stream.closed and waiting and recheck:
            recheck()
        return sent

    send_then_wake.wakes_pollers = True
    return send_then_wake


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("nbmake", default=False):
        from jupyter_client.session import Session

        Session.send = wake_pollers_after_send(Session.send)
