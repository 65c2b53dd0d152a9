// SPDX-License-Identifier: MIT
/*
 * gembuf_module: an exported dma-buf holds the gembuf module, so it
 * cannot be unloaded under a buffer someone still uses; a fence that
 * outlives the module does not reach into its memory.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/sync_file.h>

#include "igt.h"
#include "failnth.h"
#include "gembuf.h"
#include "sw_sync.h"

IGT_TEST_DESCRIPTION("The gembuf module stays while its dma-bufs live.");

/*
 * In a child: submit a job that waits for @fence, keep the job's fence in
 * a sync_file and return its number, or -1.  No asserts: the parent
 * checks.
 */
static int submit_gated(int fence)
{
	struct drm_gembuf_sync in = { 0 }, out = { 0 };
	struct drm_gembuf_dma_fill f = { 0 };
	uint64_t size = 4096;
	int engine, sf = -1;

	engine = gembuf_open_engine_nth(0);
	if (engine < 0 ||
	    drmSyncobjCreate(engine, 0, &in.handle) ||
	    drmSyncobjImportSyncFile(engine, in.handle, fence) ||
	    drmSyncobjCreate(engine, 0, &out.handle) ||
	    __gembuf_create(engine, &size, 0, GEMBUF_CACHE_WB, &f.handle))
		return -1;
	f.size = 4;
	f.in_syncs = (uintptr_t)&in;
	f.in_sync_count = 1;
	f.out_sync = out;
	if (igt_ioctl(engine, DRM_IOCTL_GEMBUF_DMA_FILL, &f) ||
	    drmSyncobjExportSyncFile(engine, out.handle, &sf))
		return -1;
	return sf;
}

#define TRACEFS "/sys/kernel/debug/tracing"

static void tracefs_write(const char *file, const char *s)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	fd = open(path, O_WRONLY | O_TRUNC);
	igt_assert_f(fd >= 0, "%s: %s\n", path, strerror(errno));
	igt_assert_eq(write(fd, s, strlen(s)), (int)strlen(s));
	close(fd);
}

/* The dma_fence_destroy events in the trace buffer of a signalled fence. */
static int trace_detached_destroys(void)
{
	char line[512];
	int n = 0;
	FILE *f;

	f = fopen(TRACEFS "/trace", "r");
	igt_assert(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, "dma_fence_destroy:") &&
		     strstr(line, "driver=detached-driver timeline=signaled-timeline");
	fclose(f);
	return n;
}

/*
 * A job waiting for a fence is cancelled when its process is killed, once
 * that fence signals: it never runs, so it does not hold the module.  Its
 * fence, kept in a sync_file, outlives the module and its scheduler.
 */
static void cancelled_fence_outlives_module(void)
{
	struct sync_fence_info fi = { 0 };
	struct sync_file_info info = { 0 };
	int gate, fence, sf, child_sf, pidfd, i, p[2];
	struct pollfd pfd;
	int destroys;
	bool tracing;
	pid_t pid;

	igt_require(kernel_has_sw_sync());
	/* The dma_fence events ask fences for their names too. */
	tracing = !access(TRACEFS "/events/dma_fence/enable", W_OK);
	gate = sw_sync_timeline_create();
	fence = sw_sync_timeline_create_fence(gate, 1);
	igt_assert(!pipe(p));
	pid = fork();
	igt_assert(pid >= 0);
	if (!pid) {
		/* Gone with the test, whatever becomes of it. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL))
			_exit(1);
		child_sf = submit_gated(fence);
		if (write(p[1], &child_sf, sizeof(child_sf)) != sizeof(child_sf) ||
		    child_sf < 0)
			_exit(1);
		for (;;)
			pause();
	}
	close(fence);
	close(p[1]);
	igt_assert_eq(read(p[0], &child_sf, sizeof(child_sf)), sizeof(child_sf));
	close(p[0]);
	igt_assert_lte(0, child_sf);
	/* The parent takes the sync_file; the child is killed. */
	pidfd = syscall(SYS_pidfd_open, pid, 0);
	igt_assert_lte(0, pidfd);
	sf = syscall(SYS_pidfd_getfd, pidfd, child_sf, 0);
	igt_assert_lte(0, sf);
	close(pidfd);
	kill(pid, SIGKILL);
	igt_assert_eq(waitpid(pid, NULL, 0), pid);

	/* Its job is cancelled once what it waits for signals. */
	sw_sync_timeline_inc(gate, 1);
	pfd.fd = sf;
	pfd.events = POLLIN;
	igt_assert_eq(poll(&pfd, 1, 30000), 1);

	if (tracing) {
		tracefs_write("trace", "");
		tracefs_write("events/dma_fence/enable", "1");
	}
	for (i = 0; i < 50 && system("rmmod gembuf 2>/dev/null"); i++)
		usleep(100 * 1000);
	igt_assert_f(i < 50, "gembuf does not unload\n");

	/* The module and its scheduler are gone; the fence is not. */
	info.num_fences = 1;
	info.sync_fence_info = (uintptr_t)&fi;
	igt_assert_eq(ioctl(sf, SYNC_IOC_FILE_INFO, &info), 0);
	igt_info("sync_file %s: fence %s on %s, status %d\n", info.name,
		 fi.driver_name, fi.obj_name, fi.status);
	igt_assert_lt(fi.status, 0);
	igt_assert_eq(strcmp(fi.obj_name, "signaled-timeline"), 0);
	igt_assert_eq(strcmp(fi.driver_name, "detached-driver"), 0);
	/* The sync_file's own name is made from the same two. */
	igt_assert_eq(strncmp(info.name, "detached-driver-", 16), 0);
	/*
	 * The last reference: its dma_fence_destroy event names it too (the
	 * sync_file's name is too short to tell the fence's context).
	 */
	destroys = tracing ? trace_detached_destroys() : 0;
	close(sf);
	if (tracing) {
		tracefs_write("events/dma_fence/enable", "0");
		igt_assert_f(trace_detached_destroys() > destroys,
			     "closing the sync_file traced no dma_fence_destroy of a signalled fence\n");
	} else {
		igt_info("no tracefs: the dma_fence events are not checked\n");
	}
	close(gate);
	igt_assert_eq(system("modprobe gembuf"), 0);
}

#define LOAD_DENSE_N	300	/* every n up to here */
#define LOAD_SPARSE	5	/* then every 5th */
#define LOAD_BUDGET_S	240.0	/* guest seconds for the whole sweep */
#define LOAD_TAIL	64	/* each of a load's last points, first */
#define LOAD_COUNT_N	(1u << 30)	/* fail-nth past any load's end */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* VCM's gauges (debugfs vcm/stats), in one string; "" without VCM. */
static void vcm_gauges(char *buf, size_t len)
{
	char line[128];
	size_t used = 0;
	FILE *f;

	buf[0] = 0;
	f = fopen("/sys/kernel/debug/vcm/stats", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && used < len - 1) {
		/* events that only grow are not gauges */
		if (!strncmp(line, "cache_", 6))
			continue;
		used += snprintf(buf + used, len - used, "%s", line);
	}
	fclose(f);
}

static void unload_gembuf(void)
{
	int i;

	for (i = 0; i < 50 && syscall(SYS_delete_module, "gembuf", O_NONBLOCK) &&
		    errno != ENOENT; i++)
		usleep(100 * 1000);
	igt_assert_f(i < 50, "gembuf does not unload: %s\n", strerror(errno));
}

/* What load_fault_sweep() counts, and the gauges it holds the loads to. */
struct load_sweep {
	int ko;
	char before[1024];
	unsigned int points, failed;
};

/*
 * One load with the @n-th allocation of the loading thread failed: it
 * fails, leaving no module and VCM's gauges where they were, or succeeds
 * (a probe that failed leaves its device unbound; the loader retries
 * some allocations), and the module unloads again.
 */
static void load_at(struct load_sweep *s, unsigned int n)
{
	char after[1024];
	bool injected;
	int ret, err;

	failnth_arm(n);
	ret = syscall(SYS_finit_module, s->ko, "", 0);
	err = errno;
	injected = !failnth_disarm();

	s->points++;
	if (!ret) {
		igt_assert(!access("/sys/module/gembuf", F_OK));
		unload_gembuf();
	} else {
		s->failed++;
		igt_assert_f(injected, "load failed (%s) with no failure injected\n",
			     strerror(err));
		igt_assert_f(access("/sys/module/gembuf/initstate", F_OK),
			     "a failed load left the module: n=%u\n", n);
	}
	vcm_gauges(after, sizeof(after));
	igt_assert_f(!strcmp(s->before, after),
		     "n=%u (%s): VCM's gauges moved:\n%s\nto\n%s\n", n,
		     ret ? strerror(err) : "loaded", s->before, after);
}

/*
 * The module's load with the nth allocation of the loading thread failed:
 * the module's init, the display's creation, and the engine's PCI probe,
 * which the driver core runs in the same thread.  kmemleak and the run's
 * splat check see what load_at() does not.  A load armed past its end
 * counts its points.  Each of its last LOAD_TAIL points is taken first:
 * the driver core's registration of the engine driver after its probes,
 * whose failure removes the engines it probed.  Then n = 1, 2, ... up to
 * LOAD_DENSE_N and every LOAD_SPARSE-th after it, while the budget lasts.
 */
static void load_fault_sweep(void)
{
	struct load_sweep s = {};
	unsigned int n, end, from, last, tail_failed;
	struct utsname u;
	char path[256];
	double t0;

	/*
	 * Each of the first full sweeps found a bug of the DRM core's unwind
	 * (a CRTC left on the list, an error pointer put as a device, a
	 * device left marked registered), fixed in series/.  make test's
	 * first boot runs it (gembuf_load_sweep=1); the passthrough boot
	 * skips it.
	 */
	igt_require_f(getenv("GEMBUF_LOAD_SWEEP"),
		      "the load sweep runs with gembuf_load_sweep=1 (make test's first boot)\n");
	failnth_setup();
	igt_assert_eq(uname(&u), 0);
	snprintf(path, sizeof(path),
		 "/lib/modules/%s/kernel/drivers/gpu/drm/gembuf/gembuf.ko", u.release);
	s.ko = open(path, O_RDONLY | O_CLOEXEC);
	igt_assert_f(s.ko >= 0, "%s: %s\n", path, strerror(errno));
	unload_gembuf();
	vcm_gauges(s.before, sizeof(s.before));
	t0 = now_s();

	failnth_arm(LOAD_COUNT_N);
	igt_assert_eq(syscall(SYS_finit_module, s.ko, "", 0), 0);
	end = LOAD_COUNT_N - failnth_disarm();
	unload_gembuf();
	igt_assert_lt(LOAD_TAIL, end);
	from = end - LOAD_TAIL + 1;

	/*
	 * Most of the tail's failures are ones the driver core only logs
	 * (uevents, sysfs files); the module's link to its driver is not.
	 */
	for (n = from; n <= end; n++)
		load_at(&s, n);
	tail_failed = s.failed;
	igt_assert_f(tail_failed, "none of the load's last %u points failed it\n", LOAD_TAIL);
	/* A longer load is sampled less, not failed; the budget is the whole sweep's. */
	for (n = 1, last = 0; n < from && now_s() - t0 <= LOAD_BUDGET_S;
	     n += n < LOAD_DENSE_N ? 1 : LOAD_SPARSE) {
		load_at(&s, n);
		last = n;
	}
	igt_info("%u points in a load; its last %u: %u loads failed; then n = 1 to %u: %u loads, %u failed; %.0f s%s\n",
		 end, LOAD_TAIL, tail_failed, last, s.points - LOAD_TAIL,
		 s.failed - tail_failed, now_s() - t0,
		 n < from ? " (STOPPED: the load has more points than the budget)" : "");
	failnth_teardown();
	close(s.ko);
	igt_assert_eq(system("modprobe gembuf"), 0);
}

#define DMA_DRIVER	"/sys/bus/pci/drivers/gembuf_dma"
#define PROBE_BUDGET_S	120.0	/* guest seconds for the probe sweep */

/* The first entry of directory @path named @prefix..., into @name. */
static bool dir_entry(const char *path, const char *prefix, char *name, size_t len)
{
	DIR *dir = opendir(path);
	struct dirent *de;
	bool found = false;

	while (dir && !found && (de = readdir(dir)))
		if (!strncmp(de->d_name, prefix, strlen(prefix)) &&
		    strlen(de->d_name) < len) {
			memcpy(name, de->d_name, strlen(de->d_name) + 1);
			found = true;
		}
	if (dir)
		closedir(dir);
	return found;
}

/* The PCI address of a device gembuf_dma drives, into @addr. */
static bool engine_pci_addr(char *addr, size_t len)
{
	return dir_entry(DMA_DRIVER, "0000:", addr, len);
}

static bool engine_bound(const char *addr)
{
	char path[128];

	snprintf(path, sizeof(path), DMA_DRIVER "/%s", addr);
	return !access(path, F_OK);
}

/* gembuf_dma's sysfs file @file ("bind", "unbind"), opened for writing. */
static int driver_file(const char *file)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), DMA_DRIVER "/%s", file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	igt_assert_f(fd >= 0, "%s: %s\n", path, strerror(errno));
	return fd;
}

/* Write @addr to the open driver file @fd and close it: 0 or -errno. */
static int driver_write(int fd, const char *addr)
{
	int ret = 0;

	if (write(fd, addr, strlen(addr)) != (ssize_t)strlen(addr))
		ret = -errno;
	close(fd);
	return ret;
}

/* The name of the engine's render minor at PCI address @addr, in sysfs. */
static bool engine_render_name(const char *addr, char *name, size_t len)
{
	char path[300];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/drm", addr);
	return dir_entry(path, "renderD", name, len);
}

/* The render node of the engine at PCI address @addr, opened, or -1. */
static int engine_render_of(const char *addr)
{
	char name[32], path[64];

	if (!engine_render_name(addr, name, sizeof(name)))
		return -1;
	snprintf(path, sizeof(path), "/dev/dri/%s", name);
	return open(path, O_RDWR | O_CLOEXEC);
}

/* What an unbound engine leaves: VCM's gauges, gembuf's objects and mappings. */
static void unbound_gauges(const char *addr, char *buf, size_t len)
{
	size_t used;

	vcm_gauges(buf, len);
	used = strlen(buf);
	snprintf(buf + used, len - used, "objects %ld\nmappings %ld\ndma-api %d\n",
		 gembuf_state("objects"), gembuf_state("mappings"),
		 gembuf_dma_api_mappings(addr));
}

static char probe_addr[64];

/* A probe sweep that failed leaves its engine bound again. */
static void probe_rebind(int sig)
{
	int fd;

	if (!probe_addr[0] || engine_bound(probe_addr))
		return;
	fd = open(DMA_DRIVER "/bind", O_WRONLY | O_CLOEXEC);
	if (fd >= 0 && driver_write(fd, probe_addr))
		igt_warn("%s is left unbound\n", probe_addr);
}

/*
 * The engine's PCI probe with the nth allocation of the binding thread
 * failed (fail-nth), for every n from 1 until a bind passes its last
 * allocation: the driver core probes in the thread that writes the
 * device's address to gembuf_dma's bind file.  The bind fails, leaving
 * the device unbound and nothing of the engine's in VCM's gauges,
 * gembuf's counters or the DMA API debug layer's mappings; or it
 * succeeds (a failure absorbed) with a render node, and unbinding then
 * leaves the same.  The load sweep reaches the probe only past its 300th
 * point, sampled: this one fails each allocation of the probe in turn,
 * the unwinding of the engine's pattern page and of drm_dev_register()
 * among them.  The engine, bound again at the end, fills and reads back.
 */
static void probe_fault_sweep(void)
{
	unsigned int n, last = 0, failed = 0, absorbed = 0, nodeless = 0;
	char before[2048], after[2048], minor[32];
	bool injected = true;
	double t0;
	int ret, fd;

	igt_require_f(getenv("GEMBUF_LOAD_SWEEP"),
		      "the probe sweep runs with gembuf_load_sweep=1, as the load sweep\n");
	igt_require(engine_pci_addr(probe_addr, sizeof(probe_addr)));
	igt_install_exit_handler(probe_rebind);
	failnth_setup();
	igt_assert_eq(driver_write(driver_file("unbind"), probe_addr), 0);
	unbound_gauges(probe_addr, before, sizeof(before));
	t0 = now_s();
	for (n = 1; injected && now_s() - t0 < PROBE_BUDGET_S; n++) {
		fd = driver_file("bind");
		failnth_arm(n);
		ret = driver_write(fd, probe_addr);
		injected = !failnth_disarm();
		last = n;

		if (ret) {
			failed++;
			igt_assert_f(injected, "bind failed (%s) with no failure injected\n",
				     strerror(-ret));
			igt_assert_f(!engine_bound(probe_addr),
				     "n=%u: a failed bind left %s bound\n", n, probe_addr);
		} else {
			igt_assert_f(engine_bound(probe_addr), "n=%u: %s not bound\n",
				     n, probe_addr);
			igt_assert_f(engine_render_name(probe_addr, minor, sizeof(minor)),
				     "n=%u: %s bound without a render minor\n", n, probe_addr);
			fd = engine_render_of(probe_addr);
			/*
			 * device_add() makes the minor's devtmpfs node at best:
			 * the failure of that node's name, in this thread,
			 * leaves a registered minor without one.
			 */
			igt_assert_f(fd >= 0 || (injected && errno == ENOENT),
				     "n=%u: %s's render node: %s\n", n, probe_addr,
				     strerror(errno));
			if (fd >= 0)
				close(fd);
			else
				nodeless++;
			if (!injected)
				break;
			absorbed++;
			igt_assert_eq(driver_write(driver_file("unbind"), probe_addr), 0);
		}
		/* The DRM device goes with its last reference: give it a second. */
		unbound_gauges(probe_addr, after, sizeof(after));
		for (int t = 0; t < 20 && strcmp(before, after); t++) {
			usleep(50 * 1000);
			unbound_gauges(probe_addr, after, sizeof(after));
		}
		igt_assert_f(!strcmp(before, after),
			     "n=%u (%s): the gauges moved:\n%s\nto\n%s\n",
			     n, ret ? strerror(-ret) : "bound", before, after);
	}
	failnth_teardown();
	igt_assert_f(!injected, "the probe has more points than the budget: stopped at n=%u\n",
		     last);
	igt_info("binds with n = 1 to %u: %u failed, %u bound despite a failure (%u without a devtmpfs node), in %.0f s\n",
		 last, failed, absorbed, nodeless, now_s() - t0);
	if (!engine_bound(probe_addr))
		igt_assert_eq(driver_write(driver_file("bind"), probe_addr), 0);

	fd = engine_render_of(probe_addr);
	igt_assert_lte(0, fd);
	gembuf_engine_check(fd, 0x600d);
	close(fd);
}

igt_main
{
	igt_describe("With every DRM file closed but a dma-buf open, unloading gembuf is refused; the dma-buf still maps.");
	igt_subtest("unload-while-exported") {
		int fd = gembuf_open_display();
		uint32_t h = gembuf_create(fd, 8192, 0, GEMBUF_CACHE_WB);
		int dmabuf = prime_handle_to_fd(fd, h);
		uint32_t *p;

		gem_close(fd, h);
		drm_close_driver(fd);
		igt_assert_neq(system("modprobe -r gembuf 2>/dev/null"), 0);
		p = mmap(NULL, 8192, PROT_READ, MAP_SHARED, dmabuf, 0);
		igt_assert(p != MAP_FAILED);
		igt_assert_eq_u32(p[0], 0);
		munmap(p, 8192);
		close(dmabuf);
	}

	igt_describe("A job cancelled before it ran (its process killed) does not hold the module; its fence, kept in a sync_file past rmmod, answers SYNC_IOC_FILE_INFO with its error and without reaching the module's freed scheduler.");
	igt_subtest("cancelled-fence-outlives-module")
		cancelled_fence_outlives_module();

	igt_describe("Loading gembuf with each of its load's allocations failed in turn (fail-nth): the load fails or succeeds, leaks nothing, leaves VCM's gauges as they were, and the module unloads.");
	igt_subtest("load-fault-sweep")
		load_fault_sweep();

	igt_describe("Binding a DMA engine with each of its probe's allocations failed in turn (fail-nth): the bind fails and leaves the device unbound, or succeeds, and either way the engine leaves nothing behind in VCM's and gembuf's gauges or the DMA API's mappings once unbound; bound again, it works.");
	igt_subtest("probe-fault-sweep")
		probe_fault_sweep();
}
