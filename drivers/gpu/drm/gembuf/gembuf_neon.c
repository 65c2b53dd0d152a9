// SPDX-License-Identifier: GPL-2.0-only
/*
 * gembuf composer loops in NEON, sixteen pixels at a time: loaded with
 * vld4q_u8/vld2q_u8, which split a framebuffer's little-endian pixels
 * into one register per channel byte whatever the CPU's byte order, and
 * stored the same way.  Each computes what its scalar loop computes, on
 * the same 16-bit values with the same rounding; see gembuf_simd.h.
 */

#include <drm/drm_blend.h>

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
 * blend_rgb32_run() of gembuf_composer.c, @mode and @pa_opaque constants:
 * sixteen pixels a time onto @dst, two vld4q_u16 of eight 16-bit pixels
 * (alpha, red, green, blue), the same choices as blend_words().
 */
static __always_inline void neon_blend_line(u16 *dst, const __le32 *src,
					    int n, u16 plane_alpha, u16 mode,
					    bool pa_opaque)
{
	const uint16x8_t pa = vdupq_n_u16(plane_alpha);
	const uint16x8_t all = vdupq_n_u16(0xffff);
	bool k_opaque = mode != DRM_MODE_BLEND_COVERAGE && pa_opaque;
	uint16x8_t cov[2], k[2], inv[2], opaque[2], skip[2], c16, v;
	uint16x8x4_t d[2], r;
	uint8x16x4_t s;
	uint8x16_t skip8;
	int i, h, c;

	for (i = 0; i < n; i += GEMBUF_SIMD_PIXELS) {
		s = vld4q_u8((const u8 *)(src + i));
		d[0] = vld4q_u16(dst + 4 * i);
		d[1] = vld4q_u16(dst + 4 * (i + 8));
		neon_coverage(s.val[3], pa, mode, pa_opaque, cov);
		skip8 = neon_adds_nothing(s, mode);
		skip[0] = neon_widen_lo(skip8);
		skip[1] = neon_widen_hi(skip8);
		for (h = 0; h < 2; h++) {
			k[h] = mode == DRM_MODE_BLEND_COVERAGE ? cov[h] : pa;
			inv[h] = vmvnq_u16(cov[h]);
			opaque[h] = vceqq_u16(cov[h], all);
			r.val[0] = vbslq_u16(skip[h], d[h].val[0], all);
			/* Channel c of the source is byte 2 - c: red first. */
			for (c = 0; c < 3; c++) {
				c16 = h ? neon_widen_hi(s.val[2 - c]) :
					  neon_widen_lo(s.val[2 - c]);
				v = vqaddq_u16(k_opaque ? c16 : neon_mul16(c16, k[h]),
					       neon_mul16(d[h].val[1 + c], inv[h]));
				v = vbslq_u16(opaque[h], c16, v);
				r.val[1 + c] = vbslq_u16(skip[h], d[h].val[1 + c], v);
			}
			vst4q_u16(dst + 4 * (i + 8 * h), r);
		}
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

#endif /* __CHECKER__ */
