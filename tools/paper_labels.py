"""Generate ``proofs/paper_labels.csv``: the GCUL paper's LaTeX labels and what a reader sees.

A reader of ``gcul prove`` has the paper's PDF, not its LaTeX source, so the report cites a
claim by the number and title the rendered paper shows ("Theorem 3.5 “Rigorous Sub-Gaussian
Lower Bound …”", "Eq. (14) in section 3.5 “…”"), never by a label (``thm:r1_rigorous``). This
script reads the source once and writes the table the package ships as data (``proofs.citations``
reads it); run it again only when the paper changes::

    python tools/paper_labels.py PATH/TO/gcul_paper.tex > proofs/paper_labels.csv

Numbering follows LaTeX's ``article`` class and amsmath/amsthm as the paper's preamble sets them
up, for what the paper uses: sections 1, 2, …; after ``\\appendix`` sections A, B, …;
``\\section*`` and ``\\paragraph`` unnumbered (a ``\\label`` after a ``\\paragraph`` refers to the
enclosing section; its title is kept too); ``theorem`` numbered within the section, ``lemma`` and
``corollary`` sharing its counter; ``remark`` within the section; ``assumption`` throughout;
equations throughout (``equation`` one number, ``align`` one per line unless
``\\nonumber``/``\\notag``, starred forms none); tables, figures and algorithms throughout, a
``subfigure`` as ``5a``. A command the title converter does not know raises, so a new paper
cannot be mistranscribed silently.
"""

from __future__ import annotations

import csv
import io
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

#: The header of the data file (``proofs.citations.COLUMNS``; this script runs without the package).
COLUMNS = ("label", "kind", "number", "title", "section", "section_title", "appendix")

THEOREMS = {  # environment -> (printed name, counter it steps)
    "theorem": ("Theorem", "theorem"),
    "lemma": ("Lemma", "theorem"),
    "corollary": ("Corollary", "theorem"),
    "remark": ("Remark", "remark"),
    "assumption": ("Assumption", "assumption"),
}
#: counters reset by a new \section
PER_SECTION = ("theorem", "remark")
#: environments numbered per line (amsmath)
MULTILINE = ("align", "gather", "flalign", "alignat", "eqnarray")
#: environments of one number
SINGLE = ("equation", "multline")
#: floats and their printed names
FLOATS = {"table": "Table", "figure": "Figure", "algorithm": "Algorithm"}

_SYMBOLS = {
    r"\lambda": "λ",
    r"\sigma": "σ",
    r"\varepsilon": "ε",
    r"\epsilon": "ε",
    r"\rho": "ρ",
    r"\times": "×",
    r"\approx": "≈",
    r"\le": "≤",
    r"\ge": "≥",
    r"\infty": "∞",
    r"\to": "→",
    r"\&": "&",
    r"\%": "%",
    r"\_": "_",
    r"\,": " ",
    r"\ ": " ",
}
#: commands whose argument is kept and the command dropped
_WRAPPERS = ("textbf", "textit", "emph", "mathrm", "mathbf", "boldsymbol", "text", "mbox")


def strip_comments(tex: str) -> str:
    """``tex`` without its ``%`` comments (an escaped ``\\%`` stays)."""
    return "\n".join(re.sub(r"(?<!\\)%.*", "", line) for line in tex.splitlines())


def braced(tex: str, start: int) -> tuple[str, int]:
    """The balanced ``{...}`` group opening at ``tex[start]``: its content and the index after it."""
    if tex[start] != "{":
        raise ValueError(f"expected '{{' at {start}: {tex[start : start + 30]!r}")
    depth = 0
    for i in range(start, len(tex)):
        if tex[i] == "{" and tex[i - 1] != "\\":
            depth += 1
        elif tex[i] == "}" and tex[i - 1] != "\\":
            depth -= 1
            if depth == 0:
                return tex[start + 1 : i], i + 1
    raise ValueError(f"unbalanced group from {start}")


def plain(tex: str, numbers: dict[str, str]) -> str:
    """A title as the rendered paper prints it: references resolved, math as Unicode text."""
    out = tex
    while (m := re.search(r"\\texorpdfstring\{", out)) is not None:
        _, end = braced(out, m.end() - 1)
        pdf, end2 = braced(out, end)
        out = out[: m.start()] + pdf + out[end2:]
    out = re.sub(r"\\eqref\{([^}]*)\}", lambda m: f"({numbers[m.group(1)]})", out)
    out = re.sub(r"\\ref\{([^}]*)\}", lambda m: numbers[m.group(1)], out)
    for name in _WRAPPERS:
        while (m := re.search(rf"\\{name}\{{", out)) is not None:
            inner, end = braced(out, m.end() - 1)
            out = out[: m.start()] + inner + out[end:]
    for command, text in sorted(_SYMBOLS.items(), key=lambda kv: -len(kv[0])):
        out = re.sub(re.escape(command) + r"(?![A-Za-z])", lambda _m, t=text: t, out)
    out = re.sub(r"\^\{?\*\}?", "*", out)  # λ^* -> λ*
    out = re.sub(r"_\{?(\d)\}?", r"\1", out)  # r_1 -> r1, as the package writes it
    out = re.sub(r"_\{([^{}]*)\}", r"_\1", out)
    out = out.replace("$", "").replace("~", " ").replace("{", "").replace("}", "")
    leftover = re.findall(r"\\[A-Za-z]+", out)
    if leftover:
        raise ValueError(f"unknown LaTeX command(s) {leftover} in the title {tex!r}")
    return re.sub(r"\s+", " ", out).strip()


@dataclass
class Target:
    """What a ``\\label`` refers to at a point of the document (LaTeX's ``\\@currentlabel``)."""

    kind: str
    number: str
    raw_title: str = ""
    section: str = ""  # the innermost numbered sectioning unit around it
    raw_section_title: str = ""
    appendix: bool = False


@dataclass
class _State:
    counters: dict[str, int] = field(default_factory=dict)
    appendix: bool = False
    section: Target = field(default_factory=lambda: Target("document", ""))
    target: Target = field(default_factory=lambda: Target("document", ""))
    stack: list[tuple[str, Target]] = field(default_factory=list)
    labels: dict[str, Target] = field(default_factory=dict)
    line_labels: list[str] = field(default_factory=list)
    line_numbered: bool = True
    line_text: str = ""

    def step(self, counter: str) -> int:
        self.counters[counter] = self.counters.get(counter, 0) + 1
        return self.counters[counter]


_TOKEN = re.compile(
    r"\\(?P<sec>section|subsection|subsubsection|paragraph)(?P<star>\*?)\s*(?=\{)"
    r"|\\begin\{(?P<begin>[A-Za-z]+\*?)\}"
    r"|\\end\{(?P<end>[A-Za-z]+\*?)\}"
    r"|\\label\{(?P<label>[^}]*)\}"
    r"|\\caption(?=\{)"
    r"|\\appendix\b"
    r"|\\(?:nonumber|notag)\b"
    r"|\\\\"
)


def _section_number(state: _State, level: int) -> str:
    major = state.counters.get("section", 0)
    head = chr(ord("A") + major - 1) if state.appendix else str(major)
    parts = [head] + [str(state.counters.get(c, 0)) for c in ("subsection", "subsubsection")]
    return ".".join(parts[: level + 1])


def _in_math_lines(state: _State) -> bool:
    return bool(state.stack) and state.stack[-1][0] in MULTILINE


def _end_line(state: _State) -> None:
    """Close a line of an align-like environment: number it and attach its labels."""
    numbered = state.line_numbered and (state.line_text.strip() or state.line_labels)
    if numbered:
        n = state.step("equation")
        target = Target("equation", str(n), "", state.section.number,
                        state.section.raw_title, state.appendix)  # fmt: skip
        for label in state.line_labels:
            state.labels[label] = target
    elif state.line_labels:
        raise ValueError(f"label(s) {state.line_labels} on an unnumbered line")
    state.line_labels, state.line_numbered, state.line_text = [], True, ""


def scan(tex: str) -> dict[str, Target]:
    """Every ``\\label`` of the document and what it refers to, in document order."""
    tex = strip_comments(tex)
    begin = tex.find(r"\begin{document}")
    tex = tex[begin:] if begin >= 0 else tex
    state = _State()
    pos = 0
    while (m := _TOKEN.search(tex, pos)) is not None:
        if _in_math_lines(state):
            state.line_text += tex[pos : m.start()]
        pos = m.end()
        token = m.group(0)
        if m.group("sec"):
            level = ("section", "subsection", "subsubsection", "paragraph").index(m.group("sec"))
            title, pos = braced(tex, m.end())
            if m.group("star"):
                continue
            if level == 3:  # \paragraph: unnumbered; a label names it inside its section
                state.target = Target("paragraph", state.section.number, title,
                                      state.section.number, state.section.raw_title,
                                      state.appendix)  # fmt: skip
                continue
            name = ("section", "subsection", "subsubsection")[level]
            state.step(name)
            for lower in ("subsection", "subsubsection")[level:]:
                state.counters[lower] = 0
            if level == 0:
                for counter in PER_SECTION:
                    state.counters[counter] = 0
            number = _section_number(state, level)
            state.section = Target(name, number, title, number, title, state.appendix)
            state.target = state.section
        elif token == r"\appendix":
            state.appendix = True
            state.counters["section"] = 0
        elif m.group("begin"):
            env = m.group("begin")
            state.stack.append((env, state.target))
            if env in THEOREMS:
                counter = THEOREMS[env][1]
                n = state.step(counter)
                number = f"{_section_number(state, 0)}.{n}" if counter in PER_SECTION else str(n)
                title = ""
                if tex.startswith("[", pos):
                    close = tex.index("]", pos)
                    title, pos = tex[pos + 1 : close], close + 1
                state.target = Target(env, number, title, state.section.number,
                                      state.section.raw_title, state.appendix)  # fmt: skip
            elif env in SINGLE:
                n = state.step("equation")
                state.target = Target("equation", str(n), "", state.section.number,
                                      state.section.raw_title, state.appendix)  # fmt: skip
            elif env in MULTILINE:
                state.line_labels, state.line_numbered, state.line_text = [], True, ""
            elif env == "figure":
                state.counters["subfigure"] = 0
        elif m.group("end"):
            env = m.group("end")
            if not state.stack or state.stack[-1][0] != env:
                raise ValueError(f"\\end{{{env}}} does not close {state.stack[-1:]}")
            if env in MULTILINE:
                _end_line(state)
            _, state.target = state.stack.pop()
        elif token == r"\\":
            if _in_math_lines(state):
                _end_line(state)
        elif token in (r"\nonumber", r"\notag"):
            state.line_numbered = False
        elif token == r"\caption":
            caption, pos = braced(tex, m.end())
            envs = [env for env, _ in state.stack]
            if "subfigure" in envs:
                parent = state.counters.get("figure", 0) + 1  # the figure's \caption comes after
                n = state.step("subfigure")
                number = f"{parent}{chr(ord('a') + n - 1)}"
                kind = "subfigure"
            else:
                kind = next(env for env in reversed(envs) if env in FLOATS)
                number = str(state.step(kind))
            bold = re.match(r"\s*\\textbf\{", caption)
            title = braced(caption, bold.end() - 1)[0] if bold else caption
            state.target = Target(kind, number, title, state.section.number,
                                  state.section.raw_title, state.appendix)  # fmt: skip
        elif m.group("label") is not None:
            label = m.group("label")
            if label in state.labels:
                raise ValueError(f"label {label!r} defined twice")
            if _in_math_lines(state):
                state.line_labels.append(label)
            else:
                state.labels[label] = state.target
    return state.labels


def render(labels: dict[str, Target]) -> str:
    """The data file ``proofs/paper_labels.csv`` for ``labels``: a header (``proofs.citations.
    COLUMNS``), then one row per label in document order, titles as the PDF prints them."""
    numbers = {label: t.number for label, t in labels.items()}

    def title(raw: str) -> str:
        return plain(raw, numbers).rstrip(".")

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for label, t in labels.items():
        writer.writerow(
            (label, t.kind, t.number, title(t.raw_title), t.section,
             title(t.raw_section_title), "true" if t.appendix else "false")
        )  # fmt: skip
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    """Print the data file for the paper named on the command line."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        sys.stderr.write("usage: python tools/paper_labels.py PATH/TO/gcul_paper.tex\n")
        return 2
    sys.stdout.write(render(scan(Path(args[0]).read_text(encoding="utf-8"))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
