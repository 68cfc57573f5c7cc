#!/usr/bin/env bash
# Usage: .ci/deps.sh [container|zookeeper]
#
# Installs what the tests need and the machine lacks, and nothing else
# (idempotent): Debian's ZooKeeper 3.8 server, Curator 5.x jars for the
# interop peer, a JDK to compile the peer, jq and Kazoo for the bench
# anchors, and staticcheck. With "container", also docker.io and
# debootstrap for the container backend. With "zookeeper", only the
# ZooKeeper server (and the Java runtime it depends on): what `zkr demo`
# and `zkr server` need. Debian packages need root. Jackson 2's databind
# (with its core and annotations) runs the discovery format's Java peer.
set -euo pipefail
STATICCHECK_VERSION=${STATICCHECK_VERSION:-v0.8.2}

need=()
[[ -f /usr/share/java/zookeeper.jar ]] || need+=(zookeeper)
if [[ ${1:-} == zookeeper ]]; then
  if ((${#need[@]})); then
    if [[ $(id -u) != 0 ]]; then
      echo "deps.sh: missing zookeeper: install it as root (apt-get install zookeeper)" >&2
      exit 1
    fi
    echo "deps.sh: installing zookeeper"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zookeeper >/dev/null
  fi
  echo "deps.sh: zookeeper ready"
  exit 0
fi
[[ -f /usr/share/java/curator-recipes.jar ]] || need+=(libcurator-recipes-java)
[[ -f /usr/share/java/jackson-databind.jar ]] || need+=(libjackson2-databind-java)
command -v javac >/dev/null || need+=(openjdk-17-jdk-headless)
command -v jq >/dev/null || need+=(jq)
/usr/bin/python3 -c 'import kazoo' 2>/dev/null || need+=(python3-kazoo)
if [[ ${1:-} == container ]]; then
  command -v dockerd >/dev/null || need+=(docker.io)
  command -v debootstrap >/dev/null || need+=(debootstrap)
fi

if ((${#need[@]})); then
  if [[ $(id -u) != 0 ]]; then
    echo "deps.sh: missing ${need[*]}: install them as root (apt-get install ${need[*]})" >&2
    exit 1
  fi
  echo "deps.sh: installing ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

gobin=$(go env GOBIN)
gobin=${gobin:-$(go env GOPATH)/bin}
if ! command -v staticcheck >/dev/null && [[ ! -x $gobin/staticcheck ]]; then
  echo "deps.sh: installing staticcheck $STATICCHECK_VERSION"
  go install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"
fi
echo "deps.sh: ready"
