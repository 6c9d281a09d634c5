#!/usr/bin/env bash
# The main job: builds Lightwire and runs the loopback demo, a server JVM and a client JVM making
# calls over Lightwire/UDP, side by side with a raw UDP ping-pong measured in the same run.
# Usage: scripts/demo.sh [rounds] [callsPerBlock] [megabytes]
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q -ntp -pl bench -am package -DskipTests
# Both JVMs on one CPU (the server JVM inherits the affinity): on this kind of VM, cross-CPU
# wake-ups are bimodal and would hide the protocol behind the scheduler.
exec taskset -c 0 java -cp bench/target/lightwire-bench.jar org.lightwire.bench.LoopbackDemo "$@"
