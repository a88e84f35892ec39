"""The synthetic sweep: two GCUL fits per ``(seed, σ)`` cell, in parallel, resumable.

:func:`run_cell` computes one row of :data:`~simulations.results.ROW_COLUMNS`: λ*_PRE of every
predictor of :data:`gcul_theory.PREDICTORS` for a GCUL fitted on the whole training split, and the
certified λ*_CERT of a second GCUL fitted on 80% of it; :func:`run_sweep` runs a grid of cells with
joblib, caches every finished cell on disk and returns the rows sorted by ``(seed, noise)``. A row
depends only on ``(seed, σ, config)`` — never on ``n_jobs``, the joblib backend, the order in which
cells run, or whether it came from the cache — and holds no wall time, so the rows (and the
``results.csv`` written from them) are identical however the sweep ran. The wall time of each cell
is reported apart, in :attr:`SweepRows.timings`.

Every cached cell carries its own identity (seed, σ, the protocol config, a fingerprint of the code
that computed it) and a SHA-256 checksum of its canonical payload; a cache file that does not
verify, or whose values leave their documented ranges, is recomputed and reported on stderr.

Where a change goes (one module per concern):

- ``cell.py``: the science of one cell (what a row holds; the certified fit);
- ``grid.py``: the arguments of a sweep, checked once (:func:`plan_sweep`), and its run;
- ``backends.py``: where the cells run (loky, dask), worker start-up and death;
- ``processes.py``: which processes of a session still live (the checks that no worker outlives
  its command);
- ``cache.py``: the cell files, their identity and checksum, the code fingerprint;
- ``progress.py``: the progress line and its ETA.

References
----------
.. [1] "GCUL: Ambiguity Identification in Text Emotion Classification via Cluster-Guided
   Learning" (the GCUL paper), Section "Synthetic phase-transition verification"
   (``subsec:synthetic_exp``, ``fig:synthetic_dynamics``, ``tab:violation_analysis``) and its
   appendix counterpart in ``app:experimental_details`` (``tab:synthetic_data_params``,
   ``tab:gcul_params``).
"""

from __future__ import annotations

from simulations.results import GEOMETRY_LABELS
from simulations.sweep.backends import BACKENDS, SCHEDULER_TIMEOUT, SweepError, usable_cores
from simulations.sweep.cache import CACHE_LOCK, CACHE_VERSION, CELL_MAX_BYTES, CODE_PACKAGES
from simulations.sweep.cell import DEFAULT_CONFIG, LAMBDA_METHODS, run_cell
from simulations.sweep.grid import SweepPlan, SweepRows, plan_sweep, run_sweep

__all__ = [
    "BACKENDS",
    "CACHE_LOCK",
    "CACHE_VERSION",
    "CELL_MAX_BYTES",
    "CODE_PACKAGES",
    "DEFAULT_CONFIG",
    "GEOMETRY_LABELS",
    "LAMBDA_METHODS",
    "SCHEDULER_TIMEOUT",
    "SweepError",
    "SweepPlan",
    "SweepRows",
    "plan_sweep",
    "run_cell",
    "run_sweep",
    "usable_cores",
]
