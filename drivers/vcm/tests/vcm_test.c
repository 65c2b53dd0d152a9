// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for VCM: the allocator, reservations, bounds, associations,
 * physical memory, the one-to-one and VMM kinds, and the cache policy.
 *
 * Each case checks on exit that every global gauge is back where it was,
 * so a leaked reservation, physmem or association fails the case that
 * leaked it.  The IOMMU kind needs a device behind an IOMMU and is tested
 * by the vcm_edu suite.
 */

#include <kunit/device.h>
#include <kunit/test.h>
#include <linux/anon_inodes.h>
#include <linux/completion.h>
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/file.h>
#include <linux/highmem.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/pfn.h>
#include <linux/sched.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>
#include <linux/vcm.h>

#include "../vcm_priv.h"
#include "vcm_test_util.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define RW		(VCM_READ | VCM_WRITE)
#define RW_CACHED	(RW | VCM_WB_WA)
#define RW_WC		(RW | VCM_WC)

/* A device VCM well inside any 40-bit DMA mask. */
#define DEV_START	SZ_1G
#define DEV_LEN		SZ_256M

struct vcm_test_ctx {
	long gauges[VCM_STAT_FIRST_EVENT];
};

static int vcm_test_init(struct kunit *test)
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

static void vcm_test_exit(struct kunit *test)
{
	struct vcm_test_ctx *ctx = test->priv;
	int i;

	for (i = 0; i < VCM_STAT_FIRST_EVENT; i++)
		KUNIT_EXPECT_EQ_MSG(test, vcm_stat_read(i), ctx->gauges[i],
				    "counter %s", vcm_stat_names[i]);
}

static struct vcm *new_dev_vcm(struct kunit *test)
{
	struct vcm *vcm = vcm_create(DEV_START, DEV_LEN);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, vcm);
	return vcm;
}

static struct vcm *new_kernel_vcm(struct kunit *test)
{
	struct vcm *vcm = vcm_create_from_prebuilt(VCM_PREBUILT_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, vcm);
	return vcm;
}

static struct vcm_physmem *new_phys(struct kunit *test, size_t len, u32 attr,
				    unsigned long pgsizes)
{
	struct vcm_physmem *pm = vcm_phys_alloc(VCM_MEMTYPE_SYSTEM, len, attr,
						pgsizes);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pm);
	return pm;
}

/* --- address space allocator --------------------------------------- */

static void vcm_test_space_aligned(struct kunit *test)
{
	static const size_t aligns[] = { SZ_4K, SZ_64K, SZ_2M, SZ_16M };
	unsigned long addr[ARRAY_SIZE(aligns)];
	struct vcm_space space;
	int i, j;

	KUNIT_ASSERT_EQ(test, vcm_space_init(&space, SZ_4K, SZ_64M - 1), 0);
	for (i = 0; i < ARRAY_SIZE(aligns); i++) {
		KUNIT_ASSERT_EQ(test, vcm_space_alloc(&space, SZ_4K, aligns[i],
						      &space, &addr[i]), 0);
		KUNIT_EXPECT_TRUE(test, IS_ALIGNED(addr[i], aligns[i]));
		KUNIT_EXPECT_GE(test, addr[i], (unsigned long)SZ_4K);
		KUNIT_EXPECT_LT(test, addr[i], (unsigned long)SZ_64M);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, addr[i], addr[j]);
		KUNIT_EXPECT_PTR_EQ(test, vcm_space_lookup(&space, addr[i] + 100),
				    (void *)&space);
	}
	KUNIT_EXPECT_EQ(test, space.used, ARRAY_SIZE(aligns) * SZ_4K);
	/* The first page of the space is not aligned to 64K: it went to 4K. */
	KUNIT_EXPECT_EQ(test, addr[0], (unsigned long)SZ_4K);

	for (i = 0; i < ARRAY_SIZE(aligns); i++)
		vcm_space_remove(&space, addr[i], SZ_4K);
	KUNIT_EXPECT_EQ(test, space.used, 0);
	KUNIT_EXPECT_NULL(test, vcm_space_lookup(&space, addr[1]));
	vcm_space_destroy(&space);
}

static void vcm_test_space_fragmentation(struct kunit *test)
{
	struct vcm_space space;
	unsigned long addr, a;
	int i;

	/* 16 pages; take them all, free every other one. */
	KUNIT_ASSERT_EQ(test, vcm_space_init(&space, 0, 16 * SZ_4K - 1), 0);
	for (i = 0; i < 16; i++) {
		KUNIT_ASSERT_EQ(test, vcm_space_alloc(&space, SZ_4K, SZ_4K, &space,
						      &addr), 0);
		KUNIT_EXPECT_EQ(test, addr, (unsigned long)i * SZ_4K);
	}
	KUNIT_EXPECT_EQ(test, vcm_space_alloc(&space, SZ_4K, SZ_4K, &space, &a),
			-ENOSPC);
	for (i = 0; i < 16; i += 2)
		vcm_space_remove(&space, i * SZ_4K, SZ_4K);

	/* Half the space is free, but no two pages in a row. */
	KUNIT_EXPECT_EQ(test, vcm_space_alloc(&space, 2 * SZ_4K, SZ_4K, &space, &a),
			-ENOSPC);

	/* Freeing page 5 makes 4-6 a hole of three; 8K aligned to 8K: 4-5. */
	vcm_space_remove(&space, 5 * SZ_4K, SZ_4K);
	KUNIT_EXPECT_EQ(test, vcm_space_alloc(&space, 2 * SZ_4K, 2 * SZ_4K, &space,
					      &a), 0);
	KUNIT_EXPECT_EQ(test, a, 4UL * SZ_4K);

	/*
	 * An aligned request that does not fit the lowest gap it could:
	 * free 9-11 (with 8 and 10 free already: 8-11); 16K aligned to 16K
	 * only fits at 8.
	 */
	vcm_space_remove(&space, 9 * SZ_4K, SZ_4K);
	vcm_space_remove(&space, 11 * SZ_4K, SZ_4K);
	KUNIT_EXPECT_EQ(test, vcm_space_alloc(&space, 4 * SZ_4K, 4 * SZ_4K, &space,
					      &a), 0);
	KUNIT_EXPECT_EQ(test, a, 8UL * SZ_4K);

	/* Fixed ranges: overlap and out of range. */
	KUNIT_EXPECT_EQ(test, vcm_space_insert(&space, 3 * SZ_4K, SZ_4K, &space),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, vcm_space_insert(&space, 15 * SZ_4K, 2 * SZ_4K, &space),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, vcm_space_insert(&space, 14 * SZ_4K, SZ_4K, &space), 0);
	vcm_space_destroy(&space);
}

/* --- regions --------------------------------------------------------- */

static void vcm_test_create_errors(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_create(0, 0)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_create(100, SZ_1M)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_create(0, SZ_1M + 1)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_create(U64_MAX & PAGE_MASK, SZ_1M)),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_create_one_to_one(0, 0)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_create_from_prebuilt(0)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_create_from_prebuilt(3)), -EINVAL);
	/* A kernel thread has no user address space. */
	if (!current->mm)
		KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_create_from_prebuilt(VCM_PREBUILT_USER)),
				-EINVAL);

	KUNIT_EXPECT_EQ(test, vcm_free(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_free(ERR_PTR(-ENOMEM)), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_get_len(NULL), 0);
	KUNIT_EXPECT_EQ(test, vcm_get_start_addr(NULL), DMA_MAPPING_ERROR);
	KUNIT_EXPECT_EQ(test, vcm_get_type(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_get_pgsize_bitmap(NULL), 0);
	KUNIT_EXPECT_EQ(test, vcm_get_min_page_size(), PAGE_SIZE);
}

static void vcm_test_create_free(struct kunit *test)
{
	struct vcm *dev = new_dev_vcm(test), *k = new_kernel_vcm(test);
	struct vcm *o = vcm_create_one_to_one(0, SZ_4G);
	struct vcm_res *res;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, o);
	KUNIT_EXPECT_EQ(test, vcm_get_type(dev), VCM_DEVICE);
	KUNIT_EXPECT_EQ(test, vcm_get_type(k), VCM_EXT_KERNEL);
	KUNIT_EXPECT_EQ(test, vcm_get_type(o), VCM_ONE_TO_ONE);
	KUNIT_EXPECT_EQ(test, vcm_get_start_addr(dev), (dma_addr_t)DEV_START);
	KUNIT_EXPECT_EQ(test, vcm_get_len(dev), (size_t)DEV_LEN);
	/* No domain yet: base pages only. */
	KUNIT_EXPECT_EQ(test, vcm_get_pgsize_bitmap(dev), PAGE_SIZE);

	res = vcm_reserve(dev, SZ_64K, RW);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	KUNIT_EXPECT_EQ(test, vcm_free(dev), -EBUSY);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(res), 0);

	KUNIT_EXPECT_EQ(test, vcm_free(dev), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(k), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(o), 0);
}

/* --- reservations ---------------------------------------------------- */

static void vcm_test_reserve(struct kunit *test)
{
	struct vcm *vcm = new_dev_vcm(test);
	struct vcm_res *a, *b, *c;
	dma_addr_t addr;

	a = vcm_reserve(vcm, SZ_2M, RW);
	b = vcm_reserve(vcm, SZ_64K + SZ_4K, RW | VCM_ALIGN_1M);
	c = vcm_reserve(vcm, SZ_4K, VCM_READ);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c);

	addr = vcm_get_dev_addr(a);
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED(addr, SZ_2M));
	KUNIT_EXPECT_GE(test, addr, (dma_addr_t)DEV_START);
	KUNIT_EXPECT_LE(test, addr + SZ_2M, (dma_addr_t)DEV_START + DEV_LEN);
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED(vcm_get_dev_addr(b), SZ_1M));
	KUNIT_EXPECT_EQ(test, vcm_get_res_len(b), (size_t)SZ_64K + SZ_4K);
	KUNIT_EXPECT_EQ(test, vcm_get_res_attr(c), (u32)VCM_READ);
	KUNIT_EXPECT_PTR_EQ(test, vcm_get_vcm_from_res(c), vcm);

	/* Lookup by any address inside, iteration in creation order. */
	KUNIT_EXPECT_PTR_EQ(test, vcm_get_res(vcm, addr + SZ_1M + 3), a);
	KUNIT_EXPECT_NULL(test, vcm_get_res(vcm, addr + SZ_2M + SZ_1G));
	KUNIT_EXPECT_EQ(test, vcm_get_num_res(vcm), 3);
	KUNIT_EXPECT_PTR_EQ(test, vcm_get_next_res(vcm, NULL), a);
	KUNIT_EXPECT_PTR_EQ(test, vcm_get_next_res(vcm, a), b);
	KUNIT_EXPECT_PTR_EQ(test, vcm_get_next_res(vcm, b), c);
	KUNIT_EXPECT_NULL(test, vcm_get_next_res(vcm, c));

	/* Unbacked: no backing, no PTEs. */
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_get_physmem_from_res(a)), -ENOENT);
	KUNIT_EXPECT_EQ(test, vcm_get_res_num_ptes(a), 0);
	KUNIT_EXPECT_EQ(test, vcm_unback(a), -ENOENT);

	KUNIT_EXPECT_EQ(test, vcm_unreserve(b), 0);
	KUNIT_EXPECT_PTR_EQ(test, vcm_get_next_res(vcm, a), c);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(a), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(c), 0);
	KUNIT_EXPECT_EQ(test, vcm_get_num_res(vcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(vcm), 0);
}

struct vcm_attr_case {
	const char *name;
	size_t len;
	u32 attr;
	int err;
};

static const struct vcm_attr_case vcm_reserve_cases[] = {
	{ "zero length", 0, RW, -EINVAL },
	{ "partial page", SZ_4K + 1, RW, -EINVAL },
	{ "larger than the VCM", DEV_LEN + SZ_4K, RW, -ENOSPC },
	{ "huge", SIZE_MAX & PAGE_MASK, RW, -ENOSPC },
	{ "unknown attribute", SZ_4K, RW | BIT(20), -EINVAL },
	{ "unknown cache policy", SZ_4K, VCM_READ | 0x5, -EINVAL },
	{ "write-through", SZ_4K, RW | VCM_WT, -EINVAL },
	{ "write-back no write-allocate", SZ_4K, RW | VCM_WB_NWA, -EINVAL },
	{ "alignment below a page", SZ_4K, RW | VCM_ALIGN_ATTR(11), -EINVAL },
	{ "alignment above 1G", SZ_4K, RW | VCM_ALIGN_ATTR(31), -EINVAL },
	{ "no access", SZ_4K, VCM_WB_WA, -EINVAL },
	{ "secure", SZ_4K, RW | VCM_SECURE, -EOPNOTSUPP },
};

static void vcm_attr_case_desc(const struct vcm_attr_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(vcm_reserve, vcm_reserve_cases, vcm_attr_case_desc);

static void vcm_test_reserve_errors(struct kunit *test)
{
	const struct vcm_attr_case *c = test->param_value;
	struct vcm *vcm = new_dev_vcm(test);
	struct vcm_res *res;

	res = vcm_reserve(vcm, c->len, c->attr);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(res), c->err);
	if (!IS_ERR(res))
		vcm_unreserve(res);
	KUNIT_EXPECT_EQ(test, vcm_get_num_res(vcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(vcm), 0);
}

static void vcm_test_reserve_exhaust(struct kunit *test)
{
	struct vcm *vcm = vcm_create(DEV_START, 4 * SZ_64K);
	struct vcm_res *res[4];
	int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, vcm);
	for (i = 0; i < 4; i++) {
		res[i] = vcm_reserve(vcm, SZ_64K, RW);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res[i]);
	}
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve(vcm, SZ_4K, RW)), -ENOSPC);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(res[2]), 0);
	/* The hole is reused, and only it. */
	res[2] = vcm_reserve(vcm, SZ_64K, RW);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res[2]);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(res[2]), (dma_addr_t)DEV_START + 2 * SZ_64K);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, vcm_unreserve(res[i]), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(vcm), 0);
}

static void vcm_test_reserve_at(struct kunit *test)
{
	struct vcm *vcm = new_dev_vcm(test), *k = new_kernel_vcm(test);
	struct vcm_res *res;

	res = vcm_reserve_at(vcm, DEV_START + SZ_1M, SZ_1M, RW);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(res), (dma_addr_t)DEV_START + SZ_1M);

	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve_at(vcm, DEV_START + SZ_1M + SZ_64K,
						     SZ_4K, RW)), -EBUSY);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve_at(vcm, DEV_START - SZ_4K,
						     SZ_4K, RW)), -ERANGE);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve_at(vcm, DEV_START + DEV_LEN - SZ_4K,
						     SZ_64K, RW)), -ERANGE);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve_at(vcm, DEV_START + 100,
						     SZ_4K, RW)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve_at(vcm, DEV_START + SZ_4K, SZ_4K,
						     RW | VCM_ALIGN_64K)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve_at(k, VMALLOC_START, SZ_4K,
						     RW_CACHED)), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve_at(NULL, DEV_START, SZ_4K, RW)),
			-EINVAL);

	/* Automatic reservations go around the fixed one. */
	KUNIT_EXPECT_NE(test, vcm_get_dev_addr(vcm_reserve(vcm, SZ_1M, RW)),
			(dma_addr_t)DEV_START + SZ_1M);
	KUNIT_EXPECT_EQ(test, vcm_get_num_res(vcm), 2);

	while ((res = vcm_get_next_res(vcm, NULL)))
		KUNIT_ASSERT_EQ(test, vcm_unreserve(res), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(vcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(k), 0);
}

static void vcm_test_res_attr(struct kunit *test)
{
	struct vcm *vcm = new_kernel_vcm(test);
	struct vcm_physmem *pm = new_phys(test, SZ_64K, 0, 0);
	struct vcm_res *res = vcm_reserve(vcm, SZ_64K, VCM_READ | VCM_WB_WA);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	/* No device memory, write-through or no-write-allocate for RAM. */
	KUNIT_EXPECT_EQ(test, vcm_set_res_attr(res, RW | VCM_NOTCACHED), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_set_res_attr(res, RW | VCM_WT), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_set_res_attr(res, RW | VCM_WB_NWA), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_set_res_attr(res, RW_WC), 0);
	KUNIT_EXPECT_EQ(test, vcm_get_res_attr(res), (u32)RW_WC);
	KUNIT_EXPECT_EQ(test, vcm_set_res_attr(res, RW | 0x7), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_set_res_attr(res, RW | VCM_EXECUTE), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_set_res_attr(NULL, RW), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_get_res_attr(NULL), 0);

	KUNIT_ASSERT_EQ(test, vcm_back(res, pm), 0);
	KUNIT_EXPECT_EQ(test, vcm_set_res_attr(res, RW_CACHED), -EBUSY);
	KUNIT_EXPECT_EQ(test, vcm_get_res_attr(res), (u32)RW_WC);
	KUNIT_EXPECT_EQ(test, vcm_unback(res), 0);
	KUNIT_EXPECT_EQ(test, vcm_set_res_attr(res, RW_CACHED), 0);

	KUNIT_EXPECT_EQ(test, vcm_unreserve(res), 0);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(pm), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(vcm), 0);

	/* A placed reservation keeps its address: only alignments it has. */
	vcm = new_dev_vcm(test);
	res = vcm_reserve_at(vcm, DEV_START + SZ_64K, SZ_64K, RW);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	KUNIT_EXPECT_EQ(test, vcm_set_res_attr(res, RW | VCM_ALIGN_64K), 0);
	KUNIT_EXPECT_EQ(test, vcm_set_res_attr(res, RW | VCM_ALIGN_1M), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(res), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(vcm), 0);
}

/* --- bounds ---------------------------------------------------------- */

static void vcm_test_bound(struct kunit *test)
{
	struct vcm *vcm = new_dev_vcm(test), *k = new_kernel_vcm(test);
	struct vcm_bound *bound;
	struct vcm_res *in[2], *out;
	dma_addr_t start;
	int i;

	bound = vcm_create_bound(vcm, SZ_2M);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, bound);
	start = vcm_get_bound_start_addr(bound);
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED(start, SZ_2M));
	KUNIT_EXPECT_EQ(test, vcm_get_bound_len(bound), (size_t)SZ_2M);

	for (i = 0; i < 2; i++) {
		in[i] = vcm_reserve_from_bound(bound, SZ_1M, RW);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, in[i]);
		KUNIT_EXPECT_GE(test, vcm_get_dev_addr(in[i]), start);
		KUNIT_EXPECT_LT(test, vcm_get_dev_addr(in[i]), start + SZ_2M);
		KUNIT_EXPECT_PTR_EQ(test, vcm_get_res(vcm, vcm_get_dev_addr(in[i])),
				    in[i]);
	}
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve_from_bound(bound, SZ_4K, RW)),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve_from_bound(bound, SZ_4M, RW)),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve_from_bound(bound, 0, RW)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve_from_bound(NULL, SZ_4K, RW)),
			-EINVAL);

	/* Reservations outside bounds stay outside. */
	out = vcm_reserve(vcm, SZ_2M, RW);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, out);
	KUNIT_EXPECT_NE(test, vcm_get_dev_addr(out), start);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve_at(vcm, start, SZ_4K, RW)), -EBUSY);

	KUNIT_EXPECT_EQ(test, vcm_free(vcm), -EBUSY);
	KUNIT_EXPECT_EQ(test, vcm_free_bound(bound), -EBUSY);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(in[0]), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(in[1]), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(out), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(vcm), -EBUSY);
	KUNIT_EXPECT_EQ(test, vcm_free_bound(bound), 0);

	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_create_bound(k, SZ_1M)), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_create_bound(vcm, 0)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_create_bound(vcm, DEV_LEN * 2)), -ENOSPC);
	KUNIT_EXPECT_EQ(test, vcm_get_bound_start_addr(NULL), DMA_MAPPING_ERROR);
	KUNIT_EXPECT_EQ(test, vcm_get_bound_len(NULL), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(vcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(k), 0);
}

/* --- physical memory ------------------------------------------------- */

static const struct vcm_attr_case vcm_phys_cases[] = {
	{ "zero length", 0, 0, -EINVAL },
	{ "partial page", SZ_4K + 1, 0, -EINVAL },
	{ "unknown attribute", SZ_4K, BIT(7), -EINVAL },
	{ "alignment without contiguous", SZ_4K, VCM_ALIGN_1M, -EINVAL },
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

static void vcm_test_phys_handles(struct kunit *test)
{
	unsigned int cursor = 0;
	phys_addr_t phys;
	size_t len;

	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_alloc(VCM_MEMTYPE_INVALID, SZ_4K, 0, 0)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_alloc(VCM_MEMTYPE_FOREIGN, SZ_4K, 0, 0)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_get_physmem_len(NULL), 0);
	KUNIT_EXPECT_EQ(test, vcm_get_memtype_of_physalloc(NULL), VCM_MEMTYPE_INVALID);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_get_physmem_sgt(NULL)), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_get_next_phys_addr(NULL, &cursor, &phys, &len),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_get_physmem_from_res(NULL)), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_back(NULL, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_unback(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_res_copy(NULL, 0, NULL, 0, 1), -EINVAL);
}

/*
 * NULL and ERR_PTR() handles are all the API rejects: using a handle after
 * freeing it is a bug of the caller's, not an error (see "Ownership and
 * lifetimes" in vcm.rst), so no case passes stale handles.
 */
static void vcm_test_err_handles(struct kunit *test)
{
	struct device *dev = kunit_device_register(test, "vcm-handles");
	struct vcm *vcm = new_dev_vcm(test);
	struct vcm_physmem *pm = new_phys(test, SZ_64K, 0, 0);
	struct vcm_res *res = vcm_reserve(vcm, SZ_64K, RW);
	void *const bad[] = { NULL, ERR_PTR(-ENOMEM) };
	unsigned int cursor = 0;
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
		KUNIT_EXPECT_EQ(test, vcm_get_start_addr(h), DMA_MAPPING_ERROR);
		KUNIT_EXPECT_EQ(test, vcm_get_len(h), 0);
		KUNIT_EXPECT_EQ(test, vcm_get_type(h), -EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_get_pgsize_bitmap(h), 0);
		KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve(h, SZ_4K, RW)), -EINVAL);
		KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve_at(h, DEV_START, SZ_4K, RW)),
				-EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_get_num_res(h), 0);
		KUNIT_EXPECT_NULL(test, vcm_get_next_res(h, NULL));
		KUNIT_EXPECT_NULL(test, vcm_get_res(h, DEV_START));
		KUNIT_EXPECT_EQ(test, vcm_translate(h, DEV_START, vcm, &out), -EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_translate(vcm, DEV_START, h, &out), -EINVAL);
		KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_assoc(h, dev, 0)), -EINVAL);
		KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_create_bound(h, SZ_1M)), -EINVAL);
		KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_from_dma(h, vcm_get_physmem_sgt(pm))),
				-EINVAL);

		/* Reservations */
		KUNIT_EXPECT_EQ(test, vcm_unreserve(h), -EINVAL);
		KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_get_vcm_from_res(h)), -EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_get_res_len(h), 0);
		KUNIT_EXPECT_EQ(test, vcm_set_res_attr(h, RW), -EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_get_res_attr(h), 0);
		KUNIT_EXPECT_EQ(test, vcm_res_copy(h, 0, res, 0, 1), -EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_res_copy(res, 0, h, 0, 1), -EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(h), DMA_MAPPING_ERROR);
		KUNIT_EXPECT_NULL(test, vcm_get_vaddr(h));
		KUNIT_EXPECT_EQ(test, vcm_get_res_num_ptes(h), 0);
		KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_get_physmem_from_res(h)), -EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_back(h, pm), -EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_unback(h), -EINVAL);

		/* Associations */
		KUNIT_EXPECT_EQ(test, vcm_deassoc(h), -EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_set_assoc_attr(h, 0), -EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_get_assoc_attr(h), 0);
		KUNIT_EXPECT_EQ(test, vcm_activate(h), -EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_deactivate(h), -EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_is_active(h), -EINVAL);

		/* Bounds */
		KUNIT_EXPECT_EQ(test, vcm_free_bound(h), -EINVAL);
		KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve_from_bound(h, SZ_4K, RW)),
				-EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_get_bound_start_addr(h), DMA_MAPPING_ERROR);
		KUNIT_EXPECT_EQ(test, vcm_get_bound_len(h), 0);

		/* Physmems */
		KUNIT_EXPECT_EQ(test, vcm_back(res, h), -EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_phys_free(h), -EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_get_physmem_len(h), 0);
		KUNIT_EXPECT_EQ(test, vcm_get_memtype_of_physalloc(h),
				VCM_MEMTYPE_INVALID);
		KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_get_physmem_sgt(h)), -EINVAL);
		cursor = 0;
		KUNIT_EXPECT_EQ(test, vcm_get_next_phys_addr(h, &cursor, &phys, &len),
				-EINVAL);
		cursor = 7;
		vcm_for_each_phys_chunk(h, cursor, phys, len)
			n++;
		KUNIT_EXPECT_EQ(test, n, 0);
		KUNIT_EXPECT_EQ(test, cursor, 0);
	}

	/* Where NULL means "from the start", an ERR_PTR() is still refused. */
	KUNIT_EXPECT_NULL(test, vcm_get_next_res(vcm, ERR_PTR(-ENOMEM)));
	KUNIT_EXPECT_NULL(test, vcm_get_next_phys_res(0, ERR_PTR(-ENOMEM), NULL));

	/* The refusals left the live handles alone. */
	KUNIT_EXPECT_EQ(test, vcm_get_num_res(vcm), 1);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_get_physmem_from_res(res)), -ENOENT);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(res), 0);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(pm), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(vcm), 0);
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
	KUNIT_EXPECT_EQ(test, vcm_phys_free(pm), 0);
}

static void vcm_test_phys_contiguous(struct kunit *test)
{
	struct vcm_physmem *pm = new_phys(test, SZ_2M + SZ_4K,
					  VCM_PHYS_CONT | VCM_ALIGN_1M, 0);
	struct vcm_physmem *wrap;
	unsigned int cursor = 0;
	phys_addr_t phys, p2;
	size_t len, l2;
	u32 *p;

	KUNIT_ASSERT_EQ(test, vcm_get_next_phys_addr(pm, &cursor, &phys, &len), 0);
	KUNIT_EXPECT_EQ(test, len, (size_t)SZ_2M + SZ_4K);
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED(phys, SZ_1M));
	KUNIT_EXPECT_EQ(test, vcm_get_next_phys_addr(pm, &cursor, &p2, &l2), -ENOENT);

	/* CMA memory is zeroed too. */
	p = kmap_local_page(phys_to_page(phys + SZ_2M));
	KUNIT_EXPECT_EQ(test, p[0] | p[1023], 0);
	kunmap_local(p);

	/* The same range wrapped as a carve-out. */
	wrap = vcm_phys_from_range(phys, SZ_2M);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, wrap);
	KUNIT_EXPECT_EQ(test, vcm_get_memtype_of_physalloc(wrap), VCM_MEMTYPE_FOREIGN);
	cursor = 0;
	KUNIT_ASSERT_EQ(test, vcm_get_next_phys_addr(wrap, &cursor, &p2, &l2), 0);
	KUNIT_EXPECT_EQ(test, p2, phys);
	KUNIT_EXPECT_EQ(test, l2, (size_t)SZ_2M);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(wrap), 0);

	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_from_range(phys + 1, SZ_4K)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_from_range(phys, 0)), -EINVAL);
	KUNIT_EXPECT_EQ(test,
			PTR_ERR(vcm_phys_from_range(PHYS_ADDR_MAX & PAGE_MASK, SZ_64K)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(pm), 0);
}

static void vcm_test_phys_from_sgt(struct kunit *test)
{
	struct vcm *k = new_kernel_vcm(test);
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

	pm = vcm_phys_from_sgt(&sgt, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pm);
	KUNIT_EXPECT_EQ(test, vcm_get_physmem_len(pm), 3 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, vcm_get_memtype_of_physalloc(pm), VCM_MEMTYPE_FOREIGN);

	/* The kernel VCM sees the foreign pages, in order. */
	res = vcm_reserve(k, 3 * PAGE_SIZE, RW_CACHED);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	KUNIT_ASSERT_EQ(test, vcm_back(res, pm), 0);
	vaddr = vcm_get_vaddr(res);
	KUNIT_ASSERT_NOT_NULL(test, vaddr);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, vaddr[i * PAGE_SIZE / 4], 0xf00d0000 + i);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(pm), -EBUSY);
	KUNIT_EXPECT_EQ(test, vcm_unback(res), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(res), 0);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(pm), 0);

	/* The pages are the owner's: still there. */
	sg_free_table(&sgt);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, page_ref_count(pages[i]), 1);
		__free_page(pages[i]);
	}
	KUNIT_EXPECT_EQ(test, vcm_free(k), 0);
}

/* --- backing, the VMM kinds and the cache policy ---------------------- */

static void vcm_test_back_kernel(struct kunit *test)
{
	struct vcm *k = new_kernel_vcm(test);
	struct vcm_physmem *pm = new_phys(test, SZ_2M + SZ_64K, 0, 0);
	struct vcm_res *res = vcm_reserve(k, SZ_2M + SZ_64K, RW_CACHED);
	struct vcm_res *small = vcm_reserve(k, SZ_64K, RW_CACHED);
	size_t off;
	u32 *vaddr;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, small);
	/* Kernel reservations are placed by vmalloc when backed. */
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(res), DMA_MAPPING_ERROR);
	KUNIT_EXPECT_NULL(test, vcm_get_vaddr(res));

	vcm_fill_pattern(pm, 0x1000);
	KUNIT_EXPECT_EQ(test, vcm_back(small, pm), -EINVAL);
	KUNIT_ASSERT_EQ(test, vcm_back(res, pm), 0);
	KUNIT_EXPECT_EQ(test, vcm_back(res, pm), -EBUSY);
	KUNIT_EXPECT_PTR_EQ(test, vcm_get_physmem_from_res(res), pm);
	vaddr = vcm_get_vaddr(res);
	KUNIT_ASSERT_NOT_NULL(test, vaddr);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(res), (dma_addr_t)(uintptr_t)vaddr);
	KUNIT_EXPECT_PTR_EQ(test, vcm_get_res(k, (uintptr_t)vaddr + SZ_1M), res);

	/* The vmap shows the chunks in order, across chunk boundaries. */
	for (off = 0; off < SZ_2M + SZ_64K; off += SZ_4K + 4)
		KUNIT_EXPECT_EQ(test, vaddr[off / 4], vcm_pattern_at(pm, 0x1000, off));
	vaddr[5] = 0xcafe;
	KUNIT_EXPECT_EQ(test, vcm_res_copy(small, 0, res, 0, 64), -ENOENT);

	KUNIT_EXPECT_EQ(test, vcm_unback(res), 0);
	KUNIT_EXPECT_EQ(test, vcm_unback(res), -ENOENT);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(res), DMA_MAPPING_ERROR);
	vcm_fill_pattern(pm, 0); /* rewrites all but proves the page is alive */
	KUNIT_EXPECT_EQ(test, vcm_unreserve(res), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(small), 0);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(pm), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(k), 0);
}

static void vcm_test_cache_conflict(struct kunit *test)
{
	struct vcm *k = new_kernel_vcm(test), *dev = new_dev_vcm(test);
	struct vcm_physmem *pm = new_phys(test, SZ_64K, 0, 0);
	struct vcm_physmem *coh = new_phys(test, SZ_64K, VCM_COHERENT, 0);
	struct vcm_res *cached = vcm_reserve(k, SZ_64K, RW_CACHED);
	struct vcm_res *wc = vcm_reserve(k, SZ_64K, RW_WC);
	struct vcm_res *nc = vcm_reserve(dev, SZ_64K, RW | VCM_NOTCACHED);
	long conflicts = vcm_stat_read(VCM_STAT_CONFLICTS);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cached);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, wc);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, nc);
	/* The CPU does not map RAM as device memory. */
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve(k, SZ_64K, RW | VCM_NOTCACHED)),
			-EINVAL);

	KUNIT_ASSERT_EQ(test, vcm_back(cached, pm), 0);
	KUNIT_EXPECT_EQ(test, vcm_back(wc, pm), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_back(nc, pm), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_stat_read(VCM_STAT_CONFLICTS), conflicts + 2);
	/* The refused backings left nothing behind. */
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_get_physmem_from_res(wc)), -ENOENT);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(wc), DMA_MAPPING_ERROR);

	/* Once the cached mapping is gone the class is free again. */
	KUNIT_EXPECT_EQ(test, vcm_unback(cached), 0);
	KUNIT_EXPECT_EQ(test, vcm_back(wc, pm), 0);
	KUNIT_EXPECT_EQ(test, vcm_back(cached, pm), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_unback(wc), 0);

	/* Coherent memory is never mapped cacheable. */
	KUNIT_EXPECT_EQ(test, vcm_back(cached, coh), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_back(nc, coh), 0);
	KUNIT_EXPECT_EQ(test, vcm_unback(nc), 0);

	vcm_unreserve(cached);
	vcm_unreserve(wc);
	vcm_unreserve(nc);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(pm), 0);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(coh), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(k), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(dev), 0);
}

static void vcm_test_cache_maintenance(struct kunit *test)
{
	struct vcm *k = new_kernel_vcm(test);
	struct vcm_physmem *pm = new_phys(test, SZ_128K, 0, SZ_64K);
	struct vcm_res *cached = vcm_reserve(k, SZ_128K, RW_CACHED);
	struct vcm_res *wc = vcm_reserve(k, SZ_128K, RW_WC);
	long maint = vcm_stat_read(VCM_STAT_CACHE_MAINT);
	size_t off;
	u32 *v;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cached);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, wc);

	/* Written through the cacheable linear map... */
	vcm_fill_pattern(pm, 0x77);
	/* ...cleaned when first mapped write-combined, once per chunk. */
	KUNIT_ASSERT_EQ(test, vcm_back(wc, pm), 0);
	KUNIT_EXPECT_EQ(test, vcm_stat_read(VCM_STAT_CACHE_MAINT), maint + 2);
	v = vcm_get_vaddr(wc);
	for (off = 0; off < SZ_128K; off += 1020)
		KUNIT_EXPECT_EQ(test, v[off / 4], vcm_pattern_at(pm, 0x77, off));
	KUNIT_EXPECT_EQ(test, vcm_unback(wc), 0);

	/* Clean already, and nothing cacheable happened since: no work. */
	KUNIT_ASSERT_EQ(test, vcm_back(wc, pm), 0);
	KUNIT_EXPECT_EQ(test, vcm_stat_read(VCM_STAT_CACHE_MAINT), maint + 2);
	KUNIT_EXPECT_EQ(test, vcm_unback(wc), 0);

	/* A cacheable mapping in between dirties it again. */
	KUNIT_ASSERT_EQ(test, vcm_back(cached, pm), 0);
	((u32 *)vcm_get_vaddr(cached))[0] = 0x5eed;
	KUNIT_EXPECT_EQ(test, vcm_unback(cached), 0);
	KUNIT_ASSERT_EQ(test, vcm_back(wc, pm), 0);
	KUNIT_EXPECT_EQ(test, vcm_stat_read(VCM_STAT_CACHE_MAINT), maint + 4);
	KUNIT_EXPECT_EQ(test, ((u32 *)vcm_get_vaddr(wc))[0], 0x5eed);
	KUNIT_EXPECT_EQ(test, vcm_unback(wc), 0);

	vcm_unreserve(cached);
	vcm_unreserve(wc);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(pm), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(k), 0);
}

static void vcm_test_one_to_one(struct kunit *test)
{
	struct device *dev = kunit_device_register(test, "vcm-o2o");
	struct vcm_physmem *cont = new_phys(test, SZ_64K, VCM_PHYS_CONT, 0);
	struct vcm_physmem *scattered = new_phys(test, SZ_64K, 0, PAGE_SIZE);
	struct vcm *o, *far;
	struct vcm_avcm *avcm;
	struct vcm_res *r1, *r2;
	unsigned int cursor = 0;
	phys_addr_t phys, got;
	size_t len;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	KUNIT_ASSERT_EQ(test, vcm_get_next_phys_addr(cont, &cursor, &phys, &len), 0);

	o = vcm_create_one_to_one(0, SZ_4G);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, o);
	avcm = vcm_assoc(o, dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, avcm);
	KUNIT_ASSERT_EQ(test, vcm_activate(avcm), 0);
	/* DMA addresses are wrapped for IOMMU VCMs only. */
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_from_dma(avcm, vcm_get_physmem_sgt(cont))),
			-EINVAL);

	r1 = vcm_reserve(o, SZ_64K, RW);
	r2 = vcm_reserve(o, SZ_64K, RW);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r1);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r2);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(r1), DMA_MAPPING_ERROR);

	/* Scattered memory cannot be seen one-to-one. */
	KUNIT_EXPECT_EQ(test, vcm_back(r1, scattered), -EINVAL);
	KUNIT_ASSERT_EQ(test, vcm_back(r1, cont), 0);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(r1), (dma_addr_t)phys);
	/* The physical range is taken in this VCM. */
	KUNIT_EXPECT_EQ(test, vcm_back(r2, cont), -EBUSY);
	KUNIT_EXPECT_PTR_EQ(test, vcm_get_res(o, phys + SZ_4K), r1);

	KUNIT_EXPECT_EQ(test, vcm_dev_addr_to_phys_addr(dev, phys + 0x123, &got), 0);
	KUNIT_EXPECT_EQ(test, got, phys + 0x123);
	KUNIT_EXPECT_EQ(test, vcm_dev_addr_to_phys_addr(dev, phys + SZ_64K, &got),
			-ENOENT);

	KUNIT_EXPECT_EQ(test, vcm_unback(r1), 0);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(r1), DMA_MAPPING_ERROR);
	vcm_unreserve(r1);
	vcm_unreserve(r2);

	/* Memory outside the VCM's physical range. */
	far = vcm_create_one_to_one(SZ_4K, SZ_64K);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, far);
	r1 = vcm_reserve(far, SZ_64K, RW);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r1);
	KUNIT_EXPECT_EQ(test, vcm_back(r1, cont), -ERANGE);
	vcm_unreserve(r1);
	KUNIT_EXPECT_EQ(test, vcm_free(far), 0);

	KUNIT_EXPECT_EQ(test, vcm_deactivate(avcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_dev_addr_to_phys_addr(dev, phys, &got), -ENODEV);
	KUNIT_EXPECT_EQ(test, vcm_deassoc(avcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(o), 0);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(cont), 0);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(scattered), 0);
}

static void vcm_test_assoc(struct kunit *test)
{
	struct device *dev = kunit_device_register(test, "vcm-assoc");
	struct vcm *vcm = new_dev_vcm(test), *k = new_kernel_vcm(test);
	struct vcm_avcm *avcm;
	char name[16];

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	/* The KUnit device is behind no IOMMU. */
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_assoc(vcm, dev, 0)), -ENODEV);
	KUNIT_EXPECT_EQ(test, vcm_hook(dev, NULL, NULL), -ENODEV);
	KUNIT_EXPECT_EQ(test, vcm_hook(NULL, NULL, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_get_iommu_name(dev, name, sizeof(name)), -ENODEV);
	KUNIT_EXPECT_EQ(test, vcm_get_iommu_name(NULL, name, sizeof(name)), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_get_iommu_name(dev, name, 0), -EINVAL);

	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_assoc(k, NULL, 0)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_assoc(NULL, dev, 0)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_assoc(k, dev, BIT(9))), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_assoc(k, dev, VCM_USE_HIGH_BASE)), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_assoc(k, dev, VCM_SPLIT)), -EOPNOTSUPP);

	avcm = vcm_assoc(k, dev, VCM_USE_LOW_BASE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, avcm);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_assoc(k, dev, 0)), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_get_assoc_attr(avcm), (u32)VCM_USE_LOW_BASE);
	KUNIT_EXPECT_EQ(test, vcm_free(k), -EBUSY);

	KUNIT_EXPECT_EQ(test, vcm_is_active(avcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_deactivate(avcm), -ENOENT);
	KUNIT_EXPECT_EQ(test, vcm_activate(avcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_is_active(avcm), 1);
	KUNIT_EXPECT_EQ(test, vcm_activate(avcm), -EBUSY);
	KUNIT_EXPECT_EQ(test, vcm_set_assoc_attr(avcm, 0), -EBUSY);
	KUNIT_EXPECT_EQ(test, vcm_deassoc(avcm), -EBUSY);
	KUNIT_EXPECT_EQ(test, vcm_deactivate(avcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_set_assoc_attr(avcm, 0), 0);
	KUNIT_EXPECT_EQ(test, vcm_set_assoc_attr(avcm, VCM_SPLIT), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, vcm_get_assoc_attr(avcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_deassoc(avcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_activate(NULL), -EINVAL);

	KUNIT_EXPECT_EQ(test, vcm_free(k), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(vcm), 0);
}

/* One physmem, three VCMs: translation and reverse lookups. */
static void vcm_test_shared_physmem(struct kunit *test)
{
	struct vcm *k = new_kernel_vcm(test), *d1 = new_dev_vcm(test);
	struct vcm *d2 = vcm_create(SZ_4G, SZ_1G);
	struct vcm_physmem *pm = new_phys(test, SZ_1M, 0, 0);
	struct vcm_res *rk, *r1, *r2, *it;
	unsigned int cursor = 0;
	dma_addr_t out;
	phys_addr_t phys;
	size_t len, n = 0;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, d2);
	rk = vcm_reserve(k, SZ_1M, RW_CACHED);
	r1 = vcm_reserve(d1, SZ_1M, RW_CACHED);
	r2 = vcm_reserve(d2, SZ_1M, RW_CACHED);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, rk);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r1);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r2);
	KUNIT_ASSERT_EQ(test, vcm_back(rk, pm), 0);
	KUNIT_ASSERT_EQ(test, vcm_back(r1, pm), 0);
	KUNIT_ASSERT_EQ(test, vcm_back(r2, pm), 0);

	KUNIT_ASSERT_EQ(test, vcm_translate(d1, vcm_get_dev_addr(r1) + 0x1234, d2,
					    &out), 0);
	KUNIT_EXPECT_EQ(test, out, vcm_get_dev_addr(r2) + 0x1234);
	KUNIT_ASSERT_EQ(test, vcm_translate(k, vcm_get_dev_addr(rk) + 8, d1, &out), 0);
	KUNIT_EXPECT_EQ(test, out, vcm_get_dev_addr(r1) + 8);
	KUNIT_EXPECT_EQ(test, vcm_translate(d1, vcm_get_dev_addr(r1) + SZ_1M, d2, &out),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, vcm_translate(d1, vcm_get_dev_addr(r1), NULL, &out),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_translate(d1, vcm_get_dev_addr(r1), d2, NULL),
			-EINVAL);

	KUNIT_ASSERT_EQ(test, vcm_get_next_phys_addr(pm, &cursor, &phys, &len), 0);
	KUNIT_EXPECT_EQ(test, vcm_get_phys_num_res(phys + 100), 3);
	for (it = vcm_get_next_phys_res(phys, NULL, &len); it;
	     it = vcm_get_next_phys_res(phys, it, &len)) {
		KUNIT_EXPECT_TRUE(test, it == rk || it == r1 || it == r2);
		KUNIT_EXPECT_EQ(test, len, (size_t)SZ_1M);
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, 3);

	/* Unbacking one leaves the others. */
	KUNIT_EXPECT_EQ(test, vcm_unback(r2), 0);
	KUNIT_EXPECT_EQ(test, vcm_get_phys_num_res(phys), 2);
	KUNIT_EXPECT_EQ(test, vcm_translate(d1, vcm_get_dev_addr(r1), d2, &out),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(pm), -EBUSY);
	KUNIT_EXPECT_EQ(test, vcm_unback(r1), 0);
	KUNIT_EXPECT_EQ(test, vcm_unback(rk), 0);
	KUNIT_EXPECT_EQ(test, vcm_get_phys_num_res(phys), 0);
	KUNIT_EXPECT_NULL(test, vcm_get_next_phys_res(phys, NULL, NULL));

	vcm_unreserve(rk);
	vcm_unreserve(r1);
	vcm_unreserve(r2);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(pm), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(k), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(d1), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(d2), 0);
}

static void vcm_test_res_copy(struct kunit *test)
{
	struct vcm *k = new_kernel_vcm(test);
	struct vcm_physmem *a = new_phys(test, SZ_128K, 0, SZ_64K);
	struct vcm_physmem *b = new_phys(test, SZ_128K, 0, PAGE_SIZE);
	struct vcm_res *ra = vcm_reserve(k, SZ_128K, RW_CACHED);
	struct vcm_res *rb = vcm_reserve(k, SZ_128K, RW_WC);
	size_t off;
	u32 *vb;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ra);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, rb);
	vcm_fill_pattern(a, 0x42);
	KUNIT_ASSERT_EQ(test, vcm_back(ra, a), 0);
	KUNIT_ASSERT_EQ(test, vcm_back(rb, b), 0);

	/* From chunked cached memory into write-combined memory, unaligned. */
	KUNIT_EXPECT_EQ(test, vcm_res_copy(rb, 8, ra, SZ_64K - 4, SZ_64K), SZ_64K);
	vb = vcm_get_vaddr(rb);
	for (off = 0; off < SZ_64K; off += 4092)
		KUNIT_EXPECT_EQ(test, vb[(8 + off) / 4],
				vcm_pattern_at(a, 0x42, SZ_64K - 4 + off));
	KUNIT_EXPECT_EQ(test, vb[0], 0);

	KUNIT_EXPECT_EQ(test, vcm_res_copy(rb, SZ_128K, ra, 0, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_res_copy(rb, 0, ra, 4, SZ_128K), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_res_copy(rb, SIZE_MAX, ra, 0, 2), -EINVAL);

	vcm_unback(ra);
	vcm_unback(rb);
	vcm_unreserve(ra);
	vcm_unreserve(rb);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(a), 0);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(b), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(k), 0);
}

static void vcm_test_clone(struct kunit *test)
{
	struct vcm *vcm = new_dev_vcm(test), *clone, *k = new_kernel_vcm(test);
	struct vcm_physmem *pm = new_phys(test, SZ_2M, 0, 0);
	struct vcm_bound *bound = vcm_create_bound(vcm, SZ_4M);
	struct vcm_res *a, *b, *ca, *cb;
	dma_addr_t out;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, bound);
	a = vcm_reserve(vcm, SZ_2M, RW_CACHED);
	b = vcm_reserve_from_bound(bound, SZ_1M, VCM_READ);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);
	KUNIT_ASSERT_EQ(test, vcm_back(a, pm), 0);

	clone = vcm_clone(vcm);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, clone);
	KUNIT_EXPECT_EQ(test, vcm_get_num_res(clone), 2);
	ca = vcm_get_res(clone, vcm_get_dev_addr(a));
	cb = vcm_get_res(clone, vcm_get_dev_addr(b));
	KUNIT_ASSERT_NOT_NULL(test, ca);
	KUNIT_ASSERT_NOT_NULL(test, cb);
	KUNIT_EXPECT_PTR_NE(test, ca, a);
	KUNIT_EXPECT_EQ(test, vcm_get_res_attr(cb), (u32)VCM_READ);
	KUNIT_EXPECT_PTR_EQ(test, vcm_get_physmem_from_res(ca), pm);
	KUNIT_EXPECT_EQ(test, vcm_translate(vcm, vcm_get_dev_addr(a) + 4, clone, &out), 0);
	KUNIT_EXPECT_EQ(test, out, vcm_get_dev_addr(a) + 4);

	/* Independent after the clone. */
	KUNIT_EXPECT_EQ(test, vcm_unback(a), 0);
	KUNIT_EXPECT_PTR_EQ(test, vcm_get_physmem_from_res(ca), pm);
	KUNIT_EXPECT_EQ(test, vcm_unback(ca), 0);

	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_clone(k)), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_clone(NULL)), -EINVAL);

	while ((a = vcm_get_next_res(clone, NULL)))
		KUNIT_ASSERT_EQ(test, vcm_unreserve(a), 0);
	while ((a = vcm_get_next_res(vcm, NULL)))
		KUNIT_ASSERT_EQ(test, vcm_unreserve(a), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(clone), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(vcm), -EBUSY);	/* its bound */
	KUNIT_EXPECT_EQ(test, vcm_free_bound(bound), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(vcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(pm), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(k), 0);
}

/* --- lifetimes under concurrency ----------------------------------- */

#define VCM_RACE_THREADS	4
#define VCM_RACE_LOOPS		200
#define VCM_RACE_RES		2

/* What the workers share: one VCM and one physmem, both the test's. */
struct vcm_race {
	struct vcm *vcm;
	struct vcm_physmem *pm;
	struct completion go;
};

/**
 * struct vcm_race_worker - a thread reserving and backing in the shared VCM
 * @race: what it shares
 * @settled: completed once the worker made its last backing
 * @done: completed when the worker made its last VCM call
 * @step: the first call that failed
 * @err: its error
 * @started: the thread runs
 */
struct vcm_race_worker {
	struct vcm_race *race;
	struct completion settled;
	struct completion done;
	const char *step;
	int err;
	bool started;
};

static void vcm_race_fail(struct vcm_race_worker *w, const char *step, int err)
{
	if (!w->err) {
		w->step = step;
		w->err = err;
	}
}

/*
 * Each round reserves a few ranges of the shared VCM, backs them all with
 * the shared physmem, unbacks and unreserves them.  The reservations are
 * the worker's own: only the VCM and the physmem are shared.
 */
static int vcm_race_worker_fn(void *data)
{
	struct vcm_race_worker *w = data;
	struct vcm_race *race = w->race;
	struct vcm_res *res[VCM_RACE_RES];
	bool backed[VCM_RACE_RES];
	int i, j, ret;

	wait_for_completion(&race->go);
	for (i = 0; i < VCM_RACE_LOOPS; i++) {
		for (j = 0; j < VCM_RACE_RES; j++) {
			res[j] = vcm_reserve(race->vcm, SZ_64K, RW_CACHED);
			backed[j] = false;
			if (IS_ERR(res[j])) {
				vcm_race_fail(w, "vcm_reserve", PTR_ERR(res[j]));
				res[j] = NULL;
				continue;
			}
			ret = vcm_back(res[j], race->pm);
			if (ret)
				vcm_race_fail(w, "vcm_back", ret);
			backed[j] = !ret;
		}
		/* No more backings from here: the test may free the physmem. */
		if (i == VCM_RACE_LOOPS - 1)
			complete(&w->settled);
		for (j = 0; j < VCM_RACE_RES; j++) {
			if (backed[j]) {
				ret = vcm_unback(res[j]);
				if (ret)
					vcm_race_fail(w, "vcm_unback", ret);
			}
		}
		for (j = 0; j < VCM_RACE_RES; j++) {
			if (res[j]) {
				ret = vcm_unreserve(res[j]);
				if (ret)
					vcm_race_fail(w, "vcm_unreserve", ret);
			}
		}
		cond_resched();
	}
	kthread_complete_and_exit(&w->done, 0);
}

static bool vcm_race_done(struct vcm_race_worker *w)
{
	int i;

	for (i = 0; i < VCM_RACE_THREADS; i++)
		if (w[i].started && !completion_done(&w[i].done))
			return false;
	return true;
}

/*
 * Several threads reserve, back, unback and unreserve in one VCM with one
 * physmem while the test thread does too, and the test frees the physmem
 * and the VCM as soon as they are idle, while the workers' last
 * vcm_unback() and vcm_unreserve() calls may still be returning.  The
 * counters the suite checks on exit tell whether every reservation,
 * backing and object went away; KASAN catches a VCM or physmem freed
 * under a call still using it.
 */
static void vcm_test_concurrent_unreserve(struct kunit *test)
{
	struct vcm_race_worker *w;
	struct task_struct *task;
	struct vcm_race *race;
	struct vcm_res *res;
	int i, ret, errors = 0;
	bool done;

	race = kunit_kzalloc(test, sizeof(*race), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, race);
	w = kunit_kcalloc(test, VCM_RACE_THREADS, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	race->vcm = new_dev_vcm(test);
	race->pm = new_phys(test, SZ_64K, 0, 0);
	init_completion(&race->go);

	/* From here on no assertion: the workers use what the test owns. */
	for (i = 0; i < VCM_RACE_THREADS; i++) {
		w[i].race = race;
		init_completion(&w[i].settled);
		init_completion(&w[i].done);
		task = kthread_run(vcm_race_worker_fn, &w[i], "vcm_race/%d", i);
		KUNIT_EXPECT_FALSE_MSG(test, IS_ERR(task), "worker %d: %ld", i,
				       PTR_ERR(task));
		w[i].started = !IS_ERR(task);
	}
	complete_all(&race->go);

	for (i = 0; i < VCM_RACE_LOOPS; i++) {
		res = vcm_reserve(race->vcm, SZ_64K, RW_CACHED);
		if (IS_ERR(res)) {
			errors++;
			continue;
		}
		if (i % 2 && (vcm_back(res, race->pm) || vcm_unback(res)))
			errors++;
		if (vcm_unreserve(res))
			errors++;
		cond_resched();
	}
	KUNIT_EXPECT_EQ(test, errors, 0);

	for (i = 0; i < VCM_RACE_THREADS; i++)
		if (w[i].started)
			wait_for_completion(&w[i].settled);

	/*
	 * Free each as soon as it is idle.  -EBUSY means a worker still
	 * holds it, until every worker is done: then it is a leak.
	 */
	do {
		done = vcm_race_done(w);
		ret = vcm_phys_free(race->pm);
		if (ret == -EBUSY && !done)
			cond_resched();
	} while (ret == -EBUSY && !done);
	KUNIT_EXPECT_EQ(test, ret, 0);
	do {
		done = vcm_race_done(w);
		ret = vcm_free(race->vcm);
		if (ret == -EBUSY && !done)
			cond_resched();
	} while (ret == -EBUSY && !done);
	KUNIT_EXPECT_EQ(test, ret, 0);

	for (i = 0; i < VCM_RACE_THREADS; i++) {
		if (!w[i].started)
			continue;
		wait_for_completion(&w[i].done);
		KUNIT_EXPECT_EQ_MSG(test, w[i].err, 0, "worker %d: %s", i,
				    w[i].step ?: "");
	}
}

/* --- the user kind, through a real mmap() of a test file ----------- */

struct vcm_user_ctx {
	struct kunit *test;
	struct vcm *vcm;
	struct vcm_physmem *pm;
	struct vcm_res *res;
	u32 attr;
	int closed;
};

static void vcm_user_close(struct vm_area_struct *vma)
{
	struct vcm_user_ctx *ctx = vma->vm_private_data;

	KUNIT_EXPECT_EQ(ctx->test, vcm_unback(ctx->res), 0);
	KUNIT_EXPECT_EQ(ctx->test, vcm_unreserve(ctx->res), 0);
	ctx->res = NULL;
	ctx->closed++;
}

static int vcm_user_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

static const struct vm_operations_struct vcm_user_vm_ops = {
	.close = vcm_user_close,
	.may_split = vcm_user_may_split,
};

static int vcm_user_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct vcm_user_ctx *ctx = file->private_data;
	struct vcm_res *res;
	int ret;

	res = vcm_reserve_vma(ctx->vcm, vma, ctx->attr);
	if (IS_ERR(res))
		return PTR_ERR(res);
	ret = vcm_back(res, ctx->pm);
	if (ret) {
		vcm_unreserve(res);
		return ret;
	}
	ctx->res = res;
	vma->vm_private_data = ctx;
	vma->vm_ops = &vcm_user_vm_ops;
	return 0;
}

static const struct file_operations vcm_user_fops = {
	.mmap = vcm_user_mmap,
};

static void vcm_test_user(struct kunit *test)
{
	struct vcm_physmem *pm = new_phys(test, SZ_2M + SZ_128K, 0, 0);
	struct vcm_user_ctx *ctx;
	unsigned long addr, anon;
	struct file *file;
	u32 word, *p;
	size_t off;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->test = test;
	ctx->pm = pm;
	ctx->attr = RW_CACHED;

	/* An anonymous mapping gives the KUnit thread an address space. */
	anon = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ, MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE(test, anon, 0);
	ctx->vcm = vcm_create_from_prebuilt(VCM_PREBUILT_USER);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx->vcm);
	KUNIT_EXPECT_EQ(test, vcm_get_type(ctx->vcm), VCM_EXT_USER);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve(ctx->vcm, SZ_4K, RW_CACHED)),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve_vma(ctx->vcm, NULL, RW)), -EINVAL);

	file = anon_inode_getfile("vcm-test", &vcm_user_fops, ctx, O_RDWR);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, file);

	vcm_fill_pattern(pm, 0x900);
	addr = kunit_vm_mmap(test, file, 0, SZ_2M + SZ_128K,
			     PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));
	KUNIT_ASSERT_NOT_NULL(test, ctx->res);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(ctx->res), (dma_addr_t)addr);
	KUNIT_EXPECT_PTR_EQ(test, vcm_get_res(ctx->vcm, addr + SZ_2M), ctx->res);

	/* The process sees the physmem, chunk after chunk... */
	for (off = 0; off < SZ_2M + SZ_128K; off += SZ_64K + 12) {
		KUNIT_ASSERT_EQ(test, copy_from_user(&word, (void __user *)(addr + off),
						     4), 0);
		KUNIT_EXPECT_EQ(test, word, vcm_pattern_at(pm, 0x900, off));
	}
	/* ...and its stores land in it. */
	word = 0xabcdef;
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)(addr + SZ_2M + 16), &word,
					   4), 0);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(pm), -EBUSY);

	KUNIT_EXPECT_EQ(test, vm_munmap(addr, SZ_2M + SZ_128K), 0);
	KUNIT_EXPECT_EQ(test, ctx->closed, 1);
	{
		unsigned int cursor = 0;
		phys_addr_t phys;
		size_t len;

		vcm_get_next_phys_addr(pm, &cursor, &phys, &len);
		vcm_get_next_phys_addr(pm, &cursor, &phys, &len);
		p = kmap_local_page(phys_to_page(phys));
		KUNIT_EXPECT_EQ(test, p[4], 0xabcdef);
		kunmap_local(p);
	}

	/* A write-combined mapping refuses a write-only attribute mismatch. */
	ctx->attr = VCM_READ | VCM_WC;
	addr = kunit_vm_mmap(test, file, 0, SZ_2M + SZ_128K,
			     PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	KUNIT_EXPECT_EQ(test, (long)addr, -EACCES);

	fput(file);
	KUNIT_EXPECT_EQ(test, vcm_free(ctx->vcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(pm), 0);
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

/* --- constraints ------------------------------------------------------ */

static struct vcm_constraint translated(unsigned long pgsizes)
{
	struct vcm_constraint c;

	vcm_constraint_init(&c);
	c.flags = VCM_CONSTRAINT_GRANULE;
	c.granule = BIT(__ffs(pgsizes));
	c.pgsizes = pgsizes;
	c.devices = 1;
	return c;
}

static struct vcm_constraint direct(phys_addr_t limit, unsigned int max_seg)
{
	struct vcm_constraint c;

	vcm_constraint_init(&c);
	c.flags = VCM_CONSTRAINT_CONTIGUOUS | VCM_CONSTRAINT_LIMIT;
	c.dma_limit = limit;
	c.max_seg = max_seg;
	c.seg_boundary = DMA_BIT_MASK(32);
	c.devices = 1;
	return c;
}

static void expect_same(struct kunit *test, const struct vcm_constraint *a,
			const struct vcm_constraint *b)
{
	KUNIT_EXPECT_EQ(test, a->flags, b->flags);
	KUNIT_EXPECT_EQ(test, a->dma_limit, b->dma_limit);
	KUNIT_EXPECT_EQ(test, a->pgsizes, b->pgsizes);
	KUNIT_EXPECT_EQ(test, a->granule, b->granule);
	KUNIT_EXPECT_EQ(test, a->max_seg, b->max_seg);
	KUNIT_EXPECT_EQ(test, a->seg_boundary, b->seg_boundary);
	KUNIT_EXPECT_EQ(test, a->devices, b->devices);
}

static void vcm_test_constraint_merge(struct kunit *test)
{
	struct vcm_constraint any, smmu = translated(SZ_4K | SZ_2M | SZ_1G);
	struct vcm_constraint big = translated(SZ_64K | SZ_512M);
	struct vcm_constraint dma32 = direct(DMA_BIT_MASK(32), SZ_64K);
	struct vcm_constraint acc, other, saved;

	/* Any memory meets the empty constraint: it is the identity. */
	vcm_constraint_init(&any);
	acc = any;
	KUNIT_ASSERT_EQ(test, vcm_constraint_merge(&acc, &smmu), 0);
	other = smmu;
	other.devices = 1;
	expect_same(test, &acc, &other);

	/* Two IOMMUs: the larger granule, the blocks of both above it. */
	KUNIT_ASSERT_EQ(test, vcm_constraint_merge(&acc, &big), 0);
	KUNIT_EXPECT_EQ(test, acc.granule, (unsigned long)SZ_64K);
	KUNIT_EXPECT_EQ(test, acc.pgsizes,
			(unsigned long)(SZ_64K | SZ_2M | SZ_512M | SZ_1G));
	KUNIT_EXPECT_EQ(test, acc.flags, VCM_CONSTRAINT_GRANULE);
	KUNIT_EXPECT_EQ(test, acc.dma_limit, PHYS_ADDR_MAX);

	/* A device without an IOMMU: contiguous, below its mask, its segments. */
	KUNIT_ASSERT_EQ(test, vcm_constraint_merge(&acc, &dma32), 0);
	KUNIT_EXPECT_EQ(test, acc.flags, VCM_CONSTRAINT_GRANULE |
			VCM_CONSTRAINT_CONTIGUOUS | VCM_CONSTRAINT_LIMIT);
	KUNIT_EXPECT_EQ(test, acc.dma_limit, (phys_addr_t)DMA_BIT_MASK(32));
	KUNIT_EXPECT_EQ(test, acc.max_seg, SZ_64K);
	KUNIT_EXPECT_EQ(test, acc.seg_boundary, (unsigned long)DMA_BIT_MASK(32));
	KUNIT_EXPECT_EQ(test, acc.devices, 3);

	/* The order does not matter. */
	other = dma32;
	KUNIT_ASSERT_EQ(test, vcm_constraint_merge(&other, &big), 0);
	KUNIT_ASSERT_EQ(test, vcm_constraint_merge(&other, &smmu), 0);
	expect_same(test, &acc, &other);

	/* The lower of two limits, the shorter segments, the narrower boundary. */
	other = direct(DMA_BIT_MASK(36), SZ_1M);
	other.seg_boundary = SZ_1M - 1;
	KUNIT_ASSERT_EQ(test, vcm_constraint_merge(&other, &dma32), 0);
	KUNIT_EXPECT_EQ(test, other.dma_limit, (phys_addr_t)DMA_BIT_MASK(32));
	KUNIT_EXPECT_EQ(test, other.max_seg, SZ_64K);
	KUNIT_EXPECT_EQ(test, other.seg_boundary, (unsigned long)(SZ_1M - 1));

	/* A limit no page of RAM fits below is refused, and changes nothing. */
	other = direct(PAGE_SIZE - 2, SZ_64K);
	saved = acc;
	KUNIT_EXPECT_EQ(test, vcm_constraint_merge(&acc, &other), -ERANGE);
	expect_same(test, &acc, &saved);
}

static void vcm_test_constraint_of(struct kunit *test)
{
	struct vcm *o = vcm_create_one_to_one(0, SZ_4G);
	struct vcm *k = new_kernel_vcm(test);
	struct vcm_constraint c;
	struct device *dev;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, o);
	KUNIT_ASSERT_EQ(test, vcm_constraint_of_vcm(o, &c), 0);
	KUNIT_EXPECT_EQ(test, c.flags,
			VCM_CONSTRAINT_CONTIGUOUS | VCM_CONSTRAINT_LIMIT);
	KUNIT_EXPECT_EQ(test, c.dma_limit, (phys_addr_t)SZ_4G - 1);
	KUNIT_ASSERT_EQ(test, vcm_constraint_of_vcm(k, &c), 0);
	KUNIT_EXPECT_EQ(test, c.flags, 0);
	KUNIT_EXPECT_EQ(test, c.dma_limit, PHYS_ADDR_MAX);
	KUNIT_EXPECT_EQ(test, c.devices, 1);
	KUNIT_EXPECT_EQ(test, vcm_constraint_of_vcm(NULL, &c), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_constraint_of_vcm(ERR_PTR(-ENOMEM), &c), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_constraint_of_dev(NULL, &c), -EINVAL);

	/* A device with no IOMMU and a 32-bit mask, as the DMA API has it. */
	dev = kunit_device_register(test, "vcm-dma32");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	dev->dma_mask = NULL;
	KUNIT_EXPECT_EQ(test, vcm_constraint_of_dev(dev, &c), -EINVAL);
	dev->dma_mask = &dev->coherent_dma_mask;
	KUNIT_ASSERT_EQ(test, dma_set_mask_and_coherent(dev, DMA_BIT_MASK(32)), 0);
	KUNIT_ASSERT_EQ(test, vcm_constraint_of_dev(dev, &c), 0);
	KUNIT_EXPECT_TRUE(test, c.flags & VCM_CONSTRAINT_CONTIGUOUS);
	KUNIT_EXPECT_TRUE(test, c.flags & VCM_CONSTRAINT_LIMIT);
	KUNIT_EXPECT_EQ(test, c.dma_limit, (phys_addr_t)DMA_BIT_MASK(32));
	KUNIT_EXPECT_EQ(test, c.max_seg, dma_get_max_seg_size(dev));
	KUNIT_EXPECT_EQ(test, c.seg_boundary, dma_get_seg_boundary(dev));
	KUNIT_EXPECT_EQ(test, !!(c.flags & VCM_CONSTRAINT_NONCOHERENT),
			!dev_is_dma_coherent(dev));

	KUNIT_EXPECT_STREQ(test, vcm_constraint_name(VCM_CONSTRAINT_LIMIT), "dma-limit");
	KUNIT_EXPECT_STREQ(test, vcm_constraint_name(0), "none");
	KUNIT_EXPECT_EQ(test, vcm_free(o), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(k), 0);
}

/* The highest byte of a physmem. */
static phys_addr_t phys_top(const struct vcm_physmem *pm)
{
	phys_addr_t phys, top = 0;
	unsigned int cursor;
	size_t len;

	vcm_for_each_phys_chunk(pm, cursor, phys, len)
		top = max(top, phys + len - 1);
	return top;
}

static void vcm_test_constraint_alloc(struct kunit *test)
{
	struct vcm_constraint smmu = translated(SZ_4K | SZ_2M | SZ_1G);
	struct vcm_constraint dma32 = direct(DMA_BIT_MASK(32), SZ_64K);
	struct vcm_constraint low = dma32, c;
	struct vcm_physmem *pm, *cont, *lowpm, *small;
	unsigned int cursor, n = 0;
	phys_addr_t phys, first = 0;
	size_t len;

	/* Chunked for the IOMMU: it meets the IOMMU's needs, not dma32's. */
	pm = vcm_phys_alloc_for(SZ_4M + SZ_4K, 0, &smmu);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pm);
	vcm_for_each_phys_chunk(pm, cursor, phys, len) {
		if (!n++)
			first = phys;
	}
	KUNIT_EXPECT_GE(test, n, 2);
	KUNIT_EXPECT_EQ(test, vcm_constraint_unmet(&smmu, pm), 0);
	KUNIT_EXPECT_TRUE(test, vcm_constraint_unmet(&dma32, pm) &
			  VCM_CONSTRAINT_CONTIGUOUS);

	/* A limit below a chunk's end is unmet. */
	c = smmu;
	c.dma_limit = first;
	KUNIT_EXPECT_TRUE(test, vcm_constraint_unmet(&c, pm) & VCM_CONSTRAINT_LIMIT);

	/* For the device without an IOMMU: one range, below 4 GiB. */
	cont = vcm_phys_alloc_for(SZ_2M + SZ_4K, 0, &dma32);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cont);
	KUNIT_EXPECT_EQ(test, vcm_constraint_unmet(&dma32, cont), 0);
	KUNIT_EXPECT_EQ(test, vcm_constraint_unmet(&smmu, cont), 0);
	KUNIT_EXPECT_LE(test, phys_top(cont), (phys_addr_t)DMA_BIT_MASK(32));

	/* Below 4 GiB but in chunks: from the low zones only. */
	low.flags = VCM_CONSTRAINT_LIMIT;
	lowpm = vcm_phys_alloc_for(SZ_8M, 0, &low);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, lowpm);
	KUNIT_EXPECT_LE(test, phys_top(lowpm), (phys_addr_t)DMA_BIT_MASK(32));
	KUNIT_EXPECT_EQ(test, vcm_constraint_unmet(&low, lowpm), 0);

	/* A 4 KiB chunk is not one a 64 KiB-granule IOMMU maps. */
	small = vcm_phys_alloc_for(SZ_4K, 0, &smmu);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, small);
	c = translated(SZ_64K);
	KUNIT_EXPECT_EQ(test, vcm_constraint_unmet(&c, small), VCM_CONSTRAINT_GRANULE);
	KUNIT_EXPECT_EQ(test, vcm_constraint_unmet(&c, NULL), VCM_CONSTRAINT_LIMIT);

	/* Lengths and attributes no memory can have. */
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_alloc_for(SZ_4K, 0, &c)), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_constraint_check_len(&c, SZ_4K), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_alloc_for(SZ_4K, VCM_PHYS_CONT, &smmu)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_alloc_for(0, 0, &smmu)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_alloc_for(SZ_4K, VCM_ALIGN_1M, &smmu)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_constraint_check_len(&dma32, SZ_1G * 64UL), -E2BIG);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_alloc_for(SZ_1G * 64UL, 0, &dma32)),
			-E2BIG);

	KUNIT_EXPECT_EQ(test, vcm_phys_free(small), 0);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(lowpm), 0);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(cont), 0);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(pm), 0);
}

/* Check a table from vcm_phys_to_sgt(); return its number of entries. */
static unsigned int check_sgt(struct kunit *test, struct sg_table *sgt,
			      phys_addr_t start, size_t len, size_t max_seg,
			      unsigned long boundary)
{
	phys_addr_t next = start;
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_sg(sgt, sg, i) {
		phys_addr_t p = sg_phys(sg);

		KUNIT_EXPECT_EQ(test, p, next);
		KUNIT_EXPECT_LE(test, sg->length, max_seg);
		KUNIT_EXPECT_TRUE(test, PAGE_ALIGNED(p | sg->length));
		/* Its first and last byte are on the same side of a boundary. */
		KUNIT_EXPECT_EQ(test, p & ~(phys_addr_t)boundary,
				(p + sg->length - 1) & ~(phys_addr_t)boundary);
		next = p + sg->length;
	}
	KUNIT_EXPECT_EQ(test, next, start + len);
	return sgt->orig_nents;
}

static void vcm_test_phys_to_sgt(struct kunit *test)
{
	size_t len = SZ_2M + SZ_8K;
	struct vcm_physmem *pm = new_phys(test, len, VCM_PHYS_CONT | VCM_ALIGN_1M, 0);
	struct sg_table sgt;
	unsigned int cursor = 0;
	phys_addr_t start;
	size_t l;

	KUNIT_ASSERT_EQ(test, vcm_get_next_phys_addr(pm, &cursor, &start, &l), 0);

	/* 64 KiB segments, as a device without DMA parameters takes. */
	KUNIT_ASSERT_EQ(test, vcm_phys_to_sgt(pm, SZ_64K, ULONG_MAX, &sgt), 0);
	KUNIT_EXPECT_EQ(test, check_sgt(test, &sgt, start, len, SZ_64K, ULONG_MAX),
			DIV_ROUND_UP(len, SZ_64K));
	sg_free_table(&sgt);

	/* Long segments, cut at every 1 MiB line: 1M, 1M, 8K. */
	KUNIT_ASSERT_EQ(test, vcm_phys_to_sgt(pm, SZ_4M, SZ_1M - 1, &sgt), 0);
	KUNIT_EXPECT_EQ(test, check_sgt(test, &sgt, start, len, SZ_4M, SZ_1M - 1), 3);
	sg_free_table(&sgt);

	/* A length not a multiple of pages is rounded down. */
	KUNIT_ASSERT_EQ(test, vcm_phys_to_sgt(pm, SZ_64K + 100, ULONG_MAX, &sgt), 0);
	KUNIT_EXPECT_EQ(test, check_sgt(test, &sgt, start, len, SZ_64K, ULONG_MAX),
			DIV_ROUND_UP(len, SZ_64K));
	sg_free_table(&sgt);

	KUNIT_EXPECT_EQ(test, vcm_phys_to_sgt(pm, SZ_2K, ULONG_MAX, &sgt), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_phys_to_sgt(pm, SZ_64K, SZ_2K - 1, &sgt), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_phys_to_sgt(NULL, SZ_64K, ULONG_MAX, &sgt), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(pm), 0);
}

static void vcm_test_phys_copy(struct kunit *test)
{
	struct vcm_constraint dma32 = direct(DMA_BIT_MASK(32), SZ_64K);
	struct vcm_physmem *src = new_phys(test, SZ_2M + SZ_64K, 0, 0);
	struct vcm_physmem *dst = vcm_phys_alloc_for(SZ_2M + SZ_64K, 0, &dma32);
	struct vcm_physmem *other = new_phys(test, SZ_64K, 0, 0);
	struct vcm *k = new_kernel_vcm(test);
	struct vcm_res *res;
	size_t off;
	u32 *p;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dst);
	vcm_fill_pattern(src, 0x2000);
	KUNIT_EXPECT_EQ(test, vcm_phys_copy(dst, other), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_phys_copy(dst, dst), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_phys_copy(NULL, src), -EINVAL);

	/* Memory being mapped is not copied. */
	res = vcm_reserve(k, SZ_2M + SZ_64K, RW_CACHED);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	KUNIT_ASSERT_EQ(test, vcm_back(res, src), 0);
	KUNIT_EXPECT_EQ(test, vcm_phys_copy(dst, src), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_unback(res), 0);

	KUNIT_ASSERT_EQ(test, vcm_phys_copy(dst, src), 0);
	KUNIT_ASSERT_EQ(test, vcm_back(res, dst), 0);
	p = vcm_get_vaddr(res);
	KUNIT_ASSERT_NOT_NULL(test, p);
	for (off = 0; off < SZ_2M + SZ_64K; off += SZ_4K + 4)
		KUNIT_EXPECT_EQ(test, p[off / 4], vcm_pattern_at(src, 0x2000, off));
	KUNIT_EXPECT_EQ(test, vcm_unback(res), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(res), 0);
	KUNIT_EXPECT_EQ(test, vcm_free(k), 0);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(other), 0);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(dst), 0);
	KUNIT_EXPECT_EQ(test, vcm_phys_free(src), 0);
}

static struct kunit_case vcm_test_cases[] = {
	KUNIT_CASE(vcm_test_space_aligned),
	KUNIT_CASE(vcm_test_space_fragmentation),
	KUNIT_CASE(vcm_test_create_errors),
	KUNIT_CASE(vcm_test_create_free),
	KUNIT_CASE(vcm_test_reserve),
	KUNIT_CASE_PARAM(vcm_test_reserve_errors, vcm_reserve_gen_params),
	KUNIT_CASE(vcm_test_reserve_exhaust),
	KUNIT_CASE(vcm_test_reserve_at),
	KUNIT_CASE(vcm_test_res_attr),
	KUNIT_CASE(vcm_test_bound),
	KUNIT_CASE_PARAM(vcm_test_phys_errors, vcm_phys_gen_params),
	KUNIT_CASE(vcm_test_phys_handles),
	KUNIT_CASE(vcm_test_err_handles),
	KUNIT_CASE_PARAM(vcm_test_phys_chunks, vcm_chunks_gen_params),
	KUNIT_CASE_PARAM(vcm_test_chunk_sizes, vcm_chunk_sizes_gen_params),
	KUNIT_CASE(vcm_test_phys_contiguous),
	KUNIT_CASE(vcm_test_phys_from_sgt),
	KUNIT_CASE(vcm_test_back_kernel),
	KUNIT_CASE(vcm_test_cache_conflict),
	KUNIT_CASE(vcm_test_cache_maintenance),
	KUNIT_CASE(vcm_test_one_to_one),
	KUNIT_CASE(vcm_test_assoc),
	KUNIT_CASE(vcm_test_shared_physmem),
	KUNIT_CASE(vcm_test_res_copy),
	KUNIT_CASE(vcm_test_clone),
	KUNIT_CASE(vcm_test_concurrent_unreserve),
	KUNIT_CASE(vcm_test_user),
	KUNIT_CASE_PARAM(vcm_test_count_ptes, vcm_ptes_gen_params),
	KUNIT_CASE(vcm_test_count_sgt_ptes),
	KUNIT_CASE(vcm_test_constraint_merge),
	KUNIT_CASE(vcm_test_constraint_of),
	KUNIT_CASE(vcm_test_constraint_alloc),
	KUNIT_CASE(vcm_test_phys_copy),
	KUNIT_CASE(vcm_test_phys_to_sgt),
	{}
};

static struct kunit_suite vcm_test_suite = {
	.name = "vcm",
	.init = vcm_test_init,
	.exit = vcm_test_exit,
	.test_cases = vcm_test_cases,
};

kunit_test_suite(vcm_test_suite);

MODULE_DESCRIPTION("KUnit tests for the Virtual Contiguous Memory manager");
MODULE_LICENSE("GPL");
