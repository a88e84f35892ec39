"""Progress of a sweep on stderr: cells done, elapsed time and an ETA that leaves out start-up."""

from __future__ import annotations

import math
import sys
import time

import numpy as np

__all__ = ["ProgressBar", "format_seconds"]


class ProgressBar:
    """Progress on stderr: done/total, elapsed time, ETA.

    On a terminal, one self-overwriting line (``\\r``), redrawn at most every 0.2 s. Otherwise
    (a file, a pipe, a CI log) plain lines: the first state, then whenever another 10% of the
    cells is done or 5 s have passed, and the final state exactly once.

    The ETA leaves out what happens once: starting the worker processes, and the first cell of
    each worker, which pays for its imports and first calls (1.7 s against 0.15 s for the next
    ones, measured with 2 workers). The elapsed time over the cells done, which it was, said
    11m36s after the first cell of a 50 s run. So it is "?" until a cell after the first
    ``workers`` ends; then the remaining cells, in rounds of ``workers`` at once, times the mean
    time those later cells took in their workers; from ``11 * workers`` cells on, the remaining
    cells over the rate at which cells have ended since the first ``workers`` ended (which also
    counts the time spent between cells: dispatch, the cache, a machine shared with other work;
    it waits for ``10 * workers`` cells in that window because workers that end cells together
    make the rate of a short window low by up to one cell).
    """

    _MIN_INTERVAL = 0.2  # seconds between redraws on a terminal
    _LOG_INTERVAL = 5.0  # seconds between plain lines in a log ...
    _LOG_STEPS = 10  # ... or one line per tenth of the cells

    def __init__(self, total: int, done: int, enabled: bool, workers: int = 1) -> None:
        self.total, self.done, self.enabled = total, done, enabled
        self.cached = done
        self.workers = max(1, workers)  # cells computed at once
        self.cell_seconds = 0.0  # summed over the computed cells after the first `workers`
        self.start = time.perf_counter()
        self.steady: float | None = None  # when the first `workers` computed cells had ended
        isatty = getattr(sys.stderr, "isatty", None)
        self.tty = bool(isatty and isatty())
        self.last_draw = -np.inf
        self.last_step = -1
        self.last_logged: int | None = None
        self.width = 0
        self._draw(force=True)

    def advance(self, seconds: float = 0.0) -> None:
        self.done += 1
        computed = self.done - self.cached
        if computed > self.workers:
            self.cell_seconds += seconds
        elif computed == self.workers:
            self.steady = time.perf_counter()
        self._draw(force=self.done == self.total and self.tty)

    def close(self) -> None:
        if not self.enabled:
            return
        if self.tty:
            self._draw(force=True)
            sys.stderr.write("\n")
        elif self.last_logged != self.done:
            self._draw(force=True)
        sys.stderr.flush()

    def _draw(self, force: bool) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        step = self.done * self._LOG_STEPS // max(self.total, 1)
        if not force:
            if self.tty and now - self.last_draw < self._MIN_INTERVAL:
                return
            if not self.tty and (
                self.done == self.total  # the final line is written once, by close()
                or (step == self.last_step and now - self.last_draw < self._LOG_INTERVAL)
            ):
                return
        self.last_draw, self.last_step = now, step
        text = self._text(now)
        if self.tty:
            sys.stderr.write("\r" + text.ljust(self.width))
            self.width = len(text)
        else:
            sys.stderr.write(text + "\n")
            self.last_logged = self.done
        sys.stderr.flush()

    def _text(self, now: float) -> str:
        elapsed = now - self.start
        computed = self.done - self.cached
        remaining = self.total - self.done
        if remaining == 0:
            eta = "0s"
        elif computed >= 11 * self.workers and self.steady is not None and now > self.steady:
            rate = (computed - self.workers) / (now - self.steady)  # cells a second, steady state
            eta = format_seconds(remaining / rate)
        elif computed > self.workers:
            rounds = math.ceil(remaining / self.workers)
            eta = format_seconds(rounds * self.cell_seconds / (computed - self.workers))
        else:
            eta = "?"
        cached = f" ({self.cached} cached)" if self.cached else ""
        return (
            f"sweep: {self.done}/{self.total} cells{cached} | elapsed "
            f"{format_seconds(elapsed)} | ETA {eta}"
        )


def format_seconds(seconds: float) -> str:
    """``49s``, ``2m05s`` or ``1h02m03s``.

    Examples
    --------
    >>> format_seconds(49.4), format_seconds(125), format_seconds(3723)
    ('49s', '2m05s', '1h02m03s')
    """
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m{secs:02d}s"
    if minutes:
        return f"{minutes}m{secs:02d}s"
    return f"{secs}s"
