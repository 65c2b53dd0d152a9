// SPDX-License-Identifier: GPL-2.0-only
/*
 * The jobs of the gembuf DMA engine: fills and copies of objects, run on
 * edu (gembuf_engine.c).
 *
 * Jobs go through drm_sched: each open file has its own entity, so its
 * jobs run in the order it submitted them and a job waiting for a fence
 * holds up only the jobs of its own file.  A job's dependencies are the
 * fences in its objects' reservation objects (locked with drm_exec); its
 * scheduler fence goes there in turn.  One job runs at a time; a job
 * that keeps the engine longer than GEMBUF_JOB_TIMEOUT_MS is stopped and
 * the next one runs.
 *
 * drm_sched bounds the jobs on the engine (its credits), not those
 * waiting in an entity: a file may have at most GEMBUF_MAX_QUEUED jobs
 * submitted and not yet released, and a submission past that fails
 * with -EAGAIN (see gembuf_job_begin()).
 */

#include <drm/drm_drv.h>
#include <drm/drm_exec.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>
#include <drm/gembuf_drm.h>
#include <drm/gpu_scheduler.h>
#include <linux/delay.h>
#include <linux/dma-fence.h>
#include <linux/dma-fence-chain.h>
#include <linux/dma-resv.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>

#include "gembuf_drv.h"
#include "gembuf_edu.h"
#include "gembuf_engine.h"

/**
 * struct gembuf_job - one fill or copy
 * @base: the scheduler's job
 * @hw_fence: signalled when the engine is done with the job; once
 *	initialised it owns the job's memory
 * @work: runs the job's transfers on &gembuf_engine.hw_wq
 * @free_work: drops what the job holds once the scheduler is done with it
 * @engine: the engine
 * @gf: the submitting file's state, held for the engine time the job
 *	adds to it
 * @dst: the object written
 * @src: the object read for a copy, or NULL for a fill
 * @dst_map: the engine's mapping of @dst
 * @src_map: the engine's mapping of @src
 * @dst_off: first byte of @dst written
 * @src_off: first byte of @src read
 * @size: bytes
 * @value: fill word
 * @out_syncobj: the syncobj that gets the job's fence, or NULL
 * @out_chain: the timeline node for it, or NULL for a binary syncobj
 * @out_point: the timeline point
 * @done: its hardware fence signalled: counted in &gembuf_engine.done
 *	until it is released
 */
struct gembuf_job {
	struct drm_sched_job base;
	struct dma_fence hw_fence;
	struct work_struct work;
	struct work_struct free_work;
	struct gembuf_engine *engine;
	struct gembuf_file *gf;
	struct gembuf_object *dst, *src;
	struct gembuf_mapping *dst_map, *src_map;
	u64 dst_off, src_off;
	u64 size;
	u32 value;
	struct drm_syncobj *out_syncobj;
	struct dma_fence_chain *out_chain;
	u64 out_point;
	bool done;
};

/* How long a job waits for address space that done jobs are giving back. */
#define GEMBUF_RELEASE_WAIT	HZ

static inline struct gembuf_job *to_gembuf_job(struct drm_sched_job *job)
{
	return container_of(job, struct gembuf_job, base);
}

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

/*
 * A position in the DMA segments of an engine mapping: the DMA API gives
 * segments that nothing promises to be adjacent, and edu moves a few KiB
 * at a time, so a transfer never crosses one.
 */
struct gembuf_dma_cursor {
	struct scatterlist *sg;
	u64 off;
};

/* Start at byte @off of @map's segments. */
static int gembuf_dma_cursor_init(struct gembuf_dma_cursor *cur,
				  struct gembuf_mapping *map, u64 off)
{
	struct sg_table *sgt = vcm_get_dma_sgt(map->res);
	unsigned int i;

	if (!sgt)
		return -ENODEV;
	for_each_sgtable_dma_sg(sgt, cur->sg, i) {
		if (off < sg_dma_len(cur->sg)) {
			cur->off = off;
			return 0;
		}
		off -= sg_dma_len(cur->sg);
	}
	return -EFAULT;
}

/* The device address there, and the bytes left in its segment. */
static dma_addr_t gembuf_dma_cursor_addr(const struct gembuf_dma_cursor *cur,
					 u64 *left)
{
	*left = sg_dma_len(cur->sg) - cur->off;
	return sg_dma_address(cur->sg) + cur->off;
}

static void gembuf_dma_cursor_advance(struct gembuf_dma_cursor *cur, u32 n)
{
	cur->off += n;
	if (cur->off == sg_dma_len(cur->sg)) {
		cur->sg = sg_next(cur->sg);
		cur->off = 0;
	}
}

static int gembuf_job_run(struct gembuf_job *job)
{
	struct gembuf_engine *engine = job->engine;
	struct gembuf_dma_cursor dst, src;
	u64 done = 0;
	int ret = 0;

	if (should_fail(&gembuf_fail_job, job->size))
		return -EIO;
	if (should_fail(&gembuf_hang_job, job->size))
		return gembuf_job_hang(engine);
	ret = gembuf_dma_cursor_init(&dst, job->dst_map, job->dst_off);
	if (!ret && job->src)
		ret = gembuf_dma_cursor_init(&src, job->src_map, job->src_off);
	if (ret)
		return ret;
	/* What the CPU wrote, for edu; and back for the CPU at the end. */
	if (job->src) {
		vcm_sync_for_device(job->src_map->res);
		gembuf_prime_sync_import(job->src, false);
	}
	vcm_sync_for_device(job->dst_map->res);
	gembuf_prime_sync_import(job->dst, false);
	if (!job->src) {
		unsigned int i;

		for (i = 0; i < GEMBUF_EDU_XFER / 4; i++)
			engine->pattern_vaddr[i] = job->value;
		vcm_sync_for_device(engine->pattern_map->res);
		ret = gembuf_edu_dma(engine->regs,
				     vcm_get_dev_addr(engine->pattern_map->res),
				     0, GEMBUF_EDU_XFER, false);
	}
	while (!ret && done < job->size) {
		u64 dst_left, src_left = U64_MAX;
		dma_addr_t dst_addr, src_addr = 0;
		u32 n;

		dst_addr = gembuf_dma_cursor_addr(&dst, &dst_left);
		if (job->src)
			src_addr = gembuf_dma_cursor_addr(&src, &src_left);
		n = min3(job->size - done, (u64)GEMBUF_EDU_XFER,
			 min(dst_left, src_left));

		/* Reset or removal stop a job between transfers. */
		if (READ_ONCE(engine->reset))
			ret = -ETIMEDOUT;
		else if (drm_dev_is_unplugged(&engine->gdev->drm))
			ret = -ENODEV;
		if (ret)
			break;
		if (job->src)
			ret = gembuf_edu_dma(engine->regs, src_addr, 0, n, false);
		if (!ret)
			ret = gembuf_edu_dma(engine->regs, dst_addr, 0, n, true);
		done += n;
		gembuf_dma_cursor_advance(&dst, n);
		if (job->src)
			gembuf_dma_cursor_advance(&src, n);
	}
	vcm_sync_for_cpu(job->dst_map->res);
	gembuf_prime_sync_import(job->dst, true);
	if (job->src) {
		vcm_sync_for_cpu(job->src_map->res);
		gembuf_prime_sync_import(job->src, true);
	}
	return ret;
}

/*
 * The engine time of a file (fdinfo's drm-engine-dma): a job counts from
 * when it starts on the engine to when it is done, a job that hangs the
 * engine until the reset included; not while it waits for its
 * dependencies or for the engine.  The engine runs one job at a time, on
 * its ordered hw_wq, so a file has at most one job started.
 */
static void gembuf_job_busy_begin(struct gembuf_job *job)
{
	struct gembuf_file *gf = job->gf;

	spin_lock(&gf->stats_lock);
	/* One job at a time on the engine (credit_limit 1, ordered hw_wq). */
	WARN_ON_ONCE(gf->busy_since);
	gf->busy_since = ktime_get_ns();
	spin_unlock(&gf->stats_lock);
}

static void gembuf_job_busy_end(struct gembuf_job *job)
{
	struct gembuf_file *gf = job->gf;

	spin_lock(&gf->stats_lock);
	gf->busy_ns += ktime_get_ns() - gf->busy_since;
	gf->busy_since = 0;
	spin_unlock(&gf->stats_lock);
}

/*
 * Signal the job's hardware fence.  It gives its mappings back a moment
 * later, when the scheduler frees it: counted till then, for
 * gembuf_job_map_evicting().
 */
static void gembuf_job_signal(struct gembuf_job *job)
{
	job->done = true;
	atomic_inc(&job->engine->done);
	dma_fence_signal(&job->hw_fence);
}

static void gembuf_job_work(struct work_struct *work)
{
	struct gembuf_job *job = container_of(work, struct gembuf_job, work);
	bool cookie = dma_fence_begin_signalling();
	int idx, ret = -ENODEV;

	if (drm_dev_enter(&job->engine->gdev->drm, &idx)) {
		gembuf_job_busy_begin(job);
		ret = gembuf_job_run(job);
		gembuf_job_busy_end(job);
		drm_dev_exit(idx);
	}
	if (ret)
		dma_fence_set_error(&job->hw_fence, ret);
	gembuf_job_signal(job);
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
		gembuf_job_signal(job);
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
 *
 * Nothing else stops or starts the scheduler, and drm_sched runs one
 * timeout handler of the engine at a time (its one timeout work): no
 * lock is needed around the reset.
 */
static enum drm_gpu_sched_stat
gembuf_sched_timedout_job(struct drm_sched_job *sched_job)
{
	struct gembuf_job *job = to_gembuf_job(sched_job);
	struct gembuf_engine *engine = job->engine;

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
	if (job->done) {
		/* Its address space is free: see gembuf_job_map_evicting(). */
		atomic_dec(&job->engine->done);
		atomic_inc(&job->engine->released);
		wake_up_all(&job->engine->release_wq);
	}
	if (job->dst)
		drm_gem_object_put(&job->dst->vcm.base);
	if (job->src)
		drm_gem_object_put(&job->src->vcm.base);
	if (job->out_syncobj)
		drm_syncobj_put(job->out_syncobj);
	dma_fence_chain_free(job->out_chain);
	/* What the job held is gone: its file may submit another. */
	atomic_dec(&job->gf->queued);
	gembuf_file_put(job->gf);
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

const struct drm_sched_backend_ops gembuf_sched_ops = {
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
	struct drm_gem_object *dst = &job->dst->vcm.base;
	struct drm_gem_object *src = job->src ? &job->src->vcm.base : NULL;
	struct dma_fence *fence;
	struct drm_exec exec;
	int ret;

	/* A copy inside one object (or one dma-buf's): one lock. */
	if (src && src->resv == dst->resv)
		src = NULL;
	/*
	 * The job may be done and released before drm_exec_fini(): its last
	 * reference to an object must not be drm_exec's, which goes while
	 * the other object is still locked, and an object's free takes its
	 * reservation lock (gembuf_gem_free()).
	 */
	drm_gem_object_get(dst);
	if (src)
		drm_gem_object_get(src);

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
							      &job->src->vcm.base,
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
	if (src)
		drm_gem_object_put(src);
	drm_gem_object_put(dst);
	return ret;
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

/**
 * gembuf_job_forget() - take a freed object off its engine's list
 * @obj: an object being freed, its engine mapping already dropped
 */
void gembuf_job_forget(struct gembuf_object *obj)
{
	struct gembuf_engine *engine = gembuf_engine_of(obj->vcm.base.dev);

	if (!engine)
		return;
	spin_lock(&engine->cached_lock);
	list_del_init(&obj->engine_node);
	spin_unlock(&engine->cached_lock);
}

/*
 * Take @obj's engine mapping from it if no job holds it; NULL if a job
 * does (or someone holds the object's lock), or it has none (@cached
 * says which).
 */
static struct gembuf_mapping *gembuf_job_idle_map(struct gembuf_object *obj,
						  bool *cached)
{
	struct gembuf_mapping *map;

	/* Another client's object: one being locked counts as busy. */
	if (!dma_resv_trylock(obj->vcm.base.resv)) {
		*cached = true;
		return NULL;
	}
	map = READ_ONCE(obj->engine_map);
	*cached = map;
	if (map && (map->users != 1 || cmpxchg(&obj->engine_map, map, NULL) != map))
		map = NULL;
	dma_resv_unlock(obj->vcm.base.resv);
	return map;
}

/*
 * Unmap the least recently used mapping no job holds.  Objects whose
 * mapping a job holds are set aside and go back behind the others, as
 * just used.  Returns false when no idle mapping was left.
 */
static bool gembuf_job_evict_one(struct gembuf_engine *engine)
{
	struct gembuf_mapping *map = NULL;
	struct gembuf_object *obj, *pos;
	LIST_HEAD(busy);
	bool cached;

	while (!map) {
		obj = NULL;
		spin_lock(&engine->cached_lock);
		list_for_each_entry(pos, &engine->cached, engine_node) {
			/* One being freed is taken off by gembuf_job_forget(). */
			if (kref_get_unless_zero(&pos->vcm.base.refcount)) {
				list_move_tail(&pos->engine_node, &busy);
				obj = pos;
				break;
			}
		}
		spin_unlock(&engine->cached_lock);
		if (!obj)
			break;
		map = gembuf_job_idle_map(obj, &cached);
		if (map || !cached) {
			spin_lock(&engine->cached_lock);
			list_del_init(&obj->engine_node);
			spin_unlock(&engine->cached_lock);
		}
		if (map)
			gembuf_mapping_put(obj, map);
		drm_gem_object_put(&obj->vcm.base);
	}
	spin_lock(&engine->cached_lock);
	list_splice_tail(&busy, &engine->cached);
	spin_unlock(&engine->cached_lock);
	return map;
}

/*
 * The engine's address space is one for every client, and what the DMA
 * API can map into it is bounded by the device's DMA mask (256 MiB for
 * QEMU's edu).  Objects keep their mapping after their jobs, so one
 * client's idle buffers could keep every other client's jobs out: when a
 * mapping does not fit (-ENOSPC), idle mappings go, least recently used
 * first, until it fits.  A job that is done gives its mappings back a
 * moment after its fence signalled, from the scheduler's free_job: with
 * no idle mapping left, wait for one of those, briefly, as the client
 * that submits may have just seen that fence.  What queued and running
 * jobs hold stays: the ioctls fail rather than wait for other clients'
 * fences, so a job whose own buffers do not fit beside theirs fails.
 */
static struct gembuf_mapping *gembuf_job_map_evicting(struct gembuf_engine *engine,
						      struct gembuf_object *obj)
{
	struct gembuf_mapping *map;
	long left;
	int seen;

	for (;;) {
		seen = atomic_read(&engine->released);
		map = gembuf_mapping_get(obj, engine->gdev, true);
		if (!IS_ERR(map) || PTR_ERR(map) != -ENOSPC)
			return map;
		if (gembuf_job_evict_one(engine))
			continue;
		if (!atomic_read(&engine->done))
			return map;
		left = wait_event_interruptible_timeout(engine->release_wq,
							atomic_read(&engine->released) != seen,
							GEMBUF_RELEASE_WAIT);
		if (left < 0)
			return ERR_PTR(left);
		if (!left)
			return map;
	}
}

/* The engine's mapping of @obj, for the job to hold. */
static struct gembuf_mapping *gembuf_job_map(struct gembuf_job *job,
					     struct gembuf_object *obj)
{
	struct gembuf_engine *engine = job->engine;
	struct gembuf_mapping *map, *keep;

	map = gembuf_job_map_evicting(engine, obj);
	if (IS_ERR(map))
		return map;
	/*
	 * The object keeps the mapping for later jobs: a second user of
	 * the one the job holds, which is found, not made.
	 */
	if (!READ_ONCE(obj->engine_map)) {
		keep = gembuf_mapping_get(obj, engine->gdev, true);
		if (!IS_ERR(keep) && cmpxchg(&obj->engine_map, NULL, keep))
			gembuf_mapping_put(obj, keep);
	}
	spin_lock(&engine->cached_lock);
	list_move_tail(&obj->engine_node, &engine->cached);
	spin_unlock(&engine->cached_lock);
	return map;
}

/* Map the job's objects for the engine, once every argument is checked. */
static int gembuf_job_map_objects(struct gembuf_job *job)
{
	struct gembuf_mapping *map;

	map = gembuf_job_map(job, job->dst);
	if (IS_ERR(map))
		return PTR_ERR(map);
	job->dst_map = map;
	if (!job->src)
		return 0;
	map = gembuf_job_map(job, job->src);
	if (IS_ERR(map))
		return PTR_ERR(map);
	job->src_map = map;
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
 * arguments, checked before anything is looked up or mapped, or -EAGAIN
 * for a file that has GEMBUF_MAX_QUEUED jobs already.
 *
 * A job takes a slot of its file's queue before anything is allocated
 * for it, and gives it back when it is released (gembuf_job_put()), be
 * it done, failed, cancelled or refused: no more than that many jobs of
 * a file hold objects, mappings, syncobjs and dependencies at once.  A
 * released job lives on only in its fence, as long as a reservation
 * object, a syncobj or a sync_file holds it.  The ioctl does not wait
 * for a slot: a job may wait for any fence, one that never signals too,
 * and the client, which has the fences of its jobs, can wait for one of
 * them itself, for as long as it chooses.
 */
static struct gembuf_job *gembuf_job_begin(struct drm_device *dev,
					   struct drm_file *file, u32 flags,
					   u32 pad, u32 pad2, u32 in_sync_count,
					   const struct drm_gembuf_sync *out)
{
	struct gembuf_engine *engine = to_gembuf_device(dev)->engine;
	struct gembuf_file *gf = file->driver_priv;
	struct gembuf_job *job;
	int ret;

	if (flags || pad || pad2 || in_sync_count > GEMBUF_MAX_IN_SYNCS ||
	    out->flags || (!out->handle && out->point))
		return ERR_PTR(-EINVAL);
	if (!atomic_add_unless(&gf->queued, 1, GEMBUF_MAX_QUEUED))
		return ERR_PTR(-EAGAIN);
	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job) {
		ret = -ENOMEM;
		goto err_slot;
	}
	ret = drm_sched_job_init(&job->base, &gf->entity, 1, NULL,
				 file->client_id);
	if (ret) {
		kfree(job);
		goto err_slot;
	}
	job->engine = engine;
	kref_get(&gf->ref);
	/* From here on gembuf_job_put() gives the slot back. */
	job->gf = gf;
	INIT_WORK(&job->work, gembuf_job_work);
	INIT_WORK(&job->free_work, gembuf_job_free_work);
	/* Released by gembuf_job_free_rcu(). */
	__module_get(THIS_MODULE);
	atomic_inc(&gembuf.jobs);
	return job;

err_slot:
	atomic_dec(&gf->queued);
	return ERR_PTR(ret);
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
		ret = gembuf_check_range(&job->dst->vcm.base, args->offset,
					 args->size);
	if (!ret)
		ret = gembuf_job_syncs(job, file, args->in_syncs,
				       args->in_sync_count, &args->out_sync);
	if (!ret) {
		job->dst_off = args->offset;
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
		ret = gembuf_check_range(&job->dst->vcm.base, args->dst_offset,
					 args->size);
	if (!ret)
		ret = gembuf_check_range(&job->src->vcm.base, args->src_offset,
					 args->size);
	/* Overlapping ranges of one object would read what they write. */
	if (!ret && job->dst == job->src &&
	    args->dst_offset < args->src_offset + args->size &&
	    args->src_offset < args->dst_offset + args->size)
		ret = -EINVAL;
	if (!ret)
		ret = gembuf_job_syncs(job, file, args->in_syncs,
				       args->in_sync_count, &args->out_sync);
	if (!ret) {
		job->dst_off = args->dst_offset;
		job->src_off = args->src_offset;
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
