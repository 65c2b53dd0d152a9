// SPDX-License-Identifier: GPL-2.0-only
/*
 * VCM constraints: what the devices that share memory need of it, derived
 * from each device's DMA setup, combined, and checked against a physmem.
 *
 * A device behind an IOMMU that translates for it sees the memory through
 * its page tables: any pages do, and chunks of the IOMMU's block sizes map
 * with the fewest entries.  A device that sees physical addresses (no
 * IOMMU, or an identity domain) needs the memory in one physical range
 * below its DMA mask, and takes it in segments its DMA parameters bound.
 * The intersection of several devices' needs is what memory shared by
 * all of them must be; vcm_phys_alloc_for() allocates it.
 */

#include <linux/cma.h>
#include <linux/device.h>
#include <linux/dma-direct.h>
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/iommu.h>
#include <linux/memblock.h>
#include <linux/minmax.h>
#include <linux/pfn.h>

#include "vcm_priv.h"

/**
 * vcm_constraint_init() - a constraint that any memory meets
 * @c: the constraint to set
 *
 * Context: Any context.
 */
void vcm_constraint_init(struct vcm_constraint *c)
{
	*c = (struct vcm_constraint) {
		.dma_limit = PHYS_ADDR_MAX,
		.granule = PAGE_SIZE,
		.max_seg = UINT_MAX,
		.seg_boundary = ULONG_MAX,
	};
}
EXPORT_SYMBOL_GPL(vcm_constraint_init);

/* The first byte of RAM: a limit below it can be met by no memory. */
static phys_addr_t vcm_ram_start(void)
{
	return PFN_PHYS(min_low_pfn);
}

static void vcm_constraint_translated(struct vcm_constraint *c,
				      unsigned long pgsizes)
{
	vcm_constraint_init(c);
	c->granule = max(BIT(__ffs(pgsizes)), PAGE_SIZE);
	c->pgsizes = pgsizes & ~(c->granule - 1);
	c->flags = VCM_CONSTRAINT_GRANULE;
}

/**
 * vcm_constraint_of_dev() - what a device needs of memory it maps
 * @dev: a device with its DMA set up (the IOMMU domain it is in, its
 *	DMA mask and parameters)
 * @c: set to the device's constraint
 *
 * A device in a paging IOMMU domain needs chunks its IOMMU can map; any
 * other device sees physical addresses and needs one contiguous range
 * below its DMA mask (and its bus's limit), cut into segments it takes.
 * Whether it snoops the CPU's caches is noted too.  Nothing here is
 * configured: it is what the DMA API knows of the device.
 *
 * Context: Process context.
 * Return: 0, or -EINVAL for a NULL @dev or one without DMA.
 */
int vcm_constraint_of_dev(struct device *dev, struct vcm_constraint *c)
{
	struct iommu_domain *domain;
	u64 mask;

	if (!dev || !dev->dma_mask)
		return -EINVAL;

	domain = iommu_get_domain_for_dev(dev);
	if (domain && (domain->type & __IOMMU_DOMAIN_PAGING) &&
	    domain->pgsize_bitmap) {
		vcm_constraint_translated(c, domain->pgsize_bitmap);
	} else {
		vcm_constraint_init(c);
		mask = min_not_zero(dma_get_mask(dev), dev->bus_dma_limit);
		c->flags = VCM_CONSTRAINT_CONTIGUOUS;
		c->dma_limit = dma_to_phys(dev, mask);
		if (c->dma_limit != PHYS_ADDR_MAX)
			c->flags |= VCM_CONSTRAINT_LIMIT;
		c->max_seg = dma_get_max_seg_size(dev);
		c->seg_boundary = dma_get_seg_boundary(dev);
	}
	c->devices = 1;
	return 0;
}
EXPORT_SYMBOL_GPL(vcm_constraint_of_dev);

/**
 * vcm_constraint_of_vcm() - what mapping memory in a VCM needs of it
 * @vcm: a live VCM
 * @c: set to the constraint
 *
 * An IOMMU VCM needs chunks its domain maps (its own address limits are
 * the VCM's range, not the memory's); a one-to-one VCM is a device that
 * sees physical addresses: contiguous memory inside the VCM's range; a
 * DMA VCM needs what its device needs (vcm_constraint_of_dev()) but one
 * range, which the DMA API does without; the kernel and user kinds take
 * any memory.
 *
 * Context: Process context; takes the VCM's lock.
 * Return: 0, or -EINVAL for a NULL or ERR_PTR() @vcm.
 */
int vcm_constraint_of_vcm(struct vcm *vcm, struct vcm_constraint *c)
{
	if (IS_ERR_OR_NULL(vcm))
		return -EINVAL;

	switch (vcm->type) {
	case VCM_DEVICE:
		vcm_constraint_translated(c, vcm_get_pgsize_bitmap(vcm));
		break;
	case VCM_DMA:
		/*
		 * The DMA API maps for its one device: what that device
		 * needs, except one range: the DMA API maps scattered
		 * memory for a device that sees physical addresses too,
		 * segment by segment.  The limit stays: memory above it
		 * would have to bounce.
		 */
		mutex_lock(&vcm->lock);
		if (!vcm->dma_dev || vcm_constraint_of_dev(vcm->dma_dev, c))
			vcm_constraint_init(c);
		mutex_unlock(&vcm->lock);
		c->flags &= ~VCM_CONSTRAINT_CONTIGUOUS;
		c->max_seg = UINT_MAX;
		c->seg_boundary = ULONG_MAX;
		break;
	case VCM_ONE_TO_ONE:
		vcm_constraint_init(c);
		c->flags = VCM_CONSTRAINT_CONTIGUOUS | VCM_CONSTRAINT_LIMIT;
		c->dma_limit = vcm->start + vcm->len - 1;
		break;
	default:
		vcm_constraint_init(c);
		break;
	}
	c->devices = 1;
	return 0;
}
EXPORT_SYMBOL_GPL(vcm_constraint_of_vcm);

/**
 * vcm_constraint_merge() - narrow a constraint by another's
 * @acc: the constraint of the devices so far; narrowed in place
 * @c: the constraint of one more device (or of several)
 *
 * The result is what memory every device of both must have: contiguous if
 * either needs it, below the lower limit, in chunks of the larger
 * granule, in segments the shorter maximum and the narrower boundary
 * allow.  Memory that satisfies the result satisfies both.
 *
 * Context: Any context.
 * Return: 0, or -ERANGE if no memory of this system can meet the result
 * (a limit below the first byte of RAM); @acc is then left as it was.
 */
int vcm_constraint_merge(struct vcm_constraint *acc,
			 const struct vcm_constraint *c)
{
	struct vcm_constraint r = *acc;

	r.flags |= c->flags;
	r.dma_limit = min(acc->dma_limit, c->dma_limit);
	if (r.dma_limit < vcm_ram_start() + PAGE_SIZE - 1)
		return -ERANGE;
	r.granule = max(acc->granule, c->granule);
	r.pgsizes = (acc->pgsizes | c->pgsizes) & ~(r.granule - 1);
	r.max_seg = min(acc->max_seg, c->max_seg);
	r.seg_boundary = acc->seg_boundary & c->seg_boundary;
	r.devices = acc->devices + c->devices;
	*acc = r;
	return 0;
}
EXPORT_SYMBOL_GPL(vcm_constraint_merge);

/**
 * vcm_constraint_check_len() - whether memory of a length can meet one
 * @c: the constraint
 * @len: bytes
 *
 * Contiguous memory comes from the default CMA area: it must be large
 * enough and, with a limit, start below it.
 *
 * Context: Any context.
 * Return: 0, -E2BIG for contiguous memory larger than the CMA area (or
 * with no CMA area), -ERANGE for contiguous memory below a limit the CMA
 * area is above, -EINVAL for a length not a multiple of the granule.
 */
int vcm_constraint_check_len(const struct vcm_constraint *c, size_t len)
{
	struct cma *cma = dev_get_cma_area(NULL);

	if (!IS_ALIGNED(len, c->granule))
		return -EINVAL;
	if (!(c->flags & VCM_CONSTRAINT_CONTIGUOUS))
		return 0;
	if (!cma || len > cma_get_size(cma))
		return -E2BIG;
	if (cma_get_base(cma) + len - 1 > c->dma_limit)
		return -ERANGE;
	return 0;
}
EXPORT_SYMBOL_GPL(vcm_constraint_check_len);

/**
 * vcm_constraint_unmet() - what a physmem lacks to meet a constraint
 * @c: the constraint
 * @physmem: a live physmem
 *
 * Context: Any context the physmem stays live in.
 * Return: the VCM_CONSTRAINT_* placement bits @physmem breaks
 * (%VCM_CONSTRAINT_CONTIGUOUS, %VCM_CONSTRAINT_LIMIT,
 * %VCM_CONSTRAINT_GRANULE), 0 if it meets @c; %VCM_CONSTRAINT_LIMIT for
 * a NULL or ERR_PTR() @physmem.
 */
u32 vcm_constraint_unmet(const struct vcm_constraint *c,
			 const struct vcm_physmem *physmem)
{
	unsigned int cursor;
	phys_addr_t phys;
	u32 unmet = 0;
	size_t len;

	if (IS_ERR_OR_NULL(physmem))
		return VCM_CONSTRAINT_LIMIT;
	if ((c->flags & VCM_CONSTRAINT_CONTIGUOUS) && !physmem->contiguous)
		unmet |= VCM_CONSTRAINT_CONTIGUOUS;
	vcm_for_each_phys_chunk(physmem, cursor, phys, len) {
		if (phys + len - 1 > c->dma_limit)
			unmet |= VCM_CONSTRAINT_LIMIT;
		if (!IS_ALIGNED(phys | len, c->granule))
			unmet |= VCM_CONSTRAINT_GRANULE;
	}
	return unmet;
}
EXPORT_SYMBOL_GPL(vcm_constraint_unmet);

/**
 * vcm_constraint_name() - the name of a constraint, for messages
 * @flag: one VCM_CONSTRAINT_* bit; of several, the lowest is named
 *
 * Context: Any context.
 * Return: a static string, "none" for 0.
 */
const char *vcm_constraint_name(u32 flag)
{
	if (flag & VCM_CONSTRAINT_CONTIGUOUS)
		return "contiguous";
	if (flag & VCM_CONSTRAINT_LIMIT)
		return "dma-limit";
	if (flag & VCM_CONSTRAINT_GRANULE)
		return "iommu-granule";
	return "none";
}
EXPORT_SYMBOL_GPL(vcm_constraint_name);
