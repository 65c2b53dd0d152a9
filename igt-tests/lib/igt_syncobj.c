// SPDX-License-Identifier: MIT
/* DRM sync object helpers; see igt_syncobj.h. */
#include <errno.h>
#include <stdint.h>

#include "igt.h"
#include "igt_syncobj.h"

/* The ioctl's -errno, or 0; errno is left clear, as in igt. */
static int syncobj_ioctl(int fd, unsigned long request, void *arg)
{
	int err = 0;

	if (igt_ioctl(fd, request, arg)) {
		err = -errno;
		errno = 0;
	}
	return err;
}

/**
 * syncobj_create() - a new syncobj, asserting success
 * @fd: the DRM file
 * @flags: DRM_SYNCOBJ_CREATE_* flags
 */
uint32_t syncobj_create(int fd, uint32_t flags)
{
	struct drm_syncobj_create create = { .flags = flags };

	igt_assert_eq(syncobj_ioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &create), 0);
	igt_assert(create.handle);
	return create.handle;
}

/**
 * syncobj_destroy() - drop a syncobj handle, asserting success
 * @fd: the DRM file
 * @handle: the syncobj
 */
void syncobj_destroy(int fd, uint32_t handle)
{
	struct drm_syncobj_destroy destroy = { .handle = handle };

	igt_assert_eq(syncobj_ioctl(fd, DRM_IOCTL_SYNCOBJ_DESTROY, &destroy), 0);
}

int __syncobj_handle_to_fd(int fd, struct drm_syncobj_handle *args)
{
	return syncobj_ioctl(fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, args);
}

int __syncobj_fd_to_handle(int fd, struct drm_syncobj_handle *args)
{
	return syncobj_ioctl(fd, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, args);
}

/**
 * syncobj_handle_to_fd() - export a syncobj
 * @fd: the DRM file
 * @handle: the syncobj
 * @flags: 0 for a syncobj fd, DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE
 *	for a sync_file of its fence
 */
int syncobj_handle_to_fd(int fd, uint32_t handle, uint32_t flags)
{
	struct drm_syncobj_handle args = { .handle = handle, .flags = flags };

	igt_assert_eq(__syncobj_handle_to_fd(fd, &args), 0);
	igt_assert(args.fd >= 0);
	return args.fd;
}

/**
 * syncobj_fd_to_handle() - import a syncobj fd as a new handle
 * @fd: the DRM file
 * @syncobj_fd: from syncobj_handle_to_fd()
 * @flags: flags of the ioctl
 */
uint32_t syncobj_fd_to_handle(int fd, int syncobj_fd, uint32_t flags)
{
	struct drm_syncobj_handle args = { .fd = syncobj_fd, .flags = flags };

	igt_assert_eq(__syncobj_fd_to_handle(fd, &args), 0);
	igt_assert(args.handle > 0);
	return args.handle;
}

/**
 * syncobj_import_sync_file() - replace a syncobj's fence by a sync_file's
 * @fd: the DRM file
 * @handle: the syncobj
 * @sync_file: the sync_file fd
 */
void syncobj_import_sync_file(int fd, uint32_t handle, int sync_file)
{
	struct drm_syncobj_handle args = {
		.handle = handle, .fd = sync_file,
		.flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE,
	};

	igt_assert_eq(__syncobj_fd_to_handle(fd, &args), 0);
}

int __syncobj_wait(int fd, struct drm_syncobj_wait *args)
{
	return syncobj_ioctl(fd, DRM_IOCTL_SYNCOBJ_WAIT, args);
}

/** syncobj_wait_err() - the -errno of a binary wait, or 0 */
int syncobj_wait_err(int fd, uint32_t *handles, uint32_t count,
		     uint64_t abs_timeout_nsec, uint32_t flags)
{
	struct drm_syncobj_wait wait = {
		.handles = (uintptr_t)handles, .timeout_nsec = abs_timeout_nsec,
		.count_handles = count, .flags = flags,
	};

	return __syncobj_wait(fd, &wait);
}

/**
 * syncobj_wait() - wait for any or all (@flags) of @handles
 * @fd: the DRM file
 * @handles: the syncobjs
 * @count: how many
 * @abs_timeout_nsec: absolute CLOCK_MONOTONIC deadline, 0 polls
 * @flags: DRM_SYNCOBJ_WAIT_FLAGS_*
 * @first_signaled: if not NULL, the index the kernel reports first
 *
 * Returns true when signalled, false on -ETIME; asserts anything else.
 */
bool syncobj_wait(int fd, uint32_t *handles, uint32_t count,
		  uint64_t abs_timeout_nsec, uint32_t flags,
		  uint32_t *first_signaled)
{
	struct drm_syncobj_wait wait = {
		.handles = (uintptr_t)handles, .timeout_nsec = abs_timeout_nsec,
		.count_handles = count, .flags = flags,
	};
	int ret = __syncobj_wait(fd, &wait);

	if (ret == -ETIME)
		return false;
	igt_assert_eq(ret, 0);
	if (first_signaled)
		*first_signaled = wait.first_signaled;
	return true;
}

static int syncobj_array(int fd, unsigned long request, uint32_t *handles,
			 uint32_t count)
{
	struct drm_syncobj_array array = {
		.handles = (uintptr_t)handles, .count_handles = count,
	};

	return syncobj_ioctl(fd, request, &array);
}

/** syncobj_reset() - drop the fences of @count syncobjs */
void syncobj_reset(int fd, uint32_t *handles, uint32_t count)
{
	igt_assert_eq(syncobj_array(fd, DRM_IOCTL_SYNCOBJ_RESET, handles, count), 0);
}

/** syncobj_signal() - give @count syncobjs a signalled fence */
void syncobj_signal(int fd, uint32_t *handles, uint32_t count)
{
	igt_assert_eq(syncobj_array(fd, DRM_IOCTL_SYNCOBJ_SIGNAL, handles, count), 0);
}

static int syncobj_timeline_array(int fd, unsigned long request,
				  uint32_t *handles, uint64_t *points,
				  uint32_t count)
{
	struct drm_syncobj_timeline_array array = {
		.handles = (uintptr_t)handles, .points = (uintptr_t)points,
		.count_handles = count,
	};

	return syncobj_ioctl(fd, request, &array);
}

/** syncobj_timeline_signal() - add a signalled point to each syncobj */
void syncobj_timeline_signal(int fd, uint32_t *handles, uint64_t *points,
			     uint32_t count)
{
	igt_assert_eq(syncobj_timeline_array(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL,
					     handles, points, count), 0);
}

int __syncobj_timeline_wait_ioctl(int fd, struct drm_syncobj_timeline_wait *args)
{
	return syncobj_ioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, args);
}

static int __syncobj_timeline_wait(int fd, uint32_t *handles, uint64_t *points,
				   unsigned int num_handles, int64_t timeout_nsec,
				   unsigned int flags, uint32_t *first_signaled)
{
	struct drm_syncobj_timeline_wait args = {
		.handles = (uintptr_t)handles, .points = (uintptr_t)points,
		.timeout_nsec = timeout_nsec, .count_handles = num_handles,
		.flags = flags,
	};
	int ret = __syncobj_timeline_wait_ioctl(fd, &args);

	if (first_signaled)
		*first_signaled = args.first_signaled;
	return ret;
}

/** syncobj_timeline_wait_err() - the -errno of a timeline wait, or 0 */
int syncobj_timeline_wait_err(int fd, uint32_t *handles, uint64_t *points,
			      unsigned int num_handles, int64_t timeout_nsec,
			      unsigned int flags)
{
	return __syncobj_timeline_wait(fd, handles, points, num_handles,
				       timeout_nsec, flags, NULL);
}

/**
 * syncobj_timeline_wait() - wait for any or all points of @handles
 *
 * As syncobj_wait(), for a point of each syncobj (0 for a binary one).
 */
bool syncobj_timeline_wait(int fd, uint32_t *handles, uint64_t *points,
			   unsigned int num_handles, int64_t timeout_nsec,
			   unsigned int flags, uint32_t *first_signaled)
{
	int ret = __syncobj_timeline_wait(fd, handles, points, num_handles,
					  timeout_nsec, flags, first_signaled);

	if (ret == -ETIME)
		return false;
	igt_assert_eq(ret, 0);
	return true;
}

/** syncobj_timeline_query() - the last signalled point of each syncobj */
void syncobj_timeline_query(int fd, uint32_t *handles, uint64_t *points,
			    uint32_t count)
{
	igt_assert_eq(syncobj_timeline_array(fd, DRM_IOCTL_SYNCOBJ_QUERY,
					     handles, points, count), 0);
}

static int __syncobj_transfer(int fd, uint32_t handle_dst, uint64_t point_dst,
			      uint32_t handle_src, uint64_t point_src,
			      uint32_t flags)
{
	struct drm_syncobj_transfer args = {
		.src_handle = handle_src, .dst_handle = handle_dst,
		.src_point = point_src, .dst_point = point_dst, .flags = flags,
	};

	return syncobj_ioctl(fd, DRM_IOCTL_SYNCOBJ_TRANSFER, &args);
}

/** syncobj_binary_to_timeline() - a binary syncobj's fence as @point */
void syncobj_binary_to_timeline(int fd, uint32_t timeline_handle,
				uint64_t point, uint32_t binary_handle)
{
	igt_assert_eq(__syncobj_transfer(fd, timeline_handle, point,
					 binary_handle, 0, 0), 0);
}

/** syncobj_timeline_to_binary() - @point's fence into a binary syncobj */
void syncobj_timeline_to_binary(int fd, uint32_t binary_handle,
				uint32_t timeline_handle, uint64_t point,
				uint32_t flags)
{
	igt_assert_eq(__syncobj_transfer(fd, binary_handle, 0,
					 timeline_handle, point, flags), 0);
}

/** syncobj_timeline_to_timeline() - a point's fence as another point */
void syncobj_timeline_to_timeline(int fd, uint32_t timeline_dst,
				  uint64_t point_dst, uint32_t timeline_src,
				  uint64_t point_src)
{
	igt_assert_eq(__syncobj_transfer(fd, timeline_dst, point_dst,
					 timeline_src, point_src, 0), 0);
}
