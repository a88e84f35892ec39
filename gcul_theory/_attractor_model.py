r"""The single-attractor model that :func:`gcul_theory.finite_sample_lambda` assumes, as a sampler,
and the Monte Carlo replications that check its promise.

C class cores :math:`N(\mathrm{gap}\, e_c, I)` in :math:`\mathbb{R}^d` (``n_core`` samples each,
labelled and predicted c) and ``n_att`` attractor samples :math:`N(0, \Sigma)` with labels and
predictions drawn uniformly and independently (about ``n_att (1 - 1/C)`` of them errors, whose law
is the attractor's). :math:`\Sigma` is diagonal: ``scale²`` on the class directions
:math:`e_1..e_C`, 1 elsewhere. The population centres are the attractor's mean 0 and the means of
the correct samples, ``gap e_c * n_core / (n_core + n_att / C²)`` (each core pulled towards 0 by
its expected chance-correct attractor samples).

Not API: one sampler for the tests of ``finite_sample_lambda`` (``tests/test_finite_sample.py``)
and its coverage study (``benchmarks/finite_sample_coverage.py``), which must draw the same
numbers from the same generator.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ._finite_sample import FiniteSampleBound, finite_sample_lambda

__all__ = [
    "attractor_std",
    "captured",
    "draw_single_attractor",
    "population_centres",
    "replications",
]


def attractor_std(d: int, C: int, scale: float = 1.0) -> np.ndarray:
    """The attractor's standard deviation per coordinate: ``scale`` on e_1..e_C, 1 elsewhere."""
    std = np.ones(d)
    std[:C] = scale
    return std


def draw_single_attractor(
    rng: np.random.Generator, d: int, C: int, gap: float, n_core: int, n_att: int,
    scale: float = 1.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """One training sample of the model: ``(Z, y, y_pred, cores, std)``.

    ``Z`` stacks the C cores (``n_core`` rows each, core c at ``cores[c] = gap e_c``) and the
    ``n_att`` attractor rows (standard normal times ``std``, :func:`attractor_std`); ``y`` and
    ``y_pred`` are c on the cores and independent uniform draws on the attractor.

    Examples
    --------
    >>> Z, y, y_pred, cores, std = draw_single_attractor(np.random.default_rng(0), 4, 2, 3.0, 5, 6)
    >>> Z.shape, y.shape, cores.tolist()[1], std.tolist()
    ((16, 4), (16,), [0.0, 3.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0])
    """
    std = attractor_std(d, C, scale)
    cores = gap * np.eye(C, d)
    Z = np.vstack(
        [rng.normal(0, 1, (n_core, d)) + cores[c] for c in range(C)]
        + [rng.normal(0, 1, (n_att, d)) * std]
    )
    y = np.r_[np.repeat(np.arange(C), n_core), rng.integers(0, C, n_att)]
    y_pred = np.r_[np.repeat(np.arange(C), n_core), rng.integers(0, C, n_att)]
    return Z, y, y_pred, cores, std


def population_centres(d: int, C: int, gap: float, n_core: int, n_att: int) -> np.ndarray:
    """The C + 1 population centres, the attractor's (0) first: each core's mean pulled towards
    0 by its ``n_att / C²`` expected chance-correct attractor samples."""
    n_chance = n_att / C  # expected chance-correct attractor samples
    return np.vstack([np.zeros(d), gap * np.eye(C, d) * n_core / (n_core + n_chance / C)])


def captured(points: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Whether each point is nearer to ``centres[0]`` (the attractor's) than to every other."""
    scores = -2.0 * points @ centres.T + np.sum(centres * centres, axis=1)[None, :]
    return np.argmin(scores, axis=1) == 0


def replications(
    rng: np.random.Generator, reps: int, d: int, C: int, gap: float, n_core: int, n_att: int,
    scale: float, delta: float, n_boot: int,
) -> Iterator[tuple[FiniteSampleBound, np.float64, np.float64]]:  # fmt: skip
    """``reps`` replications of the promise of :func:`finite_sample_lambda`, drawn from ``rng``.

    Each draws a training sample (:func:`draw_single_attractor`), computes the bound
    (``delta``, ``n_boot``, the same ``rng``), then a fresh pool of ``n_errors`` attractor errors
    and ``n_correct`` correct samples of the model, and yields ``(bound, capture,
    contamination)``: the share of the fresh errors :func:`captured` by the attractor's centre
    and the share of the fresh correct samples it captures. The promise is violated in a
    replication where ``capture < bound.r1_lower`` or ``contamination > bound.r2_upper``.
    """
    n_chance = n_att / C
    centres = population_centres(d, C, gap, n_core, n_att)
    for _ in range(reps):
        Z, y, y_pred, cores, std = draw_single_attractor(rng, d, C, gap, n_core, n_att, scale)
        bound = finite_sample_lambda(Z, y, y_pred, delta=delta, n_boot=n_boot, rng=rng)
        capture = captured(rng.normal(0, 1, (bound.n_errors, d)) * std, centres).mean()
        k = rng.binomial(bound.n_correct, n_chance / (C * n_core + n_chance))
        labels = rng.integers(0, C, bound.n_correct - k)
        correct = np.vstack(
            [
                rng.normal(0, 1, (k, d)) * std,
                rng.normal(0, 1, (bound.n_correct - k, d)) + cores[labels],
            ]
        )
        yield bound, capture, captured(correct, centres).mean()
