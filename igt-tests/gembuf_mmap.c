// SPDX-License-Identifier: MIT
/*
 * gembuf_mmap: CPU mappings through the user VCM, for every cache policy,
 * and the mappings that must be refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "igt.h"
#include "gembuf.h"

IGT_TEST_DESCRIPTION("Map gembuf objects into the process and check what they hold.");

static int fd = -1;

static void pattern(uint32_t *p, size_t words, uint32_t seed)
{
	for (size_t i = 0; i < words; i++)
		p[i] = seed ^ (uint32_t)(i * 2654435761u);
}

static void check_pattern(const uint32_t *p, size_t words, uint32_t seed)
{
	for (size_t i = 0; i < words; i++)
		igt_assert_f(p[i] == (seed ^ (uint32_t)(i * 2654435761u)),
			     "word %zu: %08x\n", i, p[i]);
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

	igt_assert_eq(gembuf_find_mapping(fd, handle, GEMBUF_MAPPING_USER, &m), 1);
	igt_assert_eq_u64(m.dev_addr, (uintptr_t)a);
	igt_assert_eq_u64(m.size, size);

	/* A second mapping sees what the first wrote: the same pages. */
	pattern(a, size / 4, 0x5eed);
	b = gembuf_mmap(fd, handle, size);
	igt_assert(a != b);
	check_pattern(b, size / 4, 0x5eed);
	igt_assert_eq(gembuf_find_mapping(fd, handle, GEMBUF_MAPPING_USER, NULL), 2);

	munmap(a, size);
	munmap(b, size);
	igt_assert_eq(gembuf_find_mapping(fd, handle, GEMBUF_MAPPING_USER, NULL), 0);
	gem_close(fd, handle);
}

igt_main
{
	igt_fixture
		fd = gembuf_open_display();

	igt_describe("Write-back and write-combined objects map, read back and show their user mappings in debugfs.");
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
		igt_assert_eq(gembuf_find_mapping(fd, handle, GEMBUF_MAPPING_USER, NULL), 0);
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
		igt_assert_eq(gembuf_find_mapping(fd, handle, GEMBUF_MAPPING_USER, NULL), 1);
		munmap(full, 4 * 4096);
		close(dmabuf);
		gem_close(fd, handle);
	}

	igt_describe("Moving a mapping with mremap() is refused and leaves it mapped and counted; shrinking or growing it too.");
	igt_subtest("mremap") {
		uint32_t handle = gembuf_create(fd, 4 * 4096, 0, GEMBUF_CACHE_WB);
		uint32_t *p = gembuf_mmap(fd, handle, 4 * 4096);
		void *spot = mmap(NULL, 4 * 4096, PROT_NONE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		igt_assert(spot != MAP_FAILED);
		pattern(p, 4096, 3);
		igt_assert(mremap(p, 4 * 4096, 4 * 4096,
				  MREMAP_MAYMOVE | MREMAP_FIXED, spot) == MAP_FAILED);
		igt_assert(mremap(p, 4 * 4096, 8 * 4096, MREMAP_MAYMOVE) == MAP_FAILED);
		igt_assert(mremap(p, 4 * 4096, 4096, 0) == MAP_FAILED);
		check_pattern(p, 4096, 3);
		igt_assert_eq(gembuf_find_mapping(fd, handle, GEMBUF_MAPPING_USER, NULL), 1);
		munmap(spot, 4 * 4096);
		munmap(p, 4 * 4096);
		igt_assert_eq(gembuf_find_mapping(fd, handle, GEMBUF_MAPPING_USER, NULL), 0);
		gem_close(fd, handle);
	}

	igt_fixture
		drm_close_driver(fd);
}
