// SPDX-License-Identifier: MIT
/*
 * kms_compose: frames per second of composing a primary plane and three
 * overlays at 1920x1080 XRGB8888, on gembuf and on vkms (loaded with
 * enable_overlay=1) for the same layout, and the guest's memcpy of one
 * frame as the anchor; prints gembuf/vkms and gembuf/memcpy.
 *
 * A frame is a commit with a writeback framebuffer, timed until its
 * out-fence signals: both drivers compose the planes into the writeback buffer
 * on the vblank after the commit, so each frame pays one composition and
 * up to two vblank periods, the same for both.  The composed pixels are
 * checked on both, so the two drivers did the same work.  The CRTC drives
 * the writeback connector alone: 6.12's clone check refuses vkms's
 * virtual and writeback encoders together (neither lists the other in
 * possible_clones).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <drm_fourcc.h>

#include "igt.h"
#include "gembuf.h"
#include "gembuf_kms.h"

#define W		1920
#define H		1080
#define OVERLAYS	3
#define OW		640
#define OH		360

static const uint32_t colors[OVERLAYS] = { 0xc03020, 0x20c030, 0x3020c0 };
static const int pos[OVERLAYS][2] = { { 100, 100 }, { 700, 300 }, { 1200, 600 } };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fill(struct gk_fb *fb, uint32_t v)
{
	uint32_t *p = fb->map;

	for (uint32_t y = 0; y < fb->height; y++)
		for (uint32_t x = 0; x < fb->width; x++)
			p[y * (fb->pitch / 4) + x] = v ^ ((x ^ y) & 0x0f);
}

static uint32_t wb_px(const struct gk_fb *wb, int x, int y)
{
	return ((uint32_t *)wb->map)[y * (wb->pitch / 4) + x] & 0xffffff;
}

/* Frames per second of @frames commits of the layout on @fd's device. */
static double compose_fps(int fd, const char *name, int frames)
{
	struct gk_fb primary, ov[OVERLAYS], wb;
	struct gk_layer l[1 + OVERLAYS];
	double t0, t;
	struct gk k;

	igt_assert_f(drmSetMaster(fd) == 0, "%s: not DRM master\n", name);
	gk_init(&k, fd);
	k.wb_only = true;
	igt_assert_f(gk_set_mode(&k, W, H), "%s: no %dx%d mode\n", name, W, H);
	igt_assert_f(gk_plane(&k, DRM_PLANE_TYPE_OVERLAY, OVERLAYS - 1),
		     "%s: fewer than %d overlay planes\n", name, OVERLAYS);
	gk_fb_create(&k, &primary, W, H, DRM_FORMAT_XRGB8888);
	gk_fb_create(&k, &wb, W, H, DRM_FORMAT_XRGB8888);
	fill(&primary, 0x404040);
	l[0] = gk_layer_of(&primary);
	for (int i = 0; i < OVERLAYS; i++) {
		gk_fb_create(&k, &ov[i], OW, OH, DRM_FORMAT_XRGB8888);
		fill(&ov[i], colors[i]);
		l[1 + i] = gk_layer_of(&ov[i]);
		l[1 + i].x = pos[i][0];
		l[1 + i].y = pos[i][1];
	}

	/* The first commit sets the mode; the second one warms up. */
	for (int i = 0; i < 2; i++)
		igt_assert_eq(gk_commit(&k, l, 1 + OVERLAYS, &wb, 0), 0);
	for (int i = 0; i < OVERLAYS; i++)
		igt_assert_f(wb_px(&wb, pos[i][0] + 1, pos[i][1] + 2) == (colors[i] ^ 3),
			     "%s: overlay %d composed as %06x\n", name, i,
			     wb_px(&wb, pos[i][0] + 1, pos[i][1] + 2));
	igt_assert_eq_u32(wb_px(&wb, 10, 20), 0x404040 ^ ((10 ^ 20) & 0xf));

	t = 0;
	for (int i = 0; i < frames; i++) {
		t0 = now();
		igt_assert_eq(gk_commit(&k, l, 1 + OVERLAYS, &wb, 0), 0);
		t += now() - t0;
		/*
		 * Not counted: let the finished job's cleanup run first.  vkms's
		 * cleanup turns its composer off, so a job committed before it
		 * ran is never composed and its fence never signals.
		 */
		usleep(50000);
	}

	gk_disable(&k);
	for (int i = 0; i < OVERLAYS; i++)
		gk_fb_destroy(&k, &ov[i]);
	gk_fb_destroy(&k, &wb);
	gk_fb_destroy(&k, &primary);
	drmModeDestroyPropertyBlob(fd, k.mode_blob);
	printf("kms_compose: %-7s %d frames in %.3f s: %.2f fps\n", name, frames, t,
	       frames / t);
	return frames / t;
}

/* Frames per second of memcpy()ing one 1920x1080 XRGB8888 frame. */
static double memcpy_fps(int frames)
{
	size_t size = (size_t)W * H * 4;
	char *a = malloc(size), *b = malloc(size);
	double t0, t;

	igt_assert(a && b);
	memset(a, 0x5a, size);
	memset(b, 0, size);
	t0 = now();
	for (int i = 0; i < frames; i++) {
		memcpy(i & 1 ? a : b, i & 1 ? b : a, size);
		__asm__ volatile("" : : "r"(a), "r"(b) : "memory");
	}
	t = now() - t0;
	igt_assert(a[size - 1] == 0x5a && b[size - 1] == 0x5a);
	free(a);
	free(b);
	printf("kms_compose: memcpy  %d frames in %.3f s: %.2f fps, %.0f MiB/s\n",
	       frames, t, frames / t, frames * (size / 1048576.0) / t);
	return frames / t;
}

igt_simple_main
{
	int frames = 8;
	double gembuf, vkms, mem;
	int fd;

	fd = gembuf_open_display();
	gembuf = compose_fps(fd, "gembuf", frames);
	drm_close_driver(fd);

	fd = __drm_open_driver(DRIVER_VKMS);
	igt_require_f(fd >= 0, "no vkms\n");
	vkms = compose_fps(fd, "vkms", frames);
	drm_close_driver(fd);

	mem = memcpy_fps(64);
	printf("kms_compose: ratio gembuf/vkms %.2f\n", gembuf / vkms);
	printf("kms_compose: ratio gembuf/memcpy %.4f\n", gembuf / mem);
}
