// SPDX-License-Identifier: MIT
/*
 * gembuf_kms_events: DRM's timing contracts on gembuf's display: vblank
 * counters and waits, page-flip events of atomic commits, TEST_ONLY
 * commits that change nothing, writeback out-fences that signal, and
 * in-fences the commit waits for.  With IGT_FORCE_DRIVER naming another
 * KMS driver (vkms) the tests run on that driver's device instead.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <drm_fourcc.h>

#include "igt.h"
#include "gembuf.h"
#include "gembuf_kms.h"
#include "sw_sync.h"

IGT_TEST_DESCRIPTION("Check vblank, flip events and TEST_ONLY on gembuf.");

static struct gk k;
static struct gk_fb a, b, wb;

struct flip {
	unsigned int count, sequence;
};

static void flip_handler(int fd, unsigned int sequence, unsigned int sec,
			 unsigned int usec, unsigned int crtc_id, void *data)
{
	struct flip *f = data;

	f->count++;
	f->sequence = sequence;
}

static void wait_event(int fd, struct flip *f)
{
	drmEventContext ev = {
		.version = 3, .page_flip_handler2 = flip_handler,
	};
	struct pollfd p = { .fd = fd, .events = POLLIN };

	igt_assert_eq(poll(&p, 1, 10000), 1);
	igt_assert_eq(drmHandleEvent(fd, &ev), 0);
	(void)f;
}

/* A commit that only asks for a writeback of the current state. */
static void writeback_current(int fd)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	struct pollfd p = { .events = POLLIN };
	int32_t fence = -1;

	igt_assert(drmModeAtomicAddProperty(req, k.wb_id, k.wb_crtc_id, k.crtc_id) >= 0);
	igt_assert(drmModeAtomicAddProperty(req, k.wb_id, k.wb_fb_prop, wb.fb_id) >= 0);
	igt_assert(drmModeAtomicAddProperty(req, k.wb_id, k.wb_fence_prop,
					    (uint64_t)(uintptr_t)&fence) >= 0);
	igt_assert_eq(drmModeAtomicCommit(fd, req, 0, NULL), 0);
	drmModeAtomicFree(req);
	p.fd = fence;
	igt_assert_eq(poll(&p, 1, 60000), 1);
	close(fence);
}

/* gembuf's display, or the KMS driver IGT_FORCE_DRIVER names. */
static int open_display(void)
{
	const char *forced = getenv("IGT_FORCE_DRIVER");

	if (forced && strcmp(forced, "gembuf"))
		return drm_open_driver_master(DRIVER_ANY);
	return gembuf_open_display();
}

/*
 * A nonblocking commit that flips the primary plane to @fb, disables
 * plane @p with @in_fence as its IN_FENCE_FD and writes the frame back;
 * returns the writeback's out-fence.
 */
static int flip_with_fenced_disable(int fd, const struct gk_fb *fb,
				    const struct gk_plane *p, int in_fence)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	int32_t out = -1;

	igt_assert(drmModeAtomicAddProperty(req, k.planes[0].id, k.p_fb, fb->fb_id) >= 0);
	igt_assert(drmModeAtomicAddProperty(req, p->id, k.p_fb, 0) >= 0);
	igt_assert(drmModeAtomicAddProperty(req, p->id, k.p_crtc, 0) >= 0);
	igt_assert(drmModeAtomicAddProperty(req, p->id, p->in_fence_prop, in_fence) >= 0);
	igt_assert(drmModeAtomicAddProperty(req, k.wb_id, k.wb_crtc_id, k.crtc_id) >= 0);
	igt_assert(drmModeAtomicAddProperty(req, k.wb_id, k.wb_fb_prop, wb.fb_id) >= 0);
	igt_assert(drmModeAtomicAddProperty(req, k.wb_id, k.wb_fence_prop,
					    (uint64_t)(uintptr_t)&out) >= 0);
	igt_assert_eq(drmModeAtomicCommit(fd, req, DRM_MODE_ATOMIC_NONBLOCK, NULL), 0);
	drmModeAtomicFree(req);
	igt_assert(out >= 0);
	return out;
}

igt_main
{
	int fd = -1;

	igt_fixture {
		fd = open_display();
		igt_require(drmSetMaster(fd) == 0);
		gk_init(&k, fd);
		gk_fb_create(&k, &a, k.mode.hdisplay, k.mode.vdisplay, DRM_FORMAT_XRGB8888);
		gk_fb_create(&k, &b, k.mode.hdisplay, k.mode.vdisplay, DRM_FORMAT_XRGB8888);
		gk_fb_create(&k, &wb, k.mode.hdisplay, k.mode.vdisplay, DRM_FORMAT_XRGB8888);
		gk_fb_fill(&a, 0x0000ff);
		gk_fb_fill(&b, 0xff0000);
	}

	igt_describe("With the CRTC on, vblank waits return and the counter advances.");
	igt_subtest("vblank-wait") {
		struct gk_layer l[1] = { gk_layer_of(&a) };
		drmVBlank v = { .request.type = DRM_VBLANK_RELATIVE, .request.sequence = 1 };
		unsigned int first;

		igt_assert_eq(gk_commit(&k, l, 1, NULL, 0), 0);
		igt_assert_eq(drmWaitVBlank(fd, &v), 0);
		first = v.reply.sequence;
		v.request.type = DRM_VBLANK_RELATIVE;
		v.request.sequence = 3;
		igt_assert_eq(drmWaitVBlank(fd, &v), 0);
		igt_assert_lte(first + 3, v.reply.sequence);
	}

	igt_describe("A nonblocking commit with DRM_MODE_PAGE_FLIP_EVENT delivers one event per commit, in order.");
	igt_subtest("flip-events") {
		struct gk_layer l[1] = { gk_layer_of(&a) };
		struct flip f = {};
		drmEventContext ev = { .version = 3, .page_flip_handler2 = flip_handler };
		struct pollfd p = { .fd = fd, .events = POLLIN };
		unsigned int seq1;

		igt_assert_eq(gk_commit(&k, l, 1, NULL, 0), 0);
		/* gk_commit does not pass user data: drive the event loop by hand. */
		{
			drmModeAtomicReqPtr req = drmModeAtomicAlloc();

			igt_assert(drmModeAtomicAddProperty(req, k.planes[0].id, k.p_fb,
							    b.fb_id) >= 0);
			igt_assert_eq(drmModeAtomicCommit(fd, req, DRM_MODE_PAGE_FLIP_EVENT |
							  DRM_MODE_ATOMIC_NONBLOCK, &f), 0);
			drmModeAtomicFree(req);
		}
		igt_assert_eq(poll(&p, 1, 10000), 1);
		igt_assert_eq(drmHandleEvent(fd, &ev), 0);
		igt_assert_eq(f.count, 1);
		seq1 = f.sequence;
		{
			drmModeAtomicReqPtr req = drmModeAtomicAlloc();

			igt_assert(drmModeAtomicAddProperty(req, k.planes[0].id, k.p_fb,
							    a.fb_id) >= 0);
			igt_assert_eq(drmModeAtomicCommit(fd, req, DRM_MODE_PAGE_FLIP_EVENT |
							  DRM_MODE_ATOMIC_NONBLOCK, &f), 0);
			drmModeAtomicFree(req);
		}
		wait_event(fd, &f);
		igt_assert_eq(f.count, 2);
		igt_assert_lt(seq1, f.sequence);
	}

	igt_describe("A TEST_ONLY commit is checked but changes nothing; the writeback shows the committed plane.");
	igt_subtest("test-only") {
		struct gk_layer l[1] = { gk_layer_of(&a) };

		igt_assert_eq(gk_commit(&k, l, 1, &wb, 0), 0);
		igt_assert_eq_u32(((uint32_t *)wb.map)[100] & 0xffffff, 0x0000ff);
		l[0].fb = &b;
		igt_assert_eq(gk_commit(&k, l, 1, NULL, DRM_MODE_ATOMIC_TEST_ONLY), 0);
		/* A writeback of the current state: still plane a. */
		memset(wb.map, 0, wb.size);
		writeback_current(fd);
		igt_assert_eq_u32(((uint32_t *)wb.map)[100] & 0xffffff, 0x0000ff);
		/* And a real commit of b shows b. */
		l[0].fb = &b;
		igt_assert_eq(gk_commit(&k, l, 1, &wb, 0), 0);
		igt_assert_eq_u32(((uint32_t *)wb.map)[100] & 0xffffff, 0xff0000);
	}

	igt_describe("An IN_FENCE_FD on a plane the commit disables (no framebuffer) is accepted and waited for, as the property's documentation says: the commit's writeback comes only once the fence signals, and shows the new frame.");
	igt_subtest("in-fence-disabled-plane") {
		struct gk_layer l[1] = { gk_layer_of(&a) };
		struct pollfd p = { .events = POLLIN };
		const struct gk_plane *off;
		int timeline, in;

		igt_require(kernel_has_sw_sync());
		igt_require(k.num_planes >= 2 && k.planes[k.num_planes - 1].in_fence_prop);
		/* The last plane (the cursor, on gembuf and vkms) stays off. */
		off = &k.planes[k.num_planes - 1];
		igt_assert_eq(gk_commit(&k, l, 1, NULL, 0), 0);
		memset(wb.map, 0, wb.size);

		timeline = sw_sync_timeline_create();
		in = sw_sync_timeline_create_fence(timeline, 1);
		p.fd = flip_with_fenced_disable(fd, &b, off, in);
		/* The commit holds its own reference to the fence. */
		close(in);
		igt_assert_f(poll(&p, 1, 500) == 0,
			     "the commit went ahead of its in-fence\n");
		sw_sync_timeline_inc(timeline, 1);
		igt_assert_eq(poll(&p, 1, 10000), 1);
		close(p.fd);
		close(timeline);
		igt_assert_eq_u32(((uint32_t *)wb.map)[100] & 0xffffff, 0xff0000);
	}

	igt_describe("A modeset that keeps the CRTC on (the sync polarity flipped, as upstream's kms_atomic_transition forces one) takes one frame: its event comes with the first vblank of the new mode, counted by the CRTC's vblank counter, which goes on across the modeset.");
	igt_subtest("modeset-frames") {
		struct gk_layer l[1] = { gk_layer_of(&a) };
		drmModeModeInfo preferred = k.mode, modes[2];
		unsigned int seq, prev = 0;
		uint64_t us, prev_us = 0;

		/*
		 * 10 Hz: a commit's own cost in the guest is far below a
		 * frame.  That every modeset takes exactly one frame holds
		 * because the guest runs under QEMU's -icount shift=0,sleep=off
		 * (qemu/boot.sh), whose clock counts guest instructions: the
		 * host's load cannot stretch the time between the event read
		 * and the next commit past a vblank.  On a clock the host can
		 * stall, a preempted test may see two frames.
		 */
		modes[0] = gk_mode_at_hz(&preferred, 10);
		modes[1] = modes[0];
		modes[1].flags ^= DRM_MODE_FLAG_PHSYNC | DRM_MODE_FLAG_NHSYNC;
		for (int i = 0; i < 9; i++) {
			gk_set_mode_info(&k, &modes[i & 1]);
			igt_assert_eq(gk_commit(&k, l, 1, NULL, DRM_MODE_PAGE_FLIP_EVENT), 0);
			seq = gk_read_flip(fd, &us);
			igt_info("modeset %d: vblank %u (+%u), %.1f ms after the last\n",
				 i, seq, seq - prev, i ? (us - prev_us) / 1000.0 : 0.0);
			/*
			 * The first commit only sets the slow mode up.  One
			 * frame is 100 ms: a modeset that waited for the old
			 * mode's frame to end too takes two.
			 */
			igt_assert_f(!i || us - prev_us < 150000,
				     "modeset %d took %.1f ms, frames of 100 ms\n",
				     i, (us - prev_us) / 1000.0);
			prev = seq;
			prev_us = us;
		}
		gk_set_mode_info(&k, &preferred);
		igt_assert_eq(gk_commit(&k, l, 1, NULL, 0), 0);
	}

	igt_fixture {
		gk_disable(&k);
		gk_fb_destroy(&k, &wb);
		gk_fb_destroy(&k, &b);
		gk_fb_destroy(&k, &a);
		drm_close_driver(fd);
	}
}
