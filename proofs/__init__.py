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
capture_rate_bound_expr, contamination_rate_bound_expr
    Theorem ``thm:global_rate_bounds``.
independent_capture_expr, boole_capture_bound_expr, nearest_centre_capture
    The counterexample to Theorem ``thm:global_rate_bounds`` and its corrected (Boole) bound.
clip_unit, critical_lambda_expr
    Theorem ``thm:gcul_effectiveness_sufficient_condition``.
chernoff_exponent, chernoff_tail_expr
    Eq. ``eq:chernoff_outlier``.
rigorous_capture_bound_expr
    Theorem ``thm:r1_rigorous``.
structural_existence_bound_expr
    Corollary ``cor:attractor_properties``.

Layout (where a change goes)
----------------------------
``_expressions.py``
    every symbolic expression above (one pure function per formula): the bottom layer.
``_lemmas.py``
    tools several claims share (an erf identity test, exp(-x^2) >= erfc(x), exact binomial
    tails, the nearest-centre assignment of the Monte Carlo checks), also at the bottom.
``_symbolic.py``, ``_result.py``, ``_trace.py``
    identity tests and counterexample search, the claim decorator and verdicts, ``--claim``'s
    step recording.
one module per claim family (``_utility.py``, ``_criterion.py``, ..., ``_numeric.py``)
    the claims; each imports only the bottom layer, never another claim module, so there is no
    import circle (``tests/test_import_graph.py``). A new claim goes into its family's module
    (or a new one) and into ``_runner.CHECKS`` in paper order.
``_runner.py``
    runs the claims in paper order and formats the report; the CLI.
``citations.py`` (public) and ``paper_labels.csv``
    the one citation engine: a label of the paper becomes the number and title its PDF prints,
    in the report's outputs and on the documentation site; the table is data, generated from the
    paper's source by ``tools/paper_labels.py``. It imports nothing else of ``proofs``.
"""

from ._expressions import (
    boole_capture_bound_expr,
    capture_rate_bound_expr,
    chernoff_exponent,
    chernoff_tail_expr,
    clean_error_expr,
    clip_unit,
    contamination_rate_bound_expr,
    criterion_margins,
    critical_lambda_expr,
    gaussian_tail_expr,
    independent_capture_expr,
    joint_utility_expr,
    normal_density,
    normal_interval_probability,
    projection,
    rejection_rate_expr,
    rigorous_capture_bound_expr,
    selectivity_closed_form,
    selectivity_denominator,
    selectivity_expr,
    selectivity_gradient,
    structural_existence_bound_expr,
    utility_expr,
    voronoi_margin,
)
from ._lemmas import nearest_centre_capture
from ._result import ClaimResult
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
