"""`gcul feasibility` and `gcul compare` at the scale of the paper's text embeddings (issue 24).

The paper's text data are about 100,000 sentences embedded in 768 dimensions (DistilBERT). This
benchmark generates embeddings of that shape (float32, seeded, nothing committed: 11 classes and a
confusion blob, :func:`make_embeddings`), then measures, on one machine in one run:

1. the commands a user runs, each in its own process: ``gcul feasibility``, ``gcul feasibility
   --certify`` and ``gcul compare --splits 10 --jobs 2``: CPU time (user + sys of the command
   and every worker it started), wall time, and peak memory (the largest sum over the command
   and its workers of the proportional set size, PSS, and of the resident set size, RSS, which
   counts the pages the workers share once per process; sampled every 0.5 s);
2. every component of one compare split (70% training rows, 30% test rows), side by side with
   the scikit-learn equivalent where one exists, both with one BLAS thread: phase 1 (multinomial
   logistic regression, lbfgs, C = 1), phase 2 (K-Means from GCUL's initial centres, one init,
   100 iterations at most), phase 3, the certificate, and each rejector (fit + score of the test
   rows); scikit-learn's ``LogisticRegression(solver="lbfgs")``, ``KMeans``,
   ``NearestNeighbors(algorithm="brute")`` and ``EmpiricalCovariance``.

Writes ``benchmarks/paper_scale.md`` (a table, the command, the machine, the load average and the
versions). On a shared machine quote the CPU seconds; the wall seconds follow the load. Run from
the repository root::

    PYTHONPATH=$PWD python benchmarks/paper_scale.py [--n 100000] [--d 768] [--skip-commands]

``--split-memory`` instead prints the peak memory of one compare split, step by step
(:func:`split_memory`), and writes nothing.
"""

from __future__ import annotations

import os
import platform
import resource
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path

import numpy as np

N, D, CLASSES = 100_000, 768, 11
SEED = 2024


def make_embeddings(
    n: int = N, d: int = D, classes: int = CLASSES, seed: int = SEED
) -> tuple[np.ndarray, np.ndarray]:
    """Synthetic sentence embeddings: ``(Z, y)``, ``Z`` float32 of shape ``(n, d)``.

    A 64-dimensional latent space (as text embeddings have a low intrinsic dimension): class
    centres drawn N(0, 1.6^2 I), each row its class centre plus N(0, I); 10% of the rows form a
    confusion blob at the mean of the centres with uniformly drawn labels. The latent rows are
    mapped to ``d`` dimensions by a fixed Gaussian matrix, plus N(0, 0.3^2) noise in every
    dimension. Phase 1 errs on about 7.5% of the rows, nearly all of them in the blob.
    """
    latent = 64
    rng = np.random.default_rng(np.random.SeedSequence([seed, n, d, classes]))
    centres = rng.normal(0.0, 1.6, (classes, latent))
    n_blob = int(round(0.1 * n))
    n_classes = n - n_blob
    y = np.r_[np.arange(n_classes) % classes, rng.integers(0, classes, n_blob)]
    H = np.empty((n, latent))
    H[:n_classes] = centres[y[:n_classes]]
    H[n_classes:] = centres.mean(axis=0)
    H += rng.standard_normal((n, latent))
    W = rng.standard_normal((latent, d)) / np.sqrt(latent)
    Z = (H @ W).astype(np.float32)
    Z += 0.3 * rng.standard_normal((n, d), dtype=np.float32)
    order = rng.permutation(n)
    return np.ascontiguousarray(Z[order]), y[order].astype(np.int64)


# --------------------------------------------------------------------------------------------
# Commands in their own processes


def _tree_memory(pid: int) -> tuple[int, int, dict[int, int]]:
    """``(rss, pss, pss_by_pid)``: resident and proportional set bytes of ``pid`` and all its
    descendants, summed (0 once it has ended), and each one's PSS. PSS counts a page shared by k
    processes (the memory-mapped embeddings the workers share) as 1/k in each; the RSS sum
    counts it k times."""
    import psutil

    try:
        root = psutil.Process(pid)
        processes = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0, 0, {}
    rss = pss = 0
    each = {}
    for process in processes:
        try:
            info = process.memory_full_info()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        rss += info.rss
        pss += info.pss
        each[process.pid] = info.pss
    return rss, pss, each


def run_command(argv: list[str]) -> dict:
    """Run ``argv``; its wall and CPU seconds (with its workers) and its peak memory."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak = [0, 0]
    by_pid: dict[int, int] = {}  # each process's own peak PSS

    def sample() -> None:
        while process.poll() is None:
            rss, pss, each = _tree_memory(process.pid)
            peak[0], peak[1] = max(peak[0], rss), max(peak[1], pss)
            for pid, value in each.items():
                by_pid[pid] = max(by_pid.get(pid, 0), value)
            time.sleep(0.5)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, err = process.communicate()
    wall = time.perf_counter() - start
    sampler.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed: {err.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    last = [line for line in err.splitlines() if "split" in line]
    return {
        "wall": wall,
        "cpu": cpu,
        "peak_rss": peak[0],
        "peak_pss": peak[1],
        "command_pss": by_pid.get(process.pid, 0),
        "worker_pss": max((v for k, v in by_pid.items() if k != process.pid), default=0),
        "progress": last[-1] if last else "",
    }


# --------------------------------------------------------------------------------------------
# Components of one split, in this process


class Clock:
    """CPU (user + sys of this process) and wall seconds of a block, and, while tracemalloc
    traces, the peak bytes allocated through Python and NumPy during it (everything alive
    then counted: the split's data too), ``None`` otherwise."""

    def __enter__(self):
        if tracemalloc.is_tracing():
            tracemalloc.reset_peak()
        self.usage = resource.getrusage(resource.RUSAGE_SELF)
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        usage = resource.getrusage(resource.RUSAGE_SELF)
        self.wall = time.perf_counter() - self.start
        self.cpu = (usage.ru_utime - self.usage.ru_utime) + (usage.ru_stime - self.usage.ru_stime)
        self.peak = tracemalloc.get_traced_memory()[1] if tracemalloc.is_tracing() else None


def compared_rejectors(X_train: np.ndarray, y_train: np.ndarray, model) -> list[tuple]:
    """``[(entry, context)]``: each rejector ``gcul compare`` fits (those that need no truth)
    with the context of one split's training rows (split 0's seed, a 0.9 target coverage)."""
    from simulations.rejectors import REJECTORS, RejectorContext

    context = RejectorContext(
        X_train,
        y_train,
        model,
        seed=np.random.SeedSequence(0, spawn_key=(1, 0)),
        target_coverage=0.9,
    )
    return [(entry, context) for entry in REJECTORS if not entry.needs_truth]


def components(Z: np.ndarray, y: np.ndarray) -> list[tuple[str, Clock, Clock | None, str]]:
    """``(component, gcul clock, scikit-learn clock or None, note)`` for one compare split."""
    import warnings

    from sklearn.cluster import KMeans
    from sklearn.covariance import EmpiricalCovariance
    from sklearn.linear_model import LogisticRegression as SkLogisticRegression
    from sklearn.neighbors import NearestNeighbors
    from threadpoolctl import threadpool_limits

    from simulations.compare import stratified_splits
    from simulations.gcul import GCUL
    from simulations.models import LogisticRegression, kmeans
    from simulations.rejectors.knn import N_NEIGHBORS

    rows = []
    (train, test), *_ = stratified_splits(y, 1, 0.3, seed=0)
    with threadpool_limits(1):
        X_train = np.asarray(Z[train], dtype=np.float64)
        X_test = np.asarray(Z[test], dtype=np.float64)
        y_train, y_test = y[train], y[test]
        with Clock() as whole:
            model = GCUL().fit(X_train, y_train)
        rows.append(("GCUL fit (phases 1-3)", whole, None, ""))
        with Clock() as ours:
            LogisticRegression(max_iter=500).fit(X_train, y_train)
        with Clock() as theirs, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # lbfgs may stop at max_iter on raw features
            SkLogisticRegression(max_iter=500).fit(X_train, y_train)
        rows.append(("phase 1: logistic regression", ours, theirs, "LogisticRegression(lbfgs)"))
        init = model.init_centers_
        with Clock() as ours:
            kmeans(X_train, init, max_iter=100)
        with Clock() as theirs:
            KMeans(len(init), init=init, n_init=1, max_iter=100).fit(X_train)
        rows.append(("phase 2: K-Means", ours, theirs, "KMeans(init=GCUL's, n_init=1)"))
        y3 = np.where(
            model.cluster_labels_ == model.uncertain_cluster_, model.n_classes_, y_train
        )
        with Clock() as ours:
            LogisticRegression(max_iter=500).fit(X_train, y3)
        with Clock() as theirs, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            SkLogisticRegression(max_iter=500).fit(X_train, y3)
        rows.append(("phase 3: logistic regression", ours, theirs, "LogisticRegression(lbfgs)"))
        half = X_test.shape[0] // 2
        with Clock() as ours:
            model.certify(X_test[:half], y_test[:half])
        rows.append((f"certificate ({half:,} calibration rows)", ours, None, ""))
        for entry, context in compared_rejectors(X_train, y_train, model):
            with Clock() as ours:
                entry.fit(context).score_predict(X_test)
            theirs, note = None, ""
            if entry.name == "knn":
                with Clock() as theirs:
                    NearestNeighbors(n_neighbors=N_NEIGHBORS, algorithm="brute").fit(
                        X_train
                    ).kneighbors(X_test)
                note = 'NearestNeighbors(algorithm="brute")'
            elif entry.name == "mahalanobis":
                with Clock() as theirs:  # one covariance of the class-centred rows, K means
                    means = np.array(
                        [X_train[y_train == c].mean(axis=0) for c in range(model.n_classes_)]
                    )
                    shared = EmpiricalCovariance().fit(X_train - means[y_train])
                    for mean in means:
                        shared.location_ = mean
                        shared.mahalanobis(X_test)
                note = "EmpiricalCovariance (shared), mahalanobis per class"
            rows.append((f"rejector {entry.name} (fit + score)", ours, theirs, note))
    return rows


def split_memory(Z: np.ndarray, y: np.ndarray) -> None:
    """Print the peak memory of one ``gcul compare`` split, step by step, in this process.

    The steps of ``gcul compare``'s split for the first split of
    :func:`simulations.compare.stratified_splits` (70% training rows): the float64 training
    rows, the GCUL fit (K-Means timed and measured apart; it centres the training rows in
    place), the training rows gathered again and the test rows with GCUL's outcomes, then each
    rejector (fit + score), all with one BLAS thread. For each step: the peak of the memory
    allocated through Python and NumPy during it (tracemalloc, everything alive then included),
    what is still allocated after it, and its CPU seconds. ``Z`` is made before tracing starts
    (in ``gcul compare`` it is a memory-mapped file the workers share).

    It runs the split's own steps, reaching into two internals on purpose: the row gather of
    ``simulations.compare.protocol`` (whose memory is what is measured) and the K-Means inside
    :meth:`simulations.gcul.GCUL.fit` (wrapped for the time of the run, to measure it apart).
    """
    import simulations._guided_clustering as guided
    from simulations.compare import protocol
    from simulations.gcul import GCUL, fit_in_place
    from simulations.models import single_threaded_blas
    from simulations.statistics import stratified_splits

    (train, test), *_ = stratified_splits(y, 1, 0.3, seed=0)
    print("| step | peak GB | allocated after GB | CPU s |\n|---|--:|--:|--:|")

    def step(label: str, start: float) -> None:
        current, peak = tracemalloc.get_traced_memory()
        cpu = time.process_time() - start
        print(f"| {label} | {peak / 1e9:.2f} | {current / 1e9:.2f} | {cpu:.1f} |", flush=True)
        tracemalloc.reset_peak()

    lloyd = guided.lloyd

    def measured_lloyd(*arguments, **keywords):
        step("GCUL fit up to K-Means (phase 1, initial centres)", fit_start[0])
        start = time.process_time()
        out = lloyd(*arguments, **keywords)
        step("K-Means (phase 2)", start)
        fit_start[0] = time.process_time()
        return out

    fit_start = [0.0]
    guided.lloyd = measured_lloyd
    tracemalloc.start()
    with single_threaded_blas():
        start = time.process_time()
        X_train = protocol._rows_float64(Z, train)
        y_train, y_test = y[train], y[test]
        step("training rows, float64", start)
        fit_start[0] = time.process_time()
        # as gcul compare's split: K-Means centres the training rows in place, which are
        # gathered again
        model = fit_in_place(GCUL(), X_train, y_train)
        step("rest of the GCUL fit", fit_start[0])
        start = time.process_time()
        del X_train
        X_train, X_test = protocol._rows_float64(Z, train), protocol._rows_float64(Z, test)
        model.indicators(X_test, y_test)
        step("training rows again, test rows and GCUL's outcomes", start)
        for entry, context in compared_rejectors(X_train, y_train, model):
            start = time.process_time()
            entry.fit(context).score_predict(X_test)
            step(f"rejector {entry.name}", start)
    guided.lloyd = lloyd


# --------------------------------------------------------------------------------------------


def _versions() -> str:
    import joblib
    import scipy
    import sklearn
    from threadpoolctl import threadpool_info

    blas = {(i["internal_api"], i.get("version")) for i in threadpool_info()}
    blas_text = ", ".join(f"{api} {version}" for api, version in sorted(blas, key=str))
    return (
        f"Python {platform.python_version()}, NumPy {np.__version__}, SciPy {scipy.__version__}, "
        f"scikit-learn {sklearn.__version__}, joblib {joblib.__version__}; BLAS: {blas_text}"
    )


def _machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} CPU cores, {platform.system()} {platform.release()}"


def _load() -> str:
    return " ".join(f"{v:.1f}" for v in os.getloadavg())


def main() -> int:
    from simulations.cli.common import Parser, positive_int
    from simulations.outputs import atomic_write_text, prepare_out_file

    parser = Parser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=N)
    parser.add_argument("--d", type=int, default=D)
    parser.add_argument("--splits", type=int, default=10)
    parser.add_argument("--jobs", type=positive_int, default=2)
    parser.add_argument("--skip-commands", action="store_true")
    parser.add_argument("--skip-components", action="store_true")
    parser.add_argument("--out", default="benchmarks/paper_scale.md")
    parser.add_argument(
        "--split-memory",
        action="store_true",
        help="only print the peak memory of one compare split, step by step (writes nothing)",
    )
    args = parser.parse_args()
    if args.split_memory:
        split_memory(*make_embeddings(args.n, args.d))
        return 0
    try:
        prepare_out_file(args.out, "--out")
    except ValueError as error:
        parser.error(str(error))
    Z, y = make_embeddings(args.n, args.d)
    lines = [
        "# `gcul feasibility` and `gcul compare` at paper scale",
        "",
        f"{args.n:,} x {args.d} float32 embeddings, {CLASSES} classes and a confusion blob "
        "(`benchmarks/paper_scale.py`, seeded; nothing committed). CPU = user + sys seconds "
        "(with the workers); the machine is shared, so CPU is the figure to compare.",
        "",
        "Command: `PYTHONPATH=$PWD python benchmarks/paper_scale.py "
        + " ".join(sys.argv[1:])
        + "`",
        "",
        f"Machine: {_machine()}. {_versions()}.",
        "",
    ]
    if not args.skip_commands:
        with tempfile.TemporaryDirectory() as folder:
            z_path, y_path = Path(folder) / "Z.npy", Path(folder) / "y.npy"
            np.save(z_path, Z)
            np.save(y_path, y)
            data = ["--embeddings", str(z_path), "--labels", str(y_path)]
            gcul = [sys.executable, "-m", "simulations.cli"]
            commands = [
                ("gcul feasibility", [*gcul, "feasibility", *data]),
                ("gcul feasibility --certify", [*gcul, "feasibility", "--certify", *data]),
                (
                    f"gcul compare --splits {args.splits} --jobs {args.jobs}",
                    [
                        *gcul,
                        "compare",
                        "--splits",
                        str(args.splits),
                        "--jobs",
                        str(args.jobs),
                        "--json",
                        *data,
                    ],
                ),
            ]
            lines += [
                "## Commands",
                "",
                "| command | CPU s | wall s | peak memory, PSS summed over processes (GB) "
                "| peak RSS summed (GB) | the command's own peak PSS (GB) "
                "| largest worker's peak PSS (GB) | load average at the end |",
                "|---|--:|--:|--:|--:|--:|--:|---|",
            ]
            for label, argv in commands:
                print(f"running {label} ...", file=sys.stderr, flush=True)
                measured = run_command(argv)
                lines.append(
                    f"| `{label}` | {measured['cpu']:.1f} | {measured['wall']:.1f} | "
                    f"{measured['peak_pss'] / 1e9:.2f} | {measured['peak_rss'] / 1e9:.2f} | "
                    f"{measured['command_pss'] / 1e9:.2f} | "
                    + (f"{measured['worker_pss'] / 1e9:.2f}" if measured["worker_pss"] else "-")
                    + f" | {_load()} |"
                )
                print(lines[-1], file=sys.stderr, flush=True)
            lines.append("")
    if not args.skip_components:
        print("timing the components of one split ...", file=sys.stderr, flush=True)
        n_train = int(round(0.7 * args.n))
        lines += [
            f"## Components of one compare split ({n_train:,} training rows, "
            f"{args.n - n_train:,} test rows; one BLAS thread each)",
            "",
            "Peak: the largest memory allocated through Python and NumPy during the component "
            "(tracemalloc; the split's float64 rows, 0.62 GB at 100,000 x 768, included).",
            "",
            "| component | gcul CPU s | gcul wall s | gcul peak GB | scikit-learn CPU s "
            "| scikit-learn wall s | scikit-learn peak GB | scikit-learn equivalent |",
            "|---|--:|--:|--:|--:|--:|--:|---|",
        ]
        tracemalloc.start()
        for label, ours, theirs, note in components(Z, y):
            sk_cpu = f"{theirs.cpu:.1f}" if theirs else "-"
            sk_wall = f"{theirs.wall:.1f}" if theirs else "-"
            sk_peak = f"{theirs.peak / 1e9:.2f}" if theirs else "-"
            lines.append(
                f"| {label} | {ours.cpu:.1f} | {ours.wall:.1f} | {ours.peak / 1e9:.2f} | {sk_cpu} "
                f"| {sk_wall} | {sk_peak} | {note} |"
            )
            print(lines[-1], file=sys.stderr, flush=True)
        lines += ["", f"Load average at the end: {_load()}.", ""]
    atomic_write_text(args.out, "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
