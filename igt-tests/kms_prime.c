// SPDX-License-Identifier: MIT
/*
 * kms_prime: the PRIME scan-out contract of upstream igt's test of this
 * name, with its subtest names: a buffer another device exports, filled
 * there, is imported by the display, put on its primary plane, and shows
 * with the CRC of the same picture in a buffer of the display's own.
 *
 * Exporters: vgem (filled through its mmap) for basic-crc-vgem; for the
 * "hybrid" subtests, where upstream pairs two GPUs, the other device is
 * gembuf's DMA engine (filled by device DMA, through its IOMMU) and the
 * dma-heaps system heap.  The display has the only KMS here, so each
 * pair is tested in the direction that ends on it ("first-to-second").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <drm_fourcc.h>
#include <linux/dma-buf.h>

#include "igt.h"
#include "gembuf.h"
#include "gembuf_kms.h"
#include "gembuf_ref.h"
#include "igt_kms.h"
#include "igt_pipe_crc.h"

IGT_TEST_DESCRIPTION("Prime tests, focusing on KMS side");

#define WIDTH	640
#define HEIGHT	480
#define PITCH	(WIDTH * 4)
#define SIZE	(PITCH * HEIGHT)
#define COLOR	0x00a0b0c0u
/* The picture: COLOR on the first FILL bytes, black below (edu is slow). */
#define FILL	(PITCH * 40)

static int display = -1;
static struct gk k;
static igt_crc_t native;

static void paint(uint32_t *p)
{
	for (size_t i = 0; i < SIZE / 4; i++)
		p[i] = i < FILL / 4 ? COLOR : 0;
}

/*
 * Show the display's own buffer, painted by the CPU, take its CRC in
 * native and return a started collector (CRCs need an active CRTC).
 */
static igt_pipe_crc_t *native_crc(void)
{
	igt_pipe_crc_t *pc;
	struct gk_layer l;
	struct gk_fb fb;

	gk_fb_create(&k, &fb, WIDTH, HEIGHT, DRM_FORMAT_XRGB8888);
	paint(fb.map);
	l = gk_layer_of(&fb);
	igt_assert_eq(gk_commit(&k, &l, 1, NULL, 0), 0);
	pc = igt_pipe_crc_new(display, k.pipe, IGT_PIPE_CRC_SOURCE_AUTO);
	igt_pipe_crc_start(pc);
	igt_pipe_crc_get_current(display, pc, &native);
	gk_fb_destroy(&k, &fb);
	return pc;
}

/*
 * Import @dmabuf into the display, scan it out on the primary and check
 * the CRC against the display's own buffer of the same color; the
 * framebuffer must count as a foreign one when @foreign.
 */
static void scan_out(int dmabuf, bool foreign)
{
	struct gk_layer l;
	long objects = gembuf_state("objects");
	long flips = gembuf_state("fb_flips_foreign");
	igt_pipe_crc_t *pc;
	struct gk_fb fb = {};
	igt_crc_t crc;
	uint32_t h;

	pc = native_crc();

	h = prime_fd_to_handle(display, dmabuf);
	gk_fb_from_handle(&k, &fb, h, WIDTH, HEIGHT, DRM_FORMAT_XRGB8888, PITCH, 0, 0);
	l = gk_layer_of(&fb);
	igt_assert_eq(gk_commit(&k, &l, 1, NULL, 0), 0);
	igt_pipe_crc_get_current(display, pc, &crc);
	igt_assert_crc_equal(&native, &crc);
	igt_assert_eq(gembuf_state("fb_flips_foreign"), flips + foreign);

	igt_pipe_crc_stop(pc);
	igt_pipe_crc_free(pc);
	gk_disable(&k);
	gk_fb_destroy(&k, &fb);
	/* Foreign memory is wrapped in an object only while imported. */
	igt_assert_eq(gembuf_state_settle("objects", objects), objects);
}

static void prime_sync(int dmabuf, uint64_t flags)
{
	struct dma_buf_sync sync = { .flags = flags | DMA_BUF_SYNC_RW };

	igt_assert_eq(ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync), 0);
}

igt_main
{
	igt_fixture {
		display = gembuf_open_display();
		igt_require(drmSetMaster(display) == 0);
		gk_init(&k, display);
		igt_assert(gk_set_mode(&k, WIDTH, HEIGHT));
	}

	igt_describe("A buffer filled by the DMA engine through its IOMMU, exported to the display, scans out with the CRC of the display's own buffer of that picture.");
	igt_subtest_with_dynamic("basic-crc-hybrid") {
		igt_dynamic("first-to-second") {
			int engine = gembuf_open_engine();
			uint32_t h = gembuf_create(engine, SIZE, 0, GEMBUF_CACHE_WB);
			int fd;

			/* New objects are zeroed: the engine paints the band. */
			igt_assert_eq(__gembuf_fill(engine, h, 0, FILL, COLOR), 0);
			fd = prime_handle_to_fd(engine, h);
			/*
			 * The display waits for the DMA through the dma-buf's
			 * fences, and knows the engine's buffer as any other
			 * exporter's.
			 */
			scan_out(fd, true);
			close(fd);
			gem_close(engine, h);
			drm_close_driver(engine);
		}
		igt_dynamic("system-heap-to-display") {
			int fd = gembuf_heap_alloc("system", SIZE);
			uint32_t *p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

			igt_assert(p != MAP_FAILED);
			prime_sync(fd, DMA_BUF_SYNC_START);
			paint(p);
			prime_sync(fd, DMA_BUF_SYNC_END);
			munmap(p, SIZE);
			scan_out(fd, true);
			close(fd);
		}
	}

	igt_describe("A modeset onto an imported buffer: the CRTC is active with that framebuffer on its primary, and stays so until disabled.");
	igt_subtest("basic-modeset-hybrid") {
		int engine = gembuf_open_engine();
		uint32_t h = gembuf_create(engine, SIZE, 0, GEMBUF_CACHE_WB);
		struct gk_layer l;
		uint64_t active = 0, fb_id = 0;
		struct gk_fb fb = {};
		int fd = prime_handle_to_fd(engine, h);

		gk_fb_from_handle(&k, &fb, prime_fd_to_handle(display, fd), WIDTH, HEIGHT,
				  DRM_FORMAT_XRGB8888, PITCH, 0, 0);
		l = gk_layer_of(&fb);
		igt_assert_eq(gk_commit(&k, &l, 1, NULL, 0), 0);
		gk_prop(display, k.crtc_id, DRM_MODE_OBJECT_CRTC, "ACTIVE", &active);
		gk_prop(display, k.planes[0].id, DRM_MODE_OBJECT_PLANE, "FB_ID", &fb_id);
		igt_assert_eq_u64(active, 1);
		igt_assert_eq_u64(fb_id, fb.fb_id);
		igt_wait_for_vblank_count(display, k.pipe, 2);
		gk_disable(&k);
		gk_prop(display, k.crtc_id, DRM_MODE_OBJECT_CRTC, "ACTIVE", &active);
		igt_assert_eq_u64(active, 0);
		gk_fb_destroy(&k, &fb);
		close(fd);
		gem_close(engine, h);
		drm_close_driver(engine);
	}

	igt_describe("A vgem buffer filled through vgem's mmap, imported by the display, scans out with the CRC of the display's own buffer of that picture.");
	igt_subtest_with_dynamic("basic-crc-vgem") {
		igt_dynamic("first-to-second") {
			int vgem = __drm_open_driver(DRIVER_VGEM);
			unsigned int stride;
			uint64_t size;
			uint32_t vh, *v;
			int fd;

			igt_require(vgem >= 0);
			vh = kmstest_dumb_create(vgem, WIDTH, HEIGHT, 32, &stride, &size);
			igt_assert_eq(stride, PITCH);
			v = kmstest_dumb_map_buffer(vgem, vh, size, PROT_READ | PROT_WRITE);
			paint(v);
			munmap(v, size);
			fd = prime_handle_to_fd(vgem, vh);
			scan_out(fd, true);
			close(fd);
			gem_close(vgem, vh);
			drm_close_driver(vgem);
		}
	}

	igt_fixture {
		drmModeDestroyPropertyBlob(display, k.mode_blob);
		drm_close_driver(display);
	}
}
