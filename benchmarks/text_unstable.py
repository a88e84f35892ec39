"""Why GCUL's rejection jumps between splits on some text representations (issue 31, defect 2).

GCUL relabels exactly one cluster, the least pure, as ``uncertain``. Where several clusters have
nearly the same purity but very different sizes, which one is least pure changes from split to
split, and the rejection rate jumps with it. This script prints, for each split of the text
benchmark (the same stratified splits), the chosen cluster's size and purity, the next purities,
and the test rejection, so the report's per-split rejections can be traced to their cause.

Run from the repository root (after the benchmark has cached its representations)::

    PYTHONPATH=$PWD python benchmarks/text_unstable.py CORPORA --cache CACHE \\
        --corpus goemotions --representation oof_logistic
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from simulations.compare import stratified_splits
from simulations.gcul import GCUL
from simulations.models import single_threaded_blas
from simulations.text.representations import REPRESENTATIONS, cached_representation
from simulations.text.study import CORPORA, SEED, TEST_SIZE, load_pooled


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", help="folder holding goemotions/ and carer/")
    parser.add_argument("--cache", default=None, help="the benchmark's representation cache")
    parser.add_argument("--corpus", choices=CORPORA, required=True)
    parser.add_argument("--representation", choices=tuple(REPRESENTATIONS), required=True)
    parser.add_argument("--splits", type=int, default=5)
    args = parser.parse_args(argv)
    texts, y, _, _ = load_pooled(Path(args.corpora), args.corpus)
    Z = cached_representation(args.representation, texts, y, corpus=args.corpus, split="pooled",
                              seed=SEED, cache_dir=args.cache)  # fmt: skip
    print("| split | uncertain cluster: training rows, purity | the next two purities | test rejection (%) |")
    print("|--:|---|---|--:|")
    splits = stratified_splits(y, args.splits, TEST_SIZE, SEED)
    for i, (train, test) in enumerate(splits):
        with single_threaded_blas():
            model = GCUL().fit(Z[train], y[train])
        if not model.can_reject_:
            print(f"| {i} | none (no error pool) | — | 0.0 |")
            continue
        u = model.uncertain_cluster_
        size = int(np.count_nonzero(model.cluster_labels_ == u))
        others = np.sort(np.delete(model.purities_, u))[:2]
        rejection = model.indicators(Z[test], y[test]).rejection_rate
        print(f"| {i} | {size:,}, {model.purities_[u]:.3f} | {others[0]:.3f}, {others[1]:.3f} | "
              f"{100 * rejection:.1f} |", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
