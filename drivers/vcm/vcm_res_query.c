// SPDX-License-Identifier: GPL-2.0-only
/*
 * Queries of VCM reservations: the reservations of a VCM and the one at
 * an address, their addresses and physical memory, copies between them,
 * and translation of an address from one VCM to another.
 */

#include <linux/dma-mapping.h>
#include <linux/highmem.h>
#include <linux/mm.h>

#include <kunit/visibility.h>

#include "vcm_priv.h"

/**
 * vcm_get_num_res() - number of reservations in a VCM
 * @vcm: a live VCM
 *
 * Return: the number.
 */
size_t vcm_get_num_res(struct vcm *vcm)
{
	size_t n;

	mutex_lock(&vcm->lock);
	n = vcm->num_res;
	mutex_unlock(&vcm->lock);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_get_num_res);

/**
 * vcm_get_next_res() - iterate over the reservations of a VCM
 * @vcm: a live VCM
 * @res: the previous reservation, live, NULL to start
 *
 * Reservations come in the order they were made.  They belong to whoever
 * made them: the iteration is for the owner of the VCM and of its
 * reservations (to tear a clone down, say), or for a caller that
 * otherwise knows no reservation of @vcm is released meanwhile.  In
 * particular the caller must not unreserve @res, or anything after it,
 * while iterating.
 *
 * Context: Process context; takes the VCM's lock.
 * Return: the next reservation, NULL after the last one or for a @res not
 * in @vcm.
 */
struct vcm_res *vcm_get_next_res(struct vcm *vcm, struct vcm_res *res)
{
	struct vcm_res *next = NULL;

	if (res && res->vcm != vcm)
		return NULL;

	mutex_lock(&vcm->lock);
	if (!res)
		next = list_first_entry_or_null(&vcm->res_list, struct vcm_res,
						vcm_node);
	else if (!list_is_last(&res->vcm_node, &vcm->res_list))
		next = list_next_entry(res, vcm_node);
	mutex_unlock(&vcm->lock);

	return next;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_get_next_res);

/**
 * vcm_res_phys() - physical address behind an offset of a reservation
 * @res: a backed reservation
 * @offset: byte offset into it
 * @phys: output
 *
 * Return: 0, or -ERANGE past the end of the backing.
 */
int vcm_res_phys(const struct vcm_res *res, size_t offset, phys_addr_t *phys)
{
	unsigned int cursor;
	phys_addr_t addr;
	size_t len;

	vcm_for_each_phys_chunk(res->physmem, cursor, addr, len) {
		if (offset < len) {
			*phys = addr + offset;
			return 0;
		}
		offset -= len;
	}
	return -ERANGE;
}

/**
 * vcm_res_lookup() - the reservation holding a device address
 * @vcm: the VCM, locked
 * @addr: the device address
 *
 * Return: the reservation, or NULL.
 */
struct vcm_res *vcm_res_lookup(struct vcm *vcm, dma_addr_t addr)
{
	struct vcm_space_owner *owner = vcm_space_lookup(&vcm->space, addr);
	struct vcm_bound *bound;

	if (owner && owner->kind == VCM_SPACE_BOUND) {
		bound = container_of(owner, struct vcm_bound, owner);
		owner = vcm_space_lookup(&bound->space, addr);
	}
	if (!owner || owner->kind != VCM_SPACE_RES)
		return NULL;
	return container_of(owner, struct vcm_res, owner);
}

/**
 * vcm_get_res() - find the reservation holding a device address
 * @vcm: a live VCM
 * @dev_addr: any address inside the reservation
 *
 * The reservation found belongs to whoever made it and is only good for
 * as long as its owner keeps it: the caller must know it is not released
 * meanwhile (it is the owner, or it has an agreement with the owner).
 *
 * Context: Process context; takes the VCM's lock.
 * Return: the reservation, or NULL if no placed reservation of @vcm holds
 * @dev_addr, and always for a DMA VCM, which keeps no map of the DMA
 * API's addresses (see vcm_dev_addr_to_phys_addr()).
 */
struct vcm_res *vcm_get_res(struct vcm *vcm, dma_addr_t dev_addr)
{
	struct vcm_res *res;

	if (vcm->type == VCM_DMA)
		return NULL;
	mutex_lock(&vcm->lock);
	res = vcm_res_lookup(vcm, dev_addr);
	mutex_unlock(&vcm->lock);
	return res;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_get_res);

/**
 * vcm_get_dev_addr() - the device address of a reservation
 * @res: a live reservation
 *
 * This is an IOVA for IOMMU VCMs, the DMA address of the first segment
 * the DMA API mapped the backing at for DMA VCMs (vcm_get_dma_sgt() gives
 * them all), a physical address for one-to-one VCMs and a kernel
 * virtual address for the kernel VCM.
 *
 * Return: the address, or DMA_MAPPING_ERROR if @res is not placed
 * (kernel, one-to-one and DMA reservations before backing, DMA
 * reservations while their association is inactive).
 */
dma_addr_t vcm_get_dev_addr(const struct vcm_res *res)
{
	if (!res->placed)
		return DMA_MAPPING_ERROR;
	return res->dev_addr;
}
EXPORT_SYMBOL_GPL(vcm_get_dev_addr);

/**
 * vcm_get_vaddr() - the kernel address of a backed kernel reservation
 * @res: a live reservation of the kernel VCM
 *
 * The mapping lasts until @res is unbacked.
 *
 * Return: the address, or NULL for an unbacked or non-kernel reservation.
 */
void *vcm_get_vaddr(const struct vcm_res *res)
{
	return res->vaddr;
}
EXPORT_SYMBOL_GPL(vcm_get_vaddr);

/**
 * vcm_get_res_num_ptes() - leaf IOMMU page-table entries of a reservation
 * @res: a live reservation
 *
 * Return: the number of entries its mapping uses in the IOMMU domain, 0 if
 * it is not mapped in one.
 */
size_t vcm_get_res_num_ptes(const struct vcm_res *res)
{
	return res->num_ptes;
}
EXPORT_SYMBOL_GPL(vcm_get_res_num_ptes);

/*
 * The device address of the byte at @offset of @res, placed: a DMA VCM's
 * backing is in the segments the DMA API mapped it in (or its exporter,
 * for a physmem of device addresses), which need not be adjacent; any
 * other maps the whole physmem from its start.
 */
static int vcm_res_addr_at(const struct vcm_res *res, size_t offset,
			   dma_addr_t *addr)
{
	struct sg_table *sgt;
	struct scatterlist *sg;
	unsigned int i;

	if (res->vcm->type != VCM_DMA) {
		*addr = res->dev_addr + offset;
		return 0;
	}
	sgt = res->dma_sgt ?: &res->physmem->sgt;
	for_each_sgtable_dma_sg(sgt, sg, i) {
		if (offset < sg_dma_len(sg)) {
			*addr = sg_dma_address(sg) + offset;
			return 0;
		}
		offset -= sg_dma_len(sg);
	}
	return -ENOENT;
}

/**
 * vcm_translate() - translate a device address from one VCM to another
 * @src: a live VCM, the source
 * @src_addr: a device address of a backed reservation of @src
 * @dst: a live VCM, the destination
 * @dst_addr: output, the address in @dst of the same byte of memory
 *
 * The address is only good while the reservations at both ends stay
 * backed, which is up to their owners.  In a DMA VCM it is the address in
 * the segment of the DMA mapping that holds the byte: the bytes after it
 * are at the following addresses only up to that segment's end.
 *
 * Context: Process context; takes the VCM's lock and the physmem's lock.
 * Return: 0, -EINVAL for a NULL or ERR_PTR() VCM or a NULL @dst_addr,
 * -ENOENT if @src_addr is not in a backed reservation or @dst maps no
 * reservation over the same physmem.
 */
int vcm_translate(struct vcm *src, dma_addr_t src_addr, struct vcm *dst,
		  dma_addr_t *dst_addr)
{
	struct vcm_physmem *pm;
	struct vcm_res *res, *r;
	int ret = -ENOENT;
	size_t offset;

	if (IS_ERR_OR_NULL(src) || IS_ERR_OR_NULL(dst) || !dst_addr)
		return -EINVAL;

	mutex_lock(&src->lock);
	res = vcm_res_lookup(src, src_addr);
	if (res && res->physmem) {
		pm = res->physmem;
		/*
		 * Every backing of a physmem maps all of it, from its start.
		 * A DMA VCM's reservations have no place in its space, so
		 * the source is of another kind: its addresses are linear.
		 */
		offset = src_addr - res->dev_addr;
		mutex_lock(&pm->lock);
		list_for_each_entry(r, &pm->res_list, phys_node) {
			if (r->vcm == dst && r->placed) {
				ret = vcm_res_addr_at(r, offset, dst_addr);
				break;
			}
		}
		mutex_unlock(&pm->lock);
	}
	mutex_unlock(&src->lock);

	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_translate);
