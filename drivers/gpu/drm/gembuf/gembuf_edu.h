/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * QEMU's "edu" PCI device, the hardware of gembuf's DMA engine.
 */

#ifndef _GEMBUF_EDU_H_
#define _GEMBUF_EDU_H_

#include <linux/sizes.h>
#include <linux/types.h>

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
int gembuf_edu_dma(void __iomem *regs, dma_addr_t addr, u32 off, u32 len,
		   bool to_ram);

#endif /* _GEMBUF_EDU_H_ */
