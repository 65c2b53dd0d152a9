// SPDX-License-Identifier: MIT
/*
 * DRM_IOCTL_MODE_ADDFB2 input validation: every malformed request gets a
 * precise errno and creates nothing.  Runs on any KMS driver with dumb
 * buffers; the subset of upstream kms_addfb_basic this project relies on.
 */
#include <drm_fourcc.h>

#include "igt.h"

IGT_TEST_DESCRIPTION("Check ADDFB2 argument validation.");

#define W 1024
#define H 1024

static int fd = -1;
static uint32_t handle;
static unsigned int stride;
static struct drm_mode_card_res res;

static struct drm_mode_fb_cmd2 good_fb(void)
{
	struct drm_mode_fb_cmd2 f = {
		.width = W, .height = H, .pixel_format = DRM_FORMAT_XRGB8888,
		.handles = { handle }, .pitches = { stride },
	};

	return f;
}

/* ADDFB2 must fail with @err; no framebuffer may have been created. */
static void addfb2_err(struct drm_mode_fb_cmd2 *f, int err)
{
	f->fb_id = 0;
	do_ioctl_err(fd, DRM_IOCTL_MODE_ADDFB2, f, err);
	igt_assert_eq_u32(f->fb_id, 0);
}

igt_main
{
	igt_fixture {
		fd = drm_open_driver_master(DRIVER_ANY);
		igt_require(igt_ioctl(fd, DRM_IOCTL_MODE_GETRESOURCES, &res) == 0);
		handle = kmstest_dumb_create(fd, W, H, 32, &stride, NULL);
	}

	igt_describe("A well-formed XRGB8888 framebuffer is accepted and can be removed once.");
	igt_subtest("basic") {
		struct drm_mode_fb_cmd2 f = good_fb();

		do_ioctl(fd, DRM_IOCTL_MODE_ADDFB2, &f);
		igt_assert(f.fb_id);
		do_ioctl(fd, DRM_IOCTL_MODE_RMFB, &f.fb_id);
		do_ioctl_err(fd, DRM_IOCTL_MODE_RMFB, &f.fb_id, ENOENT);
	}

	igt_describe("With DRM_MODE_FB_MODIFIERS, handles, pitches, offsets and modifiers of unused planes must be zero.");
	igt_subtest_with_dynamic("unused-plane-fields") {
		igt_dynamic("handle") {
			struct drm_mode_fb_cmd2 f = good_fb();

			f.flags = DRM_MODE_FB_MODIFIERS;
			f.handles[1] = handle;
			addfb2_err(&f, EINVAL);
		}
		igt_dynamic("pitch") {
			struct drm_mode_fb_cmd2 f = good_fb();

			f.flags = DRM_MODE_FB_MODIFIERS;
			f.pitches[1] = stride;
			addfb2_err(&f, EINVAL);
		}
		igt_dynamic("offset") {
			struct drm_mode_fb_cmd2 f = good_fb();

			f.flags = DRM_MODE_FB_MODIFIERS;
			f.offsets[1] = 4096;
			addfb2_err(&f, EINVAL);
		}
		igt_dynamic("modifier") {
			struct drm_mode_fb_cmd2 f = good_fb();

			f.flags = DRM_MODE_FB_MODIFIERS;
			f.modifier[1] = fourcc_mod_code(NONE, 1);
			addfb2_err(&f, EINVAL);
		}
	}

	igt_describe("Without DRM_MODE_FB_MODIFIERS, stale handles, pitches and offsets of unused planes are ignored (pre-modifier userspace compatibility).");
	igt_subtest("unused-plane-fields-legacy") {
		struct drm_mode_fb_cmd2 f = good_fb();

		f.handles[1] = handle;
		f.pitches[1] = stride;
		f.offsets[1] = 4096;
		do_ioctl(fd, DRM_IOCTL_MODE_ADDFB2, &f);
		do_ioctl(fd, DRM_IOCTL_MODE_RMFB, &f.fb_id);
	}

	igt_describe("Zero and too small pitches get EINVAL, a pitch beyond the buffer EINVAL, and one whose framebuffer size overflows 32 bits ERANGE.");
	igt_subtest_with_dynamic("bad-pitch") {
		static const struct {
			const char *name;
			uint32_t pitch;
			int err;
		} cases[] = {
			{ "zero", 0, EINVAL }, { "small", W * 4 - 4, EINVAL },
			{ "beyond-bo", W * 8, EINVAL }, { "huge", 1u << 30, ERANGE },
			{ "overflow", 0xfffffff0u, ERANGE },
		};

		for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
			igt_dynamic(cases[i].name) {
				struct drm_mode_fb_cmd2 f = good_fb();

				f.pitches[0] = cases[i].pitch;
				addfb2_err(&f, cases[i].err);
			}
		}
	}

	igt_describe("Zero and beyond-limit sizes are refused.");
	igt_subtest_with_dynamic("bad-size") {
		igt_dynamic("zero-width") {
			struct drm_mode_fb_cmd2 f = good_fb();

			f.width = 0;
			addfb2_err(&f, EINVAL);
		}
		igt_dynamic("zero-height") {
			struct drm_mode_fb_cmd2 f = good_fb();

			f.height = 0;
			addfb2_err(&f, EINVAL);
		}
		igt_dynamic("too-wide") {
			struct drm_mode_fb_cmd2 f = good_fb();

			f.width = res.max_width + 1;
			f.pitches[0] = f.width * 4;
			addfb2_err(&f, EINVAL);
		}
		igt_dynamic("too-high") {
			struct drm_mode_fb_cmd2 f = good_fb();

			f.height = res.max_height + 1;
			addfb2_err(&f, EINVAL);
		}
	}

	igt_describe("A framebuffer larger than its buffer object is refused.");
	igt_subtest("small-bo") {
		struct drm_mode_fb_cmd2 f = good_fb();

		f.height = H * 2;
		addfb2_err(&f, EINVAL);
		f = good_fb();
		f.offsets[0] = stride;
		addfb2_err(&f, EINVAL);
	}

	igt_describe("An unknown pixel format is refused.");
	igt_subtest("invalid-pixel-format") {
		struct drm_mode_fb_cmd2 f = good_fb();

		f.pixel_format = fourcc_code('G', 'B', 'x', '?');
		addfb2_err(&f, EINVAL);
	}

	igt_describe("Unknown flags are refused.");
	igt_subtest("bad-flags") {
		struct drm_mode_fb_cmd2 f = good_fb();

		f.flags = 1u << 31;
		addfb2_err(&f, EINVAL);
	}

	igt_describe("A handle that names no object is refused with ENOENT.");
	igt_subtest("bad-handle") {
		struct drm_mode_fb_cmd2 f = good_fb();

		f.handles[0] = handle + 1000;
		addfb2_err(&f, ENOENT);
	}

	igt_describe("Removing a framebuffer that does not exist fails with ENOENT.");
	igt_subtest("rmfb-bad-id") {
		uint32_t id = 0xdeadbeef;

		do_ioctl_err(fd, DRM_IOCTL_MODE_RMFB, &id, ENOENT);
	}

	igt_fixture {
		igt_assert_eq(kmstest_dumb_destroy(fd, handle), 0);
		drm_close_driver(fd);
	}
}
