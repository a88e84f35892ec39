r"""GCUL: guided clustering-based uncertain learning (Algorithm ``alg:gcul`` of [1]_).

Three phases, as in section "The three-phase GCUL pipeline" (``subsec:pipeline``) and section
``subsec:assumptions1`` of [1]_, with the choices of the paper's synthetic experiment
(``subsec:synthetic_exp``: logistic regressions, K-Means on the raw features):

1. a multinomial logistic regression ``f1`` on the ``K`` observed classes; its training errors
   form the error pool :math:`\mathcal{E} = \{i : \hat y_i \ne y_i\}` (the paper's pool; or,
   with ``error_pool="out_of_fold"``, its errors on held-out folds, see :class:`GCUL`);
2. K-Means on the (optionally PCA/LDA-reduced) training features, started from the median of
   each predicted class and the median of the error pool; the cluster of lowest label purity is
   relabelled ``uncertain``;
3. a logistic regression ``f2`` on the ``K + 1`` classes; predicting the extra class rejects.

:class:`GCUL` is a scikit-learn classifier (``clone``, ``Pipeline``, ``cross_val_score``,
``GridSearchCV``); scikit-learn supplies the API only, every fit is the NumPy/SciPy code of
:mod:`simulations.models`. Certification lives in :mod:`simulations.certification`
(:class:`Certificate`, :class:`CrossFitCertificate`, :func:`random_folds` and
:func:`stratified_split` are importable from here as well).

References
----------
.. [1] "GCUL: Ambiguity Identification in Text Emotion Classification via Cluster-Guided
   Learning" (the GCUL paper).
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    check_consistent_length,
    check_is_fitted,
    column_or_1d,
)

from simulations._error_pool import (
    ERROR_POOLS,
    few_errors,
    out_of_fold_predictions,
    phase1_regime,
    stratified_folds,
)
from simulations._guided_clustering import guided_clustering
from simulations._rejection_label import (
    UncertainLabel,
    check_uncertain_label,
    resolve_uncertain_label,
)
from simulations.certification import (
    Certificate,
    CrossFitCertificate,
    SelectiveOutcomes,
    certify,
    certify_cross_fit,
    random_folds,
    stratified_split,
)
from simulations.models import LogisticRegression, single_threaded_blas
from simulations.models._design import scaled_design
from simulations.models._logistic import (
    fit_design,
    scaled_negative_scores,
    softmax_of_negative_scores,
)
from simulations.models._numerics import encode_known_labels, encode_labels
from simulations.models._validation import check_sample_weight, validate_features
from simulations.validation import (
    SEED,
    Constraint,
    Interval,
    Options,
    check_parameters,
)

__all__ = [
    "ERROR_POOL",
    "ERROR_POOLS",
    "GCUL",
    "Certificate",
    "CrossFitCertificate",
    "SelectiveOutcomes",
    "few_errors",
    "out_of_fold_predictions",
    "random_folds",
    "stratified_folds",
    "stratified_split",
    "fit_in_place",
]

ERROR_POOL = Options(ERROR_POOLS)
"""What ``error_pool`` may be, wherever it is taken (:class:`GCUL`,
:func:`simulations.compare.compare`, :func:`simulations.feasibility.assess`): one constraint
(:mod:`simulations.validation`), so one check and one message."""

_PARAMETER_TABLE: dict[str, Constraint] = {
    "reduce": Options((None, "pca", "lda")),
    "C": Interval(numbers.Real, 0.0, None, closed="neither"),
    "max_iter": Interval(numbers.Integral, 1),
    "kmeans_max_iter": Interval(numbers.Integral, 1),
    "lam": Interval(numbers.Real, 0.0, 1.0),
    "error_pool": ERROR_POOL,
    "n_folds": Interval(numbers.Integral, 2),
    "random_state": SEED,
}
"""What :class:`GCUL`'s parameters may be, checked by ``fit`` (``__init__`` only stores them);
``uncertain_label`` has its own check, and ``n_components`` is ``reduce``'s. Not named
``_parameter_constraints``: scikit-learn's ``check_estimator`` reads that attribute as its own
constraint objects."""


_SUGGESTIONS = {
    "in_sample": [
        "error_pool='out_of_fold'",
        "standardised features (make_pipeline(StandardScaler(), GCUL()))",
    ],
    "out_of_fold": [],  # no out-of-fold error: the classes are separable, nothing to reject
}  # what GCUL.error_pool_note_ offers, by pool


class GCUL(ClassifierMixin, BaseEstimator):
    r"""Selective classifier that learns an extra ``uncertain`` class from a confusion cluster.

    Parameters
    ----------
    reduce : {None, "pca", "lda"}, default=None
        Feature space of phase 2: the raw features (``None``, the synthetic protocol) or a
        projection fitted on the training set, :func:`~simulations.models.pca` or
        :func:`~simulations.models.lda` (with the observed labels). Phases 1 and 3 always use
        the raw features.
    n_components : int or None, default=None
        Dimension of the projection (``None``: all PCA components, or ``K - 1`` for LDA).
        Ignored when ``reduce`` is ``None`` (no projection), as scikit-learn ignores a parameter
        that the chosen option does not use; so one ``GridSearchCV`` grid
        ``{"reduce": [None, "pca"], "n_components": [None, 5]}`` fits every combination (the
        two with ``reduce=None`` are the same model).
    C : float, default=1.0
        Inverse L2 regularisation strength of both logistic regressions.
    max_iter : int, default=500
        Maximum L-BFGS iterations of both logistic regressions.
    kmeans_max_iter : int, default=100
        Maximum Lloyd iterations of phase 2 (one initialisation, ``tol=1e-4``).
    uncertain_label : int, float, str or None, default=None
        The label :meth:`predict` returns for a rejected sample; it must differ from every
        class (``fit`` refuses a collision). ``None`` picks one that cannot collide: for
        numeric labels the smallest integer above every class, ``floor(max(classes_)) + 1``
        (``K`` for labels ``0..K-1``, the code of the uncertain class inside phase 3); for
        string labels ``"uncertain"`` (``fit`` refuses it when a class is named so: pass
        another). An explicit value must be a number for numeric labels and a string for
        string labels.
    lam : float, default=0.15
        Relative rejection cost λ ∈ [0, 1] of :meth:`score` (a rejection costs ``lam`` of an
        error). It does not change the fit.
    error_pool : {"in_sample", "out_of_fold"}, default="in_sample"
        Which phase-1 errors form the error pool of phase 2. ``"in_sample"`` (the paper's
        definition): phase 1's errors on its own training rows. ``"out_of_fold"``: its errors
        on held-out folds, each fold predicted by a phase 1 fitted on the other folds
        (``n_folds`` stratified folds drawn with ``random_state``, see Notes); phase 2 then
        starts from the medians of those predictions and of that pool. Either way the phase-1
        model ``phase1_`` (and the base classifier of :meth:`indicators`) is fitted on all the
        training rows, and phase 3 as before.
    n_folds : int, default=5
        Number of stratified folds of ``error_pool="out_of_fold"`` (at least 2, at most the
        number of training rows). Validated always, used only with ``"out_of_fold"`` and
        ignored with ``"in_sample"``.
    random_state : int, default=0
        Seed in ``[0, 2**32)`` of the folds (an int, so that a fit is reproducible; there is no
        ``None``). Validated always, used only with ``"out_of_fold"``.

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
        The sorted distinct labels seen in ``fit`` (any labels scikit-learn classifies:
        integers, strings, integral floats; non-contiguous integers too).
    n_classes_ : int
        Number of observed classes ``K``.
    uncertain_label_ : int, float or str
        The rejection label :meth:`predict` returns, resolved from ``uncertain_label``.
    UNCERTAIN : int, float or str
        On a fitted model, ``uncertain_label_``. On the class, ``GCUL.UNCERTAIN`` is a sentinel
        that documents this and cannot be compared with labels.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape ``(n_features_in_,)``
        Column names, when ``fit`` was given a DataFrame with string column names.
    n_iter_ : ndarray of shape (3,)
        Iterations run by phase 1's L-BFGS, phase 2's Lloyd and phase 3's L-BFGS (phase 3's
        entry repeats phase 1's when ``phase3_`` is ``phase1_``).
    phase1_ : simulations.models.LogisticRegression
        The ``K``-class model of phase 1, fitted on the *encoded* labels: class ``k`` of it
        is ``classes_[k]``.
    train_pred_ : ndarray of shape (n_samples,)
        The phase-1 predictions on the training set whose errors form the pool (encoded:
        ``classes_[train_pred_]`` are the labels): ``phase1_.predict(X)`` with
        ``error_pool="in_sample"``, the out-of-fold predictions with ``"out_of_fold"``.
    error_mask_ : ndarray of shape (n_samples,), bool
        The error pool: where ``train_pred_`` differs from the observed label.
    n_error_pool_ : int
        Size of the error pool, ``error_mask_.sum()``.
    error_pool_folds_ : ndarray of shape (n_samples,) or None
        Fold of each training row with ``error_pool="out_of_fold"``
        (:func:`stratified_folds`); ``None`` with ``"in_sample"``.
    error_pool_note_ : str or None
        Why the pool leaves GCUL unable to reject, or leaves it too few errors to reject by
        (:func:`few_errors`: at most ``K`` errors), in one sentence that suggests what to try
        (the line ``gcul compare`` and ``gcul feasibility`` print); ``None`` when the pool
        holds more than ``K`` errors. ``fit`` warns of nothing: read this.
    reducer_ : LinearProjection or None
        Projection used in phase 2 (``None`` without reduction).
    init_centers_ : ndarray of shape (n_clusters, n_components)
        Initial K-Means centres: the median of each predicted class, then the median of the
        error pool (absent when the pool is empty).
    cluster_labels_ : ndarray of shape (n_samples,)
        K-Means cluster of each training sample.
    cluster_centers_ : ndarray of shape (n_clusters, n_components)
        Final K-Means centres, in the phase-2 feature space.
    purities_ : ndarray of shape (n_clusters,)
        Share of the majority observed label in each cluster; NaN for an empty cluster.
    uncertain_cluster_ : int or None
        Index of the cluster relabelled uncertain; ``None`` when the error pool is empty.
    can_reject_ : bool
        Whether phase 3 learned an uncertain class, i.e. whether ``predict`` can reject.
    phase3_ : simulations.models.LogisticRegression
        The ``K + 1``-class model of phase 3 on the encoded labels, ``K`` being the uncertain
        class (``phase1_`` itself when nothing is uncertain). Its ``classes_`` lack a class
        whose every training sample fell in the uncertain cluster.

    Notes
    -----
    The public fitted attributes above are what the sweep, the rejectors and ``gcul
    feasibility`` read. Inside the model the labels are encoded, ``k`` standing for
    ``classes_[k]`` and ``K`` for the uncertain class; for labels ``0..K-1`` the code is the
    labels themselves and the rejection label is ``K``, so ``predict(X) == n_classes_`` marks
    the rejected samples (:meth:`accepts` says it for any labels).

    The scikit-learn methods, and what they mean for a classifier that rejects:

    - :meth:`predict`: a class, or ``uncertain_label_`` where phase 3's most probable of its
      ``K + 1`` classes is the uncertain one.
    - :meth:`predict_proba`: ``(n_samples, K)``, the ``K`` classes in the order of
      ``classes_``, *conditional on acceptance*: phase 3's softmax over its ``K`` real classes
      (its ``K + 1``-class probabilities without the uncertain column, renormalised; a class
      phase 3 never saw has probability 0). Its argmax is :meth:`predict`'s label wherever
      the sample is accepted. Phase 3's probability of the uncertain class itself is
      :meth:`uncertain_proba`.
    - :meth:`decision_function`: phase 3's scores of the ``K`` real classes, ``(n_samples,
      K)`` (``-inf`` for a class phase 3 never saw); for two classes scikit-learn's binary
      shape ``(n_samples,)``, the score of ``classes_[1]`` minus that of ``classes_[0]``.
    - :meth:`score`: the accuracy of a classifier whose rejections cost ``lam`` of an error,
      :math:`1 - \varepsilon_{acc} - \lambda\rho` (see :meth:`score`), which is the default
      scorer of ``cross_val_score`` and ``GridSearchCV``. ``scoring="accuracy"`` counts
      every rejection as an error instead.

    *Which error pool.* The paper's phase 1 is a fine-tuned encoder whose training error is far
    from zero, so its in-sample errors mark the confusing samples. A phase 1 that separates its
    training set has no in-sample error and GCUL cannot reject: a multinomial logistic
    regression on ``d`` features can separate any labelling of ``n`` rows in general position
    as soon as ``d >= n - 1``, and in practice it separates real data well before that
    (scikit-learn's digits unscaled, 64 features; 768-d embeddings of thousands of rows).
    ``error_pool="out_of_fold"`` then gives phase 2 the errors a
    phase 1 makes on rows it was not fitted on, which is what the deployed phase 1 does on new
    rows; ``n_error_pool_`` and ``error_pool_note_`` say which regime a fit is in. Standardising
    the features also changes phase 1 (its penalty is not scale invariant); the scikit-learn way
    is a pipeline, which every part of this package (``certify``, ``cross_val_score``) accepts:

    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> pipe = make_pipeline(StandardScaler(), GCUL(error_pool="out_of_fold", n_folds=5))

    λ*_PRE (:func:`gcul_theory.feasibility_report`) describes the pool it is given: give it
    ``train_pred_`` of the GCUL you deploy (``gcul feasibility --error-pool`` does). Only the
    in-sample pairing has been validated on real data (the README's section "Will a reject
    option pay off on my data?": cross-validated predictions judged against an in-sample GCUL
    made every predictor less safe).

    scikit-learn's ``check_estimator`` passes on ``GCUL()`` but for one check, to declare as
    ``expected_failed_checks={"check_classifiers_train": reason}``: it counts a rejection as
    an error and wants the argmax of :meth:`predict_proba` to be :meth:`predict` on rejected
    rows too.

    Degenerate cases have defined behaviour:

    - *No training error* (no error in the pool). The confusion median is undefined: K-Means
      runs from the ``K`` class medians only, no cluster is uncertain
      (``uncertain_cluster_ is None``, ``can_reject_ is False``), ``phase3_`` is ``phase1_``,
      ``predict`` never rejects, and ``error_pool_note_`` says so; no warning is emitted.
    - *A class that phase 1 never predicts.* Its initial centre is the median of the samples
      *labelled* with it.
    - *Empty clusters.* K-Means relocates them as scikit-learn does; a cluster still empty at
      the end has purity NaN and is never chosen.
    - *Ties in purity.* The lowest cluster index wins.
    - *The uncertain cluster holds every training sample.* Phase 3 has a single class and
      ``fit`` raises ``ValueError``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> centres = np.array([[-6.0, 0.0], [6.0, 0.0], [0.0, 8.0]])
    >>> X = np.concatenate([rng.normal(c, 1.0, (100, 2)) for c in centres]
    ...                    + [rng.normal(centres.mean(axis=0), 1.0, (100, 2))])
    >>> y = np.concatenate([np.repeat([0, 1, 2], 100), rng.integers(0, 3, 100)])
    >>> model = GCUL().fit(X, y)
    >>> model.UNCERTAIN, model.uncertain_cluster_
    (3, 3)
    >>> sorted(set(model.predict(X).tolist()))
    [0, 1, 2, 3]
    >>> names = np.array(["calm", "joy", "anger"])[y]  # string labels work the same way
    >>> sorted(set(GCUL().fit(X, names).predict(X).tolist()))
    ['anger', 'calm', 'joy', 'uncertain']
    """

    UNCERTAIN = UncertainLabel()

    def __init__(
        self,
        reduce: str | None = None,
        n_components: int | None = None,
        C: float = 1.0,
        max_iter: int = 500,
        kmeans_max_iter: int = 100,
        uncertain_label: int | float | str | None = None,
        lam: float = 0.15,
        error_pool: str = "in_sample",
        n_folds: int = 5,
        random_state: int = 0,
    ):
        self.reduce = reduce
        self.n_components = n_components
        self.C = C
        self.max_iter = max_iter
        self.kmeans_max_iter = kmeans_max_iter
        self.uncertain_label = uncertain_label
        self.lam = lam
        self.error_pool = error_pool
        self.n_folds = n_folds
        self.random_state = random_state

    def _check_params(self) -> None:
        check_parameters(_PARAMETER_TABLE, {key: getattr(self, key) for key in _PARAMETER_TABLE})
        check_uncertain_label(self.uncertain_label)

    def fit(self, X, y) -> GCUL:
        """Run the three phases on a training set.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Finite, real training features (a DataFrame's column names are kept in
            ``feature_names_in_``).
        y : array_like of shape (n_samples,)
            Observed labels: integers, strings or integral floats, at least two distinct
            ones; they are encoded as ``0..K-1`` inside.

        Returns
        -------
        self : GCUL

        Raises
        ------
        TypeError
            A parameter of the wrong type (``C``, ``max_iter``, ``kmeans_max_iter``, ``lam``,
            ``uncertain_label``, ``n_folds``, ``random_state``).
        ValueError
            Bad parameters (``n_folds`` above the number of rows with ``"out_of_fold"``); bad
            ``X`` (NaN/inf, complex, sparse, empty, 1-D) or ``y`` (continuous, fewer than two
            classes, another length), with scikit-learn's messages; ``uncertain_label`` equal
            to a class; a training set whose uncertain cluster holds every sample.
        """
        return self._fit(X, y, overwrite_X=False)

    def _fit(self, X, y, *, overwrite_X: bool) -> GCUL:
        """:meth:`fit`; with ``overwrite_X``, a large float64 ``X`` that validation leaves as it
        is (finite, C-contiguous, writeable) is scaled and centred in place by phase 2's K-Means
        instead of copied, after phase 1 has used it: the same fit, bit for bit, one copy of
        ``X`` less at the peak, and ``X`` left holding garbage. Other modules call it through
        :func:`fit_in_place`."""
        self._check_params()
        X, y = validate_features(self, X, y, reset=True)
        if y.dtype.kind not in "iub":  # integer labels are classification targets: skip 0.7 ms
            check_classification_targets(y)
        classes, y_encoded = encode_labels(y)
        if classes.size < 2:
            raise ValueError(
                f"y must contain at least two classes; got 1 class ({classes.tolist()})"
            )
        uncertain_label = resolve_uncertain_label(self.uncertain_label, classes)
        n_classes = classes.size
        out_of_fold = self.error_pool == "out_of_fold"
        if out_of_fold and self.n_folds > y.size:
            raise ValueError(
                f"n_folds must be at most the number of training rows ({y.size}) with "
                f"error_pool='out_of_fold'; got {self.n_folds}"
            )

        with single_threaded_blas():
            # Phases 1 and 3 fit on the same X: its whitened design is built once, for both.
            design = scaled_design(X)

            # Phase 1: base classifier and error pool.
            phase1 = fit_design(
                LogisticRegression(C=self.C, max_iter=self.max_iter), design, y_encoded
            )
            if out_of_fold:
                folds = stratified_folds(y_encoded, self.n_folds, self.random_state)
                y_pred = out_of_fold_predictions(
                    X, y_encoded, folds, C=self.C, max_iter=self.max_iter
                )
            else:
                folds = None
                y_pred = phase1.predict(X)
            error_mask = y_pred != y_encoded

            # Phase 2: guided clustering in the (optionally reduced) feature space.
            phase2 = guided_clustering(
                X,
                y_encoded,
                y_pred,
                error_mask,
                n_classes,
                reduce=self.reduce,
                n_components=None if self.reduce is None else self.n_components,  # ignored
                max_iter=self.kmeans_max_iter,
                overwrite_X=overwrite_X and X.flags.writeable,
            )
            cluster_labels, purities = phase2.cluster_labels, phase2.purities

            # Phase 3: relabel the least pure cluster and retrain on K + 1 classes.
            if error_mask.any():
                uncertain_cluster = int(np.nanargmin(purities))
                y_relabelled = np.where(cluster_labels == uncertain_cluster, n_classes, y_encoded)
                if np.all(y_relabelled == n_classes):
                    raise ValueError(
                        "the uncertain cluster holds every training sample, so phase 3 has a "
                        "single class; X has too little structure for GCUL"
                    )
                phase3 = fit_design(
                    LogisticRegression(C=self.C, max_iter=self.max_iter), design, y_relabelled
                )
            else:
                uncertain_cluster = None
                phase3 = phase1

        self.classes_ = classes
        self.n_classes_ = n_classes
        self.uncertain_label_ = uncertain_label
        self.n_iter_ = np.array([phase1.n_iter_, phase2.n_iter, phase3.n_iter_])
        self.phase1_ = phase1
        self.train_pred_ = y_pred
        self.error_mask_ = error_mask
        self.n_error_pool_ = int(np.count_nonzero(error_mask))
        self.error_pool_folds_ = folds
        self.error_pool_note_ = phase1_regime(
            [self.n_error_pool_], n_classes, self.error_pool, _SUGGESTIONS[self.error_pool]
        )
        self.reducer_ = phase2.reducer
        self.init_centers_ = phase2.init_centers
        self.cluster_labels_ = cluster_labels
        self.cluster_centers_ = phase2.cluster_centers
        self.purities_ = purities
        self.uncertain_cluster_ = uncertain_cluster
        self.can_reject_ = uncertain_cluster is not None
        self.phase3_ = phase3
        return self

    def _validated(self, X) -> np.ndarray:
        """``X`` checked against the fit (``NotFittedError`` before it), as a float64 matrix."""
        check_is_fitted(self, "phase3_")
        return validate_features(self, X, reset=False)

    def _predict_encoded(self, X: np.ndarray) -> np.ndarray:
        """Phase 3's prediction (``0..K``, ``K`` = rejected) of a validated ``X``."""
        return self.phase3_.predict(X)

    def _labels_with_uncertain(self) -> np.ndarray:
        """``classes_`` followed by ``uncertain_label_``: the label of each code ``0..K``."""
        return np.concatenate([self.classes_, np.asarray([self.uncertain_label_])])

    def predict(self, X) -> np.ndarray:
        """Predict a class of ``classes_``, or ``uncertain_label_`` to reject.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Finite features.

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``, and ``uncertain_label_`` (``self.UNCERTAIN``) where
            phase 3 predicts the uncertain class (the first of its classes of largest score,
            the uncertain one coming last: a tie is accepted).

        Notes
        -----
        A row so large that a phase-3 score overflows float64 (entries near ``1e308``) is
        still labelled, without a warning: with the class of largest exact score, compared on
        the row's scores divided by a power of two (see
        :meth:`simulations.models.LogisticRegression.predict`). The intercepts are then
        negligible, so such a far point takes the class (or ``UNCERTAIN``) whose phase-3
        coefficient vector points furthest along it.
        """
        encoded = self._predict_encoded(self._validated(X))
        return self._labels_with_uncertain()[encoded]

    def accepts(self, X) -> np.ndarray:
        """Whether GCUL accepts each row of ``X``: ``predict(X) != uncertain_label_``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Finite features.

        Returns
        -------
        ndarray of shape (n_samples,), bool
            True where :meth:`predict` returns a class, False where it rejects.
        """
        return self._predict_encoded(self._validated(X)) != self.n_classes_

    def _real_class_scores(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Phase 3's negated scores of the ``K`` real classes, ``(K, n)`` (``+inf`` for a class
        phase 3 lacks), and the per-row scale of
        :func:`~simulations.models._logistic.scaled_negative_scores` (whose bits
        :meth:`predict` compares)."""
        negative, shift = scaled_negative_scores(self.phase3_, X)
        columns = self.phase3_.classes_
        real = columns < self.n_classes_
        if real.all() and columns.size == self.n_classes_:
            return negative, shift
        full = np.full((self.n_classes_, X.shape[0]), np.inf)
        full[columns[real]] = negative[real]
        return full, shift

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities conditional on acceptance, shape ``(n_samples, K)``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Finite features.

        Returns
        -------
        ndarray of shape (n_samples, K)
            Column ``k`` is phase 3's probability of ``classes_[k]`` given that the sample is
            not uncertain: the softmax of phase 3's scores over the ``K`` real classes (0 for a
            class phase 3 never saw). Rows sum to 1; the uncertain class has no column (see
            :meth:`uncertain_proba`). Where :meth:`predict` accepts, its label is the first
            argmax of the row.
        """
        negative, shift = self._real_class_scores(self._validated(X))
        return softmax_of_negative_scores(negative, shift)

    def uncertain_proba(self, X) -> np.ndarray:
        """Phase 3's probability of the uncertain class, shape ``(n_samples,)``.

        0 everywhere when the model cannot reject (``can_reject_`` false). With
        :meth:`predict_proba` ``P``, phase 3's full ``K + 1``-class distribution is
        ``(1 - u) P`` and ``u``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Finite features.

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        X = self._validated(X)
        if not self.can_reject_:
            return np.zeros(X.shape[0])
        negative, shift = scaled_negative_scores(self.phase3_, X)
        return softmax_of_negative_scores(negative, shift)[:, -1]

    def decision_function(self, X) -> np.ndarray:
        """Phase 3's scores of the ``K`` classes: ``(n_samples, K)``, or ``(n_samples,)`` for two.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Finite features.

        Returns
        -------
        ndarray of shape (n_samples, K) or (n_samples,)
            Phase 3's linear scores of ``classes_`` (``-inf`` for a class phase 3 never saw),
            computed as :meth:`predict` computes them; for two classes the score of
            ``classes_[1]`` minus that of ``classes_[0]`` (scikit-learn's binary convention).
            The uncertain class's score is not among them: where :meth:`predict` accepts, its
            label is the argmax (or, for two classes, ``classes_[1]`` exactly where the score
            is positive). Scores beyond the float64 range are ``±inf``.
        """
        negative, shift = self._real_class_scores(self._validated(X))
        if self.n_classes_ == 2:
            scores = negative[0] - negative[1]
        else:
            scores = np.ascontiguousarray(-negative.T)
            shift = shift[:, None]
        with np.errstate(over="ignore", invalid="ignore"):
            return np.ldexp(scores, shift)

    def score(self, X, y, sample_weight=None) -> float:
        r"""Accuracy with a rejection costing ``lam`` of an error: :math:`1 - \varepsilon_{acc}
        - \lambda\rho`.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Finite features.
        y : array_like of shape (n_samples,)
            True labels.
        sample_weight : array_like of shape (n_samples,), optional
            Weights of the samples (uniform by default).

        Returns
        -------
        float
            :math:`1 - \varepsilon_{acc} - \lambda\rho` in ``[-lam, 1]``, with
            :math:`\varepsilon_{acc}` the (weighted) share of samples accepted *and*
            misclassified, ρ the share rejected and λ = ``lam``: each sample scores 1 if
            accepted and right, 0 if accepted and wrong, ``1 - lam`` if rejected (Chow's
            cost of a rejection). It is the accuracy when nothing is rejected.

        Notes
        -----
        With ε the error rate of phase 1 on the same samples, the score is :math:`(1 -
        \varepsilon) + U_{joint}(\lambda)` with :math:`U_{joint}(\lambda) = \varepsilon -
        \varepsilon_{acc} - \lambda\rho` (:func:`gcul_theory.joint_utility`), the gain of
        rejecting over the base classifier per sample: model selection by this score prefers
        the configuration whose accepted errors plus costed rejections are fewest.
        :func:`gcul_theory.utility`'s U(λ) of the paper divides the accepted errors by the
        accepted share instead (the error *among accepted* samples).

        ``cross_val_score`` and ``GridSearchCV`` use this score by default; with
        ``scoring="accuracy"`` a rejection counts as an error (λ = 1).
        """
        check_consistent_length(X, y)
        y = column_or_1d(y)
        encoded = self._predict_encoded(self._validated(X))
        rejected = encoded == self.n_classes_
        wrong = (self._labels_with_uncertain()[encoded] != y) & ~rejected
        weights = check_sample_weight(sample_weight, y.size)
        total = weights.sum()
        return float(1.0 - (weights @ wrong) / total - self.lam * (weights @ rejected) / total)

    def indicators(self, X, y) -> SelectiveOutcomes:
        """Per-sample outcomes on labelled data: what :func:`certify` and the sweep measure.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Finite features.
        y : array_like of shape (n_samples,)
            Their labels, each one of ``classes_``.

        Returns
        -------
        SelectiveOutcomes
            Boolean arrays ``base_wrong`` (phase 1 wrong), ``selective_wrong`` (accepted and
            wrong) and ``rejected``, the inputs of :func:`gcul_theory.utility_confidence_bounds`.

        Raises
        ------
        ValueError
            A label outside ``classes_``; bad ``X``.
        """
        X = self._validated(X)
        y = column_or_1d(y)
        check_consistent_length(X, y)
        y_encoded = encode_known_labels(y, self.classes_, "y")
        with single_threaded_blas():
            base_wrong = self.phase1_.predict(X) != y_encoded
            selective = self.phase3_.predict(X)
        rejected = selective == self.n_classes_
        return SelectiveOutcomes(base_wrong, (selective != y_encoded) & ~rejected, rejected)

    def certify(self, X_cal, y_cal, lam: float = 0.15, delta: float = 0.05) -> Certificate:
        """Certify on held-out data that rejecting pays at cost ``lam``, with risk ``delta``.

        :func:`simulations.certification.certify` of this fitted model, which see (the
        guarantee, and the same for a fitted ``Pipeline`` ending in a GCUL).

        Parameters
        ----------
        X_cal : array_like of shape (n, n_features)
            Calibration features, *not* used in ``fit`` (iid with the deployment data).
        y_cal : array_like of shape (n,)
            Their labels, each one of ``classes_``.
        lam : float, default=0.15
            Relative rejection cost λ ∈ [0, 1) (not the estimator's ``lam``, which only
            :meth:`score` uses).
        delta : float, default=0.05
            Risk δ ∈ (0, 1).

        Returns
        -------
        Certificate
            λ*_CERT, the one-sided (1 − δ) bounds on U(lam), ``feasible``, ``n``, ``lam``,
            ``delta``.
        """
        return certify(self, X_cal, y_cal, lam=lam, delta=delta)

    def certify_cross_fit(
        self, X, y, lam: float = 0.15, delta: float = 0.05, n_splits: int = 5, seed: int = 0
    ) -> CrossFitCertificate:
        """Certify by K-fold cross-fitting, for users with no spare calibration data.

        :func:`simulations.certification.certify_cross_fit` of this estimator, which see (the
        guarantee, the folds): a clone is fitted on each fold's training part and judged on the
        fold; ``self`` is neither used as a fitted model nor modified.

        Parameters
        ----------
        X, y : array_like of shape (n_samples, n_features) and (n_samples,)
            All the labelled data there is; every class in every fold's training part.
        lam, delta, n_splits, seed : float, float, int, int
            Cost λ ∈ [0, 1), total risk δ ∈ (0, 1), folds K ∈ [2, n_samples], seed of the
            random folds ∈ ``[0, 2**32)``: as :func:`~simulations.certification.certify_cross_fit`.

        Returns
        -------
        CrossFitCertificate
        """
        return certify_cross_fit(self, X, y, lam=lam, delta=delta, n_splits=n_splits, seed=seed)



def fit_in_place(model: GCUL, X: np.ndarray, y) -> GCUL:
    """``model.fit(X, y)``, letting phase 2's K-Means scale and centre ``X`` in place.

    For a caller that owns ``X`` and needs it no more (:func:`simulations.compare.compare`
    gathers each split's training rows into a new float64 array, fits, then gathers them again):
    when validation leaves a large float64 ``X`` as it is (finite, C-contiguous, writeable), the
    memory-lean K-Means works in ``X`` itself instead of a copy, after phase 1 has used it. The
    same fit, bit for bit, with one copy of ``X`` less at the peak.

    Parameters
    ----------
    model : GCUL
        The estimator to fit (its parameters are checked as :meth:`GCUL.fit` checks them).
    X : ndarray of shape (n_samples, n_features)
        Training features; afterwards they hold garbage when the in-place path was taken.
    y : array_like of shape (n_samples,)
        Observed labels, as for :meth:`GCUL.fit`.

    Returns
    -------
    GCUL
        ``model``, fitted.
    """
    return model._fit(X, y, overwrite_X=True)
