"""The violation table as CSV, Markdown, LaTeX (booktabs) and plain text, and its writer."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import cast

from simulations import registry
from simulations.report.columns import (
    LAMBDA_TARGET,
    Results,
    method_label,
    validity_line,
)
from simulations.report.formats import (
    CLEAN_POOL,
    CLEAN_POOL_TEX,
    CLEAN_RERUN,
    CLEAN_RERUN_TEX,
    CLEAN_RUN,
    CLEAN_RUN_TEX,
    OBSERVED_POOL,
    OBSERVED_POOL_TEX,
    SECTION_FEASIBILITY,
    SECTION_SYNTHETIC,
    TABLE_VIOLATIONS,
    caption_note,
    csv_float,
    csv_int,
    csv_text,
    fmt_pct,
    latex_escape,
    latex_table,
    markdown_document,
    markdown_table,
    quoted,
    write_texts,
)
from simulations.report.violations import (
    KINDS,
    ViolationCount,
    ViolationTable,
    violation_table,
)
from simulations.validation import error_pool_renamed

__all__ = [
    "VIOLATIONS_CSV_COLUMNS",
    "format_violations_csv",
    "format_violations_latex",
    "format_violations_markdown",
    "format_violations_text",
    "write_violations",
]


_KIND_LABELS = {"type_i": "Type-I", "type_ii": "Type-II", "overall": "Overall"}


_VIOLATIONS_PAPER_COLUMNS = (
    f"Paper columns: the counts printed in the paper's table {quoted(TABLE_VIOLATIONS)} "
    "(union bound)."
)


_VIOLATIONS_PAPER_NOTE = (
    f"{_VIOLATIONS_PAPER_COLUMNS} "
    f"They come out only when {CLEAN_POOL}, which no deployment has (judged so, the union "
    "bound counts 22–23 Type-I and 1–4 Type-II violations on the full sweep of 410 cells); "
    "judged, as here and "
    f"{OBSERVED_POOL}, its λ*_PRE falls to 0 at a lower σ and misses more of the cells where "
    f"rejecting pays {CLEAN_RERUN}."
)


_VIOLATIONS_PAPER_COLUMNS_TEX = (
    f"Paper: the counts printed in the paper's table {quoted(TABLE_VIOLATIONS, tex=True)} "
    "(union bound)."
)


_VIOLATIONS_PAPER_NOTE_TEX = (
    f"{_VIOLATIONS_PAPER_COLUMNS_TEX} They "
    f"come out only when {CLEAN_POOL_TEX}, which no deployment has (judged so, the union bound "
    "counts 22--23 Type-I and 1--4 Type-II violations on the full sweep of 410 cells); judged, "
    "as here and "
    rf"{OBSERVED_POOL_TEX}, its $\lambda^*_{{\mathrm{{PRE}}}}$ falls to 0 at a lower $\sigma$ "
    f"and misses more of the cells where rejecting pays {CLEAN_RERUN_TEX}."
)


#: Header of ``violations.csv``; ``valid`` is ``true``/``false``; ``predicted`` and ``empirical``
#: name the results columns the predictor is judged on; ``rate`` and ``paper_rate`` are fractions
#: in [0, 1]; the ``paper_*`` fields are empty except in the union rows at λ = 0.15.
VIOLATIONS_CSV_COLUMNS = (
    "method",
    "valid",
    "predicted",
    "empirical",
    "violation_type",
    "lam",
    "count",
    "total",
    "rate",
    "paper_count",
    "paper_total",
    "paper_rate",
)


def format_violations_csv(table: ViolationTable) -> str:
    """CSV text, one line per (predictor, violation type); see ``VIOLATIONS_CSV_COLUMNS``.

    ``violation_type`` is ``type_i``, ``type_ii`` or ``overall``; rates are fractions.
    """
    body = [
        (
            e.method,
            "true" if e.valid else "false",
            e.predicted,
            e.empirical,
            e.kind,
            csv_float(table.lam),
            e.count,
            e.total,
            csv_float(e.rate),
            csv_int(e.paper_count),
            csv_int(e.paper_total),
            csv_float(e.paper_rate),
        )
        for e in table
    ]
    return csv_text(VIOLATIONS_CSV_COLUMNS, body)


# The captions' notes (formats.caption_note): plain text, LaTeX
_VIOLATIONS_NOTES = {
    False: (_VIOLATIONS_PAPER_NOTE, _VIOLATIONS_PAPER_COLUMNS, CLEAN_RUN),
    True: (_VIOLATIONS_PAPER_NOTE_TEX, _VIOLATIONS_PAPER_COLUMNS_TEX, CLEAN_RUN_TEX),
}


def _violations_note(table: ViolationTable, tex: bool) -> str | None:
    return caption_note(table.geometry_labels, table.has_paper_reference, *_VIOLATIONS_NOTES[tex])


def _judged_on(table: ViolationTable, tex: bool) -> str:
    """The captions' sentences on the blocks judged on other columns than a predictor's (the
    registry's ``judged_on``), each led by the block's label."""
    text = ""
    for name in table.methods:
        entry = registry.method(name)
        if not entry.judged_on:
            continue
        if not tex:
            text += f" {entry.label}: {entry.judged_on}."
        elif entry.judged_on_tex:
            text += f" {latex_escape(entry.label)}: {entry.judged_on_tex}."
        else:
            text += latex_escape(f" {entry.label}: {entry.judged_on}.")
    return text


def _paper_rate(e: ViolationCount) -> float:
    """``e.paper_rate`` of an entry with the paper's numbers (``paper_count`` set)."""
    # Type-level only: the package sets paper_count and paper_total together, so paper_rate is
    # a float here; a hand-made entry with paper_total None still fails in fmt_pct as before.
    return cast(float, e.paper_rate)


#: What every violation table's symbols mean (the Markdown legend and the text output's key)
VIOLATION_SYMBOLS: tuple[tuple[str, str], ...] = (
    (
        "λ",
        "the target rejection cost: the price of rejecting one sample, in units of one "
        "misclassification",
    ),
    (
        "λ*_PRE",
        "the critical rejection cost a predictor forecasts from the training split's geometry, "
        f"before deployment (the paper's section {quoted(SECTION_FEASIBILITY)}): rejecting is "
        "predicted to pay for every λ below it",
    ),
    (
        "λ*_EMP",
        "the critical rejection cost measured on the test split, (ε − ε_sel)/ρ, with ε the base "
        "error, ε_sel the error among accepted samples and ρ the rejection rate: rejecting paid "
        "for every λ below it",
    ),
    (
        "Type-I (conservative)",
        "λ*_PRE < λ ≤ λ*_EMP: predicted not to pay, yet rejecting paid",
    ),
    ("Type-II (unsafe)", "λ*_EMP < λ ≤ λ*_PRE: predicted to pay, yet rejecting did not pay"),
    ("Overall", "Type-I + Type-II"),
    (
        "Count / Total",
        "violating (seed, σ) cells among the cells judged, σ the noise level; Rate (%): "
        "Count / Total",
    ),
)


def _violation_legend(table: ViolationTable) -> list[tuple[str, str]]:
    legend = [(symbol, f"{meaning}.") for symbol, meaning in VIOLATION_SYMBOLS]
    legend += [
        (registry.method(name).label, f"{registry.method(name).judged_on}.")
        for name in table.methods
        if registry.method(name).judged_on
    ]
    validity = validity_line(table.methods)
    legend.append(("Valid", f"whether the predictor's promise holds. {validity}"))
    return legend


def format_violations_markdown(table: ViolationTable) -> str:
    """A title, where the paper has it, a legend of the symbols, a pipe table of one block of
    three rows per predictor, and the note on the paper's columns.

    Examples
    --------
    >>> rows = [{"seed": 10, "noise": 0.0, "lambda_emp": 0.20, "lambda_pre_union": 0.10},
    ...         {"seed": 11, "noise": 0.0, "lambda_emp": 0.90, "lambda_pre_union": 0.95}]
    >>> text = format_violations_markdown(violation_table(rows, methods=("union",)))
    >>> print(text.splitlines()[0])
    # Violations of the λ* predictors at λ = 0.15 over 2 runs (1 noise level × 2 seeds)
    >>> print(text[text.index("| Pred"):text.index("Paper columns")])
    | Predictor | Valid | Violation | Count / Total | Rate (%) | Paper: Count / Total | Paper: Rate (%) |
    | :--- | :--- | :--- | ---: | ---: | ---: | ---: |
    | Union | no | Type-I | 1 / 2 | 50.00 | 25 / 410 | 6.10 |
    | Union | no | Type-II | 0 / 2 | 0.00 | 0 / 410 | 0.00 |
    | Union | no | Overall | 1 / 2 | 50.00 | 25 / 410 | 6.10 |
    <BLANKLINE>
    <BLANKLINE>
    """
    header = ["Predictor", "Valid", "Violation", "Count / Total", "Rate (%)"]
    align = "lllrr"
    if table.has_paper_reference:
        header += ["Paper: Count / Total", "Paper: Rate (%)"]
        align += "rr"
    body = []
    for e in table:
        row = [
            method_label(e.method),
            "yes" if e.valid else "no",
            _KIND_LABELS[e.kind],
            f"{e.count} / {e.total}",
            fmt_pct(e.rate),
        ]
        if table.has_paper_reference:
            if e.paper_count is None:
                row += ["—", "—"]
            else:
                row += [f"{e.paper_count} / {e.paper_total}", fmt_pct(_paper_rate(e))]
        body.append(row)
    title = f"Violations of the λ* predictors at λ = {table.lam:g} over {table.describe_runs}"
    source = (
        f"In the paper: table {quoted(TABLE_VIOLATIONS)}, section {quoted(SECTION_SYNTHETIC)} "
        "(the union bound only); here one block per predictor."
    )
    note = _violations_note(table, tex=False)
    return markdown_document(
        title,
        source,
        _violation_legend(table),
        markdown_table(header, align, body),
        [] if note is None else [note],
    )


def format_violations_latex(table: ViolationTable, *, label: str = "tab:violation_analysis") -> str:
    """A booktabs ``table`` float (caption, ``label``), one ``\\midrule``-separated block per
    predictor.

    Needs ``\\usepackage{booktabs}`` in the preamble; nothing else.
    """
    runs = latex_escape(table.describe_runs).replace("×", r"$\times$")
    caption = (
        rf"Reliability of the $\lambda^*$ predictors over {runs}, "
        rf"$\lambda = {table.lam:g}$. Type-I (conservative): "
        r"$\lambda^*_{\mathrm{PRE}} < \lambda \le \lambda^*_{\mathrm{EMP}}$; "
        r"Type-II (unsafe): $\lambda^*_{\mathrm{EMP}} < \lambda \le \lambda^*_{\mathrm{PRE}}$; "
        r"Overall = Type-I + Type-II; counts of (seed, $\sigma$) cells. One block per "
        "predictor; "
        f"the paper's table {quoted(TABLE_VIOLATIONS, tex=True)} (section "
        f"{quoted(SECTION_SYNTHETIC, tex=True)}) has the union bound only."
    )
    caption += _judged_on(table, tex=True)
    caption += " " + latex_escape(validity_line(table.methods))
    note = _violations_note(table, tex=True)
    if note is not None:
        caption += " " + note
    paper = table.has_paper_reference
    columns = "lllrr" + ("rr" if paper else "")
    header = ["Predictor", "Valid", "Violation", "Count / Total", r"Rate (\%)"]
    if paper:
        header += ["Paper: Count / Total", r"Paper: Rate (\%)"]
    body = []
    for i, e in enumerate(table):
        if i % len(KINDS) == 0:
            body.append(r"\midrule")
        first = i % len(KINDS) == 0
        cells = [
            latex_escape(method_label(e.method)) if first else "",
            ("yes" if e.valid else "no") if first else "",
            _KIND_LABELS[e.kind],
            f"{e.count} / {e.total}",
            fmt_pct(e.rate),
        ]
        if paper:
            if e.paper_count is None:
                cells += ["--", "--"]
            else:
                cells += [f"{e.paper_count} / {e.paper_total}", fmt_pct(_paper_rate(e))]
        body.append(" & ".join(cells) + r" \\")
    return latex_table(caption, label, columns, [" & ".join(header) + r" \\"], body)


def format_violations_text(table: ViolationTable) -> str:
    """Plain aligned text for a terminal: one block per predictor, then which are valid.

    Examples
    --------
    >>> rows = [{"seed": 10, "noise": 0.0, "lambda_emp": 0.20, "lambda_pre_union": 0.10},
    ...         {"seed": 11, "noise": 0.0, "lambda_emp": 0.90, "lambda_pre_union": 0.95}]
    >>> print(format_violations_text(violation_table(rows, methods=("union",))))  # doctest: +ELLIPSIS
    Violations of the λ* predictors at λ = 0.15 over 2 runs (1 noise level × 2 seeds)
      Type-I  (conservative): λ*_PRE < λ ≤ λ*_EMP
      Type-II (unsafe):       λ*_EMP < λ ≤ λ*_PRE
    <BLANKLINE>
    predictor  valid  violation  count / total    rate  paper* count / total  paper* rate
    union      no     Type-I             1 / 2  50.00%              25 / 410        6.10%
                      Type-II            0 / 2   0.00%               0 / 410        0.00%
                      Overall            1 / 2  50.00%              25 / 410        6.10%
    <BLANKLINE>
    Not valid: union (as printed in the paper).
    * Paper columns: the counts printed in the paper's table “Quantitative reliability analysis ...
    """
    paper = table.has_paper_reference
    header = ["predictor", "valid", "violation", "count / total", "rate"] + (
        ["paper* count / total", "paper* rate"] if paper else []
    )
    align = "lllrr" + ("rr" if paper else "")
    body = []
    for i, e in enumerate(table):
        first = i % len(KINDS) == 0
        row = [
            e.method if first else "",
            ("yes" if e.valid else "no") if first else "",
            _KIND_LABELS[e.kind],
            f"{e.count} / {e.total}",
            f"{fmt_pct(e.rate)}%",
        ]
        if paper:
            if e.paper_count is None:
                row += ["", ""]
            else:
                row += [f"{e.paper_count} / {e.paper_total}", f"{fmt_pct(_paper_rate(e))}%"]
        body.append(row)
    widths = [max(len(r[j]) for r in [header, *body]) for j in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        padded = [
            c.ljust(w) if a == "l" else c.rjust(w)
            for c, w, a in zip(cells, widths, align, strict=True)
        ]
        return "  ".join(padded).rstrip()

    lines = [
        f"Violations of the λ* predictors at λ = {table.lam:g} over {table.describe_runs}",
        "  Type-I  (conservative): λ*_PRE < λ ≤ λ*_EMP",
        "  Type-II (unsafe):       λ*_EMP < λ ≤ λ*_PRE",
    ]
    lines += [
        f"  {name}: {registry.method(name).judged_on}"
        for name in table.methods
        if registry.method(name).judged_on
    ]
    lines += ["", line(header), *(line(row) for row in body), "", validity_line(table.methods)]
    note = _violations_note(table, tex=False)
    if note is not None:
        lines.append(f"* {note}" if paper else note)
    return "\n".join(lines)


@error_pool_renamed
def write_violations(
    results: Results,
    out_dir: str | Path,
    lam: float = LAMBDA_TARGET,
    methods: Sequence[str] | None = None,
    *,
    geometry_labels: str = "observed",
) -> list[Path]:
    """Write ``violations.csv``, ``violations.md`` and ``violations.tex`` into ``out_dir``: one
    block per predictor (``methods``, every one by default; see :func:`violation_table`, also
    for ``geometry_labels``).

    Returns the paths written (created directories included as needed).
    """
    table = violation_table(results, lam=lam, methods=methods, geometry_labels=geometry_labels)
    return write_texts(
        out_dir,
        "violations",
        {
            "csv": format_violations_csv(table),
            "md": format_violations_markdown(table),
            "tex": format_violations_latex(table),
        },
    )
