// SPDX-License-Identifier: MIT
/*
 * syncobj_timeline: upstream igt's syncobj_timeline contract, with its
 * subtest names, on the DMA engine's render node (DRIVER_SYNCOBJ_TIMELINE):
 * SYNCOBJ_TIMELINE_WAIT, QUERY, TRANSFER and TIMELINE_SIGNAL and their bad
 * arguments; waits for points of timeline syncobjs (and point 0 of binary
 * ones) with WAIT_ALL, WAIT_FOR_SUBMIT and WAIT_AVAILABLE, on points not
 * submitted (-EINVAL, or -ETIME waiting for them), submitted (-ETIME,
 * unless only waiting for availability) and signalled (0); the timeline
 * value as points signal in and out of order, from the host and from
 * sw_sync fences, across the 32-bit boundary of seqnos.
 *
 * Differences from upstream, all for run time in an instruction-counted
 * guest: waits that must time out take 20 ms instead of 100 ms; waits
 * that must succeed get a deadline of seconds, paid only on failure,
 * instead of racing a 100-200 ms one; threaded steps are 5-10 ms apart
 * instead of 10-20 ms.  The thread that waits is a helper thread, and
 * the test thread signals (upstream signals from timer threads): an
 * igt assertion may only fail on the test thread.  The waits are also
 * checked to still block before they are signalled.  host-signal-points
 * keeps upstream's 100 rounds (ioctls only).
 *
 * gembuf-job-timeline is ours: points signalled by DMA engine jobs.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <strings.h>
#include <unistd.h>

#include "igt.h"
#include "gembuf.h"
#include "igt_syncobj.h"
#include "sw_sync.h"
#include "syncobj_helpers.h"

IGT_TEST_DESCRIPTION("Tests for the drm timeline sync object API");

static int timeline_array_ioctl(int fd, unsigned long request,
				struct drm_syncobj_timeline_array *args)
{
	return igt_ioctl(fd, request, args) ? -errno : 0;
}

static const char *test_wait_bad_flags_desc =
	"Verifies that an invalid value in drm_syncobj_timeline_wait::flags is"
	" rejected";
static void test_wait_bad_flags(int fd)
{
	struct drm_syncobj_timeline_wait wait = { .flags = 0xdeadbeef };

	igt_assert_eq(__syncobj_timeline_wait_ioctl(fd, &wait), -EINVAL);
}

static const char *test_wait_zero_handles_desc =
	"Verifies that waiting on an empty list of syncobj handles is accepted";
static void test_wait_zero_handles(int fd)
{
	struct drm_syncobj_timeline_wait wait = {};

	igt_assert_eq(__syncobj_timeline_wait_ioctl(fd, &wait), 0);
}

static const char *test_wait_illegal_handle_desc =
	"Verifies that waiting on an invalid syncobj handle is rejected";
static void test_wait_illegal_handle(int fd)
{
	uint32_t handle = 0;
	struct drm_syncobj_timeline_wait wait = {
		.handles = (uintptr_t)&handle, .count_handles = 1,
	};

	igt_assert_eq(__syncobj_timeline_wait_ioctl(fd, &wait), -ENOENT);
}

/* QUERY and TIMELINE_SIGNAL share their argument checks. */
static void test_array_zero_handles(int fd, unsigned long request)
{
	struct drm_syncobj_timeline_array args = {};

	igt_assert_eq(timeline_array_ioctl(fd, request, &args), -EINVAL);
}

static void test_array_illegal_handle(int fd, unsigned long request)
{
	uint32_t handle = 0;
	uint64_t point = 1;
	struct drm_syncobj_timeline_array args = {
		.handles = (uintptr_t)&handle, .points = (uintptr_t)&point,
		.count_handles = 1,
	};

	igt_assert_eq(timeline_array_ioctl(fd, request, &args), -ENOENT);
}

static void test_array_one_illegal_handle(int fd, unsigned long request)
{
	uint32_t syncobjs[3] = { syncobj_create(fd, 0), 0, syncobj_create(fd, 0) };
	uint64_t initial_point = 1, points[3] = { 2, 2, 2 };
	struct drm_syncobj_timeline_array args = {
		.handles = (uintptr_t)syncobjs, .points = (uintptr_t)points,
		.count_handles = 3,
	};

	syncobj_timeline_signal(fd, &syncobjs[0], &initial_point, 1);
	syncobj_timeline_signal(fd, &syncobjs[2], &initial_point, 1);
	igt_assert_eq(syncobj_timeline_wait_err(fd, &syncobjs[0], &initial_point,
						1, 0, 0), 0);
	igt_assert_eq(syncobj_timeline_wait_err(fd, &syncobjs[2], &initial_point,
						1, 0, 0), 0);

	igt_assert_eq(timeline_array_ioctl(fd, request, &args), -ENOENT);

	/* Nothing was signalled: point 2 is still to come on both. */
	igt_assert_eq(syncobj_timeline_wait_err(fd, &syncobjs[0], &points[0],
						1, 0, 0), -EINVAL);
	igt_assert_eq(syncobj_timeline_wait_err(fd, &syncobjs[2], &points[2],
						1, 0, 0), -EINVAL);
	syncobj_destroy(fd, syncobjs[0]);
	syncobj_destroy(fd, syncobjs[2]);
}

static void test_array_bad_pad(int fd, unsigned long request)
{
	uint32_t handle = 0;
	struct drm_syncobj_timeline_array args = {
		.handles = (uintptr_t)&handle, .count_handles = 1,
		.flags = 0xdeadbeef,
	};

	igt_assert_eq(timeline_array_ioctl(fd, request, &args), -EINVAL);
}

/*
 * Upstream signals point 0 of handle 1, which no subtest left behind:
 * -ENOENT.  A file of its own makes sure there is no handle 1.
 */
static void test_signal_illegal_point(void)
{
	int fd = gembuf_open_engine();
	uint32_t handle = 1;
	uint64_t point = 0;
	struct drm_syncobj_timeline_array args = {
		.handles = (uintptr_t)&handle, .points = (uintptr_t)&point,
		.count_handles = 1,
	};

	igt_assert_eq(timeline_array_ioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL,
					   &args), -ENOENT);
	drm_close_driver(fd);
}

static const char *test_signal_array_desc =
	"Verifies the signaling of a list of timeline syncobj";
static void test_signal_array(int fd)
{
	uint32_t syncobjs[4];
	uint64_t points[4] = { 1, 1, 1, 0 };

	for (int i = 0; i < 4; i++)
		syncobjs[i] = syncobj_create(fd, 0);

	syncobj_timeline_signal(fd, syncobjs, points, 4);
	igt_assert_eq(syncobj_timeline_wait_err(fd, syncobjs, points, 3, 0, 0), 0);
	igt_assert_eq(syncobj_wait_err(fd, &syncobjs[3], 1, 0, 0), 0);

	for (int i = 0; i < 4; i++)
		syncobj_destroy(fd, syncobjs[i]);
}

static const char *test_transfer_illegal_handle_desc =
	"Verifies that an invalid syncobj handle is rejected in"
	" drm_syncobj_transfer";
static void test_transfer_illegal_handle(int fd)
{
	struct drm_syncobj_transfer args = { .src_point = 1 };

	do_ioctl_err(fd, DRM_IOCTL_SYNCOBJ_TRANSFER, &args, ENOENT);
}

static const char *test_transfer_bad_pad_desc =
	"Verifies that invalid drm_syncobj_transfer::pad field value is"
	" rejected";
static void test_transfer_bad_pad(int fd)
{
	struct drm_syncobj_transfer args = { .pad = 0xdeadbeef };

	do_ioctl_err(fd, DRM_IOCTL_SYNCOBJ_TRANSFER, &args, EINVAL);
}

static const char *test_transfer_nonexistent_point_desc =
	"Verifies that transfering a point from a syncobj timeline is to"
	" another point in the same timeline works";
static void test_transfer_nonexistent_point(int fd)
{
	uint32_t handle = syncobj_create(fd, 0);
	uint64_t value = 63, dst = 63 + 11;
	struct drm_syncobj_transfer args = {
		.src_handle = handle, .dst_handle = handle,
		.src_point = value, .dst_point = dst,
	};

	syncobj_timeline_signal(fd, &handle, &value, 1);
	do_ioctl(fd, DRM_IOCTL_SYNCOBJ_TRANSFER, &args);
	/* The new point is there, and signalled. */
	igt_assert_eq(syncobj_timeline_wait_err(fd, &handle, &dst, 1, 0, 0), 0);
	syncobj_destroy(fd, handle);
}

static const char *test_transfer_point_desc =
	"Verifies that transfering a point from a syncobj timeline is to"
	" another point in the same timeline works for signal/wait operations";
static void test_transfer_point(int fd)
{
	int timeline = sw_sync_timeline_create();
	uint32_t handle = syncobj_create(fd, 0);
	uint64_t value;

	syncobj_add_sw_sync_point(fd, handle, 1, timeline, 1);

	syncobj_timeline_query(fd, &handle, &value, 1);
	igt_assert_eq_u64(value, 0);

	value = 1;
	igt_assert_eq(syncobj_timeline_wait_err(fd, &handle, &value, 1, 0,
						DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL), -ETIME);

	sw_sync_timeline_inc(timeline, 1);
	syncobj_timeline_query(fd, &handle, &value, 1);
	igt_assert_eq_u64(value, 1);
	igt_assert(syncobj_timeline_wait(fd, &handle, &value, 1, 0,
					 DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL));

	value = 2;
	syncobj_timeline_signal(fd, &handle, &value, 1);
	syncobj_timeline_to_timeline(fd, handle, 3, handle, 2);
	syncobj_timeline_query(fd, &handle, &value, 1);
	igt_assert_eq_u64(value, 3);

	syncobj_destroy(fd, handle);
	close(timeline);
}

/* What the waits of single-wait with test flags @flags return. */
static int single_wait_expect(uint32_t flags)
{
	int err;

	if ((flags & WAIT_UNSUBMITTED) &&
	    !(flags & (WAIT_FOR_SUBMIT | WAIT_AVAILABLE)))
		err = -EINVAL;
	else if (!(flags & WAIT_SIGNALED) &&
		 !((flags & WAIT_SUBMITTED) && (flags & WAIT_AVAILABLE)))
		err = -ETIME;
	else
		err = 0;
	return err;
}

static const char *test_signal_wait_desc =
	"Verifies wait behavior on a single timeline syncobj";
static void test_single_wait(int fd, uint32_t test_flags, int expect)
{
	uint32_t syncobj = syncobj_create(fd, 0);
	uint64_t point = 1;
	int timeline = -1;

	if (test_flags & (WAIT_SUBMITTED | WAIT_SIGNALED))
		timeline = syncobj_attach_sw_sync(fd, syncobj, point);
	if (test_flags & WAIT_SIGNALED)
		sw_sync_timeline_inc(timeline, 1);

	syncobj_check_waits(fd, &syncobj, &point, 1, flags_for_test_flags(test_flags),
			    expect);

	syncobj_destroy(fd, syncobj);
	if (timeline != -1)
		close(timeline);
}

static const char *test_reset_unsignaled_desc =
	"Verifies behavior of a reset operation on an unsignaled timeline"
	" syncobj";
static void test_reset_unsignaled(int fd)
{
	uint32_t syncobj = syncobj_create(fd, 0);
	uint64_t point = 1;

	igt_assert_eq(syncobj_timeline_wait_err(fd, &syncobj, &point, 1, 0, 0), -EINVAL);
	syncobj_reset(fd, &syncobj, 1);
	igt_assert_eq(syncobj_timeline_wait_err(fd, &syncobj, &point, 1, 0, 0), -EINVAL);
	syncobj_destroy(fd, syncobj);
}

static const char *test_reset_signaled_desc =
	"Verifies behavior of a reset operation on a signaled timeline syncobj";
static void test_reset_signaled(int fd)
{
	uint32_t syncobj = syncobj_create(fd, 0);
	uint64_t point = 1;

	syncobj_trigger(fd, syncobj, point);
	igt_assert_eq(syncobj_timeline_wait_err(fd, &syncobj, &point, 1, 0, 0), 0);
	syncobj_reset(fd, &syncobj, 1);
	igt_assert_eq(syncobj_timeline_wait_err(fd, &syncobj, &point, 1, 0, 0), -EINVAL);
	syncobj_destroy(fd, syncobj);
}

static const char *test_reset_multiple_signaled_desc =
	"Verifies behavior of a reset operation on a list of signaled timeline"
	" syncobjs";
static void test_reset_multiple_signaled(int fd)
{
	uint64_t points[3] = { 1, 1, 1 };
	uint32_t syncobjs[3];

	for (int i = 0; i < 3; i++) {
		syncobjs[i] = syncobj_create(fd, 0);
		syncobj_trigger(fd, syncobjs[i], points[i]);
	}
	igt_assert_eq(syncobj_timeline_wait_err(fd, syncobjs, points, 3, 0, 0), 0);
	syncobj_reset(fd, syncobjs, 3);
	for (int i = 0; i < 3; i++) {
		igt_assert_eq(syncobj_timeline_wait_err(fd, &syncobjs[i], &points[i],
							1, 0, 0), -EINVAL);
		syncobj_destroy(fd, syncobjs[i]);
	}
}

static const char *test_reset_during_wait_for_submit_desc =
	"Verifies behavior of a reset operation on timeline syncobj while wait"
	" operation is ongoing";
static const char *test_signal_desc =
	"Verifies basic signaling of a timeline syncobj";
static void test_signal(int fd)
{
	uint32_t syncobj = syncobj_create(fd, 0);
	uint32_t flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
	uint64_t point = 1;

	igt_assert_eq(syncobj_timeline_wait_err(fd, &syncobj, &point, 1, 0, 0), -EINVAL);
	igt_assert_eq(syncobj_timeline_wait_err(fd, &syncobj, &point, 1, 0, flags), -ETIME);
	syncobj_timeline_signal(fd, &syncobj, &point, 1);
	igt_assert(syncobj_timeline_wait(fd, &syncobj, &point, 1, 0, 0, NULL));
	igt_assert(syncobj_timeline_wait(fd, &syncobj, &point, 1, 0, flags, NULL));
	syncobj_destroy(fd, syncobj);
}

static const char *test_signal_point_0_desc =
	"Verifies that signaling point 0 of a timline syncobj works with both"
	" timeline & legacy wait operations";
static void test_signal_point_0(int fd)
{
	uint32_t syncobj = syncobj_create(fd, 0);
	uint32_t flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
	uint64_t point = 0;

	syncobj_timeline_signal(fd, &syncobj, &point, 1);
	igt_assert(syncobj_timeline_wait(fd, &syncobj, &point, 1, 0, 0, NULL));
	igt_assert(syncobj_wait(fd, &syncobj, 1, 0, flags, NULL));
	syncobj_destroy(fd, syncobj);
}

/* What the waits of multi-wait with test flags @flags return. */
static int multi_wait_expect(uint32_t flags)
{
	int err = 0;

	if ((flags & WAIT_UNSUBMITTED) &&
	    !(flags & (WAIT_FOR_SUBMIT | WAIT_AVAILABLE))) {
		err = -EINVAL;
	} else if (flags & WAIT_ALL) {
		if (flags & (WAIT_UNSUBMITTED | WAIT_SUBMITTED))
			err = -ETIME;
		if (!(flags & WAIT_UNSUBMITTED) && (flags & WAIT_SUBMITTED) &&
		    (flags & WAIT_AVAILABLE))
			err = 0;
	} else {
		if (!(flags & WAIT_SIGNALED) &&
		    !((flags & WAIT_SUBMITTED) && (flags & WAIT_AVAILABLE)))
			err = -ETIME;
	}
	return err;
}

static const char *test_multi_wait_desc =
	"Verifies waiting on a list of timeline syncobjs";
/*
 * Five syncobjs, three timelines and two binary ones, in the states of
 * @test_flags, lowest state first, the last one repeated.
 */
static void test_multi_wait(int fd, uint32_t test_flags, int expect)
{
	uint64_t points[5] = {
		1 + rand() % 1000,
		0,	/* binary */
		1 + rand() % 1000,
		1 + rand() % 1000,
		0,	/* binary */
	};
	uint32_t flags = flags_for_test_flags(test_flags);
	int timelines[5] = { -1, -1, -1, -1, -1 };
	uint32_t syncobjs[5];

	for (int i = 0; i < 5; i++)
		syncobjs[i] = syncobj_create(fd, 0);

	test_flags &= ~(WAIT_ALL | WAIT_FOR_SUBMIT | WAIT_AVAILABLE);
	for (int i = 0; i < 5; i++) {
		uint32_t tflag = 1u << (ffs(test_flags) - 1);

		if (test_flags & ~tflag)
			test_flags &= ~tflag;
		if (tflag & (WAIT_SUBMITTED | WAIT_SIGNALED))
			timelines[i] = syncobj_attach_sw_sync(fd, syncobjs[i], points[i]);
		if (tflag & WAIT_SIGNALED)
			sw_sync_timeline_inc(timelines[i], 1);
	}

	syncobj_check_waits(fd, syncobjs, points, 5, flags, expect);

	for (int i = 0; i < 5; i++) {
		syncobj_destroy(fd, syncobjs[i]);
		if (timelines[i] != -1)
			close(timelines[i]);
	}
}

static const char *test_host_signal_points_desc =
	"Verifies that as we signal points from the host, the syncobj timeline"
	" value increments and that waits for submits/signals works properly.";
static void test_host_signal_points(int fd)
{
	uint32_t syncobj = syncobj_create(fd, 0);
	uint64_t value = 0;

	for (int i = 0; i < 100; i++) {
		uint64_t query_value = 0;

		value += 1 + rand();
		syncobj_timeline_signal(fd, &syncobj, &value, 1);
		syncobj_timeline_query(fd, &syncobj, &query_value, 1);
		igt_assert_eq_u64(query_value, value);

		igt_assert(syncobj_timeline_wait(fd, &syncobj, &query_value, 1, 0,
						 DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
						 NULL));
		query_value -= 1;
		igt_assert(syncobj_timeline_wait(fd, &syncobj, &query_value, 1, 0,
						 DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL));
	}
	syncobj_destroy(fd, syncobj);
}

static const char *test_device_signal_unordered_desc =
	"Verifies that a device signaling fences out of order on the timeline"
	" still increments the timeline monotonically and that waits work"
	" properly.";
static void test_device_signal_unordered(int fd)
{
	/* Point n + 1 gets the fence that signals point_indices[n]-th. */
	static const int point_indices[] = { 0, 2, 1, 4, 3 };
	bool signaled[ARRAY_SIZE(point_indices)] = {};
	int fences[ARRAY_SIZE(point_indices)];
	uint32_t syncobj = syncobj_create(fd, 0);
	int timeline = sw_sync_timeline_create();
	uint64_t value = 0;

	for (unsigned int i = 0; i < ARRAY_SIZE(fences); i++)
		fences[point_indices[i]] = sw_sync_timeline_create_fence(timeline, i + 1);

	for (unsigned int i = 0; i < ARRAY_SIZE(fences); i++) {
		uint32_t tmp = syncobj_create(fd, 0);

		syncobj_import_sync_file(fd, tmp, fences[i]);
		syncobj_binary_to_timeline(fd, syncobj, i + 1, tmp);
		syncobj_destroy(fd, tmp);
	}

	for (unsigned int i = 0; i < ARRAY_SIZE(fences); i++) {
		uint64_t query_value = 0, min_value = 0;

		sw_sync_timeline_inc(timeline, 1);
		signaled[point_indices[i]] = true;

		/* The timeline is at least at its lowest signalled point. */
		for (unsigned int j = 0; j < ARRAY_SIZE(signaled); j++) {
			if (!signaled[j])
				break;
			min_value = j;
		}

		syncobj_timeline_query(fd, &syncobj, &query_value, 1);
		igt_assert_lte_u64(min_value, query_value);
		igt_assert_lte_u64(value, query_value);
		igt_debug("signalling point %i, timeline value = %" PRIu64 "\n",
			  point_indices[i] + 1, query_value);
		value = query_value > value ? query_value : value;

		igt_assert(syncobj_timeline_wait(fd, &syncobj, &query_value, 1, 0,
						 DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
						 NULL));
		igt_assert(syncobj_timeline_wait(fd, &syncobj, &query_value, 1, 0,
						 DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL));
	}

	for (unsigned int i = 0; i < ARRAY_SIZE(fences); i++)
		close(fences[i]);
	syncobj_destroy(fd, syncobj);
	close(timeline);
}

static const char *test_device_submit_unordered_desc =
	"Verifies that submitting out of order doesn't break the timeline.";
static void test_device_submit_unordered(int fd)
{
	static const uint64_t points[] = { 1, 5, 3, 6, 7 };
	uint32_t syncobj = syncobj_create(fd, 0);
	int timeline = sw_sync_timeline_create();
	uint64_t query_value;

	for (unsigned int i = 0; i < ARRAY_SIZE(points); i++)
		syncobj_add_sw_sync_point(fd, syncobj, points[i], timeline, i + 1);

	/*
	 * Signal points 1, 5 & 3.  There are no other points <= 5 so
	 * waiting on 5 returns at once for submission and signalling.
	 */
	sw_sync_timeline_inc(timeline, 3);
	syncobj_timeline_query(fd, &syncobj, &query_value, 1);
	igt_assert_eq_u64(query_value, 5);
	igt_assert(syncobj_timeline_wait(fd, &syncobj, &query_value, 1, 0,
					 DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL));
	igt_assert(syncobj_timeline_wait(fd, &syncobj, &query_value, 1, 0,
					 DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL));

	syncobj_destroy(fd, syncobj);
	close(timeline);
}

static const char *test_host_signal_ordered_desc =
	"Verifies that the host signaling fences out of order on the timeline"
	" still increments the timeline monotonically and that waits work"
	" properly.";
static void test_host_signal_ordered(int fd)
{
	uint32_t syncobj = syncobj_create(fd, 0);
	int timeline = sw_sync_timeline_create();
	uint64_t host_signal_value = 8, query_value;

	for (unsigned int i = 0; i < 5; i++)
		syncobj_add_sw_sync_point(fd, syncobj, i + 1, timeline, i + 1);

	sw_sync_timeline_inc(timeline, 3);
	syncobj_timeline_query(fd, &syncobj, &query_value, 1);
	igt_assert_eq_u64(query_value, 3);

	/* Point 8 signalled by the host waits behind points 4 and 5. */
	syncobj_timeline_signal(fd, &syncobj, &host_signal_value, 1);
	syncobj_timeline_query(fd, &syncobj, &query_value, 1);
	igt_assert_eq_u64(query_value, 3);

	sw_sync_timeline_inc(timeline, 5);
	syncobj_timeline_query(fd, &syncobj, &query_value, 1);
	igt_assert_eq_u64(query_value, 8);

	syncobj_destroy(fd, syncobj);
	close(timeline);
}

/* Queries @syncobj until told to stop; notes any step backwards. */
struct checker {
	int fd;
	uint32_t syncobj;
	bool running, started, went_back;
	int err;
	uint64_t from, to;
};

static void *checker_func(void *data)
{
	struct checker *c = data;
	uint64_t value, last_value = 0;

	block_signals();
	while (__atomic_load_n(&c->running, __ATOMIC_ACQUIRE)) {
		struct drm_syncobj_timeline_array args = {
			.handles = (uintptr_t)&c->syncobj,
			.points = (uintptr_t)&value, .count_handles = 1,
		};

		if (igt_ioctl(c->fd, DRM_IOCTL_SYNCOBJ_QUERY, &args)) {
			c->err = -errno;
			break;
		}
		__atomic_store_n(&c->started, true, __ATOMIC_RELEASE);
		if (value < last_value && !c->went_back) {
			c->went_back = true;
			c->from = last_value;
			c->to = value;
		}
		last_value = value;
	}
	__atomic_store_n(&c->started, true, __ATOMIC_RELEASE);
	return NULL;
}

static const char *test_32bits_limit_desc =
	"Verifies that signaling around the int32_t limit. For compatibility"
	" reason, the handling of seqnos in the dma-fences can consider a seqnoA"
	" is prior seqnoB even though seqnoA > seqnoB.";
/* Fixed in kernel commit b312d8ca3a7c ("dma-buf: make fence sequence numbers 64 bit v2"). */
static void test_32bits_limit(int fd)
{
	const uint64_t limit_diff = (1ull << 31) - 1;
	const uint64_t points[] = {
		1, 5, limit_diff + 5, limit_diff + 6, limit_diff * 2,
	};
	struct checker *c = calloc(1, sizeof(*c));
	int timeline = sw_sync_timeline_create();
	uint64_t value, last_value = 0;
	pthread_t thread;

	igt_assert(c);
	c->fd = fd;
	c->syncobj = syncobj_create(fd, 0);
	c->running = true;
	igt_assert_eq(pthread_create(&thread, NULL, checker_func, c), 0);
	while (!__atomic_load_n(&c->started, __ATOMIC_ACQUIRE))
		sched_yield();

	for (unsigned int i = 0; i < ARRAY_SIZE(points); i++)
		syncobj_add_sw_sync_point(fd, c->syncobj, points[i], timeline, i + 1);

	for (unsigned int i = 0; i < ARRAY_SIZE(points); i++) {
		sw_sync_timeline_inc(timeline, 1);
		syncobj_timeline_query(fd, &c->syncobj, &value, 1);
		igt_assert_lte_u64(last_value, value);
		last_value = value;
	}
	igt_assert_eq_u64(last_value, limit_diff * 2);

	__atomic_store_n(&c->running, false, __ATOMIC_RELEASE);
	igt_assert_eq(pthread_join(thread, NULL), 0);
	igt_assert_eq(c->err, 0);
	igt_assert_f(!c->went_back, "timeline went back from %" PRIu64 " to %" PRIu64 "\n",
		     c->from, c->to);

	syncobj_destroy(fd, c->syncobj);
	free(c);
	close(timeline);
}

/*
 * Two engine jobs on one timeline: the first, held back by a sw_sync
 * gate, signals point 1; the second waits for point 1 and signals 2.
 */
/*
 * The sw_sync timeline holding an engine job back.  A subtest that fails
 * before releasing it leaves the job waiting; closing the DRM file would
 * then wait for the job (drm_sched_entity_flush()) and never return, so
 * the last fixture closes it first.
 */
static int job_gate = -1;

static void test_gembuf_job_timeline(int fd)
{
	struct drm_gembuf_sync gate_sync = { .handle = syncobj_create(fd, 0) };
	uint32_t t = syncobj_create(fd, 0), binary = syncobj_create(fd, 0);
	struct drm_gembuf_sync p1 = { .handle = t, .point = 1 };
	struct drm_gembuf_sync p2 = { .handle = t, .point = 2 };
	uint32_t a = gembuf_create(fd, 4096, 0, GEMBUF_CACHE_WB);
	uint32_t b = gembuf_create(fd, 4096, 0, GEMBUF_CACHE_WB);
	struct drm_gembuf_dma_fill fill_a = {
		.handle = a, .size = 4096, .value = 0xaaaa0001,
		.in_syncs = (uintptr_t)&gate_sync, .in_sync_count = 1, .out_sync = p1,
	};
	struct drm_gembuf_dma_fill fill_b = {
		.handle = b, .size = 4096, .value = 0xbbbb0002,
		.in_syncs = (uintptr_t)&p1, .in_sync_count = 1, .out_sync = p2,
	};
	int gate = job_gate = syncobj_attach_sw_sync(fd, gate_sync.handle, 0);
	struct drm_syncobj_timeline_array last = {
		.handles = (uintptr_t)&t, .count_handles = 1,
		.flags = DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED,
	};
	uint64_t value, point;

	do_ioctl(fd, DRM_IOCTL_GEMBUF_DMA_FILL, &fill_a);
	do_ioctl(fd, DRM_IOCTL_GEMBUF_DMA_FILL, &fill_b);

	/* Both points submitted, none signalled. */
	syncobj_timeline_query(fd, &t, &value, 1);
	igt_assert_eq_u64(value, 0);
	last.points = (uintptr_t)&value;
	do_ioctl(fd, DRM_IOCTL_SYNCOBJ_QUERY, &last);
	igt_assert_eq_u64(value, 2);
	point = 2;
	igt_assert_eq(syncobj_timeline_wait_err(fd, &t, &point, 1, 0,
						DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE), 0);
	point = 1;
	igt_assert_eq(syncobj_timeline_wait_err(fd, &t, &point, 1, short_timeout(), 0),
		      -ETIME);
	point = 3;
	igt_assert_eq(syncobj_timeline_wait_err(fd, &t, &point, 1, 0, 0), -EINVAL);
	igt_assert_eq(syncobj_timeline_wait_err(fd, &t, &point, 1, short_timeout(),
						DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE),
		      -ETIME);

	/* Open the gate: both jobs run, in order, and the timeline reaches 2. */
	sw_sync_timeline_inc(gate, 1);
	point = 2;
	igt_assert(syncobj_timeline_wait(fd, &t, &point, 1, long_timeout(), 0, NULL));
	syncobj_timeline_query(fd, &t, &value, 1);
	igt_assert_eq_u64(value, 2);
	gembuf_check_words(fd, a, 4096, 0xaaaa0001);
	gembuf_check_words(fd, b, 4096, 0xbbbb0002);

	/* Point 1, the first job's fence, moved into a binary syncobj. */
	syncobj_timeline_to_binary(fd, binary, t, 1, 0);
	igt_assert_eq(syncobj_wait_err(fd, &binary, 1, 0, 0), 0);

	close(gate);
	job_gate = -1;
	gem_close(fd, a);
	gem_close(fd, b);
	syncobj_destroy(fd, binary);
	syncobj_destroy(fd, t);
	syncobj_destroy(fd, gate_sync.handle);
}

static bool has_syncobj_timeline_wait(int fd)
{
	uint32_t handle = 0;
	struct drm_syncobj_timeline_wait wait = {
		.handles = (uintptr_t)&handle, .count_handles = 1,
	};
	uint64_t value;

	if (drmGetCap(fd, DRM_CAP_SYNCOBJ_TIMELINE, &value) || !value)
		return false;
	/* Waiting for a handle that does not exist is -ENOENT. */
	return __syncobj_timeline_wait_ioctl(fd, &wait) == -ENOENT;
}

static const char test_wait_delayed_signal_desc[] =
	"Verifies wait behavior on a timeline syncobj with a delayed signal"
	" from a different thread";
static const char test_wait_snapshot_desc[] =
	"Verifies waiting on a list of timeline syncobjs with different thread"
	" for wait/signal";
static const char test_wait_complex_desc[] =
	"Verifies timeline syncobj at different signal/operations stages &"
	" between different threads.";
static const char test_wait_interrupted_desc[] =
	"Verifies timeline syncobj waits interaction with signals.";

/*
 * Subtests shared with syncobj_wait (see syncobj_helpers.c): waits that
 * end when the test thread signals...
 */
static const struct syncobj_subtest delayed_subtests[] = {
	{ "wait-delayed-signal", syncobj_test_wait_delayed_signal, 0,
	  test_wait_delayed_signal_desc },
	{ "wait-for-submit-delayed-submit", syncobj_test_wait_delayed_signal,
	  WAIT_FOR_SUBMIT, test_wait_delayed_signal_desc },
	{ "wait-all-delayed-signal", syncobj_test_wait_delayed_signal, WAIT_ALL,
	  test_wait_delayed_signal_desc },
	{ "wait-all-for-submit-delayed-submit", syncobj_test_wait_delayed_signal,
	  WAIT_ALL | WAIT_FOR_SUBMIT, test_wait_delayed_signal_desc },
};

/* ...and waits the test thread changes the syncobjs under, or interrupts. */
static const struct syncobj_subtest racing_subtests[] = {
	{ "wait-any-snapshot", syncobj_test_wait_snapshot, 0,
	  test_wait_snapshot_desc },
	{ "wait-all-snapshot", syncobj_test_wait_snapshot, WAIT_ALL,
	  test_wait_snapshot_desc },
	{ "wait-for-submit-snapshot", syncobj_test_wait_snapshot,
	  WAIT_FOR_SUBMIT, test_wait_snapshot_desc },
	{ "wait-all-for-submit-snapshot", syncobj_test_wait_snapshot,
	  WAIT_ALL | WAIT_FOR_SUBMIT, test_wait_snapshot_desc },
	{ "wait-any-complex", syncobj_test_wait_complex, 0,
	  test_wait_complex_desc },
	{ "wait-all-complex", syncobj_test_wait_complex, WAIT_ALL,
	  test_wait_complex_desc },
	{ "wait-for-submit-complex", syncobj_test_wait_complex, WAIT_FOR_SUBMIT,
	  test_wait_complex_desc },
	{ "wait-all-for-submit-complex", syncobj_test_wait_complex,
	  WAIT_ALL | WAIT_FOR_SUBMIT, test_wait_complex_desc },
	{ "wait-any-interrupted", syncobj_test_wait_interrupted, 0,
	  test_wait_interrupted_desc },
	{ "wait-all-interrupted", syncobj_test_wait_interrupted, WAIT_ALL,
	  test_wait_interrupted_desc },
};

igt_main
{
	int fd = -1;

	igt_fixture {
		fd = gembuf_open_engine();
		igt_require(has_syncobj_timeline_wait(fd));
		igt_require(kernel_has_sw_sync());
	}

	igt_describe(test_wait_bad_flags_desc);
	igt_subtest("invalid-wait-bad-flags")
		test_wait_bad_flags(fd);

	igt_describe(test_wait_zero_handles_desc);
	igt_subtest("wait-zero-handles")
		test_wait_zero_handles(fd);

	igt_describe(test_wait_illegal_handle_desc);
	igt_subtest("invalid-wait-illegal-handle")
		test_wait_illegal_handle(fd);

	igt_describe("Verifies that querying an empty list of syncobj handles is rejected");
	igt_subtest("invalid-query-zero-handles")
		test_array_zero_handles(fd, DRM_IOCTL_SYNCOBJ_QUERY);

	igt_describe("Verifies that querying an invalid syncobj handle is rejected");
	igt_subtest("invalid-query-illegal-handle")
		test_array_illegal_handle(fd, DRM_IOCTL_SYNCOBJ_QUERY);

	igt_describe("Verifies that querying a list of invalid syncobj handle including an invalid one is rejected");
	igt_subtest("invalid-query-one-illegal-handle")
		test_array_one_illegal_handle(fd, DRM_IOCTL_SYNCOBJ_QUERY);

	igt_describe("Verify that querying a timeline syncobj with an invalid drm_syncobj_timeline_array::flags field is rejected");
	igt_subtest("invalid-query-bad-pad")
		test_array_bad_pad(fd, DRM_IOCTL_SYNCOBJ_QUERY);

	igt_describe("Verify that signaling an empty list of syncobj handles is rejected");
	igt_subtest("invalid-signal-zero-handles")
		test_array_zero_handles(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL);

	igt_describe("Verify that signaling an invalid syncobj handle is rejected");
	igt_subtest("invalid-signal-illegal-handle")
		test_array_illegal_handle(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL);

	igt_describe("Verify that signaling point 0 of a handle that does not exist is rejected");
	igt_subtest("invalid-signal-illegal-point")
		test_signal_illegal_point();

	igt_describe("Verify that an invalid syncobj handle in drm_syncobj_timeline_array is rejected for signaling");
	igt_subtest("invalid-signal-one-illegal-handle")
		test_array_one_illegal_handle(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL);

	igt_describe("Verifies that an invalid value in drm_syncobj_timeline_array.flags is rejected");
	igt_subtest("invalid-signal-bad-pad")
		test_array_bad_pad(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL);

	igt_describe(test_signal_array_desc);
	igt_subtest("signal-array")
		test_signal_array(fd);

	igt_describe(test_transfer_illegal_handle_desc);
	igt_subtest("invalid-transfer-illegal-handle")
		test_transfer_illegal_handle(fd);

	igt_describe(test_transfer_bad_pad_desc);
	igt_subtest("invalid-transfer-bad-pad")
		test_transfer_bad_pad(fd);

	igt_describe(test_transfer_nonexistent_point_desc);
	igt_subtest("invalid-transfer-non-existent-point")
		test_transfer_nonexistent_point(fd);

	igt_describe(test_transfer_point_desc);
	igt_subtest("transfer-timeline-point")
		test_transfer_point(fd);

	syncobj_wait_subtests(fd, 1, false, single_wait_expect, test_single_wait,
			      test_signal_wait_desc);

	syncobj_subtests(fd, 1, delayed_subtests, ARRAY_SIZE(delayed_subtests));

	igt_describe(test_reset_unsignaled_desc);
	igt_subtest("reset-unsignaled")
		test_reset_unsignaled(fd);

	igt_describe(test_reset_signaled_desc);
	igt_subtest("reset-signaled")
		test_reset_signaled(fd);

	igt_describe(test_reset_multiple_signaled_desc);
	igt_subtest("reset-multiple-signaled")
		test_reset_multiple_signaled(fd);

	igt_describe(test_reset_during_wait_for_submit_desc);
	igt_subtest("reset-during-wait-for-submit")
		syncobj_test_reset_during_wait_for_submit(fd, 1);

	igt_describe(test_signal_desc);
	igt_subtest("signal")
		test_signal(fd);

	igt_describe(test_signal_point_0_desc);
	igt_subtest("signal-point-0")
		test_signal_point_0(fd);

	syncobj_wait_subtests(fd, 1, true, multi_wait_expect, test_multi_wait,
			      test_multi_wait_desc);

	syncobj_subtests(fd, 1, racing_subtests, ARRAY_SIZE(racing_subtests));

	igt_describe(test_host_signal_points_desc);
	igt_subtest("host-signal-points")
		test_host_signal_points(fd);

	igt_describe(test_device_signal_unordered_desc);
	igt_subtest("device-signal-unordered")
		test_device_signal_unordered(fd);

	igt_describe(test_device_submit_unordered_desc);
	igt_subtest("device-submit-unordered")
		test_device_submit_unordered(fd);

	igt_describe(test_host_signal_ordered_desc);
	igt_subtest("host-signal-ordered")
		test_host_signal_ordered(fd);

	igt_describe(test_32bits_limit_desc);
	igt_subtest("32bits-limit")
		test_32bits_limit(fd);

	igt_describe("gembuf: timeline points signalled by DMA engine jobs, one waiting for the other; query, WAIT_AVAILABLE and transfer on them.");
	igt_subtest("gembuf-job-timeline")
		test_gembuf_job_timeline(fd);

	igt_fixture {
		if (job_gate >= 0)
			close(job_gate);
		drm_close_driver(fd);
	}
}
