// SPDX-License-Identifier: GPL-2.0-only
/*
 * gembuf pixel formats: one reader per plane format, picked once per
 * plane state, and the writeback writers.  Readers return 16 bits a
 * channel with straight (not premultiplied) alpha; YCbCr is converted
 * with the plane's COLOR_ENCODING (BT.601, BT.709) and COLOR_RANGE.
 */

#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <linux/minmax.h>

#include "gembuf_kms.h"

const u32 gembuf_plane_formats[] = {
	DRM_FORMAT_XRGB8888,
	DRM_FORMAT_ARGB8888,
	DRM_FORMAT_XBGR8888,
	DRM_FORMAT_ABGR8888,
	DRM_FORMAT_RGB565,
	DRM_FORMAT_XRGB2101010,
	DRM_FORMAT_XRGB16161616,
	DRM_FORMAT_ARGB16161616,
	DRM_FORMAT_YUYV,
	DRM_FORMAT_UYVY,
	DRM_FORMAT_NV12,
};

const unsigned int gembuf_num_plane_formats = ARRAY_SIZE(gembuf_plane_formats);

const u32 gembuf_wb_formats[] = {
	DRM_FORMAT_XRGB8888,
	DRM_FORMAT_XRGB2101010,
};

const unsigned int gembuf_num_wb_formats = ARRAY_SIZE(gembuf_wb_formats);

static void *pixel_ptr(void *const planes[DRM_FORMAT_MAX_PLANES],
		       const struct drm_framebuffer *fb, int plane, int x, int y)
{
	return planes[plane] + y * fb->pitches[plane] +
	       x * fb->format->cpp[plane];
}

/* n bits to 16 bits, replicating the high bits into the low ones. */
static u16 expand(u32 v, unsigned int bits)
{
	v <<= 16 - bits;
	return v | v >> bits;
}

static void read_xrgb8888(void *const planes[DRM_FORMAT_MAX_PLANES],
			  const struct drm_framebuffer *fb, int x, int y,
			  const struct drm_plane_state *state,
			  struct gembuf_pixel *out)
{
	u32 v = *(u32 *)pixel_ptr(planes, fb, 0, x, y);

	out->a = 0xffff;
	out->r = expand((v >> 16) & 0xff, 8);
	out->g = expand((v >> 8) & 0xff, 8);
	out->b = expand(v & 0xff, 8);
}

static void read_argb8888(void *const planes[DRM_FORMAT_MAX_PLANES],
			  const struct drm_framebuffer *fb, int x, int y,
			  const struct drm_plane_state *state,
			  struct gembuf_pixel *out)
{
	u32 v = *(u32 *)pixel_ptr(planes, fb, 0, x, y);

	read_xrgb8888(planes, fb, x, y, state, out);
	out->a = expand(v >> 24, 8);
}

static void read_xbgr8888(void *const planes[DRM_FORMAT_MAX_PLANES],
			  const struct drm_framebuffer *fb, int x, int y,
			  const struct drm_plane_state *state,
			  struct gembuf_pixel *out)
{
	u32 v = *(u32 *)pixel_ptr(planes, fb, 0, x, y);

	out->a = 0xffff;
	out->b = expand((v >> 16) & 0xff, 8);
	out->g = expand((v >> 8) & 0xff, 8);
	out->r = expand(v & 0xff, 8);
}

static void read_abgr8888(void *const planes[DRM_FORMAT_MAX_PLANES],
			  const struct drm_framebuffer *fb, int x, int y,
			  const struct drm_plane_state *state,
			  struct gembuf_pixel *out)
{
	u32 v = *(u32 *)pixel_ptr(planes, fb, 0, x, y);

	read_xbgr8888(planes, fb, x, y, state, out);
	out->a = expand(v >> 24, 8);
}

static void read_rgb565(void *const planes[DRM_FORMAT_MAX_PLANES],
			const struct drm_framebuffer *fb, int x, int y,
			const struct drm_plane_state *state,
			struct gembuf_pixel *out)
{
	u16 v = *(u16 *)pixel_ptr(planes, fb, 0, x, y);

	out->a = 0xffff;
	out->r = expand(v >> 11, 5);
	out->g = expand((v >> 5) & 0x3f, 6);
	out->b = expand(v & 0x1f, 5);
}

static void read_xrgb2101010(void *const planes[DRM_FORMAT_MAX_PLANES],
			     const struct drm_framebuffer *fb, int x, int y,
			     const struct drm_plane_state *state,
			     struct gembuf_pixel *out)
{
	u32 v = *(u32 *)pixel_ptr(planes, fb, 0, x, y);

	out->a = 0xffff;
	out->r = expand((v >> 20) & 0x3ff, 10);
	out->g = expand((v >> 10) & 0x3ff, 10);
	out->b = expand(v & 0x3ff, 10);
}

static void read_xrgb16161616(void *const planes[DRM_FORMAT_MAX_PLANES],
			      const struct drm_framebuffer *fb, int x, int y,
			      const struct drm_plane_state *state,
			      struct gembuf_pixel *out)
{
	u16 *v = pixel_ptr(planes, fb, 0, x, y);

	out->b = v[0];
	out->g = v[1];
	out->r = v[2];
	out->a = 0xffff;
}

static void read_argb16161616(void *const planes[DRM_FORMAT_MAX_PLANES],
			      const struct drm_framebuffer *fb, int x, int y,
			      const struct drm_plane_state *state,
			      struct gembuf_pixel *out)
{
	u16 *v = pixel_ptr(planes, fb, 0, x, y);

	read_xrgb16161616(planes, fb, x, y, state, out);
	out->a = v[3];
}

/*
 * YCbCr to RGB, in 16.16 fixed point: R = Y' + Cr*kr, G = Y' - Cb*kgb -
 * Cr*kgr, B = Y' + Cb*kb with Y' and Cb/Cr scaled from the range first.
 */
struct gembuf_yuv_coeffs {
	s32 kr, kgb, kgr, kb;
};

static const struct gembuf_yuv_coeffs bt601 = {
	.kr = 91881, .kgb = 22554, .kgr = 46802, .kb = 116130,
};

static const struct gembuf_yuv_coeffs bt709 = {
	.kr = 103206, .kgb = 12277, .kgr = 30679, .kb = 121609,
};

static u16 clamp16(s64 v)
{
	return clamp_t(s64, v, 0, 0xffff);
}

static void yuv_to_rgb(u8 y, u8 cb, u8 cr, const struct drm_plane_state *state,
		       struct gembuf_pixel *out)
{
	const struct gembuf_yuv_coeffs *k =
		state->color_encoding == DRM_COLOR_YCBCR_BT709 ? &bt709 : &bt601;
	bool limited = state->color_range == DRM_COLOR_YCBCR_LIMITED_RANGE;
	/* Luma and chroma scaled to 0..1 and -0.5..0.5, in 16.16. */
	s64 yy = limited ? ((s64)y - 16) * 65536 * 255 / 219 : (s64)y * 65536;
	s64 u = limited ? ((s64)cb - 128) * 65536 * 255 / 224 : ((s64)cb - 128) * 65536;
	s64 v = limited ? ((s64)cr - 128) * 65536 * 255 / 224 : ((s64)cr - 128) * 65536;

	/* 8-bit channel values in 16.16 to 16-bit values: * 257 / 65536. */
	out->a = 0xffff;
	out->r = clamp16((yy + v * k->kr / 65536) * 257 / 65536);
	out->g = clamp16((yy - u * k->kgb / 65536 - v * k->kgr / 65536) * 257 / 65536);
	out->b = clamp16((yy + u * k->kb / 65536) * 257 / 65536);
}

static void read_yuyv(void *const planes[DRM_FORMAT_MAX_PLANES],
		      const struct drm_framebuffer *fb, int x, int y,
		      const struct drm_plane_state *state, struct gembuf_pixel *out)
{
	u8 *p = planes[0] + y * fb->pitches[0] + (x & ~1) * 2;

	yuv_to_rgb(p[(x & 1) * 2], p[1], p[3], state, out);
}

static void read_uyvy(void *const planes[DRM_FORMAT_MAX_PLANES],
		      const struct drm_framebuffer *fb, int x, int y,
		      const struct drm_plane_state *state, struct gembuf_pixel *out)
{
	u8 *p = planes[0] + y * fb->pitches[0] + (x & ~1) * 2;

	yuv_to_rgb(p[1 + (x & 1) * 2], p[0], p[2], state, out);
}

static void read_nv12(void *const planes[DRM_FORMAT_MAX_PLANES],
		      const struct drm_framebuffer *fb, int x, int y,
		      const struct drm_plane_state *state, struct gembuf_pixel *out)
{
	u8 *luma = planes[0] + y * fb->pitches[0] + x;
	u8 *chroma = planes[1] + (y / 2) * fb->pitches[1] + (x & ~1);

	yuv_to_rgb(*luma, chroma[0], chroma[1], state, out);
}

/**
 * gembuf_format_reader() - the pixel reader of a plane format
 * @format: a DRM fourcc of gembuf_plane_formats
 *
 * Return: the reader, or NULL for a format the planes do not offer.
 */
gembuf_read_fn gembuf_format_reader(u32 format)
{
	switch (format) {
	case DRM_FORMAT_XRGB8888:
		return read_xrgb8888;
	case DRM_FORMAT_ARGB8888:
		return read_argb8888;
	case DRM_FORMAT_XBGR8888:
		return read_xbgr8888;
	case DRM_FORMAT_ABGR8888:
		return read_abgr8888;
	case DRM_FORMAT_RGB565:
		return read_rgb565;
	case DRM_FORMAT_XRGB2101010:
		return read_xrgb2101010;
	case DRM_FORMAT_XRGB16161616:
		return read_xrgb16161616;
	case DRM_FORMAT_ARGB16161616:
		return read_argb16161616;
	case DRM_FORMAT_YUYV:
		return read_yuyv;
	case DRM_FORMAT_UYVY:
		return read_uyvy;
	case DRM_FORMAT_NV12:
		return read_nv12;
	}
	return NULL;
}

/**
 * gembuf_write_line() - store a composed line into a writeback framebuffer
 * @fb: the framebuffer, XRGB8888 or XRGB2101010
 * @vaddr: its kernel address
 * @y: the line
 * @line: the pixels
 * @width: their number
 */
void gembuf_write_line(const struct drm_framebuffer *fb, void *vaddr, int y,
		       const struct gembuf_pixel *line, int width)
{
	u32 *dst = vaddr + fb->offsets[0] + y * fb->pitches[0];
	int x;

	for (x = 0; x < width; x++) {
		const struct gembuf_pixel *p = &line[x];

		if (fb->format->format == DRM_FORMAT_XRGB2101010)
			dst[x] = (p->r >> 6) << 20 | (p->g >> 6) << 10 | p->b >> 6;
		else
			dst[x] = (p->r >> 8) << 16 | (p->g >> 8) << 8 | p->b >> 8;
	}
}
