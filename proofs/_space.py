r"""The "Space Independence" remark: do linear projections preserve centroid distances?

Remark "Space Independence" (section ``subsec:assumptions2``) of [1]_ says the theory holds in
:math:`\mathbb R^{d_0}` because "linear projections preserve centroid topological distances up
to a bounded scale factor". The check looks for two centroids whose distance a rank-deficient
PCA or LDA map sends to zero, with exact rational data (SymPy matrices), and then verifies the
corrected statement: such maps only *contract* distances.

References
----------
.. [1] "Ambiguity identification in text emotion classification via cluster-guided learning"
   (the GCUL paper), section "Foundational assumptions for feasibility analysis"
   (``subsec:assumptions2``), Remark "Space Independence".
"""

from __future__ import annotations

import sympy as sp

from ._result import Finding, claim, require
from ._trace import step

__all__ = ["pca_counterexample", "lda_counterexample", "CLAIMS"]

_R = sp.Rational


def _mean(rows: list[sp.Matrix]) -> sp.Matrix:
    return sum(rows, sp.zeros(*rows[0].shape)) / len(rows)


def _covariance(rows: list[sp.Matrix]) -> sp.Matrix:
    mu = _mean(rows)
    return sum(((r - mu) * (r - mu).T for r in rows), sp.zeros(rows[0].rows)) / len(rows)


def _top_eigenvectors(matrix: sp.Matrix, k: int) -> sp.Matrix:
    """Rows: orthonormal eigenvectors of the symmetric `matrix` for its k largest eigenvalues."""
    pairs = sorted(matrix.eigenvects(), key=lambda t: -t[0])
    vectors: list[sp.Matrix] = []
    for _value, _mult, basis in pairs:
        for v in sp.GramSchmidt(basis, True):
            vectors.append(v.T)
    return sp.Matrix.vstack(*vectors[:k])


def pca_counterexample() -> dict[str, sp.Basic]:
    r"""A clean class and an error pool in :math:`\mathbb R^3` whose centroids PCA(2) merges.

    Class c: :math:`(\pm 3, 0, 0), (0, \pm 3, 0)`; error pool: the same points shifted by
    :math:`(0, 0, 1/2)`. The pooled covariance is :math:`\mathrm{diag}(9/2, 9/2, 1/16)`, so the
    two principal components are the x and y axes and the centroid difference (along z) is
    killed.

    Returns
    -------
    dict
        ``P`` (2 x 3, orthonormal rows), ``D`` (distance in R^3), ``D_projected``.

    Examples
    --------
    >>> out = pca_counterexample()
    >>> out["D"], out["D_projected"]
    (1/2, 0)
    """
    base = [sp.Matrix(v) for v in ([3, 0, 0], [-3, 0, 0], [0, 3, 0], [0, -3, 0])]
    shift = sp.Matrix([0, 0, _R(1, 2)])
    clean, errors = base, [v + shift for v in base]
    P = _top_eigenvectors(_covariance(clean + errors), 2)
    d = _mean(errors) - _mean(clean)
    return {"P": P, "D": sp.sqrt((d.T * d)[0]), "D_projected": sp.sqrt(((P * d).T * (P * d))[0])}


def lda_counterexample() -> dict[str, sp.Basic]:
    r"""Two clean classes and an error pool in :math:`\mathbb R^3` whose distance LDA (C-1 = 1) kills.

    Classes at :math:`(\pm 1, 0, 0)`, each with the six points mean :math:`\pm e_i` (within-class
    covariance :math:`I/3`); the error pool (not an LDA class) is centred at :math:`(1, 0, 1)`.
    LDA keeps the one direction x, on which the error centroid lands on class 1's centroid.

    Returns
    -------
    dict
        ``P`` (1 x 3), ``D`` (error centroid to class 1 in R^3), ``D_projected``.

    Examples
    --------
    >>> out = lda_counterexample()
    >>> out["D"], out["D_projected"]
    (1, 0)
    """
    unit = [sp.Matrix(v) for v in ([1, 0, 0], [0, 1, 0], [0, 0, 1])]
    offsets = unit + [-u for u in unit]
    means = [sp.Matrix([1, 0, 0]), sp.Matrix([-1, 0, 0])]
    classes = [[m + o for o in offsets] for m in means]
    within = sum((_covariance(rows) for rows in classes), sp.zeros(3)) / len(classes)
    grand = _mean([m for m in means])
    between = sum(((m - grand) * (m - grand).T for m in means), sp.zeros(3)) / len(means)
    P = _top_eigenvectors(within.inv() * between, 1)
    P = P / sp.sqrt((P * P.T)[0])
    mu_conf = sp.Matrix([1, 0, 1])
    d = mu_conf - means[0]
    return {"P": P, "D": sp.sqrt((d.T * d)[0]), "D_projected": sp.Abs((P * d)[0])}


@claim(
    "space.independence",
    "subsec:assumptions2",
    "Remark (Space Independence): Linear projections (LDA/PCA) are used solely for computational "
    "efficiency. Theoretical bounds are established in R^{d0}, as linear projections preserve "
    "centroid topological distances up to a bounded scale factor.",
)
def check_space_independence() -> Finding:
    """Search exact PCA and LDA examples for a centroid distance sent to 0; verify the correction."""
    ratios = {}
    for name, example in (("PCA(2)", pca_counterexample()), ("LDA(C-1=1)", lda_counterexample())):
        P, D, Dp = example["P"], example["D"], example["D_projected"]
        step(f"{name}: projection matrix P", P)
        step(f"{name}: centroid distance in R^3 and after P", D, Dp)
        ratios[name] = (sp.nsimplify(D), sp.nsimplify(Dp), P)
    counterexamples = {n: r for n, r in ratios.items() if r[0] > 0 and r[1] == 0}
    if not counterexamples:
        return Finding(
            status="verified",
            established="no PCA/LDA example sent a positive centroid distance to 0",
            evidence=", ".join(f"{n}: {_show_pair(r)}" for n, r in ratios.items()),
        )
    # Corrected statement: an orthonormal-row P (PCA, and the normalised LDA direction) only
    # contracts, ||P v|| <= ||v||, because I - P^T P is an orthogonal projector (PSD); a lower
    # factor exists only for v outside ker P, which is non-trivial whenever rank P < d0.
    for name, (_D, _Dp, P) in ratios.items():
        gram = sp.eye(P.cols) - P.T * P
        eigenvalues = gram.eigenvals()
        step(f"{name}: eigenvalues of I - P^T P (all >= 0 => ||Pv|| <= ||v||)", *eigenvalues)
        require(all(ev >= 0 for ev in eigenvalues), f"{name}: I - P^T P is not PSD")
        require(len(P.nullspace()) == P.cols - P.rank() > 0, f"{name}: kernel dimension")
    witness = "; ".join(
        f"{n}: D = {r[0]} in R^3, {r[1]} after the projection" for n, r in counterexamples.items()
    )
    return Finding(
        status="erratum",
        established=(
            "exact rational data: PCA(2) of the pooled covariance diag(9/2, 9/2, 1/16) keeps x, y "
            "and drops the z offset of the error centroid; 2-class LDA keeps the x axis only, on "
            "which the error centroid (1,0,1) meets class 1's centroid (1,0,0). For both maps "
            "I - P^T P has eigenvalues in {0, 1} (so ||Pv|| <= ||v||) and ker P is non-trivial."
        ),
        evidence=witness + ": no positive lower scale factor exists",
        corrected=(
            "A linear map P satisfies s_min ||v|| <= ||P v|| <= s_max ||v|| on centroid differences "
            "v only if no difference lies in ker P; PCA/LDA with fewer dimensions than the "
            "centroids' span only contract (||P v|| <= ||v|| for orthonormal rows) and can send "
            "D_c to 0, so a bound computed in the reduced space is not a bound in R^{d0}."
        ),
    )


def _show_pair(r: tuple) -> str:
    """``D -> D_projected`` for the evidence text."""
    return f"{r[0]} -> {r[1]}"


CLAIMS = (check_space_independence,)
