"""Saving a figure: PNG and PDF from one stem, reproducible bytes, written atomically."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib
from matplotlib.figure import Figure

from simulations.outputs import atomic_write_bytes

__all__ = ["save_figure"]

_SAVE_FORMATS = ("png", "pdf")
_KNOWN_SUFFIXES = {"png", "pdf", "svg", "eps", "ps", "jpg", "jpeg", "tif", "tiff", "webp"}


def save_figure(
    fig: Figure,
    path: str | Path,
    *,
    formats: Sequence[str] = _SAVE_FORMATS,
    dpi: int = 200,
) -> list[Path]:
    """Save ``fig`` and return the paths written.

    If ``path`` ends in an image suffix (``.png``, ``.pdf``, ``.svg``, ...), write that one file;
    otherwise treat it as a stem and write ``stem.png`` and ``stem.pdf`` (or ``formats``).
    Raster output uses ``dpi`` (200); PDF embeds TrueType fonts (``pdf.fonttype`` 42, as journals
    ask) and carries no creation date, so re-saving an unchanged figure gives the same file.
    Parent directories are created.

    Each file is drawn into memory and written atomically
    (:func:`simulations.outputs.atomic_write_bytes`): a process killed while saving leaves the
    previous file whole (it left truncated PDFs), and a symbolic link at the destination is
    replaced by the file, never written through.
    """
    path = Path(path)
    suffix = path.suffix.lower().lstrip(".")
    if suffix in _KNOWN_SUFFIXES:
        targets = [path]
    else:
        if isinstance(formats, str) or not formats:
            raise ValueError(f"formats must be a non-empty sequence of suffixes; got {formats!r}")
        for fmt in formats:
            if fmt.lower().lstrip(".") not in _KNOWN_SUFFIXES:
                raise ValueError(
                    f"unknown figure format {fmt!r}; allowed: {sorted(_KNOWN_SUFFIXES)}"
                )
        targets = [path.with_name(f"{path.name}.{fmt.lower().lstrip('.')}") for fmt in formats]
    written = []
    for target in targets:
        target.parent.mkdir(parents=True, exist_ok=True)
        fmt = target.suffix.lower().lstrip(".")
        metadata = {"pdf": {"CreationDate": None}, "svg": {"Date": None}}.get(fmt)
        buffer = io.BytesIO()
        with matplotlib.rc_context({"pdf.fonttype": 42, "ps.fonttype": 42, "svg.hashsalt": "gcul"}):
            if fmt == "png" and _one_pass_png_applies(fig):
                _print_png_one_pass(fig, buffer, dpi)
            else:
                fig.savefig(buffer, format=fmt, dpi=dpi, metadata=metadata)
        written.append(atomic_write_bytes(target, buffer.getvalue()))
    return written


# savefig's defaults, under which _print_png_one_pass writes savefig's bytes
_SAVEFIG_DEFAULTS: dict[Any, object] = {
    "savefig.bbox": None,
    "savefig.transparent": False,
    "savefig.facecolor": "auto",
    "savefig.edgecolor": "auto",
    "savefig.orientation": "portrait",
}


def _one_pass_png_applies(fig: Figure) -> bool:
    """Whether ``fig`` is saved with savefig's defaults (then one draw gives savefig's PNG)."""
    return fig.canvas.manager is None and all(
        matplotlib.rcParams[key] == value for key, value in _SAVEFIG_DEFAULTS.items()
    )


def _print_png_one_pass(fig: Figure, buffer: io.BytesIO, dpi: float) -> None:
    """The PNG of ``fig.savefig(buffer, format="png", dpi=dpi)`` from one draw instead of two.

    For a figure with a layout engine (constrained layout), savefig draws it twice: once, not
    rendered, to lay it out, then again, laid out, into the image. ``Figure.draw`` lays the
    figure out itself before it draws its artists, so one draw on an Agg canvas at ``dpi`` gives
    the same layout and the same pixels: the same bytes (tests/test_figures_save.py compares
    them on every figure ``gcul reproduce`` writes), for about a fifth less time per figure. The
    PDF needs its own layout (its text is measured at 72 dpi without hinting: laid out as the
    PNG, its bytes differ), so it goes through savefig.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas, original_dpi = fig.canvas, fig.dpi
    try:
        fig.dpi = dpi
        FigureCanvasAgg(fig).print_png(buffer)
    finally:
        fig.dpi = original_dpi
        fig.set_canvas(canvas)
