"""The certified predictor judged on labels as noisy as its calibration labels (issue 14, §3).

The sweep certifies on the observed (flipped) calibration labels but judged only against λ*_EMP
on clean test labels. ``Dataset.y_test_noisy`` flips the test labels by the protocol's own
process from a stream of its own; ``lambda_emp_cert_noisy`` is the certified model's λ*_EMP on
them, and the ``certified_noisy`` block of the violation table judges λ*_CERT against it.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from _tolerances import ALPHA
from scipy.stats import binom

from simulations import report
from simulations.results import COLUMN_RANGES, ROW_COLUMNS
from simulations.sweep.cell import certified_columns
from simulations.synthetic import SyntheticConfig, make_dataset

SMALL = SyntheticConfig(n_per_class=200, n_confusion=200)  # 1,200 samples, 240 in the test split


def test_noisy_test_labels_follow_the_protocols_flip_process():
    levels = [0.0, 4.0, 8.0, 16.0, 40.0]
    data = [make_dataset(3, sigma, SMALL) for sigma in levels]
    assert np.array_equal(data[0].y_test_noisy, data[0].y_test)  # σ = 0: no flip
    previous = np.zeros(data[0].y_test.size, dtype=bool)
    for sigma, d in zip(levels, data, strict=True):
        flipped = d.y_test_noisy != d.y_test
        assert np.all(flipped[previous])  # common random numbers: a flip stays
        previous = flipped
        assert d.y_test_noisy.dtype == np.int64 and d.y_test_noisy.min() >= 0
        assert d.y_test_noisy.max() < SMALL.n_classes
        # The flip count is Binomial(240, p'), p' = P(u < 0.025 σ) for u uniform on the
        # multiples of 2**-53 in [0, 1), within 2**-53 of p (moving the band's probability by
        # at most 240 * 2**-53, total variation); the band is the exact central interval of
        # probability 1 - ALPHA: a false failure below ALPHA = 1e-9 at each of σ = 4, 8, 16
        # (σ = 0 and 40 are certain), 3 of the suite's Monte Carlo checks.
        p = SMALL.flip_probability(sigma)
        low, high = binom.ppf(ALPHA / 2, d.y_test.size, p), binom.isf(ALPHA / 2, d.y_test.size, p)
        assert low <= flipped.sum() <= high, (sigma, int(flipped.sum()))
    assert np.all(data[-1].y_test_noisy != data[-1].y_test)  # flip probability 1 at σ = 40


def test_noisy_test_labels_change_no_other_draw():
    # SHA-256 of every other array of make_dataset(5, 20.0, SMALL), computed with the code
    # before y_test_noisy existed (main at 99c0f3d): the new stream moves no existing draw.
    d = make_dataset(5, 20.0, SMALL)
    digest = hashlib.sha256()
    for name in d._fields:
        if name not in ("y_test_noisy", "mixture"):  # mixture: the law, not a draw
            digest.update(np.ascontiguousarray(getattr(d, name)).tobytes())
    assert digest.hexdigest() == (
        "0d92734a5695c091b87a57ea5bccc4bb0b6b1a0fa067ccc2e36603e1f5e2c2fb"
    )
    flips = d.y_test_noisy != d.y_test
    assert 0 < flips.sum() < flips.size


def test_certified_columns_judge_on_noisy_test_labels_too():
    data = make_dataset(16, 0.0, SMALL)
    row = certified_columns(data, 16, 0.0)
    assert row["lambda_emp_cert_noisy"] == row["lambda_emp_cert"]  # σ = 0: the same labels
    noisy = certified_columns(make_dataset(16, 12.0, SMALL), 16, 12.0)
    assert noisy["lambda_emp_cert_noisy"] != noisy["lambda_emp_cert"]
    # the last of the certified columns; the rejectors' columns (issue 16) come after them
    assert ROW_COLUMNS[ROW_COLUMNS.index("lambda_emp_cert") + 1] == "lambda_emp_cert_noisy"
    assert COLUMN_RANGES["lambda_emp_cert_noisy"] == (-np.inf, np.inf)


ROWS = [
    # (lambda_cert, lambda_emp_cert, lambda_emp_cert_noisy)
    (0.30, 0.40, 0.10),  # certified; pays on clean labels, not on noisy ones: Type-II (noisy)
    (0.10, 0.20, 0.12),  # not certified; pays on clean labels only: Type-I (clean)
    (0.20, 0.30, 0.25),  # agreement
]


def rows(with_noisy=True):
    out = []
    for i, (cert, emp, emp_noisy) in enumerate(ROWS):
        row = {"seed": 10 + i, "noise": 1.0, "lambda_cert": cert, "lambda_emp_cert": emp}
        if with_noisy:
            row["lambda_emp_cert_noisy"] = emp_noisy
        out.append(row)
    return out


def test_the_noisy_block_is_judged_on_lambda_emp_cert_noisy():
    methods = ("certified", "certified_noisy")
    table = report.violation_table(rows(), methods=methods)
    assert (table["certified", "type_i"].count, table["certified", "type_ii"].count) == (1, 0)
    noisy = table["certified_noisy", "type_ii"]
    assert (table["certified_noisy", "type_i"].count, noisy.count) == (0, 1)
    assert (noisy.predicted, noisy.empirical, noisy.valid) == (
        "lambda_cert",
        "lambda_emp_cert_noisy",
        True,
    )
    assert report.judged_columns("certified_noisy") == ("lambda_cert", "lambda_emp_cert_noisy")
    text = report.format_violations_markdown(table)
    assert "| Certified, noisy labels | yes | Type-II | 1 / 3 |" in text
    assert "lambda_emp_cert_noisy" in text
    assert "certified_noisy" in report.format_violations_text(table)
    assert "noisy" in report.format_violations_latex(table)


def test_the_noisy_block_is_added_by_default_only_when_its_column_exists(monkeypatch):
    from simulations import registry

    # only the certified blocks
    monkeypatch.setattr(registry, "METHODS", registry.methods("certificate"))
    assert report.violation_table(rows()).methods == ("certified", "certified_noisy")
    assert report.violation_table(rows(with_noisy=False)).methods == ("certified",)
    with pytest.raises(ValueError, match="lambda_emp_cert_noisy"):
        report.violation_table(rows(with_noisy=False), methods=("certified_noisy",))


def test_the_predictors_figure_has_a_noisy_panel_when_the_column_exists(monkeypatch):
    from simulations import registry
    from simulations.figures import plot_predictors

    monkeypatch.setattr(registry, "METHODS", registry.methods("certificate"))
    drawn = plot_predictors(rows())
    assert list(drawn.axes) == ["certified", "certified_noisy"]
    assert drawn.counts == {"certified": (1, 0), "certified_noisy": (0, 1)}
    title = drawn.axes["certified_noisy"].get_title()
    assert title.startswith("Certified, noisy labels (valid)")
    assert list(plot_predictors(rows(with_noisy=False)).axes) == ["certified"]
