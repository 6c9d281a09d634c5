#!/usr/bin/env bash
# The main job (scripts/main-job.sh) of an earlier commit and of this tree, alternated run by run,
# each tree with its own client and server (a client of one tree may not speak another tree's
# Lightwire wire version and would fall back to IIOP). Prints each run's Lightwire/IIOP ratios
# and, per tree, the median ratio of the null echo median and of the ttcp throughput. Not part
# of the test run; run it on a quiet machine.
# Usage: scripts/main-job-ab.sh [commit [runs [echoCalls [ttcpMegabytes]]]]
#   commit defaults to c0626c2 (the transport before hardening and server lanes), runs to 8.
set -euo pipefail
cd "$(dirname "$0")/.."
commit=${1:-c0626c2}; runs=${2:-8}; calls=${3:-20000}; megabytes=${4:-10}
old="target/ab/$commit"
if [ ! -d "$old" ]; then
  mkdir -p target/ab
  git worktree add --detach "$old" "$commit" >/dev/null
fi
classpath() {
  (cd "$1" && mvn -q -o -B -ntp -pl it -am test-compile dependency:build-classpath \
    -Dmdep.outputFile=target/ab.classpath -Dmdep.includeScope=test >/dev/null)
  echo "$1/it/target/classes:$1/it/target/test-classes:$(cat "$1/it/target/ab.classpath")"
}
declare -A cp=([before]="$(classpath "$old")" [now]="$(classpath .)")
out=$(mktemp); trap 'rm -f $out' EXIT
for i in $(seq 1 "$runs"); do
  for tree in before now; do
    lines=$(java -cp "${cp[$tree]}" org.lightwire.it.MainJob "$calls" "$megabytes" 2>&1 | grep -E "^(null echo median|ttcp exactly-once)")
    echo=$(echo "$lines" | awk '/null echo median/ {print $NF}')
    ttcp=$(echo "$lines" | awk '/ttcp exactly-once/ {print $NF}')
    echo "run $i $tree: null echo median LW/IIOP $echo, ttcp LW/IIOP $ttcp"
    echo "$tree $echo $ttcp" >> "$out"
  done
done
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
for tree in before now; do
  echo "$tree ($([ $tree = before ] && echo "$commit" || git rev-parse --short HEAD)): median null echo ratio $(awk -v t=$tree '$1==t {print $2}' "$out" | median)," \
    "median ttcp ratio $(awk -v t=$tree '$1==t {print $3}' "$out" | median) over $runs runs"
done
