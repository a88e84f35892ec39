"""benchmarks/text_emotion.py end to end on tiny corpora (the committed GoEmotions sample and a
synthetic dair-ai/emotion built here: nothing of CARER is committed), and its tables recomputed
from the per-split rows it writes."""

from __future__ import annotations

import importlib.util
import math
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

_BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(_BENCH))  # the script imports operating_points.py beside it
_SPEC = importlib.util.spec_from_file_location("gcul_benchmark_text_emotion", _BENCH / "text_emotion.py")
bench = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = bench
_SPEC.loader.exec_module(bench)

SAMPLE = Path(__file__).parent / "data" / "goemotions"
WORDS = {
    "sadness": "sad cry tears lonely",
    "joy": "happy glad smile great",
    "love": "love adore dear sweet",
    "anger": "angry mad furious rage",
    "fear": "afraid scared fear nervous",
    "surprise": "surprised shocked amazed wow",
}


def _corpora(root: Path) -> Path:
    shutil.copytree(SAMPLE, root / "goemotions")
    rng = np.random.default_rng(0)
    fillers = [f"w{i}" for i in range(150)]
    carer = root / "carer"
    carer.mkdir()
    for split, n in (("train", 160), ("val", 40), ("test", 40)):
        lines = []
        for i in range(n):
            label = list(WORDS)[i % 6]
            own = rng.choice(WORDS[label].split(), 2)
            # a quarter of the rows carry another class's words: errors for phase 1 to make
            if rng.random() < 0.25:
                own = rng.choice(WORDS[list(WORDS)[(i + 1) % 6]].split(), 2)
            lines.append(" ".join([*own, *rng.choice(fillers, 4)]) + f";{label}")
        (carer / f"{split}.txt").write_text("\n".join(lines) + "\n")
    return root


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = _corpora(tmp_path_factory.mktemp("corpora"))
    out = tmp_path_factory.mktemp("out")
    argv = [str(root), "--out", str(out), "--splits", "2", "--representation", "oof_logistic",
            "--representation", "lsa"]  # fmt: skip
    assert bench.main(argv) == 0
    return out


def _se(values: list[float], ratio: float) -> tuple[float, float]:
    # Nadeau & Bengio, written out again here (not the benchmark's code path)
    v = np.asarray(values, dtype=float)
    return float(v.mean()), float(np.sqrt((1 / v.size + ratio) * v.var(ddof=1)))


def _cell(mean: float, se: float, scale: float = 100.0, digits: int = 2) -> str:
    return f"{scale * mean:.{digits}f} ± {scale * se:.{digits}f}"


def test_writes_every_output(run):
    for name in ("text_emotion.md", "rows.csv", "compare.csv", "operating_points.csv",
                 "pca_sweep.csv", "verdicts.csv", "operating_points.png", "pca_sweep.png"):  # fmt: skip
        assert (run / name).is_file(), name
    text = (run / "text_emotion.md").read_text()
    # every table section opens with a title and cites the paper by a title, never a label
    for head in ("## (i)", "## (ii)", "## (iii)", "## (iv)"):
        section = text.split(head, 1)[1]
        assert section.lstrip().split("\n", 1)[0].startswith(("Benchmark", "GCUL", "PCA", "Failure"))
        assert "Title:" in section.split("|", 1)[0]
    assert "tab:" not in text and "fig:" not in text and "subsec:" not in text
    assert "Overall performance comparison of all models." in text


def test_benchmark_table_recomputed_from_rows(run):
    rows = bench.read_csv(run / "rows.csv")
    text = (run / "text_emotion.md").read_text()
    lines = text.splitlines()
    checked = 0
    for corpus in bench.CORPORA:
        for method in ("oof_logistic", "lsa"):
            for variant in bench.VARIANTS:
                part = [r for r in rows if (r["corpus"], r["representation"], r["variant"])
                        == (corpus, method, variant)]  # fmt: skip
                assert len(part) == 2  # one row per split
                ratio = part[0]["n_test"] / part[0]["n_train"]
                cells = [_cell(*_se([r[c] for r in part], ratio)) for c in ("sel_acc", "rejection")]
                head = f"| {bench.SHORT[method]} | {bench.VARIANT_TITLE[variant]} |"
                matches = [line for line in lines if line.startswith(head)]
                # the row of this corpus's table: the corpora's tables come in CORPORA order
                line = matches[bench.CORPORA.index(corpus)]
                assert all(c in line for c in cells), (line, cells)
                checked += 1
    assert checked == 16


def test_compare_and_screening_recomputed_from_rows(run):
    compare_rows = bench.read_csv(run / "compare.csv")
    rows = bench.read_csv(run / "rows.csv")
    text = (run / "text_emotion.md").read_text()
    screening = text.split("## (iv)", 1)[1]
    for corpus in bench.CORPORA:
        for method in ("oof_logistic", "lsa"):
            msp = [r for r in compare_rows if (r["corpus"], r["representation"], r["rejector"])
                   == (corpus, method, "msp")]  # fmt: skip
            ratio = 0.2 / 0.8  # stratified 20% test; checked against rows.csv below
            part = [r for r in rows if (r["corpus"], r["representation"], r["variant"])
                    == (corpus, method, "gcul")]  # fmt: skip
            ratio = part[0]["n_test"] / part[0]["n_train"]
            assert _cell(*_se([r["sel_risk"] for r in msp], ratio)) in text
            assert _cell(*_se([r["difference"] for r in msp], ratio)) in text
            pre = _cell(*_se([r["lambda_pre_valid"] for r in part], ratio), scale=1.0, digits=3)
            emp = _cell(*_se([r["lambda_emp"] for r in part], ratio), scale=1.0, digits=3)
            line = next(
                line for line in screening.splitlines()
                if line.startswith(f"| {bench.CORPUS_TITLE[corpus]} | {bench.SHORT[method]} |")
            )  # fmt: skip
            assert pre in line and emp in line
            pays = np.mean([r["lambda_emp"] for r in part]) > bench.LAM
            assert f"| {'yes' if pays else 'no'} |" in line


def test_markdown_is_a_function_of_the_csv_rows(run):
    # Render again from the CSV files alone: every table is identical to the one written.
    text = (run / "text_emotion.md").read_text()
    again = bench.render(run, {c: "" for c in bench.CORPORA}, bench.tables_from_csv(run), {}, 0.0,
                         2, "")  # fmt: skip
    assert again.split("## Findings", 1)[1] == text.split("## Findings", 1)[1]


def test_macro_f1_matches_scikit_learn():
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(1)
    for _ in range(20):
        y_true, y_pred = rng.integers(0, 5, 50), rng.integers(0, 6, 50)
        expected = f1_score(y_true, y_pred, average="macro", zero_division=0)
        # the same sum of at most 6 ratios in another order: a few ulps
        assert math.isclose(bench.macro_f1(y_true, y_pred), expected, rel_tol=1e-12)
    assert math.isnan(bench.macro_f1(np.array([], int), np.array([], int)))


def test_bad_folder_is_one_line_and_exit_2(tmp_path, capsys):
    assert bench.main([str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "carer" in err
    assert re.search(r"not a folder", err)


def test_subsample_is_stratified_and_keeps_small_classes():
    y = np.repeat([0, 1, 2], [9000, 900, 12])
    keep = bench.subsample(y, 1000)
    counts = np.bincount(y[keep], minlength=3)
    # each class in proportion (round(share * m_c)), but never under MIN_CLASS_ROWS
    assert counts.tolist() == [round(9000 * 1000 / 9912), round(900 * 1000 / 9912), bench.MIN_CLASS_ROWS]
    assert np.array_equal(keep, np.unique(keep)) and np.array_equal(keep, bench.subsample(y, 1000))


def _overlaps(fig, gap_px: float = 2.0) -> list[tuple[int, str, str]]:
    """Pairs of neighbouring visible x tick labels less than ``gap_px`` pixels apart, panel by
    panel (touching digits read as one number: "80100")."""
    renderer = fig.canvas.get_renderer()
    found = []
    for index, ax in enumerate(fig.axes):
        labels = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
        extents = [(t.get_window_extent(renderer), t.get_text()) for t in labels]
        boxes = sorted((box.x0, box.x1, text) for box, text in extents)
        for (_, right, a), (left, _, b) in zip(boxes[:-1], boxes[1:], strict=True):
            if left < right + gap_px:
                found.append((index, a, b))
    return found


def test_the_committed_pca_sweep_has_no_overlapping_tick_labels():
    # benchmarks/text_emotion/pca_sweep.png drew 80 and 100 (LSA) and 8 and 10 (the paper's
    # 768-d sweep) on top of each other; redrawn from the committed CSV, no label touches another
    sweep = bench.tables_from_csv(_BENCH / "text_emotion")["sweep"]
    fig = bench.plot_sweep(sweep, list(bench.CORPORA))
    try:
        assert _overlaps(fig) == []
        # (get_xticklabels lists the visible labels only: the ticks hold every one)
        labels = [[tick.label1 for tick in ax.xaxis.get_major_ticks()] for ax in fig.axes]
        hidden = {(i, t.get_text()) for i, row in enumerate(labels) for t in row
                  if not t.get_visible()}  # fmt: skip
        assert {(1, "80"), (3, "10")} <= hidden, hidden  # the two collisions
        assert len(hidden) <= 4, hidden  # and little else
        for row in labels:  # the largest dimension keeps its label
            assert row[-1].get_visible()
        # with every label shown again, the same figure has the old collisions
        for row in labels:
            for t in row:
                t.set_visible(True)
        assert {(1, "80", "100"), (3, "8", "10")} <= set(_overlaps(fig))
    finally:
        bench.plt.close(fig)


def test_redraw_draws_both_figures_from_the_csv_files_alone(run, tmp_path, capsys):
    for name in ("rows", "compare", "operating_points", "pca_sweep", "verdicts"):
        shutil.copy(run / f"{name}.csv", tmp_path / f"{name}.csv")
    assert bench.main(["--redraw", "--out", str(tmp_path)]) == 0
    for name in ("operating_points.png", "pca_sweep.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
    capsys.readouterr()
    (tmp_path / "pca_sweep.csv").unlink()
    assert bench.main(["--redraw", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --redraw: ") and err.count("\n") == 1 and "pca_sweep.csv" in err
