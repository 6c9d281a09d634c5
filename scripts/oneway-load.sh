#!/usr/bin/env bash
# A steady one-way ttcp stream of one size over one transport (bench OrbOnewayLoad): what the
# server received and at what rate, round by round. Not part of the test run; made to be watched
# with scripts/thread-cpu.sh 8 'TestServer|OrbOnewayLoad' from another shell.
# Usage: scripts/oneway-load.sh lightwire|iiop SIZE SECONDS [ROUNDS]   e.g. scripts/oneway-load.sh lightwire 65536 5
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -q -B -ntp -pl bench -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench-orb.classpath -Dmdep.includeScope=test >/dev/null
exec java -cp "bench/target/classes:$(cat bench/target/bench-orb.classpath)" org.lightwire.bench.OrbOnewayLoad "$@"
