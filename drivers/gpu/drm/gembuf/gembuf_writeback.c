// SPDX-License-Identifier: GPL-2.0-only
/*
 * gembuf writeback: a writeback connector that receives every composed
 * frame, so tests can compare pixels and the demo can save frames.
 */

#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_edid.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_gem_framebuffer_helper.h>
#include <drm/drm_print.h>
#include <drm/drm_probe_helper.h>
#include <drm/drm_vblank.h>
#include <drm/drm_writeback.h>
#include <linux/slab.h>

#include "gembuf_kms.h"

static const struct drm_connector_funcs gembuf_wb_connector_funcs = {
	.fill_modes = drm_helper_probe_single_connector_modes,
	.destroy = drm_connector_cleanup,
	.reset = drm_atomic_helper_connector_reset,
	.atomic_duplicate_state = drm_atomic_helper_connector_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_connector_destroy_state,
};

static int gembuf_wb_atomic_check(struct drm_encoder *encoder,
				  struct drm_crtc_state *crtc_state,
				  struct drm_connector_state *conn_state)
{
	struct drm_framebuffer *fb;
	unsigned int i;

	if (!conn_state->writeback_job || !conn_state->writeback_job->fb)
		return 0;
	fb = conn_state->writeback_job->fb;
	/*
	 * Only memory of gembuf's own is written back into (an object of
	 * the display, or an import of an engine's).  Another exporter's
	 * buffer would need its CPU access ended (its caches synced for the
	 * device) before the out-fence signals, from the composer:
	 * dma_buf_end_cpu_access() may take the buffer's reservation lock,
	 * under which others wait for fences, this out-fence among them.
	 * vkms makes no such call, and syncs nothing.
	 */
	for (i = 0; i < fb->format->num_planes; i++) {
		if (!to_gembuf_object(fb->obj[i])->vcm.imported ||
		    gembuf_prime_exporter(fb->obj[i]))
			continue;
		drm_dbg_kms(encoder->dev,
			    "[FB:%d] writeback into another exporter's buffer\n",
			    fb->base.id);
		return -EINVAL;
	}
	if (fb->width != crtc_state->mode.hdisplay ||
	    fb->height != crtc_state->mode.vdisplay) {
		drm_dbg_kms(encoder->dev, "writeback %ux%u for a %ux%u mode\n",
			    fb->width, fb->height, crtc_state->mode.hdisplay,
			    crtc_state->mode.vdisplay);
		return -EINVAL;
	}
	return drm_atomic_helper_check_wb_connector_state(conn_state->connector,
							  conn_state->state);
}

static const struct drm_encoder_helper_funcs gembuf_wb_encoder_helper_funcs = {
	.atomic_check = gembuf_wb_atomic_check,
};

static int gembuf_wb_get_modes(struct drm_connector *connector)
{
	return drm_add_modes_noedid(connector, GEMBUF_XRES_MAX, GEMBUF_YRES_MAX);
}

/*
 * The buffer's mappings, in the ioctl (drm_atomic_helper_prepare_planes(),
 * for a nonblocking commit too): the display's mapping of the buffer and
 * its kernel mapping (the display's own where that is a kernel one, else
 * drm_gem_fb_vmap()'s).  Nothing here waits for a fence.
 */
static int gembuf_wb_prepare_job(struct drm_writeback_connector *wb,
				 struct drm_writeback_job *job)
{
	struct gembuf_wb_job *wj;
	int ret;

	if (!job->fb)
		return 0;
	wj = kzalloc(sizeof(*wj), GFP_KERNEL);
	if (!wj)
		return -ENOMEM;
	wj->fb = job->fb;
	ret = gembuf_fb_map(to_gembuf_device(wb->base.dev), job->fb, wj->maps);
	if (ret)
		goto err_free;
	wj->vmapped = !gembuf_fb_kernel_view(job->fb, wj->maps, wj->map,
					     wj->data);
	if (wj->vmapped) {
		ret = drm_gem_fb_vmap(job->fb, wj->map, wj->data);
		if (ret)
			goto err_unmap;
	}
	/* The composer writes with plain stores. */
	if (wj->map[0].is_iomem) {
		ret = -EOPNOTSUPP;
		goto err_vunmap;
	}
	job->priv = wj;
	return 0;

err_vunmap:
	if (wj->vmapped)
		drm_gem_fb_vunmap(job->fb, wj->map);
err_unmap:
	gembuf_fb_unmap(job->fb, wj->maps);
err_free:
	kfree(wj);
	return ret;
}

static void gembuf_wb_cleanup_job(struct drm_writeback_connector *wb,
				  struct drm_writeback_job *job)
{
	struct gembuf_wb_job *wj = job->priv;

	if (!wj)
		return;
	if (wj->vmapped)
		drm_gem_fb_vunmap(job->fb, wj->map);
	gembuf_fb_unmap(job->fb, wj->maps);
	kfree(wj);
}

/* The commit tail (drm_atomic_helper_commit_writebacks()): queue the job. */
static void gembuf_wb_atomic_commit(struct drm_connector *connector,
				    struct drm_atomic_state *state)
{
	struct drm_connector_state *conn_state =
		drm_atomic_get_new_connector_state(state, connector);
	struct gembuf_output *out = container_of(connector, struct gembuf_output,
						 wb.base);
	struct drm_writeback_job *job = conn_state->writeback_job;
	struct drm_crtc_state *new_crtc_state;
	struct gembuf_crtc_state *crtc_state;
	struct gembuf_wb_job *wj;

	if (!job || !job->fb || !conn_state->crtc)
		return;
	wj = job->priv;
	new_crtc_state = drm_atomic_get_new_crtc_state(state, conn_state->crtc);
	crtc_state = to_gembuf_crtc_state(new_crtc_state);

	/*
	 * The composer runs on vblank: keep it ticking until the job is
	 * done.  Without vblank the job still completes, with an error (the
	 * jobs before it were composed when this commit was flushed, so it
	 * is the one the completion takes).
	 */
	if (drm_crtc_vblank_get(&out->crtc)) {
		drm_writeback_queue_job(&out->wb, conn_state);
		drm_writeback_signal_completion(&out->wb, -EIO);
		return;
	}
	/* Queued first: a composer run that sees it pending completes it. */
	drm_writeback_queue_job(&out->wb, conn_state);
	spin_lock_irq(&out->lock);
	crtc_state->wb_fb = job->fb;
	crtc_state->wb_vaddr = wj->map[0].vaddr;
	/* An import's mapping is its exporter's, whose caching is not known. */
	crtc_state->wb_cached = !to_gembuf_object(job->fb->obj[0])->vcm.imported &&
				!to_gembuf_object(job->fb->obj[0])->vcm.map_wc;
	crtc_state->wb_job = wj;
	crtc_state->wb_pending = true;
	spin_unlock_irq(&out->lock);
}

static const struct drm_connector_helper_funcs gembuf_wb_connector_helper_funcs = {
	.get_modes = gembuf_wb_get_modes,
	.prepare_writeback_job = gembuf_wb_prepare_job,
	.cleanup_writeback_job = gembuf_wb_cleanup_job,
	.atomic_commit = gembuf_wb_atomic_commit,
};

/**
 * gembuf_writeback_init() - make the writeback connector
 * @gdev: the display
 * @out: its output, with the CRTC made
 *
 * Return: 0 or a negative errno.
 */
int gembuf_writeback_init(struct gembuf_device *gdev, struct gembuf_output *out)
{
	int ret;

	ret = drm_writeback_connector_init(&gdev->drm, &out->wb,
					   &gembuf_wb_connector_funcs,
					   &gembuf_wb_encoder_helper_funcs,
					   gembuf_wb_formats, gembuf_num_wb_formats,
					   drm_crtc_mask(&out->crtc));
	if (ret)
		return ret;
	drm_connector_helper_add(&out->wb.base, &gembuf_wb_connector_helper_funcs);
	return 0;
}
