#!/usr/bin/env bash
# Issue 4's latency requirement, measured (bench RomiopLatency): two-way calls to a ROMIOP group
# of 3 replica JVMs against IIOP to one replica, interleaved in one run. Not part of the test run.
# Usage: scripts/bench-romiop.sh [calls [multicast|fanout [consolidation spec]]]
#   e.g. scripts/bench-romiop.sh 5000 multicast mode=first
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -q -B -ntp -pl bench -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench-orb.classpath -Dmdep.includeScope=test >/dev/null
exec java -cp "bench/target/classes:$(cat bench/target/bench-orb.classpath)" org.lightwire.bench.RomiopLatency "$@"
