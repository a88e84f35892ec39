"""Run every claim check in paper order, format the report, and the ``python -m proofs`` CLI."""

from __future__ import annotations

import argparse
import difflib
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import NoReturn

import sympy as sp

from . import (
    _asymptotics,
    _certified,
    _chernoff,
    _conservative,
    _corollary,
    _criterion,
    _equal_coverage,
    _fraction,
    _joint_utility,
    _lemmas,
    _monotonicity,
    _numeric,
    _predictors,
    _projection,
    _rate_bounds,
    _rigorous,
    _space,
    _sufficient,
    _tails,
    _utility,
    _variance_proxy,
    _voronoi,
)
from .citations import cite_labels, paper_label
from ._result import STATUSES, ClaimResult
from ._trace import tracing

__all__ = [
    "CHECKS",
    "FORMATS",
    "run_all",
    "run_one",
    "claim_ids",
    "format_text",
    "format_markdown",
    "format_json",
    "format_latex",
    "format_derivation",
    "summary_line",
    "main",
]

#: Every claim check, in the order the claims appear in the paper; the package's own
#: predictors (beyond the paper) last.
CHECKS: tuple[Callable[[], ClaimResult], ...] = (
    *_space.CLAIMS,
    *_utility.CLAIMS_RISK,
    *_criterion.CLAIMS,
    *_equal_coverage.CLAIMS,
    *_utility.CLAIMS_MODEL,
    *_joint_utility.CLAIMS,
    *_monotonicity.CLAIMS,
    *_voronoi.CLAIMS_REDUCTION,
    *_projection.CLAIMS,
    *_tails.CLAIMS,
    *_voronoi.CLAIMS_EVENTS,
    *_rate_bounds.CLAIMS,
    *_asymptotics.CLAIMS_SHRINK,
    *_sufficient.CLAIMS,
    *_variance_proxy.CLAIMS,
    *_chernoff.CLAIMS,
    *_rigorous.CLAIMS,
    *_fraction.CLAIMS,
    *_corollary.CLAIMS,
    *_asymptotics.CLAIMS_DISPERSION,
    *_conservative.CLAIMS,
    *_predictors.CLAIMS,
    *_certified.CLAIMS,
    *_numeric.CLAIMS,
)

#: The claim modules whose ``show``/``is_identity`` calls ``--claim`` records as steps (the
#: modules the checks of :data:`CHECKS` are defined in, so a new claim module is traced without
#: being listed again), and ``_lemmas``, whose shared tests the claims call (``_expressions``
#: calls neither).
_MODULES = (*dict.fromkeys(sys.modules[check.__module__] for check in CHECKS), _lemmas)

FORMATS = ("text", "markdown", "json", "latex")


def run_all() -> list[ClaimResult]:
    """Check every claim of the paper; one :class:`ClaimResult` per claim, in paper order.

    Returns
    -------
    list of ClaimResult
        Never raises for a broken derivation: such a claim comes back with ``status="failed"``.

    Examples
    --------
    >>> results = run_all()
    >>> sorted({r.status for r in results})
    ['erratum', 'verified']
    """
    return [check() for check in CHECKS]


def claim_ids() -> list[str]:
    """Every claim id (``family.item``), in paper order."""
    # claim() sets claim_name on each check function; mypy does not model function attributes
    return [check.claim_name for check in CHECKS]  # type: ignore[attr-defined]


def _check_named(claim_id: str) -> Callable[[], ClaimResult]:
    for check in CHECKS:
        if check.claim_name == claim_id:  # type: ignore[attr-defined]  # as in claim_ids
            return check
    raise KeyError(claim_id)


def close_matches(claim_id: str) -> list[str]:
    """Claim ids that look like `claim_id`: same family first, then by spelling."""
    ids = claim_ids()
    family = [i for i in ids if i.split(".")[0] == claim_id.split(".")[0]]
    spelled = difflib.get_close_matches(claim_id, ids, n=5, cutoff=0.5)
    return list(dict.fromkeys(spelled + family))[:6]


def run_one(claim_id: str) -> tuple[ClaimResult, list]:
    """Check one claim and record its derivation steps.

    Parameters
    ----------
    claim_id : str
        A claim id from :func:`claim_ids`.

    Returns
    -------
    result : ClaimResult
    steps : list of proofs._trace.Step
        The expressions the check recorded, in order.

    Raises
    ------
    KeyError
        For an unknown id.

    Examples
    --------
    >>> result, steps = run_one("asymptotics.dispersion_limit")
    >>> result.status, len(steps) > 0
    ('erratum', True)
    """
    check = _check_named(claim_id)
    with tracing(_MODULES) as steps:
        result = check()
    return result, list(steps)


def summary_line(results: Sequence[ClaimResult]) -> str:
    """One line: ``N claims: a verified, b erratum, c failed``."""
    counts = Counter(r.status for r in results)
    parts = ", ".join(f"{counts.get(s, 0)} {s}" for s in STATUSES)
    return f"{len(results)} claims: {parts}"


def cited(result: ClaimResult) -> ClaimResult:
    """`result` as a reader of the paper's PDF can follow it: every LaTeX label in its texts
    (the reference, the statement, what was computed, the evidence, the correction) replaced by
    the number and title the paper prints (:func:`proofs.citations.cite_labels`).

    The formatters print this; the label itself stays in :attr:`ClaimResult.reference` (and in
    JSON's ``reference_label``) for a program or a developer holding the paper's source.

    Examples
    --------
    >>> r = ClaimResult("a.b", "thm:monotonicity", "S rises in r1", "e", "verified", None, "ev")
    >>> cited(r).reference
    'Theorem 3.1 “Strict Monotonicity of Selectivity Score”'
    """
    return replace(
        result,
        reference=cite_labels(result.reference),
        statement=cite_labels(result.statement),
        established=cite_labels(result.established),
        evidence=cite_labels(result.evidence),
        corrected=None if result.corrected is None else cite_labels(result.corrected),
    )


def _evidence_label(r: ClaimResult) -> str:
    return "counterexample" if r.status == "erratum" else "evidence"


def format_text(results: Sequence[ClaimResult], verbose: bool = False) -> str:
    """Plain-text claim table: verdict, the paper's item, statement as printed, what was
    computed, evidence.

    Errata show their counterexample and the corrected statement. The paper's items are cited
    by number and title (:func:`cited`), as in every format.

    Parameters
    ----------
    results : sequence of ClaimResult
    verbose : bool, optional
        Accepted for compatibility; every claim's statement and computation are always shown.
    """
    del verbose
    results = [cited(r) for r in results]
    w_name = max(len("claim"), *(len(r.name) for r in results))
    lines = [f"{'#':>3}  {'claim':<{w_name}}  status"]
    lines.append("-" * len(lines[0]) + "-" * 4)
    for i, r in enumerate(results, 1):
        lines.append(f"{i:>3}  {r.name:<{w_name}}  {r.status}")
        lines.append(f"     reference:   {r.reference}")  # a title: too long for a column
        lines.append(f"     statement:   {r.statement}")
        lines.append(f"     computed:    {r.established}")
        lines.append(f"     {_evidence_label(r) + ':':<13}{r.evidence}")
        if r.corrected:
            lines.append(f"     corrected:   {r.corrected}")
    return "\n".join(lines)


def format_markdown(results: Sequence[ClaimResult], verbose: bool = False) -> str:
    """Markdown claim table, then the corrected statements of the errata.

    Parameters
    ----------
    results : sequence of ClaimResult
    verbose : bool, optional
        Accepted for compatibility; the "Details" section (statement as printed, what was
        computed, counterexample) is always included.
    """
    del verbose
    results = [cited(r) for r in results]
    lines = [
        "| # | Claim | Reference | Status | Evidence |",
        "|---:|---|---|---|---|",
    ]
    for i, r in enumerate(results, 1):
        lines.append(
            f"| {i} | `{r.name}` | {_md(r.reference)} | **{r.status}** | {_md(r.evidence)} |"
        )
    errata = [r for r in results if r.status == "erratum"]
    if errata:
        lines += ["", "### Corrections", ""]
        lines += [f"- `{r.name}` ({_md(r.reference)}): {_md(r.corrected or '')}" for r in errata]
    lines += ["", "### Details", ""]
    for r in results:
        lines += [
            f"- `{r.name}` ({_md(r.reference)}, {r.status})",
            f"  - statement: {_md(r.statement)}",
            f"  - computed: {_md(r.established)}",
            f"  - {_evidence_label(r)}: {_md(r.evidence)}",
        ]
        if r.corrected:
            lines.append(f"  - corrected: {_md(r.corrected)}")
    return "\n".join(lines)


def format_json(results: Sequence[ClaimResult], elapsed: float | None = None) -> str:
    """JSON: ``{"summary": {...}, "claims": [{id, reference, reference_label, statement, ...}]}``.

    ``reference`` and the texts cite the paper by number and title (:func:`cited`);
    ``reference_label`` is the claim's LaTeX label as written (``"thm:monotonicity"``), for a
    program, or null for a claim about the package itself (reference ``finite_sample_lambda``).

    Examples
    --------
    >>> import json
    >>> from proofs._result import ClaimResult
    >>> r = ClaimResult("a.b", "eq:r1_bound", "s", "e", "verified", None, "ev")
    >>> claim = json.loads(format_json([r]))["claims"][0]
    >>> claim["id"], claim["reference_label"]
    ('a.b', 'eq:r1_bound')
    >>> claim["reference"]
    'Eq. (8) in section 3.3 “Effectiveness threshold and feasibility region”'
    """
    counts = Counter(r.status for r in results)
    claims = []
    for result in results:
        r = cited(result)
        claims.append(
            {
                "id": r.name,
                "reference": r.reference,
                "reference_label": paper_label(result.reference),
                "statement": r.statement,
                "computed": r.established,
                "status": r.status,
                "evidence": r.evidence,
                "counterexample": r.evidence if r.status == "erratum" else None,
                "corrected": r.corrected,
            }
        )
    summary: dict[str, int | float] = {
        "claims": len(results),
        **{s: counts.get(s, 0) for s in STATUSES},
    }
    if elapsed is not None:
        summary["seconds"] = round(elapsed, 2)
    return json.dumps({"summary": summary, "claims": claims}, indent=2, ensure_ascii=False)


_LATEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    # the paper's titles (proofs.citations): quotation marks and the symbols of its captions
    "“": "``",
    "”": "''",
    "λ": r"\ensuremath{\lambda}",
    "×": r"\ensuremath{\times}",
}


def _tex(text: str) -> str:
    return "".join(_LATEX_ESCAPES.get(ch, ch) for ch in text)


def format_latex(results: Sequence[ClaimResult]) -> str:
    r"""A booktabs ``longtable`` (needs ``\usepackage{booktabs,longtable}``), one block per claim.

    Examples
    --------
    >>> from proofs._result import ClaimResult
    >>> r = ClaimResult("a.b", "eq:r1_bound", "50% & more", "e", "verified", None, "ev")
    >>> r"50\% \& more" in format_latex([r])
    True
    """
    results = [cited(r) for r in results]
    lines = [
        "% requires \\usepackage{booktabs,longtable}",
        r"\begin{longtable}{@{}r p{0.3\linewidth} p{0.2\linewidth} l@{}}",
        r"\toprule",
        r"\# & Claim & Reference & Status \\",
        r"\midrule",
        r"\endhead",
    ]
    for i, r in enumerate(results, 1):
        lines.append(
            f"{i} & \\texttt{{{_tex(r.name)}}} & {_tex(r.reference)} & \\textbf{{{r.status}}} \\\\"
        )
        parts = [
            ("Statement", r.statement),
            ("Computed", r.established),
            ("Counterexample" if r.status == "erratum" else "Evidence", r.evidence),
        ]
        if r.corrected:
            parts.append(("Corrected", r.corrected))
        for label, text in parts:
            cell = f"\\emph{{{label}:}} {_tex(text)}"
            lines.append(f" & \\multicolumn{{3}}{{p{{0.9\\linewidth}}}}{{{cell}}} \\\\")
        lines.append(r"\midrule" if i < len(results) else r"\bottomrule")
    lines.append(r"\end{longtable}")
    return "\n".join(lines)


def _pretty(expr: sp.Basic, unicode: bool) -> str:
    return sp.pretty(expr, use_unicode=unicode, wrap_line=False)


def _outcome_fields(result: ClaimResult) -> list[tuple[str, str]]:
    """The closing fields of a derivation in every format, ``(label, text)``, in order."""
    fields = [
        ("computed", result.established),
        ("verdict", result.status),
        (_evidence_label(result), result.evidence),
    ]
    if result.corrected:
        fields.append(("corrected", result.corrected))
    return fields


def format_derivation(
    result: ClaimResult, steps: Sequence, unicode: bool = False, *, fmt: str = "text"
) -> str:
    """One claim, step by step: statement, the recorded SymPy expressions, verdict, correction.

    Parameters
    ----------
    result : ClaimResult
    steps : sequence of proofs._trace.Step
        As returned by :func:`run_one`.
    unicode : bool, optional
        Text only: draw the expressions with Unicode box characters (else ASCII).
    fmt : {"text", "markdown", "latex"}, optional
        ``"text"``: the expressions as SymPy's 2-D pretty print. ``"markdown"``: a section
        with the steps as a numbered list and each expression as display math
        (``$$...$$``, SymPy's LaTeX). ``"latex"``: a fragment (``\\subsection*``, a
        ``description`` and an ``enumerate`` with ``gather*`` math; needs
        ``\\usepackage{amsmath}``). JSON is :func:`format_json` plus the steps (the CLI).
        Every format cites the paper's items by number and title (:func:`cited`).

    Examples
    --------
    >>> result, steps = run_one("criterion.step2_divide")
    >>> format_derivation(result, steps, fmt="markdown").splitlines()[0]
    '### `criterion.step2_divide` (appendix A.1 “Derivation of the effectiveness criterion (Eq. 4)”)'
    >>> print(format_derivation(result, steps, fmt="latex").splitlines()[1][:62])
    \\subsection*{\\texttt{criterion.step2\\_divide} (appendix A.1 ``
    """
    result = cited(result)
    if fmt == "markdown":
        return _derivation_markdown(result, steps)
    if fmt == "latex":
        return _derivation_latex(result, steps)
    if fmt != "text":
        raise ValueError(f"fmt must be 'text', 'markdown' or 'latex'; got {fmt!r}")
    lines = [
        f"claim:          {result.name}",
        f"reference:      {result.reference}",
        f"statement:      {result.statement}",
        "",
    ]
    if steps:
        lines.append("derivation:")
        for k, st in enumerate(steps, 1):
            lines.append(f"  step {k}: {cite_labels(st.label)}")
            for expr in st.exprs:
                for row in _pretty(expr, unicode).splitlines():
                    lines.append(f"      {row}")
        lines.append("")
    lines += [f"{label + ':':<16}{text}" for label, text in _outcome_fields(result)]
    return "\n".join(lines)


_MARKDOWN_SPECIALS = "\\`*_[]<>|"


def _md(text: str) -> str:
    """Plain text for Markdown: its punctuation escaped, one line."""
    escaped = "".join(f"\\{ch}" if ch in _MARKDOWN_SPECIALS else ch for ch in text)
    return escaped.replace("\n", " ")


def _derivation_markdown(result: ClaimResult, steps: Sequence) -> str:
    lines = [
        f"### `{result.name}` ({_md(result.reference)})",
        "",
        f"- **statement (as printed):** {_md(result.statement)}",
        "",
    ]
    if steps:
        lines += ["**Derivation**", ""]
        for k, st in enumerate(steps, 1):
            lines.append(f"{k}. {_md(cite_labels(st.label))}")
            for expr in st.exprs:
                lines += ["", f"   $$ {sp.latex(expr)} $$"]
            lines.append("")
    for label, text in _outcome_fields(result):
        shown = f"**{text}**" if label == "verdict" else _md(text)  # the status word in bold
        lines.append(f"- **{label}:** {shown}")
    return "\n".join(lines)


def _derivation_latex(result: ClaimResult, steps: Sequence) -> str:
    lines = [
        "% requires \\usepackage{amsmath}",
        f"\\subsection*{{\\texttt{{{_tex(result.name)}}} ({_tex(result.reference)})}}",
        r"\begin{description}",
        rf"\item[Statement (as printed)] {_tex(result.statement)}",
        r"\end{description}",
    ]
    if steps:
        lines += [r"\paragraph{Derivation}", r"\begin{enumerate}"]
        for st in steps:
            lines.append(rf"\item {_tex(cite_labels(st.label))}")
            if st.exprs:
                rows = [sp.latex(expr) for expr in st.exprs]
                lines += [r"\begin{gather*}", " \\\\\n".join(rows), r"\end{gather*}"]
        lines.append(r"\end{enumerate}")
    lines.append(r"\begin{description}")
    for label, text in _outcome_fields(result):
        shown = rf"\textbf{{{text}}}" if label == "verdict" else _tex(text)  # status in bold
        lines.append(rf"\item[{label.capitalize()}] {shown}")
    lines.append(r"\end{description}")
    return "\n".join(lines)


class _Parser(argparse.ArgumentParser):
    """Argument parser whose errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


def _parser(prog: str = "python -m proofs") -> argparse.ArgumentParser:
    parser = _Parser(
        prog=prog,
        description=(
            "Re-derive every claim of the GCUL paper with SymPy (plus Monte Carlo where a "
            "probability is at stake) and print one row per claim."
        ),
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="format of the report, or of the derivation with --claim (default: %(default)s)",
    )
    parser.add_argument(
        "--claim",
        metavar="ID",
        default=None,
        help="print one claim's derivation step by step (ids: family.item, as in the report)",
    )
    parser.add_argument(
        "--verbose", "-v", action="store_true", help="accepted for compatibility (no effect)"
    )
    return parser


def _unicode_ok() -> bool:
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "")
    return encoding in ("utf8", "utf_8")


#: The non-ASCII characters of the paper's titles (proofs.citations), spelled in ASCII.
_ASCII = str.maketrans({"“": '"', "”": '"', "λ": "lambda", "×": "x"})


def _print(text: str, *, is_json: bool = False) -> None:
    """Print `text`; on a stdout that cannot encode the titles' quotation marks and symbols (an
    ASCII terminal), print them in ASCII (JSON as ``\\u`` escapes) rather than fail with
    ``UnicodeEncodeError``."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        if is_json:
            text = json.dumps(json.loads(text), indent=2, ensure_ascii=True)
        else:
            text = text.translate(_ASCII).encode(encoding, errors="replace").decode(encoding)
    except LookupError:  # an encoding Python does not know: leave it to print
        pass
    print(text)


def _print_one(claim_id: str, fmt: str, prog: str) -> int:
    if claim_id not in claim_ids():
        near = close_matches(claim_id)
        hint = f"; close matches: {', '.join(near)}" if near else ""
        sys.stderr.write(f"{prog}: error: unknown claim {claim_id!r}{hint}\n")
        return 2
    result, steps = run_one(claim_id)
    if fmt == "json":
        payload = json.loads(format_json([result]))["claims"][0]
        payload["steps"] = [
            {"label": cite_labels(st.label), "expressions": [sp.sstr(e) for e in st.exprs]}
            for st in steps
        ]
        _print(json.dumps(payload, indent=2, ensure_ascii=False), is_json=True)
    else:
        _print(format_derivation(result, steps, unicode=_unicode_ok(), fmt=fmt))
    return 1 if result.status == "failed" else 0


def main(argv: Sequence[str] | None = None, prog: str = "python -m proofs") -> int:
    """Command-line entry point: print the claim report (or one derivation) and a summary line.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name; ``sys.argv[1:]`` when None.
        ``--format {text,markdown,json,latex}`` (default text); ``--claim ID`` prints one
        claim's derivation step by step, in the format asked for (:func:`format_derivation`;
        JSON with the steps for ``--format json``).
    prog : str, optional
        Program name in error messages (``gcul prove`` passes its own).

    Returns
    -------
    int
        1 if any claim ``failed``, 2 on a usage error (an unknown ``--claim`` included), else 0.
    """
    try:
        args = _parser(prog).parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2)
        return int(exc.code or 0)
    if args.claim is not None:
        return _print_one(args.claim, args.format, prog)
    start = time.perf_counter()
    results = run_all()
    elapsed = time.perf_counter() - start
    if args.format == "json":
        _print(format_json(results, elapsed), is_json=True)
    elif args.format == "latex":
        _print(format_latex(results))
        print(f"% {summary_line(results)} ({elapsed:.1f} s)")
    else:
        formatter = format_markdown if args.format == "markdown" else format_text
        _print(formatter(results))
        print()
        line = f"{summary_line(results)} ({elapsed:.1f} s)"
        print(f"**{line}**" if args.format == "markdown" else line)
    return 1 if any(r.status == "failed" for r in results) else 0
