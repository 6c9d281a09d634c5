#!/usr/bin/env bash
# Per-thread CPU and context switches of running JVMs over a window (not part of the test run).
# Usage: scripts/thread-cpu.sh SECONDS PATTERN   e.g. scripts/thread-cpu.sh 15 'TestServer|OrbNullEchoAB'
# Prints, per thread with any activity: user and system CPU (ms), voluntary and involuntary
# context switches in the window, and "jvm:thread-name/tid" (jvm: the first PATTERN match in the
# command line). Divide by a count of calls (for example a thread that wakes once per call) to get
# per-call figures; docs/notes/etf-latency.md, section 10, has an example.
set -uo pipefail
seconds=${1:?usage: thread-cpu.sh SECONDS PATTERN}; pattern=${2:?usage: thread-cpu.sh SECONDS PATTERN}
hz=$(getconf CLK_TCK)
snap() {
  for p in $(pgrep -f "$pattern"); do
    jvm=$(tr "\0" " " 2>/dev/null < /proc/$p/cmdline | grep -oE "$pattern" | head -1)
    [[ -n "$jvm" ]] || continue
    for d in /proc/$p/task/*; do
      s=$(cat $d/stat 2>/dev/null) || continue
      n=$(tr " " "_" 2>/dev/null < $d/comm) || continue
      set -- ${s#*) }
      v=$(awk '/^voluntary_ctxt_switches/ {print $2}' $d/status 2>/dev/null) || continue
      nv=$(awk '/^nonvoluntary_ctxt_switches/ {print $2}' $d/status 2>/dev/null) || continue
      [[ -n "$v" && -n "$nv" ]] || continue
      echo "$jvm:$n/${d##*/} ${12} ${13} $v $nv"
    done
  done | sort
}
a=$(mktemp); b=$(mktemp); trap 'rm -f $a $b' EXIT
snap > $a; sleep "$seconds"; snap > $b
printf "%9s %9s %9s %9s  %s\n" "user ms" "sys ms" "wakes" "preempt" "jvm:thread/tid"
join $a $b | awk -v hz=$hz '{u=($6-$2)*1000/hz; s=($7-$3)*1000/hz; w=$8-$4; n=$9-$5;
  if (u+s>0 || w>0) printf "%9.0f %9.0f %9d %9d  %s\n", u, s, w, n, $1}' | sort -k1,1 -rn
