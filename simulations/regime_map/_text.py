"""The text corpora on the regime map: the training-split predictors of real data.

For every corpus × representation × split of the text benchmark (``benchmarks/text_emotion.py``:
the pooled corpora of :mod:`simulations.text.study`, the 5 stratified 80/20 splits of seed 0,
the same GCUL as its ``gcul compare`` run), :func:`text_rows` computes the predictors of
:func:`simulations.training_predictors.training_predictors` on the training part and GCUL − MSP
at GCUL's coverage on the test part; with a fine-tuned encoder (:func:`finetuned_inputs`), also
under that benchmark's held-out protocol (H), representation :data:`FT_REP`.
:func:`check_against_compare` checks each per-split risk against that benchmark's
``compare.csv``; :func:`summarise_text` and :func:`seed_spread` summarise the rows.
"""

from __future__ import annotations

import csv
import dataclasses
import math
import time
from pathlib import Path
from typing import Any

import numpy as np

import gcul_theory
from simulations.regime_map._grid import VALID
from simulations.regime_map._summaries import PREDICTORS
from simulations.text.study import (
    CORPORA,
    FINETUNED_SEEDS,
    SEED,
    TEST_SIZE,
    load_finetuned,
    load_pooled,
)
from simulations.training_predictors import training_predictors
from simulations.validation import check_int

__all__ = [
    "FT_REP",
    "CompareCheck",
    "check_against_compare",
    "finetuned_inputs",
    "seed_spread",
    "summarise_text",
    "text_label",
    "text_order",
    "text_rows",
    "text_task",
]


FT_REP = "finetuned_heldout"
"""The representation name of a fine-tuned encoder under the text benchmark's held-out protocol
(H), over ``gcul compare``'s splits of the rows the encoder never saw."""


def finetuned_inputs(folder: Path, root: Path) -> dict[str, list[tuple[int, np.ndarray, np.ndarray]]]:
    """The held-out rows of every fine-tuned seed found in ``folder/<corpus>/seed<k>/``.

    Each folder is read and checked as the text benchmark reads it
    (:func:`simulations.text.study.load_finetuned`: :func:`simulations.text.load_precomputed`'s
    format, and labels row for row equal to the corpus's own in ``root``); a corpus without a
    folder is left out.

    Parameters
    ----------
    folder : pathlib.Path
        The fine-tuned encoder's folder, ``folder/<corpus>/seed<k>/`` for the corpora of
        :data:`simulations.text.study.CORPORA` and the seeds of
        :data:`simulations.text.study.FINETUNED_SEEDS`.
    root : pathlib.Path
        The corpora's folder (``root/carer``, ``root/goemotions``).

    Returns
    -------
    dict
        Per corpus found, one ``(seed, Z, y)`` per fine-tuning seed: the rows the encoder never
        saw (validation + test, pooled, in file order), as protocol (H) of the text benchmark
        fits ``gcul compare`` on them.

    Raises
    ------
    ValueError
        In one line: a folder that breaks the format or whose labels are not the corpus's, or no
        ``<corpus>/`` folder at all.
    """
    found: dict[str, list[tuple[int, np.ndarray, np.ndarray]]] = {}
    for corpus in CORPORA:
        if not (folder / corpus).is_dir():
            continue
        found[corpus] = []
        for seed, data in load_finetuned(folder, corpus, root, list(FINETUNED_SEEDS)):
            held = data.rows("validation", "test")
            found[corpus].append((seed, data.embeddings[held], data.labels[held]))
    if not found:
        raise ValueError(f"{folder}: no folder of {' or '.join(CORPORA)} in it")
    return found


def text_rows(
    root: Path, cache: Path | None, jobs: int, finetuned: dict[str, list[tuple]] | None = None
) -> list[dict]:
    """The training-split predictors and GCUL − MSP of every corpus × representation × split of
    ``benchmarks/text_emotion.py``: its stand-ins (seed 0, the pooled corpus) and, with
    ``finetuned`` (from :func:`finetuned_inputs`), the fine-tuned encoder under protocol (H), one
    row per fine-tuning seed × split of the held-out rows (representation :data:`FT_REP`).

    Parameters
    ----------
    root : pathlib.Path
        The corpora's folder (:func:`simulations.text.study.load_pooled`).
    cache : pathlib.Path or None
        Where the stand-ins' representations are cached
        (:func:`simulations.text.representations.cached_representation`); None: not cached.
    jobs : int
        Worker processes (joblib's ``loky``); 1 runs in this process. The rows are the same.
    finetuned : dict, optional
        :func:`finetuned_inputs`' result.

    Returns
    -------
    list of dict
        :func:`text_task`'s rows: per corpus, every stand-in's 5 splits, then every fine-tuned
        seed's 5 splits.

    Raises
    ------
    TypeError, ValueError
        If ``jobs`` is not an integer of at least 1.
    """
    jobs = check_int("jobs", jobs, low=1)
    from simulations.compare import stratified_splits
    from simulations.text.representations import REPRESENTATIONS, cached_representation

    tasks = []
    for corpus in CORPORA:
        texts, y, _, _ = load_pooled(root, corpus)
        for method in REPRESENTATIONS:
            Z = cached_representation(
                method, texts, y, corpus=corpus, split="pooled", seed=SEED, cache_dir=cache
            )
            for i, (train, test) in enumerate(stratified_splits(y, 5, TEST_SIZE, SEED)):
                tasks.append((corpus, method, SEED, i, Z, y, train, test))
        for seed, Z, y_held in (finetuned or {}).get(corpus, []):
            for i, (train, test) in enumerate(stratified_splits(y_held, 5, TEST_SIZE, SEED)):
                tasks.append((corpus, FT_REP, seed, i, Z, y_held, train, test))
    if jobs > 1:
        from joblib import Parallel, delayed

        rows = Parallel(n_jobs=jobs, backend="loky")(delayed(text_task)(*t) for t in tasks)
    else:
        rows = [text_task(*t) for t in tasks]
    return rows


def text_task(corpus, method, seed, split, Z, y, train, test) -> dict:
    """One corpus × representation × seed × split, as ``simulations.compare`` fits and scores it.

    Parameters
    ----------
    corpus, method : str
        The corpus and the representation's name (row labels only).
    seed : int
        The fine-tuning seed (0 for the stand-ins; a row label).
    split : int
        The split's index (a row label).
    Z : ndarray of shape (n, d)
        The representation of every row.
    y : ndarray of shape (n,)
        The labels.
    train, test : ndarray of int
        The split's training and test rows.

    Returns
    -------
    dict
        ``corpus``, ``representation``, ``seed``, ``split``, ``n_features``, ``coverage`` (of
        GCUL on the test part), ``risk_gcul``, ``risk_msp`` (MSP's selective risk at GCUL's
        coverage, ties by their expected value; NaN when GCUL accepts nothing), the predictors
        of :func:`simulations.training_predictors.training_predictors` on the training part,
        and ``cpu_seconds``.
    """
    from simulations.gcul import GCUL
    from simulations.models import single_threaded_blas
    from simulations.rejectors import RejectorContext
    from simulations.rejectors.evaluate import score_rejectors

    start = time.process_time()
    with single_threaded_blas():
        X_train, X_test = (
            np.ascontiguousarray(Z[train], float),
            np.ascontiguousarray(Z[test], float),
        )
        model = GCUL().fit(X_train, y[train])
        context = RejectorContext(X_train, y[train], model, seed=np.random.SeedSequence(0))
        cell = score_rejectors(context, X_test, y[test], names=("gcul", "msp"))
        m = cell.n_accept
        risk_gcul = np.count_nonzero(cell.wrong["gcul"] & cell.gcul_accept) / m if m else math.nan
        risk_msp = float(
            gcul_theory.selective_risk_at_coverage(cell.scores["msp"], cell.wrong["msp"], m)
        )
        predictors = training_predictors(model, X_train, y[train], VALID)
    return {
        "corpus": corpus, "representation": method, "seed": int(seed), "split": split,
        "n_features": int(Z.shape[1]), "coverage": m / y[test].size,
        "risk_gcul": risk_gcul, "risk_msp": risk_msp if m else math.nan,
        **predictors, "cpu_seconds": time.process_time() - start,
    }  # fmt: skip


@dataclasses.dataclass(frozen=True)
class CompareCheck:
    """Our per-split selective risks against the text benchmark's ``compare.csv``.

    Attributes
    ----------
    by_representation : dict
        Per representation found there, ``(largest absolute difference, number of risks compared)``.
    absent : int
        Risks of ours with no row there (a representation or seed that file does not have, or
        no file), skipped and counted.
    absent_from : tuple of str
        Their representations, in order of first appearance.
    """

    by_representation: dict[str, tuple[float, int]]
    absent: int
    absent_from: tuple[str, ...] = ()

    @property
    def worst(self) -> float:
        """The largest absolute difference over every risk compared (NaN if none was)."""
        return max((w for w, _ in self.by_representation.values()), default=math.nan)

    @property
    def checked(self) -> int:
        """How many risks were compared."""
        return sum(n for _, n in self.by_representation.values())

    def text(self) -> str:
        """One clause for the report: the representations that agree exactly together, each
        other one with its largest difference (a file from another run of that benchmark
        shows here, representation by representation)."""
        if not self.checked:
            return (f"not checked against that benchmark's `compare.csv` (none of the "
                    f"{self.absent} per-split risks is there, or no such file)")  # fmt: skip
        same = [m for m, (w, _) in self.by_representation.items() if w == 0.0]
        parts = []
        if same:
            n = sum(self.by_representation[m][1] for m in same)
            parts.append(f"0 (equal) for {', '.join(same)} ({n} risks)")
        parts += [f"{w:.3g} for {m} ({n} risks)" for m, (w, n) in self.by_representation.items()
                  if w != 0.0]  # fmt: skip
        clause = ("largest deviation of the per-split selective risks (GCUL's and MSP's) from "
                  f"that benchmark's `compare.csv`: {'; '.join(parts)}")  # fmt: skip
        if self.absent:
            clause += (f"; {self.absent} per-split risks are not in it "
                       f"({', '.join(self.absent_from)}; not checked)")  # fmt: skip
        return clause


def check_against_compare(rows: list[dict], compare_csv: Path) -> CompareCheck:
    """Compare our per-split GCUL and MSP selective risks with the text benchmark's
    ``compare.csv``, matched on corpus, representation, split, rejector and, where that file has
    a ``seed`` column, the fine-tuning seed (without one, every row is seed 0, the stand-ins').

    Parameters
    ----------
    rows : list of dict
        :func:`text_rows`' rows (or ``text.csv`` read back).
    compare_csv : pathlib.Path
        The text benchmark's ``compare.csv``; a missing file checks nothing (every risk counted
        as absent).

    Returns
    -------
    CompareCheck
        The largest absolute difference and the number of risks compared, per representation, and the
        risks with no row there. Two NaN risks (no accepted sample in either) agree.
    """
    ours = {
        (r["corpus"], r["representation"], int(r.get("seed", 0)), int(r["split"]), name): r[f"risk_{name}"]
        for r in rows
        for name in ("gcul", "msp")
    }
    if not compare_csv.is_file():
        return CompareCheck({}, len(ours), tuple(dict.fromkeys(k[1] for k in ours)))
    with compare_csv.open(encoding="utf-8") as handle:
        theirs = {
            (r["corpus"], r["representation"], int(r.get("seed") or 0), int(r["split"]),
             r["rejector"]): float(r["sel_risk"])
            for r in csv.DictReader(handle)
        }  # fmt: skip
    found: dict[str, tuple[float, int]] = {}
    for key, value in ours.items():
        if key in theirs:
            both_nan = math.isnan(value) and math.isnan(theirs[key])  # no accepted sample in either
            gap = 0.0 if both_nan else abs(theirs[key] - value)
            worst, n = found.get(key[1], (0.0, 0))
            found[key[1]] = (max(worst, math.inf if math.isnan(gap) else gap), n + 1)
    missing = [k for k in ours if k not in theirs]
    return CompareCheck(found, len(missing), tuple(dict.fromkeys(k[1] for k in missing)))


def text_order(row: dict) -> tuple:
    """The report's sort key of a text row: by corpus; within it, the stand-ins first (by name),
    then the fine-tuned rows (:data:`FT_REP`), by seed.

    Parameters
    ----------
    row : dict
        A row with ``corpus``, ``representation`` and (optionally, default 0) ``seed``.

    Returns
    -------
    tuple
        The key.
    """
    return (row["corpus"], row["representation"] == FT_REP, row["representation"], row.get("seed", 0))


def text_label(row: dict) -> str:
    """The representation as the report names it: a fine-tuned row with its seed.

    Parameters
    ----------
    row : dict
        A row with ``representation`` (and ``seed`` if it is :data:`FT_REP`).

    Returns
    -------
    str
        ``"finetuned_heldout, seed 1"`` for a fine-tuned row, else the representation.
    """
    if row["representation"] == FT_REP:
        return f"{FT_REP}, seed {row['seed']}"
    return row["representation"]


def summarise_text(rows: list[dict]) -> list[dict]:
    """Mean over splits per corpus × representation × fine-tuning seed (the stand-ins have seed
    0); SE of GCUL − MSP by Nadeau & Bengio's correction (the splits overlap, as in
    ``benchmarks/text_emotion.py``). Each fine-tuning seed is its own row: the report gives the
    spread across seeds beside them (:func:`seed_spread`).

    Parameters
    ----------
    rows : list of dict
        :func:`text_rows`' rows (or ``text.csv`` read back), at least one.

    Returns
    -------
    list of dict
        Per corpus × representation × seed, in :func:`text_order`: ``corpus``,
        ``representation``, ``seed``, ``diff`` (mean of GCUL − MSP over the splits) ±
        ``diff_se`` (:func:`simulations.statistics.estimate`, test/train ratio 0.25), the mean
        ``coverage`` and each predictor's mean.

    Raises
    ------
    ValueError
        If ``rows`` is empty.
    """
    if not rows:
        raise ValueError("rows must hold at least one text row; got none")
    from simulations.compare import estimate

    out = []
    keys = sorted({(r["corpus"], r["representation"], r.get("seed", 0)) for r in rows})
    for corpus, method, seed in keys:
        key = (corpus, method, seed)
        block = [r for r in rows if (r["corpus"], r["representation"], r.get("seed", 0)) == key]
        diffs = [r["risk_gcul"] - r["risk_msp"] for r in block]
        e = estimate(diffs, 0.25)  # test/train = 0.2/0.8
        summary = {"corpus": corpus, "representation": method, "seed": seed, "diff": e.mean,
                   "diff_se": e.se, "coverage": float(np.mean([r["coverage"] for r in block]))}  # fmt: skip
        for column, *_ in PREDICTORS:
            summary[column] = float(np.mean([r[column] for r in block]))
        out.append(summary)
    return sorted(out, key=text_order)


def seed_spread(summary: list[dict]) -> list[dict]:
    """Per corpus × representation with more than one seed: the seeds, and the mean, smallest
    and largest seed mean of GCUL − MSP and of every predictor.

    Parameters
    ----------
    summary : list of dict
        :func:`summarise_text`' rows.

    Returns
    -------
    list of dict
        ``corpus``, ``representation``, ``seeds`` (the list), then for ``diff``, ``coverage``
        and every predictor a tuple ``(mean, smallest, largest)`` over the seeds.
    """
    out = []
    for corpus, method in dict.fromkeys((t["corpus"], t["representation"]) for t in summary):
        block = [t for t in summary if (t["corpus"], t["representation"]) == (corpus, method)]
        if len(block) < 2:
            continue
        row: dict[str, Any] = {"corpus": corpus, "representation": method,
                               "seeds": [t["seed"] for t in block]}  # fmt: skip
        for column in ("diff", "coverage", *(c for c, *_ in PREDICTORS)):
            values = [t[column] for t in block]
            row[column] = (float(np.mean(values)), min(values), max(values))
        out.append(row)
    return out
