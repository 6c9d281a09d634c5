#!/usr/bin/env bash
# One bulk two-way call size, Lightwire and IIOP alternating call by call in one run (bench
# OrbSizeAB): per-call median and p90 and the ratio. Not part of the test run.
# Usage: scripts/bench-size-ab.sh [struct|exactly_once [size [calls]]]   (default struct 65536 2000)
#   JAVA_TOOL_OPTIONS="-Dab.block=250" alternates in blocks; "-Dab.only=lightwire" runs one transport.
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -q -B -ntp -pl bench -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench-orb.classpath -Dmdep.includeScope=test >/dev/null
exec java -cp "bench/target/classes:$(cat bench/target/bench-orb.classpath)" org.lightwire.bench.OrbSizeAB "$@"
