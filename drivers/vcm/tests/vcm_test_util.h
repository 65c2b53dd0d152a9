/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the VCM KUnit suites: the gauges checked after every
 * case, VCMs and physmems that must be made and are released when the
 * case ends, and a pattern that differs in every word of every physical
 * page, written through the linear map and predicted for any byte offset
 * of a physmem.
 */
#ifndef _VCM_TEST_UTIL_H
#define _VCM_TEST_UTIL_H

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/highmem.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/vcm.h>

#include "../vcm_priv.h"

#define RW		(VCM_READ | VCM_WRITE)
#define RW_CACHED	(RW | VCM_WB_WA)
#define RW_WC		(RW | VCM_WC)

/* A device VCM well inside any 40-bit DMA mask. */
#define DEV_START	SZ_1G
#define DEV_LEN		SZ_256M

/*
 * Everything a case makes through own_vcm() and own_phys() (and the new_*()
 * helpers, which use them) is released by a deferred action when the case
 * ends, also when an assertion stops it half-way.  A case that frees such
 * an object itself does so with free_vcm() or free_phys(), which cancel
 * the action once the object is gone, never with vcm_free() or
 * vcm_phys_free().
 *
 * The actions run in the reverse order of the helpers' calls, but VCM's
 * objects hold one another whatever that order: a VCM is busy while it
 * has reservations, bounds or associations, a physmem while it backs a
 * reservation.  So the action of a physmem first unbacks the reservations
 * it backs, and that of a VCM first releases what is left in it: a case
 * owns every reservation, bound and association of its VCMs.  The kernel
 * VCM is no case's, so a case owns its reservations there one by one,
 * through own_res(), and unreserves one itself with unreserve_res().  What
 * they cannot release is a leak, which the gauges show.
 */
static inline void vcm_test_release_phys(void *data)
{
	struct vcm_physmem *pm = data;
	struct vcm_res *res;

	for (;;) {
		mutex_lock(&pm->lock);
		res = list_first_entry_or_null(&pm->res_list, struct vcm_res,
					       phys_node);
		mutex_unlock(&pm->lock);
		if (!res || vcm_unback(res))
			break;
	}
	vcm_phys_free(pm);
}

static inline void vcm_test_release_vcm(void *data)
{
	struct vcm *vcm = data;
	struct vcm_bound *bound;
	struct vcm_avcm *avcm;
	struct vcm_res *res;

	while ((res = vcm_get_next_res(vcm, NULL))) {
		vcm_unback(res);
		if (vcm_unreserve(res))
			break;
	}
	for (;;) {
		mutex_lock(&vcm->lock);
		bound = list_first_entry_or_null(&vcm->bound_list,
						 struct vcm_bound, node);
		mutex_unlock(&vcm->lock);
		if (!bound || vcm_free_bound(bound))
			break;
	}
	for (;;) {
		mutex_lock(&vcm->lock);
		avcm = list_first_entry_or_null(&vcm->assoc_list,
						struct vcm_avcm, node);
		mutex_unlock(&vcm->lock);
		if (!avcm)
			break;
		if (vcm_is_active(avcm))
			vcm_deactivate(avcm);
		if (vcm_deassoc(avcm))
			break;
	}
	vcm_free(vcm);
}

static inline void vcm_test_release_res(void *data)
{
	struct vcm_res *res = data;

	vcm_unback(res);	/* -ENOENT if it is not backed */
	vcm_unreserve(res);
}

/* Assert @vcm was made, and release it when the case ends. */
static inline struct vcm *own_vcm(struct kunit *test, struct vcm *vcm)
{
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, vcm);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, vcm_test_release_vcm,
							vcm), 0);
	return vcm;
}

/* Assert @pm was made, and release it when the case ends. */
static inline struct vcm_physmem *own_phys(struct kunit *test,
					   struct vcm_physmem *pm)
{
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pm);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, vcm_test_release_phys,
							pm), 0);
	return pm;
}

/* Assert @res was made, and unreserve it when the case ends. */
static inline struct vcm_res *own_res(struct kunit *test, struct vcm_res *res)
{
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, vcm_test_release_res,
							res), 0);
	return res;
}

/* Pages of vcm_test_alloc_pages(), freed when the case ends. */
struct vcm_test_pages {
	struct page *page;
	unsigned int order;
};

static inline void vcm_test_free_pages(void *data)
{
	struct vcm_test_pages *p = data;

	__free_pages(p->page, p->order);
}

/*
 * 2^@order pages of alloc_pages(@gfp), freed when the case ends; NULL if
 * they could not be had.
 */
static inline struct page *vcm_test_alloc_pages(struct kunit *test,
						gfp_t gfp, unsigned int order)
{
	struct vcm_test_pages *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->page = alloc_pages(gfp, order);
	if (!p->page)
		return NULL;
	p->order = order;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, vcm_test_free_pages,
							p), 0);
	return p->page;
}

/* sg_free_table() of a table a case made, as a deferred action. */
static inline void vcm_test_sg_free_table(void *data)
{
	sg_free_table(data);
}

/*
 * The DMA address of the byte at @off of a mapped table, or 0: the cases'
 * reference for where the DMA API put a byte, walked segment by segment.
 */
static inline dma_addr_t vcm_test_dma_addr_at(struct sg_table *sgt, size_t off)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		if (off < sg_dma_len(sg))
			return sg_dma_address(sg) + off;
		off -= sg_dma_len(sg);
	}
	return 0;
}

/* vcm_free() of a VCM of own_vcm(): once it is freed, nothing is left to do. */
static inline int free_vcm(struct kunit *test, struct vcm *vcm)
{
	int ret = vcm_free(vcm);

	if (!ret)
		kunit_remove_action(test, vcm_test_release_vcm, vcm);
	return ret;
}

/* vcm_phys_free() of a physmem of own_phys(), as free_vcm(). */
static inline int free_phys(struct kunit *test, struct vcm_physmem *pm)
{
	int ret = vcm_phys_free(pm);

	if (!ret)
		kunit_remove_action(test, vcm_test_release_phys, pm);
	return ret;
}

/* vcm_unreserve() of a reservation of own_res(), as free_vcm(). */
static inline int unreserve_res(struct kunit *test, struct vcm_res *res)
{
	int ret = vcm_unreserve(res);

	if (!ret)
		kunit_remove_action(test, vcm_test_release_res, res);
	return ret;
}

/**
 * struct vcm_test_gauges - the gauges when a case started
 * @test: the case
 * @val: the value of each gauge
 */
struct vcm_test_gauges {
	struct kunit *test;
	long val[VCM_STAT_FIRST_EVENT];
};

static inline void vcm_test_check_gauges(void *data)
{
	struct vcm_test_gauges *g = data;
	int i;

	for (i = 0; i < VCM_STAT_FIRST_EVENT; i++)
		KUNIT_EXPECT_EQ_MSG(g->test, vcm_stat_read(i), g->val[i],
				    "counter %s", vcm_stat_names[i]);
}

/*
 * Check that every gauge is back where it is now when the case ends,
 * after every object of own_vcm() and own_phys() is released: the check
 * is deferred first, so that it runs last.
 */
static inline void vcm_test_watch_gauges(struct kunit *test)
{
	struct vcm_test_gauges *g;
	int i;

	g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, g);
	g->test = test;
	for (i = 0; i < VCM_STAT_FIRST_EVENT; i++)
		g->val[i] = vcm_stat_read(i);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, vcm_test_check_gauges,
							g), 0);
}

static inline int vcm_test_init(struct kunit *test)
{
	vcm_test_watch_gauges(test);
	return 0;
}

static inline struct vcm *new_dev_vcm(struct kunit *test)
{
	return own_vcm(test, vcm_create(DEV_START, DEV_LEN));
}

/*
 * The kernel VCM: VCM's own and shared with every other user, so a case
 * neither frees it nor has it released (which would take the others'
 * reservations); each case undoes what it did in it.
 */
static inline struct vcm *kernel_vcm(struct kunit *test)
{
	struct vcm *k = vcm_kernel();

	KUNIT_ASSERT_NOT_NULL(test, k);
	return k;
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
	return own_phys(test, vcm_phys_alloc(VCM_MEMTYPE_SYSTEM, len, attr,
					     pgsizes));
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
