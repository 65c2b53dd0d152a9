/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the VCM KUnit suites: a pattern that differs in every
 * word of every physical page, written through the linear map and
 * predicted for any byte offset of a physmem.
 */
#ifndef _VCM_TEST_UTIL_H
#define _VCM_TEST_UTIL_H

#include <linux/highmem.h>
#include <linux/vcm.h>

/*
 * Fill every chunk of @pm; word i of the page at physical address p holds
 * seed + (p >> PAGE_SHIFT) * 1024 + i.
 */
static inline void vcm_fill_pattern(struct vcm_physmem *pm, u32 seed)
{
	unsigned int cursor;
	phys_addr_t phys;
	size_t len, off;

	vcm_for_each_phys_chunk(pm, cursor, phys, len) {
		for (off = 0; off < len; off += PAGE_SIZE) {
			u32 *p = kmap_local_page(phys_to_page(phys + off));
			unsigned int i;

			for (i = 0; i < PAGE_SIZE / 4; i++)
				p[i] = seed + (u32)((phys + off) >> PAGE_SHIFT) * 1024 + i;
			kunmap_local(p);
		}
	}
}

/* The word vcm_fill_pattern() put at byte @off of @pm. */
static inline u32 vcm_pattern_at(struct vcm_physmem *pm, u32 seed, size_t off)
{
	unsigned int cursor;
	phys_addr_t phys;
	size_t len;

	vcm_for_each_phys_chunk(pm, cursor, phys, len) {
		if (off < len) {
			phys += off;
			return seed + (u32)(phys >> PAGE_SHIFT) * 1024 +
			       offset_in_page(phys) / 4;
		}
		off -= len;
	}
	return 0;
}

#endif /* _VCM_TEST_UTIL_H */
