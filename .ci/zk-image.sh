#!/usr/bin/env bash
# Usage: .ci/zk-image.sh [TAG]     (default zkrecipes/zookeeper:3.8)
#
# Builds a ZooKeeper 3.8 image for the container test backend without any
# container registry: debootstrap a minimal Debian bookworm from the apt
# mirror this machine already uses, install Debian's ZooKeeper and a Java 17
# runtime in it, add an entrypoint, and `docker import` the tree. Does
# nothing if the image exists. Needs root, debootstrap, and DOCKER_HOST of a
# running daemon (.ci/dockerd.sh).
#
# The entrypoint writes zoo.cfg from the same environment variables as the
# official zookeeper image's (ZOO_TICK_TIME, ZOO_SERVERS, ZOO_CFG_EXTRA,
# JVMFLAGS, ...), so zktesting/zkcontainer drives both images alike, and
# logs at INFO to the console.
set -euo pipefail
tag=${1:-zkrecipes/zookeeper:3.8}
here=$(cd "$(dirname "$0")" && pwd)

if docker image inspect "$tag" >/dev/null 2>&1; then
  echo "zk-image.sh: $tag exists"
  exit 0
fi

# mirror prints the Debian archive this machine's apt uses (not the
# security archive), or DEBIAN_MIRROR if set.
mirror() {
  if [[ -n ${DEBIAN_MIRROR:-} ]]; then echo "$DEBIAN_MIRROR"; return; fi
  local m=""
  shopt -s nullglob
  local sources=(/etc/apt/sources.list.d/*.sources) lists=(/etc/apt/sources.list /etc/apt/sources.list.d/*.list)
  if ((${#sources[@]})); then
    m=$(awk 'BEGIN{RS=""} /(^|\n)Types:[^\n]*deb([ \n]|$)/ && !/security/ {
           if (match($0, /URIs:[ \t]*[^ \t\n]+/)) { s=substr($0, RSTART, RLENGTH); sub(/URIs:[ \t]*/, "", s); print s; exit } }' "${sources[@]}")
  fi
  if [[ -z $m ]]; then
    m=$(sed -E 's/\[[^]]*\]//' "${lists[@]}" 2>/dev/null | awk '$1=="deb" && $3 !~ /security/ {print $2; exit}')
  fi
  [[ -n $m ]] || { echo "zk-image.sh: no Debian mirror in apt's sources; set DEBIAN_MIRROR" >&2; exit 1; }
  echo "$m"
}

work=$(mktemp -d /var/tmp/zk-image.XXXXXX)
root=$work/rootfs
cleanup() {
  if mountpoint -q "$root/proc" 2>/dev/null; then umount "$root/proc" || umount -l "$root/proc"; fi
  rm -rf "$work"
}
trap cleanup EXIT

start=$(date +%s)
url=$(mirror)
echo "zk-image.sh: debootstrap bookworm from $url"
debootstrap --variant=minbase bookworm "$root" "$url" >"$work/debootstrap.log" 2>&1 ||
  { tail -30 "$work/debootstrap.log" >&2; exit 1; }

cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
mount -t proc proc "$root/proc"
chroot "$root" /usr/bin/env DEBIAN_FRONTEND=noninteractive bash -c '
  set -euo pipefail
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends \
    openjdk-17-jre-headless libzookeeper-java liblog4j1.2-java libslf4j-java >/dev/null
  apt-get clean
  rm -rf /var/lib/apt/lists/* /usr/share/doc /usr/share/man /usr/share/locale
' >"$work/apt.log" 2>&1 || { tail -30 "$work/apt.log" >&2; exit 1; }
umount "$root/proc"
install -m 0755 "$here/zk-image/docker-entrypoint.sh" "$root/usr/local/bin/docker-entrypoint.sh"
install -D -m 0644 "$here/zk-image/log4j.properties" "$root/etc/zookeeper-image/log4j.properties"
: >"$root/etc/resolv.conf"

tar -C "$root" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' \
  - "$tag" >/dev/null
echo "zk-image.sh: built $tag in $(($(date +%s) - start)) s"
