#!/usr/bin/env bash
# Many client ORBs against one JacORB server on loopback (not part of the test run): client JVMs
# each holding a share of the ORBs, one caller per ORB making null calls, all starting together;
# Lightwire, then IIOP (a fresh server each, order alternating by round); prints calls per second,
# median, p99, p99.9, the calls that failed and the server's threads, heap and direct memory
# halfway through (bench ManyClients); the server's POA queue holds twice the callers' calls
# (jacorb.poa.queue_max) and its 20 request processors stay (thread_pool_min = thread_pool_max).
# Writes bench/target/many-clients.json.
# Usage: scripts/many-clients.sh [orbs [jvms [seconds [rounds]]]]   (default 256 4 20 1; about 4 minutes)
# MANY_JAVA_OPTS=-Djacorb.lightwire.X=V passes Lightwire settings to the server and every client ORB;
# MANY_JAVA_OPTS=-Dmany.serverJvmArgs=-XX:StartFlightRecording=delay=84s,duration=14s,filename=/tmp/server-%t.jfr
# gives the server JVM options (%t: the transport; the server is killed at the end, so a recording needs a duration).
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -q -B -ntp ${LIGHTWIRE_MVN_OPTS:-} -pl bench -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench-orb.classpath -Dmdep.includeScope=test >/dev/null
exec java ${MANY_JAVA_OPTS:-} -cp "bench/target/classes:$(cat bench/target/bench-orb.classpath)" org.lightwire.bench.ManyClients \
  "${1:-256}" "${2:-4}" "${3:-20}" "${4:-1}" bench/target/many-clients.json
