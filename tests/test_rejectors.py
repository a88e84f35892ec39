"""Tests for simulations.rejectors: the registry, the context, the shared interface, determinism."""

from __future__ import annotations

import re

import numpy as np
import pytest
from _rejector_data import SMALL, cell

from simulations.rejectors import (
    REJECTORS,
    FittedRejector,
    Rejector,
    RejectorContext,
    child_seed,
    get_rejector,
)
from simulations.synthetic import mixture

NAMES = ["gcul", "msp", "entropy", "mahalanobis", "knn", "selectivenet", "deep_gamblers", "bayes"]


def test_registry_order_and_fields():
    assert [entry.name for entry in REJECTORS] == NAMES
    for entry in REJECTORS:
        assert isinstance(entry, Rejector)
        assert re.fullmatch(r"[a-z_]+", entry.name)
        assert entry.label and entry.description and entry.reference
        assert callable(entry.fit)
        assert get_rejector(entry.name) is entry
    assert [e.name for e in REJECTORS if e.needs_truth] == ["bayes"]
    assert [e.name for e in REJECTORS if e.needs_target_coverage] == ["selectivenet"]
    with pytest.raises(ValueError, match="unknown rejector 'chow'; known: gcul, msp"):
        get_rejector("chow")


def test_entries_are_frozen():
    with pytest.raises(AttributeError):
        REJECTORS[0].name = "x"


@pytest.mark.parametrize("entry", REJECTORS, ids=lambda e: e.name)
def test_every_rejector_scores_predicts_and_states_its_operating_point(entry):
    data, model, context = cell(11, 4.0, SMALL)
    fitted = entry.fit(context)
    assert isinstance(fitted, FittedRejector) and fitted.name == entry.name
    scores, labels = fitted.score_predict(data.X_test)
    assert scores.shape == labels.shape == data.y_test.shape
    assert scores.dtype == np.float64 and labels.dtype == np.int64
    assert not np.any(np.isnan(scores))
    assert labels.min() >= 0 and labels.max() < model.n_classes_
    np.testing.assert_array_equal(fitted.score(data.X_test), scores)
    np.testing.assert_array_equal(fitted.predict(data.X_test), labels)
    assert fitted.has_operating_point == (entry.operating_point is not None)
    if fitted.has_operating_point:
        mask = fitted.accept(data.X_test, 0.15)
        assert mask.dtype == bool and mask.shape == scores.shape
    else:
        with pytest.raises(ValueError, match=f"the '{entry.name}' rejector has no natural"):
            fitted.accept(data.X_test, 0.15)


@pytest.mark.parametrize("entry", REJECTORS, ids=lambda e: e.name)
def test_accept_from_the_scores_is_accept(entry):
    # the sweep takes Chow's accept set of msp and bayes from the scores it already has
    data, model, context = cell(11, 4.0, SMALL)
    fitted = entry.fit(context)
    scores = fitted.score(data.X_test)
    if entry.name not in ("msp", "bayes"):
        with pytest.raises(ValueError, match="is not a threshold on its score"):
            fitted.accept_scores(scores, 0.15)
        return
    quantiles = np.quantile(-np.expm1(scores), [0.1, 0.5, 0.9])  # λ splitting the test rows
    for lam in (0.0, 0.15, 1.0, *quantiles.tolist()):
        accepted = fitted.accept_scores(scores, lam)
        np.testing.assert_array_equal(accepted, fitted.accept(data.X_test, lam))
        assert accepted.dtype == bool
    assert 0 < np.count_nonzero(fitted.accept_scores(scores, float(quantiles[1]))) < scores.size
    with pytest.raises(ValueError, match="lam must be in"):
        fitted.accept_scores(scores, 1.5)


@pytest.mark.parametrize("entry", REJECTORS, ids=lambda e: e.name)
def test_bit_for_bit_deterministic_from_the_seed(entry):
    data, model, context = cell(12, 6.0, SMALL)
    twin = RejectorContext(
        data.X_train.copy(),
        data.y_train.copy(),
        model,
        seed=np.random.SeedSequence(context.seed.entropy, spawn_key=context.seed.spawn_key),
        target_coverage=context.target_coverage,
        mixture=context.mixture,
    )
    first = entry.fit(context).score_predict(data.X_test)
    # other rejectors fitted in between change nothing (each draws from its own stream)
    for other in REJECTORS:
        other.fit(twin)
    second = entry.fit(twin).score_predict(data.X_test)
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a, b)


def test_child_seed_is_spawn_without_the_counter():
    root = np.random.SeedSequence(123, spawn_key=(4,))  # itself a child: keys nest
    spawned = np.random.SeedSequence(123, spawn_key=(4,)).spawn(3)
    for stream in (2, 0, 1):  # any order
        child = child_seed(root, stream)
        assert child.spawn_key == spawned[stream].spawn_key
        np.testing.assert_array_equal(child.generate_state(4), spawned[stream].generate_state(4))
    assert root.n_children_spawned == 0


# ----------------------------------------------------------------------------------------------
# Validation


def _context(**changes):
    data, model, context = cell(11, 4.0, SMALL)
    kwargs = {
        "X_train": data.X_train,
        "y_train": data.y_train,
        "model": model,
        "seed": 0,
        "target_coverage": 0.8,
        "mixture": context.mixture,
    }
    kwargs.update(changes)
    return RejectorContext(**kwargs)


def test_context_normalises_and_freezes():
    context = _context(seed=7)
    assert isinstance(context.seed, np.random.SeedSequence) and context.seed.entropy == 7
    assert context.X_train.dtype == np.float64 and not context.X_train.flags.writeable
    assert context.y_train.dtype == np.int64 and not context.y_train.flags.writeable
    assert (context.n_classes, context.n_features) == (5, 10)
    with pytest.raises(AttributeError):
        context.seed = 1


@pytest.mark.parametrize(
    ("changes", "error", "message"),
    [
        ({"model": object()}, TypeError, "model must be a fitted GCUL"),
        ({"X_train": np.zeros((5, 3))}, ValueError, "X_train must have 10 features"),
        ({"X_train": np.full((4, 10), np.nan)}, ValueError, "X_train must contain only finite"),
        ({"X_train": np.zeros((2, 10), complex)}, TypeError, "X_train must be a real numeric"),
        ({"X_train": np.zeros(10)}, ValueError, "X_train must be a 2-D array"),
        ({"y_train": np.zeros(3, int)}, ValueError, "y_train must be a 1-D array with one label"),
        ({"y_train": "labels"}, ValueError, "y_train must be a 1-D array"),
        ({"seed": -1}, ValueError, "seed must be a SeedSequence or an int >= 0; got -1"),
        ({"seed": 1.5}, TypeError, "seed must be a numpy.random.SeedSequence"),
        ({"target_coverage": 0.0}, ValueError, r"target_coverage must be in \(0, 1\]; got 0.0"),
        ({"target_coverage": 1.5}, ValueError, r"target_coverage must be in \(0, 1\]; got 1.5"),
        ({"target_coverage": True}, TypeError, "target_coverage must be a real number"),
        ({"mixture": (1, 2)}, TypeError, "mixture must be a simulations.synthetic.Mixture"),
    ],
)
def test_context_validation_messages(changes, error, message):
    with pytest.raises(error, match=message):
        _context(**changes)


def test_context_rejects_labels_outside_the_models_classes():
    data, _, _ = cell(11, 4.0, SMALL)
    y = data.y_train.copy()
    y[0] = 5
    with pytest.raises(ValueError, match=r"y_train must hold labels 0..4 \(the model's classes\)"):
        _context(y_train=y)
    with pytest.raises(TypeError, match="y_train must hold integer labels"):
        _context(y_train=data.y_train.astype(float))


def test_context_rejects_a_mixture_of_another_shape():
    from simulations.synthetic import SyntheticConfig

    law = mixture(11, 4.0, SyntheticConfig(n_classes=3, n_per_class=10, n_confusion=10))
    with pytest.raises(ValueError, match="mixture has 3 classes in 10 dimensions; the data has 5"):
        _context(mixture=law)


def test_missing_requirements_are_named():
    with pytest.raises(ValueError, match="'bayes' rejector needs the data-generating law"):
        get_rejector("bayes").fit(_context(mixture=None))
    with pytest.raises(ValueError, match="'selectivenet' rejector is trained for a target"):
        get_rejector("selectivenet").fit(_context(target_coverage=None))


@pytest.mark.parametrize("entry", REJECTORS, ids=lambda e: e.name)
def test_fitted_rejectors_validate_X_and_lam(entry):
    fitted = entry.fit(_context())
    with pytest.raises(ValueError, match="X must have 10 features"):
        fitted.score(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="X must contain only finite values"):
        fitted.predict(np.full((1, 10), np.inf))
    with pytest.raises(ValueError, match="X must have at least one row"):
        fitted.score_predict(np.zeros((0, 10)))
    with pytest.raises(TypeError, match="X must be a real numeric 2-D array"):
        fitted.score([["a"] * 10])
    if fitted.has_operating_point:
        for lam in (-0.1, 1.5, float("nan")):
            with pytest.raises(ValueError, match=r"lam must be in \[0, 1\]"):
                fitted.accept(np.zeros((1, 10)), lam)
        with pytest.raises(TypeError, match="lam must be a real number"):
            fitted.accept(np.zeros((1, 10)), "0.1")
