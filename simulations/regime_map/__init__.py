r"""When does GCUL's rejection beat thresholding confidence? The regime map, from Python.

The paper's conclusion calls GCUL "a geometry-dependent selective learning framework rather
than a universal baseline" that helps "on datasets exhibiting coherent confusion structures"
(section "Conclusion and discussion"). The regime map measures GCUL against MSP (thresholding
the maximum softmax) over the geometry of the synthetic protocol of section "Synthetic
phase-transition verification", and asks whether quantities computed on the training split
alone predict the sign. ``benchmarks/regime_map.py`` is the study that calls this API and
writes the committed report; ``docs/explanation/regimes.md`` explains its findings.

The grid (five factors; a full grid per pair of them, the others at default)::

    Factor, FACTORS, NAMES            the factors σ, a, t, q, b, in a setting's order
    PAIRS                             the phase diagrams (pairs of factors)
    settings                          every setting of the study, once
    share                             the confusion share q of n_conf
    config_of                         a setting's SyntheticConfig and σ
    SEEDS, LAM, ALPHA, VALID, ...     the study's seeds, cost, level and valid bound

One cell (setting × seed), and every cell::

    measure_cell                      GCUL, MSP and Bayes at GCUL's coverage, and the predictors
    setting_task                      every seed of one setting (one BLAS thread)
    measure_settings                  every cell of a list of settings, on worker processes

The summaries (statistics from :mod:`simulations.statistics`)::

    summarise_settings                per setting: GCUL − MSP ± SE, t test, gap share, predictors
    diagram, phase_diagrams           the grid of a pair, with Holm's rejections
    PREDICTORS, BLOCKS                the predictors judged and the blocks of settings
    predictor_table                   orientation and threshold on one half, AUC on the other
    add_bootstrap_se                  the AUC's bootstrap SE over seeds and settings
    sigma_axis, place_on_sigma        a dataset placed on the σ axis by its training error
    says_gcul                         a predictor's verdict at its chosen threshold

The text corpora (:mod:`simulations.text.study`) on the map::

    text_rows, text_task, FT_REP      the predictors and GCUL − MSP of every corpus split
    finetuned_inputs                  a fine-tuned encoder's held-out rows (protocol (H))
    CompareCheck, check_against_compare   each risk against the text benchmark's compare.csv
    summarise_text, seed_spread       means over splits; the spread over fine-tuning seeds
    text_order, text_label            the report's order and names of the text rows

The outputs::

    plot_map, plot_predictors, axis_label   the figures (no pyplot)
    report, fmt_points, PAPER               the Markdown report
    write_csv, read_csv                     the CSV files, byte-identical on every run

Where a change goes: the grid and the study's constants in ``_grid.py``; one cell in
``_cells.py``; the per-setting, per-diagram and per-predictor summaries in ``_summaries.py``; the
text rows in ``_text.py``; the figures in ``_figures.py``; the report's text in ``_report.py``;
the CSV format in ``_files.py``. A statistic goes into :mod:`simulations.statistics`, a
training-split predictor into :mod:`simulations.training_predictors`.
"""

from __future__ import annotations

from simulations.regime_map._cells import measure_cell, measure_settings, setting_task
from simulations.regime_map._figures import axis_label, plot_map, plot_predictors
from simulations.regime_map._files import read_csv, write_csv
from simulations.regime_map._grid import (
    ALPHA,
    BOOT_SEED,
    FACTORS,
    HALF_SEED,
    LAM,
    N_BOOT,
    N_PER_CLASS,
    NAMES,
    PAIRS,
    SEEDS,
    VALID,
    Factor,
    config_of,
    settings,
    share,
)
from simulations.regime_map._report import PAPER, fmt_points, report
from simulations.regime_map._summaries import (
    BLOCKS,
    PREDICTORS,
    add_bootstrap_se,
    diagram,
    phase_diagrams,
    place_on_sigma,
    predictor_table,
    says_gcul,
    sigma_axis,
    summarise_settings,
)
from simulations.regime_map._text import (
    FT_REP,
    CompareCheck,
    check_against_compare,
    finetuned_inputs,
    seed_spread,
    summarise_text,
    text_label,
    text_order,
    text_rows,
    text_task,
)

__all__ = [
    "ALPHA",
    "BLOCKS",
    "BOOT_SEED",
    "FACTORS",
    "FT_REP",
    "HALF_SEED",
    "LAM",
    "NAMES",
    "N_BOOT",
    "N_PER_CLASS",
    "PAIRS",
    "PAPER",
    "PREDICTORS",
    "SEEDS",
    "VALID",
    "CompareCheck",
    "Factor",
    "add_bootstrap_se",
    "axis_label",
    "check_against_compare",
    "config_of",
    "diagram",
    "finetuned_inputs",
    "fmt_points",
    "measure_cell",
    "measure_settings",
    "phase_diagrams",
    "place_on_sigma",
    "plot_map",
    "plot_predictors",
    "predictor_table",
    "read_csv",
    "report",
    "says_gcul",
    "seed_spread",
    "setting_task",
    "settings",
    "share",
    "sigma_axis",
    "summarise_settings",
    "summarise_text",
    "text_label",
    "text_order",
    "text_rows",
    "text_task",
    "write_csv",
]
