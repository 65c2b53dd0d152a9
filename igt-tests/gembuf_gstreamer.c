// SPDX-License-Identifier: MIT
/*
 * gembuf_gstreamer: real GStreamer pipelines on the gembuf display, the
 * article's camera-to-overlay path.  kmssink shows frames on an overlay
 * plane with the legacy SETPLANE ioctl over a primary plane this test
 * set up; the display's counters tell whether the framebuffers it
 * latched were vivid's own buffers (imported dma-bufs, no copy) or
 * gembuf dumb buffers, and the CRTC's CRCs tell that the frames on
 * screen changed as the pipeline ran.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <drm_fourcc.h>

#include "igt.h"
#include "gembuf.h"
#include "gembuf_kms.h"
#include "igt_pipe_crc.h"
#include "vivid.h"

IGT_TEST_DESCRIPTION("GStreamer pipelines into kmssink on gembuf overlay planes.");

#define GST_LAUNCH	"/usr/bin/gst-launch-1.0"
#define FRAMES		20
#define MAX_DISTINCT	64
#define TIMEOUT_S	120

static struct gk k;
static struct gk_fb primary;
static int fd = -1;

struct run {
	long flips, foreign, objects;
	int distinct;		/* CRCs seen that differ from the background */
};

static void dump_log(const char *log)
{
	char line[256];
	FILE *f = fopen(log, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		igt_info("gst: %s", line);
	fclose(f);
}

static void add_distinct(igt_crc_t *seen, int *n, const igt_crc_t *c,
			 const igt_crc_t *bg)
{
	if (igt_check_crc_equal(c, bg) || *n >= MAX_DISTINCT)
		return;
	for (int i = 0; i < *n; i++)
		if (igt_check_crc_equal(&seen[i], c))
			return;
	seen[(*n)++] = *c;
}

/*
 * Run gst-launch-1.0 with @pipeline (gst-launch syntax, one word an
 * argument) while this test is not DRM master, so that kmssink becomes
 * it; collect the CRCs of the frames shown meanwhile.
 */
static void run_pipeline(const char *pipeline, struct run *r)
{
	static igt_crc_t seen[MAX_DISTINCT];
	const char *log = "/tmp/gembuf_gstreamer.log";
	char *argv[64], *copy, *tok, *save;
	igt_pipe_crc_t *pc;
	igt_crc_t bg;
	int argc = 0, status = 0;
	time_t deadline;
	pid_t pid;

	igt_require_f(access(GST_LAUNCH, X_OK) == 0, "no %s\n", GST_LAUNCH);
	pc = igt_pipe_crc_new_nonblock(fd, 0, IGT_PIPE_CRC_SOURCE_AUTO);
	igt_pipe_crc_start(pc);
	igt_pipe_crc_get_single(pc, &bg);

	r->flips = gembuf_state("fb_flips");
	r->foreign = gembuf_state("fb_flips_foreign");
	r->objects = gembuf_state("objects");
	r->distinct = 0;
	igt_assert(r->flips >= 0 && r->foreign >= 0 && r->objects >= 0);

	copy = strdup(pipeline);
	argv[argc++] = GST_LAUNCH;
	argv[argc++] = "-q";
	for (tok = strtok_r(copy, " ", &save); tok && argc < 63;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;

	igt_assert_eq(drmDropMaster(fd), 0);
	igt_info("running %s\n", pipeline);
	pid = fork();
	igt_assert(pid >= 0);
	if (pid == 0) {
		int out = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(out, 1);
		dup2(out, 2);
		/* No plugin scanner process, a registry of our own. */
		setenv("GST_REGISTRY_FORK", "no", 1);
		setenv("GST_REGISTRY", "/tmp/gst-registry.bin", 1);
		execv(GST_LAUNCH, argv);
		_exit(127);
	}

	deadline = time(NULL) + TIMEOUT_S;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		igt_crc_t *crcs;
		int n = igt_pipe_crc_get_crcs(pc, 16, &crcs);

		for (int i = 0; i < n; i++)
			add_distinct(seen, &r->distinct, &crcs[i], &bg);
		free(crcs);
		if (time(NULL) > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			status = -1;
			break;
		}
		usleep(10000);
	}
	igt_pipe_crc_free(pc);
	free(copy);
	/* kmssink closed its fd: master is free to take back. */
	igt_assert_eq(drmSetMaster(fd), 0);

	if (status)
		dump_log(log);
	igt_assert_f(status != -1, "pipeline still running after %d s\n", TIMEOUT_S);
	igt_assert_f(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		     "gst-launch-1.0: status %#x\n", status);

	r->flips = gembuf_state("fb_flips") - r->flips;
	r->foreign = gembuf_state("fb_flips_foreign") - r->foreign;
	r->objects = gembuf_state("objects") - r->objects;
	igt_info("%ld framebuffers latched, %ld of them foreign imports, %d distinct frames\n",
		 r->flips, r->foreign, r->distinct);
}

static char *kmssink(void)
{
	static char s[160];

	snprintf(s, sizeof(s), "kmssink driver-name=gembuf connector-id=%u plane-id=%u sync=false",
		 k.conn_id, gk_plane(&k, DRM_PLANE_TYPE_OVERLAY, 0)->id);
	return s;
}

igt_main
{
	char vivid[32] = "";

	igt_fixture {
		struct gk_layer l = gk_layer_of(&primary);
		int v;

		fd = gembuf_open_display();
		igt_require(drmSetMaster(fd) == 0);
		gk_init(&k, fd);
		gk_fb_create(&k, &primary, k.mode.hdisplay, k.mode.vdisplay,
			     DRM_FORMAT_XRGB8888);
		gk_fb_fill(&primary, 0x203040);
		igt_assert_eq(gk_commit(&k, &l, 1, NULL, 0), 0);
		v = vivid_open_capture(vivid, sizeof(vivid));
		if (v >= 0)
			close(v);
	}

	igt_describe("v4l2src on vivid exports its capture buffers (io-mode=dmabuf); kmssink imports each and scans it out on an overlay: every frame latched is vivid's memory, none a copy.");
	igt_subtest("v4l2src-dmabuf-to-overlay") {
		char pipeline[512];
		struct run r;

		igt_require_f(vivid[0], "no vivid capture device\n");
		snprintf(pipeline, sizeof(pipeline),
			 "v4l2src device=%s io-mode=dmabuf num-buffers=%d ! video/x-raw,format=YUY2,width=640,height=480 ! %s",
			 vivid, FRAMES, kmssink());
		run_pipeline(pipeline, &r);
		/* kmssink may copy the last frame when it drains: one at most. */
		igt_assert_lte(FRAMES - 1, r.foreign);
		igt_assert_lte(r.flips - r.foreign, 1);
		igt_assert_lte(2, r.distinct);
		igt_assert_eq(r.objects, 0);
	}

	igt_describe("v4l2src imports kmssink's buffers (io-mode=dmabuf-import): vivid captures straight into gembuf dumb buffers exported as dma-bufs, which the overlay scans out.");
	igt_subtest("v4l2src-dmabuf-import-to-overlay") {
		char pipeline[512];
		struct run r;

		igt_require_f(vivid[0], "no vivid capture device\n");
		snprintf(pipeline, sizeof(pipeline),
			 "v4l2src device=%s io-mode=dmabuf-import num-buffers=%d ! video/x-raw,format=YUY2,width=640,height=480 ! %s",
			 vivid, FRAMES, kmssink());
		run_pipeline(pipeline, &r);
		igt_assert_lte(FRAMES - 1, r.flips);
		igt_assert_eq(r.foreign, 0);
		igt_assert_lte(2, r.distinct);
		igt_assert_eq(r.objects, 0);
	}

	igt_describe("videotestsrc draws into kmssink's own buffers, gembuf dumb buffers from its pool, scanned out on an overlay with no import and no copy.");
	igt_subtest("videotestsrc-to-overlay") {
		char pipeline[512];
		struct run r;

		snprintf(pipeline, sizeof(pipeline),
			 "videotestsrc pattern=ball num-buffers=%d ! video/x-raw,format=BGRx,width=320,height=240 ! %s",
			 FRAMES, kmssink());
		run_pipeline(pipeline, &r);
		igt_assert_lte(FRAMES - 1, r.flips);
		igt_assert_eq(r.foreign, 0);
		igt_assert_lte(2, r.distinct);
		igt_assert_eq(r.objects, 0);
	}

	igt_fixture {
		gk_disable(&k);
		gk_fb_destroy(&k, &primary);
		drm_close_driver(fd);
	}
}
