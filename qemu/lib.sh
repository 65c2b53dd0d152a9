# SPDX-License-Identifier: GPL-2.0
# Common settings for the gembuf build and boot scripts; sourced, not run.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${GEMBUF_CACHE:-$HOME/.cache/gembuf}
KSRC=$CACHE/linux		# git repo: tag v6.12-pristine, branch build
STAGE=$CACHE/stage		# modules_install and cross-built binaries
# The guest kernel: "debug" for make test (KASAN, lockdep, kmemleak, debug
# objects, DMA-API debug, fault injection: qemu/configs/debug.config),
# "release" for make run and make bench (the same options without that
# fragment), or "coverage" for make coverage (debug, with GCOV on
# drivers/vcm and drivers/gpu/drm/gembuf only).  Each has its own build
# folder, modules and initramfs, so switching between them rebuilds
# nothing.
case "${GEMBUF_KERNEL:-debug}" in
debug) KSUFFIX= ;;
release) KSUFFIX=-release ;;
coverage) KSUFFIX=-coverage ;;
*) printf '[gembuf] error: GEMBUF_KERNEL is debug, release or coverage\n' >&2; exit 1 ;;
esac
KOUT=$CACHE/build$KSUFFIX	# O= directory of the guest kernel
MODULES=$STAGE/modules$KSUFFIX	# its modules_install
INITRAMFS=$CACHE/initramfs$KSUFFIX	# the guest's root, and its image
IMG=$INITRAMFS.cpio.gz
SYSROOT=$CACHE/sysroot		# Debian arm64 packages, unpacked
DEBS=$CACHE/debs		# the .deb files those come from
OUT=${GEMBUF_OUT:-$TOP/out}	# results, logs and frames of the last run
JOBS=${JOBS:-$(nproc)}

export ARCH=arm64
export CROSS_COMPILE=aarch64-linux-gnu-
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
export KBUILD_BUILD_TIMESTAMP="2024-11-17 00:00:00 UTC"
export KBUILD_BUILD_USER=gembuf KBUILD_BUILD_HOST=gembuf

PRISTINE_TAG=v6.12-pristine
KMAKE=(make -C "$KSRC" O="$KOUT" -j"$JOBS" CC="ccache ${CROSS_COMPILE}gcc")

log() { printf '[gembuf] %s\n' "$*" >&2; }
die() { printf '[gembuf] error: %s\n' "$*" >&2; exit 1; }

# Print a hash of the given files, for the stamps that keep rebuilds
# incremental.
files_hash() { { cat "$@" 2>/dev/null || true; } | sha256sum | cut -d" " -f1; }
