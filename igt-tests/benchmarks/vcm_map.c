// SPDX-License-Identifier: MIT
/*
 * vcm_map: the cost of mapping and unmapping a buffer of 1, 2, 16, 64 and
 * 256 MiB for QEMU's edu device as gembuf's engine maps its objects (a
 * DMA VCM, in memory allocated for it) against the DMA API on two buffers
 * of the dma-heaps system heap, one allocated on fresh memory and one on
 * memory this program ages first, in microseconds per map+unmap, with the
 * IOMMU leaf entries VCM's mapping uses.
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
 * import, which an importer does not do).
 *
 * Both sides map the same number of bytes of system pages, readable and
 * writable, for the same device through the same DMA API into the same
 * DMA domain of the SMMU, and unmap them with the IOTLB invalidation that
 * takes.  Neither allocates or frees the memory inside the timing: the
 * module makes the physmem and the reservation before it, this program
 * the dma-bufs once for all runs (each side allocates its table of
 * segments per mapping).  What differs is the chunks alone: iommu-dma
 * aligns an IOVA range to its size and maps it with one iommu_map_sg(),
 * which joins physically contiguous segments, so 2 MiB chunks take one
 * block entry each, and so do two of the heap's 1 MiB chunks that are
 * the two halves of one 2 MiB block of memory, one after the other;
 * every other chunk of the heap takes a page entry per 4 KiB.
 *
 * Hence two anchors.  The heap's chunks are only as large as its orders
 * (1 MiB and 64 KiB, orders 8 and 4, tried without reclaim or retry,
 * then 4 KiB); two of them make a 2 MiB block only by luck of the buddy
 * allocator.  A fresh one keeps its free memory in blocks of 4 MiB, so
 * for order-8 requests in a row it splits a larger block, hands out the
 * lower half and keeps the upper one at the head of the order-8 free
 * list, which the next request takes: consecutive chunks are buddy
 * pairs, 2 MiB aligned, and the mapping is as good as VCM's.  "DMA API
 * fresh" is that best case of the heap, its buffers allocated before
 * anything else here.  On a system whose memory has been in use, the
 * free order-8 blocks are scattered and the heap's 1 MiB chunks take 256
 * page entries each.  "DMA API aged" reproduces that: just before the
 * aged buffer of a size S, this program allocates 2 * S / 1 MiB +
 * AGE_MARGIN dma-bufs of 1 MiB (order-8 blocks, buddy pairs one after
 * the other) and closes every other one, so that each block freed has
 * its buddy held and stays a free order-8 block; the heap takes order-8
 * blocks from that free list before it splits a larger one, and no two
 * blocks on it are buddies (they would have merged), so its S bytes
 * come in 1 MiB chunks none of which forms a 2 MiB block with another.
 * The held buffers stay open until that size's runs are done.  Before
 * the table, a line gives for each size how much of the free memory in
 * blocks of 2 MiB or more the aged buffer's allocation took, from
 * /proc/buddyinfo before and after it: 0 when every chunk came from a
 * free 1 MiB block (another task's activity in that window would move
 * it).  At 1 MiB the two anchors are the same: one chunk, 256 entries.
 * The target, a DMA API at least 20 times slower than VCM at 64 MiB from
 * the chunk sizes alone, is read against the aged anchor; the fresh one
 * shows the heap at its best, not what it can be relied on for.
 *
 * A run is one write: sizes[].iters cycles of the VCM, then as many of
 * the DMA API; fewer cycles at larger sizes (20 at 1 MiB down to 2 at
 * 256 MiB) keep the benchmark short.  The sizes run one after the other.
 * For each, after one untimed write of one cycle on each buffer, REPS
 * times: a write on the fresh buffer (the VCM and fresh DMA API rows),
 * then one on the aged buffer of which only the DMA API time is kept
 * (its VCM cycles repeat the first write's on a physmem of their own),
 * so the runs alternate VCM, DMA API fresh, DMA API aged.  The table
 * gives the median, minimum and maximum of the runs, and of the ratio
 * of each VCM run to the two DMA API runs of its round.
 *
 * Memory: at 256 MiB this holds the fresh buffers of every size (339
 * MiB), 528 MiB of 1 MiB buffers while aging, then 264 MiB of them and
 * the aged buffer of 256 MiB, and the module a physmem of 256 MiB
 * during a write: about 1.1 GiB of the guest's 6 GiB (qemu/boot.sh), so
 * every size has its aged anchor.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "igt.h"
#include "bench.h"
#include "gembuf.h"

#define BENCH_FILE	"/sys/kernel/debug/vcm_edu/bench"
#define BUDDYINFO	"/proc/buddyinfo"
#define REPS		5
#define NSIZES		5
#define MIB		(1ull << 20)
#define AGE_MARGIN	16	/* 1 MiB buffers made beyond two per MiB aged */

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

/* The 1 MiB buffers age_heap() makes for a buffer of @mib MiB. */
static unsigned int age_count(unsigned int mib)
{
	return 2 * mib + AGE_MARGIN;
}

/*
 * Age the system heap for a buffer of @size: make age_count() dma-bufs of
 * 1 MiB in @held, each an order-8 block, then close every other one, so
 * that the blocks freed have their buddies held and stay free order-8
 * blocks for the heap's next buffer.  All are made before any is closed:
 * a block freed at once would be the next one handed out.  Returns how
 * many are held, at the start of @held.
 */
static unsigned int age_heap(size_t size, int *held)
{
	unsigned int n = age_count(size / MIB), kept = 0;

	for (unsigned int i = 0; i < n; i++)
		held[i] = gembuf_heap_alloc("system", MIB);
	for (unsigned int i = 0; i < n; i++) {
		if (i % 2)
			close(held[i]);
		else
			held[kept++] = held[i];
	}
	return kept;
}

/*
 * Free memory in blocks of 2 MiB or more, all zones, in bytes, from
 * /proc/buddyinfo ("Node 0, zone <name> <free blocks of order 0> <order
 * 1> ...").
 */
static long long free_in_2m_blocks(void)
{
	long long page = sysconf(_SC_PAGESIZE), bytes = 0;
	char line[512];
	FILE *f;

	f = fopen(BUDDYINFO, "r");
	igt_assert_f(f, "%s: %s\n", BUDDYINFO, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "zone");
		unsigned long long blocks;
		unsigned int order = 0;
		int used;

		if (!p)
			continue;
		p += strlen("zone");
		p += strspn(p, " ");
		p += strcspn(p, " ");	/* the zone's name */
		while (sscanf(p, "%llu%n", &blocks, &used) == 1) {
			if ((page << order) >= (long long)(2 * MIB))
				bytes += blocks * (page << order);
			order++;
			p += used;
		}
	}
	fclose(f);
	return bytes;
}

static void row(const char *name, const double *v, double scale, const char *unit)
{
	bench_row("vcm_map", 44, name, v, REPS, scale, unit);
}

igt_simple_main
{
	double vcm[NSIZES][REPS], dma[NSIZES][REPS], dma_aged[NSIZES][REPS];
	double ratio[NSIZES][REPS], speedup[NSIZES][REPS];
	double aratio[NSIZES][REPS], aspeedup[NSIZES][REPS];
	double vptes[NSIZES][REPS];
	unsigned int max_held = 0;
	long long split[NSIZES];
	int buf[NSIZES], bench, *held;
	struct rlimit nofile;
	bool all_aged = true;
	struct utsname u;
	char name[64];

	bench = open(BENCH_FILE, O_RDWR | O_CLOEXEC);
	igt_require_f(bench >= 0, "no %s: %s\n", BENCH_FILE, strerror(errno));
	/* Aging holds a dma-buf fd per 1 MiB made. */
	for (unsigned int s = 0; s < NSIZES; s++)
		if (age_count(sizes[s].mib) > max_held)
			max_held = age_count(sizes[s].mib);
	igt_assert_eq(getrlimit(RLIMIT_NOFILE, &nofile), 0);
	if (nofile.rlim_cur < max_held + 64 && nofile.rlim_max >= max_held + 64) {
		nofile.rlim_cur = max_held + 64;
		igt_assert_eq(setrlimit(RLIMIT_NOFILE, &nofile), 0);
	}
	igt_require_f(nofile.rlim_cur >= max_held + 64, "too few fds\n");
	held = calloc(max_held, sizeof(*held));
	igt_assert(held);

	/* The fresh anchor's buffers first, before any aging. */
	for (unsigned int s = 0; s < NSIZES; s++)
		buf[s] = gembuf_heap_alloc("system", sizes[s].mib * MIB);

	for (unsigned int s = 0; s < NSIZES; s++) {
		size_t size = sizes[s].mib * MIB;
		unsigned int nheld;
		long long before;
		int aged;

		nheld = age_heap(size, held);
		before = free_in_2m_blocks();
		aged = gembuf_heap_alloc("system", size);
		split[s] = before - free_in_2m_blocks();
		if (split[s] > 0)
			all_aged = false;

		run(bench, buf[s], size, 1);
		run(bench, aged, size, 1);
		for (unsigned int rep = 0; rep < REPS; rep++) {
			struct result r = run(bench, buf[s], size, sizes[s].iters);
			/* Only its DMA API time: its VCM repeats r's. */
			struct result a = run(bench, aged, size, sizes[s].iters);

			vcm[s][rep] = r.vcm;
			dma[s][rep] = r.dma;
			dma_aged[s][rep] = a.dma;
			ratio[s][rep] = r.vcm / r.dma;
			speedup[s][rep] = r.dma / r.vcm;
			aratio[s][rep] = r.vcm / a.dma;
			aspeedup[s][rep] = a.dma / r.vcm;
			vptes[s][rep] = r.vcm_ptes;
		}

		close(aged);
		for (unsigned int i = 0; i < nheld; i++)
			close(held[i]);
	}

	igt_assert_eq(uname(&u), 0);
	printf("vcm_map: %d runs per size, each VCM, DMA API fresh, DMA API aged;", REPS);
	printf(" map+unmap cycles per run");
	for (unsigned int s = 0; s < NSIZES; s++)
		printf(" %u at %u MiB%s", sizes[s].iters, sizes[s].mib,
		       s < NSIZES - 1 ? "," : ";");
	printf(" kernel %s %s\n", u.release, u.version);
	printf("vcm_map: aged buffers, free memory in blocks of 2 MiB or more they took");
	printf(" (0: all chunks from free 1 MiB blocks):");
	for (unsigned int s = 0; s < NSIZES; s++)
		printf(" %lld KiB at %u MiB%s", split[s] / 1024, sizes[s].mib,
		       s < NSIZES - 1 ? "," : "\n");
	if (!all_aged)
		printf("vcm_map: an aged buffer took from 2 MiB blocks: some may map as blocks\n");
	bench_table_header("vcm_map", 44);
	for (unsigned int s = 0; s < NSIZES; s++) {
		snprintf(name, sizeof(name), "map+unmap %u MiB, VCM", sizes[s].mib);
		row(name, vcm[s], 1e6, "us");
		snprintf(name, sizeof(name), "map+unmap %u MiB, DMA API fresh (anchor)",
			 sizes[s].mib);
		row(name, dma[s], 1e6, "us");
		snprintf(name, sizeof(name), "map+unmap %u MiB, DMA API aged (anchor)",
			 sizes[s].mib);
		row(name, dma_aged[s], 1e6, "us");
		snprintf(name, sizeof(name), "ratio map+unmap %u MiB, VCM / DMA API fresh",
			 sizes[s].mib);
		row(name, ratio[s], 1, "x");
		snprintf(name, sizeof(name), "speed-up %u MiB, DMA API fresh / VCM", sizes[s].mib);
		row(name, speedup[s], 1, "x");
		snprintf(name, sizeof(name), "ratio map+unmap %u MiB, VCM / DMA API aged",
			 sizes[s].mib);
		row(name, aratio[s], 1, "x");
		snprintf(name, sizeof(name), "speed-up %u MiB, DMA API aged / VCM", sizes[s].mib);
		row(name, aspeedup[s], 1, "x");
		snprintf(name, sizeof(name), "IOMMU entries %u MiB, VCM", sizes[s].mib);
		row(name, vptes[s], 1, "entries");
	}

	for (unsigned int s = 0; s < NSIZES; s++)
		close(buf[s]);
	free(held);
	close(bench);
}
