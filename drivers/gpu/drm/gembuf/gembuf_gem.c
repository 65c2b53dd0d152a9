// SPDX-License-Identifier: GPL-2.0-only
/*
 * gembuf objects: GEM VCM helper objects with gembuf's creation flags,
 * the object ioctls, dumb buffers, and debugfs's report of an object.
 * The helper (drm_gem_vcm_helper.c) places and allocates the memory and
 * maps it for the kernel and for processes.
 */

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_prime.h>
#include <drm/drm_utils.h>
#include <drm/gembuf_drm.h>
#include <linux/capability.h>
#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "gembuf_drv.h"

/*
 * The helper frees the whole allocation gembuf_gem_create_object() made
 * through its own object (drm_gem_vcm_free()).
 */
static_assert(offsetof(struct gembuf_object, vcm) == 0);

static void gembuf_gem_free(struct drm_gem_object *gem)
{
	struct gembuf_object *obj = to_gembuf_object(gem);

	/* The helper's free takes the object's lock: see gembuf_job_submit(). */
	if (obj->engine_map)
		gembuf_mapping_put(obj, obj->engine_map);
	gembuf_job_forget(obj);
	if (!list_empty(&obj->list_node)) {
		mutex_lock(&gembuf.objects_lock);
		list_del(&obj->list_node);
		mutex_unlock(&gembuf.objects_lock);
	}
	/* No mapping of gembuf's is left to keep it busy. */
	drm_gem_vcm_free(&obj->vcm);
}

/*
 * For fdinfo's drm-resident-memory, as the helper tells it, except that
 * an import of gembuf's own dma-buf has memory once its exporter's
 * object does.  A handle holds the import's dma-buf in @gem->dma_buf
 * (set before the handle is made).
 */
static enum drm_gem_object_status gembuf_gem_status(struct drm_gem_object *gem)
{
	struct gembuf_object *obj = to_gembuf_object(gem), *exp;

	if (obj->vcm.imported && READ_ONCE(gem->import_attach)) {
		exp = gembuf_dmabuf_object(READ_ONCE(gem->dma_buf));
		if (exp)
			return drm_gem_vcm_status(&exp->vcm);
	}
	return drm_gem_vcm_status(&obj->vcm);
}

static const struct drm_gem_object_funcs gembuf_gem_funcs = {
	.free = gembuf_gem_free,
	.print_info = drm_gem_vcm_object_print_info,
	.status = gembuf_gem_status,
	.export = drm_gem_vcm_prime_export,
	.vmap = drm_gem_vcm_object_vmap,
	.vunmap = drm_gem_vcm_object_vunmap,
	.mmap = drm_gem_vcm_object_mmap,
	.vm_ops = &drm_gem_vcm_vm_ops,
};

/**
 * gembuf_gem_create_object() - allocate a gembuf object for the helper
 * @dev: the DRM device
 * @size: bytes, whole pages
 *
 * &drm_driver.gem_create_object of both drivers: the GEM VCM helper
 * makes every object, created or imported, through it.
 *
 * Return: the object's GEM object, or ERR_PTR(-ENOMEM).
 */
struct drm_gem_object *gembuf_gem_create_object(struct drm_device *dev,
						size_t size)
{
	struct gembuf_object *obj = kzalloc(sizeof(*obj), GFP_KERNEL_ACCOUNT);

	if (!obj)
		return ERR_PTR(-ENOMEM);
	obj->vcm.base.funcs = &gembuf_gem_funcs;
	INIT_LIST_HEAD(&obj->mappings);
	INIT_LIST_HEAD(&obj->engine_node);
	INIT_LIST_HEAD(&obj->list_node);
	return &obj->vcm.base;
}

/**
 * gembuf_object_create() - create an object
 * @dev: the DRM device it is created on
 * @size: bytes, rounded up to the page size
 * @flags: GEMBUF_GEM_* flags
 * @cache: GEMBUF_CACHE_* policy
 *
 * The memory is allocated when a device first needs it, for the devices
 * known then, @dev among them; with %GEMBUF_GEM_CONTIGUOUS it is
 * allocated now.
 *
 * Return: the object, or ERR_PTR(-EINVAL) for bad flags, cache policy or
 * a zero size, ERR_PTR(-E2BIG) above GEMBUF_MAX_SIZE, the errors of
 * drm_gem_vcm_create() and drm_gem_vcm_place() when no memory meets
 * @dev's needs and the flags, and of vcm_phys_alloc_for().
 */
struct gembuf_object *gembuf_object_create(struct drm_device *dev, size_t size,
					   u32 flags, u32 cache)
{
	struct gembuf_device *gdev = to_gembuf_device(dev);
	struct drm_gem_vcm_object *vobj;
	struct vcm_constraint cont;
	struct gembuf_object *obj;
	int ret = 0;

	if ((flags & ~GEMBUF_GEM_CREATE_FLAGS) || cache > GEMBUF_CACHE_WC ||
	    !size)
		return ERR_PTR(-EINVAL);
	if (size > GEMBUF_MAX_SIZE)
		return ERR_PTR(-E2BIG);

	/* The device it is made on is among its users from here on. */
	vobj = drm_gem_vcm_create(&gdev->gem_vcm, size);
	if (IS_ERR(vobj))
		return ERR_CAST(vobj);
	obj = to_gembuf_object(&vobj->base);
	obj->flags = flags;
	vobj->map_wc = cache == GEMBUF_CACHE_WC;
	mutex_lock(&gembuf.objects_lock);
	list_add_tail(&obj->list_node, &gembuf.object_list);
	mutex_unlock(&gembuf.objects_lock);

	/* One range asked for: the memory is known now. */
	if (flags & GEMBUF_GEM_CONTIGUOUS) {
		vcm_constraint_init(&cont);
		cont.flags = VCM_CONSTRAINT_CONTIGUOUS;
		dma_resv_lock(vobj->base.resv, NULL);
		ret = drm_gem_vcm_place(vobj, &cont, "GEMBUF_GEM_CONTIGUOUS");
		if (!ret)
			ret = drm_gem_vcm_populate(vobj);
		dma_resv_unlock(vobj->base.resv);
	}
	if (ret) {
		drm_gem_object_put(&vobj->base);
		return ERR_PTR(ret);
	}
	return obj;
}

static int gembuf_create_handle(struct drm_file *file, struct gembuf_object *obj,
				u32 *handle)
{
	int ret = drm_gem_handle_create(file, &obj->vcm.base, handle);

	/* The handle holds the object now, or nothing does. */
	drm_gem_object_put(&obj->vcm.base);
	return ret;
}

/*
 * One physical range comes from CMA, which every device without an IOMMU
 * draws its memory from: a client takes it only where the kernel lets it
 * take CMA elsewhere.  The DMA-heap CMA node is root's, and so is CMA
 * from a render node, which anyone may open.  The primary node's clients
 * (root and the video group) may have scan-out buffers there, as with any
 * dma-contig DRM driver; a device's driver that attaches asks for what
 * its hardware needs, behind its own node's permissions.
 */
static bool gembuf_may_take_range(struct drm_file *file)
{
	return !drm_is_render_client(file) || capable(CAP_SYS_ADMIN);
}

int gembuf_gem_create_ioctl(struct drm_device *dev, void *data,
			    struct drm_file *file)
{
	struct drm_gembuf_gem_create *args = data;
	struct gembuf_object *obj;
	int ret;

	if (args->pad)
		return -EINVAL;
	if ((args->flags & GEMBUF_GEM_CONTIGUOUS) && !gembuf_may_take_range(file))
		return -EACCES;
	obj = gembuf_object_create(dev, args->size, args->flags, args->cache);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	args->size = obj->vcm.base.size;
	ret = gembuf_create_handle(file, obj, &args->handle);
	if (ret)
		args->handle = 0;
	return ret;
}

int gembuf_dumb_create(struct drm_file *file, struct drm_device *dev,
		       struct drm_mode_create_dumb *args)
{
	struct gembuf_object *obj;
	u32 bits, pitch;
	u64 size;

	/*
	 * The uapi says flags must be zero, and DRM core leaves the check to
	 * drivers, as some userspace sets them: gembuf is new and refuses
	 * any, so that a flag can be given a meaning later.
	 */
	if (args->flags)
		return -EINVAL;
	/*
	 * drm_mode_create_dumb() bounds width * bytes per pixel, not
	 * width * bits per pixel: a wide buffer of 32 bpp overflows the
	 * latter in 32 bits.
	 */
	if (check_mul_overflow(args->width, args->bpp, &bits) ||
	    check_add_overflow(bits, 7u, &bits))
		return -EINVAL;
	pitch = bits / 8;
	size = (u64)pitch * args->height;
	obj = gembuf_object_create(dev, size, 0, GEMBUF_CACHE_WB);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	args->pitch = pitch;
	/* What the client may map: the whole object, in pages. */
	args->size = obj->vcm.base.size;
	return gembuf_create_handle(file, obj, &args->handle);
}

int gembuf_gem_mmap_offset_ioctl(struct drm_device *dev, void *data,
				 struct drm_file *file)
{
	struct drm_gembuf_gem_mmap_offset *args = data;

	if (args->pad)
		return -EINVAL;
	return drm_gem_dumb_map_offset(file, dev, args->handle, &args->offset);
}

/*
 * The address of a mapping, where it tells the process asking nothing it
 * need not know: an IOVA of gembuf's engine.  Kernel virtual addresses
 * are not printed even to root, as %p hashes kernel pointers.
 */
static u64 gembuf_info_addr(const struct gembuf_mapping *map)
{
	if (map->kind != GEMBUF_MAPPING_IOMMU || !map->res)
		return 0;
	return vcm_get_dev_addr(map->res);
}

/*
 * The names of the kinds; a mapping for no device (the kernel's, the
 * processes') is reported with its kind's name as its device.
 */
static const char *const gembuf_mapping_kinds[] = {
	[GEMBUF_MAPPING_IOMMU] = "iommu",
	[GEMBUF_MAPPING_KERNEL] = "kernel",
	[GEMBUF_MAPPING_USER] = "user",
	[GEMBUF_MAPPING_ONE_TO_ONE] = "1:1",
	[GEMBUF_MAPPING_DMA_API] = "dma-api",
};

/* One mapping: device kind address bytes attributes IOMMU-entries users. */
static void gembuf_describe_mapping(struct seq_buf *s,
				    const struct gembuf_mapping *map)
{
	const char *kind = gembuf_mapping_kinds[map->kind];
	const char *name = map->dev ? dev_name(map->dev) : kind;
	u32 attr = 0, ptes = 0;
	u64 size = 0;

	if (map->res) {
		size = vcm_get_res_len(map->res);
		attr = vcm_get_res_attr(map->res);
		ptes = vcm_get_res_num_ptes(map->res);
	}
	seq_buf_printf(s, "mapping %s %s 0x%llx %llu 0x%x %u %u\n", name,
		       kind, gembuf_info_addr(map), size, attr, ptes,
		       map->users);
}

/*
 * An importer's DMA API mapping, the helper's: every byte mapped, and
 * the address only where it is an IOVA of a DMA domain.  The DMA
 * addresses of importers without an IOMMU (physical addresses under
 * dma-direct) are not printed even to root.
 */
static void gembuf_describe_dma_map(struct seq_buf *s,
				    const struct drm_gem_vcm_dma_map *map)
{
	enum gembuf_mapping_kind kind = gembuf_dma_api_kind(map->dev);
	struct scatterlist *sg;
	unsigned int i;
	u64 size = 0;

	for_each_sgtable_dma_sg(map->sgt, sg, i)
		size += sg_dma_len(sg);
	seq_buf_printf(s, "mapping %s %s 0x%llx %llu 0x0 0 1\n",
		       dev_name(map->dev), gembuf_mapping_kinds[kind],
		       kind == GEMBUF_MAPPING_IOMMU ?
		       (u64)sg_dma_address(map->sgt->sgl) : 0, size);
}

/*
 * The kernel's vmap, the helper's: one reservation of the kernel VCM,
 * shared by its users, reported as a mapping of the kernel's.
 */
static void gembuf_describe_vmap(struct seq_buf *s,
				 const struct drm_gem_vcm_object *obj)
{
	const char *kind = gembuf_mapping_kinds[GEMBUF_MAPPING_KERNEL];

	seq_buf_printf(s, "mapping %s %s 0x0 %zu 0x%x %zu %u\n", kind, kind,
		       vcm_get_res_len(obj->vmap_res),
		       vcm_get_res_attr(obj->vmap_res),
		       vcm_get_res_num_ptes(obj->vmap_res),
		       obj->vmap_use_count);
}

/* A file of @dev's by its fdinfo client id, and its object @handle. */
static struct drm_gem_object *gembuf_lookup_client(struct drm_device *dev,
						   u64 client_id, u32 handle)
{
	struct drm_gem_object *gem = ERR_PTR(-ESRCH);
	struct drm_file *file;

	mutex_lock(&dev->filelist_mutex);
	list_for_each_entry(file, &dev->filelist, lhead) {
		if (file->client_id != client_id)
			continue;
		gem = drm_gem_object_lookup(file, handle) ?: ERR_PTR(-ENOENT);
		break;
	}
	mutex_unlock(&dev->filelist_mutex);
	return gem;
}

/**
 * gembuf_gem_describe() - what an object is made of and who maps it
 * @dev: the DRM device
 * @client_id: the file's client id (drm-client-id in its fdinfo)
 * @handle: the object's handle in that file
 * @s: the report, one "key value..." line each: size, cache policy,
 *	flags, the number of physically contiguous chunks and a "chunk
 *	<order> <count>" line for each order that has some (2^order up to
 *	2^(order + 1) - 1 bytes), the placement
 *	(drm_gem_vcm_describe_placement()),
 *	then the number of mappings and a line for each of the first
 *	%GEMBUF_DESCRIBE_MAPPINGS: the devices' and the kernel's, then one
 *	line for all the processes' CPU mappings, whose users are their VMAs
 *
 * For debugfs (root), as it tells where the memory is.  Addresses are
 * still told only where they reveal no kernel, physical or process's
 * address: IOVAs of gembuf's engines.  The CPU mappings are the mm's,
 * at whatever addresses the processes have them now: counted, not
 * listed.
 *
 * Return: 0, -ESRCH for no such client of @dev, -ENOENT for no such
 * object, -EOVERFLOW when the report does not fit, -ERESTARTSYS for a
 * signal while waiting for the object's reservation lock.
 */
int gembuf_gem_describe(struct drm_device *dev, u64 client_id, u32 handle,
			struct seq_buf *s)
{
	unsigned int cursor, order, n = 0, chunks = 0;
	unsigned int orders[BITS_PER_LONG] = {};
	struct gembuf_object *obj, *imp;
	struct drm_gem_object *gem;
	struct drm_gem_vcm_dma_map *dma_map;
	struct gembuf_mapping *map;
	size_t len, count;
	phys_addr_t phys;
	u32 attr;
	int vmas;

	gem = gembuf_lookup_client(dev, client_id, handle);
	if (IS_ERR(gem))
		return PTR_ERR(gem);
	/*
	 * An import of gembuf's other device's dma-buf is told as the
	 * exporter's object, whose memory and mappings it stands for.  Its
	 * reservation lock is the dma-buf's, the exporter's object's.
	 */
	imp = to_gembuf_object(gem);
	if (dma_resv_lock_interruptible(gem->resv, NULL)) {
		drm_gem_object_put(gem);
		return -ERESTARTSYS;
	}
	obj = gembuf_prime_exporter(gem) ?: imp;

	seq_buf_printf(s, "size %zu\ncache %u\nflags", gem->size,
		       obj->vcm.map_wc ? GEMBUF_CACHE_WC : GEMBUF_CACHE_WB);
	if (obj->vcm.physmem)
		seq_buf_puts(s, " allocated");
	if (imp->vcm.imported)
		seq_buf_puts(s, " imported");
	vcm_for_each_phys_chunk(obj->vcm.physmem, cursor, phys, len) {
		orders[ilog2(len)]++;
		chunks++;
	}
	if (chunks == 1)
		seq_buf_puts(s, " contiguous");
	seq_buf_printf(s, "\nchunks %u\n", chunks);
	for (order = 0; order < ARRAY_SIZE(orders); order++)
		if (orders[order])
			seq_buf_printf(s, "chunk %u %u\n", order, orders[order]);
	drm_gem_vcm_describe_placement(&obj->vcm, s);
	/*
	 * gembuf's devices', the importers', then the kernel's vmap, then
	 * the processes' in one line.
	 */
	vmas = atomic_read(&obj->vcm.user_vmas);
	count = list_count_nodes(&obj->mappings) +
		list_count_nodes(&obj->vcm.dma_maps) + !!obj->vcm.vmap_res +
		!!vmas;
	seq_buf_printf(s, "mappings %zu\n", count);
	list_for_each_entry(map, &obj->mappings, node) {
		if (n == GEMBUF_DESCRIBE_MAPPINGS)
			break;
		gembuf_describe_mapping(s, map);
		n++;
	}
	list_for_each_entry(dma_map, &obj->vcm.dma_maps, node) {
		if (n == GEMBUF_DESCRIBE_MAPPINGS)
			break;
		gembuf_describe_dma_map(s, dma_map);
		n++;
	}
	if (obj->vcm.vmap_res && n < GEMBUF_DESCRIBE_MAPPINGS) {
		gembuf_describe_vmap(s, &obj->vcm);
		n++;
	}
	/*
	 * The processes': the object's size and the attributes of its pages
	 * there, no address, no IOMMU entries, one user per VMA.
	 */
	attr = drm_gem_vcm_res_attr(&obj->vcm) | VCM_USER;
	if (vmas && n < GEMBUF_DESCRIBE_MAPPINGS)
		seq_buf_printf(s, "mapping %s %s 0x0 %zu 0x%x 0 %d\n",
			       gembuf_mapping_kinds[GEMBUF_MAPPING_USER],
			       gembuf_mapping_kinds[GEMBUF_MAPPING_USER],
			       obj->vcm.base.size, attr, vmas);
	dma_resv_unlock(gem->resv);
	drm_gem_object_put(gem);
	return seq_buf_has_overflowed(s) ? -EOVERFLOW : 0;
}

int gembuf_gem_wait_ioctl(struct drm_device *dev, void *data,
			  struct drm_file *file)
{
	struct drm_gembuf_gem_wait *args = data;
	enum dma_resv_usage usage;
	struct drm_gem_object *gem;
	long timeout;
	long ret;

	if (args->flags & ~GEMBUF_WAIT_READ || args->deadline_ns < 0)
		return -EINVAL;
	gem = drm_gem_object_lookup(file, args->handle);
	if (!gem)
		return -ENOENT;

	usage = args->flags & GEMBUF_WAIT_READ ? DMA_RESV_USAGE_WRITE :
						 DMA_RESV_USAGE_READ;
	timeout = drm_timeout_abs_to_jiffies(args->deadline_ns);
	if (!timeout)
		ret = dma_resv_test_signaled(gem->resv, usage) ? 1 : 0;
	else
		ret = dma_resv_wait_timeout(gem->resv, usage, true, timeout);
	drm_gem_object_put(gem);

	if (ret < 0)
		return ret;
	return ret ? 0 : -ETIME;
}
