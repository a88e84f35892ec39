"""The baselines table and the comparison figures (simulations.baselines, baseline_figures)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simulations import baseline_figures, baselines
from simulations.rejectors.evaluate import REJECTOR_NAMES
from simulations.reproduce import OUTPUTS, _Run


def _rows(values: dict[tuple[int, float], dict[str, float]]) -> list[dict[str, float]]:
    """Rows with every column the table reads: sel_risk/aurc of each rejector 0.3 unless given."""
    rows = []
    for (seed, noise), given in values.items():
        row = {
            "seed": seed,
            "noise": noise,
            "base_acc": 0.7,
            "selective_acc": 0.8,
            "rejection_rate": 0.2,
            "ujoint_gcul": 0.05,
            "coverage_chow_msp": 0.5,
            "u_chow_msp": 0.1,
            "ujoint_chow_msp": 0.12,
            "coverage_chow_bayes": 0.6,
            "u_chow_bayes": 0.15,
            "ujoint_chow_bayes": 0.17,
        }
        for name in REJECTOR_NAMES:
            row[f"sel_risk_{name}"] = 0.3
            row[f"aurc_{name}"] = 0.2
        rows.append(row | given)
    return rows


def _find(table, band: str, rejector: str):
    return next(r for r in table.rows if r.band == band and r.rejector == rejector)


def test_se_is_over_seed_means_not_cells() -> None:
    # seed 1: GCUL risks 0.1, 0.3 (mean 0.2); seed 2: 0.5, 0.5 (mean 0.5); seed 3: 0.4 alone.
    rows = _rows(
        {
            (1, 1.0): {"sel_risk_gcul": 0.1},
            (1, 2.0): {"sel_risk_gcul": 0.3},
            (2, 1.0): {"sel_risk_gcul": 0.5},
            (2, 2.0): {"sel_risk_gcul": 0.5},
            (3, 1.0): {"sel_risk_gcul": 0.4},
        }
    )
    row = _find(baselines.baselines_table(rows, n_test=1000), "sigma <= 4", "gcul")
    means = np.array([0.2, 0.5, 0.4])
    assert row.sel_risk.mean == pytest.approx(means.mean(), abs=1e-15)
    assert row.sel_risk.se == pytest.approx(means.std(ddof=1) / math.sqrt(3), abs=1e-15)
    # over cells it would be 0.36 with SE 0.0748: the table must not give that
    assert row.sel_risk.mean != pytest.approx(0.36)
    assert (row.n_cells, row.n_seeds) == (5, 3)


def test_better_tied_worse_counts_and_bands() -> None:
    # m = round(0.8 * 1000) = 800; at risks near 0.3 one binomial SE is about 0.016
    rows = _rows(
        {
            (1, 2.0): {"sel_risk_gcul": 0.25, "sel_risk_msp": 0.30},  # better (-0.05)
            (1, 6.0): {"sel_risk_gcul": 0.30, "sel_risk_msp": 0.31},  # tied (|-0.01| < 0.016)
            (1, 12.0): {"sel_risk_gcul": 0.40, "sel_risk_msp": 0.30},  # worse (+0.1)
            (2, 2.0): {"sel_risk_gcul": 0.30, "sel_risk_msp": 0.29},  # tied
            (2, 6.0): {"sel_risk_gcul": 0.35, "sel_risk_msp": 0.30},  # worse
            (2, 12.0): {"sel_risk_gcul": 0.2, "sel_risk_msp": 0.3, "rejection_rate": 1.0},
        }
    )
    for row in rows:
        if row["rejection_rate"] == 1.0:
            for name in REJECTOR_NAMES:
                row[f"sel_risk_{name}"] = math.nan
    table = baselines.baselines_table(rows, n_test=1000)
    counts = {
        band: (lambda r: (r.better, r.tied, r.worse, r.n_excluded))(_find(table, band, "msp"))
        for band, _, _ in baselines.BANDS
    }
    assert counts == {
        "sigma <= 4": (1, 1, 0, 0),
        "4 < sigma <= 10": (0, 1, 1, 0),
        "sigma > 10": (0, 0, 1, 1),
        "overall": (1, 2, 2, 1),
    }
    overall = _find(table, "overall", "msp")
    # seed 1: (-0.05 - 0.01 + 0.1)/3; seed 2: (0.01 + 0.05)/2 (its sigma = 12 cell excluded)
    expected = np.array([(-0.05 - 0.01 + 0.1) / 3, (0.01 + 0.05) / 2])
    assert overall.diff.mean == pytest.approx(expected.mean(), abs=1e-15)
    assert overall.diff.se == pytest.approx(expected.std(ddof=1) / math.sqrt(2), abs=1e-15)
    assert _find(table, "overall", "gcul").diff is None
    assert _find(table, "overall", "entropy").coverage is None  # no operating point


def test_band_edges_are_inclusive_above() -> None:
    rows = _rows({(1, 4.0): {}, (1, 10.0): {}, (1, 10.4): {}})
    table = baselines.baselines_table(rows, n_test=100)
    cells = {band: _find(table, band, "gcul").n_cells for band, _, _ in baselines.BANDS}
    assert cells == {"sigma <= 4": 1, "4 < sigma <= 10": 1, "sigma > 10": 1, "overall": 3}


def test_formats_and_bad_input(tmp_path) -> None:
    rows = _rows({(1, 2.0): {}, (2, 2.0): {"sel_risk_gcul": 0.2}})
    table = baselines.baselines_table(rows, n_test=100)
    csv_text = baselines.format_baselines_csv(table)
    assert csv_text.splitlines()[0] == ",".join(baselines.BASELINES_CSV_COLUMNS)
    assert len(csv_text.splitlines()) == 1 + len(baselines.BANDS) * len(REJECTOR_NAMES)
    assert "−0.0500 ± 0.0500" in baselines.format_baselines_markdown(table)
    assert r"\label{tab:baselines}" in baselines.format_baselines_latex(table)
    with pytest.raises(ValueError, match="sel_risk_msp"):
        baselines.baselines_table(
            [{k: v for k, v in rows[0].items() if k != "sel_risk_msp"}], n_test=100
        )
    with pytest.raises(ValueError, match="n_test"):
        baselines.baselines_table(rows, n_test=0)


def test_writers_are_atomic_and_registered(monkeypatch, tmp_path) -> None:
    stems = [stem for stem, _ in OUTPUTS]
    assert dict(OUTPUTS)["baselines"] == ("csv", "md", "tex", "png", "pdf")
    assert dict(OUTPUTS)["risk_coverage"] == ("png", "pdf")
    assert stems.index("risk_coverage") < stems.index("manifest")
    # each stem's writer is _Run.write_<stem> ('seed{seed}': write_seed), found by its name
    assert all(callable(getattr(_Run, "write_" + stem.format(seed=""), None)) for stem in stems)
    calls = []
    original = baselines.atomic_write_text
    monkeypatch.setattr(
        baselines,
        "atomic_write_text",
        lambda path, text: calls.append(path) or original(path, text),
    )
    rows = _rows({(1, 2.0): {}, (2, 6.0): {}})
    paths = baselines.write_baselines(rows, tmp_path, n_test=100)
    assert calls == paths == [tmp_path / f"baselines.{s}" for s in ("csv", "md", "tex")]


def test_figures_draw_every_rejector() -> None:
    rows = _rows({(1, 2.0): {}, (1, 6.0): {}, (2, 2.0): {}, (2, 6.0): {}})
    drawing = baseline_figures.plot_baselines(rows)
    assert len(drawing.risk.get_lines()) >= len(REJECTOR_NAMES)
    assert baseline_figures.pick_levels([0.0, 0.4, 2.0, 6.4, 12.0, 16.0]) == [2.0, 6.4, 12.0]
