// SPDX-License-Identifier: GPL-2.0-only
/*
 * Address space allocator of VCMs and bounds, on a maple tree.
 *
 * The maple tree stores each allocated range with its owner, which gives
 * lookup of the reservation holding any address for free.  The maple tree
 * finds gaps of a given size but not of a given alignment, so an aligned
 * allocation walks the gaps from the lowest one up and takes the first
 * gap that still holds the request once its start is aligned.
 */

#include <linux/align.h>
#include <linux/maple_tree.h>
#include <linux/overflow.h>

#include <kunit/visibility.h>

#include "vcm_priv.h"

/**
 * vcm_space_init() - initialise an empty address space
 * @space: the space
 * @first: first address
 * @last: last address, inclusive
 *
 * Exported only for the vcm suite, which tests the allocator on its own.
 *
 * Return: 0, or -ERANGE if the range is empty.
 */
int vcm_space_init(struct vcm_space *space, unsigned long first,
		   unsigned long last)
{
	if (last < first)
		return -ERANGE;

	mt_init_flags(&space->mt, MT_FLAGS_ALLOC_RANGE);
	space->first = first;
	space->last = last;
	space->used = 0;

	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_space_init);

/**
 * vcm_space_destroy() - release the allocator's memory
 * @space: the space; every range should have been removed
 *
 * Exported only for the vcm suite, which tests the allocator on its own.
 */
void vcm_space_destroy(struct vcm_space *space)
{
	mtree_destroy(&space->mt);
}
EXPORT_SYMBOL_IF_KUNIT(vcm_space_destroy);

/**
 * vcm_space_alloc() - allocate an aligned range
 * @space: the space
 * @len: length, non-zero
 * @align: alignment, a power of two
 * @owner: the pointer to store with the range
 * @addr: output, the first address of the range
 *
 * Exported only for the vcm suite, which tests the allocator on its own.
 *
 * Return: 0, -ENOSPC if no gap holds the request, -ENOMEM.
 */
int vcm_space_alloc(struct vcm_space *space, size_t len, size_t align,
		    void *owner, unsigned long *addr)
{
	MA_STATE(mas, &space->mt, 0, 0);
	unsigned long min = space->first;
	unsigned long start, end, gap_end;
	int ret = -ENOSPC;

	if (!len || !is_power_of_2(align))
		return -EINVAL;
	if (len - 1 > space->last - space->first)
		return -ENOSPC;

	mas_lock(&mas);
	for (;;) {
		mas_reset(&mas);
		if (mas_empty_area(&mas, min, space->last, len))
			break;

		/* mas_walk() on a free index spans the whole gap. */
		start = mas.index;
		mas_set(&mas, start);
		if (mas_walk(&mas))
			break;
		gap_end = min(mas.last, space->last);

		start = ALIGN(start, align);
		if (start >= mas.index && !check_add_overflow(start, len - 1, &end) &&
		    end <= gap_end) {
			mas_set_range(&mas, start, end);
			ret = mas_store_gfp(&mas, owner, GFP_KERNEL);
			break;
		}
		if (gap_end >= space->last)
			break;
		min = gap_end + 1;
	}
	mas_unlock(&mas);

	if (!ret) {
		*addr = start;
		space->used += len;
	}
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_space_alloc);

/**
 * vcm_space_insert() - allocate a range at a given address
 * @space: the space
 * @addr: first address
 * @len: length, non-zero
 * @owner: the pointer to store with the range
 *
 * Exported only for the vcm suite, which tests the allocator on its own.
 *
 * Return: 0, -ERANGE if the range leaves the space, -EBUSY if it overlaps
 * an allocated range, -ENOMEM.
 */
int vcm_space_insert(struct vcm_space *space, unsigned long addr, size_t len,
		     void *owner)
{
	unsigned long end;
	int ret;

	if (!len || check_add_overflow(addr, len - 1, &end) ||
	    addr < space->first || end > space->last)
		return -ERANGE;

	ret = mtree_insert_range(&space->mt, addr, end, owner, GFP_KERNEL);
	if (ret == -EEXIST)
		return -EBUSY;
	if (!ret)
		space->used += len;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_space_insert);

/**
 * vcm_space_remove() - free a range
 * @space: the space
 * @addr: first address of an allocated range
 * @len: its length
 *
 * Exported only for the vcm suite, which tests the allocator on its own.
 */
void vcm_space_remove(struct vcm_space *space, unsigned long addr, size_t len)
{
	if (mtree_erase(&space->mt, addr))
		space->used -= len;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_space_remove);

/**
 * vcm_space_lookup() - find the owner of an address
 * @space: the space
 * @addr: any address
 *
 * Exported only for the vcm suite, which tests the allocator on its own.
 *
 * Return: the owner of the range holding @addr, or NULL.
 */
void *vcm_space_lookup(struct vcm_space *space, unsigned long addr)
{
	if (addr < space->first || addr > space->last)
		return NULL;
	return mtree_load(&space->mt, addr);
}
EXPORT_SYMBOL_IF_KUNIT(vcm_space_lookup);
