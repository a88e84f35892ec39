"""``gcul info``: the versions gcul runs with and which of its fast paths are active, and why."""

from __future__ import annotations

import argparse
import json
import platform

from simulations.cli.common import emit, gcul_version

__all__ = ["add_parser", "report", "run"]


def add_parser(commands) -> None:
    """Add the command's parser to ``commands`` (argparse sub-parsers)."""
    info = commands.add_parser(
        "info",
        help="print the versions gcul runs with and which fast paths are active, and why",
        description="Print the versions of gcul, Python, NumPy and SciPy, then every fast path "
        "(a computation that relies on an undocumented detail of SciPy, NumPy or BLAS to go "
        "faster, with results identical to its portable path's, bit for bit): whether it is "
        "active here, and why (what its probe checked, why the probe failed, or that "
        "GCUL_FAST_PATHS=off switched it off). A fast path that is not active costs time, never "
        "a different number. Set GCUL_FAST_PATHS=off to force every portable path.",
    )
    info.add_argument(
        "--json", action="store_true", help="print the same as one JSON object on stdout"
    )
    info.set_defaults(handler=run)


def report() -> dict:
    """What ``gcul info`` prints: versions, the switch's value and every fast path's state."""
    import os

    import numpy as np
    import scipy

    from simulations import _fastpaths

    states = _fastpaths.states()  # first: a bad GCUL_FAST_PATHS is refused before anything
    by_name = {path.name: path for path in _fastpaths.FAST_PATHS}
    return {
        "gcul": gcul_version(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "switch": {
            "variable": _fastpaths.ENV_VAR,
            "value": os.environ.get(_fastpaths.ENV_VAR),
            "forced_off": _fastpaths.forced_off(),
        },
        "fast_paths": [
            {
                "name": state.name,
                "active": state.active,
                "reason": state.reason,
                "where": by_name[state.name].where,
                "contract": by_name[state.name].contract,
                "fallback": by_name[state.name].fallback,
            }
            for state in states
        ],
    }


def _text(found: dict) -> str:
    switch = found["switch"]
    value = "unset" if switch["value"] is None else repr(switch["value"])
    lines = [
        f"gcul {found['gcul']} (Python {found['python']}, NumPy {found['numpy']}, "
        f"SciPy {found['scipy']})",
        f"fast paths ({switch['variable']} is {value}: "
        + ("every portable path forced" if switch["forced_off"] else "each where its probe holds")
        + "; a path not active costs time, never a different number):",
    ]
    width = max(len(path["name"]) for path in found["fast_paths"])
    for path in found["fast_paths"]:
        status = "active" if path["active"] else "inactive"
        lines.append(f"  {path['name']:<{width}}  {status:<8}  {path['reason']}")
        lines.append(f"  {'':<{width}}  {'':<8}  promise: {path['contract']}")
        lines.append(f"  {'':<{width}}  {'':<8}  fallback: {path['fallback']}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Run ``gcul info``."""
    found = report()
    emit(json.dumps(found, indent=2) if args.json else _text(found))
    return 0
