"""GCUL's three phases on scikit-learn: the comparison point of the benchmark.

Same protocol as :class:`simulations.gcul.GCUL` (phase 1 ``LogisticRegression`` lbfgs with
``C=1`` and ``max_iter=500``; phase 2 ``KMeans`` from the same median initial centres,
``n_init=1``, ``max_iter=100``, Lloyd; the least pure cluster becomes uncertain; phase 3 on
K + 1 classes), exposing the fitted attributes that :func:`simulations.sweep.run_cell` reads.
scikit-learn is a test/benchmark dependency only; the package never imports this file.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression


class SklearnGCUL:
    """GCUL on scikit-learn estimators (no dimensionality reduction)."""

    def __init__(self, C: float = 1.0, max_iter: int = 500, kmeans_max_iter: int = 100):
        self.C = C
        self.max_iter = max_iter
        self.kmeans_max_iter = kmeans_max_iter

    def _logistic(self) -> LogisticRegression:
        return LogisticRegression(C=self.C, solver="lbfgs", max_iter=self.max_iter)

    def fit(self, X: np.ndarray, y: np.ndarray) -> SklearnGCUL:
        n_classes = int(y.max()) + 1
        with warnings.catch_warnings():
            # Heavily noised cells may stop at max_iter, exactly as in the package's pipeline.
            warnings.simplefilter("ignore", ConvergenceWarning)
            phase1 = self._logistic().fit(X, y)
            y_pred = phase1.predict(X)
            error_mask = y_pred != y
            init = [
                np.median(X[y_pred == c] if np.any(y_pred == c) else X[y == c], axis=0)
                for c in range(n_classes)
            ]
            if error_mask.any():
                init.append(np.median(X[error_mask], axis=0))
            init = np.stack(init)
            km = KMeans(
                n_clusters=len(init), init=init, n_init=1, max_iter=self.kmeans_max_iter, algorithm="lloyd"
            ).fit(X)
            labels = km.labels_
            purities = np.full(len(init), np.nan)
            for k in range(len(init)):
                members = y[labels == k]
                if members.size:
                    purities[k] = np.bincount(members, minlength=n_classes).max() / members.size
            if error_mask.any():
                uncertain = int(np.nanargmin(purities))
                phase3 = self._logistic().fit(X, np.where(labels == uncertain, n_classes, y))
            else:
                uncertain, phase3 = None, phase1
        self.n_classes_ = n_classes
        self.phase1_ = phase1
        self.error_mask_ = error_mask
        self.cluster_labels_ = labels
        self.purities_ = purities
        self.uncertain_cluster_ = uncertain
        self.phase3_ = phase3
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.phase3_.predict(X)
