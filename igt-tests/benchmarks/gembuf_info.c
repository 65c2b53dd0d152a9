// SPDX-License-Identifier: MIT
/*
 * gembuf_info: the cost of debugfs's report of an object (gembuf_object)
 * on the largest object the module allows (1 GiB) made of 4 KiB chunks,
 * against the same report of a 1 MiB one, in microseconds.  The report
 * walks every chunk of the object to build its histogram, so its cost
 * must grow with the number of chunks and no faster: a walk that restarts
 * from the first chunk for every chunk (as vcm_get_next_phys_addr() once
 * did) costs 10^10 steps at 1 GiB.
 *
 * gembuf's own objects come in the largest chunks the devices map (2 MiB
 * here), so the 4 KiB chunks come from a udmabuf: memfd pages, faulted in
 * shuffled order so that few of them are physically adjacent, imported by
 * the engine, whose object then lists one chunk per run of adjacent
 * pages.  The 1 MiB anchor is made the same way.  One timed round is one
 * report without mappings of the engine's handle; a run times ROUNDS of
 * them on each object and gives their mean.  The table gives the median,
 * minimum and maximum of REPS runs (1 MiB and 1 GiB alternating), the
 * chunk counts and the ratio of the two times against the ratio of the
 * chunk counts: near 1 for a linear walk.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/udmabuf.h>

#include "igt.h"
#include "bench.h"
#include "gembuf.h"

#define REPS		5
#define ROUNDS		4
#define SMALL		(1ull << 20)
#define LARGE		(1ull << 30)
#define LIMIT		"/sys/module/udmabuf/parameters/size_limit_mb"

/* A udmabuf of @size over memfd pages faulted in shuffled order. */
static int shuffled_udmabuf(int dev, uint64_t size)
{
	struct udmabuf_create c = { .size = size };
	size_t n = size / 4096;
	size_t *order = malloc(n * sizeof(*order));
	int memfd, fd;

	igt_assert(order);
	memfd = memfd_create("gembuf_info", MFD_ALLOW_SEALING);
	igt_assert_fd(memfd);
	igt_assert_eq(ftruncate(memfd, size), 0);
	igt_assert_eq(fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	srand(7);
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = rand() % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		igt_assert_eq(pwrite(memfd, "g", 1, order[i] * 4096), 1);
	free(order);
	c.memfd = memfd;
	fd = ioctl(dev, UDMABUF_CREATE, &c);
	close(memfd);
	return fd;
}

/* Mean seconds of @rounds reports of @h on @fd; its chunk count in @chunks. */
static double info(int fd, uint32_t h, unsigned int rounds, uint32_t *chunks)
{
	struct gembuf_report i;
	double t = bench_now();

	/* flags is in and out: each call starts from a clean struct. */
	for (unsigned int r = 0; r < rounds; r++) {
		i = (struct gembuf_report){ .handle = h };
		igt_assert_eq(__gembuf_info(fd, &i, NULL, 0), 0);
	}
	t = (bench_now() - t) / rounds;
	*chunks = i.num_chunks;
	return t;
}

static void row(const char *name, const double *v, double scale, const char *unit)
{
	bench_row("gembuf_info", 44, name, v, REPS, scale, unit);
}

igt_simple_main
{
	double s[REPS], l[REPS], r[REPS], lin[REPS];
	uint32_t hs, hl, cs = 0, cl = 0;
	int engine, dev, fs, fl, lim;
	struct utsname u;

	engine = gembuf_open_engine();
	dev = open("/dev/udmabuf", O_RDWR);
	igt_require_f(dev >= 0, "no /dev/udmabuf\n");
	/* udmabuf stops at 64 MiB unless told otherwise. */
	lim = open(LIMIT, O_WRONLY);
	igt_require_f(lim >= 0, "cannot raise udmabuf's size limit\n");
	igt_assert_eq(write(lim, "2048", 4), 4);
	close(lim);

	fs = shuffled_udmabuf(dev, SMALL);
	fl = shuffled_udmabuf(dev, LARGE);
	igt_assert_fd(fs);
	igt_assert_fd(fl);
	hs = prime_fd_to_handle(engine, fs);
	hl = prime_fd_to_handle(engine, fl);
	info(engine, hs, 1, &cs);
	info(engine, hl, 1, &cl);

	for (unsigned int rep = 0; rep < REPS; rep++) {
		s[rep] = info(engine, hs, ROUNDS, &cs);
		l[rep] = info(engine, hl, ROUNDS, &cl);
		r[rep] = l[rep] / s[rep];
		lin[rep] = r[rep] / ((double)cl / cs);
	}

	igt_assert_eq(uname(&u), 0);
	printf("gembuf_info: %d runs per case, 1 MiB and 1 GiB alternating, %d reports per run; chunks %u at 1 MiB, %u at 1 GiB; kernel %s %s\n",
	       REPS, ROUNDS, cs, cl, u.release, u.version);
	bench_table_header("gembuf_info", 44);
	row("report 1 GiB in 4 KiB pages", l, 1e6, "us");
	row("report 1 MiB in 4 KiB pages (anchor)", s, 1e6, "us");
	row("ratio report, 1 GiB / 1 MiB", r, 1, "x");
	row("ratio per chunk, 1 GiB / 1 MiB (linear: 1)", lin, 1, "x");

	gem_close(engine, hl);
	gem_close(engine, hs);
	close(fl);
	close(fs);
	close(dev);
	drm_close_driver(engine);
}
