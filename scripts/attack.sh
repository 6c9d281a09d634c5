#!/usr/bin/env bash
# The attack suite: a JacORB server JVM (Lightwire and IIOP) and a client JVM calling it all the
# time over Lightwire, attacked in turn by replayed and duplicated datagrams, CONNECTs forged from
# live clients' addresses, a flood of 20,000 CONNECTs with 1,100 completed set-ups, half-sent
# requests and garbage; one line per attack:
#   ATTACK <name>: PASS|FAIL sent=… counted=… client_ok=… client_failed=… extra_executions=… threads=… direct_mb=…
# Needs root (the attacker sniffs lo with AF_PACKET and forges source addresses with raw sockets)
# and python3; without them it says why and exits 0. Exits 1 when an attack failed. About 2 minutes.
# Usage: scripts/attack.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then
  echo "attack.sh: skipped: not root (the attacker needs raw and packet sockets)"
  exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "attack.sh: skipped: no python3"
  exit 0
fi
# One reactor run, so that the class path names the sibling modules' target/classes (no install).
mvn -q -B -ntp -pl it -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/attack.classpath -Dmdep.includeScope=test >/dev/null
exec java -Dlightwire.attack.script=scripts/attack/lwattack.py \
  -cp "it/target/classes:it/target/test-classes:$(cat it/target/attack.classpath)" org.lightwire.it.attack.AttackSuite
