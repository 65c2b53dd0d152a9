// SPDX-License-Identifier: MIT
/* What syncobj_wait and syncobj_timeline share; see syncobj_helpers.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "igt.h"
#include "igt_syncobj.h"
#include "sw_sync.h"
#include "syncobj_helpers.h"

/** flags_for_test_flags() - the DRM_SYNCOBJ_WAIT_FLAGS_* of @test_flags */
uint32_t flags_for_test_flags(uint32_t test_flags)
{
	uint32_t flags = 0;

	if (test_flags & WAIT_FOR_SUBMIT)
		flags |= DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
	if (test_flags & WAIT_AVAILABLE)
		flags |= DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE;
	if (test_flags & WAIT_ALL)
		flags |= DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
	return flags;
}

/**
 * syncobj_wait_subtests() - upstream's single-wait or multi-wait subtests:
 *	one for each combination of test flags, named after them
 * @fd: the DRM file
 * @point: 0 for syncobj_wait's binary waits, which have no
 *	WAIT_AVAILABLE and only name invalid- subtests; 1 for
 *	syncobj_timeline's, which name etime- ones too
 * @multi: multi-wait, for one or more states in the flags, rather than
 *	single-wait, for exactly one
 * @expect: what the waits must return for the test flags
 * @test: the subtest, called with @fd, the test flags and their @expect
 * @desc: its igt_describe() text
 *
 * As upstream's, the loop stops short of all the flags set.
 */
void syncobj_wait_subtests(int fd, uint64_t point, bool multi,
			   int (*expect)(uint32_t test_flags),
			   void (*test)(int fd, uint32_t test_flags, int expect),
			   const char *desc)
{
	uint32_t all = point ? WAIT_FLAGS_MAX : WAIT_FLAGS_MAX & ~WAIT_AVAILABLE;

	for (uint32_t flags = 0; flags < all; flags++) {
		int states = __builtin_popcount(flags & (WAIT_UNSUBMITTED |
							 WAIT_SUBMITTED |
							 WAIT_SIGNALED));
		int err;

		if (flags & ~all)
			continue;
		if (multi ? states == 0 : states != 1)
			continue;

		err = expect(flags);
		igt_describe(desc);
		igt_subtest_f("%s%s%s%s%s%s%s%s",
			      err == -EINVAL ? "invalid-" :
			      err == -ETIME && point ? "etime-" : "",
			      multi ? "multi-wait" : "single-wait",
			      (flags & WAIT_ALL) ? "-all" : "",
			      (flags & WAIT_FOR_SUBMIT) ? "-for-submit" : "",
			      (flags & WAIT_AVAILABLE) ? "-available" : "",
			      (flags & WAIT_UNSUBMITTED) ? "-unsubmitted" : "",
			      (flags & WAIT_SUBMITTED) ? "-submitted" : "",
			      (flags & WAIT_SIGNALED) ? "-signaled" : "")
			test(fd, flags, err);
	}
}

/**
 * syncobj_subtests() - declare @count @subtests in order
 * @fd: the DRM file
 * @point: the point their syncobj_test_*() waits for, 0 or 1
 * @subtests: name, syncobj_test_*(), test flags and igt_describe() text
 * @count: how many
 */
void syncobj_subtests(int fd, uint64_t point,
		      const struct syncobj_subtest *subtests, unsigned int count)
{
	for (const struct syncobj_subtest *t = subtests; t < subtests + count; t++) {
		igt_describe(t->desc);
		igt_subtest(t->name)
			t->test(fd, point, t->test_flags);
	}
}

uint64_t gettime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSECS_PER_SEC + ts.tv_nsec;
}

void sleep_nsec(uint64_t ns)
{
	struct timespec t = { .tv_sec = ns / NSECS_PER_SEC, .tv_nsec = ns % NSECS_PER_SEC };

	igt_assert_eq(nanosleep(&t, NULL), 0);
}

uint64_t short_timeout(void)
{
	return gettime_ns() + SHORT_TIME_NSEC;
}

uint64_t long_timeout(void)
{
	return gettime_ns() + LONG_TIME_NSEC;
}

/**
 * syncobj_attach_sw_sync() - a pending fence for a syncobj
 * @fd: the DRM file
 * @handle: the syncobj
 * @point: the timeline point the fence becomes, or 0 for the fence of a
 *	binary syncobj
 *
 * Returns the fence's new sw_sync timeline; incrementing it signals the
 * fence.
 */
int syncobj_attach_sw_sync(int fd, uint32_t handle, uint64_t point)
{
	int timeline = sw_sync_timeline_create();
	int fence;

	if (point) {
		syncobj_add_sw_sync_point(fd, handle, point, timeline, 1);
		return timeline;
	}
	fence = sw_sync_timeline_create_fence(timeline, 1);
	syncobj_import_sync_file(fd, handle, fence);
	close(fence);
	return timeline;
}

/** syncobj_trigger() - give @handle a signalled fence at @point (or 0) */
void syncobj_trigger(int fd, uint32_t handle, uint64_t point)
{
	int timeline = syncobj_attach_sw_sync(fd, handle, point);

	sw_sync_timeline_inc(timeline, 1);
	close(timeline);
}

/**
 * syncobj_add_sw_sync_point() - point @point of @handle comes from fence
 *	@seqno of sw_sync @timeline
 */
void syncobj_add_sw_sync_point(int fd, uint32_t handle, uint64_t point,
			       int timeline, unsigned int seqno)
{
	int fence = sw_sync_timeline_create_fence(timeline, seqno);
	uint32_t tmp = syncobj_create(fd, 0);

	syncobj_import_sync_file(fd, tmp, fence);
	syncobj_binary_to_timeline(fd, handle, point, tmp);
	syncobj_destroy(fd, tmp);
	close(fence);
}

/*
 * Fill in the wait for @count @handles, at @points unless NULL; returns
 * the ioctl that makes it.
 */
static unsigned long wait_args_init(union syncobj_wait_args *args,
				    const uint32_t *handles,
				    const uint64_t *points, uint32_t count,
				    uint64_t abs_timeout, uint32_t flags)
{
	memset(args, 0, sizeof(*args));
	if (!points) {
		args->binary.handles = (uintptr_t)handles;
		args->binary.count_handles = count;
		args->binary.timeout_nsec = abs_timeout;
		args->binary.flags = flags;
		return DRM_IOCTL_SYNCOBJ_WAIT;
	}
	args->timeline.handles = (uintptr_t)handles;
	args->timeline.points = (uintptr_t)points;
	args->timeline.count_handles = count;
	args->timeline.timeout_nsec = abs_timeout;
	args->timeline.flags = flags;
	return DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT;
}

/* Helper threads leave signals to the test thread (wait-*-interrupted). */
void block_signals(void)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
}

static void *waiter_func(void *data)
{
	struct syncobj_waiter *w = data;

	block_signals();
	__atomic_store_n(&w->tid, gettid(), __ATOMIC_RELEASE);
	if (w->request == DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT)
		w->ret = __syncobj_timeline_wait_ioctl(w->fd, &w->args.timeline);
	else
		w->ret = __syncobj_wait(w->fd, &w->args.binary);
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

bool syncobj_waiter_done(struct syncobj_waiter *w)
{
	return __atomic_load_n(&w->done, __ATOMIC_ACQUIRE);
}

/**
 * syncobj_waiter_start() - start a wait on a helper thread
 * @fd: the DRM file
 * @handles: the syncobjs, copied
 * @points: their points, copied; NULL for a binary wait
 * @count: how many, 8 at most
 * @abs_timeout: absolute CLOCK_MONOTONIC deadline
 * @flags: DRM_SYNCOBJ_WAIT_FLAGS_*
 *
 * Returns once the thread sleeps in the wait (or finished it).
 */
struct syncobj_waiter *syncobj_waiter_start(int fd, const uint32_t *handles,
					    const uint64_t *points,
					    uint32_t count,
					    uint64_t abs_timeout,
					    uint32_t flags)
{
	struct syncobj_waiter *w = calloc(1, sizeof(*w));
	pid_t tid = 0;

	igt_assert(w && count <= ARRAY_SIZE(w->handles));
	w->fd = fd;
	memcpy(w->handles, handles, count * sizeof(*handles));
	if (points)
		memcpy(w->points, points, count * sizeof(*points));
	w->request = wait_args_init(&w->args, w->handles,
				    points ? w->points : NULL, count,
				    abs_timeout, flags);
	igt_assert_eq(pthread_create(&w->thread, NULL, waiter_func, w), 0);

	for (int i = 0; i < 2000 && !syncobj_waiter_done(w); i++) {
		tid = __atomic_load_n(&w->tid, __ATOMIC_ACQUIRE);
		if (tid && task_sleeping(tid))
			break;
		usleep(1000);
	}
	return w;
}

/** syncobj_waiter_join() - the wait's result; frees @w */
int syncobj_waiter_join(struct syncobj_waiter *w, uint32_t *first_signaled)
{
	int ret;

	igt_assert_eq(pthread_join(w->thread, NULL), 0);
	ret = w->ret;
	if (first_signaled)
		*first_signaled = w->request == DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT ?
				  w->args.timeline.first_signaled :
				  w->args.binary.first_signaled;
	free(w);
	return ret;
}

static int wait_err(int fd, uint32_t *syncobjs, uint64_t *points,
		    uint32_t count, uint64_t abs_timeout, uint32_t flags)
{
	if (!points)
		return syncobj_wait_err(fd, syncobjs, count, abs_timeout, flags);
	return syncobj_timeline_wait_err(fd, syncobjs, points, count,
					 abs_timeout, flags);
}

/**
 * syncobj_check_waits() - a poll, a short wait and (unless it must time
 *	out) an endless one, each returning @expect
 */
void syncobj_check_waits(int fd, uint32_t *syncobjs, uint64_t *points,
			 uint32_t count, uint32_t flags, int expect)
{
	igt_assert_eq(wait_err(fd, syncobjs, points, count, 0, flags), expect);
	igt_assert_eq(wait_err(fd, syncobjs, points, count, short_timeout(), flags),
		      expect);
	if (expect != -ETIME)
		igt_assert_eq(wait_err(fd, syncobjs, points, count, UINT64_MAX, flags),
			      expect);
}

/*
 * A wait started before its fence signals (or, waiting for submission,
 * before there is one) blocks until then.
 */
void syncobj_test_wait_delayed_signal(int fd, uint64_t point,
				      uint32_t test_flags)
{
	uint32_t syncobj = syncobj_create(fd, 0);
	int timeline = -1;
	struct syncobj_waiter *w;

	if (!(test_flags & WAIT_FOR_SUBMIT))
		timeline = syncobj_attach_sw_sync(fd, syncobj, point);

	w = syncobj_waiter_start(fd, &syncobj, point ? &point : NULL, 1,
				 long_timeout(),
				 flags_for_test_flags(test_flags));
	sleep_nsec(STEP_NSEC);
	igt_assert_f(!syncobj_waiter_done(w), "wait returned %d before the signal\n",
		     w->ret);

	if (test_flags & WAIT_FOR_SUBMIT)
		syncobj_trigger(fd, syncobj, point);
	else
		sw_sync_timeline_inc(timeline, 1);
	igt_assert_eq(syncobj_waiter_join(w, NULL), 0);

	if (timeline != -1)
		close(timeline);
	syncobj_destroy(fd, syncobj);
}

/* A reset in the middle of a wait for submission does not end it. */
void syncobj_test_reset_during_wait_for_submit(int fd, uint64_t point)
{
	uint32_t syncobj = syncobj_create(fd, 0);
	struct syncobj_waiter *w;

	w = syncobj_waiter_start(fd, &syncobj, point ? &point : NULL, 1,
				 long_timeout(),
				 DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT);
	syncobj_reset(fd, &syncobj, 1);
	sleep_nsec(STEP_NSEC);
	igt_assert_f(!syncobj_waiter_done(w), "wait returned %d after a reset\n",
		     w->ret);
	syncobj_trigger(fd, syncobj, point);
	igt_assert_eq(syncobj_waiter_join(w, NULL), 0);
	syncobj_destroy(fd, syncobj);
}

/*
 * A wait takes the fences the syncobjs (or points) have when it starts
 * (or, waiting for submission, the first they get): signalling,
 * resetting and re-arming syncobj 0 meanwhile must not make it wait for
 * the new fence, which never signals.
 */
void syncobj_test_wait_snapshot(int fd, uint64_t point, uint32_t test_flags)
{
	uint32_t syncobjs[2] = { syncobj_create(fd, 0), syncobj_create(fd, 0) };
	uint64_t points[2] = { point, point };
	int timelines[3] = { -1, -1, -1 };
	uint32_t first = ~0u;
	struct syncobj_waiter *w;

	if (!(test_flags & WAIT_FOR_SUBMIT)) {
		timelines[0] = syncobj_attach_sw_sync(fd, syncobjs[0], points[0]);
		timelines[1] = syncobj_attach_sw_sync(fd, syncobjs[1], points[1]);
	}

	w = syncobj_waiter_start(fd, syncobjs, point ? points : NULL, 2,
				 long_timeout(),
				 flags_for_test_flags(test_flags));

	/* Trigger, or for any-wait only submit, the first one... */
	if (test_flags & WAIT_ALL) {
		if (timelines[0] == -1)
			syncobj_trigger(fd, syncobjs[0], points[0]);
		else
			sw_sync_timeline_inc(timelines[0], 1);
	} else if (test_flags & WAIT_FOR_SUBMIT) {
		timelines[0] = syncobj_attach_sw_sync(fd, syncobjs[0], points[0]);
	}
	sleep_nsec(STEP_NSEC);

	/* ...reset it... */
	syncobj_reset(fd, &syncobjs[0], 1);
	sleep_nsec(STEP_NSEC);

	/* ...and give it a fence that never signals. */
	timelines[2] = syncobj_attach_sw_sync(fd, syncobjs[0], points[0]);
	sleep_nsec(STEP_NSEC);
	igt_assert_f(!syncobj_waiter_done(w), "wait returned %d early\n", w->ret);

	/* The second one completes the wait. */
	if (timelines[1] == -1)
		syncobj_trigger(fd, syncobjs[1], points[1]);
	else
		sw_sync_timeline_inc(timelines[1], 1);

	igt_assert_eq(syncobj_waiter_join(w, &first), 0);
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
 * again in a shuffled order while another thread waits for (@point of)
 * the first two (upstream waits for two of the eight, too): the wait
 * ends with the first to signal (any), or once both signalled (all).
 */
void syncobj_test_wait_complex(int fd, uint64_t point, uint32_t test_flags)
{
	uint64_t points[8] = { point, point, point, point,
			       point, point, point, point };
	enum syncobj_stage stage[8];
	uint32_t syncobjs[8], first_signaled = ~0u, num_signaled = 0, first = ~0u;
	int timelines[8];
	struct syncobj_waiter *w;

	for (int i = 0; i < 8; i++) {
		stage[i] = STAGE_UNSUBMITTED;
		syncobjs[i] = syncobj_create(fd, 0);
		timelines[i] = -1;
		if (!(test_flags & WAIT_FOR_SUBMIT))
			timelines[i] = syncobj_attach_sw_sync(fd, syncobjs[i], points[i]);
	}

	w = syncobj_waiter_start(fd, syncobjs, point ? points : NULL, 2,
				 long_timeout(),
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
			timelines[i] = syncobj_attach_sw_sync(fd, syncobjs[i], points[i]);
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
			timelines[i] = syncobj_attach_sw_sync(fd, syncobjs[i], points[i]);
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

	igt_assert_eq(syncobj_waiter_join(w, &first), 0);
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
void syncobj_test_wait_interrupted(int fd, uint64_t point, uint32_t test_flags)
{
	uint32_t syncobj = syncobj_create(fd, 0);
	union syncobj_wait_args args;
	unsigned long request;
	unsigned int restarts;
	int timeline;

	timeline = syncobj_attach_sw_sync(fd, syncobj, point);
	request = wait_args_init(&args, &syncobj, point ? &point : NULL, 1,
				 short_timeout(), flags_for_test_flags(test_flags));
	igt_assert_eq(ioctl_interrupted(fd, request, &args, &restarts), -ETIME);
	igt_info("%u signals, %u restarts\n", (unsigned int)interrupts, restarts);
	igt_assert_lt(0, (int)restarts);

	syncobj_destroy(fd, syncobj);
	close(timeline);
}
