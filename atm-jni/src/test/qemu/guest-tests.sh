#!/bin/bash
# Runs inside the qemu guest, chrooted into the host's file system (read-only; /tmp is the
# guest's tmpfs): two virtual ATM interfaces joined over loopback by atmtcp, then
#  (a) the C test of the shim's native core: SDUs of 0..65535 bytes from PVC 0.0.100 to 1.0.100;
#  (b) a JVM running the transport engine over the AAL5 link (null call RTT, large calls, the
#      Java error mapping against the kernel);
#  (c) the goal: JacORB, an echo server JVM and a client ORB (GuestOrbEcho) over Lightwire/AAL5
#      (jacorb.lightwire.link=aal5), PVC 1.0.101 and 0.0.101;
#  (e) restarts: a client and then a server closed and opened again on their PVCs: each
#      incarnation is a connection of its own (the set-up exchange over the circuit);
#  (d) released circuits, in C then in Java: each kills the daemon of interface 1, so they run
#      last, with the pair of interfaces started again between them.
# Every step has its own time limit; the guest's result is the number of failed steps.
# Usage: guest-tests.sh <repo> <native test binary> <classpath file> <null calls> <sdu sizes: some|all>
#        <ORB classpath file>
set -u
repo=$1 test_bin=$2 cp_file=$3 calls=$4 sizes=$5 orb_cp_file=$6
failed=()
export HOME=/tmp
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
java_bin=${JAVA_BIN:-java}
classpath=$(cat "$cp_file")
# C1 only: the guest CPU is emulated, and C2 compiling would cost more than it gains in these runs.
jvm=("$java_bin" -Xcheck:jni --enable-native-access=ALL-UNNAMED -Xmx256m -XX:TieredStopAtLevel=1 -Xshare:auto
  -Djava.io.tmpdir=/tmp -cp "$classpath")

step() { echo "guest: [$(cut -d' ' -f1 /proc/uptime) s] $*"; }
run() {  # run <name> <seconds> <command...>: a step with a time limit; a failure is recorded
  local name=$1 limit=$2
  shift 2
  timeout -k 5 "$limit" "$@"
  local rc=$?
  [ $rc = 124 ] && echo "FAIL $name: no result within $limit s"
  [ $rc = 0 ] || failed+=("$name")
}

daemon0= daemon1=
start_pair() {
  step "atmtcp: interface 0 listens, interface 1 connects over 127.0.0.1"
  atmtcp virtual listen-bg >/tmp/atmtcp0.log 2>&1
  atmtcp virtual connect 127.0.0.1 bg >/tmp/atmtcp1.log 2>&1
  local i
  for i in $(seq 100); do
    [ "$(grep -c atmtcp /proc/net/atm/devices 2>/dev/null)" -ge 2 ] && break
    sleep 0.1
  done
  grep atmtcp /proc/net/atm/devices
  daemon0=$(pgrep -f "atmtcp virtual listen" | head -1)
  daemon1=$(pgrep -f "atmtcp virtual connect" | head -1)
  [ -n "$daemon0" ] && [ -n "$daemon1" ] || { echo "FAIL atmtcp: the daemons did not start"; cat /tmp/atmtcp*.log; exit 90; }
}
stop_pair() {
  kill -9 $(pgrep -f "atmtcp virtual") 2>/dev/null
  local i
  for i in $(seq 100); do
    grep -q atmtcp /proc/net/atm/devices 2>/dev/null || return 0
    sleep 0.1
  done
  echo "FAIL atmtcp: interfaces still present after their daemons were killed"; failed+=(atmtcp-restart)
}

start_pair

step "(a) native core: SDUs of 0..65535 bytes between PVC 0.0.100 and 1.0.100 ($sizes sizes)"
run native-sdus 900 "$test_bin" sdus 0.0.100 1.0.100 $([ "$sizes" = all ] && echo all)

step "(b) JVM: transport engine over the AAL5 link"
"$java_bin" -version 2>&1 | head -1
run jvm-engine 300 "${jvm[@]}" org.lightwire.atm.GuestNullCall 0.0.100 1.0.100 "$calls"

step "(c) JacORB: echo server JVM on PVC 1.0.101 and client ORB on 0.0.101 over Lightwire/AAL5"
run jacorb-echo 600 "$java_bin" -Xmx256m -XX:TieredStopAtLevel=1 -Djava.io.tmpdir=/tmp -cp "$(cat "$orb_cp_file")" \
  org.lightwire.it.GuestOrbEcho 1.0.101 0.0.101 "$calls"

step "(e) restarts: a client, then a server, closed and opened again on PVC 0.0.102 and 1.0.102"
run jvm-restarts 300 "${jvm[@]}" org.lightwire.atm.GuestNullCall restart 0.0.102 1.0.102

step "(d) released circuit in C: kill the daemon of interface 1 (pid $daemon1) under an open PVC"
run native-released 60 "$test_bin" released 1.0.100 "$daemon1"
stop_pair
start_pair
step "(d) released circuit in Java: kill the daemon of interface 1 (pid $daemon1) under an open PVC"
run jvm-released 120 "${jvm[@]}" org.lightwire.atm.GuestNullCall released 1.0.100 "$daemon1"
stop_pair

step "done, ${#failed[@]} step(s) failed${failed:+: ${failed[*]}}"
exit ${#failed[@]}
