// SPDX-License-Identifier: MIT
/* fail-nth and the fault-injection knobs it needs: see failnth.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "igt.h"
#include "failnth.h"

static int failnth = -1;

static struct knob {
	const char *path, *value;
	char saved[32];
	bool set;
} knobs[] = {
	/* Y would skip every allocation that may sleep: nearly all. */
	{ .path = "failslab/ignore-gfp-wait", .value = "N" },
	{ .path = "failslab/cache-filter", .value = "N" },
	/* fail-nth ignores probability, interval, space and times... */
	{ .path = "failslab/probability", .value = "0" },
	/* ...but counts times down unless it is -1. */
	{ .path = "failslab/times", .value = "-1" },
	/* 2 by default: a stack dump per failure. */
	{ .path = "failslab/verbose", .value = "0" },
	{ .path = "fail_page_alloc/ignore-gfp-wait", .value = "N" },
	{ .path = "fail_page_alloc/ignore-gfp-highmem", .value = "N" },
	{ .path = "fail_page_alloc/min-order", .value = "0" },
	{ .path = "fail_page_alloc/probability", .value = "0" },
	{ .path = "fail_page_alloc/times", .value = "-1" },
	{ .path = "fail_page_alloc/verbose", .value = "0" },
};

static bool knob_io(const char *name, char *buf, size_t len, bool write_it)
{
	char path[128];
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "/sys/kernel/debug/%s", name);
	fd = open(path, write_it ? O_WRONLY : O_RDONLY);
	if (fd < 0)
		return false;
	if (write_it) {
		r = write(fd, buf, strlen(buf));
	} else {
		r = read(fd, buf, len - 1);
		buf[r > 0 ? r : 0] = 0;
		buf[strcspn(buf, "\n")] = 0;
	}
	close(fd);
	return r > 0;
}

static void knobs_restore(void)
{
	for (int i = ARRAY_SIZE(knobs) - 1; i >= 0; i--) {
		if (!knobs[i].set)
			continue;
		knobs[i].set = false;
		if (!knob_io(knobs[i].path, knobs[i].saved, 0, true))
			igt_warn("could not restore %s to %s\n", knobs[i].path,
				 knobs[i].saved);
	}
}

/* Save every knob first: a missing one skips with nothing changed. */
static void knobs_set(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(knobs); i++)
		igt_require_f(knob_io(knobs[i].path, knobs[i].saved,
				      sizeof(knobs[i].saved), false),
			      "no /sys/kernel/debug/%s\n", knobs[i].path);
	/* Restored by the last fixture, or at exit if it does not run. */
	atexit(knobs_restore);
	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		knobs[i].set = true;
		igt_assert_f(knob_io(knobs[i].path, (char *)knobs[i].value, 0, true),
			     "cannot write %s to %s\n", knobs[i].value, knobs[i].path);
	}
}

void failnth_arm(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	igt_assert_eq(pwrite(failnth, buf, len, 0), len);
}

unsigned int failnth_disarm(void)
{
	char buf[16] = {};
	ssize_t r = pread(failnth, buf, sizeof(buf) - 1, 0);
	ssize_t w = pwrite(failnth, "0", 1, 0);

	igt_assert(r > 0 && w == 1);
	return strtoul(buf, NULL, 10);
}

void failnth_setup(void)
{
	failnth = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	igt_require_f(failnth >= 0, "no /proc/thread-self/fail-nth: %s\n",
		      strerror(errno));
	knobs_set();
}

void failnth_teardown(void)
{
	close(failnth);
	failnth = -1;
	knobs_restore();
}
