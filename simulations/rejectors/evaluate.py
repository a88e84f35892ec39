r"""GCUL against every rejector on one test split: the sweep's selective-classification columns.

:func:`score_rejectors` fits every rejector of :data:`~simulations.rejectors.REJECTORS` on a
cell's training split (reusing the GCUL fitted on it) and scores the test split;
:func:`evaluation_columns` turns those per-sample scores into the columns of
:data:`EVALUATION_COLUMNS`; :func:`evaluate_cell` does both for a ``(seed, σ)`` cell of the
synthetic protocol, as the sweep does (:func:`simulations.sweep.cell.compute_row`).

Columns (test split, clean labels; ``n`` test samples, ``m`` the number GCUL accepts):

``sel_risk_<r>`` for every rejector ``r``
    The selective risk of ``r`` at GCUL's coverage: the error rate of ``r``'s own predictions
    among its ``m`` highest-scoring test samples, ties at the cut by their expected value
    (:func:`gcul_theory.selective_risk_at_coverage`). ``sel_risk_gcul`` is the error rate of
    GCUL's own accept set (``GCUL.predict != uncertain``), which is exactly the ``m`` samples
    of non-negative ``gcul`` score. Every rejector is so judged on the same accepted count.
``aurc_<r>`` for every rejector
    The area under ``r``'s risk–coverage curve (:func:`gcul_theory.aurc`): every rejector of the
    registry gives a score, so every one has it.
``coverage_chow_<r>``, ``u_chow_<r>``, ``ujoint_chow_<r>`` for ``r`` in :data:`CHOW_REJECTORS`
    Chow's rule at :data:`CHOW_LAMBDA` (accept iff ``r``'s largest probability is at least
    ``1 - λ``): its coverage ``1 - ρ``, the paper's utility
    :math:`U = \varepsilon - \varepsilon_{sel} - λρ` and Chow's
    :math:`U_{joint} = \varepsilon - (1-ρ)\varepsilon_{sel} - λρ`
    (:func:`gcul_theory.joint_utility`), with :math:`\varepsilon` the error of ``r``'s
    predictions on the whole test split (phase 1's for ``msp``, the Bayes classifier's for
    ``bayes``) and :math:`\varepsilon_{sel}` their error among the accepted samples.
``ujoint_gcul``
    :math:`U_{joint}` of GCUL's own accept set at :data:`CHOW_LAMBDA`, with
    :math:`\varepsilon` phase 1's error and :math:`\varepsilon_{sel}` GCUL's selective error
    (the ε, ε_sel and ρ of the row's ``lambda_emp``). The paper's U of GCUL is
    ``1 - base_acc - (1 - selective_acc) - λ rejection_rate``, from the row's own columns.

Conventions at the edges, so that nothing undefined is written as a number:

- GCUL accepts nothing (``m = 0``): a selective risk at coverage 0 is 0/0, so every
  ``sel_risk_<r>`` is NaN; SelectiveNet cannot be trained for a target coverage of 0, so
  ``aurc_selectivenet`` is NaN too. Every other column is defined. (Tables leave such cells out
  of the comparison and say how many they left out.)
- GCUL accepts everything (``m = n``): ``sel_risk_<r>`` is the error of ``r``'s predictions on
  the whole test split (a comparison of classifiers, not of rejections); SelectiveNet is
  trained for coverage 1.
- Chow's rule accepts nothing: :math:`\varepsilon_{sel} = 0` (no accepted sample is wrong), so
  both utilities are :math:`\varepsilon - λ`, the convention of
  :func:`gcul_theory.joint_utility` and of the paper's U of rejecting everything.

λ is fixed (:data:`CHOW_LAMBDA` = 0.15, the paper's λ_target of ``tab:experimental_parameters``):
a sweep row depends only on ``(seed, σ, config)``, so the cell cache holds whatever
``gcul reproduce --lam`` is.

Randomness: the rejectors that draw (``selectivenet``, ``deep_gamblers``) draw from child streams
(:func:`simulations.rejectors.child_seed`) of ``SeedSequence([seed, EVALUATION_TAG])``, a stream
of its own: no draw of the dataset, the GCUL fit or the certified fit moves.

References
----------
.. [1] "GCUL: Ambiguity Identification in Text Emotion Classification via Cluster-Guided
   Learning" (the GCUL paper), section ``subsec:selective_exp``.
.. [2] C. K. Chow, "On optimum recognition error and reject tradeoff", IEEE Trans. Inf. Theory
   16(1), 1970.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

import gcul_theory
from simulations.rejectors import REJECTORS, RejectorContext
from simulations.synthetic import Dataset
from simulations.validation import removed_parameters

__all__ = [
    "AURC_COLUMNS",
    "CHOW_COLUMNS",
    "CHOW_LAMBDA",
    "CHOW_REJECTORS",
    "EVALUATION_COLUMNS",
    "EVALUATION_RANGES",
    "EVALUATION_TAG",
    "NULLABLE_COLUMNS",
    "REJECTOR_NAMES",
    "SEL_RISK_COLUMNS",
    "CellScores",
    "evaluate_cell",
    "evaluation_columns",
    "check_evaluation",
    "coverage_context",
    "evaluation_seed",
    "score_cell",
    "score_rejectors",
]

CHOW_LAMBDA = 0.15
"""λ of Chow's rule and of the utilities in a sweep row (the paper's λ_target)."""

CHOW_REJECTORS: tuple[str, ...] = ("msp", "bayes")
"""The rejectors whose natural operating point (Chow's rule) the sweep reports."""

EVALUATION_TAG = 0x72656A63  # b"rejc": the stream of the rejectors of a cell; never change it
"""Second entropy word of the rejectors' ``SeedSequence([seed, EVALUATION_TAG])``."""

REJECTOR_NAMES: tuple[str, ...] = tuple(entry.name for entry in REJECTORS)
"""Every rejector, registry order."""

SEL_RISK_COLUMNS: tuple[str, ...] = tuple(f"sel_risk_{name}" for name in REJECTOR_NAMES)
AURC_COLUMNS: tuple[str, ...] = tuple(f"aurc_{name}" for name in REJECTOR_NAMES)
CHOW_COLUMNS: tuple[str, ...] = tuple(
    f"{kind}_chow_{name}" for name in CHOW_REJECTORS for kind in ("coverage", "u", "ujoint")
)
EVALUATION_COLUMNS: tuple[str, ...] = (
    *SEL_RISK_COLUMNS,
    *AURC_COLUMNS,
    *CHOW_COLUMNS,
    "ujoint_gcul",
)
"""The columns :func:`evaluation_columns` returns, in results.csv order (module docstring)."""

NULLABLE_COLUMNS: frozenset[str] = frozenset({*SEL_RISK_COLUMNS, "aurc_selectivenet"})
"""The columns that are NaN when GCUL accepts no test sample (and only then)."""

_UNIT = (0.0, 1.0)
EVALUATION_RANGES: dict[str, tuple[float, float]] = {
    **{column: _UNIT for column in SEL_RISK_COLUMNS},
    **{column: _UNIT for column in AURC_COLUMNS},
    **{f"coverage_chow_{name}": _UNIT for name in CHOW_REJECTORS},
    # U = ε - ε_sel - λρ with ε, ε_sel, ρ in [0, 1] and λ < 1: in (-2, 1]
    **{f"u_chow_{name}": (-2.0, 1.0) for name in CHOW_REJECTORS},
    # U_joint = ε - (1-ρ)ε_sel - λρ: (1-ρ)ε_sel + λρ ≤ 1, so in [-1, 1]
    **{f"ujoint_chow_{name}": (-1.0, 1.0) for name in CHOW_REJECTORS},
    "ujoint_gcul": (-1.0, 1.0),
}
"""Closed range of every column of :data:`EVALUATION_COLUMNS` (NaN aside, see
:data:`NULLABLE_COLUMNS`)."""


def evaluation_seed(seed: int) -> np.random.SeedSequence:
    """The root ``SeedSequence([seed, EVALUATION_TAG])`` of a cell's rejectors."""
    return np.random.SeedSequence([int(seed), EVALUATION_TAG])


@dataclasses.dataclass(frozen=True)
class CellScores:
    """Per-sample scores of every rejector on one test split.

    Attributes
    ----------
    scores : dict of str to ndarray
        ``scores[r]``: rejector ``r``'s score of each test sample (higher = keep); absent for
        ``selectivenet`` when GCUL accepts nothing (no target coverage to train for).
    labels : dict of str to ndarray of int
        ``labels[r]``: ``r``'s prediction of each test sample.
    wrong : dict of str to ndarray of bool
        ``wrong[r]``: whether ``r``'s prediction of each test sample is wrong.
    gcul_accept : ndarray of bool
        GCUL's own accept set.
    base_wrong : ndarray of bool
        Whether phase 1's prediction is wrong (the base classifier of GCUL's utilities).
    chow_accept : dict of str to ndarray of bool
        Chow's accept set at ``lam`` of each rejector of :data:`CHOW_REJECTORS`.
    lam : float
        The λ of ``chow_accept``.
    """

    scores: dict[str, np.ndarray]
    labels: dict[str, np.ndarray]
    wrong: dict[str, np.ndarray]
    gcul_accept: np.ndarray
    base_wrong: np.ndarray
    chow_accept: dict[str, np.ndarray]
    lam: float

    @property
    def n_accept(self) -> int:
        """``m``: the number of test samples GCUL accepts."""
        return int(np.count_nonzero(self.gcul_accept))


def score_rejectors(
    context: RejectorContext,
    X_test: np.ndarray,
    y_test: np.ndarray,
    *,
    lam: float = CHOW_LAMBDA,
    names: tuple[str, ...] = REJECTOR_NAMES,
) -> CellScores:
    """Fit every rejector of ``names`` on ``context`` and score ``(X_test, y_test)``.

    Parameters
    ----------
    context : RejectorContext
        The training split, the GCUL fitted on it, the seed and (for ``bayes``) the mixture.
        Its ``target_coverage`` is ignored: SelectiveNet is trained for GCUL's coverage on
        ``X_test``.
    X_test : ndarray of shape (n, d)
        Test features.
    y_test : ndarray of shape (n,)
        Their (clean) labels.
    lam : float, default=CHOW_LAMBDA
        λ of Chow's rule (``chow_accept``).
    names : tuple of str, default=REJECTOR_NAMES
        The rejectors to fit (``gcul`` always is: its accept set fixes the coverage).

    Returns
    -------
    CellScores
    """
    model = context.model
    outcomes = model.indicators(X_test, y_test)
    gcul_accept = ~outcomes.rejected
    coverage = np.count_nonzero(gcul_accept) / y_test.size
    fit_context = dataclasses.replace(context, target_coverage=coverage if coverage else None)
    scores: dict[str, np.ndarray] = {}
    predictions: dict[str, np.ndarray] = {}
    wrong: dict[str, np.ndarray] = {}
    chow: dict[str, np.ndarray] = {}
    for entry in REJECTORS:
        if entry.name not in names and entry.name != "gcul":
            continue
        if entry.needs_target_coverage and not coverage:
            continue  # GCUL accepts nothing: no coverage to train for (module docstring)
        fitted = entry.fit(fit_context)
        score, labels = fitted.score_predict(X_test)
        scores[entry.name] = score
        predictions[entry.name] = labels
        wrong[entry.name] = labels != y_test
        if entry.name in CHOW_REJECTORS:  # Chow's rule: a threshold on the score just computed
            chow[entry.name] = fitted.accept_scores(score, lam)
    return CellScores(
        scores, predictions, wrong, gcul_accept, outcomes.base_wrong, chow, float(lam)
    )


def evaluation_columns(cell: CellScores) -> dict[str, float]:
    """The columns of :data:`EVALUATION_COLUMNS` from a cell's scores (module docstring).

    Rejectors absent from ``cell.scores`` (not fitted) give NaN columns.
    """
    m = cell.n_accept
    # one risk-coverage curve per rejector gives both of its columns: R(m) is
    # gcul_theory.selective_risk_at_coverage(scores, wrong, m) and the correctly rounded mean of
    # R(1..n) is gcul_theory.aurc(scores, wrong), the same operations bit for bit (each of those
    # would sort the scores again)
    risks = {
        name: gcul_theory.risk_coverage_curve(scores, cell.wrong[name]).selective_risk
        for name, scores in cell.scores.items()
    }
    out: dict[str, float] = {}
    for name in REJECTOR_NAMES:
        column = f"sel_risk_{name}"
        if m == 0 or name not in cell.scores:
            out[column] = math.nan
        elif name == "gcul":  # its own accept set (= its m highest scores, see rejectors.gcul)
            out[column] = float(_rate(cell.wrong["gcul"] & cell.gcul_accept, m))
        else:
            out[column] = float(risks[name][m - 1])
    for name in REJECTOR_NAMES:
        out[f"aurc_{name}"] = (
            math.fsum(risks[name].tolist()) / risks[name].size if name in cell.scores else math.nan
        )
    lam = cell.lam
    for name in CHOW_REJECTORS:
        if name not in cell.chow_accept:
            for kind in ("coverage", "u", "ujoint"):
                out[f"{kind}_chow_{name}"] = math.nan
            continue
        accept = cell.chow_accept[name]
        out.update(
            zip(
                (f"coverage_chow_{name}", f"u_chow_{name}", f"ujoint_chow_{name}"),
                _utilities(lam, cell.wrong[name], cell.wrong[name], accept),
                strict=True,
            )
        )
    out["ujoint_gcul"] = _utilities(lam, cell.base_wrong, cell.wrong["gcul"], cell.gcul_accept)[2]
    return out


_NO_NOISE_OR_CONFIG = (
    "the Bayes rejector's mixture is data.mixture (simulations.synthetic.make_dataset sets it): "
    "pass (data, model, seed)"
)


@removed_parameters(3, ("noise", "config"), _NO_NOISE_OR_CONFIG)
def evaluate_cell(
    data: Dataset, model: Any, seed: int, *, lam: float = CHOW_LAMBDA
) -> dict[str, float]:
    """The :data:`EVALUATION_COLUMNS` of one ``(seed, σ)`` cell of the synthetic protocol.

    Parameters
    ----------
    data : Dataset
        The cell's dataset, :func:`simulations.synthetic.make_dataset` ``(seed, noise, config)``;
        its ``mixture`` is the Bayes rejector's law.
    model : GCUL
        The GCUL fitted on ``(data.X_train, data.y_train)``.
    seed : int
        The cell's seed (the rejectors draw from :func:`evaluation_seed` of it).
    lam : float, default=CHOW_LAMBDA
        λ of Chow's rule and the utilities.

    Returns
    -------
    dict
        One float per column of :data:`EVALUATION_COLUMNS`, in that order.

    Raises
    ------
    TypeError
        If ``data`` is not a :class:`~simulations.synthetic.Dataset`, or for the former form
        ``evaluate_cell(data, model, seed, noise, config)`` (the message says what to pass).
    ValueError
        If ``data.mixture`` is None (a dataset built by hand: the Bayes rejector needs its law).

    Examples
    --------
    >>> from simulations.gcul import GCUL
    >>> from simulations.synthetic import SyntheticConfig, make_dataset
    >>> config = SyntheticConfig(n_per_class=100, n_confusion=100)
    >>> data = make_dataset(16, 4.0, config)
    >>> model = GCUL().fit(data.X_train, data.y_train)
    >>> row = evaluate_cell(data, model, 16)
    >>> list(row) == list(EVALUATION_COLUMNS)
    True
    >>> [round(row[f"sel_risk_{r}"], 4) for r in ("gcul", "msp", "bayes")]
    [0.0364, 0.0545, 0.0545]

    On 120 test samples Bayes is the floor only up to test-set noise: here GCUL's 110 accepted
    samples hold 4 errors, the Bayes rejector's 110 most confident 6.
    """
    return evaluation_columns(score_cell(data, model, seed, lam=lam))


@removed_parameters(3, ("noise", "config"), _NO_NOISE_OR_CONFIG)
def score_cell(data: Dataset, model: Any, seed: int, *, lam: float = CHOW_LAMBDA) -> CellScores:
    """:func:`score_rejectors` of a ``(seed, σ)`` cell: its training split, GCUL, the cell's
    :func:`evaluation_seed` and mixture (``data.mixture``), on its test split (arguments and
    errors as :func:`evaluate_cell`).
    """
    if not isinstance(data, Dataset):
        raise TypeError(f"data must be a simulations.synthetic.Dataset; got {type(data).__name__}")
    if data.mixture is None:
        raise ValueError(
            "data.mixture is None: the Bayes rejector needs the cell's law; build data with "
            "simulations.synthetic.make_dataset(seed, noise, config), which sets it"
        )
    context = RejectorContext(
        data.X_train, data.y_train, model, seed=evaluation_seed(seed), mixture=data.mixture
    )
    return score_rejectors(context, data.X_test, data.y_test, lam=lam)


def coverage_context(
    data: Dataset, model: Any, *, seed: Any, mixture: Any = None
) -> RejectorContext:
    """The rejectors' context of a cell whose target coverage is GCUL's on the test split.

    What a study of one rejector at a time needs (its tests, ``benchmarks/bench_rejectors.py``):
    the training split, the GCUL fitted on it, ``seed`` and ``mixture``, and as target coverage
    the share of test samples GCUL accepts, at least one sample's share (SelectiveNet needs a
    positive target). :func:`score_rejectors` sets that target itself from the labels it scores.

    Parameters
    ----------
    data : Dataset
        The cell's dataset (:func:`simulations.synthetic.make_dataset`).
    model : GCUL
        The GCUL fitted on ``(data.X_train, data.y_train)``.
    seed : int or numpy.random.SeedSequence
        The rejectors' seed.
    mixture : optional
        The generator's mixture (:func:`simulations.synthetic.mixture`), for the Bayes rejector;
        by default ``data.mixture``.

    Returns
    -------
    RejectorContext

    Examples
    --------
    >>> from simulations.gcul import GCUL
    >>> from simulations.synthetic import SyntheticConfig, make_dataset
    >>> data = make_dataset(16, 4.0, SyntheticConfig(n_per_class=100, n_confusion=100))
    >>> model = GCUL().fit(data.X_train, data.y_train)
    >>> coverage_context(data, model, seed=16).target_coverage
    0.9166666666666666
    """
    coverage = float(np.mean(model.predict(data.X_test) != model.n_classes_))
    return RejectorContext(
        data.X_train,
        data.y_train,
        model,
        seed=seed,
        target_coverage=max(coverage, 1.0 / data.y_test.size),
        mixture=data.mixture if mixture is None else mixture,
    )


def check_evaluation(values: Mapping[str, float], rejection_rate: float) -> str | None:
    """Why ``values`` (the evaluation columns of a row) are out of range, or None.

    Every column in its :data:`EVALUATION_RANGES`; NaN exactly in :data:`NULLABLE_COLUMNS`
    and exactly when ``rejection_rate`` is 1 (GCUL accepts nothing).
    """
    empty = rejection_rate == 1.0
    for column in EVALUATION_COLUMNS:
        value = values[column]
        if math.isnan(value):
            if not (empty and column in NULLABLE_COLUMNS):
                return f"{column} is NaN, which it is only when GCUL accepts nothing"
            continue
        if empty and column in NULLABLE_COLUMNS:
            return f"{column} must be NaN when GCUL accepts nothing; got {value!r}"
        low, high = EVALUATION_RANGES[column]
        if not low <= value <= high:
            return f"{column} must be in [{low}, {high}]; got {value!r}"
    return None


def _rate(selected: np.ndarray, total: int) -> float:
    """``|selected| / total``, 0 when ``total`` is 0."""
    return np.count_nonzero(selected) / total if total else 0.0


def _utilities(
    lam: float, base_wrong: np.ndarray, wrong: np.ndarray, accept: np.ndarray
) -> tuple[float, float, float]:
    """``(coverage, U, U_joint)`` of an accept set: ε from ``base_wrong`` on every sample,
    ε_sel from ``wrong`` on the accepted ones (0 if none)."""
    n = accept.size
    n_accept = int(np.count_nonzero(accept))
    eps = np.count_nonzero(base_wrong) / n
    eps_sel = _rate(wrong & accept, n_accept)
    rho = (n - n_accept) / n
    u = eps - eps_sel - lam * rho
    u_joint = float(gcul_theory.joint_utility(lam, eps, eps_sel, rho))
    return n_accept / n, float(u), u_joint
