// SPDX-License-Identifier: MIT
/*
 * Master and authentication rules of a primary node: the first opener is
 * master, others must be authenticated through GET_MAGIC/AUTH_MAGIC
 * before DRM_AUTH ioctls (GEM_FLINK here) are allowed.  A client that
 * holds CAP_SYS_ADMIN when it opens the node is authenticated at once, so
 * the unauthenticated clients here open with that capability lowered.
 */
#include "igt.h"
#include "caps.h"

IGT_TEST_DESCRIPTION("Check DRM master and magic authentication rules.");

/* GEM_FLINK of a handle that does not exist: EACCES before auth, ENOENT after. */
static int flink_errno(int fd)
{
	struct drm_gem_flink flink = { .handle = 0x7ffffff0 };

	if (igt_ioctl(fd, DRM_IOCTL_GEM_FLINK, &flink) == 0)
		return 0;
	return errno;
}

static int open_any(void)
{
	return __drm_open_driver(DRIVER_ANY);
}

igt_main
{
	static int master = -1;

	igt_fixture {
		master = drm_open_driver(DRIVER_ANY);
		igt_require_f(drmSetMaster(master) == 0, "someone else is master\n");
		/* capset needs the capability permitted: run as root */
		igt_require(geteuid() == 0);
	}

	igt_describe("The magic of a client is stable across queries.");
	igt_subtest("getmagic-same") {
		drm_magic_t m1 = 0, m2 = 0;
		int fd = drm_open_driver(DRIVER_ANY);

		igt_assert_eq(drmGetMagic(fd, &m1), 0);
		igt_assert_eq(drmGetMagic(fd, &m2), 0);
		igt_assert_eq_u32(m1, m2);
		drm_close_driver(fd);
	}

	igt_describe("An unauthenticated client is refused DRM_AUTH ioctls until the master authenticates its magic.");
	igt_subtest("basic-auth") {
		int fd = open_unauthenticated(open_any);
		drm_magic_t magic;

		igt_assert_eq(flink_errno(fd), EACCES);
		igt_assert_eq(drmGetMagic(fd, &magic), 0);
		igt_assert_eq(drmAuthMagic(master, magic), 0);
		igt_assert_eq(flink_errno(fd), ENOENT);
		/* the master itself was always authenticated */
		igt_assert_eq(flink_errno(master), ENOENT);
		drm_close_driver(fd);
	}

	igt_describe("Authenticating a magic no client holds fails with EINVAL.");
	igt_subtest("auth-bad-magic") {
		struct drm_auth auth = { .magic = 0x7fffffff };

		do_ioctl_err(master, DRM_IOCTL_AUTH_MAGIC, &auth, EINVAL);
	}

	igt_describe("Only the master may authenticate others.");
	igt_subtest("auth-by-non-master") {
		int a = drm_open_driver(DRIVER_ANY);
		int b = open_unauthenticated(open_any);
		struct drm_auth auth = {};

		igt_assert_eq(drmGetMagic(b, &auth.magic), 0);
		do_ioctl_err(a, DRM_IOCTL_AUTH_MAGIC, &auth, EACCES);
		igt_assert_eq(flink_errno(b), EACCES);
		drm_close_driver(b);
		drm_close_driver(a);
	}

	igt_describe("Master moves only after it is dropped; a second SET_MASTER gets EBUSY.");
	igt_subtest("master-drop-set") {
		int fd = drm_open_driver(DRIVER_ANY);

		do_ioctl_err(fd, DRM_IOCTL_SET_MASTER, NULL, EBUSY);
		igt_assert_eq(drmDropMaster(master), 0);
		igt_assert_eq(drmSetMaster(fd), 0);
		do_ioctl_err(master, DRM_IOCTL_SET_MASTER, NULL, EBUSY);
		igt_assert_eq(drmDropMaster(fd), 0);
		igt_assert_eq(drmSetMaster(master), 0);
		drm_close_driver(fd);
	}

	igt_fixture
		drm_close_driver(master);
}
