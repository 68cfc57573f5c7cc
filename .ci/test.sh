#!/usr/bin/env bash
# Usage: .ci/test.sh (what `make test` runs)
#
# Every test of the root module and of the nested ones, with the race
# detector, against local ZooKeeper servers. A package spends most of its
# time waiting (on servers, sessions and timeouts), not on the CPU, so:
# the root module's packages run TEST_P at a time, and a package's
# parallel tests TEST_PARALLEL at a time (not GOMAXPROCS); the chaos run
# (CHAOS_DURATION, 2m by default) starts first, in a go test of its own,
# so that it overlaps the others instead of following them; the nested
# modules run beside them too. The root module's output comes as it runs,
# the chaos run's and the nested modules' after it, each whole. Then each
# package's time, slowest first, so that a package that grows slow is seen
# the day it does; after a failure, its cause in short. The exit status is 1
# if any of them failed.
set -uo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
TEST_P=${TEST_P:-6}
TEST_PARALLEL=${TEST_PARALLEL:-4}
CHAOS='^TestChaos_NothingHeldTwiceNothingLeftBehind$'
NESTED=(zktesting/zkcontainer observe/otelzk)
flags=(-race -count=1 -timeout 20m -parallel "$TEST_PARALLEL")

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
start=$SECONDS

# The chaos run first: it is the longest.
$GO test "${flags[@]}" -run "$CHAOS" ./reliability/ >"$logs/chaos" 2>&1 &
pids=($!)
names=("chaos run")
files=("$logs/chaos")
for m in "${NESTED[@]}"; do
  (cd "$m" && $GO test "${flags[@]}" ./...) >"$logs/${m//\//-}" 2>&1 &
  pids+=($!)
  names+=("module $m")
  files+=("$logs/${m//\//-}")
done

status=0
$GO test "${flags[@]}" -p "$TEST_P" -skip "$CHAOS" ./... 2>&1 | tee "$logs/root" || status=1

for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || status=1
  echo "=== ${names[$i]}"
  cat "${files[$i]}"
done

# go test ends each package with "ok  <pkg>  12.3s" or "FAIL <pkg> 12.3s".
echo "=== package times, slowest first ($((SECONDS - start)) s in all)"
for f in "$logs"/*; do
  label=""
  [[ $f == "$logs/chaos" ]] && label=" (chaos run)"
  awk -v label="$label" '
    ($1 == "ok" || $1 == "FAIL") && $3 ~ /^[0-9.]+s$/ {
      printf "%8.1f s  %-4s %s%s\n", substr($3, 1, length($3) - 1), $1, $2, label
    }
    $1 == "FAIL" && $3 == "[build" { printf "       - s  FAIL %s%s (build failed)\n", $2, label }
  ' "$f"
done | sort -rn

# A failure's cause, in short, last: a long log's middle is cut by whoever
# shows its beginning and end.
if ((status)); then
  echo "=== failures, in short"
  # testify's "Error:" and "Messages:" go on in lines indented by two tabs.
  awk '
    /--- FAIL|violation|^panic:|^FAIL[[:space:]]/ { print; more = 0; next }
    /^[[:space:]]+(Error|Messages):/ { print; more = 3; next }
    more > 0 && /^ +\t +\t/ { print; more--; next }
    { more = 0 }
  ' "$logs"/* | cut -c1-400 | head -80
fi
exit $status
