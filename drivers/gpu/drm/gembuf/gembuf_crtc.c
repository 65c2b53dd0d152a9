// SPDX-License-Identifier: GPL-2.0-only
/*
 * gembuf CRTC: atomic modesetting, an hrtimer for vblank, page-flip
 * events, the gamma LUT and CRC sources in the debugfs format igt reads.
 */

#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_color_mgmt.h>
#include <drm/drm_managed.h>
#include <drm/drm_modeset_lock.h>
#include <drm/drm_print.h>
#include <drm/drm_vblank.h>
#include <linux/dma-fence.h>

#include "gembuf_kms.h"

/*
 * One CRC source: the composed frame, after the gamma LUT, as CRC-32
 * (zlib's crc32()) of its XRGB8888 bytes with the X bytes cleared.
 */
const char *const gembuf_crc_sources[] = { "auto" };

/*
 * The vblank signals the events and out-fences of the commits it
 * completes: a fence signalling section, as vkms marks it (in the timer's
 * hard interrupt the annotation itself does nothing; it documents).
 */
static enum hrtimer_restart gembuf_vblank_simulate(struct hrtimer *timer)
{
	struct gembuf_output *out = container_of(timer, struct gembuf_output,
						 vblank_timer);
	struct drm_crtc *crtc = &out->crtc;
	struct gembuf_crtc_state *state;
	bool compose, fence_cookie;

	hrtimer_forward_now(timer, out->period_ns);
	fence_cookie = dma_fence_begin_signalling();
	/* The vblank is off: the timer stops (see gembuf_disable_vblank()). */
	if (!drm_crtc_handle_vblank(crtc)) {
		dma_fence_end_signalling(fence_cookie);
		return HRTIMER_NORESTART;
	}

	spin_lock(&out->lock);
	state = out->composer_state;
	compose = state && (out->crc_enabled || state->wb_pending);
	if (compose) {
		out->frame_end = drm_crtc_accurate_vblank_count(crtc);
		if (!out->frames_queued)
			out->frame_start = out->frame_end;
		out->frames_queued = true;
	}
	spin_unlock(&out->lock);
	if (compose)
		queue_work(out->composer_wq, &out->composer_work);
	dma_fence_end_signalling(fence_cookie);
	return HRTIMER_RESTART;
}

static int gembuf_enable_vblank(struct drm_crtc *crtc)
{
	struct gembuf_output *out = crtc_to_output(crtc);
	struct drm_vblank_crtc *vblank = drm_crtc_vblank_crtc(crtc);

	drm_calc_timestamping_constants(crtc, &crtc->mode);
	out->period_ns = ns_to_ktime(vblank->framedur_ns);
	hrtimer_start(&out->vblank_timer, out->period_ns, HRTIMER_MODE_REL);
	return 0;
}

/*
 * DRM calls this under its vblank_time_lock with interrupts off, and the
 * timer's handler takes that lock (drm_crtc_handle_vblank()): waiting for
 * a handler running on another CPU, as hrtimer_cancel() does, would spin
 * on both CPUs for good.  So the timer is only cancelled if it is not
 * running; a handler that is finds the vblank off when it gets the lock,
 * or at its next expiry, and stops the timer.  The CRTC's disable and the
 * device's cleanup wait for it, outside the lock.
 */
static void gembuf_disable_vblank(struct drm_crtc *crtc)
{
	hrtimer_try_to_cancel(&crtc_to_output(crtc)->vblank_timer);
}

static bool gembuf_get_vblank_timestamp(struct drm_crtc *crtc, int *max_error,
					ktime_t *vblank_time, bool in_vblank_irq)
{
	struct gembuf_output *out = crtc_to_output(crtc);
	struct drm_vblank_crtc *vblank = drm_crtc_vblank_crtc(crtc);

	if (!READ_ONCE(vblank->enabled)) {
		*vblank_time = ktime_get();
		return true;
	}
	/* The timer was forwarded already: report the expiry just passed. */
	*vblank_time = READ_ONCE(out->vblank_timer.node.expires);
	if (*vblank_time != vblank->time)
		*vblank_time -= out->period_ns;
	return true;
}

/* The copy shares the line buffers; atomic_check replaces them if need be. */
static struct drm_crtc_state *gembuf_crtc_duplicate_state(struct drm_crtc *crtc)
{
	struct gembuf_crtc_state *old = to_gembuf_crtc_state(crtc->state);
	struct gembuf_crtc_state *state = kzalloc(sizeof(*state), GFP_KERNEL);

	if (!state)
		return NULL;
	__drm_atomic_helper_crtc_duplicate_state(crtc, &state->base);
	state->lines = old->lines;
	if (state->lines)
		refcount_inc(&state->lines->ref);
	return &state->base;
}

static void gembuf_crtc_destroy_state(struct drm_crtc *crtc,
				      struct drm_crtc_state *state)
{
	struct gembuf_crtc_state *s = to_gembuf_crtc_state(state);

	__drm_atomic_helper_crtc_destroy_state(state);
	gembuf_lines_put(s->lines);
	kfree(s);
}

static void gembuf_crtc_reset(struct drm_crtc *crtc)
{
	struct gembuf_crtc_state *state = kzalloc(sizeof(*state), GFP_KERNEL);

	if (crtc->state)
		gembuf_crtc_destroy_state(crtc, crtc->state);
	crtc->state = NULL;
	/* Without a state too: the vblank is reset either way. */
	__drm_atomic_helper_crtc_reset(crtc, state ? &state->base : NULL);
}

static int gembuf_verify_crc_source(struct drm_crtc *crtc, const char *source,
				    size_t *values_cnt)
{
	if (source && strcmp(source, "auto"))
		return -EINVAL;
	*values_cnt = 1;
	return 0;
}

static int gembuf_set_crc_source(struct drm_crtc *crtc, const char *source)
{
	struct gembuf_output *out = crtc_to_output(crtc);
	bool enable = source && !strcmp(source, "auto");
	bool was;
	int ret = 0;

	/* Frames are composed on vblank: a CRC source keeps it running. */
	if (enable)
		ret = drm_crtc_vblank_get(crtc);
	if (ret)
		return ret;
	spin_lock_irq(&out->lock);
	was = out->crc_enabled;
	out->crc_enabled = enable;
	spin_unlock_irq(&out->lock);
	if (was)
		drm_crtc_vblank_put(crtc);
	return 0;
}

static const char *const *gembuf_get_crc_sources(struct drm_crtc *crtc,
						 size_t *count)
{
	*count = ARRAY_SIZE(gembuf_crc_sources);
	return gembuf_crc_sources;
}

static const struct drm_crtc_funcs gembuf_crtc_funcs = {
	.set_config = drm_atomic_helper_set_config,
	.page_flip = drm_atomic_helper_page_flip,
	.reset = gembuf_crtc_reset,
	.atomic_duplicate_state = gembuf_crtc_duplicate_state,
	.atomic_destroy_state = gembuf_crtc_destroy_state,
	.enable_vblank = gembuf_enable_vblank,
	.disable_vblank = gembuf_disable_vblank,
	.get_vblank_timestamp = gembuf_get_vblank_timestamp,
	.verify_crc_source = gembuf_verify_crc_source,
	.set_crc_source = gembuf_set_crc_source,
	.get_crc_sources = gembuf_get_crc_sources,
};

/*
 * An active CRTC's state gets the composer's line buffers for its mode's
 * width here, where an allocation failure can still fail the commit: the
 * composer allocates nothing.  A state of the same width keeps those it
 * shares with the state it was duplicated from; an inactive one has none.
 */
static int gembuf_crtc_check_lines(struct drm_crtc *crtc,
				   struct gembuf_crtc_state *s)
{
	int width = s->base.mode.hdisplay;
	struct gembuf_lines *lines = NULL;

	if (s->base.active && s->lines && s->lines->width == width)
		return 0;
	if (s->base.active) {
		lines = gembuf_lines_alloc(width);
		if (!lines) {
			drm_dbg_kms(crtc->dev, "no line buffers for width %d\n", width);
			return -ENOMEM;
		}
	}
	gembuf_lines_put(s->lines);
	s->lines = lines;
	return 0;
}

/*
 * The planes a commit on the CRTC takes new states of: the primary and
 * the overlays, so that each commit begins the CPU access to their
 * framebuffers again (their atomic_update).  The cursor is left out
 * unless the commit changes it (or the mode: drm_atomic_helper_check_modeset()
 * added every plane then), so that a flip in flight does not hold the
 * cursor's state, and a legacy cursor update takes no other plane: it
 * may then move the cursor at once (gembuf_cursor_async_check()).  A
 * cursor showing a foreign dma-buf is taken too, as the other planes
 * are: the exporter's CPU access to it begins again with each commit
 * (for gembuf's own buffers there is none to begin), and such a cursor
 * moves only by commits.
 *
 * A plane left out is composed from its current state, which stays
 * while this CRTC state does: a commit that replaces it has the CRTC too
 * (drm_atomic_get_plane_state() adds the plane's CRTC to the commit, and
 * so do the plane's atomic_check and drm_atomic_set_crtc_for_plane()).
 * That is also why the cursor's current state may be read here, without
 * the cursor's lock: every commit that changes it holds the CRTC's,
 * which the caller holds.
 */
static int gembuf_crtc_add_planes(struct drm_atomic_state *state,
				  struct drm_crtc *crtc,
				  struct drm_crtc_state *crtc_state)
{
	struct drm_plane_state *plane_state;
	struct drm_plane *plane;

	if (state->legacy_cursor_update)
		return 0;
	drm_modeset_lock_assert_held(&crtc->mutex);
	drm_for_each_plane_mask(plane, crtc->dev, crtc_state->plane_mask) {
		if (plane->type == DRM_PLANE_TYPE_CURSOR &&
		    !(plane->state->fb && gembuf_fb_foreign(plane->state->fb)))
			continue;
		plane_state = drm_atomic_get_plane_state(state, plane);
		if (IS_ERR(plane_state))
			return PTR_ERR(plane_state);
	}
	return 0;
}

/*
 * Collect the visible planes, by normalized zpos, for the composer.
 * Planes sharing a zpos are accepted: DRM leaves their order undefined,
 * and drm_atomic_normalize_zpos() (mode_config.normalize_zpos) stacks
 * them by plane id, the lower id below, as other drivers do.
 */
static int gembuf_crtc_atomic_check(struct drm_crtc *crtc,
				    struct drm_atomic_state *state)
{
	struct drm_crtc_state *crtc_state = drm_atomic_get_new_crtc_state(state, crtc);
	struct gembuf_crtc_state *s = to_gembuf_crtc_state(crtc_state);
	struct drm_plane_state *ps[GEMBUF_MAX_PLANES] = {};
	struct drm_plane *plane;
	unsigned int i, n = 0;
	int ret;

	if (crtc_state->gamma_lut &&
	    drm_color_lut_size(crtc_state->gamma_lut) != GEMBUF_LUT_SIZE) {
		drm_dbg_kms(crtc->dev, "gamma LUT of %u entries, not %u\n",
			    drm_color_lut_size(crtc_state->gamma_lut), GEMBUF_LUT_SIZE);
		return -EINVAL;
	}

	ret = gembuf_crtc_check_lines(crtc, s);
	if (ret)
		return ret;

	/*
	 * The current state of a plane this commit leaves out (the cursor,
	 * or any plane in a legacy cursor update) is read without that
	 * plane's lock: every commit that replaces it, and every
	 * asynchronous cursor move, holds this CRTC's lock too
	 * (drm_atomic_get_plane_state() adds the plane's CRTC), which this
	 * commit holds from here to its swap of the states.
	 */
	WARN_ON_ONCE(!drm_modeset_is_locked(&crtc->mutex));

	ret = gembuf_crtc_add_planes(state, crtc, crtc_state);
	if (ret) {
		drm_dbg_kms(crtc->dev, "adding planes: %d\n", ret);
		return ret;
	}

	drm_for_each_plane_mask(plane, crtc->dev, crtc_state->plane_mask) {
		struct drm_plane_state *p = drm_atomic_get_new_plane_state(state, plane);

		/* Its current state, under the CRTC's lock: see above. */
		if (!p)
			p = plane->state;
		if (!p->visible || p->normalized_zpos >= GEMBUF_MAX_PLANES)
			continue;
		ps[p->normalized_zpos] = p;
	}
	for (i = 0; i < GEMBUF_MAX_PLANES; i++)
		if (ps[i])
			s->planes[n++] = to_gembuf_plane_state(ps[i]);
	s->num_planes = n;
	return 0;
}

/*
 * A writeback job is composed from the CRTC state of its commit, on the
 * next vblank.  A commit that follows quickly replaces that state (or
 * switches the CRTC off) before the composer has run: compose the job's
 * frame now, from its own state, which stays until this commit is done,
 * so every queued job completes exactly once, with its own pixels.
 */
static void gembuf_composer_flush_wb(struct gembuf_output *out)
{
	unsigned long flags;
	bool pending, queued;

	spin_lock_irq(&out->lock);
	pending = out->composer_state && out->composer_state->wb_pending;
	spin_unlock_irq(&out->lock);
	if (pending)
		queue_work(out->composer_wq, &out->composer_work);
	/* A composer run may have taken the job and not completed it yet. */
	spin_lock_irqsave(&out->wb.job_lock, flags);
	queued = !list_empty(&out->wb.job_queue);
	spin_unlock_irqrestore(&out->wb.job_lock, flags);
	if (queued)
		flush_work(&out->composer_work);
}

static void gembuf_crtc_atomic_enable(struct drm_crtc *crtc,
				      struct drm_atomic_state *state)
{
	drm_crtc_vblank_on(crtc);
}

/*
 * A display stops scanning out at the end of a frame, not in the middle
 * of one: wait for the next vblank, so that turning the CRTC off, and the
 * event of the commit that does it, complete there, as on hardware.  The
 * wait is bounded (no WARN if the timer is late, unlike
 * drm_crtc_wait_one_vblank()): the CRTC goes off either way.  A CRTC
 * that the same commit lights again (a new mode) does not wait: nothing
 * completes at the end of the old mode's frame, and the commit's event
 * comes with the first vblank of the new one.
 */
static void gembuf_crtc_wait_frame_end(struct drm_crtc *crtc)
{
	u64 count;

	if (drm_crtc_vblank_get(crtc))
		return;
	count = drm_crtc_vblank_count(crtc);
	wait_event_timeout(*drm_crtc_vblank_waitqueue(crtc),
			   drm_crtc_vblank_count(crtc) != count,
			   nsecs_to_jiffies(2 * drm_crtc_vblank_crtc(crtc)->framedur_ns) + 1);
	drm_crtc_vblank_put(crtc);
}

static void gembuf_crtc_atomic_disable(struct drm_crtc *crtc,
				       struct drm_atomic_state *state)
{
	struct drm_crtc_state *crtc_state = drm_atomic_get_new_crtc_state(state, crtc);
	struct gembuf_output *out = crtc_to_output(crtc);

	if (!crtc_state->active)
		gembuf_crtc_wait_frame_end(crtc);
	gembuf_composer_flush_wb(out);
	drm_crtc_vblank_off(crtc);
	hrtimer_cancel(&out->vblank_timer);
	spin_lock_irq(&out->lock);
	out->composer_state = NULL;
	spin_unlock_irq(&out->lock);
	flush_work(&out->composer_work);

	/* A CRTC lit again by this commit sends its event from atomic_flush. */
	spin_lock_irq(&crtc->dev->event_lock);
	if (crtc_state->event && !crtc_state->active) {
		drm_crtc_send_vblank_event(crtc, crtc_state->event);
		crtc_state->event = NULL;
	}
	spin_unlock_irq(&crtc->dev->event_lock);
}

static void gembuf_crtc_atomic_flush(struct drm_crtc *crtc,
				     struct drm_atomic_state *state)
{
	struct drm_crtc_state *crtc_state = drm_atomic_get_new_crtc_state(state, crtc);
	struct gembuf_output *out = crtc_to_output(crtc);

	gembuf_composer_flush_wb(out);
	spin_lock_irq(&out->lock);
	out->composer_state = crtc_state->active ?
			      to_gembuf_crtc_state(crtc_state) : NULL;
	spin_unlock_irq(&out->lock);

	if (crtc_state->event) {
		spin_lock_irq(&crtc->dev->event_lock);
		if (drm_crtc_vblank_get(crtc) != 0)
			drm_crtc_send_vblank_event(crtc, crtc_state->event);
		else
			drm_crtc_arm_vblank_event(crtc, crtc_state->event);
		spin_unlock_irq(&crtc->dev->event_lock);
		crtc_state->event = NULL;
	}
}

/*
 * The composer is the CRTC's scan-out: a mode whose pixel clock it could
 * never keep up with is not a mode of this CRTC, however virtual.  The
 * connectors offer nothing near the limit (1920x1080 at 60 Hz is
 * 148.5 MHz).  The vblank timer runs at the mode's frame rate, which
 * drm_calc_timestamping_constants() works out in int: frames must fit
 * it and last between 1 ms and 1 s, and there is no line doubling.
 */
static enum drm_mode_status gembuf_crtc_mode_valid(struct drm_crtc *crtc,
						   const struct drm_display_mode *mode)
{
	u64 frame = (u64)mode->htotal * mode->vtotal, frame_us;

	if (mode->clock > GEMBUF_MAX_DOTCLOCK)
		return MODE_CLOCK_HIGH;
	if (mode->flags & DRM_MODE_FLAG_DBLSCAN)
		return MODE_NO_DBLESCAN;
	if (mode->vscan > 1)
		return MODE_NO_VSCAN;
	if (!mode->clock || frame > INT_MAX)
		return MODE_BAD;
	/* kHz: a frame of @frame pixels lasts frame * 1000 / clock us. */
	frame_us = div_u64(frame * 1000, mode->clock);
	if (frame_us < USEC_PER_MSEC)
		return MODE_CLOCK_HIGH;
	if (frame_us > USEC_PER_SEC)
		return MODE_CLOCK_LOW;
	return MODE_OK;
}

static const struct drm_crtc_helper_funcs gembuf_crtc_helper_funcs = {
	.mode_valid = gembuf_crtc_mode_valid,
	.atomic_check = gembuf_crtc_atomic_check,
	.atomic_flush = gembuf_crtc_atomic_flush,
	.atomic_enable = gembuf_crtc_atomic_enable,
	.atomic_disable = gembuf_crtc_atomic_disable,
};

static void gembuf_crtc_cleanup(struct drm_device *dev, void *data)
{
	struct gembuf_output *out = data;

	/* A handler that found the vblank off may still be returning. */
	hrtimer_cancel(&out->vblank_timer);
	destroy_workqueue(out->composer_wq);
}

/**
 * gembuf_crtc_init() - make the CRTC of the display
 * @gdev: the display
 * @out: its output, with the primary and cursor planes made
 *
 * Return: 0 or a negative errno.
 */
int gembuf_crtc_init(struct gembuf_device *gdev, struct gembuf_output *out)
{
	struct drm_crtc *crtc = &out->crtc;
	int ret;

	ret = drmm_crtc_init_with_planes(&gdev->drm, crtc, out->primary,
					 out->cursor, &gembuf_crtc_funcs, NULL);
	if (ret)
		return ret;
	drm_crtc_helper_add(crtc, &gembuf_crtc_helper_funcs);
	drm_mode_crtc_set_gamma_size(crtc, GEMBUF_LUT_SIZE);
	drm_crtc_enable_color_mgmt(crtc, 0, false, GEMBUF_LUT_SIZE);

	spin_lock_init(&out->lock);
	init_waitqueue_head(&out->composer_idle);
	hrtimer_init(&out->vblank_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	out->vblank_timer.function = gembuf_vblank_simulate;
	/*
	 * Frames complete writeback out-fences, which memory reclaim may
	 * wait for: the queue must make progress under memory pressure.
	 */
	out->composer_wq = alloc_ordered_workqueue("gembuf-composer-%u",
						   WQ_MEM_RECLAIM, out->index);
	if (!out->composer_wq)
		return -ENOMEM;
	INIT_WORK(&out->composer_work, gembuf_composer_work);
	return drmm_add_action_or_reset(&gdev->drm, gembuf_crtc_cleanup, out);
}
