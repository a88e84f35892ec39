r"""Pre-deployment feasibility report: will a reject option pay off on these representations?

References
----------
.. [1] "Ambiguity identification in text emotion classification via cluster-guided
   learning" (the GCUL paper).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from numpy.typing import ArrayLike

from ._bounds import METHODS, critical_lambda, structural_existence_confidence
from ._geometry import Geometry, estimate_geometry
from ._predictors import DEFAULT_METHOD, Predictor, capture, contamination, predictor, unsupported
from ._tails import chernoff_tail_unchecked, gaussian_tail_unchecked
from ._validation import as_float_array, check_method

__all__ = ["COLUMN_LEGEND", "FeasibilityReport", "feasibility_report", "guarantee_phrase"]

_PHRASES = {
    "bound": "valid in expectation under the paper's Gaussian model",
    "paper": "the paper's printed bound, NOT a valid lower bound",
    "model": "a model value under the paper's Gaussian model, not a bound",
}


#: What each column of the per-class table and the ``S_exist`` line mean, as
#: ``(name, definition)`` pairs, citing the GCUL paper by the titles of its lemma, section and
#: corollary (``lem:projection_tails``, ``subsec:rigorous_r1_analysis``,
#: ``cor:attractor_properties``), never by a LaTeX label a reader cannot look up. :meth:`FeasibilityReport.format`
#: prints them under the table; ``gcul feasibility`` and the README quote them.
COLUMN_LEGEND: tuple[tuple[str, str], ...] = (
    ("pi", "share of class c among the labels y"),
    ("eps_c", "phase-1 error rate within class c"),
    (
        "D",
        "distance from the mean of class c's correctly classified samples to the mean of the "
        "error pool (the attractor)",
    ),
    ("sigma_mix", "spread (standard deviation) of the error pool along that direction"),
    ("sigma_c", "spread of class c's correctly classified samples along that direction"),
    (
        "p_loss",
        "(1/2) erfc(D / (2 sqrt(2) sigma_mix)): chance that an error-pool sample lies on class "
        "c's side of the midpoint, i.e. escapes the attractor (boundary loss: the paper's "
        "Lemma “Boundary Loss and Contamination Probabilities”)",
    ),
    (
        "eta_outlier",
        "exp(-D^2 / (8 sigma_mix^2)): the Chernoff bound on the share of class c's errors that "
        "are directional outliers (the paper's section “Rigorous capture rate bounds via "
        "sub-Gaussian concentration”); always >= p_loss",
    ),
    (
        "q_contam",
        "(1/2) erfc(D / (2 sqrt(2) sigma_c)): chance that a correctly classified sample of class "
        "c lies on the attractor's side of the midpoint, i.e. is captured (contamination, the "
        "same Lemma, whose printed event has its sign corrected: gcul prove)",
    ),
    (
        "S_exist >= s",
        "lower bound 1 - sum_c (pi_c eps_c / eps) eta_outlier_c on the structural existence "
        "confidence, the share of errors that are not directional outliers (the paper's "
        "Corollary “Structural Confidence and Dense Convergence”)",
    ),
)


def guarantee_phrase(method: str | Predictor) -> str:
    """The few words a verdict quotes for a predictor's guarantee, from its registry ``kind``.

    :func:`feasibility_report` names the verdict's predictor with them, and
    :meth:`FeasibilityReport.format` explains its ``kind`` column with them.

    Parameters
    ----------
    method : str or Predictor
        A name in :data:`METHODS`, or a registry entry of :data:`~gcul_theory.PREDICTORS`.

    Returns
    -------
    str
        For ``kind`` "bound": "valid in expectation under the paper's Gaussian model"; "paper":
        "the paper's printed bound, NOT a valid lower bound"; "model": "a model value under the
        paper's Gaussian model, not a bound".

    Raises
    ------
    TypeError, ValueError
        For a ``method`` that is neither a Predictor nor a name in :data:`METHODS`.

    Examples
    --------
    >>> from gcul_theory import guarantee_phrase
    >>> guarantee_phrase("hunter_worsley")
    "valid in expectation under the paper's Gaussian model"
    >>> guarantee_phrase("union")
    "the paper's printed bound, NOT a valid lower bound"
    """
    entry = method if isinstance(method, Predictor) else predictor(check_method(method, METHODS))
    return _PHRASES[entry.kind]


@dataclass(frozen=True, eq=False)
class FeasibilityReport:
    r"""Outcome of :func:`feasibility_report`; ``str(report)`` prints it as text.

    Attributes
    ----------
    lam : float
        The rejection cost :math:`\lambda` asked about.
    method : str
        The :math:`\hat r_1` bound the verdict uses.
    lambda_pre : dict of str to float
        :math:`\lambda^*_{PRE}` for every method of :data:`METHODS` that can be computed (a
        "gaussian_exact" orthant probability in more than ``ORTHANT_MAX_CLASSES`` dimensions is
        left out).
    r1_hat : dict of str to float
        :math:`\hat r_1` for every method.
    r2_hat : float
        :math:`\hat r_2` of ``method``.
    r2_hat_by_method : dict of str to float
        :math:`\hat r_2` for every method (the paper's three share the paper's :math:`\hat r_2`;
        the others count the attractor's chance-correct samples).
    s_exist : float
        Lower bound on the structural existence confidence :math:`\mathcal S_{exist}`.
    feasible : bool
        Whether :math:`\lambda^*_{PRE} \ge \lambda` for ``method`` *and* the base classifier
        makes an error (:math:`\varepsilon > 0`): with no error GCUL has nothing to reject, so
        the verdict is never "feasible", whatever ``lam`` (even ``lam = 0``).
    verdict : str
        One sentence saying what ``feasible`` means; it names ``method`` and its guarantee
        (valid bound, the paper's printed bound, or a model value).
    per_class : list of dict
        One row per class: class, pi, eps_c, D, sigma_mix, sigma_c, p_loss, eta_outlier, q_contam
        (the printed table leaves out classes that never occur in ``y``).
    geometry : Geometry
        The estimated geometry, whose ``notes`` explain every degenerate value.
    """

    lam: float
    method: str
    lambda_pre: dict[str, float]
    r1_hat: dict[str, float]
    r2_hat: float
    r2_hat_by_method: dict[str, float]
    s_exist: float
    feasible: bool
    verdict: str
    per_class: list[dict[str, float]]
    geometry: Geometry

    def __str__(self) -> str:
        return self.format()

    def format(
        self,
        methods: tuple[str, ...] | list[str] | None = None,
        class_names: Sequence[str] | None = None,
    ) -> str:
        """The report as text, with one row per predictor of ``methods`` (default: all).

        Each row shows the predictor's kind (``paper``: the paper's printed bound, not valid;
        ``bound``: a valid bound; ``model``: a model value), r̂1, r̂2 and λ*_PRE; the row of
        the verdict's predictor is marked. The per-class table follows, then a legend that
        defines its columns and ``S_exist`` (:data:`COLUMN_LEGEND`), the notes and the verdict.
        ``class_names[c]``, if given, names class ``c`` in the table's first column (which then
        widens to the longest name); by default the column holds the class ids.
        """
        names = METHODS if methods is None else tuple(check_method(m, METHODS) for m in methods)
        lines = [
            "GCUL feasibility report",
            f"  base error eps = {float(self.geometry.eps):.4f}, classes C = {self.geometry.n_classes}, "
            f"rejection cost lambda = {self.lam:g}",
            f"  {'method':<14} {'kind':<6} {'valid':<5} {'r1_hat':>8} {'r2_hat':>8} "
            f"{'lambda*_PRE':>12}",
        ]
        for name in names:
            entry = predictor(name)
            if name not in self.lambda_pre:  # a method the report could not compute
                lines.append(
                    f"  {name:<14} {entry.kind:<6} not computed: {unsupported(self.geometry, name)}"
                )
                continue
            marker = "  <- verdict" if name == self.method else ""
            lines.append(
                f"  {name:<14} {entry.kind:<6} {'yes' if entry.valid else 'NO':<5} "
                f"{self.r1_hat[name]:>8.4f} {self.r2_hat_by_method[name]:>8.4f} "
                f"{self.lambda_pre[name]:>12.4f}{marker}"
            )
        lines.append(
            "  kind: bound = "
            + _PHRASES["bound"]
            + "; paper = "
            + _PHRASES["paper"]
            + "; model = "
            + _PHRASES["model"]
        )
        lines.append(f"  S_exist >= {self.s_exist:.4f}")
        header = (
            "class",
            "pi",
            "eps_c",
            "D",
            "sigma_mix",
            "sigma_c",
            "p_loss",
            "eta_outlier",
            "q_contam",
        )
        if class_names is not None and len(class_names) != len(self.per_class):
            raise ValueError(
                f"class_names: {len(class_names)} names for {len(self.per_class)} classes"
            )
        first = 11 if class_names is None else max(11, *(len(str(n)) for n in class_names))
        lines.append("  " + " ".join([f"{header[0]:>{first}}"] + [f"{h:>11}" for h in header[1:]]))
        for row in self.per_class:
            if row["pi"] == 0.0:  # a class that never occurs in y; the notes count them
                continue
            label = int(row["class"])
            shown = f"{label:>11d}" if class_names is None else f"{class_names[label]!s:>{first}}"
            cells = [shown] + [f"{row[h]:>11.4g}" for h in header[1:]]
            lines.append("  " + " ".join(cells))
        lines.append("  columns (the GCUL paper's symbols):")
        width = max(len(name) for name, _ in COLUMN_LEGEND)
        lines.extend(f"    {name:<{width}}  {meaning}" for name, meaning in COLUMN_LEGEND)
        lines.extend(f"  note: {note}" for note in self.geometry.notes)
        lines.append(f"verdict: {self.verdict}")
        return "\n".join(lines)


def feasibility_report(
    Z: ArrayLike,
    y: ArrayLike,
    y_pred: ArrayLike,
    lam: float = 0.15,
    method: str = DEFAULT_METHOD,
    n_classes: int | None = None,
) -> FeasibilityReport:
    r"""Predict, before running GCUL, whether rejecting at cost ``lam`` will pay off.

    Parameters
    ----------
    Z : array_like, shape (N, d)
        Representations of the training samples.
    y : array_like of int, shape (N,)
        Observed labels in ``0..C-1``.
    y_pred : array_like of int, shape (N,)
        Phase-1 predictions in ``0..C-1``.
    lam : float, default 0.15
        Relative rejection cost :math:`\lambda \in [0, 1)`, a scalar.
    method : str, default DEFAULT_METHOD ("hunter_worsley")
        The predictor the verdict uses (a name in :data:`METHODS`); all are reported. The
        default is the tightest valid bound: this function estimates the geometry itself, so the
        correlations it needs are always there (on the synthetic sweep, 410 cells at
        lambda = 0.15, it has no Type-II violation and 69 Type-I against "boole"'s 94). The
        paper's "gaussian", "union" and "chernoff" are not valid lower bounds (see
        :func:`critical_lambda`).
    n_classes : int, optional
        Number of classes, at most 4096; defaults to ``max(y, y_pred) + 1``, and then every
        class must occur in ``y`` (see :func:`estimate_geometry`).

    Returns
    -------
    FeasibilityReport
        Printable with ``print(report)``.

    Notes
    -----
    Which predictions to pass: phase 1's *in-sample* predictions on the training set, i.e.
    GCUL's own error pool (the synthetic sweep does the same). Cross-validated predictions
    describe a different error pool; on scikit-learn's bundled data they raised every
    predictor's unsafe share (hunter_worsley: from 20 to 66 of 400 splits) and said "feasible" for
    GCULs with no training error.

    With no error (:math:`\varepsilon = 0`) GCUL cannot reject, and the verdict is "not
    feasible" for every ``lam``, including 0.

    Computes :func:`estimate_geometry`, then :func:`capture_rate_bound`,
    :func:`contamination_rate_bound` and :func:`critical_lambda` for every method (Theorem
    ``thm:gcul_effectiveness_sufficient_condition`` of [1]_). The condition is sufficient, not
    necessary: "not certified" does not mean that rejecting will fail.

    References
    ----------
    .. [1] The GCUL paper (reference in the module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from gcul_theory import feasibility_report
    >>> rng = np.random.default_rng(1)
    >>> centres = np.array([[-8.0, 0.0], [8.0, 0.0], [0.0, 0.0]])
    >>> Z = np.vstack([rng.normal(c, 1.0, (400, 2)) for c in centres])
    >>> y = np.r_[np.zeros(400, int), np.ones(400, int), rng.integers(0, 2, 400)]
    >>> y_pred = np.r_[np.zeros(400, int), np.ones(400, int), 1 - y[800:]]  # the blob is wrong
    >>> report = feasibility_report(Z, y, y_pred, lam=0.15)
    >>> report.feasible
    True
    >>> report.verdict.split(":")[0]
    "feasible by hunter_worsley (valid in expectation under the paper's Gaussian model)"
    >>> round(report.lambda_pre["union"], 2)
    1.0
    """
    lam_array = as_float_array(lam, "lam", lower=0.0, upper=1.0, upper_open=True)
    if lam_array.ndim != 0:
        raise ValueError(
            f"lam must be a scalar rejection cost in [0, 1); got an array of shape {lam_array.shape}"
        )
    lam_value = float(lam_array)
    method = check_method(method, METHODS)
    geometry = estimate_geometry(Z, y, y_pred, n_classes=n_classes)
    skipped = {name: unsupported(geometry, name) for name in METHODS}
    if skipped[method] is not None:
        raise ValueError(skipped[method])
    computed = [name for name in METHODS if skipped[name] is None]
    lambda_pre = {name: float(critical_lambda(geometry, name)) for name in computed}
    r1_hat = {name: float(capture(geometry, name)) for name in computed}
    r2_hat_by_method = {name: float(contamination(geometry, name)) for name in computed}
    r2_hat = r2_hat_by_method[method]
    s_exist = float(structural_existence_confidence(geometry))
    p_loss = gaussian_tail_unchecked(geometry.D, geometry.sigma_mix)
    eta = chernoff_tail_unchecked(geometry.D, geometry.sigma_mix)
    q_contam = gaussian_tail_unchecked(geometry.D, geometry.sigma_c)
    per_class = [
        {
            "class": float(c),
            "pi": float(geometry.pi[c]),
            "eps_c": float(geometry.eps_c[c]),
            "D": float(geometry.D[c]),
            "sigma_mix": float(geometry.sigma_mix[c]),
            "sigma_c": float(geometry.sigma_c[c]),
            "p_loss": float(p_loss[c]),
            "eta_outlier": float(eta[c]),
            "q_contam": float(q_contam[c]),
        }
        for c in range(geometry.n_classes)
    ]
    value = lambda_pre[method]
    named = f"{method} ({guarantee_phrase(method)})"
    if not float(geometry.eps) > 0.0:
        # Checked first: with no error lambda*_PRE is 0, and "0 >= lam = 0" must not read as
        # "feasible" for a GCUL that has nothing to reject.
        feasible = False
        verdict = (
            "not feasible: the base classifier makes no error (eps = 0), so GCUL has no error "
            "pool, no uncertain cluster and cannot reject"
        )
    elif value >= lam_value:
        feasible = True
        verdict = (
            f"feasible by {named}: lambda*_PRE = {value:.2f} >= lambda = {lam_value:g}, "
            "so rejecting is predicted to pay"
        )
    else:
        feasible = False
        verdict = (
            f"not certified by {named}: lambda*_PRE = {value:.2f} < lambda = {lam_value:g}; "
            "the condition is sufficient, not necessary, so rejecting may still pay"
        )
    return FeasibilityReport(
        lam=lam_value,
        method=method,
        lambda_pre=lambda_pre,
        r1_hat=r1_hat,
        r2_hat=r2_hat,
        r2_hat_by_method=r2_hat_by_method,
        s_exist=s_exist,
        feasible=feasible,
        verdict=verdict,
        per_class=per_class,
        geometry=geometry,
    )
