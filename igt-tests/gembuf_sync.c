// SPDX-License-Identifier: MIT
/*
 * gembuf_sync: explicit synchronisation of the DMA engine's jobs with
 * syncobjs, as v3d and panfrost take them: in-syncobjs (binary, or a
 * timeline point) a job waits for besides the fences on its objects, and
 * an out-syncobj that gets the job's fence.  And the bound on the jobs a
 * file may have queued, behind a fence that does not signal.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/sync_file.h>

#include "igt.h"
#include "gembuf.h"
#include "sw_sync.h"

IGT_TEST_DESCRIPTION("DMA engine jobs ordered by syncobjs: binary, timelines, sync_files.");

static int engine = -1;

static int fill_sync(int fd, uint32_t h, uint32_t size, uint32_t value,
		     const struct drm_gembuf_sync *in, uint32_t n_in,
		     const struct drm_gembuf_sync *out)
{
	struct drm_gembuf_dma_fill f = {
		.handle = h, .value = value, .size = size,
		.in_syncs = (uintptr_t)in, .in_sync_count = n_in,
	};

	if (out)
		f.out_sync = *out;
	return igt_ioctl(fd, DRM_IOCTL_GEMBUF_DMA_FILL, &f) ? -errno : 0;
}

static int copy_sync(int fd, uint32_t dst, uint32_t src, uint32_t size,
		     const struct drm_gembuf_sync *in, uint32_t n_in,
		     const struct drm_gembuf_sync *out)
{
	struct drm_gembuf_dma_copy c = {
		.dst_handle = dst, .src_handle = src, .size = size,
		.in_syncs = (uintptr_t)in, .in_sync_count = n_in,
	};

	if (out)
		c.out_sync = *out;
	return igt_ioctl(fd, DRM_IOCTL_GEMBUF_DMA_COPY, &c) ? -errno : 0;
}

static uint32_t syncobj_create(int fd)
{
	uint32_t s;

	igt_assert_eq(drmSyncobjCreate(fd, 0, &s), 0);
	return s;
}

/* A syncobj holding a fence of a sw_sync timeline that @gate advances. */
static uint32_t syncobj_gated(int fd, int gate)
{
	uint32_t s = syncobj_create(fd);
	int fence = sw_sync_timeline_create_fence(gate, 1);

	igt_assert_eq(drmSyncobjImportSyncFile(fd, s, fence), 0);
	close(fence);
	return s;
}

static int64_t abs_timeout(int64_t ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec + ns;
}

/* @h is still busy half a second (of guest time) from now. */
static void assert_blocked(int fd, uint32_t h)
{
	usleep(500 * 1000);
	igt_assert_eq(__gembuf_wait(fd, h, 0, 0), -ETIME);
}

/* When the only fence of sync_file @fd signalled. */
static uint64_t signalled_at(int fd)
{
	struct sync_fence_info fi = {};
	struct sync_file_info info = {
		.num_fences = 1, .sync_fence_info = (uintptr_t)&fi,
	};

	do_ioctl(fd, SYNC_IOC_FILE_INFO, &info);
	igt_assert_eq(info.num_fences, 1);
	igt_assert_eq(fi.status, 1);
	return fi.timestamp_ns;
}

/*
 * A fill of @size bytes of @h with @value, or a 4-byte copy into @h
 * from @src (non-zero), through ioctl() itself: igt_ioctl() is libdrm's
 * drmIoctl(), which retries EAGAIN for as long as it comes.
 */
static int try_job(int fd, uint32_t h, uint32_t src, uint32_t size,
		   uint32_t value, const struct drm_gembuf_sync *in)
{
	struct drm_gembuf_dma_fill f = {
		.handle = h, .value = value, .size = size,
		.in_syncs = (uintptr_t)in, .in_sync_count = !!in,
	};
	struct drm_gembuf_dma_copy c = {
		.dst_handle = h, .src_handle = src, .size = 4,
		.in_syncs = (uintptr_t)in, .in_sync_count = !!in,
	};
	int ret;

	do
		ret = src ? ioctl(fd, DRM_IOCTL_GEMBUF_DMA_COPY, &c) :
			    ioctl(fd, DRM_IOCTL_GEMBUF_DMA_FILL, &f);
	while (ret == -1 && errno == EINTR);
	return ret ? -errno : 0;
}

/* Submissions tried past GEMBUF_MAX_QUEUED before a flood gives up. */
#define QUEUE_OVER	16

/*
 * Queue jobs on @fd until it refuses one: 4-byte fills of @h and copies
 * into it from @src in turn, the first gated on @in, so that none runs.
 * A refusal below the limit is waited out for @patience_ms, as the jobs
 * of an earlier flood are released by a worker after their fences
 * signalled.  Returns how many were queued, at most GEMBUF_MAX_QUEUED +
 * QUEUE_OVER: a kernel without the bound is not flooded further.
 */
static int flood(int fd, uint32_t h, uint32_t src,
		 const struct drm_gembuf_sync *in, int patience_ms)
{
	int n = 0, waited = 0, ret;

	while (n < GEMBUF_MAX_QUEUED + QUEUE_OVER) {
		ret = try_job(fd, h, n % 2 ? src : 0, 4, n, n ? NULL : in);
		if (ret == -EAGAIN && n < GEMBUF_MAX_QUEUED && waited < patience_ms) {
			usleep(10 * 1000);
			waited += 10;
			continue;
		}
		if (ret) {
			igt_assert_eq(ret, -EAGAIN);
			break;
		}
		n++;
	}
	return n;
}

static void assert_flood(int n)
{
	igt_assert_f(n == GEMBUF_MAX_QUEUED, "%d jobs queued%s, GEMBUF_MAX_QUEUED is %d\n",
		     n, n > GEMBUF_MAX_QUEUED ? " and none refused" : " before EAGAIN",
		     GEMBUF_MAX_QUEUED);
}

/*
 * Counter @key of gembuf_state once it stops changing: the jobs of an
 * earlier subtest are freed from workers and RCU callbacks.
 */
static long state_settled(const char *key)
{
	long v = gembuf_state(key), prev;
	int i = 0;

	do {
		prev = v;
		usleep(200 * 1000);
		v = gembuf_state(key);
	} while (v != prev && ++i < 25);
	return v;
}

static void fault_set(const char *attr, const char *knob, long v)
{
	char s[24];

	snprintf(s, sizeof(s), "%ld", v);
	gembuf_knob_write(attr, knob, s);
}

static long fault_get(const char *attr, const char *knob)
{
	char path[320];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", attr, knob);
	f = fopen(path, "r");
	igt_assert_f(f, "%s\n", path);
	igt_assert_eq(fscanf(f, "%ld", &v), 1);
	fclose(f);
	return v;
}

/*
 * Open @gate on the @n jobs queued on @fd behind it and wait for them
 * (they all write @h).  Where the engine has its fail_job fault
 * attribute (a debug kernel), exactly those @n jobs fail (-EIO) as they
 * start, rather than keep edu 200 ms each: what they hold is what is
 * tested, not what they write.  Elsewhere they run.
 */
static void drain(int fd, uint32_t h, int gate, int n)
{
	char path[300];
	const char *attr = gembuf_fault_attr("fail_job", path, sizeof(path));
	long left = 0;
	int ret;

	if (attr) {
		fault_set(attr, "verbose", 0);
		fault_set(attr, "interval", 1);
		fault_set(attr, "times", n);
		fault_set(attr, "probability", 100);
	}
	sw_sync_timeline_inc(gate, 1);
	ret = __gembuf_wait(fd, h, 0, 300ll * 1000 * 1000 * 1000);
	if (attr) {
		fault_set(attr, "probability", 0);
		left = fault_get(attr, "times");
	}
	igt_assert_eq(ret, 0);
	igt_assert_f(!left, "%ld of the %d jobs did not start\n", left, n);
}

#define ORDER_PROCS	4
#define ORDER_JOBS	8

struct order_rec {
	uint32_t proc, job, value;
	uint64_t at;
};

/*
 * One of ORDER_PROCS processes: on a file of its own, ORDER_JOBS fills
 * of the shared dma-buf @dmabuf, each with a syncobj of its own; writes
 * when each signalled to @out.  It exits non-zero on any error (no igt
 * assertion in a forked child: the parent judges).
 */
static void order_child(uint32_t proc, int dmabuf, int out)
{
	struct drm_prime_handle imp = { .fd = dmabuf };
	struct drm_gembuf_sync s[ORDER_JOBS];
	int fd = gembuf_open_engine();

	if (igt_ioctl(fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp))
		_exit(2);
	for (uint32_t j = 0; j < ORDER_JOBS; j++) {
		s[j] = (struct drm_gembuf_sync){};
		if (drmSyncobjCreate(fd, 0, &s[j].handle) ||
		    fill_sync(fd, imp.handle, 4096, proc << 8 | j, NULL, 0, &s[j]))
			_exit(3);
	}
	for (uint32_t j = 0; j < ORDER_JOBS; j++) {
		struct order_rec r = { .proc = proc, .job = j, .value = proc << 8 | j };
		struct sync_fence_info fi = {};
		struct sync_file_info info = {
			.num_fences = 1, .sync_fence_info = (uintptr_t)&fi,
		};
		int sync_file = -1;

		if (drmSyncobjWait(fd, &s[j].handle, 1, abs_timeout(60000000000ll),
				   0, NULL) ||
		    drmSyncobjExportSyncFile(fd, s[j].handle, &sync_file) ||
		    igt_ioctl(sync_file, SYNC_IOC_FILE_INFO, &info) || fi.status != 1)
			_exit(4);
		close(sync_file);
		r.at = fi.timestamp_ns;
		if (write(out, &r, sizeof(r)) != (ssize_t)sizeof(r))
			_exit(5);
	}
	_exit(0);
}

static volatile sig_atomic_t ticks;

/* A timer signal; after 3 s of them the timer stops itself. */
static void tick(int sig)
{
	static const struct itimerval stop;

	if (++ticks == 60)
		setitimer(ITIMER_REAL, &stop, NULL);
}

/*
 * GEM_WAIT on a job held back by a gate, with a timer signal every 50 ms
 * for 3 s, handled with SA_RESTART so the kernel restarts the ioctl
 * itself: with a deadline the wait ends at it, however often it was
 * interrupted; a relative timeout would start again on each restart and
 * end only once the timer stops itself, 3 s on.
 */
static void wait_deadline_signals(void)
{
	struct sigaction sa = { .sa_handler = tick, .sa_flags = SA_RESTART };
	struct itimerval it = {
		.it_interval = { .tv_usec = 50 * 1000 },
		.it_value = { .tv_usec = 50 * 1000 },
	};
	int gate = sw_sync_timeline_create();
	struct drm_gembuf_sync in = { .handle = syncobj_gated(engine, gate) };
	uint32_t h = gembuf_create(engine, 4096, 0, GEMBUF_CACHE_WB);
	struct drm_gembuf_gem_wait w = { .handle = h };
	int64_t start, took;
	int ret, err;

	igt_assert_eq(fill_sync(engine, h, 4096, 0x5eed, &in, 1, NULL), 0);
	igt_assert_eq(sigaction(SIGALRM, &sa, NULL), 0);
	ticks = 0;
	start = abs_timeout(0);
	w.deadline_ns = start + 500 * 1000 * 1000;
	igt_assert_eq(setitimer(ITIMER_REAL, &it, NULL), 0);
	/* Restarted by the kernel after each signal: one call here. */
	ret = ioctl(engine, DRM_IOCTL_GEMBUF_GEM_WAIT, &w);
	err = errno;
	took = abs_timeout(0) - start;
	{
		static const struct itimerval stop;

		setitimer(ITIMER_REAL, &stop, NULL);
	}
	signal(SIGALRM, SIG_DFL);
	igt_info("GEM_WAIT to a deadline 500 ms ahead: %d (%s) after %lld ms, %d signals\n",
		 ret, ret ? strerror(err) : "idle", (long long)(took / 1000000), (int)ticks);
	igt_assert_eq(ret, -1);
	igt_assert_eq(err, ETIME);
	igt_assert_f(ticks >= 5, "only %d signals came during the wait\n", (int)ticks);
	igt_assert_f(took < 1500ll * 1000 * 1000,
		     "the wait took %lld ms for a deadline 500 ms ahead\n",
		     (long long)(took / 1000000));

	/* A deadline already past polls. */
	w.deadline_ns = 0;
	igt_assert_eq(ioctl(engine, DRM_IOCTL_GEMBUF_GEM_WAIT, &w), -1);
	igt_assert_eq(errno, ETIME);
	w.deadline_ns = -1;
	igt_assert_eq(ioctl(engine, DRM_IOCTL_GEMBUF_GEM_WAIT, &w), -1);
	igt_assert_eq(errno, EINVAL);

	sw_sync_timeline_inc(gate, 1);
	gembuf_wait(engine, h);
	gembuf_check_words(engine, h, 4096, 0x5eed);
	gem_close(engine, h);
	drmSyncobjDestroy(engine, in.handle);
	close(gate);
}

#define TRACEFS "/sys/kernel/debug/tracing"

static void tracefs_write(const char *file, const char *v)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	fd = open(path, O_WRONLY | O_TRUNC);
	igt_assert_f(fd >= 0, "%s: %s\n", path, strerror(errno));
	igt_assert_eq(write(fd, v, strlen(v)), (ssize_t)strlen(v));
	close(fd);
}

/*
 * The context and seqno of each @event ("dma_fence_init", ...) of a
 * fence named @driver on @timeline in the trace buffer, in the order of
 * the trace: their number, the first @max of them in @ctx and @seq.
 */
static int traced_fences(const char *event, const char *driver, const char *timeline,
			 unsigned int *ctx, unsigned int *seq, int max)
{
	char line[512], fmt[128], drv[64], tl[64];
	unsigned int c, q;
	int n = 0;
	FILE *f;

	snprintf(fmt, sizeof(fmt), "%s: driver=%%63s timeline=%%63s context=%%u seqno=%%u",
		 event);
	f = fopen(TRACEFS "/trace", "r");
	igt_assert(f);
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, event);

		if (!p || sscanf(p, fmt, drv, tl, &c, &q) != 4 ||
		    strcmp(drv, driver) || strcmp(tl, timeline))
			continue;
		if (n < max) {
			ctx[n] = c;
			seq[n] = q;
		}
		n++;
	}
	fclose(f);
	return n;
}

/*
 * The engine's hardware fences (the ones its jobs signal, under the
 * scheduler's fences that clients see) are named in the dma_fence trace
 * events as the driver "gembuf" on the timeline "edu", which the events
 * of a fence not yet signalled ask it for: one context for the engine,
 * consecutive seqnos for consecutive jobs, each signalled once.
 */
static void hw_fence_trace(void)
{
	unsigned int ctx[4] = {}, seq[4] = {}, sctx[4] = {}, sseq[4] = {};
	int inits, signals;
	uint32_t *words, h;

	igt_require_f(!access(TRACEFS "/events/dma_fence/dma_fence_init/enable", W_OK),
		      "no dma_fence trace events\n");
	h = gembuf_create(engine, 4096, 0, GEMBUF_CACHE_WB);
	/* The object mapped by a first job: the traced ones only fill. */
	igt_assert_eq(__gembuf_fill(engine, h, 0, 4, 0), 0);
	gembuf_wait(engine, h);

	tracefs_write("trace", "");
	tracefs_write("events/dma_fence/dma_fence_init/enable", "1");
	tracefs_write("events/dma_fence/dma_fence_signaled/enable", "1");
	igt_assert_eq(__gembuf_fill(engine, h, 0, 4, 1), 0);
	igt_assert_eq(__gembuf_fill(engine, h, 4, 4, 2), 0);
	gembuf_wait(engine, h);
	tracefs_write("events/dma_fence/dma_fence_signaled/enable", "0");
	tracefs_write("events/dma_fence/dma_fence_init/enable", "0");

	inits = traced_fences("dma_fence_init", "gembuf", "edu", ctx, seq, 4);
	signals = traced_fences("dma_fence_signaled", "gembuf", "edu", sctx, sseq, 4);
	igt_info("hardware fences: %d made, %d signalled; context %u, seqnos %u and %u\n",
		 inits, signals, ctx[0], seq[0], seq[1]);
	igt_assert_eq(inits, 2);
	igt_assert_eq(signals, 2);
	igt_assert_eq_u32(ctx[1], ctx[0]);
	igt_assert_eq_u32(seq[1], seq[0] + 1);
	for (int i = 0; i < 2; i++) {
		igt_assert_eq_u32(sctx[i], ctx[i]);
		igt_assert_eq_u32(sseq[i], seq[i]);
	}
	words = gembuf_mmap(engine, h, 4096);
	igt_assert_eq_u32(words[0], 1);
	igt_assert_eq_u32(words[1], 2);
	munmap(words, 4096);
	gem_close(engine, h);
}

igt_main
{
	igt_fixture {
		engine = gembuf_open_engine();
		igt_require(kernel_has_sw_sync());
	}

	igt_describe("GEM_WAIT takes a CLOCK_MONOTONIC deadline: interrupted by a signal every 50 ms and restarted, it still returns ETIME at its deadline.");
	igt_subtest("wait-deadline-signals")
		wait_deadline_signals();

	igt_describe("A job waits for its in-syncobj's fence, though nothing on its object says so.");
	igt_subtest("in-syncobj") {
		int gate = sw_sync_timeline_create();
		struct drm_gembuf_sync in = { .handle = syncobj_gated(engine, gate) };
		uint32_t h = gembuf_create(engine, 4096, 0, GEMBUF_CACHE_WB);

		igt_assert_eq(fill_sync(engine, h, 4096, 0x1234, &in, 1, NULL), 0);
		assert_blocked(engine, h);
		sw_sync_timeline_inc(gate, 1);
		gembuf_wait(engine, h);
		gembuf_check_words(engine, h, 4096, 0x1234);
		gem_close(engine, h);
		drmSyncobjDestroy(engine, in.handle);
		close(gate);
	}

	igt_describe("A job's fence goes into its out-syncobj: a syncobj wait and a sync_file exported from it, polled by another process, see the job done.");
	igt_subtest("out-syncobj") {
		struct drm_gembuf_sync out = { .handle = syncobj_create(engine) };
		uint32_t h = gembuf_create(engine, 8192, 0, GEMBUF_CACHE_WB);
		int sync_file = -1;
		pid_t pid;

		igt_assert_eq(fill_sync(engine, h, 8192, 0xabcd, NULL, 0, &out), 0);
		igt_assert_eq(drmSyncobjExportSyncFile(engine, out.handle, &sync_file), 0);
		pid = fork();
		igt_assert(pid >= 0);
		if (!pid) {
			struct pollfd pfd = { .fd = sync_file, .events = POLLIN };

			_exit(poll(&pfd, 1, 30000) == 1 ? 0 : 1);
		}
		igt_assert_eq(drmSyncobjWait(engine, &out.handle, 1,
					     abs_timeout(30000000000ll), 0, NULL), 0);
		gembuf_check_words(engine, h, 8192, 0xabcd);
		igt_assert_eq(waitpid(pid, &(int){0}, 0), pid);
		close(sync_file);
		gem_close(engine, h);
		drmSyncobjDestroy(engine, out.handle);
	}

	igt_describe("Jobs on separate files and objects, ordered only by syncobjs: the second waits for the first, which waits for a gate, and signals after it.");
	igt_subtest("chain") {
		int other = gembuf_open_engine(), gate = sw_sync_timeline_create();
		struct drm_gembuf_sync g = { .handle = syncobj_gated(engine, gate) };
		struct drm_gembuf_sync s1 = { .handle = syncobj_create(engine) };
		struct drm_gembuf_sync s1_other = {}, s2 = { .handle = syncobj_create(other) };
		uint32_t a = gembuf_create(engine, 4096, 0, GEMBUF_CACHE_WB);
		uint32_t b = gembuf_create(other, 4096, 0, GEMBUF_CACHE_WB);
		int fd_a = -1, fd_b = -1, shared;

		/* The first job's syncobj, shared with the other file. */
		igt_assert_eq(drmSyncobjHandleToFD(engine, s1.handle, &shared), 0);
		igt_assert_eq(drmSyncobjFDToHandle(other, shared, &s1_other.handle), 0);
		close(shared);

		igt_assert_eq(fill_sync(engine, a, 4096, 0xaaaa, &g, 1, &s1), 0);
		igt_assert_eq(fill_sync(other, b, 4096, 0xbbbb, &s1_other, 1, &s2), 0);
		assert_blocked(other, b);
		sw_sync_timeline_inc(gate, 1);
		gembuf_wait(other, b);
		gembuf_wait(engine, a);
		gembuf_check_words(engine, a, 4096, 0xaaaa);
		gembuf_check_words(other, b, 4096, 0xbbbb);
		igt_assert_eq(drmSyncobjExportSyncFile(engine, s1.handle, &fd_a), 0);
		igt_assert_eq(drmSyncobjExportSyncFile(other, s2.handle, &fd_b), 0);
		igt_assert_lte_u64(signalled_at(fd_a), signalled_at(fd_b));
		close(fd_a);
		close(fd_b);
		gem_close(engine, a);
		gem_close(other, b);
		drmSyncobjDestroy(engine, g.handle);
		drmSyncobjDestroy(engine, s1.handle);
		drmSyncobjDestroy(other, s1_other.handle);
		drmSyncobjDestroy(other, s2.handle);
		drm_close_driver(other);
		close(gate);
	}

	igt_describe("Timeline points: a job signals point 1, the next waits for it and signals point 2, a copy waits for point 2; a point not submitted yet is EINVAL.");
	igt_subtest("timeline") {
		uint32_t t = syncobj_create(engine);
		struct drm_gembuf_sync p1 = { .handle = t, .point = 1 };
		struct drm_gembuf_sync p2 = { .handle = t, .point = 2 };
		struct drm_gembuf_sync p5 = { .handle = t, .point = 5 };
		uint32_t a = gembuf_create(engine, 4096, 0, GEMBUF_CACHE_WB);
		uint32_t b = gembuf_create(engine, 4096, 0, GEMBUF_CACHE_WB);
		uint32_t c = gembuf_create(engine, 4096, 0, GEMBUF_CACHE_WB);
		uint64_t point = 2;

		igt_assert_eq(fill_sync(engine, a, 4096, 0x1111, NULL, 0, &p1), 0);
		igt_assert_eq(fill_sync(engine, b, 4096, 0x2222, &p1, 1, &p2), 0);
		igt_assert_eq(copy_sync(engine, c, b, 4096, &p2, 1, NULL), 0);
		igt_assert_eq(fill_sync(engine, c, 4096, 0, &p5, 1, NULL), -EINVAL);
		igt_assert_eq(drmSyncobjTimelineWait(engine, &t, &point, 1,
						     abs_timeout(30000000000ll),
						     0, NULL), 0);
		gembuf_wait(engine, c);
		gembuf_check_words(engine, a, 4096, 0x1111);
		gembuf_check_words(engine, c, 4096, 0x2222);
		gem_close(engine, a);
		gem_close(engine, b);
		gem_close(engine, c);
		drmSyncobjDestroy(engine, t);
	}

	igt_describe("Bad syncobj arguments fail with DRM's errnos and queue nothing.");
	igt_subtest("bad-syncs") {
		long jobs = gembuf_state("jobs");
		uint32_t h = gembuf_create(engine, 4096, 0, GEMBUF_CACHE_WB);
		struct drm_gembuf_sync ok = { .handle = syncobj_create(engine) };
		struct drm_gembuf_sync bad = { .handle = 0xbad };
		struct drm_gembuf_sync flagged = { .handle = ok.handle, .flags = 1 };
		struct drm_gembuf_sync zero_point = { .point = 3 };
		struct drm_gembuf_sync many[GEMBUF_MAX_IN_SYNCS + 1];
		struct drm_gembuf_dma_fill f = { .handle = h, .size = 4, .pad2 = 1 };
		int display = gembuf_open_display();

		igt_assert_eq(fill_sync(engine, h, 4, 0, &bad, 1, NULL), -ENOENT);
		igt_assert_eq(fill_sync(engine, h, 4, 0, NULL, 0, &bad), -ENOENT);
		igt_assert_eq(fill_sync(engine, h, 4, 0, &flagged, 1, NULL), -EINVAL);
		igt_assert_eq(fill_sync(engine, h, 4, 0, NULL, 0, &flagged), -EINVAL);
		igt_assert_eq(fill_sync(engine, h, 4, 0, NULL, 0, &zero_point), -EINVAL);
		/* A binary syncobj without a fence yet. */
		igt_assert_eq(fill_sync(engine, h, 4, 0, &ok, 1, NULL), -EINVAL);
		for (unsigned int i = 0; i < GEMBUF_MAX_IN_SYNCS + 1; i++)
			many[i] = ok;
		igt_assert_eq(fill_sync(engine, h, 4, 0, many, GEMBUF_MAX_IN_SYNCS + 1,
					NULL), -EINVAL);
		igt_assert_eq(fill_sync(engine, h, 4, 0, (void *)8, 1, NULL), -EFAULT);
		do_ioctl_err(engine, DRM_IOCTL_GEMBUF_DMA_FILL, &f, EINVAL);
		igt_assert_eq(fill_sync(display, h, 4, 0, NULL, 0, &ok), -EINVAL);
		gembuf_wait(engine, h);
		/* Refused jobs are freed after a grace period. */
		for (int i = 0; i < 100 && gembuf_state("jobs") > jobs; i++)
			usleep(100 * 1000);
		igt_assert_lte(gembuf_state("jobs"), jobs);
		drm_close_driver(display);
		gem_close(engine, h);
		drmSyncobjDestroy(engine, ok.handle);
	}

	igt_describe("A file has at most GEMBUF_MAX_QUEUED jobs queued behind a fence that does not signal: one more fill or copy fails with EAGAIN and allocates nothing, while another file submits and runs its job; refused, failed and finished jobs give their slots back, and what they held goes with them.");
	igt_subtest("queue-bounded") {
		long jobs = state_settled("jobs"), objects = state_settled("objects");
		long mappings = state_settled("mappings");
		int fd = gembuf_open_engine(), other, gate[2], n, ret, tries = 0;
		uint32_t h = gembuf_create(fd, 4096, 0, GEMBUF_CACHE_WB);
		uint32_t src = gembuf_create(fd, 4096, 0, GEMBUF_CACHE_WB);
		uint32_t wc = gembuf_create(fd, 4096, 0, GEMBUF_CACHE_WC), oh;
		struct drm_gembuf_sync bad = { .handle = 0xbad }, in[2];
		struct drm_gembuf_dma_fill flagged = { .handle = h, .size = 4, .flags = 1 };

		igt_assert_lte(0, jobs);
		for (int i = 0; i < 2; i++) {
			gate[i] = sw_sync_timeline_create();
			in[i] = (struct drm_gembuf_sync){ .handle = syncobj_gated(fd, gate[i]) };
		}

		/* Jobs refused after they took their slot give it back. */
		for (int i = 0; i < 8; i++) {
			igt_assert_eq(fill_sync(fd, 0xbad, 4, 0, NULL, 0, NULL), -ENOENT);
			igt_assert_eq(fill_sync(fd, h, 8192, 0, NULL, 0, NULL), -EINVAL);
			igt_assert_eq(fill_sync(fd, h, 4, 0, &bad, 1, NULL), -ENOENT);
			igt_assert_eq(fill_sync(fd, h, 4, 0, NULL, 0, &bad), -ENOENT);
			igt_assert_eq(copy_sync(fd, h, h, 4096, NULL, 0, NULL), -EINVAL);
			igt_assert_eq(fill_sync(fd, wc, 4, 0, NULL, 0, NULL), -EINVAL);
		}
		igt_assert_eq(gembuf_state_settle("jobs", jobs), jobs);

		/* Exactly GEMBUF_MAX_QUEUED, and only what they hold. */
		n = flood(fd, h, src, &in[0], 0);
		assert_flood(n);
		igt_assert_eq(try_job(fd, h, 0, 4, 0, NULL), -EAGAIN);
		igt_assert_eq(try_job(fd, h, src, 4, 0, NULL), -EAGAIN);
		igt_assert_eq(gembuf_state("jobs"), jobs + GEMBUF_MAX_QUEUED);
		/* Bad arguments are told as such, full or not. */
		igt_assert_eq(ioctl(fd, DRM_IOCTL_GEMBUF_DMA_FILL, &flagged), -1);
		igt_assert_eq(errno, EINVAL);

		/* The bound is the file's: another one runs a job meanwhile. */
		other = gembuf_open_engine();
		oh = gembuf_create(other, 4096, 0, GEMBUF_CACHE_WB);
		igt_assert_eq(try_job(other, oh, 0, 4096, 0x07e4, NULL), 0);
		igt_assert_eq(__gembuf_wait(other, oh, 0, 30ll * 1000 * 1000 * 1000), 0);
		gembuf_check_words(other, oh, 4096, 0x07e4);
		gem_close(other, oh);
		drm_close_driver(other);
		igt_assert_eq(__gembuf_wait(fd, h, 0, 0), -ETIME);

		/* Every slot comes back: the file queues as many again. */
		drain(fd, h, gate[0], n);
		n = flood(fd, h, src, &in[1], 5000);
		assert_flood(n);
		drain(fd, h, gate[1], n);

		/* And its jobs run as before. */
		while ((ret = try_job(fd, h, 0, 4096, 0x600d, NULL)) == -EAGAIN &&
		       tries++ < 500)
			usleep(10 * 1000);
		igt_assert_eq(ret, 0);
		igt_assert_eq(__gembuf_wait(fd, h, 0, 30ll * 1000 * 1000 * 1000), 0);
		gembuf_check_words(fd, h, 4096, 0x600d);

		for (int i = 0; i < 2; i++) {
			drmSyncobjDestroy(fd, in[i].handle);
			close(gate[i]);
		}
		gem_close(fd, h);
		gem_close(fd, src);
		gem_close(fd, wc);
		drm_close_driver(fd);
		igt_assert_eq(gembuf_state_settle("jobs", jobs), jobs);
		igt_assert_eq(gembuf_state_settle("objects", objects), objects);
		igt_assert_eq(gembuf_state_settle("mappings", mappings), mappings);
	}

	igt_describe("The engine's hardware fences, under the scheduler's, are named \"gembuf\" on \"edu\" in the dma_fence trace events: made on one context with consecutive seqnos for consecutive jobs, each signalled once, and the jobs wrote their words.");
	igt_subtest("hw-fence-trace")
		hw_fence_trace();

	igt_describe("Processes submitting interleaved fills of one shared buffer: each file's fences signal in the order it submitted, and the buffer holds what the last job to signal wrote.");
	igt_subtest("ordering") {
		uint32_t h = gembuf_create(engine, 4096, 0, GEMBUF_CACHE_WB);
		int dmabuf = prime_handle_to_fd(engine, h), p[2], status;
		struct order_rec r, last = {}, prev[ORDER_PROCS];
		unsigned int n = 0;

		igt_assert_eq(pipe(p), 0);
		for (uint32_t i = 0; i < ORDER_PROCS; i++) {
			pid_t pid = fork();

			igt_assert(pid >= 0);
			if (!pid)
				order_child(i, dmabuf, p[1]);
		}
		close(p[1]);
		memset(prev, 0, sizeof(prev));
		while (read(p[0], &r, sizeof(r)) == (ssize_t)sizeof(r)) {
			igt_assert(r.proc < ORDER_PROCS);
			/* In seqno order per context: a file's jobs in turn. */
			igt_assert_f(!r.job || r.at >= prev[r.proc].at,
				     "process %u: job %u signalled before job %u\n",
				     r.proc, r.job, prev[r.proc].job);
			prev[r.proc] = r;
			if (r.at >= last.at)
				last = r;
			n++;
		}
		for (uint32_t i = 0; i < ORDER_PROCS; i++) {
			igt_assert(wait(&status) > 0);
			igt_assert(WIFEXITED(status) && !WEXITSTATUS(status));
		}
		igt_assert_eq(n, ORDER_PROCS * ORDER_JOBS);
		gembuf_wait(engine, h);
		gembuf_check_words(engine, h, 4096, last.value);
		close(p[0]);
		close(dmabuf);
		gem_close(engine, h);
	}

	igt_fixture
		drm_close_driver(engine);
}
