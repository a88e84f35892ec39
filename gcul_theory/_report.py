r"""Pre-deployment feasibility report: will a reject option pay off on these representations?

References
----------
.. [1] "Ambiguity identification in text emotion classification via cluster-guided
   learning" (the GCUL paper).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ._bounds import (
    METHODS,
    _capture,
    _contamination,
    critical_lambda,
    structural_existence_confidence,
)
from ._geometry import Geometry, estimate_geometry
from ._predictors import unsupported
from ._tails import _chernoff_tail, _gaussian_tail
from ._validation import as_float_array, check_method

__all__ = ["FeasibilityReport", "feasibility_report"]


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
    s_exist : float
        Lower bound on the structural existence confidence :math:`\mathcal S_{exist}`.
    feasible : bool
        Whether :math:`\lambda^*_{PRE} \ge \lambda` for ``method``.
    verdict : str
        One sentence saying what ``feasible`` means.
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
    s_exist: float
    feasible: bool
    verdict: str
    per_class: list[dict[str, float]]
    geometry: Geometry

    def __str__(self) -> str:
        lines = [
            "GCUL feasibility report",
            f"  base error eps = {float(self.geometry.eps):.4f}, classes C = {self.geometry.n_classes}, "
            f"rejection cost lambda = {self.lam:g}",
            f"  {'method':<14} {'r1_hat':>8} {'lambda*_PRE':>12}",
        ]
        for name in self.lambda_pre:
            marker = "  <- verdict" if name == self.method else ""
            lines.append(
                f"  {name:<14} {self.r1_hat[name]:>8.4f} {self.lambda_pre[name]:>12.4f}{marker}"
            )
        for name in METHODS:
            if name not in self.lambda_pre:
                lines.append(f"  {name:<14} not computed: {unsupported(self.geometry, name)}")
        lines.append(f"  r2_hat = {self.r2_hat:.4f}   S_exist >= {self.s_exist:.4f}")
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
        lines.append("  " + " ".join(f"{h:>11}" for h in header))
        for row in self.per_class:
            if row["pi"] == 0.0:  # a class that never occurs in y; the notes count them
                continue
            cells = [f"{int(row['class']):>11d}"] + [f"{row[h]:>11.4g}" for h in header[1:]]
            lines.append("  " + " ".join(cells))
        lines.extend(f"  note: {note}" for note in self.geometry.notes)
        lines.append(f"verdict: {self.verdict}")
        return "\n".join(lines)


def feasibility_report(
    Z: ArrayLike,
    y: ArrayLike,
    y_pred: ArrayLike,
    lam: float = 0.15,
    method: str = "hunter_worsley",
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
    method : str, default "hunter_worsley"
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
    >>> report.verdict.split(":")[0], round(report.lambda_pre["union"], 2)
    ('feasible', 1.0)
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
    r1_hat = {name: float(_capture(geometry, name)) for name in computed}
    r2_hat = float(_contamination(geometry, method))
    s_exist = float(structural_existence_confidence(geometry))
    p_loss = _gaussian_tail(geometry.D, geometry.sigma_mix)
    eta = _chernoff_tail(geometry.D, geometry.sigma_mix)
    q_contam = _gaussian_tail(geometry.D, geometry.sigma_c)
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
    feasible = bool(value >= lam_value)
    if feasible:
        verdict = (
            f"feasible: lambda*_PRE = {value:.2f} >= lambda = {lam_value:g} ({method} bound), "
            "so rejecting is predicted to pay"
        )
    elif np.asarray(geometry.eps) == 0.0:
        verdict = "not certified: the base classifier makes no error, so there is nothing to reject"
    else:
        verdict = (
            f"not certified: lambda*_PRE = {value:.2f} < lambda = {lam_value:g} ({method} bound); "
            "the condition is sufficient, not necessary, so rejecting may still pay"
        )
    return FeasibilityReport(
        lam=lam_value,
        method=method,
        lambda_pre=lambda_pre,
        r1_hat=r1_hat,
        r2_hat=r2_hat,
        s_exist=s_exist,
        feasible=feasible,
        verdict=verdict,
        per_class=per_class,
        geometry=geometry,
    )
