// SPDX-License-Identifier: MIT
/*
 * syncobj_basic: upstream igt's syncobj_basic contract, with its subtest
 * names, on the DMA engine's render node: creating and destroying DRM
 * sync objects, and turning them into fds and back, refuse bad handles,
 * flags, padding and fds with -EINVAL.  The ioctls are DRM core's; the
 * device only has to advertise DRIVER_SYNCOBJ.
 *
 * gembuf-job-sync-file is ours: a syncobj holding an engine job's fence,
 * exported as a sync_file and imported on another file, and the
 * sync_file import/export errors upstream's basic test leaves out.
 */
#include <errno.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>
#include <linux/sync_file.h>

#include "igt.h"
#include "gembuf.h"
#include "igt_syncobj.h"

IGT_TEST_DESCRIPTION("Basic check for drm sync objects.");

static bool has_syncobj(int fd)
{
	uint64_t value;

	if (drmGetCap(fd, DRM_CAP_SYNCOBJ, &value))
		return false;
	return value;
}

static void test_bad_destroy(int fd)
{
	struct drm_syncobj_destroy destroy = { .handle = 0xdeadbeef };

	do_ioctl_err(fd, DRM_IOCTL_SYNCOBJ_DESTROY, &destroy, EINVAL);
}

static void test_bad_create_flags(int fd)
{
	struct drm_syncobj_create create = { .flags = 0xdeadbeef };

	do_ioctl_err(fd, DRM_IOCTL_SYNCOBJ_CREATE, &create, EINVAL);
}

static void test_bad_handle_to_fd(int fd)
{
	struct drm_syncobj_handle handle = { .handle = 0xdeadbeef };

	igt_assert_eq(__syncobj_handle_to_fd(fd, &handle), -EINVAL);
}

static void test_bad_fd_to_handle(int fd)
{
	struct drm_syncobj_handle handle = { .fd = -1 };

	igt_assert_eq(__syncobj_fd_to_handle(fd, &handle), -EINVAL);
}

/* An fd, but not a syncobj's: the DRM file itself. */
static void test_illegal_fd_to_handle(int fd)
{
	struct drm_syncobj_handle handle = { .fd = fd };

	igt_assert_eq(__syncobj_fd_to_handle(fd, &handle), -EINVAL);
}

static void test_bad_flags_fd_to_handle(int fd)
{
	struct drm_syncobj_handle handle = { .flags = 0xdeadbeef };

	igt_assert_eq(__syncobj_fd_to_handle(fd, &handle), -EINVAL);
}

static void test_bad_flags_handle_to_fd(int fd)
{
	struct drm_syncobj_handle handle = { .flags = 0xdeadbeef };

	igt_assert_eq(__syncobj_handle_to_fd(fd, &handle), -EINVAL);
}

static void test_bad_pad_handle_to_fd(int fd)
{
	struct drm_syncobj_handle handle = { .pad = 0xdeadbeef };

	igt_assert_eq(__syncobj_handle_to_fd(fd, &handle), -EINVAL);
}

static void test_bad_pad_fd_to_handle(int fd)
{
	struct drm_syncobj_handle handle = { .pad = 0xdeadbeef };

	igt_assert_eq(__syncobj_fd_to_handle(fd, &handle), -EINVAL);
}

/* A live handle with junk in the padding is refused and left alive. */
static void test_bad_destroy_pad(int fd)
{
	struct drm_syncobj_destroy destroy = {
		.handle = syncobj_create(fd, 0), .pad = 0xdeadbeef,
	};

	do_ioctl_err(fd, DRM_IOCTL_SYNCOBJ_DESTROY, &destroy, EINVAL);
	syncobj_destroy(fd, destroy.handle);
}

static void test_create_signaled(int fd)
{
	uint32_t signaled = syncobj_create(fd, DRM_SYNCOBJ_CREATE_SIGNALED);
	uint32_t unsignaled = syncobj_create(fd, 0);

	igt_assert_eq(syncobj_wait_err(fd, &signaled, 1, 0, 0), 0);
	/* ...where one without the flag has no fence to wait for. */
	igt_assert_eq(syncobj_wait_err(fd, &unsignaled, 1, 0, 0), -EINVAL);
	syncobj_destroy(fd, signaled);
	syncobj_destroy(fd, unsignaled);
}

/*
 * No handle deduplication: importing an exported syncobj on the same
 * file gives a second handle to the same object.
 */
static void test_valid_cycle(int fd)
{
	uint32_t first, second;
	int syncobj_fd;

	first = syncobj_create(fd, 0);
	syncobj_fd = syncobj_handle_to_fd(fd, first, 0);
	second = syncobj_fd_to_handle(fd, syncobj_fd, 0);
	close(syncobj_fd);
	igt_assert_neq_u32(first, second);

	/* The same object: signalling one handle signals the other. */
	igt_assert_eq(syncobj_wait_err(fd, &second, 1, 0, 0), -EINVAL);
	syncobj_signal(fd, &first, 1);
	igt_assert_eq(syncobj_wait_err(fd, &second, 1, 0, 0), 0);

	syncobj_destroy(fd, first);
	syncobj_destroy(fd, second);
}

static int64_t deadline_ns(int64_t ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec + ns;
}

/* Status of the single fence of sync_file @sf: 1 signalled, 0 not. */
static int sync_file_status(int sf)
{
	struct sync_fence_info fi = {};
	struct sync_file_info info = {
		.num_fences = 1, .sync_fence_info = (uintptr_t)&fi,
	};

	do_ioctl(sf, SYNC_IOC_FILE_INFO, &info);
	igt_assert_eq(info.num_fences, 1);
	return fi.status;
}

static void test_gembuf_job_sync_file(int fd)
{
	uint32_t out = syncobj_create(fd, 0);
	struct drm_gembuf_dma_fill fill = {
		.size = 4096, .value = 0x5a5a5a5a,
		.out_sync = { .handle = out },
	};
	struct drm_syncobj_handle args = {};
	int other = gembuf_open_engine();
	uint32_t imported, h;
	struct pollfd pfd;
	int sf;

	/* A syncobj without a fence has no sync_file to give. */
	args = (struct drm_syncobj_handle){
		.handle = out,
		.flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
	};
	igt_assert_eq(__syncobj_handle_to_fd(fd, &args), -EINVAL);

	h = gembuf_create(fd, 4096, 0, GEMBUF_CACHE_WB);
	fill.handle = h;
	do_ioctl(fd, DRM_IOCTL_GEMBUF_DMA_FILL, &fill);
	sf = syncobj_handle_to_fd(fd, out,
				  DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE);

	/* Only a sync_file imports, and only into a live handle. */
	imported = syncobj_create(other, 0);
	args = (struct drm_syncobj_handle){
		.handle = imported, .fd = other,
		.flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE,
	};
	igt_assert_eq(__syncobj_fd_to_handle(other, &args), -EINVAL);
	args.fd = sf;
	args.handle = 0xdeadbeef;
	igt_assert_eq(__syncobj_fd_to_handle(other, &args), -ENOENT);

	/* The job's fence, on another file: its wait sees the fill done. */
	syncobj_import_sync_file(other, imported, sf);
	igt_assert(syncobj_wait(other, &imported, 1, deadline_ns(10000000000ll),
				0, NULL));
	pfd = (struct pollfd){ .fd = sf, .events = POLLIN };
	igt_assert_eq(poll(&pfd, 1, 0), 1);
	igt_assert_eq(sync_file_status(sf), 1);
	gembuf_check_words(fd, h, 4096, 0x5a5a5a5a);

	close(sf);
	syncobj_destroy(other, imported);
	drm_close_driver(other);
	gem_close(fd, h);
	syncobj_destroy(fd, out);
}

igt_main
{
	int fd = -1;

	igt_fixture {
		fd = gembuf_open_engine();
		igt_require(has_syncobj(fd));
	}

	igt_describe("Destroying a handle that does not exist is -EINVAL.");
	igt_subtest("bad-destroy")
		test_bad_destroy(fd);

	igt_describe("Unknown creation flags are -EINVAL.");
	igt_subtest("bad-create-flags")
		test_bad_create_flags(fd);

	igt_describe("Exporting a handle that does not exist is -EINVAL.");
	igt_subtest("bad-handle-to-fd")
		test_bad_handle_to_fd(fd);

	igt_describe("Importing fd -1 is -EINVAL.");
	igt_subtest("bad-fd-to-handle")
		test_bad_fd_to_handle(fd);

	igt_describe("Unknown export flags are -EINVAL.");
	igt_subtest("bad-flags-handle-to-fd")
		test_bad_flags_handle_to_fd(fd);

	igt_describe("Unknown import flags are -EINVAL.");
	igt_subtest("bad-flags-fd-to-handle")
		test_bad_flags_fd_to_handle(fd);

	igt_describe("Export with non-zero padding is -EINVAL.");
	igt_subtest("bad-pad-handle-to-fd")
		test_bad_pad_handle_to_fd(fd);

	igt_describe("Import with non-zero padding is -EINVAL.");
	igt_subtest("bad-pad-fd-to-handle")
		test_bad_pad_fd_to_handle(fd);

	igt_describe("Importing an fd that is not a syncobj's is -EINVAL.");
	igt_subtest("illegal-fd-to-handle")
		test_illegal_fd_to_handle(fd);

	igt_describe("Destroy with non-zero padding is -EINVAL and keeps the syncobj.");
	igt_subtest("bad-destroy-pad")
		test_bad_destroy_pad(fd);

	igt_describe("A syncobj created signalled waits at once; one created without a fence is -EINVAL to wait for.");
	igt_subtest("create-signaled")
		test_create_signaled(fd);

	igt_describe("Export and import on the same file give a second handle to the same syncobj.");
	igt_subtest("test-valid-cycle")
		test_valid_cycle(fd);

	igt_describe("gembuf: an engine job's out-syncobj exported as a sync_file and imported on another file; sync_file import and export errors.");
	igt_subtest("gembuf-job-sync-file")
		test_gembuf_job_sync_file(fd);

	igt_fixture
		drm_close_driver(fd);
}
