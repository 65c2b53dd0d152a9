// SPDX-License-Identifier: MIT
/*
 * gembuf_flink: global names for gembuf objects, with DRM's rules (no
 * names on render nodes).
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "igt.h"
#include "gembuf.h"
#include "caps.h"

IGT_TEST_DESCRIPTION("Share gembuf objects by name.");

igt_main
{
	int fd = -1, fd2 = -1;

	igt_fixture {
		fd = gembuf_open_display();
		fd2 = gembuf_open_display();
	}

	igt_describe("A name opened from another file is the same memory.");
	igt_subtest("basic") {
		uint32_t h = gembuf_create(fd, 16384, 0, GEMBUF_CACHE_WB);
		uint32_t name = gem_flink(fd, h), h2, *a, *b;

		igt_assert(name);
		igt_assert_eq_u32(gem_flink(fd, h), name);
		h2 = gem_open(fd2, name);
		a = gembuf_mmap(fd, h, 16384);
		b = gembuf_mmap(fd2, h2, 16384);
		a[100] = 0x12345678;
		igt_assert_eq_u32(b[100], 0x12345678);
		munmap(a, 16384);
		munmap(b, 16384);
		gem_close(fd2, h2);
		gem_close(fd, h);
	}

	igt_describe("A name outlives its creator's handle while another handle holds the object.");
	igt_subtest("name-outlives-handle") {
		uint32_t h = gembuf_create(fd, 4096, 0, GEMBUF_CACHE_WB);
		uint32_t name = gem_flink(fd, h), h2, h3;

		h2 = gem_open(fd2, name);
		gem_close(fd, h);
		h3 = gem_open(fd, name);
		igt_assert(h3);
		gem_close(fd, h3);
		gem_close(fd2, h2);
		/* The last handle is gone: so is the name. */
		{
			struct drm_gem_open o = { .name = name };

			do_ioctl_err(fd, DRM_IOCTL_GEM_OPEN, &o, ENOENT);
		}
	}

	igt_describe("Render nodes cannot flink.");
	igt_subtest("render-no-flink") {
		int engine = gembuf_open_engine();
		uint32_t h = gembuf_create(engine, 4096, 0, GEMBUF_CACHE_WB);
		uint32_t name;

		igt_assert_eq(__gem_flink(engine, h, &name), -EACCES);
		gem_close(engine, h);
		drm_close_driver(engine);
	}

	igt_describe("An unauthenticated client of the primary node can neither flink nor open names.");
	igt_subtest("unauthenticated") {
		uint32_t h = gembuf_create(fd, 4096, 0, GEMBUF_CACHE_WB);
		uint32_t name = gem_flink(fd, h), n2;
		int u = open_unauthenticated(gembuf_open_display);
		struct drm_gem_open o = { .name = name };
		uint32_t uh = gembuf_create(u, 4096, 0, GEMBUF_CACHE_WB);

		do_ioctl_err(u, DRM_IOCTL_GEM_OPEN, &o, EACCES);
		igt_assert_eq(__gem_flink(u, uh, &n2), -EACCES);
		gem_close(u, uh);
		close(u);
		gem_close(fd, h);
	}

	igt_describe("Flinking an unknown handle fails.");
	igt_subtest("bad-handle") {
		uint32_t name;

		igt_assert_eq(__gem_flink(fd, 0xbad, &name), -ENOENT);
	}

	igt_fixture {
		drm_close_driver(fd2);
		drm_close_driver(fd);
	}
}
