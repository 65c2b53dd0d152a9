// SPDX-License-Identifier: MIT
/*
 * kms_atomic: the atomic and legacy plane contracts upstream igt's
 * kms_atomic checks, with its subtest names.  Planes set through the
 * legacy SETCRTC, SETPLANE and cursor ioctls read back through atomic
 * properties and GETPLANE as set, and scan out the same frame (CRC) as
 * the atomic commit of the same layout; invalid object ids, blobs,
 * fences and flags fail with the errno DRM documents and change nothing.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <drm_fourcc.h>

#include "igt.h"
#include "gembuf.h"
#include "gembuf_kms.h"
#include "igt_pipe_crc.h"
#include "sw_sync.h"

IGT_TEST_DESCRIPTION("Atomic and legacy plane and CRTC contracts of DRM on gembuf.");

static struct gk k;
static struct gk_fb primary, ov;
static int fd = -1;

static uint32_t prop(uint32_t obj, uint32_t type, const char *name, uint64_t *val)
{
	uint32_t id = gk_prop(fd, obj, type, name, val);

	igt_assert_f(id, "object %u has no property %s\n", obj, name);
	return id;
}

static uint64_t plane_val(uint32_t plane, const char *name)
{
	uint64_t v;

	prop(plane, DRM_MODE_OBJECT_PLANE, name, &v);
	return v;
}

static uint64_t crtc_val(const char *name)
{
	uint64_t v;

	prop(k.crtc_id, DRM_MODE_OBJECT_CRTC, name, &v);
	return v;
}

/* One property change on top of the current state; returns 0 or -errno. */
static int try_set(uint32_t obj, uint32_t type, const char *name, uint64_t v,
		   uint32_t flags)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	int ret;

	igt_assert(drmModeAtomicAddProperty(req, obj, prop(obj, type, name, NULL), v) >= 0);
	ret = drmModeAtomicCommit(fd, req, flags, NULL);
	drmModeAtomicFree(req);
	return ret ? -errno : 0;
}

static void assert_plane(uint32_t plane, uint32_t fb, uint32_t crtc, int x, int y,
			 uint32_t w, uint32_t h)
{
	drmModePlanePtr p = drmModeGetPlane(fd, plane);

	igt_assert_eq_u32(plane_val(plane, "FB_ID"), fb);
	igt_assert_eq_u32(plane_val(plane, "CRTC_ID"), crtc);
	igt_assert(p);
	igt_assert_eq_u32(p->fb_id, fb);
	igt_assert_eq_u32(p->crtc_id, crtc);
	igt_assert_eq_u32(p->possible_crtcs, 1);
	drmModeFreePlane(p);
	if (!fb)
		return;
	igt_assert_eq((int64_t)plane_val(plane, "CRTC_X"), x);
	igt_assert_eq((int64_t)plane_val(plane, "CRTC_Y"), y);
	igt_assert_eq_u32(plane_val(plane, "CRTC_W"), w);
	igt_assert_eq_u32(plane_val(plane, "CRTC_H"), h);
	igt_assert_eq_u32(plane_val(plane, "SRC_X"), 0);
	igt_assert_eq_u32(plane_val(plane, "SRC_Y"), 0);
	igt_assert_eq_u32(plane_val(plane, "SRC_W"), w << 16);
	igt_assert_eq_u32(plane_val(plane, "SRC_H"), h << 16);
}

static void frame_crc(igt_crc_t *crc)
{
	igt_pipe_crc_t *pc = igt_pipe_crc_new(fd, 0, IGT_PIPE_CRC_SOURCE_AUTO);

	igt_pipe_crc_collect_crc(pc, crc);
	igt_pipe_crc_free(pc);
}

static void base_commit(void)
{
	struct gk_layer l = gk_layer_of(&primary);

	igt_assert_eq(gk_commit(&k, &l, 1, NULL, 0), 0);
}

static void fill(const struct gk_fb *fb, uint32_t v)
{
	for (uint32_t y = 0; y < fb->height; y++)
		for (uint32_t x = 0; x < fb->width; x++)
			((uint32_t *)fb->map)[y * (fb->pitch / 4) + x] = v + ((x / 8) ^ (y / 8));
}

/* DRM_IOCTL_MODE_ATOMIC with @a as is: 0 or the errno. */
static int raw_atomic(struct drm_mode_atomic a)
{
	return igt_ioctl(fd, DRM_IOCTL_MODE_ATOMIC, &a) ? errno : 0;
}

igt_main
{
	igt_fixture {
		fd = gembuf_open_display();
		igt_require(drmSetMaster(fd) == 0);
		gk_init(&k, fd);
		gk_fb_create(&k, &primary, k.mode.hdisplay, k.mode.vdisplay,
			     DRM_FORMAT_XRGB8888);
		fill(&primary, 0x203040);
		gk_fb_create(&k, &ov, k.mode.hdisplay / 2, k.mode.vdisplay / 2,
			     DRM_FORMAT_XRGB8888);
		fill(&ov, 0x806020);
		base_commit();
	}

	igt_describe("An overlay enabled and disabled through atomic and through legacy SETPLANE reads back the same through atomic properties and GETPLANE, and shows the same frame.");
	igt_subtest("plane-overlay-legacy") {
		const struct gk_plane *p = gk_plane(&k, DRM_PLANE_TYPE_OVERLAY, 0);
		struct gk_layer l[2] = { gk_layer_of(&primary), gk_layer_of(&ov) };
		uint32_t w = ov.width, h = ov.height;
		igt_crc_t atomic_crc, legacy_crc, off_crc, legacy_off_crc;

		base_commit();
		frame_crc(&off_crc);
		l[1].x = w / 2;
		l[1].y = h / 2;
		igt_assert_eq(gk_commit(&k, l, 2, NULL, 0), 0);
		assert_plane(p->id, ov.fb_id, k.crtc_id, w / 2, h / 2, w, h);
		frame_crc(&atomic_crc);
		igt_assert(!igt_check_crc_equal(&atomic_crc, &off_crc));

		base_commit();
		assert_plane(p->id, 0, 0, 0, 0, 0, 0);

		igt_assert_eq(drmModeSetPlane(fd, p->id, k.crtc_id, ov.fb_id, 0, w / 2, h / 2,
					      w, h, 0, 0, w << 16, h << 16), 0);
		assert_plane(p->id, ov.fb_id, k.crtc_id, w / 2, h / 2, w, h);
		frame_crc(&legacy_crc);
		igt_assert_crc_equal(&atomic_crc, &legacy_crc);

		igt_assert_eq(drmModeSetPlane(fd, p->id, k.crtc_id, 0, 0, 0, 0, 0, 0,
					      0, 0, 0, 0), 0);
		assert_plane(p->id, 0, 0, 0, 0, 0, 0);
		frame_crc(&legacy_off_crc);
		igt_assert_crc_equal(&off_crc, &legacy_off_crc);
	}

	igt_describe("The primary plane set through legacy SETCRTC and universal SETPLANE reads back through atomic and GETCRTC, and shows the same frame as atomic.");
	igt_subtest("plane-primary-legacy") {
		const struct gk_plane *p = gk_plane(&k, DRM_PLANE_TYPE_PRIMARY, 0);
		uint32_t w = primary.width, h = primary.height;
		struct gk_fb fb2;
		struct gk_layer l;
		igt_crc_t atomic_crc, legacy_crc, universal_crc;
		drmModeCrtcPtr c;

		gk_fb_create(&k, &fb2, w, h, DRM_FORMAT_XRGB8888);
		fill(&fb2, 0x333333);
		l = gk_layer_of(&fb2);
		igt_assert_eq(gk_commit(&k, &l, 1, NULL, 0), 0);
		assert_plane(p->id, fb2.fb_id, k.crtc_id, 0, 0, w, h);
		frame_crc(&atomic_crc);

		base_commit();
		igt_assert_eq(drmModeSetCrtc(fd, k.crtc_id, fb2.fb_id, 0, 0, &k.conn_id, 1,
					     &k.mode), 0);
		assert_plane(p->id, fb2.fb_id, k.crtc_id, 0, 0, w, h);
		c = drmModeGetCrtc(fd, k.crtc_id);
		igt_assert(c && c->mode_valid && c->buffer_id == fb2.fb_id);
		igt_assert_eq(c->mode.hdisplay, k.mode.hdisplay);
		drmModeFreeCrtc(c);
		igt_assert_eq_u32(crtc_val("ACTIVE"), 1);
		frame_crc(&legacy_crc);
		igt_assert_crc_equal(&atomic_crc, &legacy_crc);

		base_commit();
		igt_assert_eq(drmModeSetPlane(fd, p->id, k.crtc_id, fb2.fb_id, 0, 0, 0, w, h,
					      0, 0, w << 16, h << 16), 0);
		assert_plane(p->id, fb2.fb_id, k.crtc_id, 0, 0, w, h);
		frame_crc(&universal_crc);
		igt_assert_crc_equal(&atomic_crc, &universal_crc);

		base_commit();
		gk_fb_destroy(&k, &fb2);
	}

	igt_describe("The legacy cursor ioctls drive the cursor plane: FB and position read back through atomic, removing the cursor disables the plane.");
	igt_subtest("plane-cursor-legacy") {
		const struct gk_plane *p = gk_plane(&k, DRM_PLANE_TYPE_CURSOR, 0);
		uint64_t cw = 0, ch = 0;
		uint32_t handle;
		unsigned int pitch;
		uint64_t size;
		uint32_t *map;

		igt_assert(p);
		igt_assert_eq(drmGetCap(fd, DRM_CAP_CURSOR_WIDTH, &cw), 0);
		igt_assert_eq(drmGetCap(fd, DRM_CAP_CURSOR_HEIGHT, &ch), 0);
		/* Upstream's varying-size cursor tests want up to 512x512. */
		igt_assert(cw >= 512 && ch >= 512);
		handle = kmstest_dumb_create(fd, cw, ch, 32, &pitch, &size);
		map = kmstest_dumb_map_buffer(fd, handle, size, PROT_READ | PROT_WRITE);
		for (uint64_t i = 0; i < size / 4; i++)
			map[i] = 0xff00ff00;

		igt_assert_eq(drmModeSetCursor(fd, k.crtc_id, handle, cw, ch), 0);
		igt_assert_neq_u32(plane_val(p->id, "FB_ID"), 0);
		igt_assert_eq_u32(plane_val(p->id, "CRTC_ID"), k.crtc_id);
		igt_assert_eq_u32(plane_val(p->id, "CRTC_W"), cw);
		igt_assert_eq(drmModeMoveCursor(fd, k.crtc_id, 100, 50), 0);
		igt_assert_eq((int64_t)plane_val(p->id, "CRTC_X"), 100);
		igt_assert_eq((int64_t)plane_val(p->id, "CRTC_Y"), 50);
		igt_assert_eq(drmModeMoveCursor(fd, k.crtc_id, 84, 34), 0);
		igt_assert_eq((int64_t)plane_val(p->id, "CRTC_X"), 84);
		/* A cursor of the wrong size is refused. */
		igt_assert_eq(drmModeSetCursor(fd, k.crtc_id, handle, cw + 1, ch), -EINVAL);
		igt_assert_eq(drmModeSetCursor(fd, k.crtc_id, 0, 0, 0), 0);
		igt_assert_eq_u32(plane_val(p->id, "FB_ID"), 0);
		igt_assert_eq_u32(plane_val(p->id, "CRTC_ID"), 0);
		munmap(map, size);
		kmstest_dumb_destroy(fd, handle);
	}

	igt_describe("zpos is immutable on the primary and the cursor and ranges 1..3 on overlays; two enabled overlays may share one, and then the one of the higher plane id is on top (the CRC of the layout with zpos told apart that way).");
	igt_subtest("plane-immutable-zpos") {
		const struct gk_plane *pri = gk_plane(&k, DRM_PLANE_TYPE_PRIMARY, 0);
		const struct gk_plane *cur = gk_plane(&k, DRM_PLANE_TYPE_CURSOR, 0);
		const struct gk_plane *o1 = gk_plane(&k, DRM_PLANE_TYPE_OVERLAY, 0);
		struct gk_layer l[3] = { gk_layer_of(&primary), gk_layer_of(&ov), gk_layer_of(&ov) };
		igt_crc_t shared, by_id, reversed;

		for (int i = 0; i < 2; i++) {
			uint32_t id = i ? cur->id : pri->id;
			drmModePropertyPtr z = drmModeGetProperty(fd, prop(id, DRM_MODE_OBJECT_PLANE,
									 "zpos", NULL));

			igt_assert(z && (z->flags & DRM_MODE_PROP_IMMUTABLE));
			drmModeFreeProperty(z);
			igt_assert_eq(try_set(id, DRM_MODE_OBJECT_PLANE, "zpos", 2, 0), -EINVAL);
		}
		igt_assert_eq(try_set(o1->id, DRM_MODE_OBJECT_PLANE, "zpos", 0, 0), -EINVAL);
		igt_assert_eq(try_set(o1->id, DRM_MODE_OBJECT_PLANE, "zpos", 4, 0), -EINVAL);

		/*
		 * Two overlays on one zpos, overlapping: DRM leaves their order
		 * undefined, normalize_zpos stacks them by plane id.  The CRC
		 * is that of the same layout with the higher id given the
		 * higher zpos, and not that of the other order.
		 */
		igt_assert_cmpuint(k.planes[1].id, <, >=, k.planes[2].id);
		l[1].zpos = 2;
		l[2].zpos = 2;
		l[2].x = 40;
		igt_assert_eq(gk_commit(&k, l, 3, NULL, DRM_MODE_ATOMIC_TEST_ONLY), 0);
		igt_assert_eq(gk_commit(&k, l, 3, NULL, 0), 0);
		frame_crc(&shared);
		l[2].zpos = 3;
		igt_assert_eq(gk_commit(&k, l, 3, NULL, 0), 0);
		frame_crc(&by_id);
		igt_assert_crc_equal(&shared, &by_id);
		l[1].zpos = 3;
		l[2].zpos = 2;
		igt_assert_eq(gk_commit(&k, l, 3, NULL, 0), 0);
		frame_crc(&reversed);
		igt_assert(!igt_check_crc_equal(&shared, &reversed));
		/* The same zpos on a disabled plane is no collision either. */
		l[2].fb = NULL;
		l[1].zpos = 1;
		igt_assert_eq(gk_commit(&k, l, 3, NULL, 0), 0);
		igt_assert_eq(try_set(gk_plane(&k, DRM_PLANE_TYPE_OVERLAY, 1)->id,
				      DRM_MODE_OBJECT_PLANE, "zpos", 1, 0), 0);
		base_commit();
		igt_assert_eq(try_set(gk_plane(&k, DRM_PLANE_TYPE_OVERLAY, 1)->id,
				      DRM_MODE_OBJECT_PLANE, "zpos", 2, 0), 0);
	}

	igt_describe("FB_ID and CRTC_ID naming other kinds of objects, one set without the other, and a framebuffer smaller than the source rectangle are refused.");
	igt_subtest("plane-invalid-params") {
		const struct gk_plane *p = gk_plane(&k, DRM_PLANE_TYPE_PRIMARY, 0);
		uint32_t bad[] = { p->id, k.crtc_id, k.conn_id, (uint32_t)crtc_val("MODE_ID") };
		struct gk_fb small;

		base_commit();
		for (unsigned int i = 0; i < 4; i++) {
			igt_assert_eq(try_set(p->id, DRM_MODE_OBJECT_PLANE, "FB_ID", bad[i], 0), -EINVAL);
			igt_assert_eq_u32(plane_val(p->id, "FB_ID"), primary.fb_id);
		}
		igt_assert_eq(try_set(p->id, DRM_MODE_OBJECT_PLANE, "FB_ID", 0, 0), -EINVAL);
		bad[1] = primary.fb_id;
		for (unsigned int i = 0; i < 4; i++)
			igt_assert_eq(try_set(p->id, DRM_MODE_OBJECT_PLANE, "CRTC_ID", bad[i], 0),
				      -EINVAL);
		igt_assert_eq(try_set(p->id, DRM_MODE_OBJECT_PLANE, "CRTC_ID", 0, 0), -EINVAL);
		igt_assert_eq_u32(plane_val(p->id, "CRTC_ID"), k.crtc_id);

		gk_fb_create(&k, &small, primary.width - 1, primary.height - 1,
			     DRM_FORMAT_XRGB8888);
		igt_assert_eq(try_set(p->id, DRM_MODE_OBJECT_PLANE, "FB_ID", small.fb_id, 0),
			      -ENOSPC);
		gk_fb_destroy(&k, &small);
		igt_assert_eq_u32(plane_val(p->id, "FB_ID"), primary.fb_id);
	}

	igt_describe("IN_FENCE_FD must be a fence: the flip waits for it, and a bad CRTC fails even with a valid one.");
	igt_subtest("plane-invalid-params-fence") {
		const struct gk_plane *p = gk_plane(&k, DRM_PLANE_TYPE_PRIMARY, 0);
		uint32_t in_fence = prop(p->id, DRM_MODE_OBJECT_PLANE, "IN_FENCE_FD", NULL);
		uint32_t fb_prop = prop(p->id, DRM_MODE_OBJECT_PLANE, "FB_ID", NULL);
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		drmModeAtomicReqPtr req;
		struct gk_fb fb2;
		int timeline, fence;
		char buf[256];

		igt_require(kernel_has_sw_sync());
		base_commit();
		igt_assert_eq(try_set(p->id, DRM_MODE_OBJECT_PLANE, "IN_FENCE_FD", fd, 0), -EINVAL);

		timeline = sw_sync_timeline_create();
		fence = sw_sync_timeline_create_fence(timeline, 1);
		req = drmModeAtomicAlloc();
		drmModeAtomicAddProperty(req, p->id, in_fence, fence);
		drmModeAtomicAddProperty(req, p->id, prop(p->id, DRM_MODE_OBJECT_PLANE, "CRTC_ID", NULL), ~0u);
		igt_assert_neq(drmModeAtomicCommit(fd, req, 0, NULL), 0);
		igt_assert_eq(errno, EINVAL);
		drmModeAtomicFree(req);

		/* A nonblocking flip behind an unsignalled fence waits for it. */
		gk_fb_create(&k, &fb2, primary.width, primary.height, DRM_FORMAT_XRGB8888);
		req = drmModeAtomicAlloc();
		drmModeAtomicAddProperty(req, p->id, in_fence, fence);
		drmModeAtomicAddProperty(req, p->id, fb_prop, fb2.fb_id);
		igt_assert_eq(drmModeAtomicCommit(fd, req, DRM_MODE_ATOMIC_NONBLOCK |
						  DRM_MODE_PAGE_FLIP_EVENT, NULL), 0);
		drmModeAtomicFree(req);
		igt_assert_eq(poll(&pfd, 1, 200), 0);
		igt_assert_eq_u32(plane_val(p->id, "FB_ID"), fb2.fb_id);
		sw_sync_timeline_inc(timeline, 1);
		igt_assert_eq(poll(&pfd, 1, 5000), 1);
		igt_assert_lt(0, read(fd, buf, sizeof(buf)));
		close(fence);
		close(timeline);
		base_commit();
		gk_fb_destroy(&k, &fb2);
	}

	igt_describe("MODE_ID naming other objects or blobs of the wrong size, and TEST_ONLY with a page-flip event, are refused; the mode can be restored.");
	igt_subtest("crtc-invalid-params") {
		uint64_t old_mode = crtc_val("MODE_ID");
		uint32_t bad[] = { gk_plane(&k, DRM_PLANE_TYPE_PRIMARY, 0)->id, k.crtc_id,
				   primary.fb_id };
		uint32_t blob;

		base_commit();
		for (unsigned int i = 0; i < 3; i++)
			igt_assert_eq(try_set(k.crtc_id, DRM_MODE_OBJECT_CRTC, "MODE_ID", bad[i],
					      DRM_MODE_ATOMIC_ALLOW_MODESET), -EINVAL);
		igt_assert_eq(try_set(k.crtc_id, DRM_MODE_OBJECT_CRTC, "MODE_ID", old_mode,
				      DRM_MODE_ATOMIC_TEST_ONLY), 0);
		igt_assert_eq(try_set(k.crtc_id, DRM_MODE_OBJECT_CRTC, "MODE_ID", old_mode,
				      DRM_MODE_ATOMIC_TEST_ONLY | DRM_MODE_PAGE_FLIP_EVENT),
			      -EINVAL);
		for (int d = -1; d <= 1; d += 2) {
			igt_assert_eq(drmModeCreatePropertyBlob(fd, &k.mode, sizeof(k.mode) + d,
								&blob), 0);
			igt_assert_eq(try_set(k.crtc_id, DRM_MODE_OBJECT_CRTC, "MODE_ID", blob,
					      DRM_MODE_ATOMIC_ALLOW_MODESET), -EINVAL);
			drmModeDestroyPropertyBlob(fd, blob);
		}
		igt_assert_eq_u32(crtc_val("MODE_ID"), old_mode);
		igt_assert_eq_u32(crtc_val("ACTIVE"), 1);
	}

	igt_describe("OUT_FENCE_PTR must point to writable memory, reads -1 after TEST_ONLY, and gives a fence that signals with the flip.");
	igt_subtest("crtc-invalid-params-fence") {
		long page = sysconf(_SC_PAGE_SIZE);
		int prots[] = { PROT_READ, PROT_EXEC, PROT_NONE };
		struct pollfd pfd;
		int32_t fence;

		base_commit();
		for (int i = 0; i < 3; i++) {
			void *map = mmap(NULL, page, prots[i], MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);

			igt_assert(map != MAP_FAILED);
			igt_assert_eq(try_set(k.crtc_id, DRM_MODE_OBJECT_CRTC, "OUT_FENCE_PTR",
					      (uintptr_t)map, 0), -EFAULT);
			munmap(map, page);
		}

		fence = 0;
		igt_assert_eq(try_set(k.crtc_id, DRM_MODE_OBJECT_CRTC, "OUT_FENCE_PTR",
				      (uintptr_t)&fence, DRM_MODE_ATOMIC_TEST_ONLY), 0);
		igt_assert_eq(fence, -1);

		igt_assert_eq(try_set(k.crtc_id, DRM_MODE_OBJECT_CRTC, "OUT_FENCE_PTR",
				      (uintptr_t)&fence, DRM_MODE_ATOMIC_NONBLOCK), 0);
		igt_assert_fd(fence);
		pfd = (struct pollfd){ .fd = fence, .events = POLLIN };
		igt_assert_eq(poll(&pfd, 1, 5000), 1);
		close(fence);
	}

	igt_describe("Unknown flags, nonzero reserved field, bad pointers, unknown objects and properties, and out-of-range values fail with EINVAL, EFAULT or ENOENT.");
	igt_subtest("atomic-invalid-params") {
		const struct gk_plane *p = gk_plane(&k, DRM_PLANE_TYPE_OVERLAY, 0);
		uint32_t objs[1] = { p->id }, counts[1] = { 1 };
		uint32_t props[1] = { prop(p->id, DRM_MODE_OBJECT_PLANE, "alpha", NULL) };
		uint64_t vals[1] = { 0xffff };
		struct drm_mode_atomic a = {
			.count_objs = 1,
			.objs_ptr = (uintptr_t)objs,
			.count_props_ptr = (uintptr_t)counts,
			.props_ptr = (uintptr_t)props,
			.prop_values_ptr = (uintptr_t)vals,
		};
		struct drm_mode_atomic b;

		base_commit();
		igt_assert_eq(raw_atomic(a), 0);

		b = a;
		b.flags = 0x80000;
		igt_assert_eq(raw_atomic(b), EINVAL);
		b = a;
		b.reserved = 1;
		igt_assert_eq(raw_atomic(b), EINVAL);
		b = a;
		b.objs_ptr = 8;
		igt_assert_eq(raw_atomic(b), EFAULT);
		b = a;
		b.prop_values_ptr = 8;
		igt_assert_eq(raw_atomic(b), EFAULT);

		objs[0] = 0xfffffff0;
		igt_assert_eq(raw_atomic(a), ENOENT);
		objs[0] = p->id;
		props[0] = prop(k.crtc_id, DRM_MODE_OBJECT_CRTC, "ACTIVE", NULL);
		igt_assert_eq(raw_atomic(a), ENOENT);
		props[0] = prop(p->id, DRM_MODE_OBJECT_PLANE, "alpha", NULL);
		vals[0] = 0x10000;
		igt_assert_eq(raw_atomic(a), EINVAL);
		igt_assert_eq_u32(plane_val(p->id, "alpha"), 0xffff);
	}

	igt_fixture {
		gk_disable(&k);
		gk_fb_destroy(&k, &ov);
		gk_fb_destroy(&k, &primary);
		drm_close_driver(fd);
	}
}
