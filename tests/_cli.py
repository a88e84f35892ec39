"""How the tests call the ``gcul`` command line in-process; a small ``gcul reproduce`` run."""

from __future__ import annotations

from simulations.cli import main


def run(argv, capsys):
    """``(exit code, stdout, stderr)`` of ``gcul ARGV`` (argparse's SystemExit included)."""
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


#: What ``gcul reproduce`` writes for one seed (10), in writing order.
OUTPUTS = (
    "results.csv",
    "timings.csv",
    "violations.csv",
    "violations.md",
    "violations.tex",
    "seed10.csv",
    "seed10.md",
    "seed10.tex",
    "phase_transition.png",
    "phase_transition.pdf",
    "predictors.png",
    "predictors.pdf",
    "baselines.csv",
    "baselines.md",
    "baselines.tex",
    "baselines.png",
    "baselines.pdf",
    "risk_coverage.png",
    "risk_coverage.pdf",
    "manifest.json",
)


def small(out, *extra, seeds="10"):
    """The argv of a quiet ``gcul reproduce`` of two noise levels into ``out`` (``extra`` added)."""
    return ["reproduce", "--out", str(out), "--seeds", seeds, "--levels", "2", "--quiet", *extra]
