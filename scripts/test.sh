#!/usr/bin/env bash
# Runs every test of the project: unit, simulation, and multi-process tests over real sockets.
# Usage: scripts/test.sh [extra maven arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

# Java 17 is the build JDK; Maven 3.8.7 comes with the machine. Anything else a test needs is
# installed here (root only), never assumed.
if [ "$(id -u)" = 0 ] && ! command -v iptables >/dev/null 2>&1; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iptables iproute2 >/dev/null) \
    || echo "test.sh: could not install iptables; the packet-loss tests will say why they skip" >&2
fi

exec mvn -B -ntp verify "$@"
