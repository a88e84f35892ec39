"""What the trained linear rejectors share: whitened features and the two optimisers.

``selectivenet`` and ``deep_gamblers`` are linear models trained on a loss of their own. Both work
on whitened features (:class:`Whitening`: the model class is unchanged, only its parametrisation,
and L-BFGS then needs a few dozen iterations instead of hundreds), and both can be trained by

- :func:`adam`: mini-batch Adam as PyTorch's ``torch.optim.Adam`` with its defaults
  (β = (0.9, 0.999), ε = 1e-8, no weight decay, bias-corrected moments), a fresh permutation of the
  training rows each epoch and a last, smaller batch when the batch size does not divide n
  (``DataLoader(shuffle=True, drop_last=False)``): the protocol of ``tab:experimental_parameters``
  of the GCUL paper (30 epochs, lr 1e-3, batch 256);
- :func:`lbfgs`: full-batch L-BFGS on the same objective, ``scipy.optimize.minimize(
  method="L-BFGS-B")`` bit for bit (:func:`simulations.models.lbfgsb_minimize`: SciPy's core
  without ``minimize``'s wrappers).

A loss is a callable ``loss(theta, rows) -> (value, gradient)`` on a flat parameter vector and the
training rows of one (mini-)batch (``None``: all of them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from simulations.models import lbfgsb_minimize

__all__ = [
    "Whitening",
    "adam",
    "check_solver_arguments",
    "lbfgs",
    "pytorch_linear_init",
    "whitening",
]

Loss = Callable[[np.ndarray, np.ndarray | None], tuple[float, np.ndarray]]


class Whitening(NamedTuple):
    """The affine map ``z = (x - mean) @ A`` to centred features of identity covariance.

    ``A = U diag(a)`` from the eigendecomposition ``Cov(X) = U diag(s) U^T`` (``ddof = 0``) with
    ``a_j = s_j**-0.5``, or ``a_j = 1`` on directions of variance below ``1e-10`` times the largest
    (on which the centred training data is constant, numerically).
    """

    mean: np.ndarray
    A: np.ndarray

    def design(self, X: np.ndarray) -> np.ndarray:
        """``[z, 1]`` for every row of ``X``, transposed: shape ``(d + 1, n)``, C-contiguous."""
        d = self.mean.shape[0]
        ZT = np.empty((d + 1, X.shape[0]))
        np.dot(self.A.T, X.T, out=ZT[:d])
        ZT[:d] -= (self.mean @ self.A)[:, None]
        ZT[d] = 1.0
        return ZT

    def coefficients_from_raw(self, coef: np.ndarray, intercept: np.ndarray) -> np.ndarray:
        """Rows ``[V, b']`` in whitened coordinates of the linear scores ``coef @ x + intercept``.

        ``coef @ x + b = V z + b'`` with ``V = coef @ A^{-T}`` and ``b' = b + coef @ mean``;
        ``A^{-T} = U diag(1/a)``.
        """
        a = np.sqrt(np.sum(self.A**2, axis=0))  # columns of A = U diag(a) have norm a_j
        U = self.A / a
        V = (coef @ U) / a
        return np.column_stack([V, intercept + coef @ self.mean])


def whitening(X: np.ndarray) -> Whitening:
    """The :class:`Whitening` of the rows of ``X`` (finite, shape ``(n, d)``)."""
    mean = X.mean(axis=0)
    centred = X - mean
    eigval, U = np.linalg.eigh(centred.T @ centred / X.shape[0])
    top = eigval[-1] if eigval[-1] > 0 else 1.0
    a = np.ones_like(eigval)
    keep = eigval > 1e-10 * top
    a[keep] = 1.0 / np.sqrt(eigval[keep])
    return Whitening(mean=mean, A=U * a)


def pytorch_linear_init(rng: np.random.Generator, n_outputs: int, n_features: int) -> np.ndarray:
    """Rows ``[W, b]`` of shape ``(n_outputs, n_features + 1)`` drawn as ``torch.nn.Linear``'s
    default initialisation draws them: every entry uniform in ``±1/sqrt(n_features)``."""
    bound = 1.0 / np.sqrt(n_features)
    return rng.uniform(-bound, bound, (n_outputs, n_features + 1))


class Trained(NamedTuple):
    """Result of an optimiser: the parameters, the iterations (or steps) run, and whether the
    convergence criterion was met (Adam runs a fixed budget: always ``True``)."""

    theta: np.ndarray
    n_iter: int
    converged: bool


def adam(
    loss: Loss,
    theta0: np.ndarray,
    n_samples: int,
    rng: np.random.Generator,
    *,
    epochs: int = 30,
    lr: float = 1e-3,
    batch_size: int = 256,
    betas: tuple[float, float] = (0.9, 0.999),
    eps: float = 1e-8,
) -> Trained:
    """Mini-batch Adam from ``theta0``, as ``torch.optim.Adam`` with its defaults (module doc)."""
    theta = theta0.astype(np.float64, copy=True)
    first = np.zeros_like(theta)
    second = np.zeros_like(theta)
    beta1, beta2 = betas
    step = 0
    for _ in range(epochs):
        order = rng.permutation(n_samples)
        for start in range(0, n_samples, batch_size):
            _, grad = loss(theta, order[start : start + batch_size])
            step += 1
            first *= beta1
            first += (1.0 - beta1) * grad
            second *= beta2
            second += (1.0 - beta2) * grad * grad
            # PyTorch: theta -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
            denominator = np.sqrt(second) / np.sqrt(1.0 - beta2**step) + eps
            theta -= (lr / (1.0 - beta1**step)) * first / denominator
    return Trained(theta, step, True)


def check_solver_arguments(solver: Any, seed: Any, gtol: Any) -> np.random.SeedSequence:
    """Check the optimiser's arguments of a linear rejector's fit; return ``seed`` as a SeedSequence.

    What ``fit_selectivenet`` and ``fit_deep_gamblers`` both take: ``solver`` (``"adam"`` or
    ``"lbfgs"``), ``seed`` (a SeedSequence, or an int >= 0 that seeds one) and L-BFGS's ``gtol``
    (a finite number > 0).

    Raises
    ------
    ValueError
        A ``gtol`` that is not a finite number > 0 (any type), or another ``solver``.
    TypeError
        A ``seed`` that is neither a SeedSequence nor an int >= 0.

    Examples
    --------
    >>> check_solver_arguments("lbfgs", 7, 1e-4).entropy
    7
    >>> check_solver_arguments("sgd", 7, 1e-4)
    Traceback (most recent call last):
    ...
    ValueError: solver must be 'adam' or 'lbfgs'; got 'sgd'
    """
    if isinstance(gtol, bool) or not isinstance(gtol, (int, float)) or not 0 < gtol < np.inf:
        raise ValueError(f"gtol must be a finite number > 0; got {gtol!r}")
    if solver not in ("adam", "lbfgs"):
        raise ValueError(f"solver must be 'adam' or 'lbfgs'; got {solver!r}")
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0:
        seed = np.random.SeedSequence(int(seed))
    if not isinstance(seed, np.random.SeedSequence):
        raise TypeError(f"seed must be a SeedSequence or an int >= 0; got {seed!r}")
    return seed


def lbfgs(loss: Loss, theta0: np.ndarray, *, max_iter: int = 500, gtol: float = 1e-5) -> Trained:
    """Full-batch L-BFGS-B from ``theta0`` (no bounds); stops when the largest gradient entry is
    at most ``gtol`` (features whitened: about unit scale), on a relative decrease below
    ``64 eps``, or after ``max_iter`` iterations."""
    result = lbfgsb_minimize(
        lambda theta: loss(theta, None),
        theta0,
        maxiter=max_iter,
        gtol=gtol,
        ftol=64 * np.finfo(np.float64).eps,
        maxls=50,
    )
    return Trained(result.x, result.nit, result.status == 0)
