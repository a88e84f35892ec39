"""The regime map: simulations.regime_map's settings, the predictor table's choice on one half,
the bootstrap's crossed draws and its text section, and benchmarks/regime_map.py, the driver
that calls them (its options, its "Made by" line, a --text-only run). The statistics it calls
are tested in tests/test_statistics.py, the predictors in tests/test_training_predictors.py."""

from __future__ import annotations

import argparse
import importlib.util
import math
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

import simulations.regime_map as rm

_BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
_SPEC = importlib.util.spec_from_file_location(
    "gcul_benchmark_regime_map", _BENCH / "regime_map.py"
)
bench = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = bench
_SPEC.loader.exec_module(bench)


def test_settings_cover_every_pair_grid_once():
    setting_list = rm.settings()
    assert len(set(setting_list)) == len(setting_list)
    for first, second in rm.PAIRS:
        want = len(rm.FACTORS[first].grid) * len(rm.FACTORS[second].grid)
        default = {n: f.default for n, f in rm.FACTORS.items()}
        got = [
            s for s in setting_list
            if all(s[i] == default[n] for i, n in enumerate(rm.NAMES) if n not in (first, second))
        ]  # fmt: skip
        assert len(got) == want


def test_orientation_and_threshold_come_from_the_choice_half_only():
    # on the choice half a higher predictor means "GCUL better" (diff < 0); on the held-out
    # half the opposite: a table that chose on the held-out half (or on both) would not give 0
    def summary(value, diff, held_out):
        row = {column: value for column, *_ in rm.PREDICTORS}
        return row | {"diff": diff, "held_out": held_out, "significant_any": 1, "sigma": 4.0}

    choice = [summary(v, -0.01 if v > 0.5 else 0.01, 0) for v in (0.1, 0.2, 0.7, 0.8)]
    test = [summary(v, 0.01 if v > 0.5 else -0.01, 1) for v in (0.15, 0.25, 0.75, 0.85)]
    table = rm.predictor_table(choice + test)
    for row in table:
        assert row["orientation"] == "higher = GCUL better"
        assert row["auc_choice"] == 1.0 and row["auc"] == 0.0 and row["accuracy"] == 0.0
        assert 0.2 < row["threshold"] < 0.7


def _bootstrap_inputs(shock):
    """20 held-out settings k = 0..19 over 10 seeds j: GCUL − MSP = (k − 9.5) + shock(k, j), the
    predictor −k ("higher = GCUL better"), every setting in every block."""
    rows, summaries = [], []
    for k in range(20):
        summaries.append({"setting": k, "held_out": 1, "significant_any": 1, "sigma": 4.0})
        for j in range(10):
            row = {"setting": k, "seed": j, "risk_msp": 0.0, "risk_gcul": k - 9.5 + shock(k, j)}
            rows.append(row | {column: -float(k) for column, *_ in rm.PREDICTORS})
    table = [
        {"settings": block, "predictor": column, "orientation": "higher = GCUL better"}
        for block in rm.BLOCKS
        for column, *_ in rm.PREDICTORS
    ]
    return rows, summaries, table


def test_bootstrap_redraws_the_seeds_once_for_all_settings():
    # a shock common to every setting of a seed (±5) moves every mean together: the ranking, and
    # so the AUC (1), survive every replicate; redrawing seeds per setting would scramble the
    # settings near 0 and give a positive SE
    rows, summaries, table = _bootstrap_inputs(lambda k, j: 5.0 if j % 2 else -5.0)
    rm.add_bootstrap_se(rows, summaries, table, n_boot=200)
    assert all(r["auc_se_boot"] == 0.0 for r in table)
    # a shock of each setting's own: the outcomes near 0 flip between replicates
    rng = np.random.default_rng(3)
    own = rng.choice([-5.0, 5.0], size=(20, 10))
    rows, summaries, table = _bootstrap_inputs(lambda k, j: own[k, j])
    rm.add_bootstrap_se(rows, summaries, table, n_boot=200)
    assert all(r["auc_se_boot"] > 0.01 for r in table)
    again = [dict(r) for r in table]
    rm.add_bootstrap_se(rows, summaries, again, n_boot=200)
    assert [r["auc_se_boot"] for r in again] == [r["auc_se_boot"] for r in table]  # seeded


# ------------------------------------------------------------------ the text section (issue 31)
def _text_row(rep, seed, split, gcul, msp, corpus="carer"):
    row = {"corpus": corpus, "representation": rep, "seed": seed, "split": split,
           "coverage": 0.8, "risk_gcul": gcul, "risk_msp": msp}  # fmt: skip
    return row | {column: 0.1 * (seed + 1) for column, *_ in rm.PREDICTORS}


def _write_compare(path, rows, seed_column):
    head = "corpus,representation," + ("seed," if seed_column else "") + "split,rejector,sel_risk\n"
    lines = [
        f"{c},{m}," + (f"{k}," if seed_column else "") + f"{i},{name},{risk!r}\n"
        for c, m, k, i, name, risk in rows
    ]
    path.write_text(head + "".join(lines), encoding="utf-8")


def test_check_against_compare_matches_the_seed_and_counts_what_is_absent(tmp_path):
    ours = [_text_row("lsa", 0, 0, 0.25, 0.125), _text_row("finetuned_heldout", 0, 0, 0.5, 0.25),
            _text_row("finetuned_heldout", 1, 0, 0.375, 0.25)]  # fmt: skip
    # the committed compare.csv of today: no seed column, no fine-tuned rows; the stand-in is
    # seed 0 and agrees exactly, the 4 fine-tuned risks are skipped and counted
    old = tmp_path / "old.csv"
    _write_compare(old, [("carer", "lsa", 0, 0, "gcul", 0.25), ("carer", "lsa", 0, 0, "msp", 0.125)],
                   seed_column=False)  # fmt: skip
    check = rm.check_against_compare(ours, old)
    assert (check.worst, check.checked, check.absent) == (0.0, 2, 4)
    assert check.absent_from == ("finetuned_heldout",)
    assert "0 (equal) for lsa (2 risks); 4 per-split risks are not in it (finetuned_heldout;" in check.text()
    # with a seed column: seed 1's GCUL risk differs by 1/8 and must not be read as seed 0's
    new = tmp_path / "new.csv"
    _write_compare(new, [("carer", "lsa", 0, 0, "gcul", 0.25), ("carer", "lsa", 0, 0, "msp", 0.125),
                         ("carer", "finetuned_heldout", 1, 0, "gcul", 0.5),
                         ("carer", "finetuned_heldout", 1, 0, "msp", 0.25),
                         ("carer", "finetuned_heldout", 0, 0, "gcul", 0.5),
                         ("carer", "finetuned_heldout", 0, 0, "msp", 0.25)], seed_column=True)  # fmt: skip
    check = rm.check_against_compare(ours, new)
    assert check.by_representation == {"lsa": (0.0, 2), "finetuned_heldout": (0.125, 4)}
    assert (check.worst, check.absent, check.absent_from) == (0.125, 0, ())
    assert "not in it" not in check.text()
    assert "0.125 for finetuned_heldout (4 risks)" in check.text()
    missing = rm.check_against_compare(ours, tmp_path / "none.csv")
    assert (missing.checked, missing.absent) == (0, 6) and math.isnan(missing.worst)
    assert "not checked" in missing.text()


def test_summarise_text_keeps_the_fine_tuning_seeds_apart_and_gives_their_spread():
    rows = [_text_row("lsa", 0, i, 0.2 + 0.01 * i, 0.1) for i in range(5)]
    for seed, shift in ((0, 0.0), (1, 0.02), (2, -0.04)):
        rows += [_text_row("finetuned_heldout", seed, i, 0.1 + shift + 0.01 * i, 0.1) for i in range(5)]
    summary = rm.summarise_text(rows)
    # stand-ins first, then the fine-tuned seeds in order
    assert [(t["representation"], t["seed"]) for t in summary] == [
        ("lsa", 0), ("finetuned_heldout", 0), ("finetuned_heldout", 1), ("finetuned_heldout", 2)
    ]
    # each seed's mean over its own 5 splits: 0.02 + shift (the differences are 0..0.04)
    for t, shift in zip(summary[1:], (0.0, 0.02, -0.04), strict=True):
        assert t["diff"] == pytest.approx(0.02 + shift, abs=1e-15)  # sums of five 0.01-sized terms
    (spread,) = rm.seed_spread(summary)
    assert spread["seeds"] == [0, 1, 2]
    mean, low, high = spread["diff"]
    assert (low, high) == (summary[3]["diff"], summary[2]["diff"])
    assert mean == pytest.approx(0.02 - 0.02 / 3, abs=1e-15)
    assert spread["delta_s_eq"][1:] == (0.1, pytest.approx(0.3))  # the predictors' seed range


def test_with_text_timing_replaces_the_text_clause_once():
    made_by = ("Made by `x` (simulations 0.1.0). 361 settings: 182 s CPU in the cells; text corpora: "
               "60 s CPU, 113 s wall (representations cached). An earlier run agreed.")  # fmt: skip
    args = argparse.Namespace(finetuned=Path("ft"), jobs=2)
    once = bench.with_text_timing(made_by, args, "text corpora: 9 s CPU, 8 s wall (representations cached)")
    assert "60 s CPU" not in once and once.count("text corpora:") == 1
    assert once.startswith("Made by `x` (simulations 0.1.0). 361 settings: 182 s CPU in the cells.")
    assert "--finetuned FINETUNED --jobs 2` recomputed the text rows" in once
    twice = bench.with_text_timing(once, args, "text corpora: 7 s CPU, 6 s wall (representations cached)")
    assert twice.count("Then `--text-only") == 1 and "7 s CPU" in twice and "9 s CPU" not in twice


_TEXT_TESTS = Path(__file__).resolve().parent / "test_text_emotion_benchmark.py"


def _text_fixtures():
    """``_corpora`` and ``_finetuned`` of the text benchmark's tests: tiny corpora (the committed
    GoEmotions sample, a synthetic CARER) and a fine-tuned folder for CARER, seeds 0 and 1."""
    spec = importlib.util.spec_from_file_location("gcul_test_text_emotion_fixtures", _TEXT_TESTS)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module._corpora, module._finetuned


@pytest.fixture(scope="module")
def tiny_text(tmp_path_factory):
    corpora_of, finetuned_of = _text_fixtures()
    corpora = corpora_of(tmp_path_factory.mktemp("regime_corpora"))
    return corpora, finetuned_of(corpora, tmp_path_factory.mktemp("regime_ft"))


@pytest.fixture
def one_standin(monkeypatch):
    """Only the cheapest stand-in (WordLlama loads a model; LSA is a second copy of the path)."""
    from simulations.text import representations

    monkeypatch.setattr(
        representations, "REPRESENTATIONS", {"oof_logistic": representations.REPRESENTATIONS["oof_logistic"]}
    )


@pytest.fixture
def no_standin(monkeypatch):
    """No stand-in: the fine-tuned rows alone (the stand-ins' path is the one before issue 31,
    run by the slow test below)."""
    from simulations.text import representations

    monkeypatch.setattr(representations, "REPRESENTATIONS", {})


def test_text_rows_add_the_fine_tuned_held_out_rows(tiny_text, no_standin):
    corpora, ft = tiny_text
    finetuned = rm.finetuned_inputs(ft, corpora)
    assert set(finetuned) == {"carer"}  # no goemotions/ folder: left out
    from simulations.text import load_carer, load_precomputed

    held_n = sum(load_carer(corpora / "carer", s).labels.size for s in ("dev", "test"))
    for seed, Z, y in finetuned["carer"]:
        assert Z.shape[0] == y.size == held_n  # validation + test only, also for seed 0
        want = load_precomputed(ft / "carer" / f"seed{seed}")
        held = want.rows("validation", "test")
        assert np.array_equal(Z, want.embeddings[held]) and np.array_equal(y, want.labels[held])
    rows = rm.text_rows(corpora, None, 1, finetuned)
    fine = [r for r in rows if r["representation"] == "finetuned_heldout"]
    assert fine == rows
    assert sorted((r["seed"], r["split"]) for r in fine) == [(k, i) for k in (0, 1) for i in range(5)]
    # the splits are the text benchmark's over the held-out rows (compare's: 5, test 0.2, seed 0)
    from simulations.compare import stratified_splits

    (seed0, Z0, y0) = finetuned["carer"][0]
    splits = stratified_splits(y0, 5, 0.2, 0)
    again = rm.text_task("carer", "finetuned_heldout", seed0, 3, Z0, y0, *splits[3])
    (row,) = [r for r in fine if (r["seed"], r["split"]) == (seed0, 3)]
    again.pop("cpu_seconds"), row.pop("cpu_seconds")
    assert again == row


def test_finetuned_folder_of_other_rows_is_refused_in_one_line(tiny_text, tmp_path, capsys):
    corpora, ft = tiny_text
    bad = tmp_path / "ft" / "carer" / "seed0"
    shutil.copytree(ft / "carer" / "seed0", bad)
    labels = np.load(bad / "labels.npy")
    np.save(bad / "labels.npy", np.roll(labels, 1))
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as exc:
        bench.main(["--out", str(out), "--corpora", str(corpora), "--finetuned", str(tmp_path / "ft")])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "seed0" in err and "labels" in err
    assert not (out / "cells.csv").exists()  # refused before any cell ran


@pytest.mark.parametrize(
    ("extra", "needs_cells", "message"),
    [
        (["--text-only"], True, "--text-only recomputes the text rows: it needs --corpora"),
        (["--text-only", "--corpora", "C"], False, "--text-only: no cells.csv"),
        (["--finetuned", "F"], True, "--finetuned needs --corpora"),
        (["--tables-only", "--text-only"], True, "not allowed with argument"),
    ],
)
def test_text_only_and_finetuned_refusals(tmp_path, capsys, extra, needs_cells, message):
    out = tmp_path / "out"
    out.mkdir()
    if needs_cells:
        (out / "cells.csv").write_text("setting,seed\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        bench.main(["--out", str(out), *extra])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert message in err[-1]


_COMMITTED = Path(__file__).resolve().parents[1] / "benchmarks" / "regime_map"


@pytest.mark.slow
def test_text_only_rewrites_the_text_rows_and_keeps_the_cells(tiny_text, one_standin, tmp_path):
    """--text-only on the committed cells: cells.csv, settings.csv and predictors.csv come back
    byte for byte; text.csv holds this run's rows (stand-in and fine-tuned seeds), and the
    report's text section names them."""
    corpora, ft = tiny_text
    out = tmp_path / "out"
    shutil.copytree(_COMMITTED, out)
    before = {name: (out / name).read_bytes() for name in ("cells.csv", "settings.csv", "predictors.csv")}
    argv = ["--out", str(out), "--text-only", "--corpora", str(corpora), "--finetuned", str(ft),
            "--jobs", "1", "--compare-csv", str(tmp_path / "none.csv")]  # fmt: skip
    assert bench.main(argv) == 0
    for name, content in before.items():
        assert (out / name).read_bytes() == content, name
    text = rm.read_csv(out / "text.csv")
    assert {(r["corpus"], r["representation"], r["seed"]) for r in text} == {
        ("carer", "oof_logistic", 0), ("goemotions", "oof_logistic", 0),
        ("carer", "finetuned_heldout", 0), ("carer", "finetuned_heldout", 1),
    }  # fmt: skip
    report = (out / "regime_map.md").read_text(encoding="utf-8")
    assert "| carer | finetuned_heldout, seed 1 |" in report
    assert "carer, finetuned_heldout over fine-tuning seeds 0, 1: GCUL − MSP" in report
    assert "Then `--text-only --corpora CORPORA --cache CACHE --finetuned FINETUNED --jobs 1`" in report
    assert "not checked against that benchmark's `compare.csv`" in report


def test_predictors_figure_names_each_panel_and_the_fine_tuned_seeds_once(tmp_path):
    # a legend entry built in the loop over the text rows once took the name of the panel's
    # predictor label, so every x axis read "goemotions / fine-tuned ..."
    summaries = [{column: 0.1 * k for column, *_ in rm.PREDICTORS} | {"held_out": k % 2, "diff": 0.01 * k}
                 for k in range(4)]  # fmt: skip
    table = [{"settings": "all", "predictor": column, "auc": 0.9, "auc_se": 0.02, "auc_se_boot": 0.03,
              "threshold": 0.15} for column, *_ in rm.PREDICTORS]  # fmt: skip
    rows = [_text_row("lsa", 0, i, 0.2, 0.1) for i in range(3)]
    rows += [_text_row("finetuned_heldout", k, i, 0.1 + 0.01 * k, 0.1, corpus)
             for corpus in ("carer", "goemotions") for k in (0, 1, 2) for i in range(3)]  # fmt: skip
    fig = rm.plot_predictors(summaries, table, rm.summarise_text(rows), tmp_path / "p.png", 20)
    assert (tmp_path / "p.png").is_file()
    axes = fig.axes[: len(rm.PREDICTORS)]
    assert [ax.get_xlabel() for ax in axes] == [label for _, label, *_ in rm.PREDICTORS]
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    for corpus in ("carer", "goemotions"):
        assert labels.count(f"{corpus} / fine-tuned, held out (H), seeds 0, 1, 2") == 1
    assert labels.count("carer / lsa") == 1
    # every seed is drawn: three stars per corpus in each panel
    stars = [line for line in axes[0].get_lines() if line.get_marker() == "*"]
    assert len(stars) == 6


# ------------------------------------------------------------------ the package's public API
def test_share_is_the_confusion_share_and_refuses_bad_counts():
    n_total = 5 * rm.N_PER_CLASS
    for n in rm.FACTORS["n_confusion"].grid:
        assert rm.share(n) == n / (n_total + n)
    assert rm.share(0) == 0.0
    assert all(np.diff([rm.share(n) for n in rm.FACTORS["n_confusion"].grid]) > 0)
    with pytest.raises(ValueError, match="n_confusion"):
        rm.share(-1)
    with pytest.raises(TypeError, match="n_confusion"):
        rm.share(2000.5)


def test_config_of_builds_the_setting_and_refuses_bad_ones():
    config, sigma = rm.config_of((3.0, 1.5, 0.25, 4000, 0.5))
    assert sigma == 3.0
    assert (config.n_per_class, config.n_confusion) == (rm.N_PER_CLASS, 4000)
    assert (config.confusion_radius_ratio, config.confusion_shift, config.confusion_label_bias) == (1.5, 0.25, 0.5)
    with pytest.raises(TypeError, match="setting must be a sequence"):
        rm.config_of((3.0, 1.5, 0.25, 4000))
    with pytest.raises(ValueError, match="sigma"):
        rm.config_of((-1.0, 1.5, 0.25, 4000, 0.5))
    with pytest.raises(ValueError, match="confusion_shift"):
        rm.config_of((3.0, 1.5, 1.25, 4000, 0.5))
    with pytest.raises(TypeError, match="n_confusion"):
        rm.config_of((3.0, 1.5, 0.25, 4000.5, 0.5))


def test_measure_cell_is_the_sweeps_evaluation_at_another_geometry():
    # the map's selective risks are those of the sweep's own cell (run_cell) on the same data,
    # bit for bit: the same rejectors, the same "at GCUL's coverage"
    from simulations.sweep.cell import run_cell

    setting = (2.0, 1.5, 0.25, 1000, 0.5)
    ours = rm.measure_cell(setting, 11)
    config, sigma = rm.config_of(setting)
    sweep = run_cell(11, sigma, config)
    for name in ("gcul", "msp", "bayes"):
        assert ours[f"risk_{name}"] == sweep[f"sel_risk_{name}"], name
    assert 0.0 < ours["coverage"] <= 1.0
    assert {column for column, *_ in rm.PREDICTORS} <= set(ours)


def test_measure_settings_is_setting_task_in_order_and_refuses_bad_inputs():
    setting_list = [(0.0, 1.0, 0.0, 250, 0.0), (1.0, 1.0, 0.0, 250, 0.0)]
    rows, cpu = rm.measure_settings(setting_list, (10,), jobs=1)
    assert cpu > 0.0
    assert [(r["setting"], r["seed"], r["sigma"]) for r in rows] == [(0, 10, 0.0), (1, 10, 1.0)]
    index, again, _ = rm.setting_task(1, setting_list[1], (10,))
    assert index == 1 and again == rows[1:]
    assert rows[0]["share"] == rm.share(250)
    with pytest.raises(ValueError, match="jobs"):
        rm.measure_settings(setting_list, (10,), jobs=0)
    with pytest.raises(ValueError, match="seeds"):
        rm.measure_settings(setting_list, (), jobs=1)


def _cell_rows(setting_list, seeds, diff_of):
    """Rows of every setting × seed: R_MSP 0.1, R_GCUL 0.1 + diff_of(k, j), R_Bayes 0.05."""
    rows = []
    for k, setting in enumerate(setting_list):
        for j, seed in enumerate(seeds):
            row = {"setting": k, **dict(zip(rm.NAMES, setting, strict=True)), "share": 0.0, "seed": seed}
            row |= {"coverage": 0.9, "risk_gcul": 0.1 + diff_of(k, j), "risk_msp": 0.1, "risk_bayes": 0.05}
            rows.append(row | {column: float(k) for column, *_ in rm.PREDICTORS})
    return rows


def test_summarise_settings_pairs_the_seeds_and_halves_the_settings():
    setting_list = rm.settings()[:9]
    rows = _cell_rows(setting_list, range(4), lambda k, j: 0.01 * (k - 4) + 0.001 * j)
    summaries = rm.summarise_settings(rows, setting_list)
    for k, s in enumerate(summaries):
        assert s["diff"] == pytest.approx(0.01 * (k - 4) + 0.0015, abs=1e-15)  # mean of j/1000
        assert s["seeds"] == s["seeds_compared"] == 4
        assert s["delta_s_eq"] == float(k)
        # R_MSP − R_Bayes = 0.05 and GCUL − MSP = diff: the share recovered is −diff / 0.05
        assert s["gap_share"] == pytest.approx(-s["diff"] / 0.05, rel=1e-12)
    assert sum(s["held_out"] for s in summaries) == 9 - 9 // 2
    with pytest.raises(ValueError, match="every setting"):
        rm.summarise_settings(rows[:-4], setting_list)  # the last setting has no row


def test_phase_diagrams_run_holm_per_diagram_and_mark_the_settings():
    setting_list = rm.settings()
    summaries = [
        {**dict(zip(rm.NAMES, s, strict=True)), "diff": 0.01, "diff_se": 0.001, "p_value": 1.0}
        for s in setting_list
    ]
    target = (8.0, 3.0, 0.0, 2000, 0.0)  # σ × a only
    summaries[setting_list.index(target)]["p_value"] = 1e-9
    diagrams = rm.phase_diagrams(summaries)
    assert [d["pair"] for d in diagrams] == list(rm.PAIRS)
    assert [int(d["significant"].sum()) for d in diagrams] == [1, 0, 0, 0, 0, 0]
    assert [s["significant_any"] for s in summaries].count(1) == 1
    assert summaries[setting_list.index(target)]["significant_any"] == 1
    summaries[setting_list.index(target)]["p_value"] = 1.0
    rm.phase_diagrams(summaries)  # marks are recomputed, not accumulated
    assert not any(s["significant_any"] for s in summaries)
    with pytest.raises(ValueError, match="two different factors"):
        rm.diagram(summaries, ("sigma", "sigma"))
    with pytest.raises(ValueError, match="lack the setting"):
        rm.diagram(summaries[1:], rm.PAIRS[0])


def test_predictor_table_and_bootstrap_refuse_what_they_cannot_read():
    with pytest.raises(ValueError, match="phase_diagrams first"):
        rm.predictor_table([{"diff": 0.1, "held_out": 0, "sigma": 4.0}])
    rows, summaries, table = _bootstrap_inputs(lambda k, j: 0.0)
    with pytest.raises(ValueError, match="n_boot"):
        rm.add_bootstrap_se(rows, summaries, table, n_boot=0)
    with pytest.raises(ValueError, match="no summary"):
        rm.add_bootstrap_se(rows, summaries[1:], table, n_boot=2)


def test_place_on_sigma_interpolates_on_the_grid_and_says_when_it_is_off():
    points = ((0.0, 0.1, -0.01), (1.0, 0.2, 0.0), (2.0, 0.3, 0.02))  # σ, ε, GCUL − MSP
    axis = [{"sigma": s, "eps_train": e, "diff": d} for s, e, d in points]
    assert rm.place_on_sigma(axis, 0.15) == ("0.5", pytest.approx(-0.005, abs=1e-15))
    assert rm.place_on_sigma(axis, 0.25) == ("1.5", pytest.approx(0.01, abs=1e-15))
    assert rm.place_on_sigma(axis, 0.05) == ("< 0", -0.01)
    assert rm.place_on_sigma(axis, 0.5) == ("> 2", 0.02)
    flat = [dict(r, eps_train=0.2) for r in axis]  # ε not increasing in σ: no interpolation
    hat, predicted = rm.place_on_sigma(flat, 0.2)
    assert hat == "—" and math.isnan(predicted)
    with pytest.raises(ValueError, match="eps"):
        rm.place_on_sigma(axis, 1.5)
    with pytest.raises(ValueError, match="at least one"):
        rm.place_on_sigma([], 0.2)
    # the σ axis: the default geometry's settings, one per σ, sorted
    summaries = [{**dict(zip(rm.NAMES, s, strict=True))} for s in rm.settings()]
    sigmas = [s["sigma"] for s in rm.sigma_axis(summaries[::-1])]
    assert sigmas == list(rm.FACTORS["sigma"].grid)


def test_says_gcul_follows_the_orientation_strictly():
    higher = {"orientation": "higher = GCUL better", "threshold": 0.5}
    lower = {"orientation": "lower = GCUL better", "threshold": 0.5}
    assert rm.says_gcul(higher, 0.6) and not rm.says_gcul(higher, 0.5) and not rm.says_gcul(higher, 0.4)
    assert rm.says_gcul(lower, 0.4) and not rm.says_gcul(lower, 0.5) and not rm.says_gcul(lower, 0.6)


def test_csv_files_round_trip_and_rewrite_to_the_same_bytes(tmp_path):
    rows = [{"setting": 0, "name": "lsa", "x": 0.1 + 0.2, "y": math.nan, "z": np.float64(1e-17)},
            {"setting": 1, "name": "finetuned_heldout", "x": -3.0, "y": 2.5, "z": 7.0}]  # fmt: skip
    path = tmp_path / "rows.csv"
    rm.write_csv(path, rows)
    back = rm.read_csv(path)
    assert back[0]["x"] == 0.1 + 0.2 and math.isnan(back[0]["y"]) and back[0]["z"] == 1e-17
    assert back[1] == {"setting": 1, "name": "finetuned_heldout", "x": -3.0, "y": 2.5, "z": 7.0}
    first = path.read_bytes()
    rm.write_csv(path, back)
    assert path.read_bytes() == first
    with pytest.raises(ValueError, match="at least one row"):
        rm.write_csv(tmp_path / "empty.csv", [])


def test_text_functions_refuse_empty_or_bad_inputs(tmp_path):
    with pytest.raises(ValueError, match="jobs"):
        rm.text_rows(tmp_path, None, 0)
    with pytest.raises(ValueError, match="at least one text row"):
        rm.summarise_text([])
    with pytest.raises(ValueError, match="no folder of"):
        rm.finetuned_inputs(tmp_path, tmp_path)
    assert rm.text_label({"representation": "finetuned_heldout", "seed": 2}) == "finetuned_heldout, seed 2"
    assert rm.text_label({"representation": "lsa", "seed": 0}) == "lsa"


def test_the_package_imports_without_pyplot_or_a_display():
    import subprocess

    code = ("import sys, simulations.regime_map; "
            "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot imported'")  # fmt: skip
    env = {k: v for k, v in __import__("os").environ.items() if k not in ("DISPLAY", "MPLBACKEND")}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
