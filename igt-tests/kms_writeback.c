// SPDX-License-Identifier: MIT
/*
 * kms_writeback: the writeback connector contract upstream igt's
 * kms_writeback checks, with its subtest names: the CRTC drives the
 * writeback connector alone at 640x480, the primary plane scans out an
 * input framebuffer, and the written-back frame must equal it.  Bad
 * parameters fail with the errno DRM documents, write -1 through a
 * valid out-fence pointer and leave WRITEBACK_FB_ID reading 0.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <drm_fourcc.h>

#include "igt.h"
#include "gembuf.h"
#include "gembuf_kms.h"

IGT_TEST_DESCRIPTION("Writeback connector: formats, parameters, FB_ID, output.");

static struct gk k;
static struct gk_fb in8, in10;
static uint32_t wb_formats_prop;

static uint64_t conn_prop(uint32_t conn, const char *name, uint32_t *id)
{
	uint64_t v = 0;
	uint32_t pid = gk_prop(k.fd, conn, DRM_MODE_OBJECT_CONNECTOR, name, &v);

	igt_assert_f(pid, "connector %u has no property %s\n", conn, name);
	if (id)
		*id = pid;
	return v;
}

/*
 * One commit: the primary plane shows @in on the CRTC, which drives the
 * writeback connector only, with WRITEBACK_FB_ID @fb_id and out-fence
 * pointer @fence (0 leaves the property out).  Returns 0 or -errno.
 */
static int wb_commit(const struct gk_fb *in, uint32_t fb_id, uint64_t fence,
		     uint32_t flags)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	const struct gk_plane *p = gk_plane(&k, DRM_PLANE_TYPE_PRIMARY, 0);
	int ret;

	igt_assert(req && p);
#define ADD(obj, prop, v) igt_assert(drmModeAtomicAddProperty(req, obj, prop, v) >= 0)
	ADD(k.crtc_id, k.crtc_active, 1);
	ADD(k.crtc_id, k.crtc_mode_id, k.mode_blob);
	ADD(k.conn_id, k.conn_crtc_id, 0);
	ADD(k.wb_id, k.wb_crtc_id, k.crtc_id);
	ADD(k.wb_id, k.wb_fb_prop, fb_id);
	if (fence)
		ADD(k.wb_id, k.wb_fence_prop, fence);
	ADD(p->id, k.p_fb, in->fb_id);
	ADD(p->id, k.p_crtc, k.crtc_id);
	ADD(p->id, k.p_sx, 0);
	ADD(p->id, k.p_sy, 0);
	ADD(p->id, k.p_sw, (uint64_t)in->width << 16);
	ADD(p->id, k.p_sh, (uint64_t)in->height << 16);
	ADD(p->id, k.p_cx, 0);
	ADD(p->id, k.p_cy, 0);
	ADD(p->id, k.p_cw, in->width);
	ADD(p->id, k.p_ch, in->height);
#undef ADD
	ret = drmModeAtomicCommit(k.fd, req, flags | DRM_MODE_ATOMIC_ALLOW_MODESET, NULL);
	drmModeAtomicFree(req);
	return ret ? -errno : 0;
}

/* The pixels of @a and @b are equal, the X bits aside. */
static bool same_pixels(const struct gk_fb *a, const struct gk_fb *b)
{
	uint32_t mask = a->format == DRM_FORMAT_XRGB2101010 ? 0x3fffffff : 0xffffff;

	for (uint32_t y = 0; y < a->height; y++)
		for (uint32_t x = 0; x < a->width; x++) {
			uint32_t pa = ((uint32_t *)a->map)[y * (a->pitch / 4) + x];
			uint32_t pb = ((uint32_t *)b->map)[y * (b->pitch / 4) + x];

			if ((pa ^ pb) & mask) {
				igt_info("pixel %u,%u: %08x vs %08x\n", x, y, pa, pb);
				return false;
			}
		}
	return true;
}

static bool all_pixels(const struct gk_fb *fb, uint32_t v)
{
	for (uint32_t i = 0; i < fb->size / 4; i++)
		if (((uint32_t *)fb->map)[i] != v)
			return false;
	return true;
}

static void wait_fence(int fence)
{
	struct pollfd pfd = { .fd = fence, .events = POLLIN };

	igt_assert_fd(fence);
	igt_assert_eq(poll(&pfd, 1, 1000), 1);
	close(fence);
}

/* One commit of @in with writeback into @out (or none), as upstream. */
static void sequence_commit(const struct gk_fb *in, const struct gk_fb *out)
{
	int32_t fence = -1;

	igt_assert_eq(wb_commit(in, out ? out->fb_id : 0,
				out ? (uint64_t)(uintptr_t)&fence : 0, 0), 0);
	if (out)
		wait_fence(fence);
}

static void sequence(const struct gk_fb *in, const struct gk_fb *outs[], int n,
		     const uint32_t colors[2])
{
	const uint32_t clear = 0xffffffff;

	for (int i = 0; i < n; i++) {
		gk_fb_fill(in, colors[i % 2]);
		if (outs[i])
			gk_fb_fill(outs[i], clear);
		sequence_commit(in, outs[i]);
		/* An earlier buffer, not the target of this commit, is untouched. */
		if (i > 0 && outs[i - 1] && outs[i] != outs[i - 1])
			igt_assert(all_pixels(outs[i - 1], clear));
		if (outs[i]) {
			igt_assert(same_pixels(in, outs[i]));
			gk_fb_fill(outs[i], clear);
		}
	}
}

static void check_output(const struct gk_fb *in, uint32_t format,
			 const uint32_t colors[2])
{
	struct gk_fb out, second;
	const struct gk_fb *outs[2] = { &out, NULL };

	gk_fb_create(&k, &out, k.mode.hdisplay, k.mode.vdisplay, format);
	gk_fb_create(&k, &second, k.mode.hdisplay, k.mode.vdisplay, format);
	sequence(in, outs, 1, colors);		/* one commit with writeback */
	sequence(in, outs, 2, colors);		/* then one without */
	outs[1] = &out;
	sequence(in, outs, 2, colors);		/* two, the same buffer */
	outs[1] = &second;
	sequence(in, outs, 2, colors);		/* two, different buffers */
	/* Commits without writeback leave the last buffer alone. */
	gk_fb_fill(&second, 0x12345678);
	sequence_commit(in, NULL);
	igt_assert(all_pixels(&second, 0x12345678));
	gk_fb_destroy(&k, &second);
	gk_fb_destroy(&k, &out);
}

static void fb_id_checks(const struct gk_fb *in, uint32_t format)
{
	struct gk_fb out;
	int32_t fence = -1;

	gk_fb_create(&k, &out, k.mode.hdisplay, k.mode.vdisplay, format);
	/* An object id that is no framebuffer */
	igt_assert_eq(wb_commit(in, k.wb_id, 0, 0), -EINVAL);
	igt_assert_eq(conn_prop(k.wb_id, "WRITEBACK_FB_ID", NULL), 0);
	/* No framebuffer: nothing to write back, and fine */
	igt_assert_eq(wb_commit(in, 0, 0, 0), 0);
	/* A valid one, without an out-fence */
	igt_assert_eq(wb_commit(in, out.fb_id, 0, 0), 0);
	/* WRITEBACK_FB_ID is a one-shot: it always reads back as 0 */
	igt_assert_eq(conn_prop(k.wb_id, "WRITEBACK_FB_ID", NULL), 0);
	/* and with one, whose fence signals */
	igt_assert_eq(wb_commit(in, out.fb_id, (uint64_t)(uintptr_t)&fence, 0), 0);
	wait_fence(fence);
	igt_assert(same_pixels(in, &out));
	gk_fb_destroy(&k, &out);
}

igt_main
{
	static const uint32_t colors8[2] = { 0x42ff0000, 0x4200ff00 };
	static const uint32_t colors10[2] = { 0x3ff00000, 0x000ffc00 };
	int fd = -1;

	igt_fixture {
		fd = gembuf_open_display();
		igt_require(drmSetMaster(fd) == 0);
		gk_init(&k, fd);
		igt_assert(gk_set_mode(&k, 640, 480));
		conn_prop(k.wb_id, "WRITEBACK_PIXEL_FORMATS", &wb_formats_prop);
		igt_assert(wb_formats_prop);
		gk_fb_create(&k, &in8, 640, 480, DRM_FORMAT_XRGB8888);
		gk_fb_create(&k, &in10, 640, 480, DRM_FORMAT_XRGB2101010);
	}

	igt_describe("WRITEBACK_PIXEL_FORMATS is an immutable blob of fourccs: XRGB8888 and XRGB2101010.");
	igt_subtest("writeback-pixel-formats") {
		drmModePropertyPtr prop = drmModeGetProperty(fd, wb_formats_prop);
		drmModePropertyBlobPtr blob;
		const uint32_t *f;
		bool xr24 = false, xr30 = false;

		igt_assert(prop);
		igt_assert(prop->flags & DRM_MODE_PROP_IMMUTABLE);
		igt_assert(prop->flags & DRM_MODE_PROP_BLOB);
		drmModeFreeProperty(prop);
		blob = drmModeGetPropertyBlob(fd, conn_prop(k.wb_id, "WRITEBACK_PIXEL_FORMATS", NULL));
		igt_assert(blob && blob->length && blob->length % 4 == 0);
		for (uint32_t i = 0; i < blob->length; i++)
			igt_assert(strchr("01234568 ABCGNRUVXY", ((char *)blob->data)[i]));
		f = blob->data;
		for (uint32_t i = 0; i < blob->length / 4; i++) {
			xr24 |= f[i] == DRM_FORMAT_XRGB8888;
			xr30 |= f[i] == DRM_FORMAT_XRGB2101010;
		}
		igt_assert(xr24 && xr30);
		drmModeFreePropertyBlob(blob);
	}

	igt_describe("An out-fence without a framebuffer, a framebuffer of the wrong size and a bad out-fence pointer are refused; a valid pointer reads -1 after, WRITEBACK_FB_ID 0.");
	igt_subtest("writeback-invalid-parameters") {
		struct gk_fb half, out;
		int32_t fence;

		gk_fb_create(&k, &half, 320, 240, DRM_FORMAT_XRGB8888);
		gk_fb_create(&k, &out, 640, 480, DRM_FORMAT_XRGB8888);

		fence = 0;
		igt_assert_eq(wb_commit(&in8, 0, (uint64_t)(uintptr_t)&fence, 0), -EINVAL);
		igt_assert_eq(fence, -1);
		igt_assert_eq(conn_prop(k.wb_id, "WRITEBACK_FB_ID", NULL), 0);

		fence = 0;
		igt_assert_eq(wb_commit(&in8, half.fb_id, (uint64_t)(uintptr_t)&fence, 0), -EINVAL);
		igt_assert_eq(fence, -1);
		igt_assert_eq(conn_prop(k.wb_id, "WRITEBACK_FB_ID", NULL), 0);

		igt_assert_eq(wb_commit(&in8, out.fb_id, 0x8, 0), -EFAULT);
		igt_assert_eq(conn_prop(k.wb_id, "WRITEBACK_FB_ID", NULL), 0);

		/* A TEST_ONLY commit creates no fence: the pointer reads -1. */
		fence = 0;
		igt_assert_eq(wb_commit(&in8, out.fb_id, (uint64_t)(uintptr_t)&fence,
					DRM_MODE_ATOMIC_TEST_ONLY), 0);
		igt_assert_eq(fence, -1);

		gk_fb_destroy(&k, &out);
		gk_fb_destroy(&k, &half);
	}

	/*
	 * gembuf's policy: DRM leaves the writeback framebuffer's size to the
	 * driver, and gembuf takes only the mode's, refusing larger ones too.
	 */
	igt_subtest_group {
		igt_fixture
			igt_require(is_gembuf_device(fd));

		igt_describe("gembuf only: a writeback framebuffer of the mode's width but not its height, a line shorter or longer or twice as tall, is refused with EINVAL, by a commit (its out-fence -1) and by a TEST_ONLY one; one of the mode's size is taken.");
		igt_subtest("writeback-invalid-size") {
			static const uint32_t heights[] = { 479, 481, 960 };
			struct gk_fb out;
			int32_t fence;

			for (unsigned int i = 0; i < ARRAY_SIZE(heights); i++) {
				gk_fb_create(&k, &out, 640, heights[i], DRM_FORMAT_XRGB8888);
				fence = 0;
				igt_assert_f(wb_commit(&in8, out.fb_id, (uint64_t)(uintptr_t)&fence,
						       0) == -EINVAL,
					     "640x%u written back for 640x480\n", heights[i]);
				igt_assert_eq(fence, -1);
				igt_assert_eq(wb_commit(&in8, out.fb_id, 0,
							DRM_MODE_ATOMIC_TEST_ONLY), -EINVAL);
				gk_fb_destroy(&k, &out);
			}
			gk_fb_create(&k, &out, 640, 480, DRM_FORMAT_XRGB8888);
			igt_assert_eq(wb_commit(&in8, out.fb_id, 0, DRM_MODE_ATOMIC_TEST_ONLY), 0);
			gk_fb_destroy(&k, &out);
		}
	}

	igt_describe("WRITEBACK_FB_ID takes framebuffers only, accepts 0, and always reads back 0.");
	igt_subtest("writeback-fb-id")
		fb_id_checks(&in8, DRM_FORMAT_XRGB8888);

	igt_describe("WRITEBACK_FB_ID with XRGB2101010 framebuffers.");
	igt_subtest("writeback-fb-id-XRGB2101010")
		fb_id_checks(&in10, DRM_FORMAT_XRGB2101010);

	igt_describe("Written-back XRGB8888 frames equal the input, only the target buffer of each commit is written.");
	igt_subtest("writeback-check-output")
		check_output(&in8, DRM_FORMAT_XRGB8888, colors8);

	igt_describe("Written-back XRGB2101010 frames equal the 10-bit input exactly.");
	igt_subtest("writeback-check-output-XRGB2101010")
		check_output(&in10, DRM_FORMAT_XRGB2101010, colors10);

	igt_fixture {
		gk_disable(&k);
		gk_fb_destroy(&k, &in10);
		gk_fb_destroy(&k, &in8);
		drm_close_driver(fd);
	}
}
