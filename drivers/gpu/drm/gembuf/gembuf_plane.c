// SPDX-License-Identifier: GPL-2.0-only
/*
 * gembuf planes: the overlay RFC's objects as drm_planes.  Each plane
 * maps its framebuffer's objects through the display's VCM when the
 * framebuffer is prepared, and the composer reads them there in place.
 */

#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_blend.h>
#include <drm/drm_color_mgmt.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_gem_atomic_helper.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

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
		if (maps[i]->kind == GEMBUF_MAPPING_ONE_TO_ONE)
			gembuf_vunmap(obj);
		gembuf_mapping_put(obj, maps[i]);
		maps[i] = NULL;
	}
}

/**
 * gembuf_fb_map() - map a framebuffer's objects for the display
 * @gdev: the display
 * @fb: the framebuffer
 * @maps: output, the mapping of each plane's object
 * @vaddr: output, the kernel address of each plane
 *
 * The composer brackets each frame's access to a foreign buffer with the
 * exporter's CPU access calls.  A display that scans out by DMA
 * (display_dma) maps the objects in its one-to-one VCM, and the composer,
 * which stands in for its hardware, reads them through the kernel's map.
 *
 * Return: 0 or a negative errno, with nothing mapped.
 */
int gembuf_fb_map(struct gembuf_device *gdev, struct drm_framebuffer *fb,
		  struct gembuf_mapping *maps[DRM_FORMAT_MAX_PLANES],
		  void *vaddr[DRM_FORMAT_MAX_PLANES])
{
	unsigned int i;

	for (i = 0; i < fb->format->num_planes; i++) {
		struct gembuf_object *obj = to_gembuf_object(fb->obj[i]);

		void *base;

		maps[i] = gembuf_mapping_get(obj, gdev);
		if (IS_ERR(maps[i])) {
			int ret = PTR_ERR(maps[i]);

			maps[i] = NULL;
			gembuf_fb_unmap(fb, maps);
			return ret;
		}
		base = maps[i]->vaddr;
		if (maps[i]->kind == GEMBUF_MAPPING_ONE_TO_ONE) {
			base = gembuf_vmap(obj);
			if (IS_ERR(base)) {
				gembuf_mapping_put(obj, maps[i]);
				maps[i] = NULL;
				gembuf_fb_unmap(fb, maps);
				return PTR_ERR(base);
			}
		}
		vaddr[i] = base + fb->offsets[i];
	}
	return 0;
}

static struct drm_plane_state *
gembuf_plane_duplicate_state(struct drm_plane *plane)
{
	struct gembuf_plane_state *old = to_gembuf_plane_state(plane->state);
	struct gembuf_plane_state *state;

	state = kzalloc(sizeof(*state), GFP_KERNEL);
	if (!state)
		return NULL;
	__drm_atomic_helper_plane_duplicate_state(plane, &state->base);
	state->colorkey = old->colorkey;
	state->colorkey_mask = old->colorkey_mask;
	return &state->base;
}

static void gembuf_plane_destroy_state(struct drm_plane *plane,
				       struct drm_plane_state *state)
{
	__drm_atomic_helper_plane_destroy_state(state);
	kfree(to_gembuf_plane_state(state));
}

static void gembuf_plane_reset(struct drm_plane *plane)
{
	struct gembuf_plane_state *state;

	if (plane->state)
		gembuf_plane_destroy_state(plane, plane->state);
	plane->state = NULL;
	state = kzalloc(sizeof(*state), GFP_KERNEL);
	if (state)
		__drm_atomic_helper_plane_reset(plane, &state->base);
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
		container_of(state, struct gembuf_plane_state, base);
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

static int gembuf_plane_prepare_fb(struct drm_plane *plane,
				   struct drm_plane_state *state)
{
	struct gembuf_plane_state *s = to_gembuf_plane_state(state);
	int ret;

	if (!state->fb)
		return 0;
	ret = drm_gem_plane_helper_prepare_fb(plane, state);
	if (ret)
		return ret;
	s->read = gembuf_format_reader(state->fb->format->format);
	return gembuf_fb_map(to_gembuf_device(plane->dev), state->fb, s->maps,
			     s->vaddr);
}

static void gembuf_plane_cleanup_fb(struct drm_plane *plane,
				    struct drm_plane_state *state)
{
	struct gembuf_plane_state *s = to_gembuf_plane_state(state);

	if (state->fb)
		gembuf_fb_unmap(state->fb, s->maps);
}

/*
 * The plane state holds all the composer needs: nothing to program.
 * Count the framebuffers latched, so tests can tell that a client's
 * imported buffers reached the plane themselves rather than a copy.
 */
static void gembuf_plane_atomic_update(struct drm_plane *plane,
				       struct drm_atomic_state *state)
{
	struct drm_plane_state *old = drm_atomic_get_old_plane_state(state, plane);
	struct drm_plane_state *new = drm_atomic_get_new_plane_state(state, plane);
	struct gembuf_output *out = to_gembuf_plane(plane)->out;

	if (!new->fb || new->fb == old->fb)
		return;
	atomic64_inc(&out->fb_flips);
	if (to_gembuf_object(new->fb->obj[0])->sgt)
		atomic64_inc(&out->fb_flips_foreign);
}

static const struct drm_plane_helper_funcs gembuf_plane_helper_funcs = {
	.atomic_check = gembuf_plane_atomic_check,
	.atomic_update = gembuf_plane_atomic_update,
	.prepare_fb = gembuf_plane_prepare_fb,
	.cleanup_fb = gembuf_plane_cleanup_fb,
};

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
	drm_plane_helper_add(plane, &gembuf_plane_helper_funcs);

	if (type == DRM_PLANE_TYPE_OVERLAY)
		ret = drm_plane_create_zpos_property(plane, zpos, 1,
						     GEMBUF_NUM_OVERLAYS);
	else
		ret = drm_plane_create_zpos_immutable_property(plane, zpos);
	ret = ret ?: drm_plane_create_alpha_property(plane);
	ret = ret ?: drm_plane_create_blend_mode_property(plane,
					BIT(DRM_MODE_BLEND_PIXEL_NONE) |
					BIT(DRM_MODE_BLEND_PREMULTI) |
					BIT(DRM_MODE_BLEND_COVERAGE));
	ret = ret ?: drm_plane_create_rotation_property(plane, DRM_MODE_ROTATE_0,
					DRM_MODE_ROTATE_MASK | DRM_MODE_REFLECT_MASK);
	ret = ret ?: drm_plane_create_color_properties(plane,
					BIT(DRM_COLOR_YCBCR_BT601) |
					BIT(DRM_COLOR_YCBCR_BT709),
					BIT(DRM_COLOR_YCBCR_LIMITED_RANGE) |
					BIT(DRM_COLOR_YCBCR_FULL_RANGE),
					DRM_COLOR_YCBCR_BT601,
					DRM_COLOR_YCBCR_LIMITED_RANGE);
	ret = ret ?: drm_plane_create_scaling_filter_property(plane,
					BIT(DRM_SCALING_FILTER_DEFAULT) |
					BIT(DRM_SCALING_FILTER_NEAREST_NEIGHBOR));
	if (ret)
		return ERR_PTR(ret);
	drm_object_attach_property(&plane->base, gdev->kms->colorkey_prop, 0);
	drm_object_attach_property(&plane->base, gdev->kms->colorkey_mask_prop, 0);
	return plane;
}
