"""Mutation test: single-line mutations of ``gcul_theory`` must make ``python -m proofs`` fail.

The package (``gcul_theory`` and ``proofs``) is copied once per mutant into ``tmp_path``; each
mutation is an exact source-text replacement that must match exactly once, so the test fails
loudly when the code it mutates moves. ``python -m proofs`` is its ``main()``: to keep the test
fast the mutants are run by two driver processes in parallel, each of which, for every copy,
drops the imported ``gcul_theory``/``proofs`` modules, puts the copy first on ``sys.path``,
imports ``proofs`` from it (checked) and records the exit code of ``proofs.main([])``. The
unmutated copy is run first as the control and must exit 0.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: (name, file under gcul_theory/, alternatives): each alternative is an (exact old text, new
#: text) pair, and exactly one of them must occur, exactly once (two alternatives cover the
#: code before and after the rounding-safe rewrite of ``_selectivity.py``). The first eight are
#: the kinds of the audit (sign of S, rho, Chernoff exponent, bound weights, erfc argument, r1
#: clip, clean error denominator, Gaussian tail 1/2); the rest guard other cross-checked code.
MUTATIONS = [
    (
        "S sign",
        "_selectivity.py",
        [
            (
                "numerator = eps * (1.0 - eps) * (r1 - r2)",
                "numerator = eps * (1.0 - eps) * (r2 - r1)",
            ),
            (
                "mantissa = (m_eps * m_d / rho_s) * ((1.0 - eps) / den)",
                "mantissa = -(m_eps * m_d / rho_s) * ((1.0 - eps) / den)",
            ),
        ],
    ),
    (
        "rho",
        "_selectivity.py",
        [
            ("    return eps * r1 + (1.0 - eps) * r2", "    return eps * r1 - (1.0 - eps) * r2"),
            (
                " + np.ldexp((1.0 - eps) * m2, exp_second - E)",
                " - np.ldexp((1.0 - eps) * m2, exp_second - E)",
            ),
        ],
    ),
    (
        "Chernoff exponent 8 -> 4",
        "_tails.py",
        [("        main = square / 8.0", "        main = square / 4.0")],
    ),
    (
        "bound weights w_c -> pi_c",
        "_predictors.py",
        [
            (
                "    return 1.0 - (geometry.weights * loss).sum(axis=-1)",
                "    return 1.0 - (geometry.pi * loss).sum(axis=-1)",
            )
        ],
    ),
    (
        "erfc argument 2 sqrt2 -> 2",
        "_tails.py",
        [("_TWO_SQRT_TWO = 2.0 * np.sqrt(2.0)", "_TWO_SQRT_TWO = 2.0")],
    ),
    ("r1 clip", "_predictors.py", [("np.clip(r1, 0.0, 1.0)", "np.clip(r1, -1.0, 1.0)")]),
    (
        "clean error denominator",
        "_selectivity.py",
        [
            ("    accepted = 1.0 - rho", "    accepted = 1.0 - eps"),
            (
                "np.divide(eps_s * (1.0 - r1), den, out=out",
                "np.divide(eps_s * (1.0 - r1), den + eps_s, out=out",
            ),
        ],
    ),
    ("Gaussian tail 1/2 -> 1", "_tails.py", [("0.5 * erfc(x), deep", "1.0 * erfc(x), deep")]),
    (
        "Gaussian deep tail 1/2 -> 1",
        "_tails.py",
        [("deep = 0.5 * erfcx(x)", "deep = 1.0 * erfcx(x)")],
    ),
    (
        "existence weights w_c -> pi_c",
        "_bounds.py",
        [("outliers = (geometry.weights *", "outliers = (geometry.pi *")],
    ),
    (
        "empirical lambda sign",
        "_selectivity.py",
        [("np.divide(eps_a - sel_a, rho_a", "np.divide(sel_a - eps_a, rho_a")],
    ),
]

DRIVER = r"""
import contextlib, io, json, re, sys

for copy in sys.argv[1:]:
    for name in [m for m in sys.modules if m.split(".")[0] in ("gcul_theory", "proofs")]:
        del sys.modules[name]
    sys.path.insert(0, copy)
    try:
        import gcul_theory, proofs
        assert gcul_theory.__file__.startswith(copy) and proofs.__file__.startswith(copy)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = proofs.main([])
        failed = re.findall(r"^\s*\d+\s+(\S+)\s+failed$", out.getvalue(), re.M)
    except Exception as exc:  # a crash is not a detection: report it as such
        code, failed = f"crash: {type(exc).__name__}: {exc}", []
    finally:
        sys.path.remove(copy)
    print(json.dumps({"copy": copy, "code": code, "failed": failed}), flush=True)
"""


def _copy(tmp_path: Path, name: str, root: Path) -> Path:
    dest = tmp_path / name
    ignore = shutil.ignore_patterns("__pycache__")
    for package in ("gcul_theory", "proofs"):
        shutil.copytree(root / package, dest / package, ignore=ignore)
    return dest


def _mutate(copy: Path, filename: str, alternatives: list[tuple[str, str]]) -> None:
    path = copy / "gcul_theory" / filename
    text = path.read_text()
    counts = [text.count(old) for old, _ in alternatives]
    assert sorted(counts) == [0] * (len(counts) - 1) + [1], (
        f"{filename}: the mutation sites occur {counts} times; exactly one must occur once"
    )
    old, new = alternatives[counts.index(1)]
    path.write_text(text.replace(old, new))


def run_mutants(tmp_path: Path, root: Path = ROOT) -> tuple[dict, dict]:
    """Exit code and failed claims of ``proofs.main([])`` for the control and every mutant."""
    control = _copy(tmp_path, "control", root)
    copies = {str(control): "control"}
    for i, (name, filename, alternatives) in enumerate(MUTATIONS):
        copy = _copy(tmp_path, f"mutant{i}", root)
        _mutate(copy, filename, alternatives)
        copies[str(copy)] = name
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    paths = list(copies)
    groups = [paths[0::2], paths[1::2]]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    procs = [
        subprocess.Popen(
            [sys.executable, str(driver), *group],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            env=env,
        )
        for group in groups
    ]
    records = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        records += [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    codes = {copies[r["copy"]]: r["code"] for r in records}
    failed = {copies[r["copy"]]: r["failed"] for r in records}
    return codes, failed


@pytest.mark.slow
def test_every_mutation_of_gcul_theory_makes_python_m_proofs_fail(tmp_path):
    codes, failed = run_mutants(tmp_path)
    assert set(codes) == {"control", *(m[0] for m in MUTATIONS)}
    assert codes["control"] == 0, failed["control"]
    undetected = {name: code for name, code in codes.items() if name != "control" and code != 1}
    assert undetected == {}, failed
    # Each mutant is caught by a numeric cross-check claim, not by a crash elsewhere.
    for name in codes:
        if name != "control":
            assert any(f.startswith("numeric.") for f in failed[name]), (name, failed[name])
