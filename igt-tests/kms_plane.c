// SPDX-License-Identifier: MIT
/*
 * kms_plane: the plane contract of upstream igt's test of this name, with
 * its subtest names, on every CRTC and plane: a plane covering a hole in
 * the primary gives the CRC of an unbroken primary, a partly covering one
 * the CRC of the same picture drawn by the CPU (before and after a DPMS
 * cycle), the primary's source rectangle pans a larger framebuffer, and
 * every format a plane offers shows eight solid colors (side by side, in
 * one frame rather than upstream's frame a color) with the CRC of the
 * same colors in XRGB8888 (YCbCr in each encoding and range, and with the
 * source rectangle clamped inside a border of the inverse color).
 *
 * Like upstream, the format comparisons run through a gamma LUT that
 * keeps the top five bits of each channel, so YCbCr rounding does not
 * show; unlike upstream, planes are driven with atomic commits of
 * lib/gembuf_kms and the LUT is the CRTC's GAMMA_LUT.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <drm_fourcc.h>

#include "igt.h"
#include "gembuf.h"
#include "gembuf_kms.h"
#include "gembuf_ref.h"
#include "igt_kms.h"
#include "igt_pipe_crc.h"

IGT_TEST_DESCRIPTION("Testing different plane positions, panning and pixel formats.");

#define LUT_MASK	0xf800
#define CROP		4

struct color {
	double r, g, b;
};

static const struct color colors[] = {
	{ 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 }, { 1, 1, 1 },
	{ 0, 0, 0 }, { 0, 1, 1 }, { 1, 0, 1 }, { 1, 1, 0 },
};

static const char *const encodings[] = { "BT.601", "BT.709" };
static const char *const ranges[] = { "limited", "full" };

static int fd = -1;
static int num_pipes;

static const char *plane_type_name(uint32_t type)
{
	return type == DRM_PLANE_TYPE_PRIMARY ? "primary" :
	       type == DRM_PLANE_TYPE_CURSOR ? "cursor" : "overlay";
}

/*
 * Commit @l on @k (layer i on plane i) and take the CRC of the first frame
 * after it.  The collector runs only for that frame: with a CRC source on,
 * the software composer composes every vblank, which under emulation
 * would slow everything the test does in between.
 */
static void commit_crc(struct gk *k, igt_pipe_crc_t *pc, const struct gk_layer *l,
		       unsigned int n, igt_crc_t *crc)
{
	igt_assert_eq(gk_commit(k, l, n, NULL, 0), 0);
	igt_pipe_crc_collect_crc(pc, crc);
}

/* Layers that put @fb on plane @idx of @k over @under on the primary. */
static unsigned int on_plane(struct gk *k, unsigned int idx, const struct gk_fb *under,
			     struct gk_layer *l, const struct gk_layer *top)
{
	memset(l, 0, sizeof(*l) * GK_MAX_PLANES);
	l[0] = gk_layer_of(under);
	if (idx == 0) {
		l[0] = *top;
		return 1;
	}
	l[idx] = *top;
	return idx + 1;
}

/*
 * Light pipe @pipe at 640x480 with @black, a black primary, and make a
 * CRC collector (CRCs are only taken on an active CRTC).
 */
static igt_pipe_crc_t *pipe_init(struct gk *k, int pipe, struct gk_fb *black)
{
	struct gk_layer l;

	gk_init_pipe(k, fd, pipe);
	igt_assert(gk_set_mode(k, 640, 480));
	gk_fb_create(k, black, 640, 480, DRM_FORMAT_XRGB8888);
	l = gk_layer_of(black);
	igt_assert_eq(gk_commit(k, &l, 1, NULL, 0), 0);
	return igt_pipe_crc_new(fd, pipe, IGT_PIPE_CRC_SOURCE_AUTO);
}

static void pipe_fini(struct gk *k, igt_pipe_crc_t *pc, struct gk_fb *black)
{
	igt_pipe_crc_free(pc);
	gk_set_gamma(k, NULL);
	gk_disable(k);
	gk_fb_destroy(k, black);
	drmModeDestroyPropertyBlob(fd, k->mode_blob);
}

enum {
	POSITION_COVERED = 1 << 0,
	POSITION_DPMS = 1 << 1,
};

/*
 * A green primary with a black 64x64 hole at 100,100 and a green 64x64
 * plane on each non-primary plane in turn: over the hole it gives the CRC
 * of an all-green primary; moved to 132,132 the CRC of the same picture
 * painted on the primary alone; a DPMS off/on cycle changes neither.
 */
static void test_position(int pipe, unsigned int flags)
{
	int at = flags & POSITION_COVERED ? 100 : 132;
	struct gk_layer l[GK_MAX_PLANES], top;
	struct gk_fb black, holed, sprite, picture;
	igt_crc_t want, crc, crc2;
	igt_pipe_crc_t *pc;
	struct gk k;
	unsigned int n;

	pc = pipe_init(&k, pipe, &black);
	gk_fb_create(&k, &holed, 640, 480, DRM_FORMAT_XRGB8888);
	gk_fb_paint(&holed, 0, 0, 640, 480, 0, 1, 0, 0, 0);
	gk_fb_paint(&holed, 100, 100, 64, 64, 0, 0, 0, 0, 0);
	gk_fb_create(&k, &sprite, 64, 64, DRM_FORMAT_XRGB8888);
	gk_fb_paint(&sprite, 0, 0, 64, 64, 0, 1, 0, 0, 0);
	/* What every plane must show: the hole with the sprite drawn over it. */
	gk_fb_create(&k, &picture, 640, 480, DRM_FORMAT_XRGB8888);
	gk_fb_paint(&picture, 0, 0, 640, 480, 0, 1, 0, 0, 0);
	gk_fb_paint(&picture, 100, 100, 64, 64, 0, 0, 0, 0, 0);
	gk_fb_paint(&picture, at, at, 64, 64, 0, 1, 0, 0, 0);
	top = gk_layer_of(&picture);
	commit_crc(&k, pc, &top, 1, &want);

	for (unsigned int i = 1; i < k.num_planes; i++) {
		igt_info("pipe %s plane %u (%s)\n", kmstest_pipe_name(pipe), i,
			 plane_type_name(k.planes[i].type));
		top = gk_layer_of(&sprite);
		top.zpos = k.planes[i].type == DRM_PLANE_TYPE_OVERLAY ? (int)i : -1;
		top.x = top.y = at;
		n = on_plane(&k, i, &holed, l, &top);
		commit_crc(&k, pc, l, n, &crc);
		igt_assert_crc_equal(&want, &crc);

		if (flags & POSITION_DPMS) {
			drmModeConnectorPtr c = drmModeGetConnector(fd, k.conn_id);

			kmstest_set_connector_dpms(fd, c, DRM_MODE_DPMS_OFF);
			kmstest_set_connector_dpms(fd, c, DRM_MODE_DPMS_ON);
			drmModeFreeConnector(c);
		}
		igt_pipe_crc_collect_crc(pc, &crc2);
		igt_assert_crc_equal(&crc, &crc2);
	}
	pipe_fini(&k, pc, &black);
	gk_fb_destroy(&k, &picture);
	gk_fb_destroy(&k, &sprite);
	gk_fb_destroy(&k, &holed);
}

/*
 * A primary framebuffer twice the mode in each direction, red in its
 * top-left quarter and blue in its bottom-right one, panned to either
 * corner by its source rectangle: the CRC of an all-red or all-blue one.
 */
static void test_panning(int pipe, bool bottom_right)
{
	struct gk_fb black, big, solid;
	struct gk_layer l;
	igt_crc_t want, crc;
	igt_pipe_crc_t *pc;
	struct gk k;

	pc = pipe_init(&k, pipe, &black);
	gk_fb_create(&k, &solid, 640, 480, DRM_FORMAT_XRGB8888);
	gk_fb_paint(&solid, 0, 0, 640, 480, !bottom_right, 0, bottom_right, 0, 0);
	l = gk_layer_of(&solid);
	commit_crc(&k, pc, &l, 1, &want);

	gk_fb_create(&k, &big, 1280, 960, DRM_FORMAT_XRGB8888);
	gk_fb_paint(&big, 0, 0, 1280, 960, 0, 1, 0, 0, 0);
	gk_fb_paint(&big, 0, 0, 640, 480, 1, 0, 0, 0, 0);
	gk_fb_paint(&big, 640, 480, 640, 480, 0, 0, 1, 0, 0);
	l = gk_layer_of(&big);
	l.sx = bottom_right ? 640 : 0;
	l.sy = bottom_right ? 480 : 0;
	l.sw = 640;
	l.sh = 480;
	commit_crc(&k, pc, &l, 1, &crc);
	igt_assert_crc_equal(&want, &crc);

	pipe_fini(&k, pc, &black);
	gk_fb_destroy(&k, &big);
	gk_fb_destroy(&k, &solid);
}

/* The GAMMA_LUT that keeps the top five bits of each channel. */
static void set_masked_lut(struct gk *k)
{
	struct drm_color_lut lut[256];

	for (int i = 0; i < 256; i++) {
		uint16_t v = (i * 0xffff / 255) & LUT_MASK;

		lut[i] = (struct drm_color_lut){ .red = v, .green = v, .blue = v };
	}
	gk_set_gamma(k, lut);
}

/* Size of the plane's picture: the cursor's, or the whole mode. */
static void plane_size(const struct gk *k, const struct gk_plane *p,
		       uint32_t *w, uint32_t *h)
{
	uint64_t v;

	if (p->type != DRM_PLANE_TYPE_CURSOR) {
		*w = k->mode.hdisplay;
		*h = k->mode.vdisplay;
		return;
	}
	*w = *h = 64;
	if (!drmGetCap(fd, DRM_CAP_CURSOR_WIDTH, &v))
		*w = v;
	if (!drmGetCap(fd, DRM_CAP_CURSOR_HEIGHT, &v))
		*h = v;
}

/*
 * Paint the eight colors as vertical bands over @w x @h at @border,@border
 * of @fb; with @border, the border around them in each band's inverse.
 */
static void paint_bands(const struct gk_fb *fb, uint32_t w, uint32_t h,
			uint32_t border, int enc, int range)
{
	uint32_t n = ARRAY_SIZE(colors), bw = w / n;

	for (uint32_t c = 0; c < n; c++) {
		const struct color *col = &colors[c];
		uint32_t x = border + c * bw;

		if (border)
			gk_fb_paint(fb, c ? x : 0, 0, bw + (c ? 0 : border) +
				    (c == n - 1 ? border : 0), fb->height,
				    1 - col->r, 1 - col->g, 1 - col->b, enc, range);
		gk_fb_paint(fb, x, border, bw, h, col->r, col->g, col->b, enc, range);
	}
}

/*
 * The eight solid colors in @format (as bands) on plane @idx, at 0,0 over
 * a black primary, against @want, the CRC of the same bands in XRGB8888 on
 * the primary; with @crop, the source rectangle leaves out a border of
 * the inverse colors.  Returns whether the CRCs match.
 */
static bool format_ok(struct gk *k, igt_pipe_crc_t *pc, unsigned int idx,
		      uint32_t format, int enc, int range, bool crop,
		      const struct gk_fb *black, const igt_crc_t *want)
{
	const struct gk_plane *p = &k->planes[idx];
	struct gk_layer l[GK_MAX_PLANES], top;
	uint32_t w, h, border = crop ? CROP : 0;
	struct gk_fb fb;
	igt_crc_t crc;

	plane_size(k, p, &w, &h);
	gk_fb_create(k, &fb, w + 2 * border, h + 2 * border, format);
	paint_bands(&fb, w, h, border, enc, range);
	top = gk_layer_of(&fb);
	top.zpos = p->type == DRM_PLANE_TYPE_OVERLAY ? (int)idx : -1;
	top.sx = top.sy = border;
	top.sw = w;
	top.sh = h;
	top.encoding = enc;
	top.range = range;
	commit_crc(k, pc, l, on_plane(k, idx, black, l, &top), &crc);
	gk_fb_destroy(k, &fb);
	return igt_check_crc_equal(&crc, want);
}

/* Every format of every plane of @pipe; see format_ok(). */
static void test_pixel_formats(int pipe, bool crop)
{
	igt_crc_t want[2];
	struct gk_fb black, picture;
	unsigned int failures = 0;
	igt_pipe_crc_t *pc;
	struct gk k;

	pc = pipe_init(&k, pipe, &black);
	set_masked_lut(&k);
	gk_fb_create(&k, &picture, 640, 480, DRM_FORMAT_XRGB8888);
	/*
	 * References: the bands in XRGB8888 over the screen, or over the
	 * cursor's size (DRM_CAP_CURSOR_*, as the cursor's own picture).
	 */
	for (int size = 0; size < 2; size++) {
		struct gk_layer l = gk_layer_of(&picture);
		uint32_t w = 640, h = 480;

		if (size) {
			const struct gk_plane *cursor = gk_plane(&k, DRM_PLANE_TYPE_CURSOR, 0);

			igt_assert(cursor);
			plane_size(&k, cursor, &w, &h);
			/* What of the cursor's bands the 640x480 screen shows. */
			igt_assert(w <= 640);
			h = h < 480 ? h : 480;
		}
		gk_fb_paint(&picture, 0, 0, 640, 480, 0, 0, 0, 0, 0);
		paint_bands(&picture, w, h, 0, 0, 0);
		commit_crc(&k, pc, &l, 1, &want[size]);
	}

	for (unsigned int i = 0; i < k.num_planes; i++) {
		const struct gk_plane *p = &k.planes[i];
		drmModePlanePtr info = drmModeGetPlane(fd, p->id);

		igt_assert(info);
		for (uint32_t f = 0; f < info->count_formats; f++) {
			uint32_t format = info->formats[f];
			int n = gk_format_is_yuv(format) ? 2 : 1;

			/* Upstream's clamping test leaves XRGB8888 out. */
			if (crop && format == DRM_FORMAT_XRGB8888)
				continue;
			for (int e = 0; e < n; e++) {
				for (int r = 0; r < n; r++) {
					bool ok;

					ok = format_ok(&k, pc, i, format, e, r, crop, &black,
						       &want[p->type == DRM_PLANE_TYPE_CURSOR]);
					igt_info("%s.%u %.4s%s%s%s%s: %s\n",
						 kmstest_pipe_name(pipe), i,
						 (const char *)&format, n > 1 ? " " : "",
						 n > 1 ? encodings[e] : "", n > 1 ? " " : "",
						 n > 1 ? ranges[r] : "",
						 ok ? "ok" : "CRC mismatch");
					failures += !ok;
				}
			}
		}
		drmModeFreePlane(info);
	}
	pipe_fini(&k, pc, &black);
	gk_fb_destroy(&k, &picture);
	igt_assert_eq(failures, 0);
}

#define for_each_pipe_dynamic(pipe) \
	for (int pipe = 0; pipe < num_pipes; pipe++) \
		igt_dynamic_f("pipe-%s-planes", kmstest_pipe_name(pipe))

igt_main
{
	igt_fixture {
		fd = gembuf_open_display();
		igt_require(drmSetMaster(fd) == 0);
		num_pipes = gk_num_pipes(fd);
		igt_assert(num_pipes > 0);
	}

	igt_describe("Every format of every plane shows solid colors with the CRC of the same colors in XRGB8888 (YCbCr in each encoding and range).");
	igt_subtest_with_dynamic("pixel-format")
		for_each_pipe_dynamic(pipe)
			test_pixel_formats(pipe, false);

	igt_describe("The same with the source rectangle inside a border of the inverse color: no border pixel shows.");
	igt_subtest_with_dynamic("pixel-format-source-clamping")
		for_each_pipe_dynamic(pipe)
			test_pixel_formats(pipe, true);

	igt_describe("A plane over a hole in the primary gives the CRC of an unbroken primary.");
	igt_subtest_with_dynamic("plane-position-covered")
		for_each_pipe_dynamic(pipe)
			test_position(pipe, POSITION_COVERED);

	igt_describe("A plane partly over a hole in the primary gives the CRC of the CPU's picture of it.");
	igt_subtest_with_dynamic("plane-position-hole")
		for_each_pipe_dynamic(pipe)
			test_position(pipe, 0);

	igt_describe("The same, and the CRC is unchanged by a DPMS off/on cycle.");
	igt_subtest_with_dynamic("plane-position-hole-dpms")
		for_each_pipe_dynamic(pipe)
			test_position(pipe, POSITION_DPMS);

	igt_describe("The primary's source rectangle at the top-left of a larger framebuffer shows that corner.");
	igt_subtest_with_dynamic("plane-panning-top-left")
		for_each_pipe_dynamic(pipe)
			test_panning(pipe, false);

	igt_describe("The primary's source rectangle at the bottom-right of a larger framebuffer shows that corner.");
	igt_subtest_with_dynamic("plane-panning-bottom-right")
		for_each_pipe_dynamic(pipe)
			test_panning(pipe, true);

	igt_fixture {
		drm_close_driver(fd);
	}
}
