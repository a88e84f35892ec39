#!/usr/bin/env bash
# Wall and CPU time of `gcul reproduce` (default grid: 10 seeds x 41 levels, default --jobs)
# before and after a change, side by side in one run: the two sides alternate, RUNS runs each,
# each run with a fresh empty --cache and --out; then every output of the two sides' first runs
# is compared byte for byte (cmp), and the CPU seconds of each side are summarised.
#
# Usage: benchmarks/reproduce_wall_time.sh OLD NEW [RUNS]
# OLD / NEW are each a source tree (an export: `git archive <commit> | tar -x -C DIR`) or a commit
# of the repository this script is in (exported here to a temporary folder, e.g.
# `benchmarks/reproduce_wall_time.sh 71c4f8c HEAD 3`). The trees are imported through PYTHONPATH
# (the loky workers inherit it); PYTHON (default: python) runs them. One line per run: the side,
# the wall seconds, the CPU seconds (user + sys of the command and every child it waited for,
# loky workers included: GNU time), the cells' summed wall seconds from the manifest, and the
# load average at the end. On a shared machine the CPU seconds are the figure to compare; the
# wall seconds follow the load. Then one line per output file that differs between the sides
# (timings.csv and manifest.json hold times and versions, and are left out) and the count of
# identical files; the exit status is 1 if any differs.
set -euo pipefail
old=$1 new=$2 runs=${3:-3}
python=${PYTHON:-python}
here=$(cd "$(dirname "$0")" && pwd)
top=$(git -C "$here" rev-parse --show-toplevel)
work=$(mktemp -d /tmp/reproduce-wall-XXXX)
trap 'rm -rf "$work"' EXIT
tree_of() {  # a folder as it is, or a commit exported to $work/tree-$2
  if [ -d "$1" ]; then
    (cd "$1" && pwd)
  else
    mkdir "$work/tree-$2"
    # from the repository's top: run in a subfolder, git archive exports that subfolder only,
    # and the side would then import whatever simulations package is installed
    git -C "$top" archive "$1" | tar -x -C "$work/tree-$2"
    echo "$work/tree-$2"
  fi
}
old=$(tree_of "$old" old)
new=$(tree_of "$new" new)
for tree in "$old" "$new"; do  # else the side would run the installed package instead
  [ -f "$tree/simulations/__init__.py" ] || { echo "no simulations package in $tree" >&2; exit 2; }
done
declare -A cpu_runs=([old]="" [new]="")
for run in $(seq 1 "$runs"); do
  for side in old new; do
    tree=$old; [ "$side" = new ] && tree=$new
    out=$work/$side-$run
    # run from inside the tree: `python -m` puts the current folder first on sys.path, before
    # PYTHONPATH, so a run started elsewhere (e.g. in a worktree) would import that code instead
    (cd "$tree" && PYTHONPATH=$tree /usr/bin/time -f "%e %U %S" -o "$work/time" \
      "$python" -m simulations.cli reproduce --out "$out" --cache "$work/cache-$side-$run" \
      --quiet >/dev/null)
    read -r wall user sys <"$work/time"
    cpu=$(echo "$user + $sys" | bc)
    cpu_runs[$side]+="$cpu "
    cells=$("$python" -c "import json,sys; print(json.load(open(sys.argv[1]))['cell_seconds_total'])" \
      "$out/manifest.json")
    printf '%s run %s: wall %s s, CPU %.1f s, cells %s s, load %s\n' "$side" "$run" "$wall" \
      "$cpu" "$cells" "$(cut -d' ' -f1 /proc/loadavg)"
    rm -rf "$work/cache-$side-$run"
    [ "$run" = 1 ] || rm -rf "$out"
  done
done
for side in old new; do
  # shellcheck disable=SC2086
  printf '%s: CPU min %s s, median %s s over %s runs\n' "$side" \
    "$(printf '%s\n' ${cpu_runs[$side]} | sort -n | head -1)" \
    "$(printf '%s\n' ${cpu_runs[$side]} | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}')" \
    "$runs"
done
same=0 differ=0
for path in "$work"/old-1/*; do
  name=$(basename "$path")
  case $name in timings.csv | manifest.json) continue ;; esac
  if cmp -s "$path" "$work/new-1/$name"; then
    same=$((same + 1))
  else
    differ=$((differ + 1))
    echo "differs: $name"
  fi
done
for path in "$work"/new-1/*; do
  [ -e "$work/old-1/$(basename "$path")" ] || { differ=$((differ + 1)); echo "only new: $(basename "$path")"; }
done
echo "outputs byte-identical (cmp): $same of $((same + differ)) (timings.csv, manifest.json left out)"
[ "$differ" = 0 ]
