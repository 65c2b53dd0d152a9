#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Assemble the guest initramfs: busybox, Debian arm64 libdrm tools, the
# cross-built igt tests, the kernel modules and the guest scripts.  Shared
# libraries are pulled in by following DT_NEEDED from $SYSROOT.
. "$(dirname "$0")/lib.sh"

ROOT=$INITRAMFS
READELF=${CROSS_COMPILE}readelf
TOOLS=(modetest proptest modeprint vbltest drmdevice)

rm -rf "$ROOT"
mkdir -p "$ROOT"/{bin,dev,proc,sys,tmp,mnt,etc/gembuf,usr/bin,usr/libexec/igt,usr/libexec/gembuf,lib}
ln -s lib "$ROOT/lib64"

cp "$SYSROOT/bin/busybox" "$ROOT/bin/busybox"
ln -s busybox "$ROOT/bin/sh"
for t in "${TOOLS[@]}"; do
	cp "$SYSROOT/usr/bin/$t" "$ROOT/usr/bin/"
done
cp "$STAGE"/igt/* "$ROOT/usr/libexec/igt/"
# GStreamer: gst-launch-1.0 and the plugins the tests use, no more.
cp "$SYSROOT/usr/bin/gst-launch-1.0" "$ROOT/usr/bin/"
GST_DIR=usr/lib/aarch64-linux-gnu/gstreamer-1.0
mkdir -p "$ROOT/$GST_DIR"
for p in coreelements kms video4linux2 videoconvertscale videotestsrc; do
	cp "$SYSROOT/$GST_DIR/libgst$p.so" "$ROOT/$GST_DIR/"
done
mkdir -p "$ROOT/usr/libexec/bench" "$ROOT/usr/libexec/demo"
cp "$STAGE"/bench/* "$ROOT/usr/libexec/bench/" 2>/dev/null || true
cp "$STAGE"/demo/* "$ROOT/usr/libexec/demo/" 2>/dev/null || true
# The demo is an igt test too (igt.list: its short form, "check"): one
# binary, listed where the tests are.
ln -s ../demo/gembuf_demo "$ROOT/usr/libexec/igt/gembuf_demo"
cp "$TOP"/qemu/guest/init "$ROOT/init"
for f in "$TOP"/qemu/guest/*; do
	[ "$(basename "$f")" = init ] || cp "$f" "$ROOT/usr/libexec/gembuf/"
done
cp "$TOP"/igt-tests/igt.list "$TOP"/igt-tests/kunit.list "$ROOT/etc/gembuf/"
# The machine's description of its edu devices (qemu/boot.sh): edu does
# not report how many address bits its DMA drives.
mkdir -p "$ROOT/etc/modprobe.d"
echo "options gembuf edu_dma_bits=40,28" >"$ROOT/etc/modprobe.d/gembuf.conf"
cp -a "$MODULES/lib/modules" "$ROOT/lib/"

# Shared libraries: the loader plus the transitive DT_NEEDED closure.
find_lib() {
	local d
	for d in lib/aarch64-linux-gnu usr/lib/aarch64-linux-gnu lib; do
		[ -e "$SYSROOT/$d/$1" ] && { echo "$d/$1"; return 0; }
	done
	return 1
}
copy_lib() {
	local rel=$1
	[ -e "$ROOT/$rel" ] && return 0
	mkdir -p "$ROOT/$(dirname "$rel")"
	cp -L "$SYSROOT/$rel" "$ROOT/$rel"
	needed "$ROOT/$rel"
}
needed() {
	local lib rel
	for lib in $("$READELF" -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		rel=$(find_lib "$lib") || die "$1 needs $lib, not in the sysroot"
		copy_lib "$rel"
	done
}
copy_lib lib/ld-linux-aarch64.so.1
while IFS= read -r -d '' f; do
	needed "$f"
done < <(find "$ROOT/usr" -type f -print0)

(cd "$ROOT" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1 >"$IMG.tmp")
mv "$IMG.tmp" "$IMG"
log "initramfs: $(du -h "$IMG" | cut -f1)"
