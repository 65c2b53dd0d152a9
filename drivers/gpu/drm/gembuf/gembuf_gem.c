// SPDX-License-Identifier: GPL-2.0-only
/*
 * gembuf objects: creation on VCM physical memory, CPU mappings (the
 * kernel's through its VCM, processes' by page faults), and the object
 * ioctls.
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
#include <linux/iosys-map.h>
#include <linux/log2.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "gembuf_drv.h"

/**
 * gembuf_res_attr() - reservation attributes of an object's mappings
 * @obj: the object
 *
 * Return: read-write access with the object's cache policy, which every
 * mapping of the object shares (see VCM's cache policy).
 */
u32 gembuf_res_attr(const struct gembuf_object *obj)
{
	static const u32 policy[] = {
		[GEMBUF_CACHE_WB] = VCM_WB_WA,
		[GEMBUF_CACHE_WC] = VCM_WC,
	};

	return VCM_READ | VCM_WRITE | policy[obj->cache];
}

static void gembuf_gem_free(struct drm_gem_object *gem)
{
	struct gembuf_object *obj = to_gembuf_object(gem);

	/* First: a device going away must not find it any more. */
	if (obj->attach)
		gembuf_prime_forget_import(obj);
	if (obj->engine_map)
		gembuf_mapping_put(obj, obj->engine_map);
	gembuf_job_forget(obj);
	if (!list_empty(&obj->list_node)) {
		mutex_lock(&gembuf.objects_lock);
		list_del(&obj->list_node);
		mutex_unlock(&gembuf.objects_lock);
	}
	WARN_ON(gembuf_object_mapped(obj));
	/* No mapping is left to keep it busy. */
	if (obj->physmem)
		WARN_ON(vcm_phys_free(obj->physmem));
	gembuf_place_fini(obj);
	mem_cgroup_put(obj->memcg);
	atomic_dec(&gembuf.objects);
	if (gem->import_attach)
		drm_prime_gem_destroy(gem, obj->sgt);
	else if (obj->revoked)
		/* The device went away and gave its attachment back. */
		dma_buf_put(obj->revoked);
	drm_gem_object_release(gem);
	mutex_destroy(&obj->lock);
	drm_dev_put(gem->dev);
	kfree(obj);
}

/* drm_gem_vmap() holds the reservation lock, a foreign buffer's too. */
static int gembuf_gem_vmap(struct drm_gem_object *gem, struct iosys_map *map)
{
	void *vaddr;

	if (gem->import_attach)
		return dma_buf_vmap(gem->import_attach->dmabuf, map);
	vaddr = gembuf_vmap(to_gembuf_object(gem));

	if (IS_ERR(vaddr))
		return PTR_ERR(vaddr);
	iosys_map_set_vaddr(map, vaddr);
	return 0;
}

static void gembuf_gem_vunmap(struct drm_gem_object *gem, struct iosys_map *map)
{
	if (gem->import_attach)
		dma_buf_vunmap(gem->import_attach->dmabuf, map);
	else
		gembuf_vunmap(to_gembuf_object(gem));
}

/*
 * The page of the object a VMA's page offset names.  Both mmap paths
 * leave the fake offset in vm_pgoff (drm_vma_node_unmap() finds the VMAs
 * by it): the GEM one as DRM looked it up, exactly the object's start,
 * and the dma-buf one as drm_gem_prime_mmap() added it to the page the
 * client asked for.  The part of a split VMA that starts later has it
 * plus the pages it starts later by, and a moved VMA keeps it as it is.
 */
static pgoff_t gembuf_vma_page(struct drm_gem_object *gem, pgoff_t pgoff)
{
	return pgoff - drm_vma_node_start(&gem->vma_node);
}

/*
 * VCM writes a physmem's linear-map alias back and invalidates it before
 * the memory is first mapped non-cacheable, and again before a copy from
 * it after that (docs/vcm.rst, "Cache policy"): what was written through
 * the alias (the zeroing of new memory) must neither shadow nor be
 * evicted over what a write-combined mapping writes.  Processes' pages go
 * in without VCM, so when a write-combined object is first mapped by a
 * process, a reservation of the kernel's is backed with the memory,
 * write-combined, for a moment: VCM does the maintenance and marks the
 * physmem for vcm_phys_copy().  No mapping of the object is cacheable
 * (every one has its cache policy), so that holds until the memory
 * moves (gembuf_place_move()).
 */
static int gembuf_prepare_wc(struct gembuf_object *obj)
{
	struct vcm_res *res;
	int ret;

	lockdep_assert_held(&obj->lock);
	if (obj->cache != GEMBUF_CACHE_WC || obj->wc_clean)
		return 0;
	res = vcm_reserve(vcm_kernel(), obj->base.size, gembuf_res_attr(obj));
	if (IS_ERR(res))
		return PTR_ERR(res);
	ret = vcm_back(res, obj->physmem);
	if (!ret)
		vcm_unback(res);
	vcm_unreserve(res);
	obj->wc_clean = !ret;
	return ret;
}

/*
 * The memory is allocated here if it is not yet, where a failure is an
 * errno for mmap() rather than a fault that could only be retried; the
 * pages go in at the first touch of each, from gembuf_vm_fault().  The
 * VMA is counted, so that the memory does not move under it
 * (gembuf_object_mapped()).
 */
static int gembuf_gem_mmap(struct drm_gem_object *gem, struct vm_area_struct *vma)
{
	struct gembuf_object *obj = to_gembuf_object(gem);
	pgoff_t npages = gem->size >> PAGE_SHIFT, first;
	int ret;

	/* Pages go in with vmf_insert_pfn(), which cannot do copy-on-write. */
	if (is_cow_mapping(vma->vm_flags))
		return -EINVAL;

	/*
	 * DRM gives no map offset for an import (drm_gem_dumb_map_offset()):
	 * a foreign buffer is mapped through its dma-buf, by its exporter.
	 * One the device gave back when it went away has no pages either.
	 */
	if (gem->import_attach || obj->foreign)
		return -EINVAL;

	/*
	 * The offset is made on first use, before either path can run
	 * (gembuf_dmabuf_mmap() for the dma-buf's).  DRM checks the size of
	 * a GEM mapping and the dma-buf core that of a dma-buf's; the fault
	 * handler counts on it: check here as well.
	 */
	if (vma->vm_pgoff < drm_vma_node_start(&gem->vma_node))
		return -EINVAL;
	first = gembuf_vma_page(gem, vma->vm_pgoff);
	if (first > npages || vma_pages(vma) > npages - first)
		return -EINVAL;

	/*
	 * No VM_DONTCOPY, ->may_split or ->mremap: a fork, a split (a
	 * partial munmap() or mprotect()) or a move of the VMA calls
	 * ->open and ->close, and every VMA finds its pages by its own page
	 * offset when it faults.  VM_DONTEXPAND keeps mremap() from growing
	 * it past the object.
	 */
	vm_flags_set(vma, VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_page_prot = vm_get_page_prot(vma->vm_flags);
	if (obj->cache == GEMBUF_CACHE_WC)
		vma->vm_page_prot = pgprot_writecombine(vma->vm_page_prot);

	mutex_lock(&obj->lock);
	ret = gembuf_place_backing(obj);
	if (!ret)
		ret = gembuf_prepare_wc(obj);
	/* Nothing fails past here: gembuf_vm_close() undoes this. */
	if (!ret)
		atomic_inc(&obj->user_vmas);
	mutex_unlock(&obj->lock);
	return ret;
}

/* Pages put in at a fault beside the faulting one: one for it, 15 more. */
#define GEMBUF_FAULT_PAGES	16

/*
 * A fault on a CPU mapping: the object's page at the faulting address,
 * its memory allocated at mmap().  The rest of its chunk goes in
 * too, inside the VMA, up to GEMBUF_FAULT_PAGES pages in all, so that a
 * linear walk faults once every 16 pages.  The memory does not move
 * while the VMA exists (user_vmas), so the object's lock is enough.
 */
static vm_fault_t gembuf_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct drm_gem_object *gem = vma->vm_private_data;
	struct gembuf_object *obj = to_gembuf_object(gem);
	unsigned long addr = vmf->address, pfn, nr, i;
	pgoff_t pgoff = gembuf_vma_page(gem, vmf->pgoff);
	vm_fault_t ret;
	int err;

	if (pgoff >= gem->size >> PAGE_SHIFT)
		return VM_FAULT_SIGBUS;

	/* The memory was allocated at mmap() and stays while the VMA does. */
	mutex_lock(&obj->lock);
	err = vcm_phys_pfn(obj->physmem, pgoff, &pfn, &nr);
	if (err) {
		mutex_unlock(&obj->lock);
		return VM_FAULT_SIGBUS;
	}

	ret = vmf_insert_pfn(vma, addr, pfn);
	if (!(ret & VM_FAULT_ERROR)) {
		nr = min3(nr, (unsigned long)GEMBUF_FAULT_PAGES,
			  (vma->vm_end - addr) >> PAGE_SHIFT);
		/* The faulting page's result is the fault's; the rest may fail. */
		for (i = 1; i < nr; i++)
			if (vmf_insert_pfn(vma, addr + i * PAGE_SIZE, pfn + i) &
			    VM_FAULT_ERROR)
				break;
	}
	mutex_unlock(&obj->lock);
	return ret;
}

/*
 * A VMA copied by fork(), or made by splitting one (a partial munmap() or
 * mprotect()) or moving one (mremap()): one more that maps the object.
 */
static void gembuf_vm_open(struct vm_area_struct *vma)
{
	struct drm_gem_object *gem = vma->vm_private_data;

	atomic_inc(&to_gembuf_object(gem)->user_vmas);
	drm_gem_vm_open(vma);
}

/* Its page tables are gone by now: it maps nothing any more. */
static void gembuf_vm_close(struct vm_area_struct *vma)
{
	struct drm_gem_object *gem = vma->vm_private_data;

	WARN_ON(atomic_dec_return(&to_gembuf_object(gem)->user_vmas) < 0);
	drm_gem_vm_close(vma);
}

static const struct vm_operations_struct gembuf_vm_ops = {
	.fault = gembuf_vm_fault,
	.open = gembuf_vm_open,
	.close = gembuf_vm_close,
};

/*
 * For fdinfo's drm-resident-memory: drm_show_memory_stats() calls it under
 * the file's table lock, so without the object's lock, and a race with a
 * first allocation only reads it a little early.  An object has memory
 * once its physmem is allocated, which stays until the object is freed (a
 * move replaces it); an import stands for the exporter's memory,
 * which is in use while it is attached (mapped for the device or not),
 * from the import until its device goes away.  Each is resident in full:
 * its size, as the core counts without .rss.
 */
static enum drm_gem_object_status gembuf_gem_status(struct drm_gem_object *gem)
{
	struct gembuf_object *obj = to_gembuf_object(gem);

	if (obj->foreign) {
		if (!READ_ONCE(gem->import_attach))
			return 0;
		/*
		 * A handle holds the import's dma-buf in @gem->dma_buf (set
		 * before the handle is made): gembuf's own has memory once
		 * its object does.
		 */
		obj = gembuf_dmabuf_object(READ_ONCE(gem->dma_buf));
		if (!obj)
			return DRM_GEM_OBJECT_RESIDENT;
	}
	return READ_ONCE(obj->physmem) ? DRM_GEM_OBJECT_RESIDENT : 0;
}

static const struct drm_gem_object_funcs gembuf_gem_funcs = {
	.free = gembuf_gem_free,
	.status = gembuf_gem_status,
	.export = gembuf_gem_prime_export,
	.vmap = gembuf_gem_vmap,
	.vunmap = gembuf_gem_vunmap,
	.mmap = gembuf_gem_mmap,
	.vm_ops = &gembuf_vm_ops,
};

static struct gembuf_object *gembuf_object_alloc(struct drm_device *dev,
						 size_t size)
{
	struct gembuf_object *obj;

	obj = kzalloc(sizeof(*obj), GFP_KERNEL);
	if (!obj)
		return ERR_PTR(-ENOMEM);
	obj->base.funcs = &gembuf_gem_funcs;
	mutex_init(&obj->lock);
	INIT_LIST_HEAD(&obj->users);
	INIT_LIST_HEAD(&obj->mappings);
	INIT_LIST_HEAD(&obj->import_node);
	INIT_LIST_HEAD(&obj->engine_node);
	INIT_LIST_HEAD(&obj->list_node);
	/*
	 * The map offset is made by the first GEM_MMAP_OFFSET
	 * (drm_gem_dumb_map_offset()): most objects are never mapped by a
	 * client, and their create and free then skip the offset manager.
	 */
	drm_gem_private_object_init(dev, &obj->base, size);
	/*
	 * The object's mappings are in its device's VCM, which goes with
	 * the device: keep it, even once its PCI device is unbound.
	 */
	drm_dev_get(dev);
	return obj;
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
 * gembuf_place_add() when no memory meets @dev's needs and the flags, and
 * of vcm_phys_alloc_for().
 */
struct gembuf_object *gembuf_object_create(struct drm_device *dev, size_t size,
					   u32 flags, u32 cache)
{
	struct vcm_constraint cont;
	struct gembuf_object *obj;
	int ret;

	if ((flags & ~GEMBUF_GEM_CREATE_FLAGS) || cache > GEMBUF_CACHE_WC ||
	    !size)
		return ERR_PTR(-EINVAL);
	if (size > GEMBUF_MAX_SIZE)
		return ERR_PTR(-E2BIG);
	size = PAGE_ALIGN(size);

	obj = gembuf_object_alloc(dev, size);
	if (IS_ERR(obj))
		return obj;
	obj->flags = flags;
	obj->cache = cache;
	obj->memcg = get_mem_cgroup_from_mm(current->mm);
	vcm_constraint_init(&obj->need);
	atomic_inc(&gembuf.objects);
	mutex_lock(&gembuf.objects_lock);
	list_add_tail(&obj->list_node, &gembuf.object_list);
	mutex_unlock(&gembuf.objects_lock);

	mutex_lock(&obj->lock);
	/* The device it is made on will use it: a dumb buffer is scanned out. */
	ret = gembuf_place_user(obj, dev->dev, &to_gembuf_device(dev)->need);
	if (!ret && (flags & GEMBUF_GEM_CONTIGUOUS)) {
		vcm_constraint_init(&cont);
		cont.flags = VCM_CONSTRAINT_CONTIGUOUS;
		ret = gembuf_place_add(obj, &cont, "GEMBUF_GEM_CONTIGUOUS");
	}
	/* One range asked for: the memory is known now. */
	if (!ret && (flags & GEMBUF_GEM_CONTIGUOUS))
		ret = gembuf_place_backing(obj);
	mutex_unlock(&obj->lock);
	if (ret) {
		drm_gem_object_put(&obj->base);
		return ERR_PTR(ret);
	}
	return obj;
}

/*
 * An exported object's lock is taken inside its reservation lock, by the
 * dma-buf callbacks; a foreign import's lock is taken outside its dma-buf's
 * reservation lock, to vmap it.  Imports are never exported by gembuf (DRM
 * hands out the original dma-buf again), so the two orders never meet on
 * one object: give imports a lock class of their own.
 */
static struct lock_class_key gembuf_import_lock_key;

/**
 * gembuf_gem_create_import() - an object for a foreign dma-buf
 * @dev: the importing DRM device
 * @size: the dma-buf's size
 * @physmem: what the device maps (vcm_phys_from_dma()), or NULL; the
 *	object owns it once this succeeded
 *
 * Return: the object or an ERR_PTR().
 */
struct drm_gem_object *gembuf_gem_create_import(struct drm_device *dev,
						size_t size,
						struct vcm_physmem *physmem)
{
	struct gembuf_object *obj;

	if (!size || !PAGE_ALIGNED(size))
		return ERR_PTR(-EINVAL);
	obj = gembuf_object_alloc(dev, size);
	if (IS_ERR(obj))
		return ERR_CAST(obj);
	lockdep_set_class(&obj->lock, &gembuf_import_lock_key);
	obj->foreign = true;
	obj->physmem = physmem;
	obj->cache = GEMBUF_CACHE_WB;
	atomic_inc(&gembuf.objects);
	return &obj->base;
}

static int gembuf_create_handle(struct drm_file *file, struct gembuf_object *obj,
				u32 *handle)
{
	int ret = drm_gem_handle_create(file, &obj->base, handle);

	/* The handle holds the object now, or nothing does. */
	drm_gem_object_put(&obj->base);
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
	args->size = obj->base.size;
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
	 * The uapi says flags must be zero and DRM core leaves the check to
	 * drivers: refuse any, so that a flag can be given a meaning later.
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
	args->size = obj->base.size;
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
 * need not know: an IOVA, of gembuf's engine or of an importer's device
 * in its DMA domain.  Kernel virtual addresses, and the DMA addresses of
 * importers without an IOMMU (physical addresses under dma-direct), are
 * not printed even to root, as %p hashes kernel pointers.
 */
static u64 gembuf_info_addr(const struct gembuf_mapping *map)
{
	if (map->kind != GEMBUF_MAPPING_IOMMU)
		return 0;
	if (!map->res)
		return map->sgt ? sg_dma_address(map->sgt->sgl) : 0;
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
	} else if (map->sgt) {
		struct scatterlist *sg;
		unsigned int i;

		/* Every byte mapped. */
		for_each_sgtable_dma_sg(map->sgt, sg, i)
			size += sg_dma_len(sg);
	}
	seq_buf_printf(s, "mapping %s %s 0x%llx %llu 0x%x %u %u\n", name,
		       kind, gembuf_info_addr(map), size, attr, ptes,
		       map->users);
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
 *	2^(order + 1) - 1 bytes), the placement (gembuf_place_describe()),
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
 * object, -EOVERFLOW when the report does not fit.
 */
int gembuf_gem_describe(struct drm_device *dev, u64 client_id, u32 handle,
			struct seq_buf *s)
{
	unsigned int cursor, order, n = 0, chunks = 0;
	unsigned int orders[BITS_PER_LONG] = {};
	struct gembuf_object *obj, *imp;
	struct drm_gem_object *gem;
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
	 * exporter's object, whose memory and mappings it stands for.
	 */
	imp = to_gembuf_object(gem);
	mutex_lock(&imp->lock);
	obj = gembuf_prime_exporter(gem) ?: imp;
	if (obj != imp)
		mutex_lock(&obj->lock);

	seq_buf_printf(s, "size %zu\ncache %u\nflags", gem->size, obj->cache);
	if (obj->physmem)
		seq_buf_puts(s, " allocated");
	if (imp->foreign)
		seq_buf_puts(s, " imported");
	vcm_for_each_phys_chunk(obj->physmem, cursor, phys, len) {
		orders[ilog2(len)]++;
		chunks++;
	}
	if (chunks == 1)
		seq_buf_puts(s, " contiguous");
	seq_buf_printf(s, "\nchunks %u\n", chunks);
	for (order = 0; order < ARRAY_SIZE(orders); order++)
		if (orders[order])
			seq_buf_printf(s, "chunk %u %u\n", order, orders[order]);
	gembuf_place_describe(obj, s);
	/* The devices' and the kernel's first, then the processes' in one. */
	vmas = atomic_read(&obj->user_vmas);
	count = list_count_nodes(&obj->mappings) + !!vmas;
	seq_buf_printf(s, "mappings %zu\n", count);
	list_for_each_entry(map, &obj->mappings, node) {
		if (n++ == GEMBUF_DESCRIBE_MAPPINGS)
			break;
		gembuf_describe_mapping(s, map);
	}
	/*
	 * The processes': the object's size and the attributes of its pages
	 * there, no address, no IOMMU entries, one user per VMA.
	 */
	attr = gembuf_res_attr(obj) | VCM_USER;
	if (vmas && n < GEMBUF_DESCRIBE_MAPPINGS)
		seq_buf_printf(s, "mapping %s %s 0x0 %zu 0x%x 0 %d\n",
			       gembuf_mapping_kinds[GEMBUF_MAPPING_USER],
			       gembuf_mapping_kinds[GEMBUF_MAPPING_USER],
			       obj->base.size, attr, vmas);
	if (obj != imp)
		mutex_unlock(&obj->lock);
	mutex_unlock(&imp->lock);
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
