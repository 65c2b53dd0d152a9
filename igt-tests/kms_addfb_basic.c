// SPDX-License-Identifier: MIT
/*
 * kms_addfb_basic: framebuffer creation's argument checks, with the
 * subtest names of upstream igt's test of this name (its Intel-only
 * tiling subtests left out), and a few more checks of our own
 * (32-bit overflows, zero sizes, unknown flags and handles, RMFB of
 * nothing).  Every malformed request gets a precise errno and creates
 * nothing.  Runs on any KMS driver with dumb buffers.
 */
#include <errno.h>
#include <string.h>
#include <drm_fourcc.h>

#include "igt.h"

IGT_TEST_DESCRIPTION("Sanity check the different combinations of ADDFB and ADDFB2 arguments.");

static int fd = -1;
static uint32_t bo, bo_small;	/* 1024x1024 and 1024x1023, 32 bpp */
static struct drm_mode_card_res res;

/* 512x512 XRGB8888 on @bo with a 4096-byte pitch, as upstream's pitch tests. */
static struct drm_mode_fb_cmd2 fb512(void)
{
	struct drm_mode_fb_cmd2 f = {
		.width = 512, .height = 512, .pixel_format = DRM_FORMAT_XRGB8888,
		.handles = { bo }, .pitches = { 1024 * 4 },
	};

	return f;
}

/* 1024x1024 XRGB8888 filling @bo. */
static struct drm_mode_fb_cmd2 fb1024(void)
{
	struct drm_mode_fb_cmd2 f = fb512();

	f.width = f.height = 1024;
	return f;
}

/* ADDFB2 must fail with @err; no framebuffer may have been created. */
static void addfb2_err(struct drm_mode_fb_cmd2 *f, int err)
{
	f->fb_id = 0;
	do_ioctl_err(fd, DRM_IOCTL_MODE_ADDFB2, f, err);
	igt_assert_eq_u32(f->fb_id, 0);
}

/* ADDFB2 must succeed; the framebuffer is removed again. */
static void addfb2_ok(struct drm_mode_fb_cmd2 *f)
{
	do_ioctl(fd, DRM_IOCTL_MODE_ADDFB2, f);
	igt_assert(f->fb_id);
	do_ioctl(fd, DRM_IOCTL_MODE_RMFB, &f->fb_id);
	f->fb_id = 0;
}

/* Whether some plane takes @format (linear), as ADDFB2 requires. */
static bool any_plane_has(uint32_t format)
{
	drmModePlaneResPtr pres = drmModeGetPlaneResources(fd);
	bool found = false;

	igt_assert(pres);
	for (uint32_t i = 0; i < pres->count_planes && !found; i++) {
		drmModePlanePtr p = drmModeGetPlane(fd, pres->planes[i]);

		igt_assert(p);
		for (uint32_t j = 0; j < p->count_formats; j++)
			found |= p->formats[j] == format;
		drmModeFreePlane(p);
	}
	drmModeFreePlaneResources(pres);
	return found;
}

/* Legacy ADDFB of @bpp/@depth on @bo: 0 or -errno. */
static int legacy_addfb(uint32_t bpp, uint32_t depth)
{
	struct drm_mode_fb_cmd arg = {
		.width = 512, .height = 512, .pitch = 1024 * 4,
		.bpp = bpp, .depth = depth, .handle = bo,
	};
	int err = 0;

	if (igt_ioctl(fd, DRM_IOCTL_MODE_ADDFB, &arg))
		err = -errno;
	if (arg.fb_id) {
		igt_assert_eq(err, 0);
		do_ioctl(fd, DRM_IOCTL_MODE_RMFB, &arg.fb_id);
	}
	return err;
}

igt_main
{
	igt_fixture {
		unsigned int pitch;

		fd = drm_open_driver_master(DRIVER_ANY);
		igt_require(igt_ioctl(fd, DRM_IOCTL_MODE_GETRESOURCES, &res) == 0);
		igt_assert_eq(drmSetClientCap(fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1), 0);
		bo = kmstest_dumb_create(fd, 1024, 1024, 32, &pitch, NULL);
		igt_assert_eq(pitch, 1024 * 4);
		bo_small = kmstest_dumb_create(fd, 1024, 1023, 32, &pitch, NULL);
	}

	igt_describe("With DRM_MODE_FB_MODIFIERS, a handle for an unused plane is refused.");
	igt_subtest("unused-handle") {
		struct drm_mode_fb_cmd2 f = fb512();

		f.flags = DRM_MODE_FB_MODIFIERS;
		f.handles[1] = bo_small;
		addfb2_err(&f, EINVAL);
	}

	igt_describe("With DRM_MODE_FB_MODIFIERS, a pitch for an unused plane is refused.");
	igt_subtest("unused-pitches") {
		struct drm_mode_fb_cmd2 f = fb512();

		f.flags = DRM_MODE_FB_MODIFIERS;
		f.pitches[1] = 512;
		addfb2_err(&f, EINVAL);
	}

	igt_describe("With DRM_MODE_FB_MODIFIERS, an offset for an unused plane is refused.");
	igt_subtest("unused-offsets") {
		struct drm_mode_fb_cmd2 f = fb512();

		f.flags = DRM_MODE_FB_MODIFIERS;
		f.offsets[1] = 512;
		addfb2_err(&f, EINVAL);
	}

	igt_describe("With DRM_MODE_FB_MODIFIERS, a modifier for an unused plane is refused.");
	igt_subtest("unused-modifier") {
		struct drm_mode_fb_cmd2 f = fb512();

		f.flags = DRM_MODE_FB_MODIFIERS;
		f.modifier[1] = I915_FORMAT_MOD_X_TILED;
		addfb2_err(&f, EINVAL);
	}

	igt_describe("Without DRM_MODE_FB_MODIFIERS, stale handles, pitches and offsets of unused planes are ignored (pre-modifier userspace compatibility).");
	igt_subtest("unused-plane-fields-legacy") {
		struct drm_mode_fb_cmd2 f = fb512();

		f.handles[1] = bo;
		f.pitches[1] = 1024 * 4;
		f.offsets[1] = 4096;
		addfb2_ok(&f);
	}

	igt_describe("Legacy ADDFB takes exactly the bpp/depth pairs that name a format some plane offers; every other pair is refused with EINVAL.");
	igt_subtest("legacy-format") {
		static const struct { uint32_t bpp, depth, format; } known[] = {
			{ 8, 8, DRM_FORMAT_C8 },
			{ 16, 15, DRM_FORMAT_XRGB1555 },
			{ 16, 16, DRM_FORMAT_RGB565 },
			{ 24, 24, DRM_FORMAT_RGB888 },
			{ 32, 24, DRM_FORMAT_XRGB8888 },
			{ 32, 30, DRM_FORMAT_XRGB2101010 },
			{ 32, 32, DRM_FORMAT_ARGB8888 },
		};
		unsigned int accepted = 0;

		for (uint32_t bpp = 0; bpp <= 64; bpp++) {
			for (uint32_t depth = 0; depth <= 64; depth++) {
				int want = -EINVAL, got;

				for (unsigned int i = 0; i < ARRAY_SIZE(known); i++)
					if (known[i].bpp == bpp && known[i].depth == depth)
						want = any_plane_has(known[i].format) ? 0 : -EINVAL;
				got = legacy_addfb(bpp, depth);
				igt_assert_f(got == want, "bpp %u depth %u: %d, want %d\n",
					     bpp, depth, got, want);
				accepted += !got;
			}
		}
		/* XRGB8888 at least: what every KMS driver scans out. */
		igt_assert_lte(1, (int)accepted);
	}

	igt_describe("A framebuffer without a handle is refused with EINVAL.");
	igt_subtest("no-handle") {
		struct drm_mode_fb_cmd2 f = fb512();

		f.handles[0] = 0;
		addfb2_err(&f, EINVAL);
	}

	igt_describe("A well-formed XRGB8888 framebuffer is accepted and can be removed once.");
	igt_subtest("basic") {
		struct drm_mode_fb_cmd2 f = fb512();

		do_ioctl(fd, DRM_IOCTL_MODE_ADDFB2, &f);
		igt_assert(f.fb_id);
		do_ioctl(fd, DRM_IOCTL_MODE_RMFB, &f.fb_id);
		do_ioctl_err(fd, DRM_IOCTL_MODE_RMFB, &f.fb_id, ENOENT);
	}

	{
		static const uint32_t bad_pitches[] = { 0, 32, 63, 128, 256, 1024, 999, 65536 };

		for (unsigned int i = 0; i < ARRAY_SIZE(bad_pitches); i++) {
			igt_describe("A pitch too small for the width, or too large for the buffer, is refused with EINVAL.");
			igt_subtest_f("bad-pitch-%u", bad_pitches[i]) {
				struct drm_mode_fb_cmd2 f = fb512();

				f.pitches[0] = bad_pitches[i];
				addfb2_err(&f, EINVAL);
			}
		}
	}

	igt_describe("A pitch whose framebuffer size overflows 32 bits is refused with ERANGE.");
	igt_subtest_with_dynamic("bad-pitch-overflow") {
		static const struct { const char *name; uint32_t pitch; } cases[] = {
			{ "huge", 1u << 30 }, { "wrapping", 0xfffffff0u },
		};

		for (unsigned int i = 0; i < ARRAY_SIZE(cases); i++) {
			igt_dynamic(cases[i].name) {
				struct drm_mode_fb_cmd2 f = fb1024();

				f.pitches[0] = cases[i].pitch;
				addfb2_err(&f, ERANGE);
			}
		}
	}

	igt_describe("Framebuffers that fill the buffer exactly are accepted, in each bit depth a plane offers.");
	igt_subtest("size-max") {
		struct drm_mode_fb_cmd2 f = fb1024();

		addfb2_ok(&f);
		if (any_plane_has(DRM_FORMAT_RGB565)) {
			f.height = 2048;
			f.pixel_format = DRM_FORMAT_RGB565;
			f.pitches[0] = 1024 * 2;
			addfb2_ok(&f);
		}
		if (any_plane_has(DRM_FORMAT_C8)) {
			f.width = f.height = 2048;
			f.pixel_format = DRM_FORMAT_C8;
			f.pitches[0] = 2048;
			addfb2_ok(&f);
		}
	}

	igt_describe("A framebuffer wider than the buffer's pitch, or than the device's maximum, is refused with EINVAL.");
	igt_subtest("too-wide") {
		struct drm_mode_fb_cmd2 f = fb1024();

		f.width++;
		addfb2_err(&f, EINVAL);
		f = fb1024();
		f.width = res.max_width + 1;
		f.pitches[0] = f.width * 4;
		addfb2_err(&f, EINVAL);
	}

	igt_describe("A framebuffer higher than its buffer, or than the device's maximum, is refused with EINVAL.");
	igt_subtest("too-high") {
		struct drm_mode_fb_cmd2 f = fb1024();

		f.height++;
		addfb2_err(&f, EINVAL);
		f = fb1024();
		f.height = res.max_height + 1;
		addfb2_err(&f, EINVAL);
	}

	igt_describe("Zero sizes are refused with EINVAL.");
	igt_subtest("zero-size") {
		struct drm_mode_fb_cmd2 f = fb512();

		f.width = 0;
		addfb2_err(&f, EINVAL);
		f = fb512();
		f.height = 0;
		addfb2_err(&f, EINVAL);
	}

	igt_describe("A framebuffer one line larger than its buffer, or pushed past its end by an offset, is refused with EINVAL.");
	igt_subtest("bo-too-small") {
		struct drm_mode_fb_cmd2 f = fb1024();

		f.handles[0] = bo_small;
		addfb2_err(&f, EINVAL);
		f = fb1024();
		f.offsets[0] = 1024 * 4;
		addfb2_err(&f, EINVAL);
	}

	igt_describe("A framebuffer that fits a small buffer is accepted.");
	igt_subtest("small-bo") {
		struct drm_mode_fb_cmd2 f = fb1024();

		f.handles[0] = bo_small;
		f.height = 1020;
		addfb2_ok(&f);
	}

	igt_describe("A modifier without DRM_MODE_FB_MODIFIERS is refused with EINVAL.");
	igt_subtest("addfb25-modifier-no-flag") {
		struct drm_mode_fb_cmd2 f = fb1024();

		f.modifier[0] = I915_FORMAT_MOD_X_TILED;
		addfb2_err(&f, EINVAL);
	}

	igt_describe("A modifier no plane offers is refused with EINVAL.");
	igt_subtest("addfb25-bad-modifier") {
		struct drm_mode_fb_cmd2 f = fb1024();

		f.flags = DRM_MODE_FB_MODIFIERS;
		f.modifier[0] = ~0ull;
		addfb2_err(&f, EINVAL);
	}

	igt_describe("An unknown pixel format is refused with EINVAL.");
	igt_subtest("invalid-pixel-format") {
		struct drm_mode_fb_cmd2 f = fb512();

		f.pixel_format = fourcc_code('G', 'B', 'x', '?');
		addfb2_err(&f, EINVAL);
	}

	igt_describe("Unknown flags are refused with EINVAL.");
	igt_subtest("bad-flags") {
		struct drm_mode_fb_cmd2 f = fb512();

		f.flags = 1u << 31;
		addfb2_err(&f, EINVAL);
	}

	igt_describe("A handle that names no object is refused with ENOENT.");
	igt_subtest("bad-handle") {
		struct drm_mode_fb_cmd2 f = fb512();

		f.handles[0] = bo_small + 1000;
		addfb2_err(&f, ENOENT);
	}

	igt_subtest_group {
		struct drm_mode_fb_cmd2 f = fb1024();
		struct drm_mode_obj_get_properties get = {};
		struct drm_mode_obj_set_property set = { .prop_id = 1 };
		uint64_t value;
		uint32_t prop;

		igt_fixture {
			f = fb1024();
			do_ioctl(fd, DRM_IOCTL_MODE_ADDFB2, &f);
			get = (struct drm_mode_obj_get_properties){
				.props_ptr = (uintptr_t)&prop,
				.prop_values_ptr = (uintptr_t)&value,
				.count_props = 1, .obj_id = f.fb_id,
			};
			set.obj_id = f.fb_id;
		}

		igt_describe("Framebuffers have no properties: OBJ_GETPROPERTIES on one, by any type, is EINVAL.");
		igt_subtest("invalid-get-prop-any") {
			get.obj_type = DRM_MODE_OBJECT_ANY;
			do_ioctl_err(fd, DRM_IOCTL_MODE_OBJ_GETPROPERTIES, &get, EINVAL);
		}

		igt_describe("Framebuffers have no properties: OBJ_GETPROPERTIES on one is EINVAL.");
		igt_subtest("invalid-get-prop") {
			get.obj_type = DRM_MODE_OBJECT_FB;
			do_ioctl_err(fd, DRM_IOCTL_MODE_OBJ_GETPROPERTIES, &get, EINVAL);
		}

		igt_describe("Framebuffers have no properties: OBJ_SETPROPERTY on one, by any type, is EINVAL.");
		igt_subtest("invalid-set-prop-any") {
			set.obj_type = DRM_MODE_OBJECT_ANY;
			do_ioctl_err(fd, DRM_IOCTL_MODE_OBJ_SETPROPERTY, &set, EINVAL);
		}

		igt_describe("Framebuffers have no properties: OBJ_SETPROPERTY on one is EINVAL.");
		igt_subtest("invalid-set-prop") {
			set.obj_type = DRM_MODE_OBJECT_FB;
			do_ioctl_err(fd, DRM_IOCTL_MODE_OBJ_SETPROPERTY, &set, EINVAL);
		}

		igt_describe("A new master cannot remove another client's framebuffer (ENOENT); its owner still can.");
		igt_subtest("master-rmfb") {
			int master2;

			igt_assert_eq(drmDropMaster(fd), 0);
			master2 = drm_open_driver_master(DRIVER_ANY);
			do_ioctl_err(master2, DRM_IOCTL_MODE_RMFB, &f.fb_id, ENOENT);
			igt_assert_eq(drmDropMaster(master2), 0);
			drm_close_driver(master2);
			igt_assert_eq(drmSetMaster(fd), 0);
		}

		igt_fixture
			do_ioctl(fd, DRM_IOCTL_MODE_RMFB, &f.fb_id);
	}

	igt_describe("Removing a framebuffer that does not exist fails with ENOENT.");
	igt_subtest("rmfb-bad-id") {
		uint32_t id = 0xdeadbeef;

		do_ioctl_err(fd, DRM_IOCTL_MODE_RMFB, &id, ENOENT);
	}

	igt_fixture {
		igt_assert_eq(kmstest_dumb_destroy(fd, bo_small), 0);
		igt_assert_eq(kmstest_dumb_destroy(fd, bo), 0);
		drm_close_driver(fd);
	}
}
