/* SPDX-License-Identifier: MIT */
/*
 * What syncobj_wait and syncobj_timeline share: deadlines, sw_sync fences
 * for syncobjs, waits on a helper thread or under a storm of signals, and
 * the subtests whose logic is the same for binary syncobjs and for point
 * 1 of timeline ones.
 *
 * Where a helper takes @points, NULL means binary syncobjs waited for
 * with DRM_IOCTL_SYNCOBJ_WAIT; otherwise the waits are
 * DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT for those points.  A subtest's @point
 * is the point of each syncobj it waits for: 0 for binary syncobjs and
 * DRM_IOCTL_SYNCOBJ_WAIT (syncobj_wait), 1 for timeline syncobjs and
 * DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT (syncobj_timeline).  @flags are
 * DRM_SYNCOBJ_WAIT_FLAGS_*, @test_flags the WAIT_* below.
 */
#ifndef SYNCOBJ_HELPERS_H
#define SYNCOBJ_HELPERS_H

#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>
#include <sys/types.h>
#include <drm.h>

#define NSECS_PER_MSEC	1000000ull
#define NSECS_PER_SEC	1000000000ull
/* A wait that must time out (upstream: 100 ms). */
#define SHORT_TIME_NSEC	(20 * NSECS_PER_MSEC)
/* The deadline of a wait that must succeed: only a failure waits it out. */
#define LONG_TIME_NSEC	(10 * NSECS_PER_SEC)
/* Between the steps of the threaded tests (upstream: 20 ms). */
#define STEP_NSEC	(10 * NSECS_PER_MSEC)

/*
 * The test flags of the wait subtests, upstream's: how to wait, and the
 * state of the syncobjs.  Binary waits have no WAIT_AVAILABLE.
 */
#define WAIT_FOR_SUBMIT		(1 << 0)
#define WAIT_ALL		(1 << 1)
#define WAIT_AVAILABLE		(1 << 2)
#define WAIT_UNSUBMITTED	(1 << 3)
#define WAIT_SUBMITTED		(1 << 4)
#define WAIT_SIGNALED		(1 << 5)
#define WAIT_FLAGS_MAX		((1 << 6) - 1)

uint32_t flags_for_test_flags(uint32_t test_flags);
void syncobj_wait_subtests(int fd, uint64_t point, bool multi,
			   int (*expect)(uint32_t test_flags),
			   void (*test)(int fd, uint32_t test_flags, int expect),
			   const char *desc);

uint64_t gettime_ns(void);
void sleep_nsec(uint64_t ns);
uint64_t short_timeout(void);
uint64_t long_timeout(void);

int syncobj_attach_sw_sync(int fd, uint32_t handle, uint64_t point);
void syncobj_trigger(int fd, uint32_t handle, uint64_t point);
void syncobj_add_sw_sync_point(int fd, uint32_t handle, uint64_t point,
			       int timeline, unsigned int seqno);

/* The arguments of DRM_IOCTL_SYNCOBJ_WAIT or DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT. */
union syncobj_wait_args {
	struct drm_syncobj_wait binary;
	struct drm_syncobj_timeline_wait timeline;
};

/*
 * A wait on a helper thread.  It only makes the ioctl (no assertion off
 * the test thread) and lives on the heap: a failing subtest leaves it
 * behind rather than have it write into a stack frame that is gone.
 */
struct syncobj_waiter {
	int fd;
	uint32_t handles[8];
	uint64_t points[8];
	unsigned long request;
	union syncobj_wait_args args;
	pthread_t thread;
	pid_t tid;
	int ret;
	bool done;
};

void block_signals(void);
struct syncobj_waiter *syncobj_waiter_start(int fd, const uint32_t *handles,
					    const uint64_t *points,
					    uint32_t count,
					    uint64_t abs_timeout,
					    uint32_t flags);
bool syncobj_waiter_done(struct syncobj_waiter *w);
int syncobj_waiter_join(struct syncobj_waiter *w, uint32_t *first_signaled);

void syncobj_check_waits(int fd, uint32_t *syncobjs, uint64_t *points,
			 uint32_t count, uint32_t flags, int expect);

/* A subtest of one of the syncobj_test_*() below, with its test flags. */
struct syncobj_subtest {
	const char *name;
	void (*test)(int fd, uint64_t point, uint32_t test_flags);
	uint32_t test_flags;
	const char *desc;
};

void syncobj_subtests(int fd, uint64_t point,
		      const struct syncobj_subtest *subtests, unsigned int count);

void syncobj_test_wait_delayed_signal(int fd, uint64_t point,
				      uint32_t test_flags);
void syncobj_test_reset_during_wait_for_submit(int fd, uint64_t point);
void syncobj_test_wait_snapshot(int fd, uint64_t point, uint32_t test_flags);
void syncobj_test_wait_complex(int fd, uint64_t point, uint32_t test_flags);
void syncobj_test_wait_interrupted(int fd, uint64_t point, uint32_t test_flags);

#endif /* SYNCOBJ_HELPERS_H */
