"""The sweep's selective-classification columns (simulations.rejectors.evaluate)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import gcul_theory
from simulations.gcul import GCUL
from simulations.rejectors import RejectorContext
from simulations.rejectors.evaluate import (
    EVALUATION_COLUMNS,
    NULLABLE_COLUMNS,
    REJECTOR_NAMES,
    CellScores,
    evaluate_cell,
    evaluation_columns,
    evaluation_seed,
    score_cell,
    score_rejectors,
)
from simulations.results import ROW_COLUMNS, check_row, read_csv, write_csv
from simulations.sweep.cell import run_cell
from simulations.synthetic import SyntheticConfig, make_dataset, mixture

SMALL = SyntheticConfig(n_per_class=400, n_confusion=400)
TINY = SyntheticConfig(n_per_class=150, n_confusion=150)


# --------------------------------------------------------------------------------------------
# Bayes is the floor: a one-sided Hoeffding bound, exact on iid test draws


def _iid_test_split(law, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """n iid (x, y) from the mixture ``law`` (simulations.synthetic.mixture's model)."""
    n_classes, dim = law.centers.shape
    weights = np.array([law.n_per_class] * n_classes + [law.n_confusion], dtype=float)
    component = rng.choice(n_classes + 1, size=n, p=weights / weights.sum())
    centres = np.vstack([law.centers, law.confusion_center])
    X = centres[component] + law.spread * rng.standard_normal((n, dim))
    y = np.where(component < n_classes, component, rng.integers(0, n_classes, size=n))
    return X, y


def _inclusion(scores: np.ndarray, m: int) -> np.ndarray:
    """Weight of each sample in "the m highest scores" under random tie-breaking (the expected
    value gcul_theory.selective_risk_at_coverage computes): 1 above the cut, (m - c)/s in the
    group of s tied at the cut with c above it, 0 below."""
    cut = np.sort(scores)[::-1][m - 1]
    above = scores > cut
    tied = scores == cut
    weight = above.astype(float)
    weight[tied] = (m - np.count_nonzero(above)) / np.count_nonzero(tied)
    return weight


def _floor_margin(cell: CellScores, name: str, delta: float) -> tuple[float, float]:
    """``(D, t)``: D = sel_risk_r - sel_risk_bayes at GCUL's accepted count m, and the
    one-sided Hoeffding threshold t with P(D < -t | X_test, training split) <= delta.

    Given the training split and the test features, the test labels are independent (iid draws)
    with the mixture's posterior, so D - E[D] is a sum of independent terms
    (q_i w_ri - p_i w_bi)/m, q and p the inclusion weights, w the wrong indicators. A term's range
    is |q_i - p_i|/m where both predict the same label (w_ri = w_bi), (q_i + p_i)/m otherwise.
    E[D] >= 0: the Bayes classifier's error probability 1 - max P is the least of any
    prediction, and its m least values are what the Bayes ranking accepts. Hoeffding:
    P(D - E[D] <= -t) <= exp(-2 t^2 / sum(range^2)).
    """
    m = cell.n_accept
    q = cell.gcul_accept.astype(float) if name == "gcul" else _inclusion(cell.scores[name], m)
    p = _inclusion(cell.scores["bayes"], m)
    same = cell.labels[name] == cell.labels["bayes"]
    ranges = np.where(same, np.abs(q - p), q + p) / m
    risk_r = (
        np.count_nonzero(cell.wrong["gcul"] & cell.gcul_accept) / m
        if name == "gcul"
        else gcul_theory.selective_risk_at_coverage(cell.scores[name], cell.wrong[name], m)
    )
    risk_b = gcul_theory.selective_risk_at_coverage(cell.scores["bayes"], cell.wrong["bayes"], m)
    t = math.sqrt(math.log(1.0 / delta) * float(np.sum(ranges**2)) / 2.0)
    return float(risk_r - risk_b), t


def _bayes_floor_cells():
    """Cells of seeds 10, 11 at σ in {2, 6, 12} (one per band), scored on 3,000 iid test draws."""
    cells = []
    for seed in (10, 11):
        for noise in (2.0, 6.0, 12.0):
            data = make_dataset(seed, noise, SMALL)
            model = GCUL().fit(data.X_train, data.y_train)
            law = mixture(seed, noise, SMALL)
            rng = np.random.default_rng(np.random.SeedSequence([seed, 1605]))
            X, y = _iid_test_split(law, 3000, rng)
            context = RejectorContext(
                data.X_train, data.y_train, model, seed=evaluation_seed(seed), mixture=law
            )
            cells.append(score_rejectors(context, X, y))
    return cells


# 6 cells x 7 rejectors = 42 one-sided checks; each at delta = 2e-9: the suite's false-failure
# probability is at most 42 * 2e-9 < 1e-7 (union bound), given iid test draws.
_DELTA = 2e-9


@pytest.fixture(scope="module")
def floor_cells():
    return _bayes_floor_cells()


def test_bayes_selective_risk_is_the_floor_of_every_rejector(floor_cells) -> None:
    for cell in floor_cells:
        assert 0 < cell.n_accept < cell.gcul_accept.size
        for name in REJECTOR_NAMES:
            if name == "bayes":
                continue
            gap, threshold = _floor_margin(cell, name, _DELTA)
            assert gap >= -threshold, (name, gap, threshold)


def test_the_floor_check_catches_a_wrong_posterior(floor_cells) -> None:
    # Power: a "Bayes" that ranks by the wrong end of its posterior (the least confident first)
    # must break the bound against MSP in some cell, else the check above could not fail.
    broken = []
    for cell in floor_cells:
        worse = dataclasses.replace(cell, scores={**cell.scores, "bayes": -cell.scores["bayes"]})
        gap, threshold = _floor_margin(worse, "msp", _DELTA)
        broken.append(gap < -threshold)
    assert any(broken)


# --------------------------------------------------------------------------------------------
# The columns


@pytest.fixture(scope="module")
def tiny_cell():
    data = make_dataset(12, 6.0, TINY)
    model = GCUL().fit(data.X_train, data.y_train)
    return data, model, score_cell(data, model, 12)


def test_gcul_zero_threshold_is_its_accept_set_and_its_selective_risk(tiny_cell) -> None:
    data, model, cell = tiny_cell
    accept = model.predict(data.X_test) != model.n_classes_
    assert np.array_equal(cell.gcul_accept, accept)
    assert np.array_equal(cell.scores["gcul"] >= 0.0, accept)
    m = int(np.count_nonzero(accept))
    columns = evaluation_columns(cell)
    own = np.count_nonzero(model.predict(data.X_test)[accept] != data.y_test[accept]) / m
    assert columns["sel_risk_gcul"] == own
    ranked = gcul_theory.selective_risk_at_coverage(cell.scores["gcul"], cell.wrong["gcul"], m)
    assert columns["sel_risk_gcul"] == ranked


def test_columns_match_the_metrics_and_chow(tiny_cell) -> None:
    data, model, cell = tiny_cell
    columns = evaluation_columns(cell)
    assert list(columns) == list(EVALUATION_COLUMNS)
    m, n = cell.n_accept, data.y_test.size
    for name in REJECTOR_NAMES:
        assert columns[f"aurc_{name}"] == gcul_theory.aurc(cell.scores[name], cell.wrong[name])
        if name != "gcul":
            assert columns[f"sel_risk_{name}"] == gcul_theory.selective_risk_at_coverage(
                cell.scores[name], cell.wrong[name], m
            )
    p_max = np.exp(cell.scores["msp"])  # msp's score is log max softmax
    accept = cell.chow_accept["msp"]
    assert np.array_equal(accept, p_max >= 0.85) or np.sum(accept != (p_max >= 0.85)) <= 1
    eps = np.count_nonzero(cell.wrong["msp"]) / n
    k = int(np.count_nonzero(accept))
    eps_sel = np.count_nonzero(cell.wrong["msp"] & accept) / k if k else 0.0
    rho = 1 - k / n
    assert columns["coverage_chow_msp"] == k / n
    # three roundings in each: 4 ulps of values at most 1
    assert columns["u_chow_msp"] == pytest.approx(eps - eps_sel - 0.15 * rho, abs=1e-15)
    assert columns["ujoint_chow_msp"] == pytest.approx(
        eps - (1 - rho) * eps_sel - 0.15 * rho, abs=1e-15
    )


@pytest.mark.parametrize("seed", [0, 1])
def test_columns_are_the_metrics_bit_for_bit_with_ties_at_every_coverage(seed) -> None:
    # evaluation_columns reads both columns of a rejector off one risk-coverage curve: each must
    # be gcul_theory's own function, bit for bit, at every accepted count (scores with many ties)
    rng = np.random.default_rng(seed)
    n = 60
    scores = {name: rng.integers(0, 6, n).astype(float) for name in REJECTOR_NAMES}
    wrong = {name: rng.random(n) < 0.3 for name in REJECTOR_NAMES}
    base_wrong = rng.random(n) < 0.3
    for m in range(1, n + 1):
        accept = np.zeros(n, dtype=bool)
        accept[rng.permutation(n)[:m]] = True
        chow = {name: rng.random(n) < 0.5 for name in ("msp", "bayes")}
        cell = CellScores(scores, scores, wrong, accept, base_wrong, chow, 0.15)
        columns = evaluation_columns(cell)
        for name in REJECTOR_NAMES:
            aurc = gcul_theory.aurc(scores[name], wrong[name])
            assert columns[f"aurc_{name}"].hex() == aurc.hex(), (name, m)
            if name != "gcul":
                risk = gcul_theory.selective_risk_at_coverage(scores[name], wrong[name], m)
                assert columns[f"sel_risk_{name}"].hex() == risk.hex(), (name, m)


def test_row_is_deterministic_and_carries_every_column() -> None:
    first = run_cell(13, 8.0, TINY)
    assert first == run_cell(13, 8.0, TINY)
    assert set(EVALUATION_COLUMNS) <= set(first) and list(first) == list(ROW_COLUMNS)
    data = make_dataset(13, 8.0, TINY)
    model = GCUL().fit(data.X_train, data.y_train)
    assert evaluate_cell(data, model, 13) == {c: first[c] for c in EVALUATION_COLUMNS}


def test_the_bayes_rejector_reads_the_mixture_of_the_cells_data(tiny_cell) -> None:
    # evaluate_cell took (data, model, seed, noise, config) and rebuilt the mixture from them;
    # the law is data.mixture now: another law there gives other Bayes scores, nothing else moves
    data, model, cell = tiny_cell
    other = data._replace(mixture=mixture(12, 2.0, TINY))
    moved = score_cell(other, model, 12)
    assert not np.array_equal(moved.scores["bayes"], cell.scores["bayes"])
    for name in cell.scores.keys() - {"bayes"}:
        np.testing.assert_array_equal(moved.scores[name], cell.scores[name], err_msg=name)


def test_the_former_arguments_and_a_dataset_without_its_law_are_one_line_errors(
    tiny_cell,
) -> None:
    data, model, _ = tiny_cell
    hint = r"no longer takes noise or config; .* data\.mixture .*: pass \(data, model, seed\)$"
    with pytest.raises(TypeError, match=r"^evaluate_cell\(\) " + hint):
        evaluate_cell(data, model, 12, 6.0, TINY)
    with pytest.raises(TypeError, match=r"^score_cell\(\) " + hint):
        score_cell(data, model, 12, config=TINY)
    with pytest.raises(ValueError, match=r"^data\.mixture is None: .*\.make_dataset\(seed, noise"):
        evaluate_cell(data._replace(mixture=None), model, 12)
    with pytest.raises(TypeError, match=r"^data must be a simulations\.synthetic\.Dataset; got"):
        score_cell(tuple(data), model, 12)


def _edge_cell(accept_all: bool) -> CellScores:
    rng = np.random.default_rng(5)
    n = 40
    names = [name for name in REJECTOR_NAMES if not (name == "selectivenet" and not accept_all)]
    return CellScores(
        scores={name: rng.standard_normal(n) for name in names},
        labels={name: rng.integers(0, 3, n) for name in names},
        wrong={name: rng.random(n) < 0.3 for name in names},
        gcul_accept=np.full(n, accept_all),
        base_wrong=rng.random(n) < 0.3,
        chow_accept={"msp": rng.random(n) < 0.5, "bayes": np.zeros(n, dtype=bool)},
        lam=0.15,
    )


def test_gcul_accepting_nothing_gives_nan_risks_and_a_valid_row() -> None:
    columns = evaluation_columns(_edge_cell(accept_all=False))
    assert {c for c, v in columns.items() if math.isnan(v)} == set(NULLABLE_COLUMNS)
    # Chow's rule accepting nothing: both utilities are eps - lam
    eps = np.count_nonzero(_edge_cell(False).wrong["bayes"]) / 40
    assert columns["u_chow_bayes"] == columns["ujoint_chow_bayes"] == pytest.approx(eps - 0.15)
    row = run_cell(10, 2.0, TINY) | columns | {"rejection_rate": 1.0, "lambda_emp": 0.0}
    checked = check_row(row)
    assert math.isnan(checked["sel_risk_gcul"])
    with pytest.raises(ValueError, match="only when GCUL accepts nothing"):
        check_row(row | {"rejection_rate": 0.5})
    with pytest.raises(ValueError, match="must be NaN when GCUL accepts nothing"):
        check_row(row | {"sel_risk_msp": 0.2})


def test_gcul_accepting_everything_compares_classifiers() -> None:
    cell = _edge_cell(accept_all=True)
    columns = evaluation_columns(cell)
    for name in REJECTOR_NAMES:
        assert columns[f"sel_risk_{name}"] == np.count_nonzero(cell.wrong[name]) / 40


def test_nan_rows_survive_the_csv_and_the_cache(tmp_path) -> None:
    from simulations.sweep.cache import CellCache

    row = check_row(
        run_cell(10, 2.0, TINY)
        | evaluation_columns(_edge_cell(False))
        | {"rejection_rate": 1.0, "lambda_emp": 0.0}
    )
    back = read_csv(write_csv([row], tmp_path / "r.csv"))[0]
    assert _same(back, row)
    cache = CellCache(tmp_path / "cache", TINY)
    (tmp_path / "cache").mkdir()
    cache.store(row, 1.0)
    loaded, seconds = cache.load(10, 2.0)
    assert seconds == 1.0 and _same(loaded, {**row, "level": -1})


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(
        (isinstance(a[k], float) and math.isnan(a[k]) and math.isnan(b[k])) or a[k] == b[k]
        for k in a
    )
