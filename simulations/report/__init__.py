"""Tables of the synthetic experiment: the violation analysis and the per-seed table.

The sweep gives one row per (seed, noise) cell.  This module turns those rows into

- the violation analysis of the paper's ``tab:violation_analysis``, one block per predictor: every
  entry of :data:`gcul_theory.PREDICTORS` (the paper's printed bounds ``"gaussian"``, ``"union"``,
  ``"chernoff"``; the valid bounds ``"boole"``, ``"hunter_worsley"``; the model value
  ``"gaussian_exact"``) and the certified predictor ``"certified"``, with the paper's reported
  counts beside the union block (the paper's bound, ``thm:r1_rigorous``) and a line saying which
  predictors are valid;
- the per-level table of one seed, the paper's ``tab:synthetic_gcul`` (seed 16),

and writes each as CSV (machine-readable, full precision, fractions), Markdown (pipe table) and
LaTeX (booktabs, a ``table`` float with caption and label; needs ``\\usepackage{booktabs}``).

Definitions (those of the paper's "Reliability and safety envelope analysis" in section
``subsec:synthetic_exp``), with λ the target rejection cost (0.15 by default), λ*_PRE the
critical cost that the feasibility bound predicts from the geometry of the training set, and
λ*_EMP the empirical critical cost, the largest λ at which rejecting still pays on the test set:

- Type-I (conservative error): λ*_PRE < λ and λ*_EMP ≥ λ (predicted infeasible, yet
  effective);
- Type-II (unsafe error): λ*_PRE ≥ λ and λ*_EMP < λ (predicted feasible, yet it fails);
- Overall = Type-I + Type-II.

A cell with λ*_PRE == λ counts as "predicted feasible", one with λ*_EMP == λ as "empirically
effective", exactly as the inequalities read.

The certified block is judged differently: its prediction is ``lambda_cert`` (λ*_CERT of a GCUL
fitted on 80% of the training split and certified on the other 20%) and it is compared with
``lambda_emp_cert``, λ*_EMP of that same model on the test split, not with ``lambda_emp`` (the
model fitted on the whole training split, which λ*_CERT says nothing about). Where the results
have ``lambda_emp_cert_noisy`` a second block, ``"certified_noisy"``, judges the same λ*_CERT
against λ*_EMP on test labels flipped as the calibration labels are: the test of the guarantee
itself (the certificate speaks about the label law of its calibration data).

The same verdict, one prediction at a time and with a ``"failed"`` for a predictor that gave no
value, is :func:`feasibility_verdict` (:data:`VERDICTS`); the real-data validation of the
predictors tallies such calls over many splits with :func:`verdict_summary` and prints them with
:func:`format_verdict_summary_markdown` and :func:`format_verdict_summary_wide`.

Input: a list of dicts (one per cell, the sweep's rows) or a mapping of column name to an array
of equal length (e.g. a dict of NumPy arrays, or anything with ``keys()`` and ``[name]``).  Only
the columns a table needs are required; values may be numbers or numeric strings (as read back
from ``results.csv``).

Where a change goes
-------------------
- reading and checking results, and which blocks are judged: :mod:`~simulations.report.columns`
  (a block's label, validity wording and columns are its entry in :mod:`simulations.registry`);
- what a table counts: :mod:`~simulations.report.violations`, :mod:`~simulations.report.seed`;
  the real-data validation's verdict tallies and their tables:
  :mod:`~simulations.report.verdict_tables`;
- how a table reads in CSV, Markdown, LaTeX or text:
  :mod:`~simulations.report.violation_formats`, :mod:`~simulations.report.seed_formats`, and
  what they share (number formats, escaping, the captions' notes, the writer):
  :mod:`~simulations.report.formats`.
"""

from __future__ import annotations

from simulations.report.columns import (
    CERTIFIED,
    CERTIFIED_NOISY,
    LAMBDA_TARGET,
    Results,
    check_lam,
    check_methods,
    judged_blocks,
    judged_columns,
    judged_methods,
    method_label,
    noise_key,
    predictor_names,
    result_columns,
    validity_line,
)
from simulations.report.seed import (
    PAPER_SEED,
    PAPER_SEED16_TABLE,
    PaperSeedRow,
    SeedTable,
    SeedTableRow,
    seed_table,
)
from simulations.report.seed_formats import (
    PAPER_SEED_CSV_COLUMNS,
    format_seed_table_csv,
    format_seed_table_latex,
    format_seed_table_markdown,
    write_seed_table,
)
from simulations.report.violation_formats import (
    VIOLATIONS_CSV_COLUMNS,
    format_violations_csv,
    format_violations_latex,
    format_violations_markdown,
    format_violations_text,
    write_violations,
)
from simulations.report.verdict_tables import (
    format_verdict_summary_markdown,
    format_verdict_summary_wide,
    verdict_summary,
)
from simulations.report.violations import (
    KINDS,
    PAPER_VIOLATIONS,
    VERDICTS,
    ViolationCount,
    ViolationTable,
    feasibility_verdict,
    violation_masks,
    violation_table,
)

__all__ = [
    "KINDS",
    "Results",
    "VIOLATIONS_CSV_COLUMNS",
    "CERTIFIED",
    "CERTIFIED_NOISY",
    "LAMBDA_TARGET",
    "PAPER_SEED",
    "PAPER_SEED16_TABLE",
    "PAPER_SEED_CSV_COLUMNS",
    "PAPER_VIOLATIONS",
    "PaperSeedRow",
    "VERDICTS",
    "SeedTable",
    "SeedTableRow",
    "ViolationCount",
    "ViolationTable",
    "check_lam",
    "check_methods",
    "feasibility_verdict",
    "format_seed_table_csv",
    "format_seed_table_latex",
    "format_seed_table_markdown",
    "format_verdict_summary_markdown",
    "format_verdict_summary_wide",
    "format_violations_csv",
    "format_violations_latex",
    "format_violations_markdown",
    "format_violations_text",
    "judged_blocks",
    "judged_columns",
    "judged_methods",
    "method_label",
    "noise_key",
    "predictor_names",
    "result_columns",
    "seed_table",
    "verdict_summary",
    "violation_masks",
    "validity_line",
    "violation_table",
    "write_seed_table",
    "write_violations",
]
