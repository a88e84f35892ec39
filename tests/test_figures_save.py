"""simulations.figures.save: PNG and PDF from a stem, reproducible bytes; no pyplot anywhere."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from _figure_data import make_rows
from matplotlib.image import imread

from simulations.figures import SINGLE_COLUMN_SIZE, plot_phase_transition, save_figure


def test_writes_png_and_pdf_from_a_stem(tmp_path):
    drawn = plot_phase_transition(make_rows(), tmp_path / "figs" / "phase_transition")
    assert [p.name for p in drawn.paths] == ["phase_transition.png", "phase_transition.pdf"]
    png, pdf = drawn.paths
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert pdf.read_bytes()[:5] == b"%PDF-"
    height, width = imread(png).shape[:2]
    assert (width, height) == (
        round(SINGLE_COLUMN_SIZE[0] * 200),
        round(SINGLE_COLUMN_SIZE[1] * 200),
    )


def test_save_figure_single_file_and_formats(tmp_path):
    drawn = plot_phase_transition(make_rows())
    assert drawn.paths == []
    (only,) = save_figure(drawn.figure, tmp_path / "one.pdf")
    assert only.name == "one.pdf" and sorted(p.name for p in tmp_path.iterdir()) == ["one.pdf"]
    paths = save_figure(drawn.figure, tmp_path / "run.v2", formats=("svg",))
    assert [p.name for p in paths] == ["run.v2.svg"]
    with pytest.raises(ValueError, match="unknown figure format 'gif'"):
        save_figure(drawn.figure, tmp_path / "x", formats=("gif",))


def test_same_results_give_the_same_files(tmp_path):
    first = plot_phase_transition(make_rows(), tmp_path / "first").paths
    second = plot_phase_transition(make_rows(), tmp_path / "second").paths
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes()  # no timestamps in the PDF


def test_module_does_not_import_pyplot(tmp_path):
    script = textwrap.dedent(
        f"""
        import sys
        from simulations.figures import plot_phase_transition
        rows = [dict(seed=s, noise=n, lambda_emp=0.5, lambda_pre_union=0.4)
                for s in (1, 2) for n in (0.0, 0.4)]
        plot_phase_transition(rows, {str(tmp_path / "fig")!r})
        assert "matplotlib.pyplot" not in sys.modules, "pyplot was imported"
        """
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)
    assert (tmp_path / "fig.png").stat().st_size > 0
