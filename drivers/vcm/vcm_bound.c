// SPDX-License-Identifier: GPL-2.0-only
/*
 * Bounds: sub-ranges of an IOMMU VCM that reservations can be made from,
 * to keep the buffers of one client together (one window of a device,
 * one page-table subtree).
 */

#include <linux/dma-mapping.h>
#include <linux/slab.h>

#include <kunit/visibility.h>

#include "vcm_priv.h"

/**
 * vcm_create_bound() - carve a bound out of a VCM
 * @vcm: a live IOMMU VCM, the caller's or lent to it by its owner
 * @len: length, a non-zero multiple of vcm_get_min_page_size()
 *
 * The bound is aligned like a reservation of the same length.  The caller
 * owns the bound: it frees it with vcm_free_bound() and does not use it
 * afterwards.  The bound holds @vcm, which vcm_free() refuses to free
 * until the bound is freed.
 *
 * Context: Process context; takes the VCM's lock.
 * Return: the bound, ERR_PTR(-EINVAL) for a NULL or ERR_PTR() @vcm or an
 * invalid @len, ERR_PTR(-EOPNOTSUPP) for other kinds of VCM,
 * ERR_PTR(-ENOSPC) if no free range holds it, ERR_PTR(-ENOMEM).
 */
struct vcm_bound *vcm_create_bound(struct vcm *vcm, size_t len)
{
	struct vcm_bound *bound;
	unsigned long addr;
	int ret;

	if (IS_ERR_OR_NULL(vcm) || !len || !PAGE_ALIGNED(len))
		return ERR_PTR(-EINVAL);
	if (vcm->type != VCM_DEVICE)
		return ERR_PTR(-EOPNOTSUPP);
	if (len > vcm->len)
		return ERR_PTR(-ENOSPC);

	bound = kzalloc(sizeof(*bound), GFP_KERNEL);
	if (!bound)
		return ERR_PTR(-ENOMEM);
	bound->owner.kind = VCM_SPACE_BOUND;

	mutex_lock(&vcm->lock);
	ret = vcm_space_alloc(&vcm->space, len,
			      vcm_res_align(vcm, len, VCM_ALIGN_DEFAULT),
			      &bound->owner, &addr);
	if (!ret) {
		ret = vcm_space_init(&bound->space, addr, addr + len - 1);
		if (ret)
			vcm_space_remove(&vcm->space, addr, len);
	}
	if (!ret) {
		bound->vcm = vcm;
		bound->start = addr;
		bound->len = len;
		list_add_tail(&bound->node, &vcm->bound_list);
		vcm_get(vcm);
		vcm_stat_add(VCM_STAT_BOUNDS, 1);
	}
	mutex_unlock(&vcm->lock);

	if (ret) {
		kfree(bound);
		return ERR_PTR(ret);
	}
	return bound;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_create_bound);

/**
 * vcm_free_bound() - give a bound's range back to its VCM
 * @bound: a live bound the caller created
 *
 * The caller serialises vcm_free_bound() against every other use of
 * @bound and does not use @bound once this returned 0: freeing twice is a
 * bug, not an error.  Reservations made from the bound are its owners'
 * and must be released first.
 *
 * Context: Process context; takes the VCM's lock.
 * Return: 0, -EINVAL for a NULL or ERR_PTR() @bound, -EBUSY while
 * reservations made from it remain.
 */
int vcm_free_bound(struct vcm_bound *bound)
{
	struct vcm *vcm;

	if (IS_ERR_OR_NULL(bound))
		return -EINVAL;

	vcm = bound->vcm;
	mutex_lock(&vcm->lock);
	if (bound->num_res) {
		mutex_unlock(&vcm->lock);
		return -EBUSY;
	}
	list_del(&bound->node);
	vcm_space_remove(&vcm->space, bound->start, bound->len);
	mutex_unlock(&vcm->lock);

	vcm_space_destroy(&bound->space);
	kfree(bound);
	vcm_stat_add(VCM_STAT_BOUNDS, -1);
	/* The bound's reference, once the VCM's lock is released. */
	vcm_put(vcm);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_free_bound);

/**
 * vcm_reserve_from_bound() - reserve device addresses inside a bound
 * @bound: a live bound, the caller's or lent to it by its owner
 * @len: length, a non-zero multiple of vcm_get_min_page_size()
 * @attr: reservation attributes, as for vcm_reserve()
 *
 * The caller owns the reservation as for vcm_reserve(); it holds the
 * bound's VCM, and vcm_free_bound() refuses to free the bound while it
 * remains.
 *
 * Context: Process context; takes the VCM's lock.
 * Return: the reservation, or an ERR_PTR() as vcm_reserve() (-EINVAL for
 * a NULL or ERR_PTR() @bound); -ENOSPC means the bound is full.
 */
struct vcm_res *vcm_reserve_from_bound(struct vcm_bound *bound, size_t len,
				       u32 attr)
{
	struct vcm_res *res;
	struct vcm *vcm;
	int ret;

	if (IS_ERR_OR_NULL(bound) || !len || !PAGE_ALIGNED(len))
		return ERR_PTR(-EINVAL);
	vcm = bound->vcm;
	ret = vcm_res_check_attr(vcm, attr);
	if (ret)
		return ERR_PTR(ret);
	if (len > bound->len)
		return ERR_PTR(-ENOSPC);

	mutex_lock(&vcm->lock);
	res = vcm_res_new(vcm, len, attr);
	if (!IS_ERR(res)) {
		unsigned long addr;

		ret = vcm_space_alloc(&bound->space, len, res->align,
				      &res->owner, &addr);
		if (ret) {
			vcm_res_destroy(res);
			res = ERR_PTR(ret);
		} else {
			res->dev_addr = addr;
			res->placed = true;
			res->bound = bound;
			bound->num_res++;
		}
	}
	mutex_unlock(&vcm->lock);

	return res;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_reserve_from_bound);

/**
 * vcm_get_bound_start_addr() - first device address of a bound
 * @bound: a live bound
 *
 * Return: the address.
 */
dma_addr_t vcm_get_bound_start_addr(const struct vcm_bound *bound)
{
	return bound->start;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_get_bound_start_addr);

/**
 * vcm_get_bound_len() - length of a bound
 * @bound: a live bound
 *
 * Return: the length.
 */
size_t vcm_get_bound_len(const struct vcm_bound *bound)
{
	return bound->len;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_get_bound_len);
