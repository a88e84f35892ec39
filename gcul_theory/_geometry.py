r"""Representation geometry of the error pool: :class:`Geometry` and :func:`estimate_geometry`.

The inputs of Theorem ``thm:global_rate_bounds`` of [1]_: base error :math:`\varepsilon`, class
priors :math:`\pi_c`, per-class error rates :math:`\varepsilon_c`, centroid distances
:math:`D_c = \|\mu_{mix} - \mu_c\|` and the directional spreads :math:`\sigma_{mix,c}`,
:math:`\sigma_c` along :math:`\hat d_c = (\mu_{mix} - \mu_c)/D_c`.

References
----------
.. [1] The GCUL paper, ``shared/paper/gcul_paper.tex``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from ._validation import as_float_array

__all__ = ["Geometry", "estimate_geometry"]

_IDENTITY_TOL = 1e-8


@dataclass(frozen=True, eq=False)
class Geometry:
    r"""Per-class geometry of the error pool relative to each class's clean core.

    Arrays have shape ``(..., C)`` (``eps`` has shape ``(...)``) so many geometries can be
    evaluated at once; the bound functions reduce over the last axis.

    Parameters
    ----------
    eps : float or ndarray
        Base error :math:`\varepsilon = |\mathcal E|/N \in [0, 1]`.
    pi : ndarray, shape (..., C)
        Class shares :math:`\pi_c` of the observed labels; non-negative, summing to 1.
    eps_c : ndarray, shape (..., C)
        Error rate within each class, :math:`\varepsilon_c \in [0, 1]`, with
        :math:`\sum_c \pi_c \varepsilon_c = \varepsilon`.
    D : ndarray, shape (..., C)
        Distance :math:`D_c \ge 0` from the error-pool mean to the mean of class c's correctly
        classified samples.
    sigma_mix : ndarray, shape (..., C)
        Standard deviation :math:`\sigma_{mix,c} \ge 0` of the error pool along :math:`\hat d_c`.
    sigma_c : ndarray, shape (..., C)
        Standard deviation :math:`\sigma_c \ge 0` of class c's correct samples along :math:`\hat d_c`.
    notes : tuple of str, optional
        Reasons for every degenerate value (see :func:`estimate_geometry`).
    corr_mix : ndarray, shape (..., C, C), optional
        Correlations :math:`R_{cc'} = \hat d_c^\top \Sigma_{mix} \hat d_{c'} /
        (\sigma_{mix,c}\sigma_{mix,c'})` of the error pool's projections on the class
        directions; symmetric, unit diagonal, entries in [-1, 1]. Needed by the predictors
        "hunter_worsley" and "gaussian_exact"; :func:`estimate_geometry` fills it. None by default.

    Raises
    ------
    ValueError
        If a value is out of range, not finite, shapes disagree, :math:`\pi` does not sum to
        1, or :math:`\sum_c \pi_c\varepsilon_c \ne \varepsilon` (tolerance 1e-8).

    Examples
    --------
    >>> from gcul_theory import Geometry, critical_lambda
    >>> g = Geometry(eps=0.1, pi=[0.5, 0.5], eps_c=[0.1, 0.1], D=[8.0, 8.0],
    ...              sigma_mix=[1.0, 1.0], sigma_c=[1.0, 1.0])
    >>> g.n_classes
    2
    >>> bool(critical_lambda(g, method="gaussian") > 0.9)
    True
    """

    eps: np.ndarray
    pi: np.ndarray
    eps_c: np.ndarray
    D: np.ndarray
    sigma_mix: np.ndarray
    sigma_c: np.ndarray
    notes: tuple[str, ...] = field(default=())
    corr_mix: np.ndarray | None = None

    def __post_init__(self) -> None:
        eps = as_float_array(self.eps, "eps", lower=0.0, upper=1.0)
        pi = as_float_array(self.pi, "pi", lower=0.0, upper=1.0)
        eps_c = as_float_array(self.eps_c, "eps_c", lower=0.0, upper=1.0)
        D = as_float_array(self.D, "D", lower=0.0)
        sigma_mix = as_float_array(self.sigma_mix, "sigma_mix", lower=0.0)
        sigma_c = as_float_array(self.sigma_c, "sigma_c", lower=0.0)
        if pi.ndim == 0:
            raise ValueError("pi must have a class axis (shape (..., C)); got a scalar")
        if pi.shape[-1] < 2:
            raise ValueError(f"the geometry needs at least two classes; got C={pi.shape[-1]}")
        for name, value in (
            ("eps_c", eps_c),
            ("D", D),
            ("sigma_mix", sigma_mix),
            ("sigma_c", sigma_c),
        ):
            if value.shape != pi.shape:
                raise ValueError(f"{name} must have the shape of pi {pi.shape}; got {value.shape}")
        if eps.shape != pi.shape[:-1]:
            raise ValueError(
                f"eps must have shape {pi.shape[:-1]} (pi without its class axis); got {eps.shape}"
            )
        total = pi.sum(axis=-1)
        if np.any(np.abs(total - 1.0) > _IDENTITY_TOL):
            raise ValueError(f"pi must sum to 1 over classes; got sum {total.flat[0]!r}")
        implied = (pi * eps_c).sum(axis=-1)
        mismatch = np.abs(implied - eps) > _IDENTITY_TOL
        if np.any(mismatch):
            raise ValueError(
                "eps must equal sum_c pi_c * eps_c; got eps="
                f"{eps[mismatch].flat[0]!r} but sum_c pi_c * eps_c={implied[mismatch].flat[0]!r}"
            )
        for name, value in (
            ("eps", eps),
            ("pi", pi),
            ("eps_c", eps_c),
            ("D", D),
            ("sigma_mix", sigma_mix),
            ("sigma_c", sigma_c),
        ):
            value.setflags(write=False)
            object.__setattr__(self, name, value)
        object.__setattr__(self, "notes", tuple(str(n) for n in self.notes))
        if self.corr_mix is not None:
            corr = _check_correlation(self.corr_mix, pi.shape)
            corr.setflags(write=False)
            object.__setattr__(self, "corr_mix", corr)

    @property
    def n_classes(self) -> int:
        """Number of classes C."""
        return int(self.pi.shape[-1])

    @property
    def weights(self) -> np.ndarray:
        r"""Error-pool shares :math:`w_c = \pi_c\varepsilon_c/\varepsilon` (0 where ε = 0)."""
        eps = self.eps[..., None]
        out = np.zeros(self.pi.shape)
        np.divide(self.pi * self.eps_c, eps, out=out, where=eps > 0.0)
        return out

    def __repr__(self) -> str:
        def fmt(a: np.ndarray) -> str:
            return np.array2string(np.asarray(a), precision=4, separator=", ")

        return (
            f"Geometry(eps={fmt(self.eps)}, pi={fmt(self.pi)}, eps_c={fmt(self.eps_c)}, "
            f"D={fmt(self.D)}, sigma_mix={fmt(self.sigma_mix)}, sigma_c={fmt(self.sigma_c)}, "
            f"notes={self.notes!r})"
        )


def _check_correlation(value: ArrayLike, pi_shape: tuple[int, ...]) -> np.ndarray:
    corr = as_float_array(value, "corr_mix", lower=-1.0, upper=1.0)
    expected = pi_shape + pi_shape[-1:]
    if corr.shape != expected:
        raise ValueError(
            f"corr_mix must have shape {expected} (pi's plus a class axis); got {corr.shape}"
        )
    if np.any(np.abs(corr - np.swapaxes(corr, -1, -2)) > _IDENTITY_TOL):
        raise ValueError("corr_mix must be symmetric in its last two axes; it is not")
    diagonal = np.diagonal(corr, axis1=-2, axis2=-1)
    off = np.abs(diagonal - 1.0) > _IDENTITY_TOL
    if np.any(off):
        raise ValueError(f"corr_mix must have a unit diagonal; got {diagonal[off].flat[0]!r}")
    return corr.copy()


def _projection_correlation(
    Z: np.ndarray, y: np.ndarray, errors: np.ndarray, D: np.ndarray, sigma_mix: np.ndarray
) -> np.ndarray:
    """``corr_mix`` from the error pool's covariance and the class directions.

    A class whose direction or spread is undefined (D = 0 or sigma_mix = 0) gets a zero row
    (independent of the others), consistent with its tail conventions.
    """
    n_classes = D.shape[0]
    corr = np.eye(n_classes)
    defined = np.flatnonzero((D > 0.0) & (sigma_mix > 0.0))
    if defined.size < 2:
        return corr
    Z_err = Z[errors]
    mu_mix = Z_err.mean(axis=0)
    directions = np.vstack([(mu_mix - Z[(~errors) & (y == c)].mean(axis=0)) / D[c] for c in defined])
    projections = (Z_err - mu_mix) @ directions.T
    cov = projections.T @ projections / (Z_err.shape[0] - 1)
    scale = np.sqrt(np.diag(cov))
    block = np.clip(cov / np.outer(scale, scale), -1.0, 1.0)
    block = 0.5 * (block + block.T)
    np.fill_diagonal(block, 1.0)
    corr[np.ix_(defined, defined)] = block
    return corr


def _labels(value: ArrayLike, name: str, n_samples: int) -> np.ndarray:
    array = np.asarray(value)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; got shape {array.shape}")
    if array.shape[0] != n_samples:
        raise ValueError(
            f"{name} must have one label per row of Z ({n_samples}); got {array.shape[0]}"
        )
    if array.dtype.kind == "f":
        if not np.all(np.isfinite(array)) or np.any(array != np.round(array)):
            raise ValueError(f"{name} must hold integer class labels; got non-integer values")
        array = array.astype(np.int64)
    elif array.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integer class labels; got dtype {array.dtype}")
    return array.astype(np.int64, copy=False)


def _directional_std(points: np.ndarray, direction: np.ndarray) -> float:
    return float(np.std(points @ direction, ddof=1))


def estimate_geometry(
    Z: ArrayLike, y: ArrayLike, y_pred: ArrayLike, n_classes: int | None = None
) -> Geometry:
    r"""Estimate the geometry of the error pool from representations, labels and predictions.

    Parameters
    ----------
    Z : array_like, shape (N, d)
        Representations (e.g. embeddings or features) of the training samples.
    y : array_like of int, shape (N,)
        Observed labels in ``0..C-1``.
    y_pred : array_like of int, shape (N,)
        Phase-1 predictions in ``0..C-1``.
    n_classes : int, optional
        Number of classes C (at least 2). Defaults to ``max(y, y_pred) + 1``.

    Returns
    -------
    Geometry
        With ``notes`` giving the reason for every degenerate value, and ``corr_mix``, the
        correlations :math:`\hat d_c^\top \Sigma_{mix} \hat d_{c'} / (\sigma_{mix,c}\sigma_{mix,c'})`
        (identity rows and columns for a class whose direction or spread is undefined).

    Raises
    ------
    ValueError
        Shape mismatch, NaN/inf in ``Z``, a label outside ``0..C-1``, fewer than two classes,
        or fewer than two samples.
    TypeError
        Non-integer label arrays.

    Notes
    -----
    Definitions (DESIGN.md, following ``subsec:feasibility_threshold`` of [1]_): error pool
    :math:`\mathcal E = \{\hat y \ne y\}`, :math:`\varepsilon = |\mathcal E|/N`,
    :math:`\pi_c` the share of :math:`y = c`, :math:`\varepsilon_c` the error rate within
    :math:`y = c`; :math:`\mu_{mix}` the mean of :math:`Z[\mathcal E]`, :math:`\mu_c` the mean of
    the correctly classified samples of class c;
    :math:`\hat d_c = (\mu_{mix} - \mu_c)/D_c`, :math:`D_c = \|\mu_{mix} - \mu_c\|`,
    :math:`\sigma_{mix,c}^2 = \hat d_c^\top \Sigma_{mix} \hat d_c` and
    :math:`\sigma_c^2 = \hat d_c^\top \Sigma_c \hat d_c` with covariances at ``ddof=1``
    (computed as the variance of the projections, which is the same number).

    Degenerate cases get defined values and a note:

    * no misclassified sample: :math:`\varepsilon = 0`, every :math:`D_c, \sigma` is 0
      (there is nothing to reject; :func:`critical_lambda` is 0);
    * a class with no correctly classified sample: :math:`\mu_c` does not exist, so its core
      is placed at the attractor (:math:`D_c = \sigma_c = \sigma_{mix,c} = 0`), which makes its Gaussian tails
      :math:`\tfrac12` and its Chernoff tail 1 — pessimistic for :math:`\hat r_1` and
      :math:`\hat r_2`;
    * a single sample where a spread is needed, or :math:`D_c = 0`: the spread is 0.

    References
    ----------
    .. [1] The GCUL paper, ``shared/paper/gcul_paper.tex``.

    Examples
    --------
    >>> import numpy as np
    >>> from gcul_theory import estimate_geometry
    >>> rng = np.random.default_rng(0)
    >>> Z = np.vstack([rng.normal(0, 1, (500, 2)), rng.normal(6, 1, (500, 2))])
    >>> y = np.repeat([0, 1], 500)
    >>> y_pred = y.copy(); y_pred[:50] = 1; y_pred[500:550] = 0  # 100 errors
    >>> g = estimate_geometry(Z, y, y_pred)
    >>> float(g.eps), g.pi.tolist(), g.eps_c.tolist()
    (0.1, [0.5, 0.5], [0.1, 0.1])
    """
    Z_a = as_float_array(Z, "Z")
    if Z_a.ndim != 2:
        raise ValueError(f"Z must be two-dimensional (N, d); got shape {Z_a.shape}")
    n_samples = Z_a.shape[0]
    if n_samples < 2:
        raise ValueError(f"Z must have at least two rows; got {n_samples}")
    y_a = _labels(y, "y", n_samples)
    pred_a = _labels(y_pred, "y_pred", n_samples)
    if n_classes is None:
        n_classes = int(max(y_a.max(), pred_a.max())) + 1
    elif isinstance(n_classes, bool) or not isinstance(n_classes, int | np.integer):
        raise TypeError(f"n_classes must be an int; got {n_classes!r}")
    n_classes = int(n_classes)
    if n_classes < 2:
        raise ValueError(f"n_classes must be at least 2; got {n_classes}")
    for name, labels in (("y", y_a), ("y_pred", pred_a)):
        bad = (labels < 0) | (labels >= n_classes)
        if bad.any():
            raise ValueError(
                f"{name} labels must lie in 0..{n_classes - 1}; got {int(labels[bad][0])}"
            )

    errors = pred_a != y_a
    counts = np.bincount(y_a, minlength=n_classes).astype(np.float64)
    error_counts = np.bincount(y_a[errors], minlength=n_classes).astype(np.float64)
    pi = counts / n_samples
    eps_c = np.zeros(n_classes)
    np.divide(error_counts, counts, out=eps_c, where=counts > 0)
    eps = error_counts.sum() / n_samples

    D = np.zeros(n_classes)
    sigma_mix = np.zeros(n_classes)
    sigma_c = np.zeros(n_classes)
    notes: list[str] = []
    n_errors = int(errors.sum())
    if n_errors == 0:
        notes.append("no misclassified sample: eps = 0 and every D, sigma is 0; nothing to reject")
        return Geometry(eps, pi, eps_c, D, sigma_mix, sigma_c, tuple(notes), np.eye(n_classes))
    if n_errors == 1:
        notes.append("a single misclassified sample: sigma_mix is 0 (no spread from one point)")

    Z_err = Z_a[errors]
    mu_mix = Z_err.mean(axis=0)
    for c in range(n_classes):
        clean = Z_a[(~errors) & (y_a == c)]
        if clean.shape[0] == 0:
            notes.append(
                f"class {c} has no correctly classified sample: its core is placed at the "
                "attractor (D = sigma = 0: Gaussian tails 1/2, Chernoff tail 1)"
            )
            continue
        difference = mu_mix - clean.mean(axis=0)
        distance = float(np.linalg.norm(difference))
        D[c] = distance
        if distance == 0.0:
            notes.append(
                f"class {c}: error-pool mean equals the class mean (D = 0: Gaussian tails 1/2, Chernoff tail 1)"
            )
            continue
        direction = difference / distance
        if n_errors > 1:
            sigma_mix[c] = _directional_std(Z_err, direction)
        if clean.shape[0] > 1:
            sigma_c[c] = _directional_std(clean, direction)
        else:
            notes.append(f"class {c} has one correctly classified sample: sigma_c is 0")
    corr_mix = _projection_correlation(Z_a, y_a, errors, D, sigma_mix)
    return Geometry(eps, pi, eps_c, D, sigma_mix, sigma_c, tuple(notes), corr_mix)
