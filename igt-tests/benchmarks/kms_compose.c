// SPDX-License-Identifier: MIT
/*
 * kms_compose: the time of one composed frame, a primary plane and three
 * 640x360 overlays at 1920x1080 XRGB8888 into a writeback framebuffer, on
 * gembuf against vkms (loaded with enable_overlay=1) for the same layout,
 * and against the guest's memcpy() of one such frame, in milliseconds.
 *
 * A frame is an atomic commit of the layout with a writeback framebuffer,
 * timed from the commit ioctl until the writeback out-fence signals.  The
 * composition itself is timed from outside both drivers alike: from the
 * timestamp of the commit's page-flip event (the vblank that latched it,
 * from whose handler both queue their composer) to the signal timestamp
 * of the writeback fence (both signal it once the last pixel is written).
 * Both drivers compose the planes into the writeback buffer on the vblank
 * after the commit, so each frame pays one composition of the same planes
 * and up to two vblank periods of the first 1920x1080 mode of each
 * driver's connector (the header line gives both refresh rates; at the
 * same rate it is the same wait); both read the planes where they lie and
 * write every pixel of the writeback buffer.  The composed pixels are
 * checked on both after every frame (a few of them, set to a color no
 * plane has before the commit, untimed), so the two drivers did the same
 * work.
 * Each driver's CRTC drives its writeback connector alone (6.12's clone
 * check refuses vkms's virtual and writeback encoders together: neither
 * lists the other in possible_clones), and both stay on for the whole
 * benchmark, so each driver's vblank timer ticks through the other's
 * frames alike.  After every frame, untimed, both wait 50 ms: vkms's
 * writeback cleanup turns its composer off, so a job committed before
 * that cleanup ran would never be composed and its fence never signal.
 *
 * The anchor of the CPU's speed is memcpy() of a whole frame's bytes
 * between two buffers of the process, MEMCPYS times per run: the least
 * any composition of that frame must do.
 *
 * Both drivers are set up once (mode set, framebuffers made and filled,
 * one warm-up frame each), and the same framebuffers serve every run.
 * Every case runs REPS times, vkms, gembuf and memcpy alternating, each
 * run the mean of FRAMES frames (or MEMCPYS copies); the table gives the
 * median, minimum and maximum of the runs, and of the ratio of each
 * gembuf run to the anchor's run of the same round.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <drm_fourcc.h>

#include "igt.h"
#include "bench.h"
#include "gembuf.h"
#include "gembuf_kms.h"

#define W		1920
#define H		1080
#define OVERLAYS	3
#define OW		640
#define OH		360
#define REPS		5
#define FRAMES		4	/* frames per run, each driver */
#define MEMCPYS		16	/* copies of a frame per run */
#define SETTLE_US	50000

static const uint32_t colors[OVERLAYS] = { 0xc03020, 0x20c030, 0x3020c0 };
static const int pos[OVERLAYS][2] = { { 100, 100 }, { 700, 300 }, { 1200, 600 } };

/* One driver, set up for the layout. */
struct composer {
	const char *name;
	struct gk k;
	struct gk_fb primary, ov[OVERLAYS], wb;
	struct gk_layer l[1 + OVERLAYS];
};

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

/* The pixels check() reads, set to a color no plane has. */
static void poison(struct composer *c)
{
	uint32_t *p = c->wb.map, stride = c->wb.pitch / 4;

	for (int i = 0; i < OVERLAYS; i++)
		p[(pos[i][1] + 2) * stride + pos[i][0] + 1] = 0xffffffff;
	p[20 * stride + 10] = 0xffffffff;
	p[(H - 1) * stride + W - 1] = 0xffffffff;
}

/* The frame composed last on @c shows every plane where it belongs. */
static void check(const struct composer *c)
{
	for (int i = 0; i < OVERLAYS; i++)
		igt_assert_f(wb_px(&c->wb, pos[i][0] + 1, pos[i][1] + 2) == (colors[i] ^ 3),
			     "%s: overlay %d composed as %06x\n", c->name, i,
			     wb_px(&c->wb, pos[i][0] + 1, pos[i][1] + 2));
	igt_assert_eq_u32(wb_px(&c->wb, 10, 20), 0x404040 ^ ((10 ^ 20) & 0xf));
	igt_assert_eq_u32(wb_px(&c->wb, W - 1, H - 1),
			  0x404040 ^ (((W - 1) ^ (H - 1)) & 0xf));
}

/*
 * One frame on @c, from the commit to the writeback fence.  Returns the
 * composition's own time: from the vblank that latched the commit (its
 * page-flip event's timestamp), at which both drivers start composing,
 * to the writeback fence's signal, at which both have written the last
 * pixel.
 */
static double frame(struct composer *c)
{
	struct drm_event_vblank ev;

	igt_assert_eq(gk_commit(&c->k, c->l, 1 + OVERLAYS, &c->wb,
				DRM_MODE_PAGE_FLIP_EVENT), 0);
	igt_assert_eq(read(c->k.fd, &ev, sizeof(ev)), sizeof(ev));
	igt_assert_eq_u32(ev.base.type, DRM_EVENT_FLIP_COMPLETE);
	return (c->k.wb_signal_ns - (ev.tv_sec * 1000000000ull + ev.tv_usec * 1000ull)) / 1e9;
}

static void setup(struct composer *c, int fd, const char *name)
{
	memset(c, 0, sizeof(*c));
	c->name = name;
	igt_assert_f(drmSetMaster(fd) == 0, "%s: not DRM master\n", name);
	gk_init(&c->k, fd);
	c->k.wb_only = true;
	igt_assert_f(gk_set_mode(&c->k, W, H), "%s: no %dx%d mode\n", name, W, H);
	igt_assert_f(gk_plane(&c->k, DRM_PLANE_TYPE_OVERLAY, OVERLAYS - 1),
		     "%s: fewer than %d overlay planes\n", name, OVERLAYS);
	gk_fb_create(&c->k, &c->primary, W, H, DRM_FORMAT_XRGB8888);
	gk_fb_create(&c->k, &c->wb, W, H, DRM_FORMAT_XRGB8888);
	fill(&c->primary, 0x404040);
	c->l[0] = gk_layer_of(&c->primary);
	for (int i = 0; i < OVERLAYS; i++) {
		gk_fb_create(&c->k, &c->ov[i], OW, OH, DRM_FORMAT_XRGB8888);
		fill(&c->ov[i], colors[i]);
		c->l[1 + i] = gk_layer_of(&c->ov[i]);
		c->l[1 + i].x = pos[i][0];
		c->l[1 + i].y = pos[i][1];
	}
	/* The first commit sets the mode; the second one warms up. */
	for (int i = 0; i < 2; i++) {
		poison(c);
		frame(c);
		usleep(SETTLE_US);
		check(c);
	}
}

static void teardown(struct composer *c)
{
	gk_disable(&c->k);
	for (int i = 0; i < OVERLAYS; i++)
		gk_fb_destroy(&c->k, &c->ov[i]);
	gk_fb_destroy(&c->k, &c->wb);
	gk_fb_destroy(&c->k, &c->primary);
	drmModeDestroyPropertyBlob(c->k.fd, c->k.mode_blob);
}

/*
 * Mean seconds of a frame on @c over FRAMES frames, each checked; the mean
 * of their compositions in @compose.
 */
static double run(struct composer *c, double *compose)
{
	double t0, t = 0;

	*compose = 0;
	for (int i = 0; i < FRAMES; i++) {
		poison(c);
		t0 = bench_now();
		*compose += frame(c) / FRAMES;
		t += bench_now() - t0;
		/* Not counted: let the finished job's cleanup run first. */
		usleep(SETTLE_US);
		check(c);
	}
	return t / FRAMES;
}

/* Mean seconds of memcpy()ing one frame's bytes between @a and @b. */
static double run_memcpy(char *a, char *b, size_t size)
{
	double t0 = bench_now(), t;

	for (int i = 0; i < MEMCPYS; i++) {
		memcpy(i & 1 ? a : b, i & 1 ? b : a, size);
		__asm__ volatile("" : : "r"(a), "r"(b) : "memory");
	}
	t = bench_now() - t0;
	igt_assert(a[0] == 0x5a && a[size - 1] == 0x5a);
	igt_assert(b[0] == 0x5a && b[size - 1] == 0x5a);
	return t / MEMCPYS;
}

static void row(const char *name, const double *v, double scale, const char *unit)
{
	bench_row("kms_compose", 44, name, v, REPS, scale, unit);
}

igt_simple_main
{
	double g[REPS], v[REPS], m[REPS], rv[REPS], rm[REPS];
	double gc[REPS], vc[REPS], rvc[REPS], rmc[REPS];
	size_t size = (size_t)W * H * 4;
	struct composer gembuf, vkms;
	struct utsname u;
	int gfd, vfd;
	char *a, *b;

	gfd = gembuf_open_display();
	vfd = __drm_open_driver(DRIVER_VKMS);
	igt_require_f(vfd >= 0, "no vkms\n");
	setup(&vkms, vfd, "vkms");
	setup(&gembuf, gfd, "gembuf");
	a = malloc(size);
	b = malloc(size);
	igt_assert(a && b);
	memset(a, 0x5a, size);
	memset(b, 0, size);

	for (int rep = 0; rep < REPS; rep++) {
		v[rep] = run(&vkms, &vc[rep]);
		g[rep] = run(&gembuf, &gc[rep]);
		m[rep] = run_memcpy(a, b, size);
		rv[rep] = g[rep] / v[rep];
		rm[rep] = g[rep] / m[rep];
		rvc[rep] = gc[rep] / vc[rep];
		rmc[rep] = m[rep] / gc[rep];
	}

	igt_assert_eq(uname(&u), 0);
	printf("kms_compose: %dx%d XRGB8888, primary + %d overlays of %dx%d, %u Hz on gembuf, %u Hz on vkms; %d runs per case of %d frames (%d memcpys), vkms, gembuf and memcpy alternating; kernel %s %s\n",
	       W, H, OVERLAYS, OW, OH, gembuf.k.mode.vrefresh, vkms.k.mode.vrefresh,
	       REPS, FRAMES, MEMCPYS, u.release, u.version);
	bench_table_header("kms_compose", 44);
	row("frame to writeback fence, gembuf", g, 1e3, "ms");
	row("frame to writeback fence, vkms (anchor)", v, 1e3, "ms");
	row("memcpy of a frame (anchor)", m, 1e3, "ms");
	row("ratio frame, gembuf / vkms", rv, 1, "x");
	row("ratio frame, gembuf / memcpy", rm, 1, "x");
	row("composition (vblank to fence), gembuf", gc, 1e3, "ms");
	row("composition (vblank to fence), vkms", vc, 1e3, "ms");
	row("ratio composition, gembuf / vkms", rvc, 1, "x");
	row("ratio memcpy / composition, gembuf", rmc, 1, "x");

	free(a);
	free(b);
	teardown(&gembuf);
	teardown(&vkms);
	drm_close_driver(gfd);
	drm_close_driver(vfd);
}
