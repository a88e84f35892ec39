r"""Cross-checks of the numeric package ``gcul_theory`` against the derived expressions.

Every public function of ``gcul_theory`` with a symbolic counterpart here is compared, as a
claim of its own (``numeric.<function>``), with the ``lambdify``'d expression at seeded random
points and at boundary points of its domain: relative 1e-12 for the rational functions (NumPy),
and against a 30-digit mpmath evaluation for everything that involves erfc/exp (where a float
evaluation of the expression would itself cancel). The functions' documented edge-case
conventions (:math:`\rho = 0 \Rightarrow S = 0`, clipping of the bounds, ...) are outside the
expressions' domain, so the comparison is in the interior. A disagreement makes the claim
``"failed"`` (there is no corrected statement for the code), so ``python -m proofs`` exits 1
when the numeric code drifts from the mathematics it implements.

References
----------
.. [1] "GCUL: Ambiguity Identification in Text Emotion Classification via Cluster-Guided
   Learning" (the GCUL paper), sections ``subsec:selectivity_score``,
   ``subsec:feasibility_threshold`` and ``subsec:rigorous_r1_analysis``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable

import mpmath
import numpy as np
import sympy as sp

import gcul_theory as gt

from ._expressions import (
    attractor_contamination_expr,
    boole_capture_bound_expr,
    capture_rate_bound_expr,
    chernoff_tail_expr,
    clean_error_expr,
    clip_unit,
    contamination_rate_bound_expr,
    critical_lambda_expr,
    gaussian_tail_expr,
    rejection_rate_expr,
    rigorous_capture_bound_expr,
    selectivity_closed_form,
    structural_existence_bound_expr,
    utility_expr,
)
from ._result import ClaimResult, Finding, Outcome, claim, decide

__all__ = ["CLAIMS"]

SEED = 20240611
REL = 1e-12
N_POINTS = 60
N_CLASSES = 3


def _close(a: float, b: float, rel: float = REL, abs_tol: float = 1e-15) -> bool:
    return abs(a - b) <= max(rel * max(abs(a), abs(b)), abs_tol)


def _compare(
    label: str,
    numeric: Callable[..., float | np.ndarray],  # a scalar (0-d) result, passed through float()
    reference: Callable[..., float | np.ndarray],
    points: Iterable[tuple],
    rel: float = REL,
) -> Outcome:
    n = 0
    for point in points:
        got, want = float(numeric(*point)), float(reference(*point))
        n += 1
        if not _close(got, want, rel):
            return Outcome(
                False,
                f"{label} at {tuple(round(float(x), 6) for x in point)}: gcul_theory gives "
                f"{got!r}, the expression {want!r}",
            )
    return Outcome(True, f"{label} agrees with the expression at {n} points (rel {rel:g})")


def _rates(n: int = N_POINTS, ordered: bool = False) -> list[tuple[float, float, float]]:
    """Seeded (eps, r1, r2) with 0 < rho < 1, plus boundary values of r1, r2 (0 and 1)."""
    rng = np.random.default_rng(SEED)
    pts = [(float(e), float(a), float(b)) for e, a, b in rng.uniform(0.001, 0.999, (n, 3))]
    pts += [(0.2, 1.0, 0.0), (0.7, 1.0, 0.3), (0.5, 0.4, 0.0), (0.1, 0.0, 0.0 + 0.05)]
    if ordered:
        pts = [(e, max(a, b), min(a, b)) for e, a, b in pts]
    return [(e, a, b) for e, a, b in pts if 0.0 < e * a + (1 - e) * b < 1.0]


@functools.cache
def _rate_expressions() -> dict[str, Callable[..., float]]:
    lam, eps, r1, r2 = sp.symbols("lam eps r1 r2", real=True)
    args = (eps, r1, r2)
    return {
        "rho": sp.lambdify(args, rejection_rate_expr(*args), "numpy"),
        "clean": sp.lambdify(args, clean_error_expr(*args), "numpy"),
        "utility": sp.lambdify((lam, *args), utility_expr(lam, *args), "numpy"),
        "S": sp.lambdify(args, selectivity_closed_form(*args), "numpy"),
    }


@claim(
    "numeric.rejection_rate",
    "subsec:selectivity_score",
    "gcul_theory.rejection_rate computes rho = eps r1 + (1-eps) r2.",
)
def check_rejection_rate() -> Finding:
    """Cross-check of gcul_theory.rejection_rate. Sources: subsec:selectivity_score."""
    f = _rate_expressions()["rho"]
    return decide(
        _compare("rejection_rate", gt.rejection_rate, f, _rates()),
        "lambdify(rejection_rate_expr) against gcul_theory at seeded and boundary points.",
    )


@claim(
    "numeric.clean_error",
    "subsec:selectivity_score",
    "gcul_theory.clean_error computes eps_clean = eps(1-r1)/(1-rho) for rho < 1.",
)
def check_clean_error() -> Finding:
    """Cross-check of gcul_theory.clean_error (rho = 1 convention excluded)."""
    f = _rate_expressions()["clean"]
    return decide(
        _compare("clean_error", gt.clean_error, f, _rates()),
        "lambdify(clean_error_expr) against gcul_theory where rho < 1 (rho = 1 gives 0 by "
        "convention).",
    )


@claim(
    "numeric.utility",
    "subsec:selectivity_score",
    "gcul_theory.utility computes U(lambda) = eps - eps_clean - lambda rho.",
)
def check_utility() -> Finding:
    """Cross-check of gcul_theory.utility at three costs."""
    f = _rate_expressions()["utility"]
    points = [(lam, *p) for p in _rates() for lam in (0.0, 0.15, 0.9)]
    return decide(
        _compare("utility", gt.utility, f, points, rel=1e-11),
        "lambdify(utility_expr) against gcul_theory (lambda in {0, 0.15, 0.9}).",
    )


@claim(
    "numeric.selectivity_score",
    "eq:selectivity_score",
    "gcul_theory.selectivity_score computes S_GCUL of Eq. (selectivity_score) for r2 <= r1.",
)
def check_selectivity_score() -> Finding:
    """Cross-check against the factored form (equal to the printed one: criterion.step8)."""
    f = _rate_expressions()["S"]
    return decide(
        _compare("selectivity_score", gt.selectivity_score, f, _rates(ordered=True)),
        "lambdify(selectivity_closed_form) against gcul_theory for 0 < rho < 1, r2 <= r1 "
        "(rho in {0, 1} are conventions: 0 and eps).",
    )


@claim(
    "numeric.empirical_lambda",
    "subsec:selectivity_score",
    "gcul_theory.empirical_lambda is the root in lambda of eps - eps_sel - lambda rho = 0.",
)
def check_empirical_lambda() -> Finding:
    """Derive lambda*_EMP by solving the empirical utility for lambda, then cross-check."""
    lam, eps, sel, rho = sp.symbols("lam eps sel rho", real=True)
    (root,) = sp.solve(sp.Eq(eps - sel - lam * rho, 0), lam)
    f = sp.lambdify((eps, sel, rho), root, "numpy")
    rng = np.random.default_rng([SEED, 1])
    points = [tuple(float(v) for v in row) for row in rng.uniform(0.001, 1.0, (N_POINTS, 3))]
    points += [(0.135, 0.0, 0.1654), (1.0, 0.0, 1.0), (0.0, 1.0, 0.5)]
    return decide(
        _compare("empirical_lambda", gt.empirical_lambda, f, points),
        f"solve(eps - eps_sel - lambda rho = 0, lambda) = {root}; against gcul_theory for "
        "rho > 0 (rho = 0 gives 0 by convention).",
    )


def _tail_points() -> list[tuple[float, float]]:
    rng = np.random.default_rng([SEED, 2])
    ratios = np.concatenate([rng.uniform(0.0, 1.4, 20), rng.uniform(1.4, 40.0, 30)])
    sigmas = rng.uniform(0.05, 20.0, ratios.size)
    pts = [(float(r * s), float(s)) for r, s in zip(ratios, sigmas, strict=True)]
    return pts + [(0.5, 1.0), (4.0, 1.0), (50.0, 1.0), (2.0, 3.0)]


def _mp(expr_fn: Callable[[sp.Expr, sp.Expr], sp.Expr]) -> Callable[[float, float], float]:
    D, sigma = sp.symbols("D sigma", positive=True)
    f = sp.lambdify((D, sigma), expr_fn(D, sigma), "mpmath")

    def evaluate(d: float, s: float) -> float:
        with mpmath.workdps(30):
            return float(f(mpmath.mpf(d), mpmath.mpf(s)))

    return evaluate


@claim(
    "numeric.gaussian_tail",
    "eq:p_loss_exact",
    "gcul_theory.gaussian_tail computes (1/2) erfc(D/(2 sqrt2 sigma)).",
)
def check_gaussian_tail() -> Finding:
    """Cross-check against a 30-digit evaluation of gaussian_tail_expr (relative 1e-12)."""
    return decide(
        _compare("gaussian_tail", gt.gaussian_tail, _mp(gaussian_tail_expr), _tail_points()),
        "lambdify(gaussian_tail_expr, 'mpmath') at 30 digits against gcul_theory, D/sigma in "
        "[0, 50] (both branches: erfc below x = 1/2 and erfcx(x) exp(-x^2) above).",
    )


@claim(
    "numeric.chernoff_tail",
    "eq:chernoff_outlier",
    "gcul_theory.chernoff_tail computes exp(-D^2/(8 sigma^2)).",
)
def check_chernoff_tail() -> Finding:
    """Cross-check against a 30-digit evaluation of chernoff_tail_expr (the derived optimum)."""
    return decide(
        _compare("chernoff_tail", gt.chernoff_tail, _mp(chernoff_tail_expr), _tail_points()),
        "lambdify(chernoff_tail_expr, 'mpmath') at 30 digits against gcul_theory.",
    )


@functools.cache
def _geometries() -> tuple[gt.Geometry, ...]:
    """Seeded 3-class geometries with unequal eps_c (so w_c != pi_c) and small D/sigma
    (so the union bound goes negative and the clip matters)."""
    rng = np.random.default_rng([SEED, 3])
    out = []
    for k in range(40):
        raw = rng.uniform(0.05, 1.0, N_CLASSES)
        pi = raw / raw.sum()
        eps_c = rng.uniform(0.02, 0.6, N_CLASSES)
        scale = 0.3 if k % 4 == 0 else 8.0
        D = rng.uniform(0.0, scale, N_CLASSES) + 0.05
        sigma_mix = rng.uniform(0.3, 2.0, N_CLASSES)
        sigma_c = rng.uniform(0.3, 2.0, N_CLASSES)
        out.append(
            gt.Geometry(
                eps=float(pi @ eps_c), pi=pi, eps_c=eps_c, D=D, sigma_mix=sigma_mix, sigma_c=sigma_c
            )
        )
    return tuple(out)


@functools.cache
def _bound_expressions() -> dict:
    c = N_CLASSES
    pi = sp.symbols(f"pi1:{c + 1}", positive=True)
    eps_c = sp.symbols(f"e1:{c + 1}", positive=True)
    D = sp.symbols(f"D1:{c + 1}", positive=True)
    sm = sp.symbols(f"sm1:{c + 1}", positive=True)
    sc = sp.symbols(f"sc1:{c + 1}", positive=True)
    eps = sp.Symbol("eps", positive=True)
    p = [gaussian_tail_expr(d, s) for d, s in zip(D, sm, strict=True)]
    eta = [chernoff_tail_expr(d, s) for d, s in zip(D, sm, strict=True)]
    q = [gaussian_tail_expr(d, s) for d, s in zip(D, sc, strict=True)]
    r1 = {
        "gaussian": capture_rate_bound_expr(eps, pi, eps_c, p),
        "union": rigorous_capture_bound_expr(eps, pi, eps_c, D, sm),
        "chernoff": capture_rate_bound_expr(eps, pi, eps_c, eta),
        "boole": boole_capture_bound_expr(p),
    }
    paper_r2 = contamination_rate_bound_expr(eps, pi, q)
    r2 = {m: paper_r2 for m in ("gaussian", "union", "chernoff")}
    r2["boole"] = attractor_contamination_expr(eps, pi, q)
    args = (eps, *pi, *eps_c, *D, *sm, *sc)
    out: dict = {"args": args}
    # The clip and lambda* are applied to the lambdified hats through their own lambdified
    # expressions (clip_unit of a 3-class sum is slow to build in SymPy, of a symbol it is not).
    h, h1, h2 = sp.symbols("h h1 h2", real=True)
    out["clip"] = sp.lambdify((h,), clip_unit(h), "mpmath")
    out["lambda"] = sp.lambdify((eps, h1, h2), critical_lambda_expr(eps, h1, h2), "mpmath")
    out["hats"] = {m: sp.lambdify(args, (r1[m], r2[m]), "mpmath") for m in r1}
    out["exist"] = sp.lambdify(
        args, structural_existence_bound_expr(eps, pi, eps_c, D, sm), "mpmath"
    )
    return out


def _geometry_args(g: gt.Geometry) -> tuple:
    values = (float(g.eps), *g.pi, *g.eps_c, *g.D, *g.sigma_mix, *g.sigma_c)
    return tuple(mpmath.mpf(float(v)) for v in values)


def _mp_call(f: Callable, g: gt.Geometry) -> float:
    with mpmath.workdps(30):
        return float(f(*_geometry_args(g)))


def _bound_outcome(method: str) -> Outcome:
    f = _bound_expressions()
    n_lambda = 0
    for g in _geometries():
        with mpmath.workdps(30):
            hats = f["hats"][method](*_geometry_args(g))
            clipped = [f["clip"](v) for v in hats]
            r1_hat, r2_hat = (float(v) for v in clipped)
            checks = [
                ("capture_rate_bound", gt.capture_rate_bound(g, method), r1_hat),
                ("contamination_rate_bound", gt.contamination_rate_bound(g, method), r2_hat),
            ]
            rho_hat = float(g.eps) * r1_hat + (1 - float(g.eps)) * r2_hat
            if 1e-6 < rho_hat < 1 - 1e-6 and r1_hat > r2_hat:
                want = float(f["lambda"](mpmath.mpf(float(g.eps)), *hats))
                checks.append(("critical_lambda", gt.critical_lambda(g, method), want))
                n_lambda += 1
        for name, got, want in checks:
            if not _close(float(got), want, 1e-12, 1e-14):
                return Outcome(
                    False,
                    f"{name}(method={method!r}) on {g!r}: gcul_theory gives {float(got)!r}, the "
                    f"expression {want!r}",
                )
    n = len(_geometries())
    return Outcome(
        True,
        f"{method}: capture_rate_bound and contamination_rate_bound agree at {n} geometries, "
        f"critical_lambda at the {n_lambda} with 0 < rho_hat < 1 and r1_hat > r2_hat (rel 1e-12)",
    )


def _bound_claim(method: str, reference: str, statement: str) -> Callable[[], ClaimResult]:
    @claim(f"numeric.bounds_{method}", reference, statement)
    def check() -> Finding:
        return decide(
            _bound_outcome(method),
            "lambdify of the clipped rate-bound expressions and of critical_lambda_expr "
            "(mpmath, 30 digits) against gcul_theory on 40 seeded 3-class geometries with "
            "unequal eps_c (w_c != pi_c) and, for one in four, small D/sigma (negative union "
            "r1_hat, so the clip matters).",
        )

    check.__doc__ = f"Cross-check of the {method!r} predictor's r1_hat, r2_hat and lambda*."
    return check


check_bounds_gaussian = _bound_claim(
    "gaussian",
    "thm:global_rate_bounds",
    "gcul_theory's 'gaussian' r1_hat, r2_hat, lambda* are Eqs. (r1_hat), (r2_hat) and "
    "max(0, S(clip r1_hat, clip r2_hat)).",
)
check_bounds_union = _bound_claim(
    "union",
    "eq:r1_rigorous_bound",
    "gcul_theory's 'union' r1_hat is Eq. (r1_rigorous_bound), clipped; r2_hat and lambda* as "
    "for 'gaussian'.",
)
check_bounds_chernoff = _bound_claim(
    "chernoff",
    "cor:attractor_properties",
    "gcul_theory's 'chernoff' r1_hat is 1 - sum_c w_c exp(-D_c^2/(8 sigma_mix,c^2)), clipped.",
)
check_bounds_boole = _bound_claim(
    "boole",
    "thm:global_rate_bounds",
    "gcul_theory's 'boole' r1_hat is 1 - sum_c p_c (corrected bound of "
    "global_rate_bounds.r1_bound), r2_hat adds eps/(C-1) to the paper's sum, both clipped.",
)


@claim(
    "numeric.structural_existence_confidence",
    "cor:attractor_properties",
    "gcul_theory.structural_existence_confidence computes 1 - sum_c w_c exp(-D_c^2/(8 "
    "sigma_mix,c^2)).",
)
def check_structural_existence() -> Finding:
    """Cross-check of gcul_theory.structural_existence_confidence."""
    f = _bound_expressions()["exist"]
    for g in _geometries():
        got, want = float(gt.structural_existence_confidence(g)), _mp_call(f, g)
        if not _close(got, want, 1e-12, 1e-14):
            return decide(
                Outcome(False, f"on {g!r}: gcul_theory gives {got!r}, the expression {want!r}"),
                "",
            )
    return decide(
        Outcome(True, f"agrees at {len(_geometries())} geometries (rel 1e-12)"),
        "lambdify(structural_existence_bound_expr, 'mpmath') against gcul_theory.",
    )


CLAIMS = (
    check_rejection_rate,
    check_clean_error,
    check_utility,
    check_selectivity_score,
    check_empirical_lambda,
    check_gaussian_tail,
    check_chernoff_tail,
    check_bounds_gaussian,
    check_bounds_union,
    check_bounds_chernoff,
    check_bounds_boole,
    check_structural_existence,
)
