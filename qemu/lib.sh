# SPDX-License-Identifier: GPL-2.0
# Common settings for the gembuf build and boot scripts; sourced, not run.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${GEMBUF_CACHE:-$HOME/.cache/gembuf}
KSRC=$CACHE/linux		# git repo: tag v6.12-pristine, branch build
KOUT=$CACHE/build		# O= directory of the guest kernel
STAGE=$CACHE/stage		# modules_install and cross-built binaries
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
