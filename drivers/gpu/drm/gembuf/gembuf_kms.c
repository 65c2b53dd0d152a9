// SPDX-License-Identifier: GPL-2.0-only
/*
 * gembuf KMS: mode configuration and the display's outputs, each with
 * its planes, CRTC, a virtual connector with modes up to 1920x1080
 * (1024x768 preferred) and a writeback connector.  Two outputs let
 * clients (and tests) use several CRTCs at once and see the planes of
 * one refused on the other.
 */

#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_edid.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_gem_framebuffer_helper.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <drm/drm_probe_helper.h>
#include <drm/drm_simple_kms_helper.h>
#include <drm/drm_vblank.h>

#include "gembuf_kms.h"

/*
 * Framebuffers as drm_gem_fb_create() makes them (each plane inside its
 * object), with each plane's pitch and offset a whole number of pixel
 * blocks: the composer reads pixels as aligned words, and a pitch or
 * offset that splits a pixel is most likely a client's mistake.
 */
static struct drm_framebuffer *
gembuf_fb_create(struct drm_device *dev, struct drm_file *file,
		 const struct drm_mode_fb_cmd2 *cmd)
{
	const struct drm_format_info *info = drm_get_format_info(dev, cmd);
	unsigned int i;

	for (i = 0; info && i < info->num_planes; i++) {
		unsigned int block = info->char_per_block[i];

		if (cmd->pitches[i] % block || cmd->offsets[i] % block) {
			drm_dbg_kms(dev, "plane %u: pitch %u or offset %u not a multiple of %u\n",
				    i, cmd->pitches[i], cmd->offsets[i], block);
			return ERR_PTR(-EINVAL);
		}
	}
	return drm_gem_fb_create(dev, file, cmd);
}

static const struct drm_mode_config_funcs gembuf_mode_config_funcs = {
	.fb_create = gembuf_fb_create,
	.atomic_check = drm_atomic_helper_check,
	.atomic_commit = drm_atomic_helper_commit,
};

/*
 * The CRTC is lit before its planes are committed, so that atomic_flush
 * arms the commit's event on a running vblank: flushed on a CRTC still
 * off, the event would go out at once, before the modeset is done.
 * Planes of CRTCs being turned off are not committed (atomic_disable
 * sends their event).  The composer reads the CRTC state it was given:
 * wait for it before the commit's old states are freed.
 */
static void gembuf_atomic_commit_tail(struct drm_atomic_state *state)
{
	struct drm_device *dev = state->dev;
	struct drm_crtc_state *crtc_state;
	struct drm_crtc *crtc;
	int i;

	drm_atomic_helper_commit_modeset_disables(dev, state);
	drm_atomic_helper_commit_modeset_enables(dev, state);
	drm_atomic_helper_commit_planes(dev, state,
					DRM_PLANE_COMMIT_ACTIVE_ONLY);
	drm_atomic_helper_fake_vblank(state);
	drm_atomic_helper_commit_hw_done(state);
	drm_atomic_helper_wait_for_flip_done(dev, state);
	for_each_new_crtc_in_state(state, crtc, crtc_state, i)
		flush_work(&crtc_to_output(crtc)->composer_work);
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
			      struct gembuf_output *out, unsigned int index)
{
	struct drm_device *dev = &gdev->drm;
	unsigned int i;
	int ret;

	out->index = index;
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
	ret = drm_connector_attach_encoder(&out->connector, &out->encoder);
	if (ret)
		return ret;

	return gembuf_writeback_init(gdev, out);
}

/*
 * Which CRTCs drive which encoders, once all exist.  A virtual output has
 * no wiring: any CRTC can drive it, one output per CRTC.  A writeback
 * connector writes back its own CRTC's frame, together with whichever
 * virtual output that CRTC drives.  drm_atomic_check_valid_clones()
 * refuses two virtual outputs on one CRTC.
 */
static void gembuf_kms_routing(struct gembuf_kms *kms)
{
	u32 crtcs = 0, virt = 0, wb = 0;
	unsigned int i;

	for (i = 0; i < GEMBUF_NUM_CRTCS; i++) {
		crtcs |= drm_crtc_mask(&kms->outputs[i].crtc);
		virt |= drm_encoder_mask(&kms->outputs[i].encoder);
		wb |= drm_encoder_mask(&kms->outputs[i].wb.encoder);
	}
	for (i = 0; i < GEMBUF_NUM_CRTCS; i++) {
		struct gembuf_output *out = &kms->outputs[i];

		out->encoder.possible_crtcs = crtcs;
		out->encoder.possible_clones = drm_encoder_mask(&out->encoder) | wb;
		out->wb.encoder.possible_clones =
			drm_encoder_mask(&out->wb.encoder) | virt;
	}
}

/*
 * drm_mode_config_reset() cannot fail, but the reset hooks allocate the
 * first states, and a CRTC, plane or connector whose allocation failed
 * is left with none, which every later commit, the shutdown's too,
 * dereferences.  Such a display fails its probe instead, until the
 * hooks can report the failure themselves.
 */
static int gembuf_kms_reset(struct drm_device *dev)
{
	struct drm_connector_list_iter iter;
	struct drm_connector *connector;
	struct drm_plane *plane;
	struct drm_crtc *crtc;
	bool missing = false;

	drm_mode_config_reset(dev);
	drm_for_each_crtc(crtc, dev)
		missing |= !crtc->state;
	drm_for_each_plane(plane, dev)
		missing |= !plane->state;
	drm_connector_list_iter_begin(dev, &iter);
	drm_for_each_connector_iter(connector, &iter)
		missing |= !connector->state;
	drm_connector_list_iter_end(&iter);
	if (missing) {
		drm_err(dev, "no memory for the first KMS states\n");
		return -ENOMEM;
	}
	return 0;
}

/**
 * gembuf_kms_init() - give the display its KMS pipelines
 * @gdev: the display, not registered yet
 *
 * Return: 0 or a negative errno.
 */
int gembuf_kms_init(struct gembuf_device *gdev)
{
	struct drm_device *dev = &gdev->drm;
	struct gembuf_kms *kms;
	unsigned int i;
	int ret;

	/* Allocated first, so it is freed after the mode config cleanup. */
	kms = drmm_kzalloc(dev, sizeof(*kms), GFP_KERNEL);
	if (!kms)
		return -ENOMEM;
	gdev->kms = kms;
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

	/*
	 * The overlay RFC's color key: KMS has no generic property for it.
	 * Pixels whose XRGB8888 value matches COLORKEY in the bits of
	 * COLORKEY_MASK are transparent; a zero mask disables the key.
	 */
	kms->colorkey_prop = drm_property_create_range(dev, 0, "COLORKEY", 0,
						       0xffffff);
	kms->colorkey_mask_prop = drm_property_create_range(dev, 0,
							    "COLORKEY_MASK", 0,
							    0xffffff);
	if (!kms->colorkey_prop || !kms->colorkey_mask_prop)
		return -ENOMEM;

	/* In order: output i's CRTC gets index i, as its planes expect. */
	for (i = 0; i < GEMBUF_NUM_CRTCS; i++) {
		ret = gembuf_output_init(gdev, &kms->outputs[i], i);
		if (ret)
			return ret;
	}
	gembuf_kms_routing(kms);
	ret = drm_vblank_init(dev, GEMBUF_NUM_CRTCS);
	if (ret)
		return ret;
	return gembuf_kms_reset(dev);
}

/**
 * gembuf_kms_fini() - shut the pipeline down before the device goes
 * @gdev: the display, unregistered
 */
void gembuf_kms_fini(struct gembuf_device *gdev)
{
	drm_atomic_helper_shutdown(&gdev->drm);
}
