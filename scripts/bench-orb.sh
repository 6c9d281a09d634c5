#!/usr/bin/env bash
# The paper's ORB benchmarks (issue 3, part 4; not part of the test run): Table 3 (null echo) and
# Figures 10-12 (ttcp one-way, exactly-once, struct sequence; 1 KiB..1 MiB, 10 MB per point),
# JacORB over Lightwire and over IIOP interleaved in one run, the server in a second JVM.
# Writes bench/target/summary.json and bench/target/fig1{0,1,2}-*.png.
# Usage: scripts/bench-orb.sh [runs [echoCalls [bytesPerPoint]]]   (default 3 10000 10000000)
# Each run first warms every path of both transports for 30 s (-Dbench.warmupSeconds=N through
# JAVA_TOOL_OPTIONS changes it): measured before both JITs settle, the figures are the compilers'.
set -euo pipefail
cd "$(dirname "$0")/.."
# One reactor run, so that the class path names the sibling modules' target/classes (no install).
mvn -q -B -ntp -pl bench -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench-orb.classpath -Dmdep.includeScope=test >/dev/null
exec java -cp "bench/target/classes:$(cat bench/target/bench-orb.classpath)" org.lightwire.bench.OrbBenchmark bench/target "$@"
