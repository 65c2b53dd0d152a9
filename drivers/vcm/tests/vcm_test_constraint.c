// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for VCM: constraints of devices, memory allocated for them, copies and
 * tables cut for a device's DMA.
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

/*
 * A device without an IOMMU whose DMA masks are @limit (left unset for a
 * mask the DMA API refuses): memory for it is allocated through it.
 */
static struct device *direct_dev(struct kunit *test, u64 limit)
{
	static atomic_t n = ATOMIC_INIT(0);
	struct device *dev;
	char name[32];

	snprintf(name, sizeof(name), "vcm-direct-%d", atomic_inc_return(&n));
	dev = kunit_device_register(test, name);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	dev->dma_mask = &dev->coherent_dma_mask;
	dma_set_mask_and_coherent(dev, limit);
	return dev;
}

static struct vcm_constraint direct(struct kunit *test, phys_addr_t limit,
				    unsigned int max_seg)
{
	struct vcm_constraint c;

	vcm_constraint_init(&c);
	c.flags = VCM_CONSTRAINT_CONTIGUOUS | VCM_CONSTRAINT_LIMIT;
	c.dma_limit = limit;
	c.dev = direct_dev(test, limit);
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
	KUNIT_EXPECT_PTR_EQ(test, a->dev, b->dev);
}

static void vcm_test_constraint_merge(struct kunit *test)
{
	struct vcm_constraint any, smmu = translated(SZ_4K | SZ_2M | SZ_1G);
	struct vcm_constraint big = translated(SZ_64K | SZ_512M);
	struct vcm_constraint dma32 = direct(test, DMA_BIT_MASK(32), SZ_64K);
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
	other = direct(test, DMA_BIT_MASK(36), SZ_1M);
	other.seg_boundary = SZ_1M - 1;
	KUNIT_ASSERT_EQ(test, vcm_constraint_merge(&other, &dma32), 0);
	KUNIT_EXPECT_EQ(test, other.dma_limit, (phys_addr_t)DMA_BIT_MASK(32));
	/* Memory is allocated through the device of the lower limit. */
	KUNIT_EXPECT_PTR_EQ(test, other.dev, dma32.dev);
	KUNIT_EXPECT_EQ(test, other.max_seg, SZ_64K);
	KUNIT_EXPECT_EQ(test, other.seg_boundary, (unsigned long)(SZ_1M - 1));

	/* A limit no page of RAM fits below is refused, and changes nothing. */
	other = direct(test, PAGE_SIZE - 2, SZ_64K);
	saved = acc;
	KUNIT_EXPECT_EQ(test, vcm_constraint_merge(&acc, &other), -ERANGE);
	expect_same(test, &acc, &saved);
}

static void vcm_test_constraint_of(struct kunit *test)
{
	struct vcm *o = own_vcm(test, vcm_create_one_to_one(0, SZ_4G));
	struct vcm *k = kernel_vcm(test);
	struct vcm_constraint c;
	struct device *dev;

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

	KUNIT_EXPECT_STREQ(test, vcm_constraint_name(VCM_CONSTRAINT_LIMIT), "dma-limit");
	KUNIT_EXPECT_STREQ(test, vcm_constraint_name(0), "none");
	KUNIT_EXPECT_EQ(test, free_vcm(test, o), 0);
}

/*
 * A constraint follows the associations of a VCM: a one-to-one VCM names
 * the device of its association as the one memory is allocated through,
 * below the lower of its range's end and the device's mask; a device
 * with a streaming but no coherent DMA mask has no constraint (-EINVAL).
 * An association alone keeps a VCM from being freed (-EBUSY) until it is
 * removed.
 */
static void vcm_test_constraint_of_assoc(struct kunit *test)
{
	u64 *mask = kunit_kzalloc(test, sizeof(*mask), GFP_KERNEL);
	struct device *d32 = direct_dev(test, DMA_BIT_MASK(32));
	struct device *nomask = kunit_device_register(test, "vcm-no-coherent-mask");
	struct vcm *o = own_vcm(test, vcm_create_one_to_one(0, SZ_2G));
	struct vcm_constraint c;
	struct vcm_avcm *ao;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, nomask);
	KUNIT_ASSERT_NOT_NULL(test, mask);

	ao = vcm_assoc(o, d32, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ao);
	KUNIT_ASSERT_EQ(test, vcm_constraint_of_vcm(o, &c), 0);
	KUNIT_EXPECT_EQ(test, c.flags,
			VCM_CONSTRAINT_CONTIGUOUS | VCM_CONSTRAINT_LIMIT);
	KUNIT_EXPECT_EQ(test, c.dma_limit, (phys_addr_t)SZ_2G - 1);
	KUNIT_EXPECT_PTR_EQ(test, c.dev, d32);
	KUNIT_EXPECT_EQ(test, free_vcm(test, o), -EBUSY);

	*mask = DMA_BIT_MASK(32);
	nomask->dma_mask = mask;
	nomask->coherent_dma_mask = 0;
	KUNIT_EXPECT_EQ(test, vcm_constraint_of_dev(nomask, &c), -EINVAL);

	KUNIT_EXPECT_EQ(test, vcm_deassoc(ao), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, o), 0);
}

/*
 * An IOMMU VCM without a domain yet maps base pages: its constraint asks
 * for chunks of the CPU's page size and nothing more (no range, no limit,
 * no device to allocate through).  Memory allocated for it comes from the
 * page allocator, meets it and backs a reservation of the VCM.
 */
static void vcm_test_constraint_of_iommu_vcm(struct kunit *test)
{
	struct vcm *vcm = new_dev_vcm(test);
	struct vcm_constraint c;
	struct vcm_physmem *pm;
	struct vcm_res *res;

	KUNIT_ASSERT_EQ(test, vcm_constraint_of_vcm(vcm, &c), 0);
	KUNIT_EXPECT_EQ(test, c.flags, VCM_CONSTRAINT_GRANULE);
	KUNIT_EXPECT_EQ(test, c.granule, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, c.pgsizes, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, c.dma_limit, PHYS_ADDR_MAX);
	KUNIT_EXPECT_NULL(test, c.dev);
	KUNIT_EXPECT_EQ(test, c.devices, 1);

	pm = own_phys(test, vcm_phys_alloc_for(SZ_64K, 0, &c));
	KUNIT_EXPECT_NULL(test, pm->dma_dev);
	KUNIT_EXPECT_EQ(test, vcm_constraint_unmet(&c, pm), 0);
	res = vcm_reserve(vcm, SZ_64K, RW_CACHED);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	KUNIT_EXPECT_EQ(test, vcm_back(res, pm), 0);
	KUNIT_EXPECT_EQ(test, vcm_unback(res), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(res), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, vcm), 0);
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
	struct vcm_constraint dma32 = direct(test, DMA_BIT_MASK(32), SZ_64K);
	struct vcm_constraint low = dma32, c;
	struct vcm_physmem *pm, *cont, *lowpm, *small;
	unsigned int cursor, n = 0;
	phys_addr_t phys, first = 0;
	size_t len;

	/* Chunked for the IOMMU: it meets the IOMMU's needs, not dma32's. */
	pm = own_phys(test, vcm_phys_alloc_for(SZ_4M + SZ_4K, 0, &smmu));
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
	cont = own_phys(test, vcm_phys_alloc_for(SZ_2M + SZ_4K, 0, &dma32));
	KUNIT_EXPECT_EQ(test, vcm_constraint_unmet(&dma32, cont), 0);
	KUNIT_EXPECT_EQ(test, vcm_constraint_unmet(&smmu, cont), 0);
	KUNIT_EXPECT_LE(test, phys_top(cont), (phys_addr_t)DMA_BIT_MASK(32));
	KUNIT_EXPECT_TRUE(test, cont->contiguous);
	KUNIT_EXPECT_PTR_EQ(test, cont->dma_dev, dma32.dev);

	/*
	 * The DMA API answers for the limit of the device it allocated for,
	 * not for a lower one another device (or a one-to-one VCM) adds:
	 * that is held to physical addresses.
	 */
	vcm_for_each_phys_chunk(cont, cursor, phys, len)
		first = phys;
	c = dma32;
	c.dma_limit = first;
	KUNIT_EXPECT_EQ(test, vcm_constraint_unmet(&c, cont), VCM_CONSTRAINT_LIMIT);
	c = dma32;
	c.dev = direct_dev(test, DMA_BIT_MASK(32));
	KUNIT_EXPECT_EQ(test, vcm_constraint_unmet(&c, cont), 0);
	c.dma_limit = first;
	KUNIT_EXPECT_EQ(test, vcm_constraint_unmet(&c, cont), VCM_CONSTRAINT_LIMIT);

	/*
	 * Below 4 GiB but in chunks: through the device where it cannot
	 * reach all of RAM, from the page allocator where it can.
	 */
	low.flags = VCM_CONSTRAINT_LIMIT;
	lowpm = own_phys(test, vcm_phys_alloc_for(SZ_8M, 0, &low));
	KUNIT_EXPECT_LE(test, phys_top(lowpm), (phys_addr_t)DMA_BIT_MASK(32));
	KUNIT_EXPECT_EQ(test, vcm_constraint_unmet(&low, lowpm), 0);

	/* A 4 KiB chunk is not one a 64 KiB-granule IOMMU maps. */
	small = own_phys(test, vcm_phys_alloc_for(SZ_4K, 0, &smmu));
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

	KUNIT_EXPECT_EQ(test, free_phys(test, small), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, lowpm), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, cont), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
}

/*
 * vcm_phys_alloc_for() hands out memory that meets the constraint or
 * none.  For one no RAM can meet, a limit below every byte of RAM (which
 * vcm_constraint_merge() refuses: only a hand-made constraint has it),
 * the chunks it allocated are given back and it fails with -ENOMEM,
 * keeping and counting nothing.
 */
static void vcm_test_constraint_alloc_unmet(struct kunit *test)
{
	long physmems = vcm_stat_read(VCM_STAT_PHYSMEMS);
	long bytes = vcm_stat_read(VCM_STAT_PHYS_BYTES);
	struct vcm_constraint c, acc;
	struct vcm_physmem *pm;

	vcm_constraint_init(&c);
	c.flags = VCM_CONSTRAINT_LIMIT;
	c.dma_limit = 0;
	c.devices = 1;
	vcm_constraint_init(&acc);
	KUNIT_EXPECT_EQ(test, vcm_constraint_merge(&acc, &c), -ERANGE);

	pm = vcm_phys_alloc_for(SZ_64K, 0, &c);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(pm), -ENOMEM);
	if (!IS_ERR(pm))
		vcm_phys_free(pm);
	KUNIT_EXPECT_EQ(test, vcm_stat_read(VCM_STAT_PHYSMEMS), physmems);
	KUNIT_EXPECT_EQ(test, vcm_stat_read(VCM_STAT_PHYS_BYTES), bytes);
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
	struct vcm_physmem *pm = new_phys(test, len, VCM_PHYS_CONT, 0);
	struct device_dma_parameters *parms;
	struct sg_table sgt;
	struct device *dev;
	unsigned int cursor = 0;
	phys_addr_t start;
	size_t l;

	KUNIT_ASSERT_EQ(test, vcm_test_next_chunk(pm, &cursor, &start, &l), 0);

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

	/* A device's own limits: 256 KiB segments, none across a 1 MiB line. */
	dev = kunit_device_register(test, "vcm-sgt-for-dev");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	dev->coherent_dma_mask = DMA_BIT_MASK(64);
	dev->dma_mask = &dev->coherent_dma_mask;
	parms = kunit_kzalloc(test, sizeof(*parms), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, parms);
	parms->max_segment_size = SZ_256K;
	parms->segment_boundary_mask = SZ_1M - 1;
	dev->dma_parms = parms;
	KUNIT_ASSERT_EQ(test, vcm_phys_to_sgt_for_dev(pm, dev, &sgt), 0);
	KUNIT_EXPECT_EQ(test, check_sgt(test, &sgt, start, len, SZ_256K, SZ_1M - 1),
			DIV_ROUND_UP(len, SZ_256K));
	sg_free_table(&sgt);

	KUNIT_EXPECT_EQ(test, vcm_phys_to_sgt(pm, SZ_2K, ULONG_MAX, &sgt), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_phys_to_sgt(pm, SZ_64K, SZ_2K - 1, &sgt), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_phys_to_sgt(NULL, SZ_64K, ULONG_MAX, &sgt), -EINVAL);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
}

static void vcm_test_phys_copy(struct kunit *test)
{
	struct vcm_constraint dma32 = direct(test, DMA_BIT_MASK(32), SZ_64K);
	struct vcm_physmem *src = new_phys(test, SZ_2M + SZ_64K, 0, 0);
	struct vcm_physmem *dst = own_phys(test, vcm_phys_alloc_for(SZ_2M + SZ_64K, 0,
								   &dma32));
	struct vcm_physmem *other = new_phys(test, SZ_64K, 0, 0);
	struct vcm *k = kernel_vcm(test);
	struct vcm_res *res;
	size_t off;
	u32 *p;

	vcm_fill_pattern(src, 0x2000);
	KUNIT_EXPECT_EQ(test, vcm_phys_copy(dst, other), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_phys_copy(dst, dst), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_phys_copy(NULL, src), -EINVAL);

	/* Memory being mapped is not copied. */
	res = own_res(test, vcm_reserve(k, SZ_2M + SZ_64K, RW_CACHED));
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
	KUNIT_EXPECT_EQ(test, unreserve_res(test, res), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, other), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, dst), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, src), 0);
}

/*
 * What a write-combined mapping wrote went to memory around the caches,
 * and the linear-map alias vcm_phys_copy() reads through may hold older
 * lines.  A source last mapped non-cacheable is therefore cleaned before
 * it is copied, one maintenance operation per chunk, and the copy holds
 * what the mapping wrote.
 */
static void vcm_test_phys_copy_after_wc(struct kunit *test)
{
	struct vcm_physmem *src = new_phys(test, SZ_64K, 0, 0);
	struct vcm_physmem *dst = new_phys(test, SZ_64K, 0, 0);
	struct vcm *k = kernel_vcm(test);
	unsigned int cursor, chunks = 0, i, bad = 0;
	struct vcm_res *wc, *cached;
	phys_addr_t phys;
	long maint;
	size_t len;
	u32 *v;

	vcm_for_each_phys_chunk(src, cursor, phys, len)
		chunks++;
	wc = own_res(test, vcm_reserve(k, SZ_64K, RW_WC));
	KUNIT_ASSERT_EQ(test, vcm_back(wc, src), 0);
	v = vcm_get_vaddr(wc);
	KUNIT_ASSERT_NOT_NULL(test, v);
	for (i = 0; i < SZ_64K / 4; i++)
		v[i] = 0xc0de0000 | i;
	KUNIT_EXPECT_EQ(test, vcm_unback(wc), 0);
	KUNIT_EXPECT_EQ(test, unreserve_res(test, wc), 0);

	maint = vcm_stat_read(VCM_STAT_CACHE_MAINT);
	KUNIT_ASSERT_EQ(test, vcm_phys_copy(dst, src), 0);
	KUNIT_EXPECT_EQ(test, vcm_stat_read(VCM_STAT_CACHE_MAINT), maint + chunks);

	/* @dst was written through the cacheable alias: read it cached. */
	cached = own_res(test, vcm_reserve(k, SZ_64K, RW_CACHED));
	KUNIT_ASSERT_EQ(test, vcm_back(cached, dst), 0);
	v = vcm_get_vaddr(cached);
	for (i = 0; i < SZ_64K / 4; i++)
		bad += v[i] != (0xc0de0000 | i);
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_EQ(test, vcm_unback(cached), 0);
	KUNIT_EXPECT_EQ(test, unreserve_res(test, cached), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, dst), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, src), 0);
}

static struct kunit_case vcm_test_constraint_cases[] = {
	KUNIT_CASE(vcm_test_constraint_merge),
	KUNIT_CASE(vcm_test_constraint_of),
	KUNIT_CASE(vcm_test_constraint_of_assoc),
	KUNIT_CASE(vcm_test_constraint_of_iommu_vcm),
	KUNIT_CASE(vcm_test_constraint_alloc),
	KUNIT_CASE(vcm_test_constraint_alloc_unmet),
	KUNIT_CASE(vcm_test_phys_copy),
	KUNIT_CASE(vcm_test_phys_copy_after_wc),
	KUNIT_CASE(vcm_test_phys_to_sgt),
	{}
};

static struct kunit_suite vcm_test_constraint_suite = {
	.name = "vcm_constraint",
	.init = vcm_test_init,
	.test_cases = vcm_test_constraint_cases,
};

kunit_test_suite(vcm_test_constraint_suite);
