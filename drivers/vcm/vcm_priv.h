/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * VCM internals shared by the files of drivers/vcm.
 *
 * Locking, outermost first:
 *
 *   vcm_list_lock   the list of VCMs (and the association scan it allows)
 *   vcm->lock       a VCM, its reservations, bounds and associations
 *   vcm_phys_lock   the list of physmems
 *   physmem->lock   a physmem's list of backed reservations and its
 *                   cache class
 *
 * Lifetimes: every handle belongs to the caller that created it, as in
 * the IOMMU API; the API does not validate handles beyond NULL and
 * ERR_PTR(), and getters (vcm_get_*(), vcm_is_active()) trust their
 * handle.  Objects other objects depend on are reference counted, so
 * that whichever owner lets go last frees them:
 *
 *   struct vcm          one reference for its creator (dropped by
 *                       vcm_free()) and one for each of its reservations,
 *                       bounds and associations
 *   struct vcm_physmem  one reference for its creator (dropped by
 *                       vcm_phys_free()) and one for each reservation it
 *                       backs
 *
 * A reference held for a child is dropped only after the parent's lock
 * is released, as mutex_unlock() may touch the mutex after another task
 * has taken it: the task that frees a VCM or physmem after seeing it idle
 * cannot free it under the feet of the task that made it idle.
 */
#ifndef _VCM_PRIV_H
#define _VCM_PRIV_H

#include <linux/dma-direction.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/maple_tree.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/vcm.h>

/* A scatterlist entry holds at most 4 GiB; contiguous memory is cut here. */
#define VCM_CONT_SEG	SZ_1G

struct iommu_domain;
struct obj_cgroup;

/**
 * enum vcm_space_owner_kind - what a range of a &struct vcm_space is
 * @VCM_SPACE_RES: a reservation
 * @VCM_SPACE_BOUND: a bound, whose own space holds its reservations
 */
enum vcm_space_owner_kind {
	VCM_SPACE_RES,
	VCM_SPACE_BOUND,
};

/**
 * struct vcm_space_owner - what a &struct vcm_space stores with a range
 * @kind: the object embedding it
 *
 * Embedded in reservations and bounds; vcm_res_lookup() tells them apart.
 */
struct vcm_space_owner {
	enum vcm_space_owner_kind kind;
};

/**
 * struct vcm_space - a range of addresses handed out in aligned pieces
 * @mt: the allocated ranges, each storing its owner
 * @first: first address of the space
 * @last: last address of the space (inclusive)
 * @used: bytes handed out
 *
 * Callers serialise modifications with the lock of the owning VCM.
 */
struct vcm_space {
	struct maple_tree mt;
	unsigned long first;
	unsigned long last;
	size_t used;
};

/**
 * struct vcm - a device address space
 * @ref: references: the creator's, and one per reservation, bound and
 *	association (see the top of this file)
 * @type: the kind of address space
 * @id: number shown in debugfs
 * @start: first device address
 * @len: length of the address space
 * @lock: serialises changes to the VCM; protects the members below
 * @space: allocator of the address space
 * @res_list: reservations, in creation order
 * @num_res: number of reservations
 * @assoc_list: associations with devices
 * @bound_list: bounds
 * @domain: the IOMMU domain of a %VCM_DEVICE VCM, made on first association
 * @dma_coherent: the IOMMU enforces cache coherency for the devices of
 *	@domain (%IOMMU_CAP_CACHE_COHERENCY)
 * @dma_dev: the one device of a %VCM_DMA VCM, set by its association
 * @dma_active: that association is active: reservations are mapped for
 *	the device when backed
 * @dma_gen: counts the deactivations of a %VCM_DMA VCM
 * @node: link in the list of all VCMs, until vcm_free()
 */
struct vcm {
	struct kref ref;
	enum vcm_type type;
	unsigned int id;
	dma_addr_t start;
	size_t len;
	struct mutex lock;	/* see the kernel-doc above */
	struct vcm_space space;
	struct list_head res_list;
	size_t num_res;
	struct list_head assoc_list;
	struct list_head bound_list;
	struct iommu_domain *domain;
	bool dma_coherent;
	struct device *dma_dev;
	bool dma_active;
	unsigned int dma_gen;
	struct list_head node;
};

/**
 * struct vcm_res - a reservation of device addresses
 * @owner: what the VCM's (or bound's) space stores for the range
 * @vcm: the VCM the reservation belongs to; the reservation holds a
 *	reference to it
 * @bound: the bound it was reserved from, or NULL
 * @dev_addr: first device address, valid when @placed
 * @placed: @dev_addr is assigned; kernel and one-to-one reservations are
 *	placed when backed, the others when reserved
 * @len: length in bytes
 * @align: alignment of @dev_addr
 * @attr: reservation attributes
 * @physmem: the backing physmem, or NULL; a backed reservation holds a
 *	reference to it
 * @mapped: the backing is programmed into the device's page tables
 * @num_ptes: leaf page-table entries the mapping uses (IOMMU kind, and
 *	DMA kind behind a translating IOMMU)
 * @dma_sgt: the DMA API mapping of the backing (DMA kind), or NULL when
 *	the backing is a physmem of the device's own DMA addresses
 * @dma_dir: the direction of that mapping, from the attributes
 * @vaddr: kernel virtual address (kernel kind)
 * @vcm_node: link in &vcm.res_list
 * @phys_node: link in &vcm_physmem.res_list
 */
struct vcm_res {
	struct vcm_space_owner owner;
	struct vcm *vcm;
	struct vcm_bound *bound;
	dma_addr_t dev_addr;
	bool placed;
	size_t len;
	size_t align;
	u32 attr;
	struct vcm_physmem *physmem;
	bool mapped;
	size_t num_ptes;
	struct sg_table *dma_sgt;
	enum dma_data_direction dma_dir;
	void *vaddr;
	struct list_head vcm_node;
	struct list_head phys_node;
};

/**
 * struct vcm_avcm - an association of a VCM with a device
 * @vcm: the VCM, of which the association holds a reference
 * @dev: the device
 * @attr: association attributes
 * @active: the device currently uses the VCM
 * @node: link in &vcm.assoc_list
 */
struct vcm_avcm {
	struct vcm *vcm;
	struct device *dev;
	u32 attr;
	bool active;
	struct list_head node;
};

/**
 * struct vcm_bound - a sub-range of a VCM to reserve from
 * @owner: what the VCM's space stores for the bound's range
 * @vcm: the VCM, of which the bound holds a reference
 * @start: first device address
 * @len: length
 * @space: allocator of the bound's addresses
 * @num_res: reservations made from the bound
 * @node: link in &vcm.bound_list
 */
struct vcm_bound {
	struct vcm_space_owner owner;
	struct vcm *vcm;
	dma_addr_t start;
	size_t len;
	struct vcm_space space;
	size_t num_res;
	struct list_head node;
};

/**
 * enum vcm_cache_class - memory type of the mappings of a physmem
 * @VCM_CC_NONE: not mapped
 * @VCM_CC_CACHED: normal cacheable, write-back
 * @VCM_CC_WC: normal non-cacheable
 */
enum vcm_cache_class {
	VCM_CC_NONE,
	VCM_CC_CACHED,
	VCM_CC_WC,
};

/**
 * struct vcm_chunk_pos - where a chunk of a physmem starts
 * @pgoff: the offset of its first page in the physmem, in pages
 * @pfn: the page frame number of that page
 */
struct vcm_chunk_pos {
	pgoff_t pgoff;
	unsigned long pfn;
};

/**
 * struct vcm_physmem - a physical memory allocation
 * @ref: references: the creator's, and one per backed reservation
 * @id: number shown in debugfs
 * @memtype: where the memory comes from
 * @len: length in bytes
 * @attr: physical allocation attributes
 * @contiguous: one physically contiguous range
 * @dma_dev: for memory allocated through a device's DMA API
 *	(dma_alloc_pages()), that device, referenced; NULL otherwise
 * @dma_pages: the first page of that allocation
 * @dma_handle: the DMA address dma_alloc_pages() gave it, kept to free it
 * @objcg: the memory cgroup that allocation is charged to, referenced;
 *	NULL when charged to none
 * @sgt: the chunks, one scatterlist entry each; for a physmem of @dev_vcm,
 *	entries without pages, each a segment of the device's DMA addresses
 *	(sg_dma_address() and sg_dma_len()), as its owner's DMA mapping gave
 *	them
 * @sg_inline: @sgt's only entry when it has one
 * @foreign_sgt: the caller's table for %VCM_MEMTYPE_FOREIGN, or NULL
 * @chunk_pos: for a physmem of pages in more than one chunk, where each
 *	chunk of @sgt starts, in the table's order, for vcm_phys_pfn(); NULL
 *	for one chunk and for a physmem of @dev_vcm.  Made with @sgt (see
 *	vcm_sgt_index()), freed with the physmem
 * @dev_vcm: for memory known by a device's DMA addresses only
 *	(vcm_phys_from_dma()), the one %VCM_DMA VCM it may back reservations
 *	in
 * @dev_gen: the activation of @dev_vcm's association (&vcm.dma_gen) the
 *	addresses belong to
 * @lock: serialises backings of the physmem; protects the members below
 * @res_list: reservations backed by this physmem
 * @num_res: number of them
 * @cclass: the memory type every mapping of the physmem uses
 * @nc_clean: the linear-map alias holds no dirty cache lines
 * @node: link in the list of all physmems, until vcm_phys_free()
 */
struct vcm_physmem {
	struct kref ref;
	unsigned int id;
	enum vcm_memtype memtype;
	size_t len;
	u32 attr;
	bool contiguous;
	struct device *dma_dev;
	struct page *dma_pages;
	dma_addr_t dma_handle;
	struct obj_cgroup *objcg;
	struct sg_table sgt;
	struct scatterlist sg_inline;
	struct sg_table *foreign_sgt;
	struct vcm_chunk_pos *chunk_pos;
	struct vcm *dev_vcm;
	unsigned int dev_gen;
	struct mutex lock;	/* see the kernel-doc above */
	struct list_head res_list;
	unsigned int num_res;
	enum vcm_cache_class cclass;
	bool nc_clean;
	struct list_head node;
};

/**
 * enum vcm_stat - global counters
 * @VCM_STAT_VCMS: live VCMs
 * @VCM_STAT_RES: live reservations
 * @VCM_STAT_BACKED: backed reservations
 * @VCM_STAT_ASSOCS: live associations
 * @VCM_STAT_ACTIVE: active associations
 * @VCM_STAT_BOUNDS: live bounds
 * @VCM_STAT_PHYSMEMS: live physmems
 * @VCM_STAT_PHYS_BYTES: bytes allocated by vcm_phys_alloc()
 * @VCM_STAT_IOMMU_BYTES: bytes mapped in IOMMU domains
 * @VCM_STAT_IOMMU_PTES: leaf page-table entries of those mappings
 * @VCM_STAT_CACHE_MAINT: cache maintenance operations done (cumulative)
 * @VCM_STAT_CONFLICTS: backings refused for a cache conflict (cumulative)
 * @VCM_STAT_NR: number of counters
 */
enum vcm_stat {
	VCM_STAT_VCMS,
	VCM_STAT_RES,
	VCM_STAT_BACKED,
	VCM_STAT_ASSOCS,
	VCM_STAT_ACTIVE,
	VCM_STAT_BOUNDS,
	VCM_STAT_PHYSMEMS,
	VCM_STAT_PHYS_BYTES,
	VCM_STAT_IOMMU_BYTES,
	VCM_STAT_IOMMU_PTES,
	VCM_STAT_CACHE_MAINT,
	VCM_STAT_CONFLICTS,
	VCM_STAT_NR,
};

/* The first counter that is cumulative rather than a gauge. */
#define VCM_STAT_FIRST_EVENT	VCM_STAT_CACHE_MAINT

extern atomic_long_t vcm_stats[VCM_STAT_NR];
extern const char *const vcm_stat_names[VCM_STAT_NR];

static inline void vcm_stat_add(enum vcm_stat stat, long delta)
{
	atomic_long_add(delta, &vcm_stats[stat]);
}

long vcm_stat_read(enum vcm_stat stat);

extern struct mutex vcm_list_lock;
extern struct list_head vcm_list;
extern struct device *vcm_cache_dev;
extern struct mutex vcm_phys_lock;
extern struct list_head vcm_phys_list;

/*
 * The RFC's API that no module of the kernel calls yet: visible to the
 * KUnit suites only (EXPORT_SYMBOL_IF_KUNIT()).  Each is to be exported
 * with the patch that brings its first user.
 */
struct vcm *vcm_create(dma_addr_t start, size_t len);
struct vcm *vcm_clone(struct vcm *vcm);
dma_addr_t vcm_get_start_addr(const struct vcm *vcm);
size_t vcm_get_len(const struct vcm *vcm);
size_t vcm_get_min_page_size(void);
unsigned long vcm_get_pgsize_bitmap(struct vcm *vcm);
unsigned long vcm_chunk_sizes(unsigned long pgsizes);
struct vcm_res *vcm_reserve_at(struct vcm *vcm, dma_addr_t addr, size_t len,
			       u32 attr);
struct vcm *vcm_get_vcm_from_res(const struct vcm_res *res);
int vcm_set_res_attr(struct vcm_res *res, u32 attr);
size_t vcm_get_num_res(struct vcm *vcm);
struct vcm_res *vcm_get_next_res(struct vcm *vcm, struct vcm_res *res);
struct vcm_res *vcm_get_res(struct vcm *vcm, dma_addr_t dev_addr);
int vcm_translate(struct vcm *src, dma_addr_t src_addr, struct vcm *dst,
		  dma_addr_t *dst_addr);
int vcm_set_assoc_attr(struct vcm_avcm *avcm, u32 attr);
u32 vcm_get_assoc_attr(const struct vcm_avcm *avcm);
int vcm_is_active(const struct vcm_avcm *avcm);
struct vcm_bound *vcm_create_bound(struct vcm *vcm, size_t len);
int vcm_free_bound(struct vcm_bound *bound);
struct vcm_res *vcm_reserve_from_bound(struct vcm_bound *bound, size_t len,
				       u32 attr);
dma_addr_t vcm_get_bound_start_addr(const struct vcm_bound *bound);
size_t vcm_get_bound_len(const struct vcm_bound *bound);
struct vcm_physmem *vcm_phys_alloc(enum vcm_memtype memtype, size_t len,
				   u32 attr, unsigned long pgsizes);
struct vcm_physmem *vcm_phys_from_sgt(struct sg_table *sgt, u32 attr);
struct vcm_physmem *vcm_phys_from_range(phys_addr_t phys, size_t len);
enum vcm_memtype vcm_get_memtype_of_physalloc(const struct vcm_physmem *physmem);
struct sg_table *vcm_get_physmem_sgt(struct vcm_physmem *physmem);
struct vcm_physmem *vcm_get_physmem_from_res(const struct vcm_res *res);
size_t vcm_get_phys_num_res(phys_addr_t phys);
struct vcm_res *vcm_get_next_phys_res(phys_addr_t phys, struct vcm_res *res,
				      size_t *len);
int vcm_dev_addr_to_phys_addr(struct device *dev, dma_addr_t dev_addr,
			      phys_addr_t *phys);
int vcm_hook(struct device *dev, vcm_handler handler, void *data);

/* vcm_core.c */
void vcm_put(struct vcm *vcm);

/* Take a reference for a new child; the caller holds one already. */
static inline void vcm_get(struct vcm *vcm)
{
	kref_get(&vcm->ref);
}

/* vcm_space.c */
int vcm_space_init(struct vcm_space *space, unsigned long first,
		   unsigned long last);
void vcm_space_destroy(struct vcm_space *space);
int vcm_space_alloc(struct vcm_space *space, size_t len, size_t align,
		    void *owner, unsigned long *addr);
int vcm_space_insert(struct vcm_space *space, unsigned long addr, size_t len,
		     void *owner);
void vcm_space_remove(struct vcm_space *space, unsigned long addr,
		      size_t len);
void *vcm_space_lookup(struct vcm_space *space, unsigned long addr);

/* vcm_res.c */
int vcm_res_check_attr(const struct vcm *vcm, u32 attr);
size_t vcm_res_align(struct vcm *vcm, size_t len, u32 attr);
struct vcm_res *vcm_res_new(struct vcm *vcm, size_t len, u32 attr);
void vcm_res_destroy(struct vcm_res *res);
struct vcm_res *vcm_res_lookup(struct vcm *vcm, dma_addr_t addr);
int vcm_res_phys(const struct vcm_res *res, size_t offset, phys_addr_t *phys);

/* vcm_back.c */
int __vcm_back(struct vcm_res *res, struct vcm_physmem *physmem);
void __vcm_unback(struct vcm_res *res);

/* vcm_phys.c */
void vcm_phys_put(struct vcm_physmem *physmem);
struct vcm_physmem *vcm_physmem_new(enum vcm_memtype memtype, size_t len,
				    u32 attr);
void vcm_physmem_publish(struct vcm_physmem *pm);
int vcm_sgt_alloc(struct vcm_physmem *pm, unsigned int nents);
void vcm_sgt_free(struct vcm_physmem *pm);
int vcm_sgt_index(struct vcm_physmem *pm);
int vcm_sgt_from_range(struct vcm_physmem *pm, struct page *page, size_t len);
int vcm_phys_to_sgt(const struct vcm_physmem *physmem, size_t max_seg,
		    unsigned long boundary, struct sg_table *sgt);

/* Take a reference for a new backing; the caller holds one already. */
static inline void vcm_phys_get(struct vcm_physmem *physmem)
{
	kref_get(&physmem->ref);
}

enum vcm_cache_class vcm_cache_class(u32 attr);
int vcm_phys_clean(struct vcm_physmem *pm);
struct device *vcm_constraint_alloc_dev(const struct vcm_constraint *c);

/* vcm_iommu.c */
int vcm_iommu_assoc(struct vcm *vcm, struct device *dev);
void vcm_iommu_free(struct vcm *vcm);
int vcm_iommu_map(struct vcm_res *res);
void vcm_iommu_unmap(struct vcm_res *res);
int vcm_iommu_activate(struct vcm_avcm *avcm);
void vcm_iommu_deactivate(struct vcm_avcm *avcm);
void vcm_iommu_update_fault_handler(struct vcm *vcm);
size_t vcm_iommu_count_ptes(unsigned long pgsizes, unsigned long iova,
			    phys_addr_t paddr, size_t size);
size_t vcm_iommu_count_sgt_ptes(unsigned long pgsizes, unsigned long iova,
				struct sg_table *sgt);

/* vcm_dma.c */
int vcm_dma_assoc(struct vcm *vcm, struct device *dev);
void vcm_dma_deassoc(struct vcm *vcm);
int vcm_dma_activate(struct vcm *vcm);
void vcm_dma_deactivate(struct vcm *vcm);
int vcm_dma_map(struct vcm_res *res);
void vcm_dma_unmap(struct vcm_res *res);

/* vcm_vmm.c */
int vcm_kernel_map(struct vcm_res *res);
void vcm_kernel_unmap(struct vcm_res *res);

/* vcm_debugfs.c; the dumps are visible to the KUnit suites */
void vcm_debugfs_init(void);
#if IS_ENABLED(CONFIG_KUNIT)
struct seq_file;
int vcm_vcms_show(struct seq_file *m, void *unused);
int vcm_physmem_show(struct seq_file *m, void *unused);
#endif

#endif /* _VCM_PRIV_H */
