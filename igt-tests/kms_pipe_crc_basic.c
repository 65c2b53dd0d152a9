// SPDX-License-Identifier: MIT
/*
 * kms_pipe_crc_basic: the pipe CRC contract of upstream igt's test of
 * this name, with its subtest names, on every CRTC: CRCs of an unchanged
 * frame are equal and come one a frame, blocking and non-blocking reads,
 * a bad source is refused with EINVAL, equal pictures in XR24 and NV12
 * give equal CRCs, and a capture survives its CRTC going off and on.
 * Besides upstream's: a black frame's CRC is not all zeros, which
 * upstream's CRC reader warns about as a dead CRC; and the control file
 * lists the driver's one source, marked as the one selected.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <drm_fourcc.h>

#include "igt.h"
#include "gembuf.h"
#include "gembuf_kms.h"
#include "igt_kms.h"
#include "igt_pipe_crc.h"

IGT_TEST_DESCRIPTION("Tests behaviour of CRC");

#define N_CRCS	3

enum {
	TEST_BASIC = 0,
	TEST_SEQUENCE = 1 << 0,
	TEST_NONBLOCK = 1 << 1,
};

static int fd = -1;
static int num_pipes;

static void output_name(struct gk *k, char *name, size_t len)
{
	drmModeConnectorPtr c = drmModeGetConnector(k->fd, k->conn_id);

	igt_assert(c);
	snprintf(name, len, "%s-%u",
		 c->connector_type == DRM_MODE_CONNECTOR_VIRTUAL ? "Virtual" : "Unknown",
		 c->connector_type_id);
	drmModeFreeConnector(c);
}

/* Light pipe @k with a full-screen primary of @fb. */
static void show(struct gk *k, struct gk_fb *fb)
{
	struct gk_layer l = gk_layer_of(fb);

	igt_assert_eq(gk_commit(k, &l, 1, NULL, 0), 0);
}

/*
 * Non-blocking reads of at least N_CRCS CRCs.  Upstream reads them all
 * right after N_CRCS vblanks; a software composer (slower still under
 * emulation) may deliver a frame's CRC a few vblanks after the frame, so
 * keep reading, never blocking in read(), a vblank at a time.
 */
static int read_nonblock(struct gk *k, igt_pipe_crc_t *pc, igt_crc_t **out)
{
	igt_crc_t *all = calloc(N_CRCS + 1, sizeof(*all));
	int n = 0;

	igt_assert(all);
	for (int tries = 0; n < N_CRCS && tries < 600; tries++) {
		igt_crc_t *some;
		int got = igt_pipe_crc_get_crcs(pc, N_CRCS + 1 - n, &some);

		memcpy(&all[n], some, got * sizeof(*some));
		/* What upstream's single read right after the vblanks sees. */
		if (!tries)
			igt_info("%d of %d CRCs ready at the first read\n", got, N_CRCS);
		n += got;
		free(some);
		if (n < N_CRCS)
			igt_wait_for_vblank(fd, k->pipe);
	}
	*out = all;
	return n;
}

static void test_read_crc(struct gk *k, unsigned int flags)
{
	static const uint32_t colors[2] = { 0x00ff00, 0x00ffff };
	igt_crc_t first[2];

	for (int c = 0; c < 2; c++) {
		igt_pipe_crc_t *pc;
		igt_crc_t *crcs = NULL;
		struct gk_fb fb;
		int n;

		gk_fb_create(k, &fb, k->mode.hdisplay, k->mode.vdisplay,
			     DRM_FORMAT_XRGB8888);
		gk_fb_fill(&fb, colors[c]);
		show(k, &fb);
		if (flags & TEST_NONBLOCK) {
			pc = igt_pipe_crc_new_nonblock(fd, k->pipe, IGT_PIPE_CRC_SOURCE_AUTO);
			igt_wait_for_vblank(fd, k->pipe);
			igt_pipe_crc_start(pc);
			igt_wait_for_vblank_count(fd, k->pipe, N_CRCS);
			n = read_nonblock(k, pc, &crcs);
		} else {
			pc = igt_pipe_crc_new(fd, k->pipe, IGT_PIPE_CRC_SOURCE_AUTO);
			igt_pipe_crc_start(pc);
			n = igt_pipe_crc_get_crcs(pc, N_CRCS, &crcs);
		}
		/* Freed first: a failed subtest must not keep the CRC busy. */
		igt_pipe_crc_free(pc);
		igt_assert_lte(N_CRCS, n);

		first[c] = crcs[0];
		for (int j = 0; j < n - 1; j++) {
			igt_assert_crc_equal(&crcs[j], &crcs[j + 1]);
			if (flags & TEST_SEQUENCE) {
				igt_assert(crcs[j].has_valid_frame);
				igt_assert_eq_u32(crcs[j].frame + 1, crcs[j + 1].frame);
			}
		}
		free(crcs);
		gk_fb_destroy(k, &fb);
	}
	/* Not upstream's, but a CRC that cannot tell two colors apart is no CRC. */
	igt_assert(!igt_check_crc_equal(&first[0], &first[1]));
	gk_disable(k);
}

/* White in XR24 and white in @format must give one CRC. */
static void test_compare_crc(struct gk *k, uint32_t format)
{
	igt_pipe_crc_t *pc = igt_pipe_crc_new(fd, k->pipe, IGT_PIPE_CRC_SOURCE_AUTO);
	uint32_t w = k->mode.hdisplay, h = k->mode.vdisplay;
	igt_crc_t ref, crc, grey;
	struct gk_fb fb0, fb1;

	gk_fb_create(k, &fb0, w, h, DRM_FORMAT_XRGB8888);
	gk_fb_fill(&fb0, 0xffffff);
	gk_fb_create(k, &fb1, w, h, format);
	if (format == DRM_FORMAT_NV12) {
		/* BT.601 limited range: Y 235, Cb Cr 128 is full white. */
		memset(fb1.map, 235, (size_t)w * h);
		memset((uint8_t *)fb1.map + (size_t)w * h, 128, (size_t)w * h / 2);
	} else {
		gk_fb_fill(&fb1, 0xffffff);
	}
	show(k, &fb0);
	igt_pipe_crc_collect_crc(pc, &ref);
	show(k, &fb1);
	igt_pipe_crc_collect_crc(pc, &crc);
	igt_assert_crc_equal(&crc, &ref);

	/* And one step of luma darker is another picture. */
	if (format == DRM_FORMAT_NV12)
		memset(fb1.map, 234, (size_t)w * h);
	else
		gk_fb_fill(&fb1, 0xfefefe);
	igt_pipe_crc_collect_crc(pc, &grey);
	igt_assert(!igt_check_crc_equal(&grey, &ref));

	igt_pipe_crc_free(pc);
	gk_disable(k);
	gk_fb_destroy(k, &fb0);
	gk_fb_destroy(k, &fb1);
}

static void test_disable_crc_after_crtc(struct gk *k)
{
	igt_pipe_crc_t *pc = igt_pipe_crc_new(fd, k->pipe, IGT_PIPE_CRC_SOURCE_AUTO);
	drmModeConnectorPtr conn;
	igt_crc_t crc[2];
	struct gk_fb fb;

	gk_fb_create(k, &fb, k->mode.hdisplay, k->mode.vdisplay, DRM_FORMAT_XRGB8888);
	gk_fb_fill(&fb, 0x00ff00);
	show(k, &fb);
	conn = drmModeGetConnector(fd, k->conn_id);
	igt_assert(conn);

	igt_pipe_crc_start(pc);
	igt_pipe_crc_get_single(pc, &crc[0]);
	kmstest_set_connector_dpms(fd, conn, DRM_MODE_DPMS_OFF);
	igt_pipe_crc_stop(pc);		/* the CRTC is off now */
	kmstest_set_connector_dpms(fd, conn, DRM_MODE_DPMS_ON);
	igt_pipe_crc_collect_crc(pc, &crc[1]);
	igt_assert_crc_equal(&crc[0], &crc[1]);

	drmModeFreeConnector(conn);
	igt_pipe_crc_free(pc);
	gk_disable(k);
	gk_fb_destroy(k, &fb);
}

/*
 * A black frame, every byte of it 0, has a CRC that is not 0: upstream's
 * igt warns "Suspicious CRC: All values are 0" for one that is (and
 * "... powered down well" for all ones).  A CRC of the bytes seeded
 * with 0 gives 0 for any run of zeros.
 */
static void test_black_crc(struct gk *k)
{
	igt_pipe_crc_t *pc = igt_pipe_crc_new(fd, k->pipe, IGT_PIPE_CRC_SOURCE_AUTO);
	igt_crc_t crc, grey;
	struct gk_fb fb;
	bool zero = true;
	char *text;

	gk_fb_create(k, &fb, k->mode.hdisplay, k->mode.vdisplay, DRM_FORMAT_XRGB8888);
	gk_fb_fill(&fb, 0);
	show(k, &fb);
	igt_pipe_crc_collect_crc(pc, &crc);
	text = igt_crc_to_string(&crc);
	igt_info("black: %s\n", text);
	free(text);
	igt_assert_lt(0, crc.n_words);
	for (int i = 0; i < crc.n_words; i++) {
		zero &= !crc.crc[i];
		igt_assert_neq_u32(crc.crc[i], 0xffffffff);
	}
	igt_assert_f(!zero, "the black frame's CRC is all zeros\n");
	/* Still a CRC of the picture: one step lighter differs. */
	gk_fb_fill(&fb, 0x010101);
	igt_pipe_crc_collect_crc(pc, &grey);
	igt_assert(!igt_check_crc_equal(&grey, &crc));

	igt_pipe_crc_free(pc);
	gk_disable(k);
	gk_fb_destroy(k, &fb);
}

/*
 * Reading crtc-<n>/crc/control lists the sources the CRTC offers, one a
 * line, the one selected marked with '*' (drm_debugfs_crc.c): gembuf's
 * only one is "auto", selected from the start and after it is written.
 */
static void test_crc_sources(struct gk *k)
{
	int dir = igt_debugfs_dir(fd);
	char path[64], buf[64];

	igt_assert_lte(0, dir);
	snprintf(path, sizeof(path), "crtc-%u/crc/control", k->pipe);
	for (int round = 0; round < 2; round++) {
		int ctl = openat(dir, path, O_RDONLY);
		ssize_t n;

		igt_assert_lte(0, ctl);
		n = read(ctl, buf, sizeof(buf) - 1);
		close(ctl);
		igt_assert_lt(0, n);
		buf[n] = 0;
		igt_assert_f(!strcmp(buf, "auto*\n"),
			     "%s lists \"%s\", not auto alone and selected\n", path, buf);
		if (!round)
			igt_assert(igt_sysfs_set(dir, path, IGT_PIPE_CRC_SOURCE_AUTO));
	}
	close(dir);
}

/* Run @body once per pipe, as a dynamic subtest pipe-<X>-<output>. */
#define for_each_pipe_dynamic(k, body)					\
	for (int pipe = 0; pipe < num_pipes; pipe++) {				\
		struct gk k;							\
		char out_name[32];						\
									\
		gk_init_pipe(&k, fd, pipe);					\
		output_name(&k, out_name, sizeof(out_name));			\
		igt_dynamic_f("pipe-%s-%s", kmstest_pipe_name(pipe), out_name)	\
			body;							\
		drmModeDestroyPropertyBlob(fd, k.mode_blob);			\
	}

igt_main
{
	static const struct {
		const char *name;
		unsigned int flags;
		const char *desc;
	} tests[] = {
		{ "read-crc", TEST_BASIC, "Test for pipe CRC reads." },
		{ "read-crc-frame-sequence", TEST_SEQUENCE,
		  "Tests the pipe CRC read and ensure frame sequence." },
		{ "nonblocking-crc", TEST_NONBLOCK, "Test for O_NONBLOCK CRC reads." },
		{ "nonblocking-crc-frame-sequence", TEST_SEQUENCE | TEST_NONBLOCK,
		  "Test for O_NONBLOCK CRC reads and ensure frame sequence." },
	};

	igt_fixture {
		fd = drm_open_driver_master(DRIVER_ANY);
		num_pipes = gk_num_pipes(fd);
		igt_require(num_pipes > 0);
	}

	igt_describe("Tests error handling when the bad source is set.");
	igt_subtest("bad-source") {
		int dir = igt_debugfs_dir(fd);

		igt_assert_lte(0, dir);
		errno = 0;
		if (igt_sysfs_set(dir, "crtc-0/crc/control", "foo")) {
			/* Accepted for now: opening the data must then fail. */
			igt_assert_eq(openat(dir, "crtc-0/crc/data", O_RDONLY), -1);
		}
		igt_assert_eq(errno, EINVAL);
		close(dir);
	}

	for (unsigned int i = 0; i < ARRAY_SIZE(tests); i++) {
		igt_describe(tests[i].desc);
		igt_subtest_with_dynamic(tests[i].name)
			for_each_pipe_dynamic(k, test_read_crc(&k, tests[i].flags));
	}

	igt_describe("Check that disabling CRCs on a CRTC after having disabled the CRTC does not cause issues.");
	igt_subtest_with_dynamic("disable-crc-after-crtc")
		for_each_pipe_dynamic(k, test_disable_crc_after_crtc(&k));

	igt_describe("A black frame's CRC is not all zeros (nor all ones), which igt would take for a dead CRC.");
	igt_subtest_with_dynamic("black-crc-nonzero")
		for_each_pipe_dynamic(k, test_black_crc(&k));

	igt_describe("The CRC control file lists the CRTC's one source, auto, as the one selected, before and after it is written.");
	igt_subtest_with_dynamic("crc-sources")
		for_each_pipe_dynamic(k, test_crc_sources(&k));

	igt_describe("Basic sanity check for CRC mismatches with XR24 format");
	igt_subtest_with_dynamic("compare-crc-sanitycheck-xr24")
		for_each_pipe_dynamic(k, test_compare_crc(&k, DRM_FORMAT_XRGB8888));

	igt_describe("Basic sanity check for CRC mismatches with NV12 format");
	igt_subtest_with_dynamic("compare-crc-sanitycheck-nv12")
		for_each_pipe_dynamic(k, test_compare_crc(&k, DRM_FORMAT_NV12));

	igt_fixture
		drm_close_driver(fd);
}
