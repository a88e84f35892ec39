r"""Theorem ``thm:global_rate_bounds``: the capture bound (Eq. ``eq:r1_bound``) and the
contamination bound (Eq. ``eq:r2_bound``).

Under the lemma's own model the whole error pool is one Gaussian attractor
:math:`\mathcal N(\mu_{mix}, \Sigma_{mix})` and K-Means keeps an error in :math:`C_{mix}` only if it is
closer to :math:`\mu_{mix}` than to *every* class centre. The proof of [1]_ (appendix
``app:proof_global_rate_bounds``) charges class-:math:`c` errors only with the boundary of class
:math:`c`. Here a two-class configuration with orthogonal directions and isotropic
:math:`\Sigma_{mix}` makes the projections independent, so :math:`E[r_1]` is a product and the
gap to :math:`\hat r_1` factors; a Monte Carlo run of the actual nearest-centre rule confirms it.

References
----------
.. [1] "GCUL: Ambiguity Identification in Text Emotion Classification via Cluster-Guided
   Learning" (the GCUL paper), appendix "Proof of Theorem ``thm:global_rate_bounds`` (global
   rate bounds)" (``app:proof_global_rate_bounds``).
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from ._expressions import (
    boole_capture_bound_expr,
    capture_rate_bound_expr,
    contamination_rate_bound_expr,
    independent_capture_expr,
)
from ._lemmas import (
    MONTE_CARLO_SEED,
    nearest_centre_capture,
)
from ._result import Finding, Outcome, claim, decide, require
from ._symbolic import (
    UNIT_OPEN,
    all_hold,
    class_symbols,
    identity_test,
    is_identity,
    positivity_certificate,
    search,
    show,
)

__all__ = ["CLAIMS"]


def _half_erfc(x: float) -> float:
    return 0.5 * math.erfc(x)


@claim(
    "global_rate_bounds.r1_bound",
    "eq:r1_bound",
    "r1 >= 1 - (1/eps) sum_c pi_c eps_c (1/2)[1 - erf(D_c/(2 sqrt2 sigma_mix,c))] "
    "(errors of class c are lost only across the class-c boundary).",
)
def check_r1_bound() -> Finding:
    """r̂1 over-estimates E[r1] when errors can leave across several boundaries.

    Sources: Eq. (``eq:r1_bound``), appendix ``app:proof_global_rate_bounds`` item 1.
    """
    p1, p2 = sp.symbols("p1 p2", positive=True)
    w1 = sp.Symbol("w1", nonnegative=True)
    w2 = 1 - w1
    eps = sp.Symbol("epsilon", positive=True)
    pi1, pi2, e1, e2 = sp.symbols("pi1 pi2 epsilon1 epsilon2", positive=True)
    # The proof's own arithmetic: N cancels and the weights are pi_c eps_c / eps.
    n = sp.Symbol("N", positive=True)
    proof_r1 = 1 - (n * pi1 * e1 * p1 + n * pi2 * e2 * p2) / (n * eps)
    require(
        is_identity(proof_r1, capture_rate_bound_expr(eps, [pi1, pi2], [e1, e2], [p1, p2])),
        "proof arithmetic",
    )
    # Eq. (eq:r1_bound) as printed, with p_c = (1/2)[1 - erf(...)] left symbolic and
    # w_c = pi_c eps_c / eps: r_1 \ge 1 - \frac{1}{\varepsilon} \sum_c \pi_c \varepsilon_c p_c.
    r1_hat = 1 - w1 * p1 - w2 * p2
    exact = independent_capture_expr([p1, p2])
    gap = r1_hat - exact
    certificate = w2 * p1 * (1 - p2) + w1 * p2 * (1 - p1)
    require(is_identity(gap, certificate), f"gap {sp.expand(gap)} != certificate")
    grid = {p1: UNIT_OPEN[:3], p2: UNIT_OPEN[:3], w1: (0, sp.Rational(1, 2), 1)}

    def printed_holds(point):  # E[r1] >= r1_hat under the lemma's own model
        return bool(exact.xreplace(point) >= r1_hat.xreplace(point))

    def describe(point):
        coords = ", ".join(f"{k}={v}" for k, v in point.items())
        return f"{coords}: E[r1] = {exact.xreplace(point)} < r1_hat = {r1_hat.xreplace(point)}"

    def corrected_test() -> Outcome:
        boole = boole_capture_bound_expr([p1, p2])
        return all_hold(
            identity_test(exact - boole, p1 * p2, "E[r1] - (1 - p1 - p2) = p1 p2"),
            positivity_certificate(p1 * p2, "p1 p2 > 0", unit=(p1, p2)),
        )

    # Monte Carlo of the nearest-centre rule: mu_mix = 0, mu_1 = -D1 e1, mu_2 = -D2 e2,
    # Sigma_mix = I (sigma = 1), pi = (1/2, 1/2), eps_c = (1/5, 1/5) => w = (1/2, 1/2).
    d1, d2, n_draws = 2.0, 3.0, 200_000
    rng = np.random.default_rng(MONTE_CARLO_SEED)
    errors = rng.standard_normal((n_draws, 2))
    centres = np.array([[-d1, 0.0], [0.0, -d2]])
    captured = nearest_centre_capture(errors, np.zeros(2), centres)
    r1_mc = float(captured.mean())
    se = math.sqrt(r1_mc * (1.0 - r1_mc) / n_draws)
    q1, q2 = _half_erfc(d1 / (2 * math.sqrt(2))), _half_erfc(d2 / (2 * math.sqrt(2)))
    r1_exact = (1 - q1) * (1 - q2)
    r1_hat_num = 1 - 0.5 * q1 - 0.5 * q2
    z_exact = (r1_mc - r1_exact) / se
    z_gap = (r1_hat_num - r1_mc) / se
    require(abs(z_exact) < 5, f"Monte Carlo disagrees with (1-p1)(1-p2): z = {z_exact:.2f}")
    require(z_gap > 20, f"Monte Carlo r1 not far below r1_hat: z = {z_gap:.1f}")
    require(r1_mc >= 1 - q1 - q2 - 5 * se, "corrected Boole bound violated by Monte Carlo")
    return decide(
        search(printed_holds, "E[r1] >= r1_hat (two classes)", grid, describe=describe),
        (
            "Under the lemma's model (all errors ~ N(mu_mix, Sigma_mix)) an error is captured iff "
            "it is inside every half-space {z_c <= D_c/2} (proof's orientation), so for every "
            "geometry E[r1] = P(no boundary crossed) <= 1 - max_c p_c <= 1 - sum_c w_c p_c = "
            "r1_hat: under its own model r1_hat is an upper, not a lower, bound on E[r1] (strictly "
            "once two boundaries can be crossed). Two classes, orthogonal d_c, isotropic "
            "Sigma_mix: E[r1] = (1-p1)(1-p2) and r1_hat - E[r1] = "
            f"{show(certificate)} > 0 on (0,1)^2 for any w1 + w2 = 1 (expand). Boole over all C "
            "half-spaces gives E[r1] >= 1 - sum_c p_c (here slack p1*p2 >= 0). The proof counts "
            "an 'expected number' of lost errors, so any such bound is on E[r1], not on the "
            f"realised r1. Monte Carlo: D/sigma = (2, 3), w = (1/2, 1/2), {n_draws} draws (seed "
            f"{MONTE_CARLO_SEED}): r1 = {r1_mc:.4f} +- {se:.4f}, (1-p1)(1-p2) = {r1_exact:.4f}, "
            f"r1_hat = {r1_hat_num:.4f} ({z_gap:.0f} SE above), 1 - p1 - p2 = {1 - q1 - q2:.4f}."
        ),
        (
            "E[r1] >= 1 - sum_c p_c^loss (union over all C boundaries, unweighted; "
            "p_c^loss = erfc(D_c/(2 sqrt2 sigma_mix,c))/2), a bound in expectation."
        ),
        corrected_test,
    )


@claim(
    "global_rate_bounds.r2_bound",
    "eq:r2_bound",
    "r2 <= (1/(1-eps)) sum_c pi_c (1/2)[1 - erf(D_c/(2 sqrt2 sigma_c))].",
)
def check_r2_bound() -> Finding:
    """Necessary condition for capture gives the bound, in expectation, with slack.

    Sources: Eq. (``eq:r2_bound``), appendix ``app:proof_global_rate_bounds`` item 2.
    """
    pis, epss = class_symbols()
    qs = sp.symbols("q1:4", positive=True)
    eps = sum(p * e for p, e in zip(pis, epss, strict=True))
    total = {pis[2]: 1 - pis[0] - pis[1]}  # sum_c pi_c = 1
    clean_mass = sum(p * (1 - e) for p, e in zip(pis, epss, strict=True))
    require(is_identity(clean_mass.subs(total), (1 - eps).subs(total)), "sum pi(1-eps_c) = 1-eps")
    tight = sum(p * (1 - e) * q for p, e, q in zip(pis, epss, qs, strict=True))
    loose = sum(p * q for p, q in zip(pis, qs, strict=True))
    slack = sum(p * e * q for p, e, q in zip(pis, epss, qs, strict=True))
    # Eq. (eq:r2_bound) as printed, q_c symbolic:
    # r_2 \le \frac{1}{1-\varepsilon} \sum_c \pi_c q_c
    printed = sum(p * q for p, q in zip(pis, qs, strict=True)) / (1 - eps)
    require(is_identity(printed, contamination_rate_bound_expr(eps, pis, qs)), "r2_hat helper")

    # Monte Carlo under the lemma's model: clean class-c samples ~ N(mu_c, I), same centres.
    d = np.array([2.0, 3.0])
    n_draws = 100_000
    rng = np.random.default_rng([MONTE_CARLO_SEED, 2])
    centres = np.array([[-d[0], 0.0], [0.0, -d[1]]])
    captured = []
    for c in range(2):
        clean = centres[c] + rng.standard_normal((n_draws, 2))
        captured.append(float(nearest_centre_capture(clean, np.zeros(2), centres).mean()))
    q = [_half_erfc(dc / (2 * math.sqrt(2))) for dc in d]
    eps_num, pi_num, eps_c = 0.2, (0.5, 0.5), (0.2, 0.2)
    r2_mc = sum(p * (1 - e) * k for p, e, k in zip(pi_num, eps_c, captured, strict=True)) / (
        1 - eps_num
    )
    r2_hat = sum(p * qc for p, qc in zip(pi_num, q, strict=True)) / (1 - eps_num)
    r2_tight = sum(p * (1 - e) * qc for p, e, qc in zip(pi_num, eps_c, q, strict=True)) / (
        1 - eps_num
    )
    se = math.sqrt(max(r2_mc * (1 - r2_mc), 1e-12) / n_draws)
    require(r2_mc <= r2_tight + 5 * se, "Monte Carlo r2 above the bound")
    return decide(
        all_hold(
            identity_test(loose - tight, slack, "printed - necessary-condition bound = slack"),
            identity_test(printed, loose / (1 - eps), "printed r2 bound = sum pi q/(1-eps)"),
            Outcome(
                slack.is_positive is True,
                "slack = sum_c pi_c eps_c q_c > 0: a sum of products of positive symbols",
            ),
        ),
        (
            "A clean class-c sample is captured only if it is closer to mu_mix than to mu_c "
            "(necessary, not sufficient), an event of probability q_c = erfc(D_c/(2 sqrt2 "
            "sigma_c))/2, so E[r2] <= sum_c pi_c (1-eps_c) q_c/(1-eps) <= sum_c pi_c q_c/(1-eps). "
            "Identities (C = 3 symbolic classes): sum pi_c (1-eps_c) = 1 - eps and the slack of "
            "the last step is sum_c pi_c eps_c q_c / (1-eps) >= 0. Holds in expectation (the "
            "proof bounds an expected count). Monte Carlo (same 2-class geometry, "
            f"{n_draws} clean draws per class): r2 = {r2_mc:.4f} <= sum pi(1-eps_c) q/(1-eps) = "
            f"{r2_tight:.4f} <= r2_hat = {r2_hat:.4f}."
        ),
    )


CLAIMS = (check_r1_bound, check_r2_bound)
