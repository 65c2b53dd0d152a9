// SPDX-License-Identifier: GPL-2.0-only
/*
 * VCM physmems of memory owned by others: a driver's own pages, the DMA
 * addresses of an importer's mapping of a dma-buf, and carve-outs.  VCM
 * maps them like its own and never frees them.
 */

#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include <kunit/visibility.h>

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
 * physmem as for vcm_phys_alloc().  For drivers with pages of their own.
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
	if (vcm_sgt_index(pm)) {
		mutex_destroy(&pm->lock);
		kfree(pm);
		return ERR_PTR(-ENOMEM);
	}
	pm->contiguous = vcm_sgt_contiguous(sgt);
	if (pm->contiguous)
		pm->attr |= VCM_PHYS_CONT;
	vcm_physmem_publish(pm);
	return pm;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_phys_from_sgt);

/**
 * vcm_phys_from_dma() - wrap memory a device knows by DMA address only
 * @avcm: an association of a %VCM_DMA VCM with the device
 * @sgt: a DMA mapping made for that device by the memory's owner, such as
 *	the table dma_buf_map_attachment() returns for an attachment of the
 *	device; its DMA segments must be page-aligned
 *
 * For importers, which may use nothing of someone else's buffer but the
 * DMA addresses of their own device's mapping of it: the pages, if any,
 * are the owner's, and so are the physical addresses behind the DMA
 * addresses.  The physmem records the DMA segments of @sgt and nothing
 * else.  It backs reservations of @avcm's VCM only, where the device
 * uses those addresses as they are; it has no physical chunks, no CPU
 * mapping and no cache maintenance of VCM's: the owner's mapping and its
 * CPU access calls (dma_buf_begin_cpu_access()) do that.
 *
 * A VCM with an IOMMU domain of its own (%VCM_DEVICE) cannot use a
 * foreign buffer: its device no longer translates through the domain the
 * DMA API mapped @sgt into, and no interface of the kernel gives an
 * importer what it would need to map the buffer in another domain.
 *
 * The caller keeps @sgt mapped until it frees the physmem, and owns the
 * physmem as for vcm_phys_alloc().
 *
 * Context: Process context.
 * The physmem is good for the current activation of @avcm only: a device
 * whose driver goes takes its attachments with it, so after
 * vcm_deactivate() the physmem backs no reservation any more.
 *
 * Return: the physmem, ERR_PTR(-EOPNOTSUPP) for a %VCM_DEVICE VCM,
 * ERR_PTR(-EINVAL) for a NULL or ERR_PTR() argument, a VCM of another
 * kind, an inactive association, or a misaligned or empty table,
 * ERR_PTR(-ENOMEM).
 */
struct vcm_physmem *vcm_phys_from_dma(struct vcm_avcm *avcm,
				      struct sg_table *sgt)
{
	struct scatterlist *sg, *o;
	unsigned int i, n = 0, gen;
	struct vcm_physmem *pm;
	size_t len = 0;
	bool active;

	if (IS_ERR_OR_NULL(avcm) || IS_ERR_OR_NULL(sgt) || !sgt->sgl ||
	    !sgt->nents)
		return ERR_PTR(-EINVAL);
	if (avcm->vcm->type == VCM_DEVICE)
		return ERR_PTR(-EOPNOTSUPP);
	if (avcm->vcm->type != VCM_DMA)
		return ERR_PTR(-EINVAL);
	mutex_lock(&avcm->vcm->lock);
	active = avcm->active;
	gen = avcm->vcm->dma_gen;
	mutex_unlock(&avcm->vcm->lock);
	if (!active)
		return ERR_PTR(-EINVAL);
	for_each_sgtable_dma_sg(sgt, sg, i) {
		if (!sg_dma_len(sg) || !PAGE_ALIGNED(sg_dma_address(sg)) ||
		    !PAGE_ALIGNED(sg_dma_len(sg)))
			return ERR_PTR(-EINVAL);
		len += sg_dma_len(sg);
		n++;
	}

	pm = vcm_physmem_new(VCM_MEMTYPE_FOREIGN, len, 0);
	if (!pm)
		return ERR_PTR(-ENOMEM);
	if (vcm_sgt_alloc(pm, n)) {
		mutex_destroy(&pm->lock);
		kfree(pm);
		return ERR_PTR(-ENOMEM);
	}
	/* No index of the chunks: they have no pages (vcm_phys_pfn()). */
	o = pm->sgt.sgl;
	for_each_sgtable_dma_sg(sgt, sg, i) {
		sg_dma_address(o) = sg_dma_address(sg);
		sg_dma_len(o) = sg_dma_len(sg);
		o->length = sg_dma_len(sg);
		o = sg_next(o);
	}
	pm->dev_vcm = avcm->vcm;
	pm->dev_gen = gen;
	vcm_get(pm->dev_vcm);
	vcm_physmem_publish(pm);
	return pm;
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
EXPORT_SYMBOL_IF_KUNIT(vcm_phys_from_range);
