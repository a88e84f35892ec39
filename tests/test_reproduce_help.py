"""``gcul reproduce --help`` names every file the command writes (it left out baselines.* and
risk_coverage.*, and the certified_noisy block of the violations table)."""

from __future__ import annotations

import contextlib
import io
import re

import pytest

from simulations import registry
from simulations.cli import build_parser, main


def _description() -> str:
    parser = build_parser()
    actions = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    text = actions[0].choices["reproduce"].format_help()
    return " ".join(text.split())  # argparse wraps lines; compare the words


@pytest.mark.slow  # 6 s: a whole small `gcul reproduce` run
def test_the_help_names_every_file_a_run_writes(tmp_path):
    out = tmp_path / "out"
    argv = ["reproduce", "--out", str(out), "--seeds", "10", "--levels", "2", "--jobs", "1"]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(argv) == 0
    written = {p.name for p in out.iterdir() if p.is_file()}
    assert "baselines.png" in written and "risk_coverage.png" in written
    described = _description()
    for name in sorted(written):
        stem, suffix = name.split(".", 1)
        named = re.sub(r"^seed10$", "seedN", stem)  # the table of the first seed when 16 is not run
        assert f"{stem}.{suffix}" in described or f"{named}.*" in described, name


def test_the_help_names_every_block_of_the_violations_table():
    described = _description()
    for name in registry.judged_names():
        assert name in described, name
