"""Symbolic (SymPy) re-derivations of every claim of the GCUL paper.

Each claim of the paper (section ``sec:theoretical_analysis`` and its appendix) is checked by
one pure function; :func:`run_all` returns one :class:`ClaimResult` per claim, in paper order,
with status ``"verified"`` (holds as written), ``"erratum"`` (does not hold as written; a
corrected statement and a concrete witness are given) or ``"failed"`` (the check could not be
completed). ``python -m proofs`` prints the table and exits 1 if any claim failed;
``--format text|markdown|json|latex`` chooses the report, ``--claim ID`` prints one claim's
derivation step by step in that format (the same options as ``gcul prove``).

Results and CLI
---------------
ClaimResult, run_all, run_one, claim_ids, main, format_text, format_markdown, format_json,
format_latex, format_derivation, summary_line

Claims checked by counterexample search or from the paper's own numbers
-----------------------------------------------------------------------
Remark "Space Independence" (``space.independence``), the projections' Gaussian limits
(``projection.*``), the variance proxy of Eq. ``eq:chernoff_outlier``
(``variance_proxy.directional_variance``), "tails shrink as D/sigma grows" and the
sigma_mix -> oo remark (``asymptotics.*``), the "empirical fraction <= probability" step
(``r1_fraction.in_expectation``), "lambda*_PRE is consistently a conservative lower bound"
(``conservative.lambda_pre_lower_bound``), and the package's own predictors
(``predictors.*``, ``certified.guarantee``).

Symbolic expressions (SymPy; ``lambdify`` them to compare with ``gcul_theory``)
-------------------------------------------------------------------------------
rejection_rate_expr, clean_error_expr, utility_expr, joint_utility_expr
    Utility model (section ``subsec:selectivity_score``).
selectivity_expr, selectivity_closed_form, selectivity_denominator, criterion_margins
    Eq. ``eq:selectivity_score`` as printed, its factored form, the derivation's lines.
selectivity_gradient
    Theorem ``thm:monotonicity``.
voronoi_margin, projection
    The 1-D Voronoi reduction.
normal_density, normal_interval_probability, gaussian_tail_expr
    Lemma ``lem:projection_tails``.
capture_rate_bound_expr, contamination_rate_bound_expr, independent_capture_expr,
boole_capture_bound_expr, nearest_centre_capture
    Theorem ``thm:global_rate_bounds`` and its counterexample.
clip_unit, critical_lambda_expr
    Theorem ``thm:gcul_effectiveness_sufficient_condition``.
chernoff_exponent, chernoff_tail_expr
    Eq. ``eq:chernoff_outlier``.
rigorous_capture_bound_expr
    Theorem ``thm:r1_rigorous``.
structural_existence_bound_expr
    Corollary ``cor:attractor_properties``.
"""

from ._chernoff import chernoff_exponent, chernoff_tail_expr
from ._corollary import structural_existence_bound_expr
from ._criterion import (
    criterion_margins,
    selectivity_closed_form,
    selectivity_denominator,
    selectivity_expr,
)
from ._monotonicity import selectivity_gradient
from ._rate_bounds import (
    boole_capture_bound_expr,
    capture_rate_bound_expr,
    contamination_rate_bound_expr,
    independent_capture_expr,
    nearest_centre_capture,
)
from ._result import ClaimResult
from ._rigorous import rigorous_capture_bound_expr
from ._runner import (
    claim_ids,
    format_derivation,
    format_json,
    format_latex,
    format_markdown,
    format_text,
    main,
    run_all,
    run_one,
    summary_line,
)
from ._sufficient import clip_unit, critical_lambda_expr
from ._tails import gaussian_tail_expr, normal_density, normal_interval_probability
from ._utility import clean_error_expr, joint_utility_expr, rejection_rate_expr, utility_expr
from ._voronoi import projection, voronoi_margin

__all__ = [
    "ClaimResult",
    "run_all",
    "run_one",
    "claim_ids",
    "main",
    "format_text",
    "format_markdown",
    "format_json",
    "format_latex",
    "format_derivation",
    "summary_line",
    "rejection_rate_expr",
    "clean_error_expr",
    "utility_expr",
    "joint_utility_expr",
    "selectivity_expr",
    "selectivity_closed_form",
    "selectivity_denominator",
    "criterion_margins",
    "selectivity_gradient",
    "voronoi_margin",
    "projection",
    "normal_density",
    "normal_interval_probability",
    "gaussian_tail_expr",
    "capture_rate_bound_expr",
    "contamination_rate_bound_expr",
    "independent_capture_expr",
    "boole_capture_bound_expr",
    "nearest_centre_capture",
    "clip_unit",
    "critical_lambda_expr",
    "chernoff_exponent",
    "chernoff_tail_expr",
    "rigorous_capture_bound_expr",
    "structural_existence_bound_expr",
]
