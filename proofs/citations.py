"""The paper's items as a reader of its PDF finds them: a LaTeX label becomes number and title.

The package names the paper's items by their LaTeX labels (``thm:r1_rigorous``,
``eq:selectivity_score``), which is what a developer holding the source needs; a reader has the
rendered paper only. This module is the one place that turns a label into what that reader
finds, for everything the package prints and writes and for its documentation:

:func:`cite`
    one label: ``"Theorem 3.5 “Rigorous Sub-Gaussian Lower Bound for Global Capture Rate r1”"``,
    ``"Eq. (4) in section 3.2 “Selectivity score and monotonicity”"``.
:func:`cite_labels`
    every label in a plain text (the report of ``gcul prove`` in each of its formats).
:func:`cite_rest`
    every label in the prose of reST lines (a docstring on the documentation site), the label
    kept beside its citation.
:func:`paper_label`
    the label a claim's reference starts with.

The numbers and titles are the paper's table, :data:`PAPER_LABELS`, read from the data file
``paper_labels.csv`` shipped with the package (:func:`read_labels` parses it). The file is
generated from the paper's LaTeX source, never edited by hand::

    python tools/paper_labels.py PAPER.tex > proofs/paper_labels.csv

Examples
--------
>>> from proofs.citations import PAPER_LABELS, cite, cite_labels
>>> cite("thm:monotonicity")
'Theorem 3.1 “Strict Monotonicity of Selectivity Score”'
>>> cite_labels("the union bound of thm:r1_rigorous fails")
'the union bound of Theorem 3.5 “Rigorous Sub-Gaussian Lower Bound for Global Capture Rate r1” fails'
>>> PAPER_LABELS["eq:selectivity_score"].number
'4'
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping
from importlib import resources
from types import MappingProxyType
from typing import NamedTuple

__all__ = [
    "PAPER_LABELS",
    "PaperItem",
    "LABEL",
    "KIND_WORDS",
    "COLUMNS",
    "read_labels",
    "cite",
    "cite_labels",
    "cite_rest",
    "paper_label",
]


class PaperItem(NamedTuple):
    """One labelled item of the paper, as its rendered PDF shows it."""

    kind: str
    """``section``, ``subsection``, ``subsubsection``, ``paragraph``, ``theorem``, ``lemma``,
    ``corollary``, ``remark``, ``assumption``, ``equation``, ``table``, ``figure``,
    ``subfigure`` or ``algorithm``."""
    number: str
    """As printed: ``3.3``, ``A.1`` (appendix), ``3.5`` (Theorem 3.5), ``14`` (Eq. (14))."""
    title: str
    """The heading, the bracketed name of a theorem, or the caption (its bold part if any);
    empty for an equation."""
    section: str
    """The number of the innermost numbered section around the item."""
    section_title: str
    """That section's title."""
    appendix: bool
    """True for an item of the appendix (its sections are lettered)."""


COLUMNS = ("label", *PaperItem._fields)
"""The header of ``paper_labels.csv``: the label, then the fields of :class:`PaperItem`."""

_KINDS = frozenset(
    {"section", "subsection", "subsubsection", "paragraph", "theorem", "lemma", "corollary",
     "remark", "assumption", "equation", "table", "figure", "subfigure", "algorithm"}
)  # fmt: skip

_NAMED = {  # kinds cited by their printed name and number
    "theorem": "Theorem",
    "lemma": "Lemma",
    "corollary": "Corollary",
    "remark": "Remark",
    "assumption": "Assumption",
    "table": "Table",
    "figure": "Figure",
    "subfigure": "Figure",
    "algorithm": "Algorithm",
}


def read_labels(text: str, source: str = "paper_labels.csv") -> dict[str, PaperItem]:
    """The paper's table from the text of a ``paper_labels.csv``, in the file's (document) order.

    Parameters
    ----------
    text : str
        CSV with the header :data:`COLUMNS` and one row per label; ``appendix`` is ``true`` or
        ``false``.
    source : str, optional
        The file's name, for error messages.

    Returns
    -------
    dict of str to PaperItem
        Label -> item.

    Raises
    ------
    ValueError
        On a header other than :data:`COLUMNS`, a row of the wrong length, an unknown kind, an
        ``appendix`` other than ``true``/``false``, or a label given twice; the one-line message
        names the file and the row.

    Examples
    --------
    >>> text = "label,kind,number,title,section,section_title,appendix\\n"
    >>> row = "sec:a,section,A,\\"Proofs, all\\",A,\\"Proofs, all\\",true\\n"
    >>> item = read_labels(text + row)["sec:a"]
    >>> item.number, item.title, item.appendix
    ('A', 'Proofs, all', True)
    >>> read_labels(text + "sec:a,chapter,1,One,1,One,false\\n")
    Traceback (most recent call last):
    ...
    ValueError: paper_labels.csv row 2 (sec:a): kind must be one of the paper's kinds; got 'chapter'
    """
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or tuple(rows[0]) != COLUMNS:
        raise ValueError(f"{source}: the header must be {','.join(COLUMNS)}; got {rows[:1]}")
    table: dict[str, PaperItem] = {}
    for number, row in enumerate(rows[1:], 2):
        where = f"{source} row {number}"
        if len(row) != len(COLUMNS):
            raise ValueError(f"{where}: {len(COLUMNS)} fields expected; got {len(row)}")
        label, kind, printed, title, section, section_title, appendix = row
        where += f" ({label})"
        if kind not in _KINDS:
            raise ValueError(f"{where}: kind must be one of the paper's kinds; got {kind!r}")
        if appendix not in ("true", "false"):
            raise ValueError(f"{where}: appendix must be true or false; got {appendix!r}")
        if label in table:
            raise ValueError(f"{where}: the label is given twice")
        table[label] = PaperItem(kind, printed, title, section, section_title, appendix == "true")
    return table


PAPER_LABELS: Mapping[str, PaperItem] = MappingProxyType(
    read_labels(resources.files("proofs").joinpath("paper_labels.csv").read_text("utf-8"))
)
"""Every ``\\label`` of the paper, in document order: label -> :class:`PaperItem` (read-only)."""

#: A LaTeX cross-reference label of the paper: ``thm:r1_rigorous``, ``tab:synthetic_gcul``, ...
LABEL = re.compile(r"\b(?:tab|sec|subsec|fig|eq|thm|app|alg|lem|cor|ass):[A-Za-z0-9_]+")

#: "Eq. (selectivity_score)", "Eq. (eq:r1_bound)", "Eqs. (r1_hat), (r2_hat)": equations named
#: by label (with or without its ``eq:`` prefix) in the claims' texts.
_EQUATIONS = re.compile(r"\bEqs?\.\s*\((?:eq:)?(\w+)\)((?:,\s*\((?:eq:)?\w+\))*)")


def _section(number: str, title: str, appendix: bool) -> str:
    return f"{'appendix' if appendix else 'section'} {number} “{title}”"


def _item(label: str) -> PaperItem:
    try:
        return PAPER_LABELS[label]
    except KeyError:
        raise ValueError(f"label must be one of the paper's labels; got {label!r}") from None


def cite(label: str) -> str:
    """What a reader of the paper's PDF finds for `label`: its number and title.

    Parameters
    ----------
    label : str
        A ``\\label`` of the paper, e.g. ``"thm:monotonicity"``.

    Returns
    -------
    str
        ``"Theorem 3.1 “…”"``, ``"section 3.2 “…”"``, ``"appendix A.1 “…”"``, ``"Table 21 “…”"``;
        an equation as ``"Eq. (4) in section 3.2 “…”"``; a paragraph (unnumbered) as
        ``"paragraph “…” of section 3.1 “…”"``.

    Raises
    ------
    ValueError
        If `label` is not a label of the paper.

    Examples
    --------
    >>> cite("thm:monotonicity")
    'Theorem 3.1 “Strict Monotonicity of Selectivity Score”'
    >>> cite("eq:selectivity_score")
    'Eq. (4) in section 3.2 “Selectivity score and monotonicity”'
    >>> cite("app:proof_chernoff")
    'appendix C.1 “Proof of lemma for directional chernoff outlier bound (Eq. 13)”'
    """
    item = _item(label)
    where = _section(item.section, item.section_title, item.appendix)
    if item.kind == "equation":
        return f"Eq. ({item.number}) in {where}"
    if item.kind == "paragraph":
        return f"paragraph “{item.title}” of {where}"
    if item.kind in _NAMED:
        return f"{_NAMED[item.kind]} {item.number} “{item.title}”"
    return _section(item.number, item.title, item.appendix)  # a (sub)section


def _equations(match: re.Match[str]) -> str:
    names = [match.group(1), *re.findall(r"\((?:eq:)?(\w+)\)", match.group(2))]
    labels = [f"eq:{name}" for name in names]
    if not all(label in PAPER_LABELS for label in labels):
        return match.group(0)  # not the paper's equations: left as written
    items = [PAPER_LABELS[label] for label in labels]
    if len({(item.section, item.appendix) for item in items}) > 1:
        return ", ".join(cite(label) for label in labels)
    numbers = ", ".join(f"({item.number})" for item in items)
    where = _section(items[0].section, items[0].section_title, items[0].appendix)
    return f"Eq{'s' if len(items) > 1 else ''}. {numbers} in {where}"


def cite_labels(text: str) -> str:
    """`text` with every label of the paper in it replaced by :func:`cite`'s words.

    A label is ``kind:name`` (``thm:r1_rigorous``) or an equation written ``Eq. (name)`` or
    ``Eqs. (a), (b)`` (``eq:`` prefix or not); equations of one section are cited together.
    Text that names no label of the paper comes back unchanged, and so does a ``kind:name``
    that is not one of its labels (``tests/test_output_text.py`` checks that every label the
    package's claims name is the paper's, so none of theirs is left).

    Examples
    --------
    >>> cite_labels("Eqs. (r1_hat), (r2_hat)")
    'Eqs. (11), (12) in section 3.3 “Effectiveness threshold and feasibility region”'
    >>> cite_labels("the union bound of thm:r1_rigorous fails")
    'the union bound of Theorem 3.5 “Rigorous Sub-Gaussian Lower Bound for Global Capture Rate r1” fails'
    >>> cite_labels("lambda* > lambda, eq:not_the_papers")
    'lambda* > lambda, eq:not_the_papers'
    """
    text = _EQUATIONS.sub(_equations, text)

    def replace(match: re.Match[str]) -> str:
        label = match.group(0)
        return cite(label) if label in PAPER_LABELS else label

    return LABEL.sub(replace, text)


def paper_label(reference: str) -> str | None:
    """The paper's label a claim's reference starts with, or None if it names none.

    Examples
    --------
    >>> paper_label("eq:r1_bound (corrected)")
    'eq:r1_bound'
    >>> paper_label("finite_sample_lambda") is None
    True
    """
    first = reference.split(" ", 1)[0]
    return first if first in PAPER_LABELS else None


# ------------------------------------------------------------ citing the paper in reST prose
#
# The docstrings name the paper's items by LaTeX label; the documentation site shows every label
# beside the number and title the PDF prints (docs/_ext/gcul_docs.py calls cite_rest on every
# docstring autodoc renders), so the docstrings keep their labels.

KIND_WORDS: dict[str, tuple[str, ...]] = {
    "section": (
        "section",
        "sections",
        "sec.",
        "secs.",
        "subsection",
        "subsections",
        "appendix",
        "appendices",
    ),
    "paragraph": ("section", "sections", "paragraph", "paragraphs"),
    "equation": ("eq.", "eqs.", "equation", "equations"),
    "theorem": ("theorem", "theorems", "thm."),
    "lemma": ("lemma", "lemmas", "lemmata"),
    "corollary": ("corollary", "corollaries"),
    "remark": ("remark", "remarks"),
    "assumption": ("assumption", "assumptions"),
    "table": ("table", "tables", "tab."),
    "figure": ("figure", "figures", "fig.", "figs."),
    "algorithm": ("algorithm", "algorithms", "alg."),
}
"""The words that may stand before a label of each family of the paper's items (compared in
lower case); a citation after one of them does not repeat the kind ("Tables 5 “…”")."""

_FAMILY = {"subsection": "section", "subsubsection": "section", "subfigure": "figure"}

_CODE_DIRECTIVE = re.compile(
    r"\s*\.\.\s+(code-block|code|sourcecode|math|doctest|testcode|testoutput|literalinclude"
    r"|highlight|raw|parsed-literal|plot|ipython|jupyter-execute)::"
)
_DIRECTIVE = re.compile(r"\s*\.\.\s+[\w:.-]+::")
_INLINE = re.compile(r"``.+?``|(?::[\w.+-]+:)?`[^`]+`(?::[\w.+-]+:)?_{0,2}", re.S)
"""Inline markup whose text is not prose: an inline literal, interpreted text with its role."""
_BARE_EQUATION = re.compile(r"\(\s*([A-Za-z0-9_]+)\s*\)")
"""An equation named without its ``eq:`` prefix, as the claims do: ``Eq. (selectivity_score)``."""
_CHAIN = re.compile(r"\s*(?:,\s*(?:and\s+|or\s+)?|and\s+|or\s+)")
"""What joins the labels of a list: "``tab:a`` and ``tab:b``", "(a), (b)"."""
_CITED = re.compile(
    r"(?:“([^“”]*)”|\b(?:[Tt]ables?|[Ff]igures?|[Tt]heorems?|[Ll]emmas?|[Cc]orollary|[Rr]emark"
    r"|[Aa]ssumption|[Aa]lgorithm|Eqs?\.)\s+\(?[0-9][\w.]*\)?)\s*\((?:\s*``[^`\s]+``\s*,)*\s*\Z"
)
"""What stands before a label already beside its citation: "“Title” (" (the title of its item,
or of the section of an equation), "Table 21 (", or a list of labels after one."""
_SENTENCE_END = re.compile(r"(\S*?)[.!?][\"”')\]]*\s+")
_ABBREVIATIONS = frozenset(
    {"eq", "eqs", "sec", "secs", "fig", "figs", "thm", "tab", "e.g", "i.e", "al", "vs", "cf"}
)


class _Mention(NamedTuple):
    """A label in a paragraph: the span of its token (``label``, a bare label or an equation's
    bare name) and the span with the parentheses around it when it stands alone in them."""

    label: str
    start: int
    end: int
    outer_start: int
    outer_end: int

    @property
    def wrapped(self) -> bool:
        return self.outer_start != self.start


def _family(label: str) -> str:
    kind = PAPER_LABELS[label].kind
    return _FAMILY.get(kind, kind)


def _prose_lines(lines: list[str]) -> list[bool]:
    """Which of ``lines`` are prose: not a doctest line (from ``>>>`` to the next blank line),
    not a literal block (the indented lines after a ``::``), not a code or math directive."""
    prose = [True] * len(lines)
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith(">>>"):
            while i < len(lines) and lines[i].strip():
                prose[i] = False
                i += 1
            continue
        code = bool(_CODE_DIRECTIVE.match(line))
        if code or (line.rstrip().endswith("::") and not _DIRECTIVE.match(line)):
            prose[i] = not code  # "Text::" is prose, the block under it is not
            indent = len(line) - len(line.lstrip())
            i += 1
            while i < len(lines) and (
                not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent
            ):
                prose[i] = False
                i += 1
            continue
        i += 1
    return prose


def _mentions(text: str) -> list[_Mention]:
    """The paper's labels in the prose of ``text`` (one paragraph), in order."""
    found: set[tuple[str, int, int]] = set()
    gaps: list[tuple[int, int]] = []
    position = 0
    for span in _INLINE.finditer(text):
        gaps.append((position, span.start()))
        position = span.end()
        token = span.group(0)
        if token.startswith("``") and token[2:-2].strip() in PAPER_LABELS:
            found.add((token[2:-2].strip(), span.start(), span.end()))
    gaps.append((position, len(text)))
    for start, end in gaps:
        for match in LABEL.finditer(text, start, end):
            if match.group(0) in PAPER_LABELS:
                found.add((match.group(0), match.start(), match.end()))
        previous = None  # end of the last bare equation name of this gap
        for match in _BARE_EQUATION.finditer(text, start, end):
            label = f"eq:{match.group(1)}"
            after_eq = _word_before(text, match.start()) in KIND_WORDS["equation"]
            listed = previous is not None and _CHAIN.fullmatch(text[previous : match.start()])
            if label in PAPER_LABELS and (after_eq or listed):
                found.add((label, match.start(1), match.end(1)))
                previous = match.end()
    mentions = []
    for label, start, end in sorted(found, key=lambda item: item[1]):
        if _cited_already(text[:start], label):
            continue  # (a docstring that says it, or a second pass)
        left = re.search(r"\(\s*\Z", text[:start])
        right = re.match(r"\s*\)", text[end:])
        if left and right:
            mentions.append(_Mention(label, start, end, left.start(), end + right.end()))
        else:
            mentions.append(_Mention(label, start, end, start, end))
    return mentions


def _cited_already(before: str, label: str) -> bool:
    """Whether the label after ``before`` stands beside its citation already."""
    match = _CITED.search(before)
    if match is None:
        return False
    if match.group(1) is None:
        return True  # "Table 21 (``tab:x``)"
    item = PAPER_LABELS[label]
    title = item.section_title if item.kind == "equation" else item.title
    return _normalise(match.group(1)) == _normalise(title)


def _word_before(text: str, position: int) -> str:
    match = re.search(r"(\S+)\s*\Z", text[:position])
    return match.group(1).lower().lstrip("([\"“'") if match else ""


def _sentence(text: str, start: int, end: int) -> tuple[int, int]:
    """The span of the sentence of ``text`` that holds [start, end)."""
    first, last = 0, len(text)
    for match in _SENTENCE_END.finditer(text):
        word = match.group(1).lower().lstrip("([\"“'")
        if word in _ABBREVIATIONS:
            continue
        if match.end() <= start:
            first = match.end()
        elif match.start() >= end:
            last = match.start()
            break
    return first, last


def _normalise(text: str) -> str:
    return " ".join(re.sub(r"[^0-9a-z]+", " ", text.lower()).split())


def _where(label: str) -> str:
    item = PAPER_LABELS[label]
    return _section(item.section, item.section_title, item.appendix)


def _kindless(label: str, kind_word: str) -> str:
    """The citation of ``label`` after a word naming its kind, the kind not repeated."""
    item = PAPER_LABELS[label]
    if item.kind == "equation":
        return f"({item.number}) in {_where(label)}"
    if item.kind == "paragraph":
        if kind_word.startswith("paragraph"):
            return f"“{item.title}” of {_where(label)}"
        return f"{_where(label).split(' ', 1)[1]}, paragraph “{item.title}”"
    return f"{item.number} “{item.title}”"


def _number(label: str, kind_word: str | None) -> str:
    """What the PDF prints where a title it quotes names ``label``: the number (and kind)."""
    item = PAPER_LABELS[label]
    number = item.section if item.kind == "paragraph" else item.number
    if kind_word:
        return number
    if item.kind == "equation":
        return f"Eq. ({number})"
    if item.kind in _NAMED:
        return f"{_NAMED[item.kind]} {number}"
    return f"{'appendix' if item.appendix else 'section'} {number}"


def _labels_note(labels: list[str], beside: bool) -> str:
    return " (" + ", ".join(f"``{label}``" for label in labels) + ")" if beside else ""


def cite_rest(lines: list[str], beside: bool = True) -> list[str]:
    """reST `lines` with every label of the paper in their prose cited by number and title.

    A label of :data:`PAPER_LABELS` in prose, bare (thm:r1_rigorous) or as an inline literal of
    its own, becomes :func:`cite`'s citation with the label beside it in parentheses
    (``Theorem 3.5 “…” (`` plus the literal label and ``)``); an equation named without its
    prefix after "Eq." (``Eq. (selectivity_score)``) too.

    - A word before the label that names its kind (:data:`KIND_WORDS`) is not repeated:
      "Tables" and two table labels give "Tables 5 “…” (…) and 7 “…” (…)"; "Eq." and an
      equation label in parentheses give "Eq. (4) in section 3.2 “…” (…)". Equations of one
      section listed together (joined by commas, "and", "or") are cited together:
      "Eqs. (6) and (7) in section 3.3 “…” (…, …)".
    - A label whose item's title stands before it in the same sentence is left as written; when
      the title follows it in the sentence, the label gets the item's number only ("Table 21
      (…) of the paper ("GCUL performance …")"), so the title is not printed twice.
    - Inside a quoted title ("Proof of Theorem" + label + " (strict monotonicity)") the label
      becomes the number the PDF prints there: "Proof of Theorem 3.1 (strict monotonicity)".
    - Doctest lines, literal blocks, code and math directives, roles, inline literals that hold
      more than a label, and a ``kind:name`` that is not the paper's label are left as written.

    A label already beside its citation (after "“Title” (") is left as written, so citing twice
    changes nothing.

    Parameters
    ----------
    lines : list of str
        The lines of a reST text (a docstring as autodoc hands it over).
    beside : bool, optional
        Keep each label beside its citation (default); False leaves the labels out (for a
        one-line summary).

    Returns
    -------
    list of str
        As many lines as `lines`.

    Examples
    --------
    >>> cite_rest(["Theorem ``thm:monotonicity`` holds."])
    ['Theorem 3.1 “Strict Monotonicity of Selectivity Score” (``thm:monotonicity``) holds.']
    >>> cite_rest(["By eq:selectivity_score."], beside=False)
    ['By Eq. (4) in section 3.2 “Selectivity score and monotonicity”.']
    """
    prose = _prose_lines(lines)
    out = list(lines)
    i = 0
    while i < len(lines):
        if not (prose[i] and lines[i].strip()):
            i += 1
            continue
        j = i
        while j < len(lines) and prose[j] and lines[j].strip():
            j += 1
        out[i:j] = _cite_paragraph("\n".join(lines[i:j]), beside).split("\n")
        i = j
    return out


def _cite_paragraph(text: str, beside: bool) -> str:
    mentions = _mentions(text)
    if not mentions:
        return text
    masked = _INLINE.sub(lambda span: "x" * len(span.group(0)), text)
    chains: list[list[_Mention]] = []  # labels of one family joined by commas, "and", "or"
    for mention in mentions:
        if chains:
            last = chains[-1][-1]
            joined = _CHAIN.fullmatch(text[last.outer_end : mention.outer_start])
            if joined and _family(last.label) == _family(mention.label):
                chains[-1].append(mention)
                continue
        chains.append([mention])
    edits: list[tuple[int, int, str]] = []
    for chain in chains:
        word = _word_before(text, chain[0].outer_start)
        kind_word = word if word in KIND_WORDS[_family(chain[0].label)] else None
        cited: list[_Mention] = []
        for mention in chain:
            before = masked[: mention.start]
            if before.count('"') % 2 or before.count("“") > before.count("”"):
                edits.append((mention.start, mention.end, _number(mention.label, kind_word)))
                continue
            where = _title_in_sentence(text, mention, mentions)
            if where == "after":  # "Table ``tab:x`` of the paper ("Title")": its number only
                note = _labels_note([mention.label], beside)
                number = _number(mention.label, kind_word)
                if kind_word:
                    edits.append((mention.outer_start, mention.outer_end, number + note))
                else:
                    edits.append((mention.start, mention.end, number + note))
            elif where is None:
                cited.append(mention)
        if _family(chain[0].label) == "equation":
            edits += _equation_edits(text, cited, kind_word, beside)
            continue
        for mention in cited:
            note = _labels_note([mention.label], beside)
            if kind_word:  # "Theorem ``thm:x``", "figure (``fig:x``)": the parentheses go
                new = _kindless(mention.label, kind_word) + note
                edits.append((mention.outer_start, mention.outer_end, new))
            else:
                edits.append((mention.start, mention.end, cite(mention.label) + note))
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _title_in_sentence(text: str, mention: _Mention, mentions: list[_Mention]) -> str | None:
    """Where the title of ``mention``'s item stands in its sentence: ``"before"`` or ``"after"``
    the label, or None. Other labels there read as their numbers ("Proof of Theorem
    ``thm:monotonicity``" is "Proof of Theorem 3.1", the title of ``app:proof_monotonicity``)."""
    title = _normalise(PAPER_LABELS[mention.label].title)
    if not title:
        return None
    start, end = _sentence(text, mention.outer_start, mention.outer_end)
    sides: dict[str, list[str]] = {"before": [], "after": []}
    position = start
    for other in mentions:
        if start <= other.start and other.end <= end:
            part = sides["after" if other.start > mention.start else "before"]
            part.append(text[position : other.start])
            if other != mention:
                part.append(PAPER_LABELS[other.label].number)
            position = other.end
    sides["after"].append(text[position:end])
    for where in ("before", "after"):
        if title in _normalise("".join(sides[where])):
            return where
    return None


def _equation_edits(
    text: str, chain: list[_Mention], kind_word: str | None, beside: bool
) -> list[tuple[int, int, str]]:
    """The edits of a list of equations: one per run of consecutive equations of one section,
    "(6) and (7) in section 3.3 “…”", with "Eq."/"Eqs." before it unless a word says so."""
    runs: list[list[_Mention]] = []
    for mention in chain:
        item = PAPER_LABELS[mention.label]
        if runs:
            last = runs[-1][-1]
            same = PAPER_LABELS[last.label][3::2] == item[3::2]  # (section, appendix)
            if same and _CHAIN.fullmatch(text[last.outer_end : mention.outer_start]):
                runs[-1].append(mention)
                continue
        runs.append([mention])
    edits = []
    for n, run in enumerate(runs):
        numbers = ""
        for k, mention in enumerate(run):
            if k:
                numbers += text[run[k - 1].outer_end : mention.outer_start]
            numbers += f"({PAPER_LABELS[mention.label].number})"
        new = f"{numbers} in {_where(run[0].label)}{_labels_note([m.label for m in run], beside)}"
        follows = n > 0 and _CHAIN.fullmatch(text[runs[n - 1][-1].outer_end : run[0].outer_start])
        if (kind_word and run[0] is chain[0]) or follows:
            edits.append((run[0].outer_start, run[-1].outer_end, new))
        else:  # "(``eq:x``)" with no "Eq." before keeps its parentheses around the citation
            new = ("Eqs. " if len(run) > 1 else "Eq. ") + new
            edits.append((run[0].start, run[-1].end, new))
    return edits

