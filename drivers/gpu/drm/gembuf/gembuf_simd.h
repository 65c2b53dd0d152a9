/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gembuf composer loops in SIMD, for the CPUs that have them: each gives
 * what its scalar loop in gembuf_composer.c or gembuf_formats.c gives,
 * bit for bit (the KUnit suite holds them together).  A caller runs one
 * only between gembuf_simd_begin(), when it returned true, and
 * gembuf_simd_end(); without CONFIG_DRM_GEMBUF_NEON the first returns a
 * constant false, the calls after it go, and a call without it fails to
 * link.
 */
#ifndef _GEMBUF_SIMD_H_
#define _GEMBUF_SIMD_H_

#include <linux/compiler.h>
#include <linux/types.h>

/* The pixels each SIMD loop takes at a time: its @n is a multiple. */
#define GEMBUF_SIMD_PIXELS	16

struct gembuf_pixel;

void gembuf_neon_blend_words(__le32 *dst, const __le32 *src, int n,
			     u16 plane_alpha, u16 mode);
void gembuf_neon_blend_line(struct gembuf_pixel *dst, const __le32 *src,
			    int n, u16 plane_alpha, u16 mode);
void gembuf_neon_rgb565_words(__le32 *dst, const __le16 *src, int n);
void gembuf_neon_clear_x(__le32 *words, int n);

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
