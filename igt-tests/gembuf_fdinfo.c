// SPDX-License-Identifier: MIT
/*
 * gembuf_fdinfo: the DRM client usage stats of both gembuf devices in
 * /proc/self/fdinfo (Documentation/gpu/drm-usage-stats.rst), as gputop
 * and nvtop read them: the memory of each file's objects (total, shared,
 * resident, active) against what the test created, shared, allocated
 * and left busy, and the time the DMA engine ran each client's jobs
 * (drm-engine-dma) against the time they took.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "igt.h"
#include "gembuf.h"
#include "sw_sync.h"

IGT_TEST_DESCRIPTION("DRM client usage stats in fdinfo: each client's memory and engine time.");

static int display = -1, engine = -1;

#define FDINFO_KEYS	64

/* The drm- keys of a file's fdinfo and their values. */
struct fdinfo {
	unsigned int n;
	char key[FDINFO_KEYS][64];
	char val[FDINFO_KEYS][64];
};

static const char *fdinfo_get(const struct fdinfo *fi, const char *key)
{
	for (unsigned int i = 0; i < fi->n; i++)
		if (!strcmp(fi->key[i], key))
			return fi->val[i];
	return NULL;
}

/*
 * Read @fd's fdinfo, checking the file format of drm-usage-stats: one
 * "key: value" a line, keys without whitespace, each key once.
 */
static void fdinfo_read(int fd, struct fdinfo *fi)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	igt_assert_f(f, "%s: %s\n", path, strerror(errno));
	fi->n = 0;
	while (fgets(line, sizeof(line), f)) {
		char *colon, *v;

		if (strncmp(line, "drm-", 4))
			continue;
		line[strcspn(line, "\n")] = 0;
		colon = strchr(line, ':');
		igt_assert_f(colon, "no ':' in \"%s\"\n", line);
		*colon = 0;
		igt_assert_f(!strpbrk(line, " \t"), "key \"%s\" has whitespace\n", line);
		igt_assert_f(!fdinfo_get(fi, line), "key %s twice\n", line);
		igt_assert_lt(fi->n, FDINFO_KEYS);
		v = colon + 1 + strspn(colon + 1, " \t");
		snprintf(fi->key[fi->n], sizeof(fi->key[0]), "%.63s", line);
		snprintf(fi->val[fi->n], sizeof(fi->val[0]), "%.63s", v);
		fi->n++;
	}
	fclose(f);
}

/* The unsigned number that starts @v; what follows it in @unit. */
static uint64_t parse_uint(const char *key, const char *v, const char **unit)
{
	char *end;
	uint64_t n;

	igt_assert_f(v, "no %s\n", key);
	igt_assert_f(isdigit((unsigned char)v[0]), "%s: \"%s\" is no <uint>\n", key, v);
	errno = 0;
	n = strtoull(v, &end, 10);
	igt_assert_f(!errno, "%s: \"%s\" out of range\n", key, v);
	*unit = end + strspn(end, " \t");
	return n;
}

/* A memory key in bytes: a <uint> with no unit, KiB or MiB. */
static uint64_t fdinfo_bytes(const struct fdinfo *fi, const char *key)
{
	const char *unit;
	uint64_t n = parse_uint(key, fdinfo_get(fi, key), &unit);

	if (!*unit)
		return n;
	if (!strcmp(unit, "KiB"))
		return n << 10;
	if (!strcmp(unit, "MiB"))
		return n << 20;
	igt_assert_f(false, "%s: unit \"%s\" is none of KiB, MiB\n", key, unit);
	return 0;
}

/* drm-engine-<name>: a <uint> in ns. */
static uint64_t fdinfo_ns(const struct fdinfo *fi, const char *key)
{
	const char *unit;
	uint64_t n = parse_uint(key, fdinfo_get(fi, key), &unit);

	igt_assert_f(!strcmp(unit, "ns"), "%s: unit \"%s\", not ns\n", key, unit);
	return n;
}

static uint64_t client_id(int fd)
{
	struct fdinfo fi;
	const char *unit;
	uint64_t id;

	fdinfo_read(fd, &fi);
	id = parse_uint("drm-client-id", fdinfo_get(&fi, "drm-client-id"), &unit);
	igt_assert_f(!*unit, "drm-client-id: \"%s\" after the number\n", unit);
	return id;
}

/* The engine time of @fd's jobs. */
static uint64_t busy_ns(int fd)
{
	struct fdinfo fi;

	fdinfo_read(fd, &fi);
	return fdinfo_ns(&fi, "drm-engine-dma");
}

/*
 * The memory keys of the DRM core (drm_show_memory_stats()), which names
 * system memory's region "memory".  It prints resident and purgeable
 * only when one of the file's objects has a status callback: not for a
 * file without objects.
 */
struct mem {
	uint64_t total, shared, resident, active, purgeable;
	bool has_status;
};

static struct mem mem_of(int fd)
{
	struct fdinfo fi;
	struct mem m;

	fdinfo_read(fd, &fi);
	m = (struct mem){
		.total = fdinfo_bytes(&fi, "drm-total-memory"),
		.shared = fdinfo_bytes(&fi, "drm-shared-memory"),
		.active = fdinfo_bytes(&fi, "drm-active-memory"),
		.has_status = fdinfo_get(&fi, "drm-resident-memory") != NULL,
	};
	igt_assert_eq(!fdinfo_get(&fi, "drm-purgeable-memory"), !m.has_status);
	if (m.has_status) {
		m.resident = fdinfo_bytes(&fi, "drm-resident-memory");
		m.purgeable = fdinfo_bytes(&fi, "drm-purgeable-memory");
	}
	return m;
}

/*
 * @fd's memory keys, in bytes; a file with objects must tell their
 * residency (gembuf's objects have a status callback), and nothing of
 * gembuf's is purgeable.
 */
#define assert_mem(fd, t, s, r, a) do { \
	struct mem __m = mem_of(fd); \
	igt_assert_eq_u64(__m.total, (t)); \
	igt_assert_eq_u64(__m.shared, (s)); \
	igt_assert_eq_u64(__m.resident, (r)); \
	igt_assert_eq_u64(__m.active, (a)); \
	igt_assert_eq_u64(__m.purgeable, 0); \
	igt_assert_f(__m.has_status || !__m.total, \
		     "no drm-resident-memory for %llu bytes of objects\n", \
		     (unsigned long long)__m.total); \
} while (0)

/* What debugfs says of @n objects: their sizes, those with memory. */
static uint64_t gem_info_sum(int fd, const uint32_t *h, unsigned int n,
			     bool allocated_only)
{
	struct gembuf_report gi;
	uint64_t sum = 0;

	for (unsigned int i = 0; i < n; i++) {
		if (!h[i])
			continue;
		gembuf_info(fd, h[i], &gi);
		if (!allocated_only || (gi.flags & GEMBUF_INFO_ALLOCATED))
			sum += gi.size;
	}
	return sum;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	/* CLOCK_MONOTONIC: the kernel's ktime_get_ns(). */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void fill(int fd, uint32_t h, uint64_t size, uint32_t value)
{
	igt_assert_eq(__gembuf_fill(fd, h, 0, size, value), 0);
}

/*
 * edu takes 100 ms of guest time per command: a fill of @size is one
 * command to load the pattern and one per 2 KiB written.  The lower
 * bound on its engine time is a hundred times less than that, to show
 * a unit wrong by a thousand (us counted as ns) and not a slow clock.
 */
static uint64_t fill_min_ns(uint64_t size)
{
	return (1 + (size + 2047) / 2048) * 1000000ull;
}

static bool busy(int fd, uint32_t h)
{
	int ret = __gembuf_wait(fd, h, 0, 0);

	igt_assert(ret == 0 || ret == -ETIME);
	return ret == -ETIME;
}

/* The keys both devices have, and those of the engine alone. */
static void check_keys(int fd, const char *driver, bool is_engine)
{
	unsigned int dom, bus, dev, fn;
	struct fdinfo fi;
	const char *v;

	fdinfo_read(fd, &fi);
	v = fdinfo_get(&fi, "drm-driver");
	igt_assert_f(v && !strcmp(v, driver), "drm-driver: %s, not %s\n",
		     v ? v : "(none)", driver);
	assert_mem(fd, 0, 0, 0, 0);

	v = fdinfo_get(&fi, "drm-pdev");
	if (is_engine) {
		/* edu is a PCI device: <aaaa:bb.cc.d>, as the core prints it. */
		igt_assert_f(v && sscanf(v, "%4x:%2x:%2x.%1u", &dom, &bus, &dev,
					 &fn) == 4,
			     "drm-pdev: %s\n", v ? v : "(none)");
		igt_assert_eq_u64(fdinfo_ns(&fi, "drm-engine-dma"), 0);
		/* One job at a time: a capacity of 1, which is not printed. */
		igt_assert(!fdinfo_get(&fi, "drm-engine-capacity-dma"));
	} else {
		/* A platform device. */
		igt_assert(!v);
	}
	for (unsigned int i = 0; i < fi.n; i++) {
		if (strncmp(fi.key[i], "drm-engine-", 11))
			continue;
		/* The display has no engine; the engine's is named "dma". */
		igt_assert_f(is_engine && !strcmp(fi.key[i], "drm-engine-dma"),
			     "unexpected %s\n", fi.key[i]);
	}
}

/*
 * drm-total-memory is every object the file has a handle to, resident
 * those whose memory is allocated, as debugfs tells; all back at 0 once
 * the handles are closed.
 */
static void check_memory(int (*open_dev)(void))
{
	static const uint64_t sizes[] = {
		4096, 65536 + 4096, (2 << 20) + 12288, 1 << 20,
	};
	uint32_t h[ARRAY_SIZE(sizes)] = {};
	uint64_t total = 0;
	int fd = open_dev();
	uint32_t *p;

	assert_mem(fd, 0, 0, 0, 0);
	for (unsigned int i = 0; i < 3; i++) {
		h[i] = gembuf_create(fd, sizes[i], 0, GEMBUF_CACHE_WB);
		total += sizes[i];
	}
	/* Memory comes when a device first needs it: none yet. */
	igt_assert_eq_u64(gem_info_sum(fd, h, 3, false), total);
	igt_assert_eq_u64(gem_info_sum(fd, h, 3, true), 0);
	assert_mem(fd, total, 0, 0, 0);

	/* Mapped and written: its memory is allocated, and stays unmapped. */
	p = gembuf_mmap(fd, h[1], sizes[1]);
	memset(p, 0x5a, sizes[1]);
	assert_mem(fd, total, 0, sizes[1], 0);
	munmap(p, sizes[1]);
	assert_mem(fd, total, 0, sizes[1], 0);

	/* One range: allocated at once. */
	h[3] = gembuf_create(fd, sizes[3], GEMBUF_GEM_CONTIGUOUS, GEMBUF_CACHE_WB);
	total += sizes[3];
	igt_assert_eq_u64(gem_info_sum(fd, h, 4, true), sizes[1] + sizes[3]);
	assert_mem(fd, total, 0, sizes[1] + sizes[3], 0);

	gem_close(fd, h[1]);
	h[1] = 0;
	total -= sizes[1];
	assert_mem(fd, total, 0, sizes[3], 0);
	igt_assert_eq_u64(gem_info_sum(fd, h, 4, false), total);

	for (unsigned int i = 0; i < ARRAY_SIZE(h); i++)
		if (h[i])
			gem_close(fd, h[i]);
	assert_mem(fd, 0, 0, 0, 0);
	drm_close_driver(fd);
}

igt_main
{
	igt_fixture {
		display = gembuf_open_display();
		engine = gembuf_open_engine();
	}

	igt_describe("Each file shows its driver, a client id of its own (shared by a dup), the engine its PCI address and drm-engine-dma, all at 0 when fresh.");
	igt_subtest("keys") {
		int e2 = gembuf_open_engine(), d2 = gembuf_open_display();
		int dup_fd = dup(e2);
		uint64_t ids[4] = {
			client_id(display), client_id(engine), client_id(e2),
			client_id(d2),
		};

		check_keys(e2, "gembuf_dma", true);
		check_keys(d2, "gembuf", false);
		for (unsigned int i = 0; i < 4; i++)
			for (unsigned int j = 0; j < i; j++)
				igt_assert_f(ids[i] != ids[j],
					     "files %u and %u share client id %llu\n",
					     i, j, (unsigned long long)ids[i]);
		/* One struct drm_file, one client. */
		igt_assert_fd(dup_fd);
		igt_assert_eq_u64(client_id(dup_fd), ids[2]);
		close(dup_fd);
		drm_close_driver(e2);
		drm_close_driver(d2);
	}

	igt_describe("drm-total-memory is the size of the file's objects, drm-resident-memory of those with memory; back to 0 once closed.");
	igt_subtest_with_dynamic("memory") {
		igt_dynamic("display")
			check_memory(gembuf_open_display);
		igt_dynamic("engine")
			check_memory(gembuf_open_engine);
	}

	igt_describe("A DMA job gives its object memory: drm-resident-memory counts it whole.");
	igt_subtest("resident-after-dma") {
		int fd = gembuf_open_engine();
		uint32_t h = gembuf_create(fd, 65536, 0, GEMBUF_CACHE_WB);

		assert_mem(fd, 65536, 0, 0, 0);
		fill(fd, h, 4096, 0x12345678);
		gembuf_wait(fd, h);
		igt_assert_eq_u64(gem_info_sum(fd, &h, 1, true), 65536);
		assert_mem(fd, 65536, 0, 65536, 0);
		gem_close(fd, h);
		assert_mem(fd, 0, 0, 0, 0);
		drm_close_driver(fd);
	}

	igt_describe("An object exported by PRIME is drm-shared-memory of the exporter and of each importer, the display's view resident once the engine's object has memory.");
	igt_subtest("shared") {
		int e1 = gembuf_open_engine(), e2 = gembuf_open_engine();
		int d = gembuf_open_display();
		uint32_t h = gembuf_create(e1, 65536, 0, GEMBUF_CACHE_WB);
		uint32_t priv = gembuf_create(e1, 8192, 0, GEMBUF_CACHE_WB);
		uint32_t hd, he2;
		int dmabuf;

		assert_mem(e1, 65536 + 8192, 0, 0, 0);
		dmabuf = prime_handle_to_fd(e1, h);
		assert_mem(e1, 65536 + 8192, 65536, 0, 0);

		/* On the display, an import of the engine's object; no memory yet. */
		hd = prime_fd_to_handle(d, dmabuf);
		igt_assert_eq_u64(gem_info_sum(e1, &h, 1, true), 0);
		assert_mem(d, 65536, 65536, 0, 0);
		/* On another file of the engine, the object itself. */
		he2 = prime_fd_to_handle(e2, dmabuf);
		assert_mem(e2, 65536, 65536, 0, 0);
		close(dmabuf);
		assert_mem(e1, 65536 + 8192, 65536, 0, 0);

		/* Memory for the object: every file's handle is resident. */
		fill(e1, h, 4096, 0xc0ffee);
		gembuf_wait(e1, h);
		assert_mem(e1, 65536 + 8192, 65536, 65536, 0);
		assert_mem(e2, 65536, 65536, 65536, 0);
		assert_mem(d, 65536, 65536, 65536, 0);
		/* Nothing of it on the files that have no handle. */
		assert_mem(engine, 0, 0, 0, 0);
		assert_mem(display, 0, 0, 0, 0);

		gem_close(d, hd);
		gem_close(e2, he2);
		assert_mem(d, 0, 0, 0, 0);
		assert_mem(e2, 0, 0, 0, 0);
		gem_close(e1, h);
		assert_mem(e1, 8192, 0, 0, 0);
		gem_close(e1, priv);
		assert_mem(e1, 0, 0, 0, 0);
		drm_close_driver(d);
		drm_close_driver(e2);
		drm_close_driver(e1);
	}

	igt_describe("A foreign dma-buf imported on either device is shared and resident: its exporter's pages.");
	igt_subtest("foreign-import") {
		int heap = gembuf_heap_alloc("system", 65536);
		int e = gembuf_open_engine(), d = gembuf_open_display();
		uint32_t he = prime_fd_to_handle(e, heap);
		uint32_t hd = prime_fd_to_handle(d, heap);

		close(heap);
		assert_mem(e, 65536, 65536, 65536, 0);
		assert_mem(d, 65536, 65536, 65536, 0);
		gem_close(e, he);
		gem_close(d, hd);
		assert_mem(e, 0, 0, 0, 0);
		assert_mem(d, 0, 0, 0, 0);
		drm_close_driver(d);
		drm_close_driver(e);
	}

	igt_describe("A job waiting for its dependency makes its object drm-active-memory and adds no engine time until it runs.");
	igt_subtest("active") {
		int fd, gate, fence;
		struct drm_gembuf_sync in = {};
		struct drm_gembuf_dma_fill f = { .size = 8192, .value = 0xacdc };
		uint32_t h;

		igt_require(kernel_has_sw_sync());
		fd = gembuf_open_engine();
		gate = sw_sync_timeline_create();
		h = gembuf_create(fd, 8192, 0, GEMBUF_CACHE_WB);
		igt_assert_eq(drmSyncobjCreate(fd, 0, &in.handle), 0);
		fence = sw_sync_timeline_create_fence(gate, 1);
		igt_assert_eq(drmSyncobjImportSyncFile(fd, in.handle, fence), 0);
		close(fence);

		f.handle = h;
		f.in_syncs = (uintptr_t)&in;
		f.in_sync_count = 1;
		do_ioctl(fd, DRM_IOCTL_GEMBUF_DMA_FILL, &f);
		/* Mapped for the engine at submission: memory, and a fence. */
		assert_mem(fd, 8192, 0, 8192, 8192);
		usleep(500 * 1000);
		igt_assert(busy(fd, h));
		igt_assert_eq_u64(busy_ns(fd), 0);

		sw_sync_timeline_inc(gate, 1);
		gembuf_wait(fd, h);
		assert_mem(fd, 8192, 0, 8192, 0);
		igt_assert_lte_u64(fill_min_ns(8192), busy_ns(fd));
		gembuf_check_words(fd, h, 8192, 0xacdc);

		gem_close(fd, h);
		drmSyncobjDestroy(fd, in.handle);
		close(gate);
		drm_close_driver(fd);
	}

	igt_describe("drm-engine-dma counts the engine time of the file's own jobs: more than none, no more than they took, growing with each job; 0 for a client that ran none.");
	igt_subtest("engine-busy") {
		int fd = gembuf_open_engine(), idle = gembuf_open_engine();
		int other = gembuf_open_engine();
		uint32_t h = gembuf_create(fd, 65536, 0, GEMBUF_CACHE_WB);
		uint32_t ho = gembuf_create(other, 4096, 0, GEMBUF_CACHE_WB);
		uint64_t t0, t1, b1, b2;

		igt_assert_eq_u64(busy_ns(fd), 0);
		t0 = now_ns();
		fill(fd, h, 8192, 1);
		gembuf_wait(fd, h);
		t1 = now_ns();
		b1 = busy_ns(fd);
		igt_info("one fill of 8 KiB: %llu ns on the engine, %llu ns in all\n",
			 (unsigned long long)b1, (unsigned long long)(t1 - t0));
		igt_assert_lte_u64(fill_min_ns(8192), b1);
		igt_assert_lte_u64(b1, t1 - t0);
		/* Done: it stays. */
		igt_assert_eq_u64(busy_ns(fd), b1);

		/* Three more, queued at once: they add up. */
		t0 = now_ns();
		for (int i = 0; i < 3; i++)
			igt_assert_eq(__gembuf_fill(fd, h, 16384 * i, 4096, i), 0);
		gembuf_wait(fd, h);
		t1 = now_ns();
		b2 = busy_ns(fd);
		igt_info("three fills of 4 KiB: %llu ns on the engine, %llu ns in all\n",
			 (unsigned long long)(b2 - b1), (unsigned long long)(t1 - t0));
		igt_assert_lte_u64(b1 + 3 * fill_min_ns(4096), b2);
		igt_assert_lte_u64(b2 - b1, t1 - t0);

		/* Another client's job is its own. */
		fill(other, ho, 4096, 2);
		gembuf_wait(other, ho);
		igt_assert_lte_u64(fill_min_ns(4096), busy_ns(other));
		igt_assert_eq_u64(busy_ns(fd), b2);
		igt_assert_eq_u64(busy_ns(idle), 0);
		assert_mem(idle, 0, 0, 0, 0);

		gem_close(other, ho);
		gem_close(fd, h);
		drm_close_driver(other);
		drm_close_driver(idle);
		drm_close_driver(fd);
	}

	igt_describe("The job on the engine counts while it runs: drm-engine-dma grows before it is done, and never goes back.");
	igt_subtest("engine-running") {
		int fd = gembuf_open_engine();
		uint32_t h = gembuf_create(fd, 32768, 0, GEMBUF_CACHE_WB);
		uint64_t prev = 0, v, done, seen = 0;
		int mid = 0;

		/* 17 edu commands: over a second and a half. */
		fill(fd, h, 32768, 0x600d);
		do {
			bool running;

			v = busy_ns(fd);
			running = busy(fd, h);
			igt_assert_lte_u64(prev, v);
			/* Two readings that grew while the job ran. */
			if (running && v > seen) {
				mid += seen > 0;
				seen = v;
			}
			prev = v;
			if (!running)
				break;
			usleep(50 * 1000);
		} while (true);
		done = busy_ns(fd);
		igt_assert_lte_u64(prev, done);
		igt_assert_lte_u64(fill_min_ns(32768), done);
		igt_assert_f(mid, "drm-engine-dma did not grow while the job ran\n");
		gembuf_check_words(fd, h, 32768, 0x600d);
		gem_close(fd, h);
		drm_close_driver(fd);
	}

	igt_describe("A job that hangs the engine counts for its client until the timeout stops it: the time grows while it hangs, never goes back across the reset, and the next job adds to it; a client that ran nothing stays at 0.");
	igt_subtest("engine-reset") {
		int fd = gembuf_open_engine(), idle = gembuf_open_engine();
		uint32_t h = gembuf_create(fd, 4096, 0, GEMBUF_CACHE_WB);
		uint64_t b1, b2, b3, b4;

		gembuf_inject_once("hang_job");
		fill(fd, h, 4096, 0xbad);
		for (int i = 0; i < 100 && !busy_ns(fd); i++)
			usleep(20 * 1000);
		b1 = busy_ns(fd);
		igt_assert_f(b1 > 0, "the hung job did not start in 2 s\n");
		usleep(200 * 1000);
		b2 = busy_ns(fd);
		igt_assert_f(b1 < b2, "drm-engine-dma stood at %llu ns while the job hung\n", (unsigned long long)b2);
		igt_assert(busy(fd, h));

		/* The scheduler's timeout (60 s) stops it. */
		igt_assert_eq(__gembuf_wait(fd, h, 0, 120ll * 1000 * 1000 * 1000), 0);
		b3 = busy_ns(fd);
		igt_assert_lte_u64(b2, b3);
		igt_assert_lte_u64(50ull * 1000 * 1000 * 1000, b3);

		fill(fd, h, 4096, 0x600d);
		gembuf_wait(fd, h);
		gembuf_check_words(fd, h, 4096, 0x600d);
		b4 = busy_ns(fd);
		igt_assert_lte_u64(b3 + fill_min_ns(4096), b4);
		igt_assert_eq_u64(busy_ns(idle), 0);
		gem_close(fd, h);
		drm_close_driver(idle);
		drm_close_driver(fd);
	}

	igt_describe("A file closed while its job is on the engine: the job completes, adds its time to the closed file's counter and is freed.");
	igt_subtest("close-while-running") {
		/* Earlier subtests' jobs go once their objects and files have. */
		long jobs = gembuf_state_settle("jobs", 0);
		int fd = gembuf_open_engine();
		uint32_t h = gembuf_create(engine, 32768, 0, GEMBUF_CACHE_WB);
		int dmabuf = prime_handle_to_fd(engine, h);
		uint32_t mine = prime_fd_to_handle(fd, dmabuf);

		close(dmabuf);
		fill(fd, mine, 32768, 0xdeadbeef);
		for (int i = 0; i < 100 && !busy_ns(fd); i++)
			usleep(20 * 1000);
		igt_assert_f(busy_ns(fd) > 0, "the job did not start in 2 s\n");
		igt_assert(busy(engine, h));
		drm_close_driver(fd);

		gembuf_wait(engine, h);
		gembuf_check_words(engine, h, 32768, 0xdeadbeef);
		/* Its time went to the closed file, not to this one. */
		igt_assert_eq_u64(busy_ns(engine), 0);
		gem_close(engine, h);
		assert_mem(engine, 0, 0, 0, 0);
		/*
		 * Its fence, in the object's reservation object until now,
		 * held it: freed, it gave back the file's state.
		 */
		if (jobs >= 0)
			igt_assert_eq(gembuf_state_settle("jobs", jobs), jobs);
	}

	igt_fixture {
		drm_close_driver(engine);
		drm_close_driver(display);
	}
}
