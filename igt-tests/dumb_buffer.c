// SPDX-License-Identifier: MIT
/*
 * dumb_buffer: the generic dumb-buffer contract upstream igt's
 * dumb_buffer checks, with its subtest names, plus the arithmetic a
 * driver must get right itself: DRM core bounds width * bytes per pixel,
 * not what a driver computes from bits per pixel, and the size returned
 * is what the client may map (the whole object, in pages).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "igt.h"
#include "gembuf.h"

IGT_TEST_DESCRIPTION("Dumb buffers: creation, mapping, sizes and invalid input.");

static int fd = -1;

static int __dumb_create(struct drm_mode_create_dumb *create)
{
	int err = 0;

	if (igt_ioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, create))
		err = -errno;
	errno = 0;
	return err;
}

static void dumb_create(struct drm_mode_create_dumb *create)
{
	igt_assert_eq(__dumb_create(create), 0);
}

static void *__dumb_map(uint32_t handle, uint64_t size, int prot)
{
	struct drm_mode_map_dumb arg = { .handle = handle };
	void *ptr;

	if (igt_ioctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &arg))
		return NULL;
	ptr = mmap(NULL, size, prot, MAP_SHARED, fd, arg.offset);
	return ptr == MAP_FAILED ? NULL : ptr;
}

static void *dumb_map(uint32_t handle, uint64_t size, int prot)
{
	void *ptr = __dumb_map(handle, size, prot);

	igt_assert(ptr);
	return ptr;
}

static void dumb_destroy(uint32_t handle)
{
	struct drm_mode_destroy_dumb arg = { .handle = handle };

	do_ioctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &arg);
}

static const struct drm_mode_create_dumb big = {
	.width = 4032, .height = 2016, .bpp = 32,
};

igt_main
{
	long page = sysconf(_SC_PAGESIZE);
	long objects = 0;

	igt_fixture {
		fd = drm_open_driver(DRIVER_ANY);
		objects = gembuf_state("objects");
	}

	igt_describe("A zero bpp, width or height is EINVAL.");
	igt_subtest("invalid-bpp") {
		struct drm_mode_create_dumb c = big;

		c.bpp = 0;
		igt_assert_eq(__dumb_create(&c), -EINVAL);
		c = big;
		c.width = 0;
		igt_assert_eq(__dumb_create(&c), -EINVAL);
		c = big;
		c.height = 0;
		igt_assert_eq(__dumb_create(&c), -EINVAL);
	}

	igt_describe("Any flag is EINVAL and creates nothing on gembuf: the uapi says flags must be zero, and DRM core leaves the check to drivers; a driver that takes them (vgem and vkms, on either GEM helper) skips.");
	igt_subtest("invalid-flags") {
		struct drm_mode_create_dumb c = big;

		/* Another driver may take them, as DRM core does: then skip. */
		if (!is_gembuf_device(fd)) {
			c.flags = 1;
			if (!__dumb_create(&c)) {
				dumb_destroy(c.handle);
				igt_skip("the driver takes any flags\n");
			}
		}
		for (unsigned int bit = 0; bit < 32; bit++) {
			c = big;
			c.flags = 1u << bit;
			igt_assert_f(__dumb_create(&c) == -EINVAL,
				     "flags %#x accepted\n", c.flags);
			igt_assert_eq_u32(c.handle, 0);
			igt_assert_eq(gembuf_state("objects"), objects);
		}
		c = big;
		dumb_create(&c);
		dumb_destroy(c.handle);
	}

	igt_describe("A 4032x2016 32 bpp buffer is created and destroyed.");
	igt_subtest("create-valid-dumb") {
		struct drm_mode_create_dumb c = big;

		dumb_create(&c);
		dumb_destroy(c.handle);
	}

	igt_describe("A dumb buffer maps for its whole returned size.");
	igt_subtest("map-valid") {
		struct drm_mode_create_dumb c = big;

		dumb_create(&c);
		munmap(dumb_map(c.handle, c.size, PROT_READ), c.size);
		dumb_destroy(c.handle);
	}

	igt_describe("A mapping outlives the destroyed handle and reads zeros.");
	igt_subtest("map-uaf") {
		struct drm_mode_create_dumb c = big;
		uint32_t *ptr;

		dumb_create(&c);
		ptr = dumb_map(c.handle, c.size, PROT_READ);
		dumb_destroy(c.handle);
		igt_assert_eq_u32(*ptr, 0);
		munmap(ptr, c.size);
	}

	igt_describe("A mapping one byte larger than the returned size fails.");
	igt_subtest("map-invalid-size") {
		struct drm_mode_create_dumb c = big;

		dumb_create(&c);
		igt_assert(!__dumb_map(c.handle, c.size + 1, PROT_READ | PROT_WRITE));
		dumb_destroy(c.handle);
	}

	igt_describe("The size returned is the object's: whole pages, every page of it mappable and zeroed (upstream maps create.size and reads each page).");
	igt_subtest("create-clear") {
		static const struct { uint32_t w, h, bpp; } shapes[] = {
			{ 1, 1, 32 }, { 1, 1, 8 }, { 3, 5, 24 }, { 1024, 1, 32 },
			{ 1025, 3, 16 }, { 640, 480, 32 }, { 1, 4097, 8 },
		};

		for (unsigned int i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
			struct drm_mode_create_dumb c = {
				.width = shapes[i].w, .height = shapes[i].h,
				.bpp = shapes[i].bpp,
			};
			uint8_t *ptr;

			dumb_create(&c);
			igt_assert_f(c.size % page == 0, "%ux%u@%u: size %llu\n",
				     c.width, c.height, c.bpp,
				     (unsigned long long)c.size);
			igt_assert(c.pitch >= (c.width * c.bpp + 7) / 8);
			igt_assert_lte_u64((uint64_t)c.pitch * c.height, c.size);
			ptr = dumb_map(c.handle, c.size, PROT_READ | PROT_WRITE);
			for (uint64_t off = 0; off < c.size; off += page) {
				igt_assert_eq(ptr[off + (off / page) % page], 0);
				ptr[off] = 0xa5;
			}
			munmap(ptr, c.size);
			dumb_destroy(c.handle);
		}
	}

	igt_describe("Widths whose bits per line overflow 32 bits are EINVAL, not a small buffer (DRM core bounds bytes per pixel, not bits).");
	igt_subtest("create-overflow") {
		static const struct { uint32_t w, h, bpp; } shapes[] = {
			{ 134217729, 1, 32 }, { 0x20000000, 1, 8 },
			{ 0x40000001, 1, 4 }, { 0xffffffff, 1, 1 },
			/* 0xffffffff bits: rounding them up to bytes overflows */
			{ 0x55555555, 1, 3 },
		};

		for (unsigned int i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
			struct drm_mode_create_dumb c = {
				.width = shapes[i].w, .height = shapes[i].h,
				.bpp = shapes[i].bpp,
			};
			int ret = __dumb_create(&c);

			/* Refused, or as large as asked for. */
			if (!ret) {
				igt_assert_lte_u64((uint64_t)c.width * c.bpp / 8, c.pitch);
				igt_assert_lte_u64((uint64_t)c.pitch * c.height, c.size);
				dumb_destroy(c.handle);
			} else {
				igt_assert_f(ret == -EINVAL || ret == -E2BIG || ret == -ENOMEM,
					     "%ux%u@%u: %d\n", c.width, c.height, c.bpp, ret);
			}
		}
		if (is_gembuf_device(fd)) {
			struct drm_mode_create_dumb c = { .width = 134217729, .height = 1, .bpp = 32 };
			struct drm_mode_create_dumb round = { .width = 0x55555555, .height = 1,
							      .bpp = 3 };

			igt_assert_eq(__dumb_create(&c), -EINVAL);
			igt_assert_eq(__dumb_create(&round), -EINVAL);
		}
	}

	igt_fixture {
		/* Every buffer is gone again. */
		if (objects >= 0)
			igt_assert_eq(gembuf_state("objects"), objects);
		drm_close_driver(fd);
	}
}
