#!/usr/bin/env bash
# The main job: an echo server JVM and a client JVM on loopback, Lightwire chosen by JacORB
# properties alone, the null echo and a ttcp transfer over Lightwire and IIOP in the same run.
# Usage: scripts/main-job.sh [echoCalls [ttcpMegabytes]]
set -euo pipefail
cd "$(dirname "$0")/.."
# One reactor run, so that the class path names the sibling modules' target/classes (no install).
mvn -q -B -ntp -pl it -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/main-job.classpath -Dmdep.includeScope=test >/dev/null
exec java -cp "it/target/classes:it/target/test-classes:$(cat it/target/main-job.classpath)" org.lightwire.it.MainJob "$@"
