// SPDX-License-Identifier: GPL-2.0-only
/*
 * Backing reservations with physical memory, and the cache policy that
 * keeps the mappings of one physmem consistent.
 *
 * Mapping one page with two memory types (cacheable through one alias,
 * non-cacheable through another) is architecturally unpredictable on ARM.
 * VCM therefore gives each physmem one cache class, fixed by its first
 * backed reservation and kept until its last one is unbacked; a backing
 * that would map it with another class is refused with -EINVAL.  Before a
 * physmem is first mapped non-cacheable, its linear-map alias is written
 * back and invalidated, so no dirty line can later be evicted over what
 * a device or a non-cacheable mapping wrote.
 */

#include <linux/dma-mapping.h>
#include <linux/mm.h>

#include "vcm_priv.h"

static int vcm_one_to_one_place(struct vcm_res *res, struct vcm_physmem *pm)
{
	phys_addr_t phys = sg_phys(pm->sgt.sgl);
	int ret;

	if (!pm->contiguous) {
		pr_debug("vcm: one-to-one VCM %u needs contiguous memory\n",
			 res->vcm->id);
		return -EINVAL;
	}
	if (!IS_ALIGNED(phys, res->align) && (res->attr & VCM_ALIGN_MASK))
		return -EINVAL;
	ret = vcm_space_insert(&res->vcm->space, phys, res->len, &res->owner);
	if (ret)
		return ret;
	res->dev_addr = phys;
	res->placed = true;
	return 0;
}

static int vcm_kind_back(struct vcm_res *res, struct vcm_physmem *pm)
{
	switch (res->vcm->type) {
	case VCM_DEVICE:
		return res->vcm->domain ? vcm_iommu_map(res) : 0;
	case VCM_DMA:
		return res->vcm->dma_active ? vcm_dma_map(res) : -ENODEV;
	case VCM_ONE_TO_ONE:
		return vcm_one_to_one_place(res, pm);
	case VCM_EXT_KERNEL:
		return vcm_kernel_map(res);
	}
	return -EINVAL;
}

static void vcm_kind_unback(struct vcm_res *res)
{
	switch (res->vcm->type) {
	case VCM_DEVICE:
		if (res->mapped)
			vcm_iommu_unmap(res);
		break;
	case VCM_DMA:
		vcm_dma_unmap(res);
		break;
	case VCM_ONE_TO_ONE:
		vcm_space_remove(&res->vcm->space, res->dev_addr, res->len);
		res->placed = false;
		res->dev_addr = DMA_MAPPING_ERROR;
		break;
	case VCM_EXT_KERNEL:
		vcm_kernel_unmap(res);
		break;
	}
}

/**
 * __vcm_back() - back a reservation, its VCM locked
 * @res: an unbacked reservation
 * @pm: the physmem; the caller holds a reference to it (its creator's, or
 *	that of a reservation it backs)
 *
 * The backing takes a reference to @pm, which __vcm_unback() drops.
 *
 * Return: 0 or a negative errno as vcm_back().
 */
int __vcm_back(struct vcm_res *res, struct vcm_physmem *pm)
{
	enum vcm_cache_class cclass = vcm_cache_class(res->attr);
	int ret;

	if (res->len != pm->len)
		return -EINVAL;

	/* One device's DMA addresses mean nothing anywhere else. */
	if (pm->dev_vcm && pm->dev_vcm != res->vcm) {
		pr_debug("vcm: physmem %u holds DMA addresses for VCM %u only\n",
			 pm->id, pm->dev_vcm->id);
		return -EINVAL;
	}

	mutex_lock(&pm->lock);
	/*
	 * The DMA API's streaming mappings assume the CPU maps the memory
	 * cacheable (a snooping device could otherwise read stale lines of
	 * the linear alias): a DMA backing counts as a cached mapping.
	 */
	if (res->vcm->type == VCM_DMA)
		cclass = VCM_CC_CACHED;
	if ((pm->cclass != VCM_CC_NONE && pm->cclass != cclass) ||
	    ((pm->attr & VCM_COHERENT) && cclass == VCM_CC_CACHED)) {
		pr_debug("vcm: physmem %u is mapped with cache class %d, not %d\n",
			 pm->id, pm->cclass, cclass);
		vcm_stat_add(VCM_STAT_CONFLICTS, 1);
		ret = -EINVAL;
		goto out;
	}

	if (cclass != VCM_CC_CACHED && !pm->nc_clean) {
		ret = vcm_phys_clean(pm);
		if (ret)
			goto out;
		pm->nc_clean = true;
	}
	res->physmem = pm;
	ret = vcm_kind_back(res, pm);
	if (ret) {
		res->physmem = NULL;
		if (!pm->num_res)
			pm->cclass = VCM_CC_NONE;
		goto out;
	}

	/* A cacheable mapping may leave dirty lines in the linear alias. */
	if (cclass == VCM_CC_CACHED)
		pm->nc_clean = false;
	pm->cclass = cclass;
	list_add_tail(&res->phys_node, &pm->res_list);
	pm->num_res++;
	vcm_phys_get(pm);
	vcm_stat_add(VCM_STAT_BACKED, 1);
out:
	mutex_unlock(&pm->lock);
	return ret;
}

/**
 * __vcm_unback() - unback a reservation, its VCM locked
 * @res: a backed reservation
 *
 * Drops the backing's reference to the physmem once the physmem's lock is
 * released: once num_res is 0, vcm_phys_free() on another thread may drop
 * the creator's reference, and this one then frees the physmem.
 */
void __vcm_unback(struct vcm_res *res)
{
	struct vcm_physmem *pm = res->physmem;

	vcm_kind_unback(res);

	mutex_lock(&pm->lock);
	list_del_init(&res->phys_node);
	if (!--pm->num_res)
		pm->cclass = VCM_CC_NONE;
	mutex_unlock(&pm->lock);
	res->physmem = NULL;
	vcm_stat_add(VCM_STAT_BACKED, -1);
	vcm_phys_put(pm);
}

/**
 * vcm_back() - back a reservation with physical memory
 * @res: a live reservation of the caller's
 * @physmem: a live physmem, the caller's or lent to it by its owner; its
 *	length must equal the reservation's
 *
 * Maps @physmem at the reservation's addresses for every device of the
 * VCM: in the IOMMU domain with the largest page sizes the chunks and the
 * address alignment allow (if the VCM has no domain yet, when it gets
 * one), in vmalloc space, or, for a one-to-one VCM, by placing the
 * reservation at the physical address of @physmem.  One physmem can back
 * any number of reservations in any number of VCMs as long as they all
 * use one cache class (see Documentation/mm/vcm.rst).
 *
 * The owner of @physmem keeps it live (does not vcm_phys_free() it) until
 * this call returns; from then on the backing holds it, and
 * vcm_phys_free() fails with -EBUSY until the reservation is unbacked.
 * The caller serialises vcm_back() against other uses of @res
 * (vcm_unback(), vcm_unreserve()); backings of one physmem, from any
 * number of threads and VCMs, need no serialisation.
 *
 * Context: Process context; takes the VCM's lock and the physmem's lock.
 * Return: 0, -EINVAL for a NULL or ERR_PTR() handle, lengths that differ,
 * a cache class that conflicts with the physmem's other mappings or with
 * %VCM_COHERENT, or scattered memory for a one-to-one VCM; -EBUSY if @res
 * is already backed or (one-to-one) the physical range is reserved;
 * -ERANGE if the memory lies outside a one-to-one VCM; for a DMA VCM,
 * -ENODEV while its association is not active, -EINVAL for DMA
 * addresses of an earlier activation, -ENOSPC when the DMA API has no
 * room to map it (its -ENOMEM), or the error of the DMA mapping;
 * -EOPNOTSUPP for a non-cacheable mapping where the DMA API cannot write
 * the CPU's caches back (vcm_phys_clean()); -ENOMEM.
 */
int vcm_back(struct vcm_res *res, struct vcm_physmem *physmem)
{
	struct vcm *vcm;
	int ret;

	if (IS_ERR_OR_NULL(res) || IS_ERR_OR_NULL(physmem))
		return -EINVAL;

	vcm = res->vcm;
	mutex_lock(&vcm->lock);
	ret = res->physmem ? -EBUSY : __vcm_back(res, physmem);
	mutex_unlock(&vcm->lock);

	return ret;
}
EXPORT_SYMBOL_GPL(vcm_back);

/**
 * vcm_unback() - remove the backing of a reservation
 * @res: a live reservation of the caller's
 *
 * Unmaps the memory from every device of the VCM (the IOMMU TLB is
 * flushed before this returns) or from vmalloc space.
 * The reservation keeps its address, except in kernel and one-to-one
 * VCMs, where the address came from the backing.  The caller serialises
 * vcm_unback() against other uses of @res.  The owner of the physmem may
 * vcm_phys_free() it as soon as it sees its last backing gone, even while
 * this call is still returning: the backing's hold on it is dropped last.
 *
 * Context: Process context; takes the VCM's lock and the physmem's lock.
 * Return: 0, -EINVAL for a NULL or ERR_PTR() @res, -ENOENT if it is not
 * backed.
 */
int vcm_unback(struct vcm_res *res)
{
	struct vcm *vcm;
	int ret = 0;

	if (IS_ERR_OR_NULL(res))
		return -EINVAL;

	vcm = res->vcm;
	mutex_lock(&vcm->lock);
	if (res->physmem)
		__vcm_unback(res);
	else
		ret = -ENOENT;
	mutex_unlock(&vcm->lock);

	return ret;
}
EXPORT_SYMBOL_GPL(vcm_unback);
