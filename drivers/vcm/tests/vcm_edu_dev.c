// SPDX-License-Identifier: GPL-2.0-only
/*
 * The vcm_edu module's device: a QEMU "edu" PCI device of its own, a DMA
 * master behind the IOMMU for the vcm_edu suite (vcm_edu_test.c) and the
 * map and unmap benchmark (vcm_edu_bench.c).
 *
 * The driver has no ID table: it binds only the edu whose driver_override
 * names it, which the guest sets before any driver of edu loads, so that
 * no other driver of edu (gembuf's DMA engine matches every one) takes
 * that device and this one takes no other.  It probes synchronously from
 * the module's init, so the device is bound before KUnit runs the suite
 * of the loaded module.
 *
 * edu copies up to 4 KiB per command between a device address and a
 * buffer inside the device: a command is started by writing its
 * registers and is done when the run bit reads back clear, which QEMU
 * does on a 100 ms timer of its virtual clock.  The tests poll for that.
 */

#include <linux/bits.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/iopoll.h>
#include <linux/module.h>
#include <linux/pci.h>

#include "vcm_edu.h"

#define EDU_VENDOR_ID		0x1234
#define EDU_DEVICE_ID		0x11e8

#define EDU_REG_IDENT		0x00
#define EDU_REG_LIVENESS	0x04
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

/*
 * edu has no register that tells how many address bits its DMA drives,
 * and QEMU drops the bits above its dma_mask property.  The test machine
 * gives the suite's edu 40 (-device edu,dma_mask=0xffffffffff), which
 * EDU_VCM_START and the DMA API's addresses fit in.
 */
#define EDU_DMA_BITS		40

static struct vcm_edu vcm_edu_dev = {
	.lock = __MUTEX_INITIALIZER(vcm_edu_dev.lock),
};

struct vcm_edu *vcm_edu = &vcm_edu_dev;

/**
 * vcm_edu_get() - the module's edu, held
 *
 * Return: edu's device with a reference the caller drops with
 * put_device(), or NULL when no edu is bound to the module's driver.
 */
struct device *vcm_edu_get(void)
{
	struct device *dev;

	mutex_lock(&vcm_edu->lock);
	dev = get_device(vcm_edu->dev);
	mutex_unlock(&vcm_edu->lock);
	return dev;
}

/**
 * vcm_edu_present() - whether edu's registers say edu
 * @edu: the module's edu
 *
 * Return: true when the identification register says edu.
 */
bool vcm_edu_present(struct vcm_edu *edu)
{
	bool ret = false;

	mutex_lock(&edu->lock);
	if (edu->regs)
		ret = (readl(edu->regs + EDU_REG_IDENT) & 0xff) ==
		      EDU_IDENT_MAGIC;
	mutex_unlock(&edu->lock);
	return ret;
}

/**
 * vcm_edu_alive() - edu's liveness check
 * @edu: the module's edu
 *
 * edu answers a word written to its liveness register with its inverse.
 *
 * Return: true when it does.
 */
bool vcm_edu_alive(struct vcm_edu *edu)
{
	u32 probe = 0x12345678;
	bool ret = false;

	mutex_lock(&edu->lock);
	if (edu->regs) {
		writel(probe, edu->regs + EDU_REG_LIVENESS);
		ret = readl(edu->regs + EDU_REG_LIVENESS) == ~probe;
	}
	mutex_unlock(&edu->lock);
	return ret;
}

/**
 * vcm_edu_dma() - run one DMA command of edu and wait for it
 * @edu: the module's edu
 * @addr: the device address in memory
 * @off: offset in edu's buffer
 * @len: bytes, 1 or more, with @off + @len below %EDU_BUF_SIZE
 * @to_ram: true to copy from edu's buffer to @addr, false for the reverse
 *
 * Context: Process context; takes @edu's lock, so commands run one at a
 * time.
 * Return: 0, -EINVAL for a range edu does not have, -ENODEV when no edu is
 * bound, -ETIMEDOUT when the command does not end.
 */
int vcm_edu_dma(struct vcm_edu *edu, dma_addr_t addr, u32 off, u32 len,
		bool to_ram)
{
	u64 cmd;
	int ret;

	if (!len || off >= EDU_BUF_SIZE || len >= EDU_BUF_SIZE - off)
		return -EINVAL;

	mutex_lock(&edu->lock);
	if (!edu->regs) {
		ret = -ENODEV;
		goto unlock;
	}
	writeq(to_ram ? EDU_BUF + off : addr, edu->regs + EDU_REG_DMA_SRC);
	writeq(to_ram ? addr : EDU_BUF + off, edu->regs + EDU_REG_DMA_DST);
	writeq(len, edu->regs + EDU_REG_DMA_COUNT);
	writeq(EDU_DMA_RUN | (to_ram ? EDU_DMA_TO_RAM : 0),
	       edu->regs + EDU_REG_DMA_CMD);
	ret = readq_poll_timeout(edu->regs + EDU_REG_DMA_CMD, cmd,
				 !(cmd & EDU_DMA_RUN), EDU_DMA_POLL_US,
				 EDU_DMA_TIMEOUT_US);
unlock:
	mutex_unlock(&edu->lock);
	return ret;
}

static int vcm_edu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	void __iomem *regs;
	int ret;

	if (pdev->vendor != EDU_VENDOR_ID || pdev->device != EDU_DEVICE_ID)
		return -ENODEV;
	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	regs = pcim_iomap_region(pdev, 0, KBUILD_MODNAME);
	if (IS_ERR(regs))
		return PTR_ERR(regs);
	if ((readl(regs + EDU_REG_IDENT) & 0xff) != EDU_IDENT_MAGIC)
		return -ENODEV;
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(EDU_DMA_BITS));
	if (ret)
		return ret;
	/*
	 * edu's commands take any address and length: no segment limit
	 * (PCI's default is 64 KiB), so a DMA mapping is cut at VCM's
	 * chunks, not at 64 KiB.
	 */
	dma_set_max_seg_size(&pdev->dev, UINT_MAX);
	pci_set_master(pdev);

	/* The suite and the benchmark use one edu. */
	mutex_lock(&vcm_edu->lock);
	if (vcm_edu->dev) {
		ret = -EBUSY;
	} else {
		vcm_edu->dev = &pdev->dev;
		vcm_edu->regs = regs;
	}
	mutex_unlock(&vcm_edu->lock);
	return ret;
}

static void vcm_edu_remove(struct pci_dev *pdev)
{
	/* The command or the benchmark running ends first. */
	mutex_lock(&vcm_edu->lock);
	vcm_edu->dev = NULL;
	vcm_edu->regs = NULL;
	mutex_unlock(&vcm_edu->lock);
}

/* Bound by driver_override only: the name the guest writes there. */
static struct pci_driver vcm_edu_driver = {
	.name = "vcm_edu",
	.probe = vcm_edu_probe,
	.remove = vcm_edu_remove,
	.driver = {
		.probe_type = PROBE_FORCE_SYNCHRONOUS,
		/* Unbound only with the module, not under a running suite. */
		.suppress_bind_attrs = true,
	},
};

static int __init vcm_edu_init(void)
{
	int ret;

	ret = pci_register_driver(&vcm_edu_driver);
	if (ret)
		return ret;
	vcm_edu_bench_init(vcm_edu);
	return 0;
}
module_init(vcm_edu_init);

static void __exit vcm_edu_exit(void)
{
	vcm_edu_bench_exit(vcm_edu);
	pci_unregister_driver(&vcm_edu_driver);
}
module_exit(vcm_edu_exit);

MODULE_DESCRIPTION("VCM's IOMMU kind tested on QEMU's edu device");
MODULE_LICENSE("GPL");
