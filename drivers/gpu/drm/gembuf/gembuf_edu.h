/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * QEMU's "edu" PCI device, the hardware of gembuf's DMA engine: its
 * registers, and the lease through which a KUnit suite borrows it.
 */

#ifndef _GEMBUF_EDU_H_
#define _GEMBUF_EDU_H_

#include <linux/sizes.h>
#include <linux/types.h>

struct device;
struct gembuf_device;

/* edu's buffer, inside the device: DMA commands copy to and from it. */
#define GEMBUF_EDU_BUF_SIZE	SZ_4K
/*
 * QEMU 7.2 refuses (with a hardware error that stops the emulator) a
 * transfer that ends at the last byte of the buffer: transfers stay
 * below it.
 */
#define GEMBUF_EDU_XFER		SZ_2K
/* Device address bits of edu's DMA unless told otherwise (QEMU's default). */
#define GEMBUF_EDU_DEFAULT_DMA_BITS	28

bool gembuf_edu_present(void __iomem *regs);
bool gembuf_edu_alive(void __iomem *regs);
int gembuf_edu_dma(void __iomem *regs, dma_addr_t addr, u32 off, u32 len,
		   bool to_ram);

/**
 * struct gembuf_edu_lease - edu lent to a test by the engine
 * @dev: edu's PCI device, whose IOMMU domain is the borrower's to choose
 * @regs: edu's registers
 * @gdev: the engine lending it, whose DRM device the lease holds
 */
struct gembuf_edu_lease {
	struct device *dev;
	void __iomem *regs;
	struct gembuf_device *gdev;
};

#if IS_ENABLED(CONFIG_KUNIT)
int gembuf_engine_lend(struct gembuf_edu_lease *lease);
void gembuf_engine_return(struct gembuf_edu_lease *lease);
#endif

#endif /* _GEMBUF_EDU_H_ */
