#!/usr/bin/env bash
# Latency under real kernel packet loss (not part of the test run; needs root, ip and iptables):
# a JacORB server in a network namespace whose iptables rules drop each way, at random, a given
# fraction of its port's UDP datagrams and TCP segments; null calls and 64 KiB exactly-once calls
# over Lightwire and over IIOP alternate in blocks at each rate (bench LossSweep).
# Writes bench/target/loss-summary.json and bench/target/loss-sweep.png.
# Usage: scripts/loss-sweep.sh [nullCalls [bulkCalls [rates]]]   (default 2000 200 0,0.5,1,2,5,10; about 10 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v iptables >/dev/null || { apt-get update -qq && apt-get install -y -qq iptables iproute2 >/dev/null; }
mvn -q -B -ntp ${LIGHTWIRE_MVN_OPTS:-} -pl bench -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench-orb.classpath -Dmdep.includeScope=test >/dev/null
exec java ${LOSS_JAVA_OPTS:-} -cp "bench/target/classes:$(cat bench/target/bench-orb.classpath)" org.lightwire.bench.LossSweep \
  "${1:-2000}" "${2:-200}" "${3:-0,0.5,1,2,5,10}" bench/target
