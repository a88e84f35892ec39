#!/usr/bin/env bash
# Wall and CPU time of `gcul reproduce` (default grid: 10 seeds x 41 levels, default --jobs)
# before and after a change, side by side: the two trees alternate, RUNS runs each, each run with
# a fresh empty --cache and --out.
#
# Usage: benchmarks/reproduce_wall_time.sh OLD_TREE NEW_TREE [RUNS]
# OLD_TREE / NEW_TREE are exports (`git archive <commit> | tar -x -C DIR`), imported through
# PYTHONPATH (the loky workers inherit it). One line per run: the tree, the wall seconds, the CPU
# seconds (user + sys of the command and every child it waited for, loky workers included: GNU
# time), the cells' summed wall seconds from the manifest, and the load average at the end. On a
# shared machine the CPU seconds are the figure to compare; the wall seconds follow the load.
set -euo pipefail
old=$1 new=$2 runs=${3:-3}
work=$(mktemp -d /tmp/reproduce-wall-XXXX)
trap 'rm -rf "$work"' EXIT
for run in $(seq 1 "$runs"); do
  for side in old new; do
    tree=$old; [ "$side" = new ] && tree=$new
    out=$work/$side-$run
    # run from inside the tree: `python -m` puts the current folder first on sys.path, before
    # PYTHONPATH, so a run started elsewhere (e.g. in a worktree) would import that code instead
    (cd "$tree" && PYTHONPATH=$tree /usr/bin/time -f "%e %U %S" -o "$work/time" \
      python -m simulations.cli reproduce --out "$out" --cache "$work/cache-$side-$run" --quiet \
      >/dev/null)
    read -r wall user sys <"$work/time"
    cells=$(python -c "import json,sys; print(json.load(open(sys.argv[1]))['cell_seconds_total'])" \
      "$out/manifest.json")
    printf '%s run %s: wall %s s, CPU %.1f s, cells %s s, load %s\n' "$side" "$run" "$wall" \
      "$(echo "$user + $sys" | bc)" "$cells" "$(cut -d' ' -f1 /proc/loadavg)"
    rm -rf "$out" "$work/cache-$side-$run"
  done
done
