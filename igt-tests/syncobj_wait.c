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
#include <errno.h>
#include <strings.h>
#include <unistd.h>
#include <linux/sync_file.h>

#include "igt.h"
#include "gembuf.h"
#include "igt_syncobj.h"
#include "sw_sync.h"
#include "syncobj_helpers.h"

IGT_TEST_DESCRIPTION("Tests for the drm sync object wait API");

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

/* What the waits of single-wait with test flags @flags return. */
static int single_wait_expect(uint32_t flags)
{
	int err;

	if ((flags & WAIT_UNSUBMITTED) && !(flags & WAIT_FOR_SUBMIT))
		err = -EINVAL;
	else if (!(flags & WAIT_SIGNALED))
		err = -ETIME;
	else
		err = 0;
	return err;
}

static void test_single_wait(int fd, uint32_t test_flags, int expect)
{
	uint32_t syncobj = syncobj_create(fd, 0);
	int timeline = -1;

	if (test_flags & (WAIT_SUBMITTED | WAIT_SIGNALED))
		timeline = syncobj_attach_sw_sync(fd, syncobj, 0);
	if (test_flags & WAIT_SIGNALED)
		sw_sync_timeline_inc(timeline, 1);

	syncobj_check_waits(fd, &syncobj, NULL, 1, flags_for_test_flags(test_flags),
			    expect);

	syncobj_destroy(fd, syncobj);
	if (timeline != -1)
		close(timeline);
}

/* What the waits of multi-wait with test flags @flags return. */
static int multi_wait_expect(uint32_t flags)
{
	int err = 0;

	if ((flags & WAIT_UNSUBMITTED) && !(flags & WAIT_FOR_SUBMIT)) {
		err = -EINVAL;
	} else if (flags & WAIT_ALL) {
		if (flags & (WAIT_UNSUBMITTED | WAIT_SUBMITTED))
			err = -ETIME;
	} else {
		if (!(flags & WAIT_SIGNALED))
			err = -ETIME;
	}
	return err;
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
			timelines[i] = syncobj_attach_sw_sync(fd, syncobjs[i], 0);
		if (tflag & WAIT_SIGNALED)
			sw_sync_timeline_inc(timelines[i], 1);
	}

	syncobj_check_waits(fd, syncobjs, NULL, 3, flags, expect);

	for (int i = 0; i < 3; i++) {
		syncobj_destroy(fd, syncobjs[i]);
		if (timelines[i] != -1)
			close(timelines[i]);
	}
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

	syncobj_trigger(fd, syncobj, 0);
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
		syncobj_trigger(fd, syncobjs[i], 0);
	}
	igt_assert_eq(syncobj_wait_err(fd, syncobjs, 3, 0, 0), 0);
	syncobj_reset(fd, syncobjs, 3);
	for (int i = 0; i < 3; i++) {
		igt_assert_eq(syncobj_wait_err(fd, &syncobjs[i], 1, 0, 0), -EINVAL);
		syncobj_destroy(fd, syncobjs[i]);
	}
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
 * An engine job held back by a sw_sync fence in its in-syncobj: its
 * out-syncobj has a fence that does not signal until the gate opens.
 */
/*
 * The sw_sync timeline holding an engine job back.  A subtest that fails
 * before releasing it leaves the job waiting; closing the DRM file would
 * then wait for the job (drm_sched_entity_flush()) and never return, so
 * the last fixture closes it first.
 */
static int job_gate = -1;

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
	int gate = job_gate = syncobj_attach_sw_sync(fd, in.handle, 0);
	struct syncobj_waiter *w;

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
	w = syncobj_waiter_start(fd, pair, NULL, 2, long_timeout(),
				 DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL);
	sleep_nsec(STEP_NSEC);
	igt_assert_f(!syncobj_waiter_done(w), "wait returned %d before the job ran\n",
		     w->ret);
	sw_sync_timeline_inc(gate, 1);
	igt_assert_eq(syncobj_waiter_join(w, NULL), 0);
	gembuf_check_words(fd, h, 4096, 0xc0ffee);

	/* Reset drops the job's fence. */
	syncobj_reset(fd, &out, 1);
	igt_assert_eq(syncobj_wait_err(fd, &out, 1, 0, 0), -EINVAL);

	close(gate);
	job_gate = -1;
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

/*
 * Subtests shared with syncobj_timeline (see syncobj_helpers.c): waits
 * that end when the test thread signals...
 */
static const struct syncobj_subtest delayed_subtests[] = {
	{ "wait-delayed-signal", syncobj_test_wait_delayed_signal, 0,
	  "A wait for a pending fence ends when it signals." },
	{ "wait-for-submit-delayed-submit", syncobj_test_wait_delayed_signal,
	  WAIT_FOR_SUBMIT,
	  "A wait for submission ends when a signalled fence arrives." },
	{ "wait-all-delayed-signal", syncobj_test_wait_delayed_signal, WAIT_ALL,
	  "A wait-all for a pending fence ends when it signals." },
	{ "wait-all-for-submit-delayed-submit", syncobj_test_wait_delayed_signal,
	  WAIT_ALL | WAIT_FOR_SUBMIT,
	  "A wait-all for submission ends when a signalled fence arrives." },
};

/* ...and waits the test thread changes the syncobjs under, or interrupts. */
static const struct syncobj_subtest racing_subtests[] = {
	{ "wait-any-snapshot", syncobj_test_wait_snapshot, 0,
	  "A wait-any keeps the fences it started with while one is reset and re-armed." },
	{ "wait-all-snapshot", syncobj_test_wait_snapshot, WAIT_ALL,
	  "A wait-all keeps the fences it started with while one is reset and re-armed." },
	{ "wait-for-submit-snapshot", syncobj_test_wait_snapshot,
	  WAIT_FOR_SUBMIT,
	  "A wait-any for submission keeps the first fence submitted." },
	{ "wait-all-for-submit-snapshot", syncobj_test_wait_snapshot,
	  WAIT_ALL | WAIT_FOR_SUBMIT,
	  "A wait-all for submission keeps the first fences submitted." },
	{ "wait-any-complex", syncobj_test_wait_complex, 0,
	  "A wait-any while syncobjs are submitted, signalled, reset and re-armed from another thread." },
	{ "wait-all-complex", syncobj_test_wait_complex, WAIT_ALL,
	  "A wait-all while syncobjs are submitted, signalled, reset and re-armed from another thread." },
	{ "wait-for-submit-complex", syncobj_test_wait_complex, WAIT_FOR_SUBMIT,
	  "A wait-any for submission while syncobjs are submitted, signalled, reset and re-armed." },
	{ "wait-all-for-submit-complex", syncobj_test_wait_complex,
	  WAIT_ALL | WAIT_FOR_SUBMIT,
	  "A wait-all for submission while syncobjs are submitted, signalled, reset and re-armed." },
	{ "wait-any-interrupted", syncobj_test_wait_interrupted, 0,
	  "Signals interrupt a wait-any, which restarts and times out." },
	{ "wait-all-interrupted", syncobj_test_wait_interrupted, WAIT_ALL,
	  "Signals interrupt a wait-all, which restarts and times out." },
};

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

	syncobj_wait_subtests(fd, 0, false, single_wait_expect, test_single_wait,
			      "A wait for one syncobj in a given state: no fence is -EINVAL (-ETIME waiting for submission), a pending one -ETIME.");

	syncobj_subtests(fd, 0, delayed_subtests, ARRAY_SIZE(delayed_subtests));

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
		syncobj_test_reset_during_wait_for_submit(fd, 0);

	igt_describe("SYNCOBJ_SIGNAL gives a syncobj a signalled fence.");
	igt_subtest("signal")
		test_signal(fd);

	syncobj_wait_subtests(fd, 0, true, multi_wait_expect, test_multi_wait,
			      "A wait for three syncobjs in the given states: any returns with one signalled, all with all.");

	syncobj_subtests(fd, 0, racing_subtests, ARRAY_SIZE(racing_subtests));

	igt_describe("gembuf: the out-syncobj of an engine job held back by its in-syncobj times out every kind of wait, then signals when the job runs.");
	igt_subtest("gembuf-job-wait")
		test_gembuf_job_wait(fd);

	igt_fixture {
		if (job_gate >= 0)
			close(job_gate);
		drm_close_driver(fd);
	}
}
