/* SPDX-License-Identifier: MIT */
/*
 * The subset of igt's syncobj helpers (lib/igt_syncobj.h) the syncobj
 * tests use, with upstream's names and semantics: __name() returns
 * -errno, name() asserts success; syncobj_wait() and
 * syncobj_timeline_wait() return false on -ETIME and assert anything
 * else but success.  Timeouts are absolute CLOCK_MONOTONIC nanoseconds,
 * 0 polls.
 *
 * Unlike upstream, syncobj_timeline_to_timeline() takes 32-bit handles
 * and 64-bit points (upstream swapped the two types).
 */
#ifndef IGT_SYNCOBJ_H
#define IGT_SYNCOBJ_H

#include <stdbool.h>
#include <stdint.h>
#include <drm.h>

uint32_t syncobj_create(int fd, uint32_t flags);
void syncobj_destroy(int fd, uint32_t handle);
int __syncobj_handle_to_fd(int fd, struct drm_syncobj_handle *args);
int __syncobj_fd_to_handle(int fd, struct drm_syncobj_handle *args);
int syncobj_handle_to_fd(int fd, uint32_t handle, uint32_t flags);
uint32_t syncobj_fd_to_handle(int fd, int syncobj_fd, uint32_t flags);
void syncobj_import_sync_file(int fd, uint32_t handle, int sync_file);

int __syncobj_wait(int fd, struct drm_syncobj_wait *args);
int syncobj_wait_err(int fd, uint32_t *handles, uint32_t count,
		     uint64_t abs_timeout_nsec, uint32_t flags);
bool syncobj_wait(int fd, uint32_t *handles, uint32_t count,
		  uint64_t abs_timeout_nsec, uint32_t flags,
		  uint32_t *first_signaled);
void syncobj_reset(int fd, uint32_t *handles, uint32_t count);
void syncobj_signal(int fd, uint32_t *handles, uint32_t count);

void syncobj_timeline_signal(int fd, uint32_t *handles, uint64_t *points,
			     uint32_t count);
int __syncobj_timeline_wait_ioctl(int fd, struct drm_syncobj_timeline_wait *args);
int syncobj_timeline_wait_err(int fd, uint32_t *handles, uint64_t *points,
			      unsigned int num_handles, int64_t timeout_nsec,
			      unsigned int flags);
bool syncobj_timeline_wait(int fd, uint32_t *handles, uint64_t *points,
			   unsigned int num_handles, int64_t timeout_nsec,
			   unsigned int flags, uint32_t *first_signaled);
void syncobj_timeline_query(int fd, uint32_t *handles, uint64_t *points,
			    uint32_t count);
void syncobj_binary_to_timeline(int fd, uint32_t timeline_handle,
				uint64_t point, uint32_t binary_handle);
void syncobj_timeline_to_binary(int fd, uint32_t binary_handle,
				uint32_t timeline_handle, uint64_t point,
				uint32_t flags);
void syncobj_timeline_to_timeline(int fd, uint32_t timeline_dst,
				  uint64_t point_dst, uint32_t timeline_src,
				  uint64_t point_src);

#endif /* IGT_SYNCOBJ_H */
