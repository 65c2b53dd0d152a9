// SPDX-License-Identifier: GPL-2.0-only
/*
 * VCM constraints: what the devices that share memory need of it, derived
 * from each device's DMA setup, combined, and checked against a physmem.
 *
 * A device behind an IOMMU that translates for it sees the memory through
 * its page tables: any pages do, and chunks of the IOMMU's block sizes map
 * with the fewest entries.  A device that sees physical addresses (no
 * IOMMU, or an identity domain) needs the memory in one physical range
 * below its DMA mask, and takes it in segments its DMA parameters bound;
 * such memory is allocated through its DMA API.  The intersection of
 * several devices' needs is what memory shared by all of them must be;
 * vcm_phys_alloc_for() allocates it.
 */

#include <linux/device.h>
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

/* The highest address both DMA masks of a device allow. */
static u64 vcm_dev_limit(struct device *dev)
{
	return min(dma_get_mask(dev), dev->coherent_dma_mask);
}

/**
 * vcm_constraint_of_dev() - what a device needs of memory it maps
 * @dev: a device with its DMA set up (the IOMMU domain it is in, its
 *	DMA mask and parameters)
 * @c: set to the device's constraint
 *
 * A device in a paging IOMMU domain needs chunks its IOMMU can map; any
 * other device sees physical addresses and needs one contiguous range
 * below its DMA masks, cut into segments it takes, allocated through its
 * DMA API.  Nothing here is configured: it is what the DMA API knows of
 * the device.
 *
 * Context: Process context.
 * Return: 0, or -EINVAL for a NULL @dev or one without DMA (no streaming
 * or, when it sees physical addresses, no coherent DMA mask).
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
		/* dma_alloc_pages() allocates below the coherent mask. */
		if (!dev->coherent_dma_mask)
			return -EINVAL;
		vcm_constraint_init(c);
		mask = vcm_dev_limit(dev);
		c->flags = VCM_CONSTRAINT_CONTIGUOUS;
		c->dev = dev;
		if (mask < PHYS_ADDR_MAX) {
			c->flags |= VCM_CONSTRAINT_LIMIT;
			c->dma_limit = mask;
		}
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
 * sees physical addresses: contiguous memory inside the VCM's range,
 * allocated through the device of its first association; a DMA VCM needs
 * what its device needs (vcm_constraint_of_dev()) but one range, which
 * the DMA API does without; the kernel kind takes any memory.
 * The device the constraint names is borrowed from the VCM's association.
 *
 * Context: Process context; takes the VCM's lock.
 * Return: 0, or -EINVAL for a NULL or ERR_PTR() @vcm.
 */
int vcm_constraint_of_vcm(struct vcm *vcm, struct vcm_constraint *c)
{
	struct vcm_avcm *avcm;

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
		mutex_lock(&vcm->lock);
		avcm = list_first_entry_or_null(&vcm->assoc_list,
						struct vcm_avcm, node);
		c->dev = avcm ? avcm->dev : NULL;
		mutex_unlock(&vcm->lock);
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
 * allow, allocated through the device of the lower limit.  Memory that
 * satisfies the result satisfies both.
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
	if (c->dev && (!acc->dev || c->dma_limit < acc->dma_limit))
		r.dev = c->dev;
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
 * Context: Any context.
 * Return: 0, -E2BIG for contiguous memory larger than RAM, -EINVAL for a
 * length not a multiple of the granule.
 */
int vcm_constraint_check_len(const struct vcm_constraint *c, size_t len)
{
	if (!IS_ALIGNED(len, c->granule))
		return -EINVAL;
	if ((c->flags & VCM_CONSTRAINT_CONTIGUOUS) &&
	    len >> PAGE_SHIFT > totalram_pages())
		return -E2BIG;
	return 0;
}
EXPORT_SYMBOL_GPL(vcm_constraint_check_len);

/**
 * vcm_constraint_alloc_dev() - the device memory for a constraint comes from
 * @c: the constraint
 *
 * A range for no device in particular (%VCM_CONSTRAINT_CONTIGUOUS without
 * a device) comes from where the DMA API gives memory to a device of no
 * DMA configuration of its own: VCM's (the default CMA area).
 *
 * Return: the device when the memory must be one range, or below a limit
 * that not all of RAM is below; NULL for chunks of the page allocator.
 */
struct device *vcm_constraint_alloc_dev(const struct vcm_constraint *c)
{
	if (c->flags & VCM_CONSTRAINT_CONTIGUOUS)
		return c->dev ?: vcm_cache_dev;
	if ((c->flags & VCM_CONSTRAINT_LIMIT) && c->dev &&
	    dma_addressing_limited(c->dev))
		return c->dev;
	return NULL;
}

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
	u32 unmet = 0, unmet_mask = ~0;
	size_t len;

	if (IS_ERR_OR_NULL(physmem))
		return VCM_CONSTRAINT_LIMIT;
	/*
	 * The DMA API gave the device memory it reaches, in one range: that
	 * answers for a limit no lower than the device's own.
	 */
	if (c->dev && physmem->dma_dev == c->dev &&
	    c->dma_limit >= vcm_dev_limit(c->dev))
		unmet_mask = ~(u32)(VCM_CONSTRAINT_CONTIGUOUS |
				    VCM_CONSTRAINT_LIMIT);
	if ((c->flags & VCM_CONSTRAINT_CONTIGUOUS) && !physmem->contiguous)
		unmet |= VCM_CONSTRAINT_CONTIGUOUS;
	vcm_for_each_phys_chunk(physmem, cursor, phys, len) {
		if (phys + len - 1 > c->dma_limit)
			unmet |= VCM_CONSTRAINT_LIMIT;
		if (!IS_ALIGNED(phys | len, c->granule))
			unmet |= VCM_CONSTRAINT_GRANULE;
	}
	return unmet & unmet_mask;
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
