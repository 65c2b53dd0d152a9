// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for VCM: the address space allocator, regions, reservations and bounds.
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
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>
#include <linux/vcm.h>

#include "../vcm_priv.h"
#include "vcm_test_util.h"

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

/*
 * The allocator's refusals: an empty range, a zero length or an alignment
 * that is no power of two, a request longer than the space, and a range
 * at the very top of the address space, where aligning the start of the
 * last gap wraps to 0 or the end of the request wraps past ULONG_MAX:
 * -ENOSPC, nothing allocated, and a request that fits still goes where
 * it must.  A fixed range of no length or one that wraps is -ERANGE,
 * removing a range that is not allocated changes nothing, and a lookup
 * outside the space finds nothing.
 */
static void vcm_test_space_edges(struct kunit *test)
{
	const unsigned long top = ULONG_MAX - SZ_64K + 1;
	struct vcm_space space, small;
	unsigned long addr = 0;

	KUNIT_EXPECT_EQ(test, vcm_space_init(&space, SZ_64K, SZ_64K - 1), -ERANGE);

	KUNIT_ASSERT_EQ(test, vcm_space_init(&small, SZ_4K, SZ_64K - 1), 0);
	KUNIT_EXPECT_EQ(test, vcm_space_alloc(&small, 0, SZ_4K, &small, &addr), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_space_alloc(&small, SZ_4K, 3 * SZ_4K, &small, &addr),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_space_alloc(&small, SZ_4K, 0, &small, &addr), -EINVAL);
	/* 64K do not fit in the 60K from 4K up. */
	KUNIT_EXPECT_EQ(test, vcm_space_alloc(&small, SZ_64K, SZ_4K, &small, &addr),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, small.used, 0);
	KUNIT_EXPECT_NULL(test, vcm_space_lookup(&small, 0));
	KUNIT_EXPECT_NULL(test, vcm_space_lookup(&small, SZ_64K));
	vcm_space_destroy(&small);

	/* The last 64K of the address space, its first page taken. */
	KUNIT_ASSERT_EQ(test, vcm_space_init(&space, top, ULONG_MAX), 0);
	KUNIT_ASSERT_EQ(test, vcm_space_insert(&space, top, SZ_4K, &space), 0);
	/* 48K at 32K alignment would end past ULONG_MAX. */
	KUNIT_EXPECT_EQ(test, vcm_space_alloc(&space, 3 * SZ_16K, SZ_32K, &space, &addr),
			-ENOSPC);
	/* The next 128K boundary after the taken page is 0 again. */
	KUNIT_EXPECT_EQ(test, vcm_space_alloc(&space, SZ_4K, SZ_128K, &space, &addr),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, space.used, SZ_4K);
	KUNIT_ASSERT_EQ(test, vcm_space_alloc(&space, SZ_32K, SZ_32K, &space, &addr), 0);
	KUNIT_EXPECT_EQ(test, addr, top + SZ_32K);
	KUNIT_EXPECT_PTR_EQ(test, vcm_space_lookup(&space, ULONG_MAX), (void *)&space);

	KUNIT_EXPECT_EQ(test, vcm_space_insert(&space, top + SZ_8K, 0, &space), -ERANGE);
	KUNIT_EXPECT_EQ(test, vcm_space_insert(&space, top + SZ_8K, SZ_64K, &space),
			-ERANGE);
	/* Nothing is at top + 8K: removing it leaves the count alone. */
	vcm_space_remove(&space, top + SZ_8K, SZ_4K);
	KUNIT_EXPECT_EQ(test, space.used, SZ_4K + SZ_32K);
	KUNIT_EXPECT_NULL(test, vcm_space_lookup(&space, top - 1));

	vcm_space_remove(&space, top + SZ_32K, SZ_32K);
	vcm_space_remove(&space, top, SZ_4K);
	KUNIT_EXPECT_EQ(test, space.used, 0);
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

	KUNIT_EXPECT_EQ(test, vcm_free(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_free(ERR_PTR(-ENOMEM)), -EINVAL);
	/* One kernel VCM, VCM's own: no caller frees it. */
	KUNIT_EXPECT_PTR_EQ(test, vcm_kernel(), vcm_kernel());
	KUNIT_EXPECT_EQ(test, vcm_get_type(vcm_kernel()), VCM_EXT_KERNEL);
	KUNIT_EXPECT_EQ(test, vcm_free(vcm_kernel()), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_get_min_page_size(), PAGE_SIZE);
}

static void vcm_test_create_free(struct kunit *test)
{
	struct vcm *dev = new_dev_vcm(test), *k = kernel_vcm(test);
	struct vcm *o = own_vcm(test, vcm_create_one_to_one(0, SZ_4G));
	struct vcm_res *res;

	KUNIT_EXPECT_EQ(test, vcm_get_type(dev), VCM_DEVICE);
	KUNIT_EXPECT_EQ(test, vcm_get_type(k), VCM_EXT_KERNEL);
	KUNIT_EXPECT_EQ(test, vcm_get_type(o), VCM_ONE_TO_ONE);
	KUNIT_EXPECT_EQ(test, vcm_get_start_addr(dev), (dma_addr_t)DEV_START);
	KUNIT_EXPECT_EQ(test, vcm_get_len(dev), (size_t)DEV_LEN);
	/* No domain yet: base pages only. */
	KUNIT_EXPECT_EQ(test, vcm_get_pgsize_bitmap(dev), PAGE_SIZE);

	res = vcm_reserve(dev, SZ_64K, RW);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	KUNIT_EXPECT_EQ(test, free_vcm(test, dev), -EBUSY);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(res), 0);

	KUNIT_EXPECT_EQ(test, free_vcm(test, dev), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, o), 0);
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
	KUNIT_EXPECT_EQ(test, free_vcm(test, vcm), 0);
}

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
	KUNIT_EXPECT_EQ(test, free_vcm(test, vcm), 0);
}

static void vcm_test_reserve_exhaust(struct kunit *test)
{
	struct vcm *vcm = own_vcm(test, vcm_create(DEV_START, 4 * SZ_64K));
	struct vcm_res *res[4];
	int i;

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
	KUNIT_EXPECT_EQ(test, free_vcm(test, vcm), 0);
}

static void vcm_test_reserve_at(struct kunit *test)
{
	struct vcm *vcm = new_dev_vcm(test), *k = kernel_vcm(test);
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
	res = vcm_reserve(vcm, SZ_1M, RW);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	KUNIT_EXPECT_NE(test, vcm_get_dev_addr(res), (dma_addr_t)DEV_START + SZ_1M);
	KUNIT_EXPECT_EQ(test, vcm_get_num_res(vcm), 2);

	while ((res = vcm_get_next_res(vcm, NULL)))
		KUNIT_ASSERT_EQ(test, vcm_unreserve(res), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, vcm), 0);
}

/*
 * vcm_reserve_at() refuses the lengths and attributes vcm_reserve()
 * refuses, with its errnos.  The address is free and aligned, so only the
 * length or the attributes are wrong; no refusal leaves a reservation,
 * and the range is still there for a valid request.
 */
static void vcm_test_reserve_at_attrs(struct kunit *test)
{
	static const struct vcm_attr_case bad[] = {
		{ "zero length", 0, RW, -EINVAL },
		{ "partial page", PAGE_SIZE + 1, RW, -EINVAL },
		{ "write-through", PAGE_SIZE, RW | VCM_WT, -EINVAL },
		{ "no access", PAGE_SIZE, VCM_WB_WA, -EINVAL },
		{ "alignment below a page", PAGE_SIZE, RW | VCM_ALIGN_ATTR(11), -EINVAL },
		{ "secure", PAGE_SIZE, RW | VCM_SECURE, -EOPNOTSUPP },
	};
	struct vcm *vcm = new_dev_vcm(test);
	struct vcm_res *res;
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		res = vcm_reserve_at(vcm, DEV_START, bad[i].len, bad[i].attr);
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(res), bad[i].err, "%s",
				    bad[i].name);
	}
	KUNIT_EXPECT_EQ(test, vcm_get_num_res(vcm), 0);

	res = vcm_reserve_at(vcm, DEV_START, PAGE_SIZE, RW);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(res), (dma_addr_t)DEV_START);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(res), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, vcm), 0);
}

static void vcm_test_res_attr(struct kunit *test)
{
	struct vcm *vcm = kernel_vcm(test);
	struct vcm_physmem *pm = new_phys(test, SZ_64K, 0, 0);
	struct vcm_res *res = own_res(test, vcm_reserve(vcm, SZ_64K, VCM_READ | VCM_WB_WA));

	/* No device memory, write-through or no-write-allocate for RAM. */
	KUNIT_EXPECT_EQ(test, vcm_set_res_attr(res, RW | VCM_NOTCACHED), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_set_res_attr(res, RW | VCM_WT), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_set_res_attr(res, RW | VCM_WB_NWA), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_set_res_attr(res, RW_WC), 0);
	KUNIT_EXPECT_EQ(test, vcm_get_res_attr(res), (u32)RW_WC);
	KUNIT_EXPECT_EQ(test, vcm_set_res_attr(res, RW | 0x7), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_set_res_attr(res, RW | VCM_EXECUTE), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_set_res_attr(NULL, RW), -EINVAL);

	KUNIT_ASSERT_EQ(test, vcm_back(res, pm), 0);
	KUNIT_EXPECT_EQ(test, vcm_set_res_attr(res, RW_CACHED), -EBUSY);
	KUNIT_EXPECT_EQ(test, vcm_get_res_attr(res), (u32)RW_WC);
	KUNIT_EXPECT_EQ(test, vcm_unback(res), 0);
	KUNIT_EXPECT_EQ(test, vcm_set_res_attr(res, RW_CACHED), 0);

	KUNIT_EXPECT_EQ(test, unreserve_res(test, res), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);

	/* A placed reservation keeps its address: only alignments it has. */
	vcm = new_dev_vcm(test);
	res = vcm_reserve_at(vcm, DEV_START + SZ_64K, SZ_64K, RW);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	KUNIT_EXPECT_EQ(test, vcm_set_res_attr(res, RW | VCM_ALIGN_64K), 0);
	KUNIT_EXPECT_EQ(test, vcm_set_res_attr(res, RW | VCM_ALIGN_1M), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(res), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, vcm), 0);
}

/*
 * The outcomes of reservations a valid caller meets besides the usual
 * ones: an alignment the fixed address has is taken; execute permission
 * is fine for a device; a placed reservation takes attributes without an
 * alignment; a backed reservation is not released (-EBUSY, still there);
 * lengths that are no multiple of a page are refused for bounds and
 * reservations from bounds; a reservation of another VCM has no next one
 * here; an address of a bound that no reservation holds finds none; and
 * an unbacked reservation translates to nothing (-ENOENT).
 */
static void vcm_test_res_edges(struct kunit *test)
{
	struct vcm *vcm = new_dev_vcm(test), *other = new_dev_vcm(test);
	struct vcm_physmem *pm = new_phys(test, SZ_64K, 0, 0);
	struct vcm_res *res, *x, *o, *in;
	struct vcm_bound *bound;
	dma_addr_t out;

	res = vcm_reserve_at(vcm, DEV_START + SZ_64K, SZ_64K, RW_CACHED | VCM_ALIGN_64K);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(res), (dma_addr_t)DEV_START + SZ_64K);
	KUNIT_EXPECT_EQ(test, vcm_set_res_attr(res, RW_CACHED), 0);
	KUNIT_EXPECT_EQ(test, vcm_get_res_attr(res), (u32)RW_CACHED);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(res), (dma_addr_t)DEV_START + SZ_64K);

	x = vcm_reserve(vcm, SZ_4K, VCM_READ | VCM_EXECUTE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, x);
	KUNIT_EXPECT_EQ(test, vcm_get_res_attr(x), (u32)(VCM_READ | VCM_EXECUTE));

	/* Unbacked: no memory to translate to. */
	KUNIT_EXPECT_EQ(test, vcm_translate(vcm, DEV_START + SZ_64K, other, &out),
			-ENOENT);

	KUNIT_ASSERT_EQ(test, vcm_back(res, pm), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(res), -EBUSY);
	KUNIT_EXPECT_EQ(test, vcm_get_num_res(vcm), 2);
	KUNIT_EXPECT_PTR_EQ(test, vcm_get_res(vcm, DEV_START + SZ_64K), res);
	KUNIT_EXPECT_PTR_EQ(test, vcm_get_physmem_from_res(res), pm);

	o = vcm_reserve(other, SZ_4K, RW);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, o);
	KUNIT_EXPECT_NULL(test, vcm_get_next_res(vcm, o));
	KUNIT_EXPECT_NULL(test, vcm_get_next_res(other, res));

	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_create_bound(vcm, SZ_64K + 1)), -EINVAL);
	bound = vcm_create_bound(vcm, SZ_1M);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, bound);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve_from_bound(bound, SZ_4K + 1, RW)),
			-EINVAL);
	in = vcm_reserve_from_bound(bound, SZ_4K, RW);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, in);
	/* The bound holds the address, no reservation in it does. */
	KUNIT_EXPECT_NULL(test, vcm_get_res(vcm, vcm_get_bound_start_addr(bound) +
					  SZ_1M - SZ_4K));
	KUNIT_EXPECT_PTR_EQ(test, vcm_get_res(vcm, vcm_get_dev_addr(in)), in);

	KUNIT_EXPECT_EQ(test, vcm_unreserve(in), 0);
	KUNIT_EXPECT_EQ(test, vcm_free_bound(bound), 0);
	KUNIT_EXPECT_EQ(test, vcm_unback(res), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(res), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(x), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(o), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, other), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, vcm), 0);
}

/*
 * The kernel VCM maps nothing executable, whatever the cache policy:
 * vcm_reserve() refuses VCM_EXECUTE there with either policy the kernel
 * maps RAM with, and makes no reservation; vcm_set_res_attr() refuses to
 * add it to a reservation, whose attributes stay as they were.
 */
static void vcm_test_kernel_no_exec(struct kunit *test)
{
	struct vcm *k = kernel_vcm(test);
	size_t n = vcm_get_num_res(k);
	struct vcm_res *res;

	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve(k, PAGE_SIZE, RW_CACHED | VCM_EXECUTE)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve(k, PAGE_SIZE,
						  VCM_READ | VCM_WC | VCM_EXECUTE)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_get_num_res(k), n);

	res = own_res(test, vcm_reserve(k, PAGE_SIZE, RW_CACHED));
	KUNIT_EXPECT_EQ(test, vcm_set_res_attr(res, RW_CACHED | VCM_EXECUTE), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_get_res_attr(res), (u32)RW_CACHED);
	KUNIT_EXPECT_EQ(test, unreserve_res(test, res), 0);
	KUNIT_EXPECT_EQ(test, vcm_get_num_res(k), n);
}

/* --- bounds ---------------------------------------------------------- */

static void vcm_test_bound(struct kunit *test)
{
	struct vcm *vcm = new_dev_vcm(test), *k = kernel_vcm(test);
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

	KUNIT_EXPECT_EQ(test, free_vcm(test, vcm), -EBUSY);
	KUNIT_EXPECT_EQ(test, vcm_free_bound(bound), -EBUSY);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(in[0]), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(in[1]), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(out), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, vcm), -EBUSY);
	KUNIT_EXPECT_EQ(test, vcm_free_bound(bound), 0);

	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_create_bound(k, SZ_1M)), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_create_bound(vcm, 0)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_create_bound(vcm, DEV_LEN * 2)), -ENOSPC);
	KUNIT_EXPECT_EQ(test, free_vcm(test, vcm), 0);
}

/*
 * vcm_reserve_from_bound() refuses the attributes vcm_reserve() refuses,
 * with its errnos, and a refusal counts nothing against the bound: the
 * whole bound is still free afterwards, and vcm_free_bound() frees it
 * once that reservation is gone.
 */
static void vcm_test_bound_attrs(struct kunit *test)
{
	static const struct vcm_attr_case bad[] = {
		{ "unknown attribute", PAGE_SIZE, RW | BIT(20), -EINVAL },
		{ "write-through", PAGE_SIZE, RW | VCM_WT, -EINVAL },
		{ "no access", PAGE_SIZE, VCM_WB_WA, -EINVAL },
		{ "alignment above 1G", PAGE_SIZE, RW | VCM_ALIGN_ATTR(31), -EINVAL },
		{ "secure", PAGE_SIZE, RW | VCM_SECURE, -EOPNOTSUPP },
	};
	struct vcm *vcm = new_dev_vcm(test);
	struct vcm_bound *bound;
	struct vcm_res *res;
	int i;

	bound = vcm_create_bound(vcm, SZ_64K);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, bound);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		res = vcm_reserve_from_bound(bound, bad[i].len, bad[i].attr);
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(res), bad[i].err, "%s",
				    bad[i].name);
	}
	KUNIT_EXPECT_EQ(test, vcm_get_num_res(vcm), 0);

	res = vcm_reserve_from_bound(bound, SZ_64K, RW);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(res), vcm_get_bound_start_addr(bound));
	KUNIT_EXPECT_EQ(test, vcm_free_bound(bound), -EBUSY);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(res), 0);
	KUNIT_EXPECT_EQ(test, vcm_free_bound(bound), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, vcm), 0);
}

/*
 * A bound is carved out of the VCM's free space as a reservation is: where
 * no free range holds it, vcm_create_bound() fails with -ENOSPC and leaves
 * nothing behind, no bound counted and none holding the VCM, which is
 * freed as soon as what did fit is released.
 */
static void vcm_test_bound_exhaust(struct kunit *test)
{
	struct vcm *vcm = own_vcm(test, vcm_create(DEV_START, 4 * SZ_64K));
	long bounds = vcm_stat_read(VCM_STAT_BOUNDS);
	struct vcm_bound *bound;
	struct vcm_res *first;

	/* The first 64K is taken: 256K no longer fit, though the VCM is 256K. */
	first = vcm_reserve_at(vcm, DEV_START, SZ_64K, RW);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, first);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_create_bound(vcm, 4 * SZ_64K)), -ENOSPC);
	KUNIT_EXPECT_EQ(test, vcm_stat_read(VCM_STAT_BOUNDS), bounds);

	/* The 192K left hold a bound, aligned to 64K: right after it. */
	bound = vcm_create_bound(vcm, 3 * SZ_64K);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, bound);
	KUNIT_EXPECT_EQ(test, vcm_get_bound_start_addr(bound),
			(dma_addr_t)DEV_START + SZ_64K);

	/* Full: not a page more, as a bound or as a reservation. */
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_create_bound(vcm, PAGE_SIZE)), -ENOSPC);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve(vcm, PAGE_SIZE, RW)), -ENOSPC);
	KUNIT_EXPECT_EQ(test, vcm_stat_read(VCM_STAT_BOUNDS), bounds + 1);

	KUNIT_EXPECT_EQ(test, vcm_free_bound(bound), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(first), 0);
	/* No refused bound is left on the VCM to keep it busy. */
	KUNIT_EXPECT_EQ(test, free_vcm(test, vcm), 0);
}

static struct kunit_case vcm_test_space_cases[] = {
	KUNIT_CASE(vcm_test_space_aligned),
	KUNIT_CASE(vcm_test_space_fragmentation),
	KUNIT_CASE(vcm_test_space_edges),
	KUNIT_CASE(vcm_test_create_errors),
	KUNIT_CASE(vcm_test_create_free),
	KUNIT_CASE(vcm_test_reserve),
	KUNIT_CASE_PARAM(vcm_test_reserve_errors, vcm_reserve_gen_params),
	KUNIT_CASE(vcm_test_reserve_exhaust),
	KUNIT_CASE(vcm_test_reserve_at),
	KUNIT_CASE(vcm_test_reserve_at_attrs),
	KUNIT_CASE(vcm_test_res_attr),
	KUNIT_CASE(vcm_test_res_edges),
	KUNIT_CASE(vcm_test_kernel_no_exec),
	KUNIT_CASE(vcm_test_bound),
	KUNIT_CASE(vcm_test_bound_attrs),
	KUNIT_CASE(vcm_test_bound_exhaust),
	{}
};

static struct kunit_suite vcm_test_space_suite = {
	.name = "vcm_space",
	.init = vcm_test_init,
	.test_cases = vcm_test_space_cases,
};

kunit_test_suite(vcm_test_space_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit tests for the Virtual Contiguous Memory manager");
MODULE_LICENSE("GPL");
