/* SPDX-License-Identifier: MIT */
/*
 * A CPU reference of a KMS frame: what DRM's uapi says the planes of a
 * gk_commit() compose to, worked out in floating point from the
 * framebuffers' bytes, with nothing taken from the driver but the
 * property values it reports.  Tests compare it with the writeback
 * framebuffer (pixel by pixel, within a tolerance for YCbCr and blending
 * rounding) or, put on the primary plane alone, with the CRTC's CRC.
 *
 * The semantics it implements, from the DRM documentation:
 *  - planes stack by zpos over a black background, planes sharing a zpos
 *    by plane id (the lower id below), as normalize_zpos orders them;
 *  - a destination pixel takes the source pixel nearest to its centre:
 *    the source is reflected first (reflect-x, reflect-y), then rotated
 *    counter-clockwise, then scaled onto the destination rectangle;
 *  - "pixel blend mode": None (pixel alpha ignored), Pre-multiplied and
 *    Coverage, each with the plane "alpha"; a plane without those
 *    properties is opaque and pre-multiplied, DRM's defaults;
 *  - YCbCr by COLOR_ENCODING (BT.601, BT.709) and COLOR_RANGE;
 *  - gembuf's COLORKEY/COLORKEY_MASK on the 8-bit RGB of a source pixel;
 *  - the CRTC's GAMMA_LUT on the 8-bit composed value.
 */
#ifndef GEMBUF_REF_H
#define GEMBUF_REF_H

#include <stdint.h>

#include "gembuf_kms.h"

/*
 * Compose @layers as gk_commit() would commit them on @k's planes into
 * @frame, k->mode.hdisplay x k->mode.vdisplay XRGB8888 words.
 */
void gk_ref_compose(struct gk *k, const struct gk_layer *layers, unsigned int n,
		    uint32_t *frame);

/*
 * Pixels of the XRGB8888 writeback @wb with a channel more than @tol away
 * from @ref; the first few are logged.
 */
unsigned int gk_ref_compare(const struct gk_fb *wb, const uint32_t *ref, int tol);

/* Largest channel difference the conversions of @format may add. */
int gk_ref_format_tol(uint32_t format);

/* Fill all of @fb's buffer with pseudo-random bytes from @seed. */
void gk_fb_noise(const struct gk_fb *fb, uint32_t seed);

/* Copy an XRGB8888 @frame of @wb's size into @wb's buffer. */
void gk_ref_store(const struct gk_fb *fb, const uint32_t *frame);

/*
 * Paint a rectangle of @fb opaque R'G'B' (@r, @g, @b in 0..1) in its format,
 * YCbCr ones in @encoding and @range as gk_layer names them; chroma pairs
 * (and NV12's line pairs) are shared, so keep YCbCr rectangles even.
 */
void gk_fb_paint(const struct gk_fb *fb, uint32_t x, uint32_t y, uint32_t w,
		 uint32_t h, double r, double g, double b, int encoding, int range);

#endif /* GEMBUF_REF_H */
