"""Will a reject option pay off on your own embeddings? :func:`assess` answers what ``gcul feasibility``
prints.

:func:`assess` takes embeddings, labels and, optionally, phase-1 predictions; it fits phase 1 when
they are missing (GCUL's multinomial logistic regression, in-sample), computes λ*_PRE of every
requested predictor (:func:`gcul_theory.feasibility_report`) and, with ``certify=True``, splits
the rows, fits GCUL on one part and certifies it on the other (:meth:`simulations.gcul.GCUL.certify`).
It words the verdict: never "feasible" when GCUL cannot reject. The result prints as text
(:meth:`Assessment.format`) or as one JSON object (:meth:`Assessment.to_dict`).

References
----------
.. [1] "GCUL: Ambiguity Identification in Text Emotion Classification via Cluster-Guided
   Learning" (the GCUL paper), Section "Feasibility analysis" (``eq:selectivity_score``,
   ``cor:attractor_properties``).
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

import gcul_theory
from simulations import registry
from simulations._error_pool import phase1_regime, regime_suggestions
from simulations.validation import Boolean, check_embeddings

__all__ = ["VERDICT_DEFAULT", "Assessment", "assess", "requested_methods"]

VERDICT_DEFAULT = registry.DEFAULT_PREDICTOR
"""The predictor of the verdict by default: :data:`simulations.registry.DEFAULT_PREDICTOR`, the
default of :func:`gcul_theory.feasibility_report`, the tightest valid bound."""

DEFAULT_CALIBRATION = 0.2
"""Share of the rows held out to certify, by default."""

DEFAULT_DELTA = 0.05
"""Risk of the certificate, by default."""

_NAMES_A_CLASS = re.compile(r"\bclass(es)? \d")
"""How a note of the geometry names a class: by its code (``class 3 has``, ``classes 1..3``)."""

_PYTHON_NAMES = {
    "certify": "certify=True",
    "predictions": "y_pred",
}  # how messages name an argument, unless names= says


@dataclasses.dataclass(frozen=True)
class Assessment:
    """What :func:`assess` found: the geometric report, the verdict and, if asked, the certificate.

    Attributes
    ----------
    report : gcul_theory.FeasibilityReport
        λ*_PRE, r̂1, r̂2 of every predictor, the per-class table and the geometric verdict.
    methods : tuple of str
        The predictors reported, the verdict's first.
    n : int
        Number of rows.
    predictions : {"fitted in-sample", "fitted out-of-fold", "given"}
        Where the phase-1 predictions came from.
    notes : tuple of str
        What the verdict rests on (where the predictions came from, degenerate geometry).
    certificate : dict or None
        With ``certify=True``: ``lambda_cert``, ``gain_lower``, ``gain_upper`` (one-sided
        ``1 - delta`` bounds on U(λ)), ``feasible``, ``can_reject``, ``n`` (calibration rows),
        ``n_fit``, ``n_rejected``, ``calibration``, ``lam``, ``delta``, ``seed``, ``guarantee``
        and ``verdict``.
    feasible : bool
        The verdict: the geometric one, made "not feasible" when the certified GCUL cannot reject.
    verdict : str
        The geometric verdict in words (the certificate's, if any, is ``certificate["verdict"]``).
    names : mapping
        How the text names the options (``{"calibration": "--calibration", ...}``).
    error_pool : dict
        Phase 1's regime: ``pool`` (``"in_sample"``, ``"out_of_fold"`` or ``"given"``),
        ``standardize``, ``n_errors`` (the pool's size) and ``message``, one line when phase 1
        left GCUL no (or at most ``K``) errors, else ``None``.
    class_names : tuple of str or None
        With labels given as class names: the names, sorted; class ``c`` of the report is
        ``class_names[c]``, and the text and JSON name each class by its name. ``None`` for
        integer labels (the classes are their own names).
    """

    report: Any
    methods: tuple[str, ...]
    n: int
    predictions: str
    notes: tuple[str, ...]
    certificate: dict | None
    feasible: bool
    verdict: str
    names: Mapping[str, str] = dataclasses.field(default_factory=dict)
    error_pool: dict = dataclasses.field(default_factory=dict)
    class_names: tuple[str, ...] | None = None

    def _name(self, argument: str) -> str:
        return self.names.get(argument, _PYTHON_NAMES.get(argument, argument))

    def format(self) -> str:
        """The report as text: the verdict in one line first (what a reader looks for), then
        the predictors, the per-class table and its legend, the notes, and the verdict again
        last (with a certificate: the geometric verdict, then the certificate, then the
        certified verdict, the strongest evidence, which is also the first line)."""
        lines = self._body()
        return "\n".join([lines[-1], *lines])

    def _body(self) -> list[str]:
        """The lines of :meth:`format` but its first."""
        text = self.report.format(list(self.methods), self.class_names).splitlines()
        text = [line for line in text if not line.startswith(("  note: ", "verdict: "))]
        text.extend(f"  note: {note}" for note in self.notes)
        if self.class_names is not None and any(map(_NAMES_A_CLASS.search, self.notes)):
            # the geometry's notes name classes by their codes: say which code is which name
            codes = ", ".join(f"{c} = {n!r}" for c, n in enumerate(self.class_names))
            text.append(f"  note: class codes in these notes (names sorted): {codes}")
        if self.error_pool.get("message"):
            text.append(self.error_pool["message"])
        certificate = self.certificate
        if certificate is None:
            text.append(f"verdict: {self.verdict}")
            return text
        # the last line is the strongest evidence there is: the certificate; the geometric verdict
        # (lambda*_PRE from the whole data, before any GCUL is fitted) stays, labelled
        lam, delta = certificate["lam"], certificate["delta"]
        text.append(f"geometric verdict: {self.report.verdict}")
        text += [
            f"certificate (GCUL fitted on {certificate['n_fit']} rows, certified on "
            f"n = {certificate['n']} held-out rows: {self._name('calibration')} "
            f"{certificate['calibration']:g}, {self._name('seed')} {certificate['seed']}):",
            f"  lambda*_CERT = {certificate['lambda_cert']:.4f}",
            f"  U({lam:g}) in [{certificate['gain_lower']:.4f}, "
            f"{certificate['gain_upper']:.4f}] (one-sided {1 - delta:g} bounds; together a "
            f"{1 - 2 * delta:g} interval)",
            f"  rejected on calibration: {certificate['n_rejected']} of {certificate['n']}",
            f"verdict: {certificate['verdict']}",
        ]
        return text

    def to_dict(self) -> dict:
        """The assessment as one JSON-ready dict (NaN and infinities as None)."""
        report = self.report
        eps = float(report.geometry.eps)
        predictors = []
        for name in self.methods:
            entry = gcul_theory.predictor(name)
            computed = name in report.lambda_pre
            predictors.append(
                {
                    "name": name,
                    "kind": entry.kind,
                    "valid": entry.valid,
                    "guarantee": entry.guarantee,
                    "lambda_pre": _finite(report.lambda_pre[name]) if computed else None,
                    "r1_hat": _finite(report.r1_hat[name]) if computed else None,
                    "r2_hat": _finite(report.r2_hat_by_method[name]) if computed else None,
                    "feasible": bool(
                        computed and eps > 0.0 and report.lambda_pre[name] >= report.lam
                    ),
                }
            )
        return {
            "lam": report.lam,
            "n": self.n,
            "n_classes": int(report.geometry.n_classes),
            "eps": _finite(eps),
            "predictions": self.predictions,
            "s_exist": _finite(report.s_exist),
            "predictors": predictors,
            "verdict": {
                "method": report.method,
                "kind": gcul_theory.predictor(report.method).kind,
                "guarantee": registry.method(report.method).guarantee,
                "feasible": bool(self.feasible),
                "text": self.verdict,
            },
            "certificate": self.certificate,
            "per_class": [
                {
                    key: self._class(value) if key == "class" else _finite(value)
                    for key, value in row.items()
                }
                for row in report.per_class
                if row["pi"] > 0.0
            ],
            "notes": list(self.notes),
            "error_pool": dict(self.error_pool),
        } | ({} if self.class_names is None else {"class_names": list(self.class_names)})

    def _class(self, code: float) -> int | str:
        """Class ``code`` as the user named it: its name, or the integer itself."""
        return int(code) if self.class_names is None else self.class_names[int(code)]


def _first_missing(classes: np.ndarray, limit: int) -> list[int]:
    """The first ``limit`` integers of ``0..classes[-1]`` absent from sorted distinct ``classes``.

    Walks the (few) distinct classes, never the range, so a label of ``10**18`` costs nothing.
    (GCUL encodes any labels itself; ``gcul feasibility`` still requires ``0..C-1`` and uses
    this for its message, so it lives here.)
    """
    missing: list[int] = []
    expected = 0
    for value in classes.tolist():
        while expected < value and len(missing) < limit:
            missing.append(expected)
            expected += 1
        if len(missing) >= limit:
            break
        expected = value + 1
    return missing


def assess(
    Z: Any,
    y: Any,
    y_pred: Any = None,
    *,
    lam: float = 0.15,
    methods: Sequence[str] | None = None,
    certify: bool = False,
    calibration: float | None = None,
    delta: float | None = None,
    seed: int = 0,
    error_pool: str = "in_sample",
    standardize: bool = False,
    names: Mapping[str, str] | None = None,
) -> Assessment:
    """Assess whether rejecting pays at cost ``lam`` on these embeddings, before running GCUL.

    Parameters
    ----------
    Z : array of shape (N, d)
        Embeddings, finite numbers.
    y : array of shape (N,)
        Observed labels: integers 0..C-1, every class present (``C <=``
        :data:`gcul_theory.MAX_CLASSES`), or class names (str, none empty or blank), which
        become the codes of their sorted order (``np.unique(y, return_inverse=True)``, with
        ``y_pred``'s names) and name the classes in the report.
    y_pred : array of shape (N,), optional
        Phase 1's in-sample predictions on these rows (GCUL's own error pool), integers 0..C-1,
        or class names if ``y`` holds names.
        Without it phase 1 is fitted here (GCUL's multinomial logistic regression, C = 1) and its
        in-sample predictions are used.
    lam : float, default 0.15
        The relative rejection cost λ in [0, 1).
    methods : sequence of str, optional
        Predictors of :data:`gcul_theory.METHODS` to report, or ``"all"`` (every one); the
        verdict uses the first (:func:`requested_methods`). Default: :data:`VERDICT_DEFAULT`.
    certify : bool, default False
        Also split the rows at random (seeded by ``seed``, not stratified), fit GCUL on one part
        and certify it on the other (see Notes).
    calibration : float, optional
        Share of the rows held out to certify, in (0, 1) (default :data:`DEFAULT_CALIBRATION`);
        only with ``certify``.
    delta : float, optional
        Risk of the certificate, in (0, 1) (default :data:`DEFAULT_DELTA`); only with
        ``certify``.
    seed : int, default 0
        Seed of the calibration split, in ``[0, 2**32)``.
    error_pool : {"in_sample", "out_of_fold"}, default "in_sample"
        Without ``y_pred``: phase 1's in-sample predictions (GCUL's default pool) or the
        out-of-fold ones of ``GCUL(error_pool="out_of_fold")`` (its default folds: 5, seed 0),
        so that λ*_PRE describes the pool that GCUL clusters; the certified GCUL uses the same
        pool. With ``y_pred`` only ``"in_sample"`` (the predictions are then what is given).
    standardize : bool, default False
        Standardise the features first (z-scores over all rows for the geometry; with
        ``certify``, fitted on the fit part only: ``make_pipeline(StandardScaler(), GCUL())``
        is the GCUL certified).
    names : mapping, optional
        How messages name the arguments, e.g. ``{"y": "--labels y.npy"}`` (the command line
        passes its options and files); by default their Python names.

    Returns
    -------
    Assessment
        Printable (:meth:`Assessment.format`) and serialisable (:meth:`Assessment.to_dict`).

    Raises
    ------
    TypeError, ValueError
        For inputs of the wrong shape or type (bytes, or a mix of names and other objects, are
        refused: decode bytes to str first), labels that are not 0..C-1 (each present), more
        than :data:`gcul_theory.MAX_CLASSES` classes (refused before anything is fitted), a
        ``calibration`` or ``delta`` without ``certify``, or a split that holds out every row of
        a class (GCUL could not be fitted on it).

    Notes
    -----
    λ*_PRE = max(0, S_GCUL(ε, r̂1, r̂2)), Eq. (eq:selectivity_score) of [1], with r̂1, r̂2 from the
    geometry of the error pool (:func:`gcul_theory.estimate_geometry`). The certificate's
    guarantee (:func:`gcul_theory.certified_lambda`) is for the GCUL fitted on the fit part, not
    for one refitted on all rows, and holds when the rows are drawn iid from the deployment law:
    the calibration part is then an iid sample independent of the fitted model, because it is a
    uniformly random subset chosen without looking at the data
    (:func:`simulations.sweep.cell.calibration_split`, ``round(calibration * N)`` rows). A
    stratified split would break that: holding out a fixed share of each class makes whether a
    row is held out depend on the other rows' labels.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> Z = np.vstack([rng.normal(c, 1.0, (60, 2)) for c in ([-4, 0], [4, 0], [0, 0])])
    >>> y = np.r_[np.zeros(60, int), np.ones(60, int), rng.integers(0, 2, 60)]
    >>> result = assess(Z, y, methods=["union"])
    >>> result.methods, result.predictions, result.to_dict()["verdict"]["method"]
    (('union',), 'fitted in-sample', 'union')
    """
    name = _namer(names)
    if not certify and (calibration is not None or delta is not None):
        given = "calibration" if calibration is not None else "delta"
        raise ValueError(f"{name(given)} applies to the certificate only; add {name('certify')}")
    if certify:
        calibration = DEFAULT_CALIBRATION if calibration is None else calibration
        delta = DEFAULT_DELTA if delta is None else delta
        calibration = _check_open_unit(calibration, name("calibration"))
        delta = _check_open_unit(delta, name("delta"))
        if (
            isinstance(seed, bool)
            or not isinstance(seed, numbers.Integral)
            or not 0 <= seed < 2**32
        ):
            raise ValueError(f"{name('seed')} must be an integer in [0, 2**32); got {seed!r}")
        seed = int(seed)
    methods = requested_methods(list(methods) if methods is not None else [VERDICT_DEFAULT])
    Z = check_embeddings(Z, name("Z"))
    y, y_pred, class_names = _encode_class_names(y, y_pred, name)
    y = np.asarray(y)
    from simulations.gcul import ERROR_POOL  # sklearn: imported when assess runs

    # the constraints compare's settings and GCUL declare for these options: one message
    ERROR_POOL.check(name("error_pool"), error_pool)
    standardize = Boolean().check(name("standardize"), standardize)
    if y_pred is not None and error_pool != "in_sample":
        raise ValueError(
            f"{name('error_pool')} {error_pool} computes phase 1's predictions; it cannot be "
            f"combined with {name('predictions')}"
        )
    Z_given = Z
    if standardize:
        from sklearn.preprocessing import StandardScaler

        Z = StandardScaler().fit_transform(Z)
    if y.ndim != 1 or (y.size and y.dtype.kind not in "iu"):
        raise ValueError(
            f"{name('y')}: expected one integer label per row; got {y.dtype} of shape {y.shape}"
        )
    if Z.dtype.kind == "f" and Z.dtype != np.float64:
        # once, exactly, for the fit, the predictions and the geometry (each would widen its own)
        Z = Z.astype(np.float64)
    notes: list[str] = []
    if y.size != Z.shape[0]:
        raise ValueError(f"{name('y')}: holds {y.size} labels for {Z.shape[0]} rows of {name('Z')}")
    if y_pred is None:
        _check_classes(y, None, name)
        from simulations.models import LogisticRegression, single_threaded_blas

        scaled = " (standardised)" if standardize else ""
        if error_pool == "out_of_fold":
            from simulations.gcul import GCUL, out_of_fold_predictions, stratified_folds

            folds_model = GCUL(error_pool="out_of_fold")
            folds = stratified_folds(y, folds_model.n_folds, folds_model.random_state)
            y_pred = out_of_fold_predictions(Z, y, folds, C=1.0, max_iter=500)
            notes.append(
                "phase-1 predictions: fitted here (GCUL's phase 1, a multinomial logistic "
                f"regression, C = 1, on the embeddings{scaled}) and taken out of fold "
                f"({folds_model.n_folds} stratified folds, seed {folds_model.random_state}), "
                "i.e. the error pool of GCUL(error_pool='out_of_fold')"
            )
            notes.append(
                "lambda*_PRE of an out-of-fold pool is not a validated predictor (on "
                "scikit-learn's unscaled digits it said feasible where rejecting did not pay): "
                f"certify before trusting it ({name('certify')})"
            )
            predictions = "fitted out-of-fold"
        else:
            with single_threaded_blas():
                y_pred = LogisticRegression(C=1.0, max_iter=500).fit(Z, y).predict(Z)
            notes.append(
                "phase-1 predictions: fitted here (GCUL's phase 1, a multinomial logistic "
                f"regression, C = 1, on the embeddings{scaled}) and taken in-sample, i.e. "
                "GCUL's own training error pool"
            )
            predictions = "fitted in-sample"
    else:
        y_pred = np.asarray(y_pred)
        if y_pred.ndim != 1 or (y_pred.size and y_pred.dtype.kind not in "iu"):
            raise ValueError(
                f"{name('y_pred')}: expected one integer prediction per row; got "
                f"{y_pred.dtype} of shape {y_pred.shape}"
            )
        if y_pred.size != Z.shape[0]:
            raise ValueError(
                f"{name('y_pred')}: holds {y_pred.size} predictions for {Z.shape[0]} rows of "
                f"{name('Z')} (one per row, as in {name('y')})"
            )
        _check_classes(y, y_pred, name)
        notes.append(
            f"phase-1 predictions: read from {name('predictions')}; pass phase 1's in-sample "
            "predictions on these rows (GCUL's error pool), not cross-validated ones"
        )
        predictions = "given"
    report = gcul_theory.feasibility_report(Z, y, y_pred, lam=lam, method=methods[0])
    certificate = (
        _certify(
            Z_given, y, lam, calibration, delta, seed, name, error_pool, bool(standardize),
            class_names,
        )  # fmt: skip
        if certify
        else None
    )
    feasible, verdict = report.feasible, report.verdict
    if certificate is not None and feasible and not certificate["can_reject"]:
        feasible = False
        verdict = (
            f"not feasible: {certificate['verdict'].removeprefix('not feasible: ')} (the "
            f"geometry alone said: {report.verdict})"
        )
    notes.extend(report.geometry.notes)
    n_errors = int(np.count_nonzero(y_pred != y))
    pool = "given" if predictions == "given" else error_pool
    regime = phase1_regime(
        [n_errors],
        int(report.geometry.n_classes),
        error_pool,
        regime_suggestions(pool, bool(standardize), name, Z_given),
    )
    return Assessment(
        report=report,
        methods=tuple(methods),
        n=int(y.size),
        predictions=predictions,
        notes=tuple(notes),
        certificate=certificate,
        feasible=bool(feasible),
        verdict=verdict,
        names=dict(names or {}),
        error_pool={
            "pool": pool,
            "standardize": bool(standardize),
            "n_errors": n_errors,
            "message": regime,
        },
        class_names=class_names,
    )


def requested_methods(words: Sequence[str]) -> list[str]:
    """Expand ``all`` and drop repeats: the verdict's predictor first.

    ``all`` adds every registry name not yet listed; a list that *starts* with ``all`` gives the
    verdict to the default, the valid :data:`VERDICT_DEFAULT`.

    Raises
    ------
    ValueError
        For a word that is neither ``all`` nor a name of :data:`gcul_theory.METHODS`.

    Examples
    --------
    >>> requested_methods(["union", "boole", "union"])
    ['union', 'boole']
    >>> requested_methods(["all"])[:2]
    ['hunter_worsley', 'gaussian']
    """
    names: list[str] = []
    for word in words:
        if word != "all" and word not in gcul_theory.METHODS:
            raise ValueError(
                f"methods: expected names of {', '.join(gcul_theory.METHODS)} or all; got {word!r}"
            )
        expanded = (
            ([VERDICT_DEFAULT] if not names else []) + list(gcul_theory.METHODS)
            if word == "all"
            else [word]
        )
        names.extend(name for name in expanded if name not in names)
    if not names:
        raise ValueError("methods: at least one predictor is needed")
    return names


def _certify(
    Z: np.ndarray,
    y: np.ndarray,
    lam: float,
    calibration: float,
    delta: float,
    seed: int,
    name: Callable[[str], str],
    error_pool: str = "in_sample",
    standardize: bool = False,
    class_names: tuple[str, ...] | None = None,
) -> dict:
    """Split at random (seeded, not stratified), fit GCUL on the rest, certify on the held-out
    part (GCUL with ``error_pool``; behind a ``StandardScaler`` fitted on the fit part when
    ``standardize``).

    The split is :func:`simulations.sweep.cell.calibration_split`: a uniformly random subset of
    ``round(calibration * N)`` rows (at least 1, leaving at least 1), chosen independently of the
    data. The certificate's guarantee (:func:`gcul_theory.certified_lambda`) needs calibration
    rows drawn iid from the deployment law and independent of the fitted model; rows drawn iid and
    split so stay iid, given the split's size. A stratified split does not: it fixes how many rows
    of each class are held out, so whether a row is held out depends on the other rows' labels.
    A split whose fit part lacks a class is refused (GCUL is fitted on every class).
    """
    from simulations.certification import certify as certify_model
    from simulations.gcul import GCUL
    from simulations.sweep.cell import calibration_split

    fit, held_out = calibration_split(y.size, seed, calibration)
    n_cal, n_fit = held_out.size, fit.size
    counts = np.bincount(y, minlength=int(y.max()) + 1)
    missing = np.flatnonzero((np.bincount(y[fit], minlength=counts.size) == 0) & (counts > 0))
    if missing.size:
        label = int(missing[0])
        shown = label if class_names is None else repr(class_names[label])
        raise ValueError(
            f"{name('calibration')} {calibration:g} with {name('seed')} {seed} holds out every "
            f"row of class {shown} ({counts[label]} of {y.size} rows), so GCUL cannot be fitted on "
            f"it; lower {name('calibration')}, choose another {name('seed')} or pass more rows of "
            "that class"
        )
    gcul = GCUL(error_pool=error_pool)
    if standardize:
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        pipeline = make_pipeline(StandardScaler(), gcul).fit(Z[fit], y[fit])
        model = pipeline[-1]
    else:
        pipeline = model = gcul.fit(Z[fit], y[fit])
    certificate = certify_model(pipeline, Z[held_out], y[held_out], lam=lam, delta=delta)
    n_rejected = int(np.count_nonzero(pipeline.predict(Z[held_out]) == model.uncertain_label_))
    guarantee = (
        f"finite-sample valid: P(certified and U(lambda) <= 0) <= delta = {delta:g} over "
        f"the calibration split, for this GCUL fitted on {n_fit} rows; not for a GCUL refitted "
        "on all rows"
    )
    if not model.can_reject_:
        reason = (
            f"the GCUL fitted on {n_fit} rows has an empty error pool, hence no uncertain "
            "cluster, and cannot reject"
        )
    elif n_rejected == 0:
        reason = f"the fitted GCUL rejects none of the {n_cal} calibration rows"
    else:
        reason = None
    if reason is not None:
        verdict = f"not feasible: {reason}"
    elif certificate.feasible:
        verdict = (
            f"feasible, certified: U({lam:g}) >= {certificate.gain_lower:.4f} > 0 with "
            f"confidence {1 - delta:g} ({guarantee})"
        )
    elif certificate.gain_upper < 0.0:  # the whole interval below 0: an answer, not a doubt
        verdict = (
            f"not feasible: rejecting does not pay at cost {lam:g}: the {1 - delta:g} upper "
            f"bound on U({lam:g}) is {certificate.gain_upper:.4f} < 0 (the upper bound is below "
            f"0: P(U({lam:g}) > this bound) <= delta = {delta:g} over the calibration split, for "
            f"this GCUL fitted on {n_fit} rows)"
        )
    else:  # the interval straddles 0: these rows cannot tell
        verdict = (
            f"not certified: the {1 - delta:g} lower bound on U({lam:g}) is "
            f"{certificate.gain_lower:.4f} <= 0 (too few calibration rows, or rejecting does "
            "not pay)"
        )
    return {
        "lambda_cert": _finite(certificate.lambda_cert),
        "gain_lower": _finite(certificate.gain_lower),
        "gain_upper": _finite(certificate.gain_upper),
        "feasible": bool(certificate.feasible and reason is None),
        "can_reject": bool(model.can_reject_ and n_rejected > 0),
        "n": certificate.n,
        "n_fit": n_fit,
        "n_rejected": n_rejected,
        "calibration": calibration,
        "lam": certificate.lam,
        "delta": certificate.delta,
        "seed": seed,
        "guarantee": guarantee,
        "verdict": verdict,
    }


def _names_of(values: Any, argument: str, name: Callable[[str], str]) -> np.ndarray | None:
    """``values`` as a 1-D str array if they are class names, else None (numbers, left to the
    checks of integers). Bytes, a mix of str and other objects, and empty or blank names are
    refused in one line naming the argument (and the row)."""
    if isinstance(values, (list, tuple)):  # np.asarray would turn [3, "joy"] into two names
        array = np.empty(len(values), dtype=object)
        array[:] = values
    else:
        array = np.asarray(values)
    if array.dtype.kind == "S":
        raise TypeError(
            f"{name(argument)}: holds bytes ({array.dtype}), whose text encoding is unknown; "
            "decode them to str, or pass integers 0..C-1"
        )
    if array.dtype.kind == "O" and array.ndim == 1:
        items = array.tolist()
        others = sorted({type(v).__name__ for v in items if not isinstance(v, str)})
        if others:
            if len(others) == len({type(v).__name__ for v in items}):
                return None  # no names at all: the integer checks word it
            raise TypeError(
                f"{name(argument)}: mixes class names (str) with {', '.join(others)}; pass all "
                "names (str) or all integers 0..C-1"
            )
        array = array.astype(str)
    if array.dtype.kind != "U" or array.ndim != 1:
        return None
    blank = np.char.str_len(np.char.strip(array)) == 0
    if blank.any():
        row = int(np.argmax(blank))
        raise ValueError(
            f"{name(argument)}: row {row} holds an empty or blank class name "
            f"({str(array[row])!r}); every row needs its class"
        )
    return array


def _encode_class_names(
    y: np.ndarray, y_pred: Any, name: Callable[[str], str]
) -> tuple[np.ndarray, Any, tuple[str, ...] | None]:
    """``(y, y_pred, class_names)``: class names replaced by the codes of their sorted order
    (the names of ``y`` and ``y_pred`` together), or everything as given when ``y`` holds no
    names. Labels and predictions must be of one kind, both names or both numbers."""
    names_y = _names_of(y, "y", name)
    names_pred = None if y_pred is None else _names_of(y_pred, "y_pred", name)
    if names_y is None and names_pred is None:
        return y, y_pred, None
    if y_pred is not None and (names_y is None) != (names_pred is None):
        holds_names, other = ("y", "y_pred") if names_pred is None else ("y_pred", "y")
        raise ValueError(
            f"{name(holds_names)} holds class names and {name(other)} does not; pass both as "
            "names or both as integers 0..C-1"
        )
    assert names_y is not None  # narrowing: both are names here
    if names_pred is not None:
        unknown = np.setdiff1d(names_pred, names_y)
        if unknown.size:  # as an integer prediction of a class that no label holds
            raise ValueError(
                f"{name('y_pred')}: predicts {str(unknown[0])!r}, a class that no label of "
                f"{name('y')} holds ({unknown.size} such name(s)); every class needs its rows"
            )
    together = names_y if names_pred is None else np.concatenate([names_y, names_pred])
    classes, codes = np.unique(together, return_inverse=True)
    if classes.size == 1:  # as _check_classes says it, naming the class
        files = name("y") if names_pred is None else f"{name('y')} and {name('y_pred')}"
        hold = "holds" if names_pred is None else "hold"
        raise ValueError(
            f"{files} {hold} a single class ({str(classes[0])!r}); at least two are needed"
        )
    codes = codes.astype(np.int64).ravel()
    y_codes = codes[: names_y.size]
    pred_codes = None if names_pred is None else codes[names_y.size :]
    return y_codes, pred_codes, tuple(str(c) for c in classes.tolist())


def _check_classes(y: np.ndarray, y_pred: np.ndarray | None, name: Callable[[str], str]) -> None:
    """Labels (and predictions) together must use exactly 0..C-1, C <= MAX_CLASSES.

    O(N log N) work, before anything is fitted.
    """

    if y_pred is None:
        files, hold = name("y"), "holds"
        classes = np.unique(y)
    else:
        files, hold = f"{name('y')} and {name('y_pred')}", "hold"
        classes = np.unique(np.concatenate([y, y_pred]))
    if classes.size and classes[0] < 0:
        raise ValueError(f"{files} must use the classes 0..C-1; got the label {int(classes[0])}")
    if classes.size < 2:
        shown = classes[0] if classes.size else "none"
        raise ValueError(f"{files} {hold} a single class ({shown}); at least two are needed")
    if classes.size > gcul_theory.MAX_CLASSES:
        # checked before phase 1 is fitted: 10**5 classes spent 28.5 s and 9.6 GB before
        # "out of memory" in the fit, which the report would have refused afterwards anyway
        raise ValueError(
            f"{files} {hold} {classes.size} distinct labels; the feasibility report supports "
            f"at most {gcul_theory.MAX_CLASSES} classes (gcul_theory.MAX_CLASSES)"
        )
    n_classes = int(classes[-1]) + 1
    n_missing = n_classes - classes.size
    if n_missing:
        first = _first_missing(classes, 5)
        listed = str(first) if n_missing <= 5 else f"{n_missing} labels: {str(first)[:-1]}, ...]"
        hint = " (1-based labels? subtract 1)" if first == [0] else ""
        raise ValueError(
            f"{files} must use the classes 0..C-1, each at least once (C = {n_classes} from the "
            f"largest label); missing {listed}{hint}. Encode other labels with "
            "np.unique(y, return_inverse=True)"
        )


def _check_open_unit(value: float, shown: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0.0 < value < 1.0:
        raise ValueError(f"{shown} must be a number strictly between 0 and 1; got {value!r}")
    return float(value)


def _namer(names: Mapping[str, str] | None) -> Callable[[str], str]:
    if names is not None and not isinstance(names, Mapping):
        raise TypeError(f"names must be a mapping of argument names or None; got {names!r}")
    given = dict(names or {})
    return lambda argument: given.get(argument, _PYTHON_NAMES.get(argument, argument))


def _finite(value: float) -> float | None:
    """A float for JSON: NaN and inf become null (JSON has no such numbers)."""
    value = float(value)
    return value if math.isfinite(value) else None
