"""The per-level table of one seed, the paper's ``tab:synthetic_gcul`` (seed 16), with the
paper's printed values beside ours."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from simulations.report.columns import (
    Results,
    has_column,
    materialize,
    noise_key,
    result_columns,
)
from simulations.results import check_geometry_labels
from simulations.validation import error_pool_renamed

__all__ = [
    "PAPER_SEED",
    "PAPER_SEED16_TABLE",
    "SEED_VALUE_COLUMNS",
    "seed_table",
    "PaperSeedRow",
    "SeedTable",
    "SeedTableRow",
]


_FRACTION_COLUMNS = ("base_acc", "selective_acc", "rejection_rate")


#: Table ``tab:synthetic_gcul`` of the GCUL paper ("GCUL performance under varying noise levels on
#: synthetic data (seed 16)"), transcribed as printed, one row per noise level:
#: (σ, base accuracy %, selective accuracy %, rejection rate %, λ*_PRE, λ*_EMP). The paper prints
#: the selective accuracy of σ = 0.0 to 2.0 as "100". Its λ*_PRE column is the union bound's.
PAPER_SEED16_TABLE: tuple[tuple[float, float, float, float, float, float], ...] = (
    (0.0, 86.50, 100.0, 16.54, 0.96, 0.82),
    (0.4, 86.54, 100.0, 16.54, 0.96, 0.81),
    (0.8, 86.88, 100.0, 16.54, 0.95, 0.79),
    (1.2, 86.92, 100.0, 16.54, 0.94, 0.79),
    (1.6, 86.92, 100.0, 16.54, 0.92, 0.79),
    (2.0, 86.92, 100.0, 16.67, 0.90, 0.79),
    (2.4, 87.13, 99.95, 16.71, 0.87, 0.77),
    (2.8, 87.08, 99.25, 16.21, 0.82, 0.75),
    (3.2, 86.96, 98.36, 15.96, 0.75, 0.72),
    (3.6, 86.79, 97.37, 16.17, 0.68, 0.65),
    (4.0, 86.13, 96.38, 16.08, 0.60, 0.64),
    (4.4, 85.38, 94.95, 15.88, 0.53, 0.60),
    (4.8, 84.21, 92.53, 15.25, 0.46, 0.55),
    (5.2, 82.96, 90.08, 14.33, 0.39, 0.50),
    (5.6, 81.46, 86.79, 13.25, 0.33, 0.40),
    (6.0, 80.08, 83.73, 13.21, 0.27, 0.28),
    (6.4, 78.71, 81.36, 13.29, 0.22, 0.21),
    (6.8, 76.83, 79.24, 13.08, 0.18, 0.18),
    (7.2, 75.00, 77.26, 12.42, 0.15, 0.18),
    (7.6, 73.46, 75.42, 13.38, 0.11, 0.15),
    (8.0, 71.33, 73.31, 13.67, 0.07, 0.15),
    (8.4, 69.54, 71.10, 13.79, 0.03, 0.11),
    (8.8, 68.00, 68.85, 14.00, 0.00, 0.06),
    (9.2, 65.71, 66.91, 14.88, 0.00, 0.08),
    (9.6, 63.96, 65.83, 13.54, 0.00, 0.14),
    (10.0, 62.38, 64.46, 13.96, 0.00, 0.15),
    (10.4, 60.71, 62.64, 13.67, 0.00, 0.14),
    (10.8, 59.29, 60.66, 14.42, 0.00, 0.10),
    (11.2, 57.92, 59.88, 15.46, 0.00, 0.13),
    (11.6, 56.79, 58.21, 14.96, 0.00, 0.10),
    (12.0, 55.75, 57.25, 15.21, 0.00, 0.10),
    (12.4, 54.67, 55.21, 15.17, 0.00, 0.04),
    (12.8, 53.21, 53.81, 15.29, 0.00, 0.04),
    (13.2, 52.13, 52.42, 15.58, 0.00, 0.02),
    (13.6, 51.21, 51.88, 16.00, 0.00, 0.04),
    (14.0, 50.04, 50.82, 16.46, 0.00, 0.05),
    (14.4, 49.08, 49.60, 16.50, 0.00, 0.03),
    (14.8, 48.25, 48.27, 16.71, 0.00, 0.00),
    (15.2, 47.50, 47.39, 17.00, 0.00, -0.01),
    (15.6, 46.54, 46.80, 17.21, 0.00, 0.02),
    (16.0, 45.71, 45.61, 16.96, 0.00, -0.01),
)


PAPER_SEED = 16
"""The seed of the paper's per-level table; :func:`seed_table` sets the paper's row beside ours."""


@dataclass(frozen=True)
class PaperSeedRow:
    """One row of the paper's ``tab:synthetic_gcul`` (seed 16): rates as fractions in [0, 1].

    ``lambda_pre`` is the paper's union bound; the values are those printed (two decimals).
    """

    base_acc: float
    selective_acc: float
    rejection_rate: float
    lambda_pre: float
    lambda_emp: float


def _paper_rows() -> dict[float, PaperSeedRow]:
    """:data:`PAPER_SEED16_TABLE` by noise key (see :func:`noise_key`); percent to fractions."""
    return {
        float(noise_key(np.array([sigma]))[0]): PaperSeedRow(
            round(base / 100, 4), round(selective / 100, 4), round(rejection / 100, 4), pre, emp
        )
        for sigma, base, selective, rejection, pre, emp in PAPER_SEED16_TABLE
    }


@dataclass(frozen=True)
class SeedTableRow:
    """One noise level of one seed; accuracies and rates are fractions in [0, 1].

    ``paper`` is the paper's row at this σ for seed :data:`PAPER_SEED` (None otherwise, or at a
    σ the paper's table does not have).
    """

    noise: float
    base_acc: float
    selective_acc: float
    rejection_rate: float
    lambda_pre_union: float
    lambda_emp: float
    lambda_pre_gaussian: float
    lambda_pre_chernoff: float
    level: int | None = None
    paper: PaperSeedRow | None = None


@dataclass(frozen=True)
class SeedTable:
    """The per-level results of one seed, sorted by noise (the paper's ``tab:synthetic_gcul``)."""

    seed: int
    rows: tuple[SeedTableRow, ...]
    geometry_labels: str = "observed"  # the labels of λ*_PRE's geometry (GEOMETRY_LABELS)

    def __iter__(self) -> Iterator[SeedTableRow]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def has_paper_reference(self) -> bool:
        """Whether the paper's values sit beside ours (seed 16, at least one σ of its table)."""
        return any(row.paper is not None for row in self.rows)


SEED_VALUE_COLUMNS = (
    "noise",
    "base_acc",
    "selective_acc",
    "rejection_rate",
    "lambda_pre_union",
    "lambda_emp",
    "lambda_pre_gaussian",
    "lambda_pre_chernoff",
)


@error_pool_renamed
def seed_table(
    results: Results, seed: int = 16, *, geometry_labels: str = "observed"
) -> SeedTable:
    """The rows of one seed, one per noise level, sorted by σ.

    Parameters
    ----------
    results : list of dict or dict of arrays
        The sweep's cells; needs ``seed``, ``noise``, ``base_acc``, ``selective_acc``,
        ``rejection_rate`` (fractions in [0, 1]), ``lambda_emp`` and the three
        ``lambda_pre_*`` columns.  A ``level`` column is carried along when present.
    seed : int, default 16
        The seed to tabulate (the paper's appendix shows seed 16). For seed 16 each row also
        carries the paper's row at the same σ (:data:`PAPER_SEED16_TABLE`), which the formats
        print beside ours.
    geometry_labels : {"observed", "clean"}, default "observed"
        The training labels the results' λ*_PRE geometry was estimated with (``gcul reproduce
        --geometry-labels``); the captions say it.

    Raises
    ------
    ValueError
        If a column is missing, the seed is absent, a noise level appears twice for the seed,
        or an accuracy/rate is outside [0, 1] (e.g. given in percent).

    Examples
    --------
    >>> rows = [dict(seed=16, noise=s, base_acc=0.9, selective_acc=1.0, rejection_rate=0.2,
    ...              lambda_emp=0.8, lambda_pre_gaussian=0.9, lambda_pre_union=0.9,
    ...              lambda_pre_chernoff=0.5) for s in (0.4, 0.0)]
    >>> [row.noise for row in seed_table(rows, seed=16)]
    [0.0, 0.4]
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an integer; got {seed!r}")
    geometry_labels = check_geometry_labels(geometry_labels)
    results = materialize(results)
    with_level = has_column(results, "level")
    needed = ("seed", *SEED_VALUE_COLUMNS, *(("level",) if with_level else ()))
    cols = result_columns(results, needed, "the per-seed table")
    mine = cols["seed"] == seed
    if not mine.any():
        present = ", ".join(str(int(s)) for s in np.unique(cols["seed"]))
        raise ValueError(f"seed {seed} is absent from results; seeds present: {present}")
    for name in _FRACTION_COLUMNS:
        values = cols[name][mine]
        bad = np.flatnonzero((values < 0) | (values > 1))
        if bad.size:
            raise ValueError(
                f"results column {name!r} must be a fraction in [0, 1]; got {float(values[bad[0]])} "
                f"for seed {seed} (percent instead of a fraction?)"
            )
    order = np.argsort(cols["noise"][mine], kind="stable")
    picked = {name: col[mine][order] for name, col in cols.items()}
    keys = noise_key(picked["noise"])
    if len(np.unique(keys)) != len(keys):
        dup = keys[np.flatnonzero(np.diff(keys) == 0)[0]]
        raise ValueError(f"seed {seed} has more than one row at noise {dup}")
    paper = _paper_rows() if seed == PAPER_SEED else {}
    rows = tuple(
        SeedTableRow(
            **{name: float(picked[name][i]) for name in SEED_VALUE_COLUMNS},
            level=int(picked["level"][i]) if with_level else None,
            paper=paper.get(float(keys[i])),
        )
        for i in range(len(keys))
    )
    return SeedTable(seed=int(seed), rows=rows, geometry_labels=geometry_labels)
