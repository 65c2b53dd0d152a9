// SPDX-License-Identifier: MIT
/*
 * kms_invalid_mode: upstream igt's kms_invalid_mode contract, with its
 * subtest names: a legacy modeset with the preferred mode of each
 * pipe's connector, made invalid one way at a time, must be refused.
 * Upstream's clock-too-high asks i915's debugfs for the highest dot
 * clock and skips elsewhere; here it uses the 600 MHz gembuf states, and
 * skips on other drivers.  Besides upstream's, gembuf's policy, not DRM
 * core's, in a group that skips on other drivers: clock-too-low, a frame
 * longer than the second the display's vblank timer takes; frame-too-short,
 * a frame shorter than the millisecond gembuf's vblank timer takes (a
 * frame of 1 ms passes an atomic TEST_ONLY commit); dblscan, line
 * doubling, which the composer does not do; frame-over-int-max, a frame
 * of more pixels than the vblank timer's int arithmetic holds, at
 * GEMBUF_MAX_DOTCLOCK.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <drm_fourcc.h>

#include "igt.h"
#include "gembuf.h"
#include "gembuf_kms.h"

IGT_TEST_DESCRIPTION("Make sure all modesets are rejected when the requested mode is invalid");

#define GEMBUF_MAX_DOTCLOCK	600000	/* kHz, as the driver states */

static void clock_too_high(drmModeModeInfo *m) { m->clock = GEMBUF_MAX_DOTCLOCK + 1; }
static void zero_clock(drmModeModeInfo *m) { m->clock = 0; }
static void int_max_clock(drmModeModeInfo *m) { m->clock = INT_MAX; }
static void uint_max_clock(drmModeModeInfo *m) { m->clock = UINT_MAX; }
static void zero_hdisplay(drmModeModeInfo *m) { m->hdisplay = 0; }
static void zero_vdisplay(drmModeModeInfo *m) { m->vdisplay = 0; }
static void bad_hsync_start(drmModeModeInfo *m) { m->hsync_start = m->hdisplay - 1; }
static void bad_vsync_start(drmModeModeInfo *m) { m->vsync_start = m->vdisplay - 1; }
static void bad_hsync_end(drmModeModeInfo *m) { m->hsync_end = m->hsync_start - 1; }
static void bad_vsync_end(drmModeModeInfo *m) { m->vsync_end = m->vsync_start - 1; }
static void bad_htotal(drmModeModeInfo *m) { m->htotal = m->hsync_end - 1; }
static void bad_vtotal(drmModeModeInfo *m) { m->vtotal = m->vsync_end - 1; }

/*
 * One kHz below the pixel clock of a frame of one second: the frame
 * lasts just over a second.  The preferred mode has hundreds of
 * thousands of pixels a frame, so the clock stays far from zero
 * (zero-clock's case).
 */
static void clock_too_low(drmModeModeInfo *m)
{
	m->clock = (uint64_t)m->htotal * m->vtotal / 1000 - 1;
}

/*
 * Every line shown twice.  DRM's viewport check takes the frame as twice
 * as tall: test_pipe() gives such a mode a framebuffer that tall, so
 * that the refusal is the CRTC's.
 */
static void dblscan(drmModeModeInfo *m)
{
	m->flags |= DRM_MODE_FLAG_DBLSCAN;
}

/*
 * 65535 x 65535 pixels a frame, more than INT_MAX, at the highest clock
 * the display takes: drm_calc_timestamping_constants() works the frame
 * out in int.
 */
static void frame_over_int_max(drmModeModeInfo *m)
{
	m->htotal = 65535;
	m->vtotal = 65535;
	m->clock = GEMBUF_MAX_DOTCLOCK;
}

/* 64x64 in frames of 100x100 pixels at @clock kHz: 10000 pixels a frame. */
static drmModeModeInfo small_mode(drmModeModeInfo m, uint32_t clock)
{
	m.hdisplay = 64;
	m.hsync_start = 70;
	m.hsync_end = 80;
	m.htotal = 100;
	m.vdisplay = 64;
	m.vsync_start = 70;
	m.vsync_end = 80;
	m.vtotal = 100;
	m.vscan = 0;
	m.flags = DRM_MODE_FLAG_NHSYNC | DRM_MODE_FLAG_NVSYNC;
	m.clock = clock;
	m.vrefresh = clock / 10;
	m.type = DRM_MODE_TYPE_USERDEF;
	snprintf(m.name, sizeof(m.name), "64x64@%u", m.vrefresh);
	return m;
}

/* A frame of 10000 pixels at 10001 kHz: 0.9999 ms, under a millisecond. */
static void frame_too_short(drmModeModeInfo *m)
{
	*m = small_mode(*m, 10001);
}

static void overflow_vrefresh(drmModeModeInfo *m)
{
	/* htotal * vtotal * vscan == 2^32 */
	m->htotal = 32768;
	m->vtotal = 32768;
	m->vscan = 4;
}

static const struct {
	const char *name;
	void (*adjust)(drmModeModeInfo *m);
} subtests[] = {
	{ "zero-clock", zero_clock },
	{ "int-max-clock", int_max_clock },
	{ "uint-max-clock", uint_max_clock },
	{ "zero-hdisplay", zero_hdisplay },
	{ "zero-vdisplay", zero_vdisplay },
	{ "bad-hsync-start", bad_hsync_start },
	{ "bad-vsync-start", bad_vsync_start },
	{ "bad-hsync-end", bad_hsync_end },
	{ "bad-vsync-end", bad_vsync_end },
	{ "bad-htotal", bad_htotal },
	{ "bad-vtotal", bad_vtotal },
	{ "overflow-vrefresh", overflow_vrefresh },
};

static int fd = -1;

/* The connector's preferred mode, or its first. */
static drmModeModeInfo preferred(uint32_t conn_id)
{
	drmModeConnectorPtr c = drmModeGetConnector(fd, conn_id);
	drmModeModeInfo m;

	igt_assert(c && c->count_modes > 0);
	m = c->modes[0];
	for (int i = 0; i < c->count_modes; i++)
		if (c->modes[i].type & DRM_MODE_TYPE_PREFERRED) {
			m = c->modes[i];
			break;
		}
	drmModeFreeConnector(c);
	return m;
}

/* The modeset of @pipe with its preferred mode, @adjust'ed: refused, with @err if not 0. */
static void test_pipe(unsigned int pipe, void (*adjust)(drmModeModeInfo *m), int err)
{
	struct gk k;
	struct gk_fb fb;
	drmModeModeInfo mode;
	uint32_t width, lines;
	int ret;

	gk_init_pipe(&k, fd, pipe);
	mode = preferred(k.conn_id);
	/* The framebuffer is sized by the preferred mode, before @adjust. */
	width = mode.hdisplay;
	lines = mode.vdisplay;
	adjust(&mode);
	/* A line-doubled mode is twice as tall to DRM's viewport check. */
	if (mode.flags & DRM_MODE_FLAG_DBLSCAN)
		lines *= 2;
	gk_fb_create(&k, &fb, width > 64 ? width : 64,
		     lines > 64 ? lines : 64, DRM_FORMAT_XRGB8888);
	ret = drmModeSetCrtc(fd, k.crtc_id, fb.fb_id, 0, 0, &k.conn_id, 1, &mode);
	if (err)
		igt_assert_eq(ret, -err);
	else
		igt_assert_lt(ret, 0);
	gk_fb_destroy(&k, &fb);
}

/* gembuf's own limits, each refused with EINVAL; other drivers skip them. */
static const struct {
	const char *name;
	void (*adjust)(drmModeModeInfo *m);
	const char *describe;
} gembuf_subtests[] = {
	{ "clock-too-high", clock_too_high,
	  "gembuf only: a mode whose clock is over gembuf's highest dot clock (600 MHz) is refused with EINVAL; upstream reads i915's and skips on other drivers." },
	{ "clock-too-low", clock_too_low,
	  "gembuf only: a mode whose frame lasts more than a second, the longest the display's vblank timer takes, is refused with EINVAL." },
	{ "dblscan", dblscan,
	  "gembuf only: a line-doubled mode (DRM_MODE_FLAG_DBLSCAN) is refused with EINVAL, its framebuffer tall enough for DRM's viewport check: the composer shows each line once." },
	{ "frame-over-int-max", frame_over_int_max,
	  "gembuf only: a mode of more pixels a frame than an int holds (65535 x 65535), at gembuf's highest dot clock, is refused with EINVAL." },
};

/*
 * 10000 pixels a frame at 10001 kHz (0.9999 ms) are refused, by the
 * legacy modeset and by an atomic TEST_ONLY commit; at 10000 kHz (1 ms)
 * the atomic check passes, which changes nothing.
 */
static void test_frame_1ms(unsigned int pipe)
{
	struct gk k;
	struct gk_fb fb;
	struct gk_layer l;
	drmModeModeInfo m;

	test_pipe(pipe, frame_too_short, EINVAL);
	gk_init_pipe(&k, fd, pipe);
	gk_fb_create(&k, &fb, 64, 64, DRM_FORMAT_XRGB8888);
	l = gk_layer_of(&fb);
	m = small_mode(k.mode, 10001);
	gk_set_mode_info(&k, &m);
	igt_assert_eq(gk_commit(&k, &l, 1, NULL, DRM_MODE_ATOMIC_TEST_ONLY), -EINVAL);
	m = small_mode(k.mode, 10000);
	gk_set_mode_info(&k, &m);
	igt_assert_eq(gk_commit(&k, &l, 1, NULL, DRM_MODE_ATOMIC_TEST_ONLY), 0);
	drmModeDestroyPropertyBlob(fd, k.mode_blob);
	gk_fb_destroy(&k, &fb);
}

igt_main
{
	igt_fixture {
		fd = drm_open_driver_master(DRIVER_ANY);
		igt_require(gk_num_pipes(fd) > 0);
	}

	for (unsigned int i = 0; i < sizeof(subtests) / sizeof(subtests[0]); i++) {
		igt_describe("Make sure all modesets are rejected when the requested mode is invalid");
		igt_subtest_with_dynamic(subtests[i].name) {
			for (int pipe = 0; pipe < gk_num_pipes(fd); pipe++)
				igt_dynamic_f("pipe-%c-Virtual-%d", 'A' + pipe, pipe + 1)
					test_pipe(pipe, subtests[i].adjust, 0);
		}
	}

	/*
	 * gembuf's policy, not DRM core's rules: gembuf refuses clocks over
	 * its highest dot clock, frames over a second, line doubling,
	 * frames under a millisecond and frames of more pixels than
	 * INT_MAX.  Other drivers skip these.
	 */
	igt_subtest_group {
		igt_fixture
			igt_require(is_gembuf_device(fd));

		for (unsigned int i = 0; i < sizeof(gembuf_subtests) / sizeof(gembuf_subtests[0]); i++) {
			igt_describe(gembuf_subtests[i].describe);
			igt_subtest_with_dynamic(gembuf_subtests[i].name) {
				for (int pipe = 0; pipe < gk_num_pipes(fd); pipe++)
					igt_dynamic_f("pipe-%c-Virtual-%d", 'A' + pipe, pipe + 1)
						test_pipe(pipe, gembuf_subtests[i].adjust, EINVAL);
			}
		}

		igt_describe("gembuf only: a mode whose frame lasts less than a millisecond, the shortest gembuf's vblank timer takes, is refused with EINVAL, by the legacy modeset and by an atomic TEST_ONLY commit; a frame of exactly 1 ms passes the atomic check.");
		igt_subtest_with_dynamic("frame-too-short") {
			for (int pipe = 0; pipe < gk_num_pipes(fd); pipe++)
				igt_dynamic_f("pipe-%c-Virtual-%d", 'A' + pipe, pipe + 1)
					test_frame_1ms(pipe);
		}
	}

	igt_fixture
		drm_close_driver(fd);
}
