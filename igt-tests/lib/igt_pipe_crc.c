// SPDX-License-Identifier: MIT
/* Pipe CRCs through debugfs, after igt's lib/igt_debugfs.c; see igt_pipe_crc.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "igt.h"
#include "igt_kms.h"
#include "igt_pipe_crc.h"

struct _igt_pipe_crc {
	int ctl_fd;
	int crc_fd;
	int flags;
	int pipe;
	char dir[96];
	char source[32];
};

/* The debugfs directory of a DRM fd: dri/<minor of its node>. */
static void debugfs_dir(int fd, char *dir, size_t len)
{
	struct stat st;

	igt_assert_eq(fstat(fd, &st), 0);
	igt_assert(S_ISCHR(st.st_mode));
	snprintf(dir, len, "/sys/kernel/debug/dri/%u", minor(st.st_rdev));
}

static igt_pipe_crc_t *pipe_crc_new(int fd, int pipe, const char *source, int flags)
{
	igt_pipe_crc_t *p = calloc(1, sizeof(*p));
	char path[160];

	igt_assert(p && source && strlen(source) < sizeof(p->source));
	debugfs_dir(fd, p->dir, sizeof(p->dir));
	snprintf(path, sizeof(path), "%s/crtc-%d/crc/control", p->dir, pipe);
	p->ctl_fd = open(path, O_WRONLY);
	igt_require_f(p->ctl_fd >= 0, "no CRC control at %s\n", path);
	p->crc_fd = -1;
	p->flags = flags;
	p->pipe = pipe;
	strcpy(p->source, source);
	return p;
}

/**
 * igt_pipe_crc_new() - a CRC collector for one CRTC, reads block
 * @fd: the DRM fd
 * @pipe: the CRTC index
 * @source: the CRC source, IGT_PIPE_CRC_SOURCE_AUTO for the driver's own
 */
igt_pipe_crc_t *igt_pipe_crc_new(int fd, int pipe, const char *source)
{
	return pipe_crc_new(fd, pipe, source, O_RDONLY);
}

/**
 * igt_pipe_crc_new_nonblock() - igt_pipe_crc_new() with non-blocking reads
 * @fd: the DRM fd
 * @pipe: the CRTC index
 * @source: the CRC source
 */
igt_pipe_crc_t *igt_pipe_crc_new_nonblock(int fd, int pipe, const char *source)
{
	return pipe_crc_new(fd, pipe, source, O_RDONLY | O_NONBLOCK);
}

/** igt_pipe_crc_free() - stop and free a collector @pipe_crc */
void igt_pipe_crc_free(igt_pipe_crc_t *pipe_crc)
{
	if (!pipe_crc)
		return;
	igt_pipe_crc_stop(pipe_crc);
	close(pipe_crc->ctl_fd);
	free(pipe_crc);
}

/** igt_pipe_crc_start() - set the source and open the data file of @pipe_crc */
void igt_pipe_crc_start(igt_pipe_crc_t *pipe_crc)
{
	char path[160];
	ssize_t n;

	igt_assert_eq(pipe_crc->crc_fd, -1);
	n = write(pipe_crc->ctl_fd, pipe_crc->source, strlen(pipe_crc->source));
	igt_assert_eq(n, (ssize_t)strlen(pipe_crc->source));
	snprintf(path, sizeof(path), "%s/crtc-%d/crc/data", pipe_crc->dir, pipe_crc->pipe);
	pipe_crc->crc_fd = open(path, pipe_crc->flags);
	igt_assert_f(pipe_crc->crc_fd >= 0, "open %s: %s\n", path, strerror(errno));
	/* As upstream: return once the first CRC is there, without reading it. */
	{
		struct pollfd pfd = { .fd = pipe_crc->crc_fd, .events = POLLIN };

		igt_assert_f(poll(&pfd, 1, 10000) == 1, "no first CRC within 10 s\n");
	}
}

/** igt_pipe_crc_stop() - close the data file of @pipe_crc, ending the capture */
void igt_pipe_crc_stop(igt_pipe_crc_t *pipe_crc)
{
	if (pipe_crc->crc_fd >= 0)
		close(pipe_crc->crc_fd);
	pipe_crc->crc_fd = -1;
}

/*
 * One entry of the data file: the frame as "0x%08x" (or "XXXXXXXXXX"
 * without one), then one " 0x%08x" per CRC word.  Returns 1 for a CRC, 0 when a
 * non-blocking read found none, -errno otherwise.
 */
static int read_one_crc(igt_pipe_crc_t *p, igt_crc_t *out)
{
	char buf[16 * (DRM_MAX_CRC_NR + 1)], *s, *end;
	ssize_t n;

	n = read(p->crc_fd, buf, sizeof(buf) - 1);
	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	if (n == 0)
		return -EINVAL;
	buf[n] = '\0';
	memset(out, 0, sizeof(*out));
	out->has_valid_frame = strncmp(buf, "XXXXXXXXXX", 10) != 0;
	if (out->has_valid_frame)
		out->frame = strtoul(buf, &s, 16);
	else
		s = buf + 10;
	while (out->n_words < DRM_MAX_CRC_NR) {
		unsigned long v = strtoul(s, &end, 16);

		if (end == s)
			break;
		out->crc[out->n_words++] = v;
		s = end;
	}
	return out->n_words ? 1 : -EINVAL;
}

/**
 * igt_pipe_crc_get_crcs() - read up to @n CRCs already captured
 * @pipe_crc: the collector, started
 * @n: most CRCs wanted
 * @out_crcs: receives a malloc()ed array, for free()
 *
 * Blocking collectors wait for @n CRCs; non-blocking ones return what
 * was there.
 *
 * Return: the number of CRCs read.
 */
int igt_pipe_crc_get_crcs(igt_pipe_crc_t *pipe_crc, int n, igt_crc_t **out_crcs)
{
	igt_crc_t *crcs = calloc(n, sizeof(*crcs));
	int got = 0, ret;

	igt_assert(crcs);
	while (got < n) {
		ret = read_one_crc(pipe_crc, &crcs[got]);
		igt_assert_f(ret >= 0, "CRC read: %s\n", strerror(-ret));
		if (ret == 0)
			break;
		got++;
	}
	*out_crcs = crcs;
	return got;
}

/**
 * igt_pipe_crc_get_single() - wait for the next CRC
 * @pipe_crc: the collector, started
 * @crc: receives it
 */
void igt_pipe_crc_get_single(igt_pipe_crc_t *pipe_crc, igt_crc_t *crc)
{
	struct pollfd pfd = { .fd = pipe_crc->crc_fd, .events = POLLIN };
	int ret;

	do {
		igt_assert_f(poll(&pfd, 1, 10000) == 1, "no CRC within 10 s\n");
		ret = read_one_crc(pipe_crc, crc);
		igt_assert_f(ret >= 0, "CRC read: %s\n", strerror(-ret));
	} while (ret == 0);
}

/**
 * igt_pipe_crc_get_current() - the CRC of a frame begun after this call
 * @drm_fd: the DRM fd
 * @pipe_crc: the collector, started
 * @crc: receives it
 *
 * CRCs already queued for earlier frames are skipped: what was written
 * to a buffer before the call is in the frame this returns.
 */
void igt_pipe_crc_get_current(int drm_fd, igt_pipe_crc_t *pipe_crc, igt_crc_t *crc)
{
	uint32_t frame = kmstest_get_vblank(drm_fd, pipe_crc->pipe, 0) + 1;

	do {
		igt_pipe_crc_get_single(pipe_crc, crc);
	} while (!crc->has_valid_frame || (int32_t)(crc->frame - frame) < 0);
}

/**
 * igt_pipe_crc_collect_crc() - start, take one CRC, stop
 * @pipe_crc: the collector, stopped
 * @out_crc: receives the CRC
 */
void igt_pipe_crc_collect_crc(igt_pipe_crc_t *pipe_crc, igt_crc_t *out_crc)
{
	igt_pipe_crc_start(pipe_crc);
	igt_pipe_crc_get_single(pipe_crc, out_crc);
	igt_pipe_crc_stop(pipe_crc);
}

/** igt_check_crc_equal() - whether CRCs @a and @b have the same words */
bool igt_check_crc_equal(const igt_crc_t *a, const igt_crc_t *b)
{
	if (a->n_words != b->n_words)
		return false;
	return !memcmp(a->crc, b->crc, a->n_words * sizeof(a->crc[0]));
}

/** igt_assert_crc_equal() - fail unless CRCs @a and @b are equal */
void igt_assert_crc_equal(const igt_crc_t *a, const igt_crc_t *b)
{
	igt_assert_f(igt_check_crc_equal(a, b), "CRC mismatch: %s vs %s\n",
		     igt_crc_to_string(a), igt_crc_to_string(b));
}

/** igt_crc_to_string() - the words of @crc as text, malloc()ed as in igt */
char *igt_crc_to_string(const igt_crc_t *crc)
{
	char *buf = malloc(9 * DRM_MAX_CRC_NR + 1);
	int len = 0;

	igt_assert(buf);
	buf[0] = '\0';
	for (int i = 0; i < crc->n_words; i++)
		len += snprintf(buf + len, 10, "%s%08x", i ? " " : "", crc->crc[i]);
	return buf;
}

int igt_debugfs_dir(int device)
{
	char dir[96];

	debugfs_dir(device, dir, sizeof(dir));
	return open(dir, O_RDONLY | O_DIRECTORY);
}

bool igt_sysfs_set(int dir, const char *attr, const char *value)
{
	int fd = openat(dir, attr, O_WRONLY);
	ssize_t n;
	int err;

	if (fd < 0)
		return false;
	n = write(fd, value, strlen(value));
	err = errno;
	close(fd);
	errno = err;
	return n == (ssize_t)strlen(value);
}
