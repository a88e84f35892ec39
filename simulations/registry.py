r"""The judged methods of the package: one entry per method, everything the outputs say of it.

A *judged method* is anything the package's tables, figures, slides and commands compare: the λ*
predictors of the feasibility theory, the certified predictor, and the selective classifiers
(rejectors) that GCUL is measured against. Each is one :class:`JudgedMethod` of :data:`METHODS`,
which carries

- how it is computed (``compute``: its :class:`gcul_theory.Predictor`; None for a rejector,
  whose :class:`simulations.rejectors.Rejector` is ``get_rejector(name)`` and reads its label
  from here, and for the certified predictor, which the sweep cell computes with
  :mod:`simulations.certification`);
- its display ``label`` (tables, figure titles) and its drawing :class:`Style`;
- its :class:`Validity`: whether it is valid, and the few words every output uses to say so;
- its ``guarantee``, one phrase: what holds and under which assumptions;
- its results columns: ``predicted`` and ``empirical`` (what it is judged on), ``columns``
  (every column of ``results.csv`` it owns; :data:`simulations.results.ROW_COLUMNS` is built
  from them).

:mod:`simulations.report`, :mod:`simulations.figures`, :mod:`simulations.demo`,
:mod:`simulations.baseline_figures`, :mod:`simulations.feasibility` and the CLI read all of this
from here; no other module keeps a label, a style or a validity wording of a method.

Families
--------
``"predictor"``
    A :math:`\lambda^*_{PRE}` forecast from the training geometry, one per entry of
    :data:`gcul_theory.PREDICTORS`, judged by its Type-I/II violations against ``lambda_emp``.
``"certificate"``
    :math:`\lambda^*_{CERT}` of a GCUL fitted on 80% of the training split and certified on the
    rest, judged by its violations against :math:`\lambda^*_{EMP}` of that same model.
``"rejector"``
    A selective classifier of :data:`simulations.rejectors.REJECTORS`, judged by its selective
    risk.

To add a predictor
------------------
1. Its theory: a :class:`gcul_theory.Predictor` entry in ``gcul_theory/_predictors.py``, which
   carries its capture function (``r1=``) (the theory's own tests in ``tests/test_predictors.py``).
2. Its entry here: one ``_predictor(name, label, Style(...))`` line in :data:`METHODS`, in the
   order of :data:`gcul_theory.PREDICTORS` (that order is the column order of ``results.csv``).

Nothing else: the sweep computes its columns, the violation tables, the predictors figure, the
slides and ``gcul feasibility --method`` pick it up from here. A rejector is added in
:mod:`simulations.rejectors` (its computation) and here (its label and style).

Examples
--------
>>> from simulations import registry
>>> registry.method("hunter_worsley").label
'Hunter–Worsley'
>>> [m.name for m in registry.methods("certificate")]
['certified', 'certified_noisy']
>>> registry.method("union").predicted, registry.method("certified").empirical
('lambda_pre_union', 'lambda_emp_cert')
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import gcul_theory

__all__ = [
    "DEFAULT_PREDICTOR",
    "FAMILIES",
    "METHODS",
    "OKABE_ITO",
    "PAPER_METHOD",
    "TOL_WINE",
    "JudgedMethod",
    "Style",
    "Validity",
    "described",
    "judged_names",
    "method",
    "methods",
]

FAMILIES: tuple[str, ...] = ("predictor", "certificate", "rejector")
"""The kinds of judged method (module docstring)."""

DEFAULT_PREDICTOR: str = gcul_theory.DEFAULT_METHOD
"""The one default predictor of a verdict (``gcul feasibility``, :func:`simulations.feasibility.assess`):
:data:`gcul_theory.DEFAULT_METHOD`, ``"hunter_worsley"``, the tightest valid bound."""

PAPER_METHOD: str = "union"
"""The paper's predictor: the λ*_PRE of the paper's figure ``fig:synthetic_dynamics`` and of its
tables ``tab:violation_analysis`` and ``tab:synthetic_gcul`` (Eq. ``eq:r1_rigorous_bound``)."""

_PRE = r"$\lambda^*_{\mathrm{PRE}}$"
_CERT = r"$\lambda^*_{\mathrm{CERT}}$"


@dataclass(frozen=True)
class Style:
    """How every drawing tells a method apart (colours of the Okabe–Ito palette).

    Attributes
    ----------
    colour : str
        A Matplotlib colour.
    linestyle : str or tuple
        A Matplotlib line style (a name or an ``(offset, dashes)`` tuple).
    marker : str or None
        The marker of its line (predictors on a slide; rejectors in every figure, where curves
        that lie on one another stay told apart by their marks); None where none is drawn.
    width : float or None
        The line width of its curve (rejectors); None: the figure's own width.
    """

    colour: str
    linestyle: Any
    marker: str | None = None
    width: float | None = None


@dataclass(frozen=True)
class Validity:
    """Whether a method is valid, in the words of each output (one instance per kind of method).

    Attributes
    ----------
    valid : bool
        Whether its promise holds (the ``Valid`` column of the violation tables).
    word : str
        A figure's panel title: ``"valid"``, ``"not valid"``, ``"model value"``, ...
    slide : str
        A classroom slide: ``"paper, NOT valid"``, ``"valid"``, ...
    reason : str
        The validity line of the tables (:func:`simulations.report.validity_line`): why.
    """

    valid: bool
    word: str
    slide: str
    reason: str


_BY_KIND = {
    "paper": Validity(False, "not valid", "paper, NOT valid", "as printed in the paper"),
    "bound": Validity(True, "valid", "valid", "in expectation, under the paper's Gaussian model"),
    "model": Validity(False, "model value", "model value", "model value, not a bound"),
}
"""The validity of a theory predictor, by its :attr:`gcul_theory.Predictor.kind`."""
_FINITE_SAMPLE = Validity(
    True,
    "finite-sample valid",
    "finite-sample valid",
    "finite-sample valid for the model it certifies",
)
_NOISY = Validity(
    True, "valid", "valid", "the same, judged on test labels as noisy as its calibration labels"
)
_NO_GUARANTEE = Validity(
    False, "no guarantee", "no guarantee", "a selective classifier, judged by its selective risk"
)


@dataclass(frozen=True)
class JudgedMethod:
    """One judged method (module docstring).

    Attributes
    ----------
    name : str
        Its identifier (``[a-z_]+``), unique over :data:`METHODS`.
    family : {"predictor", "certificate", "rejector"}
        What it is (:data:`FAMILIES`).
    label : str
        Its display name in tables and figures.
    style : Style
        How drawings tell it apart.
    validity : Validity
        Whether it is valid, and the words that say so.
    guarantee : str
        What holds, under which assumptions (a verdict or a help text quotes it).
    predicted, empirical : str or None
        The results columns of its forecast and of what it is judged against (None for a
        rejector).
    columns : tuple of str
        The results columns it owns (a predictor: ``lambda_pre_<name>``, ``r1_hat_<name>``).
    compute : object
        Its computation: a :class:`gcul_theory.Predictor`, or None (a rejector: its
        :class:`simulations.rejectors.Rejector` is ``get_rejector(name)``, kept out of this
        module so that reading a label does not import the rejectors; the certified predictor:
        computed by the sweep cell with :mod:`simulations.certification`).
    symbol : str
        The mathtext symbol of its forecast (λ*_PRE or λ*_CERT); empty for a rejector.
    judged_on : str
        For a method judged on other columns than a predictor's: the sentence that says on
        which (tables' captions); empty otherwise.
    judged_on_tex : str
        ``judged_on`` in LaTeX; empty: ``judged_on`` with LaTeX's specials escaped.
    always : bool
        Whether the violation analysis judges it by default; if False, only when the results
        hold its ``empirical`` column.
    operating_point : str
        A rejector's natural operating point in the few words of ``gcul compare``'s table
        ("own rule" where the rejector has one and this is empty; the full sentence is
        :attr:`simulations.rejectors.Rejector.operating_point`).
    """

    name: str
    family: str
    label: str
    style: Style
    validity: Validity
    guarantee: str
    predicted: str | None
    empirical: str | None
    columns: tuple[str, ...]
    compute: Any
    symbol: str = ""
    judged_on: str = ""
    judged_on_tex: str = ""
    always: bool = True
    operating_point: str = ""

    @property
    def slide_title(self) -> str:
        """The heading of its forecast on a slide: its symbol, followed by its name where the
        symbol is that of every theory predictor (λ*_PRE)."""
        return f"{self.symbol} {self.name}" if self.symbol == _PRE else self.symbol


def _predictor(name: str, label: str, style: Style) -> JudgedMethod:
    """The entry of the theory predictor ``name`` of :data:`gcul_theory.PREDICTORS`."""
    theory = gcul_theory.predictor(name)
    return JudgedMethod(
        name=name,
        family="predictor",
        label=label,
        style=style,
        validity=_BY_KIND[theory.kind],
        guarantee=gcul_theory.guarantee_phrase(theory),
        predicted=f"lambda_pre_{name}",
        empirical="lambda_emp",
        columns=(f"lambda_pre_{name}", f"r1_hat_{name}"),
        compute=theory,
        symbol=_PRE,
    )


def _rejector(name: str, label: str, style: Style, operating_point: str = "") -> JudgedMethod:
    """The entry of the rejector ``name`` of :data:`simulations.rejectors.REJECTORS` (whose
    ``Rejector.label`` is read from here)."""
    return JudgedMethod(
        name=name,
        family="rejector",
        label=label,
        style=style,
        validity=_NO_GUARANTEE,
        guarantee=_NO_GUARANTEE.reason,
        predicted=None,
        empirical=None,
        columns=(),
        compute=None,
        operating_point=operating_point,
    )


OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
}
"""Okabe & Ito (2008), the colour-blind-safe palette of every figure and slide (also
``simulations.figures.OKABE_ITO``)."""

TOL_WINE = "#882255"
"""Paul Tol's "wine" (muted scheme), colour-blind safe and dark: the ninth colour, where the eight
of Okabe–Ito are taken and their yellow is too pale on white (the kNN rejector)."""

# The certified predictor: λ*_CERT judged against λ*_EMP of the model it certifies; then the same
# λ*_CERT judged on test labels as noisy as its calibration labels, the test of the guarantee
# itself (the certificate speaks of the label law of its calibration data)
_CERTIFIED = JudgedMethod(
    name="certified",
    family="certificate",
    label="Certified",
    style=Style(OKABE_ITO["black"], "-", "*"),
    validity=_FINITE_SAMPLE,
    guarantee=_FINITE_SAMPLE.reason,
    predicted="lambda_cert",
    empirical="lambda_emp_cert",
    columns=("lambda_cert", "lambda_emp_cert"),
    compute=None,
    symbol=_CERT,
    judged_on="λ*_CERT (fit on 80% of the training split, certified on 20%) against λ*_EMP "
    "of that same model on the test split (lambda_emp_cert)",
    judged_on_tex=r"$\lambda^*_{\mathrm{CERT}}$ (fit on 80\% of the training split, "
    r"certified on 20\%) against $\lambda^*_{\mathrm{EMP}}$ of that same model on the "
    "test split",
)
_CERTIFIED_NOISY = replace(
    _CERTIFIED,
    name="certified_noisy",
    label="Certified, noisy labels",
    style=replace(_CERTIFIED.style, linestyle="--"),
    validity=_NOISY,
    guarantee=_NOISY.reason,
    empirical="lambda_emp_cert_noisy",
    columns=("lambda_emp_cert_noisy",),
    judged_on="the same λ*_CERT against λ*_EMP on the test labels flipped as the calibration "
    "labels are (lambda_emp_cert_noisy), the test of its guarantee",
    judged_on_tex=r"the same $\lambda^*_{\mathrm{CERT}}$ against $\lambda^*_{\mathrm{EMP}}$ on the "
    "test labels flipped as the calibration labels are, the test of its guarantee",
    always=False,
)

METHODS: tuple[JudgedMethod, ...] = (
    # The theory's predictors, in the order of gcul_theory.PREDICTORS (results.csv's order)
    _predictor("gaussian", "Gaussian", Style(OKABE_ITO["vermillion"], "--", "v")),
    _predictor("union", "Union", Style(OKABE_ITO["orange"], "--", "^")),
    _predictor("chernoff", "Chernoff", Style(OKABE_ITO["purple"], "-.", "D")),
    _predictor("boole", "Boole", Style(OKABE_ITO["blue"], "-", "s")),
    _predictor("hunter_worsley", "Hunter–Worsley", Style(OKABE_ITO["green"], "-", "o")),
    _predictor("gaussian_exact", "Gaussian exact", Style(OKABE_ITO["sky_blue"], ":", "P")),
    _CERTIFIED,
    _CERTIFIED_NOISY,
    # The rejectors of simulations.rejectors, each with its own marker (figures mark every
    # curve, so that curves lying on one another stay told apart); bayes, the floor, black and
    # thin, drawn under the others. kNN's colour is Paul Tol's "wine" (#882255): Okabe–Ito's
    # eight are all taken, and its yellow is too pale on white for a thin line.
    _rejector(
        "gcul",
        "GCUL",
        Style(OKABE_ITO["vermillion"], "-", "o", width=1.8),
        "own accept set",
    ),
    _rejector(
        "msp",
        "MSP",
        Style(OKABE_ITO["blue"], "--", "s", width=1.5),
        "Chow: p_max >= 1 - lam",
    ),
    _rejector("entropy", "Entropy", Style(OKABE_ITO["sky_blue"], (0, (1, 1)), "^", width=1.3)),
    _rejector("mahalanobis", "Mahalanobis", Style(OKABE_ITO["green"], "-.", "D", width=1.1)),
    _rejector("knn", "kNN distance", Style(TOL_WINE, (0, (5, 1, 1, 1, 1, 1)), "v", width=1.1)),
    _rejector(
        "selectivenet",
        "SelectiveNet (linear)",
        Style(OKABE_ITO["purple"], (0, (3, 1)), "P", width=1.1),
        "g >= 0.5",
    ),
    _rejector(
        "deep_gamblers",
        "Deep Gamblers (linear)",
        Style(OKABE_ITO["orange"], (0, (6, 2)), "X", width=1.1),
    ),
    _rejector(
        "bayes",
        "Bayes (oracle)",
        Style(OKABE_ITO["black"], "-", None, width=1.0),
        "Chow: max P >= 1 - lam",
    ),
)
"""Every judged method: the theory's predictors, the certified predictor, the rejectors."""


def methods(family: str | None = None) -> tuple[JudgedMethod, ...]:
    """The entries of :data:`METHODS` (read at call time), all or those of one ``family``.

    Raises
    ------
    ValueError
        If ``family`` is not None nor one of :data:`FAMILIES`.

    Examples
    --------
    >>> [m.name for m in methods("predictor")][:3]
    ['gaussian', 'union', 'chernoff']
    >>> methods("bound")
    Traceback (most recent call last):
    ...
    ValueError: family must be one of 'predictor', 'certificate', 'rejector' or None; got 'bound'
    """
    if family is None:
        return METHODS
    if family not in FAMILIES:
        allowed = ", ".join(map(repr, FAMILIES))
        raise ValueError(f"family must be one of {allowed} or None; got {family!r}")
    return tuple(m for m in METHODS if m.family == family)


def method(name: str) -> JudgedMethod:
    """The entry called ``name``.

    Raises
    ------
    ValueError
        If no entry of :data:`METHODS` is called ``name`` (one line, naming them all).

    Examples
    --------
    >>> method("boole").validity.word, method("union").validity.slide
    ('valid', 'paper, NOT valid')
    >>> method("bogus")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown method 'bogus'; known: gaussian, union, chernoff, ..., bayes
    """
    for entry in METHODS:
        if entry.name == name:
            return entry
    known = ", ".join(m.name for m in METHODS)
    raise ValueError(f"unknown method {name!r}; known: {known}")


def judged_names(*, always: bool = False) -> tuple[str, ...]:
    """The names judged by violations (families "predictor" and "certificate"), in order; with
    ``always``, only those judged by default.

    Examples
    --------
    >>> judged_names(always=True)[-2:], judged_names()[-1]
    (('gaussian_exact', 'certified'), 'certified_noisy')
    """
    return tuple(
        m.name
        for m in METHODS
        if m.family in ("predictor", "certificate") and (m.always or not always)
    )


def described(family: str) -> str:
    """``"name (guarantee); ..."`` of every method of ``family``: what a command's help lists.

    Examples
    --------
    >>> described("predictor").split("; ")[0]
    "gaussian (the paper's printed bound, NOT a valid lower bound)"
    """
    return "; ".join(f"{m.name} ({m.guarantee})" for m in methods(family))
