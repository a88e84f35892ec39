"""What :func:`simulations.compare.compare` returns: a summary per rejector, the guarantee from a
calibration split, and the result as text, Markdown and JSON (what ``gcul compare`` prints)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from simulations.statistics import (
    DEFAULT_LEVEL,
    TEST_NAME,
    Estimate,
    Verdict,
    finite_or_none,
    t_critical,
)

__all__ = ["ASSUMPTION", "CompareResult", "Guarantee", "RejectorSummary"]

# --------------------------------------------------------------------------------------------
# Results


@dataclasses.dataclass(frozen=True)
class RejectorSummary:
    """One rejector over the splits.

    Attributes
    ----------
    name, label : str
        Registry name and printed name.
    operating_point : str
        The rule its coverage, U and U_joint are measured at: its natural operating point, or
        "GCUL's coverage" for a rejector without one.
    natural : bool
        Whether ``operating_point`` is the rejector's own rule.
    coverage : Estimate
        Share of the test rows accepted at ``operating_point``.
    sel_risk : Estimate
        Selective risk at GCUL's coverage (the same accepted count as GCUL).
    difference : Estimate
        ``sel_risk`` minus GCUL's, split by split (all zeros for GCUL).
    aurc : Estimate
        Area under its risk–coverage curve.
    u, u_joint : Estimate
        The paper's U and Chow's U_joint at ``operating_point``.
    verdict : str
        The line of :func:`verdict` on ``difference`` (for GCUL: "the reference").
    test : Verdict or None
        The test behind ``verdict`` (None for GCUL).
    """

    name: str
    label: str
    operating_point: str
    natural: bool
    coverage: Estimate
    sel_risk: Estimate
    difference: Estimate
    aurc: Estimate
    u: Estimate
    u_joint: Estimate
    verdict: str
    test: Verdict | None = None

    def to_dict(self) -> dict:
        out: dict[str, Any] = {
            "name": self.name,
            "label": self.label,
            "operating_point": self.operating_point,
            "natural_operating_point": self.natural,
        }
        for key in ("coverage", "sel_risk", "difference", "aurc", "u", "u_joint"):
            out[key] = getattr(self, key).to_dict()
        out["verdict"] = self.verdict
        out["test"] = None if self.test is None else self.test.to_dict()
        return out


@dataclasses.dataclass(frozen=True)
class Guarantee:
    """Clopper–Pearson bounds for GCUL and for MSP at the same coverage, and SGR for MSP.

    The rows are split once at random (not stratified: ``n_cal`` rows drawn uniformly, seeded)
    into a calibration part and a fit part; the fit part is split stratified into ``n_train``
    rows that GCUL is fitted on and ``n_tune`` rows on which MSP's threshold is chosen to accept
    as many rows as GCUL does. Both rules are then fixed before the calibration rows are seen.

    Assumptions of the bounds: the rows (calibration and deployment) are iid draws of one law,
    and each rule was fixed before the calibration rows were seen (here by construction). Then
    with probability at least 1 − δ over the calibration rows, the selective risk of the rule on
    that law is at most the bound (:func:`gcul_theory.selective_risk_upper_bound`). The bound is
    for *this* fitted GCUL, not for one refitted on all rows.

    Attributes
    ----------
    n_train, n_tune, n_cal : int
        Rows of the three parts.
    delta : float
        Risk δ.
    gcul, msp : dict
        ``coverage`` (on the calibration rows), ``n_accepted``, ``n_wrong``, ``risk`` (the
        observed selective risk) and ``bound``; ``msp`` also ``threshold``, the maximum softmax
        probability it accepts from.
    sgr : dict
        SGR (:func:`gcul_theory.sgr_threshold`) on MSP's calibration scores: ``target_risk``,
        ``target_source``, and, when it ran, ``feasible``, ``threshold`` (a probability),
        ``coverage``, ``risk``, ``bound`` and ``reason``; else ``reason`` alone.
    """

    n_train: int
    n_tune: int
    n_cal: int
    delta: float
    gcul: dict
    msp: dict
    sgr: dict

    def to_dict(self) -> dict:
        return {
            "n_train": self.n_train,
            "n_tune": self.n_tune,
            "n_cal": self.n_cal,
            "delta": self.delta,
            "assumption": ASSUMPTION,
            "gcul": {k: _json(v) for k, v in self.gcul.items()},
            "msp": {k: _json(v) for k, v in self.msp.items()},
            "sgr": {k: _json(v) for k, v in self.sgr.items()},
        }

    def lines(self) -> list[str]:
        """The guarantee in words, one line each."""
        conf = f"{1 - self.delta:g}"
        out = [
            f"guarantee (one random split: GCUL fitted on {self.n_train} rows, MSP's threshold "
            f"matched to GCUL's coverage on {self.n_tune} more, bounds from {self.n_cal} "
            "calibration rows):",
            f"  assumes: {ASSUMPTION}",
        ]
        for label, part in (("GCUL", self.gcul), ("MSP at GCUL's coverage", self.msp)):
            extra = f", p_max >= {part['threshold']:.4g}" if "threshold" in part else ""
            out.append(
                f"  {label}{extra}: accepts {part['n_accepted']} of {self.n_cal} "
                f"(coverage {part['coverage']:.3f}), {part['n_wrong']} wrong "
                f"(risk {part['risk']:.4f}); with confidence {conf} its selective risk is "
                f"<= {part['bound']:.4f}"
            )
        sgr = self.sgr
        if "feasible" not in sgr:
            out.append(f"  SGR (MSP): not run: {sgr['reason']}")
        elif sgr["feasible"]:
            out.append(
                f"  SGR (MSP, target risk {sgr['target_risk']:.4f} = {sgr['target_source']}): "
                f"accept p_max >= {sgr['threshold']:.4g}: coverage {sgr['coverage']:.3f} on "
                f"calibration, risk {sgr['risk']:.4f}, <= {sgr['bound']:.4f} with confidence "
                f"{conf}"
            )
        else:
            out.append(
                f"  SGR (MSP, target risk {sgr['target_risk']:.4f} = {sgr['target_source']}): "
                f"{sgr['reason']}"
            )
        return out


ASSUMPTION = (
    "calibration and deployment rows are iid draws of one law, and each rule was fixed before "
    "the calibration rows were seen"
)
"""What the bounds of :class:`Guarantee` assume; printed with them."""


_UTILITY_LEGEND = (
    "U and U_joint, at each rejector's operating point (eps: phase 1's error rate, eps_sel: the "
    "error rate among the accepted rows, rho: the rejected share, lam: the cost of a rejection "
    "relative to an error):",
    "  U = eps - eps_sel - lam*rho, the paper's utility and its criterion: does rejecting lower "
    "the error rate on the rows kept by more than it costs? (error avoided on the accepted rows "
    "minus the rejection cost)",
    "  U_joint = eps - (1-rho)*eps_sel - lam*rho, Chow's joint loss: does rejecting lower the "
    "expected loss per row over all rows, an error costing 1 and a rejection lam? (errors "
    "counted over all rows)",
)
"""The lines under the text report's table that say which question U and U_joint answer
(:func:`gcul_theory.utility`, :func:`gcul_theory.joint_utility`)."""


@dataclasses.dataclass(frozen=True)
class CompareResult:
    """What :func:`compare` found; ``format()`` (text), ``to_markdown()``, ``to_dict()`` (JSON).

    Attributes
    ----------
    n, n_features, n_classes : int
        Rows, features and classes of the data.
    lam, test_size, delta : float
        The arguments.
    splits, seed : int
        The arguments.
    n_train, n_test : int
        Rows of the training and test parts of every split.
    base_error : Estimate
        Phase 1's test error ε.
    gcul_coverage : Estimate
        GCUL's coverage on the test part.
    rejectors : tuple of RejectorSummary
        GCUL first, then the others in registry order.
    best : str or None
        The label of the rejector with the lowest mean selective risk at GCUL's coverage, or
        None when several share it exactly (a tie: see ``lowest``). The lowest mean, not a
        significant win: ``verdict`` of each rejector says whether its difference is one.
    guarantee : Guarantee
        The Clopper–Pearson and SGR guarantees.
    notes : tuple of str
        What the numbers rest on.
    curves : dict
        Risk–coverage curve of every rejector on the first split, and GCUL's operating point
        (for :func:`plot_risk_coverage`; not in ``to_dict``).
    error_pool : dict
        GCUL's phase-1 regime: ``pool`` (``"in_sample"`` or ``"out_of_fold"``),
        ``standardize``, ``n_errors`` (the pool's size in each split) and ``message``, one line
        when phase 1 left GCUL no (or at most ``K``) errors in some split, else ``None``.
    level : float
        Two-sided level of the verdicts' test.
    lowest : tuple of str
        The labels of every rejector whose mean selective risk at GCUL's coverage equals the
        lowest exactly (one label unless there is a tie), in registry order.
    """

    n: int
    n_features: int
    n_classes: int
    lam: float
    splits: int
    seed: int
    test_size: float
    delta: float
    n_train: int
    n_test: int
    base_error: Estimate
    gcul_coverage: Estimate
    rejectors: tuple[RejectorSummary, ...]
    best: str | None
    guarantee: Guarantee
    notes: tuple[str, ...]
    curves: dict = dataclasses.field(repr=False, compare=False)
    error_pool: dict = dataclasses.field(default_factory=dict)
    level: float = DEFAULT_LEVEL
    lowest: tuple[str, ...] = ()

    def rejector(self, name: str) -> RejectorSummary:
        """The summary of the rejector called ``name``."""
        for summary in self.rejectors:
            if summary.name == name:
                return summary
        raise KeyError(name)

    def _lowest_line(self) -> str:
        head = "lowest mean selective risk at GCUL's coverage"
        if self.best is not None:
            return f"{head}: {self.best}"
        tied = self.lowest
        if len(tied) < 2:
            return f"{head}: not named"
        by_label = {r.label: r.sel_risk.values for r in self.rejectors}
        same = len({by_label.get(label) for label in tied}) == 1
        why = "the same selective risk in every split" if same else "the same mean"
        return f"{head}: a tie between {', '.join(tied[:-1])} and {tied[-1]} ({why})"

    def _verdicts_head(self) -> str:
        df = self.splits - 1
        cut = (
            f"'lower'/'higher' when |t| > t_(1-{self.level:g}/2, {df}) = "
            f"{t_critical(self.level, df):.2f}"
            if df
            else "the test needs at least 2 splits"
        )
        return (
            f"verdicts: {TEST_NAME} of the per-split differences with GCUL's, two-sided level "
            f"{self.level:g}, {df} df ({cut}); mean ± SE over splits, SE corrected for shared rows"
        )

    def _header(self) -> str:
        return (
            f"{self.n} rows, {self.n_features} features, {self.n_classes} classes; "
            f"{self.splits} stratified splits ({self.n_train} train / {self.n_test} test), "
            f"lam {self.lam:g}, seed {self.seed}"
        )

    def _rows(self) -> list[list[str]]:
        rows = []
        for r in self.rejectors:
            rows.append(
                [
                    r.label,
                    r.operating_point,
                    _pm(r.coverage, 3),
                    _pm(r.sel_risk, 4),
                    "-" if r.name == "gcul" else _pm(r.difference, 4, sign=True),
                    _pm(r.aurc, 4),
                    _pm(r.u, 4, sign=True),
                    _pm(r.u_joint, 4, sign=True),
                ]
            )
        return rows

    _COLUMNS = (
        "rejector",
        "operating point",
        "coverage",
        "sel. risk at GCUL's cov.",
        "minus GCUL's",
        "AURC",
        "U",
        "U_joint",
    )

    def format(self) -> str:
        """The comparison as text: a table, what U and U_joint answer, the verdicts, the
        guarantee, the notes."""
        rows = [list(self._COLUMNS)] + self._rows()
        widths = [max(len(row[j]) for row in rows) for j in range(len(rows[0]))]
        table = [
            "  ".join(
                cell.ljust(w) if j < 2 else cell.rjust(w)
                for j, (cell, w) in enumerate(zip(row, widths, strict=True))
            ).rstrip()
            for row in rows
        ]
        text = [self._header(), f"base error of phase 1: {_pm(self.base_error, 4)}"]
        if self.error_pool.get("message"):
            text.append(self.error_pool["message"])
        text.append("")
        text += table
        text += ["", *_UTILITY_LEGEND]
        text += ["", f"{self._verdicts_head()}:"]
        text += [f"  {r.label}: {r.verdict}" for r in self.rejectors if r.name != "gcul"]
        text.append(f"  {self._lowest_line()}")
        text.append("")
        text += self.guarantee.lines()
        text += [f"  note: {note}" for note in self.notes]
        return "\n".join(text)

    def to_markdown(self) -> str:
        """The table and the verdicts as Markdown."""
        lines = [
            f"{self._header()}; base error of phase 1: {_pm(self.base_error, 4)}",
            "",
            *([f"**{self.error_pool['message']}**", ""] if self.error_pool.get("message") else []),
            "| " + " | ".join(self._COLUMNS) + " |",
            "|" + "|".join("---" if j < 2 else "--:" for j in range(len(self._COLUMNS))) + "|",
        ]
        lines += ["| " + " | ".join(row) + " |" for row in self._rows()]
        lines += ["", f"{self._verdicts_head()}:", ""]
        lines += [f"- {r.label}: {r.verdict}" for r in self.rejectors if r.name != "gcul"]
        lines.append(f"- {self._lowest_line()}")
        lines.append("")
        lines += [f"{line}  " for line in self.guarantee.lines()]
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """The result as one JSON-ready dict (NaN and infinities as None).

        ``verdict_test`` names the verdicts' test and its level; each rejector's ``test`` holds
        its outcome, t, df, critical value and p-value. ``best`` is the label with the lowest
        mean selective risk at GCUL's coverage, or null on a tie; ``lowest`` lists every label
        that shares the lowest mean (one label unless there is a tie).
        """
        return {
            "n": self.n,
            "n_features": self.n_features,
            "n_classes": self.n_classes,
            "lam": self.lam,
            "splits": self.splits,
            "seed": self.seed,
            "test_size": self.test_size,
            "delta": self.delta,
            "n_train": self.n_train,
            "n_test": self.n_test,
            "se": "Nadeau-Bengio corrected: sqrt((1/S + n_test/n_train) s^2)",
            "base_error": self.base_error.to_dict(),
            "gcul_coverage": self.gcul_coverage.to_dict(),
            "verdict_test": {
                "test": TEST_NAME,
                "level": self.level,
                "two_sided": True,
                "df": self.splits - 1,
                "statistic": "t = mean difference / corrected SE; 'lower'/'higher' iff |t| > "
                "t_(1-level/2, splits-1)",
            },
            "rejectors": [r.to_dict() for r in self.rejectors],
            "best": self.best,
            "lowest": list(self.lowest),
            "guarantee": self.guarantee.to_dict(),
            "notes": list(self.notes),
            "error_pool": dict(self.error_pool),
        }


def _pm(e: Estimate, digits: int, *, sign: bool = False) -> str:
    mean = f"{e.mean:+.{digits}f}" if sign else f"{e.mean:.{digits}f}"
    return mean if math.isnan(e.se) else f"{mean} ± {e.se:.{digits}f}"


def _json(value: Any) -> Any:
    if isinstance(value, float):
        return finite_or_none(value)
    return value
