// SPDX-License-Identifier: GPL-2.0-only
/*
 * gembuf composer loops in NEON, sixteen pixels at a time: loaded with
 * vld4q_u8/vld2q_u8, which split a framebuffer's little-endian pixels
 * into one register per channel byte whatever the CPU's byte order, and
 * stored the same way.  Each computes what its scalar loop computes, on
 * the same 16-bit values with the same rounding; see gembuf_simd.h.
 */

#include <linux/export.h>

#include <drm/drm_blend.h>
#include <drm/drm_fourcc.h>
#include <kunit/visibility.h>

#include "gembuf_simd.h"

/*
 * sparse does not know the compiler's NEON vector types that arm_neon.h
 * is made of ("error: Expected ; at the end of type declaration" at each
 * of its typedefs), so under it this file is its prototypes only.
 */
#ifndef __CHECKER__

/* After the kernel's headers, as its other users of intrinsics do. */
#include <asm/neon-intrinsics.h>

/*
 * mul16() of gembuf_composer.c in eight lanes: (x * y + 0x7fff) / 0xffff.
 * For t up to 0xfffe8000 (the largest x * y + 0x7fff), t / 0xffff is
 * (t + (t >> 16) + 1) >> 16, and that sum stays below 2^32 (checked for
 * every such t): so the product is made in 32 bits, shifted and added
 * (usra), and its high half taken with the +1 (addhn).
 */
static __always_inline uint16x8_t neon_mul16(uint16x8_t x, uint16x8_t y)
{
	const uint32x4_t half = vdupq_n_u32(0x7fff), one = vdupq_n_u32(1);
	uint32x4_t lo = vmlal_u16(half, vget_low_u16(x), vget_low_u16(y));
	uint32x4_t hi = vmlal_high_u16(half, x, y);

	lo = vsraq_n_u32(lo, lo, 16);
	hi = vsraq_n_u32(hi, hi, 16);
	return vaddhn_high_u32(vaddhn_u32(lo, one), hi, one);
}

/* 8-bit channels as 16 bits (c * 0x101), low and high eight lanes. */
static __always_inline uint16x8_t neon_widen_lo(uint8x16_t c)
{
	return vreinterpretq_u16_u8(vzip1q_u8(c, c));
}

static __always_inline uint16x8_t neon_widen_hi(uint8x16_t c)
{
	return vreinterpretq_u16_u8(vzip2q_u8(c, c));
}

/*
 * blend8() of gembuf_composer.c: one channel of sixteen pixels, @s over
 * @d, with the source's factor @k (if not @k_opaque, where it is 0xffff
 * and a product by it changes nothing) and the destination's @inv.  The
 * saturating add is the scalar min(..., 0xffff).
 */
static __always_inline uint8x16_t neon_blend8(uint8x16_t s, uint8x16_t d,
					      const uint16x8_t k[2],
					      const uint16x8_t inv[2], bool k_opaque)
{
	uint16x8_t lo = neon_widen_lo(s), hi = neon_widen_hi(s);

	if (!k_opaque) {
		lo = neon_mul16(lo, k[0]);
		hi = neon_mul16(hi, k[1]);
	}
	lo = vqaddq_u16(lo, neon_mul16(neon_widen_lo(d), inv[0]));
	hi = vqaddq_u16(hi, neon_mul16(neon_widen_hi(d), inv[1]));
	return vshrn_high_n_u16(vshrn_n_u16(lo, 8), hi, 8);
}

/* Each of the four channel bytes of @a where @mask is set, else of @b. */
static __always_inline uint8x16x4_t neon_select4(uint8x16_t mask,
						 uint8x16x4_t a,
						 uint8x16x4_t b)
{
	b.val[0] = vbslq_u8(mask, a.val[0], b.val[0]);
	b.val[1] = vbslq_u8(mask, a.val[1], b.val[1]);
	b.val[2] = vbslq_u8(mask, a.val[2], b.val[2]);
	b.val[3] = vbslq_u8(mask, a.val[3], b.val[3]);
	return b;
}

/*
 * Each pixel's coverage, low and high eight lanes: the plane alpha for
 * pixel blend mode None, else the pixel's alpha times it (@pa_opaque: the
 * plane alpha is 0xffff, which changes nothing).
 */
static __always_inline void neon_coverage(uint8x16_t alpha, uint16x8_t pa,
					  u16 mode, bool pa_opaque,
					  uint16x8_t cov[2])
{
	if (mode == DRM_MODE_BLEND_PIXEL_NONE) {
		cov[0] = pa;
		cov[1] = pa;
	} else if (pa_opaque) {
		cov[0] = neon_widen_lo(alpha);
		cov[1] = neon_widen_hi(alpha);
	} else {
		cov[0] = neon_mul16(neon_widen_lo(alpha), pa);
		cov[1] = neon_mul16(neon_widen_hi(alpha), pa);
	}
}

/*
 * The pixels that add nothing, which the scalar loops skip: transparent
 * and, premultiplied, colorless (none in pixel blend mode None).
 */
static __always_inline uint8x16_t neon_adds_nothing(uint8x16x4_t s, u16 mode)
{
	uint8x16_t none;

	if (mode == DRM_MODE_BLEND_PIXEL_NONE)
		return vdupq_n_u8(0);
	none = vceqzq_u8(s.val[3]);
	if (mode == DRM_MODE_BLEND_PREMULTI)
		none = vandq_u8(none, vceqzq_u8(vorrq_u8(vorrq_u8(s.val[0], s.val[1]),
							 s.val[2])));
	return none;
}

/*
 * blend_words_run() of gembuf_composer.c, @mode and @pa_opaque (the plane
 * alpha is 0xffff) constants: sixteen words a time, the result of each
 * pixel chosen among the blend, the source word (an opaque pixel) and the
 * destination word (a pixel that adds nothing), as the scalar loop's
 * branches choose.
 */
static __always_inline void neon_blend_words(__le32 *dst, const __le32 *src,
					     int n, u16 plane_alpha, u16 mode,
					     bool pa_opaque)
{
	const uint16x8_t pa = vdupq_n_u16(plane_alpha);
	const uint16x8_t all = vdupq_n_u16(0xffff);
	bool k_opaque = mode != DRM_MODE_BLEND_COVERAGE && pa_opaque;
	uint16x8_t cov[2], k[2], inv[2];
	uint8x16x4_t s, d, r;
	uint8x16_t opaque;
	int i;

	for (i = 0; i < n; i += GEMBUF_SIMD_PIXELS) {
		/* Bytes 0 to 3 of a word: blue, green, red, alpha. */
		s = vld4q_u8((const u8 *)(src + i));
		d = vld4q_u8((const u8 *)(dst + i));
		neon_coverage(s.val[3], pa, mode, pa_opaque, cov);
		k[0] = mode == DRM_MODE_BLEND_COVERAGE ? cov[0] : pa;
		k[1] = mode == DRM_MODE_BLEND_COVERAGE ? cov[1] : pa;
		inv[0] = vmvnq_u16(cov[0]);
		inv[1] = vmvnq_u16(cov[1]);
		r.val[0] = neon_blend8(s.val[0], d.val[0], k, inv, k_opaque);
		r.val[1] = neon_blend8(s.val[1], d.val[1], k, inv, k_opaque);
		r.val[2] = neon_blend8(s.val[2], d.val[2], k, inv, k_opaque);
		r.val[3] = vdupq_n_u8(0);
		opaque = vmovn_high_u16(vmovn_u16(vceqq_u16(cov[0], all)),
					vceqq_u16(cov[1], all));
		r = neon_select4(opaque, s, r);
		if (mode != DRM_MODE_BLEND_PIXEL_NONE)
			r = neon_select4(neon_adds_nothing(s, mode), d, r);
		vst4q_u8((u8 *)(dst + i), r);
	}
}

/*
 * One channel of eight 16-bit pixels below, @d, with the source's
 * channel @c16 blended onto it as blend_pixel() blends it: the source's
 * factor @k (unless @k_opaque), the destination's @inv, the source alone
 * where @opaque, the pixel below alone where @skip.
 */
static __always_inline uint16x8_t neon_blend16(uint16x8_t c16, uint16x8_t d,
					       uint16x8_t k, uint16x8_t inv,
					       uint16x8_t opaque,
					       uint16x8_t skip, bool k_opaque)
{
	uint16x8_t v = vqaddq_u16(k_opaque ? c16 : neon_mul16(c16, k),
				  neon_mul16(d, inv));

	return vbslq_u16(skip, d, vbslq_u16(opaque, c16, v));
}

/*
 * Eight of sixteen pixels: @r, @g and @b the source's channels widened,
 * @d the eight pixels below (alpha, red, green, blue), each replaced by
 * the result.
 */
static __always_inline void neon_blend_half(uint16x8x4_t *d, uint16x8_t r,
					    uint16x8_t g, uint16x8_t b,
					    uint16x8_t cov, uint16x8_t pa,
					    uint16x8_t skip, u16 mode,
					    bool k_opaque)
{
	const uint16x8_t all = vdupq_n_u16(0xffff);
	uint16x8_t k = mode == DRM_MODE_BLEND_COVERAGE ? cov : pa;
	uint16x8_t inv = vmvnq_u16(cov), opaque = vceqq_u16(cov, all);

	d->val[0] = vbslq_u16(skip, d->val[0], all);
	d->val[1] = neon_blend16(r, d->val[1], k, inv, opaque, skip, k_opaque);
	d->val[2] = neon_blend16(g, d->val[2], k, inv, opaque, skip, k_opaque);
	d->val[3] = neon_blend16(b, d->val[3], k, inv, opaque, skip, k_opaque);
}

/*
 * blend_rgb32_run() of gembuf_composer.c, @mode and @pa_opaque constants:
 * sixteen pixels a time onto @dst, two vld4q_u16 of eight 16-bit pixels
 * (alpha, red, green, blue), the same choices as neon_blend_words().
 */
static __always_inline void neon_blend_line(u16 *dst, const __le32 *src,
					    int n, u16 plane_alpha, u16 mode,
					    bool pa_opaque)
{
	const uint16x8_t pa = vdupq_n_u16(plane_alpha);
	bool k_opaque = mode != DRM_MODE_BLEND_COVERAGE && pa_opaque;
	uint16x8_t cov[2];
	uint16x8x4_t lo, hi;
	uint8x16x4_t s;
	uint8x16_t skip;
	int i;

	for (i = 0; i < n; i += GEMBUF_SIMD_PIXELS) {
		s = vld4q_u8((const u8 *)(src + i));
		lo = vld4q_u16(dst + 4 * i);
		hi = vld4q_u16(dst + 4 * (i + 8));
		neon_coverage(s.val[3], pa, mode, pa_opaque, cov);
		skip = neon_adds_nothing(s, mode);
		/* Channel c of the source is byte 2 - c: red first. */
		neon_blend_half(&lo, neon_widen_lo(s.val[2]),
				neon_widen_lo(s.val[1]),
				neon_widen_lo(s.val[0]), cov[0], pa,
				neon_widen_lo(skip), mode, k_opaque);
		neon_blend_half(&hi, neon_widen_hi(s.val[2]),
				neon_widen_hi(s.val[1]),
				neon_widen_hi(s.val[0]), cov[1], pa,
				neon_widen_hi(skip), mode, k_opaque);
		vst4q_u16(dst + 4 * i, lo);
		vst4q_u16(dst + 4 * (i + 8), hi);
	}
}

/* One of the loops above, onto 16-bit pixels if @line, else onto words. */
static __always_inline void neon_blend_one(void *dst, const __le32 *src,
					   int n, u16 plane_alpha, u16 mode,
					   bool pa_opaque, bool line)
{
	if (line)
		neon_blend_line(dst, src, n, plane_alpha, mode, pa_opaque);
	else
		neon_blend_words(dst, src, n, plane_alpha, mode, pa_opaque);
}

/*
 * Each pixel blend mode, with an opaque plane alpha or not, a loop of its
 * own: constants for the loops, which the compiler specializes.
 */
static __always_inline void neon_blend(void *dst, const __le32 *src, int n,
				       u16 plane_alpha, u16 mode, bool line)
{
	bool opaque = plane_alpha == 0xffff;

	switch (mode) {
	case DRM_MODE_BLEND_PIXEL_NONE:
		neon_blend_one(dst, src, n, plane_alpha,
			       DRM_MODE_BLEND_PIXEL_NONE, opaque, line);
		break;
	case DRM_MODE_BLEND_COVERAGE:
		if (opaque)
			neon_blend_one(dst, src, n, 0xffff,
				       DRM_MODE_BLEND_COVERAGE, true, line);
		else
			neon_blend_one(dst, src, n, plane_alpha,
				       DRM_MODE_BLEND_COVERAGE, false, line);
		break;
	default:
		if (opaque)
			neon_blend_one(dst, src, n, 0xffff,
				       DRM_MODE_BLEND_PREMULTI, true, line);
		else
			neon_blend_one(dst, src, n, plane_alpha,
				       DRM_MODE_BLEND_PREMULTI, false, line);
		break;
	}
}

/**
 * gembuf_neon_blend_words() - blend 32-bit RGB words onto final words
 * @dst: the words below, replaced by the result
 * @src: the plane's XRGB8888 or ARGB8888 words, read as ARGB8888
 * @n: their number, a multiple of %GEMBUF_SIMD_PIXELS
 * @plane_alpha: the plane's alpha
 * @mode: its pixel blend mode, %DRM_MODE_BLEND_PIXEL_NONE for XRGB8888
 *
 * Context: kernel-mode NEON, after gembuf_simd_begin() returned true.
 */
void gembuf_neon_blend_words(__le32 *dst, const __le32 *src, int n,
			     u16 plane_alpha, u16 mode)
{
	neon_blend(dst, src, n, plane_alpha, mode, false);
}

/**
 * gembuf_neon_blend_line() - blend 32-bit RGB pixels over 16-bit pixels
 * @pixels: the opaque pixels below, replaced by the result
 * @src: the plane's XRGB8888 or ARGB8888 words, read as ARGB8888
 * @n: their number, a multiple of %GEMBUF_SIMD_PIXELS
 * @plane_alpha: the plane's alpha
 * @mode: its pixel blend mode, %DRM_MODE_BLEND_PIXEL_NONE for XRGB8888
 *
 * Four u16 a pixel, alpha to blue (gembuf_kms.h asserts it).
 *
 * Context: kernel-mode NEON, after gembuf_simd_begin() returned true.
 */
void gembuf_neon_blend_line(struct gembuf_pixel *pixels, const __le32 *src,
			    int n, u16 plane_alpha, u16 mode)
{
	neon_blend(pixels, src, n, plane_alpha, mode, true);
}

/**
 * gembuf_neon_clear_x() - clear the X bytes of XRGB8888 words
 * @words: the words, little-endian
 * @n: their number, a multiple of %GEMBUF_SIMD_PIXELS
 *
 * Byte 3 of each word, as gembuf_clear_x_line() clears it.
 *
 * Context: kernel-mode NEON, after gembuf_simd_begin() returned true.
 */
void gembuf_neon_clear_x(__le32 *words, int n)
{
	uint8x16x4_t w;
	int i;

	for (i = 0; i < n; i += GEMBUF_SIMD_PIXELS) {
		w = vld4q_u8((const u8 *)(words + i));
		w.val[3] = vdupq_n_u8(0);
		vst4q_u8((u8 *)(words + i), w);
	}
}

/**
 * gembuf_neon_widen_line() - XRGB8888 words as opaque 16-bit pixels
 * @px: the @n pixels (four u16 a pixel, alpha to blue)
 * @words: the words, little-endian
 * @n: their number, a multiple of %GEMBUF_SIMD_PIXELS
 *
 * Each channel c as c * 0x101, as gembuf_widen_line() makes it.
 *
 * Context: kernel-mode NEON, after gembuf_simd_begin() returned true.
 */
void gembuf_neon_widen_line(struct gembuf_pixel *px, const __le32 *words, int n)
{
	u16 *p = (u16 *)px;
	uint16x8x4_t o;
	uint8x16x4_t w;
	int i;

	o.val[0] = vdupq_n_u16(0xffff);
	for (i = 0; i < n; i += GEMBUF_SIMD_PIXELS) {
		w = vld4q_u8((const u8 *)(words + i));
		o.val[1] = neon_widen_lo(w.val[2]);
		o.val[2] = neon_widen_lo(w.val[1]);
		o.val[3] = neon_widen_lo(w.val[0]);
		vst4q_u16(p + 4 * i, o);
		o.val[1] = neon_widen_hi(w.val[2]);
		o.val[2] = neon_widen_hi(w.val[1]);
		o.val[3] = neon_widen_hi(w.val[0]);
		vst4q_u16(p + 4 * (i + 8), o);
	}
}

/**
 * gembuf_neon_narrow_line() - 16-bit pixels as XRGB8888 words
 * @words: the @n words, little-endian, X 0
 * @px: the pixels (four u16 a pixel, alpha to blue)
 * @n: their number, a multiple of %GEMBUF_SIMD_PIXELS
 *
 * The 8 high bits of each channel, as gembuf_narrow_line() takes them.
 *
 * Context: kernel-mode NEON, after gembuf_simd_begin() returned true.
 */
void gembuf_neon_narrow_line(__le32 *words, const struct gembuf_pixel *px, int n)
{
	const u16 *p = (const u16 *)px;
	uint16x8x4_t lo, hi;
	uint8x16x4_t w;
	int i;

	w.val[3] = vdupq_n_u8(0);
	for (i = 0; i < n; i += GEMBUF_SIMD_PIXELS) {
		lo = vld4q_u16(p + 4 * i);
		hi = vld4q_u16(p + 4 * (i + 8));
		w.val[0] = vshrn_high_n_u16(vshrn_n_u16(lo.val[3], 8), hi.val[3], 8);
		w.val[1] = vshrn_high_n_u16(vshrn_n_u16(lo.val[2], 8), hi.val[2], 8);
		w.val[2] = vshrn_high_n_u16(vshrn_n_u16(lo.val[1], 8), hi.val[1], 8);
		vst4q_u8((u8 *)(words + i), w);
	}
}

/**
 * gembuf_neon_pick_words() - words picked by a table, sixteen at a time
 * @dst: the @n words
 * @src: the words they are picked from
 * @pick: for each sixteen words of @dst, where in @src they are: each
 *	block of sixteen comes from the sixteen words from @src + @base on
 *	(which are all read), and each byte of it from the byte @bytes says
 * @n: the number of words, a multiple of %GEMBUF_SIMD_PIXELS
 *
 * Four table lookups (tbl) of sixteen bytes each, from the four registers
 * the run is loaded into.
 *
 * Context: kernel-mode NEON, after gembuf_simd_begin() returned true.
 */
void gembuf_neon_pick_words(__le32 *dst, const __le32 *src,
			    const struct gembuf_pick *pick, int n)
{
	uint8x16x4_t run, bytes, out;
	int i;

	for (i = 0; i < n; i += GEMBUF_SIMD_PIXELS, pick++) {
		/*
		 * One ld1 of four registers, which tbl takes as they are
		 * (loaded one by one, GCC copies them for each tbl).
		 */
		run = vld1q_u8_x4((const u8 *)(src + pick->base));
		bytes = vld1q_u8_x4(pick->bytes);
		out.val[0] = vqtbl4q_u8(run, bytes.val[0]);
		out.val[1] = vqtbl4q_u8(run, bytes.val[1]);
		out.val[2] = vqtbl4q_u8(run, bytes.val[2]);
		out.val[3] = vqtbl4q_u8(run, bytes.val[3]);
		vst1q_u8_x4((u8 *)(dst + i), out);
	}
}
EXPORT_SYMBOL_IF_KUNIT(gembuf_neon_pick_words);

/**
 * gembuf_neon_gather_tile() - four lines of a transposed plane's words
 * @out: four lines of @n words, one after the other
 * @n: the words of a line of @out
 * @src: the first source line's word of the lowest of four adjacent
 *	source columns, each of which is a line of @out
 * @stride: the bytes from one source line to the next to read
 * @bulk: the words of each line to gather, a multiple of 4
 * @down: the lines of @out take the columns from the highest down
 *
 * Four words of four source lines loaded, transposed (trn1/trn2) and
 * stored four words to each line of @out.
 *
 * Context: kernel-mode NEON, after gembuf_simd_begin() returned true.
 */
void gembuf_neon_gather_tile(__le32 *out, int n, const u8 *src,
			     ptrdiff_t stride, int bulk, bool down)
{
	u32 *line[4] = {
		(u32 *)out + (down ? 3 : 0) * n, (u32 *)out + (down ? 2 : 1) * n,
		(u32 *)out + (down ? 1 : 2) * n, (u32 *)out + (down ? 0 : 3) * n,
	};
	uint32x4x2_t a, b;
	int i;

	for (i = 0; i < bulk; i += 4, src += 4 * stride) {
		a = vtrnq_u32(vld1q_u32((const u32 *)src),
			      vld1q_u32((const u32 *)(src + stride)));
		b = vtrnq_u32(vld1q_u32((const u32 *)(src + 2 * stride)),
			      vld1q_u32((const u32 *)(src + 3 * stride)));
		vst1q_u32(line[0] + i, vcombine_u32(vget_low_u32(a.val[0]),
						    vget_low_u32(b.val[0])));
		vst1q_u32(line[1] + i, vcombine_u32(vget_low_u32(a.val[1]),
						    vget_low_u32(b.val[1])));
		vst1q_u32(line[2] + i, vcombine_u32(vget_high_u32(a.val[0]),
						    vget_high_u32(b.val[0])));
		vst1q_u32(line[3] + i, vcombine_u32(vget_high_u32(a.val[1]),
						    vget_high_u32(b.val[1])));
	}
}

/**
 * gembuf_neon_rgb565_words() - RGB565 pixels as XRGB8888 words
 * @dst: the @n words, X 0
 * @src: the pixels
 * @n: their number, a multiple of %GEMBUF_SIMD_PIXELS
 *
 * Each channel's bits repeated from the top to 8 bits, as the scalar
 * rgb565_word(): vsri inserts a byte's own top bits below themselves.
 * The low byte of a pixel is green's low three bits and blue, the high
 * byte red and green's high three.
 *
 * Context: kernel-mode NEON, after gembuf_simd_begin() returned true.
 */
void gembuf_neon_rgb565_words(__le32 *dst, const __le16 *src, int n)
{
	uint8x16x2_t v;
	uint8x16x4_t w;
	uint8x16_t t;
	int i;

	w.val[3] = vdupq_n_u8(0);
	for (i = 0; i < n; i += GEMBUF_SIMD_PIXELS) {
		v = vld2q_u8((const u8 *)(src + i));
		w.val[2] = vsriq_n_u8(v.val[1], v.val[1], 5);
		t = vsriq_n_u8(vshlq_n_u8(v.val[1], 5), v.val[0], 3);
		w.val[1] = vsriq_n_u8(t, t, 6);
		t = vshlq_n_u8(v.val[0], 3);
		w.val[0] = vsriq_n_u8(t, t, 5);
		vst4q_u8((u8 *)(dst + i), w);
	}
}

/*
 * YCbCr to RGB by the terms of struct gembuf_yuv_arith, sixteen pixels at
 * a time, each channel's sum in 32-bit lanes as yuv_to_rgb() and yuv_word()
 * of gembuf_formats.c make it from their tables.  Signed values are kept
 * in unsigned lanes, reinterpreted where the operation cares.  The
 * factors ride in two registers, @ks (@y_mul, @y_frac, @c_mul, @c_frac)
 * and @kf (@kr, @kgb, @kgr, @kb), multiplied by lane.
 */

/*
 * A factor's term of four chroma values: |C - 128| scaled from the range
 * (@sc) times the factor in lane @lane of @kf, >> 16 in 64-bit lanes,
 * negated where @neg is set (C - 128 < 0), as the table's division
 * towards zero gives it.
 */
static __always_inline uint32x4_t neon_yuv_term(uint32x4_t sc, uint32x4_t kf,
						const int lane, uint32x4_t neg)
{
	uint32x4_t t = vshrn_high_n_u64(vshrn_n_u64(vmull_laneq_u32(vget_low_u32(sc),
								    kf, lane), 16),
					vmull_high_laneq_u32(sc, kf, lane), 16);

	return vsubq_u32(veorq_u32(t, neg), neg);
}

static __always_inline uint32x4_t neon_yuv_scale(uint32x4_t e, uint32x4_t ks)
{
	return vsraq_n_u32(vmulq_laneq_u32(e, ks, 2), vmulq_laneq_u32(e, ks, 3), 24);
}

/*
 * A sum as yuv_channel() takes it to 16 bits, v * 257 shifted: that is
 * (v + (v >> 8)) shifted 8 fewer, as the bits v >> 8 drops are below the
 * ones kept.  The saturating narrowing that follows clamps to 0 and
 * 0xffff as the scalar compare does.  yuv_narrow()'s 8 bits are the high
 * byte of that: where the 16 bits saturate, so do the 8.
 */
static __always_inline int32x4_t neon_yuv_round(uint32x4_t v)
{
	int32x4_t s = vreinterpretq_s32_u32(v);

	return vsraq_n_s32(s, s, 8);
}

/*
 * Four pixel pairs' chroma terms: |Cb - 128| is @eu and @mu is all ones
 * where Cb - 128 < 0; the same for Cr in @ev and @mv.
 */
static __always_inline void neon_yuv_terms(uint32x4_t eu, uint32x4_t mu,
					   uint32x4_t ev, uint32x4_t mv,
					   uint32x4_t ks, uint32x4_t kf,
					   uint32x4_t *r, uint32x4_t *g,
					   uint32x4_t *b)
{
	uint32x4_t su = neon_yuv_scale(eu, ks), sv = neon_yuv_scale(ev, ks);

	*r = neon_yuv_term(sv, kf, 0, mv);
	*g = vaddq_u32(neon_yuv_term(su, kf, 1, mu), neon_yuv_term(sv, kf, 2, mv));
	*b = neon_yuv_term(su, kf, 3, mu);
}

/* Luma's term of four pixels whose Y - @y_off is @a, max(@a, 0) in @pos. */
static __always_inline uint32x4_t neon_yuv_luma(int32x4_t a, uint32x4_t pos,
						uint32x4_t ks)
{
	int32x4_t whole = vmulq_laneq_s32(a, vreinterpretq_s32_u32(ks), 0);

	return vsraq_n_u32(vreinterpretq_u32_s32(whole),
			   vmulq_laneq_u32(pos, ks, 1), 24);
}

/* Four pixels' red, green and blue sums from luma @y, rounded. */
static __always_inline void neon_yuv_sums(uint32x4_t y, uint32x4_t r,
					  uint32x4_t g, uint32x4_t b,
					  int32x4_t s[3])
{
	s[0] = neon_yuv_round(vaddq_u32(y, r));
	s[1] = neon_yuv_round(vsubq_u32(y, g));
	s[2] = neon_yuv_round(vaddq_u32(y, b));
}

/*
 * Sixteen pixels' channels to 16 bits, red, green and blue of the even
 * pixels in @ch[0] and of the odd ones in @ch[1].  @ye and @yo are the
 * even and odd pixels' luma, @cb and @cr each pair's chroma, @y_off
 * luma's offset in each lane.  Each half of the pairs is worked out and
 * narrowed to 16 bits (saturating) before the other, so that the sums fit
 * the registers.
 */
static __always_inline void neon_yuv16(uint8x8_t ye, uint8x8_t yo,
				       uint8x8_t cb, uint8x8_t cr,
				       uint8x8_t y_off, uint32x4_t ks,
				       uint32x4_t kf, uint16x8_t ch[2][3])
{
	const uint8x8_t mid = vdup_n_u8(128);
	const int16x8_t zero = vdupq_n_s16(0);
	int16x8_t du = vreinterpretq_s16_u16(vsubl_u8(cb, mid));
	int16x8_t dv = vreinterpretq_s16_u16(vsubl_u8(cr, mid));
	uint16x8_t eu = vreinterpretq_u16_s16(vabsq_s16(du));
	uint16x8_t ev = vreinterpretq_u16_s16(vabsq_s16(dv));
	int16x8_t ae = vreinterpretq_s16_u16(vsubl_u8(ye, y_off));
	int16x8_t ao = vreinterpretq_s16_u16(vsubl_u8(yo, y_off));
	uint16x8_t pe = vreinterpretq_u16_s16(vmaxq_s16(ae, zero));
	uint16x8_t po = vreinterpretq_u16_s16(vmaxq_s16(ao, zero));
	uint32x4_t r, g, b;
	int32x4_t se[3], so[3];
	uint16x4_t le[3], lo[3];

	/* All ones where negative, widened half by half below. */
	du = vshrq_n_s16(du, 15);
	dv = vshrq_n_s16(dv, 15);
	/* Pairs 0 to 3. */
	neon_yuv_terms(vmovl_u16(vget_low_u16(eu)),
		       vreinterpretq_u32_s32(vmovl_s16(vget_low_s16(du))),
		       vmovl_u16(vget_low_u16(ev)),
		       vreinterpretq_u32_s32(vmovl_s16(vget_low_s16(dv))),
		       ks, kf, &r, &g, &b);
	neon_yuv_sums(neon_yuv_luma(vmovl_s16(vget_low_s16(ae)),
				    vmovl_u16(vget_low_u16(pe)), ks),
		      r, g, b, se);
	neon_yuv_sums(neon_yuv_luma(vmovl_s16(vget_low_s16(ao)),
				    vmovl_u16(vget_low_u16(po)), ks),
		      r, g, b, so);
	le[0] = vqshrun_n_s32(se[0], 8);
	le[1] = vqshrun_n_s32(se[1], 8);
	le[2] = vqshrun_n_s32(se[2], 8);
	lo[0] = vqshrun_n_s32(so[0], 8);
	lo[1] = vqshrun_n_s32(so[1], 8);
	lo[2] = vqshrun_n_s32(so[2], 8);
	/* Pairs 4 to 7. */
	neon_yuv_terms(vmovl_high_u16(eu),
		       vreinterpretq_u32_s32(vmovl_high_s16(du)),
		       vmovl_high_u16(ev),
		       vreinterpretq_u32_s32(vmovl_high_s16(dv)),
		       ks, kf, &r, &g, &b);
	neon_yuv_sums(neon_yuv_luma(vmovl_high_s16(ae), vmovl_high_u16(pe), ks),
		      r, g, b, se);
	neon_yuv_sums(neon_yuv_luma(vmovl_high_s16(ao), vmovl_high_u16(po), ks),
		      r, g, b, so);
	ch[0][0] = vqshrun_high_n_s32(le[0], se[0], 8);
	ch[0][1] = vqshrun_high_n_s32(le[1], se[1], 8);
	ch[0][2] = vqshrun_high_n_s32(le[2], se[2], 8);
	ch[1][0] = vqshrun_high_n_s32(lo[0], so[0], 8);
	ch[1][1] = vqshrun_high_n_s32(lo[1], so[1], 8);
	ch[1][2] = vqshrun_high_n_s32(lo[2], so[2], 8);
}

/*
 * The 8 high bits of eight 16-bit values of even pixels and of odd ones,
 * in pixel order: a 16-bit channel saturated to 0xffff has 0xff there, as
 * the scalar words saturate the 8-bit one.
 */
static __always_inline uint8x16_t neon_interleave8(uint16x8_t even,
						   uint16x8_t odd)
{
	uint8x8_t e = vshrn_n_u16(even, 8), o = vshrn_n_u16(odd, 8);

	return vzip1q_u8(vcombine_u8(e, e), vcombine_u8(o, o));
}

/*
 * The YCbCr terms' factors in two registers and luma's offset, from the
 * plane's struct gembuf_yuv_arith.
 */
struct neon_yuv_k {
	uint32x4_t ks, kf;
	uint8x8_t y_off;
};

static __always_inline void
neon_yuv_k_load(struct neon_yuv_k *k, const struct gembuf_yuv_arith *arith)
{
	/* Loaded, not initialised: lane i is element i in either byte order. */
	const u32 f[8] = {
		arith->y_mul, arith->y_frac, arith->c_mul, arith->c_frac,
		arith->kr, arith->kgb, arith->kgr, arith->kb,
	};

	k->ks = vld1q_u32(f);
	k->kf = vld1q_u32(f + 4);
	k->y_off = vdup_n_u8(arith->y_off);
}

/*
 * Sixteen pixels of @format from @luma and @chroma (see
 * gembuf_neon_yuv_words()), from pixel @i of the run, to 16-bit channels
 * as neon_yuv16() gives them.
 */
static __always_inline void neon_yuv_load16(const u8 *luma, const u8 *chroma,
					    int i, u32 format,
					    const struct neon_yuv_k *k,
					    uint16x8_t ch[2][3])
{
	uint8x8x4_t q;
	uint8x8x2_t l, c;

	switch (format) {
	case DRM_FORMAT_YUYV:
		q = vld4_u8(luma + 2 * i);
		neon_yuv16(q.val[0], q.val[2], q.val[1], q.val[3], k->y_off,
			   k->ks, k->kf, ch);
		break;
	case DRM_FORMAT_UYVY:
		q = vld4_u8(chroma + 2 * i);
		neon_yuv16(q.val[1], q.val[3], q.val[0], q.val[2], k->y_off,
			   k->ks, k->kf, ch);
		break;
	default:
		l = vld2_u8(luma + i);
		c = vld2_u8(chroma + i);
		neon_yuv16(l.val[0], l.val[1], c.val[0], c.val[1], k->y_off,
			   k->ks, k->kf, ch);
		break;
	}
}

/**
 * gembuf_neon_yuv_words() - YCbCr pixels as XRGB8888 words
 * @dst: the @n words, X 0
 * @luma: the first pixel's luma byte (YUYV, NV12)
 * @chroma: its chroma pair's first byte (UYVY: Cb; NV12: Cb of the
 *	chroma line)
 * @n: the number of pixels, a multiple of %GEMBUF_SIMD_PIXELS, from an
 *	even column
 * @format: %DRM_FORMAT_YUYV, %DRM_FORMAT_UYVY or %DRM_FORMAT_NV12
 * @arith: the plane's encoding and range, gembuf_yuv_lut()'s @arith
 *
 * Each word as the format's scalar words reader makes it.  YUYV and UYVY
 * are loaded four bytes a pair with vld4_u8 (Y0 Cb Y1 Cr, Cb Y0 Cr Y1),
 * NV12's luma and chroma lines with vld2_u8 each.
 *
 * Context: kernel-mode NEON, after gembuf_simd_begin() returned true.
 */
void gembuf_neon_yuv_words(__le32 *dst, const u8 *luma, const u8 *chroma,
			   int n, u32 format, const struct gembuf_yuv_arith *arith)
{
	struct neon_yuv_k k;
	uint16x8_t ch[2][3];
	uint8x16x4_t w;
	int i;

	neon_yuv_k_load(&k, arith);
	for (i = 0; i < n; i += GEMBUF_SIMD_PIXELS) {
		neon_yuv_load16(luma, chroma, i, format, &k, ch);
		/* Bytes 0 to 3 of a word: blue, green, red, X (0). */
		w.val[0] = neon_interleave8(ch[0][2], ch[1][2]);
		w.val[1] = neon_interleave8(ch[0][1], ch[1][1]);
		w.val[2] = neon_interleave8(ch[0][0], ch[1][0]);
		w.val[3] = vdupq_n_u8(0);
		vst4q_u8((u8 *)(dst + i), w);
	}
}

/**
 * gembuf_neon_yuv_pixels() - YCbCr pixels as 16-bit pixels
 * @px: the @n pixels, opaque
 * @luma: as for gembuf_neon_yuv_words()
 * @chroma: as for gembuf_neon_yuv_words()
 * @n: as for gembuf_neon_yuv_words()
 * @format: as for gembuf_neon_yuv_words()
 * @arith: as for gembuf_neon_yuv_words()
 *
 * Each pixel as the format's scalar reader gives it.
 *
 * Context: kernel-mode NEON, after gembuf_simd_begin() returned true.
 */
void gembuf_neon_yuv_pixels(struct gembuf_pixel *px, const u8 *luma,
			    const u8 *chroma, int n, u32 format,
			    const struct gembuf_yuv_arith *arith)
{
	u16 *p16 = (u16 *)px;
	struct neon_yuv_k k;
	uint16x8_t ch[2][3];
	uint16x8x4_t p;
	int i;

	neon_yuv_k_load(&k, arith);
	p.val[0] = vdupq_n_u16(0xffff);
	for (i = 0; i < n; i += GEMBUF_SIMD_PIXELS) {
		neon_yuv_load16(luma, chroma, i, format, &k, ch);
		/* Alpha, red, green, blue: pixels 0 to 7, then 8 to 15. */
		p.val[1] = vzip1q_u16(ch[0][0], ch[1][0]);
		p.val[2] = vzip1q_u16(ch[0][1], ch[1][1]);
		p.val[3] = vzip1q_u16(ch[0][2], ch[1][2]);
		vst4q_u16(p16 + 4 * i, p);
		p.val[1] = vzip2q_u16(ch[0][0], ch[1][0]);
		p.val[2] = vzip2q_u16(ch[0][1], ch[1][1]);
		p.val[3] = vzip2q_u16(ch[0][2], ch[1][2]);
		vst4q_u16(p16 + 4 * (i + 8), p);
	}
}

#endif /* __CHECKER__ */
