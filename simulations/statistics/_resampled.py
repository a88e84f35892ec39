"""The mean over repeated train/test splits with Nadeau & Bengio's corrected standard error, and
the verdict of their corrected resampled t test (what :func:`simulations.compare.compare` reports)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from simulations.validation import check_real

__all__ = [
    "DEFAULT_LEVEL",
    "TEST_NAME",
    "Estimate",
    "Verdict",
    "estimate",
    "finite_or_none",
    "t_critical",
    "verdict",
]

@dataclasses.dataclass(frozen=True)
class Estimate:
    """A mean over splits and its standard errors.

    Attributes
    ----------
    mean : float
        Mean over the splits.
    se : float
        Nadeau & Bengio's corrected standard error, :math:`\\sqrt{(1/S + n_{test}/n_{train})
        s^2}` (NaN for one split): the splits share rows, so the naive :math:`s/\\sqrt S`
        understates the uncertainty of the mean (Nadeau & Bengio, "Inference for the
        generalization error", Machine Learning 52, 2003).
    se_naive : float
        :math:`s/\\sqrt S`, for reference (NaN for one split).
    values : tuple of float
        The value of every split.
    """

    mean: float
    se: float
    se_naive: float
    values: tuple[float, ...]

    def to_dict(self) -> dict:
        return {
            "mean": finite_or_none(self.mean),
            "se": finite_or_none(self.se),
            "se_naive": finite_or_none(self.se_naive),
            "values": [finite_or_none(v) for v in self.values],
        }


def estimate(values: Any, test_over_train: float) -> Estimate:
    r"""Mean of per-split values with Nadeau & Bengio's corrected standard error.

    Parameters
    ----------
    values : array_like of shape (S,)
        One value per split.
    test_over_train : float
        :math:`n_{test}/n_{train}` of the splits.

    Returns
    -------
    Estimate

    Notes
    -----
    .. math:: \mathrm{SE} = \sqrt{\Bigl(\frac1S + \frac{n_{test}}{n_{train}}\Bigr) s^2},

    :math:`s^2` the sample variance over the :math:`S` splits (Nadeau & Bengio 2003). The
    correction accounts for the correlation between splits that share training and test rows;
    it is a heuristic (their "corrected resampled t-test"), not an exact interval.

    Examples
    --------
    >>> e = estimate([0.1, 0.2, 0.3], 0.5)
    >>> round(e.mean, 12), round(e.se_naive, 12), round(e.se, 12)
    (0.2, 0.057735026919, 0.091287092918)
    """
    array = np.asarray(values, dtype=np.float64)
    mean = math.fsum(array.tolist()) / array.size
    if array.size < 2:
        return Estimate(mean, math.nan, math.nan, tuple(array.tolist()))
    variance = math.fsum(((array - mean) ** 2).tolist()) / (array.size - 1)
    se = math.sqrt((1.0 / array.size + test_over_train) * variance)
    return Estimate(mean, se, math.sqrt(variance / array.size), tuple(array.tolist()))


DEFAULT_LEVEL = 0.05
"""Two-sided level of :func:`verdict`'s test, by default."""

TEST_NAME = "corrected resampled t test (Nadeau & Bengio 2003)"
"""The test :func:`verdict` runs, as outputs name it."""

# Two mathematically equal per-split differences of selective risks in [0, 1] differ by at most
# 14u as floats (u = 2**-53): each risk is within 3u of exact (gcul_theory's
# selective_risk_at_coverage), the subtraction rounds by at most u, and two differences each
# carry 7u. A spread (max - min of the differences) at or below this bound is zero spread.
_ZERO_SPREAD = 16 * 2.0**-53


@dataclasses.dataclass(frozen=True)
class Verdict:
    r"""The outcome of :func:`verdict`: the corrected resampled t test of a paired difference.

    Attributes
    ----------
    label : str
        The rejector's name as printed.
    outcome : str
        ``"lower"`` or ``"higher"`` (significant at ``level``: the rejector's selective risk
        is lower / higher than GCUL's), ``"no difference"`` (not significant), ``"tie"``
        (the same selective risk as GCUL's in every split, exactly) or ``"no verdict"`` (one
        split, or the same nonzero difference in every split: the test cannot judge it).
    difference, se : float
        Mean of the per-split differences and its corrected standard error (NaN for one
        split).
    splits : int
        Number of splits :math:`J`.
    level : float
        Two-sided level α of the test.
    t : float
        :math:`t = \bar d / \mathrm{SE}` (NaN when the test does not run).
    df : int
        Degrees of freedom, :math:`J - 1`.
    critical : float
        :math:`t_{1-\alpha/2,\,J-1}`, the quantile :math:`|t|` must exceed (NaN for one split).
    p_value : float
        Two-sided p-value :math:`2\,P(T_{J-1} > |t|)` (NaN when the test does not run).
    reason : str
        Why there is no test, for ``"tie"`` and ``"no verdict"``; else ``""``.
    """

    label: str
    outcome: str
    difference: float
    se: float
    splits: int
    level: float
    t: float
    df: int
    critical: float
    p_value: float
    reason: str = ""

    @property
    def significant(self) -> bool:
        """Whether the test found a difference at ``level`` (``outcome`` lower or higher)."""
        return self.outcome in ("lower", "higher")

    def text(self) -> str:
        """The verdict as one line, naming the test and the level."""
        head = f"at GCUL's coverage, {self.label}'s selective risk is"
        points, se_points = 100.0 * self.difference, 100.0 * self.se
        if self.outcome == "tie":
            return f"{head} the same as GCUL's in every split: a tie"
        if self.outcome == "no verdict":
            return f"{head} {points:+.2f} points from GCUL's ({self.reason}): no verdict"
        test = (
            f"t test: t = {self.t:+.2f}, {self.df} df, two-sided p = {self.p_value:.2g}; "
            f"|t| {'>' if self.significant else '<='} {self.critical:.2f}"
        )
        if self.significant:
            return (
                f"{head} {self.outcome} by {abs(points):.2f} ± {se_points:.2f} points at "
                f"level {self.level:g} ({test})"
            )
        return (
            f"{head} {points:+.2f} ± {se_points:.2f} points from GCUL's: no difference at "
            f"level {self.level:g} ({test})"
        )

    def to_dict(self) -> dict:
        """The verdict as a JSON-ready dict (NaN as None)."""
        return {
            "test": TEST_NAME,
            "outcome": self.outcome,
            "significant": self.significant,
            "level": self.level,
            "two_sided": True,
            "splits": self.splits,
            "df": self.df,
            "t": finite_or_none(self.t),
            "critical": finite_or_none(self.critical),
            "p_value": finite_or_none(self.p_value),
            "reason": self.reason,
            "text": self.text(),
        }


def t_critical(level: float, df: int) -> float:
    r"""The two-sided critical value :math:`t_{1-\alpha/2,\,df}` of Student's t.

    Parameters
    ----------
    level : float
        Two-sided level α, in (0, 1).
    df : int
        Degrees of freedom, >= 1.

    Returns
    -------
    float
        ``scipy.stats.t.ppf(1 - level / 2, df)``.

    Examples
    --------
    >>> round(t_critical(0.05, 3), 4), round(t_critical(0.05, 9), 4)
    (3.1824, 2.2622)
    """
    from scipy import stats

    return float(stats.t.ppf(1.0 - level / 2.0, df))


def verdict(label: str, difference: Estimate, level: float = DEFAULT_LEVEL) -> Verdict:
    r"""How a rejector's selective risk at GCUL's coverage compares with GCUL's, by a t test.

    Parameters
    ----------
    label : str
        The rejector's name as printed (``"MSP"``).
    difference : Estimate
        Its selective risk minus GCUL's, split by split (:func:`estimate`, whose ``se`` is
        Nadeau & Bengio's corrected standard error).
    level : float, default 0.05
        Two-sided level α of the test, in (0, 1).

    Returns
    -------
    Verdict
        ``verdict(...).text()`` is the line ``gcul compare`` prints.

    Raises
    ------
    TypeError, ValueError
        For a level that is not a real number in (0, 1).

    Notes
    -----
    The corrected resampled t test of Nadeau & Bengio ("Inference for the generalization
    error", Machine Learning 52, 2003) on the :math:`J`
    per-split differences :math:`d_j`:

    .. math:: t = \frac{\bar d}{\sqrt{(1/J + n_{test}/n_{train})\, s^2}}, \qquad
              \text{"lower"/"higher" iff } |t| > t_{1-\alpha/2,\,J-1},

    :math:`s^2` the sample variance of the :math:`d_j`; the cut is exactly the quantile (at
    equality: no difference). The correction inflates the naive variance for the rows the
    splits share; the test is a heuristic with approximately level α (``benchmarks/
    compare_null.md`` measures its false-"better" rate and power by Monte Carlo).

    Edge cases: every :math:`d_j = 0` exactly is a tie (the same selective risk in every
    split); one split gives no test ("no verdict"); the same nonzero :math:`d_j` in every split
    (spread at most :math:`16u`, the rounding of equal differences) gives :math:`s = 0` and an
    infinite :math:`t` that the test's normal model cannot produce: "no verdict", not a win
    (with few splits and small test parts, equal differences in every split are not rare under
    the null).

    Examples
    --------
    >>> d = estimate([-0.02, -0.01, -0.015, -0.012], 0.1)
    >>> v = verdict("MSP", d)
    >>> v.outcome, round(v.t, 3), v.df, round(v.critical, 4)
    ('lower', -5.538, 3, 3.1824)
    >>> verdict("MSP", estimate([0.0, 0.0, 0.0], 0.4)).text()
    "at GCUL's coverage, MSP's selective risk is the same as GCUL's in every split: a tie"
    >>> verdict("kNN", estimate([0.01], 0.4)).outcome
    'no verdict'
    """
    level = check_real("level", level, 0.0, 1.0, open_low=True, open_high=True)
    values = difference.values
    splits = len(values)
    df = splits - 1
    t = p_value = math.nan
    reason = ""
    if all(value == 0.0 for value in values):
        outcome, reason = "tie", "the same selective risk as GCUL's in every split"
    elif splits < 2:
        outcome, reason = "no verdict", "one split: the t test needs at least 2"
    elif max(values) - min(values) <= _ZERO_SPREAD:
        outcome = "no verdict"
        reason = "the same difference in every split: no spread for the t test to judge"
    else:
        from scipy import stats

        t = difference.mean / difference.se
        p_value = float(2.0 * stats.t.sf(abs(t), df))
        outcome = "no difference"
    critical = t_critical(level, df) if df >= 1 else math.nan
    if outcome == "no difference" and abs(t) > critical:
        outcome = "lower" if t < 0 else "higher"
    return Verdict(
        label=label,
        outcome=outcome,
        difference=difference.mean,
        se=difference.se,
        splits=splits,
        level=level,
        t=t,
        df=df,
        critical=critical,
        p_value=p_value,
        reason=reason,
    )


def finite_or_none(value: float) -> float | None:
    """``value`` as a float, or ``None`` where it is NaN or infinite (JSON has neither).

    Examples
    --------
    >>> finite_or_none(0.5), finite_or_none(float("nan"))
    (0.5, None)
    """
    value = float(value)
    return value if math.isfinite(value) else None
