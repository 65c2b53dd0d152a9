// SPDX-License-Identifier: GPL-2.0-only
/*
 * QEMU's "edu" educational PCI device as a DMA master.
 *
 * edu copies up to 4 KiB per command between a device address in RAM and
 * a buffer inside the device, and raises no interrupt gembuf uses: a
 * command is started by writing its registers and is done when the run
 * bit reads back clear (QEMU completes it on a 100 ms virtual timer).
 * The engine reaches edu only through this file.
 */

#include <linux/bits.h>
#include <linux/io.h>
#include <linux/iopoll.h>

#include "gembuf_edu.h"

#define EDU_REG_IDENT		0x00
#define EDU_REG_DMA_SRC		0x80
#define EDU_REG_DMA_DST		0x88
#define EDU_REG_DMA_COUNT	0x90
#define EDU_REG_DMA_CMD		0x98
#define EDU_DMA_RUN		BIT(0)
#define EDU_DMA_TO_RAM		BIT(1)
#define EDU_IDENT_MAGIC		0xed
/* edu's buffer, as its own DMA commands address it. */
#define EDU_BUF			0x40000
#define EDU_DMA_POLL_US		100
#define EDU_DMA_TIMEOUT_US	(2 * USEC_PER_SEC)

/**
 * gembuf_edu_present() - whether the registers are edu's
 * @regs: BAR 0 of the device
 *
 * Return: true when the identification register says edu.
 */
bool gembuf_edu_present(void __iomem *regs)
{
	return (readl(regs + EDU_REG_IDENT) & 0xff) == EDU_IDENT_MAGIC;
}

/**
 * gembuf_edu_dma() - run one DMA command and wait for it
 * @regs: BAR 0 of the device
 * @addr: the device address in RAM
 * @off: offset in edu's buffer
 * @len: bytes, 1 or more, with @off + @len below %GEMBUF_EDU_BUF_SIZE
 * @to_ram: true to copy from edu's buffer to @addr, false for the reverse
 *
 * The caller serialises commands: edu runs one at a time.
 *
 * Return: 0, -EINVAL for a range edu does not have, -ETIMEDOUT.
 */
int gembuf_edu_dma(void __iomem *regs, dma_addr_t addr, u32 off, u32 len,
		   bool to_ram)
{
	u64 cmd;

	if (!len || off >= GEMBUF_EDU_BUF_SIZE ||
	    len >= GEMBUF_EDU_BUF_SIZE - off)
		return -EINVAL;

	writeq(to_ram ? EDU_BUF + off : addr, regs + EDU_REG_DMA_SRC);
	writeq(to_ram ? addr : EDU_BUF + off, regs + EDU_REG_DMA_DST);
	writeq(len, regs + EDU_REG_DMA_COUNT);
	writeq(EDU_DMA_RUN | (to_ram ? EDU_DMA_TO_RAM : 0),
	       regs + EDU_REG_DMA_CMD);
	return readq_poll_timeout(regs + EDU_REG_DMA_CMD, cmd,
				  !(cmd & EDU_DMA_RUN), EDU_DMA_POLL_US,
				  EDU_DMA_TIMEOUT_US);
}
