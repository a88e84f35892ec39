"""How the text benchmark's stand-in (a) is expressed, and why it matters: decision scores
(log-scores) against probabilities (issue 31, defect 3).

Stand-in (a) of ``benchmarks/text_emotion.py`` gives each row the C out-of-fold decision scores
``w_c·x + b_c`` of a TF-IDF + logistic-regression model: the inputs of the softmax. The same
model could be handed over as probabilities (the softmax of those scores). This script runs
`gcul compare` on both forms of the same representation, over the benchmark's splits, and prints
GCUL's coverage and the MSP verdict for each, so the text report can say what the choice does.

Run from the repository root (after the benchmark has cached its representations)::

    PYTHONPATH=$PWD python benchmarks/text_score_form.py CORPORA --cache CACHE [--corpus carer]

Prints a Markdown table to stdout.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from simulations.compare import compare
from simulations.models import single_threaded_blas
from simulations.text.representations import cached_representation
from simulations.text.study import CORPORA, CORPUS_TITLE, LAM, SEED, TEST_SIZE, load_pooled


def softmax(scores: np.ndarray) -> np.ndarray:
    """Row-wise softmax, computed from the largest score down (no overflow)."""
    shifted = scores - scores.max(axis=1, keepdims=True)
    weights = np.exp(shifted)
    return weights / weights.sum(axis=1, keepdims=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", help="folder holding goemotions/ and carer/")
    parser.add_argument("--cache", default=None, help="the benchmark's representation cache")
    parser.add_argument("--corpus", choices=CORPORA, action="append")
    parser.add_argument("--splits", type=int, default=5)
    args = parser.parse_args(argv)
    print("| corpus | form of (a) | GCUL coverage (%) | MSP vs GCUL at GCUL's coverage |")
    print("|---|---|--:|---|")
    for corpus in args.corpus or CORPORA:
        texts, y, _, _ = load_pooled(Path(args.corpora), corpus)
        scores = cached_representation("oof_logistic", texts, y, corpus=corpus, split="pooled",
                                       seed=SEED, cache_dir=args.cache)  # fmt: skip
        for form, Z in (("decision scores (the benchmark's)", scores), ("probabilities", softmax(scores))):
            with single_threaded_blas():
                result = compare(Z, y, lam=LAM, splits=args.splits, seed=SEED,
                                 test_size=TEST_SIZE)  # fmt: skip
            gcul = next(r for r in result.rejectors if r.name == "gcul")
            msp = next(r for r in result.rejectors if r.name == "msp")
            print(f"| {CORPUS_TITLE[corpus]} | {form} | "
                  f"{100 * gcul.coverage.mean:.2f} ± {100 * gcul.coverage.se:.2f} | {msp.verdict} |",
                  flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
