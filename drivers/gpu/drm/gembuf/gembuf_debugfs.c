// SPDX-License-Identifier: GPL-2.0-only
/*
 * gembuf debugfs: the module's counters, on every gembuf DRM minor.
 */

#include <drm/drm_debugfs.h>
#include <drm/drm_file.h>
#include <linux/seq_file.h>

#include "gembuf_kms.h"

static int gembuf_state_show(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct gembuf_kms *kms = to_gembuf_device(entry->dev)->kms;
	s64 composed = 0, flips = 0, foreign = 0;
	unsigned int i;

	seq_printf(m, "objects %d\n", atomic_read(&gembuf.objects));
	seq_printf(m, "mappings %d\n", atomic_read(&gembuf.mappings));
	if (!kms)
		return 0;
	/* The display's counters are summed over its CRTCs. */
	for (i = 0; i < GEMBUF_NUM_CRTCS; i++) {
		composed += atomic64_read(&kms->outputs[i].frames_composed);
		flips += atomic64_read(&kms->outputs[i].fb_flips);
		foreign += atomic64_read(&kms->outputs[i].fb_flips_foreign);
	}
	seq_printf(m, "frames_composed %lld\n", composed);
	seq_printf(m, "fb_flips %lld\n", flips);
	seq_printf(m, "fb_flips_foreign %lld\n", foreign);
	return 0;
}

static const struct drm_debugfs_info gembuf_debugfs_list[] = {
	{ "gembuf_state", gembuf_state_show, 0 },
};

/**
 * gembuf_debugfs_init() - add gembuf's files to a DRM minor
 * @minor: the minor
 */
void gembuf_debugfs_init(struct drm_minor *minor)
{
	drm_debugfs_add_files(minor->dev, gembuf_debugfs_list,
			      ARRAY_SIZE(gembuf_debugfs_list));
}
