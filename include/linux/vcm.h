/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Virtual Contiguous Memory (VCM) manager
 *
 * A VCM is an address space seen by one or more devices: an IOMMU domain,
 * one device's DMA API address space, the physical address space of a
 * device without an IOMMU (one-to-one), or the kernel's vmalloc space.
 * Processes' address spaces are not VCMs: the mm manages them, and a
 * driver maps a physmem there from its ->fault handler (vcm_phys_pfn()).
 * Reservations are ranges
 * of a VCM; they are backed by physical memory allocations (physmems) that
 * one or many reservations, in one or many VCMs, can share.  See
 * Documentation/mm/vcm.rst.
 *
 * Handles follow the ownership rules of the IOMMU API: whoever creates a
 * VCM, reservation, association, bound or physmem owns it, frees it once
 * and does not use it afterwards, and serialises the free against other
 * uses of the handle.  Constructors, destructors and operations reject
 * NULL and ERR_PTR() handles; getters (vcm_get_*(), vcm_is_active())
 * trust theirs, as kernel getters do.  Beyond that, every handle is
 * trusted to be live (created and not yet freed).  Where one object
 * depends on another (a reservation on its VCM, a backing on its
 * physmem) VCM holds a reference itself, so the owners of the two may
 * let go from different threads without coordinating beyond that.
 */
#ifndef _LINUX_VCM_H
#define _LINUX_VCM_H

#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/types.h>

struct device;
struct scatterlist;
struct sg_table;

struct vcm;
struct vcm_res;
struct vcm_avcm;
struct vcm_bound;
struct vcm_physmem;

/*
 * Reservation attributes, for vcm_reserve(), vcm_reserve_at(),
 * vcm_reserve_from_bound() and vcm_set_res_attr().
 *
 * Bits 0-3 hold the cache policy, bits 10-14 the alignment order.
 */
#define VCM_CACHE_POLICY	GENMASK(3, 0)
/*
 * Of the RFC's policies, VCM_WB_WA and VCM_WC are the ones the kernel can
 * map RAM with; the others are refused with -EINVAL, except VCM_NOTCACHED
 * in an IOMMU or one-to-one VCM, where "not cached" is a mapping the
 * device does not snoop through, the memory type of VCM_WC.  A DMA VCM
 * takes VCM_WB_WA only: the DMA API works on memory the CPU maps
 * cacheable (see the cache policy in docs/vcm.rst).
 */
#define VCM_NOTCACHED		0x0	/* not cached: devices only */
#define VCM_WB_WA		0x1	/* write-back, write-allocate */
#define VCM_WB_NWA		0x2	/* write-back, no write-allocate: refused */
#define VCM_WT			0x3	/* write-through: refused */
#define VCM_WC			0x4	/* normal non-cacheable, write-combined */
#define VCM_SECURE		BIT(4)
#define VCM_SUPERVISOR		BIT(5)
#define VCM_USER		BIT(6)
#define VCM_EXECUTE		BIT(7)
#define VCM_WRITE		BIT(8)
#define VCM_READ		BIT(9)

#define VCM_ALIGN_SHIFT		10
#define VCM_ALIGN_MASK		GENMASK(14, 10)
#define VCM_ALIGN_ATTR(order)	(((order) << VCM_ALIGN_SHIFT) & VCM_ALIGN_MASK)
#define VCM_ALIGN_DEFAULT	0
#define VCM_ALIGN_4K		VCM_ALIGN_ATTR(12)
#define VCM_ALIGN_8K		VCM_ALIGN_ATTR(13)
#define VCM_ALIGN_16K		VCM_ALIGN_ATTR(14)
#define VCM_ALIGN_32K		VCM_ALIGN_ATTR(15)
#define VCM_ALIGN_64K		VCM_ALIGN_ATTR(16)
#define VCM_ALIGN_128K		VCM_ALIGN_ATTR(17)
#define VCM_ALIGN_256K		VCM_ALIGN_ATTR(18)
#define VCM_ALIGN_512K		VCM_ALIGN_ATTR(19)
#define VCM_ALIGN_1M		VCM_ALIGN_ATTR(20)
#define VCM_ALIGN_2M		VCM_ALIGN_ATTR(21)
#define VCM_ALIGN_4M		VCM_ALIGN_ATTR(22)
#define VCM_ALIGN_8M		VCM_ALIGN_ATTR(23)
#define VCM_ALIGN_16M		VCM_ALIGN_ATTR(24)
#define VCM_ALIGN_32M		VCM_ALIGN_ATTR(25)
#define VCM_ALIGN_64M		VCM_ALIGN_ATTR(26)
#define VCM_ALIGN_128M		VCM_ALIGN_ATTR(27)
#define VCM_ALIGN_256M		VCM_ALIGN_ATTR(28)
#define VCM_ALIGN_512M		VCM_ALIGN_ATTR(29)
#define VCM_ALIGN_1G		VCM_ALIGN_ATTR(30)

/*
 * Physical allocation attributes, for vcm_phys_alloc_for(),
 * vcm_phys_alloc() and vcm_phys_from_sgt().  The alignment field
 * (VCM_ALIGN_*) applies to contiguous allocations.
 */
#define VCM_COHERENT		BIT(0)
#define VCM_PHYS_CONT		BIT(1)

/*
 * Association attributes, for vcm_assoc() and vcm_set_assoc_attr().  Only
 * the low translation table is modelled by the IOMMU API; the split and
 * high-base attributes of the original ARM design are refused.
 */
#define VCM_USE_HIGH_BASE	BIT(1)
#define VCM_USE_LOW_BASE	BIT(2)
#define VCM_SPLIT		BIT(3)

/**
 * enum vcm_type - the kind of address space a VCM describes
 * @VCM_DEVICE: an IOMMU domain of the VCM's own; device addresses are
 *	IOVAs.  For a device that needs an address layout of its own; it
 *	cannot map foreign dma-bufs
 * @VCM_DMA: one device's DMA API address space; device addresses are
 *	what the DMA API maps the memory at (IOVAs in the device's DMA
 *	domain, or bus addresses).  For devices that share memory
 * @VCM_EXT_KERNEL: the kernel's vmalloc space; device addresses are
 *	kernel virtual addresses
 * @VCM_ONE_TO_ONE: a device without address translation; device
 *	addresses are physical addresses
 */
enum vcm_type {
	VCM_DEVICE,
	VCM_EXT_KERNEL,
	VCM_ONE_TO_ONE,
	VCM_DMA,
};

/**
 * enum vcm_memtype - the memory target a physmem comes from
 * @VCM_MEMTYPE_INVALID: not a valid memory type
 * @VCM_MEMTYPE_SYSTEM: the page allocator (chunked) or the default CMA
 *	area (with %VCM_PHYS_CONT)
 * @VCM_MEMTYPE_FOREIGN: memory owned by someone else and wrapped with
 *	vcm_phys_from_sgt(), vcm_phys_from_dma() or vcm_phys_from_range();
 *	never allocated by VCM
 */
enum vcm_memtype {
	VCM_MEMTYPE_INVALID,
	VCM_MEMTYPE_SYSTEM,
	VCM_MEMTYPE_FOREIGN,
};

/*
 * struct vcm_constraint.flags: what the memory must be.  The same bits
 * name the constraints vcm_constraint_unmet() finds a physmem breaks.
 */
#define VCM_CONSTRAINT_CONTIGUOUS	BIT(0)	/* one physical range */
#define VCM_CONSTRAINT_LIMIT		BIT(1)	/* below @dma_limit */
#define VCM_CONSTRAINT_GRANULE		BIT(2)	/* chunks of @granule */

/**
 * struct vcm_constraint - what the devices sharing memory need of it
 * @flags: VCM_CONSTRAINT_* bits; %VCM_CONSTRAINT_CONTIGUOUS for a device
 *	that sees physical addresses (no IOMMU translates for it).  Whether
 *	a device snoops the CPU's caches is no constraint: its DMA API
 *	mapping does the maintenance it needs
 * @dma_limit: the highest address the memory may use, for a device that
 *	sees physical addresses: its DMA mask (and the bus's limit);
 *	%PHYS_ADDR_MAX for none.  Memory allocated through @dev meets the
 *	limit of @dev's own masks by the DMA API's rules; other memory, and
 *	a lower limit, are held to it by physical address, which moves
 *	memory a bus's DMA offset would have let a device keep
 * @dev: of the devices that see physical addresses, the one with the
 *	lowest @dma_limit: memory that must be one range, or below a limit
 *	that not all RAM is below, is allocated through its DMA API
 *	(dma_alloc_pages()), from its own CMA area if it has one.  NULL
 *	when no device needs that.  Borrowed: whoever keeps a constraint
 *	past the device's lifetime holds a reference to it
 * @pgsizes: the union of the page sizes of the IOMMUs that translate for
 *	the devices, at or above @granule; 0 when none does
 * @granule: the smallest chunk every such IOMMU maps, at least PAGE_SIZE
 * @max_seg: the longest DMA segment the devices that see physical
 *	addresses take (dma_get_max_seg_size()); a mapping for them is cut
 *	into segments of at most this
 * @seg_boundary: the boundary mask no such segment may cross
 *	(dma_get_seg_boundary())
 * @devices: how many devices were folded in
 *
 * Several devices that see physical addresses share memory allocated
 * through one of them, the one with the lowest limit: the memory is
 * where that device's DMA API puts it, and the others reach it if it is
 * below their limits too.  A device's own reserved region or restricted
 * pool is honoured for that device only.
 *
 * A constraint is derived from a device (vcm_constraint_of_dev()) or from
 * the VCM it maps memory in (vcm_constraint_of_vcm()), combined with
 * others (vcm_constraint_merge()), allocated for (vcm_phys_alloc_for())
 * and checked against an existing physmem (vcm_constraint_unmet()).  One
 * from vcm_constraint_init() allows any memory.
 */
struct vcm_constraint {
	u32 flags;
	phys_addr_t dma_limit;
	unsigned long pgsizes;
	unsigned long granule;
	unsigned int max_seg;
	unsigned long seg_boundary;
	unsigned int devices;
	struct device *dev;
};

/**
 * typedef vcm_handler - a device fault hook
 * @dev: the device whose access faulted
 * @addr: the faulting device address
 * @flags: IOMMU_FAULT_READ or IOMMU_FAULT_WRITE
 * @data: the pointer given to vcm_hook()
 *
 * Return: 0 if the fault was handled, a negative errno (passed back to the
 * IOMMU driver) otherwise.
 */
typedef int (*vcm_handler)(struct device *dev, dma_addr_t addr, int flags,
			   void *data);

/**
 * struct vcm_phys_iter - the state of vcm_for_each_phys_chunk()
 * @physmem: the physmem walked
 * @sg: the entry of the chunk returned last, NULL before the first
 */
struct vcm_phys_iter {
	const struct vcm_physmem *physmem;
	struct scatterlist *sg;
};

#if IS_ENABLED(CONFIG_VCM)

/* Regions */
struct vcm *vcm_create_one_to_one(phys_addr_t start, size_t len);
struct vcm *vcm_create_dma(void);
struct vcm *vcm_kernel(void);
int vcm_free(struct vcm *vcm);
int vcm_get_type(const struct vcm *vcm);

/* Reservations */
struct vcm_res *vcm_reserve(struct vcm *vcm, size_t len, u32 attr);
int vcm_unreserve(struct vcm_res *res);
size_t vcm_get_res_len(const struct vcm_res *res);
u32 vcm_get_res_attr(const struct vcm_res *res);
dma_addr_t vcm_get_dev_addr(const struct vcm_res *res);
void *vcm_get_vaddr(const struct vcm_res *res);
size_t vcm_get_res_num_ptes(const struct vcm_res *res);

/* Associations */
struct vcm_avcm *vcm_assoc(struct vcm *vcm, struct device *dev, u32 attr);
int vcm_deassoc(struct vcm_avcm *avcm);
int vcm_activate(struct vcm_avcm *avcm);
int vcm_deactivate(struct vcm_avcm *avcm);

/* Physical memory */
struct vcm_physmem *vcm_phys_from_dma(struct vcm_avcm *avcm,
				      struct sg_table *sgt);
struct vcm_physmem *vcm_phys_alloc_for(size_t len, u32 attr,
				       const struct vcm_constraint *c);
int vcm_phys_copy(struct vcm_physmem *dst, struct vcm_physmem *src);
int vcm_phys_to_sgt_for_dev(const struct vcm_physmem *physmem,
			    struct device *dev, struct sg_table *sgt);
int vcm_phys_free(struct vcm_physmem *physmem);
size_t vcm_get_physmem_len(const struct vcm_physmem *physmem);
bool __vcm_next_phys_chunk(struct vcm_phys_iter *it, unsigned int *cursor,
			   phys_addr_t *phys, size_t *len);
int vcm_phys_pfn(const struct vcm_physmem *physmem, pgoff_t pgoff,
		 unsigned long *pfn, unsigned long *nr);
int vcm_back(struct vcm_res *res, struct vcm_physmem *physmem);
int vcm_unback(struct vcm_res *res);
struct sg_table *vcm_get_dma_sgt(struct vcm_res *res);
void vcm_sync_for_device(struct vcm_res *res);
void vcm_sync_for_cpu(struct vcm_res *res);

/* Constraints */
void vcm_constraint_init(struct vcm_constraint *c);
int vcm_constraint_of_dev(struct device *dev, struct vcm_constraint *c);
int vcm_constraint_of_vcm(struct vcm *vcm, struct vcm_constraint *c);
int vcm_constraint_merge(struct vcm_constraint *acc,
			 const struct vcm_constraint *c);
int vcm_constraint_check_len(const struct vcm_constraint *c, size_t len);
u32 vcm_constraint_unmet(const struct vcm_constraint *c,
			 const struct vcm_physmem *physmem);
const char *vcm_constraint_name(u32 flag);

#endif /* CONFIG_VCM */

/**
 * vcm_for_each_phys_chunk - iterate over the physical chunks of a physmem
 * @pm: a live physmem, or NULL
 * @cursor: an unsigned int the iterator owns; the number of chunks seen so
 *	far, so after a complete walk the number of chunks
 * @phys: a phys_addr_t set to each chunk's physical address
 * @len: a size_t set to each chunk's length
 *
 * Each step goes on from the previous chunk's scatterlist entry, so a walk
 * is linear in the number of chunks.  A NULL @pm (no memory yet) has no
 * chunks.
 */
#define vcm_for_each_phys_chunk(pm, cursor, phys, len)				\
	for (struct vcm_phys_iter __vcm_it = { .physmem = (pm) };		\
	     __vcm_next_phys_chunk(&__vcm_it, &(cursor), &(phys), &(len));)

#endif /* _LINUX_VCM_H */
