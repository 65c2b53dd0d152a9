// SPDX-License-Identifier: MIT
/*
 * syncobj_wait: upstream igt's syncobj_wait contract, with its subtest
 * names, on the DMA engine's render node: DRM_IOCTL_SYNCOBJ_WAIT for any
 * or all of a set of binary syncobjs, with and without WAIT_FOR_SUBMIT,
 * on syncobjs without a fence (-EINVAL, or -ETIME when waiting for
 * submission), with a pending fence (-ETIME) and a signalled one (0);
 * SYNCOBJ_RESET and SYNCOBJ_SIGNAL and their bad arguments; waits that
 * take a snapshot of the fences, or see them change from another
 * thread, or get interrupted by signals.  Fences come from sw_sync
 * timelines, as upstream's do.
 *
 * Differences from upstream, all for run time in an instruction-counted
 * guest: waits that must time out take 20 ms instead of 100 ms; waits
 * that must succeed get a deadline of seconds, paid only on failure,
 * instead of racing a 100-200 ms one; threaded steps are 5-10 ms apart
 * instead of 10-20 ms.  The thread that waits is a helper thread, and
 * the test thread signals (upstream signals from timer threads): an
 * igt assertion may only fail on the test thread.  The waits are also
 * checked to still block before they are signalled.
 *
 * gembuf-job-wait is ours: the fence is a DMA engine job's, held back
 * by an in-syncobj.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <linux/sync_file.h>

#include "igt.h"
#include "gembuf.h"
#include "igt_syncobj.h"
#include "sw_sync.h"

IGT_TEST_DESCRIPTION("Tests for the drm sync object wait API");

#define NSECS_PER_MSEC	1000000ull
#define NSECS_PER_SEC	1000000000ull
/* A wait that must time out (upstream: 100 ms). */
#define SHORT_TIME_NSEC	(20 * NSECS_PER_MSEC)
/* The deadline of a wait that must succeed: only a failure waits it out. */
#define LONG_TIME_NSEC	(10 * NSECS_PER_SEC)
/* Between the steps of the threaded tests (upstream: 20 ms). */
#define STEP_NSEC	(10 * NSECS_PER_MSEC)

static uint64_t gettime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSECS_PER_SEC + ts.tv_nsec;
}

static void sleep_nsec(uint64_t ns)
{
	struct timespec t = { .tv_sec = ns / NSECS_PER_SEC, .tv_nsec = ns % NSECS_PER_SEC };

	igt_assert_eq(nanosleep(&t, NULL), 0);
}

static uint64_t short_timeout(void)
{
	return gettime_ns() + SHORT_TIME_NSEC;
}

static uint64_t long_timeout(void)
{
	return gettime_ns() + LONG_TIME_NSEC;
}

/* Give @handle an unsignalled fence of a new sw_sync timeline, returned. */
static int syncobj_attach_sw_sync(int fd, uint32_t handle)
{
	int timeline = sw_sync_timeline_create();
	int fence = sw_sync_timeline_create_fence(timeline, 1);

	syncobj_import_sync_file(fd, handle, fence);
	close(fence);
	return timeline;
}

/* Give @handle a fence, signalled. */
static void syncobj_trigger(int fd, uint32_t handle)
{
	int timeline = syncobj_attach_sw_sync(fd, handle);

	sw_sync_timeline_inc(timeline, 1);
	close(timeline);
}

/*
 * A wait on a helper thread.  It only makes the ioctl (no assertion off
 * the test thread) and lives on the heap: a failing subtest leaves it
 * behind rather than have it write into a stack frame that is gone.
 */
struct waiter {
	int fd;
	uint32_t handles[8];
	struct drm_syncobj_wait wait;
	pthread_t thread;
	pid_t tid;
	int ret;
	bool done;
};

/* Helper threads leave signals to the test thread (wait-*-interrupted). */
static void block_signals(void)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
}

static void *waiter_func(void *data)
{
	struct waiter *w = data;

	block_signals();
	__atomic_store_n(&w->tid, gettid(), __ATOMIC_RELEASE);
	w->ret = __syncobj_wait(w->fd, &w->wait);
	__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* Whether thread @tid of this process sleeps, as a blocking ioctl does. */
static bool task_sleeping(pid_t tid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = open(path, O_RDONLY);
	if (f < 0)
		return false;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'S';
}

static bool waiter_done(struct waiter *w)
{
	return __atomic_load_n(&w->done, __ATOMIC_ACQUIRE);
}

/*
 * Start a wait for @count of @handles, with @flags, until @abs_timeout;
 * returns once the thread sleeps in it (or finished).
 */
static struct waiter *waiter_start(int fd, const uint32_t *handles,
				   uint32_t count, uint64_t abs_timeout,
				   uint32_t flags)
{
	struct waiter *w = calloc(1, sizeof(*w));
	pid_t tid = 0;

	igt_assert(w && count <= ARRAY_SIZE(w->handles));
	w->fd = fd;
	memcpy(w->handles, handles, count * sizeof(*handles));
	w->wait.handles = (uintptr_t)w->handles;
	w->wait.count_handles = count;
	w->wait.timeout_nsec = abs_timeout;
	w->wait.flags = flags;
	igt_assert_eq(pthread_create(&w->thread, NULL, waiter_func, w), 0);

	for (int i = 0; i < 2000 && !waiter_done(w); i++) {
		tid = __atomic_load_n(&w->tid, __ATOMIC_ACQUIRE);
		if (tid && task_sleeping(tid))
			break;
		usleep(1000);
	}
	return w;
}

/* The wait's result; frees @w. */
static int waiter_join(struct waiter *w, uint32_t *first_signaled)
{
	int ret;

	igt_assert_eq(pthread_join(w->thread, NULL), 0);
	ret = w->ret;
	if (first_signaled)
		*first_signaled = w->wait.first_signaled;
	free(w);
	return ret;
}

static void test_wait_bad_flags(int fd)
{
	struct drm_syncobj_wait wait = { .flags = 0xdeadbeef };

	igt_assert_eq(__syncobj_wait(fd, &wait), -EINVAL);
}

static void test_wait_zero_handles(int fd)
{
	struct drm_syncobj_wait wait = {};

	igt_assert_eq(__syncobj_wait(fd, &wait), 0);
}

static void test_wait_illegal_handle(int fd)
{
	uint32_t handle = 0;
	struct drm_syncobj_wait wait = {
		.handles = (uintptr_t)&handle, .count_handles = 1,
	};

	igt_assert_eq(__syncobj_wait(fd, &wait), -ENOENT);
}

static int array_ioctl(int fd, unsigned long request, struct drm_syncobj_array *array)
{
	return igt_ioctl(fd, request, array) ? -errno : 0;
}

static void test_array_zero_handles(int fd, unsigned long request)
{
	struct drm_syncobj_array array = {};

	igt_assert_eq(array_ioctl(fd, request, &array), -EINVAL);
}

static void test_array_illegal_handle(int fd, unsigned long request)
{
	uint32_t handle = 0;
	struct drm_syncobj_array array = {
		.handles = (uintptr_t)&handle, .count_handles = 1,
	};

	igt_assert_eq(array_ioctl(fd, request, &array), -ENOENT);
}

static void test_array_bad_pad(int fd, unsigned long request)
{
	uint32_t handle = 0;
	struct drm_syncobj_array array = {
		.handles = (uintptr_t)&handle, .count_handles = 1,
		.pad = 0xdeadbeef,
	};

	igt_assert_eq(array_ioctl(fd, request, &array), -EINVAL);
}

/* A reset naming one handle that does not exist resets none. */
static void test_reset_one_illegal_handle(int fd)
{
	uint32_t syncobjs[3] = {
		syncobj_create(fd, DRM_SYNCOBJ_CREATE_SIGNALED), 0,
		syncobj_create(fd, DRM_SYNCOBJ_CREATE_SIGNALED),
	};
	struct drm_syncobj_array array = {
		.handles = (uintptr_t)syncobjs, .count_handles = 3,
	};

	igt_assert_eq(syncobj_wait_err(fd, &syncobjs[0], 1, 0, 0), 0);
	igt_assert_eq(syncobj_wait_err(fd, &syncobjs[2], 1, 0, 0), 0);
	igt_assert_eq(array_ioctl(fd, DRM_IOCTL_SYNCOBJ_RESET, &array), -ENOENT);
	igt_assert_eq(syncobj_wait_err(fd, &syncobjs[0], 1, 0, 0), 0);
	igt_assert_eq(syncobj_wait_err(fd, &syncobjs[2], 1, 0, 0), 0);
	syncobj_destroy(fd, syncobjs[0]);
	syncobj_destroy(fd, syncobjs[2]);
}

/* A signal naming one handle that does not exist signals none. */
static void test_signal_one_illegal_handle(int fd)
{
	uint32_t syncobjs[3] = { syncobj_create(fd, 0), 0, syncobj_create(fd, 0) };
	struct drm_syncobj_array array = {
		.handles = (uintptr_t)syncobjs, .count_handles = 3,
	};

	igt_assert_eq(syncobj_wait_err(fd, &syncobjs[0], 1, 0, 0), -EINVAL);
	igt_assert_eq(syncobj_wait_err(fd, &syncobjs[2], 1, 0, 0), -EINVAL);
	igt_assert_eq(array_ioctl(fd, DRM_IOCTL_SYNCOBJ_SIGNAL, &array), -ENOENT);
	igt_assert_eq(syncobj_wait_err(fd, &syncobjs[0], 1, 0, 0), -EINVAL);
	igt_assert_eq(syncobj_wait_err(fd, &syncobjs[2], 1, 0, 0), -EINVAL);
	syncobj_destroy(fd, syncobjs[0]);
	syncobj_destroy(fd, syncobjs[2]);
}

#define WAIT_FOR_SUBMIT		(1 << 0)
#define WAIT_ALL		(1 << 1)
#define WAIT_UNSUBMITTED	(1 << 2)
#define WAIT_SUBMITTED		(1 << 3)
#define WAIT_SIGNALED		(1 << 4)
#define WAIT_FLAGS_MAX		((1 << 5) - 1)

static uint32_t flags_for_test_flags(uint32_t test_flags)
{
	uint32_t flags = 0;

	if (test_flags & WAIT_FOR_SUBMIT)
		flags |= DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
	if (test_flags & WAIT_ALL)
		flags |= DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
	return flags;
}

/* A poll, a short wait and (unless it must time out) an endless one. */
static void check_waits(int fd, uint32_t *syncobjs, uint32_t count,
			uint32_t flags, int expect)
{
	igt_assert_eq(syncobj_wait_err(fd, syncobjs, count, 0, flags), expect);
	igt_assert_eq(syncobj_wait_err(fd, syncobjs, count, short_timeout(), flags),
		      expect);
	if (expect != -ETIME)
		igt_assert_eq(syncobj_wait_err(fd, syncobjs, count, UINT64_MAX, flags),
			      expect);
}

static void test_single_wait(int fd, uint32_t test_flags, int expect)
{
	uint32_t syncobj = syncobj_create(fd, 0);
	int timeline = -1;

	if (test_flags & (WAIT_SUBMITTED | WAIT_SIGNALED))
		timeline = syncobj_attach_sw_sync(fd, syncobj);
	if (test_flags & WAIT_SIGNALED)
		sw_sync_timeline_inc(timeline, 1);

	check_waits(fd, &syncobj, 1, flags_for_test_flags(test_flags), expect);

	syncobj_destroy(fd, syncobj);
	if (timeline != -1)
		close(timeline);
}

/*
 * Three syncobjs in the states of @test_flags, lowest state first, the
 * last one repeated: unsubmitted-signaled is {unsubmitted, signaled,
 * signaled}.
 */
static void test_multi_wait(int fd, uint32_t test_flags, int expect)
{
	uint32_t flags = flags_for_test_flags(test_flags);
	int timelines[3] = { -1, -1, -1 };
	uint32_t syncobjs[3];

	for (int i = 0; i < 3; i++)
		syncobjs[i] = syncobj_create(fd, 0);

	test_flags &= ~(WAIT_ALL | WAIT_FOR_SUBMIT);
	for (int i = 0; i < 3; i++) {
		uint32_t tflag = 1u << (ffs(test_flags) - 1);

		if (test_flags & ~tflag)
			test_flags &= ~tflag;
		if (tflag & (WAIT_SUBMITTED | WAIT_SIGNALED))
			timelines[i] = syncobj_attach_sw_sync(fd, syncobjs[i]);
		if (tflag & WAIT_SIGNALED)
			sw_sync_timeline_inc(timelines[i], 1);
	}

	check_waits(fd, syncobjs, 3, flags, expect);

	for (int i = 0; i < 3; i++) {
		syncobj_destroy(fd, syncobjs[i]);
		if (timelines[i] != -1)
			close(timelines[i]);
	}
}

/*
 * A wait started before its fence signals (or, waiting for submission,
 * before there is one) blocks until then.
 */
static void test_wait_delayed_signal(int fd, uint32_t test_flags)
{
	uint32_t syncobj = syncobj_create(fd, 0);
	int timeline = -1;
	struct waiter *w;

	if (!(test_flags & WAIT_FOR_SUBMIT))
		timeline = syncobj_attach_sw_sync(fd, syncobj);

	w = waiter_start(fd, &syncobj, 1, long_timeout(),
			 flags_for_test_flags(test_flags));
	sleep_nsec(STEP_NSEC);
	igt_assert_f(!waiter_done(w), "wait returned %d before the signal\n", w->ret);

	if (test_flags & WAIT_FOR_SUBMIT)
		syncobj_trigger(fd, syncobj);
	else
		sw_sync_timeline_inc(timeline, 1);
	igt_assert_eq(waiter_join(w, NULL), 0);

	if (timeline != -1)
		close(timeline);
	syncobj_destroy(fd, syncobj);
}

static void test_reset_unsignaled(int fd)
{
	uint32_t syncobj = syncobj_create(fd, 0);

	igt_assert_eq(syncobj_wait_err(fd, &syncobj, 1, 0, 0), -EINVAL);
	syncobj_reset(fd, &syncobj, 1);
	igt_assert_eq(syncobj_wait_err(fd, &syncobj, 1, 0, 0), -EINVAL);
	syncobj_destroy(fd, syncobj);
}

static void test_reset_signaled(int fd)
{
	uint32_t syncobj = syncobj_create(fd, 0);

	syncobj_trigger(fd, syncobj);
	igt_assert_eq(syncobj_wait_err(fd, &syncobj, 1, 0, 0), 0);
	syncobj_reset(fd, &syncobj, 1);
	igt_assert_eq(syncobj_wait_err(fd, &syncobj, 1, 0, 0), -EINVAL);
	syncobj_destroy(fd, syncobj);
}

static void test_reset_multiple_signaled(int fd)
{
	uint32_t syncobjs[3];

	for (int i = 0; i < 3; i++) {
		syncobjs[i] = syncobj_create(fd, 0);
		syncobj_trigger(fd, syncobjs[i]);
	}
	igt_assert_eq(syncobj_wait_err(fd, syncobjs, 3, 0, 0), 0);
	syncobj_reset(fd, syncobjs, 3);
	for (int i = 0; i < 3; i++) {
		igt_assert_eq(syncobj_wait_err(fd, &syncobjs[i], 1, 0, 0), -EINVAL);
		syncobj_destroy(fd, syncobjs[i]);
	}
}

/* A reset in the middle of a wait for submission does not end it. */
static void test_reset_during_wait_for_submit(int fd)
{
	uint32_t syncobj = syncobj_create(fd, 0);
	struct waiter *w;

	w = waiter_start(fd, &syncobj, 1, long_timeout(),
			 DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT);
	syncobj_reset(fd, &syncobj, 1);
	sleep_nsec(STEP_NSEC);
	igt_assert_f(!waiter_done(w), "wait returned %d after a reset\n", w->ret);
	syncobj_trigger(fd, syncobj);
	igt_assert_eq(waiter_join(w, NULL), 0);
	syncobj_destroy(fd, syncobj);
}

static void test_signal(int fd)
{
	uint32_t syncobj = syncobj_create(fd, 0);
	uint32_t flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;

	igt_assert_eq(syncobj_wait_err(fd, &syncobj, 1, 0, 0), -EINVAL);
	igt_assert_eq(syncobj_wait_err(fd, &syncobj, 1, 0, flags), -ETIME);
	syncobj_signal(fd, &syncobj, 1);
	igt_assert(syncobj_wait(fd, &syncobj, 1, 0, 0, NULL));
	igt_assert(syncobj_wait(fd, &syncobj, 1, 0, flags, NULL));
	syncobj_destroy(fd, syncobj);
}

/*
 * A wait takes the fences the syncobjs have when it starts (or, waiting
 * for submission, the first they get): signalling, resetting and
 * re-arming syncobj 0 meanwhile must not make it wait for the new fence,
 * which never signals.
 */
static void test_wait_snapshot(int fd, uint32_t test_flags)
{
	uint32_t syncobjs[2] = { syncobj_create(fd, 0), syncobj_create(fd, 0) };
	int timelines[3] = { -1, -1, -1 };
	uint32_t first = ~0u;
	struct waiter *w;

	if (!(test_flags & WAIT_FOR_SUBMIT)) {
		timelines[0] = syncobj_attach_sw_sync(fd, syncobjs[0]);
		timelines[1] = syncobj_attach_sw_sync(fd, syncobjs[1]);
	}

	w = waiter_start(fd, syncobjs, 2, long_timeout(),
			 flags_for_test_flags(test_flags));

	/* Trigger, or for any-wait only submit, the first one... */
	if (test_flags & WAIT_ALL) {
		if (timelines[0] == -1)
			syncobj_trigger(fd, syncobjs[0]);
		else
			sw_sync_timeline_inc(timelines[0], 1);
	} else if (test_flags & WAIT_FOR_SUBMIT) {
		timelines[0] = syncobj_attach_sw_sync(fd, syncobjs[0]);
	}
	sleep_nsec(STEP_NSEC);

	/* ...reset it... */
	syncobj_reset(fd, &syncobjs[0], 1);
	sleep_nsec(STEP_NSEC);

	/* ...and give it a fence that never signals. */
	timelines[2] = syncobj_attach_sw_sync(fd, syncobjs[0]);
	sleep_nsec(STEP_NSEC);
	igt_assert_f(!waiter_done(w), "wait returned %d early\n", w->ret);

	/* The second one completes the wait. */
	if (timelines[1] == -1)
		syncobj_trigger(fd, syncobjs[1]);
	else
		sw_sync_timeline_inc(timelines[1], 1);

	igt_assert_eq(waiter_join(w, &first), 0);
	if (!(test_flags & WAIT_ALL))
		igt_assert_eq_u32(first, 1);

	for (int i = 0; i < 3; i++)
		if (timelines[i] != -1)
			close(timelines[i]);
	syncobj_destroy(fd, syncobjs[0]);
	syncobj_destroy(fd, syncobjs[1]);
}

/* The numbers 0-7, each four times, shuffled (upstream's order). */
static const unsigned int shuffled_0_7_x4[] = {
	2, 0, 6, 1, 1, 4, 5, 2, 0, 7, 1, 7, 6, 3, 4, 5,
	0, 2, 7, 3, 5, 4, 0, 6, 7, 3, 2, 5, 6, 1, 4, 3,
};

enum syncobj_stage {
	STAGE_UNSUBMITTED,
	STAGE_SUBMITTED,
	STAGE_SIGNALED,
	STAGE_RESET,
	STAGE_RESUBMITTED,
};

/*
 * Eight syncobjs step through submitted, signalled, reset and submitted
 * again in a shuffled order while another thread waits for the first
 * two (upstream waits for two of the eight, too): the wait ends with the
 * first to signal (any), or once both signalled (all).
 */
static void test_wait_complex(int fd, uint32_t test_flags)
{
	enum syncobj_stage stage[8];
	uint32_t syncobjs[8], first_signaled = ~0u, num_signaled = 0, first = ~0u;
	int timelines[8];
	struct waiter *w;

	for (int i = 0; i < 8; i++) {
		stage[i] = STAGE_UNSUBMITTED;
		syncobjs[i] = syncobj_create(fd, 0);
		timelines[i] = -1;
		if (!(test_flags & WAIT_FOR_SUBMIT))
			timelines[i] = syncobj_attach_sw_sync(fd, syncobjs[i]);
	}

	w = waiter_start(fd, syncobjs, 2, long_timeout(),
			 flags_for_test_flags(test_flags));

	for (unsigned int j = 0; j < ARRAY_SIZE(shuffled_0_7_x4); j++) {
		unsigned int i = shuffled_0_7_x4[j];

		switch (stage[i]++) {
		case STAGE_UNSUBMITTED:
			/* Without WAIT_FOR_SUBMIT, it got its fence up front. */
			if (!(test_flags & WAIT_FOR_SUBMIT)) {
				igt_assert_neq(timelines[i], -1);
				break;
			}
			timelines[i] = syncobj_attach_sw_sync(fd, syncobjs[i]);
			break;
		case STAGE_SUBMITTED:
			igt_assert_neq(timelines[i], -1);
			sw_sync_timeline_inc(timelines[i], 1);
			close(timelines[i]);
			timelines[i] = -1;
			if (num_signaled++ == 0)
				first_signaled = i;
			break;
		case STAGE_SIGNALED:
			syncobj_reset(fd, &syncobjs[i], 1);
			break;
		case STAGE_RESET:
			/* Submitted again, never signalled. */
			timelines[i] = syncobj_attach_sw_sync(fd, syncobjs[i]);
			break;
		case STAGE_RESUBMITTED:
			igt_assert(!"Should not reach this stage");
			break;
		}

		if (test_flags & WAIT_ALL) {
			if (num_signaled == ARRAY_SIZE(syncobjs))
				break;
		} else if (num_signaled > 0) {
			break;
		}
		sleep_nsec(STEP_NSEC / 2);
	}

	igt_assert_eq(waiter_join(w, &first), 0);
	if (test_flags & WAIT_ALL) {
		igt_assert_eq(num_signaled, ARRAY_SIZE(syncobjs));
	} else {
		igt_assert_eq(num_signaled, 1);
		igt_assert_eq_u32(first, first_signaled);
	}

	for (int i = 0; i < 8; i++) {
		if (timelines[i] != -1)
			close(timelines[i]);
		syncobj_destroy(fd, syncobjs[i]);
	}
}

static volatile sig_atomic_t interrupts;

static void count_interrupt(int sig)
{
	interrupts++;
}

/*
 * Make @request while SIGALRM arrives every millisecond, without
 * SA_RESTART, restarting it after each EINTR as igt_while_interruptible
 * does; returns its final -errno or 0.
 */
static int ioctl_interrupted(int fd, unsigned long request, void *arg,
			     unsigned int *restarts)
{
	struct sigaction sa = { .sa_handler = count_interrupt }, old;
	struct itimerval on = {
		.it_interval = { .tv_usec = 1000 }, .it_value = { .tv_usec = 1000 },
	}, off = {};
	int ret;

	*restarts = 0;
	interrupts = 0;
	sigemptyset(&sa.sa_mask);
	igt_assert_eq(sigaction(SIGALRM, &sa, &old), 0);
	igt_assert_eq(setitimer(ITIMER_REAL, &on, NULL), 0);
	do {
		ret = ioctl(fd, request, arg) ? -errno : 0;
		if (ret == -EINTR || ret == -EAGAIN)
			++*restarts;
	} while (ret == -EINTR || ret == -EAGAIN);
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	return ret;
}

/* Signals interrupt and restart a wait; it still times out in the end. */
static void test_wait_interrupted(int fd, uint32_t test_flags)
{
	uint32_t syncobj = syncobj_create(fd, 0);
	struct drm_syncobj_wait wait = {
		.handles = (uintptr_t)&syncobj, .count_handles = 1,
		.flags = flags_for_test_flags(test_flags),
	};
	unsigned int restarts;
	int timeline;

	timeline = syncobj_attach_sw_sync(fd, syncobj);
	wait.timeout_nsec = short_timeout();
	igt_assert_eq(ioctl_interrupted(fd, DRM_IOCTL_SYNCOBJ_WAIT, &wait,
					&restarts), -ETIME);
	igt_info("%u signals, %u restarts\n", (unsigned int)interrupts, restarts);
	igt_assert_lt(0, (int)restarts);

	syncobj_destroy(fd, syncobj);
	close(timeline);
}

/*
 * An engine job held back by a sw_sync fence in its in-syncobj: its
 * out-syncobj has a fence that does not signal until the gate opens.
 */
static void test_gembuf_job_wait(int fd)
{
	struct drm_gembuf_sync in = { .handle = syncobj_create(fd, 0) };
	uint32_t out = syncobj_create(fd, 0);
	uint32_t signaled = syncobj_create(fd, DRM_SYNCOBJ_CREATE_SIGNALED);
	uint32_t pair[2] = { out, signaled }, first = ~0u;
	uint32_t h = gembuf_create(fd, 4096, 0, GEMBUF_CACHE_WB);
	struct drm_gembuf_dma_fill fill = {
		.handle = h, .size = 4096, .value = 0xc0ffee,
		.in_syncs = (uintptr_t)&in, .in_sync_count = 1,
		.out_sync = { .handle = out },
	};
	int gate = syncobj_attach_sw_sync(fd, in.handle);
	struct waiter *w;

	do_ioctl(fd, DRM_IOCTL_GEMBUF_DMA_FILL, &fill);

	/* Submitted, not signalled: every kind of wait times out. */
	igt_assert_eq(syncobj_wait_err(fd, &out, 1, 0, 0), -ETIME);
	igt_assert_eq(syncobj_wait_err(fd, &out, 1, short_timeout(),
				       DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT), -ETIME);
	igt_assert_eq(syncobj_wait_err(fd, pair, 2, short_timeout(),
				       DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL), -ETIME);
	igt_assert(syncobj_wait(fd, pair, 2, short_timeout(), 0, &first));
	igt_assert_eq_u32(first, 1);
	igt_assert_eq(__gembuf_wait(fd, h, 0, 0), -ETIME);

	/* A wait that started before the job ran ends with it. */
	w = waiter_start(fd, pair, 2, long_timeout(), DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL);
	sleep_nsec(STEP_NSEC);
	igt_assert_f(!waiter_done(w), "wait returned %d before the job ran\n", w->ret);
	sw_sync_timeline_inc(gate, 1);
	igt_assert_eq(waiter_join(w, NULL), 0);
	gembuf_check_words(fd, h, 4096, 0xc0ffee);

	/* Reset drops the job's fence. */
	syncobj_reset(fd, &out, 1);
	igt_assert_eq(syncobj_wait_err(fd, &out, 1, 0, 0), -EINVAL);

	close(gate);
	gem_close(fd, h);
	syncobj_destroy(fd, signaled);
	syncobj_destroy(fd, out);
	syncobj_destroy(fd, in.handle);
}

static bool has_syncobj_wait(int fd)
{
	uint32_t handle = 0;
	struct drm_syncobj_wait wait = {
		.handles = (uintptr_t)&handle, .count_handles = 1,
	};
	uint64_t value;

	if (drmGetCap(fd, DRM_CAP_SYNCOBJ, &value) || !value)
		return false;
	/* Waiting for a handle that does not exist is -ENOENT. */
	return __syncobj_wait(fd, &wait) == -ENOENT;
}

igt_main
{
	int fd = -1;

	igt_fixture {
		fd = gembuf_open_engine();
		igt_require(has_syncobj_wait(fd));
		igt_require(kernel_has_sw_sync());
	}

	igt_describe("Unknown wait flags are -EINVAL.");
	igt_subtest("invalid-wait-bad-flags")
		test_wait_bad_flags(fd);

	igt_describe("Waiting for no syncobj at all succeeds.");
	igt_subtest("wait-zero-handles")
		test_wait_zero_handles(fd);

	igt_describe("Waiting for a handle that does not exist is -ENOENT.");
	igt_subtest("invalid-wait-illegal-handle")
		test_wait_illegal_handle(fd);

	igt_describe("Resetting no syncobj is -EINVAL.");
	igt_subtest("invalid-reset-zero-handles")
		test_array_zero_handles(fd, DRM_IOCTL_SYNCOBJ_RESET);

	igt_describe("Resetting a handle that does not exist is -ENOENT.");
	igt_subtest("invalid-reset-illegal-handle")
		test_array_illegal_handle(fd, DRM_IOCTL_SYNCOBJ_RESET);

	igt_describe("A reset with one bad handle among good ones is -ENOENT and resets none.");
	igt_subtest("invalid-reset-one-illegal-handle")
		test_reset_one_illegal_handle(fd);

	igt_describe("A reset with non-zero padding is -EINVAL.");
	igt_subtest("invalid-reset-bad-pad")
		test_array_bad_pad(fd, DRM_IOCTL_SYNCOBJ_RESET);

	igt_describe("Signalling no syncobj is -EINVAL.");
	igt_subtest("invalid-signal-zero-handles")
		test_array_zero_handles(fd, DRM_IOCTL_SYNCOBJ_SIGNAL);

	igt_describe("Signalling a handle that does not exist is -ENOENT.");
	igt_subtest("invalid-signal-illegal-handle")
		test_array_illegal_handle(fd, DRM_IOCTL_SYNCOBJ_SIGNAL);

	igt_describe("A signal with one bad handle among good ones is -ENOENT and signals none.");
	igt_subtest("invalid-signal-one-illegal-handle")
		test_signal_one_illegal_handle(fd);

	igt_describe("A signal with non-zero padding is -EINVAL.");
	igt_subtest("invalid-signal-bad-pad")
		test_array_bad_pad(fd, DRM_IOCTL_SYNCOBJ_SIGNAL);

	for (unsigned int flags = 0; flags < WAIT_FLAGS_MAX; flags++) {
		int err;

		/* Only one state for single-wait tests */
		if (__builtin_popcount(flags & (WAIT_UNSUBMITTED | WAIT_SUBMITTED |
						WAIT_SIGNALED)) != 1)
			continue;

		if ((flags & WAIT_UNSUBMITTED) && !(flags & WAIT_FOR_SUBMIT))
			err = -EINVAL;
		else if (!(flags & WAIT_SIGNALED))
			err = -ETIME;
		else
			err = 0;

		igt_describe("A wait for one syncobj in a given state: no fence is -EINVAL (-ETIME waiting for submission), a pending one -ETIME.");
		igt_subtest_f("%ssingle-wait%s%s%s%s%s",
			      err == -EINVAL ? "invalid-" : "",
			      (flags & WAIT_ALL) ? "-all" : "",
			      (flags & WAIT_FOR_SUBMIT) ? "-for-submit" : "",
			      (flags & WAIT_UNSUBMITTED) ? "-unsubmitted" : "",
			      (flags & WAIT_SUBMITTED) ? "-submitted" : "",
			      (flags & WAIT_SIGNALED) ? "-signaled" : "")
			test_single_wait(fd, flags, err);
	}

	igt_describe("A wait for a pending fence ends when it signals.");
	igt_subtest("wait-delayed-signal")
		test_wait_delayed_signal(fd, 0);

	igt_describe("A wait for submission ends when a signalled fence arrives.");
	igt_subtest("wait-for-submit-delayed-submit")
		test_wait_delayed_signal(fd, WAIT_FOR_SUBMIT);

	igt_describe("A wait-all for a pending fence ends when it signals.");
	igt_subtest("wait-all-delayed-signal")
		test_wait_delayed_signal(fd, WAIT_ALL);

	igt_describe("A wait-all for submission ends when a signalled fence arrives.");
	igt_subtest("wait-all-for-submit-delayed-submit")
		test_wait_delayed_signal(fd, WAIT_ALL | WAIT_FOR_SUBMIT);

	igt_describe("Resetting a syncobj without a fence leaves it without one.");
	igt_subtest("reset-unsignaled")
		test_reset_unsignaled(fd);

	igt_describe("Resetting a signalled syncobj drops its fence.");
	igt_subtest("reset-signaled")
		test_reset_signaled(fd);

	igt_describe("Resetting several signalled syncobjs drops all their fences.");
	igt_subtest("reset-multiple-signaled")
		test_reset_multiple_signaled(fd);

	igt_describe("A reset during a wait for submission does not end the wait.");
	igt_subtest("reset-during-wait-for-submit")
		test_reset_during_wait_for_submit(fd);

	igt_describe("SYNCOBJ_SIGNAL gives a syncobj a signalled fence.");
	igt_subtest("signal")
		test_signal(fd);

	for (unsigned int flags = 0; flags < WAIT_FLAGS_MAX; flags++) {
		int err = 0;

		/* At least one state for multi-wait tests */
		if (!(flags & (WAIT_UNSUBMITTED | WAIT_SUBMITTED | WAIT_SIGNALED)))
			continue;

		if ((flags & WAIT_UNSUBMITTED) && !(flags & WAIT_FOR_SUBMIT)) {
			err = -EINVAL;
		} else if (flags & WAIT_ALL) {
			if (flags & (WAIT_UNSUBMITTED | WAIT_SUBMITTED))
				err = -ETIME;
		} else {
			if (!(flags & WAIT_SIGNALED))
				err = -ETIME;
		}

		igt_describe("A wait for three syncobjs in the given states: any returns with one signalled, all with all.");
		igt_subtest_f("%smulti-wait%s%s%s%s%s",
			      err == -EINVAL ? "invalid-" : "",
			      (flags & WAIT_ALL) ? "-all" : "",
			      (flags & WAIT_FOR_SUBMIT) ? "-for-submit" : "",
			      (flags & WAIT_UNSUBMITTED) ? "-unsubmitted" : "",
			      (flags & WAIT_SUBMITTED) ? "-submitted" : "",
			      (flags & WAIT_SIGNALED) ? "-signaled" : "")
			test_multi_wait(fd, flags, err);
	}

	igt_describe("A wait-any keeps the fences it started with while one is reset and re-armed.");
	igt_subtest("wait-any-snapshot")
		test_wait_snapshot(fd, 0);

	igt_describe("A wait-all keeps the fences it started with while one is reset and re-armed.");
	igt_subtest("wait-all-snapshot")
		test_wait_snapshot(fd, WAIT_ALL);

	igt_describe("A wait-any for submission keeps the first fence submitted.");
	igt_subtest("wait-for-submit-snapshot")
		test_wait_snapshot(fd, WAIT_FOR_SUBMIT);

	igt_describe("A wait-all for submission keeps the first fences submitted.");
	igt_subtest("wait-all-for-submit-snapshot")
		test_wait_snapshot(fd, WAIT_ALL | WAIT_FOR_SUBMIT);

	igt_describe("A wait-any while syncobjs are submitted, signalled, reset and re-armed from another thread.");
	igt_subtest("wait-any-complex")
		test_wait_complex(fd, 0);

	igt_describe("A wait-all while syncobjs are submitted, signalled, reset and re-armed from another thread.");
	igt_subtest("wait-all-complex")
		test_wait_complex(fd, WAIT_ALL);

	igt_describe("A wait-any for submission while syncobjs are submitted, signalled, reset and re-armed.");
	igt_subtest("wait-for-submit-complex")
		test_wait_complex(fd, WAIT_FOR_SUBMIT);

	igt_describe("A wait-all for submission while syncobjs are submitted, signalled, reset and re-armed.");
	igt_subtest("wait-all-for-submit-complex")
		test_wait_complex(fd, WAIT_ALL | WAIT_FOR_SUBMIT);

	igt_describe("Signals interrupt a wait-any, which restarts and times out.");
	igt_subtest("wait-any-interrupted")
		test_wait_interrupted(fd, 0);

	igt_describe("Signals interrupt a wait-all, which restarts and times out.");
	igt_subtest("wait-all-interrupted")
		test_wait_interrupted(fd, WAIT_ALL);

	igt_describe("gembuf: the out-syncobj of an engine job held back by its in-syncobj times out every kind of wait, then signals when the job runs.");
	igt_subtest("gembuf-job-wait")
		test_gembuf_job_wait(fd);

	igt_fixture
		drm_close_driver(fd);
}
