"""Per-predictor tallies of feasibility verdicts over many splits, and their Markdown tables.

The tables of the real-data validation of the λ* predictors (``benchmarks/predictors.py``):
each row of its study is one call of :func:`simulations.report.feasibility_verdict` (one split,
one predictor, one kind of phase-1 predictions); :func:`verdict_summary` counts them per group
and :func:`format_verdict_summary_markdown` / :func:`format_verdict_summary_wide` print them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from simulations.report.violations import VERDICTS

__all__ = ["format_verdict_summary_markdown", "format_verdict_summary_wide", "verdict_summary"]

_ROW_KEYS = ("family", "predictions", "predictor", "verdict", "confirmed", "can_reject", "valid")


def verdict_summary(
    rows: Sequence[Mapping[str, Any]], predictor_order: Sequence[str], by_family: bool = True
) -> list[dict[str, Any]]:
    """Counts per (family,) predictions and predictor: n, each verdict, confirmed calls, the
    unsafe rate.

    Parameters
    ----------
    rows : sequence of mapping
        One per call, with ``family``, ``predictions``, ``predictor``, ``verdict`` (one of
        :data:`simulations.report.VERDICTS`), ``confirmed`` (the test split's own confidence
        bound agrees with the verdict), ``can_reject`` and ``valid``.
    predictor_order : sequence of str
        Every predictor of ``rows``, in table order.
    by_family : bool, default=True
        One group per family; ``False`` pools the families (family ``"all"``).

    Returns
    -------
    list of dict
        One per group, ordered by family (first appearance), in-sample before cross-validated
        predictions, then ``predictor_order``: ``family``, ``predictions``, ``predictor``, ``n``,
        the count of every verdict, ``confirmed_type_I``, ``confirmed_type_II``, ``no_reject``
        (rows whose model cannot reject), ``unsafe_rate`` (Type-II / n) and ``valid`` (the first
        row's).

    Raises
    ------
    ValueError
        In one line: a row lacking a key, or a predictor not in ``predictor_order``.

    Examples
    --------
    >>> rows = [{"family": "f", "predictions": "in_sample", "predictor": "union",
    ...          "verdict": v, "confirmed": False, "can_reject": True, "valid": False}
    ...         for v in ("correct", "type_II")]
    >>> s = verdict_summary(rows, ["union"])[0]
    >>> s["n"], s["correct"], s["type_II"], s["unsafe_rate"]
    (2, 1, 1, 0.5)
    """
    order = {name: i for i, name in enumerate(predictor_order)}
    for row in rows:
        missing = [k for k in _ROW_KEYS if k not in row]
        if missing:
            raise ValueError(f"every row must have {list(_ROW_KEYS)}; a row lacks {missing}")
        if row["predictor"] not in order:
            raise ValueError(f"predictor {row['predictor']!r} is not in predictor_order")
    groups: dict[tuple, list[Mapping[str, Any]]] = {}
    for row in rows:
        key = (row["family"] if by_family else "all", row["predictions"], row["predictor"])
        groups.setdefault(key, []).append(row)
    fam_order: dict[str, int] = {}
    for row in rows:
        fam_order.setdefault(row["family"], len(fam_order))
    fam_order["all"] = -1
    out = []
    for key in sorted(
        groups, key=lambda k: (fam_order[k[0]], k[1] == "cross_validated", order[k[2]])
    ):
        members = groups[key]
        n = len(members)
        counts = {v: sum(r["verdict"] == v for r in members) for v in VERDICTS}
        out.append({
            "family": key[0], "predictions": key[1], "predictor": key[2], "n": n, **counts,
            "confirmed_type_I": sum(r["confirmed"] and r["verdict"] == "type_I" for r in members),
            "confirmed_type_II": sum(r["confirmed"] and r["verdict"] == "type_II" for r in members),
            "no_reject": sum(not r["can_reject"] for r in members),
            "unsafe_rate": counts["type_II"] / n, "valid": members[0]["valid"],
        })  # fmt: skip
    return out


def format_verdict_summary_markdown(summary: Sequence[Mapping[str, Any]]) -> str:
    """A Markdown table of :func:`verdict_summary`'s rows, one line per row.

    Examples
    --------
    >>> s = {"family": "all", "predictions": "in_sample", "predictor": "union", "n": 2,
    ...      "correct": 1, "type_I": 0, "confirmed_type_I": 0, "type_II": 1,
    ...      "confirmed_type_II": 0, "failed": 0, "no_reject": 0, "unsafe_rate": 0.5}
    >>> print(format_verdict_summary_markdown([s]).splitlines()[-1])
    | all | in_sample | union | 2 | 1 | 0 | 0 | 1 | 0 | 0 | 0 | 0.50 |
    """
    lines = [
        "| family | predictions | predictor | n | correct | Type-I | confirmed | Type-II | confirmed"
        " | failed | no reject | unsafe rate |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in summary:
        lines.append(
            f"| {s['family']} | {s['predictions']} | {s['predictor']} | {s['n']} | {s['correct']}"
            f" | {s['type_I']} | {s['confirmed_type_I']} | {s['type_II']} | {s['confirmed_type_II']}"
            f" | {s['failed']}"
            f" | {s['no_reject']}"
            f" | {s['unsafe_rate']:.2f} |"
        )
    return "\n".join(lines) + "\n"


def format_verdict_summary_wide(
    summary: Sequence[Mapping[str, Any]], predictor_order: Sequence[str]
) -> str:
    """A Markdown table, one line per family and predictor: correct / Type-I / Type-II with
    in-sample and with cross-validated phase-1 predictions side by side.

    A predictor with ``calibration`` rows (the certified one) gets one cell, marked
    ``(calibration)``; a cell with failed calls says how many.

    Raises
    ------
    KeyError
        A family lacks a predictor of ``predictor_order``.
    """
    cell = {(s["family"], s["predictions"], s["predictor"]): s for s in summary}
    fams = list(dict.fromkeys(s["family"] for s in summary))
    lines = [
        "| family | predictor | n | in-sample ŷ: correct / I / II | cross-validated ŷ:"
        " correct / I / II |",
        "|---|---|---:|---:|---:|",
    ]

    def fmt(s):
        text = f"{s['correct']} / {s['type_I']} / {s['type_II']}"
        return text + (f" ({s['failed']} failed)" if s["failed"] else "")

    for fam in fams:
        for name in predictor_order:
            if (fam, "calibration", name) in cell:
                s = cell[fam, "calibration", name]
                lines.append(f"| {fam} | {name} (calibration) | {s['n']} | {fmt(s)} | |")
                continue
            a, b = cell[fam, "in_sample", name], cell[fam, "cross_validated", name]
            lines.append(f"| {fam} | {name} | {a['n']} | {fmt(a)} | {fmt(b)} |")
    return "\n".join(lines) + "\n"
