"""The interface every rejector implements: a registry entry, a fitting context, a fitted object.

See the docstring of :mod:`simulations.rejectors` for the contract and how to add a rejector.
"""

from __future__ import annotations

import abc
import dataclasses
import math
import numbers
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from simulations.synthetic import Mixture

__all__ = [
    "FittedRejector",
    "Phase1Rejector",
    "Rejector",
    "RejectorContext",
    "check_features",
    "check_lam",
    "check_training_data",
    "child_seed",
    "log_chow_threshold",
]


def check_features(X: Any, n_features: int | None, name: str = "X") -> np.ndarray:
    """Return ``X`` as a finite, C-contiguous float64 matrix with ``n_features`` columns (any
    number if ``None``).

    Raises ``TypeError`` for complex, string or object input and ``ValueError`` for a wrong number
    of dimensions or features, no rows, or NaN/inf (each message names ``name``).
    """
    try:
        raw = np.asarray(X)
    except (TypeError, ValueError) as exc:  # ragged nested sequences
        raise TypeError(f"{name} must be a numeric 2-D array; got {type(X).__name__}") from exc
    if raw.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be a real numeric 2-D array; got dtype {raw.dtype}")
    if raw.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_samples, n_features); got ndim={raw.ndim}"
        )
    if raw.shape[0] == 0 or raw.shape[1] == 0:
        raise ValueError(f"{name} must have at least one row and one column; got {raw.shape}")
    if n_features is not None and raw.shape[1] != n_features:
        raise ValueError(
            f"{name} must have {n_features} features (as the training data); got {raw.shape[1]}"
        )
    arr = np.ascontiguousarray(raw, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite values; found NaN or inf")
    return arr


def check_training_data(X: Any, y: Any, n_classes: int | None = None):
    """Validate training features and labels; return ``(X, y, K)``.

    ``X`` as :func:`check_features` (any number of features); ``y`` 1-D integer labels, one per
    row, in ``0..K-1`` with ``K = n_classes`` (by default ``max(y) + 1``) and ``K >= 2``.
    """
    X = check_features(X, None, "X")
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(
            f"y must be a 1-D array with one label per row of X ({X.shape[0]}); got shape {y.shape}"
        )
    if y.dtype.kind not in "iu":
        raise TypeError(f"y must hold integer labels; got dtype {y.dtype}")
    y = y.astype(np.int64)
    K = int(y.max()) + 1 if n_classes is None else int(n_classes)
    if K < 2 or y.min() < 0 or y.max() >= K:
        raise ValueError(
            f"y must hold labels 0..K-1 with K >= 2 (K = {K}); got {int(y.min())}..{int(y.max())}"
        )
    return X, y, K


def check_lam(lam: Any) -> float:
    """Validate a rejection cost λ ∈ [0, 1]; return it as a float."""
    if isinstance(lam, bool) or not isinstance(lam, numbers.Real):
        raise TypeError(f"lam must be a real number in [0, 1]; got {lam!r}")
    value = float(lam)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"lam must be in [0, 1]; got {lam!r}")
    return value


def child_seed(seed: np.random.SeedSequence, stream: int) -> np.random.SeedSequence:
    """The ``stream``-th child of ``seed``, built from its spawn key (never ``seed.spawn``).

    ``SeedSequence.spawn`` counts the children already made, so its result depends on how many
    other rejectors drew before; this does not: the same ``(seed, stream)`` always gives the same
    child, the one ``seed.spawn`` would give as its ``stream``-th.
    """
    return np.random.SeedSequence(
        seed.entropy, spawn_key=(*seed.spawn_key, stream), pool_size=seed.pool_size
    )


@dataclasses.dataclass(frozen=True, eq=False)
class RejectorContext:
    """Everything a rejector may be fitted from, validated once here.

    Parameters
    ----------
    X_train : array_like of shape (n_samples, n_features)
        Finite training features: the split GCUL was fitted on.
    y_train : array_like of shape (n_samples,)
        The *observed* (possibly noisy) training labels, in ``0..K-1``.
    model : GCUL
        The GCUL fitted on ``(X_train, y_train)``. The ``gcul``, ``msp`` and ``entropy``
        rejectors reuse its phase-1 and phase-3 models (``phase1_``, ``phase3_``); ``knn`` uses
        its phase-1 predictions; ``selectivenet`` and ``deep_gamblers`` start from its phase-1
        coefficients. Nothing is refitted. Anything with GCUL's fitted attributes
        ``phase1_``, ``phase3_``, ``n_classes_``, ``n_features_in_`` and ``predict`` will do.
    seed : numpy.random.SeedSequence or int
        Root of every random draw of a rejector (each draws from its own child stream, see
        :func:`child_seed`); an int ``s`` means ``SeedSequence(s)``.
    target_coverage : float or None, default=None
        Coverage ``c ∈ (0, 1]`` that SelectiveNet is trained for (required by it only).
    mixture : simulations.synthetic.Mixture or None, default=None
        The data-generating law (synthetic protocol only; required by ``bayes``), from
        :func:`simulations.synthetic.mixture` (a dataset of
        :func:`simulations.synthetic.make_dataset` carries it as ``mixture``).

    Attributes
    ----------
    n_classes : int
        ``K``, from the model.
    n_features : int
        ``d``, the number of columns of ``X_train``.

    Raises
    ------
    TypeError, ValueError
        For a bad argument; the message names it.
    """

    X_train: np.ndarray
    y_train: np.ndarray
    model: Any
    seed: np.random.SeedSequence
    target_coverage: float | None = None
    mixture: Mixture | None = None

    def __post_init__(self) -> None:
        model = self.model
        missing = [
            attribute
            for attribute in ("phase1_", "phase3_", "n_classes_", "n_features_in_")
            if not hasattr(model, attribute)
        ]
        if missing:
            raise TypeError(
                f"model must be a fitted GCUL (missing {', '.join(missing)}); call fit first"
            )
        n_features = int(model.n_features_in_)
        X = check_features(self.X_train, n_features, "X_train")
        y = np.asarray(self.y_train)
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ValueError(
                f"y_train must be a 1-D array with one label per row of X_train ({X.shape[0]});"
                f" got shape {y.shape}"
            )
        if y.dtype.kind not in "iu":
            raise TypeError(f"y_train must hold integer labels; got dtype {y.dtype}")
        n_classes = int(model.n_classes_)
        if y.min() < 0 or y.max() >= n_classes:
            raise ValueError(
                f"y_train must hold labels 0..{n_classes - 1} (the model's classes); got "
                f"{int(y.min())}..{int(y.max())}"
            )
        seed = self.seed
        if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
            if seed < 0:
                raise ValueError(f"seed must be a SeedSequence or an int >= 0; got {seed!r}")
            seed = np.random.SeedSequence(int(seed))
        if not isinstance(seed, np.random.SeedSequence):
            raise TypeError(
                f"seed must be a numpy.random.SeedSequence or an int >= 0; got {seed!r}"
            )
        coverage = self.target_coverage
        if coverage is not None:
            if isinstance(coverage, bool) or not isinstance(coverage, numbers.Real):
                raise TypeError(
                    f"target_coverage must be a real number in (0, 1]; got {coverage!r}"
                )
            if not 0.0 < coverage <= 1.0:
                raise ValueError(f"target_coverage must be in (0, 1]; got {coverage!r}")
            coverage = float(coverage)
        if self.mixture is not None:
            if not isinstance(self.mixture, Mixture):
                raise TypeError(
                    "mixture must be a simulations.synthetic.Mixture (from "
                    f"simulations.synthetic.mixture) or None; got {type(self.mixture).__name__}"
                )
            shape = self.mixture.centers.shape
            if shape != (n_classes, n_features):
                raise ValueError(
                    f"mixture has {shape[0]} classes in {shape[1]} dimensions; the data has "
                    f"{n_classes} classes in {n_features}"
                )
        y = y.astype(np.int64)
        for array in (X, y):
            array.flags.writeable = False
        object.__setattr__(self, "X_train", X)
        object.__setattr__(self, "y_train", y)
        object.__setattr__(self, "seed", seed)
        object.__setattr__(self, "target_coverage", coverage)

    @property
    def n_classes(self) -> int:
        return int(self.model.n_classes_)

    @property
    def n_features(self) -> int:
        return int(self.X_train.shape[1])


class FittedRejector(abc.ABC):
    """A fitted rejector: a score (higher = keep), a prediction, perhaps an operating point.

    Subclasses implement :meth:`_score_predict` (and :meth:`_accept` when the method has a
    natural operating point at cost λ, setting ``has_operating_point = True``); the public
    methods validate ``X`` (and ``lam``) once, then call them.

    Parameters
    ----------
    n_features : int
        Number of features ``d`` the rejector was fitted on.
    n_classes : int
        Number of classes ``K``; predictions are in ``0..K-1``.
    """

    name: ClassVar[str]
    has_operating_point: ClassVar[bool] = False

    def __init__(self, n_features: int, n_classes: int) -> None:
        self.n_features_in_ = int(n_features)
        self.n_classes_ = int(n_classes)

    def score_predict(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """Scores and predicted labels of the rows of ``X``, from one pass.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Finite features.

        Returns
        -------
        scores : ndarray of shape (n_samples,), float64
            Higher means more confident (kept first); only their order and, where an operating
            point exists, their threshold matter.
        labels : ndarray of shape (n_samples,), int64
            The class in ``0..K-1`` that the rejector predicts when it accepts the row.
        """
        return self._score_predict(check_features(X, self.n_features_in_))

    def score(self, X: Any) -> np.ndarray:
        """Scores of the rows of ``X`` (higher = keep); see :meth:`score_predict`."""
        return self.score_predict(X)[0]

    def predict(self, X: Any) -> np.ndarray:
        """Predicted labels of the rows of ``X``; see :meth:`score_predict`."""
        return self.score_predict(X)[1]

    def accept(self, X: Any, lam: float) -> np.ndarray:
        """The rejector's own accept set at cost ``lam``: a boolean mask over the rows of ``X``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Finite features.
        lam : float
            Relative rejection cost λ ∈ [0, 1].

        Returns
        -------
        ndarray of shape (n_samples,), bool

        Raises
        ------
        ValueError
            If the method has no natural operating point (``has_operating_point`` is False); then
            only its scores can be thresholded, at a coverage the caller chooses.
        """
        lam = check_lam(lam)
        if not self.has_operating_point:
            raise ValueError(
                f"the {self.name!r} rejector has no natural operating point at a cost lam; "
                "threshold its scores at a chosen coverage instead"
            )
        return self._accept(check_features(X, self.n_features_in_), lam)

    def accept_scores(self, scores: np.ndarray, lam: float) -> np.ndarray:
        """:meth:`accept` from the scores this rejector gave the same rows, not recomputed.

        For a rejector whose accept set is a threshold on its own score (Chow's rule of ``msp``
        and ``bayes``): ``scores >= threshold(lam)``, the same array as ``accept(X, lam)`` when
        ``scores`` is ``score(X)``.

        Parameters
        ----------
        scores : ndarray of shape (n_samples,)
            This rejector's :meth:`score_predict` scores of the rows.
        lam : float
            Relative rejection cost λ ∈ [0, 1].

        Returns
        -------
        ndarray of shape (n_samples,), bool

        Raises
        ------
        ValueError
            If the rejector's accept set is not a threshold on its score (no operating point,
            or another rule: call :meth:`accept` then).
        """
        lam = check_lam(lam)
        threshold = self._score_threshold(lam)
        if threshold is None:
            raise ValueError(
                f"the {self.name!r} rejector's accept set is not a threshold on its score; "
                "call accept(X, lam)"
            )
        return np.asarray(scores) >= threshold

    def _score_threshold(self, lam: float) -> float | None:
        """The score at or above which :meth:`accept` accepts at cost ``lam``, or ``None``."""
        return None

    @abc.abstractmethod
    def _score_predict(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`score_predict` for a validated ``X``."""

    def _accept(self, X: np.ndarray, lam: float) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError


class Phase1Rejector(FittedRejector):
    """A rejector that scores rows from GCUL's phase-1 model and predicts its labels.

    Nothing is fitted: MSP and entropy read phase 1's logits (:meth:`logits`); their predicted
    label is phase 1's (:meth:`phase1_labels`). A subclass sets ``name`` and defines
    :meth:`_score_predict`.

    Parameters
    ----------
    phase1 : simulations.models.LogisticRegression
        GCUL's phase-1 model (``model.phase1_``), or any fitted model with ``coef_``,
        ``intercept_``, ``classes_`` (``0..K-1``) and ``predict``.
    """

    def __init__(self, phase1: Any) -> None:
        super().__init__(phase1.coef_.shape[1], len(phase1.classes_))
        self.phase1_ = phase1

    @classmethod
    def from_context(cls, context: RejectorContext) -> Any:
        """The rejector of ``context.model.phase1_`` (a registry entry's ``fit``)."""
        return cls(context.model.phase1_)

    def logits(self, X: np.ndarray) -> np.ndarray:
        """Phase 1's linear scores of the ``K`` classes on validated ``X``, shape ``(K, n)``."""
        return self.phase1_.coef_ @ X.T + self.phase1_.intercept_[:, None]

    def phase1_labels(self, X: np.ndarray) -> np.ndarray:
        """Phase 1's predicted labels of validated ``X``, int64, shape ``(n,)``."""
        return np.asarray(self.phase1_.predict(X), dtype=np.int64)


@dataclasses.dataclass(frozen=True)
class Rejector:
    """One registry entry: a selective-classification method and what is known about it.

    Attributes
    ----------
    name : str
        Short identifier (``[a-z_]+``), used in result columns such as ``sel_risk_<name>``.
    label : str
        Human-readable name for tables and legends.
    description : str
        One sentence: the score (and prediction) in the notation of the docs.
    operating_point : str or None
        The natural accept rule at cost λ (what :meth:`FittedRejector.accept` computes), or
        ``None`` when the method only ranks.
    reference : str
        The source followed.
    needs_truth : bool
        Whether it needs the data-generating law (``RejectorContext.mixture``): the synthetic
        protocol only.
    needs_target_coverage : bool
        Whether it is trained for a target coverage (``RejectorContext.target_coverage``).
    fit : callable
        ``fit(context: RejectorContext) -> FittedRejector``; raises ``ValueError`` naming what
        the context lacks (``mixture`` for ``needs_truth``, ``target_coverage`` for
        ``needs_target_coverage``).
    """

    name: str
    label: str
    description: str
    operating_point: str | None
    reference: str
    needs_truth: bool
    needs_target_coverage: bool
    fit: Callable[[RejectorContext], FittedRejector]


def log_chow_threshold(lam: float) -> float:
    """``log(1 - λ)``: Chow's rule "accept iff max probability ≥ 1 − λ", in log space."""
    return math.log1p(-lam) if lam < 1.0 else -math.inf
