"""Fitted GCULs and rejector contexts on synthetic cells, shared by the test_rejectors_* modules."""

from __future__ import annotations

import functools

import numpy as np

from simulations.gcul import GCUL
from simulations.rejectors.evaluate import coverage_context
from simulations.synthetic import SyntheticConfig, make_dataset

PAPER = SyntheticConfig()
SMALL = SyntheticConfig(n_per_class=300, n_confusion=300)


@functools.cache
def cell(seed: int, noise: float, config: SyntheticConfig = PAPER):
    """``(data, model, context)`` of one cell; the context targets GCUL's test coverage (and
    holds the cell's mixture, ``data.mixture``)."""
    data = make_dataset(seed, noise, config)
    model = GCUL().fit(data.X_train, data.y_train)
    context = coverage_context(
        data, model, seed=np.random.SeedSequence([seed, int(round(noise * 10))])
    )
    return data, model, context
