// SPDX-License-Identifier: MIT
/*
 * gembuf_limits: what one client can take from the others.  Its memory is
 * charged to its memory cgroup, contiguous memory included, so a process
 * in a small cgroup stops at its limit and no global OOM kill happens; a
 * render-node client without privilege gets no CMA; and one client's idle
 * engine mappings do not keep another client's jobs out of the engine's
 * address space.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "igt.h"
#include "gembuf.h"
#include "sw_sync.h"

IGT_TEST_DESCRIPTION("Per-client limits: memory cgroup charges, CMA for the privileged, a shared engine address space.");

#define MiB		(1024ull * 1024)
#define CG_ROOT		"/sys/fs/cgroup"
#define CG		CG_ROOT "/gembuf-limits"
#define CG_LIMIT	(64 * MiB)

/*
 * Write @v to @path: 0 or -errno.  For children, which must not assert
 * (gembuf_knob_write() does).
 */
static int __file_write(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, v, strlen(v)) != (ssize_t)strlen(v))
		ret = -errno;
	close(fd);
	return ret;
}

/* A memory cgroup of CG_LIMIT, made anew. */
static void cg_make(void)
{
	igt_require_f(!access(CG_ROOT "/cgroup.subtree_control", W_OK),
		      "no cgroup2 at " CG_ROOT "\n");
	rmdir(CG);
	igt_assert_f(!mkdir(CG, 0755), "mkdir %s: %s\n", CG, strerror(errno));
	gembuf_knob_write(CG_ROOT, "cgroup.subtree_control", "+memory");
	gembuf_knob_write(CG, "memory.max", "64M");
}

/* The value of @key in a "key value" file, or its one number for NULL. */
static long file_key(const char *path, const char *key)
{
	char name[64];
	long v, value = -1;
	FILE *f = fopen(path, "r");

	igt_assert_f(f, "%s: %s\n", path, strerror(errno));
	if (!key) {
		if (fscanf(f, "%ld", &v) == 1)
			value = v;
	} else {
		while (fscanf(f, "%63s %ld", name, &v) == 2)
			if (!strcmp(name, key))
				value = v;
	}
	fclose(f);
	igt_assert_f(value >= 0, "%s: no %s\n", path, key ?: "value");
	return value;
}

/* Once what the cgroup's objects had is freed, little is charged: remove it. */
static void cg_drained(void)
{
	long current;

	for (int i = 0; i < 50; i++) {
		current = file_key(CG "/memory.current", NULL);
		if ((uint64_t)current < 2 * MiB)
			break;
		usleep(100 * 1000);
	}
	igt_assert_f((uint64_t)current < 2 * MiB, "%ld KiB still charged\n",
		     current / 1024);
	igt_assert_f(!rmdir(CG), "rmdir %s: %s\n", CG, strerror(errno));
}

/*
 * A child in a memory cgroup of CG_LIMIT makes objects of @chunk bytes
 * with @flags until one fails, each allocated at once (contiguous ones at
 * creation, others by a 4-byte fill on the engine).  It tells the parent
 * what it got after each one, so a child the cgroup's OOM killer ends
 * still reports.
 */
static void memcg_bounded(uint32_t flags, uint64_t chunk, uint64_t most)
{
	long vm_ooms = file_key("/proc/vmstat", "oom_kill");
	long objects = gembuf_state("objects");
	uint64_t got = 0, g;
	int engine, p[2], status;
	long cg_ooms;
	pid_t pid;

	engine = gembuf_open_engine();
	cg_make();
	igt_assert(!pipe(p));

	pid = fork();
	igt_assert(pid >= 0);
	if (!pid) {
		uint32_t h;
		int ret = 0;

		close(p[0]);
		if (__file_write(CG "/cgroup.procs", "0"))
			_exit(100);
		while (got < most) {
			uint64_t size = chunk;

			ret = __gembuf_create(engine, &size, flags,
					      GEMBUF_CACHE_WB, &h);
			if (!ret && !(flags & GEMBUF_GEM_CONTIGUOUS))
				ret = __gembuf_fill(engine, h, 0, 4, 0x5a5a5a5a);
			if (ret)
				break;
			got += size;
			if (write(p[1], &got, sizeof(got)) != sizeof(got))
				_exit(100);
		}
		_exit(ret ? -ret : 0);
	}
	close(p[1]);
	while (read(p[0], &g, sizeof(g)) == sizeof(g))
		got = g;
	close(p[0]);
	igt_assert_eq(waitpid(pid, &status, 0), pid);
	close(engine);

	cg_ooms = file_key(CG "/memory.events", "oom_kill");
	igt_info("got %llu MiB in a %llu MiB cgroup; %s %d; cgroup OOM kills %ld\n",
		 (unsigned long long)(got / MiB),
		 (unsigned long long)(CG_LIMIT / MiB),
		 WIFEXITED(status) ? "exit" : "signal",
		 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
		 cg_ooms);
	igt_assert_f(got <= CG_LIMIT, "%llu MiB charged to no one\n",
		     (unsigned long long)((got - CG_LIMIT) / MiB));
	igt_assert_f(got >= CG_LIMIT / 2, "stopped at %llu MiB, far below the limit\n",
		     (unsigned long long)(got / MiB));
	igt_assert_f((WIFEXITED(status) && WEXITSTATUS(status) == ENOMEM) ||
		     (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL &&
		      cg_ooms > 0),
		     "the child ended neither with ENOMEM nor by its cgroup's OOM kill\n");
	igt_assert_f(file_key("/proc/vmstat", "oom_kill") - vm_ooms == cg_ooms,
		     "an OOM kill outside the cgroup\n");

	/* Everything the child had goes, and its charges with it. */
	igt_assert_eq(gembuf_state_settle("objects", objects), objects);
	cg_drained();
}

/*
 * The creator pays, whoever allocates: an object made while this process
 * is in the cgroup and allocated (by the engine's first job) once it has
 * left is charged to the cgroup, and only there.
 */
static void memcg_creator_pays(void)
{
	uint64_t size = 32 * MiB;
	long before, after;
	char pid[16];
	int engine, ret;
	uint32_t h;

	engine = gembuf_open_engine();
	cg_make();
	snprintf(pid, sizeof(pid), "%d", getpid());
	gembuf_knob_write(CG, "cgroup.procs", pid);
	ret = __gembuf_create(engine, &size, 0, GEMBUF_CACHE_WB, &h);
	gembuf_knob_write(CG_ROOT, "cgroup.procs", pid);
	igt_assert_eq(ret, 0);

	before = file_key(CG "/memory.current", NULL);
	igt_assert_eq(__gembuf_fill(engine, h, 0, 4, 0x5a5a5a5a), 0);
	gembuf_wait(engine, h);
	after = file_key(CG "/memory.current", NULL);
	igt_info("the creator's cgroup: %ld KiB before the allocation, %ld KiB after\n",
		 before / 1024, after / 1024);
	/*
	 * memory.current moves in per-CPU batches (MEMCG_CHARGE_BATCH pages
	 * charged ahead, given back when another cgroup charges on that CPU),
	 * so it may lag the object by a few hundred KiB either way; an object
	 * charged to no one, or to the filler's cgroup, moves it by nothing.
	 */
	igt_assert_f((uint64_t)(after - before) >= size - size / 8,
		     "%llu MiB allocated, %ld KiB charged to its creator\n",
		     (unsigned long long)(size / MiB), (after - before) / 1024);

	gem_close(engine, h);
	close(engine);
	cg_drained();
}

static void contiguous_unprivileged(void)
{
	uint64_t size = MiB;
	int engine, status;
	uint32_t h;
	pid_t pid;

	engine = gembuf_open_engine();
	/* Root may. */
	igt_assert_eq(__gembuf_create(engine, &size, GEMBUF_GEM_CONTIGUOUS,
				      GEMBUF_CACHE_WB, &h), 0);
	gem_close(engine, h);

	pid = fork();
	igt_assert(pid >= 0);
	if (!pid) {
		/* The file stays open; its user loses every capability. */
		if (setgid(65534) || setuid(65534) || !setuid(0))
			_exit(100);
		for (int i = 0; i < 64; i++) {
			size = 4 * MiB;
			if (__gembuf_create(engine, &size, GEMBUF_GEM_CONTIGUOUS,
					    GEMBUF_CACHE_WB, &h) != -EACCES)
				_exit(101);
		}
		size = 4 * MiB;
		if (__gembuf_create(engine, &size, 0, GEMBUF_CACHE_WB, &h) ||
		    __gembuf_fill(engine, h, 0, 4, 1))
			_exit(102);
		_exit(0);
	}
	igt_assert_eq(waitpid(pid, &status, 0), pid);
	igt_assert_f(WIFEXITED(status), "child killed by %d\n", WTERMSIG(status));
	igt_assert_f(WEXITSTATUS(status) != 100, "could not drop privileges\n");
	igt_assert_f(WEXITSTATUS(status) != 101,
		     "an unprivileged client got CMA (or an error other than EACCES)\n");
	igt_assert_f(WEXITSTATUS(status) != 102,
		     "an unprivileged client got no ordinary memory\n");
	igt_assert_eq(WEXITSTATUS(status), 0);
	close(engine);
}

static uint32_t word_at(int fd, uint32_t h, uint64_t size, uint64_t off)
{
	uint32_t *p = gembuf_mmap(fd, h, size);
	uint32_t v = p[off / 4];

	munmap(p, size);
	return v;
}

/*
 * The second engine is QEMU's edu with its 28-bit mask: 256 MiB of IOVA,
 * with the MSI window at 128 MiB, and the DMA API aligns a 100 MiB range
 * to 128 MiB.  So one 100 MiB mapping fills it for a second one.
 */
static void engine_space_shared(void)
{
	const uint64_t size = 100 * MiB;
	int a, b, ret;
	uint32_t ha, hb;

	a = gembuf_open_engine_nth(1);
	igt_require_f(a >= 0, "no second DMA engine\n");
	b = gembuf_open_engine_nth(1);
	igt_assert(b >= 0);

	ha = gembuf_create(a, size, 0, GEMBUF_CACHE_WB);
	igt_assert_eq(__gembuf_fill(a, ha, 0, 4, 0xa1a1a1a1), 0);
	gembuf_wait(a, ha);

	/* A's job is done; its mapping must not keep B's out. */
	igt_assert_eq(gembuf_find_mapping(a, ha, GEMBUF_MAPPING_IOMMU, NULL), 1);
	hb = gembuf_create(b, size, 0, GEMBUF_CACHE_WB);
	ret = __gembuf_fill(b, hb, size - 4, 4, 0xb2b2b2b2);
	igt_assert_f(!ret, "client B's job failed beside A's idle mapping: %s\n",
		     strerror(-ret));
	gembuf_wait(b, hb);
	/* There was no room for both: A's went. */
	igt_assert_eq(gembuf_find_mapping(a, ha, GEMBUF_MAPPING_IOMMU, NULL), 0);
	igt_assert_eq_u32(word_at(b, hb, size, size - 4), 0xb2b2b2b2);

	/* And the other way round; A's memory kept what it had. */
	igt_assert_eq(__gembuf_fill(a, ha, size - 4, 4, 0xc3c3c3c3), 0);
	gembuf_wait(a, ha);
	igt_assert_eq_u32(word_at(a, ha, size, 0), 0xa1a1a1a1);
	igt_assert_eq_u32(word_at(a, ha, size, size - 4), 0xc3c3c3c3);

	close(b);
	close(a);
}

/*
 * What a queued job holds stays: a client's job that does not fit beside
 * it fails at once with ENOSPC, not waiting for the other client's fence,
 * and fits once that job is done.
 */
static void engine_space_queued(void)
{
	const uint64_t size = 100 * MiB;
	struct drm_gembuf_sync in = { 0 };
	struct drm_gembuf_dma_fill f = { 0 };
	int a, b, gate, fence;
	uint32_t ha, hb;

	igt_require(kernel_has_sw_sync());
	a = gembuf_open_engine_nth(1);
	igt_require_f(a >= 0, "no second DMA engine\n");
	b = gembuf_open_engine_nth(1);
	igt_assert(b >= 0);

	/* A's job waits for a fence only the test signals. */
	gate = sw_sync_timeline_create();
	fence = sw_sync_timeline_create_fence(gate, 1);
	igt_assert_eq(drmSyncobjCreate(a, 0, &in.handle), 0);
	igt_assert_eq(drmSyncobjImportSyncFile(a, in.handle, fence), 0);
	close(fence);
	ha = gembuf_create(a, size, 0, GEMBUF_CACHE_WB);
	f.handle = ha;
	f.size = 4;
	f.value = 0xa1a1a1a1;
	f.in_syncs = (uintptr_t)&in;
	f.in_sync_count = 1;
	igt_assert_eq(igt_ioctl(a, DRM_IOCTL_GEMBUF_DMA_FILL, &f), 0);

	hb = gembuf_create(b, size, 0, GEMBUF_CACHE_WB);
	igt_assert_eq(__gembuf_fill(b, hb, 0, 4, 0xb2b2b2b2), -ENOSPC);

	sw_sync_timeline_inc(gate, 1);
	gembuf_wait(a, ha);
	igt_assert_eq(__gembuf_fill(b, hb, 0, 4, 0xb2b2b2b2), 0);
	gembuf_wait(b, hb);
	igt_assert_eq_u32(word_at(a, ha, size, 0), 0xa1a1a1a1);
	igt_assert_eq_u32(word_at(b, hb, size, 0), 0xb2b2b2b2);

	close(gate);
	close(b);
	close(a);
}

igt_main
{
	igt_describe("A process in a 64 MiB memory cgroup that allocates objects stops at its limit with ENOMEM or its cgroup's OOM kill; no OOM kill outside the cgroup, and nothing stays charged.");
	igt_subtest("memcg-bounded")
		memcg_bounded(0, 8 * MiB, 256 * MiB);

	igt_describe("The same with one physical range per object, from CMA, which the DMA API charges to no one.");
	igt_subtest("memcg-bounded-contiguous")
		memcg_bounded(GEMBUF_GEM_CONTIGUOUS, 4 * MiB, 128 * MiB);

	igt_describe("Memory allocated after its creator left the cgroup is charged to the creator's cgroup.");
	igt_subtest("memcg-creator-pays")
		memcg_creator_pays();

	igt_describe("A render client without CAP_SYS_ADMIN gets EACCES for CMA, and ordinary memory still.");
	igt_subtest("contiguous-unprivileged")
		contiguous_unprivileged();

	igt_describe("A client's job fits in the 28-bit engine's address space beside another client's idle 100 MiB mapping, which is unmapped for it and mapped again after.");
	igt_subtest("engine-space-shared")
		engine_space_shared();

	igt_describe("A client's job that does not fit beside another client's queued job fails with ENOSPC at once, and fits once that job is done.");
	igt_subtest("engine-space-queued")
		engine_space_queued();
}
