// SPDX-License-Identifier: GPL-2.0-only
/*
 * gembuf mappings: one reservation, in one device's (or one process's)
 * VCM, backed by an object's physmem; made on first use, shared by the
 * users of that device and dropped with the last of them.
 */

#include <drm/drm_drv.h>
#include <linux/dma-buf.h>
#include <linux/hashtable.h>
#include <linux/iommu.h>
#include <linux/iosys-map.h>
#include <linux/mm.h>
#include <linux/rbtree.h>
#include <linux/slab.h>

#include "gembuf_drv.h"

/**
 * struct gembuf_user_vcm - the user VCM of one process
 * @node: link in &gembuf.user_vcms, hashed by @mm
 * @mm: the process's address space
 * @vcm: its VCM
 * @users: VMAs mapping objects in it
 */
struct gembuf_user_vcm {
	struct hlist_node node;
	struct mm_struct *mm;
	struct vcm *vcm;
	unsigned int users;
};

/* User mappings are ordered by their VMA's address in the kernel. */
static bool gembuf_vma_less(struct rb_node *a, const struct rb_node *b)
{
	return (unsigned long)rb_entry(a, struct gembuf_mapping, vma_node)->vma <
	       (unsigned long)rb_entry(b, struct gembuf_mapping, vma_node)->vma;
}

static int gembuf_vma_cmp(const void *vma, const struct rb_node *node)
{
	unsigned long key = (unsigned long)vma;
	unsigned long v = (unsigned long)rb_entry(node, struct gembuf_mapping,
						  vma_node)->vma;

	return key < v ? -1 : key > v;
}

/**
 * gembuf_mapping_add() - list a mapping on its object
 * @obj: the object, locked
 * @map: the mapping; a user mapping with its @vma set
 */
void gembuf_mapping_add(struct gembuf_object *obj, struct gembuf_mapping *map)
{
	if (map->kind == GEMBUF_MAPPING_USER)
		rb_add(&map->vma_node, &obj->user_maps, gembuf_vma_less);
	else
		list_add_tail(&map->node, &obj->mappings);
	atomic_inc(&gembuf.mappings);
}

/**
 * gembuf_mapping_del() - unlist and free a mapping
 * @obj: the object, locked
 * @map: the mapping, with no users
 */
void gembuf_mapping_del(struct gembuf_object *obj, struct gembuf_mapping *map)
{
	if (map->kind == GEMBUF_MAPPING_USER)
		rb_erase(&map->vma_node, &obj->user_maps);
	else
		list_del(&map->node);
	kfree(map);
	atomic_dec(&gembuf.mappings);
}

/**
 * gembuf_object_mapped() - whether anything maps an object's memory
 * @obj: the object, locked
 *
 * Return: true while a device, the kernel or a process maps it.
 */
bool gembuf_object_mapped(const struct gembuf_object *obj)
{
	return !list_empty(&obj->mappings) || !RB_EMPTY_ROOT(&obj->user_maps);
}

static struct gembuf_mapping *gembuf_mapping_new(struct gembuf_object *obj,
						 struct vcm *vcm,
						 enum gembuf_mapping_kind kind)
{
	struct gembuf_mapping *map;
	struct vcm_res *res;
	int ret;

	ret = gembuf_place_backing(obj);
	if (ret)
		return ERR_PTR(ret);
	map = kzalloc(sizeof(*map), GFP_KERNEL);
	if (!map)
		return ERR_PTR(-ENOMEM);
	res = vcm_reserve(vcm, obj->base.size, gembuf_res_attr(obj));
	if (IS_ERR(res)) {
		kfree(map);
		return ERR_CAST(res);
	}
	ret = vcm_back(res, obj->physmem);
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
 */
static struct gembuf_mapping *gembuf_mapping_new_import(struct gembuf_object *obj)
{
	struct dma_buf *dmabuf = obj->base.import_attach->dmabuf;
	struct gembuf_mapping *map;
	struct iosys_map vmap;
	int ret;

	map = kzalloc(sizeof(*map), GFP_KERNEL);
	if (!map)
		return ERR_PTR(-ENOMEM);
	ret = dma_buf_vmap_unlocked(dmabuf, &vmap);
	if (ret)
		goto err;
	/* The composer reads and writes with plain loads and stores. */
	if (vmap.is_iomem) {
		dma_buf_vunmap_unlocked(dmabuf, &vmap);
		ret = -EOPNOTSUPP;
		goto err;
	}
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

		dma_buf_vunmap_unlocked(obj->base.import_attach->dmabuf, &vmap);
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
	struct iommu_domain *domain;

	switch (vcm_get_type(gdev->vcm)) {
	case VCM_DEVICE:
		return GEMBUF_MAPPING_IOMMU;
	case VCM_DMA:
		domain = iommu_get_domain_for_dev(gdev->drm.dev);
		if (domain && iommu_is_dma_domain(domain))
			return GEMBUF_MAPPING_IOMMU;
		return GEMBUF_MAPPING_DMA_API;
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
 *
 * Return: the mapping, with a user taken, or an ERR_PTR().
 */
struct gembuf_mapping *gembuf_mapping_get(struct gembuf_object *obj,
					  struct gembuf_device *gdev)
{
	struct gembuf_mapping *map;

	mutex_lock(&obj->lock);
	list_for_each_entry(map, &obj->mappings, node) {
		if (map->gdev == gdev) {
			map->users++;
			goto out;
		}
	}
	if (gdev->role == GEMBUF_DISPLAY && obj->base.import_attach)
		map = gembuf_mapping_new_import(obj);
	else if (obj->foreign && !obj->physmem)
		/* An import with no DMA addresses to map. */
		map = ERR_PTR(-EINVAL);
	else
		map = gembuf_mapping_new(obj, gdev->vcm, gembuf_mapping_kind(gdev));
	if (!IS_ERR(map)) {
		/* Its reservation is in the device's VCM: keep that. */
		drm_dev_get(&gdev->drm);
		map->gdev = gdev;
		map->dev = gdev->drm.dev;
	}
out:
	mutex_unlock(&obj->lock);
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

	mutex_lock(&obj->lock);
	if (!--map->users) {
		gdev = map->gdev;
		gembuf_mapping_release(obj, map);
	}
	mutex_unlock(&obj->lock);
	/* The last reference releases the device: not under the lock. */
	if (gdev)
		drm_dev_put(&gdev->drm);
}

/**
 * gembuf_vmap() - the kernel's mapping of an object
 * @obj: the object
 *
 * Return: the kernel address, or an ERR_PTR().
 */
void *gembuf_vmap(struct gembuf_object *obj)
{
	struct gembuf_mapping *map;
	void *vaddr;

	mutex_lock(&obj->lock);
	map = obj->vmap;
	if (map) {
		map->users++;
	} else {
		if (obj->base.import_attach)
			map = gembuf_mapping_new_import(obj);
		else
			map = gembuf_mapping_new(obj, vcm_kernel(),
						 GEMBUF_MAPPING_KERNEL);
		if (!IS_ERR(map))
			obj->vmap = map;
	}
	vaddr = IS_ERR(map) ? ERR_CAST(map) : map->vaddr;
	mutex_unlock(&obj->lock);
	return vaddr;
}

/**
 * gembuf_vunmap() - drop a user of the kernel's mapping
 * @obj: the object
 */
void gembuf_vunmap(struct gembuf_object *obj)
{
	mutex_lock(&obj->lock);
	if (!WARN_ON(!obj->vmap) && !--obj->vmap->users) {
		gembuf_mapping_release(obj, obj->vmap);
		obj->vmap = NULL;
	}
	mutex_unlock(&obj->lock);
}

static struct gembuf_user_vcm *gembuf_user_vcm_get(struct mm_struct *mm)
{
	struct gembuf_user_vcm *uvcm;

	mutex_lock(&gembuf.lock);
	hash_for_each_possible(gembuf.user_vcms, uvcm, node, (unsigned long)mm) {
		if (uvcm->mm == mm) {
			uvcm->users++;
			goto out;
		}
	}
	uvcm = ERR_PTR(-ENOMEM);
	if (mm != current->mm)
		goto out;
	uvcm = kzalloc(sizeof(*uvcm), GFP_KERNEL);
	if (!uvcm) {
		uvcm = ERR_PTR(-ENOMEM);
		goto out;
	}
	uvcm->vcm = vcm_create_from_prebuilt(VCM_PREBUILT_USER);
	if (IS_ERR(uvcm->vcm)) {
		struct vcm *err = uvcm->vcm;

		kfree(uvcm);
		uvcm = ERR_CAST(err);
		goto out;
	}
	uvcm->mm = mm;
	uvcm->users = 1;
	hash_add(gembuf.user_vcms, &uvcm->node, (unsigned long)mm);
out:
	mutex_unlock(&gembuf.lock);
	return uvcm;
}

static void gembuf_user_vcm_put(struct gembuf_user_vcm *uvcm)
{
	mutex_lock(&gembuf.lock);
	if (!--uvcm->users) {
		hash_del(&uvcm->node);
		vcm_free(uvcm->vcm);
		kfree(uvcm);
	}
	mutex_unlock(&gembuf.lock);
}

/**
 * gembuf_user_vcms_fini() - check that no process maps objects any more
 */
void gembuf_user_vcms_fini(void)
{
	WARN_ON(!hash_empty(gembuf.user_vcms));
}

/**
 * gembuf_mapping_user() - map an object into a VMA, from ->mmap
 * @obj: the object
 * @vma: the VMA, with the mmap lock held and its vm_pgoff the page of
 *	the object it starts at
 *
 * Return: 0 or a negative errno.
 */
int gembuf_mapping_user(struct gembuf_object *obj, struct vm_area_struct *vma)
{
	struct gembuf_user_vcm *uvcm;
	struct gembuf_mapping *map;
	struct vcm_res *res;
	int ret;

	if (vma->vm_pgoff > obj->base.size >> PAGE_SHIFT ||
	    vma_pages(vma) > (obj->base.size >> PAGE_SHIFT) - vma->vm_pgoff)
		return -EINVAL;
	uvcm = gembuf_user_vcm_get(vma->vm_mm);
	if (IS_ERR(uvcm))
		return PTR_ERR(uvcm);

	map = kzalloc(sizeof(*map), GFP_KERNEL);
	if (!map) {
		ret = -ENOMEM;
		goto err_vcm;
	}
	res = vcm_reserve_vma(uvcm->vcm, vma, gembuf_res_attr(obj));
	if (IS_ERR(res)) {
		ret = PTR_ERR(res);
		goto err_map;
	}
	/* The memory is allocated and stays put while it is backed. */
	mutex_lock(&obj->lock);
	ret = gembuf_place_backing(obj);
	if (!ret)
		ret = vcm_back(res, obj->physmem);
	if (ret)
		goto err_res;

	map->vcm = uvcm->vcm;
	map->uvcm = uvcm;
	map->res = res;
	map->vma = vma;
	map->kind = GEMBUF_MAPPING_USER;
	map->users = 1;
	gembuf_mapping_add(obj, map);
	mutex_unlock(&obj->lock);
	return 0;

err_res:
	mutex_unlock(&obj->lock);
	vcm_unreserve(res);
err_map:
	kfree(map);
err_vcm:
	gembuf_user_vcm_put(uvcm);
	return ret;
}

/**
 * gembuf_mapping_user_close() - drop the mapping of a VMA being closed
 * @obj: the object
 * @vma: the VMA
 */
void gembuf_mapping_user_close(struct gembuf_object *obj,
			       struct vm_area_struct *vma)
{
	struct gembuf_mapping *found = NULL;
	struct rb_node *node;

	mutex_lock(&obj->lock);
	/* None for a copy of the VMA that mremap() is undoing. */
	node = rb_find(vma, &obj->user_maps, gembuf_vma_cmp);
	if (node)
		found = rb_entry(node, struct gembuf_mapping, vma_node);
	if (found) {
		struct gembuf_user_vcm *uvcm = found->uvcm;

		gembuf_mapping_release(obj, found);
		mutex_unlock(&obj->lock);
		gembuf_user_vcm_put(uvcm);
		return;
	}
	mutex_unlock(&obj->lock);
}
