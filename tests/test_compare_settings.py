"""``compare``'s settings: one frozen object, its options declared once (a constraint table),
checked once, and passed whole to every step of the run (issue 33)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

import simulations.compare.protocol as protocol
from simulations.compare import compare
from simulations.compare.settings import CONSTRAINTS, CompareSettings

# one bad value per option, the error it gets and the start of its one-line message; every
# option of the constraint table has a row (test_every_option_has_a_bad_value checks it)
BAD = [
    ("lam", 1.0, ValueError, "lam must be in [0, 1); got 1.0"),
    ("lam", "0.1", TypeError, "lam must be a real number; got '0.1'"),
    ("splits", 0, ValueError, "splits must be an integer in [1, 1000]; got 0"),
    ("splits", 2.0, TypeError, "splits must be an integer in [1, 1000]; got 2.0"),
    ("seed", 2**32, ValueError, "seed must be an integer in [0, 4294967295]; got 4294967296"),
    ("test_size", 0.0, ValueError, "test_size must be in (0, 1); got 0.0"),
    ("delta", 1.0, ValueError, "delta must be in (0, 1); got 1.0"),
    ("calibration", float("nan"), ValueError, "calibration must be in (0, 1); got nan"),
    ("target_risk", 0.0, ValueError, "target_risk must be in (0, 1); got 0.0"),
    ("level", True, TypeError, "level must be a real number; got True"),
    ("error_pool", "oof", ValueError, "error_pool must be one of 'in_sample', 'out_of_fold'"),
    ("error_pool", None, ValueError, "error_pool must be one of 'in_sample', 'out_of_fold'"),
    ("standardize", "yes", TypeError, "standardize must be True or False; got 'yes'"),
    ("n_jobs", 0, TypeError, "n_jobs must be a non-zero int (-1 = all usable cores); got 0"),
    ("n_jobs", 1.5, TypeError, "n_jobs must be a non-zero int"),
    ("cache_dir", 3, TypeError, "cache_dir must be a path or None; got 3"),
    ("keep_cache", 1, TypeError, "keep_cache must be True or False; got 1"),
]


def _blobs(n: int = 20, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1, 2], n)
    Z = 3.0 * rng.standard_normal((3, 2))[y] + rng.standard_normal((y.size, 2))
    return Z, y


def test_every_option_has_a_bad_value():
    fields = {field.name for field in dataclasses.fields(CompareSettings)} - {"names"}
    assert set(CONSTRAINTS) == fields
    assert {option for option, *_ in BAD} == fields


@pytest.mark.parametrize(("option", "value", "kind", "message"), BAD)
def test_the_settings_refuse_a_bad_value_in_one_line_naming_it(option, value, kind, message):
    with pytest.raises(kind) as info:
        CompareSettings(**{option: value})
    text = str(info.value)
    assert text.startswith(message) and "\n" not in text
    # the command line's spelling of the option, where it passes one
    shown = f"--{option.replace('_', '-')}"
    with pytest.raises(kind) as info:
        CompareSettings(**{option: value}, names={option: shown})
    assert str(info.value).startswith(message.replace(option, shown, 1))


@pytest.mark.parametrize(("option", "value", "kind", "message"), BAD)
def test_compare_refuses_the_same_values_with_the_same_errors(option, value, kind, message):
    # compare's public signature is unchanged: its keywords build the settings, which refuse
    Z, y = _blobs()
    with pytest.raises(kind) as info:
        compare(Z, y, **{option: value})
    assert str(info.value).startswith(message)


def test_the_settings_are_normalised_and_frozen(tmp_path):
    settings = CompareSettings(
        lam=np.float32(0.25), splits=np.int64(3), standardize=np.bool_(True), cache_dir=str(tmp_path)
    )
    assert (type(settings.lam), type(settings.splits), type(settings.standardize)) == (
        float,
        int,
        bool,
    )
    assert settings.cache_dir == Path(tmp_path)
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.lam = 0.5  # type: ignore[misc]
    # a changed copy is checked again
    with pytest.raises(ValueError, match=r"splits must be an integer in \[1, 1000\]"):
        dataclasses.replace(settings, splits=0)
    # how messages name the options is not a setting: equal settings whatever the names
    named = CompareSettings(names={"lam": "--lam"})
    assert named == CompareSettings() and named.name("lam") == "--lam"
    assert dataclasses.replace(named, lam=0.2).name("lam") == "--lam"
    with pytest.raises(TypeError, match="names must be a mapping"):
        CompareSettings(names=["--lam"])  # type: ignore[arg-type]


def test_compare_passes_one_settings_object_to_every_step(monkeypatch):
    # the splits, the split cache's calibration split and the guarantee receive the very object
    # compare built from its keywords (no option re-read from a dict or checked again)
    seen: dict[str, list] = {"split": [], "calibration": [], "guarantee": []}
    split_task, calibration_split, guarantee = (
        protocol._split_task,
        protocol._calibration_split,
        protocol._guarantee,
    )

    def spy_split(*task):
        seen["split"].append(task[-1])
        return split_task(*task)

    def spy_calibration(y_fit, settings):
        seen["calibration"].append(settings)
        return calibration_split(y_fit, settings)

    def spy_guarantee(*args):
        seen["guarantee"].append(args[-1])
        return guarantee(*args)

    monkeypatch.setattr(protocol, "_split_task", spy_split)
    monkeypatch.setattr(protocol, "_calibration_split", spy_calibration)
    monkeypatch.setattr(protocol, "_guarantee", spy_guarantee)
    Z, y = _blobs()
    compare(Z, y, lam=0.2, splits=2, seed=4, error_pool="out_of_fold", standardize=True)
    objects = [*seen["calibration"], *seen["split"], *seen["guarantee"]]
    assert len(objects) == 4
    assert all(settings is objects[0] for settings in objects)
    assert objects[0] == CompareSettings(
        lam=0.2, splits=2, seed=4, error_pool="out_of_fold", standardize=True
    )


def test_the_training_part_needs_the_knn_rejectors_k(monkeypatch):
    # the smallest training part is kNN's k (its score is the distance to the k-th training
    # neighbour), read from the kNN rejector, not a copy of its number
    from simulations.rejectors import knn

    Z, y = _blobs(n=6)  # 18 rows: 12 train at test_size 0.3
    monkeypatch.setattr(knn, "N_NEIGHBORS", 13)
    with pytest.raises(ValueError, match="holds 12 rows with test_size 0.3; at least 13 are"):
        compare(Z, y, splits=1)
