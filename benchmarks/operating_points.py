"""Operating-point sensitivity of the baselines, and GCUL across PCA dimensions (issue 16, section 5).

In kind, the GCUL paper's ``fig:baseline_operating_sensitivity`` with its appendix tables
(``tab:kaggle_msp``, ``tab:kaggle_selectivenet``, ``tab:kaggle_mahalanobis``) and its
``fig:gcul_pca_sweep_kaggle_acc_rej`` / ``fig:gcul_pca_sweep_kaggle_lambda`` (``tab:kaggle_gcul``),
on data we have instead of the paper's Kaggle text embeddings:

- the synthetic protocol (:func:`simulations.synthetic.make_dataset`, seed 16, σ ∈ {2, 6, 12},
  the paper's configuration: d = 10, K = 5, 9,600 training and 2,400 test samples), models fitted
  on the observed (flipped) training labels, every test sample judged against its clean label;
- scikit-learn's digits (1,797 8x8 images, 64 features, 10 classes), standardised
  (:func:`simulations.compare.standardise`), one stratified 70/30 split with seed 0
  (:func:`simulations.compare.stratified_splits`).

Part 1, operating points (:func:`simulations.compare.operating_points`: every rejector from
:mod:`simulations.rejectors`, fitted on the GCUL of the training split):

- MSP with Chow's rule at λ ∈ {0.1, ..., 1.0}: accept iff phase 1's largest probability ≥ 1 − λ;
- a linear SelectiveNet trained for target coverage c ∈ {0.60, 0.64, ..., 0.96}, operated at its
  own rule g(x) ≥ 0.5 (one fit per c);
- Mahalanobis rejection keeping the top q ∈ {100%, 96%, ..., 64%} of the test samples by score
  (selective accuracy of the ``round(q n)`` best-scored samples, ties at the cut by their expected
  value, :func:`gcul_theory.selective_risk_at_coverage`);
- GCUL's own operating point (which has no knob) as the reference row of every table.

Each row: base accuracy (the rejector's own predictions on the whole test split: phase 1's for
MSP and GCUL, the prediction head's for SelectiveNet, the nearest class mean's for Mahalanobis),
selective accuracy (among the accepted samples), rejection rate.

Part 2 (:func:`simulations.compare.pca_sweep`), GCUL with ``reduce="pca"`` across
``n_components`` on digits (2 ... 64) and on the synthetic protocol with d = 100
(``SyntheticConfig(dim=100)``, seed 16, σ ∈ {2, 6, 12}; 2 ... 100 components): selective
accuracy, rejection rate, λ*_PRE of the valid predictor
``hunter_worsley`` (:func:`gcul_theory.feasibility_report` on the *projected* training features,
the space phase 2 clusters in, with phase 1's in-sample predictions and the observed labels) and
λ*_EMP on the test split (:meth:`simulations.certification.SelectiveOutcomes.empirical_lambda`).

Writes ``benchmarks/operating_points.md``, ``benchmarks/operating_points.png`` and
``benchmarks/pca_sweep.png`` (atomically). Run from the repository root::

    PYTHONPATH=$PWD python benchmarks/operating_points.py
"""

from __future__ import annotations

import platform
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn import datasets  # noqa: E402

import simulations  # noqa: E402
from simulations.cli.common import Parser  # noqa: E402
from simulations.compare import (  # noqa: E402
    LAM_TARGET,
    PRE_METHOD,
    Split,
    operating_points,
    pca_sweep,
    standardise,
    stratified_splits,
)
from simulations.figures import save_figure  # noqa: E402
from simulations.models import single_threaded_blas  # noqa: E402
from simulations.outputs import atomic_write_text, prepare_out_file  # noqa: E402
from simulations.rejectors.evaluate import evaluation_seed  # noqa: E402
from simulations.synthetic import SyntheticConfig, make_dataset  # noqa: E402

SEED = 16
NOISES = (2.0, 6.0, 12.0)
DIGITS_SEED = 0
PCA_DIGITS = (2, 4, 8, 16, 32, 64)
PCA_SYNTH = (2, 4, 8, 16, 32, 64, 100)
SYNTH_HIGH = SyntheticConfig(dim=100)


def synthetic_split(noise: float, config: SyntheticConfig | None = None) -> Split:
    data = make_dataset(SEED, noise, config) if config else make_dataset(SEED, noise)
    name = f"synthetic σ={noise:g}" + (f", d={config.dim}" if config else "")
    return Split(name, data.X_train, data.y_train, data.X_test, data.y_test, evaluation_seed(SEED))


def digits_split() -> Split:
    Z, y = datasets.load_digits(return_X_y=True)
    Z = standardise(Z.astype(np.float64))
    train, test = stratified_splits(y, 1, 0.3, seed=DIGITS_SEED)[0]
    return Split(
        "digits", Z[train], y[train], Z[test], y[test], np.random.SeedSequence(DIGITS_SEED)
    )


# ----------------------------------------------------------------------------- output


def _pct(x: float) -> str:
    return "—" if np.isnan(x) else f"{100 * x:.2f}"


def _op_table(title: str, knob: str, fmt, rows: list[dict], gcul: dict) -> list[str]:
    lines = [
        f"**{title}**",
        "",
        f"| {knob} | Base Acc (%) | Sel Acc (%) | Rej Rate (%) |",
        "|--:|--:|--:|--:|",
    ]
    for r in rows:
        lines.append(
            f"| {fmt(r['param'])} | {_pct(r['base_acc'])} | {_pct(r['sel_acc'])} | "
            f"{_pct(r['rej'])} |"
        )
    lines.append(
        f"| GCUL (own point) | {_pct(gcul['base_acc'])} | {_pct(gcul['sel_acc'])} | "
        f"{_pct(gcul['rej'])} |"
    )
    return [*lines, ""]


def _pca_table(rows: list[dict]) -> list[str]:
    lines = [
        f"| PCA d | Base Acc (%) | Sel Acc (%) | Rej Rate (%) | λ*_PRE ({PRE_METHOD}) | "
        f"λ*_EMP | certified (λ*_PRE > {LAM_TARGET}) | pays (λ*_EMP > {LAM_TARGET}) | "
        "λ*_PRE ≤ λ*_EMP |",
        "|--:|--:|--:|--:|--:|--:|:-:|:-:|:-:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['k']} | {_pct(r['base_acc'])} | {_pct(r['sel_acc'])} | {_pct(r['rej'])} | "
            f"{r['lambda_pre']:.3f} | {r['lambda_emp']:.3f} | "
            f"{'yes' if r['lambda_pre'] > LAM_TARGET else 'no'} | "
            f"{'yes' if r['lambda_emp'] > LAM_TARGET else 'no'} | "
            f"{'yes' if r['lambda_pre'] <= r['lambda_emp'] else 'NO'} |"
        )
    return [*lines, ""]


KNOBS = {
    "msp": ("MSP + Chow's rule", "λ", lambda v: f"{v:.1f}", "rejection cost λ"),
    "selectivenet": ("SelectiveNet (g ≥ 0.5)", "target c", lambda v: f"{v:.2f}", "target c"),
    "mahalanobis": (
        "Mahalanobis, top q retained",
        "retained",
        lambda v: f"{100 * v:.0f}%",
        "retained share q",
    ),
}
ACC_COLOR, REJ_COLOR = "tab:blue", "tab:red"


def plot_operating_points(results: dict) -> plt.Figure:
    names = list(results)
    fig, axes = plt.subplots(
        len(names), 3, figsize=(12, 2.6 * len(names) + 0.8), squeeze=False, sharex="col"
    )
    for i, name in enumerate(names):
        res = results[name]
        g = res["gcul"]
        # one accuracy range and one rejection range per row: the three methods side by side
        acc = [100 * g["sel_acc"], 100 * g["base_acc"]]
        rej = [100 * g["rej"]]
        for method in KNOBS:
            acc += [100 * r[k] for r in res[method] for k in ("sel_acc", "base_acc")]
            rej += [100 * r["rej"] for r in res[method]]
        lo, hi = np.nanmin(acc), np.nanmax(acc)
        pad = 0.05 * (hi - lo)
        acc_lim = (lo - pad, hi + pad)
        rej_lim = (-0.03 * max(rej), 1.03 * max(rej))
        for j, method in enumerate(KNOBS):
            ax = axes[i, j]
            rows = res[method]
            x = [r["param"] for r in rows]
            ax.plot(x, [100 * r["sel_acc"] for r in rows], "o-", color=ACC_COLOR, ms=3)
            ax.plot(x, [100 * r["base_acc"] for r in rows], ":", color=ACC_COLOR, lw=1)
            ax.axhline(100 * g["sel_acc"], color=ACC_COLOR, ls="--", lw=1)
            ax.set_ylabel("accuracy (%)", color=ACC_COLOR)
            ax.tick_params(axis="y", colors=ACC_COLOR)
            ax2 = ax.twinx()
            ax2.plot(x, [100 * r["rej"] for r in rows], "s-", color=REJ_COLOR, ms=3)
            ax2.axhline(100 * g["rej"], color=REJ_COLOR, ls="--", lw=1)
            ax2.set_ylabel("rejection (%)", color=REJ_COLOR)
            ax2.tick_params(axis="y", colors=REJ_COLOR)
            ax.set_ylim(*acc_lim)
            ax2.set_ylim(*rej_lim)
            if method == "mahalanobis" and i == 0:  # shared x: invert once (100% first)
                ax.invert_xaxis()
            ax.set_title(f"{name}: {KNOBS[method][0]}", fontsize=9)
            if i == len(names) - 1:
                ax.set_xlabel(KNOBS[method][3])
    handles = [
        plt.Line2D([], [], color=ACC_COLOR, marker="o", ms=3, label="selective accuracy"),
        plt.Line2D([], [], color=ACC_COLOR, ls=":", label="base accuracy"),
        plt.Line2D([], [], color=REJ_COLOR, marker="s", ms=3, label="rejection rate (right axis)"),
        plt.Line2D([], [], color=ACC_COLOR, ls="--", label="GCUL selective accuracy (no knob)"),
        plt.Line2D([], [], color=REJ_COLOR, ls="--", label="GCUL rejection rate (no knob)"),
    ]
    fig.legend(handles=handles, loc="upper center", ncol=5, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.35 / fig.get_figheight()))
    return fig


def plot_pca_sweep(sweeps: dict) -> plt.Figure:
    names = list(sweeps)
    fig, axes = plt.subplots(
        3, len(names), figsize=(3.3 * len(names), 8.0), squeeze=False, sharex="col"
    )
    rej_top = 1.15 * max(100 * r["rej"] for rows in sweeps.values() for r in rows)
    for j, name in enumerate(names):
        rows = sweeps[name]
        k = [r["k"] for r in rows]
        ax = axes[0, j]
        ax.plot(k, [100 * r["sel_acc"] for r in rows], "o-", color=ACC_COLOR, ms=4)
        ax.plot(k, [100 * r["base_acc"] for r in rows], ":", color=ACC_COLOR, lw=1.2)
        ax.set_title(name, fontsize=10)
        ax = axes[1, j]
        ax.plot(k, [100 * r["rej"] for r in rows], "s-", color=REJ_COLOR, ms=4)
        ax.set_ylim(0, rej_top)  # one scale for every panel
        ax = axes[2, j]
        ax.plot(k, [r["lambda_pre"] for r in rows], "o-", color="tab:green", ms=4)
        ax.plot(k, [r["lambda_emp"] for r in rows], "s-", color="tab:purple", ms=4)
        ax.axhline(LAM_TARGET, color="grey", ls="--", lw=1)
        ax.axhline(0.0, color="black", lw=0.5)
        ax.set_xlabel("PCA components (phase 2)")
        ax.set_xscale("log", base=2)
        ax.set_xticks(k)
        ax.set_xticklabels([str(v) for v in k], fontsize=7)
        ax.minorticks_off()
    axes[0, 0].set_ylabel("accuracy (%)")
    axes[1, 0].set_ylabel("rejection rate (%)")
    axes[2, 0].set_ylabel("critical cost λ*")
    handles = [
        plt.Line2D([], [], color=ACC_COLOR, marker="o", ms=4, label="selective accuracy"),
        plt.Line2D([], [], color=ACC_COLOR, ls=":", label="base accuracy (phase 1)"),
        plt.Line2D([], [], color=REJ_COLOR, marker="s", ms=4, label="rejection rate"),
        plt.Line2D(
            [], [], color="tab:green", marker="o", ms=4, label=f"λ*_PRE ({PRE_METHOD}, train)"
        ),
        plt.Line2D([], [], color="tab:purple", marker="s", ms=4, label="λ*_EMP (test)"),
        plt.Line2D([], [], color="grey", ls="--", label=f"λ_target = {LAM_TARGET}"),
    ]
    fig.legend(handles=handles, loc="upper center", ncol=6, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 0.965))
    return fig


def main() -> int:
    parser = Parser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="benchmarks/operating_points.md")
    args = parser.parse_args()
    try:
        prepare_out_file(args.out, "--out")
    except ValueError as error:
        parser.error(str(error))
    out = Path(args.out)
    started = time.perf_counter()
    with single_threaded_blas():
        splits = [synthetic_split(s) for s in NOISES] + [digits_split()]
        results = {}
        for split in splits:
            t0 = time.perf_counter()
            results[split.name] = operating_points(split)
            print(f"{split.name}: {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
        sweeps = {}
        t0 = time.perf_counter()
        sweeps["digits (d=64)"] = pca_sweep(splits[-1], PCA_DIGITS)
        for s in NOISES:
            sweeps[f"synthetic d=100, σ={s:g}"] = pca_sweep(
                synthetic_split(s, SYNTH_HIGH), PCA_SYNTH
            )
        print(f"PCA sweeps: {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    fig_op = out.with_name("operating_points.png")
    fig_pca = out.with_name("pca_sweep.png")
    save_figure(plot_operating_points(results), fig_op, dpi=110)
    save_figure(plot_pca_sweep(sweeps), fig_pca, dpi=110)
    wall = time.perf_counter() - started

    lines = [
        "# Operating-point sensitivity of the baselines, and GCUL across PCA dimensions",
        "",
        "Made by `python benchmarks/operating_points.py` (from the repository root, with "
        f"`PYTHONPATH=$PWD`; simulations {simulations.__version__}, Python "
        f"{platform.python_version()}, NumPy {np.__version__}); wall time {wall:.0f} s on "
        f"{platform.machine()}, BLAS on one thread. Figures: `{fig_op.name}`, `{fig_pca.name}`.",
        "",
        "In kind, the GCUL paper's fig:baseline_operating_sensitivity with tab:kaggle_msp, "
        "tab:kaggle_selectivenet, tab:kaggle_mahalanobis, and fig:gcul_pca_sweep_kaggle_acc_rej, "
        "fig:gcul_pca_sweep_kaggle_lambda with tab:kaggle_gcul, on data we have: the synthetic "
        f"protocol (seed {SEED}, paper configuration d = 10, K = 5; fitted on the observed, "
        "flipped training labels, judged on the clean test labels) and scikit-learn's digits "
        f"(standardised; one stratified 70/30 split, seed {DIGITS_SEED}). One split each: the "
        "numbers carry test-set noise (synthetic: 2,400 test samples, a binomial SE of about "
        "0.3-0.9 points on an accuracy; digits: 540, about 0.3-1.3 points), and no SE is shown.",
        "",
        "Base accuracy is that of the rejector's own predictions on the whole test split "
        "(phase 1's for MSP and GCUL; the prediction head's for SelectiveNet, refitted for "
        "every c; the nearest class mean's for Mahalanobis). Selective accuracy is among the "
        "accepted samples (— when none is accepted). MSP accepts iff phase 1's largest "
        "probability is at least 1 − λ; SelectiveNet is trained for target coverage c and "
        "accepts iff g(x) ≥ 0.5; Mahalanobis keeps the round(q n) best-scored test samples "
        "(ties at the cut by expected value). GCUL has no knob: its own operating point is the "
        "last row of every table (and the dashed lines of the figure).",
        "",
        "## 1. Operating-point sensitivity",
        "",
    ]
    for name, res in results.items():
        g = res["gcul"]
        lines += [f"### {name}", ""]
        lines.append(
            f"GCUL: base accuracy {_pct(g['base_acc'])}%, selective accuracy "
            f"{_pct(g['sel_acc'])}%, rejection {_pct(g['rej'])}%, λ*_EMP {g['lambda_emp']:.3f}. "
            "At GCUL's coverage (the same number of accepted test samples), the selective "
            f"accuracy of MSP is {_pct(g['sel_acc_msp_at_gcul'])}% and of Mahalanobis "
            f"{_pct(g['sel_acc_mahalanobis_at_gcul'])}% (each with its own predictions)."
        )
        lines.append("")
        for method, (title, knob, fmt, _) in KNOBS.items():
            lines += _op_table(title, knob, fmt, res[method], g)
    lines += [
        '## 2. GCUL across PCA dimensions (reduce="pca")',
        "",
        "Phase 2 (K-Means and the uncertain cluster) runs on the first k principal components "
        "of the training split; phases 1 and 3 use the raw features, so the base accuracy does "
        f'not move. λ*_PRE: `gcul_theory.feasibility_report(..., method="{PRE_METHOD}")` on '
        "the projected training features (the space phase 2 clusters in), the observed labels "
        "and phase 1's in-sample predictions, i.e. before any test sample is seen; λ*_EMP = "
        "(ε − ε_sel)/ρ on the test split. 'certified' means λ*_PRE > λ_target = "
        f"{LAM_TARGET}; 'pays' means λ*_EMP > {LAM_TARGET} (rejecting raised the paper's utility "
        "U on the test split). The predictor is a valid lower bound when λ*_PRE ≤ λ*_EMP (in "
        "expectation, under the paper's Gaussian model; one test split carries noise); a "
        "harmful error is 'certified' without 'pays'. On digits, k = 64 is a rotation of the "
        "standardised features, yet its row differs a little from GCUL without reduction in "
        "part 1: phase 2's initial centres are column-wise medians, which a rotation changes "
        "(K-Means itself is rotation-invariant).",
        "",
    ]
    for name, rows in sweeps.items():
        lines += [f"### {name}", "", *_pca_table(rows)]
    atomic_write_text(out, "\n".join(lines))
    print(f"wrote {out}, {fig_op}, {fig_pca} in {wall:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
