"""The paper's items as a reader of its PDF finds them: a LaTeX label becomes number and title.

The claims name the paper's items by their LaTeX labels (``thm:r1_rigorous``,
``eq:selectivity_score``), which is what a developer holding the source needs; a reader of
``gcul prove`` has the rendered paper only. :func:`cite` turns one label into what that reader
finds (``Theorem 3.5 “Rigorous Sub-Gaussian Lower Bound for Global Capture Rate r1”``,
``Eq. (4) in section 3.2 “Selectivity score and monotonicity”``) and :func:`cite_labels` does so
for every label in a text; the report's formatters call them, so the claims keep their labels
and every output prints titles. The numbers and titles are those of
:data:`proofs._paper_labels.PAPER_LABELS`, generated from the paper's source.
"""

from __future__ import annotations

import re

from ._paper_labels import PAPER_LABELS, PaperItem

__all__ = ["LABEL", "cite", "cite_labels", "paper_label"]

#: A LaTeX cross-reference label of the paper: ``thm:r1_rigorous``, ``tab:synthetic_gcul``, ...
LABEL = re.compile(r"\b(?:tab|sec|subsec|fig|eq|thm|app|alg|lem|cor|ass):[A-Za-z0-9_]+")

#: "Eq. (selectivity_score)", "Eq. (eq:r1_bound)", "Eqs. (r1_hat), (r2_hat)": equations named
#: by label (with or without its ``eq:`` prefix) in the claims' texts.
_EQUATIONS = re.compile(r"\bEqs?\.\s*\((?:eq:)?(\w+)\)((?:,\s*\((?:eq:)?\w+\))*)")

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
