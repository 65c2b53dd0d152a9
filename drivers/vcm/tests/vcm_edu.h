/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the vcm_edu module's driver (vcm_edu_dev.c), suite (vcm_edu_test.c)
 * and benchmark (vcm_edu_bench.c) share: QEMU's edu device, bound to the
 * module's own PCI driver.
 */
#ifndef _VCM_EDU_H
#define _VCM_EDU_H

#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/types.h>

struct dentry;
struct device;

/* The test VCMs: inside the 40-bit mask the guest gives edu. */
#define EDU_VCM_START		SZ_1G
#define EDU_VCM_LEN		SZ_1G

/* edu's buffer, inside the device: DMA commands copy to and from it. */
#define EDU_BUF_SIZE		SZ_4K
/*
 * QEMU 7.2 refuses (with a hardware error that stops the emulator) a
 * transfer that ends at the last byte of the buffer: transfers stay
 * below it.
 */
#define EDU_XFER		SZ_2K

/**
 * struct vcm_edu - the edu device of the vcm_edu module
 * @dev: edu's PCI device while it is bound to the module's driver, or NULL
 * @regs: its BAR 0, or NULL
 * @lock: protects @dev and @regs; serialises edu's DMA commands and the
 *	benchmark with each other and with unbinding
 * @dir: debugfs folder
 * @bench: text of the last benchmark
 */
struct vcm_edu {
	struct device *dev;
	void __iomem *regs;
	struct mutex lock;	/* see the kernel-doc above */
	struct dentry *dir;
	char bench[512];
};

extern struct vcm_edu *vcm_edu;

/* vcm_edu_dev.c */
struct device *vcm_edu_get(void);
bool vcm_edu_present(struct vcm_edu *edu);
bool vcm_edu_alive(struct vcm_edu *edu);
int vcm_edu_dma(struct vcm_edu *edu, dma_addr_t addr, u32 off, u32 len,
		bool to_ram);

/* vcm_edu_bench.c */
void vcm_edu_bench_init(struct vcm_edu *edu);
void vcm_edu_bench_exit(struct vcm_edu *edu);

#endif /* _VCM_EDU_H */
