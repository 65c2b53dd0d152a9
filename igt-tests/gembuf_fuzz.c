// SPDX-License-Identifier: MIT
/*
 * gembuf_fuzz: a seeded, reproducible, bounded fuzzer of gembuf's uapi.
 *
 * Worker processes of a few threads each draw operations from a weighted
 * table and throw them at both gembuf devices with valid, edge and hostile
 * arguments: object create, close, info and mmap offset, engine DMA fill,
 * copy and wait, flink and open, PRIME both ways between the devices and
 * with the dma-heaps system heap, dumb buffers, CPU mappings of objects
 * and dma-bufs (mmap at random offsets, touch, munmap, mremap, mprotect,
 * madvise), dma-buf CPU sync, sync-file export and import, framebuffers;
 * and, with the display's DRM master, atomic commits of random plane
 * properties, modesets and writeback jobs, and legacy SETPLANE and
 * SETCRTC.  Workers fork children that go on with the inherited fds; in
 * "mixed" the parent SIGKILLs workers at random moments and starts others,
 * and the workers' slab allocations fail at random (failslab, 2%).
 *
 * The kernel may refuse anything.  The test fails when a worker or a
 * child of one dies of a signal other than the parent's SIGKILL (workers
 * only touch mappings they hold, within the object: a fault there is the
 * kernel's), when a DMA ioctl succeeds on the display, when a worker still
 * runs a minute past the deadline, or when gembuf_state's "objects",
 * "mappings", "fences" and "jobs" (the last two if the kernel has them)
 * are not back to their values at the start once everything is closed.
 *
 * Each subtest prints its seed.  Reproduce with
 *	GEMBUF_FUZZ_SEED=<seed> GEMBUF_FUZZ_SECONDS=<s> gembuf_fuzz --run-subtest <name>
 * (defaults: a seed from the clock, 60 s of the guest's CLOCK_MONOTONIC
 * per subtest).  Worker n (thread or process) draws from its own
 * generator seeded from seed ^ n, and the parent's kills from the seed
 * too, so each worker tries the same operations for a seed; what the
 * kernel answers still depends on how the workers interleave.
 *
 * Bounds: every loop stops at the deadline or after OPS_PER_S * seconds
 * operations, waits are at most 200 ms (writeback fences: 1 s), buffers
 * are mostly 4 KiB to 256 KiB, and engine DMA (100 ms of edu time per
 * 2 KiB) is at most 8 KiB a job within a budget of DMA_CHUNKS_S chunks a
 * second for all workers, so its queue stays short.  After the deadline
 * the gauges get 20 s to settle.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <linux/sync_file.h>
#include <drm_fourcc.h>

#include "igt.h"
#include "gembuf.h"
#include "gembuf_kms.h"

IGT_TEST_DESCRIPTION("Seeded, bounded fuzzing of gembuf's ioctls, mappings and KMS.");

#define NSEC		1000000000ull
#define KiB		1024ull
#define MiB		(1024 * KiB)
#define NR_PROCS	3	/* render workers in "render", 2 in "mixed" */
#define NR_THREADS	2	/* per render worker */
#define OPS_PER_S	2000	/* op cap per worker thread and second */
#define CHILD_OPS	200	/* ops of a forked child */
#define DMA_CHUNKS_S	3	/* engine budget: 2 KiB chunks of 100 ms per second */
#define MAX_BOS		16
#define MAX_MAPS	8
#define MAX_BUFS	6
#define MAX_FBS		6
#define MAX_WB		6	/* writeback fences in flight per thread */
#define MAX_NAMES	32
#define MAX_MODES	3
#define MAX_POOL	16
#define MAX_ERRNO	136
#define MAX_KINDS	40
#define SKIP		1	/* an op found nothing to work on */
#define SW_SYNC_PATH	"/sys/kernel/debug/sync/sw_sync"

enum { DEV_DISPLAY, DEV_ENGINE, DEV_MASTER, NR_DEVS };
enum { RENDER, KMS };				/* worker kinds */
enum { MODE_RENDER, MODE_KMS, MODE_MIXED };	/* subtests */

/* Counters of all workers, in memory shared across fork. */
struct stats {
	uint64_t ops[MAX_KINDS], fails[MAX_KINDS], err[MAX_ERRNO];
	uint64_t dma_chunks, display_dma_ok, wb_queued, wb_signalled, wb_late;
	uint64_t events, kills, forks, touches, workers, bad;
	/* atomic commits made valid (then one field perturbed, or not) */
	uint64_t valid, valid_ok, perturbed, perturbed_ok, random_ok, applied;
	char bad_msg[4][80];
	uint32_t names[MAX_NAMES], name_pos;
};

struct bo { uint32_t handle; int dev; uint64_t size; };
/* @avail: bytes of the object from @ptr on, the most the worker touches */
struct map { char *ptr; size_t len, avail; int prot; };
struct buf { int fd; uint64_t size; };

struct ctx {
	uint32_t rng;
	unsigned int id, nforks, pipe;
	int kind;
	bool is_child;
	int fd[NR_DEVS], heap, timeline;
	unsigned int seqno;
	uint32_t last_closed;
	pid_t child;
	struct bo bo[MAX_BOS];
	struct map map[MAX_MAPS];
	struct buf buf[MAX_BUFS];
	uint32_t fb[MAX_FBS];
	int wb[MAX_WB];
	unsigned int nwb;
};

/* The display as the parent set it up for the KMS workers. */
struct fbi { uint32_t id, w, h, format; };
static struct {
	int fd;
	unsigned int npipes, nmodes, cur_mode[2];
	struct gk k[2];
	drmModeModeInfo modes[MAX_MODES];
	uint32_t blob[2][MAX_MODES];
	struct gk_fb wb[2][MAX_MODES], init[4];
	pthread_mutex_t lock;
	struct fbi pool[MAX_POOL];
} kms = { .lock = PTHREAD_MUTEX_INITIALIZER };

static struct stats *st;
static uint32_t seed;
static unsigned int seconds = 60;
static uint64_t t_start, t_deadline;

#define INC(f)		__atomic_fetch_add(&st->f, 1, __ATOMIC_RELAXED)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC + ts.tv_nsec;
}

/* murmur3's finalizer, so that seeds one bit apart give unrelated streams */
static uint32_t mix(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x85ebca6b;
	x ^= x >> 13;
	x *= 0xc2b2ae35;
	x ^= x >> 16;
	return x ?: 1;
}

/* xorshift32: a rand_r()-like generator whose state is the caller's */
static uint32_t rnd32(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static uint32_t rnd(struct ctx *c) { return rnd32(&c->rng); }
static uint32_t below(struct ctx *c, uint32_t n) { return n ? rnd(c) % n : 0; }
static bool one_in(struct ctx *c, uint32_t n) { return !below(c, n); }

static uint64_t rnd_size(struct ctx *c)
{
	/* empty, tiny, unaligned, above GEMBUF_MAX_SIZE, overflowing */
	static const uint64_t edge[] = { 0, 1, 4097, (1ull << 30) + 4096, ~0ull, 1ull << 40 };
	uint32_t r = below(c, 100);

	if (r < ARRAY_SIZE(edge))
		return edge[r];
	if (r < 8)	/* the occasional big one */
		return 2 * MiB + 4096 * below(c, 512);
	return 4 * KiB * (1 + below(c, 64)) - (one_in(c, 8) ? below(c, 4096) : 0);
}

static int xioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do
		ret = ioctl(fd, req, arg);
	while (ret == -1 && (errno == EINTR || errno == EAGAIN));
	return ret ? -errno : 0;
}

static void bad_exit(pid_t pid, int status, bool killed, const char *who)
{
	uint64_t n;

	if ((WIFEXITED(status) && !WEXITSTATUS(status)) ||
	    (killed && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL))
		return;
	n = __atomic_fetch_add(&st->bad, 1, __ATOMIC_RELAXED);
	if (n < ARRAY_SIZE(st->bad_msg))
		snprintf(st->bad_msg[n], sizeof(st->bad_msg[n]), "%s %d: %s %d",
			 who, pid, WIFSIGNALED(status) ? "killed by signal" : "exit code",
			 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

/* Engine time is scarce (edu takes 100 ms per 2 KiB): a global budget. */
static bool dma_budget(uint64_t len, unsigned int passes)
{
	uint64_t chunks = passes * ((len + 2047) / 2048 ?: 1);
	uint64_t allowed = 8 + (now_ns() - t_start) * DMA_CHUNKS_S / NSEC;

	if (__atomic_add_fetch(&st->dma_chunks, chunks, __ATOMIC_RELAXED) <= allowed)
		return true;
	__atomic_sub_fetch(&st->dma_chunks, chunks, __ATOMIC_RELAXED);
	return false;
}

/* ---- what each worker holds ---- */

static int pick_dev(struct ctx *c)
{
	uint32_t r = below(c, 20);

	return r < 9 ? DEV_DISPLAY : r < 18 ? DEV_ENGINE : DEV_MASTER;
}

static struct bo *pick_bo(struct ctx *c, int dev)
{
	uint32_t start = below(c, MAX_BOS);

	for (unsigned int i = 0; i < MAX_BOS; i++) {
		struct bo *b = &c->bo[(start + i) % MAX_BOS];

		if (b->handle && (dev < 0 || b->dev == dev))
			return b;
	}
	return NULL;
}

/* Mostly a live handle of @dev, else 0, huge, closed, made up or foreign. */
static uint32_t pick_handle(struct ctx *c, int dev, uint64_t *size)
{
	struct bo *b = pick_bo(c, dev);
	struct bo *any = pick_bo(c, -1);
	const uint32_t bad[] = {
		0, ~0u, c->last_closed, 1 + below(c, 64), any ? any->handle : rnd(c),
	};

	*size = 0;
	if (b && below(c, 10) < 8) {
		*size = b->size;
		return b->handle;
	}
	return bad[below(c, ARRAY_SIZE(bad))];
}

static int gem_close_raw(int fd, uint32_t handle)
{
	struct drm_gem_close cl = { .handle = handle };

	return xioctl(fd, DRM_IOCTL_GEM_CLOSE, &cl);
}

/*
 * The guest has 2 GiB for a dozen fuzzing processes: a worker keeps at
 * most KEEP_BYTES of objects (a larger new one is closed at once), so
 * the OOM killer never picks the test runner.
 */
#define KEEP_BYTES	(16 * MiB)

static void add_bo(struct ctx *c, int dev, uint32_t handle, uint64_t size)
{
	struct bo *b = NULL;
	uint64_t kept = 0;

	for (unsigned int i = 0; i < MAX_BOS; i++)
		if (c->bo[i].handle)
			kept += c->bo[i].size;
	if (kept + size > KEEP_BYTES) {
		gem_close_raw(c->fd[dev], handle);
		return;
	}

	for (unsigned int i = 0; i < MAX_BOS; i++) {
		if (c->bo[i].handle == handle && c->bo[i].dev == dev) {
			c->bo[i].size = c->bo[i].size ?: size;
			return;
		}
		if (!c->bo[i].handle && !b)
			b = &c->bo[i];
	}
	if (!b) {
		b = &c->bo[below(c, MAX_BOS)];
		gem_close_raw(c->fd[b->dev], b->handle);
	}
	*b = (struct bo){ .handle = handle, .dev = dev, .size = size };
}

static void forget_handle(struct ctx *c, int dev, uint32_t handle)
{
	for (unsigned int i = 0; i < MAX_BOS; i++)
		if (c->bo[i].handle == handle && c->bo[i].dev == dev)
			c->bo[i].handle = 0;
	c->last_closed = handle;
}

static struct buf *pick_buf(struct ctx *c)
{
	uint32_t start = below(c, MAX_BUFS);

	for (unsigned int i = 0; i < MAX_BUFS; i++)
		if (c->buf[(start + i) % MAX_BUFS].fd > 0)
			return &c->buf[(start + i) % MAX_BUFS];
	return NULL;
}

static void add_buf(struct ctx *c, int fd)
{
	off_t size = lseek(fd, 0, SEEK_END);
	struct buf *b = NULL;

	for (unsigned int i = 0; i < MAX_BUFS && !b; i++)
		if (c->buf[i].fd <= 0)
			b = &c->buf[i];
	if (!b) {
		b = &c->buf[below(c, MAX_BUFS)];
		close(b->fd);
	}
	b->fd = fd;
	b->size = size > 0 ? size : 0;
}

static struct map *pick_map(struct ctx *c, bool touchable)
{
	uint32_t start = below(c, MAX_MAPS);

	for (unsigned int i = 0; i < MAX_MAPS; i++) {
		struct map *m = &c->map[(start + i) % MAX_MAPS];

		if (m->ptr && (!touchable || (m->avail && m->prot)))
			return m;
	}
	return NULL;
}

/* ---- objects ---- */

static int op_create(struct ctx *c)
{
	int dev = pick_dev(c), ret;
	struct drm_gembuf_gem_create a = {
		.size = rnd_size(c),
		.flags = one_in(c, 10) ? GEMBUF_GEM_CONTIGUOUS : one_in(c, 30) ? rnd(c) : 0,
		.cache = one_in(c, 30) ? rnd(c) : below(c, 3),
		.pad = one_in(c, 40),
	};

	ret = xioctl(c->fd[dev], DRM_IOCTL_GEMBUF_GEM_CREATE, &a);
	if (!ret)
		add_bo(c, dev, a.handle, a.size);
	return ret;
}

static int op_close(struct ctx *c)
{
	struct bo *b = pick_bo(c, -1);
	int dev = b && !one_in(c, 8) ? b->dev : pick_dev(c), ret;
	uint64_t size;
	uint32_t h = b && b->dev == dev ? b->handle : pick_handle(c, dev, &size);

	ret = gem_close_raw(c->fd[dev], h);
	if (!ret)
		forget_handle(c, dev, h);
	return ret;
}

static int op_mmap_offset(struct ctx *c)
{
	int dev = pick_dev(c);
	uint64_t size;
	struct drm_gembuf_gem_mmap_offset m = {
		.handle = pick_handle(c, dev, &size), .pad = one_in(c, 20),
	};

	return xioctl(c->fd[dev], DRM_IOCTL_GEMBUF_GEM_MMAP_OFFSET, &m);
}

/*
 * debugfs's report of an object: of a handle of ours or any, and now and
 * then a request of random bytes written to the file as it is.
 */
static int op_info(struct ctx *c)
{
	struct gembuf_report_mapping maps[8];
	struct gembuf_report in;
	int dev = pick_dev(c), dfd, ret;
	char path[96], junk[64];
	struct stat st;
	uint64_t size;

	if (one_in(c, 8)) {
		if (fstat(c->fd[dev], &st))
			return -errno;
		snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%u/gembuf_object",
			 minor(st.st_rdev));
		dfd = open(path, O_RDWR);
		if (dfd < 0)
			return -errno;
		for (unsigned int i = 0; i < sizeof(junk); i++)
			junk[i] = one_in(c, 2) ? '0' + below(c, 10) : rnd(c);
		ret = write(dfd, junk, 1 + below(c, sizeof(junk))) < 0 ? -errno : 0;
		if (!ret)
			ret = read(dfd, junk, sizeof(junk)) < 0 ? -errno : 0;
		close(dfd);
		return ret;
	}
	memset(&in, 0, sizeof(in));
	in.handle = pick_handle(c, dev, &size);
	return __gembuf_info(c->fd[dev], &in, maps, below(c, 9));
}

/*
 * A DMA range in an object of @obj bytes (0: unknown).  *@costly when it
 * may queue a job (on whatever object the handle turns out to be): the
 * caller pays for it from the engine's budget.
 */
static void dma_range(struct ctx *c, uint64_t obj, __u64 *off, __u64 *len,
		      bool *costly)
{
	/* empty, unaligned offset, unaligned size, huge, overflowing */
	static const __u64 bad[][2] = {
		{ 0, 0 }, { 2, 4 }, { 0, 6 }, { 0, (1ull << 30) + 4096 }, { ~0ull - 3, 8 },
	};
	uint32_t r = below(c, 10);

	obj = obj ?: 4096;
	*costly = r >= ARRAY_SIZE(bad);
	if (r < ARRAY_SIZE(bad)) {
		*off = bad[r][0];
		*len = bad[r][1];
	} else if (r == ARRAY_SIZE(bad)) {
		*off = obj + 4 * below(c, 1024);	/* past the end */
		*len = 4;
	} else {
		*len = 4 * (1 + below(c, 2048));	/* at most 8 KiB */
		if (*len > obj)
			*len = obj & ~3ull;
		*off = 4 * below(c, (obj - *len) / 4 + 1);
	}
}

static int dma_dev(struct ctx *c)
{
	return one_in(c, 10) ? (one_in(c, 2) ? DEV_DISPLAY : DEV_MASTER) : DEV_ENGINE;
}

static int dma_result(int dev, int ret)
{
	if (!ret && dev != DEV_ENGINE)
		INC(display_dma_ok);
	return ret;
}

static int op_fill(struct ctx *c)
{
	int dev = dma_dev(c);
	struct drm_gembuf_dma_fill f = { .value = rnd(c) };
	uint64_t size;
	bool costly;

	f.handle = pick_handle(c, dev, &size);
	dma_range(c, size, &f.offset, &f.size, &costly);
	if (costly && dev == DEV_ENGINE && !dma_budget(f.size, 1))
		f.size = 0;	/* over budget: only the checks */
	if (one_in(c, 15))
		f.flags = 1u << below(c, 32);
	if (one_in(c, 15))
		f.pad = 1;
	return dma_result(dev, xioctl(c->fd[dev], DRM_IOCTL_GEMBUF_DMA_FILL, &f));
}

static int op_copy(struct ctx *c)
{
	int dev = dma_dev(c);
	struct drm_gembuf_dma_copy cp = { 0 };
	uint64_t dsize, ssize;
	__u64 soff, slen;
	bool costly, scostly;

	cp.dst_handle = pick_handle(c, dev, &dsize);
	cp.src_handle = one_in(c, 4) ? cp.dst_handle : pick_handle(c, dev, &ssize);
	if (cp.src_handle == cp.dst_handle)
		ssize = dsize;
	dma_range(c, dsize, &cp.dst_offset, &cp.size, &costly);
	dma_range(c, ssize, &soff, &slen, &scostly);
	cp.src_offset = soff;
	if (costly && scostly && soff + cp.size > (ssize ?: 4096))
		cp.src_offset = 0;
	if (costly && dev == DEV_ENGINE && !dma_budget(cp.size, 2))
		cp.size = 0;
	if (one_in(c, 15))
		cp.flags = 1u << below(c, 32);
	if (one_in(c, 15))
		cp.pad = 1;
	return dma_result(dev, xioctl(c->fd[dev], DRM_IOCTL_GEMBUF_DMA_COPY, &cp));
}

static int op_wait(struct ctx *c)
{
	static const int64_t timeouts[] = { 0, 0, 1000, 1000000, 20000000, 200000000, -1 };
	int dev = pick_dev(c);
	uint64_t size;
	struct drm_gembuf_gem_wait w = {
		.handle = pick_handle(c, dev, &size),
		.flags = one_in(c, 10) ? rnd(c) : below(c, 2) * GEMBUF_WAIT_READ,
		.deadline_ns = timeouts[below(c, ARRAY_SIZE(timeouts))],
	};
	struct timespec ts;

	/* A deadline: now plus the timeout, or a time long past. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (w.deadline_ns > 0 && !one_in(c, 8))
		w.deadline_ns += ts.tv_sec * 1000000000ll + ts.tv_nsec;

	return xioctl(c->fd[dev], DRM_IOCTL_GEMBUF_GEM_WAIT, &w);
}

static int op_flink(struct ctx *c)
{
	int dev = pick_dev(c), ret;
	uint64_t size;
	struct drm_gem_flink f = { .handle = pick_handle(c, dev, &size) };

	ret = xioctl(c->fd[dev], DRM_IOCTL_GEM_FLINK, &f);
	if (!ret)
		st->names[__atomic_fetch_add(&st->name_pos, 1, __ATOMIC_RELAXED) % MAX_NAMES] = f.name;
	return ret;
}

static int op_open(struct ctx *c)
{
	int dev = pick_dev(c), ret;
	struct drm_gem_open o = {
		.name = one_in(c, 8) ? below(c, 64) : st->names[below(c, MAX_NAMES)],
	};

	ret = xioctl(c->fd[dev], DRM_IOCTL_GEM_OPEN, &o);
	if (!ret)
		add_bo(c, dev, o.handle, o.size);
	return ret;
}

static int op_export(struct ctx *c)
{
	int dev = pick_dev(c), ret;
	uint64_t size;
	struct drm_prime_handle p = {
		.handle = pick_handle(c, dev, &size),
		.flags = below(c, 10) < 7 ? DRM_CLOEXEC | DRM_RDWR :
			 one_in(c, 2) ? DRM_CLOEXEC : rnd(c),
		.fd = -1,
	};

	ret = xioctl(c->fd[dev], DRM_IOCTL_PRIME_HANDLE_TO_FD, &p);
	if (!ret)
		add_buf(c, p.fd);
	return ret;
}

static int op_import(struct ctx *c)
{
	struct buf *b = pick_buf(c);
	int dev = pick_dev(c), ret;
	struct drm_prime_handle p = { .flags = one_in(c, 20) ? rnd(c) : 0 };

	if (b && below(c, 10) < 8) {
		p.fd = b->fd;
	} else {
		const int bad[] = { -1, 0, c->timeline, c->fd[DEV_ENGINE], 4000 };

		p.fd = bad[below(c, ARRAY_SIZE(bad))];
		b = NULL;
	}
	ret = xioctl(c->fd[dev], DRM_IOCTL_PRIME_FD_TO_HANDLE, &p);
	if (!ret)
		add_bo(c, dev, p.handle, b ? b->size : 0);
	return ret;
}

static int op_buf_close(struct ctx *c)
{
	struct buf *b = pick_buf(c);

	if (!b)
		return SKIP;
	close(b->fd);
	b->fd = 0;
	return 0;
}

static int op_heap(struct ctx *c)
{
	struct dma_heap_allocation_data a = {
		.len = 4 * KiB * (1 + below(c, 64)),
		.fd_flags = O_RDWR | O_CLOEXEC,
	};
	uint32_t r = below(c, 12);
	int ret;

	if (c->heap < 0)
		return SKIP;
	/*
	 * No huge lengths: 6.12's system heap allocates page by page until
	 * the length is reached or memory runs out (it has no cap), which
	 * tests the OOM killer, not gembuf.
	 */
	if (r < 3)
		a.len = r == 0 ? 0 : r == 1 ? 3 : 5;
	else if (r == 3)
		a.fd_flags = rnd(c);
	else if (r == 4)
		a.heap_flags = 1ull << below(c, 64);
	ret = xioctl(c->heap, DMA_HEAP_IOCTL_ALLOC, &a);
	if (!ret)
		add_buf(c, a.fd);
	return ret;
}

static int op_dumb_create(struct ctx *c)
{
	static const uint32_t bpps[] = { 8, 16, 24, 32 };
	static const uint32_t edge[][3] = {	/* width, height, bpp */
		{ 134217729, 1, 32 },	/* width * bpp overflows 32 bits */
		{ 0x80000000, 2, 32 }, { 65536, 65536, 32 }, { 64, 0, 32 },
		{ 64, 64, 0 }, { 64, 64, 7 }, { 3, 5, 24 },
	};
	uint32_t r = below(c, 18);
	int dev = one_in(c, 10) ? DEV_ENGINE : one_in(c, 8) ? DEV_MASTER : DEV_DISPLAY, ret;
	struct drm_mode_create_dumb d = {
		.width = 1 + below(c, 256), .height = 1 + below(c, 256),
		.bpp = bpps[below(c, 4)],
	};

	if (r < ARRAY_SIZE(edge)) {
		d.width = edge[r][0];
		d.height = edge[r][1];
		d.bpp = edge[r][2];
	} else if (r == ARRAY_SIZE(edge)) {
		d.width = rnd(c);
		d.height = rnd(c);
		d.bpp = rnd(c);
		/* Refused, or small: a valid 1 GiB buffer would exhaust the guest. */
		if ((uint64_t)d.width * d.bpp / 8 * d.height <= (1ull << 30))
			d.height = 1 + d.height % 16;
		if ((uint64_t)d.width * d.bpp / 8 * d.height <= (1ull << 30))
			d.width = 1 + d.width % 4096;
	} else if (r == ARRAY_SIZE(edge) + 1) {
		d.flags = 1u << below(c, 32);
	}
	ret = xioctl(c->fd[dev], DRM_IOCTL_MODE_CREATE_DUMB, &d);
	if (!ret)
		add_bo(c, dev, d.handle, d.size);
	return ret;
}

static int op_dumb_map(struct ctx *c)
{
	int dev = one_in(c, 10) ? DEV_ENGINE : DEV_DISPLAY;
	uint64_t size;
	struct drm_mode_map_dumb m = {
		.handle = pick_handle(c, dev, &size), .pad = one_in(c, 20),
	};

	return xioctl(c->fd[dev], DRM_IOCTL_MODE_MAP_DUMB, &m);
}

static int op_dumb_destroy(struct ctx *c)
{
	int dev = pick_dev(c), ret;
	uint64_t size;
	struct drm_mode_destroy_dumb d = { .handle = pick_handle(c, dev, &size) };

	ret = xioctl(c->fd[dev], DRM_IOCTL_MODE_DESTROY_DUMB, &d);
	if (!ret)
		forget_handle(c, dev, d.handle);
	return ret;
}

/* ---- CPU mappings ---- */

static int op_mmap(struct ctx *c)
{
	static const int prots[] = {
		PROT_READ | PROT_WRITE, PROT_READ | PROT_WRITE, PROT_READ | PROT_WRITE,
		PROT_READ | PROT_WRITE, PROT_READ, PROT_WRITE, PROT_NONE,
	};
	struct map *m = NULL;
	uint64_t size, fake = 0, pages, off = 0;
	int fd, prot, flags;
	size_t len;
	void *p;

	for (unsigned int i = 0; i < MAX_MAPS && !m; i++)
		if (!c->map[i].ptr)
			m = &c->map[i];
	if (!m)
		return SKIP;
	if (one_in(c, 3) && pick_buf(c)) {
		struct buf *b = pick_buf(c);

		fd = b->fd;
		size = b->size;
	} else {
		struct bo *b = pick_bo(c, -1);
		struct drm_gembuf_gem_mmap_offset mo = { 0 };
		int ret;

		if (!b)
			return SKIP;
		fd = c->fd[b->dev];
		size = b->size;
		mo.handle = b->handle;
		ret = xioctl(fd, DRM_IOCTL_GEMBUF_GEM_MMAP_OFFSET, &mo);
		if (ret)
			return ret;
		fake = mo.offset;
	}
	pages = (size + 4095) / 4096;
	if (one_in(c, 4))
		off = below(c, pages + 2);	/* past the end too */
	len = 4096 * (pages > off ? pages - off : 1);	/* the rest of it */
	if (one_in(c, 4))
		len = 4096 * (1 + below(c, pages + 1));
	else if (one_in(c, 4))
		len = 4096;
	if (one_in(c, 50))
		len = one_in(c, 2) ? 0 : 1;
	prot = prots[below(c, ARRAY_SIZE(prots))];
	flags = one_in(c, 10) ? MAP_PRIVATE : MAP_SHARED;
	p = mmap(NULL, len, prot, flags, fd, fake + off * 4096);
	if (p == MAP_FAILED)
		return -errno;
	m->ptr = p;
	m->len = len;
	m->prot = prot;
	/* Private copies and mappings past the end are not ours to touch. */
	m->avail = flags == MAP_PRIVATE || off >= pages ? 0 : size - off * 4096;
	return 0;
}

static int op_touch(struct ctx *c)
{
	struct map *m = pick_map(c, true);
	size_t lim;

	if (!m)
		return SKIP;
	lim = m->len < m->avail ? m->len : m->avail;
	for (unsigned int n = 1 + below(c, 4); n--; ) {
		uint32_t *p = (uint32_t *)(m->ptr + 4 * below(c, lim / 4));

		/* Atomic accesses: the compiler may neither drop nor merge them. */
		if ((m->prot & PROT_WRITE) && (one_in(c, 2) || !(m->prot & PROT_READ)))
			__atomic_store_n(p, rnd(c), __ATOMIC_RELAXED);
		else if (m->prot & PROT_READ)
			__atomic_load_n(p, __ATOMIC_RELAXED);
	}
	INC(touches);
	return 0;
}

static int op_munmap(struct ctx *c)
{
	struct map *m = pick_map(c, false);

	if (!m)
		return SKIP;
	if (one_in(c, 8) && m->len > 4096) {
		/* Part of it: what remains is left alone until exit. */
		if (munmap(m->ptr + (one_in(c, 2) ? 0 : m->len - 4096), 4096))
			return -errno;
	} else if (munmap(m->ptr, m->len)) {
		return -errno;
	}
	memset(m, 0, sizeof(*m));
	return 0;
}

static int op_mremap(struct ctx *c)
{
	struct map *m = pick_map(c, false);
	size_t len;
	void *p;

	if (!m)
		return SKIP;
	len = m->len + 4096 * (1 + below(c, 4));	/* grow */
	if (one_in(c, 2))	/* shrink */
		len = m->len > 4096 ? (m->len / 2 + 4095) & ~4095ul : 4096;
	else if (one_in(c, 4))
		len = m->len;
	p = mremap(m->ptr, m->len, len, one_in(c, 2) ? MREMAP_MAYMOVE : 0);
	if (p == MAP_FAILED)
		return -errno;
	m->ptr = p;
	m->len = len;
	return 0;
}

static int op_mprotect(struct ctx *c)
{
	static const int prots[] = {
		PROT_READ, PROT_READ | PROT_WRITE, PROT_NONE, PROT_WRITE,
	};
	struct map *m = pick_map(c, false);
	int prot = prots[below(c, ARRAY_SIZE(prots))];
	bool part;

	if (!m)
		return SKIP;
	part = one_in(c, 8) && m->len > 4096;
	if (mprotect(m->ptr, part ? 4096 : m->len, prot))
		return -errno;
	/* A part changed: what is allowed everywhere is what both allow. */
	m->prot = part ? m->prot & prot : prot;
	return 0;
}

static int op_madvise(struct ctx *c)
{
	static const int advice[] = {
		MADV_DONTNEED, MADV_DONTNEED, MADV_WILLNEED, MADV_DOFORK,
		MADV_DONTFORK, MADV_REMOVE, MADV_COLD,
	};
	struct map *m = pick_map(c, false);

	if (!m)
		return SKIP;
	if (madvise(m->ptr, one_in(c, 4) ? 4096 : m->len,
		    advice[below(c, ARRAY_SIZE(advice))]))
		return -errno;
	return 0;
}

/* ---- dma-buf CPU sync and sync files ---- */

static int op_sync(struct ctx *c)
{
	static const uint64_t flags[] = {
		DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ, DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW,
		DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ, DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW,
		DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE, 0, ~0ull,
	};
	struct buf *b = pick_buf(c);
	struct dma_buf_sync s = { .flags = flags[below(c, ARRAY_SIZE(flags))] };

	if (!b)
		return SKIP;
	if (one_in(c, 10))
		s.flags = rnd(c);
	return xioctl(b->fd, DMA_BUF_IOCTL_SYNC, &s);
}

static uint32_t sync_flags(struct ctx *c)
{
	static const uint32_t f[] = {
		DMA_BUF_SYNC_READ, DMA_BUF_SYNC_WRITE, DMA_BUF_SYNC_RW, 0,
	};

	return one_in(c, 10) ? rnd(c) : f[below(c, ARRAY_SIZE(f))];
}

static void sync_file_info(struct ctx *c, int fd)
{
	struct sync_fence_info fi[8];
	struct sync_file_info in;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	memset(&in, 0, sizeof(in));
	if (xioctl(fd, SYNC_IOC_FILE_INFO, &in))
		return;
	memset(&in, 0, sizeof(in));
	/* Room for none to 8: the kernel refuses too little room. */
	in.num_fences = below(c, ARRAY_SIZE(fi) + 1);
	in.sync_fence_info = one_in(c, 5) ? (one_in(c, 2) ? 8 : 0) : (uintptr_t)fi;
	in.flags = one_in(c, 10);
	xioctl(fd, SYNC_IOC_FILE_INFO, &in);
	poll(&pfd, 1, 0);
}

static int op_export_sync(struct ctx *c)
{
	struct buf *b = pick_buf(c);
	struct dma_buf_export_sync_file e = { .flags = sync_flags(c), .fd = -1 };
	int ret;

	if (!b)
		return SKIP;
	ret = xioctl(b->fd, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &e);
	if (!ret) {
		sync_file_info(c, e.fd);
		close(e.fd);
	}
	return ret;
}

/* sw_sync's uapi is private to the kernel: as lib/sw_sync.c, without asserts */
struct sw_sync_create_fence_data { uint32_t value; char name[32]; int32_t fence; };
#define SW_SYNC_IOC_CREATE_FENCE _IOWR('W', 0, struct sw_sync_create_fence_data)
#define SW_SYNC_IOC_INC		 _IOW('W', 1, uint32_t)

/*
 * Imported fences are signalled within the op: a sw_sync fence at the
 * next point of the thread's timeline, which the op then reaches.
 */
static int op_import_sync(struct ctx *c)
{
	struct buf *b = pick_buf(c);
	struct dma_buf_import_sync_file im = { .flags = sync_flags(c), .fd = -1 };
	struct sw_sync_create_fence_data f = { .value = c->seqno + 1, .name = "fuzz" };
	bool timeline = false;
	int ret;

	if (!b)
		return SKIP;
	switch (below(c, 6)) {
	case 0:
		im.fd = one_in(c, 2) ? -1 : c->fd[DEV_ENGINE];
		break;
	case 1: {
		struct buf *o = pick_buf(c);
		struct dma_buf_export_sync_file e = { .flags = DMA_BUF_SYNC_RW, .fd = -1 };

		if (!xioctl(o->fd, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &e))
			im.fd = e.fd;
		break;
	}
	default:
		if (c->timeline >= 0 && !xioctl(c->timeline, SW_SYNC_IOC_CREATE_FENCE, &f)) {
			im.fd = f.fence;
			timeline = true;
		}
	}
	ret = xioctl(b->fd, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &im);
	if (timeline) {
		uint32_t one = 1;

		if (!xioctl(c->timeline, SW_SYNC_IOC_INC, &one))
			c->seqno++;
	}
	if (im.fd >= 0 && im.fd != c->fd[DEV_ENGINE])
		close(im.fd);
	return ret;
}

/* ---- framebuffers ---- */

static uint32_t fmt_cpp(uint32_t format)
{
	switch (format) {
	case DRM_FORMAT_RGB565:
	case DRM_FORMAT_YUYV:
	case DRM_FORMAT_UYVY:
		return 2;
	case DRM_FORMAT_XRGB16161616:
	case DRM_FORMAT_ARGB16161616:
		return 8;
	case DRM_FORMAT_NV12:
	case DRM_FORMAT_NV21:
	case DRM_FORMAT_C8:
		return 1;
	default:
		return 4;
	}
}

static const uint32_t formats[] = {
	DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888, DRM_FORMAT_XBGR8888,
	DRM_FORMAT_ABGR8888, DRM_FORMAT_RGB565, DRM_FORMAT_XRGB2101010,
	DRM_FORMAT_XRGB16161616, DRM_FORMAT_ARGB16161616, DRM_FORMAT_YUYV,
	DRM_FORMAT_UYVY, DRM_FORMAT_NV12,
	DRM_FORMAT_C8, DRM_FORMAT_NV21,		/* not gembuf's */
};

static int op_addfb(struct ctx *c)
{
	static const uint64_t mods[] = {
		DRM_FORMAT_MOD_LINEAR, DRM_FORMAT_MOD_INVALID, I915_FORMAT_MOD_X_TILED,
	};
	int dev = one_in(c, 10) ? DEV_ENGINE : DEV_DISPLAY, ret;
	struct drm_mode_fb_cmd2 f = { 0 };
	uint64_t size, mod;

	f.handles[0] = pick_handle(c, dev, &size);
	f.pixel_format = one_in(c, 12) ? rnd(c) : formats[below(c, ARRAY_SIZE(formats))];
	f.width = 1 + below(c, 256);
	f.height = 1 + below(c, 256);
	if (one_in(c, 8)) {
		f.width = one_in(c, 3) ? 0 : one_in(c, 2) ? 16384 : rnd(c);
		f.height = rnd(c) & 0xffff;
	}
	f.pitches[0] = f.width * fmt_cpp(f.pixel_format);
	if (one_in(c, 3)) {	/* none, misaligned, garbage or padded */
		const uint32_t pitch[] = { 0, f.pitches[0] + 1, rnd(c), f.pitches[0] + 64 };

		f.pitches[0] = pitch[below(c, 4)];
	}
	if (one_in(c, 6))
		f.offsets[0] = one_in(c, 2) ? 4096 : rnd(c);
	if (f.pixel_format == DRM_FORMAT_NV12 || one_in(c, 10)) {
		f.handles[1] = one_in(c, 8) ? pick_handle(c, dev, &size) : f.handles[0];
		f.pitches[1] = f.pitches[0];
		f.offsets[1] = f.offsets[0] + f.pitches[0] * f.height;
	}
	if (one_in(c, 3)) {
		f.flags = DRM_MODE_FB_MODIFIERS;
		mod = one_in(c, 8) ? ((uint64_t)rnd(c) << 32 | rnd(c)) : mods[below(c, 3)];
		for (int i = 0; i < 4; i++)
			f.modifier[i] = f.handles[i] ? mod : 0;
	}
	if (one_in(c, 30))
		f.flags |= 1u << below(c, 32);
	ret = xioctl(c->fd[dev], DRM_IOCTL_MODE_ADDFB2, &f);
	if (!ret && dev == DEV_DISPLAY) {
		unsigned int i = below(c, MAX_FBS);

		if (c->fb[i])
			drmModeRmFB(c->fd[DEV_DISPLAY], c->fb[i]);
		c->fb[i] = f.fb_id;
	}
	return ret;
}

static int op_rmfb(struct ctx *c)
{
	unsigned int i = below(c, MAX_FBS);
	uint32_t id = c->fb[i] && !one_in(c, 8) ? c->fb[i] : one_in(c, 2) ? 0 :
		      c->kind == KMS ? ~0u : below(c, 256);	/* others' ids */
	int ret = xioctl(c->fd[DEV_DISPLAY], DRM_IOCTL_MODE_RMFB, &id);

	if (!ret && id == c->fb[i])
		c->fb[i] = 0;
	return ret;
}

/* ---- children ---- */

static void worker_loop(struct ctx *c, uint64_t max_ops);

static int op_fork(struct ctx *c)
{
	int status;
	pid_t pid;

	if (c->is_child || now_ns() + NSEC > t_deadline)
		return SKIP;
	if (c->child > 0) {
		if (waitpid(c->child, &status, WNOHANG) <= 0)
			return SKIP;
		bad_exit(c->child, status, false, "child");
		c->child = 0;
	}
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/*
		 * Same fds, same handles, the same mappings; the child leaves
		 * the parent's alone, and they go with it when it exits.
		 */
		c->id += 0x100 * ++c->nforks;
		c->rng = mix(seed ^ c->id);
		c->is_child = true;
		c->child = 0;
		memset(c->map, 0, sizeof(c->map));
		worker_loop(c, CHILD_OPS);
		_exit(0);
	}
	c->child = pid;
	c->nforks++;
	INC(forks);
	return 0;
}

/* ---- KMS ---- */

static void add(drmModeAtomicReqPtr req, uint32_t obj, uint32_t prop, uint64_t v)
{
	if (prop)
		drmModeAtomicAddProperty(req, obj, prop, v);
}

static bool pool_pick(struct ctx *c, struct fbi *out)
{
	uint32_t start = below(c, MAX_POOL);
	bool found = false;

	pthread_mutex_lock(&kms.lock);
	for (unsigned int i = 0; i < MAX_POOL && !found; i++) {
		*out = kms.pool[(start + i) % MAX_POOL];
		found = out->id;
	}
	pthread_mutex_unlock(&kms.lock);
	return found;
}

/* A framebuffer to scan out: valid, small, on the display or the engine. */
static int op_fb_make(struct ctx *c)
{
	struct fbi fb = { .format = formats[below(c, 11)] };
	uint32_t cpp, pitch, handles[4] = { 0 }, pitches[4] = { 0 }, offsets[4] = { 0 };
	uint64_t size;
	int dev = one_in(c, 5) ? DEV_ENGINE : DEV_MASTER, ret;
	struct drm_gembuf_gem_create cr = { .cache = below(c, 3) };
	struct drm_prime_handle p = { .flags = DRM_CLOEXEC | DRM_RDWR };

	fb.w = 2 * (1 + below(c, 128));
	fb.h = 2 * (1 + below(c, 96));
	if (one_in(c, 4)) {
		fb.w = fb.h = 8 * (1 + below(c, 8));	/* a cursor */
		fb.format = DRM_FORMAT_ARGB8888;
	}
	cpp = fmt_cpp(fb.format);
	pitch = fb.w * cpp + (one_in(c, 4) ? 64 : 0);
	size = (uint64_t)pitch * fb.h;
	if (fb.format == DRM_FORMAT_NV12) {
		offsets[1] = size;
		pitches[1] = pitch;
		size += size / 2;
	}
	cr.size = size;
	ret = xioctl(c->fd[dev], DRM_IOCTL_GEMBUF_GEM_CREATE, &cr);
	if (ret)
		return ret;
	if (dev == DEV_ENGINE) {
		/* The display scans out the engine's object through PRIME. */
		p.handle = cr.handle;
		ret = xioctl(c->fd[DEV_ENGINE], DRM_IOCTL_PRIME_HANDLE_TO_FD, &p);
		gem_close_raw(c->fd[DEV_ENGINE], cr.handle);
		if (ret)
			return ret;
		p.flags = 0;
		ret = xioctl(kms.fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &p);
		close(p.fd);
		if (ret)
			return ret;
		cr.handle = p.handle;
	}
	handles[0] = cr.handle;
	handles[1] = offsets[1] ? cr.handle : 0;
	pitches[0] = pitch;
	ret = drmModeAddFB2(kms.fd, fb.w, fb.h, fb.format, handles, pitches, offsets,
			    &fb.id, 0) ? -errno : 0;
	/* Half the time, the framebuffer alone holds the object. */
	if (ret || one_in(c, 2))
		gem_close_raw(kms.fd, cr.handle);
	else
		add_bo(c, DEV_MASTER, cr.handle, cr.size);
	if (ret)
		return ret;
	pthread_mutex_lock(&kms.lock);
	{
		struct fbi *slot = &kms.pool[below(c, MAX_POOL)];
		uint32_t old = slot->id;

		*slot = fb;
		pthread_mutex_unlock(&kms.lock);
		if (old)
			drmModeRmFB(kms.fd, old);
	}
	return 0;
}

static int op_fb_rm(struct ctx *c)
{
	struct fbi *slot;
	uint32_t id;

	pthread_mutex_lock(&kms.lock);
	slot = &kms.pool[below(c, MAX_POOL)];
	id = slot->id;
	slot->id = 0;
	pthread_mutex_unlock(&kms.lock);
	if (!id)
		return SKIP;
	/* It may be on a plane: RMFB takes it off. */
	return drmModeRmFB(kms.fd, id) ? -errno : 0;
}

/*
 * Writeback out-fences in flight: fence @i is dropped once signalled or,
 * waited for @ms > 0, late.  Reported, not asserted.
 */
static bool wb_check(struct ctx *c, unsigned int i, int ms)
{
	struct pollfd p = { .fd = c->wb[i], .events = POLLIN };
	bool signalled = poll(&p, 1, ms) == 1;

	if (!signalled && ms <= 0)
		return false;
	if (signalled)
		INC(wb_signalled);
	else
		INC(wb_late);
	close(c->wb[i]);
	c->wb[i] = c->wb[--c->nwb];
	return true;
}

static void wb_poll(struct ctx *c, int ms)
{
	for (unsigned int i = 0; i < c->nwb; )
		if (!wb_check(c, i, ms))
			i++;
}

static void wb_add(struct ctx *c, int fence)
{
	if (c->nwb == MAX_WB)
		wb_check(c, 0, 1000);
	c->wb[c->nwb++] = fence;
	INC(wb_queued);
}

static void plane_props(struct ctx *c, drmModeAtomicReqPtr req, const struct gk *k,
			const struct gk_plane *p, const drmModeModeInfo *mode)
{
	static const uint64_t rotations[] = {
		DRM_MODE_ROTATE_0, DRM_MODE_ROTATE_90, DRM_MODE_ROTATE_180,
		DRM_MODE_ROTATE_270, DRM_MODE_ROTATE_0 | DRM_MODE_REFLECT_X,
		DRM_MODE_ROTATE_90 | DRM_MODE_REFLECT_Y, 0, 0x40,
	};
	uint32_t sx = 0, sy = 0, sw, sh, w, h;
	struct fbi fb;
	int x, y;

	if (!pool_pick(c, &fb) || one_in(c, 6)) {
		add(req, p->id, k->p_fb, 0);
		add(req, p->id, k->p_crtc, one_in(c, 4) ? k->crtc_id : 0);
		return;
	}
	add(req, p->id, k->p_fb, one_in(c, 30) ? rnd(c) : fb.id);
	add(req, p->id, k->p_crtc, one_in(c, 30) ? kms.k[!k->pipe].crtc_id : k->crtc_id);
	sw = fb.w;
	sh = fb.h;
	if (one_in(c, 3)) {
		sx = below(c, fb.w);
		sy = below(c, fb.h);
		sw = 1 + below(c, fb.w - sx);
		sh = 1 + below(c, fb.h - sy);
	}
	w = sw;
	h = sh;
	if (one_in(c, 3)) {	/* scaled, within range or beyond it */
		const uint32_t ws[] = { w * 2, (w + 1) / 2, w * 9, below(c, 4096) };
		const uint32_t hs[] = { h * 2, (h + 1) / 2, h, below(c, 4096) };

		w = ws[below(c, 4)];
		h = hs[below(c, 4)];
	}
	x = (int)below(c, mode->hdisplay + 64) - 32;
	y = (int)below(c, mode->vdisplay + 64) - 32;
	if (one_in(c, 20)) {
		sx = rnd(c);
		sw = rnd(c);
		x = (int)rnd(c);
	} else {
		sx <<= 16; sy <<= 16; sw <<= 16; sh <<= 16;
	}
	add(req, p->id, k->p_sx, sx);
	add(req, p->id, k->p_sy, sy);
	add(req, p->id, k->p_sw, sw);
	add(req, p->id, k->p_sh, sh);
	add(req, p->id, k->p_cx, (uint64_t)(int64_t)x);
	add(req, p->id, k->p_cy, (uint64_t)(int64_t)y);
	add(req, p->id, k->p_cw, w);
	add(req, p->id, k->p_ch, h);
	if (one_in(c, 3) && (p->type == DRM_PLANE_TYPE_OVERLAY || one_in(c, 10)))
		add(req, p->id, p->zpos_prop, one_in(c, 20) ? 9 : below(c, 5));
	if (one_in(c, 3))
		add(req, p->id, p->alpha_prop, rnd(c) & 0xffff);
	if (one_in(c, 4))
		add(req, p->id, p->blend_prop, below(c, 4));
	if (one_in(c, 4))
		add(req, p->id, p->rotation_prop, rotations[below(c, ARRAY_SIZE(rotations))]);
}

/*
 * A plane state the display takes: a framebuffer of the pool on a
 * primary or overlay plane of the CRTC, all of it, unscaled or twice its
 * size, inside the mode, with the blending and rotation the plane offers.
 */
static void plane_props_valid(struct ctx *c, drmModeAtomicReqPtr req,
			      const struct gk *k, const struct gk_plane *p,
			      const drmModeModeInfo *mode)
{
	static const uint64_t rotations[] = {
		DRM_MODE_ROTATE_0, DRM_MODE_ROTATE_90, DRM_MODE_ROTATE_180,
		DRM_MODE_ROTATE_270, DRM_MODE_ROTATE_0 | DRM_MODE_REFLECT_X,
	};
	uint32_t w, h, scale = one_in(c, 3) ? 2 : 1;
	struct fbi fb;

	if (!pool_pick(c, &fb) || one_in(c, 8)) {
		add(req, p->id, k->p_fb, 0);
		add(req, p->id, k->p_crtc, 0);
		return;
	}
	w = fb.w * scale;
	h = fb.h * scale;
	add(req, p->id, k->p_fb, fb.id);
	add(req, p->id, k->p_crtc, k->crtc_id);
	add(req, p->id, k->p_sx, 0);
	add(req, p->id, k->p_sy, 0);
	add(req, p->id, k->p_sw, (uint64_t)fb.w << 16);
	add(req, p->id, k->p_sh, (uint64_t)fb.h << 16);
	add(req, p->id, k->p_cx, w < mode->hdisplay ? below(c, mode->hdisplay - w) : 0);
	add(req, p->id, k->p_cy, h < mode->vdisplay ? below(c, mode->vdisplay - h) : 0);
	add(req, p->id, k->p_cw, w);
	add(req, p->id, k->p_ch, h);
	if (one_in(c, 3))
		add(req, p->id, p->alpha_prop, rnd(c) & 0xffff);
	if (one_in(c, 4))
		add(req, p->id, p->blend_prop, below(c, 3));
	if (one_in(c, 4) && fb.format != DRM_FORMAT_NV12)
		add(req, p->id, p->rotation_prop, rotations[below(c, ARRAY_SIZE(rotations))]);
}

/* One field of a valid request made wrong, the rest left as it was. */
static void perturb(struct ctx *c, drmModeAtomicReqPtr req, const struct gk *k,
		    uint32_t *flags)
{
	const struct gk_plane *p = &k->planes[below(c, k->num_planes)];

	switch (below(c, 8)) {
	case 0:
		add(req, p->id, k->p_fb, rnd(c));
		break;
	case 1:
		add(req, p->id, k->p_crtc, rnd(c));
		break;
	case 2:
		add(req, p->id, k->p_sw, (uint64_t)rnd(c) << 8);
		break;
	case 3:
		add(req, p->id, k->p_cx, (uint64_t)(int64_t)(int32_t)rnd(c));
		break;
	case 4:
		add(req, p->id, p->rotation_prop, rnd(c) & 0xff);
		break;
	case 5:
		add(req, p->id, p->zpos_prop, below(c, 12));
		break;
	case 6:
		add(req, k->crtc_id, k->crtc_mode_id, rnd(c));
		break;
	default:
		*flags |= 1u << below(c, 32);
		break;
	}
}

/*
 * Three commits in four start valid (plane_props_valid(), the writeback
 * buffer of the mode, a modeset with a mode of the connector's), and one
 * in three of those gets one field perturbed: most reach the composer
 * and writeback, not only the atomic check.  The rest are random.
 */
static int op_commit(struct ctx *c)
{
	unsigned int pipe = kms.npipes > 1 && one_in(c, 5) ? !c->pipe : c->pipe;
	bool valid = !one_in(c, 4), perturbed = valid && one_in(c, 3);
	unsigned int mode = __atomic_load_n(&kms.cur_mode[pipe], __ATOMIC_RELAXED);
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	const struct gk *k = &kms.k[pipe];
	bool modeset = one_in(c, 6);
	uint32_t flags = 0;
	int32_t fence = -1;
	int ret;

	if (!req)
		return -ENOMEM;
	if (modeset && valid) {
		mode = below(c, kms.nmodes);
		add(req, k->crtc_id, k->crtc_active, 1);
		add(req, k->crtc_id, k->crtc_mode_id, kms.blob[pipe][mode]);
		add(req, k->conn_id, k->conn_crtc_id, k->crtc_id);
		flags |= DRM_MODE_ATOMIC_ALLOW_MODESET;
	} else if (modeset) {
		bool on = !one_in(c, 4);

		mode = below(c, kms.nmodes);
		add(req, k->crtc_id, k->crtc_active, on);
		add(req, k->crtc_id, k->crtc_mode_id,
		    one_in(c, 20) ? rnd(c) : on || one_in(c, 2) ? kms.blob[pipe][mode] : 0);
		add(req, k->conn_id, k->conn_crtc_id, one_in(c, 3) ? 0 : k->crtc_id);
		if (!one_in(c, 8))
			flags |= DRM_MODE_ATOMIC_ALLOW_MODESET;
	}
	for (unsigned int n = 1 + below(c, 3); valid && n--; ) {
		const struct gk_plane *p = &k->planes[below(c, k->num_planes)];

		if (p->type != DRM_PLANE_TYPE_CURSOR)
			plane_props_valid(c, req, k, p, &kms.modes[mode]);
	}
	for (unsigned int n = 1 + below(c, 3); !valid && n--; ) {
		const struct gk *pk = kms.npipes > 1 && one_in(c, 20) ? &kms.k[!pipe] : k;

		plane_props(c, req, k, &pk->planes[below(c, pk->num_planes)],
			    &kms.modes[mode]);
	}
	if (valid && one_in(c, 3)) {
		add(req, k->wb_id, k->wb_crtc_id, k->crtc_id);
		add(req, k->wb_id, k->wb_fb_prop, kms.wb[pipe][mode].fb_id);
		add(req, k->wb_id, k->wb_fence_prop, (uintptr_t)&fence);
	} else if (!valid && one_in(c, 3)) {
		struct fbi fb = { 0 };
		uint32_t r = below(c, 10);

		if (one_in(c, 8))
			pool_pick(c, &fb);
		else
			fb.id = kms.wb[pipe][mode].fb_id;
		add(req, k->wb_id, k->wb_crtc_id, one_in(c, 10) ? 0 : k->crtc_id);
		add(req, k->wb_id, k->wb_fb_prop, fb.id);
		if (r < 8)
			add(req, k->wb_id, k->wb_fence_prop, (uintptr_t)&fence);
		else if (r == 8)
			add(req, k->wb_id, k->wb_fence_prop, 8);
	}
	if (one_in(c, 6))
		flags |= DRM_MODE_ATOMIC_TEST_ONLY;
	if (one_in(c, 3))
		flags |= DRM_MODE_ATOMIC_NONBLOCK;
	if (one_in(c, 4))
		flags |= DRM_MODE_PAGE_FLIP_EVENT;
	if (one_in(c, 4))
		flags |= DRM_MODE_ATOMIC_ALLOW_MODESET;
	if (!valid && one_in(c, 50))
		flags |= 1u << below(c, 32);
	if (perturbed)
		perturb(c, req, k, &flags);
	ret = drmModeAtomicCommit(kms.fd, req, flags, NULL) ? -errno : 0;
	drmModeAtomicFree(req);
	if (perturbed) {
		INC(perturbed);
		if (!ret)
			INC(perturbed_ok);
	} else if (valid) {
		INC(valid);
		if (!ret)
			INC(valid_ok);
	} else if (!ret) {
		INC(random_ok);
	}
	if (!ret && !(flags & DRM_MODE_ATOMIC_TEST_ONLY))
		INC(applied);
	if (!ret && modeset && !(flags & DRM_MODE_ATOMIC_TEST_ONLY))
		__atomic_store_n(&kms.cur_mode[pipe], mode, __ATOMIC_RELAXED);
	if (!ret && fence >= 0)
		wb_add(c, fence);
	if (!ret && !(flags & DRM_MODE_ATOMIC_TEST_ONLY))
		usleep(below(c, 20000));	/* rate limit: composing is slow */
	return ret;
}

static int op_legacy(struct ctx *c)
{
	const struct gk *k = &kms.k[c->pipe];
	const drmModeModeInfo *m = &kms.modes[below(c, kms.nmodes)];
	struct fbi fb = { 0 };
	uint32_t conn = k->conn_id;
	int ret;

	pool_pick(c, &fb);
	if (one_in(c, 2)) {
		const struct gk_plane *p = &k->planes[below(c, k->num_planes)];

		ret = drmModeSetPlane(kms.fd, p->id, one_in(c, 8) ? 0 : k->crtc_id,
				      one_in(c, 8) ? 0 : fb.id, 0,
				      (int)below(c, m->hdisplay) - 16,
				      (int)below(c, m->vdisplay) - 16, fb.w, fb.h,
				      0, 0, fb.w << 16, fb.h << 16);
	} else if (one_in(c, 4)) {
		ret = drmModeSetCrtc(kms.fd, k->crtc_id, 0, 0, 0, NULL, 0, NULL);
	} else {
		ret = drmModeSetCrtc(kms.fd, k->crtc_id, fb.id, 0, 0, &conn, 1,
				     (drmModeModeInfo *)m);
	}
	return ret ? -errno : 0;
}

/* ---- the table ---- */

struct op {
	const char *name;
	int (*fn)(struct ctx *c);
	unsigned int weight[2];	/* RENDER, KMS */
};

static const struct op ops[] = {
	{ "create", op_create, { 10, 3 } },
	{ "close", op_close, { 8, 2 } },
	{ "mmap-offset", op_mmap_offset, { 3, 0 } },
	{ "info", op_info, { 5, 1 } },
	{ "dma-fill", op_fill, { 3, 0 } },
	{ "dma-copy", op_copy, { 3, 0 } },
	{ "wait", op_wait, { 4, 1 } },
	{ "flink", op_flink, { 2, 0 } },
	{ "open", op_open, { 2, 0 } },
	{ "prime-export", op_export, { 5, 1 } },
	{ "prime-import", op_import, { 5, 1 } },
	{ "dmabuf-close", op_buf_close, { 3, 1 } },
	{ "heap-alloc", op_heap, { 2, 0 } },
	{ "dumb-create", op_dumb_create, { 3, 1 } },
	{ "dumb-map", op_dumb_map, { 2, 0 } },
	{ "dumb-destroy", op_dumb_destroy, { 2, 0 } },
	{ "mmap", op_mmap, { 8, 2 } },
	{ "touch", op_touch, { 10, 2 } },
	{ "munmap", op_munmap, { 5, 1 } },
	{ "mremap", op_mremap, { 3, 0 } },
	{ "mprotect", op_mprotect, { 2, 0 } },
	{ "madvise", op_madvise, { 2, 0 } },
	{ "dmabuf-sync", op_sync, { 3, 0 } },
	{ "export-sync-file", op_export_sync, { 2, 0 } },
	{ "import-sync-file", op_import_sync, { 2, 0 } },
	{ "addfb2", op_addfb, { 3, 2 } },
	{ "rmfb", op_rmfb, { 2, 1 } },
	{ "fork", op_fork, { 1, 0 } },
	{ "fb-make", op_fb_make, { 0, 6 } },
	{ "fb-remove", op_fb_rm, { 0, 2 } },
	{ "atomic-commit", op_commit, { 0, 20 } },
	{ "legacy-set", op_legacy, { 0, 2 } },
};

static void run_one(struct ctx *c)
{
	unsigned int total = 0, r, i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(ops); i++)
		total += ops[i].weight[c->kind];
	r = below(c, total);
	for (i = 0; r >= ops[i].weight[c->kind]; i++)
		r -= ops[i].weight[c->kind];
	ret = ops[i].fn(c);
	if (ret == SKIP)
		return;
	INC(ops[i]);
	if (ret) {
		INC(fails[i]);
		__atomic_fetch_add(&st->err[-ret < MAX_ERRNO ? -ret : 0], 1, __ATOMIC_RELAXED);
	}
}

static void worker_loop(struct ctx *c, uint64_t max_ops)
{
	char ev[1024];

	for (uint64_t n = 0; n < max_ops && now_ns() < t_deadline; n++) {
		run_one(c);
		if (c->kind == KMS) {
			wb_poll(c, 0);
			/* The fd is non-blocking: drain flip events so they never pile up. */
			while (read(kms.fd, ev, sizeof(ev)) > 0)
				INC(events);
		}
		if (one_in(c, 8))
			usleep(below(c, 4000));
	}
}

static void *thread_main(void *arg)
{
	struct ctx *c = arg;
	int status;

	c->timeline = open(SW_SYNC_PATH, O_RDWR | O_CLOEXEC);
	worker_loop(c, (uint64_t)OPS_PER_S * seconds);
	if (c->child > 0 && waitpid(c->child, &status, 0) == c->child)
		bad_exit(c->child, status, false, "child");
	/* Writeback still due has a second each (MAX_WB at most) to show up. */
	wb_poll(c, 1000);
	return NULL;
}

/*
 * In "mixed", the workers' slab allocations fail at random as well
 * (failslab with its task filter: only tasks with make-it-fail set, the
 * workers and what they fork, see failures).
 */
static const char *const failslab_knobs[][2] = {
	{ "ignore-gfp-wait", "N" }, { "verbose", "0" }, { "interval", "1" },
	{ "times", "-1" }, { "task-filter", "Y" }, { "probability", "2" },
};
static char failslab_saved[ARRAY_SIZE(failslab_knobs)][32];
static bool faulty;

static bool knob_rw(const char *name, char *old, size_t len, const char *v)
{
	char path[128];
	ssize_t n = 0;
	int fd;

	snprintf(path, sizeof(path), "/sys/kernel/debug/failslab/%s", name);
	fd = open(path, O_RDWR);
	if (fd < 0)
		return false;
	if (old) {
		n = read(fd, old, len - 1);
		old[n > 0 ? n : 0] = 0;
		lseek(fd, 0, SEEK_SET);
	}
	n = write(fd, v, strlen(v));
	close(fd);
	return n == (ssize_t)strlen(v);
}

static void failslab_on(void)
{
	faulty = true;
	for (unsigned int i = 0; faulty && i < ARRAY_SIZE(failslab_knobs); i++)
		faulty = knob_rw(failslab_knobs[i][0], failslab_saved[i],
				 sizeof(failslab_saved[i]), failslab_knobs[i][1]);
	igt_info("failslab for the workers: %s\n", faulty ? "2%" : "not available");
}

static void failslab_off(void)
{
	/* Probability first: nothing fails while the rest goes back. */
	for (int i = ARRAY_SIZE(failslab_knobs) - 1; i >= 0; i--)
		if (failslab_saved[i][0])
			knob_rw(failslab_knobs[i][0], NULL, 0, failslab_saved[i]);
	faulty = false;
}

static void worker_main(int kind, unsigned int idx, int master, int display, int engine)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGILL };
	unsigned int n = kind == KMS ? kms.npipes + 1 : NR_THREADS, i;
	pthread_t th[4];
	bool started[4] = { false };
	struct ctx *c[4] = { NULL };
	int heap;

	/* Die of the signal, not igt's crash handler: the parent judges. */
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		signal(sigs[i], SIG_DFL);
	setpgid(0, 0);
	if (faulty) {
		int fd = open("/proc/self/make-it-fail", O_WRONLY);

		if (fd >= 0 && write(fd, "1", 1) != 1)
			_exit(1);
		if (fd >= 0)
			close(fd);
	}
	heap = open("/dev/dma_heap/system", O_RDWR | O_CLOEXEC);
	if (kind == KMS)
		fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
	for (i = 0; i < n; i++) {
		c[i] = calloc(1, sizeof(*c[i]));
		if (!c[i])
			_exit(1);
		c[i]->id = idx * 8 + i;
		c[i]->rng = mix(seed ^ c[i]->id);
		/* The KMS worker: a thread per CRTC, and one for objects. */
		c[i]->kind = kind == KMS && i < kms.npipes ? KMS : RENDER;
		c[i]->pipe = i < kms.npipes ? i : 0;
		c[i]->fd[DEV_DISPLAY] = c[i]->kind == KMS ? master : display;
		c[i]->fd[DEV_ENGINE] = engine;
		c[i]->fd[DEV_MASTER] = master;
		c[i]->heap = heap;
	}
	for (i = 1; i < n; i++)
		started[i] = !pthread_create(&th[i], NULL, thread_main, c[i]);
	thread_main(c[0]);
	for (i = 1; i < n; i++)
		if (started[i])
			pthread_join(th[i], NULL);
	_exit(0);
}

/* ---- the parent ---- */

struct worker { pid_t pid; int kind; bool killed; };

static pid_t spawn(int kind, unsigned int idx, int master)
{
	int display = gembuf_open_display(), engine = gembuf_open_engine();
	drm_magic_t magic;
	pid_t pid;

	/* The worker's own display fd, authenticated by the master. */
	if (!drmGetMagic(display, &magic))
		drmAuthMagic(master, magic);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	igt_assert(pid >= 0);
	if (pid == 0)
		worker_main(kind, idx, master, display, engine);
	close(display);
	close(engine);
	INC(workers);
	return pid;
}

/* Reap whatever exited; false once there are no children left. */
static bool reap(struct worker *w, unsigned int n)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		unsigned int i;

		for (i = 0; i < n && w[i].pid != pid; i++)
			;
		/* Not a worker: an orphaned child of a killed one. */
		bad_exit(pid, status, i < n && w[i].killed, i < n ? "worker" : "child");
		if (i < n)
			w[i].pid = 0;
	}
	return !(pid < 0 && errno == ECHILD);
}

static void kms_setup(int fd)
{
	drmModeConnectorPtr conn;
	struct gk_layer l;

	kms.fd = fd;
	kms.npipes = gk_num_pipes(fd) > 1 ? 2 : 1;
	kms.nmodes = 0;
	memset(kms.pool, 0, sizeof(kms.pool));
	for (unsigned int p = 0; p < kms.npipes; p++)
		gk_init_pipe(&kms.k[p], fd, p);
	/* 640x480 first, then the smallest others: composing is slow. */
	conn = drmModeGetConnector(fd, kms.k[0].conn_id);
	igt_assert(conn);
	for (int pass = 0; pass < 2; pass++)
		for (int i = conn->count_modes - 1; i >= 0 && kms.nmodes < MAX_MODES; i--) {
			const drmModeModeInfo *m = &conn->modes[i];
			bool vga = m->hdisplay == 640 && m->vdisplay == 480, dup = false;

			for (unsigned int j = 0; j < kms.nmodes; j++)
				dup |= kms.modes[j].hdisplay == m->hdisplay &&
				       kms.modes[j].vdisplay == m->vdisplay;
			if (!dup && (pass ? m->hdisplay <= 800 && m->vdisplay <= 600 : vga))
				kms.modes[kms.nmodes++] = *m;
		}
	drmModeFreeConnector(conn);
	igt_require_f(kms.nmodes && kms.modes[0].hdisplay == 640, "no 640x480 mode\n");

	gk_fb_create(&kms.k[0], &kms.init[0], 640, 480, DRM_FORMAT_XRGB8888);
	gk_fb_create(&kms.k[0], &kms.init[1], 64, 64, DRM_FORMAT_ARGB8888);
	gk_fb_create(&kms.k[0], &kms.init[2], 128, 96, DRM_FORMAT_NV12);
	gk_fb_create(&kms.k[0], &kms.init[3], 160, 120, DRM_FORMAT_RGB565);
	for (unsigned int i = 0; i < 4; i++)
		kms.pool[i] = (struct fbi){ kms.init[i].fb_id, kms.init[i].width,
					    kms.init[i].height, kms.init[i].format };
	l = gk_layer_of(&kms.init[0]);
	for (unsigned int p = 0; p < kms.npipes; p++) {
		for (unsigned int m = 0; m < kms.nmodes; m++) {
			igt_assert_eq(drmModeCreatePropertyBlob(fd, &kms.modes[m],
								sizeof(kms.modes[m]),
								&kms.blob[p][m]), 0);
			gk_fb_create(&kms.k[p], &kms.wb[p][m], kms.modes[m].hdisplay,
				     kms.modes[m].vdisplay, DRM_FORMAT_XRGB8888);
		}
		/* Start from a valid frame: 640x480, the primary plane on. */
		drmModeDestroyPropertyBlob(fd, kms.k[p].mode_blob);
		kms.k[p].mode = kms.modes[0];
		kms.k[p].mode_blob = kms.blob[p][0];
		kms.cur_mode[p] = 0;
		igt_assert_eq(gk_commit(&kms.k[p], &l, 1, NULL, 0), 0);
	}
}

/* Everything off, without asserting: the kernel has had a hard time. */
static void kms_cleanup(void)
{
	for (unsigned int p = 0; p < kms.npipes; p++) {
		int ret = __gk_disable(&kms.k[p]);

		if (ret)
			igt_warn("disabling CRTC %u: %s\n", kms.k[p].crtc_id, strerror(-ret));
		for (unsigned int m = 0; m < kms.nmodes; m++)
			munmap(kms.wb[p][m].map, kms.wb[p][m].size);
	}
	for (unsigned int i = 0; i < 4; i++)
		munmap(kms.init[i].map, kms.init[i].size);
}

static void report(const char *name, double secs)
{
	char line[1024];
	uint64_t total = 0, fails = 0;
	int len = 0;

	for (unsigned int i = 0; i < ARRAY_SIZE(ops); i++) {
		total += st->ops[i];
		fails += st->fails[i];
	}
	igt_info("%s: seed %u, %.1f s, %" PRIu64 " ops, %" PRIu64 " succeeded, %" PRIu64 " failed\n",
		 name, seed, secs, total, total - fails, fails);
	for (unsigned int i = 0; i < ARRAY_SIZE(ops); i++)
		if (st->ops[i])
			igt_info("  %-17s %8" PRIu64 " ops %8" PRIu64 " failed\n",
				 ops[i].name, st->ops[i], st->fails[i]);
	for (int e = 0; e < MAX_ERRNO && len < (int)sizeof(line) - 40; e++)
		if (st->err[e])
			len += snprintf(line + len, sizeof(line) - len, " %s %" PRIu64,
					e ? strerrorname_np(e) ?: "?" : "other",
					st->err[e]);
	igt_info("  errnos:%s\n", len ? line : " none");
	igt_info("  workers %" PRIu64 ", killed %" PRIu64 ", forked children %" PRIu64
		 ", touches %" PRIu64 ", DMA chunks %" PRIu64 ", events read %" PRIu64 "\n",
		 st->workers, st->kills, st->forks, st->touches, st->dma_chunks, st->events);
	igt_info("  writeback: %" PRIu64 " jobs queued, %" PRIu64 " signalled, %" PRIu64
		 " not within 1 s\n", st->wb_queued, st->wb_signalled, st->wb_late);
	if (st->valid + st->perturbed)
		igt_info("  atomic commits: %" PRIu64 " of %" PRIu64 " valid succeeded (%.0f%%), %"
			 PRIu64 " of %" PRIu64 " with one field perturbed, %" PRIu64
			 " random; %" PRIu64 " took effect (not TEST_ONLY)\n",
			 st->valid_ok, st->valid, 100.0 * st->valid_ok / (st->valid ?: 1),
			 st->perturbed_ok, st->perturbed, st->random_ok, st->applied);
}

static void fuzz(const char *name, int mode)
{
	static const char *const gauges[] = { "objects", "mappings", "fences", "jobs" };
	long start[ARRAY_SIZE(gauges)], now[ARRAY_SIZE(gauges)];
	unsigned int nw = 0, idx = 0, stuck = 0;
	struct worker w[NR_PROCS + 1];
	pid_t groups[512];
	unsigned int ngroups = 0;
	uint32_t prng = mix(seed ^ 0xfffffu);
	uint64_t next_kill, end;
	bool settled = false;
	int master;

	memset(st, 0, sizeof(*st));
	igt_info("seed %u\n", seed);
	for (unsigned int i = 0; i < ARRAY_SIZE(gauges); i++)
		start[i] = gembuf_state(gauges[i]);
	igt_require_f(start[0] >= 0, "no gembuf_state in debugfs\n");

	/* The parent holds the master, to authenticate workers' fds. */
	master = gembuf_open_display();
	if (drmSetMaster(master) && mode != MODE_RENDER) {
		close(master);
		igt_skip("not DRM master on the display\n");
	}
	if (mode != MODE_RENDER)
		kms_setup(master);
	if (mode == MODE_MIXED)
		failslab_on();
	t_start = now_ns();
	t_deadline = t_start + seconds * NSEC;
	if (mode != MODE_KMS)
		for (unsigned int i = 0; i < (mode == MODE_RENDER ? NR_PROCS : 2); i++)
			w[nw++] = (struct worker){ .kind = RENDER };
	if (mode != MODE_RENDER)
		w[nw++] = (struct worker){ .kind = KMS };
	for (unsigned int i = 0; i < nw; i++)
		groups[ngroups++] = w[i].pid = spawn(w[i].kind, idx++, master);

	next_kill = t_start + NSEC;
	while (now_ns() < t_deadline) {
		usleep(50000);
		reap(w, nw);
		if (mode == MODE_MIXED && now_ns() >= next_kill) {
			struct worker *x = &w[rnd32(&prng) % nw];

			if (x->pid && !x->killed && !kill(x->pid, SIGKILL)) {
				x->killed = true;
				INC(kills);
			}
			next_kill = now_ns() + (200 + rnd32(&prng) % 1800) * 1000000ull;
		}
		/* A killed worker is replaced while there is time left. */
		for (unsigned int i = 0; i < nw; i++)
			if (!w[i].pid && w[i].killed && ngroups < ARRAY_SIZE(groups) &&
			    now_ns() + 3 * NSEC < t_deadline) {
				w[i].killed = false;
				groups[ngroups++] = w[i].pid = spawn(w[i].kind, idx++, master);
			}
	}

	/* Every loop is bounded: give them a minute to notice. */
	for (end = now_ns() + 60 * NSEC; reap(w, nw) && now_ns() < end; )
		usleep(50000);
	if (faulty)
		failslab_off();
	if (reap(w, nw)) {
		for (unsigned int i = 0; i < ngroups; i++)
			kill(-groups[i], SIGKILL);
		for (end = now_ns() + 10 * NSEC; now_ns() < end; usleep(50000)) {
			pid_t pid = waitpid(-1, NULL, WNOHANG);

			if (pid < 0)
				break;
			stuck += pid > 0;
		}
	}

	if (mode != MODE_RENDER)
		kms_cleanup();
	close(master);
	/* DMA jobs and writeback may still be in flight: let them land. */
	for (end = now_ns() + 20 * NSEC; !settled && now_ns() < end; ) {
		settled = true;
		for (unsigned int i = 0; i < ARRAY_SIZE(gauges); i++) {
			now[i] = gembuf_state(gauges[i]);
			/* At most: jobs still being freed may count at the start. */
			settled &= start[i] < 0 || now[i] <= start[i];
		}
		if (!settled)
			usleep(200000);
	}
	report(name, (now_ns() - t_start) / 1e9);

	for (unsigned int i = 0; i < st->bad && i < ARRAY_SIZE(st->bad_msg); i++)
		igt_warn("%s\n", st->bad_msg[i]);
	igt_assert_f(!st->bad, "%" PRIu64 " workers or children died badly (seed %u)\n",
		     st->bad, seed);
	igt_assert_f(!stuck, "%u processes still running a minute after the deadline\n", stuck);
	igt_assert_f(!st->display_dma_ok, "DMA ioctls succeeded %" PRIu64 " times on the display\n",
		     st->display_dma_ok);
	/* Random testing that reaches the display reaches past its check. */
	igt_assert_f(st->valid < 50 || st->applied,
		     "none of %" PRIu64 " valid atomic commits took effect (seed %u)\n",
		     st->valid, seed);
	for (unsigned int i = 0; i < ARRAY_SIZE(gauges); i++)
		igt_assert_f(start[i] < 0 || now[i] <= start[i],
			     "gembuf_state %s: %ld at the start, %ld at the end (seed %u)\n",
			     gauges[i], start[i], now[i], seed);
}

igt_main
{
	igt_fixture {
		const char *s = getenv("GEMBUF_FUZZ_SEED");
		const char *t = getenv("GEMBUF_FUZZ_SECONDS");

		seed = s ? strtoul(s, NULL, 0) : (uint32_t)time(NULL) ^ (uint32_t)getpid() << 16;
		if (t && strtoul(t, NULL, 0) > 0)
			seconds = strtoul(t, NULL, 0);
		igt_info("seed %u, %u s per subtest\n", seed, seconds);
		st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		igt_assert(st != MAP_FAILED);
		/* Orphans of killed workers come back to us to be reaped. */
		igt_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
		close(gembuf_open_display());
		close(gembuf_open_engine());
	}

	igt_describe("Object, mapping, DMA, PRIME, dumb and framebuffer ioctls with random arguments from several processes and threads on both devices, no modeset; the gauges come back.");
	igt_subtest("render")
		fuzz("render", MODE_RENDER);

	igt_describe("One DRM master process makes random atomic commits (planes, modesets, writeback, flags) and legacy calls on both CRTCs while creating and removing framebuffers.");
	igt_subtest("kms")
		fuzz("kms", MODE_KMS);

	igt_describe("Render and KMS workers at once, SIGKILLed at random moments and replaced; nothing but the kill ends a worker, and the gauges come back.");
	igt_subtest("mixed")
		fuzz("mixed", MODE_MIXED);
}
