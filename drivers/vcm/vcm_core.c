// SPDX-License-Identifier: GPL-2.0-only
/*
 * VCM regions: creation, cloning and teardown of device address spaces.
 */

#include <linux/align.h>
#include <linux/dma-mapping.h>
#include <linux/init.h>
#include <linux/iommu.h>
#include <linux/mm.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <kunit/visibility.h>

#include "vcm_priv.h"

/* The list of VCMs; ranks above every VCM's own lock. */
DEFINE_MUTEX(vcm_list_lock);
LIST_HEAD(vcm_list);

atomic_long_t vcm_stats[VCM_STAT_NR];

/* For debugfs; exported only for the KUnit suites, to name a leaked gauge. */
const char *const vcm_stat_names[VCM_STAT_NR] = {
	[VCM_STAT_VCMS] = "vcms",
	[VCM_STAT_RES] = "reservations",
	[VCM_STAT_BACKED] = "backed",
	[VCM_STAT_ASSOCS] = "associations",
	[VCM_STAT_ACTIVE] = "active",
	[VCM_STAT_BOUNDS] = "bounds",
	[VCM_STAT_PHYSMEMS] = "physmems",
	[VCM_STAT_PHYS_BYTES] = "phys_bytes",
	[VCM_STAT_IOMMU_BYTES] = "iommu_bytes",
	[VCM_STAT_IOMMU_PTES] = "iommu_ptes",
	[VCM_STAT_CACHE_MAINT] = "cache_maintenance",
	[VCM_STAT_CONFLICTS] = "cache_conflicts",
};
EXPORT_SYMBOL_IF_KUNIT(vcm_stat_names);

/**
 * vcm_stat_read() - read a global counter
 * @stat: the counter, below %VCM_STAT_NR
 *
 * debugfs reads the counters with this; it is exported only for the KUnit
 * suites, which check that every case puts the gauges back.
 *
 * Return: its value.
 */
long vcm_stat_read(enum vcm_stat stat)
{
	return atomic_long_read(&vcm_stats[stat]);
}
EXPORT_SYMBOL_IF_KUNIT(vcm_stat_read);

static unsigned int vcm_next_id;

static struct vcm *vcm_alloc(enum vcm_type type, dma_addr_t start, size_t len)
{
	struct vcm *vcm;
	int ret;

	vcm = kzalloc(sizeof(*vcm), GFP_KERNEL);
	if (!vcm)
		return ERR_PTR(-ENOMEM);

	ret = vcm_space_init(&vcm->space, start, start + len - 1);
	if (ret) {
		kfree(vcm);
		return ERR_PTR(ret);
	}
	kref_init(&vcm->ref);
	vcm->type = type;
	vcm->start = start;
	vcm->len = len;
	mutex_init(&vcm->lock);
	INIT_LIST_HEAD(&vcm->res_list);
	INIT_LIST_HEAD(&vcm->assoc_list);
	INIT_LIST_HEAD(&vcm->bound_list);

	mutex_lock(&vcm_list_lock);
	vcm->id = vcm_next_id++;
	list_add_tail(&vcm->node, &vcm_list);
	mutex_unlock(&vcm_list_lock);

	vcm_stat_add(VCM_STAT_VCMS, 1);

	return vcm;
}

static int vcm_check_range(u64 start, size_t len)
{
	u64 last;

	if (!len || !PAGE_ALIGNED(start) || !PAGE_ALIGNED(len))
		return -EINVAL;
	/* The allocator indexes addresses with unsigned long. */
	if (check_add_overflow(start, (u64)len - 1, &last) || last > ULONG_MAX)
		return -ERANGE;
	return 0;
}

/**
 * vcm_create() - create a device address space behind an IOMMU
 * @start: first device address the VCM hands out
 * @len: length of the address space
 *
 * The VCM gets an IOMMU domain when the first device is associated with
 * it; until then reservations can be made and backed, and their mappings
 * are written into the domain when it appears.  @start and @len must be
 * multiples of vcm_get_min_page_size().
 *
 * The caller owns the VCM: it frees it with vcm_free() once it has
 * unreserved, deassociated and freed what it made in it, and does not use
 * it afterwards.  Other users of the VCM (callers of vcm_reserve() on it,
 * say) rely on the owner to keep it until they are done.
 *
 * Context: Process context; takes and releases vcm_list_lock.
 * Return: the new VCM, or ERR_PTR(-EINVAL) for a zero or misaligned range,
 * ERR_PTR(-ERANGE) for a range that wraps, ERR_PTR(-ENOMEM).
 */
struct vcm *vcm_create(dma_addr_t start, size_t len)
{
	int ret = vcm_check_range(start, len);

	if (ret)
		return ERR_PTR(ret);
	return vcm_alloc(VCM_DEVICE, start, len);
}
EXPORT_SYMBOL_IF_KUNIT(vcm_create);

/**
 * vcm_create_dma() - create the address space a device has through the
 * DMA API
 *
 * For a device that shares memory with other devices and drivers: it
 * stays on the DMA API, which maps for it in its DMA domain (or directly,
 * with bounce buffers where needed) and does its cache maintenance.  The
 * first device associated with the VCM is its only one.  Reservations
 * get their address when they are backed, from dma_map_sgtable() of the
 * backing's chunks; the owner brackets the device's accesses with
 * vcm_sync_for_device() and vcm_sync_for_cpu().  The caller owns the VCM,
 * as for vcm_create().
 *
 * Context: Process context.
 * Return: the new VCM, or ERR_PTR(-ENOMEM).
 */
struct vcm *vcm_create_dma(void)
{
	/* The DMA API hands the addresses out: the range is not VCM's. */
	return vcm_alloc(VCM_DMA, 0, PAGE_MASK);
}
EXPORT_SYMBOL_GPL(vcm_create_dma);

/**
 * vcm_create_one_to_one() - create the address space of a device without
 * an IOMMU
 * @start: first physical address devices of this VCM can reach
 * @len: length of that physical range
 *
 * Device addresses in a one-to-one VCM are physical addresses.
 * Reservations in it are placed when they are backed, at the physical
 * address of their (contiguous) backing.  The 2010 design recognised such
 * VCMs from the range given to vcm_create(); here the caller says so.
 * The caller owns the VCM, as for vcm_create().
 *
 * Context: Process context.
 * Return: the new VCM or an ERR_PTR() as for vcm_create().
 */
struct vcm *vcm_create_one_to_one(phys_addr_t start, size_t len)
{
	int ret = vcm_check_range(start, len);

	if (ret)
		return ERR_PTR(ret);
	return vcm_alloc(VCM_ONE_TO_ONE, start, len);
}
EXPORT_SYMBOL_GPL(vcm_create_one_to_one);

/* The kernel's vmalloc space; made at boot, never freed. */
static struct vcm *vcm_kernel_vcm __ro_after_init;

/**
 * vcm_kernel() - the kernel's VCM
 *
 * The kernel has one virtual address space, and so one VCM: every
 * kernel mapping made through VCM is a reservation in it, placed by
 * vmalloc when it is backed.  It is VCM's own: vcm_free() refuses it.
 *
 * Context: Any context.
 * Return: the kernel VCM.
 */
struct vcm *vcm_kernel(void)
{
	return vcm_kernel_vcm;
}
EXPORT_SYMBOL_GPL(vcm_kernel);

static void vcm_release(struct kref *ref)
{
	struct vcm *vcm = container_of(ref, struct vcm, ref);

	vcm_iommu_free(vcm);
	vcm_space_destroy(&vcm->space);
	mutex_destroy(&vcm->lock);
	kfree(vcm);
	vcm_stat_add(VCM_STAT_VCMS, -1);
}

/**
 * vcm_put() - drop a reference to a VCM
 * @vcm: the VCM; not locked by the caller
 *
 * The last reference frees the VCM.  It is out of vcm_list by then:
 * vcm_free() takes it out when it drops the creator's reference.
 */
void vcm_put(struct vcm *vcm)
{
	kref_put(&vcm->ref, vcm_release);
}

static void vcm_unlist(struct vcm *vcm)
{
	mutex_lock(&vcm_list_lock);
	list_del(&vcm->node);
	mutex_unlock(&vcm_list_lock);
}

/**
 * vcm_free() - free a VCM
 * @vcm: a live VCM the caller created
 *
 * The caller serialises vcm_free() against every other use of @vcm, its
 * own and that of anyone it lent @vcm to, and does not use @vcm once this
 * returned 0: freeing a VCM twice is a bug, not an error.  Reservations,
 * bounds and associations hold the VCM, so this fails while any remains;
 * the vcm_unreserve(), vcm_free_bound() or vcm_deassoc() of the last of
 * them may still be returning on another thread, the VCM is freed when it
 * has.
 *
 * Context: Process context; takes vcm_list_lock and the VCM's lock.
 * Return: 0, -EINVAL for a NULL or ERR_PTR() @vcm or the kernel VCM,
 * -EBUSY while it has reservations, bounds or associations.
 */
int vcm_free(struct vcm *vcm)
{
	bool busy;

	if (IS_ERR_OR_NULL(vcm) || vcm == vcm_kernel_vcm)
		return -EINVAL;

	mutex_lock(&vcm_list_lock);
	mutex_lock(&vcm->lock);
	busy = vcm->num_res || !list_empty(&vcm->assoc_list) ||
	       !list_empty(&vcm->bound_list);
	if (!busy)
		list_del(&vcm->node);
	mutex_unlock(&vcm->lock);
	mutex_unlock(&vcm_list_lock);
	if (busy)
		return -EBUSY;

	vcm_put(vcm);
	return 0;
}
EXPORT_SYMBOL_GPL(vcm_free);

static int vcm_clone_contents(struct vcm *clone, struct vcm *vcm)
{
	struct vcm_res *r, *nr;
	int ret;

	list_for_each_entry(r, &vcm->res_list, vcm_node) {
		nr = vcm_res_new(clone, r->len, r->attr);
		if (IS_ERR(nr))
			return PTR_ERR(nr);
		nr->align = r->align;
		if (r->placed && vcm->type == VCM_DEVICE) {
			ret = vcm_space_insert(&clone->space, r->dev_addr,
					       r->len, &nr->owner);
			if (ret) {
				vcm_res_destroy(nr);
				return ret;
			}
			nr->dev_addr = r->dev_addr;
			nr->placed = true;
		}
		if (r->physmem) {
			ret = __vcm_back(nr, r->physmem);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static void vcm_clear(struct vcm *vcm)
{
	struct vcm_res *r, *tr;

	list_for_each_entry_safe(r, tr, &vcm->res_list, vcm_node) {
		if (r->physmem)
			__vcm_unback(r);
		vcm_res_destroy(r);
	}
}

/**
 * vcm_clone() - deep-copy a VCM
 * @vcm: a live %VCM_DEVICE or %VCM_ONE_TO_ONE VCM
 *
 * The clone has the same range and reservations (at the same device
 * addresses, with the same attributes and backed by the same physmems) as
 * @vcm at the time of the call, and no associations: it gets its own
 * IOMMU domain when a device is associated with it.  Reservations made
 * from bounds become plain reservations of the clone; bounds themselves
 * are not copied, so the clone's free space is the same but not carved.
 * Later changes to either VCM are not seen by the other.
 *
 * The caller owns the clone and its reservations as if it had made them:
 * it unbacks and unreserves them (vcm_get_next_res() finds them) before
 * vcm_free() of the clone.  The backings of the clone hold their physmems
 * like any other (see vcm_back()).  The caller keeps @vcm live for the
 * call.
 *
 * Context: Process context; takes the VCM's lock and the locks of the
 * physmems backing it.
 * Return: the clone, ERR_PTR(-EINVAL) for a NULL or ERR_PTR() @vcm,
 * ERR_PTR(-EOPNOTSUPP) for a VMM VCM (their addresses belong to the VMM),
 * ERR_PTR(-ENOMEM).
 */
struct vcm *vcm_clone(struct vcm *vcm)
{
	struct vcm *clone;
	int ret;

	if (IS_ERR_OR_NULL(vcm))
		return ERR_PTR(-EINVAL);
	if (vcm->type != VCM_DEVICE && vcm->type != VCM_ONE_TO_ONE)
		return ERR_PTR(-EOPNOTSUPP);

	clone = vcm_alloc(vcm->type, vcm->start, vcm->len);
	if (IS_ERR(clone))
		return clone;

	mutex_lock(&vcm->lock);
	mutex_lock_nested(&clone->lock, SINGLE_DEPTH_NESTING);
	ret = vcm_clone_contents(clone, vcm);
	if (ret)
		vcm_clear(clone);
	mutex_unlock(&clone->lock);
	mutex_unlock(&vcm->lock);

	if (ret) {
		vcm_unlist(clone);
		vcm_put(clone);
		return ERR_PTR(ret);
	}
	return clone;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_clone);

/**
 * vcm_get_start_addr() - first device address of a VCM
 * @vcm: a live VCM
 *
 * Return: the address.
 */
dma_addr_t vcm_get_start_addr(const struct vcm *vcm)
{
	return vcm->start;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_get_start_addr);

/**
 * vcm_get_len() - length of a VCM
 * @vcm: a live VCM
 *
 * Return: the length.
 */
size_t vcm_get_len(const struct vcm *vcm)
{
	return vcm->len;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_get_len);

/**
 * vcm_get_type() - the kind of a VCM
 * @vcm: a live VCM
 *
 * Return: an &enum vcm_type.
 */
int vcm_get_type(const struct vcm *vcm)
{
	return vcm->type;
}
EXPORT_SYMBOL_GPL(vcm_get_type);

/**
 * vcm_get_min_page_size() - the smallest unit VCM maps
 *
 * Return: the CPU page size; every length and address given to VCM is a
 * multiple of it.
 */
size_t vcm_get_min_page_size(void)
{
	return PAGE_SIZE;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_get_min_page_size);

/**
 * vcm_get_pgsize_bitmap() - the page sizes a VCM can map
 * @vcm: a live VCM
 *
 * For an IOMMU VCM with a domain this is the domain's pgsize_bitmap; the
 * CPU kinds map with base pages.  vcm_chunk_sizes() of the union of the
 * bitmaps of the VCMs a buffer will be mapped in gives vcm_phys_alloc()
 * chunks every one of them can map with its largest entries.
 *
 * Context: Process context; takes the VCM's lock.
 * Return: the bitmap, PAGE_SIZE until an IOMMU VCM has a domain.
 */
unsigned long vcm_get_pgsize_bitmap(struct vcm *vcm)
{
	unsigned long pgsizes = PAGE_SIZE;

	mutex_lock(&vcm->lock);
	if (vcm->domain)
		pgsizes = vcm->domain->pgsize_bitmap;
	mutex_unlock(&vcm->lock);

	return pgsizes;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_get_pgsize_bitmap);

/**
 * vcm_chunk_sizes() - the chunk sizes to allocate for given page sizes
 * @pgsizes: the page sizes of the VCMs a buffer will be mapped in (the
 *	union of their vcm_get_pgsize_bitmap(), whose smallest size is then
 *	the granule of them all), 0 if there is none
 *
 * Chunks of the IOMMU's page sizes map with its largest entries.  Below
 * its smallest block (its smallest page size above the granule, the
 * granule being at least the CPU's page) a chunk maps with granule
 * entries whatever its size, so every power of two from the granule up
 * to that block serves as well, and larger chunks cost the page
 * allocator less: those are added.  Without a block, or without an
 * IOMMU, they go up to below the CPU's PMD size.
 *
 * Context: Any context.
 * Return: a bitmap for vcm_phys_alloc()'s @pgsizes, PAGE_SIZE among them.
 */
unsigned long vcm_chunk_sizes(unsigned long pgsizes)
{
	unsigned long gran = pgsizes ? max(BIT(__ffs(pgsizes)), PAGE_SIZE) :
				       PAGE_SIZE;
	unsigned long dev = pgsizes & ~(gran - 1);
	unsigned long blocks = dev & ~(2 * gran - 1);
	unsigned long block = blocks ? BIT(__ffs(blocks)) : PMD_SIZE;

	return PAGE_SIZE | dev | ((block - 1) & ~(gran - 1));
}
EXPORT_SYMBOL_IF_KUNIT(vcm_chunk_sizes);

/*
 * The device VCM writes the CPU's caches back through, for memory it maps
 * non-cacheable (vcm_phys_clean()), and allocates ranges for no device in
 * particular through.  It has no DMA configuration of its own: no IOMMU,
 * no DMA offset, the architecture's default coherency.  Where that is
 * coherent, the DMA API does no maintenance for it, and VCM maps nothing
 * non-cacheable.
 */
struct device *vcm_cache_dev;

static int __init vcm_init(void)
{
	struct platform_device *pdev;
	int ret;

	pdev = platform_device_register_simple("vcm", PLATFORM_DEVID_NONE,
					       NULL, 0);
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret) {
		platform_device_unregister(pdev);
		return ret;
	}
	vcm_cache_dev = &pdev->dev;
	vcm_kernel_vcm = vcm_alloc(VCM_EXT_KERNEL, VMALLOC_START,
				   VMALLOC_END - VMALLOC_START);
	if (IS_ERR(vcm_kernel_vcm)) {
		ret = PTR_ERR(vcm_kernel_vcm);
		vcm_kernel_vcm = NULL;
		vcm_cache_dev = NULL;
		platform_device_unregister(pdev);
		return ret;
	}
	/* The gauge counts the VCMs callers made and must free. */
	vcm_stat_add(VCM_STAT_VCMS, -1);
	vcm_debugfs_init();
	return 0;
}
subsys_initcall(vcm_init);
