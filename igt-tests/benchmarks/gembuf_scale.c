// SPDX-License-Identifier: MIT
/*
 * gembuf_scale: how the cost of gembuf's operations grows with what is
 * already there.  Each operation is timed, per call, at four or five
 * sizes of one population at a time, and its cost at each size is given
 * against its cost at the smallest size of that population, measured in
 * the same boot: the target is a ratio within 2 at the largest size.
 *
 * The populations (axes), each built up size by size and torn down
 * before the next:
 *
 * - objects: 10, 1,000, 10,000 and 100,000 live objects of 4 KiB on the
 *   engine file that measures, each with its memory (allocated by a
 *   write through a CPU mapping since gone) and its map offset; no
 *   mappings.  They want about 2 GiB (pages, objects, handles); with less
 *   available the axis stops at what fits and says so;
 * - clients: 1, 4, 16 and 64 clients of the engine: besides this
 *   process, each a forked process with a file of its own, one 4 KiB
 *   object mapped by the CPU and by the engine (one fill each), idle;
 * - mappings: 1, 10, 100 and 1,000 CPU mappings (mmap) of one object, held
 *   by this process;
 * - devices: 2, 3, 5, 16 and 64 devices sharing one object: the engine
 *   that made it and gembuf's display (which imports every subject
 *   object, below), then gembuf's second engine, vgem and vkms (PRIME
 *   imports: each attaches; all but the display map, and the display,
 *   which reads through the exporter's vmap, needs nothing of the
 *   memory), which are all the devices of the guest that take a dma-buf
 *   from a DRM file; past 5, more attachments: imports on further files
 *   of vgem, each an attachment and a DMA mapping of its own.  The
 *   guest has no sixth device to attach (vivid takes only whole video
 *   frames, and edu's third instance is not a DRM device).
 *
 * The operations, on the engine's render node unless said otherwise,
 * each the mean of a batch of calls, the sizes of the batches in
 * BATCH_* (engine map and submit: see below), on the subject object S
 * (4 KiB, engine-made, shared, mapped or not as the population has it)
 * or on fresh objects given the same treatment:
 *
 * - create, close: GEM_CREATE of 4 KiB with no memory, then GEM_CLOSE
 *   of each, timed apart;
 * - export: vgem imports S's dma-buf (PRIME_FD_TO_HANDLE, so attach and
 *   map, gembuf's exporter callbacks) and closes it (unmap and detach);
 * - import: the engine imports a vgem buffer's dma-buf and closes it;
 * - CPU map: mmap() of S at its offset, and munmap();
 * - engine map: the first DMA_FILL ioctl, of 4 bytes, on a fresh object
 *   (fresh ones get the same CPU mappings and sharers as S has at that
 *   size): it maps the object for the engine, then queues the job;
 * - submit: the next DMA_FILL ioctl on the same object, mapped by then
 *   (both return once the job is queued; the jobs of the first round
 *   are done before the second);
 *   both the median of the batch's objects, each ioctl timed alone.
 *   The second fill takes 3.0 or 5.1 us, batch by batch, at any size
 *   of any population, while the first takes about the same time at
 *   every size: the engine map, once the first less the second, moved
 *   with it between 0.5 and 2.9 times its cost at the smallest size;
 * - commit: a nonblocking atomic commit on gembuf's display that flips
 *   a 32x32 overlay plane between S (imported on the display) and an
 *   object of the display's, the ioctl alone, each after the previous
 *   one's page-flip event.
 *
 * Every job is checked: each fill writes a value of its own, which the
 * object holds afterwards.  Each case runs REPS batches (all operations
 * in turn, per batch); the table gives, per operation and size, the
 * median, minimum and maximum of the batches in microseconds, and the
 * ratio of each batch to the median at the smallest size of the axis.
 * One more line names every operation whose median ratio at the largest
 * size is above 2.
 *
 * Guest times are virtual (instruction counts): the ratios mean what
 * they say, the microseconds only against each other.  edu takes 100 ms
 * of virtual time per command, two per 4-byte fill, which the guest
 * polls for: each fill costs real time (tens of milliseconds under
 * TCG), which is why the engine-map and submit batches are small, and
 * why the objects axis gives its population memory but no engine
 * mapping (100,000 fills).  The engine's mappings and its LRU grow on
 * the clients axis only.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <drm_fourcc.h>

#include "igt.h"
#include "bench.h"
#include "gembuf.h"
#include "gembuf_kms.h"

#define NAME		"gembuf_scale"
#define REPS		5
#define OBJ_SIZE	4096
#define BATCH_CREATE	128
#define BATCH_PRIME	32
#define BATCH_MMAP	64
#define BATCH_JOBS	4	/* fresh objects per batch, two fills each */
#define BATCH_COMMIT	8
#define FB_W		32	/* 32x32 XRGB8888: one 4 KiB object */
#define WAIT_NS		(60ll * 1000000000)
/* Kernel memory per object of the objects axis, with its page: a bound. */
#define OBJ_COST_KIB	20
#define MAX_SIZES	5
#define MAX_SHARERS	64
#define MAX_CLIENTS	64
#define MAX_MAPPINGS	1000
#define MAX_MEDIAN	16

enum op {
	OP_CREATE, OP_CLOSE, OP_EXPORT, OP_IMPORT, OP_MMAP, OP_ENGINE_MAP,
	OP_SUBMIT, OP_COMMIT, NUM_OPS
};

static const char *const op_names[NUM_OPS] = {
	[OP_CREATE] = "create",
	[OP_CLOSE] = "close",
	[OP_EXPORT] = "export (vgem imports)",
	[OP_IMPORT] = "import (of vgem's)",
	[OP_MMAP] = "CPU map+unmap",
	[OP_ENGINE_MAP] = "engine map",
	[OP_SUBMIT] = "submit",
	[OP_COMMIT] = "commit",
};

enum axis { AX_OBJECTS, AX_CLIENTS, AX_MAPPINGS, AX_DEVICES, NUM_AXES };

static const struct {
	const char *name;
	unsigned int sizes[MAX_SIZES];
	unsigned int num_sizes;
} axes[NUM_AXES] = {
	[AX_OBJECTS] = { "objects", { 10, 1000, 10000, 100000 }, 4 },
	[AX_CLIENTS] = { "clients", { 1, 4, 16, 64 }, 4 },
	[AX_MAPPINGS] = { "mappings", { 1, 10, 100, 1000 }, 4 },
	[AX_DEVICES] = { "devices", { 2, 3, 5, 16, 64 }, 5 },
};

/* A file an object is shared with, and its handle there. */
struct share {
	int fd;
	uint32_t h;
};

/* An object of the engine with its population: CPU mappings, sharers. */
struct subject {
	uint32_t h;
	uint64_t offset;
	void *maps[MAX_MAPPINGS];
	unsigned int num_maps;
	struct share shares[MAX_SHARERS];
	unsigned int num_shares;
};

static struct {
	int engine, engine1, display, vkms;
	int vgem[MAX_SHARERS];	/* [0] measures; the others share */
	unsigned int num_vgem;
	int vgem_buf;		/* a vgem buffer's dma-buf, for OP_IMPORT */
	struct subject s;
	int s_buf;		/* S's dma-buf */
	struct gk k;
	struct gk_fb bg, alt, fb_s;
	uint32_t job;		/* values written so far */
	/* the population */
	unsigned int mappings, sharers;
	uint32_t *objects;
	unsigned int num_objects;
	pid_t clients[MAX_CLIENTS];
	unsigned int num_clients;
	int client_go[2];	/* closing the write end ends the clients */
} c = { .engine = -1, .engine1 = -1, .display = -1, .vkms = -1,
	.client_go = { -1, -1 } };

/* v[axis][size][op][rep], microseconds per call */
static double v[NUM_AXES][MAX_SIZES][NUM_OPS][REPS];
static unsigned int sizes_done[NUM_AXES];

/* ---- population ---- */

static long meminfo(const char *field)
{
	char line[128];
	size_t len = strlen(field);
	long val = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	igt_assert(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, len) && line[len] == ':')
			val = atol(line + len + 1);
	fclose(f);
	return val;
}

static uint64_t mmap_offset(int fd, uint32_t h)
{
	uint64_t offset;

	igt_assert_eq(__gembuf_mmap_offset(fd, h, &offset), 0);
	return offset;
}

/* A new 4 KiB object of the engine's, its memory allocated by a write. */
static uint32_t object_with_memory(uint64_t *offset)
{
	uint32_t h = gembuf_create(c.engine, OBJ_SIZE, 0, GEMBUF_CACHE_WB);
	uint64_t off = mmap_offset(c.engine, h);
	char *p = mmap(NULL, OBJ_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		       c.engine, off);

	igt_assert(p != MAP_FAILED);
	*(volatile char *)p = 1;
	igt_assert_eq(munmap(p, OBJ_SIZE), 0);
	if (offset)
		*offset = off;
	return h;
}

/*
 * The file of sharer @i of an object, after the engine that made it:
 * 0 the display, 1 the second engine, 2 vkms, 3 on vgem's files.
 */
static int sharer_fd(unsigned int i)
{
	switch (i) {
	case 0:
		return c.display;
	case 1:
		return c.engine1;
	case 2:
		return c.vkms;
	default:
		igt_assert(i - 2 < c.num_vgem);
		return c.vgem[i - 2];
	}
}

/*
 * Give @s what the population has: shared with c.sharers devices in all
 * (itself included), then its memory, then c.mappings CPU mappings.
 * The memory comes after the sharers attached, as a client that knows
 * its devices has it (no move).
 */
static void subject_new(struct subject *s, bool alloc)
{
	int buf;

	memset(s, 0, sizeof(*s));
	s->h = gembuf_create(c.engine, OBJ_SIZE, 0, GEMBUF_CACHE_WB);
	s->offset = mmap_offset(c.engine, s->h);
	buf = prime_handle_to_fd(c.engine, s->h);
	/* The display imports every subject: S for its commits, the others alike. */
	for (unsigned int i = 0; i < (c.sharers > 1 ? c.sharers - 1 : 1); i++) {
		s->shares[i].fd = sharer_fd(i);
		s->shares[i].h = prime_fd_to_handle(s->shares[i].fd, buf);
		s->num_shares++;
	}
	close(buf);
	if (alloc) {
		char *p = mmap(NULL, OBJ_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
			       c.engine, s->offset);

		igt_assert(p != MAP_FAILED);
		*(volatile char *)p = 1;
		igt_assert_eq(munmap(p, OBJ_SIZE), 0);
	}
	while (s->num_maps < c.mappings) {
		s->maps[s->num_maps] = mmap(NULL, OBJ_SIZE, PROT_READ | PROT_WRITE,
					    MAP_SHARED, c.engine, s->offset);
		igt_assert(s->maps[s->num_maps] != MAP_FAILED);
		s->num_maps++;
	}
}

/* S's population grown to what c.mappings and c.sharers say. */
static void subject_grow(struct subject *s)
{
	int buf = prime_handle_to_fd(c.engine, s->h);

	while (s->num_shares + 1 < c.sharers) {
		struct share *sh = &s->shares[s->num_shares];

		sh->fd = sharer_fd(s->num_shares);
		sh->h = prime_fd_to_handle(sh->fd, buf);
		s->num_shares++;
	}
	close(buf);
	while (s->num_maps < c.mappings) {
		s->maps[s->num_maps] = mmap(NULL, OBJ_SIZE, PROT_READ | PROT_WRITE,
					    MAP_SHARED, c.engine, s->offset);
		igt_assert(s->maps[s->num_maps] != MAP_FAILED);
		s->num_maps++;
	}
}

/* Back to S as every axis starts: shared with the display only, unmapped. */
static void subject_shrink(struct subject *s)
{
	while (s->num_maps)
		igt_assert_eq(munmap(s->maps[--s->num_maps], OBJ_SIZE), 0);
	while (s->num_shares > 1) {
		struct share *sh = &s->shares[--s->num_shares];

		gem_close(sh->fd, sh->h);
	}
}

static void subject_free(struct subject *s)
{
	subject_shrink(s);
	if (s->num_shares)
		gem_close(s->shares[0].fd, s->shares[0].h);
	gem_close(c.engine, s->h);
}

/* The objects axis: c.objects grown to @n live objects. */
static void objects_grow(unsigned int n)
{
	c.objects = realloc(c.objects, n * sizeof(*c.objects));
	igt_assert(c.objects);
	while (c.num_objects < n)
		c.objects[c.num_objects++] = object_with_memory(NULL);
}

static void objects_free(void)
{
	while (c.num_objects)
		gem_close(c.engine, c.objects[--c.num_objects]);
	free(c.objects);
	c.objects = NULL;
}

/*
 * A client: its own file of the engine and a 4 KiB object, mapped by the
 * CPU and, by one fill, by the engine; it says so on @ready and waits
 * for the end of @go.  No igt assertion in a forked child: the parent
 * judges by its exit status.
 */
static void __attribute__((noreturn)) client_main(int go, int ready)
{
	uint64_t offset;
	uint32_t h;
	char *p, b;
	int fd;

	fd = gembuf_open_engine_nth(0);
	if (fd < 0 || __gembuf_create(fd, &(uint64_t){ OBJ_SIZE }, 0,
				      GEMBUF_CACHE_WB, &h))
		_exit(2);
	if (__gembuf_mmap_offset(fd, h, &offset))
		_exit(3);
	p = mmap(NULL, OBJ_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);
	if (p == MAP_FAILED)
		_exit(4);
	if (__gembuf_fill(fd, h, 0, 4, 0x5c5c5c5c) ||
	    __gembuf_wait(fd, h, 0, WAIT_NS))
		_exit(5);
	if (*(volatile uint32_t *)p != 0x5c5c5c5c)
		_exit(6);
	if (write(ready, "r", 1) != 1)
		_exit(7);
	/* EOF once the parent closes its end, or exits. */
	while (read(go, &b, 1) > 0)
		;
	_exit(0);
}

static void clients_grow(unsigned int n)
{
	int *go = c.client_go, ready[2];
	char b;

	if (go[1] < 0)
		igt_assert_eq(pipe(go), 0);
	igt_assert_eq(pipe(ready), 0);
	fflush(stdout);
	/* This process is the first client. */
	while (c.num_clients + 1 < n) {
		pid_t pid = fork();

		igt_assert(pid >= 0);
		if (!pid) {
			close(go[1]);
			close(ready[0]);
			client_main(go[0], ready[1]);
		}
		c.clients[c.num_clients++] = pid;
		igt_assert_f(read(ready[0], &b, 1) == 1,
			     "client %u failed to start\n", c.num_clients);
	}
	close(ready[0]);
	close(ready[1]);
}

static void clients_end(void)
{
	int status;

	if (c.client_go[1] < 0)
		return;
	close(c.client_go[1]);
	close(c.client_go[0]);
	c.client_go[0] = c.client_go[1] = -1;
	for (unsigned int i = 0; i < c.num_clients; i++) {
		igt_assert_eq(waitpid(c.clients[i], &status, 0), c.clients[i]);
		igt_assert_f(WIFEXITED(status) && !WEXITSTATUS(status),
			     "client %u exited with status %#x\n", i, status);
	}
	c.num_clients = 0;
}

/* ---- operations ---- */

static double op_create_close(double *close_us)
{
	uint32_t h[BATCH_CREATE];
	double t0, t1, t2;

	t0 = bench_now();
	for (int i = 0; i < BATCH_CREATE; i++)
		h[i] = gembuf_create(c.engine, OBJ_SIZE, 0, GEMBUF_CACHE_WB);
	t1 = bench_now();
	for (int i = 0; i < BATCH_CREATE; i++)
		gem_close(c.engine, h[i]);
	t2 = bench_now();
	*close_us = (t2 - t1) * 1e6 / BATCH_CREATE;
	return (t1 - t0) * 1e6 / BATCH_CREATE;
}

/* PRIME_FD_TO_HANDLE of @buf on @fd and GEM_CLOSE, per round. */
static double op_prime(int fd, int buf)
{
	double t = bench_now();

	for (int i = 0; i < BATCH_PRIME; i++)
		gem_close(fd, prime_fd_to_handle(fd, buf));
	return (bench_now() - t) * 1e6 / BATCH_PRIME;
}

static double op_mmap(void)
{
	double t = bench_now();

	for (int i = 0; i < BATCH_MMAP; i++) {
		void *p = mmap(NULL, OBJ_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
			       c.engine, c.s.offset);

		igt_assert(p != MAP_FAILED);
		igt_assert_eq(munmap(p, OBJ_SIZE), 0);
	}
	return (bench_now() - t) * 1e6 / BATCH_MMAP;
}

/* Seconds of one DMA_FILL ioctl of the first word of @h with @value. */
static double fill(uint32_t h, uint32_t value)
{
	double t = bench_now();
	int ret = __gembuf_fill(c.engine, h, 0, 4, value);

	t = bench_now() - t;
	igt_assert_f(!ret, "DMA_FILL: %s\n", strerror(-ret));
	return t;
}

static void wait_check(uint32_t h, uint32_t value)
{
	igt_assert_eq(__gembuf_wait(c.engine, h, 0, WAIT_NS), 0);
	gembuf_check_words(c.engine, h, 4, value);
}

/* The median of @n values (up to MAX_MEDIAN). */
static double median(const double *x, unsigned int n)
{
	double s[MAX_MEDIAN];

	igt_assert(n);
	_Static_assert(REPS <= MAX_MEDIAN && BATCH_JOBS <= MAX_MEDIAN,
		       "median() takes up to MAX_MEDIAN values");
	memcpy(s, x, n * sizeof(*s));
	for (unsigned int i = 1; i < n; i++)
		for (unsigned int j = i; j && s[j - 1] > s[j]; j--) {
			double t = s[j];

			s[j] = s[j - 1];
			s[j - 1] = t;
		}
	return n & 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/*
 * Engine map (the first fill of each object) and submit (the second),
 * each the median of the batch's objects: see the top.
 */
static double op_jobs(double *submit_us)
{
	static struct subject f[BATCH_JOBS];
	uint32_t first[BATCH_JOBS], second[BATCH_JOBS];
	double t1[BATCH_JOBS], t2[BATCH_JOBS];

	for (int i = 0; i < BATCH_JOBS; i++)
		subject_new(&f[i], true);
	for (int i = 0; i < BATCH_JOBS; i++)
		t1[i] = fill(f[i].h, first[i] = 0x6a000000u | c.job++);
	for (int i = 0; i < BATCH_JOBS; i++)
		wait_check(f[i].h, first[i]);
	for (int i = 0; i < BATCH_JOBS; i++)
		t2[i] = fill(f[i].h, second[i] = 0x6a000000u | c.job++);
	for (int i = 0; i < BATCH_JOBS; i++)
		wait_check(f[i].h, second[i]);
	for (int i = 0; i < BATCH_JOBS; i++)
		subject_free(&f[i]);
	*submit_us = median(t2, BATCH_JOBS) * 1e6;
	return median(t1, BATCH_JOBS) * 1e6;
}

static void wait_flip(void)
{
	struct pollfd p = { .fd = c.display, .events = POLLIN };
	char buf[1024];

	igt_assert_eq(poll(&p, 1, 10000), 1);
	igt_assert_lt(0, read(c.display, buf, sizeof(buf)));
}

static double op_commit(void)
{
	double t = 0;

	for (int i = 0; i < BATCH_COMMIT; i++) {
		struct gk_layer l[2] = {
			gk_layer_of(&c.bg), gk_layer_of(i & 1 ? &c.alt : &c.fb_s),
		};
		double t0 = bench_now();
		int fence, ret;

		ret = gk_flip_start(&c.k, l, 2, NULL, DRM_MODE_ATOMIC_NONBLOCK |
				    DRM_MODE_PAGE_FLIP_EVENT, 0, -1, &fence);
		t += bench_now() - t0;
		igt_assert_f(!ret, "commit: %s\n", strerror(-ret));
		wait_flip();
	}
	return t * 1e6 / BATCH_COMMIT;
}

/* One batch of every operation, into v[axis][size][*][rep]. */
static void measure(enum axis a, unsigned int size, unsigned int rep)
{
	double (*r)[REPS] = v[a][size];

	r[OP_CREATE][rep] = op_create_close(&r[OP_CLOSE][rep]);
	r[OP_EXPORT][rep] = op_prime(c.vgem[0], c.s_buf);
	r[OP_IMPORT][rep] = op_prime(c.engine, c.vgem_buf);
	r[OP_MMAP][rep] = op_mmap();
	r[OP_ENGINE_MAP][rep] = op_jobs(&r[OP_SUBMIT][rep]);
	r[OP_COMMIT][rep] = op_commit();
}

/* The population of axis @a at size @n; false if it cannot be had. */
static bool populate(enum axis a, unsigned int n)
{
	long avail;

	switch (a) {
	case AX_OBJECTS:
		avail = meminfo("MemAvailable");
		if (avail < 0 || (long)(n - c.num_objects) * OBJ_COST_KIB > avail / 2) {
			printf("%s: objects stop below %u: %ld MiB available, %u objects want about %u MiB more\n",
			       NAME, n, avail >> 10, n,
			       (n - c.num_objects) * OBJ_COST_KIB >> 10);
			return false;
		}
		objects_grow(n);
		break;
	case AX_CLIENTS:
		clients_grow(n);
		break;
	case AX_MAPPINGS:
		c.mappings = n;
		subject_grow(&c.s);
		break;
	case AX_DEVICES:
		if (n - 2 > c.num_vgem) {
			printf("%s: devices stop below %u: %u vgem files\n", NAME, n,
			       c.num_vgem);
			return false;
		}
		c.sharers = n;
		subject_grow(&c.s);
		break;
	default:
		break;
	}
	return true;
}

static void depopulate(enum axis a)
{
	switch (a) {
	case AX_OBJECTS:
		objects_free();
		break;
	case AX_CLIENTS:
		clients_end();
		break;
	default:
		c.mappings = 0;
		c.sharers = 0;
		subject_shrink(&c.s);
		break;
	}
}

/* ---- setup and report ---- */

static void setup(void)
{
	struct gk_layer l[2];
	struct rlimit nofile;
	uint32_t vh, sd;
	int card;

	c.engine = gembuf_open_engine();
	c.engine1 = gembuf_open_engine_nth(1);
	igt_require_f(c.engine1 >= 0, "no second gembuf engine\n");
	c.display = gembuf_open_display();
	c.vkms = __drm_open_driver(DRIVER_VKMS);
	igt_require_f(c.vkms >= 0, "no vkms\n");
	/* One vgem file measures, the others share: fds, not handles. */
	igt_assert_eq(getrlimit(RLIMIT_NOFILE, &nofile), 0);
	igt_require_f(nofile.rlim_cur >= 2 * MAX_SHARERS + 64, "too few fds\n");
	for (c.num_vgem = 0; c.num_vgem < MAX_SHARERS - 2; c.num_vgem++) {
		c.vgem[c.num_vgem] = __drm_open_driver_render(DRIVER_VGEM);
		igt_require_f(c.vgem[c.num_vgem] >= 0, "no vgem\n");
	}
	/* Dumb buffers come from a card node; the buffer stays with its dma-buf. */
	card = __drm_open_driver(DRIVER_VGEM);
	igt_require_f(card >= 0, "no vgem\n");
	vh = kmstest_dumb_create(card, OBJ_SIZE / 4, 1, 32, NULL, NULL);
	c.vgem_buf = prime_handle_to_fd(card, vh);
	gem_close(card, vh);
	drm_close_driver(card);

	/* S, imported on the display for its framebuffer. */
	subject_new(&c.s, true);
	c.s_buf = prime_handle_to_fd(c.engine, c.s.h);
	sd = c.s.shares[0].h;

	gk_init(&c.k, c.display);
	igt_require_f(gk_set_mode(&c.k, 640, 480), "no 640x480 mode\n");
	gk_fb_create(&c.k, &c.bg, 640, 480, DRM_FORMAT_XRGB8888);
	gk_fb_fill(&c.bg, 0xff203040);
	gk_fb_create(&c.k, &c.alt, FB_W, FB_W, DRM_FORMAT_XRGB8888);
	gk_fb_fill(&c.alt, 0xffc0c0c0);
	gk_fb_from_handle(&c.k, &c.fb_s, sd, FB_W, FB_W, DRM_FORMAT_XRGB8888,
			  FB_W * 4, 0, 0);
	l[0] = gk_layer_of(&c.bg);
	l[1] = gk_layer_of(&c.fb_s);
	igt_assert_eq(gk_commit(&c.k, l, 2, NULL, 0), 0);
}

static void teardown(void)
{
	gk_disable(&c.k);
	drmModeRmFB(c.display, c.fb_s.fb_id);
	gk_fb_destroy(&c.k, &c.alt);
	gk_fb_destroy(&c.k, &c.bg);
	close(c.s_buf);
	subject_free(&c.s);
	close(c.vgem_buf);
	for (unsigned int i = 0; i < c.num_vgem; i++)
		drm_close_driver(c.vgem[i]);
	drm_close_driver(c.vkms);
	drm_close_driver(c.display);
	drm_close_driver(c.engine1);
	drm_close_driver(c.engine);
}

static void report(void)
{
	char name[96], over[512] = "";
	struct utsname u;

	igt_assert_eq(uname(&u), 0);
	printf("%s: %d batches per case; per batch %d creates, %d PRIME rounds, %d mmaps, %d fresh objects with two fills each, %d commits; kernel %s %s\n",
	       NAME, REPS, BATCH_CREATE, BATCH_PRIME, BATCH_MMAP, BATCH_JOBS,
	       BATCH_COMMIT, u.release, u.version);
	bench_table_header(NAME, 56);
	for (unsigned int a = 0; a < NUM_AXES; a++) {
		unsigned int last = sizes_done[a];

		for (unsigned int o = 0; o < NUM_OPS; o++) {
			double anchor = median(v[a][0][o], REPS);

			for (unsigned int s = 0; s < last; s++) {
				snprintf(name, sizeof(name), "%s, %s %u", op_names[o],
					 axes[a].name, axes[a].sizes[s]);
				bench_row(NAME, 56, name, v[a][s][o], REPS, 1, "us");
			}
			for (unsigned int s = 1; s < last; s++) {
				double r[REPS];

				for (unsigned int i = 0; i < REPS; i++)
					r[i] = v[a][s][o][i] / anchor;
				snprintf(name, sizeof(name), "ratio %s, %s %u / %u",
					 op_names[o], axes[a].name, axes[a].sizes[s],
					 axes[a].sizes[0]);
				bench_row(NAME, 56, name, r, REPS, 1, "x");
				if (s == last - 1 && median(r, REPS) > 2 &&
				    strlen(over) + strlen(name) + 3 < sizeof(over))
					snprintf(over + strlen(over), sizeof(over) - strlen(over),
						 "%s%s %s", *over ? "; " : "", op_names[o],
						 axes[a].name);
			}
		}
	}
	printf("%s: above 2x at the largest size: %s\n", NAME, *over ? over : "none");
}

igt_simple_main
{
	setup();
	for (unsigned int a = 0; a < NUM_AXES; a++) {
		for (unsigned int s = 0; s < axes[a].num_sizes; s++) {
			if (!populate(a, axes[a].sizes[s]))
				break;
			for (unsigned int rep = 0; rep < REPS; rep++)
				measure(a, s, rep);
			sizes_done[a] = s + 1;
		}
		depopulate(a);
	}
	report();
	teardown();
}
