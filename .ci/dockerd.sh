#!/usr/bin/env bash
# Usage: .ci/dockerd.sh start|stop DIR
#
# Starts (or stops) a private Docker daemon whose state lives in DIR: socket
# DIR/docker.sock, data DIR/data, log DIR/dockerd.log, PID DIR/pid. It has no
# bridge and changes no iptables rules, so containers must use host
# networking (see shared/notes/containers.md). Clients reach it with
#   DOCKER_HOST=unix://DIR/docker.sock
# stop removes the containers testcontainers left (label
# org.testcontainers=true), stops the daemon by its PID (SIGTERM, then
# SIGKILL after 20 s) and unmounts what it left under DIR. Needs root.
set -euo pipefail
usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
action=${1:-}; dir=${2:-}
[[ -n $action && -n $dir ]] || usage
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
sock=$dir/docker.sock
export DOCKER_HOST=unix://$sock

running() { [[ -f $dir/pid ]] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; }

start() {
  if running; then
    echo "dockerd.sh: already running (pid $(cat "$dir/pid")), DOCKER_HOST=$DOCKER_HOST"
    return 0
  fi
  command -v dockerd >/dev/null || { echo "dockerd.sh: no dockerd (apt-get install docker.io)" >&2; exit 1; }
  dockerd --iptables=false --ip6tables=false --ip-masq=false --bridge=none \
    --storage-driver=overlay2 --data-root "$dir/data" --exec-root "$dir/exec" \
    -H "$DOCKER_HOST" --pidfile "$dir/dockerd.pid" \
    >"$dir/dockerd.log" 2>&1 </dev/null &
  echo $! >"$dir/pid"
  for _ in $(seq 1 300); do
    if docker info >/dev/null 2>&1; then
      echo "dockerd.sh: started pid $(cat "$dir/pid"), DOCKER_HOST=$DOCKER_HOST"
      return 0
    fi
    if ! running; then break; fi
    sleep 0.1
  done
  echo "dockerd.sh: daemon not answering; log tail:" >&2
  tail -20 "$dir/dockerd.log" >&2
  stop
  exit 1
}

stop() {
  if running; then
    local pid ids
    pid=$(cat "$dir/pid")
    ids=$(docker ps -aq --filter label=org.testcontainers=true 2>/dev/null || true)
    if [[ -n $ids ]]; then
      # shellcheck disable=SC2086 # one id per word
      docker rm -f $ids >/dev/null 2>&1 || true
    fi
    kill "$pid"
    for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid"; fi
    echo "dockerd.sh: stopped pid $pid"
  fi
  rm -f "$dir/pid"
  # Mounts the daemon left (netns, overlays of killed containers), deepest first.
  findmnt -rn -o TARGET | grep -F "$dir/" | sort -r | while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
}

case $action in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac
