// SPDX-License-Identifier: MIT
/*
 * gembuf_create: objects of every size, cache policy and layout, what
 * debugfs reports about their memory, and the errors of bad requests.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "igt.h"
#include "gembuf.h"
#include "igt_pipe_crc.h"

IGT_TEST_DESCRIPTION("Create gembuf objects and check the memory behind them.");

static int fd = -1, engine = -1;

static uint64_t chunk_bytes(const struct gembuf_report *info)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < GEMBUF_INFO_CHUNK_ORDERS; i++)
		sum += (uint64_t)info->chunks[i] << i;
	return sum;
}

/*
 * An object gets its memory on first use (see gembuf_place), one range
 * at once; on the engine, whose IOMMU it is made for, in the SMMU's
 * block sizes.
 */
static void check_create(uint64_t size, uint32_t flags, uint32_t cache)
{
	struct gembuf_report info;
	uint64_t want = (size + 4095) & ~4095ull, got = size;
	uint32_t handle;
	uint8_t *p;

	igt_assert_eq(__gembuf_create(fd, &got, flags, cache, &handle), 0);
	igt_assert_eq_u64(got, want);
	gembuf_info(fd, handle, &info);
	if (flags & GEMBUF_GEM_CONTIGUOUS) {
		/* One range asked for: the memory comes at once. */
		igt_assert(info.flags & GEMBUF_INFO_ALLOCATED);
		igt_assert_eq_u32(info.num_chunks, 1);
	} else {
		igt_assert_eq_u32(info.flags & GEMBUF_INFO_ALLOCATED, 0);
		igt_assert_eq_u32(info.num_chunks, 0);
	}
	gem_close(fd, handle);

	/* Made on the engine, and allocated by a CPU mapping's first write. */
	got = size;
	igt_assert_eq(__gembuf_create(engine, &got, flags, cache, &handle), 0);
	igt_assert_eq_u64(got, want);
	p = gembuf_mmap(engine, handle, want);
	p[want - 1] = 1;
	munmap(p, want);
	gembuf_info(engine, handle, &info);
	igt_assert(info.flags & GEMBUF_INFO_ALLOCATED);
	igt_assert_eq_u64(info.size, want);
	igt_assert_eq_u32(info.cache, cache);
	if (flags & GEMBUF_GEM_CONTIGUOUS) {
		/* One chunk, counted under the power of two below its size. */
		igt_assert_eq_u32(info.num_chunks, 1);
		igt_assert(info.flags & GEMBUF_INFO_CONTIGUOUS);
		igt_assert_eq_u32(info.chunks[63 - __builtin_clzll(want)], 1);
	} else {
		igt_assert_eq_u64(chunk_bytes(&info), want);
	}
	/* Chunks follow the engine's SMMU page sizes: 2 MiB blocks. */
	if (!(flags & GEMBUF_GEM_CONTIGUOUS) && want >= (2u << 20))
		igt_assert_f(info.chunks[21] >= 1, "no 2 MiB chunk in %llu bytes\n",
			     (unsigned long long)want);
	igt_assert_eq_u32(info.flags & GEMBUF_INFO_IMPORTED, 0);
	gem_close(engine, handle);
}

igt_main
{
	static const uint64_t sizes[] = {
		1, 4096, 65536 + 4096, 2 << 20, (8 << 20) + 12288, 256ull << 20,
	};

	igt_fixture {
		fd = gembuf_open_display();
		engine = gembuf_open_engine();
	}

	igt_describe("Objects from one page to hundreds of MiB, rounded up to pages, made of chunks summing to their size.");
	igt_subtest_with_dynamic("sizes") {
		for (unsigned int i = 0; i < ARRAY_SIZE(sizes); i++)
			igt_dynamic_f("%llu", (unsigned long long)sizes[i])
				check_create(sizes[i], 0, GEMBUF_CACHE_WB);
	}

	igt_describe("Every cache policy is accepted and reported back.");
	igt_subtest_with_dynamic("cache-policies") {
		igt_dynamic("write-back")
			check_create(1 << 20, 0, GEMBUF_CACHE_WB);
		igt_dynamic("write-combined")
			check_create(1 << 20, 0, GEMBUF_CACHE_WC);
	}

	igt_describe("A contiguous object is one chunk.");
	igt_subtest("contiguous")
		check_create((4 << 20) + 4096, GEMBUF_GEM_CONTIGUOUS, GEMBUF_CACHE_WB);

	igt_describe("Bad flags, cache policies, padding and sizes are refused and create nothing.");
	igt_subtest("bad-args") {
		long before = gembuf_state("objects");
		struct drm_gembuf_gem_create c;

		c = (struct drm_gembuf_gem_create){ .size = 4096, .flags = 1 << 5 };
		do_ioctl_err(fd, DRM_IOCTL_GEMBUF_GEM_CREATE, &c, EINVAL);
		/* Device memory for RAM: refused. */
		c = (struct drm_gembuf_gem_create){ .size = 4096,
						    .cache = GEMBUF_CACHE_UNCACHED };
		do_ioctl_err(fd, DRM_IOCTL_GEMBUF_GEM_CREATE, &c, EINVAL);
		c = (struct drm_gembuf_gem_create){ .size = 4096, .cache = 3 };
		do_ioctl_err(fd, DRM_IOCTL_GEMBUF_GEM_CREATE, &c, EINVAL);
		c = (struct drm_gembuf_gem_create){ .size = 4096, .pad = 1 };
		do_ioctl_err(fd, DRM_IOCTL_GEMBUF_GEM_CREATE, &c, EINVAL);
		c = (struct drm_gembuf_gem_create){ .size = 0 };
		do_ioctl_err(fd, DRM_IOCTL_GEMBUF_GEM_CREATE, &c, EINVAL);
		c = (struct drm_gembuf_gem_create){ .size = 2ull << 30 };
		do_ioctl_err(fd, DRM_IOCTL_GEMBUF_GEM_CREATE, &c, E2BIG);
		/* Rounding up to a page would wrap around. */
		c = (struct drm_gembuf_gem_create){ .size = ~0ull };
		do_ioctl_err(fd, DRM_IOCTL_GEMBUF_GEM_CREATE, &c, E2BIG);
		igt_assert_eq_u32(c.handle, 0);
		igt_assert_eq(gembuf_state("objects"), before);
	}

	igt_describe("What an object is made of is debugfs's, for root: the GEM_INFO ioctl is gone, and gembuf_object refuses an unknown handle, an unknown client and a malformed request.");
	igt_subtest("info-errors") {
		struct gembuf_report info = { .handle = 0xdead };
		uint32_t handle = gembuf_create(fd, 4096, 0, GEMBUF_CACHE_WB);
		char buf[64] = {}, path[96];
		struct stat st;
		int dfd;

		/* Its old number: no ioctl. */
		do_ioctl_err(fd, DRM_IOWR(DRM_COMMAND_BASE + 0x02, buf), buf, EINVAL);
		igt_assert_eq(__gembuf_info(fd, &info, NULL, 0), -ENOENT);
		info = (struct gembuf_report){ .handle = handle };
		igt_assert_eq(__gembuf_info(fd, &info, NULL, 0), 0);
		igt_assert_eq_u64(info.size, 4096);

		igt_assert_eq(fstat(fd, &st), 0);
		snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%u/gembuf_object",
			 minor(st.st_rdev));
		dfd = open(path, O_RDWR);
		igt_assert_f(dfd >= 0, "%s: %s\n", path, strerror(errno));
		/* No such client of this device: ids start at 1. */
		igt_assert_eq(write(dfd, "0 1", 3), -1);
		igt_assert_eq(errno, ESRCH);
		igt_assert_eq(write(dfd, "1", 1), -1);
		igt_assert_eq(errno, EINVAL);
		igt_assert_eq(write(dfd, "x y", 3), -1);
		igt_assert_eq(errno, EINVAL);
		memset(path, '1', sizeof(path));
		igt_assert_eq(write(dfd, path, sizeof(path)), -1);
		igt_assert_eq(errno, EINVAL);
		/* Nothing asked yet, or the last request failed: nothing to read. */
		igt_assert_eq(read(dfd, buf, sizeof(buf)), 0);
		close(dfd);
		gem_close(fd, handle);
	}

	igt_describe("A request to gembuf_object from memory the kernel cannot read is EFAULT and asks for nothing: nothing to read after it, and the next request's report is there.");
	igt_subtest("info-fault") {
		struct gembuf_report info = {};
		uint32_t handle = gembuf_create(fd, 8192, 0, GEMBUF_CACHE_WB);
		char buf[64];
		void *none;
		int dir, dfd;

		dir = igt_debugfs_dir(fd);
		igt_assert_f(dir >= 0, "debugfs: %s\n", strerror(errno));
		dfd = openat(dir, "gembuf_object", O_RDWR);
		igt_assert_f(dfd >= 0, "gembuf_object: %s\n", strerror(errno));
		close(dir);
		/* A page nothing may read. */
		none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		igt_assert(none != MAP_FAILED);
		igt_assert_eq(write(dfd, none, 4), -1);
		igt_assert_eq(errno, EFAULT);
		munmap(none, 4096);
		igt_assert_eq(read(dfd, buf, sizeof(buf)), 0);
		close(dfd);
		/* The file still answers. */
		gembuf_info(fd, handle, &info);
		igt_assert_eq_u64(info.size, 8192);
		gem_close(fd, handle);
	}

	igt_describe("Closing the handles frees the objects.");
	igt_subtest("close-frees") {
		long before = gembuf_state("objects");
		uint32_t h[4];

		for (int i = 0; i < 4; i++)
			h[i] = gembuf_create(fd, 1 << 20, 0, GEMBUF_CACHE_WB);
		igt_assert_eq(gembuf_state("objects"), before + 4);
		for (int i = 0; i < 4; i++)
			gem_close(fd, h[i]);
		igt_assert_eq(gembuf_state("objects"), before);
		igt_assert_eq(__gem_close(fd, h[0]), -EINVAL);
	}

	igt_fixture {
		drm_close_driver(engine);
		drm_close_driver(fd);
	}
}
