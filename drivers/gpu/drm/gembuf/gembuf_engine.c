// SPDX-License-Identifier: GPL-2.0-only
/*
 * The gembuf DMA engine: QEMU's edu PCI device behind the IOMMU, used as
 * the device that writes frames into buffers (the camera or codec of a
 * real system).
 *
 * edu copies at most a few KiB per command between a device address and
 * a buffer inside the device.  A fill loads that buffer from a pattern
 * page and writes it out piece by piece; a copy moves each piece in and
 * out again.  edu stays on the DMA API: every device address is one of
 * the engine's DMA VCM, where objects are mapped on first use, or of its
 * own attachment of a dma-buf it imported.
 *
 * Its jobs are in gembuf_job.c.
 */

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_vcm_helper.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <drm/gembuf_drm.h>
#include <drm/gpu_scheduler.h>
#include <linux/dma-fence.h>
#include <linux/dma-mapping.h>
#include <linux/iosys-map.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "gembuf_drv.h"
#include "gembuf_edu.h"
#include "gembuf_engine.h"

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
struct workqueue_struct *gembuf_free_wq;

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
	kref_init(&gf->ref);
	spin_lock_init(&gf->stats_lock);
	file->driver_priv = gf;
	return 0;
}

static void gembuf_file_release(struct kref *ref)
{
	kfree(container_of(ref, struct gembuf_file, ref));
}

/**
 * gembuf_file_put() - drop a reference to a file's state
 * @gf: the state, held by its file until the postclose and by each of its
 *	jobs until the job is freed
 */
void gembuf_file_put(struct gembuf_file *gf)
{
	kref_put(&gf->ref, gembuf_file_release);
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
	/* The job on the engine, if any, still adds its time. */
	gembuf_file_put(gf);
}

/* Engine time of the file's jobs so far, the one on the engine included. */
static u64 gembuf_file_busy_ns(struct gembuf_file *gf)
{
	u64 ns;

	spin_lock(&gf->stats_lock);
	ns = gf->busy_ns;
	if (gf->busy_since)
		ns += ktime_get_ns() - gf->busy_since;
	spin_unlock(&gf->stats_lock);
	return ns;
}

/**
 * gembuf_engine_show_fdinfo() - a file's usage stats, for fdinfo
 * @p: the printer of drm_show_fdinfo(), which printed the common keys
 * @file: the file of the engine
 *
 * drm-engine-dma: how long the engine ran the file's jobs, each from
 * when it started on the engine to when it was done, the job now on the
 * engine up to now (Documentation/gpu/drm-usage-stats.rst).  edu runs
 * one job at a time, so there is no drm-engine-capacity-dma.  Then the
 * memory of the file's objects, from the DRM core.
 */
void gembuf_engine_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	drm_printf(p, "drm-engine-dma:\t%llu ns\n",
		   gembuf_file_busy_ns(file->driver_priv));
	drm_show_memory_stats(p, file);
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

/* The page fills are loaded from, mapped for the engine and the CPU. */
static int gembuf_engine_pattern_init(struct gembuf_engine *engine)
{
	struct gembuf_device *gdev = engine->gdev;
	struct iosys_map vmap;
	int ret;

	engine->pattern = gembuf_object_create(&gdev->drm, PAGE_SIZE, 0,
					       GEMBUF_CACHE_WB);
	if (IS_ERR(engine->pattern))
		return PTR_ERR(engine->pattern);
	engine->pattern_map = gembuf_mapping_get(engine->pattern, gdev, false);
	if (IS_ERR(engine->pattern_map)) {
		ret = PTR_ERR(engine->pattern_map);
		goto err_pattern;
	}
	ret = drm_gem_vmap_unlocked(&engine->pattern->vcm.base, &vmap);
	if (ret)
		goto err_map;
	engine->pattern_vaddr = vmap.vaddr;
	return 0;

err_map:
	gembuf_mapping_put(engine->pattern, engine->pattern_map);
err_pattern:
	drm_gem_object_put(&engine->pattern->vcm.base);
	return ret;
}

static void gembuf_engine_pattern_fini(struct gembuf_engine *engine)
{
	struct iosys_map vmap = IOSYS_MAP_INIT_VADDR(engine->pattern_vaddr);

	drm_gem_vunmap_unlocked(&engine->pattern->vcm.base, &vmap);
	gembuf_mapping_put(engine->pattern, engine->pattern_map);
	drm_gem_object_put(&engine->pattern->vcm.base);
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
	/*
	 * A job walks the segments of a mapping, each transfer within one:
	 * edu takes any address and length, so no limit (PCI's default is
	 * 64 KiB) needs to cut VCM's chunks into more segments.
	 */
	dma_set_max_seg_size(&pdev->dev, UINT_MAX);
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
	spin_lock_init(&engine->cached_lock);
	INIT_LIST_HEAD(&engine->cached);
	init_waitqueue_head(&engine->release_wq);
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
	/* Released with the DRM device, as everything above. */
	ret = gembuf_device_init(gdev, GEMBUF_ENGINE);
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
	return 0;
}

static void gembuf_engine_remove(struct pci_dev *pdev)
{
	struct gembuf_device *gdev = pci_get_drvdata(pdev);
	struct gembuf_engine *engine = gdev->engine;

	/*
	 * No ioctl or job touches edu after this: ioctls fail with -ENODEV,
	 * the job on the engine stops at its next transfer and jobs still
	 * to run signal -ENODEV.  Its DMA mappings go (no mapping may
	 * outlive the driver), and so do its attachments; files, objects
	 * and the scheduler stay until the last of them goes.
	 */
	drm_dev_unplug(&gdev->drm);
	flush_workqueue(engine->hw_wq);
	gembuf_engine_pattern_fini(engine);
	drm_gem_vcm_unplug(&gdev->gem_vcm);
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
 * Called when the module goes, after its last job was freed: at unload,
 * or when its load fails after the engines were probed.  The
 * scheduler's fences outlive it in sync_files and reservation objects,
 * and read the scheduler's name while they are unsignalled; every one of
 * them has signalled by now, and a reader that saw one unsignalled did
 * so under rcu_read_lock() (the dma-fence rule): free the schedulers, and
 * let the module and the name in it go, after a grace period.
 */
void gembuf_engine_free_retired(void)
{
	struct gembuf_engine *engine, *next;

	synchronize_rcu();
	mutex_lock(&gembuf_retired_lock);
	list_for_each_entry_safe(engine, next, &gembuf_retired_engines, retired)
		kfree(engine);
	INIT_LIST_HEAD(&gembuf_retired_engines);
	mutex_unlock(&gembuf_retired_lock);
}
