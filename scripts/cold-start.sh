#!/usr/bin/env bash
# Latency against call number from a cold start (not part of the test run): per round a fresh
# server JVM and a fresh client JVM for Lightwire, then for IIOP (order alternating), each client
# timing its first calls (echoes of 0, 64, 1,024 and 8,192 characters in turn); prints per window
# of call numbers (1-10, 11-100, 101-1,000, 1,001-10,000) the median over the rounds of each
# round's median and p99, both transports and their ratio (bench ColdStart).
# Writes bench/target/cold-start.json.
# Usage: scripts/cold-start.sh [rounds [calls]]   (default 6 rounds of 10,000 calls; about 3 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -q -B -ntp ${LIGHTWIRE_MVN_OPTS:-} -pl bench -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench-orb.classpath -Dmdep.includeScope=test >/dev/null
exec java -cp "bench/target/classes:$(cat bench/target/bench-orb.classpath)" org.lightwire.bench.ColdStart \
  "${1:-6}" "${2:-10000}" bench/target/cold-start.json
