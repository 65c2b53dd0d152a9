// SPDX-License-Identifier: MIT
/*
 * kms_plane_scaling: the plane scaling contract of upstream igt's test of
 * this name, with its subtest names.  Upstream skips every subtest on
 * drivers it cannot count scalers of (only Intel and MSM), and where it
 * runs it only checks that commits succeed; here every plane that scales
 * (gembuf_plane_atomic_check(): the primary and the overlays, from 1/8 to
 * 8 times; the cursor not at all) shows a noise framebuffer unscaled,
 * downscaled 0.5 and 0.25 times, upscaled from 20x20 and clipped by the
 * screen's edges, in every format it offers and, at XRGB8888, in every
 * rotation and reflection it offers, and each frame read back through
 * the writeback connector equals the CPU reference (lib/gembuf_ref), as
 * gembuf_overlay checks its frames.
 *
 * Unlike upstream:
 *  - the sizes are fixed for a 640x480 mode, to keep the composed frames
 *    cheap under emulation, and chosen so that no destination pixel's
 *    centre falls on the edge between two source pixels: there which
 *    pixel is nearest is a tie that KMS does not define, and the
 *    driver's 16-bit fixed point and the reference's floating point
 *    break it differently.  The downscales are 1024x512 to 512x256 and
 *    256x128 (power-of-two destinations, where both compute exactly),
 *    not the mode to half and a quarter of it;
 *  - 20x20 to the whole screen is beyond the driver's limit of 8 times:
 *    it is refused with ERANGE (upstream skips on EINVAL or ERANGE), and
 *    the limit itself, 160x160, is what is compared, with one pixel more
 *    in either direction refused;
 *  - with a 90 or 270 degree rotation the framebuffer is the transposed
 *    one, so that the rotated source keeps the case's scaling factors;
 *  - one pipe: both CRTCs get identical planes (gembuf_output_init()).
 *
 * invalid-parameters has upstream's two cases (a source less than a
 * pixel high or wide: EINVAL or ERANGE) and what DRM's atomic checks
 * define for zero, "negative" (unsigned 16.16 sources, CRTC_W/H ranging
 * over 0..INT_MAX), overflowing and beyond-the-limit sizes, on every
 * plane that scales, and the cursor refusing any scaling; a refused
 * commit leaves the frame as it was, and the valid ones that show
 * nothing (an empty destination, fully off the top-left of the screen)
 * show nothing.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <drm_fourcc.h>

#include "igt.h"
#include "gembuf.h"
#include "gembuf_kms.h"
#include "gembuf_ref.h"
#include "igt_kms.h"

IGT_TEST_DESCRIPTION("Test display plane scaling");

#define WIDTH		640
#define HEIGHT		480
/* gembuf_plane_atomic_check(): 1/8 to 8 times, either way. */
#define MAX_FACTOR	8
/* Refused as a scaling factor out of range: upstream takes either errno. */
#define REFUSED_SCALING	1

static int fd = -1;
static struct gk k;
static struct gk_fb wb;
static uint32_t *ref;

static const struct scaling {
	const char *formats, *rotations;	/* upstream's subtest names */
	const char *what;
	uint32_t sw, sh;	/* the source as it shows, after rotation */
	uint32_t w, h;		/* the destination, at 0,0 */
	uint32_t beyond_w, beyond_h;	/* upstream's destination, if beyond the limit */
} scalings[] = {
	{ "plane-scaler-unity-scaling-with-pixel-format",
	  "plane-scaler-unity-scaling-with-rotation",
	  "unscaled over the whole 640x480 screen", 640, 480, 640, 480, 0, 0 },
	{ "plane-downscale-factor-0-5-with-pixel-format",
	  "plane-downscale-factor-0-5-with-rotation",
	  "downscaled 0.5 times, 1024x512 to 512x256", 1024, 512, 512, 256, 0, 0 },
	{ "plane-downscale-factor-0-25-with-pixel-format",
	  "plane-downscale-factor-0-25-with-rotation",
	  "downscaled 0.25 times, 1024x512 to 256x128", 1024, 512, 256, 128, 0, 0 },
	{ "plane-upscale-20x20-with-pixel-format",
	  "plane-upscale-20x20-with-rotation",
	  "20x20 upscaled 8 times (the driver's limit) to 160x160, where the whole screen (upstream's case) and one pixel more either way are refused with EINVAL or ERANGE",
	  20, 20, 160, 160, WIDTH, HEIGHT },
	{ "plane-scaler-with-clipping-clamping-pixel-formats",
	  "plane-scaler-with-clipping-clamping-rotation",
	  "640x480 upscaled to 1024x512 and clipped by the right and bottom edges of the screen",
	  640, 480, 1024, 512, 0, 0 },
};

/* Which planes scale: all but the cursor (gembuf_plane_atomic_check()). */
static bool scales(const struct gk_plane *p)
{
	return p->type != DRM_PLANE_TYPE_CURSOR;
}

static bool transposed(uint64_t rotation)
{
	return rotation & (DRM_MODE_ROTATE_90 | DRM_MODE_ROTATE_270);
}

/* Layers that put @top on plane @idx alone; returns their number. */
static unsigned int alone(unsigned int idx, const struct gk_layer *top,
			  struct gk_layer *l)
{
	memset(l, 0, sizeof(*l) * GK_MAX_PLANES);
	l[idx] = *top;
	return idx + 1;
}

/*
 * Commit @l with writeback and compare the whole written-back frame with
 * the CPU reference, which stays in ref: no channel more than @tol apart.
 */
static void check_ref(const struct gk_layer *l, unsigned int n, int tol)
{
	igt_assert_eq(gk_commit(&k, l, n, &wb, 0), 0);
	gk_ref_compose(&k, l, n, ref);
	igt_assert_eq(gk_ref_compare(&wb, ref, tol), 0);
}

static void assert_result(int ret, int want, const char *what)
{
	if (want == REFUSED_SCALING)
		igt_assert_f(ret == -EINVAL || ret == -ERANGE,
			     "%s: %d, want -EINVAL or -ERANGE\n", what, ret);
	else
		igt_assert_f(ret == want, "%s: %d, want %d\n", what, ret, want);
}

/* @l refused as scaling out of range, TEST_ONLY and committed. */
static void assert_refused(const struct gk_layer *l, unsigned int n,
			   const char *what)
{
	assert_result(gk_commit(&k, l, n, NULL, DRM_MODE_ATOMIC_TEST_ONLY),
		      REFUSED_SCALING, what);
	assert_result(gk_commit(&k, l, n, NULL, 0), REFUSED_SCALING, what);
}

/*
 * A noise framebuffer in @format on plane @idx alone, scaled as @s says
 * and rotated by @rotation, equals the CPU reference.
 */
static void test_scaling(unsigned int idx, const struct scaling *s, uint32_t format,
			 uint64_t rotation, uint32_t seed)
{
	bool t = transposed(rotation);
	struct gk_layer l[GK_MAX_PLANES], top;
	struct gk_fb fb;
	unsigned int n;

	gk_fb_create(&k, &fb, t ? s->sh : s->sw, t ? s->sw : s->sh, format);
	gk_fb_noise(&fb, seed);
	top = gk_layer_of(&fb);
	top.rotation = rotation;
	top.blend = 0;		/* pre-multiplied, whatever was left set */
	if (s->beyond_w) {
		top.w = s->beyond_w;
		top.h = s->beyond_h;
		assert_refused(l, alone(idx, &top, l), "upstream's destination");
	}
	/* At the limit, one pixel more either way is beyond it. */
	if (s->w == s->sw * MAX_FACTOR) {
		top.w = s->w + 1;
		top.h = s->h;
		assert_refused(l, alone(idx, &top, l), "one column beyond the limit");
	}
	if (s->h == s->sh * MAX_FACTOR) {
		top.w = s->w;
		top.h = s->h + 1;
		assert_refused(l, alone(idx, &top, l), "one line beyond the limit");
	}
	top.w = s->w;
	top.h = s->h;
	n = alone(idx, &top, l);
	check_ref(l, n, gk_ref_format_tol(format));
	gk_fb_destroy(&k, &fb);
}

/* Every format of every plane that scales, each a dynamic subtest. */
static void test_formats(const struct scaling *s)
{
	for (unsigned int i = 0; i < k.num_planes; i++) {
		drmModePlanePtr info;

		if (!scales(&k.planes[i]))
			continue;
		info = drmModeGetPlane(fd, k.planes[i].id);
		igt_assert(info);
		for (uint32_t f = 0; f < info->count_formats; f++) {
			uint32_t format = info->formats[f];

			igt_dynamic_f("pipe-%s-plane-%u-%.4s", kmstest_pipe_name(k.pipe),
				      i, (const char *)&format)
				test_scaling(i, s, format, DRM_MODE_ROTATE_0, i * 64 + f + 1);
		}
		drmModeFreePlane(info);
	}
}

/*
 * The values of plane @p's rotation property: each rotation it offers
 * with each combination of the reflections it offers, at most 16.
 */
static unsigned int plane_rotations(const struct gk_plane *p, uint64_t rots[16])
{
	uint64_t rotate = DRM_MODE_ROTATE_0, reflect = 0;
	drmModePropertyPtr prop;
	unsigned int n = 0;

	if (p->rotation_prop) {
		prop = drmModeGetProperty(fd, p->rotation_prop);
		igt_assert(prop && (prop->flags & DRM_MODE_PROP_BITMASK));
		for (int i = 0; i < prop->count_enums; i++) {
			uint64_t bit = 1ull << prop->enums[i].value;

			if (bit & DRM_MODE_ROTATE_MASK)
				rotate |= bit;
			else if (bit & DRM_MODE_REFLECT_MASK)
				reflect |= bit;
		}
		drmModeFreeProperty(prop);
	}
	for (uint64_t r = DRM_MODE_ROTATE_0; r <= DRM_MODE_ROTATE_270; r <<= 1) {
		if (!(rotate & r))
			continue;
		for (uint64_t f = 0; f <= DRM_MODE_REFLECT_MASK; f += DRM_MODE_REFLECT_X)
			if ((f & reflect) == f)
				rots[n++] = r | f;
	}
	return n;
}

/* Every rotation of every plane that scales, in XRGB8888. */
static void test_rotations(const struct scaling *s)
{
	static const char *const refl_names[] = { "", "-reflect-x", "-reflect-y",
						  "-reflect-xy" };

	for (unsigned int i = 0; i < k.num_planes; i++) {
		uint64_t rots[16];
		unsigned int n;

		if (!scales(&k.planes[i]))
			continue;
		n = plane_rotations(&k.planes[i], rots);
		for (unsigned int r = 0; r < n; r++) {
			int deg = __builtin_ctzll(rots[r] & DRM_MODE_ROTATE_MASK) * 90;

			igt_dynamic_f("pipe-%s-plane-%u-rotate-%d%s", kmstest_pipe_name(k.pipe),
				      i, deg, refl_names[(rots[r] & DRM_MODE_REFLECT_MASK) /
							 DRM_MODE_REFLECT_X])
				test_scaling(i, s, DRM_FORMAT_XRGB8888, rots[r], i * 64 + r + 1);
		}
	}
}

static void add(drmModeAtomicReqPtr req, uint32_t obj, uint32_t prop, uint64_t v)
{
	if (prop)
		igt_assert(drmModeAtomicAddProperty(req, obj, prop, v) >= 0);
}

static const struct invalid {
	const char *name;
	uint32_t sw, sh;	/* SRC_W/H, 16.16, of all of a 256x256 framebuffer */
	int32_t x, y;		/* CRTC_X/Y */
	uint32_t w, h;		/* CRTC_W/H */
	int err;		/* 0: valid, showing nothing */
	uint32_t limit_w, limit_h;	/* a valid destination at the limit */
} invalid[] = {
	/* Upstream's: a source less than a pixel high or wide. */
	{ "less-than-1-height-src", 256 << 16, 30, 0, 0, 256, 8, REFUSED_SCALING, 0, 0 },
	{ "less-than-1-width-src", 30, 256 << 16, 0, 0, 8, 256, REFUSED_SCALING, 0, 0 },
	/* An empty source: scaling by 0. */
	{ "zero-width-src", 0, 256 << 16, 0, 0, 256, 256, REFUSED_SCALING, 0, 0 },
	{ "zero-height-src", 256 << 16, 0, 0, 0, 256, 256, REFUSED_SCALING, 0, 0 },
	/* SRC_W/H are unsigned: -1.0 is a size beyond the framebuffer. */
	{ "negative-width-src", 0xffff0000u, 256 << 16, 0, 0, 256, 256, -ENOSPC, 0, 0 },
	{ "negative-height-src", 256 << 16, 0xffff0000u, 0, 0, 256, 256, -ENOSPC, 0, 0 },
	{ "src-beyond-fb", 257 << 16, 256 << 16, 0, 0, 256, 256, -ENOSPC, 0, 0 },
	/* CRTC_W/H range over 0..INT_MAX. */
	{ "negative-width-crtc", 256 << 16, 256 << 16, 0, 0, 0xffffffffu, 256, -EINVAL, 0, 0 },
	{ "negative-height-crtc", 256 << 16, 256 << 16, 0, 0, 256, 0xffffffffu, -EINVAL, 0, 0 },
	{ "crtc-width-beyond-int-max", 256 << 16, 256 << 16, 0, 0, 0x80000000u, 256, -EINVAL, 0, 0 },
	/* CRTC_X + CRTC_W past INT_MAX: DRM's overflow check. */
	{ "crtc-x-overflow", 256 << 16, 256 << 16, INT_MAX - 100, 0, 256, 256, -ERANGE, 0, 0 },
	{ "crtc-y-overflow", 256 << 16, 256 << 16, 0, INT_MAX - 100, 256, 256, -ERANGE, 0, 0 },
	/* One pixel beyond the driver's limits, which are valid. */
	{ "upscale-beyond-limit", 32 << 16, 32 << 16, 0, 0, 257, 256, REFUSED_SCALING,
	  256, 256 },
	{ "downscale-beyond-limit", 256 << 16, 256 << 16, 0, 0, 31, 32, REFUSED_SCALING,
	  32, 32 },
	/* Valid, showing nothing: an empty destination, or all of it off screen. */
	{ "zero-width-crtc", 256 << 16, 256 << 16, 0, 0, 0, 256, 0, 0, 0 },
	{ "zero-height-crtc", 256 << 16, 256 << 16, 0, 0, 256, 0, 0, 0, 0 },
	{ "offscreen-negative-crtc", 256 << 16, 256 << 16, -1000, -1000, 256, 256, 0, 0, 0 },
	{ "offscreen-negative-crtc-scaled", 256 << 16, 256 << 16, -600, -600, 512, 512, 0, 0, 0 },
};

/*
 * One atomic commit on top of the current state: with @t, plane @idx
 * showing @fb with @t's source and destination (rotation 0); with @to,
 * a writeback of the frame into @to.  Returns 0 or -errno.
 */
static int commit_raw(unsigned int idx, const struct gk_fb *fb, const struct invalid *t,
		      const struct gk_fb *to, uint32_t flags)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	const struct gk_plane *p = &k.planes[idx];
	int32_t fence = -1;
	int ret;

	igt_assert(req);
	if (t) {
		add(req, p->id, k.p_fb, fb->fb_id);
		add(req, p->id, k.p_crtc, k.crtc_id);
		add(req, p->id, k.p_sx, 0);
		add(req, p->id, k.p_sy, 0);
		add(req, p->id, k.p_sw, t->sw);
		add(req, p->id, k.p_sh, t->sh);
		add(req, p->id, k.p_cx, (uint64_t)(int64_t)t->x);
		add(req, p->id, k.p_cy, (uint64_t)(int64_t)t->y);
		add(req, p->id, k.p_cw, t->w);
		add(req, p->id, k.p_ch, t->h);
		add(req, p->id, p->rotation_prop, DRM_MODE_ROTATE_0);
	}
	if (to) {
		add(req, k.wb_id, k.wb_crtc_id, k.crtc_id);
		add(req, k.wb_id, k.wb_fb_prop, to->fb_id);
		add(req, k.wb_id, k.wb_fence_prop, (uint64_t)(uintptr_t)&fence);
	}
	ret = drmModeAtomicCommit(fd, req, flags | DRM_MODE_ATOMIC_ALLOW_MODESET, NULL);
	ret = ret ? -errno : 0;
	drmModeAtomicFree(req);
	if (!ret && to && !(flags & DRM_MODE_ATOMIC_TEST_ONLY)) {
		struct pollfd pfd = { .fd = fence, .events = POLLIN };

		igt_assert(fence >= 0);
		igt_assert_eq(poll(&pfd, 1, 60000), 1);
		close(fence);
	}
	return ret;
}

/* Keep the written-back frame in ref, as a reference to compare with. */
static void save_frame(void)
{
	for (uint32_t y = 0; y < wb.height; y++)
		for (uint32_t x = 0; x < wb.width; x++)
			ref[y * wb.width + x] = ((uint32_t *)((uint8_t *)wb.map +
						 (size_t)y * wb.pitch))[x] & 0xffffff;
}

/*
 * @t on every plane that scales, over a frame of that plane alone showing
 * 64x64 of the framebuffer: the result @t wants, TEST_ONLY and committed,
 * and then the frame unchanged (refused) or black (valid, showing
 * nothing).  At a limit, first the limit itself equals the reference.
 */
static void test_invalid(const struct invalid *t)
{
	struct gk_layer l[GK_MAX_PLANES], top;
	struct gk_fb fb;

	gk_fb_create(&k, &fb, 256, 256, DRM_FORMAT_XRGB8888);
	gk_fb_noise(&fb, 1000);
	for (unsigned int i = 0; i < k.num_planes; i++) {
		if (!scales(&k.planes[i]))
			continue;
		igt_debug("plane %u\n", i);
		top = gk_layer_of(&fb);
		top.blend = 0;
		if (t->limit_w) {
			top.sw = t->sw >> 16;
			top.sh = t->sh >> 16;
			top.w = t->limit_w;
			top.h = t->limit_h;
			check_ref(l, alone(i, &top, l), 0);
		}
		top = gk_layer_of(&fb);
		top.blend = 0;
		top.x = top.y = 100;
		top.sw = top.sh = 64;
		igt_assert_eq(gk_commit(&k, l, alone(i, &top, l), &wb, 0), 0);
		save_frame();

		assert_result(commit_raw(i, &fb, t, NULL, DRM_MODE_ATOMIC_TEST_ONLY),
			      t->err, "TEST_ONLY");
		assert_result(commit_raw(i, &fb, t, NULL, 0), t->err, "commit");
		if (!t->err)
			memset(ref, 0, (size_t)WIDTH * HEIGHT * sizeof(*ref));
		igt_assert_eq(commit_raw(i, NULL, NULL, &wb, 0), 0);
		igt_assert_eq(gk_ref_compare(&wb, ref, 0), 0);
	}
	gk_fb_destroy(&k, &fb);
}

/*
 * The cursor at its own size equals the reference; any other size of the
 * same source is refused and leaves the frame as it was.
 */
static void test_cursor(void)
{
	static const uint32_t sizes[][2] = {
		{ 128, 128 }, { 32, 32 }, { 65, 64 }, { 64, 63 },
	};
	const struct gk_plane *cursor = gk_plane(&k, DRM_PLANE_TYPE_CURSOR, 0);
	struct gk_layer l[GK_MAX_PLANES], top;
	unsigned int idx, n;
	struct gk_fb fb;

	igt_require(cursor);
	idx = cursor - k.planes;
	gk_fb_create(&k, &fb, 64, 64, DRM_FORMAT_ARGB8888);
	gk_fb_noise(&fb, 2000);
	top = gk_layer_of(&fb);
	top.blend = 0;
	top.x = top.y = 100;
	n = alone(idx, &top, l);
	check_ref(l, n, 1);
	for (unsigned int i = 0; i < ARRAY_SIZE(sizes); i++) {
		char what[32];

		snprintf(what, sizeof(what), "64x64 to %ux%u", sizes[i][0], sizes[i][1]);
		l[idx].w = sizes[i][0];
		l[idx].h = sizes[i][1];
		assert_refused(l, n, what);
	}
	igt_assert_eq(commit_raw(idx, NULL, NULL, &wb, 0), 0);
	igt_assert_eq(gk_ref_compare(&wb, ref, 1), 0);
	gk_fb_destroy(&k, &fb);
}

igt_main
{
	igt_fixture {
		fd = gembuf_open_display();
		igt_require(drmSetMaster(fd) == 0);
		gk_init(&k, fd);
		igt_assert(gk_set_mode(&k, WIDTH, HEIGHT));
		ref = calloc(WIDTH * HEIGHT, sizeof(*ref));
		igt_assert(ref);
		gk_fb_create(&k, &wb, WIDTH, HEIGHT, DRM_FORMAT_XRGB8888);
	}

	for (unsigned int i = 0; i < ARRAY_SIZE(scalings); i++) {
		igt_describe_f("Every format of every plane that scales (primary and overlays), %s, alone on the screen, equals the CPU reference (writeback).",
			       scalings[i].what);
		igt_subtest_with_dynamic(scalings[i].formats)
			test_formats(&scalings[i]);
	}

	for (unsigned int i = 0; i < ARRAY_SIZE(scalings); i++) {
		igt_describe_f("Every rotation and reflection of every plane that scales, an XRGB8888 framebuffer %s (transposed for 90 and 270 degrees), alone on the screen, equals the CPU reference (writeback).",
			       scalings[i].what);
		igt_subtest_with_dynamic(scalings[i].rotations)
			test_rotations(&scalings[i]);
	}

	igt_describe("Upstream's sources less than a pixel high or wide are refused with EINVAL or ERANGE, as are empty sources and scaling one pixel beyond the driver's 1/8..8 (the limits themselves equal the reference); sources beyond the framebuffer (also \"negative\" ones) with ENOSPC, CRTC_W/H outside 0..INT_MAX with EINVAL, CRTC_X/Y + W/H past INT_MAX with ERANGE, on every plane that scales, leaving the frame as it was; empty destinations and planes fully off the top-left of the screen are valid and show nothing; the cursor refuses any scaling.");
	igt_subtest_with_dynamic("invalid-parameters") {
		for (unsigned int i = 0; i < ARRAY_SIZE(invalid); i++)
			igt_dynamic(invalid[i].name)
				test_invalid(&invalid[i]);
		igt_dynamic("cursor-no-scaling")
			test_cursor();
	}

	igt_fixture {
		gk_disable(&k);
		gk_fb_destroy(&k, &wb);
		free(ref);
		drmModeDestroyPropertyBlob(fd, k.mode_blob);
		drm_close_driver(fd);
	}
}
