// SPDX-License-Identifier: MIT
/*
 * gembuf_alloc: time allocation plus free of 1, 8 and 64 MiB buffers from
 * gembuf against the dma-heaps system heap, and a PRIME export plus
 * import round trip (engine to display) against vgem (to itself), all in
 * one run, and print each pair with its ratio.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <xf86drm.h>
#include <drm/gembuf_drm.h>
#include <linux/dma-heap.h>

#define ROUNDS 20

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int open_driver(const char *fmt, int base, const char *name)
{
	char path[64];

	for (int i = 0; i < 16; i++) {
		drmVersionPtr v;
		int fd;

		snprintf(path, sizeof(path), fmt, base + i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		v = drmGetVersion(fd);
		if (v && !strcmp(v->name, name)) {
			drmFreeVersion(v);
			return fd;
		}
		if (v)
			drmFreeVersion(v);
		close(fd);
	}
	fprintf(stderr, "gembuf_alloc: no %s device\n", name);
	exit(1);
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static double gembuf_alloc(int fd, size_t size)
{
	double t = now();

	for (int i = 0; i < ROUNDS; i++) {
		struct drm_gembuf_gem_create c = { .size = size };
		struct drm_gem_close cl = {};

		if (drmIoctl(fd, DRM_IOCTL_GEMBUF_GEM_CREATE, &c))
			die("GEM_CREATE");
		cl.handle = c.handle;
		if (drmIoctl(fd, DRM_IOCTL_GEM_CLOSE, &cl))
			die("GEM_CLOSE");
	}
	return (now() - t) / ROUNDS;
}

static double heap_alloc(int heap, size_t size)
{
	double t = now();

	for (int i = 0; i < ROUNDS; i++) {
		struct dma_heap_allocation_data a = {
			.len = size, .fd_flags = O_RDWR | O_CLOEXEC,
		};

		if (ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &a))
			die("DMA_HEAP_IOCTL_ALLOC");
		close(a.fd);
	}
	return (now() - t) / ROUNDS;
}

static uint32_t create_dumb(int fd, size_t size)
{
	struct drm_mode_create_dumb d = { .width = size / 4096, .height = 1024, .bpp = 32 };

	if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &d))
		die("CREATE_DUMB");
	return d.handle;
}

/* Export from @from, import into @to, close both ends. */
static double roundtrip(int from, uint32_t handle, int to)
{
	double t = now();

	for (int i = 0; i < ROUNDS; i++) {
		struct drm_gem_close cl = {};
		uint32_t h;
		int fd;

		if (drmPrimeHandleToFD(from, handle, DRM_CLOEXEC, &fd))
			die("HANDLE_TO_FD");
		if (drmPrimeFDToHandle(to, fd, &h))
			die("FD_TO_HANDLE");
		close(fd);
		if (h != handle || from != to) {
			cl.handle = h;
			drmIoctl(to, DRM_IOCTL_GEM_CLOSE, &cl);
		}
	}
	return (now() - t) / ROUNDS;
}

int main(void)
{
	static const size_t sizes[] = { 1 << 20, 8 << 20, 64 << 20 };
	int display = open_driver("/dev/dri/card%d", 0, "gembuf");
	int engine = open_driver("/dev/dri/renderD%d", 128, "gembuf_dma");
	int vgem = open_driver("/dev/dri/card%d", 0, "vgem");
	int vgem2 = open_driver("/dev/dri/card%d", 0, "vgem");
	int heap = open("/dev/dma_heap/system", O_RDWR);
	struct drm_gembuf_gem_create c = { .size = 8 << 20 };
	uint32_t vh;
	double g, h;

	if (heap < 0)
		die("/dev/dma_heap/system");
	for (unsigned int i = 0; i < 3; i++) {
		g = gembuf_alloc(display, sizes[i]);
		h = heap_alloc(heap, sizes[i]);
		printf("gembuf_alloc: alloc+free %2zu MiB: gembuf %.3f ms, system heap %.3f ms, ratio gembuf/heap %.2f\n",
		       sizes[i] >> 20, g * 1e3, h * 1e3, g / h);
	}

	if (drmIoctl(engine, DRM_IOCTL_GEMBUF_GEM_CREATE, &c))
		die("GEM_CREATE");
	vh = create_dumb(vgem, 8 << 20);
	g = roundtrip(engine, c.handle, display);
	h = roundtrip(vgem, vh, vgem2);
	printf("gembuf_alloc: PRIME export+import 8 MiB: gembuf engine->display %.3f ms, vgem file->file %.3f ms, ratio gembuf/vgem %.2f\n",
	       g * 1e3, h * 1e3, g / h);
	return 0;
}
