"""Protocol-shaped test data shared by test_models.py and test_gcul.py."""

from __future__ import annotations

import functools

import numpy as np

N_CLASSES, N_FEATURES = 5, 10


@functools.cache
def protocol_data(seed: int, sigma: float, n_per_class: int = 2000):
    """One cell of the synthetic protocol (the appendix "Synthetic phase-transition verification" of the GCUL paper), as a dict of arrays.

    K = 5 classes in d = 10: centres uniform in [-10, 10]^d, class k ~ N(centre_k, 1.5^2 I), a
    confusion blob of the same size at the mean of the centres with uniform labels, feature
    noise N(0, sigma^2 I), a 0.025 sigma share of training labels flipped to another class,
    random 80/20 split.
    """
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-10.0, 10.0, size=(N_CLASSES, N_FEATURES))
    X = np.concatenate(
        [rng.normal(c, 1.5, (n_per_class, N_FEATURES)) for c in centres]
        + [rng.normal(centres.mean(axis=0), 1.5, (n_per_class, N_FEATURES))]
    )
    y = np.concatenate(
        [np.repeat(np.arange(N_CLASSES), n_per_class), rng.integers(0, N_CLASSES, n_per_class)]
    )
    blob = np.arange(len(y)) >= N_CLASSES * n_per_class
    X = X + sigma * rng.standard_normal(X.shape)
    order = rng.permutation(len(y))
    n_train = int(0.8 * len(y))
    train, test = order[:n_train], order[n_train:]
    y_train = y[train].copy()
    flip = rng.random(n_train) < 0.025 * sigma
    y_train[flip] = (y_train[flip] + rng.integers(1, N_CLASSES, n_train)[flip]) % N_CLASSES
    return {
        "X_train": X[train],
        "y_train": y_train,
        "X_test": X[test],
        "y_test": y[test],
        "blob_train": blob[train],
        "blob_test": blob[test],
    }
