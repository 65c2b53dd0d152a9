// SPDX-License-Identifier: MIT
/*
 * gembuf_race: what happens when a client does not wait.  A writeback
 * job followed at once by another commit must still complete, exactly
 * once, with the frame of its own commit; a fence kept in a sync_file
 * after every other reference is gone must keep the module it points
 * into.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <drm_fourcc.h>
#include <linux/dma-buf.h>
#include <linux/sync_file.h>

#include "igt.h"
#include "gembuf.h"
#include "gembuf_kms.h"
#include "igt_pipe_crc.h"
#include "sw_sync.h"

IGT_TEST_DESCRIPTION("Commits racing writeback jobs; fences outliving every file.");

#define ROUNDS 20

static struct gk k;

enum second {
	MOVE_BLOCKING,
	MOVE_NONBLOCKING,
	CRTC_OFF,
};

static void add(drmModeAtomicReqPtr req, uint32_t obj, uint32_t prop, uint64_t v)
{
	igt_assert(drmModeAtomicAddProperty(req, obj, prop, v) >= 0);
}

/* Plane @p shows all of @in at @x, or is off for NULL. */
static void add_plane(drmModeAtomicReqPtr req, const struct gk_plane *p,
		      const struct gk_fb *in, int x)
{
	igt_assert(p);
	add(req, p->id, k.p_fb, in ? in->fb_id : 0);
	add(req, p->id, k.p_crtc, in ? k.crtc_id : 0);
	if (!in)
		return;
	add(req, p->id, k.p_sx, 0);
	add(req, p->id, k.p_sy, 0);
	add(req, p->id, k.p_sw, (uint64_t)in->width << 16);
	add(req, p->id, k.p_sh, (uint64_t)in->height << 16);
	add(req, p->id, k.p_cx, x);
	add(req, p->id, k.p_cy, 0);
	add(req, p->id, k.p_cw, in->width);
	add(req, p->id, k.p_ch, in->height);
}

static int commit(drmModeAtomicReqPtr req, uint32_t flags)
{
	int ret = drmModeAtomicCommit(k.fd, req, flags | DRM_MODE_ATOMIC_ALLOW_MODESET,
				      NULL);

	drmModeAtomicFree(req);
	return ret ? -errno : 0;
}

/*
 * A request: the CRTC shows @in and writes the frame back into @out, its
 * out-fence into *@fence.
 */
static drmModeAtomicReqPtr writeback_request(const struct gk_fb *in,
					     const struct gk_fb *out,
					     int32_t *fence)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();

	igt_assert(req);
	*fence = -1;
	add(req, k.crtc_id, k.crtc_active, 1);
	add(req, k.crtc_id, k.crtc_mode_id, k.mode_blob);
	add(req, k.conn_id, k.conn_crtc_id, k.crtc_id);
	add(req, k.wb_id, k.wb_crtc_id, k.crtc_id);
	add(req, k.wb_id, k.wb_fb_prop, out->fb_id);
	add(req, k.wb_id, k.wb_fence_prop, (uint64_t)(uintptr_t)fence);
	add_plane(req, gk_plane(&k, DRM_PLANE_TYPE_PRIMARY, 0), in, 0);
	add_plane(req, gk_plane(&k, DRM_PLANE_TYPE_OVERLAY, 0), NULL, 0);
	return req;
}

/*
 * Nonblocking: the CRTC shows @in and writes the frame back into @out
 * (retried while the previous nonblocking commit is still busy).
 */
static int commit_writeback(const struct gk_fb *in, const struct gk_fb *out)
{
	for (int tries = 0; tries < 1000; tries++) {
		int32_t fence;
		int ret;

		ret = commit(writeback_request(in, out, &fence),
			     DRM_MODE_ATOMIC_NONBLOCK);
		if (ret == -EBUSY) {
			usleep(1000);
			continue;
		}
		igt_assert_eq(ret, 0);
		igt_assert_fd(fence);
		return fence;
	}
	igt_assert_f(false, "the writeback commit stayed busy\n");
	return -1;
}

/* The commit that follows at once, before the writeback frame is composed. */
static void commit_second(enum second what, const struct gk_fb *other, int round)
{
	for (int tries = 0; tries < 1000; tries++) {
		drmModeAtomicReqPtr req = drmModeAtomicAlloc();
		uint32_t flags = 0;
		int ret;

		igt_assert(req);
		if (what == CRTC_OFF) {
			add(req, k.crtc_id, k.crtc_active, 0);
			add(req, k.crtc_id, k.crtc_mode_id, 0);
			add(req, k.conn_id, k.conn_crtc_id, 0);
			add(req, k.wb_id, k.wb_crtc_id, 0);
			add_plane(req, gk_plane(&k, DRM_PLANE_TYPE_PRIMARY, 0), NULL, 0);
		} else {
			add_plane(req, gk_plane(&k, DRM_PLANE_TYPE_OVERLAY, 0), other,
				  16 * round);
			if (what == MOVE_NONBLOCKING)
				flags = DRM_MODE_ATOMIC_NONBLOCK;
		}
		ret = commit(req, flags);
		/* A nonblocking commit finds the writeback commit still busy. */
		if (ret == -EBUSY) {
			usleep(1000);
			continue;
		}
		igt_assert_eq(ret, 0);
		return;
	}
	igt_assert_f(false, "the second commit stayed busy\n");
}

static bool all_pixels(const struct gk_fb *fb, uint32_t v)
{
	for (uint32_t i = 0; i < fb->size / 4; i++)
		if ((((uint32_t *)fb->map)[i] ^ v) & 0xffffff) {
			igt_info("word %u: %08x, not %08x\n", i,
				 ((uint32_t *)fb->map)[i], v);
			return false;
		}
	return true;
}

static void writeback_vs_commit(enum second what)
{
	struct gk_fb in, other, out;
	long objects = gembuf_state("objects");
	long mappings = gembuf_state("mappings");
	int lost = 0;

	gk_fb_create(&k, &in, k.mode.hdisplay, k.mode.vdisplay, DRM_FORMAT_XRGB8888);
	gk_fb_create(&k, &other, 64, 64, DRM_FORMAT_XRGB8888);
	gk_fb_create(&k, &out, k.mode.hdisplay, k.mode.vdisplay, DRM_FORMAT_XRGB8888);
	for (int round = 0; round < ROUNDS; round++) {
		uint32_t color = 0x100 * round + 0x11;
		struct pollfd pfd;

		gk_fb_fill(&in, color);
		gk_fb_fill(&other, ~color);
		gk_fb_fill(&out, 0);
		pfd.fd = commit_writeback(&in, &out);
		pfd.events = POLLIN;
		commit_second(what, &other, round);
		if (poll(&pfd, 1, 5000) != 1) {
			lost++;
		} else {
			/* The frame of the writeback's own commit, not the next one's. */
			igt_assert_f(all_pixels(&out, color), "round %d\n", round);
		}
		close(pfd.fd);
	}
	igt_assert_f(!lost, "%d of %d writeback out-fences never signalled\n",
		     lost, ROUNDS);
	gk_disable(&k);
	gk_fb_destroy(&k, &out);
	gk_fb_destroy(&k, &other);
	gk_fb_destroy(&k, &in);
	igt_assert_eq(gembuf_state("objects"), objects);
	igt_assert_eq(gembuf_state("mappings"), mappings);
}

static long module_refcnt(void)
{
	return gembuf_read_long("/sys/module/gembuf/refcnt");
}

/* Polls until gauge @key is at most @limit, for up to ten seconds. */
static long settle(const char *key, long limit)
{
	long v = gembuf_state(key);

	for (int i = 0; i < 100 && v > limit; i++) {
		usleep(100 * 1000);
		v = gembuf_state(key);
	}
	return v;
}

static void fence_outlives_files(void)
{
	struct dma_buf_export_sync_file exp = { .flags = DMA_BUF_SYNC_RW, .fd = -1 };
	struct sync_fence_info fi = {};
	struct sync_file_info info = {};
	long jobs = gembuf_state("jobs");
	int engine = gembuf_open_engine();
	uint32_t h = gembuf_create(engine, 65536, 0, GEMBUF_CACHE_WB);
	struct pollfd pfd = { .events = POLLIN };
	long held, released;
	int dmabuf;

	igt_assert_lte(0, jobs);
	igt_assert_eq(__gembuf_fill(engine, h, 0, 65536, 0xfeedface), 0);
	dmabuf = prime_handle_to_fd(engine, h);
	do_ioctl(dmabuf, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &exp);
	igt_assert_fd(exp.fd);
	gem_close(engine, h);
	close(dmabuf);
	drm_close_driver(engine);

	/* Only the sync_file is left, and it holds the module. */
	held = module_refcnt();
	if (system("rmmod gembuf 2>/dev/null") == 0) {
		igt_assert(system("modprobe gembuf") == 0);
		igt_assert_f(false, "gembuf was unloaded under a live fence\n");
	}
	info.num_fences = 1;
	info.sync_fence_info = (uintptr_t)&fi;
	do_ioctl(exp.fd, SYNC_IOC_FILE_INFO, &info);
	igt_assert_eq(info.num_fences, 1);
	/* The scheduler's fence of the job, on the engine's timeline. */
	igt_assert_eq(strcmp(fi.obj_name, "gembuf-edu"), 0);
	pfd.fd = exp.fd;
	igt_assert_eq(poll(&pfd, 1, 30000), 1);
	do_ioctl(exp.fd, SYNC_IOC_FILE_INFO, &info);
	igt_assert_eq(info.status, 1);
	close(exp.fd);

	/* The last job is freed after a grace period; so is its hold. */
	igt_assert_lte(settle("jobs", jobs), jobs);
	released = module_refcnt();
	igt_assert_f(held > released, "module refcount %ld with the fence, %ld without\n",
		     held, released);
}

/*
 * A fill of @h whose fence goes into syncobj @syncobj: a dma-buf keeps
 * no signalled fence to ask, a syncobj keeps the job's own.
 */
static int fill_out(int fd, uint32_t h, uint32_t size, uint32_t value,
		    uint32_t syncobj)
{
	struct drm_gembuf_dma_fill f = {
		.handle = h, .value = value, .size = size,
		.out_sync = { .handle = syncobj },
	};

	return igt_ioctl(fd, DRM_IOCTL_GEMBUF_DMA_FILL, &f) ? -errno : 0;
}

/* The status of the fence in @syncobj: 1 signalled, 0 not, or its error. */
static int syncobj_status(int fd, uint32_t syncobj)
{
	struct sync_file_info info = {};
	int sync_file = -1;

	igt_assert_eq(drmSyncobjExportSyncFile(fd, syncobj, &sync_file), 0);
	do_ioctl(sync_file, SYNC_IOC_FILE_INFO, &info);
	close(sync_file);
	return info.status;
}

/*
 * One client's job waits for a fence that never signals (a sw_sync
 * fence it imported into its buffer); another client's jobs still run.
 * Killing the first client cleans its job up.
 */
static void stalled_client(void)
{
	long objects = gembuf_state("objects"), jobs = gembuf_state("jobs");
	int ready[2], engine;
	uint32_t h;
	pid_t pid;
	char c;

	igt_require(kernel_has_sw_sync());
	igt_assert_eq(pipe(ready), 0);
	pid = fork();
	igt_assert(pid >= 0);
	if (!pid) {
		struct dma_buf_import_sync_file imp = { .flags = DMA_BUF_SYNC_WRITE };
		int fd = gembuf_open_engine(), timeline = sw_sync_timeline_create();
		uint32_t x = gembuf_create(fd, 4096, 0, GEMBUF_CACHE_WB);
		int dmabuf = prime_handle_to_fd(fd, x);

		imp.fd = sw_sync_timeline_create_fence(timeline, 1);
		do_ioctl(dmabuf, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &imp);
		close(imp.fd);
		igt_assert_eq(__gembuf_fill(fd, x, 0, 4096, 0xdead), 0);
		igt_assert_eq(write(ready[1], "r", 1), 1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	igt_assert_eq(read(ready[0], &c, 1), 1);
	close(ready[0]);

	/* The stalled job is queued; this client's job runs regardless. */
	engine = gembuf_open_engine();
	h = gembuf_create(engine, 4096, 0, GEMBUF_CACHE_WB);
	igt_assert_eq(__gembuf_fill(engine, h, 0, 4096, 0x600d), 0);
	igt_assert_eq(__gembuf_wait(engine, h, 0, 20ll * 1000 * 1000 * 1000), 0);
	gembuf_check_words(engine, h, 4096, 0x600d);
	gem_close(engine, h);
	drm_close_driver(engine);

	kill(pid, SIGKILL);
	igt_assert_eq(waitpid(pid, NULL, 0), pid);
	igt_assert_lte(settle("jobs", jobs), jobs);
	igt_assert_lte(settle("objects", objects), objects);
}

/*
 * A job that fails (@fault "fail_job") or hangs the engine ("hang_job")
 * signals its fence with @err; the next job, queued behind it, runs.
 */
static void job_fault(const char *fault, int err)
{
	long objects = gembuf_state("objects"), jobs = gembuf_state("jobs");
	int engine = gembuf_open_engine();
	uint32_t a = gembuf_create(engine, 4096, 0, GEMBUF_CACHE_WB);
	uint32_t b = gembuf_create(engine, 4096, 0, GEMBUF_CACHE_WB);
	uint32_t sa, sb;

	igt_assert_eq(drmSyncobjCreate(engine, 0, &sa), 0);
	igt_assert_eq(drmSyncobjCreate(engine, 0, &sb), 0);
	gembuf_inject_once(fault);
	igt_assert_eq(fill_out(engine, a, 4096, 0xbad, sa), 0);
	igt_assert_eq(fill_out(engine, b, 4096, 0x600d, sb), 0);
	igt_assert_eq(__gembuf_wait(engine, b, 0, 120ll * 1000 * 1000 * 1000), 0);
	igt_assert_eq(syncobj_status(engine, sb), 1);
	gembuf_check_words(engine, b, 4096, 0x600d);
	igt_assert_eq(__gembuf_wait(engine, a, 0, 0), 0);
	igt_assert_eq(syncobj_status(engine, sa), err);
	/* The engine works on. */
	igt_assert_eq(fill_out(engine, a, 4096, 0x600d, sa), 0);
	gembuf_wait(engine, a);
	igt_assert_eq(syncobj_status(engine, sa), 1);
	gembuf_check_words(engine, a, 4096, 0x600d);
	drmSyncobjDestroy(engine, sa);
	drmSyncobjDestroy(engine, sb);
	gem_close(engine, a);
	gem_close(engine, b);
	drm_close_driver(engine);
	igt_assert_lte(settle("jobs", jobs), jobs);
	igt_assert_lte(settle("objects", objects), objects);
}

/*
 * A frame the composer fails to make completes its writeback job with
 * -EIO; the next one is composed.  The composer allocates nothing (its
 * line buffers come with the CRTC state), so no failure of its is
 * -ENOMEM: an allocation failure fails the commit instead.
 */
static void compose_fails(void)
{
	long objects = gembuf_state("objects"), mappings = gembuf_state("mappings");
	struct gk_fb in, out;
	struct sync_file_info info = {};
	struct pollfd pfd = { .events = POLLIN };

	gk_fb_create(&k, &in, k.mode.hdisplay, k.mode.vdisplay, DRM_FORMAT_XRGB8888);
	gk_fb_create(&k, &out, k.mode.hdisplay, k.mode.vdisplay, DRM_FORMAT_XRGB8888);
	gk_fb_fill(&in, 0x123456);
	gk_fb_fill(&out, 0);
	gembuf_inject_once("fail_compose");
	pfd.fd = commit_writeback(&in, &out);
	igt_assert_eq(poll(&pfd, 1, 5000), 1);
	do_ioctl(pfd.fd, SYNC_IOC_FILE_INFO, &info);
	igt_assert_eq(info.status, -EIO);
	close(pfd.fd);
	igt_assert(all_pixels(&out, 0));

	pfd.fd = commit_writeback(&in, &out);
	igt_assert_eq(poll(&pfd, 1, 5000), 1);
	memset(&info, 0, sizeof(info));
	do_ioctl(pfd.fd, SYNC_IOC_FILE_INFO, &info);
	igt_assert_eq(info.status, 1);
	close(pfd.fd);
	igt_assert(all_pixels(&out, 0x123456));
	gk_disable(&k);
	gk_fb_destroy(&k, &out);
	gk_fb_destroy(&k, &in);
	igt_assert_eq(gembuf_state("objects"), objects);
	igt_assert_eq(gembuf_state("mappings"), mappings);
}

/*
 * A foreign framebuffer (a system-heap dma-buf) on the primary, the CRC
 * running; then a write fence that never signals goes on the dma-buf.
 * The display began its CPU access to the buffer in the commit that
 * shows it (the plane's atomic_update, in the commit tail), so the
 * composer, which signals the writeback out-fences, keeps composing
 * frames of it: CRCs keep coming.  A composer that began the exporter's
 * CPU access itself, every frame, would wait for the fence there and
 * stop.
 */
static void foreign_fence_after_commit(void)
{
	struct dma_buf_import_sync_file imp = { .flags = DMA_BUF_SYNC_WRITE };
	const uint32_t w = k.mode.hdisplay, h = k.mode.vdisplay;
	long objects = gembuf_state("objects");
	struct gk_fb fb = {};
	struct timespec t0, t;
	int dmabuf, timeline, n, got = 0;
	igt_pipe_crc_t *pc;
	struct gk_layer l;
	igt_crc_t *crcs;

	igt_require(kernel_has_sw_sync());
	dmabuf = gembuf_heap_alloc("system", (size_t)w * h * 4);
	gk_fb_from_handle(&k, &fb, prime_fd_to_handle(k.fd, dmabuf), w, h,
			  DRM_FORMAT_XRGB8888, w * 4, 0, 0);
	l = gk_layer_of(&fb);
	igt_assert_eq(gk_commit(&k, &l, 1, NULL, 0), 0);
	pc = igt_pipe_crc_new_nonblock(k.fd, k.pipe, IGT_PIPE_CRC_SOURCE_AUTO);
	igt_pipe_crc_start(pc);

	timeline = sw_sync_timeline_create();
	imp.fd = sw_sync_timeline_create_fence(timeline, 1);
	do_ioctl(dmabuf, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &imp);
	close(imp.fd);
	/* The frames before the fence, and the one composed as it came. */
	n = igt_pipe_crc_get_crcs(pc, 64, &crcs);
	free(crcs);
	igt_debug("%d CRCs before the fence\n", n);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		usleep(20000);
		got += igt_pipe_crc_get_crcs(pc, 64, &crcs);
		free(crcs);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (got < 3 && t.tv_sec - t0.tv_sec < 3);
	/* Let the frames go on either way, before asserting. */
	sw_sync_timeline_inc(timeline, 1);
	close(timeline);
	igt_assert_f(got >= 3, "%d frames composed in 3 s behind the fence\n", got);

	igt_pipe_crc_free(pc);
	gk_disable(&k);
	gk_fb_destroy(&k, &fb);
	close(dmabuf);
	igt_assert_lte(settle("objects", objects), objects);
}

/*
 * Writeback goes only into memory of gembuf's own: a system-heap dma-buf
 * as the writeback framebuffer is refused by the check (TEST_ONLY and a
 * real commit alike, no out-fence made), and the same commit into a
 * buffer of gembuf's own is taken.
 */
static void writeback_foreign_refused(void)
{
	static const uint32_t flags[] = {
		DRM_MODE_ATOMIC_TEST_ONLY, DRM_MODE_ATOMIC_NONBLOCK,
	};
	const uint32_t w = k.mode.hdisplay, h = k.mode.vdisplay;
	struct gk_fb in = {}, foreign = {}, own = {};
	int dmabuf;

	gk_fb_create(&k, &in, w, h, DRM_FORMAT_XRGB8888);
	gk_fb_create(&k, &own, w, h, DRM_FORMAT_XRGB8888);
	dmabuf = gembuf_heap_alloc("system", (size_t)w * h * 4);
	gk_fb_from_handle(&k, &foreign, prime_fd_to_handle(k.fd, dmabuf), w, h,
			  DRM_FORMAT_XRGB8888, w * 4, 0, 0);
	for (unsigned int i = 0; i < 2 * ARRAY_SIZE(flags); i++) {
		const struct gk_fb *out = i < ARRAY_SIZE(flags) ? &foreign : &own;
		int32_t fence;
		int ret;

		ret = commit(writeback_request(&in, out, &fence),
			     flags[i % ARRAY_SIZE(flags)]);
		igt_debug("writeback into %s, flags 0x%x: %d\n",
			  out == &own ? "gembuf's own" : "a system-heap buffer",
			  flags[i % ARRAY_SIZE(flags)], ret);
		if (out == &foreign) {
			igt_assert_eq(ret, -EINVAL);
			igt_assert_eq(fence, -1);
			continue;
		}
		igt_assert_eq(ret, 0);
		if (fence >= 0) {
			struct pollfd pfd = { .fd = fence, .events = POLLIN };

			igt_assert_eq(poll(&pfd, 1, 10000), 1);
			close(fence);
		}
	}
	gk_disable(&k);
	gk_fb_destroy(&k, &foreign);
	gk_fb_destroy(&k, &own);
	gk_fb_destroy(&k, &in);
	close(dmabuf);
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + t.tv_nsec;
}

/* A system-heap dma-buf of @size bytes, every word @color, written by the CPU. */
static int heap_buffer(size_t size, uint32_t color)
{
	struct dma_buf_sync sync = { .flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE };
	int dmabuf = gembuf_heap_alloc("system", size);
	uint32_t *p;

	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, dmabuf, 0);
	igt_assert(p != MAP_FAILED);
	do_ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync);
	for (size_t i = 0; i < size / 4; i++)
		p[i] = color;
	sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE;
	do_ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync);
	munmap(p, size);
	return dmabuf;
}

/*
 * A nonblocking commit flips the primary to a foreign framebuffer (a
 * system-heap dma-buf) whose writer has not finished: a write fence that
 * has not signalled is on the dma-buf.  The ioctl returns at once; the
 * commit tail waits for the fence, and begins the exporter's CPU access
 * after it (the plane's atomic_update).  The flip, seen in the frame
 * written back, happens only once the fence signals, and shows the
 * buffer.  A display that began the exporter's CPU access in the ioctl
 * (begin_fb_access, drm_atomic_helper_prepare_planes()) waits there for
 * the fence: a watchdog process signals it after 5 s, so that such a
 * commit returns, late, rather than hang the test.
 */
static void foreign_fence_nonblocking_commit(void)
{
	struct dma_buf_import_sync_file imp = { .flags = DMA_BUF_SYNC_WRITE };
	const uint32_t w = k.mode.hdisplay, h = k.mode.vdisplay, color = 0xc0ffee;
	const size_t size = (size_t)w * h * 4;
	long objects = gembuf_state("objects");
	struct pollfd pfd = { .events = POLLIN };
	struct sync_file_info info = {};
	struct gk_fb own, out, foreign = {};
	uint64_t t0, took;
	int dmabuf, timeline, ret;
	bool held, shown;
	struct gk_layer l;
	pid_t watchdog;

	igt_require(kernel_has_sw_sync());
	dmabuf = heap_buffer(size, color);
	gk_fb_from_handle(&k, &foreign, prime_fd_to_handle(k.fd, dmabuf), w, h,
			  DRM_FORMAT_XRGB8888, w * 4, 0, 0);

	/* The CRTC on, written back, showing a buffer of gembuf's own. */
	gk_fb_create(&k, &own, w, h, DRM_FORMAT_XRGB8888);
	gk_fb_create(&k, &out, w, h, DRM_FORMAT_XRGB8888);
	gk_fb_fill(&own, 0x123456);
	gk_fb_fill(&out, 0);
	l = gk_layer_of(&own);
	igt_assert_eq(gk_commit(&k, &l, 1, &out, 0), 0);
	igt_assert(all_pixels(&out, 0x123456));

	/* The foreign buffer's writer, not done. */
	timeline = sw_sync_timeline_create();
	imp.fd = sw_sync_timeline_create_fence(timeline, 1);
	do_ioctl(dmabuf, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &imp);
	close(imp.fd);
	watchdog = fork();
	igt_assert(watchdog >= 0);
	if (!watchdog) {
		sleep(5);
		sw_sync_timeline_inc(timeline, 1);
		_exit(0);
	}

	l = gk_layer_of(&foreign);
	t0 = now_ns();
	ret = gk_commit_start(&k, &l, 1, &out, DRM_MODE_ATOMIC_NONBLOCK, &pfd.fd);
	took = now_ns() - t0;
	kill(watchdog, SIGKILL);
	igt_assert_eq(waitpid(watchdog, NULL, 0), watchdog);
	igt_assert_eq(ret, 0);
	/* No frame of the buffer while its writer is not done. */
	held = poll(&pfd, 1, 500) == 0;
	sw_sync_timeline_inc(timeline, 1);
	close(timeline);
	igt_assert_eq(poll(&pfd, 1, 5000), 1);
	do_ioctl(pfd.fd, SYNC_IOC_FILE_INFO, &info);
	close(pfd.fd);
	shown = all_pixels(&out, color);

	igt_assert_f(took < 1000000000ull,
		     "the nonblocking commit spent %.3f s in the ioctl, behind the buffer's fence\n",
		     took / 1e9);
	igt_assert_f(held, "the flip came before the buffer's fence signalled\n");
	igt_assert_eq(info.status, 1);
	igt_assert_f(shown, "the frame after the flip is not the foreign buffer's\n");

	gk_disable(&k);
	gk_fb_destroy(&k, &out);
	gk_fb_destroy(&k, &own);
	gk_fb_destroy(&k, &foreign);
	close(dmabuf);
	igt_assert_lte(settle("objects", objects), objects);
}

/*
 * An IN_FENCE_FD overrules the implicit fences of its plane's buffer
 * (DRM's rule for explicit fencing): a commit flips an overlay to a
 * foreign framebuffer (a system-heap dma-buf) whose dma-buf carries an
 * unsignalled write fence, with a signalled IN_FENCE_FD.  The commit
 * waits for neither, and the display does not wait for the writer in the
 * commit tail (a fence that never signals would hang the CRTC there) nor
 * read what it is writing: the overlay is left out while that state
 * lasts, and the frame written back is the primary's alone.  Once the
 * writer is done, the next commit shows the overlay.  A display that
 * waited in the tail would make the blocking commit take the 5 s after
 * which a watchdog process signals the writer's fence.
 */
static void foreign_fence_overruled(void)
{
	struct dma_buf_import_sync_file imp = { .flags = DMA_BUF_SYNC_WRITE };
	const uint32_t color = 0xc0ffee, below = 0x123456;
	long objects = gembuf_state("objects");
	struct gk_fb own, out, foreign = {};
	int dmabuf, writer, in_tl, in_fence, fence, ret;
	uint32_t *px;
	struct gk_layer l[2];
	uint64_t t0, took;
	bool left_out;
	pid_t watchdog;

	igt_require(kernel_has_sw_sync());
	igt_require(k.num_planes > 1 && k.planes[1].type == DRM_PLANE_TYPE_OVERLAY &&
		    k.planes[1].in_fence_prop);
	dmabuf = heap_buffer(64 * 64 * 4, color);
	gk_fb_from_handle(&k, &foreign, prime_fd_to_handle(k.fd, dmabuf), 64, 64,
			  DRM_FORMAT_XRGB8888, 64 * 4, 0, 0);
	gk_fb_create(&k, &own, k.mode.hdisplay, k.mode.vdisplay, DRM_FORMAT_XRGB8888);
	gk_fb_create(&k, &out, k.mode.hdisplay, k.mode.vdisplay, DRM_FORMAT_XRGB8888);
	gk_fb_fill(&own, below);
	gk_fb_fill(&out, 0);
	px = out.map;
	l[0] = gk_layer_of(&own);
	l[1] = gk_layer_of(&foreign);
	l[1].zpos = 1;	/* above the primary, whatever a test before left */
	igt_assert_eq(gk_commit(&k, l, 1, &out, 0), 0);
	igt_assert(all_pixels(&out, below));

	/* The foreign buffer's writer, not done; an IN_FENCE_FD that is. */
	writer = sw_sync_timeline_create();
	imp.fd = sw_sync_timeline_create_fence(writer, 1);
	do_ioctl(dmabuf, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &imp);
	close(imp.fd);
	in_tl = sw_sync_timeline_create();
	in_fence = sw_sync_timeline_create_fence(in_tl, 1);
	sw_sync_timeline_inc(in_tl, 1);
	watchdog = fork();
	igt_assert(watchdog >= 0);
	if (!watchdog) {
		sleep(5);
		sw_sync_timeline_inc(writer, 1);
		_exit(0);
	}

	gk_fb_fill(&out, 0);
	t0 = now_ns();
	ret = gk_flip_start(&k, l, 2, &out, 0, 1, in_fence, &fence);
	took = now_ns() - t0;
	kill(watchdog, SIGKILL);
	igt_assert_eq(waitpid(watchdog, NULL, 0), watchdog);
	close(in_fence);
	close(in_tl);
	igt_assert_eq(ret, 0);
	gk_commit_finish(&k, fence);
	left_out = all_pixels(&out, below);
	sw_sync_timeline_inc(writer, 1);
	close(writer);

	igt_assert_f(took < 2000000000ull,
		     "the commit spent %.3f s in the ioctl, behind the overruled write fence\n",
		     took / 1e9);
	igt_assert_f(left_out,
		     "the frame shows the overlay while its buffer's writer is not done\n");

	/* The writer is done: the next commit shows the overlay. */
	gk_fb_fill(&out, 0);
	igt_assert_eq(gk_commit(&k, l, 2, &out, 0), 0);
	igt_assert_eq_u32(px[0] & 0xffffff, color);
	igt_assert_eq_u32(px[63 * (out.pitch / 4) + 63] & 0xffffff, color);
	igt_assert_eq_u32(px[64 * (out.pitch / 4) + 64] & 0xffffff, below);

	gk_disable(&k);
	gk_fb_destroy(&k, &out);
	gk_fb_destroy(&k, &own);
	gk_fb_destroy(&k, &foreign);
	close(dmabuf);
	igt_assert_lte(settle("objects", objects), objects);
}

/*
 * Whether a task's /proc comm is @name: workqueue threads show in full,
 * followed while they run a work by "+" or "-" and its queue's name.
 */
static bool task_named(const char *name)
{
	char path[300], comm[128];
	size_t len = strlen(name);
	struct dirent *d;
	bool found = false;
	DIR *proc = opendir("/proc");

	igt_assert(proc);
	while (!found && (d = readdir(proc))) {
		FILE *f;

		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f)) {
			comm[strcspn(comm, "\n")] = '\0';
			found = !strncmp(comm, name, len) &&
				(!comm[len] || comm[len] == '+' || comm[len] == '-');
		}
		fclose(f);
	}
	closedir(proc);
	return found;
}

/*
 * The composer completes writeback out-fences, which memory reclaim may
 * wait for: its queue is WQ_MEM_RECLAIM, so that it makes progress when
 * no new worker can be made.  Such a queue has a rescuer thread,
 * "kworker/R-<queue>" in /proc (6.12 names the rescuer so).
 */
static void composer_rescuer(void)
{
	int n = gk_num_pipes(k.fd);

	igt_assert_lt(0, n);
	for (int i = 0; i < n; i++) {
		char name[64];

		snprintf(name, sizeof(name), "kworker/R-gembuf-composer-%d", i);
		igt_assert_f(task_named(name), "no rescuer %s\n", name);
	}
}

#define DMA_DRIVER "/sys/bus/pci/drivers/gembuf_dma"

/* The PCI address of the device gembuf_dma drives, into @addr. */
static bool engine_pci_addr(char *addr, size_t len)
{
	DIR *dir = opendir(DMA_DRIVER);
	struct dirent *de;
	bool found = false;

	while (dir && !found && (de = readdir(dir)))
		if (!strncmp(de->d_name, "0000:", 5)) {
			snprintf(addr, len, "%s", de->d_name);
			found = true;
		}
	if (dir)
		closedir(dir);
	return found;
}

/*
 * Unbinding the PCI device under a client: a file, an object the engine
 * wrote, its dma-buf imported by the display and a job waiting for a
 * gate.  Ioctls fail with -ENODEV, the display still reads what the
 * engine wrote, the waiting job completes once its gate opens, nothing
 * leaks, and binding again gives a working engine.
 */
static void unbind(void)
{
	long objects = gembuf_state("objects");
	int engine = gembuf_open_engine(), display = gembuf_open_display();
	int gate = sw_sync_timeline_create(), dmabuf;
	uint32_t h = gembuf_create(engine, 4096, 0, GEMBUF_CACHE_WB);
	uint32_t h2 = gembuf_create(engine, 4096, 0, GEMBUF_CACHE_WB);
	struct drm_gembuf_sync in = {};
	struct drm_gembuf_dma_fill f = {
		.handle = h2, .size = 4096, .value = 0xbad,
		.in_syncs = (uintptr_t)&in, .in_sync_count = 1,
	};
	int vgem = __drm_open_driver(DRIVER_VGEM), vfd;
	uint32_t dh, vh, eh, *p;
	char addr[512], names[4][64];
	uint64_t vsize;
	int fence;

	igt_require(engine_pci_addr(addr, sizeof(addr)));
	igt_require(vgem >= 0);
	/* A foreign buffer the engine imported, and so attached. */
	vh = kmstest_dumb_create(vgem, 1024, 1, 32, NULL, &vsize);
	vfd = prime_handle_to_fd(vgem, vh);
	eh = prime_fd_to_handle(engine, vfd);
	igt_assert_eq(__gembuf_fill(engine, eh, 0, 4096, 0x3333), 0);
	gembuf_wait(engine, eh);
	igt_assert_eq(gembuf_dmabuf_attachments(vfd, names, 4), 1);
	igt_require(gembuf_dma_api_mappings(addr) >= 0);
	igt_assert_lt(0, gembuf_dma_api_mappings(addr));
	igt_assert_eq(__gembuf_fill(engine, h, 0, 4096, 0x1111), 0);
	gembuf_wait(engine, h);
	dmabuf = prime_handle_to_fd(engine, h);
	dh = prime_fd_to_handle(display, dmabuf);
	igt_assert_eq(drmSyncobjCreate(engine, 0, &in.handle), 0);
	fence = sw_sync_timeline_create_fence(gate, 1);
	igt_assert_eq(drmSyncobjImportSyncFile(engine, in.handle, fence), 0);
	close(fence);
	do_ioctl(engine, DRM_IOCTL_GEMBUF_DMA_FILL, &f);

	gembuf_knob_write(DMA_DRIVER, "unbind", addr);
	/* The engine gave its attachment back, and its mapping, with its device. */
	igt_assert_eq(gembuf_dma_api_mappings(addr), 0);
	igt_assert_eq(gembuf_dmabuf_attachments(vfd, names, 4), 0);
	igt_assert_eq(__gembuf_fill(engine, eh, 0, 4, 0), -ENODEV);
	gem_close(vgem, vh);
	drm_close_driver(vgem);
	igt_assert_eq(__gembuf_fill(engine, h, 0, 4, 0), -ENODEV);
	igt_assert_eq(__gembuf_wait(engine, h, 0, 0), -ENODEV);
	/* The waiting job signals once its gate opens, without the device. */
	sw_sync_timeline_inc(gate, 1);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, dmabuf, 0);
	igt_assert(p != MAP_FAILED);
	for (int i = 0; i < 1024; i++)
		igt_assert_eq_u32(p[i], 0x1111);
	munmap(p, 4096);
	close(dmabuf);
	gem_close(display, dh);
	drm_close_driver(display);
	drm_close_driver(engine);
	close(gate);
	igt_assert_eq(gembuf_dmabuf_attachments(vfd, names, 4), 0);
	close(vfd);

	gembuf_knob_write(DMA_DRIVER, "bind", addr);
	engine = gembuf_open_engine();
	gembuf_engine_check(engine, 0x2222);
	drm_close_driver(engine);
	igt_assert_lte(settle("objects", objects), objects);
}

igt_main
{
	igt_fixture {
		k.fd = gembuf_open_display();
		igt_require(drmSetMaster(k.fd) == 0);
		gk_init(&k, k.fd);
		igt_assert(gk_set_mode(&k, 640, 480));
	}

	igt_describe("A nonblocking writeback commit followed at once by another commit (a blocking or nonblocking plane move, or the CRTC switched off): every out-fence signals, and the frame written back is the one of its own commit.");
	igt_subtest_with_dynamic("writeback-vs-commit") {
		igt_dynamic("plane-move-blocking")
			writeback_vs_commit(MOVE_BLOCKING);
		igt_dynamic("plane-move-nonblocking")
			writeback_vs_commit(MOVE_NONBLOCKING);
		igt_dynamic("crtc-off")
			writeback_vs_commit(CRTC_OFF);
	}

	igt_describe("A DMA engine fence kept in a sync_file after its object, dma-buf and every DRM file are closed holds the gembuf module: rmmod is refused, the fence still answers SYNC_IOC_FILE_INFO, and the hold goes with the fence.");
	igt_subtest("fence-outlives-files")
		fence_outlives_files();

	igt_describe("A client whose job waits for a fence that never signals does not stall another client's jobs; killing it cleans its job up.");
	igt_subtest("stalled-client")
		stalled_client();

	igt_describe("A job that fails in the engine's worker signals its fence with -EIO; the job after it runs.");
	igt_subtest("job-fails")
		job_fault("fail_job", -EIO);

	igt_describe("A frame the composer fails to make completes its writeback job with -EIO (out-fence status), not -ENOMEM, as the composer allocates nothing; the next frame is composed and written back.");
	igt_subtest("compose-fails")
		compose_fails();

	igt_describe("Writeback goes only into memory of gembuf's own: another exporter's buffer is refused by the check, with no out-fence.");
	igt_subtest("writeback-foreign-refused")
		writeback_foreign_refused();

	igt_describe("A write fence that never signals, put on a foreign framebuffer's dma-buf after the commit that shows it, does not stall the composer: the exporter's CPU access began in that commit's tail, and CRCs keep coming.");
	igt_subtest("foreign-fence-after-commit")
		foreign_fence_after_commit();

	igt_describe("A nonblocking commit that flips to a foreign framebuffer whose dma-buf carries an unsignalled write fence returns from the ioctl at once (under 1 s, the fence unsignalled for 5 s): the fence is waited for in the commit tail, where the exporter's CPU access begins; the flip comes only after the fence signals, and shows the buffer.");
	igt_subtest("foreign-fence-nonblocking-commit")
		foreign_fence_nonblocking_commit();

	igt_describe("An IN_FENCE_FD that has signalled, on an overlay flipped to a foreign framebuffer whose dma-buf carries an unsignalled write fence, overrules that fence: the blocking commit returns within 2 s (the fence unsignalled for 5 s), and the display, which does not wait for the writer in the commit tail, leaves the overlay out of the frames of that state; once the writer is done, the next commit shows it.");
	igt_subtest("foreign-fence-overruled")
		foreign_fence_overruled();

	igt_describe("Each CRTC's composer queue, which completes writeback out-fences, is WQ_MEM_RECLAIM: it has its rescuer thread.");
	igt_subtest("composer-rescuer")
		composer_rescuer();

	igt_describe("Unbinding the engine's PCI device under a client with an object, its dma-buf on the display and a job waiting: ioctls fail with ENODEV, the display still reads the engine's data, the job completes, nothing leaks, and binding again gives a working engine.");
	igt_subtest("unbind")
		unbind();

	igt_describe("A job that hangs the engine is stopped by the scheduler's timeout: its fence carries -ETIMEDOUT, the job after it runs, and the engine works on.");
	igt_subtest("job-hangs")
		job_fault("hang_job", -ETIMEDOUT);

	igt_fixture
		drm_close_driver(k.fd);
}
