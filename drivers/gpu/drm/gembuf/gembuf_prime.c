// SPDX-License-Identifier: GPL-2.0-only
/*
 * gembuf PRIME: the dma-buf exporter and importer.
 *
 * Every importer, gembuf's other devices included, gets the object's
 * chunks mapped with the DMA API for its device.  An importing gembuf
 * device knows no exporter, gembuf's other device included: it attaches
 * and uses only what the dma-buf rules allow, the DMA addresses of its
 * attachment and the exporter's vmap, mmap and CPU access calls.  Only a
 * dma-buf a device exported itself comes back as its own object.
 */

#include <drm/drm_drv.h>
#include <drm/drm_gem.h>
#include <drm/drm_prime.h>
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/iommu.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "gembuf_drv.h"

/*
 * The object's chunks as a table for @dev, cut into the segments its DMA
 * parameters and its DMA mapping (a bounce buffer's slots, say) take.
 * Called with the object locked: the memory does not move meanwhile.
 */
static int gembuf_sgt_for_dev(struct gembuf_object *obj, struct device *dev,
			      struct sg_table *sgt)
{
	size_t max = min_t(size_t, dma_get_max_seg_size(dev),
			   dma_max_mapping_size(dev));

	return vcm_phys_to_sgt(obj->vcm.physmem, max,
			       dma_get_seg_boundary(dev), sgt);
}

/*
 * The importer's copy of a mapped table: its entries, pages and DMA
 * addresses alike.  The dma-buf core may scramble the copy it hands out
 * (CONFIG_DMABUF_DEBUG mangles its page links until the unmap), so the
 * exporter keeps the original to sync and unmap with.
 */
static struct sg_table *gembuf_sgt_dup(struct sg_table *src)
{
	struct scatterlist *s, *d;
	struct sg_table *dst;
	unsigned int i;

	dst = kzalloc(sizeof(*dst), GFP_KERNEL);
	if (!dst)
		return NULL;
	if (sg_alloc_table(dst, src->orig_nents, GFP_KERNEL)) {
		kfree(dst);
		return NULL;
	}
	d = dst->sgl;
	for_each_sgtable_sg(src, s, i) {
		sg_set_page(d, sg_page(s), s->length, s->offset);
		sg_dma_address(d) = sg_dma_address(s);
		sg_dma_len(d) = sg_dma_len(s);
#ifdef CONFIG_NEED_SG_DMA_FLAGS
		d->dma_flags = s->dma_flags;
#endif
		d = sg_next(d);
	}
	dst->nents = src->nents;
	return dst;
}

static void gembuf_sgt_free(struct sg_table *sgt)
{
	sg_free_table(sgt);
	kfree(sgt);
}

/**
 * gembuf_dma_api_kind() - what a device's DMA API addresses are
 * @dev: a device that maps through the DMA API (an importer, an engine)
 *
 * Return: %GEMBUF_MAPPING_IOMMU for IOVAs in a DMA domain,
 * %GEMBUF_MAPPING_DMA_API otherwise.
 */
enum gembuf_mapping_kind gembuf_dma_api_kind(struct device *dev)
{
	struct iommu_domain *domain = iommu_get_domain_for_dev(dev);

	return domain && iommu_is_dma_domain(domain) ? GEMBUF_MAPPING_IOMMU :
						       GEMBUF_MAPPING_DMA_API;
}

static struct sg_table *gembuf_map_dma_buf(struct dma_buf_attachment *attach,
					   enum dma_data_direction dir)
{
	struct drm_gem_object *gem = attach->dmabuf->priv;
	struct gembuf_object *obj = to_gembuf_object(gem);
	struct sg_table *sgt, *out = NULL;
	struct gembuf_mapping *map;
	int ret;

	/*
	 * The DMA API's streaming mappings assume the CPU maps the memory
	 * cacheable (a snooping device would read stale lines of the linear
	 * alias of write-combined memory): such an object is for the CPU
	 * and for gembuf's own devices.
	 */
	if (obj->vcm.map_wc)
		return ERR_PTR(-EINVAL);

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	map = kzalloc(sizeof(*map), GFP_KERNEL);
	if (!sgt || !map) {
		ret = -ENOMEM;
		goto err;
	}
	mutex_lock(&obj->vcm.lock);
	ret = drm_gem_vcm_place_map(&obj->vcm, attach->dev);
	if (!ret)
		ret = drm_gem_vcm_populate(&obj->vcm);
	if (!ret)
		ret = gembuf_sgt_for_dev(obj, attach->dev, sgt);
	if (ret)
		goto err_unlock;
	/*
	 * One page may be mapped for several devices: the CPU sync is ours,
	 * now and around CPU access, not the mapping's (which DMA-API debug
	 * would report as overlapping).
	 */
	ret = dma_map_sgtable(attach->dev, sgt, dir, DMA_ATTR_SKIP_CPU_SYNC);
	if (ret)
		goto err_table;
	out = gembuf_sgt_dup(sgt);
	if (!out) {
		ret = -ENOMEM;
		goto err_unmap;
	}
	dma_sync_sgtable_for_device(attach->dev, sgt, dir);

	map->dev = attach->dev;
	map->sgt = sgt;
	map->dir = dir;
	map->kind = gembuf_dma_api_kind(attach->dev);
	map->users = 1;
	gembuf_mapping_add(obj, map);
	mutex_unlock(&obj->vcm.lock);
	attach->priv = map;
	return out;

err_unmap:
	dma_unmap_sgtable(attach->dev, sgt, dir, DMA_ATTR_SKIP_CPU_SYNC);
err_table:
	sg_free_table(sgt);
err_unlock:
	mutex_unlock(&obj->vcm.lock);
err:
	kfree(map);
	kfree(sgt);
	return ERR_PTR(ret);
}

static void gembuf_unmap_dma_buf(struct dma_buf_attachment *attach,
				 struct sg_table *sgt,
				 enum dma_data_direction dir)
{
	struct drm_gem_object *gem = attach->dmabuf->priv;
	struct gembuf_object *obj = to_gembuf_object(gem);
	struct gembuf_mapping *map = attach->priv;

	attach->priv = NULL;
	mutex_lock(&obj->vcm.lock);
	/* What the importer's device wrote, for the CPU (and out of bounce). */
	dma_unmap_sgtable(attach->dev, map->sgt, dir, 0);
	gembuf_sgt_free(map->sgt);
	gembuf_mapping_del(obj, map);
	mutex_unlock(&obj->vcm.lock);
	gembuf_sgt_free(sgt);
}

/*
 * Every device attached counts among the object's users, known by its
 * struct device only; the memory is chosen for what each needs from its
 * first mapping (the GEM VCM helper's placement), and one mapping after
 * the memory is mapped elsewhere gets -EBUSY if its device cannot use it.
 */
static int gembuf_dmabuf_attach(struct dma_buf *dmabuf,
				struct dma_buf_attachment *attach)
{
	struct gembuf_object *obj = to_gembuf_object(dmabuf->priv);
	int ret;

	mutex_lock(&obj->vcm.lock);
	ret = drm_gem_vcm_place_user(&obj->vcm, attach->dev, NULL);
	mutex_unlock(&obj->vcm.lock);
	return ret;
}

static void gembuf_dmabuf_detach(struct dma_buf *dmabuf,
				 struct dma_buf_attachment *attach)
{
	struct gembuf_object *obj = to_gembuf_object(dmabuf->priv);

	mutex_lock(&obj->vcm.lock);
	drm_gem_vcm_place_unuse(&obj->vcm, attach->dev);
	mutex_unlock(&obj->vcm.lock);
}

/*
 * Around CPU access, sync the importers' DMA API mappings, from the
 * exporter's own copy of each table.  Mappings through VCM share the
 * object's cache class and need nothing; the engine syncs its own
 * around each job.
 */
static void gembuf_sync_dma_api(struct dma_buf *dmabuf, bool for_cpu)
{
	struct gembuf_object *obj = to_gembuf_object(dmabuf->priv);
	struct gembuf_mapping *map;

	mutex_lock(&obj->vcm.lock);
	list_for_each_entry(map, &obj->mappings, node) {
		if (!map->sgt)
			continue;
		/* In the mapping's direction, whatever the CPU's access. */
		if (for_cpu)
			dma_sync_sgtable_for_cpu(map->dev, map->sgt, map->dir);
		else
			dma_sync_sgtable_for_device(map->dev, map->sgt, map->dir);
	}
	mutex_unlock(&obj->vcm.lock);
}

static int gembuf_begin_cpu_access(struct dma_buf *dmabuf,
				   enum dma_data_direction dir)
{
	gembuf_sync_dma_api(dmabuf, true);
	return 0;
}

static int gembuf_end_cpu_access(struct dma_buf *dmabuf,
				 enum dma_data_direction dir)
{
	gembuf_sync_dma_api(dmabuf, false);
	return 0;
}

/*
 * drm_gem_prime_mmap() adds the object's fake offset to the VMA's page
 * offset, and gembuf's mmap and fault handlers take it off again.  The
 * offset is made on first use: make it before, so that all of them read
 * the same one even when a client asks for it at the same time.
 */
static int gembuf_dmabuf_mmap(struct dma_buf *dma_buf,
			      struct vm_area_struct *vma)
{
	int ret = drm_gem_create_mmap_offset(dma_buf->priv);

	return ret ?: drm_gem_dmabuf_mmap(dma_buf, vma);
}

static const struct dma_buf_ops gembuf_dmabuf_ops = {
	.cache_sgt_mapping = true,
	.attach = gembuf_dmabuf_attach,
	.detach = gembuf_dmabuf_detach,
	.map_dma_buf = gembuf_map_dma_buf,
	.unmap_dma_buf = gembuf_unmap_dma_buf,
	.release = drm_gem_dmabuf_release,
	.begin_cpu_access = gembuf_begin_cpu_access,
	.end_cpu_access = gembuf_end_cpu_access,
	.mmap = gembuf_dmabuf_mmap,
	.vmap = drm_gem_dmabuf_vmap,
	.vunmap = drm_gem_dmabuf_vunmap,
};

/**
 * gembuf_gem_prime_export() - export an object as a dma-buf
 * @gem: the object
 * @flags: the dma-buf file flags
 *
 * Return: the dma-buf or an ERR_PTR().
 */
struct dma_buf *gembuf_gem_prime_export(struct drm_gem_object *gem, int flags)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);

	exp_info.ops = &gembuf_dmabuf_ops;
	exp_info.size = gem->size;
	exp_info.flags = flags;
	exp_info.priv = gem;
	exp_info.resv = gem->resv;
	return drm_gem_dmabuf_export(gem->dev, &exp_info);
}

/*
 * Make the object of @dev's import through @attach, with the exporter's
 * DMA addresses @sgt (NULL for an import that maps nothing) and what an
 * engine maps of them, @pm (the object's, or freed on failure), and list
 * it for gembuf_prime_revoke_imports().  A no-map import is complete here
 * (@import_attach and the exporter's reservation object); DRM core
 * completes one of gembuf_gem_prime_import_sg_table().
 */
static struct drm_gem_object *gembuf_import_new(struct drm_device *dev,
						struct dma_buf_attachment *attach,
						struct sg_table *sgt,
						struct vcm_physmem *pm)
{
	struct gembuf_device *gdev = to_gembuf_device(dev);
	struct drm_gem_vcm_object *vobj;
	struct drm_gem_object *gem;
	bool revoked;

	vobj = drm_gem_vcm_create_import(&gdev->gem_vcm,
					 attach->dmabuf->size);
	if (IS_ERR(vobj)) {
		if (pm)
			vcm_phys_free(pm);
		return ERR_CAST(vobj);
	}
	gem = &vobj->base;
	vobj->physmem = pm;
	vobj->sgt = sgt;
	to_gembuf_object(gem)->attach = attach;
	if (!sgt) {
		gem->import_attach = attach;
		gem->resv = attach->dmabuf->resv;
	}
	mutex_lock(&gdev->imports_lock);
	revoked = gdev->imports_revoked;
	if (!revoked)
		list_add(&to_gembuf_object(gem)->import_node, &gdev->imports);
	mutex_unlock(&gdev->imports_lock);
	if (revoked) {
		/* The caller gives the attachment back. */
		vobj->sgt = NULL;
		to_gembuf_object(gem)->attach = NULL;
		gem->import_attach = NULL;
		drm_gem_object_put(gem);
		return ERR_PTR(-ENODEV);
	}
	return gem;
}

/**
 * gembuf_gem_prime_import_sg_table() - wrap a foreign dma-buf
 * @dev: the importing gembuf device
 * @attach: @dev's attachment
 * @sgt: its mapping
 *
 * The importer keeps to what the dma-buf rules give it: the DMA addresses
 * of its own device's attachment.  The engine, which stays on the DMA API,
 * has its DMA VCM wrap those addresses and uses them as they are; a
 * display_dma display scans out the one range they must be.  (The CPU
 * display maps nothing: gembuf_prime_import_no_map().)  Users map the
 * dma-buf itself: DRM gives an import no map offset.
 *
 * Return: the object or an ERR_PTR().
 */
struct drm_gem_object *
gembuf_gem_prime_import_sg_table(struct drm_device *dev,
				 struct dma_buf_attachment *attach,
				 struct sg_table *sgt)
{
	struct gembuf_device *gdev = to_gembuf_device(dev);
	struct drm_gem_vcm_context *ctx = &gdev->gem_vcm;
	struct vcm_physmem *pm = NULL;

	/*
	 * A display that scans out from physical addresses (display_dma)
	 * takes one DMA range, as drm_gem_dma_prime_import_sg_table() does.
	 */
	if (ctx->kind == DRM_GEM_VCM_ONE_TO_ONE &&
	    drm_prime_get_contiguous_size(sgt) < attach->dmabuf->size)
		return ERR_PTR(-EINVAL);
	if (gdev->role == GEMBUF_ENGINE) {
		pm = vcm_phys_from_dma(ctx->avcm, sgt);
		if (IS_ERR(pm))
			return ERR_CAST(pm);
		if (vcm_get_physmem_len(pm) != attach->dmabuf->size) {
			vcm_phys_free(pm);
			return ERR_PTR(-EINVAL);
		}
	}
	return gembuf_import_new(dev, attach, sgt, pm);
}

/**
 * gembuf_prime_forget_import() - take a foreign import off its device's list
 * @obj: the import, being freed
 */
void gembuf_prime_forget_import(struct gembuf_object *obj)
{
	struct gembuf_device *gdev = to_gembuf_device(obj->vcm.base.dev);

	mutex_lock(&gdev->imports_lock);
	list_del_init(&obj->import_node);
	mutex_unlock(&gdev->imports_lock);
}

/**
 * gembuf_prime_revoke_imports() - give back the attachments of a device
 * that goes away
 * @gdev: the device, unplugged, its own mappings gone
 *
 * An attachment is for its device: the exporter must unmap it (at the
 * detach, for one that caches its mapping) while the device's DMA setup
 * still exists, not when the last handle of the import is closed, which
 * may come after the device was removed.  The imports stay as objects:
 * their handles and the dma-buf reference are still the client's.  Once
 * unplugged, nothing reaches an import but its release (every ioctl and
 * mmap of the device fails first), so @base.import_attach can be cleared
 * here.  An import still between gembuf_gem_prime_import_sg_table() and
 * DRM setting its @base.import_attach keeps its attachment until freed.
 */
void gembuf_prime_revoke_imports(struct gembuf_device *gdev)
{
	struct gembuf_object *obj, *next;
	LIST_HEAD(revoke);

	/* Collect the live ones; the exporter is called without the list lock. */
	mutex_lock(&gdev->imports_lock);
	gdev->imports_revoked = true;
	list_for_each_entry_safe(obj, next, &gdev->imports, import_node) {
		if (kref_get_unless_zero(&obj->vcm.base.refcount))
			list_move(&obj->import_node, &revoke);
	}
	mutex_unlock(&gdev->imports_lock);

	list_for_each_entry_safe(obj, next, &revoke, import_node) {
		struct dma_buf_attachment *attach = obj->attach;
		struct drm_gem_vcm_object *vobj = &obj->vcm;

		mutex_lock(&vobj->lock);
		if (READ_ONCE(vobj->base.import_attach) == attach && !obj->revoked) {
			obj->revoked = attach->dmabuf;
			if (vobj->sgt)
				dma_buf_unmap_attachment_unlocked(attach, vobj->sgt,
								  DMA_BIDIRECTIONAL);
			WRITE_ONCE(vobj->base.import_attach, NULL);
			dma_buf_detach(obj->revoked, attach);
			WRITE_ONCE(vobj->sgt, NULL);
		}
		mutex_unlock(&vobj->lock);
		mutex_lock(&gdev->imports_lock);
		list_del_init(&obj->import_node);
		mutex_unlock(&gdev->imports_lock);
		drm_gem_object_put(&vobj->base);
	}
}

/*
 * The display composes with the CPU, through the exporter's vmap and CPU
 * access: it attaches, so that the exporter knows its importers and can
 * place the memory for them, but does not map its attachment, as a
 * device that never DMAs has no DMA addresses to ask for; an exporter
 * that places memory for the DMA of its importers, as gembuf does, asks
 * nothing of the memory for one that never maps.  (A dynamic exporter
 * still maps at attach for it, as for any static importer in 6.12.)
 * With display_dma it scans out by DMA, and imports as the engines do.
 */
static struct drm_gem_object *gembuf_prime_import_no_map(struct drm_device *dev,
							 struct dma_buf *dma_buf)
{
	struct dma_buf_attachment *attach;
	struct drm_gem_object *gem;

	attach = dma_buf_attach(dma_buf, dev->dev);
	if (IS_ERR(attach))
		return ERR_CAST(attach);
	get_dma_buf(dma_buf);
	gem = gembuf_import_new(dev, attach, NULL, NULL);
	if (IS_ERR(gem)) {
		dma_buf_detach(dma_buf, attach);
		dma_buf_put(dma_buf);
	}
	return gem;
}

/**
 * gembuf_prime_exporter() - the object an import of gembuf's dma-buf is of
 * @gem: an object
 *
 * gembuf's devices share objects only through dma-buf attachments, as
 * any other importer does; debugfs and the display's write-back still
 * tell memory of gembuf's own, as drm_gem_prime_import_dev() tells its
 * own dma-bufs, by their operations.
 *
 * Context: for an import on an engine, with its lock held: the engine may
 * go away and give its attachment back (gembuf_prime_revoke_imports()).
 * Return: the exporter's object, which the import's dma-buf reference
 * keeps, if @gem imports a dma-buf gembuf exported; NULL otherwise.
 */
struct gembuf_object *gembuf_prime_exporter(struct drm_gem_object *gem)
{
	struct gembuf_object *obj = to_gembuf_object(gem);

	if (!obj->vcm.imported)
		return NULL;
	if (obj->revoked)
		return gembuf_dmabuf_object(obj->revoked);
	return obj->attach ? gembuf_dmabuf_object(obj->attach->dmabuf) : NULL;
}

/**
 * gembuf_prime_sync_import() - sync gembuf's memory around an engine's
 * DMA through an import of it
 * @obj: an object an engine job reads or writes
 * @for_cpu: after the DMA (true) or before it
 *
 * An importer's DMA addresses come with the exporter's sync at mapping
 * time, and around the CPU access calls of the dma-buf.  The owner of
 * gembuf's memory reads and writes it with the CPU without those calls
 * (the display's composer, a process's mapping of the object), so for an
 * import of its own dma-buf gembuf syncs the attachment's DMA API
 * mapping around each job, as it syncs its objects' own mappings.
 * Nothing for any other object.
 *
 * Context: the job's run.  The engine's unplug gives the attachment back
 * only after drm_dev_unplug(), which waits for this to finish.
 */
void gembuf_prime_sync_import(struct gembuf_object *obj, bool for_cpu)
{
	struct gembuf_mapping *map;
	int idx;

	if (!obj->vcm.imported || !drm_dev_enter(obj->vcm.base.dev, &idx))
		return;
	map = gembuf_prime_exporter(&obj->vcm.base) && obj->vcm.sgt ?
	      obj->attach->priv : NULL;
	if (map && map->sgt && for_cpu)
		dma_sync_sgtable_for_cpu(map->dev, map->sgt, map->dir);
	else if (map && map->sgt)
		dma_sync_sgtable_for_device(map->dev, map->sgt, map->dir);
	drm_dev_exit(idx);
}

/**
 * gembuf_dmabuf_object() - the object of a dma-buf gembuf exported
 * @dmabuf: a dma-buf, or NULL
 *
 * Return: its object, which it holds, or NULL for NULL or another
 * exporter's dma-buf.
 */
struct gembuf_object *gembuf_dmabuf_object(const struct dma_buf *dmabuf)
{
	if (!dmabuf || dmabuf->ops != &gembuf_dmabuf_ops)
		return NULL;
	return to_gembuf_object(dmabuf->priv);
}

/**
 * gembuf_gem_prime_import() - import a dma-buf
 * @dev: the importing gembuf device
 * @dma_buf: the dma-buf
 *
 * Return: the object: the same one for a dma-buf @dev exported; else a
 * new object for @dev's own attachment, whoever exported it, gembuf's
 * other devices included: mapped for a device that DMAs
 * (gembuf_gem_prime_import_sg_table()), only attached for the CPU
 * display; or an ERR_PTR().
 */
struct drm_gem_object *gembuf_gem_prime_import(struct drm_device *dev,
					       struct dma_buf *dma_buf)
{
	struct drm_gem_object *gem;

	/* Back on the device that made it: itself. */
	if (dma_buf->ops == &gembuf_dmabuf_ops) {
		gem = dma_buf->priv;
		if (gem->dev == dev) {
			drm_gem_object_get(gem);
			return gem;
		}
	}
	/* Each device attaches for itself: its own DMA addresses. */
	if (to_gembuf_device(dev)->gem_vcm.kind == DRM_GEM_VCM_CPU)
		return gembuf_prime_import_no_map(dev, dma_buf);
	return drm_gem_prime_import_dev(dev, dma_buf, dev->dev);
}
