#!/usr/bin/env bash
# Null echo of several Lightwire server configurations and IIOP, interleaved in one run
# (bench OrbNullEchoAB). Not part of the test run.
# Usage: scripts/bench-echo-ab.sh [calls [variant...]]
#   variant: name or name:key=value,key=value (server properties), e.g.
#   scripts/bench-echo-ab.sh 20000 own shared:jacorb.lightwire.server.socket_per_connection=false
# Prefix with "taskset -c 0" to pin every JVM to one CPU; JAVA_TOOL_OPTIONS=-Decho.noIiop=true leaves IIOP out
# (ratios are then to the first variant), -Decho.warmup=N sets the warm-up calls per path (default 100,000:
# after 5,000 both JITs are still compiling, and Lightwire, with more code of its own, pays for more of it),
# -Decho.only=NAME measures one path alone (for per-thread CPU accounting; it compares nothing).
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -q -B -ntp -pl bench -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench-orb.classpath -Dmdep.includeScope=test >/dev/null
exec java -cp "bench/target/classes:$(cat bench/target/bench-orb.classpath)" org.lightwire.bench.OrbNullEchoAB "${@:-20000}"
