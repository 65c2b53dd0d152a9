// SPDX-License-Identifier: GPL-2.0-only
/*
 * VCM physical memory: allocations in chunk pools, contiguous allocations
 * from CMA, and wrappers of memory owned by others.
 *
 * A chunked allocation is filled largest chunk first, like the dma-buf
 * system heap, but the chunk sizes are the page sizes of the VCMs the
 * memory will be mapped in: a buffer for an IOMMU with 2 MiB blocks is
 * made of 2 MiB chunks where the page allocator has them, so the IOMMU
 * maps it with one entry per chunk.
 */

#include <linux/cma.h>
#include <linux/dma-map-ops.h>
#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/memblock.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "vcm_priv.h"

/* The list of physmems; ranks above every physmem's own lock. */
DEFINE_MUTEX(vcm_phys_lock);
LIST_HEAD(vcm_phys_list);

static unsigned int vcm_phys_next_id;

#define VCM_PHYS_ATTR_ALL	(VCM_COHERENT | VCM_PHYS_CONT | VCM_ALIGN_MASK)
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
				  __GFP_NORETRY) & ~__GFP_RECLAIM)
#define VCM_LOW_ORDER_GFP	(GFP_HIGHUSER | __GFP_ZERO)
/* With a zone modifier, which high memory does not combine with. */
#define VCM_GFP_ZONED(gfp)	((gfp) & ~__GFP_HIGHMEM)

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

/* Write back and invalidate the linear-map alias of a range. */
static void vcm_phys_flush(struct vcm_physmem *physmem, size_t offset,
			   size_t len)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_sg(&physmem->sgt, sg, i) {
		size_t n;

		if (offset >= sg->length) {
			offset -= sg->length;
			continue;
		}
		n = min_t(size_t, sg->length - offset, len);
		arch_dma_prep_coherent(nth_page(sg_page(sg), offset >> PAGE_SHIFT),
				       PAGE_ALIGN(offset_in_page(offset) + n));
		vcm_stat_add(VCM_STAT_CACHE_MAINT, 1);
		len -= n;
		offset = 0;
		if (!len)
			break;
	}
}

/**
 * vcm_phys_clean() - write back and invalidate the linear-map alias
 * @physmem: the physmem
 * @offset: first byte
 * @len: bytes
 *
 * Does nothing for memory mapped cacheable.  For memory mapped
 * non-cacheable it makes what was written through the cacheable linear
 * map visible to the non-cacheable mappings, and drops lines that would
 * otherwise shadow them.
 */
void vcm_phys_clean(struct vcm_physmem *physmem, size_t offset, size_t len)
{
	/* Without pages, the owner's DMA mapping does the maintenance. */
	if (physmem->cclass != VCM_CC_WC || physmem->dev_vcm)
		return;
	vcm_phys_flush(physmem, offset, len);
}

static struct vcm_physmem *vcm_physmem_new(enum vcm_memtype memtype,
					   size_t len, u32 attr)
{
	struct vcm_physmem *pm;

	pm = kzalloc(sizeof(*pm), GFP_KERNEL);
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

static void vcm_physmem_publish(struct vcm_physmem *pm)
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
static int vcm_sgt_alloc(struct vcm_physmem *pm, unsigned int nents)
{
	if (nents != 1)
		return sg_alloc_table(&pm->sgt, nents, GFP_KERNEL);
	sg_init_table(&pm->sg_inline, 1);
	pm->sgt.sgl = &pm->sg_inline;
	pm->sgt.nents = 1;
	pm->sgt.orig_nents = 1;
	return 0;
}

static void vcm_sgt_free(struct vcm_physmem *pm)
{
	if (pm->sgt.sgl != &pm->sg_inline)
		sg_free_table(&pm->sgt);
}

/*
 * Chunks are gathered on a list through page->lru, their order in
 * page->private (the allocator's pages are ours until freed, as in TTM's
 * pool), so no array as long as the buffer's pages is needed to count
 * them before the table is made.
 */
static void vcm_free_chunk_list(struct list_head *list)
{
	struct page *page, *next;

	list_for_each_entry_safe(page, next, list, lru) {
		unsigned int order = page_private(page);

		list_del(&page->lru);
		set_page_private(page, 0);
		__free_pages(page, order);
	}
}

static int vcm_alloc_chunks(struct vcm_physmem *pm, unsigned long pgsizes,
			    gfp_t zone)
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
		page = alloc_pages(zone ? VCM_GFP_ZONED(gfp) | zone : gfp,
				   orders[i]);
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
		unsigned int order = page_private(page);

		list_del(&page->lru);
		set_page_private(page, 0);
		sg_set_page(sg, page, PAGE_SIZE << order, 0);
		sg = sg_next(sg);
	}
	return 0;

err:
	vcm_free_chunk_list(&chunks);
	return ret;
}

static int vcm_sgt_from_range(struct vcm_physmem *pm, struct page *page,
			      size_t len)
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
	return 0;
}

static int vcm_alloc_contiguous(struct vcm_physmem *pm)
{
	struct cma *cma = dev_get_cma_area(NULL);
	unsigned long count = pm->len >> PAGE_SHIFT, i;
	unsigned int align = (pm->attr & VCM_ALIGN_MASK) >> VCM_ALIGN_SHIFT;
	struct page *page;
	int ret;

	if (!cma)
		return -ENOMEM;
	align = align > PAGE_SHIFT ? align - PAGE_SHIFT : 0;
	page = cma_alloc(cma, count, align, true);
	if (!page)
		return -ENOMEM;

	/* Clearing a large area takes long: a killed caller stops it. */
	for (i = 0; i < count; i++) {
		clear_highpage(nth_page(page, i));
		if (i % 256)
			continue;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto err_release;
		}
		cond_resched();
	}
	ret = vcm_sgt_from_range(pm, page, pm->len);
	if (ret)
		goto err_release;
	pm->cma_pages = page;
	pm->contiguous = true;
	return 0;

err_release:
	cma_release(cma, page, count);
	return ret;
}

static struct vcm_physmem *__vcm_phys_alloc(size_t len, u32 attr,
					    unsigned long pgsizes, gfp_t zone)
{
	struct vcm_physmem *pm;
	int ret;

	if (len >> PAGE_SHIFT > totalram_pages())
		return ERR_PTR(-ENOMEM);

	pm = vcm_physmem_new(VCM_MEMTYPE_SYSTEM, len, attr);
	if (!pm)
		return ERR_PTR(-ENOMEM);

	if (attr & VCM_PHYS_CONT)
		ret = vcm_alloc_contiguous(pm);
	else
		ret = vcm_alloc_chunks(pm, pgsizes ?: VCM_CPU_PGSIZES, zone);
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
 * @attr: %VCM_PHYS_CONT for one contiguous range from the default CMA
 *	area (aligned as a VCM_ALIGN_* in @attr asks, up to the CMA
 *	alignment), %VCM_COHERENT for memory only ever mapped non-cacheable
 * @pgsizes: the chunk sizes to use, largest first: typically
 *	vcm_chunk_sizes() of the union of vcm_get_pgsize_bitmap() of the
 *	VCMs the memory is for; 0 for the
 *	sizes the CPU's page tables map with one entry (base pages and PMD
 *	blocks).  Sizes the page allocator cannot provide are ignored and
 *	the base page size is always a fallback.
 *
 * The memory is zeroed.  It is not mapped anywhere until a reservation is
 * backed with it.  The caller owns the physmem: it frees it with
 * vcm_phys_free() and does not use it afterwards.  It may lend it to
 * others to back their reservations (vcm_back()) for as long as it keeps
 * it.
 *
 * gembuf allocates the memory of every object it creates with this.
 *
 * Context: Process context; may sleep and reclaim.
 * Return: the physmem, ERR_PTR(-EINVAL) for an invalid memtype, length or
 * attribute, ERR_PTR(-ENOMEM) if the memory is not there (a request larger
 * than RAM fails at once), ERR_PTR(-EINTR) if a fatal signal arrived.
 */
struct vcm_physmem *vcm_phys_alloc(enum vcm_memtype memtype, size_t len,
				   u32 attr, unsigned long pgsizes)
{
	if (memtype != VCM_MEMTYPE_SYSTEM)
		return ERR_PTR(-EINVAL);
	if (!len || !PAGE_ALIGNED(len) || (attr & ~VCM_PHYS_ATTR_ALL))
		return ERR_PTR(-EINVAL);
	if ((attr & VCM_ALIGN_MASK) && !(attr & VCM_PHYS_CONT))
		return ERR_PTR(-EINVAL);
	return __vcm_phys_alloc(len, attr, pgsizes, 0);
}
EXPORT_SYMBOL_GPL(vcm_phys_alloc);

/*
 * The zone of the page allocator whose pages are below a limit, the way
 * dma-direct picks one; what comes back is checked all the same.
 */
static gfp_t vcm_limit_zone(phys_addr_t limit)
{
	if (limit >= PFN_PHYS(max_pfn) - 1)
		return 0;
	if (IS_ENABLED(CONFIG_ZONE_DMA32) && limit >= DMA_BIT_MASK(32))
		return __GFP_DMA32;
	return IS_ENABLED(CONFIG_ZONE_DMA) ? __GFP_DMA : __GFP_DMA32;
}

/**
 * vcm_phys_alloc_for() - allocate physical memory that meets a constraint
 * @len: length, a non-zero multiple of the constraint's granule
 * @attr: %VCM_COHERENT and, for contiguous memory, a VCM_ALIGN_*
 * @c: what the devices that will map the memory need (see
 *	&struct vcm_constraint)
 *
 * The cheapest memory that fits: chunks sized for the IOMMUs of @c
 * (vcm_chunk_sizes()) when no device needs a physical range, one range
 * from the default CMA area when one does; from the zones below @c's
 * DMA limit only when it has one.  Otherwise as vcm_phys_alloc().
 *
 * gembuf allocates its objects' memory for the devices that use them
 * with this.
 *
 * Context: Process context; may sleep and reclaim.
 * Return: the physmem; ERR_PTR(-EINVAL) for a bad length or attribute,
 * the errors of vcm_constraint_check_len() for memory @c cannot have,
 * ERR_PTR(-ENOMEM) when none that meets @c is free, ERR_PTR(-EINTR) if a
 * fatal signal arrived.
 */
struct vcm_physmem *vcm_phys_alloc_for(size_t len, u32 attr,
				       const struct vcm_constraint *c)
{
	struct vcm_physmem *pm;
	int ret;

	if (!len || !PAGE_ALIGNED(len) || (attr & ~VCM_PHYS_ATTR_ALL) ||
	    (attr & VCM_PHYS_CONT))
		return ERR_PTR(-EINVAL);
	/* An alignment is for one contiguous range. */
	if ((attr & VCM_ALIGN_MASK) && !(c->flags & VCM_CONSTRAINT_CONTIGUOUS))
		return ERR_PTR(-EINVAL);
	ret = vcm_constraint_check_len(c, len);
	if (ret)
		return ERR_PTR(ret);
	if (c->flags & VCM_CONSTRAINT_CONTIGUOUS)
		pm = __vcm_phys_alloc(len, attr | VCM_PHYS_CONT, 0, 0);
	else
		pm = __vcm_phys_alloc(len, attr,
				      vcm_chunk_sizes(c->pgsizes ?: VCM_CPU_PGSIZES),
				      vcm_limit_zone(c->dma_limit));
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
 * vcm_phys_to_sgt() - a physmem's chunks as a table a device's DMA takes
 * @physmem: a live physmem with pages (not a foreign DMA wrapper)
 * @max_seg: the longest segment, at least PAGE_SIZE: the smaller of the
 *	device's dma_get_max_seg_size() and dma_max_mapping_size()
 * @boundary: the boundary mask no segment may cross
 *	(dma_get_seg_boundary()): 2^k - 1, at least PAGE_SIZE - 1
 * @sgt: an unused table, filled in; the caller frees it with
 *	sg_free_table()
 *
 * For an exporter that maps the memory for a device with the DMA API:
 * each chunk is cut into page-aligned segments of at most @max_seg bytes
 * (and of what a scatterlist entry holds), none crossing a multiple of
 * @boundary + 1, in order.
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
EXPORT_SYMBOL_GPL(vcm_phys_to_sgt);

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
 * a reservation or is not VCM's own memory, -EINTR if a fatal signal
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
	if (src->nc_clean)
		vcm_phys_flush(src, 0, src->len);
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

static void vcm_phys_release(struct kref *ref)
{
	struct vcm_physmem *pm = container_of(ref, struct vcm_physmem, ref);

	if (pm->memtype == VCM_MEMTYPE_SYSTEM) {
		if (pm->cma_pages)
			cma_release(dev_get_cma_area(NULL), pm->cma_pages,
				    pm->len >> PAGE_SHIFT);
		else
			vcm_free_chunks(&pm->sgt);
		vcm_stat_add(VCM_STAT_PHYS_BYTES, -(long)pm->len);
	}
	if (!pm->foreign_sgt)
		vcm_sgt_free(pm);
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
 * CMA; foreign memory is only forgotten.
 *
 * The caller serialises vcm_phys_free() against every other use of
 * @physmem, its own and that of anyone it lent @physmem to, and does not
 * use @physmem once this returned 0: freeing twice is a bug, not an error.
 * Backings hold the physmem, so this fails while any remains; the
 * vcm_unback() of the last of them may still be returning on another
 * thread, the memory is freed when it has.
 *
 * gembuf frees the memory of its objects, and the wrappers of its imports,
 * with this.
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

/**
 * vcm_get_physmem_len() - length of a physmem
 * @physmem: a live physmem
 *
 * gembuf checks with this that an import wraps the whole dma-buf.
 *
 * Return: the length, or 0 for a NULL or ERR_PTR() @physmem.
 */
size_t vcm_get_physmem_len(const struct vcm_physmem *physmem)
{
	if (IS_ERR_OR_NULL(physmem))
		return 0;
	return physmem->len;
}
EXPORT_SYMBOL_GPL(vcm_get_physmem_len);

/**
 * vcm_get_memtype_of_physalloc() - where a physmem comes from
 * @physmem: a live physmem
 *
 * The RFC's API; in this tree only the vcm and vcm_edu suites call it.
 *
 * Return: its memtype, %VCM_MEMTYPE_INVALID for a NULL or ERR_PTR()
 * @physmem.
 */
enum vcm_memtype vcm_get_memtype_of_physalloc(const struct vcm_physmem *physmem)
{
	if (IS_ERR_OR_NULL(physmem))
		return VCM_MEMTYPE_INVALID;
	return physmem->memtype;
}
EXPORT_SYMBOL_GPL(vcm_get_memtype_of_physalloc);

/**
 * vcm_get_physmem_sgt() - the chunks of a physmem as a scatterlist
 * @physmem: a live physmem
 *
 * For exporters that map the memory for devices outside VCM with the DMA
 * API.  The table belongs to the physmem and lasts as long as it: do not
 * modify it, and copy it before dma_map_sgtable() (a mapping writes the
 * DMA fields).
 *
 * gembuf maps its dma-bufs with this for importers other than its engine.
 *
 * Return: the table, or ERR_PTR(-EINVAL) for a NULL or ERR_PTR() @physmem
 * or one of vcm_phys_from_dma(), which has no pages.
 */
struct sg_table *vcm_get_physmem_sgt(struct vcm_physmem *physmem)
{
	if (IS_ERR_OR_NULL(physmem) || physmem->dev_vcm)
		return ERR_PTR(-EINVAL);
	return &physmem->sgt;
}
EXPORT_SYMBOL_GPL(vcm_get_physmem_sgt);

/**
 * vcm_get_physmem_from_res() - the physmem backing a reservation
 * @res: a live reservation
 *
 * The physmem belongs to its creator; the backing keeps it from being
 * freed, so the pointer is good until @res is unbacked.
 *
 * The RFC's API; in this tree only the vcm suite calls it.
 *
 * Return: the physmem, ERR_PTR(-EINVAL) for a NULL or ERR_PTR() @res,
 * ERR_PTR(-ENOENT) if it is unbacked.
 */
struct vcm_physmem *vcm_get_physmem_from_res(const struct vcm_res *res)
{
	if (IS_ERR_OR_NULL(res))
		return ERR_PTR(-EINVAL);
	return res->physmem ?: ERR_PTR(-ENOENT);
}
EXPORT_SYMBOL_GPL(vcm_get_physmem_from_res);

/**
 * vcm_get_next_phys_addr() - iterate over the chunks of a physmem
 * @physmem: a live physmem
 * @cursor: iterator state, 0 to start
 * @phys: output, the chunk's physical address
 * @len: output, the chunk's length
 *
 * Each call walks the chunk table from its start to chunk *@cursor, so it
 * costs O(*@cursor) and a walk over all chunks with it is quadratic.  Walk
 * a whole physmem with vcm_for_each_phys_chunk(), which is linear.
 *
 * The RFC's API; in this tree only the vcm suite calls it.
 *
 * Return: 0 with the next chunk, -ENOENT after the last one, -EINVAL for
 * a NULL or ERR_PTR() @physmem or NULL outputs.
 */
int vcm_get_next_phys_addr(const struct vcm_physmem *physmem,
			   unsigned int *cursor, phys_addr_t *phys, size_t *len)
{
	struct scatterlist *sg;
	unsigned int i;

	if (IS_ERR_OR_NULL(physmem) || !cursor || !phys || !len)
		return -EINVAL;
	if (*cursor >= physmem->sgt.orig_nents)
		return -ENOENT;

	for_each_sgtable_sg(&physmem->sgt, sg, i)
		if (i == *cursor)
			break;
	*phys = vcm_chunk_addr(physmem, sg);
	*len = sg->length;
	(*cursor)++;
	return 0;
}
EXPORT_SYMBOL_GPL(vcm_get_next_phys_addr);

/**
 * __vcm_next_phys_chunk() - one step of vcm_for_each_phys_chunk()
 * @it: the walk; @it->sg NULL to start
 * @cursor: chunks returned so far; set to 0 when starting
 * @phys: output, the chunk's physical address
 * @len: output, the chunk's length
 *
 * Internal to vcm_for_each_phys_chunk(): each step goes on from the entry
 * of the previous one, so a walk is linear in the number of chunks.
 *
 * It is exported for the users of the macro: gembuf's info ioctl and the
 * KUnit suites.
 *
 * Return: true with the next chunk; false, with the outputs untouched,
 * after the last chunk or for a NULL or ERR_PTR() physmem.
 */
bool __vcm_next_phys_chunk(struct vcm_phys_iter *it, unsigned int *cursor,
			   phys_addr_t *phys, size_t *len)
{
	const struct vcm_physmem *physmem = it->physmem;
	struct scatterlist *sg;

	if (!it->sg)
		*cursor = 0;
	if (IS_ERR_OR_NULL(physmem) || *cursor >= physmem->sgt.orig_nents)
		return false;

	sg = it->sg ? sg_next(it->sg) : physmem->sgt.sgl;
	if (!sg)
		return false;
	it->sg = sg;
	*phys = vcm_chunk_addr(physmem, sg);
	*len = sg->length;
	(*cursor)++;
	return true;
}
EXPORT_SYMBOL_GPL(__vcm_next_phys_chunk);

static bool vcm_physmem_holds(const struct vcm_physmem *pm, phys_addr_t phys)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_sg(&pm->sgt, sg, i) {
		phys_addr_t addr = vcm_chunk_addr(pm, sg);

		if (phys >= addr && phys - addr < sg->length)
			return true;
	}
	return false;
}

/**
 * vcm_get_phys_num_res() - number of reservations mapping a physical address
 * @phys: the physical address
 *
 * The RFC's API; in this tree only the vcm suite calls it.
 *
 * Context: Process context; takes vcm_phys_lock and physmem locks.
 * Return: the number of backed reservations, in any VCM, whose backing
 * holds @phys.
 */
size_t vcm_get_phys_num_res(phys_addr_t phys)
{
	struct vcm_physmem *pm;
	size_t n = 0;

	mutex_lock(&vcm_phys_lock);
	list_for_each_entry(pm, &vcm_phys_list, node) {
		if (!vcm_physmem_holds(pm, phys))
			continue;
		mutex_lock(&pm->lock);
		n += pm->num_res;
		mutex_unlock(&pm->lock);
	}
	mutex_unlock(&vcm_phys_lock);
	return n;
}
EXPORT_SYMBOL_GPL(vcm_get_phys_num_res);

/**
 * vcm_get_next_phys_res() - iterate over the reservations mapping a
 * physical address
 * @phys: the physical address
 * @res: the previous reservation, live and backed, NULL to start
 * @len: output (may be NULL), the length of the returned reservation
 *
 * The reservations found belong to whoever made them, in any VCM: the
 * caller uses them only as far as their owners let it, and must know
 * @res stays backed (its owner does not unback it) while iterating.
 *
 * The RFC's API; in this tree only the vcm suite calls it.
 *
 * Context: Process context; takes vcm_phys_lock and physmem locks.
 * Return: the next backed reservation whose backing holds @phys, or NULL
 * (also for an ERR_PTR() @res).
 */
struct vcm_res *vcm_get_next_phys_res(phys_addr_t phys, struct vcm_res *res,
				      size_t *len)
{
	struct vcm_res *next = NULL, *r;
	struct vcm_physmem *pm;
	bool seen = !res;

	if (IS_ERR(res))
		return NULL;

	mutex_lock(&vcm_phys_lock);
	list_for_each_entry(pm, &vcm_phys_list, node) {
		if (!vcm_physmem_holds(pm, phys))
			continue;
		mutex_lock(&pm->lock);
		list_for_each_entry(r, &pm->res_list, phys_node) {
			if (seen) {
				next = r;
				break;
			}
			seen = r == res;
		}
		/* Read while the reservation is surely listed. */
		if (next && len)
			*len = next->len;
		mutex_unlock(&pm->lock);
		if (next)
			break;
	}
	mutex_unlock(&vcm_phys_lock);
	return next;
}
EXPORT_SYMBOL_GPL(vcm_get_next_phys_res);
