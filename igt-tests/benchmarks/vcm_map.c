// SPDX-License-Identifier: MIT
/*
 * vcm_map: map and unmap a 64 MiB buffer for QEMU's edu device through an
 * IOMMU VCM and, in the same run, through the DMA API, and print both
 * times, their ratio and the IOMMU leaf entries each mapping uses.
 *
 * The DMA API side is a dma-heaps system-heap buffer attached to edu:
 * mapping the attachment is dma_map_sgtable() on the heap's pages.  The
 * kernel side lives in the vcm_edu module's debugfs file, which takes the
 * dma-buf fd of this process and the iteration count.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/dma-heap.h>

#define BENCH_FILE	"/sys/kernel/debug/vcm_edu/bench"
#define HEAP		"/dev/dma_heap/system"
#define SIZE		(64u << 20)

static int fail(const char *what)
{
	fprintf(stderr, "vcm_map: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	struct dma_heap_allocation_data alloc = {
		.len = SIZE,
		.fd_flags = O_RDWR | O_CLOEXEC,
	};
	unsigned int iters = argc > 1 ? strtoul(argv[1], NULL, 0) : 20;
	unsigned long long vcm_ns, dma_ns;
	size_t size, vcm_ptes, dma_ptes;
	char cmd[32], out[512];
	int heap, bench, n;
	ssize_t len;

	heap = open(HEAP, O_RDWR);
	if (heap < 0)
		return fail(HEAP);
	if (ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &alloc))
		return fail("DMA_HEAP_IOCTL_ALLOC");

	bench = open(BENCH_FILE, O_RDWR);
	if (bench < 0)
		return fail(BENCH_FILE);
	n = snprintf(cmd, sizeof(cmd), "%u %u", alloc.fd, iters);
	if (write(bench, cmd, n) != n)
		return fail("running the benchmark");
	len = pread(bench, out, sizeof(out) - 1, 0);
	if (len <= 0)
		return fail("reading the results");
	out[len] = '\0';

	if (sscanf(out, "size %zu iterations %u vcm_ns %llu vcm_ptes %zu "
		   "dma_api_ns %llu dma_api_ptes %zu",
		   &size, &iters, &vcm_ns, &vcm_ptes, &dma_ns, &dma_ptes) != 6) {
		fprintf(stderr, "vcm_map: unexpected results:\n%s", out);
		return 1;
	}

	printf("vcm_map: %zu MiB, %u map+unmap cycles each\n", size >> 20, iters);
	printf("vcm_map: IOMMU VCM: %.3f ms per cycle, %zu IOMMU entries\n",
	       vcm_ns / 1e6 / iters, vcm_ptes);
	printf("vcm_map: DMA API:   %.3f ms per cycle, %zu IOMMU entries\n",
	       dma_ns / 1e6 / iters, dma_ptes);
	printf("vcm_map: ratio DMA API / VCM: time %.2f, entries %.2f\n",
	       (double)dma_ns / vcm_ns, (double)dma_ptes / vcm_ptes);
	return 0;
}
