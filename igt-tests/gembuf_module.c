// SPDX-License-Identifier: MIT
/*
 * gembuf_module: an exported dma-buf holds the gembuf module, so it
 * cannot be unloaded under a buffer someone still uses; a fence that
 * outlives the module does not reach into its memory.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/sync_file.h>

#include "igt.h"
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
	pid_t pid;

	igt_require(kernel_has_sw_sync());
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
	close(sf);
	close(gate);
	igt_assert_eq(system("modprobe gembuf"), 0);
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
}
