"""simulations.figures.save: PNG and PDF from a stem, reproducible bytes; no pyplot anywhere."""

from __future__ import annotations

import functools
import io
import subprocess
import sys
import textwrap

import matplotlib
import pytest
from _figure_data import make_rows
from matplotlib.image import imread

from simulations import baseline_figures
from simulations.figures import (
    SINGLE_COLUMN_SIZE,
    plot_phase_transition,
    plot_predictors,
    save_figure,
)
from simulations.rejectors.evaluate import evaluation_columns
from simulations.synthetic import SyntheticConfig


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


def _savefig(fig, fmt: str) -> bytes:
    buffer = io.BytesIO()
    metadata = {"CreationDate": None} if fmt == "pdf" else None
    with matplotlib.rc_context({"pdf.fonttype": 42, "ps.fonttype": 42, "svg.hashsalt": "gcul"}):
        fig.savefig(buffer, format=fmt, dpi=200, metadata=metadata)
    return buffer.getvalue()


@functools.cache
def _cells():
    config = SyntheticConfig(n_per_class=100, n_confusion=100)
    return baseline_figures.risk_coverage_cells(16, [2.0, 12.0], config)


def _figure(kind: str):
    """A figure of each kind ``gcul reproduce`` writes (constrained layout, legends, titles)."""
    rows = make_rows()
    if kind == "phase_transition":
        return plot_phase_transition(rows).figure
    if kind == "predictors":
        return plot_predictors(rows, lam=0.15).figure
    if kind == "risk_coverage":
        return baseline_figures.plot_risk_coverage(_cells(), seed=16).figure
    columns = [evaluation_columns(cell) for _, cell in _cells()]
    rows = [{**row, **columns[i % 2]} for i, row in enumerate(rows)]
    return baseline_figures.plot_baselines(rows).figure


@pytest.mark.slow  # 12 s: draws every reproduce figure and saves it twice
@pytest.mark.parametrize("kind", ["phase_transition", "predictors", "risk_coverage", "baselines"])
def test_png_from_one_draw_is_savefigs_png(tmp_path, kind):
    # save_figure draws a PNG once (its layout inside that draw), savefig twice (a layout pass,
    # then the image): on two fresh copies of a figure, the PNG and the PDF saved after it must
    # be savefig's bytes (a figure's layout moves a little when it is drawn again, so the copy
    # is not the figure save_figure drew)
    fig = _figure(kind)
    expected = _savefig(fig, "png"), _savefig(fig, "pdf")
    fresh = _figure(kind)
    png, pdf = save_figure(fresh, tmp_path / kind)
    assert (png.read_bytes(), pdf.read_bytes()) == expected
    assert fresh.canvas.manager is None and type(fresh.canvas).__name__ == "FigureCanvasBase"


def test_png_under_non_default_savefig_settings_goes_through_savefig(tmp_path):
    with matplotlib.rc_context({"savefig.bbox": "tight"}):
        (png,) = save_figure(plot_phase_transition(make_rows()).figure, tmp_path / "tight.png")
        expected = _savefig(plot_phase_transition(make_rows()).figure, "png")
    assert png.read_bytes() == expected
    # the setting changed the image: the test can fail
    assert expected != _savefig(plot_phase_transition(make_rows()).figure, "png")
