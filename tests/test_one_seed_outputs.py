"""A run of one seed (``gcul reproduce --seeds 16``, the first thing a newcomer tries to save
time) says "1 seed", not "1 seeds", in every output that counts seeds: the baselines figure's
title, the baselines table's legend and caption, and the header ``gcul reproduce`` prints."""

from __future__ import annotations

import contextlib
import io

import pytest

from simulations import baseline_figures, baselines
from simulations.cli import main


def _rows(seeds):
    rows = []
    for seed in seeds:
        for noise in (0.0, 2.0, 12.0):
            row = {"seed": seed, "noise": noise, "base_acc": 0.7, "selective_acc": 0.8,
                   "rejection_rate": 0.2, "ujoint_gcul": 0.05}  # fmt: skip
            for rejector in baselines.REJECTORS:
                row[f"sel_risk_{rejector.name}"] = 0.3 if rejector.name != "bayes" else 0.2
                row[f"aurc_{rejector.name}"] = 0.3
            rows.append(row)
    return rows


def test_the_baselines_figure_and_table_count_one_seed_in_the_singular():
    one, two = _rows((16,)), _rows((16, 17))
    assert baseline_figures.plot_baselines(one).figure.get_suptitle().endswith("over 1 seed")
    assert baseline_figures.plot_baselines(two).figure.get_suptitle().endswith("over 2 seeds")
    for rows, words in ((one, "1 seed mean "), (two, "2 seed means ")):
        table = baselines.baselines_table(rows, n_test=100)
        for text in (
            baselines.format_baselines_markdown(table),
            baselines.format_baselines_latex(table),
        ):
            assert words in text
    table = baselines.baselines_table(one, n_test=100)
    assert "1 seed means" not in baselines.format_baselines_markdown(table)


@pytest.mark.slow  # 5 s: a whole one-seed `gcul reproduce` run
def test_the_reproduce_header_counts_one_seed_in_the_singular(tmp_path):
    err = io.StringIO()
    argv = ["reproduce", "--out", str(tmp_path / "out"), "--seeds", "16", "--levels", "2"]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        assert main([*argv, "--jobs", "1"]) == 0
    assert err.getvalue().startswith("gcul reproduce: 1 seed x 2 noise levels = 2 cells"), err
