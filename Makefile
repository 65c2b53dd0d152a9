# SPDX-License-Identifier: GPL-2.0
# gembuf: build the guest kernel with the project in it, boot it in QEMU,
# run the demo (make run) or every test (make test).  See README.md.

CACHE ?= $(or $(GEMBUF_CACHE),$(HOME)/.cache/gembuf)
OUT ?= $(CURDIR)/out
export GEMBUF_CACHE := $(CACHE)
export GEMBUF_OUT := $(OUT)

.PHONY: all deps tree kernel igt initramfs guest run shell test bench export checkpatch clean

all: guest

deps:
	@bash qemu/deps.sh

tree: deps
	@bash qemu/tree.sh

kernel: tree
	@bash qemu/kernel.sh

igt: tree
	@$(MAKE) -s -C igt-tests O=$(CACHE)/stage/igt SYSROOT=$(CACHE)/sysroot KSRC=$(CACHE)/linux

initramfs: kernel igt
	@bash qemu/rootfs.sh

guest: initramfs

# make run and make bench boot the release kernel: the same sources and
# options as the test kernel without its debug fragment (KASAN, lockdep,
# kmemleak, ...), built in a folder of its own.  make test keeps the
# debug kernel; GEMBUF_KERNEL=release|debug chooses for the others.
run bench: export GEMBUF_KERNEL = release

# The main job: boot the guest and run the demo.
run: guest
	@mkdir -p $(OUT)
	@bash qemu/boot.sh run
	@test -s $(OUT)/demo/frame-0.ppm || { echo "run: the demo wrote no frame"; exit 1; }
	@python3 qemu/png.py $(OUT)/demo/frame-*.ppm
	@grep 'copies made' $(OUT)/demo/summary.txt

# An interactive shell in the guest (Ctrl-a x leaves QEMU).
shell: guest
	@bash qemu/boot.sh shell

# Every KUnit suite and igt test in the guest; ends with 'N passed, N failed, N skipped'.
test: guest
	@rm -rf $(OUT) && mkdir -p $(OUT)
	@GEMBUF_QUIET=1 bash qemu/boot.sh test || true
	@python3 qemu/report.py $(OUT) igt-tests/expectations.txt

# Benchmarks in one guest boot; each prints its ratios (out/bench/*.txt).
bench: guest
	@mkdir -p $(OUT)
	@bash qemu/boot.sh bench
	@python3 qemu/bench_summary.py $(OUT)/bench

# The whole work as a git format-patch series against pristine 6.12.
export: tree
	@bash series/export

clean:
	rm -rf $(OUT)
