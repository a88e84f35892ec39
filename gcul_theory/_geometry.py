r"""Representation geometry of the error pool: :class:`Geometry` and :func:`estimate_geometry`.

The inputs of Theorem ``thm:global_rate_bounds`` of [1]_: base error :math:`\varepsilon`, class
priors :math:`\pi_c`, per-class error rates :math:`\varepsilon_c`, centroid distances
:math:`D_c = \|\mu_{mix} - \mu_c\|` and the directional spreads :math:`\sigma_{mix,c}`,
:math:`\sigma_c` along :math:`\hat d_c = (\mu_{mix} - \mu_c)/D_c`.

References
----------
.. [1] "Ambiguity identification in text emotion classification via cluster-guided
   learning" (the GCUL paper).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ._validation import as_float_array, shown

__all__ = ["Geometry", "MAX_CLASSES", "estimate_geometry"]

_U = 2.0**-53  # unit roundoff of float64
_SMALLEST_SUBNORMAL = 2.0**-1074
# Largest number of classes estimate_geometry accepts: corr_mix is a dense (C, C) float64 matrix,
# 128 MiB at C = 4096.
MAX_CLASSES = 4096


def _identity_slack(n_classes: int) -> float:
    """Relative tolerance of the identities Σπ_c = 1 and Σπ_c ε_c = ε over C classes.

    Each of the C terms carries at most two roundings (a count over N, then the product
    π_c ε_c) and a sum of C terms adds at most C - 1 more, so an identity that holds exactly
    for the counts holds in float64 to within about 3C·u relative; 4C·u leaves room.
    """
    return 4.0 * n_classes * _U


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
        directions; symmetric, unit diagonal, entries in [-1, 1] (symmetry and the diagonal to
        1e-8). Needed by predictors that use the correlations; :func:`estimate_geometry` fills
        it. None by default.

    Raises
    ------
    ValueError
        If a value is out of range, not finite, shapes disagree, :math:`\pi` does not sum to
        1, or :math:`\sum_c \pi_c\varepsilon_c \ne \varepsilon`. Both identities are checked
        to :math:`4Cu` relative (:math:`u = 2^{-53}`, C classes): each of the C terms carries
        at most two roundings when computed from counts, and their sum at most C - 1 more; the
        second identity also allows C times the smallest subnormal for products that underflow.
        An absolute tolerance (1e-8 before) accepted ``eps=1e-9, eps_c=[5e-9, 5e-9]``, whose
        error-pool weights sum to 5.

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

    if TYPE_CHECKING:
        # What the dataclass' generated __init__ accepts: array_like (and a list of notes);
        # __post_init__ stores the validated read-only float64 arrays the fields above declare.
        # Type-level only: at run time the dataclass generates __init__ as before.
        def __init__(
            self,
            eps: ArrayLike,
            pi: ArrayLike,
            eps_c: ArrayLike,
            D: ArrayLike,
            sigma_mix: ArrayLike,
            sigma_c: ArrayLike,
            notes: tuple[str, ...] | list[str] = (),
            corr_mix: ArrayLike | None = None,
        ) -> None: ...

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
            raise ValueError(
                f"pi must have at least two classes on its last axis; got shape {pi.shape}"
            )
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
        slack = _identity_slack(pi.shape[-1])
        total = pi.sum(axis=-1)
        off = np.abs(total - 1.0) > slack
        if np.any(off):
            raise ValueError(
                f"pi must sum to 1 over classes (to {slack:.1e} relative); got sum "
                f"{float(total[off].flat[0])!r}"
            )
        with np.errstate(under="ignore"):
            implied = (pi * eps_c).sum(axis=-1)
        tolerance = slack * np.maximum(implied, eps) + pi.shape[-1] * _SMALLEST_SUBNORMAL
        mismatch = np.abs(implied - eps) > tolerance
        if np.any(mismatch):
            raise ValueError(
                f"eps must equal sum_c pi_c * eps_c (to {slack:.1e} relative); got eps="
                f"{float(eps[mismatch].flat[0])!r} but sum_c pi_c * eps_c="
                f"{float(implied[mismatch].flat[0])!r}"
            )
        for name, value in (
            ("eps", eps),
            ("pi", pi),
            ("eps_c", eps_c),
            ("D", D),
            ("sigma_mix", sigma_mix),
            ("sigma_c", sigma_c),
        ):
            value = np.array(value, dtype=np.float64)  # a private copy: the caller's stays writable
            value.setflags(write=False)
            object.__setattr__(self, name, value)
        notes = self.notes
        if isinstance(notes, str) or not isinstance(notes, tuple | list):
            raise TypeError(f"notes must be a tuple of str; got {shown(notes)}")
        object.__setattr__(self, "notes", tuple(str(n) for n in notes))
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
        r"""Error-pool shares :math:`w_c = \pi_c\varepsilon_c/\varepsilon` (0 where ε = 0).

        Computed from mantissas and exponents (``np.frexp``), so that neither the product nor
        the quotient underflows or overflows when ε or a π_c is tiny: each weight is within a
        few ulp of its exact value, and the weights sum to :math:`\sum_c\pi_c\varepsilon_c/\varepsilon`,
        1 to within the tolerance the constructor checks.
        """
        eps = np.broadcast_to(self.eps[..., None], self.pi.shape)
        m_pi, e_pi = np.frexp(self.pi)
        m_err, e_err = np.frexp(self.eps_c)
        m_eps, e_eps = np.frexp(np.where(eps > 0.0, eps, 1.0))
        with np.errstate(under="ignore", over="ignore"):
            w = np.ldexp(m_pi * m_err / m_eps, e_pi + e_err - e_eps)
        return np.where(eps > 0.0, w, 0.0)

    def __repr__(self) -> str:
        def fmt(a: np.ndarray) -> str:
            return np.array2string(np.asarray(a), precision=4, separator=", ")

        return (
            f"Geometry(eps={fmt(self.eps)}, pi={fmt(self.pi)}, eps_c={fmt(self.eps_c)}, "
            f"D={fmt(self.D)}, sigma_mix={fmt(self.sigma_mix)}, sigma_c={fmt(self.sigma_c)}, "
            f"notes={self.notes!r})"
        )


_CHUNK_ELEMENTS = 1 << 22  # rows are processed in blocks of about this many float64 values
_SAFE_EXPONENT = 400  # Z with max |Z| beyond 2**±400 is rescaled by a power of two first


_CORRELATION_TOL = 1e-8  # symmetry and unit diagonal of corr_mix (entries are in [-1, 1])


def _check_correlation(value: ArrayLike, pi_shape: tuple[int, ...]) -> np.ndarray:
    corr = as_float_array(value, "corr_mix", lower=-1.0, upper=1.0)
    expected = pi_shape + pi_shape[-1:]
    if corr.shape != expected:
        raise ValueError(
            f"corr_mix must have shape {expected} (pi's plus a class axis); got {corr.shape}"
        )
    if np.any(np.abs(corr - np.swapaxes(corr, -1, -2)) > _CORRELATION_TOL):
        raise ValueError("corr_mix must be symmetric in its last two axes; it is not")
    diagonal = np.diagonal(corr, axis1=-2, axis2=-1)
    off = np.abs(diagonal - 1.0) > _CORRELATION_TOL
    if np.any(off):
        raise ValueError(
            f"corr_mix must have a unit diagonal; got {float(diagonal[off].flat[0])!r}"
        )
    return np.array(corr, dtype=np.float64)


def _ranges(values: np.ndarray, limit: int = 6) -> str:
    """Sorted distinct integers as "0, 3..9, 12", at most ``limit`` runs (then "and k more")."""
    values = np.asarray(values, dtype=np.int64)
    if values.size == 0:
        return "none"
    breaks = np.flatnonzero(np.diff(values) != 1)
    starts = np.r_[values[0], values[breaks + 1]]
    ends = np.r_[values[breaks], values[-1]]
    runs = [
        f"{a}" if a == b else f"{a}..{b}" for a, b in zip(starts[:limit], ends[:limit], strict=True)
    ]
    if starts.size > limit:
        runs.append(f"and {starts.size - limit} more runs")
    return ", ".join(runs)


def _missing(present: np.ndarray, n_classes: int) -> tuple[int, str]:
    """How many of 0..n_classes-1 are not in the sorted array ``present``, and which (as runs)."""
    edges = np.r_[-1, present, n_classes]
    gap_starts = edges[:-1] + 1
    gap_ends = edges[1:] - 1
    gaps = gap_ends >= gap_starts
    starts, ends = gap_starts[gaps], gap_ends[gaps]
    count = int((ends - starts + 1).sum())
    runs = [f"{a}" if a == b else f"{a}..{b}" for a, b in zip(starts[:6], ends[:6], strict=True)]
    if starts.size > 6:
        runs.append(f"and {starts.size - 6} more runs")
    return count, ", ".join(runs)


def _labels(value: ArrayLike, name: str, n_samples: int) -> np.ndarray:
    if value is None or isinstance(value, str | bytes):
        raise TypeError(f"{name} must be an array of integer class labels; got {shown(value)}")
    try:
        array = np.asarray(value)
    except Exception as exc:  # ragged nested lists
        raise TypeError(
            f"{name} must be an array of integer class labels; got {shown(value)}"
        ) from exc
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; got shape {array.shape}")
    if array.shape[0] != n_samples:
        raise ValueError(
            f"{name} must have one label per row of Z ({n_samples}); got {array.shape[0]}"
        )
    if array.dtype.kind == "f":
        # Float labels are accepted only when every value is an integer (1.0, not 1.5).
        bad = ~np.isfinite(array) | (array != np.round(array))
        if bad.any():
            raise ValueError(
                f"{name} must hold integer class labels; got non-integer value "
                f"{float(array[bad][0])!r}"
            )
    elif array.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integer class labels; got dtype {array.dtype}")
    # Compare in the input's own dtype before casting, so that no label wraps around or
    # overflows int64 on the way.
    limit = 2**62
    if array.size and (array.min() < -limit or array.max() > limit):
        bad = array[(array < -limit) | (array > limit)][0]
        raise ValueError(
            f"{name} labels must be class indices 0..{MAX_CLASSES - 1}; got {shown(bad)}"
        )
    return array.astype(np.int64)


def row_blocks(n_rows: int, width: int) -> range:
    """Starts of row blocks holding about _CHUNK_ELEMENTS values of a (n_rows, width) array."""
    return range(0, n_rows, max(1, _CHUNK_ELEMENTS // max(width, 1)))


def scaled(Z: np.ndarray) -> tuple[np.ndarray, int]:
    """``Z * 2**-shift`` with max |Z| near 1 when it is beyond 2**±400, and ``shift``.

    Dividing by a power of two is exact (entries more than 2**1074 times smaller than the
    largest one, which cannot move a mean or a spread by one ulp of it, may underflow); it keeps
    sums of squares inside float64 for Z up to its largest finite values.
    """
    peak = float(max(Z.max(), -Z.min())) if Z.size else 0.0
    if peak == 0.0 or 2.0**-_SAFE_EXPONENT <= peak <= 2.0**_SAFE_EXPONENT:
        return Z, 0
    shift = int(np.frexp(peak)[1])
    with np.errstate(under="ignore"):
        return np.ldexp(Z, -shift), shift


def class_rates(
    y: np.ndarray, errors: np.ndarray, n_classes: int
) -> tuple[np.ndarray, np.ndarray, float]:
    """``(pi, eps_c, eps)``: class shares, per-class error rates (0 for an empty class), error rate.

    For validated labels ``y`` in ``0..n_classes - 1`` and the boolean ``errors`` of each sample.
    """
    counts = np.bincount(y, minlength=n_classes).astype(np.float64)
    error_counts = np.bincount(y[errors], minlength=n_classes).astype(np.float64)
    eps_c = np.zeros(n_classes)
    np.divide(error_counts, counts, out=eps_c, where=counts > 0)
    return counts / y.size, eps_c, error_counts.sum() / y.size


def class_means(
    Z: np.ndarray, labels: np.ndarray, rows: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per-class means over the classes present in ``labels``, in O(N d + K d).

    Returns the present classes, their counts, their means (K, d), and ``Z`` and the class
    index (0..K-1) of each row, both sorted by class. With ``rows`` (indices), of the rows
    ``Z[rows]`` labelled ``labels[rows]``, gathered once (no copy of ``Z[rows]`` on the way).
    """
    if rows is not None:
        labels = labels[rows]
    classes, index, counts = np.unique(labels, return_inverse=True, return_counts=True)
    if classes.size == 0:  # every sample is misclassified: no class has a clean core
        return classes, counts, np.zeros((0, Z.shape[1])), Z[:0], index
    order = np.argsort(index, kind="stable")
    Z_sorted = Z[order if rows is None else rows[order]]
    index_sorted = index[order]
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    means = np.add.reduceat(Z_sorted, starts, axis=0) / counts[:, None]
    return classes, counts, means, Z_sorted, index_sorted


def _spreads_of_classes(
    Z_sorted: np.ndarray, index_sorted: np.ndarray, means: np.ndarray, directions: np.ndarray
) -> np.ndarray:
    """Σ over each class's rows of ((z - μ_c)·d̂_c)², block by block."""
    return _gathered_spreads(Z_sorted, None, index_sorted, means, directions)


def _gathered_spreads(
    Z: np.ndarray,
    sorted_rows: np.ndarray | None,
    index_sorted: np.ndarray,
    means: np.ndarray,
    directions: np.ndarray,
) -> np.ndarray:
    """:func:`_spreads_of_classes` of ``Z[sorted_rows]`` (of ``Z`` itself if ``None``), each
    block of rows gathered into one reused buffer: the same blocks, the same numbers."""
    n_rows = Z.shape[0] if sorted_rows is None else sorted_rows.size
    squares = np.zeros(means.shape[0])
    step = row_blocks(n_rows, Z.shape[1]).step
    buffer = None if sorted_rows is None else np.empty((min(step, n_rows), Z.shape[1]))
    for start in range(0, n_rows, step):
        block = index_sorted[start : start + step]
        if sorted_rows is None:
            rows = Z[start : start + step]
        else:
            chosen = sorted_rows[start : start + step]
            out = None if buffer is None else buffer[: chosen.size]  # never None here
            rows = np.take(Z, chosen, axis=0, out=out, mode="clip")
        centred = rows - means[block]
        projections = np.einsum("ij,ij->i", centred, directions[block])
        squares += np.bincount(block, weights=projections**2, minlength=means.shape[0])
    return squares


def _gathered_class_means(
    Z: np.ndarray, labels: np.ndarray, rows: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`class_means` of ``(Z, labels, rows)`` without ``Z_sorted``: the row indices
    ``sorted_rows`` (``Z_sorted = Z[sorted_rows]``) in its place. Each class's rows are gathered
    into one reused buffer and summed by ``np.add.reduceat`` as one segment: a segment's sum
    does not depend on the others, so the means are :func:`class_means`' bit for bit, without
    a copy of nearly all of ``Z``."""
    labels = labels[rows]
    classes, index, counts = np.unique(labels, return_inverse=True, return_counts=True)
    if classes.size == 0:  # every sample is misclassified: no class has a clean core
        return classes, counts, np.zeros((0, Z.shape[1])), rows[:0], index
    order = np.argsort(index, kind="stable")
    sorted_rows = rows[order]
    index_sorted = index[order]
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    buffer = np.empty((int(counts.max()), Z.shape[1]))
    sums = np.empty((classes.size, Z.shape[1]))
    for c, (start, count) in enumerate(zip(starts, counts, strict=True)):
        chosen = sorted_rows[start : start + count]
        block = np.take(Z, chosen, axis=0, out=buffer[:count], mode="clip")
        sums[c] = np.add.reduceat(block, [0], axis=0)[0]
    return classes, counts, sums / counts[:, None], sorted_rows, index_sorted


def _pool_scatter(Z_err: np.ndarray, mu_mix: np.ndarray, directions: np.ndarray) -> np.ndarray:
    """Scatter of the error pool's projections on the directions: ``P^T P`` for
    ``P = (Z_err - μ_mix) d̂^T`` (K, K), block by block.

    As projections (n_err·d·K operations) or through the (d, d) scatter matrix of Z_err
    (n_err·d² + K²·d), whichever is cheaper; the two are the same number up to rounding.
    """
    n_directions, width = directions.shape
    if n_directions <= width:
        scatter = np.zeros((n_directions, n_directions))
        step = row_blocks(Z_err.shape[0], max(width, n_directions)).step
        for start in range(0, Z_err.shape[0], step):
            projections = (Z_err[start : start + step] - mu_mix) @ directions.T
            scatter += projections.T @ projections
        return scatter
    inner = np.zeros((width, width))
    step = row_blocks(Z_err.shape[0], width).step
    for start in range(0, Z_err.shape[0], step):
        block = Z_err[start : start + step] - mu_mix
        inner += block.T @ block
    return directions @ inner @ directions.T


CORES = ("correct", "class", "predicted")
r"""The readings of a class core :math:`\mu_c` that :func:`estimate_geometry` accepts (``core=``)."""
_CORE_ROW = {
    "correct": "correctly classified sample",
    "class": "sample",
    "predicted": "sample predicted as it",
}


def estimate_geometry(
    Z: ArrayLike,
    y: ArrayLike,
    y_pred: ArrayLike,
    n_classes: int | None = None,
    *,
    core: str = "correct",
) -> Geometry:
    r"""Estimate the geometry of the error pool from representations, labels and predictions.

    Parameters
    ----------
    Z : array_like, shape (N, d)
        Representations (e.g. embeddings or features) of the training samples.
    y : array_like of int, shape (N,)
        Observed labels in ``0..C-1``. Float arrays are accepted only when every value is an
        integer (``1.0``); booleans, strings and complex numbers are refused.
    y_pred : array_like of int, shape (N,)
        Phase-1 predictions in ``0..C-1``, with the same rules.
    n_classes : int, optional
        Number of classes C, from 2 to :data:`MAX_CLASSES` (4096); classes that never
        occur in ``y`` then get :math:`\pi_c = 0` and a note. Defaults to
        ``max(y, y_pred) + 1``, and then every class ``0..C-1`` must occur in ``y``: labels
        that skip a class (1-based labels leave class 0 empty; a stray label 10**7 leaves
        millions empty) raise ``ValueError``. Relabel with
        ``classes, y = np.unique(y, return_inverse=True)`` (mapping ``y_pred`` the same way),
        or pass ``n_classes``.
    core : {"correct", "class", "predicted"}, default "correct"
        Which rows make class c's core :math:`\mu_c` (its mean) and its spread
        :math:`\sigma_c`: the correctly classified rows of class c (the default, the paper's
        "clean samples" of its capture- and contamination-rate theorems, whose contamination
        count is over correctly classified rows), every row labelled c, or every row *predicted*
        c (the rows whose median the paper's appendix uses as K-Means' initial centre of class c).
        The error pool, :math:`\varepsilon`, :math:`\pi_c` and :math:`\varepsilon_c` do not
        depend on it.

    Returns
    -------
    Geometry
        With ``notes`` giving the reason for every degenerate value.

    Raises
    ------
    ValueError
        Shape mismatch, NaN/inf in ``Z``, ``Z`` with no column, a label outside ``0..C-1``,
        fewer than two or more than 4096 classes, an inferred class that never occurs in
        ``y``, fewer than two samples, or distances too large for float64.
    TypeError
        Non-integer label arrays, a non-integer ``n_classes``.

    Notes
    -----
    Definitions (following ``subsec:feasibility_threshold`` of [1]_): error pool
    :math:`\mathcal E = \{\hat y \ne y\}`, :math:`\varepsilon = |\mathcal E|/N`,
    :math:`\pi_c` the share of :math:`y = c`, :math:`\varepsilon_c` the error rate within
    :math:`y = c`; :math:`\mu_{mix}` the mean of :math:`Z[\mathcal E]`, :math:`\mu_c` the mean of
    the correctly classified samples of class c;
    :math:`\hat d_c = (\mu_{mix} - \mu_c)/D_c`, :math:`D_c = \|\mu_{mix} - \mu_c\|`,
    :math:`\sigma_{mix,c}^2 = \hat d_c^\top \Sigma_{mix} \hat d_c` and
    :math:`\sigma_c^2 = \hat d_c^\top \Sigma_c \hat d_c` with covariances at ``ddof=1``
    (computed as the variance of the projections, which is the same number).

    The work is O(N d) plus O(K d) for the K classes that occur, with at most
    :data:`MAX_CLASSES` = 4096 classes. If ``Z`` has entries beyond :math:`2^{\pm 400}`
    it is first divided by a power of two (exact), and the distances and spreads are scaled
    back; a distance or spread that does not fit in float64 then raises ``ValueError``.

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
    .. [1] The GCUL paper (reference in the module docstring).

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
    if not isinstance(core, str) or core not in CORES:
        raise ValueError(f"core must be one of {', '.join(map(repr, CORES))}; got {shown(core)}")
    Z_a = as_float_array(Z, "Z")
    if Z_a.ndim != 2:
        raise ValueError(f"Z must be two-dimensional (N, d); got shape {Z_a.shape}")
    n_samples, width = Z_a.shape
    if n_samples < 2:
        raise ValueError(f"Z must have at least two rows; got {n_samples}")
    if width < 1:
        raise ValueError(f"Z must have at least one column; got shape {Z_a.shape}")
    y_a = _labels(y, "y", n_samples)
    pred_a = _labels(y_pred, "y_pred", n_samples)
    for name, labels in (("y", y_a), ("y_pred", pred_a)):
        if labels.min() < 0:
            raise ValueError(f"{name} labels must be non-negative; got {int(labels.min())}")
    inferred = n_classes is None
    if inferred:
        n_classes = int(max(y_a.max(), pred_a.max())) + 1
        if n_classes < 2:
            raise ValueError(
                "y and y_pred must hold at least two classes (n_classes is inferred as "
                f"max(y, y_pred) + 1 = {n_classes}); pass n_classes if there are more"
            )
    elif isinstance(n_classes, bool) or not isinstance(n_classes, int | np.integer):
        raise TypeError(f"n_classes must be an int; got {shown(n_classes)}")
    n_classes = int(n_classes)
    if n_classes < 2:
        raise ValueError(f"n_classes must be at least 2; got {n_classes}")
    for name, labels in (("y", y_a), ("y_pred", pred_a)):
        bad = (labels < 0) | (labels >= n_classes)
        if bad.any():
            source = "inferred from the labels" if inferred else "given"
            raise ValueError(
                f"{name} labels must lie in 0..{n_classes - 1} (n_classes = {n_classes}, "
                f"{source}); got {int(labels[bad][0])}"
            )
    present = np.unique(y_a)
    if inferred and present.size < n_classes:
        n_empty, which = _missing(present, n_classes)
        raise ValueError(
            f"y has no sample of {n_empty} of the {n_classes} classes 0..{n_classes - 1} "
            f"implied by the largest label (n_classes inferred as max(y, y_pred) + 1); "
            f"empty classes: {which}. Labels must be 0..C-1 with every class present: relabel "
            "with `classes, y = np.unique(y, return_inverse=True)` (and map y_pred the same "
            "way), or pass n_classes explicitly"
        )
    if n_classes > MAX_CLASSES:
        raise ValueError(
            f"n_classes must be at most {MAX_CLASSES}; got {n_classes}"
            + (" (inferred from the labels)" if inferred else "")
        )

    errors = pred_a != y_a
    pi, eps_c, eps = class_rates(y_a, errors, n_classes)

    D = np.zeros(n_classes)
    sigma_mix = np.zeros(n_classes)
    sigma_c = np.zeros(n_classes)
    notes: list[str] = []
    if present.size < n_classes:
        n_empty, which = _missing(present, n_classes)
        notes.append(f"{n_empty} of {n_classes} classes never occur in y (pi_c = 0): {which}")
    n_errors = int(errors.sum())
    if n_errors == 0:
        notes.append("no misclassified sample: eps = 0 and every D, sigma is 0; nothing to reject")
        return Geometry(eps, pi, eps_c, D, sigma_mix, sigma_c, tuple(notes), np.eye(n_classes))
    if n_errors == 1:
        notes.append("a single misclassified sample: sigma_mix is 0 (no spread from one point)")

    Z_s, shift = scaled(Z_a)
    Z_err = Z_s[errors]
    mu_mix = Z_err.mean(axis=0)
    if core == "correct":
        core_labels, core_rows = y_a, np.flatnonzero(~errors)
    else:
        core_labels, core_rows = (y_a if core == "class" else pred_a), np.arange(n_samples)
    classes, clean_counts, means, sorted_rows, index_sorted = _gathered_class_means(
        Z_s, core_labels, core_rows
    )
    no_clean = np.setdiff1d(present, classes)
    if no_clean.size:
        subject = (
            f"class {no_clean[0]} has"
            if no_clean.size == 1
            else f"classes {_ranges(no_clean)} have"
        )
        notes.append(
            f"{subject} no {_CORE_ROW[core]}: its core is placed at the attractor "
            "(D = sigma = 0: Gaussian tails 1/2, Chernoff tail 1)"
        )
    difference = mu_mix - means
    distance = np.linalg.norm(difference, axis=1)
    coincident = distance == 0.0
    if coincident.any():
        which = classes[coincident]
        subject = f"class {which[0]}" if which.size == 1 else f"classes {_ranges(which)}"
        notes.append(
            f"{subject}: error-pool mean equals the class mean "
            "(D = 0: Gaussian tails 1/2, Chernoff tail 1)"
        )
    safe = np.where(coincident, 1.0, distance)
    directions = np.where(coincident[:, None], 0.0, difference / safe[:, None])
    pool = np.zeros(classes.size)
    pool_covariance = np.zeros((classes.size, classes.size))
    if n_errors > 1:
        pool_covariance = _pool_scatter(Z_err, mu_mix, directions) / (n_errors - 1)
        pool = np.sqrt(np.maximum(np.diagonal(pool_covariance), 0.0))
    own = np.sqrt(
        _gathered_spreads(Z_s, sorted_rows, index_sorted, means, directions)
        / np.maximum(clean_counts - 1, 1)
    )
    single = (clean_counts == 1) & ~coincident
    if single.any():
        which = classes[single]
        subject = f"class {which[0]} has" if which.size == 1 else f"classes {_ranges(which)} have"
        notes.append(f"{subject} one {_CORE_ROW[core]}: sigma_c is 0")
    own = np.where(single | coincident, 0.0, own)
    pool = np.where(coincident, 0.0, pool)
    with np.errstate(over="ignore"):
        D[classes] = np.ldexp(distance, shift)
        sigma_mix[classes] = np.ldexp(pool, shift)
        sigma_c[classes] = np.ldexp(own, shift)
    for name, value in (("D", D), ("sigma_mix", sigma_mix), ("sigma_c", sigma_c)):
        if not np.all(np.isfinite(value)):
            raise ValueError(
                f"Z is too large: a {name} computed from it exceeds the float64 range "
                f"(max |Z| = {float(max(Z_a.max(), -Z_a.min())):.3g}); rescale Z"
            )
    corr_mix = _correlation(pool_covariance, pool, classes, n_classes)
    return Geometry(eps, pi, eps_c, D, sigma_mix, sigma_c, tuple(notes), corr_mix)


def _correlation(
    covariance: np.ndarray, spread: np.ndarray, classes: np.ndarray, n_classes: int
) -> np.ndarray:
    """``corr_mix`` (C, C) from the pool covariance over the present classes' directions.

    A class whose direction or spread is undefined (D = 0 or sigma_mix = 0, or no clean core)
    gets an identity row and column (independent of the others), consistent with its tail
    conventions.
    """
    corr = np.eye(n_classes)
    defined = spread > 0.0
    if defined.sum() < 2:
        return corr
    scale = spread[defined]
    block = covariance[np.ix_(defined, defined)] / np.outer(scale, scale)
    block = np.clip(0.5 * (block + block.T), -1.0, 1.0)
    np.fill_diagonal(block, 1.0)
    where = classes[defined]
    corr[np.ix_(where, where)] = block
    return corr
