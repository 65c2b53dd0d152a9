// SPDX-License-Identifier: MIT
/*
 * gembuf_demo: the article's pipeline with real parts, as `make run`
 * shows it.  A camera (V4L2's vivid, capturing YUYV straight into gembuf
 * buffers queued as V4L2_MEMORY_DMABUF) and a DMA engine (QEMU's edu
 * behind the SMMU, painting a bouncing ball with DMA_FILL and DMA_COPY
 * into two buffers of its own in turn) produce two streams; the display
 * composes them on overlay planes from the buffers in place, the camera
 * scaled 1.6 times and the engine's frames rotated by 90 degrees (and
 * scaled 3 times), under a caption the CPU redraws every frame (an
 * ARGB8888 overlay with plane alpha and coverage blending) and a cursor,
 * over a 1920x1080 primary plane.  Each frame comes back through the
 * writeback connector and is saved as a PPM file in $GEMBUF_DEMO_OUT
 * (the host turns them into PNGs and an animation).
 *
 * At the end a table lists every buffer of the scene as debugfs
 * (gembuf_object) shows it: who wrote it and who read it, its chunks, and each device's
 * mapping.  "copies made" is counted from that table: a device that used
 * a buffer without a mapping of that very object (one physmem, one list
 * of mappings, whichever device's handle asks) would have used a copy.
 * A second table lists every DRM client of the system from
 * /proc/<pid>/fdinfo, the keys of drm-usage-stats.rst that igt's gputop
 * and nvtop read: its memory and its time on the engine.
 *
 * Subtests: "show" is the demo (GEMBUF_DEMO_FRAMES frames, 60 by
 * default); "check" is its short form for `make test` (4 frames unless
 * GEMBUF_DEMO_FRAMES says otherwise), which also checks what the devices
 * wrote against what the CPU expects (vivid's frame against one vivid
 * captured into a buffer of its own, the engine's against the ball drawn
 * from the sprite sheet), compares every written-back frame with the CPU
 * reference (lib/gembuf_ref) composed from the same plane contents read
 * back through their mappings (the camera's through its dma-buf), and
 * requires copies made = 0.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <drm_fourcc.h>
#include <linux/dma-buf.h>
#include <linux/videodev2.h>

#include "igt.h"
#include "gembuf.h"
#include "gembuf_kms.h"
#include "gembuf_ref.h"
#include "sw_sync.h"
#include "vivid.h"

IGT_TEST_DESCRIPTION("The article's scene: vivid and the DMA engine into gembuf buffers, composed in place on the display's planes.");

#define WIDTH		1920
#define HEIGHT		1080

/*
 * The camera: vivid's webcam input at 640x360, shown 1.6 times larger.
 * 5 source pixels to 8 keeps every destination pixel's centre off the
 * edge between two source pixels, where which one is nearest is a tie
 * the driver and the reference may break differently (1.5 times would
 * put a third of them on an edge).
 */
#define CAM_W		640
#define CAM_H		360
#define CAM_BUFS	4
#define CAM_X		96
#define CAM_Y		160
#define CAM_DW		(CAM_W * 8 / 5)
#define CAM_DH		(CAM_H * 8 / 5)

/*
 * The engine's frames: RGB565, ENG_W columns by ENG_H lines, shown
 * rotated by 90 degrees and three times as large (no pixel centre on an
 * edge either), so that its lines are the screen's columns.  The ball is
 * a band of whole lines, one contiguous range for DMA: a frame is one
 * copy from the sprite sheet (a band for each height of the ball) and
 * one fill of the lines the ball left since that buffer's last frame.
 * The engine paints ENG_BUFS buffers in turn, so that it never writes
 * the one on the plane.  edu moves at most 2 KiB a command, each on a
 * 100 ms timer of the guest's virtual clock: a frame costs it seven
 * commands at most (the fill's pattern and two pieces, the copy's two
 * pieces in and out).
 */
#define ENG_BUFS	2
#define ENG_W		96
#define ENG_H		200
#define ENG_SCALE	3
#define ENG_PITCH	(ENG_W * 2)
#define ENG_X		1216
#define ENG_Y		160
#define BALL		16
#define BALL_BAND	(BALL * ENG_PITCH)
#define BALL_HEIGHTS	(ENG_W - BALL + 1)
#define BALL_STEP	6
#define ENG_BG		0x10a6		/* RGB565 of 16, 20, 48: draw_sprites()'s */

/* The lines a buffer's ball left since its last frame are whole lines of it. */
_Static_assert(ENG_BUFS * BALL_STEP < BALL, "the ball must move less than its size");

#define CAP_X		48
#define CAP_Y		980
#define CAP_W		1824
#define CAP_H		72
#define CAP_ALPHA	0xe000		/* 88% */

#define CUR_SIZE	64

/* Who uses a buffer, as debugfs tells mappings apart. */
enum role {
	CPU = 1 << 0,		/* user mappings: the demo is the only process */
	VIVID = 1 << 1,		/* the exporter's kernel vmap, vivid's way in */
	ENGINE = 1 << 2,	/* the engine's IOMMU mapping */
	DISPLAY = 1 << 3,	/* the display's kernel mapping */
};

#define MAX_MAPS	16

struct buffer {
	char name[16], what[32];
	int fd;				/* the file of @handle */
	uint32_t handle;
	int view_fd;			/* the other device's file, or -1 */
	uint32_t view_handle;		/* its handle of the same buffer */
	unsigned int writer, readers;	/* roles, as the scene uses it */
	unsigned int used;		/* the roles that did use it */
	bool seen, views_differ;
	struct gembuf_report info;
	struct gembuf_report_mapping maps[MAX_MAPS];
};

enum {
	B_PRIMARY, B_CAPTION, B_CURSOR, B_CAMERA,
	B_SPRITES = B_CAMERA + CAM_BUFS, B_ENGINE,
	B_WRITEBACK = B_ENGINE + ENG_BUFS, NUM_BUFFERS,
};

struct scene {
	struct gk k;
	int display, engine;
	bool check;
	int frames;
	const char *out;
	char display_dev[32], engine_dev[32];

	unsigned int primary_idx, overlay_idx[3], cursor_idx;
	struct gk_fb primary, caption, cursor, wb;

	/* The camera. */
	int video;
	void *cam_ref;		/* check: a frame vivid captured into its own buffer */
	unsigned int cam_count;
	uint32_t cam_pitch, cam_image;
	uint64_t cam_size;
	int cam_encoding, cam_range;
	struct gk_fb cam[CAM_BUFS];
	int cam_dmabuf[CAM_BUFS];

	/* The engine. */
	uint32_t sprites, stream[ENG_BUFS];	/* engine handles */
	uint64_t sprites_size, stream_size;
	uint16_t *sprites_map;
	uint16_t *sheet;		/* the sprite sheet as the CPU drew it */
	uint16_t *stream_ref;		/* check: the frame the engine must paint */
	struct gk_fb stream_fb[ENG_BUFS];	/* the display's views of @stream */

	/*
	 * Each commit waits for a fence of this sw_sync timeline on the
	 * primary plane, which the CPU drew once: debugfs is asked while
	 * the frame is held there, then the timeline lets it go.
	 */
	int timeline;
	unsigned int sync_point;

	struct buffer buf[NUM_BUFFERS];
};

/*
 * The vivid controls the demo set, as they were before: restored when
 * the scene stops and, after a failure, by an exit handler.
 */
static struct {
	int fd;				/* the capture device, -1: nothing to restore */
	unsigned int n;
	struct v4l2_control ctrl[2];
} vivid_saved = { .fd = -1 };

/*
 * A 5x7 font, upper case only, drawn for this demo: each byte is a line,
 * bit 4 the leftmost pixel.
 */
static const struct glyph {
	char c;
	uint8_t rows[7];
} font[] = {
	{ 'A', { 0x0e, 0x11, 0x11, 0x1f, 0x11, 0x11, 0x11 } },
	{ 'B', { 0x1e, 0x11, 0x11, 0x1e, 0x11, 0x11, 0x1e } },
	{ 'C', { 0x0e, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0e } },
	{ 'D', { 0x1e, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1e } },
	{ 'E', { 0x1f, 0x10, 0x10, 0x1e, 0x10, 0x10, 0x1f } },
	{ 'F', { 0x1f, 0x10, 0x10, 0x1e, 0x10, 0x10, 0x10 } },
	{ 'G', { 0x0e, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0f } },
	{ 'H', { 0x11, 0x11, 0x11, 0x1f, 0x11, 0x11, 0x11 } },
	{ 'I', { 0x0e, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0e } },
	{ 'J', { 0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0c } },
	{ 'K', { 0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11 } },
	{ 'L', { 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1f } },
	{ 'M', { 0x11, 0x1b, 0x15, 0x15, 0x11, 0x11, 0x11 } },
	{ 'N', { 0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11 } },
	{ 'O', { 0x0e, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0e } },
	{ 'P', { 0x1e, 0x11, 0x11, 0x1e, 0x10, 0x10, 0x10 } },
	{ 'Q', { 0x0e, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0d } },
	{ 'R', { 0x1e, 0x11, 0x11, 0x1e, 0x14, 0x12, 0x11 } },
	{ 'S', { 0x0f, 0x10, 0x10, 0x0e, 0x01, 0x01, 0x1e } },
	{ 'T', { 0x1f, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04 } },
	{ 'U', { 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0e } },
	{ 'V', { 0x11, 0x11, 0x11, 0x11, 0x11, 0x0a, 0x04 } },
	{ 'W', { 0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0a } },
	{ 'X', { 0x11, 0x11, 0x0a, 0x04, 0x0a, 0x11, 0x11 } },
	{ 'Y', { 0x11, 0x11, 0x0a, 0x04, 0x04, 0x04, 0x04 } },
	{ 'Z', { 0x1f, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1f } },
	{ '0', { 0x0e, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0e } },
	{ '1', { 0x04, 0x0c, 0x04, 0x04, 0x04, 0x04, 0x0e } },
	{ '2', { 0x0e, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1f } },
	{ '3', { 0x1f, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0e } },
	{ '4', { 0x02, 0x06, 0x0a, 0x12, 0x1f, 0x02, 0x02 } },
	{ '5', { 0x1f, 0x10, 0x1e, 0x01, 0x01, 0x11, 0x0e } },
	{ '6', { 0x06, 0x08, 0x10, 0x1e, 0x11, 0x11, 0x0e } },
	{ '7', { 0x1f, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08 } },
	{ '8', { 0x0e, 0x11, 0x11, 0x0e, 0x11, 0x11, 0x0e } },
	{ '9', { 0x0e, 0x11, 0x11, 0x0f, 0x01, 0x02, 0x0c } },
	{ '-', { 0x00, 0x00, 0x00, 0x1f, 0x00, 0x00, 0x00 } },
	{ ':', { 0x00, 0x0c, 0x0c, 0x00, 0x0c, 0x0c, 0x00 } },
	{ ';', { 0x00, 0x0c, 0x0c, 0x00, 0x0c, 0x04, 0x08 } },
	{ '/', { 0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00 } },
	{ '.', { 0x00, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x0c } },
	{ ',', { 0x00, 0x00, 0x00, 0x00, 0x0c, 0x04, 0x08 } },
	{ '(', { 0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02 } },
	{ ')', { 0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08 } },
	{ '=', { 0x00, 0x00, 0x1f, 0x00, 0x1f, 0x00, 0x00 } },
	{ '+', { 0x00, 0x04, 0x04, 0x1f, 0x04, 0x04, 0x00 } },
	{ '>', { 0x08, 0x04, 0x02, 0x01, 0x02, 0x04, 0x08 } },
	{ '<', { 0x02, 0x04, 0x08, 0x10, 0x08, 0x04, 0x02 } },
	{ '%', { 0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03 } },
	{ '\'', { 0x0c, 0x04, 0x08, 0x00, 0x00, 0x00, 0x00 } },
};

/* The 32-bit pixels of a framebuffer, for the CPU's drawing. */
struct canvas {
	uint32_t *px;
	int w, h, stride;
};

static struct canvas canvas_of(const struct gk_fb *fb)
{
	return (struct canvas){ fb->map, fb->width, fb->height, fb->pitch / 4 };
}

static void fill_rect(const struct canvas *c, int x, int y, int w, int h, uint32_t v)
{
	int x1 = x + w > c->w ? c->w : x + w, y1 = y + h > c->h ? c->h : y + h;

	for (int yy = y < 0 ? 0 : y; yy < y1; yy++)
		for (int xx = x < 0 ? 0 : x; xx < x1; xx++)
			c->px[(size_t)yy * c->stride + xx] = v;
}

/* @s in upper case at @x, @y, each font pixel @scale pixels wide. */
static void draw_text(const struct canvas *c, int x, int y, int scale, uint32_t v,
		      const char *s)
{
	for (; *s; s++, x += 6 * scale) {
		const struct glyph *g = NULL;

		for (unsigned int i = 0; i < ARRAY_SIZE(font) && !g; i++)
			if (font[i].c == toupper((unsigned char)*s))
				g = &font[i];
		for (int row = 0; g && row < 7; row++)
			for (int col = 0; col < 5; col++)
				if (g->rows[row] & (0x10 >> col))
					fill_rect(c, x + col * scale, y + row * scale,
						  scale, scale, v);
	}
}

/* A rectangle's outline, @t pixels thick, @gap pixels outside it. */
static void frame_rect(const struct canvas *c, int x, int y, int w, int h,
		       int gap, int t, uint32_t v)
{
	x -= gap + t;
	y -= gap + t;
	w += 2 * (gap + t);
	h += 2 * (gap + t);
	fill_rect(c, x, y, w, t, v);
	fill_rect(c, x, y + h - t, w, t, v);
	fill_rect(c, x, y, t, h, v);
	fill_rect(c, x + w - t, y, t, h, v);
}

/* The primary plane, drawn once: a background with the scene's labels. */
static void draw_primary(const struct gk_fb *fb)
{
	static const char *const legend[] = {
		"PRIMARY: XRGB8888 1920X1080, DRAWN ONCE BY THE CPU",
		"CAPTION: ARGB8888 OVERLAY, PLANE ALPHA 88%, COVERAGE BLENDING, REDRAWN BY THE CPU EVERY FRAME",
		"CURSOR: ARGB8888 64X64 ON THE CURSOR PLANE, PRE-MULTIPLIED ALPHA",
		"WRITEBACK: EVERY COMPOSED FRAME COMES BACK AS XRGB8888 AND IS SAVED",
	};
	struct canvas c = canvas_of(fb);

	for (int y = 0; y < c.h; y++) {
		/* From 20, 26, 44 at the top to 8, 10, 18 at the bottom. */
		uint32_t r = 20 - 12 * y / c.h, g = 26 - 16 * y / c.h;
		uint32_t b = 44 - 26 * y / c.h;
		uint32_t v = 0xff000000 | r << 16 | g << 8 | b;
		uint32_t grid = 0xff000000 | (r + 6) << 16 | (g + 7) << 8 | (b + 10);

		for (int x = 0; x < c.w; x++)
			c.px[(size_t)y * c.stride + x] =
				y % 64 == 32 || x % 64 == 32 ? grid : v;
	}
	draw_text(&c, 96, 40, 6, 0xffe8ecf4,
		  "GEMBUF: ONE BUFFER, MAPPED BY EVERY DEVICE");
	draw_text(&c, 96, 104, 2, 0xffa8b4c8,
		  "A CAMERA AND A DMA ENGINE WRITE INTO GEMBUF BUFFERS; THE DISPLAY COMPOSES ITS PLANES FROM THEM IN PLACE AND WRITES EVERY FRAME BACK");

	frame_rect(&c, CAM_X, CAM_Y, CAM_DW, CAM_DH, 4, 2, 0xff3a4660);
	draw_text(&c, CAM_X, CAM_Y + CAM_DH + 16, 4, 0xff8fd3ff,
		  "CAMERA: VIVID (V4L2), YUYV 640X360");
	draw_text(&c, CAM_X, CAM_Y + CAM_DH + 56, 4, 0xff8fd3ff,
		  "V4L2 DMABUF -> GEMBUF, SCALED 1.6X");

	frame_rect(&c, ENG_X, ENG_Y, ENG_SCALE * ENG_H, ENG_SCALE * ENG_W, 4, 2, 0xff3a4660);
	draw_text(&c, ENG_X, ENG_Y + ENG_SCALE * ENG_W + 16, 4, 0xffffc070,
		  "DMA ENGINE: EDU + SMMU");
	draw_text(&c, ENG_X, ENG_Y + ENG_SCALE * ENG_W + 56, 4, 0xffffc070,
		  "RGB565 96X200 BY DMA");
	draw_text(&c, ENG_X, ENG_Y + ENG_SCALE * ENG_W + 96, 4, 0xffffc070,
		  "ROTATED 90, SCALED 3X");

	for (unsigned int i = 0; i < ARRAY_SIZE(legend); i++)
		draw_text(&c, 96, 860 + 24 * i, 2, 0xffa8b4c8, legend[i]);
}

/* The caption: a translucent box with rounded corners, and this frame's text. */
static void draw_caption(const struct gk_fb *fb, const char *text)
{
	struct canvas c = canvas_of(fb);
	const int r = 16;

	for (int y = 0; y < c.h; y++) {
		for (int x = 0; x < c.w; x++) {
			int dx = x < r ? r - x : x >= c.w - r ? x - (c.w - r - 1) : 0;
			int dy = y < r ? r - y : y >= c.h - r ? y - (c.h - r - 1) : 0;

			c.px[(size_t)y * c.stride + x] =
				dx * dx + dy * dy > r * r ? 0 : 0xb0101828;
		}
	}
	draw_text(&c, 24, (CAP_H - 28) / 2, 4, 0xffffffff, text);
}

/* Whether @x, @y is inside the polygon @p of @n points (even-odd rule). */
static bool inside(const float (*p)[2], int n, float x, float y)
{
	bool in = false;

	for (int i = 0, j = n - 1; i < n; j = i++)
		if ((p[i][1] > y) != (p[j][1] > y) &&
		    x < (p[j][0] - p[i][0]) * (y - p[i][1]) / (p[j][1] - p[i][1]) + p[i][0])
			in = !in;
	return in;
}

/*
 * The cursor: an arrow, white with a black outline and a soft shadow,
 * in pre-multiplied ARGB8888 (the cursor plane's default blend mode).
 */
static void draw_cursor(const struct gk_fb *fb)
{
	static const float arrow[][2] = {
		{ 4, 4 }, { 4, 48 }, { 14, 38 }, { 22, 56 }, { 30, 52 },
		{ 22, 35 }, { 36, 35 },
	};
	struct canvas c = canvas_of(fb);
	const int n = ARRAY_SIZE(arrow);

	for (int y = 0; y < c.h; y++) {
		for (int x = 0; x < c.w; x++) {
			float px = x + 0.5f, py = y + 0.5f;
			uint32_t v = 0;

			if (inside(arrow, n, px - 3, py - 3))
				v = 0x50000000;		/* shadow, pre-multiplied black */
			for (int d = 0; d < 9 && v != 0xff000000; d++)
				if (inside(arrow, n, px + (d % 3 - 1) * 2, py + (d / 3 - 1) * 2))
					v = 0xff000000;	/* outline */
			if (inside(arrow, n, px, py))
				v = 0xffffffff;
			c.px[(size_t)y * c.stride + x] = v;
		}
	}
}

static uint16_t rgb565(double r, double g, double b)
{
	r = r < 0 ? 0 : r > 255 ? 255 : r;
	g = g < 0 ? 0 : g > 255 ? 255 : g;
	b = b < 0 ? 0 : b > 255 ? 255 : b;
	return (uint16_t)((lround(r) >> 3) << 11 | (lround(g) >> 2) << 5 | lround(b) >> 3);
}

static double clamp01(double v)
{
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

/*
 * The sprite sheet: for every height h of the ball, a band of BALL whole
 * lines of the engine's frame with the ball h columns up (the frame is
 * shown rotated: its columns go up the screen, its lines to the right),
 * lit from the screen's top left, smoothed at its edge, and its shadow
 * on the floor, smaller as the ball rises.
 */
static void draw_sprites(uint16_t *sheet)
{
	const double bg[3] = { 16, 20, 48 }, shade[3] = { 4, 5, 14 };
	const double base[3] = { 255, 130, 40 };
	const double lx = -0.5, ly = 0.6, lz = 0.62;	/* towards the light */
	const double rad = BALL / 2.0;

	for (int h = 0; h < BALL_HEIGHTS; h++) {
		uint16_t *band = sheet + (size_t)h * BALL_BAND / 2;
		double shadow = rad * (1 - 0.6 * h / (BALL_HEIGHTS - 1));

		for (int line = 0; line < BALL; line++) {
			for (int col = 0; col < ENG_W; col++) {
				double dx = (line + 0.5 - rad) / rad;	/* screen right */
				double dy = (col + 0.5 - h - rad) / rad; /* screen up */
				double d = sqrt(dx * dx + dy * dy);
				double ball = clamp01(rad * (1 - d) + 0.5);
				double ground = col < 3 ?
					clamp01(shadow - fabs(line + 0.5 - rad) + 0.5) : 0;
				double dz = d < 1 ? sqrt(1 - d * d) : 0;
				double diff = clamp01(dx * lx + dy * ly + dz * lz);
				double spec = 200 * pow(diff, 24), c[3];

				for (int i = 0; i < 3; i++) {
					c[i] = bg[i] + (shade[i] - bg[i]) * ground;
					c[i] += (base[i] * (0.2 + 0.8 * diff) + spec - c[i]) * ball;
				}
				band[line * ENG_W + col] = rgb565(c[0], c[1], c[2]);
			}
		}
	}
}

/* The ball's first line in frame @n: across the frame and back. */
static int ball_line(int n)
{
	int span = ENG_H - BALL, p = n * BALL_STEP % (2 * span);

	return p <= span ? p : 2 * span - p;
}

/* The ball's height in frame @n: bouncing, from the top of its arc. */
static int ball_height(int n)
{
	return (int)lround((BALL_HEIGHTS - 1) * fabs(cos(M_PI * n / 18)));
}

/*
 * The engine's jobs for frame @n, into buffer n % ENG_BUFS, queued on its
 * file without waiting: the display's commit waits for their fences on
 * the buffer (implicit sync).  That buffer last held frame n - ENG_BUFS
 * and has been off the plane since the page flip of frame n - 1.
 */
static void engine_frame(struct scene *s, int n)
{
	const uint32_t bg = ENG_BG | ENG_BG << 16;
	uint32_t stream = s->stream[n % ENG_BUFS];
	int line = ball_line(n);

	if (n < ENG_BUFS) {
		igt_assert_eq(__gembuf_fill(s->engine, stream, 0,
					    ENG_H * ENG_PITCH, bg), 0);
	} else {
		int prev = ball_line(n - ENG_BUFS);
		int from = line > prev ? prev : line + BALL;
		int to = line > prev ? line : prev + BALL;

		/*
		 * The lines the ball left (it moved less than its size); none
		 * when it is back on the same line, and a fill of nothing is
		 * refused.
		 */
		if (to > from)
			igt_assert_eq(__gembuf_fill(s->engine, stream, from * ENG_PITCH,
						    (to - from) * ENG_PITCH, bg), 0);
	}
	igt_assert_eq(__gembuf_copy(s->engine, stream, line * ENG_PITCH,
				    s->sprites, (uint64_t)ball_height(n) * BALL_BAND,
				    BALL_BAND), 0);
}

/*
 * The frame the engine is to paint for frame @n, worked out by the CPU
 * from the sprite sheet it drew (its own copy, not the engine's buffer):
 * the background, and the ball's band at its line for its height.
 */
static void expected_stream(const struct scene *s, int n, uint16_t *frame)
{
	for (int i = 0; i < ENG_W * ENG_H; i++)
		frame[i] = ENG_BG;
	memcpy(frame + (size_t)ball_line(n) * ENG_W,
	       s->sheet + (size_t)ball_height(n) * BALL_BAND / 2, BALL_BAND);
}

/* The name of the device behind DRM node @fd, as debugfs names it. */
static void device_name(int fd, char *name, size_t len, const char *dflt)
{
	char path[64], target[PATH_MAX];
	struct stat st;
	ssize_t n;

	snprintf(name, len, "%s", dflt);
	if (fstat(fd, &st))
		return;
	snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/device",
		 major(st.st_rdev), minor(st.st_rdev));
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = 0;
	snprintf(name, len, "%.*s", (int)len - 1,
		 strrchr(target, '/') ? strrchr(target, '/') + 1 : target);
}

static unsigned int role_of(const struct scene *s, const struct gembuf_report_mapping *m)
{
	switch (m->kind) {
	case GEMBUF_MAPPING_USER:
		/* One line for every process's: the demo maps its buffers alone. */
		return CPU;
	case GEMBUF_MAPPING_IOMMU:
		return strcmp(m->device, s->engine_dev) ? 0 : ENGINE;
	case GEMBUF_MAPPING_KERNEL:
		if (!strcmp(m->device, s->display_dev))
			return DISPLAY;
		/*
		 * The exporter's vmap, which vivid and the display (reading an
		 * engine's buffer it imported) read through.
		 */
		return strcmp(m->device, "kernel") ? 0 : VIVID | DISPLAY;
	}
	return 0;
}

/* The roles that have a mapping among the @n mappings @maps. */
static unsigned int roles_mapped(const struct scene *s,
				 const struct gembuf_report_mapping *maps, unsigned int n)
{
	unsigned int roles = 0;

	for (unsigned int i = 0; i < n && i < MAX_MAPS; i++)
		roles |= role_of(s, &maps[i]);
	return roles;
}

/* The report of @handle on @fd, with up to MAX_MAPS mappings: 0 or -errno. */
static int gem_info(int fd, uint32_t handle, struct gembuf_report *gi,
		    struct gembuf_report_mapping *maps)
{
	memset(gi, 0, sizeof(*gi));
	memset(maps, 0, sizeof(*maps) * MAX_MAPS);
	gi->handle = handle;
	return __gembuf_info(fd, gi, maps, MAX_MAPS);
}

/*
 * Whether @a and @b are the same mapping: the same device, kind, address,
 * size, attributes and page-table entries.  Not its users, which change
 * between two reports on their own (drm_sched frees a finished
 * job late, a commit's cleanup drops the old plane state's user).
 */
static bool same_mapping(const struct gembuf_report_mapping *a,
			 const struct gembuf_report_mapping *b)
{
	return !strncmp(a->device, b->device, sizeof(a->device)) &&
	       a->kind == b->kind && a->dev_addr == b->dev_addr &&
	       a->size == b->size && a->attr == b->attr && a->ptes == b->ptes;
}

/*
 * What debugfs says of @b now: 0, or -errno of the report (the caller
 * asserts once the frame it holds back is let go).  Mappings come and
 * go with their users (a framebuffer's while a plane state holds it, a
 * writeback job's until the job completes): the snapshot kept is the
 * one that shows most of the roles that used the buffer.  The other
 * device's handle must show the same object: the same chunks and the
 * very same mappings, in every snapshot.
 */
static int snapshot(struct scene *s, struct buffer *b)
{
	struct gembuf_report_mapping maps[MAX_MAPS], vmaps[MAX_MAPS];
	struct gembuf_report gi, vi;
	int had, has, ret;

	ret = gem_info(b->fd, b->handle, &gi, maps);
	if (ret)
		return ret;
	if (b->view_fd >= 0) {
		bool differ;

		ret = gem_info(b->view_fd, b->view_handle, &vi, vmaps);
		if (ret)
			return ret;
		differ = vi.size != gi.size || vi.num_chunks != gi.num_chunks ||
			 memcmp(vi.chunks, gi.chunks, sizeof(gi.chunks)) ||
			 vi.num_mappings != gi.num_mappings;
		for (unsigned int i = 0; i < gi.num_mappings && i < MAX_MAPS && !differ; i++)
			differ = !same_mapping(&vmaps[i], &maps[i]);
		b->views_differ |= differ;
	}
	had = b->seen ? __builtin_popcount(roles_mapped(s, b->maps, b->info.num_mappings) &
					   b->used) : -1;
	has = __builtin_popcount(roles_mapped(s, maps, gi.num_mappings) & b->used);
	if (has < had)
		return 0;
	b->info = gi;
	memcpy(b->maps, maps, sizeof(maps));
	b->seen = true;
	return 0;
}

static void add_buffer(struct scene *s, int i, const char *name, const char *what,
		       int fd, uint32_t handle, unsigned int writer,
		       unsigned int readers)
{
	struct buffer *b = &s->buf[i];

	memset(b, 0, sizeof(*b));
	snprintf(b->name, sizeof(b->name), "%s", name);
	snprintf(b->what, sizeof(b->what), "%s", what);
	b->fd = fd;
	b->handle = handle;
	b->view_fd = -1;
	b->writer = writer;
	b->readers = readers;
}

/*
 * vivid's controls back as vivid_menu() found them; whether all went
 * back.  The exit handler calls it too: system calls only.
 */
static bool vivid_restore(void)
{
	bool ok = true;

	if (vivid_saved.fd < 0)
		return true;
	for (unsigned int i = vivid_saved.n; i-- > 0;)
		ok &= !ioctl(vivid_saved.fd, VIDIOC_S_CTRL, &vivid_saved.ctrl[i]);
	close(vivid_saved.fd);
	vivid_saved.fd = -1;
	vivid_saved.n = 0;
	return ok;
}

static void vivid_restore_at_exit(int sig)
{
	vivid_restore();
}

/*
 * The camera's menu control @ctrl set to its item @item, its value noted
 * first for vivid_restore(); whether vivid has them.
 */
static bool vivid_menu(int v, const char *ctrl, const char *item)
{
	struct v4l2_queryctrl q = { .id = V4L2_CTRL_FLAG_NEXT_CTRL };

	while (!ioctl(v, VIDIOC_QUERYCTRL, &q)) {
		if (q.type == V4L2_CTRL_TYPE_MENU && !strcmp((char *)q.name, ctrl)) {
			for (int i = q.minimum; i <= q.maximum; i++) {
				struct v4l2_querymenu m = { .id = q.id, .index = i };
				struct v4l2_control c = { .id = q.id, .value = i };
				struct v4l2_control old = { .id = q.id };

				if (ioctl(v, VIDIOC_QUERYMENU, &m) || strcmp((char *)m.name, item))
					continue;
				igt_assert_eq(ioctl(v, VIDIOC_G_CTRL, &old), 0);
				igt_assert_lt(vivid_saved.n, (int)ARRAY_SIZE(vivid_saved.ctrl));
				vivid_saved.ctrl[vivid_saved.n++] = old;
				igt_assert_eq(ioctl(v, VIDIOC_S_CTRL, &c), 0);
				return true;
			}
		}
		q.id |= V4L2_CTRL_FLAG_NEXT_CTRL;
	}
	return false;
}

/*
 * vivid_menu(), required by the check (its reference is one still
 * frame), only told of by the show.
 */
static void camera_control(struct scene *s, const char *ctrl, const char *item)
{
	bool found = vivid_menu(s->video, ctrl, item);

	if (s->check)
		igt_require_f(found, "vivid has no control \"%s\" with \"%s\": the check needs a still picture\n",
			      ctrl, item);
	else if (!found)
		igt_info("vivid has no control \"%s\" with \"%s\"\n", ctrl, item);
}

static void camera_queue(struct scene *s, int i)
{
	struct v4l2_buffer b = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_DMABUF,
		.index = i, .length = s->cam_size,
	};

	b.m.fd = s->cam_dmabuf[i];
	igt_assert_eq(ioctl(s->video, VIDIOC_QBUF, &b), 0);
}

/* The next frame vivid captured: the index of its buffer. */
static int camera_dequeue(struct scene *s)
{
	struct v4l2_buffer b = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_DMABUF,
	};
	struct pollfd p = { .fd = s->video, .events = POLLIN };

	igt_assert_eq(poll(&p, 1, 30000), 1);
	igt_assert_eq(ioctl(s->video, VIDIOC_DQBUF, &b), 0);
	igt_assert_lte(b.index, s->cam_count - 1);
	/* A frame vivid could not capture whole is no frame to show. */
	igt_assert_f(!(b.flags & V4L2_BUF_FLAG_ERROR),
		     "vivid returned buffer %u with V4L2_BUF_FLAG_ERROR\n", b.index);
	igt_assert_eq_u32(b.bytesused, s->cam_image);
	return b.index;
}

/*
 * The check's reference of the camera: one frame vivid captures into a
 * buffer of its own (V4L2_MEMORY_MMAP), which the frames it captures
 * into gembuf's buffers must equal byte for byte.
 */
static void camera_reference(struct scene *s)
{
	struct v4l2_requestbuffers rb = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP,
		.count = 1,
	};
	struct v4l2_buffer b = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP,
	};
	struct pollfd p = { .fd = s->video, .events = POLLIN };
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	void *map;

	igt_assert_eq(ioctl(s->video, VIDIOC_REQBUFS, &rb), 0);
	igt_assert_eq(ioctl(s->video, VIDIOC_QUERYBUF, &b), 0);
	map = mmap(NULL, b.length, PROT_READ, MAP_SHARED, s->video, b.m.offset);
	igt_assert(map != MAP_FAILED);
	igt_assert_eq(ioctl(s->video, VIDIOC_QBUF, &b), 0);
	igt_assert_eq(ioctl(s->video, VIDIOC_STREAMON, &type), 0);
	igt_assert_eq(poll(&p, 1, 30000), 1);
	igt_assert_eq(ioctl(s->video, VIDIOC_DQBUF, &b), 0);
	igt_assert_eq_u32(b.bytesused, s->cam_image);
	s->cam_ref = malloc(s->cam_image);
	igt_assert(s->cam_ref);
	memcpy(s->cam_ref, map, s->cam_image);
	igt_assert_eq(ioctl(s->video, VIDIOC_STREAMOFF, &type), 0);
	munmap(map, b.length);
	rb.count = 0;
	igt_assert_eq(ioctl(s->video, VIDIOC_REQBUFS, &rb), 0);
}

/*
 * vivid's webcam input, YUYV 640x360, its picture moving, capturing into
 * gembuf buffers of the display exported as dma-bufs.  vivid fills them
 * through the exporter's kernel mapping (vb2-vmalloc takes a vmap of the
 * dma-buf), which debugfs lists as a mapping of the "kernel".
 */
static void camera_start(struct scene *s)
{
	struct v4l2_format f = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	struct v4l2_requestbuffers rb = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_DMABUF,
		.count = CAM_BUFS,
	};
	int input = 0, type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	uint32_t enc, quant;

	s->video = vivid_open_capture(NULL, 0);
	igt_require_f(s->video >= 0, "no vivid capture device\n");
	/* Input 0 is vivid's webcam, which has 640x360 among its sizes. */
	igt_assert_eq(ioctl(s->video, VIDIOC_S_INPUT, &input), 0);
	f.fmt.pix.width = CAM_W;
	f.fmt.pix.height = CAM_H;
	f.fmt.pix.pixelformat = V4L2_PIX_FMT_YUYV;
	f.fmt.pix.field = V4L2_FIELD_NONE;
	igt_assert_eq(ioctl(s->video, VIDIOC_S_FMT, &f), 0);
	igt_assert_f(f.fmt.pix.pixelformat == V4L2_PIX_FMT_YUYV &&
		     f.fmt.pix.width == CAM_W && f.fmt.pix.height == CAM_H,
		     "vivid captures %.4s %ux%u, not YUYV %ux%u\n",
		     (char *)&f.fmt.pix.pixelformat, f.fmt.pix.width,
		     f.fmt.pix.height, CAM_W, CAM_H);
	s->cam_pitch = f.fmt.pix.bytesperline;
	s->cam_image = f.fmt.pix.sizeimage;
	s->cam_size = ((uint64_t)s->cam_image + 4095) & ~4095ull;
	/*
	 * The plane converts as the camera encoded, and COLOR_ENCODING has
	 * BT.601 and BT.709 only.
	 */
	enc = f.fmt.pix.ycbcr_enc ?: V4L2_MAP_YCBCR_ENC_DEFAULT(f.fmt.pix.colorspace);
	quant = f.fmt.pix.quantization ?:
		V4L2_MAP_QUANTIZATION_DEFAULT(false, f.fmt.pix.colorspace, enc);
	igt_assert_f(enc == V4L2_YCBCR_ENC_601 || enc == V4L2_YCBCR_ENC_709,
		     "vivid encodes YCbCr as V4L2_YCBCR_ENC %u, neither BT.601 nor BT.709\n",
		     enc);
	s->cam_encoding = enc == V4L2_YCBCR_ENC_709;
	s->cam_range = quant == V4L2_QUANTIZATION_FULL_RANGE;

	/*
	 * vivid's controls go back as they were when the scene stops, or at
	 * exit if it never does; a run that failed before has left its
	 * values to restore first.
	 */
	igt_assert(vivid_restore());
	vivid_saved.fd = dup(s->video);
	igt_assert(vivid_saved.fd >= 0);
	igt_install_exit_handler(vivid_restore_at_exit);
	if (s->check) {
		/* A still picture, so every frame is the reference frame. */
		camera_control(s, "Horizontal Movement", "No Movement");
		camera_control(s, "OSD Text Mode", "None");
		camera_reference(s);
	} else {
		camera_control(s, "Horizontal Movement", "Move Right");
		camera_control(s, "OSD Text Mode", "All");
	}

	igt_assert_eq(ioctl(s->video, VIDIOC_REQBUFS, &rb), 0);
	igt_assert(rb.count >= 2 && rb.count <= CAM_BUFS);
	s->cam_count = rb.count;
	for (unsigned int i = 0; i < s->cam_count; i++) {
		uint64_t size = s->cam_size;
		uint32_t h = 0;

		igt_assert_eq(__gembuf_create(s->display, &size, 0, GEMBUF_CACHE_WB, &h), 0);
		s->cam_dmabuf[i] = prime_handle_to_fd_for_mmap(s->display, h);
		igt_assert(s->cam_dmabuf[i] >= 0);
		memset(&s->cam[i], 0, sizeof(s->cam[i]));
		gk_fb_from_handle(&s->k, &s->cam[i], h, CAM_W, CAM_H, DRM_FORMAT_YUYV,
				  s->cam_pitch, 0, 0);
		s->cam[i].size = s->cam_size;
		camera_queue(s, i);
	}
	igt_assert_eq(ioctl(s->video, VIDIOC_STREAMON, &type), 0);
}

/*
 * The engine's buffers: the sprite sheet, drawn by the CPU once, and the
 * ENG_BUFS frames the engine paints in turn, each shared with the
 * display by PRIME once.
 */
static void engine_start(struct scene *s)
{
	uint64_t size = (uint64_t)BALL_HEIGHTS * BALL_BAND;

	igt_assert_eq(__gembuf_create(s->engine, &size, 0, GEMBUF_CACHE_WB, &s->sprites), 0);
	s->sprites_size = size;
	s->sprites_map = gembuf_mmap(s->engine, s->sprites, size);
	s->sheet = malloc((size_t)BALL_HEIGHTS * BALL_BAND);
	igt_assert(s->sheet);
	draw_sprites(s->sheet);
	memcpy(s->sprites_map, s->sheet, (size_t)BALL_HEIGHTS * BALL_BAND);

	for (int i = 0; i < ENG_BUFS; i++) {
		uint32_t h;
		int fd;

		size = ENG_H * ENG_PITCH;
		igt_assert_eq(__gembuf_create(s->engine, &size, 0, GEMBUF_CACHE_WB,
					      &s->stream[i]), 0);
		s->stream_size = size;
		fd = prime_handle_to_fd(s->engine, s->stream[i]);
		h = prime_fd_to_handle(s->display, fd);
		close(fd);
		memset(&s->stream_fb[i], 0, sizeof(s->stream_fb[i]));
		gk_fb_from_handle(&s->k, &s->stream_fb[i], h, ENG_W, ENG_H,
				  DRM_FORMAT_RGB565, ENG_PITCH, 0, 0);
		s->stream_fb[i].size = size;
	}
	if (s->check) {
		s->stream_ref = malloc(ENG_H * ENG_PITCH);
		igt_assert(s->stream_ref);
	}
}

static void scene_start(struct scene *s)
{
	static const char *const types[] = { "primary", "overlay", "overlay", "overlay", "cursor" };
	const struct gk_plane *p[5];
	char name[16], what[32];

	device_name(s->display, s->display_dev, sizeof(s->display_dev), "gembuf");
	device_name(s->engine, s->engine_dev, sizeof(s->engine_dev), "?");
	gk_init(&s->k, s->display);
	igt_require_f(gk_set_mode(&s->k, WIDTH, HEIGHT), "no %ux%u mode\n", WIDTH, HEIGHT);
	p[0] = gk_plane(&s->k, DRM_PLANE_TYPE_PRIMARY, 0);
	for (int i = 0; i < 3; i++)
		p[1 + i] = gk_plane(&s->k, DRM_PLANE_TYPE_OVERLAY, i);
	p[4] = gk_plane(&s->k, DRM_PLANE_TYPE_CURSOR, 0);
	for (int i = 0; i < 5; i++)
		igt_require_f(p[i], "no %s plane\n", types[i]);
	s->primary_idx = p[0] - s->k.planes;
	for (int i = 0; i < 3; i++)
		s->overlay_idx[i] = p[1 + i] - s->k.planes;
	s->cursor_idx = p[4] - s->k.planes;

	gk_fb_create(&s->k, &s->primary, WIDTH, HEIGHT, DRM_FORMAT_XRGB8888);
	draw_primary(&s->primary);
	gk_fb_create(&s->k, &s->caption, CAP_W, CAP_H, DRM_FORMAT_ARGB8888);
	gk_fb_create(&s->k, &s->cursor, CUR_SIZE, CUR_SIZE, DRM_FORMAT_ARGB8888);
	draw_cursor(&s->cursor);
	gk_fb_create(&s->k, &s->wb, WIDTH, HEIGHT, DRM_FORMAT_XRGB8888);
	igt_require_f(kernel_has_sw_sync(), "no sw_sync: each commit waits for a fence of the demo's\n");
	s->timeline = sw_sync_timeline_create();
	s->sync_point = 0;
	engine_start(s);
	camera_start(s);

	add_buffer(s, B_PRIMARY, "primary", "XRGB8888 1920x1080", s->display,
		   s->primary.handle, CPU, DISPLAY);
	add_buffer(s, B_CAPTION, "caption", "ARGB8888 1824x72", s->display,
		   s->caption.handle, CPU, DISPLAY);
	add_buffer(s, B_CURSOR, "cursor", "ARGB8888 64x64", s->display,
		   s->cursor.handle, CPU, DISPLAY);
	for (unsigned int i = 0; i < s->cam_count; i++) {
		snprintf(name, sizeof(name), "camera %u", i);
		add_buffer(s, B_CAMERA + i, name, "YUYV 640x360", s->display,
			   s->cam[i].handle, VIVID, DISPLAY);
	}
	snprintf(what, sizeof(what), "RGB565 %ux%u", ENG_W, BALL * BALL_HEIGHTS);
	add_buffer(s, B_SPRITES, "sprites", what, s->engine, s->sprites, CPU, ENGINE);
	snprintf(what, sizeof(what), "RGB565 %ux%u", ENG_W, ENG_H);
	for (int i = 0; i < ENG_BUFS; i++) {
		snprintf(name, sizeof(name), "ball %d", i);
		add_buffer(s, B_ENGINE + i, name, what, s->engine, s->stream[i],
			   ENGINE, DISPLAY);
		/* The display's handle of the ball imports the engine's object. */
		s->buf[B_ENGINE + i].view_fd = s->display;
		s->buf[B_ENGINE + i].view_handle = s->stream_fb[i].handle;
	}
	add_buffer(s, B_WRITEBACK, "writeback", "XRGB8888 1920x1080", s->display,
		   s->wb.handle, DISPLAY, CPU);
	s->buf[B_PRIMARY].used = s->buf[B_CURSOR].used = s->buf[B_SPRITES].used = CPU;
}

static void scene_stop(struct scene *s)
{
	struct v4l2_requestbuffers rb = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_DMABUF,
	};
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;

	igt_assert_eq(ioctl(s->video, VIDIOC_STREAMOFF, &type), 0);
	gk_disable(&s->k);
	igt_assert_eq(ioctl(s->video, VIDIOC_REQBUFS, &rb), 0);
	for (unsigned int i = 0; i < s->cam_count; i++) {
		gk_fb_destroy(&s->k, &s->cam[i]);
		close(s->cam_dmabuf[i]);
	}
	igt_assert_f(vivid_restore(), "vivid's controls could not be restored\n");
	close(s->video);
	free(s->cam_ref);
	close(s->timeline);
	for (int i = 0; i < ENG_BUFS; i++) {
		gk_fb_destroy(&s->k, &s->stream_fb[i]);
		gem_close(s->engine, s->stream[i]);
	}
	free(s->stream_ref);
	free(s->sheet);
	munmap(s->sprites_map, s->sprites_size);
	gem_close(s->engine, s->sprites);
	gk_fb_destroy(&s->k, &s->wb);
	gk_fb_destroy(&s->k, &s->cursor);
	gk_fb_destroy(&s->k, &s->caption);
	gk_fb_destroy(&s->k, &s->primary);
}

/* Frame @n's planes, with camera buffer @cam. */
static void scene_layers(const struct scene *s, int n, int cam, struct gk_layer *l)
{
	memset(l, 0, sizeof(*l) * GK_MAX_PLANES);
	l[s->primary_idx] = gk_layer_of(&s->primary);
	l[s->primary_idx].blend = 0;
	l[s->overlay_idx[0]] = (struct gk_layer){
		.fb = &s->cam[cam], .x = CAM_X, .y = CAM_Y, .w = CAM_DW, .h = CAM_DH,
		.zpos = 1, .alpha = 0xffff, .blend = 0,
		.encoding = s->cam_encoding, .range = s->cam_range,
	};
	/* Rotated: the destination is the framebuffer's size transposed. */
	l[s->overlay_idx[1]] = (struct gk_layer){
		.fb = &s->stream_fb[n % ENG_BUFS], .x = ENG_X, .y = ENG_Y,
		.w = ENG_SCALE * ENG_H, .h = ENG_SCALE * ENG_W,
		.zpos = 2, .alpha = 0xffff, .blend = 0, .rotation = DRM_MODE_ROTATE_90,
	};
	l[s->overlay_idx[2]] = (struct gk_layer){
		.fb = &s->caption, .x = CAP_X, .y = CAP_Y, .zpos = 3,
		.alpha = CAP_ALPHA, .blend = 1,
	};
	/* A figure of eight right of the camera, over the engine's frame. */
	l[s->cursor_idx] = (struct gk_layer){
		.fb = &s->cursor,
		.x = 1480 + (int)lround(240 * sin(2 * M_PI * n / 48)),
		.y = 560 + (int)lround(150 * sin(4 * M_PI * n / 48)),
		.zpos = -1, .alpha = 0xffff, .blend = 0,
	};
}

/*
 * Commit frame @n without blocking, held back by an unsignalled fence on
 * the primary plane: until it signals, every framebuffer of the frame is
 * prepared (mapped by the display) and its writeback job holds its
 * buffer, whatever the timing.  Take what debugfs says of each buffer
 * the frame uses there, let the frame go and wait for its writeback.
 * The page flip's event is read by wait_flip() before the next commit,
 * so that one never finds this one in the way (-EBUSY).
 */
static void commit_frame(struct scene *s, const struct gk_layer *l, int n, int cam)
{
	static const int in_frame[] = {
		B_PRIMARY, B_CAPTION, B_CURSOR, B_SPRITES, B_WRITEBACK,
	};
	uint32_t flags = DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT;
	struct buffer *ball = &s->buf[B_ENGINE + n % ENG_BUFS];
	int in_fence, fence = -1, ret, err = 0;

	s->buf[B_CAMERA + cam].used |= VIVID | DISPLAY;
	s->buf[B_PRIMARY].used |= DISPLAY;
	s->buf[B_CAPTION].used |= CPU | DISPLAY;
	s->buf[B_CURSOR].used |= DISPLAY;
	s->buf[B_SPRITES].used |= ENGINE;
	ball->used |= ENGINE | DISPLAY;
	s->buf[B_WRITEBACK].used |= DISPLAY;

	/* The first frame lights the CRTC: the one commit that is a modeset. */
	if (n == 0)
		flags |= DRM_MODE_ATOMIC_ALLOW_MODESET;
	in_fence = sw_sync_timeline_create_fence(s->timeline, ++s->sync_point);
	ret = gk_flip_start(&s->k, l, s->k.num_planes, &s->wb, flags, s->primary_idx,
			    in_fence, &fence);
	if (!ret) {
		err = snapshot(s, &s->buf[B_CAMERA + cam]);
		err = err ?: snapshot(s, ball);
		for (unsigned int i = 0; i < ARRAY_SIZE(in_frame) && !err; i++)
			err = snapshot(s, &s->buf[in_frame[i]]);
	}
	/* Let the frame go before any assertion: it would hold up the next commits. */
	sw_sync_timeline_inc(s->timeline, 1);
	close(in_fence);
	igt_assert_f(!ret, "frame %d: the commit failed: %s\n", n, strerror(-ret));
	gk_commit_finish(&s->k, fence);
	igt_assert_f(!err, "frame %d: the report failed: %s\n", n, strerror(-err));
}

/*
 * Read the page-flip event of frame @n's commit: the frame is on the
 * planes, the one before is off them (its camera buffer may go back to
 * vivid, its ball buffer to the engine), and the next nonblocking commit
 * will not find this one in the way.
 */
static void wait_flip(struct scene *s, int n)
{
	struct pollfd p = { .fd = s->display, .events = POLLIN };
	struct drm_event_vblank ev;
	ssize_t len;

	igt_assert_f(poll(&p, 1, 30000) == 1, "frame %d: no page-flip event\n", n);
	len = read(s->display, &ev, sizeof(ev));
	igt_assert_f(len == sizeof(ev) && ev.base.type == DRM_EVENT_FLIP_COMPLETE &&
		     ev.crtc_id == s->k.crtc_id,
		     "frame %d: read %zd bytes, not the page-flip event of CRTC %u\n",
		     n, len, s->k.crtc_id);
}

/* Width and height of @l's destination rectangle, as gk_commit_start() sets it. */
static int layer_w(const struct gk_layer *l)
{
	return l->w ?: (l->sw ?: l->fb->width);
}

static int layer_h(const struct gk_layer *l)
{
	return l->h ?: (l->sh ?: l->fb->height);
}

/*
 * Pixels of the written-back frame @n with a channel further from @ref
 * than the formats of the planes that cover the pixel may take it
 * (gk_ref_format_tol(): 2 for the camera's YCbCr, 1 for RGB565's
 * expansion and ARGB8888's blending, 0 for the XRGB8888 primary alone).
 * The first few are logged.
 */
static unsigned int compare_frame(const struct scene *s, const struct gk_layer *l,
				  int n, const uint32_t *ref)
{
	const struct gk_fb *wb = &s->wb;
	unsigned int bad = 0;
	int tol[WIDTH];

	for (int y = 0; y < HEIGHT; y++) {
		const uint32_t *row = (const uint32_t *)((const uint8_t *)wb->map +
							 (size_t)y * wb->pitch);

		memset(tol, 0, sizeof(tol));
		for (unsigned int i = 0; i < s->k.num_planes; i++) {
			const struct gk_layer *p = &l[i];
			int t;

			if (!p->fb || y < p->y || y >= p->y + layer_h(p))
				continue;
			t = gk_ref_format_tol(p->fb->format);
			for (int x = p->x < 0 ? 0 : p->x;
			     x < p->x + layer_w(p) && x < WIDTH; x++)
				tol[x] = t > tol[x] ? t : tol[x];
		}
		for (int x = 0; x < WIDTH; x++) {
			uint32_t got = row[x] & 0xffffff, want = ref[(size_t)y * WIDTH + x];
			bool ok = true;

			for (int c = 0; c < 24; c += 8) {
				int d = (int)((got >> c) & 0xff) - (int)((want >> c) & 0xff);

				ok &= d >= -tol[x] && d <= tol[x];
			}
			if (!ok && bad++ < 5)
				igt_info("frame %d: pixel %d,%d: %06x, reference %06x, tolerance %d\n",
					 n, x, y, got, want, tol[x]);
		}
	}
	return bad;
}

/*
 * What frame @n's devices wrote and the written-back frame, against what
 * the CPU expects: the camera's buffer, read through its dma-buf, against
 * vivid's own capture; the ball's, read through a mapping of the
 * engine's object, against expected_stream(); and the written-back frame
 * against the CPU reference composed from those same buffers (the rest
 * read through the CPU's own mappings).  Mappings are let go before any
 * assertion.
 */
static void check_frame(struct scene *s, const struct gk_layer *l, int n, int cam,
			uint32_t *ref)
{
	struct dma_buf_sync sync = { .flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ };
	struct gk_fb *c = &s->cam[cam], *ball = &s->stream_fb[n % ENG_BUFS];
	bool started, ended = false, cam_ok, ball_ok;
	unsigned int bad = 0;
	int ball_at = -1;
	void *p;

	ball->map = gembuf_mmap(s->engine, s->stream[n % ENG_BUFS], s->stream_size);
	p = mmap(NULL, c->size, PROT_READ, MAP_SHARED, s->cam_dmabuf[cam], 0);
	igt_assert(p != MAP_FAILED);
	c->map = p;
	/* From here to the end of the CPU's access, nothing asserts. */
	started = !ioctl(s->cam_dmabuf[cam], DMA_BUF_IOCTL_SYNC, &sync);
	/* What vivid captured into gembuf is what it captures for itself. */
	cam_ok = !memcmp(p, s->cam_ref, s->cam_image);
	/* What the engine painted is the ball the CPU would have drawn. */
	expected_stream(s, n, s->stream_ref);
	ball_ok = !memcmp(ball->map, s->stream_ref, ENG_H * ENG_PITCH);
	for (int i = 0; i < ENG_W * ENG_H && ball_at < 0 && !ball_ok; i++)
		if (((const uint16_t *)ball->map)[i] != s->stream_ref[i])
			ball_at = i;
	/* The reference is worth composing from inputs that are right. */
	if (started && cam_ok && ball_ok) {
		gk_ref_compose(&s->k, l, s->k.num_planes, ref);
		bad = compare_frame(s, l, n, ref);
	}

	if (started) {
		sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ;
		ended = !ioctl(s->cam_dmabuf[cam], DMA_BUF_IOCTL_SYNC, &sync);
	}
	munmap(c->map, c->size);
	c->map = NULL;
	munmap(ball->map, s->stream_size);
	ball->map = NULL;

	igt_assert_f(started, "frame %d: DMA_BUF_SYNC_START of camera buffer %d failed\n",
		     n, cam);
	igt_assert_f(cam_ok, "frame %d: camera buffer %d differs from vivid's own capture\n",
		     n, cam);
	igt_assert_f(ball_ok, "frame %d: ball buffer %d differs from the frame the engine was to paint (ball at line %d, height %d), first at its line %d, column %d\n",
		     n, n % ENG_BUFS, ball_line(n), ball_height(n),
		     ball_at / ENG_W, ball_at % ENG_W);
	igt_assert_f(ended, "frame %d: DMA_BUF_SYNC_END of camera buffer %d failed\n",
		     n, cam);
	igt_assert_f(!bad, "frame %d: %u pixels differ from the CPU reference by more than their tolerance\n",
		     n, bad);
}

static void save_ppm(const struct scene *s, int n)
{
	const struct gk_fb *fb = &s->wb;
	uint8_t *rgb = malloc((size_t)fb->width * fb->height * 3), *o = rgb;
	char path[PATH_MAX];
	FILE *f;

	igt_assert(rgb);
	for (uint32_t y = 0; y < fb->height; y++) {
		const uint32_t *row = (const uint32_t *)((const uint8_t *)fb->map +
							 (size_t)y * fb->pitch);

		for (uint32_t x = 0; x < fb->width; x++) {
			*o++ = row[x] >> 16;
			*o++ = row[x] >> 8;
			*o++ = row[x];
		}
	}
	snprintf(path, sizeof(path), "%s/frame-%03d.ppm", s->out, n);
	f = fopen(path, "w");
	igt_assert_f(f, "%s: %s\n", path, strerror(errno));
	fprintf(f, "P6\n%u %u\n255\n", fb->width, fb->height);
	igt_assert_eq(fwrite(rgb, 1, o - rgb, f), (size_t)(o - rgb));
	igt_assert_eq(fclose(f), 0);
	free(rgb);
}

static const char *role_name(unsigned int role)
{
	switch (role) {
	case CPU:
		return "CPU";
	case VIVID:
		return "vivid";
	case ENGINE:
		return "engine";
	case DISPLAY:
		return "display";
	}
	return "-";
}

static void roles_text(unsigned int roles, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = 0;
	for (unsigned int r = 1; r <= DISPLAY; r <<= 1)
		if (roles & r)
			at += snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
				       role_name(r));
}

/* "contiguous", or the chunks by size: "5 chunks: 3x2M 2x64K". */
static void chunks_text(const struct gembuf_report *gi, char *buf, size_t len)
{
	size_t at;

	if (gi->flags & GEMBUF_INFO_CONTIGUOUS) {
		snprintf(buf, len, "contiguous");
		return;
	}
	at = snprintf(buf, len, "%u chunks:", gi->num_chunks);
	for (int o = GEMBUF_INFO_CHUNK_ORDERS - 1; o >= 0 && at < len; o--) {
		static const char units[] = "BKMGT";

		if (gi->chunks[o])
			at += snprintf(buf + at, len - at, " %ux%llu%c", gi->chunks[o],
				       1ull << (o % 10), units[o / 10]);
	}
}

/*
 * What the memory was chosen for (gembuf's placement): "for 2 devices:
 * one range, below 0xffffffff" or "for 1 device: IOMMU chunks".
 */
static void need_text(const struct gembuf_report *gi, char *buf, size_t len)
{
	const struct gembuf_report_placement *p = &gi->placement;
	size_t at;

	at = snprintf(buf, len, "for %u device%s:", p->devices,
		      p->devices == 1 ? "" : "s");
	if (p->need & GEMBUF_NEED_CONTIGUOUS)
		at += snprintf(buf + at, len - at, " one range");
	else if (p->need & GEMBUF_NEED_GRANULE)
		at += snprintf(buf + at, len - at, " IOMMU chunks");
	else
		at += snprintf(buf + at, len - at, " any pages");
	if ((p->need & GEMBUF_NEED_LIMIT) && at < len)
		at += snprintf(buf + at, len - at, ", below 0x%llx",
			       (unsigned long long)p->dma_limit + 1);
	if (p->moves && at < len)
		snprintf(buf + at, len - at, ", moved %u times", p->moves);
}

/*
 * The table of the scene's buffers, and the copies it shows: a role that
 * used a buffer without a mapping of it, or a second device's handle
 * that is not the same object, would mean a copy was made.
 */
static unsigned int print_table(const struct scene *s, FILE *f)
{
	unsigned int copies = 0, buffers = 0, mappings = 0;
	char flow[64], mem[128], who[32], need[96];

	fprintf(f, "%-11s %-19s %-22s %s\n", "buffer", "content",
		"written by -> read by", "memory (debugfs)");
	fprintf(f, "  %-9s %-14s %-7s %5s  %s\n", "mapped by", "device", "kind",
		"ptes", "address");
	for (int i = 0; i < NUM_BUFFERS; i++) {
		const struct buffer *b = &s->buf[i];
		unsigned int mapped, missing;

		if (!b->name[0])
			continue;
		roles_text(b->writer, flow, sizeof(flow));
		roles_text(b->readers, who, sizeof(who));
		snprintf(flow + strlen(flow), sizeof(flow) - strlen(flow), " -> %s", who);
		if (!b->seen) {
			fprintf(f, "%-11s %-19s %-22s not used in these frames\n",
				b->name, b->what, flow);
			continue;
		}
		chunks_text(&b->info, mem, sizeof(mem));
		need_text(&b->info, need, sizeof(need));
		fprintf(f, "%-11s %-19s %-22s %llu KiB, %s, %s\n", b->name, b->what,
			flow, (unsigned long long)b->info.size / 1024, mem, need);
		for (unsigned int m = 0; m < b->info.num_mappings && m < MAX_MAPS; m++) {
			const struct gembuf_report_mapping *map = &b->maps[m];
			char addr[24] = "-";

			if (map->dev_addr)
				snprintf(addr, sizeof(addr), "0x%llx",
					 (unsigned long long)map->dev_addr);
			fprintf(f, "  %-9s %-14.14s %-7s %5u  %s\n", role_name(role_of(s, map)),
				map->device, gembuf_mapping_kind_name(map->kind),
				map->ptes, addr);
		}
		if (b->view_fd >= 0)
			fprintf(f, "  %s\n", b->views_differ ?
				"the display's handle shows another object: a copy" :
				"the display's handle shows the same object: same chunks, same mappings");
		mapped = roles_mapped(s, b->maps, b->info.num_mappings);
		missing = b->used & ~mapped;
		for (unsigned int r = 1; r <= DISPLAY; r <<= 1)
			if (missing & r)
				fprintf(f, "  %s used it with no mapping of it: a copy\n",
					role_name(r));
		copies += __builtin_popcount(missing) + b->views_differ;
		mappings += b->info.num_mappings;
		buffers++;
	}
	if (copies)
		fprintf(f, "copies made = %u: the lines ending in \"a copy\" above\n", copies);
	else
		fprintf(f, "copies made = 0: each of the %u buffers is one object with one physmem, mapped by every device that wrote or read it (%u mappings)\n",
			buffers, mappings);
	return copies;
}

/* One DRM client, from the drm- keys of one fdinfo file. */
struct client {
	int pid;
	char comm[17];
	char driver[32];
	unsigned long long id;
	unsigned long long total, resident, shared, engine_ns;
};

/* A memory key's value in bytes: "<n>[ KiB| MiB]". */
static unsigned long long fdinfo_bytes(const char *v)
{
	char *end;
	unsigned long long n = strtoull(v, &end, 10);

	while (*end == ' ')
		end++;
	if (!strncmp(end, "KiB", 3))
		n <<= 10;
	else if (!strncmp(end, "MiB", 3))
		n <<= 20;
	return n;
}

static bool client_read(const char *path, struct client *c)
{
	char line[256];
	bool drm = false;
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ':');

		if (!v || strncmp(line, "drm-", 4))
			continue;
		*v++ = '\0';
		while (*v == ' ' || *v == '\t')
			v++;
		v[strcspn(v, "\n")] = '\0';
		if (!strcmp(line, "drm-driver"))
			snprintf(c->driver, sizeof(c->driver), "%s", v);
		else if (!strcmp(line, "drm-client-id")) {
			c->id = strtoull(v, NULL, 10);
			drm = true;
		}
		else if (!strcmp(line, "drm-total-memory"))
			c->total = fdinfo_bytes(v);
		else if (!strcmp(line, "drm-resident-memory"))
			c->resident = fdinfo_bytes(v);
		else if (!strcmp(line, "drm-shared-memory"))
			c->shared = fdinfo_bytes(v);
		else if (!strcmp(line, "drm-engine-dma"))
			c->engine_ns = strtoull(v, NULL, 10);
	}
	fclose(f);
	return drm;
}

/*
 * Every DRM client of the system, once each (a descriptor duplicated or
 * inherited shows the same drm-client-id), as gputop lists them.
 * Returns the engine time of this process's gembuf_dma clients.
 */
static unsigned long long print_clients(FILE *out)
{
	static struct client cl[64];
	unsigned long long mine = 0;
	unsigned int n = 0;
	struct dirent *p, *d;
	DIR *proc, *fds;

	proc = opendir("/proc");
	igt_assert(proc);
	while ((p = readdir(proc)) && n < ARRAY_SIZE(cl)) {
		char path[600], comm[17] = "?";
		FILE *f;

		if (!isdigit((unsigned char)p->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", p->d_name);
		f = fopen(path, "r");
		if (f) {
			if (fgets(comm, sizeof(comm), f))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
		snprintf(path, sizeof(path), "/proc/%s/fdinfo", p->d_name);
		fds = opendir(path);
		if (!fds)
			continue;
		while ((d = readdir(fds)) && n < ARRAY_SIZE(cl)) {
			struct client c = { .pid = atoi(p->d_name) };
			unsigned int i;

			if (d->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s",
				 p->d_name, d->d_name);
			if (!client_read(path, &c))
				continue;
			for (i = 0; i < n; i++)
				if (cl[i].id == c.id && !strcmp(cl[i].driver, c.driver))
					break;
			if (i < n)
				continue;
			snprintf(c.comm, sizeof(c.comm), "%s", comm);
			cl[n++] = c;
		}
		closedir(fds);
	}
	closedir(proc);

	fprintf(out, "\nDRM clients (fdinfo, as gputop and nvtop read it)\n");
	fprintf(out, "%7s %-16s %-10s %6s %10s %10s %10s %12s\n", "pid",
		"command", "driver", "client", "total KiB", "resident", "shared",
		"engine ms");
	for (unsigned int i = 0; i < n; i++) {
		fprintf(out, "%7d %-16s %-10s %6llu %10llu %10llu %10llu %12.1f\n",
			cl[i].pid, cl[i].comm, cl[i].driver, cl[i].id,
			cl[i].total >> 10, cl[i].resident >> 10,
			cl[i].shared >> 10, cl[i].engine_ns / 1e6);
		if (cl[i].pid == getpid() && !strcmp(cl[i].driver, "gembuf_dma"))
			mine += cl[i].engine_ns;
	}
	return mine;
}

/*
 * Frame @n of @frames is done.  On a terminal, one line that rewrites
 * itself ("frame N/M", the count never shrinking, so nothing is left of
 * the previous one), ended when the last frame is; in a log or a pipe
 * (the guest's console, which the host filters for these lines), a line
 * every tenth frame and for the last.
 */
static void progress(int n, int frames)
{
	static int tty = -1;

	if (tty < 0)
		tty = isatty(STDOUT_FILENO);
	if (tty)
		printf("\rframe %d/%d%s", n, frames, n == frames ? "\n" : "");
	else if (n % 10 == 0 || n == frames)
		printf("frame %d/%d\n", n, frames);
	else
		return;
	fflush(stdout);
}

static void demo(int display, int engine, bool check, int frames, const char *out)
{
	static struct scene s;
	uint32_t *ref = NULL;
	unsigned long long engine_ns;
	unsigned int copies;
	char text[128], *table = NULL;
	size_t table_len = 0;
	int shown = -1;
	FILE *f;

	memset(&s, 0, sizeof(s));
	s.display = display;
	s.engine = engine;
	s.check = check;
	s.frames = frames;
	s.out = out;
	scene_start(&s);
	igt_info("gembuf_demo: %d frames of %ux%u; camera vivid YUYV %ux%u in %u buffers; engine %s; display %s\n",
		 frames, WIDTH, HEIGHT, CAM_W, CAM_H, s.cam_count, s.engine_dev,
		 s.display_dev);
	if (check) {
		ref = malloc((size_t)WIDTH * HEIGHT * 4);
		igt_assert(ref);
	}

	for (int n = 0; n < frames; n++) {
		struct gk_layer l[GK_MAX_PLANES];
		int cam;

		engine_frame(&s, n);
		cam = camera_dequeue(&s);
		snprintf(text, sizeof(text),
			 "FRAME %d/%d   CAMERA BUFFER %d OF %u   BALL: DMA FILL + DMA COPY",
			 n + 1, frames, cam + 1, s.cam_count);
		/*
		 * The caption has one buffer, redrawn in place while the last
		 * frame shows it: that frame's writeback, the display's last
		 * read of it, is complete (the display composes for writeback
		 * and CRC only).
		 */
		draw_caption(&s.caption, text);
		scene_layers(&s, n, cam, l);
		commit_frame(&s, l, n, cam);
		wait_flip(&s, n);
		if (check)
			check_frame(&s, l, n, cam, ref);
		if (out)
			save_ppm(&s, n);
		if (check || out)
			s.buf[B_WRITEBACK].used |= CPU;
		/* The buffer this frame's flip took off the plane goes back to the camera. */
		if (shown >= 0)
			camera_queue(&s, shown);
		shown = cam;
		progress(n + 1, frames);
	}
	free(ref);

	f = open_memstream(&table, &table_len);
	igt_assert(f);
	copies = print_table(&s, f);
	engine_ns = print_clients(f);
	fclose(f);
	fputs(table, stdout);
	if (out) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/summary.txt", out);
		f = fopen(path, "w");
		igt_assert_f(f, "%s: %s\n", path, strerror(errno));
		fputs(table, f);
		fclose(f);
	}
	free(table);
	scene_stop(&s);
	igt_assert_eq(copies, 0);
	/* The engine drew the ball every frame: its time is the demo's. */
	igt_assert_f(engine_ns > 0, "no engine time in the demo's fdinfo\n");
}

/* GEMBUF_DEMO_FRAMES, or @dflt. */
static int frames_wanted(int dflt)
{
	const char *env = getenv("GEMBUF_DEMO_FRAMES");
	long n = env ? strtol(env, NULL, 10) : 0;

	return n > 0 && n <= 100000 ? (int)n : dflt;
}

igt_main
{
	int display = -1, engine = -1;

	igt_fixture {
		display = gembuf_open_display();
		igt_require(drmSetMaster(display) == 0);
		engine = gembuf_open_engine();
	}

	igt_describe("The demo's scene in a few frames, each written-back frame equal to the CPU reference composed from the same buffers (the camera's read through its dma-buf), and no buffer used by a device without a mapping of it: copies made = 0.");
	igt_subtest("check")
		demo(display, engine, true, frames_wanted(4), getenv("GEMBUF_DEMO_OUT"));

	igt_describe("The demo of make run: GEMBUF_DEMO_FRAMES frames (60 by default) saved as PPM in GEMBUF_DEMO_OUT, and the table of the scene's buffers.");
	igt_subtest("show")
		demo(display, engine, false, frames_wanted(60), getenv("GEMBUF_DEMO_OUT"));

	igt_fixture {
		drm_close_driver(engine);
		drm_close_driver(display);
	}
}
