"""Check that two source trees compute bit-identical sweep rows on the paper's full grid.

Each tree computes every row of the grid (seeds 10-19 x the 41 levels of
:func:`simulations.synthetic.noise_levels` by default) with :func:`simulations.sweep.run_cell`, in
its own subprocess with that tree first on ``PYTHONPATH``; the rows are then compared column by
column on the bits of their values (``float.hex`` of every float, ``==`` of every int). Meant for
changes that must not change a single result (speed work): the reference is ``main``, e.g. an
export of it made with ``git archive``.

Usage::

    git -C /path/to/main archive main | tar -x -C /tmp/mainref
    python benchmarks/cell_identity.py --ref /tmp/mainref              # this tree vs the reference
    python benchmarks/cell_identity.py --ref /tmp/mainref --seeds 10-11 --levels 11

Prints one line per differing column (at most 20) and a last line ``identical rows: k/n``; the
exit status is 0 only when every row is identical (and both trees have the same grid).
``--skip COLUMN`` (repeatable) leaves a column out of the comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _compute(out: str, seeds: list[int], n_levels: int, n_jobs: int) -> None:
    """Compute the grid's rows with the ``simulations`` on ``sys.path``; write them as JSON."""
    from joblib import Parallel, delayed

    import simulations
    from simulations.sweep import run_cell
    from simulations.synthetic import noise_levels

    levels = [float(v) for v in noise_levels(n_levels)]
    cells = [(seed, level, noise) for seed in seeds for level, noise in enumerate(levels)]
    rows = Parallel(n_jobs=n_jobs)(
        delayed(run_cell)(seed, noise, level=level) for seed, level, noise in cells
    )
    encoded = [
        {
            key: (value.hex() if isinstance(value, float) else int(value))
            for key, value in row.items()
        }
        for row in rows
    ]
    Path(out).write_text(json.dumps({"source": simulations.__file__, "rows": encoded}))


def _rows_of(tree: Path, seeds: str, n_levels: int, n_jobs: int, workdir: Path) -> dict:
    out = workdir / f"rows-{abs(hash(str(tree)))}.json"
    env = dict(os.environ, PYTHONPATH=str(tree))
    command = [
        sys.executable,
        str(HERE / "cell_identity.py"),
        "--compute",
        str(out),
        "--seeds",
        seeds,
        "--levels",
        str(n_levels),
        "--jobs",
        str(n_jobs),
    ]
    subprocess.run(command, env=env, check=True, cwd=str(tree))
    data = json.loads(out.read_text())
    source = Path(data["source"]).resolve()
    if tree.resolve() not in source.parents:
        raise SystemExit(f"{tree}: imported simulations from {source}, not from the tree")
    return {(row["seed"], row["noise"]): row for row in data["rows"]}


def _parse_seeds(text: str) -> list[int]:
    seeds: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        seeds.extend(range(int(low), int(high or low) + 1))
    return seeds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", type=Path, help="the reference source tree (e.g. main)")
    parser.add_argument("--tree", type=Path, default=HERE.parent, help="tree to check (this one)")
    parser.add_argument("--seeds", default="10-19")
    parser.add_argument("--levels", type=int, default=41)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--skip", action="append", default=[], help="a column not compared")
    parser.add_argument("--compute", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.jobs < 1:  # one line, as gcul's commands (this driver imports no simulations)
        print(f"cell_identity.py: error: --jobs must be >= 1; got {args.jobs}", file=sys.stderr)
        return 2
    if args.compute:
        _compute(args.compute, _parse_seeds(args.seeds), args.levels, args.jobs)
        return 0
    if args.ref is None:
        parser.error("--ref is required")
    with tempfile.TemporaryDirectory() as tmp:
        ref = _rows_of(args.ref, args.seeds, args.levels, args.jobs, Path(tmp))
        new = _rows_of(args.tree, args.seeds, args.levels, args.jobs, Path(tmp))
    if ref.keys() != new.keys():
        print(f"the grids differ: {len(ref)} reference cells, {len(new)} cells")
        return 1
    identical, shown = 0, 0
    for cell in sorted(ref):
        a, b = ref[cell], new[cell]
        columns = (set(a) | set(b)) - set(args.skip)
        differing = sorted(c for c in columns if a.get(c) != b.get(c))
        identical += not differing
        for column in differing:
            if shown < 20:
                print(f"cell {cell}: {column}: {a.get(column)} != {b.get(column)}")
            shown += 1
    print(
        f"compared {len(next(iter(ref.values()))) - len(args.skip)} columns per row; "
        f"skipped {sorted(args.skip)}"
    )
    print(f"identical rows: {identical}/{len(ref)}")
    return 0 if identical == len(ref) else 1


if __name__ == "__main__":
    sys.exit(main())
