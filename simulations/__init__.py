"""Simulations: a minimal NumPy GCUL, the synthetic protocol, the parallel sweep, tables, figures and the CLI.

The public Python API, importable from here:

- :class:`GCUL` (:mod:`simulations.gcul`): the selective classifier, a scikit-learn estimator;
- :class:`Certificate` (:mod:`simulations.certification`): what :meth:`GCUL.certify` returns;
- :func:`make_dataset` (:mod:`simulations.synthetic`): one seed and noise level of the synthetic
  protocol;
- :func:`run_sweep` (:mod:`simulations.sweep`): the parallel sweep over noise levels and seeds;
- :func:`reproduce` (:mod:`simulations.reproduce`): one run of ``gcul reproduce``, from its
  arguments to its files.

Where a change goes: the row schema and its CSV in ``results.py``; how files are written (atomic
writes, the folder lock) in ``outputs.py``; a run's outputs and manifest in ``reproduce.py``; the
science of one cell in ``sweep/cell.py``; a judged method's label, style, validity wording and
results columns in ``registry.py`` (a predictor: its theory in ``gcul_theory``, then one entry
there; a rejector: one module and one entry in ``rejectors/``, then its label and style there);
a table in ``report/``; a figure in ``figures/``; a lesson in ``demo/``; a command of ``gcul`` in
``cli/``; ``gcul compare``'s protocol in ``compare/`` (its operating points along each baseline's
knob in ``compare/sensitivity.py``); a statistic (splits, paired t test, AUC and its standard
errors, Holm) in ``statistics/``; a predictor measured on a training split in
``training_predictors.py``. The studies of ``benchmarks/`` are drivers; their science is here: the
text benchmark's in ``text/`` (the corpora and splits both text studies share in
``text/study.py``), the regime map's in ``regime_map/``.

:func:`reproduce` is imported with the package (it is light, and the name is also its module's:
importing it here makes ``simulations.reproduce`` the function whatever was imported before). The
others are imported on first use (module ``__getattr__``, PEP 562), so ``import simulations`` stays
cheap: scikit-learn, which :class:`GCUL` needs for its estimator API, is loaded only by a process
that uses GCUL (the sweep's workers), not by the one that schedules them or writes the tables.

Examples
--------
>>> from simulations import GCUL, make_dataset
>>> data = make_dataset(seed=10, noise=0.0)
>>> model = GCUL().fit(data.X_train, data.y_train)
>>> model.n_classes_, model.uncertain_label_
(5, 5)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from simulations.reproduce import reproduce

__version__ = "0.1.0"  # keep equal to [project] version in pyproject.toml (a test checks)

if TYPE_CHECKING:
    from simulations.certification import Certificate
    from simulations.gcul import GCUL
    from simulations.sweep import run_sweep
    from simulations.synthetic import make_dataset

# public name -> the module that defines it
_EXPORTS = {
    "Certificate": "simulations.certification",
    "GCUL": "simulations.gcul",
    "make_dataset": "simulations.synthetic",
    "run_sweep": "simulations.sweep",
}

__all__ = ["Certificate", "GCUL", "make_dataset", "reproduce", "run_sweep"]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # the next access is a plain lookup
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
