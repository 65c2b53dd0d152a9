// SPDX-License-Identifier: GPL-2.0-only
/*
 * VCM physmems of memory owned by others: a driver's own pages, the DMA
 * addresses of an importer's mapping of a dma-buf, and carve-outs.  VCM
 * maps them like its own and never frees them.
 */

#include <linux/dma-map-ops.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "vcm_priv.h"

static bool vcm_sgt_contiguous(struct sg_table *sgt)
{
	struct scatterlist *sg;
	phys_addr_t next = 0;
	unsigned int i;

	for_each_sgtable_sg(sgt, sg, i) {
		if (i && sg_phys(sg) != next)
			return false;
		next = sg_phys(sg) + sg->length;
	}
	return true;
}

/**
 * vcm_phys_from_sgt() - wrap memory described by a scatterlist
 * @sgt: a table of pages the caller owns, such as a driver's own
 *	allocation; every entry must be a page-aligned run of whole pages
 *	with struct pages.  Not a dma-buf's: an importer has no right to its
 *	pages and wraps its own device's DMA addresses with
 *	vcm_phys_from_dma() instead
 * @attr: %VCM_COHERENT if the owner maps the memory non-cacheable
 *
 * The physmem refers to @sgt, which the caller keeps unchanged until
 * vcm_phys_free(); the pages are never freed by VCM.  The caller owns the
 * physmem as for vcm_phys_alloc().
 *
 * For drivers with pages of their own; in this tree only the vcm suite
 * calls it.
 *
 * Context: Process context.
 * Return: the physmem, ERR_PTR(-EINVAL) for an empty or unsuitable table
 * or invalid attributes, ERR_PTR(-ENOMEM).
 */
struct vcm_physmem *vcm_phys_from_sgt(struct sg_table *sgt, u32 attr)
{
	struct vcm_physmem *pm;
	struct scatterlist *sg;
	size_t len = 0;
	unsigned int i;

	if (!sgt || !sgt->sgl || !sgt->orig_nents || (attr & ~VCM_COHERENT))
		return ERR_PTR(-EINVAL);
	for_each_sgtable_sg(sgt, sg, i) {
		if (!sg_page(sg) || sg->offset || !sg->length ||
		    !PAGE_ALIGNED(sg->length))
			return ERR_PTR(-EINVAL);
		len += sg->length;
	}

	pm = vcm_physmem_new(VCM_MEMTYPE_FOREIGN, len, attr);
	if (!pm)
		return ERR_PTR(-ENOMEM);
	pm->foreign_sgt = sgt;
	pm->sgt = *sgt;
	pm->contiguous = vcm_sgt_contiguous(sgt);
	if (pm->contiguous)
		pm->attr |= VCM_PHYS_CONT;
	vcm_physmem_publish(pm);
	return pm;
}
EXPORT_SYMBOL_GPL(vcm_phys_from_sgt);

/**
 * vcm_phys_from_dma() - wrap memory a device knows by DMA address only
 * @avcm: an association of an IOMMU VCM with the device, active at least
 *	once (vcm_activate())
 * @sgt: a DMA mapping made for that device by the memory's owner, such as
 *	the table dma_buf_map_attachment() returns for an attachment of the
 *	device; its DMA segments must be page-aligned
 *
 * For importers, which may use nothing of someone else's buffer but the
 * DMA addresses of their own device's mapping of it: the pages, if any,
 * are the owner's.  The DMA API maps @sgt into the device's default
 * domain, while an active association makes the device translate through
 * the VCM's domain instead.  VCM asks the IOMMU where the default domain
 * sends each page of @sgt and records those output addresses; backing a
 * reservation maps them into the VCM's domain.  The physmem backs
 * reservations of @avcm's VCM only, never a CPU mapping, and VCM does no
 * cache maintenance on it: the owner's DMA mapping and its CPU access
 * calls (dma_buf_begin_cpu_access()) do.
 *
 * The caller keeps @sgt mapped until it frees the physmem, and owns the
 * physmem as for vcm_phys_alloc().  gembuf's engine wraps the dma-bufs it
 * imports with this.
 *
 * Context: Process context.
 * Return: the physmem, ERR_PTR(-EINVAL) for a NULL or ERR_PTR() argument,
 * a VCM that is not an IOMMU VCM, an association never activated from a
 * DMA API domain or a misaligned or empty table, ERR_PTR(-EFAULT) if part
 * of @sgt is not mapped for the device, ERR_PTR(-ENOMEM).
 */
struct vcm_physmem *vcm_phys_from_dma(struct vcm_avcm *avcm,
				      struct sg_table *sgt)
{
	struct iommu_domain *dma_domain;
	struct vcm_physmem *pm;
	struct scatterlist *sg;
	size_t len = 0;
	unsigned int i;
	int n;

	if (IS_ERR_OR_NULL(avcm) || IS_ERR_OR_NULL(sgt) || !sgt->sgl ||
	    !sgt->nents)
		return ERR_PTR(-EINVAL);
	/* Set once, by the first activation, and kept: no lock needed. */
	dma_domain = READ_ONCE(avcm->dma_domain);
	if (avcm->vcm->type != VCM_DEVICE || !dma_domain)
		return ERR_PTR(-EINVAL);
	for_each_sgtable_dma_sg(sgt, sg, i) {
		if (!sg_dma_len(sg) || !PAGE_ALIGNED(sg_dma_address(sg)) ||
		    !PAGE_ALIGNED(sg_dma_len(sg)))
			return ERR_PTR(-EINVAL);
		len += sg_dma_len(sg);
	}

	n = vcm_iommu_dma_chunks(dma_domain, sgt, NULL);
	if (n < 0)
		return ERR_PTR(n);
	pm = vcm_physmem_new(VCM_MEMTYPE_FOREIGN, len, 0);
	if (!pm)
		return ERR_PTR(-ENOMEM);
	if (vcm_sgt_alloc(pm, n)) {
		n = -ENOMEM;
		goto err;
	}
	/* The owner keeps @sgt mapped: a second walk finds the same runs. */
	if (vcm_iommu_dma_chunks(dma_domain, sgt, &pm->sgt) != n) {
		vcm_sgt_free(pm);
		n = -EFAULT;
		goto err;
	}
	pm->contiguous = n == 1;
	if (pm->contiguous)
		pm->attr |= VCM_PHYS_CONT;
	pm->dev_vcm = avcm->vcm;
	vcm_get(pm->dev_vcm);
	vcm_physmem_publish(pm);
	return pm;

err:
	mutex_destroy(&pm->lock);
	kfree(pm);
	return ERR_PTR(n);
}
EXPORT_SYMBOL_GPL(vcm_phys_from_dma);

/**
 * vcm_phys_from_range() - wrap a physically contiguous range of RAM
 * @phys: first physical address, page-aligned
 * @len: length, a non-zero multiple of the page size
 *
 * The RFC's vcm_map_phys_addr(), named for what it does: it maps nothing,
 * it makes a physmem of the range, for carve-outs and other memory set
 * aside outside VCM by its caller, who owns it.  The range must have
 * struct pages.  The caller owns the physmem as for vcm_phys_alloc().
 *
 * In this tree only the vcm suite calls it.
 *
 * Context: Process context.
 * Return: a contiguous %VCM_MEMTYPE_FOREIGN physmem, ERR_PTR(-EINVAL) for a
 * misaligned, empty or wrapping range or one without struct pages,
 * ERR_PTR(-ENOMEM).
 */
struct vcm_physmem *vcm_phys_from_range(phys_addr_t phys, size_t len)
{
	struct vcm_physmem *pm;
	unsigned long pfn;
	phys_addr_t last;

	if (!len || !PAGE_ALIGNED(phys) || !PAGE_ALIGNED(len) ||
	    check_add_overflow(phys, (phys_addr_t)len - 1, &last))
		return ERR_PTR(-EINVAL);
	for (pfn = PHYS_PFN(phys); pfn <= PHYS_PFN(last); pfn++)
		if (!pfn_valid(pfn))
			return ERR_PTR(-EINVAL);

	pm = vcm_physmem_new(VCM_MEMTYPE_FOREIGN, len, VCM_PHYS_CONT);
	if (!pm)
		return ERR_PTR(-ENOMEM);
	if (vcm_sgt_from_range(pm, pfn_to_page(PHYS_PFN(phys)), len)) {
		kfree(pm);
		return ERR_PTR(-ENOMEM);
	}
	pm->contiguous = true;
	vcm_physmem_publish(pm);
	return pm;
}
EXPORT_SYMBOL_GPL(vcm_phys_from_range);
