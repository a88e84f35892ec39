"""``simulations.reproduce``: a run from Python, its one list of outputs, its checks (issue 15).

The command line is tested in test_reproduce_cli.py and test_faults.py; here the function it calls.
The grids are tiny (one seed, two noise levels of the paper's protocol).
"""

from __future__ import annotations

import json
import os

import pytest

import simulations.sweep
from simulations.reproduce import OUTPUTS, Interrupted, Reproduction, output_names, reproduce
from simulations.results import read_csv


@pytest.mark.slow  # 5 s: a whole small `gcul reproduce` run
def test_a_run_writes_exactly_the_outputs_list(tmp_path, capsys):
    run = reproduce(tmp_path / "out", seeds=[10], levels=2, n_jobs=1, progress=False)
    assert isinstance(run, Reproduction)
    assert [path.name for path in run.written] == output_names(10)
    assert [path.parent for path in run.written] == [tmp_path / "out"] * len(run.written)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(
        output_names(10) + ["cache"]
    )
    assert read_csv(tmp_path / "out" / "results.csv") == list(run.rows)
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest == run.manifest
    assert list(manifest["files"]) == output_names(10)[:-1]  # every file but itself, in order
    assert (manifest["command"], manifest["argv"]) == ("simulations.reproduce", None)
    assert run.violations.total == 2 and run.elapsed > 0.0
    assert capsys.readouterr().err == ""  # progress=False: nothing on stderr


def test_outputs_list_the_stems_in_writing_order():
    stems = [stem for stem, _ in OUTPUTS]
    assert stems[0] == "results" and stems[-1] == "manifest"  # the manifest is written last
    assert output_names(16)[3:9] == [
        "violations.md",
        "violations.tex",
        "seed16.csv",
        "seed16.md",
        "seed16.tex",
        "phase_transition.png",
    ]


@pytest.mark.parametrize("name", output_names(10))
def test_every_output_name_is_checked_before_any_cell(tmp_path, computed, name):
    # the check before the run reads the same list as the writers: a folder where any one of
    # the outputs goes is refused before a cell is computed (it was checked for two of them)
    (tmp_path / "out" / name).mkdir(parents=True)
    with pytest.raises(ValueError, match=rf"^out: '.*/{name}' is a folder where a file goes$"):
        reproduce(tmp_path / "out", seeds=[10], levels=2, n_jobs=1, progress=False)
    assert computed == []


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"levels": 1},
            ValueError,
            "levels 1 is a single noise level (sigma = 0); the figures draw every quantity as a "
            "curve over sigma, so levels must be at least 2",
        ),
        (
            {"levels": 102},
            ValueError,
            "levels 102 reaches sigma = 40.4, whose label-flip probability 0.025 * sigma is "
            "above 1; levels must be at most 101",
        ),
        ({"levels": 2.0}, TypeError, "levels must be an integer >= 2; got 2.0 (float)"),
        ({"seeds": []}, ValueError, "seeds must be non-empty; got an empty sequence"),
        ({"seeds": [3, 3]}, ValueError, "seeds must be distinct; repeated: [3]"),
        ({"seeds": [-1]}, ValueError, "seeds: seed must be a non-negative int (>= 0); got -1"),
        ({"seeds": "10"}, TypeError, "seeds must be a non-empty iterable of numbers; got '10'"),
        ({"n_jobs": 0}, ValueError, "n_jobs must be a non-zero int (-1 = all usable cores); got 0"),
        ({"cache_dir": 3}, TypeError, "cache_dir must be a path or None; got 3"),
        ({"out": 3}, TypeError, "out must be a path; got 3"),
        ({"lam": 1.0}, ValueError, "lam must be in [0, 1); got 1.0"),
        ({"method": "erf"}, ValueError, "method must be one of gaussian, union, chernoff, boole, "),
        (
            {"scheduler": "tcp://h:8786"},
            ValueError,
            "scheduler 'tcp://h:8786' needs backend dask (got backend loky)",
        ),
        ({"progress": 1}, TypeError, "progress must be a bool; got 1"),
        (
            {"geometry_labels": "noisy"},
            ValueError,
            "geometry_labels must be one of 'observed', 'clean'; got 'noisy'",
        ),
    ],
)
def test_bad_arguments_create_nothing(tmp_path, computed, kwargs, error, message):
    arguments = {"seeds": [10], "levels": 2, "n_jobs": 1, "progress": False} | kwargs
    out = arguments.pop("out", tmp_path / "out")
    with pytest.raises(error) as info:
        reproduce(out, **arguments)
    assert str(info.value).startswith(message), str(info.value)
    assert computed == [] and not (tmp_path / "out").exists()


def test_names_say_how_messages_name_the_arguments(tmp_path):
    with pytest.raises(
        ValueError, match=r"^--levels 1 is a single .* so --levels must be at least"
    ):
        reproduce(tmp_path, levels=1, names={"levels": "--levels"})


def test_an_interrupt_keeps_the_finished_cells(tmp_path, monkeypatch):
    real = simulations.sweep.cell.compute_row
    done: list[float] = []

    def interrupted_at_the_second(seed, noise, config, **kwargs):
        if done:
            raise KeyboardInterrupt
        done.append(noise)
        return real(seed, noise, config, **kwargs)

    monkeypatch.setattr(simulations.sweep.cell, "compute_row", interrupted_at_the_second)
    with pytest.raises(Interrupted) as info:
        reproduce(tmp_path / "out", seeds=[10], levels=2, n_jobs=1, progress=False)
    assert (info.value.cause, info.value.exit_code) == ("Ctrl-C", 130)
    assert info.value.cache == tmp_path / "out" / "cache"
    assert isinstance(info.value, KeyboardInterrupt)  # a Python caller's Ctrl-C stays one
    assert len(list(info.value.cache.glob("cell-*.json"))) == 1
    assert not (tmp_path / "out" / "results.csv").exists()


@pytest.mark.slow  # 12 s: two whole small `gcul reproduce` runs
def test_the_default_cache_is_inside_out(tmp_path):
    run = reproduce(tmp_path / "out", seeds=[10], levels=2, n_jobs=1, progress=False)
    assert run.cache == tmp_path / "out" / "cache"
    assert len(list(run.cache.glob("cell-*.json"))) == 2
    elsewhere = tmp_path / "elsewhere"
    again = reproduce(
        tmp_path / "out", seeds=[10], levels=2, n_jobs=1, progress=False, cache_dir=elsewhere
    )
    assert again.rows == run.rows and len(os.listdir(elsewhere)) >= 2


def test_the_package_exports_the_public_api():
    import simulations
    from simulations import GCUL, Certificate, make_dataset, run_sweep
    from simulations import reproduce as exported
    from simulations.gcul import GCUL as gcul_class
    from simulations.gcul import Certificate as certificate_class
    from simulations.synthetic import make_dataset as synthetic_make_dataset

    assert (GCUL, Certificate, make_dataset) == (
        gcul_class,
        certificate_class,
        synthetic_make_dataset,
    )
    assert run_sweep is simulations.sweep.run_sweep and exported is reproduce
    assert set(simulations.__all__) <= set(dir(simulations))
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        simulations.nothing  # noqa: B018


def test_importing_the_package_imports_no_sweep():
    # `gcul --version` and `gcul --help` import the package: the sweep (joblib, the fits) and
    # the figures (matplotlib) are imported when a command runs, not then.
    import subprocess
    import sys

    code = (
        "import sys, simulations.cli; print(sorted(m for m in ('simulations.sweep', "
        "'simulations.figures', 'matplotlib', 'joblib') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.slow  # 12 s: a whole small `gcul reproduce` run
def test_the_risk_coverage_figure_takes_the_sweeps_scores(tmp_path, monkeypatch):
    # a run that computes the table seed's cells draws their scores as the workers computed them
    # (no second fit in this process); a run served from the cache recomputes them: same bytes
    from simulations import baseline_figures

    recomputed: list[list[float]] = []
    real = baseline_figures.risk_coverage_cells

    def counting(seed, levels, config=None):
        recomputed.append(list(levels))
        return real(seed, levels, config)

    monkeypatch.setattr(baseline_figures, "risk_coverage_cells", counting)
    cache = tmp_path / "cache"
    kwargs = {"seeds": [16], "levels": 4, "n_jobs": 1, "progress": False, "cache_dir": cache}
    fresh = reproduce(tmp_path / "fresh", **kwargs)
    assert recomputed == []
    assert list(fresh.rows.scores) == [(16, 1.2)]  # the grid's level nearest 2, 6 and 12
    again = reproduce(tmp_path / "again", **kwargs)
    assert again.rows.scores == {} and recomputed == [[1.2]]
    for name in ("risk_coverage.png", "risk_coverage.pdf", "results.csv"):
        assert (tmp_path / "fresh" / name).read_bytes() == (tmp_path / "again" / name).read_bytes()
