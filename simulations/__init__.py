"""Simulations: a minimal NumPy GCUL, the synthetic protocol, the parallel sweep, tables, figures and the CLI.

The public API, importable from here::

    from simulations import GCUL, Certificate, make_dataset, run_sweep, reproduce

- :class:`GCUL` (:mod:`simulations.gcul`): the three phases of the GCUL paper; ``certify`` returns a
  :class:`Certificate`.
- :func:`make_dataset` (:mod:`simulations.synthetic`): one ``(seed, σ)`` dataset of the synthetic
  protocol.
- :func:`run_sweep` (:mod:`simulations.sweep`): a grid of cells, in parallel, resumable.
- :func:`reproduce` (:mod:`simulations.reproduce`): one run of ``gcul reproduce``, from its
  arguments to its files.

Where a change goes: the row schema and its CSV in ``results.py``; how files are written (atomic
writes, the folder lock) in ``outputs.py``; a run's outputs and manifest in ``reproduce.py``; the
science of one cell in ``sweep/cell.py``; a command of ``gcul`` in ``cli/``.

Only :func:`reproduce` is imported with the package (it is light, and the name is also its module's:
importing it here makes ``simulations.reproduce`` the function); the others are imported when first
used, so that ``gcul --version`` does not pay for NumPy/SciPy fits and joblib.
"""

from __future__ import annotations

import importlib

from simulations.reproduce import reproduce

__version__ = "0.1.0"  # keep equal to [project] version in pyproject.toml (a test checks)

__all__ = ["GCUL", "Certificate", "__version__", "make_dataset", "reproduce", "run_sweep"]

_LAZY = {
    "GCUL": "simulations.gcul",
    "Certificate": "simulations.gcul",
    "make_dataset": "simulations.synthetic",
    "run_sweep": "simulations.sweep",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'simulations' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
