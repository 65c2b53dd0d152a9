/* SPDX-License-Identifier: GPL-2.0-only */

#ifndef __DRM_GEM_VCM_HELPER_H__
#define __DRM_GEM_VCM_HELPER_H__

#include <linux/atomic.h>
#include <linux/dma-direction.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/vcm.h>

#include <drm/drm_gem.h>

struct device;
struct dma_buf;
struct dma_buf_attachment;
struct drm_device;
struct drm_driver;
struct drm_file;
struct drm_mode_create_dumb;
struct drm_printer;
struct iosys_map;
struct mem_cgroup;
struct seq_buf;
struct seq_file;
struct sg_table;
struct vm_area_struct;

/**
 * enum drm_gem_vcm_kind - how a DRM device reaches the memory of objects
 * @DRM_GEM_VCM_CPU: through the CPU only, in the kernel VCM
 *	(vcm_kernel()): a device that does no DMA of its own, such as a
 *	display the CPU composes for
 * @DRM_GEM_VCM_DMA: through its DMA API, in a DMA VCM (vcm_create_dma()):
 *	a device that shares memory with others and imports dma-bufs
 * @DRM_GEM_VCM_ONE_TO_ONE: at physical addresses, in a one-to-one VCM
 *	(vcm_create_one_to_one()) below its DMA mask: a device without an
 *	IOMMU
 */
enum drm_gem_vcm_kind {
	DRM_GEM_VCM_CPU,
	DRM_GEM_VCM_DMA,
	DRM_GEM_VCM_ONE_TO_ONE,
};

/**
 * struct drm_gem_vcm_context - a DRM device's VCM, for its objects
 *
 * Embedded in the driver's device structure, set up by
 * drmm_gem_vcm_init() and released with the DRM device.  Objects are
 * made with it (drm_gem_vcm_create()) and keep it in
 * &drm_gem_vcm_object.ctx.
 */
struct drm_gem_vcm_context {
	/** @drm: the DRM device, NULL until drmm_gem_vcm_init() */
	struct drm_device *drm;

	/** @kind: how the device reaches memory */
	enum drm_gem_vcm_kind kind;

	/** @vcm: the VCM the device maps memory in */
	struct vcm *vcm;

	/**
	 * @avcm: the association of @vcm with the device, active from
	 * drmm_gem_vcm_init() until drm_gem_vcm_unplug() or the release
	 */
	struct vcm_avcm *avcm;

	/**
	 * @need: what the device needs of memory it maps, asked of @vcm
	 * once at init (vcm_constraint_of_vcm()): every object made on the
	 * device starts from it
	 */
	struct vcm_constraint need;

	/** @objects: live objects of the device, imports included */
	atomic_t objects;

	/** @imports_lock: protects @imports and @imports_revoked */
	struct mutex imports_lock;

	/**
	 * @imports: the device's imports (&drm_gem_vcm_object.import_node),
	 * whose attachments drm_gem_vcm_unplug() gives back
	 */
	struct list_head imports;

	/** @imports_revoked: the device was unplugged: no more imports */
	bool imports_revoked;

	/**
	 * @dma_map_wc: importers may map the device's write-combined
	 * objects for DMA, their linear alias cleaned first.  Only for a
	 * driver that write-combines because its clients have no CPU
	 * access calls and that let importers map such buffers before
	 * (vgem, on the shmem helper): a device that snoops the CPU's
	 * caches may still read a line the CPU fetched through the
	 * cacheable linear alias by speculation.  Set by the driver after
	 * drmm_gem_vcm_init(), before its first object.
	 */
	bool dma_map_wc;

	/**
	 * @maps: the mappings of the device's objects the helper made:
	 * kernel mappings (drm_gem_vcm_vmap()) and importers' DMA mappings
	 * (struct &drm_gem_vcm_dma_map)
	 */
	atomic_t maps;
};

/**
 * struct drm_gem_vcm_user - a device that uses an object's memory
 * @node: link in &drm_gem_vcm_object.users
 * @dev: the device, held while it is a user
 * @attachments: its attachments to the object's dma-buf (1 for the
 *	device the object is made on)
 * @placed: its needs are in &drm_gem_vcm_object.need: from the creation
 *	for the device the object is made on, from its first mapping of
 *	the object's dma-buf for an attached one
 */
struct drm_gem_vcm_user {
	struct list_head node;
	struct device *dev;
	unsigned int attachments;
	bool placed;
};

/**
 * struct drm_gem_vcm_dma_map - an importer's DMA API mapping of an object
 * @node: link in &drm_gem_vcm_object.dma_maps
 * @dev: the importer's device
 * @sgt: the mapped table, the exporter's own: the importer gets a copy
 * @dir: the direction of the mapping, which every sync of it uses
 *
 * Made when an attachment to the object's dma-buf is mapped, and kept in
 * the attachment's priv until it is unmapped.
 */
struct drm_gem_vcm_dma_map {
	struct list_head node;
	struct device *dev;
	struct sg_table *sgt;
	enum dma_data_direction dir;
};

/**
 * struct drm_gem_vcm_object - a GEM object on VCM physical memory
 *
 * A driver that subclasses it (&drm_driver.gem_create_object) embeds it
 * as the first member of its own object, which drm_gem_vcm_free() frees.
 *
 * The object's reservation lock (&drm_gem_object.resv; for an import,
 * its dma-buf's) protects the memory (@physmem, @wc_clean), the
 * placement (@need, @users, @moves and the refusal), the mappings
 * (@vmap_res, @vmap_use_count, @map_count, @dma_maps) and, for an
 * import, @sgt, @attach and @revoked once the object is published.  A
 * driver may read those three of its own imports without it where
 * drm_gem_vcm_unplug() cannot run meanwhile: under drm_dev_enter(), as
 * the unplug comes after drm_dev_unplug(), or on a device it never
 * unplugs before its release.
 */
struct drm_gem_vcm_object {
	/** @base: the GEM object */
	struct drm_gem_object base;

	/** @ctx: the context of the device the object is made on */
	struct drm_gem_vcm_context *ctx;

	/**
	 * @physmem: the memory, NULL until it is first needed
	 * (drm_gem_vcm_populate()).  For an import, what the importing
	 * driver made of its attachment's DMA addresses
	 * (vcm_phys_from_dma()), or NULL.  Read without the reservation
	 * lock by drm_gem_vcm_status(): set with WRITE_ONCE()
	 */
	struct vcm_physmem *physmem;

	/** @sgt: for an import, the importing device's mapped table, or NULL */
	struct sg_table *sgt;

	/**
	 * @attach: for an import, its attachment, from when the object is
	 * made (the DRM core sets &drm_gem_object.import_attach of a mapped
	 * import only later) until the device gives it back
	 */
	struct dma_buf_attachment *attach;

	/** @import_node: for an import, link in &drm_gem_vcm_context.imports */
	struct list_head import_node;

	/**
	 * @revoked: for an import whose device was unplugged, its dma-buf:
	 * the attachment went back then, and the object holds the import's
	 * reference until it is freed
	 */
	struct dma_buf *revoked;

	/** @need: what the devices that use the object need of @physmem */
	struct vcm_constraint need;

	/**
	 * @users: the devices that use the object (struct
	 * &drm_gem_vcm_user), each once however often it attaches: the
	 * one it is made on, for the object's life, and every device
	 * attached to its dma-buf, until its last detach.  Each is one of
	 * @need's devices
	 */
	struct list_head users;

	/**
	 * @memcg: the memory cgroup of the task that created the object,
	 * which pays for @physmem whoever makes it be allocated or moved,
	 * pinned until the object is freed; NULL for an import or without
	 * memory cgroups
	 */
	struct mem_cgroup *memcg;

	/** @vmap_res: the kernel's mapping, a reservation of vcm_kernel() */
	struct vcm_res *vmap_res;

	/** @vmap_use_count: users of @vmap_res */
	unsigned int vmap_use_count;

	/**
	 * @map_count: mappings of @physmem for devices: the importers'
	 * (@dma_maps) and those the driver made itself; like @vmap_res,
	 * each keeps the memory where it is
	 */
	unsigned int map_count;

	/**
	 * @dma_maps: the DMA API mappings of the object's dma-buf
	 * attachments (struct &drm_gem_vcm_dma_map), which the dma-buf's
	 * CPU access calls sync
	 */
	struct list_head dma_maps;

	/**
	 * @user_vmas: the processes' VMAs that map the object, counted by
	 * the mmap handler, ->open and ->close.  Atomic: the mm calls those
	 * with its own locks held, and they take no lock of the object.
	 * The memory does not move while it is not zero (a moved physmem
	 * would need every VMA zapped first)
	 */
	atomic_t user_vmas;

	/** @moves: times @physmem moved to meet a need that came later */
	unsigned int moves;

	/** @refused: the errno of the last need refused, 0 for none */
	int refused;

	/** @refused_unmet: the VCM_CONSTRAINT_* bits @physmem lacked for it */
	u32 refused_unmet;

	/** @refused_dev: who it was (a device's name) */
	char refused_dev[32];

	/**
	 * @map_wc: map the object write-combined, in the kernel and in
	 * processes, instead of write-back
	 */
	bool map_wc;

	/**
	 * @wc_clean: for @map_wc, VCM has cleaned @physmem's linear-map
	 * alias for processes' write-combined mappings
	 */
	bool wc_clean;

	/**
	 * @imported: an import: its memory is the exporter's.  Set when
	 * the object is made; it stays when the driver gives the
	 * attachment back and clears &drm_gem_object.import_attach
	 */
	bool imported;
};

#define to_drm_gem_vcm_obj(obj) \
	container_of(obj, struct drm_gem_vcm_object, base)

/**
 * drm_gem_vcm_res_attr() - get the attributes of an object's reservations
 * @obj: the object
 *
 * Every mapping of an object has one cache policy, its own: the object
 * never has two memory types.
 *
 * Return: read-write access with the object's cache policy.
 */
static inline u32 drm_gem_vcm_res_attr(const struct drm_gem_vcm_object *obj)
{
	return VCM_READ | VCM_WRITE | (obj->map_wc ? VCM_WC : VCM_WB_WA);
}

int drmm_gem_vcm_init(struct drm_device *dev, struct drm_gem_vcm_context *ctx,
		      enum drm_gem_vcm_kind kind);
void drm_gem_vcm_unplug(struct drm_gem_vcm_context *ctx);

struct drm_gem_vcm_object *drm_gem_vcm_create(struct drm_gem_vcm_context *ctx,
					      size_t size);
void drm_gem_vcm_free(struct drm_gem_vcm_object *obj);

int drm_gem_vcm_place(struct drm_gem_vcm_object *obj,
		      const struct vcm_constraint *c, const char *who);
int drm_gem_vcm_populate(struct drm_gem_vcm_object *obj);

#if IS_ENABLED(CONFIG_KUNIT)
struct drm_gem_vcm_object *
drm_gem_vcm_create_import(struct drm_gem_vcm_context *ctx, size_t size);
int drm_gem_vcm_place_user(struct drm_gem_vcm_object *obj, struct device *dev,
			   const struct vcm_constraint *c);
void drm_gem_vcm_place_unuse(struct drm_gem_vcm_object *obj,
			     struct device *dev);
int drm_gem_vcm_place_map(struct drm_gem_vcm_object *obj, struct device *dev);
#endif

struct dma_buf *drm_gem_vcm_prime_export(struct drm_gem_object *gem,
					 int flags);
struct drm_gem_vcm_object *
drm_gem_vcm_dmabuf_object(const struct dma_buf *dmabuf,
			  const struct drm_driver *driver);
void drm_gem_vcm_prime_sync(struct dma_buf_attachment *attach, bool for_cpu);
struct drm_gem_object *drm_gem_vcm_prime_import(struct drm_gem_vcm_context *ctx,
						struct dma_buf *dmabuf);
struct dma_buf *drm_gem_vcm_import_dmabuf(const struct drm_gem_vcm_object *obj);
struct drm_gem_object *
drm_gem_vcm_prime_import_sg_table(struct drm_gem_vcm_context *ctx,
				  struct dma_buf_attachment *attach,
				  struct sg_table *sgt);
int drm_gem_vcm_dumb_create(struct drm_gem_vcm_context *ctx,
			    struct drm_file *file,
			    struct drm_mode_create_dumb *args);

int drm_gem_vcm_vmap(struct drm_gem_vcm_object *obj, struct iosys_map *map);
void drm_gem_vcm_vunmap(struct drm_gem_vcm_object *obj, struct iosys_map *map);
int drm_gem_vcm_mmap(struct drm_gem_vcm_object *obj,
		     struct vm_area_struct *vma);

extern const struct vm_operations_struct drm_gem_vcm_vm_ops;

enum drm_gem_object_status drm_gem_vcm_status(struct drm_gem_vcm_object *obj);
void drm_gem_vcm_print_info(const struct drm_gem_vcm_object *obj,
			    struct drm_printer *p, unsigned int indent);
void drm_gem_vcm_describe_placement(struct drm_gem_vcm_object *obj,
				    struct seq_buf *s);
void drm_gem_vcm_show_placement(struct drm_gem_vcm_object *obj,
				struct seq_file *m);

/*
 * GEM object functions
 */

/**
 * drm_gem_vcm_object_free - GEM object function for drm_gem_vcm_free()
 * @obj: GEM object to free
 */
static inline void drm_gem_vcm_object_free(struct drm_gem_object *obj)
{
	drm_gem_vcm_free(to_drm_gem_vcm_obj(obj));
}

/**
 * drm_gem_vcm_object_print_info - GEM object function for
 *	drm_gem_vcm_print_info()
 * @p: DRM printer
 * @indent: tab indentation level
 * @obj: GEM object
 */
static inline void
drm_gem_vcm_object_print_info(struct drm_printer *p, unsigned int indent,
			      const struct drm_gem_object *obj)
{
	drm_gem_vcm_print_info(to_drm_gem_vcm_obj(obj), p, indent);
}

/**
 * drm_gem_vcm_object_status - GEM object function for drm_gem_vcm_status()
 * @obj: GEM object
 *
 * Return: the object's status for fdinfo's memory stats.
 */
static inline enum drm_gem_object_status
drm_gem_vcm_object_status(struct drm_gem_object *obj)
{
	return drm_gem_vcm_status(to_drm_gem_vcm_obj(obj));
}

/**
 * drm_gem_vcm_object_vmap - GEM object function for drm_gem_vcm_vmap()
 * @obj: GEM object
 * @map: returns the kernel address
 *
 * Return: 0 or a negative errno.
 */
static inline int drm_gem_vcm_object_vmap(struct drm_gem_object *obj,
					  struct iosys_map *map)
{
	return drm_gem_vcm_vmap(to_drm_gem_vcm_obj(obj), map);
}

/**
 * drm_gem_vcm_object_vunmap - GEM object function for drm_gem_vcm_vunmap()
 * @obj: GEM object
 * @map: the kernel address
 */
static inline void drm_gem_vcm_object_vunmap(struct drm_gem_object *obj,
					     struct iosys_map *map)
{
	drm_gem_vcm_vunmap(to_drm_gem_vcm_obj(obj), map);
}

/**
 * drm_gem_vcm_object_mmap - GEM object function for drm_gem_vcm_mmap()
 * @obj: GEM object
 * @vma: the VMA
 *
 * Return: 0 or a negative errno.
 */
static inline int drm_gem_vcm_object_mmap(struct drm_gem_object *obj,
					  struct vm_area_struct *vma)
{
	return drm_gem_vcm_mmap(to_drm_gem_vcm_obj(obj), vma);
}

/*
 * Driver ops
 */

/**
 * DEFINE_DRM_GEM_VCM_DRIVER_OPS() - define a driver's dumb-buffer and
 *	PRIME import callbacks on the helper
 * @prefix: the prefix of the callbacks' names
 *
 * The context is the driver's, embedded in its device structure, and the
 * DRM core's callbacks get the DRM device: the driver defines
 * <prefix>_gem_vcm_ctx(), which gives a DRM device's &struct
 * drm_gem_vcm_context, and this the three static callbacks
 * DRM_GEM_VCM_DRIVER_OPS() with the same @prefix sets, each calling the
 * helper's function of the same name with that context:
 * <prefix>_gem_vcm_dumb_create(), <prefix>_gem_vcm_prime_import() and
 * <prefix>_gem_vcm_prime_import_sg_table().  A driver that sets some
 * of them only leaves the others unused.
 */
#define DEFINE_DRM_GEM_VCM_DRIVER_OPS(prefix)					\
	static int __maybe_unused						\
	prefix##_gem_vcm_dumb_create(struct drm_file *file,			\
				     struct drm_device *dev,			\
				     struct drm_mode_create_dumb *args)		\
	{									\
		return drm_gem_vcm_dumb_create(prefix##_gem_vcm_ctx(dev),	\
					       file, args);			\
	}									\
	static __maybe_unused struct drm_gem_object *				\
	prefix##_gem_vcm_prime_import(struct drm_device *dev,			\
				      struct dma_buf *dmabuf)			\
	{									\
		return drm_gem_vcm_prime_import(prefix##_gem_vcm_ctx(dev),	\
						dmabuf);			\
	}									\
	static __maybe_unused struct drm_gem_object *				\
	prefix##_gem_vcm_prime_import_sg_table(struct drm_device *dev,		\
					       struct dma_buf_attachment *attach, \
					       struct sg_table *sgt)		\
	{									\
		return drm_gem_vcm_prime_import_sg_table(prefix##_gem_vcm_ctx(dev), \
							 attach, sgt);		\
	}

/**
 * DRM_GEM_VCM_DRIVER_OPS() - the helper's &struct drm_driver callbacks
 * @prefix: the prefix given to DEFINE_DRM_GEM_VCM_DRIVER_OPS()
 *
 * For the initializer of a driver's &struct drm_driver: dumb buffers and
 * PRIME import on the helper.  Export is the objects' own
 * (drm_gem_vcm_prime_export()).
 */
#define DRM_GEM_VCM_DRIVER_OPS(prefix)						\
	.dumb_create = prefix##_gem_vcm_dumb_create,				\
	.gem_prime_import = prefix##_gem_vcm_prime_import,			\
	.gem_prime_import_sg_table = prefix##_gem_vcm_prime_import_sg_table

#endif /* __DRM_GEM_VCM_HELPER_H__ */
