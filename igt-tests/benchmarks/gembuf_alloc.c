// SPDX-License-Identifier: MIT
/*
 * gembuf_alloc: the cost of allocating and freeing a gembuf object of 4
 * KiB, 1, 8, 64 and 256 MiB against a dma-buf of the same size from the
 * dma-heaps system heap, and of a PRIME export plus import from one file
 * of a device to another file of it, gembuf's engine against vgem, in
 * microseconds; and the kernel memory each keeps for a 1 MiB buffer
 * beyond its pages, in KiB.
 *
 * Allocation: one timed round is GEM_CREATE on the engine's file (its
 * memory is then chosen for the engine's SMMU), a CPU mapping of the
 * object whose first write allocates the memory (gembuf allocates at
 * first use), munmap() and GEM_CLOSE of the last handle, which frees the
 * object, against DMA_HEAP_IOCTL_ALLOC, the same mapping, write and
 * munmap() of the dma-buf, and close() of its only fd, which frees it
 * (the release runs before close() returns).  Both give the caller a new
 * buffer of zeroed system pages, taken largest chunks first, map it for
 * the CPU and for no device (no IOMMU entry); freeing gives the pages
 * back.  The chunks differ (gembuf
 * takes 2 MiB blocks for the SMMU, and below that chunks as large as the
 * page allocator has; the heap 1 MiB, 64 KiB and 4 KiB), which is part
 * of what each costs, not of the method.  A run times sizes[].rounds
 * rounds of one size on each side and gives their mean: 200 at 4 KiB
 * down to 2 at 256 MiB, which keeps the benchmark short.  One more row,
 * not compared, times GEM_CREATE and GEM_CLOSE of 4 KiB with no use, so
 * no memory: what a GEM object and its handle cost alone.
 *
 * PRIME: one round exports the object from one file (PRIME_HANDLE_TO_FD),
 * imports the fd on a second file of the same device (PRIME_FD_TO_HANDLE)
 * and closes the fd and the second handle.  On both sides the import
 * finds the exporter's own object and takes a handle to it: the same
 * work, the ratio compared.  A second row imports on gembuf's display
 * instead, another DRM device, which must make an object of its own for
 * its attachment to the engine's dma-buf (a GEM object belongs to one
 * device): vgem has
 * no second device to do the same, so that row is not compared with it;
 * the next gives what it costs more than the same-device round.
 *
 * Memory: MEM_OBJECTS buffers of 1 MiB are made and held on each side
 * (the benchmark wants 4 GiB available, so that no reclaim moves the
 * figures), and /proc/meminfo read before and after, the kernel's
 * per-CPU counters folded first (vm/stat_refresh): the memory no longer
 * free less the buffers' own pages, and the slab's growth (part of it),
 * each divided by MEM_OBJECTS, estimate what one buffer costs the kernel
 * besides its pages: gembuf's object, its physmem (whose one-chunk table is inline)
 * and the handle's entries; the heap's buffer, its table, the dma-buf
 * and its file, inode and dentry (no page tables: neither maps it).
 * These are estimates, not counts (the release kernel has no kmem
 * tracepoints to count with): pages on the per-CPU free lists are not
 * MemFree, slabs emptied by an earlier round are reused, and the frees
 * of the other side (some after an RCU grace period) may land in the
 * window; the two sides alternate which goes first.  Each of these
 * moves a total by up to some hundreds of KiB (a pcp batch), a few
 * hundred bytes per buffer over MEM_OBJECTS: only differences above that
 * mean anything.
 *
 * vgem is loaded with vcm=0 for this benchmark (qemu/guest/bench): on
 * the shmem helper, as upstream has it, so that the anchor does not move
 * with vgem's port to the GEM VCM helper gembuf is built on.
 *
 * Every case runs REPS times, the system heap or vgem (the anchor) and
 * gembuf alternating, after one untimed round of each; the table gives
 * the median, minimum and maximum of the runs, and of the ratio of each
 * run of gembuf to the anchor's run just before it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <linux/dma-heap.h>

#include "igt.h"
#include "bench.h"
#include "gembuf.h"

#define REPS		5
#define NSIZES		5
#define MEM_OBJECTS	1024
#define PRIME_SIZE	(8u << 20)
#define PRIME_ROUNDS	200
#define HEAP		"/dev/dma_heap/system"

static const struct {
	unsigned int kib;	/* size of the buffers */
	unsigned int rounds;	/* alloc+map+free rounds per run, each side */
} sizes[NSIZES] = {
	{ 4, 200 }, { 1024, 20 }, { 8192, 10 }, { 65536, 4 }, { 262144, 2 },
};

/* "4 KiB" or "64 MiB" */
static const char *size_name(unsigned int kib)
{
	static char buf[NSIZES][16];
	static unsigned int n;
	char *b = buf[n++ % NSIZES];

	if (kib < 1024)
		snprintf(b, sizeof(buf[0]), "%u KiB", kib);
	else
		snprintf(b, sizeof(buf[0]), "%u MiB", kib >> 10);
	return b;
}

/* Fold the per-CPU vmstat differences into the counters meminfo reads. */
static void stat_refresh(void)
{
	int fd = open("/proc/sys/vm/stat_refresh", O_WRONLY);

	igt_assert(fd >= 0);
	igt_assert_eq(write(fd, "1", 1), 1);
	close(fd);
}

/* A field of /proc/meminfo, in KiB. */
static long meminfo(const char *field)
{
	char line[128];
	size_t len = strlen(field);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	igt_assert(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, len) && line[len] == ':')
			v = atol(line + len + 1);
	fclose(f);
	igt_assert(v >= 0);
	return v;
}

/* Write the first byte of a CPU mapping of @size bytes at @p, and unmap it. */
static void touch(void *p, size_t size)
{
	igt_assert(p != MAP_FAILED);
	*(volatile char *)p = 1;
	igt_assert_eq(munmap(p, size), 0);
}

/*
 * KiB the kernel keeps per buffer beyond its pages (in @extra) and of
 * slab (in @slab), over MEM_OBJECTS buffers of 1 MiB from gembuf's
 * engine, each allocated by a write through a CPU mapping since gone
 * (@heap < 0), or from @heap, all held at once.
 */
static int engine = -1;

static void memory(int heap, double *extra, double *slab)
{
	long free0, slab0;
	int fds[MEM_OBJECTS];
	uint32_t h[MEM_OBJECTS];

	stat_refresh();
	free0 = meminfo("MemFree");
	slab0 = meminfo("Slab");
	for (int i = 0; i < MEM_OBJECTS; i++) {
		struct dma_heap_allocation_data a = {
			.len = 1 << 20, .fd_flags = O_RDWR | O_CLOEXEC,
		};

		if (heap < 0) {
			h[i] = gembuf_create(engine, 1 << 20, 0, GEMBUF_CACHE_WB);
			touch(gembuf_mmap(engine, h[i], 1 << 20), 1 << 20);
			continue;
		}
		igt_assert_eq(igt_ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &a), 0);
		fds[i] = a.fd;
	}
	stat_refresh();
	*extra = (double)(free0 - meminfo("MemFree") - MEM_OBJECTS * 1024) / MEM_OBJECTS;
	*slab = (double)(meminfo("Slab") - slab0) / MEM_OBJECTS;
	for (int i = 0; i < MEM_OBJECTS; i++) {
		if (heap < 0)
			gem_close(engine, h[i]);
		else
			igt_assert_eq(close(fds[i]), 0);
	}
}

/*
 * Mean seconds of @rounds GEM_CREATE, CPU mapping, first write, munmap()
 * and GEM_CLOSE of @size on the engine; with !@use only the create and
 * the close, so no memory.
 */
static double gembuf_alloc(size_t size, unsigned int rounds, bool use)
{
	double t = bench_now();

	for (unsigned int i = 0; i < rounds; i++) {
		uint32_t h = gembuf_create(engine, size, 0, GEMBUF_CACHE_WB);

		if (use)
			touch(gembuf_mmap(engine, h, size), size);
		gem_close(engine, h);
	}
	return (bench_now() - t) / rounds;
}

/* Mean seconds of @rounds DMA_HEAP_IOCTL_ALLOC + close() of @size on @heap. */
static double heap_alloc(int heap, size_t size, unsigned int rounds)
{
	double t = bench_now();

	for (unsigned int i = 0; i < rounds; i++) {
		struct dma_heap_allocation_data a = {
			.len = size, .fd_flags = O_RDWR | O_CLOEXEC,
		};

		igt_assert_eq(igt_ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &a), 0);
		touch(mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, a.fd, 0),
		      size);
		igt_assert_eq(close(a.fd), 0);
	}
	return (bench_now() - t) / rounds;
}

/*
 * Mean seconds of @rounds exports of @handle from @from, each imported
 * into @to (another file) and both ends closed.
 */
static double roundtrip(int from, uint32_t handle, int to, unsigned int rounds)
{
	double t = bench_now();

	for (unsigned int i = 0; i < rounds; i++) {
		int fd = prime_handle_to_fd(from, handle);
		uint32_t h = prime_fd_to_handle(to, fd);

		igt_assert_eq(close(fd), 0);
		gem_close(to, h);
	}
	return (bench_now() - t) / rounds;
}

static void row(const char *name, const double *v, double scale, const char *unit)
{
	bench_row("gembuf_alloc", 52, name, v, REPS, scale, unit);
}

igt_simple_main
{
	double g[NSIZES][REPS], h[NSIZES][REPS], r[NSIZES][REPS];
	double pg[REPS], pv[REPS], pr[REPS], px[REPS], pxd[REPS], n4[REPS];
	double mg[REPS], mh[REPS], sg[REPS], sh[REPS];
	struct rlimit nofile;
	int display, engine2, vgem, vgem2, heap;
	uint32_t eh, vh;
	struct utsname u;
	char name[64];

	display = gembuf_open_display();
	engine = gembuf_open_engine();
	engine2 = gembuf_open_engine();
	/* The memory case holds MEM_OBJECTS dma-buf fds of the heap... */
	igt_assert_eq(getrlimit(RLIMIT_NOFILE, &nofile), 0);
	if (nofile.rlim_cur < MEM_OBJECTS + 64 && nofile.rlim_max >= MEM_OBJECTS + 64) {
		nofile.rlim_cur = MEM_OBJECTS + 64;
		igt_assert_eq(setrlimit(RLIMIT_NOFILE, &nofile), 0);
	}
	igt_require_f(nofile.rlim_cur >= MEM_OBJECTS + 64, "too few fds\n");
	/* ... and their GiB without reclaim, which would move MemFree. */
	igt_require_f(meminfo("MemAvailable") > 4L * MEM_OBJECTS * 1024,
		      "less than 4 GiB available\n");
	vgem = __drm_open_driver(DRIVER_VGEM);
	igt_require_f(vgem >= 0, "no vgem\n");
	vgem2 = __drm_open_driver(DRIVER_VGEM);
	igt_assert(vgem2 >= 0);
	heap = open(HEAP, O_RDWR | O_CLOEXEC);
	igt_require_f(heap >= 0, "no dma-heaps system heap\n");

	/* The same two objects for every PRIME round; each exported once. */
	eh = gembuf_create(engine, PRIME_SIZE, 0, GEMBUF_CACHE_WB);
	vh = kmstest_dumb_create(vgem, PRIME_SIZE / 4096, 1024, 32, NULL, NULL);
	roundtrip(vgem, vh, vgem2, 1);
	roundtrip(engine, eh, engine2, 1);
	roundtrip(engine, eh, display, 1);
	gembuf_alloc(4096, 1, false);
	for (unsigned int s = 0; s < NSIZES; s++) {
		heap_alloc(heap, (size_t)sizes[s].kib << 10, 1);
		gembuf_alloc((size_t)sizes[s].kib << 10, 1, true);
	}

	for (unsigned int rep = 0; rep < REPS; rep++) {
		for (unsigned int s = 0; s < NSIZES; s++) {
			size_t size = (size_t)sizes[s].kib << 10;

			h[s][rep] = heap_alloc(heap, size, sizes[s].rounds);
			g[s][rep] = gembuf_alloc(size, sizes[s].rounds, true);
			r[s][rep] = g[s][rep] / h[s][rep];
		}
		n4[rep] = gembuf_alloc(4096, sizes[0].rounds, false);
		pv[rep] = roundtrip(vgem, vh, vgem2, PRIME_ROUNDS);
		pg[rep] = roundtrip(engine, eh, engine2, PRIME_ROUNDS);
		pr[rep] = pg[rep] / pv[rep];
		px[rep] = roundtrip(engine, eh, display, PRIME_ROUNDS);
		pxd[rep] = px[rep] - pg[rep];
		if (rep & 1) {
			memory(-1, &mg[rep], &sg[rep]);
			memory(heap, &mh[rep], &sh[rep]);
		} else {
			memory(heap, &mh[rep], &sh[rep]);
			memory(-1, &mg[rep], &sg[rep]);
		}
	}

	igt_assert_eq(uname(&u), 0);
	printf("gembuf_alloc: %d runs per case, anchor and gembuf alternating; alloc+map+free rounds per run",
	       REPS);
	for (unsigned int s = 0; s < NSIZES; s++)
		printf(" %u at %s%s", sizes[s].rounds, size_name(sizes[s].kib),
		       s < NSIZES - 1 ? "," : ";");
	printf(" %d PRIME rounds of %u MiB; kernel %s %s\n", PRIME_ROUNDS,
	       PRIME_SIZE >> 20, u.release, u.version);
	bench_table_header("gembuf_alloc", 52);
	for (unsigned int s = 0; s < NSIZES; s++) {
		const char *n = size_name(sizes[s].kib);

		snprintf(name, sizeof(name), "alloc+map+free %s, gembuf", n);
		row(name, g[s], 1e6, "us");
		snprintf(name, sizeof(name), "alloc+map+free %s, system heap (anchor)", n);
		row(name, h[s], 1e6, "us");
		snprintf(name, sizeof(name), "ratio alloc+map+free %s, gembuf / heap", n);
		row(name, r[s], 1, "x");
	}
	row("create+close 4 KiB, no memory, gembuf", n4, 1e6, "us");
	snprintf(name, sizeof(name), "PRIME export+import %u MiB, gembuf", PRIME_SIZE >> 20);
	row(name, pg, 1e6, "us");
	snprintf(name, sizeof(name), "PRIME export+import %u MiB, vgem (anchor)", PRIME_SIZE >> 20);
	row(name, pv, 1e6, "us");
	row("ratio PRIME, gembuf / vgem", pr, 1, "x");
	row("PRIME engine to display (an attached import), gembuf", px, 1e6, "us");
	row("PRIME to display, more than on the engine (an import of its own)", pxd, 1e6, "us");
	row("kernel memory per 1 MiB buffer (estimate), gembuf", mg, 1, "KiB");
	row("kernel memory per 1 MiB buffer (estimate), heap", mh, 1, "KiB");
	row("slab per 1 MiB buffer (estimate), gembuf", sg, 1, "KiB");
	row("slab per 1 MiB buffer (estimate), heap", sh, 1, "KiB");

	close(heap);
	gem_close(engine, eh);
	igt_assert_eq(kmstest_dumb_destroy(vgem, vh), 0);
	drm_close_driver(vgem2);
	drm_close_driver(vgem);
	drm_close_driver(engine2);
	drm_close_driver(engine);
	drm_close_driver(display);
}
