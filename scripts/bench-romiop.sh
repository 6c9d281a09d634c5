#!/usr/bin/env bash
# The ROMIOP latency requirement, measured (bench RomiopLatency): two-way calls to a ROMIOP group of
# N replica JVMs (default 3) against IIOP to one replica, to every replica at once and to replica
# 1, 2, ..., N in turn, interleaved in rotating blocks in one run. Prints each path's median and p99,
# warm and cold (its first 200 calls after start), and the group's median and p99 over N IIOP calls
# in turn (requirement: at most 0.8) and over one IIOP call (for a group of 1: at most 1.25).
# Not part of the test run.
# Usage: scripts/bench-romiop.sh [calls [multicast|fanout [consolidation spec]]]
#   e.g. scripts/bench-romiop.sh 5000 multicast mode=first
# LIGHTWIRE_BENCH_OPTS holds options for the bench JVM alone (not Maven's, not the replicas'), e.g.
#   LIGHTWIRE_BENCH_OPTS="-Dromiop.replicas=1 -Dromiop.warmup=500" scripts/bench-romiop.sh 400
#   -Dromiop.pauseUs=P: the client thinks P microseconds before each timed call (calls now and then).
set -euo pipefail
cd "$(dirname "$0")/.."
read -r -a bench_opts <<< "${LIGHTWIRE_BENCH_OPTS:-}"
mvn -q -B -ntp -pl bench -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench-orb.classpath -Dmdep.includeScope=test >/dev/null
exec java "${bench_opts[@]}" -cp "bench/target/classes:$(cat bench/target/bench-orb.classpath)" org.lightwire.bench.RomiopLatency "$@"
