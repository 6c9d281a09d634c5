#!/usr/bin/env bash
# Benchmarks (not part of the test run): the interleaved loopback comparison with more rounds,
# then JMH's engine-only costs (transport; ROMIOP's four engines per group call; a ROMIOP client's
# consolidation of one call) and the null call by client path, with the allocation profiler.
# Usage: scripts/bench.sh [extra JMH arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q -ntp -pl bench -am package -DskipTests
# Both JVMs on one CPU: this VM's cross-CPU wake-ups are bimodal and would swamp the protocol.
taskset -c 0 java -cp bench/target/lightwire-bench.jar org.lightwire.bench.LoopbackDemo 40 2000 10
java -jar bench/target/lightwire-bench.jar EngineBenchmark -prof gc
java -jar bench/target/lightwire-bench.jar GroupEngineBenchmark -prof gc
java -jar bench/target/lightwire-bench.jar ConsolidationBenchmark -prof gc
exec taskset -c 0 java -jar bench/target/lightwire-bench.jar NullCallBenchmark -bm avgt -tu us -prof gc "$@"
