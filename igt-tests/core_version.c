// SPDX-License-Identifier: MIT
/*
 * DRM_IOCTL_VERSION: the query every client makes first.  The two-pass
 * protocol (lengths, then strings) and a bad user pointer.
 */
#include "igt.h"

IGT_TEST_DESCRIPTION("Check the DRM_IOCTL_VERSION contract.");

igt_main
{
	static int fd = -1;

	igt_fixture
		fd = drm_open_driver(DRIVER_ANY);

	igt_describe("The version query names the driver and gives its date and description.");
	igt_subtest("basic") {
		drmVersionPtr v = drmGetVersion(fd);

		igt_assert(v);
		igt_assert_lt(0, v->name_len);
		igt_assert_eq(strlen(v->name), (size_t)v->name_len);
		igt_assert_lt(0, v->desc_len);
		igt_assert_lte(0, v->version_major);
		igt_assert_lte(0, v->version_minor);
		igt_info("driver %s %d.%d.%d (%s)\n", v->name, v->version_major,
			 v->version_minor, v->version_patchlevel, v->desc);
		drmFreeVersion(v);
	}

	igt_describe("A query with zero lengths returns the lengths and writes nothing.");
	igt_subtest("lengths-only") {
		struct drm_version v = {};
		char name[64];

		do_ioctl(fd, DRM_IOCTL_VERSION, &v);
		igt_assert_lt(0, (int)v.name_len);
		igt_assert_lt(0, (int)v.desc_len);

		/* a short buffer gets a truncated string and the full length */
		memset(name, 'x', sizeof(name));
		v.name_len = 1;
		v.name = name;
		v.date_len = 0;
		v.desc_len = 0;
		do_ioctl(fd, DRM_IOCTL_VERSION, &v);
		igt_assert_lt(1, (int)v.name_len);
		igt_assert_eq(name[1], 'x');
	}

	igt_describe("A bad string pointer is refused with EFAULT, not an oops.");
	igt_subtest("bad-pointer") {
		struct drm_version v = {};

		v.name_len = 16;
		v.name = (char *)8;
		do_ioctl_err(fd, DRM_IOCTL_VERSION, &v, EFAULT);
	}

	igt_fixture
		drm_close_driver(fd);
}
