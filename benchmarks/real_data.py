"""GCUL against the baseline rejectors on scikit-learn's bundled data sets (issue 16, section 6).

digits, wine, breast_cancer and iris, each clean and with 20% training-label noise (a uniformly
random 20% of the rows get a label drawn uniformly from the other classes, seeded; the models are
fitted on the noisy labels, every test, tuning and calibration row is scored against the clean
one: ``compare(..., y_fit=noisy)``), 10 stratified splits (30% test), lambda = 0.15. Features are
standardised (mean 0, variance 1 over all rows: an unsupervised, label-free transform) because
GCUL's phase 2 (K-Means) is distance-based.

Writes ``benchmarks/real_data.md``: the summary table, then the compare table of every
(dataset, noise). Run from the repository root::

    PYTHONPATH=$PWD python benchmarks/real_data.py [--splits 10] [--out benchmarks/real_data.md]
"""

from __future__ import annotations

import platform
import sys
import time

import numpy as np
from sklearn import datasets

import simulations
from simulations.cli.common import Parser, positive_int
from simulations.compare import compare, standardise, t_critical
from simulations.outputs import atomic_write_text, prepare_out_file

DATASETS = {
    "digits": datasets.load_digits,
    "wine": datasets.load_wine,
    "breast_cancer": datasets.load_breast_cancer,
    "iris": datasets.load_iris,
}
NOISE = (0.0, 0.2)
LAM = 0.15
LEVEL = 0.05  # two-sided level of compare's verdicts
SEED = 0
NOISE_SEED = 2024


def flip_labels(y: np.ndarray, share: float, seed: int) -> np.ndarray:
    """``round(share * N)`` rows chosen uniformly get a label drawn uniformly from the others."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, int(round(share * 100))]))
    n_classes = int(y.max()) + 1
    noisy = y.copy()
    rows = rng.choice(y.size, size=int(round(share * y.size)), replace=False)
    noisy[rows] = (y[rows] + rng.integers(1, n_classes, size=rows.size)) % n_classes
    return noisy


def main() -> int:
    parser = Parser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=positive_int, default=10)
    parser.add_argument("--out", default="benchmarks/real_data.md")
    args = parser.parse_args()
    try:
        prepare_out_file(args.out, "--out")
    except ValueError as error:
        parser.error(str(error))
    started = time.perf_counter()
    summary = []
    sections = []
    for name, load in DATASETS.items():
        Z, y = load(return_X_y=True)
        Z = standardise(Z.astype(np.float64))
        for noise in NOISE:
            y_fit = flip_labels(y, noise, NOISE_SEED) if noise else y
            t0 = time.perf_counter()
            result = compare(
                Z, y, lam=LAM, splits=args.splits, seed=SEED, level=LEVEL, y_fit=y_fit
            )
            seconds = time.perf_counter() - t0
            print(f"{name} noise {noise:g}: {seconds:.1f} s", file=sys.stderr, flush=True)
            gcul, msp = result.rejector("gcul"), result.rejector("msp")
            d = msp.difference
            summary.append(
                f"| {name} | {noise:.0%} | {_pm(result.gcul_coverage, 3)} | "
                f"{_pm(gcul.sel_risk, 4)} | {_pm(msp.sel_risk, 4)} | "
                f"{100 * d.mean:+.2f} ± {100 * d.se:.2f} | {_WORDS[msp.test.outcome]} | "
                f"{_lowest(result)} |"
            )
            sections.append(
                f"### {name}, {noise:.0%} training-label noise ({seconds:.1f} s)\n\n"
                + result.to_markdown()
            )
    wall = time.perf_counter() - started
    text = "\n".join(
        [
            "# GCUL against the baseline rejectors on scikit-learn's bundled data",
            "",
            f"Made by `PYTHONPATH=$PWD python benchmarks/real_data.py --splits {args.splits}` "
            f"(simulations {simulations.__version__}, Python {platform.python_version()}, "
            f"NumPy {np.__version__}); wall time {wall:.0f} s on {platform.machine()}.",
            "",
            f"lambda = {LAM}, {args.splits} stratified splits (30% test) with seed {SEED}; "
            "features standardised; noise: 20% of the rows' training labels flipped uniformly "
            f"to another class (seed {NOISE_SEED}), test and calibration rows scored against the "
            "clean labels. ± is Nadeau & Bengio's corrected standard error over splits. "
            "'MSP minus GCUL' is MSP's selective risk minus GCUL's at GCUL's coverage (the same "
            "accepted count), in percentage points: negative means MSP is better. 'MSP vs GCUL' "
            "is compare's verdict, the corrected resampled t test of Nadeau & Bengio on the "
            f"per-split differences, {args.splits - 1} degrees of freedom, two-sided level "
            f"{LEVEL:g}: 'MSP better'/'GCUL better' only when |t| > t_(1-{LEVEL:g}/2, "
            f"{args.splits - 1}) = {t_critical(LEVEL, args.splits - 1):.2f}, 'tie' when the "
            "selective risks are the same in every split. 'lowest sel. risk' is the rejector "
            "with the lowest mean (not a test; 'tie:' lists the rejectors that share it "
            "exactly).",
            "",
            "## Summary",
            "",
            "| dataset | noise | GCUL coverage | GCUL sel. risk | MSP sel. risk at GCUL's "
            f"coverage | MSP minus GCUL (points) | MSP vs GCUL (level {LEVEL:g}) | lowest sel. "
            "risk |",
            "|---|--:|--:|--:|--:|--:|---|---|",
            *summary,
            "",
            "## Per data set",
            "",
            "\n\n".join(sections),
            "",
        ]
    )
    atomic_write_text(args.out, text)
    print(f"wrote {args.out} in {wall:.0f} s", file=sys.stderr)
    print("\n".join(text.splitlines()[: 12 + len(summary)]))
    return 0


def _pm(e, digits: int) -> str:
    return f"{e.mean:.{digits}f} ± {e.se:.{digits}f}"


_WORDS = {
    "lower": "MSP better",
    "higher": "GCUL better",
    "no difference": "no difference",
    "tie": "tie",
    "no verdict": "no verdict",
}


def _lowest(result) -> str:
    return result.best if result.best is not None else "tie: " + ", ".join(result.lowest)


if __name__ == "__main__":
    sys.exit(main())
