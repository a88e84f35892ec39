"""A test helper: a copy of the "boole" entry of the registry, under another name."""

from __future__ import annotations

import dataclasses

from simulations import registry


def add_boole_twin(monkeypatch) -> registry.JudgedMethod:
    """Put ``boole_twin`` (boole's entry, its own columns) after the last theory predictor of
    :data:`simulations.registry.METHODS`, for this test only; return it."""
    twin = dataclasses.replace(
        registry.method("boole"),
        name="boole_twin",
        label="boole twin",
        predicted="lambda_pre_boole_twin",
        columns=("lambda_pre_boole_twin", "r1_hat_boole_twin"),
    )
    at = registry.METHODS.index(registry.methods("predictor")[-1]) + 1
    monkeypatch.setattr(registry, "METHODS", (*registry.METHODS[:at], twin, *registry.METHODS[at:]))
    return twin
