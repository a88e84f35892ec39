"""Small test data written once and shared by several test modules (issue 33 item 6).

- :func:`feasibility_blobs`: what ``gcul feasibility`` is tested on (test_feasibility_assess.py,
  test_feasibility_cli.py, test_cli_inputs.py, test_cli.py).
- :func:`confusion_blobs`: what GCUL is fitted on where a test needs it to reject
  (test_estimator_api.py, test_gcul.py, test_certified.py).
"""

from __future__ import annotations

import numpy as np


def feasibility_blobs(n: int = 200, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two class cores at (-8, 0) and (8, 0) and a confusion blob at the origin with uniform
    labels, which phase 1's predictions get wrong on every row (3n rows): ``(Z, y, y_pred)``."""
    rng = np.random.default_rng(seed)
    centres = np.array([[-8.0, 0.0], [8.0, 0.0], [0.0, 0.0]])
    Z = np.vstack([rng.normal(c, 1.0, (n, 2)) for c in centres])
    y = np.r_[np.zeros(n, int), np.ones(n, int), rng.integers(0, 2, n)]
    y_pred = np.r_[np.zeros(n, int), np.ones(n, int), 1 - y[2 * n :]]
    return Z, y, y_pred


def confusion_blobs(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Three classes at (-6, 0), (6, 0) and (0, 8) and a confusion blob at their mean with
    uniform labels, which GCUL rejects (4n rows, 2 features): ``(X, y)``. Draws from ``rng``,
    which the caller may go on drawing from."""
    centres = np.array([[-6.0, 0.0], [6.0, 0.0], [0.0, 8.0]])
    X = np.concatenate(
        [rng.normal(c, 1.0, (n, 2)) for c in centres]
        + [rng.normal(centres.mean(axis=0), 1.0, (n, 2))]
    )
    y = np.concatenate([np.repeat([0, 1, 2], n), rng.integers(0, 3, n)])
    return X, y
