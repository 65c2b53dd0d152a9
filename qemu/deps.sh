#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what the build and the guest need, on a Debian 12 host as root:
# host tools with apt-get, and the guest's arm64 userspace as .deb files
# (apt-get download) unpacked into $SYSROOT.  Idempotent and quiet when
# everything is already there.  With --docs, only Sphinx, for make
# export-check's documentation build, unless a sphinx-build is there.
. "$(dirname "$0")/lib.sh"

HOST_PKGS=(gcc-aarch64-linux-gnu qemu-system-arm ccache sparse
	   linux-source-6.12 flex bison bc libssl-dev libelf-dev cpio rsync
	   python3 kmod git make perl xz-utils)
GUEST_PKGS=(busybox-static libc6 libdrm2 libdrm-dev libdrm-tests
	    libdrm-amdgpu1 libdrm-etnaviv1 libdrm-tegra0)
# GStreamer for the camera-to-overlay path (v4l2src into kmssink), with
# the libraries its plugins need: apt-get download takes no dependencies.
GUEST_PKGS+=(gstreamer1.0-tools libgstreamer1.0-0 gstreamer1.0-plugins-base
	     gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
	     libgstreamer-plugins-base1.0-0 libgstreamer-plugins-bad1.0-0
	     libglib2.0-0 libgudev-1.0-0 libv4l-0 libv4lconvert0 liborc-0.4-0
	     libffi8 libpcre2-8-0 libmount1 libselinux1 zlib1g libblkid1
	     libudev1 libjpeg62-turbo libunwind8 libdw1 libelf1 liblzma5
	     libbz2-1.0 libzstd1 libcap2)

apt_updated=
apt_update() {
	[ -n "$apt_updated" ] && return 0
	apt-get update -qq
	apt_updated=1
}

apt_install() {
	[ "$(id -u)" = 0 ] || die "need root to install: $*"
	log "apt-get install $*"
	apt_update
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

if [ "${1:-}" = --docs ]; then
	command -v sphinx-build >/dev/null || apt_install python3-sphinx
	exit 0
fi

missing=()
for p in "${HOST_PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"

stamp=$SYSROOT/.gembuf-pkgs
if [ "$(cat "$stamp" 2>/dev/null)" != "${GUEST_PKGS[*]}" ]; then
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		log "dpkg --add-architecture arm64"
		dpkg --add-architecture arm64
		apt_updated=
	fi
	apt_update
	rm -rf "$DEBS" "$SYSROOT"
	mkdir -p "$DEBS" "$SYSROOT"
	log "apt-get download ${GUEST_PKGS[*]/%/:arm64}"
	chown _apt "$DEBS" 2>/dev/null || true
	(cd "$DEBS" && apt-get download -qq "${GUEST_PKGS[@]/%/:arm64}")
	for deb in "$DEBS"/*.deb; do
		dpkg-deb -x "$deb" "$SYSROOT"
	done
	echo "${GUEST_PKGS[*]}" >"$stamp"
fi
