// SPDX-License-Identifier: MIT
/*
 * vcm_map: the cost of mapping and unmapping a buffer of 1, 2, 16, 64 and
 * 256 MiB for QEMU's edu device as gembuf's engine maps its objects (a
 * DMA VCM, in memory allocated for it) against the DMA API on a buffer of
 * the dma-heaps system heap, in microseconds per map+unmap, with the
 * IOMMU leaf entries each mapping uses.
 *
 * The kernel side is the vcm_edu module's debugfs file vcm_edu/bench.
 * Written "<fd> <iters>", it takes the module's own edu and, for the
 * dma-buf of that fd of this process, times first @iters vcm_back() +
 * vcm_unback() of a reservation as large as the dma-buf in a DMA VCM of
 * edu, behind a physmem of that size allocated for what that VCM needs
 * (vcm_phys_alloc_for(): 2 MiB chunks for the SMMU's blocks, and below
 * them chunks as large as the page allocator has); backing is
 * dma_map_sgtable() of those chunks.  Then @iters
 * dma_buf_map_attachment() + dma_buf_unmap_attachment() of the dma-buf
 * attached to edu: for the system heap, dma_map_sgtable() and
 * dma_unmap_sgtable() of the heap's 1 MiB, 64 KiB and 4 KiB chunks.
 * Read, it gives "size <bytes> iterations <n>", "vcm_ns <ns> vcm_ptes
 * <n>" and "dma_api_ns <ns>", the entries counted on VCM's first mapping
 * (those of the heap's mapping would take reading the pages of an
 * import, which an importer does not do: the heap's chunks are at most
 * 1 MiB, so a page entry per 4 KiB).
 *
 * Both sides map the same number of bytes of system pages, readable and
 * writable, for the same device through the same DMA API into the same
 * DMA domain of the SMMU, and unmap them with the IOTLB invalidation that
 * takes.  Neither allocates or frees the memory inside the timing: the
 * module makes the physmem and the reservation before it, this program
 * the dma-buf once for all runs (each side allocates its table of
 * segments per mapping).  What differs is the chunks alone: iommu-dma
 * aligns an IOVA range to its size and maps it with one iommu_map_sg(),
 * so 2 MiB chunks take one block entry each where the heap's chunks take
 * a page entry per 4 KiB.  The target is a DMA
 * API at least 20 times slower than VCM at 64 MiB.
 *
 * Each size has its own system-heap dma-buf, allocated once and used for
 * every run of that size.  A run is one write: sizes[].iters cycles of
 * the VCM, then as many of the DMA API, so the two alternate from run to
 * run (VCM, DMA API, VCM, ...); fewer cycles at larger sizes (20 at 1 MiB
 * down to 2 at 256 MiB) keep the benchmark short.  Every size runs REPS
 * times, after one untimed write of one cycle; the table gives the
 * median, minimum and maximum of the runs, and of the ratio of each
 * run's VCM time to its DMA API time.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "igt.h"
#include "bench.h"
#include "gembuf.h"

#define BENCH_FILE	"/sys/kernel/debug/vcm_edu/bench"
#define REPS		5
#define NSIZES		5

static const struct {
	unsigned int mib;	/* size of the buffer */
	unsigned int iters;	/* map+unmap cycles per run, each side */
} sizes[NSIZES] = {
	{ 1, 20 }, { 2, 20 }, { 16, 5 }, { 64, 4 }, { 256, 2 },
};

struct result {
	double vcm, dma;		/* seconds per map+unmap */
	double vcm_ptes;		/* IOMMU leaf entries of VCM's mapping */
};

/* One write of the benchmark file: @iters cycles of each side on @buf. */
static struct result run(int bench, int buf, size_t size, unsigned int iters)
{
	unsigned long long vcm_ns, dma_ns;
	size_t got_size, vcm_ptes;
	unsigned int got_iters;
	char cmd[32], out[512];
	struct result r;
	ssize_t len;
	int n;

	n = snprintf(cmd, sizeof(cmd), "%d %u", buf, iters);
	igt_assert_f(write(bench, cmd, n) == n, "%s \"%s\": %s\n",
		     BENCH_FILE, cmd, strerror(errno));
	len = pread(bench, out, sizeof(out) - 1, 0);
	igt_assert_f(len > 0, "reading %s: %s\n", BENCH_FILE,
		     len ? strerror(errno) : "empty");
	out[len] = '\0';
	igt_assert_f(sscanf(out, "size %zu iterations %u vcm_ns %llu vcm_ptes %zu "
			    "dma_api_ns %llu",
			    &got_size, &got_iters, &vcm_ns, &vcm_ptes, &dma_ns) == 5,
		     "unexpected results from %s:\n%s", BENCH_FILE, out);
	igt_assert_eq_u64(got_size, size);
	igt_assert_eq_u32(got_iters, iters);
	igt_assert(vcm_ns && dma_ns);
	r.vcm = vcm_ns / 1e9 / iters;
	r.dma = dma_ns / 1e9 / iters;
	r.vcm_ptes = vcm_ptes;
	return r;
}

static void row(const char *name, const double *v, double scale, const char *unit)
{
	bench_row("vcm_map", 44, name, v, REPS, scale, unit);
}

igt_simple_main
{
	double vcm[NSIZES][REPS], dma[NSIZES][REPS], ratio[NSIZES][REPS];
	double speedup[NSIZES][REPS];
	double vptes[NSIZES][REPS];
	int buf[NSIZES], bench;
	struct utsname u;
	char name[64];

	bench = open(BENCH_FILE, O_RDWR | O_CLOEXEC);
	igt_require_f(bench >= 0, "no %s: %s\n", BENCH_FILE, strerror(errno));
	for (unsigned int s = 0; s < NSIZES; s++) {
		buf[s] = gembuf_heap_alloc("system", (size_t)sizes[s].mib << 20);
		run(bench, buf[s], (size_t)sizes[s].mib << 20, 1);
	}

	for (unsigned int rep = 0; rep < REPS; rep++) {
		for (unsigned int s = 0; s < NSIZES; s++) {
			struct result r = run(bench, buf[s], (size_t)sizes[s].mib << 20,
					      sizes[s].iters);

			vcm[s][rep] = r.vcm;
			dma[s][rep] = r.dma;
			ratio[s][rep] = r.vcm / r.dma;
			speedup[s][rep] = r.dma / r.vcm;
			vptes[s][rep] = r.vcm_ptes;
		}
	}

	igt_assert_eq(uname(&u), 0);
	printf("vcm_map: %d runs per size, each VCM then DMA API; map+unmap cycles per run",
	       REPS);
	for (unsigned int s = 0; s < NSIZES; s++)
		printf(" %u at %u MiB%s", sizes[s].iters, sizes[s].mib,
		       s < NSIZES - 1 ? "," : ";");
	printf(" kernel %s %s\n", u.release, u.version);
	bench_table_header("vcm_map", 44);
	for (unsigned int s = 0; s < NSIZES; s++) {
		snprintf(name, sizeof(name), "map+unmap %u MiB, VCM", sizes[s].mib);
		row(name, vcm[s], 1e6, "us");
		snprintf(name, sizeof(name), "map+unmap %u MiB, DMA API (anchor)", sizes[s].mib);
		row(name, dma[s], 1e6, "us");
		snprintf(name, sizeof(name), "ratio map+unmap %u MiB, VCM / DMA API", sizes[s].mib);
		row(name, ratio[s], 1, "x");
		snprintf(name, sizeof(name), "speed-up %u MiB, DMA API / VCM", sizes[s].mib);
		row(name, speedup[s], 1, "x");
		snprintf(name, sizeof(name), "IOMMU entries %u MiB, VCM", sizes[s].mib);
		row(name, vptes[s], 1, "entries");
	}

	for (unsigned int s = 0; s < NSIZES; s++)
		close(buf[s]);
	close(bench);
}
