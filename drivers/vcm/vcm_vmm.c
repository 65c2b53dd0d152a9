// SPDX-License-Identifier: GPL-2.0-only
/*
 * The VMM kind of VCM: the kernel's vmalloc space.
 *
 * The memory type of a kernel mapping follows the reservation's cache
 * policy: the kernel's normal cacheable type for write-back, normal
 * non-cacheable for write-combined.
 *
 * Processes' address spaces are no kind of VCM: the mm manages them,
 * and a driver maps a physmem there a page at a time from its ->fault
 * handler, with the PFNs of vcm_phys_pfn().
 */

#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "vcm_priv.h"

static pgprot_t vcm_pgprot(u32 attr, pgprot_t prot)
{
	switch (vcm_cache_class(attr)) {
	case VCM_CC_WC:
		return pgprot_writecombine(prot);
	default:
		return prot;
	}
}

/**
 * vcm_kernel_map() - map a backed reservation in vmalloc space
 * @res: the reservation, its VCM locked, @res->physmem set
 *
 * vmalloc owns the kernel's address space, so the reservation is placed
 * here, where vmap() chooses its address.
 *
 * Return: 0, -ENOMEM.
 */
int vcm_kernel_map(struct vcm_res *res)
{
	struct vcm_physmem *pm = res->physmem;
	unsigned int npages = res->len >> PAGE_SHIFT, i = 0, j;
	pgprot_t prot = (res->attr & VCM_WRITE) ? PAGE_KERNEL : PAGE_KERNEL_RO;
	struct scatterlist *sg;
	struct page **pages;
	unsigned int k;
	void *vaddr;
	int ret;

	pages = kvmalloc_array(npages, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	for_each_sgtable_sg(&pm->sgt, sg, k)
		for (j = 0; j < sg->length >> PAGE_SHIFT; j++)
			pages[i++] = nth_page(sg_page(sg), j);

	vaddr = vmap(pages, npages, VM_MAP, vcm_pgprot(res->attr, prot));
	kvfree(pages);
	if (!vaddr)
		return -ENOMEM;

	ret = vcm_space_insert(&res->vcm->space, (unsigned long)vaddr, res->len,
			       &res->owner);
	if (ret) {
		vunmap(vaddr);
		return ret;
	}
	res->vaddr = vaddr;
	res->dev_addr = (unsigned long)vaddr;
	res->placed = true;
	return 0;
}

/**
 * vcm_kernel_unmap() - undo vcm_kernel_map()
 * @res: the reservation, its VCM locked
 */
void vcm_kernel_unmap(struct vcm_res *res)
{
	vcm_space_remove(&res->vcm->space, res->dev_addr, res->len);
	vunmap(res->vaddr);
	res->vaddr = NULL;
	res->placed = false;
	res->dev_addr = DMA_MAPPING_ERROR;
}
