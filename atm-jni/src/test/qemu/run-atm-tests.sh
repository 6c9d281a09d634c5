#!/usr/bin/env bash
# The kernel test of issue 5: boots Debian's 6.1 kernel in qemu (TCG) with the ATM modules and a
# patched atmtcp built out of tree, and runs in it (guest-tests.sh) (a) the C test of the shim's
# native core, SDUs of 0..65535 bytes from PVC 0.0.100 to PVC 1.0.100 over atmtcp on loopback,
# (b) a JVM running the transport engine over the AAL5 link, (c) a JacORB null echo between two
# JVMs over Lightwire/AAL5, (d) released circuits. It prints the guest's figures and exits 1
# when any guest step failed or the guest gave no result.
#
# Needs root (apt-get, dpkg -x of kernel packages) and qemu-system-x86 (installed with apt-get
# when missing). Without them it says why and exits 0, so the test command can always call it.
# Downloads and builds go to $LIGHTWIRE_ATM_CACHE (default /var/cache/lightwire-atm), outside
# the repository, so reruns skip them. Kernel-side tooling and its licence: kernel/.
#
# Uses the project's compiled classes (scripts/test.sh runs it after mvn verify); when they are
# missing it compiles them first (mvn test-compile).
#
# Usage: run-atm-tests.sh [null calls, default 2000]
# Env:   LIGHTWIRE_ATM_CACHE, LIGHTWIRE_ATM_KERNEL_ABI (e.g. 6.1.0-56; default: linux-image-amd64's),
#        LIGHTWIRE_ATM_SDU_SIZES=all (every SDU size 0..65535, about 3 minutes more under TCG;
#        default: every size to 2048, then each cell count's smallest and largest),
#        LIGHTWIRE_ATM_REQUIRE=1 (fail instead of skipping when root or qemu is missing),
#        LIGHTWIRE_ATM_TIMEOUT_S (the guest's whole time limit, default 1200),
#        JAVA_BIN (the java the guest runs; default: java on PATH)
set -euo pipefail
start_s=$(date +%s.%N)
here=$(cd "$(dirname "$0")" && pwd)
module_dir=$(cd "$here/../../.." && pwd)          # atm-jni
repo=$(cd "$module_dir/.." && pwd)
cache=${LIGHTWIRE_ATM_CACHE:-/var/cache/lightwire-atm}
work="$module_dir/target/qemu"
calls=${1:-2000}
sizes=${LIGHTWIRE_ATM_SDU_SIZES:-some}
guest_timeout=${LIGHTWIRE_ATM_TIMEOUT_S:-1200}

say() { echo "[atm-qemu] $*"; }
skip() {
  if [ "${LIGHTWIRE_ATM_REQUIRE:-0}" = 1 ]; then say "FAIL: $*"; exit 1; fi
  say "skipped: $*"; exit 0
}
elapsed() { echo "$(date +%s.%N) $start_s" | awk '{printf "%.1f", $1 - $2}'; }

[ "$(uname -m)" = x86_64 ] || skip "the guest is x86-64 and so is the packaged shim; this is $(uname -m)"
[ "$(id -u)" = 0 ] || skip "not root: the kernel test installs qemu and kernel packages with apt-get (run scripts/test.sh as root, as CI does)"
command -v apt-get >/dev/null 2>&1 || skip "no apt-get: the kernel test uses Debian's kernel packages"

refreshed=0
apt_refresh() {  # apt-get update, at most once a run; false when it was done already or failed
  [ $refreshed = 0 ] || return 1
  refreshed=1
  say "apt-get update"
  apt-get update -qq >/dev/null 2>&1
}
apt_install() {
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null 2>&1 ||
    { apt_refresh && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null 2>&1; }
}
need=()
command -v qemu-system-x86_64 >/dev/null 2>&1 || need+=(qemu-system-x86)
[ -x /usr/sbin/atmtcp ] || need+=(atm-tools)
[ -f /usr/include/atm.h ] || need+=(libatm1-dev)
[ -x /bin/busybox ] && /bin/busybox --help 2>&1 | grep -q "static" || dpkg -s busybox-static >/dev/null 2>&1 || need+=(busybox-static)
command -v cpio >/dev/null 2>&1 || need+=(cpio)
command -v make >/dev/null 2>&1 || need+=(make)
command -v gcc-12 >/dev/null 2>&1 || need+=(gcc-12)
command -v python3 >/dev/null 2>&1 || need+=(python3)
if [ ${#need[@]} -gt 0 ]; then
  say "installing ${need[*]}"
  apt_install "${need[@]}" || skip "could not install ${need[*]} with apt-get"
fi
command -v qemu-system-x86_64 >/dev/null 2>&1 || skip "qemu-system-x86_64 not available"

# --- kernel packages ---------------------------------------------------------------------------
kernel_abi() {
  apt-cache depends linux-image-amd64 2>/dev/null |
    awk '/Depends: linux-image-[0-9]/{sub("linux-image-","",$2); sub("-amd64$","",$2); print $2; exit}'
}
abi=${LIGHTWIRE_ATM_KERNEL_ABI:-$(kernel_abi)}
[ -n "$abi" ] || { apt_refresh && abi=$(kernel_abi); }
[ -n "$abi" ] || skip "cannot tell the kernel ABI from apt-cache depends linux-image-amd64, even after apt-get update"
kver="$abi-amd64"
version=$(apt-cache show "linux-image-$kver" 2>/dev/null | awk '/^Version:/{print $2; exit}')
[ -n "$version" ] || { apt_refresh && version=$(apt-cache show "linux-image-$kver" 2>/dev/null | awk '/^Version:/{print $2; exit}'); }
[ -n "$version" ] || skip "the archive has no linux-image-$kver (LIGHTWIRE_ATM_KERNEL_ABI=$abi?)"
mkdir -p "$cache/debs"
cd "$cache/debs"
pkgs=("linux-image-$kver" "linux-headers-$kver" "linux-headers-$abi-common" "linux-kbuild-6.1=$version" "linux-source-6.1=$version")
missing=()
for p in "${pkgs[@]}"; do
  name=${p%%=*}
  ls "${name}_${version}"_*.deb >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  # Another kernel's packages and builds are of no more use: keep the cache to one version.
  find "$cache/debs" -maxdepth 1 -name "*.deb" ! -name "*_${version}_*" -delete
  find "$cache" -maxdepth 1 \( -name "root-*" -o -name "build-*" \) ! -name "*-$version" -exec rm -rf {} +
  say "downloading ${missing[*]}"
  apt-get download "${missing[@]}" >"$cache/download.log" 2>&1 ||
    { apt_refresh && apt-get download "${missing[@]}" >"$cache/download.log" 2>&1; } || true
  for p in "${missing[@]}"; do
    ls "${p%%=*}_${version}"_*.deb >/dev/null 2>&1 || { grep -v "unsandboxed" "$cache/download.log" | tail -5;
      skip "could not download ${p} (network? or set LIGHTWIRE_ATM_KERNEL_ABI to a kernel the archive has)"; }
  done
fi
bytes=$(du -cb "$cache/debs"/*_"$version"_*.deb | tail -1 | cut -f1)
say "kernel $kver ($version); packages $((bytes / 1000000)) MB in $cache/debs"

root="$cache/root-$version"
if [ ! -f "$root/.unpacked" ]; then
  rm -rf "$root"; mkdir -p "$root"
  for p in linux-image-"$kver" linux-headers-"$kver" linux-headers-"$abi"-common linux-kbuild-6.1; do
    dpkg -x "$cache/debs/${p}_${version}"_*.deb "$root"
  done
  # Debian's header Makefile includes the common half by absolute path; point it into the cache.
  sed -i "s|include /usr/src/|include $root/usr/src/|" "$root/usr/src/linux-headers-$kver/Makefile"
  touch "$root/.unpacked"
fi

# --- patched atmtcp, out of tree (kernel/, GPL-2.0) ----------------------------------------------
build="$cache/build-$version/atmtcp"
if [ ! -f "$build/atmtcp.ko" ] || [ "$here/kernel/patch-atmtcp.py" -nt "$build/atmtcp.ko" ]; then
  rm -rf "$build"; mkdir -p "$build"
  src_deb="$cache/debs/linux-source-6.1_${version}_all.deb"
  dpkg-deb --fsys-tarfile "$src_deb" | tar -xO ./usr/src/linux-source-6.1.tar.xz |
    tar -xJO linux-source-6.1/drivers/atm/atmtcp.c > "$build/atmtcp.c"
  python3 "$here/kernel/patch-atmtcp.py" "$build/atmtcp.c"
  cp "$here/kernel/Kbuild" "$build/Kbuild"
  make -s -C "$root/usr/src/linux-headers-$kver" M="$build" modules 2>&1 | grep -v "Skipping BTF" || true
  [ -f "$build/atmtcp.ko" ] || { say "FAIL: the atmtcp module did not build"; exit 1; }
fi

# --- the shim's C test and the Java classes ------------------------------------------------------
mkdir -p "$work"
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$module_dir/src/main/c" "$module_dir/src/test/c/lwatm_sdu_test.c" \
  "$module_dir/src/main/c/lwatm.c" -o "$work/lwatm_sdu_test" -Wl,-Bstatic -latm -Wl,-Bdynamic
if [ ! -f "$module_dir/target/test-classes/org/lightwire/atm/GuestNullCall.class" ] ||
   [ ! -f "$module_dir/target/classes/META-INF/native/linux-x86_64/liblightwire-atm.so" ]; then
  say "compiling the project (mvn test-compile)"
  (cd "$repo" && mvn -q -B -ntp -pl atm-jni -am test-compile)
fi
[ -f "$module_dir/target/classes/META-INF/native/linux-x86_64/liblightwire-atm.so" ] ||
  { say "FAIL: the build skipped the native shim (see its [atm-jni] message)"; exit 1; }
if [ ! -s "$work/deps.classpath" ] || [ "$repo/transport-core/pom.xml" -nt "$work/deps.classpath" ]; then
  (cd "$repo" && mvn -q -B -ntp -pl transport-core dependency:build-classpath -Dmdep.includeScope=runtime \
    -Dmdep.outputFile="$work/deps.classpath" >/dev/null)
fi
echo "$module_dir/target/classes:$module_dir/target/test-classes:$repo/transport-core/target/classes:$(cat "$work/deps.classpath")" \
  > "$work/guest.classpath"
# The JacORB test (c): the it module's test classes, every module's classes, their dependencies.
if [ ! -f "$repo/it/target/test-classes/org/lightwire/it/GuestOrbEcho.class" ] ||
   [ ! -f "$repo/etf-plugin/target/classes/org/lightwire/etf/LightwireFactories.class" ]; then
  say "compiling the project for the JacORB test (mvn test-compile)"
  (cd "$repo" && mvn -q -B -ntp -pl it -am test-compile)
fi
if [ ! -s "$work/orb-deps.classpath" ] || [ "$repo/it/pom.xml" -nt "$work/orb-deps.classpath" ]; then
  # -am with test-compile: the project's own modules resolve from this reactor, not from ~/.m2,
  # where a fresh machine has none of them (without it this step failed on a clean checkout).
  (cd "$repo" && mvn -q -B -ntp -pl it -am test-compile dependency:build-classpath -Dmdep.includeScope=test \
    -Dmdep.outputFile="$work/orb-deps.classpath" >/dev/null)
fi
orb_cp="$repo/it/target/test-classes:$repo/it/target/classes"
for m in etf-plugin transport-core atm-jni romiop; do orb_cp="$orb_cp:$repo/$m/target/classes"; done
# Module jars that dependency:build-classpath names from ~/.m2 are replaced by target/classes above.
echo "$orb_cp:$(tr ':' '\n' < "$work/orb-deps.classpath" | grep -v '/org/lightwire/' | paste -sd:)" > "$work/orb.classpath"

# --- initramfs: busybox, modules with their dependencies, /init ----------------------------------
moddir="$root/lib/modules/$kver/kernel"
declare -A seen=()
order=()
find_module() { find "$moddir" -name "$1.ko" | head -1; }
add_module() {  # depth first, so dependencies load first
  local name=$1 file dep
  [ -n "${seen[$name]:-}" ] && return
  seen[$name]=1
  if [ "$name" = atmtcp ]; then file="$build/atmtcp.ko"; else file=$(find_module "$name"); fi
  [ -n "$file" ] || { say "FAIL: module $name not found in $moddir"; exit 1; }
  for dep in $(tr '\0' '\n' < "$file" | sed -n 's/^depends=//p' | tr ',' ' '); do add_module "$dep"; done
  order+=("$file")
}
for m in virtio_pci 9pnet_virtio 9p atm atmtcp; do add_module $m; done
initrd_dir="$work/initramfs"
rm -rf "$initrd_dir"; mkdir -p "$initrd_dir"/{bin,proc,sys,dev,modules,host}
cp /bin/busybox "$initrd_dir/bin/busybox"
: > "$initrd_dir/modules.order"
for f in "${order[@]}"; do
  cp "$f" "$initrd_dir/modules/"
  basename "$f" >> "$initrd_dir/modules.order"
done
cp "$here/guest-init.sh" "$initrd_dir/init"
chmod +x "$initrd_dir/init"
cat > "$initrd_dir/test.conf" <<CONF
REPO='$repo'
GUEST_SCRIPT='$here/guest-tests.sh'
TEST_BIN='$work/lwatm_sdu_test'
CLASSPATH_FILE='$work/guest.classpath'
ORB_CLASSPATH_FILE='$work/orb.classpath'
NULL_CALLS='$calls'
SDU_SIZES='$sizes'
export JAVA_BIN='${JAVA_BIN:-$(command -v java)}'
CONF
(cd "$initrd_dir" && find . | cpio -o -H newc --quiet | gzip -1) > "$work/initrd.gz"
prep_s=$(elapsed)
say "prepared in $prep_s s (modules: $(tr '\n' ' ' < "$initrd_dir/modules.order"))"

# --- boot ---------------------------------------------------------------------------------------
log="$work/guest.log"
say "booting $kver under qemu TCG; console in $log"
boot_start=$(date +%s.%N)
set +e
timeout -k 10 "$guest_timeout" qemu-system-x86_64 -accel tcg -cpu max -smp 2 -m 2048 -nographic -no-reboot -monitor none \
  -kernel "$root/boot/vmlinuz-$kver" -initrd "$work/initrd.gz" \
  -append "console=ttyS0 quiet loglevel=3 panic=-1 rdinit=/init" \
  -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
  > "$log" 2>&1
qemu_rc=$?
set -e
boot_s=$(echo "$(date +%s.%N) $boot_start" | awk '{printf "%.1f", $1 - $2}')
grep -aE "^(guest:|PASS|FAIL|SDU sizes|client link|GUEST-RTT|GUEST-ORB-RTT|openjdk|LWATM|Exception)" "$log" | sed 's/^/  /'
rc=$(sed -n 's/.*LWATM-GUEST-EXIT rc=\([0-9]*\).*/\1/p' "$log" | tail -1)
[ "$qemu_rc" = 124 ] && say "the guest did not finish within $guest_timeout s (LIGHTWIRE_ATM_TIMEOUT_S); qemu was killed"
say "qemu exit $qemu_rc, guest $boot_s s from qemu start to power-off, whole script $(elapsed) s"
if [ "$rc" = 0 ]; then
  say "PASS"
  exit 0
fi
say "FAIL (guest result ${rc:-missing}); the full console is in $log"
tail -30 "$log" | sed 's/^/  | /'
exit 1
