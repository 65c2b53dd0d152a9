#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Configure (allnoconfig + qemu/configs/*.config) and cross-build the guest
# kernel and its modules; install the modules into $MODULES.  The debug
# fragment is left out of the release kernel (GEMBUF_KERNEL=release); the
# coverage kernel (GEMBUF_KERNEL=coverage) adds GCOV to the debug one and
# profiles the project's own sources (VCM, the GEM VCM helper, gembuf),
# not their KUnit suites or the rest of the kernel.
. "$(dirname "$0")/lib.sh"

FRAGS=("$TOP"/qemu/configs/base.config)
[ "$KSUFFIX" = -release ] || FRAGS+=("$TOP"/qemu/configs/debug.config)
FRAGS+=("$TOP"/qemu/configs/gembuf.config)
if [ "$KSUFFIX" = -coverage ]; then
	FRAGS+=("$TOP"/qemu/configs/coverage.config)
	for f in "$TOP"/drivers/vcm/*.c "$TOP"/drivers/gpu/drm/gembuf/*.c \
		"$TOP"/drivers/gpu/drm/drm_gem_vcm_helper.c; do
		f=${f##*/}
		KMAKE+=("GCOV_PROFILE_${f%.c}.o=y")
	done
fi

configure() {
	local stamp=$KOUT/.gembuf-config want
	want=$(files_hash "${FRAGS[@]}" "$KSRC/.git/gembuf-series")
	[ -f "$KOUT/.config" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && return 0
	log "configuring: allnoconfig + ${FRAGS[*]##*/}"
	mkdir -p "$KOUT"
	(cd "$KSRC" && CC="${CROSS_COMPILE}gcc" scripts/kconfig/merge_config.sh \
		-n -O "$KOUT" "${FRAGS[@]}" >"$KOUT/merge_config.log" 2>&1) ||
		{ cat "$KOUT/merge_config.log"; die "merge_config failed"; }
	# merge_config only warns when a symbol's dependencies are missing;
	# a requested option that did not stick is an error here.
	local frag line missing=0
	for frag in "${FRAGS[@]}"; do
		while IFS= read -r line; do
			case "$line" in CONFIG_*=*) ;; *) continue ;; esac
			if ! grep -qxF "$line" "$KOUT/.config"; then
				log "config: $line requested in ${frag##*/} but not set"
				missing=1
			fi
		done <"$frag"
	done
	[ "$missing" = 0 ] || die "kernel config is missing requested options"
	echo "$want" >"$stamp"
}

build() {
	log "building the ${GEMBUF_KERNEL:-debug} kernel: Image and modules (-j$JOBS)"
	"${KMAKE[@]}" -s Image modules
	rm -rf "$MODULES"
	"${KMAKE[@]}" -s INSTALL_MOD_PATH="$MODULES" INSTALL_MOD_STRIP=1 \
		modules_install >/dev/null
}

configure
build
