"""Every geometric predictor of the registry against λ*_EMP on the synthetic sweep.

For every (seed, σ) cell of the paper's sweep (seeds 10–19 × 41 levels = 410 cells) this fits the
NumPy GCUL on the training split (the ingredients of :func:`simulations.sweep.run_cell`:
:func:`simulations.synthetic.make_dataset` and :class:`simulations.gcul.GCUL`), computes λ*_PRE of
every predictor in :data:`gcul_theory.PREDICTORS` and of :func:`gcul_theory.finite_sample_lambda`
from the training geometry, and measures λ*_EMP on the test split. It prints, per predictor,
Type-I (λ*_PRE < λ ≤ λ*_EMP) and Type-II (λ*_PRE ≥ λ > λ*_EMP) counts at λ = 0.15 and how often
r̂1 ≤ the realised r1 and r̂2 ≥ the realised r2 (on the test split, phase 3's rejections, and on
the training split, the uncertain cluster).

Usage::

    python benchmarks/predictor_sweep.py                      # 410 cells, 2 jobs
    python benchmarks/predictor_sweep.py --levels 11 --seeds 10-11 --csv cells.csv
"""

from __future__ import annotations

import csv
import sys
import time

import numpy as np
from joblib import Parallel, delayed, parallel_config

import gcul_theory
from simulations.cli import parse_seeds
from simulations.cli.common import Parser, positive_int
from simulations.gcul import GCUL
from simulations.models import single_threaded_blas
from simulations.outputs import prepare_out_file
from simulations.synthetic import make_dataset, noise_levels

FINITE = "finite_sample_hw"  # the finite-sample option, bootstrapping "hunter_worsley"
FINITE_VORONOI = "finite_hw_voronoi"  # the same r1 bound with the Voronoi-share r2 bound


def _share(selected: np.ndarray, within: np.ndarray) -> float:
    n = np.count_nonzero(within)
    return np.count_nonzero(selected & within) / n if n else 0.0


def cell(seed: int, level: int, noise: float, n_boot: int, delta: float) -> dict:
    """One row: every predictor's λ*_PRE, r̂1, r̂2 and the realised λ*_EMP, r1, r2."""
    with single_threaded_blas():
        data = make_dataset(seed, noise)
        model = GCUL().fit(data.X_train, data.y_train)
        y_pred = model.phase1_.predict(data.X_train)
        geometry = gcul_theory.estimate_geometry(data.X_train, data.y_train, y_pred)
        row: dict = {"seed": seed, "level": level, "noise": noise, "eps_train": float(geometry.eps)}
        for entry in gcul_theory.PREDICTORS:
            start = time.perf_counter()
            row[f"lambda_pre_{entry.name}"] = float(
                gcul_theory.critical_lambda(geometry, entry.name)
            )
            row[f"seconds_{entry.name}"] = time.perf_counter() - start
            row[f"r1_hat_{entry.name}"] = float(
                gcul_theory.capture_rate_bound(geometry, entry.name)
            )
            row[f"r2_hat_{entry.name}"] = float(
                gcul_theory.contamination_rate_bound(geometry, entry.name)
            )
        start = time.perf_counter()
        finite = gcul_theory.finite_sample_lambda(
            data.X_train,
            data.y_train,
            y_pred,
            method="hunter_worsley",
            delta=delta,
            n_boot=n_boot,
            rng=np.random.SeedSequence([seed, level]),
        )
        row[f"seconds_{FINITE}"] = time.perf_counter() - start
        row[f"lambda_pre_{FINITE}"] = finite.lambda_pre
        row[f"r1_hat_{FINITE}"] = finite.r1_lower
        row[f"r2_hat_{FINITE}"] = finite.r2_upper
        row[f"seconds_{FINITE_VORONOI}"] = 0.0  # computed in the same call
        row[f"lambda_pre_{FINITE_VORONOI}"] = float(
            gcul_theory.critical_lambda_from_rates(
                geometry.eps, finite.r1_lower, finite.r2_upper_voronoi
            )
        )
        row[f"r1_hat_{FINITE_VORONOI}"] = finite.r1_lower
        row[f"r2_hat_{FINITE_VORONOI}"] = finite.r2_upper_voronoi
        row["r2_voronoi_share"] = finite.r2_share

        errors = np.asarray(model.error_mask_, dtype=bool)
        if model.uncertain_cluster_ is None:
            uncertain = np.zeros_like(errors)
        else:
            uncertain = np.asarray(model.cluster_labels_) == model.uncertain_cluster_
        row["r1_cluster"] = _share(uncertain, errors)
        row["r2_cluster"] = _share(uncertain, ~errors)

        test = model.indicators(data.X_test, data.y_test)
        row["lambda_emp"] = test.empirical_lambda()
        row["r1_emp"] = _share(test.rejected, test.base_wrong)
        row["r2_emp"] = _share(test.rejected, ~test.base_wrong)
    return row


def summary(rows: list[dict], lam: float) -> list[dict]:
    """One line per predictor: Type-I/II at ``lam`` and how often the rates bound the realised ones."""
    emp = np.array([r["lambda_emp"] for r in rows])
    names = [(e.name, e.kind) for e in gcul_theory.PREDICTORS]
    names += [(FINITE, "finite"), (FINITE_VORONOI, "finite")]
    lines = []
    for name, kind in names:
        pre = np.array([r[f"lambda_pre_{name}"] for r in rows])
        r1_hat = np.array([r[f"r1_hat_{name}"] for r in rows])
        r2_hat = np.array([r[f"r2_hat_{name}"] for r in rows])
        lines.append(
            {
                "predictor": name,
                "kind": kind,
                "type_i": int(np.sum((pre < lam) & (emp >= lam))),
                "type_ii": int(np.sum((pre >= lam) & (emp < lam))),
                "r1_le_r1_emp": int(np.sum(r1_hat <= np.array([r["r1_emp"] for r in rows]))),
                "r1_le_r1_cluster": int(
                    np.sum(r1_hat <= np.array([r["r1_cluster"] for r in rows]))
                ),
                "r2_ge_r2_emp": int(np.sum(r2_hat >= np.array([r["r2_emp"] for r in rows]))),
                "r2_ge_r2_cluster": int(
                    np.sum(r2_hat >= np.array([r["r2_cluster"] for r in rows]))
                ),
                "mean_lambda_pre": float(pre.mean()),
                "seconds": float(sum(r[f"seconds_{name}"] for r in rows)),
            }
        )
    return lines


def main() -> int:
    parser = Parser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, default=41)
    parser.add_argument("--seeds", type=parse_seeds, default=parse_seeds("10-19"))
    parser.add_argument("--jobs", type=positive_int, default=2)
    parser.add_argument("--lam", type=float, default=0.15)
    parser.add_argument("--delta", type=float, default=0.05)
    parser.add_argument("--n-boot", type=int, default=100)
    parser.add_argument("--csv", help="write one row per cell here")
    args = parser.parse_args()
    if args.csv is not None:
        try:
            prepare_out_file(args.csv, "--csv")
        except ValueError as error:
            parser.error(str(error))
    levels = noise_levels(args.levels)
    cells = [(s, lv, float(n)) for s in args.seeds for lv, n in enumerate(levels)]
    start = time.perf_counter()
    with parallel_config(backend="loky", inner_max_num_threads=1):
        rows = Parallel(n_jobs=args.jobs)(
            delayed(cell)(s, lv, n, args.n_boot, args.delta) for s, lv, n in cells
        )
    wall = time.perf_counter() - start
    n = len(rows)
    print(
        f"{n} cells (seeds {args.seeds[0]}-{args.seeds[-1]} x {len(levels)} levels), "
        f"lambda = {args.lam:g}, delta = {args.delta:g}, n_boot = {args.n_boot}, "
        f"{args.jobs} jobs, {wall:.0f} s wall"
    )
    header = (
        f"{'predictor':<18} {'kind':<7} {'Type-I':>6} {'Type-II':>7} {'mean l*':>7} "
        f"{'r1h<=r1 test':>12} {'r1h<=r1 train':>13} {'r2h>=r2 test':>12} {'r2h>=r2 train':>13} "
        f"{'cpu s':>6}"
    )
    print(header)
    for line in summary(rows, args.lam):
        print(
            f"{line['predictor']:<18} {line['kind']:<7} {line['type_i']:>6} {line['type_ii']:>7} "
            f"{line['mean_lambda_pre']:>7.3f} {line['r1_le_r1_emp']:>12} "
            f"{line['r1_le_r1_cluster']:>13} {line['r2_ge_r2_emp']:>12} "
            f"{line['r2_ge_r2_cluster']:>13} {line['seconds']:>6.1f}"
        )
    share = np.array([r["r2_voronoi_share"] for r in rows])
    print(
        "empirical Voronoi share of correct training samples (no bound): >= r2 test in "
        f"{int(np.sum(share >= [r['r2_emp'] for r in rows]))}/{n}, >= r2 train cluster in "
        f"{int(np.sum(share >= [r['r2_cluster'] for r in rows]))}/{n}"
    )
    emp = np.array([r["lambda_emp"] for r in rows])
    print(f"lambda*_EMP >= {args.lam:g} in {int(np.sum(emp >= args.lam))}/{n} cells")
    if args.csv:
        with open(args.csv, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
