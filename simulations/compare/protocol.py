"""The protocol of :func:`simulations.compare.compare`: check the data, fit GCUL and every rejector
on each split, measure them on its test part, and draw the guarantee from a calibration split."""

from __future__ import annotations

import contextlib
import math
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

import gcul_theory
from simulations import registry
from simulations.compare.cache import SPLIT_LOCK, SplitCache, data_fingerprint, is_split_name
from simulations.compare.result import CompareResult, Guarantee, RejectorSummary
from simulations._error_pool import phase1_regime, regime_suggestions
from simulations.compare.settings import (
    DEFAULT_CALIBRATION,
    DEFAULT_TEST_SIZE,
    MAX_SPLITS,
    CompareSettings,
)
from simulations.statistics import DEFAULT_LEVEL, estimate, stratified_splits, verdict
from simulations.sweep.backends import SweepError, resolve_n_jobs
from simulations.sweep.progress import format_seconds
from simulations.validation import Hook, OrNone, check_embeddings

__all__ = ["DEFAULT_CALIBRATION", "DEFAULT_TEST_SIZE", "MAX_SPLITS", "compare"]



# --------------------------------------------------------------------------------------------
# The comparison


def compare(
    Z: Any,
    y: Any,
    lam: float = 0.15,
    splits: int = 10,
    seed: int = 0,
    test_size: float = DEFAULT_TEST_SIZE,
    delta: float = 0.05,
    *,
    calibration: float = DEFAULT_CALIBRATION,
    target_risk: float | None = None,
    level: float = DEFAULT_LEVEL,
    y_fit: Any = None,
    error_pool: str = "in_sample",
    standardize: bool = False,
    progress: Callable[[str], None] | None = None,
    names: Mapping[str, str] | None = None,
    n_jobs: int = 1,
    cache_dir: str | os.PathLike[str] | None = None,
    keep_cache: bool = True,
) -> CompareResult:
    r"""Compare GCUL's rejection with every baseline rejector on ``(Z, y)``, over stratified splits.

    Parameters
    ----------
    Z : array_like of shape (N, d)
        Embeddings, finite real numbers.
    y : array_like of shape (N,)
        Labels, integers 0..C-1, every class present with at least 2 rows, C >= 2.
    lam : float, default 0.15
        Relative rejection cost λ in [0, 1): Chow's rule for MSP, U and U_joint.
    splits : int, default 10
        Number of stratified train/test splits, 1..:data:`MAX_SPLITS`.
    seed : int, default 0
        Seed of the splits, the rejectors' random draws and the calibration split, in
        ``[0, 2**32)``.
    test_size : float, default 0.3
        Share of every class in the test part, in (0, 1).
    delta : float, default 0.05
        Risk of the guarantee's bounds, in (0, 1).
    calibration : float, default 0.3
        Share of the rows held out at random to calibrate the guarantee, in (0, 1).
    target_risk : float, optional
        SGR's target selective risk for MSP, in (0, 1). Default: GCUL's selective risk on the
        tuning rows (chosen before the calibration rows are seen, so SGR's guarantee holds).
    level : float, default 0.05
        Two-sided level of the verdicts' test (:func:`verdict`), in (0, 1).
    y_fit : array_like of shape (N,), optional
        Labels the models are fitted on and the splits stratified by, when they differ from the
        labels ``y`` that the test, tuning and calibration rows are scored against (e.g. noisy
        observed labels and the clean truth, as in ``benchmarks/real_data.py``); the same
        classes 0..C-1 as ``y``. Default: ``y``.
    error_pool : {"in_sample", "out_of_fold"}, default "in_sample"
        GCUL's phase-1 error pool (:class:`~simulations.gcul.GCUL`'s ``error_pool``, with its
        default folds) in every split and in the guarantee.
    standardize : bool, default False
        Standardise the features (z-scores, scikit-learn's ``StandardScaler``) fitted on the
        training part of each split only (the guarantee's fit rows), then applied to its test,
        tuning and calibration rows; every rejector sees the same standardised features. With
        the Python API the same is a pipeline: ``make_pipeline(StandardScaler(), GCUL())``.
    progress : callable, optional
        Called with a short message when the splits start, as each split finishes (``split i/n``,
        the elapsed time and an ETA) and when the guarantee is done.
    names : mapping, optional
        How messages name the arguments (the command line passes its options).
    n_jobs : int, default 1
        Worker processes for the splits (joblib's loky backend, as the sweep): a count, or -1
        for all usable cores, -2 for all but one; capped at the usable cores and the splits.
        The result is the same for every ``n_jobs``: a split depends only on ``seed`` and its
        index, and every split runs with one BLAS thread. Each worker holds one split's
        training and test rows in float64 at a time. A large ``Z`` is best passed
        memory-mapped, e.g. ``np.load(path, mmap_mode="r")`` (float32 is kept as it is): joblib
        then gives the workers the file's name rather than writing them a copy of ``Z``;
        an array in memory is written once to a temporary memory-mapped file of joblib's (in
        ``/dev/shm`` where it has room), which every worker maps. Worker processes end within
        seconds of this process, however it ends (``kill -9`` included).
    cache_dir : path, optional
        Folder of the split cache (:mod:`simulations.compare.cache`; created if needed): every
        split is written there as it finishes (one checksummed JSON file, atomically), and a
        split found there is not computed again, so a run stopped by a dead worker, Ctrl-C or
        ``kill -9`` resumes where it stopped, with the same result as a run never stopped. A
        file is named by everything its numbers depend on (the data's fingerprint, ``lam``,
        ``seed``, the split's rows, ``error_pool``, ``standardize``, the rejectors, the code and
        the library versions); one that does not verify is recomputed and replaced. Nothing is
        written without it (the default).
    keep_cache : bool, default True
        False: remove this run's split files from ``cache_dir`` once it has succeeded (a
        checkpoint rather than a cache, as ``gcul compare`` keeps by default).

    Returns
    -------
    CompareResult

    Raises
    ------
    TypeError, ValueError
        For inputs of the wrong type, shape or range (the message names the argument, the
        allowed range and the bad value), a class with fewer than 2 rows, a training part of
        fewer than 10 rows (the kNN rejector's k), a calibration share that leaves a class
        with fewer than 2 rows to fit on, or a ``cache_dir`` that is not a folder (or not
        writable while a split is missing from it).
    simulations.sweep.SweepError
        A worker process died (killed; out of memory, most often: each worker holds a split's
        rows in float64); the message says how many splits are kept in ``cache_dir``.
    OSError
        A split file cannot be written (``filename`` names it).

    Notes
    -----
    Per split, on the test part: GCUL accepts :math:`m` rows; every rejector's selective risk is
    taken at the same :math:`m` (ties at the cut by their expected value). Coverage, U and
    U_joint are taken at each rejector's natural operating point (GCUL: its accept set; MSP:
    Chow's rule :math:`p_{max} \ge 1 - \lambda`; SelectiveNet, trained for GCUL's test coverage
    as in the sweep: :math:`g \ge 0.5`), or at GCUL's coverage for a rejector without one.
    With :math:`\varepsilon` phase 1's test error, :math:`\varepsilon_{sel}` the rejector's error
    among the rows it accepts and :math:`\rho` the share it rejects,

    .. math:: U = \varepsilon - \varepsilon_{sel} - \lambda\rho, \qquad
              U_{joint} = \varepsilon - (1-\rho)\varepsilon_{sel} - \lambda\rho,

    the paper's utility (``subsec:selectivity_score``) and Chow's gain. Means over the splits
    carry Nadeau & Bengio's corrected standard error (:func:`estimate`); a verdict says
    "lower"/"higher" only when their corrected resampled t test of the per-split differences,
    with :math:`J - 1` degrees of freedom, rejects at the two-sided ``level``
    (:func:`verdict`). The lowest mean selective risk at GCUL's coverage is named only when one
    rejector holds it alone; rejectors with exactly the same mean (e.g. the same selective risk
    in every split) are reported as a tie.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> Z = np.vstack([rng.normal(c, 1.0, (60, 2)) for c in ([-3, 0], [3, 0], [0, 0])])
    >>> y = np.r_[np.zeros(60, int), np.ones(60, int), rng.integers(0, 2, 60)]
    >>> result = compare(Z, y, splits=2)
    >>> [r.name for r in result.rejectors][:3], result.n_test
    (['gcul', 'msp', 'entropy'], 54)
    >>> result.rejector("gcul").coverage == result.gcul_coverage
    True
    """
    from simulations.rejectors import REJECTORS

    settings = CompareSettings(
        lam=lam,
        splits=splits,
        seed=seed,
        test_size=test_size,
        delta=delta,
        calibration=calibration,
        target_risk=target_risk,
        level=level,
        error_pool=error_pool,
        standardize=standardize,
        n_jobs=n_jobs,
        cache_dir=cache_dir,
        keep_cache=keep_cache,
        names=names,
    )
    progress = OrNone(Hook()).check("progress", progress)
    workers, _ = resolve_n_jobs(settings.n_jobs)
    Z, y, y_fit = _check_data(Z, y, y_fit, settings.name)

    entries = [entry for entry in REJECTORS if not entry.needs_truth]
    split_list = stratified_splits(y_fit, settings.splits, settings.test_size, settings.seed)
    n_train, n_test = split_list[0][0].size, split_list[0][1].size
    _check_split_sizes(n_train, n_test, settings)
    # the guarantee's calibration split is drawn (and refused) before the splits run, so that a
    # share that leaves a class too few rows fails at once, not after every split is computed
    cal, fit = _calibration_split(y_fit, settings)
    store = None
    if settings.cache_dir is not None:
        store = _split_cache((Z, y_fit, y), entries, n_test, settings)
    per_split = _run_splits(Z, y_fit, y, split_list, entries, workers, progress, store, settings)
    curves = per_split[0].pop("curves")
    summaries = _summaries(per_split, entries, n_test / n_train, settings.level)
    # ties by exact equality of the means (rejectors with the same selective risk in every
    # split have bit-identical means: estimate sums with math.fsum, which is exact)
    lowest_mean = min(s.sel_risk.mean for s in summaries)
    lowest = tuple(s.label for s in summaries if s.sel_risk.mean == lowest_mean)
    guarantee = _guarantee(Z, y_fit, y, (cal, fit), settings)
    if progress is not None:
        progress("guarantee: done")
    if store is not None and not settings.keep_cache:
        for index, (train, test) in enumerate(split_list):
            store.forget(index, train, test)
    pool_sizes = [s["n_error_pool"] for s in per_split]
    regime = phase1_regime(
        pool_sizes,
        int(y.max()) + 1,
        settings.error_pool,
        regime_suggestions(settings.error_pool, settings.standardize, settings.name, Z),
    )
    return CompareResult(
        n=int(y.size),
        n_features=int(Z.shape[1]),
        n_classes=int(y.max()) + 1,
        lam=settings.lam,
        splits=settings.splits,
        seed=settings.seed,
        test_size=settings.test_size,
        delta=settings.delta,
        n_train=int(n_train),
        n_test=int(n_test),
        base_error=estimate([s["base_error"] for s in per_split], n_test / n_train),
        gcul_coverage=summaries[0].coverage,
        rejectors=tuple(summaries),
        best=lowest[0] if len(lowest) == 1 else None,
        guarantee=guarantee,
        notes=_notes(per_split),
        curves=curves,
        error_pool={
            "pool": settings.error_pool,
            "standardize": settings.standardize,
            "n_errors": pool_sizes,
            "message": regime,
        },
        level=settings.level,
        lowest=lowest,
    )


_KEYS = ("coverage", "sel_risk", "aurc", "u", "u_joint")


def _check_split_sizes(n_train: int, n_test: int, settings: CompareSettings) -> None:
    """Refuse splits whose training part is smaller than the kNN rejector's k, or whose test
    part is empty."""
    from simulations.rejectors.knn import N_NEIGHBORS

    # the kNN rejector scores a row by its distance to the k-th training neighbour: a training
    # part needs at least k rows
    min_train = N_NEIGHBORS
    name = settings.name
    if n_train < min_train:
        raise ValueError(
            f"{name('Z')}: the training part of a split holds {n_train} rows with "
            f"{name('test_size')} {settings.test_size:g}; at least {min_train} are needed (the "
            "kNN rejector's k)"
        )
    if n_test < 1:
        raise ValueError(
            f"{name('test_size')} {settings.test_size:g} puts no row in the test part; raise it"
        )


def _summaries(
    per_split: list[dict], entries: list, ratio: float, level: float
) -> list[RejectorSummary]:
    """One :class:`RejectorSummary` per rejector of ``entries`` from the splits' measurements
    (``ratio``: test rows over training rows, for the corrected standard errors)."""
    summaries = []
    for entry in entries:
        values = {key: [s[entry.name][key] for s in per_split] for key in _KEYS}
        difference = estimate(
            [s[entry.name]["sel_risk"] - s["gcul"]["sel_risk"] for s in per_split], ratio
        )
        label = entry.label
        outcome = None if entry.name == "gcul" else verdict(label, difference, level)
        natural = per_split[0][entry.name]["natural"]
        summaries.append(
            RejectorSummary(
                name=entry.name,
                label=label,
                operating_point=(registry.method(entry.name).operating_point or "own rule")
                if natural
                else "GCUL's coverage",
                natural=natural,
                coverage=estimate(values["coverage"], ratio),
                sel_risk=estimate(values["sel_risk"], ratio),
                difference=difference,
                aurc=estimate(values["aurc"], ratio),
                u=estimate(values["u"], ratio),
                u_joint=estimate(values["u_joint"], ratio),
                verdict="the reference" if outcome is None else outcome.text(),
                test=outcome,
            )
        )
    return summaries


def _notes(per_split: list[dict]) -> tuple[str, ...]:
    """The notes of the result: how the table reads, and how many splits GCUL rejected nothing."""
    notes = [
        "selective risk at GCUL's coverage: every rejector accepts as many test rows as GCUL "
        "(ties at the cut by their expected value)",
        "eps in U and U_joint is phase 1's test error; eps_sel is the rejector's own error among "
        "the rows it accepts",
        f"SelectiveNet is trained for GCUL's test coverage of the split (as the sweep does); "
        f"'{registry.method('gcul').operating_point}' ignores lam",
    ]
    if not all(s["can_reject"] for s in per_split):
        count = sum(not s["can_reject"] for s in per_split)
        notes.append(
            f"in {count} of {len(per_split)} splits GCUL's error pool was empty and it rejects "
            "nothing (its coverage is then 1)"
        )
    return tuple(notes)


def _run_splits(
    Z: np.ndarray,
    y_fit: np.ndarray,
    y: np.ndarray,
    split_list: list,
    entries: list,
    workers: int,
    progress: Callable[[str], None] | None,
    store: SplitCache | None,
    settings: CompareSettings,
) -> list[dict]:
    """:func:`_split_task` of every split not in ``store``, in split order; up to ``workers``
    loky processes (in this process for one); each split written to ``store`` as it finishes,
    ``progress`` told with the elapsed time and an ETA."""
    from simulations.outputs import lock_folder, remove_stale_temporaries
    from simulations.sweep.cache import unwritable

    n = len(split_list)
    done: dict[int, dict] = {}
    with contextlib.ExitStack() as stack:
        rejected: list[str] = []
        if store is not None:
            problem = unwritable(store.directory)
            if problem is None:
                try:
                    lock = lock_folder(store.directory, SPLIT_LOCK, "gcul compare", shared=True)
                    if stack.enter_context(lock):  # no other run uses this folder: clean it
                        remove_stale_temporaries(store.directory, is_split_name)
                except OSError as error:  # e.g. a full disk: the lock's holder cannot be written
                    # the checkpoint is a convenience: go on without it, never lose the run
                    store = None
                    if progress is not None:
                        reason = error.strerror or type(error).__name__
                        progress(f"cannot keep the finished splits ({reason}); going on without")
        if store is not None:
            for index, (train, test) in enumerate(split_list):
                cached = store.load(index, train, test)
                if isinstance(cached, str):
                    rejected.append(f"{store.path(index, train, test).name}: {cached}")
                elif cached is not None:
                    done[index] = cached
            if problem is not None and len(done) < n:
                raise ValueError(
                    f"{settings.name('cache_dir')} {str(store.directory)!r} is not a writable "
                    "folder: "
                    f"{problem}; {n - len(done)} of the {n} splits are not in it"
                )
        todo = [index for index in range(n) if index not in done]
        workers = max(1, min(workers, len(todo)))
        if progress is not None:
            where = f"{workers} worker(s)"
            if done and store is not None:
                where = (
                    f"{len(done)} in the cache {store.directory}, {len(todo)} to compute with "
                    f"{where}"
                )
            progress(
                f"{n} split(s) of {split_list[0][0].size} training / {split_list[0][1].size} "
                f"test rows, {where}"
            )
            if rejected:
                more = f"; and {len(rejected) - 3} more" if len(rejected) > 3 else ""
                progress(
                    f"{len(rejected)} cached split(s) did not verify and are recomputed "
                    f"({'; '.join(rejected[:3])}{more})"
                )
        start = time.perf_counter()
        tasks = ((Z, y_fit, y, *split_list[i], i, entries, settings) for i in todo)
        if workers == 1:
            outputs = (_split_task(*task) for task in tasks)
        else:
            from joblib import delayed

            from simulations.sweep.backends import run_loky

            # a function looked up now, not when the module was imported (a test replaces it)
            outputs = run_loky((delayed(_split_task)(*task) for task in tasks), workers)
        computed = 0
        try:
            for index, measured in outputs:
                done[index] = measured
                computed += 1
                if store is not None:
                    try:
                        train_rows, test_rows = split_list[index]
                        store.store(index, train_rows, test_rows, measured)
                    except OSError as error:
                        # a checkpoint is a convenience: a full or failing disk loses it, never
                        # the comparison; nothing more is kept from here on
                        store = None
                        if progress is not None:
                            reason = error.strerror or type(error).__name__
                            progress(f"cannot keep the finished splits ({reason}); going on without")
                if progress is not None:
                    elapsed = time.perf_counter() - start
                    # splits per second so far; the first `workers` splits run at once, so when
                    # the first of them ends, about `workers` splits' worth of work has been done
                    eta = elapsed * (len(todo) - computed) / max(computed, workers)
                    progress(
                        f"split {len(done)}/{n} done (split #{index + 1}: GCUL coverage "
                        f"{measured['gcul']['coverage']:.3f}, selective risk "
                        f"{measured['gcul']['sel_risk']:.4f}); {format_seconds(elapsed)} "
                        f"elapsed, ETA {format_seconds(eta)}"
                    )
        except SweepError as error:  # a worker process died
            raise SweepError(f"{error}: {_lost_worker(len(done), n, store, settings)}") from None
        finally:
            close = getattr(outputs, "close", None)
            if close is not None:
                close()  # now: stops the workers
    return [done[i] for i in range(n)]


def _lost_worker(kept: int, n: int, store: SplitCache | None, settings: CompareSettings) -> str:
    """What the message of a dead worker says after "a worker process ended unexpectedly"."""
    name = settings.name
    what = (
        "killed, or out of memory (each worker holds one split's rows in float64: fewer "
        f"{name('n_jobs')} need less memory)"
    )
    if store is None:
        return f"{what}; no {name('cache_dir')} was given, so no finished split is kept"
    return (
        f"{what}; {kept} of the {n} splits finished and are kept in {store.directory}: a rerun "
        "resumes from them"
    )


def _split_cache(
    data: tuple[np.ndarray, np.ndarray, np.ndarray],
    entries: list,
    n_test: int,
    settings: CompareSettings,
) -> SplitCache:
    """The split cache of this run in ``settings.cache_dir`` (created if needed)."""
    from simulations.sweep.cache import prepare_cache_dir

    assert settings.cache_dir is not None  # the caller keeps no cache without it
    directory = Path(settings.cache_dir)  # a Path already (CompareSettings keeps one)
    try:
        prepare_cache_dir(directory)
    except ValueError as error:
        raise ValueError(
            str(error).replace("cache_dir", settings.name("cache_dir"), 1)
        ) from None
    identity = {
        "data": data_fingerprint(*data),
        "lam": settings.lam,
        "seed": settings.seed,
        "error_pool": settings.error_pool,
        "standardize": settings.standardize,
        "rejectors": [entry.name for entry in entries],
    }
    # the first split's curves: coverage and risk, n_test + 1 values each, per rejector at most
    return SplitCache(directory, identity, n_curve_values=2 * (n_test + 1) * len(entries))


def _split_task(Z, y_fit, y, train, test, index, entries, settings) -> tuple[int, dict]:
    """One split in a worker (or this process), with one BLAS thread: ``(index, measured)``."""
    from simulations.models import single_threaded_blas

    with single_threaded_blas():
        return index, _run_split(
            Z, y_fit, y, train, test, index, entries, want_curves=index == 0, settings=settings
        )


def _run_split(
    Z: np.ndarray,
    y_fit: np.ndarray,
    y: np.ndarray,
    train: np.ndarray,
    test: np.ndarray,
    index: int,
    entries: list,
    *,
    want_curves: bool,
    settings: CompareSettings,
) -> dict:
    """Fit GCUL and every rejector on ``train`` (labels ``y_fit``); measure them on ``test``
    (labels ``y``). From ``settings``: λ, the seed, GCUL's ``error_pool``, and whether to
    ``standardize``."""
    from simulations.gcul import GCUL, fit_in_place
    from simulations.rejectors import RejectorContext

    lam = settings.lam
    y_train, y_test = y_fit[train], y[test]
    scaler = None
    if settings.standardize:  # z-scores fitted on the training rows only
        from sklearn.preprocessing import StandardScaler

        scaler = StandardScaler().fit(_rows_float64(Z, train))

    def rows(part: np.ndarray) -> np.ndarray:
        """``Z[part]`` in float64, standardised if asked (the same values at every call)."""
        X = _rows_float64(Z, part)
        return X if scaler is None else scaler.transform(X)

    # GCUL's K-Means centres these training rows in place rather than copying them (one copy
    # of them less at the split's peak, the same fit bit for bit); they are gathered again
    # for the rejectors, and the test rows only after the fit
    model = fit_in_place(GCUL(error_pool=settings.error_pool), rows(train), y_train)
    X_train, X_test = rows(train), rows(test)
    outcomes = model.indicators(X_test, y_test)
    n_test = y_test.size
    n_accept = int(np.count_nonzero(~outcomes.rejected))
    base_error = float(outcomes.base_error)
    context = RejectorContext(
        X_train,
        y_train,
        model,
        seed=np.random.SeedSequence(settings.seed, spawn_key=(1, index)),
        target_coverage=max(n_accept, 1) / n_test,
    )
    out: dict[str, Any] = {
        "base_error": base_error,
        "can_reject": bool(model.can_reject_),
        "n_error_pool": model.n_error_pool_,
    }
    curves: dict[str, Any] = {}
    for entry in entries:
        fitted = entry.fit(context)
        scores, labels = fitted.score_predict(X_test)
        wrong = labels != y_test
        sel_risk = float(gcul_theory.selective_risk_at_coverage(scores, wrong, n_accept))
        natural = bool(fitted.has_operating_point)
        if natural:
            accept = fitted.accept(X_test, lam)
            kept = int(np.count_nonzero(accept))
            eps_sel = float(np.count_nonzero(wrong & accept)) / kept if kept else 0.0
            coverage = kept / n_test
        else:
            coverage, eps_sel = n_accept / n_test, sel_risk
        rho = 1.0 - coverage
        out[entry.name] = {
            "natural": natural,
            "coverage": coverage,
            "sel_risk": sel_risk,
            "aurc": float(gcul_theory.aurc(scores, wrong)),
            "u": base_error - eps_sel - lam * rho,
            "u_joint": float(gcul_theory.joint_utility(lam, base_error, eps_sel, rho)),
        }
        if want_curves:
            curve = gcul_theory.risk_coverage_curve(scores, wrong)
            curves[entry.name] = (entry.label, curve.coverage, curve.selective_risk)
    if want_curves:
        curves["_gcul_point"] = (n_accept / n_test, out["gcul"]["sel_risk"])
        out["curves"] = curves
    return out


def _rows_float64(Z: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``Z[rows]`` as a new float64 array (exact for float32 ``Z``), gathered a block of rows at a
    time so that no float32 copy of all the rows is made on the way."""
    out = np.empty((rows.size, Z.shape[1]))
    step = max(1, 2**20 // max(Z.shape[1], 1))
    for start in range(0, rows.size, step):
        out[start : start + step] = Z[rows[start : start + step]]
    return out


def _calibration_split(
    y_fit: np.ndarray, settings: CompareSettings
) -> tuple[np.ndarray, np.ndarray]:
    """The guarantee's random split of the rows into calibration and fit parts, (cal, fit),
    sorted; refused when the fit part leaves a class fewer than 2 rows."""
    calibration, seed, name = settings.calibration, settings.seed, settings.name
    n = y_fit.size
    n_cal = min(max(int(math.floor(calibration * n + 0.5)), 1), n - 1)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(2,)))
    order = rng.permutation(n)
    cal, fit = np.sort(order[:n_cal]), np.sort(order[n_cal:])
    counts = np.bincount(y_fit[fit], minlength=int(y_fit.max()) + 1)
    if counts.min() < 2:
        label = int(np.argmin(counts))
        raise ValueError(
            f"{name('calibration')} {calibration:g} with {name('seed')} {seed} leaves "
            f"{counts[label]} row(s) of class {label} to fit on (at least 2 are needed); lower "
            f"{name('calibration')} or pass more rows of that class"
        )
    return cal, fit


def _guarantee(
    Z: np.ndarray,
    y_fit: np.ndarray,
    y: np.ndarray,
    parts: tuple[np.ndarray, np.ndarray],
    settings: CompareSettings,
) -> Guarantee:
    """Fit on ``parts``' fit rows (see :func:`_calibration_split`), bound GCUL and MSP on its
    calibration rows; run SGR."""
    from simulations.gcul import GCUL, fit_in_place
    from simulations.rejectors import RejectorContext, get_rejector

    lam, delta, seed = settings.lam, settings.delta, settings.seed
    test_size, target_risk = settings.test_size, settings.target_risk
    cal, fit = parts
    (train, tune), *_ = stratified_splits(y_fit[fit], 1, test_size, seed=_derived(seed))
    train, tune = fit[train], fit[tune]
    if settings.standardize:  # z-scores of GCUL's fit rows, for every row (in float64)
        (Z,) = _standardized(_rows_float64(Z, train), Z.astype(np.float64, copy=False))[1:]
    # Z[train] is a new array (fancy indexing), and so is its float64 copy: K-Means may centre
    # it in place (the same fit, one copy less at the peak)
    model = fit_in_place(GCUL(error_pool=settings.error_pool), Z[train], y_fit[train])
    context = RejectorContext(Z[train], y_fit[train], model, seed=np.random.SeedSequence(seed))
    gcul = get_rejector("gcul").fit(context)
    msp = get_rejector("msp").fit(context)

    # MSP's threshold: accept as many tuning rows as GCUL does (fixed before calibration)
    gcul_tune = gcul.accept(Z[tune], lam)
    _, gcul_labels_tune = gcul.score_predict(Z[tune])
    m_tune = int(np.count_nonzero(gcul_tune))
    msp_tune, _ = msp.score_predict(Z[tune])
    ranked = np.sort(msp_tune)[::-1]
    log_threshold = math.inf if m_tune == 0 else float(ranked[m_tune - 1])

    scores_gcul, labels_gcul = gcul.score_predict(Z[cal])
    accept_gcul = gcul.accept(Z[cal], lam)
    wrong_gcul = labels_gcul != y[cal]
    scores_msp, labels_msp = msp.score_predict(Z[cal])
    wrong_msp = labels_msp != y[cal]
    accept_msp = scores_msp >= log_threshold

    def bounded(accept: np.ndarray, wrong: np.ndarray) -> dict:
        m = int(np.count_nonzero(accept))
        x = int(np.count_nonzero(accept & wrong))
        return {
            "coverage": m / cal.size,
            "n_accepted": m,
            "n_wrong": x,
            "risk": x / m if m else 0.0,
            "bound": float(gcul_theory.selective_risk_upper_bound(x, m, delta)),
        }

    msp_part = bounded(accept_msp, wrong_msp)
    msp_part["threshold"] = math.exp(log_threshold) if math.isfinite(log_threshold) else math.inf
    if target_risk is None:
        wrong_tune = gcul_labels_tune != y[tune]
        errors = int(np.count_nonzero(gcul_tune & wrong_tune))
        source = f"GCUL's selective risk on the {tune.size} tuning rows"
        target = errors / m_tune if m_tune else 0.0
    else:
        source, target = "the target asked for", target_risk
    if 0.0 < target < 1.0:
        result = gcul_theory.sgr_threshold(scores_msp, wrong_msp, target, delta)
        sgr = {
            "target_risk": target,
            "target_source": source,
            "feasible": bool(result.feasible),
            "threshold": math.exp(result.threshold) if result.feasible else math.inf,
            "coverage": result.coverage,
            "risk": result.selective_risk,
            "bound": result.risk_bound,
            "reason": result.reason,
        }
    else:
        sgr = {
            "target_risk": target,
            "target_source": source,
            "reason": f"the target risk {target:g} ({source}) is not in (0, 1); pass "
            f"{settings.name('target_risk')}",
        }
    return Guarantee(
        n_train=int(train.size),
        n_tune=int(tune.size),
        n_cal=int(cal.size),
        delta=delta,
        gcul=bounded(accept_gcul, wrong_gcul),
        msp=msp_part,
        sgr=sgr,
    )


def _standardized(X_fit: np.ndarray, *others: np.ndarray) -> tuple[np.ndarray, ...]:
    """``X_fit`` and ``others`` in the z-scores of ``X_fit`` (``StandardScaler`` fitted on it)."""
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(X_fit)
    return tuple(scaler.transform(X) for X in (X_fit, *others))


def _derived(seed: int) -> int:
    """An int seed for the guarantee's train/tune split, from its own stream of ``seed``."""
    state = np.random.SeedSequence(seed, spawn_key=(3,)).generate_state(1, np.uint32)
    return int(state[0])


def _check_data(
    Z: Any, y: Any, y_fit: Any, name: Callable[[str], str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(Z, y, y_fit)`` checked: ``Z`` a finite 2-D array (float32 kept), ``y`` and ``y_fit``
    (``y`` if None) labels 0..C-1 of its rows, the same classes in both."""
    # float32 stays float32 (each split takes its rows in float64: the same numbers)
    Z = check_embeddings(Z, name("Z"), keep_float32=True)
    y = _check_labels(y, Z.shape[0], name)
    if y_fit is None:
        return Z, y, y
    y_fit = _check_labels(y_fit, Z.shape[0], lambda a: name("y_fit") if a == "y" else name(a))
    if y_fit.max() != y.max():
        raise ValueError(
            f"{name('y_fit')}: holds the classes 0..{int(y_fit.max())}; {name('y')} holds "
            f"0..{int(y.max())}; they must be the same"
        )
    return Z, y, y_fit


def _check_labels(y: Any, n_rows: int, name: Callable[[str], str]) -> np.ndarray:
    """``y`` as int64 labels 0..C-1 of ``n_rows`` rows, every class with at least 2 rows."""
    try:
        y = np.asarray(y)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name('y')} must be a numeric array ({exc})") from None
    if y.ndim != 1 or (y.size and y.dtype.kind not in "iu"):
        raise ValueError(
            f"{name('y')}: expected one integer label per row; got {y.dtype} of shape {y.shape}"
        )
    if y.size != n_rows:
        raise ValueError(f"{name('y')}: holds {y.size} labels for {n_rows} rows of {name('Z')}")
    y = y.astype(np.int64)
    if y.min() < 0:
        raise ValueError(f"{name('y')}: labels must be 0..C-1; got {int(y.min())}")
    counts = np.bincount(y)
    if np.count_nonzero(counts) < 2:
        raise ValueError(
            f"{name('y')}: holds a single class ({int(y[0])}); at least two are needed"
        )
    if counts.min() < 2:
        label = int(np.argmin(counts))
        missing = counts[label] == 0
        raise ValueError(
            f"{name('y')}: class {label} has {counts[label]} "
            f"row{'' if counts[label] == 1 else 's'}; every class 0..C-1 needs at least 2 (one "
            "to train on, one to test)"
            + (". Encode labels with np.unique(y, return_inverse=True)" if missing else "")
        )
    if counts.size > gcul_theory.MAX_CLASSES:
        raise ValueError(
            f"{name('y')}: holds {counts.size} classes; at most {gcul_theory.MAX_CLASSES} are "
            "supported"
        )
    return y
