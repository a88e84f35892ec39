r"""The baselines table: GCUL's rejection against every rejector and the Bayes limit, by σ band.

From the sweep's rows (the columns of :mod:`simulations.rejectors.evaluate`), for each σ band
(:data:`BANDS`: σ ≤ 4, 4 < σ ≤ 10, σ > 10, and all cells) and each rejector ``r``:

- the selective risk at GCUL's coverage, ``sel_risk_<r>``, and the AURC, ``aurc_<r>``;
- the coverage and both utilities at ``r``'s natural operating point at λ = 0.15 where it has one
  (``gcul``: its own accept set; ``msp`` and ``bayes``: Chow's rule): the paper's
  :math:`U = \varepsilon - \varepsilon_{sel} - λρ` and Chow's
  :math:`U_{joint} = \varepsilon - (1-ρ)\varepsilon_{sel} - λρ`;
- the paired difference GCUL − r of the selective risks at GCUL's coverage (negative: GCUL's is
  lower) and the counts of cells where GCUL is *better* (Δ < −t), *tied* (``|Δ| ≤ t``) or *worse*
  (Δ > t), with t one binomial standard error of the pair's mean risk at GCUL's accepted count,
  :math:`t = \sqrt{\bar r (1 - \bar r)/m}`, :math:`\bar r` the mean of the two risks and
  :math:`m = \mathrm{round}((1 - ρ)\, n_{test})` (the resolution at which
  ``benchmarks/rejectors.md`` compares rejectors; a tie is "within test-set noise", not a test).

Means and standard errors: the cells of one seed share their draws across σ (the same centres,
base samples and split: common random numbers), so they are not independent. Each value is
first averaged over the band's cells of each seed; the table gives the mean of these seed means
and its standard error :math:`s/\sqrt{S}` (:math:`s` the sample standard deviation of the
:math:`S` seed means, ``ddof = 1``; empty with one seed). Seeds are independent draws of the
protocol, so this SE is honest for the band's average over its σ levels.

Cells where GCUL accepts no test sample (``rejection_rate == 1``: the selective risks are NaN
there) are left out of the risks, the differences and the counts, and counted in ``n_excluded``.

Written as CSV (full precision), Markdown and LaTeX (booktabs), as the other tables of
:mod:`simulations.report`, atomically (:func:`simulations.outputs.atomic_write_text`).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simulations.outputs import atomic_write_text
from simulations.rejectors import REJECTORS
from simulations.rejectors.evaluate import CHOW_LAMBDA, CHOW_REJECTORS
from simulations.report.formats import SECTION_BASELINES, SECTION_SELECTIVITY, SECTION_SYNTHETIC

__all__ = [
    "BANDS",
    "BASELINES_CSV_COLUMNS",
    "BaselineRow",
    "BaselinesTable",
    "Estimate",
    "baselines_table",
    "format_baselines_csv",
    "format_baselines_latex",
    "format_baselines_markdown",
    "seed_mean_estimate",
    "write_baselines",
]

BANDS: tuple[tuple[str, float, float], ...] = (
    ("sigma <= 4", -math.inf, 4.0),
    ("4 < sigma <= 10", 4.0, 10.0),
    ("sigma > 10", 10.0, math.inf),
    ("overall", -math.inf, math.inf),
)
"""``(name, low, high)``: a band holds the cells with ``low < σ <= high``."""

_BAND_LABELS = {
    "sigma <= 4": "σ ≤ 4",
    "4 < sigma <= 10": "4 < σ ≤ 10",
    "sigma > 10": "σ > 10",
    "overall": "all σ",
}
_BAND_LATEX = {
    "sigma <= 4": r"$\sigma \le 4$",
    "4 < sigma <= 10": r"$4 < \sigma \le 10$",
    "sigma > 10": r"$\sigma > 10$",
    "overall": r"all $\sigma$",
}
# grid levels are 0.4 i rounded to 10 decimals (simulations.synthetic.noise_levels): a band edge
# is compared with this slack, far below the grid's step
_EDGE_SLACK = 1e-9


@dataclass(frozen=True)
class Estimate:
    """A mean of seed means and its standard error (NaN without data; ``se`` NaN with one seed)."""

    mean: float
    se: float


@dataclass(frozen=True)
class BaselineRow:
    """One rejector in one band (see the module docstring)."""

    band: str
    rejector: str
    label: str
    n_cells: int
    n_excluded: int
    n_seeds: int
    sel_risk: Estimate
    aurc: Estimate
    coverage: Estimate | None  # at its operating point at λ; None without one
    u: Estimate | None
    ujoint: Estimate | None
    diff: Estimate | None  # GCUL − r; None for gcul itself
    better: int | None  # None for gcul itself and in a band without cells
    tied: int | None
    worse: int | None


@dataclass(frozen=True)
class BaselinesTable:
    """Every :class:`BaselineRow`, band by band (:data:`BANDS` order), rejectors in registry
    order; ``lam`` is the λ of the utilities, ``n_test`` the test-split size."""

    rows: tuple[BaselineRow, ...]
    lam: float
    n_test: int
    n_seeds: int


def seed_mean_estimate(values: np.ndarray, seeds: np.ndarray) -> Estimate:
    """Mean of the per-seed means of ``values`` and its standard error over seeds.

    NaN entries are left out; a seed without a value is left out. ``se`` is NaN with fewer than
    two seeds; ``mean`` is NaN without data.

    Examples
    --------
    >>> import numpy as np
    >>> est = seed_mean_estimate(np.array([1.0, 3.0, 4.0, 6.0]), np.array([1, 1, 2, 2]))
    >>> est.mean, round(est.se, 12)  # seed means 2 and 5: mean 3.5, sd 2.1213 / sqrt(2) = 1.5
    (3.5, 1.5)
    """
    keep = ~np.isnan(values)
    values, seeds = values[keep], seeds[keep]
    if values.size == 0:
        return Estimate(math.nan, math.nan)
    unique = np.unique(seeds)
    means = np.array([values[seeds == seed].mean() for seed in unique])
    se = float(means.std(ddof=1) / math.sqrt(means.size)) if means.size > 1 else math.nan
    return Estimate(float(means.mean()), se)


def _columns(results: Sequence[Mapping[str, Any]] | Mapping[str, Any]) -> dict[str, np.ndarray]:
    if isinstance(results, Mapping):
        return {key: np.asarray(results[key], dtype=np.float64) for key in results}
    keys = results[0].keys() if results else ()
    return {key: np.array([float(row[key]) for row in results]) for key in keys}


def baselines_table(
    results: Sequence[Mapping[str, Any]] | Mapping[str, Any],
    *,
    n_test: int,
) -> BaselinesTable:
    """Summarise the sweep's rejector columns by σ band (module docstring).

    Parameters
    ----------
    results : rows or columns
        The sweep's rows (``seed``, ``noise``, ``base_acc``, ``selective_acc``,
        ``rejection_rate`` and the columns of :mod:`simulations.rejectors.evaluate`), as a list of
        mappings or a mapping of columns.
    n_test : int
        Test-split size of the protocol (:attr:`simulations.synthetic.SyntheticConfig.n_test`),
        for the accepted count of the tie threshold.

    Returns
    -------
    BaselinesTable

    Raises
    ------
    ValueError
        For no rows, a missing column or ``n_test`` < 1.
    """
    lam = CHOW_LAMBDA  # the λ of the row's Chow and U_joint columns
    if isinstance(n_test, bool) or not isinstance(n_test, int) or n_test < 1:
        raise ValueError(f"n_test must be an int >= 1; got {n_test!r}")
    cols = _columns(results)
    needed = ["seed", "noise", "base_acc", "selective_acc", "rejection_rate", "ujoint_gcul"]
    needed += [f"{kind}_{entry.name}" for entry in REJECTORS for kind in ("sel_risk", "aurc")]
    missing = [name for name in needed if name not in cols]
    if missing:
        raise ValueError(f"the baselines table needs the columns {missing} (not in the results)")
    if cols["seed"].size == 0:
        raise ValueError("the baselines table needs at least one row")
    seeds, noise, rho = cols["seed"], cols["noise"], cols["rejection_rate"]
    excluded = rho == 1.0
    m = np.rint((1.0 - rho) * n_test)
    gcul_risk = cols["sel_risk_gcul"]
    operating = {
        "gcul": (
            1.0 - rho,
            (1.0 - cols["base_acc"]) - (1.0 - cols["selective_acc"]) - lam * rho,
            cols["ujoint_gcul"],
        ),
        **{
            name: (
                cols[f"coverage_chow_{name}"],
                cols[f"u_chow_{name}"],
                cols[f"ujoint_chow_{name}"],
            )
            for name in CHOW_REJECTORS
            if f"coverage_chow_{name}" in cols
        },
    }
    rows = []
    for band, low, high in BANDS:
        inside = (noise > low + _EDGE_SLACK) & (noise <= high + _EDGE_SLACK)
        used = inside & ~excluded
        band_seeds = seeds[used]
        for entry in REJECTORS:
            name = entry.name
            risk = cols[f"sel_risk_{name}"][used]
            point = operating.get(name)
            coverage = u = ujoint = diff = None
            better = tied = worse = None
            if point is not None:
                coverage, u, ujoint = (
                    seed_mean_estimate(values[inside], seeds[inside]) for values in point
                )
            if name != "gcul":
                delta = gcul_risk[used] - risk
                mean_risk = (gcul_risk[used] + risk) / 2.0
                with np.errstate(invalid="ignore", divide="ignore"):
                    tie = np.sqrt(mean_risk * (1.0 - mean_risk) / m[used])
                diff = seed_mean_estimate(delta, band_seeds)
                if delta.size:  # an empty band has no counts: "—", not "0 / 0 / 0"
                    better = int(np.count_nonzero(delta < -tie))
                    worse = int(np.count_nonzero(delta > tie))
                    tied = int(delta.size) - better - worse
            rows.append(
                BaselineRow(
                    band=band,
                    rejector=name,
                    label=entry.label,
                    n_cells=int(np.count_nonzero(used)),
                    n_excluded=int(np.count_nonzero(inside & excluded)),
                    n_seeds=int(np.unique(band_seeds).size),
                    sel_risk=seed_mean_estimate(risk, band_seeds),
                    aurc=seed_mean_estimate(cols[f"aurc_{name}"][used], band_seeds),
                    coverage=coverage,
                    u=u,
                    ujoint=ujoint,
                    diff=diff,
                    better=better,
                    tied=tied,
                    worse=worse,
                )
            )
    return BaselinesTable(
        rows=tuple(rows), lam=float(lam), n_test=n_test, n_seeds=int(np.unique(seeds).size)
    )


# --------------------------------------------------------------------------------------------
# Formats

BASELINES_CSV_COLUMNS = (
    "band",
    "rejector",
    "n_cells",
    "n_excluded",
    "n_seeds",
    "sel_risk_mean",
    "sel_risk_se",
    "aurc_mean",
    "aurc_se",
    "coverage_mean",
    "coverage_se",
    "u_mean",
    "u_se",
    "ujoint_mean",
    "ujoint_se",
    "diff_gcul_minus_mean",
    "diff_gcul_minus_se",
    "gcul_better",
    "tied",
    "gcul_worse",
)
"""Header of ``baselines.csv``: fractions (risks, AURC, coverage, utilities) at full precision;
an empty field where a quantity does not apply (no operating point; no difference of GCUL with
itself; an SE of one seed)."""


def _num(x: float | None) -> str:
    return "" if x is None or math.isnan(x) else repr(float(x))


def _est_fields(est: Estimate | None) -> list[str]:
    return ["", ""] if est is None else [_num(est.mean), _num(est.se)]


def format_baselines_csv(table: BaselinesTable) -> str:
    """``baselines.csv``: one line per band and rejector (:data:`BASELINES_CSV_COLUMNS`)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(BASELINES_CSV_COLUMNS)
    for row in table.rows:
        writer.writerow(
            [row.band, row.rejector, row.n_cells, row.n_excluded, row.n_seeds]
            + _est_fields(row.sel_risk)
            + _est_fields(row.aurc)
            + _est_fields(row.coverage)
            + _est_fields(row.u)
            + _est_fields(row.ujoint)
            + _est_fields(row.diff)
            + ["" if row.better is None else str(v) for v in (row.better, row.tied, row.worse)]
        )
    return buffer.getvalue()


def _pm(est: Estimate | None, digits: int = 3, minus: str = "−") -> str:
    if est is None or math.isnan(est.mean):
        return "—"
    mean = f"{est.mean:.{digits}f}"
    if float(mean) == 0.0:
        mean = mean.lstrip("-")
    mean = mean.replace("-", minus)
    return mean if math.isnan(est.se) else f"{mean} ± {est.se:.{digits}f}"


def _counts(row: BaselineRow) -> str:
    return "—" if row.better is None else f"{row.better} / {row.tied} / {row.worse}"


def _seed_means(n_seeds: int) -> str:
    """``"10 seed means"``, ``"1 seed mean"``."""
    return f"{n_seeds} seed mean{'s' if n_seeds != 1 else ''}"


def _caption(table: BaselinesTable) -> list[str]:
    """The LaTeX caption's two paragraphs (plain text; the LaTeX writer converts the symbols)."""
    return [
        f"Selective risk at GCUL's coverage (the same accepted count as GCUL's accept set), "
        f"AURC, and coverage, U and U_joint at the natural operating point at λ = "
        f"{table.lam:g} (GCUL: its accept set; MSP and Bayes: Chow's rule), on the test split; "
        f"mean ± SE over {_seed_means(table.n_seeds)} (the cells of one seed share draws).",
        "GCUL − r: paired difference of the selective risks (negative: GCUL lower); "
        "better / tied / worse: cells where GCUL's risk is lower / within one binomial SE "
        "sqrt(r(1 − r)/m) / higher. Bayes (oracle) is the exact posterior of the generator: "
        "the floor of every rejector, up to test-set noise; — where a quantity does not apply "
        "or a σ band has no cell. The paper compares GCUL with MSP, SelectiveNet and "
        f"Mahalanobis rejection on real data (section “{SECTION_BASELINES}”); here on the "
        f"synthetic protocol of section “{SECTION_SYNTHETIC}”.",
    ]


def _legend(table: BaselinesTable) -> list[tuple[str, str]]:
    """The Markdown legend: every column, and every rejector in one line each."""
    legend = [
        ("σ band", "noise levels σ (the standard deviation of the feature noise) in the band."),
        (
            "cells",
            "(seed, σ) cells in the band; (+n excl.): cells where GCUL rejects every test "
            "sample, left out of the risks and counts.",
        ),
        (
            "sel. risk at GCUL's coverage",
            "error among the m test samples the rejector ranks most confident, m = GCUL's "
            "accepted count (GCUL's row: its own accept set).",
        ),
        (
            "AURC",
            "area under the risk–coverage curve: the mean selective risk over the k most "
            "confident samples, k = 1..n (Geifman et al. 2019); lower is better.",
        ),
        (
            "coverage at λ",
            f"share of test samples accepted at the rejector's natural operating point at "
            f"rejection cost λ = {table.lam:g} (GCUL: its accept set; MSP and Bayes: Chow's rule, "
            "accept iff the largest class probability ≥ 1 − λ); — for a rejector without one.",
        ),
        (
            "U",
            "the paper's utility at that point, U = ε − ε_sel − λρ (ε: base error, ε_sel: error "
            f"among accepted samples, ρ: rejection rate; section “{SECTION_SELECTIVITY}”).",
        ),
        (
            "U_joint",
            "Chow's per-sample gain at that point, U_joint = ε − (1 − ρ)ε_sel − λρ (the error "
            "among accepted samples weighted by the share accepted).",
        ),
        (
            "GCUL − r",
            "paired difference of the selective risks at GCUL's coverage, GCUL's minus the "
            "row's (negative: GCUL lower).",
        ),
        (
            "better / tied / worse",
            "cells where GCUL's risk is lower / within one binomial SE sqrt(r(1 − r)/m) / "
            "higher, r the pair's mean risk.",
        ),
        (
            "±",
            f"one standard error over the {_seed_means(table.n_seeds)} (the cells of one seed "
            "share their draws); — where a quantity does not apply or the band has no cell.",
        ),
    ]
    legend += [(entry.label, f"{entry.description}.") for entry in REJECTORS]
    return legend


_HEADER = [
    "σ band",
    "rejector",
    "cells",
    "sel. risk at GCUL's coverage",
    "AURC",
    "coverage at λ",
    "U",
    "U_joint",
    "GCUL − r",
    "better / tied / worse",
]


def _cells(row: BaselineRow, minus: str = "−") -> list[str]:
    return [
        str(row.n_cells) + (f" (+{row.n_excluded} excl.)" if row.n_excluded else ""),
        _pm(row.sel_risk, minus=minus),
        _pm(row.aurc, minus=minus),
        _pm(row.coverage, minus=minus),
        _pm(row.u, minus=minus),
        _pm(row.ujoint, minus=minus),
        _pm(row.diff, digits=4, minus=minus),
        _counts(row),
    ]


def format_baselines_markdown(table: BaselinesTable) -> str:
    """``baselines.md``: a title, where the paper compares, a legend of every column and
    rejector, then one pipe table, bands one after another."""
    lines = ["| " + " | ".join(_HEADER) + " |", "| :--- | :--- |" + " ---: |" * 8]
    for row in table.rows:
        band = _BAND_LABELS[row.band] if row.rejector == table.rows[0].rejector else ""
        lines.append("| " + " | ".join([band, row.label, *_cells(row)]) + " |")
    title = (
        f"GCUL against every rejector and the Bayes limit, by noise band (test split, "
        f"{table.n_seeds} seed{'s' if table.n_seeds != 1 else ''})"
    )
    source = (
        "The paper compares GCUL with MSP, SelectiveNet and Mahalanobis rejection on real data "
        f"(section “{SECTION_BASELINES}”); here every rejector on the synthetic protocol of "
        f"section “{SECTION_SYNTHETIC}”. Bayes (oracle), the exact posterior of the "
        "generator, is the floor of every rejector, up to test-set noise."
    )
    body = "\n".join(f"- **{symbol}**: {meaning}" for symbol, meaning in _legend(table))
    return f"# {title}\n\n{source}\n\n{body}\n\n" + "\n".join(lines) + "\n"


def _latex_escape(text: str) -> str:
    specials = {"&": r"\&", "%": r"\%", "_": r"\_", "#": r"\#", "$": r"\$"}
    return "".join(specials.get(ch, ch) for ch in text)


def format_baselines_latex(table: BaselinesTable, *, label: str = "tab:baselines") -> str:
    """``baselines.tex``: a booktabs ``table*`` float (needs ``\\usepackage{booktabs}``)."""
    head = [
        "rejector",
        "cells",
        r"sel.\ risk at $c_{\mathrm{GCUL}}$",
        "AURC",
        r"coverage at $\lambda$",
        r"$\mathcal U$",
        r"$\mathcal U_{joint}$",
        r"GCUL $-$ r",
        "b / t / w",
    ]
    lines = [
        r"\begin{table*}[t]",
        r"\centering",
        r"\small",
        r"\begin{tabular}{l" + "r" * 8 + "}",
        r"\toprule",
        " & ".join(head) + r" \\",
    ]
    current = None
    for row in table.rows:
        if row.band != current:
            current = row.band
            lines += [r"\midrule", rf"\multicolumn{{9}}{{l}}{{{_BAND_LATEX[row.band]}}} \\"]
        cells = [_latex_escape(row.label)] + [
            cell.replace("±", r"$\pm$").replace("−", "$-$") for cell in _cells(row)
        ]
        lines.append(" & ".join(cells) + r" \\")
    caption = " ".join(_caption(table)).replace("±", r"$\pm$").replace("−", "$-$")
    caption = caption.replace("λ", r"$\lambda$").replace("U_joint", r"$\mathcal U_{joint}$")
    caption = caption.replace("σ", r"$\sigma$").replace("“", "``").replace("”", "''")
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        rf"\caption{{{caption}}}",
        rf"\label{{{label}}}",
        r"\end{table*}",
    ]
    return "\n".join(lines) + "\n"


def write_baselines(
    results: Sequence[Mapping[str, Any]] | Mapping[str, Any],
    out_dir: str | Path,
    *,
    n_test: int,
) -> list[Path]:
    """Write ``baselines.csv``, ``baselines.md`` and ``baselines.tex`` into ``out_dir``,
    atomically; return the paths (arguments as :func:`baselines_table`)."""
    table = baselines_table(results, n_test=n_test)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    texts = {
        "csv": format_baselines_csv(table),
        "md": format_baselines_markdown(table),
        "tex": format_baselines_latex(table),
    }
    return [atomic_write_text(out / f"baselines.{suffix}", text) for suffix, text in texts.items()]
