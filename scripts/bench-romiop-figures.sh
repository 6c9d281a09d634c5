#!/usr/bin/env bash
# The ROMIOP paper's Figures 6-11 (issue 4, part 6; not part of the test run): two-way latency
# against payload size for 1, 2, 3 replicas against IIOP, first reply / atomic / 51% quorum, and
# oneway throughput against JacORB's MIOP, each with its anchor in the same run (bench RomiopFigures).
# Writes bench/target/romiop-summary.json and bench/target/fig{6-7-latency,8-9-consolidation,10-11-oneway}.png.
# Usage: scripts/bench-romiop-figures.sh [callsPerPoint [onewaysPerPoint]]   (default 1000 3000; a few minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -q -B -ntp -pl bench -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench-orb.classpath -Dmdep.includeScope=test >/dev/null
exec java -cp "bench/target/classes:$(cat bench/target/bench-orb.classpath)" org.lightwire.bench.RomiopFigures "${1:-1000}" "${2:-3000}" bench/target
