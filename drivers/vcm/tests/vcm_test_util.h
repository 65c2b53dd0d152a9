/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the VCM KUnit suites: the gauges checked after every
 * case, VCMs and physmems that must be made, and a pattern that differs in every
 * word of every physical page, written through the linear map and
 * predicted for any byte offset of a physmem.
 */
#ifndef _VCM_TEST_UTIL_H
#define _VCM_TEST_UTIL_H

#include <kunit/test.h>
#include <linux/highmem.h>
#include <linux/sizes.h>
#include <linux/vcm.h>

#include "../vcm_priv.h"

#define RW		(VCM_READ | VCM_WRITE)
#define RW_CACHED	(RW | VCM_WB_WA)
#define RW_WC		(RW | VCM_WC)

/* A device VCM well inside any 40-bit DMA mask. */
#define DEV_START	SZ_1G
#define DEV_LEN		SZ_256M

struct vcm_test_ctx {
	long gauges[VCM_STAT_FIRST_EVENT];
};

static inline int vcm_test_init(struct kunit *test)
{
	struct vcm_test_ctx *ctx;
	int i;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	for (i = 0; i < VCM_STAT_FIRST_EVENT; i++)
		ctx->gauges[i] = vcm_stat_read(i);
	test->priv = ctx;
	return 0;
}

static inline void vcm_test_exit(struct kunit *test)
{
	struct vcm_test_ctx *ctx = test->priv;
	int i;

	for (i = 0; i < VCM_STAT_FIRST_EVENT; i++)
		KUNIT_EXPECT_EQ_MSG(test, vcm_stat_read(i), ctx->gauges[i],
				    "counter %s", vcm_stat_names[i]);
}

static inline struct vcm *new_dev_vcm(struct kunit *test)
{
	struct vcm *vcm = vcm_create(DEV_START, DEV_LEN);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, vcm);
	return vcm;
}

static inline struct vcm *new_kernel_vcm(struct kunit *test)
{
	struct vcm *vcm = vcm_create_from_prebuilt(VCM_PREBUILT_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, vcm);
	return vcm;
}

/*
 * The chunk at *@cursor of @pm, as the RFC's vcm_get_next_phys_addr() gave
 * it: a walk from the first chunk, which is fine for the few chunks of a
 * test.  Return: 0 and the next cursor, or -ENOENT past the last chunk.
 */
static inline int vcm_test_next_chunk(struct vcm_physmem *pm,
				      unsigned int *cursor, phys_addr_t *phys,
				      size_t *len)
{
	unsigned int n = *cursor, i;
	phys_addr_t p;
	size_t l;

	vcm_for_each_phys_chunk(pm, i, p, l) {
		if (i == n + 1) {
			*phys = p;
			*len = l;
			*cursor = i;
			return 0;
		}
	}
	return -ENOENT;
}

static inline struct vcm_physmem *new_phys(struct kunit *test, size_t len,
					   u32 attr, unsigned long pgsizes)
{
	struct vcm_physmem *pm = vcm_phys_alloc(VCM_MEMTYPE_SYSTEM, len, attr,
						pgsizes);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pm);
	return pm;
}

/* A length and attributes, and the errno they must get. */
struct vcm_attr_case {
	const char *name;
	size_t len;
	u32 attr;
	int err;
};

static inline void vcm_attr_case_desc(const struct vcm_attr_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

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
