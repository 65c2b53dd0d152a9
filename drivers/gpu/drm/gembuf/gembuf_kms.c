// SPDX-License-Identifier: GPL-2.0-only
/*
 * gembuf KMS: mode configuration and the display's output: planes, CRTC,
 * a virtual connector with modes up to 1920x1080 (1024x768 preferred)
 * and a writeback connector.
 */

#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_edid.h>
#include <drm/drm_gem_framebuffer_helper.h>
#include <drm/drm_managed.h>
#include <drm/drm_probe_helper.h>
#include <drm/drm_simple_kms_helper.h>
#include <drm/drm_vblank.h>

#include "gembuf_kms.h"

static const struct drm_mode_config_funcs gembuf_mode_config_funcs = {
	.fb_create = drm_gem_fb_create,
	.atomic_check = drm_atomic_helper_check,
	.atomic_commit = drm_atomic_helper_commit,
};

/*
 * The composer reads the CRTC state it was given: wait for it before the
 * commit's old states are freed.
 */
static void gembuf_atomic_commit_tail(struct drm_atomic_state *state)
{
	struct drm_device *dev = state->dev;
	struct gembuf_output *out = to_gembuf_device(dev)->output;

	drm_atomic_helper_commit_modeset_disables(dev, state);
	drm_atomic_helper_commit_planes(dev, state, 0);
	drm_atomic_helper_commit_modeset_enables(dev, state);
	drm_atomic_helper_fake_vblank(state);
	drm_atomic_helper_commit_hw_done(state);
	drm_atomic_helper_wait_for_flip_done(dev, state);
	flush_workqueue(out->composer_wq);
	drm_atomic_helper_cleanup_planes(dev, state);
}

static const struct drm_mode_config_helper_funcs gembuf_mode_config_helpers = {
	.atomic_commit_tail = gembuf_atomic_commit_tail,
};

static int gembuf_conn_get_modes(struct drm_connector *connector)
{
	int count = drm_add_modes_noedid(connector, GEMBUF_XRES_MAX,
					 GEMBUF_YRES_MAX);

	drm_set_preferred_mode(connector, GEMBUF_XRES_DEF, GEMBUF_YRES_DEF);
	return count;
}

static const struct drm_connector_helper_funcs gembuf_conn_helper_funcs = {
	.get_modes = gembuf_conn_get_modes,
};

static const struct drm_connector_funcs gembuf_connector_funcs = {
	.fill_modes = drm_helper_probe_single_connector_modes,
	.reset = drm_atomic_helper_connector_reset,
	.atomic_duplicate_state = drm_atomic_helper_connector_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_connector_destroy_state,
};

static int gembuf_output_init(struct gembuf_device *gdev,
			      struct gembuf_output *out)
{
	struct drm_device *dev = &gdev->drm;
	unsigned int i;
	int ret;

	/*
	 * The overlay RFC's color key: KMS has no generic property for it.
	 * Pixels whose XRGB8888 value matches COLORKEY in the bits of
	 * COLORKEY_MASK are transparent; a zero mask disables the key.
	 */
	out->colorkey_prop = drm_property_create_range(dev, 0, "COLORKEY", 0,
						       0xffffff);
	out->colorkey_mask_prop = drm_property_create_range(dev, 0,
							    "COLORKEY_MASK", 0,
							    0xffffff);
	if (!out->colorkey_prop || !out->colorkey_mask_prop)
		return -ENOMEM;

	out->primary = gembuf_plane_create(gdev, out, DRM_PLANE_TYPE_PRIMARY, 0);
	if (IS_ERR(out->primary))
		return PTR_ERR(out->primary);
	for (i = 0; i < GEMBUF_NUM_OVERLAYS; i++) {
		out->overlays[i] = gembuf_plane_create(gdev, out,
						       DRM_PLANE_TYPE_OVERLAY, i + 1);
		if (IS_ERR(out->overlays[i]))
			return PTR_ERR(out->overlays[i]);
	}
	out->cursor = gembuf_plane_create(gdev, out, DRM_PLANE_TYPE_CURSOR,
					  GEMBUF_NUM_OVERLAYS + 1);
	if (IS_ERR(out->cursor))
		return PTR_ERR(out->cursor);

	ret = gembuf_crtc_init(gdev, out);
	if (ret)
		return ret;

	ret = drmm_connector_init(dev, &out->connector, &gembuf_connector_funcs,
				  DRM_MODE_CONNECTOR_VIRTUAL, NULL);
	if (ret)
		return ret;
	drm_connector_helper_add(&out->connector, &gembuf_conn_helper_funcs);

	ret = drm_simple_encoder_init(dev, &out->encoder, DRM_MODE_ENCODER_VIRTUAL);
	if (ret)
		return ret;
	out->encoder.possible_crtcs = drm_crtc_mask(&out->crtc);
	ret = drm_connector_attach_encoder(&out->connector, &out->encoder);
	if (ret)
		return ret;

	ret = gembuf_writeback_init(gdev, out);
	if (ret)
		return ret;
	/* The CRTC drives both at once: each encoder is the other's clone. */
	out->encoder.possible_clones = drm_encoder_mask(&out->encoder) |
				       drm_encoder_mask(&out->wb.encoder);
	out->wb.encoder.possible_clones = out->encoder.possible_clones;
	return 0;
}

/**
 * gembuf_kms_init() - give the display its KMS pipeline
 * @gdev: the display, not registered yet
 *
 * Return: 0 or a negative errno.
 */
int gembuf_kms_init(struct gembuf_device *gdev)
{
	struct drm_device *dev = &gdev->drm;
	int ret;

	/* Allocated first, so it is freed after the mode config cleanup. */
	gdev->output = drmm_kzalloc(dev, sizeof(*gdev->output), GFP_KERNEL);
	if (!gdev->output)
		return -ENOMEM;
	ret = drmm_mode_config_init(dev);
	if (ret)
		return ret;
	dev->mode_config.funcs = &gembuf_mode_config_funcs;
	dev->mode_config.helper_private = &gembuf_mode_config_helpers;
	dev->mode_config.min_width = GEMBUF_XRES_MIN;
	dev->mode_config.min_height = GEMBUF_YRES_MIN;
	dev->mode_config.max_width = GEMBUF_XRES_MAX * 4;
	dev->mode_config.max_height = GEMBUF_YRES_MAX * 4;
	dev->mode_config.cursor_width = GEMBUF_CURSOR_SIZE;
	dev->mode_config.cursor_height = GEMBUF_CURSOR_SIZE;
	dev->mode_config.preferred_depth = 24;
	dev->mode_config.normalize_zpos = true;

	ret = gembuf_output_init(gdev, gdev->output);
	if (ret)
		return ret;
	ret = drm_vblank_init(dev, 1);
	if (ret)
		return ret;
	drm_mode_config_reset(dev);
	return 0;
}

/**
 * gembuf_kms_fini() - shut the pipeline down before the device goes
 * @gdev: the display, unregistered
 */
void gembuf_kms_fini(struct gembuf_device *gdev)
{
	drm_atomic_helper_shutdown(&gdev->drm);
}
