// SPDX-License-Identifier: GPL-2.0-only
/*
 * VCM physical memory: allocations in chunks and contiguous allocations
 * through a device's DMA API, and how physmems are freed.  Wrappers of memory
 * owned by others are in vcm_phys_wrap.c, queries in vcm_phys_query.c.
 *
 * A chunked allocation is filled largest chunk first, like the dma-buf
 * system heap, but the chunk sizes are the page sizes of the VCMs the
 * memory will be mapped in: a buffer for an IOMMU with 2 MiB blocks is
 * made of 2 MiB chunks where the page allocator has them, so the IOMMU
 * maps it with one entry per chunk.
 *
 * The memory is charged to a memory cgroup: that of the allocating task,
 * or the one a caller that allocates on another's behalf makes active with
 * set_active_memcg().  Chunks are charged by the page allocator
 * (__GFP_ACCOUNT).  The DMA API does not charge what it allocates, from
 * CMA least of all, so a range from it is charged by VCM (vcm_charge()).
 * Neither invokes the cgroup's OOM killer: over its limit, or out of
 * memory, an allocation fails.
 */

#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/memblock.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include <kunit/visibility.h>

#include "vcm_priv.h"

/* The list of physmems; ranks above every physmem's own lock. */
DEFINE_MUTEX(vcm_phys_lock);
LIST_HEAD(vcm_phys_list);

static unsigned int vcm_phys_next_id;

#define VCM_PHYS_ATTR_ALL	(VCM_COHERENT | VCM_PHYS_CONT)
/*
 * Memory for no device in particular is cut for the CPU's own page
 * tables: base pages and the block one PMD entry maps.
 */
#define VCM_CPU_PGSIZES		(PMD_SIZE | PAGE_SIZE)
#define VCM_MAX_CHUNK		(PAGE_SIZE << MAX_PAGE_ORDER)

/*
 * Large chunks are opportunistic: fail fast and quietly, and fall back to
 * the next size, rather than reclaim or compact for them.
 */
#define VCM_HIGH_ORDER_GFP	((GFP_HIGHUSER | __GFP_ZERO | __GFP_NOWARN | \
				  __GFP_NORETRY | __GFP_ACCOUNT) & ~__GFP_RECLAIM)
#define VCM_LOW_ORDER_GFP	(GFP_HIGHUSER | __GFP_ZERO | __GFP_ACCOUNT | \
				 __GFP_RETRY_MAYFAIL)

/**
 * vcm_cache_class() - the memory type a cache policy maps with
 * @attr: reservation attributes
 *
 * Return: the class of a valid policy (vcm_res_check_attr()): normal
 * cacheable for %VCM_WB_WA, normal non-cacheable for %VCM_WC and for a
 * device's %VCM_NOTCACHED.
 */
enum vcm_cache_class vcm_cache_class(u32 attr)
{
	switch (attr & VCM_CACHE_POLICY) {
	case VCM_NOTCACHED:
	case VCM_WC:
		return VCM_CC_WC;
	default:
		return VCM_CC_CACHED;
	}
}

/**
 * vcm_phys_clean() - write back and invalidate the linear-map alias
 * @pm: the physmem, about to be mapped non-cacheable, or copied from
 *	after it was
 *
 * Makes what was written through the cacheable linear map (the zeroing of
 * new memory, a copy) visible to the non-cacheable mappings, and drops
 * lines that would otherwise shadow them.  Memory known by a device's DMA
 * addresses only is its owner's to maintain.
 *
 * Through the DMA API: a range from dma_alloc_pages() by its own DMA
 * address, as the DMA API asks of that memory (a second streaming mapping
 * would overlap it); chunks by a streaming mapping for VCM's own device
 * (vcm_cache_dev) in both directions, which writes the lines back, and
 * its unmapping, which invalidates them.  That holds only where the DMA
 * API does maintenance for the device (dma_need_sync(): it does not
 * snoop) and maps the memory itself, not a bounce buffer
 * (dma_max_mapping_size() has no swiotlb limit).
 *
 * Return: 0, or -EOPNOTSUPP where the DMA API does no maintenance that
 * reaches the memory: it cannot be mapped non-cacheable then; -ENOMEM.
 */
int vcm_phys_clean(struct vcm_physmem *pm)
{
	struct device *dev = vcm_cache_dev;
	struct scatterlist *sg;
	unsigned int i;
	dma_addr_t dma;
	bool synced;

	if (pm->dev_vcm)
		return 0;
	if (pm->dma_dev) {
		if (!dma_need_sync(pm->dma_dev, pm->dma_handle))
			return -EOPNOTSUPP;
		dma_sync_single_for_device(pm->dma_dev, pm->dma_handle, pm->len,
					   DMA_BIDIRECTIONAL);
		dma_sync_single_for_cpu(pm->dma_dev, pm->dma_handle, pm->len,
					DMA_BIDIRECTIONAL);
		vcm_stat_add(VCM_STAT_CACHE_MAINT, 1);
		return 0;
	}
	if (!dev || dma_max_mapping_size(dev) != SIZE_MAX)
		return -EOPNOTSUPP;
	for_each_sgtable_sg(&pm->sgt, sg, i) {
		dma = dma_map_page(dev, sg_page(sg), sg->offset, sg->length,
				   DMA_BIDIRECTIONAL);
		if (dma_mapping_error(dev, dma))
			return -ENOMEM;
		synced = dma_need_sync(dev, dma);
		dma_unmap_page(dev, dma, sg->length, DMA_BIDIRECTIONAL);
		if (!synced)
			return -EOPNOTSUPP;
		vcm_stat_add(VCM_STAT_CACHE_MAINT, 1);
	}
	return 0;
}

struct vcm_physmem *vcm_physmem_new(enum vcm_memtype memtype, size_t len,
				    u32 attr)
{
	struct vcm_physmem *pm;

	pm = kzalloc(sizeof(*pm), GFP_KERNEL_ACCOUNT);
	if (!pm)
		return NULL;
	kref_init(&pm->ref);
	pm->memtype = memtype;
	pm->len = len;
	pm->attr = attr;
	mutex_init(&pm->lock);
	INIT_LIST_HEAD(&pm->res_list);
	return pm;
}

void vcm_physmem_publish(struct vcm_physmem *pm)
{
	mutex_lock(&vcm_phys_lock);
	pm->id = vcm_phys_next_id++;
	list_add_tail(&pm->node, &vcm_phys_list);
	mutex_unlock(&vcm_phys_lock);
	vcm_stat_add(VCM_STAT_PHYSMEMS, 1);
}

static void vcm_free_chunks(struct sg_table *sgt)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_sg(sgt, sg, i)
		__free_pages(sg_page(sg), get_order(sg->length));
}

/*
 * The orders worth allocating: the page sizes asked for that the page
 * allocator can provide, largest first, always ending with order 0.
 */
static unsigned int vcm_chunk_orders(unsigned long pgsizes,
				     unsigned int orders[BITS_PER_LONG])
{
	unsigned int n = 0;
	int bit;

	pgsizes &= GENMASK(__fls(VCM_MAX_CHUNK), PAGE_SHIFT);
	pgsizes |= PAGE_SIZE;
	for (bit = __fls(pgsizes); bit >= PAGE_SHIFT; bit--)
		if (pgsizes & BIT(bit))
			orders[n++] = bit - PAGE_SHIFT;
	return n;
}

/*
 * A physmem's table of chunks.  The common one-chunk table (a small
 * buffer, one contiguous range) is kept in the physmem itself, as
 * sg_alloc_table_chained() keeps the first chunk of an I/O's table; that
 * helper's pools allocate with GFP_ATOMIC, which memory allocated in
 * process context has no reason to draw on.
 */
int vcm_sgt_alloc(struct vcm_physmem *pm, unsigned int nents)
{
	if (nents != 1)
		return sg_alloc_table(&pm->sgt, nents, GFP_KERNEL_ACCOUNT);
	sg_init_table(&pm->sg_inline, 1);
	pm->sgt.sgl = &pm->sg_inline;
	pm->sgt.nents = 1;
	pm->sgt.orig_nents = 1;
	return 0;
}

void vcm_sgt_free(struct vcm_physmem *pm)
{
	if (pm->sgt.sgl != &pm->sg_inline)
		sg_free_table(&pm->sgt);
}

/*
 * The index vcm_phys_pfn() searches: where each chunk starts, as a page
 * offset in the physmem and a PFN, in the table's order.  A scatterlist
 * cannot be indexed itself: past SG_MAX_SINGLE_ALLOC entries it is
 * chained, and finding an entry is a walk.  Offsets are pgoff_t, as a
 * fault's is: u32 ones would save nothing beside an unsigned long PFN,
 * and would need a limit on the length of a physmem.  Two words a chunk,
 * at most half of what the table's entry takes; kvmalloc()ed, as a
 * buffer of many small chunks needs more than a page of index.
 *
 * Called once the table of a physmem of pages is filled in; the table
 * does not change while the physmem lives (vcm_phys_copy() copies the
 * pages, not the table), so neither does the index.  One chunk needs
 * none.  Charged to the memory cgroup as the table is.
 */
int vcm_sgt_index(struct vcm_physmem *pm)
{
	struct vcm_chunk_pos *pos;
	struct scatterlist *sg;
	pgoff_t pgoff = 0;
	unsigned int i;

	if (pm->sgt.orig_nents < 2)
		return 0;
	pos = kvmalloc_array(pm->sgt.orig_nents, sizeof(*pos),
			     GFP_KERNEL_ACCOUNT);
	if (!pos)
		return -ENOMEM;
	for_each_sgtable_sg(&pm->sgt, sg, i) {
		pos[i].pgoff = pgoff;
		pos[i].pfn = PHYS_PFN(sg_phys(sg));
		pgoff += sg->length >> PAGE_SHIFT;
	}
	pm->chunk_pos = pos;
	return 0;
}

/*
 * Chunks are gathered on a list through page->lru, their order in
 * page->private (the allocator's pages are ours until freed, as in TTM's
 * pool), so no array as long as the buffer's pages is needed to count
 * them before the table is made.
 */
static unsigned int vcm_chunk_take(struct page *page)
{
	unsigned int order = page_private(page);

	list_del(&page->lru);
	set_page_private(page, 0);
	return order;
}

static void vcm_free_chunk_list(struct list_head *list)
{
	struct page *page, *next;

	list_for_each_entry_safe(page, next, list, lru)
		__free_pages(page, vcm_chunk_take(page));
}

static int vcm_alloc_chunks(struct vcm_physmem *pm, unsigned long pgsizes)
{
	unsigned int orders[BITS_PER_LONG], norders, i = 0, n = 0;
	struct page *page, *next;
	struct scatterlist *sg;
	size_t left = pm->len;
	LIST_HEAD(chunks);
	int ret = -ENOMEM;
	gfp_t gfp;

	norders = vcm_chunk_orders(pgsizes, orders);
	while (left) {
		size_t size = PAGE_SIZE << orders[i];

		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto err;
		}
		if (size > left) {
			i++;
			continue;
		}
		gfp = orders[i] ? VCM_HIGH_ORDER_GFP : VCM_LOW_ORDER_GFP;
		page = alloc_pages(gfp, orders[i]);
		if (!page) {
			if (i == norders - 1)
				goto err;
			i++;
			continue;
		}
		set_page_private(page, orders[i]);
		list_add_tail(&page->lru, &chunks);
		n++;
		left -= size;
	}

	ret = vcm_sgt_alloc(pm, n);
	if (ret)
		goto err;
	sg = pm->sgt.sgl;
	list_for_each_entry_safe(page, next, &chunks, lru) {
		sg_set_page(sg, page, PAGE_SIZE << vcm_chunk_take(page), 0);
		sg = sg_next(sg);
	}
	ret = vcm_sgt_index(pm);
	if (ret) {
		vcm_free_chunks(&pm->sgt);
		vcm_sgt_free(pm);
	}
	return ret;

err:
	vcm_free_chunk_list(&chunks);
	return ret;
}

int vcm_sgt_from_range(struct vcm_physmem *pm, struct page *page, size_t len)
{
	struct scatterlist *sg;
	unsigned int i;
	int ret;

	ret = vcm_sgt_alloc(pm, DIV_ROUND_UP(len, VCM_CONT_SEG));
	if (ret)
		return ret;
	for_each_sgtable_sg(&pm->sgt, sg, i) {
		size_t n = min_t(size_t, len, VCM_CONT_SEG);

		sg_set_page(sg, page, n, 0);
		page = nth_page(page, n >> PAGE_SHIFT);
		len -= n;
	}
	ret = vcm_sgt_index(pm);
	if (ret)
		vcm_sgt_free(pm);
	return ret;
}

/*
 * A range from the DMA API is charged as a whole to the memory cgroup that
 * pays for this allocation (get_obj_cgroup_from_current() honours
 * set_active_memcg()), before it is allocated, so that a cgroup at its
 * limit does not make CMA migrate pages for nothing; the charge stays with
 * the physmem until the range goes back.  Over the limit this fails rather
 * than invoke the cgroup's OOM killer.
 */
#ifdef CONFIG_MEMCG
static int vcm_charge(struct vcm_physmem *pm)
{
	struct obj_cgroup *objcg = get_obj_cgroup_from_current();
	int ret;

	if (!objcg)
		return 0;
	ret = obj_cgroup_charge(objcg, GFP_KERNEL | __GFP_RETRY_MAYFAIL, pm->len);
	if (ret) {
		obj_cgroup_put(objcg);
		return ret;
	}
	pm->objcg = objcg;
	return 0;
}

static void vcm_uncharge(struct vcm_physmem *pm)
{
	if (!pm->objcg)
		return;
	obj_cgroup_uncharge(pm->objcg, pm->len);
	obj_cgroup_put(pm->objcg);
	pm->objcg = NULL;
}
#else
static int vcm_charge(struct vcm_physmem *pm)
{
	return 0;
}

static void vcm_uncharge(struct vcm_physmem *pm)
{
}
#endif

/*
 * One range from where the DMA API gives @dev memory: its own CMA area
 * (memory-region) if it has one, the default CMA area, pages below its
 * DMA limit.  A per-device coherent pool is dma_alloc_attrs()'s only, and
 * not used.  The allocation's DMA address is only kept to free it: the
 * devices that use the memory map it with the DMA API (or their IOMMU
 * VCM) as they map any memory.
 */
static int vcm_alloc_dma(struct vcm_physmem *pm, struct device *dev)
{
	unsigned long count = pm->len >> PAGE_SHIFT, i;
	struct page *page;
	int ret;

	ret = vcm_charge(pm);
	if (ret)
		return ret;
	page = dma_alloc_pages(dev, pm->len, &pm->dma_handle,
			       DMA_BIDIRECTIONAL, GFP_KERNEL | __GFP_NOWARN);
	if (!page) {
		vcm_uncharge(pm);
		return -ENOMEM;
	}

	/*
	 * Not every way the DMA API allocates is documented to zero the
	 * memory.  Clearing a large area takes long: a killed caller stops.
	 */
	for (i = 0; i < count; i++) {
		clear_highpage(nth_page(page, i));
		if (i % 256)
			continue;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto err_free;
		}
		cond_resched();
	}
	ret = vcm_sgt_from_range(pm, page, pm->len);
	if (ret)
		goto err_free;
	pm->dma_dev = get_device(dev);
	pm->dma_pages = page;
	pm->contiguous = true;
	return 0;

err_free:
	dma_free_pages(dev, pm->len, page, pm->dma_handle, DMA_BIDIRECTIONAL);
	vcm_uncharge(pm);
	return ret;
}

static struct vcm_physmem *__vcm_phys_alloc(size_t len, u32 attr,
					    unsigned long pgsizes,
					    struct device *dev)
{
	struct vcm_physmem *pm;
	int ret;

	if (len >> PAGE_SHIFT > totalram_pages())
		return ERR_PTR(-ENOMEM);

	pm = vcm_physmem_new(VCM_MEMTYPE_SYSTEM, len, attr);
	if (!pm)
		return ERR_PTR(-ENOMEM);

	if (dev)
		ret = vcm_alloc_dma(pm, dev);
	else
		ret = vcm_alloc_chunks(pm, pgsizes ?: VCM_CPU_PGSIZES);
	if (ret) {
		kfree(pm);
		return ERR_PTR(ret);
	}
	if (!pm->contiguous && pm->sgt.orig_nents == 1)
		pm->contiguous = true;

	vcm_physmem_publish(pm);
	vcm_stat_add(VCM_STAT_PHYS_BYTES, len);
	return pm;
}

/**
 * vcm_phys_alloc() - allocate physical memory
 * @memtype: %VCM_MEMTYPE_SYSTEM
 * @len: length, a non-zero multiple of vcm_get_min_page_size()
 * @attr: %VCM_PHYS_CONT for one contiguous range, from where the DMA API
 *	gives memory to a device of no DMA configuration of its own (the
 *	default CMA area); %VCM_COHERENT for memory only ever mapped
 *	non-cacheable
 * @pgsizes: the chunk sizes to use, largest first: typically
 *	vcm_chunk_sizes() of the union of vcm_get_pgsize_bitmap() of the
 *	VCMs the memory is for; 0 for the
 *	sizes the CPU's page tables map with one entry (base pages and PMD
 *	blocks).  Sizes the page allocator cannot provide are ignored and
 *	the base page size is always a fallback.
 *
 * The memory is zeroed and charged to the caller's memory cgroup (the one
 * made active with set_active_memcg() if any).  It is not mapped anywhere
 * until a reservation is backed with it.  The caller owns the physmem: it frees it with
 * vcm_phys_free() and does not use it afterwards.  It may lend it to
 * others to back their reservations (vcm_back()) for as long as it keeps
 * it.  Memory for particular devices comes from vcm_phys_alloc_for().
 *
 * Context: Process context; may sleep and reclaim.
 * Return: the physmem, ERR_PTR(-EINVAL) for an invalid memtype, length or
 * attribute, ERR_PTR(-ENOMEM) if the memory is not there or the memory
 * cgroup is at its limit (a request larger than RAM fails at once),
 * ERR_PTR(-EINTR) if a fatal signal arrived.
 */
struct vcm_physmem *vcm_phys_alloc(enum vcm_memtype memtype, size_t len,
				   u32 attr, unsigned long pgsizes)
{
	if (memtype != VCM_MEMTYPE_SYSTEM)
		return ERR_PTR(-EINVAL);
	if (!len || !PAGE_ALIGNED(len) || (attr & ~VCM_PHYS_ATTR_ALL))
		return ERR_PTR(-EINVAL);
	return __vcm_phys_alloc(len, attr, pgsizes,
				attr & VCM_PHYS_CONT ? vcm_cache_dev : NULL);
}
EXPORT_SYMBOL_IF_KUNIT(vcm_phys_alloc);

/**
 * vcm_phys_alloc_for() - allocate physical memory that meets a constraint
 * @len: length, a non-zero multiple of the constraint's granule
 * @attr: 0, or %VCM_COHERENT
 * @c: what the devices that will map the memory need (see
 *	&struct vcm_constraint)
 *
 * The cheapest memory that fits.  Chunks sized for the IOMMUs of @c
 * (vcm_chunk_sizes()) when no device needs a physical range or memory
 * below a limit; otherwise one range from where the DMA API gives memory
 * to @c's device (dma_alloc_pages()), which honours that device's own
 * CMA area and limits (see vcm_constraint_alloc_dev()).  Either is
 * charged as vcm_phys_alloc() charges.  Otherwise as vcm_phys_alloc().
 *
 * Context: Process context; may sleep and reclaim.
 * Return: the physmem; ERR_PTR(-EINVAL) for a bad length or attribute;
 * the errors of vcm_constraint_check_len() for memory @c cannot have;
 * ERR_PTR(-ENOMEM) when none that meets @c is free or the memory cgroup is
 * at its limit, ERR_PTR(-EINTR) if
 * a fatal signal arrived.
 */
struct vcm_physmem *vcm_phys_alloc_for(size_t len, u32 attr,
				       const struct vcm_constraint *c)
{
	struct device *dev = vcm_constraint_alloc_dev(c);
	struct vcm_physmem *pm;
	int ret;

	if (!len || !PAGE_ALIGNED(len) || (attr & ~VCM_COHERENT))
		return ERR_PTR(-EINVAL);
	ret = vcm_constraint_check_len(c, len);
	if (ret)
		return ERR_PTR(ret);
	pm = __vcm_phys_alloc(len, attr, dev ? 0 :
			      vcm_chunk_sizes(c->pgsizes ?: VCM_CPU_PGSIZES),
			      dev);
	if (IS_ERR(pm))
		return pm;
	if (vcm_constraint_unmet(c, pm)) {
		vcm_phys_free(pm);
		return ERR_PTR(-ENOMEM);
	}
	return pm;
}
EXPORT_SYMBOL_GPL(vcm_phys_alloc_for);

/**
 * vcm_phys_to_sgt() - a physmem's chunks cut into segments
 * @physmem: a live physmem with pages (not a foreign DMA wrapper)
 * @max_seg: the longest segment, at least PAGE_SIZE
 * @boundary: the boundary mask no segment may cross: 2^k - 1, at least
 *	PAGE_SIZE - 1
 * @sgt: an unused table, filled in; the caller frees it with
 *	sg_free_table()
 *
 * Each chunk is cut into page-aligned segments of at most @max_seg bytes
 * (and of what a scatterlist entry holds), none crossing a multiple of
 * @boundary + 1, in order.  vcm_phys_to_sgt_for_dev() with a device's
 * limits; KUnit with its own.
 *
 * Context: Process context; may sleep.
 * Return: 0, -EINVAL for a physmem without pages or limits below a page,
 * -ENOMEM.
 */
int vcm_phys_to_sgt(const struct vcm_physmem *physmem, size_t max_seg,
		    unsigned long boundary, struct sg_table *sgt)
{
	struct scatterlist *d = NULL;
	unsigned int cursor, nents = 0;
	size_t len, n, room;
	phys_addr_t phys, p;
	int pass, ret;

	if (IS_ERR_OR_NULL(physmem) || physmem->dev_vcm ||
	    max_seg < PAGE_SIZE || boundary < PAGE_SIZE - 1)
		return -EINVAL;
	max_seg = round_down(min_t(size_t, max_seg, UINT_MAX), PAGE_SIZE);

	/* Count the segments, then fill them in. */
	for (pass = 0; pass < 2; pass++) {
		vcm_for_each_phys_chunk(physmem, cursor, phys, len) {
			for (p = phys; p < phys + len; p += n) {
				/* Bytes left below the next boundary, less one. */
				room = boundary - (p & boundary);
				n = min3(phys + len - p, max_seg, room + 1 ?: max_seg);
				if (!pass) {
					nents++;
					continue;
				}
				sg_set_page(d, pfn_to_page(PHYS_PFN(p)), n, 0);
				d = sg_next(d);
			}
		}
		if (pass)
			break;
		ret = sg_alloc_table(sgt, nents, GFP_KERNEL);
		if (ret)
			return ret;
		d = sgt->sgl;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_phys_to_sgt);

/**
 * vcm_phys_to_sgt_for_dev() - a physmem's chunks as a table a device's DMA
 *	API mapping takes
 * @physmem: a live physmem with pages (not a foreign DMA wrapper)
 * @dev: the device the table is to be mapped for, with dma_map_sgtable()
 * @sgt: an unused table, filled in; the caller frees it with
 *	sg_free_table()
 *
 * For VCM's own DMA VCMs and for an exporter that maps the memory for an
 * importer's device: each chunk is cut into page-aligned segments no
 * longer than the device's DMA parameters allow (dma_get_max_seg_size())
 * and its DMA mapping can take at once (dma_max_mapping_size(), a bounce
 * buffer's slots say), none crossing its segment boundary
 * (dma_get_seg_boundary()).
 *
 * Context: Process context; may sleep.
 * Return: 0, -EINVAL for a physmem without pages or a device whose
 * limits are below a page, -ENOMEM.
 */
int vcm_phys_to_sgt_for_dev(const struct vcm_physmem *physmem,
			    struct device *dev, struct sg_table *sgt)
{
	size_t max_seg = min_t(size_t, dma_get_max_seg_size(dev),
			       dma_max_mapping_size(dev));

	return vcm_phys_to_sgt(physmem, max_seg, dma_get_seg_boundary(dev),
			       sgt);
}
EXPORT_SYMBOL_GPL(vcm_phys_to_sgt_for_dev);

/* Whether a physmem has pages of its own and backs no reservation. */
static bool vcm_phys_idle(struct vcm_physmem *pm)
{
	bool idle;

	if (pm->memtype != VCM_MEMTYPE_SYSTEM)
		return false;
	mutex_lock(&pm->lock);
	idle = !pm->num_res;
	mutex_unlock(&pm->lock);
	return idle;
}

/**
 * vcm_phys_copy() - copy one physmem's contents into another
 * @dst: a live physmem from vcm_phys_alloc() or vcm_phys_alloc_for()
 * @src: a live physmem of the same kind and length
 *
 * For moving a buffer to memory that fits a new device, before either is
 * mapped: neither may back a reservation while it is copied, and the
 * caller keeps them from being backed until this returns.  The copy goes
 * through the kernel's linear map; what non-cacheable mappings of @src
 * wrote is read after dropping the lines its alias may hold, and @dst is
 * cleaned for them when it is first backed non-cacheable.
 *
 * Context: Process context; may sleep.
 * Return: 0, -EINVAL for lengths that differ or a physmem that is backing
 * a reservation or is not VCM's own memory, the error of vcm_phys_clean()
 * if the lines of @src's alias cannot be dropped, -EINTR if a fatal signal
 * arrived (@dst then holds part of @src).
 */
int vcm_phys_copy(struct vcm_physmem *dst, struct vcm_physmem *src)
{
	struct sg_page_iter d, s;
	unsigned long n = 0;

	if (IS_ERR_OR_NULL(dst) || IS_ERR_OR_NULL(src) || dst == src ||
	    dst->len != src->len || !vcm_phys_idle(dst) || !vcm_phys_idle(src))
		return -EINVAL;

	/* Last mapped non-cacheable: no line of the alias may be read. */
	if (src->nc_clean) {
		int ret = vcm_phys_clean(src);

		if (ret)
			return ret;
	}
	__sg_page_iter_start(&d, dst->sgt.sgl, dst->sgt.orig_nents, 0);
	__sg_page_iter_start(&s, src->sgt.sgl, src->sgt.orig_nents, 0);
	while (__sg_page_iter_next(&d) && __sg_page_iter_next(&s)) {
		copy_highpage(sg_page_iter_page(&d), sg_page_iter_page(&s));
		if (++n % 256)
			continue;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	dst->nc_clean = false;
	return 0;
}
EXPORT_SYMBOL_GPL(vcm_phys_copy);

static void vcm_phys_release(struct kref *ref)
{
	struct vcm_physmem *pm = container_of(ref, struct vcm_physmem, ref);

	if (pm->memtype == VCM_MEMTYPE_SYSTEM) {
		if (pm->dma_dev) {
			dma_free_pages(pm->dma_dev, pm->len, pm->dma_pages,
				       pm->dma_handle, DMA_BIDIRECTIONAL);
			vcm_uncharge(pm);
			put_device(pm->dma_dev);
		} else {
			vcm_free_chunks(&pm->sgt);
		}
		vcm_stat_add(VCM_STAT_PHYS_BYTES, -(long)pm->len);
	}
	if (!pm->foreign_sgt)
		vcm_sgt_free(pm);
	kvfree(pm->chunk_pos);
	if (pm->dev_vcm)
		vcm_put(pm->dev_vcm);
	mutex_destroy(&pm->lock);
	kfree(pm);
	vcm_stat_add(VCM_STAT_PHYSMEMS, -1);
}

/**
 * vcm_phys_put() - drop a reference to a physmem
 * @physmem: the physmem; its lock is not held by the caller
 *
 * The last reference frees the memory.  The physmem is out of
 * vcm_phys_list by then: vcm_phys_free() takes it out when it drops the
 * creator's reference.
 */
void vcm_phys_put(struct vcm_physmem *physmem)
{
	kref_put(&physmem->ref, vcm_phys_release);
}

/**
 * vcm_phys_free() - free a physical allocation
 * @physmem: a live physmem the caller created
 *
 * Memory allocated by vcm_phys_alloc() goes back to the page allocator or
 * to the DMA API it came from; foreign memory is only forgotten.
 *
 * The caller serialises vcm_phys_free() against every other use of
 * @physmem, its own and that of anyone it lent @physmem to, and does not
 * use @physmem once this returned 0: freeing twice is a bug, not an error.
 * Backings hold the physmem, so this fails while any remains; the
 * vcm_unback() of the last of them may still be returning on another
 * thread, the memory is freed when it has.
 *
 * Context: Process context; takes vcm_phys_lock and the physmem's lock.
 * Return: 0, -EINVAL for a NULL or ERR_PTR() @physmem, -EBUSY while it
 * backs a reservation.
 */
int vcm_phys_free(struct vcm_physmem *physmem)
{
	struct vcm_physmem *pm = physmem;
	bool busy;

	if (IS_ERR_OR_NULL(pm))
		return -EINVAL;

	mutex_lock(&vcm_phys_lock);
	mutex_lock(&pm->lock);
	busy = pm->num_res;
	if (!busy)
		list_del(&pm->node);
	mutex_unlock(&pm->lock);
	mutex_unlock(&vcm_phys_lock);
	if (busy)
		return -EBUSY;

	vcm_phys_put(pm);
	return 0;
}
EXPORT_SYMBOL_GPL(vcm_phys_free);
