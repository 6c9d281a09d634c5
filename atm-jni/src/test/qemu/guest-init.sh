#!/bin/busybox sh
# /init of the test initramfs (busybox): loads the modules, mounts the host's file system
# (virtfs/9p, read-only) at /host, and runs guest-tests.sh chrooted into it, so the guest uses
# the host's own atmtcp, JDK, Maven repository and build output. Prints LWATM-GUEST-EXIT.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
. /test.conf
for m in $(cat /modules.order); do
  insmod "/modules/$m" 2>/dev/null || echo "guest: insmod $m failed"
done
mkdir -p /host
if ! mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostroot /host; then
  echo "LWATM-GUEST-EXIT rc=98 (could not mount the host file system over 9p)"
  poweroff -f
fi
mount -t proc proc /host/proc
mount -t sysfs sys /host/sys
mount -t devtmpfs dev /host/dev
# A writable /tmp for the tests. A checkout under the host's /tmp would be hidden by it: keep the
# host's /tmp reachable and bind the checkout back into place.
mkdir -p /hosttmp
mount -o bind /host/tmp /hosttmp
mount -t tmpfs tmp /host/tmp
case "$REPO" in
  /tmp/*)
    mkdir -p "/host$REPO"
    mount -o bind "/hosttmp/${REPO#/tmp/}" "/host$REPO" || echo "guest: could not bind $REPO from the host's /tmp"
    ;;
esac
mount -t tmpfs run /host/run
ip link set lo up
echo; echo "guest: up in $(cut -d' ' -f1 /proc/uptime) s, kernel $(uname -r)"
chroot /host /bin/bash "$GUEST_SCRIPT" "$REPO" "$TEST_BIN" "$CLASSPATH_FILE" "$NULL_CALLS" "$SDU_SIZES" "$ORB_CLASSPATH_FILE"
echo "LWATM-GUEST-EXIT rc=$?"
poweroff -f
