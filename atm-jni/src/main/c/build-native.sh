#!/usr/bin/env bash
# Builds liblightwire-atm.so (the JNI shim over the Linux ATM socket API) into
# target/classes/META-INF/native/linux-x86_64/, where the jar packs it and AtmLibrary loads it.
# Run by Maven (exec-maven-plugin, phase process-classes). Never fails the build: when the
# compiler or the headers are missing it says why and skips, and Java reports the library
# unavailable at run time.
# Usage: build-native.sh <target dir> <java.home>
set -uo pipefail
target=$1
java_home=$2
src=$(cd "$(dirname "$0")" && pwd)
out="$target/classes/META-INF/native/linux-x86_64"
say() { echo "[atm-jni] $*"; }

skip() {
  say "native part skipped: $*"
  say "the Java side will report 'library unavailable'; everything else builds and tests as usual"
  rm -f "$out/liblightwire-atm.so"
  exit 0
}

[ "${LIGHTWIRE_ATM_NATIVE_SKIP:-false}" = true ] && skip "-Dlightwire.atm.native.skip=true"
[ "$(uname -s)" = Linux ] || skip "not Linux ($(uname -s)); the shim uses the Linux ATM socket API"
case "$(uname -m)" in x86_64|amd64) ;; *) skip "no build for $(uname -m); only linux-x86_64 is packaged";; esac
command -v gcc >/dev/null 2>&1 || skip "gcc not found (apt-get install gcc)"

jni_include="$java_home/include"
[ -f "$jni_include/jni.h" ] || jni_include="$java_home/../include"
[ -f "$jni_include/jni.h" ] || skip "jni.h not found under $java_home/include (build with a JDK, not a JRE)"

has_header() { echo "#include <$1>" | gcc -E -x c - >/dev/null 2>&1; }
if ! has_header atm.h || ! has_header linux/atm.h; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "<atm.h> or <linux/atm.h> missing; installing libatm1-dev and linux-libc-dev with apt-get"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libatm1-dev linux-libc-dev >/dev/null 2>&1 \
      || { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libatm1-dev linux-libc-dev >/dev/null 2>&1; }
  fi
  has_header linux/atm.h || skip "<linux/atm.h> not found (apt-get install linux-libc-dev)"
  has_header atm.h || skip "<atm.h> not found (apt-get install libatm1-dev)"
fi

headers="$target/native/include"
[ -f "$headers/org_lightwire_atm_AtmNative.h" ] || skip "javac did not write $headers/org_lightwire_atm_AtmNative.h"

mkdir -p "$out" "$target/native/obj"
# libatm is linked statically (only text2atm/text2sap are used) so that the .so needs nothing at
# run time but libc: a machine without libatm1 can still load it.
if gcc -std=gnu11 -O2 -g -Wall -Wextra -Werror -fPIC -shared -fvisibility=default \
     -I"$jni_include" -I"$jni_include/linux" -I"$headers" -I"$src" \
     "$src/lwatm.c" "$src/lwatm_jni.c" -o "$out/liblightwire-atm.so" \
     -Wl,-z,defs -Wl,-z,noexecstack -Wl,--no-undefined -Wl,-Bstatic -latm -Wl,-Bdynamic 2> "$target/native/gcc.log"; then
  say "built $out/liblightwire-atm.so"
elif gcc -std=gnu11 -O2 -g -Wall -Wextra -Werror -fPIC -shared \
     -I"$jni_include" -I"$jni_include/linux" -I"$headers" -I"$src" \
     "$src/lwatm.c" "$src/lwatm_jni.c" -o "$out/liblightwire-atm.so" -Wl,-z,noexecstack -latm 2>> "$target/native/gcc.log"; then
  say "built $out/liblightwire-atm.so (libatm linked dynamically: needs libatm1 at run time)"
else
  cat "$target/native/gcc.log" >&2
  skip "gcc failed (log above, also in $target/native/gcc.log)"
fi
