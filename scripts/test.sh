#!/usr/bin/env bash
# Runs every test of the project: unit, simulation, and multi-process tests over real sockets,
# then the ATM tests on a real kernel in qemu (atm-jni/src/test/qemu/run-atm-tests.sh).
# Usage: scripts/test.sh [extra maven arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

# Java 17 is the build JDK; Maven 3.8.7 comes with the machine. Anything else a test needs is
# installed here (root only), never assumed.
if [ "$(id -u)" = 0 ] && ! command -v iptables >/dev/null 2>&1; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iptables iproute2 >/dev/null) \
    || echo "test.sh: could not install iptables; the packet-loss tests will say why they skip" >&2
fi

mvn -B -ntp verify "$@"

# The ATM kernel test (issue 5): this machine's kernel has no ATM, so the script boots Debian's
# kernel in qemu (TCG) with atmtcp, runs the AAL5 tests in it and prints the guest's figures.
# It installs what it needs when root and otherwise skips, saying why; a failing guest test fails
# this script. LIGHTWIRE_ATM_TEST=0 leaves it out.
if [ "${LIGHTWIRE_ATM_TEST:-1}" = 0 ]; then
  echo "test.sh: ATM kernel test skipped: LIGHTWIRE_ATM_TEST=0"
else
  atm-jni/src/test/qemu/run-atm-tests.sh 500
fi
