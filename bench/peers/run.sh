#!/usr/bin/env bash
# The peer scenarios (README.md: counter-contended, queue-1to4) on Curator,
# Kazoo and zkrecipes against ONE fresh local ZooKeeper, every implementation in the
# same run. The anchor harness (../shared/bench-anchors/run-anchors.sh) knows only
# its own scenarios and refuses others, so this runner reuses its server scripts
# (zk-start.sh, zk-stop.sh, zk-stat.sh) and its CLI contract. Appends one JSON line
# per run to bench/results/peers-<date>.jsonl and prints a table.
#
# Knobs (environment): IMPLS (folders under bench/peers, "zkrecipes" for
#   bench/zkrecipes, or absolute paths) SCENARIOS PORT DUR WARM COUNTER_CLIENTS
#   QUEUE_VARIANTS RESULTS WORK ANCHORS (the harness's folder; default ../shared/bench-anchors
#   beside the project).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
project=$(cd "$here/../.." && pwd)
ANCHORS=${ANCHORS:-$(cd "$project/../shared/bench-anchors" && pwd)}
export ANCHORS

IMPLS=${IMPLS:-"curator kazoo zkrecipes"}
ALL_SCENARIOS="counter-contended queue-1to4"
SCENARIOS=${SCENARIOS:-$ALL_SCENARIOS}
PORT=${PORT:-22183}
DUR=${DUR:-8}                        # measured seconds per scenario
WARM=${WARM:-1}                      # unmeasured seconds before that
COUNTER_CLIENTS=${COUNTER_CLIENTS:-8}
QUEUE_VARIANTS=${QUEUE_VARIANTS:-"plain locking"}
RESULTS=${RESULTS:-$project/bench/results}
WORK=${WORK:-$project/.run/peers}

for sc in $SCENARIOS; do
  [[ " $ALL_SCENARIOS " == *" $sc "* ]] || { echo "unknown scenario $sc (known: $ALL_SCENARIOS)" >&2; exit 2; }
done
want() { [[ " $SCENARIOS " == *" $1 "* ]]; }

stamp=$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$RESULTS" "$WORK"
out=$RESULTS/peers-$stamp.jsonl
log=$WORK/peers-$stamp.log
zkdir=$WORK/zk
: >"$log"

dirs=()
for impl in $IMPLS; do
  case $impl in
    /*) dirs+=("$impl") ;;
    zkrecipes) dirs+=("$project/bench/zkrecipes") ;;
    *) dirs+=("$here/$impl") ;;
  esac
done

echo "== building: ${dirs[*]}" >&2
for d in "${dirs[@]}"; do
  if [[ -x $d/build ]]; then "$d/build" >>"$log" 2>&1 || { echo "build of $d failed, see $log" >&2; exit 1; }; fi
done

"$ANCHORS/zk-stop.sh" "$zkdir" 2>/dev/null || true
rm -rf "$zkdir"
"$ANCHORS/zk-start.sh" "$zkdir" "$PORT" no
trap '"$ANCHORS/zk-stop.sh" "$zkdir"' EXIT

jq -nc --arg date "$stamp" --arg impls "$IMPLS" --argjson cores "$(nproc)" --argjson dur "$DUR" --argjson warm "$WARM" \
  --arg scenarios "$SCENARIOS" --argjson cclients "$COUNTER_CLIENTS" --arg qvariants "$QUEUE_VARIANTS" --arg load "$(cut -d' ' -f1-3 /proc/loadavg)" \
  '{meta: {date: $date, impls: $impls, cores: $cores, zookeeper: "3.8.0 standalone, forceSync=no, tickTime=200",
           duration_s: $dur, warmup_s: $warm, scenarios: $scenarios, counter_clients: $cclients, queue_variants: $qvariants, loadavg: $load}}' >>"$out"

zkpkts() { "$ANCHORS/zk-stat.sh" "$PORT" || { sleep 0.5; "$ANCHORS/zk-stat.sh" "$PORT"; }; }

# run DIR SCENARIO CLIENTS DURATION [ROOT-SUFFIX [FLAGS...]]: the implementation's JSON line
# plus zk_pkts, the server's packets received during the run (less the second mntr's own).
run() {
  local dir=$1 sc=$2 n=$3 d=$4 suffix=${5:-} name line rc=0 before after
  shift $(( $# < 5 ? $# : 5 ))
  local variant=""
  if [[ ${1:-} == --variant ]]; then variant=$2; fi
  name=$(basename "$dir")
  before=$(zkpkts)
  line=$(timeout $((${d%.*} + WARM + 120)) "$dir/run" "$sc" --servers "127.0.0.1:$PORT" --clients "$n" \
           --duration-s "$d" --warmup-s "$WARM" --root "/bench/$name/$sc$suffix" "$@" 2>>"$log" | tail -1) || rc=$?
  after=$(zkpkts)
  if [[ $rc -ne 0 || $line != \{* ]]; then
    line=$(jq -nc --arg i "$name" --arg s "$sc" --argjson n "$n" --argjson rc "$rc" --arg v "$variant" \
             '{impl: $i, scenario: $s, clients: $n, failed_run: true, rc: $rc} + (if $v == "" then {} else {variant: $v} end)')
  fi
  jq -c --argjson p $((after - before - 1)) '. + {zk_pkts: $p}' <<<"$line"
}

echo "== server warm-up (discarded)" >&2
for d in "${dirs[@]}"; do run "$d" counter-contended "$COUNTER_CLIENTS" 2 -warmup >/dev/null; done

echo "== scenarios (interleaved by scenario so server drift hits every impl alike)" >&2
want counter-contended && for d in "${dirs[@]}"; do run "$d" counter-contended "$COUNTER_CLIENTS" "$DUR" | tee -a "$out" >&2; done
# queue-1to4: one producer and four consumers, five sessions; each variant is a row.
want queue-1to4 && for v in $QUEUE_VARIANTS; do
  for d in "${dirs[@]}"; do run "$d" queue-1to4 5 "$DUR" "-$v" --variant "$v" | tee -a "$out" >&2; done
done

jq -nc --arg load "$(cut -d' ' -f1-3 /proc/loadavg)" '{end: {loadavg: $load}}' >>"$out"
echo >&2
/usr/bin/python3 "$here/report.py" "$out"
echo >&2
echo "results: $out   stderr of the runs: $log   medians of several runs: $here/report.py FILE..." >&2
