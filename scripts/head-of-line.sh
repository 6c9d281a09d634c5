#!/usr/bin/env bash
# Head-of-line blocking under real kernel loss (not part of the test run; needs root, ip and
# iptables): small calls from several callers sharing one client ORB, with and without one more
# caller moving 1 MiB exactly-once calls, over Lightwire and over IIOP, against a JacORB server in
# a network namespace that drops a fraction of its port's packets each way (bench HeadOfLine).
# Writes bench/target/head-of-line.json.
# Usage: scripts/head-of-line.sh [secondsPerPhase [lossPercent [smallCallers [rounds]]]]
#   (default 15 s, 2%, 15 callers, 2 rounds: about 3 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v iptables >/dev/null || { apt-get update -qq && apt-get install -y -qq iptables iproute2 >/dev/null; }
mvn -q -B -ntp ${LIGHTWIRE_MVN_OPTS:-} -pl bench -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench-orb.classpath -Dmdep.includeScope=test >/dev/null
exec java -cp "bench/target/classes:$(cat bench/target/bench-orb.classpath)" org.lightwire.bench.HeadOfLine \
  "${1:-15}" "${2:-2}" "${3:-15}" "${4:-2}" bench/target/head-of-line.json
