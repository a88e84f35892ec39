"""``compare`` refuses a calibration share that leaves a class too few rows to fit on before it
runs a single split (it ran every split, minutes on real data, then refused), and the guarantee
it draws is the same as before the check moved."""

from __future__ import annotations

import numpy as np
import pytest

from simulations.compare import compare


def _data(per_class: int, n_classes: int = 10, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), per_class)
    Z = 3.0 * rng.standard_normal((n_classes, 4))[y] + rng.standard_normal((y.size, 4))
    return Z, y


def test_a_calibration_share_that_empties_a_class_fails_before_any_split():
    Z, y = _data(per_class=2)  # 20 rows: a share of 0.3 leaves some class < 2 rows to fit on
    told: list[str] = []
    with pytest.raises(ValueError, match=r"calibration 0\.3 with seed 0 leaves \d row\(s\) of"):
        compare(Z, y, splits=3, test_size=0.5, calibration=0.3, progress=told.append)
    assert told == []  # not even the line announcing the splits


def test_the_guarantee_is_drawn_from_the_same_rows():
    # the calibration split is the seed's permutation of the rows: n_cal = round(0.3 n)
    Z, y = _data(per_class=30)
    result = compare(Z, y, splits=2, calibration=0.3, seed=5)
    assert result.guarantee.n_cal == round(0.3 * y.size)
    assert result.guarantee.n_train + result.guarantee.n_tune == y.size - result.guarantee.n_cal
