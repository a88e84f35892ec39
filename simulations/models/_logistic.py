"""Multinomial L2 logistic regression fitted by L-BFGS on a whitened design (NumPy/SciPy),
with scikit-learn's estimator API."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning as _SklearnConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from ._blas import single_threaded_blas
from ._design import ScaledDesign, WhitenedMultinomialLoss, scaled_design
from ._lbfgsb import lbfgsb
from ._numerics import encode_labels, first_argmin, power_of_two_exponent
from ._validation import check_positive, validate_features

__all__ = [
    "ConvergenceWarning",
    "LogisticRegression",
    "fit_design",
    "scaled_negative_scores",
    "softmax_of_negative_scores",
]


class ConvergenceWarning(_SklearnConvergenceWarning):
    """An iterative solver stopped before meeting its convergence criterion.

    A subclass of scikit-learn's ``sklearn.exceptions.ConvergenceWarning`` (itself a
    ``UserWarning``), so a filter on either catches it.
    """


# cap on the penalty metric a_j of the coefficients of X (a_j**2 <= 2**600), so the penalty stays
# finite: a_j above it means a variance of X below 2**-600 (about 2e-181) along that direction,
# where a penalty of at least 2**600 / (C n) already holds that coefficient at zero unless C is
# astronomically large
_MAX_PENALTY_METRIC = 2.0**300


class LogisticRegression(ClassifierMixin, BaseEstimator):
    r"""Multinomial logistic regression with an L2 penalty, fitted by L-BFGS.

    Minimises the objective of scikit-learn's ``LogisticRegression(C=C, solver="lbfgs")`` for
    three or more classes (full softmax over ``K`` classes, unpenalised intercept; for two
    classes see Notes):

    .. math::

        \frac{1}{n}\sum_{i=1}^{n}\Bigl[\log\sum_{k} e^{w_k^\top x_i + b_k}
        - (w_{y_i}^\top x_i + b_{y_i})\Bigr] + \frac{1}{2Cn}\lVert W\rVert_F^2 ,

    which is :math:`C\sum_i \ell_i + \tfrac12\lVert W\rVert_F^2` divided by :math:`Cn`, so its
    minimiser is the same. It is strictly convex in :math:`W` and in the intercepts up to a common
    shift, which stays zero (the intercepts sum to zero), as in scikit-learn.

    Parameters
    ----------
    C : float, default=1.0
        Inverse regularisation strength, > 0.
    max_iter : int, default=500
        Maximum number of L-BFGS iterations.
    tol : float, default=1e-4
        L-BFGS-B ``gtol``: the fit stops when the largest absolute entry of the gradient of the
        objective above, taken in the whitened coordinates described in Notes, is at most
        ``tol``. Whitening makes it independent of the units of the features; see Notes for how
        close to the optimum it stops compared with scikit-learn.

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
        Sorted distinct labels seen in ``fit``: any labels scikit-learn accepts for
        classification (integers, strings, integral floats), encoded inside ``fit``.
    coef_ : ndarray of shape (K, n_features)
        Coefficients :math:`W` in the original feature space, one row per class (two rows for
        two classes as well; see Notes).
    intercept_ : ndarray of shape (K,)
        Intercepts :math:`b` (they sum to zero).
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape ``(n_features_in_,)``
        Column names, when ``fit`` was given a DataFrame with string column names.
    n_iter_ : int
        Number of L-BFGS iterations run.
    converged_ : bool
        Whether L-BFGS met its convergence criterion. When it did not, ``fit`` also issues a
        :class:`ConvergenceWarning`.

    Notes
    -----
    The problem is solved in an equivalent, better conditioned parametrisation: the features
    are centred and whitened, :math:`z = A^\top (x - \bar x)` with :math:`A = U\,\mathrm{diag}(a)`
    from the eigendecomposition :math:`\mathrm{Cov}(X) = U\,\mathrm{diag}(s)\,U^\top`,
    :math:`a_j = s_j^{-1/2}` (and :math:`a_j = 1` on directions of zero variance). With
    :math:`W = V A^\top` the penalty is :math:`\sum_j a_j^2\lVert V_{:,j}\rVert^2`, so the
    objective is exactly the one above; the mean folds into the intercept, which is not
    penalised. On the synthetic protocol L-BFGS then needs 2-4 times fewer iterations than on
    raw features, each one a single fused pass (one product each way, a stable log-sum-exp).
    With fewer samples than features (:math:`n < d`) :math:`U` holds only the at most
    :math:`n - 1` directions the centred samples span, from an SVD of the :math:`n \times d`
    centred data: the fit costs :math:`O(n^2 d)` instead of :math:`O(d^3)`, and the optimum is
    the same, since a coefficient component orthogonal to every centred sample shifts a class's
    scores by a constant (absorbed by its intercept) and only adds to the penalty.

    Both solvers stop near, not at, the common optimum. On the synthetic protocol (seeds 10-19,
    σ = 0, 1, ..., 16, phase 1) scikit-learn's ``gtol=1e-4`` on raw features leaves its
    coefficients up to ``4e-3`` from the optimum, and this model's default ``tol=1e-4`` about
    as far (``tol=1e-5``: ``3e-4``, for about 30% more iterations). Their test predictions
    agree on 99.97% of the points overall (at worst 99.75% in one cell); scikit-learn's own
    predictions agree with those of the exact optimum on 99.985%.

    For two classes scikit-learn minimises the binomial objective
    :math:`C\sum_i \ell(u^\top x_i + \beta) + \tfrac12\lVert u\rVert^2` instead. Its minimiser
    is that of the two-class softmax objective with ``C / 2`` (rows :math:`\mp u/2`, intercepts
    :math:`\mp\beta/2`), which is what is fitted then: ``coef_`` keeps two rows, and
    ``coef_[1] - coef_[0]`` is scikit-learn's ``coef_[0]``. :meth:`decision_function` returns
    scikit-learn's binary shape ``(n_samples,)`` then: the score of ``classes_[1]`` minus that
    of ``classes_[0]``, positive where :meth:`predict` returns ``classes_[1]``.

    The estimator follows scikit-learn's API (``get_params``/``set_params``, ``clone``,
    ``Pipeline``, ``GridSearchCV``, ``NotFittedError`` before ``fit``, the input checks of
    ``sklearn.utils.validation.validate_data``); scikit-learn supplies that API only, the fit is
    the NumPy/SciPy code above. ``score`` is :class:`~sklearn.base.ClassifierMixin`'s mean
    accuracy.

    The L2 penalty is on the coefficients in the units of ``X``, so the fit is not invariant to
    the scale of ``X``: fitting :math:`sX` with ``C`` is fitting :math:`X` with :math:`Cs^2`
    (exactly so, bit for bit, when :math:`s` is a power of two). Features near ``1e300`` are
    therefore fitted essentially without penalty, and features near ``1e-300`` give zero
    coefficients and intercepts :math:`\log p_k` (centred) from the class frequencies
    :math:`p_k`. To keep both ends well conditioned the solver works on ``X`` times a power of
    two, and rescales a whitened direction whose penalty curvature exceeds 1 (it never does for
    data of ordinary scale); neither changes the objective.

    BLAS is limited to one thread during the fit when ``threadpoolctl`` is installed; see
    :func:`~simulations.models.single_threaded_blas`.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.concatenate([rng.normal(-2, 1, (50, 2)), rng.normal(2, 1, (50, 2))])
    >>> y = np.repeat([3, 7], 50)
    >>> model = LogisticRegression().fit(X, y)
    >>> model.classes_
    array([3, 7])
    >>> bool(model.converged_), float(np.mean(model.predict(X) == y)) > 0.95
    (True, True)
    >>> bool(np.allclose(model.predict_proba(X).sum(axis=1), 1.0))
    True
    >>> model.decision_function(X[:2]).shape  # two classes: scikit-learn's binary shape
    (2,)
    """

    def __init__(self, C: float = 1.0, max_iter: int = 500, tol: float = 1e-4):
        self.C = C
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, X, y) -> LogisticRegression:
        """Fit the model.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Finite, real training features.
        y : array_like of shape (n_samples,)
            Class labels: integers, strings or integral floats; at least two distinct values.

        Returns
        -------
        self : LogisticRegression

        Raises
        ------
        TypeError
            ``C``, ``max_iter`` or ``tol`` of the wrong type.
        ValueError
            Shapes, NaN/inf, complex or sparse ``X``, continuous ``y`` ("Unknown label type"),
            fewer than two classes, ``C``/``max_iter``/``tol`` not > 0 (scikit-learn's messages
            for the input checks).
        """
        self._check_params()
        X, y = validate_features(self, X, y, reset=True)
        if y.dtype.kind not in "iub":  # integer labels are classification targets: skip 0.7 ms
            check_classification_targets(y)
        with single_threaded_blas():
            return fit_design(self, scaled_design(X), y, stacklevel=2)

    def _check_params(self) -> tuple[float, int, float]:
        return (
            check_positive(self.C, "C"),
            check_positive(self.max_iter, "max_iter", integer=True),
            check_positive(self.tol, "tol"),
        )

    def _validated(self, X) -> np.ndarray:
        """``X`` checked against the fit (``NotFittedError`` before it), as a float64 matrix."""
        check_is_fitted(self, "coef_")
        return validate_features(self, X, reset=False)

    def decision_function(self, X) -> np.ndarray:
        """Linear scores :math:`x W^\\top + b`: shape ``(n_samples, K)``, or ``(n_samples,)``
        for two classes.

        For two classes the score is that of ``classes_[1]`` minus that of ``classes_[0]``
        (scikit-learn's binary convention): :meth:`predict` returns ``classes_[1]`` exactly
        where it is positive. The scores are computed with the operations of :meth:`predict`
        (:func:`scaled_negative_scores`), so their first argmax is its label, bit for bit. A
        score beyond the float64 range (``X`` near ``1e308``) is ``inf`` or ``-inf``, without
        a warning.
        """
        negative, shift = scaled_negative_scores(self, self._validated(X))
        if negative.shape[0] == 2:
            scores = negative[0] - negative[1]  # exact sign (a difference of floats)
        else:
            scores = np.ascontiguousarray(-negative.T)
            shift = shift[:, None]
        with np.errstate(over="ignore"):
            return np.ldexp(scores, shift)

    def predict_proba(self, X) -> np.ndarray:
        """Softmax class probabilities, shape ``(n_samples, K)``, columns ordered as ``classes_``.

        The softmax of the scores of :meth:`decision_function` (all ``K`` of them). A row whose
        scores overflow float64 gets the softmax of its exact scores (in practice one-hot on the
        class of largest score: the gaps between scores are then far beyond ``exp``'s range).
        """
        negative, shift = scaled_negative_scores(self, self._validated(X))
        return softmax_of_negative_scores(negative, shift)

    def predict(self, X) -> np.ndarray:
        """Most probable label of each row of ``X``, shape ``(n_samples,)``, from ``classes_``.

        Ties go to the first class in ``classes_``, as with ``np.argmax``. A row so large that
        a score overflows float64 (entries near ``1e308``) gets the class of largest exact
        score, compared after dividing the row's scores by a power of two (see
        :func:`scaled_negative_scores`): no warning, no NaN. The intercepts are then negligible,
        so such a row takes the class whose coefficient vector points furthest along it.
        """
        negative, _ = scaled_negative_scores(self, self._validated(X))
        return self.classes_[first_argmin(negative)]

    def _scaled_scores(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Scores of the rows of ``X`` divided by ``2**shift``, per row: ``(scores, shift)``.

        ``scores[i] = (W x_i + b) * 2**-shift[i]`` with ``shift[i] = f + e_i``, where
        ``2**f`` and ``2**e_i`` bound ``max |W|`` and ``max |x_i|``: computed as
        ``(W 2**-f)(x_i 2**-e_i) + b 2**-shift[i]``, every scaling exact, every product term
        below 1 in magnitude, so nothing overflows (for ``d`` below ``1e308`` features) and
        the order of the scores of a row is that of its exact scores, up to rounding. Used
        only for rows whose plain scores overflow, where ``shift[i] > 0``.
        """
        f = power_of_two_exponent(self.coef_)
        e = np.frexp(np.max(np.abs(X), axis=1))[1]
        shift = f + e
        scores = np.ldexp(X, -e[:, None]) @ np.ldexp(self.coef_, -f).T
        scores += np.ldexp(self.intercept_[None, :], -shift[:, None])
        return scores, shift


def scaled_negative_scores(
    model: LogisticRegression, X: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Negated scores of a fitted model on a validated ``X``, scaled where they overflow.

    Returns ``(negative, shift)``: ``negative`` of shape ``(K, n_samples)`` and ``shift`` of
    shape ``(n_samples,)`` (integers), such that ``-negative[:, i] * 2**shift[i]`` are the
    scores :math:`W x_i + b` of row ``i`` (the ``K`` columns in the order of
    ``model.classes_``). ``shift[i]`` is 0, and ``negative[:, i]`` is
    ``-(coef_ @ X.T)[:, i] - intercept_`` exactly as :meth:`LogisticRegression.predict`
    computes it, unless a score of row ``i``, or the gap between two of them, overflows
    float64; then the row's scores are
    computed divided by a power of two (:meth:`LogisticRegression._scaled_scores`), so that
    their order, their gaps and the softmax are those of the exact scores, up to rounding.
    :meth:`LogisticRegression.predict`, :meth:`~LogisticRegression.predict_proba`,
    :meth:`~LogisticRegression.decision_function` and GCUL's predictions all start here, so
    they agree bit for bit.

    Parameters
    ----------
    model : LogisticRegression
        A fitted model.
    X : ndarray of shape (n_samples, n_features)
        Finite float64 features, already checked against the fit.

    Returns
    -------
    negative : ndarray of shape (K, n_samples)
    shift : ndarray of shape (n_samples,)
    """
    with np.errstate(over="ignore", invalid="ignore"):
        negative = -(model.coef_ @ X.T)  # shape (K, n): one fast argmin over the classes
        negative -= model.intercept_[:, None]
        # a score, or a gap between two scores, beyond the float64 range (inf - inf is NaN)
        overflowed = ~np.isfinite(negative.max(axis=0) - negative.min(axis=0))
    shift = np.zeros(X.shape[0], dtype=np.int64)
    if overflowed.any():
        scaled, shift[overflowed] = model._scaled_scores(X[overflowed])
        negative[:, overflowed] = -scaled.T
    return negative, shift


def softmax_of_negative_scores(negative: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """Row-wise softmax, shape ``(n, K)``, of the scores ``-negative[:, i] * 2**shift[i]``
    (as :func:`scaled_negative_scores` returns them): each row's largest score is subtracted
    first, then the gaps are scaled back (a gap beyond the float64 range becomes ``-inf``,
    whose exponential is 0)."""
    scores = np.ascontiguousarray(-negative.T)
    scores -= scores.max(axis=1, keepdims=True)
    with np.errstate(over="ignore"):
        scores = np.ldexp(scores, shift[:, None])
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=1, keepdims=True)
    return scores


def fit_design(
    model: LogisticRegression, design: ScaledDesign, y: np.ndarray, *, stacklevel: int = 1
) -> LogisticRegression:
    """Fit ``model`` on the shared design of a validated ``X`` (:func:`scaled_design`) and return it.

    The body of :meth:`LogisticRegression.fit`, which builds the design itself; GCUL's phases 1
    and 3 fit on one ``X`` and build it once, and each fit is bit for bit the one
    :meth:`LogisticRegression.fit` would make. Call it with BLAS single-threaded
    (:func:`~simulations.models.single_threaded_blas`).

    Parameters
    ----------
    model : LogisticRegression
        The estimator to fit (its ``C``, ``max_iter`` and ``tol`` are checked here).
    design : ScaledDesign
        ``scaled_design(X)`` of a finite float64 ``X``.
    y : ndarray of shape (n_samples,)
        Class labels of the rows of ``X`` (any dtype :func:`numpy.unique` sorts), already
        checked to be classification targets.
    stacklevel : int, default=1
        A :class:`ConvergenceWarning` is attributed to the frame ``stacklevel`` levels up from
        this function (1: its caller), as ``warnings.warn`` counts.

    Returns
    -------
    LogisticRegression
        ``model``, fitted; ``n_features_in_`` is set, ``feature_names_in_`` is not.

    Raises
    ------
    TypeError, ValueError
        A bad parameter of ``model``; fewer than two classes in ``y``.
    """
    C, max_iter, tol = model._check_params()
    classes, y_encoded = encode_labels(y)
    if classes.size < 2:
        raise ValueError(f"y must contain at least two classes; got 1 class ({classes.tolist()})")
    n_classes = classes.size
    # the solver works on X * 2**-exponent (largest magnitude in [0.5, 1)): exact, and no
    # square of X overflows or underflows; the penalty stays that of the coefficients of X
    # (see Notes of LogisticRegression)
    exponent, ZT, A, a, mean = design
    n_features, n_samples = ZT.shape[0] - 1, ZT.shape[1]
    # two classes: scikit-learn fits the binomial model, whose optimum is the two-class
    # multinomial optimum for C / 2 (see Notes)
    C_multinomial = C / 2 if n_classes == 2 else C
    # the coefficients of X are those of the scaled X times 2**-exponent, so the metric
    # of the penalty is (a * 2**-exponent)**2 (capped: see _MAX_PENALTY_METRIC)
    with np.errstate(over="ignore"):
        a_penalty = np.minimum(np.ldexp(a, -exponent), _MAX_PENALTY_METRIC)
    # a direction whose penalty curvature a_j**2 / (C n) exceeds 1 (the data curvature is
    # at most about 1 in whitened coordinates) is rescaled so that it is 1: the same
    # objective, reparametrised, without which L-BFGS stalls at V = 0 when X is tiny
    # (say 1e-100). Every factor is 1 for data of ordinary scale: nothing changes then
    # (dividing by 1 is exact, so the shared ZT is used as it is).
    rescale = np.sqrt(np.maximum(a_penalty**2 / (C_multinomial * n_samples), 1.0))
    if np.any(rescale != 1.0):
        ZT = ZT.copy()
        ZT[:n_features] /= rescale[:, None]
    A = A / rescale
    a_penalty = a_penalty / rescale
    loss = WhitenedMultinomialLoss(ZT, y_encoded, n_classes, a_penalty, C_multinomial)
    result = lbfgsb(
        loss,
        np.zeros(n_classes * (n_features + 1)),
        maxiter=max_iter,
        maxls=50,
        gtol=tol,
        ftol=64 * np.finfo(float).eps,
    )
    theta = result.x.reshape(n_classes, n_features + 1)
    coef_scaled = theta[:, :n_features] @ A.T  # coefficients of X * 2**-exponent
    model.classes_ = classes
    model.coef_ = np.ldexp(coef_scaled, -exponent)
    model.intercept_ = theta[:, n_features] - coef_scaled @ mean
    model.n_features_in_ = model.coef_.shape[1]
    model.n_iter_ = int(result.nit)
    model.converged_ = bool(result.status == 0)
    if not model.converged_:
        warnings.warn(
            f"L-BFGS did not converge after {model.n_iter_} iterations "
            f"(max_iter={max_iter}, tol={tol}): {result.message}",
            ConvergenceWarning,
            stacklevel=stacklevel + 1,
        )
    return model
