r"""``mahalanobis``: distance to the nearest class mean under a shared covariance.

Fit (training split, observed labels :math:`y`): class means :math:`\mu_k`, and the shared
(tied) covariance :math:`\Sigma = \frac1n \sum_i (x_i - \mu_{y_i})(x_i - \mu_{y_i})^\top`
(maximum likelihood, as Lee et al. 2018) plus :math:`10^{-4} I` (``tab:experimental_parameters``
of the GCUL paper: "Cov regularization ε = 1e-4"; absolute, in the units of :math:`x`).
Score: :math:`-\min_k d_k(x)` with :math:`d_k(x) = \lVert L^{-1}(x - \mu_k)\rVert_2`,
:math:`\Sigma = L L^\top` (Cholesky); the score of Lee et al. is :math:`-\min_k d_k^2`, a
strictly increasing transform of this one, so the rankings are the same. Prediction: the class of
the nearest mean, :math:`\arg\min_k d_k(x)` (the first on ties): the rejector's own classifier
(linear discriminant analysis with equal priors), not phase 1's. No natural operating point at
a cost λ (the paper sets it by a retained percentage).

References
----------
.. [1] K. Lee, K. Lee, H. Lee and J. Shin, "A simple unified framework for detecting
   out-of-distribution samples and adversarial attacks", NeurIPS 2018.
"""

from __future__ import annotations

import numpy as np
from scipy import linalg

from simulations import registry
from simulations.rejectors._base import FittedRejector, Rejector, RejectorContext

__all__ = ["COVARIANCE_REGULARIZATION", "FittedMahalanobis", "REJECTOR", "fit"]

COVARIANCE_REGULARIZATION = 1e-4
"""ε added to the diagonal of the shared covariance (``tab:experimental_parameters``)."""


class FittedMahalanobis(FittedRejector):
    """Class means and the Cholesky factor of the regularised shared covariance.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Training features, as validated by :class:`RejectorContext` (finite float64).
    y : ndarray of shape (n,)
        Labels in ``0..K-1`` (int64); a class without a sample has no mean and is never the
        nearest.
    n_classes : int
        ``K``.
    regularization : float, default=COVARIANCE_REGULARIZATION
        ε ≥ 0 added to the diagonal.

    Attributes
    ----------
    means_ : ndarray of shape (K', d)
        Means of the ``K'`` classes that occur in ``y``; ``classes_`` holds their labels.
    covariance_ : ndarray of shape (d, d)
        :math:`\\Sigma + ε I`.
    cholesky_ : ndarray of shape (d, d)
        Its lower Cholesky factor :math:`L`.
    """

    name = "mahalanobis"

    def __init__(
        self,
        X: np.ndarray,
        y: np.ndarray,
        n_classes: int,
        regularization: float = COVARIANCE_REGULARIZATION,
    ) -> None:
        if not (np.isfinite(regularization) and regularization >= 0.0):
            raise ValueError(f"regularization must be a finite number >= 0; got {regularization!r}")
        super().__init__(X.shape[1], n_classes)
        counts = np.bincount(y, minlength=n_classes)
        classes = np.flatnonzero(counts)
        one_hot = (y == classes[:, None]).astype(np.float64)
        means = (one_hot @ X) / counts[classes, None]
        index = np.searchsorted(classes, y)
        centred = means[index]  # then X minus it, in place: one array of X's size, not two
        np.subtract(X, centred, out=centred)
        covariance = centred.T @ centred / X.shape[0]
        covariance[np.diag_indices_from(covariance)] += regularization
        try:
            cholesky = linalg.cholesky(covariance, lower=True)
        except linalg.LinAlgError as exc:
            raise ValueError(
                "the regularised shared covariance is not positive definite: a feature (or a "
                "combination of features) is constant within classes; use a regularization > 0"
            ) from exc
        self.classes_ = classes
        self.means_ = means
        self.covariance_ = covariance
        self.cholesky_ = cholesky
        # whitened class means L^-1 mu_k, shape (d, K')
        self._white_means = linalg.solve_triangular(cholesky, means.T, lower=True)

    def distances(self, X: np.ndarray) -> np.ndarray:
        """Mahalanobis distances :math:`d_k(x)` to every class mean, shape ``(K', n)``."""
        white = linalg.solve_triangular(self.cholesky_, X.T, lower=True)  # (d, n)
        means = self._white_means.T[:, :, None]
        out = np.empty((means.shape[0], white.shape[1]))
        # differences first, then squares: no cancellation for points far from every mean; a
        # block of columns at a time (each distance is computed alone, so the blocks do not
        # change it), holding (K', d, block) <= about 2**22 differences instead of (K', d, n):
        # 2 GB for 11 classes, 768 features and 30,000 rows
        step = max(1, _BLOCK_DIFFERENCES // max(means.shape[0] * means.shape[1], 1))
        for start in range(0, white.shape[1], step):
            diff = white[None, :, start : start + step] - means  # (K', d, block)
            out[:, start : start + step] = np.einsum("kdn,kdn->kn", diff, diff)
        return np.sqrt(out)

    def _score_predict(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        distances = self.distances(X)
        nearest = np.argmin(distances, axis=0)
        score = -distances[nearest, np.arange(distances.shape[1])]
        return score, self.classes_[nearest].astype(np.int64)


_BLOCK_DIFFERENCES = 2**22  # differences held at once by FittedMahalanobis.distances


def fit(context: RejectorContext) -> FittedMahalanobis:
    """Fit the class means and shared covariance on ``context``'s training split."""
    return FittedMahalanobis(context.X_train, context.y_train, context.n_classes)


REJECTOR = Rejector(
    name="mahalanobis",
    label=registry.method("mahalanobis").label,
    description=(
        "-min_k Mahalanobis distance to the class means (shared covariance + 1e-4 I, observed "
        "labels); prediction: the nearest mean's class"
    ),
    operating_point=None,
    reference=(
        "Lee et al. 2018; the GCUL paper's table “Experimental parameter configurations for "
        "selective classification baselines and GCUL” (epsilon = 1e-4)"
    ),
    needs_truth=False,
    needs_target_coverage=False,
    fit=fit,
)
