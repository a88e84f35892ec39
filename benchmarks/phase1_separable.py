"""When phase 1 separates its training set: GCUL's in-sample error pool is empty, the out-of-fold
one is not (issue 22, item 3).

The paper's synthetic protocol lifted to embedding width: d = 768, K = 5 classes, centres uniform
in [-10, 10]^d, class k ~ N(centre_k, 1.5² I), 3,800 rows each, plus 1,000 confusion rows
~ N(mean of the centres, 1.5² I) with labels uniform over the K classes: 20,000 rows. One stratified
80/20 split (:func:`simulations.certification.stratified_split`, seed 0). In 768 dimensions the
~800 confusion rows of the training part, whatever their labels, are linearly separable from each
other and from the classes, so phase 1 (a multinomial logistic regression, C = 1) makes no
training error and ``GCUL()`` cannot reject; ``GCUL(error_pool="out_of_fold")`` clusters the
errors phase 1 makes on held-out folds, which are the confusion rows.

Prints one JSON line per pool: pool size and how much of it is confusion rows, and on the test
part phase 1's error, GCUL's rejection rate and selective error, the share of rejected rows that
are confusion rows and the share of confusion rows rejected, and the fit's CPU seconds.
``--save DIR`` also writes ``Z.npy`` and ``y.npy`` for ``gcul feasibility``/``gcul compare``.

Usage::

    PYTHONPATH=$PWD python benchmarks/phase1_separable.py [--save DIR]
"""

from __future__ import annotations

import argparse
import json
import resource
from pathlib import Path

import numpy as np

from simulations.certification import stratified_split
from simulations.gcul import GCUL

SEED = 20261127
N_CLASSES, DIM, PER_CLASS, N_CONFUSION = 5, 768, 3800, 1000


def make_data(seed: int = SEED) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``Z`` (20,000 x 768), labels ``y`` and the mask of the confusion rows."""
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-10, 10, (N_CLASSES, DIM))
    Z = np.vstack(
        [rng.normal(c, 1.5, (PER_CLASS, DIM)) for c in centres]
        + [rng.normal(centres.mean(axis=0), 1.5, (N_CONFUSION, DIM))]
    )
    y = np.r_[np.repeat(np.arange(N_CLASSES), PER_CLASS), rng.integers(0, N_CLASSES, N_CONFUSION)]
    confusion = np.r_[np.zeros(N_CLASSES * PER_CLASS, bool), np.ones(N_CONFUSION, bool)]
    return Z, y, confusion


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--save", type=Path, default=None, help="write Z.npy and y.npy here")
    args = parser.parse_args()
    Z, y, confusion = make_data()
    if args.save is not None:
        args.save.mkdir(parents=True, exist_ok=True)
        np.save(args.save / "Z.npy", Z)
        np.save(args.save / "y.npy", y)
    test = stratified_split(y, 0.2, seed=0)
    train = ~test
    for pool in ("in_sample", "out_of_fold"):
        start = _cpu()
        model = GCUL(error_pool=pool).fit(Z[train], y[train])
        cpu = _cpu() - start
        accepted = model.accepts(Z[test])
        rejected = ~accepted
        wrong = model.predict(Z[test]) != y[test]
        row = {
            "error_pool": pool,
            "n_train": int(train.sum()),
            "confusion_rows_in_train": int(confusion[train].sum()),
            "n_error_pool": model.n_error_pool_,
            "pool_rows_from_confusion": int(np.count_nonzero(model.error_mask_ & confusion[train])),
            "can_reject": bool(model.can_reject_),
            "test_base_error": float(np.mean(model.phase1_.predict(Z[test]) != y[test])),
            "test_rejection_rate": float(rejected.mean()),
            "test_selective_error": float((wrong & accepted).sum() / max(accepted.sum(), 1)),
            "rejected_from_confusion": float(confusion[test][rejected].mean())
            if rejected.any()
            else None,
            "confusion_rejected": float(rejected[confusion[test]].mean()),
            "fit_cpu_seconds": round(cpu, 1),
            "note": model.error_pool_note_,
        }
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
