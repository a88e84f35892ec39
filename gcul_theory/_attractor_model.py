r"""The single-attractor model that :func:`gcul_theory.finite_sample_lambda` assumes, as a sampler,
and the Monte Carlo replications that check its promise.

C class cores :math:`N(\mathrm{gap}\, e_c, I)` in :math:`\mathbb{R}^d` (``n_core`` samples each,
labelled and predicted c) and ``n_att`` attractor samples :math:`N(0, \Sigma)` with labels and
predictions drawn uniformly and independently (about ``n_att (1 - 1/C)`` of them errors, whose law
is the attractor's). :math:`\Sigma` is diagonal: ``scale²`` on the class directions
:math:`e_1..e_C`, 1 elsewhere. The population centres are the attractor's mean 0 and the means of
the correct samples, ``gap e_c * n_core / (n_core + n_att / C²)`` (each core pulled towards 0 by
its expected chance-correct attractor samples).

The tests of ``finite_sample_lambda`` and its coverage study
(``benchmarks/finite_sample_coverage.py``) draw from :class:`SingleAttractorModel`, so both see
the same numbers from the same generator.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._finite_sample import FiniteSampleBound, finite_sample_lambda
from ._validation import as_float_array, as_float_scalar, as_generator, as_int

__all__ = ["SingleAttractorModel"]


@dataclass(frozen=True)
class SingleAttractorModel:
    r"""The model :func:`gcul_theory.finite_sample_lambda` assumes: class cores and one attractor.

    Parameters
    ----------
    d : int
        Dimension, at least ``C``.
    C : int
        Number of classes, at least 2.
    gap : float
        Distance ``> 0`` of each class core ``gap e_c`` from the attractor's mean 0.
    n_core : int
        Samples per class core (labelled and predicted c), at least 1.
    n_att : int
        Attractor samples, at least 0; their labels and predictions are independent uniform
        draws, so about ``n_att (1 - 1/C)`` of them are errors.
    scale : float, default=1.0
        Standard deviation ``> 0`` of the attractor along the class directions e_1..e_C (1
        elsewhere): ``scale > 1`` spreads the error pool along the directions that decide
        its capture.

    Raises
    ------
    TypeError, ValueError
        For an argument outside its range (the message names it).

    Notes
    -----
    The error pool is the attractor's errors, so a fresh error is *captured* when it lies
    nearer to the attractor's population centre 0 than to every other (:attr:`centres`):
    the capture rate :math:`r_1` that :func:`finite_sample_lambda` bounds from below, and the
    same cell's share of fresh correct samples the contamination :math:`r_2` it bounds from
    above. :meth:`replications` checks that promise.

    Examples
    --------
    >>> model = SingleAttractorModel(d=4, C=2, gap=3.0, n_core=5, n_att=6)
    >>> Z, y, y_pred = model.draw(np.random.default_rng(0))
    >>> Z.shape, y.shape, model.cores.tolist()[1], model.std.tolist()
    ((16, 4), (16,), [0.0, 3.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0])
    >>> model.captured(np.array([[0.1, 0.2, 0.0, 0.0], [0.2, 2.9, 0.0, 0.0]])).tolist()
    [True, False]
    """

    d: int
    C: int
    gap: float
    n_core: int
    n_att: int
    scale: float = 1.0

    def __post_init__(self) -> None:
        C = as_int(self.C, "C", lower=2)
        object.__setattr__(self, "C", C)
        object.__setattr__(self, "d", as_int(self.d, "d", lower=C))
        object.__setattr__(self, "n_core", as_int(self.n_core, "n_core", lower=1))
        object.__setattr__(self, "n_att", as_int(self.n_att, "n_att", lower=0))
        for name in ("gap", "scale"):
            value = as_float_scalar(getattr(self, name), name, lower=0.0, lower_open=True)
            object.__setattr__(self, name, value)

    @property
    def std(self) -> np.ndarray:
        """The attractor's standard deviation per coordinate, shape ``(d,)``: ``scale`` on
        e_1..e_C, 1 elsewhere."""
        std = np.ones(self.d)
        std[: self.C] = self.scale
        return std

    @property
    def cores(self) -> np.ndarray:
        """The class cores' means ``gap e_c``, shape ``(C, d)``."""
        return self.gap * np.eye(self.C, self.d)

    @property
    def centres(self) -> np.ndarray:
        """The C + 1 population centres, shape ``(C + 1, d)``, the attractor's (0) first: each
        core's mean pulled towards 0 by its ``n_att / C²`` expected chance-correct attractor
        samples."""
        n_chance = self.n_att / self.C  # expected chance-correct attractor samples
        C, d = self.C, self.d
        return np.vstack(
            [np.zeros(d), self.gap * np.eye(C, d) * self.n_core / (self.n_core + n_chance / C)]
        )

    def draw(self, rng: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One training sample of the model: ``(Z, y, y_pred)``, the arguments of
        :func:`finite_sample_lambda`.

        ``Z`` (shape ``(C n_core + n_att, d)``) stacks the C cores (``n_core`` rows each, core c
        around ``cores[c]``) and the ``n_att`` attractor rows (standard normal times
        :attr:`std`); ``y`` and ``y_pred`` are c on the cores and independent uniform draws on
        the attractor. ``rng`` seeds :func:`numpy.random.default_rng` (a Generator is used as
        is, its stream advances).
        """
        return self._draw(as_generator(rng))

    def _draw(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        C, d, n_core, n_att = self.C, self.d, self.n_core, self.n_att
        cores, std = self.cores, self.std
        Z = np.vstack(
            [rng.normal(0, 1, (n_core, d)) + cores[c] for c in range(C)]
            + [rng.normal(0, 1, (n_att, d)) * std]
        )
        y = np.r_[np.repeat(np.arange(C), n_core), rng.integers(0, C, n_att)]
        y_pred = np.r_[np.repeat(np.arange(C), n_core), rng.integers(0, C, n_att)]
        return Z, y, y_pred

    def captured(self, points: Any) -> np.ndarray:
        """Whether each point (a row of shape ``(n, d)``) is nearer to the attractor's centre
        0 than to every other population centre (:attr:`centres`; a tie counts as captured,
        the attractor's centre coming first)."""
        points = as_float_array(points, "points")
        if points.ndim != 2 or points.shape[1] != self.d:
            raise ValueError(
                f"points must have shape (n, d) = (n, {self.d}); got shape {points.shape}"
            )
        return self._captured(points, self.centres)

    @staticmethod
    def _captured(points: np.ndarray, centres: np.ndarray) -> np.ndarray:
        scores = -2.0 * points @ centres.T + np.sum(centres * centres, axis=1)[None, :]
        return np.argmin(scores, axis=1) == 0

    def replications(
        self, rng: Any, reps: int, delta: float = 0.05, n_boot: int = 200
    ) -> Iterator[tuple[FiniteSampleBound, np.float64, np.float64]]:
        """``reps`` replications of the promise of :func:`finite_sample_lambda`, drawn from
        ``rng``.

        Each draws a training sample (:meth:`draw`), computes the bound (``delta``,
        ``n_boot``, the same ``rng``), then a fresh pool of ``n_errors`` attractor errors and
        ``n_correct`` correct samples of the model, and yields ``(bound, capture,
        contamination)``: the share of the fresh errors :meth:`captured` and the share of the
        fresh correct samples captured. The promise is violated in a replication where
        ``capture < bound.r1_lower`` or ``contamination > bound.r2_upper``; it holds when at
        most a share δ of the replications violate it, up to their binomial spread.

        ``rng`` seeds :func:`numpy.random.default_rng` (a Generator is used as is); ``reps``
        is at least 1; ``delta`` and ``n_boot`` are checked by :func:`finite_sample_lambda`.
        """
        rng = as_generator(rng)
        reps = as_int(reps, "reps", lower=1)
        return self._replications(rng, reps, delta, n_boot)

    def _replications(
        self, rng: np.random.Generator, reps: int, delta: float, n_boot: int
    ) -> Iterator[tuple[FiniteSampleBound, np.float64, np.float64]]:
        C, d, n_core = self.C, self.d, self.n_core
        n_chance = self.n_att / C
        centres, cores, std = self.centres, self.cores, self.std
        for _ in range(reps):
            Z, y, y_pred = self._draw(rng)
            bound = finite_sample_lambda(Z, y, y_pred, delta=delta, n_boot=n_boot, rng=rng)
            capture = self._captured(rng.normal(0, 1, (bound.n_errors, d)) * std, centres).mean()
            k = rng.binomial(bound.n_correct, n_chance / (C * n_core + n_chance))
            labels = rng.integers(0, C, bound.n_correct - k)
            correct = np.vstack(
                [
                    rng.normal(0, 1, (k, d)) * std,
                    rng.normal(0, 1, (bound.n_correct - k, d)) + cores[labels],
                ]
            )
            yield bound, capture, self._captured(correct, centres).mean()
