// SPDX-License-Identifier: GPL-2.0-only
/*
 * gembuf pixel formats: one line reader per plane format, picked once
 * per plane state, and the writeback writers.  Readers return 16 bits a
 * channel with straight (not premultiplied) alpha; YCbCr is converted
 * with the plane's COLOR_ENCODING (BT.601, BT.709) and COLOR_RANGE.
 *
 * DRM formats are little-endian: a pixel of several bytes is read and
 * written as an __le16 or __le32, which costs nothing on a little-endian
 * CPU and gives the same pixels on a big-endian one.
 */

#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <asm/byteorder.h>
#include <kunit/visibility.h>
#include <linux/cache.h>
#include <linux/init.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include "gembuf_kms.h"
#include "gembuf_simd.h"

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

/* The cursor takes 32-bit RGB only, as cursor hardware usually does. */
const u32 gembuf_cursor_formats[] = {
	DRM_FORMAT_ARGB8888,
	DRM_FORMAT_XRGB8888,
	DRM_FORMAT_ABGR8888,
	DRM_FORMAT_XBGR8888,
};

const unsigned int gembuf_num_cursor_formats = ARRAY_SIZE(gembuf_cursor_formats);

const u32 gembuf_wb_formats[] = {
	DRM_FORMAT_XRGB8888,
	DRM_FORMAT_XRGB2101010,
};

const unsigned int gembuf_num_wb_formats = ARRAY_SIZE(gembuf_wb_formats);

/*
 * An n-bit channel to 16 bits, v * 0xffff / (2^n - 1) rounded: the
 * maximum becomes 0xffff for every n (bit replication alone leaves
 * 5- and 6-bit channels short).  @bits is a constant at every call,
 * so the division is a multiplication.
 */
static inline u16 expand(u32 v, unsigned int bits)
{
	u32 max = (1U << bits) - 1;

	return (v * 0xffff + max / 2) / max;
}

/*
 * Each RGB format has an inline pixel decoder taking the framebuffer's
 * line, and GEMBUF_LINE_READER() wraps it in a reader of a whole run of
 * pixels, so the composer makes one indirect call per line, not one per
 * pixel.  The YCbCr readers are further down, with their words readers.
 */
#define GEMBUF_LINE_READER(name)						\
static void read_##name(void *const planes[DRM_FORMAT_MAX_PLANES],		\
			const struct drm_framebuffer *fb, int y,		\
			const int *xs, int x0, int n,				\
			const struct drm_plane_state *state,			\
			struct gembuf_pixel *out, bool simd)			\
{										\
	const u8 *row = planes[0] + y * fb->pitches[0];			\
	int i;									\
										\
	if (!xs) {								\
		for (i = 0; i < n; i++)						\
			px_##name(row, x0 + i, &out[i]);			\
		return;								\
	}									\
	for (i = 0; i < n; i++)							\
		px_##name(row, xs[i], &out[i]);					\
}

static inline void px_xrgb8888(const u8 *row, int x, struct gembuf_pixel *out)
{
	u32 v = le32_to_cpu(((const __le32 *)row)[x]);

	out->a = 0xffff;
	out->r = expand((v >> 16) & 0xff, 8);
	out->g = expand((v >> 8) & 0xff, 8);
	out->b = expand(v & 0xff, 8);
}

GEMBUF_LINE_READER(xrgb8888)

static inline void px_argb8888(const u8 *row, int x, struct gembuf_pixel *out)
{
	px_xrgb8888(row, x, out);
	out->a = expand(le32_to_cpu(((const __le32 *)row)[x]) >> 24, 8);
}

GEMBUF_LINE_READER(argb8888)

static inline void px_xbgr8888(const u8 *row, int x, struct gembuf_pixel *out)
{
	u32 v = le32_to_cpu(((const __le32 *)row)[x]);

	out->a = 0xffff;
	out->b = expand((v >> 16) & 0xff, 8);
	out->g = expand((v >> 8) & 0xff, 8);
	out->r = expand(v & 0xff, 8);
}

GEMBUF_LINE_READER(xbgr8888)

static inline void px_abgr8888(const u8 *row, int x, struct gembuf_pixel *out)
{
	px_xbgr8888(row, x, out);
	out->a = expand(le32_to_cpu(((const __le32 *)row)[x]) >> 24, 8);
}

GEMBUF_LINE_READER(abgr8888)

static inline void px_rgb565(const u8 *row, int x, struct gembuf_pixel *out)
{
	u16 v = le16_to_cpu(((const __le16 *)row)[x]);

	out->a = 0xffff;
	out->r = expand(v >> 11, 5);
	out->g = expand((v >> 5) & 0x3f, 6);
	out->b = expand(v & 0x1f, 5);
}

GEMBUF_LINE_READER(rgb565)

static inline void px_xrgb2101010(const u8 *row, int x, struct gembuf_pixel *out)
{
	u32 v = le32_to_cpu(((const __le32 *)row)[x]);

	out->a = 0xffff;
	out->r = expand((v >> 20) & 0x3ff, 10);
	out->g = expand((v >> 10) & 0x3ff, 10);
	out->b = expand(v & 0x3ff, 10);
}

GEMBUF_LINE_READER(xrgb2101010)

static inline void px_xrgb16161616(const u8 *row, int x, struct gembuf_pixel *out)
{
	const __le16 *v = (const __le16 *)row + x * 4;

	out->b = le16_to_cpu(v[0]);
	out->g = le16_to_cpu(v[1]);
	out->r = le16_to_cpu(v[2]);
	out->a = 0xffff;
}

GEMBUF_LINE_READER(xrgb16161616)

static inline void px_argb16161616(const u8 *row, int x, struct gembuf_pixel *out)
{
	px_xrgb16161616(row, x, out);
	out->a = le16_to_cpu(((const __le16 *)row)[x * 4 + 3]);
}

GEMBUF_LINE_READER(argb16161616)

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

/* Luma scaled to 0..1 and chroma to -0.5..0.5, in 16.16. */
static inline s64 yuv_luma(u8 y, bool limited)
{
	return limited ? ((s64)y - 16) * 65536 * 255 / 219 : (s64)y * 65536;
}

static inline s64 yuv_chroma(u8 c, bool limited)
{
	return limited ? ((s64)c - 128) * 65536 * 255 / 224 : ((s64)c - 128) * 65536;
}

/*
 * A channel's sum in 16.16 to 16 bits: * 257 / 65536, clamped to
 * 0..0xffff.  Up to 16711935, v * 257 fits in 32 bits and the result in
 * 16; above, it is 0xffff or more; a negative sum clamps to 0 whether it
 * is rounded down or towards zero.
 */
static inline u16 yuv_channel(s32 v)
{
	if ((u32)v > 16711935)
		return v < 0 ? 0 : 0xffff;
	return (u32)v * 257 >> 16;
}

/*
 * Each channel is a sum of the terms yuv_lut_init() has worked out for
 * every 8-bit value (luma scaled from the range; each chroma's part,
 * y' + cr * kr for red, y' - cb * kgb - cr * kgr for green and y' + cb * kb
 * for blue, every product in 64 bits divided by 65536), taken to 16 bits.
 */
static inline void yuv_to_rgb(u8 y, u8 cb, u8 cr,
			      const struct gembuf_yuv_lut *lut,
			      struct gembuf_pixel *out)
{
	s32 yy = lut->y[y];

	out->a = 0xffff;
	out->r = yuv_channel(yy + lut->r[cr]);
	out->g = yuv_channel(yy - lut->gu[cb] - lut->gv[cr]);
	out->b = yuv_channel(yy + lut->b[cb]);
}

/*
 * Words readers: a run of a plane's pixels straight as little-endian
 * XRGB8888 words, each channel the 8 high bits of what the format's
 * reader gives (X is 0), for the composer to lay where the pixels are
 * shown as they are and nothing is blended onto them: a 16-bit line
 * would be narrowed to the same bytes.  @xs gives the columns, or is
 * NULL for the @n columns from @x0 on.  Only opaque formats whose 8-bit
 * result can be had without the 16-bit one have one.
 */

/*
 * RGB565: an n-bit channel's 16-bit value is v * 0xffff / (2^n - 1)
 * rounded, whose 8 high bits are the channel's bits repeated from the
 * top (v * 33 >> 2 for 5 bits, v * 65 >> 4 for 6), exactly.
 */
static inline u32 rgb565_word(u32 v)
{
	return ((v >> 11) * 33 >> 2) << 16 | ((v >> 5 & 0x3f) * 65 >> 4) << 8 |
	       (v & 0x1f) * 33 >> 2;
}

static void words_rgb565(void *const planes[DRM_FORMAT_MAX_PLANES],
			 const struct drm_framebuffer *fb, int y,
			 const int *xs, int x0, int n,
			 const struct gembuf_yuv_lut *lut, __le32 *out, bool simd)
{
	const __le16 *row = planes[0] + y * fb->pitches[0];
	int i = 0, bulk = round_down(n, GEMBUF_SIMD_PIXELS);

	if (!xs) {
		row += x0;
		if (gembuf_simd(simd) && bulk) {
			gembuf_neon_rgb565_words(out, row, bulk);
			i = bulk;
		}
		for (; i < n; i++)
			out[i] = cpu_to_le32(rgb565_word(le16_to_cpu(row[i])));
		return;
	}
	for (i = 0; i < n; i++)
		out[i] = cpu_to_le32(rgb565_word(le16_to_cpu(row[xs[i]])));
}

/* XBGR8888 and ABGR8888 (read opaque): red and blue swapped. */
static void words_xbgr8888(void *const planes[DRM_FORMAT_MAX_PLANES],
			   const struct drm_framebuffer *fb, int y,
			   const int *xs, int x0, int n,
			   const struct gembuf_yuv_lut *lut, __le32 *out,
			   bool simd)
{
	const __le32 *row = planes[0] + y * fb->pitches[0];
	u32 v;
	int i;

	for (i = 0; i < n; i++) {
		v = le32_to_cpu(row[xs ? xs[i] : x0 + i]);
		out[i] = cpu_to_le32((v & 0xff) << 16 | (v & 0xff00) | (v >> 16 & 0xff));
	}
}

/*
 * Each term of the YCbCr to RGB conversion for every 8-bit value, worked
 * out in 64 bits with its divisions, so that a pixel costs a few lookups
 * and three sums, in yuv_to_rgb() and in the words readers: each channel
 * is the sum (an exact integer, in 16.16) times 257, shifted and clamped
 * (yuv_channel(), or yuv_narrow() for its 8 high bits).  Every term is
 * less than 2^25 in magnitude, so it and each sum fit in 32 bits.  There
 * are four encodings and ranges, so four tables, [BT.709][limited range],
 * made when the module loads: the composer, which signals fences, only
 * reads them.
 */
static struct gembuf_yuv_lut yuv_luts[2][2] __ro_after_init;

static void __init yuv_lut_init(struct gembuf_yuv_lut *lut,
				const struct gembuf_yuv_coeffs *k, bool limited)
{
	/* The range's scales in 16.16, 255 / 219 and 255 / 224 if limited. */
	const u32 scale = 65536 * 255, y_div = limited ? 219 : 255,
		  c_div = limited ? 224 : 255;
	s64 c;
	int i;

	for (i = 0; i < 256; i++) {
		c = yuv_chroma(i, limited);
		lut->y[i] = yuv_luma(i, limited);
		lut->r[i] = c * k->kr / 65536;
		lut->gu[i] = c * k->kgb / 65536;
		lut->gv[i] = c * k->kgr / 65536;
		lut->b[i] = c * k->kb / 65536;
	}
	lut->arith = (struct gembuf_yuv_arith){
		.y_off = limited ? 16 : 0,
		.y_mul = scale / y_div,
		.y_frac = scale % y_div * DIV_ROUND_UP(1 << 24, y_div),
		.c_mul = scale / c_div,
		.c_frac = scale % c_div * DIV_ROUND_UP(1 << 24, c_div),
		.kr = k->kr, .kgb = k->kgb, .kgr = k->kgr, .kb = k->kb,
	};
}

/**
 * gembuf_formats_init() - make the YCbCr words readers' tables
 *
 * Called once, when the module loads, before any plane is composed.
 */
void __init gembuf_formats_init(void)
{
	yuv_lut_init(&yuv_luts[0][0], &bt601, false);
	yuv_lut_init(&yuv_luts[0][1], &bt601, true);
	yuv_lut_init(&yuv_luts[1][0], &bt709, false);
	yuv_lut_init(&yuv_luts[1][1], &bt709, true);
}

/**
 * gembuf_yuv_lut() - the table a YCbCr plane's words are made with
 * @state: the plane state, for its COLOR_ENCODING and COLOR_RANGE
 *
 * Return: the table of that encoding and range, made by
 * gembuf_formats_init().
 */
const struct gembuf_yuv_lut *gembuf_yuv_lut(const struct drm_plane_state *state)
{
	return &yuv_luts[state->color_encoding == DRM_COLOR_YCBCR_BT709]
			[state->color_range == DRM_COLOR_YCBCR_LIMITED_RANGE];
}
EXPORT_SYMBOL_IF_KUNIT(gembuf_yuv_lut);

/*
 * A channel in 16.16 as yuv_channel() takes it to 16 bits, then
 * narrowed: * 257 >> 24 clamped to 0..255.  From
 * 0 to 16646654, v * 257 fits in 32 bits and >> 24 is below 255; above,
 * it is 255 or more.
 */
static inline u32 yuv_narrow(s32 v)
{
	if ((u32)v > 16646654)
		return v < 0 ? 0 : 0xff;
	return (u32)v * 257 >> 24;
}

static inline __le32 yuv_word(const struct gembuf_yuv_lut *lut, u8 y,
			      s32 r, s32 g, s32 b)
{
	s32 yy = lut->y[y];

	return cpu_to_le32(yuv_narrow(yy + r) << 16 | yuv_narrow(yy - g) << 8 |
			   yuv_narrow(yy + b));
}

/*
 * Where the samples of a YCbCr line of @format are: @luma and @chroma are
 * its luma bytes and its chroma pairs' Cb bytes (Cr follows Cb by
 * @cr_off), with @lstep and @cstep bytes between two luma or two chroma
 * samples.  Each format's readers fill one with constants but for the two
 * addresses, and the runs below, inlined into them, work with those
 * constants.
 */
struct yuv_layout {
	u32 format;
	const u8 *luma;
	const u8 *chroma;
	int lstep;
	int cstep;
	int cr_off;
};

/* The Cb of the pixel at column @x; its Cr is @cr_off on. */
static __always_inline const u8 *yuv_cb(const struct yuv_layout *yl, int x)
{
	return yl->chroma + (x >> 1) * yl->cstep;
}

/* The chroma terms of the pixel at column @x, which its pair shares. */
static __always_inline void yuv_terms(const struct yuv_layout *yl, int x,
				      const struct gembuf_yuv_lut *lut,
				      s32 *r, s32 *g, s32 *b)
{
	const u8 *c = yuv_cb(yl, x);

	*r = lut->r[c[yl->cr_off]];
	*g = lut->gu[c[0]] + lut->gv[c[yl->cr_off]];
	*b = lut->b[c[0]];
}

/* The pixel at column @x as a word. */
static __always_inline __le32 yuv_word_at(const struct yuv_layout *yl, int x,
					  const struct gembuf_yuv_lut *lut)
{
	s32 r, g, b;

	yuv_terms(yl, x, lut, &r, &g, &b);
	return yuv_word(lut, yl->luma[x * yl->lstep], r, g, b);
}

/* The pixel at column @x as a 16-bit pixel. */
static __always_inline void yuv_pixel_at(const struct yuv_layout *yl, int x,
					 const struct gembuf_yuv_lut *lut,
					 struct gembuf_pixel *px)
{
	const u8 *c = yuv_cb(yl, x);

	yuv_to_rgb(yl->luma[x * yl->lstep], c[0], c[yl->cr_off], lut, px);
}

/* @n pixels at the columns @xs, one at a time, as words. */
static __always_inline void yuv_words_at(const struct yuv_layout *yl,
					 const int *xs, int n,
					 const struct gembuf_yuv_lut *lut,
					 __le32 *words)
{
	int i;

	for (i = 0; i < n; i++)
		words[i] = yuv_word_at(yl, xs[i], lut);
}

/* @n pixels at the columns @xs, one at a time, as 16-bit pixels. */
static __always_inline void yuv_pixels_at(const struct yuv_layout *yl,
					  const int *xs, int n,
					  const struct gembuf_yuv_lut *lut,
					  struct gembuf_pixel *px)
{
	int i;

	for (i = 0; i < n; i++)
		yuv_pixel_at(yl, xs[i], lut, &px[i]);
}

/*
 * @n pixels from column @x0 on, as words: from an odd @x0 the first pixel
 * alone (its pair starts before the run), then whole blocks of
 * %GEMBUF_SIMD_PIXELS in SIMD if @simd (the caller holds kernel-mode NEON)
 * and the CPU allows it, the same values from the same terms, then pairs
 * whose chroma terms are looked up once for both, then an even last pixel
 * alone.
 */
static __always_inline void yuv_words_from(const struct yuv_layout *yl,
					   int x0, int n,
					   const struct gembuf_yuv_lut *lut,
					   __le32 *words, bool simd)
{
	int i = x0 & 1, bulk = round_down(n - i, GEMBUF_SIMD_PIXELS);
	s32 r, g, b;
	int x;

	if (i)
		words[0] = yuv_word_at(yl, x0, lut);
	if (bulk > 0 && gembuf_simd(simd)) {
		gembuf_neon_yuv_words(words + i,
				      yl->luma + (x0 + i) * yl->lstep,
				      yuv_cb(yl, x0 + i), bulk, yl->format,
				      &lut->arith);
		i += bulk;
	}
	for (; i + 1 < n; i += 2) {
		x = x0 + i;
		yuv_terms(yl, x, lut, &r, &g, &b);
		words[i] = yuv_word(lut, yl->luma[x * yl->lstep], r, g, b);
		words[i + 1] = yuv_word(lut, yl->luma[(x + 1) * yl->lstep],
					r, g, b);
	}
	if (i < n)
		words[i] = yuv_word_at(yl, x0 + i, lut);
}

/*
 * @n pixels from column @x0 on, as 16-bit pixels: from an odd @x0 the
 * first pixel alone, then blocks in SIMD as yuv_words_from() has them,
 * then one at a time.
 */
static __always_inline void yuv_pixels_from(const struct yuv_layout *yl,
					    int x0, int n,
					    const struct gembuf_yuv_lut *lut,
					    struct gembuf_pixel *px, bool simd)
{
	int i = x0 & 1, bulk = round_down(n - i, GEMBUF_SIMD_PIXELS);

	if (i)
		yuv_pixel_at(yl, x0, lut, px);
	if (bulk > 0 && gembuf_simd(simd)) {
		gembuf_neon_yuv_pixels(px + i, yl->luma + (x0 + i) * yl->lstep,
				       yuv_cb(yl, x0 + i), bulk, yl->format,
				       &lut->arith);
		i += bulk;
	}
	for (; i < n; i++)
		yuv_pixel_at(yl, x0 + i, lut, &px[i]);
}

/* A YUYV line: Y0 Cb Y1 Cr. */
static __always_inline struct yuv_layout
yuv_layout_yuyv(void *const planes[DRM_FORMAT_MAX_PLANES],
		const struct drm_framebuffer *fb, int y)
{
	const u8 *row = planes[0] + y * fb->pitches[0];

	return (struct yuv_layout){
		.format = DRM_FORMAT_YUYV, .luma = row, .chroma = row + 1,
		.lstep = 2, .cstep = 4, .cr_off = 2,
	};
}

/* A UYVY line: Cb Y0 Cr Y1. */
static __always_inline struct yuv_layout
yuv_layout_uyvy(void *const planes[DRM_FORMAT_MAX_PLANES],
		const struct drm_framebuffer *fb, int y)
{
	const u8 *row = planes[0] + y * fb->pitches[0];

	return (struct yuv_layout){
		.format = DRM_FORMAT_UYVY, .luma = row + 1, .chroma = row,
		.lstep = 2, .cstep = 4, .cr_off = 2,
	};
}

/* An NV12 line: its luma line, and Cb Cr pairs of its chroma line. */
static __always_inline struct yuv_layout
yuv_layout_nv12(void *const planes[DRM_FORMAT_MAX_PLANES],
		const struct drm_framebuffer *fb, int y)
{
	return (struct yuv_layout){
		.format = DRM_FORMAT_NV12,
		.luma = planes[0] + y * fb->pitches[0],
		.chroma = planes[1] + y / fb->format->vsub * fb->pitches[1],
		.lstep = 1, .cstep = 2, .cr_off = 1,
	};
}

/* Each YCbCr format's reader and words reader. */
#define GEMBUF_YUV_READERS(name)						\
static void read_##name(void *const planes[DRM_FORMAT_MAX_PLANES],		\
			const struct drm_framebuffer *fb, int y,		\
			const int *xs, int x0, int n,				\
			const struct drm_plane_state *state,			\
			struct gembuf_pixel *out, bool simd)			\
{										\
	const struct gembuf_yuv_lut *lut = gembuf_yuv_lut(state);		\
	const struct yuv_layout yl = yuv_layout_##name(planes, fb, y);		\
										\
	if (xs)									\
		yuv_pixels_at(&yl, xs, n, lut, out);				\
	else									\
		yuv_pixels_from(&yl, x0, n, lut, out, simd);			\
}										\
										\
static void words_##name(void *const planes[DRM_FORMAT_MAX_PLANES],		\
			 const struct drm_framebuffer *fb, int y,		\
			 const int *xs, int x0, int n,				\
			 const struct gembuf_yuv_lut *lut, __le32 *out,	\
			 bool simd)						\
{										\
	const struct yuv_layout yl = yuv_layout_##name(planes, fb, y);		\
										\
	if (xs)									\
		yuv_words_at(&yl, xs, n, lut, out);				\
	else									\
		yuv_words_from(&yl, x0, n, lut, out, simd);			\
}

GEMBUF_YUV_READERS(yuyv)
GEMBUF_YUV_READERS(uyvy)
GEMBUF_YUV_READERS(nv12)

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
EXPORT_SYMBOL_IF_KUNIT(gembuf_format_reader);

/**
 * gembuf_format_words() - the words reader of a plane format
 * @format: a DRM fourcc of gembuf_plane_formats
 *
 * The reader gives each channel's 8 high bits of what
 * gembuf_format_reader()'s reader gives, for a plane whose pixels are
 * opaque: its alpha, if any, is not read.
 *
 * Return: the reader, or NULL for a format that has none (the 32-bit RGB
 * formats the composer reads as words itself, and those with more than
 * 8 bits a channel).
 */
gembuf_words_fn gembuf_format_words(u32 format)
{
	switch (format) {
	case DRM_FORMAT_XBGR8888:
	case DRM_FORMAT_ABGR8888:
		return words_xbgr8888;
	case DRM_FORMAT_RGB565:
		return words_rgb565;
	case DRM_FORMAT_YUYV:
		return words_yuyv;
	case DRM_FORMAT_UYVY:
		return words_uyvy;
	case DRM_FORMAT_NV12:
		return words_nv12;
	}
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(gembuf_format_words);

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
	__le32 *dst = vaddr + fb->offsets[0] + y * fb->pitches[0];
	const struct gembuf_pixel *p = line;
	int x;

	if (fb->format->format == DRM_FORMAT_XRGB2101010) {
		for (x = 0; x < width; x++, p++)
			dst[x] = cpu_to_le32((p->r >> 6) << 20 | (p->g >> 6) << 10 |
					     p->b >> 6);
		return;
	}
	for (x = 0; x < width; x++, p++)
		dst[x] = cpu_to_le32((p->r >> 8) << 16 | (p->g >> 8) << 8 | p->b >> 8);
}
EXPORT_SYMBOL_IF_KUNIT(gembuf_write_line);

/**
 * gembuf_write_words() - store a line of words into an XRGB8888 framebuffer
 * @fb: the framebuffer, XRGB8888
 * @vaddr: its kernel address
 * @y: the line
 * @words: the pixels as little-endian XRGB8888 words (X bytes as the
 *	planes had them)
 * @width: their number
 *
 * The composer has the words already when the line needs no 16-bit
 * pixels or has been narrowed for the CRC: they are the line's bytes.
 */
void gembuf_write_words(const struct drm_framebuffer *fb, void *vaddr, int y,
			const __le32 *words, int width)
{
	memcpy(vaddr + fb->offsets[0] + y * fb->pitches[0], words,
	       width * sizeof(*words));
}
