"""The paper's labels as its reader finds them: ``proofs.citations``, the one citation engine,
and its table ``proofs/paper_labels.csv`` (data generated from the LaTeX source by
``tools/paper_labels.py``; issues 23 and 33).

(a) every label the code names is in the table, so no output can fall back to a bare label;
(b) the generator numbers as LaTeX does, checked on a small document that exercises each rule,
and the committed data is what it writes from the paper (where the paper's source is at hand);
(c) the committed table agrees with the rendered paper where the numbers were counted by hand
from the source; (d) the public API round-trips every label and refuses an unknown one, and a
malformed data file, in one line.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from importlib import resources
from pathlib import Path

import pytest

from proofs.citations import (
    COLUMNS,
    LABEL,
    PAPER_LABELS,
    cite,
    cite_labels,
    cite_rest,
    paper_label,
    read_labels,
)

ROOT = Path(__file__).resolve().parents[1]

#: Names in the source that look like labels and are not citations of the paper, and why.
NOT_CITATIONS = {
    "tab:baselines": "the \\label{} of the LaTeX table gcul reproduce writes",
    "tab:synthetic_gcul_seed": "the \\label{} of the LaTeX table gcul reproduce writes",
    "tab:a": "an example of simulations.report.formats.latex_table",
    "eq:not_the_papers": "the example of cite_labels leaving a label it does not know",
    # proofs.citations, which describes its rules with placeholder labels
    "sec:a": "the example of read_labels reading a row",
    "tab:b": "a placeholder in a comment of cite_rest's rules",
    "tab:x": "a placeholder in a comment of cite_rest's rules",
    "eq:x": "a placeholder in a comment of cite_rest's rules",
    "thm:x": "a placeholder in a comment of cite_rest's rules",
    "fig:x": "a placeholder in a comment of cite_rest's rules",
}


def _generator():
    """``tools/paper_labels.py`` as a module (a script, not part of a package)."""
    name = "_gcul_tools_paper_labels"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / "paper_labels.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # before running it: its dataclasses look their module up
        spec.loader.exec_module(module)
    return sys.modules[name]


def _cited_labels():
    """Every ``kind:name`` in the source of the three packages (docstrings included), with
    where it is."""
    for package in ("proofs", "gcul_theory", "simulations"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                for label in LABEL.findall(line.replace("\\_", "_")):
                    yield label, f"{path.relative_to(ROOT)}:{number}"


def test_every_label_the_code_names_is_the_papers():
    where = {}
    for label, place in _cited_labels():
        where.setdefault(label, place)
    assert len(where) >= 30  # thm:, eq:, app:, tab:, ... as the claims cite them
    missing = {label: place for label, place in where.items() if label not in PAPER_LABELS}
    assert set(missing) == set(NOT_CITATIONS), missing


def test_every_claim_reference_is_a_label_or_the_packages_own():
    import proofs

    references = {r.reference for r in proofs.run_all()}
    beyond = {r for r in references if paper_label(r) is None}
    assert beyond == {"finite_sample_lambda"}  # the package's own predictor, named as such
    for reference in references - beyond:
        assert reference == paper_label(reference) or reference.startswith(
            paper_label(reference) + " ("
        ), reference


def test_the_committed_table_matches_the_rendered_paper():
    # counted by hand in the source: equation environments before each label (align: one
    # number per line), theorem-likes within section 3, tables in order, appendix letters
    expected = {
        "eq:selectivity_score": ("equation", "4", "3.2"),
        "eq:p_loss_exact": ("equation", "6", "3.3"),
        "eq:q_contam_exact": ("equation", "7", "3.3"),
        "eq:r1_bound": ("equation", "8", "3.3"),
        "eq:r2_hat": ("equation", "12", "3.3"),
        "eq:chernoff_outlier": ("equation", "13", "3.4"),
        "eq:r1_rigorous_bound": ("equation", "14", "3.4"),
        "thm:monotonicity": ("theorem", "3.1", "3.2"),
        "lem:projection_tails": ("lemma", "3.2", "3.3"),
        "thm:r1_rigorous": ("theorem", "3.5", "3.4"),
        "cor:attractor_properties": ("corollary", "3.6", "3.4"),
        "ass:asymptotic_gaussian_subgaussian": ("assumption", "5", "3.1"),
        "tab:violation_analysis": ("table", "2", "4.3"),
        "tab:synthetic_gcul": ("table", "21", "F.2"),
        "app:proof_chernoff": ("subsection", "C.1", "C.1"),
        "subsec:assumptions2": ("paragraph", "3.1", "3.1"),
    }
    for label, (kind, number, section) in expected.items():
        item = PAPER_LABELS[label]
        assert (item.kind, item.number, item.section) == (kind, number, section), label
    assert sum(item.kind == "table" for item in PAPER_LABELS.values()) == 21
    # titles as the PDF prints them: references resolved, math as text
    assert PAPER_LABELS["app:utility_proofs"].title == "Proofs and derivations for section 3.2"
    assert PAPER_LABELS["tab:dair_gcul"].title == (
        "GCUL results on Dair-AI emotion dataset (λ_target = 0.15)"
    )
    for label, item in PAPER_LABELS.items():
        assert not re.search(r"[\\$]", item.title + item.section_title), label


def test_cite_words_every_kind_and_refuses_an_unknown_label():
    assert cite("subsec:selectivity_score") == "section 3.2 “Selectivity score and monotonicity”"
    assert cite("tab:synthetic_gcul") == (
        "Table 21 “GCUL performance under varying noise levels on synthetic data (seed 16)”"
    )
    assert cite("subsec:assumptions2") == (
        "paragraph “Foundational assumptions for feasibility analysis” of section 3.1 "
        "“Mathematical framework and foundational assumptions”"
    )
    with pytest.raises(ValueError, match="label must be one of the paper's labels; got 'eq:x'"):
        cite("eq:x")
    for label in PAPER_LABELS:
        assert not LABEL.search(cite(label)), label


def test_cite_labels_reads_every_way_the_claims_write_an_equation():
    section = "section 3.4 “Rigorous capture rate bounds via sub-Gaussian concentration”"
    for written in (
        "Eq. (r1_rigorous_bound)",
        "Eq. (eq:r1_rigorous_bound)",
        "eq:r1_rigorous_bound",
    ):
        assert cite_labels(f"gives {written}.") == f"gives Eq. (14) in {section}."
    # two of one section together, of two sections each with its own
    assert cite_labels("Eqs. (r1_hat), (r2_hat)") == (
        "Eqs. (11), (12) in section 3.3 “Effectiveness threshold and feasibility region”"
    )
    assert cite_labels("Eqs. (r1_bound), (r1_rigorous_bound)") == (
        f"Eq. (8) in section 3.3 “Effectiveness threshold and feasibility region”, "
        f"Eq. (14) in {section}"
    )
    assert cite_labels("Eq. (3) and max(0, S)") == "Eq. (3) and max(0, S)"  # not a label


SNIPPET = r"""
\documentclass{article}
\newtheorem{theorem}{Theorem}[section]
\begin{document}
\section{One}\label{sec:one}
\begin{equation}a\end{equation}
\begin{align}
a &= b \nonumber \\
c &= d \label{eq:second} \\
e &= f \label{eq:third}
\end{align}
\begin{align*} x \\ y \end{align*}
% \begin{equation}\label{eq:commented}\end{equation}
\paragraph{A paragraph}\label{par:p}
\begin{theorem}[Named $r_1$ bound]\label{thm:a}\begin{equation}\label{eq:inside}z\end{equation}
\end{theorem}
\label{sec:after}
\section*{Unnumbered}
\subsection{Two of \ref{sec:one} (Eq.~\ref{eq:third})}\label{sub:two}
\begin{theorem}\label{thm:b}\end{theorem}
\section{Three}
\begin{theorem}\label{thm:c}\end{theorem}
\begin{table}\caption{\textbf{Bold part.} Rest}\label{tab:t}\end{table}
\begin{figure}
\begin{subfigure}{1}\caption{left}\label{fig:l}\end{subfigure}
\begin{subfigure}{1}\caption{right}\label{fig:r}\end{subfigure}
\caption{Whole $\lambda^* \times 2$}\label{fig:w}
\end{figure}
\appendix
\section{Appendix one}\label{app:one}
\subsection{Sub}\label{app:sub}
\begin{equation}\label{eq:app}q\end{equation}
\end{document}
"""


def test_the_generator_numbers_as_latex_does():
    generator = _generator()
    labels = generator.scan(SNIPPET)
    got = {label: (t.kind, t.number, t.section) for label, t in labels.items()}
    assert got == {
        "sec:one": ("section", "1", "1"),
        "eq:second": ("equation", "2", "1"),  # equation 1, align line 1 has \nonumber
        "eq:third": ("equation", "3", "1"),
        "par:p": ("paragraph", "1", "1"),
        "thm:a": ("theorem", "1.1", "1"),
        "eq:inside": ("equation", "4", "1"),  # align* numbers nothing
        "sec:after": ("paragraph", "1", "1"),  # after \end{theorem}: the paragraph again
        "sub:two": ("subsection", "1.1", "1.1"),  # \section* numbers nothing
        "thm:b": ("theorem", "1.2", "1.1"),
        "thm:c": ("theorem", "2.1", "2"),  # reset by the section
        "tab:t": ("table", "1", "2"),
        "fig:l": ("subfigure", "1a", "2"),
        "fig:r": ("subfigure", "1b", "2"),
        "fig:w": ("figure", "1", "2"),
        "app:one": ("section", "A", "A"),
        "app:sub": ("subsection", "A.1", "A.1"),
        "eq:app": ("equation", "5", "A.1"),  # one counter throughout
    }
    numbers = {label: t.number for label, t in labels.items()}
    assert generator.plain(labels["sub:two"].raw_title, numbers) == "Two of 1 (Eq. 3)"
    assert generator.plain(labels["thm:a"].raw_title, numbers) == "Named r1 bound"
    assert generator.plain(labels["tab:t"].raw_title, numbers) == "Bold part."
    assert generator.plain(labels["fig:w"].raw_title, numbers) == "Whole λ* × 2"
    with pytest.raises(ValueError, match=r"unknown LaTeX command\(s\) \['\\\\alpha'\]"):
        generator.plain(r"$\alpha$", numbers)
    table = read_labels(generator.render(labels))  # the data file it writes, as the package reads it
    assert list(table) == list(labels)
    assert table["tab:t"].title == "Bold part"
    assert table["fig:w"].title == "Whole λ* × 2"
    assert table["app:sub"].appendix is True and table["sub:two"].appendix is False
    assert generator.COLUMNS == COLUMNS


#: The paper's LaTeX source, where the project's shared files sit beside the clone (users and CI
#: do not have it; GCUL_PAPER_TEX names another copy).
PAPER = Path(os.environ.get("GCUL_PAPER_TEX", ROOT.parent / "shared" / "paper" / "gcul_paper.tex"))


@pytest.mark.skipif(not PAPER.is_file(), reason=f"the paper's source is not at {PAPER}")
def test_the_committed_data_is_what_the_script_writes_from_the_paper():
    generator = _generator()
    written = generator.render(generator.scan(PAPER.read_text(encoding="utf-8")))
    committed = (ROOT / "proofs" / "paper_labels.csv").read_text(encoding="utf-8")
    assert written == committed, "regenerate: python tools/paper_labels.py PAPER.tex > proofs/paper_labels.csv"


def test_the_package_reads_the_shipped_data_file():
    shipped = resources.files("proofs").joinpath("paper_labels.csv").read_text(encoding="utf-8")
    assert dict(read_labels(shipped)) == dict(PAPER_LABELS)
    assert len(PAPER_LABELS) >= 80  # every \\label of the paper: sections, claims, tables, ...
    with pytest.raises(TypeError):
        PAPER_LABELS["thm:monotonicity"] = PAPER_LABELS["thm:r1_rigorous"]  # read-only


@pytest.mark.parametrize("label", list(PAPER_LABELS))
def test_the_public_api_round_trips_every_label(label):
    item = PAPER_LABELS[label]
    words = cite(label)
    assert paper_label(label) == label and paper_label(f"{label} (corrected)") == label
    assert cite_labels(label) == words and cite_labels(f"by {label}.") == f"by {words}."
    assert cite_rest([f"By {label}."]) == [f"By {words} (``{label}``)."]
    assert cite_rest([f"By ``{label}``."], beside=False) == [f"By {words}."]
    assert not LABEL.search(words)
    shown = item.section if item.kind == "paragraph" else item.number
    assert shown in words and (item.title or item.section_title) in words


def test_a_label_missing_from_the_table_fails_in_one_line():
    with pytest.raises(ValueError) as raised:
        cite("thm:not_in_the_paper")
    assert str(raised.value) == (
        "label must be one of the paper's labels; got 'thm:not_in_the_paper'"
    )


HEADER = ",".join(COLUMNS) + "\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("label,kind\neq:a,equation\n",
         "paper_labels.csv: the header must be " + HEADER.strip() + "; got [['label', 'kind']]"),
        (HEADER + "eq:a,equation,1,,1,One\n", "paper_labels.csv row 2: 7 fields expected; got 6"),
        (HEADER + "eq:a,equation,1,,1,One,no\n",
         "paper_labels.csv row 2 (eq:a): appendix must be true or false; got 'no'"),
        (HEADER + "eq:a,equation,1,,1,One,false\neq:a,equation,2,,1,One,false\n",
         "paper_labels.csv row 3 (eq:a): the label is given twice"),
        (HEADER + "ch:a,chapter,1,One,1,One,false\n",
         "paper_labels.csv row 2 (ch:a): kind must be one of the paper's kinds; got 'chapter'"),
    ],
)  # fmt: skip
def test_a_malformed_data_file_fails_in_one_line_naming_the_row(text, message):
    with pytest.raises(ValueError) as raised:
        read_labels(text)
    assert str(raised.value) == message
