"""The API reference cites the paper by number and title: ``proofs.citations.cite_rest``, the
text transformation the docs' ``autodoc-process-docstring`` hook (``docs/_ext/gcul_docs.py``)
applies to every docstring.

These tests need no docs build; ``tests/test_docs.py`` checks the built pages.
"""

from __future__ import annotations

import sys
from pathlib import Path

import docutils.core
import docutils.utils
import pytest

from proofs.citations import KIND_WORDS, PAPER_LABELS, cite, cite_rest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
import gcul_docs  # noqa: E402

#: The kinds a word of another kind names: a subsection is a "section", a subfigure a "figure".
FAMILY = {"subsection": "section", "subsubsection": "section", "subfigure": "figure"}


def cited(text: str, beside: bool = True) -> str:
    return "\n".join(cite_rest(text.split("\n"), beside))


# Table 5 and Table 7 of the paper, as tools/paper_labels.py read them from its source
SYNTHETIC = "Table 5 “Dataset generation parameters”"
NOISE = "Table 7 “Noise sweep parameters”"
SELECTIVITY = "Eq. (4) in section 3.2 “Selectivity score and monotonicity”"


def test_the_cited_items_are_the_papers():
    """The expectations below are the paper's numbers and titles (if the paper changes and
    proofs/paper_labels.csv is regenerated, these tests are re-read, not silently wrong)."""
    assert cite("tab:synthetic_data_params") == SYNTHETIC
    assert cite("tab:noise_params") == NOISE
    assert cite("eq:selectivity_score") == SELECTIVITY


@pytest.mark.parametrize("label", sorted(PAPER_LABELS))
def test_a_bare_label_is_cited_with_the_label_beside(label):
    assert cited(f"As {label} shows.") == f"As {cite(label)} (``{label}``) shows."


@pytest.mark.parametrize("label", sorted(PAPER_LABELS))
def test_a_backticked_label_is_cited_with_the_label_beside(label):
    assert cited(f"As ``{label}`` shows.") == f"As {cite(label)} (``{label}``) shows."


def test_a_label_alone_in_parentheses_keeps_them():
    assert cited("The protocol (``tab:noise_params``).") == (
        f"The protocol ({NOISE} (``tab:noise_params``))."
    )


def test_the_kind_word_before_a_label_is_not_repeated():
    text = "Tables ``tab:synthetic_data_params`` and ``tab:noise_params`` of [1] give them."
    assert cited(text) == (
        "Tables 5 “Dataset generation parameters” (``tab:synthetic_data_params``) and "
        "7 “Noise sweep parameters” (``tab:noise_params``) of [1] give them."
    )
    assert cited("Eq. (``eq:selectivity_score``) of [1]_") == (
        f"{SELECTIVITY} (``eq:selectivity_score``) of [1]_"
    )
    assert cited("Eq. eq:selectivity_score") == f"{SELECTIVITY} (``eq:selectivity_score``)"
    assert cited("section\n``subsec:selectivity_score``") == (
        "section\n3.2 “Selectivity score and monotonicity” (``subsec:selectivity_score``)"
    )
    assert cited("the paper's figure (``fig:synthetic_dynamics``).").startswith(
        "the paper's figure 5 “Dynamics of critical trade-off thresholds"
    )


@pytest.mark.parametrize("label", sorted(PAPER_LABELS))
def test_no_kind_word_is_ever_doubled(label):
    """After any word naming the label's kind, in any case, the citation does not start with
    a kind word of its own ("Table Table 5", "Eq. Eq. (4)", "section section 3.2")."""
    kind = PAPER_LABELS[label].kind
    family = FAMILY.get(kind, kind)
    for word in KIND_WORDS[family]:
        for spelled in (word, word.capitalize()):
            out = cited(f"See {spelled} ``{label}`` here.")
            after = out.split(f"See {spelled} ", 1)[1]
            first = after.split(" ", 1)[0].lower()
            assert first not in {w for words in KIND_WORDS.values() for w in words}, out
            assert f"(``{label}``)" in out


def test_equations_of_one_section_are_cited_together():
    text = "Eqs. (``eq:p_loss_exact``) and (``eq:q_contam_exact``), Lemma ``lem:projection_tails``."
    assert cited(text) == (
        "Eqs. (6) and (7) in section 3.3 “Effectiveness threshold and feasibility region” "
        "(``eq:p_loss_exact``, ``eq:q_contam_exact``), "
        "Lemma 3.2 “Boundary Loss and Contamination Probabilities” (``lem:projection_tails``)."
    )
    # equations named without their prefix, as the claims' texts do
    assert cited("S of Eqs. (r1_hat), (r2_hat); then") == (
        "S of Eqs. (11), (12) in section 3.3 “Effectiveness threshold and feasibility region” "
        "(``eq:r1_hat``, ``eq:r2_hat``); then"
    )
    # of two sections: each its own
    assert cited("Eqs. (``eq:r1_bound``) and (``eq:r1_rigorous_bound``) here") == (
        "Eqs. (8) in section 3.3 “Effectiveness threshold and feasibility region” "
        "(``eq:r1_bound``) and (14) in section 3.4 “Rigorous capture rate bounds via "
        "sub-Gaussian concentration” (``eq:r1_rigorous_bound``) here"
    )


def test_a_label_whose_title_stands_before_it_is_left_as_written():
    for text in (
        'Section "Selectivity score and monotonicity" (``subsec:selectivity_score``) of [1]_.',
        "section “Synthetic phase-transition\n   verification” (``subsec:synthetic_exp``), and",
        "the noise sweep parameters (tab:noise_params) of [1].",
    ):
        assert cited(text) == text
    # but not when the title is in another sentence
    text = "The noise sweep parameters. They are in ``tab:noise_params``."
    assert cited(text) == f"The noise sweep parameters. They are in {NOISE} (``tab:noise_params``)."


def test_a_label_whose_title_follows_it_gets_its_number_only():
    text = 'Table ``tab:noise_params`` of the paper ("Noise sweep parameters").'
    assert cited(text) == 'Table 7 (``tab:noise_params``) of the paper ("Noise sweep parameters").'
    text = 'as printed (``tab:noise_params``, "Noise sweep parameters")'
    assert cited(text) == 'as printed (Table 7 (``tab:noise_params``), "Noise sweep parameters")'


def test_a_label_inside_a_quoted_title_becomes_the_number_the_pdf_prints():
    text = (
        'appendix "Proof of Theorem ``thm:monotonicity`` (strict monotonicity)" '
        "(``app:proof_monotonicity``)"
    )
    # the appendix's title, "Proof of Theorem 3.1 (strict monotonicity)", now stands before
    # its label, which is then left as written
    assert cited(text) == (
        'appendix "Proof of Theorem 3.1 (strict monotonicity)" (``app:proof_monotonicity``)'
    )


def test_what_is_not_a_label_of_the_paper_is_left_alone():
    for text in (
        "A ``kind:name`` such as ``tab:baselines``, tab:a or eq:not_the_papers stays.",
        'The label as a value (e.g. ``"thm:monotonicity"``) stays.',
        "Roles stay: :math:`eq:selectivity_score`, :func:`thm:monotonicity`, `tab:metrics`_.",
        "``label`` defaults to ``tab:synthetic_gcul_seed<N>`` otherwise.",
        "Eqs. (2)-(4) of Geifman & El-Yaniv, and (selectivity_score) without Eq.",
        "http://example.org/path",
    ):
        assert cited(text) == text, text


def test_doctest_lines_literal_blocks_and_math_are_left_alone():
    lines = [
        "Theorem ``thm:monotonicity`` of [1]_::",
        "",
        "    selectivity_score   Eq. ``eq:selectivity_score``",
        "",
        ".. math::",
        "",
        "   S = 1 \\quad \\text{thm:monotonicity}",
        "",
        ">>> claim('thm:monotonicity')",
        "'thm:monotonicity'",
        "",
        "After the example, thm:monotonicity.",
    ]
    out = cite_rest(lines)
    assert len(out) == len(lines)
    theorem = "3.1 “Strict Monotonicity of Selectivity Score” (``thm:monotonicity``)"
    assert out[0] == f"Theorem {theorem} of [1]_::"
    assert out[1:11] == lines[1:11]
    assert out[11] == f"After the example, Theorem {theorem}."


def test_a_directives_prose_is_cited():
    lines = [".. note::", "", "   See ``tab:noise_params``.", "", "Done."]
    assert cite_rest(lines)[2] == f"   See {NOISE} (``tab:noise_params``)."


NUMPYDOC = """Selectivity of the paper, Eq. (``eq:selectivity_score``).

The protocol of ``subsec:synthetic_exp`` with Tables ``tab:synthetic_data_params`` and
``tab:noise_params`` (the defaults), Theorem ``thm:monotonicity``, Eqs. (``eq:r1_hat``) and
(``eq:r2_hat``), figure (``fig:synthetic_dynamics``).

:Parameters:

    **eps** : float
        As in section ``subsec:selectivity_score`` of [1]_ (*italic* ``code``).

.. rubric:: References

.. [1] "GCUL" (the GCUL paper), section "Synthetic phase-transition verification"
   (``subsec:synthetic_exp``) and appendix ``app:experimental_details``.

.. rubric:: Examples

>>> 1 + 1
2
"""


def _problems(rst: str) -> list[str]:
    doctree = docutils.core.publish_doctree(
        rst, settings_overrides={"report_level": 1, "halt_level": 5, "warning_stream": False}
    )
    return [node.astext() for node in doctree.findall(docutils.nodes.system_message)]


def test_the_cited_docstring_is_valid_rest_and_reads_as_the_original():
    """docutils parses the cited docstring without a message, into the same nodes."""
    out = cited(NUMPYDOC)
    assert _problems(NUMPYDOC) == []
    assert _problems(out) == [], out
    assert out.count("\n") == NUMPYDOC.count("\n")
    before = docutils.core.publish_doctree(NUMPYDOC, settings_overrides={"report_level": 5})
    after = docutils.core.publish_doctree(out, settings_overrides={"report_level": 5})
    # the same nodes (the labels were literals and stay literals; citations are text)
    assert [type(n).__name__ for n in before.findall()] == [
        type(n).__name__ for n in after.findall()
    ]
    # every label of the paper is left only beside its citation, or beside its title
    for label in ("eq:selectivity_score", "tab:noise_params", "fig:synthetic_dynamics"):
        assert f"(``{label}``)" in out
    assert "Tables Table" not in out and "Eq. Eq." not in out and "figure Figure" not in out
    assert out.endswith(">>> 1 + 1\n2\n")


TEXTS = (
    "Tables ``tab:synthetic_data_params`` and ``tab:noise_params`` of [1] give them.",
    "Eqs. (``eq:p_loss_exact``) and (``eq:q_contam_exact``), Lemma ``lem:projection_tails``.",
    "S of Eqs. (r1_hat), (r2_hat); then Eq. eq:selectivity_score and (``eq:r1_bound``).",
    "Eqs. (``eq:r1_bound``) and (``eq:r1_rigorous_bound``) here",
    'Table ``tab:noise_params`` of the paper ("Noise sweep parameters").',
    "the paper's figure (``fig:synthetic_dynamics``), section ``subsec:assumptions2``.",
    'appendix "Proof of Theorem ``thm:monotonicity`` (strict monotonicity)" (app:proof_voronoi)',
    "Sources: app:criterion_derivation, thm:r1_rigorous; Corollary ``cor:attractor_properties``.",
    NUMPYDOC,
)


@pytest.mark.parametrize("text", TEXTS)
def test_citing_twice_is_citing_once(text):
    """A label beside its citation is recognised as cited, so the hook cannot stack citations
    (and a docstring that writes "“Title” (``label``)" itself is left as written)."""
    once = cited(text)
    assert once != text
    assert cited(once) == once


def test_only_a_citation_before_a_label_makes_it_cited():
    assert cited("at σ = 2 (``tab:noise_params``)") == (
        f"at σ = 2 ({NOISE} (``tab:noise_params``))"
    )
    assert cited("theorem labels (``thm:monotonicity``, ...)") == (
        "theorem labels (Theorem 3.1 “Strict Monotonicity of Selectivity Score” "
        "(``thm:monotonicity``), ...)"
    )
    # a quoted phrase that is not the item's title
    assert cited("the line “Thus, we obtain” (``app:criterion_derivation``)") == (
        "the line “Thus, we obtain” (appendix A.1 “Derivation of the effectiveness criterion "
        "(Eq. 4)” (``app:criterion_derivation``))"
    )


def test_the_reference_index_summary_cites_without_the_label():
    """The module list of the reference (one line per module) shows the citation alone."""
    summary = gcul_docs._summary("simulations.synthetic")
    assert "subsec:" not in summary
    assert "section 4.3 “Synthetic phase-transition verification”" in summary
    assert cited("(``subsec:synthetic_exp``).", beside=False) == (
        "(section 4.3 “Synthetic phase-transition verification”)."
    )
