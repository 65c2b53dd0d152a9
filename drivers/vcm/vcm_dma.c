// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DMA kind of VCM: one device's address space as the DMA API gives it.
 *
 * A device that shares memory with others stays on the DMA API: its
 * driver never attaches an IOMMU domain of its own, so the DMA API keeps
 * working for it (for memory other drivers export to it, above all), and
 * the DMA API does whatever the platform needs between the CPU and the
 * device: IOMMU mappings in the device's DMA domain, bounce buffers, and
 * cache maintenance for a device that does not snoop.
 *
 * A reservation of a DMA VCM has no address until it is backed.  Backing
 * maps the physmem's chunks with dma_map_sgtable(); the DMA API gives
 * back segments of device addresses, which the owner uses as they are
 * (vcm_get_dma_sgt()): nothing promises that they are adjacent.
 * vcm_get_dev_addr() gives the first one.  iommu-dma allocates IOVAs
 * aligned to the size of the mapping and maps a table with one
 * iommu_map_sg() call, so chunks sized for the IOMMU's page sizes map with
 * its largest entries.  A physmem of the device's own DMA addresses, made
 * by vcm_phys_from_dma() from a dma-buf attachment of the device, backs a
 * reservation as it is: it was mapped by its exporter, for the activation
 * of the association it was made in.
 *
 * The DMA API works on memory the CPU maps cacheable: a DMA reservation
 * takes the write-back policy only, and a physmem mapped write-combined
 * anywhere cannot back one.  Mappings skip the CPU sync, as exporters of
 * shared memory map it (one page may be mapped for several devices at
 * once); the owner syncs around each use instead (vcm_sync_for_device(),
 * vcm_sync_for_cpu()), serialised against vcm_deactivate().
 */

#include <linux/dma-mapping.h>
#include <linux/iommu.h>
#include <linux/slab.h>

#include "vcm_priv.h"

/**
 * vcm_dma_assoc() - give a DMA VCM its device
 * @vcm: a %VCM_DMA VCM, locked
 * @dev: the device
 *
 * Return: 0, -EINVAL for a device without DMA, or -EBUSY if the VCM has
 * another device already: the DMA addresses of one device mean nothing to
 * another.
 */
int vcm_dma_assoc(struct vcm *vcm, struct device *dev)
{
	if (!dev->dma_mask)
		return -EINVAL;
	if (vcm->dma_dev)
		return -EBUSY;
	vcm->dma_dev = dev;
	return 0;
}

/**
 * vcm_dma_deassoc() - take a DMA VCM's device away
 * @vcm: a %VCM_DMA VCM, locked, its association inactive
 */
void vcm_dma_deassoc(struct vcm *vcm)
{
	vcm->dma_dev = NULL;
}

/**
 * vcm_dma_activate() - map the backed reservations for the device
 * @vcm: a %VCM_DMA VCM, locked, with its device
 *
 * Return: 0, or the error of a mapping, with none made.
 */
int vcm_dma_activate(struct vcm *vcm)
{
	struct vcm_res *res;
	int ret;

	list_for_each_entry(res, &vcm->res_list, vcm_node) {
		/* DMA addresses of an earlier activation stay unmapped. */
		if (!res->physmem || res->mapped || res->physmem->dev_vcm)
			continue;
		ret = vcm_dma_map(res);
		if (ret)
			goto unwind;
	}
	vcm->dma_active = true;
	return 0;

unwind:
	list_for_each_entry_continue_reverse(res, &vcm->res_list, vcm_node)
		if (res->mapped)
			vcm_dma_unmap(res);
	return ret;
}

/**
 * vcm_dma_deactivate() - unmap every reservation for the device
 * @vcm: a %VCM_DMA VCM, locked
 *
 * The device's driver is going, or stops using the VCM: no DMA API
 * mapping of the device may outlive its driver.  The reservations stay
 * backed, without device addresses, until unbacked or activated again.
 * Physmems of the device's DMA addresses (vcm_phys_from_dma()) belong to
 * this activation: their owner's attachments may go with the driver, so
 * they are never mapped again.
 */
void vcm_dma_deactivate(struct vcm *vcm)
{
	struct vcm_res *res;

	list_for_each_entry(res, &vcm->res_list, vcm_node)
		if (res->mapped)
			vcm_dma_unmap(res);
	vcm->dma_active = false;
	vcm->dma_gen++;
}

/* The device addresses of @sgt form one range. */
static bool vcm_dma_contiguous(struct sg_table *sgt)
{
	struct scatterlist *sg;
	dma_addr_t next = 0;
	unsigned int i;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		if (i && sg_dma_address(sg) != next)
			return false;
		next = sg_dma_address(sg) + sg_dma_len(sg);
	}
	return true;
}

/*
 * The leaf entries iommu-dma writes for the table, when it mapped it at
 * one IOVA range: it maps the whole table with one iommu_map_sg() call at
 * the range's start, which takes the largest page size that the IOVA and
 * each run of physically contiguous chunks allow.  Known only for the
 * device's own DMA domain, and for VCM's own chunks.
 */
static size_t vcm_dma_count_ptes(struct device *dev, struct sg_table *sgt)
{
	struct iommu_domain *domain = iommu_get_domain_for_dev(dev);

	if (!domain || !iommu_is_dma_domain(domain) || !vcm_dma_contiguous(sgt))
		return 0;
	return vcm_iommu_count_sgt_ptes(domain->pgsize_bitmap,
					sg_dma_address(sgt->sgl), sgt);
}

/* What the device may do with a reservation, from its attributes. */
static enum dma_data_direction vcm_dma_dir(u32 attr)
{
	if ((attr & VCM_READ) && (attr & VCM_WRITE))
		return DMA_BIDIRECTIONAL;
	return attr & VCM_WRITE ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
}

/**
 * vcm_dma_map() - map a backed reservation for the VCM's device
 * @res: the reservation, its VCM locked and active, @res->physmem set
 *
 * Return: 0; -EINVAL for a physmem of DMA addresses of an earlier
 * activation; -ENOSPC when the DMA API has no room for it; or the error
 * of the DMA mapping.
 */
int vcm_dma_map(struct vcm_res *res)
{
	struct vcm_physmem *pm = res->physmem;
	struct device *dev = res->vcm->dma_dev;
	struct sg_table *sgt;
	int ret;

	if (pm->dev_vcm) {
		/* The device's own addresses, mapped by their exporter. */
		if (pm->dev_gen != res->vcm->dma_gen)
			return -EINVAL;
		res->dev_addr = sg_dma_address(pm->sgt.sgl);
		res->placed = true;
		res->mapped = true;
		return 0;
	}

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return -ENOMEM;
	ret = vcm_phys_to_sgt_for_dev(pm, dev, sgt);
	if (ret)
		goto err_free;
	/* The owner syncs for the device before each use. */
	res->dma_dir = vcm_dma_dir(res->attr);
	ret = dma_map_sgtable(dev, sgt, res->dma_dir, DMA_ATTR_SKIP_CPU_SYNC);
	/*
	 * -ENOMEM is the DMA API's "insufficient resources, like IOVA space"
	 * (dma-api.rst): a full address space, as vcm_reserve() says it for
	 * the VCMs whose addresses VCM allocates.  Unmapping what the device
	 * no longer uses may make room.
	 */
	if (ret == -ENOMEM)
		ret = -ENOSPC;
	if (ret)
		goto err_table;

	res->dma_sgt = sgt;
	res->dev_addr = sg_dma_address(sgt->sgl);
	res->placed = true;
	res->mapped = true;
	res->num_ptes = vcm_dma_count_ptes(dev, sgt);
	if (res->num_ptes) {
		vcm_stat_add(VCM_STAT_IOMMU_BYTES, res->len);
		vcm_stat_add(VCM_STAT_IOMMU_PTES, res->num_ptes);
	}
	return 0;

err_table:
	sg_free_table(sgt);
err_free:
	kfree(sgt);
	return ret;
}

/**
 * vcm_dma_unmap() - undo vcm_dma_map()
 * @res: a mapped reservation, its VCM locked
 */
void vcm_dma_unmap(struct vcm_res *res)
{
	struct sg_table *sgt = res->dma_sgt;

	if (sgt) {
		dma_unmap_sgtable(res->vcm->dma_dev, sgt, res->dma_dir,
				  DMA_ATTR_SKIP_CPU_SYNC);
		sg_free_table(sgt);
		kfree(sgt);
		res->dma_sgt = NULL;
	}
	if (res->num_ptes) {
		vcm_stat_add(VCM_STAT_IOMMU_BYTES, -(long)res->len);
		vcm_stat_add(VCM_STAT_IOMMU_PTES, -(long)res->num_ptes);
	}
	res->num_ptes = 0;
	res->mapped = false;
	res->placed = false;
	res->dev_addr = DMA_MAPPING_ERROR;
}

static void vcm_dma_sync(struct vcm_res *res, bool for_cpu)
{
	/* Set when backed; the owner serialises this against unbacking. */
	struct sg_table *sgt = res->dma_sgt;

	if (!sgt)
		return;
	if (for_cpu)
		dma_sync_sgtable_for_cpu(res->vcm->dma_dev, sgt, res->dma_dir);
	else
		dma_sync_sgtable_for_device(res->vcm->dma_dev, sgt, res->dma_dir);
}

/**
 * vcm_sync_for_device() - hand a reservation's memory to its device
 * @res: a backed reservation of a %VCM_DMA VCM, the caller's
 *
 * Before the device accesses the memory: what the CPU wrote becomes
 * visible to it, through the DMA API (cache maintenance for a device that
 * does not snoop, a copy into a bounce buffer).  Does nothing for the
 * other kinds, and for memory of the device's own DMA addresses, whose
 * exporter does the maintenance around CPU access.
 *
 * Context: Any context the DMA API's sync calls allow.
 */
void vcm_sync_for_device(struct vcm_res *res)
{
	if (res->vcm->type == VCM_DMA)
		vcm_dma_sync(res, false);
}
EXPORT_SYMBOL_GPL(vcm_sync_for_device);

/**
 * vcm_sync_for_cpu() - give a reservation's memory back to the CPU
 * @res: a backed reservation of a %VCM_DMA VCM, the caller's
 *
 * After the device accessed the memory, before the CPU reads it: the
 * counterpart of vcm_sync_for_device().
 *
 * Context: Any context the DMA API's sync calls allow.
 */
void vcm_sync_for_cpu(struct vcm_res *res)
{
	if (res->vcm->type == VCM_DMA)
		vcm_dma_sync(res, true);
}
EXPORT_SYMBOL_GPL(vcm_sync_for_cpu);

/**
 * vcm_get_dma_sgt() - the device addresses of a DMA reservation
 * @res: a backed reservation of a %VCM_DMA VCM, the caller's
 *
 * The segments the DMA API mapped the backing at, or those of the
 * device's attachment for a physmem of vcm_phys_from_dma(): walk them
 * with for_each_sgtable_dma_sg() and use sg_dma_address() and
 * sg_dma_len() only.  Nothing promises that they are adjacent.  The table
 * stays until the reservation is unbacked or its association deactivated.
 *
 * gembuf's engine programs its transfers from it.
 *
 * Return: the table, or NULL while @res is not mapped for the device.
 */
struct sg_table *vcm_get_dma_sgt(struct vcm_res *res)
{
	if (res->vcm->type != VCM_DMA || !res->mapped)
		return NULL;
	return res->dma_sgt ?: &res->physmem->sgt;
}
EXPORT_SYMBOL_GPL(vcm_get_dma_sgt);
