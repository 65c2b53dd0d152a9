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
 * where objects are mapped on first use.
 *
 * Jobs go through drm_sched: each open file has its own entity, so its
 * jobs run in the order it submitted them and a job waiting for a fence
 * holds up only the jobs of its own file.  A job's dependencies are the
 * fences in its objects' reservation objects (locked with drm_exec); its
 * scheduler fence goes there in turn.  One job runs at a time; a job
 * that keeps the engine longer than GEMBUF_JOB_TIMEOUT_MS is stopped and
 * the next one runs.
 */

#include <drm/drm_drv.h>
#include <drm/drm_exec.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>
#include <drm/gembuf_drm.h>
#include <drm/gpu_scheduler.h>
#include <kunit/visibility.h>
#include <linux/delay.h>
#include <linux/dma-fence.h>
#include <linux/dma-fence-chain.h>
#include <linux/dma-resv.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>

#include "gembuf_drv.h"
#include "gembuf_edu.h"

/*
 * edu has no register that tells how many address bits its DMA drives:
 * QEMU gives it 28 unless its dma_mask property says otherwise, and
 * silently drops the address bits above them.  So the mask is a property
 * of the machine, given here per device, in PCI order (domain, bus,
 * slot), as a device tree would give it; a value wider than the device's
 * makes its DMA land on other IOVAs.
 */
static unsigned int edu_dma_bits[8] = {
	[0 ... 7] = GEMBUF_EDU_DEFAULT_DMA_BITS,
};
module_param_array(edu_dma_bits, uint, NULL, 0444);
MODULE_PARM_DESC(edu_dma_bits,
		 "address bits of each edu's DMA, in PCI order (default 28, QEMU's; wider than the device corrupts memory)");
/* One bit of gembuf_object.gdevs for the display and each engine. */
static_assert(ARRAY_SIZE(edu_dma_bits) < GEMBUF_MAX_GDEVS);

/* Where a PCI device is: domain, bus and slot, in that order. */
static u64 gembuf_pci_place(struct pci_dev *pdev)
{
	return (u64)pci_domain_nr(pdev->bus) << 16 | pci_dev_id(pdev);
}

/* The place of @pdev among the edu devices of the machine, 0 for the first. */
static unsigned int gembuf_edu_index(struct pci_dev *pdev)
{
	struct pci_dev *other = NULL;
	unsigned int i = 0;

	while ((other = pci_get_device(pdev->vendor, pdev->device, other))) {
		if (gembuf_pci_place(other) < gembuf_pci_place(pdev))
			i++;
	}
	return i;
}

/* The DMA mask width of the edu at @index, or -EINVAL for none we know. */
static int gembuf_edu_dma_bits(unsigned int index)
{
	if (index >= ARRAY_SIZE(edu_dma_bits) || edu_dma_bits[index] < 24 ||
	    edu_dma_bits[index] > 64)
		return -EINVAL;
	return edu_dma_bits[index];
}

/**
 * struct gembuf_engine - the DMA engine
 * @gdev: its gembuf device
 * @regs: edu's registers
 * @sched: the scheduler of its one queue; a job runs once its
 *	dependencies have signalled, one job at a time
 * @hw_wq: ordered queue the running job's transfers are made on
 * @hw_context: context of the jobs' hardware fences
 * @hw_seqno: last hardware fence sequence number; jobs start in the
 *	scheduler's order, one at a time, so numbers follow completion order
 * @reset: the engine is being reset: the job on it stops
 * @pattern: a page the fill pattern is written to
 * @pattern_map: its mapping for the engine
 * @pattern_vaddr: its kernel address
 * @retired: link in the list of engines whose device is gone
 * @reset_lock: serialises the timeout handler, lending edu and removal
 * @lent: edu is lent to a test (gembuf_engine_lend()): the scheduler is
 *	stopped; removal waits for it to be returned
 * @removing: the PCI device is being removed: edu is not lent any more
 * @wedged: edu did not come back to the engine's IOMMU domain: jobs fail
 *	without touching it
 */
struct gembuf_engine {
	struct gembuf_device *gdev;
	void __iomem *regs;
	struct drm_gpu_scheduler sched;
	struct workqueue_struct *hw_wq;
	u64 hw_context;
	u64 hw_seqno;
	bool reset;
	struct gembuf_object *pattern;
	struct gembuf_mapping *pattern_map;
	u32 *pattern_vaddr;
	struct list_head retired;
	struct mutex reset_lock;	/* see the kernel-doc above */
	bool lent;
	bool removing;
	bool wedged;
};

/*
 * An engine whose DRM device is released stays in memory until the
 * module goes: the scheduler fence of each of its jobs, the fence
 * clients see, reads the scheduler's name, and a sync_file can keep
 * such a fence after every file of the device is closed.  One engine
 * is kept per unbind of the device until then.
 */
static LIST_HEAD(gembuf_retired_engines);
static DEFINE_MUTEX(gembuf_retired_lock);

/* Where jobs are freed; see gembuf_sched_free_job(). */
static struct workqueue_struct *gembuf_free_wq;

/**
 * struct gembuf_file - an open file of the engine
 * @entity: the file's scheduler entity: its jobs run in submission order,
 *	and wait for nothing another file submitted unless they depend on it
 * @lock: orders arming and pushing of the file's jobs
 */
struct gembuf_file {
	struct drm_sched_entity entity;
	struct mutex lock;	/* see the kernel-doc above */
};

/**
 * struct gembuf_job - one fill or copy
 * @base: the scheduler's job
 * @hw_fence: signalled when the engine is done with the job; once
 *	initialised it owns the job's memory
 * @work: runs the job's transfers on &gembuf_engine.hw_wq
 * @free_work: drops what the job holds once the scheduler is done with it
 * @engine: the engine
 * @dst: the object written
 * @src: the object read for a copy, or NULL for a fill
 * @dst_map: the engine's mapping of @dst
 * @src_map: the engine's mapping of @src
 * @dst_addr: first device address written
 * @src_addr: first device address read
 * @size: bytes
 * @value: fill word
 * @out_syncobj: the syncobj that gets the job's fence, or NULL
 * @out_chain: the timeline node for it, or NULL for a binary syncobj
 * @out_point: the timeline point
 */
struct gembuf_job {
	struct drm_sched_job base;
	struct dma_fence hw_fence;
	struct work_struct work;
	struct work_struct free_work;
	struct gembuf_engine *engine;
	struct gembuf_object *dst, *src;
	struct gembuf_mapping *dst_map, *src_map;
	dma_addr_t dst_addr, src_addr;
	u64 size;
	u32 value;
	struct drm_syncobj *out_syncobj;
	struct dma_fence_chain *out_chain;
	u64 out_point;
};

static inline struct gembuf_job *to_gembuf_job(struct drm_sched_job *job)
{
	return container_of(job, struct gembuf_job, base);
}

/*
 * How long a job may keep the engine.  edu runs one command of at most
 * 2 KiB per 100 ms, and a job is at most GEMBUF_DMA_MAX_SIZE, so the
 * longest, a copy, takes about 26 s; a job that takes longer than this
 * hangs the engine, is stopped with -ETIMEDOUT, and the next one runs.
 */
#define GEMBUF_JOB_TIMEOUT_MS	60000

/*
 * A job holds the module from its submission until its memory is freed:
 * while the scheduler has it, and, once it ran, as long as its hardware
 * fence lives.  The scheduler's finished fence of the job, the one
 * clients see, holds that hardware fence until it is freed itself, and
 * it can outlive the engine and every file of the module (in the
 * reservation objects of dma-bufs, in sync_files), with users calling
 * its ops at any time.  So the hardware fences share a lock that lives
 * with the module, not with the device, and "rmmod gembuf" is refused
 * while a job exists.  The module reference is dropped from an RCU
 * callback, and the module's exit waits for those with rcu_barrier(), so
 * no code of the module runs once it is gone.
 */
static DEFINE_SPINLOCK(gembuf_fence_lock);

static const char *gembuf_fence_driver_name(struct dma_fence *fence)
{
	return GEMBUF_NAME;
}

static const char *gembuf_fence_timeline_name(struct dma_fence *fence)
{
	return "edu";
}

static void gembuf_job_free_rcu(struct rcu_head *rcu)
{
	struct gembuf_job *job = container_of(rcu, struct gembuf_job,
					      hw_fence.rcu);

	kfree(job);
	atomic_dec(&gembuf.jobs);
	module_put(THIS_MODULE);
}

static void gembuf_fence_release(struct dma_fence *fence)
{
	/* As dma_fence_free(): RCU readers may still look at the fence. */
	call_rcu(&fence->rcu, gembuf_job_free_rcu);
}

static const struct dma_fence_ops gembuf_fence_ops = {
	.get_driver_name = gembuf_fence_driver_name,
	.get_timeline_name = gembuf_fence_timeline_name,
	.release = gembuf_fence_release,
};

/* A job that hangs the engine until it is reset (fault injection). */
static int gembuf_job_hang(struct gembuf_engine *engine)
{
	while (!READ_ONCE(engine->reset) &&
	       !drm_dev_is_unplugged(&engine->gdev->drm))
		msleep(20);
	return -ETIMEDOUT;
}

static int gembuf_job_run(struct gembuf_job *job)
{
	struct gembuf_engine *engine = job->engine;
	u64 done = 0;
	int ret = 0;

	if (should_fail(&gembuf_fail_job, job->size))
		return -EIO;
	if (should_fail(&gembuf_hang_job, job->size))
		return gembuf_job_hang(engine);
	if (!job->src) {
		unsigned int i;

		for (i = 0; i < GEMBUF_EDU_XFER / 4; i++)
			engine->pattern_vaddr[i] = job->value;
		ret = gembuf_edu_dma(engine->regs,
				     vcm_get_dev_addr(engine->pattern_map->res),
				     0, GEMBUF_EDU_XFER, false);
	}
	while (!ret && done < job->size) {
		u32 n = min_t(u64, job->size - done, GEMBUF_EDU_XFER);

		/* Reset or removal stop a job between transfers. */
		if (READ_ONCE(engine->reset))
			return -ETIMEDOUT;
		if (drm_dev_is_unplugged(&engine->gdev->drm))
			return -ENODEV;
		if (job->src)
			ret = gembuf_edu_dma(engine->regs, job->src_addr + done, 0, n,
					     false);
		if (!ret)
			ret = gembuf_edu_dma(engine->regs, job->dst_addr + done, 0, n,
					     true);
		done += n;
	}
	return ret;
}

static void gembuf_job_work(struct work_struct *work)
{
	struct gembuf_job *job = container_of(work, struct gembuf_job, work);
	bool cookie = dma_fence_begin_signalling();
	int idx, ret = -ENODEV;

	if (READ_ONCE(job->engine->wedged)) {
		ret = -EIO;
	} else if (drm_dev_enter(&job->engine->gdev->drm, &idx)) {
		ret = gembuf_job_run(job);
		drm_dev_exit(idx);
	}
	if (ret)
		dma_fence_set_error(&job->hw_fence, ret);
	dma_fence_signal(&job->hw_fence);
	dma_fence_end_signalling(cookie);
}

static struct dma_fence *gembuf_sched_run_job(struct drm_sched_job *sched_job)
{
	struct gembuf_job *job = to_gembuf_job(sched_job);
	struct gembuf_engine *engine = job->engine;

	dma_fence_init(&job->hw_fence, &gembuf_fence_ops, &gembuf_fence_lock,
		       engine->hw_context, ++engine->hw_seqno);
	/*
	 * A job already carrying an error does not run; its hardware fence
	 * signals at once, so that its scheduler fence holds the module too
	 * (a job cancelled before run_job, when its process is killed,
	 * never gets one: drm_sched in 6.12 has no hook for that).
	 */
	if (unlikely(sched_job->s_fence->finished.error)) {
		dma_fence_set_error(&job->hw_fence,
				    sched_job->s_fence->finished.error);
		dma_fence_signal(&job->hw_fence);
	} else {
		queue_work(engine->hw_wq, &job->work);
	}
	/* The job keeps its reference; the scheduler gets one of its own. */
	return dma_fence_get(&job->hw_fence);
}

/*
 * edu cannot be stopped in the middle of a transfer, but a transfer ends
 * by itself (or its poll times out): resetting the engine means making
 * the job on it stop between transfers and waiting for that.  The
 * job's fence carries -ETIMEDOUT, and the jobs after it run.
 *
 * This departs from the usual drm_sched_stop() first: with the submit
 * queue stopped and one job in flight (credit_limit 1), letting the bad
 * job's hardware fence signal through the scheduler's callback gives its
 * finished fence -ETIMEDOUT instead of -ECANCELED, and drm_sched_stop()
 * then only collects it (it is left to the caller to free).
 */
static enum drm_gpu_sched_stat
gembuf_sched_timedout_job(struct drm_sched_job *sched_job)
{
	struct gembuf_job *job = to_gembuf_job(sched_job);
	struct gembuf_engine *engine = job->engine;

	mutex_lock(&engine->reset_lock);
	if (engine->lent) {
		/*
		 * gembuf_engine_lend() stopped the scheduler after this job
		 * finished; its timer fired meanwhile.  Nothing to reset:
		 * drm_sched_stop() collects the job, and edu stays lent.
		 */
		drm_sched_stop(&engine->sched, sched_job);
		mutex_unlock(&engine->reset_lock);
		return DRM_GPU_SCHED_STAT_NOMINAL;
	}
	dev_warn(engine->gdev->drm.dev, "job %llu timed out, resetting\n",
		 job->hw_fence.seqno);
	/* No job starts while the engine is reset... */
	drm_sched_wqueue_stop(&engine->sched);
	/* ...and the one on it stops: its fence signals -ETIMEDOUT. */
	WRITE_ONCE(engine->reset, true);
	flush_workqueue(engine->hw_wq);
	WRITE_ONCE(engine->reset, false);
	drm_sched_stop(&engine->sched, sched_job);
	drm_sched_start(&engine->sched);
	mutex_unlock(&engine->reset_lock);
	if (drm_dev_is_unplugged(&engine->gdev->drm))
		return DRM_GPU_SCHED_STAT_ENODEV;
	return DRM_GPU_SCHED_STAT_NOMINAL;
}

/* Undo what a job holds; its memory goes with its hardware fence, if any. */
static void gembuf_job_put(struct gembuf_job *job)
{
	if (job->dst_map)
		gembuf_mapping_put(job->dst, job->dst_map);
	if (job->src_map)
		gembuf_mapping_put(job->src, job->src_map);
	if (job->dst)
		drm_gem_object_put(&job->dst->base);
	if (job->src)
		drm_gem_object_put(&job->src->base);
	if (job->out_syncobj)
		drm_syncobj_put(job->out_syncobj);
	dma_fence_chain_free(job->out_chain);
	if (job->hw_fence.ops)
		dma_fence_put(&job->hw_fence);
	else
		call_rcu(&job->hw_fence.rcu, gembuf_job_free_rcu);
}

static void gembuf_job_free_work(struct work_struct *work)
{
	gembuf_job_put(container_of(work, struct gembuf_job, free_work));
}

static void gembuf_sched_free_job(struct drm_sched_job *sched_job)
{
	struct gembuf_job *job = to_gembuf_job(sched_job);

	drm_sched_job_cleanup(sched_job);
	/*
	 * The job may hold the last references to its objects, and they
	 * to the DRM device, whose release stops this scheduler: drop them
	 * outside the scheduler's own workqueues, on one the module drains
	 * before it goes.
	 */
	queue_work(gembuf_free_wq, &job->free_work);
}

static const struct drm_sched_backend_ops gembuf_sched_ops = {
	.run_job = gembuf_sched_run_job,
	.timedout_job = gembuf_sched_timedout_job,
	.free_job = gembuf_sched_free_job,
};

static int gembuf_check_range(struct drm_gem_object *gem, u64 offset, u64 size)
{
	if (!size || size > GEMBUF_DMA_MAX_SIZE || !IS_ALIGNED(offset, 4) ||
	    !IS_ALIGNED(size, 4))
		return -EINVAL;
	if (offset > gem->size || size > gem->size - offset)
		return -EINVAL;
	return 0;
}

/*
 * Lock the job's objects, make it wait for the fences on them (writers
 * of what it reads, everyone on what it writes), and queue it on the
 * file's entity with its fence in their reservation objects.
 */
static int gembuf_job_submit(struct gembuf_job *job, struct gembuf_file *gf)
{
	struct drm_gem_object *dst = &job->dst->base;
	struct drm_gem_object *src = job->src ? &job->src->base : NULL;
	struct dma_fence *fence;
	struct drm_exec exec;
	int ret;

	/* An object and its view on the other device share one resv. */
	if (src && src->resv == dst->resv)
		src = NULL;

	drm_exec_init(&exec, DRM_EXEC_INTERRUPTIBLE_WAIT, 2);
	drm_exec_until_all_locked(&exec) {
		ret = drm_exec_prepare_obj(&exec, dst, 1);
		drm_exec_retry_on_contention(&exec);
		if (ret)
			goto out;
		if (src) {
			ret = drm_exec_prepare_obj(&exec, src, 1);
			drm_exec_retry_on_contention(&exec);
			if (ret)
				goto out;
		}
	}

	ret = drm_sched_job_add_implicit_dependencies(&job->base, dst, true);
	if (!ret && job->src)
		ret = drm_sched_job_add_implicit_dependencies(&job->base,
							      &job->src->base,
							      false);
	if (ret)
		goto out;

	mutex_lock(&gf->lock);
	drm_sched_job_arm(&job->base);
	fence = &job->base.s_fence->finished;
	dma_resv_add_fence(dst->resv, fence, DMA_RESV_USAGE_WRITE);
	if (src)
		dma_resv_add_fence(src->resv, fence, DMA_RESV_USAGE_READ);
	if (job->out_chain) {
		drm_syncobj_add_point(job->out_syncobj, job->out_chain, fence,
				      job->out_point);
		job->out_chain = NULL;
	} else if (job->out_syncobj) {
		drm_syncobj_replace_fence(job->out_syncobj, fence);
	}
	drm_sched_entity_push_job(&job->base);
	mutex_unlock(&gf->lock);
out:
	drm_exec_fini(&exec);
	return ret;
}

static struct gembuf_engine *gembuf_engine_of(struct drm_device *dev)
{
	struct gembuf_device *gdev = to_gembuf_device(dev);

	return gdev->role == GEMBUF_ENGINE ? gdev->engine : NULL;
}

/* The object of @handle, as the job's destination or source. */
static int gembuf_job_lookup(struct gembuf_job *job, struct drm_file *file,
			     u32 handle, bool dst)
{
	struct drm_gem_object *gem = drm_gem_object_lookup(file, handle);

	if (!gem)
		return -ENOENT;
	if (dst)
		job->dst = to_gembuf_object(gem);
	else
		job->src = to_gembuf_object(gem);
	return 0;
}

/* The engine's mapping of @obj, for the job to hold. */
static struct gembuf_mapping *gembuf_job_map(struct gembuf_job *job,
					     struct gembuf_object *obj)
{
	struct gembuf_mapping *map;

	/* The object keeps its first mapping; each job holds it too. */
	if (!READ_ONCE(obj->engine_map)) {
		map = gembuf_mapping_get(obj, job->engine->gdev);
		if (IS_ERR(map))
			return map;
		if (cmpxchg(&obj->engine_map, NULL, map))
			gembuf_mapping_put(obj, map);
	}
	return gembuf_mapping_get(obj, job->engine->gdev);
}

/* Map the job's objects for the engine, once every argument is checked. */
static int gembuf_job_map_objects(struct gembuf_job *job)
{
	struct gembuf_mapping *map;

	map = gembuf_job_map(job, job->dst);
	if (IS_ERR(map))
		return PTR_ERR(map);
	job->dst_map = map;
	job->dst_addr += vcm_get_dev_addr(map->res);
	if (!job->src)
		return 0;
	map = gembuf_job_map(job, job->src);
	if (IS_ERR(map))
		return PTR_ERR(map);
	job->src_map = map;
	job->src_addr += vcm_get_dev_addr(map->res);
	return 0;
}

/*
 * The job's explicit synchronisation: it waits for the fences of its
 * in-syncobjs, and its out-syncobj is looked up (and, for a timeline,
 * its node allocated) now, so that nothing can fail once it is armed.
 */
static int gembuf_job_syncs(struct gembuf_job *job, struct drm_file *file,
			    u64 in_syncs, u32 count,
			    const struct drm_gembuf_sync *out)
{
	struct drm_gembuf_sync __user *user = u64_to_user_ptr(in_syncs);
	struct drm_gembuf_sync sync;
	struct dma_fence *fence;
	u32 i;
	int ret;

	for (i = 0; i < count; i++) {
		if (copy_from_user(&sync, &user[i], sizeof(sync)))
			return -EFAULT;
		if (sync.flags)
			return -EINVAL;
		/* Points are 64-bit: not drm_sched_job_add_syncobj_dependency(). */
		ret = drm_syncobj_find_fence(file, sync.handle, sync.point, 0,
					     &fence);
		if (!ret)
			ret = drm_sched_job_add_dependency(&job->base, fence);
		if (ret)
			return ret;
	}

	if (!out->handle)
		return 0;
	job->out_syncobj = drm_syncobj_find(file, out->handle);
	if (!job->out_syncobj)
		return -ENOENT;
	if (out->point) {
		job->out_chain = dma_fence_chain_alloc();
		if (!job->out_chain)
			return -ENOMEM;
		job->out_point = out->point;
	}
	return 0;
}

/*
 * The job, or an ERR_PTR() for a device without engine or bad scalar
 * arguments, checked before anything is looked up or mapped.
 */
static struct gembuf_job *gembuf_job_begin(struct drm_device *dev,
					   struct drm_file *file, u32 flags,
					   u32 pad, u32 pad2, u32 in_sync_count,
					   const struct drm_gembuf_sync *out)
{
	struct gembuf_engine *engine = gembuf_engine_of(dev);
	struct gembuf_file *gf = file->driver_priv;
	struct gembuf_job *job;
	int ret;

	if (!engine)
		return ERR_PTR(-EOPNOTSUPP);
	if (flags || pad || pad2 || in_sync_count > GEMBUF_MAX_IN_SYNCS ||
	    out->flags || (!out->handle && out->point))
		return ERR_PTR(-EINVAL);
	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job)
		return ERR_PTR(-ENOMEM);
	ret = drm_sched_job_init(&job->base, &gf->entity, 1, NULL,
				 file->client_id);
	if (ret) {
		kfree(job);
		return ERR_PTR(ret);
	}
	job->engine = engine;
	INIT_WORK(&job->work, gembuf_job_work);
	INIT_WORK(&job->free_work, gembuf_job_free_work);
	/* Released by gembuf_job_free_rcu(). */
	__module_get(THIS_MODULE);
	atomic_inc(&gembuf.jobs);
	return job;
}

/* Submit a job that was set up without error, or undo it. */
static int gembuf_job_end(struct gembuf_job *job, struct drm_file *file,
			  int ret)
{
	if (!ret)
		ret = gembuf_job_submit(job, file->driver_priv);
	if (ret) {
		drm_sched_job_cleanup(&job->base);
		gembuf_job_put(job);
	}
	return ret;
}

static int gembuf_dma_fill(struct drm_device *dev,
			   struct drm_gembuf_dma_fill *args,
			   struct drm_file *file)
{
	struct gembuf_job *job;
	int ret;

	job = gembuf_job_begin(dev, file, args->flags, args->pad, args->pad2,
			       args->in_sync_count, &args->out_sync);
	if (IS_ERR(job))
		return PTR_ERR(job);
	ret = gembuf_job_lookup(job, file, args->handle, true);
	if (!ret)
		ret = gembuf_check_range(&job->dst->base, args->offset, args->size);
	if (!ret)
		ret = gembuf_job_syncs(job, file, args->in_syncs,
				       args->in_sync_count, &args->out_sync);
	if (!ret) {
		job->dst_addr = args->offset;
		job->size = args->size;
		job->value = args->value;
		ret = gembuf_job_map_objects(job);
	}
	return gembuf_job_end(job, file, ret);
}

static int gembuf_dma_copy(struct drm_device *dev,
			   struct drm_gembuf_dma_copy *args,
			   struct drm_file *file)
{
	struct gembuf_job *job;
	int ret;

	job = gembuf_job_begin(dev, file, args->flags, args->pad, args->pad2,
			       args->in_sync_count, &args->out_sync);
	if (IS_ERR(job))
		return PTR_ERR(job);
	ret = gembuf_job_lookup(job, file, args->dst_handle, true);
	if (!ret)
		ret = gembuf_job_lookup(job, file, args->src_handle, false);
	if (!ret)
		ret = gembuf_check_range(&job->dst->base, args->dst_offset, args->size);
	if (!ret)
		ret = gembuf_check_range(&job->src->base, args->src_offset, args->size);
	/* Overlapping ranges of one object would read what they write. */
	if (!ret && job->dst->real == job->src->real &&
	    args->dst_offset < args->src_offset + args->size &&
	    args->src_offset < args->dst_offset + args->size)
		ret = -EINVAL;
	if (!ret)
		ret = gembuf_job_syncs(job, file, args->in_syncs,
				       args->in_sync_count, &args->out_sync);
	if (!ret) {
		job->dst_addr = args->dst_offset;
		job->src_addr = args->src_offset;
		job->size = args->size;
		ret = gembuf_job_map_objects(job);
	}
	return gembuf_job_end(job, file, ret);
}

/* The ioctls touch the device's VCM: not once it is unplugged. */
int gembuf_dma_fill_ioctl(struct drm_device *dev, void *data,
			  struct drm_file *file)
{
	int idx, ret;

	if (!drm_dev_enter(dev, &idx))
		return -ENODEV;
	ret = gembuf_dma_fill(dev, data, file);
	drm_dev_exit(idx);
	return ret;
}

int gembuf_dma_copy_ioctl(struct drm_device *dev, void *data,
			  struct drm_file *file)
{
	int idx, ret;

	if (!drm_dev_enter(dev, &idx))
		return -ENODEV;
	ret = gembuf_dma_copy(dev, data, file);
	drm_dev_exit(idx);
	return ret;
}

/**
 * gembuf_engine_open() - give a new file of the engine its scheduler entity
 * @dev: the engine's DRM device
 * @file: the file
 *
 * Return: 0 or a negative errno.
 */
int gembuf_engine_open(struct drm_device *dev, struct drm_file *file)
{
	struct drm_gpu_scheduler *sched = &to_gembuf_device(dev)->engine->sched;
	struct gembuf_file *gf;
	int ret;

	gf = kzalloc(sizeof(*gf), GFP_KERNEL);
	if (!gf)
		return -ENOMEM;
	ret = drm_sched_entity_init(&gf->entity, DRM_SCHED_PRIORITY_NORMAL,
				    &sched, 1, NULL);
	if (ret) {
		kfree(gf);
		return ret;
	}
	mutex_init(&gf->lock);
	file->driver_priv = gf;
	return 0;
}

/**
 * gembuf_engine_postclose() - drop a closed file's entity
 * @dev: the engine's DRM device
 * @file: the file
 *
 * drm_sched_entity_destroy(): waits (killably) for the file's queued
 * jobs; a process that is exiting waits at most a second, and the jobs
 * left are cancelled (-ESRCH) once their dependencies have signalled.
 */
void gembuf_engine_postclose(struct drm_device *dev, struct drm_file *file)
{
	struct gembuf_file *gf = file->driver_priv;

	drm_sched_entity_destroy(&gf->entity);
	mutex_destroy(&gf->lock);
	kfree(gf);
}

/* The last of the DRM device: the engine joins the retired ones. */
static void gembuf_engine_retire(struct drm_device *dev, void *data)
{
	struct gembuf_engine *engine = data;

	mutex_lock(&gembuf_retired_lock);
	list_add(&engine->retired, &gembuf_retired_engines);
	mutex_unlock(&gembuf_retired_lock);
}

static void gembuf_engine_destroy_wq(struct drm_device *dev, void *data)
{
	struct gembuf_engine *engine = data;

	destroy_workqueue(engine->hw_wq);
}

static void gembuf_engine_sched_fini(struct drm_device *dev, void *data)
{
	struct gembuf_engine *engine = data;

	drm_sched_fini(&engine->sched);
}

static void gembuf_engine_device_fini(struct drm_device *dev, void *data)
{
	gembuf_device_fini(data);
}

/* The page fills are loaded from, mapped for the engine and the CPU. */
static int gembuf_engine_pattern_init(struct gembuf_engine *engine)
{
	struct gembuf_device *gdev = engine->gdev;
	int ret;

	engine->pattern = gembuf_object_create(&gdev->drm, PAGE_SIZE, 0,
					       GEMBUF_CACHE_WB, NULL, 0);
	if (IS_ERR(engine->pattern))
		return PTR_ERR(engine->pattern);
	engine->pattern_map = gembuf_mapping_get(engine->pattern, gdev);
	if (IS_ERR(engine->pattern_map)) {
		ret = PTR_ERR(engine->pattern_map);
		goto err_pattern;
	}
	engine->pattern_vaddr = gembuf_vmap(engine->pattern);
	if (IS_ERR(engine->pattern_vaddr)) {
		ret = PTR_ERR(engine->pattern_vaddr);
		goto err_map;
	}
	return 0;

err_map:
	gembuf_mapping_put(engine->pattern, engine->pattern_map);
err_pattern:
	drm_gem_object_put(&engine->pattern->base);
	return ret;
}

static void gembuf_engine_pattern_fini(struct gembuf_engine *engine)
{
	gembuf_vunmap(engine->pattern);
	gembuf_mapping_put(engine->pattern, engine->pattern_map);
	drm_gem_object_put(&engine->pattern->base);
}

static int gembuf_engine_probe(struct pci_dev *pdev,
			       const struct pci_device_id *id)
{
	const struct drm_sched_init_args sched_args = {
		.ops = &gembuf_sched_ops,
		.num_rqs = DRM_SCHED_PRIORITY_COUNT,
		/* edu runs one transfer at a time: one job in flight. */
		.credit_limit = 1,
		.timeout = msecs_to_jiffies(GEMBUF_JOB_TIMEOUT_MS),
		.name = "gembuf-edu",
		.dev = &pdev->dev,
	};
	struct gembuf_engine *engine;
	struct gembuf_device *gdev;
	unsigned int index;
	void __iomem *regs;
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = pcim_iomap_regions(pdev, BIT(0), KBUILD_MODNAME);
	if (ret)
		return ret;
	regs = pcim_iomap_table(pdev)[0];
	if (!gembuf_edu_present(regs))
		return -ENODEV;
	index = gembuf_edu_index(pdev);
	ret = gembuf_edu_dma_bits(index);
	if (ret < 0)
		return ret;
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(ret));
	if (ret)
		return ret;
	pci_set_master(pdev);

	gdev = devm_drm_dev_alloc(&pdev->dev, &gembuf_engine_driver,
				  struct gembuf_device, drm);
	if (IS_ERR(gdev))
		return PTR_ERR(gdev);
	/*
	 * What files, jobs and objects use lives with the DRM device, which
	 * they keep, not with the PCI device, which may be unbound first;
	 * the engine itself stays until the module goes.
	 */
	engine = kzalloc(sizeof(*engine), GFP_KERNEL);
	if (!engine)
		return -ENOMEM;
	ret = drmm_add_action_or_reset(&gdev->drm, gembuf_engine_retire, engine);
	if (ret)
		return ret;
	engine->regs = regs;
	engine->gdev = gdev;
	gdev->index = 1 + index;
	mutex_init(&engine->reset_lock);
	gdev->engine = engine;
	engine->hw_context = dma_fence_context_alloc(1);
	/* It signals fences, which memory reclaim may wait for. */
	engine->hw_wq = alloc_ordered_workqueue("gembuf-edu", WQ_MEM_RECLAIM);
	if (!engine->hw_wq)
		return -ENOMEM;
	ret = drmm_add_action_or_reset(&gdev->drm, gembuf_engine_destroy_wq, engine);
	if (ret)
		return ret;
	ret = drm_sched_init(&engine->sched, &sched_args);
	if (ret)
		return ret;
	ret = drmm_add_action_or_reset(&gdev->drm, gembuf_engine_sched_fini, engine);
	if (ret)
		return ret;
	ret = gembuf_device_init(gdev, GEMBUF_ENGINE);
	if (ret)
		return ret;
	ret = drmm_add_action_or_reset(&gdev->drm, gembuf_engine_device_fini, gdev);
	if (ret)
		return ret;

	ret = gembuf_engine_pattern_init(engine);
	if (ret)
		return ret;
	ret = drm_dev_register(&gdev->drm, 0);
	if (ret) {
		gembuf_engine_pattern_fini(engine);
		return ret;
	}
	pci_set_drvdata(pdev, gdev);
	/* Found by PRIME and the tests only once it works. */
	mutex_lock(&gembuf.engine_lock);
	list_add_tail(&gdev->engine_node, &gembuf.engines);
	mutex_unlock(&gembuf.engine_lock);
	return 0;
}

static void gembuf_engine_remove(struct pci_dev *pdev)
{
	struct gembuf_device *gdev = pci_get_drvdata(pdev);
	struct gembuf_engine *engine = gdev->engine;

	/*
	 * No ioctl or job touches edu after this: ioctls fail with -ENODEV,
	 * the job on the engine stops at its next transfer and jobs still
	 * to run signal -ENODEV.  The device leaves the engine's IOMMU
	 * domain; files, objects, mappings and the scheduler stay until
	 * the last of them goes.
	 */
	mutex_lock(&gembuf.engine_lock);
	list_del_init(&gdev->engine_node);
	mutex_unlock(&gembuf.engine_lock);
	/* A test that borrowed edu gives it back first. */
	mutex_lock(&engine->reset_lock);
	engine->removing = true;
	mutex_unlock(&engine->reset_lock);
	wait_var_event(&engine->lent, !READ_ONCE(engine->lent));
	drm_dev_unplug(&gdev->drm);
	flush_workqueue(engine->hw_wq);
	gembuf_engine_pattern_fini(engine);
	vcm_deactivate(gdev->avcm);
	gembuf_prime_revoke_imports(gdev);
}

/**
 * gembuf_engine_get() - an engine device, with a reference
 * @dev: the struct device it must be, or NULL for the first engine
 *
 * Return: the engine's gembuf device with a DRM device reference the
 * caller drops with drm_dev_put(), or NULL when no edu is bound (or @dev
 * is not an engine's).
 */
struct gembuf_device *gembuf_engine_get(struct device *dev)
{
	struct gembuf_device *gdev, *found = NULL;

	mutex_lock(&gembuf.engine_lock);
	list_for_each_entry(gdev, &gembuf.engines, engine_node) {
		if (!dev || gdev->drm.dev == dev) {
			found = gdev;
			drm_dev_get(&found->drm);
			break;
		}
	}
	mutex_unlock(&gembuf.engine_lock);
	return found;
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * gembuf_engine_lend() - lend edu to a test
 * @lease: filled in with the device and its registers
 *
 * Only one driver binds edu: the VCM tests that need a DMA master behind
 * an IOMMU (the vcm_edu suite) borrow the engine's.  The job on edu, if
 * any, finishes and the scheduler stops (jobs submitted meanwhile wait
 * in it); the device leaves the engine's IOMMU domain so that the
 * borrower can attach domains of its own; and it stays bound: removal
 * waits for gembuf_engine_return().  The borrower drives edu with
 * gembuf_edu_dma(), one command at a time, and detaches its own domains
 * before giving edu back.
 *
 * Return: 0, -ENODEV without an engine, -EBUSY when edu is lent already,
 * or the error of leaving the engine's domain.
 */
int gembuf_engine_lend(struct gembuf_edu_lease *lease)
{
	struct gembuf_engine *engine;
	struct gembuf_device *gdev;
	int ret;

	gdev = gembuf_engine_get(NULL);
	if (!gdev)
		return -ENODEV;
	engine = gdev->engine;
	mutex_lock(&engine->reset_lock);
	ret = engine->removing ? -ENODEV : engine->lent ? -EBUSY : 0;
	if (ret)
		goto err_unlock;
	/*
	 * No job starts; the one on edu finishes; finished jobs are
	 * collected and the timeout is cancelled (a timeout that fired
	 * already finds the engine lent: see gembuf_sched_timedout_job()).
	 */
	drm_sched_wqueue_stop(&engine->sched);
	flush_workqueue(engine->hw_wq);
	drm_sched_stop(&engine->sched, NULL);
	ret = vcm_deactivate(gdev->avcm);
	if (ret) {
		drm_sched_start(&engine->sched);
		goto err_unlock;
	}
	engine->lent = true;
	mutex_unlock(&engine->reset_lock);
	lease->gdev = gdev;
	lease->dev = gdev->drm.dev;
	lease->regs = engine->regs;
	return 0;

err_unlock:
	mutex_unlock(&engine->reset_lock);
	drm_dev_put(&gdev->drm);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(gembuf_engine_lend);

/**
 * gembuf_engine_return() - give edu back to the engine
 * @lease: the lease of gembuf_engine_lend()
 *
 * The device goes back to the engine's domain and jobs run again.  If it
 * cannot (the borrower left a domain of its own attached), the engine is
 * wedged: its jobs fail with -EIO without touching edu, which would DMA
 * through the wrong page tables.
 */
void gembuf_engine_return(struct gembuf_edu_lease *lease)
{
	struct gembuf_device *gdev = lease->gdev;
	struct gembuf_engine *engine = gdev->engine;
	int ret;

	mutex_lock(&engine->reset_lock);
	ret = vcm_activate(gdev->avcm);
	if (ret) {
		drm_err(&gdev->drm, "edu not back in the engine's domain (%d): engine wedged\n",
			ret);
		WRITE_ONCE(engine->wedged, true);
	}
	drm_sched_start(&engine->sched);
	engine->lent = false;
	mutex_unlock(&engine->reset_lock);
	wake_up_var(&engine->lent);
	lease->dev = NULL;
	drm_dev_put(&gdev->drm);
}
EXPORT_SYMBOL_IF_KUNIT(gembuf_engine_return);
#endif

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
	int ret;

	gembuf_free_wq = alloc_workqueue("gembuf-free", 0, 0);
	if (!gembuf_free_wq)
		return -ENOMEM;
	ret = pci_register_driver(&gembuf_engine_driver_pci);
	if (ret)
		destroy_workqueue(gembuf_free_wq);
	return ret;
}

/**
 * gembuf_engine_unregister() - stop driving edu
 */
void gembuf_engine_unregister(void)
{
	pci_unregister_driver(&gembuf_engine_driver_pci);
	/* Jobs still being freed run module code: wait for them. */
	destroy_workqueue(gembuf_free_wq);
}

/**
 * gembuf_engine_free_retired() - free the engines of released devices
 *
 * Called when the module goes, after its last job was freed.
 */
void gembuf_engine_free_retired(void)
{
	struct gembuf_engine *engine, *next;

	list_for_each_entry_safe(engine, next, &gembuf_retired_engines, retired)
		kfree(engine);
}
