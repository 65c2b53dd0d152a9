// SPDX-License-Identifier: MIT
/*
 * kms_cursor_legacy: the ordering upstream igt's test of this name checks
 * between a nonblocking modeset and a legacy cursor update, with its
 * subtest name.  Right after a nonblocking commit that lights (or turns
 * off) the CRTC and asks for a page-flip event, the event is not there
 * yet; a legacy cursor ioctl then waits for that commit, so once it
 * returns the event is.  The same holds for a cursor update on the CRTC
 * the last commit turned off.
 */
#include <errno.h>
#include <poll.h>
#include <unistd.h>
#include <drm_fourcc.h>

#include "igt.h"
#include "gembuf.h"
#include "gembuf_kms.h"

IGT_TEST_DESCRIPTION("Stress legacy cursor ioctl");

#define LOOPS	20

static int fd = -1;

/* Whether an event can be read from the DRM file right now. */
static int event_ready(void)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0);
}

static void read_flip_event(void)
{
	struct drm_event_vblank ev;

	igt_assert_eq(read(fd, &ev, sizeof(ev)), sizeof(ev));
	igt_assert_eq_u32(ev.base.type, DRM_EVENT_FLIP_COMPLETE);
}

/*
 * Right after a nonblocking commit that asked for a flip event, the event
 * is not there; a legacy cursor update waits for that commit, so once it
 * returns the event is.
 */
static void check_cursor_waits(const struct gk *k, const struct gk_fb *cursor,
			       const char *what, int loop)
{
	igt_assert_f(event_ready() == 0,
		     "loop %d: flip event before the %s was done\n", loop, what);
	igt_assert_eq(drmModeSetCursor(fd, k->crtc_id, cursor->handle, 64, 64), 0);
	igt_assert_f(event_ready() == 1,
		     "loop %d: no flip event after the cursor update\n", loop);
	read_flip_event();
}

static void nonblocking_modeset_vs_cursor(void)
{
	const uint32_t flags = DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT;
	struct gk_fb fb, small, cursor;
	struct gk_layer l, ls;
	struct gk k;

	gk_init_pipe(&k, fd, 0);
	igt_require(gk_set_mode(&k, 800, 600));
	igt_require(gk_set_mode(&k, 1024, 768));
	gk_fb_create(&k, &fb, 1024, 768, DRM_FORMAT_XRGB8888);
	gk_fb_fill(&fb, 0x404040);
	gk_fb_create(&k, &small, 800, 600, DRM_FORMAT_XRGB8888);
	gk_fb_fill(&small, 0x204080);
	ls = gk_layer_of(&small);
	gk_fb_create(&k, &cursor, 64, 64, DRM_FORMAT_ARGB8888);
	gk_fb_fill(&cursor, 0xffffffff);
	l = gk_layer_of(&fb);

	/* Start off, as upstream does. */
	igt_assert_eq(__gk_disable(&k), 0);
	for (int i = 0; i < LOOPS; i++) {
		/* Light the CRTC with the cursor off; the cursor ioctl waits. */
		igt_assert_eq(gk_commit(&k, &l, 1, NULL, flags), 0);
		check_cursor_waits(&k, &cursor, "modeset", i);

		/* Not upstream's: a mode change that keeps the CRTC on. */
		igt_assert(gk_set_mode(&k, 800, 600));
		igt_assert_eq(gk_commit(&k, &ls, 1, NULL, flags), 0);
		check_cursor_waits(&k, &cursor, "mode change", i);
		igt_assert(gk_set_mode(&k, 1024, 768));

		/* The same for a cursor update on the CRTC turned off. */
		igt_assert_eq(__gk_disable_flags(&k, flags), 0);
		check_cursor_waits(&k, &cursor, "CRTC going off", i);
	}

	igt_assert_eq(drmModeSetCursor(fd, k.crtc_id, 0, 0, 0), 0);
	gk_disable(&k);
	gk_fb_destroy(&k, &cursor);
	gk_fb_destroy(&k, &small);
	gk_fb_destroy(&k, &fb);
}

igt_main
{
	igt_fixture {
		fd = gembuf_open_display();
		igt_require(drmSetClientCap(fd, DRM_CLIENT_CAP_ATOMIC, 1) == 0);
	}

	igt_describe("Check that a legacy cursor update after a nonblocking modeset waits for the modeset, and that the modeset's page-flip event comes only once it is done.");
	igt_subtest("nonblocking-modeset-vs-cursor-atomic")
		nonblocking_modeset_vs_cursor();

	igt_fixture
		drm_close_driver(fd);
}
