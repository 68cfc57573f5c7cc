#!/bin/bash
# Entrypoint of the image .ci/zk-image.sh builds: writes zoo.cfg from the
# environment variables of the official zookeeper image's entrypoint (same
# names, same defaults) unless one exists, then runs the server in the
# foreground with its log at INFO on the console.
set -euo pipefail
set -f # values like 4lw.commands.whitelist=* are not globs

conf=${ZOO_CONF_DIR:-/conf}
data=${ZOO_DATA_DIR:-/data}
datalog=${ZOO_DATA_LOG_DIR:-/datalog}
mkdir -p "$conf" "$data" "$datalog"

if [[ ! -f $conf/zoo.cfg ]]; then
  {
    echo "dataDir=$data"
    echo "dataLogDir=$datalog"
    echo "tickTime=${ZOO_TICK_TIME:-2000}"
    echo "initLimit=${ZOO_INIT_LIMIT:-5}"
    echo "syncLimit=${ZOO_SYNC_LIMIT:-2}"
    echo "autopurge.snapRetainCount=${ZOO_AUTOPURGE_SNAPRETAINCOUNT:-3}"
    echo "autopurge.purgeInterval=${ZOO_AUTOPURGE_PURGEINTERVAL:-0}"
    echo "maxClientCnxns=${ZOO_MAX_CLIENT_CNXNS:-60}"
    echo "standaloneEnabled=${ZOO_STANDALONE_ENABLED:-true}"
    echo "admin.enableServer=${ZOO_ADMINSERVER_ENABLED:-true}"
    if [[ -n ${ZOO_4LW_COMMANDS_WHITELIST:-} ]]; then
      echo "4lw.commands.whitelist=$ZOO_4LW_COMMANDS_WHITELIST"
    fi
    for server in ${ZOO_SERVERS:-server.1=localhost:2888:3888;2181}; do
      echo "$server"
    done
    for entry in ${ZOO_CFG_EXTRA:-}; do
      echo "$entry"
    done
  } >"$conf/zoo.cfg"
fi
if [[ ! -f $data/myid ]]; then
  echo "${ZOO_MY_ID:-1}" >"$data/myid"
fi

# Debian's zookeeper.jar names its dependencies in its manifest but no SLF4J
# binding: without one the server would log nothing.
cp=/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-log4j12.jar:/usr/share/java/log4j-1.2.jar
# shellcheck disable=SC2086 # JVMFLAGS holds several flags
exec java ${JVMFLAGS:-} -cp "$cp" \
  -Dlog4j.configuration=file:/etc/zookeeper-image/log4j.properties \
  -Dzookeeper.log.dir=/tmp \
  org.apache.zookeeper.server.quorum.QuorumPeerMain "$conf/zoo.cfg"
