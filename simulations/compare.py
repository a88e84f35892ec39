r"""Is GCUL's rejection any good on *your* data? :func:`compare` answers what ``gcul compare`` prints.

:func:`compare` takes embeddings and labels, draws ``splits`` stratified train/test splits, fits
GCUL on each training part and every rejector of :data:`simulations.rejectors.REJECTORS` but
``bayes`` (which needs the data-generating law), and reports per rejector, as mean ± standard
error over the splits:

- its coverage at its *natural operating point* (GCUL: its own accept set; MSP: Chow's rule
  at λ; SelectiveNet: g ≥ 0.5, trained for GCUL's coverage); a rejector without one (entropy,
  Mahalanobis, kNN, Deep Gamblers) is operated at GCUL's coverage, and the table says so;
- its selective risk at GCUL's coverage (the same accepted count as GCUL on the test part,
  :func:`gcul_theory.selective_risk_at_coverage`), and the paired difference with GCUL's;
- its AURC (:func:`gcul_theory.aurc`);
- the paper's utility :math:`U = \varepsilon - \varepsilon_{sel} - \lambda\rho` and Chow's
  :math:`U_{joint} = \varepsilon - (1-\rho)\varepsilon_{sel} - \lambda\rho`
  (:func:`gcul_theory.joint_utility`) at its operating point, with :math:`\varepsilon` the
  test error of phase 1 (the classifier every rejector starts from), :math:`\varepsilon_{sel}`
  the error of the rejector's own predictions among the rows it accepts, :math:`\rho` the
  share it rejects;
- a one-line verdict (:func:`verdict`).

It then gives the guarantee practitioners ask for (:class:`Guarantee`): a (1 − δ)
Clopper–Pearson upper bound on the selective risk of GCUL's accept set, and of MSP thresholded
at the same coverage, from a calibration split; and SGR's MSP threshold for a target risk.

References
----------
.. [1] "Ambiguity identification in text emotion classification via cluster-guided learning"
   (the GCUL paper), section ``subsec:selective_exp`` (the comparison with MSP + Chow's rule,
   SelectiveNet and Mahalanobis rejection) and ``subsec:selectivity_score`` (the utility U).
.. [2] C. Nadeau and Y. Bengio, "Inference for the generalization error", Machine Learning 52
   (2003): the corrected variance of a mean over repeated random train/test splits.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

import gcul_theory
from simulations.validation import check_int, check_real

__all__ = [
    "DEFAULT_CALIBRATION",
    "DEFAULT_TEST_SIZE",
    "MAX_SPLITS",
    "CompareResult",
    "Estimate",
    "Guarantee",
    "RejectorSummary",
    "compare",
    "estimate",
    "plot_risk_coverage",
    "stratified_splits",
    "verdict",
]

DEFAULT_TEST_SIZE = 0.3
"""Share of each class in the test part of a split, by default."""

DEFAULT_CALIBRATION = 0.3
"""Share of the rows held out (at random, not stratified) to calibrate the guarantee."""

MAX_SPLITS = 1000
"""At most this many splits (each refits GCUL and every rejector)."""

_PYTHON_NAMES: dict[str, str] = {}


# --------------------------------------------------------------------------------------------
# Splits and estimates


def stratified_splits(
    y: np.ndarray, n_splits: int, test_size: float, seed: int
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``n_splits`` stratified train/test splits of the rows, as sorted index arrays.

    Class :math:`c` with :math:`m_c` rows puts ``round(test_size * m_c)`` of them in the test
    part, clipped to ``[0, m_c - 1]`` so that the training part holds every class. Split ``i``
    shuffles with ``default_rng(SeedSequence(seed, spawn_key=(0, i)))``: the same seed gives the
    same splits, and split ``i`` does not depend on how many splits are drawn.

    (scikit-learn's ``StratifiedShuffleSplit`` is not used: scikit-learn is not a dependency of
    the package, and its allocation of the test rows among classes is its own.)

    Parameters
    ----------
    y : ndarray of shape (N,)
        Labels ``0..C-1``.
    n_splits : int
        Number of splits.
    test_size : float
        Share of each class held out, in (0, 1).
    seed : int
        Root of the shuffles.

    Returns
    -------
    list of (train, test)
        Index arrays, sorted, disjoint, together ``0..N-1``.

    Examples
    --------
    >>> y = np.repeat([0, 1], [20, 10])
    >>> train, test = stratified_splits(y, 1, 0.3, seed=0)[0]
    >>> np.bincount(y[test]).tolist(), np.bincount(y[train]).tolist()
    ([6, 3], [14, 7])
    """
    classes = [np.flatnonzero(y == c) for c in range(int(y.max()) + 1)]
    takes = [min(int(math.floor(test_size * rows.size + 0.5)), rows.size - 1) for rows in classes]
    splits = []
    for i in range(n_splits):
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0, i)))
        test = np.concatenate(
            [rng.permutation(rows)[:take] for rows, take in zip(classes, takes, strict=True)]
        )
        mask = np.zeros(y.size, dtype=bool)
        mask[test] = True
        splits.append((np.flatnonzero(~mask), np.flatnonzero(mask)))
    return splits


@dataclasses.dataclass(frozen=True)
class Estimate:
    """A mean over splits and its standard errors.

    Attributes
    ----------
    mean : float
        Mean over the splits.
    se : float
        Nadeau & Bengio's corrected standard error, :math:`\\sqrt{(1/S + n_{test}/n_{train})
        s^2}` (NaN for one split): the splits share rows, so the naive :math:`s/\\sqrt S`
        understates the uncertainty of the mean (module reference [2]).
    se_naive : float
        :math:`s/\\sqrt S`, for reference (NaN for one split).
    values : tuple of float
        The value of every split.
    """

    mean: float
    se: float
    se_naive: float
    values: tuple[float, ...]

    def to_dict(self) -> dict:
        return {
            "mean": _finite(self.mean),
            "se": _finite(self.se),
            "se_naive": _finite(self.se_naive),
            "values": [_finite(v) for v in self.values],
        }


def estimate(values: Any, test_over_train: float) -> Estimate:
    r"""Mean of per-split values with Nadeau & Bengio's corrected standard error.

    Parameters
    ----------
    values : array_like of shape (S,)
        One value per split.
    test_over_train : float
        :math:`n_{test}/n_{train}` of the splits.

    Returns
    -------
    Estimate

    Notes
    -----
    .. math:: \mathrm{SE} = \sqrt{\Bigl(\frac1S + \frac{n_{test}}{n_{train}}\Bigr) s^2},

    :math:`s^2` the sample variance over the :math:`S` splits (Nadeau & Bengio 2003). The
    correction accounts for the correlation between splits that share training and test rows;
    it is a heuristic (their "corrected resampled t-test"), not an exact interval.

    Examples
    --------
    >>> e = estimate([0.1, 0.2, 0.3], 0.5)
    >>> round(e.mean, 12), round(e.se_naive, 12), round(e.se, 12)
    (0.2, 0.057735026919, 0.091287092918)
    """
    array = np.asarray(values, dtype=np.float64)
    mean = math.fsum(array.tolist()) / array.size
    if array.size < 2:
        return Estimate(mean, math.nan, math.nan, tuple(array.tolist()))
    variance = math.fsum(((array - mean) ** 2).tolist()) / (array.size - 1)
    se = math.sqrt((1.0 / array.size + test_over_train) * variance)
    return Estimate(mean, se, math.sqrt(variance / array.size), tuple(array.tolist()))


def verdict(label: str, difference: float, se: float) -> str:
    """One line: how a rejector's selective risk at GCUL's coverage compares with GCUL's.

    Parameters
    ----------
    label : str
        The rejector's name as printed (``"MSP"``).
    difference : float
        Mean over splits of its selective risk minus GCUL's, at GCUL's coverage.
    se : float
        Standard error of ``difference`` (NaN for one split).

    Returns
    -------
    str
        "lower by x ± y points" (better than GCUL) or "higher by x ± y points" (worse) when
        ``|difference| > 2 se``, else "no difference within 2 SE"; points are percentage
        points (``100 * difference``).

    Examples
    --------
    >>> verdict("MSP", -0.012, 0.004)
    "at GCUL's coverage, MSP's selective risk is lower by 1.20 ± 0.40 points"
    >>> verdict("kNN", 0.05, 0.01)
    "at GCUL's coverage, kNN's selective risk is higher by 5.00 ± 1.00 points"
    >>> verdict("MSP", 0.006, 0.004)
    "at GCUL's coverage, MSP's selective risk is within 2 SE of GCUL's (+0.60 ± 0.40 points): no difference"
    """
    head = f"at GCUL's coverage, {label}'s selective risk is"
    points, se_points = 100.0 * difference, 100.0 * se
    if math.isnan(se):
        return f"{head} {points:+.2f} points from GCUL's (one split: no standard error to judge it)"
    if abs(difference) <= 2.0 * se:
        return (
            f"{head} within 2 SE of GCUL's ({points:+.2f} ± {se_points:.2f} points): no difference"
        )
    word = "lower" if difference < 0 else "higher"
    return f"{head} {word} by {abs(points):.2f} ± {se_points:.2f} points"


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
        :func:`verdict` of ``difference`` (for GCUL: "the reference").
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
    best : str
        The label of the rejector with the lowest mean selective risk at GCUL's coverage.
    guarantee : Guarantee
        The Clopper–Pearson and SGR guarantees.
    notes : tuple of str
        What the numbers rest on.
    curves : dict
        Risk–coverage curve of every rejector on the first split, and GCUL's operating point
        (for :func:`plot_risk_coverage`; not in ``to_dict``).
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
    best: str
    guarantee: Guarantee
    notes: tuple[str, ...]
    curves: dict = dataclasses.field(repr=False, compare=False)

    def rejector(self, name: str) -> RejectorSummary:
        """The summary of the rejector called ``name``."""
        for summary in self.rejectors:
            if summary.name == name:
                return summary
        raise KeyError(name)

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
        """The comparison as text: a table, the verdicts, the guarantee, the notes."""
        rows = [list(self._COLUMNS)] + self._rows()
        widths = [max(len(row[j]) for row in rows) for j in range(len(rows[0]))]
        table = [
            "  ".join(
                cell.ljust(w) if j < 2 else cell.rjust(w)
                for j, (cell, w) in enumerate(zip(row, widths, strict=True))
            ).rstrip()
            for row in rows
        ]
        text = [self._header(), f"base error of phase 1: {_pm(self.base_error, 4)}", ""]
        text += table
        text += ["", "verdicts (mean ± SE over splits; SE corrected for shared rows):"]
        text += [f"  {r.label}: {r.verdict}" for r in self.rejectors if r.name != "gcul"]
        text.append(f"  lowest selective risk at GCUL's coverage: {self.best}")
        text.append("")
        text += self.guarantee.lines()
        text += [f"  note: {note}" for note in self.notes]
        return "\n".join(text)

    def to_markdown(self) -> str:
        """The table and the verdicts as Markdown."""
        lines = [
            f"{self._header()}; base error of phase 1: {_pm(self.base_error, 4)}",
            "",
            "| " + " | ".join(self._COLUMNS) + " |",
            "|" + "|".join("---" if j < 2 else "--:" for j in range(len(self._COLUMNS))) + "|",
        ]
        lines += ["| " + " | ".join(row) + " |" for row in self._rows()]
        lines.append("")
        lines += [f"- {r.label}: {r.verdict}" for r in self.rejectors if r.name != "gcul"]
        lines.append(f"- lowest selective risk at GCUL's coverage: {self.best}")
        lines.append("")
        lines += [f"{line}  " for line in self.guarantee.lines()]
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """The result as one JSON-ready dict (NaN and infinities as None)."""
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
            "rejectors": [r.to_dict() for r in self.rejectors],
            "best": self.best,
            "guarantee": self.guarantee.to_dict(),
            "notes": list(self.notes),
        }


# --------------------------------------------------------------------------------------------
# The comparison


def compare(
    Z: Any,
    y: Any,
    lam: float = 0.15,
    splits: int = 10,
    seed: int = 0,
    test_size: float = DEFAULT_TEST_SIZE,
    delta: float = 0.05,
    *,
    calibration: float = DEFAULT_CALIBRATION,
    target_risk: float | None = None,
    y_fit: Any = None,
    progress: Callable[[str], None] | None = None,
    names: Mapping[str, str] | None = None,
) -> CompareResult:
    r"""Compare GCUL's rejection with every baseline rejector on ``(Z, y)``, over stratified splits.

    Parameters
    ----------
    Z : array_like of shape (N, d)
        Embeddings, finite real numbers.
    y : array_like of shape (N,)
        Labels, integers 0..C-1, every class present with at least 2 rows, C >= 2.
    lam : float, default 0.15
        Relative rejection cost λ in [0, 1): Chow's rule for MSP, U and U_joint.
    splits : int, default 10
        Number of stratified train/test splits, 1..:data:`MAX_SPLITS`.
    seed : int, default 0
        Seed of the splits, the rejectors' random draws and the calibration split, in
        ``[0, 2**32)``.
    test_size : float, default 0.3
        Share of every class in the test part, in (0, 1).
    delta : float, default 0.05
        Risk of the guarantee's bounds, in (0, 1).
    calibration : float, default 0.3
        Share of the rows held out at random to calibrate the guarantee, in (0, 1).
    target_risk : float, optional
        SGR's target selective risk for MSP, in (0, 1). Default: GCUL's selective risk on the
        tuning rows (chosen before the calibration rows are seen, so SGR's guarantee holds).
    y_fit : array_like of shape (N,), optional
        Labels the models are fitted on and the splits stratified by, when they differ from the
        labels ``y`` that the test, tuning and calibration rows are scored against (e.g. noisy
        observed labels and the clean truth, as in ``benchmarks/real_data.py``); the same
        classes 0..C-1 as ``y``. Default: ``y``.
    progress : callable, optional
        Called with a short message as each split and the guarantee finish.
    names : mapping, optional
        How messages name the arguments (the command line passes its options).

    Returns
    -------
    CompareResult

    Raises
    ------
    TypeError, ValueError
        For inputs of the wrong type, shape or range (the message names the argument, the
        allowed range and the bad value), a class with fewer than 2 rows, a training part of
        fewer than 10 rows (the kNN rejector's k), or a calibration share that leaves a class
        with fewer than 2 rows to fit on.

    Notes
    -----
    Per split, on the test part: GCUL accepts :math:`m` rows; every rejector's selective risk is
    taken at the same :math:`m` (ties at the cut by their expected value). Coverage, U and
    U_joint are taken at each rejector's natural operating point (GCUL: its accept set; MSP:
    Chow's rule :math:`p_{max} \ge 1 - \lambda`; SelectiveNet, trained for GCUL's test coverage
    as in the sweep: :math:`g \ge 0.5`), or at GCUL's coverage for a rejector without one.
    With :math:`\varepsilon` phase 1's test error, :math:`\varepsilon_{sel}` the rejector's error
    among the rows it accepts and :math:`\rho` the share it rejects,

    .. math:: U = \varepsilon - \varepsilon_{sel} - \lambda\rho, \qquad
              U_{joint} = \varepsilon - (1-\rho)\varepsilon_{sel} - \lambda\rho,

    the paper's utility (``subsec:selectivity_score``) and Chow's gain. Means over the splits
    carry Nadeau & Bengio's corrected standard error (:func:`estimate`); a verdict says
    "lower"/"higher" only beyond 2 SE (:func:`verdict`).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> Z = np.vstack([rng.normal(c, 1.0, (60, 2)) for c in ([-3, 0], [3, 0], [0, 0])])
    >>> y = np.r_[np.zeros(60, int), np.ones(60, int), rng.integers(0, 2, 60)]
    >>> result = compare(Z, y, splits=2)
    >>> [r.name for r in result.rejectors][:3], result.n_test
    (['gcul', 'msp', 'entropy'], 54)
    >>> result.rejector("gcul").coverage == result.gcul_coverage
    True
    """
    from simulations.rejectors import REJECTORS

    name = _namer(names)
    lam = check_real(name("lam"), lam, 0.0, 1.0, open_high=True)
    splits = check_int(name("splits"), splits, 1, MAX_SPLITS)
    seed = check_int(name("seed"), seed, 0, 2**32 - 1)
    test_size = check_real(name("test_size"), test_size, 0.0, 1.0, open_low=True, open_high=True)
    delta = check_real(name("delta"), delta, 0.0, 1.0, open_low=True, open_high=True)
    calibration = check_real(
        name("calibration"), calibration, 0.0, 1.0, open_low=True, open_high=True
    )
    if target_risk is not None:
        target_risk = check_real(
            name("target_risk"), target_risk, 0.0, 1.0, open_low=True, open_high=True
        )
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable or None; got {progress!r}")
    Z, y = _check_data(Z, y, name)
    if y_fit is None:
        y_fit = y
    else:
        _, y_fit = _check_data(Z, y_fit, lambda a: name("y_fit") if a == "y" else name(a))
        if y_fit.max() != y.max():
            raise ValueError(
                f"{name('y_fit')}: holds the classes 0..{int(y_fit.max())}; {name('y')} holds "
                f"0..{int(y.max())}; they must be the same"
            )

    entries = [entry for entry in REJECTORS if not entry.needs_truth]
    split_list = stratified_splits(y_fit, splits, test_size, seed)
    n_train, n_test = split_list[0][0].size, split_list[0][1].size
    if n_train < _MIN_TRAIN:
        raise ValueError(
            f"{name('Z')}: the training part of a split holds {n_train} rows with "
            f"{name('test_size')} {test_size:g}; at least {_MIN_TRAIN} are needed (the kNN "
            "rejector's k)"
        )
    if n_test < 1:
        raise ValueError(
            f"{name('test_size')} {test_size:g} puts no row in the test part; raise it"
        )
    per_split = []
    curves: dict = {}
    for i, (train, test) in enumerate(split_list):
        measured = _run_split(Z, y_fit, y, train, test, lam, seed, i, entries, want_curves=i == 0)
        if i == 0:
            curves = measured.pop("curves")
        per_split.append(measured)
        if progress is not None:
            progress(
                f"split {i + 1}/{splits}: GCUL coverage {measured['gcul']['coverage']:.3f}, "
                f"selective risk {measured['gcul']['sel_risk']:.4f}"
            )
    ratio = n_test / n_train
    summaries = []
    for entry in entries:
        values = {key: [s[entry.name][key] for s in per_split] for key in _KEYS}
        difference = estimate(
            [s[entry.name]["sel_risk"] - s["gcul"]["sel_risk"] for s in per_split], ratio
        )
        label = entry.label
        natural = per_split[0][entry.name]["natural"]
        summaries.append(
            RejectorSummary(
                name=entry.name,
                label=label,
                operating_point=_OPERATING_POINTS.get(entry.name, "own rule")
                if natural
                else "GCUL's coverage",
                natural=natural,
                coverage=estimate(values["coverage"], ratio),
                sel_risk=estimate(values["sel_risk"], ratio),
                difference=difference,
                aurc=estimate(values["aurc"], ratio),
                u=estimate(values["u"], ratio),
                u_joint=estimate(values["u_joint"], ratio),
                verdict="the reference"
                if entry.name == "gcul"
                else verdict(label, difference.mean, difference.se),
            )
        )
    best = min(summaries, key=lambda s: s.sel_risk.mean).label
    guarantee = _guarantee(Z, y_fit, y, lam, delta, calibration, test_size, target_risk, seed, name)
    if progress is not None:
        progress("guarantee: done")
    notes = [
        "selective risk at GCUL's coverage: every rejector accepts as many test rows as GCUL "
        "(ties at the cut by their expected value)",
        "eps in U and U_joint is phase 1's test error; eps_sel is the rejector's own error among "
        "the rows it accepts",
        f"SelectiveNet is trained for GCUL's test coverage of the split (as the sweep does); "
        f"'{_OPERATING_POINTS['gcul']}' ignores lam",
    ]
    if not all(s["can_reject"] for s in per_split):
        count = sum(not s["can_reject"] for s in per_split)
        notes.append(
            f"in {count} of {splits} splits GCUL had no training error and rejects nothing "
            "(its coverage is then 1)"
        )
    base = estimate([s["base_error"] for s in per_split], ratio)
    return CompareResult(
        n=int(y.size),
        n_features=int(Z.shape[1]),
        n_classes=int(y.max()) + 1,
        lam=lam,
        splits=splits,
        seed=seed,
        test_size=test_size,
        delta=delta,
        n_train=int(n_train),
        n_test=int(n_test),
        base_error=base,
        gcul_coverage=summaries[0].coverage,
        rejectors=tuple(summaries),
        best=best,
        guarantee=guarantee,
        notes=tuple(notes),
        curves=curves,
    )


_KEYS = ("coverage", "sel_risk", "aurc", "u", "u_joint")
_MIN_TRAIN = 10  # simulations.rejectors.knn.N_NEIGHBORS
_OPERATING_POINTS = {
    "gcul": "own accept set",
    "msp": "Chow: p_max >= 1 - lam",
    "selectivenet": "g >= 0.5",
}


def _run_split(
    Z: np.ndarray,
    y_fit: np.ndarray,
    y: np.ndarray,
    train: np.ndarray,
    test: np.ndarray,
    lam: float,
    seed: int,
    index: int,
    entries: list,
    *,
    want_curves: bool,
) -> dict:
    """Fit GCUL and every rejector on ``train`` (labels ``y_fit``); measure them on ``test``
    (labels ``y``)."""
    from simulations.gcul import GCUL
    from simulations.rejectors import RejectorContext

    X_train, y_train, X_test, y_test = Z[train], y_fit[train], Z[test], y[test]
    model = GCUL().fit(X_train, y_train)
    outcomes = model.indicators(X_test, y_test)
    n_test = y_test.size
    n_accept = int(np.count_nonzero(~outcomes.rejected))
    base_error = outcomes.base_error
    context = RejectorContext(
        X_train,
        y_train,
        model,
        seed=np.random.SeedSequence(seed, spawn_key=(1, index)),
        target_coverage=max(n_accept, 1) / n_test,
    )
    out: dict[str, Any] = {"base_error": base_error, "can_reject": bool(model.can_reject_)}
    curves: dict[str, Any] = {}
    for entry in entries:
        fitted = entry.fit(context)
        scores, labels = fitted.score_predict(X_test)
        wrong = labels != y_test
        sel_risk = float(gcul_theory.selective_risk_at_coverage(scores, wrong, n_accept))
        natural = bool(fitted.has_operating_point)
        if natural:
            accept = fitted.accept(X_test, lam)
            kept = int(np.count_nonzero(accept))
            eps_sel = float(np.count_nonzero(wrong & accept)) / kept if kept else 0.0
            coverage = kept / n_test
        else:
            coverage, eps_sel = n_accept / n_test, sel_risk
        rho = 1.0 - coverage
        out[entry.name] = {
            "natural": natural,
            "coverage": coverage,
            "sel_risk": sel_risk,
            "aurc": float(gcul_theory.aurc(scores, wrong)),
            "u": base_error - eps_sel - lam * rho,
            "u_joint": float(gcul_theory.joint_utility(lam, base_error, eps_sel, rho)),
        }
        if want_curves:
            curve = gcul_theory.risk_coverage_curve(scores, wrong)
            curves[entry.name] = (entry.label, curve.coverage, curve.selective_risk)
    if want_curves:
        curves["_gcul_point"] = (n_accept / n_test, out["gcul"]["sel_risk"])
        out["curves"] = curves
    return out


def _guarantee(
    Z: np.ndarray,
    y_fit: np.ndarray,
    y: np.ndarray,
    lam: float,
    delta: float,
    calibration: float,
    test_size: float,
    target_risk: float | None,
    seed: int,
    name: Callable[[str], str],
) -> Guarantee:
    """Split once at random into fit and calibration parts; bound GCUL and MSP; run SGR."""
    from simulations.gcul import GCUL
    from simulations.rejectors import RejectorContext, get_rejector

    n = y.size
    n_cal = min(max(int(math.floor(calibration * n + 0.5)), 1), n - 1)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(2,)))
    order = rng.permutation(n)
    cal, fit = np.sort(order[:n_cal]), np.sort(order[n_cal:])
    counts = np.bincount(y_fit[fit], minlength=int(y.max()) + 1)
    if counts.min() < 2:
        label = int(np.argmin(counts))
        raise ValueError(
            f"{name('calibration')} {calibration:g} with {name('seed')} {seed} leaves "
            f"{counts[label]} row(s) of class {label} to fit on (at least 2 are needed); lower "
            f"{name('calibration')} or pass more rows of that class"
        )
    (train, tune), *_ = stratified_splits(y_fit[fit], 1, test_size, seed=_derived(seed))
    train, tune = fit[train], fit[tune]
    model = GCUL().fit(Z[train], y_fit[train])
    context = RejectorContext(Z[train], y_fit[train], model, seed=np.random.SeedSequence(seed))
    gcul = get_rejector("gcul").fit(context)
    msp = get_rejector("msp").fit(context)

    # MSP's threshold: accept as many tuning rows as GCUL does (fixed before calibration)
    gcul_tune = gcul.accept(Z[tune], lam)
    _, gcul_labels_tune = gcul.score_predict(Z[tune])
    m_tune = int(np.count_nonzero(gcul_tune))
    msp_tune, _ = msp.score_predict(Z[tune])
    ranked = np.sort(msp_tune)[::-1]
    log_threshold = math.inf if m_tune == 0 else float(ranked[m_tune - 1])

    scores_gcul, labels_gcul = gcul.score_predict(Z[cal])
    accept_gcul = gcul.accept(Z[cal], lam)
    wrong_gcul = labels_gcul != y[cal]
    scores_msp, labels_msp = msp.score_predict(Z[cal])
    wrong_msp = labels_msp != y[cal]
    accept_msp = scores_msp >= log_threshold

    def bounded(accept: np.ndarray, wrong: np.ndarray) -> dict:
        m = int(np.count_nonzero(accept))
        x = int(np.count_nonzero(accept & wrong))
        return {
            "coverage": m / n_cal,
            "n_accepted": m,
            "n_wrong": x,
            "risk": x / m if m else 0.0,
            "bound": float(gcul_theory.selective_risk_upper_bound(x, m, delta)),
        }

    msp_part = bounded(accept_msp, wrong_msp)
    msp_part["threshold"] = math.exp(log_threshold) if math.isfinite(log_threshold) else math.inf
    if target_risk is None:
        wrong_tune = gcul_labels_tune != y[tune]
        errors = int(np.count_nonzero(gcul_tune & wrong_tune))
        source = f"GCUL's selective risk on the {tune.size} tuning rows"
        target = errors / m_tune if m_tune else 0.0
    else:
        source, target = "the target asked for", target_risk
    if 0.0 < target < 1.0:
        result = gcul_theory.sgr_threshold(scores_msp, wrong_msp, target, delta)
        sgr = {
            "target_risk": target,
            "target_source": source,
            "feasible": bool(result.feasible),
            "threshold": math.exp(result.threshold) if result.feasible else math.inf,
            "coverage": result.coverage,
            "risk": result.selective_risk,
            "bound": result.risk_bound,
            "reason": result.reason,
        }
    else:
        sgr = {
            "target_risk": target,
            "target_source": source,
            "reason": f"the target risk {target:g} ({source}) is not in (0, 1); pass "
            f"{name('target_risk')}",
        }
    return Guarantee(
        n_train=int(train.size),
        n_tune=int(tune.size),
        n_cal=int(n_cal),
        delta=delta,
        gcul=bounded(accept_gcul, wrong_gcul),
        msp=msp_part,
        sgr=sgr,
    )


def _derived(seed: int) -> int:
    """An int seed for the guarantee's train/tune split, from its own stream of ``seed``."""
    state = np.random.SeedSequence(seed, spawn_key=(3,)).generate_state(1, np.uint32)
    return int(state[0])


# --------------------------------------------------------------------------------------------
# The figure


_COLOURS = {
    "gcul": "#000000",
    "msp": "#E69F00",
    "entropy": "#56B4E9",
    "mahalanobis": "#009E73",
    "knn": "#0072B2",
    "selectivenet": "#D55E00",
    "deep_gamblers": "#CC79A7",
}  # Okabe & Ito (simulations.figures.OKABE_ITO)


def plot_risk_coverage(result: CompareResult, ax: Any = None) -> Any:
    """Draw the risk–coverage curves of the first split, GCUL's operating point marked.

    Parameters
    ----------
    result : CompareResult
        From :func:`compare`.
    ax : matplotlib Axes, optional
        Where to draw; a new figure's axes by default.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on (``ax.figure`` to save it, e.g. with
        :func:`simulations.figures.save_figure`).
    """
    from matplotlib.figure import Figure

    if ax is None:
        ax = Figure(figsize=(5.0, 3.6), layout="constrained").add_subplot()
    curves = result.curves
    coverage_gcul, risk_gcul = curves["_gcul_point"]
    for key, value in curves.items():
        if key.startswith("_"):
            continue
        label, coverage, risk = value
        ax.plot(
            coverage,
            risk,
            color=_COLOURS.get(key, "0.5"),
            linewidth=2.2 if key == "gcul" else 1.2,
            label=label,
            zorder=3 if key == "gcul" else 2,
        )
    ax.axvline(coverage_gcul, color="0.6", linewidth=0.8, linestyle="--", zorder=1)
    ax.plot(
        [coverage_gcul],
        [risk_gcul],
        marker="o",
        markersize=7,
        markerfacecolor="white",
        markeredgecolor="#000000",
        linestyle="none",
        zorder=4,
        label="GCUL's operating point",
    )
    ax.set_xlabel("coverage (share of test rows accepted)")
    ax.set_ylabel("selective risk")
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(bottom=0.0)
    ax.grid(True, color="0.88", linewidth=0.5)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.set_title(
        f"Risk–coverage, first of {result.splits} splits ({result.n_test} test rows, "
        f"lam {result.lam:g})",
        fontsize=9,
    )
    ax.legend(fontsize=7, frameon=False, loc="upper left")
    return ax


# --------------------------------------------------------------------------------------------
# Validation and rendering helpers


def _check_data(Z: Any, y: Any, name: Callable[[str], str]) -> tuple[np.ndarray, np.ndarray]:
    try:
        Z = np.asarray(Z)
        y = np.asarray(y)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name('Z')} and {name('y')} must be numeric arrays ({exc})") from None
    if Z.dtype.kind not in "biuf":
        raise TypeError(f"{name('Z')}: expected real numbers; got dtype {Z.dtype}")
    if Z.ndim != 2 or Z.shape[0] == 0 or Z.shape[1] == 0:
        raise ValueError(
            f"{name('Z')}: expected a non-empty 2-D array (N rows x d columns); got shape {Z.shape}"
        )
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    finite = np.isfinite(Z).all(axis=1)
    if not finite.all():
        row = int(np.argmin(finite))
        raise ValueError(f"{name('Z')}: row {row} holds NaN or inf; the values must be finite")
    if y.ndim != 1 or (y.size and y.dtype.kind not in "iu"):
        raise ValueError(
            f"{name('y')}: expected one integer label per row; got {y.dtype} of shape {y.shape}"
        )
    if y.size != Z.shape[0]:
        raise ValueError(f"{name('y')}: holds {y.size} labels for {Z.shape[0]} rows of {name('Z')}")
    y = y.astype(np.int64)
    if y.min() < 0:
        raise ValueError(f"{name('y')}: labels must be 0..C-1; got {int(y.min())}")
    counts = np.bincount(y)
    if np.count_nonzero(counts) < 2:
        raise ValueError(
            f"{name('y')}: holds a single class ({int(y[0])}); at least two are needed"
        )
    if counts.min() < 2:
        label = int(np.argmin(counts))
        missing = counts[label] == 0
        raise ValueError(
            f"{name('y')}: class {label} has {counts[label]} rows; every class 0..C-1 needs at "
            "least 2 (one to train on, one to test)"
            + (". Encode labels with np.unique(y, return_inverse=True)" if missing else "")
        )
    if counts.size > gcul_theory.MAX_CLASSES:
        raise ValueError(
            f"{name('y')}: holds {counts.size} classes; at most {gcul_theory.MAX_CLASSES} are "
            "supported"
        )
    return Z, y


def _namer(names: Mapping[str, str] | None) -> Callable[[str], str]:
    if names is not None and not isinstance(names, Mapping):
        raise TypeError(f"names must be a mapping of argument names or None; got {names!r}")
    given = dict(names or {})
    return lambda argument: given.get(argument, _PYTHON_NAMES.get(argument, argument))


def _pm(e: Estimate, digits: int, *, sign: bool = False) -> str:
    mean = f"{e.mean:+.{digits}f}" if sign else f"{e.mean:.{digits}f}"
    return mean if math.isnan(e.se) else f"{mean} ± {e.se:.{digits}f}"


def _finite(value: float) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


def _json(value: Any) -> Any:
    if isinstance(value, float):
        return _finite(value)
    return value
