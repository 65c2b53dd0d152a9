// SPDX-License-Identifier: GPL-2.0-only
/*
 * gembuf planes: the overlay RFC's objects as drm_planes.  Each plane
 * maps its framebuffer's objects for the display (its VCM) when the
 * framebuffer is prepared, and the GEM shadow-plane helpers map them
 * into the kernel for each commit; the composer reads them there, in
 * place.  The CPU access to the framebuffer (the exporter's, for a
 * foreign buffer) begins in atomic_update, in the commit tail, after
 * the commit's fences were waited for.
 */

#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_blend.h>
#include <drm/drm_color_mgmt.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_gem_atomic_helper.h>
#include <drm/drm_gem_framebuffer_helper.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <linux/dma-resv.h>

#include "gembuf_kms.h"

static const u64 gembuf_modifiers[] = {
	DRM_FORMAT_MOD_LINEAR,
	DRM_FORMAT_MOD_INVALID,
};

/**
 * gembuf_fb_unmap() - undo gembuf_fb_map()
 * @fb: the framebuffer
 * @maps: the mappings, cleared
 */
void gembuf_fb_unmap(struct drm_framebuffer *fb,
		     struct gembuf_mapping *maps[DRM_FORMAT_MAX_PLANES])
{
	unsigned int i;

	for (i = 0; i < DRM_FORMAT_MAX_PLANES; i++) {
		struct gembuf_object *obj = to_gembuf_object(fb->obj[i]);

		if (!maps[i])
			continue;
		gembuf_mapping_put(obj, maps[i]);
		maps[i] = NULL;
	}
}

/**
 * gembuf_fb_map() - map a framebuffer's objects for the display
 * @gdev: the display
 * @fb: the framebuffer
 * @maps: output, the mapping of each plane's object
 *
 * The display's own view of the objects, made when a framebuffer is
 * prepared and kept until it is cleaned up: the objects are placed where
 * the display can reach them, in its VCM (one-to-one with display_dma,
 * the display scanning out by DMA).  The CPU address the composer, which
 * stands in for the display's hardware, reads through is the kernel
 * mapping drm_gem_fb_vmap() makes.
 *
 * Return: 0 or a negative errno, with nothing mapped.
 */
int gembuf_fb_map(struct gembuf_device *gdev, struct drm_framebuffer *fb,
		  struct gembuf_mapping *maps[DRM_FORMAT_MAX_PLANES])
{
	unsigned int i;

	for (i = 0; i < fb->format->num_planes; i++) {
		struct gembuf_object *obj = to_gembuf_object(fb->obj[i]);

		maps[i] = gembuf_mapping_get(obj, gdev, false);
		if (IS_ERR(maps[i])) {
			int ret = PTR_ERR(maps[i]);

			maps[i] = NULL;
			gembuf_fb_unmap(fb, maps);
			return ret;
		}
	}
	return 0;
}

/**
 * gembuf_fb_foreign() - whether a framebuffer shows a foreign dma-buf
 * @fb: the framebuffer
 *
 * A framebuffer with an imported object is one whose CPU access
 * drm_gem_fb_begin_cpu_access() begins with the exporter (which syncs
 * its caches and may wait for its writers); for gembuf's own objects it
 * does nothing.
 *
 * Return: whether any of @fb's objects is imported.
 */
bool gembuf_fb_foreign(const struct drm_framebuffer *fb)
{
	unsigned int i;

	for (i = 0; i < fb->format->num_planes; i++)
		if (fb->obj[i]->import_attach)
			return true;
	return false;
}

/**
 * gembuf_fb_kernel_view() - the display's own kernel mapping of a framebuffer
 * @fb: the framebuffer
 * @maps: the display's mapping of each of its objects (gembuf_fb_map())
 * @map: output, the kernel mapping of each object
 * @data: output, the kernel address of each framebuffer plane
 *
 * The display reading with the CPU maps objects in the kernel's VCM, and
 * a foreign buffer through its exporter's vmap: those mappings are the
 * CPU's too, and a second one would only take address space (and show
 * as another mapping in debugfs).  A display that scans out by DMA
 * (display_dma) has no kernel address of an object of gembuf's own: the
 * caller then maps the framebuffer with drm_gem_fb_vmap().
 *
 * Return: whether @map and @data were filled.
 */
bool gembuf_fb_kernel_view(const struct drm_framebuffer *fb,
			   struct gembuf_mapping *const maps[DRM_FORMAT_MAX_PLANES],
			   struct iosys_map map[DRM_FORMAT_MAX_PLANES],
			   struct iosys_map data[DRM_FORMAT_MAX_PLANES])
{
	unsigned int i;

	for (i = 0; i < fb->format->num_planes; i++)
		if (!maps[i]->vaddr)
			return false;
	for (i = 0; i < fb->format->num_planes; i++) {
		iosys_map_set_vaddr(&map[i], maps[i]->vaddr);
		iosys_map_set_vaddr(&data[i], maps[i]->vaddr + fb->offsets[i]);
	}
	return true;
}

/* State handling goes through the shadow-plane helpers, plus the color key. */
static struct drm_plane_state *
gembuf_plane_duplicate_state(struct drm_plane *plane)
{
	struct gembuf_plane_state *old = to_gembuf_plane_state(plane->state);
	struct gembuf_plane_state *state;

	state = kzalloc(sizeof(*state), GFP_KERNEL);
	if (!state)
		return NULL;
	__drm_gem_duplicate_shadow_plane_state(plane, &state->base);
	state->colorkey = old->colorkey;
	state->colorkey_mask = old->colorkey_mask;
	return &state->base.base;
}

static void gembuf_plane_destroy_state(struct drm_plane *plane,
				       struct drm_plane_state *state)
{
	struct gembuf_plane_state *s = to_gembuf_plane_state(state);

	__drm_gem_destroy_shadow_plane_state(&s->base);
	kfree(s);
}

static void gembuf_plane_reset(struct drm_plane *plane)
{
	struct gembuf_plane_state *state;

	if (plane->state)
		gembuf_plane_destroy_state(plane, plane->state);
	plane->state = NULL;
	state = kzalloc(sizeof(*state), GFP_KERNEL);
	if (state)
		__drm_gem_reset_shadow_plane(plane, &state->base);
}

static int gembuf_plane_set_property(struct drm_plane *plane,
				     struct drm_plane_state *state,
				     struct drm_property *property, u64 val)
{
	struct gembuf_plane_state *s = to_gembuf_plane_state(state);
	struct gembuf_kms *kms = to_gembuf_device(plane->dev)->kms;

	if (property == kms->colorkey_prop)
		s->colorkey = val;
	else if (property == kms->colorkey_mask_prop)
		s->colorkey_mask = val;
	else
		return -EINVAL;
	return 0;
}

static int gembuf_plane_get_property(struct drm_plane *plane,
				     const struct drm_plane_state *state,
				     struct drm_property *property, u64 *val)
{
	const struct gembuf_plane_state *s =
		container_of(state, struct gembuf_plane_state, base.base);
	struct gembuf_kms *kms = to_gembuf_device(plane->dev)->kms;

	if (property == kms->colorkey_prop)
		*val = s->colorkey;
	else if (property == kms->colorkey_mask_prop)
		*val = s->colorkey_mask;
	else
		return -EINVAL;
	return 0;
}

static const struct drm_plane_funcs gembuf_plane_funcs = {
	.update_plane = drm_atomic_helper_update_plane,
	.disable_plane = drm_atomic_helper_disable_plane,
	.reset = gembuf_plane_reset,
	.atomic_duplicate_state = gembuf_plane_duplicate_state,
	.atomic_destroy_state = gembuf_plane_destroy_state,
	.atomic_set_property = gembuf_plane_set_property,
	.atomic_get_property = gembuf_plane_get_property,
};

static int gembuf_plane_atomic_check(struct drm_plane *plane,
				     struct drm_atomic_state *state)
{
	struct drm_plane_state *new = drm_atomic_get_new_plane_state(state, plane);
	struct drm_crtc_state *crtc_state;
	bool scaling = plane->type != DRM_PLANE_TYPE_CURSOR;
	int min_scale, max_scale, ret;

	if (!new->fb || WARN_ON(!new->crtc))
		return 0;
	crtc_state = drm_atomic_get_crtc_state(state, new->crtc);
	if (IS_ERR(crtc_state))
		return PTR_ERR(crtc_state);

	/* Overlays scale from 1/8 to 8 times; the cursor does not scale. */
	min_scale = scaling ? DRM_PLANE_NO_SCALING / 8 : DRM_PLANE_NO_SCALING;
	max_scale = scaling ? DRM_PLANE_NO_SCALING * 8 : DRM_PLANE_NO_SCALING;
	ret = drm_atomic_helper_check_plane_state(new, crtc_state, min_scale,
						  max_scale, true, true);
	/* The cursor is at most the size DRM_CAP_CURSOR_WIDTH/HEIGHT tell. */
	if (!ret && !scaling &&
	    (new->crtc_w > plane->dev->mode_config.cursor_width ||
	     new->crtc_h > plane->dev->mode_config.cursor_height))
		ret = -EINVAL;
	if (ret)
		drm_dbg_kms(plane->dev, "[PLANE:%d] refused: %d\n", plane->base.id, ret);
	return ret;
}

/*
 * Whether @state is the new state of an asynchronous cursor move
 * (drm_atomic_helper_async_commit()): it is never swapped in, and
 * gembuf_cursor_async_update() copies only its place into the current
 * state, whose framebuffer it shares (gembuf_cursor_async_check()), and
 * whose mappings and CPU access the composer goes on using.  Such a
 * state is neither prepared nor mapped: its prepare_fb and
 * begin_fb_access do nothing, so its end_fb_access and cleanup_fb, which
 * undo only what was done, neither unmap nor wait for the composer.
 */
static bool gembuf_plane_state_async(const struct drm_plane_state *state)
{
	return state->state && state->state->async_update;
}

static int gembuf_plane_prepare_fb(struct drm_plane *plane,
				   struct drm_plane_state *state)
{
	struct gembuf_plane_state *s = to_gembuf_plane_state(state);
	int ret;

	if (!state->fb || gembuf_plane_state_async(state))
		return 0;
	ret = drm_gem_plane_helper_prepare_fb(plane, state);
	if (ret)
		return ret;
	s->read = gembuf_format_reader(state->fb->format->format);
	return gembuf_fb_map(to_gembuf_device(plane->dev), state->fb, s->maps);
}

/*
 * The plane state's kernel mapping of the framebuffer, from this commit
 * to the one that replaces the state: the display's own mapping where
 * that is a kernel one, else the shadow-plane helper's (which in 6.12
 * only maps).  This runs in drm_atomic_helper_prepare_planes(), in the
 * ioctl even for a nonblocking commit, before the commit's fences are
 * waited for: it maps and nothing else, and waits for no fence.  The
 * exporter's CPU access, which waits for the buffer's fences, begins in
 * atomic_update, in the commit tail.  The composer reads with plain
 * loads: an I/O memory mapping is refused.
 */
static int gembuf_plane_begin_fb_access(struct drm_plane *plane,
					struct drm_plane_state *state)
{
	struct gembuf_plane_state *s = to_gembuf_plane_state(state);
	struct drm_framebuffer *fb = state->fb;
	unsigned int i;
	int ret;

	if (!fb || gembuf_plane_state_async(state))
		return 0;
	s->vmapped = !gembuf_fb_kernel_view(fb, s->maps, s->base.map,
					    s->base.data);
	if (s->vmapped) {
		ret = drm_gem_begin_shadow_fb_access(plane, state);
		if (ret)
			return ret;
	}
	for (i = 0; i < fb->format->num_planes; i++) {
		if (s->base.data[i].is_iomem) {
			ret = -EOPNOTSUPP;
			goto err_unmap;
		}
		s->vaddr[i] = s->base.data[i].vaddr;
	}
	return 0;

err_unmap:
	drm_dbg_kms(plane->dev, "[PLANE:%d] no kernel mapping: %d\n",
		    plane->base.id, ret);
	if (s->vmapped)
		drm_gem_end_shadow_fb_access(plane, state);
	return ret;
}

/*
 * Called for the old state at the end of the commit that replaced it
 * (drm_atomic_helper_commit_planes(), after atomic_flush gave the
 * composer the new CRTC state): a composer run that took the old CRTC
 * state may still read this plane's framebuffer, so wait for it first.
 * The composer reads a plane only if atomic_update began its CPU access,
 * and only then is there something to wait for and an access to end: it
 * did not for an invisible plane, a plane of an inactive CRTC, a buffer
 * whose writers were busy or a failed begin, nor for the new states of
 * a commit that failed before its tail or of an asynchronous cursor move
 * (drm_atomic_helper_unprepare_planes() calls this for them too): those
 * are unmapped without a wait.
 */
static void gembuf_plane_end_fb_access(struct drm_plane *plane,
				       struct drm_plane_state *state)
{
	struct gembuf_plane_state *s = to_gembuf_plane_state(state);

	if (!state->fb)
		return;
	if (s->cpu_access)
		gembuf_composer_wait_stale(to_gembuf_plane(plane)->out);
	if (s->cpu_access)
		drm_gem_fb_end_cpu_access(state->fb, DMA_FROM_DEVICE);
	if (s->vmapped)
		drm_gem_end_shadow_fb_access(plane, state);
}

static void gembuf_plane_cleanup_fb(struct drm_plane *plane,
				    struct drm_plane_state *state)
{
	struct gembuf_plane_state *s = to_gembuf_plane_state(state);

	if (state->fb)
		gembuf_fb_unmap(state->fb, s->maps);
}

/*
 * Whether the exporter's begin_cpu_access would find nothing to wait
 * for: the implicit writers of each foreign object have signalled.  The
 * commit waited for the fences prepare_fb took (none of the implicit
 * ones under an IN_FENCE_FD); one still pending here is not waited for
 * in the commit tail, where a fence that never signals would hang the
 * CRTC.
 */
static bool gembuf_plane_writers_done(struct drm_framebuffer *fb)
{
	unsigned int i;

	for (i = 0; i < fb->format->num_planes; i++)
		if (fb->obj[i]->import_attach &&
		    !dma_resv_test_signaled(fb->obj[i]->resv, DMA_RESV_USAGE_WRITE))
			return false;
	return true;
}

/*
 * The commit tail, after drm_atomic_helper_wait_for_fences(): the CPU
 * access to a visible plane's framebuffer begins here, as drivers that
 * read framebuffers with the CPU begin it in atomic_update, each commit
 * again (the client may have written the buffer since; the old state
 * ends its own access in end_fb_access).  For a foreign buffer that
 * calls its exporter, which syncs its caches and may take its locks;
 * it also waits for the buffer's implicit writers, so it is called only
 * once they are done: a plane whose writers are still busy (a fence
 * added after the commit's, or one an IN_FENCE_FD overruled) is not
 * shown while this state lasts, rather than the tail waiting without
 * bound.  The commit cannot fail here either way.
 *
 * Count the framebuffers latched, so tests can tell that a client's
 * imported buffers reached the plane themselves rather than a copy.
 */
static void gembuf_plane_atomic_update(struct drm_plane *plane,
				       struct drm_atomic_state *state)
{
	struct drm_plane_state *old = drm_atomic_get_old_plane_state(state, plane);
	struct drm_plane_state *new = drm_atomic_get_new_plane_state(state, plane);
	struct gembuf_plane_state *s = to_gembuf_plane_state(new);
	struct gembuf_output *out = to_gembuf_plane(plane)->out;
	int ret;

	if (!new->fb)
		return;
	if (new->visible && !gembuf_plane_writers_done(new->fb)) {
		drm_dbg_kms(plane->dev,
			    "[PLANE:%d] [FB:%d] writers still busy, not shown\n",
			    plane->base.id, new->fb->base.id);
	} else if (new->visible) {
		ret = drm_gem_fb_begin_cpu_access(new->fb, DMA_FROM_DEVICE);
		if (!ret)
			s->cpu_access = true;
		else
			drm_dbg_kms(plane->dev,
				    "[PLANE:%d] [FB:%d] no CPU access, not shown: %d\n",
				    plane->base.id, new->fb->base.id, ret);
	}
	if (new->fb == old->fb)
		return;
	atomic64_inc(&out->fb_flips);
	if (to_gembuf_object(new->fb->obj[0])->vcm.imported)
		atomic64_inc(&out->fb_flips_foreign);
}

/*
 * A legacy cursor update (DRM_IOCTL_MODE_CURSOR, or SETPLANE on the
 * cursor) is not synchronised to the vblank, and clients send many: one
 * that moves the cursor, keeping its framebuffer and staying shown or
 * hidden, goes into the cursor's current state at once rather than after
 * the flip in flight (drm_atomic_helper_async_check() has made sure that
 * no commit is changing the cursor, that the cursor is the only plane of
 * the update and that no modeset comes with it).  A new image, or a
 * cursor coming or going, changes what the CRTC composes: that takes a
 * commit.  So does any update of a cursor showing a foreign dma-buf,
 * whose CPU access each commit begins again (atomic_update), as for the
 * other planes: its owner may have redrawn it in place.
 */
static int gembuf_cursor_async_check(struct drm_plane *plane,
				     struct drm_atomic_state *state)
{
	struct drm_plane_state *old = drm_atomic_get_old_plane_state(state, plane);
	struct drm_plane_state *new = drm_atomic_get_new_plane_state(state, plane);
	struct drm_crtc_state *crtc_state;

	if (!new->fb || new->fb != old->fb || new->visible != old->visible ||
	    gembuf_fb_foreign(new->fb))
		return -EINVAL;
	crtc_state = drm_atomic_get_new_crtc_state(state, new->crtc);
	if (!crtc_state || !crtc_state->active)
		return -EINVAL;
	return 0;
}

/*
 * The current state takes the new position and source (the framebuffer
 * is the same), under the output's spinlock, under which the composer
 * copies the cursor's state once at the start of each frame
 * (frame_planes()): a frame shows the cursor at one place, and a move
 * waits for no frame being composed.  The fields written here are ones
 * the composer reads only in that copy.
 */
static void gembuf_cursor_async_update(struct drm_plane *plane,
				       struct drm_atomic_state *state)
{
	struct drm_plane_state *new = drm_atomic_get_new_plane_state(state, plane);
	struct gembuf_output *out = to_gembuf_plane(plane)->out;
	struct drm_plane_state *cur = plane->state;

	spin_lock_irq(&out->lock);
	cur->crtc_x = new->crtc_x;
	cur->crtc_y = new->crtc_y;
	cur->crtc_w = new->crtc_w;
	cur->crtc_h = new->crtc_h;
	cur->src_x = new->src_x;
	cur->src_y = new->src_y;
	cur->src_w = new->src_w;
	cur->src_h = new->src_h;
	cur->src = new->src;
	cur->dst = new->dst;
	spin_unlock_irq(&out->lock);
}

static const struct drm_plane_helper_funcs gembuf_plane_helper_funcs = {
	.atomic_check = gembuf_plane_atomic_check,
	.atomic_update = gembuf_plane_atomic_update,
	.prepare_fb = gembuf_plane_prepare_fb,
	.cleanup_fb = gembuf_plane_cleanup_fb,
	.begin_fb_access = gembuf_plane_begin_fb_access,
	.end_fb_access = gembuf_plane_end_fb_access,
};

static const struct drm_plane_helper_funcs gembuf_cursor_helper_funcs = {
	.atomic_check = gembuf_plane_atomic_check,
	.atomic_update = gembuf_plane_atomic_update,
	.prepare_fb = gembuf_plane_prepare_fb,
	.cleanup_fb = gembuf_plane_cleanup_fb,
	.begin_fb_access = gembuf_plane_begin_fb_access,
	.end_fb_access = gembuf_plane_end_fb_access,
	.atomic_async_check = gembuf_cursor_async_check,
	.atomic_async_update = gembuf_cursor_async_update,
};

/*
 * Plane alpha, blend modes, YCbCr encoding and range and the scaling
 * filter, on the primary and the overlays.  A plane offers what every
 * value of its properties does on it: the cursor takes no framebuffer of
 * the mode's size (which clients, igt's alpha-blend tests among them,
 * blend on every plane offering plane alpha and blend modes), no YCbCr
 * format (for an encoding and range to convert) and does not scale (for
 * a filter to choose), and keeps DRM's defaults: opaque plane alpha,
 * pre-multiplied pixels.
 */
static int gembuf_plane_add_properties(struct drm_plane *plane)
{
	int ret;

	ret = drm_plane_create_alpha_property(plane);
	ret = ret ?: drm_plane_create_blend_mode_property(plane,
					BIT(DRM_MODE_BLEND_PIXEL_NONE) |
					BIT(DRM_MODE_BLEND_PREMULTI) |
					BIT(DRM_MODE_BLEND_COVERAGE));
	ret = ret ?: drm_plane_create_color_properties(plane,
					BIT(DRM_COLOR_YCBCR_BT601) |
					BIT(DRM_COLOR_YCBCR_BT709),
					BIT(DRM_COLOR_YCBCR_LIMITED_RANGE) |
					BIT(DRM_COLOR_YCBCR_FULL_RANGE),
					DRM_COLOR_YCBCR_BT601,
					DRM_COLOR_YCBCR_LIMITED_RANGE);
	return ret ?: drm_plane_create_scaling_filter_property(plane,
					BIT(DRM_SCALING_FILTER_DEFAULT) |
					BIT(DRM_SCALING_FILTER_NEAREST_NEIGHBOR));
}

/**
 * gembuf_plane_create() - make one plane with all its properties
 * @gdev: the display
 * @out: its output, the only one whose CRTC it may be put on
 * @type: primary, overlay or cursor
 * @zpos: the plane's default zpos
 *
 * Return: the plane or an ERR_PTR().
 */
struct drm_plane *gembuf_plane_create(struct gembuf_device *gdev,
				      struct gembuf_output *out,
				      enum drm_plane_type type, unsigned int zpos)
{
	bool cursor = type == DRM_PLANE_TYPE_CURSOR;
	struct gembuf_plane *gplane;
	struct drm_plane *plane;
	int ret;

	gplane = drmm_universal_plane_alloc(&gdev->drm, struct gembuf_plane, base,
					    BIT(out->index), &gembuf_plane_funcs,
					    cursor ? gembuf_cursor_formats :
						     gembuf_plane_formats,
					    cursor ? gembuf_num_cursor_formats :
						     gembuf_num_plane_formats,
					    gembuf_modifiers, type, NULL);
	if (IS_ERR(gplane))
		return ERR_CAST(gplane);
	gplane->out = out;
	plane = &gplane->base;
	drm_plane_helper_add(plane, cursor ? &gembuf_cursor_helper_funcs :
					     &gembuf_plane_helper_funcs);

	if (type == DRM_PLANE_TYPE_OVERLAY)
		ret = drm_plane_create_zpos_property(plane, zpos, 1,
						     GEMBUF_NUM_OVERLAYS);
	else
		ret = drm_plane_create_zpos_immutable_property(plane, zpos);
	ret = ret ?: drm_plane_create_rotation_property(plane, DRM_MODE_ROTATE_0,
					DRM_MODE_ROTATE_MASK | DRM_MODE_REFLECT_MASK);
	/* The cursor offers none of these: see gembuf_plane_add_properties(). */
	if (!cursor)
		ret = ret ?: gembuf_plane_add_properties(plane);
	if (ret)
		return ERR_PTR(ret);
	drm_object_attach_property(&plane->base, gdev->kms->colorkey_prop, 0);
	drm_object_attach_property(&plane->base, gdev->kms->colorkey_mask_prop, 0);
	return plane;
}
