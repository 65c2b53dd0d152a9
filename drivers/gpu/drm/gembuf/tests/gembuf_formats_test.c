// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the pieces of gembuf's composer: the pixel reader of
 * every plane format (YCbCr in each encoding and range), the writeback
 * writers, blending in each pixel blend mode and the source pixel of each
 * rotation, reflection and scale.  Expected values are worked out from
 * the formats' and DRM's definitions, not from the code under test.
 */

#include <drm/drm_blend.h>
#include <drm/drm_color_mgmt.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_plane.h>
#include <kunit/test.h>
#include <linux/prandom.h>

#include "../gembuf_kms.h"

struct reader_case {
	const char *name;
	u32 format;
	u8 plane0[8];		/* line 0 of plane 0 */
	u8 plane1[4];		/* line 0 of plane 1 (NV12 CbCr) */
	enum drm_color_encoding encoding;
	enum drm_color_range range;
	int x;
	struct gembuf_pixel want;
	u16 tol;		/* per channel, for YCbCr rounding */
};

#define OPAQUE(r_, g_, b_) { .a = 0xffff, .r = (r_), .g = (g_), .b = (b_) }

static const struct reader_case reader_cases[] = {
	{ "xrgb8888", DRM_FORMAT_XRGB8888, { 0x99, 0x66, 0x33, 0x00 },
	  .want = OPAQUE(0x3333, 0x6666, 0x9999) },
	{ "argb8888", DRM_FORMAT_ARGB8888, { 0x99, 0x66, 0x33, 0x80 },
	  .want = { .a = 0x8080, .r = 0x3333, .g = 0x6666, .b = 0x9999 } },
	{ "xbgr8888", DRM_FORMAT_XBGR8888, { 0x33, 0x66, 0x99, 0x00 },
	  .want = OPAQUE(0x3333, 0x6666, 0x9999) },
	{ "abgr8888", DRM_FORMAT_ABGR8888, { 0x33, 0x66, 0x99, 0x40 },
	  .want = { .a = 0x4040, .r = 0x3333, .g = 0x6666, .b = 0x9999 } },
	/* n-bit channels scale to 16 bits with their maximum at 0xffff. */
	{ "rgb565-red", DRM_FORMAT_RGB565, { 0x00, 0xf8 },
	  .want = OPAQUE(0xffff, 0, 0) },
	{ "rgb565-green", DRM_FORMAT_RGB565, { 0xe0, 0x07 },
	  .want = OPAQUE(0, 0xffff, 0) },
	{ "rgb565-blue16", DRM_FORMAT_RGB565, { 0x10, 0x00 },
	  .want = OPAQUE(0, 0, 0x8421) },		/* 16 * 65535 / 31 */
	{ "xrgb2101010-red", DRM_FORMAT_XRGB2101010, { 0x00, 0x00, 0xf0, 0x3f },
	  .want = OPAQUE(0xffff, 0, 0) },
	{ "xrgb2101010-blue512", DRM_FORMAT_XRGB2101010, { 0x00, 0x02, 0x00, 0x00 },
	  .want = OPAQUE(0, 0, 0x8020) },		/* 512 * 65535 / 1023 */
	{ "xrgb16161616", DRM_FORMAT_XRGB16161616,
	  { 0x34, 0x12, 0x78, 0x56, 0xbc, 0x9a, 0x00, 0x00 },
	  .want = OPAQUE(0x9abc, 0x5678, 0x1234) },
	{ "argb16161616", DRM_FORMAT_ARGB16161616,
	  { 0x34, 0x12, 0x78, 0x56, 0xbc, 0x9a, 0x21, 0x43 },
	  .want = { .a = 0x4321, .r = 0x9abc, .g = 0x5678, .b = 0x1234 } },
	/* YCbCr: Y0 Cb Y1 Cr; the second pixel shares the first's chroma. */
	{ "yuyv-bt601-limited-white", DRM_FORMAT_YUYV, { 235, 128, 235, 128 },
	  .want = OPAQUE(0xffff, 0xffff, 0xffff) },
	{ "yuyv-bt601-limited-black", DRM_FORMAT_YUYV, { 16, 128, 16, 128 },
	  .want = OPAQUE(0, 0, 0) },
	{ "yuyv-bt601-limited-red-odd", DRM_FORMAT_YUYV, { 16, 90, 81, 240 },
	  .x = 1, .want = OPAQUE(0xffff, 0, 0), .tol = 0x200 },
	{ "yuyv-bt709-limited-red", DRM_FORMAT_YUYV, { 63, 102, 63, 240 },
	  .encoding = DRM_COLOR_YCBCR_BT709, .want = OPAQUE(0xffff, 0, 0),
	  .tol = 0x300 },
	{ "yuyv-bt709-limited-green", DRM_FORMAT_YUYV, { 173, 42, 173, 26 },
	  .encoding = DRM_COLOR_YCBCR_BT709, .want = OPAQUE(0, 0xffff, 0),
	  .tol = 0x300 },
	{ "yuyv-bt601-full-white", DRM_FORMAT_YUYV, { 255, 128, 255, 128 },
	  .range = DRM_COLOR_YCBCR_FULL_RANGE, .want = OPAQUE(0xffff, 0xffff, 0xffff) },
	{ "yuyv-bt601-full-red", DRM_FORMAT_YUYV, { 76, 85, 76, 255 },
	  .range = DRM_COLOR_YCBCR_FULL_RANGE, .want = OPAQUE(0xffff, 0, 0),
	  .tol = 0x200 },
	{ "uyvy-bt601-limited-red-odd", DRM_FORMAT_UYVY, { 90, 16, 240, 81 },
	  .x = 1, .want = OPAQUE(0xffff, 0, 0), .tol = 0x200 },
	{ "uyvy-bt601-limited-black-even", DRM_FORMAT_UYVY, { 128, 16, 128, 235 },
	  .want = OPAQUE(0, 0, 0) },
	{ "nv12-bt601-limited-red-odd", DRM_FORMAT_NV12, { 16, 81 }, { 90, 240 },
	  .x = 1, .want = OPAQUE(0xffff, 0, 0), .tol = 0x200 },
	{ "nv12-bt709-full-white", DRM_FORMAT_NV12, { 255, 255 }, { 128, 128 },
	  .encoding = DRM_COLOR_YCBCR_BT709, .range = DRM_COLOR_YCBCR_FULL_RANGE,
	  .want = OPAQUE(0xffff, 0xffff, 0xffff) },
};

static void reader_case_desc(const struct reader_case *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(reader, reader_cases, reader_case_desc);

static void expect_pixel(struct kunit *test, const struct gembuf_pixel *got,
			 const struct gembuf_pixel *want, u16 tol)
{
	KUNIT_EXPECT_LE_MSG(test, abs(got->a - want->a), tol, "alpha %04x", got->a);
	KUNIT_EXPECT_LE_MSG(test, abs(got->r - want->r), tol, "red %04x", got->r);
	KUNIT_EXPECT_LE_MSG(test, abs(got->g - want->g), tol, "green %04x", got->g);
	KUNIT_EXPECT_LE_MSG(test, abs(got->b - want->b), tol, "blue %04x", got->b);
}

static void gembuf_test_reader(struct kunit *test)
{
	const struct reader_case *t = test->param_value;
	struct drm_plane_state state = {
		.color_encoding = t->encoding,
		.color_range = t->range,
	};
	struct drm_framebuffer fb = {
		.format = drm_format_info(t->format),
		.width = 2,
		.height = 2,
		.pitches = { sizeof(t->plane0), sizeof(t->plane1) },
	};
	u8 *mem = kunit_kzalloc(test, 2 * (sizeof(t->plane0) + sizeof(t->plane1)),
				GFP_KERNEL);
	void *planes[DRM_FORMAT_MAX_PLANES] = { mem, mem + 2 * sizeof(t->plane0) };
	gembuf_read_fn read = gembuf_format_reader(t->format);
	struct gembuf_pixel got;

	KUNIT_ASSERT_NOT_NULL(test, mem);
	KUNIT_ASSERT_NOT_NULL(test, read);
	memcpy(planes[0], t->plane0, sizeof(t->plane0));
	memcpy(planes[1], t->plane1, sizeof(t->plane1));
	read(planes, &fb, 0, &t->x, 0, 1, &state, &got, false);
	expect_pixel(test, &got, &t->want, t->tol);
}

/* The reader returns the columns asked for, in the order asked. */
static void gembuf_test_reader_columns(struct kunit *test)
{
	/* XRGB8888 pixels of blue 1 to 4, in memory order. */
	static const u8 line[16] = { 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0 };
	static const int xs[5] = { 3, 0, 0, 2, 1 };
	struct drm_framebuffer fb = {
		.format = drm_format_info(DRM_FORMAT_XRGB8888),
		.width = 4,
		.height = 1,
		.pitches = { sizeof(line) },
	};
	void *planes[DRM_FORMAT_MAX_PLANES] = { (void *)line };
	struct drm_plane_state state = {};
	struct gembuf_pixel out[5];
	int i;

	gembuf_format_reader(DRM_FORMAT_XRGB8888)(planes, &fb, 0, xs, 0, 5, &state, out,
						  false);
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test, out[i].b, (xs[i] + 1) * 0x101);
}

/* Formats no plane offers have no reader. */
static void gembuf_test_reader_unknown(struct kunit *test)
{
	KUNIT_EXPECT_NULL(test, gembuf_format_reader(DRM_FORMAT_BGR888));
	KUNIT_EXPECT_NULL(test, gembuf_format_reader(DRM_FORMAT_C8));
	KUNIT_EXPECT_NULL(test, gembuf_format_reader(0));
}

/*
 * The writers store little-endian words, as the formats define them: the
 * expected lines are bytes in memory order.
 */
static void gembuf_test_write_line(struct kunit *test)
{
	static const struct gembuf_pixel line[2] = {
		OPAQUE(0xffff, 0x8000, 0x0000),
		OPAQUE(0x0100, 0x00ff, 0x1234),
	};
	/* Line 0 untouched; 0x00ff8000 and 0x00010012. */
	static const u8 want_xrgb8888[16] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x80, 0xff, 0x00, 0x12, 0x00, 0x01, 0x00,
	};
	/* 0x3ff << 20 | 0x200 << 10 and 0x004 << 20 | 0x003 << 10 | 0x048. */
	static const u8 want_xrgb2101010[8] = {
		0x00, 0x00, 0xf8, 0x3f, 0x48, 0x0c, 0x40, 0x00,
	};
	struct drm_framebuffer fb = { .pitches = { 8 } };
	u8 out[16] = {};

	fb.format = drm_format_info(DRM_FORMAT_XRGB8888);
	gembuf_write_line(&fb, out, 1, line, 2);
	KUNIT_EXPECT_MEMEQ(test, out, want_xrgb8888, sizeof(out));

	fb.format = drm_format_info(DRM_FORMAT_XRGB2101010);
	gembuf_write_line(&fb, out, 0, line, 2);
	KUNIT_EXPECT_MEMEQ(test, out, want_xrgb2101010, sizeof(want_xrgb2101010));
}

struct blend_case {
	const char *name;
	struct gembuf_pixel dst, src;
	u16 alpha, mode;
	struct gembuf_pixel want;
};

static const struct blend_case blend_cases[] = {
	{ "opaque-replaces", OPAQUE(0x1111, 0x2222, 0x3333), OPAQUE(0xaaaa, 0xbbbb, 0xcccc),
	  0xffff, DRM_MODE_BLEND_PREMULTI, OPAQUE(0xaaaa, 0xbbbb, 0xcccc) },
	{ "premulti-half-over-black", OPAQUE(0, 0, 0),
	  { .a = 0x8000, .r = 0x8000, .g = 0x4000, .b = 0 },
	  0xffff, DRM_MODE_BLEND_PREMULTI, OPAQUE(0x8000, 0x4000, 0) },
	{ "premulti-half-over-white", OPAQUE(0xffff, 0xffff, 0xffff),
	  { .a = 0x8000, .r = 0x8000, .g = 0, .b = 0 },
	  0xffff, DRM_MODE_BLEND_PREMULTI, OPAQUE(0xffff, 0x7fff, 0x7fff) },
	{ "coverage-half-over-black", OPAQUE(0, 0, 0),
	  { .a = 0x8000, .r = 0xffff, .g = 0x8000, .b = 0 },
	  0xffff, DRM_MODE_BLEND_COVERAGE, OPAQUE(0x8000, 0x4000, 0) },
	{ "none-ignores-pixel-alpha", OPAQUE(0, 0, 0),
	  { .a = 0, .r = 0xffff, .g = 0xffff, .b = 0xffff },
	  0x4000, DRM_MODE_BLEND_PIXEL_NONE, OPAQUE(0x4000, 0x4000, 0x4000) },
	{ "plane-alpha-zero-keeps-dst", OPAQUE(0x1234, 0x5678, 0x9abc),
	  OPAQUE(0xffff, 0xffff, 0xffff), 0, DRM_MODE_BLEND_PREMULTI,
	  OPAQUE(0x1234, 0x5678, 0x9abc) },
	/* Invalid pre-multiplied pixels (color above alpha) saturate. */
	{ "premulti-invalid-saturates", OPAQUE(0xffff, 0xffff, 0xffff),
	  { .a = 0x8000, .r = 0xffff, .g = 0xffff, .b = 0xffff },
	  0xffff, DRM_MODE_BLEND_PREMULTI, OPAQUE(0xffff, 0xffff, 0xffff) },
};

static void blend_case_desc(const struct blend_case *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(blend, blend_cases, blend_case_desc);

static void gembuf_test_blend(struct kunit *test)
{
	const struct blend_case *t = test->param_value;
	struct gembuf_pixel dst = t->dst;

	gembuf_blend(&dst, &t->src, t->alpha, t->mode);
	expect_pixel(test, &dst, &t->want, 1);
}

struct point_case {
	const char *name;
	unsigned int rotation;
	struct drm_rect src;	/* pixels, made 16.16 by the test */
	struct drm_rect dst;
	int x, y;		/* on the CRTC */
	int sx, sy;		/* framebuffer pixel expected */
};

/* A 4x2 source at the origin, shown 4x2 (2x4 when rotated) at 10,20. */
#define SRC4x2	{ 0, 0, 4, 2 }
#define DST4x2	{ 10, 20, 14, 22 }
#define DST2x4	{ 10, 20, 12, 24 }

static const struct point_case point_cases[] = {
	{ "rotate-0", DRM_MODE_ROTATE_0, SRC4x2, DST4x2, 10, 20, 0, 0 },
	{ "rotate-0-last", DRM_MODE_ROTATE_0, SRC4x2, DST4x2, 13, 21, 3, 1 },
	{ "rotate-180", DRM_MODE_ROTATE_180, SRC4x2, DST4x2, 10, 20, 3, 1 },
	{ "reflect-x", DRM_MODE_ROTATE_0 | DRM_MODE_REFLECT_X, SRC4x2, DST4x2,
	  10, 20, 3, 0 },
	{ "reflect-y", DRM_MODE_ROTATE_0 | DRM_MODE_REFLECT_Y, SRC4x2, DST4x2,
	  10, 20, 0, 1 },
	/* Counter-clockwise: the top-right corner comes to the top left. */
	{ "rotate-90", DRM_MODE_ROTATE_90, SRC4x2, DST2x4, 10, 20, 3, 0 },
	{ "rotate-90-bottom-left", DRM_MODE_ROTATE_90, SRC4x2, DST2x4, 10, 23, 0, 0 },
	{ "rotate-270", DRM_MODE_ROTATE_270, SRC4x2, DST2x4, 10, 20, 0, 1 },
	/* Reflected first, then rotated. */
	{ "rotate-90-reflect-x", DRM_MODE_ROTATE_90 | DRM_MODE_REFLECT_X, SRC4x2,
	  DST2x4, 10, 20, 0, 0 },
	{ "upscale-2x", DRM_MODE_ROTATE_0, SRC4x2, { 10, 20, 18, 24 }, 13, 21, 1, 0 },
	{ "downscale-half", DRM_MODE_ROTATE_0, { 0, 0, 8, 4 }, DST4x2, 11, 21, 3, 3 },
	{ "source-offset", DRM_MODE_ROTATE_0, { 2, 1, 6, 3 }, DST4x2, 10, 20, 2, 1 },
};

static void point_case_desc(const struct point_case *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(point, point_cases, point_case_desc);

static void gembuf_test_source_point(struct kunit *test)
{
	const struct point_case *t = test->param_value;
	struct drm_plane_state s = {
		.rotation = t->rotation,
		.src = { t->src.x1 << 16, t->src.y1 << 16, t->src.x2 << 16,
			 t->src.y2 << 16 },
		.dst = t->dst,
	};
	int sx, sy;

	gembuf_source_point(&s, t->x, t->y, &sx, &sy);
	KUNIT_EXPECT_EQ(test, sx, t->sx);
	KUNIT_EXPECT_EQ(test, sy, t->sy);
}

/*
 * A wide downscale, 7680 columns to 1000: every destination column shows
 * the source column under its centre, floor((2i + 1) * 7680 / 2000),
 * which a 16-bit fraction of the destination got wrong for 32 of them.
 */
static void gembuf_test_source_point_wide(struct kunit *test)
{
	struct drm_plane_state s = {
		.rotation = DRM_MODE_ROTATE_0,
		.src = { 0, 0, 7680 << 16, 1 << 16 },
		.dst = { 0, 0, 1000, 1 },
	};
	int i, sx, sy;

	for (i = 0; i < 1000; i++) {
		gembuf_source_point(&s, i, 0, &sx, &sy);
		KUNIT_EXPECT_EQ_MSG(test, sx, (2 * i + 1) * 7680 / 2000, "column %d", i);
		KUNIT_EXPECT_EQ(test, sy, 0);
	}
	/* Reflected, the same columns from the other end. */
	s.rotation |= DRM_MODE_REFLECT_X;
	for (i = 0; i < 1000; i++) {
		gembuf_source_point(&s, i, 0, &sx, &sy);
		KUNIT_EXPECT_EQ_MSG(test, sx, (2 * (999 - i) + 1) * 7680 / 2000,
				    "reflected column %d", i);
	}
}

static struct kunit_case gembuf_formats_test_cases[] = {
	KUNIT_CASE_PARAM(gembuf_test_reader, reader_gen_params),
	KUNIT_CASE(gembuf_test_reader_columns),
	KUNIT_CASE(gembuf_test_reader_unknown),
	KUNIT_CASE(gembuf_test_write_line),
	KUNIT_CASE_PARAM(gembuf_test_blend, blend_gen_params),
	KUNIT_CASE_PARAM(gembuf_test_source_point, point_gen_params),
	KUNIT_CASE(gembuf_test_source_point_wide),
	{}
};

static struct kunit_suite gembuf_formats_test_suite = {
	.name = "gembuf_formats",
	.test_cases = gembuf_formats_test_cases,
};

kunit_test_suite(gembuf_formats_test_suite);

MODULE_DESCRIPTION("KUnit tests of gembuf's composer");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
