"""What every table format shares: number formats, LaTeX escaping, Markdown pipe tables, CSV
text, the captions' notes on the error pool, and the atomic writer.

The notes say why our numbers differ from the paper's (the numbers in brackets are those of
``benchmarks/paper_estimator.py``, which tries every reading of the paper's definitions on the
sweep's cells). Every written table cites the paper by the *title* of a section or table
(:data:`PAPER_TITLE`, :data:`SECTION_SYNTHETIC`, ...), never by a LaTeX label or a path: a reader
holds only the paper and the file.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from simulations.outputs import atomic_write_text

__all__ = [
    "EMP_TEX",
    "PAPER_TITLE",
    "PRE_TEX",
    "SECTION_ASSUMPTIONS",
    "SECTION_BASELINES",
    "SECTION_FEASIBILITY",
    "SECTION_SELECTIVITY",
    "SECTION_SYNTHETIC",
    "TABLE_SEED",
    "TABLE_VIOLATIONS",
    "markdown_document",
    "quoted",
    "caption_note",
    "csv_float",
    "csv_int",
    "csv_text",
    "fmt_fixed",
    "fmt_noise",
    "fmt_pct",
    "latex_escape",
    "latex_number",
    "latex_table",
    "markdown_table",
    "write_texts",
]


PAPER_TITLE = (
    "GCUL: Ambiguity Identification in Text Emotion Classification via Cluster-Guided Learning"
)
"""The paper's title, as the outputs cite it."""

SECTION_SYNTHETIC = "Synthetic phase-transition verification"
"""The paper's section of the synthetic experiment (and its appendix of the same title)."""

SECTION_ASSUMPTIONS = "Mathematical framework and foundational assumptions"
"""The paper's section that defines the error pool E = {ŷ ≠ y}."""

SECTION_SELECTIVITY = "Selectivity score and monotonicity"
"""The paper's section that defines the utility U(λ) and the selectivity score."""

SECTION_FEASIBILITY = "Effectiveness threshold and feasibility region"
"""The paper's section of the bounds on r1 and r2 behind λ*_PRE."""

SECTION_BASELINES = "Comparison with selective classification baselines"
"""The paper's section that compares GCUL with MSP, SelectiveNet and Mahalanobis rejection."""

TABLE_VIOLATIONS = (
    "Quantitative reliability analysis of theoretical feasibility predictions across 410 "
    "individual runs (41 noise levels × 10 random seeds)"
)
"""The title of the paper's violation table."""

TABLE_SEED = "GCUL performance under varying noise levels on synthetic data (seed 16)"
"""The title of the paper's per-level table of seed 16."""


_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "%": r"\%",
    "_": r"\_",
    "&": r"\&",
    "#": r"\#",
    "$": r"\$",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    # pdflatex declares no Greek letter in its default text fonts: a bare λ stops the build
    # ("Unicode character λ (U+03BB) not set up for use with LaTeX"); set them as math
    "λ": r"$\lambda$",
    "σ": r"$\sigma$",
    "ε": r"$\varepsilon$",
    "ρ": r"$\rho$",
    "π": r"$\pi$",
    "δ": r"$\delta$",
    "×": r"$\times$",
}


def latex_escape(text: str) -> str:
    r"""``text`` with LaTeX's special characters escaped and its Greek letters set as math.

    Examples
    --------
    >>> print(latex_escape("λ*_CERT: 80% of σ × 2"))
    $\lambda$*\_CERT: 80\% of $\sigma$ $\times$ 2
    """
    return "".join(_LATEX_SPECIALS.get(ch, ch) for ch in text)


def quoted(title: str, tex: bool = False) -> str:
    r"""A title in quotation marks: “title” in text, ``title'' in LaTeX (× as ``$\times$``).

    Examples
    --------
    >>> quoted(SECTION_SYNTHETIC)
    '“Synthetic phase-transition verification”'
    >>> quoted("a × b", tex=True)
    "``a $\\times$ b''"
    """
    if tex:
        return "``" + latex_escape(title).replace("×", r"$\times$") + "''"
    return f"“{title}”"


# Why our union λ*_PRE and its violation counts differ from the paper's (the numbers in brackets
# are those of benchmarks/paper_estimator.py, which tries every reading of the paper's
# definitions on the sweep's cells).
CLEAN_POOL = "the error pool is judged against the clean labels (E = {ŷ ≠ y_clean})"


CLEAN_POOL_TEX = (
    r"the error pool is judged against the clean labels "
    r"($E = \{\hat y \ne y_{\mathrm{clean}}\}$)"
)


OBSERVED_POOL = (
    f"as the paper's section {quoted(SECTION_ASSUMPTIONS)} defines it, against the observed, "
    "partly flipped training labels"
)


OBSERVED_POOL_TEX = (
    f"as the paper's section {quoted(SECTION_ASSUMPTIONS, tex=True)} defines it, against the "
    "observed, partly flipped training labels"
)


# Where a reader sees the paper's numbers come out: a command, not a document they may not have
CLEAN_RERUN = "(gcul reproduce --geometry-labels clean computes them so)"


CLEAN_RERUN_TEX = r"(\texttt{gcul reproduce -{}-geometry-labels clean} computes them so)"


# A run whose error pool is judged against the clean labels (--geometry-labels clean) says so in
# place of the explanation of why ours differ from the paper's.
CLEAN_RUN = (
    "This run judges the error pool against the clean training labels (E = {ŷ ≠ y_clean}, "
    "--geometry-labels clean), the reading that reproduces the paper's λ*_PRE column and "
    "violation counts; no deployment has clean labels."
)


CLEAN_RUN_TEX = (
    r"This run judges the error pool against the clean training labels "
    r"($E = \{\hat y \ne y_{\mathrm{clean}}\}$, \texttt{-{}-geometry-labels clean}), the reading "
    r"that reproduces the paper's $\lambda^*_{\mathrm{PRE}}$ column and violation counts; no "
    "deployment has clean labels."
)


def markdown_document(
    title: str,
    source: str,
    legend: Sequence[tuple[str, str]],
    table: str,
    notes: Sequence[str] = (),
) -> str:
    """A Markdown table that explains itself: a ``#`` title line, where the paper has it
    (``source``), a legend of its symbols (``(symbol, meaning)`` pairs, one bullet each), the
    pipe ``table``, then the ``notes`` (one paragraph each).

    Examples
    --------
    >>> print(markdown_document("T", "Paper: none.", [("x", "a number")], "| x |\\n| ---: |\\n"))
    # T
    <BLANKLINE>
    Paper: none.
    <BLANKLINE>
    - **x**: a number
    <BLANKLINE>
    | x |
    | ---: |
    <BLANKLINE>
    """
    lines = [f"# {title}", "", source, ""]
    lines += [f"- **{symbol}**: {meaning}" for symbol, meaning in legend]
    text = "\n".join(lines) + "\n\n" + table
    if notes:
        text += "\n" + "\n\n".join(notes) + "\n"
    return text


def caption_note(
    geometry_labels: str, paper: bool, observed: str, columns: str, clean: str
) -> str | None:
    """The caption's note on the paper's columns and the error pool: ``observed`` (why ours differ)
    for a run with the observed ``geometry_labels`` and the paper's columns; for a clean-label run
    the paper's ``columns`` (if shown) and the ``clean`` sentence; else None."""
    if geometry_labels == "clean":
        return f"{columns} {clean}" if paper else clean
    return observed if paper else None


def fmt_fixed(x: float, digits: int = 2) -> str:
    """Fixed-point with no ``-0.00``."""
    s = f"{x:.{digits}f}"
    if s.startswith("-") and float(s) == 0:
        s = s[1:]
    return s


def fmt_noise(x: float) -> str:
    """0.0, 0.4, 1.2, 0.25: at least one decimal, at most three."""
    s = f"{x:.3f}".rstrip("0")
    return s + "0" if s.endswith(".") else s


def fmt_pct(fraction: float) -> str:
    return fmt_fixed(100 * fraction, 2)


def latex_number(s: str) -> str:
    """A formatted number for a LaTeX text cell: a true minus sign."""
    return f"$-${s[1:]}" if s.startswith("-") else s


def markdown_table(header: Sequence[str], align: str, body: Sequence[Sequence[str]]) -> str:
    """A pipe table; ``align`` has one of ``l``/``r``/``c`` per column."""
    rule = {"l": ":---", "r": "---:", "c": ":---:"}
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(rule[a] for a in align) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in body]
    return "\n".join(lines) + "\n"


def csv_text(header: Sequence[str], body: Sequence[Sequence[Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(body)
    return buffer.getvalue()


def csv_float(x: float | None) -> str:
    return "" if x is None else repr(float(x))


def csv_int(x: int | None) -> str:
    return "" if x is None else str(int(x))


PRE_TEX = r"$\lambda^*_{\mathrm{PRE}}$"


EMP_TEX = r"$\lambda^*_{\mathrm{EMP}}$"


def latex_table(
    caption: str, label: str, columns: str, head: Sequence[str], body: Sequence[str]
) -> str:
    r"""A booktabs ``table`` float: ``caption``, ``label`` and a ``tabular`` of ``columns``, the
    ``head`` lines above the ``body`` lines (each a whole row or rule).

    Needs ``\usepackage{booktabs}`` (the first line says so).

    Examples
    --------
    >>> print(latex_table("A.", "tab:a", "lr", [r"x & y \\", r"\midrule"], [r"1 & 2 \\"]))
    % requires \usepackage{booktabs}
    \begin{table}[htbp]
    \centering
    \small
    \caption{A.}
    \label{tab:a}
    \begin{tabular}{lr}
    \toprule
    x & y \\
    \midrule
    1 & 2 \\
    \bottomrule
    \end{tabular}
    \end{table}
    <BLANKLINE>
    """
    lines = [
        "% requires \\usepackage{booktabs}",
        r"\begin{table}[htbp]",
        r"\centering",
        r"\small",
        rf"\caption{{{caption}}}",
        rf"\label{{{label}}}",
        rf"\begin{{tabular}}{{{columns}}}",
        r"\toprule",
        *head,
        *body,
        r"\bottomrule",
        r"\end{tabular}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"


def write_texts(out_dir: str | Path, stem: str, texts: Mapping[str, str]) -> list[Path]:
    """Write ``stem.<suffix>`` for each text, atomically (a temporary file and a rename: never
    a half-written table, never through a symbolic link at the destination)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return [atomic_write_text(out / f"{stem}.{suffix}", text) for suffix, text in texts.items()]
