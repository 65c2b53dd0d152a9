// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of gembuf's composer's line paths for 32-bit RGB planes,
 * against the per-pixel path (the format's reader and gembuf_blend()) on
 * pseudo-random lines: they must give the same pixels, bit for bit.
 * Lines of words are little-endian, as framebuffers hold them, so the
 * tests hold on a big-endian kernel too.
 */

#include <drm/drm_blend.h>
#include <drm/drm_color_mgmt.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_gem.h>
#include <drm/drm_plane.h>
#include <drm/drm_rect.h>
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/crc32.h>
#include <linux/prandom.h>

#include "../gembuf_kms.h"
#include "../gembuf_simd.h"

/*
 * The line paths against the per-pixel path.  Lines are pseudo-random
 * from a fixed seed, printed so a failure can be replayed; alpha bytes
 * take the edge values in turn (every sixth pixel a random one), and a
 * seventh of the pixels have no color, as premultiplied transparent
 * pixels have.  Colors above alpha (invalid premultiplied pixels) come
 * too: they saturate, the same on both paths.
 */
#define LINE_SEED	0x67656d627566ULL
#define LINE_LEN	1000

static const u8 edge_alphas[] = { 0, 1, 0x80, 0xfe, 0xff };
static const u16 edge_plane_alphas[] = { 0, 1, 0x8000, 0xfffe, 0xffff };
static const u16 blend_modes[] = {
	DRM_MODE_BLEND_PIXEL_NONE, DRM_MODE_BLEND_PREMULTI, DRM_MODE_BLEND_COVERAGE,
};

/*
 * Whether the SIMD loops run here (gembuf_simd.h): said in each case that
 * holds them against the scalar ones, since without them the "SIMD" pass
 * is the scalar loop again.
 */
static void say_simd(struct kunit *test)
{
	bool simd = gembuf_simd_begin();

	if (simd)
		gembuf_simd_end();
	kunit_info(test, "SIMD loops: %s\n",
		   simd ? "NEON" : "none here, the scalar loops twice");
}

/*
 * Kernel-mode NEON around a call that may run its SIMD loop, where @want
 * and the CPU allows it: the composer holds it for a whole frame, the
 * tests for the call alone (no KUnit assertion runs inside).
 */
static bool simd_begin(bool want)
{
	return want && gembuf_simd_begin();
}

static void simd_end(bool on)
{
	if (on)
		gembuf_simd_end();
}

static struct rnd_state *line_rnd(struct kunit *test)
{
	struct rnd_state *rnd = kunit_kzalloc(test, sizeof(*rnd), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rnd);
	prandom_seed_state(rnd, LINE_SEED);
	kunit_info(test, "seed %#llx\n", LINE_SEED);
	return rnd;
}

static void random_words(struct rnd_state *rnd, __le32 *words, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		u32 v = prandom_u32_state(rnd);
		u32 a = i % 6 < 5 ? edge_alphas[i % 6] : v >> 24;

		words[i] = cpu_to_le32(a << 24 | (i % 7 ? v & 0xffffff : 0));
	}
}

/* Opaque pixels, as every pixel of a line below a plane is. */
static void random_pixels(struct rnd_state *rnd, struct gembuf_pixel *line,
			  int n)
{
	int i;

	for (i = 0; i < n; i++) {
		u32 v = prandom_u32_state(rnd), w = prandom_u32_state(rnd);

		line[i] = (struct gembuf_pixel){
			.a = 0xffff, .r = v, .g = v >> 16, .b = w,
		};
	}
}

/*
 * What the composer does with a plane it has no line path for: read the
 * run with the format's reader, then gembuf_blend() each pixel.
 */
static void per_pixel_line(struct kunit *test, struct gembuf_pixel *line,
			   const __le32 *src, int n,
			   const struct drm_plane_state *s)
{
	void *planes[DRM_FORMAT_MAX_PLANES] = { (void *)src };
	gembuf_read_fn read = gembuf_format_reader(s->fb->format->format);
	struct gembuf_pixel *px = kunit_kcalloc(test, n, sizeof(*px), GFP_KERNEL);
	int *xs = kunit_kcalloc(test, n, sizeof(*xs), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, px);
	KUNIT_ASSERT_NOT_NULL(test, xs);
	for (i = 0; i < n; i++)
		xs[i] = i;
	read(planes, s->fb, 0, xs, 0, n, s, px, false);
	for (i = 0; i < n; i++)
		gembuf_blend(&line[i], &px[i], s->alpha, s->pixel_blend_mode);
	kunit_kfree(test, xs);
	kunit_kfree(test, px);
}

/* The first pixel where two lines differ, or -1. */
static int first_difference(const struct gembuf_pixel *a,
			    const struct gembuf_pixel *b, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (memcmp(&a[i], &b[i], sizeof(*a)))
			return i;
	return -1;
}

/*
 * gembuf_blend_rgb32_line() against the per-pixel path for @n pixels of
 * @src over @below, in format @format, blend mode @mode, plane alpha
 * @alpha: in scalar, then in SIMD.  Return whether they agree.
 */
static bool check_rgb32_blend(struct kunit *test, u32 format, u16 mode,
			      u16 alpha, const __le32 *src,
			      const struct gembuf_pixel *below, int n)
{
	struct drm_framebuffer fb = {
		.format = drm_format_info(format),
		.width = n,
		.height = 1,
		.pitches = { n * 4 },
	};
	struct drm_plane_state s = {
		.fb = &fb,
		.alpha = alpha,
		.pixel_blend_mode = mode,
	};
	size_t size = n * sizeof(*below);
	struct gembuf_pixel *want = kunit_kmalloc(test, size, GFP_KERNEL);
	struct gembuf_pixel *got = kunit_kmalloc(test, size, GFP_KERNEL);
	int i = -1, simd;
	bool on;

	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, got);
	memcpy(want, below, size);
	per_pixel_line(test, want, src, n, &s);
	for (simd = 0; simd < 2 && i < 0; simd++) {
		memcpy(got, below, size);
		on = simd_begin(simd);
		gembuf_blend_rgb32_line(got, src, n, &s, on);
		simd_end(on);
		i = first_difference(got, want, n);
		if (i >= 0)
			KUNIT_FAIL(test,
				   "%s: %p4cc mode %u alpha %#x, pixel %d %08x over %04x %04x %04x: got %04x %04x %04x %04x, want %04x %04x %04x %04x",
				   simd ? "SIMD" : "scalar", &format, mode, alpha,
				   i, le32_to_cpu(src[i]), below[i].r,
				   below[i].g, below[i].b, got[i].a, got[i].r,
				   got[i].g, got[i].b, want[i].a, want[i].r,
				   want[i].g, want[i].b);
	}
	kunit_kfree(test, got);
	kunit_kfree(test, want);
	return i < 0;
}

/*
 * Blending a 32-bit RGB line: XRGB8888 and ARGB8888, every blend mode,
 * the edge plane alphas, over random opaque pixels.
 */
static void gembuf_test_blend_rgb32_line(struct kunit *test)
{
	static const u32 formats[] = { DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888 };
	struct rnd_state *rnd = line_rnd(test);
	__le32 *src = kunit_kcalloc(test, LINE_LEN, sizeof(*src), GFP_KERNEL);
	struct gembuf_pixel *below = kunit_kcalloc(test, LINE_LEN, sizeof(*below),
						   GFP_KERNEL);
	unsigned int f, m, a;

	say_simd(test);
	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_NOT_NULL(test, below);
	for (f = 0; f < ARRAY_SIZE(formats); f++)
		for (m = 0; m < ARRAY_SIZE(blend_modes); m++)
			for (a = 0; a < ARRAY_SIZE(edge_plane_alphas); a++) {
				random_words(rnd, src, LINE_LEN);
				random_pixels(rnd, below, LINE_LEN);
				check_rgb32_blend(test, formats[f], blend_modes[m],
						  edge_plane_alphas[a], src, below,
						  LINE_LEN);
			}
}

/*
 * Blending ARGB8888 densely: every alpha byte against plane alphas
 * 0x7f apart from 0 to 0xffff (and 0xffff), in every blend mode, each
 * pixel with random colors over a random opaque pixel.
 */
static void gembuf_test_blend_rgb32_sweep(struct kunit *test)
{
	struct rnd_state *rnd = line_rnd(test);
	__le32 *src = kunit_kcalloc(test, 256, sizeof(*src), GFP_KERNEL);
	struct gembuf_pixel *below = kunit_kcalloc(test, 256, sizeof(*below),
						   GFP_KERNEL);
	unsigned int m, alpha, i;

	say_simd(test);
	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_NOT_NULL(test, below);
	for (m = 0; m < ARRAY_SIZE(blend_modes); m++) {
		for (alpha = 0; alpha <= 0xffff + 0x7e; alpha += 0x7f) {
			for (i = 0; i < 256; i++)
				src[i] = cpu_to_le32(i << 24 |
						     (prandom_u32_state(rnd) & 0xffffff));
			random_pixels(rnd, below, 256);
			if (!check_rgb32_blend(test, DRM_FORMAT_ARGB8888,
					       blend_modes[m], min(alpha, 0xffffU),
					       src, below, 256))
				return;
		}
	}
}

/*
 * gembuf_blend_rgb32_words() of @n words of @src over the words @below,
 * in scalar and in SIMD, against the per-pixel path: @below widened, the
 * plane blended onto it pixel by pixel, narrowed.  The scalar words must
 * have the per-pixel path's colors; the SIMD words must be the scalar
 * ones, X bytes too.  Return whether they agree.
 */
static bool check_rgb32_words(struct kunit *test, u32 format, u16 mode,
			      u16 alpha, const __le32 *src,
			      const __le32 *below, int n)
{
	struct drm_framebuffer fb = {
		.format = drm_format_info(format),
		.width = n,
		.height = 1,
		.pitches = { n * 4 },
	};
	struct drm_plane_state s = {
		.fb = &fb,
		.alpha = alpha,
		.pixel_blend_mode = mode,
	};
	struct gembuf_pixel *line = kunit_kcalloc(test, n, sizeof(*line),
						  GFP_KERNEL);
	__le32 *want = kunit_kcalloc(test, n, sizeof(*want), GFP_KERNEL);
	__le32 *scalar = kunit_kcalloc(test, n, sizeof(*scalar), GFP_KERNEL);
	__le32 *simd = kunit_kcalloc(test, n, sizeof(*simd), GFP_KERNEL);
	bool ok = true;
	int i;
	bool on;

	KUNIT_ASSERT_NOT_NULL(test, line);
	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, scalar);
	KUNIT_ASSERT_NOT_NULL(test, simd);
	gembuf_widen_line(line, below, n, false);
	per_pixel_line(test, line, src, n, &s);
	gembuf_narrow_line(want, line, n, false);
	memcpy(scalar, below, n * sizeof(*below));
	memcpy(simd, below, n * sizeof(*below));
	gembuf_blend_rgb32_words(scalar, src, n, &s, false);
	on = simd_begin(true);
	gembuf_blend_rgb32_words(simd, src, n, &s, on);
	simd_end(on);
	for (i = 0; i < n && ok; i++) {
		if ((le32_to_cpu(scalar[i]) & 0xffffff) != le32_to_cpu(want[i])) {
			KUNIT_FAIL(test,
				   "%p4cc mode %u alpha %#x, pixel %d %08x over %08x: scalar %08x, want %08x",
				   &format, mode, alpha, i, le32_to_cpu(src[i]),
				   le32_to_cpu(below[i]), le32_to_cpu(scalar[i]),
				   le32_to_cpu(want[i]));
			ok = false;
		} else if (simd[i] != scalar[i]) {
			KUNIT_FAIL(test,
				   "%p4cc mode %u alpha %#x, pixel %d %08x over %08x: SIMD %08x, scalar %08x",
				   &format, mode, alpha, i, le32_to_cpu(src[i]),
				   le32_to_cpu(below[i]), le32_to_cpu(simd[i]),
				   le32_to_cpu(scalar[i]));
			ok = false;
		}
	}
	kunit_kfree(test, simd);
	kunit_kfree(test, scalar);
	kunit_kfree(test, want);
	kunit_kfree(test, line);
	return ok;
}

/*
 * The words path of 32-bit RGB planes (gembuf_blend_rgb32_words()), in
 * scalar and in SIMD: both formats, every blend mode, plane alphas 0x7f
 * apart from 0 to 0xffff (and 0xffff), over random words.  The first 256
 * pixels of a line take every alpha byte, with random colors; the rest
 * are random_words()' (edge alphas, colorless pixels), and the length is
 * no multiple of %GEMBUF_SIMD_PIXELS, so the scalar loop ends each line.
 */
static void gembuf_test_blend_rgb32_words(struct kunit *test)
{
	static const u32 formats[] = { DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888 };
	const int n = 256 + 2 * GEMBUF_SIMD_PIXELS - 1;
	struct rnd_state *rnd = line_rnd(test);
	__le32 *src = kunit_kcalloc(test, n, sizeof(*src), GFP_KERNEL);
	__le32 *below = kunit_kcalloc(test, n, sizeof(*below), GFP_KERNEL);
	unsigned int f, m, alpha, i;

	say_simd(test);
	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_NOT_NULL(test, below);
	for (f = 0; f < ARRAY_SIZE(formats); f++)
		for (m = 0; m < ARRAY_SIZE(blend_modes); m++)
			for (alpha = 0; alpha <= 0xffff + 0x7e; alpha += 0x7f) {
				random_words(rnd, src, n);
				for (i = 0; i < 256; i++)
					src[i] = cpu_to_le32(i << 24 |
							     (prandom_u32_state(rnd) & 0xffffff));
				prandom_bytes_state(rnd, below, n * sizeof(*below));
				if (!check_rgb32_words(test, formats[f],
						       blend_modes[m],
						       min(alpha, 0xffffU), src,
						       below, n))
					return;
			}
}

/*
 * Opaque 32-bit RGB planes laid on a line of words as runs, then
 * widened, give what the per-pixel path gives over the black background;
 * the words, X bytes cleared, are what the CRC was taken over and what
 * an XRGB8888 writeback stored for that line, so both stay the same.
 * Every channel value comes by.
 */
static void gembuf_test_rgb32_words(struct kunit *test)
{
	static const struct { u32 format; u16 mode; } opaque[] = {
		{ DRM_FORMAT_XRGB8888, DRM_MODE_BLEND_PREMULTI },
		{ DRM_FORMAT_XRGB8888, DRM_MODE_BLEND_COVERAGE },
		{ DRM_FORMAT_ARGB8888, DRM_MODE_BLEND_PIXEL_NONE },
	};
	struct rnd_state *rnd = line_rnd(test);
	struct drm_framebuffer fb = {
		.format = drm_format_info(DRM_FORMAT_XRGB8888),
		.pitches = { LINE_LEN * 4 },
	};
	struct drm_framebuffer src_fb = { .width = LINE_LEN, .height = 1 };
	struct drm_plane_state s = {
		.fb = &src_fb,
		.alpha = DRM_BLEND_ALPHA_OPAQUE,
	};
	struct gembuf_run runs[ARRAY_SIZE(opaque)];
	__le32 *words = kunit_kcalloc(test, LINE_LEN, sizeof(*words), GFP_KERNEL);
	__le32 *stored = kunit_kcalloc(test, LINE_LEN, sizeof(*stored), GFP_KERNEL);
	struct gembuf_pixel *want = kunit_kcalloc(test, LINE_LEN, sizeof(*want),
						  GFP_KERNEL);
	struct gembuf_pixel *got = kunit_kcalloc(test, LINE_LEN, sizeof(*got),
						 GFP_KERNEL);
	unsigned int i, j;
	bool on;

	KUNIT_ASSERT_NOT_NULL(test, words);
	KUNIT_ASSERT_NOT_NULL(test, stored);
	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, got);
	for (i = 0; i < LINE_LEN; i++)
		want[i] = (struct gembuf_pixel){ .a = 0xffff };
	/* Three planes: the whole line, then two runs on top of it. */
	for (j = 0; j < ARRAY_SIZE(opaque); j++) {
		int x = 37 * j, n = j ? 300 : LINE_LEN;
		__le32 *src = kunit_kcalloc(test, n, sizeof(*src), GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, src);
		random_words(rnd, src, n);
		/* Every channel value, where no run covers the first plane. */
		if (!j)
			for (i = 0; i < 256; i++)
				src[LINE_LEN - 256 + i] =
					cpu_to_le32(0xa5000000 | i * 0x010101);
		src_fb.format = drm_format_info(opaque[j].format);
		src_fb.pitches[0] = n * 4;
		s.pixel_blend_mode = opaque[j].mode;
		per_pixel_line(test, want + x, src, n, &s);
		runs[j] = (struct gembuf_run){ .x1 = x, .x2 = x + n, .words = src };
	}
	gembuf_lay_runs(words, LINE_LEN, runs, ARRAY_SIZE(runs));
	/* Widened, cleared and narrowed by the SIMD loops where there are. */
	on = simd_begin(true);
	gembuf_widen_line(got, words, LINE_LEN, on);
	gembuf_clear_x_line(words, LINE_LEN, on);
	gembuf_narrow_line(stored, want, LINE_LEN, on);
	simd_end(on);
	KUNIT_EXPECT_EQ(test, first_difference(got, want, LINE_LEN), -1);
	KUNIT_EXPECT_MEMEQ(test, words, stored, LINE_LEN * sizeof(*words));
	gembuf_write_line(&fb, stored, 0, want, LINE_LEN);
	KUNIT_EXPECT_MEMEQ(test, words, stored, LINE_LEN * sizeof(*words));
}

/*
 * Runs laid at once are the runs copied one after the other, bottom to
 * top, over black: random runs, some empty, some at either end of the
 * line, some hidden, some leaving gaps; nothing past the line is written.
 */
static void gembuf_test_lay_runs(struct kunit *test)
{
	struct rnd_state *rnd = line_rnd(test);
	struct gembuf_run runs[GEMBUF_MAX_PLANES];
	__le32 *src = kunit_kcalloc(test, GEMBUF_MAX_PLANES * LINE_LEN,
				    sizeof(*src), GFP_KERNEL);
	__le32 *got = kunit_kcalloc(test, LINE_LEN + 1, sizeof(*got), GFP_KERNEL);
	__le32 *want = kunit_kcalloc(test, LINE_LEN, sizeof(*want), GFP_KERNEL);
	int round, n, j, a, b, width;

	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_ASSERT_NOT_NULL(test, want);
	random_words(rnd, src, GEMBUF_MAX_PLANES * LINE_LEN);
	for (round = 0; round < 1000; round++) {
		width = LINE_LEN - prandom_u32_state(rnd) % 2;
		n = prandom_u32_state(rnd) % (GEMBUF_MAX_PLANES + 1);
		memset(want, 0, LINE_LEN * sizeof(*want));
		memset(got, 0x5a, (LINE_LEN + 1) * sizeof(*got));
		for (j = 0; j < n; j++) {
			a = prandom_u32_state(rnd) % (width + 1);
			b = prandom_u32_state(rnd) % (width + 1);
			if (a > b)
				swap(a, b);
			switch (prandom_u32_state(rnd) % 4) {
			case 0:
				a = 0;
				break;
			case 1:
				b = width;
				break;
			}
			runs[j] = (struct gembuf_run){
				.x1 = a, .x2 = b, .words = src + j * LINE_LEN,
			};
			memcpy(want + a, runs[j].words, (b - a) * sizeof(*want));
		}
		gembuf_lay_runs(got, width, runs, n);
		KUNIT_ASSERT_MEMEQ_MSG(test, got, want, width * sizeof(*got),
				       "round %d, %d runs", round, n);
		KUNIT_ASSERT_EQ(test, le32_to_cpu(got[width]), 0x5a5a5a5a);
	}
}

/*
 * A line of words widened to 16 bits (each channel c * 0x101, opaque)
 * and narrowed back gives the words with X 0, at every length up to 40
 * and near LINE_LEN: the scalar loop alone, then SIMD blocks and a
 * tail where the CPU has them; neither writes past the line.
 */
static void gembuf_test_widen_line(struct kunit *test)
{
	struct rnd_state *rnd = line_rnd(test);
	__le32 *words = kunit_kcalloc(test, LINE_LEN, sizeof(*words), GFP_KERNEL);
	__le32 *back = kunit_kcalloc(test, LINE_LEN + 1, sizeof(*back), GFP_KERNEL);
	struct gembuf_pixel *line = kunit_kcalloc(test, LINE_LEN + 1, sizeof(*line),
						  GFP_KERNEL);
	struct gembuf_pixel want;
	int n, i;
	bool on;
	u32 v;

	KUNIT_ASSERT_NOT_NULL(test, words);
	KUNIT_ASSERT_NOT_NULL(test, back);
	KUNIT_ASSERT_NOT_NULL(test, line);
	say_simd(test);
	for (n = 0; n <= LINE_LEN; n = n < 40 ? n + 1 : max(n + 1, LINE_LEN - 3)) {
		random_words(rnd, words, LINE_LEN);
		line[n] = (struct gembuf_pixel){ 1, 2, 3, 4 };
		back[n] = cpu_to_le32(0x5a5a5a5a);
		on = simd_begin(true);
		gembuf_widen_line(line, words, n, on);
		gembuf_narrow_line(back, line, n, on);
		simd_end(on);
		for (i = 0; i < n; i++) {
			v = le32_to_cpu(words[i]);
			want = (struct gembuf_pixel){
				.a = 0xffff,
				.r = (v >> 16 & 0xff) * 0x101,
				.g = (v >> 8 & 0xff) * 0x101,
				.b = (v & 0xff) * 0x101,
			};
			KUNIT_ASSERT_EQ_MSG(test, memcmp(&line[i], &want, sizeof(want)), 0,
					    "%d pixels: pixel %d of %08x", n, i, v);
			KUNIT_ASSERT_EQ_MSG(test, le32_to_cpu(back[i]), v & 0xffffff,
					    "%d pixels: word %d", n, i);
		}
		KUNIT_ASSERT_EQ(test, line[n].a, 1);
		KUNIT_ASSERT_EQ(test, le32_to_cpu(back[n]), 0x5a5a5a5a);
	}
}

/* The X bytes of every word are cleared, odd counts included, and no more. */
static void gembuf_test_clear_x_line(struct kunit *test)
{
	struct rnd_state *rnd = line_rnd(test);
	__le32 *got = kunit_kcalloc(test, LINE_LEN + 1, sizeof(*got), GFP_KERNEL);
	__le32 *want = kunit_kcalloc(test, LINE_LEN + 1, sizeof(*want), GFP_KERNEL);
	int n, i;
	bool on;

	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_ASSERT_NOT_NULL(test, want);
	say_simd(test);
	/* Short lines (the scalar loop alone), then SIMD blocks and a tail. */
	for (n = 0; n <= LINE_LEN; n = n < 40 ? n + 1 : max(n + 1, LINE_LEN - 3)) {
		random_words(rnd, got, LINE_LEN + 1);
		for (i = 0; i <= LINE_LEN; i++)
			want[i] = i < n ? got[i] & cpu_to_le32(0xffffff) : got[i];
		on = simd_begin(true);
		gembuf_clear_x_line(got, n, on);
		simd_end(on);
		KUNIT_ASSERT_MEMEQ_MSG(test, got, want,
				       (LINE_LEN + 1) * sizeof(*got), "%d words", n);
	}
}

/*
 * What the composer reads of a 32-bit RGB plane, in place or gathered, is
 * the plane's pixel at each destination pixel's source point: every
 * rotation, with either reflection, both or none, shown at its size,
 * scaled up and down, from the whole 13x7 framebuffer (each pixel its own
 * word) and from a rectangle inside it.
 */
static void gembuf_test_layer_line(struct kunit *test)
{
	static const unsigned int rotations[] = {
		DRM_MODE_ROTATE_0, DRM_MODE_ROTATE_90, DRM_MODE_ROTATE_180,
		DRM_MODE_ROTATE_270,
	};
	static const struct { int num, den; } scales[] = {
		{ 1, 1 }, { 3, 2 }, { 2, 3 }, { 5, 1 },
	};
	static const unsigned int reflections[] = {
		0, DRM_MODE_REFLECT_X, DRM_MODE_REFLECT_Y,
		DRM_MODE_REFLECT_X | DRM_MODE_REFLECT_Y,
	};
	/* The whole framebuffer, and 9x5 pixels from (2,1). */
	static const struct drm_rect srcs[] = {
		{ 0, 0, 13, 7 }, { 2, 1, 11, 6 },
	};
	const int fw = 13, fh = 7;
	struct drm_framebuffer fb = {
		.format = drm_format_info(DRM_FORMAT_XRGB8888),
		.width = fw, .height = fh, .pitches = { fw * 4 },
	};
	struct gembuf_plane_state ps = {
		.base.base = { .fb = &fb, .alpha = DRM_BLEND_ALPHA_OPAQUE },
	};
	__le32 *pixels = kunit_kcalloc(test, fw * fh, sizeof(*pixels), GFP_KERNEL);
	__le32 *got = kunit_kcalloc(test, 5 * fw, sizeof(*got), GFP_KERNEL);
	const unsigned int nr = ARRAY_SIZE(reflections), ns = ARRAY_SIZE(scales);
	unsigned int c, k;
	int i, x, y, w, h, sx, sy;

	KUNIT_ASSERT_NOT_NULL(test, pixels);
	KUNIT_ASSERT_NOT_NULL(test, got);
	for (i = 0; i < fw * fh; i++)
		pixels[i] = cpu_to_le32(0x5a000000 | i);
	ps.vaddr[0] = pixels;
	/* Each rotation, each reflection, each scale, each source. */
	for (c = 0; c < ARRAY_SIZE(rotations) * nr * ns * ARRAY_SIZE(srcs); c++) {
		const struct drm_rect *src = &srcs[c % ARRAY_SIZE(srcs)];
		struct drm_plane_state *s = &ps.base.base;
		int rw = drm_rect_width(src), rh = drm_rect_height(src);
		bool t;

		k = c / ARRAY_SIZE(srcs) % ns;
		s->rotation = rotations[c / ARRAY_SIZE(srcs) / ns / nr] |
			      reflections[c / ARRAY_SIZE(srcs) / ns % nr];
		t = s->rotation & (DRM_MODE_ROTATE_90 | DRM_MODE_ROTATE_270);
		w = (t ? rh : rw) * scales[k].num / scales[k].den;
		h = (t ? rw : rh) * scales[k].num / scales[k].den;
		s->src = (struct drm_rect){ src->x1 << 16, src->y1 << 16,
					    src->x2 << 16, src->y2 << 16 };
		s->dst = (struct drm_rect){ 3, 2, 3 + w, 2 + h };
		for (y = s->dst.y1; y < s->dst.y2; y++) {
			KUNIT_ASSERT_EQ(test, gembuf_layer_line(&ps, y, got), 0);
			for (x = s->dst.x1; x < s->dst.x2; x++) {
				gembuf_source_point(s, x, y, &sx, &sy);
				sx = clamp(sx, 0, fw - 1);
				sy = clamp(sy, 0, fh - 1);
				KUNIT_ASSERT_EQ_MSG(test, le32_to_cpu(got[x - s->dst.x1]),
						    le32_to_cpu(pixels[sy * fw + sx]),
						    "rotation %#x, %dx%d, at (%d,%d)",
						    s->rotation, w, h, x, y);
			}
		}
	}
}

/* A 16-bit line's words are what an XRGB8888 writeback stores of it. */
static void gembuf_test_narrow_line(struct kunit *test)
{
	struct rnd_state *rnd = line_rnd(test);
	struct drm_framebuffer fb = {
		.format = drm_format_info(DRM_FORMAT_XRGB8888),
		.pitches = { LINE_LEN * 4 },
	};
	__le32 *words = kunit_kcalloc(test, LINE_LEN, sizeof(*words), GFP_KERNEL);
	__le32 *stored = kunit_kcalloc(test, LINE_LEN, sizeof(*stored), GFP_KERNEL);
	struct gembuf_pixel *line = kunit_kcalloc(test, LINE_LEN, sizeof(*line),
						  GFP_KERNEL);
	bool on;

	KUNIT_ASSERT_NOT_NULL(test, words);
	KUNIT_ASSERT_NOT_NULL(test, stored);
	KUNIT_ASSERT_NOT_NULL(test, line);
	say_simd(test);
	random_pixels(rnd, line, LINE_LEN);
	on = simd_begin(true);
	gembuf_narrow_line(words, line, LINE_LEN, on);
	simd_end(on);
	gembuf_write_line(&fb, stored, 0, line, LINE_LEN);
	KUNIT_EXPECT_MEMEQ(test, words, stored, LINE_LEN * sizeof(*words));
}

#define WORDS_LEN	512
/* No reader's word: their X byte is 0. */
#define WORD_POISON	0x5a5a5a5a

/* A 16-bit pixel's 8 high bits of each channel, as an XRGB8888 word. */
static u32 narrow_px(const struct gembuf_pixel *p)
{
	return (p->r >> 8) << 16 | (p->g >> 8) << 8 | p->b >> 8;
}

/* One line of @format in encoding and range @c, Cb @round, read both ways. */
static void check_words(struct kunit *test, struct rnd_state *rnd, u32 format,
			unsigned int c, unsigned int round, u8 *mem,
			struct gembuf_pixel *px, __le32 *got, int *xs)
{
	const int w = WORDS_LEN;
	gembuf_words_fn words = gembuf_format_words(format);
	gembuf_read_fn read = gembuf_format_reader(format);
	void *planes[DRM_FORMAT_MAX_PLANES] = { mem, mem + w * 4 };
	struct drm_framebuffer fb = {
		.format = drm_format_info(format),
		.width = w,
		.height = 1,
		.pitches = { w * drm_format_info(format)->cpp[0], w },
	};
	struct drm_plane_state state = {
		.color_encoding = c & 1 ? DRM_COLOR_YCBCR_BT709 : DRM_COLOR_YCBCR_BT601,
		.color_range = c & 2 ? DRM_COLOR_YCBCR_FULL_RANGE :
				       DRM_COLOR_YCBCR_LIMITED_RANGE,
	};
	const struct gembuf_yuv_lut *lut;
	static const int runs[] = { 0, 1, 2, 15, 16, 17, 33 };
	/* Alpha 0x1234 is no reader's: 0xffff, or 8 bits times 0x101. */
	const struct gembuf_pixel poison = {
		.a = 0x1234, .r = 0x1234, .g = 0x1234, .b = 0x1234,
	};
	unsigned int start = round & 3, r, pass;
	int i, n;
	bool on;

	KUNIT_ASSERT_NOT_NULL(test, words);
	lut = gembuf_yuv_lut(&state);
	prandom_bytes_state(rnd, mem, 2 * w * 4);
	/*
	 * Cb is @round; the first pixel of chroma pair i has Y and Cr both
	 * i, the second a random Y.
	 */
	for (i = 0; i < w / 2; i++) {
		u8 *pair = mem + 4 * i;

		if (format == DRM_FORMAT_YUYV) {
			pair[0] = i;
			pair[1] = round;
			pair[3] = i;
		} else if (format == DRM_FORMAT_UYVY) {
			pair[0] = round;
			pair[1] = i;
			pair[2] = i;
		} else if (format == DRM_FORMAT_NV12) {
			mem[2 * i] = i;
			mem[w * 4 + 2 * i] = round;
			mem[w * 4 + 2 * i + 1] = i;
		}
	}
	for (i = 0; i < w; i++)
		xs[i] = i < w / 2 ? start + i : prandom_u32_state(rnd) % w;
	read(planes, &fb, 0, xs, 0, w, &state, px, false);
	words(planes, &fb, 0, xs, 0, w, lut, got, false);
	for (i = 0; i < w; i++)
		KUNIT_ASSERT_EQ_MSG(test, le32_to_cpu(got[i]), narrow_px(&px[i]),
				    "%p4cc encoding %d range %d, column %d",
				    &format, state.color_encoding,
				    state.color_range, xs[i]);
	/*
	 * Consecutive columns in the scalar loops, then in SIMD: the first
	 * half line, and runs as short as one pixel and just around a block.
	 */
	for (pass = 0; pass < 2; pass++) {
		for (r = 0; r < ARRAY_SIZE(runs); r++) {
			n = runs[r] ?: w / 2;
			/* No pixel left as it was, none written past the run. */
			for (i = 0; i <= n; i++) {
				px[w + i] = poison;
				got[i] = cpu_to_le32(WORD_POISON);
			}
			on = simd_begin(pass);
			read(planes, &fb, 0, NULL, start, n, &state, px + w, on);
			words(planes, &fb, 0, NULL, start, n, lut, got, on);
			simd_end(on);
			KUNIT_ASSERT_MEMEQ_MSG(test, px + w, px, n * sizeof(*px),
					       "%p4cc encoding %d range %d, %d from column %u, SIMD %d",
					       &format, state.color_encoding,
					       state.color_range, n, start, on);
			KUNIT_ASSERT_MEMEQ_MSG(test, &px[w + n], &poison,
					       sizeof(poison),
					       "%p4cc: pixel %d of a run of %d written",
					       &format, n, n);
			KUNIT_ASSERT_EQ_MSG(test, le32_to_cpu(got[n]), WORD_POISON,
					    "%p4cc: word %d of a run of %d written",
					    &format, n, n);
			for (i = 0; i < n; i++)
				KUNIT_ASSERT_EQ_MSG(test, le32_to_cpu(got[i]),
						    narrow_px(&px[i]),
						    "%p4cc encoding %d range %d, word %d of %d from column %u, SIMD %d",
						    &format, state.color_encoding,
						    state.color_range, i, n, start,
						    on);
		}
	}
}

/*
 * The words readers against the 16-bit readers, narrowed, and both
 * against the 16-bit readers at scattered columns: random lines of every
 * format that has one, read from consecutive columns (from an odd one
 * too, as a clipped plane starts; half a line and runs from one pixel to
 * a block and more; with and without SIMD) and from scattered ones; YCbCr in
 * each encoding and range, with Cb taking every value and, for each, Y
 * and Cr every value together (gembuf_test_yuv_words_grid() holds them
 * apart).
 */
static void gembuf_test_words_readers(struct kunit *test)
{
	static const u32 formats[] = {
		DRM_FORMAT_XBGR8888, DRM_FORMAT_ABGR8888, DRM_FORMAT_RGB565,
		DRM_FORMAT_YUYV, DRM_FORMAT_UYVY, DRM_FORMAT_NV12,
	};
	const int w = WORDS_LEN;
	struct rnd_state *rnd = line_rnd(test);
	u8 *mem = kunit_kzalloc(test, 2 * w * 4, GFP_KERNEL);
	struct gembuf_pixel *px = kunit_kcalloc(test, 2 * w, sizeof(*px), GFP_KERNEL);
	__le32 *got = kunit_kcalloc(test, w, sizeof(*got), GFP_KERNEL);
	int *xs = kunit_kcalloc(test, w, sizeof(*xs), GFP_KERNEL);
	unsigned int f, c, round;

	KUNIT_ASSERT_NOT_NULL(test, mem);
	KUNIT_ASSERT_NOT_NULL(test, px);
	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_ASSERT_NOT_NULL(test, xs);
	say_simd(test);
	for (f = 0; f < ARRAY_SIZE(formats); f++)
		for (c = 0; c < (drm_format_info(formats[f])->is_yuv ? 4 : 1); c++)
			for (round = 0; round < 256; round++)
				check_words(test, rnd, formats[f], c, round, mem,
					    px, got, xs);
}

/*
 * Every RGB565 value as a words reader reads it, against the 16-bit
 * reader narrowed: from consecutive columns (the SIMD loop where the CPU
 * has one), from an odd first column, 4095 of them (the SIMD loop, then
 * the scalar one for the last 15), and from scattered ones (the scalar
 * loop).  In blocks of 4096 values, so that no allocation is large.
 */
static void gembuf_test_rgb565_words_all(struct kunit *test)
{
	const int w = 4096 + 1;
	gembuf_words_fn words = gembuf_format_words(DRM_FORMAT_RGB565);
	gembuf_read_fn read = gembuf_format_reader(DRM_FORMAT_RGB565);
	__le16 *mem = kunit_kcalloc(test, w, sizeof(*mem), GFP_KERNEL);
	struct gembuf_pixel *px = kunit_kcalloc(test, w, sizeof(*px), GFP_KERNEL);
	__le32 *got = kunit_kcalloc(test, 3 * w, sizeof(*got), GFP_KERNEL);
	int *xs = kunit_kcalloc(test, w, sizeof(*xs), GFP_KERNEL);
	void *planes[DRM_FORMAT_MAX_PLANES] = { mem };
	struct drm_framebuffer fb = {
		.format = drm_format_info(DRM_FORMAT_RGB565),
		.width = w,
		.height = 1,
		.pitches = { w * sizeof(*mem) },
	};
	struct drm_plane_state state = {};
	unsigned int block;
	int i;
	u32 want;
	bool on;

	say_simd(test);
	KUNIT_ASSERT_NOT_NULL(test, words);
	KUNIT_ASSERT_NOT_NULL(test, mem);
	KUNIT_ASSERT_NOT_NULL(test, px);
	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_ASSERT_NOT_NULL(test, xs);
	for (i = 0; i < w; i++)
		xs[i] = i;
	for (block = 0; block < 0x10000 / (w - 1); block++) {
		for (i = 0; i < w; i++)
			mem[i] = cpu_to_le16(block * (w - 1) + i);
		read(planes, &fb, 0, xs, 0, w, &state, px, false);
		on = simd_begin(true);
		words(planes, &fb, 0, NULL, 0, w - 1, NULL, got, on);
		words(planes, &fb, 0, NULL, 1, w - 2, NULL, got + w, on);
		simd_end(on);
		words(planes, &fb, 0, xs, 0, w - 1, NULL, got + 2 * w, false);
		for (i = 0; i < w - 1; i++) {
			want = narrow_px(&px[i]);
			KUNIT_ASSERT_EQ_MSG(test, le32_to_cpu(got[i]), want,
					    "%#06x, consecutive", le16_to_cpu(mem[i]));
			KUNIT_ASSERT_EQ_MSG(test, le32_to_cpu(got[2 * w + i]), want,
					    "%#06x, scattered", le16_to_cpu(mem[i]));
			if (i == w - 2)
				continue;
			want = narrow_px(&px[i + 1]);
			KUNIT_ASSERT_EQ_MSG(test, le32_to_cpu(got[w + i]), want,
					    "%#06x, from column 1",
					    le16_to_cpu(mem[i + 1]));
		}
	}
}

/*
 * The YCbCr words against the per-pixel path with Y, Cb and Cr taking
 * their values independently of each other, in each encoding and range.
 * All 2^24 triples in the four, 67 million pixels, would take tens of
 * seconds of the guest's time under KASAN; the case takes every Y with
 * each of some 4,600 chroma pairs instead (4.7 million pixels):
 * every pair of a grid of each 6th value and the edges of both ranges,
 * every Cb and every Cr with the other neutral, equal and opposite (so
 * that each channel meets every value of what it depends on), and random
 * pairs.  Lines are YUYV (the three YCbCr formats share
 * the conversion and the words readers' loop), each pixel's word held
 * against the format's reader, narrowed.  A line holds up to YUV_PAIRS
 * chroma pairs, each with every Y value (pixel 256 * j + y has pair j
 * and luma y), read as one run of words from column 0, so that each
 * two pixels share one chroma lookup.
 */
#define YUV_PAIRS	16
#define YUV_LINE	(YUV_PAIRS * 256)
#define YUV_RANDOM_PAIRS	512

static const u8 yuv_edges[] = {
	0, 1, 15, 16, 17, 127, 128, 129, 234, 235, 239, 240, 241, 254, 255,
};

struct yuv_sweep {
	struct kunit *test;
	struct drm_framebuffer fb;
	struct drm_plane_state state;
	u8 *mem;
	int *xs;
	struct gembuf_pixel *px;
	__le32 *got;
	u16 cbcr[YUV_PAIRS];	/* Cb << 8 | Cr of each pair of the line */
	int n;			/* pairs in @cbcr */
	bool failed;
};

/*
 * The conversion the readers' tables are made of, worked out here per
 * pixel in 64 bits, without them: Y' and Cb/Cr scaled from
 * the range into 16.16, R = Y' + Cr * kr, G = Y' - Cb * kgb - Cr * kgr,
 * B = Y' + Cb * kb (each product divided by 65536, towards zero), then
 * each channel * 257 / 65536, clamped to 16 bits.
 */
static u16 yuv_ref_clamp(s64 v)
{
	return clamp_t(s64, v * 257 / 65536, 0, 0xffff);
}

static void yuv_ref(const struct drm_plane_state *s, u8 y, u8 cb, u8 cr,
		    struct gembuf_pixel *out)
{
	static const s64 k[2][4] = {
		{ 91881, 22554, 46802, 116130 },	/* BT.601 */
		{ 103206, 12277, 30679, 121609 },	/* BT.709 */
	};
	const s64 *kk = k[s->color_encoding == DRM_COLOR_YCBCR_BT709];
	bool limited = s->color_range == DRM_COLOR_YCBCR_LIMITED_RANGE;
	s64 yy = limited ? ((s64)y - 16) * 65536 * 255 / 219 : (s64)y * 65536;
	s64 u = ((s64)cb - 128) * 65536, v = ((s64)cr - 128) * 65536;

	if (limited) {
		u = u * 255 / 224;
		v = v * 255 / 224;
	}
	out->a = 0xffff;
	out->r = yuv_ref_clamp(yy + v * kk[0] / 65536);
	out->g = yuv_ref_clamp(yy - u * kk[1] / 65536 - v * kk[2] / 65536);
	out->b = yuv_ref_clamp(yy + u * kk[3] / 65536);
}

/*
 * Line @sw->cbcr (@sw->n pairs) read both ways, the reader's pixels (read
 * from consecutive columns and column by column) held against yuv_ref()
 * too; stops the sweep at the first pixel that is not
 * the reference's, or word that is not the per-pixel path's.
 */
static void yuv_sweep_line(struct yuv_sweep *sw)
{
	void *planes[DRM_FORMAT_MAX_PLANES] = { sw->mem };
	const struct drm_plane_state *s = &sw->state;
	const struct gembuf_pixel *p;
	struct gembuf_pixel ref;
	int i, j, n = sw->n * 256;
	u16 cbcr;
	u32 want;
	bool on;

	sw->n = 0;
	if (sw->failed)
		return;
	/* Pixels 2i and 2i + 1 share bytes 4i to 4i + 3: Y0 Cb Y1 Cr. */
	for (i = 0; i < n / 2; i++) {
		sw->mem[4 * i + 1] = sw->cbcr[i / 128] >> 8;
		sw->mem[4 * i + 3] = sw->cbcr[i / 128];
	}
	/* From consecutive columns (SIMD where the CPU has it), and each. */
	on = simd_begin(true);
	gembuf_format_reader(DRM_FORMAT_YUYV)(planes, &sw->fb, 0, NULL, 0, n, s,
					      sw->px, on);
	simd_end(on);
	gembuf_format_reader(DRM_FORMAT_YUYV)(planes, &sw->fb, 0, sw->xs, 0, n,
					      s, sw->px + YUV_LINE, false);
	on = simd_begin(true);
	gembuf_format_words(DRM_FORMAT_YUYV)(planes, &sw->fb, 0, NULL, 0, n,
					     gembuf_yuv_lut(s), sw->got, on);
	simd_end(on);
	for (i = 0; i < n; i++) {
		cbcr = sw->cbcr[i / 256];
		yuv_ref(s, i % 256, cbcr >> 8, cbcr, &ref);
		for (j = 0; j < 2; j++) {
			p = &sw->px[i + j * YUV_LINE];
			if (!memcmp(&ref, p, sizeof(ref)))
				continue;
			KUNIT_FAIL(sw->test,
				   "encoding %d range %d, Y %d Cb %d Cr %d, %s: read %04x %04x %04x, want %04x %04x %04x",
				   s->color_encoding, s->color_range, i % 256,
				   cbcr >> 8, cbcr & 0xff,
				   j ? "each column" : "consecutive", p->r,
				   p->g, p->b, ref.r, ref.g, ref.b);
			sw->failed = true;
			return;
		}
		want = narrow_px(&sw->px[i]);
		if (le32_to_cpu(sw->got[i]) == want)
			continue;
		KUNIT_FAIL(sw->test,
			   "encoding %d range %d, Y %d Cb %d Cr %d: got %06x, want %06x",
			   s->color_encoding, s->color_range, i % 256,
			   cbcr >> 8, cbcr & 0xff, le32_to_cpu(sw->got[i]), want);
		sw->failed = true;
		return;
	}
}

/* Chroma pair (@cb, @cr) with every Y, read once its line is full. */
static void yuv_sweep_pair(struct yuv_sweep *sw, u8 cb, u8 cr)
{
	sw->cbcr[sw->n++] = cb << 8 | cr;
	if (sw->n == YUV_PAIRS)
		yuv_sweep_line(sw);
}

static void gembuf_test_yuv_words_grid(struct kunit *test)
{
	struct rnd_state *rnd = line_rnd(test);
	struct yuv_sweep *sw = kunit_kzalloc(test, sizeof(*sw), GFP_KERNEL);
	DECLARE_BITMAP(grid, 256) = {};
	unsigned int c, i, cb, cr;
	u32 cbcr;

	KUNIT_ASSERT_NOT_NULL(test, sw);
	sw->test = test;
	sw->fb = (struct drm_framebuffer){
		.format = drm_format_info(DRM_FORMAT_YUYV),
		.width = YUV_LINE,
		.height = 1,
		.pitches = { YUV_LINE * 2 },
	};
	sw->mem = kunit_kzalloc(test, YUV_LINE * 2, GFP_KERNEL);
	sw->xs = kunit_kcalloc(test, YUV_LINE, sizeof(*sw->xs), GFP_KERNEL);
	sw->px = kunit_kcalloc(test, 2 * YUV_LINE, sizeof(*sw->px), GFP_KERNEL);
	sw->got = kunit_kcalloc(test, YUV_LINE, sizeof(*sw->got), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sw->mem);
	KUNIT_ASSERT_NOT_NULL(test, sw->xs);
	KUNIT_ASSERT_NOT_NULL(test, sw->px);
	KUNIT_ASSERT_NOT_NULL(test, sw->got);
	for (i = 0; i < YUV_LINE; i++) {
		sw->xs[i] = i;
		sw->mem[2 * i] = i;	/* Y: every value once a chroma pair */
	}
	for (i = 0; i < 256; i += 6)
		__set_bit(i, grid);
	for (i = 0; i < ARRAY_SIZE(yuv_edges); i++)
		__set_bit(yuv_edges[i], grid);

	for (c = 0; c < 4 && !sw->failed; c++) {
		sw->state.color_encoding = c & 1 ? DRM_COLOR_YCBCR_BT709 :
						   DRM_COLOR_YCBCR_BT601;
		sw->state.color_range = c & 2 ? DRM_COLOR_YCBCR_FULL_RANGE :
						DRM_COLOR_YCBCR_LIMITED_RANGE;
		for_each_set_bit(cb, grid, 256)
			for_each_set_bit(cr, grid, 256)
				yuv_sweep_pair(sw, cb, cr);
		for (i = 0; i < 256; i++) {
			yuv_sweep_pair(sw, i, 128);
			yuv_sweep_pair(sw, 128, i);
			yuv_sweep_pair(sw, i, i);
			yuv_sweep_pair(sw, i, 255 - i);
		}
		for (i = 0; i < YUV_RANDOM_PAIRS; i++) {
			cbcr = prandom_u32_state(rnd);
			yuv_sweep_pair(sw, cbcr >> 8, cbcr);
		}
		if (sw->n)
			yuv_sweep_line(sw);
	}
}

/*
 * Whole frames of random layouts composed by gembuf_compose() against a
 * reference made pixel by pixel with the per-pixel path: for each
 * destination pixel and each plane bottom to top, the plane's source
 * point (gembuf_source_point(), clamped), its pixel from the format's
 * reader, the color key, gembuf_blend(); then narrowed as each writeback
 * format stores it.  Each parameter is a seed: the frame's size (odd
 * widths too), one to five planes of any format, framebuffer and pitch,
 * source rectangle (fractional, as clipping at the frame's edges leaves
 * it), destination, rotation and reflection, plane alpha, blend mode,
 * color key, YCbCr encoding and range; some planes shown at their size,
 * some over the whole frame.  Each frame is composed three times: into
 * XRGB8888 without a CRC (lines stored straight), with a CRC (which must
 * match the reference's), and into XRGB2101010 (16-bit lines).
 */
#define COMPOSE_CASES	48

/* The formats gembuf's planes take (gembuf_plane_formats). */
static const u32 plane_formats[] = {
	DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888, DRM_FORMAT_XBGR8888,
	DRM_FORMAT_ABGR8888, DRM_FORMAT_RGB565, DRM_FORMAT_XRGB2101010,
	DRM_FORMAT_XRGB16161616, DRM_FORMAT_ARGB16161616, DRM_FORMAT_YUYV,
	DRM_FORMAT_UYVY, DRM_FORMAT_NV12,
};

struct compose_frame {
	struct gembuf_crtc_state *state;
	int w, h;
	u32 *want8;		/* the reference, narrowed to XRGB8888 */
	u32 *want10;		/* and to XRGB2101010 */
};

static u32 rnd_below(struct rnd_state *rnd, u32 n)
{
	return prandom_u32_state(rnd) % n;
}

/*
 * A @fw x @fh framebuffer of @format (YCbCr sizes made even) of random
 * bytes, random padding at the end of its lines, for plane state @ps.
 */
static struct drm_framebuffer *random_fb(struct kunit *test,
					 struct rnd_state *rnd,
					 struct gembuf_plane_state *ps,
					 u32 format, int fw, int fh)
{
	struct drm_framebuffer *fb = kunit_kzalloc(test, sizeof(*fb), GFP_KERNEL);
	int p;
	u8 *mem;

	KUNIT_ASSERT_NOT_NULL(test, fb);
	fb->format = drm_format_info(format);
	if (fb->format->is_yuv) {
		fw = ALIGN(fw, 2);
		fh = ALIGN(fh, 2);
	}
	fb->width = fw;
	fb->height = fh;
	for (p = 0; p < fb->format->num_planes; p++) {
		int pw = fw / (p ? fb->format->hsub : 1);
		int ph = fh / (p ? fb->format->vsub : 1);

		fb->pitches[p] = pw * fb->format->cpp[p] + 4 * rnd_below(rnd, 3);
		mem = kunit_kzalloc(test, fb->pitches[p] * ph, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, mem);
		prandom_bytes_state(rnd, mem, fb->pitches[p] * ph);
		ps->vaddr[p] = mem;
	}
	ps->base.base.fb = fb;
	ps->cpu_access = true;
	ps->read = gembuf_format_reader(format);
	return fb;
}

static void random_plane(struct kunit *test, struct rnd_state *rnd,
			 struct gembuf_plane_state *ps, int w, int h)
{
	static const u16 alphas[] = { 0xffff, 0xffff, 0xffff, 0, 0x8000, 0x7fff };
	static const unsigned int rotations[] = {
		DRM_MODE_ROTATE_0, DRM_MODE_ROTATE_90, DRM_MODE_ROTATE_180,
		DRM_MODE_ROTATE_270,
	};
	struct drm_plane_state *s = &ps->base.base;
	u32 format = plane_formats[rnd_below(rnd, ARRAY_SIZE(plane_formats))];
	struct drm_framebuffer *fb;
	int fw, fh, sx, sy, sw, sh, dw, dh, i;
	bool t;

	fw = 1 + rnd_below(rnd, 40);
	fh = 1 + rnd_below(rnd, 30);
	fb = random_fb(test, rnd, ps, format, fw, fh);
	fw = fb->width;
	fh = fb->height;
	/* Alpha bytes at the edges half of the time. */
	if ((format == DRM_FORMAT_ARGB8888 || format == DRM_FORMAT_ABGR8888) &&
	    rnd_below(rnd, 2))
		for (i = 0; i < fh * fb->pitches[0] / 4; i++)
			((u8 *)ps->vaddr[0])[4 * i + 3] =
				edge_alphas[rnd_below(rnd, ARRAY_SIZE(edge_alphas))];

	s->rotation = rotations[rnd_below(rnd, 4)];
	if (!rnd_below(rnd, 4))
		s->rotation |= rnd_below(rnd, 2) ? DRM_MODE_REFLECT_X :
						  DRM_MODE_REFLECT_Y;
	t = s->rotation & (DRM_MODE_ROTATE_90 | DRM_MODE_ROTATE_270);
	sx = rnd_below(rnd, fw);
	sy = rnd_below(rnd, fh);
	sw = 1 + rnd_below(rnd, fw - sx);
	sh = 1 + rnd_below(rnd, fh - sy);
	s->src = (struct drm_rect){ sx << 16, sy << 16, (sx + sw) << 16,
				    (sy + sh) << 16 };
	/* Clipped at an edge: a fraction of a source pixel left out. */
	if (!rnd_below(rnd, 4))
		s->src.x1 += rnd_below(rnd, 0x10000);
	if (!rnd_below(rnd, 4))
		s->src.y2 -= rnd_below(rnd, 0x10000);
	switch (rnd_below(rnd, 4)) {
	case 0:		/* at its size, where it fits */
		dw = min(t ? sh : sw, w);
		dh = min(t ? sw : sh, h);
		break;
	case 1:		/* the whole frame */
		dw = w;
		dh = h;
		break;
	default:
		dw = 1 + rnd_below(rnd, w);
		dh = 1 + rnd_below(rnd, h);
		break;
	}
	s->dst.x1 = rnd_below(rnd, w - dw + 1);
	s->dst.y1 = rnd_below(rnd, h - dh + 1);
	s->dst.x2 = s->dst.x1 + dw;
	s->dst.y2 = s->dst.y1 + dh;
	s->alpha = alphas[rnd_below(rnd, ARRAY_SIZE(alphas))];
	if (!rnd_below(rnd, 4))
		s->alpha = prandom_u32_state(rnd);
	s->pixel_blend_mode = blend_modes[rnd_below(rnd, ARRAY_SIZE(blend_modes))];
	s->color_encoding = rnd_below(rnd, 2) ? DRM_COLOR_YCBCR_BT709 :
						DRM_COLOR_YCBCR_BT601;
	s->color_range = rnd_below(rnd, 2) ? DRM_COLOR_YCBCR_FULL_RANGE :
					     DRM_COLOR_YCBCR_LIMITED_RANGE;
	/* A key on the top bits, so that it matches some pixels. */
	if (!rnd_below(rnd, 6)) {
		ps->colorkey_mask = 0x808080;
		ps->colorkey = prandom_u32_state(rnd) & 0xffffff;
	}
}

/* The reference: every pixel through the per-pixel path. */
static void reference_frame(struct kunit *test, struct compose_frame *cf)
{
	const struct gembuf_crtc_state *state = cf->state;
	struct gembuf_pixel p, px;
	unsigned int i;
	int x, y, sx, sy;

	for (y = 0; y < cf->h; y++)
		for (x = 0; x < cf->w; x++) {
			p = (struct gembuf_pixel){ .a = 0xffff };
			for (i = 0; i < state->num_planes; i++) {
				const struct gembuf_plane_state *ps = state->planes[i];
				const struct drm_plane_state *s = &ps->base.base;
				u32 rgb;

				if (x < s->dst.x1 || x >= s->dst.x2 ||
				    y < s->dst.y1 || y >= s->dst.y2)
					continue;
				gembuf_source_point(s, x, y, &sx, &sy);
				sx = clamp(sx, 0, (int)s->fb->width - 1);
				sy = clamp(sy, 0, (int)s->fb->height - 1);
				ps->read(ps->vaddr, s->fb, sy, &sx, 0, 1, s, &px,
					 false);
				rgb = narrow_px(&px);
				if (ps->colorkey_mask &&
				    (rgb & ps->colorkey_mask) ==
				    (ps->colorkey & ps->colorkey_mask))
					continue;
				gembuf_blend(&p, &px, s->alpha, s->pixel_blend_mode);
			}
			cf->want8[y * cf->w + x] = (p.r >> 8) << 16 |
						   (p.g >> 8) << 8 | p.b >> 8;
			cf->want10[y * cf->w + x] = (p.r >> 6) << 20 |
						    (p.g >> 6) << 10 | p.b >> 6;
		}
}

/*
 * Compose into a writeback framebuffer of @format, mapped cached if
 * @cached (composed in place where no CRC is taken); 0 if it matches.
 */
static int check_composed(struct kunit *test, struct compose_frame *cf,
			  u32 format, bool crc_on, bool cached, u64 seed)
{
	struct drm_framebuffer *fb = kunit_kzalloc(test, sizeof(*fb), GFP_KERNEL);
	__le32 *out = kunit_kcalloc(test, cf->w * cf->h, sizeof(*out), GFP_KERNEL);
	const u32 *want = format == DRM_FORMAT_XRGB8888 ? cf->want8 : cf->want10;
	u32 mask = format == DRM_FORMAT_XRGB8888 ? 0xffffff : 0x3fffffff;
	__le32 *words = kunit_kcalloc(test, cf->w, sizeof(*words), GFP_KERNEL);
	u32 crc, want_crc = ~0U;
	int x, y;

	KUNIT_ASSERT_NOT_NULL(test, fb);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_ASSERT_NOT_NULL(test, words);
	fb->format = drm_format_info(format);
	fb->width = cf->w;
	fb->height = cf->h;
	fb->pitches[0] = cf->w * 4;
	memset(out, 0x5a, cf->w * cf->h * sizeof(*out));
	cf->state->wb_fb = fb;
	cf->state->wb_vaddr = out;
	cf->state->wb_cached = cached;
	crc = gembuf_compose(cf->state, cf->state->planes, crc_on, true);
	for (y = 0; y < cf->h; y++)
		for (x = 0; x < cf->w; x++)
			if ((le32_to_cpu(out[y * cf->w + x]) & mask) != want[y * cf->w + x]) {
				KUNIT_FAIL(test,
					   "seed %llu, %dx%d, %p4cc%s%s: (%d,%d) is %08x, not %08x",
					   seed, cf->w, cf->h, &format,
					   crc_on ? " with CRC" : "",
					   cached ? " cached" : "", x, y,
					   le32_to_cpu(out[y * cf->w + x]) & mask,
					   want[y * cf->w + x]);
				return -1;
			}
	if (!crc_on)
		return 0;
	for (y = 0; y < cf->h; y++) {
		for (x = 0; x < cf->w; x++)
			words[x] = cpu_to_le32(cf->want8[y * cf->w + x]);
		want_crc = crc32_le(want_crc, (u8 *)words, cf->w * sizeof(*words));
	}
	KUNIT_EXPECT_EQ_MSG(test, crc, ~want_crc, "seed %llu: the frame's CRC", seed);
	return crc == ~want_crc ? 0 : -1;
}

KUNIT_DEFINE_ACTION_WRAPPER(lines_put, gembuf_lines_put, struct gembuf_lines *);

/*
 * Plane state @ps shows its framebuffer's @sw x @sh from (0, 0) at
 * (@x, @y), @dw x @dh on the CRTC.
 */
static void place(struct gembuf_plane_state *ps, int sw, int sh, int x, int y,
		  int dw, int dh, unsigned int rotation, u16 alpha, u16 mode)
{
	struct drm_plane_state *s = &ps->base.base;

	s->src = (struct drm_rect){ 0, 0, sw << 16, sh << 16 };
	s->dst = (struct drm_rect){ x, y, x + dw, y + dh };
	s->rotation = rotation;
	s->alpha = alpha;
	s->pixel_blend_mode = mode;
}

/* A @w x @h frame of @n plane states, their planes for the caller. */
static void frame_init(struct kunit *test, struct compose_frame *cf, int w,
		       int h, unsigned int n)
{
	unsigned int i;

	cf->w = w;
	cf->h = h;
	cf->state = kunit_kzalloc(test, sizeof(*cf->state), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cf->state);
	cf->state->base.mode.hdisplay = w;
	cf->state->base.mode.vdisplay = h;
	cf->state->lines = gembuf_lines_alloc(w);
	KUNIT_ASSERT_NOT_NULL(test, cf->state->lines);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, lines_put,
							cf->state->lines), 0);
	cf->state->num_planes = n;
	for (i = 0; i < n; i++) {
		cf->state->planes[i] = kunit_kzalloc(test, sizeof(*cf->state->planes[i]),
						     GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, cf->state->planes[i]);
	}
	cf->want8 = kunit_kcalloc(test, w * h, sizeof(u32), GFP_KERNEL);
	cf->want10 = kunit_kcalloc(test, w * h, sizeof(u32), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cf->want8);
	KUNIT_ASSERT_NOT_NULL(test, cf->want10);
}

/*
 * The frame's reference, then the frame composed every way it can be
 * stored: XRGB8888 copied line by line and in place, with a CRC, and
 * XRGB2101010.  Stops at the first that differs; true if none does.
 */
static bool check_frame(struct kunit *test, struct compose_frame *cf, u64 seed)
{
	reference_frame(test, cf);
	return !check_composed(test, cf, DRM_FORMAT_XRGB8888, false, false, seed) &&
	       !check_composed(test, cf, DRM_FORMAT_XRGB8888, false, true, seed) &&
	       !check_composed(test, cf, DRM_FORMAT_XRGB8888, true, false, seed) &&
	       !check_composed(test, cf, DRM_FORMAT_XRGB2101010, false, false, seed);
}

static void gembuf_test_compose_random(struct kunit *test)
{
	u64 seed = LINE_SEED + *(const int *)test->param_value;
	struct rnd_state *rnd = kunit_kzalloc(test, sizeof(*rnd), GFP_KERNEL);
	struct compose_frame cf = {};
	unsigned int i;
	int w, h;

	KUNIT_ASSERT_NOT_NULL(test, rnd);
	prandom_seed_state(rnd, seed);
	w = 16 + rnd_below(rnd, 100);
	h = 4 + rnd_below(rnd, 40);
	frame_init(test, &cf, w, h, 1 + rnd_below(rnd, GEMBUF_MAX_PLANES));
	for (i = 0; i < cf.state->num_planes; i++)
		random_plane(test, rnd, cf.state->planes[i], cf.w, cf.h);
	check_frame(test, &cf, seed);
}

/*
 * Opaque planes with a words reader shown magnified, whose source columns
 * are read once a source line and picked (sixteen at a time by a table in
 * SIMD), under an ARGB8888 plane blended onto part of them (there they
 * are read into 16 bits, each source column once, and picked), over an
 * XRGB8888 primary plane: each format, at scales from a little over 1 to
 * 7, reflected or not, from a column that is not the first of a block of
 * sixteen; each frame against the per-pixel reference, every way.
 */
static void gembuf_test_compose_magnified(struct kunit *test)
{
	static const u32 formats[] = {
		DRM_FORMAT_YUYV, DRM_FORMAT_UYVY, DRM_FORMAT_NV12,
		DRM_FORMAT_RGB565, DRM_FORMAT_XBGR8888,
	};
	static const struct { int sw, dw; } scales[] = {
		{ 96, 100 }, { 64, 96 }, { 40, 80 }, { 33, 101 }, { 17, 119 },
	};
	struct rnd_state *rnd = line_rnd(test);
	struct compose_frame cf;
	unsigned int f, k, r;

	say_simd(test);
	for (f = 0; f < ARRAY_SIZE(formats); f++)
		for (k = 0; k < ARRAY_SIZE(scales); k++)
			for (r = 0; r < 2; r++) {
				frame_init(test, &cf, 128, 6, 3);
				random_fb(test, rnd, cf.state->planes[0],
					  DRM_FORMAT_XRGB8888, 128, 6);
				place(cf.state->planes[0], 128, 6, 0, 0, 128, 6,
				      DRM_MODE_ROTATE_0, DRM_BLEND_ALPHA_OPAQUE,
				      DRM_MODE_BLEND_PREMULTI);
				/* Four source lines on six, too. */
				random_fb(test, rnd, cf.state->planes[1],
					  formats[f], scales[k].sw, 4);
				place(cf.state->planes[1], scales[k].sw, 4, 5, 0,
				      scales[k].dw, 6,
				      DRM_MODE_ROTATE_0 | (r ? DRM_MODE_REFLECT_X : 0),
				      DRM_BLEND_ALPHA_OPAQUE, DRM_MODE_BLEND_PREMULTI);
				cf.state->planes[1]->base.base.color_encoding =
					k & 1 ? DRM_COLOR_YCBCR_BT709 : DRM_COLOR_YCBCR_BT601;
				cf.state->planes[1]->base.base.color_range =
					r ? DRM_COLOR_YCBCR_FULL_RANGE :
					    DRM_COLOR_YCBCR_LIMITED_RANGE;
				random_fb(test, rnd, cf.state->planes[2],
					  DRM_FORMAT_ARGB8888, 30, 6);
				place(cf.state->planes[2], 30, 6, 40, 0, 30, 6,
				      DRM_MODE_ROTATE_0, r ? 0xc000 : 0xffff,
				      r ? DRM_MODE_BLEND_COVERAGE :
					  DRM_MODE_BLEND_PREMULTI);
				check_frame(test, &cf, f * 100 + k * 10 + r);
			}
}

/*
 * The NEON pick (gembuf_neon_pick_words()) against the scalar pick,
 * dst[i] = src[map[i]], on tables gembuf_pick_init() makes of random
 * maps and on tables of random bytes; then random magnified planes
 * composed whole, as gembuf_compose() uses the tables.
 *
 * The contract (gembuf_pick_init(), blend_words(), struct gembuf_pick):
 * @src holds the span = sx2 - sx1 (at least sixteen) source columns a
 * magnified plane shows, each read once; map[i] is in [0, span) and goes
 * by 0 or 1 from column to column (0 or -1 reflected), so a block of
 * sixteen columns spans sixteen source columns at most; each block's
 * table has a run of sixteen words from @base, 0 <= base <= span - 16,
 * all of them read, and @bytes the offset in the run of each byte of
 * the block's words.  @n is a multiple of sixteen: blend_words() picks
 * a line part's head up to a block and its tail in scalar.
 */
#define PICK_ROUNDS	3000
#define PICK_MAX	600	/* destination columns of a table, at most */
#define PICK_FRAMES	40

enum { PICK_SCALED, PICK_STEPS, PICK_BYTES, PICK_KINDS };

static const char *const pick_kinds[] = { "scaled", "random-step", "byte" };

/*
 * A magnified plane's map of @n (17 or more) destination columns, in
 * @kind, reflected if @reflect: PICK_SCALED as gembuf_source_point() makes
 * it, from 17 or more source columns at a scale of 1.01 to 8, half of the
 * time from a fraction of a column in (as clipping leaves it); PICK_STEPS
 * going up by 0 or 1 at random, 16 to @n - 1 source columns.  Counted
 * from the lowest column; return the span.
 */
static int pick_map(struct rnd_state *rnd, int *map, int n, int kind,
		    bool reflect)
{
	int lo = max(17, DIV_ROUND_UP(n, 8)), hi = n * 100 / 101;
	int i, sw, sy, span, steps;

	if (kind == PICK_SCALED && lo <= hi) {
		struct drm_plane_state s = {
			.dst = { 0, 0, n, 1 },
			.rotation = DRM_MODE_ROTATE_0 |
				    (reflect ? DRM_MODE_REFLECT_X : 0),
		};

		sw = lo + rnd_below(rnd, hi - lo + 1);
		s.src = (struct drm_rect){ 0, 0, sw << 16, 1 << 16 };
		if (rnd_below(rnd, 2))
			s.src.x1 = rnd_below(rnd, 0x10000);
		for (i = 0; i < n; i++) {
			gembuf_source_point(&s, i, 0, &map[i], &sy);
			map[i] = clamp(map[i], 0, sw - 1);
		}
		lo = map[0];
		hi = map[0];
		for (i = 1; i < n; i++) {
			lo = min(lo, map[i]);
			hi = max(hi, map[i]);
		}
		for (i = 0; i < n; i++)
			map[i] -= lo;
		return hi - lo + 1;
	}
	/* span - 1 steps of 1 among the n - 1, each subset as likely. */
	span = 16 + rnd_below(rnd, n - 16);
	steps = span - 1;
	map[0] = 0;
	for (i = 1; i < n; i++) {
		map[i] = map[i - 1];
		if (rnd_below(rnd, n - i) < steps) {
			map[i]++;
			steps--;
		}
	}
	for (i = 0; reflect && i < n; i++)
		map[i] = span - 1 - map[i];
	return span;
}

/*
 * A random opaque plane with a words reader, magnified, over a frame;
 * true if the frame is the reference's.
 */
static bool pick_frame(struct kunit *test, struct rnd_state *rnd, u64 seed)
{
	static const u32 formats[] = {
		DRM_FORMAT_YUYV, DRM_FORMAT_UYVY, DRM_FORMAT_NV12,
		DRM_FORMAT_RGB565, DRM_FORMAT_XBGR8888,
	};
	int w = 144 + rnd_below(rnd, 120), h = 2 + rnd_below(rnd, 4);
	int k = 101 + rnd_below(rnd, 700);	/* the scale, in hundredths */
	/* 17 columns or more: a fraction in, the span is 16 or more. */
	int sw = 17 + rnd_below(rnd, w * 100 / k - 16);
	int dw = max(sw + 1, sw * k / 100);
	int sx = rnd_below(rnd, 8), fh = 1 + rnd_below(rnd, 4);
	int x = rnd_below(rnd, w - dw + 1), tx, tw;
	u32 format = formats[rnd_below(rnd, ARRAY_SIZE(formats))];
	struct compose_frame cf;
	struct drm_plane_state *s;

	frame_init(test, &cf, w, h, 2 + rnd_below(rnd, 2));
	random_fb(test, rnd, cf.state->planes[0], DRM_FORMAT_XRGB8888, w, h);
	place(cf.state->planes[0], w, h, 0, 0, w, h, DRM_MODE_ROTATE_0,
	      DRM_BLEND_ALPHA_OPAQUE, DRM_MODE_BLEND_PREMULTI);
	random_fb(test, rnd, cf.state->planes[1], format,
		  sx + sw + rnd_below(rnd, 3), fh);
	place(cf.state->planes[1], sw, fh, x, 0, dw, h,
	      DRM_MODE_ROTATE_0 | (rnd_below(rnd, 2) ? DRM_MODE_REFLECT_X : 0),
	      DRM_BLEND_ALPHA_OPAQUE, DRM_MODE_BLEND_PREMULTI);
	s = &cf.state->planes[1]->base.base;
	s->src.x1 = sx << 16;
	s->src.x2 = (sx + sw) << 16;
	if (rnd_below(rnd, 2))
		s->src.x1 += rnd_below(rnd, 0x10000);
	s->color_encoding = rnd_below(rnd, 2) ? DRM_COLOR_YCBCR_BT709 :
						DRM_COLOR_YCBCR_BT601;
	s->color_range = rnd_below(rnd, 2) ? DRM_COLOR_YCBCR_FULL_RANGE :
					     DRM_COLOR_YCBCR_LIMITED_RANGE;
	/*
	 * Blended over part of it, so that the words path takes its
	 * columns on either side, the right ones from inside a block.
	 */
	if (cf.state->num_planes == 3) {
		tx = x + rnd_below(rnd, dw);
		tw = 1 + rnd_below(rnd, min(40, w - tx));
		random_fb(test, rnd, cf.state->planes[2], DRM_FORMAT_ARGB8888,
			  tw, h);
		place(cf.state->planes[2], tw, h, tx, 0, tw, h,
		      DRM_MODE_ROTATE_0, 0xc000, DRM_MODE_BLEND_COVERAGE);
	}
	return check_frame(test, &cf, seed);
}

static void gembuf_test_pick_random(struct kunit *test)
{
	struct rnd_state *rnd = line_rnd(test);
	int *map = kunit_kcalloc(test, PICK_MAX, sizeof(*map), GFP_KERNEL);
	struct gembuf_pick *pick = kunit_kcalloc(test, PICK_MAX / GEMBUF_SIMD_PIXELS,
						 sizeof(*pick), GFP_KERNEL);
	__le32 *want = kunit_kcalloc(test, PICK_MAX, sizeof(*want), GFP_KERNEL);
	__le32 *got = kunit_kcalloc(test, PICK_MAX + GEMBUF_SIMD_PIXELS,
				    sizeof(*got), GFP_KERNEL);
	const __le32 guard = cpu_to_le32(0x5a5a5a5a);
	int round, kind, n, bulk, span, i, j;
	const struct gembuf_pick *p;
	__le32 *src, w;
	bool on, ok;

	if (!IS_ENABLED(CONFIG_DRM_GEMBUF_NEON))
		kunit_skip(test, "built without CONFIG_DRM_GEMBUF_NEON");
	on = simd_begin(true);
	simd_end(on);
	if (!on)
		kunit_skip(test, "no kernel-mode NEON here");
	KUNIT_ASSERT_NOT_NULL(test, map);
	KUNIT_ASSERT_NOT_NULL(test, pick);
	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, got);
	for (round = 0; round < PICK_ROUNDS; round++) {
		kind = round % PICK_KINDS;
		n = 17 + rnd_below(rnd, PICK_MAX - 16);
		bulk = round_down(n, GEMBUF_SIMD_PIXELS);
		if (kind == PICK_BYTES) {
			/* Any byte of a run anywhere in the span. */
			span = GEMBUF_SIMD_PIXELS + rnd_below(rnd, PICK_MAX);
			for (j = 0; j < bulk / GEMBUF_SIMD_PIXELS; j++) {
				pick[j].base = rnd_below(rnd, span -
							 GEMBUF_SIMD_PIXELS + 1);
				for (i = 0; i < 4 * GEMBUF_SIMD_PIXELS; i++)
					pick[j].bytes[i] = rnd_below(rnd, 64);
			}
		} else {
			span = pick_map(rnd, map, n, kind, round / PICK_KINDS % 2);
			ok = span >= GEMBUF_SIMD_PIXELS && span < n &&
			     gembuf_pick_init(pick, map, n, 0, span);
			KUNIT_ASSERT_TRUE_MSG(test, ok,
					      "round %d: no table for %d columns of %d",
					      round, n, span);
		}
		/* The span alone: the run of the last block ends with it. */
		src = kunit_kmalloc_array(test, span, sizeof(*src), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, src);
		prandom_bytes_state(rnd, src, span * sizeof(*src));
		for (i = 0; i < bulk; i++) {
			p = &pick[i / GEMBUF_SIMD_PIXELS];
			if (i % GEMBUF_SIMD_PIXELS == 0)
				KUNIT_ASSERT_TRUE(test, p->base >= 0 &&
						  p->base + GEMBUF_SIMD_PIXELS <= span);
			if (kind != PICK_BYTES) {
				want[i] = src[map[i]];
				continue;
			}
			for (j = 0; j < 4; j++)
				((u8 *)&want[i])[j] =
					((const u8 *)(src + p->base))
					[p->bytes[4 * (i % GEMBUF_SIMD_PIXELS) + j]];
		}
		for (i = 0; i < bulk + GEMBUF_SIMD_PIXELS; i++)
			got[i] = guard;
		on = IS_ENABLED(CONFIG_DRM_GEMBUF_NEON) && simd_begin(true);
		if (on)
			gembuf_neon_pick_words(got, src, pick, bulk);
		simd_end(on);
		KUNIT_ASSERT_TRUE_MSG(test, on, "round %d: no kernel-mode NEON",
				      round);
		for (i = 0; i < bulk + GEMBUF_SIMD_PIXELS; i++) {
			w = i < bulk ? want[i] : guard;
			if (got[i] == w)
				continue;
			KUNIT_FAIL(test,
				   "round %d, %s table%s, %d columns of %d source words: word %d (block %d, base %d, source word %d): got %08x, want %08x",
				   round, pick_kinds[kind],
				   kind != PICK_BYTES && round / PICK_KINDS % 2 ?
				   " reflected" : "", bulk, span, i,
				   i / GEMBUF_SIMD_PIXELS,
				   i < bulk ? pick[i / GEMBUF_SIMD_PIXELS].base : -1,
				   i < bulk && kind != PICK_BYTES ? map[i] : -1,
				   le32_to_cpu(got[i]), le32_to_cpu(w));
			return;
		}
		kunit_kfree(test, src);
	}
	/*
	 * Then gembuf_pick_init()'s tables, as gembuf_compose() uses them: the
	 * NEON pick runs in blend_words() for an opaque plane with a words
	 * reader (not XRGB8888 or ARGB8888), not transposed, without a color
	 * key, magnified (not its source columns one to one, fewer of them
	 * than destination ones) from 16 source columns or more, and a line
	 * part with a whole block after its head, in a frame composed into
	 * XRGB8888 words (no gamma LUT, no XRGB2101010 writeback: there the
	 * 16-bit path picks in scalar) while kernel-mode NEON is held.
	 */
	for (round = 0; round < PICK_FRAMES; round++)
		if (!pick_frame(test, rnd, round))
			return;
}

/*
 * gembuf_layer_line() of each line of plane @ps of frame @id, from the
 * bottom up, against the plane's pixel at each pixel's source point;
 * false at the first that differs.
 */
static bool check_layer_lines(struct kunit *test,
			      const struct gembuf_plane_state *ps, int id)
{
	const struct drm_plane_state *s = &ps->base.base;
	const struct drm_framebuffer *fb = s->fb;
	int x, y, sx, sy, n = drm_rect_width(&s->dst);
	__le32 *got = kunit_kcalloc(test, n, sizeof(*got), GFP_KERNEL);
	u32 want;

	KUNIT_ASSERT_NOT_NULL(test, got);
	for (y = s->dst.y2 - 1; y >= s->dst.y1; y--) {
		KUNIT_ASSERT_EQ(test, gembuf_layer_line(ps, y, got), 0);
		for (x = s->dst.x1; x < s->dst.x2; x++) {
			gembuf_source_point(s, x, y, &sx, &sy);
			sx = clamp(sx, 0, (int)fb->width - 1);
			sy = clamp(sy, 0, (int)fb->height - 1);
			want = le32_to_cpu(*(const __le32 *)(ps->vaddr[0] +
							     sy * fb->pitches[0] +
							     sx * 4));
			if (le32_to_cpu(got[x - s->dst.x1]) == want)
				continue;
			KUNIT_FAIL(test,
				   "frame %d, rotation %#x, line alone: (%d,%d) is %08x, not %08x",
				   id, s->rotation, x, y,
				   le32_to_cpu(got[x - s->dst.x1]), want);
			return false;
		}
	}
	kunit_kfree(test, got);
	return true;
}

/* A rotated plane at its size, turned, where planes[] of the case says. */
struct tile_plane {
	int sw, sh;	/* the source rectangle, from (1, 2), before clipping */
	int x, y;	/* where it is shown, at its size turned */
};

/*
 * Frame @id: @tp rotated by @rotation, in @format, over a @w x @h frame,
 * clipped to it; true if every line of it is the reference's.
 */
static bool tile_frame(struct kunit *test, struct rnd_state *rnd,
		       const struct tile_plane *tp, unsigned int rotation,
		       u32 format, int w, int h, int id)
{
	const struct drm_rect clip = { 0, 0, w, h };
	struct compose_frame cf;
	struct drm_framebuffer *fb;
	struct drm_plane_state *s;
	bool visible;

	frame_init(test, &cf, w, h, 2);
	random_fb(test, rnd, cf.state->planes[0], DRM_FORMAT_XRGB8888, w, h);
	place(cf.state->planes[0], w, h, 0, 0, w, h, DRM_MODE_ROTATE_0,
	      DRM_BLEND_ALPHA_OPAQUE, DRM_MODE_BLEND_PREMULTI);
	fb = random_fb(test, rnd, cf.state->planes[1], format, tp->sw + 3,
		       tp->sh + 2);
	place(cf.state->planes[1], tp->sw, tp->sh, tp->x, tp->y, tp->sh, tp->sw,
	      rotation, DRM_BLEND_ALPHA_OPAQUE, DRM_MODE_BLEND_PREMULTI);
	s = &cf.state->planes[1]->base.base;
	drm_rect_translate(&s->src, 1 << 16, 2 << 16);
	/* Clipped as drm_atomic_helper_check_plane_state() clips it. */
	drm_rect_rotate(&s->src, fb->width << 16, fb->height << 16, rotation);
	visible = drm_rect_clip_scaled(&s->src, &s->dst, &clip);
	drm_rect_rotate_inv(&s->src, fb->width << 16, fb->height << 16, rotation);
	KUNIT_ASSERT_TRUE(test, visible);
	/* The frame's number in place of a seed. */
	return check_frame(test, &cf, id) &&
	       check_layer_lines(test, cf.state->planes[1], id);
}

/*
 * Every line of rotated 32-bit RGB planes shown at their size, which the
 * composer gathers four lines at a time (gather_tile(): four words of
 * four lines a read, in NEON where the CPU has it, the words after the
 * last four in scalar): rotated by 90 and 270 degrees, reflected in X, in
 * Y or not, XRGB8888 laid as runs and ARGB8888 blended, over an XRGB8888
 * primary plane, from a source rectangle that is not at the
 * framebuffer's corner.  Heights that are no multiple of four (the last
 * lines gathered one at a time), lines of 3, 4, 15 to 17 and 31 to 33
 * words, planes that start on a line that is no multiple of four and end
 * within a tile's lines, and planes clipped at the top and the bottom of
 * the CRTC as the atomic check clips them (drm_rect_clip_scaled() on the
 * rotated source).  Each frame is composed every way and held against
 * the per-pixel reference, every line of it, in the order the composer
 * takes them, the only one it has: a layer keeps the tile it gathered
 * for the frame, and serves the next three lines from it.  Then each line
 * through gembuf_layer_line(), from the bottom up: that one makes the
 * layer afresh at each call, so each line is the first of a tile of its
 * own, or, in the last three, gathered alone.
 *
 * The tile path is taken for an XRGB8888 or ARGB8888 plane without a
 * color key, rotated by 90 or 270 degrees, whose source lines go one
 * apart from column to column (a step: shown at its size across) and
 * source columns one apart from line to line (shown at its size down),
 * on lines with four of the plane's lines left; in NEON where it holds
 * kernel-mode NEON and the line is four words or more.
 *
 * It fails if two lines of a tile are swapped (line[1] and line[2] of
 * gembuf_neon_gather_tile(), or @dir taken as 1 in gather_tile()'s
 * scalar loop), if layer_words() serves a line from another quarter of
 * the tile ((y - gathered_y + 1) * n), if a tile begins on another line
 * than the one asked for, or if the scalar words after the NEON ones
 * are read from another place.
 */
static void gembuf_test_rotated_tiles(struct kunit *test)
{
	static const struct tile_plane planes[] = {
		{ 13, 17, 3, 0 },	/* three tiles and a line */
		{ 10, 33, 0, 1 },	/* from line 1: two tiles, two lines */
		{ 7, 16, 5, 3 },	/* one tile, three lines */
		{ 8, 4, 50, 5 },	/* two tiles of one NEON block a line */
		{ 6, 3, 60, 2 },	/* lines shorter than a NEON block */
		{ 22, 31, 2, 6 },	/* clipped at the bottom: 18 lines */
		{ 9, 15, 40, 17 },	/* clipped at the bottom: 7 lines */
		{ 30, 17, 44, 1 },	/* clipped at the bottom: 23 lines */
		{ 12, 20, 20, -3 },	/* clipped at the top: 9 lines */
	};
	static const unsigned int rotations[] = {
		DRM_MODE_ROTATE_90, DRM_MODE_ROTATE_270,
	};
	static const unsigned int reflections[] = {
		0, DRM_MODE_REFLECT_X, DRM_MODE_REFLECT_Y,
	};
	static const u32 formats[] = { DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888 };
	struct rnd_state *rnd = line_rnd(test);
	unsigned int c, r, f, k;
	int id = 0;

	say_simd(test);
	for (c = 0; c < ARRAY_SIZE(planes); c++)
		for (r = 0; r < ARRAY_SIZE(rotations); r++)
			for (f = 0; f < ARRAY_SIZE(reflections); f++)
				for (k = 0; k < ARRAY_SIZE(formats); k++)
					if (!tile_frame(test, rnd, &planes[c],
							rotations[r] | reflections[f],
							formats[k], 64, 24, id++))
						return;
}

/*
 * Table @pick of @n columns @xs holds gembuf_pick_init()'s contract for
 * source columns [@sx1, @sx2): each block's run of sixteen words lies
 * within them, and each column's word is its source column's, its bytes
 * in order.
 */
static void check_pick(struct kunit *test, const struct gembuf_pick *pick,
		       const int *xs, int n, int sx1, int sx2)
{
	const struct gembuf_pick *p;
	int i, j, b;

	for (i = 0; i < round_down(n, GEMBUF_SIMD_PIXELS); i++) {
		p = &pick[i / GEMBUF_SIMD_PIXELS];
		j = i % GEMBUF_SIMD_PIXELS;
		KUNIT_ASSERT_TRUE_MSG(test, p->base >= 0 &&
				      sx1 + p->base + GEMBUF_SIMD_PIXELS <= sx2,
				      "block %d: run from %d", i / GEMBUF_SIMD_PIXELS,
				      p->base);
		for (b = 0; b < 4; b++)
			KUNIT_ASSERT_EQ_MSG(test, p->bytes[4 * j + b],
					    4 * (xs[i] - sx1 - p->base) + b,
					    "column %d, byte %d", i, b);
	}
}

/*
 * gembuf_pick_init() makes tables only for what a run of sixteen source
 * words serves: it refuses a plane with fewer source columns than a run,
 * and a block of sixteen columns whose first and last source columns
 * are sixteen or more apart, either way round (magnifying never makes
 * one, as its columns step by one at most; the composer then picks in
 * scalar).  Blocks whose ends are fifteen apart, each column its own
 * source column, get tables; so does a plane shown twice its width,
 * whose last block's run is pulled back to end at the plane's last
 * column.
 */
static void gembuf_test_pick_init_refused(struct kunit *test)
{
	const int n = 3 * GEMBUF_SIMD_PIXELS;
	struct gembuf_pick *pick = kunit_kcalloc(test, n / GEMBUF_SIMD_PIXELS,
						 sizeof(*pick), GFP_KERNEL);
	int *xs = kunit_kcalloc(test, n, sizeof(*xs), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, pick);
	KUNIT_ASSERT_NOT_NULL(test, xs);
	/* Columns 100 to 147, one each: every block's ends 15 apart. */
	for (i = 0; i < n; i++)
		xs[i] = 100 + i;
	KUNIT_ASSERT_TRUE(test, gembuf_pick_init(pick, xs, n, 100, 100 + n));
	check_pick(test, pick, xs, n, 100, 100 + n);
	for (i = 0; i < n / GEMBUF_SIMD_PIXELS; i++)
		KUNIT_EXPECT_EQ(test, pick[i].base, i * GEMBUF_SIMD_PIXELS);
	/* Fifteen source columns: one fewer than a run. */
	KUNIT_EXPECT_FALSE(test, gembuf_pick_init(pick, xs, GEMBUF_SIMD_PIXELS, 100,
						  100 + GEMBUF_SIMD_PIXELS - 1));

	/* Twice its width: 24 source columns, the last run from the 9th. */
	for (i = 0; i < n; i++)
		xs[i] = 100 + i / 2;
	KUNIT_ASSERT_TRUE(test, gembuf_pick_init(pick, xs, n, 100, 100 + n / 2));
	check_pick(test, pick, xs, n, 100, 100 + n / 2);
	KUNIT_EXPECT_EQ(test, pick[0].base, 0);
	KUNIT_EXPECT_EQ(test, pick[2].base, n / 2 - GEMBUF_SIMD_PIXELS);

	/*
	 * From the second block's last column on, one column further: that
	 * block's ends are 16 apart (116 and 132), the others' 15.
	 */
	for (i = 0; i < n; i++)
		xs[i] = 100 + i + (i >= 2 * GEMBUF_SIMD_PIXELS - 1);
	KUNIT_EXPECT_FALSE(test, gembuf_pick_init(pick, xs, n, 100, 101 + n));
	/* Reflected: the same block, from 132 down to 116. */
	for (i = 0; i < n; i++)
		xs[i] = 200 + n - xs[i];
	KUNIT_EXPECT_FALSE(test, gembuf_pick_init(pick, xs, n, 100, 101 + n));
	/* Each block on its own but that one still gets a table. */
	KUNIT_EXPECT_TRUE(test, gembuf_pick_init(pick, xs, GEMBUF_SIMD_PIXELS,
						 100, 101 + n));
	KUNIT_EXPECT_TRUE(test, gembuf_pick_init(pick, xs + 2 * GEMBUF_SIMD_PIXELS,
						 GEMBUF_SIMD_PIXELS, 100, 101 + n));
}

/*
 * gembuf_layer_line() gives the words of 32-bit RGB planes without a
 * color key, the ones the composer reads as words, and refuses others
 * with -EINVAL, writing nothing: a YCbCr plane shown magnified (which
 * the composer reads with its words reader, from a picking table this
 * call has none of) and an XRGB8888 plane with a color key (which the
 * composer reads pixel by pixel, to key them).  The same XRGB8888 plane
 * without its key gives its words.
 */
static void gembuf_test_layer_line_refused(struct kunit *test)
{
	const int fw = 20, fh = 4, n = 3 * fw;
	struct drm_framebuffer fb = {
		.format = drm_format_info(DRM_FORMAT_YUYV),
		.width = fw, .height = fh, .pitches = { fw * 2 },
	};
	struct gembuf_plane_state ps = {
		.base.base = {
			.fb = &fb, .alpha = DRM_BLEND_ALPHA_OPAQUE,
			.pixel_blend_mode = DRM_MODE_BLEND_PREMULTI,
			.rotation = DRM_MODE_ROTATE_0,
			.src = { 0, 0, fw << 16, fh << 16 },
			.dst = { 5, 0, 5 + n, fh },
		},
	};
	__le32 *pixels = kunit_kcalloc(test, fw * fh, sizeof(*pixels), GFP_KERNEL);
	__le32 *got = kunit_kcalloc(test, n, sizeof(*got), GFP_KERNEL);
	int i, y;

	KUNIT_ASSERT_NOT_NULL(test, pixels);
	KUNIT_ASSERT_NOT_NULL(test, got);
	for (i = 0; i < fw * fh; i++)
		pixels[i] = cpu_to_le32(0x5a000000 | i);
	ps.vaddr[0] = pixels;

	/* YUYV, three times its width: magnified, read as words. */
	memset(got, 0xa5, n * sizeof(*got));
	KUNIT_EXPECT_EQ(test, gembuf_layer_line(&ps, 1, got), -EINVAL);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, le32_to_cpu(got[i]), 0xa5a5a5a5);

	/* XRGB8888 at its size, keyed: read pixel by pixel. */
	fb.format = drm_format_info(DRM_FORMAT_XRGB8888);
	fb.pitches[0] = fw * 4;
	ps.base.base.dst = (struct drm_rect){ 5, 0, 5 + fw, fh };
	ps.colorkey = 0x000005;
	ps.colorkey_mask = 0x0000ff;
	KUNIT_EXPECT_EQ(test, gembuf_layer_line(&ps, 1, got), -EINVAL);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, le32_to_cpu(got[i]), 0xa5a5a5a5);

	/* Without its key: each line's words, as the framebuffer has them. */
	ps.colorkey_mask = 0;
	for (y = 0; y < fh; y++) {
		KUNIT_ASSERT_EQ(test, gembuf_layer_line(&ps, y, got), 0);
		KUNIT_EXPECT_MEMEQ(test, got, pixels + y * fw, fw * sizeof(*got));
	}
}

/*
 * A writeback into the buffer a plane shows (both properties may name one
 * object) stores the frame composed from what the buffer held when the
 * frame began, as any other frame.  A cached, 8-byte aligned XRGB8888
 * writeback without a CRC or a gamma LUT is composed in place, line by
 * line in the buffer; but laying the planes below a line there would
 * overwrite that line of the plane above before it is read, so a frame
 * whose plane shows an object of the writeback framebuffer is composed
 * in the line buffer and stored.  Here a translucent ARGB8888 overlay
 * over the whole frame shows the writeback buffer itself, over a random
 * opaque primary: the buffer ends holding the per-pixel reference made
 * from its pixels before the frame.
 */
static void gembuf_test_compose_wb_shown(struct kunit *test)
{
	const int w = 64, h = 8;
	struct rnd_state *rnd = line_rnd(test);
	struct drm_gem_object *obj = kunit_kzalloc(test, sizeof(*obj), GFP_KERNEL);
	struct drm_framebuffer *wb_fb = kunit_kzalloc(test, sizeof(*wb_fb),
						      GFP_KERNEL);
	struct drm_framebuffer *fb;
	struct compose_frame cf;
	__le32 *mem;
	int x, y;

	KUNIT_ASSERT_NOT_NULL(test, obj);
	KUNIT_ASSERT_NOT_NULL(test, wb_fb);
	frame_init(test, &cf, w, h, 2);
	random_fb(test, rnd, cf.state->planes[0], DRM_FORMAT_XRGB8888, w, h);
	place(cf.state->planes[0], w, h, 0, 0, w, h, DRM_MODE_ROTATE_0,
	      DRM_BLEND_ALPHA_OPAQUE, DRM_MODE_BLEND_PREMULTI);
	/* The overlay's framebuffer: the writeback buffer, lines unpadded. */
	fb = random_fb(test, rnd, cf.state->planes[1], DRM_FORMAT_ARGB8888, w, h);
	fb->pitches[0] = w * 4;
	fb->obj[0] = obj;
	place(cf.state->planes[1], w, h, 0, 0, w, h, DRM_MODE_ROTATE_0, 0x8000,
	      DRM_MODE_BLEND_PREMULTI);
	mem = cf.state->planes[1]->vaddr[0];
	*wb_fb = (struct drm_framebuffer){
		.format = drm_format_info(DRM_FORMAT_XRGB8888),
		.width = w, .height = h, .pitches = { w * 4 },
	};
	wb_fb->obj[0] = obj;
	cf.state->wb_fb = wb_fb;
	cf.state->wb_vaddr = mem;
	cf.state->wb_cached = true;

	/* From the buffer as the frame begins. */
	reference_frame(test, &cf);
	gembuf_compose(cf.state, cf.state->planes, false, true);
	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++)
			KUNIT_ASSERT_EQ_MSG(test, le32_to_cpu(mem[y * w + x]) & 0xffffff,
					    cf.want8[y * w + x], "at (%d,%d)", x, y);
}

/*
 * A writeback framebuffer whose pixels start at an offset into its
 * object gets the frame from there, a line every pitch, and nothing
 * before it, after it or in the padding of its lines is written: at an
 * offset of 8 bytes, where lines stay 8-byte aligned and a cached
 * buffer is composed in place, and of 4, where they do not and a line
 * with a plane blended onto it is composed in the line buffer and
 * stored (a line of opaque planes alone is laid straight into the
 * buffer either way).  An opaque primary, a translucent overlay on some
 * lines: lines of both kinds.
 */
static void gembuf_test_compose_wb_offset(struct kunit *test)
{
	static const u32 offsets[] = { 8, 4 };
	const int w = 40, h = 12, pitch = w * 4 + 8, size = 8 + pitch * h;
	struct rnd_state *rnd = line_rnd(test);
	struct drm_framebuffer *wb_fb = kunit_kzalloc(test, sizeof(*wb_fb),
						      GFP_KERNEL);
	u8 *mem = kunit_kmalloc(test, size, GFP_KERNEL);
	struct compose_frame cf;
	unsigned int k;
	int i, o, x, y;
	u8 want;

	KUNIT_ASSERT_NOT_NULL(test, wb_fb);
	KUNIT_ASSERT_NOT_NULL(test, mem);
	frame_init(test, &cf, w, h, 2);
	random_fb(test, rnd, cf.state->planes[0], DRM_FORMAT_XRGB8888, w, h);
	place(cf.state->planes[0], w, h, 0, 0, w, h, DRM_MODE_ROTATE_0,
	      DRM_BLEND_ALPHA_OPAQUE, DRM_MODE_BLEND_PREMULTI);
	random_fb(test, rnd, cf.state->planes[1], DRM_FORMAT_ARGB8888, 20, 6);
	place(cf.state->planes[1], 20, 6, 7, 3, 20, 6, DRM_MODE_ROTATE_0, 0xc000,
	      DRM_MODE_BLEND_COVERAGE);
	reference_frame(test, &cf);
	for (k = 0; k < ARRAY_SIZE(offsets); k++) {
		*wb_fb = (struct drm_framebuffer){
			.format = drm_format_info(DRM_FORMAT_XRGB8888),
			.width = w, .height = h, .pitches = { pitch },
			.offsets = { offsets[k] },
		};
		cf.state->wb_fb = wb_fb;
		cf.state->wb_vaddr = mem;
		cf.state->wb_cached = true;
		memset(mem, 0x5a, size);
		gembuf_compose(cf.state, cf.state->planes, false, true);
		/* Each byte: a channel of the frame's, its X byte, or untouched. */
		for (i = 0; i < size; i++) {
			o = i - (int)offsets[k];
			y = o / pitch;
			x = o % pitch / 4;
			if (o < 0 || y >= h || x >= w)
				want = 0x5a;
			else if (o % 4 == 3)
				continue;
			else
				want = cf.want8[y * w + x] >> (8 * (o % 4));
			KUNIT_ASSERT_EQ_MSG(test, mem[i], want,
					    "offset %u: byte %d (pixel %d,%d)",
					    offsets[k], i, x, y);
		}
	}
}

static const int compose_seeds[COMPOSE_CASES] = {
	 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15,
	16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
	32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
};

static void compose_seed_desc(const int *seed, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "seed-%d", *seed);
}

KUNIT_ARRAY_PARAM(compose, compose_seeds, compose_seed_desc);

static struct kunit_case gembuf_composer_test_cases[] = {
	KUNIT_CASE(gembuf_test_blend_rgb32_line),
	KUNIT_CASE(gembuf_test_blend_rgb32_sweep),
	KUNIT_CASE(gembuf_test_blend_rgb32_words),
	KUNIT_CASE(gembuf_test_rgb32_words),
	KUNIT_CASE(gembuf_test_lay_runs),
	KUNIT_CASE(gembuf_test_widen_line),
	KUNIT_CASE(gembuf_test_clear_x_line),
	KUNIT_CASE(gembuf_test_layer_line),
	KUNIT_CASE(gembuf_test_narrow_line),
	KUNIT_CASE(gembuf_test_words_readers),
	KUNIT_CASE(gembuf_test_rgb565_words_all),
	KUNIT_CASE(gembuf_test_yuv_words_grid),
	KUNIT_CASE_PARAM(gembuf_test_compose_random, compose_gen_params),
	KUNIT_CASE(gembuf_test_compose_magnified),
	KUNIT_CASE(gembuf_test_pick_random),
	KUNIT_CASE(gembuf_test_rotated_tiles),
	KUNIT_CASE(gembuf_test_pick_init_refused),
	KUNIT_CASE(gembuf_test_layer_line_refused),
	KUNIT_CASE(gembuf_test_compose_wb_shown),
	KUNIT_CASE(gembuf_test_compose_wb_offset),
	{}
};

static struct kunit_suite gembuf_composer_test_suite = {
	.name = "gembuf_composer",
	.test_cases = gembuf_composer_test_cases,
};

kunit_test_suite(gembuf_composer_test_suite);
