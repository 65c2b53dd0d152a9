// SPDX-License-Identifier: MIT
/* See gembuf_kms.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <linux/sync_file.h>
#include <unistd.h>
#include <drm_fourcc.h>

#include "gembuf.h"
#include "gembuf_kms.h"
#include "syncobj_helpers.h"

uint32_t gk_prop(int fd, uint32_t obj, uint32_t type, const char *name,
		 uint64_t *val)
{
	drmModeObjectPropertiesPtr props = drmModeObjectGetProperties(fd, obj, type);
	uint32_t id = 0;

	for (uint32_t i = 0; props && i < props->count_props; i++) {
		drmModePropertyPtr p = drmModeGetProperty(fd, props->props[i]);

		if (p && !strcmp(p->name, name)) {
			id = p->prop_id;
			if (val)
				*val = props->prop_values[i];
		}
		drmModeFreeProperty(p);
	}
	drmModeFreeObjectProperties(props);
	return id;
}

static uint32_t prop_id(int fd, uint32_t obj, uint32_t type, const char *name)
{
	return gk_prop(fd, obj, type, name, NULL);
}

/* Whether connector @c can be driven by the CRTC of index @pipe. */
static bool on_pipe(int fd, drmModeConnectorPtr c, unsigned int pipe)
{
	bool ok = false;

	for (int i = 0; i < c->count_encoders && !ok; i++) {
		drmModeEncoderPtr e = drmModeGetEncoder(fd, c->encoders[i]);

		ok = e && (e->possible_crtcs & (1u << pipe));
		drmModeFreeEncoder(e);
	}
	return ok;
}

void gk_init(struct gk *k, int fd)
{
	gk_init_pipe(k, fd, 0);
}

void gk_init_pipe(struct gk *k, int fd, unsigned int pipe)
{
	drmModeResPtr res;
	drmModePlaneResPtr pres;

	memset(k, 0, sizeof(*k));
	k->fd = fd;
	k->pipe = pipe;
	igt_assert_eq(drmSetClientCap(fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1), 0);
	igt_assert_eq(drmSetClientCap(fd, DRM_CLIENT_CAP_ATOMIC, 1), 0);
	igt_assert_eq(drmSetClientCap(fd, DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, 1), 0);

	res = drmModeGetResources(fd);
	igt_assert(res && (int)pipe < res->count_crtcs);
	k->crtc_id = res->crtcs[pipe];
	/*
	 * Any CRTC can drive any virtual output: pipe i takes the i-th one,
	 * so that pipes get outputs of their own.  The writeback connector
	 * is the one of the pipe's own CRTC.
	 */
	for (int i = 0, skip = pipe; i < res->count_connectors; i++) {
		drmModeConnectorPtr c = drmModeGetConnector(fd, res->connectors[i]);
		bool wb;

		igt_assert(c);
		wb = c->connector_type == DRM_MODE_CONNECTOR_WRITEBACK;
		if (!on_pipe(fd, c, pipe) || (wb ? k->wb_id : k->conn_id)) {
			drmModeFreeConnector(c);
			continue;
		}
		if (!wb && skip) {
			skip--;
			drmModeFreeConnector(c);
			continue;
		}
		if (c->connector_type == DRM_MODE_CONNECTOR_WRITEBACK) {
			k->wb_id = c->connector_id;
		} else {
			k->conn_id = c->connector_id;
			for (int m = 0; m < c->count_modes; m++)
				if (c->modes[m].type & DRM_MODE_TYPE_PREFERRED)
					k->mode = c->modes[m];
		}
		drmModeFreeConnector(c);
	}
	drmModeFreeResources(res);
	igt_assert(k->conn_id && k->wb_id && k->mode.hdisplay);
	igt_assert_eq(drmModeCreatePropertyBlob(fd, &k->mode, sizeof(k->mode),
						&k->mode_blob), 0);

	pres = drmModeGetPlaneResources(fd);
	igt_assert(pres);
	for (uint32_t i = 0; i < pres->count_planes && k->num_planes < GK_MAX_PLANES; i++) {
		uint32_t id = pres->planes[i];
		drmModePlanePtr pl = drmModeGetPlane(fd, id);
		drmModeObjectPropertiesPtr props;
		struct gk_plane *p;

		igt_assert(pl);
		if (!(pl->possible_crtcs & (1u << pipe))) {
			drmModeFreePlane(pl);
			continue;
		}
		drmModeFreePlane(pl);
		p = &k->planes[k->num_planes++];
		props = drmModeObjectGetProperties(fd, id, DRM_MODE_OBJECT_PLANE);
		p->id = id;
		for (uint32_t j = 0; j < props->count_props; j++) {
			drmModePropertyPtr pr = drmModeGetProperty(fd, props->props[j]);

			if (!strcmp(pr->name, "type"))
				p->type = props->prop_values[j];
			drmModeFreeProperty(pr);
		}
		drmModeFreeObjectProperties(props);
		p->zpos_prop = prop_id(fd, id, DRM_MODE_OBJECT_PLANE, "zpos");
		p->alpha_prop = prop_id(fd, id, DRM_MODE_OBJECT_PLANE, "alpha");
		p->blend_prop = prop_id(fd, id, DRM_MODE_OBJECT_PLANE, "pixel blend mode");
		p->rotation_prop = prop_id(fd, id, DRM_MODE_OBJECT_PLANE, "rotation");
		p->colorkey_prop = prop_id(fd, id, DRM_MODE_OBJECT_PLANE, "COLORKEY");
		p->colorkey_mask_prop = prop_id(fd, id, DRM_MODE_OBJECT_PLANE, "COLORKEY_MASK");
		p->encoding_prop = prop_id(fd, id, DRM_MODE_OBJECT_PLANE, "COLOR_ENCODING");
		p->range_prop = prop_id(fd, id, DRM_MODE_OBJECT_PLANE, "COLOR_RANGE");
		p->in_fence_prop = prop_id(fd, id, DRM_MODE_OBJECT_PLANE, "IN_FENCE_FD");
		if (k->num_planes == 1) {
			k->p_fb = prop_id(fd, id, DRM_MODE_OBJECT_PLANE, "FB_ID");
			k->p_crtc = prop_id(fd, id, DRM_MODE_OBJECT_PLANE, "CRTC_ID");
			k->p_sx = prop_id(fd, id, DRM_MODE_OBJECT_PLANE, "SRC_X");
			k->p_sy = prop_id(fd, id, DRM_MODE_OBJECT_PLANE, "SRC_Y");
			k->p_sw = prop_id(fd, id, DRM_MODE_OBJECT_PLANE, "SRC_W");
			k->p_sh = prop_id(fd, id, DRM_MODE_OBJECT_PLANE, "SRC_H");
			k->p_cx = prop_id(fd, id, DRM_MODE_OBJECT_PLANE, "CRTC_X");
			k->p_cy = prop_id(fd, id, DRM_MODE_OBJECT_PLANE, "CRTC_Y");
			k->p_cw = prop_id(fd, id, DRM_MODE_OBJECT_PLANE, "CRTC_W");
			k->p_ch = prop_id(fd, id, DRM_MODE_OBJECT_PLANE, "CRTC_H");
		}
	}
	drmModeFreePlaneResources(pres);

	k->crtc_active = prop_id(fd, k->crtc_id, DRM_MODE_OBJECT_CRTC, "ACTIVE");
	k->crtc_mode_id = prop_id(fd, k->crtc_id, DRM_MODE_OBJECT_CRTC, "MODE_ID");
	k->crtc_gamma_prop = prop_id(fd, k->crtc_id, DRM_MODE_OBJECT_CRTC, "GAMMA_LUT");
	k->conn_crtc_id = prop_id(fd, k->conn_id, DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID");
	k->wb_crtc_id = prop_id(fd, k->wb_id, DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID");
	k->wb_fb_prop = prop_id(fd, k->wb_id, DRM_MODE_OBJECT_CONNECTOR, "WRITEBACK_FB_ID");
	k->wb_fence_prop = prop_id(fd, k->wb_id, DRM_MODE_OBJECT_CONNECTOR,
				   "WRITEBACK_OUT_FENCE_PTR");
	igt_assert(k->crtc_active && k->wb_fb_prop && k->wb_fence_prop);
}

bool gk_set_mode(struct gk *k, uint16_t width, uint16_t height)
{
	drmModeConnectorPtr c = drmModeGetConnector(k->fd, k->conn_id);
	bool found = false;

	igt_assert(c);
	for (int m = 0; m < c->count_modes && !found; m++) {
		if (c->modes[m].hdisplay != width || c->modes[m].vdisplay != height)
			continue;
		k->mode = c->modes[m];
		found = true;
	}
	drmModeFreeConnector(c);
	if (found)
		gk_set_mode_info(k, &k->mode);
	return found;
}

void gk_set_mode_info(struct gk *k, const drmModeModeInfo *mode)
{
	k->mode = *mode;
	drmModeDestroyPropertyBlob(k->fd, k->mode_blob);
	igt_assert_eq(drmModeCreatePropertyBlob(k->fd, &k->mode, sizeof(k->mode),
						&k->mode_blob), 0);
}

drmModeModeInfo gk_mode_at_hz(const drmModeModeInfo *mode, unsigned int hz)
{
	drmModeModeInfo m = *mode;

	m.clock = (uint64_t)m.htotal * m.vtotal * hz / 1000;
	m.vrefresh = hz;
	m.type = DRM_MODE_TYPE_USERDEF;
	snprintf(m.name, sizeof(m.name), "%ux%u@%u", m.hdisplay, m.vdisplay, hz);
	return m;
}

struct gk_layer gk_layer_of(const struct gk_fb *fb)
{
	return (struct gk_layer){ .fb = fb, .zpos = -1, .alpha = 0xffff, .blend = -1 };
}

int gk_num_pipes(int fd)
{
	drmModeResPtr res = drmModeGetResources(fd);
	int n = res ? res->count_crtcs : 0;

	drmModeFreeResources(res);
	return n;
}

const struct gk_plane *gk_plane(const struct gk *k, uint32_t type, unsigned int idx)
{
	for (unsigned int i = 0; i < k->num_planes; i++)
		if (k->planes[i].type == type && idx-- == 0)
			return &k->planes[i];
	return NULL;
}

bool gk_format_is_yuv(uint32_t format)
{
	return format == DRM_FORMAT_YUYV || format == DRM_FORMAT_UYVY ||
	       format == DRM_FORMAT_NV12;
}

static uint32_t bpp_of(uint32_t format)
{
	switch (format) {
	case DRM_FORMAT_RGB565:
	case DRM_FORMAT_YUYV:
	case DRM_FORMAT_UYVY:
		return 16;
	case DRM_FORMAT_XRGB16161616:
	case DRM_FORMAT_ARGB16161616:
		return 64;
	case DRM_FORMAT_NV12:
		return 8;
	default:
		return 32;
	}
}

void gk_fb_from_handle(struct gk *k, struct gk_fb *fb, uint32_t handle,
		       uint32_t width, uint32_t height, uint32_t format,
		       uint32_t pitch, uint32_t offset1, uint32_t pitch1)
{
	uint32_t handles[4] = { handle, offset1 ? handle : 0 };
	uint32_t pitches[4] = { pitch, pitch1 };
	uint32_t offsets[4] = { 0, offset1 };

	fb->handle = handle;
	fb->width = width;
	fb->height = height;
	fb->format = format;
	fb->pitch = pitch;
	igt_assert_eq(drmModeAddFB2(k->fd, width, height, format, handles, pitches,
				    offsets, &fb->fb_id, 0), 0);
}

void gk_fb_create(struct gk *k, struct gk_fb *fb, uint32_t width, uint32_t height,
		  uint32_t format)
{
	uint32_t pitch = width * bpp_of(format) / 8, offset1 = 0;
	uint64_t size = (uint64_t)pitch * height;

	if (format == DRM_FORMAT_NV12) {
		offset1 = size;
		size += size / 2;
	}
	memset(fb, 0, sizeof(*fb));
	if (!is_gembuf_device(k->fd)) {
		/* Other drivers (vkms, for comparisons): a dumb buffer. */
		uint32_t h;

		igt_assert_eq(offset1, 0);
		h = kmstest_dumb_create(k->fd, width, height, bpp_of(format),
					&pitch, &size);
		fb->size = size;
		gk_fb_from_handle(k, fb, h, width, height, format, pitch, 0, 0);
		fb->map = kmstest_dumb_map_buffer(k->fd, h, size,
						  PROT_READ | PROT_WRITE);
		return;
	}
	fb->size = size;
	gk_fb_from_handle(k, fb, gembuf_create(k->fd, size, 0, GEMBUF_CACHE_WB),
			  width, height, format, pitch, offset1,
			  offset1 ? pitch : 0);
	fb->map = gembuf_mmap(k->fd, fb->handle, size);
}

void gk_fb_fill(const struct gk_fb *fb, uint32_t v)
{
	for (uint32_t i = 0; i < fb->size / 4; i++)
		((uint32_t *)fb->map)[i] = v;
}

void gk_fb_destroy(struct gk *k, struct gk_fb *fb)
{
	if (fb->map)
		munmap(fb->map, fb->size);
	drmModeRmFB(k->fd, fb->fb_id);
	gem_close(k->fd, fb->handle);
	memset(fb, 0, sizeof(*fb));
}

static void add(drmModeAtomicReqPtr req, uint32_t obj, uint32_t prop, uint64_t v)
{
	if (prop)
		igt_assert(drmModeAtomicAddProperty(req, obj, prop, v) >= 0);
}

void gk_req_writeback(const struct gk *k, drmModeAtomicReqPtr req, uint32_t fb_id,
		      int32_t *fence)
{
	add(req, k->wb_id, k->wb_crtc_id, k->crtc_id);
	add(req, k->wb_id, k->wb_fb_prop, fb_id);
	add(req, k->wb_id, k->wb_fence_prop, (uint64_t)(uintptr_t)fence);
}

/*
 * Commit @layers on the first planes (primary, then overlays, then the
 * cursor) with @wb as writeback target and @flags as they are, plane
 * @fenced waiting for @in_fence (-1: none); *@fence gets the writeback's
 * out-fence (-1 without @wb or for a TEST_ONLY commit).  Returns 0 or
 * -errno of the commit.
 */
static int commit_start(struct gk *k, const struct gk_layer *layers, unsigned int n,
			const struct gk_fb *wb, uint32_t flags, unsigned int fenced,
			int in_fence, int *fence)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	int32_t wb_fence = -1;
	int ret;

	add(req, k->crtc_id, k->crtc_active, 1);
	add(req, k->crtc_id, k->crtc_mode_id, k->mode_blob);
	add(req, k->conn_id, k->conn_crtc_id, k->wb_only ? 0 : k->crtc_id);
	for (unsigned int i = 0; i < k->num_planes; i++) {
		const struct gk_plane *p = &k->planes[i];
		const struct gk_layer *l = i < n ? &layers[i] : NULL;

		if (!l || !l->fb) {
			add(req, p->id, k->p_fb, 0);
			add(req, p->id, k->p_crtc, 0);
			continue;
		}
		add(req, p->id, k->p_fb, l->fb->fb_id);
		add(req, p->id, k->p_crtc, k->crtc_id);
		add(req, p->id, k->p_sx, (uint64_t)l->sx << 16);
		add(req, p->id, k->p_sy, (uint64_t)l->sy << 16);
		add(req, p->id, k->p_sw, (uint64_t)(l->sw ?: l->fb->width) << 16);
		add(req, p->id, k->p_sh, (uint64_t)(l->sh ?: l->fb->height) << 16);
		add(req, p->id, k->p_cx, (uint64_t)(int64_t)l->x);
		add(req, p->id, k->p_cy, (uint64_t)(int64_t)l->y);
		add(req, p->id, k->p_cw, l->w ?: (l->sw ?: l->fb->width));
		add(req, p->id, k->p_ch, l->h ?: (l->sh ?: l->fb->height));
		if (l->zpos >= 0 && p->type == DRM_PLANE_TYPE_OVERLAY)
			add(req, p->id, p->zpos_prop, l->zpos);
		add(req, p->id, p->alpha_prop, l->alpha);
		if (l->blend >= 0)
			add(req, p->id, p->blend_prop, l->blend);
		add(req, p->id, p->rotation_prop, l->rotation ?: DRM_MODE_ROTATE_0);
		add(req, p->id, p->colorkey_prop, l->colorkey);
		add(req, p->id, p->colorkey_mask_prop, l->colorkey_mask);
		add(req, p->id, p->encoding_prop, l->encoding);
		add(req, p->id, p->range_prop, l->range);
		if (i == fenced && in_fence >= 0)
			add(req, p->id, p->in_fence_prop, (uint64_t)in_fence);
	}
	add(req, k->crtc_id, k->crtc_gamma_prop, k->gamma_blob);
	if (wb)
		gk_req_writeback(k, req, wb->fb_id, &wb_fence);
	*fence = -1;
	ret = drmModeAtomicCommit(k->fd, req, flags, NULL);
	drmModeAtomicFree(req);
	if (ret)
		return -errno;
	if (wb && !(flags & DRM_MODE_ATOMIC_TEST_ONLY)) {
		igt_assert(wb_fence >= 0);
		*fence = wb_fence;
	}
	return 0;
}

int gk_commit_start(struct gk *k, const struct gk_layer *layers, unsigned int n,
		    const struct gk_fb *wb, uint32_t flags, int *fence)
{
	return commit_start(k, layers, n, wb, flags | DRM_MODE_ATOMIC_ALLOW_MODESET,
			    0, -1, fence);
}

int gk_flip_start(struct gk *k, const struct gk_layer *layers, unsigned int n,
		  const struct gk_fb *wb, uint32_t flags, unsigned int fenced,
		  int in_fence, int *fence)
{
	/* A fence the commit would leave out would wait for nothing. */
	if (in_fence >= 0)
		igt_assert(fenced < n && fenced < k->num_planes && layers[fenced].fb &&
			   k->planes[fenced].in_fence_prop);
	return commit_start(k, layers, n, wb, flags, fenced, in_fence, fence);
}

unsigned int gk_read_flip(int fd, uint64_t *us)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct drm_event_vblank ev;

	igt_assert_eq(poll(&p, 1, 10000), 1);
	igt_assert_eq(read(fd, &ev, sizeof(ev)), sizeof(ev));
	igt_assert_eq_u32(ev.base.type, DRM_EVENT_FLIP_COMPLETE);
	if (us)
		*us = ev.tv_sec * 1000000ull + ev.tv_usec;
	return ev.sequence;
}

int gk_drain_events(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[1024];
	int n = 0;

	while (poll(&p, 1, 0) == 1) {
		igt_assert_lt(0, read(fd, buf, sizeof(buf)));
		n++;
	}
	return n;
}

static struct gk_mover *running_mover;

static void kill_mover(int sig)
{
	struct gk_mover *m = running_mover;

	if (m && m->pid > 0) {
		kill(m->pid, SIGKILL);
		waitpid(m->pid, NULL, 0);
		m->pid = 0;
	}
	running_mover = NULL;
}

struct gk_mover *gk_mover_start(int fd, uint32_t crtc_id, const int at[2][2])
{
	static bool handler;
	struct gk_mover *m;
	pid_t pid;

	if (!handler) {
		igt_install_exit_handler(kill_mover);
		handler = true;
	}
	kill_mover(0);
	m = mmap(NULL, sizeof(*m), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	igt_assert(m != MAP_FAILED);
	/* m is shared: only the parent writes the child's pid there. */
	pid = fork();
	igt_assert(pid >= 0);
	if (pid) {
		m->pid = pid;
		running_mover = m;
		return m;
	}
	for (uint64_t n = 0, end = gettime_ns() + 30 * 1000000000ull;
	     !m->stop; n++) {
		uint64_t t = gettime_ns();

		if (drmModeMoveCursor(fd, crtc_id, at[n & 1][0], at[n & 1][1]))
			m->errors++;
		else
			m->moves++;
		t = gettime_ns() - t;
		if (t > m->max_ns)
			m->max_ns = t;
		if (n < GK_MOVE_SAMPLES)
			m->us[n] = t / 1000;
		if (gettime_ns() >= end) {
			m->expired = 1;
			break;
		}
	}
	_exit(0);
}

void gk_mover_reap(void)
{
	kill_mover(0);
}

void gk_mover_stop(struct gk_mover *m)
{
	int status;

	m->stop = 1;
	igt_assert_eq(waitpid(m->pid, &status, 0), m->pid);
	m->pid = 0;
	running_mover = NULL;
	igt_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	igt_assert_f(!m->expired, "the mover stopped at its 30 s bound\n");
	igt_assert_eq(m->errors, 0);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t gk_mover_median_ns(struct gk_mover *m)
{
	unsigned long n = m->moves < GK_MOVE_SAMPLES ? m->moves : GK_MOVE_SAMPLES;
	uint32_t *us = (uint32_t *)m->us;

	igt_assert_lt(0, n);
	qsort(us, n, sizeof(*us), cmp_u32);
	return us[n / 2] * 1000ull;
}

void gk_mover_free(struct gk_mover *m)
{
	if (m == running_mover)
		kill_mover(0);
	munmap(m, sizeof(*m));
}

/* Wait for the writeback out-fence @fence of gk_commit_start() and close it. */
void gk_commit_finish(struct gk *k, int fence)
{
	struct pollfd pfd = { .fd = fence, .events = POLLIN };
	struct sync_fence_info fi = {};
	struct sync_file_info info = {
		.num_fences = 1, .sync_fence_info = (uintptr_t)&fi,
	};

	if (fence < 0)
		return;
	igt_assert_eq(poll(&pfd, 1, 60000), 1);
	/* When the composer finished, for the benchmarks. */
	igt_assert_eq(ioctl(fence, SYNC_IOC_FILE_INFO, &info), 0);
	k->wb_signal_ns = fi.timestamp_ns;
	close(fence);
}

/*
 * gk_commit_start() and gk_commit_finish(): commit and wait for the
 * writeback.  Returns 0 or -errno of the commit.
 */
int gk_commit(struct gk *k, const struct gk_layer *layers, unsigned int n,
	      const struct gk_fb *wb, uint32_t flags)
{
	int fence, ret = gk_commit_start(k, layers, n, wb, flags, &fence);

	if (!ret)
		gk_commit_finish(k, fence);
	return ret;
}

void gk_set_gamma(struct gk *k, const struct drm_color_lut *lut)
{
	if (k->gamma_blob)
		drmModeDestroyPropertyBlob(k->fd, k->gamma_blob);
	k->gamma_blob = 0;
	if (!lut)
		return;
	memcpy(k->gamma, lut, sizeof(k->gamma));
	igt_assert_eq(drmModeCreatePropertyBlob(k->fd, k->gamma, sizeof(k->gamma),
						&k->gamma_blob), 0);
}

int __gk_disable(struct gk *k)
{
	return __gk_disable_flags(k, 0);
}

int __gk_disable_flags(struct gk *k, uint32_t flags)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	int ret;

	add(req, k->crtc_id, k->crtc_active, 0);
	add(req, k->crtc_id, k->crtc_mode_id, 0);
	add(req, k->crtc_id, k->crtc_gamma_prop, 0);
	add(req, k->conn_id, k->conn_crtc_id, 0);
	add(req, k->wb_id, k->wb_crtc_id, 0);
	for (unsigned int i = 0; i < k->num_planes; i++) {
		add(req, k->planes[i].id, k->p_fb, 0);
		add(req, k->planes[i].id, k->p_crtc, 0);
	}
	ret = drmModeAtomicCommit(k->fd, req, flags | DRM_MODE_ATOMIC_ALLOW_MODESET, NULL);
	drmModeAtomicFree(req);
	return ret ? -errno : 0;
}

void gk_disable(struct gk *k)
{
	igt_assert_eq(__gk_disable(k), 0);
}
