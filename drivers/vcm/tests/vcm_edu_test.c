// SPDX-License-Identifier: GPL-2.0-only
/*
 * QEMU's "edu" PCI device as a DMA master for testing the IOMMU kind of
 * VCM behind a real IOMMU (QEMU's SMMUv3).
 *
 * edu copies up to 4 KiB per command between a device address and a
 * buffer inside the device (at 0x40000 in its own DMA window), so a test
 * moves bytes from one device address into the device and back out to
 * another, and compares what the CPU sees with what it wrote.  The
 * KUnit suite "vcm_edu" runs when the module loads, on the edu bound to
 * the module's own driver (vcm_edu_dev.c); its IOMMU VCMs replace the
 * device's DMA domain while they are active.
 */

#include <kunit/device.h>
#include <kunit/test.h>
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/iommu.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vcm.h>

#include "../vcm_priv.h"
#include "vcm_test_util.h"
#include "vcm_edu.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_IMPORT_NS(DMA_BUF);

/* edu's device, held while the suite runs. */
static struct device *vcm_edu_test_dev;

/* --- KUnit suite ------------------------------------------------------ */

struct vcm_edu_ctx {
	struct device *dev;
	struct vcm *vcm;
	struct vcm_avcm *avcm;
};

/*
 * The suite's VCM, associated with edu and active, goes with the case
 * (own_vcm() releases its association and what a case left in it), even
 * when this fails half-way; the gauges are checked after that.
 */
static int vcm_edu_test_init(struct kunit *test)
{
	struct vcm_edu_ctx *ctx;

	KUNIT_ASSERT_NOT_NULL_MSG(test, vcm_edu_test_dev,
				  "no edu bound to the vcm_edu driver");
	vcm_test_watch_gauges(test);
	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->dev = vcm_edu_test_dev;

	ctx->vcm = own_vcm(test, vcm_create(EDU_VCM_START, EDU_VCM_LEN));
	ctx->avcm = vcm_assoc(ctx->vcm, ctx->dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx->avcm);
	KUNIT_ASSERT_EQ(test, vcm_activate(ctx->avcm), 0);
	test->priv = ctx;
	return 0;
}

/* Copy @len bytes from device address @src to @dst through edu. */
static void edu_copy(struct kunit *test, dma_addr_t src, dma_addr_t dst,
		     u32 len)
{
	KUNIT_ASSERT_EQ(test, vcm_edu_dma(vcm_edu, src, 0, len, false), 0);
	KUNIT_ASSERT_EQ(test, vcm_edu_dma(vcm_edu, dst, 0, len, true), 0);
}

static u32 read_word(struct vcm_physmem *pm, size_t off)
{
	unsigned int cursor;
	phys_addr_t phys;
	size_t len;
	u32 *p, v;

	vcm_for_each_phys_chunk(pm, cursor, phys, len) {
		if (off < len)
			break;
		off -= len;
	}
	p = kmap_local_page(phys_to_page(phys + off));
	v = p[offset_in_page(phys + off) / 4];
	kunmap_local(p);
	return v;
}

static void vcm_edu_test_identify(struct kunit *test)
{
	struct vcm_edu_ctx *ctx = test->priv;

	KUNIT_EXPECT_TRUE(test, vcm_edu_present(vcm_edu));
	KUNIT_EXPECT_TRUE(test, vcm_edu_alive(vcm_edu));
	KUNIT_EXPECT_TRUE(test, device_iommu_mapped(ctx->dev));

	/* The domain came from the SMMU: 4K pages and 2M blocks at least. */
	KUNIT_EXPECT_TRUE(test, vcm_get_pgsize_bitmap(ctx->vcm) & SZ_4K);
	KUNIT_EXPECT_TRUE(test, vcm_get_pgsize_bitmap(ctx->vcm) & SZ_2M);
	KUNIT_EXPECT_EQ(test, vcm_edu_dma(vcm_edu, EDU_VCM_START, 1, EDU_BUF_SIZE,
					  true), -EINVAL);
}

/*
 * A buffer of one 2M chunk and 4K chunks, mapped with the domain's page
 * sizes: edu reads it across the chunk boundary and writes it back at
 * another offset; the CPU finds the bytes where the page tables say.
 */
static void vcm_edu_test_mixed_chunks(struct kunit *test)
{
	struct vcm_edu_ctx *ctx = test->priv;
	size_t len = SZ_2M + 16 * SZ_4K, off;
	struct vcm_physmem *pm;
	struct vcm_res *res;
	unsigned int cursor;
	phys_addr_t phys, walked;
	size_t clen, n2m = 0, n4k = 0, base = 0;
	dma_addr_t iova;

	pm = new_phys(test, len, 0, vcm_get_pgsize_bitmap(ctx->vcm));
	vcm_for_each_phys_chunk(pm, cursor, phys, clen) {
		n2m += clen == SZ_2M;
		n4k += clen == SZ_4K;
	}
	KUNIT_EXPECT_EQ(test, n2m, 1);
	KUNIT_EXPECT_EQ(test, n4k, 16);
	vcm_fill_pattern(pm, 0xe000);

	res = vcm_reserve(ctx->vcm, len, RW_CACHED);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	KUNIT_ASSERT_EQ(test, vcm_back(res, pm), 0);
	iova = vcm_get_dev_addr(res);
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED(iova, SZ_2M));
	/* One block entry for the 2M chunk, one page entry per 4K chunk. */
	KUNIT_EXPECT_EQ(test, vcm_get_res_num_ptes(res), 17);

	/* The SMMU's page tables point at the chunks. */
	vcm_for_each_phys_chunk(pm, cursor, phys, clen) {
		KUNIT_ASSERT_EQ(test, vcm_dev_addr_to_phys_addr(ctx->dev,
								iova + base + clen / 2,
								&walked), 0);
		KUNIT_EXPECT_EQ(test, walked, phys + clen / 2);
		base += clen;
	}

	/* Across the 2M/4K boundary and across two 4K chunks. */
	edu_copy(test, iova + SZ_2M - SZ_1K, iova + SZ_2M + 5 * SZ_4K + 3 * SZ_1K, EDU_XFER);
	for (off = 0; off < EDU_XFER; off += 4)
		KUNIT_ASSERT_EQ(test, read_word(pm, SZ_2M + 5 * SZ_4K + 3 * SZ_1K + off),
				vcm_pattern_at(pm, 0xe000, SZ_2M - SZ_1K + off));
	/* The words around the destination were not touched. */
	KUNIT_EXPECT_EQ(test, read_word(pm, SZ_2M + 5 * SZ_4K + 3 * SZ_1K - 4),
			vcm_pattern_at(pm, 0xe000, SZ_2M + 5 * SZ_4K + 3 * SZ_1K - 4));
	KUNIT_EXPECT_EQ(test, read_word(pm, SZ_2M + 6 * SZ_4K + SZ_1K),
			vcm_pattern_at(pm, 0xe000, SZ_2M + 6 * SZ_4K + SZ_1K));

	/* Into the 2M block, from the last 4K chunk. */
	edu_copy(test, iova + len - EDU_XFER, iova + SZ_1M, EDU_XFER);
	for (off = 0; off < EDU_XFER; off += 4)
		KUNIT_ASSERT_EQ(test, read_word(pm, SZ_1M + off),
				vcm_pattern_at(pm, 0xe000, len - EDU_XFER + off));

	KUNIT_EXPECT_EQ(test, vcm_unback(res), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(res), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
}

/*
 * A DMA VCM of edu: the test's IOMMU VCM is deactivated, so that edu is
 * back in its DMA domain, as a device that shares memory stays.
 */
static struct vcm_avcm *edu_dma_vcm(struct kunit *test, struct vcm **vcm)
{
	struct vcm_edu_ctx *ctx = test->priv;
	struct vcm_avcm *avcm;

	KUNIT_ASSERT_EQ(test, vcm_deactivate(ctx->avcm), 0);
	*vcm = own_vcm(test, vcm_create_dma());
	KUNIT_EXPECT_EQ(test, vcm_get_type(*vcm), VCM_DMA);
	avcm = vcm_assoc(*vcm, ctx->dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, avcm);
	KUNIT_ASSERT_EQ(test, vcm_activate(avcm), 0);
	return avcm;
}

static void edu_dma_vcm_free(struct kunit *test, struct vcm *vcm,
			     struct vcm_avcm *avcm)
{
	struct vcm_edu_ctx *ctx = test->priv;

	KUNIT_EXPECT_EQ(test, vcm_deactivate(avcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_deassoc(avcm), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, vcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_activate(ctx->avcm), 0);
}

/* edu's DMA limits when a case began, put back when it ends. */
struct edu_dma_parms {
	struct device *dev;
	u64 mask;
	unsigned int max_seg;
	unsigned long boundary;
};

static void edu_restore_dma_parms(void *data)
{
	struct edu_dma_parms *p = data;

	dma_set_mask(p->dev, p->mask);
	dma_set_max_seg_size(p->dev, p->max_seg);
	dma_set_seg_boundary(p->dev, p->boundary);
}

/* Let the case change edu's DMA mask and segment limits. */
static struct edu_dma_parms *edu_save_dma_parms(struct kunit *test)
{
	struct vcm_edu_ctx *ctx = test->priv;
	struct edu_dma_parms *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->dev = ctx->dev;
	p->mask = dma_get_mask(ctx->dev);
	p->max_seg = dma_get_max_seg_size(ctx->dev);
	p->boundary = dma_get_seg_boundary(ctx->dev);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, edu_restore_dma_parms, p), 0);
	return p;
}

/*
 * Memory known only by the DMA addresses of someone else's mapping for
 * edu, as an importer of a dma-buf knows it.  A VCM with an IOMMU domain
 * of its own refuses it: edu does not translate through the domain the
 * DMA API mapped it into.  edu's DMA VCM uses those addresses as they
 * are: edu copies between them and the CPU sees the copy.  Nothing of
 * VCM looks behind the addresses (no physical chunks), and the physmem
 * backs nothing but that VCM.
 */
static void vcm_edu_test_from_dma(struct kunit *test)
{
	struct vcm_edu_ctx *ctx = test->priv;
	struct vcm *k = kernel_vcm(test);
	struct sg_table sgt, bad;
	struct vcm_avcm *davcm;
	struct page *pages[3];
	struct vcm_physmem *pm;
	struct vcm_res *res, *rk;
	unsigned int cursor;
	struct vcm *dvcm;
	phys_addr_t phys;
	size_t len;
	dma_addr_t iova;
	u32 *p;
	int i;

	for (i = 0; i < 3; i++) {
		pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
		p = kmap_local_page(pages[i]);
		for (len = 0; len < PAGE_SIZE / 4; len++)
			p[len] = 0xd0a00000 + i * 0x10000 + len;
		kunmap_local(p);
	}
	KUNIT_ASSERT_EQ(test, sg_alloc_table_from_pages(&sgt, pages, 3, 0,
							3 * PAGE_SIZE, GFP_KERNEL), 0);

	/* The IOMMU kind cannot use another driver's memory. */
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_from_dma(ctx->avcm, &sgt)),
			-EOPNOTSUPP);

	davcm = edu_dma_vcm(test, &dvcm);
	KUNIT_ASSERT_EQ(test, dma_map_sgtable(ctx->dev, &sgt, DMA_BIDIRECTIONAL, 0), 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_from_dma(NULL, &sgt)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_from_dma(davcm, NULL)), -EINVAL);
	KUNIT_ASSERT_EQ(test, sg_alloc_table(&bad, 1, GFP_KERNEL), 0);
	sg_dma_address(bad.sgl) = sg_dma_address(sgt.sgl) + 8;
	sg_dma_len(bad.sgl) = PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_phys_from_dma(davcm, &bad)), -EINVAL);
	sg_free_table(&bad);

	pm = own_phys(test, vcm_phys_from_dma(davcm, &sgt));
	KUNIT_EXPECT_EQ(test, vcm_get_physmem_len(pm), 3 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, vcm_get_memtype_of_physalloc(pm), VCM_MEMTYPE_FOREIGN);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_get_physmem_sgt(pm)), -EINVAL);
	/* DMA addresses tell nothing of where the memory is. */
	vcm_for_each_phys_chunk(pm, cursor, phys, len)
		KUNIT_FAIL(test, "a chunk of memory known by DMA address");

	/* No other VCM may map it: neither the CPU's nor another device's. */
	rk = own_res(test, vcm_reserve(k, 3 * PAGE_SIZE, RW_CACHED));
	KUNIT_EXPECT_EQ(test, vcm_back(rk, pm), -EINVAL);
	KUNIT_EXPECT_EQ(test, unreserve_res(test, rk), 0);
	rk = vcm_reserve(ctx->vcm, 3 * PAGE_SIZE, RW_CACHED);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, rk);
	KUNIT_EXPECT_EQ(test, vcm_back(rk, pm), -EINVAL);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(rk), 0);

	res = vcm_reserve(dvcm, 3 * PAGE_SIZE, RW_CACHED);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(res), DMA_MAPPING_ERROR);
	KUNIT_ASSERT_EQ(test, vcm_back(res, pm), 0);
	iova = vcm_get_dev_addr(res);
	KUNIT_EXPECT_EQ(test, iova, sg_dma_address(sgt.sgl));
	edu_copy(test, iova + SZ_1K, iova + 2 * PAGE_SIZE + SZ_1K, EDU_XFER);
	dma_sync_sgtable_for_cpu(ctx->dev, &sgt, DMA_BIDIRECTIONAL);
	p = kmap_local_page(pages[2]);
	for (i = 0; i < EDU_XFER / 4; i++)
		KUNIT_EXPECT_EQ(test, p[SZ_1K / 4 + i], 0xd0a00000 + SZ_1K / 4 + i);
	/* The word after the copy is still page 2's. */
	KUNIT_EXPECT_EQ(test, p[(SZ_1K + EDU_XFER) / 4],
			0xd0a20000 + (SZ_1K + EDU_XFER) / 4);
	kunmap_local(p);
	KUNIT_EXPECT_PTR_NE(test, vcm_get_dma_sgt(res), NULL);

	/* The addresses were this activation's: not mapped after it. */
	KUNIT_EXPECT_EQ(test, vcm_deactivate(davcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_activate(davcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(res), DMA_MAPPING_ERROR);
	KUNIT_EXPECT_PTR_EQ(test, vcm_get_dma_sgt(res), NULL);

	KUNIT_EXPECT_EQ(test, vcm_unback(res), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(res), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
	dma_unmap_sgtable(ctx->dev, &sgt, DMA_BIDIRECTIONAL, 0);
	edu_dma_vcm_free(test, dvcm, davcm);
	sg_free_table(&sgt);
	for (i = 0; i < 3; i++)
		__free_page(pages[i]);
}

/*
 * The DMA kind with VCM's own chunks: the DMA API maps them at one IOVA
 * range of edu's DMA domain, aligned to the mapping's size, so 2 MiB
 * chunks map as block entries.  edu copies inside the buffer, the CPU
 * reads the copy through a kernel VCM after vcm_sync_for_cpu().  While
 * the association is inactive nothing is mapped for edu, and a second
 * device cannot join: DMA addresses are one device's.
 */
static void vcm_edu_test_dma_kind(struct kunit *test)
{
	struct vcm *k = kernel_vcm(test);
	struct vcm_constraint c;
	struct vcm_avcm *davcm;
	struct vcm_physmem *pm;
	struct vcm_res *rk, *rd;
	struct device *other;
	struct vcm *dvcm;
	dma_addr_t iova;
	u8 *cpu;
	int i;

	davcm = edu_dma_vcm(test, &dvcm);
	other = kunit_device_register(test, "vcm-dma-other");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, other);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_assoc(dvcm, other, 0)), -EBUSY);
	KUNIT_ASSERT_EQ(test, vcm_constraint_of_vcm(dvcm, &c), 0);
	KUNIT_EXPECT_TRUE(test, c.pgsizes & SZ_2M);

	/* The DMA API works on memory the CPU maps cacheable. */
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve(dvcm, SZ_4M, RW_WC)), -EINVAL);

	pm = own_phys(test, vcm_phys_alloc_for(SZ_4M, 0, &c));
	rk = own_res(test, vcm_reserve(k, SZ_4M, RW_CACHED));
	rd = vcm_reserve(dvcm, SZ_4M, RW_CACHED);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, rd);
	KUNIT_ASSERT_EQ(test, vcm_back(rk, pm), 0);
	cpu = vcm_get_vaddr(rk);
	for (i = 0; i < EDU_XFER; i++)
		cpu[i] = i * 7;
	KUNIT_ASSERT_EQ(test, vcm_back(rd, pm), 0);
	iova = vcm_get_dev_addr(rd);
	KUNIT_EXPECT_NE(test, iova, DMA_MAPPING_ERROR);
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED(iova, SZ_4M));
	KUNIT_EXPECT_EQ(test, vcm_get_res_num_ptes(rd), 2);
	KUNIT_EXPECT_PTR_NE(test, vcm_get_dma_sgt(rd), NULL);

	vcm_sync_for_device(rd);
	edu_copy(test, iova, iova + SZ_2M + SZ_4K, EDU_XFER);
	vcm_sync_for_cpu(rd);
	KUNIT_EXPECT_EQ(test, memcmp(cpu, cpu + SZ_2M + SZ_4K, EDU_XFER), 0);

	/* Inactive: unmapped, the reservation kept; active: mapped again. */
	KUNIT_EXPECT_EQ(test, vcm_deactivate(davcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(rd), DMA_MAPPING_ERROR);
	KUNIT_EXPECT_EQ(test, vcm_activate(davcm), 0);
	KUNIT_EXPECT_NE(test, vcm_get_dev_addr(rd), DMA_MAPPING_ERROR);

	KUNIT_EXPECT_EQ(test, vcm_unback(rd), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(rd), 0);
	KUNIT_EXPECT_EQ(test, vcm_unback(rk), 0);
	KUNIT_EXPECT_EQ(test, unreserve_res(test, rk), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
	edu_dma_vcm_free(test, dvcm, davcm);
}

/* The CPU writes through a kernel VCM, edu moves it, the CPU reads it back. */
static void vcm_edu_test_shared_with_cpu(struct kunit *test)
{
	struct vcm_edu_ctx *ctx = test->priv;
	struct vcm *k = kernel_vcm(test);
	struct vcm_physmem *pm;
	struct vcm_res *rk, *rd;
	dma_addr_t out, iova;
	u8 *cpu;
	int i;

	pm = new_phys(test, SZ_64K, 0, 0);
	rk = own_res(test, vcm_reserve(k, SZ_64K, RW_CACHED));
	rd = vcm_reserve(ctx->vcm, SZ_64K, RW_CACHED);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, rd);
	KUNIT_ASSERT_EQ(test, vcm_back(rk, pm), 0);
	KUNIT_ASSERT_EQ(test, vcm_back(rd, pm), 0);

	cpu = vcm_get_vaddr(rk);
	for (i = 0; i < EDU_XFER; i++)
		cpu[i] = i * 7 + 3;
	iova = vcm_get_dev_addr(rd);
	KUNIT_ASSERT_EQ(test, vcm_translate(k, (uintptr_t)cpu + SZ_8K, ctx->vcm, &out), 0);
	KUNIT_EXPECT_EQ(test, out, iova + SZ_8K);

	edu_copy(test, iova, out, EDU_XFER);
	for (i = 0; i < EDU_XFER; i++)
		KUNIT_ASSERT_EQ(test, cpu[SZ_8K + i], (u8)(i * 7 + 3));

	KUNIT_EXPECT_EQ(test, vcm_unback(rd), 0);
	KUNIT_EXPECT_EQ(test, vcm_unback(rk), 0);
	vcm_unreserve(rd);
	unreserve_res(test, rk);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
}

/*
 * Accesses to addresses that are not backed are stopped by the SMMU:
 * writes land nowhere, reads return no memory contents.  After an unback
 * the old pages are out of reach at once (the IOTLB was invalidated).
 */
static void vcm_edu_test_unbacked(struct kunit *test)
{
	struct vcm_edu_ctx *ctx = test->priv;
	struct vcm_physmem *pm, *probe;
	struct vcm_res *res, *hole, *out;
	dma_addr_t iova, hole_iova;
	phys_addr_t phys;
	size_t off;

	pm = new_phys(test, SZ_64K, 0, 0);
	probe = new_phys(test, SZ_4K, 0, 0);
	vcm_fill_pattern(pm, 0x5000);
	vcm_fill_pattern(probe, 0x7000);

	res = vcm_reserve(ctx->vcm, SZ_64K, RW_CACHED);
	hole = vcm_reserve(ctx->vcm, SZ_64K, RW_CACHED);
	out = vcm_reserve(ctx->vcm, SZ_4K, RW_CACHED);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, hole);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, out);
	KUNIT_ASSERT_EQ(test, vcm_back(res, pm), 0);
	KUNIT_ASSERT_EQ(test, vcm_back(out, probe), 0);
	iova = vcm_get_dev_addr(res);
	hole_iova = vcm_get_dev_addr(hole);
	KUNIT_EXPECT_EQ(test, vcm_dev_addr_to_phys_addr(ctx->dev, hole_iova, &phys),
			-ENOENT);

	/* Load edu's buffer with known data, then write it into the hole. */
	KUNIT_ASSERT_EQ(test, vcm_edu_dma(vcm_edu, iova, 0, EDU_XFER, false), 0);
	KUNIT_ASSERT_EQ(test, vcm_edu_dma(vcm_edu, hole_iova, 0, EDU_XFER, true), 0);
	KUNIT_ASSERT_EQ(test, vcm_edu_dma(vcm_edu, hole_iova + SZ_64K - EDU_XFER, 0,
					  EDU_XFER, true), 0);
	for (off = 0; off < SZ_64K; off += 4)
		KUNIT_ASSERT_EQ(test, read_word(pm, off), vcm_pattern_at(pm, 0x5000, off));

	/* A read of the hole brings in no memory: edu's buffer is zeroed. */
	KUNIT_ASSERT_EQ(test, vcm_edu_dma(vcm_edu, hole_iova, 0, EDU_XFER, false), 0);
	KUNIT_ASSERT_EQ(test, vcm_edu_dma(vcm_edu, vcm_get_dev_addr(out), 0, EDU_XFER,
					  true), 0);
	for (off = 0; off < EDU_XFER; off += 4)
		KUNIT_ASSERT_EQ(test, read_word(probe, off), 0);

	/* After unback, the old IOVA reaches nothing. */
	vcm_fill_pattern(probe, 0x7000);
	KUNIT_ASSERT_EQ(test, vcm_edu_dma(vcm_edu, vcm_get_dev_addr(out), 0, EDU_XFER,
					  false), 0);
	KUNIT_ASSERT_EQ(test, vcm_unback(res), 0);
	KUNIT_EXPECT_EQ(test, vcm_dev_addr_to_phys_addr(ctx->dev, iova, &phys), -ENOENT);
	KUNIT_ASSERT_EQ(test, vcm_edu_dma(vcm_edu, iova, 0, EDU_XFER, true), 0);
	for (off = 0; off < EDU_XFER; off += 4)
		KUNIT_ASSERT_EQ(test, read_word(pm, off), vcm_pattern_at(pm, 0x5000, off));

	KUNIT_EXPECT_EQ(test, vcm_unback(out), 0);
	vcm_unreserve(res);
	vcm_unreserve(hole);
	vcm_unreserve(out);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, probe), 0);
}

/*
 * What edu may do follows the reservation's attributes: one of VCM_READ
 * alone is mapped without IOMMU_WRITE.  edu reads it, and what it read
 * lands in a cached reservation; edu's write into it is stopped by the
 * SMMU and leaves the memory as it was.
 */
static void vcm_edu_test_read_only(struct kunit *test)
{
	struct vcm_edu_ctx *ctx = test->priv;
	struct vcm_physmem *src, *dst;
	struct vcm_res *ro, *rw;
	dma_addr_t ro_iova, rw_iova;
	size_t off;

	src = new_phys(test, SZ_64K, 0, 0);
	dst = new_phys(test, SZ_64K, 0, 0);
	vcm_fill_pattern(src, 0x9000);
	vcm_fill_pattern(dst, 0xa000);
	ro = vcm_reserve(ctx->vcm, SZ_64K, VCM_READ | VCM_WC);
	rw = vcm_reserve(ctx->vcm, SZ_64K, RW_CACHED);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ro);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, rw);
	KUNIT_ASSERT_EQ(test, vcm_back(ro, src), 0);
	KUNIT_ASSERT_EQ(test, vcm_back(rw, dst), 0);
	KUNIT_EXPECT_GT(test, vcm_get_res_num_ptes(ro), 0);
	ro_iova = vcm_get_dev_addr(ro);
	rw_iova = vcm_get_dev_addr(rw);

	edu_copy(test, ro_iova + SZ_4K, rw_iova + SZ_8K, EDU_XFER);
	for (off = 0; off < EDU_XFER; off += 4)
		KUNIT_ASSERT_EQ(test, read_word(dst, SZ_8K + off),
				vcm_pattern_at(src, 0x9000, SZ_4K + off));

	/* edu's buffer gets dst's first words; they go nowhere in src. */
	KUNIT_ASSERT_EQ(test, vcm_edu_dma(vcm_edu, rw_iova, 0, EDU_XFER, false), 0);
	KUNIT_ASSERT_EQ(test, vcm_edu_dma(vcm_edu, ro_iova, 0, EDU_XFER, true), 0);
	for (off = 0; off < EDU_XFER; off += 4)
		KUNIT_ASSERT_EQ(test, read_word(src, off), vcm_pattern_at(src, 0x9000, off));

	KUNIT_EXPECT_EQ(test, vcm_unback(ro), 0);
	KUNIT_EXPECT_EQ(test, vcm_unback(rw), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(ro), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(rw), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, src), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, dst), 0);
}

struct vcm_edu_fault {
	struct device *dev;
	dma_addr_t addr;
	int flags;
	int calls;
};

static int vcm_edu_fault_handler(struct device *dev, dma_addr_t addr, int flags,
				 void *data)
{
	struct vcm_edu_fault *f = data;

	f->dev = dev;
	f->addr = addr;
	f->flags = flags;
	f->calls++;
	return 0;
}

/* The hook sits on the IOMMU API's fault path of the VCM's domain. */
static void vcm_edu_test_fault_hook(struct kunit *test)
{
	struct vcm_edu_ctx *ctx = test->priv;
	struct iommu_domain *domain = iommu_get_domain_for_dev(ctx->dev);
	struct vcm_edu_fault f = {};

	KUNIT_ASSERT_NOT_NULL(test, domain);
	/* No hook: the IOMMU core's default (the driver logs the fault). */
	KUNIT_EXPECT_NE(test, report_iommu_fault(domain, ctx->dev, EDU_VCM_START,
						 IOMMU_FAULT_WRITE), 0);
	KUNIT_ASSERT_EQ(test, vcm_hook(ctx->dev, vcm_edu_fault_handler, &f), 0);
	KUNIT_EXPECT_EQ(test, report_iommu_fault(domain, ctx->dev,
						 EDU_VCM_START + SZ_8K,
						 IOMMU_FAULT_READ), 0);
	KUNIT_EXPECT_EQ(test, f.calls, 1);
	KUNIT_EXPECT_PTR_EQ(test, f.dev, ctx->dev);
	KUNIT_EXPECT_EQ(test, f.addr, (dma_addr_t)EDU_VCM_START + SZ_8K);
	KUNIT_EXPECT_EQ(test, f.flags, IOMMU_FAULT_READ);
	KUNIT_EXPECT_EQ(test, vcm_hook(ctx->dev, NULL, NULL), 0);
	KUNIT_EXPECT_EQ(test, vcm_hook(ctx->dev, NULL, NULL), -ENOENT);
	KUNIT_EXPECT_NE(test, report_iommu_fault(domain, ctx->dev, EDU_VCM_START,
						 IOMMU_FAULT_WRITE), 0);
	KUNIT_EXPECT_EQ(test, f.calls, 1);
}

/*
 * Backings made before a device is associated are mapped when the domain
 * appears; a clone gets a domain of its own with the same mappings; one
 * device uses one IOMMU VCM at a time and the DMA API again afterwards.
 */
static void vcm_edu_test_domains(struct kunit *test)
{
	struct vcm_edu_ctx *ctx = test->priv;
	struct vcm *early = own_vcm(test, vcm_create(EDU_VCM_START, EDU_VCM_LEN));
	struct vcm *clone;
	struct vcm_physmem *pm;
	struct vcm_avcm *a1, *a2;
	struct vcm_res *res;
	dma_addr_t iova, dma;
	void *coherent;
	u32 *words;
	int i;

	pm = new_phys(test, SZ_8K, 0, 0);
	vcm_fill_pattern(pm, 0xd000);
	res = vcm_reserve(early, SZ_8K, RW_CACHED);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	KUNIT_ASSERT_EQ(test, vcm_back(res, pm), 0);
	KUNIT_EXPECT_EQ(test, vcm_get_res_num_ptes(res), 0);
	iova = vcm_get_dev_addr(res);

	clone = own_vcm(test, vcm_clone(early));

	a1 = vcm_assoc(early, ctx->dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a1);
	KUNIT_EXPECT_EQ(test, vcm_get_res_num_ptes(res), 2);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_assoc(early, ctx->dev, 0)), -EINVAL);
	a2 = vcm_assoc(clone, ctx->dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a2);

	/* The suite's VCM is active: the others wait. */
	KUNIT_EXPECT_EQ(test, vcm_activate(a1), -EBUSY);
	KUNIT_ASSERT_EQ(test, vcm_deactivate(ctx->avcm), 0);
	KUNIT_ASSERT_EQ(test, vcm_activate(a1), 0);
	KUNIT_EXPECT_EQ(test, vcm_activate(a2), -EBUSY);
	edu_copy(test, iova, iova + SZ_4K, 64);
	KUNIT_EXPECT_EQ(test, read_word(pm, SZ_4K + 60), vcm_pattern_at(pm, 0xd000, 60));
	KUNIT_ASSERT_EQ(test, vcm_deactivate(a1), 0);

	/* The clone maps the same memory at the same IOVA. */
	KUNIT_ASSERT_EQ(test, vcm_activate(a2), 0);
	vcm_fill_pattern(pm, 0xd100);
	edu_copy(test, iova + 128, iova + SZ_4K + 256, 64);
	KUNIT_EXPECT_EQ(test, read_word(pm, SZ_4K + 256), vcm_pattern_at(pm, 0xd100, 128));
	KUNIT_ASSERT_EQ(test, vcm_deactivate(a2), 0);

	/* Back on its default domain, the device works with the DMA API. */
	coherent = dma_alloc_coherent(ctx->dev, SZ_8K, &dma, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, coherent);
	words = coherent;
	for (i = 0; i < 16; i++)
		words[i] = 0xc0de0000 + i;
	edu_copy(test, dma, dma + SZ_4K, 64);
	for (i = 0; i < 16; i++)
		KUNIT_EXPECT_EQ(test, words[SZ_4K / 4 + i], 0xc0de0000 + i);
	dma_free_coherent(ctx->dev, SZ_8K, coherent, dma);

	KUNIT_EXPECT_EQ(test, vcm_deassoc(a1), 0);
	KUNIT_EXPECT_EQ(test, vcm_deassoc(a2), 0);
	KUNIT_EXPECT_EQ(test, vcm_activate(ctx->avcm), 0);
	while ((res = vcm_get_next_res(clone, NULL))) {
		KUNIT_EXPECT_EQ(test, vcm_unback(res), 0);
		KUNIT_EXPECT_EQ(test, vcm_unreserve(res), 0);
	}
	res = vcm_get_next_res(early, NULL);
	KUNIT_EXPECT_EQ(test, vcm_unback(res), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(res), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, clone), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, early), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
}

static void vcm_edu_test_range_errors(struct kunit *test)
{
	struct vcm_edu_ctx *ctx = test->priv;
	struct vcm *far;

	if (dma_get_mask(ctx->dev) == DMA_BIT_MASK(64))
		kunit_skip(test, "edu reaches every address");
	far = own_vcm(test, vcm_create(dma_get_mask(ctx->dev) + 1, SZ_1M));
	/* Beyond edu's DMA mask. */
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_assoc(far, ctx->dev, 0)), -ERANGE);
	KUNIT_EXPECT_EQ(test, free_vcm(test, far), 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_assoc(ctx->vcm, ctx->dev, 0)), -EINVAL);
	/* A device behind an IOMMU is not one-to-one. */
	far = own_vcm(test, vcm_create_one_to_one(0, SZ_4G));
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_assoc(far, ctx->dev, 0)), -EINVAL);
	KUNIT_EXPECT_EQ(test, free_vcm(test, far), 0);
}

/* Whether the DMA segments of @sgt follow one another in DMA address. */
static bool edu_dma_contiguous(struct sg_table *sgt)
{
	struct scatterlist *sg;
	dma_addr_t next = 0;
	unsigned int i;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		if (i && sg_dma_address(sg) != next)
			return false;
		next = sg_dma_address(sg) + sg_dma_len(sg);
	}
	return true;
}

/*
 * Where edu's DMA parameters make the DMA API map a reservation in more
 * than one segment, VCM takes the segments as they come, and counts leaf
 * entries and IOMMU bytes for the mapping only when its segments follow
 * one another in DMA address.  With segments of at most 64 KiB, 128 KiB
 * map in segments of at most 64 KiB; if they are one range, their
 * entries are those vcm_iommu_count_sgt_ptes() counts.  With a 64 KiB
 * segment boundary, a page and then a 64 KiB block map in two segments or
 * more, none across a 64 KiB boundary; if they are not one range, no
 * entries and no IOMMU bytes are counted.  vcm_translate() finds a byte
 * of the block where a walk of the DMA segments puts it.
 */
static void vcm_edu_test_dma_segments(struct kunit *test)
{
	struct vcm_edu_ctx *ctx = test->priv;
	struct sg_table *table = kunit_kzalloc(test, sizeof(*table), GFP_KERNEL);
	struct vcm *k = kernel_vcm(test), *dvcm;
	struct vcm_physmem *two, *gap;
	struct vcm_res *r2, *rg, *rk;
	struct iommu_domain *domain;
	struct edu_dma_parms *parms;
	struct page *page, *block;
	struct vcm_avcm *davcm;
	struct scatterlist *sg;
	struct sg_table *dsgt;
	dma_addr_t addr, out;
	unsigned int i;
	long bytes;
	size_t sum;
	bool cont;
	u8 *cpu;

	if (PAGE_SIZE != SZ_4K)
		kunit_skip(test, "written for 4 KiB pages");
	KUNIT_ASSERT_NOT_NULL(test, table);
	page = vcm_test_alloc_pages(test, GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, page);
	block = vcm_test_alloc_pages(test, GFP_KERNEL, get_order(SZ_64K));
	KUNIT_ASSERT_NOT_NULL(test, block);
	KUNIT_ASSERT_EQ(test, sg_alloc_table(table, 2, GFP_KERNEL), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, vcm_test_sg_free_table,
							table), 0);
	sg_set_page(table->sgl, page, PAGE_SIZE, 0);
	sg_set_page(sg_next(table->sgl), block, SZ_64K, 0);

	davcm = edu_dma_vcm(test, &dvcm);
	parms = edu_save_dma_parms(test);
	domain = iommu_get_domain_for_dev(ctx->dev);
	KUNIT_ASSERT_NOT_NULL(test, domain);

	/* Segments of at most 64 KiB. */
	dma_set_max_seg_size(ctx->dev, SZ_64K);
	two = new_phys(test, SZ_128K, 0, SZ_64K);
	r2 = vcm_reserve(dvcm, SZ_128K, RW_CACHED);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r2);
	KUNIT_ASSERT_EQ(test, vcm_back(r2, two), 0);
	dsgt = vcm_get_dma_sgt(r2);
	KUNIT_ASSERT_NOT_NULL(test, dsgt);
	sum = 0;
	for_each_sgtable_dma_sg(dsgt, sg, i) {
		KUNIT_EXPECT_LE(test, sg_dma_len(sg), SZ_64K);
		sum += sg_dma_len(sg);
	}
	KUNIT_EXPECT_EQ(test, sum, SZ_128K);
	cont = edu_dma_contiguous(dsgt);
	KUNIT_EXPECT_EQ(test, vcm_get_res_num_ptes(r2) != 0, cont);
	if (cont)
		KUNIT_EXPECT_EQ(test, vcm_get_res_num_ptes(r2),
				vcm_iommu_count_sgt_ptes(domain->pgsize_bitmap,
							 sg_dma_address(dsgt->sgl), dsgt));
	KUNIT_EXPECT_EQ(test, vcm_unback(r2), 0);
	dma_set_max_seg_size(ctx->dev, parms->max_seg);

	/* A page, then a block, with a 64 KiB segment boundary. */
	dma_set_seg_boundary(ctx->dev, SZ_64K - 1);
	gap = own_phys(test, vcm_phys_from_sgt(table, 0));
	rg = vcm_reserve(dvcm, PAGE_SIZE + SZ_64K, RW_CACHED);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, rg);
	rk = own_res(test, vcm_reserve(k, PAGE_SIZE + SZ_64K, RW_CACHED));
	bytes = vcm_stat_read(VCM_STAT_IOMMU_BYTES);
	KUNIT_ASSERT_EQ(test, vcm_back(rg, gap), 0);
	KUNIT_ASSERT_EQ(test, vcm_back(rk, gap), 0);
	dsgt = vcm_get_dma_sgt(rg);
	KUNIT_ASSERT_NOT_NULL(test, dsgt);
	KUNIT_EXPECT_GE(test, dsgt->nents, 2U);
	sum = 0;
	for_each_sgtable_dma_sg(dsgt, sg, i) {
		addr = sg_dma_address(sg);
		KUNIT_EXPECT_EQ_MSG(test, (addr ^ (addr + sg_dma_len(sg) - 1)) &
				    ~(dma_addr_t)(SZ_64K - 1), 0,
				    "segment %u: %pad+%#x", i, &addr, sg_dma_len(sg));
		sum += sg_dma_len(sg);
	}
	KUNIT_EXPECT_EQ(test, sum, PAGE_SIZE + SZ_64K);
	cont = edu_dma_contiguous(dsgt);
	KUNIT_EXPECT_EQ(test, vcm_get_res_num_ptes(rg) == 0, !cont);
	KUNIT_EXPECT_EQ(test, vcm_stat_read(VCM_STAT_IOMMU_BYTES) - bytes,
			cont ? (long)(PAGE_SIZE + SZ_64K) : 0L);
	cpu = vcm_get_vaddr(rk);
	KUNIT_ASSERT_NOT_NULL(test, cpu);
	KUNIT_ASSERT_EQ(test, vcm_translate(k, (uintptr_t)cpu + PAGE_SIZE + 8, dvcm,
					    &out), 0);
	KUNIT_EXPECT_EQ(test, out, vcm_test_dma_addr_at(dsgt, PAGE_SIZE + 8));

	KUNIT_EXPECT_EQ(test, vcm_unback(rg), 0);
	KUNIT_EXPECT_EQ(test, vcm_unback(rk), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(r2), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(rg), 0);
	KUNIT_EXPECT_EQ(test, unreserve_res(test, rk), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, gap), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, two), 0);
	edu_dma_vcm_free(test, dvcm, davcm);
}

/*
 * An IOMMU VCM keeps its domain, and the mappings in it, when its last
 * device goes.  Associated again, edu gets that domain, its IOMMU's
 * coherency being the domain's, and nothing is mapped again; active, edu
 * reaches the memory through the mappings made for the first association.
 */
static void vcm_edu_test_domain_kept(struct kunit *test)
{
	struct vcm_edu_ctx *ctx = test->priv;
	struct vcm *v = own_vcm(test, vcm_create(EDU_VCM_START, EDU_VCM_LEN));
	struct vcm_physmem *pm = new_phys(test, SZ_64K, 0, 0);
	unsigned int cursor = 0;
	phys_addr_t phys, got;
	unsigned long pgsizes;
	long bytes, ptes;
	struct vcm_avcm *a;
	struct vcm_res *res;
	dma_addr_t iova;
	size_t n, len;

	KUNIT_ASSERT_EQ(test, vcm_test_next_chunk(pm, &cursor, &phys, &len), 0);
	vcm_fill_pattern(pm, 0xf000);
	res = vcm_reserve(v, SZ_64K, RW_CACHED);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	KUNIT_ASSERT_EQ(test, vcm_back(res, pm), 0);
	iova = vcm_get_dev_addr(res);
	a = vcm_assoc(v, ctx->dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a);
	pgsizes = vcm_get_pgsize_bitmap(v);
	n = vcm_get_res_num_ptes(res);
	KUNIT_EXPECT_GT(test, n, 0);
	KUNIT_ASSERT_EQ(test, vcm_deassoc(a), 0);
	KUNIT_EXPECT_EQ(test, vcm_get_pgsize_bitmap(v), pgsizes);
	KUNIT_EXPECT_EQ(test, vcm_get_res_num_ptes(res), n);

	bytes = vcm_stat_read(VCM_STAT_IOMMU_BYTES);
	ptes = vcm_stat_read(VCM_STAT_IOMMU_PTES);
	a = vcm_assoc(v, ctx->dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a);
	KUNIT_EXPECT_EQ(test, vcm_stat_read(VCM_STAT_IOMMU_BYTES), bytes);
	KUNIT_EXPECT_EQ(test, vcm_stat_read(VCM_STAT_IOMMU_PTES), ptes);
	KUNIT_EXPECT_EQ(test, vcm_get_res_num_ptes(res), n);

	KUNIT_ASSERT_EQ(test, vcm_deactivate(ctx->avcm), 0);
	KUNIT_ASSERT_EQ(test, vcm_activate(a), 0);
	KUNIT_EXPECT_EQ(test, vcm_dev_addr_to_phys_addr(ctx->dev, iova + 8, &got), 0);
	KUNIT_EXPECT_EQ(test, got, phys + 8);
	edu_copy(test, iova, iova + SZ_32K, 64);
	KUNIT_EXPECT_EQ(test, read_word(pm, SZ_32K + 60), vcm_pattern_at(pm, 0xf000, 60));
	KUNIT_EXPECT_EQ(test, vcm_deactivate(a), 0);
	KUNIT_EXPECT_EQ(test, vcm_activate(ctx->avcm), 0);

	KUNIT_EXPECT_EQ(test, vcm_deassoc(a), 0);
	KUNIT_EXPECT_EQ(test, vcm_unback(res), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(res), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, v), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
}

/*
 * A VCM must fit the aperture of the domain it gets, not only the
 * device's DMA mask: with edu's mask widened to 64 bits, a VCM that ends
 * past the aperture of edu's IOMMU is refused with -ERANGE, leaving no
 * association and no domain; one that ends at the aperture's last
 * address is taken.
 */
static void vcm_edu_test_aperture(struct kunit *test)
{
	struct vcm_edu_ctx *ctx = test->priv;
	struct iommu_domain *domain = iommu_get_domain_for_dev(ctx->dev);
	long assocs = vcm_stat_read(VCM_STAT_ASSOCS);
	struct vcm *past, *fits;
	struct vcm_avcm *a;
	dma_addr_t end;

	KUNIT_ASSERT_NOT_NULL(test, domain);
	end = domain->geometry.aperture_end;
	if (end > U64_MAX - SZ_2M)
		kunit_skip(test, "the aperture ends at the last address");
	edu_save_dma_parms(test);
	KUNIT_ASSERT_EQ(test, dma_set_mask(ctx->dev, DMA_BIT_MASK(64)), 0);

	past = own_vcm(test, vcm_create(end + 1 - SZ_1M, SZ_2M));
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_assoc(past, ctx->dev, 0)), -ERANGE);
	KUNIT_EXPECT_EQ(test, vcm_stat_read(VCM_STAT_ASSOCS), assocs);
	/* The domain made for the association went with it. */
	KUNIT_EXPECT_EQ(test, vcm_get_pgsize_bitmap(past), PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, free_vcm(test, past), 0);

	fits = own_vcm(test, vcm_create(end + 1 - SZ_1M, SZ_1M));
	a = vcm_assoc(fits, ctx->dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a);
	KUNIT_EXPECT_EQ(test, vcm_deassoc(a), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, fits), 0);
}

/* Remove edu's fault hook, if it has one. */
static void edu_unhook(void *dev)
{
	vcm_hook(dev, NULL, NULL);
}

/*
 * Fault hooks as the domains' handlers see them.  A second hook for edu
 * replaces the first, handler and data.  A fault of a device without a
 * hook, reported through a domain whose VCM has a hooked device, is not
 * handled (-EOPNOTSUPP) and reaches no handler.  A VCM still without a
 * domain when the hook comes gets the handler with its domain, when edu
 * is associated with it (the domain edu translates through once that
 * association is active), and loses it when edu goes: a fault reported
 * through the domain then gets the IOMMU core's error.
 */
static void vcm_edu_test_fault_hook_replace(struct kunit *test)
{
	struct vcm_edu_ctx *ctx = test->priv;
	struct device *stranger = kunit_device_register(test, "vcm-edu-stranger");
	struct vcm *late = own_vcm(test, vcm_create(EDU_VCM_START, EDU_VCM_LEN));
	struct vcm_edu_fault *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct vcm_edu_fault *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct iommu_domain *domain = iommu_get_domain_for_dev(ctx->dev);
	struct iommu_domain *late_domain;
	struct vcm_avcm *la;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, stranger);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, domain);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, edu_unhook, ctx->dev), 0);

	KUNIT_ASSERT_EQ(test, vcm_hook(ctx->dev, vcm_edu_fault_handler, a), 0);
	KUNIT_ASSERT_EQ(test, vcm_hook(ctx->dev, vcm_edu_fault_handler, b), 0);
	KUNIT_EXPECT_EQ(test, report_iommu_fault(domain, ctx->dev, EDU_VCM_START + SZ_4K,
						 IOMMU_FAULT_READ), 0);
	KUNIT_EXPECT_EQ(test, a->calls, 0);
	KUNIT_EXPECT_EQ(test, b->calls, 1);
	KUNIT_EXPECT_EQ(test, b->addr, (dma_addr_t)EDU_VCM_START + SZ_4K);

	KUNIT_EXPECT_EQ(test, report_iommu_fault(domain, stranger, EDU_VCM_START,
						 IOMMU_FAULT_WRITE), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, a->calls + b->calls, 1);

	la = vcm_assoc(late, ctx->dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, la);
	KUNIT_ASSERT_EQ(test, vcm_deactivate(ctx->avcm), 0);
	KUNIT_ASSERT_EQ(test, vcm_activate(la), 0);
	/* The domain edu translates through: the late VCM's. */
	late_domain = iommu_get_domain_for_dev(ctx->dev);
	KUNIT_ASSERT_NOT_NULL(test, late_domain);
	KUNIT_EXPECT_PTR_NE(test, late_domain, domain);
	KUNIT_EXPECT_EQ(test, report_iommu_fault(late_domain, ctx->dev,
						 EDU_VCM_START + SZ_8K,
						 IOMMU_FAULT_WRITE), 0);
	KUNIT_EXPECT_EQ(test, b->calls, 2);
	KUNIT_EXPECT_EQ(test, b->addr, (dma_addr_t)EDU_VCM_START + SZ_8K);
	KUNIT_EXPECT_EQ(test, b->flags, IOMMU_FAULT_WRITE);
	KUNIT_EXPECT_EQ(test, vcm_deactivate(la), 0);
	KUNIT_EXPECT_EQ(test, vcm_deassoc(la), 0);
	KUNIT_EXPECT_EQ(test, vcm_activate(ctx->avcm), 0);
	/*
	 * The VCM keeps its domain until it is freed.  No handler: the IOMMU
	 * core's own error, not the hook's 0, and no call.
	 */
	KUNIT_EXPECT_NE(test, report_iommu_fault(late_domain, ctx->dev, EDU_VCM_START,
						 IOMMU_FAULT_WRITE), 0);
	KUNIT_EXPECT_EQ(test, b->calls, 2);

	KUNIT_EXPECT_EQ(test, vcm_hook(ctx->dev, NULL, NULL), 0);
	KUNIT_EXPECT_EQ(test, vcm_hook(ctx->dev, NULL, NULL), -ENOENT);
	KUNIT_EXPECT_EQ(test, free_vcm(test, late), 0);
}

KUNIT_DEFINE_ACTION_WRAPPER(edu_kfree, kfree, const void *);
KUNIT_DEFINE_ACTION_WRAPPER(edu_kvfree, kvfree, const void *);

/* A string of @fmt, freed with the case. */
static __printf(2, 3) char *edu_fmt(struct kunit *test, const char *fmt, ...)
{
	va_list args;
	char *s;

	va_start(args, fmt);
	s = kvasprintf(GFP_KERNEL, fmt, args);
	va_end(args);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, edu_kfree, s), 0);
	return s;
}

/*
 * What a vcm/ dump prints now, NUL-terminated, freed with the case: as
 * seq_read() does, a dump that fills the buffer is made again in one
 * twice as large.  It lists every VCM or physmem of the system.
 */
static char *edu_dump(struct kunit *test,
		      int (*show)(struct seq_file *m, void *unused))
{
	struct seq_file m = { .size = SZ_64K };

	for (;;) {
		m.buf = kvmalloc(m.size, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, m.buf);
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, edu_kvfree, m.buf), 0);
		m.count = 0;
		KUNIT_ASSERT_EQ(test, show(&m, NULL), 0);
		if (m.count < m.size)
			break;
		kunit_release_action(test, edu_kvfree, m.buf);
		KUNIT_ASSERT_LT_MSG(test, m.size, SZ_16M, "dump of 16M or more");
		m.size *= 2;
	}
	m.buf[m.count] = '\0';
	return m.buf;
}

/* The first line of @text that begins with @start, or NULL. */
static const char *edu_find_line(const char *text, const char *start)
{
	const char *p = text;

	while (p && strncmp(p, start, strlen(start))) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return p;
}

/*
 * The lines of @dump from the one that begins with @head up to the next
 * that does not begin with two spaces (the next VCM or physmem), or
 * NULL.  The last line keeps its newline.
 */
static char *edu_dump_block(struct kunit *test, const char *dump,
			    const char *head)
{
	const char *p = edu_find_line(dump, head), *end;
	size_t len;

	if (!p || !*p)
		return NULL;
	for (end = strchr(p, '\n'); end && !strncmp(end + 1, "  ", 2);
	     end = strchr(end + 1, '\n'))
		;
	len = end ? end + 1 - p : strlen(p);
	return edu_fmt(test, "%.*s", (int)len, p);
}

/* Expect @line, a whole line with its newline, among those of @block. */
static void edu_expect_line(struct kunit *test, const char *block,
			    const char *line)
{
	KUNIT_EXPECT_NOT_NULL_MSG(test, edu_find_line(block, line), "no line \"%.*s\" in\n%s",
				  (int)strcspn(line, "\n"), line, block);
}

/*
 * The line vcm/vcms shows for a reservation of 64K at @addr with RW,
 * aligned to @align, with @extra before its newline.
 */
static const char *edu_res_line(struct kunit *test, dma_addr_t addr,
				unsigned long align, const char *extra)
{
	return edu_fmt(test, "  res %pad+0x10000 attr %#x align %#lx%s\n", &addr,
		       (u32)RW, align, extra);
}

/*
 * vcm/vcms shows each VCM with its page sizes when it has a domain, its
 * devices (active or not), its bounds and its reservations, placed or
 * not and backed or not; vcm/physmem shows each physmem, system or
 * foreign, with the reservations it backs.
 */
static void vcm_edu_test_debugfs(struct kunit *test)
{
	struct vcm_edu_ctx *ctx = test->priv;
	const char *name = dev_name(ctx->dev);
	struct vcm_res *backed, *bare, *unplaced;
	struct vcm_physmem *pm, *wrap;
	char *vcms, *phys, *block;
	struct vcm_bound *bound;
	struct vcm *idle, *o;
	dma_addr_t addr, start;
	struct page *page;

	pm = own_phys(test, vcm_phys_alloc(VCM_MEMTYPE_SYSTEM, SZ_64K, 0, 0));
	backed = vcm_reserve(ctx->vcm, SZ_64K, RW);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, backed);
	KUNIT_ASSERT_EQ(test, vcm_back(backed, pm), 0);
	bare = vcm_reserve(ctx->vcm, SZ_64K, RW);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, bare);
	bound = vcm_create_bound(ctx->vcm, SZ_1M);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, bound);
	/* edu's second VCM, associated and not active */
	idle = own_vcm(test, vcm_create(EDU_VCM_START, EDU_VCM_LEN));
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, vcm_assoc(idle, ctx->dev, 0));
	/* A one-to-one VCM's reservation is placed when it is backed. */
	page = vcm_test_alloc_pages(test, GFP_KERNEL, get_order(SZ_64K));
	KUNIT_ASSERT_NOT_NULL(test, page);
	o = own_vcm(test, vcm_create_one_to_one(page_to_phys(page), SZ_64K));
	unplaced = vcm_reserve(o, SZ_64K, RW);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, unplaced);
	wrap = own_phys(test, vcm_phys_from_range(page_to_phys(page), SZ_64K));

	vcms = edu_dump(test, vcm_vcms_show);
	phys = edu_dump(test, vcm_physmem_show);

	block = edu_dump_block(test, vcms, edu_fmt(test, "vcm %u iommu ", ctx->vcm->id));
	KUNIT_ASSERT_NOT_NULL_MSG(test, block, "no VCM %u in\n%s", ctx->vcm->id, vcms);
	KUNIT_EXPECT_NOT_NULL(test, strstr(block, " reservations 2 used 0x120000 pgsizes "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(block, edu_fmt(test, " pgsizes %#lx\n",
							  vcm_get_pgsize_bitmap(ctx->vcm))));
	edu_expect_line(test, block, edu_fmt(test, "  dev %s active attr 0x0\n", name));
	start = vcm_get_bound_start_addr(bound);
	edu_expect_line(test, block, edu_fmt(test, "  bound %pad+0x100000 reservations 0\n",
					     &start));
	/*
	 * The domain has no page size from 8K to 1M: base pages align them,
	 * and map them with an entry each.
	 */
	edu_expect_line(test, block, edu_res_line(test, vcm_get_dev_addr(backed), PAGE_SIZE,
						  edu_fmt(test, " physmem %u ptes %lu", pm->id,
							  SZ_64K / PAGE_SIZE)));
	edu_expect_line(test, block, edu_res_line(test, vcm_get_dev_addr(bare), PAGE_SIZE, ""));

	block = edu_dump_block(test, vcms, edu_fmt(test, "vcm %u iommu ", idle->id));
	KUNIT_ASSERT_NOT_NULL_MSG(test, block, "no VCM %u in\n%s", idle->id, vcms);
	edu_expect_line(test, block, edu_fmt(test, "  dev %s inactive attr 0x0\n", name));

	/*
	 * No domain, so no page sizes; its one reservation, unplaced, is
	 * aligned for the 64K chunks a CPU kind of VCM maps with.
	 */
	block = edu_dump_block(test, vcms, edu_fmt(test, "vcm %u one-to-one ", o->id));
	KUNIT_ASSERT_NOT_NULL_MSG(test, block, "no VCM %u in\n%s", o->id, vcms);
	KUNIT_EXPECT_NULL(test, strstr(block, "pgsizes"));
	KUNIT_EXPECT_STREQ(test, strchr(block, '\n') + 1,
			   edu_res_line(test, unplaced->dev_addr, SZ_64K, " unplaced"));

	addr = vcm_get_dev_addr(backed);
	block = edu_dump_block(test, phys, edu_fmt(test, "physmem %u system len 0x10000 ",
						   pm->id));
	KUNIT_ASSERT_NOT_NULL_MSG(test, block, "no physmem %u in\n%s", pm->id, phys);
	edu_expect_line(test, block, edu_fmt(test, "  backs vcm %u %pad+0x10000\n",
					     ctx->vcm->id, &addr));
	block = edu_dump_block(test, phys, edu_fmt(test, "physmem %u foreign len 0x10000 ",
						   wrap->id));
	KUNIT_ASSERT_NOT_NULL_MSG(test, block, "no physmem %u in\n%s", wrap->id, phys);
	KUNIT_EXPECT_NOT_NULL(test, strstr(block, " contiguous "));
	KUNIT_EXPECT_NULL(test, strstr(block, "backs"));
}

/*
 * fail-nth inside the kernel, as igt's fail-nth from user space: the
 * @n-th allocation of this task fails (slab or page allocator), 0
 * disarms.  The guest runner sets failslab's and fail_page_alloc's knobs
 * before it loads the suites, as igt's fail-nth does, so that
 * allocations that may sleep can fail and no failure dumps a stack.
 */
#ifdef CONFIG_FAULT_INJECTION
static void edu_fail_nth(unsigned int n)
{
	WRITE_ONCE(current->fail_nth, n);
}

/* Disarm fail-nth; true if the armed allocation came and failed. */
static bool edu_fail_nth_done(void)
{
	bool injected = !READ_ONCE(current->fail_nth);

	WRITE_ONCE(current->fail_nth, 0);
	return injected;
}

/*
 * Whether fail-nth fails both a slab and a page allocation that may
 * sleep: the knobs are set as the sweep needs them.
 */
static bool edu_fail_nth_works(void)
{
	struct page *page;
	bool slab, pages;
	void *p;

	edu_fail_nth(1);
	p = kmalloc(64, GFP_KERNEL);
	slab = !p && edu_fail_nth_done();
	kfree(p);
	edu_fail_nth(1);
	page = alloc_page(GFP_KERNEL);
	pages = !page && edu_fail_nth_done();
	if (page)
		__free_page(page);
	return slab && pages;
}

/* Hold fail-nth's count over a call that must not see a failure. */
static unsigned int edu_fail_nth_pause(void)
{
	unsigned int n = READ_ONCE(current->fail_nth);

	WRITE_ONCE(current->fail_nth, 0);
	return n;
}
#else
static void edu_fail_nth(unsigned int n)
{
}

static bool edu_fail_nth_done(void)
{
	return false;
}

static unsigned int edu_fail_nth_pause(void)
{
	return 0;
}

static bool edu_fail_nth_works(void)
{
	return false;
}
#endif

/*
 * What one pass of the sweep made, released by edu_sweep_release(), and
 * where its failure is injected: the @n-th allocation of step @armed.
 */
struct edu_sweep {
	struct vcm *vcm, *clone, *dvcm;
	struct vcm_avcm *avcm, *davcm;
	struct vcm_bound *bound;
	struct vcm_physmem *pm, *dpm;
	struct vcm_res *res[4], *dres[2];
	unsigned int step, armed, n;
	bool injected;
};

/*
 * Begin the next step of a pass: fail-nth is armed for the swept step
 * alone, so that each step's allocations are failed in turn however many
 * the steps before it made.
 */
static void edu_step(struct edu_sweep *s)
{
	if (s->step && s->step - 1 == s->armed)
		s->injected = edu_fail_nth_done();
	if (s->step == s->armed)
		edu_fail_nth(s->n);
	s->step++;
}

static int edu_sweep_steps(struct edu_sweep *s, struct device *dev)
{
	/* plain, and a mapping that is write-only, exec and privileged */
	static const u32 attr[] = { RW, VCM_WRITE | VCM_EXECUTE | VCM_SUPERVISOR };
	struct vcm_constraint c;
	unsigned int n;
	int ret, i;

	edu_step(s);
	s->pm = vcm_phys_alloc(VCM_MEMTYPE_SYSTEM, SZ_2M + 3 * SZ_4K, 0, 0);
	if (IS_ERR(s->pm))
		return PTR_ERR(s->pm);
	edu_step(s);
	s->vcm = vcm_create(EDU_VCM_START, EDU_VCM_LEN);
	if (IS_ERR(s->vcm))
		return PTR_ERR(s->vcm);
	/*
	 * Backed before the device comes: its association maps them.  The
	 * first non-cacheable backing of the physmem cleans its lines
	 * through the DMA API (vcm_phys_clean()), a mapping for VCM's own
	 * device, and is not under fault injection (see below); the second
	 * backing takes the same path without it.  The IOMMU's page tables
	 * go through the DMA API only where the SMMU does not walk them
	 * coherently (io-pgtable's coherent_walk), which QEMU's does; the
	 * run's report fails on DMA-API debugging turning itself off.
	 */
	for (i = 0; i < ARRAY_SIZE(attr); i++) {
		edu_step(s);
		s->res[i] = vcm_reserve(s->vcm, SZ_2M + 3 * SZ_4K, attr[i]);
		if (IS_ERR(s->res[i]))
			return PTR_ERR(s->res[i]);
		edu_step(s);
		n = i ? 0 : edu_fail_nth_pause();
		ret = vcm_back(s->res[i], s->pm);
		if (!i)
			edu_fail_nth(n);
		if (ret)
			return ret;
	}
	edu_step(s);
	s->bound = vcm_create_bound(s->vcm, SZ_4M);
	if (IS_ERR(s->bound))
		return PTR_ERR(s->bound);
	edu_step(s);
	s->res[2] = vcm_reserve_from_bound(s->bound, SZ_1M, VCM_READ);
	if (IS_ERR(s->res[2]))
		return PTR_ERR(s->res[2]);
	edu_step(s);
	s->clone = vcm_clone(s->vcm);
	if (IS_ERR(s->clone))
		return PTR_ERR(s->clone);
	edu_step(s);
	s->avcm = vcm_assoc(s->vcm, dev, 0);
	if (IS_ERR(s->avcm))
		return PTR_ERR(s->avcm);
	edu_step(s);
	ret = vcm_activate(s->avcm);
	if (ret)
		return ret;
	/* Backed while active: mapped at once. */
	edu_step(s);
	s->res[3] = vcm_reserve(s->vcm, SZ_2M + 3 * SZ_4K, RW);
	if (IS_ERR(s->res[3]))
		return PTR_ERR(s->res[3]);
	edu_step(s);
	ret = vcm_back(s->res[3], s->pm);
	if (ret)
		return ret;
	/*
	 * Not under fault injection: detaching gives the device back its
	 * (paging) default domain, an attach the IOMMU core requires to
	 * succeed, and 6.12's SMMUv3 driver allocates in it before it
	 * changes the stream table.  A failure there WARNs in the core,
	 * which records the default domain as attached while the device
	 * still translates through the VCM's; the VCM's domain and page
	 * tables are then freed under the device.  vcm_iommu_deactivate()
	 * cannot see it: iommu_detach_device() returns nothing.  (A failed
	 * attach in vcm_activate() is undone by the core with the same
	 * attach, which succeeds here only because fail-nth fails once.)
	 */
	edu_step(s);
	n = edu_fail_nth_pause();
	ret = vcm_deactivate(s->avcm);
	edu_fail_nth(n);
	if (ret)
		return ret;

	/*
	 * edu's DMA VCM, where the DMA API maps what is backed.  Its
	 * memory and mappings are not under fault injection: DMA-API
	 * debugging allocates for each (its cacheline tracking,
	 * GFP_ATOMIC), and one failure turns it off for the rest of the
	 * boot, with the entries it tracked left for its dump to print the
	 * freed devices of.
	 */
	edu_step(s);
	s->dvcm = vcm_create_dma();
	if (IS_ERR(s->dvcm))
		return PTR_ERR(s->dvcm);
	edu_step(s);
	s->davcm = vcm_assoc(s->dvcm, dev, 0);
	if (IS_ERR(s->davcm))
		return PTR_ERR(s->davcm);
	edu_step(s);
	ret = vcm_constraint_of_vcm(s->dvcm, &c);
	if (ret)
		return ret;
	/* From the DMA API (dma_alloc_pages()), which DMA-API debugging tracks. */
	n = edu_fail_nth_pause();
	s->dpm = vcm_phys_alloc_for(SZ_4M, 0, &c);
	edu_fail_nth(n);
	if (IS_ERR(s->dpm))
		return PTR_ERR(s->dpm);
	edu_step(s);
	ret = vcm_activate(s->davcm);
	if (ret)
		return ret;
	for (i = 0; i < ARRAY_SIZE(s->dres); i++) {
		edu_step(s);
		s->dres[i] = vcm_reserve(s->dvcm, SZ_4M, RW_CACHED);
		if (IS_ERR(s->dres[i]))
			return PTR_ERR(s->dres[i]);
		edu_step(s);
		n = edu_fail_nth_pause();
		ret = vcm_back(s->dres[i], s->dpm);
		edu_fail_nth(n);
		if (ret)
			return ret;
	}
	/* Inactive, they stay backed; active again, each is mapped again. */
	edu_step(s);
	ret = vcm_deactivate(s->davcm);
	if (ret)
		return ret;
	edu_step(s);
	n = edu_fail_nth_pause();
	ret = vcm_activate(s->davcm);
	edu_fail_nth(n);
	return ret;
}

/* One pass, with the @n-th allocation of step @armed failed. */
static int edu_sweep_make(struct edu_sweep *s, struct device *dev,
			  unsigned int armed, unsigned int n)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->armed = armed;
	s->n = n;
	ret = edu_sweep_steps(s, dev);
	if (s->step && s->step - 1 == s->armed)
		s->injected = edu_fail_nth_done();
	return ret;
}

/* Release what edu_sweep_make() made, up to where it stopped. */
static void edu_sweep_release(struct kunit *test, struct edu_sweep *s)
{
	struct vcm *vcms[] = { s->dvcm, s->clone, s->vcm };
	struct vcm_avcm *avcms[] = { s->davcm, NULL, s->avcm };
	struct vcm_res *res;
	int i;

	for (i = 0; i < ARRAY_SIZE(vcms); i++) {
		if (IS_ERR_OR_NULL(vcms[i]))
			continue;
		if (!IS_ERR_OR_NULL(avcms[i])) {
			if (vcm_is_active(avcms[i]))
				KUNIT_EXPECT_EQ(test, vcm_deactivate(avcms[i]), 0);
			KUNIT_EXPECT_EQ(test, vcm_deassoc(avcms[i]), 0);
		}
		while ((res = vcm_get_next_res(vcms[i], NULL))) {
			if (!IS_ERR(vcm_get_physmem_from_res(res)))
				KUNIT_EXPECT_EQ(test, vcm_unback(res), 0);
			if (vcm_unreserve(res)) {
				KUNIT_FAIL(test, "a reservation is left");
				break;
			}
		}
		if (vcms[i] == s->vcm && !IS_ERR_OR_NULL(s->bound))
			KUNIT_EXPECT_EQ(test, vcm_free_bound(s->bound), 0);
		KUNIT_EXPECT_EQ(test, vcm_free(vcms[i]), 0);
	}
	if (!IS_ERR_OR_NULL(s->dpm))
		KUNIT_EXPECT_EQ(test, vcm_phys_free(s->dpm), 0);
	if (!IS_ERR_OR_NULL(s->pm))
		KUNIT_EXPECT_EQ(test, vcm_phys_free(s->pm), 0);
}

/*
 * Every allocation on a buffer's way through an IOMMU VCM and a DMA VCM
 * of edu failed in turn: a physmem of mixed chunks backing reservations
 * before the association (which maps them into the new domain, and
 * unmaps those it mapped when one fails), a bound, a clone (which frees
 * what it copied when it fails half-way), an activation, a reservation
 * backed while active, and a DMA VCM whose activation maps the backed
 * ones through the DMA API (and unmaps them when one fails).  Each step
 * is swept on its own, n = 1, 2, ... until its last allocation passed.
 * A pass either fails with -ENOMEM or absorbs the failure (a smaller
 * chunk, a retry); then everything is released and every gauge is back.
 */
static void vcm_edu_test_fail_nth(struct kunit *test)
{
	struct vcm_edu_ctx *ctx = test->priv;
	unsigned int armed, n, steps, failed = 0, absorbed = 0, passes = 0;
	long before[VCM_STAT_FIRST_EVENT];
	struct edu_sweep s;
	int ret, i;

	if (!edu_fail_nth_works())
		kunit_skip(test, "fail-nth fails no allocation that may sleep: knobs unset");
	KUNIT_ASSERT_EQ(test, vcm_deactivate(ctx->avcm), 0);
	for (i = 0; i < VCM_STAT_FIRST_EVENT; i++)
		before[i] = vcm_stat_read(i);
	/* A pass with nothing armed counts the steps. */
	ret = edu_sweep_make(&s, ctx->dev, UINT_MAX, 0);
	steps = s.step;
	edu_sweep_release(test, &s);
	KUNIT_ASSERT_EQ(test, ret, 0);
	/*
	 * A step's allocations: a few, or a chunk's worth of pages where a
	 * high-order allocation failed on its own and fell back to pages.
	 */
	for (armed = 0; armed < steps; armed++) {
		for (n = 1; n < 2000; n++) {
			ret = edu_sweep_make(&s, ctx->dev, armed, n);
			edu_sweep_release(test, &s);
			passes++;
			for (i = 0; i < VCM_STAT_FIRST_EVENT; i++)
				KUNIT_ASSERT_EQ_MSG(test, vcm_stat_read(i), before[i],
						    "step %u, n=%u: counter %s",
						    armed, n, vcm_stat_names[i]);
			if (!s.injected) {
				KUNIT_ASSERT_EQ_MSG(test, ret, 0,
						    "step %u, n=%u: no failure injected",
						    armed, n);
				break;
			}
			if (ret) {
				KUNIT_ASSERT_EQ_MSG(test, ret, -ENOMEM,
						    "step %u, n=%u", armed, n);
				failed++;
			} else {
				absorbed++;
			}
		}
		KUNIT_ASSERT_LT_MSG(test, n, 2000U, "step %u: the sweep did not end",
				    armed);
	}
	kunit_info(test, "%u passes over %u steps: %u failed with -ENOMEM, %u absorbed a failure\n",
		   passes, steps, failed, absorbed);
	KUNIT_EXPECT_EQ(test, vcm_activate(ctx->avcm), 0);
}

/*
 * What vcm_edu_test_fail_nth_calls() sweeps needs: edu, a table of two
 * pages of the case's, a table of two segments of DMA addresses and an
 * active association of a DMA VCM to wrap them for, memory to back
 * reservations with, and a fault record; what a step's @prep made, and
 * what its @call made.
 */
struct edu_calls {
	struct device *dev;
	struct sg_table *pages;
	struct sg_table *dma;
	struct vcm_avcm *davcm;
	struct vcm_physmem *cont, *backing;
	struct vcm_edu_fault fault;
	struct vcm *vcm;
	struct vcm_res *res[3];
	struct vcm_physmem *pm;
	struct vcm_res *made;
	struct vcm *clone;
	struct vcm_avcm *avcm;
};

/*
 * A call swept: @prep (optional) makes what it needs, not under fault
 * injection; @call is made with the n-th allocation of the task failed;
 * @undo checks what a call that failed with @ret left, and releases what
 * @prep and @call made.
 */
struct edu_call {
	const char *name;
	void (*prep)(struct kunit *test, struct edu_calls *c);
	int (*call)(struct edu_calls *c);
	void (*undo)(struct kunit *test, struct edu_calls *c, int ret);
};

static int edu_call_from_sgt(struct edu_calls *c)
{
	c->pm = vcm_phys_from_sgt(c->pages, 0);
	return PTR_ERR_OR_ZERO(c->pm);
}

static int edu_call_from_dma(struct edu_calls *c)
{
	c->pm = vcm_phys_from_dma(c->davcm, c->dma);
	return PTR_ERR_OR_ZERO(c->pm);
}

static void edu_undo_phys(struct kunit *test, struct edu_calls *c, int ret)
{
	if (!ret)
		KUNIT_EXPECT_EQ(test, vcm_phys_free(c->pm), 0);
	c->pm = NULL;
}

static void edu_prep_vcm(struct kunit *test, struct edu_calls *c)
{
	c->vcm = own_vcm(test, vcm_create(EDU_VCM_START, EDU_VCM_LEN));
}

static int edu_call_reserve_at(struct edu_calls *c)
{
	c->made = vcm_reserve_at(c->vcm, EDU_VCM_START + SZ_1M, SZ_64K, RW);
	return PTR_ERR_OR_ZERO(c->made);
}

static void edu_undo_reserve_at(struct kunit *test, struct edu_calls *c, int ret)
{
	if (ret)
		KUNIT_EXPECT_NULL(test, vcm_get_res(c->vcm, EDU_VCM_START + SZ_1M));
	kunit_release_action(test, vcm_test_release_vcm, c->vcm);
}

/* A one-to-one VCM: an unbacked reservation, then a backed one. */
static void edu_prep_clone(struct kunit *test, struct edu_calls *c)
{
	c->vcm = own_vcm(test, vcm_create_one_to_one(0, 1ULL << 40));
	c->res[0] = vcm_reserve(c->vcm, SZ_64K, RW_CACHED);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c->res[0]);
	c->res[1] = vcm_reserve(c->vcm, SZ_64K, RW_CACHED);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c->res[1]);
	KUNIT_ASSERT_EQ(test, vcm_back(c->res[1], c->cont), 0);
}

static int edu_call_clone(struct edu_calls *c)
{
	c->clone = vcm_clone(c->vcm);
	return PTR_ERR_OR_ZERO(c->clone);
}

static void edu_undo_clone(struct kunit *test, struct edu_calls *c, int ret)
{
	if (!ret) {
		KUNIT_EXPECT_EQ(test, vcm_get_num_res(c->clone), 2);
		vcm_test_release_vcm(c->clone);
	}
	c->clone = NULL;
	kunit_release_action(test, vcm_test_release_vcm, c->vcm);
}

/* An IOMMU VCM without a domain: an unbacked reservation, two backed. */
static void edu_prep_assoc(struct kunit *test, struct edu_calls *c)
{
	int i;

	edu_prep_vcm(test, c);
	c->res[0] = vcm_reserve(c->vcm, PAGE_SIZE, RW_CACHED);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c->res[0]);
	for (i = 1; i < 3; i++) {
		c->res[i] = vcm_reserve(c->vcm, SZ_64K, RW_CACHED);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c->res[i]);
		KUNIT_ASSERT_EQ(test, vcm_back(c->res[i], c->backing), 0);
	}
}

static int edu_call_assoc(struct edu_calls *c)
{
	c->avcm = vcm_assoc(c->vcm, c->dev, 0);
	return PTR_ERR_OR_ZERO(c->avcm);
}

static void edu_undo_assoc(struct kunit *test, struct edu_calls *c, int ret)
{
	if (ret) {
		/* The domain went, and what was mapped in it with it. */
		KUNIT_EXPECT_EQ(test, vcm_get_pgsize_bitmap(c->vcm), PAGE_SIZE);
		KUNIT_EXPECT_EQ(test, vcm_get_res_num_ptes(c->res[1]), 0);
		KUNIT_EXPECT_EQ(test, vcm_get_res_num_ptes(c->res[2]), 0);
	}
	kunit_release_action(test, vcm_test_release_vcm, c->vcm);
}

static int edu_call_hook(struct edu_calls *c)
{
	return vcm_hook(c->dev, vcm_edu_fault_handler, &c->fault);
}

static void edu_undo_hook(struct kunit *test, struct edu_calls *c, int ret)
{
	/* A hook that failed is not there to remove. */
	KUNIT_EXPECT_EQ(test, vcm_hook(c->dev, NULL, NULL), ret ? -ENOENT : 0);
}

/*
 * Sweep @step: its call with the n-th allocation failed, n = 1, 2, ...
 * until a call fails none.  Each failure is -ENOMEM, and once what was
 * made is released every gauge is back.  A step whose allocations all
 * went by without a failure reaching VCM tests nothing: that fails too.
 */
static void edu_sweep_call(struct kunit *test, struct edu_calls *c,
			   const struct edu_call *step)
{
	long before[VCM_STAT_FIRST_EVENT];
	unsigned int n, failed = 0;
	bool injected;
	int ret, i;

	for (n = 1; n < 1000; n++) {
		for (i = 0; i < VCM_STAT_FIRST_EVENT; i++)
			before[i] = vcm_stat_read(i);
		if (step->prep)
			step->prep(test, c);
		edu_fail_nth(n);
		ret = step->call(c);
		injected = edu_fail_nth_done();
		if (ret) {
			KUNIT_EXPECT_EQ_MSG(test, ret, -ENOMEM, "%s, n=%u", step->name, n);
			failed++;
		}
		step->undo(test, c, ret);
		for (i = 0; i < VCM_STAT_FIRST_EVENT; i++)
			KUNIT_EXPECT_EQ_MSG(test, vcm_stat_read(i), before[i],
					    "%s, n=%u: counter %s", step->name, n,
					    vcm_stat_names[i]);
		if (!injected) {
			KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%s, n=%u: no failure injected",
					    step->name, n);
			break;
		}
	}
	KUNIT_EXPECT_LT_MSG(test, n, 1000U, "%s: the sweep did not end", step->name);
	KUNIT_EXPECT_GT_MSG(test, failed, 0U, "%s: no failure came back", step->name);
}

/*
 * The allocations of calls the sweep above does not fail, failed in turn:
 * wrapping a caller's table of pages and a table of DMA addresses; a
 * reservation at a fixed address; a clone of a one-to-one VCM whose first
 * reservation is unbacked; edu's association with an IOMMU VCM whose
 * first reservation is unbacked, before two backed ones (what was mapped
 * is unmapped, and the domain freed); and a fault hook for edu (freed
 * when its devres cannot be had).  None of these calls maps anything
 * through the DMA API, whose debugging must see no failure.
 */
static void vcm_edu_test_fail_nth_calls(struct kunit *test)
{
	static const struct edu_call steps[] = {
		{ "vcm_phys_from_sgt", NULL, edu_call_from_sgt, edu_undo_phys },
		{ "vcm_phys_from_dma", NULL, edu_call_from_dma, edu_undo_phys },
		{ "vcm_reserve_at", edu_prep_vcm, edu_call_reserve_at, edu_undo_reserve_at },
		{ "vcm_clone", edu_prep_clone, edu_call_clone, edu_undo_clone },
		{ "vcm_assoc", edu_prep_assoc, edu_call_assoc, edu_undo_assoc },
		{ "vcm_hook", NULL, edu_call_hook, edu_undo_hook },
	};
	struct device *kdev = kunit_device_register(test, "vcm-edu-fail-dma");
	struct edu_calls *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct vcm_edu_ctx *ctx = test->priv;
	struct scatterlist *sg;
	struct page *page;
	struct vcm *dvcm;
	unsigned int i;

	if (!edu_fail_nth_works())
		kunit_skip(test, "fail-nth fails no allocation that may sleep: knobs unset");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, kdev);
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->dev = ctx->dev;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, edu_unhook, ctx->dev), 0);

	c->pages = kunit_kzalloc(test, sizeof(*c->pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->pages);
	KUNIT_ASSERT_EQ(test, sg_alloc_table(c->pages, 2, GFP_KERNEL), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, vcm_test_sg_free_table,
							c->pages), 0);
	for_each_sgtable_sg(c->pages, sg, i) {
		page = vcm_test_alloc_pages(test, GFP_KERNEL, 0);
		KUNIT_ASSERT_NOT_NULL(test, page);
		sg_set_page(sg, page, PAGE_SIZE, 0);
	}

	c->dma = kunit_kzalloc(test, sizeof(*c->dma), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->dma);
	KUNIT_ASSERT_EQ(test, sg_alloc_table(c->dma, 2, GFP_KERNEL), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, vcm_test_sg_free_table,
							c->dma), 0);
	for_each_sgtable_sg(c->dma, sg, i) {
		sg_dma_address(sg) = SZ_1G + i * SZ_2M;
		sg_dma_len(sg) = PAGE_SIZE;
	}
	dvcm = own_vcm(test, vcm_create_dma());
	c->davcm = vcm_assoc(dvcm, kdev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c->davcm);
	KUNIT_ASSERT_EQ(test, vcm_activate(c->davcm), 0);

	/* Memory from the DMA API, allocated before any failure is armed. */
	c->cont = new_phys(test, SZ_64K, VCM_PHYS_CONT, 0);
	c->backing = new_phys(test, SZ_64K, 0, 0);

	for (i = 0; i < ARRAY_SIZE(steps); i++)
		edu_sweep_call(test, c, &steps[i]);

	KUNIT_EXPECT_EQ(test, vcm_deactivate(c->davcm), 0);
	KUNIT_EXPECT_EQ(test, vcm_deassoc(c->davcm), 0);
	KUNIT_EXPECT_EQ(test, free_vcm(test, dvcm), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, c->backing), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, c->cont), 0);
}

static struct kunit_case vcm_edu_test_cases[] = {
	KUNIT_CASE(vcm_edu_test_identify),
	KUNIT_CASE(vcm_edu_test_mixed_chunks),
	KUNIT_CASE(vcm_edu_test_shared_with_cpu),
	KUNIT_CASE(vcm_edu_test_from_dma),
	KUNIT_CASE(vcm_edu_test_dma_kind),
	KUNIT_CASE(vcm_edu_test_unbacked),
	KUNIT_CASE(vcm_edu_test_read_only),
	KUNIT_CASE(vcm_edu_test_fault_hook),
	KUNIT_CASE(vcm_edu_test_domains),
	KUNIT_CASE(vcm_edu_test_range_errors),
	KUNIT_CASE(vcm_edu_test_dma_segments),
	KUNIT_CASE(vcm_edu_test_domain_kept),
	KUNIT_CASE(vcm_edu_test_aperture),
	KUNIT_CASE(vcm_edu_test_fault_hook_replace),
	KUNIT_CASE(vcm_edu_test_debugfs),
	KUNIT_CASE_SLOW(vcm_edu_test_fail_nth),
	KUNIT_CASE_SLOW(vcm_edu_test_fail_nth_calls),
	{}
};

/*
 * The suite runs on the edu bound to the module's driver, which probes
 * from the module's init, before KUnit runs the suite.
 */
static int vcm_edu_suite_init(struct kunit_suite *suite)
{
	vcm_edu_test_dev = vcm_edu_get();
	if (!vcm_edu_test_dev) {
		kunit_err(suite, "no edu bound to the vcm_edu driver: write vcm_edu to the driver_override of a free edu before any driver of edu loads\n");
		return -ENODEV;
	}
	return 0;
}

static void vcm_edu_suite_exit(struct kunit_suite *suite)
{
	put_device(vcm_edu_test_dev);
	vcm_edu_test_dev = NULL;
}

static struct kunit_suite vcm_edu_test_suite = {
	.name = "vcm_edu",
	.suite_init = vcm_edu_suite_init,
	.suite_exit = vcm_edu_suite_exit,
	.init = vcm_edu_test_init,
	.test_cases = vcm_edu_test_cases,
};

kunit_test_suite(vcm_edu_test_suite);
