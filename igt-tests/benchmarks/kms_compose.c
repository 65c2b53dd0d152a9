// SPDX-License-Identifier: MIT
/*
 * kms_compose: the time the display takes to compose one 1920x1080 frame
 * into an XRGB8888 writeback framebuffer, on gembuf against vkms (loaded
 * with enable_overlay=1) for the same planes, and against the guest's
 * memcpy() of one such frame, in milliseconds.  Three layouts over an
 * XRGB8888 primary plane:
 *
 * - opaque: three 640x360 XRGB8888 overlays, unscaled: the common case,
 *   where a composer need only copy what is visible;
 * - common: a 640x360 ARGB8888 overlay with per-pixel alpha (blended,
 *   pre-multiplied), an RGB565 one (converted) and a 360x640 XRGB8888
 *   one rotated by 90 degrees: what vkms of Linux 6.12 supports of the
 *   mixed layout;
 * - mixed: a 640x360 YUYV overlay scaled 1.5 times, a 640x360 ARGB8888
 *   one with plane alpha and coverage blending, and the rotated one:
 *   vkms of 6.12 has neither YUYV, scaling nor plane alpha, so gembuf
 *   runs it alone, against its own opaque layout and memcpy().
 *
 * A frame is an atomic commit of the layout with a writeback framebuffer.
 * Two times are taken per frame.  The composition as both drivers see it,
 * timed alike from outside either: from the timestamp of the commit's
 * page-flip event (the vblank that latched it, from whose handler both
 * queue their composer) to the signal timestamp of the writeback fence
 * (both signal it once the last pixel is written); this also counts the
 * wake-up of the composer's worker.  And gembuf's composer alone, from
 * the start of its work to its last pixel written, as the driver counts
 * it in debugfs (compose_ns over frames_composed in gembuf_state); vkms
 * has no such counter, and at its speed the wake-up is noise.  Every
 * frame is checked after it is taken (untimed): a few pixels of every
 * plane and of the background, poisoned before the commit, must show
 * the CPU reference's color, within the formats' rounding on gembuf and
 * within 16 on vkms (its rotation and conversions may round otherwise);
 * gembuf's first frame of each layout is compared whole.
 *
 * The rotated overlay is the lowest one: vkms of 6.12 writes each composed
 * line back at the line its topmost plane was read from, not at the
 * CRTC's, which is only the same for a plane that is not rotated (a
 * rotated topmost plane makes it write outside the writeback buffer).
 *
 * Each driver's CRTC drives its writeback connector alone (6.12's clone
 * check refuses vkms's virtual and writeback encoders together), and both
 * stay on for the whole benchmark.  After every frame, untimed, both wait
 * 50 ms: vkms's writeback cleanup turns its composer off, so a job
 * committed before that cleanup ran would never be composed.
 *
 * The anchor of the CPU's speed is memcpy() of a whole frame's bytes
 * between two buffers of the process, MEMCPYS times per run: the least
 * any composition of that frame must do.
 *
 * The guest runs under QEMU's TCG with -icount shift=0: its clock counts
 * the instructions it executes, one nanosecond each.  So every time here
 * is an instruction count, and each ratio one of instruction counts: it
 * shows the work a composer does per pixel (calls, conversions,
 * divisions, passes over a line) and is the same on any host.  It does
 * not show what real hardware would time: caches and memory bandwidth
 * (a composer that reads a rotated plane a column at a time, or touches
 * each pixel in several passes, costs far more there than its count),
 * the cost of a multiplication or a mispredicted branch against an
 * addition, or SIMD (one NEON instruction counts as one, whatever its
 * width).  memcpy() too is counted in instructions, of 16-byte loads and
 * stores, so "memcpy / composer" says how many instructions per byte the
 * composer spends beyond a copy, not how close to memory bandwidth it
 * runs.
 *
 * Both drivers are set up once (mode set, framebuffers made and filled,
 * one warm-up frame per layout), and the same framebuffers serve every
 * run.  Every case runs REPS times, vkms, gembuf and memcpy alternating,
 * each run the mean of FRAMES frames (or MEMCPYS copies); the table gives
 * the median, minimum and maximum of the runs, and of the ratios of each
 * run to the anchor's run of the same round.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <drm_fourcc.h>

#include "igt.h"
#include "bench.h"
#include "gembuf.h"
#include "gembuf_kms.h"
#include "gembuf_ref.h"

#define W		1920
#define H		1080
#define OVERLAYS	3
#define REPS		5
#define FRAMES		4	/* frames per run, each driver */
#define MEMCPYS		16	/* copies of a frame per run */
#define SETTLE_US	50000
#define VKMS_TOL	16

/* One overlay of a layout. */
struct spec {
	uint32_t format, w, h;	/* the framebuffer */
	int x, y;
	uint32_t dw, dh;	/* shown at, 0: unscaled */
	uint16_t alpha;		/* plane alpha */
	int blend;		/* gk_layer's */
	uint64_t rotation;
	uint8_t a;		/* per-pixel alpha of an ARGB8888 plane */
	bool premul;		/* its colors pre-multiplied */
};

enum { OPAQUE, COMMON, MIXED, NUM_LAYOUTS };

static const struct layout {
	const char *name;
	bool vkms;
	struct spec ov[OVERLAYS];
} layouts[NUM_LAYOUTS] = {
	[OPAQUE] = { "opaque", true, {
		{ DRM_FORMAT_XRGB8888, 640, 360, 100, 100, 0, 0, 0xffff, -1, 0, 0, false },
		{ DRM_FORMAT_XRGB8888, 640, 360, 700, 300, 0, 0, 0xffff, -1, 0, 0, false },
		{ DRM_FORMAT_XRGB8888, 640, 360, 1200, 600, 0, 0, 0xffff, -1, 0, 0, false },
	} },
	[COMMON] = { "common", true, {
		{ DRM_FORMAT_XRGB8888, 360, 640, 100, 100, 640, 360, 0xffff, -1,
		  DRM_MODE_ROTATE_90, 0, false },
		{ DRM_FORMAT_ARGB8888, 640, 360, 700, 300, 0, 0, 0xffff, -1, 0, 0x80, true },
		{ DRM_FORMAT_RGB565, 640, 360, 1200, 600, 0, 0, 0xffff, -1, 0, 0, false },
	} },
	[MIXED] = { "mixed", false, {
		{ DRM_FORMAT_XRGB8888, 360, 640, 100, 100, 640, 360, 0xffff, -1,
		  DRM_MODE_ROTATE_90, 0, false },
		{ DRM_FORMAT_YUYV, 640, 360, 500, 250, 960, 540, 0xffff, -1, 0, 0, false },
		{ DRM_FORMAT_ARGB8888, 640, 360, 1200, 600, 0, 0, 0xc000, 1, 0, 0x80, false },
	} },
};

/* Two colors per overlay, its left and right halves: placement shows. */
static const double colors[OVERLAYS][2][3] = {
	{ { 0.75, 0.19, 0.12 }, { 0.50, 0.60, 0.10 } },
	{ { 0.12, 0.75, 0.19 }, { 0.10, 0.30, 0.80 } },
	{ { 0.19, 0.12, 0.75 }, { 0.90, 0.85, 0.20 } },
};

/* A layout on one driver, with what its frame must show. */
struct scene {
	struct gk_fb ov[OVERLAYS];
	struct gk_layer l[1 + OVERLAYS];
	uint32_t *ref;
	int pts[2 * OVERLAYS + 2][2];	/* the pixels checked every frame */
};

/* One driver, set up for every layout it supports. */
struct composer {
	const char *name;
	bool gembuf;
	struct gk k;
	struct gk_fb primary, wb;
	struct scene sc[NUM_LAYOUTS];
};

static uint32_t *wb_word(const struct gk_fb *wb, int x, int y)
{
	return (uint32_t *)wb->map + y * (wb->pitch / 4) + x;
}

/* Paint @fb as two halves, then give an ARGB8888 one its alpha. */
static void paint(const struct gk_fb *fb, const struct spec *sp, int i)
{
	gk_fb_paint(fb, 0, 0, fb->width / 2, fb->height, colors[i][0][0],
		    colors[i][0][1], colors[i][0][2], 0, 0);
	gk_fb_paint(fb, fb->width / 2, 0, fb->width - fb->width / 2, fb->height,
		    colors[i][1][0], colors[i][1][1], colors[i][1][2], 0, 0);
	if (sp->format != DRM_FORMAT_ARGB8888)
		return;
	for (uint32_t y = 0; y < fb->height; y++) {
		uint32_t *p = (uint32_t *)((char *)fb->map + y * fb->pitch);

		for (uint32_t x = 0; x < fb->width; x++) {
			uint32_t v = p[x], c[3];

			for (int ch = 0; ch < 3; ch++) {
				c[ch] = v >> (8 * ch) & 0xff;
				if (sp->premul)
					c[ch] = (c[ch] * sp->a + 127) / 255;
			}
			p[x] = (uint32_t)sp->a << 24 | c[2] << 16 | c[1] << 8 | c[0];
		}
	}
}

static int tol_of(const struct composer *c, const struct layout *lay)
{
	int tol = 0;

	if (!c->gembuf)
		return VKMS_TOL;
	for (int i = 0; i < OVERLAYS; i++)
		tol = tol > gk_ref_format_tol(lay->ov[i].format) ? tol :
		      gk_ref_format_tol(lay->ov[i].format);
	return tol;
}

static void scene_setup(struct composer *c, struct scene *sc, const struct layout *lay)
{
	int n = 0;

	sc->l[0] = gk_layer_of(&c->primary);
	for (int i = 0; i < OVERLAYS; i++) {
		const struct spec *sp = &lay->ov[i];
		struct gk_layer *l = &sc->l[1 + i];
		uint32_t dw = sp->dw ?: sp->w, dh = sp->dh ?: sp->h;

		gk_fb_create(&c->k, &sc->ov[i], sp->w, sp->h, sp->format);
		paint(&sc->ov[i], sp, i);
		*l = gk_layer_of(&sc->ov[i]);
		l->x = sp->x;
		l->y = sp->y;
		l->w = sp->dw;
		l->h = sp->dh;
		l->alpha = sp->alpha;
		l->blend = sp->blend;
		l->rotation = sp->rotation;
		/* A quarter in from two corners: each half of the plane. */
		sc->pts[n][0] = sp->x + dw / 4;
		sc->pts[n++][1] = sp->y + dh / 4;
		sc->pts[n][0] = sp->x + dw - 1 - dw / 4;
		sc->pts[n++][1] = sp->y + dh - 1 - dh / 4;
	}
	sc->pts[n][0] = 10;
	sc->pts[n++][1] = 20;
	sc->pts[n][0] = W - 1;
	sc->pts[n++][1] = H - 1;
	sc->ref = malloc((size_t)W * H * 4);
	igt_assert(sc->ref);
	gk_ref_compose(&c->k, sc->l, 1 + OVERLAYS, sc->ref);
}

static void poison(const struct composer *c, const struct scene *sc)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(sc->pts); i++)
		*wb_word(&c->wb, sc->pts[i][0], sc->pts[i][1]) = 0xffffffff;
}

static int chan_diff(uint32_t a, uint32_t b)
{
	int d = 0;

	for (int ch = 0; ch < 24; ch += 8) {
		int e = abs((int)(a >> ch & 0xff) - (int)(b >> ch & 0xff));

		d = e > d ? e : d;
	}
	return d;
}

/* The frame composed last on @c shows every plane of @sc where it belongs. */
static void check(const struct composer *c, const struct scene *sc, int tol)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(sc->pts); i++) {
		int x = sc->pts[i][0], y = sc->pts[i][1];
		uint32_t got = *wb_word(&c->wb, x, y) & 0xffffff;
		uint32_t want = sc->ref[y * W + x] & 0xffffff;

		igt_assert_f(chan_diff(got, want) <= tol,
			     "%s: (%d,%d) composed as %06x, not %06x\n",
			     c->name, x, y, got, want);
	}
}

/*
 * One frame of @sc on @c; returns the composition's time as both drivers
 * see it: from the vblank that latched the commit (its page-flip event's
 * timestamp), at which both queue their composer, to the writeback
 * fence's signal, at which both have written the last pixel.
 */
static double frame(struct composer *c, struct scene *sc)
{
	struct drm_event_vblank ev;

	igt_assert_eq(gk_commit(&c->k, sc->l, 1 + OVERLAYS, &c->wb,
				DRM_MODE_PAGE_FLIP_EVENT), 0);
	igt_assert_eq(read(c->k.fd, &ev, sizeof(ev)), sizeof(ev));
	igt_assert_eq_u32(ev.base.type, DRM_EVENT_FLIP_COMPLETE);
	return (c->k.wb_signal_ns - (ev.tv_sec * 1000000000ull + ev.tv_usec * 1000ull)) / 1e9;
}

static void setup(struct composer *c, int fd, const char *name, bool gembuf)
{
	memset(c, 0, sizeof(*c));
	c->name = name;
	c->gembuf = gembuf;
	igt_assert_f(drmSetMaster(fd) == 0, "%s: not DRM master\n", name);
	gk_init(&c->k, fd);
	c->k.wb_only = true;
	igt_assert_f(gk_set_mode(&c->k, W, H), "%s: no %dx%d mode\n", name, W, H);
	igt_assert_f(gk_plane(&c->k, DRM_PLANE_TYPE_OVERLAY, OVERLAYS - 1),
		     "%s: fewer than %d overlay planes\n", name, OVERLAYS);
	gk_fb_create(&c->k, &c->primary, W, H, DRM_FORMAT_XRGB8888);
	gk_fb_create(&c->k, &c->wb, W, H, DRM_FORMAT_XRGB8888);
	gk_fb_paint(&c->primary, 0, 0, W, H, 0.25, 0.25, 0.25, 0, 0);
	gk_fb_paint(&c->primary, 0, H / 2, W, H - H / 2, 0.35, 0.30, 0.25, 0, 0);
	for (int j = 0; j < NUM_LAYOUTS; j++) {
		struct scene *sc = &c->sc[j];

		if (!gembuf && !layouts[j].vkms)
			continue;
		scene_setup(c, sc, &layouts[j]);
		/* The first commit may set the mode; the second one warms up. */
		for (int i = 0; i < 2; i++) {
			poison(c, sc);
			frame(c, sc);
			usleep(SETTLE_US);
			check(c, sc, tol_of(c, &layouts[j]));
		}
		if (gembuf)
			igt_assert_f(gk_ref_compare(&c->wb, sc->ref, tol_of(c, &layouts[j])) == 0,
				     "gembuf: the %s layout differs from the reference\n",
				     layouts[j].name);
	}
}

static void teardown(struct composer *c)
{
	gk_disable(&c->k);
	for (int j = 0; j < NUM_LAYOUTS; j++) {
		if (!c->sc[j].ref)
			continue;
		for (int i = 0; i < OVERLAYS; i++)
			gk_fb_destroy(&c->k, &c->sc[j].ov[i]);
		free(c->sc[j].ref);
	}
	gk_fb_destroy(&c->k, &c->wb);
	gk_fb_destroy(&c->k, &c->primary);
	drmModeDestroyPropertyBlob(c->k.fd, c->k.mode_blob);
}

/*
 * Mean seconds of a composition of layout @j on @c over FRAMES frames,
 * each checked; on gembuf, the mean of its composer's own times (debugfs)
 * in @driver.
 */
static double run(struct composer *c, int j, double *driver)
{
	long ns0 = 0, n0 = 0;
	double t = 0;

	if (c->gembuf) {
		ns0 = gembuf_state("compose_ns");
		n0 = gembuf_state("frames_composed");
		igt_assert(ns0 >= 0 && n0 >= 0);
	}
	for (int i = 0; i < FRAMES; i++) {
		poison(c, &c->sc[j]);
		t += frame(c, &c->sc[j]) / FRAMES;
		/* Not counted: let the finished job's cleanup run first. */
		usleep(SETTLE_US);
		check(c, &c->sc[j], tol_of(c, &layouts[j]));
	}
	if (c->gembuf) {
		long n = gembuf_state("frames_composed") - n0;

		igt_assert_eq(n, FRAMES);
		*driver = (gembuf_state("compose_ns") - ns0) / 1e9 / n;
	}
	return t;
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

static void row(const char *fmt, const char *layout, const double *v,
		double scale, const char *unit)
{
	char name[80];

	snprintf(name, sizeof(name), fmt, layout);
	bench_row("kms_compose", 50, name, v, REPS, scale, unit);
}

igt_simple_main
{
	double m[REPS], gd[NUM_LAYOUTS][REPS], gv[NUM_LAYOUTS][REPS];
	double vv[NUM_LAYOUTS][REPS], r[REPS];
	size_t size = (size_t)W * H * 4;
	struct composer *gembuf, *vkms;
	struct utsname u;
	int gfd, vfd;
	char *a, *b;

	gembuf = calloc(1, sizeof(*gembuf));
	vkms = calloc(1, sizeof(*vkms));
	igt_assert(gembuf && vkms);
	gfd = gembuf_open_display();
	vfd = __drm_open_driver(DRIVER_VKMS);
	igt_require_f(vfd >= 0, "no vkms\n");
	setup(vkms, vfd, "vkms", false);
	setup(gembuf, gfd, "gembuf", true);
	a = malloc(size);
	b = malloc(size);
	igt_assert(a && b);
	memset(a, 0x5a, size);
	memset(b, 0, size);

	for (int rep = 0; rep < REPS; rep++) {
		for (int j = 0; j < NUM_LAYOUTS; j++) {
			if (layouts[j].vkms)
				vv[j][rep] = run(vkms, j, NULL);
			gv[j][rep] = run(gembuf, j, &gd[j][rep]);
		}
		m[rep] = run_memcpy(a, b, size);
	}

	igt_assert_eq(uname(&u), 0);
	printf("kms_compose: %dx%d XRGB8888 writeback, primary + %d overlays (layouts opaque, common, mixed: see the source), %u Hz on gembuf, %u Hz on vkms; %d runs per case of %d frames (%d memcpys), vkms, gembuf and memcpy alternating; kernel %s %s\n",
	       W, H, OVERLAYS, gembuf->k.mode.vrefresh, vkms->k.mode.vrefresh,
	       REPS, FRAMES, MEMCPYS, u.release, u.version);
	bench_table_header("kms_compose", 50);
	row("memcpy of a frame (anchor)", "", m, 1e3, "ms");
	for (int j = 0; j < NUM_LAYOUTS; j++) {
		const char *n = layouts[j].name;

		row("%s: gembuf's composer (its debugfs)", n, gd[j], 1e3, "ms");
		row("%s: vblank to fence, gembuf", n, gv[j], 1e3, "ms");
		if (layouts[j].vkms)
			row("%s: vblank to fence, vkms (anchor)", n, vv[j], 1e3, "ms");
		for (int rep = 0; rep < REPS; rep++)
			r[rep] = m[rep] / gd[j][rep];
		row("%s: ratio memcpy / gembuf's composer", n, r, 1, "x");
		if (layouts[j].vkms) {
			for (int rep = 0; rep < REPS; rep++)
				r[rep] = gv[j][rep] / vv[j][rep];
			row("%s: ratio vblank to fence, gembuf / vkms", n, r, 1, "x");
		} else {
			for (int rep = 0; rep < REPS; rep++)
				r[rep] = gd[j][rep] / gd[OPAQUE][rep];
			row("%s: ratio gembuf's composer, mixed / opaque", n, r, 1, "x");
		}
	}

	free(a);
	free(b);
	teardown(gembuf);
	teardown(vkms);
	drm_close_driver(gfd);
	drm_close_driver(vfd);
}
