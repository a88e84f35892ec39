"""SingleAttractorModel: the model finite_sample_lambda assumes, its sampler and replications.

Its statistical use (the coverage of finite_sample_lambda's promise) is tested in
tests/test_finite_sample.py; here the construction itself, draw by draw.
"""

from __future__ import annotations

import numpy as np
import pytest

from gcul_theory import FiniteSampleBound, SingleAttractorModel, finite_sample_lambda

MODEL = SingleAttractorModel(d=6, C=3, gap=4.0, n_core=7, n_att=9, scale=2.0)


def test_std_cores_and_centres_are_the_documented_ones():
    assert MODEL.std.tolist() == [2.0, 2.0, 2.0, 1.0, 1.0, 1.0]
    np.testing.assert_array_equal(MODEL.cores, 4.0 * np.eye(3, 6))
    # each core pulled towards 0 by its n_att / C² = 1 expected chance-correct attractor sample
    expected = np.vstack([np.zeros(6), 4.0 * np.eye(3, 6) * 7 / 8])
    np.testing.assert_allclose(MODEL.centres, expected, rtol=2**-52, atol=0)
    assert MODEL.centres.shape == (4, 6)


def test_a_draw_is_the_cores_then_the_attractor_from_one_stream():
    Z, y, y_pred = MODEL.draw(np.random.default_rng(5))
    assert Z.shape == (3 * 7 + 9, 6) and y.shape == y_pred.shape == (30,)
    rng = np.random.default_rng(5)
    cores = [rng.normal(0, 1, (7, 6)) + 4.0 * np.eye(3, 6)[c] for c in range(3)]
    attractor = rng.normal(0, 1, (9, 6)) * MODEL.std
    np.testing.assert_array_equal(Z, np.vstack([*cores, attractor]))
    np.testing.assert_array_equal(y[:21], np.repeat([0, 1, 2], 7))
    np.testing.assert_array_equal(y_pred[:21], y[:21])
    np.testing.assert_array_equal(y[21:], rng.integers(0, 3, 9))
    np.testing.assert_array_equal(y_pred[21:], rng.integers(0, 3, 9))


def test_draw_takes_a_seed_or_advances_a_generator():
    rng = np.random.default_rng(1)
    first, second = MODEL.draw(rng), MODEL.draw(rng)
    assert not np.array_equal(first[0], second[0])
    for a, b in zip(MODEL.draw(1), first, strict=True):
        np.testing.assert_array_equal(a, b)


def test_captured_is_the_attractor_centres_voronoi_cell():
    centres = MODEL.centres
    assert MODEL.captured(centres).tolist() == [True, False, False, False]
    # halfway between 0 and the first core's centre: a tie, which counts as captured
    halfway = centres[1] / 2
    assert MODEL.captured(np.vstack([halfway * 0.99, halfway * 1.01, halfway])).tolist() == [
        True,
        False,
        True,
    ]


def test_replications_yield_the_bound_and_two_fresh_shares():
    out = list(MODEL.replications(np.random.default_rng(0), 3, delta=0.2, n_boot=20))
    assert len(out) == 3
    for bound, capture, contamination in out:
        assert isinstance(bound, FiniteSampleBound)
        assert 0.0 <= capture <= 1.0 and 0.0 <= contamination <= 1.0
    again = list(MODEL.replications(0, 3, delta=0.2, n_boot=20))
    assert [(b.r1_lower, c, k) for b, c, k in again] == [(b.r1_lower, c, k) for b, c, k in out]
    # the first replication's bound is finite_sample_lambda on the first draw, same stream
    rng = np.random.default_rng(0)
    Z, y, y_pred = MODEL.draw(rng)
    first = finite_sample_lambda(Z, y, y_pred, delta=0.2, n_boot=20, rng=rng)
    assert first.r1_lower == out[0][0].r1_lower and first.n_errors == out[0][0].n_errors


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"C": 1}, ValueError, "C must be an int of at least 2; got 1"),
        ({"C": 2.0}, TypeError, "C must be an int of at least 2"),
        ({"d": 2}, ValueError, "d must be an int of at least 3; got 2"),
        ({"gap": 0.0}, ValueError, r"gap must lie in \(0, inf\)|gap must lie in \(0"),
        ({"scale": -1.0}, ValueError, "scale must lie in"),
        ({"n_core": 0}, ValueError, "n_core must be an int of at least 1; got 0"),
        ({"n_att": -1}, ValueError, "n_att must be an int of at least 0; got -1"),
        ({"n_att": True}, TypeError, "n_att must be an int"),
        ({"gap": float("nan")}, ValueError, "gap must be finite"),
    ],
)
def test_the_model_refuses_bad_parameters(kwargs, error, match):
    args = {"d": 6, "C": 3, "gap": 4.0, "n_core": 7, "n_att": 9} | kwargs
    with pytest.raises(error, match=match):
        SingleAttractorModel(**args)


def test_the_methods_refuse_bad_arguments():
    with pytest.raises(ValueError, match=r"points must have shape \(n, d\) = \(n, 6\); got"):
        MODEL.captured(np.zeros((2, 5)))
    with pytest.raises(ValueError, match="reps must be an int of at least 1; got 0"):
        MODEL.replications(0, 0)
    with pytest.raises(TypeError, match="rng must be None"):
        MODEL.draw("seed")
