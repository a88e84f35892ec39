"""The ``.tex`` tables ``gcul reproduce`` writes compile with pdflatex as the paper does.

pdflatex reads UTF-8 (LaTeX's default input encoding since 2018) but only the characters its
font encodings declare: dashes and curly quotes are declared, Greek letters are not, and a bare
``λ`` or ``σ`` in a caption stops the paper's build with "Unicode character λ (U+03BB) not set
up for use with LaTeX". Every Greek symbol must therefore reach a ``.tex`` file as math
(``$\\lambda$``), whichever writer made it.
"""

from __future__ import annotations

import pytest
from _figure_data import baseline_rows, make_rows

from simulations import baselines, report
from simulations.report.formats import latex_escape

#: The non-ASCII characters LaTeX's ``utf8`` input encoding declares for the default (OT1/T1)
#: text fonts: the en and em dashes and the curly quotation marks.
DECLARED = frozenset("–—“”‘’")


def undeclared(text: str) -> list[str]:
    """The characters of ``text`` that pdflatex, with no package for Greek, refuses."""
    return sorted({ch for ch in text if ord(ch) > 127 and ch not in DECLARED})


def test_the_check_finds_a_bare_greek_letter():
    assert undeclared(r"λ*_CERT against \emph{—}") == ["λ"]
    assert undeclared(r"$\lambda^*$ “quoted” — 1–2") == []


def _rows():
    rows = make_rows(seeds=(16, 17), n_levels=31)  # σ up to 12: every σ band of the baselines
    return [row | {"lambda_emp_cert_noisy": row["lambda_emp_cert"]} for row in rows]


@pytest.mark.parametrize("pool", ["observed", "clean"])
def test_the_violations_table_declares_every_character(pool):
    table = report.violation_table(_rows(), geometry_labels=pool)
    assert "certified_noisy" in table.methods  # the block whose caption said λ*_CERT bare
    assert undeclared(report.format_violations_latex(table)) == []


@pytest.mark.parametrize("pool", ["observed", "clean"])
@pytest.mark.parametrize("seed", [16, 17])
def test_the_seed_table_declares_every_character(pool, seed):
    table = report.seed_table(_rows(), seed=seed, geometry_labels=pool)
    assert undeclared(report.format_seed_table_latex(table)) == []


def test_the_baselines_table_declares_every_character():
    rows = baseline_rows()
    latex = baselines.format_baselines_latex(baselines.baselines_table(rows, n_test=100))
    assert undeclared(latex) == []
    assert r"a $\sigma$ band has no cell" in latex
    assert "``Comparison with selective classification baselines''" in latex


def test_latex_escape_sets_greek_and_times_as_math():
    assert latex_escape("λ*_CERT, σ = 2, ε × ρ") == (
        r"$\lambda$*\_CERT, $\sigma$ = 2, $\varepsilon$ $\times$ $\rho$"
    )
