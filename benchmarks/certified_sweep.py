"""The certified predictor on the synthetic sweep: Type-I / Type-II of each construction.

For the 410 cells (seeds 10-19 x the 41 noise levels of :mod:`simulations.synthetic`), GCUL is fitted
on 80% of the training split (:func:`simulations.sweep.cell.calibration_split`); the per-sample
indicators (base wrong, accepted-and-wrong, rejected) of the other 20% (observed labels, and, for
reference, clean labels) and of the test split are cached as one ``.npz`` per cell under ``--cache``
(joblib, 2 jobs). Then every construction of a lower confidence bound on U(lam) is scored at
lam = 0.15, delta = 0.05 against lambda*_EMP of the test split for the same model:
Type-I = lambda*_CERT < lam <= lambda*_EMP, Type-II = lambda*_CERT >= lam > lambda*_EMP.

Usage::

    PYTHONPATH=$PWD python benchmarks/certified_sweep.py --cache /tmp/certcache
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed, parallel_config
from scipy import special

from gcul_theory import certified_lambda
from simulations.certification import SelectiveOutcomes
from simulations.cli.common import Parser, positive_int
from simulations.outputs import prepare_out_folder
from simulations.sweep.cell import fit_certified_model
from simulations.synthetic import SyntheticConfig, make_dataset, noise_levels

CACHE_VERSION = 1
LAM, DELTA = 0.15, 0.05


def _cell_path(cache: Path, seed: int, level: int) -> Path:
    return cache / f"certified-v{CACHE_VERSION}-seed{seed}-level{level:02d}.npz"


def _compute_cell(cache: Path, seed: int, level: int, noise: float) -> float | None:
    """Cache one cell; return the seconds of the certified fit (None if cached)."""
    path = _cell_path(cache, seed, level)
    if path.exists():
        return None
    data = make_dataset(seed, noise, SyntheticConfig())
    start = time.perf_counter()
    model, cal = fit_certified_model(data, seed)
    arrays = {}
    for name, X, y in (
        ("cal", data.X_train[cal], data.y_train[cal]),
        ("calclean", data.X_train[cal], data.y_train_clean[cal]),
        ("test", data.X_test, data.y_test),
    ):
        for key, value in model.indicators(X, y)._asdict().items():
            arrays[f"{name}_{key}"] = value
    seconds = time.perf_counter() - start
    tmp = path.with_name(path.stem + ".tmp.npz")
    np.savez_compressed(tmp, seed=seed, level=level, noise=noise, seconds=seconds, **arrays)
    tmp.replace(path)
    return seconds


def fill_cache(cache: Path, seeds, n_levels: int, n_jobs: int = 2) -> None:
    grid = noise_levels(n_levels)
    cells = [(s, lv, float(grid[lv])) for s in seeds for lv in range(len(grid))]
    with parallel_config(backend="loky", inner_max_num_threads=1):
        Parallel(n_jobs=n_jobs)(delayed(_compute_cell)(cache, s, lv, nz) for s, lv, nz in cells)


# --- baselines (lower bounds on U(LAM) at risk DELTA) ---------------------------------------


def _cp_lower(k, n, a):
    return 0.0 if k == 0 else float(special.betaincinv(k, n - k + 1, a))


def _cp_upper(k, n, a):
    return 1.0 if k == n else float(special.betaincinv(k + 1, n - k, 1 - a))


def box_cp(bw, aw, rej):
    """Bonferroni box: CP bounds on eps, rho and P(acc & wrong), delta/3 each."""
    n, d = bw.size, DELTA / 3
    eps = _cp_lower(bw.sum(), n, d)
    rho_hi = _cp_upper(rej.sum(), n, d)
    paw = _cp_upper(aw.sum(), n, d)
    return eps - paw / (1 - rho_hi) - LAM * rho_hi if rho_hi < 1 else -np.inf


def paired_cp(bw, aw, rej):
    """U = E[bw - aw] - rho (eps_sel + lam), CP per term; E[bw - aw] bounded as CP(eps) lower
    minus CP(P(aw)) upper, looser than a paired bound (the colleague's paired form measured 60)."""
    n, r = bw.size, rej.sum()
    m = n - r
    if m == 0:
        return -np.inf
    d = DELTA / 4
    diff = _cp_lower(bw.sum(), n, d) - _cp_upper(aw.sum(), n, d)
    rho_hi = _cp_upper(r, n, d)
    es_hi = _cp_upper(aw.sum(), m, d)
    return diff - rho_hi * (es_hi + LAM)


def maurer_pontil(bw, aw, rej):
    """Empirical Bernstein (Maurer-Pontil) on E[bw - aw - lam rej] (range 2, 90% of delta)
    minus CP upper bounds on rho and eps_sel (5% of delta each)."""
    n, r = bw.size, rej.sum()
    m = n - r
    if m == 0:
        return -np.inf
    y = (bw.astype(float) - aw - LAM * rej + 1) / 2  # in [0, 1]
    d1 = 0.9 * DELTA
    v = y.var(ddof=1)
    lower01 = y.mean() - math.sqrt(2 * v * math.log(2 / d1) / n) - 7 * math.log(2 / d1) / (3 * (n - 1))
    rho_hi = _cp_upper(r, n, 0.05 * DELTA)
    es_hi = _cp_upper(aw.sum(), m, 0.05 * DELTA)
    return (2 * lower01 - 1) - rho_hi * es_hi


def plug_in(bw, aw, rej):
    m = (~rej).sum()
    return bw.mean() - (aw.sum() / m if m else 0.0) - LAM * rej.mean()


def _lam_from_bound(bound, ind):
    return np.inf if bound(*ind) > 0 else -np.inf  # only the side of LAM matters for I/II


def evaluate(cache: Path, label_kind: str = "cal") -> None:
    files = sorted(cache.glob(f"certified-v{CACHE_VERSION}-*.npz"))
    cells = [dict(np.load(f)) for f in files]
    print(f"{len(cells)} cells, lam = {LAM}, delta = {DELTA}, calibration labels: {label_kind}")
    lam_emp = np.array([
        SelectiveOutcomes(c["test_base_wrong"], c["test_selective_wrong"],
                          c["test_rejected"]).empirical_lambda() for c in cells
    ])
    cal = [(c[f"{label_kind}_base_wrong"], c[f"{label_kind}_selective_wrong"],
            c[f"{label_kind}_rejected"]) for c in cells]
    rows = []
    for name, method in (("betting (finite-sample valid, ours)", "betting"),
                         ("asymptotic (delta method, NOT valid)", "asymptotic")):
        start = time.perf_counter()
        lam_cert = np.array([certified_lambda(*ind, delta=DELTA, method=method) for ind in cal])
        seconds = (time.perf_counter() - start) / len(cal)
        rows.append((name, lam_cert, f"{1000 * seconds:.1f} ms/cell"))
    for name, bound in (("Bonferroni box of CP", box_cp), ("paired CP per term", paired_cp),
                        ("Maurer-Pontil + CP", maurer_pontil), ("plug-in (NOT valid)", plug_in)):
        rows.append((name, np.array([_lam_from_bound(bound, ind) for ind in cal]), ""))
    print(f"{'construction':40s} {'Type-I':>7s} {'Type-II':>8s} {'mean(cert-emp)':>15s}")
    for name, lam_cert, note in rows:
        t1 = int(np.sum((lam_cert < LAM) & (lam_emp >= LAM)))
        t2 = int(np.sum((lam_cert >= LAM) & (lam_emp < LAM)))
        gap = np.mean(lam_cert - lam_emp) if np.all(np.isfinite(lam_cert)) else float("nan")
        print(f"{name:40s} {t1:7d} {t2:8d} {gap:15.4f}  {note}")
    seconds = np.array([float(c["seconds"]) for c in cells])
    print(f"certified fit + indicators: {seconds.mean() * 1000:.1f} ms/cell (mean over cells)")


def main() -> int:
    parser = Parser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--levels", type=int, default=41)
    parser.add_argument("--seeds", type=int, nargs=2, default=(10, 19), metavar=("FIRST", "LAST"))
    parser.add_argument("--jobs", type=positive_int, default=2)
    args = parser.parse_args()
    try:
        prepare_out_folder(args.cache, "--cache")
    except ValueError as error:
        parser.error(str(error))
    start = time.perf_counter()
    fill_cache(args.cache, range(args.seeds[0], args.seeds[1] + 1), args.levels, args.jobs)
    print(f"cache filled in {time.perf_counter() - start:.1f} s ({args.jobs} jobs)")
    for kind in ("cal", "calclean"):
        evaluate(args.cache, kind)
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
