#!/usr/bin/env bash
# The ROMIOP nemesis sweep (docs/romiop.md, "Tests"): seeded simulations of a group of 3-5 members
# and 2-3 clients under a nemesis (partitions, flapping partitions, one-way link failures, crashes
# and restarts with the same id, GC pauses, loss/duplication/reordering, or all of them mixed),
# each run checked for one total order, no duplicate delivery, accepted replies in the order, and
# progress after the heal. Prints each failing seed with the command that replays it, then the
# failure rates per nemesis and group size. Not part of the test run.
# Usage: scripts/romiop-nemesis.sh [seeds [first [nemesis|all [threads]]]]
#   seeds 10000, first 1, nemesis mixed (none loss partition flap oneway crash restart pause mixed staggered replay hostile founding), a thread per core.
#   scripts/romiop-nemesis.sh 1 SEED NEMESIS replays one run and prints its whole report.
#   START_COUNTS=1 gives every process its start count, as jacorb.lightwire.romiop.start_count_dir does.
#   MEMBERS=N runs every seed with a group of N (3 to 9) instead of 3, 4 and 5 by seed.
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -q -B -ntp -Dstyle.color=never ${LIGHTWIRE_MVN_OPTS:-} -pl romiop -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/nemesis.classpath -Dmdep.includeScope=test >/dev/null
exec java -Xmx1g -Dromiop.nemesis.members="${MEMBERS:-0}" -Dromiop.nemesis.startCounts="$([ "${START_COUNTS:-0}" = 1 ] && echo true || echo false)" -cp "romiop/target/test-classes:romiop/target/classes:$(cat romiop/target/nemesis.classpath)" \
  org.lightwire.romiop.engine.nemesis.NemesisSweep "${1:-10000}" "${2:-1}" "${3:-mixed}" ${4:+"$4"}
