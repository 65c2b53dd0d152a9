#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the guest: qemu/boot.sh test|run|bench|shell.  The host folder $OUT is
# shared with the guest at /mnt/out; the console goes to $OUT/console.log
# (after the QEMU command line).  With GEMBUF_QUIET set only progress
# lines reach the terminal: those of the guest's scripts and programs
# that start with "gembuf", "igt:" or "kunit:", and the demo's
# "frame N/M".  GEMBUF_DEMO_FRAMES=<n>
# goes to the guest for the demo.  A guest that does not power off
# within GEMBUF_TIMEOUT seconds is killed.
. "$(dirname "$0")/lib.sh"

mode=${1:-shell}
timeout=${GEMBUF_TIMEOUT:-2400}
mkdir -p "$OUT"
rm -f "$OUT/done"

qemu=(qemu-system-aarch64 -M virt,iommu=smmuv3 -cpu max -smp 2 -m 6G
      -nographic -no-reboot -nic none
      -kernel "$KOUT/arch/arm64/boot/Image" -initrd "$IMG"
      -append "console=ttyAMA0 panic=-1 rdinit=/init gembuf_mode=$mode ${GEMBUF_DEMO_FRAMES:+gembuf_demo_frames=$GEMBUF_DEMO_FRAMES} ${GEMBUF_CMDLINE:-}"
      # Two DMA engines behind the SMMU: edu with a 40-bit DMA mask, and
      # edu as QEMU makes it, with 28 bits (gembuf's edu_dma_bits), at
      # the first free slots (00:01.0, 00:02.0).  A third edu, 40 bits,
      # at a slot of its own after them, is vcm_edu's: the guest's init
      # finds it there (0000:00:10.0) and sets its driver_override.
      -device edu,dma_mask=0xffffffffff -device edu
      -device edu,dma_mask=0xffffffffff,addr=0x10
      # edu completes every DMA command on a 100 ms timer of the virtual
      # clock; with instruction counting and sleep=off QEMU jumps that
      # clock to the next deadline whenever the guest waits, so device DMA
      # costs real time only for the copying.  Guest times are virtual.
      -icount shift=0,sleep=off
      -virtfs "local,path=$OUT,mount_tag=hostshare,security_model=none,id=hs"
      ${GEMBUF_QEMU_ARGS:-})

if [ "$mode" = shell ]; then
	log "booting the guest ($mode): ${qemu[*]}"
	exec "${qemu[@]}"
fi
# A guest about to be killed for the timeout is asked first where its
# CPUs are (qemu/monitor.py, into $OUT/hang.txt): a hang with interrupts
# off on every CPU prints nothing on the console.
mon=$OUT/monitor.sock
rm -f "$mon" "$OUT/hang.txt"
qemu+=(-monitor "unix:$mon,server=on,wait=off")
log "booting the guest ($mode, ${GEMBUF_KERNEL:-debug} kernel); console in $OUT/console.log"
printf 'qemu: %s\n' "${qemu[*]}" >"$OUT/console.log"
set +e
python3 "$TOP/qemu/monitor.py" $((timeout > 60 ? timeout - 30 : timeout / 2)) \
	"$mon" "$KOUT/vmlinux" "$OUT/hang.txt" &
watch=$!
timeout -k 10 "$timeout" "${qemu[@]}" </dev/null 2>&1 | tee -a "$OUT/console.log" |
	if [ -n "${GEMBUF_QUIET:-}" ]; then
		grep --line-buffered '^gembuf\|^igt:\|^kunit:\|^frame [0-9]*/[0-9]'
	else
		cat
	fi
rc=${PIPESTATUS[0]}
kill "$watch" 2>/dev/null
wait "$watch" 2>/dev/null
rm -f "$mon"
set -e
[ "$rc" = 124 ] && { log "guest timed out after ${timeout}s; its CPUs: $OUT/hang.txt"; exit 124; }
exit "$rc"
