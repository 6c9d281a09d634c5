#!/bin/bash
# Runs inside the qemu guest, chrooted into the host's file system (read-only; /tmp is the
# guest's tmpfs): two virtual ATM interfaces joined over loopback by atmtcp, then
#  (a) the C test of the shim's native core: SDUs of 0..65535 bytes from PVC 0.0.100 to 1.0.100;
#  (b) a JVM running the transport engine over the AAL5 link (null call RTT, large calls, the
#      Java error mapping against the kernel);
#  (d) JacORB: an echo server JVM and a client ORB over Lightwire/AAL5 (jacorb.lightwire.link=aal5),
#      PVC 1.0.101 and 0.0.101;
#  (c) the released-circuit test (kills the daemon of interface 1, so it runs last).
# Usage: guest-tests.sh <repo> <native test binary> <classpath file> <null calls> <ORB classpath file>
set -u
repo=$1 test_bin=$2 cp_file=$3 calls=$4 orb_cp_file=$5
fail=0
export HOME=/tmp
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

step() { echo "guest: [$(cut -d' ' -f1 /proc/uptime) s] $*"; }

step "starting atmtcp: interface 0 listens, interface 1 connects over 127.0.0.1"
atmtcp virtual listen-bg >/tmp/atmtcp0.log 2>&1
atmtcp virtual connect 127.0.0.1 bg >/tmp/atmtcp1.log 2>&1
for i in $(seq 50); do
  [ "$(grep -c atmtcp /proc/net/atm/devices 2>/dev/null)" -ge 2 ] && break
  sleep 0.1
done
cat /proc/net/atm/devices
daemon1=$(pgrep -f "atmtcp virtual connect" | head -1)

step "(a) native core: SDUs of 0..65535 bytes between PVC 0.0.100 and 1.0.100"
"$test_bin" sdus 0.0.100 1.0.100 || fail=1

step "(b) JVM: transport engine over the AAL5 link"
java_bin=${JAVA_BIN:-java}
"$java_bin" -version 2>&1 | head -1
"$java_bin" -Xcheck:jni --enable-native-access=ALL-UNNAMED -Xmx256m -XX:TieredStopAtLevel=1 \
  -Djava.io.tmpdir=/tmp -cp "$(cat "$cp_file")" org.lightwire.atm.GuestNullCall 0.0.100 1.0.100 "$calls" || fail=1

step "(d) JacORB: echo server JVM and client ORB over Lightwire/AAL5"
"$java_bin" -Xmx256m -XX:TieredStopAtLevel=1 -Djava.io.tmpdir=/tmp -cp "$(cat "$orb_cp_file")" \
  org.lightwire.it.GuestOrbEcho 1.0.101 0.0.101 "$calls" || fail=1

step "(c) released circuit: kill the daemon of interface 1 (pid $daemon1) under an open PVC"
"$test_bin" released 1.0.100 "$daemon1" || fail=1

step "done, fail=$fail"
exit $fail
