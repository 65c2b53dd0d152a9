/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gembuf: GEM buffer objects shared between devices, on VCM.
 *
 * One module, two DRM devices: the display (a card node) and the DMA
 * engine (a render node driving QEMU's edu device behind the IOMMU).  An
 * object is one VCM physmem; every device that touches it gets a mapping
 * from a reservation in its own VCM, made on first use and dropped with
 * its last user.  Processes map an object with the CPU page by page, as
 * they touch it, from its ->fault handler; the mm manages those mappings.
 *
 * Locking: gembuf_object.lock protects an object's memory and mappings.
 * The mmap lock (or a VMA's lock) ranks above it: the fault handler
 * takes it.
 */
#ifndef _GEMBUF_DRV_H_
#define _GEMBUF_DRV_H_

#include <drm/drm_device.h>
#include <drm/drm_gem.h>
#include <drm/gembuf_drm.h>
#include <linux/dma-fence.h>
#include <linux/fault-inject.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/vcm.h>
#include <linux/workqueue.h>

#define GEMBUF_NAME		"gembuf"
#define GEMBUF_MAX_SIZE		SZ_1G
/* The mappings of an object gembuf_gem_describe() lists. */
#define GEMBUF_DESCRIBE_MAPPINGS	64

struct dma_buf;
struct drm_printer;
struct gembuf_engine;
struct gembuf_kms;
struct seq_file;
struct seq_buf;

/**
 * enum gembuf_role - what a gembuf DRM device is
 * @GEMBUF_DISPLAY: the display; it reads objects through the kernel VCM
 * @GEMBUF_ENGINE: the DMA engine; it reads and writes through a DMA VCM
 */
enum gembuf_role {
	GEMBUF_DISPLAY,
	GEMBUF_ENGINE,
};

/**
 * struct gembuf_device - one gembuf DRM device
 * @drm: the DRM device, first
 * @role: display or engine
 * @vcm: the VCM the device sees objects through
 * @avcm: its active association with @drm.dev
 * @engine: the DMA engine state, for %GEMBUF_ENGINE
 * @kms: the KMS pipelines, for %GEMBUF_DISPLAY
 * @imports_lock: protects @imports
 * @imports: foreign dma-bufs imported on this device, attached by it
 * @imports_revoked: the device went away: no more imports
 * @need: what it needs of the memory it maps: its VCM's constraint,
 *	fixed once its association is active (for an engine, what the DMA
 *	API needs for edu: the page sizes of its DMA domain; nothing for the
 *	display reading with the CPU; one range below 4 GiB for the display
 *	with display_dma)
 */
struct gembuf_device {
	struct drm_device drm;
	enum gembuf_role role;
	struct vcm *vcm;
	struct vcm_avcm *avcm;
	struct gembuf_engine *engine;
	struct gembuf_kms *kms;
	struct mutex imports_lock;	/* see the kernel-doc above */
	struct list_head imports;
	bool imports_revoked;
	struct vcm_constraint need;
};

#define to_gembuf_device(d) container_of(d, struct gembuf_device, drm)

/**
 * enum gembuf_mapping_kind - the VCM a mapping lives in
 * @GEMBUF_MAPPING_IOMMU: an IOMMU domain: a gembuf engine's, or the DMA
 *	domain of a dma-buf importer's device
 * @GEMBUF_MAPPING_KERNEL: the kernel VCM (vmap)
 * @GEMBUF_MAPPING_USER: processes' CPU mappings (mmap), in debugfs's
 *	report only: one line for all of them, no &struct gembuf_mapping
 * @GEMBUF_MAPPING_ONE_TO_ONE: a device without an IOMMU, at physical
 *	addresses
 * @GEMBUF_MAPPING_DMA_API: a DMA API mapping where no IOMMU translates:
 *	a dma-buf importer's, or an engine's
 */
enum gembuf_mapping_kind {
	GEMBUF_MAPPING_IOMMU,
	GEMBUF_MAPPING_KERNEL,
	GEMBUF_MAPPING_USER,
	GEMBUF_MAPPING_ONE_TO_ONE,
	GEMBUF_MAPPING_DMA_API,
};

/**
 * struct gembuf_mapping - one device's (or the kernel's) view of an object
 * @node: link in &gembuf_object.mappings
 * @gdev: the gembuf device, or NULL for kernel and dma-buf importer mappings
 * @dev: the struct device the mapping is for
 * @vcm: the VCM of the reservation, NULL for a dma-buf importer's mapping
 * @res: the reservation backed by the object's physmem
 * @vaddr: the kernel address, for a kernel mapping: in the kernel VCM, or
 *	for a foreign buffer, its exporter's dma_buf_vmap()
 * @sgt: the DMA API mapping of a dma-buf importer, the exporter's own
 *	table: begin/end_cpu_access sync it and the unmap uses it, as the
 *	importer gets a copy
 * @dir: the direction of @sgt's mapping, which every sync of it uses
 * @kind: the kind of VCM it lives in
 * @users: holders of the mapping
 */
struct gembuf_mapping {
	struct list_head node;
	struct gembuf_device *gdev;
	struct device *dev;
	struct vcm *vcm;
	struct vcm_res *res;
	void *vaddr;
	struct sg_table *sgt;
	enum dma_data_direction dir;
	enum gembuf_mapping_kind kind;
	unsigned int users;
};

/**
 * struct gembuf_user - a device that uses an object's memory
 * @node: link in &gembuf_object.users
 * @dev: the device, held while it is a user
 * @attachments: its attachments to the object's dma-buf (1 for the
 *	device the object is made on)
 * @placed: its needs are in &gembuf_object.need: from the creation for
 *	the device the object is made on, from its first mapping for an
 *	attached one
 *
 * The device the object was made on, and every device attached to its
 * dma-buf: each is one of &gembuf_object.need's devices, however many
 * times it attaches.
 */
struct gembuf_user {
	struct list_head node;
	struct device *dev;
	unsigned int attachments;
	bool placed;
};

/**
 * struct gembuf_object - a buffer object
 * @base: the GEM object, first
 * @physmem: the memory, NULL until a device first needs it (see
 *	gembuf_place.c); for a foreign dma-buf imported on the engine, the
 *	DMA addresses of the engine's attachment (vcm_phys_from_dma()); NULL
 *	for one imported on the display, which reads it through the
 *	exporter's dma_buf_vmap()
 * @cache: GEMBUF_CACHE_* policy
 * @wc_clean: for %GEMBUF_CACHE_WC, VCM cleaned @physmem's linear-map
 *	alias for processes' write-combined mappings (see the fault handler)
 * @flags: GEMBUF_GEM_* creation flags
 * @sgt: for a foreign import, the mapping of the importing device's
 *	attachment; NULL for one on the CPU display, which maps none
 * @lock: protects @mappings, @physmem, @wc_clean and the placement
 *	fields; the fault handler inserts @physmem's pages into a process
 *	under it
 * @mappings: the mappings of @physmem by devices and the kernel: one per
 *	gembuf device, the kernel's, one per dma-buf importer's attachment
 * @user_vmas: the processes' VMAs that map the object with the CPU
 *	(through its GEM offset or a dma-buf), counted on the real object by
 *	->mmap, ->open (a fork, a split, a move) and ->close.  Atomic: the
 *	mm calls those hooks with its own locks held and they cannot fail,
 *	so they take no lock of gembuf's.  gembuf_object_mapped() reads it
 *	under @lock, and a count that changes meanwhile does no harm: a
 *	VMA's page tables are zapped before it is closed, and pages go in
 *	only under @lock, so a VMA made while the memory moves gets the new
 *	memory at its first fault
 * @vmap: the kernel's mapping for vmap, shared by its users
 * @engine_map: the engine's mapping, held by this object (an import on the
 *	engine, or an object of the engine) from its first DMA until it is
 *	freed or the engine needs the address space for another (see
 *	gembuf_job_map()), so jobs do not map and unmap every time
 * @engine_node: link in &gembuf_engine.cached while it may hold
 *	@engine_map
 * @import_node: link in &gembuf_device.imports, for a foreign import
 * @attach: for a foreign import, the importing device's attachment (as the
 *	import callback got it, before DRM sets @base.import_attach for a
 *	mapped import; gembuf sets it for one that maps nothing)
 * @revoked: for a foreign import whose device went away, the dma-buf: the
 *	attachment was given back then, and the object still holds the
 *	import's reference
 * @foreign: an import: its memory is the exporter's, gembuf's other
 *	device's included
 * @users: the devices whose needs are in @need (&struct gembuf_user)
 * @need: what the devices that use it need of @physmem
 * @moves: times @physmem moved to fit a device that came later
 * @refused: the errno of the last device refused, 0 for none
 * @refused_unmet: the VCM_CONSTRAINT_* @physmem lacked for it
 * @refused_dev: that device's name
 * @memcg: for an object of gembuf's own, the memory cgroup of the task
 *	that created it, which pays for @physmem whoever makes it be
 *	allocated or moved (NULL without memory cgroups)
 * @list_node: link in &gembuf.object_list, for an object of gembuf's own
 */
struct gembuf_object {
	struct drm_gem_object base;
	struct vcm_physmem *physmem;
	u32 cache;
	bool wc_clean;
	u32 flags;
	struct sg_table *sgt;
	struct mutex lock;	/* see the kernel-doc above */
	struct list_head mappings;
	atomic_t user_vmas;
	struct gembuf_mapping *vmap;
	struct gembuf_mapping *engine_map;
	struct list_head engine_node;
	struct list_head import_node;
	struct dma_buf_attachment *attach;
	struct dma_buf *revoked;
	bool foreign;
	struct list_head users;
	struct vcm_constraint need;
	unsigned int moves;
	int refused;
	u32 refused_unmet;
	char refused_dev[32];
	struct mem_cgroup *memcg;
	struct list_head list_node;
};

#define to_gembuf_object(o) container_of(o, struct gembuf_object, base)

/**
 * struct gembuf - the module's state
 * @display: the display device
 * @objects: live objects, imports included, for debugfs and the tests
 * @objects_lock: protects @object_list
 * @object_list: the objects with memory of gembuf's own, for debugfs
 * @mappings: live mappings of devices and the kernel (CPU mappings of
 *	processes are the mm's: &gembuf_object.user_vmas counts them)
 * @jobs: DMA engine jobs not yet freed; each holds the module
 */
struct gembuf {
	struct gembuf_device *display;
	atomic_t objects;
	struct mutex objects_lock;	/* see the kernel-doc above */
	struct list_head object_list;
	atomic_t mappings;
	atomic_t jobs;
};

extern struct gembuf gembuf;

/* gembuf_drv.c */
extern const struct drm_driver gembuf_display_driver;
extern const struct drm_driver gembuf_engine_driver;
int gembuf_device_init(struct gembuf_device *gdev, enum gembuf_role role);
void gembuf_device_fini(struct gembuf_device *gdev);

/* gembuf_gem.c */
struct gembuf_object *gembuf_object_create(struct drm_device *dev, size_t size,
					   u32 flags, u32 cache);
struct drm_gem_object *gembuf_gem_create_import(struct drm_device *dev,
						size_t size,
						struct vcm_physmem *physmem);
int gembuf_gem_create_ioctl(struct drm_device *dev, void *data,
			    struct drm_file *file);
int gembuf_gem_mmap_offset_ioctl(struct drm_device *dev, void *data,
				 struct drm_file *file);
int gembuf_gem_describe(struct drm_device *dev, u64 client_id, u32 handle,
			struct seq_buf *s);
int gembuf_gem_wait_ioctl(struct drm_device *dev, void *data,
			  struct drm_file *file);
int gembuf_dumb_create(struct drm_file *file, struct drm_device *dev,
		       struct drm_mode_create_dumb *args);
u32 gembuf_res_attr(const struct gembuf_object *obj);

/* gembuf_mapping.c */
struct gembuf_mapping *gembuf_mapping_get(struct gembuf_object *obj,
					  struct gembuf_device *gdev);
void gembuf_mapping_put(struct gembuf_object *obj,
			struct gembuf_mapping *map);
void *gembuf_vmap(struct gembuf_object *obj);
void gembuf_vunmap(struct gembuf_object *obj);
void gembuf_mapping_add(struct gembuf_object *obj, struct gembuf_mapping *map);
void gembuf_mapping_del(struct gembuf_object *obj, struct gembuf_mapping *map);
bool gembuf_object_mapped(const struct gembuf_object *obj);

/* gembuf_place.c */
int gembuf_place_user(struct gembuf_object *obj, struct device *dev,
		      const struct vcm_constraint *c);
void gembuf_place_unuse(struct gembuf_object *obj, struct device *dev);
int gembuf_place_map(struct gembuf_object *obj, struct device *dev);
void gembuf_place_fini(struct gembuf_object *obj);
int gembuf_place_backing(struct gembuf_object *obj);
int gembuf_place_add(struct gembuf_object *obj, const struct vcm_constraint *c,
		     const char *who);
void gembuf_place_describe(struct gembuf_object *obj, struct seq_buf *s);
int gembuf_place_show(struct seq_file *m, void *data);

/* gembuf_prime.c */
struct dma_buf *gembuf_gem_prime_export(struct drm_gem_object *obj, int flags);
struct drm_gem_object *gembuf_gem_prime_import(struct drm_device *dev,
					       struct dma_buf *dma_buf);
struct drm_gem_object *
gembuf_gem_prime_import_sg_table(struct drm_device *dev,
				 struct dma_buf_attachment *attach,
				 struct sg_table *sgt);
void gembuf_prime_revoke_imports(struct gembuf_device *gdev);
void gembuf_prime_forget_import(struct gembuf_object *obj);
struct gembuf_object *gembuf_prime_exporter(struct drm_gem_object *gem);
struct gembuf_object *gembuf_dmabuf_object(const struct dma_buf *dmabuf);
void gembuf_prime_sync_import(struct gembuf_object *obj, bool for_cpu);

/* gembuf_engine.c, gembuf_job.c */
int gembuf_engine_register(void);
void gembuf_engine_unregister(void);
void gembuf_engine_free_retired(void);
void gembuf_job_forget(struct gembuf_object *obj);
int gembuf_dma_fill_ioctl(struct drm_device *dev, void *data,
			  struct drm_file *file);
int gembuf_dma_copy_ioctl(struct drm_device *dev, void *data,
			  struct drm_file *file);
int gembuf_engine_open(struct drm_device *dev, struct drm_file *file);
void gembuf_engine_postclose(struct drm_device *dev, struct drm_file *file);
void gembuf_engine_show_fdinfo(struct drm_printer *p, struct drm_file *file);

/* gembuf_debugfs.c */
void gembuf_debugfs_init(struct drm_minor *minor);
extern struct fault_attr gembuf_fail_job;
extern struct fault_attr gembuf_hang_job;
extern struct fault_attr gembuf_fail_compose;

#endif /* _GEMBUF_DRV_H_ */
