// SPDX-License-Identifier: GPL-2.0-only
/*
 * gembuf debugfs: the module's counters, on every gembuf DRM minor, and
 * fault injection into the work the drivers do outside any client's
 * task, where fail-nth cannot reach: "fail_job" fails DMA engine jobs
 * (their fences signal with -EIO), "hang_job" hangs the engine on a job
 * until the scheduler's timeout resets it (-ETIMEDOUT), "fail_compose"
 * fails the display's frames (writeback jobs complete with -ENOMEM).
 * All three are the kernel's fault attributes, there only with
 * CONFIG_FAULT_INJECTION_DEBUG_FS (Documentation/fault-injection/).
 */

#include <drm/drm_debugfs.h>
#include <drm/drm_file.h>
#include <linux/fault-inject.h>
#include <linux/seq_file.h>

#include "gembuf_kms.h"

DECLARE_FAULT_ATTR(gembuf_fail_job);
DECLARE_FAULT_ATTR(gembuf_hang_job);
DECLARE_FAULT_ATTR(gembuf_fail_compose);

static int gembuf_state_show(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct gembuf_kms *kms = to_gembuf_device(entry->dev)->kms;
	s64 composed = 0, compose_ns = 0, flips = 0, foreign = 0;
	unsigned int i;

	seq_printf(m, "objects %d\n", atomic_read(&gembuf.objects));
	seq_printf(m, "mappings %d\n", atomic_read(&gembuf.mappings));
	seq_printf(m, "jobs %d\n", atomic_read(&gembuf.jobs));
	if (!kms)
		return 0;
	/* The display's counters are summed over its CRTCs. */
	for (i = 0; i < GEMBUF_NUM_CRTCS; i++) {
		composed += atomic64_read(&kms->outputs[i].frames_composed);
		compose_ns += atomic64_read(&kms->outputs[i].compose_ns);
		flips += atomic64_read(&kms->outputs[i].fb_flips);
		foreign += atomic64_read(&kms->outputs[i].fb_flips_foreign);
	}
	seq_printf(m, "frames_composed %lld\n", composed);
	seq_printf(m, "compose_ns %lld\n", compose_ns);
	seq_printf(m, "fb_flips %lld\n", flips);
	seq_printf(m, "fb_flips_foreign %lld\n", foreign);
	return 0;
}

static const struct drm_debugfs_info gembuf_debugfs_list[] = {
	{ "gembuf_state", gembuf_state_show, 0 },
	{ "gembuf_objects", gembuf_place_show, 0 },
};

/**
 * gembuf_debugfs_init() - add gembuf's files to a DRM minor
 * @minor: the minor
 */
void gembuf_debugfs_init(struct drm_minor *minor)
{
	struct gembuf_device *gdev = to_gembuf_device(minor->dev);

	drm_debugfs_add_files(minor->dev, gembuf_debugfs_list,
			      ARRAY_SIZE(gembuf_debugfs_list));
	if (gdev->role == GEMBUF_ENGINE) {
		fault_create_debugfs_attr("fail_job", minor->debugfs_root,
					  &gembuf_fail_job);
		fault_create_debugfs_attr("hang_job", minor->debugfs_root,
					  &gembuf_hang_job);
	} else {
		fault_create_debugfs_attr("fail_compose", minor->debugfs_root,
					  &gembuf_fail_compose);
	}
}
