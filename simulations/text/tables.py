r"""The text benchmark's tables, computed from its per-split rows alone.

Every cell is a function of the rows of the CSV files (:mod:`simulations.text.csv_rows`), so a
test recomputes it: a mean over the splits with Nadeau & Bengio's corrected standard error
(:func:`mean_se`, :func:`simulations.compare.estimate`), and over several fine-tuning seeds
the mean of the seeds' means with the range of them; `gcul compare`'s verdicts are recomputed
from the per-split differences (:func:`seed_verdicts`). Each ``table_*`` function returns the
Markdown lines of one table (ending in an empty line), beside the GCUL paper's own numbers
(:mod:`simulations.text.paper_values`):

- :func:`table_benchmark`: phase 1 and the GCUL variants (the paper's "Overall performance
  comparison of all models.", in kind);
- :func:`table_compare`: every rejector at GCUL's coverage, by `gcul compare`'s protocol;
- :func:`table_operating`: one baseline along its knob;
- :func:`table_sweep`: the PCA sweep of λ*_PRE against λ*_EMP;
- :func:`table_screening` (from :func:`screening_rows`): does λ*_PRE flag where rejection
  does not pay;
- :func:`table_cores`: λ*_PRE like with like, under each reading of the class core μ_c.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from simulations.compare import DEFAULT_LEVEL, estimate, verdict
from simulations.text.measures import CORES, HEAD_LABEL, REDUCED, VARIANTS
from simulations.text.paper_values import PAPER, PAPER_GCUL, PAPER_OPERATING, PAPER_PHASE1
from simulations.text.study import CORPORA, CORPUS_TITLE, LAM, SEED
from simulations.text.tasks import ALL_REPS, FT_FIXED, FT_SPLITS

__all__ = [
    "KNOB",
    "KNOB_TITLE",
    "REJECTOR_ORDER",
    "SHORT",
    "VARIANT_TITLE",
    "coverage_spread",
    "fixed_verdict",
    "fmt",
    "mean_se",
    "nan_mean",
    "ratio_of",
    "reps_in",
    "screening_rows",
    "seed_verdicts",
    "select",
    "table_benchmark",
    "table_compare",
    "table_cores",
    "table_operating",
    "table_screening",
    "table_sweep",
]

Rows = Sequence[Mapping[str, Any]]

SHORT = {
    "oof_logistic": "(a) out-of-fold TF-IDF+LR",
    "lsa": "(b) LSA",
    "wordllama": "(c) WordLlama (unit rows)",
    "finetuned_paper": "(d) fine-tuned MiniLM (P)",
    "finetuned_valtest": "(d) fine-tuned MiniLM (H, val → test)",
    FT_SPLITS: "(d) fine-tuned MiniLM (H, splits of val + test)",
}
"""How the tables and figures name each representation and protocol."""
VARIANT_TITLE = {
    "gcul": "GCUL",
    "gcul_pca": f"GCUL + PCA ({REDUCED} d)",
    "gcul_lda": f"GCUL + LDA (≤ {REDUCED} d)",
    "gcul_oof_pool": "GCUL, out-of-fold error pool",
}
"""How the tables name each GCUL variant of :data:`simulations.text.measures.VARIANTS`."""
KNOB = {"msp": "λ", "selectivenet": "target c", "mahalanobis": "retained q"}
KNOB_TITLE = {
    "msp": "MSP + Chow's rule",
    "selectivenet": "SelectiveNet (linear, g ≥ 0.5)",
    "mahalanobis": "Mahalanobis, top q retained",
}
REJECTOR_ORDER = ("gcul", "msp", "head_msp", "selectivenet", "mahalanobis", "entropy", "knn", "deep_gamblers")
"""The order of the rejectors in :func:`table_compare`."""


def nan_mean(values: Sequence[float]) -> float:
    """The mean of the values that are not NaN.

    Parameters
    ----------
    values : sequence of float

    Returns
    -------
    float
        NaN, without a warning, when no value is left.

    Examples
    --------
    >>> nan_mean([1.0, float("nan"), 3.0])
    2.0
    """
    kept = [v for v in values if not math.isnan(v)]
    return float(np.mean(kept)) if kept else math.nan



def ratio_of(rows: Rows) -> float:
    """The test-to-training size ratio ``n_test / n_train`` of the first row (Nadeau & Bengio's correction).

    Parameters
    ----------
    rows : sequence of mapping
        Rows with ``n_test`` and ``n_train``, at least one.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        ``rows`` is empty.
    """
    if not rows:
        raise ValueError("rows must hold at least one row; got none")
    return rows[0]["n_test"] / rows[0]["n_train"]


def mean_se(rows: Rows, column: str, ratio: float) -> tuple[float, float, float, float]:
    """Mean, split SE and seed range of ``column`` (NaN values dropped).

    Per representation seed (the fine-tuning seed; the stand-ins have one): the mean over its
    splits and Nadeau & Bengio's corrected SE (NaN for one fixed split). With one seed, that
    mean and SE and no range (NaN, NaN); with several, the mean of the seeds' means, the root
    mean square of their split SEs (the split-to-split uncertainty within one seed), and the
    smallest and largest seed mean (the spread across fine-tuning seeds).

    Parameters
    ----------
    rows : sequence of mapping
        The rows of one cell (one corpus, representation and variant or rejector), each with
        ``column`` and ``seed`` (:data:`~simulations.text.study.SEED` when absent).
    column : str
        The column to summarise.
    ratio : float
        ``n_test / n_train`` of the splits (:func:`ratio_of`), positive.

    Returns
    -------
    tuple of 4 float
        ``(mean, se, lo, hi)``; all NaN when no value is left.

    Raises
    ------
    ValueError
        ``ratio`` is not positive.
    KeyError
        A row lacks ``column``.
    """
    if not ratio > 0:
        raise ValueError(f"ratio must be positive; got {ratio!r}")
    per_seed = []
    for seed in sorted({r.get("seed", SEED) for r in rows}):
        values = [r[column] for r in rows if r.get("seed", SEED) == seed and not math.isnan(r[column])]
        if values:
            e = estimate(values, ratio)
            per_seed.append((e.mean, e.se))
    if not per_seed:
        return math.nan, math.nan, math.nan, math.nan
    if len(per_seed) == 1:
        return per_seed[0][0], per_seed[0][1], math.nan, math.nan
    means = [m for m, _ in per_seed]
    se = math.sqrt(float(np.mean([e * e for _, e in per_seed])))
    return float(np.mean(means)), se, min(means), max(means)


def select(rows: Rows, **where: Any) -> list[Mapping[str, Any]]:
    """The rows whose columns equal every ``where`` value, in order.

    Parameters
    ----------
    rows : sequence of mapping
    **where
        Column names and the values wanted.

    Returns
    -------
    list of mapping

    Raises
    ------
    KeyError
        A row lacks a column of ``where``.

    Examples
    --------
    >>> select([{"corpus": "carer", "split": 0}, {"corpus": "goemotions", "split": 0}], corpus="carer")
    [{'corpus': 'carer', 'split': 0}]
    """
    return [r for r in rows if all(r[k] == v for k, v in where.items())]


def fmt(mean: float, se: float, lo: float = math.nan, hi: float = math.nan, *,
        scale: float = 100.0, digits: int = 2) -> str:  # fmt: skip
    """A cell ``mean ± SE [lo, hi]`` of :func:`mean_se`'s four numbers.

    The SE over splits is left out when NaN (one fixed split), the range over fine-tuning seeds
    when ``lo`` is NaN (one seed), and the cell is "—" when the mean is NaN.

    Parameters
    ----------
    mean, se, lo, hi : float
        As :func:`mean_se` returns them.
    scale : float, default 100
        What every number is multiplied by (100: a share in percent).
    digits : int, default 2
        Decimals.

    Returns
    -------
    str

    Examples
    --------
    >>> fmt(0.5, 0.01), fmt(0.5, float("nan"), 0.4, 0.6, scale=1.0, digits=1)
    ('50.00 ± 1.00', '0.5 [0.4, 0.6]')
    """
    if math.isnan(mean):
        return "—"
    text = f"{scale * mean:.{digits}f}"
    if not math.isnan(se):
        text += f" ± {scale * se:.{digits}f}"
    if not math.isnan(lo):
        text += f" [{scale * lo:.{digits}f}, {scale * hi:.{digits}f}]"
    return text


def _paper_phase1(corpus: str) -> str:
    """The paper's phase-1 accuracy as its appendix names it (and, for GoEmotions, the caveat)."""
    text = f"{PAPER_GCUL[corpus][REDUCED][0]:.2f} / — ({PAPER_PHASE1}"
    return text + (", another GoEmotions release)" if corpus == "goemotions" else ")")


def reps_in(rows: Rows, corpus: str, *, fixed_only: bool = False) -> list[str]:
    """The representations present for ``corpus``, in :data:`~simulations.text.tasks.ALL_REPS` order.

    Parameters
    ----------
    rows : sequence of mapping
        Rows with ``corpus`` and ``representation``.
    corpus : str
        The corpus.
    fixed_only : bool, default False
        Leave out :data:`~simulations.text.tasks.FT_SPLITS` (the split protocol of the
        fine-tuned encoder).

    Returns
    -------
    list of str
    """
    present = {r["representation"] for r in rows if r["corpus"] == corpus}
    return [m for m in ALL_REPS if m in present and not (fixed_only and m == FT_SPLITS)]


def table_benchmark(rows: Rows, corpus: str) -> list[str]:
    """The benchmark table of one corpus: phase 1, the fine-tuned head and every GCUL variant.

    Accuracy, macro-F1 and rejection per representation, beside the paper's appendix row at
    PCA d = 10 (:data:`~simulations.text.paper_values.PAPER_GCUL`).

    Parameters
    ----------
    rows : sequence of mapping
        The rows of ``rows.csv``.
    corpus : str
        The corpus.

    Returns
    -------
    list of str
        The Markdown lines, ending in an empty line.
    """
    paper10 = PAPER_GCUL[corpus][REDUCED]
    lines = [
        f"| representation | model | accuracy (%) | macro-F1 (%) | rejection (%) | "
        f"{PAPER}, {CORPUS_TITLE[corpus]}, PCA d = 10: accuracy / rejection (%) |",
        "|---|---|--:|--:|--:|---|",
    ]
    for method in reps_in(rows, corpus):
        block = select(rows, corpus=corpus, representation=method, variant="gcul")
        if not block:
            continue
        ratio = ratio_of(block)
        lines.append(
            f"| {SHORT[method]} | phase 1 (logistic regression) | "
            f"{fmt(*mean_se(block, 'base_acc', ratio))} | {fmt(*mean_se(block, 'base_f1', ratio))} "
            f"| — | {_paper_phase1(corpus)} |"
        )
        if method in FT_FIXED:
            lines.append(
                f"| {SHORT[method]} | the fine-tuned head (its own softmax) | "
                f"{fmt(*mean_se(block, 'head_acc', ratio))} | {fmt(*mean_se(block, 'head_f1', ratio))} "
                "| — | — |"
            )
        for variant in VARIANTS:
            part = select(rows, corpus=corpus, representation=method, variant=variant)
            paper = f"{paper10[1]:.2f} / {paper10[2]:.2f}" if variant == "gcul_pca" else "—"
            lines.append(
                f"| {SHORT[method]} | {VARIANT_TITLE[variant]} | "
                f"{fmt(*mean_se(part, 'sel_acc', ratio))} | {fmt(*mean_se(part, 'sel_f1', ratio))} "
                f"| {fmt(*mean_se(part, 'rejection', ratio))} | {paper} |"
            )
    return [*lines, ""]


def fixed_verdict(part: Rows) -> str:
    """The verdict cell of a fixed-split protocol: no t test (one split per seed), each seed's difference.

    Parameters
    ----------
    part : sequence of mapping
        The ``compare.csv`` rows of one rejector under one fixed-split protocol, one per seed.

    Returns
    -------
    str
    """
    seeds = sorted({r["seed"] for r in part})
    values = ", ".join(f"{100 * select(part, seed=k)[0]['difference']:+.2f}" for k in seeds)
    return (f"no t test (one fixed split per seed); minus GCUL's, seed by seed "
            f"({', '.join(map(str, seeds))}): {values} points")  # fmt: skip


def seed_verdicts(part: Rows) -> str:
    """The verdict cell of `gcul compare`'s protocol over several fine-tuning seeds.

    The corrected resampled t test of each seed's per-split differences (as `gcul compare` runs
    it, :func:`simulations.compare.verdict` at its default level), counted and listed seed by
    seed. Recomputed from the rows, so it is a function of the CSV files.

    Parameters
    ----------
    part : sequence of mapping
        The ``compare.csv`` rows of one rejector under the split protocol, every split of every
        seed, at least one.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        ``part`` is empty.
    """
    if not part:
        raise ValueError("part must hold at least one row; got none")
    label = part[0]["label"]
    found = []
    for seed in sorted({r["seed"] for r in part}):
        rows = sorted(select(part, seed=seed), key=lambda r: r["split"])
        v = verdict(label, estimate([r["difference"] for r in rows], ratio_of(rows)))
        found.append((seed, v))
    counts = {o: sum(v.outcome == o for _, v in found) for o in ("lower", "higher", "no difference")}
    head = ", ".join(f"{o} in {n} of {len(found)} seeds" for o, n in counts.items() if n)
    detail = "; ".join(
        f"seed {k}: {100 * v.difference:+.2f} ± {100 * v.se:.2f} points, p = {v.p_value:.2g}" for k, v in found
    )
    return f"{label} vs GCUL at level {DEFAULT_LEVEL}: {head} ({detail})"


def table_compare(compare_rows: Rows, verdicts: Mapping[Any, Mapping[str, str]], corpus: str) -> list[str]:
    """Every rejector at GCUL's coverage on one corpus, by `gcul compare`'s protocol.

    Parameters
    ----------
    compare_rows : sequence of mapping
        The rows of ``compare.csv``.
    verdicts : mapping
        `gcul compare`'s verdict texts of the stand-ins, ``{(corpus, representation): {rejector:
        text}}`` (:func:`simulations.text.csv_rows.tables_from_csv`'s ``verdicts``); the
        fine-tuned protocols' verdicts are recomputed from the rows.
    corpus : str
        The corpus.

    Returns
    -------
    list of str
        The Markdown lines, ending in an empty line.
    """
    lines = [
        "| representation | rejector | operating point | coverage (%) | sel. risk at GCUL's "
        "coverage (%) | minus GCUL's (points) | U at its operating point | verdict (`gcul compare`) |",
        "|---|---|---|--:|--:|--:|--:|---|",
    ]
    for method in reps_in(compare_rows, corpus):
        for name in REJECTOR_ORDER:
            part = select(compare_rows, corpus=corpus, representation=method, rejector=name)
            if not part:
                continue
            ratio = ratio_of(part)
            if name == "gcul":
                verdict_text = "the reference"
            elif method in FT_FIXED:
                verdict_text = fixed_verdict(part)
            elif method == FT_SPLITS:
                verdict_text = seed_verdicts(part)
            else:
                verdict_text = verdicts.get((corpus, method), {}).get(name, "")
            lines.append(
                f"| {SHORT[method]} | {part[0]['label']} | {part[0]['operating_point']} | "
                f"{fmt(*mean_se(part, 'coverage', ratio))} | {fmt(*mean_se(part, 'sel_risk', ratio))} | "
                + ("—" if name == "gcul" else fmt(*mean_se(part, "difference", ratio)))
                + f" | {fmt(*mean_se(part, 'u', ratio), scale=1.0, digits=4)} | {verdict_text} |"
            )
    return [*lines, ""]


def table_operating(points: Rows, corpus: str, ratio: float, method_name: str) -> list[str]:
    """One baseline along its knob on one corpus, every representation a column, GCUL's point last.

    Parameters
    ----------
    points : sequence of mapping
        The rows of ``operating_points.csv``.
    corpus : str
        The corpus.
    ratio : float
        ``n_test / n_train`` of the corpus's splits (the points do not hold their sizes).
    method_name : {"msp", "selectivenet", "mahalanobis"}
        The baseline (for ``"msp"``, the fine-tuned head's MSP gets columns too).

    Returns
    -------
    list of str
        The Markdown lines, ending in an empty line.

    Raises
    ------
    ValueError
        ``method_name`` is not a baseline with a knob.
    """
    if method_name not in KNOB:
        raise ValueError(f"method_name must be one of {', '.join(KNOB)}; got {method_name!r}")
    reps = reps_in(points, corpus)
    columns = [(m, method_name) for m in reps]
    if method_name == "msp":
        columns += [(m, "head_msp") for m in reps if select(points, representation=m, method="head_msp")]
    lines = [
        f"| {KNOB[method_name]} | "
        + " | ".join(f"{SHORT[m]}{': ' + HEAD_LABEL if k == 'head_msp' else ''}: sel. acc / rej. (%)"
                     for m, k in columns)
        + f" | {PAPER} ({PAPER_PHASE1}): sel. acc / rej. (%) |",
        "|--:|" + "--:|" * (len(columns) + 1),
    ]  # fmt: skip
    paper = {round(p[0], 2): p for p in PAPER_OPERATING[corpus][method_name]}
    params = sorted({r["param"] for r in select(points, corpus=corpus, method=method_name)},
                    reverse=method_name == "mahalanobis")  # fmt: skip
    for param in params + [math.nan]:
        cells = []
        for m, kind in columns:
            if math.isnan(param):
                part = [] if kind == "head_msp" else select(points, corpus=corpus, representation=m, method="gcul")
            else:
                part = select(points, corpus=corpus, representation=m, method=kind, param=param)
            if not part:
                cells.append("—")
                continue
            ratio = ratio_of(part) if "n_train" in part[0] else ratio
            cells.append(
                f"{fmt(*mean_se(part, 'sel_acc', ratio))} / {fmt(*mean_se(part, 'rejection', ratio))}"
            )
        if math.isnan(param):
            p10 = PAPER_GCUL[corpus][REDUCED]
            label, ref = "GCUL (own point)", f"{p10[1]:.2f} / {p10[2]:.2f} (PCA d = 10)"
        else:
            p = paper.get(round(param, 2))
            label = f"{param:.2f}" if method_name != "mahalanobis" else f"{100 * param:.0f}%"
            ref = "—" if p is None else f"{p[2]:.2f} / {p[3]:.2f}"
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {ref} |")
    return [*lines, ""]


def table_sweep(sweep: Rows, corpus: str, method: str) -> list[str]:
    """The PCA sweep of one corpus and representation: λ*_PRE against λ*_EMP, by dimension.

    Parameters
    ----------
    sweep : sequence of mapping
        The rows of ``pca_sweep.csv``.
    corpus, method : str
        The corpus and representation.

    Returns
    -------
    list of str
        The Markdown lines, ending in an empty line.
    """
    lines = [
        "| PCA d | sel. acc (%) | rejection (%) | λ*_PRE valid | λ*_PRE paper's | λ*_CERT | "
        f"λ*_EMP | {PAPER}: sel. acc / rej. (%), λ*_PRE, λ*_EMP |",
        "|--:|--:|--:|--:|--:|--:|--:|---|",
    ]
    for d in sorted({r["d"] for r in select(sweep, corpus=corpus, representation=method)}):
        part = select(sweep, corpus=corpus, representation=method, d=d)
        ratio = ratio_of(part)
        p = PAPER_GCUL[corpus].get(d)
        ref = "—" if p is None else f"{p[1]:.2f} / {p[2]:.2f}, {p[3]:.2f}, {p[4]:.2f}"
        lines.append(
            f"| {d} | {fmt(*mean_se(part, 'sel_acc', ratio))} | {fmt(*mean_se(part, 'rejection', ratio))} | "
            + " | ".join(fmt(*mean_se(part, c, ratio), scale=1.0, digits=3)
                         for c in ("lambda_pre_valid", "lambda_pre_paper", "lambda_cert", "lambda_emp"))
            + f" | {ref} |"
        )  # fmt: skip
    return [*lines, ""]


def table_cores(rows: Rows, corpus: str) -> list[str]:
    """λ*_PRE like with like: unreduced and at the paper's PCA d = 10, under each reading of μ_c.

    With the valid predictor and the paper's (:data:`~simulations.text.measures.CORES`),
    beside λ*_EMP of the same GCUL.

    Parameters
    ----------
    rows : sequence of mapping
        The rows of ``rows.csv``.
    corpus : str
        The corpus.

    Returns
    -------
    list of str
        The Markdown lines, ending in an empty line.
    """
    p = PAPER_GCUL[corpus][REDUCED]
    lines = [
        "| representation | space | λ*_PRE paper's: correct / class / predicted | λ*_PRE valid: "
        "correct / class / predicted | λ*_EMP | rejection pays | "
        f"{PAPER} (PCA d = 10): λ*_PRE, λ*_EMP |",
        "|---|---|---|---|--:|:-:|---|",
    ]
    for method in reps_in(rows, corpus):
        for variant, space in (("gcul", "unreduced"), ("gcul_pca", f"PCA d = {REDUCED}")):
            part = select(rows, corpus=corpus, representation=method, variant=variant)
            if not part:
                continue
            ratio = ratio_of(part)
            cells = []
            for which in ("paper", "valid"):
                cells.append(" / ".join(
                    fmt(*mean_se(part, f"lambda_pre_{which}" + ("" if core == "correct" else f"_{core}"), ratio),
                        scale=1.0, digits=3)
                    for core in CORES))  # fmt: skip
            emp = mean_se(part, "lambda_emp", ratio)
            lines.append(
                f"| {SHORT[method]} | {space} | {cells[0]} | {cells[1]} | "
                f"{fmt(*emp, scale=1.0, digits=3)} | {'yes' if emp[0] > LAM else 'no'} | "
                f"{p[3]:.2f}, {p[4]:.2f} |"
            )
    return [*lines, ""]


def coverage_spread(rows: Rows, corpus: str, method: str) -> str:
    """GCUL's rejection (%) in every split (stand-ins) or seed (fine-tuned), in order.

    Parameters
    ----------
    rows : sequence of mapping
        The rows of ``rows.csv``.
    corpus, method : str
        The corpus and representation.

    Returns
    -------
    str
        Comma-separated, one decimal: ``"1.0, 3.4, 1.0"``.
    """
    part = select(rows, corpus=corpus, representation=method, variant="gcul")
    return ", ".join(f"{100 * r['rejection']:.1f}" for r in sorted(part, key=lambda r: (r["seed"], r["split"])))


def screening_rows(
    rows: Rows, verdicts: Mapping[Any, Mapping[str, str]], compare_rows: Rows | None = None
) -> list[dict[str, Any]]:
    """One row per (corpus, representation): GCUL (no reduction) and what screens it.

    Parameters
    ----------
    rows : sequence of mapping
        The rows of ``rows.csv``.
    verdicts : mapping
        As :func:`table_compare` takes them.
    compare_rows : sequence of mapping, optional
        The rows of ``compare.csv``, for the fine-tuned protocols' verdicts (empty cells
        without them).

    Returns
    -------
    list of dict
        ``corpus``, ``representation``; :func:`mean_se`'s four numbers of ``base_acc``,
        ``sel_acc``, ``rejection``, ``lambda_pre_valid``, ``lambda_pre_paper``,
        ``lambda_cert``, ``lambda_emp``, ``utility``; ``pays`` (λ*_EMP > λ), ``flag_valid`` and
        ``flag_paper`` (λ*_PRE < λ), ``certified`` (λ*_CERT > λ), ``spread``
        (:func:`coverage_spread`), ``msp_verdict`` and ``head_verdict``.
    """
    out = []
    for corpus in CORPORA:
        for method in reps_in(rows, corpus):
            part = select(rows, corpus=corpus, representation=method, variant="gcul")
            if not part:
                continue
            ratio = ratio_of(part)
            row: dict[str, Any] = {"corpus": corpus, "representation": method}
            for column in ("base_acc", "sel_acc", "rejection", "lambda_pre_valid",
                           "lambda_pre_paper", "lambda_cert", "lambda_emp", "utility"):  # fmt: skip
                row[column] = mean_se(part, column, ratio)
            row["pays"] = row["lambda_emp"][0] > LAM
            row["flag_valid"] = row["lambda_pre_valid"][0] < LAM
            row["flag_paper"] = row["lambda_pre_paper"][0] < LAM
            row["certified"] = row["lambda_cert"][0] > LAM
            row["spread"] = coverage_spread(rows, corpus, method)
            if method == "finetuned_valtest" and compare_rows:  # `gcul compare` on (H): val + test
                for name, column in (("msp", "msp_verdict"), ("head_msp", "head_verdict")):
                    held = select(compare_rows, corpus=corpus, representation=FT_SPLITS, rejector=name)
                    row[column] = seed_verdicts(held) if held else ""
            elif method in FT_FIXED:
                fixed = compare_rows or []
                for name, column in (("msp", "msp_verdict"), ("head_msp", "head_verdict")):
                    chosen = select(fixed, corpus=corpus, representation=method, rejector=name)
                    row[column] = fixed_verdict(chosen) if fixed else ""
            else:
                row["msp_verdict"] = verdicts.get((corpus, method), {}).get("msp", "")
                row["head_verdict"] = "—"
            out.append(row)
    return out


def table_screening(screen: Sequence[Mapping[str, Any]]) -> list[str]:
    """The failure-screening table: does λ*_PRE (or the certified λ*) flag where rejection does not pay.

    Parameters
    ----------
    screen : sequence of mapping
        :func:`screening_rows`'s rows.

    Returns
    -------
    list of str
        The Markdown lines, ending in an empty line.
    """
    paper = {"carer": PAPER_GCUL["carer"][REDUCED], "goemotions": PAPER_GCUL["goemotions"][REDUCED]}
    lines = [
        "| corpus | representation | phase-1 acc (%) | GCUL sel. acc (%) | rejection (%) | "
        f"λ*_PRE valid | λ*_PRE paper's | λ*_CERT | λ*_EMP | U(λ={LAM}) | rejection pays "
        f"(λ*_EMP > {LAM}) | flagged by λ*_PRE valid / paper's (< {LAM}) | certified "
        f"(λ*_CERT > {LAM}) | {PAPER} (PCA d = 10): acc, sel. acc, λ*_PRE, λ*_EMP |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|:-:|:-:|:-:|---|",
    ]
    lines[0] = lines[0].replace("| rejection (%) |", "| rejection (%) | rejection per split or seed (%) |", 1)
    lines[1] = "|---|---|--:|--:|--:|---|--:|--:|--:|--:|--:|:-:|:-:|:-:|---|"

    def yes(b: bool) -> str:
        return "yes" if b else "no"

    for r in screen:
        p = paper[r["corpus"]]
        lines.append(
            f"| {CORPUS_TITLE[r['corpus']]} | {SHORT[r['representation']]} | "
            f"{fmt(*r['base_acc'])} | {fmt(*r['sel_acc'])} | {fmt(*r['rejection'])} | {r['spread']} | "
            + " | ".join(fmt(*r[c], scale=1.0, digits=3)
                         for c in ("lambda_pre_valid", "lambda_pre_paper", "lambda_cert", "lambda_emp"))
            + f" | {fmt(*r['utility'], scale=1.0, digits=4)} | {yes(r['pays'])} | "
            f"{yes(r['flag_valid'])} / {yes(r['flag_paper'])} | {yes(r['certified'])} | "
            f"{p[0]:.2f}, {p[1]:.2f}, {p[3]:.2f}, {p[4]:.2f} |"
        )  # fmt: skip
    return [*lines, ""]


