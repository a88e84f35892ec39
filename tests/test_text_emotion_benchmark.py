"""benchmarks/text_emotion.py end to end on tiny corpora (the committed GoEmotions sample and a
synthetic dair-ai/emotion built here: nothing of CARER is committed), and its tables recomputed
from the per-split rows it writes. The driver is loaded by path (for ``main``); the science it
calls is the package's, :mod:`simulations.text` (its own tests: tests/test_text_package.py)."""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from simulations.text import study, tasks
from simulations.text.csv_rows import read_csv, tables_from_csv
from simulations.text.figures import plot_operating, plot_sweep
from simulations.text.measures import VARIANTS
from simulations.text.report import render
from simulations.text.tables import SHORT, VARIANT_TITLE

# slow tier: the module runs the whole benchmark twice on tiny corpora (stand-ins and a
# fine-tuned folder, about 25 s of CPU) and redraws the committed figures
pytestmark = pytest.mark.slow

_BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
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
    rows = read_csv(run / "rows.csv")
    text = (run / "text_emotion.md").read_text()
    lines = text.splitlines()
    checked = 0
    for corpus in study.CORPORA:
        for method in ("oof_logistic", "lsa"):
            for variant in VARIANTS:
                part = [r for r in rows if (r["corpus"], r["representation"], r["variant"])
                        == (corpus, method, variant)]  # fmt: skip
                assert len(part) == 2  # one row per split
                ratio = part[0]["n_test"] / part[0]["n_train"]
                cells = [_cell(*_se([r[c] for r in part], ratio)) for c in ("sel_acc", "rejection")]
                head = f"| {SHORT[method]} | {VARIANT_TITLE[variant]} |"
                matches = [line for line in lines if line.startswith(head)]
                # the row of this corpus's table: the corpora's tables come in CORPORA order
                line = matches[study.CORPORA.index(corpus)]
                assert all(c in line for c in cells), (line, cells)
                checked += 1
    assert checked == 16


def test_compare_and_screening_recomputed_from_rows(run):
    compare_rows = read_csv(run / "compare.csv")
    rows = read_csv(run / "rows.csv")
    text = (run / "text_emotion.md").read_text()
    screening = text.split("## (iv)", 1)[1]
    for corpus in study.CORPORA:
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
                if line.startswith(f"| {study.CORPUS_TITLE[corpus]} | {SHORT[method]} |")
            )  # fmt: skip
            assert pre in line and emp in line
            pays = np.mean([r["lambda_emp"] for r in part]) > study.LAM
            assert f"| {'yes' if pays else 'no'} |" in line


def test_markdown_is_a_function_of_the_csv_rows(run):
    # Render again from the CSV files alone: every table is identical to the one written.
    text = (run / "text_emotion.md").read_text()
    again = render({c: "" for c in study.CORPORA}, tables_from_csv(run), {}, 0.0, 2, "")
    assert again.split("## Findings", 1)[1] == text.split("## Findings", 1)[1]


def test_bad_folder_is_one_line_and_exit_2(tmp_path, capsys):
    assert bench.main([str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "carer" in err
    assert re.search(r"not a folder", err)


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
    sweep = tables_from_csv(_BENCH / "text_emotion")["sweep"]
    fig = plot_sweep(sweep, list(study.CORPORA))
    assert _overlaps(fig) == []
    # (get_xticklabels lists the visible labels only: the ticks hold every one)
    labels = [[tick.label1 for tick in ax.xaxis.get_major_ticks()] for ax in fig.axes]
    hidden = {(i, t.get_text()) for i, row in enumerate(labels) for t in row
              if not t.get_visible()}  # fmt: skip
    # the collisions: 320 and 384 on the fine-tuned encoder's panels (384 d), 8 and 10 on
    # the paper's (768 d, log axis)
    fine_tuned = [i for i, ax in enumerate(fig.axes) if "fine-tuned" in ax.get_title()]
    paper = [i for i, ax in enumerate(fig.axes) if "the GCUL paper" in ax.get_title()]
    assert fine_tuned and paper
    assert {(i, "320") for i in fine_tuned} | {(i, "10") for i in paper} <= hidden, hidden
    per_panel = [sum(1 for i, _ in hidden if i == k) for k in range(len(fig.axes))]
    assert max(per_panel) <= 2, hidden  # and little else
    for row in labels:  # the largest dimension keeps its label
        assert row[-1].get_visible()
    # with every label shown again, the same figure has the old collisions
    for row in labels:
        for t in row:
            t.set_visible(True)
    collisions = set(_overlaps(fig))
    assert {(i, "320", "384") for i in fine_tuned} | {(i, "8", "10") for i in paper} <= collisions


def test_redraw_draws_both_figures_from_the_csv_files_alone(run, tmp_path, capsys):
    for name in ("rows", "compare", "operating_points", "pca_sweep", "verdicts"):
        shutil.copy(run / f"{name}.csv", tmp_path / f"{name}.csv")
    shutil.copy(run / "run.json", tmp_path / "run.json")
    assert bench.main(["--redraw", "--out", str(tmp_path)]) == 0
    for name in ("operating_points.png", "pca_sweep.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
    # and the report, byte for byte the one the run wrote
    assert (tmp_path / "text_emotion.md").read_bytes() == (run / "text_emotion.md").read_bytes()
    capsys.readouterr()
    (tmp_path / "pca_sweep.csv").unlink()
    assert bench.main(["--redraw", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --redraw: ") and err.count("\n") == 1 and "pca_sweep.csv" in err


# ------------------------------------------------------------------ the fine-tuned encoder
def _finetuned(corpora: Path, root: Path, seeds=(0, 1)) -> Path:
    """A fine-tuned-encoder folder for the synthetic CARER corpus of ``_corpora``, in the format
    of simulations.text.load_precomputed: labels row for row as the loader returns them; seed 1
    holds validation and test rows only (as GoEmotions' seeds 1 and 2 do)."""
    from simulations.text import load_carer

    parts = [load_carer(corpora / "carer", split).labels for split in ("train", "dev", "test")]
    for seed in seeds:
        rng = np.random.default_rng(seed)
        keep = (0, 1, 2) if seed == 0 else (1, 2)
        y = np.concatenate([parts[k] for k in keep])
        split = np.repeat(keep, [parts[k].size for k in keep]).astype(np.int8)
        centres = 3.0 * np.eye(6, 8)
        Z = centres[y] + rng.normal(size=(y.size, 8))
        confused = rng.random(y.size) < 0.2  # a fifth of the rows between two classes
        Z[confused] = 0.5 * (centres[y[confused]] + centres[(y[confused] + 1) % 6]) + 0.3 * rng.normal(
            size=(int(confused.sum()), 8)
        )
        logits = 2.0 * Z[:, :6] + rng.normal(size=(y.size, 6))
        folder = root / "carer" / f"seed{seed}"
        folder.mkdir(parents=True)
        np.save(folder / "embeddings.npy", Z.astype(np.float16))
        np.save(folder / "labels.npy", y.astype(np.int16))
        np.save(folder / "split.npy", split)
        np.save(folder / "logits.npy", logits.astype(np.float16))
    return root


@pytest.fixture(scope="module")
def ft_run(tmp_path_factory):
    corpora = _corpora(tmp_path_factory.mktemp("ft_corpora"))
    ft = _finetuned(corpora, tmp_path_factory.mktemp("ft"))
    out = tmp_path_factory.mktemp("ft_out")
    argv = [str(corpora), "--out", str(out), "--splits", "2", "--corpus", "carer",
            "--representation", "finetuned", "--finetuned", str(ft)]  # fmt: skip
    assert bench.main(argv) == 0
    return out, corpora, ft


def test_finetuned_protocols_and_seeds_are_all_there(ft_run):
    out, _, _ = ft_run
    rows = read_csv(out / "rows.csv")
    found = {(r["representation"], r["seed"]) for r in rows}
    # (P) needs train rows: seed 0 only; (H, val -> test) for both seeds
    assert found == {("finetuned_paper", 0), ("finetuned_valtest", 0), ("finetuned_valtest", 1)}
    compare_rows = read_csv(out / "compare.csv")
    held = [r for r in compare_rows if r["representation"] == tasks.FT_SPLITS]
    assert {r["seed"] for r in held} == {0, 1} and {r["split"] for r in held} == {0, 1}
    assert {"gcul", "msp", "head_msp", "selectivenet"} <= {r["rejector"] for r in held}
    text = (out / "text_emotion.md").read_text()
    for name in ("(P) the paper's", "(H) held out", "fine-tuned head's MSP", "(v) λ*_PRE like with like"):
        assert name in text, name
    # the full command of a reduced run: a partial run never reads as the whole one
    assert "--corpus carer --representation finetuned --splits 2" in text


def test_finetuned_cells_are_seed_means_with_split_se_and_seed_range(ft_run):
    out, _, _ = ft_run
    rows = read_csv(out / "rows.csv")
    part = [r for r in rows if (r["representation"], r["variant"]) == ("finetuned_valtest", "gcul")]
    # one fixed split per seed: no split SE; the mean of the seed values and their range
    values = [r["sel_acc"] for r in sorted(part, key=lambda r: r["seed"])]
    cell = f"{100 * np.mean(values):.2f} [{100 * min(values):.2f}, {100 * max(values):.2f}]"
    line = next(line for line in (out / "text_emotion.md").read_text().splitlines()
                if line.startswith(f"| {SHORT['finetuned_valtest']} | GCUL |"))  # fmt: skip
    assert cell in line, (cell, line)
    # splits within each seed: mean ± the root mean square of the seeds' corrected SEs [range]
    compare_rows = read_csv(out / "compare.csv")
    risk = {}
    for seed in (0, 1):
        split_rows = [r for r in compare_rows if (r["representation"], r["rejector"], r["seed"])
                      == (tasks.FT_SPLITS, "head_msp", seed)]  # fmt: skip
        ratio = split_rows[0]["n_test"] / split_rows[0]["n_train"]
        risk[seed] = _se([r["sel_risk"] for r in split_rows], ratio)
    means = [risk[0][0], risk[1][0]]
    se = np.sqrt(np.mean([risk[0][1] ** 2, risk[1][1] ** 2]))
    cell = f"{100 * np.mean(means):.2f} ± {100 * se:.2f} [{100 * min(means):.2f}, {100 * max(means):.2f}]"
    assert cell in (out / "text_emotion.md").read_text()


def test_head_msp_is_the_heads_softmax_at_gculs_coverage(ft_run):
    # recomputed here from the folder's logits and compare's splits, not the benchmark's code path
    import gcul_theory
    from simulations.compare import stratified_splits
    from simulations.text import load_precomputed

    out, _, ft = ft_run
    data = load_precomputed(ft / "carer" / "seed1")
    held = data.rows("validation", "test")
    y, logits = data.labels[held], data.logits[held]
    compare_rows = read_csv(out / "compare.csv")
    for i, (_, test) in enumerate(stratified_splits(y, 2, study.TEST_SIZE, study.SEED)):
        pick = {r["rejector"]: r for r in compare_rows
                if (r["representation"], r["seed"], r["split"]) == (tasks.FT_SPLITS, 1, i)}  # fmt: skip
        m = round(pick["gcul"]["coverage"] * test.size)
        # softmax's maximum ranks rows as the largest logit minus the log-sum-exp does
        z = logits[test] - logits[test].max(axis=1, keepdims=True)
        confidence = 1.0 / np.exp(z).sum(axis=1)
        wrong = logits[test].argmax(axis=1) != y[test]
        expected = float(gcul_theory.selective_risk_at_coverage(confidence, wrong, m))
        # the same ranking from two float64 routes to the softmax: equal unless two rows tie
        # within a few ulps, which these continuous draws do not
        assert pick["head_msp"]["sel_risk"] == pytest.approx(expected, rel=0, abs=1e-12)
        assert pick["head_msp"]["difference"] == pytest.approx(expected - pick["gcul"]["sel_risk"], abs=1e-12)


def test_finetuned_labels_must_be_the_corpus_rows(tmp_path, capsys):
    corpora = _corpora(tmp_path / "corpora")
    ft = _finetuned(corpora, tmp_path / "ft", seeds=(0,))
    labels = np.load(ft / "carer" / "seed0" / "labels.npy")
    np.save(ft / "carer" / "seed0" / "labels.npy", np.roll(labels, 1))
    argv = [str(corpora), "--out", str(tmp_path / "o"), "--corpus", "carer", "--representation",
            "finetuned", "--finetuned", str(ft)]  # fmt: skip
    assert bench.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "seed0" in err and "another release" in err


@pytest.mark.parametrize("problem", ["file", "under-a-file", "jobs", "max-rows", "no-folder"])
def test_bad_options_are_refused_before_any_work(tmp_path, capsys, monkeypatch, problem):
    corpora = _corpora(tmp_path / "corpora")

    def no_work(*args, **kwargs):
        raise AssertionError("work started before the options were checked")

    monkeypatch.setattr(bench, "cached_representation", no_work)
    monkeypatch.setattr(bench, "run_task", no_work)
    out = tmp_path / "out"
    argv = [str(corpora), "--out", str(out)]
    if problem == "file":
        out.write_text("a file")
    elif problem == "under-a-file":  # (a read-only folder would not stop root, who runs CI)
        (tmp_path / "plain").write_text("a file")
        argv[2] = str(tmp_path / "plain" / "out")
    elif problem == "jobs":
        argv += ["--jobs", "0"]
    elif problem == "max-rows":
        argv += ["--max-rows", "0"]
    else:
        argv += ["--representation", "finetuned"]
    assert bench.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    words = {"file": "not a folder", "under-a-file": "is a file, not a folder", "jobs": "--jobs must be at least 1",
             "max-rows": "--max-rows must be at least 1",
             "no-folder": "needs --finetuned"}[problem]  # fmt: skip
    assert words in err, err


@pytest.mark.parametrize("columns", [None, ["finetuned_valtest"]])
def test_figures_title_fits_and_legend_swatches_are_curve_colours(columns):
    # issue 32 item 10: a reduced run's title was clipped at both edges, and the operating-point
    # legend's swatches were grey where every curve is coloured by its representation
    import matplotlib.colors as mcolors
    from matplotlib.lines import Line2D

    tables = tables_from_csv(_BENCH / "text_emotion")
    points, sweep = tables["points"], tables["sweep"]
    if columns:  # one representation and one corpus: the narrow figure of a reduced run
        points = [r for r in points if r["representation"] in columns and r["corpus"] == "carer"]
        sweep = [r for r in sweep if r["representation"] in columns and r["corpus"] == "carer"]
    corpora = ["carer"] if columns else list(study.CORPORA)
    for fig in (plot_operating(points, corpora), plot_sweep(sweep, corpora)):
        renderer = fig.canvas.get_renderer()
        box = fig._suptitle.get_window_extent(renderer)
        width, height = fig.canvas.get_width_height()
        assert 0 <= box.x0 and box.x1 <= width and box.y1 <= height, (box, width)
        # the colours of the data curves (not of the dotted reference lines, which are grey)
        curves = {mcolors.to_hex(line.get_color()) for ax in fig.axes for line in ax.get_lines()
                  if line.get_linestyle() != ":"}  # fmt: skip
        for handle in fig.legends[0].legend_handles:
            if isinstance(handle, Line2D) and handle.get_linestyle() not in (":", "None", ""):
                assert mcolors.to_hex(handle.get_color()) in curves, handle.get_label()


def test_the_reports_unstable_example_is_the_committed_rows():
    # the report's prose names GoEmotions (a)'s per-split rejections; they are the CSV's values
    rows = read_csv(_BENCH / "text_emotion" / "rows.csv")
    part = [r for r in rows if (r["corpus"], r["representation"], r["variant"]) == ("goemotions", "oof_logistic", "gcul")]
    shown = sorted(f"{100 * r['rejection']:.1f}" for r in part)
    assert shown == ["1.0", "1.0", "1.0", "3.4", "3.6"], shown
    text = (_BENCH / "text_emotion" / "text_emotion.md").read_text()
    assert "GoEmotions (a): 3.4–3.6% in two splits, 1.0% in three" in " ".join(text.split())
