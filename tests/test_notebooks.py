"""The classroom notebooks (``notebooks/``): each runs headless, top to bottom, without error;
each is committed without outputs; each opens with its learning goal and ends with exercises.

The execution test starts one Jupyter kernel per notebook (nbclient, as nbmake does) with this
checkout first on ``PYTHONPATH``, so the notebooks run against the code under test. A cell that
raises fails the test with the cell and its traceback. ``pytest --nbmake notebooks/`` runs them
the same way.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
CELL_TIMEOUT = 600  # seconds per cell: generous, for a loaded CI machine; never a time assertion

# The five lessons of the classroom issue, in order.
EXPECTED = [
    "1_gcul_in_two_dimensions.ipynb",
    "2_selectivity_score.ipynb",
    "3_tails_and_bounds.ipynb",
    "4_phase_transition.ipynb",
    "5_reading_a_proof.ipynb",
]


def unstripped(nb: nbformat.NotebookNode) -> list[str]:
    """What a committed notebook must not hold: outputs, execution counts, widget state."""
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if cell.get("outputs"):
            found.append(f"cell {index} has {len(cell.outputs)} output(s)")
        if cell.get("execution_count") is not None:
            found.append(f"cell {index} has execution_count {cell.execution_count}")
    if "widgets" in nb.metadata:
        found.append("the notebook metadata holds saved widget state")
    return found


def test_the_five_notebooks_are_there():
    assert [path.name for path in NOTEBOOKS] == EXPECTED


def test_unstripped_flags_outputs_and_counts():
    nb = nbformat.v4.new_notebook()
    clean = nbformat.v4.new_code_cell("1 + 1")
    ran = nbformat.v4.new_code_cell("1 + 1")
    ran.execution_count = 1
    ran.outputs = [nbformat.v4.new_output("execute_result", {"text/plain": "2"}, execution_count=1)]
    nb.cells = [clean, ran]
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {}}
    assert unstripped(nb) == [
        "cell 1 has 1 output(s)",
        "cell 1 has execution_count 1",
        "the notebook metadata holds saved widget state",
    ]
    nb.cells, nb.metadata = [clean], {}
    assert unstripped(nb) == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert unstripped(nb) == [], f"{path.name}: clear all outputs before committing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_learning_goal_first_and_exercises_last(path):
    nb = nbformat.read(path, as_version=4)
    first, last = nb.cells[0], nb.cells[-1]
    assert first.cell_type == "markdown" and "**Learning goal.**" in first.source
    assert last.cell_type == "markdown" and "## Exercises" in last.source
    exercises = last.source.split("## Exercises", 1)[1]
    assert 2 <= len(re.findall(r"^\d+\. ", exercises, flags=re.MULTILINE)) <= 3


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_notebook_runs_headless(path):
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env.pop("MPLBACKEND", None)  # the kernel's inline backend draws the figures
    client = NotebookClient(
        nb,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK_DIR)}},
    )
    client.execute(env=env)  # raises CellExecutionError naming the cell that failed
    shown = [
        output
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type in ("execute_result", "display_data")
    ]
    # every notebook shows at least one figure as an image (not only "<Figure size ...>")
    assert any("image/png" in output.data for output in shown)
    assert not any(
        output.output_type == "error" for cell in nb.cells for output in cell.get("outputs", [])
    )
