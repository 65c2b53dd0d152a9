// SPDX-License-Identifier: GPL-2.0-only
/*
 * The VMM kinds of VCM: the kernel's vmalloc space and user VMAs.
 *
 * The memory type of a CPU mapping follows the reservation's cache
 * policy: the kernel's normal cacheable type for write-back and
 * write-through, normal non-cacheable for write-combined, device memory
 * for non-cached.
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

/**
 * vcm_user_map() - insert the backing of a reservation into its VMA
 * @res: the reservation, its VCM locked, @res->physmem set
 *
 * Every chunk is physically contiguous and goes in with one
 * remap_pfn_range(), from the reservation's page offset on; the VMA
 * becomes a PFN map with the memory type of the cache policy.
 *
 * Return: 0, or the error of remap_pfn_range() with the VMA emptied.
 */
int vcm_user_map(struct vcm_res *res)
{
	struct vm_area_struct *vma = res->vma;
	size_t skip = (size_t)res->pgoff << PAGE_SHIFT;
	struct scatterlist *sg;
	unsigned long addr = vma->vm_start;
	unsigned int i;
	int ret;

	mmap_assert_write_locked(vma->vm_mm);
	vma->vm_page_prot = vcm_pgprot(res->attr,
				       vm_get_page_prot(vma->vm_flags));
	for_each_sgtable_sg(&res->physmem->sgt, sg, i) {
		size_t len;

		/* Chunks before the VMA's page offset are not shown. */
		if (skip >= sg->length) {
			skip -= sg->length;
			continue;
		}
		len = min_t(size_t, sg->length - skip, vma->vm_end - addr);
		ret = remap_pfn_range(vma, addr,
				      page_to_pfn(sg_page(sg)) + (skip >> PAGE_SHIFT),
				      len, vma->vm_page_prot);
		skip = 0;
		if (ret) {
			zap_vma_ptes(vma, vma->vm_start, addr - vma->vm_start);
			return ret;
		}
		addr += len;
		if (addr == vma->vm_end)
			break;
	}
	return 0;
}

/**
 * vcm_user_unmap() - remove the backing from the VMA
 * @res: the reservation, its VCM locked
 *
 * From the VMA's ->close the page tables are already gone and this finds
 * nothing to zap.
 */
void vcm_user_unmap(struct vcm_res *res)
{
	zap_vma_ptes(res->vma, res->vma->vm_start, res->len);
}
