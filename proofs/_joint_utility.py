r"""The paper's utility U(λ) is not a risk: its maximiser against Chow's rule, computed.

Section ``subsec:selectivity_score`` ("Operational risk & utility gain") of [1]_ prices a
misclassification at η1 and a rejection at η2 = λη1 and defines
:math:`R_{GCUL} = \varepsilon_{clean}\eta_1 + \rho\eta_2` and
:math:`\mathcal U(\lambda) = (R_{base} - R_{GCUL})/\eta_1 = \varepsilon - \varepsilon_{clean} -
\lambda\rho` as the utility gain of rejecting (section ``subsec:risk_formulation``: the condition
"under which cluster-guided uncertainty learning strictly yields positive utility").

The expected cost of a selective classifier per sample is :math:`(1-\rho)\varepsilon_{sel}\eta_1 +
\rho\eta_2`: an error is paid only on the :math:`1-\rho` accepted share. Its normalised saving is
Chow's [2]_ :math:`\mathcal U_{joint} = \varepsilon - (1-\rho)\varepsilon_{sel} - \lambda\rho`
(``gcul_theory.joint_utility``). The check derives with SymPy, for a finite mixture of atoms
(weights :math:`w_j`, conditional error :math:`e_j` of the base prediction, rejection probability
:math:`r_j` of a possibly randomised rule), that the cost saving is :math:`\mathcal U_{joint} =
\sum_j w_j r_j (e_j - \lambda)` (linear in each :math:`r_j`, so maximised atom by atom by Chow's
rule: reject iff :math:`e_j > \lambda`, i.e. accept iff the largest posterior is
:math:`\ge 1-\lambda`), that :math:`\mathcal U = \mathcal U_{joint} - \rho\,\varepsilon_{sel}`, and
that :math:`\partial\mathcal U/\partial r_j = w_j[(e_j - \varepsilon_{sel})/(1-\rho) - \lambda]`, whose
sign is not that of :math:`e_j - \lambda`. Two explicit binary mixtures with known posteriors,
every accept rule enumerated in exact arithmetic, give the counterexamples: a confidence threshold
that beats the Bayes-optimal (Chow) rule under U, and "reject everything" (U = ε − λ) beating
every selective classifier under U while Chow's rule still wins under U_joint. Every exact value
is cross-checked against ``gcul_theory.utility`` and ``gcul_theory.joint_utility``.

References
----------
.. [1] "Ambiguity identification in text emotion classification via cluster-guided learning"
   (the GCUL paper), sections ``subsec:risk_formulation`` and ``subsec:selectivity_score``.
.. [2] C. K. Chow, "On optimum recognition error and reject tradeoff", IEEE Trans. Inf. Theory
   16 (1970).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

import sympy as sp

from ._result import Finding, Outcome, claim, decide, require
from ._symbolic import all_hold, identity_test, is_identity
from ._trace import step

__all__ = [
    "Mixture",
    "MIXTURES",
    "per_sample_cost_expr",
    "rule_rates",
    "maximisers",
    "CLAIMS",
]

#: Relative tolerance of the comparison with gcul_theory, as proofs/_numeric.py (REL).
REL = 1e-12


@dataclass(frozen=True)
class Mixture:
    """A binary classification problem with finitely many inputs and known posteriors.

    Attributes
    ----------
    name : str
    weights : tuple of Rational
        :math:`P(x = j)`, summing to 1.
    posteriors : tuple of Rational
        :math:`P(y = 1 \\mid x = j)`; the base (Bayes) classifier predicts the likelier class,
        so its conditional error is :math:`e_j = \\min(p_j, 1 - p_j)` and its largest posterior
        :math:`1 - e_j`.
    lam : Rational
        The rejection cost λ.
    """

    name: str
    weights: tuple[sp.Rational, ...]
    posteriors: tuple[sp.Rational, ...]
    lam: sp.Rational

    @property
    def errors(self) -> tuple[sp.Rational, ...]:
        return tuple(sp.Min(p, 1 - p) for p in self.posteriors)


R = sp.Rational
#: Mixture "threshold": a confidence threshold (accept only max posterior 1) beats Chow under U.
#: Mixture "reject_all": rejecting everything beats every selective classifier under U.
MIXTURES = (
    Mixture("threshold", (R(1, 5), R(3, 10), R(1, 2)), (R(1), R(9, 10), R(3, 5)), R(3, 20)),
    Mixture("reject_all", (R(3, 10), R(7, 10)), (R(9, 10), R(3, 5)), R(3, 20)),
)


def per_sample_cost_expr(
    weights: Sequence[sp.Expr],
    errors: Sequence[sp.Expr],
    reject: Sequence[sp.Expr],
    eta1: sp.Expr,
    eta2: sp.Expr,
) -> sp.Expr:
    r"""Expected cost per sample: :math:`\sum_j w_j[(1 - r_j) e_j \eta_1 + r_j \eta_2]`.

    Sources: the cost model of section ``subsec:selectivity_score`` (η1 per misclassification,
    η2 per rejection), counted per sample.

    Examples
    --------
    >>> import sympy as sp
    >>> per_sample_cost_expr([sp.Rational(1, 2)] * 2, [0, sp.Rational(1, 2)], [0, 1], 1, 0)
    0
    """
    return sum(
        w * ((1 - r) * e * eta1 + r * eta2) for w, e, r in zip(weights, errors, reject, strict=True)
    )


def rule_rates(
    weights: Sequence[sp.Expr], errors: Sequence[sp.Expr], reject: Sequence[sp.Expr]
) -> dict[str, sp.Expr]:
    r"""ε, ρ, ε_sel, and the paper's capture / contamination rates r1, r2 of a rejection rule.

    ``eps_sel`` is the error among accepted samples (0 when nothing is accepted, the package's
    convention); ``r1``/``r2`` are the shares of the base errors / correct predictions rejected
    (the paper's ``r_1``, ``r_2`` of section ``subsec:selectivity_score``).

    Examples
    --------
    >>> import sympy as sp
    >>> h = sp.Rational(1, 2)
    >>> rule_rates([h, h], [0, h], [0, 1])["rho"]
    1/2
    """
    eps = sum(w * e for w, e in zip(weights, errors, strict=True))
    rho = sum(w * r for w, r in zip(weights, reject, strict=True))
    accepted_wrong = sum(w * (1 - r) * e for w, e, r in zip(weights, errors, reject, strict=True))
    rejected_wrong = sum(w * r * e for w, e, r in zip(weights, errors, reject, strict=True))
    rejected_right = rho - rejected_wrong
    eps_sel = sp.Integer(0) if rho == 1 else accepted_wrong / (1 - rho)
    return {
        "eps": eps,
        "rho": rho,
        "eps_sel": eps_sel,
        "accepted_wrong": accepted_wrong,
        "r1": rejected_wrong / eps if eps != 0 else sp.Integer(0),
        "r2": rejected_right / (1 - eps) if eps != 1 else sp.Integer(0),
    }


def _utilities(rates: dict[str, sp.Expr], lam: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    eps, rho, sel = rates["eps"], rates["rho"], rates["eps_sel"]
    return eps - sel - lam * rho, eps - (1 - rho) * sel - lam * rho


#: One deterministic accept rule: (accept set, rates, U, U_joint), exact.
_Rule = tuple[frozenset[int], dict[str, sp.Expr], sp.Expr, sp.Expr]


class _Maximisers(TypedDict):
    """The dict :func:`maximisers` returns (a plain dict at run time)."""

    rules: list[_Rule]
    argmax_u: list[frozenset[int]]
    argmax_joint: list[frozenset[int]]
    chow: frozenset[int]
    thresholds: list[frozenset[int]]
    value: dict[frozenset[int], tuple[sp.Expr, sp.Expr]]


def maximisers(mixture: Mixture) -> _Maximisers:
    """Every deterministic accept rule of the mixture (2**J accept sets), its U and U_joint.

    Returns
    -------
    dict
        ``rules``: list of (accept set, rates, U, U_joint) with exact values; ``argmax_u``,
        ``argmax_joint``: the accept sets maximising each; ``chow``: Chow's accept set
        (max posterior >= 1 - λ); ``thresholds``: the accept sets of the confidence-threshold
        rules (accept iff max posterior >= t), nested, from none to all.
    """
    errors = mixture.errors
    atoms = range(len(errors))
    rules: list[_Rule] = []
    for accept in itertools.product((False, True), repeat=len(errors)):
        reject = [sp.Integer(0) if a else sp.Integer(1) for a in accept]
        rates = rule_rates(mixture.weights, errors, reject)
        u, u_joint = _utilities(rates, mixture.lam)
        rules.append((frozenset(j for j in atoms if accept[j]), rates, u, u_joint))
    best_u = max(r[2] for r in rules)
    best_joint = max(r[3] for r in rules)
    chow = frozenset(j for j in atoms if 1 - errors[j] >= 1 - mixture.lam)
    levels = sorted({1 - e for e in errors}, reverse=True)
    thresholds: list[frozenset[int]] = [frozenset()] + [
        frozenset(j for j in atoms if 1 - errors[j] >= t) for t in levels
    ]
    return {
        "rules": rules,
        "argmax_u": [r[0] for r in rules if r[2] == best_u],
        "argmax_joint": [r[0] for r in rules if r[3] == best_joint],
        "chow": chow,
        "thresholds": thresholds,
        "value": {r[0]: (r[2], r[3]) for r in rules},
    }


def _q(value: sp.Expr) -> str:
    """An exact number, printed (not recorded as a derivation step)."""
    return sp.sstr(value)


def _name(accept: frozenset, n_atoms: int) -> str:
    if not accept:
        return "reject everything"
    if len(accept) == n_atoms:
        return "accept everything"
    return "accept atoms {" + ", ".join(str(j + 1) for j in sorted(accept)) + "}"


def _describe(mixture: Mixture) -> str:
    atoms = "; ".join(
        f"P(x={j + 1}) = {_q(w)}, P(y=1|x) = {_q(p)}"
        for j, (w, p) in enumerate(zip(mixture.weights, mixture.posteriors, strict=True))
    )
    return f"mixture '{mixture.name}' ({atoms}; lambda = {_q(mixture.lam)})"


# --------------------------------------------------------------------------------------------
# Symbolic part


def _symbolic() -> dict[str, sp.Expr]:
    """Three atoms, symbols everywhere: the cost saving, U_joint, U and the gradient of U."""
    n = 3
    w = sp.symbols("w1:4", positive=True)
    e = sp.symbols("e1:4", nonnegative=True)
    r = sp.symbols("r1:4", nonnegative=True)
    lam = sp.Symbol("lambda", nonnegative=True)
    eta1 = sp.Symbol("eta1", positive=True)
    # weights sum to one: w3 = 1 - w1 - w2
    weights = [w[0], w[1], 1 - w[0] - w[1]]
    eps = sum(weights[j] * e[j] for j in range(n))
    rho = sum(weights[j] * r[j] for j in range(n))
    accepted_wrong = sum(weights[j] * (1 - r[j]) * e[j] for j in range(n))
    eps_sel = accepted_wrong / (1 - rho)
    saving = (eps * eta1 - per_sample_cost_expr(weights, e, r, eta1, lam * eta1)) / eta1
    u_paper = eps - eps_sel - lam * rho
    u_joint = eps - (1 - rho) * eps_sel - lam * rho
    return {
        "weights": weights,
        "e": e,
        "r": r,
        "lam": lam,
        "eps": eps,
        "rho": rho,
        "eps_sel": eps_sel,
        "saving": saving,
        "u": u_paper,
        "u_joint": u_joint,
        # R_GCUL/eta1 as printed (eps_clean eta1 + rho eta2), and the per-sample cost / eta1
        "r_gcul": eps_sel + lam * rho,
        "cost": per_sample_cost_expr(weights, e, r, 1, lam),
    }


def _numeric_cross_check(mixture: Mixture, rules: list[_Rule]) -> Outcome:
    """gcul_theory.joint_utility and gcul_theory.utility against the exact values of every rule."""
    import gcul_theory as gt

    n = 0
    for accept, rates, u, u_joint in rules:
        lam = float(mixture.lam)
        eps, rho, sel = (float(rates[k]) for k in ("eps", "rho", "eps_sel"))
        # float() is the identity here: both return a float for scalar arguments
        got_joint = float(gt.joint_utility(lam, eps, sel, rho))
        got_u = float(gt.utility(lam, eps, float(rates["r1"]), float(rates["r2"])))
        for label, got, want in (("joint_utility", got_joint, u_joint), ("utility", got_u, u)):
            want = float(want)
            if abs(got - want) > max(REL * max(abs(got), abs(want)), 1e-15):
                return Outcome(
                    False,
                    f"gcul_theory.{label} = {got!r} but the exact value is {want!r} for "
                    f"'{_name(accept, len(mixture.weights))}' of mixture '{mixture.name}'",
                )
            n += 1
    return Outcome(
        True,
        f"gcul_theory.utility and gcul_theory.joint_utility equal the exact values at all {n} "
        f"(rule, utility) pairs of mixture '{mixture.name}' (rel {REL:g})",
    )


@claim(
    "joint_utility.maximiser",
    "subsec:selectivity_score",
    "'The baseline risk is R_base = N eps eta1 ... Evaluating the conditional error rate "
    "eps_clean on accepted samples gives the operational risk R_GCUL = eps_clean eta1 + rho eta2 "
    "... The normalized utility gain is U(lambda) := (R_base - R_GCUL)/eta1 = eps - eps_clean - "
    "lambda rho' (eta1 per misclassification, eta2 = lambda eta1 per rejection): U is the "
    "normalised operational-risk saving of rejecting, so the rule with the largest U is the "
    "risk-optimal rejector.",
)
def check_maximiser() -> Finding:
    """U against the per-sample cost saving (Chow): identities, gradient, and two mixtures.

    Sources: section ``subsec:selectivity_score`` ("Operational risk & utility gain"); Chow
    (1970) for the optimal rule.
    """
    s = _symbolic()
    weights, e, r, lam = s["weights"], s["e"], s["r"], s["lam"]
    linear = sum(weights[j] * r[j] * (e[j] - lam) for j in range(3))
    step("per-sample cost saving (eps eta1 - cost)/eta1", s["saving"])
    step("U_joint = eps - (1-rho) eps_sel - lambda rho", s["u_joint"])
    step("U = eps - eps_sel - lambda rho", s["u"])
    # Internal facts of the derivation (a failure here is a broken derivation, not an erratum).
    require(is_identity(s["saving"], s["u_joint"]), "cost saving = U_joint")
    require(is_identity(s["u_joint"], linear), "U_joint = sum_j w_j r_j (e_j - lambda)")
    require(
        is_identity(s["u_joint"] - s["u"], s["rho"] * s["eps_sel"]), "U_joint - U = rho eps_sel"
    )
    for j in range(3):
        require(sp.diff(linear, r[j]) == weights[j] * (e[j] - lam), "U_joint linear in r_j")
        grad = sp.diff(s["u"], r[j])
        closed = weights[j] * ((e[j] - s["eps_sel"]) / (1 - s["rho"]) - lam)
        require(is_identity(grad, closed), f"dU/dr{j + 1}")
    step("dU/dr_j = w_j [(e_j - eps_sel)/(1 - rho) - lambda]", closed)
    # R_GCUL as printed, against the expected cost per sample (both / eta1).
    gap = s["cost"] - s["r_gcul"]
    step("cost/eta1 - R_GCUL/eta1 = -rho eps_sel", gap, -s["rho"] * s["eps_sel"])
    require(is_identity(gap, -s["rho"] * s["eps_sel"]), "cost - R_GCUL = -rho eps_sel")

    results = {m.name: maximisers(m) for m in MIXTURES}
    for m in MIXTURES:
        res = results[m.name]
        # Chow's rule is a confidence threshold (1 - lambda), and U_joint's unique maximiser.
        require(res["chow"] in res["thresholds"], f"Chow's rule is a threshold rule ({m.name})")
        require(res["argmax_joint"] == [res["chow"]], f"argmax U_joint = Chow ({m.name})")
        require(
            all(a in res["thresholds"] for a in res["argmax_u"]),
            f"U's maximiser is a threshold rule ({m.name})",
        )

    def printed() -> Outcome:
        # (1) R_GCUL is the expected cost per sample: an identity in the atoms' symbols?
        per_sample = identity_test(
            s["r_gcul"],
            s["cost"],
            "R_GCUL/eta1 = expected cost per sample / eta1",
            domain={
                weights[0]: (R(1, 5),),
                weights[1]: (R(3, 10),),
                e[0]: (0,),
                e[1]: (R(1, 10),),
                e[2]: (R(2, 5),),
                r[0]: (0,),
                r[1]: (0,),
                r[2]: (1,),
                lam: (R(3, 20),),
            },
        )
        if per_sample.holds:  # pragma: no cover - the identity fails (gap = -rho eps_sel)
            return per_sample
        # (2) the consequence: U's maximiser against the risk-optimal (Chow) rule.
        texts = []
        for m in MIXTURES:
            res = results[m.name]
            n_atoms = len(m.weights)
            best = res["argmax_u"][0]
            u_best, j_best = res["value"][best]
            u_chow, j_chow = res["value"][res["chow"]]
            if res["argmax_u"] != [res["chow"]]:
                texts.append(
                    f"{_describe(m)}: U is maximised by '{_name(best, n_atoms)}' "
                    f"(U = {_q(u_best)}, U_joint = {_q(j_best)}), Chow's Bayes-optimal rule "
                    f"'{_name(res['chow'], n_atoms)}' has U = {_q(u_chow)} < {_q(u_best)} "
                    f"but U_joint = {_q(j_chow)} > {_q(j_best)}"
                )
        # The identity already fails; the mixtures show what that does to the maximiser.
        return Outcome(False, "; ".join([per_sample.detail, *texts]))

    def corrected() -> Outcome:
        return all_hold(
            identity_test(s["saving"], s["u_joint"], "(eps eta1 - per-sample cost)/eta1 = U_joint"),
            identity_test(s["u_joint"], linear, "U_joint = sum_j w_j r_j (e_j - lambda)"),
            identity_test(s["u_joint"] - s["u"], s["rho"] * s["eps_sel"], "U_joint - U"),
            Outcome(
                all(results[m.name]["argmax_joint"] == [results[m.name]["chow"]] for m in MIXTURES),
                "on both mixtures, Chow's rule is the unique maximiser of U_joint over all "
                + "/".join(str(len(results[m.name]["rules"])) for m in MIXTURES)
                + " deterministic accept rules",
            ),
            *(_numeric_cross_check(m, results[m.name]["rules"]) for m in MIXTURES),
        )

    reject_all_texts = []
    for m in MIXTURES:
        res = results[m.name]
        none_u, _ = res["value"][frozenset()]
        chow_u, _ = res["value"][res["chow"]]
        eps = rule_rates(m.weights, m.errors, [0] * len(m.weights))["eps"]
        require(none_u == eps - m.lam, "rejecting everything earns U = eps - lambda")
        if res["argmax_u"] == [frozenset()] and res["chow"]:
            reject_all_texts.append(
                f"In mixture '{m.name}' rejecting everything earns U = eps - lambda = "
                f"{_q(none_u)}, where eps = {_q(eps)} > lambda + U(Chow) = "
                f"{_q(m.lam + chow_u)}: it beats every selective classifier under U."
            )
    return decide(
        printed,
        (
            "SymPy, three atoms (weights w_j, base error e_j, rejection probability r_j): the "
            "expected cost per sample is sum_j w_j[(1-r_j) e_j eta1 + r_j eta2], and "
            "(eps eta1 - cost)/eta1 = eps - (1-rho) eps_sel - lambda rho = U_joint = "
            "sum_j w_j r_j (e_j - lambda) (cancel), linear in each r_j, so maximised atom by "
            "atom by Chow's rule (reject iff e_j > lambda: accept iff max posterior >= "
            "1 - lambda). The paper's R_GCUL/eta1 = eps_sel + lambda rho exceeds cost/eta1 by "
            "rho eps_sel (cancel): it charges the accepted error rate to every sample, rejected "
            "ones included. So U = U_joint - rho eps_sel, and "
            "dU/dr_j = w_j[(e_j - eps_sel)/(1-rho) - lambda] (cancel): U rejects an atom at the "
            "margin iff e_j > eps_sel + lambda (1 - rho), not iff e_j > lambda. Every accept rule "
            f"of {len(MIXTURES)} binary mixtures with known posteriors enumerated in exact "
            "arithmetic. " + " ".join(reject_all_texts)
        ).strip(),
        corrected=(
            "The expected cost per sample of a selective classifier is (1-rho) eps_sel eta1 + "
            "rho eta2 (an error is paid only on accepted samples), and its normalised saving is "
            "U_joint(lambda) = eps - (1-rho) eps_sel - lambda rho = U(lambda) + rho eps_sel "
            "(gcul_theory.joint_utility), maximised by Chow's rule: accept iff the largest "
            "posterior is >= 1 - lambda. The paper's U(lambda) = eps - eps_clean - lambda rho is "
            "not that saving: its maximiser can be another confidence threshold or 'reject "
            "everything' (U = eps - lambda), so U ranks rejectors differently from their cost. "
            "The criterion S_GCUL > lambda (U > 0) keeps its meaning as defined; report U_joint "
            "beside U when rejectors are compared."
        ),
        corrected_test=corrected,
    )


CLAIMS = (check_maximiser,)
