r"""1-D Voronoi reduction and the events of Lemma ``lem:projection_tails`` (sign conventions).

The statement (section ``subsec:feasibility_threshold`` of [1]_) defines
:math:`\hat d_c = (\mu_{mix} - \mu_c)/D_c` and :math:`z_c(x) = \langle x - \mu_{mix}, \hat d_c\rangle`
and says :math:`x \in C_{mix}` (relative to class :math:`c`) iff :math:`z_c < D_c/2`. The proof
(appendix ``app:proof_voronoi``) derives :math:`z_c > -D_c/2` and then switches to displacement
"from :math:`\mu_{mix}` towards :math:`\mu_c`", i.e. to :math:`-z_c`. Here the algebra is done
with symbolic 3-D vectors and the consequences for the two tail events are integrated.

References
----------
.. [1] "GCUL: Ambiguity Identification in Text Emotion Classification via Cluster-Guided
   Learning" (the GCUL paper), section "Effectiveness threshold and feasibility region"
   (``subsec:feasibility_threshold``) and appendix "Proof of 1D Voronoi projection reduction"
   (``app:proof_voronoi``).
"""

from __future__ import annotations

import sympy as sp

from ._expressions import (
    gaussian_tail_expr,
    normal_interval_probability,
    projection,
    voronoi_margin,
)
from ._lemmas import (
    erf_identity_test,
)
from ._result import Finding, Outcome, claim, decide, require
from ._symbolic import all_hold, is_identity, search, show, tail_symbols

__all__ = ["CLAIMS_REDUCTION", "CLAIMS_EVENTS"]


@claim(
    "voronoi.reduction",
    "app:proof_voronoi",
    "With d_c = mu_mix - mu_c and z_c(x) = <x - mu_mix, d_c/D_c>: x is assigned to C_mix "
    "(relative to class c) iff z_c(x) < D_c/2.",
)
def check_reduction() -> Finding:
    """The statement's condition has the wrong sign for its own z_c. Sources: app:proof_voronoi."""
    x = sp.Matrix(sp.symbols("x1:4", real=True))
    mu_mix = sp.Matrix(sp.symbols("m1:4", real=True))
    mu_c = sp.Matrix(sp.symbols("c1:4", real=True))
    d = mu_mix - mu_c
    margin = voronoi_margin(x, mu_mix, mu_c)
    require(is_identity(margin, 2 * (x - mu_mix).dot(d) + d.dot(d)), "expansion of the margin")
    D = sp.sqrt(d.dot(d))
    z = projection(x, mu_mix, mu_c)
    require(is_identity(margin, 2 * D * (z + D / 2)), "margin = 2 D (z + D/2)")
    # Counterexample search for the statement as printed: mu_mix = (1,1,1), mu_c = (-1,1,-1),
    # x over an exact grid; "in C_mix" means strictly closer to mu_mix than to mu_c.
    m0, c0 = sp.Matrix([1, 1, 1]), sp.Matrix([-1, 1, -1])
    D0 = sp.sqrt((m0 - c0).dot(m0 - c0))
    coords = sp.symbols("u1:4", real=True)
    grid = {u: (-3, sp.Rational(-1, 2), 0, 1, 3) for u in coords}
    margin_u = sp.expand(voronoi_margin(sp.Matrix(coords), m0, c0))
    z_u = sp.expand(projection(sp.Matrix(coords), m0, c0))

    def rule(condition):
        def holds_at(point):
            margin_0 = margin_u.xreplace(point)
            if margin_0 == 0:
                return None  # on the boundary: either assignment
            return bool(margin_0 > 0) == bool(condition(z_u.xreplace(point)))

        return holds_at

    def describe(point):
        x0 = sp.Matrix([point[u] for u in coords])
        z0 = sp.nsimplify(projection(x0, m0, c0))
        return (
            f"mu_mix=(1,1,1), mu_c=(-1,1,-1), x={tuple(x0)}: z_c={show(z0)}, D_c/2={show(D0 / 2)}, "
            f"closer to mu_mix: {bool(voronoi_margin(x0, m0, c0) > 0)}"
        )

    printed = search(
        rule(lambda z: z < D0 / 2), "x in C_mix <=> z_c < D_c/2", grid, describe=describe
    )

    def corrected_test() -> Outcome:
        # Symbolic: margin = 2 D (z + D/2) with D > 0 gives the equivalence everywhere; the grid
        # re-checks it (both forms of the corrected rule).
        cert = Outcome(
            is_identity(margin, 2 * D * (z + D / 2)),
            "||x-mu_c||^2 - ||x-mu_mix||^2 = 2 D_c (z_c + D_c/2) with D_c > 0 (cancel)",
        )
        return all_hold(
            cert,
            search(rule(lambda z: z > -D0 / 2), "x in C_mix <=> z_c > -D_c/2", grid),
            search(rule(lambda z: -z < D0 / 2), "x in C_mix <=> -z_c < D_c/2", grid),
        )

    return decide(
        printed,
        (
            "For symbolic x, mu_mix, mu_c in R^3: ||x-mu_c||^2 - ||x-mu_mix||^2 = "
            "2<x-mu_mix, d_c> + D_c^2 = 2 D_c (z_c + D_c/2), so x is closer to mu_mix iff "
            "z_c > -D_c/2 with the statement's z_c. The proof gets this, then measures "
            "displacement 'from mu_mix towards mu_c', i.e. uses -z_c, for which the boundary is "
            "-z_c < D_c/2. The statement mixes the two conventions. Tail probabilities are "
            "unaffected by symmetry of the centred Gaussian (see projection_tails.loss_event)."
        ),
        (
            "x in C_mix (relative to c) iff z_c(x) > -D_c/2 with z_c = <x-mu_mix, "
            "(mu_mix-mu_c)/D_c>; equivalently iff z'_c(x) < D_c/2 with z'_c = <x-mu_mix, "
            "(mu_c-mu_mix)/D_c>."
        ),
        corrected_test=corrected_test,
    )


@claim(
    "projection_tails.loss_event",
    "eq:p_loss_exact",
    "For an error sample z_c ~ N(0, sigma_mix^2): p_loss := P{z_c > D_c/2} = "
    "(1/2)[1 - erf(D_c/(2 sqrt2 sigma_mix))].",
)
def check_loss_event() -> Finding:
    """The value of p_loss is the same under either convention (symmetric centred Gaussian).

    Sources: Eq. (``eq:p_loss_exact``), app:proof_projection_tails.
    """
    D, sigma = tail_symbols()  # sigma_mix,c; same symbol as the cached integrals
    zero = sp.Integer(0)
    upper = normal_interval_probability(zero, sigma, D / 2, sp.oo)  # as written
    lower = normal_interval_probability(zero, sigma, -sp.oo, -D / 2)  # loss, statement's z_c
    # Eq. (eq:p_loss_exact) as printed: \frac{1}{2}\left[1 - \operatorname{erf}\left(
    # \frac{D_c}{2\sqrt{2}\sigma_{\mathrm{mix},c}} \right)\right]
    printed = sp.Rational(1, 2) * (1 - sp.erf(D / (2 * sp.sqrt(2) * sigma)))
    points = ({D: 2, sigma: 1},)
    return decide(
        all_hold(
            erf_identity_test(upper, printed, "P(z > D/2) = printed p_loss", points),
            erf_identity_test(lower, printed, "P(z < -D/2) = printed p_loss", points),
            erf_identity_test(gaussian_tail_expr(D, sigma), printed, "erfc form", points),
        ),
        (
            "With the statement's z_c the loss event (leaving C_mix across the class-c boundary) "
            "is {z_c <= -D_c/2}, with the proof's -z_c it is {z > D_c/2}; for z ~ N(0, sigma^2) "
            "both integrate to erfc(D/(2*sqrt(2)*sigma))/2, so p_loss's value is right whichever "
            f"convention is read. P(z > D/2) = {show(sp.factor(upper))}; P(z < -D/2) = "
            f"{show(sp.factor(lower))}."
        ),
    )


@claim(
    "projection_tails.contamination_event",
    "eq:q_contam_exact",
    "For a clean class-c sample, z_c ~ N(-D_c, sigma_c^2): q_contam := P{z_c < -D_c/2} = "
    "(1/2)[1 - erf(D_c/(2 sqrt2 sigma_c))].",
)
def check_contamination_event() -> Finding:
    """With the statement's z_c, {z_c < -D/2} is *not* being captured; P = ½[1 + erf].

    Sources: Eq. (``eq:q_contam_exact``), app:proof_projection_tails.
    """
    D, sigma = tail_symbols()  # sigma_c; same symbol as the cached integrals
    x0 = D / (2 * sp.sqrt(2) * sigma)
    as_written = normal_interval_probability(-D, sigma, -sp.oo, -D / 2)
    captured = normal_interval_probability(-D, sigma, -D / 2, sp.oo)
    # Eq. (eq:q_contam_exact) as printed: \frac{1}{2}\left[1 - \operatorname{erf}\left(
    # \frac{D_c}{2\sqrt{2}\sigma_c} \right)\right]
    printed = sp.Rational(1, 2) * (1 - sp.erf(x0))
    points = ({D: 2, sigma: 1},)
    # The proof's recentred variable: <X - mu_c, d> = z_c + D_c ~ N(0, sigma_c^2); captured iff
    # it exceeds D_c/2 (statement's direction) or, in the proof's flipped direction, is < -D_c/2.
    recentred = normal_interval_probability(sp.Integer(0), sigma, -sp.oo, -D / 2)
    return decide(
        erf_identity_test(as_written, printed, "P{z_c < -D_c/2} = printed q_contam", points),
        (
            "With the statement's z_c (clean projection ~ N(-D_c, sigma_c^2)), integrate gives "
            f"P{{z_c < -D_c/2}} = {show(sp.expand(as_written.rewrite(sp.erf)))} = "
            "(1/2)[1 + erf(D_c/(2 sqrt2 sigma_c))]: the probability of NOT being captured. The "
            "capture event is {z_c > -D_c/2}, of probability erfc(D_c/(2 sqrt2 sigma_c))/2, "
            "which is what the proof's recentred variable (measured towards mu_c) yields."
        ),
        (
            "q_contam := P{z_c > -D_c/2} = (1/2)[1 - erf(D_c/(2 sqrt2 sigma_c))] with the "
            "statement's z_c (equivalently P{z'_c < D_c/2}, z'_c = -z_c)."
        ),
        lambda: all_hold(
            erf_identity_test(captured, printed, "P{z_c > -D_c/2} = printed q_contam", points),
            erf_identity_test(recentred, printed, "recentred tail = printed q_contam", points),
            erf_identity_test(
                as_written, (1 + sp.erf(x0)) / 2, "P{z_c < -D_c/2} = (1 + erf)/2", points
            ),
        ),
    )


CLAIMS_REDUCTION = (check_reduction,)
CLAIMS_EVENTS = (check_loss_event, check_contamination_event)
