"""kill -9 at a random instant of ``gcul reproduce``, N times: no truncated output, a rerun that gives
the bytes of a clean run, nothing written through a symbolic link planted in ``--out``, no worker
left behind.

Not collected by pytest (``benchmarks/``); run it from the source tree::

    PYTHONPATH=$PWD python benchmarks/kill_reproduce.py --trials 30 --seed 14

Each trial:

1. ``--out`` starts either empty (even trials) or as a copy of a complete earlier run made with
   another ``--lam`` (odd trials: every table and figure differs, the cells are cached, so the
   killed run spends its time writing outputs over whole older ones, as in the issue).
   Symbolic links to "victim" files outside ``--out`` are planted at three output names and at one
   cache cell.
2. ``gcul reproduce --out OUT --seeds 10-11 --levels 9 --jobs 2 --quiet`` starts in a session of
   its own; after a delay drawn uniformly from [0, 1.05 x the variant's measured wall time]
   (``numpy.random.default_rng(seed)``), its main process gets SIGKILL (if it still runs).
3. Checks on what the kill left: every output present is either the earlier run's file or the
   clean run's, byte for byte (so none is truncated), and parses (PNG decoded by Pillow; PDF
   header, ``startxref`` pointing at its ``xref`` table, ``%%EOF``; CSV read, results.csv with
   its column ranges); a manifest present matches every file it lists; the victims are unchanged;
   every process of the session is gone within 10 s (the time is reported).
4. The rerun (no kill) exits 0; every output but ``timings.csv`` and ``manifest.json`` (wall
   times) is ``cmp``-identical to the clean run's, the manifest matches the files, no ``.*.tmp``
   and no lock file remain, the victims are unchanged and the links were replaced by files.

Trials go on until `--trials` runs were killed mid-run (a run that ended before its kill instant
is checked the same way and reported, not counted). Prints one line per trial and a summary; exits
1 if any check failed.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from simulations.sweep.processes import wait_for_session_end

GRID = ["--seeds", "10-11", "--levels", "9"]
VOLATILE = {"timings.csv", "manifest.json"}  # wall times: differ between any two runs
SAME = ("results.csv", "violations.csv", "phase_transition.png", "predictors.pdf")  # a sample
PLANTED = ("violations.md", "phase_transition.pdf", "results.csv")  # links to victims


def gcul(out: Path, *options: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "simulations.cli",
        "reproduce",
        "--out",
        str(out),
        *GRID,
        *options,
    ]


def run(out: Path, *options: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        gcul(out, *options), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    return time.perf_counter() - start


def pdf_is_whole(data: bytes) -> bool:
    match = re.search(rb"startxref\s+(\d+)\s+%%EOF\s*$", data)
    return (
        data.startswith(b"%PDF-")
        and match is not None
        and data[int(match[1]) : int(match[1]) + 4] == b"xref"
    )


def png_is_whole(data: bytes) -> bool:
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as image:
            image.verify()  # chunk CRCs
        with Image.open(io.BytesIO(data)) as image:
            image.load()  # decodes every pixel
    except Exception:
        return False
    return True


def parses(path: Path) -> bool:
    data = path.read_bytes()
    if path.suffix == ".png":
        return png_is_whole(data)
    if path.suffix == ".pdf":
        return pdf_is_whole(data)
    try:
        text = data.decode("utf-8")
        if path.name == "results.csv":
            from simulations.results import read_csv

            read_csv(path)
        elif path.suffix == ".csv":
            list(csv.reader(io.StringIO(text)))
        elif path.suffix == ".json":
            json.loads(text)
    except (ValueError, UnicodeDecodeError):
        return False
    return text.endswith("\n")


def manifest_ok(out: Path, planted: set[str] = frozenset()) -> bool:
    """Every file the manifest lists has its hash; ``planted`` names (links this script put
    there, over the earlier run's files, that the killed run had not replaced yet) are skipped."""
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    return all(
        (out / name).is_file() and hashlib.sha256((out / name).read_bytes()).hexdigest() == digest
        for name, digest in manifest["files"].items()
        if not (name in planted and (out / name).is_symlink())
    )


def shm_entries(pid: int) -> list[str]:
    shm = Path("/dev/shm")
    return sorted(p.name for p in shm.iterdir() if f"-{pid}-" in p.name or f"_{pid}_" in p.name)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--trials",
        type=int,
        default=30,
        help="runs killed mid-run (a run that ends before its "
        "kill is checked and reported too, and not counted)",
    )
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temp)")
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="kill-reproduce-"))
    work.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    options = ["--jobs", "2", "--quiet"]

    clean_out = work / "clean"
    shutil.rmtree(clean_out, ignore_errors=True)
    fresh_seconds = run(clean_out, *options)
    names = [n for n in json.loads((clean_out / "manifest.json").read_text())["files"]]
    names.append("manifest.json")
    clean = {name: (clean_out / name).read_bytes() for name in names}
    cells = sorted(p.name for p in (clean_out / "cache").glob("cell-*.json"))
    earlier_out = work / "earlier"
    shutil.rmtree(earlier_out, ignore_errors=True)
    run(earlier_out, *options, "--lam", "0.3")
    earlier = {name: (earlier_out / name).read_bytes() for name in names}
    scratch = work / "timing"
    shutil.copytree(earlier_out, scratch, dirs_exist_ok=False)
    over_seconds = run(scratch, *options)
    shutil.rmtree(scratch)
    print(
        f"clean run {fresh_seconds:.2f} s (18 cells, 2 jobs); over a complete earlier run "
        f"{over_seconds:.2f} s; {len(names)} outputs; work folder {work}"
    )

    failures: list[str] = []
    rows = []
    trial = -1
    while sum(1 for row in rows if row[3]) < args.trials and trial < 3 * args.trials:
        trial += 1
        over = trial % 2 == 1
        out = work / f"trial-{trial:02d}"
        victims = work / f"victims-{trial:02d}"
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(victims, ignore_errors=True)
        victims.mkdir()
        if over:
            shutil.copytree(earlier_out, out)
        else:
            (out / "cache").mkdir(parents=True)
        planted = {}
        for name in PLANTED:
            victim = victims / name
            victim.write_text(f"victim of trial {trial}: {name}\n", encoding="utf-8")
            (out / name).unlink(missing_ok=True)
            (out / name).symlink_to(victim)
            planted[out / name] = victim
        cell = str(rng.choice(cells))
        victim = victims / cell
        victim.write_text(f"victim of trial {trial}: {cell}\n", encoding="utf-8")
        (out / "cache" / cell).unlink(missing_ok=True)
        (out / "cache" / cell).symlink_to(victim)
        planted[out / "cache" / cell] = victim
        contents = {victim: victim.read_bytes() for victim in planted.values()}

        delay = float(rng.uniform(0.0, 1.05 * (over_seconds if over else fresh_seconds)))
        proc = subprocess.Popen(
            gcul(out, *options),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        time.sleep(delay)
        alive = proc.poll() is None
        if alive:
            os.kill(proc.pid, signal.SIGKILL)
        code = proc.wait()
        start = time.monotonic()
        left = wait_for_session_end(proc.pid, 10, poll=0.05)
        gone_after = time.monotonic() - start
        for pid in left:  # report, then clean up what we started
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.2)  # loky's resource tracker removes the semaphores of the dead
        shm_left = shm_entries(proc.pid)

        problems = []
        if left:
            problems.append(f"{len(left)} processes alive 10 s after the kill")
        n_cells = sum(
            1 for p in (out / "cache").glob("cell-*.json") if p.is_file() and not p.is_symlink()
        )
        present = [n for n in names if (out / n).is_file() and not (out / n).is_symlink()]
        new = sum(1 for n in present if n not in VOLATILE and (out / n).read_bytes() == clean[n])
        old = sum(
            1
            for n in present
            if over and n not in VOLATILE and (out / n).read_bytes() == earlier[n]
        )
        for name in present:
            data = (out / name).read_bytes()
            allowed = {clean[name]} | ({earlier[name]} if over else set())
            if name not in VOLATILE and data not in allowed:
                problems.append(f"{name}: neither the earlier nor the clean bytes ({len(data)} B)")
            if not parses(out / name):
                problems.append(f"{name}: does not parse ({len(data)} B)")
        if (out / "manifest.json").is_file() and not (out / "manifest.json").is_symlink():
            if not manifest_ok(out, set(PLANTED)):
                problems.append("manifest lists hashes that do not match")
        if any(victim.read_bytes() != before for victim, before in contents.items()):
            problems.append("a victim outside --out was written")
        stale = sorted(p.name for p in out.glob(".*.tmp"))
        written = (
            all(n in present and (out / n).read_bytes() == clean[n] for n in SAME)
            and "manifest.json" in present
            and manifest_ok(out, set(PLANTED))
        )
        phase = (
            "finished"
            if not alive
            else "after the last write (exiting)"
            if written
            else "writing outputs"
            if stale or (over and "manifest.json" not in present) or (not over and present)
            else f"start-up or sweep ({n_cells}/18 cells cached)"
        )

        rerun_seconds = run(out, *options)
        for name in names:
            if name in VOLATILE:
                continue
            same = subprocess.run(["cmp", "-s", str(out / name), str(clean_out / name)]).returncode
            if same != 0:
                problems.append(f"rerun: {name} differs from the clean run")
        if not manifest_ok(out):
            problems.append("rerun: manifest does not match")
        if list(out.glob(".*.tmp")) or list((out / "cache").glob(".*.tmp")):
            problems.append("rerun: temporary files left")
        if (out / ".gcul-reproduce.lock").exists():
            problems.append("rerun: lock file left")
        if any(victim.read_bytes() != before for victim, before in contents.items()):
            problems.append("rerun: a victim outside --out was written")
        if any(link.is_symlink() for link in planted):
            problems.append("rerun: a planted link is still a link")
        if problems:
            failures += [f"trial {trial}: {p}" for p in problems]
        rows.append((trial, over, delay, alive, code, phase, gone_after, len(stale), shm_left))
        print(
            f"trial {trial:2d} {'over earlier' if over else 'fresh       '} kill at {delay:5.2f} s "
            f"{'SIGKILL' if alive else 'exited '} ({code:4d}) during {phase:<40} "
            f"outputs left new/old {new:2d}/{old:2d}; "
            f"workers gone in {gone_after:4.2f} s; stale tmp {len(stale)}; /dev/shm left "
            f"{len(shm_left)}; rerun {rerun_seconds:.1f} s: "
            f"{'ok' if not problems else '; '.join(problems)}",
            flush=True,
        )

    killed = sum(1 for row in rows if row[3])
    phases: dict[str, int] = {}
    for row in rows:
        key = row[5].split(" (")[0]
        phases[key] = phases.get(key, 0) + 1
    print(
        f"\n{len(rows)} trials (seed {args.seed}), {killed} of them killed mid-run, the others "
        f"done before the kill ({', '.join(f'{k}: {v}' for k, v in sorted(phases.items()))}); "
        f"killed while a temporary file was being written: "
        f"{sum(1 for row in rows if row[3] and row[7])}; "
        f"max time for every process of the run to end after the kill "
        f"{max(row[6] for row in rows):.2f} s; /dev/shm entries left "
        f"{sum(len(row[8]) for row in rows)}; failed checks: {len(failures)}"
    )
    for failure in failures:
        print(f"  {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
