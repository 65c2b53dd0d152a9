# SPDX-License-Identifier: GPL-2.0
# gembuf: build the guest kernel with the project in it, boot it in QEMU,
# run the demo (make run) or every test (make test).  See README.md.

CACHE ?= $(or $(GEMBUF_CACHE),$(HOME)/.cache/gembuf)
OUT ?= $(CURDIR)/out
export GEMBUF_CACHE := $(CACHE)
export GEMBUF_OUT := $(OUT)

.PHONY: all deps tree kernel igt initramfs guest run shell test coverage bench export export-check checkpatch clean

all: guest

# Each step through qemu/quiet.sh: as it is for make test, one line on
# the terminal and the rest in out/build.log for make run.
deps:
	@bash qemu/quiet.sh --first "checking the host's and the guest's packages" bash qemu/deps.sh

tree: deps
	@bash qemu/quiet.sh "preparing the kernel tree" bash qemu/tree.sh

kernel: tree
	@bash qemu/quiet.sh "building the $${GEMBUF_KERNEL:-debug} kernel" bash qemu/kernel.sh

igt: tree
	@bash qemu/quiet.sh "building the tests and the demo" \
		$(MAKE) -s -C igt-tests O=$(CACHE)/stage/igt SYSROOT=$(CACHE)/sysroot KSRC=$(CACHE)/linux

initramfs: kernel igt
	@bash qemu/quiet.sh "packing the initramfs" bash qemu/rootfs.sh

guest: initramfs

# make run and make bench boot the release kernel: the same sources and
# options as the test kernel without its debug fragment (KASAN, lockdep,
# kmemleak, ...), built in a folder of its own.  make test keeps the
# debug kernel; GEMBUF_KERNEL=release|debug chooses for the others.
run bench: export GEMBUF_KERNEL = release

# The main job: boot the guest and run the demo (docs/demo.rst), then
# turn its frames into PNGs, an animation (out/demo/demo.png) and a
# contact sheet, and print the table of the scene's buffers.  Only
# progress reaches the terminal: the build's output goes to
# out/build.log, the guest's console to out/console.log, and a failure
# prints the last lines of the log concerned (the demo's own,
# out/demo/demo.log, when it got that far).  An rc left by an earlier
# run must not pass for this one's.  GEMBUF_DEMO_FRAMES=<n> runs n
# frames instead of 60.
run: export GEMBUF_BUILD_LOG = $(OUT)/build.log
run: guest
	@mkdir -p $(OUT)
	@rm -f $(OUT)/demo/rc
	@GEMBUF_QUIET=1 bash qemu/boot.sh run || \
		bash qemu/quiet.sh --failed $(OUT)/console.log "the guest"
	@test "$$(cat $(OUT)/demo/rc 2>/dev/null)" = 0 || \
		if [ -s $(OUT)/demo/demo.log ]; then \
			bash qemu/quiet.sh --failed $(OUT)/demo/demo.log "the demo"; \
		else \
			bash qemu/quiet.sh --failed $(OUT)/console.log "the demo"; \
		fi
	@python3 qemu/apng.py $(OUT)/demo
	@cat $(OUT)/demo/summary.txt

# An interactive shell in the guest (Ctrl-a x leaves QEMU).
shell: guest
	@bash qemu/boot.sh shell

# Every KUnit suite and igt test in the guest, with the module's load
# failed at each of its allocations in turn (gembuf_load_sweep=1); then
# the guest again with identity IOMMU domains (iommu.passthrough=1),
# where the DMA API is dma-direct, for the sharing paths
# (gembuf_passthrough); ends with 'N passed, N failed, N skipped' over
# both.
PASSTHROUGH_CMDLINE = iommu.passthrough=1 gembuf_only=gembuf_passthrough
define test-boots
	@rm -rf $(OUT) && mkdir -p $(OUT)/passthrough
	@GEMBUF_QUIET=1 GEMBUF_CMDLINE="$${GEMBUF_CMDLINE:-} gembuf_load_sweep=1" \
		bash qemu/boot.sh test || true
	@GEMBUF_QUIET=1 GEMBUF_OUT=$(OUT)/passthrough \
		GEMBUF_CMDLINE="$${GEMBUF_CMDLINE:-} $(PASSTHROUGH_CMDLINE)" \
		bash qemu/boot.sh test || true
endef
test: guest
	$(test-boots)
	@python3 qemu/report.py $(OUT) igt-tests/expectations.txt

# make test's two boots on the coverage kernel (the debug kernel with GCOV
# on drivers/vcm and drivers/gpu/drm/gembuf, in a build folder of its
# own), then a table of the lines, functions and branches they ran, per
# file, and the lines never run by function (out/coverage/coverage.txt).
coverage: export GEMBUF_KERNEL = coverage
coverage: guest
	$(test-boots)
	@python3 qemu/report.py $(OUT) igt-tests/expectations.txt || true
	@python3 qemu/coverage.py $(CACHE)/build-coverage $(OUT)/coverage \
		$(OUT)/gcov $(OUT)/passthrough/gcov

# Benchmarks in one guest boot; each prints its ratios (out/bench/*.txt).
bench: guest
	@mkdir -p $(OUT)
	@bash qemu/boot.sh bench
	@python3 qemu/bench_summary.py $(OUT)/bench

# The whole work as a git format-patch series against pristine 6.12.
export: tree
	@bash series/export

# The series applied patch by patch on pristine 6.12, each built (W=1,
# sparse) and checked, and its documentation built with Sphinx.
export-check: tree
	@bash qemu/quiet.sh "checking for Sphinx" bash qemu/deps.sh --docs
	@bash series/check

clean:
	rm -rf $(OUT)
