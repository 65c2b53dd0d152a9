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
#include <drm/drm_plane.h>
#include <kunit/test.h>
#include <linux/prandom.h>

#include "../gembuf_kms.h"

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
	read(planes, s->fb, 0, xs, n, s, px);
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
 * @alpha.  Return whether they agree.
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
	int i;

	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, got);
	memcpy(want, below, size);
	memcpy(got, below, size);
	per_pixel_line(test, want, src, n, &s);
	gembuf_blend_rgb32_line(got, src, n, &s);
	i = first_difference(got, want, n);
	if (i >= 0)
		KUNIT_FAIL(test,
			   "%p4cc mode %u alpha %#x, pixel %d %08x over %04x %04x %04x: got %04x %04x %04x %04x, want %04x %04x %04x %04x",
			   &format, mode, alpha, i, le32_to_cpu(src[i]), below[i].r,
			   below[i].g, below[i].b, got[i].a, got[i].r, got[i].g,
			   got[i].b, want[i].a, want[i].r, want[i].g, want[i].b);
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
	gembuf_widen_line(got, words, LINE_LEN);
	KUNIT_EXPECT_EQ(test, first_difference(got, want, LINE_LEN), -1);

	gembuf_clear_x_line(words, LINE_LEN);
	gembuf_narrow_line(stored, want, LINE_LEN);
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

/* The X bytes of every word are cleared, odd counts included, and no more. */
static void gembuf_test_clear_x_line(struct kunit *test)
{
	struct rnd_state *rnd = line_rnd(test);
	__le32 *got = kunit_kcalloc(test, LINE_LEN + 1, sizeof(*got), GFP_KERNEL);
	__le32 *want = kunit_kcalloc(test, LINE_LEN + 1, sizeof(*want), GFP_KERNEL);
	int n, i;

	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_ASSERT_NOT_NULL(test, want);
	for (n = LINE_LEN - 3; n <= LINE_LEN; n++) {
		random_words(rnd, got, LINE_LEN + 1);
		for (i = 0; i <= LINE_LEN; i++)
			want[i] = i < n ? got[i] & cpu_to_le32(0xffffff) : got[i];
		gembuf_clear_x_line(got, n);
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

	KUNIT_ASSERT_NOT_NULL(test, words);
	KUNIT_ASSERT_NOT_NULL(test, stored);
	KUNIT_ASSERT_NOT_NULL(test, line);
	random_pixels(rnd, line, LINE_LEN);
	gembuf_narrow_line(words, line, LINE_LEN);
	gembuf_write_line(&fb, stored, 0, line, LINE_LEN);
	KUNIT_EXPECT_MEMEQ(test, words, stored, LINE_LEN * sizeof(*words));
}

static struct kunit_case gembuf_composer_test_cases[] = {
	KUNIT_CASE(gembuf_test_blend_rgb32_line),
	KUNIT_CASE(gembuf_test_blend_rgb32_sweep),
	KUNIT_CASE(gembuf_test_rgb32_words),
	KUNIT_CASE(gembuf_test_lay_runs),
	KUNIT_CASE(gembuf_test_clear_x_line),
	KUNIT_CASE(gembuf_test_layer_line),
	KUNIT_CASE(gembuf_test_narrow_line),
	{}
};

static struct kunit_suite gembuf_composer_test_suite = {
	.name = "gembuf_composer",
	.test_cases = gembuf_composer_test_cases,
};

kunit_test_suite(gembuf_composer_test_suite);
