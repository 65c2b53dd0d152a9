// SPDX-License-Identifier: GPL-2.0-only
/*
 * gembuf composer: blends the visible planes, bottom to top, line by line
 * into 16-bit-a-channel pixels (each plane's line read with one call of
 * its format's reader), applies the gamma LUT and hands the frame
 * to the CRC and the writeback connector.  Every plane is read where its
 * framebuffer's objects are, through the display's VCM mapping.
 */

#include <drm/drm_blend.h>
#include <drm/drm_color_mgmt.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_vblank.h>
#include <drm/drm_writeback.h>
#include <kunit/visibility.h>
#include <linux/crc32.h>
#include <linux/slab.h>

#include "gembuf_kms.h"

static u32 mul16(u32 a, u32 b)
{
	return (a * b + 0x7fff) / 0xffff;
}

/**
 * gembuf_source_point() - the source pixel a destination pixel shows
 * @s: the plane state, checked (@s->src in 16.16, @s->dst on the CRTC)
 * @x: destination column on the CRTC
 * @y: destination line on the CRTC
 * @sx: output, the framebuffer column
 * @sy: output, the framebuffer line
 *
 * The pixel nearest to the destination pixel's centre, after the
 * source is reflected and then rotated counter-clockwise, as DRM's
 * rotation property defines it.
 */
VISIBLE_IF_KUNIT void gembuf_source_point(const struct drm_plane_state *s,
					  int x, int y, int *sx, int *sy)
{
	const struct drm_rect *dst = &s->dst, *src = &s->src;
	u32 u = (u32)(((u64)(x - dst->x1) * 2 + 1) * 32768 / drm_rect_width(dst));
	u32 v = (u32)(((u64)(y - dst->y1) * 2 + 1) * 32768 / drm_rect_height(dst));
	u32 su, sv;

	switch (s->rotation & DRM_MODE_ROTATE_MASK) {
	case DRM_MODE_ROTATE_90:
		su = 65536 - v;
		sv = u;
		break;
	case DRM_MODE_ROTATE_180:
		su = 65536 - u;
		sv = 65536 - v;
		break;
	case DRM_MODE_ROTATE_270:
		su = v;
		sv = 65536 - u;
		break;
	default:
		su = u;
		sv = v;
		break;
	}
	if (s->rotation & DRM_MODE_REFLECT_X)
		su = 65536 - su;
	if (s->rotation & DRM_MODE_REFLECT_Y)
		sv = 65536 - sv;

	*sx = (src->x1 + (int)(((u64)su * drm_rect_width(src)) >> 16)) >> 16;
	*sy = (src->y1 + (int)(((u64)sv * drm_rect_height(src)) >> 16)) >> 16;
}
EXPORT_SYMBOL_IF_KUNIT(gembuf_source_point);

static bool keyed_out(const struct gembuf_plane_state *ps,
		      const struct gembuf_pixel *p)
{
	u32 rgb;

	if (!ps->colorkey_mask)
		return false;
	rgb = (p->r >> 8) << 16 | (p->g >> 8) << 8 | p->b >> 8;
	return (rgb & ps->colorkey_mask) == (ps->colorkey & ps->colorkey_mask);
}

/*
 * One pixel blended over another, inlined into each loop that blends, so
 * the loop makes no call a pixel and, where @mode is a constant, the
 * compiler drops what that mode does not use.
 */
static __always_inline void blend_pixel(struct gembuf_pixel *dst,
					const struct gembuf_pixel *src,
					u16 plane_alpha, u16 mode)
{
	u32 a = mode == DRM_MODE_BLEND_PIXEL_NONE ? 0xffff : src->a;
	u32 cov = mul16(a, plane_alpha);
	/* What the source contributes per channel, before the destination. */
	u32 k = mode == DRM_MODE_BLEND_COVERAGE ? cov : plane_alpha;

	if (cov == 0xffff) {		/* opaque: k is 0xffff too */
		*dst = *src;
		dst->a = 0xffff;
		return;
	}
	/*
	 * Pre-multiplied pixels with a color above their alpha are not
	 * valid, but a client may send them: saturate, as hardware does.
	 */
	dst->r = min(mul16(src->r, k) + mul16(dst->r, 0xffff - cov), 0xffffU);
	dst->g = min(mul16(src->g, k) + mul16(dst->g, 0xffff - cov), 0xffffU);
	dst->b = min(mul16(src->b, k) + mul16(dst->b, 0xffff - cov), 0xffffU);
	dst->a = 0xffff;
}

/**
 * gembuf_blend() - blend one pixel over another
 * @dst: the pixel below, opaque, replaced by the result
 * @src: the plane's pixel, straight alpha as the readers return it
 * @plane_alpha: the plane's "alpha" property
 * @mode: the plane's "pixel blend mode" (DRM_MODE_BLEND_*)
 */
VISIBLE_IF_KUNIT void gembuf_blend(struct gembuf_pixel *dst,
				   const struct gembuf_pixel *src,
				   u16 plane_alpha, u16 mode)
{
	blend_pixel(dst, src, plane_alpha, mode);
}
EXPORT_SYMBOL_IF_KUNIT(gembuf_blend);

/* Rotated by 90 or 270 degrees, a destination line crosses source lines. */
static bool transposed(const struct drm_plane_state *s)
{
	return s->rotation & (DRM_MODE_ROTATE_90 | DRM_MODE_ROTATE_270);
}

/*
 * The source column of each destination column: unless the plane is
 * transposed, it depends on the column only, so it is worked out once a
 * frame and every line is read with one call of the plane's reader.
 */
static void source_columns(const struct drm_plane_state *s, int *xs)
{
	int i, sx, sy, n = drm_rect_width(&s->dst);

	for (i = 0; i < n; i++) {
		gembuf_source_point(s, s->dst.x1 + i, s->dst.y1, &sx, &sy);
		xs[i] = clamp(sx, 0, (int)s->fb->width - 1);
	}
}

static void compose_plane_line(struct gembuf_pixel *line,
			       struct gembuf_pixel *px, int y,
			       const struct gembuf_plane_state *ps, const int *xs)
{
	const struct drm_plane_state *s = &ps->base;
	const struct drm_framebuffer *fb = s->fb;
	int i, sx, sy, n = drm_rect_width(&s->dst);

	if (y < s->dst.y1 || y >= s->dst.y2)
		return;
	if (!transposed(s)) {
		gembuf_source_point(s, s->dst.x1, y, &sx, &sy);
		sy = clamp(sy, 0, (int)fb->height - 1);
		ps->read(ps->vaddr, fb, sy, xs, n, s, px);
	} else {
		for (i = 0; i < n; i++) {
			gembuf_source_point(s, s->dst.x1 + i, y, &sx, &sy);
			sx = clamp(sx, 0, (int)fb->width - 1);
			sy = clamp(sy, 0, (int)fb->height - 1);
			ps->read(ps->vaddr, fb, sy, &sx, 1, s, &px[i]);
		}
	}
	line += s->dst.x1;
	for (i = 0; i < n; i++) {
		if (keyed_out(ps, &px[i]))
			continue;
		blend_pixel(&line[i], &px[i], s->alpha, s->pixel_blend_mode);
	}
}

/*
 * Whether plane state @ps hides everything below it: opaque pixels (no
 * alpha channel, or one that is ignored), full plane alpha, no color key,
 * over the whole @width x @height frame.
 */
static bool hides_below(const struct gembuf_plane_state *ps, int width,
			int height)
{
	const struct drm_plane_state *s = &ps->base;

	return s->alpha == DRM_BLEND_ALPHA_OPAQUE && !ps->colorkey_mask &&
	       (!s->fb->format->has_alpha ||
		s->pixel_blend_mode == DRM_MODE_BLEND_PIXEL_NONE) &&
	       s->dst.x1 <= 0 && s->dst.y1 <= 0 && s->dst.x2 >= width &&
	       s->dst.y2 >= height;
}

static void apply_gamma(struct gembuf_pixel *line, int width,
			const struct drm_property_blob *lut_blob)
{
	const struct drm_color_lut *lut = lut_blob->data;
	int x;

	for (x = 0; x < width; x++) {
		line[x].r = lut[line[x].r >> 8].red;
		line[x].g = lut[line[x].g >> 8].green;
		line[x].b = lut[line[x].b >> 8].blue;
	}
}

static u32 line_crc(u32 crc, const struct gembuf_pixel *line, int width,
		    u32 *scratch)
{
	int x;

	for (x = 0; x < width; x++)
		scratch[x] = (line[x].r >> 8) << 16 | (line[x].g >> 8) << 8 |
			     line[x].b >> 8;
	return crc32_le(crc, (u8 *)scratch, width * sizeof(u32));
}

/**
 * gembuf_composer_work() - compose one frame
 * @work: &gembuf_output.composer_work
 */
void gembuf_composer_work(struct work_struct *work)
{
	struct gembuf_output *out = container_of(work, struct gembuf_output,
						 composer_work);
	struct gembuf_crtc_state *state;
	struct gembuf_pixel *line, *px = NULL;
	bool crc_on, wb;
	u32 crc = 0, *scratch = NULL;
	int width, height, y, *xs = NULL, ret = 0;
	unsigned int i, first;
	u64 frame, frame_end;

	spin_lock_irq(&out->lock);
	state = out->composer_state;
	/* A run for a writeback job alone has no vblank to give a CRC to. */
	crc_on = out->crc_enabled && out->frames_queued;
	frame = out->frame_start;
	frame_end = out->frame_end;
	out->frames_queued = false;
	wb = state && state->wb_pending;
	if (wb)
		state->wb_pending = false;
	spin_unlock_irq(&out->lock);
	if (!state || (!crc_on && !wb))
		return;

	width = state->base.mode.hdisplay;
	height = state->base.mode.vdisplay;
	line = kvmalloc_array(width, sizeof(*line), GFP_KERNEL);
	px = kvmalloc_array(width, sizeof(*px), GFP_KERNEL);
	scratch = kvmalloc_array(width, sizeof(*scratch), GFP_KERNEL);
	xs = kvmalloc_array(width * GEMBUF_MAX_PLANES, sizeof(*xs), GFP_KERNEL);
	if (!line || !px || !scratch || !xs ||
	    should_fail(&gembuf_fail_compose, 1)) {
		ret = -ENOMEM;
		goto out;
	}
	/* Planes under the topmost full-frame opaque one are not read at all. */
	for (first = 0, i = 0; i < state->num_planes; i++)
		if (hides_below(state->planes[i], width, height))
			first = i;
	for (i = first; i < state->num_planes; i++)
		if (!transposed(&state->planes[i]->base))
			source_columns(&state->planes[i]->base, xs + i * width);

	for (y = 0; y < height; y++) {
		/* An opaque black background under every plane. */
		for (i = 0; i < width; i++)
			line[i] = (struct gembuf_pixel){ .a = 0xffff };
		for (i = first; i < state->num_planes; i++)
			compose_plane_line(line, px, y, state->planes[i],
					   xs + i * width);
		if (state->base.gamma_lut)
			apply_gamma(line, width, state->base.gamma_lut);
		if (crc_on)
			crc = line_crc(crc, line, width, scratch);
		if (wb)
			gembuf_write_line(state->wb_fb, state->wb_vaddr, y, line,
					  width);
	}
	atomic64_inc(&out->frames_composed);
	/* Frames the composer fell behind on showed this same picture. */
	while (crc_on && frame <= frame_end)
		drm_crtc_add_crc_entry(&out->crtc, true, frame++, &crc);
out:
	if (wb) {
		drm_writeback_signal_completion(&out->wb, ret);
		drm_crtc_vblank_put(&out->crtc);
	}
	kvfree(xs);
	kvfree(scratch);
	kvfree(px);
	kvfree(line);
}
