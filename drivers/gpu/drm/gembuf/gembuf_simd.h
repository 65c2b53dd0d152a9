/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gembuf composer loops in SIMD, for the CPUs that have them: each gives
 * what its scalar loop in gembuf_composer.c or gembuf_formats.c gives,
 * bit for bit (the KUnit suite holds them together).  A caller runs one
 * only between gembuf_simd_begin(), when it returned true, and
 * gembuf_simd_end(), and behind gembuf_simd() of what it returned:
 * without CONFIG_DRM_GEMBUF_NEON that is a constant false, the calls
 * behind it go, and a call without it fails to link.
 */
#ifndef _GEMBUF_SIMD_H_
#define _GEMBUF_SIMD_H_

#include <linux/compiler.h>
#include <linux/kconfig.h>
#include <linux/types.h>

/* The pixels each SIMD loop takes at a time: its @n is a multiple. */
#define GEMBUF_SIMD_PIXELS	16

struct gembuf_pixel;

/**
 * struct gembuf_pick - sixteen words picked from a run of sixteen
 * @bytes: the offset in the run of each byte of the sixteen words
 * @base: the run's first word
 */
struct gembuf_pick {
	u8 bytes[64];
	int base;
};

/**
 * struct gembuf_yuv_arith - YCbCr to RGB's terms as the SIMD loops work them out
 * @y_off: luma's offset: 16 in limited range, 0 in full
 * @y_mul: luma's scale in 16.16, whole: 65536 * 255 / 219 limited, 65536 full
 * @y_frac: the scale's remainder over 219 times 2^24 / 219 rounded up; 0 full
 * @c_mul: chroma's scale, whole: 65536 * 255 / 224 limited, 65536 full
 * @c_frac: its remainder over 224 times 2^24 / 224 rounded up; 0 full
 * @kr: Cr's factor of red, in 16.16
 * @kgb: Cb's factor of green
 * @kgr: Cr's factor of green
 * @kb: Cb's factor of blue
 *
 * Luma a = Y - @y_off has the term a * @y_mul + (max(a, 0) * @y_frac >> 24):
 * the product by a fraction below one is a division by 219 by multiplying,
 * exact for every a, and for a < 0 the remainder's part rounds to 0 towards
 * zero.  Chroma d = C - 128 is scaled as |d| * @c_mul + (|d| * @c_frac >> 24),
 * and each factor k's term is that times k >> 16, in 64 bits, with the sign
 * of d.  These are the terms of struct gembuf_yuv_lut, every one of them:
 * the KUnit suite holds the SIMD loops' pixels against the tables' with
 * every Y, Cb and Cr value in each encoding and range.
 */
struct gembuf_yuv_arith {
	u32 y_off;
	s32 y_mul;
	u32 y_frac, c_mul, c_frac;
	u32 kr, kgb, kgr, kb;
};

void gembuf_neon_blend_words(__le32 *dst, const __le32 *src, int n,
			     u16 plane_alpha, u16 mode);
void gembuf_neon_blend_line(struct gembuf_pixel *dst, const __le32 *src,
			    int n, u16 plane_alpha, u16 mode);
void gembuf_neon_rgb565_words(__le32 *dst, const __le16 *src, int n);
void gembuf_neon_pick_words(__le32 *dst, const __le32 *src,
			    const struct gembuf_pick *pick, int n);
void gembuf_neon_gather_tile(__le32 *out, int n, const u8 *src,
			     ptrdiff_t stride, int bulk, bool down);
void gembuf_neon_clear_x(__le32 *words, int n);
void gembuf_neon_widen_line(struct gembuf_pixel *px, const __le32 *words, int n);
void gembuf_neon_narrow_line(__le32 *words, const struct gembuf_pixel *px, int n);
void gembuf_neon_yuv_words(__le32 *dst, const u8 *luma, const u8 *chroma,
			   int n, u32 format,
			   const struct gembuf_yuv_arith *arith);
void gembuf_neon_yuv_pixels(struct gembuf_pixel *px, const u8 *luma,
			    const u8 *chroma, int n, u32 format,
			    const struct gembuf_yuv_arith *arith);

/*
 * Whether @simd, a caller's word that it holds kernel-mode NEON, may be
 * true: never without CONFIG_DRM_GEMBUF_NEON, where the SIMD loops are
 * not built (a word passed down from gembuf_simd_begin() is not known to
 * be false where it is read).
 */
static __always_inline bool gembuf_simd(bool simd)
{
	return IS_ENABLED(CONFIG_DRM_GEMBUF_NEON) && simd;
}

#if IS_ENABLED(CONFIG_DRM_GEMBUF_NEON)

#include <asm/neon.h>
#include <asm/simd.h>

/*
 * Whether the SIMD loops may run here, and if so, begin kernel-mode NEON;
 * a caller that gets false runs its scalar loop.
 */
static inline bool __must_check gembuf_simd_begin(void)
{
	if (!may_use_simd())
		return false;
	kernel_neon_begin();
	return true;
}

static inline void gembuf_simd_end(void)
{
	kernel_neon_end();
}

#else

static inline bool __must_check gembuf_simd_begin(void)
{
	return false;
}

static inline void gembuf_simd_end(void)
{
}

#endif

#endif /* _GEMBUF_SIMD_H_ */
