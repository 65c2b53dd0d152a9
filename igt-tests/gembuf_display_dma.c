// SPDX-License-Identifier: MIT
/*
 * gembuf_display_dma: the display as a scan-out engine without an IOMMU.
 *
 * gembuf is reloaded with display_dma=1: the display then has a 32-bit
 * DMA mask and a one-to-one VCM below 4 GiB, so everything it scans out
 * or writes back must be one physical range there, the problem the
 * article's CMA solves.  Its own dumb buffers, an object of the engine
 * the display imports before its first use, and the refusal of
 * scattered memory the engine maps already.  At the
 * end (or at exit, on failure) gembuf is loaded again as before.  This
 * is a test of its own so that a failure elsewhere, which may leave
 * gembuf busy, cannot keep the module from reloading.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <drm_fourcc.h>

#include "igt.h"
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

	igt_fixture {
		drm_close_driver(display);
		drm_close_driver(engine);
		display = engine = -1;
		reload_gembuf("");
		engine = gembuf_open_engine();
		display = gembuf_open_display();
	}
}
