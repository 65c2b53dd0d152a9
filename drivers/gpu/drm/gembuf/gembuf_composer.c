// SPDX-License-Identifier: GPL-2.0-only
/*
 * gembuf composer: blends the visible planes, bottom to top, line by line
 * into 16-bit-a-channel pixels (each plane's line read with one call of
 * its format's reader), applies the gamma LUT and hands the frame
 * to the CRC and the writeback connector.  Every plane is read where its
 * framebuffer's objects are, through the kernel mapping its
 * shadow-plane state holds for the commit.
 *
 * Most frames are 32-bit RGB planes shown at their size, and most of
 * their pixels are opaque: those planes are copied as runs of words, each
 * pixel once, and a line keeps the 8-bit form of its pixels until a plane
 * is blended onto it, so it is widened to 16 bits and narrowed back only
 * where blending needs it.  A column that one plane is blended onto,
 * with nothing blended onto it after, needs only the 8 high bits of its
 * result: there the plane is blended on 8-bit words, or read straight as
 * words (RGB565, XBGR8888, YCbCr), each plane's span in one call, and
 * only the columns two blended planes share go through 16 bits.  Every
 * path gives the same pixels, bit for bit.  The X bytes of an XRGB8888
 * writeback are padding, which nothing may rely on: they are 0 where a
 * plane was blended or read into words, the planes' own elsewhere, and
 * 0 or the planes' own in the columns between two blended planes.
 *
 * Words of 32-bit RGB pixels are kept as the framebuffers hold them,
 * little-endian (__le32), and converted where their channels are used.
 */

#include <drm/drm_blend.h>
#include <drm/drm_color_mgmt.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_vblank.h>
#include <drm/drm_writeback.h>
#include <asm/byteorder.h>
#include <kunit/visibility.h>
#include <linux/crc32.h>
#include <linux/dma-fence.h>
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/slab.h>

#include "gembuf_kms.h"
#include "gembuf_simd.h"

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
 * rotation property defines it.  The centre is kept as an exact
 * fraction of the destination (2i + 1 over twice its size) and scaled
 * to the source in 64 bits, so that no width loses precision.
 */
VISIBLE_IF_KUNIT void gembuf_source_point(const struct drm_plane_state *s,
					  int x, int y, int *sx, int *sy)
{
	const struct drm_rect *dst = &s->dst, *src = &s->src;
	u64 ud = 2 * (u64)drm_rect_width(dst), vd = 2 * (u64)drm_rect_height(dst);
	u64 un = 2 * (u64)(x - dst->x1) + 1, vn = 2 * (u64)(y - dst->y1) + 1;
	u64 sun, sud, svn, svd;

	switch (s->rotation & DRM_MODE_ROTATE_MASK) {
	case DRM_MODE_ROTATE_90:
		sun = vd - vn;
		sud = vd;
		svn = un;
		svd = ud;
		break;
	case DRM_MODE_ROTATE_180:
		sun = ud - un;
		sud = ud;
		svn = vd - vn;
		svd = vd;
		break;
	case DRM_MODE_ROTATE_270:
		sun = vn;
		sud = vd;
		svn = ud - un;
		svd = ud;
		break;
	default:
		sun = un;
		sud = ud;
		svn = vn;
		svd = vd;
		break;
	}
	if (s->rotation & DRM_MODE_REFLECT_X)
		sun = sud - sun;
	if (s->rotation & DRM_MODE_REFLECT_Y)
		svn = svd - svn;

	*sx = (src->x1 + (int)div64_u64(sun * drm_rect_width(src), sud)) >> 16;
	*sy = (src->y1 + (int)div64_u64(svn * drm_rect_height(src), svd)) >> 16;
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
 * the loop makes no call per pixel and, where @mode is a constant, the
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

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * gembuf_blend() - blend one pixel over another, for the tests
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
#endif

/*
 * The bottom of most lines is made of 32-bit RGB planes (XRGB8888,
 * ARGB8888) that no pixel blend mode nor plane alpha makes translucent,
 * shown at their size.  Such a line is laid as runs of words, each pixel
 * copied once from the topmost plane that shows it: 8-bit channels become
 * 16 bits as v * 0x101 and come back as v >> 8, both exact, so the line
 * needs neither step until something is blended onto it, and its words
 * are what an XRGB8888 writeback stores.  The planes' X bytes (or ignored
 * alpha) come along: X is padding, which the writeback keeps as the
 * planes had it, CRC or not, and the CRC is taken once it is cleared.
 */

/**
 * gembuf_lay_runs() - lay opaque runs of 32-bit RGB pixels on a line
 * @dst: the line's @width words
 * @width: the line's width
 * @runs: the runs, bottom to top, each with 0 <= x1 <= x2 <= @width
 * @n: their number, at most %GEMBUF_MAX_PLANES
 *
 * Each column gets the word of the topmost run that covers it, black
 * where none does, as if the runs were copied bottom to top; but each
 * word is read and written once, a span of columns shown by one run at a
 * time, so a plane hidden by another is not read.
 */
VISIBLE_IF_KUNIT void gembuf_lay_runs(__le32 *dst, int width,
				      const struct gembuf_run *runs, int n)
{
	int cut[2 * GEMBUF_MAX_PLANES + 2], ncut = 0, i, j, a, b;

	cut[ncut++] = 0;
	cut[ncut++] = width;
	for (i = 0; i < n; i++) {
		cut[ncut++] = runs[i].x1;
		cut[ncut++] = runs[i].x2;
	}
	/* At most ARRAY_SIZE(cut) ends: sorted by insertion. */
	for (i = 1; i < ncut; i++)
		for (j = i; j > 0 && cut[j - 1] > cut[j]; j--)
			swap(cut[j - 1], cut[j]);
	for (i = 0; i + 1 < ncut; i++) {
		a = cut[i];
		b = cut[i + 1];
		if (a == b)
			continue;
		for (j = n - 1; j >= 0; j--)
			if (runs[j].x1 <= a && runs[j].x2 >= b)
				break;
		if (j < 0)
			memset(dst + a, 0, (b - a) * sizeof(*dst));
		else
			memcpy(dst + a, runs[j].words + (a - runs[j].x1),
			       (b - a) * sizeof(*dst));
	}
}
EXPORT_SYMBOL_IF_KUNIT(gembuf_lay_runs);

/**
 * gembuf_clear_x_line() - clear the X bytes of a line of XRGB8888 words
 * @words: the words, 8-byte aligned
 * @n: their number
 * @simd: the caller holds kernel-mode NEON (gembuf_simd_begin() returned
 *	true): sixteen words at a time in SIMD
 *
 * Sixteen words at a time in SIMD if @simd, then two at a
 * time: the CRC is taken over the line once it is done.  Read as
 * little-endian, a pair is its first word then its second, so the mask
 * clears byte 3 of each, whatever the CPU's byte order.
 */
VISIBLE_IF_KUNIT void gembuf_clear_x_line(__le32 *words, int n, bool simd)
{
	int i, bulk = round_down(n, GEMBUF_SIMD_PIXELS);
	__le64 *pairs;

	if (gembuf_simd(simd) && bulk) {
		gembuf_neon_clear_x(words, bulk);
		words += bulk;
		n -= bulk;
	}
	pairs = (__le64 *)words;

	for (i = 0; i < n / 2; i++)
		pairs[i] &= cpu_to_le64(0x00ffffff00ffffffULL);
	if (n & 1)
		words[n - 1] &= cpu_to_le32(0xffffff);
}
EXPORT_SYMBOL_IF_KUNIT(gembuf_clear_x_line);

/**
 * gembuf_widen_line() - a line of XRGB8888 words as composer pixels
 * @line: the @n pixels, opaque
 * @words: the words
 * @n: their number
 * @simd: the caller holds kernel-mode NEON: whole blocks of
 *	%GEMBUF_SIMD_PIXELS in SIMD
 *
 * Each channel as the XRGB8888 reader gives it.
 */
VISIBLE_IF_KUNIT void gembuf_widen_line(struct gembuf_pixel *line,
					const __le32 *words, int n, bool simd)
{
	int i = 0, bulk = round_down(n, GEMBUF_SIMD_PIXELS);

	if (gembuf_simd(simd) && bulk) {
		gembuf_neon_widen_line(line, words, bulk);
		i = bulk;
	}
	for (; i < n; i++) {
		u32 v = le32_to_cpu(words[i]);

		line[i] = (struct gembuf_pixel){
			.a = 0xffff,
			.r = (v >> 16 & 0xff) * 0x101,
			.g = (v >> 8 & 0xff) * 0x101,
			.b = (v & 0xff) * 0x101,
		};
	}
}
EXPORT_SYMBOL_IF_KUNIT(gembuf_widen_line);

/**
 * gembuf_narrow_line() - a line of composer pixels as XRGB8888 words
 * @words: the @n words
 * @line: the pixels
 * @n: their number
 * @simd: the caller holds kernel-mode NEON: whole blocks of
 *	%GEMBUF_SIMD_PIXELS in SIMD
 *
 * The 8 high bits of each channel, as an XRGB8888 writeback stores them;
 * the CRC is taken over these words.
 */
VISIBLE_IF_KUNIT void gembuf_narrow_line(__le32 *words,
					 const struct gembuf_pixel *line, int n,
					 bool simd)
{
	int i = 0, bulk = round_down(n, GEMBUF_SIMD_PIXELS);

	if (gembuf_simd(simd) && bulk) {
		gembuf_neon_narrow_line(words, line, bulk);
		i = bulk;
	}
	for (; i < n; i++)
		words[i] = cpu_to_le32((line[i].r >> 8) << 16 |
				       (line[i].g >> 8) << 8 | line[i].b >> 8);
}
EXPORT_SYMBOL_IF_KUNIT(gembuf_narrow_line);

/*
 * gembuf_blend() over a run of 32-bit RGB pixels read as the ARGB8888
 * reader reads them, @mode a constant at each call so that every blend
 * mode gets a loop of its own.
 */
static __always_inline void blend_rgb32_run(struct gembuf_pixel *dst,
					    const __le32 *src, int n,
					    u16 plane_alpha, u16 mode)
{
	int i;

	for (i = 0; i < n; i++) {
		u32 v = le32_to_cpu(src[i]);
		struct gembuf_pixel p = {
			.a = (v >> 24) * 0x101,
			.r = (v >> 16 & 0xff) * 0x101,
			.g = (v >> 8 & 0xff) * 0x101,
			.b = (v & 0xff) * 0x101,
		};

		/*
		 * A transparent pixel that adds no color leaves the opaque
		 * pixel below as it is (mul16(x, 0xffff) is x): common in
		 * cursors and overlays, so skip the arithmetic.
		 */
		if (mode != DRM_MODE_BLEND_PIXEL_NONE && !(v >> 24) &&
		    (mode == DRM_MODE_BLEND_COVERAGE || !(v & 0xffffff)))
			continue;
		blend_pixel(&dst[i], &p, plane_alpha, mode);
	}
}

/**
 * gembuf_blend_rgb32_line() - blend a run of 32-bit RGB pixels over a line
 * @dst: the line's pixels below, opaque, replaced by the result
 * @src: the plane's XRGB8888 or ARGB8888 pixels, one per pixel of @dst
 * @n: their number
 * @s: the plane state, for its format, alpha and pixel blend mode
 * @simd: the caller holds kernel-mode NEON (gembuf_simd_begin() returned
 *	true): whole blocks of %GEMBUF_SIMD_PIXELS pixels in SIMD; false
 *	for the scalar loop alone
 *
 * Gives what the plane's reader and gembuf_blend() give, pixel by pixel,
 * both ways.  XRGB8888 pixels read as opaque, which every blend mode
 * treats as pixel blend mode None does.
 */
VISIBLE_IF_KUNIT void gembuf_blend_rgb32_line(struct gembuf_pixel *dst,
					      const __le32 *src, int n,
					      const struct drm_plane_state *s,
					      bool simd)
{
	u16 mode = s->fb->format->has_alpha ? s->pixel_blend_mode :
					       DRM_MODE_BLEND_PIXEL_NONE;
	int bulk = round_down(n, GEMBUF_SIMD_PIXELS);

	if (gembuf_simd(simd) && bulk) {
		gembuf_neon_blend_line(dst, src, bulk, s->alpha, mode);
		dst += bulk;
		src += bulk;
		n -= bulk;
	}
	switch (mode) {
	case DRM_MODE_BLEND_PIXEL_NONE:
		blend_rgb32_run(dst, src, n, s->alpha, DRM_MODE_BLEND_PIXEL_NONE);
		break;
	case DRM_MODE_BLEND_COVERAGE:
		blend_rgb32_run(dst, src, n, s->alpha, DRM_MODE_BLEND_COVERAGE);
		break;
	default:
		blend_rgb32_run(dst, src, n, s->alpha, DRM_MODE_BLEND_PREMULTI);
		break;
	}
}
EXPORT_SYMBOL_IF_KUNIT(gembuf_blend_rgb32_line);

/*
 * One channel of blend_pixel() over a pixel below that is a word's
 * channel @d widened (d * 0x101), narrowed back: the same arithmetic on
 * the same 16-bit values, so the same 8 high bits.  mul16(x, 0xffff) is
 * x, which a constant @k of 0xffff skips.
 */
static __always_inline u32 blend8(u32 s, u32 d, u32 k, u32 cov)
{
	u32 c = k == 0xffff ? s * 0x101 : mul16(s * 0x101, k);

	return min(c + mul16(d * 0x101, 0xffff - cov), 0xffffU) >> 8;
}

/*
 * blend_rgb32_run() onto a run of words where the result is the last
 * word of its pixel: each pixel below is a word that nothing was blended
 * onto, and nothing is blended onto the result, so it is made as the
 * word the 16-bit path would narrow to (X aside: the caller clears it).
 */
static __always_inline void blend_words_run(__le32 *dst, const __le32 *src,
					    int n, u16 plane_alpha, u16 mode)
{
	u32 v, d, cov, k;
	int i;

	for (i = 0; i < n; i++) {
		v = le32_to_cpu(src[i]);
		if (mode != DRM_MODE_BLEND_PIXEL_NONE && !(v >> 24) &&
		    (mode == DRM_MODE_BLEND_COVERAGE || !(v & 0xffffff)))
			continue;
		cov = mul16(mode == DRM_MODE_BLEND_PIXEL_NONE ? 0xffff :
			    (v >> 24) * 0x101, plane_alpha);
		k = mode == DRM_MODE_BLEND_COVERAGE ? cov : plane_alpha;
		if (cov == 0xffff) {
			dst[i] = src[i];
			continue;
		}
		d = le32_to_cpu(dst[i]);
		dst[i] = cpu_to_le32(blend8(v >> 16 & 0xff, d >> 16 & 0xff, k, cov) << 16 |
				     blend8(v >> 8 & 0xff, d >> 8 & 0xff, k, cov) << 8 |
				     blend8(v & 0xff, d & 0xff, k, cov));
	}
}

/*
 * blend_words_run() for a blend mode that reads the pixels' alpha,
 * @mode a constant.  Both calls compute the same thing: the first is
 * there for constant propagation, so that the compiler makes a loop of
 * its own for the common case of a plane translucent by its pixels
 * only, where the plane alpha is the constant 0xffff (in premultiplied
 * mode, blend8() then skips mul16() by it).
 */
static __always_inline void blend_words_alpha(__le32 *dst,
					      const __le32 *src, int n,
					      u16 plane_alpha, u16 mode)
{
	if (plane_alpha == DRM_BLEND_ALPHA_OPAQUE)
		blend_words_run(dst, src, n, DRM_BLEND_ALPHA_OPAQUE, mode);
	else
		blend_words_run(dst, src, n, plane_alpha, mode);
}

/**
 * gembuf_blend_rgb32_words() - blend 32-bit RGB pixels onto final words
 * @dst: the words below, replaced by the result (see blend_words_run())
 * @src: the plane's XRGB8888 or ARGB8888 pixels, one per word of @dst
 * @n: their number
 * @s: the plane state, for its format, alpha and pixel blend mode
 * @simd: the caller holds kernel-mode NEON (gembuf_simd_begin() returned
 *	true): whole blocks of %GEMBUF_SIMD_PIXELS words in SIMD; false for
 *	the scalar loop alone
 *
 * gembuf_blend_rgb32_line() for a run whose pixels below are words and
 * whose results are final, a loop for each blend mode.  Pixel blend mode
 * None comes here only with a translucent plane alpha: an opaque plane
 * is copied.  Both ways give the same words; the X byte of each is the
 * source's where the pixel is opaque, the destination's where it adds
 * nothing, else 0.
 */
VISIBLE_IF_KUNIT void gembuf_blend_rgb32_words(__le32 *dst, const __le32 *src,
					       int n,
					       const struct drm_plane_state *s,
					       bool simd)
{
	u16 mode = s->fb->format->has_alpha ? s->pixel_blend_mode :
					       DRM_MODE_BLEND_PIXEL_NONE;
	int bulk = round_down(n, GEMBUF_SIMD_PIXELS);

	if (gembuf_simd(simd) && bulk) {
		gembuf_neon_blend_words(dst, src, bulk, s->alpha, mode);
		dst += bulk;
		src += bulk;
		n -= bulk;
	}
	switch (mode) {
	case DRM_MODE_BLEND_PIXEL_NONE:
		blend_words_run(dst, src, n, s->alpha, DRM_MODE_BLEND_PIXEL_NONE);
		break;
	case DRM_MODE_BLEND_COVERAGE:
		blend_words_alpha(dst, src, n, s->alpha, DRM_MODE_BLEND_COVERAGE);
		break;
	default:
		blend_words_alpha(dst, src, n, s->alpha, DRM_MODE_BLEND_PREMULTI);
		break;
	}
}
EXPORT_SYMBOL_IF_KUNIT(gembuf_blend_rgb32_words);

/* Rotated by 90 or 270 degrees, a destination line crosses source lines. */
static bool transposed(const struct drm_plane_state *s)
{
	return s->rotation & (DRM_MODE_ROTATE_90 | DRM_MODE_ROTATE_270);
}

/*
 * Unless a plane is transposed, its source column depends on the
 * destination column only and its source line on the destination line
 * only; rotated by 90 or 270 degrees, the other way round.  So what
 * depends on the column is worked out once a frame, what depends on the
 * line once a line.  source_clamped() gives the source line if @line,
 * else the source column, of destination pixel (@x, @y).
 */
static int source_clamped(const struct drm_plane_state *s, int x, int y,
			  bool line)
{
	int sx, sy;

	gembuf_source_point(s, x, y, &sx, &sy);
	return line ? clamp(sy, 0, (int)s->fb->height - 1) :
		      clamp(sx, 0, (int)s->fb->width - 1);
}

/* Per destination column: the source column, or line if transposed. */
static void source_per_column(const struct drm_plane_state *s, int *xs)
{
	int i, sx, sy, n = drm_rect_width(&s->dst);

	/*
	 * Shown at its width and not reflected, column i of the plane is
	 * the first one's plus i (the centres are whole source pixels apart),
	 * so one division is enough.
	 */
	if (!transposed(s) && drm_rect_width(&s->src) == n << 16 &&
	    !(s->rotation & (DRM_MODE_REFLECT_X | DRM_MODE_ROTATE_180))) {
		gembuf_source_point(s, s->dst.x1, s->dst.y1, &sx, &sy);
		for (i = 0; i < n; i++)
			xs[i] = clamp(sx + i, 0, (int)s->fb->width - 1);
		return;
	}
	for (i = 0; i < n; i++)
		xs[i] = source_clamped(s, s->dst.x1 + i, s->dst.y1,
				       transposed(s));
}

/* For destination line @y: the source line, or column if transposed. */
static int source_per_line(const struct drm_plane_state *s, int y)
{
	return source_clamped(s, s->dst.x1, y, !transposed(s));
}

/**
 * struct gembuf_layer - how one plane is composed, worked out once a frame
 * @ps: the plane state
 * @xs: the source column of each destination column; for a transposed
 *	plane, the source line of each destination column
 * @gather: for an @rgb32 plane whose line is not a plain run of words
 *	(scaled, reflected or rotated), where each line's words are
 *	gathered; for a @words plane shown magnified, its source columns
 *	@sx1 to @sx2 of the source line @src_y, as words
 * @words: the words reader of an opaque plane of another format, not
 *	transposed and without a color key, or NULL
 * @lut: for a @words plane of a YCbCr format, the table of its encoding
 *	and range
 * @gathered_y: the first destination line whose words @gather holds, or -1
 * @gathered: the lines @gather holds from @gathered_y on, each as many
 *	words as the plane is wide on the CRTC
 * @line_y: the destination line @line_src is of, or -1
 * @line_src: source_per_line() of @line_y
 * @src_y: the source line @gather holds for a magnified @words plane, or -1
 * @sx1: the first source column such a plane shows
 * @sx2: the column after its last
 * @step: 1 or -1 if @xs go up or down by one from column to column (a
 *	transposed plane shown at its size), else 0
 * @rgb32: XRGB8888 or ARGB8888 and no color key: each line is a run of
 *	words, for gembuf_blend_rgb32_line(), read from @xs[0] on or
 *	gathered in @gather
 * @opaque: and every pixel of it hides what is below: laid as a run
 *	by gembuf_lay_runs()
 * @plain: @xs are consecutive columns (the plane is shown at its width,
 *	not reflected nor transposed)
 * @magnified: fewer source columns than destination ones: a @words plane
 *	reads each source column once a source line, into @gather (and
 *	once a line in 16 bits where it is blended onto)
 * @pick: for a @magnified plane, where each %GEMBUF_SIMD_PIXELS of its
 *	columns from the first are in @gather, or NULL
 * @simd: the composer holds kernel-mode NEON for the frame
 */
struct gembuf_layer {
	const struct gembuf_plane_state *ps;
	const int *xs;
	__le32 *gather;
	struct gembuf_pick *pick;
	gembuf_words_fn words;
	const struct gembuf_yuv_lut *lut;
	int gathered_y;
	int gathered;
	int line_y;
	int line_src;
	int src_y;
	int sx1;
	int sx2;
	int step;
	bool rgb32;
	bool opaque;
	bool plain;
	bool magnified;
	bool simd;
};

/* Every pixel of the plane hides what is below it, color key aside. */
static bool opaque_plane(const struct drm_plane_state *s)
{
	return s->alpha == DRM_BLEND_ALPHA_OPAQUE &&
	       (!s->fb->format->has_alpha ||
		s->pixel_blend_mode == DRM_MODE_BLEND_PIXEL_NONE);
}

/**
 * gembuf_pick_init() - the picking tables of a magnified plane's columns
 * @pick: a table for each whole %GEMBUF_SIMD_PIXELS of the @n columns
 * @xs: each column's source column, going one way by at most one
 * @n: the number of columns
 * @sx1: the plane's first source column shown, which @pick counts from
 * @sx2: the column after its last
 *
 * Each block's run of source words starts at the block's lowest column,
 * or earlier so that it ends within [@sx1, @sx2).
 *
 * Return: false, and @pick not to be used, if the plane has fewer source
 * columns than a run or a block spans more (which magnifying never does).
 */
VISIBLE_IF_KUNIT bool gembuf_pick_init(struct gembuf_pick *pick, const int *xs,
				       int n, int sx1, int sx2)
{
	int i, j, b, lo, hi;

	if (sx2 - sx1 < GEMBUF_SIMD_PIXELS)
		return false;
	for (i = 0; i + GEMBUF_SIMD_PIXELS <= n; i += GEMBUF_SIMD_PIXELS, pick++) {
		lo = min(xs[i], xs[i + GEMBUF_SIMD_PIXELS - 1]);
		hi = max(xs[i], xs[i + GEMBUF_SIMD_PIXELS - 1]);
		if (hi - lo >= GEMBUF_SIMD_PIXELS)
			return false;
		lo = min(lo, sx2 - GEMBUF_SIMD_PIXELS);
		pick->base = lo - sx1;
		for (j = 0; j < GEMBUF_SIMD_PIXELS; j++)
			for (b = 0; b < 4; b++)
				pick->bytes[4 * j + b] = 4 * (xs[i + j] - lo) + b;
	}
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(gembuf_pick_init);

static void layer_init(struct gembuf_layer *l,
		       const struct gembuf_plane_state *ps, int *xs,
		       __le32 *gather, struct gembuf_pick *pick)
{
	const struct drm_plane_state *s = &ps->base.base;
	u32 format = s->fb->format->format;
	int i, n = drm_rect_width(&s->dst);

	*l = (struct gembuf_layer){
		.ps = ps, .xs = xs, .gathered_y = -1, .line_y = -1, .src_y = -1,
		.plain = !transposed(s),
	};
	source_per_column(s, xs);
	l->sx1 = xs[0];
	l->sx2 = xs[0] + 1;
	if (n > 1 && abs(xs[1] - xs[0]) == 1)
		l->step = xs[1] - xs[0];
	for (i = 0; i < n; i++) {
		if (xs[i] != xs[0] + i)
			l->plain = false;
		if (xs[i] != xs[0] + i * l->step)
			l->step = 0;
		l->sx1 = min(l->sx1, xs[i]);
		l->sx2 = max(l->sx2, xs[i] + 1);
	}
	if (ps->colorkey_mask)
		return;
	if (format != DRM_FORMAT_XRGB8888 && format != DRM_FORMAT_ARGB8888) {
		if (transposed(s) || !opaque_plane(s))
			return;
		l->words = gembuf_format_words(format);
		if (!l->words)
			return;
		/* The source columns fit @gather: there are fewer than @n. */
		l->magnified = !l->plain && l->sx2 - l->sx1 < n;
		l->gather = gather;
		if (l->magnified && pick &&
		    gembuf_pick_init(pick, xs, n, l->sx1, l->sx2))
			l->pick = pick;
		if (s->fb->format->is_yuv)
			l->lut = gembuf_yuv_lut(s);
		return;
	}
	if (!l->plain)
		l->gather = gather;
	l->rgb32 = true;
	l->opaque = opaque_plane(s);
}

/*
 * Words @xs[0..@n) - @base of @row into @out, four a pass.  The arguments
 * are locals of the loop, which the compiler must otherwise reload after
 * every store, as the kernel's aliasing rules let a store to @out change
 * them.
 */
static void gather_row(__le32 *out, const __le32 *row, const int *xs,
		       int base, int n)
{
	int i;

	for (i = 0; i + 4 <= n; i += 4) {
		out[i] = row[xs[i] - base];
		out[i + 1] = row[xs[i + 1] - base];
		out[i + 2] = row[xs[i + 2] - base];
		out[i + 3] = row[xs[i + 3] - base];
	}
	for (; i < n; i++)
		out[i] = row[xs[i] - base];
}

/*
 * The word at @col of lines @xs[0..@n) into @out, @pitch bytes a line:
 * a column of a transposed plane.  With a @step (in lines, see
 * layer_init()), the lines are @xs[0] and every @step-th from it, and
 * the address only moves by that many bytes from word to word.
 */
static void gather_column(__le32 *out, const u8 *col, unsigned int pitch,
			  const int *xs, int step, int n)
{
	const u8 *p = col + xs[0] * pitch;
	ptrdiff_t stride = (ptrdiff_t)step * pitch;
	int i;

	if (!step) {
		for (i = 0; i < n; i++)
			out[i] = *(const __le32 *)(col + xs[i] * pitch);
		return;
	}
	/*
	 * Four words an iteration, at offsets from one address that moves
	 * only between two reads, never past the plane.
	 */
	out[0] = *(const __le32 *)p;
	for (i = 1; i + 4 <= n; i += 4) {
		out[i] = *(const __le32 *)(p + stride);
		out[i + 1] = *(const __le32 *)(p + 2 * stride);
		out[i + 2] = *(const __le32 *)(p + 3 * stride);
		p += 4 * stride;
		out[i + 3] = *(const __le32 *)p;
	}
	for (; i < n; i++) {
		p += stride;
		out[i] = *(const __le32 *)p;
	}
}

/*
 * Lines @y to @y + 3 of a transposed layer whose columns are read a
 * @l->step apart, when their source columns, from @col, go one way one
 * apart: gathered together into @l->gather, four words of four lines a
 * read, in SIMD where the CPU allows it.  False, and nothing gathered,
 * for lines that are not so.
 */
static bool gather_tile(struct gembuf_layer *l, int y, int col, int n)
{
	const struct drm_plane_state *s = &l->ps->base.base;
	unsigned int pitch = s->fb->pitches[0];
	const u8 *vaddr = l->ps->vaddr[0];
	int j, dir, bulk = 0;

	if (y + GEMBUF_TILE_LINES > s->dst.y2)
		return false;
	dir = source_per_line(s, y + 1) - col;
	if (dir != 1 && dir != -1)
		return false;
	for (j = 2; j < GEMBUF_TILE_LINES; j++)
		if (source_per_line(s, y + j) != col + j * dir)
			return false;
	if (gembuf_simd(l->simd) && n >= 4) {
		bulk = round_down(n, 4);
		gembuf_neon_gather_tile(l->gather, n,
					vaddr + l->xs[0] * pitch +
					min(col, col + 3 * dir) * sizeof(__le32),
					(ptrdiff_t)l->step * pitch, bulk, dir < 0);
	}
	for (j = 0; j < GEMBUF_TILE_LINES && bulk < n; j++)
		gather_column(l->gather + j * n + bulk,
			      vaddr + (col + j * dir) * sizeof(__le32), pitch,
			      l->xs + bulk, l->step, n - bulk);
	return true;
}

/* source_per_line() of layer @l, worked out once a line. */
static int layer_source(struct gembuf_layer *l, int y)
{
	if (l->line_y != y) {
		l->line_y = y;
		l->line_src = source_per_line(&l->ps->base.base, y);
	}
	return l->line_src;
}

/*
 * The words of line @y of an rgb32 layer, in destination order: read in
 * place, or gathered into the layer's own buffer, a line or (a rotated
 * plane's) four at a time, which the next gathering overwrites.
 */
static const __le32 *layer_words(struct gembuf_layer *l, int y)
{
	const struct drm_plane_state *s = &l->ps->base.base;
	unsigned int pitch = s->fb->pitches[0];
	int col, n = drm_rect_width(&s->dst);
	const __le32 *row;

	if (!l->gather)
		return (const __le32 *)(l->ps->vaddr[0] +
					layer_source(l, y) * pitch) + l->xs[0];
	if (l->gathered_y >= 0 && y >= l->gathered_y &&
	    y < l->gathered_y + l->gathered)
		return l->gather + (y - l->gathered_y) * n;
	l->gathered_y = y;
	l->gathered = 1;
	if (transposed(s)) {
		col = layer_source(l, y);
		if (l->step && gather_tile(l, y, col, n))
			l->gathered = GEMBUF_TILE_LINES;
		else
			gather_column(l->gather, l->ps->vaddr[0] + col * sizeof(__le32),
				      pitch, l->xs, l->step, n);
	} else {
		row = l->ps->vaddr[0] + layer_source(l, y) * pitch;
		gather_row(l->gather, row, l->xs, 0, n);
	}
	return l->gather;
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * gembuf_layer_line() - the words a 32-bit RGB plane shows on a line
 * @ps: the plane state: XRGB8888 or ARGB8888, no color key
 * @y: the destination line, within the plane's
 * @out: drm_rect_width(&@ps->base.base.dst) words
 *
 * What the composer reads of the plane for line @y, in place or gathered,
 * for the tests to hold against the plane's pixel at each destination
 * pixel's source point.
 *
 * Return: 0, -EINVAL for a plane of another format or with a color key,
 * or -ENOMEM.
 */
VISIBLE_IF_KUNIT int gembuf_layer_line(const struct gembuf_plane_state *ps,
				       int y, __le32 *out)
{
	int ret = -ENOMEM, n = drm_rect_width(&ps->base.base.dst);
	struct gembuf_layer l;
	__le32 *gather;
	int *xs;

	xs = kcalloc(n, sizeof(*xs), GFP_KERNEL);
	gather = kcalloc(n, GEMBUF_TILE_LINES * sizeof(*gather), GFP_KERNEL);
	if (xs && gather) {
		layer_init(&l, ps, xs, gather, NULL);
		ret = -EINVAL;
		if (l.rgb32) {
			l.simd = gembuf_simd_begin();
			memcpy(out, layer_words(&l, y), n * sizeof(*out));
			if (l.simd)
				gembuf_simd_end();
			ret = 0;
		}
	}
	kfree(gather);
	kfree(xs);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(gembuf_layer_line);
#endif

/**
 * struct gembuf_frame - what composing one frame takes, set up once a frame
 * @layers: the planes composed, bottom to top
 * @num_layers: their number
 * @width: the frame's width
 * @wide_out: the output needs the 16-bit line (gamma LUT, XRGB2101010
 *	writeback) even where no plane was blended
 * @words: a line as little-endian XRGB8888 words
 * @line: a line as composer pixels
 * @px: a plane's line as its reader gives it
 * @simd: the composer holds kernel-mode NEON for the frame
 */
struct gembuf_frame {
	struct gembuf_layer layers[GEMBUF_MAX_PLANES];
	unsigned int num_layers;
	int width;
	bool wide_out;
	__le32 *words;
	struct gembuf_pixel *line;
	struct gembuf_pixel *px;
	bool simd;
};

static bool on_line(const struct gembuf_layer *l, int y)
{
	return y >= l->ps->base.base.dst.y1 && y < l->ps->base.base.dst.y2;
}

/*
 * The opaque 32-bit RGB layers at the bottom of line @y, as @runs (@n of
 * them); a layer that is gathered is gathered whole, even where another
 * run hides it.  Return the index of the first layer on the line that is to be
 * blended onto them, @f->num_layers if none is.
 */
static unsigned int opaque_runs(struct gembuf_frame *f, int y,
				struct gembuf_run *runs, int *n)
{
	unsigned int i;

	*n = 0;
	for (i = 0; i < f->num_layers; i++) {
		struct gembuf_layer *l = &f->layers[i];
		const struct drm_rect *dst = &l->ps->base.base.dst;

		if (!on_line(l, y))
			continue;
		if (!l->opaque)
			break;
		runs[(*n)++] = (struct gembuf_run){
			.x1 = dst->x1,
			.x2 = dst->x2,
			.words = layer_words(l, y),
		};
	}
	return i;
}

/*
 * The columns [*@r1, *@r2) of line @y, from layer @first on, that need
 * 16-bit pixels (*@r1 >= *@r2 if none do): those of a layer with no
 * words path (rgb32 or a words reader), and those of a layer with one
 * that a layer above it on the line may cover.  Outside them a column
 * has at most one layer from @first on, blended onto the word laid below
 * and blended onto by nothing: its word is made directly.
 */
static void wide_span(const struct gembuf_frame *f, int y, unsigned int first,
		      int *r1, int *r2)
{
	unsigned int i, j;
	int a, b, h1, h2;

	*r1 = f->width;
	*r2 = 0;
	for (i = first; i < f->num_layers; i++) {
		const struct gembuf_layer *l = &f->layers[i];

		if (!on_line(l, y))
			continue;
		a = l->ps->base.base.dst.x1;
		b = l->ps->base.base.dst.x2;
		if (l->rgb32 || l->words) {
			h1 = f->width;
			h2 = 0;
			for (j = i + 1; j < f->num_layers; j++) {
				if (!on_line(&f->layers[j], y))
					continue;
				h1 = min(h1, f->layers[j].ps->base.base.dst.x1);
				h2 = max(h2, f->layers[j].ps->base.base.dst.x2);
			}
			a = max(a, h1);
			b = min(b, h2);
		}
		if (a >= b)
			continue;
		*r1 = min(*r1, a);
		*r2 = max(*r2, b);
	}
}

/*
 * Columns [@c1, @c2) of layer @l on line @y blended onto @f->line: the
 * plane's line read with one call of its reader (one a pixel for a
 * transposed plane; for a magnified one, each source column once, then
 * picked), then each pixel blended, or copied if the plane is opaque.
 */
static void blend_wide(struct gembuf_frame *f, struct gembuf_layer *l, int y,
		       int c1, int c2)
{
	const struct gembuf_plane_state *ps = l->ps;
	const struct drm_plane_state *s = &ps->base.base;
	int i, sx, lo, hi, off = c1 - s->dst.x1, n = c2 - c1;
	struct gembuf_pixel *line = f->line + c1, *px = f->px;
	bool opaque = opaque_plane(s) && !ps->colorkey_mask;
	const struct gembuf_pixel *p;
	const int *pick = NULL;

	if (l->rgb32) {
		gembuf_blend_rgb32_line(line, layer_words(l, y) + off, n, s,
					l->simd);
		return;
	}
	/* A magnified plane's columns go one way, at most one apart. */
	lo = min(l->xs[off], l->xs[off + n - 1]);
	hi = max(l->xs[off], l->xs[off + n - 1]) + 1;
	if (l->magnified && hi - lo <= n)
		pick = l->xs + off;
	/* An opaque plane's pixels replace the line's: read there. */
	else if (opaque)
		px = line;
	if (transposed(s)) {
		sx = layer_source(l, y);
		for (i = 0; i < n; i++)
			ps->read(ps->vaddr, s->fb, l->xs[off + i], &sx, 0, 1, s,
				 &px[i], l->simd);
	} else if (l->plain) {
		ps->read(ps->vaddr, s->fb, layer_source(l, y), NULL,
			 l->xs[off], n, s, px, l->simd);
	} else if (pick) {
		ps->read(ps->vaddr, s->fb, layer_source(l, y), NULL, lo,
			 hi - lo, s, px, l->simd);
	} else {
		ps->read(ps->vaddr, s->fb, layer_source(l, y), l->xs + off,
			 0, n, s, px, l->simd);
	}
	if (opaque) {
		for (i = 0; pick && i < n; i++)
			line[i] = px[pick[i] - lo];
		/* Opaque formats read so; others are opaque in mode None. */
		for (i = 0; s->fb->format->has_alpha && i < n; i++)
			line[i].a = 0xffff;
		return;
	}
	for (i = 0; i < n; i++) {
		p = pick ? &px[pick[i] - lo] : &px[i];
		if (!keyed_out(ps, p))
			blend_pixel(&line[i], p, s->alpha, s->pixel_blend_mode);
	}
}

/*
 * Columns [@c1, @c2) of layer @l on line @y, which has a words path, made
 * as final words in @f->words: copied or blended for rgb32, read as words
 * for an opaque plane of another format (a magnified one's source line
 * read once, then its words picked).
 */
static void blend_words(struct gembuf_frame *f, struct gembuf_layer *l, int y,
			int c1, int c2)
{
	const struct gembuf_plane_state *ps = l->ps;
	const struct drm_plane_state *s = &ps->base.base;
	int sy, head, bulk, off = c1 - s->dst.x1, n = c2 - c1;
	__le32 *dst = f->words + c1;
	const __le32 *src;

	if (l->rgb32) {
		src = layer_words(l, y) + off;
		if (l->opaque)
			memcpy(dst, src, n * sizeof(*dst));
		else
			gembuf_blend_rgb32_words(dst, src, n, s, l->simd);
		return;
	}
	sy = layer_source(l, y);
	if (l->plain) {
		l->words(ps->vaddr, s->fb, sy, NULL, l->xs[0] + off, n, l->lut,
			 dst, l->simd);
		return;
	}
	if (!l->magnified) {
		l->words(ps->vaddr, s->fb, sy, l->xs + off, 0, n, l->lut, dst,
			 l->simd);
		return;
	}
	if (l->src_y != sy) {
		l->words(ps->vaddr, s->fb, sy, NULL, l->sx1, l->sx2 - l->sx1,
			 l->lut, l->gather, l->simd);
		l->src_y = sy;
	}
	/* Up to a block of the table, then its blocks in SIMD, then the rest. */
	head = min(n, round_up(off, GEMBUF_SIMD_PIXELS) - off);
	bulk = round_down(n - head, GEMBUF_SIMD_PIXELS);
	if (!l->pick || !bulk || !gembuf_simd(l->simd)) {
		gather_row(dst, l->gather, l->xs + off, l->sx1, n);
		return;
	}
	gather_row(dst, l->gather, l->xs + off, l->sx1, head);
	gembuf_neon_pick_words(dst + head, l->gather,
			       l->pick + (off + head) / GEMBUF_SIMD_PIXELS, bulk);
	gather_row(dst + head + bulk, l->gather, l->xs + off + head + bulk,
		   l->sx1, n - head - bulk);
}

/* Blend the layers of line @y from @first on over @f->line, whole. */
static void blend_layers(struct gembuf_frame *f, int y, unsigned int first)
{
	unsigned int i;

	for (i = first; i < f->num_layers; i++) {
		struct gembuf_layer *l = &f->layers[i];

		if (on_line(l, y))
			blend_wide(f, l, y, l->ps->base.base.dst.x1,
				   l->ps->base.base.dst.x2);
	}
}

/* Clear the X bytes of words [@x1, @x2) of a line (8-byte aligned). */
static void clear_x_span(__le32 *words, int x1, int x2, bool simd)
{
	if (x1 >= x2)
		return;
	if (x1 & 1)
		words[x1++] &= cpu_to_le32(0xffffff);
	gembuf_clear_x_line(words + x1, x2 - x1, simd);
}

/*
 * Whether a layer of line @y from @first on hides columns [@x1, @x2)
 * whole: then what the 16-bit line held there before it does not matter,
 * and the words below need not be widened.
 */
static bool hidden_span(const struct gembuf_frame *f, int y,
			unsigned int first, int x1, int x2)
{
	const struct gembuf_layer *l;
	unsigned int i;

	for (i = first; i < f->num_layers; i++) {
		l = &f->layers[i];
		if (on_line(l, y) && l->ps->base.base.dst.x1 <= x1 &&
		    l->ps->base.base.dst.x2 >= x2 &&
		    opaque_plane(&l->ps->base.base) && !l->ps->colorkey_mask)
			return true;
	}
	return false;
}

/*
 * Line @y of @f->words, laid with its opaque runs, with the layers from
 * @first on blended onto it, for an output that takes words: the columns
 * of wide_span() through 16-bit pixels, the others straight as words.
 * The X bytes end as the 16-bit path leaves them: 0 wherever a layer from
 * @first on lies.  Narrowed pixels and the words readers' words have X 0
 * already; a 32-bit RGB layer's words are cleared once all are blended.
 */
static void compose_words(struct gembuf_frame *f, int y, unsigned int first)
{
	int r1, r2, a, b;
	unsigned int i;

	wide_span(f, y, first, &r1, &r2);
	if (r1 >= r2) {
		r1 = 0;
		r2 = 0;
	}
	if (!hidden_span(f, y, first, r1, r2))
		gembuf_widen_line(f->line + r1, f->words + r1, r2 - r1,
				  f->simd);
	for (i = first; i < f->num_layers; i++) {
		struct gembuf_layer *l = &f->layers[i];

		if (!on_line(l, y))
			continue;
		a = l->ps->base.base.dst.x1;
		b = l->ps->base.base.dst.x2;
		if (a < min(b, r1))
			blend_words(f, l, y, a, min(b, r1));
		if (max(a, r1) < min(b, r2))
			blend_wide(f, l, y, max(a, r1), min(b, r2));
		if (max(a, r2) < b)
			blend_words(f, l, y, max(a, r2), b);
	}
	gembuf_narrow_line(f->words + r1, f->line + r1, r2 - r1, f->simd);
	for (i = first; i < f->num_layers; i++) {
		struct gembuf_layer *l = &f->layers[i];

		if (!on_line(l, y) || !l->rgb32)
			continue;
		a = l->ps->base.base.dst.x1;
		b = l->ps->base.base.dst.x2;
		clear_x_span(f->words, a, min(b, r1), f->simd);
		clear_x_span(f->words, max(a, r2), b, f->simd);
	}
}

/* Whether a plane of the frame shows an object of its writeback buffer. */
static bool wb_shown(const struct gembuf_crtc_state *state,
		     struct gembuf_plane_state *const *planes)
{
	const struct drm_framebuffer *fb;
	unsigned int i, j, k;

	for (i = 0; i < state->num_planes; i++) {
		fb = planes[i]->base.base.fb;
		for (j = 0; j < fb->format->num_planes; j++)
			for (k = 0; k < state->wb_fb->format->num_planes; k++)
				if (fb->obj[j] && fb->obj[j] == state->wb_fb->obj[k])
					return true;
	}
	return false;
}

/*
 * Whether plane state @ps hides everything below it: an opaque plane
 * without a color key over the whole @width x @height frame.
 */
static bool hides_below(const struct gembuf_plane_state *ps, int width,
			int height)
{
	const struct drm_plane_state *s = &ps->base.base;

	return opaque_plane(s) && !ps->colorkey_mask && s->dst.x1 <= 0 &&
	       s->dst.y1 <= 0 && s->dst.x2 >= width && s->dst.y2 >= height;
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

/**
 * gembuf_lines_put() - drop a CRTC state's reference to line buffers
 * @lines: the buffers, or NULL
 */
void gembuf_lines_put(struct gembuf_lines *lines)
{
	if (lines && refcount_dec_and_test(&lines->ref)) {
		kvfree(lines->xs);
		kvfree(lines->words);
		kvfree(lines->px);
		kvfree(lines->line);
		kvfree(lines->pick);
		kfree(lines);
	}
}
EXPORT_SYMBOL_IF_KUNIT(gembuf_lines_put);

/**
 * gembuf_lines_alloc() - the line buffers for frames @width pixels wide
 * @width: the mode's width, at least 1
 *
 * Called from the CRTC's atomic_check, in the committing task, so that
 * composing a frame allocates nothing.
 *
 * Return: the buffers with one reference, or NULL without memory.
 */
struct gembuf_lines *gembuf_lines_alloc(int width)
{
	struct gembuf_lines *lines = kzalloc(sizeof(*lines), GFP_KERNEL);

	if (!lines)
		return NULL;
	refcount_set(&lines->ref, 1);
	lines->width = width;
	lines->line = kvmalloc_array(width, sizeof(*lines->line), GFP_KERNEL);
	lines->px = kvmalloc_array(width, sizeof(*lines->px), GFP_KERNEL);
	lines->words = kvmalloc_array(width, sizeof(*lines->words), GFP_KERNEL);
	/* Each plane's columns, then its gathered words, in one block. */
	lines->xs = kvmalloc_array(width * GEMBUF_MAX_PLANES,
				   sizeof(*lines->xs) +
				   GEMBUF_TILE_LINES * sizeof(*lines->gather),
				   GFP_KERNEL);
	lines->pick = kvmalloc_array(width / GEMBUF_SIMD_PIXELS * GEMBUF_MAX_PLANES,
				     sizeof(*lines->pick), GFP_KERNEL);
	if (!lines->line || !lines->px || !lines->words || !lines->xs ||
	    !lines->pick) {
		gembuf_lines_put(lines);
		return NULL;
	}
	lines->gather = (__le32 *)(lines->xs + width * GEMBUF_MAX_PLANES);
	return lines;
}
EXPORT_SYMBOL_IF_KUNIT(gembuf_lines_alloc);

/* Whether no composer run uses a CRTC state the output replaced. */
static bool composer_fresh(struct gembuf_output *out)
{
	bool fresh;

	spin_lock_irq(&out->lock);
	fresh = !out->composing || out->composing == out->composer_state;
	spin_unlock_irq(&out->lock);
	return fresh;
}

/**
 * gembuf_composer_wait_stale() - wait for a run on a replaced state
 * @out: the output
 *
 * A commit gives the composer its new CRTC state in atomic_flush; a run
 * that took the old one before may still read the old plane states'
 * framebuffers.  Their end of CPU access waits here for that run, at
 * most one frame, and does not wait for runs on the new state.
 */
void gembuf_composer_wait_stale(struct gembuf_output *out)
{
	wait_event(out->composer_idle, composer_fresh(out));
}

/**
 * gembuf_compose() - compose one frame of a CRTC state
 * @state: the CRTC state, with its line buffers and, if @wb, its
 *	writeback framebuffer
 * @planes: the @state->num_planes plane states to compose: @state->planes,
 *	or a copy of one of them that stays the same all through the frame
 *	(the cursor's: see frame_planes())
 * @crc_on: take the frame's CRC
 * @wb: store the frame into the writeback framebuffer
 *
 * Only planes whose CPU access began are read.  Allocates nothing.
 *
 * Return: the frame's CRC (CRC-32 of its XRGB8888 words, X bytes 0),
 * ~0 inverted if @crc_on is false.
 */
VISIBLE_IF_KUNIT u32 gembuf_compose(struct gembuf_crtc_state *state,
				    struct gembuf_plane_state *const *planes,
				    bool crc_on, bool wb)
{
	struct gembuf_lines *lines = state->lines;
	const struct drm_property_blob *gamma_lut;
	struct gembuf_frame f = {};
	struct gembuf_run runs[GEMBUF_MAX_PLANES];
	bool wb_words = false, wide, direct, in_place;
	/*
	 * The frame's CRC is CRC-32 as zlib and Ethernet take it: started
	 * at ~0 and inverted at the end, so that no frame of zero bytes (a
	 * black one) gets a CRC of 0, which igt reads as a dead CRC.
	 */
	u32 crc = ~0U;
	int height, y, n;
	unsigned int i, first;

	f.width = state->base.mode.hdisplay;
	height = state->base.mode.vdisplay;
	f.line = lines->line;
	f.px = lines->px;
	/*
	 * Planes under the topmost full-frame opaque one are not read at
	 * all, nor are planes whose CPU access did not begin (atomic_update
	 * said why): those are left out, as if off.
	 */
	for (first = 0, i = 0; i < state->num_planes; i++)
		if (planes[i]->cpu_access &&
		    hides_below(planes[i], f.width, height))
			first = i;
	for (i = first; i < state->num_planes; i++)
		if (planes[i]->cpu_access)
			layer_init(&f.layers[f.num_layers++], planes[i],
				   lines->xs + i * f.width,
				   lines->gather + i * f.width * GEMBUF_TILE_LINES,
				   lines->pick + i * (f.width / GEMBUF_SIMD_PIXELS));
	gamma_lut = state->base.gamma_lut;
	if (wb)
		wb_words = state->wb_fb->format->format == DRM_FORMAT_XRGB8888;
	f.wide_out = gamma_lut || (wb && !wb_words);

	/*
	 * Without a CRC or a gamma LUT, a line of opaque runs is laid
	 * straight into an XRGB8888 writeback buffer; and a line with planes
	 * blended onto them is composed there too (blending reads what it
	 * writes) if the buffer is mapped cached (reading write-combined
	 * memory is slow), its lines are 8-byte aligned as the line buffer
	 * is, and no plane shows it.
	 */
	direct = wb_words && !crc_on && !f.wide_out;
	in_place = direct && state->wb_cached &&
		   !((state->wb_fb->offsets[0] | state->wb_fb->pitches[0]) & 7) &&
		   !wb_shown(state, planes);

	/* One kernel-mode NEON section for the frame, where the CPU allows. */
	f.simd = gembuf_simd_begin();
	for (i = 0; i < f.num_layers; i++)
		f.layers[i].simd = f.simd;
	for (y = 0; y < height; y++) {
		i = opaque_runs(&f, y, runs, &n);
		wide = i < f.num_layers || f.wide_out;
		f.words = lines->words;
		if (direct && (!wide || in_place))
			f.words = state->wb_vaddr + state->wb_fb->offsets[0] +
				  y * state->wb_fb->pitches[0];
		gembuf_lay_runs(f.words, f.width, runs, n);
		if (wide && !f.wide_out) {
			/* The words keep the columns no blended plane covers. */
			compose_words(&f, y, i);
		} else if (wide) {
			gembuf_widen_line(f.line, f.words, f.width, f.simd);
			blend_layers(&f, y, i);
			if (gamma_lut)
				apply_gamma(f.line, f.width, gamma_lut);
			if (crc_on || wb_words)
				gembuf_narrow_line(f.words, f.line, f.width,
						   f.simd);
		}
		/* Stored before the CRC clears X: the same bytes either way. */
		if (wb_words && f.words == lines->words)
			gembuf_write_words(state->wb_fb, state->wb_vaddr, y,
					   f.words, f.width);
		else if (wb && !wb_words)
			gembuf_write_line(state->wb_fb, state->wb_vaddr, y,
					  f.line, f.width);
		if (crc_on && !f.wide_out)
			gembuf_clear_x_line(f.words, f.width, f.simd);
		if (crc_on)
			crc = crc32_le(crc, (u8 *)f.words,
				       f.width * sizeof(*f.words));
	}
	if (f.simd)
		gembuf_simd_end();
	return ~crc;
}
EXPORT_SYMBOL_IF_KUNIT(gembuf_compose);

/*
 * The plane states a frame of @state is composed from: @state's own, but
 * for the cursor's, which an asynchronous move changes in place
 * (gembuf_cursor_async_update(), under @out->lock): that one is copied
 * into @cursor here, once, under the same lock, so that the whole frame
 * shows the cursor where it was when the frame began, and a move made
 * while the frame is composed shows in the next one.  The copy lasts the
 * frame; the state it was taken from outlives the run as @state does.
 */
static void frame_planes(struct gembuf_output *out,
			 struct gembuf_crtc_state *state,
			 struct gembuf_plane_state **planes,
			 struct gembuf_plane_state *cursor)
{
	unsigned int i;

	lockdep_assert_held(&out->lock);
	for (i = 0; i < state->num_planes; i++) {
		planes[i] = state->planes[i];
		if (planes[i]->base.base.plane == out->cursor) {
			*cursor = *planes[i];
			planes[i] = cursor;
		}
	}
}

/**
 * gembuf_composer_work() - compose one frame
 * @work: &gembuf_output.composer_work
 *
 * It allocates nothing (the line buffers come with the CRTC state),
 * waits for no fence and begins no CPU access: the planes' framebuffers
 * are mapped by the commit (begin_fb_access) and their CPU access begun
 * in its tail, after its fences (the planes' atomic_update).  A plane
 * whose CPU access did not begin is not read, as if it were off.  The
 * writeback buffer is gembuf's own memory (the connector refuses
 * others'), with no exporter to call.
 *
 * The writeback out-fence and the CRC depend on it, so it is one fence
 * signalling critical section (dma_fence_begin_signalling()): nothing in
 * it may allocate memory that reclaim could need a fence for, nor take a
 * lock held while waiting for a fence.  It takes no lock but
 * &gembuf_output.lock, a spinlock, for its start and end.
 */
void gembuf_composer_work(struct work_struct *work)
{
	struct gembuf_output *out = container_of(work, struct gembuf_output,
						 composer_work);
	struct gembuf_plane_state *planes[GEMBUF_MAX_PLANES], cursor;
	struct gembuf_crtc_state *state;
	struct gembuf_lines *lines;
	bool crc_on, wb, fence_cookie;
	u32 crc;
	int ret = 0;
	u64 frame, frame_end, start = ktime_get_ns();

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
	if (state && (crc_on || wb)) {
		out->composing = state;
		frame_planes(out, state, planes, &cursor);
	}
	spin_unlock_irq(&out->lock);
	if (!state || (!crc_on && !wb))
		return;

	fence_cookie = dma_fence_begin_signalling();
	/* atomic_check gave every active state buffers of its width. */
	lines = state->lines;
	if (WARN_ON_ONCE(!lines || lines->width != state->base.mode.hdisplay)) {
		ret = -EINVAL;
		goto out;
	}
	/* A frame the composer could not make (the fault attribute). */
	if (should_fail(&gembuf_fail_compose, 1)) {
		ret = -EIO;
		goto out;
	}
	crc = gembuf_compose(state, planes, crc_on, wb);
	atomic64_add(ktime_get_ns() - start, &out->compose_ns);
	atomic64_inc(&out->frames_composed);
	/* Frames the composer fell behind on showed this same picture. */
	while (crc_on && frame <= frame_end)
		drm_crtc_add_crc_entry(&out->crtc, true, frame++, &crc);
out:
	if (wb) {
		drm_writeback_signal_completion(&out->wb, ret);
		drm_crtc_vblank_put(&out->crtc);
	}
	dma_fence_end_signalling(fence_cookie);
	spin_lock_irq(&out->lock);
	out->composing = NULL;
	spin_unlock_irq(&out->lock);
	wake_up_all(&out->composer_idle);
}
