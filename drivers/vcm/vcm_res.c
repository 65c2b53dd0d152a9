// SPDX-License-Identifier: GPL-2.0-only
/*
 * VCM reservations: ranges of device addresses, backed or not.
 */

#include <linux/align.h>
#include <linux/dma-mapping.h>
#include <linux/highmem.h>
#include <linux/iommu.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include <kunit/visibility.h>

#include "vcm_priv.h"

#define VCM_RES_ATTR_ALL	(VCM_CACHE_POLICY | VCM_SECURE | VCM_SUPERVISOR | \
				 VCM_USER | VCM_EXECUTE | VCM_WRITE | VCM_READ | \
				 VCM_ALIGN_MASK)
#define VCM_ALIGN_ORDER_MAX	30

static unsigned int vcm_attr_align_order(u32 attr)
{
	return (attr & VCM_ALIGN_MASK) >> VCM_ALIGN_SHIFT;
}

/**
 * vcm_res_check_attr() - validate reservation attributes for a VCM
 * @vcm: the VCM
 * @attr: the attributes
 *
 * Return: 0, -EINVAL for unknown bits, a cache policy other than
 * %VCM_WB_WA or %VCM_WC (or %VCM_NOTCACHED in a device's VCM, where it
 * means a non-snooping mapping, the memory type of %VCM_WC), an
 * alignment below the page size or above 1 GiB, no access at all, or
 * execute access in the kernel VCM; -EOPNOTSUPP for secure memory,
 * which no memory target provides.
 */
int vcm_res_check_attr(const struct vcm *vcm, u32 attr)
{
	unsigned int order = vcm_attr_align_order(attr);

	if (attr & ~VCM_RES_ATTR_ALL)
		return -EINVAL;
	/*
	 * VCM memory is RAM.  The CPU does not map it as device memory
	 * (VCM_NOTCACHED): unaligned accesses fault and the attributes
	 * conflict with the linear map (msm gave that up).  A device maps
	 * it not cached as it maps VCM_WC, without snooping; a DMA VCM's
	 * device takes cacheable memory only, as the DMA API does.  The kernel
	 * has no write-through or no-write-allocate type to map VCM_WT or
	 * VCM_WB_NWA with.  What cannot be honoured is refused, not mapped
	 * as something else: "uncached" normal memory is VCM_WC.
	 */
	switch (attr & VCM_CACHE_POLICY) {
	case VCM_WB_WA:
	case VCM_WC:
		break;
	case VCM_NOTCACHED:
		if (vcm->type == VCM_DEVICE || vcm->type == VCM_ONE_TO_ONE)
			break;
		return -EINVAL;
	default:
		return -EINVAL;
	}
	/* The DMA API works on memory the CPU maps cacheable. */
	if (vcm->type == VCM_DMA && (attr & VCM_CACHE_POLICY) != VCM_WB_WA)
		return -EINVAL;
	if (order && (order < PAGE_SHIFT || order > VCM_ALIGN_ORDER_MAX))
		return -EINVAL;
	if (!(attr & (VCM_READ | VCM_WRITE)))
		return -EINVAL;
	if (vcm->type == VCM_EXT_KERNEL && (attr & VCM_EXECUTE))
		return -EINVAL;
	if (attr & VCM_SECURE)
		return -EOPNOTSUPP;
	return 0;
}

/**
 * vcm_res_align() - alignment of a new reservation
 * @vcm: the VCM, locked
 * @len: length of the reservation
 * @attr: its attributes
 *
 * Without an explicit alignment, a reservation is aligned to the largest
 * page size of the VCM that fits in it, so that chunks of that size can
 * be mapped with one entry each.
 *
 * Return: the alignment in bytes.
 */
size_t vcm_res_align(struct vcm *vcm, size_t len, u32 attr)
{
	unsigned int order = vcm_attr_align_order(attr);
	unsigned long pgsizes;

	if (order)
		return 1UL << order;

	pgsizes = vcm->domain ? vcm->domain->pgsize_bitmap :
				PAGE_SIZE | SZ_64K | SZ_2M;
	pgsizes &= GENMASK(ilog2(len), 0);
	if (!pgsizes)
		return PAGE_SIZE;
	return max(1UL << __fls(pgsizes), PAGE_SIZE);
}

/**
 * vcm_res_new() - allocate an unplaced reservation
 * @vcm: the VCM, locked; the caller holds a reference to it
 * @len: length
 * @attr: attributes, already checked
 *
 * The reservation takes a reference to @vcm, which vcm_res_destroy() drops.
 *
 * Return: the reservation or ERR_PTR(-ENOMEM).
 */
struct vcm_res *vcm_res_new(struct vcm *vcm, size_t len, u32 attr)
{
	struct vcm_res *res;

	res = kzalloc(sizeof(*res), GFP_KERNEL);
	if (!res)
		return ERR_PTR(-ENOMEM);

	res->owner.kind = VCM_SPACE_RES;
	res->vcm = vcm;
	res->len = len;
	res->attr = attr;
	res->align = vcm_res_align(vcm, len, attr);
	res->dev_addr = DMA_MAPPING_ERROR;
	INIT_LIST_HEAD(&res->phys_node);
	list_add_tail(&res->vcm_node, &vcm->res_list);
	vcm->num_res++;
	vcm_get(vcm);
	vcm_stat_add(VCM_STAT_RES, 1);

	return res;
}

static struct vcm_space *vcm_res_space(struct vcm_res *res)
{
	return res->bound ? &res->bound->space : &res->vcm->space;
}

/**
 * vcm_res_destroy() - free an unbacked reservation
 * @res: the reservation; its VCM is locked
 *
 * Drops the reservation's reference to the VCM.  That is never the last
 * one: the caller holds a reference of its own across the locked section
 * (the creator's, which its caller's use of the VCM guarantees, or a
 * temporary one as in vcm_unreserve()).
 */
void vcm_res_destroy(struct vcm_res *res)
{
	struct vcm *vcm = res->vcm;

	if (res->placed)
		vcm_space_remove(vcm_res_space(res), res->dev_addr, res->len);
	if (res->bound)
		res->bound->num_res--;
	list_del(&res->vcm_node);
	vcm->num_res--;
	kfree(res);
	vcm_stat_add(VCM_STAT_RES, -1);
	/* Under vcm->lock: never the last reference (see above). */
	WARN_ON_ONCE(kref_read(&vcm->ref) < 2);
	vcm_put(vcm);
}

static int vcm_check_len(size_t len)
{
	if (!len || !PAGE_ALIGNED(len))
		return -EINVAL;
	return 0;
}

static struct vcm_res *__vcm_reserve(struct vcm *vcm, size_t len, u32 attr)
{
	struct vcm_res *res;
	unsigned long addr;
	int ret;

	res = vcm_res_new(vcm, len, attr);
	if (IS_ERR(res))
		return res;

	/*
	 * Kernel, one-to-one and DMA reservations are placed when backed:
	 * by vmalloc, at the physical address of the backing, and where the
	 * DMA API maps it.
	 */
	if (vcm->type == VCM_EXT_KERNEL || vcm->type == VCM_ONE_TO_ONE ||
	    vcm->type == VCM_DMA)
		return res;

	ret = vcm_space_alloc(&vcm->space, len, res->align, &res->owner, &addr);
	if (ret) {
		vcm_res_destroy(res);
		return ERR_PTR(ret);
	}
	res->dev_addr = addr;
	res->placed = true;
	return res;
}

/**
 * vcm_reserve() - reserve a range of device addresses
 * @vcm: a live VCM, the caller's or lent to it by its owner; any number of
 *	threads may reserve in one VCM at once
 * @len: length, a non-zero multiple of vcm_get_min_page_size()
 * @attr: reservation attributes (VCM_READ, VCM_WRITE, a cache policy, an
 *	optional VCM_ALIGN_*)
 *
 * No memory is committed until the reservation is backed.  Reservations
 * of IOMMU VCMs get their address now; kernel and one-to-one reservations
 * when they are backed.
 *
 * The caller owns the reservation: it releases it with vcm_unreserve()
 * and does not use it afterwards.  The reservation holds @vcm, which
 * vcm_free() refuses to free until it is released.
 *
 * Context: Process context; takes the VCM's lock.
 * Return: the reservation, or ERR_PTR(-EINVAL) for a NULL or ERR_PTR()
 * @vcm, an invalid length or attribute, ERR_PTR(-EOPNOTSUPP) for secure
 * memory, ERR_PTR(-ENOSPC) if no free range holds it, ERR_PTR(-ENOMEM).
 */
struct vcm_res *vcm_reserve(struct vcm *vcm, size_t len, u32 attr)
{
	struct vcm_res *res;
	int ret;

	if (IS_ERR_OR_NULL(vcm))
		return ERR_PTR(-EINVAL);
	ret = vcm_check_len(len) ?: vcm_res_check_attr(vcm, attr);
	if (ret)
		return ERR_PTR(ret);
	if (len > vcm->len)
		return ERR_PTR(-ENOSPC);

	mutex_lock(&vcm->lock);
	res = __vcm_reserve(vcm, len, attr);
	mutex_unlock(&vcm->lock);

	return res;
}
EXPORT_SYMBOL_GPL(vcm_reserve);

/**
 * vcm_reserve_at() - reserve a range at a given device address
 * @vcm: a live IOMMU VCM, as for vcm_reserve()
 * @addr: first device address, aligned as @attr asks (page-aligned at
 *	least)
 * @len: length, a non-zero multiple of vcm_get_min_page_size()
 * @attr: reservation attributes
 *
 * For fixed addresses: firmware-visible buffers, or a layout another
 * agent expects.  The caller owns the reservation as for vcm_reserve().
 *
 * Context: Process context; takes the VCM's lock.
 * Return: the reservation, or ERR_PTR(-EINVAL) for a NULL or ERR_PTR()
 * @vcm, invalid arguments or a misaligned @addr, ERR_PTR(-EOPNOTSUPP) for
 * VCMs whose addresses the VCM does not choose, ERR_PTR(-ERANGE) outside
 * the VCM, ERR_PTR(-EBUSY) if the range overlaps a reservation or bound,
 * ERR_PTR(-ENOMEM).
 */
struct vcm_res *vcm_reserve_at(struct vcm *vcm, dma_addr_t addr, size_t len,
			       u32 attr)
{
	struct vcm_res *res;
	int ret;

	if (IS_ERR_OR_NULL(vcm))
		return ERR_PTR(-EINVAL);
	ret = vcm_check_len(len) ?: vcm_res_check_attr(vcm, attr);
	if (ret)
		return ERR_PTR(ret);
	if (vcm->type != VCM_DEVICE)
		return ERR_PTR(-EOPNOTSUPP);
	if (!PAGE_ALIGNED(addr))
		return ERR_PTR(-EINVAL);
	if (vcm_attr_align_order(attr) &&
	    !IS_ALIGNED(addr, 1ULL << vcm_attr_align_order(attr)))
		return ERR_PTR(-EINVAL);

	mutex_lock(&vcm->lock);
	res = vcm_res_new(vcm, len, attr);
	if (!IS_ERR(res)) {
		res->align = PAGE_SIZE << __ffs(addr >> PAGE_SHIFT | BIT(30));
		ret = vcm_space_insert(&vcm->space, addr, len, &res->owner);
		if (ret) {
			vcm_res_destroy(res);
			res = ERR_PTR(ret);
		} else {
			res->dev_addr = addr;
			res->placed = true;
		}
	}
	mutex_unlock(&vcm->lock);

	return res;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_reserve_at);

/**
 * vcm_unreserve() - release a reservation
 * @res: a live reservation of the caller's
 *
 * The caller serialises vcm_unreserve() against every other use of @res
 * and does not use @res once this returned 0: unreserving twice, or from
 * two threads at once, is a bug, not an error.  Reservations of one VCM
 * can be released concurrently with each other and with the VCM's other
 * operations.  The reservation's hold on its VCM is dropped last, so the
 * VCM's owner may vcm_free() it as soon as it sees it empty.
 *
 * Context: Process context; takes the VCM's lock.
 * Return: 0, -EINVAL for a NULL or ERR_PTR() @res, -EBUSY while it is
 * backed.
 */
int vcm_unreserve(struct vcm_res *res)
{
	struct vcm *vcm;
	int ret = 0;

	if (IS_ERR_OR_NULL(res))
		return -EINVAL;

	vcm = res->vcm;
	/* @res's reference goes with it, under the lock: hold the VCM. */
	vcm_get(vcm);
	mutex_lock(&vcm->lock);
	if (res->physmem)
		ret = -EBUSY;
	else
		vcm_res_destroy(res);
	mutex_unlock(&vcm->lock);
	vcm_put(vcm);

	return ret;
}
EXPORT_SYMBOL_GPL(vcm_unreserve);

/**
 * vcm_get_vcm_from_res() - the VCM of a reservation
 * @res: a live reservation
 *
 * The VCM belongs to its creator; @res keeps it from being freed, so the
 * pointer is good for as long as @res is.
 *
 * Return: the VCM.
 */
struct vcm *vcm_get_vcm_from_res(const struct vcm_res *res)
{
	return res->vcm;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_get_vcm_from_res);

/**
 * vcm_get_res_len() - length of a reservation
 * @res: a live reservation
 *
 * Return: the length.
 */
size_t vcm_get_res_len(const struct vcm_res *res)
{
	return res->len;
}
EXPORT_SYMBOL_GPL(vcm_get_res_len);

/**
 * vcm_set_res_attr() - change the attributes of an unbacked reservation
 * @res: a live reservation of the caller's
 * @attr: the new attributes
 *
 * A placed reservation keeps its address, so a new alignment must be one
 * its address already has.  The caller serialises this against
 * vcm_unreserve() of @res.
 *
 * Context: Process context; takes the VCM's lock.
 * Return: 0, -EINVAL for a NULL or ERR_PTR() @res, an invalid attribute
 * or an alignment the address does not have, -EOPNOTSUPP as
 * vcm_reserve(), -EBUSY while the reservation is backed (its mappings use
 * the old attributes).
 */
int vcm_set_res_attr(struct vcm_res *res, u32 attr)
{
	unsigned int order = vcm_attr_align_order(attr);
	struct vcm *vcm;
	int ret;

	if (IS_ERR_OR_NULL(res))
		return -EINVAL;
	vcm = res->vcm;
	ret = vcm_res_check_attr(vcm, attr);
	if (ret)
		return ret;

	mutex_lock(&vcm->lock);
	if (res->physmem) {
		ret = -EBUSY;
	} else if (res->placed && order && !IS_ALIGNED(res->dev_addr, 1ULL << order)) {
		ret = -EINVAL;
	} else {
		res->attr = attr;
		if (!res->placed)
			res->align = vcm_res_align(vcm, res->len, attr);
	}
	mutex_unlock(&vcm->lock);

	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_set_res_attr);

/**
 * vcm_get_res_attr() - attributes of a reservation
 * @res: a live reservation
 *
 * Return: the attributes.
 */
u32 vcm_get_res_attr(const struct vcm_res *res)
{
	return res->attr;
}
EXPORT_SYMBOL_GPL(vcm_get_res_attr);
