// SPDX-License-Identifier: MIT
/*
 * gembuf_mmap: CPU mappings by page faults, for every cache policy; what
 * the mm does with them (fork, partial munmap, mprotect, mremap), and the
 * mappings that must be refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "igt.h"
#include "gembuf.h"

IGT_TEST_DESCRIPTION("Map gembuf objects into the process and check what they hold.");

static int fd = -1;

/* Words [first, first + words) of a mapping get a pattern of their index. */
static void pattern_range(uint32_t *p, size_t first, size_t words, uint32_t seed)
{
	for (size_t i = first; i < first + words; i++)
		p[i] = seed ^ (uint32_t)(i * 2654435761u);
}

static void check_range(const uint32_t *p, size_t first, size_t words,
			uint32_t seed)
{
	for (size_t i = first; i < first + words; i++)
		igt_assert_f(p[i] == (seed ^ (uint32_t)(i * 2654435761u)),
			     "word %zu: %08x\n", i, p[i]);
}

static void pattern(uint32_t *p, size_t words, uint32_t seed)
{
	pattern_range(p, 0, words, seed);
}

static void check_pattern(const uint32_t *p, size_t words, uint32_t seed)
{
	check_range(p, 0, words, seed);
}

/* Nothing is mapped at @p: mincore() says so. */
static bool unmapped(void *p)
{
	unsigned char vec;

	return mincore(p, 4096, &vec) == -1 && errno == ENOMEM;
}

static sigjmp_buf segv_jmp;

static void segv_handler(int sig)
{
	siglongjmp(segv_jmp, 1);
}

/* Whether a write of @v to @p gets SIGSEGV, caught here. */
static bool write_faults(volatile uint32_t *p, uint32_t v)
{
	struct sigaction sa = { .sa_handler = segv_handler }, old;
	bool faulted = false;

	sigemptyset(&sa.sa_mask);
	igt_assert_eq(sigaction(SIGSEGV, &sa, &old), 0);
	if (sigsetjmp(segv_jmp, 1))
		faulted = true;
	else
		*p = v;
	igt_assert_eq(sigaction(SIGSEGV, &old, NULL), 0);
	return faulted;
}

static void mmap_roundtrip(uint64_t size, uint32_t cache)
{
	struct gembuf_report_mapping m;
	uint32_t handle = gembuf_create(fd, size, 0, cache);
	uint32_t *a, *b;

	/* A new object is zeroed. */
	a = gembuf_mmap(fd, handle, size);
	for (size_t i = 0; i < size / 4; i += 1021)
		igt_assert_eq_u32(a[i], 0);

	/* One line for the processes' mappings: no address, one user a VMA. */
	igt_assert_eq(gembuf_find_mapping(fd, handle, GEMBUF_MAPPING_USER, &m), 1);
	igt_assert_eq_u64(m.dev_addr, 0);
	igt_assert_eq_u64(m.size, size);
	igt_assert_eq_u32(m.users, 1);

	/* A second mapping sees what the first wrote: the same pages. */
	pattern(a, size / 4, 0x5eed);
	b = gembuf_mmap(fd, handle, size);
	igt_assert(a != b);
	check_pattern(b, size / 4, 0x5eed);
	igt_assert_eq(gembuf_find_mapping(fd, handle, GEMBUF_MAPPING_USER, NULL), 1);
	igt_assert_eq(gembuf_user_vmas(fd, handle), 2);

	munmap(a, size);
	munmap(b, size);
	igt_assert_eq(gembuf_find_mapping(fd, handle, GEMBUF_MAPPING_USER, NULL), 0);
	gem_close(fd, handle);
}

/*
 * An object gets its memory when first mapped, where a failure is an
 * errno of mmap(); its pages go in at their first touch, zeroed.
 */
static void mmap_allocates(uint32_t cache)
{
	const uint64_t size = 64 << 10;
	uint32_t handle = gembuf_create(fd, size, 0, cache);
	struct gembuf_report gi;
	uint32_t *p;

	gembuf_info(fd, handle, &gi);
	igt_assert_f(!(gi.flags & GEMBUF_INFO_ALLOCATED),
		     "memory allocated before the object was mapped\n");
	p = gembuf_mmap(fd, handle, size);
	gembuf_info(fd, handle, &gi);
	igt_assert_f(gi.flags & GEMBUF_INFO_ALLOCATED,
		     "no memory once the object is mapped\n");
	igt_assert_eq(gembuf_user_vmas(fd, handle), 1);
	igt_assert_eq_u32(p[5000], 0);
	p[5000] = 5000;
	igt_assert_eq_u32(p[5000], 5000);
	igt_assert_eq_u64(gi.size, size);

	munmap(p, size);
	gem_close(fd, handle);
}

igt_main
{
	igt_fixture
		fd = gembuf_open_display();

	igt_describe("Write-back and write-combined objects map and read back; debugfs shows the processes' mappings as one user line, one user a VMA, with no address.");
	igt_subtest_with_dynamic("cache-policies") {
		igt_dynamic("write-back")
			mmap_roundtrip((2 << 20) + (64 << 10), GEMBUF_CACHE_WB);
		igt_dynamic("write-combined")
			mmap_roundtrip((2 << 20) + (64 << 10), GEMBUF_CACHE_WC);
	}

	igt_describe("A mapping may cover the start of an object.");
	igt_subtest("partial") {
		uint32_t handle = gembuf_create(fd, 3 * 4096, 0, GEMBUF_CACHE_WB);
		uint32_t *full = gembuf_mmap(fd, handle, 3 * 4096);
		uint32_t *part = gembuf_mmap(fd, handle, 4096);

		pattern(full, 3 * 1024, 7);
		check_pattern(part, 1024, 7);
		munmap(part, 4096);
		munmap(full, 3 * 4096);
		gem_close(fd, handle);
	}

	igt_describe("Mappings beyond the end of the object, private mappings and unknown handles are refused.");
	igt_subtest("bad-mappings") {
		uint32_t handle = gembuf_create(fd, 8192, 0, GEMBUF_CACHE_WB);
		struct drm_gembuf_gem_mmap_offset mo = { .handle = handle, .pad = 1 };
		uint64_t offset;

		igt_assert(!__gembuf_mmap(fd, handle, 3 * 4096, PROT_READ, MAP_SHARED));
		igt_assert(!__gembuf_mmap(fd, handle, 8192, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE));
		igt_assert_eq(errno, EINVAL);
		igt_assert_eq(__gembuf_mmap_offset(fd, 0xbad, &offset), -ENOENT);
		do_ioctl_err(fd, DRM_IOCTL_GEMBUF_GEM_MMAP_OFFSET, &mo, EINVAL);
		igt_assert_eq(gembuf_user_vmas(fd, handle), 0);
		gem_close(fd, handle);
	}

	igt_describe("A mapping keeps the object alive after its handle is closed; the handle is gone.");
	igt_subtest("use-after-close") {
		long before = gembuf_state("objects");
		uint32_t handle = gembuf_create(fd, 65536, 0, GEMBUF_CACHE_WB);
		uint32_t *p = gembuf_mmap(fd, handle, 65536);
		uint64_t offset;

		pattern(p, 16384, 99);
		gem_close(fd, handle);
		igt_assert_eq(__gembuf_mmap_offset(fd, handle, &offset), -ENOENT);
		check_pattern(p, 16384, 99);
		igt_assert_eq(gembuf_state("objects"), before + 1);
		munmap(p, 65536);
		igt_assert_eq(gembuf_state("objects"), before);
	}

	igt_describe("A dma-buf mapping at a page offset shows the object from that page on; the GEM fake offset maps from its start only (DRM looks it up exactly).");
	igt_subtest("offset") {
		uint32_t handle = gembuf_create(fd, 4 * 4096, 0, GEMBUF_CACHE_WB);
		uint32_t *full = gembuf_mmap(fd, handle, 4 * 4096);
		int dmabuf = prime_handle_to_fd(fd, handle);
		uint64_t offset;

		igt_assert_eq(__gembuf_mmap_offset(fd, handle, &offset), 0);
		for (int i = 0; i < 4; i++)
			full[i * 1024] = 0x100 + i;
		for (int i = 1; i < 4; i++) {
			size_t len = (4 - i) * 4096;
			uint32_t *buf = mmap(NULL, len, PROT_READ, MAP_SHARED,
					     dmabuf, i * 4096);

			igt_assert_f(buf != MAP_FAILED, "dma-buf mmap at page %d\n", i);
			for (int j = 0; j < 4 - i; j++)
				igt_assert_eq_u32(buf[j * 1024], 0x100 + i + j);
			munmap(buf, len);
			igt_assert(mmap(NULL, len, PROT_READ, MAP_SHARED, fd,
					offset + i * 4096) == MAP_FAILED);
			igt_assert_eq(errno, EINVAL);
		}
		/* Past the end. */
		igt_assert(mmap(NULL, 2 * 4096, PROT_READ, MAP_SHARED, dmabuf,
				3 * 4096) == MAP_FAILED);
		igt_assert_eq(gembuf_user_vmas(fd, handle), 1);
		munmap(full, 4 * 4096);
		close(dmabuf);
		gem_close(fd, handle);
	}

	igt_describe("mremap() moves a mapping: nothing is left at the old address, the new one shows the same pages, and what is written there reaches the object, as a fresh mapping sees; it cannot grow past the object.");
	igt_subtest("mremap-moves") {
		uint32_t handle = gembuf_create(fd, 4 * 4096, 0, GEMBUF_CACHE_WB);
		uint32_t *w = gembuf_mmap(fd, handle, 4 * 4096);
		uint32_t *p = gembuf_mmap(fd, handle, 4 * 4096), *q, *fresh;
		void *spot = mmap(NULL, 4 * 4096, PROT_NONE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		igt_assert(spot != MAP_FAILED);
		/* Written through another mapping: @p faults only once moved. */
		pattern(w, 4096, 3);
		munmap(w, 4 * 4096);
		q = mremap(p, 4 * 4096, 4 * 4096, MREMAP_MAYMOVE | MREMAP_FIXED, spot);
		igt_assert_f(q == spot, "mremap: %s\n", strerror(errno));
		igt_assert(unmapped(p));
		check_pattern(q, 4096, 3);
		pattern(q, 4096, 4);
		igt_assert_eq(gembuf_user_vmas(fd, handle), 1);

		fresh = gembuf_mmap(fd, handle, 4 * 4096);
		check_pattern(fresh, 4096, 4);
		munmap(fresh, 4 * 4096);

		igt_assert(mremap(q, 4 * 4096, 8 * 4096, MREMAP_MAYMOVE) == MAP_FAILED);
		check_pattern(q, 4096, 4);
		munmap(q, 4 * 4096);
		igt_assert_eq(gembuf_user_vmas(fd, handle), 0);
		gem_close(fd, handle);
	}

	igt_describe("A child inherits a shared mapping, the pages touched before the fork and those it touches first alike: what it writes, the parent sees.");
	igt_subtest("fork-inherits") {
		const uint64_t size = 32 * 4096;
		uint32_t handle = gembuf_create(fd, size, 0, GEMBUF_CACHE_WB);
		uint32_t *p = gembuf_mmap(fd, handle, size);
		int status;
		pid_t pid;

		/*
		 * A fault maps at most 16 pages: the first ones are in the
		 * parent's page tables at the fork, the last ones are not.
		 */
		p[0] = 0xf00d;
		pid = fork();
		igt_assert(pid >= 0);
		if (pid == 0) {
			/* No assertions in the child: its exit code tells. */
			if (p[0] != 0xf00d)
				_exit(1);
			pattern(p, size / 4, 0xc41d);
			_exit(0);
		}
		igt_assert_eq(waitpid(pid, &status, 0), pid);
		igt_assert_f(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			     "child: %s %d\n", WIFEXITED(status) ? "exit" : "signal",
			     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		check_pattern(p, size / 4, 0xc41d);
		/* The child's copy went with it. */
		igt_assert_eq(gembuf_user_vmas(fd, handle), 1);
		munmap(p, size);
		gem_close(fd, handle);
	}

	igt_describe("Unmapping the second of four pages leaves the others mapped, reading and writing the object; the pieces keep it alive, and it is freed once they are gone.");
	igt_subtest("partial-munmap") {
		long before = gembuf_state("objects");
		uint32_t handle = gembuf_create(fd, 4 * 4096, 0, GEMBUF_CACHE_WB);
		uint32_t *w = gembuf_mmap(fd, handle, 4 * 4096);
		uint32_t *p = gembuf_mmap(fd, handle, 4 * 4096), *fresh;

		/* Written through another mapping: @p faults only once split. */
		pattern(w, 4096, 5);
		munmap(w, 4 * 4096);
		igt_assert_eq(munmap(p + 1024, 4096), 0);
		igt_assert(unmapped(p + 1024));
		/* Two VMAs now: the first page and the last two. */
		igt_assert_eq(gembuf_user_vmas(fd, handle), 2);
		check_range(p, 0, 1024, 5);
		check_range(p, 2048, 2048, 5);
		pattern_range(p, 0, 1024, 6);
		pattern_range(p, 2048, 2048, 6);

		fresh = gembuf_mmap(fd, handle, 4 * 4096);
		check_range(fresh, 0, 1024, 6);
		check_range(fresh, 1024, 1024, 5);
		check_range(fresh, 2048, 2048, 6);
		munmap(fresh, 4 * 4096);

		gem_close(fd, handle);
		igt_assert_eq(gembuf_state("objects"), before + 1);
		munmap(p, 4096);
		igt_assert_eq(gembuf_state("objects"), before + 1);
		munmap(p + 2048, 2 * 4096);
		igt_assert_eq(gembuf_state("objects"), before);
	}

	igt_describe("mprotect() of the first half of a mapping, before any touch, splits it: the read-only half reads the object and a write there gets SIGSEGV; the other half still writes through to the object.");
	igt_subtest("mprotect-split") {
		uint32_t handle = gembuf_create(fd, 4 * 4096, 0, GEMBUF_CACHE_WB);
		uint32_t *w = gembuf_mmap(fd, handle, 4 * 4096);
		uint32_t *p = gembuf_mmap(fd, handle, 4 * 4096);

		pattern(w, 4096, 7);
		igt_assert_eq(mprotect(p, 2 * 4096, PROT_READ), 0);
		igt_assert_eq(gembuf_user_vmas(fd, handle), 3);

		check_range(p, 0, 2048, 7);
		igt_assert(write_faults(p, 0xdead));
		igt_assert(write_faults(p + 2047, 0xdead));
		pattern_range(p, 2048, 2048, 8);

		check_range(w, 0, 2048, 7);
		check_range(w, 2048, 2048, 8);
		munmap(p, 4 * 4096);
		munmap(w, 4 * 4096);
		igt_assert_eq(gembuf_user_vmas(fd, handle), 0);
		gem_close(fd, handle);
	}

	igt_describe("The first mapping of an object allocates its memory, for either cache policy, and its pages read zero at their first touch.");
	igt_subtest("mmap-allocates") {
		mmap_allocates(GEMBUF_CACHE_WB);
		mmap_allocates(GEMBUF_CACHE_WC);
	}

	igt_fixture
		drm_close_driver(fd);
}
