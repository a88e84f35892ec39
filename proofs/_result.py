"""The result type of a checked claim and the machinery that turns a check into one.

Every claim of the paper is checked by one pure function decorated with :func:`claim`. The
function returns a :class:`Finding` (what was established, the status, the evidence); the
decorator attaches the claim's stable name, the paper's label and statement, and turns any
exception -- a broken internal check included -- into a ``"failed"`` :class:`ClaimResult`,
so one broken derivation never hides the others.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "ClaimResult",
    "Finding",
    "Outcome",
    "ProofCheckError",
    "STATUSES",
    "claim",
    "decide",
    "require",
]

STATUSES = ("verified", "erratum", "failed")


class ProofCheckError(AssertionError):
    """An internal check of a derivation did not come out as the derivation requires."""


def require(condition: bool, message: str) -> None:
    """Raise :class:`ProofCheckError` with `message` unless `condition` holds.

    Parameters
    ----------
    condition : bool
        The fact a derivation relies on (e.g. ``sympy.cancel(lhs - rhs) == 0``).
    message : str
        What was expected, shown as the evidence of the ``"failed"`` result.
    """
    if not condition:
        raise ProofCheckError(message)


@dataclass(frozen=True)
class ClaimResult:
    """Outcome of checking one claim of the paper.

    Parameters
    ----------
    name : str
        Stable identifier, ``family.item`` (e.g. ``"criterion.step4_rearrange"``).
    reference : str
        The paper's LaTeX label of the claim (e.g. ``"thm:monotonicity"``).
    statement : str
        The paper's claim as written, shortened.
    established : str
        What the symbolic/numeric work actually showed, with the key expression.
    status : {"verified", "erratum", "failed"}
        ``"verified"``: the claim holds as written. ``"erratum"``: it does not hold as
        written; `corrected` holds and `evidence` carries a concrete witness. ``"failed"``:
        the code could not establish a claim or an internal check broke.
    corrected : str or None
        The corrected statement for an erratum, else None.
    evidence : str
        Short witness: the expression that is zero or non-zero, a counterexample point, a
        Monte Carlo figure.
    """

    name: str
    reference: str
    statement: str
    established: str
    status: str
    corrected: str | None
    evidence: str

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")
        if self.status == "erratum" and not self.corrected:
            raise ValueError(f"erratum {self.name!r} needs a corrected statement")


@dataclass(frozen=True)
class Finding:
    """What a check function returns; :func:`claim` adds the claim's identity.

    Parameters
    ----------
    status : {"verified", "erratum"}
        The check's verdict (``"failed"`` comes only from a raised exception).
    established : str
        See :class:`ClaimResult`.
    evidence : str
        See :class:`ClaimResult`.
    corrected : str or None, optional
        See :class:`ClaimResult`.
    """

    status: str
    established: str
    evidence: str
    corrected: str | None = None


@dataclass(frozen=True)
class Outcome:
    """Result of testing one statement (the paper's as printed, or its correction).

    Parameters
    ----------
    holds : bool
        True if the statement was shown to hold (an identity, a sign certificate, ...).
    detail : str
        The certificate when it holds; the counterexample (concrete values) when it does not.
    """

    holds: bool
    detail: str


def decide(
    printed: Outcome | Callable[[], Outcome],
    established: str,
    corrected: str | None = None,
    corrected_test: Outcome | Callable[[], Outcome] | None = None,
) -> Finding:
    """Compute a claim's verdict from the test of its printed statement (and of the correction).

    The one flow every claim module uses: the paper's statement as printed is tested; if it
    holds the claim is ``"verified"``. If it does not, its counterexample makes the claim an
    ``"erratum"`` provided the corrected statement is then shown to hold by the same kind of
    test; if there is no correction, or the correction fails too, a :class:`ProofCheckError` is
    raised, which :func:`claim` reports as ``"failed"``.

    Parameters
    ----------
    printed : Outcome or callable returning Outcome
        The test of the statement as printed in the paper.
    established : str
        What the derivation shows (the claim's ``established`` text).
    corrected : str, optional
        The corrected statement, used only if the printed one fails.
    corrected_test : Outcome or callable returning Outcome, optional
        The test of `corrected` (run only if the printed statement fails).

    Returns
    -------
    Finding
        ``"verified"`` with the printed test's certificate as evidence, or ``"erratum"`` with
        the counterexample and the correction's certificate.

    Raises
    ------
    ProofCheckError
        The printed statement fails and there is no corrected statement, or it fails too.

    Examples
    --------
    >>> decide(Outcome(True, "cancel(a - a) = 0"), "a = a").status
    'verified'
    >>> decide(Outcome(False, "at a=1: 1 != 2"), "a = 2a fails", "a = a",
    ...        Outcome(True, "cancel(a - a) = 0")).status
    'erratum'
    """
    first = printed() if callable(printed) else printed
    if first.holds:
        return Finding(status="verified", established=established, evidence=first.detail)
    if corrected is None or corrected_test is None:
        raise ProofCheckError(
            f"the printed statement fails ({first.detail}) and no corrected statement is given"
        )
    second = corrected_test() if callable(corrected_test) else corrected_test
    if not second.holds:
        raise ProofCheckError(
            f"the printed statement fails ({first.detail}) and so does the corrected one "
            f"({second.detail})"
        )
    return Finding(
        status="erratum",
        established=established,
        evidence=f"as printed: {first.detail}; corrected: {second.detail}",
        corrected=corrected,
    )


def claim(
    name: str, reference: str, statement: str
) -> Callable[[Callable[[], Finding]], Callable[[], ClaimResult]]:
    """Decorate a check function so that calling it returns a :class:`ClaimResult`.

    Parameters
    ----------
    name, reference, statement : str
        The claim's identity; see :class:`ClaimResult`.

    Returns
    -------
    callable
        A decorator. The decorated function takes no argument and never raises: an exception
        inside the check becomes a ``"failed"`` result naming the exception.
    """

    def decorate(check: Callable[[], Finding]) -> Callable[[], ClaimResult]:
        @functools.wraps(check)
        def run() -> ClaimResult:
            try:
                finding = check()
                return ClaimResult(
                    name=name,
                    reference=reference,
                    statement=statement,
                    established=finding.established,
                    status=finding.status,
                    corrected=finding.corrected,
                    evidence=finding.evidence,
                )
            except Exception as exc:  # noqa: BLE001 - any breakage is reported, not raised
                return ClaimResult(
                    name=name,
                    reference=reference,
                    statement=statement,
                    established="the check did not complete",
                    status="failed",
                    corrected=None,
                    evidence=f"{type(exc).__name__}: {exc}",
                )

        # a function attribute (read by proofs._runner): mypy does not model those
        run.claim_name = name  # type: ignore[attr-defined]
        return run

    return decorate
