// SPDX-License-Identifier: GPL-2.0-only
/*
 * The gembuf DMA engine: QEMU's edu PCI device behind the IOMMU, used as
 * the device that writes frames into buffers (the camera or codec of a
 * real system).
 *
 * edu copies at most a few KiB per command between a device address and
 * a buffer inside the device.  A fill loads that buffer from a pattern
 * page and writes it out piece by piece; a copy moves each piece in and
 * out again.  Every device address is an IOVA of the engine's IOMMU VCM,
 * where objects are mapped on first use.  Jobs run in submission order on
 * an ordered workqueue, after the fences they depend on, and signal a
 * fence of their own that sits in the objects' reservation objects.
 */

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/gembuf_drm.h>
#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/iopoll.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "gembuf_drv.h"

#define EDU_REG_IDENT		0x00
#define EDU_REG_DMA_SRC		0x80
#define EDU_REG_DMA_DST		0x88
#define EDU_REG_DMA_COUNT	0x90
#define EDU_REG_DMA_CMD		0x98
#define EDU_DMA_RUN		BIT(0)
#define EDU_DMA_TO_RAM		BIT(1)
#define EDU_IDENT_MAGIC		0xed
#define EDU_BUF			0x40000
/* QEMU 7.2 stops on a transfer that ends at the buffer's last byte. */
#define EDU_XFER		SZ_2K
#define EDU_DMA_TIMEOUT_US	(2 * USEC_PER_SEC)
#define EDU_DMA_BITS		40

/**
 * struct gembuf_engine - the DMA engine
 * @gdev: its gembuf device
 * @regs: edu's registers
 * @wq: ordered queue the jobs run on
 * @fence_context: context of the jobs' fences
 * @seqno: last fence sequence number
 * @fence_lock: lock of the jobs' fences
 * @pattern: a page the fill pattern is written to
 * @pattern_map: its mapping for the engine
 * @pattern_vaddr: its kernel address
 * @jobs: jobs queued and not finished
 */
struct gembuf_engine {
	struct gembuf_device *gdev;
	void __iomem *regs;
	struct workqueue_struct *wq;
	u64 fence_context;
	u64 seqno;
	spinlock_t fence_lock;	/* see the kernel-doc above */
	struct gembuf_object *pattern;
	struct gembuf_mapping *pattern_map;
	u32 *pattern_vaddr;
	atomic_t jobs;
};

/**
 * struct gembuf_job - one fill or copy
 * @fence: signalled when the job is done
 * @work: runs the job
 * @engine: the engine
 * @dst: the object written, and its mapping
 * @dst_map: the engine's mapping of @dst
 * @src: the object read for a copy, or NULL for a fill
 * @src_map: the engine's mapping of @src
 * @dst_addr: first device address written
 * @src_addr: first device address read
 * @size: bytes
 * @value: fill word
 * @deps: fences to wait for first
 * @num_deps: their number
 */
struct gembuf_job {
	struct dma_fence fence;
	struct work_struct work;
	struct gembuf_engine *engine;
	struct gembuf_object *dst, *src;
	struct gembuf_mapping *dst_map, *src_map;
	dma_addr_t dst_addr, src_addr;
	u64 size;
	u32 value;
	struct dma_fence **deps;
	unsigned int num_deps;
};

static const char *gembuf_fence_driver_name(struct dma_fence *fence)
{
	return GEMBUF_NAME;
}

static const char *gembuf_fence_timeline_name(struct dma_fence *fence)
{
	return "edu";
}

static void gembuf_fence_release(struct dma_fence *fence)
{
	struct gembuf_job *job = container_of(fence, struct gembuf_job, fence);

	kfree(job->deps);
	dma_fence_free(fence);
}

static const struct dma_fence_ops gembuf_fence_ops = {
	.get_driver_name = gembuf_fence_driver_name,
	.get_timeline_name = gembuf_fence_timeline_name,
	.release = gembuf_fence_release,
};

static int edu_dma(struct gembuf_engine *engine, dma_addr_t addr, u32 len,
		   bool to_ram)
{
	u64 cmd;

	writeq(to_ram ? EDU_BUF : addr, engine->regs + EDU_REG_DMA_SRC);
	writeq(to_ram ? addr : EDU_BUF, engine->regs + EDU_REG_DMA_DST);
	writeq(len, engine->regs + EDU_REG_DMA_COUNT);
	writeq(EDU_DMA_RUN | (to_ram ? EDU_DMA_TO_RAM : 0),
	       engine->regs + EDU_REG_DMA_CMD);
	return readq_poll_timeout(engine->regs + EDU_REG_DMA_CMD, cmd,
				  !(cmd & EDU_DMA_RUN), 100, EDU_DMA_TIMEOUT_US);
}

static int gembuf_job_run(struct gembuf_job *job)
{
	struct gembuf_engine *engine = job->engine;
	u64 done = 0;
	int ret = 0;

	if (!job->src) {
		unsigned int i;

		for (i = 0; i < EDU_XFER / 4; i++)
			engine->pattern_vaddr[i] = job->value;
		ret = edu_dma(engine, vcm_get_dev_addr(engine->pattern_map->res),
			      EDU_XFER, false);
	}
	while (!ret && done < job->size) {
		u32 n = min_t(u64, job->size - done, EDU_XFER);

		if (job->src)
			ret = edu_dma(engine, job->src_addr + done, n, false);
		if (!ret)
			ret = edu_dma(engine, job->dst_addr + done, n, true);
		done += n;
	}
	return ret;
}

static void gembuf_job_work(struct work_struct *work)
{
	struct gembuf_job *job = container_of(work, struct gembuf_job, work);
	struct gembuf_engine *engine = job->engine;
	unsigned int i;
	int ret;

	for (i = 0; i < job->num_deps; i++) {
		dma_fence_wait(job->deps[i], false);
		dma_fence_put(job->deps[i]);
	}
	job->num_deps = 0;

	ret = gembuf_job_run(job);
	if (ret)
		dma_fence_set_error(&job->fence, ret);
	dma_fence_signal(&job->fence);

	gembuf_mapping_put(job->dst, job->dst_map);
	drm_gem_object_put(&job->dst->base);
	if (job->src) {
		gembuf_mapping_put(job->src, job->src_map);
		drm_gem_object_put(&job->src->base);
	}
	atomic_dec(&engine->jobs);
	dma_fence_put(&job->fence);
}

static int gembuf_check_range(struct drm_gem_object *gem, u64 offset, u64 size)
{
	if (!size || !IS_ALIGNED(offset, 4) || !IS_ALIGNED(size, 4))
		return -EINVAL;
	if (offset > gem->size || size > gem->size - offset)
		return -EINVAL;
	return 0;
}

/* Fences the job waits for: writers of what it reads, anyone on what it writes. */
static int gembuf_job_add_deps(struct gembuf_job *job, struct dma_resv *resv,
			       enum dma_resv_usage usage)
{
	struct dma_fence **fences, **all;
	unsigned int n;
	int ret;

	ret = dma_resv_get_fences(resv, usage, &n, &fences);
	if (ret || !n)
		return ret;
	all = krealloc_array(job->deps, job->num_deps + n, sizeof(*all),
			     GFP_KERNEL);
	if (!all) {
		while (n--)
			dma_fence_put(fences[n]);
		kfree(fences);
		return -ENOMEM;
	}
	memcpy(all + job->num_deps, fences, n * sizeof(*all));
	job->deps = all;
	job->num_deps += n;
	kfree(fences);
	return 0;
}

static int gembuf_job_submit(struct gembuf_job *job)
{
	struct gembuf_engine *engine = job->engine;
	struct dma_resv *dst_resv = job->dst->base.resv;
	struct dma_resv *src_resv = job->src ? job->src->base.resv : NULL;
	struct ww_acquire_ctx ctx;
	int ret;

	if (src_resv == dst_resv)
		src_resv = NULL;

	ww_acquire_init(&ctx, &reservation_ww_class);
	ret = dma_resv_lock_interruptible(dst_resv, &ctx);
	if (ret)
		goto out_fini;
	if (src_resv) {
		ret = dma_resv_lock_interruptible(src_resv, &ctx);
		if (ret == -EDEADLK) {
			dma_resv_unlock(dst_resv);
			ret = dma_resv_lock_slow_interruptible(src_resv, &ctx);
			if (!ret)
				ret = dma_resv_lock_interruptible(dst_resv, &ctx);
			if (ret)
				dma_resv_unlock(src_resv);
		}
		if (ret)
			goto out_fini;
	}
	ww_acquire_done(&ctx);

	ret = gembuf_job_add_deps(job, dst_resv, DMA_RESV_USAGE_READ);
	if (!ret && job->src)
		ret = gembuf_job_add_deps(job, job->src->base.resv,
					  DMA_RESV_USAGE_WRITE);
	if (!ret)
		ret = dma_resv_reserve_fences(dst_resv, 1);
	if (!ret && src_resv)
		ret = dma_resv_reserve_fences(src_resv, 1);
	if (!ret) {
		dma_fence_init(&job->fence, &gembuf_fence_ops, &engine->fence_lock,
			       engine->fence_context, ++engine->seqno);
		dma_resv_add_fence(dst_resv, &job->fence, DMA_RESV_USAGE_WRITE);
		if (src_resv)
			dma_resv_add_fence(src_resv, &job->fence, DMA_RESV_USAGE_READ);
		atomic_inc(&engine->jobs);
		queue_work(engine->wq, &job->work);
	}

	if (src_resv)
		dma_resv_unlock(src_resv);
	dma_resv_unlock(dst_resv);
out_fini:
	ww_acquire_fini(&ctx);
	return ret;
}

static struct gembuf_engine *gembuf_engine_of(struct drm_device *dev)
{
	struct gembuf_device *gdev = to_gembuf_device(dev);

	return gdev->role == GEMBUF_ENGINE ? gdev->engine : NULL;
}

static struct gembuf_job *gembuf_job_new(struct gembuf_engine *engine)
{
	struct gembuf_job *job = kzalloc(sizeof(*job), GFP_KERNEL);

	if (job) {
		job->engine = engine;
		INIT_WORK(&job->work, gembuf_job_work);
	}
	return job;
}

/* Undo a job that was never submitted. */
static void gembuf_job_abort(struct gembuf_job *job)
{
	while (job->num_deps--)
		dma_fence_put(job->deps[job->num_deps]);
	kfree(job->deps);
	if (job->dst_map)
		gembuf_mapping_put(job->dst, job->dst_map);
	if (job->src_map)
		gembuf_mapping_put(job->src, job->src_map);
	if (job->dst)
		drm_gem_object_put(&job->dst->base);
	if (job->src)
		drm_gem_object_put(&job->src->base);
	kfree(job);
}

static int gembuf_job_map(struct gembuf_job *job, struct drm_file *file,
			  u32 handle, bool dst)
{
	struct drm_gem_object *gem = drm_gem_object_lookup(file, handle);
	struct gembuf_mapping *map;
	struct gembuf_object *obj;

	if (!gem)
		return -ENOENT;
	obj = to_gembuf_object(gem);
	if (dst)
		job->dst = obj;
	else
		job->src = obj;

	/* The object keeps its first mapping; each job holds it too. */
	if (!READ_ONCE(obj->engine_map)) {
		map = gembuf_mapping_get(obj, job->engine->gdev);
		if (IS_ERR(map))
			return PTR_ERR(map);
		if (cmpxchg(&obj->engine_map, NULL, map))
			gembuf_mapping_put(obj, map);
	}
	map = gembuf_mapping_get(obj, job->engine->gdev);
	if (IS_ERR(map))
		return PTR_ERR(map);
	if (dst)
		job->dst_map = map;
	else
		job->src_map = map;
	return 0;
}

/* The job, or an ERR_PTR() for a device without engine or bad flags. */
static struct gembuf_job *gembuf_job_begin(struct drm_device *dev, u32 flags,
					   u32 pad)
{
	struct gembuf_engine *engine = gembuf_engine_of(dev);

	if (!engine)
		return ERR_PTR(-EOPNOTSUPP);
	if (flags || pad)
		return ERR_PTR(-EINVAL);
	return gembuf_job_new(engine) ?: ERR_PTR(-ENOMEM);
}

/* Submit a job that was set up without error, or undo it. */
static int gembuf_job_end(struct gembuf_job *job, int ret)
{
	if (!ret)
		ret = gembuf_job_submit(job);
	if (ret)
		gembuf_job_abort(job);
	return ret;
}

int gembuf_dma_fill_ioctl(struct drm_device *dev, void *data,
			  struct drm_file *file)
{
	struct drm_gembuf_dma_fill *args = data;
	struct gembuf_job *job;
	int ret;

	job = gembuf_job_begin(dev, args->flags, args->pad);
	if (IS_ERR(job))
		return PTR_ERR(job);
	ret = gembuf_job_map(job, file, args->handle, true);
	if (!ret)
		ret = gembuf_check_range(&job->dst->base, args->offset, args->size);
	if (!ret) {
		job->dst_addr = vcm_get_dev_addr(job->dst_map->res) + args->offset;
		job->size = args->size;
		job->value = args->value;
	}
	return gembuf_job_end(job, ret);
}

int gembuf_dma_copy_ioctl(struct drm_device *dev, void *data,
			  struct drm_file *file)
{
	struct drm_gembuf_dma_copy *args = data;
	struct gembuf_job *job;
	int ret;

	job = gembuf_job_begin(dev, args->flags, args->pad);
	if (IS_ERR(job))
		return PTR_ERR(job);
	ret = gembuf_job_map(job, file, args->dst_handle, true);
	if (!ret)
		ret = gembuf_job_map(job, file, args->src_handle, false);
	if (!ret)
		ret = gembuf_check_range(&job->dst->base, args->dst_offset, args->size);
	if (!ret)
		ret = gembuf_check_range(&job->src->base, args->src_offset, args->size);
	/* Overlapping ranges of one object would read what they write. */
	if (!ret && job->dst->real == job->src->real &&
	    args->dst_offset < args->src_offset + args->size &&
	    args->src_offset < args->dst_offset + args->size)
		ret = -EINVAL;
	if (!ret) {
		job->dst_addr = vcm_get_dev_addr(job->dst_map->res) + args->dst_offset;
		job->src_addr = vcm_get_dev_addr(job->src_map->res) + args->src_offset;
		job->size = args->size;
	}
	return gembuf_job_end(job, ret);
}

static int gembuf_engine_probe(struct pci_dev *pdev,
			       const struct pci_device_id *id)
{
	struct gembuf_engine *engine;
	struct gembuf_device *gdev;
	void __iomem *regs;
	int ret;

	if (gembuf.engine)
		return -EBUSY;
	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = pcim_iomap_regions(pdev, BIT(0), KBUILD_MODNAME);
	if (ret)
		return ret;
	regs = pcim_iomap_table(pdev)[0];
	if ((readl(regs + EDU_REG_IDENT) & 0xff) != EDU_IDENT_MAGIC)
		return -ENODEV;
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(EDU_DMA_BITS));
	if (ret)
		return ret;
	pci_set_master(pdev);

	engine = devm_kzalloc(&pdev->dev, sizeof(*engine), GFP_KERNEL);
	if (!engine)
		return -ENOMEM;
	engine->regs = regs;
	spin_lock_init(&engine->fence_lock);
	engine->fence_context = dma_fence_context_alloc(1);
	engine->wq = alloc_ordered_workqueue("gembuf-edu", 0);
	if (!engine->wq)
		return -ENOMEM;

	gdev = devm_drm_dev_alloc(&pdev->dev, &gembuf_engine_driver,
				  struct gembuf_device, drm);
	if (IS_ERR(gdev)) {
		ret = PTR_ERR(gdev);
		goto err_wq;
	}
	gdev->engine = engine;
	engine->gdev = gdev;
	ret = gembuf_device_init(gdev, GEMBUF_ENGINE);
	if (ret)
		goto err_wq;
	gembuf.engine = gdev;

	engine->pattern = gembuf_object_create(&gdev->drm, PAGE_SIZE, 0,
					       GEMBUF_CACHE_WB);
	if (IS_ERR(engine->pattern)) {
		ret = PTR_ERR(engine->pattern);
		goto err_fini;
	}
	engine->pattern_map = gembuf_mapping_get(engine->pattern, gdev);
	if (IS_ERR(engine->pattern_map)) {
		ret = PTR_ERR(engine->pattern_map);
		goto err_pattern;
	}
	engine->pattern_vaddr = gembuf_vmap(engine->pattern);
	if (IS_ERR(engine->pattern_vaddr)) {
		ret = PTR_ERR(engine->pattern_vaddr);
		goto err_pattern_map;
	}

	ret = drm_dev_register(&gdev->drm, 0);
	if (ret)
		goto err_vunmap;
	pci_set_drvdata(pdev, gdev);
	return 0;

err_vunmap:
	gembuf_vunmap(engine->pattern);
err_pattern_map:
	gembuf_mapping_put(engine->pattern, engine->pattern_map);
err_pattern:
	drm_gem_object_put(&engine->pattern->base);
err_fini:
	gembuf.engine = NULL;
	gembuf_device_fini(gdev);
err_wq:
	destroy_workqueue(engine->wq);
	return ret;
}

static void gembuf_engine_remove(struct pci_dev *pdev)
{
	struct gembuf_device *gdev = pci_get_drvdata(pdev);
	struct gembuf_engine *engine = gdev->engine;

	drm_dev_unregister(&gdev->drm);
	/* Jobs hold objects and mappings: let them finish. */
	drain_workqueue(engine->wq);
	destroy_workqueue(engine->wq);
	gembuf_vunmap(engine->pattern);
	gembuf_mapping_put(engine->pattern, engine->pattern_map);
	drm_gem_object_put(&engine->pattern->base);
	gembuf.engine = NULL;
	gembuf_device_fini(gdev);
}

static const struct pci_device_id gembuf_engine_ids[] = {
	{ PCI_DEVICE(0x1234, 0x11e8) },
	{}
};
MODULE_DEVICE_TABLE(pci, gembuf_engine_ids);

static struct pci_driver gembuf_engine_driver_pci = {
	.name = "gembuf_dma",
	.id_table = gembuf_engine_ids,
	.probe = gembuf_engine_probe,
	.remove = gembuf_engine_remove,
};

/**
 * gembuf_engine_register() - drive edu as the DMA engine, when present
 *
 * Return: 0 or a negative errno.
 */
int gembuf_engine_register(void)
{
	return pci_register_driver(&gembuf_engine_driver_pci);
}

/**
 * gembuf_engine_unregister() - stop driving edu
 */
void gembuf_engine_unregister(void)
{
	pci_unregister_driver(&gembuf_engine_driver_pci);
}
