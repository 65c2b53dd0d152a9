// SPDX-License-Identifier: GPL-2.0-only
/*
 * Bounds: sub-ranges of an IOMMU VCM that reservations can be made from,
 * to keep the buffers of one client together (one window of a device,
 * one page-table subtree).
 */

#include <linux/dma-mapping.h>
#include <linux/slab.h>

#include "vcm_priv.h"

/**
 * vcm_create_bound() - carve a bound out of a VCM
 * @vcm: an IOMMU VCM
 * @len: length, a non-zero multiple of vcm_get_min_page_size()
 *
 * The bound is aligned like a reservation of the same length.
 *
 * Context: Process context; takes the VCM's lock.
 * Return: the bound, ERR_PTR(-EINVAL) for invalid arguments,
 * ERR_PTR(-EOPNOTSUPP) for other kinds of VCM, ERR_PTR(-ENOSPC) if no free
 * range holds it, ERR_PTR(-ENOMEM).
 */
struct vcm_bound *vcm_create_bound(struct vcm *vcm, size_t len)
{
	struct vcm_bound *bound;
	unsigned long addr;
	int ret;

	if (!vcm_obj_valid(vcm, VCM_OBJ_VCM) || !len || !PAGE_ALIGNED(len))
		return ERR_PTR(-EINVAL);
	if (vcm->type != VCM_DEVICE)
		return ERR_PTR(-EOPNOTSUPP);
	if (len > vcm->len)
		return ERR_PTR(-ENOSPC);

	bound = kzalloc(sizeof(*bound), GFP_KERNEL);
	if (!bound)
		return ERR_PTR(-ENOMEM);

	mutex_lock(&vcm->lock);
	ret = vcm_space_alloc(&vcm->space, len,
			      vcm_res_align(vcm, len, VCM_ALIGN_DEFAULT), bound,
			      &addr);
	if (!ret) {
		ret = vcm_space_init(&bound->space, addr, addr + len - 1);
		bound->vcm = vcm;
		bound->start = addr;
		bound->len = len;
		list_add_tail(&bound->node, &vcm->bound_list);
		vcm_obj_add(&bound->obj, VCM_OBJ_BOUND);
		vcm_stat_add(VCM_STAT_BOUNDS, 1);
	}
	mutex_unlock(&vcm->lock);

	if (ret) {
		kfree(bound);
		return ERR_PTR(ret);
	}
	return bound;
}
EXPORT_SYMBOL_GPL(vcm_create_bound);

/**
 * vcm_free_bound() - give a bound's range back to its VCM
 * @bound: the bound
 *
 * Context: Process context; takes the VCM's lock.
 * Return: 0, -EINVAL if @bound is not a bound, -EBUSY while reservations
 * made from it remain.
 */
int vcm_free_bound(struct vcm_bound *bound)
{
	struct vcm *vcm;

	if (!vcm_obj_valid(bound, VCM_OBJ_BOUND))
		return -EINVAL;

	vcm = bound->vcm;
	mutex_lock(&vcm->lock);
	if (bound->num_res) {
		mutex_unlock(&vcm->lock);
		return -EBUSY;
	}
	vcm_obj_del(&bound->obj);
	list_del(&bound->node);
	vcm_space_remove(&vcm->space, bound->start, bound->len);
	mutex_unlock(&vcm->lock);

	vcm_space_destroy(&bound->space);
	kfree(bound);
	vcm_stat_add(VCM_STAT_BOUNDS, -1);
	return 0;
}
EXPORT_SYMBOL_GPL(vcm_free_bound);

/**
 * vcm_reserve_from_bound() - reserve device addresses inside a bound
 * @bound: the bound
 * @len: length, a non-zero multiple of vcm_get_min_page_size()
 * @attr: reservation attributes, as for vcm_reserve()
 *
 * Context: Process context; takes the VCM's lock.
 * Return: the reservation, or an ERR_PTR() as vcm_reserve(); -ENOSPC
 * means the bound is full.
 */
struct vcm_res *vcm_reserve_from_bound(struct vcm_bound *bound, size_t len,
				       u32 attr)
{
	struct vcm_res *res;
	struct vcm *vcm;
	int ret;

	if (!vcm_obj_valid(bound, VCM_OBJ_BOUND) || !len || !PAGE_ALIGNED(len))
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

		ret = vcm_space_alloc(&bound->space, len, res->align, res, &addr);
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
EXPORT_SYMBOL_GPL(vcm_reserve_from_bound);

/**
 * vcm_get_bound_start_addr() - first device address of a bound
 * @bound: the bound
 *
 * Return: the address, DMA_MAPPING_ERROR for an invalid bound.
 */
dma_addr_t vcm_get_bound_start_addr(const struct vcm_bound *bound)
{
	if (!vcm_obj_valid(bound, VCM_OBJ_BOUND))
		return DMA_MAPPING_ERROR;
	return bound->start;
}
EXPORT_SYMBOL_GPL(vcm_get_bound_start_addr);

/**
 * vcm_get_bound_len() - length of a bound
 * @bound: the bound
 *
 * Return: the length, 0 for an invalid bound.
 */
size_t vcm_get_bound_len(const struct vcm_bound *bound)
{
	if (!vcm_obj_valid(bound, VCM_OBJ_BOUND))
		return 0;
	return bound->len;
}
EXPORT_SYMBOL_GPL(vcm_get_bound_len);
