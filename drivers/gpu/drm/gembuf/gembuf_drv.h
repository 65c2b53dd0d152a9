/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gembuf: GEM buffer objects shared between devices, on VCM.
 *
 * One module, two DRM devices: the display (a card node) and the DMA
 * engine (a render node driving QEMU's edu device behind the IOMMU).  An
 * object is a GEM VCM helper object (drm_gem_vcm_helper.h): one VCM
 * physmem, placed for every device that uses it.  Every device that
 * touches it gets a mapping from a reservation in its own VCM, made on
 * first use and dropped with its last user; the kernel's vmap and the
 * processes' CPU mappings, page by page from the ->fault handler, are
 * the helper's.
 *
 * Locking: an object's reservation lock (&drm_gem_object.resv, an
 * import's dma-buf's) protects its memory and mappings, gembuf's list of
 * them included; gembuf holds one object's at a time, or a job's with
 * drm_exec.  The mmap lock (or a VMA's lock) ranks above it: the fault
 * handler takes it.
 */
#ifndef _GEMBUF_DRV_H_
#define _GEMBUF_DRV_H_

#include <drm/drm_device.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_vcm_helper.h>
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
 * @gem_vcm: its GEM VCM context (drmm_gem_vcm_init()), which has the VCM
 *	the device sees objects through, its association and what the
 *	device needs of the memory it maps: for an engine, a DMA
 *	VCM, and what the DMA API needs for edu (the page sizes of its DMA
 *	domain); for the display reading with the CPU, the kernel VCM and
 *	nothing; for the display with display_dma, a one-to-one VCM and one
 *	range below 4 GiB
 * @role: display or engine
 * @engine: the DMA engine state, for %GEMBUF_ENGINE
 * @kms: the KMS pipelines, for %GEMBUF_DISPLAY
 * @node: link in &gembuf.devices, from gembuf_device_init() until the
 *	DRM device is released
 */
struct gembuf_device {
	struct drm_device drm;
	struct drm_gem_vcm_context gem_vcm;
	enum gembuf_role role;
	struct gembuf_engine *engine;
	struct gembuf_kms *kms;
	struct list_head node;
};

#define to_gembuf_device(d) container_of(d, struct gembuf_device, drm)

/**
 * enum gembuf_mapping_kind - the VCM a mapping lives in
 * @GEMBUF_MAPPING_IOMMU: an IOMMU domain: a gembuf engine's, or the DMA
 *	domain of a dma-buf importer's device
 * @GEMBUF_MAPPING_KERNEL: the kernel VCM: the display's, or the kernel's
 *	vmap (the helper's, in debugfs's report only)
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
 * struct gembuf_mapping - one gembuf device's view of an object
 * @node: link in &gembuf_object.mappings
 * @gdev: the gembuf device
 * @dev: the struct device the mapping is for
 * @vcm: the VCM of the reservation, NULL for the display's vmap of an
 *	import
 * @res: the reservation backed by the object's physmem
 * @vaddr: the kernel address, for a kernel mapping: in the kernel VCM, or
 *	for a foreign buffer, its exporter's dma_buf_vmap()
 * @kind: the kind of VCM it lives in
 * @users: holders of the mapping, under the object's reservation lock
 */
struct gembuf_mapping {
	struct list_head node;
	struct gembuf_device *gdev;
	struct device *dev;
	struct vcm *vcm;
	struct vcm_res *res;
	void *vaddr;
	enum gembuf_mapping_kind kind;
	unsigned int users;
};

/**
 * struct gembuf_object - a buffer object
 * @vcm: the GEM VCM helper object, first: its memory (none until a
 *	device first needs it; for a foreign dma-buf imported on the engine,
 *	the DMA addresses of the engine's attachment, vcm_phys_from_dma();
 *	none for one imported on the display, which reads it through the
 *	exporter's dma_buf_vmap()), its cache policy (%GEMBUF_CACHE_WC is
 *	&drm_gem_vcm_object.map_wc), its placement, the kernel's vmap and
 *	the processes' CPU mappings.  Its reservation lock protects
 *	@mappings and their users too
 * @flags: GEMBUF_GEM_* creation flags
 * @mappings: the mappings of the memory by gembuf's devices: one per
 *	gembuf device, and the display's vmap of an import; each is
 *	counted in &drm_gem_vcm_object.map_count (the importers' are the
 *	helper's, &drm_gem_vcm_object.dma_maps)
 * @engine_map: the engine's mapping, held by this object (an import on the
 *	engine, or an object of the engine) from its first DMA until it is
 *	freed or the engine needs the address space for another (see
 *	gembuf_job_map()), so jobs do not map and unmap every time.  Set
 *	and taken with cmpxchg(); the reservation lock is held only to
 *	tell that no job holds it
 * @engine_node: link in &gembuf_engine.cached while it may hold
 *	@engine_map
 * @list_node: link in &gembuf.object_list, for an object of gembuf's own
 */
struct gembuf_object {
	struct drm_gem_vcm_object vcm;
	u32 flags;
	struct list_head mappings;
	struct gembuf_mapping *engine_map;
	struct list_head engine_node;
	struct list_head list_node;
};

#define to_gembuf_object(o) container_of(o, struct gembuf_object, vcm.base)

/**
 * struct gembuf - the module's state
 * @display: the display device
 * @devices_lock: protects @devices
 * @devices: the gembuf devices not yet released, whose contexts count
 *	their objects and the kernel's mappings of them, for debugfs and
 *	the tests
 * @objects_lock: protects @object_list
 * @object_list: the objects with memory of gembuf's own, for debugfs
 * @mappings: live mappings gembuf made for devices (&gembuf_mapping; the
 *	kernel's vmaps are the helper's, counted in the contexts, and CPU
 *	mappings of processes the mm's)
 * @jobs: DMA engine jobs not yet freed; each holds the module
 */
struct gembuf {
	struct gembuf_device *display;
	struct mutex devices_lock;	/* see the kernel-doc above */
	struct list_head devices;
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

/* gembuf_gem.c */
struct drm_gem_object *gembuf_gem_create_object(struct drm_device *dev,
						size_t size);
struct gembuf_object *gembuf_object_create(struct drm_device *dev, size_t size,
					   u32 flags, u32 cache);
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

/* gembuf_mapping.c */
struct gembuf_mapping *gembuf_mapping_get(struct gembuf_object *obj,
					  struct gembuf_device *gdev, bool intr);
void gembuf_mapping_put(struct gembuf_object *obj,
			struct gembuf_mapping *map);

/* gembuf_prime.c */
struct gembuf_object *gembuf_prime_exporter(struct drm_gem_object *gem);
struct gembuf_object *gembuf_dmabuf_object(const struct dma_buf *dmabuf);
void gembuf_prime_sync_import(struct gembuf_object *obj, bool for_cpu);
enum gembuf_mapping_kind gembuf_dma_api_kind(struct device *dev);

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
