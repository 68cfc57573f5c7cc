#!/usr/bin/env bash
# Tree-cache bench: Curator's CuratorCache, Kazoo's TreeCache and zkrecipes'
# recipes/cache against ONE fresh local ZooKeeper, every implementation in the
# same run. Appends one JSON line per run to bench/results/cache-<date>.jsonl
# and prints tables. See README.md.
#
# Knobs (environment): IMPLS (folders under bench/cache, or absolute paths)
#   SCENARIOS PORT WORK RESULTS ANCHORS, and DRIVER_FLAGS passed to the driver
#   (e.g. DRIVER_FLAGS="-churn-s 5 -heap-sizes 10000").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
project=$(cd "$here/../.." && pwd)
# The anchor harness beside the project (../shared); ANCHORS names it
# elsewhere, e.g. from a git worktree.
anchors=$(cd "${ANCHORS:-$project/../shared/bench-anchors}" && pwd)
export ANCHORS=$anchors # for curator/build and curator/run

IMPLS=${IMPLS:-"curator kazoo zkrecipes"}
SCENARIOS=${SCENARIOS:-"cache-load cache-reconnect cache-churn heap"}
PORT=${PORT:-22182}
RESULTS=${RESULTS:-$project/bench/results}
WORK=${WORK:-$project/.run/cache}
DRIVER_FLAGS=${DRIVER_FLAGS:-}

stamp=$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$RESULTS" "$WORK"
out=$RESULTS/cache-$stamp.jsonl
log=$WORK/cache-$stamp.log
zkdir=$WORK/zk
: >"$log"

dirs=()
for impl in $IMPLS; do
  case $impl in /*) dirs+=("$impl") ;; *) dirs+=("$here/$impl") ;; esac
done

echo "== building: driver, cutproxy, $IMPLS" >&2
export GOWORK=off
(cd "$here/driver" && go build -o cachedriver .) >>"$log" 2>&1 || { echo "driver build failed, see $log" >&2; exit 1; }
(cd "$here/cutproxy" && go build -o cutproxy .) >>"$log" 2>&1 || { echo "cutproxy build failed, see $log" >&2; exit 1; }
for d in "${dirs[@]}"; do
  if [[ -x $d/build ]]; then "$d/build" >>"$log" 2>&1 || { echo "build of $d failed, see $log" >&2; exit 1; }; fi
done

"$anchors/zk-stop.sh" "$zkdir" 2>/dev/null || true
rm -rf "$zkdir"
"$anchors/zk-start.sh" "$zkdir" "$PORT" no
trap '"$anchors/zk-stop.sh" "$zkdir"' EXIT

# shellcheck disable=SC2086
"$here/driver/cachedriver" -port "$PORT" -impls "${dirs[*]}" -scenarios "$SCENARIOS" \
  -out "$out" -log "$log" -proxy "$here/cutproxy/cutproxy" $DRIVER_FLAGS
echo >&2
echo "results: $out   stderr of the runs: $log" >&2
echo "medians of several runs: $here/driver/cachedriver report FILE..." >&2
