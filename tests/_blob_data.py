"""Small test data written once and shared by several test modules (issue 33 item 6).

- :func:`feasibility_blobs`: what ``gcul feasibility`` is tested on (test_feasibility_assess.py,
  test_feasibility_cli.py, test_cli_inputs.py, test_cli.py).
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
