// SPDX-License-Identifier: GPL-2.0-only
/*
 * Queries of VCM physmems: their length, type and chunks, and the
 * reservations a physical address is mapped by.
 */

#include <linux/mm.h>
#include <linux/scatterlist.h>

#include <kunit/visibility.h>

#include "vcm_priv.h"

/**
 * vcm_get_physmem_len() - length of a physmem
 * @physmem: a live physmem
 *
 * Return: the length.
 */
size_t vcm_get_physmem_len(const struct vcm_physmem *physmem)
{
	return physmem->len;
}
EXPORT_SYMBOL_GPL(vcm_get_physmem_len);

/**
 * vcm_get_memtype_of_physalloc() - where a physmem comes from
 * @physmem: a live physmem
 *
 * Return: its memtype.
 */
enum vcm_memtype vcm_get_memtype_of_physalloc(const struct vcm_physmem *physmem)
{
	return physmem->memtype;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_get_memtype_of_physalloc);

/**
 * vcm_get_physmem_sgt() - the chunks of a physmem as a scatterlist
 * @physmem: a live physmem
 *
 * For exporters that map the memory for devices outside VCM with the DMA
 * API.  The table belongs to the physmem and lasts as long as it: do not
 * modify it, and copy it before dma_map_sgtable() (a mapping writes the
 * DMA fields).
 *
 * Return: the table, or ERR_PTR(-EINVAL) for a physmem of
 * vcm_phys_from_dma(), which has no pages.
 */
struct sg_table *vcm_get_physmem_sgt(struct vcm_physmem *physmem)
{
	if (physmem->dev_vcm)
		return ERR_PTR(-EINVAL);
	return &physmem->sgt;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_get_physmem_sgt);

/**
 * vcm_get_physmem_from_res() - the physmem backing a reservation
 * @res: a live reservation
 *
 * The physmem belongs to its creator; the backing keeps it from being
 * freed, so the pointer is good until @res is unbacked.
 *
 * Return: the physmem, or ERR_PTR(-ENOENT) if @res is unbacked.
 */
struct vcm_physmem *vcm_get_physmem_from_res(const struct vcm_res *res)
{
	return res->physmem ?: ERR_PTR(-ENOENT);
}
EXPORT_SYMBOL_IF_KUNIT(vcm_get_physmem_from_res);

/**
 * __vcm_next_phys_chunk() - one step of vcm_for_each_phys_chunk()
 * @it: the walk; @it->sg NULL to start
 * @cursor: chunks returned so far; set to 0 when starting
 * @phys: output, the chunk's physical address
 * @len: output, the chunk's length
 *
 * Internal to vcm_for_each_phys_chunk(): each step goes on from the entry
 * of the previous one, so a walk is linear in the number of chunks.
 *
 * It is exported for the users of the macro.
 *
 * Unlike the getters, which trust their handle, the walk takes a NULL
 * physmem, as list walkers take an empty list: it is how a driver holds
 * a buffer whose memory is not allocated yet, which every walker would
 * test for otherwise.  An ERR_PTR() is a bug of the caller's.
 *
 * Return: true with the next chunk; false, with the outputs untouched,
 * after the last chunk or for a NULL physmem.
 */
bool __vcm_next_phys_chunk(struct vcm_phys_iter *it, unsigned int *cursor,
			   phys_addr_t *phys, size_t *len)
{
	const struct vcm_physmem *physmem = it->physmem;
	struct scatterlist *sg;

	if (!it->sg)
		*cursor = 0;
	/* Memory known by DMA addresses has no physical chunks to show. */
	if (!physmem || physmem->dev_vcm ||
	    *cursor >= physmem->sgt.orig_nents)
		return false;

	sg = it->sg ? sg_next(it->sg) : physmem->sgt.sgl;
	if (!sg)
		return false;
	it->sg = sg;
	*phys = sg_phys(sg);
	*len = sg->length;
	(*cursor)++;
	return true;
}
EXPORT_SYMBOL_GPL(__vcm_next_phys_chunk);

/**
 * vcm_phys_pfn() - the page frame of one page of a physmem
 * @physmem: a live physmem of pages: not one of vcm_phys_from_dma()
 * @pgoff: the page's offset in @physmem, in pages
 * @pfn: output, the page's PFN
 * @nr: output (may be NULL), the number of pages from this one to the
 *	end of its chunk, at least 1: that many pages from @pgoff on are
 *	at consecutive PFNs from the one in @pfn
 *
 * For a fault handler that maps a physmem for the CPU a page at a time
 * (vmf_insert_pfn()), or a few pages of one chunk: the page is found in
 * O(log chunks), by a binary search of the index the physmem keeps of
 * where its chunks start, not by a walk of its table.  The chunks are
 * those vcm_for_each_phys_chunk() walks; @nr ends with the chunk even
 * when the next one happens to follow it in memory.
 *
 * A physmem's chunks and their index are made with it and do not change
 * until it is freed, so nothing is locked: the caller only keeps @physmem
 * live while it calls, as its owner or with a backing of it, and zaps
 * what it mapped of the page before @physmem is freed.
 *
 * Context: Any context; takes no lock and does not sleep, so a page-fault
 * handler may call it with the mmap lock held for reading and the lock
 * that keeps its buffer's memory in place.
 * Return: 0; -EINVAL for a NULL or ERR_PTR() @physmem, a NULL @pfn or a
 * @pgoff at or past the end of @physmem; -EOPNOTSUPP for a physmem of
 * vcm_phys_from_dma(), a device's DMA addresses with no page the CPU
 * could map.  That handle is good, its kind has no pages: a distinct
 * errno keeps an unmappable buffer apart from a caller's bug.
 */
int vcm_phys_pfn(const struct vcm_physmem *physmem, pgoff_t pgoff,
		 unsigned long *pfn, unsigned long *nr)
{
	const struct vcm_physmem *pm = physmem;
	const struct vcm_chunk_pos *pos;
	unsigned int lo = 0, hi, mid;
	pgoff_t npages, end;

	if (IS_ERR_OR_NULL(pm) || !pfn)
		return -EINVAL;
	if (pm->dev_vcm)
		return -EOPNOTSUPP;
	npages = pm->len >> PAGE_SHIFT;
	if (pgoff >= npages)
		return -EINVAL;

	pos = pm->chunk_pos;
	if (!pos) {
		/* One chunk: the whole physmem. */
		*pfn = PHYS_PFN(sg_phys(pm->sgt.sgl)) + pgoff;
		end = npages;
	} else {
		/*
		 * The last chunk that starts at or before @pgoff:
		 * pos[lo].pgoff <= pgoff < pos[hi].pgoff throughout, taking
		 * pos[orig_nents].pgoff as npages; pos[0].pgoff is 0.
		 */
		hi = pm->sgt.orig_nents;
		while (hi - lo > 1) {
			mid = lo + (hi - lo) / 2;
			if (pos[mid].pgoff <= pgoff)
				lo = mid;
			else
				hi = mid;
		}
		*pfn = pos[lo].pfn + (pgoff - pos[lo].pgoff);
		end = hi < pm->sgt.orig_nents ? pos[hi].pgoff : npages;
	}
	if (nr)
		*nr = end - pgoff;
	return 0;
}
EXPORT_SYMBOL_GPL(vcm_phys_pfn);

static bool vcm_physmem_holds(const struct vcm_physmem *pm, phys_addr_t phys)
{
	struct scatterlist *sg;
	unsigned int i;

	if (pm->dev_vcm)
		return false;
	for_each_sgtable_sg(&pm->sgt, sg, i) {
		phys_addr_t addr = sg_phys(sg);

		if (phys >= addr && phys - addr < sg->length)
			return true;
	}
	return false;
}

/**
 * vcm_get_phys_num_res() - number of reservations mapping a physical address
 * @phys: the physical address
 *
 * Context: Process context; takes vcm_phys_lock and physmem locks.
 * Return: the number of backed reservations, in any VCM, whose backing
 * holds @phys.
 */
size_t vcm_get_phys_num_res(phys_addr_t phys)
{
	struct vcm_physmem *pm;
	size_t n = 0;

	mutex_lock(&vcm_phys_lock);
	list_for_each_entry(pm, &vcm_phys_list, node) {
		if (!vcm_physmem_holds(pm, phys))
			continue;
		mutex_lock(&pm->lock);
		n += pm->num_res;
		mutex_unlock(&pm->lock);
	}
	mutex_unlock(&vcm_phys_lock);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_get_phys_num_res);

/**
 * vcm_get_next_phys_res() - iterate over the reservations mapping a
 * physical address
 * @phys: the physical address
 * @res: the previous reservation, live and backed, NULL to start
 * @len: output (may be NULL), the length of the returned reservation
 *
 * The reservations found belong to whoever made them, in any VCM: the
 * caller uses them only as far as their owners let it, and must know
 * @res stays backed (its owner does not unback it) while iterating.
 *
 * Context: Process context; takes vcm_phys_lock and physmem locks.
 * Return: the next backed reservation whose backing holds @phys, or NULL.
 */
struct vcm_res *vcm_get_next_phys_res(phys_addr_t phys, struct vcm_res *res,
				      size_t *len)
{
	struct vcm_res *next = NULL, *r;
	struct vcm_physmem *pm;
	bool seen = !res;

	mutex_lock(&vcm_phys_lock);
	list_for_each_entry(pm, &vcm_phys_list, node) {
		if (!vcm_physmem_holds(pm, phys))
			continue;
		mutex_lock(&pm->lock);
		list_for_each_entry(r, &pm->res_list, phys_node) {
			if (seen) {
				next = r;
				break;
			}
			seen = r == res;
		}
		/* Read while the reservation is surely listed. */
		if (next && len)
			*len = next->len;
		mutex_unlock(&pm->lock);
		if (next)
			break;
	}
	mutex_unlock(&vcm_phys_lock);
	return next;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_get_next_phys_res);
