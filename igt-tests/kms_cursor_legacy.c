// SPDX-License-Identifier: MIT
/*
 * kms_cursor_legacy: the ordering upstream igt's test of this name checks
 * between a nonblocking modeset and a legacy cursor update, with its
 * subtest name.  Right after a nonblocking commit that lights (or turns
 * off) the CRTC and asks for a page-flip event, the event is not there
 * yet; a legacy cursor ioctl then waits for that commit, so once it
 * returns the event is.  The same holds for a cursor update on the CRTC
 * the last commit turned off.
 *
 * A cursor that only moves does not wait for a flip in flight: the
 * cursor ioctl returns within the frame the flip was asked in, and the
 * flip still lands on the next vblank (basic-flip-before-cursor-*,
 * flip-vs-cursor-*); a client moving the cursor without pause neither
 * delays the flips nor is held to their pace (cursor-vs-flip-*).  All
 * of them run modes of 5 frames a second, where upstream runs the
 * preferred mode and allows a few misses: a frame there outlasts any
 * ioctl's cost in the guest, so "not yet" holds and the counts are exact.
 * At 60 Hz a debug kernel's commit and poll, with kmemleak or a kworker
 * in between, once took longer than the frame a CRTC going off waits for.
 *
 * The subtests share one DRM file: each starts with a blocking commit
 * and reads what is queued, so that a subtest that failed with a flip in
 * flight does not hand its event to the next one, and a cursor-moving
 * child is bounded and killed on exit (gk_mover_start()).
 *
 * Exact only because the guest runs under QEMU's -icount shift=0,sleep=off
 * (qemu/boot.sh): its clock counts the instructions it runs, so a host
 * that is loaded, or a vCPU descheduled by the host, stretches no
 * guest interval, and the vblank timer cannot fire in the middle of
 * a few ioctls.  On real hardware, or a guest on the host's clock, a
 * 200 ms frame is still long, but a preempted test can miss one: the
 * "no vblank passed" and "landed on the next vblank" assertions would
 * then need upstream's tolerance.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <drm_fourcc.h>

#include "igt.h"
#include "gembuf.h"
#include "gembuf_kms.h"
#include "igt_kms.h"

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

/* @width x @height at 5 Hz, from now on; false if the connector lacks it. */
static bool set_slow_mode(struct gk *k, uint16_t width, uint16_t height)
{
	drmModeModeInfo slow;

	if (!gk_set_mode(k, width, height))
		return false;
	slow = gk_mode_at_hz(&k->mode, 5);
	gk_set_mode_info(k, &slow);
	return true;
}

static void nonblocking_modeset_vs_cursor(void)
{
	const uint32_t flags = DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT;
	struct gk_fb fb, small, cursor;
	struct gk_layer l, ls;
	struct gk k;

	gk_init_pipe(&k, fd, 0);
	igt_require(set_slow_mode(&k, 800, 600));
	igt_require(set_slow_mode(&k, 1024, 768));
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
	gk_drain_events(fd);
	for (int i = 0; i < LOOPS; i++) {
		/* Light the CRTC with the cursor off; the cursor ioctl waits. */
		igt_assert_eq(gk_commit(&k, &l, 1, NULL, flags), 0);
		check_cursor_waits(&k, &cursor, "modeset", i);

		/* Not upstream's: a mode change that keeps the CRTC on. */
		igt_assert(set_slow_mode(&k, 800, 600));
		igt_assert_eq(gk_commit(&k, &ls, 1, NULL, flags), 0);
		check_cursor_waits(&k, &cursor, "mode change", i);
		igt_assert(set_slow_mode(&k, 1024, 768));

		/* The same for a cursor update on the CRTC turned off. */
		igt_assert_eq(__gk_disable_flags(&k, flags), 0);
		check_cursor_waits(&k, &cursor, "CRTC going off", i);
	}

	igt_assert_eq(drmModeSetCursor(fd, k.crtc_id, 0, 0, 0), 0);
	gk_disable(&k);
	drmModeDestroyPropertyBlob(fd, k.mode_blob);
	gk_fb_destroy(&k, &cursor);
	gk_fb_destroy(&k, &small);
	gk_fb_destroy(&k, &fb);
}

/* A pipe at 5 Hz showing one of two framebuffers, with a 64x64 cursor. */
struct flipper {
	struct gk k;
	struct gk_fb fb[2], cursor;
	uint32_t primary;
};

static void flipper_init(struct flipper *f)
{
	struct gk_layer l;
	drmModeModeInfo slow;

	gk_init_pipe(&f->k, fd, 0);
	slow = gk_mode_at_hz(&f->k.mode, 5);
	gk_set_mode_info(&f->k, &slow);
	for (int i = 0; i < 2; i++) {
		gk_fb_create(&f->k, &f->fb[i], slow.hdisplay, slow.vdisplay,
			     DRM_FORMAT_XRGB8888);
		gk_fb_fill(&f->fb[i], i ? 0x204080 : 0x402010);
	}
	gk_fb_create(&f->k, &f->cursor, 64, 64, DRM_FORMAT_ARGB8888);
	gk_fb_fill(&f->cursor, 0xffffffff);
	f->primary = gk_plane(&f->k, DRM_PLANE_TYPE_PRIMARY, 0)->id;
	l = gk_layer_of(&f->fb[0]);
	igt_assert_eq(gk_commit(&f->k, &l, 1, NULL, 0), 0);
	/* Whatever an earlier subtest that failed left queued. */
	gk_drain_events(fd);
	/* The cursor's image, set once: what follows only moves it. */
	igt_assert_eq(drmModeSetCursor(fd, f->k.crtc_id, f->cursor.handle, 64, 64), 0);
	igt_assert_eq(drmModeMoveCursor(fd, f->k.crtc_id, 128, 128), 0);
}

static void flipper_fini(struct flipper *f)
{
	igt_assert_eq(drmModeSetCursor(fd, f->k.crtc_id, 0, 0, 0), 0);
	gk_disable(&f->k);
	drmModeDestroyPropertyBlob(fd, f->k.mode_blob);
	gk_fb_destroy(&f->k, &f->cursor);
	gk_fb_destroy(&f->k, &f->fb[1]);
	gk_fb_destroy(&f->k, &f->fb[0]);
}

/* A nonblocking flip of the primary to fb[@i & 1], with an event. */
static void flip(struct flipper *f, bool atomic, int i)
{
	uint32_t fb_id = f->fb[i & 1].fb_id;
	int ret;

	if (atomic) {
		drmModeAtomicReqPtr req = drmModeAtomicAlloc();

		igt_assert(drmModeAtomicAddProperty(req, f->primary, f->k.p_fb, fb_id) >= 0);
		ret = drmModeAtomicCommit(fd, req, DRM_MODE_ATOMIC_NONBLOCK |
					  DRM_MODE_PAGE_FLIP_EVENT, NULL);
		drmModeAtomicFree(req);
	} else {
		ret = drmModePageFlip(fd, f->k.crtc_id, fb_id,
				      DRM_MODE_PAGE_FLIP_EVENT, NULL);
	}
	igt_assert_eq(ret, 0);
}

/*
 * Right after a vblank, a nonblocking flip and then @moves cursor moves:
 * neither ioctl may let a vblank pass, and the flip lands on the next one.
 */
static void flip_then_cursor(bool atomic, int moves, int loops)
{
	struct flipper f;
	unsigned int start, now;

	flipper_init(&f);
	for (int i = 0; i < loops; i++) {
		start = kmstest_get_vblank(fd, 0, DRM_VBLANK_NEXTONMISS);
		flip(&f, atomic, i + 1);
		now = kmstest_get_vblank(fd, 0, 0);
		igt_assert_f(now == start,
			     "loop %d: the flip ioctl returned %u vblanks late\n",
			     i, now - start);
		for (int n = 0; n < moves; n++)
			igt_assert_eq(drmModeMoveCursor(fd, f.k.crtc_id,
							128 + 64 * (n & 1), 128), 0);
		now = kmstest_get_vblank(fd, 0, 0);
		igt_assert_f(now == start,
			     "loop %d: the cursor waited %u vblanks for the flip\n",
			     i, now - start);
		now = gk_read_flip(fd, NULL);
		igt_assert_f(now == start + 1,
			     "loop %d: the flip landed %u vblanks on\n", i, now - start);
	}
	flipper_fini(&f);
}

/*
 * A child moves the cursor without pause while the parent flips @flips
 * times, each flip asked for as the previous one lands: every flip lands
 * one frame after the previous one, and the cursor moves at least half
 * as often a frame as it does with no flip in flight.
 */
static void cursor_vs_flip(bool atomic, int flips)
{
	static const int at[2][2] = { { 128, 128 }, { 191, 128 } };
	unsigned long base, idle, busy;
	unsigned int first, prev, seq;
	struct gk_mover *m;
	struct flipper f;

	flipper_init(&f);

	/* The pace with nothing in flight, over 2 frames. */
	m = gk_mover_start(fd, f.k.crtc_id, at);
	kmstest_get_vblank(fd, 0, DRM_VBLANK_NEXTONMISS);
	base = m->moves;
	igt_wait_for_vblank_count(fd, 0, 2);
	idle = m->moves - base;
	gk_mover_stop(m);
	gk_mover_free(m);

	m = gk_mover_start(fd, f.k.crtc_id, at);
	flip(&f, atomic, 1);
	first = prev = gk_read_flip(fd, NULL);
	base = m->moves;
	for (int i = 0; i < flips; i++) {
		flip(&f, atomic, i);
		seq = gk_read_flip(fd, NULL);
		igt_assert_f(seq == prev + 1, "flip %d landed %u frames on\n",
			     i, seq - prev);
		prev = seq;
	}
	busy = m->moves - base;
	gk_mover_stop(m);
	gk_mover_free(m);
	igt_info("cursor moves a frame: %lu idle, %lu with flips\n",
		 idle / 2, busy / (prev - first));
	igt_assert_f(busy / (prev - first) >= idle / 2 / 2,
		     "%lu cursor moves in %u frames of flips, %lu in 2 idle frames\n",
		     busy, prev - first, idle);
	flipper_fini(&f);
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

	for (int atomic = 0; atomic < 2; atomic++) {
		const char *mode = atomic ? "atomic" : "legacy";

		/* No mover of a failed cursor-vs-flip-legacy in what follows. */
		igt_fixture
			gk_mover_reap();

		igt_describe("A cursor move right after a nonblocking flip returns in the same frame, without waiting for the flip, which lands on the next vblank.");
		igt_subtest_f("basic-flip-before-cursor-%s", mode)
			flip_then_cursor(atomic, 1, 10);

		igt_describe("Many cursor moves right after a nonblocking flip all return in the same frame, and the flip lands on the next vblank.");
		igt_subtest_f("flip-vs-cursor-%s", mode)
			flip_then_cursor(atomic, 16, 10);

		igt_describe("A process moving the cursor without pause neither delays flips asked for back to back (each lands one frame after the previous) nor is held to their pace (at least half its moves a frame with no flip in flight).");
		igt_subtest_f("cursor-vs-flip-%s", mode)
			cursor_vs_flip(atomic, 10);
	}

	igt_fixture
		drm_close_driver(fd);
}
