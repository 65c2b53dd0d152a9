// SPDX-License-Identifier: GPL-2.0-only
/*
 * gembuf mappings: one reservation, in one gembuf device's VCM, backed by
 * an object's physmem; made on first use, shared by the users of that
 * device and dropped with the last of them.  The kernel's vmap and the
 * processes' CPU mappings are not among them: the GEM VCM helper makes
 * the one and counts the VMAs of the others.
 */

#include <drm/drm_drv.h>
#include <linux/dma-resv.h>
#include <linux/iosys-map.h>
#include <linux/slab.h>

#include "gembuf_drv.h"

/*
 * List a mapping on its object, under its reservation lock.  The helper
 * counts it too: the memory stays where it is while it exists.
 */
static void gembuf_mapping_add(struct gembuf_object *obj,
			       struct gembuf_mapping *map)
{
	dma_resv_assert_held(obj->vcm.base.resv);
	list_add_tail(&map->node, &obj->mappings);
	obj->vcm.map_count++;
	atomic_inc(&gembuf.mappings);
}

/* Unlist and free a mapping with no users, under its object's lock. */
static void gembuf_mapping_del(struct gembuf_object *obj,
			       struct gembuf_mapping *map)
{
	dma_resv_assert_held(obj->vcm.base.resv);
	list_del(&map->node);
	kfree(map);
	obj->vcm.map_count--;
	atomic_dec(&gembuf.mappings);
}

static struct gembuf_mapping *gembuf_mapping_new(struct gembuf_object *obj,
						 struct vcm *vcm,
						 enum gembuf_mapping_kind kind)
{
	struct gembuf_mapping *map;
	struct vcm_res *res;
	int ret;

	ret = drm_gem_vcm_populate(&obj->vcm);
	if (ret)
		return ERR_PTR(ret);
	map = kzalloc(sizeof(*map), GFP_KERNEL);
	if (!map)
		return ERR_PTR(-ENOMEM);
	res = vcm_reserve(vcm, obj->vcm.base.size,
			  drm_gem_vcm_res_attr(&obj->vcm));
	if (IS_ERR(res)) {
		kfree(map);
		return ERR_CAST(res);
	}
	ret = vcm_back(res, obj->vcm.physmem);
	if (ret) {
		vcm_unreserve(res);
		kfree(map);
		return ERR_PTR(ret);
	}
	map->vcm = vcm;
	map->res = res;
	if (kind == GEMBUF_MAPPING_KERNEL)
		map->vaddr = vcm_get_vaddr(res);
	map->kind = kind;
	map->users = 1;
	gembuf_mapping_add(obj, map);
	return map;
}

/*
 * The kernel's mapping of a foreign buffer is the exporter's vmap: its
 * pages, and the cache attributes it chose for them, are the exporter's.
 * The helper's vmap of an import is that, under the import's reservation
 * lock (the dma-buf's), and refuses I/O memory, which the composer's
 * plain loads and stores cannot read.
 */
static struct gembuf_mapping *gembuf_mapping_new_import(struct gembuf_object *obj)
{
	struct gembuf_mapping *map;
	struct iosys_map vmap;
	int ret;

	map = kzalloc(sizeof(*map), GFP_KERNEL);
	if (!map)
		return ERR_PTR(-ENOMEM);
	ret = drm_gem_vcm_vmap(&obj->vcm, &vmap);
	if (ret)
		goto err;
	map->vaddr = vmap.vaddr;
	map->kind = GEMBUF_MAPPING_KERNEL;
	map->users = 1;
	gembuf_mapping_add(obj, map);
	return map;

err:
	kfree(map);
	return ERR_PTR(ret);
}

static void gembuf_mapping_release(struct gembuf_object *obj,
				   struct gembuf_mapping *map)
{
	if (map->res) {
		vcm_unback(map->res);
		vcm_unreserve(map->res);
	} else {
		struct iosys_map vmap = IOSYS_MAP_INIT_VADDR(map->vaddr);

		drm_gem_vcm_vunmap(&obj->vcm, &vmap);
	}
	gembuf_mapping_del(obj, map);
}

/*
 * The kind of mapping a gembuf device's VCM makes.  The engine's DMA
 * addresses are IOVAs when an IOMMU translates for it in its DMA domain,
 * and bus addresses, which may be physical ones, when none does.
 */
static enum gembuf_mapping_kind gembuf_mapping_kind(struct gembuf_device *gdev)
{
	switch (vcm_get_type(gdev->gem_vcm.vcm)) {
	case VCM_DEVICE:
		return GEMBUF_MAPPING_IOMMU;
	case VCM_DMA:
		return gembuf_dma_api_kind(gdev->drm.dev);
	case VCM_ONE_TO_ONE:
		return GEMBUF_MAPPING_ONE_TO_ONE;
	default:
		return GEMBUF_MAPPING_KERNEL;
	}
}

/**
 * gembuf_mapping_get() - the mapping of an object for a gembuf device
 * @obj: the object, of @gdev
 * @gdev: the device
 * @intr: a signal may end the wait for the object's reservation lock:
 *	for an ioctl that can be restarted, not for a commit or a probe
 *
 * Return: the mapping, with a user taken, or an ERR_PTR():
 * -ERESTARTSYS for a signal while waiting for the lock.
 */
struct gembuf_mapping *gembuf_mapping_get(struct gembuf_object *obj,
					  struct gembuf_device *gdev, bool intr)
{
	struct gembuf_mapping *map;

	if (!intr)
		dma_resv_lock(obj->vcm.base.resv, NULL);
	else if (dma_resv_lock_interruptible(obj->vcm.base.resv, NULL))
		return ERR_PTR(-ERESTARTSYS);
	list_for_each_entry(map, &obj->mappings, node) {
		if (map->gdev == gdev) {
			map->users++;
			goto out;
		}
	}
	if (gdev->role == GEMBUF_DISPLAY && obj->vcm.base.import_attach)
		map = gembuf_mapping_new_import(obj);
	else if (obj->vcm.imported && !obj->vcm.physmem)
		/* An import with no DMA addresses to map. */
		map = ERR_PTR(-EINVAL);
	else
		map = gembuf_mapping_new(obj, gdev->gem_vcm.vcm,
					 gembuf_mapping_kind(gdev));
	if (!IS_ERR(map)) {
		/* Its reservation is in the device's VCM: keep that. */
		drm_dev_get(&gdev->drm);
		map->gdev = gdev;
		map->dev = gdev->drm.dev;
	}
out:
	dma_resv_unlock(obj->vcm.base.resv);
	return map;
}

/**
 * gembuf_mapping_put() - drop a user of a mapping
 * @obj: the object the mapping was got for
 * @map: the mapping
 */
void gembuf_mapping_put(struct gembuf_object *obj, struct gembuf_mapping *map)
{
	struct gembuf_device *gdev = NULL;

	dma_resv_lock(obj->vcm.base.resv, NULL);
	if (!--map->users) {
		gdev = map->gdev;
		gembuf_mapping_release(obj, map);
	}
	dma_resv_unlock(obj->vcm.base.resv);
	/* The last reference releases the device: not under the lock. */
	if (gdev)
		drm_dev_put(&gdev->drm);
}
