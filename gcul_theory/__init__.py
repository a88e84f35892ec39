r"""The mathematics of GCUL, as numbers: closed forms, bounds and estimators of their inputs.

Every function broadcasts over NumPy arrays (scalars in, floats out), validates its inputs at
the boundary and documents its edge cases and its output range. Section, equation and theorem
labels (``eq:selectivity_score``, ``thm:r1_rigorous``, ...) are those of the GCUL paper,
"Ambiguity identification in text emotion classification via cluster-guided learning".

Selectivity (``subsec:selectivity_score``)::

    rejection_rate        ρ = ε r1 + (1-ε) r2 ∈ [0, 1]
    clean_error           ε_clean = ε(1-r1)/(1-ρ) ∈ [0, 1]
    utility               U(λ) = ε - ε_clean - λρ ∈ [-2, 1]
    selectivity_score     S_GCUL ∈ [0, 1], Eq. ``eq:selectivity_score``; S > λ ⟺ U(λ) > 0
    selectivity_at_rate   S = ε(r1 - ρ)/(ρ(1 - ρ)) at a given rejection rate ρ, also for r2 > r1
    empirical_lambda      λ*_EMP = (ε - ε_sel)/ρ ∈ [-1, 1], for rates one test set can produce

Tails (``lem:projection_tails``, ``eq:chernoff_outlier``)::

    gaussian_tail         ½ erfc(D/(2√2σ)) ∈ [0, ½]
    chernoff_tail         exp(-D²/(8σ²)) ∈ [0, 1]

Geometry and bounds (``thm:global_rate_bounds``, ``thm:r1_rigorous``,
``thm:gcul_effectiveness_sufficient_condition``, ``cor:attractor_properties``)::

    Geometry, estimate_geometry  ε, π_c, ε_c, D_c, σ_mix,c, σ_c (at most 4096 classes)
    MAX_CLASSES           4096, the largest number of classes estimate_geometry accepts
    capture_rate_bound    r̂1 ∈ [0, 1] of a predictor (``method``, a name in METHODS)
    contamination_rate_bound  r̂2 ∈ [0, 1]
    critical_lambda       λ*_PRE = max(0, S(ε, r̂1, r̂2)) ∈ [0, 1]; method DEFAULT_METHOD
    critical_lambda_from_rates  the same λ*_PRE from ε, r̂1, r̂2 computed once (same bits)
    structural_existence_confidence  S_exist ∈ [0, 1]
    feasibility_report    λ*_PRE, r̂1, r̂2, per-class table and a verdict, printable as text
    COLUMN_LEGEND         (name, definition) of every column of the report's per-class table
    guarantee_phrase      the words a verdict quotes for a predictor's guarantee (by its kind)

Predictors (the registry)::

    PREDICTORS            every method: name, kind (paper / bound / model), valid, guarantee
    METHODS               the names, the paper's "gaussian", "union", "chernoff" (NOT valid lower
                          bounds: errata) then "boole", "hunter_worsley" (valid) and
                          "gaussian_exact" (model value)
    predictor             the registry entry of one name
    DEFAULT_METHOD        "hunter_worsley", the one default of every function with a ``method``
                          (the tightest valid bound; needs Geometry.corr_mix, which
                          estimate_geometry fills; refused by name without it)
    finite_sample_lambda  λ*_PRE whose rates hold with probability ≥ 1 - δ over the sample
    hoeffding_deviation   √(log(1/α)/(2n)), the Hoeffding term finite_sample_lambda uses
    SingleAttractorModel  the model finite_sample_lambda assumes, as a sampler, and Monte Carlo
                          replications of its promise

Certified predictor (held-out calibration data, beyond the paper)::

    certified_lambda           λ*_CERT: largest λ whose (1 - δ) lower bound on U(λ) is positive
    utility_confidence_bounds  one-sided (1 - δ) bounds on U(λ) at one λ
    cross_fit_utility_bounds   CrossFitBounds: K fold models each judged on its held-out fold
    CERTIFIED_METHODS          "betting" (finite-sample valid), "asymptotic" (delta method)
    ASYMPTOTIC_MIN_COUNT       fewest rejected and accepted samples "asymptotic" accepts (100)
    null_boundary_law          a law of calibration outcomes with U(λ) = 0 (the worst case)
    NULL_BOUNDARY_LAWS         the three such laws its Monte Carlo checks use
    draw_calibration_outcomes  n iid samples of such a law: the indicators certified_lambda takes

Selective-classification evaluation (``subsec:selective_exp``; scores: higher = keep)::

    selective_risk_at_coverage  error among the m highest scores ∈ [0, 1], ties by expected
                                value; 0 when m = 0
    risk_coverage_curve   RiskCoverageCurve: coverage m/n, selective and generalised risk, m = 1..n
    aurc                  mean selective risk over m = 1..n ∈ [0, 1] (Geifman et al. 2019)
    e_aurc                AURC minus the oracle ranking's exact AURC ∈ [0, 1), never negative
    augrc                 trapezoid area under E(m)/n through (0, 0) ∈ [0, ½] (Traub et al. 2024)
    joint_utility         U_joint = ε - (1-ρ)ε_sel - λρ ∈ [-1, 1] (Chow), = U + ρ ε_sel
    selective_risk_upper_bound  (1 - δ) Clopper-Pearson bound on a fixed rule's selective risk
    sgr_threshold         SGRResult: SGR's threshold with a (1 - δ) risk bound below a target
                          (Geifman & El-Yaniv 2017), or a refusal with its reason

Where a change goes (one idea per private module)::

    a predictor            one entry of PREDICTORS carrying its capture function (_predictors.py),
                           plus its tests; then one entry in simulations.registry (label,
                           style, columns), which every table, figure and command iterates over
    the orthant probability  _orthant.py (Genz's method; "gaussian_exact")
    finite_sample_lambda   _finite_sample.py; the unbiased quadratic forms it uses: _moments.py;
                           the model it assumes: _attractor_model.py
    the geometry           Geometry and estimate_geometry: _geometry.py
    a public bound         _bounds.py; the feasibility report and its wording: _report.py
    λ*_CERT                _certified.py (betting and asymptotic bounds on U(λ)); the laws
                           that check its guarantee: _null_laws.py
    the utility model      _selectivity.py, _joint_utility.py; the tails: _tails.py
    selective metrics      _risk_coverage.py, _selective_guarantees.py
    argument checks        _validation.py (validation happens once, at the public boundary)

No module imports a private (``_x``) name of another module (tests/test_private_imports.py);
a helper another module needs has a public name in its own module.
"""

from ._attractor_model import SingleAttractorModel
from ._bounds import (
    METHODS,
    capture_rate_bound,
    contamination_rate_bound,
    critical_lambda,
    critical_lambda_from_rates,
    structural_existence_confidence,
)
from ._certified import (
    ASYMPTOTIC_MIN_COUNT,
    CERTIFIED_METHODS,
    certified_lambda,
    utility_confidence_bounds,
)
from ._cross_fit import CrossFitBounds, cross_fit_utility_bounds
from ._finite_sample import FiniteSampleBound, finite_sample_lambda, hoeffding_deviation
from ._geometry import MAX_CLASSES, Geometry, estimate_geometry
from ._joint_utility import joint_utility
from ._null_laws import NULL_BOUNDARY_LAWS, draw_calibration_outcomes, null_boundary_law
from ._predictors import DEFAULT_METHOD, PREDICTORS, Predictor, predictor
from ._report import COLUMN_LEGEND, FeasibilityReport, feasibility_report, guarantee_phrase
from ._risk_coverage import (
    RiskCoverageCurve,
    augrc,
    aurc,
    e_aurc,
    risk_coverage_curve,
    selective_risk_at_coverage,
)
from ._selective_guarantees import SGRResult, selective_risk_upper_bound, sgr_threshold
from ._selectivity import (
    clean_error,
    empirical_lambda,
    rejection_rate,
    selectivity_at_rate,
    selectivity_score,
    utility,
)
from ._tails import chernoff_tail, gaussian_tail

__all__ = [
    "ASYMPTOTIC_MIN_COUNT",
    "CERTIFIED_METHODS",
    "COLUMN_LEGEND",
    "certified_lambda",
    "utility_confidence_bounds",
    "NULL_BOUNDARY_LAWS",
    "draw_calibration_outcomes",
    "null_boundary_law",
    "CrossFitBounds",
    "cross_fit_utility_bounds",
    "DEFAULT_METHOD",
    "MAX_CLASSES",
    "METHODS",
    "PREDICTORS",
    "FeasibilityReport",
    "FiniteSampleBound",
    "SingleAttractorModel",
    "Predictor",
    "Geometry",
    "capture_rate_bound",
    "chernoff_tail",
    "clean_error",
    "contamination_rate_bound",
    "critical_lambda",
    "critical_lambda_from_rates",
    "empirical_lambda",
    "estimate_geometry",
    "feasibility_report",
    "finite_sample_lambda",
    "gaussian_tail",
    "guarantee_phrase",
    "hoeffding_deviation",
    "predictor",
    "rejection_rate",
    "selectivity_at_rate",
    "selectivity_score",
    "structural_existence_confidence",
    "utility",
    "RiskCoverageCurve",
    "SGRResult",
    "aurc",
    "augrc",
    "e_aurc",
    "joint_utility",
    "risk_coverage_curve",
    "selective_risk_at_coverage",
    "selective_risk_upper_bound",
    "sgr_threshold",
]
