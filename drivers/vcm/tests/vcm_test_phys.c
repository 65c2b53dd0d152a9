// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for VCM: physical memory: allocation, chunk sizes, contiguous and
 * wrapped memory, the PFN of a page, and the IOMMU page-size choice.
 *
 * Each case checks on exit that every global gauge is back where it was
 * (vcm_test_util.h).
 */

#include <kunit/device.h>
#include <kunit/test.h>
#include <linux/anon_inodes.h>
#include <linux/completion.h>
#include <linux/dma-mapping.h>
#include <linux/file.h>
#include <linux/highmem.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/pfn.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>
#include <linux/vcm.h>

#include "../vcm_priv.h"
#include "vcm_test_util.h"

/* --- physical memory ------------------------------------------------- */

static const struct vcm_attr_case vcm_phys_cases[] = {
	{ "zero length", 0, 0, -EINVAL },
	{ "partial page", SZ_4K + 1, 0, -EINVAL },
	{ "unknown attribute", SZ_4K, BIT(7), -EINVAL },
	{ "alignment: the DMA API's to choose", SZ_4K, VCM_PHYS_CONT | VCM_ALIGN_1M, -EINVAL },
	{ "more than RAM", SIZE_MAX & PAGE_MASK, 0, -ENOMEM },
	{ "more than RAM, contiguous", SIZE_MAX & PAGE_MASK, VCM_PHYS_CONT, -ENOMEM },
};

KUNIT_ARRAY_PARAM(vcm_phys, vcm_phys_cases, vcm_attr_case_desc);

static void vcm_test_phys_errors(struct kunit *test)
{
	const struct vcm_attr_case *c = test->param_value;
	struct vcm_physmem *pm;

	pm = vcm_phys_alloc(VCM_MEMTYPE_SYSTEM, c->len, c->attr, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(pm), c->err);
	if (!IS_ERR(pm))
		vcm_phys_free(pm);
}

/*
 * A contiguous request as long as all of RAM is not more than RAM, so it
 * passes the first check, but no free range is that long: the kernel is
 * in RAM too, and a CMA area is a part of it.  The DMA API finds none (its
 * fallback to the page allocator asks for an order above MAX_PAGE_ORDER,
 * refused at once and quietly) and vcm_phys_alloc() fails with -ENOMEM,
 * keeping and counting nothing.
 */
static void vcm_test_phys_cont_all_ram(struct kunit *test)
{
	size_t len = (size_t)totalram_pages() << PAGE_SHIFT;
	long physmems = vcm_stat_read(VCM_STAT_PHYSMEMS);
	long bytes = vcm_stat_read(VCM_STAT_PHYS_BYTES);
	struct vcm_physmem *pm;

	pm = vcm_phys_alloc(VCM_MEMTYPE_SYSTEM, len, VCM_PHYS_CONT, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(pm), -ENOMEM);
	if (!IS_ERR(pm))
		vcm_phys_free(pm);
	KUNIT_EXPECT_EQ(test, vcm_stat_read(VCM_STAT_PHYSMEMS), physmems);
	KUNIT_EXPECT_EQ(test, vcm_stat_read(VCM_STAT_PHYS_BYTES), bytes);
}

static void vcm_test_phys_handles(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_alloc(VCM_MEMTYPE_INVALID, SZ_4K, 0, 0)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_alloc(VCM_MEMTYPE_FOREIGN, SZ_4K, 0, 0)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_back(NULL, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_unback(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(NULL), -EINVAL);
}

/*
 * NULL and ERR_PTR() handles are all the API rejects, and only outside
 * the getters, which trust their handle: using a handle after freeing it
 * is a bug of the caller's, not an error (see "Ownership and lifetimes"
 * in vcm.rst), so no case passes stale handles, nor bad ones to getters.
 * The chunk walk takes NULL for "no memory".
 */
static void vcm_test_err_handles(struct kunit *test)
{
	struct device *dev = kunit_device_register(test, "vcm-handles");
	struct vcm *vcm = new_dev_vcm(test);
	struct vcm_physmem *pm = new_phys(test, SZ_64K, 0, 0);
	struct vcm_res *res = vcm_reserve(vcm, SZ_64K, RW);
	void *const bad[] = { NULL, ERR_PTR(-ENOMEM) };
	unsigned int cursor = 7;
	size_t len, n = 0;
	phys_addr_t phys;
	dma_addr_t out;
	int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		void *h = bad[i];

		/* VCMs */
		KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_clone(h)), -EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_free(h), -EINVAL);
		KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve(h, SZ_4K, RW)), -EINVAL);
		KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve_at(h, DEV_START, SZ_4K, RW)),
				-EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_translate(h, DEV_START, vcm, &out), -EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_translate(vcm, DEV_START, h, &out), -EINVAL);
		KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_assoc(h, dev, 0)), -EINVAL);
		KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_create_bound(h, SZ_1M)), -EINVAL);
		KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_from_dma(h, vcm_get_physmem_sgt(pm))),
				-EINVAL);

		/* Reservations */
		KUNIT_EXPECT_EQ(test, vcm_unreserve(h), -EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_set_res_attr(h, RW), -EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_back(h, pm), -EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_unback(h), -EINVAL);

		/* Associations */
		KUNIT_EXPECT_EQ(test, vcm_deassoc(h), -EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_set_assoc_attr(h, 0), -EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_activate(h), -EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_deactivate(h), -EINVAL);

		/* Bounds */
		KUNIT_EXPECT_EQ(test, vcm_free_bound(h), -EINVAL);
		KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve_from_bound(h, SZ_4K, RW)),
				-EINVAL);

		/* Physmems */
		KUNIT_EXPECT_EQ(test, vcm_back(res, h), -EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_phys_free(h), -EINVAL);
	}

	/* A NULL physmem has no chunks. */
	vcm_for_each_phys_chunk(NULL, cursor, phys, len)
		n++;
	KUNIT_EXPECT_EQ(test, n, 0);
	KUNIT_EXPECT_EQ(test, cursor, 0);

	/* The refusals left the live handles alone. */
	KUNIT_EXPECT_EQ(test, vcm_get_num_res(vcm), 1);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_get_physmem_from_res(res)), -ENOENT);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(res), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, vcm), 0);
}

struct vcm_chunk_case {
	const char *name;
	unsigned long pgsizes;
	size_t len;
	size_t largest;
};

static const struct vcm_chunk_case vcm_chunk_cases[] = {
	{ "2M blocks", SZ_4K | SZ_2M | SZ_1G, 2 * SZ_2M + SZ_64K + SZ_4K, SZ_2M },
	{ "64K blocks", SZ_4K | SZ_64K, SZ_1M + SZ_4K, SZ_64K },
	{ "base pages", SZ_4K, SZ_256K, SZ_4K },
	{ "default", 0, SZ_4M, SZ_2M },
	{ "sizes above MAX_PAGE_ORDER", SZ_1G | SZ_512M, SZ_64K, SZ_4K },
};

static void vcm_chunk_case_desc(const struct vcm_chunk_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(vcm_chunks, vcm_chunk_cases, vcm_chunk_case_desc);

static void vcm_test_phys_chunks(struct kunit *test)
{
	const struct vcm_chunk_case *c = test->param_value;
	unsigned long allowed = (c->pgsizes ?: SZ_2M | SZ_1M | SZ_64K) | PAGE_SIZE;
	struct vcm_physmem *pm = new_phys(test, c->len, 0, c->pgsizes);
	size_t total = 0, prev = SIZE_MAX, largest = 0, len;
	unsigned int cursor;
	phys_addr_t phys;

	KUNIT_EXPECT_EQ(test, vcm_get_physmem_len(pm), c->len);
	KUNIT_EXPECT_EQ(test, vcm_get_memtype_of_physalloc(pm), VCM_MEMTYPE_SYSTEM);
	vcm_for_each_phys_chunk(pm, cursor, phys, len) {
		KUNIT_EXPECT_TRUE(test, is_power_of_2(len) && (allowed & len));
		KUNIT_EXPECT_TRUE(test, IS_ALIGNED(phys, len));
		KUNIT_EXPECT_LE(test, len, prev);
		prev = len;
		largest = max(largest, len);
		total += len;
	}
	KUNIT_EXPECT_EQ(test, total, c->len);
	KUNIT_EXPECT_EQ(test, vcm_get_physmem_sgt(pm)->orig_nents, cursor);
	/* A fresh guest has free blocks of every order the cases ask for. */
	KUNIT_EXPECT_EQ(test, largest, c->largest);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
}

static void vcm_test_phys_contiguous(struct kunit *test)
{
	struct vcm_physmem *pm = new_phys(test, SZ_2M + SZ_4K, VCM_PHYS_CONT, 0);
	struct vcm_physmem *wrap;
	unsigned int cursor = 0;
	phys_addr_t phys, p2;
	size_t len, l2;
	u32 *p;

	KUNIT_ASSERT_EQ(test, vcm_test_next_chunk(pm, &cursor, &phys, &len), 0);
	KUNIT_EXPECT_EQ(test, len, (size_t)SZ_2M + SZ_4K);
	KUNIT_EXPECT_EQ(test, vcm_test_next_chunk(pm, &cursor, &p2, &l2), -ENOENT);

	/* Memory from the DMA API is zeroed too. */
	p = kmap_local_page(phys_to_page(phys + SZ_2M));
	KUNIT_EXPECT_EQ(test, p[0] | p[1023], 0);
	kunmap_local(p);

	/* The same range wrapped as a carve-out. */
	wrap = own_phys(test, vcm_phys_from_range(phys, SZ_2M));
	KUNIT_EXPECT_EQ(test, vcm_get_memtype_of_physalloc(wrap), VCM_MEMTYPE_FOREIGN);
	cursor = 0;
	KUNIT_ASSERT_EQ(test, vcm_test_next_chunk(wrap, &cursor, &p2, &l2), 0);
	KUNIT_EXPECT_EQ(test, p2, phys);
	KUNIT_EXPECT_EQ(test, l2, (size_t)SZ_2M);
	KUNIT_EXPECT_EQ(test, free_phys(test, wrap), 0);

	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_from_range(phys + 1, SZ_4K)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_from_range(phys, 0)), -EINVAL);
	KUNIT_EXPECT_EQ(test,
			PTR_ERR(vcm_phys_from_range(PHYS_ADDR_MAX & PAGE_MASK, SZ_64K)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
}

static void vcm_test_phys_from_sgt(struct kunit *test)
{
	struct vcm *k = kernel_vcm(test);
	struct page *pages[3];
	struct vcm_physmem *pm;
	struct vcm_res *res;
	struct sg_table sgt, bad;
	u32 *vaddr, *p;
	int i;

	for (i = 0; i < 3; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
		p = kmap_local_page(pages[i]);
		p[0] = 0xf00d0000 + i;
		kunmap_local(p);
	}
	KUNIT_ASSERT_EQ(test, sg_alloc_table_from_pages(&sgt, pages, 3, 0,
							3 * PAGE_SIZE, GFP_KERNEL), 0);

	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_from_sgt(NULL, 0)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_from_sgt(&sgt, VCM_PHYS_CONT)), -EINVAL);
	KUNIT_ASSERT_EQ(test, sg_alloc_table(&bad, 1, GFP_KERNEL), 0);
	sg_set_page(bad.sgl, pages[0], 100, 8);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_from_sgt(&bad, 0)), -EINVAL);
	sg_free_table(&bad);

	pm = own_phys(test, vcm_phys_from_sgt(&sgt, 0));
	KUNIT_EXPECT_EQ(test, vcm_get_physmem_len(pm), 3 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, vcm_get_memtype_of_physalloc(pm), VCM_MEMTYPE_FOREIGN);

	/* The kernel VCM sees the foreign pages, in order. */
	res = own_res(test, vcm_reserve(k, 3 * PAGE_SIZE, RW_CACHED));
	KUNIT_ASSERT_EQ(test, vcm_back(res, pm), 0);
	vaddr = vcm_get_vaddr(res);
	KUNIT_ASSERT_NOT_NULL(test, vaddr);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, vaddr[i * PAGE_SIZE / 4], 0xf00d0000 + i);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), -EBUSY);
	KUNIT_EXPECT_EQ(test, vcm_unback(res), 0);
	KUNIT_EXPECT_EQ(test, unreserve_res(test, res), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);

	/* The pages are the owner's: still there. */
	sg_free_table(&sgt);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, page_ref_count(pages[i]), 1);
		__free_page(pages[i]);
	}
}

/*
 * A caller's table whose entries follow one another in memory wraps as
 * one contiguous range: the physmem says so with %VCM_PHYS_CONT, as one
 * of vcm_phys_from_range() does, and a one-to-one VCM of exactly those
 * pages places a reservation backed with it at their physical address.
 * The same pages with the halves swapped are scattered: no %VCM_PHYS_CONT,
 * and no one-to-one backing.
 */
static void vcm_test_phys_from_sgt_contiguous(struct kunit *test)
{
	struct sg_table *sgt = kunit_kcalloc(test, 2, sizeof(*sgt), GFP_KERNEL);
	struct vcm_physmem *cont, *swapped;
	struct vcm_res *res;
	struct page *page;
	phys_addr_t phys;
	struct vcm *o;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, sgt);
	page = vcm_test_alloc_pages(test, GFP_KERNEL, 2);
	KUNIT_ASSERT_NOT_NULL(test, page);
	phys = page_to_phys(page);
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, sg_alloc_table(&sgt[i], 2, GFP_KERNEL), 0);
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, vcm_test_sg_free_table,
								&sgt[i]), 0);
	}
	/* Pages 0-1 then 2-3; then 2-3 before 0-1. */
	sg_set_page(sgt[0].sgl, page, 2 * PAGE_SIZE, 0);
	sg_set_page(sg_next(sgt[0].sgl), nth_page(page, 2), 2 * PAGE_SIZE, 0);
	sg_set_page(sgt[1].sgl, nth_page(page, 2), 2 * PAGE_SIZE, 0);
	sg_set_page(sg_next(sgt[1].sgl), page, 2 * PAGE_SIZE, 0);

	cont = own_phys(test, vcm_phys_from_sgt(&sgt[0], 0));
	swapped = own_phys(test, vcm_phys_from_sgt(&sgt[1], 0));
	KUNIT_EXPECT_TRUE(test, cont->contiguous);
	KUNIT_EXPECT_EQ(test, cont->attr, (u32)VCM_PHYS_CONT);
	KUNIT_EXPECT_FALSE(test, swapped->contiguous);
	KUNIT_EXPECT_EQ(test, swapped->attr, 0);

	o = own_vcm(test, vcm_create_one_to_one(phys, 4 * PAGE_SIZE));
	res = vcm_reserve(o, 4 * PAGE_SIZE, RW_CACHED);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	KUNIT_EXPECT_EQ(test, vcm_back(res, swapped), -EINVAL);
	KUNIT_ASSERT_EQ(test, vcm_back(res, cont), 0);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(res), (dma_addr_t)phys);

	KUNIT_EXPECT_EQ(test, vcm_unback(res), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(res), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, o), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, swapped), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, cont), 0);
}

/*
 * vcm_phys_pfn() at every page of @pm, against a walk of its chunks: the
 * PFN, and the pages left in the chunk, all of them at its first page and
 * 1 at its last.  Every page is checked, up to the first wrong one.
 * Return: the number of chunks.
 */
static unsigned int expect_pfns(struct kunit *test, struct vcm_physmem *pm)
{
	unsigned long npages = vcm_get_physmem_len(pm) >> PAGE_SHIFT;
	unsigned long pfn = 0, nr = 0, first, n, i;
	unsigned int cursor = 0;
	pgoff_t pgoff = 0;
	phys_addr_t phys;
	size_t len;

	vcm_for_each_phys_chunk(pm, cursor, phys, len) {
		first = PHYS_PFN(phys);
		n = len >> PAGE_SHIFT;

		KUNIT_EXPECT_EQ(test, vcm_phys_pfn(pm, pgoff, &pfn, &nr), 0);
		KUNIT_EXPECT_EQ(test, pfn, first);
		KUNIT_EXPECT_EQ(test, nr, n);
		KUNIT_EXPECT_EQ(test, vcm_phys_pfn(pm, pgoff + n - 1, &pfn, &nr), 0);
		KUNIT_EXPECT_EQ(test, pfn, first + n - 1);
		KUNIT_EXPECT_EQ(test, nr, 1);

		for (i = 0; i < n; i++) {
			int ret;

			pfn = 0;
			nr = 0;
			ret = vcm_phys_pfn(pm, pgoff + i, &pfn, &nr);
			if (!ret && pfn == first + i && nr == n - i)
				continue;
			KUNIT_FAIL(test,
				   "page %lu (chunk %u): %d, pfn %#lx, nr %lu; not pfn %#lx, nr %lu",
				   pgoff + i, cursor, ret, pfn, nr, first + i, n - i);
			return cursor;
		}
		pgoff += n;
	}
	KUNIT_EXPECT_EQ(test, pgoff, npages);

	/* Past the end. */
	KUNIT_EXPECT_EQ(test, vcm_phys_pfn(pm, npages, &pfn, &nr), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_phys_pfn(pm, ULONG_MAX, &pfn, &nr), -EINVAL);
	return cursor;
}

/*
 * The wrappers refuse with -EINVAL what a caller could hand them wrongly,
 * and count no physmem for it: a table without entries, or whose entry
 * has no page, no length or part of a page; a range of part of a page,
 * or one without struct pages (the last page of the physical address
 * space); DMA addresses of an association not yet active, of an ERR_PTR()
 * or empty table, or segments of no length or of part of a page.  A
 * physmem of DMA addresses made in one activation backs no reservation
 * in the next (-EINVAL, left unbacked and unplaced).
 */
static void vcm_test_phys_wrap_errors(struct kunit *test)
{
	struct device *dev = kunit_device_register(test, "vcm-wrap-errors");
	struct sg_table *dsgt = kunit_kzalloc(test, sizeof(*dsgt), GFP_KERNEL);
	long physmems = vcm_stat_read(VCM_STAT_PHYSMEMS);
	struct sg_table sgt, empty = {};
	struct vcm_physmem *dma;
	struct vcm_avcm *avcm;
	struct scatterlist *sg;
	struct vcm_res *res;
	struct page *page;
	struct vcm *dvcm;
	unsigned int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	KUNIT_ASSERT_NOT_NULL(test, dsgt);
	page = vcm_test_alloc_pages(test, GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, page);

	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_from_sgt(&empty, 0)), -EINVAL);
	KUNIT_ASSERT_EQ(test, sg_alloc_table(&sgt, 1, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_from_sgt(&sgt, 0)), -EINVAL);
	sg_set_page(sgt.sgl, page, 0, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_from_sgt(&sgt, 0)), -EINVAL);
	sg_set_page(sgt.sgl, page, PAGE_SIZE / 2, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_from_sgt(&sgt, 0)), -EINVAL);
	sg_set_page(sgt.sgl, page, PAGE_SIZE, 0);
	sgt.orig_nents = 0;
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_from_sgt(&sgt, 0)), -EINVAL);
	sgt.orig_nents = 1;
	sg_free_table(&sgt);

	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_from_range(page_to_phys(page),
							  PAGE_SIZE + 1)), -EINVAL);
	KUNIT_EXPECT_EQ(test,
			PTR_ERR(vcm_phys_from_range(PHYS_ADDR_MAX & PAGE_MASK, PAGE_SIZE)),
			-EINVAL);

	dvcm = own_vcm(test, vcm_create_dma());
	avcm = vcm_assoc(dvcm, dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, avcm);
	KUNIT_ASSERT_EQ(test, sg_alloc_table(dsgt, 2, GFP_KERNEL), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, vcm_test_sg_free_table,
							dsgt), 0);
	for_each_sgtable_sg(dsgt, sg, i) {
		sg_dma_address(sg) = SZ_1G + i * SZ_2M;
		sg_dma_len(sg) = PAGE_SIZE;
	}
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_from_dma(avcm, dsgt)), -EINVAL);
	KUNIT_ASSERT_EQ(test, vcm_activate(avcm), 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_from_dma(avcm, ERR_PTR(-ENOMEM))),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_from_dma(avcm, &empty)), -EINVAL);
	dsgt->nents = 0;
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_from_dma(avcm, dsgt)), -EINVAL);
	dsgt->nents = 2;
	sg = sg_next(dsgt->sgl);
	sg_dma_len(sg) = 0;
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_from_dma(avcm, dsgt)), -EINVAL);
	sg_dma_len(sg) = PAGE_SIZE / 2;
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_from_dma(avcm, dsgt)), -EINVAL);
	sg_dma_len(sg) = PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, vcm_stat_read(VCM_STAT_PHYSMEMS), physmems);

	dma = own_phys(test, vcm_phys_from_dma(avcm, dsgt));
	res = vcm_reserve(dvcm, 2 * PAGE_SIZE, RW_CACHED);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	KUNIT_ASSERT_EQ(test, vcm_deactivate(avcm), 0);
	KUNIT_ASSERT_EQ(test, vcm_activate(avcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_back(res, dma), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_get_physmem_from_res(res)), -ENOENT);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(res), DMA_MAPPING_ERROR);

	KUNIT_EXPECT_EQ(test, vcm_unreserve(res), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, dma), 0);
	KUNIT_EXPECT_EQ(test, vcm_deactivate(avcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_deassoc(avcm), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, dvcm), 0);
}

/*
 * The PFN of a page found in the index of the chunks: in memory of 2M,
 * 64K and page chunks, in more chunks than a page of scatterlist holds
 * (a chained table), in one range (no index), and in a caller's table of
 * pages in reverse order.  Memory known by DMA addresses has no page for
 * the CPU to map.
 */
static void vcm_test_phys_pfn(struct kunit *test)
{
	struct device *dev = kunit_device_register(test, "vcm-pfn");
	const unsigned int many = SG_MAX_SINGLE_ALLOC + 2;
	struct vcm_physmem *mixed, *chained, *cont, *wrap, *dma;
	struct sg_table sgt, dsgt;
	struct scatterlist *sg;
	struct page *pages[3];
	unsigned long pfn, nr;
	struct vcm_avcm *avcm;
	struct vcm *dvcm;
	unsigned int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);

	mixed = new_phys(test, 2 * SZ_2M + 3 * SZ_64K + 2 * PAGE_SIZE, 0,
			 SZ_2M | SZ_64K | PAGE_SIZE);
	/* At least 2M, 2M, 64K, 64K, 64K and two pages. */
	KUNIT_EXPECT_GE(test, expect_pfns(test, mixed), 7);
	KUNIT_EXPECT_NOT_NULL(test, mixed->chunk_pos);

	chained = new_phys(test, many * PAGE_SIZE, 0, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, expect_pfns(test, chained), many);

	cont = new_phys(test, SZ_64K, VCM_PHYS_CONT, 0);
	KUNIT_EXPECT_EQ(test, expect_pfns(test, cont), 1);
	KUNIT_EXPECT_NULL(test, cont->chunk_pos);

	for (i = 0; i < 3; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
	}
	KUNIT_ASSERT_EQ(test, sg_alloc_table(&sgt, 3, GFP_KERNEL), 0);
	for_each_sgtable_sg(&sgt, sg, i)
		sg_set_page(sg, pages[2 - i], PAGE_SIZE, 0);
	wrap = own_phys(test, vcm_phys_from_sgt(&sgt, 0));
	KUNIT_EXPECT_EQ(test, expect_pfns(test, wrap), 3);
	KUNIT_EXPECT_EQ(test, free_phys(test, wrap), 0);
	sg_free_table(&sgt);
	for (i = 0; i < 3; i++)
		__free_page(pages[i]);

	KUNIT_EXPECT_EQ(test, vcm_phys_pfn(NULL, 0, &pfn, &nr), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_phys_pfn(ERR_PTR(-ENOMEM), 0, &pfn, &nr),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_phys_pfn(mixed, 0, NULL, &nr), -EINVAL);
	/* The length of the run is optional. */
	KUNIT_EXPECT_EQ(test, vcm_phys_pfn(mixed, 1, &pfn, NULL), 0);

	/* Two segments of a device's DMA addresses: nothing behind them. */
	dvcm = own_vcm(test, vcm_create_dma());
	avcm = vcm_assoc(dvcm, dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, avcm);
	KUNIT_ASSERT_EQ(test, vcm_activate(avcm), 0);
	KUNIT_ASSERT_EQ(test, sg_alloc_table(&dsgt, 2, GFP_KERNEL), 0);
	for_each_sgtable_sg(&dsgt, sg, i) {
		sg_dma_address(sg) = SZ_1G + i * SZ_2M;
		sg_dma_len(sg) = PAGE_SIZE;
	}
	dma = own_phys(test, vcm_phys_from_dma(avcm, &dsgt));
	KUNIT_EXPECT_NULL(test, dma->chunk_pos);
	KUNIT_EXPECT_EQ(test, vcm_phys_pfn(dma, 0, &pfn, &nr), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, free_phys(test, dma), 0);
	sg_free_table(&dsgt);
	KUNIT_EXPECT_EQ(test, vcm_deactivate(avcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_deassoc(avcm), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, dvcm), 0);

	KUNIT_EXPECT_EQ(test, free_phys(test, cont), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, chained), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, mixed), 0);
}

/* The word at byte @off of @pm, read through the linear map. */
static u32 phys_word(struct vcm_physmem *pm, size_t off)
{
	unsigned long pfn;
	u32 *p, v;

	if (vcm_phys_pfn(pm, off >> PAGE_SHIFT, &pfn, NULL))
		return 0;
	p = kmap_local_page(pfn_to_page(pfn));
	v = p[offset_in_page(off) / 4];
	kunmap_local(p);
	return v;
}

/*
 * vcm_phys_copy() copies VCM's own memory only, and only memory that
 * backs nothing: a destination or a source of a caller's page (foreign),
 * a NULL or ERR_PTR() source, and a destination that backs a reservation
 * are refused with -EINVAL, and each destination keeps what it held.
 * vcm_phys_alloc_for() refuses a length of part of a page, counting no
 * physmem.
 */
static void vcm_test_phys_copy_refusals(struct kunit *test)
{
	struct vcm_physmem *pm = new_phys(test, PAGE_SIZE, 0, 0);
	struct vcm_physmem *other = new_phys(test, PAGE_SIZE, 0, 0);
	struct vcm *k = kernel_vcm(test);
	struct vcm_physmem *foreign;
	struct vcm_constraint c;
	struct vcm_res *res;
	struct page *page;
	long physmems;
	size_t off;

	page = vcm_test_alloc_pages(test, GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, page);
	foreign = own_phys(test, vcm_phys_from_range(page_to_phys(page), PAGE_SIZE));
	vcm_fill_pattern(pm, 0x8000);
	vcm_fill_pattern(other, 0x8100);
	vcm_fill_pattern(foreign, 0x8200);

	KUNIT_EXPECT_EQ(test, vcm_phys_copy(foreign, pm), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_phys_copy(pm, foreign), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_phys_copy(pm, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_phys_copy(pm, ERR_PTR(-ENOMEM)), -EINVAL);

	res = own_res(test, vcm_reserve(k, PAGE_SIZE, RW_CACHED));
	KUNIT_ASSERT_EQ(test, vcm_back(res, pm), 0);
	KUNIT_EXPECT_EQ(test, vcm_phys_copy(pm, other), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_unback(res), 0);
	KUNIT_EXPECT_EQ(test, unreserve_res(test, res), 0);

	for (off = 0; off < PAGE_SIZE; off += 1020) {
		KUNIT_EXPECT_EQ(test, phys_word(pm, off), vcm_pattern_at(pm, 0x8000, off));
		KUNIT_EXPECT_EQ(test, phys_word(foreign, off),
				vcm_pattern_at(foreign, 0x8200, off));
	}

	vcm_constraint_init(&c);
	physmems = vcm_stat_read(VCM_STAT_PHYSMEMS);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_alloc_for(PAGE_SIZE + 1, 0, &c)), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_stat_read(VCM_STAT_PHYSMEMS), physmems);

	KUNIT_EXPECT_EQ(test, free_phys(test, foreign), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, other), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
}

/* What a killed task got of VCM (vcm_test_phys_killed()). */
struct vcm_killed {
	struct vcm_physmem *src, *dst, *pm;
	struct completion done;
	bool fatal;
	int ret;
};

/*
 * A kthread of the case's own, killed before it allocates and copies:
 * kthreads ignore signals unless they allow them, and this one exits
 * with its signal once it is done.
 */
static int vcm_killed_fn(void *data)
{
	struct vcm_killed *k = data;

	allow_signal(SIGKILL);
	send_sig(SIGKILL, current, 1);
	k->fatal = fatal_signal_pending(current);
	k->pm = vcm_phys_alloc(VCM_MEMTYPE_SYSTEM, SZ_64K, 0, 0);
	k->ret = vcm_phys_copy(k->dst, k->src);
	complete(&k->done);
	return 0;
}

/*
 * A fatal signal stops the work its task waits for.  An allocation in
 * chunks fails with -EINTR before it takes a chunk, counting no physmem
 * and no bytes.  A copy long enough to look for the signal on its way
 * fails with -EINTR: the destination holds a prefix of the source, and
 * its own words after that.
 */
static void vcm_test_phys_killed(struct kunit *test)
{
	const size_t len = 257 * PAGE_SIZE;
	struct vcm_killed k = {
		.src = new_phys(test, len, 0, PAGE_SIZE),
		.dst = new_phys(test, len, 0, PAGE_SIZE),
	};
	long physmems = vcm_stat_read(VCM_STAT_PHYSMEMS);
	long bytes = vcm_stat_read(VCM_STAT_PHYS_BYTES);
	struct task_struct *t;
	size_t off, copied;

	/* Seeds less than a page's 1024 words apart: no word is in both. */
	vcm_fill_pattern(k.src, 0x6000);
	vcm_fill_pattern(k.dst, 0x6200);
	init_completion(&k.done);
	t = kthread_run(vcm_killed_fn, &k, "vcm-killed");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	wait_for_completion(&k.done);

	/* A physmem it should not have got is the case's to free. */
	if (!IS_ERR_OR_NULL(k.pm))
		own_phys(test, k.pm);
	KUNIT_ASSERT_TRUE(test, k.fatal);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(k.pm), -EINTR);
	if (!IS_ERR_OR_NULL(k.pm))
		KUNIT_EXPECT_EQ(test, free_phys(test, k.pm), 0);
	KUNIT_EXPECT_EQ(test, vcm_stat_read(VCM_STAT_PHYSMEMS), physmems);
	KUNIT_EXPECT_EQ(test, vcm_stat_read(VCM_STAT_PHYS_BYTES), bytes);

	KUNIT_EXPECT_EQ(test, k.ret, -EINTR);
	/* A word a page, a different one in each. */
	for (copied = 0; copied < len; copied += PAGE_SIZE) {
		off = copied + (copied / PAGE_SIZE * 4) % PAGE_SIZE;
		if (phys_word(k.dst, off) != vcm_pattern_at(k.src, 0x6000, off))
			break;
	}
	for (; copied < len; copied += PAGE_SIZE) {
		off = copied + (copied / PAGE_SIZE * 4) % PAGE_SIZE;
		KUNIT_EXPECT_EQ_MSG(test, phys_word(k.dst, off),
				    vcm_pattern_at(k.dst, 0x6200, off),
				    "page %zu", copied / PAGE_SIZE);
	}

	KUNIT_EXPECT_EQ(test, free_phys(test, k.dst), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, k.src), 0);
}

/*
 * A physmem of a device's DMA addresses holds no physical memory, even
 * where its DMA address is a physical address as well (without an IOMMU
 * it may be one of RAM): the reverse lookups of that physical address
 * count and return the backing of the memory there, not the DMA VCM's
 * backing of the DMA address.  It has no pages to cut into a table for a
 * device (-EINVAL), nor has a NULL physmem; and a device whose segments
 * are shorter than a page gets no table of any memory.
 */
static void vcm_test_phys_dma_addresses(struct kunit *test)
{
	struct device *dev = kunit_device_register(test, "vcm-dma-addresses");
	struct sg_table *dsgt = kunit_kzalloc(test, sizeof(*dsgt), GFP_KERNEL);
	struct vcm_physmem *pm = new_phys(test, PAGE_SIZE, 0, 0);
	struct device_dma_parameters *parms;
	struct vcm *k = kernel_vcm(test);
	struct vcm_res *rk, *rd;
	struct vcm_physmem *dma;
	unsigned int cursor = 0;
	struct vcm_avcm *avcm;
	struct sg_table sgt;
	phys_addr_t phys;
	struct vcm *dvcm;
	size_t len;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	KUNIT_ASSERT_NOT_NULL(test, dsgt);
	KUNIT_ASSERT_EQ(test, vcm_test_next_chunk(pm, &cursor, &phys, &len), 0);

	dvcm = own_vcm(test, vcm_create_dma());
	avcm = vcm_assoc(dvcm, dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, avcm);
	KUNIT_ASSERT_EQ(test, vcm_activate(avcm), 0);
	KUNIT_ASSERT_EQ(test, sg_alloc_table(dsgt, 1, GFP_KERNEL), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, vcm_test_sg_free_table,
							dsgt), 0);
	sg_dma_address(dsgt->sgl) = phys;
	sg_dma_len(dsgt->sgl) = PAGE_SIZE;
	dma = own_phys(test, vcm_phys_from_dma(avcm, dsgt));

	rk = own_res(test, vcm_reserve(k, PAGE_SIZE, RW_CACHED));
	rd = vcm_reserve(dvcm, PAGE_SIZE, RW_CACHED);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, rd);
	KUNIT_ASSERT_EQ(test, vcm_back(rk, pm), 0);
	KUNIT_ASSERT_EQ(test, vcm_back(rd, dma), 0);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(rd), (dma_addr_t)phys);

	KUNIT_EXPECT_EQ(test, vcm_get_phys_num_res(phys + 8), 1);
	len = 0;
	KUNIT_EXPECT_PTR_EQ(test, vcm_get_next_phys_res(phys + 8, NULL, &len), rk);
	KUNIT_EXPECT_EQ(test, len, PAGE_SIZE);
	KUNIT_EXPECT_NULL(test, vcm_get_next_phys_res(phys + 8, rk, NULL));

	KUNIT_EXPECT_EQ(test, vcm_phys_to_sgt_for_dev(dma, dev, &sgt), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_phys_to_sgt_for_dev(NULL, dev, &sgt), -EINVAL);
	parms = kunit_kzalloc(test, sizeof(*parms), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, parms);
	parms->max_segment_size = PAGE_SIZE / 2;
	parms->segment_boundary_mask = ULONG_MAX;
	dev->dma_parms = parms;
	KUNIT_EXPECT_EQ(test, vcm_phys_to_sgt_for_dev(pm, dev, &sgt), -EINVAL);
	dev->dma_parms = NULL;

	KUNIT_EXPECT_EQ(test, vcm_unback(rd), 0);
	KUNIT_EXPECT_EQ(test, vcm_unback(rk), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(rd), 0);
	KUNIT_EXPECT_EQ(test, unreserve_res(test, rk), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, dma), 0);
	KUNIT_EXPECT_EQ(test, vcm_deactivate(avcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_deassoc(avcm), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, dvcm), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
}

/* --- IOMMU page-size choice ------------------------------------------ */

/*
 * The chunk sizes for an IOMMU's page sizes: its own, and every power of
 * two from its granule (at least a page) up to its smallest block; below
 * the PMD size without a block.  Written out for 4 KiB pages.
 */
struct vcm_chunk_sizes_case {
	const char *name;
	unsigned long pgsizes;
	unsigned long want;
};

#define VCM_4K_TO_1M	(SZ_4K | SZ_8K | SZ_16K | SZ_32K | SZ_64K | SZ_128K | \
			 SZ_256K | SZ_512K | SZ_1M)

static const struct vcm_chunk_sizes_case vcm_chunk_sizes_cases[] = {
	{ "SMMUv3 4K", SZ_4K | SZ_2M | SZ_1G, VCM_4K_TO_1M | SZ_2M | SZ_1G },
	{ "sub-page granule", SZ_1K | SZ_2M, VCM_4K_TO_1M | SZ_2M },
	{ "sub-page sizes", SZ_1K | SZ_4K | SZ_2M, VCM_4K_TO_1M | SZ_2M },
	{ "64K granule", SZ_64K | SZ_512M,
	  SZ_4K | SZ_64K | SZ_128K | SZ_256K | SZ_512K | SZ_1M | SZ_2M |
	  SZ_4M | SZ_8M | SZ_16M | SZ_32M | SZ_64M | SZ_128M | SZ_256M | SZ_512M },
	{ "no block", SZ_64K,
	  SZ_4K | SZ_64K | SZ_128K | SZ_256K | SZ_512K | SZ_1M },
	{ "2M only", SZ_2M, SZ_4K | SZ_2M },
	{ "1G only", SZ_1G, SZ_4K | SZ_1G },
	{ "no IOMMU", 0, VCM_4K_TO_1M },
};

static void vcm_chunk_sizes_desc(const struct vcm_chunk_sizes_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(vcm_chunk_sizes, vcm_chunk_sizes_cases, vcm_chunk_sizes_desc);

static void vcm_test_chunk_sizes(struct kunit *test)
{
	const struct vcm_chunk_sizes_case *c = test->param_value;

	if (PAGE_SIZE != SZ_4K)
		kunit_skip(test, "the cases are written for 4 KiB pages");
	KUNIT_EXPECT_EQ_MSG(test, vcm_chunk_sizes(c->pgsizes), c->want,
			    "page sizes %#lx", c->pgsizes);
}

struct vcm_pte_case {
	const char *name;
	unsigned long pgsizes;
	unsigned long iova;
	phys_addr_t paddr;
	size_t size;
	size_t ptes;
};

static const struct vcm_pte_case vcm_pte_cases[] = {
	{ "2M block", SZ_4K | SZ_2M | SZ_1G, SZ_1G, SZ_1G + SZ_2M, SZ_2M, 1 },
	{ "2M misaligned phys", SZ_4K | SZ_2M, SZ_1G, SZ_1G + SZ_64K, SZ_2M, 512 },
	{ "2M misaligned iova", SZ_4K | SZ_2M, SZ_1G + SZ_4K, SZ_1G, SZ_2M, 512 },
	{ "block and pages", SZ_4K | SZ_2M, 0, 0, SZ_2M + 3 * SZ_4K, 4 },
	{ "64K granule", SZ_64K | SZ_512M, SZ_512M, SZ_512M, SZ_512M + SZ_128K, 3 },
	{ "unmappable", SZ_64K, 0, SZ_4K, SZ_64K, 0 },
};

static void vcm_pte_case_desc(const struct vcm_pte_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(vcm_ptes, vcm_pte_cases, vcm_pte_case_desc);

static void vcm_test_count_ptes(struct kunit *test)
{
	const struct vcm_pte_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, vcm_iommu_count_ptes(c->pgsizes, c->iova, c->paddr,
						   c->size), c->ptes);
}

/*
 * Entries of 1 MiB at offsets of a 4 MiB-aligned range: two halves of a
 * 2 MiB block make one block entry in order, as iommu_map_sg() maps
 * contiguous neighbours together; pages at a misaligned IOVA, swapped,
 * or when they do not meet.  Only addresses are looked at: no memory is
 * allocated.
 */
static void vcm_test_count_sgt_ptes(struct kunit *test)
{
	static const struct {
		const char *name;
		unsigned long iova;
		unsigned int first, second;	/* offsets in MiB */
		size_t ptes;
	} cases[] = {
		{ "halves in order", SZ_1G, 0, 1, 1 },
		{ "misaligned IOVA", SZ_1G + SZ_4K, 0, 1, 512 },
		{ "halves swapped", SZ_1G, 1, 0, 512 },
		{ "apart", SZ_1G, 0, 3, 512 },
	};
	struct page *base;
	struct sg_table sgt;
	unsigned int i;

	if (PAGE_SIZE != SZ_4K)
		kunit_skip(test, "written for 4 KiB pages");
	/* A 4 MiB-aligned range of RAM: only its addresses are used. */
	base = pfn_to_page(PHYS_PFN(ALIGN_DOWN(virt_to_phys(test), SZ_4M)));
	KUNIT_ASSERT_EQ(test, sg_alloc_table(&sgt, 2, GFP_KERNEL), 0);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		sg_set_page(sgt.sgl,
			    nth_page(base, cases[i].first * (SZ_1M >> PAGE_SHIFT)),
			    SZ_1M, 0);
		sg_set_page(sg_next(sgt.sgl),
			    nth_page(base, cases[i].second * (SZ_1M >> PAGE_SHIFT)),
			    SZ_1M, 0);
		KUNIT_EXPECT_EQ_MSG(test,
				    vcm_iommu_count_sgt_ptes(SZ_4K | SZ_2M,
							     cases[i].iova, &sgt),
				    cases[i].ptes, "%s", cases[i].name);
	}
	sg_free_table(&sgt);
}

static struct kunit_case vcm_test_phys_cases[] = {
	KUNIT_CASE_PARAM(vcm_test_phys_errors, vcm_phys_gen_params),
	KUNIT_CASE(vcm_test_phys_cont_all_ram),
	KUNIT_CASE(vcm_test_phys_handles),
	KUNIT_CASE(vcm_test_err_handles),
	KUNIT_CASE_PARAM(vcm_test_phys_chunks, vcm_chunks_gen_params),
	KUNIT_CASE_PARAM(vcm_test_chunk_sizes, vcm_chunk_sizes_gen_params),
	KUNIT_CASE(vcm_test_phys_contiguous),
	KUNIT_CASE(vcm_test_phys_from_sgt),
	KUNIT_CASE(vcm_test_phys_from_sgt_contiguous),
	KUNIT_CASE(vcm_test_phys_wrap_errors),
	KUNIT_CASE(vcm_test_phys_pfn),
	KUNIT_CASE(vcm_test_phys_copy_refusals),
	KUNIT_CASE(vcm_test_phys_killed),
	KUNIT_CASE(vcm_test_phys_dma_addresses),
	KUNIT_CASE_PARAM(vcm_test_count_ptes, vcm_ptes_gen_params),
	KUNIT_CASE(vcm_test_count_sgt_ptes),
	{}
};

static struct kunit_suite vcm_test_phys_suite = {
	.name = "vcm_phys",
	.init = vcm_test_init,
	.test_cases = vcm_test_phys_cases,
};

kunit_test_suite(vcm_test_phys_suite);
