// SPDX-License-Identifier: MIT
/*
 * gembuf_overlay: the display's planes scan gembuf objects out in place.
 * Every frame is read back through the writeback connector and compared
 * pixel by pixel with what a CPU would compose (lib/gembuf_ref: noise in
 * every buffer, so a wrong source pixel anywhere shows); the CRC shows a
 * change made through mmap after the commit, with no new commit, and
 * equals the CRC of the CPU's frame scanned out alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <drm_fourcc.h>

#include "igt.h"
#include "gembuf.h"
#include "gembuf_kms.h"
#include "gembuf_ref.h"
#include "igt_kms.h"
#include "igt_pipe_crc.h"

/* cursor-move-vs-compose's refresh rate, in Hz */
#define SLOW_HZ	20

IGT_TEST_DESCRIPTION("Compose gembuf overlay planes and check the pixels.");

static struct gk k;
static struct gk_fb primary, wb;
static uint32_t *ref;

static uint32_t wb_px(int x, int y)
{
	return ((uint32_t *)wb.map)[y * (wb.pitch / 4) + x] & 0xffffff;
}

static struct gk_layer base_layer(void)
{
	return gk_layer_of(&primary);
}

static struct gk_layer layer(struct gk_fb *fb, int x, int y, int zpos)
{
	struct gk_layer l = gk_layer_of(fb);

	l.x = x;
	l.y = y;
	l.zpos = zpos;
	return l;
}

static void assert_px(int x, int y, uint32_t want)
{
	igt_assert_f(wb_px(x, y) == want, "pixel %d,%d: %06x, want %06x\n",
		     x, y, wb_px(x, y), want);
}

static bool near(uint32_t a, uint32_t b, int tol)
{
	for (int s = 0; s < 24; s += 8) {
		int d = (int)((a >> s) & 0xff) - (int)((b >> s) & 0xff);

		if (d < -tol || d > tol)
			return false;
	}
	return true;
}

/*
 * Commit @l with writeback and compare the whole written-back frame with
 * the CPU reference: no channel of any pixel more than @tol apart.
 */
static void check_ref(const struct gk_layer *l, unsigned int n, int tol)
{
	igt_assert_eq(gk_commit(&k, l, n, &wb, 0), 0);
	gk_ref_compose(&k, l, n, ref);
	igt_assert_eq(gk_ref_compare(&wb, ref, tol), 0);
}

/* A 64x64 buffer of one color in @format; returns the expected XRGB. */
static uint32_t solid(struct gk_fb *fb, uint32_t format)
{
	gk_fb_create(&k, fb, 64, 64, format);
	switch (format) {
	case DRM_FORMAT_XRGB8888:
	case DRM_FORMAT_ARGB8888:
		gk_fb_fill(fb, 0xff336699);
		return 0x336699;
	case DRM_FORMAT_XBGR8888:
	case DRM_FORMAT_ABGR8888:
		gk_fb_fill(fb, 0xff996633);
		return 0x336699;
	case DRM_FORMAT_RGB565:
		for (uint32_t i = 0; i < fb->size / 2; i++)
			((uint16_t *)fb->map)[i] = 0xf800;	/* red */
		return 0xff0000;
	case DRM_FORMAT_XRGB2101010:
		gk_fb_fill(fb, 0x3ff << 10);			/* green */
		return 0x00ff00;
	case DRM_FORMAT_XRGB16161616:
	case DRM_FORMAT_ARGB16161616:
		for (uint32_t i = 0; i < fb->size / 8; i++)
			((uint64_t *)fb->map)[i] = 0xffffull << 48 | 0xffffull;
		return 0x0000ff;				/* blue */
	case DRM_FORMAT_YUYV:
		/* BT.601 limited: Y 81 Cb 90 Cr 240 is red. */
		for (uint32_t i = 0; i < fb->size / 4; i++)
			((uint32_t *)fb->map)[i] = 240u << 24 | 81 << 16 | 90 << 8 | 81;
		return 0xff0000;
	case DRM_FORMAT_UYVY:
		for (uint32_t i = 0; i < fb->size / 4; i++)
			((uint32_t *)fb->map)[i] = 81u << 24 | 240 << 16 | 81 << 8 | 90;
		return 0xff0000;
	case DRM_FORMAT_NV12:
		memset(fb->map, 81, 64 * 64);
		for (uint32_t i = 0; i < 64 * 32; i += 2) {
			((uint8_t *)fb->map)[64 * 64 + i] = 90;
			((uint8_t *)fb->map)[64 * 64 + i + 1] = 240;
		}
		return 0xff0000;
	}
	igt_assert_f(0, "format %08x\n", format);
	return 0;
}

/*
 * A commit that only asks for a writeback of the state committed, with
 * no plane in it, and the wait for it.
 */
static void writeback_current(void)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	int32_t fence = -1;

	gk_req_writeback(&k, req, wb.fb_id, &fence);
	igt_assert_eq(drmModeAtomicCommit(k.fd, req, 0, NULL), 0);
	drmModeAtomicFree(req);
	gk_commit_finish(&k, fence);
}

/*
 * A commit of the CRTC's ACTIVE alone (its mode and planes kept), with a
 * writeback of the first frame, and the wait for it, when @on.
 */
static void set_active(bool on)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	int32_t fence = -1;

	igt_assert(drmModeAtomicAddProperty(req, k.crtc_id, k.crtc_active, on) >= 0);
	if (on)
		gk_req_writeback(&k, req, wb.fb_id, &fence);
	igt_assert_eq(drmModeAtomicCommit(k.fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL), 0);
	drmModeAtomicFree(req);
	gk_commit_finish(&k, fence);
}

/*
 * Where the written-back frame shows the 64x64 cursor of color @c: the
 * index in @at of the place it is at, whole, with no pixel of its color
 * anywhere else; a frame that shows it cut, twice, or not at all fails.
 */
static int cursor_place(const int at[2][2], uint32_t c, int frame)
{
	int n = 0, x1 = INT_MAX, y1 = INT_MAX, x2 = -1, y2 = -1;

	for (int y = 0; y < (int)wb.height; y++)
		for (int x = 0; x < (int)wb.width; x++) {
			if (wb_px(x, y) != c)
				continue;
			n++;
			x1 = x < x1 ? x : x1;
			y1 = y < y1 ? y : y1;
			x2 = x > x2 ? x : x2;
			y2 = y > y2 ? y : y2;
		}
	for (int i = 0; i < 2; i++)
		if (n == 64 * 64 && x1 == at[i][0] && y1 == at[i][1] &&
		    x2 == at[i][0] + 63 && y2 == at[i][1] + 63)
			return i;
	igt_assert_f(0, "frame %d: %d pixels of the cursor, from %d,%d to %d,%d\n",
		     frame, n, x1, y1, x2, y2);
	return -1;
}

/*
 * A TEST_ONLY commit of @fb on plane @p at 0,0, @w x @h, over the state
 * committed, with property @name (NULL: none) set to @v: 0 or -errno.
 */
static int try_plane(const struct gk_plane *p, const struct gk_fb *fb,
		     uint32_t w, uint32_t h, const char *name, uint64_t v)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	const uint32_t ids[] = {
		k.p_fb, k.p_crtc, k.p_sx, k.p_sy, k.p_sw, k.p_sh,
		k.p_cx, k.p_cy, k.p_cw, k.p_ch,
	};
	const uint64_t vals[] = {
		fb->fb_id, k.crtc_id, 0, 0, (uint64_t)fb->width << 16,
		(uint64_t)fb->height << 16, 0, 0, w, h,
	};
	int ret;

	for (unsigned int i = 0; i < ARRAY_SIZE(ids); i++)
		igt_assert(drmModeAtomicAddProperty(req, p->id, ids[i], vals[i]) >= 0);
	if (name)
		igt_assert(drmModeAtomicAddProperty(req, p->id,
						    gk_prop(k.fd, p->id, DRM_MODE_OBJECT_PLANE,
							    name, NULL), v) >= 0);
	ret = drmModeAtomicCommit(k.fd, req, DRM_MODE_ATOMIC_TEST_ONLY, NULL);
	drmModeAtomicFree(req);
	return ret ? -errno : 0;
}

/* Property @name of plane @p, which it must have. */
static uint64_t plane_val(const struct gk_plane *p, const char *name)
{
	uint64_t v;

	igt_assert_f(gk_prop(k.fd, p->id, DRM_MODE_OBJECT_PLANE, name, &v),
		     "plane %u has no property %s\n", p->id, name);
	return v;
}

/* Whether plane @p lists @format. */
static bool plane_has_format(const struct gk_plane *p, uint32_t format)
{
	drmModePlanePtr pl = drmModeGetPlane(k.fd, p->id);
	bool has = false;

	igt_assert(pl);
	for (uint32_t i = 0; i < pl->count_formats; i++)
		has |= pl->formats[i] == format;
	drmModeFreePlane(pl);
	return has;
}

/*
 * Each value of every enum and bitmask property of plane @p in a TEST_ONLY
 * commit of @fb at its size, with what each value needs of the layout:
 * @yuv (the same size, a YCbCr format) for an encoding or range, the
 * framebuffer shown at twice its size for a scaling filter, @full (the
 * mode's size, with alpha) for plane alpha and blend modes.
 */
static void check_plane_values(const struct gk_plane *p, const struct gk_fb *fb,
			       const struct gk_fb *yuv, const struct gk_fb *full)
{
	drmModeObjectPropertiesPtr props;

	props = drmModeObjectGetProperties(k.fd, p->id, DRM_MODE_OBJECT_PLANE);
	igt_assert(props);
	for (uint32_t i = 0; i < props->count_props; i++) {
		drmModePropertyPtr pr = drmModeGetProperty(k.fd, props->props[i]);
		bool bitmask, encoding, filter, blend;

		igt_assert(pr);
		bitmask = drm_property_type_is(pr, DRM_MODE_PROP_BITMASK);
		encoding = !strcmp(pr->name, "COLOR_ENCODING") ||
			   !strcmp(pr->name, "COLOR_RANGE");
		filter = !strcmp(pr->name, "SCALING_FILTER");
		blend = !strcmp(pr->name, "pixel blend mode");
		if (encoding)
			igt_assert_f(plane_has_format(p, DRM_FORMAT_YUYV),
				     "plane %u (type %u) offers %s and no YCbCr format\n",
				     p->id, p->type, pr->name);
		if (!strcmp(pr->name, "alpha"))
			igt_assert_f(try_plane(p, full, full->width, full->height,
					       pr->name, 0x8000) == 0,
				     "plane %u (type %u) offers alpha and refuses a framebuffer of the mode's size\n",
				     p->id, p->type);
		for (int e = 0; (pr->flags & DRM_MODE_PROP_IMMUTABLE) == 0 &&
				(bitmask || drm_property_type_is(pr, DRM_MODE_PROP_ENUM)) &&
				e < pr->count_enums; e++) {
			uint64_t v = pr->enums[e].value;
			const struct gk_fb *f = encoding ? yuv : blend ? full : fb;
			uint32_t scale = filter ? 2 : 1;

			/* A reflection alone is no rotation: add ROTATE_0. */
			if (bitmask)
				v = 1ull << v | (v > 3 ? DRM_MODE_ROTATE_0 : 0);
			igt_assert_f(try_plane(p, f, f->width * scale, f->height * scale,
					       pr->name, v) == 0,
				     "plane %u (type %u): %s = %s (%llu) refused\n",
				     p->id, p->type, pr->name, pr->enums[e].name,
				     (unsigned long long)v);
		}
		drmModeFreeProperty(pr);
	}
	drmModeFreeObjectProperties(props);
}

igt_main
{
	static const uint32_t formats[] = {
		DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888, DRM_FORMAT_XBGR8888,
		DRM_FORMAT_ABGR8888, DRM_FORMAT_RGB565, DRM_FORMAT_XRGB2101010,
		DRM_FORMAT_XRGB16161616, DRM_FORMAT_ARGB16161616, DRM_FORMAT_YUYV,
		DRM_FORMAT_UYVY, DRM_FORMAT_NV12,
	};
	int fd = -1;

	igt_fixture {
		fd = gembuf_open_display();
		igt_require(drmSetMaster(fd) == 0);
		gk_init(&k, fd);
		/* A small mode keeps the many composed frames quick. */
		igt_assert(gk_set_mode(&k, 640, 480));
		ref = calloc(640 * 480, sizeof(*ref));
		igt_assert(ref);
		gk_fb_create(&k, &primary, k.mode.hdisplay, k.mode.vdisplay,
			     DRM_FORMAT_XRGB8888);
		gk_fb_create(&k, &wb, k.mode.hdisplay, k.mode.vdisplay,
			     DRM_FORMAT_XRGB8888);
	}

	igt_describe("The primary plane alone comes back through writeback unchanged.");
	igt_subtest("primary") {
		struct gk_layer l[1] = { base_layer() };

		for (uint32_t y = 0; y < primary.height; y++)
			for (uint32_t x = 0; x < primary.width; x++)
				((uint32_t *)primary.map)[y * primary.width + x] =
					(x * 7) << 16 | (y * 3) << 8 | ((x ^ y) & 0xff);
		igt_assert_eq(gk_commit(&k, l, 1, &wb, 0), 0);
		for (uint32_t y = 0; y < wb.height; y += 7)
			for (uint32_t x = 0; x < wb.width; x += 5)
				assert_px(x, y, ((x * 7) << 16 | (y * 3) << 8 |
						 ((x ^ y) & 0xff)) & 0xffffff);
	}

	igt_describe("An overlay of every format shows its color, converted to RGB.");
	igt_subtest_with_dynamic("formats") {
		for (unsigned int i = 0; i < ARRAY_SIZE(formats); i++) {
			char name[8];

			snprintf(name, sizeof(name), "%.4s", (char *)&formats[i]);
			igt_dynamic(name) {
				struct gk_layer l[2] = { base_layer() };
				struct gk_fb ov;
				uint32_t want;

				gk_fb_fill(&primary, 0);
				want = solid(&ov, formats[i]);
				l[1] = layer(&ov, 100, 50, 1);
				igt_assert_eq(gk_commit(&k, l, 2, &wb, 0), 0);
				igt_assert_f(near(wb_px(132, 82), want, 2),
					     "%s: %06x, want %06x\n", name,
					     wb_px(132, 82), want);
				assert_px(99, 82, 0);
				assert_px(164, 82, 0);
				gk_fb_destroy(&k, &ov);
			}
		}
	}

	igt_describe("Overlays partly off the screen are clipped.");
	igt_subtest("clipped") {
		struct gk_layer l[2] = { base_layer() };
		struct gk_fb ov;

		gk_fb_fill(&primary, 0x101010);
		solid(&ov, DRM_FORMAT_XRGB8888);
		l[1] = layer(&ov, -32, -32, 1);
		igt_assert_eq(gk_commit(&k, l, 2, &wb, 0), 0);
		assert_px(0, 0, 0x336699);
		assert_px(31, 31, 0x336699);
		assert_px(32, 32, 0x101010);
		l[1] = layer(&ov, k.mode.hdisplay - 16, k.mode.vdisplay - 16, 1);
		igt_assert_eq(gk_commit(&k, l, 2, &wb, 0), 0);
		assert_px(k.mode.hdisplay - 1, k.mode.vdisplay - 1, 0x336699);
		assert_px(k.mode.hdisplay - 17, k.mode.vdisplay - 1, 0x101010);
		gk_fb_destroy(&k, &ov);
	}

	igt_describe("The overlay with the higher zpos is on top, both ways round; on one zpos, the overlay of the higher plane id is on top (normalize_zpos).");
	igt_subtest("zpos") {
		struct gk_layer l[3] = { base_layer() };
		struct gk_fb a, b;

		gk_fb_fill(&primary, 0);
		gk_fb_create(&k, &a, 64, 64, DRM_FORMAT_XRGB8888);
		gk_fb_create(&k, &b, 64, 64, DRM_FORMAT_XRGB8888);
		gk_fb_fill(&a, 0xff0000);
		gk_fb_fill(&b, 0x0000ff);
		l[1] = layer(&a, 10, 10, 1);
		l[2] = layer(&b, 40, 40, 2);
		igt_assert_eq(gk_commit(&k, l, 3, &wb, 0), 0);
		assert_px(50, 50, 0x0000ff);
		assert_px(20, 20, 0xff0000);
		l[1].zpos = 2;
		l[2].zpos = 1;
		igt_assert_eq(gk_commit(&k, l, 3, &wb, 0), 0);
		assert_px(50, 50, 0xff0000);
		assert_px(90, 90, 0x0000ff);
		/* One zpos for both: accepted, stacked by plane id. */
		igt_assert_cmpuint(k.planes[1].id, <, >=, k.planes[2].id);
		l[1].zpos = 2;
		l[2].zpos = 2;
		igt_assert_eq(gk_commit(&k, l, 3, &wb, 0), 0);
		assert_px(50, 50, 0x0000ff);
		assert_px(20, 20, 0xff0000);
		l[1].zpos = 1;
		l[2].zpos = 1;
		igt_assert_eq(gk_commit(&k, l, 3, &wb, 0), 0);
		assert_px(50, 50, 0x0000ff);
		gk_fb_destroy(&k, &a);
		gk_fb_destroy(&k, &b);
	}

	igt_describe("Plane alpha and the pixel blend modes compose as DRM defines them.");
	igt_subtest("alpha-blend") {
		struct gk_layer l[2] = { base_layer() };
		struct gk_fb ov;

		gk_fb_fill(&primary, 0x000000);
		gk_fb_create(&k, &ov, 64, 64, DRM_FORMAT_ARGB8888);
		/* Premultiplied half-transparent white. */
		gk_fb_fill(&ov, 0x80808080);
		l[1] = layer(&ov, 0, 0, 1);
		igt_assert_eq(gk_commit(&k, l, 2, &wb, 0), 0);
		igt_assert(near(wb_px(10, 10), 0x808080, 1));
		/* Coverage: the color is multiplied by alpha once more. */
		l[1].blend = 1;
		igt_assert_eq(gk_commit(&k, l, 2, &wb, 0), 0);
		igt_assert(near(wb_px(10, 10), 0x404040, 1));
		/* None: alpha ignored; plane alpha 25%. */
		l[1].blend = 2;
		l[1].alpha = 0x4000;
		igt_assert_eq(gk_commit(&k, l, 2, &wb, 0), 0);
		igt_assert(near(wb_px(10, 10), 0x202020, 1));
		gk_fb_destroy(&k, &ov);
	}

	igt_describe("The color key makes matching pixels of an overlay transparent.");
	igt_subtest("colorkey") {
		struct gk_layer l[2] = { base_layer() };
		struct gk_fb ov;

		gk_fb_fill(&primary, 0x00ff00);
		gk_fb_create(&k, &ov, 64, 64, DRM_FORMAT_XRGB8888);
		for (int i = 0; i < 64 * 64; i++)
			((uint32_t *)ov.map)[i] = (i % 64) < 32 ? 0xff00ff : 0x123456;
		l[1] = layer(&ov, 0, 0, 1);
		l[1].colorkey = 0xff00ff;
		l[1].colorkey_mask = 0xffffff;
		igt_assert_eq(gk_commit(&k, l, 2, &wb, 0), 0);
		assert_px(5, 5, 0x00ff00);
		assert_px(40, 5, 0x123456);
		gk_fb_destroy(&k, &ov);
	}

	igt_describe("A source rectangle scaled to a larger destination, and a 90 degree rotation.");
	igt_subtest("scale-rotate") {
		struct gk_layer l[2] = { base_layer() };
		struct gk_fb ov;

		gk_fb_fill(&primary, 0);
		gk_fb_create(&k, &ov, 64, 64, DRM_FORMAT_XRGB8888);
		/* Left half red, right half blue. */
		for (int i = 0; i < 64 * 64; i++)
			((uint32_t *)ov.map)[i] = (i % 64) < 32 ? 0xff0000 : 0x0000ff;
		l[1] = layer(&ov, 0, 0, 1);
		l[1].w = 128;
		l[1].h = 128;
		igt_assert_eq(gk_commit(&k, l, 2, &wb, 0), 0);
		assert_px(60, 100, 0xff0000);
		assert_px(68, 100, 0x0000ff);
		assert_px(130, 100, 0);
		/* Rotated 90 degrees counter-clockwise: the right half on top. */
		l[1].w = l[1].h = 0;
		l[1].rotation = DRM_MODE_ROTATE_90;
		igt_assert_eq(gk_commit(&k, l, 2, &wb, 0), 0);
		assert_px(30, 10, 0x0000ff);
		assert_px(30, 50, 0xff0000);
		gk_fb_destroy(&k, &ov);
	}

	igt_describe("Every format, with noise in its buffer, on two overlays (one scaled, both partly off the screen) over a noise primary, equals the CPU reference; YCbCr in every encoding and range.");
	igt_subtest_with_dynamic("reference-formats") {
		static const char *const enc[] = { "bt601", "bt709" };
		static const char *const range[] = { "limited", "full" };

		gk_fb_noise(&primary, 1);
		for (unsigned int i = 0; i < ARRAY_SIZE(formats); i++) {
			uint32_t f = formats[i];

			for (int e = 0; e < (gk_format_is_yuv(f) ? 2 : 1); e++) {
				for (int r = 0; r < (gk_format_is_yuv(f) ? 2 : 1); r++) {
					char name[32];

					snprintf(name, sizeof(name), "%.4s%s%s%s%s",
						 (const char *)&f, gk_format_is_yuv(f) ? "-" : "",
						 gk_format_is_yuv(f) ? enc[e] : "",
						 gk_format_is_yuv(f) ? "-" : "",
						 gk_format_is_yuv(f) ? range[r] : "");
					igt_dynamic(name) {
						struct gk_layer l[3] = { base_layer() };
						struct gk_fb ov;

						gk_fb_create(&k, &ov, 96, 64, f);
						gk_fb_noise(&ov, i * 4 + e * 2 + r + 2);
						l[1] = layer(&ov, -20, 37, 1);
						l[2] = layer(&ov, 560, 420, 2);
						l[2].w = 192;
						l[2].h = 128;
						for (int j = 1; j < 3; j++) {
							l[j].blend = 0;
							l[j].encoding = e;
							l[j].range = r;
						}
						check_ref(l, 3, gk_ref_format_tol(f));
						gk_fb_destroy(&k, &ov);
					}
				}
			}
		}
	}

	igt_describe("A scaled source rectangle of a noise overlay at positions partly and fully off each edge of the screen, and far away, equals the CPU reference; fully off-screen planes are accepted and show nothing.");
	igt_subtest("reference-positions") {
		static const int pos[][2] = {
			{ -139, 10 }, { -140, 10 }, { 639, 470 }, { 640, 0 },
			{ 0, 480 }, { 0, -100 }, { 300, -99 }, { 500, 379 },
			{ -5000, -5000 }, { 100000, 100000 },
		};
		struct gk_layer l[2] = { base_layer() };
		struct gk_fb ov;

		gk_fb_noise(&primary, 60);
		gk_fb_create(&k, &ov, 80, 60, DRM_FORMAT_XRGB8888);
		gk_fb_noise(&ov, 61);
		l[1] = layer(&ov, 0, 0, 1);
		l[1].sx = 5;
		l[1].sy = 3;
		l[1].sw = 70;
		l[1].sh = 50;
		l[1].w = 140;
		l[1].h = 100;
		for (unsigned int i = 0; i < ARRAY_SIZE(pos); i++) {
			l[1].x = pos[i][0];
			l[1].y = pos[i][1];
			igt_debug("overlay at %d,%d\n", l[1].x, l[1].y);
			check_ref(l, 2, 0);
		}
		gk_fb_destroy(&k, &ov);
	}

	igt_describe("An ARGB8888 cursor of every power-of-two size from 64 up to DRM_CAP_CURSOR_WIDTH/HEIGHT, square and not, over a noise primary and partly off screen, equals the CPU reference.");
	igt_subtest_with_dynamic("cursor-sizes") {
		uint64_t cw = 0, ch = 0;

		igt_assert_eq(drmGetCap(k.fd, DRM_CAP_CURSOR_WIDTH, &cw), 0);
		igt_assert_eq(drmGetCap(k.fd, DRM_CAP_CURSOR_HEIGHT, &ch), 0);
		/* What upstream's varying-size cursor tests require. */
		igt_assert(cw >= 512 && ch >= 512);
		gk_fb_noise(&primary, 7);
		for (uint32_t w = 64; w <= cw; w *= 2) {
			for (uint32_t h = w / 2; h <= w && h <= ch; h += w / 2) {
				igt_dynamic_f("%ux%u", w, h) {
					struct gk_layer l[2] = { base_layer() };
					struct gk_fb cur;

					gk_fb_create(&k, &cur, w, h, DRM_FORMAT_ARGB8888);
					gk_fb_noise(&cur, w + h);
					l[1] = layer(&cur, 40, 30, -1);
					check_ref(l, 2, 1);
					/* Hanging off the bottom-right corner. */
					l[1].x = k.mode.hdisplay - w / 2;
					l[1].y = k.mode.vdisplay - h / 2;
					check_ref(l, 2, 1);
					gk_fb_destroy(&k, &cur);
				}
			}
		}
	}

	igt_describe("gembuf's cursor plane takes framebuffers of up to DRM_CAP_CURSOR_WIDTH x DRM_CAP_CURSOR_HEIGHT through the legacy cursor ioctl, the caps being its largest size (gembuf's policy: DRM's uapi only makes them a size the cursor takes): one a line taller, or a column wider, than that is refused with EINVAL from a buffer large enough for it, and the cursor stays off.");
	igt_subtest("plane-cursor-size") {
		const struct gk_plane *p = gk_plane(&k, DRM_PLANE_TYPE_CURSOR, 0);
		struct gk_layer l[1] = { base_layer() };
		uint64_t cw = 0, ch = 0;
		struct gk_fb cur;

		igt_assert(p);
		igt_assert_eq(drmGetCap(k.fd, DRM_CAP_CURSOR_WIDTH, &cw), 0);
		igt_assert_eq(drmGetCap(k.fd, DRM_CAP_CURSOR_HEIGHT, &ch), 0);
		igt_assert_eq(gk_commit(&k, l, 1, NULL, 0), 0);
		/* Room for a framebuffer of either size, at any width's pitch. */
		gk_fb_create(&k, &cur, cw + 1, ch + 1, DRM_FORMAT_ARGB8888);
		igt_assert_eq(drmModeSetCursor(k.fd, k.crtc_id, cur.handle, 64, ch + 1), -EINVAL);
		igt_assert_eq_u32(plane_val(p, "FB_ID"), 0);
		igt_assert_eq(drmModeSetCursor(k.fd, k.crtc_id, cur.handle, cw + 1, 64), -EINVAL);
		igt_assert_eq_u32(plane_val(p, "FB_ID"), 0);
		igt_assert_eq(drmModeSetCursor(k.fd, k.crtc_id, cur.handle, 64, ch), 0);
		igt_assert_eq_u32(plane_val(p, "CRTC_H"), ch);
		igt_assert_eq(drmModeSetCursor(k.fd, k.crtc_id, cur.handle, cw, 64), 0);
		igt_assert_eq_u32(plane_val(p, "CRTC_W"), cw);
		igt_assert_eq(drmModeSetCursor(k.fd, k.crtc_id, 0, 0, 0), 0);
		igt_assert_eq_u32(plane_val(p, "FB_ID"), 0);
		gk_fb_destroy(&k, &cur);
	}

	igt_describe("The primary and the overlays offer \"alpha\" and \"pixel blend mode\"; the cursor offers neither, as it takes no framebuffer of the screen's size (what clients blend with them), and composes opaque and pre-multiplied, equal to the CPU reference.");
	igt_subtest("cursor-no-alpha") {
		struct gk_layer l[GK_MAX_PLANES] = { base_layer() };
		const struct gk_plane *cursor = gk_plane(&k, DRM_PLANE_TYPE_CURSOR, 0);
		struct gk_fb cur;

		igt_assert(cursor);
		for (unsigned int i = 0; i < k.num_planes; i++) {
			const struct gk_plane *p = &k.planes[i];
			bool is_cursor = p->type == DRM_PLANE_TYPE_CURSOR;

			igt_assert_f(!p->alpha_prop == is_cursor,
				     "plane %u (type %u): alpha property %u\n",
				     p->id, p->type, p->alpha_prop);
			igt_assert_f(!p->blend_prop == is_cursor,
				     "plane %u (type %u): blend mode property %u\n",
				     p->id, p->type, p->blend_prop);
		}
		/* What a client asks of the cursor's alpha is not set. */
		gk_fb_noise(&primary, 8);
		gk_fb_create(&k, &cur, 128, 128, DRM_FORMAT_ARGB8888);
		gk_fb_noise(&cur, 9);
		l[cursor - k.planes] = layer(&cur, 60, 40, -1);
		l[cursor - k.planes].alpha = 0x4000;
		l[cursor - k.planes].blend = 1;
		check_ref(l, cursor - k.planes + 1, 1);
		gk_fb_destroy(&k, &cur);
	}

	igt_describe("Every value of every enum and bitmask property a plane offers is accepted on it in a layout that value applies to: an encoding or range on a YCbCr framebuffer (so a plane offering them has a YCbCr format), a scaling filter on a scaled plane, a blend mode (and plane alpha) on a framebuffer of the mode's size.  The cursor offers none of those four.");
	igt_subtest("plane-properties-usable") {
		struct gk_layer l[1] = { base_layer() };
		struct gk_fb argb, yuv, full;

		igt_assert_eq(gk_commit(&k, l, 1, NULL, 0), 0);
		gk_fb_create(&k, &argb, 64, 64, DRM_FORMAT_ARGB8888);
		gk_fb_create(&k, &yuv, 64, 64, DRM_FORMAT_YUYV);
		gk_fb_create(&k, &full, k.mode.hdisplay, k.mode.vdisplay,
			     DRM_FORMAT_ARGB8888);
		for (unsigned int i = 0; i < k.num_planes; i++)
			check_plane_values(&k.planes[i], &argb, &yuv, &full);
		gk_fb_destroy(&k, &full);
		gk_fb_destroy(&k, &yuv);
		gk_fb_destroy(&k, &argb);
	}

	igt_describe("The cursor moved by the legacy cursor ioctl, which changes its state in place without a commit, shows at each new place in the next frame written back, which is composed from that state.");
	igt_subtest("cursor-move-in-place") {
		static const int at[][2] = { { 100, 60 }, { 300, 200 }, { 0, 0 }, { 600, 440 } };
		struct gk_layer l[1] = { base_layer() };
		struct gk_fb cur;

		gk_fb_fill(&primary, 0x102030);
		igt_assert_eq(gk_commit(&k, l, 1, NULL, 0), 0);
		gk_fb_create(&k, &cur, 64, 64, DRM_FORMAT_ARGB8888);
		gk_fb_fill(&cur, 0xff40c080);
		igt_assert_eq(drmModeSetCursor(k.fd, k.crtc_id, cur.handle, 64, 64), 0);
		for (unsigned int i = 0; i < ARRAY_SIZE(at); i++) {
			int x = at[i][0], y = at[i][1];

			igt_assert_eq(drmModeMoveCursor(k.fd, k.crtc_id, x, y), 0);
			writeback_current();
			assert_px(x, y, 0x40c080);
			assert_px(x + 39, y + 39, 0x40c080);
			assert_px(x ? x - 1 : x + 64, y + 10, 0x102030);
			assert_px(x + 10, y ? y - 1 : y + 64, 0x102030);
		}
		igt_assert_eq(drmModeSetCursor(k.fd, k.crtc_id, 0, 0, 0), 0);
		gk_fb_destroy(&k, &cur);
	}

	igt_describe("A legacy cursor move while the CRTC is off (ACTIVE 0, its mode and planes kept) is not made in place, which takes a CRTC that composes, but committed: the first frame once the CRTC is on again shows the cursor at its new place.");
	igt_subtest("cursor-move-while-off") {
		struct gk_layer l[1] = { base_layer() };
		struct gk_fb cur;
		long frames;

		gk_fb_fill(&primary, 0x102030);
		igt_assert_eq(gk_commit(&k, l, 1, NULL, 0), 0);
		gk_fb_create(&k, &cur, 64, 64, DRM_FORMAT_ARGB8888);
		gk_fb_fill(&cur, 0xff40c080);
		igt_assert_eq(drmModeSetCursor(k.fd, k.crtc_id, cur.handle, 64, 64), 0);
		igt_assert_eq(drmModeMoveCursor(k.fd, k.crtc_id, 100, 60), 0);
		writeback_current();
		assert_px(100, 60, 0x40c080);

		set_active(false);
		frames = gembuf_state("frames_composed");
		igt_assert_eq(drmModeMoveCursor(k.fd, k.crtc_id, 300, 200), 0);
		/* Committed, not composed: the CRTC is off. */
		igt_assert_eq(gembuf_state("frames_composed"), frames);
		memset(wb.map, 0, wb.size);
		set_active(true);
		assert_px(300, 200, 0x40c080);
		assert_px(363, 263, 0x40c080);
		assert_px(100, 60, 0x102030);
		assert_px(299, 230, 0x102030);

		igt_assert_eq(drmModeSetCursor(k.fd, k.crtc_id, 0, 0, 0), 0);
		gk_fb_destroy(&k, &cur);
	}

	igt_describe("A legacy cursor move that takes the cursor off the screen or brings it back changes what the CRTC composes, so it is committed, not made in place: a cursor given a new image while off the screen shows it where it is moved back to, and a frame while it is off shows the primary alone.");
	igt_subtest("cursor-move-off-screen") {
		/* Past each edge of the 640x480 mode. */
		static const int off[][2] = {
			{ 640, 60 }, { 100, 480 }, { -64, 60 }, { 100, -64 },
		};
		struct gk_layer l[1] = { base_layer() };
		struct gk_fb cur[2];
		uint32_t c;

		gk_fb_fill(&primary, 0x102030);
		igt_assert_eq(gk_commit(&k, l, 1, NULL, 0), 0);
		for (int i = 0; i < 2; i++) {
			gk_fb_create(&k, &cur[i], 64, 64, DRM_FORMAT_ARGB8888);
			gk_fb_fill(&cur[i], i ? 0xffc04080 : 0xff40c080);
		}
		igt_assert_eq(drmModeSetCursor(k.fd, k.crtc_id, cur[0].handle, 64, 64), 0);
		igt_assert_eq(drmModeMoveCursor(k.fd, k.crtc_id, 100, 60), 0);
		writeback_current();
		assert_px(100, 60, 0x40c080);
		for (unsigned int i = 0; i < ARRAY_SIZE(off); i++) {
			c = i & 1 ? 0x40c080 : 0xc04080;
			igt_assert_eq(drmModeMoveCursor(k.fd, k.crtc_id, off[i][0], off[i][1]), 0);
			/* A new image while off: a commit, the cursor still not shown. */
			igt_assert_eq(drmModeSetCursor(k.fd, k.crtc_id, cur[!(i & 1)].handle,
						       64, 64), 0);
			writeback_current();
			for (int y = 0; y < (int)wb.height; y++)
				for (int x = 0; x < (int)wb.width; x++)
					igt_assert_f(wb_px(x, y) == 0x102030,
						     "cursor off at %d,%d: pixel %d,%d is %06x\n",
						     off[i][0], off[i][1], x, y, wb_px(x, y));
			/* Moved back on the screen: the new image, at its new place. */
			igt_assert_eq(drmModeMoveCursor(k.fd, k.crtc_id, 300 + 8 * i, 200), 0);
			writeback_current();
			assert_px(300 + 8 * i, 200, c);
			assert_px(363 + 8 * i, 263, c);
			assert_px(299 + 8 * i, 230, 0x102030);
			assert_px(364 + 8 * i, 230, 0x102030);
			assert_px(100, 60, 0x102030);
		}
		igt_assert_eq(drmModeSetCursor(k.fd, k.crtc_id, 0, 0, 0), 0);
		for (int i = 0; i < 2; i++)
			gk_fb_destroy(&k, &cur[i]);
	}

	igt_describe("While a process moves the cursor back and forth with the legacy ioctl as fast as it can, every frame written back shows the cursor whole at one of its two places: a frame is composed from one place of the cursor, taken when the frame begins, never from a move half seen.");
	igt_subtest("cursor-move-whole-frames") {
		/* Near the top and the bottom of the frame, apart in x too. */
		static const int at[2][2] = { { 40, 20 }, { 500, 380 } };
		struct gk_mover *m;
		struct gk_layer l[2] = { base_layer() };
		int seen[2] = {};
		struct gk_fb cur, ov;

		gk_fb_fill(&primary, 0x102030);
		/* A translucent overlay over the frame: each frame takes longer. */
		gk_fb_create(&k, &ov, k.mode.hdisplay, k.mode.vdisplay,
			     DRM_FORMAT_ARGB8888);
		gk_fb_fill(&ov, 0x80402000);
		l[1] = layer(&ov, 0, 0, 1);
		igt_assert_eq(gk_commit(&k, l, 2, NULL, 0), 0);
		gk_fb_create(&k, &cur, 64, 64, DRM_FORMAT_ARGB8888);
		gk_fb_fill(&cur, 0xff40c080);
		igt_assert_eq(drmModeSetCursor(k.fd, k.crtc_id, cur.handle, 64, 64), 0);
		/* From the first of its places, not where an earlier test left it. */
		igt_assert_eq(drmModeMoveCursor(k.fd, k.crtc_id, at[0][0], at[0][1]), 0);
		m = gk_mover_start(k.fd, k.crtc_id, at);
		for (int i = 0; i < 20; i++) {
			writeback_current();
			seen[cursor_place(at, 0x40c080, i)]++;
		}
		gk_mover_stop(m);
		igt_info("%lu moves; the cursor at %d,%d in %d frames, at %d,%d in %d\n",
			 m->moves, at[0][0], at[0][1], seen[0], at[1][0], at[1][1],
			 seen[1]);
		igt_assert_lt(20, m->moves);
		/* The moves reached the frames: both places were shown. */
		igt_assert(seen[0] && seen[1]);
		igt_assert_eq(drmModeSetCursor(k.fd, k.crtc_id, 0, 0, 0), 0);
		igt_assert_eq(gk_commit(&k, l, 1, NULL, 0), 0);
		gk_fb_destroy(&k, &cur);
		gk_fb_destroy(&k, &ov);
		gk_mover_free(m);
	}

	igt_describe("A legacy cursor move does not wait for the frame being composed: with a CRC source on, the composer making one slow frame after another (four translucent planes at 1920x1080), no move takes a quarter of the time a frame takes to compose.");
	igt_subtest("cursor-move-vs-compose") {
		static const int at[2][2] = { { 100, 100 }, { 900, 600 } };
		struct gk_mover *m;
		const struct gk_plane *cursor = gk_plane(&k, DRM_PLANE_TYPE_CURSOR, 0);
		struct gk_layer l[GK_MAX_PLANES] = {};
		struct gk_fb full[GK_MAX_PLANES], cur;
		long ns0, n0, frames, compose;
		unsigned long moves;
		drmModeModeInfo slow;
		uint64_t median;
		unsigned int n;
		igt_pipe_crc_t *pc;

		igt_assert(cursor);
		igt_require(gk_set_mode(&k, 1920, 1080));
		/*
		 * 20 Hz: a period shorter than a frame's composition of these
		 * planes (about 130 ms on the debug kernel), and few enough
		 * CRC entries for DRM's buffer of them, unread.
		 */
		slow = gk_mode_at_hz(&k.mode, SLOW_HZ);
		gk_set_mode_info(&k, &slow);
		/* The primary and the overlays: the planes before the cursor. */
		n = cursor - k.planes;
		for (unsigned int i = 0; i < n; i++) {
			gk_fb_create(&k, &full[i], 1920, 1080, DRM_FORMAT_ARGB8888);
			gk_fb_fill(&full[i], 0x80000000 | (0x30 << (8 * (i % 3))));
			l[i] = layer(&full[i], 0, 0, i ? (int)i : -1);
			l[i].alpha = i ? 0xc000 : 0xffff;
		}
		igt_assert_eq(gk_commit(&k, l, n, NULL, 0), 0);
		gk_fb_create(&k, &cur, 64, 64, DRM_FORMAT_ARGB8888);
		gk_fb_fill(&cur, 0xff40c080);
		igt_assert_eq(drmModeSetCursor(k.fd, k.crtc_id, cur.handle, 64, 64), 0);

		pc = igt_pipe_crc_new(fd, k.pipe, IGT_PIPE_CRC_SOURCE_AUTO);
		igt_pipe_crc_start(pc);
		ns0 = gembuf_state("compose_ns");
		n0 = gembuf_state("frames_composed");
		m = gk_mover_start(k.fd, k.crtc_id, at);
		/* Four whole frames composed while the cursor moves. */
		for (int i = 0; i < 6000 && gembuf_state("frames_composed") - n0 < 5; i++)
			usleep(10000);
		gk_mover_stop(m);
		frames = gembuf_state("frames_composed") - n0;
		igt_pipe_crc_free(pc);
		igt_assert_lt(4, frames);
		compose = (gembuf_state("compose_ns") - ns0) / frames;
		median = gk_mover_median_ns(m);
		moves = m->moves;
		igt_info("%lu moves, the median %.3f ms, the longest %.3f ms; %ld frames, %.3f ms each\n",
			 moves, median / 1e6, m->max_ns / 1e6, frames, compose / 1e6);
		/* Back to the subtests' mode and planes, whatever comes next. */
		igt_assert_eq(drmModeSetCursor(k.fd, k.crtc_id, 0, 0, 0), 0);
		igt_assert(gk_set_mode(&k, 640, 480));
		l[0] = base_layer();
		igt_assert_eq(gk_commit(&k, l, 1, NULL, 0), 0);
		gk_fb_destroy(&k, &cur);
		for (unsigned int i = 0; i < n; i++)
			gk_fb_destroy(&k, &full[i]);
		gk_mover_free(m);
		/*
		 * The composer must be busy all the time (a frame composes in
		 * more than the period): with idle gaps between frames, moves
		 * made in the gaps would make the median fast even if moves
		 * during a frame waited for it.
		 */
		igt_require_f(compose > 1000000000 / SLOW_HZ,
			      "frames compose in %.3f ms, under the %d ms period: the composer idles\n",
			      compose / 1e6, 1000 / SLOW_HZ);
		/*
		 * Times of the guest's clock, which under QEMU's -icount
		 * shift=0,sleep=off counts its instructions: a vCPU the host
		 * deschedules stretches no move.  The composer is busy for
		 * most of each frame, so moves that waited for the frame being
		 * composed would make the median most of one.  The longest
		 * move is not judged: on a kernel without preemption, a move
		 * that the scheduler puts on the composer's CPU waits for the
		 * worker to yield, whatever the locks.
		 */
		igt_assert_f(median * 4 < (uint64_t)compose,
			     "cursor moves took %.3f ms (median), a frame composes in %.3f ms\n",
			     median / 1e6, compose / 1e6);
		igt_assert_lt(frames, (long)moves);
	}

	/* A mover a failed subtest above left running moves no cursor below. */
	igt_fixture
		gk_mover_reap();

	igt_describe("Three overlapping translucent overlays and the cursor in all six zpos orders of the overlays, and with overlays sharing a zpos (stacked by plane id), equal the CPU reference.");
	igt_subtest("reference-zpos") {
		static const int orders[][3] = {
			{ 1, 2, 3 }, { 1, 3, 2 }, { 2, 1, 3 },
			{ 2, 3, 1 }, { 3, 1, 2 }, { 3, 2, 1 },
			{ 2, 2, 2 }, { 3, 1, 3 }, { 1, 1, 2 },
		};
		struct gk_layer l[5] = { base_layer() };
		struct gk_fb ov[3], cur;

		gk_fb_noise(&primary, 3);
		for (int i = 0; i < 3; i++) {
			gk_fb_create(&k, &ov[i], 128, 96, DRM_FORMAT_XRGB8888);
			gk_fb_noise(&ov[i], 10 + i);
			l[i + 1] = layer(&ov[i], 40 + 50 * i, 30 + 40 * i, 1);
			l[i + 1].alpha = 0xa000;
			l[i + 1].blend = 2;
		}
		gk_fb_create(&k, &cur, 64, 64, DRM_FORMAT_ARGB8888);
		gk_fb_noise(&cur, 20);
		l[4] = layer(&cur, 120, 90, -1);
		l[4].blend = 0;
		for (unsigned int o = 0; o < ARRAY_SIZE(orders); o++) {
			for (int i = 0; i < 3; i++)
				l[i + 1].zpos = orders[o][i];
			check_ref(l, 5, 1);
		}
		gk_fb_destroy(&k, &cur);
		for (int i = 0; i < 3; i++)
			gk_fb_destroy(&k, &ov[i]);
	}

	igt_describe("An ARGB8888 overlay of random alpha over a noise primary, in each pixel blend mode with plane alpha 0, 20%, 50% and 100%, equals the CPU reference.");
	igt_subtest("reference-blend") {
		static const uint16_t alphas[] = { 0, 0x3333, 0x8000, 0xffff };
		struct gk_layer l[2] = { base_layer() };
		struct gk_fb ov;

		gk_fb_noise(&primary, 4);
		gk_fb_create(&k, &ov, 200, 150, DRM_FORMAT_ARGB8888);
		gk_fb_noise(&ov, 5);
		l[1] = layer(&ov, 100, 100, 1);
		for (int mode = 0; mode < 3; mode++) {
			for (unsigned int a = 0; a < ARRAY_SIZE(alphas); a++) {
				l[1].blend = mode;
				l[1].alpha = alphas[a];
				check_ref(l, 2, 1);
			}
		}
		gk_fb_destroy(&k, &ov);
	}

	igt_describe("A full-screen overlay over a noise primary equals the CPU reference whether it hides the primary (opaque format, or pixel alpha ignored) or lets it through (pixel alpha, plane alpha, a color key, a pixel short of the screen).");
	igt_subtest("reference-full-screen") {
		static const struct {
			uint32_t format;
			int blend, x;
			uint16_t alpha;
			uint32_t key_mask;
		} cases[] = {
			{ DRM_FORMAT_XRGB8888, -1, 0, 0xffff, 0 },
			{ DRM_FORMAT_ARGB8888, 0, 0, 0xffff, 0 },
			{ DRM_FORMAT_ARGB8888, 1, 0, 0xffff, 0 },
			{ DRM_FORMAT_ARGB8888, 2, 0, 0xffff, 0 },
			{ DRM_FORMAT_XRGB8888, -1, 0, 0x8000, 0 },
			{ DRM_FORMAT_XRGB8888, -1, 0, 0xffff, 0x00000f },
			{ DRM_FORMAT_XRGB8888, -1, 1, 0xffff, 0 },
		};
		struct gk_layer l[3] = { base_layer() };
		struct gk_fb ov[2];

		gk_fb_noise(&primary, 70);
		for (int i = 0; i < 2; i++) {
			gk_fb_create(&k, &ov[i], 640, 480,
				     i ? DRM_FORMAT_ARGB8888 : DRM_FORMAT_XRGB8888);
			gk_fb_noise(&ov[i], 71 + i);
		}
		for (unsigned int i = 0; i < ARRAY_SIZE(cases); i++) {
			l[1] = layer(&ov[cases[i].format == DRM_FORMAT_ARGB8888],
				     cases[i].x, 0, 1);
			l[1].blend = cases[i].blend;
			l[1].alpha = cases[i].alpha;
			l[1].colorkey = 0x000005;
			l[1].colorkey_mask = cases[i].key_mask;
			check_ref(l, 2, 1);
		}
		gk_fb_destroy(&k, &ov[1]);
		gk_fb_destroy(&k, &ov[0]);
	}

	igt_describe("A source rectangle of a non-square noise buffer, scaled, in every rotation and reflection, equals the CPU reference.");
	igt_subtest_with_dynamic("reference-rotation") {
		static const char *const rot_names[] = { "0", "90", "180", "270" };
		static const char *const refl_names[] = { "", "-reflect-x",
							  "-reflect-y", "-reflect-xy" };

		gk_fb_noise(&primary, 6);
		for (int r = 0; r < 4; r++) {
			for (int f = 0; f < 4; f++) {
				igt_dynamic_f("rotate-%s%s", rot_names[r], refl_names[f]) {
					struct gk_layer l[2] = { base_layer() };
					struct gk_fb ov;

					gk_fb_create(&k, &ov, 64, 32, DRM_FORMAT_XRGB8888);
					gk_fb_noise(&ov, 7 + r * 4 + f);
					l[1] = layer(&ov, 50, 60, 1);
					l[1].sx = 8;
					l[1].sy = 4;
					l[1].sw = 48;
					l[1].sh = 24;
					l[1].w = 128;
					l[1].h = 64;
					l[1].rotation = (DRM_MODE_ROTATE_0 << r) |
							(uint64_t)f * DRM_MODE_REFLECT_X;
					check_ref(l, 2, 0);
					gk_fb_destroy(&k, &ov);
				}
			}
		}
	}

	igt_describe("Source rectangles scaled up to 8 times and down to 1/8, at offsets inside their buffer, equal the CPU reference.");
	igt_subtest("reference-scaling") {
		static const struct { uint32_t sx, sy, sw, sh, w, h; } s[] = {
			{ 0, 0, 64, 64, 128, 128 },	/* 2x */
			{ 0, 0, 64, 64, 32, 32 },	/* 1/2 */
			{ 16, 8, 48, 40, 64, 256 },	/* 4/3, 32/5 */
			{ 3, 5, 40, 32, 256, 256 },	/* 32/5, 8 */
			{ 1, 2, 100, 64, 16, 8 },	/* 4/25, 1/8 */
		};
		struct gk_layer l[2] = { base_layer() };
		struct gk_fb ov;

		gk_fb_noise(&primary, 8);
		gk_fb_create(&k, &ov, 128, 96, DRM_FORMAT_XRGB8888);
		gk_fb_noise(&ov, 9);
		l[1] = layer(&ov, 30, 20, 1);
		for (unsigned int i = 0; i < ARRAY_SIZE(s); i++) {
			l[1].sx = s[i].sx;
			l[1].sy = s[i].sy;
			l[1].sw = s[i].sw;
			l[1].sh = s[i].sh;
			l[1].w = s[i].w;
			l[1].h = s[i].h;
			check_ref(l, 2, 0);
		}
		gk_fb_destroy(&k, &ov);
	}

	igt_describe("The color key with partial masks keys out exactly the matching pixels, as the CPU reference does.");
	igt_subtest("reference-colorkey") {
		static const uint32_t masks[] = { 0xffffff, 0x00ff00, 0xf0f0f0 };
		struct gk_layer l[2] = { base_layer() };
		struct gk_fb ov;

		gk_fb_noise(&primary, 10);
		gk_fb_create(&k, &ov, 128, 128, DRM_FORMAT_XRGB8888);
		gk_fb_noise(&ov, 11);
		/* Every third pixel the key color, whatever the mask. */
		for (int i = 0; i < 128 * 128; i += 3)
			((uint32_t *)ov.map)[i] = 0x20ff40;
		l[1] = layer(&ov, 10, 10, 1);
		l[1].colorkey = 0x20ff40;
		for (unsigned int i = 0; i < ARRAY_SIZE(masks); i++) {
			l[1].colorkey_mask = masks[i];
			check_ref(l, 2, 0);
		}
		gk_fb_destroy(&k, &ov);
	}

	igt_describe("The CRTC's gamma LUT maps every composed channel as the CPU reference does; with it removed, frames are unmapped again.");
	igt_subtest("reference-gamma") {
		struct gk_layer l[2] = { base_layer() };
		struct drm_color_lut lut[256];
		struct gk_fb ov;

		for (int i = 0; i < 256; i++)
			lut[i] = (struct drm_color_lut){
				.red = (255 - i) * 257,
				.green = (uint16_t)(65535.0 * (i / 255.0) * (i / 255.0)),
				.blue = (i / 32) * 32 * 257,
			};
		gk_fb_noise(&primary, 12);
		gk_fb_create(&k, &ov, 64, 64, DRM_FORMAT_RGB565);
		gk_fb_noise(&ov, 13);
		l[1] = layer(&ov, 300, 200, 1);
		gk_set_gamma(&k, lut);
		check_ref(l, 2, gk_ref_format_tol(DRM_FORMAT_RGB565));
		gk_set_gamma(&k, NULL);
		check_ref(l, 2, gk_ref_format_tol(DRM_FORMAT_RGB565));
		gk_fb_destroy(&k, &ov);
	}

	igt_describe("The CRC of a composed frame (three rotated and scaled overlays, a gamma LUT) equals the CRC of the CPU's reference frame on the primary plane alone, and differs from it when one pixel differs.");
	igt_subtest("reference-crc") {
		struct gk_layer l[4] = { base_layer() };
		struct drm_color_lut lut[256];
		igt_crc_t composed, alone, off;
		igt_pipe_crc_t *pc;
		struct gk_fb ov[3], flat;

		for (int i = 0; i < 256; i++)
			lut[i] = (struct drm_color_lut){ .red = (255 - i) * 257,
							 .green = i * 257,
							 .blue = (i ^ 0x55) * 257 };
		gk_fb_noise(&primary, 14);
		for (int i = 0; i < 3; i++) {
			gk_fb_create(&k, &ov[i], 64, 64, DRM_FORMAT_XRGB8888);
			gk_fb_noise(&ov[i], 15 + i);
			l[i + 1] = layer(&ov[i], 100 * i + 20, 60 * i + 10, i + 1);
			l[i + 1].w = 128;
			l[i + 1].h = 64;
			l[i + 1].rotation = DRM_MODE_ROTATE_90 << i;
		}
		gk_set_gamma(&k, lut);
		gk_ref_compose(&k, l, 4, ref);
		pc = igt_pipe_crc_new(fd, 0, IGT_PIPE_CRC_SOURCE_AUTO);
		igt_assert_eq(gk_commit(&k, l, 4, NULL, 0), 0);
		igt_pipe_crc_collect_crc(pc, &composed);

		gk_set_gamma(&k, NULL);
		gk_fb_create(&k, &flat, 640, 480, DRM_FORMAT_XRGB8888);
		gk_ref_store(&flat, ref);
		l[0].fb = &flat;
		igt_assert_eq(gk_commit(&k, l, 1, NULL, 0), 0);
		igt_pipe_crc_collect_crc(pc, &alone);
		igt_assert_crc_equal(&composed, &alone);

		((uint32_t *)flat.map)[640 * 240 + 320] ^= 1;
		igt_pipe_crc_collect_crc(pc, &off);
		igt_assert(!igt_check_crc_equal(&composed, &off));
		igt_pipe_crc_free(pc);
		gk_fb_destroy(&k, &flat);
		for (int i = 0; i < 3; i++)
			gk_fb_destroy(&k, &ov[i]);
	}

	igt_describe("Both CRTCs compose at once, each its own planes into its own writeback, each equal to the CPU reference.");
	igt_subtest("two-pipes") {
		struct gk_layer l0[2] = { base_layer() }, l1[2];
		struct gk_fb ov0, p1, wb1, ov1;
		struct gk k1;

		igt_require(gk_num_pipes(fd) >= 2);
		gk_init_pipe(&k1, fd, 1);
		igt_assert(gk_set_mode(&k1, 640, 480));
		igt_assert_neq(k1.crtc_id, k.crtc_id);
		igt_assert_neq(k1.wb_id, k.wb_id);
		gk_fb_create(&k1, &p1, 640, 480, DRM_FORMAT_XRGB8888);
		gk_fb_create(&k1, &wb1, 640, 480, DRM_FORMAT_XRGB8888);
		gk_fb_create(&k1, &ov1, 100, 80, DRM_FORMAT_UYVY);
		gk_fb_create(&k, &ov0, 100, 80, DRM_FORMAT_ARGB8888);
		gk_fb_noise(&primary, 30);
		gk_fb_noise(&p1, 31);
		gk_fb_noise(&ov0, 32);
		gk_fb_noise(&ov1, 33);
		l0[1] = layer(&ov0, 200, 100, 1);
		l0[1].blend = 0;
		l1[0] = gk_layer_of(&p1);
		l1[1] = layer(&ov1, 300, 200, 2);
		l1[1].w = 200;
		l1[1].h = 160;
		igt_assert_eq(gk_commit(&k1, l1, 2, NULL, 0), 0);
		check_ref(l0, 2, 1);		/* pipe A, while B runs */
		igt_assert_eq(gk_commit(&k1, l1, 2, &wb1, 0), 0);
		gk_ref_compose(&k1, l1, 2, ref);
		igt_assert_eq(gk_ref_compare(&wb1, ref, gk_ref_format_tol(DRM_FORMAT_UYVY)), 0);

		gk_disable(&k1);
		gk_fb_destroy(&k1, &ov1);
		gk_fb_destroy(&k1, &wb1);
		gk_fb_destroy(&k1, &p1);
		gk_fb_destroy(&k, &ov0);
		drmModeDestroyPropertyBlob(fd, k1.mode_blob);
	}

	igt_describe("Planes of the second CRTC put on the first (not in their possible_crtcs) are refused with EINVAL by atomic commits, TEST_ONLY or not, and by SETPLANE; the first CRTC's frame is unchanged.");
	igt_subtest("bad-possible-crtcs") {
		struct gk_layer l[2] = { base_layer() };
		struct gk_fb ov;
		struct gk k1;

		igt_require(gk_num_pipes(fd) >= 2);
		gk_init_pipe(&k1, fd, 1);
		gk_fb_noise(&primary, 40);
		solid(&ov, DRM_FORMAT_XRGB8888);
		l[1] = layer(&ov, 10, 10, 1);
		check_ref(l, 2, 0);
		for (int type = 0; type < 3; type++) {
			const struct gk_plane *p = gk_plane(&k1, type == 0 ? DRM_PLANE_TYPE_OVERLAY :
							    type == 1 ? DRM_PLANE_TYPE_PRIMARY :
							    DRM_PLANE_TYPE_CURSOR, 0);
			drmModePlanePtr info;

			igt_assert(p);
			info = drmModeGetPlane(fd, p->id);
			igt_assert(info && !(info->possible_crtcs & 1));
			drmModeFreePlane(info);
			for (int test_only = 0; test_only < 2; test_only++) {
				drmModeAtomicReqPtr req = drmModeAtomicAlloc();

				drmModeAtomicAddProperty(req, p->id, k.p_fb, ov.fb_id);
				drmModeAtomicAddProperty(req, p->id, k.p_crtc, k.crtc_id);
				drmModeAtomicAddProperty(req, p->id, k.p_sw, 64 << 16);
				drmModeAtomicAddProperty(req, p->id, k.p_sh, 64 << 16);
				drmModeAtomicAddProperty(req, p->id, k.p_cw, 64);
				drmModeAtomicAddProperty(req, p->id, k.p_ch, 64);
				igt_assert_eq(drmModeAtomicCommit(fd, req, test_only ?
								  DRM_MODE_ATOMIC_TEST_ONLY : 0,
								  NULL), -EINVAL);
				drmModeAtomicFree(req);
			}
			igt_assert_eq(drmModeSetPlane(fd, p->id, k.crtc_id, ov.fb_id, 0,
						      0, 0, 64, 64, 0, 0, 64 << 16,
						      64 << 16), -EINVAL);
		}
		/* Nothing of it reached the first CRTC. */
		check_ref(l, 2, 0);
		gk_fb_destroy(&k, &ov);
		drmModeDestroyPropertyBlob(fd, k1.mode_blob);
	}

	igt_describe("Planes read their objects in place: bytes written through mmap after the commit show in the next frames' CRC, with no new commit.");
	igt_subtest("in-place") {
		struct gk_layer l[2] = { base_layer() };
		igt_crc_t c1, c2, c3;
		igt_pipe_crc_t *pc;
		struct gk_fb ov;

		gk_fb_fill(&primary, 0);
		gk_fb_create(&k, &ov, 64, 64, DRM_FORMAT_XRGB8888);
		gk_fb_fill(&ov, 0x112233);
		l[1] = layer(&ov, 0, 0, 1);
		igt_assert_eq(gk_commit(&k, l, 2, NULL, 0), 0);

		pc = igt_pipe_crc_new(fd, 0, IGT_PIPE_CRC_SOURCE_AUTO);
		igt_pipe_crc_start(pc);
		igt_pipe_crc_get_single(pc, &c1);
		igt_pipe_crc_get_single(pc, &c2);
		igt_assert(c1.has_valid_frame && c2.has_valid_frame);
		igt_assert_lt(c1.frame, c2.frame);
		igt_assert_crc_equal(&c1, &c2);	/* nothing changed: same CRC */

		((uint32_t *)ov.map)[64 * 10 + 10] = 0xffffff;
		/* A frame composed after the write differs. */
		igt_pipe_crc_get_current(fd, pc, &c3);
		igt_assert(!igt_check_crc_equal(&c3, &c1));
		igt_pipe_crc_free(pc);
		gk_fb_destroy(&k, &ov);
	}

	igt_describe("Bad framebuffers (formats no plane offers, modifiers, buffers too small, pitches and offsets that split a pixel), bad plane states (a format or size the plane does not take, out-of-range properties, a wrong writeback size) and gamma LUTs of a size other than GAMMA_LUT_SIZE are refused with EINVAL, leaving the frame as it was and nothing allocated.");
	igt_subtest_with_dynamic("bad-input") {
		static const struct {
			const char *name;
			uint32_t format, w, h, pitch[2], offset[2];
			uint64_t size, modifier;
		} fbs[] = {
			/* BGR888 is no plane's format. */
			{ "format-on-no-plane", DRM_FORMAT_BGR888, 64, 64, { 192 }, {}, 64 * 192, 0 },
			{ "buffer-too-small", DRM_FORMAT_XRGB8888, 64, 64, { 256 }, {}, 64 * 192, 0 },
			{ "offset-past-end", DRM_FORMAT_XRGB8888, 64, 64, { 256 }, { 4096 }, 64 * 256, 0 },
			{ "pitch-too-small", DRM_FORMAT_XRGB8888, 64, 64, { 252 }, {}, 64 * 256, 0 },
			{ "pitch-splits-pixel", DRM_FORMAT_XRGB8888, 64, 64, { 258 }, {}, 65 * 258, 0 },
			{ "offset-splits-pixel", DRM_FORMAT_XRGB8888, 64, 64, { 256 }, { 2 }, 65 * 256, 0 },
			{ "yuyv-odd-pitch", DRM_FORMAT_YUYV, 64, 64, { 129 }, {}, 65 * 129, 0 },
			{ "nv12-odd-chroma-pitch", DRM_FORMAT_NV12, 64, 64, { 64, 129 },
			  { 0, 4096 }, 4096 + 32 * 129, 0 },
			{ "nv12-odd-chroma-offset", DRM_FORMAT_NV12, 64, 64, { 64, 64 },
			  { 0, 4097 }, 8192, 0 },
			/* Sizes are whole pages: the chroma runs 1 KiB past this one. */
			{ "nv12-chroma-past-end", DRM_FORMAT_NV12, 64, 64, { 64, 64 },
			  { 0, 7168 }, 8192, 0 },
			{ "tiled-modifier", DRM_FORMAT_XRGB8888, 64, 64, { 256 }, {}, 64 * 256,
			  fourcc_mod_code(INTEL, 1) },
		};

		for (unsigned int i = 0; i < ARRAY_SIZE(fbs); i++) {
			igt_dynamic(fbs[i].name) {
				long objects = gembuf_state("objects");
				uint32_t h = gembuf_create(fd, fbs[i].size, 0, GEMBUF_CACHE_WB);
				uint32_t handles[4] = { h, fbs[i].pitch[1] ? h : 0 };
				uint32_t pitches[4] = { fbs[i].pitch[0], fbs[i].pitch[1] };
				uint32_t offsets[4] = { fbs[i].offset[0], fbs[i].offset[1] };
				uint64_t mods[4] = { fbs[i].modifier, fbs[i].pitch[1] ? fbs[i].modifier : 0 };
				uint32_t fb_id = 0;
				int ret;

				ret = drmModeAddFB2WithModifiers(fd, fbs[i].w, fbs[i].h, fbs[i].format,
								 handles, pitches, offsets,
								 fbs[i].modifier ? mods : NULL,
								 &fb_id, fbs[i].modifier ?
								 DRM_MODE_FB_MODIFIERS : 0);
				igt_assert_eq(ret, -EINVAL);
				gem_close(fd, h);
				igt_assert_eq(gembuf_state("objects"), objects);
			}
		}

		igt_dynamic("plane-states") {
			static const struct { const char *prop; uint64_t value; } props[] = {
				{ "alpha", 0x10000 },
				{ "pixel blend mode", 3 },
				{ "rotation", 0 },
				{ "rotation", DRM_MODE_ROTATE_0 | DRM_MODE_ROTATE_90 },
				{ "rotation", 1 << 6 },
				{ "COLORKEY", 0x1000000 },
				{ "COLORKEY_MASK", 0x1000000 },
				{ "COLOR_ENCODING", 2 },
				{ "COLOR_RANGE", 2 },
				{ "zpos", 9 },
			};
			struct gk_layer l[5] = { base_layer() };
			const struct gk_plane *ov = gk_plane(&k, DRM_PLANE_TYPE_OVERLAY, 0);
			long objects = gembuf_state("objects");
			struct gk_fb fb, nv12, big;
			uint64_t cursor_max = 0;

			igt_assert_eq(drmGetCap(k.fd, DRM_CAP_CURSOR_WIDTH, &cursor_max), 0);
			igt_assert(k.num_planes == 5 && k.planes[4].type == DRM_PLANE_TYPE_CURSOR);
			gk_fb_noise(&primary, 50);
			solid(&fb, DRM_FORMAT_XRGB8888);
			solid(&nv12, DRM_FORMAT_NV12);
			gk_fb_create(&k, &big, cursor_max + 64, cursor_max + 64,
				     DRM_FORMAT_ARGB8888);
			l[1] = layer(&fb, 10, 10, 1);
			check_ref(l, 2, 0);

			for (unsigned int i = 0; i < ARRAY_SIZE(props); i++) {
				drmModeAtomicReqPtr req = drmModeAtomicAlloc();
				uint32_t prop = gk_prop(fd, ov->id, DRM_MODE_OBJECT_PLANE,
							props[i].prop, NULL);

				igt_assert_f(prop, "no %s property\n", props[i].prop);
				igt_assert(drmModeAtomicAddProperty(req, ov->id, prop,
								    props[i].value) >= 0);
				for (int test_only = 0; test_only < 2; test_only++)
					igt_assert_f(drmModeAtomicCommit(fd, req, test_only ?
									 DRM_MODE_ATOMIC_TEST_ONLY : 0,
									 NULL) == -EINVAL,
						     "%s = %#llx accepted\n", props[i].prop,
						     (unsigned long long)props[i].value);
				drmModeAtomicFree(req);
			}

			/* The cursor takes neither YCbCr nor more than its size. */
			l[4] = layer(&nv12, 100, 100, -1);
			igt_assert_eq(gk_commit(&k, l, 5, NULL, 0), -EINVAL);
			l[4] = layer(&big, 100, 100, -1);
			igt_assert_eq(gk_commit(&k, l, 5, NULL, 0), -EINVAL);
			/* An overlay takes both. */
			l[1] = layer(&nv12, 10, 10, 1);
			l[4] = (struct gk_layer){};
			igt_assert_eq(gk_commit(&k, l, 2, NULL, DRM_MODE_ATOMIC_TEST_ONLY), 0);
			l[1] = layer(&big, 10, 10, 1);
			igt_assert_eq(gk_commit(&k, l, 2, NULL, DRM_MODE_ATOMIC_TEST_ONLY), 0);
			/* A writeback framebuffer of the wrong size. */
			l[1] = layer(&fb, 10, 10, 1);
			igt_assert_eq(gk_commit(&k, l, 2, &fb, DRM_MODE_ATOMIC_TEST_ONLY), -EINVAL);

			/* None of it reached the screen. */
			gk_ref_compose(&k, l, 2, ref);
			igt_assert_eq(gk_commit(&k, l, 2, &wb, 0), 0);
			igt_assert_eq(gk_ref_compare(&wb, ref, 0), 0);
			gk_fb_destroy(&k, &big);
			gk_fb_destroy(&k, &nv12);
			gk_fb_destroy(&k, &fb);
			igt_assert_eq(gembuf_state("objects"), objects);
		}

		/*
		 * DRM takes any GAMMA_LUT blob of whole entries; the CRTC's
		 * check refuses one of other than GAMMA_LUT_SIZE (256) of
		 * them, and takes that size.
		 */
		igt_dynamic("gamma-lut-sizes") {
			static const unsigned int sizes[] = { 1, 255, 257 };
			struct drm_color_lut lut[257];
			struct gk_layer l[1] = { base_layer() };
			uint64_t lut_size = 0;

			igt_assert(k.crtc_gamma_prop);
			igt_assert(gk_prop(fd, k.crtc_id, DRM_MODE_OBJECT_CRTC,
					   "GAMMA_LUT_SIZE", &lut_size));
			igt_assert_eq_u64(lut_size, 256);
			for (unsigned int i = 0; i < ARRAY_SIZE(lut); i++) {
				uint16_t v = i < 256 ? i * 257 : 0xffff;

				lut[i] = (struct drm_color_lut){ .red = v, .green = v, .blue = v };
			}
			gk_set_gamma(&k, NULL);
			gk_fb_noise(&primary, 51);
			check_ref(l, 1, 0);

			for (unsigned int i = 0; i <= ARRAY_SIZE(sizes); i++) {
				unsigned int n = i < ARRAY_SIZE(sizes) ? sizes[i] : lut_size;
				int want = n == lut_size ? 0 : -EINVAL;
				drmModeAtomicReqPtr req = drmModeAtomicAlloc();
				uint32_t blob;

				igt_assert_eq(drmModeCreatePropertyBlob(fd, lut, n * sizeof(lut[0]),
									&blob), 0);
				igt_assert(drmModeAtomicAddProperty(req, k.crtc_id,
								    k.crtc_gamma_prop, blob) >= 0);
				igt_assert_f(drmModeAtomicCommit(fd, req, DRM_MODE_ATOMIC_TEST_ONLY,
								 NULL) == want,
					     "a gamma LUT of %u entries %s\n", n,
					     want ? "accepted" : "refused");
				/* The LUT that fits is only tried: frames stay without gamma. */
				if (want)
					igt_assert_f(drmModeAtomicCommit(fd, req, 0, NULL) == want,
						     "a gamma LUT of %u entries accepted\n", n);
				drmModeAtomicFree(req);
				drmModeDestroyPropertyBlob(fd, blob);
			}

			/* None of it reached the screen: frames are still without gamma. */
			writeback_current();
			gk_ref_compose(&k, l, 1, ref);
			igt_assert_eq(gk_ref_compare(&wb, ref, 0), 0);
		}
	}

	igt_fixture {
		gk_disable(&k);
		gk_fb_destroy(&k, &wb);
		gk_fb_destroy(&k, &primary);
		free(ref);
		drm_close_driver(fd);
	}
}
