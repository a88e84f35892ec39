"""A tiny reduced sweep shared by the tests of simulations.demo (run once per test session)."""

from __future__ import annotations

import functools

from simulations import demo
from simulations.synthetic import SyntheticConfig

TINY = SyntheticConfig(n_per_class=120, n_confusion=120)


@functools.cache
def tiny_rows() -> tuple[dict, ...]:
    """2 seeds x 4 noise levels (σ = 0, 4, 8, 12) of :data:`TINY`; a tuple, so no test edits it."""
    return tuple(demo.reduced_sweep(seeds=(10, 11), levels=4, step=4.0, config=TINY))
