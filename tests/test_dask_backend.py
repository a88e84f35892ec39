"""The dask backend of the sweep (issue 9, section 1): same rows, same cache, same results.csv.

The cells run as tasks of a ``dask.distributed`` client on a ``LocalCluster`` of 2 worker
processes, either one shared by the module (its scheduler address is passed as ``scheduler``, as
a user passes a remote one) or one that :func:`run_sweep` starts and closes itself. A cluster takes
a few seconds to start, so the grids are tiny (the ``TINY`` protocol of test_sweep.py, 2 seeds x 3
levels) and there are only two such starts in the module besides the shared one.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import dask
import distributed
import pytest
from _cli import cached_cells, child_session, gcul, wait_while_running

import simulations.sweep as sweep
from simulations.cli import main
from simulations.results import write_csv
from simulations.sweep import run_sweep
from simulations.sweep.processes import session_processes, wait_for_session_end
from simulations.synthetic import SyntheticConfig

TINY = SyntheticConfig(n_per_class=200, n_confusion=200)
GRID = [0.0, 4.0, 8.0]
SEEDS = [10, 11]
LINUX = Path("/proc/self/task").is_dir()


@pytest.fixture(scope="module")
def cluster():
    """A LocalCluster of 2 single-threaded worker processes, shared by the module's tests."""
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": ":0"},  # not 8787: run_sweep's own cluster may
        silence_logs=logging.ERROR,
    ) as local:
        yield local


@pytest.fixture(scope="module")
def loky_csv(tmp_path_factory) -> bytes:
    """results.csv of the grid run by loky with 2 jobs, no cache: the bytes dask must give."""
    rows = run_sweep(GRID, SEEDS, n_jobs=2, config=TINY, progress=False)
    return write_csv(rows, tmp_path_factory.mktemp("loky") / "results.csv").read_bytes()


def _children() -> set[int]:
    """Live child processes of this process (Linux /proc)."""
    pids: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        try:
            pids.update(int(p) for p in (task / "children").read_text().split())
        except OSError:
            continue
    live = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            live.add(pid)
    return live


def _wait_until_gone(pids: set[int], seconds: float = 10.0) -> set[int]:
    deadline = time.monotonic() + seconds
    left = pids & _children()
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = pids & _children()
    return left


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# ---------------------------------------------------------------------------------------------
# Same rows, same bytes, same cache


@pytest.mark.skipif(not LINUX, reason="counts child processes in /proc")
@pytest.mark.slow  # starts its own LocalCluster
def test_local_cluster_gives_loky_bytes_and_leaves_no_process(tmp_path, loky_csv) -> None:
    before = _children()
    rows = run_sweep(GRID, SEEDS, n_jobs=2, config=TINY, progress=False, backend="dask")
    assert write_csv(rows, tmp_path / "results.csv").read_bytes() == loky_csv
    assert [(t["seed"], t["noise"]) for t in rows.timings] == [
        (r["seed"], r["noise"]) for r in rows
    ]
    assert all(t["seconds"] > 0.0 for t in rows.timings)
    # the LocalCluster that run_sweep started (2 worker processes) is closed when it returns
    assert _wait_until_gone(_children() - before) == set()


def test_scheduler_resumes_a_cache_written_by_loky(tmp_path, cluster, loky_csv) -> None:
    cache = tmp_path / "cache"
    first = run_sweep(GRID, [10], n_jobs=2, cache_dir=cache, config=TINY, progress=False)
    written = {path.name: path.read_bytes() for path in cache.glob("*.json")}
    assert len(written) == 3
    rows = run_sweep(
        GRID,
        SEEDS,
        cache_dir=cache,
        config=TINY,
        progress=False,
        backend="dask",
        scheduler=cluster.scheduler_address,
    )
    assert write_csv(rows, tmp_path / "results.csv").read_bytes() == loky_csv
    # loky's cells were served from the cache (their files untouched, their wall times reused);
    # the dask workers computed and cached the other seed's three cells
    assert {p.name: p.read_bytes() for p in cache.glob("*.json") if p.name in written} == written
    assert len(list(cache.glob("*.json"))) == 6
    assert rows.timings[:3] == first.timings
    # and a loky run now finds every cell in the cache written by dask
    again = run_sweep(GRID, SEEDS, cache_dir=cache, config=TINY, progress=False)
    assert again.timings == rows.timings


def test_an_interrupted_dask_sweep_resumes(tmp_path, cluster, loky_csv, monkeypatch) -> None:
    cache = tmp_path / "cache"
    real_advance = sweep.progress.ProgressBar.advance
    seen: list[int] = []

    def interrupted_after_two(self, seconds=0.0):
        real_advance(self, seconds)
        seen.append(self.done)
        if len(seen) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(sweep.progress.ProgressBar, "advance", interrupted_after_two)
    options = dict(config=TINY, progress=False, backend="dask", scheduler=cluster.scheduler_address)
    with pytest.raises(KeyboardInterrupt):
        run_sweep(GRID, SEEDS, cache_dir=cache, **options)
    assert len(list(cache.glob("*.json"))) == 2
    monkeypatch.setattr(sweep.progress.ProgressBar, "advance", real_advance)
    rows = run_sweep(GRID, SEEDS, cache_dir=cache, **options)
    assert write_csv(rows, tmp_path / "results.csv").read_bytes() == loky_csv
    # the cluster is still usable: the interrupted client released its cells
    assert len(cluster.scheduler_info["workers"]) == 2


def test_workers_do_not_import_matplotlib_or_the_proofs(tmp_path, cluster) -> None:
    # The cells need numpy/scipy only; matplotlib and the SymPy proofs cost import time in every
    # worker process.
    run_sweep(
        [0.0, 4.0], [10], config=TINY, progress=False, backend="dask",
        scheduler=cluster.scheduler_address,
    )  # fmt: skip

    def heavy_modules():
        return sorted(
            name for name in sys.modules if name.split(".")[0] in {"matplotlib", "proofs", "sympy"}
        )

    with distributed.Client(cluster, set_as_default=False) as client:
        found = client.run(heavy_modules)
        ran = client.run(lambda: "simulations.sweep" in sys.modules)
    assert any(ran.values())  # the cells did run on these workers
    assert found == {address: [] for address in found}


def test_workers_open_no_client_of_their_own(tmp_path, cluster) -> None:
    # joblib's dask backend ran every batch under parallel_config(backend="dask"), which opens a
    # dask Client inside the worker (distributed.get_client). When the cluster closed under a
    # running cell (SIGTERM), that client could outlive its worker's event loop and print
    # "Exception ignored in Client.__del__ ... RuntimeError: IOLoop is closed" (a traceback on
    # the command's stderr: test_sigterm_closes_the_local_cluster failed about 1 run in 25).
    # The cells are submitted to the cluster directly: a worker never opens a client.
    run_sweep(
        [0.0, 4.0], [10], config=TINY, progress=False, backend="dask",
        scheduler=cluster.scheduler_address,
    )  # fmt: skip
    with distributed.Client(cluster, set_as_default=False) as client:
        clients = client.run_on_scheduler(lambda dask_scheduler: sorted(dask_scheduler.clients))
        ran = client.run(lambda: "simulations.sweep" in sys.modules)
    assert any(ran.values())  # the cells did run on these workers
    assert [name for name in clients if "worker" in name] == []


@pytest.mark.slow  # a whole reproduce run on the cluster
def test_reproduce_on_a_scheduler_writes_the_loky_bytes(tmp_path, capsys, cluster) -> None:
    small = ["--seeds", "10-11", "--levels", "2"]
    assert (
        main(["reproduce", "--out", str(tmp_path / "loky"), "--jobs", "1", "--quiet", *small]) == 0
    )
    argv = ["reproduce", "--out", str(tmp_path / "dask"), "--backend", "dask"]
    argv += ["--scheduler", cluster.scheduler_address, *small]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert f"4 to compute on the dask scheduler at {cluster.scheduler_address}" in err
    loky_bytes = (tmp_path / "loky" / "results.csv").read_bytes()
    assert (tmp_path / "dask" / "results.csv").read_bytes() == loky_bytes
    manifest = json.loads((tmp_path / "dask" / "manifest.json").read_text())
    assert (manifest["backend"], manifest["scheduler"]) == ("dask", cluster.scheduler_address)


# ---------------------------------------------------------------------------------------------
# Bad input: one line, exit code 2, nothing computed


def _reproduce(tmp_path, capsys, *options):
    try:
        code = main(["reproduce", "--out", str(tmp_path / "out"), "--seeds", "10",
                     "--levels", "2", "--quiet", *options])  # fmt: skip
    except SystemExit as exc:  # argparse
        code = exc.code
    out, err = capsys.readouterr()
    return code, err


def test_local_cluster_is_quiet_single_threaded_and_the_backends_own(monkeypatch) -> None:
    # The dask backend and benchmarks/bench_sweep.py each built this LocalCluster with its own
    # copy of the settings; both now call sweep.backends.local_cluster.
    made = []

    class FakeDistributed:
        @staticmethod
        def LocalCluster(**kwargs):  # noqa: N802 (dask's name)
            made.append(kwargs)
            raise RuntimeError("not started here")

    monkeypatch.setattr(sweep.backends, "_import_distributed", lambda: FakeDistributed)
    with pytest.raises(RuntimeError, match="not started here"):
        sweep.backends.local_cluster(3)
    assert made == [
        dict(
            n_workers=3,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            scheduler_kwargs={"dashboard_address": ":0"},
            silence_logs=logging.CRITICAL,
        )
    ]
    # run_sweep's cluster is that one: its failure to start is the sweep's one-line error
    with pytest.raises(sweep.SweepError, match=r"LocalCluster of 2 worker\(s\) did not start"):
        run_sweep(GRID, SEEDS, n_jobs=2, config=TINY, progress=False, backend="dask")
    assert [kwargs["n_workers"] for kwargs in made] == [3, 2]


def test_scheduler_without_the_dask_backend_is_refused(tmp_path, capsys) -> None:
    code, err = _reproduce(tmp_path, capsys, "--scheduler", "tcp://127.0.0.1:8786")
    assert code == 2
    assert err == (
        "gcul reproduce: error: --scheduler 'tcp://127.0.0.1:8786' needs --backend dask "
        "(got --backend loky)\n"
    )
    assert not (tmp_path / "out").exists()


def test_unknown_backend_is_refused(tmp_path, capsys) -> None:
    code, err = _reproduce(tmp_path, capsys, "--backend", "ray")
    assert code == 2 and len(err.splitlines()) == 1
    assert "argument --backend: invalid choice: 'ray'" in err


def test_missing_dask_says_what_to_install(tmp_path, capsys, monkeypatch) -> None:
    for name in ("dask.distributed", "distributed"):
        monkeypatch.setitem(sys.modules, name, None)  # `import dask.distributed` fails
    code, err = _reproduce(tmp_path, capsys, "--backend", "dask")
    assert code == 2 and len(err.splitlines()) == 1
    assert err.startswith(
        "gcul reproduce: error: --backend dask: the dask backend needs dask.distributed: "
        "pip install -e '.[dask]'"
    )
    assert not (tmp_path / "out").exists()
    with pytest.raises(ImportError, match=r"pip install -e '\.\[dask\]'"):
        run_sweep(GRID, SEEDS, config=TINY, progress=False, backend="dask")


def test_unreachable_scheduler_is_one_line_after_the_timeout(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sweep.backends, "SCHEDULER_TIMEOUT", 1.0)
    address = f"tcp://127.0.0.1:{_free_port()}"  # nothing listens there
    start = time.monotonic()
    code, err = _reproduce(tmp_path, capsys, "--backend", "dask", "--scheduler", address)
    assert time.monotonic() - start < 30  # the timeout holds (1 s here), not distributed's 30 s
    assert code == 2
    assert err.splitlines() == [
        f"gcul reproduce: error: --scheduler: cannot reach the dask scheduler at {address!r} "
        f"within 1 s (Timed out trying to connect to {address} after 1 s); is `dask scheduler` "
        "running there?",
    ]


def test_scheduler_without_workers_is_reported(monkeypatch) -> None:
    monkeypatch.setattr(sweep.backends, "SCHEDULER_TIMEOUT", 1.0)
    with distributed.LocalCluster(
        n_workers=0,
        processes=False,
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": ":0"},
        silence_logs=logging.ERROR,
    ) as empty:
        with pytest.raises(
            ConnectionError, match=r"has no worker after 1 s .*`dask worker \S+ --nthreads 1`"
        ):
            run_sweep(
                GRID, SEEDS, config=TINY, progress=False, backend="dask",
                scheduler=empty.scheduler_address,
            )  # fmt: skip


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"backend": "ray"}, ValueError, r"backend must be one of 'loky', 'dask'; got 'ray'"),
        ({"backend": None}, ValueError, r"backend must be one of .*; got None"),
        ({"scheduler": "tcp://h:8786"}, ValueError, r"scheduler .* needs backend='dask'"),
        ({"backend": "dask", "scheduler": ""}, TypeError, r"scheduler must be a dask scheduler"),
        ({"backend": "dask", "scheduler": 8786}, TypeError, r"scheduler must be .*; got 8786"),
    ],
)
def test_run_sweep_rejects_bad_backends(kwargs, error, match) -> None:
    with pytest.raises(error, match=match):
        run_sweep(GRID, SEEDS, config=TINY, progress=False, **kwargs)


# ---------------------------------------------------------------------------------------------
# SIGTERM on a LocalCluster run


@pytest.mark.slow
@pytest.mark.skipif(not LINUX, reason="reads the process table in /proc")
def test_sigterm_closes_the_local_cluster(tmp_path) -> None:
    out = tmp_path / "out"
    argv = gcul("reproduce", "--out", str(out))
    argv += ["--seeds", "10-29", "--levels", "41", "--jobs", "2", "--backend", "dask"]
    log = tmp_path / "stderr"
    with child_session(argv, log) as proc:
        # the workers are computing
        wait_while_running(proc, lambda: cached_cells(out) >= 2, 120, "cell finished", log)
        assert len(session_processes(proc.pid)) >= 3  # the command and its two workers at least
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=60)
        assert wait_for_session_end(proc.pid, 10) == {}
        err = (tmp_path / "stderr").read_text()
        assert code == 128 + signal.SIGTERM, err
        assert err.splitlines()[-1] == (
            f"gcul: interrupted (SIGTERM); finished cells are kept in {out / 'cache'} and a "
            "rerun resumes"
        )
        assert "Traceback" not in err, err




# ---------------------------------------------------------------------------------------------
# Hostile addresses, a fully cached folder, a worker killed at start-up (issue 14)


class _SilentListener:
    """A loopback TCP listener that accepts every connection and never answers."""

    def __init__(self) -> None:
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(16)
        self.port = self.socket.getsockname()[1]
        self.accepted: list[socket.socket] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:  # closed
                return
            self.accepted.append(connection)

    def close(self) -> None:
        self.socket.close()
        for connection in self.accepted:
            connection.close()


@pytest.fixture
def silent_listener():
    listener = _SilentListener()
    yield listener
    listener.close()


@pytest.fixture
def http_server():
    """`python3 -m http.server` on loopback, in a thread (its request log silenced)."""

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def _reproduce_in_a_thread(tmp_path, capsys, *options, seconds=120.0):
    """`gcul reproduce` as _reproduce does it, in a thread: a hang fails the test, not the suite."""
    result: dict[str, object] = {}
    thread = threading.Thread(
        target=lambda: result.update(code=_reproduce(tmp_path, capsys, *options)), daemon=True
    )
    start = time.monotonic()
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"gcul reproduce {' '.join(options)} hangs"
    code, err = result["code"]
    return code, err, time.monotonic() - start


@pytest.mark.slow  # 4 s: waits out the scheduler's connect timeout twice
@pytest.mark.parametrize("scheme", ["tcp://", ""])
def test_a_listener_that_never_answers_is_one_line_after_the_timeout(
    tmp_path, capsys, monkeypatch, silent_listener, scheme
):
    # A listener that accepts and never answers (or an address without tcp://) printed
    # `0/60 cells` and hung for 1,258 s in distributed.Client.__init__: the 10 s timeout covered
    # only the TCP connect, not the handshake.
    monkeypatch.setattr(sweep.backends, "SCHEDULER_TIMEOUT", 1.0)
    address = f"{scheme}127.0.0.1:{silent_listener.port}"
    code, err, seconds = _reproduce_in_a_thread(
        tmp_path, capsys, "--backend", "dask", "--scheduler", address
    )
    assert code == 2 and seconds < 30
    assert err.splitlines() == [
        f"gcul reproduce: error: --scheduler: {address!r} accepted the connection but did not "
        "answer as a dask scheduler within 1 s; is it a dask scheduler (`dask scheduler` listens "
        "on tcp://HOST:8786)?"
    ]
    assert silent_listener.accepted  # it did connect


def test_an_http_server_is_not_a_scheduler(tmp_path, capsys, monkeypatch, http_server):
    # `--scheduler tcp://127.0.0.1:PORT` where PORT is `python3 -m http.server` hung the same way.
    monkeypatch.setattr(sweep.backends, "SCHEDULER_TIMEOUT", 1.0)
    address = f"tcp://127.0.0.1:{http_server}"
    code, err, seconds = _reproduce_in_a_thread(
        tmp_path, capsys, "--backend", "dask", "--scheduler", address
    )
    assert code == 2 and seconds < 30
    (line,) = err.splitlines()
    # How the HTTP reply fails depends on the stack: current releases time out waiting for a
    # dask message; with numpy 1.24 the reply's bytes read as a frame length raise MemoryError
    # ("no dask scheduler answered at ..."). Either way: one line naming the option and address.
    assert line.startswith("gcul reproduce: error: --scheduler: ")
    assert repr(address) in line and "dask scheduler" in line


@pytest.mark.slow  # two reproduce runs, the first on a LocalCluster
def test_a_fully_cached_run_names_no_scheduler(tmp_path, capsys) -> None:
    # `--backend dask --scheduler tcp://127.0.0.1:9` into a fully cached folder exited 0 and
    # named the scheduler as the one used, in the header and in the manifest.
    assert _reproduce(tmp_path, capsys, "--jobs", "1")[0] == 0
    out = tmp_path / "out"
    argv = ["reproduce", "--out", str(out), "--seeds", "10", "--levels", "2"]
    assert main([*argv, "--backend", "dask", "--scheduler", "tcp://127.0.0.1:9"]) == 0
    err = capsys.readouterr().err
    header = (
        "gcul reproduce: 1 seed x 2 noise levels = 2 cells, all in the cache: nothing to "
        f"compute; cache {out / 'cache'}"
    )
    assert err.splitlines()[0] == header and "127.0.0.1:9" not in err
    manifest = json.loads((out / "manifest.json").read_text())
    assert (manifest["backend"], manifest["scheduler"]) == (None, None)
    assert (manifest["cells_computed"], manifest["cells_cached"]) == (0, 2)


@pytest.mark.skipif(not LINUX, reason="counts child processes in /proc")
@pytest.mark.slow  # starts and kills a LocalCluster
def test_a_worker_killed_while_the_local_cluster_starts_is_one_line(tmp_path, capsys) -> None:
    # A dask worker killed during LocalCluster start-up gave `RuntimeError: Nanny failed to
    # start.` as a traceback. Here each worker process kills itself (SIGKILL) as it starts.
    preload = tmp_path / "die_at_start.py"
    preload.write_text("import os, signal\n\nos.kill(os.getpid(), signal.SIGKILL)\n")
    before = _children()
    with dask.config.set({"distributed.worker.preload": [str(preload)]}):
        code, err = _reproduce(tmp_path, capsys, "--backend", "dask", "--jobs", "2")
    assert code == 2
    (line,) = err.splitlines()
    assert re.fullmatch(
        r"gcul reproduce: error: the dask LocalCluster of 2 worker\(s\) did not start \(.+\); the "
        r"cells finished before are cached and a rerun resumes",
        line,
    ), line
    assert _wait_until_gone(_children() - before) == set()
    code, err = _reproduce(tmp_path, capsys, "--backend", "dask", "--jobs", "2")  # the rerun
    assert code == 0, err


# ---------------------------------------------------------------------------------------------
# The only worker of a remote scheduler dies mid-sweep (issue 25, item 1)


@pytest.mark.slow
@pytest.mark.parametrize("killed", ["worker", "scheduler"])
def test_a_scheduler_that_loses_its_only_worker_is_one_line(tmp_path, monkeypatch, killed):
    # `gcul reproduce --backend dask --scheduler tcp://...` whose only worker was killed (-9)
    # waited forever in distributed.as_completed (no output, no exit, for 150 s and 420 s), while
    # the scheduler logged "Lost all workers". Now, after GCUL_DASK_NO_WORKER_TIMEOUT seconds with
    # no worker, it exits 2 with one line; the cells finished before stay cached. A killed
    # scheduler is one line too (the client's own ERROR log of its reconnection is silenced).
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    with contextlib.ExitStack() as children:  # ended in reverse: command, worker, scheduler
        scheduler = children.enter_context(child_session(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
             "--port", str(port), "--no-dashboard"],
            tmp_path / "scheduler.log", stdout=subprocess.STDOUT,
        ))  # fmt: skip
        worker = children.enter_context(child_session(
            [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
             "--no-nanny", "--no-dashboard"],
            tmp_path / "worker.log", stdout=subprocess.STDOUT,
        ))  # fmt: skip
        out = tmp_path / "out"
        env_timeout = "3"
        monkeypatch.setenv("GCUL_DASK_NO_WORKER_TIMEOUT", env_timeout)  # for the child
        log = tmp_path / "stderr"
        command = children.enter_context(child_session(
            gcul("reproduce", "--out", str(out), "--seeds", "10-11", "--levels", "9",
                 "--backend", "dask", "--scheduler", address),
            log, stdout=subprocess.STDOUT,
        ))  # fmt: skip
        wait_while_running(
            command, lambda: cached_cells(out) >= 1, 40, "cell finished", log, poll=0.02
        )  # the worker is computing
        os.kill((worker if killed == "worker" else scheduler).pid, signal.SIGKILL)
        kill_time = time.monotonic()
        cached = {path.name for path in (out / "cache").glob("*.json")}
        try:
            code = command.wait(timeout=30)  # the guard: a hang fails the test, not the suite
        except subprocess.TimeoutExpired:
            pytest.fail(f"gcul reproduce still waits 30 s after its dask {killed} was killed")
        waited = time.monotonic() - kill_time
        err = (tmp_path / "stderr").read_text()
        assert code == 2, err
        if killed == "worker":
            assert re.fullmatch(
                rf"gcul reproduce: error: the dask scheduler at {re.escape(repr(address))} has had "
                rf"no worker for {env_timeout} s \(GCUL_DASK_NO_WORKER_TIMEOUT\) with \d+ cells "
                "left to compute: its workers died or left; the cells finished before are cached "
                "and a rerun resumes",
                err.splitlines()[-1],
            ), err
            assert 3.0 <= waited < 25.0
        else:  # the client sees its connection close: no wait (the client logged a traceback)
            assert re.fullmatch(
                rf"gcul reproduce: error: the dask scheduler at {re.escape(repr(address))} "
                r"dropped the cells left to compute \(.+\), as it does when it stops or restarts; "
                "the cells finished before are cached and a rerun resumes",
                err.splitlines()[-1],
            ), err
        assert "Traceback" not in err and " ERROR " not in err, err
        assert [line for line in err.splitlines() if "error" in line.lower()] == [
            err.splitlines()[-1]
        ], err
        # every cell finished before the kill is still cached, and verifies
        assert cached <= {path.name for path in (out / "cache").glob("*.json")}
        assert 1 <= len(cached) < 18


@pytest.mark.parametrize("value", ["abc", "0", "-1", "nan", "inf", ""])
def test_a_bad_no_worker_timeout_is_refused_before_any_cell(tmp_path, capsys, monkeypatch, value):
    monkeypatch.setenv("GCUL_DASK_NO_WORKER_TIMEOUT", value)
    code, err = _reproduce(tmp_path, capsys, "--backend", "dask", "--scheduler", "tcp://h:1")
    assert code == 2
    assert err.splitlines() == [
        "gcul reproduce: error: the environment variable GCUL_DASK_NO_WORKER_TIMEOUT must be a "
        "positive number of seconds (how long a dask sweep waits with no worker); got "
        f"{value!r}"
    ]
    assert not (tmp_path / "out").exists()
