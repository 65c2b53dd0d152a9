// SPDX-License-Identifier: MIT
/*
 * gembuf_demo: the article's camera-to-overlay path.  The DMA engine (a
 * stand-in for a camera or codec) writes a sequence of frames into gembuf
 * buffers by device DMA; the buffers are shared with the display by PRIME
 * and scanned out on overlay planes over a primary background, with alpha
 * and zpos; every composed frame comes back through the writeback
 * connector and is saved as a PPM (the host turns them into PNGs).
 * Nothing is copied: each overlay is read where the engine wrote it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <drm_fourcc.h>

#include "igt.h"
#include "gembuf.h"
#include "gembuf_kms.h"

#define FRAMES		4
#define OVERLAYS	3
#define OW		320
#define OH		240

static void save_ppm(const char *dir, int n, const struct gk_fb *fb)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/frame-%d.ppm", dir, n);
	f = fopen(path, "w");
	igt_assert(f);
	fprintf(f, "P6\n%u %u\n255\n", fb->width, fb->height);
	for (uint32_t y = 0; y < fb->height; y++) {
		const uint32_t *row = (uint32_t *)((char *)fb->map + y * fb->pitch);

		for (uint32_t x = 0; x < fb->width; x++) {
			unsigned char px[3] = { row[x] >> 16, row[x] >> 8, row[x] };

			fwrite(px, 1, 3, f);
		}
	}
	fclose(f);
}

/* The engine paints frame @n of overlay @o: horizontal bands that move. */
static void engine_paint(int engine, uint32_t handle, int o, int n)
{
	static const uint32_t colors[OVERLAYS][4] = {
		{ 0xffe04040, 0xffe0a040, 0xffe0e040, 0xff40e040 },
		{ 0xff4040e0, 0xff40a0e0, 0xff40e0e0, 0xffa040e0 },
		{ 0x80ffffff, 0x80ff80ff, 0x8080ffff, 0x80ffff80 },
	};
	const uint32_t band = OH / 4 * OW * 4;

	for (int b = 0; b < 4; b++)
		igt_assert_eq(__gembuf_fill(engine, handle, b * band, band,
					    colors[o][(b + n) % 4]), 0);
	gembuf_wait(engine, handle);
}

igt_simple_main
{
	const char *dir = getenv("GEMBUF_DEMO_OUT") ?: "/tmp";
	int display = gembuf_open_display(), engine = gembuf_open_engine();
	struct gk_fb primary, wb, ov[OVERLAYS];
	uint32_t ov_engine[OVERLAYS], copies = 0;
	struct gk_layer layers[1 + OVERLAYS];
	struct gk k;

	gk_init(&k, display);
	igt_info("gembuf_demo: %ux%u, %u planes\n", k.mode.hdisplay,
		 k.mode.vdisplay, k.num_planes);

	/* The background, drawn by the CPU: a vertical gradient. */
	gk_fb_create(&k, &primary, k.mode.hdisplay, k.mode.vdisplay,
		     DRM_FORMAT_XRGB8888);
	for (uint32_t y = 0; y < primary.height; y++)
		for (uint32_t x = 0; x < primary.width; x++)
			((uint32_t *)primary.map)[y * primary.width + x] =
				(y * 255 / primary.height) << 8 | 0x20;
	gk_fb_create(&k, &wb, k.mode.hdisplay, k.mode.vdisplay, DRM_FORMAT_XRGB8888);

	/* Overlays: engine buffers, shared with the display by PRIME. */
	for (int o = 0; o < OVERLAYS; o++) {
		uint32_t h;
		int fd;

		ov_engine[o] = gembuf_create(engine, OW * OH * 4, 0, GEMBUF_CACHE_WB);
		fd = prime_handle_to_fd(engine, ov_engine[o]);
		h = prime_fd_to_handle(display, fd);
		close(fd);
		memset(&ov[o], 0, sizeof(ov[o]));
		gk_fb_from_handle(&k, &ov[o], h, OW, OH,
				  o == 2 ? DRM_FORMAT_ARGB8888 : DRM_FORMAT_XRGB8888,
				  OW * 4, 0, 0);
	}

	for (int n = 0; n < FRAMES; n++) {
		struct drm_gembuf_mapping m;

		for (int o = 0; o < OVERLAYS; o++)
			engine_paint(engine, ov_engine[o], o, n);

		memset(layers, 0, sizeof(layers));
		layers[0] = (struct gk_layer){ .fb = &primary, .zpos = -1,
					       .alpha = 0xffff, .blend = -1 };
		for (int o = 0; o < OVERLAYS; o++)
			layers[1 + o] = (struct gk_layer){
				.fb = &ov[o], .x = 96 + o * 200 + n * 16, .y = 96 + o * 120,
				/* The last overlay goes under the others after frame 1. */
				.zpos = n >= 2 && o == 2 ? 1 : o + 1 + (n >= 2 && o < 2),
				.alpha = o == 1 ? 0xc000 : 0xffff,
				.blend = o == 2 ? 1 : -1,	/* coverage */
			};
		igt_assert_eq(gk_commit(&k, layers, 1 + OVERLAYS, &wb, 0), 0);
		save_ppm(dir, n, &wb);

		/*
		 * The display read each overlay where the engine wrote it: the
		 * engine's object has the display's mapping; anything else
		 * would have been a copy.
		 */
		for (int o = 0; o < OVERLAYS; o++) {
			igt_assert_eq(gembuf_find_mapping(engine, ov_engine[o],
							  GEMBUF_MAPPING_IOMMU, &m), 1);
			if (gembuf_find_mapping(engine, ov_engine[o],
						GEMBUF_MAPPING_KERNEL, &m) != 1 ||
			    strcmp(m.device, "gembuf"))
				copies++;
		}
		igt_info("gembuf_demo: frame %d composed and written back\n", n);
	}

	gk_disable(&k);
	for (int o = 0; o < OVERLAYS; o++) {
		gk_fb_destroy(&k, &ov[o]);
		gem_close(engine, ov_engine[o]);
	}
	gk_fb_destroy(&k, &wb);
	gk_fb_destroy(&k, &primary);
	printf("gembuf_demo: %d frames, primary XRGB8888 + overlays XRGB8888, XRGB8888, ARGB8888 (coverage), writeback XRGB8888, copies made = %u\n",
	       FRAMES, copies);
}
