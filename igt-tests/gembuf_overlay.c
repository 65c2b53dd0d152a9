// SPDX-License-Identifier: MIT
/*
 * gembuf_overlay: the display's planes scan gembuf objects out in place.
 * Every frame is read back through the writeback connector and compared
 * pixel by pixel with what a CPU would compose; the CRC shows a change
 * made through mmap after the commit, with no new commit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <drm_fourcc.h>

#include "igt.h"
#include "gembuf.h"
#include "gembuf_kms.h"
#include "igt_pipe_crc.h"

IGT_TEST_DESCRIPTION("Compose gembuf overlay planes and check the pixels.");

static struct gk k;
static struct gk_fb primary, wb;

static uint32_t wb_px(int x, int y)
{
	return ((uint32_t *)wb.map)[y * (wb.pitch / 4) + x] & 0xffffff;
}

static struct gk_layer base_layer(void)
{
	return (struct gk_layer){ .fb = &primary, .zpos = -1, .alpha = 0xffff,
				  .blend = -1 };
}

static struct gk_layer layer(struct gk_fb *fb, int x, int y, int zpos)
{
	return (struct gk_layer){ .fb = fb, .x = x, .y = y, .zpos = zpos,
				  .alpha = 0xffff, .blend = -1 };
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

	igt_describe("The overlay with the higher zpos is on top, both ways round.");
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

	igt_describe("Planes read their objects in place: bytes written through mmap after the commit show in the next frames' CRC, with no new commit.");
	igt_subtest("in-place") {
		struct gk_layer l[2] = { base_layer() };
		igt_crc_t c1, c2, c3 = {};
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
		for (int i = 0; i < 4 && (!c3.n_words || igt_check_crc_equal(&c3, &c1)); i++)
			igt_pipe_crc_get_single(pc, &c3);
		igt_assert(!igt_check_crc_equal(&c3, &c1));
		igt_pipe_crc_free(pc);
		gk_fb_destroy(&k, &ov);
	}

	igt_describe("Formats a plane does not offer, zpos out of range and too small buffers are refused with EINVAL.");
	igt_subtest("bad-input") {
		struct gk_layer l[2] = { base_layer() };
		uint32_t h = gembuf_create(fd, 64 * 64 * 3, 0, GEMBUF_CACHE_WB);
		uint32_t handles[4] = { h }, pitches[4] = { 64 * 3 }, offsets[4] = {};
		uint32_t fb_id;
		struct gk_fb ov;

		/* BGR888 is no plane's format: ADDFB2 refuses it. */
		igt_assert_neq(drmModeAddFB2(fd, 64, 64, DRM_FORMAT_BGR888, handles,
					     pitches, offsets, &fb_id, 0), 0);
		igt_assert_eq(errno, EINVAL);
		/* Too small for XRGB8888 64x64. */
		pitches[0] = 64 * 4;
		igt_assert_neq(drmModeAddFB2(fd, 64, 64, DRM_FORMAT_XRGB8888, handles,
					     pitches, offsets, &fb_id, 0), 0);
		igt_assert_eq(errno, EINVAL);
		gem_close(fd, h);

		solid(&ov, DRM_FORMAT_XRGB8888);
		l[1] = layer(&ov, 0, 0, 9);
		igt_assert_eq(gk_commit(&k, l, 2, NULL, DRM_MODE_ATOMIC_TEST_ONLY), -EINVAL);
		/* A writeback framebuffer of the wrong size. */
		l[1].zpos = 1;
		igt_assert_eq(gk_commit(&k, l, 2, &ov, DRM_MODE_ATOMIC_TEST_ONLY), -EINVAL);
		gk_fb_destroy(&k, &ov);
	}

	igt_fixture {
		gk_disable(&k);
		gk_fb_destroy(&k, &wb);
		gk_fb_destroy(&k, &primary);
		drm_close_driver(fd);
	}
}
