r"""The predictor registry: every :math:`\hat r_1`/:math:`\hat r_2` method and its guarantee.

Every predictor turns a :class:`~gcul_theory.Geometry` into a capture rate :math:`\hat r_1`, a
contamination rate :math:`\hat r_2` and :math:`\lambda^*_{PRE} = \max(0, S(\varepsilon, \hat r_1,
\hat r_2))` (Theorem ``thm:gcul_effectiveness_sufficient_condition`` of [1]_).
:data:`PREDICTORS` names them. What the outputs show of each (its results columns, label, style
and validity wording) is in ``simulations.registry``, one entry per predictor.

The model
---------
The paper's single-attractor model (Assumption ``ass:single_attractor`` and Lemma
``lem:projection_tails`` of [1]_): every misclassified sample is drawn from
:math:`\mathcal N(\mu_{mix}, \Sigma_{mix})`, and the rejection region is the attractor's Voronoi cell
among the centres :math:`\{\mu_{mix}\} \cup \{\mu_c\}`. With
:math:`W_c = \langle x - \mu_{mix}, \hat d_c\rangle / \sigma_{mix,c}` (standard normal, correlation
:math:`R_{cc'} = \hat d_c^\top \Sigma_{mix} \hat d_{c'} / (\sigma_{mix,c}\sigma_{mix,c'})`) and
:math:`h_c = D_c/(2\sigma_{mix,c})`, an error sample is captured iff it lies on the attractor's side of
*every* class's bisector, i.e. iff :math:`W_c > -h_c` for all c. Write
:math:`A_c = \{W_c < -h_c\}` ("lost across boundary c"), :math:`p_c = P(A_c) = \Phi(-h_c)` and
:math:`q_{cc'} = P(A_c \cap A_{c'})`. Then :math:`E[r_1] = 1 - P(\bigcup_c A_c)`.

The paper's printed bounds (kept to reproduce its tables; NOT valid lower bounds)
    ``"gaussian"``  :math:`1 - \sum_c w_c p_c`, :math:`w_c = \pi_c\varepsilon_c/\varepsilon`
        (Eq. ``eq:r1_hat``). Erratum ``global_rate_bounds.r1_bound`` of the package's ``proofs``:
        with more than one class it is an *upper* bound on :math:`E[r_1]`, since
        :math:`E[r_1] \le 1 - \max_c p_c \le 1 - \sum_c w_c p_c`; strictly once two boundaries
        can be crossed.
    ``"union"``  :math:`1 - \sum_c w_c (p_c + \eta_c)`, :math:`\eta_c = e^{-D_c^2/(8\sigma_{mix,c}^2)}`
        (Eq. ``eq:r1_rigorous_bound``, Theorem ``thm:r1_rigorous``). Erratum ``r1_rigorous.loss_cover``:
        with C = 20 orthogonal boundaries at :math:`D/\sigma = 4`, :math:`E[r_1] = (1-p)^{20}
        = 0.631 < 0.842`; at :math:`D/\sigma = 4` it first fails at C = 8.
    ``"chernoff"``  :math:`1 - \sum_c w_c \eta_c`; the same erratum (it fails from larger C).

    All three use the paper's :math:`\hat r_2` (Eq. ``eq:r2_hat``), which ignores the
    correctly classified samples that the attractor produces by chance (see below).

Valid lower bounds on :math:`E[r_1]` under the model
    ``"boole"``  :math:`1 - \sum_c p_c` (Boole's inequality over all C boundaries, unweighted; the
        corrected statement of both errata). Needs only that each projection :math:`W_c` is
        normal; holds whatever the joint law.
    ``"hunter_worsley"``  :math:`1 - [\sum_c p_c - \sum_{(c,c') \in T} q_{cc'}]` with T a maximum
        spanning tree of the weights :math:`q_{cc'}` (Hunter 1976; Worsley 1982; Kounias 1968).
        Needs the pairs :math:`(W_c, W_{c'})` bivariate normal with correlation :math:`R_{cc'}`
        (``Geometry.corr_mix``). Always :math:`\ge` ``"boole"``; exact for C = 2.

The model value (a reference, not a bound)
    ``"gaussian_exact"``  :math:`E[r_1] = P(W > -h) = \Phi_R(h)`, the orthant probability of the
        C-variate normal over the boundaries that can be crossed (their crossing probabilities
        left out add up to at most 1e-12). Exact to rounding for C <= 2 (Owen's T); otherwise
        Genz's separation of variables [4]_: the variables ordered most restrictive limit first,
        the last two integrated in closed form (the bivariate normal, which keeps the integrand
        smooth when R is nearly singular) and the others by randomised quasi-Monte Carlo on fixed
        points, ``ORTHANT_RANDOMISATIONS = 8`` independent Owen scramblings of ``ORTHANT_POINTS =
        2048`` Sobol' points seeded from ``ORTHANT_SEED``, so every call returns the same bits
        (for the same NumPy and SciPy), alone or in a batch.

        Its measured accuracy is in the docstring of :mod:`gcul_theory._orthant`. The estimate
        is projected onto :math:`[\text{hunter\_worsley}, 1 - \max_c p_c]`, an interval that
        contains the exact value, which can only reduce its error.

Contamination :math:`\hat r_2` of the valid predictors and of the model value
    The paper's :math:`\hat r_2 = \sum_c \pi_c q^{contam}_c / (1 - \varepsilon)` bounds the share of
    the clean class cores that falls in the attractor's cell, but the correctly classified samples
    also hold attractor samples that phase 1 gets right by chance (in the synthetic sweep at
    :math:`\sigma = 0`: :math:`\hat r_2 \approx 0.010` against 0.037–0.041 measured). Model: the
    attractor's samples carry labels uniform over the C classes, independent of phase 1's
    prediction, so each is correct with probability :math:`1/C` and, in expectation, every error
    is matched by :math:`1/(C-1)` chance-correct attractor samples; counting all of them as
    captured gives the upper bound (in expectation)

    .. math::

        E[r_2] \le \hat r_2^{att} = \min\left(1, \frac{\sum_c \pi_c q^{contam}_c
        + \varepsilon/(C-1)}{1-\varepsilon}\right).

    Errors that come from label noise instead of the attractor only make the second term more
    conservative.

Every guarantee above is on the *expected* rates with the centres known; for one training sample
with estimated centres use :func:`finite_sample_lambda`.

References
----------
.. [1] The GCUL paper, "Ambiguity identification in text emotion classification via
   cluster-guided learning".
.. [2] D. Hunter, "An upper bound for the probability of a union", J. Appl. Probab. 13 (1976).
.. [3] K. J. Worsley, "An improved Bonferroni inequality and applications", Biometrika 69 (1982).
.. [4] A. Genz, "Numerical computation of multivariate normal probabilities", J. Comput. Graph.
   Stat. 1 (1992); A. Genz and F. Bretz, "Computation of Multivariate Normal and t
   Probabilities", Springer (2009).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from ._geometry import Geometry
from ._orthant import ORTHANT_MAX_CLASSES, crossable, orthant_probability, upper_orthant
from ._selectivity import selectivity_unchecked
from ._tails import chernoff_tail_unchecked, gaussian_tail_unchecked
from ._validation import shown

__all__ = [
    "DEFAULT_METHOD",
    "METHODS",
    "PREDICTORS",
    "Predictor",
    "predictor",
]


@dataclass(frozen=True)
class Predictor:
    """One entry of the predictor registry.

    Attributes
    ----------
    name : str
        The ``method`` argument of :func:`critical_lambda` and :func:`capture_rate_bound`.
    kind : {"paper", "bound", "model"}
        The paper's printed bound (not valid), a valid bound, or a model value.
    valid : bool
        Whether :math:`\\hat r_1 \\le E[r_1]` and :math:`\\hat r_2 \\ge E[r_2]` under the stated
        model (``kind == "bound"``).
    guarantee : str
        One sentence: what holds, under which model, or where it fails.
    description : str
        The formula, in words.
    contamination : {"paper", "attractor"}
        Which :math:`\\hat r_2` it uses (module docstring).
    needs_correlation : bool
        Whether it needs ``Geometry.corr_mix``.
    r1 : callable
        Its capture rate: ``r1(geometry) -> ndarray`` of :math:`\\hat r_1` before clipping to
        [0, 1] (:func:`capture_rate_bound` clips it and returns 0 where there is no error).
        Not part of the entry's ``repr`` or equality.
    """

    name: str
    kind: str
    valid: bool
    guarantee: str
    description: str
    contamination: str
    needs_correlation: bool
    r1: Callable[[Geometry], np.ndarray] = field(repr=False, compare=False)


def _entry(name, kind, guarantee, description, contamination, r1, needs_correlation=False):
    return Predictor(
        name=name,
        kind=kind,
        valid=kind == "bound",
        guarantee=guarantee,
        description=description,
        contamination=contamination,
        needs_correlation=needs_correlation,
        r1=r1,
    )


# --------------------------------------------------------------------------------------------
# r1


def _require_correlation(geometry: Geometry, method: str) -> np.ndarray:
    if geometry.corr_mix is None:
        raise ValueError(
            f'method "{method}" needs the correlations of the error pool\'s projections, '
            "Geometry.corr_mix, which is None; use estimate_geometry (which fills it), pass "
            'corr_mix, or choose method="boole"'
        )
    return geometry.corr_mix


def thresholds(geometry: Geometry) -> np.ndarray:
    """``h_c = D_c / (2 sigma_mix,c)``: inf where sigma = 0 < D (never lost), 0 where D = 0."""
    D, sigma = geometry.D, geometry.sigma_mix
    h = np.full(D.shape, np.inf)
    # 0.5 * (D / sigma), not D / (2 sigma): 2 sigma overflows for sigma above 9e307.
    with np.errstate(over="ignore"):
        np.divide(D, sigma, out=h, where=sigma > 0.0)
    return np.where(D == 0.0, 0.0, 0.5 * h)


def _pairwise_loss(geometry: Geometry, method: str) -> np.ndarray:
    """``q[..., c, c'] = P(A_c and A_c')``, diagonal ``p_c``."""
    rho = _require_correlation(geometry, method)
    h = thresholds(geometry)
    return upper_orthant(h[..., :, None], h[..., None, :], rho)


def max_spanning_tree_weight(q: np.ndarray) -> np.ndarray:
    """Total weight of a maximum spanning tree of the complete graph with weights ``q`` (Prim)."""
    C = q.shape[-1]
    batch = q.reshape(-1, C, C)
    rows = np.arange(batch.shape[0])
    in_tree = np.zeros((batch.shape[0], C), dtype=bool)
    in_tree[:, 0] = True
    best = batch[:, 0, :].copy()
    total = np.zeros(batch.shape[0])
    for _ in range(C - 1):
        candidate = np.where(in_tree, -np.inf, best)
        nxt = candidate.argmax(axis=1)
        total += candidate[rows, nxt]
        in_tree[rows, nxt] = True
        best = np.maximum(best, batch[rows, nxt, :])
    return total.reshape(q.shape[:-2])


def _boole(geometry: Geometry) -> np.ndarray:
    return 1.0 - gaussian_tail_unchecked(geometry.D, geometry.sigma_mix).sum(axis=-1)


def _hunter_worsley(geometry: Geometry) -> np.ndarray:
    q = _pairwise_loss(geometry, "hunter_worsley")
    p = np.diagonal(q, axis1=-2, axis2=-1)
    # Never below Boole (exactly so in real arithmetic; rounding can put it an ulp under).
    return np.maximum(1.0 - (p.sum(axis=-1) - max_spanning_tree_weight(q)), _boole(geometry))


def orthant_dimension(geometry: Geometry) -> int:
    """The most boundaries an orthant probability of ``geometry`` keeps, over the geometries
    with an error pool (without one, r̂1 is 0 and nothing is computed); see
    :func:`~gcul_theory._orthant.crossable`."""
    counts = crossable(thresholds(geometry)).sum(axis=-1)
    return int(np.where(geometry.eps > 0.0, counts, 0).max(initial=0))


def unsupported(geometry: Geometry, method: str) -> str | None:
    """Why ``method`` cannot be computed for ``geometry`` (None when it can)."""
    if method == "gaussian_exact" and orthant_dimension(geometry) > ORTHANT_MAX_CLASSES:
        return (
            f"method 'gaussian_exact' supports at most {ORTHANT_MAX_CLASSES} classes with a "
            f"crossable boundary (an orthant probability in that many dimensions); this geometry "
            f"has {orthant_dimension(geometry)}: use 'hunter_worsley', a valid lower bound"
        )
    return None


def _gaussian_exact(geometry: Geometry) -> np.ndarray:
    rho = _require_correlation(geometry, "gaussian_exact")
    reason = unsupported(geometry, "gaussian_exact")
    if reason is not None:
        raise ValueError(reason)
    h = thresholds(geometry)
    flat_h = h.reshape(-1, h.shape[-1])
    flat_rho = np.broadcast_to(rho, (*h.shape, h.shape[-1])).reshape(-1, *rho.shape[-2:])
    needed = np.broadcast_to(geometry.eps > 0.0, h.shape[:-1]).reshape(-1)
    values: np.ndarray = np.zeros(flat_h.shape[0])  # capture() returns 0 where there is no error
    values[needed] = orthant_probability(flat_h[needed], flat_rho[needed])[0]
    values = values.reshape(h.shape[:-1])
    # The exact value lies in [hunter_worsley, 1 - max_c p_c]; projecting the quasi-Monte Carlo
    # estimate onto that interval can only reduce its error. When the two ends meet (two
    # boundaries with correlation near 1), hunter_worsley may round an ulp above 1 - max_c p_c;
    # the model value then stays at hunter_worsley, never below it.
    lower = _hunter_worsley(geometry)
    p = gaussian_tail_unchecked(geometry.D, geometry.sigma_mix)
    return np.clip(values, lower, np.maximum(1.0 - p.max(axis=-1), lower))


def _paper_capture(geometry: Geometry, method: str) -> np.ndarray:
    D, sigma = geometry.D, geometry.sigma_mix
    if method == "gaussian":
        loss = gaussian_tail_unchecked(D, sigma)
    elif method == "chernoff":
        loss = chernoff_tail_unchecked(D, sigma)
    else:
        loss = gaussian_tail_unchecked(D, sigma) + chernoff_tail_unchecked(D, sigma)
    return 1.0 - (geometry.weights * loss).sum(axis=-1)


# --------------------------------------------------------------------------------------------
# the registry: one entry per predictor, carrying its r1


PREDICTORS: tuple[Predictor, ...] = (
    _entry(
        "gaussian",
        "paper",
        "the paper's r1_hat of Theorem “Sufficient Condition for GCUL Feasibility”; NOT a "
        "lower bound: an upper bound on E[r1] with more than one class (erratum "
        "global_rate_bounds.r1_bound)",
        "1 - sum_c w_c p_c, erf tail only",
        "paper",
        partial(_paper_capture, method="gaussian"),
    ),
    _entry(
        "union",
        "paper",
        "the paper's bound of Theorem “Rigorous Sub-Gaussian Lower Bound for Global Capture "
        "Rate r1”; NOT a lower bound: fails from C = 8 classes at D/sigma = 4 (C = 20: "
        "E[r1] = 0.631 < 0.842; erratum r1_rigorous.loss_cover)",
        "1 - sum_c w_c (p_c + eta_c), erf + Chernoff",
        "paper",
        partial(_paper_capture, method="union"),
    ),
    _entry(
        "chernoff",
        "paper",
        "the paper's Chernoff-only variant; NOT a lower bound (erratum r1_rigorous.loss_cover)",
        "1 - sum_c w_c eta_c",
        "paper",
        partial(_paper_capture, method="chernoff"),
    ),
    _entry(
        "boole",
        "bound",
        "E[r1] >= r1_hat whenever each projection W_c is normal (Boole over all C boundaries); "
        "E[r2] <= r2_hat with chance-correct attractor samples counted",
        "1 - sum_c p_c, unweighted",
        "attractor",
        _boole,
    ),
    _entry(
        "hunter_worsley",
        "bound",
        "E[r1] >= r1_hat whenever the pairs (W_c, W_c') are bivariate normal (Hunter-Worsley); "
        "E[r2] <= r2_hat with chance-correct attractor samples counted",
        "1 - [sum_c p_c - sum over a maximum spanning tree of P(A_c and A_c')]",
        "attractor",
        _hunter_worsley,
        needs_correlation=True,
    ),
    _entry(
        "gaussian_exact",
        "model",
        "E[r1] itself under the single-attractor Gaussian model (a model value, not a bound); "
        "r2_hat as for the valid bounds",
        "multivariate-normal orthant probability P(W_c > -h_c for all c)",
        "attractor",
        _gaussian_exact,
        needs_correlation=True,
    ),
)
"""Every predictor, the paper's three first; ``METHODS`` is the tuple of their names."""

_BY_NAME = {entry.name: entry for entry in PREDICTORS}
METHODS: tuple[str, ...] = tuple(_BY_NAME)

DEFAULT_METHOD = "hunter_worsley"
"""The one default predictor of ``gcul_theory``: of :func:`critical_lambda`,
:func:`capture_rate_bound`, :func:`contamination_rate_bound`, :func:`feasibility_report` and
:func:`finite_sample_lambda` (and of ``gcul feasibility``).

"hunter_worsley" is the tightest valid lower bound of the registry (always at least "boole",
exact for two classes; on the synthetic sweep, 410 cells at lambda = 0.15, no Type-II violation
and 69 Type-I against "boole"'s 94). It needs the correlations ``Geometry.corr_mix``, which every
geometry the package estimates has (:func:`estimate_geometry`, and so :func:`feasibility_report`
and :func:`finite_sample_lambda`, which is what users call on data). A :class:`Geometry` built by
hand without ``corr_mix`` is refused by the default as by an explicit "hunter_worsley": a
``ValueError`` naming ``corr_mix`` and the two ways out, pass ``corr_mix`` or
``method="boole"`` (the valid bound that needs only the per-class geometry). The default never
changes silently to another predictor."""


def predictor(name: str) -> Predictor:
    """Return the registry entry called ``name``.

    Examples
    --------
    >>> from gcul_theory import predictor
    >>> predictor("boole").valid, predictor("union").valid, predictor("union").kind
    (True, False, 'paper')
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, a method name in {METHODS}; got {shown(name)}")
    if name not in _BY_NAME:
        raise ValueError(
            f"name must be a method name: method must be one of {METHODS}; got {shown(name)}"
        )
    return _BY_NAME[name]


def capture(geometry: Geometry, method: str) -> np.ndarray:
    """r̂1 of a validated ``method``, clipped to [0, 1]; 0 where there is no error."""
    r1 = _BY_NAME[method].r1(geometry)
    return np.where(geometry.eps > 0.0, np.clip(r1, 0.0, 1.0), 0.0)


# --------------------------------------------------------------------------------------------
# r2


def contamination(geometry: Geometry, method: str) -> np.ndarray:
    """r̂2 of a validated ``method``, clipped to [0, 1]; 0 with no error, 1 with no correct sample."""
    tails = gaussian_tail_unchecked(geometry.D, geometry.sigma_c)
    contaminated = (geometry.pi * tails).sum(axis=-1)
    if _BY_NAME[method].contamination == "attractor":
        contaminated = contaminated + geometry.eps / (geometry.n_classes - 1)
    clean_share = 1.0 - geometry.eps
    r2 = np.ones(clean_share.shape)
    np.divide(contaminated, clean_share, out=r2, where=clean_share > 0.0)
    return np.where(geometry.eps > 0.0, np.clip(r2, 0.0, 1.0), 0.0)


def critical(eps: np.ndarray, r1: np.ndarray, r2: np.ndarray) -> np.ndarray:
    """max(0, S(eps, r1, r2)), and 0 where eps is 0 or 1 or r1 <= r2."""
    interior = (eps > 0.0) & (eps < 1.0) & (r1 > r2)
    score = selectivity_unchecked(np.where(interior, eps, 0.5), r1, r2)
    return np.where(interior, np.maximum(score, 0.0), 0.0)
