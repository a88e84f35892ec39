"""Every mark a figure's legend names is drawn and seen: for each figure that ``gcul reproduce``
and ``gcul compare --plot`` write, hiding an artist the legend names changes pixels of the
rendered figure (it has a visible extent and is not entirely covered by what is drawn above it),
the curves that matter are drawn above the rest (GCUL, then MSP, over the Bayes floor), and the
legend names nothing that is not drawn (issue 23: "every curve a caption names is visible")."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from _figure_data import Seen, legend_entries, make_rows, rows_with_known_violations
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PolyCollection
from matplotlib.colors import to_rgb

from simulations import baseline_figures, registry
from simulations.compare.figure import plot_risk_coverage as plot_compare
from simulations.figures import NOISE_LABEL, plot_phase_transition, plot_predictors
from simulations.rejectors.evaluate import CellScores

REJECTORS = [m.name for m in registry.methods("rejector")]
# Hiding one curve must change at least this many pixels (at 60 dpi a marker alone is ~12).
SEEN = 8


def _cell(n: int = 600, n_wrong: int = 100, seed: int = 0) -> CellScores:
    """A test split where GCUL, MSP, entropy and Deep Gamblers rank every wrong sample last, so
    that their curves coincide (zero risk up to coverage 5/6, as at σ = 2); Bayes is wrong on
    fewer samples (it is the floor), the other rejectors rank at random."""
    rng = np.random.default_rng(seed)
    wrong_same = np.zeros(n, bool)
    wrong_same[:n_wrong] = True
    order = rng.permutation(n)
    wrong_same = wrong_same[order]
    ranked = -wrong_same.astype(float) + 1e-6 * rng.standard_normal(n)
    bayes_wrong = wrong_same.copy()
    bayes_wrong[np.flatnonzero(wrong_same)[: n_wrong // 5]] = False
    scores, wrong = {}, {}
    for name in REJECTORS:
        if name in ("gcul", "msp", "entropy", "deep_gamblers"):
            scores[name], wrong[name] = ranked.copy(), wrong_same.copy()
        elif name == "bayes":
            scores[name], wrong[name] = -bayes_wrong.astype(float) + 1e-6 * rng.standard_normal(n), bayes_wrong
        else:
            scores[name], wrong[name] = rng.standard_normal(n), rng.random(n) < 0.3
    accept = ranked >= np.sort(ranked)[n - int(0.82 * n)]
    return CellScores(
        scores=scores,
        labels={name: np.zeros(n, np.int64) for name in REJECTORS},
        wrong=wrong,
        gcul_accept=accept,
        base_wrong=wrong_same,
        chow_accept={},
        lam=0.15,
    )


@pytest.mark.slow  # 9 s: draws the risk-coverage figure from ten seeds
def test_risk_coverage_shows_every_curve_where_they_coincide():
    cells = [(2.0, _cell(seed=1)), (6.0, _cell(seed=2)), (12.0, _cell(seed=3))]
    drawn = baseline_figures.plot_risk_coverage(cells, seed=16)
    seen = Seen(drawn.figure)
    texts = legend_entries(drawn.legend)
    labels = [registry.method(name).label for name in REJECTORS]
    assert texts[: len(labels)] == labels
    for extra in ("below the Bayes risk", "GCUL's accept set", "GCUL's coverage"):
        assert extra in texts  # the shaded floor and the dotted line are named too
    for ax, lines in zip(drawn.axes, drawn.lines, strict=True):
        # GCUL on top, then MSP, the Bayes floor under every curve and thinner than GCUL's
        order = {name: line.get_zorder() for name, line in lines.items()}
        assert order["gcul"] > order["msp"] > max(
            z for name, z in order.items() if name not in ("gcul", "msp")
        )
        assert order["bayes"] == min(order.values())
        assert lines["bayes"].get_linewidth() < lines["gcul"].get_linewidth()
        for name, line in lines.items():  # four curves coincide: each still shows
            assert seen.pixels([line], within=ax) >= SEEN, (ax.get_title(), name)
        floor = [c for c in ax.collections if isinstance(c, PolyCollection)]
        assert len(floor) == 1 and seen.pixels(floor, within=ax) >= SEEN
        marks = [line for line in ax.lines if line not in lines.values()]
        assert len(marks) == 2  # GCUL's accept set and the dotted line at its coverage
        for mark in marks:
            assert seen.pixels([mark], within=ax) >= SEEN, mark.get_label()
        assert ax.get_ylim()[0] < 0  # a curve at zero risk is drawn above the x-axis


def _mark_gap(ax, line, other) -> float:
    """How far apart (points, along the curve) the nearest marks of two curves drawn on one
    another lie: their ``markevery`` offsets are shares of the axes' diagonal, their marks repeat
    every ``period`` of it, so on one path the gap is the offsets' difference modulo the period."""
    (start, period), (other_start, other_period) = line.get_markevery(), other.get_markevery()
    assert period == other_period
    box = ax.get_window_extent()
    diagonal = float(np.hypot(box.width, box.height)) * 72.0 / ax.figure.dpi
    gap = (start - other_start) % period
    return min(gap, period - gap) * diagonal


def test_risk_coverage_names_the_curves_that_coincide_and_their_marks_never_overlap():
    # issue 32: at σ = 2 five curves lie on zero together up to a coverage of about 0.8; Bayes
    # (unmarked, under them) and Entropy (its marks 4 pt from MSP's, half under them) went unseen.
    cells = [(2.0, _cell(seed=1)), (6.0, _cell(seed=2)), (12.0, _cell(seed=3))]
    drawn = baseline_figures.plot_risk_coverage(cells, seed=16)
    FigureCanvasAgg(drawn.figure).draw()
    together = {"gcul", "msp", "entropy", "deep_gamblers", "bayes"}
    title = drawn.legend.get_title().get_text().split("\n")
    assert len(title) == 3
    for (noise, _), ax, lines, groups, note in zip(
        cells, drawn.axes, drawn.lines, drawn.coincide, title, strict=True
    ):
        assert [set(g.names) for g in groups] == [together]
        group = groups[0]
        # zero risk from the first drawn point (24 of 600 accepted) to 5/6 (every wrong one
        # last), and within a line's width (1% of the risk range) a little further
        top = ax.get_ylim()[1] - ax.get_ylim()[0]
        assert group.low == 0.04 and group.high >= 5 / 6 - 1e-9
        assert group.risk[0] == 0.0 and group.risk[1] <= 0.01 * top
        assert note.startswith(f"σ = {noise:g}: ") and "coincide (" in note
        for name in together:
            assert registry.method(name).label in note, name
        marked = [lines[name] for name in REJECTORS if name in together and name != "bayes"]
        for i, line in enumerate(marked):
            size = line.get_markersize() + line.get_markeredgewidth()  # a mark's extent, pt
            for other in marked[i + 1 :]:
                gap = _mark_gap(ax, line, other)
                assert gap >= size, (line.get_label(), other.get_label(), gap, size)


def _baseline_rows(levels: int = 41, seeds=(1, 2)):
    """Rows where GCUL, MSP, entropy and Deep Gamblers lie within 0.004 of the Bayes risk (they
    overlap in risk against σ), the other three 0.1 above it."""
    near = {"gcul": 0.001, "msp": 0.002, "entropy": 0.003, "deep_gamblers": 0.004}
    rows = []
    for seed in seeds:
        for i in range(levels):
            sigma = 0.4 * i
            bayes = 0.5 / (1 + np.exp(-(sigma - 6)))
            row = {"seed": seed, "noise": sigma}
            for name in REJECTORS:
                offset = 0.0 if name == "bayes" else near.get(name, 0.1)
                row[f"sel_risk_{name}"] = bayes + offset * (1 + sigma / 16)
            rows.append(row)
    return rows


@pytest.mark.slow  # 15 s: draws the baselines figure at two grid sizes
@pytest.mark.parametrize("levels", [41, 9])
def test_baselines_figure_shows_every_line_and_names_only_what_it_draws(levels):
    drawn = baseline_figures.plot_baselines(_baseline_rows(levels))
    fig = drawn.figure
    seen = Seen(fig)
    texts = legend_entries(drawn.legend)
    for name in REJECTORS:
        assert registry.method(name).label in texts
        lines = [panel[name] for panel in drawn.lines.values() if name in panel]
        assert seen.pixels(lines) >= SEEN, name
    # the four near the floor are magnified in their own panel, where each shows on its own
    assert set(drawn.lines["zoom"]) == {"gcul", "msp", "entropy", "deep_gamblers", "bayes"}
    for name, line in drawn.lines["zoom"].items():
        assert seen.pixels([line], within=drawn.zoom) >= SEEN, name
    # issue 32: the legend lists every rejector; a panel that leaves one out says so on it,
    # naming it with its excess there (0.1 above the floor, times 1 + σ/16 up to σ = 6)
    note = drawn.off_scale_note
    assert drawn.off_scale == ["mahalanobis", "knn", "selectivenet"]
    assert note is not None and seen.pixels([note], within=drawn.zoom) >= SEEN
    zoom_high = max(x for x in (0.4 * i for i in range(levels)) if x <= 6.0 + 1e-9)
    for panel, ax in (("risk", drawn.risk), ("excess", drawn.excess), ("zoom", drawn.zoom)):
        for name in REJECTORS:
            label = registry.method(name).label
            if (panel, name) == ("risk", "bayes"):
                continue  # GCUL lies 0.001 above it here; the floor's edge shows it (above)
            if (panel, name) == ("excess", "bayes"):
                continue  # its distance to itself is 0: it lies on the panel's zero line, which
                # older matplotlib (3.8, the oldest supported) draws over most of its pixels
            if name in drawn.lines[panel]:
                assert seen.pixels([drawn.lines[panel][name]], within=ax) >= SEEN, (panel, name)
            else:
                span = f"0.100–{0.1 * (1 + zoom_high / 16):.3f}"
                assert panel == "zoom" and f"{label}: {span}" in note.get_text(), name
    assert note.get_text().startswith("off scale, excess at σ ≤ ")
    # the note sits above every curve of the panel: no point of theirs lies under its box
    box = note.get_window_extent(drawn.figure.canvas.get_renderer())
    for line in drawn.lines["zoom"].values():
        points = line.get_transform().transform(line.get_xydata())
        assert not any(box.contains(x, y) for x, y in points), line.get_label()
        if line.get_xydata().shape[0] > 2:  # a curve, not the axhline of Bayes
            assert points[:, 1].max() < box.y0
    # the grey fill is named; σ band edges are drawn and named only where the grid reaches them
    assert "below the Bayes risk (a)" in texts
    fill = [c for c in drawn.risk.collections if isinstance(c, PolyCollection)]
    assert len(fill) == 1 and seen.pixels(fill) >= SEEN
    edges = [
        line
        for ax in (drawn.risk, drawn.excess)
        for line in ax.lines
        if line.get_linestyle() == ":" and np.ptp(line.get_xdata()) == 0
    ]
    reaches = levels > 10  # 0.4 (levels - 1) > 4
    assert ("σ bands of the baselines table" in texts) == reaches
    assert len(edges) == (4 if levels == 41 else 0)
    suptitle = fig.get_suptitle()
    assert "dotted" not in suptitle and "band" not in suptitle
    for ax in (drawn.risk, drawn.excess, drawn.zoom):
        assert ax.get_xlabel() == NOISE_LABEL


def test_no_rejector_is_drawn_in_a_pale_colour():
    # contrast against white >= 3 : 1 (WCAG's floor for graphics); Okabe–Ito yellow has 1.2
    def luminance(colour):
        rgb = np.array(to_rgb(colour))
        linear = np.where(rgb <= 0.03928, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
        return float(linear @ [0.2126, 0.7152, 0.0722])

    for m in registry.methods("rejector"):
        contrast = 1.05 / (luminance(m.style.colour) + 0.05)
        assert contrast >= 2.0 or m.name == "entropy", (m.name, contrast)
    knn = registry.method("knn").style.colour
    assert 1.05 / (luminance(knn) + 0.05) >= 3.0


def _crowded_rows(seeds=range(10, 20)):
    """The paper's grid where the Gaussian bound says "feasible" everywhere (λ* = 0.9) and
    λ*_EMP falls below λ = 0.15 from σ = 6 on: about 250 Type-II cells on its λ*_EMP curve,
    the last ones at the panel's right edge."""
    rows = make_rows(seeds=tuple(seeds))
    rng = np.random.default_rng(3)
    for row in rows:
        if row["noise"] >= 6.0:
            row["lambda_emp"] = 0.05 + 0.02 * rng.standard_normal()
        row["lambda_pre_gaussian"] = 0.9
    return rows


@pytest.mark.slow  # 5 s: draws and rasterises the predictors figure
def test_predictors_violations_leave_the_curves_and_bands_uncovered():
    # issue 32: on the paper's grid 208 Type-II marks of the Gaussian panel, drawn at their
    # (σ, λ*_EMP) under the means, still hid the λ*_EMP band (and the curve between its dashes)
    # for σ > 8. The violations are counted in a strip under the panel instead: hiding them
    # changes no pixel of the panel, and the strip keeps how many seeds violate at which σ.
    rows = _crowded_rows()
    drawn = plot_predictors(rows)
    fig = drawn.figure
    seen = Seen(fig)
    ax, strip = drawn.axes["gaussian"], drawn.strips["gaussian"]
    assert drawn.counts["gaussian"] == (0, 260)  # 10 seeds x the 26 levels from σ = 6
    marks = [drawn.type_i["gaussian"], drawn.type_ii["gaussian"]]
    parts = [bar for container in marks for bar in container]
    assert seen.pixels(parts, within=ax) == 0  # nothing of them lies over the curves
    assert seen.pixels(parts, within=strip) >= SEEN
    # the target, both means and the λ*_EMP band (the λ* band has no width: one λ* = 0.9)
    for artist in (*ax.lines, ax.collections[1]):
        assert seen.pixels([artist], within=ax) >= SEEN, artist
    # the counts per σ: all 10 seeds at each of the 25 levels from σ = 6, none below
    heights = {round(b.get_x() + b.get_width() / 2, 9): b.get_height() for b in marks[1]}
    assert {level: n for level, n in heights.items() if n} == {
        round(0.4 * i, 9): 10 for i in range(15, 41)
    }
    assert strip.get_ylim() == (0, 10)
    # the last level's bar is drawn whole, inside the strip
    last = max(marks[1], key=lambda bar: bar.get_x())
    assert last.get_x() + last.get_width() <= strip.get_xlim()[1]


@pytest.mark.slow  # 16 s: draws the predictors figure from 41 levels x 10 seeds, twice
@pytest.mark.parametrize("extra", [True, False])
def test_predictors_key_leaves_no_empty_slot_and_names_what_is_drawn(extra):
    rows = _crowded_rows(seeds=(10, 11, 12))
    if extra:  # eight panels: two full rows, the key under them
        rows = [row | {"lambda_emp_cert_noisy": row["lambda_emp_cert"]} for row in rows]
    drawn = plot_predictors(rows)
    n = len(drawn.axes)
    assert n == (8 if extra else 7)
    slots = drawn.figure.axes
    used = [*drawn.axes.values(), *drawn.strips.values()]
    spare = [ax for ax in slots if ax not in used]
    # every slot is a panel over its strip, but one spare slot of a part-filled row (a panel
    # and a strip), whose panel holds the key
    assert len(slots) == 2 * -(-n // 4) * 4 and len(spare) == (0 if extra else 2)
    if spare:
        assert drawn.key.axes is spare[0] and not spare[1].axison
    else:
        assert drawn.key in drawn.figure.legends
    key = legend_entries(drawn.key)
    assert any("Type-II" in t for t in key) and any("0.15" in t for t in key)
    seen = Seen(drawn.figure)
    for name, ax in drawn.axes.items():
        means = [line for line in ax.lines if line.get_linestyle() in ("-", "--")]
        assert len(means) == 2
        for line in means:
            assert seen.pixels([line], within=ax) >= SEEN, name
        assert ax.get_xlabel() in ("", NOISE_LABEL)


def test_phase_transition_legend_entries_are_all_seen():
    drawn = plot_phase_transition(rows_with_known_violations())
    seen = Seen(drawn.figure)
    texts = legend_entries(drawn.legend)
    assert "Type-I violation (1)" in texts and "Type-II violation (1)" in texts
    drawn_artists = (drawn.pre, drawn.emp, drawn.target, drawn.type_i, drawn.type_ii)
    for artist in (*drawn_artists, drawn.pre_band, drawn.emp_band):
        assert seen.pixels([artist]) >= SEEN, artist
    assert drawn.ax.get_xlabel() == NOISE_LABEL


def test_compare_figure_shows_coinciding_curves_and_names_its_marks():
    cell = _cell(seed=4)
    names = ["gcul", "msp", "entropy", "mahalanobis", "knn"]
    import gcul_theory

    curves = {}
    for name in names:
        curve = gcul_theory.risk_coverage_curve(cell.scores[name], cell.wrong[name])
        curves[name] = (registry.method(name).label, curve.coverage, curve.selective_risk)
    m = int(cell.gcul_accept.sum())
    curves["_gcul_point"] = (m / 600, float((cell.wrong["gcul"] & cell.gcul_accept).sum() / m))
    result = SimpleNamespace(curves=curves, splits=1, n_test=600, lam=0.15)
    ax = plot_compare(result)
    seen = Seen(ax.figure)
    texts = legend_entries(ax.get_legend())
    assert "GCUL's coverage" in texts and "GCUL's operating point" in texts
    for line in ax.lines:
        assert line.get_label() in texts
        assert seen.pixels([line]) >= SEEN, line.get_label()
    zorders = {line.get_label(): line.get_zorder() for line in ax.lines}
    assert zorders["GCUL"] > zorders["MSP"] > zorders["Entropy"]
    # the three curves are one (the same scores and errors): the legend's title says so, and
    # their marks lie apart (issue 32)
    note = " ".join(ax.get_legend().get_title().get_text().split())
    assert note == "GCUL, MSP and Entropy coincide (risk 0.000–0.167) for coverage 0.00–1.00"
    FigureCanvasAgg(ax.figure).draw()
    curves = [line for line in ax.lines if line.get_label() in ("GCUL", "MSP", "Entropy")]
    for i, line in enumerate(curves):
        for other in curves[i + 1 :]:
            size = line.get_markersize() + line.get_markeredgewidth()
            assert _mark_gap(ax, line, other) >= size, (line.get_label(), other.get_label())
