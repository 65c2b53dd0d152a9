#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Prepare the kernel work tree: extract Debian's linux-source-6.12 once
# into a git repository (tag v6.12-pristine), apply series/*.patch on a
# branch, then overlay the project's in-tree sources.  Only files whose
# content changed are rewritten, so their mtimes (and kbuild) stay quiet.
. "$(dirname "$0")/lib.sh"

extract() {
	local tarball
	tarball=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -n1)
	[ -n "$tarball" ] || die "linux-source-6.12 is not installed (make deps)"
	log "extracting $(basename "$tarball")"
	rm -rf "$KSRC.tmp"
	mkdir -p "$KSRC.tmp"
	tar -xf "$tarball" -C "$KSRC.tmp" --strip-components=1
	git -C "$KSRC.tmp" init -q -b pristine
	git -C "$KSRC.tmp" config user.name "gembuf build"
	git -C "$KSRC.tmp" config user.email build@gembuf.invalid
	# Debian's top-level .gitignore ignores everything: force-add.
	git -C "$KSRC.tmp" add -f -A
	git -C "$KSRC.tmp" commit -q -m "Linux $(make -s -C "$KSRC.tmp" kernelversion) (Debian linux-source-6.12)"
	git -C "$KSRC.tmp" tag "$PRISTINE_TAG"
	mv "$KSRC.tmp" "$KSRC"
}

apply_series() {
	local stamp=$KSRC/.git/gembuf-series want
	want=$(files_hash "$TOP"/series/*.patch)
	[ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && return 0
	log "applying series/*.patch onto $PRISTINE_TAG"
	git -C "$KSRC" am --abort >/dev/null 2>&1 || true
	git -C "$KSRC" checkout -q -f -B build "$PRISTINE_TAG"
	if ls "$TOP"/series/*.patch >/dev/null 2>&1; then
		git -C "$KSRC" am -q --keep-cr "$TOP"/series/*.patch ||
			die "series does not apply to $PRISTINE_TAG"
	fi
	echo "$want" >"$stamp"
}

# The project's sources at their in-tree paths: whole directories the
# project owns every file of, and single files in directories of 6.12's
# (the GEM VCM helper and its KUnit suite).  A manifest of what was
# overlaid lets a file deleted from the project leave the tree too (back
# to the pristine version if 6.12 has one).
overlay() {
	local d f manifest=$KSRC/.git/gembuf-overlay
	local new=$manifest.new
	: >"$new"
	for d in drivers/vcm drivers/gpu/drm/gembuf include/linux include/uapi/drm \
		include/drm; do
		[ -d "$TOP/$d" ] || continue
		mkdir -p "$KSRC/$d"
		rsync -rl --checksum "$TOP/$d/" "$KSRC/$d/"
		(cd "$TOP" && find "$d" -type f) >>"$new"
	done
	for f in drivers/gpu/drm/drm_gem_vcm_helper.c \
		drivers/gpu/drm/tests/drm_gem_vcm_test.c; do
		[ -f "$TOP/$f" ] || continue
		rsync -l --checksum "$TOP/$f" "$KSRC/$f"
		echo "$f" >>"$new"
	done
	if [ -f "$manifest" ]; then
		sort "$new" | comm -23 <(sort "$manifest") - | while IFS= read -r f; do
			git -C "$KSRC" checkout -q HEAD -- "$f" 2>/dev/null || rm -f "$KSRC/$f"
		done
	fi
	mv "$new" "$manifest"
}

[ -d "$KSRC/.git" ] || extract
apply_series
overlay
