#!/usr/bin/env bash
# The ROMIOP nemesis: five replica JVMs, each in a network namespace of its own on one bridge, two
# clients appending unique entries through the group all the time, and one fault per run, bounded
# and healed (partition, oneway, flapping, kill-leader, kill-leader-join, kill-follower,
# kill-follower-join, pause-follower, pause-leader); then every live replica's log is checked
# (identical, lost, replies, double, liveness, errors, fault, collected). One line per run:
#   PARTITION <fault>/<consolidation>: PASS|FAIL acked=… lost=… diverged_at=… double=… stalled=… errors=… [failed=…]
# and a report per run in it/target/romiop-partition/. About a minute per run.
# Needs root (namespaces, a bridge, iptables); installs iproute2 and iptables when missing. Exits 1
# when a run failed.
# Usage: scripts/romiop-partition.sh [fault[,fault...]|all] [runs] [majority|atomic|both]
#   START_COUNTS=1 gives every replica a start_count_dir (a temporary directory, removed after the run).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then
  echo "romiop-partition.sh: skipped: not root (it makes network namespaces, a bridge and iptables rules)"
  exit 0
fi
if ! command -v ip >/dev/null 2>&1 || ! command -v iptables-restore >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iproute2 iptables >/dev/null
fi
# One reactor run, so that the class path names the sibling modules' target/classes (no install);
# offline first, as the project's machines build.
mkdir -p it/target
build() {
  mvn -q -B -ntp -Dstyle.color=never "$@" -pl it -am test-compile dependency:build-classpath \
    -Dmdep.outputFile=target/partition.classpath -Dmdep.includeScope=test >it/target/partition-build.log 2>&1
}
build -o || build || { cat it/target/partition-build.log; exit 1; }
cp="it/target/classes:it/target/test-classes:$(cat it/target/partition.classpath)"
# The JVM deletes its namespaces, veths, bridge and replicas after each run, and on Ctrl-C or
# SIGTERM in a shutdown hook; a JVM killed outright (kill -9) cannot, so whatever runs whose JVM
# is gone left behind is deleted here as well, however the run ended.
trap 'java -cp "$cp" org.lightwire.it.partition.PartitionRun clean || true' EXIT
java -Xmx512m -XX:+UseSerialGC -cp "$cp" org.lightwire.it.partition.PartitionRun "${1:-all}" "${2:-1}" "${3:-both}"
