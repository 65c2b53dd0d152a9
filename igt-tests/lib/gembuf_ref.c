// SPDX-License-Identifier: MIT
/* See gembuf_ref.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <drm_fourcc.h>
#include <drm_mode.h>

#include "igt.h"
#include "gembuf_ref.h"

struct rgba {
	double r, g, b, a;
};

static double clamp01(double v)
{
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

/* A channel in 0..1 to 8 bits, as a 16-bit composer truncating to 8. */
static uint32_t to8(double c)
{
	return (uint32_t)floor(clamp01(c) * 65535 + 0.5) >> 8;
}

static struct rgba ycbcr(const struct gk_layer *l, int y, int cb, int cr)
{
	/* Kr and Kb of the encodings; the rest follows from them. */
	double kr = l->encoding == 1 ? 0.2126 : 0.299;
	double kb = l->encoding == 1 ? 0.0722 : 0.114;
	double kg = 1 - kr - kb;
	double yy, u, v;

	if (l->range == 1) {		/* full */
		yy = y / 255.0;
		u = (cb - 128) / 255.0;
		v = (cr - 128) / 255.0;
	} else {
		yy = (y - 16) / 219.0;
		u = (cb - 128) / 224.0;
		v = (cr - 128) / 224.0;
	}
	return (struct rgba){
		.r = yy + 2 * (1 - kr) * v,
		.g = yy - 2 * (1 - kb) * kb / kg * u - 2 * (1 - kr) * kr / kg * v,
		.b = yy + 2 * (1 - kb) * u,
		.a = 1,
	};
}

static struct rgba fetch(const struct gk_layer *l, uint32_t x, uint32_t y)
{
	const struct gk_fb *fb = l->fb;
	const uint8_t *row = (const uint8_t *)fb->map + (size_t)y * fb->pitch;
	uint32_t v;
	uint64_t q;
	const uint8_t *p;

	switch (fb->format) {
	case DRM_FORMAT_XRGB8888:
	case DRM_FORMAT_ARGB8888:
	case DRM_FORMAT_XBGR8888:
	case DRM_FORMAT_ABGR8888: {
		bool bgr = fb->format == DRM_FORMAT_XBGR8888 ||
			   fb->format == DRM_FORMAT_ABGR8888;
		bool alpha = fb->format == DRM_FORMAT_ARGB8888 ||
			     fb->format == DRM_FORMAT_ABGR8888;
		double hi, lo;

		v = ((const uint32_t *)row)[x];
		hi = ((v >> 16) & 0xff) / 255.0;
		lo = (v & 0xff) / 255.0;
		return (struct rgba){
			.r = bgr ? lo : hi, .g = ((v >> 8) & 0xff) / 255.0,
			.b = bgr ? hi : lo, .a = alpha ? (v >> 24) / 255.0 : 1,
		};
	}
	case DRM_FORMAT_RGB565:
		v = ((const uint16_t *)row)[x];
		return (struct rgba){ (v >> 11) / 31.0, ((v >> 5) & 0x3f) / 63.0,
				      (v & 0x1f) / 31.0, 1 };
	case DRM_FORMAT_XRGB2101010:
		v = ((const uint32_t *)row)[x];
		return (struct rgba){ ((v >> 20) & 0x3ff) / 1023.0,
				      ((v >> 10) & 0x3ff) / 1023.0,
				      (v & 0x3ff) / 1023.0, 1 };
	case DRM_FORMAT_XRGB16161616:
	case DRM_FORMAT_ARGB16161616:
		q = ((const uint64_t *)row)[x];
		return (struct rgba){
			((q >> 32) & 0xffff) / 65535.0, ((q >> 16) & 0xffff) / 65535.0,
			(q & 0xffff) / 65535.0,
			fb->format == DRM_FORMAT_ARGB16161616 ? (q >> 48) / 65535.0 : 1,
		};
	case DRM_FORMAT_YUYV:
		p = row + (x & ~1u) * 2;
		return ycbcr(l, p[(x & 1) * 2], p[1], p[3]);
	case DRM_FORMAT_UYVY:
		p = row + (x & ~1u) * 2;
		return ycbcr(l, p[1 + (x & 1) * 2], p[0], p[2]);
	case DRM_FORMAT_NV12:
		/* gk_fb_create() puts the CbCr plane after the luma, same pitch. */
		p = (const uint8_t *)fb->map + (size_t)fb->pitch * fb->height +
		    (size_t)(y / 2) * fb->pitch + (x & ~1u);
		return ycbcr(l, row[x], p[0], p[1]);
	}
	igt_assert_f(0, "no reference for format %.4s\n", (const char *)&fb->format);
	return (struct rgba){};
}

/* The plane property @name of @p now, for layers that leave it as is. */
static uint64_t current(struct gk *k, const struct gk_plane *p, const char *name,
			uint64_t dflt)
{
	uint64_t v = dflt;

	gk_prop(k->fd, p->id, DRM_MODE_OBJECT_PLANE, name, &v);
	return v;
}

struct ref_layer {
	const struct gk_layer *l;
	uint64_t zpos;
	uint32_t plane_id;
	uint16_t alpha;
	int blend;
};

/*
 * By zpos; planes sharing one by plane id, the lower id below, as
 * drm_atomic_normalize_zpos() stacks them (the uapi leaves it open).
 */
static int by_zpos(const void *a, const void *b)
{
	const struct ref_layer *x = a, *y = b;

	if (x->zpos != y->zpos)
		return x->zpos < y->zpos ? -1 : 1;
	return x->plane_id < y->plane_id ? -1 : x->plane_id > y->plane_id;
}

/* The source pixel nearest to destination point (u, v) in 0..1. */
static struct rgba sample(const struct gk_layer *l, double u, double v)
{
	uint32_t sw = l->sw ?: l->fb->width, sh = l->sh ?: l->fb->height;
	uint64_t rot = l->rotation ?: DRM_MODE_ROTATE_0;
	double su, sv;
	long sx, sy;

	/* Undo the counter-clockwise rotation, then the reflection. */
	switch (rot & DRM_MODE_ROTATE_MASK) {
	case DRM_MODE_ROTATE_90:
		su = 1 - v;
		sv = u;
		break;
	case DRM_MODE_ROTATE_180:
		su = 1 - u;
		sv = 1 - v;
		break;
	case DRM_MODE_ROTATE_270:
		su = v;
		sv = 1 - u;
		break;
	default:
		su = u;
		sv = v;
		break;
	}
	if (rot & DRM_MODE_REFLECT_X)
		su = 1 - su;
	if (rot & DRM_MODE_REFLECT_Y)
		sv = 1 - sv;
	sx = (long)floor(su * sw);
	sy = (long)floor(sv * sh);
	sx = sx < 0 ? 0 : sx >= (long)sw ? (long)sw - 1 : sx;
	sy = sy < 0 ? 0 : sy >= (long)sh ? (long)sh - 1 : sy;
	return fetch(l, l->sx + sx, l->sy + sy);
}

static bool keyed(const struct gk_layer *l, const struct rgba *c)
{
	uint32_t rgb = to8(c->r) << 16 | to8(c->g) << 8 | to8(c->b);

	return l->colorkey_mask &&
	       (rgb & l->colorkey_mask) == (l->colorkey & l->colorkey_mask);
}

static void blend(struct rgba *dst, const struct rgba *src, double pa, int mode)
{
	double fa = mode == 2 ? 1 : src->a;	/* None ignores pixel alpha */
	double k = mode == 1 ? pa * fa : pa;	/* Coverage premultiplies */
	double rest = 1 - pa * fa;

	/* Saturated after each plane, as invalid pre-multiplied pixels may overflow. */
	dst->r = clamp01(src->r * k + dst->r * rest);
	dst->g = clamp01(src->g * k + dst->g * rest);
	dst->b = clamp01(src->b * k + dst->b * rest);
}

void gk_ref_compose(struct gk *k, const struct gk_layer *layers, unsigned int n,
		    uint32_t *frame)
{
	int width = k->mode.hdisplay, height = k->mode.vdisplay;
	struct ref_layer order[GK_MAX_PLANES];
	unsigned int m = 0;
	struct rgba *acc;

	for (unsigned int i = 0; i < n && i < k->num_planes; i++) {
		const struct gk_plane *p = &k->planes[i];
		const struct gk_layer *l = &layers[i];

		if (!l->fb)
			continue;
		order[m] = (struct ref_layer){ .l = l, .plane_id = p->id };
		order[m].zpos = l->zpos >= 0 && p->type == DRM_PLANE_TYPE_OVERLAY ?
				(uint64_t)l->zpos : current(k, p, "zpos", i);
		/*
		 * A plane without "alpha" or "pixel blend mode" (gembuf's
		 * cursor) has DRM's defaults, opaque and pre-multiplied,
		 * whatever the layer asks: gk_commit() cannot set them.
		 */
		order[m].alpha = p->alpha_prop ? l->alpha : 0xffff;
		if (!p->blend_prop)
			order[m].blend = 0;
		else
			order[m].blend = l->blend >= 0 ? l->blend :
					 (int)current(k, p, "pixel blend mode", 0);
		m++;
	}
	qsort(order, m, sizeof(order[0]), by_zpos);

	acc = calloc((size_t)width * height, sizeof(*acc));
	igt_assert(acc);
	for (unsigned int i = 0; i < m; i++) {
		const struct gk_layer *l = order[i].l;
		uint32_t sw = l->sw ?: l->fb->width, sh = l->sh ?: l->fb->height;
		long w = l->w ?: sw, h = l->h ?: sh;
		long x0 = l->x < 0 ? 0 : l->x, y0 = l->y < 0 ? 0 : l->y;
		long x1 = l->x + w > width ? width : l->x + w;
		long y1 = l->y + h > height ? height : l->y + h;

		for (long y = y0; y < y1; y++) {
			for (long x = x0; x < x1; x++) {
				struct rgba c = sample(l, (x - l->x + 0.5) / w,
						       (y - l->y + 0.5) / h);

				if (!keyed(l, &c))
					blend(&acc[y * width + x], &c,
					      order[i].alpha / 65535.0, order[i].blend);
			}
		}
	}
	for (long i = 0; i < (long)width * height; i++) {
		uint32_t r = to8(acc[i].r), g = to8(acc[i].g), b = to8(acc[i].b);

		if (k->gamma_blob) {
			r = k->gamma[r].red >> 8;
			g = k->gamma[g].green >> 8;
			b = k->gamma[b].blue >> 8;
		}
		frame[i] = r << 16 | g << 8 | b;
	}
	free(acc);
}

unsigned int gk_ref_compare(const struct gk_fb *wb, const uint32_t *ref, int tol)
{
	unsigned int bad = 0;

	igt_assert_eq(wb->format, DRM_FORMAT_XRGB8888);
	for (uint32_t y = 0; y < wb->height; y++) {
		const uint32_t *row = (const uint32_t *)((const uint8_t *)wb->map +
							 (size_t)y * wb->pitch);

		for (uint32_t x = 0; x < wb->width; x++) {
			uint32_t got = row[x] & 0xffffff, want = ref[y * wb->width + x];
			bool ok = true;

			for (int s = 0; s < 24; s += 8) {
				int d = (int)((got >> s) & 0xff) - (int)((want >> s) & 0xff);

				ok &= d >= -tol && d <= tol;
			}
			if (!ok && bad++ < 5)
				igt_info("pixel %u,%u: %06x, reference %06x\n",
					 x, y, got, want);
		}
	}
	if (bad)
		igt_info("%u pixels differ by more than %d\n", bad, tol);
	return bad;
}

void gk_ref_store(const struct gk_fb *fb, const uint32_t *frame)
{
	igt_assert_eq(fb->format, DRM_FORMAT_XRGB8888);
	for (uint32_t y = 0; y < fb->height; y++)
		memcpy((uint8_t *)fb->map + (size_t)y * fb->pitch,
		       frame + (size_t)y * fb->width, fb->width * 4);
}

void gk_fb_noise(const struct gk_fb *fb, uint32_t seed)
{
	uint32_t x = seed * 2654435761u | 1;	/* xorshift32, never 0 */

	for (uint64_t i = 0; i < fb->size / 4; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		((uint32_t *)fb->map)[i] = x;
	}
}

static uint32_t q(double c, uint32_t max)
{
	return (uint32_t)floor(clamp01(c) * max + 0.5);
}

/* R'G'B' in 0..1 to 8-bit Y'CbCr in @encoding and @range (gk_layer's). */
static void to_ycbcr(double r, double g, double b, int encoding, int range,
		     uint8_t *y, uint8_t *cb, uint8_t *cr)
{
	double kr = encoding == 1 ? 0.2126 : 0.299;
	double kb = encoding == 1 ? 0.0722 : 0.114;
	double yy = kr * r + (1 - kr - kb) * g + kb * b;
	double u = (b - yy) / (2 * (1 - kb)), v = (r - yy) / (2 * (1 - kr));

	if (range == 1) {
		*y = q(yy, 255);
		*cb = q(u + 128 / 255.0, 255);
		*cr = q(v + 128 / 255.0, 255);
	} else {
		*y = 16 + q(yy, 219);
		*cb = (uint8_t)floor(128 + 224 * u + 0.5);
		*cr = (uint8_t)floor(128 + 224 * v + 0.5);
	}
}

void gk_fb_paint(const struct gk_fb *fb, uint32_t x0, uint32_t y0, uint32_t w,
		 uint32_t h, double r, double g, double b, int encoding, int range)
{
	uint8_t px[16], yy, cb, cr;
	unsigned int cpp, i;
	uint64_t v;

	igt_assert(x0 + w <= fb->width && y0 + h <= fb->height);
	to_ycbcr(r, g, b, encoding, range, &yy, &cb, &cr);
	/* Two pixels' bytes, worked out once: rows are then copies of them. */
	switch (fb->format) {
	case DRM_FORMAT_XRGB8888:
	case DRM_FORMAT_ARGB8888:
		cpp = 4;
		v = 0xffu << 24 | q(r, 255) << 16 | q(g, 255) << 8 | q(b, 255);
		break;
	case DRM_FORMAT_XBGR8888:
	case DRM_FORMAT_ABGR8888:
		cpp = 4;
		v = 0xffu << 24 | q(b, 255) << 16 | q(g, 255) << 8 | q(r, 255);
		break;
	case DRM_FORMAT_RGB565:
		cpp = 2;
		v = q(r, 31) << 11 | q(g, 63) << 5 | q(b, 31);
		break;
	case DRM_FORMAT_XRGB2101010:
		cpp = 4;
		v = 3u << 30 | q(r, 1023) << 20 | q(g, 1023) << 10 | q(b, 1023);
		break;
	case DRM_FORMAT_XRGB16161616:
	case DRM_FORMAT_ARGB16161616:
		cpp = 8;
		v = 0xffffull << 48 | (uint64_t)q(r, 65535) << 32 |
		    (uint64_t)q(g, 65535) << 16 | q(b, 65535);
		break;
	case DRM_FORMAT_YUYV:
	case DRM_FORMAT_UYVY:
		/* A pair of pixels is one Y0 Cb Y1 Cr (or Cb Y0 Cr Y1) word. */
		igt_assert(!(x0 & 1) && !(w & 1));
		cpp = 2;
		v = fb->format == DRM_FORMAT_YUYV ?
		    (uint32_t)cr << 24 | yy << 16 | cb << 8 | yy :
		    (uint32_t)yy << 24 | cr << 16 | yy << 8 | cb;
		memcpy(px, &v, 4);
		break;
	case DRM_FORMAT_NV12:
		igt_assert(!(x0 & 1) && !(w & 1) && !(y0 & 1) && !(h & 1));
		for (uint32_t y = y0; y < y0 + h; y++)
			memset((uint8_t *)fb->map + (size_t)y * fb->pitch + x0, yy, w);
		for (uint32_t y = y0 / 2; y < (y0 + h) / 2; y++) {
			uint8_t *c = (uint8_t *)fb->map + (size_t)fb->pitch * fb->height +
				     (size_t)y * fb->pitch + x0;

			for (i = 0; i < w; i += 2) {
				c[i] = cb;
				c[i + 1] = cr;
			}
		}
		return;
	default:
		igt_assert_f(0, "cannot paint format %.4s\n", (const char *)&fb->format);
		return;
	}
	if (fb->format != DRM_FORMAT_YUYV && fb->format != DRM_FORMAT_UYVY) {
		memcpy(px, &v, cpp);
		memcpy(px + cpp, &v, cpp);
	}
	for (uint32_t y = y0; y < y0 + h; y++) {
		uint8_t *row = (uint8_t *)fb->map + (size_t)y * fb->pitch + (size_t)x0 * cpp;

		for (i = 0; i + 1 < w; i += 2)
			memcpy(row + i * cpp, px, 2 * cpp);
		if (i < w)
			memcpy(row + i * cpp, px, cpp);
	}
}

/* Largest channel difference the formats' conversions may add. */
int gk_ref_format_tol(uint32_t format)
{
	switch (format) {
	case DRM_FORMAT_XRGB8888:
	case DRM_FORMAT_XBGR8888:
	case DRM_FORMAT_XRGB16161616:
		return 0;
	case DRM_FORMAT_YUYV:
	case DRM_FORMAT_UYVY:
	case DRM_FORMAT_NV12:
		return 2;
	}
	return 1;	/* n-bit expansion, alpha blending: rounding */
}
