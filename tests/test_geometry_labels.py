"""``gcul reproduce --geometry-labels observed|clean`` (issue 14, section 4): the paper-matching
reading; called ``--error-pool`` until issue 33, which gave that name one meaning (which rows phase
1's errors come from, ``GCUL(error_pool=)``) and refuses it here with a hint.

``clean`` estimates the geometry behind every λ*_PRE (its error pool, class shares and cores) with
the training labels before flipping (the reading that reproduces the paper's seed-16 λ*_PRE column
and violation counts); ``observed`` (the default) with the labels as given. The grids are tiny (one
seed, two or three noise levels of the paper's protocol, ``n_jobs=1``: a cell takes well under a
second).
"""

from __future__ import annotations

import ast
import inspect
import json
from pathlib import Path

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import simulations
import simulations.figures
import simulations.sweep
from simulations import report
from simulations._error_pool import ERROR_POOLS
from simulations.cli import build_parser, main
from simulations.report import PAPER_SEED16_TABLE
from simulations.cli.reproduce import RENAMED_ERROR_POOL
from simulations.reproduce import CLEAN_FIGURE_NOTE, GEOMETRY_LABELS_MEANING, reproduce
from simulations.results import GEOMETRY_LABEL_COLUMNS, GEOMETRY_LABELS, ROW_COLUMNS, read_csv
from simulations.sweep import DEFAULT_CONFIG, run_cell

CLEAN_CAPTION = "judges the error pool against the clean training labels"


@pytest.fixture
def computed(monkeypatch):
    """Record every cell the sweep computes in this process (``n_jobs=1``), with its labels."""
    cells: list[tuple[int, float, str]] = []
    real = simulations.sweep.cell.compute_row

    def counting(seed, noise, config, **kwargs):
        cells.append((seed, noise, kwargs.get("geometry_labels", "observed")))
        return real(seed, noise, config, **kwargs)

    monkeypatch.setattr(simulations.sweep.cell, "compute_row", counting)
    return cells


def test_a_clean_cell_differs_only_in_the_columns_of_the_geometry():
    # at sigma = 6 (flip probability 0.15) the two pools differ; GCUL, lambda*_EMP and the
    # certificate are fitted and measured on the observed labels either way
    observed = run_cell(16, 6.0, DEFAULT_CONFIG)
    clean = run_cell(16, 6.0, DEFAULT_CONFIG, geometry_labels="clean")
    assert set(observed) == set(clean) == set(ROW_COLUMNS)
    differ = {column for column in ROW_COLUMNS if observed[column] != clean[column]}
    assert differ == set(GEOMETRY_LABEL_COLUMNS)
    assert set(GEOMETRY_LABEL_COLUMNS) == {
        c for c in ROW_COLUMNS if c.startswith(("lambda_pre_", "r1_hat_", "r2_hat"))
    }
    # the paper's reading: its lambda*_PRE (union) at sigma = 6 of seed 16 is 0.27; the observed
    # pool gives about 0.06 (README, "Where the paper is wrong as written")
    (paper,) = (row[4] for row in PAPER_SEED16_TABLE if row[0] == 6.0)  # (sigma, ..., PRE, EMP)
    assert paper == 0.27
    assert abs(clean["lambda_pre_union"] - paper) < abs(observed["lambda_pre_union"] - paper)


def test_a_clean_cell_at_zero_noise_is_the_observed_cell():
    # no label is flipped at sigma = 0: both pools are the same set, so every column agrees
    assert run_cell(16, 0.0, DEFAULT_CONFIG, geometry_labels="clean") == run_cell(
        16, 0.0, DEFAULT_CONFIG
    )


@pytest.mark.parametrize("bad", ["noisy", "Clean", None, 1])
def test_run_cell_refuses_unknown_geometry_labels(bad):
    with pytest.raises(
        ValueError, match=r"^geometry_labels must be one of 'observed', 'clean'; got "
    ):
        run_cell(16, 0.0, DEFAULT_CONFIG, geometry_labels=bad)


@pytest.mark.slow  # three reproduce runs; run_cell's pools are tested above
def test_the_two_pools_share_no_cache_cell_and_say_which_they_used(tmp_path, computed):
    cache = tmp_path / "cache"
    arguments = {"seeds": [16], "levels": 3, "n_jobs": 1, "progress": False, "cache_dir": cache}
    observed = reproduce(tmp_path / "observed", **arguments)
    clean = reproduce(tmp_path / "clean", geometry_labels="clean", **arguments)
    again = reproduce(tmp_path / "again", **arguments)
    cells = [(16, 0.0), (16, 0.4), (16, 0.8)]
    # the clean run computes every cell again (none of the observed run's is reused), and a
    # second observed run reuses the observed cells
    assert computed == [(*c, "observed") for c in cells] + [(*c, "clean") for c in cells]
    assert len(list(cache.glob("cell-*.json"))) == 2 * len(cells)
    assert again.rows == observed.rows
    same = [c for c in ROW_COLUMNS if c not in GEOMETRY_LABEL_COLUMNS]
    assert [row[c] for row in clean.rows for c in same] == [
        row[c] for row in observed.rows for c in same
    ]

    for run, pool in ((observed, "observed"), (clean, "clean")):
        out = run.written[0].parent
        assert run.violations.geometry_labels == pool  # the table the command prints says it too
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        # the manifest's keys kept their names from before issue 33 (its format is unchanged)
        assert manifest["error_pool"] == pool
        assert manifest["error_pool_meaning"] == GEOMETRY_LABELS_MEANING[pool]
        assert read_csv(out / "results.csv") == list(run.rows)
        captions = {
            name: (out / name).read_text(encoding="utf-8")
            for name in ("violations.md", "violations.tex", "seed16.md", "seed16.tex")
        }
        for name, text in captions.items():
            # every caption says which pool a clean run used; an observed run keeps its
            # explanation of why its lambda*_PRE is below the paper's
            option = (
                r"\texttt{-{}-geometry-labels clean}), the reading"
                if name.endswith(".tex")
                else "--geometry-labels clean), the reading"
            )
            assert (option in text) == (pool == "clean"), name
            assert "error-pool" not in text, name  # no caption names the refused option
            assert (CLEAN_CAPTION in text) == (pool == "clean"), name
            assert ("here the pool is judged" in text or "as here and" in text) == (
                pool == "observed"
            ), name
            assert "Paper" in text, name  # the paper's columns stay beside ours either way


@pytest.mark.slow  # a reproduce run per reading
def test_clean_figures_carry_the_note_inside_the_figure(tmp_path, monkeypatch):
    saved: dict[str, Figure] = {}
    real = simulations.figures.save_figure

    def keep(fig, path, *args, **kwargs):
        saved[path.name] = fig
        return real(fig, path, *args, **kwargs)

    monkeypatch.setattr(simulations.figures, "save_figure", keep)
    for pool in GEOMETRY_LABELS:
        saved.clear()
        reproduce(
            tmp_path / pool, seeds=[16], levels=2, n_jobs=1, progress=False, geometry_labels=pool
        )
        # the λ*_PRE figures carry the note; baselines and risk_coverage show the rejectors,
        # whose columns do not depend on the labels (GEOMETRY_LABEL_COLUMNS), and carry none
        assert {"phase_transition", "predictors"} <= set(saved)
        for name in set(saved) - {"phase_transition", "predictors"}:
            assert CLEAN_FIGURE_NOTE not in [t.get_text() for t in saved[name].texts], name
        for name, fig in ((n, saved[n]) for n in ("phase_transition", "predictors")):
            title = fig.get_suptitle()
            assert title == (CLEAN_FIGURE_NOTE if pool == "clean" else ""), name
            if pool == "clean":  # drawn whole: not clipped at the figure's edges
                canvas = FigureCanvasAgg(fig)
                canvas.draw()  # lays the figure out as savefig does
                (note,) = (text for text in fig.texts if text.get_text() == CLEAN_FIGURE_NOTE)
                box = note.get_window_extent(canvas.get_renderer())
                frame = fig.bbox
                assert frame.x0 <= box.x0 and box.x1 <= frame.x1, name
                assert frame.y0 <= box.y0 and box.y1 <= frame.y1, name


@pytest.mark.slow  # 6 s: small `gcul reproduce` runs with both readings
@pytest.mark.parametrize("labels", GEOMETRY_LABELS)
def test_the_command_line_passes_the_labels_and_refuses_bad_ones(tmp_path, capsys, labels):
    argv = ["reproduce", "--out", str(tmp_path / "out"), "--seeds", "10", "--levels", "2"]
    assert main([*argv, "--quiet", "--jobs", "1", "--geometry-labels", labels]) == 0
    # the violation table it prints says which labels a clean run used
    assert (CLEAN_CAPTION in capsys.readouterr().out) == (labels == "clean")
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["error_pool"] == labels  # the manifest's key from before issue 33

    with pytest.raises(SystemExit) as info:
        main(["reproduce", "--out", str(tmp_path / "bad"), "--geometry-labels", "noisy"])
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "--geometry-labels" in err and "'noisy'" in err and "'observed', 'clean'" in err
    assert not (tmp_path / "bad").exists()


# ------------------------------------------------------------------ the old name (issue 33)


@pytest.mark.parametrize(
    "old",
    [
        ["--error-pool", "clean"],
        ["--error-pool", "observed"],
        ["--error-pool"],
        ["--error-pool=clean"],
    ],
)
def test_the_old_option_is_refused_with_a_hint_naming_the_new_one(tmp_path, capsys, old):
    with pytest.raises(SystemExit) as info:
        main(["reproduce", "--out", str(tmp_path / "out"), "--seeds", "10", "--levels", "2", *old])
    assert info.value.code == 2
    assert capsys.readouterr().err == f"gcul reproduce: error: {RENAMED_ERROR_POOL}\n"
    assert "--geometry-labels clean" in RENAMED_ERROR_POOL  # the hint names the new option
    assert not (tmp_path / "out").exists()  # refused before anything ran


def test_the_old_option_is_not_in_the_help():
    text = build_parser().command_parsers["reproduce"].format_help()
    assert "--geometry-labels {observed,clean}" in text and "error-pool" not in text


# every public function that took error_pool="observed"|"clean" before issue 33, with positional
# arguments that would be valid (the refusal comes before any of them is looked at)
RENAMED = [
    (simulations.reproduce, ("out",)),
    (simulations.sweep.run_sweep, ([0.0], [10])),
    (simulations.sweep.plan_sweep, ([0.0], [10])),
    (simulations.sweep.run_cell, (10, 0.0)),
    (report.violation_table, ([],)),
    (report.seed_table, ([],)),
    (report.write_violations, ([], "out")),
    (report.write_seed_table, ([], "out")),
]


@pytest.mark.parametrize("function, args", RENAMED, ids=[f.__name__ for f, _ in RENAMED])
def test_the_old_keyword_is_refused_with_a_hint_naming_the_new_one(
    tmp_path, monkeypatch, function, args
):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(TypeError) as info:
        function(*args, error_pool="clean")
    message = str(info.value)
    assert message.startswith(f"{function.__name__}() got the keyword 'error_pool', renamed ")
    assert "'geometry_labels'" in message and "which rows phase 1's errors come from" in message
    assert "\n" not in message
    assert list(tmp_path.iterdir()) == []  # refused before anything ran
    # the new keyword is the documented one, with the same default; the old one is gone
    parameters = inspect.signature(function).parameters
    assert parameters["geometry_labels"].default == "observed" and "error_pool" not in parameters
    assert "error_pool" not in inspect.getdoc(function)


def _package_sources():
    root = Path(simulations.__file__).parent.parent
    for package in ("simulations", "gcul_theory", "proofs"):
        yield from sorted((root / package).rglob("*.py"))


def test_error_pool_has_one_meaning_in_the_package():
    # error_pool / ERROR_POOLS / --error-pool mean which rows phase 1's errors come from, and
    # nothing else: no second constant of that name, no parameter error_pool whose default is a
    # reading of the labels, and every --error-pool a command shows offers the same two pools
    assert ERROR_POOLS == ("in_sample", "out_of_fold")
    assert GEOMETRY_LABELS == ("observed", "clean")
    constants, defaults = [], []
    for path in _package_sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Name) and t.id == "ERROR_POOLS" for t in targets):
                    constants.append(path.name)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
                positional = len(node.args.posonlyargs + node.args.args)
                values = [None] * (positional - len(node.args.defaults))
                values += node.args.defaults + node.args.kw_defaults
                for argument, default in zip(arguments, values):
                    if argument.arg in ("error_pool", "pool") and isinstance(default, ast.Constant):
                        defaults.append((path.name, node.name, argument.arg, default.value))
    assert constants == ["_error_pool.py"]
    assert {value for *_, value in defaults} <= set(ERROR_POOLS), defaults
    for name, parser in build_parser().command_parsers.items():
        for action in parser._actions:
            if "--error-pool" in action.option_strings and action.help != "==SUPPRESS==":
                assert tuple(action.choices) == ERROR_POOLS, name
