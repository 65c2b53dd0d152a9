// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for VCM: backing reservations, the one-to-one and VMM kinds, associations
 * and the cache policy.
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

/* --- backing, the VMM kinds and the cache policy ---------------------- */

static void vcm_test_back_kernel(struct kunit *test)
{
	struct vcm *k = kernel_vcm(test);
	struct vcm_physmem *pm = new_phys(test, SZ_2M + SZ_64K, 0, 0);
	struct vcm_res *res = own_res(test, vcm_reserve(k, SZ_2M + SZ_64K, RW_CACHED));
	struct vcm_res *small = own_res(test, vcm_reserve(k, SZ_64K, RW_CACHED));
	size_t off;
	u32 *vaddr;

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

	KUNIT_EXPECT_EQ(test, vcm_unback(res), 0);
	KUNIT_EXPECT_EQ(test, vcm_unback(res), -ENOENT);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(res), DMA_MAPPING_ERROR);
	vcm_fill_pattern(pm, 0); /* rewrites all but proves the page is alive */
	KUNIT_EXPECT_EQ(test, unreserve_res(test, res), 0);
	KUNIT_EXPECT_EQ(test, unreserve_res(test, small), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
}

static void vcm_test_cache_conflict(struct kunit *test)
{
	struct vcm *k = kernel_vcm(test), *dev = new_dev_vcm(test);
	struct vcm_physmem *pm = new_phys(test, SZ_64K, 0, 0);
	struct vcm_physmem *coh = new_phys(test, SZ_64K, VCM_COHERENT, 0);
	struct vcm_res *cached = own_res(test, vcm_reserve(k, SZ_64K, RW_CACHED));
	struct vcm_res *wc = own_res(test, vcm_reserve(k, SZ_64K, RW_WC));
	struct vcm_res *nc = vcm_reserve(dev, SZ_64K, RW | VCM_NOTCACHED);
	long conflicts = vcm_stat_read(VCM_STAT_CONFLICTS);

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

	unreserve_res(test, cached);
	unreserve_res(test, wc);
	vcm_unreserve(nc);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, coh), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, dev), 0);
}

/*
 * Back @wc with @pm, filled with the pattern of @seed through the
 * cacheable linear map: the backing does @maint cache maintenance
 * operations, and the write-combined mapping reads the pattern.
 */
static void expect_wc_reads(struct kunit *test, struct vcm_res *wc,
			    struct vcm_physmem *pm, u32 seed, long maint)
{
	long before = vcm_stat_read(VCM_STAT_CACHE_MAINT);
	size_t off, len = vcm_get_physmem_len(pm);
	u32 *v;

	KUNIT_ASSERT_EQ(test, vcm_back(wc, pm), 0);
	KUNIT_EXPECT_EQ(test, vcm_stat_read(VCM_STAT_CACHE_MAINT), before + maint);
	v = vcm_get_vaddr(wc);
	for (off = 0; off < len; off += 1020)
		KUNIT_EXPECT_EQ(test, v[off / 4], vcm_pattern_at(pm, seed, off));
	KUNIT_EXPECT_EQ(test, vcm_unback(wc), 0);
}

static void vcm_test_cache_maintenance(struct kunit *test)
{
	struct vcm *k = kernel_vcm(test);
	struct vcm_physmem *pm = new_phys(test, SZ_128K, 0, SZ_64K);
	struct vcm_res *cached = own_res(test, vcm_reserve(k, SZ_128K, RW_CACHED));
	struct vcm_res *wc = own_res(test, vcm_reserve(k, SZ_128K, RW_WC));
	long maint = vcm_stat_read(VCM_STAT_CACHE_MAINT);
	struct vcm_physmem *cont;

	/*
	 * Written through the cacheable linear map, cleaned when first
	 * mapped write-combined, once per chunk.
	 */
	vcm_fill_pattern(pm, 0x77);
	expect_wc_reads(test, wc, pm, 0x77, 2);

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

	/*
	 * A range from the DMA API is maintained through that allocation's
	 * own DMA address: a second streaming mapping of it would overlap
	 * the allocation's, which DMA-API debugging reports as a splat.
	 */
	KUNIT_EXPECT_EQ(test, unreserve_res(test, wc), 0);
	wc = own_res(test, vcm_reserve(k, SZ_2M, RW_WC));
	cont = new_phys(test, SZ_2M, VCM_PHYS_CONT, 0);
	vcm_fill_pattern(cont, 0x99);
	expect_wc_reads(test, wc, cont, 0x99, 1);

	unreserve_res(test, cached);
	unreserve_res(test, wc);
	KUNIT_EXPECT_EQ(test, free_phys(test, cont), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
}

/*
 * Memory allocated through a device that snoops the CPU's caches (a KUnit
 * device declared DMA-coherent, as a "dma-coherent" one is) cannot be
 * written back for a non-cacheable mapping: the DMA API does no cache
 * maintenance for that device.  vcm_back() refuses the write-combined
 * backing with -EOPNOTSUPP, does no maintenance, counts no conflict and
 * leaves the physmem's cache class free: a cached backing still succeeds.
 */
static void vcm_test_back_snooping_dev(struct kunit *test)
{
	struct device *dev = kunit_device_register(test, "vcm-snoop");
	struct vcm *k = kernel_vcm(test);
	long maint, conflicts;
	struct vcm_res *wc, *cached;
	struct vcm_constraint c;
	struct vcm_physmem *pm;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	/* Where the architecture has no such flag, every device snoops. */
#if defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_DEVICE) || \
	defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_CPU) || \
	defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_CPU_ALL)
	dev->dma_coherent = true;
#endif
	dev->dma_mask = &dev->coherent_dma_mask;
	KUNIT_ASSERT_EQ(test, dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64)), 0);
	KUNIT_ASSERT_EQ(test, vcm_constraint_of_dev(dev, &c), 0);
	pm = own_phys(test, vcm_phys_alloc_for(SZ_64K, 0, &c));
	/* One range from the device's DMA API: cleaned through it. */
	KUNIT_ASSERT_PTR_EQ(test, pm->dma_dev, dev);

	wc = own_res(test, vcm_reserve(k, SZ_64K, RW_WC));
	cached = own_res(test, vcm_reserve(k, SZ_64K, RW_CACHED));

	maint = vcm_stat_read(VCM_STAT_CACHE_MAINT);
	conflicts = vcm_stat_read(VCM_STAT_CONFLICTS);
	KUNIT_EXPECT_EQ(test, vcm_back(wc, pm), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, vcm_stat_read(VCM_STAT_CACHE_MAINT), maint);
	KUNIT_EXPECT_EQ(test, vcm_stat_read(VCM_STAT_CONFLICTS), conflicts);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_get_physmem_from_res(wc)), -ENOENT);
	KUNIT_EXPECT_NULL(test, vcm_get_vaddr(wc));

	KUNIT_EXPECT_EQ(test, vcm_back(cached, pm), 0);
	KUNIT_EXPECT_NOT_NULL(test, vcm_get_vaddr(cached));
	KUNIT_EXPECT_EQ(test, vcm_unback(cached), 0);

	KUNIT_EXPECT_EQ(test, unreserve_res(test, cached), 0);
	KUNIT_EXPECT_EQ(test, unreserve_res(test, wc), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
}

/* Whether a write to @p faults, handled as copy_to_kernel_nofault() does. */
static bool write_faults(u32 *p)
{
	u32 v = 0;

	pagefault_disable();
	__put_kernel_nofault(p, &v, u32, fault);
	pagefault_enable();
	return false;
fault:
	pagefault_enable();
	return true;
}

/*
 * A kernel reservation without VCM_WRITE is mapped read-only: the CPU
 * reads the memory through it as it is, and a write through it faults.
 * A reservation of another kind than DMA has no table of device
 * addresses, and the syncs of the DMA kind do nothing for it.
 */
static void vcm_test_back_read_only(struct kunit *test)
{
	struct vcm *k = kernel_vcm(test);
	struct vcm_physmem *pm = new_phys(test, SZ_64K, 0, 0);
	struct vcm_res *res = own_res(test, vcm_reserve(k, SZ_64K, VCM_READ | VCM_WB_WA));
	size_t off;
	u32 *vaddr;

	vcm_fill_pattern(pm, 0x3000);
	KUNIT_ASSERT_EQ(test, vcm_back(res, pm), 0);
	vaddr = vcm_get_vaddr(res);
	KUNIT_ASSERT_NOT_NULL(test, vaddr);
	KUNIT_EXPECT_TRUE(test, write_faults(vaddr));
	KUNIT_EXPECT_NULL(test, vcm_get_dma_sgt(res));
	vcm_sync_for_device(res);
	vcm_sync_for_cpu(res);
	for (off = 0; off < SZ_64K; off += SZ_4K + 4)
		KUNIT_EXPECT_EQ(test, vaddr[off / 4], vcm_pattern_at(pm, 0x3000, off));

	KUNIT_EXPECT_EQ(test, vcm_unback(res), 0);
	KUNIT_EXPECT_NULL(test, vcm_get_vaddr(res));
	KUNIT_EXPECT_EQ(test, unreserve_res(test, res), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
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
	KUNIT_ASSERT_EQ(test, vcm_test_next_chunk(cont, &cursor, &phys, &len), 0);

	o = own_vcm(test, vcm_create_one_to_one(0, SZ_4G));
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
	far = own_vcm(test, vcm_create_one_to_one(SZ_4K, SZ_64K));
	r1 = vcm_reserve(far, SZ_64K, RW);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r1);
	KUNIT_EXPECT_EQ(test, vcm_back(r1, cont), -ERANGE);
	vcm_unreserve(r1);
	KUNIT_EXPECT_EQ(test, free_vcm(test, far), 0);

	KUNIT_EXPECT_EQ(test, vcm_deactivate(avcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_dev_addr_to_phys_addr(dev, phys, &got), -ENODEV);
	KUNIT_EXPECT_EQ(test, vcm_deassoc(avcm), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, o), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, cont), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, scattered), 0);
}

/*
 * A one-to-one VCM's device addresses are physical addresses, so a device
 * must reach all of them: vcm_assoc() refuses with -ERANGE a device whose
 * DMA mask ends below the VCM's last address (the DMA API's default of 32
 * bits, then a mask set to 32 bits) and makes no association; a mask that
 * ends exactly at it is enough.
 */
static void vcm_test_one_to_one_mask(struct kunit *test)
{
	struct device *dev = kunit_device_register(test, "vcm-o2o-mask");
	struct vcm *o = own_vcm(test, vcm_create_one_to_one(0, SZ_8G));
	struct vcm_avcm *avcm;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_assoc(o, dev, 0)), -ERANGE);
	dev->dma_mask = &dev->coherent_dma_mask;
	KUNIT_ASSERT_EQ(test, dma_set_mask_and_coherent(dev, DMA_BIT_MASK(32)), 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_assoc(o, dev, 0)), -ERANGE);

	KUNIT_ASSERT_EQ(test, dma_set_mask_and_coherent(dev, DMA_BIT_MASK(33)), 0);
	avcm = vcm_assoc(o, dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, avcm);
	KUNIT_EXPECT_EQ(test, vcm_deassoc(avcm), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, o), 0);
}

/*
 * A one-to-one reservation is placed at the physical address of its
 * backing: without a VCM_ALIGN_* of its own it is placed there even where
 * its default alignment (64K for 64K) does not hold; with one the memory
 * does not meet, vcm_back() fails with -EINVAL and leaves it unplaced
 * and unbacked; with one the memory meets, it is placed.  A clone of the
 * VCM has the placed reservation at the same address, backed with the
 * same memory, and the unplaced ones unplaced.
 */
static void vcm_test_one_to_one_align(struct kunit *test)
{
	struct vcm_res *a, *b, *c, *ca, *first;
	struct vcm_physmem *hi;
	struct vcm *o, *clone;
	struct page *page;
	phys_addr_t phys;
	dma_addr_t out;

	page = vcm_test_alloc_pages(test, GFP_KERNEL | __GFP_NOWARN,
				    get_order(SZ_128K));
	if (!page)
		kunit_skip(test, "no 128K of contiguous memory");
	/* One page into a 128K-aligned range: not 64K-aligned (4K, 16K pages). */
	phys = page_to_phys(page) + PAGE_SIZE;
	o = own_vcm(test, vcm_create_one_to_one(page_to_phys(page), SZ_128K));
	hi = own_phys(test, vcm_phys_from_range(phys, SZ_64K));

	a = vcm_reserve(o, SZ_64K, RW_CACHED);
	b = vcm_reserve(o, SZ_64K, RW_CACHED | VCM_ALIGN_64K);
	c = vcm_reserve(o, SZ_64K, RW_CACHED | VCM_ALIGN_ATTR(PAGE_SHIFT));
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c);

	KUNIT_ASSERT_EQ(test, vcm_back(a, hi), 0);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(a), (dma_addr_t)phys);
	KUNIT_EXPECT_EQ(test, vcm_unback(a), 0);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(a), DMA_MAPPING_ERROR);

	if (PAGE_SIZE < SZ_64K) {
		KUNIT_EXPECT_EQ(test, vcm_back(b, hi), -EINVAL);
		KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(b), DMA_MAPPING_ERROR);
		KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_get_physmem_from_res(b)), -ENOENT);
		KUNIT_EXPECT_NULL(test, vcm_get_res(o, phys));
	}

	KUNIT_ASSERT_EQ(test, vcm_back(c, hi), 0);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(c), (dma_addr_t)phys);
	KUNIT_EXPECT_PTR_EQ(test, vcm_get_res(o, phys + SZ_4K), c);

	clone = own_vcm(test, vcm_clone(o));
	KUNIT_EXPECT_EQ(test, vcm_get_num_res(clone), 3);
	ca = vcm_get_res(clone, phys + SZ_4K);
	KUNIT_ASSERT_NOT_NULL(test, ca);
	KUNIT_EXPECT_PTR_NE(test, ca, c);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(ca), (dma_addr_t)phys);
	KUNIT_EXPECT_PTR_EQ(test, vcm_get_physmem_from_res(ca), hi);
	KUNIT_EXPECT_EQ(test, vcm_translate(o, phys + 8, clone, &out), 0);
	KUNIT_EXPECT_EQ(test, out, (dma_addr_t)phys + 8);
	/* The clone of a, first in the list, is unplaced as a is. */
	first = vcm_get_next_res(clone, NULL);
	KUNIT_ASSERT_NOT_NULL(test, first);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(first), DMA_MAPPING_ERROR);

	KUNIT_EXPECT_EQ(test, vcm_unback(ca), 0);
	while ((ca = vcm_get_next_res(clone, NULL)))
		KUNIT_ASSERT_EQ(test, vcm_unreserve(ca), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, clone), 0);
	KUNIT_EXPECT_EQ(test, vcm_unback(c), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(a), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(b), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(c), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, hi), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, o), 0);
}

/*
 * A DMA VCM of a device without an IOMMU, which the DMA API maps for
 * directly.  Without its device, or while the association is inactive,
 * vcm_back() fails with -ENODEV and leaves the reservation unbacked; the
 * VCM's constraint without a device allows any memory.  Backed while
 * active, a reservation gets the address of its DMA table, no IOMMU
 * entries, and the direction its attributes allow; the CPU's data is
 * intact after a sync for the device and back.  Deactivation unmaps the
 * backed reservations and keeps them backed (vcm_translate() finds no
 * address there), activation maps them again and leaves an unbacked one
 * unplaced; an active association is not removed (-EBUSY), nor
 * deactivated twice (-ENOENT).
 */
static void vcm_test_dma_direct(struct kunit *test)
{
	struct device *dev = kunit_device_register(test, "vcm-dma-direct");
	struct vcm *k = kernel_vcm(test), *dvcm;
	struct vcm_res *rd, *wr, *un, *rk;
	struct vcm_physmem *pm, *wpm;
	struct vcm_constraint c;
	struct vcm_avcm *avcm;
	dma_addr_t addr, out;
	phys_addr_t phys;
	size_t off;
	u32 *cpu;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	dev->dma_mask = &dev->coherent_dma_mask;
	KUNIT_ASSERT_EQ(test, dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64)), 0);
	dvcm = own_vcm(test, vcm_create_dma());
	pm = new_phys(test, SZ_64K, 0, 0);
	wpm = new_phys(test, SZ_64K, 0, 0);
	rd = vcm_reserve(dvcm, SZ_64K, VCM_READ | VCM_WB_WA);
	wr = vcm_reserve(dvcm, SZ_64K, VCM_WRITE | VCM_WB_WA);
	un = vcm_reserve(dvcm, SZ_64K, RW_CACHED);
	rk = own_res(test, vcm_reserve(k, SZ_64K, RW_CACHED));
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, rd);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, wr);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, un);

	KUNIT_EXPECT_EQ(test, vcm_back(rd, pm), -ENODEV);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_get_physmem_from_res(rd)), -ENOENT);
	KUNIT_ASSERT_EQ(test, vcm_constraint_of_vcm(dvcm, &c), 0);
	KUNIT_EXPECT_EQ(test, c.flags, 0);
	KUNIT_EXPECT_EQ(test, c.dma_limit, PHYS_ADDR_MAX);
	KUNIT_EXPECT_NULL(test, c.dev);

	avcm = vcm_assoc(dvcm, dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, avcm);
	KUNIT_EXPECT_EQ(test, vcm_back(rd, pm), -ENODEV);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_get_physmem_from_res(rd)), -ENOENT);
	KUNIT_ASSERT_EQ(test, vcm_activate(avcm), 0);

	vcm_fill_pattern(pm, 0x4000);
	KUNIT_ASSERT_EQ(test, vcm_back(rd, pm), 0);
	KUNIT_ASSERT_EQ(test, vcm_back(wr, wpm), 0);
	KUNIT_ASSERT_EQ(test, vcm_back(rk, pm), 0);
	KUNIT_EXPECT_EQ(test, rd->dma_dir, DMA_TO_DEVICE);
	KUNIT_EXPECT_EQ(test, wr->dma_dir, DMA_FROM_DEVICE);
	addr = vcm_get_dev_addr(rd);
	KUNIT_EXPECT_NE(test, addr, DMA_MAPPING_ERROR);
	KUNIT_ASSERT_NOT_NULL(test, vcm_get_dma_sgt(rd));
	KUNIT_EXPECT_EQ(test, vcm_get_res_num_ptes(rd), 0);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(un), DMA_MAPPING_ERROR);

	cpu = vcm_get_vaddr(rk);
	KUNIT_ASSERT_NOT_NULL(test, cpu);
	/* In the segment of the DMA mapping that holds the byte. */
	KUNIT_ASSERT_EQ(test, vcm_translate(k, (uintptr_t)cpu + SZ_8K + 8, dvcm,
					    &out), 0);
	KUNIT_EXPECT_EQ(test, out, vcm_test_dma_addr_at(vcm_get_dma_sgt(rd), SZ_8K + 8));
	/* The DMA API's addresses are not looked up (see the kernel-doc). */
	KUNIT_EXPECT_NULL(test, vcm_get_res(dvcm, addr));
	KUNIT_EXPECT_EQ(test, vcm_dev_addr_to_phys_addr(dev, addr, &phys),
			-EOPNOTSUPP);
	vcm_sync_for_device(rd);
	vcm_sync_for_cpu(rd);
	for (off = 0; off < SZ_64K; off += SZ_4K + 4)
		KUNIT_EXPECT_EQ(test, cpu[off / 4], vcm_pattern_at(pm, 0x4000, off));

	KUNIT_ASSERT_EQ(test, vcm_deactivate(avcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_deactivate(avcm), -ENOENT);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(rd), DMA_MAPPING_ERROR);
	KUNIT_EXPECT_NULL(test, vcm_get_dma_sgt(rd));
	KUNIT_EXPECT_PTR_EQ(test, vcm_get_physmem_from_res(rd), pm);
	KUNIT_EXPECT_PTR_EQ(test, vcm_get_physmem_from_res(wr), wpm);
	KUNIT_EXPECT_EQ(test, vcm_translate(k, (uintptr_t)cpu, dvcm, &out), -ENOENT);

	KUNIT_ASSERT_EQ(test, vcm_activate(avcm), 0);
	KUNIT_EXPECT_NE(test, vcm_get_dev_addr(rd), DMA_MAPPING_ERROR);
	KUNIT_EXPECT_NE(test, vcm_get_dev_addr(wr), DMA_MAPPING_ERROR);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(un), DMA_MAPPING_ERROR);
	KUNIT_EXPECT_NOT_NULL(test, vcm_get_dma_sgt(rd));
	KUNIT_EXPECT_NULL(test, vcm_get_dma_sgt(un));
	KUNIT_EXPECT_EQ(test, vcm_translate(k, (uintptr_t)cpu, dvcm, &out), 0);
	KUNIT_EXPECT_EQ(test, out, vcm_get_dev_addr(rd));
	KUNIT_EXPECT_EQ(test, vcm_deassoc(avcm), -EBUSY);

	KUNIT_EXPECT_EQ(test, vcm_unback(rd), 0);
	KUNIT_EXPECT_EQ(test, vcm_unback(wr), 0);
	KUNIT_EXPECT_EQ(test, vcm_unback(rk), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(rd), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(wr), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(un), 0);
	KUNIT_EXPECT_EQ(test, unreserve_res(test, rk), 0);
	KUNIT_EXPECT_EQ(test, vcm_deactivate(avcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_deassoc(avcm), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, wpm), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, dvcm), 0);
}

/*
 * For a VCM of the CPU kinds, vcm_dev_addr_to_phys_addr() follows the
 * reservation's backing: an address in any chunk of a scattered physmem
 * gives the physical address at that offset of that chunk, not of the
 * first one.  Chunks of base pages, so that there are several.
 */
static void vcm_test_dev_addr_chunks(struct kunit *test)
{
	struct device *dev = kunit_device_register(test, "vcm-dev-addr");
	struct vcm_physmem *pm = new_phys(test, 4 * PAGE_SIZE, 0, PAGE_SIZE);
	struct vcm *k = kernel_vcm(test);
	struct vcm_avcm *avcm;
	phys_addr_t phys, got = 0;
	unsigned int cursor;
	struct vcm_res *res;
	size_t len, off = 0;
	dma_addr_t addr;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	avcm = vcm_assoc(k, dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, avcm);
	KUNIT_EXPECT_EQ(test, vcm_activate(avcm), 0);
	res = own_res(test, vcm_reserve(k, 4 * PAGE_SIZE, RW_CACHED));
	KUNIT_EXPECT_EQ(test, vcm_back(res, pm), 0);
	addr = vcm_get_dev_addr(res);

	vcm_for_each_phys_chunk(pm, cursor, phys, len) {
		KUNIT_EXPECT_EQ(test, vcm_dev_addr_to_phys_addr(dev, addr + off + 0x18,
								&got), 0);
		KUNIT_EXPECT_EQ(test, got, phys + 0x18);
		KUNIT_EXPECT_EQ(test, vcm_dev_addr_to_phys_addr(dev, addr + off + len - 1,
								&got), 0);
		KUNIT_EXPECT_EQ(test, got, phys + len - 1);
		off += len;
	}
	KUNIT_EXPECT_EQ(test, cursor, 4);
	KUNIT_EXPECT_EQ(test, off, 4 * PAGE_SIZE);

	KUNIT_EXPECT_EQ(test, vcm_unback(res), 0);
	KUNIT_EXPECT_EQ(test, unreserve_res(test, res), 0);
	KUNIT_EXPECT_EQ(test, vcm_deactivate(avcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_deassoc(avcm), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
}

/*
 * vcm_dev_addr_to_phys_addr() answers for the device asked about only.
 * Two devices are associated with one one-to-one VCM, the second's
 * association listed after the first's: asked about the second, the walk
 * passes the first's by and follows the backing.  Once the second's
 * association is inactive it has none to answer from (-ENODEV), though
 * the first's still answers.  A NULL device or output is refused, and
 * an unknown attribute is refused to an existing association as it is
 * to vcm_assoc(), the association keeping its attributes.
 */
static void vcm_test_dev_addr_two_devs(struct kunit *test)
{
	struct device *d1 = kunit_device_register(test, "vcm-dev-addr-1");
	struct device *d2 = kunit_device_register(test, "vcm-dev-addr-2");
	struct vcm_physmem *pm = new_phys(test, PAGE_SIZE, 0, 0);
	struct vcm_avcm *a1, *a2;
	unsigned int cursor = 0;
	phys_addr_t phys, got;
	struct vcm_res *res;
	dma_addr_t addr;
	struct vcm *o;
	size_t len;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, d1);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, d2);
	KUNIT_ASSERT_EQ(test, dma_set_mask_and_coherent(d1, DMA_BIT_MASK(64)), 0);
	KUNIT_ASSERT_EQ(test, dma_set_mask_and_coherent(d2, DMA_BIT_MASK(64)), 0);
	KUNIT_ASSERT_EQ(test, vcm_test_next_chunk(pm, &cursor, &phys, &len), 0);

	o = own_vcm(test, vcm_create_one_to_one(0, 1ULL << 40));
	a1 = vcm_assoc(o, d1, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a1);
	a2 = vcm_assoc(o, d2, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a2);
	KUNIT_ASSERT_EQ(test, vcm_activate(a1), 0);
	KUNIT_ASSERT_EQ(test, vcm_activate(a2), 0);
	res = vcm_reserve(o, PAGE_SIZE, RW_CACHED);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	KUNIT_ASSERT_EQ(test, vcm_back(res, pm), 0);
	addr = vcm_get_dev_addr(res);
	KUNIT_EXPECT_EQ(test, addr, (dma_addr_t)phys);

	KUNIT_EXPECT_EQ(test, vcm_dev_addr_to_phys_addr(d2, addr + 8, &got), 0);
	KUNIT_EXPECT_EQ(test, got, phys + 8);
	KUNIT_EXPECT_EQ(test, vcm_deactivate(a2), 0);
	KUNIT_EXPECT_EQ(test, vcm_dev_addr_to_phys_addr(d2, addr, &got), -ENODEV);
	got = 0;
	KUNIT_EXPECT_EQ(test, vcm_dev_addr_to_phys_addr(d1, addr + 16, &got), 0);
	KUNIT_EXPECT_EQ(test, got, phys + 16);
	KUNIT_EXPECT_EQ(test, vcm_dev_addr_to_phys_addr(NULL, addr, &got), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_dev_addr_to_phys_addr(d1, addr, NULL), -EINVAL);

	KUNIT_EXPECT_EQ(test, vcm_set_assoc_attr(a2, BIT(9)), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_get_assoc_attr(a2), 0);

	KUNIT_EXPECT_EQ(test, vcm_unback(res), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(res), 0);
	KUNIT_EXPECT_EQ(test, vcm_deactivate(a1), 0);
	KUNIT_EXPECT_EQ(test, vcm_deassoc(a1), 0);
	KUNIT_EXPECT_EQ(test, vcm_deassoc(a2), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, o), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
}

static void vcm_test_assoc(struct kunit *test)
{
	struct device *dev = kunit_device_register(test, "vcm-assoc");
	struct vcm *vcm = new_dev_vcm(test), *k = kernel_vcm(test);
	struct vcm_avcm *avcm;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	/* The KUnit device is behind no IOMMU. */
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_assoc(vcm, dev, 0)), -ENODEV);
	KUNIT_EXPECT_EQ(test, vcm_hook(dev, NULL, NULL), -ENODEV);
	KUNIT_EXPECT_EQ(test, vcm_hook(NULL, NULL, NULL), -EINVAL);

	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_assoc(k, NULL, 0)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_assoc(NULL, dev, 0)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_assoc(k, dev, BIT(9))), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_assoc(k, dev, VCM_USE_HIGH_BASE)), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_assoc(k, dev, VCM_SPLIT)), -EOPNOTSUPP);

	avcm = vcm_assoc(k, dev, VCM_USE_LOW_BASE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, avcm);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_assoc(k, dev, 0)), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_get_assoc_attr(avcm), (u32)VCM_USE_LOW_BASE);

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

	KUNIT_EXPECT_EQ(test, free_vcm(test, vcm), 0);
}

/* One physmem, three VCMs: translation and reverse lookups. */
static void vcm_test_shared_physmem(struct kunit *test)
{
	struct vcm *k = kernel_vcm(test), *d1 = new_dev_vcm(test);
	struct vcm *d2 = own_vcm(test, vcm_create(SZ_4G, SZ_1G));
	struct vcm_physmem *pm = new_phys(test, SZ_1M, 0, 0);
	struct vcm_res *rk, *r1, *r2, *it;
	unsigned int cursor = 0;
	dma_addr_t out;
	phys_addr_t phys;
	size_t len, n = 0;

	rk = own_res(test, vcm_reserve(k, SZ_1M, RW_CACHED));
	r1 = vcm_reserve(d1, SZ_1M, RW_CACHED);
	r2 = vcm_reserve(d2, SZ_1M, RW_CACHED);
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

	KUNIT_ASSERT_EQ(test, vcm_test_next_chunk(pm, &cursor, &phys, &len), 0);
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
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), -EBUSY);
	KUNIT_EXPECT_EQ(test, vcm_unback(r1), 0);
	KUNIT_EXPECT_EQ(test, vcm_unback(rk), 0);
	KUNIT_EXPECT_EQ(test, vcm_get_phys_num_res(phys), 0);
	KUNIT_EXPECT_NULL(test, vcm_get_next_phys_res(phys, NULL, NULL));

	unreserve_res(test, rk);
	vcm_unreserve(r1);
	vcm_unreserve(r2);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, d1), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, d2), 0);
}

/*
 * The reverse lookups of a physical address count and return the backings
 * of the physmems that hold it and pass every other physmem by, however
 * many reservations that one backs.  @other is made first, so that it is
 * listed before @pm and the walks for @pm's address go past it.
 */
static void vcm_test_phys_res_other(struct kunit *test)
{
	struct vcm *d1 = new_dev_vcm(test);
	struct vcm *d2 = own_vcm(test, vcm_create(SZ_4G, SZ_1G));
	struct vcm_physmem *other = new_phys(test, SZ_64K, 0, 0);
	struct vcm_physmem *pm = new_phys(test, SZ_64K, 0, 0);
	struct vcm_res *o1, *o2, *r, *it;
	phys_addr_t phys, ophys;
	unsigned int cursor = 0;
	size_t len, n = 0;

	o1 = vcm_reserve(d1, SZ_64K, RW_CACHED);
	o2 = vcm_reserve(d2, SZ_64K, RW_CACHED);
	r = vcm_reserve(d1, SZ_64K, RW_CACHED);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, o1);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, o2);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r);
	KUNIT_ASSERT_EQ(test, vcm_back(o1, other), 0);
	KUNIT_ASSERT_EQ(test, vcm_back(o2, other), 0);
	KUNIT_ASSERT_EQ(test, vcm_back(r, pm), 0);
	KUNIT_ASSERT_EQ(test, vcm_test_next_chunk(pm, &cursor, &phys, &len), 0);
	cursor = 0;
	KUNIT_ASSERT_EQ(test, vcm_test_next_chunk(other, &cursor, &ophys, &len), 0);

	/* @pm's address: @other's two backings are not counted. */
	KUNIT_EXPECT_EQ(test, vcm_get_phys_num_res(phys + 8), 1);
	len = 0;
	KUNIT_EXPECT_PTR_EQ(test, vcm_get_next_phys_res(phys + 8, NULL, &len), r);
	KUNIT_EXPECT_EQ(test, len, (size_t)SZ_64K);
	KUNIT_EXPECT_NULL(test, vcm_get_next_phys_res(phys + 8, r, NULL));

	/* @other's address: both of its backings, and not @pm's. */
	KUNIT_EXPECT_EQ(test, vcm_get_phys_num_res(ophys), 2);
	for (it = vcm_get_next_phys_res(ophys, NULL, NULL); it;
	     it = vcm_get_next_phys_res(ophys, it, NULL)) {
		KUNIT_EXPECT_TRUE(test, it == o1 || it == o2);
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, 2);

	KUNIT_EXPECT_EQ(test, vcm_unback(r), 0);
	KUNIT_EXPECT_EQ(test, vcm_get_phys_num_res(phys), 0);
	KUNIT_EXPECT_EQ(test, vcm_get_phys_num_res(ophys), 2);
	KUNIT_EXPECT_EQ(test, vcm_unback(o1), 0);
	KUNIT_EXPECT_EQ(test, vcm_unback(o2), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(o1), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(o2), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(r), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, other), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, d1), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, d2), 0);
}

static void vcm_test_clone(struct kunit *test)
{
	struct vcm *vcm = new_dev_vcm(test), *clone, *k = kernel_vcm(test);
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

	clone = own_vcm(test, vcm_clone(vcm));
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
	KUNIT_EXPECT_EQ(test, free_vcm(test, clone), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, vcm), -EBUSY);	/* its bound */
	KUNIT_EXPECT_EQ(test, vcm_free_bound(bound), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, vcm), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
}

static struct kunit_case vcm_test_back_cases[] = {
	KUNIT_CASE(vcm_test_back_kernel),
	KUNIT_CASE(vcm_test_back_read_only),
	KUNIT_CASE(vcm_test_cache_conflict),
	KUNIT_CASE(vcm_test_cache_maintenance),
	KUNIT_CASE(vcm_test_back_snooping_dev),
	KUNIT_CASE(vcm_test_one_to_one),
	KUNIT_CASE(vcm_test_one_to_one_mask),
	KUNIT_CASE(vcm_test_one_to_one_align),
	KUNIT_CASE(vcm_test_dma_direct),
	KUNIT_CASE(vcm_test_dev_addr_chunks),
	KUNIT_CASE(vcm_test_dev_addr_two_devs),
	KUNIT_CASE(vcm_test_assoc),
	KUNIT_CASE(vcm_test_shared_physmem),
	KUNIT_CASE(vcm_test_phys_res_other),
	KUNIT_CASE(vcm_test_clone),
	{}
};

static struct kunit_suite vcm_test_back_suite = {
	.name = "vcm_back",
	.init = vcm_test_init,
	.test_cases = vcm_test_back_cases,
};

kunit_test_suite(vcm_test_back_suite);
