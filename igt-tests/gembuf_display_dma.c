// SPDX-License-Identifier: MIT
/*
 * gembuf_display_dma: the display as a scan-out engine without an IOMMU.
 *
 * gembuf is reloaded with display_dma=1: the display then has a 32-bit
 * DMA mask and a one-to-one VCM below 4 GiB, so everything it scans out
 * or writes back must be one physical range there, the problem the
 * article's CMA solves.  Its own dumb buffers, an object of the engine
 * the display imports before its first use, and the refusal of
 * scattered memory the engine maps already, and a writeback commit
 * with each of its allocations failed in turn.  At the
 * end (or at exit, on failure) gembuf is loaded again as before.  This
 * is a test of its own so that a failure elsewhere, which may leave
 * gembuf busy, cannot keep the module from reloading.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <drm_fourcc.h>
#include <linux/sync_file.h>

#include "igt.h"
#include "failnth.h"
#include "gembuf.h"
#include "gembuf_kms.h"

IGT_TEST_DESCRIPTION("Scan out gembuf objects from a display without an IOMMU.");

static int engine = -1, display = -1;

/*
 * Reload gembuf with @args (its other options come from modprobe.d).
 * Every gembuf file of this process is closed; the engine's fences hold
 * the module until an RCU grace period after their last user.
 */
static void reload_gembuf(const char *args)
{
	char cmd[128];
	int i;

	for (i = 0; i < 50 && system("rmmod gembuf 2>/dev/null"); i++)
		usleep(100 * 1000);
	igt_assert_f(i < 50, "gembuf does not unload\n");
	snprintf(cmd, sizeof(cmd), "modprobe gembuf %s", args);
	igt_assert_eq(system(cmd), 0);
}

static void restore_gembuf(int sig)
{
	if (system("grep -q Y /sys/module/gembuf/parameters/display_dma 2>/dev/null"))
		return;
	if (display >= 0)
		close(display);
	if (engine >= 0)
		close(engine);
	display = engine = -1;
	for (int i = 0; i < 50 && system("rmmod gembuf 2>/dev/null"); i++)
		usleep(100 * 1000);
	if (system("modprobe gembuf") ||
	    !system("grep -q Y /sys/module/gembuf/parameters/display_dma"))
		igt_warn("gembuf is not back without display_dma\n");
}

/*
 * Scan @h (a handle on the display) out alone; the writeback must be @v
 * in its first @fill bytes and black after.
 */
static void scan_out(struct gk *k, uint32_t h, uint32_t v, uint32_t fill)
{
	struct gk_fb fb = {}, wb = {};
	struct gk_layer l;
	struct gembuf_report gi = { .handle = h };
	struct gembuf_report_mapping maps[8];
	bool o2o = false;

	gk_fb_from_handle(k, &fb, h, 640, 480, DRM_FORMAT_XRGB8888, 640 * 4, 0, 0);
	gk_fb_create(k, &wb, 640, 480, DRM_FORMAT_XRGB8888);
	l = gk_layer_of(&fb);
	igt_assert_eq(gk_commit(k, &l, 1, &wb, 0), 0);
	for (uint32_t i = 0; i < 640 * 480; i += 31)
		igt_assert_eq_u32(((uint32_t *)wb.map)[i] & 0xffffff,
				  i * 4 < fill ? v & 0xffffff : 0);

	/*
	 * Scanned out from its physical address: a one-to-one mapping of
	 * its own object, or the display's DMA API mapping of its
	 * attachment to an import (no IOMMU: physical addresses too).
	 */
	igt_assert_eq(__gembuf_info(display, &gi, maps, 8), 0);
	gembuf_placement_print("scanned out", &gi);
	gembuf_assert_low_range(&gi);
	for (unsigned int i = 0; i < gi.num_mappings && i < 8; i++)
		o2o |= maps[i].kind == GEMBUF_MAPPING_ONE_TO_ONE ||
		       (maps[i].kind == GEMBUF_MAPPING_DMA_API &&
			!strcmp(maps[i].device, "gembuf"));
	igt_assert(o2o);
	gembuf_info_print(display, h, "scanned out");
	gk_disable(k);
	gk_fb_destroy(k, &wb);
	igt_assert_eq(drmModeRmFB(display, fb.fb_id), 0);
}

/* Engine to the display without an IOMMU: one range below 4 GiB. */
static void display_dma_pipeline(void)
{
	uint32_t h, dh;
	struct gk k;
	int fd;

	h = gembuf_create(engine, 640 * 480 * 4, 0, GEMBUF_CACHE_WB);
	fd = prime_handle_to_fd(engine, h);
	dh = prime_fd_to_handle(display, fd);
	close(fd);
	/* The first lines: edu is slow. */
	igt_assert_eq(__gembuf_fill(engine, h, 0, 16384, 0x00336699), 0);
	gembuf_wait(engine, h);
	igt_assert_eq(drmSetMaster(display), 0);
	gk_init(&k, display);
	igt_assert(gk_set_mode(&k, 640, 480));
	scan_out(&k, dh, 0x00336699, 16384);
	igt_assert_eq(drmDropMaster(display), 0);
	gem_close(display, dh);
	gem_close(engine, h);
}

/* An atomic request built before fail-nth is armed: libdrm's would malloc. */
static struct {
	uint32_t objs[4], counts[4], props[16];
	uint64_t values[16];
	unsigned int nobj, nprop;
} rq;

static void rq_add(uint32_t obj, uint32_t prop, uint64_t v)
{
	igt_assert(prop && rq.nprop < ARRAY_SIZE(rq.props));
	if (!rq.nobj || rq.objs[rq.nobj - 1] != obj) {
		igt_assert(rq.nobj < ARRAY_SIZE(rq.objs));
		rq.objs[rq.nobj] = obj;
		rq.counts[rq.nobj++] = 0;
	}
	rq.counts[rq.nobj - 1]++;
	rq.props[rq.nprop] = prop;
	rq.values[rq.nprop++] = v;
}

#define WB_SENTINEL	0xdeadbeef

/*
 * The display without an IOMMU has no kernel address of its own buffers:
 * a commit maps its writeback buffer (and its planes) with
 * drm_gem_fb_vmap().  A blocking commit of the primary and a writeback
 * into a new buffer, with each of its allocations failed in turn
 * (fail-nth), from n = 1 until one passes its last: it fails with ENOMEM,
 * with no out-fence and the buffer untouched, or the frame is written
 * back; and once the buffer is gone, gembuf's objects and mappings are
 * where they were.  The buffer's memory is there before (the CPU wrote
 * it): what fails is the commit's.
 */
static void writeback_fail_nth(void)
{
	unsigned int n, failed = 0, absorbed = 0;
	struct gk_fb in = {}, out = {};
	const struct gk_plane *primary;
	long objects, mappings;
	bool injected = true;
	struct gk_layer l;
	struct gk k;

	/* It may skip: before the display is set up. */
	failnth_setup();
	igt_assert_eq(drmSetMaster(display), 0);
	gk_init(&k, display);
	igt_assert(gk_set_mode(&k, 640, 480));
	primary = gk_plane(&k, DRM_PLANE_TYPE_PRIMARY, 0);
	igt_assert(primary);
	gk_fb_create(&k, &in, 640, 480, DRM_FORMAT_XRGB8888);
	gk_fb_fill(&in, 0x00336699);
	l = gk_layer_of(&in);
	igt_assert_eq(gk_commit(&k, &l, 1, NULL, 0), 0);
	objects = gembuf_state("objects");
	mappings = gembuf_state("mappings");

	for (n = 1; injected && n <= 2000; n++) {
		struct pollfd pfd = { .events = POLLIN };
		struct sync_file_info info = {};
		struct drm_mode_atomic a = {};
		int32_t fence = -1;
		int ret;

		gk_fb_create(&k, &out, 640, 480, DRM_FORMAT_XRGB8888);
		gk_fb_fill(&out, WB_SENTINEL);
		rq.nobj = rq.nprop = 0;
		rq_add(k.crtc_id, k.crtc_active, 1);
		rq_add(k.crtc_id, k.crtc_mode_id, k.mode_blob);
		rq_add(primary->id, k.p_fb, in.fb_id);
		rq_add(primary->id, k.p_crtc, k.crtc_id);
		rq_add(k.wb_id, k.wb_crtc_id, k.crtc_id);
		rq_add(k.wb_id, k.wb_fb_prop, out.fb_id);
		rq_add(k.wb_id, k.wb_fence_prop, (uintptr_t)&fence);
		/* The first commit that goes through attaches the writeback. */
		a.flags = DRM_MODE_ATOMIC_ALLOW_MODESET;
		a.count_objs = rq.nobj;
		a.objs_ptr = (uintptr_t)rq.objs;
		a.count_props_ptr = (uintptr_t)rq.counts;
		a.props_ptr = (uintptr_t)rq.props;
		a.prop_values_ptr = (uintptr_t)rq.values;

		failnth_arm(n);
		ret = igt_ioctl(display, DRM_IOCTL_MODE_ATOMIC, &a) ? -errno : 0;
		injected = !failnth_disarm();

		if (ret) {
			failed++;
			igt_assert_f(injected, "n=%u: the commit failed (%s) with no failure injected\n",
				     n, strerror(-ret));
			igt_assert_f(ret == -ENOMEM, "n=%u: the commit failed with %s, not ENOMEM\n",
				     n, strerror(-ret));
			igt_assert_eq(fence, -1);
			igt_assert_eq_u32(((uint32_t *)out.map)[0], WB_SENTINEL);
		} else {
			absorbed += injected;
			igt_assert_lte(0, fence);
			pfd.fd = fence;
			igt_assert_eq(poll(&pfd, 1, 10000), 1);
			do_ioctl(fence, SYNC_IOC_FILE_INFO, &info);
			close(fence);
			/* A job that failed says so: allowed where a failure was injected. */
			igt_assert_f(info.status == 1 || (injected && info.status < 0),
				     "n=%u: the out-fence's status is %d\n", n, info.status);
			if (info.status == 1) {
				igt_assert_eq_u32(((uint32_t *)out.map)[0] & 0xffffff, 0x336699);
				igt_assert_eq_u32(((uint32_t *)out.map)[479 * out.pitch / 4 + 639] &
						  0xffffff, 0x336699);
			}
		}
		gk_fb_destroy(&k, &out);
		igt_assert_eq(gembuf_state_settle("objects", objects), objects);
		igt_assert_eq(gembuf_state_settle("mappings", mappings), mappings);
	}
	failnth_teardown();
	igt_info("commits with n = 1 to %u: %u failed, %u went through a failure\n",
		 n - 1, failed, absorbed);
	igt_assert_f(!injected, "still injecting at n=%u\n", n - 1);
	gk_disable(&k);
	gk_fb_destroy(&k, &in);
	igt_assert_eq(drmDropMaster(display), 0);
}

igt_main
{
	igt_fixture {
		drm_close_driver(display);
		drm_close_driver(engine);
		display = engine = -1;
		igt_install_exit_handler(restore_gembuf);
		reload_gembuf("display_dma=1");
		engine = gembuf_open_engine();
		display = gembuf_open_display();
	}

	igt_describe("With display_dma the display is a scan-out engine without an IOMMU: its own dumb buffers are one range below 4 GiB, scanned out from their physical address.");
	igt_subtest("display-dma-dumb") {
		struct gk_fb fb = {};
		struct gk k;

		igt_assert_eq(drmSetMaster(display), 0);
		gk_init(&k, display);
		igt_assert(gk_set_mode(&k, 640, 480));
		gk_fb_create(&k, &fb, 640, 480, DRM_FORMAT_XRGB8888);
		gk_fb_fill(&fb, 0x00c0ffee);
		igt_assert_eq(drmModeRmFB(display, fb.fb_id), 0);
		scan_out(&k, fb.handle, 0x00c0ffee, 640 * 480 * 4);
		munmap(fb.map, fb.size);
		gem_close(display, fb.handle);
		igt_assert_eq(drmDropMaster(display), 0);
	}

	igt_describe("The engine writes an object the display without an IOMMU scans out: the display's import narrows the memory before the engine's first DMA allocates it.");
	igt_subtest("display-dma-engine")
		display_dma_pipeline();

	igt_describe("The display without an IOMMU importing scattered memory the engine maps already is refused with -EBUSY.");
	igt_subtest("display-dma-refused") {
		struct gembuf_report gi = {};
		long objects = gembuf_state("objects");
		uint32_t h = gembuf_create(engine, 4 << 20, 0, GEMBUF_CACHE_WB);
		struct drm_prime_handle p = { .flags = DRM_CLOEXEC };
		int fd;

		igt_assert_eq(__gembuf_fill(engine, h, 0, 4096, 1), 0);
		gembuf_wait(engine, h);
		fd = prime_handle_to_fd(engine, h);
		p.fd = fd;
		do_ioctl_err(display, DRM_IOCTL_PRIME_FD_TO_HANDLE, &p, EBUSY);
		gi.handle = h;
		igt_assert_eq(__gembuf_info(engine, &gi, NULL, 0), 0);
		gembuf_placement_print("refused", &gi);
		igt_assert_eq(gi.placement.refused, -EBUSY);
		igt_assert(gi.placement.refused_unmet & GEMBUF_NEED_CONTIGUOUS);
		close(fd);
		gem_close(engine, h);
		igt_assert_eq(gembuf_state_settle("objects", objects), objects);
	}

	igt_describe("With display_dma, a writeback commit with each of its allocations failed in turn (fail-nth), its buffer's kernel mapping among them: it fails with ENOMEM, no out-fence and the buffer untouched, or writes the frame back, and gembuf's objects and mappings come back.");
	igt_subtest("display-dma-writeback-fail-nth")
		writeback_fail_nth();

	igt_fixture {
		drm_close_driver(display);
		drm_close_driver(engine);
		display = engine = -1;
		reload_gembuf("");
		engine = gembuf_open_engine();
		display = gembuf_open_display();
	}
}
