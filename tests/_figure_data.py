"""Fabricated sweep rows and a pixel counter for the tests of simulations.figures and the slides."""

from __future__ import annotations

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_rgb

import gcul_theory


def make_rows(seeds=(10, 11, 12), n_levels=41, rng_seed=0):
    """Fabricated sweep rows: λ*_PRE and λ*_EMP as decreasing logistic curves in σ."""
    rng = np.random.default_rng(rng_seed)
    rows = []
    for seed in seeds:
        shift = rng.normal(0, 0.35)
        for level in range(n_levels):
            sigma = 0.4 * level
            logistic = 1 / (1 + np.exp((sigma - 4.3 - shift) / 1.5))
            pre = max(0.0, 1.05 * (logistic - 0.05))
            emp = 0.8 / (1 + np.exp((sigma - 5.4 - shift) / 1.0)) + rng.normal(0, 0.03)
            rows.append(
                {
                    "seed": seed,
                    "noise": sigma,
                    "level": level,
                    "base_acc": 0.865 - 0.025 * sigma,
                    "selective_acc": min(1.0, 0.865 - 0.025 * sigma + 0.1 * emp),
                    "rejection_rate": 0.165,
                    "lambda_emp": emp,
                    **{f"lambda_pre_{e.name}": 0.8 * pre for e in gcul_theory.PREDICTORS},
                    "lambda_pre_gaussian": min(1.0, 1.2 * pre),
                    "lambda_pre_union": pre,
                    "lambda_pre_chernoff": 0.6 * pre,
                    "lambda_cert": 0.9 * pre,
                    "lambda_emp_cert": emp,
                }
            )
    return rows


def rows_with_known_violations():
    """Three seeds where only (seed 11, σ = 8.0) is Type-I and (seed 12, σ = 2.0) is Type-II."""
    rows = make_rows()
    for row in rows:  # first make every cell agree with the prediction at λ = 0.15
        row["lambda_emp"] = row["lambda_pre_union"] + (
            0.01 if row["lambda_pre_union"] >= 0.15 else 0
        )
        row["lambda_emp"] = (
            min(row["lambda_emp"], 0.14) if row["lambda_pre_union"] < 0.15 else row["lambda_emp"]
        )
    type_i = next(r for r in rows if r["seed"] == 11 and r["level"] == 20)
    type_i["lambda_pre_union"], type_i["lambda_emp"] = 0.05, 0.31
    type_ii = next(r for r in rows if r["seed"] == 12 and r["level"] == 5)
    type_ii["lambda_pre_union"], type_ii["lambda_emp"] = 0.70, 0.12
    return rows


def rows_for_panels():
    """Cells where every predictor agrees with its λ*_EMP at λ = 0.15, except: union has one
    Type-I (seed 11, σ = 8.0) and one Type-II (seed 12, σ = 2.0); chernoff one Type-II (seed 10,
    σ = 4.0); certified one Type-I (seed 10, σ = 12.0) judged against lambda_emp_cert."""
    rows = make_rows()
    for row in rows:
        feasible = row["lambda_pre_union"] >= 0.15
        row["lambda_emp"] = row["lambda_emp_cert"] = 0.5 if feasible else 0.05
        for entry in gcul_theory.PREDICTORS:
            row[f"lambda_pre_{entry.name}"] = 0.6 if feasible else 0.02
        row["lambda_cert"] = row[f"lambda_pre_{gcul_theory.PREDICTORS[0].name}"]
    pick = {(r["seed"], r["level"]): r for r in rows}
    pick[11, 20]["lambda_pre_union"], pick[11, 20]["lambda_emp"] = 0.05, 0.31
    pick[11, 20]["lambda_emp_cert"] = 0.01  # the certified model is not effective there
    for entry in gcul_theory.PREDICTORS:
        if entry.name != "union":  # the other predictors are right about (11, 8.0)
            pick[11, 20][f"lambda_pre_{entry.name}"] = 0.5
    pick[11, 20]["lambda_cert"] = 0.0
    pick[12, 5]["lambda_emp"], pick[12, 5]["lambda_pre_union"] = 0.12, 0.70
    for entry in gcul_theory.PREDICTORS:
        if entry.name != "union":
            pick[12, 5][f"lambda_pre_{entry.name}"] = 0.0
    pick[12, 5]["lambda_cert"] = 0.9  # certified is judged against lambda_emp_cert: right here
    for entry in gcul_theory.PREDICTORS:  # only chernoff predicts (10, 4.0) feasible
        pick[10, 10][f"lambda_pre_{entry.name}"] = 0.40 if entry.name == "chernoff" else 0.0
    pick[10, 10]["lambda_emp"] = 0.10
    pick[10, 10]["lambda_cert"], pick[10, 10]["lambda_emp_cert"] = 0.6, 0.40
    pick[10, 30]["lambda_cert"], pick[10, 30]["lambda_emp_cert"] = 0.05, 0.45
    return rows


def baseline_rows():
    """Four rows of the baselines table (seeds 1, 2 × σ = 2, 12): every rejector's selective risk
    and AURC 0.3, the shape :func:`simulations.baselines.baselines_table` reads."""
    from simulations import baselines

    return [
        {"seed": s, "noise": n, "base_acc": 0.7, "selective_acc": 0.8, "rejection_rate": 0.2,
         "ujoint_gcul": 0.05}
        | {f"{k}_{r.name}": 0.3 for r in baselines.REJECTORS for k in ("sel_risk", "aurc")}
        for s in (1, 2) for n in (2.0, 12.0)
    ]  # fmt: skip


def opaque_pixels(fig, colour) -> int:
    """Pixels of the rendered figure exactly of ``colour`` (8-bit RGB): the inside of an opaque
    mark or line, never a translucent band or an anti-aliased edge blended with white."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    rgb = np.asarray(canvas.buffer_rgba())[..., :3].astype(int)
    target = np.round(np.array(to_rgb(colour)) * 255).astype(int)
    return int(np.all(rgb == target, axis=-1).sum())


class Seen:
    """What a reader sees of a figure's artists: :meth:`pixels` counts the pixels of the rendered
    figure that change when artists are hidden (0 if they are invisible or entirely covered by
    what is drawn above them).

    The layout is drawn once and then frozen, so hiding an artist moves nothing else; the figure
    as shown is rendered once, each query renders it once more. Antialiasing is switched off:
    the blended edge of a line drawn on top would otherwise let a line it covers whole change
    pixels.
    """

    def __init__(self, fig, dpi: int = 60):
        self.fig = fig
        self.canvas = FigureCanvasAgg(fig)
        fig.set_dpi(dpi)
        for artist in fig.findobj(lambda a: hasattr(a, "set_antialiased")):
            artist.set_antialiased(False)
        self.canvas.draw()
        fig.set_layout_engine("none")  # freeze the positions constrained layout found
        self.shown = self._render()

    def _render(self) -> np.ndarray:
        self.canvas.draw()
        return np.asarray(self.canvas.buffer_rgba())[..., :3].copy()

    def pixels(self, artists, within=None) -> int:
        """Changed pixels when ``artists`` are hidden; ``within``: only inside this Axes' box."""
        before = [artist.get_visible() for artist in artists]
        for artist in artists:
            artist.set_visible(False)
        hidden = self._render()
        for artist, flag in zip(artists, before, strict=True):
            artist.set_visible(flag)
        changed = np.any(self.shown != hidden, axis=-1)
        if within is not None:
            box = within.get_window_extent()
            height = changed.shape[0]
            rows = slice(max(0, int(height - box.y1)), int(height - box.y0))
            columns = slice(max(0, int(box.x0)), int(box.x1))
            changed = changed[rows, columns]
        return int(changed.sum())


def legend_entries(legend) -> list[str]:
    """The texts of a legend's entries."""
    return [text.get_text() for text in legend.get_texts()]


def _flat(handles):
    for handle in handles:
        if isinstance(handle, tuple):
            yield from _flat(handle)
        else:
            yield handle


def _colour(value):
    from matplotlib.colors import to_hex

    array = np.asarray(value, dtype=object)
    if array.ndim == 2:  # a collection's colours: its first
        if len(array) == 0:
            return None
        value = array[0]
    try:
        return to_hex(value)
    except ValueError:
        return None


def _looks(artist) -> set:
    """What a reader tells an artist by: colour with line style, marker or hatch."""
    from matplotlib.collections import Collection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    looks = set()
    if isinstance(artist, Line2D):
        colour = _colour(artist.get_color())
        if artist.get_linestyle() not in ("None", "none", " ", ""):
            looks.add(("line", colour, artist.get_linestyle()))
            looks.add(("edge", colour))  # a contour line or a curve drawn as a collection
        if artist.get_marker() not in (None, "None", "none", "", " "):
            edge = _colour(artist.get_markeredgecolor())
            face = _colour(artist.get_markerfacecolor())
            looks.add(("mark", str(artist.get_marker()), edge, face))
            looks.add(("mark", "*", edge, face))
    elif isinstance(artist, Patch):
        looks.add(("area", _colour(artist.get_facecolor()), artist.get_hatch()))
        if artist.get_hatch():
            looks.add(("hatch", artist.get_hatch()))
    elif isinstance(artist, Collection):
        face = _colour(artist.get_facecolor())
        edge = _colour(artist.get_edgecolor())
        looks.add(("area", face, artist.get_hatch()))
        if artist.get_hatch():
            looks.add(("hatch", artist.get_hatch()))
        looks.add(("edge", edge))
        looks.add(("mark", "*", edge, face))
        looks.add(("mark", "*", face, face))
    return looks


def legend_artists(fig):
    """For every entry of every legend of ``fig``: its text and the drawn artists (lines, patches,
    collections of the Axes) that look like its handle: the same colour with the same line
    style, marker or hatch. A legend's own handles are proxies, never counted as drawn."""
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend()] + list(fig.legends)
    drawn = [
        artist
        for ax in fig.axes
        for artist in (*ax.lines, *ax.patches, *ax.collections)
        if artist.get_visible()
    ]
    containers = [c for ax in fig.axes for c in ax.containers]  # errorbar(): data, caps, bars
    entries = []
    for legend in legends:
        for handle, text in zip(legend.legend_handles, legend.get_texts(), strict=True):
            wanted = set().union(*(_looks(h) for h in _flat([handle])))
            found = [a for a in drawn if _looks(a) & wanted]
            for container in containers:  # one of its parts matched: it is the whole mark
                parts = [a for a in container.get_children() if a is not None]
                if any(a in found for a in parts):
                    found += [a for a in parts if a not in found]
            entries.append((text.get_text(), found))
    return entries
