/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the gembuf DMA engine (gembuf_engine.c) and its jobs
 * (gembuf_job.c) share.
 */
#ifndef _GEMBUF_ENGINE_H_
#define _GEMBUF_ENGINE_H_

#include <drm/gpu_scheduler.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "gembuf_drv.h"

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
 * @cached_lock: protects @cached
 * @cached: the objects that hold a mapping for the engine
 *	(&gembuf_object.engine_map), least recently given to a job first:
 *	what gembuf_job_map() unmaps when the engine's address space is full
 * @done: jobs whose hardware fence signalled that still hold their
 *	mappings: each gives them back a moment later, when it is freed
 * @released: bumped each time one of @done is released
 * @release_wq: woken then, for a job waiting for address space
 * @retired: link in the list of engines whose device is gone
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
	spinlock_t cached_lock;	/* see the kernel-doc above */
	struct list_head cached;
	atomic_t done;
	atomic_t released;
	wait_queue_head_t release_wq;
	struct list_head retired;
};

/**
 * struct gembuf_file - an open file of the engine
 * @entity: the file's scheduler entity: its jobs run in submission order,
 *	and wait for nothing another file submitted unless they depend on it
 * @lock: orders arming and pushing of the file's jobs
 * @ref: held by the file until its postclose and by each of its jobs
 *	until the job is freed: a job may still be on the engine when its
 *	file is closed, and it adds its time when it is done
 * @stats_lock: protects @busy_ns and @busy_since
 * @busy_ns: nanoseconds the file's jobs that are done kept the engine
 *	busy, for fdinfo's drm-engine-dma
 * @busy_since: when the file's job now on the engine started
 *	(ktime_get_ns()), 0 when none is
 * @queued: the file's jobs submitted and not yet released, at most
 *	%GEMBUF_MAX_QUEUED: a slot is taken before a job is allocated and
 *	given back when the job drops what it holds (gembuf_job_put())
 */
struct gembuf_file {
	struct drm_sched_entity entity;
	struct mutex lock;	/* see the kernel-doc above */
	struct kref ref;
	spinlock_t stats_lock;	/* see the kernel-doc above */
	u64 busy_ns;
	u64 busy_since;
	atomic_t queued;
};

/*
 * How long a job may keep the engine.  edu runs one command of at most
 * 2 KiB per 100 ms, and a job is at most GEMBUF_DMA_MAX_SIZE, so the
 * longest, a copy, takes about 26 s; a job that takes longer than this
 * hangs the engine, is stopped with -ETIMEDOUT, and the next one runs.
 */
#define GEMBUF_JOB_TIMEOUT_MS	60000

/* Where jobs are freed; see gembuf_sched_free_job(). */
extern struct workqueue_struct *gembuf_free_wq;
extern const struct drm_sched_backend_ops gembuf_sched_ops;

void gembuf_file_put(struct gembuf_file *gf);

static inline struct gembuf_engine *gembuf_engine_of(struct drm_device *dev)
{
	struct gembuf_device *gdev = to_gembuf_device(dev);

	return gdev->role == GEMBUF_ENGINE ? gdev->engine : NULL;
}

#endif /* _GEMBUF_ENGINE_H_ */
