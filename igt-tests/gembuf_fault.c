// SPDX-License-Identifier: MIT
/*
 * gembuf_fault: allocation failures injected, one at a time, into short
 * sequences of gembuf ioctls, the syzkaller "fail-nth" way.
 *
 * Writing N to /proc/thread-self/fail-nth makes the Nth fault-injection
 * point this thread passes fail: with CONFIG_FAILSLAB and
 * CONFIG_FAIL_PAGE_ALLOC every slab and page allocation (other kinds of
 * fault injection are not built in the guest).  Reading it back gives 0
 * once the failure was injected, the points still to go otherwise.  For
 * every sequence and n = 1, 2, ...: arm fail-nth with n, run the
 * sequence step by step up to its first failing step, read fail-nth back
 * and clear it, check what the steps that ran produced, undo everything
 * and check that gembuf's gauges (objects and mappings in gembuf_state;
 * the VCM gauges of vcm/stats) are back where they were.  Engine jobs
 * are not among them: the file's scheduler entity keeps its last job's
 * fence until the file is closed, and kmemleak finds a lost job.
 * The sweep ends with the first run that went through without a failure
 * injected: n passed the last allocation of the sequence.
 *
 * A step may only fail with ENOMEM: no other errno is documented for an
 * allocation failure on these paths (VCM's ENOSPC means an address
 * space is full, which would be a leak here; EFAULT would be a failed
 * copy to user memory, and every user buffer the steps use is faulted in
 * before the failure is armed, so no page fault allocates).  A step may
 * also succeed despite the failure (a fallback, or an allocation of
 * kmemleak or KASAN's own that they tolerate): then its result must be
 * right.  Nothing but the steps runs while fail-nth is armed: no output,
 * no assertion, no allocation of libdrm's (the atomic requests are built
 * here); checks come after.
 *
 * Two sequences reach other subsystems' failure paths through gembuf's:
 * heap-scanout shows a dma-heaps system-heap buffer on the display, whose
 * prepare_fb vmaps it through dma_buf_vmap(), and vivid-expbuf exports a
 * buffer of vivid's dma-contig instance with VIDIOC_EXPBUF, as a client
 * does before importing it into gembuf.  Neither may warn when an
 * allocation fails (the guest fails the run on any kernel warning).
 * udmabuf-scanout shows a udmabuf no CPU access has begun on yet: the
 * exporter makes its table at the first one, in the commit tail (the
 * plane's atomic_update), where nothing can fail the commit any more; a
 * failure there leaves the plane out of the frames of that state, and
 * the next commit shows it.  engine-copy copies between two objects the
 * engine never used: the copy maps both and reserves a fence slot in
 * each one's reservation object.
 *
 * Only this thread's allocations fail: gembuf's workers (the composer,
 * engine jobs) run in other tasks; gembuf_race's job-fails, job-hangs
 * and compose-fails inject failures there through the driver's fault
 * attributes.
 *
 * Runs of n up to 200 are all made; above, every 7th (a sequence with
 * that many points is sampled, and says so), up to n = 2000, within
 * SWEEP_BUDGET_S seconds of guest time per sequence and TEST_BUDGET_S
 * for all (a sweep cut short warns and reports STOPPED).  Each run that
 * gets past a DMA_FILL costs 300 ms of the guest's clock (three 2 KiB
 * edu commands): DMAs are 4 KiB.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <linux/sync_file.h>
#include <linux/udmabuf.h>
#include <linux/videodev2.h>
#include <drm_fourcc.h>

#include "igt.h"
#include "gembuf.h"
#include "failnth.h"
#include "gembuf_kms.h"
#include "sw_sync.h"
#include "vivid.h"

IGT_TEST_DESCRIPTION("Inject allocation failures into gembuf ioctl sequences with fail-nth.");

#define DENSE_N		200	/* every n up to here */
#define SPARSE_STEP	7	/* then every 7th */
#define MAX_N		2000
#define SWEEP_BUDGET_S	75.0	/* guest seconds per sequence */
#define TEST_BUDGET_S	420.0	/* and for them all: runtests kills at 600 */
#define MAX_STEPS	12
#define NS_PER_S	1000000000ll
#define FILL_SIZE	4096

/* The kernel's sw_sync uapi is private to drivers/dma-buf/sw_sync.c. */
struct fault_sw_fence {
	uint32_t value;
	char name[32];
	int32_t fence;
};
#define FAULT_SW_SYNC_CREATE_FENCE _IOWR('W', 0, struct fault_sw_fence)

static int display = -1, engine = -1, heap = -1, timeline = -1;
static int vivid = -1, udmabuf = -1;
static unsigned int tl_seqno;
static bool master, kms_ready;
static struct gk k;
static struct gk_fb kin, kwb;	/* overlay input 64x64, writeback target */
static const struct gk_plane *ov;
static char gembuf_state_path[300];
static double t_start;

/* Everything the steps touch in user memory, faulted in before each run. */
static struct ctx {
	uint32_t h[2], hd, he, fb, wbfb;
	int dmabuf, sync, swfence, memfd;
	int32_t wb_fence;
	bool tl_done;
	bool injected;	/* a failure was injected in this run (for check) */
	void *map[2], *vmap;
	uint64_t size[2], off[2], vlen;
	uint32_t rd[2][2];
	long flips;
	struct gembuf_report info[2];
	struct gembuf_report_mapping maps[2][16];
	struct sync_file_info sinfo;
	struct sync_fence_info fences[8];
} c;

static struct {
	uint32_t objs[8], counts[8], props[32];
	uint64_t values[32];
	unsigned int nobj, nprop;
	bool overflow;
} rq;

static struct stats {
	unsigned int runs, injected, absorbed, fence_errors, left_out, last_n;
	unsigned int step_fail[MAX_STEPS];
	int err[8];
	unsigned int err_count[8], nerr;
} st;

static char bad[256];

/* Note the first thing wrong in a run; asserted once the run is undone. */
static void __attribute__((format(printf, 1, 2))) flag(const char *fmt, ...)
{
	va_list ap;

	if (bad[0])
		return;
	va_start(ap, fmt);
	vsnprintf(bad, sizeof(bad), fmt, ap);
	va_end(ap);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *errname(int err)
{
	const char *s = strerrorname_np(err);

	return s ?: "unknown errno";
}

/* ---- fault injection: lib/failnth.h ---- */

/* Fault in the stack and the static buffers the steps use. */
static void __attribute__((noinline)) prefault(void)
{
	volatile char stack[128 << 10];

	for (size_t i = 0; i < sizeof(stack); i += 4096)
		stack[i] = 0;
	memset(&c, 0, sizeof(c));
	memset(&rq, 0, sizeof(rq));
}

/* ---- gauges ---- */

#define MAX_GAUGES 16
struct gauges {
	unsigned int n;
	char name[MAX_GAUGES][24];
	long v[MAX_GAUGES];
};

/* The file gembuf_state() reads, found once: it scans for it every time. */
static void find_gembuf_state(void)
{
	DIR *dir = opendir("/sys/kernel/debug/dri");
	struct dirent *de;

	gembuf_state_path[0] = 0;
	while (dir && (de = readdir(dir))) {
		snprintf(gembuf_state_path, sizeof(gembuf_state_path),
			 "/sys/kernel/debug/dri/%.200s/gembuf_state", de->d_name);
		if (!access(gembuf_state_path, R_OK))
			break;
		gembuf_state_path[0] = 0;
	}
	if (dir)
		closedir(dir);
}

static void read_file_gauges(struct gauges *g, const char *path, const char *prefix,
			     bool vcm)
{
	FILE *f = fopen(path, "r");
	char name[64];
	long v;

	while (f && g->n < MAX_GAUGES && fscanf(f, "%63s %ld", name, &v) == 2) {
		/* VCM's event counters only grow; gembuf's KMS ones too. */
		if (vcm ? !strcmp(name, "cache_maintenance") ||
			  !strcmp(name, "cache_conflicts") :
			  strcmp(name, "objects") && strcmp(name, "mappings"))
			continue;
		snprintf(g->name[g->n], sizeof(g->name[0]), "%s%.19s", prefix, name);
		g->v[g->n++] = v;
	}
	if (f)
		fclose(f);
}

static void read_gauges(struct gauges *g)
{
	g->n = 0;
	read_file_gauges(g, gembuf_state_path, "", false);
	read_file_gauges(g, "/sys/kernel/debug/vcm/stats", "vcm/", true);
}

/* Wait up to 10 s for the gauges to be back at @start (jobs finish, RCU). */
static void settle_gauges(const struct gauges *start)
{
	struct gauges g;

	for (int t = 0; t < 1000; t++) {
		read_gauges(&g);
		if (g.n == start->n && !memcmp(g.v, start->v, sizeof(g.v[0]) * g.n))
			return;
		usleep(10000);
	}
	for (unsigned int i = 0; i < g.n && i < start->n; i++)
		if (g.v[i] != start->v[i])
			flag("%s is %ld after undoing everything, was %ld",
			     g.name[i], g.v[i], start->v[i]);
	flag("the gauges changed");
}

/* ---- steps: 0 or -errno, nothing else ---- */

static int xioctl(int fd, unsigned long req, void *arg)
{
	return igt_ioctl(fd, req, arg) ? -errno : 0;
}

static int prime_export(int fd, uint32_t handle, int *out)
{
	struct drm_prime_handle p = { .handle = handle, .flags = DRM_CLOEXEC | DRM_RDWR };
	int ret = xioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &p);

	if (!ret)
		*out = p.fd;
	return ret;
}

static int prime_import(int fd, int dmabuf, uint32_t *handle)
{
	struct drm_prime_handle p = { .fd = dmabuf };
	int ret = xioctl(fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &p);

	if (!ret)
		*handle = p.handle;
	return ret;
}

static int addfb(uint32_t handle, uint32_t w, uint32_t h, uint32_t *fb)
{
	struct drm_mode_fb_cmd2 f = {
		.width = w, .height = h, .pixel_format = DRM_FORMAT_XRGB8888,
		.handles = { handle }, .pitches = { w * 4 },
	};
	int ret = xioctl(display, DRM_IOCTL_MODE_ADDFB2, &f);

	if (!ret)
		*fb = f.fb_id;
	return ret;
}

static int info(int fd, uint32_t handle, unsigned int i)
{
	c.info[i].handle = handle;
	return __gembuf_info(fd, &c.info[i], c.maps[i], ARRAY_SIZE(c.maps[i]));
}

static uint32_t fill_value(unsigned int n)
{
	return 0x5eed0000 | (n & 0xffff);
}

/* Atomic requests, built here: libdrm's would malloc while armed. */
static void rq_add(uint32_t obj, uint32_t prop, uint64_t v)
{
	bool new_obj = !rq.nobj || rq.objs[rq.nobj - 1] != obj;

	if (!prop)
		return;		/* a property the driver lacks */
	if (rq.nprop == ARRAY_SIZE(rq.props) ||
	    (new_obj && rq.nobj == ARRAY_SIZE(rq.objs))) {
		rq.overflow = true;
		return;
	}
	if (new_obj) {
		rq.objs[rq.nobj] = obj;
		rq.counts[rq.nobj++] = 0;
	}
	rq.counts[rq.nobj - 1]++;
	rq.props[rq.nprop] = prop;
	rq.values[rq.nprop++] = v;
}

/* A request that sets the mode on CRTC 0 and shows @fb (0: none) on the overlay. */
static void rq_start(uint32_t fb, bool modeset)
{
	rq.nobj = rq.nprop = 0;
	rq.overflow = false;
	if (modeset) {
		rq_add(k.crtc_id, k.crtc_active, 1);
		rq_add(k.crtc_id, k.crtc_mode_id, k.mode_blob);
		rq_add(k.conn_id, k.conn_crtc_id, k.crtc_id);
	}
	rq_add(ov->id, k.p_fb, fb);
	rq_add(ov->id, k.p_crtc, fb ? k.crtc_id : 0);
	if (!fb)
		return;
	rq_add(ov->id, k.p_sx, 0);
	rq_add(ov->id, k.p_sy, 0);
	rq_add(ov->id, k.p_sw, 64 << 16);
	rq_add(ov->id, k.p_sh, 64 << 16);
	rq_add(ov->id, k.p_cx, 0);
	rq_add(ov->id, k.p_cy, 0);
	rq_add(ov->id, k.p_cw, 64);
	rq_add(ov->id, k.p_ch, 64);
}

static int rq_commit(uint32_t flags)
{
	struct drm_mode_atomic a = {
		.flags = flags, .count_objs = rq.nobj,
		.objs_ptr = (uintptr_t)rq.objs,
		.count_props_ptr = (uintptr_t)rq.counts,
		.props_ptr = (uintptr_t)rq.props,
		.prop_values_ptr = (uintptr_t)rq.values,
	};

	if (rq.overflow)
		return -E2BIG;
	return xioctl(display, DRM_IOCTL_MODE_ATOMIC, &a);
}

/* ---- undo helpers: fail-nth is clear ---- */

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void close_handle(int fd, uint32_t *handle)
{
	if (*handle)
		gem_close(fd, *handle);
	*handle = 0;
}

static void rmfb(uint32_t *fb)
{
	if (*fb)
		drmModeRmFB(display, *fb);
	*fb = 0;
}

static bool has_mapping(unsigned int i, uint32_t kind)
{
	for (unsigned int m = 0; m < c.info[i].num_mappings && m < ARRAY_SIZE(c.maps[i]); m++)
		if (c.maps[i][m].kind == kind)
			return true;
	return false;
}

/* Words [0, @words) of @fd's object at @off read @v (after the engine's DMA). */
static void check_words(int fd, uint64_t off, uint64_t size, unsigned int words,
			uint32_t v, const char *what)
{
	uint32_t *p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, off);

	if (p == MAP_FAILED) {
		flag("mmap of %s for checking: %s", what, errname(errno));
		return;
	}
	for (unsigned int i = 0; i < words; i++)
		if (p[i] != v) {
			flag("%s word %u is %08x, not %08x", what, i, p[i], v);
			break;
		}
	munmap(p, size);
}

/* ---- create-mmap ---- */

static const char *const cm_steps[] = {
	"create", "mmap-offset", "mmap", "word", "info",
	"create-2M", "mmap-offset-2M", "mmap-2M", "word-2M", "info-2M", NULL
};

static int cm_step(unsigned int i, unsigned int n)
{
	static const uint64_t sizes[2] = { 64 << 10, (2 << 20) + (64 << 10) };
	unsigned int o = i / 5;
	volatile uint32_t *p = c.map[o];

	switch (i % 5) {
	case 0:
		c.size[o] = sizes[o];
		return __gembuf_create(display, &c.size[o], 0, GEMBUF_CACHE_WB, &c.h[o]);
	case 1:
		return __gembuf_mmap_offset(display, c.h[o], &c.off[o]);
	case 2:
		c.map[o] = mmap(NULL, c.size[o], PROT_READ | PROT_WRITE, MAP_SHARED,
				display, c.off[o]);
		if (c.map[o] != MAP_FAILED)
			return 0;
		c.map[o] = NULL;
		return -errno;
	case 3:
		p[0] = fill_value(n);
		p[c.size[o] / 4 - 1] = ~fill_value(n);
		c.rd[o][0] = p[0];
		c.rd[o][1] = p[c.size[o] / 4 - 1];
		return 0;
	default:
		return info(display, c.h[o], o);
	}
}

static void cm_check(unsigned int ran, unsigned int n)
{
	for (unsigned int o = 0; o < 2; o++) {
		if (ran > o * 5 + 3 &&
		    (c.rd[o][0] != fill_value(n) || c.rd[o][1] != ~fill_value(n)))
			flag("object %u read back %08x %08x", o, c.rd[o][0], c.rd[o][1]);
		if (ran > o * 5 + 4 &&
		    (c.info[o].size != c.size[o] || !has_mapping(o, GEMBUF_MAPPING_USER)))
			flag("The report of object %u: size %#llx, %u mappings, none of the user's",
			     o, (unsigned long long)c.info[o].size, c.info[o].num_mappings);
	}
}

static void cm_undo(void)
{
	for (unsigned int o = 0; o < 2; o++) {
		if (c.map[o])
			munmap(c.map[o], c.size[o]);
		close_handle(display, &c.h[o]);
	}
}

/* ---- engine-to-display ---- */

static const char *const ed_steps[] = {
	"create", "fill", "wait", "export", "import", "addfb", "info", NULL
};

static int ed_step(unsigned int i, unsigned int n)
{
	switch (i) {
	case 0:
		c.size[0] = FILL_SIZE;
		return __gembuf_create(engine, &c.size[0], 0, GEMBUF_CACHE_WB, &c.he);
	case 1:
		return __gembuf_fill(engine, c.he, 0, FILL_SIZE, fill_value(n));
	case 2:
		return __gembuf_wait(engine, c.he, 0, 10 * NS_PER_S);
	case 3:
		return prime_export(engine, c.he, &c.dmabuf);
	case 4:
		return prime_import(display, c.dmabuf, &c.hd);
	case 5:
		return addfb(c.hd, 32, 32, &c.fb);	/* 32x32 XRGB8888: 4 KiB */
	default:
		return info(display, c.hd, 0);
	}
}

static void ed_check(unsigned int ran, unsigned int n)
{
	/* An import has no map offset: its dma-buf is what maps. */
	if (ran >= 5)
		check_words(c.dmabuf, 0, FILL_SIZE, FILL_SIZE / 4, fill_value(n),
			    "the display's import, through its dma-buf");
	if (ran >= 7 && (c.info[0].size != FILL_SIZE ||
			 !(c.info[0].flags & GEMBUF_INFO_IMPORTED) ||
			 !has_mapping(0, GEMBUF_MAPPING_IOMMU)))
		flag("The report of the import: size %#llx, flags %#x, no engine mapping",
		     (unsigned long long)c.info[0].size, c.info[0].flags);
}

static void ed_undo(void)
{
	rmfb(&c.fb);
	close_handle(display, &c.hd);
	close_fd(&c.dmabuf);
	close_handle(engine, &c.he);
}

/* ---- foreign-import ---- */

static const char *const fi_steps[] = {
	"heap-alloc", "import-display", "import-engine", "info-display",
	"info-engine", "fill", NULL
};

static int fi_step(unsigned int i, unsigned int n)
{
	struct dma_heap_allocation_data a = {
		.len = 64 << 10, .fd_flags = O_RDWR | O_CLOEXEC,
	};
	int ret;

	switch (i) {
	case 0:
		ret = xioctl(heap, DMA_HEAP_IOCTL_ALLOC, &a);
		if (!ret)
			c.dmabuf = a.fd;
		return ret;
	case 1:
		return prime_import(display, c.dmabuf, &c.hd);
	case 2:
		return prime_import(engine, c.dmabuf, &c.he);
	case 3:
		return info(display, c.hd, 0);
	case 4:
		return info(engine, c.he, 1);
	default:
		return __gembuf_fill(engine, c.he, 0, FILL_SIZE, fill_value(n));
	}
}

static void fi_check(unsigned int ran, unsigned int n)
{
	struct dma_buf_sync sync = { .flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ };

	for (unsigned int i = 0; i < 2; i++)
		if (ran >= 4 + i && (c.info[i].size != 64 << 10 ||
				     !(c.info[i].flags & GEMBUF_INFO_IMPORTED)))
			flag("The report of import %u: size %#llx, flags %#x", i,
			     (unsigned long long)c.info[i].size, c.info[i].flags);
	if (ran < 6)
		return;
	if (__gembuf_wait(engine, c.he, 0, 10 * NS_PER_S)) {
		flag("the fill of the heap buffer did not finish in 10 s");
		return;
	}
	ioctl(c.dmabuf, DMA_BUF_IOCTL_SYNC, &sync);
	check_words(c.dmabuf, 0, 64 << 10, FILL_SIZE / 4, fill_value(n), "the heap buffer");
	sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ;
	ioctl(c.dmabuf, DMA_BUF_IOCTL_SYNC, &sync);
}

static void fi_undo(void)
{
	close_handle(engine, &c.he);
	close_handle(display, &c.hd);
	close_fd(&c.dmabuf);
}

/* ---- sync-file ---- */

static const char *const sf_steps[] = {
	"create", "fill", "export", "export-sync-file", "sync-file-info",
	"sw-sync-fence", "import-sync-file", NULL
};

static int sf_step(unsigned int i, unsigned int n)
{
	struct dma_buf_export_sync_file e = { .flags = DMA_BUF_SYNC_RW, .fd = -1 };
	struct dma_buf_import_sync_file im = { .flags = DMA_BUF_SYNC_WRITE };
	struct fault_sw_fence f = { .value = tl_seqno + 1, .name = "gembuf_fault" };
	int ret;

	switch (i) {
	case 0:
		c.size[0] = FILL_SIZE;
		return __gembuf_create(engine, &c.size[0], 0, GEMBUF_CACHE_WB, &c.he);
	case 1:
		return __gembuf_fill(engine, c.he, 0, FILL_SIZE, fill_value(n));
	case 2:
		return prime_export(engine, c.he, &c.dmabuf);
	case 3:
		ret = xioctl(c.dmabuf, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &e);
		if (!ret)
			c.sync = e.fd;
		return ret;
	case 4:
		c.sinfo.num_fences = ARRAY_SIZE(c.fences);
		c.sinfo.sync_fence_info = (uintptr_t)c.fences;
		return xioctl(c.sync, SYNC_IOC_FILE_INFO, &c.sinfo);
	case 5:
		ret = xioctl(timeline, FAULT_SW_SYNC_CREATE_FENCE, &f);
		if (!ret)
			c.swfence = f.fence;
		return ret;
	default:
		im.fd = c.swfence;
		return xioctl(c.dmabuf, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &im);
	}
}

/* Each run moves the timeline on by one, so the next fence is unsignalled. */
static void sf_signal(void)
{
	sw_sync_timeline_inc(timeline, 1);
	tl_seqno++;
	c.tl_done = true;
}

static void sf_check(unsigned int ran, unsigned int n)
{
	int ret;

	if (ran >= 5) {
		if (c.sinfo.num_fences < 1 || c.sinfo.num_fences > ARRAY_SIZE(c.fences) ||
		    c.sinfo.status < 0)
			flag("SYNC_IOC_FILE_INFO: %u fences, status %d",
			     c.sinfo.num_fences, c.sinfo.status);
		for (unsigned int i = 0; i < c.sinfo.num_fences && i < ARRAY_SIZE(c.fences); i++)
			if (c.fences[i].status < 0)
				flag("exported fence %u (%s) has error %d", i,
				     c.fences[i].driver_name, c.fences[i].status);
	}
	if (ran < 7)
		return;
	/* The imported fence holds the object until it signals. */
	ret = __gembuf_wait(engine, c.he, 0, 0);
	if (ret != -ETIME)
		flag("object idle (%d) with an unsignalled sync_file imported", ret);
	sf_signal();
	if (__gembuf_wait(engine, c.he, 0, 10 * NS_PER_S))
		flag("object still busy 10 s after its fences signalled");
}

static void sf_undo(void)
{
	if (!c.tl_done)
		sf_signal();
	close_fd(&c.swfence);
	close_fd(&c.sync);
	close_fd(&c.dmabuf);
	close_handle(engine, &c.he);
}

/* ---- addfb-commit ---- */

static const char *const ac_steps[] = {
	"addfb", "commit-on", "commit-off", "rmfb", NULL
};

static void ac_prepare(unsigned int n)
{
	c.flips = gembuf_state("fb_flips");
}

static int ac_step(unsigned int i, unsigned int n)
{
	int ret;

	switch (i) {
	case 0:
		return addfb(kin.handle, 64, 64, &c.fb);
	case 1:
		rq_start(c.fb, true);
		return rq_commit(DRM_MODE_ATOMIC_ALLOW_MODESET);
	case 2:
		rq_start(0, false);
		return rq_commit(0);
	default:
		ret = xioctl(display, DRM_IOCTL_MODE_RMFB, &c.fb);
		if (!ret)
			c.fb = 0;
		return ret;
	}
}

static void ac_check(unsigned int ran, unsigned int n)
{
	long flips = gembuf_state("fb_flips");

	if (ran >= 2 && flips != c.flips + 1)
		flag("fb_flips went from %ld to %ld with one flip", c.flips, flips);
}

static void ac_undo(void)
{
	rmfb(&c.fb);
	gk_disable(&k);
}

/* ---- writeback ---- */

#define WB_SENTINEL 0x00abcdef
#define KIN_COLOR 0xff3366cc

static const char *const wb_steps[] = { "addfb", "commit", NULL };

static uint32_t *wb_px(unsigned int x, unsigned int y)
{
	return (uint32_t *)kwb.map + y * (kwb.pitch / 4) + x;
}

static void wb_prepare(unsigned int n)
{
	*wb_px(0, 0) = WB_SENTINEL;
	*wb_px(kwb.width - 1, kwb.height - 1) = WB_SENTINEL;
}

static int wb_step(unsigned int i, unsigned int n)
{
	if (i == 0)
		return addfb(kwb.handle, kwb.width, kwb.height, &c.fb);
	rq_start(kin.fb_id, true);
	rq_add(k.wb_id, k.wb_crtc_id, k.crtc_id);
	rq_add(k.wb_id, k.wb_fb_prop, c.fb);
	rq_add(k.wb_id, k.wb_fence_prop, (uintptr_t)&c.wb_fence);
	return rq_commit(DRM_MODE_ATOMIC_ALLOW_MODESET);
}

/*
 * The frame written back by a commit of KIN_COLOR's 64x64 overlay, if
 * @committed.  With @may_leave_out, a frame without the overlay (black
 * where it would be) is taken too: true is returned then.
 */
static bool wb_check_frame(bool committed, unsigned int n, bool may_leave_out)
{
	struct pollfd pfd = { .fd = c.wb_fence, .events = POLLIN };
	struct sync_file_info si = {};
	uint32_t first, last;

	if (!committed) {
		if (c.wb_fence != -1)
			flag("a failed commit returned out-fence %d", c.wb_fence);
		return false;
	}
	if (c.wb_fence < 0) {
		flag("no writeback out-fence");
		return false;
	}
	if (poll(&pfd, 1, 10000) != 1) {
		flag("the writeback out-fence did not signal within 10 s");
		return false;
	}
	if (ioctl(c.wb_fence, SYNC_IOC_FILE_INFO, &si)) {
		flag("SYNC_IOC_FILE_INFO of the out-fence: %s", errname(errno));
		return false;
	}
	if (si.status < 0) {
		/* Allowed: the job failed and said so. */
		st.fence_errors++;
		igt_debug("n=%u: writeback fence error %d\n", n, si.status);
		return false;
	}
	first = *wb_px(0, 0) & 0xffffff;
	last = *wb_px(kwb.width - 1, kwb.height - 1) & 0xffffff;
	if (may_leave_out && first == 0 && last == 0)
		return true;
	if (first != (KIN_COLOR & 0xffffff) || last != 0)
		flag("written back %06x at 0,0 and %06x at the end, want %06x and 0",
		     first, last, KIN_COLOR & 0xffffff);
	return false;
}

static void wb_check(unsigned int ran, unsigned int n)
{
	wb_check_frame(ran >= 2, n, false);
}

static void wb_undo(void)
{
	close_fd(&c.wb_fence);
	rmfb(&c.fb);
	gk_disable(&k);
}

/* ---- heap-scanout ---- */

#define HS_SIZE (64 * 64 * 4)

static const char *const hs_steps[] = { "import-display", "addfb", "commit", NULL };

/*
 * A system-heap buffer of KIN_COLOR, and the writeback target's
 * framebuffer: made before fail-nth is armed, with every page the CPU
 * touches faulted in by then.
 */
static void hs_prepare(unsigned int n)
{
	struct dma_heap_allocation_data a = {
		.len = HS_SIZE, .fd_flags = O_RDWR | O_CLOEXEC,
	};
	struct dma_buf_sync sync = { .flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE };
	uint32_t *p;

	wb_prepare(n);
	igt_assert_eq(xioctl(heap, DMA_HEAP_IOCTL_ALLOC, &a), 0);
	c.dmabuf = a.fd;
	p = mmap(NULL, HS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, c.dmabuf, 0);
	igt_assert(p != MAP_FAILED);
	do_ioctl(c.dmabuf, DMA_BUF_IOCTL_SYNC, &sync);
	for (unsigned int i = 0; i < HS_SIZE / 4; i++)
		p[i] = KIN_COLOR;
	sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE;
	do_ioctl(c.dmabuf, DMA_BUF_IOCTL_SYNC, &sync);
	munmap(p, HS_SIZE);
	igt_assert_eq(addfb(kwb.handle, kwb.width, kwb.height, &c.wbfb), 0);
}

static int hs_step(unsigned int i, unsigned int n)
{
	switch (i) {
	case 0:
		return prime_import(display, c.dmabuf, &c.hd);
	case 1:
		return addfb(c.hd, 64, 64, &c.fb);
	default:
		/* The display maps the heap's buffer in prepare_fb: its vmap. */
		rq_start(c.fb, true);
		rq_add(k.wb_id, k.wb_crtc_id, k.crtc_id);
		rq_add(k.wb_id, k.wb_fb_prop, c.wbfb);
		rq_add(k.wb_id, k.wb_fence_prop, (uintptr_t)&c.wb_fence);
		return rq_commit(DRM_MODE_ATOMIC_ALLOW_MODESET);
	}
}

static void hs_check(unsigned int ran, unsigned int n)
{
	wb_check_frame(ran >= 3, n, false);
}

static void hs_undo(void)
{
	close_fd(&c.wb_fence);
	rmfb(&c.fb);
	rmfb(&c.wbfb);
	gk_disable(&k);
	close_handle(display, &c.hd);
	close_fd(&c.dmabuf);
}

/* ---- udmabuf-scanout ---- */

static const char *const ub_steps[] = { "import-display", "addfb", "commit", NULL };

/*
 * A udmabuf of memfd pages of KIN_COLOR, written through the memfd, not
 * the dma-buf: no CPU access of udmabuf's has begun, so it has no table
 * yet.  And the writeback target's framebuffer.
 */
static void ub_prepare(unsigned int n)
{
	struct udmabuf_create u = { .size = HS_SIZE };
	uint32_t *p;

	wb_prepare(n);
	c.memfd = memfd_create("gembuf_fault", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	igt_assert_fd(c.memfd);
	igt_assert_eq(ftruncate(c.memfd, HS_SIZE), 0);
	igt_assert_eq(fcntl(c.memfd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	u.memfd = c.memfd;
	u.flags = UDMABUF_FLAGS_CLOEXEC;
	c.dmabuf = ioctl(udmabuf, UDMABUF_CREATE, &u);
	igt_assert_fd(c.dmabuf);
	p = mmap(NULL, HS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, c.memfd, 0);
	igt_assert(p != MAP_FAILED);
	for (unsigned int i = 0; i < HS_SIZE / 4; i++)
		p[i] = KIN_COLOR;
	munmap(p, HS_SIZE);
	igt_assert_eq(addfb(kwb.handle, kwb.width, kwb.height, &c.wbfb), 0);
}

/* As heap-scanout: import, framebuffer, the commit that shows it. */
static int ub_step(unsigned int i, unsigned int n)
{
	return hs_step(i, n);
}

/*
 * The exporter's CPU access begins in the commit tail: when it fails (its
 * table not made), the commit still succeeds, with the plane left out of
 * the frames of that state.  Only where a failure was injected; the next
 * commit, a new state, begins the access again and shows the plane.
 */
static void ub_check(unsigned int ran, unsigned int n)
{
	int ret;

	if (!wb_check_frame(ran >= 3, n, c.injected))
		return;
	st.left_out++;
	close_fd(&c.wb_fence);
	wb_prepare(n);
	rq_start(c.fb, false);
	rq_add(k.wb_id, k.wb_crtc_id, k.crtc_id);
	rq_add(k.wb_id, k.wb_fb_prop, c.wbfb);
	rq_add(k.wb_id, k.wb_fence_prop, (uintptr_t)&c.wb_fence);
	ret = rq_commit(0);
	if (ret) {
		flag("the commit after the plane was left out: %s", errname(-ret));
		return;
	}
	wb_check_frame(true, n, false);
}

static void ub_undo(void)
{
	hs_undo();
	close_fd(&c.memfd);
}

/* ---- engine-copy ---- */

#define EC_WORDS 16

static const char *const ec_steps[] = { "copy", "wait", NULL };

/*
 * Two objects of the engine, with memory written through a CPU mapping
 * (the source a word pattern, the destination zeros), neither mapped for
 * the engine yet nor with a fence in its reservation object.
 */
static void ec_prepare(unsigned int n)
{
	uint32_t *p;

	for (unsigned int o = 0; o < 2; o++) {
		c.size[o] = FILL_SIZE;
		igt_assert_eq(__gembuf_create(engine, &c.size[o], 0, GEMBUF_CACHE_WB,
					      &c.h[o]), 0);
		p = gembuf_mmap(engine, c.h[o], FILL_SIZE);
		for (unsigned int i = 0; i < FILL_SIZE / 4; i++)
			p[i] = o ? fill_value(n) + i : 0;
		munmap(p, FILL_SIZE);
	}
}

/* The first EC_WORDS words of the source into the destination. */
static int ec_step(unsigned int i, unsigned int n)
{
	if (!i)
		return __gembuf_copy(engine, c.h[0], 0, c.h[1], 0, EC_WORDS * 4);
	return __gembuf_wait(engine, c.h[0], 0, 10 * NS_PER_S);
}

static void ec_check(unsigned int ran, unsigned int n)
{
	uint32_t *p;

	/* Copied and waited for: copied; refused: untouched. */
	if (ran == 1)
		return;
	p = __gembuf_mmap(engine, c.h[0], FILL_SIZE, PROT_READ, MAP_SHARED);
	if (!p) {
		flag("mmap of the copy's destination: %s", errname(errno));
		return;
	}
	for (unsigned int i = 0; i <= EC_WORDS; i++)
		if (p[i] != (i < EC_WORDS && ran ? fill_value(n) + i : 0)) {
			flag("the copy's destination word %u is %08x", i, p[i]);
			break;
		}
	munmap(p, FILL_SIZE);
}

static void ec_undo(void)
{
	close_handle(engine, &c.h[0]);
	close_handle(engine, &c.h[1]);
}

/* ---- vivid-expbuf ---- */

static const char *const ve_steps[] = { "expbuf", "mmap", "read", NULL };

static void ve_reqbufs(unsigned int count)
{
	struct v4l2_requestbuffers rb = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP,
		.count = count,
	};

	igt_assert_eq(xioctl(vivid, VIDIOC_REQBUFS, &rb), 0);
	igt_assert(rb.count >= count);
}

/*
 * A new buffer each run (vb2-dma-contig makes a buffer's scatterlist on
 * its first export and keeps it), its first and last words written
 * through V4L2's own mapping.
 */
static void ve_prepare(unsigned int n)
{
	struct v4l2_buffer b = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP,
	};
	uint32_t *p;

	ve_reqbufs(1);
	igt_assert_eq(xioctl(vivid, VIDIOC_QUERYBUF, &b), 0);
	c.vlen = b.length;
	p = mmap(NULL, c.vlen, PROT_READ | PROT_WRITE, MAP_SHARED, vivid, b.m.offset);
	igt_assert(p != MAP_FAILED);
	p[0] = fill_value(n);
	p[c.vlen / 4 - 1] = ~fill_value(n);
	c.vmap = p;
}

static int ve_step(unsigned int i, unsigned int n)
{
	struct v4l2_exportbuffer e = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .flags = O_RDWR | O_CLOEXEC,
	};
	volatile uint32_t *p = c.map[0];
	int ret;

	switch (i) {
	case 0:
		ret = xioctl(vivid, VIDIOC_EXPBUF, &e);
		if (!ret)
			c.dmabuf = e.fd;
		return ret;
	case 1:
		/* dma-contig maps every page at mmap: reading faults nothing in. */
		c.map[0] = mmap(NULL, c.vlen, PROT_READ, MAP_SHARED, c.dmabuf, 0);
		if (c.map[0] != MAP_FAILED)
			return 0;
		c.map[0] = NULL;
		return -errno;
	default:
		c.rd[0][0] = p[0];
		c.rd[0][1] = p[c.vlen / 4 - 1];
		return 0;
	}
}

static void ve_check(unsigned int ran, unsigned int n)
{
	uint64_t want = (c.vlen + 4095) & ~4095ull;
	off_t size;

	if (ran >= 1) {
		size = lseek(c.dmabuf, 0, SEEK_END);
		if (size < 0 || (uint64_t)size != want)
			flag("the exported buffer is %lld bytes, not %llu",
			     (long long)size, (unsigned long long)want);
	}
	if (ran >= 3 && (c.rd[0][0] != fill_value(n) || c.rd[0][1] != ~fill_value(n)))
		flag("the dma-buf reads %08x %08x, not what V4L2's mapping wrote",
		     c.rd[0][0], c.rd[0][1]);
}

static void ve_undo(void)
{
	if (c.map[0])
		munmap(c.map[0], c.vlen);
	close_fd(&c.dmabuf);
	if (c.vmap)
		munmap(c.vmap, c.vlen);
	ve_reqbufs(0);
}

/* ---- the sweep ---- */

struct seq {
	const char *name;
	const char *const *steps;
	void (*prepare)(unsigned int n);
	int (*step)(unsigned int i, unsigned int n);
	/* Checks what the first @ran steps made; flag()s, never asserts. */
	void (*check)(unsigned int ran, unsigned int n);
	void (*undo)(void);
	bool kms;
};

#define SEQ(n, p, x, ...) { .name = n, .steps = p##_steps, .prepare = x, \
	.step = p##_step, .check = p##_check, .undo = p##_undo, __VA_ARGS__ }
static const struct seq seqs[] = {
	SEQ("create-mmap", cm, NULL),
	SEQ("engine-to-display", ed, NULL),
	SEQ("foreign-import", fi, NULL),
	SEQ("heap-scanout", hs, hs_prepare, .kms = true),
	SEQ("vivid-expbuf", ve, ve_prepare),
	SEQ("sync-file", sf, NULL),
	SEQ("addfb-commit", ac, ac_prepare, .kms = true),
	SEQ("writeback", wb, wb_prepare, .kms = true),
	SEQ("engine-copy", ec, ec_prepare),
	SEQ("udmabuf-scanout", ub, ub_prepare, .kms = true),
};

static void ctx_reset(void)
{
	memset(&c, 0, sizeof(c));
	c.dmabuf = c.sync = c.swfence = c.memfd = c.wb_fence = -1;
}

static void count_errno(int err)
{
	unsigned int i;

	for (i = 0; i < st.nerr && st.err[i] != err; i++)
		;
	if (i == ARRAY_SIZE(st.err))
		return;
	st.err[i] = err;
	st.err_count[i]++;
	st.nerr += i == st.nerr;
}

static void report(const struct seq *s, double t, bool complete)
{
	char errs[128] = "", steps[256] = "";
	size_t len = 0;

	for (unsigned int i = 0; i < st.nerr && len < sizeof(errs); i++)
		len += snprintf(errs + len, sizeof(errs) - len, "%s%s x%u",
				i ? ", " : "", errname(st.err[i]), st.err_count[i]);
	len = 0;
	for (unsigned int i = 0; s->steps[i] && len < sizeof(steps); i++)
		if (st.step_fail[i])
			len += snprintf(steps + len, sizeof(steps) - len, "%s%s %u",
					len ? ", " : "", s->steps[i], st.step_fail[i]);
	igt_info("%s: %s at n=%u after %u runs (%s) in %.1f s; %u failures injected: "
		 "%u failed a step [%s] with %s, %u absorbed (all steps succeeded); "
		 "%u writeback fences signalled an error; %u commits left a plane out\n",
		 s->name, complete ? "complete" : "STOPPED", st.last_n, st.runs,
		 st.last_n > DENSE_N ? "every n to 200, then every 7th" : "every n",
		 t, st.injected, st.injected - st.absorbed, steps, errs[0] ? errs : "-",
		 st.absorbed, st.fence_errors, st.left_out);
}

static void sweep(const struct seq *s)
{
	struct gauges start;
	double t0 = now();
	bool complete = false;
	unsigned int n;

	memset(&st, 0, sizeof(st));
	prefault();
	read_gauges(&start);
	for (n = 1; n <= MAX_N; n = n < DENSE_N ? n + 1 : n + SPARSE_STEP) {
		unsigned int i, left;
		int ret = 0;

		ctx_reset();
		bad[0] = 0;
		if (s->prepare)
			s->prepare(n);

		failnth_arm(n);
		for (i = 0; s->steps[i]; i++) {
			ret = s->step(i, n);
			if (ret)
				break;
		}
		left = failnth_disarm();

		st.runs++;
		st.last_n = n;
		if (!left) {
			st.injected++;
			st.absorbed += !ret;
		}
		if (ret) {
			st.step_fail[i]++;
			count_errno(-ret);
		}
		igt_debug("%s n=%u: %s %s, failure %s\n", s->name, n,
			  ret ? s->steps[i] : "all steps done", ret ? errname(-ret) : "",
			  left ? "not injected" : "injected");

		c.injected = !left;
		s->check(i, n);
		s->undo();
		settle_gauges(&start);

		igt_assert_f(!bad[0], "%s, n=%u (%s%s): %s\n", s->name, n,
			     ret ? "failed at " : "all steps done",
			     ret ? s->steps[i] : "", bad);
		igt_assert_f(!ret || left == 0,
			     "%s, n=%u: step %s failed with %s and no failure injected\n",
			     s->name, n, s->steps[i], errname(-ret));
		igt_assert_f(!ret || ret == -ENOMEM,
			     "%s, n=%u: step %s failed with %s, not ENOMEM\n",
			     s->name, n, s->steps[i], errname(-ret));
		if (left) {
			complete = true;
			break;
		}
		if (now() - t0 > SWEEP_BUDGET_S || now() - t_start > TEST_BUDGET_S) {
			igt_warn("%s: stopped at n=%u, over the time budget\n", s->name, n);
			break;
		}
	}
	if (!complete && n > MAX_N)
		igt_warn("%s: still injecting at n=%d: sweep stopped\n", s->name, MAX_N);
	report(s, now() - t0, complete);
}

/* The KMS state the display sequences start from: CRTC 0 off, at 640x480. */
static void kms_setup(void)
{
	struct gk_layer l[GK_MAX_PLANES] = {};

	igt_require_f(master, "not DRM master of the display\n");
	if (kms_ready)
		return;
	gk_init(&k, display);
	igt_assert(gk_set_mode(&k, 640, 480));
	ov = gk_plane(&k, DRM_PLANE_TYPE_OVERLAY, 0);
	igt_assert(ov);
	gk_fb_create(&k, &kin, 64, 64, DRM_FORMAT_XRGB8888);
	gk_fb_fill(&kin, KIN_COLOR);
	gk_fb_create(&k, &kwb, k.mode.hdisplay, k.mode.vdisplay, DRM_FORMAT_XRGB8888);
	kms_ready = true;
	/*
	 * One commit through gk_commit() sets the overlay's other properties
	 * (opaque, no rotation, no color key), which outlive the tests
	 * before; the sequences then set FB, CRTC and rectangles only.
	 */
	l[ov - k.planes] = gk_layer_of(&kin);
	igt_assert_eq(gk_commit(&k, l, ov - k.planes + 1, NULL, 0), 0);
	gk_disable(&k);
}

igt_main
{
	igt_fixture {
		failnth_setup();
		display = gembuf_open_display();
		engine = gembuf_open_engine();
		master = drmSetMaster(display) == 0;
		find_gembuf_state();
		igt_require_f(gembuf_state("objects") >= 0 && gembuf_state_path[0],
			      "no gembuf_state in debugfs\n");
		t_start = now();
	}

	igt_describe("Every allocation of short gembuf ioctl sequences (objects and mmap, "
		     "engine to display by PRIME, foreign dma-buf imports, a system-heap "
		     "buffer scanned out, vivid's VIDIOC_EXPBUF, sync_files, "
		     "framebuffers and commits, writeback, an engine copy between "
		     "objects it never used, a udmabuf scanned out) fails in turn by "
		     "fail-nth: each failing step fails with ENOMEM, results of the "
		     "steps that succeed are right (a plane whose exporter's CPU access "
		     "failed in the commit tail is left out of that state's frames and "
		     "shown by the next commit), fences signal, and undoing the "
		     "sequence brings gembuf's and VCM's gauges back.");
	igt_subtest_with_dynamic("fail-nth") {
		for (unsigned int i = 0; i < ARRAY_SIZE(seqs); i++) {
			const struct seq *s = &seqs[i];

			igt_dynamic(s->name) {
				if (s->kms)
					kms_setup();
				if ((s->step == fi_step || s->step == hs_step) && heap < 0) {
					heap = open("/dev/dma_heap/system", O_RDWR | O_CLOEXEC);
					igt_require_f(heap >= 0, "no dma-heaps system heap\n");
				}
				if (s->step == ve_step && vivid < 0) {
					vivid = vivid_open_instance(1, V4L2_CAP_VIDEO_CAPTURE,
								    NULL, 0);
					igt_require_f(vivid >= 0,
						      "no capture node of vivid's dma-contig instance\n");
				}
				if (s->step == ub_step && udmabuf < 0) {
					udmabuf = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
					igt_require_f(udmabuf >= 0, "no /dev/udmabuf\n");
				}
				if (s->step == sf_step && timeline < 0) {
					igt_require(kernel_has_sw_sync());
					timeline = sw_sync_timeline_create();
				}
				sweep(s);
			}
		}
	}

	igt_fixture {
		if (kms_ready) {
			gk_disable(&k);
			gk_fb_destroy(&k, &kwb);
			gk_fb_destroy(&k, &kin);
		}
		if (timeline >= 0)
			close(timeline);
		if (vivid >= 0)
			close(vivid);
		if (udmabuf >= 0)
			close(udmabuf);
		if (heap >= 0)
			close(heap);
		drm_close_driver(engine);
		drm_close_driver(display);
		failnth_teardown();
	}
}
