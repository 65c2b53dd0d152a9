// SPDX-License-Identifier: MIT
/*
 * gembuf_prime: PRIME export and import, between the two gembuf devices
 * (one object in memory), with vgem and the dma-heaps system heap in both
 * directions, and the lifetime of handles, fds and mappings.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/dma-buf.h>
#include <linux/udmabuf.h>
#include <drm_fourcc.h>

#include "igt.h"
#include "gembuf.h"
#include "gembuf_kms.h"
/* After libdrm's drm.h, which vgem_drm.h then reuses. */
#include <vgem_drm.h>

IGT_TEST_DESCRIPTION("Share gembuf objects with PRIME.");

static int display = -1, engine = -1;

static void fill_words(uint32_t *p, size_t n, uint32_t base)
{
	for (size_t i = 0; i < n; i++)
		p[i] = base + i;
}

static void check_words(const uint32_t *p, size_t n, uint32_t base)
{
	for (size_t i = 0; i < n; i++)
		igt_assert_f(p[i] == base + i, "word %zu: %08x\n", i, p[i]);
}

/* A 640x480 XRGB8888 frame, for the display to scan out. */
#define INFO_SIZE	(640 * 480 * 4)

/* A 64x64 XRGB8888 overlay in a udmabuf. */
#define UFB_W		64
#define UFB_SIZE	(UFB_W * UFB_W * 4)

/* The owner's frame: every pixel @color, written between SYNC brackets. */
static void udmabuf_draw(int dmabuf, uint32_t *v, uint32_t color)
{
	struct dma_buf_sync sync = { .flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE };

	do_ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync);
	for (unsigned int i = 0; i < UFB_SIZE / 4; i++)
		v[i] = color;
	sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE;
	do_ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync);
}

/*
 * In a child: map the object, check what debugfs says of each mapping,
 * then drop every privilege and be refused the report.  Returns 0, or the
 * step that failed (igt_assert is not for children).
 */
static int info_child(int fd, uint32_t h, int dmabuf)
{
	struct gembuf_report_mapping maps[16];
	struct gembuf_report info = { .handle = h };
	int user = 0, vmas = 0, iommu = 0, dma_api = 0, kernel = 0;
	void *mine;
	int ret;

	mine = mmap(NULL, INFO_SIZE, PROT_READ, MAP_SHARED, dmabuf, 0);
	if (mine == MAP_FAILED)
		return 2;
	if (__gembuf_info(fd, &info, maps, 16) || info.num_mappings > 16)
		return 3;
	for (unsigned int i = 0; i < info.num_mappings; i++) {
		switch (maps[i].kind) {
		case GEMBUF_MAPPING_IOMMU:
			/* The engine's IOVA, in gembuf's own address space. */
			if (!maps[i].dev_addr)
				return 4;
			iommu++;
			break;
		case GEMBUF_MAPPING_DMA_API:
			/* vgem's DMA address (on shmem): physical, no IOMMU. */
			if (maps[i].dev_addr || maps[i].size != INFO_SIZE)
				return 5;
			dma_api++;
			break;
		case GEMBUF_MAPPING_KERNEL:
			/* The display's: a kernel virtual address. */
			if (maps[i].dev_addr)
				return 10;
			kernel++;
			break;
		case GEMBUF_MAPPING_USER:
			/* Every process's mappings in one line, at no address. */
			if (maps[i].dev_addr)
				return 6;
			user++;
			vmas = maps[i].users;
			break;
		default:
			if (maps[i].dev_addr)
				return 7;
		}
	}
	/* vgem on the GEM VCM helper imports without mapping. */
	if (iommu != 1 || dma_api != !gembuf_vgem_on_vcm() || kernel < 1)
		return 8;
	/* The holder's and this one. */
	if (user != 1 || vmas != 2)
		return 9;
	/* The report is root's: there is no ioctl for it. */
	if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		return 1;
	ret = __gembuf_info(fd, &info, maps, 16);
	if (ret != -EACCES && ret != -EPERM)
		return 11;
	return 0;
}

/* Whether the user mapping at @p belongs to a dma-buf's file. */
static bool mapped_from_dmabuf(const void *p)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "r");

	igt_assert(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end;

		if (sscanf(line, "%lx-%lx", &start, &end) != 2 ||
		    (uintptr_t)p < start || (uintptr_t)p >= end)
			continue;
		igt_info("mapping: %s", line);
		found = strstr(line, "dmabuf") != NULL;
	}
	fclose(f);
	return found;
}

/*
 * Whether @m is a device's mapping of the object through the kernel's
 * address space: kind kernel, listed under the device's name.  The
 * display's mapping of an import it shows is one (the exporter's vmap,
 * which the helper's vmap of an import is).  The line of kind kernel
 * listed under "kernel" is no device's: the helper's vmap of memory it
 * holds, a reservation of the kernel VCM.
 */
static bool is_device_vmap(const struct gembuf_report_mapping *m)
{
	return m->kind == GEMBUF_MAPPING_KERNEL && strcmp(m->device, "kernel");
}

igt_main
{
	igt_fixture {
		display = gembuf_open_display();
		engine = gembuf_open_engine();
	}

	igt_describe("Importing one's own dma-buf gives back the same handle.");
	igt_subtest("self-import") {
		uint32_t h = gembuf_create(display, 8192, 0, GEMBUF_CACHE_WB);
		int fd = prime_handle_to_fd(display, h);

		igt_assert_eq_u32(prime_fd_to_handle(display, fd), h);
		igt_assert_eq_u32(prime_fd_to_handle(display, fd), h);
		close(fd);
		gem_close(display, h);
	}

	igt_describe("Display to engine and back: one object in memory; the engine's DMA shows through the display's mmap.");
	igt_subtest("display-engine-display") {
		long objects = gembuf_state("objects"), phys = vcm_stat("phys_bytes");
		uint32_t h = gembuf_create(display, 65536, 0, GEMBUF_CACHE_WB);
		uint32_t *p = gembuf_mmap(display, h, 65536);
		struct gembuf_report a, b;
		uint32_t he, back;
		int fd, fd2;

		fill_words(p, 16384, 0x10000);
		fd = prime_handle_to_fd(display, h);
		he = prime_fd_to_handle(engine, fd);
		gembuf_info(display, h, &a);
		gembuf_info(engine, he, &b);
		igt_assert_eq_u64(a.size, b.size);
		igt_assert(b.flags & GEMBUF_INFO_IMPORTED);
		igt_assert_eq(memcmp(a.chunks, b.chunks, sizeof(a.chunks)), 0);
		/* The engine's import is an object, but no second copy of the memory. */
		igt_assert_eq(gembuf_state("objects"), objects + 2);
		igt_assert_eq(vcm_stat("phys_bytes"), phys + 65536);

		igt_assert_eq(__gembuf_copy(engine, he, 32768, he, 0, 4096), 0);
		gembuf_wait(engine, he);
		check_words(p + 8192, 1024, 0x10000);
		igt_assert_eq(gembuf_find_mapping(display, h, GEMBUF_MAPPING_IOMMU, NULL), 1);

		/* Back to the display: its own object again. */
		fd2 = prime_handle_to_fd(engine, he);
		back = prime_fd_to_handle(display, fd2);
		igt_assert_eq_u32(back, h);
		close(fd2);
		close(fd);
		gem_close(engine, he);
		/*
		 * The engine's mapping goes with its last user: the finished
		 * job drops its hold on the import from a worker, shortly
		 * after the object went idle.
		 */
		for (int i = 0; i < 50 && gembuf_find_mapping(display, h, GEMBUF_MAPPING_IOMMU, NULL); i++)
			usleep(100 * 1000);
		igt_assert_eq(gembuf_find_mapping(display, h, GEMBUF_MAPPING_IOMMU, NULL), 0);
		munmap(p, 65536);
		gem_close(display, h);
		igt_assert_eq(gembuf_state("objects"), objects);
	}

	igt_describe("A vgem buffer imported by the engine is written by DMA and read through vgem's mapping.");
	igt_subtest("from-vgem") {
		int vgem = __drm_open_driver(DRIVER_VGEM);
		unsigned int stride;
		uint64_t size;
		uint32_t vh, h, *v;
		int fd;

		igt_require(vgem >= 0);
		vh = kmstest_dumb_create(vgem, 1024, 16, 32, &stride, &size);
		v = kmstest_dumb_map_buffer(vgem, vh, size, PROT_READ | PROT_WRITE);
		memset(v, 0, size);
		fd = prime_handle_to_fd(vgem, vh);
		h = prime_fd_to_handle(engine, fd);
		igt_assert_eq(__gembuf_fill(engine, h, 4096, 8192, 0x7e57da7a), 0);
		gembuf_wait(engine, h);
		for (size_t i = 0; i < size / 4; i++)
			igt_assert_eq_u32(v[i], i >= 1024 && i < 3072 ? 0x7e57da7a : 0);
		gem_close(engine, h);
		close(fd);
		munmap(v, size);
		gem_close(vgem, vh);
		drm_close_driver(vgem);
	}

	igt_describe("A vgem buffer imported by the display and by the engine is attached once by each, with its own device: each uses only the DMA addresses of its own attachment.");
	igt_subtest("import-attach-per-device") {
		int vgem = __drm_open_driver(DRIVER_VGEM);
		struct gembuf_report_mapping m;
		char names[8][64];
		unsigned int stride;
		uint32_t vh, hd, he;
		uint64_t size;
		int fd, n;

		igt_require(vgem >= 0);
		vh = kmstest_dumb_create(vgem, 1024, 16, 32, &stride, &size);
		fd = prime_handle_to_fd(vgem, vh);
		hd = prime_fd_to_handle(display, fd);
		he = prime_fd_to_handle(engine, fd);
		igt_assert_eq(__gembuf_fill(engine, he, 0, 4096, 0x0ddba11), 0);
		gembuf_wait(engine, he);
		igt_assert_eq(gembuf_find_mapping(engine, he, GEMBUF_MAPPING_IOMMU, &m), 1);

		n = gembuf_dmabuf_attachments(fd, names, 8);
		for (int i = 0; i < n && i < 8; i++)
			igt_info("attached: %s\n", names[i]);
		igt_assert_eq(n, 2);
		igt_assert_f(strcmp(names[0], names[1]),
			     "both imports attached through %s\n", names[0]);
		/* One of them is the engine's own device, which maps the IOVA. */
		igt_assert(!strcmp(names[0], m.device) || !strcmp(names[1], m.device));

		gem_close(engine, he);
		igt_assert_eq(gembuf_dmabuf_attachments(fd, names, 8), 1);
		gem_close(display, hd);
		igt_assert_eq(gembuf_dmabuf_attachments(fd, names, 8), 0);
		close(fd);
		gem_close(vgem, vh);
		drm_close_driver(vgem);
	}

	igt_describe("The display, which composes with the CPU, attaches a vgem buffer it imports but maps nothing for it: the dma-buf lists its attachment, made with its own device, and the DMA API debug layer has no mapping for that device, before or after the engine imports the same buffer (kms_prime@basic-crc-vgem scans such an import out). vgem is a static exporter: a dynamic one would still map at attach, which this does not see.");
	igt_subtest("display-import-no-map") {
		int vgem = __drm_open_driver(DRIVER_VGEM);
		char names[8][64];
		unsigned int stride;
		uint32_t vh, hd, he;
		uint64_t size;
		int fd, before;

		igt_require(vgem >= 0);
		before = gembuf_dma_api_mappings("gembuf");
		igt_require_f(before >= 0, "no DMA API debug layer\n");
		vh = kmstest_dumb_create(vgem, 1024, 16, 32, &stride, &size);
		fd = prime_handle_to_fd(vgem, vh);
		hd = prime_fd_to_handle(display, fd);
		igt_assert_eq(gembuf_dmabuf_attachments(fd, names, 8), 1);
		igt_assert_f(!strcmp(names[0], "gembuf"), "attached: %s\n", names[0]);
		igt_assert_eq(gembuf_dma_api_mappings("gembuf"), before);
		/* The engine imports it too, with an attachment of its own. */
		he = prime_fd_to_handle(engine, fd);
		igt_assert_eq(gembuf_dmabuf_attachments(fd, names, 8), 2);
		igt_assert_eq(gembuf_dma_api_mappings("gembuf"), before);
		gem_close(engine, he);
		gem_close(display, hd);
		igt_assert_eq(gembuf_dmabuf_attachments(fd, names, 8), 0);
		close(fd);
		gem_close(vgem, vh);
		drm_close_driver(vgem);
	}

	igt_describe("An imported vgem buffer is mapped by its exporter only: gembuf gives no map offset for an import (DRM's rule), and the dma-buf's own mapping shows the engine's DMA and the CPU's writes both ways.");
	igt_subtest("import-mmap") {
		int vgem = __drm_open_driver(DRIVER_VGEM);
		uint32_t vh, hd, he, *v, *d;
		unsigned int stride;
		uint64_t size, offset;
		int fd;

		igt_require(vgem >= 0);
		vh = kmstest_dumb_create(vgem, 1024, 16, 32, &stride, &size);
		v = kmstest_dumb_map_buffer(vgem, vh, size, PROT_READ | PROT_WRITE);
		fd = prime_handle_to_fd_for_mmap(vgem, vh);
		igt_assert_fd(fd);
		hd = prime_fd_to_handle(display, fd);
		he = prime_fd_to_handle(engine, fd);
		igt_assert_eq(__gembuf_mmap_offset(display, hd, &offset), -EINVAL);
		igt_assert_eq(__gembuf_mmap_offset(engine, he, &offset), -EINVAL);

		d = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		igt_assert(d != MAP_FAILED);
		igt_assert(mapped_from_dmabuf(d));
		fill_words(v, size / 4, 0x1000);
		check_words(d, size / 4, 0x1000);
		fill_words(d, size / 4, 0x2000);
		check_words(v, size / 4, 0x2000);
		/* The engine's DMA lands where both mappings see it. */
		igt_assert_eq(__gembuf_fill(engine, he, 0, 4096, 0xfeedf00d), 0);
		gembuf_wait(engine, he);
		igt_assert_eq_u32(d[0], 0xfeedf00d);
		igt_assert_eq_u32(v[1023], 0xfeedf00d);
		igt_assert_eq_u32(d[1024], 0x2000 + 1024);

		munmap(d, size);
		gem_close(engine, he);
		gem_close(display, hd);
		close(fd);
		munmap(v, size);
		gem_close(vgem, vh);
		drm_close_driver(vgem);
	}

	igt_describe("vgem imports a gembuf object: vgem reads and writes with the CPU only, so it attaches without mapping and the object gets no DMA mapping for it; the dma-buf's mmap shows the engine's writes.");
	igt_subtest("to-vgem") {
		int vgem = __drm_open_driver(DRIVER_VGEM);
		uint32_t h, vh, *v;
		int fd;

		igt_require(vgem >= 0);
		igt_require_f(gembuf_vgem_on_vcm(), "vgem is not on the GEM VCM helper\n");
		h = gembuf_create(engine, 16384, 0, GEMBUF_CACHE_WB);
		fd = prime_handle_to_fd(engine, h);
		vh = prime_fd_to_handle(vgem, fd);
		igt_assert_eq(__gembuf_fill(engine, h, 0, 16384, 0x0badf00d), 0);
		gembuf_wait(engine, h);
		igt_assert_eq(gembuf_find_mapping(engine, h, GEMBUF_MAPPING_DMA_API, NULL), 0);

		v = mmap(NULL, 16384, PROT_READ, MAP_SHARED, fd, 0);
		igt_assert(v != MAP_FAILED);
		for (int i = 0; i < 4096; i++)
			igt_assert_eq_u32(v[i], 0x0badf00d);
		munmap(v, 16384);

		gem_close(vgem, vh);
		igt_assert_eq(gembuf_find_mapping(engine, h, GEMBUF_MAPPING_DMA_API, NULL), 0);
		close(fd);
		gem_close(engine, h);
		drm_close_driver(vgem);
	}

	igt_describe("debugfs's report of an object tells the engine's IOVA, never the display's kernel address, another importer's DMA address or the address of any process's mapping (they are one line, which counts them); a client without privileges gets no report.");
	igt_subtest("info-addresses") {
		int vgem = __drm_open_driver(DRIVER_VGEM);
		int ready[2], done[2], status, checked;
		struct gk_fb kfb = {};
		struct gk_layer l;
		uint32_t h, vh;
		struct gk k;
		pid_t holder, checker;
		char c = 0;
		int fd;

		igt_require(vgem >= 0);
		/* vgem first, as in to-vgem. */
		h = gembuf_create(engine, INFO_SIZE, 0, GEMBUF_CACHE_WB);
		fd = prime_handle_to_fd(engine, h);
		vh = prime_fd_to_handle(vgem, fd);
		igt_assert_eq(__gembuf_fill(engine, h, 0, 16384, 0x5afe5afe), 0);
		gembuf_wait(engine, h);

		/* The display scans it out: a kernel mapping. */
		igt_assert_eq(drmSetMaster(display), 0);
		gk_init(&k, display);
		igt_assert(gk_set_mode(&k, 640, 480));
		gk_fb_from_handle(&k, &kfb, prime_fd_to_handle(display, fd), 640, 480,
				  DRM_FORMAT_XRGB8888, 640 * 4, 0, 0);
		l = gk_layer_of(&kfb);
		igt_assert_eq(gk_commit(&k, &l, 1, NULL, 0), 0);

		/* Another process maps the object and keeps the mapping. */
		igt_assert_eq(pipe(ready), 0);
		igt_assert_eq(pipe(done), 0);
		holder = fork();
		igt_assert(holder >= 0);
		if (holder == 0) {
			void *p = mmap(NULL, INFO_SIZE, PROT_READ, MAP_SHARED, fd, 0);

			if (p == MAP_FAILED || write(ready[1], &c, 1) != 1)
				_exit(1);
			_exit(read(done[0], &c, 1) == 1 ? 0 : 2);
		}
		igt_assert_eq(read(ready[0], &c, 1), 1);

		/* Asked by a process with its own mapping, then without privileges. */
		checker = fork();
		igt_assert(checker >= 0);
		if (checker == 0)
			_exit(info_child(engine, h, fd));
		igt_assert_eq(waitpid(checker, &checked, 0), checker);

		/* The holder goes first, so that a failure leaves nothing mapped. */
		igt_assert_eq(write(done[1], &c, 1), 1);
		igt_assert_eq(waitpid(holder, &status, 0), holder);
		igt_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		igt_assert_f(WIFEXITED(checked) && WEXITSTATUS(checked) == 0,
			     "the report's check failed at step %d\n",
			     WIFEXITED(checked) ? WEXITSTATUS(checked) : -1);
		close(ready[0]);
		close(ready[1]);
		close(done[0]);
		close(done[1]);
		gk_disable(&k);
		gk_fb_destroy(&k, &kfb);
		igt_assert_eq(drmDropMaster(display), 0);
		gem_close(vgem, vh);
		close(fd);
		gem_close(engine, h);
		drm_close_driver(vgem);
	}

	igt_describe("Buffers of the dma-heaps system heap and CMA heap (\"reserved\") imported by the engine are written by DMA and read through the heap's mapping.");
	igt_subtest_with_dynamic("from-dma-heap") {
		static const char *const heaps[] = { "system", "reserved" };

		for (unsigned int i = 0; i < ARRAY_SIZE(heaps); i++) {
			igt_dynamic(heaps[i]) {
				int fd = gembuf_heap_alloc(heaps[i], 1 << 20);
				uint32_t *v = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
						   MAP_SHARED, fd, 0);
				uint32_t h;

				igt_assert(v != MAP_FAILED);
				fill_words(v, 1024, 0x40);
				h = prime_fd_to_handle(engine, fd);
				igt_assert_eq(__gembuf_copy(engine, h, 65536, h, 0, 4096), 0);
				gembuf_wait(engine, h);
				check_words(v + 16384, 1024, 0x40);
				gem_close(engine, h);
				munmap(v, 1 << 20);
				close(fd);
			}
		}
	}

	igt_describe("A udmabuf (memfd pages) imported by the engine is written by DMA and read through the memfd.");
	igt_subtest("from-udmabuf") {
		struct udmabuf_create c = { .size = 65536 };
		int dev = open("/dev/udmabuf", O_RDWR);
		int memfd, fd;
		uint32_t h, *v;

		igt_require_f(dev >= 0, "no /dev/udmabuf\n");
		memfd = memfd_create("gembuf", MFD_ALLOW_SEALING);
		igt_assert_fd(memfd);
		igt_assert_eq(ftruncate(memfd, 65536), 0);
		igt_assert_eq(fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
		c.memfd = memfd;
		fd = ioctl(dev, UDMABUF_CREATE, &c);
		igt_assert_fd(fd);
		v = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
		igt_assert(v != MAP_FAILED);
		memset(v, 0, 65536);

		h = prime_fd_to_handle(engine, fd);
		igt_assert_eq(__gembuf_fill(engine, h, 8192, 4096, 0xfeedbeef), 0);
		gembuf_wait(engine, h);
		for (int i = 0; i < 16384; i++)
			igt_assert_eq_u32(v[i], i >= 2048 && i < 3072 ? 0xfeedbeef : 0);
		gem_close(engine, h);
		munmap(v, 65536);
		close(fd);
		close(memfd);
		close(dev);
	}

	igt_describe("A udmabuf shown on the display and redrawn by its owner between frames: each frame written back shows what the owner wrote last.  The owner's CPU access writes (DMA_BUF_SYNC_WRITE), the display's reads: udmabuf syncs its one table in both directions.");
	igt_subtest("udmabuf-scanout") {
		static const uint32_t colors[] = { 0xff3366cc, 0xff00ff00, 0xffcc3366 };
		struct udmabuf_create c = { .size = UFB_SIZE };
		int dev = open("/dev/udmabuf", O_RDWR);
		struct gk_fb ufb = {}, wb = {};
		struct gk_layer l[2] = {};
		int memfd, fd;
		uint32_t *v, *px;
		struct gk k;

		igt_require_f(dev >= 0, "no /dev/udmabuf\n");
		memfd = memfd_create("gembuf", MFD_ALLOW_SEALING);
		igt_assert_fd(memfd);
		igt_assert_eq(ftruncate(memfd, UFB_SIZE), 0);
		igt_assert_eq(fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
		c.memfd = memfd;
		fd = ioctl(dev, UDMABUF_CREATE, &c);
		igt_assert_fd(fd);
		v = mmap(NULL, UFB_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
		igt_assert(v != MAP_FAILED);

		igt_assert_eq(drmSetMaster(display), 0);
		gk_init(&k, display);
		igt_assert(gk_set_mode(&k, 640, 480));
		gk_fb_create(&k, &wb, 640, 480, DRM_FORMAT_XRGB8888);
		gk_fb_from_handle(&k, &ufb, prime_fd_to_handle(display, fd), UFB_W, UFB_W,
				  DRM_FORMAT_XRGB8888, UFB_W * 4, 0, 0);
		/* The primary plane off, the overlay at 100,100. */
		l[1] = gk_layer_of(&ufb);
		l[1].x = l[1].y = 100;
		px = wb.map;
		for (unsigned int i = 0; i < ARRAY_SIZE(colors); i++) {
			udmabuf_draw(fd, v, colors[i]);
			memset(wb.map, 0, wb.size);
			igt_assert_eq(gk_commit(&k, l, 2, &wb, 0), 0);
			igt_assert_eq_u32(px[100 * 640 + 100] & 0xffffff, colors[i] & 0xffffff);
			igt_assert_eq_u32(px[163 * 640 + 163] & 0xffffff, colors[i] & 0xffffff);
			igt_assert_eq_u32(px[164 * 640 + 164] & 0xffffff, 0);
		}
		gk_disable(&k);
		gk_fb_destroy(&k, &ufb);
		gk_fb_destroy(&k, &wb);
		igt_assert_eq(drmDropMaster(display), 0);
		munmap(v, UFB_SIZE);
		close(fd);
		close(memfd);
		close(dev);
	}

	igt_describe("The display writes frames back into buffers it does not map cached: an engine's object it imported (gembuf's own memory, which the writeback connector takes, unlike another exporter's) and an object of its own created write-combined.  A frame with a plane blended onto the primary is composed line by line and stored there, and shows whole through the object's owner's mapping.");
	igt_subtest("writeback-uncached-targets") {
		struct gk_fb in = {}, ov = {}, out = {};
		struct gk_layer l[2];
		uint32_t h[2], *p[2];
		struct gk k;
		int fd;

		/* The engine's, imported by the display; the display's own, WC. */
		h[0] = gembuf_create(engine, INFO_SIZE, 0, GEMBUF_CACHE_WB);
		p[0] = gembuf_mmap(engine, h[0], INFO_SIZE);
		h[1] = gembuf_create(display, INFO_SIZE, 0, GEMBUF_CACHE_WC);
		p[1] = gembuf_mmap(display, h[1], INFO_SIZE);
		fd = prime_handle_to_fd(engine, h[0]);

		igt_assert_eq(drmSetMaster(display), 0);
		gk_init(&k, display);
		igt_assert(gk_set_mode(&k, 640, 480));
		gk_fb_create(&k, &in, 640, 480, DRM_FORMAT_XRGB8888);
		fill_words(in.map, 640 * 480, 0x100000);
		/*
		 * Pre-multiplied ARGB8888 over it at 300,200, opaque on the
		 * left, transparent on the right: blended, with exact pixels.
		 */
		gk_fb_create(&k, &ov, 64, 64, DRM_FORMAT_ARGB8888);
		for (int i = 0; i < 64 * 64; i++)
			((uint32_t *)ov.map)[i] = i % 64 < 32 ? 0xff336699 : 0;
		l[0] = gk_layer_of(&in);
		l[1] = gk_layer_of(&ov);
		l[1].x = 300;
		l[1].y = 200;
		for (int t = 0; t < 2; t++) {
			uint32_t *px = p[t];

			memset(px, 0x5a, INFO_SIZE);
			gk_fb_from_handle(&k, &out, t ? h[1] : prime_fd_to_handle(display, fd),
					  640, 480, DRM_FORMAT_XRGB8888, 640 * 4, 0, 0);
			igt_assert_eq(gk_commit(&k, l, 2, &out, 0), 0);
			for (int y = 0; y < 480; y++)
				for (int x = 0; x < 640; x++) {
					uint32_t i = y * 640 + x, want = 0x100000 + i;

					if (x >= 300 && x < 332 && y >= 200 && y < 264)
						want = 0x336699;
					igt_assert_f((px[i] & 0xffffff) == want,
						     "%s: pixel %d,%d is %06x, want %06x\n",
						     t ? "write-combined" : "engine's import",
						     x, y, px[i] & 0xffffff, want);
				}
			/* The framebuffer, and the display's handle of the import. */
			drmModeRmFB(display, out.fb_id);
			if (!t)
				gem_close(display, out.handle);
		}
		gk_disable(&k);
		gk_fb_destroy(&k, &ov);
		gk_fb_destroy(&k, &in);
		igt_assert_eq(drmDropMaster(display), 0);
		close(fd);
		for (int t = 0; t < 2; t++)
			munmap(p[t], INFO_SIZE);
		gem_close(engine, h[0]);
		gem_close(display, h[1]);
	}

	igt_describe("A foreign buffer the display shows is mapped by the display through its exporter's vmap while a plane shows it: debugfs's report of the display's import lists that kernel mapping, at no address, with one user, only while it is shown.");
	igt_subtest("display-import-info") {
		int vgem = __drm_open_driver(DRIVER_VGEM);
		struct gembuf_report_mapping maps[16];
		struct gembuf_report info;
		struct gk_fb vfb = {};
		struct gk_layer l[2] = {};
		unsigned int stride;
		uint32_t vh, hd;
		uint64_t size;
		struct gk k;
		int fd;

		igt_require(vgem >= 0);
		vh = kmstest_dumb_create(vgem, 64, 64, 32, &stride, &size);
		fd = prime_handle_to_fd(vgem, vh);
		hd = prime_fd_to_handle(display, fd);
		igt_assert_eq(drmSetMaster(display), 0);
		gk_init(&k, display);
		igt_assert(gk_set_mode(&k, 640, 480));
		gk_fb_from_handle(&k, &vfb, hd, 64, 64, DRM_FORMAT_XRGB8888, stride, 0, 0);
		/* The primary plane off, the overlay showing the import. */
		l[1] = gk_layer_of(&vfb);
		l[1].x = l[1].y = 100;
		for (int shown = 1; shown >= 0; shown--) {
			int display_maps = 0;

			igt_assert_eq(gk_commit(&k, l, 2, NULL, 0), 0);
			info = (struct gembuf_report){ .handle = hd };
			igt_assert_eq(__gembuf_info(display, &info, maps, 16), 0);
			igt_assert(info.flags & GEMBUF_INFO_IMPORTED);
			igt_assert_lte(info.num_mappings, 16);
			for (unsigned int i = 0; i < info.num_mappings; i++) {
				igt_info("mapping %s kind %u address %#llx users %u\n",
					 maps[i].device, maps[i].kind,
					 (unsigned long long)maps[i].dev_addr, maps[i].users);
				/* Only the display's vmap of the import counts. */
				if (!is_device_vmap(&maps[i]))
					continue;
				igt_assert_eq_u64(maps[i].dev_addr, 0);
				igt_assert_eq_u32(maps[i].users, 1);
				display_maps++;
			}
			igt_assert_eq(display_maps, shown);
			l[1].fb = NULL;
		}
		gk_disable(&k);
		drmModeRmFB(display, vfb.fb_id);
		igt_assert_eq(drmDropMaster(display), 0);
		gem_close(display, hd);
		close(fd);
		gem_close(vgem, vh);
		drm_close_driver(vgem);
	}

	igt_describe("A cursor showing a vgem buffer takes part in every commit on its CRTC, as the other planes showing a foreign buffer do, so that each commit begins its CPU access again: a flip of the primary alone waits for a write fence on the cursor's buffer and then shows what was drawn into it; a move of that cursor is a commit too, which waits for the writer, rather than an update in place.");
	igt_subtest("cursor-foreign-commits") {
		int vgem = __drm_open_driver(DRIVER_VGEM);
		struct drm_vgem_fence_attach attach = { .flags = VGEM_FENCE_WRITE };
		struct drm_vgem_fence_signal sig = {};
		struct pollfd p = { .events = POLLIN };
		struct gk_layer l[GK_MAX_PLANES] = {};
		struct gk_fb prim[2], cfb = {}, wb = {};
		const struct gk_plane *cursor;
		struct drm_event_vblank ev;
		struct gk k;
		drmModeAtomicReqPtr req;
		unsigned int stride, c;
		struct timespec t0, t1;
		uint32_t vh, *v, *px;
		int status, fd;
		uint64_t size;
		pid_t pid;

		igt_require(vgem >= 0);
		vh = kmstest_dumb_create(vgem, 64, 64, 32, &stride, &size);
		v = kmstest_dumb_map_buffer(vgem, vh, size, PROT_READ | PROT_WRITE);
		for (unsigned int i = 0; i < size / 4; i++)
			v[i] = 0xff3366cc;
		fd = prime_handle_to_fd(vgem, vh);

		igt_assert_eq(drmSetMaster(display), 0);
		gk_init(&k, display);
		igt_assert(gk_set_mode(&k, 640, 480));
		cursor = gk_plane(&k, DRM_PLANE_TYPE_CURSOR, 0);
		igt_assert(cursor);
		c = cursor - k.planes;
		gk_fb_create(&k, &wb, 640, 480, DRM_FORMAT_XRGB8888);
		for (int i = 0; i < 2; i++) {
			gk_fb_create(&k, &prim[i], 640, 480, DRM_FORMAT_XRGB8888);
			gk_fb_fill(&prim[i], i ? 0x101010 : 0x202020);
		}
		gk_fb_from_handle(&k, &cfb, prime_fd_to_handle(display, fd), 64, 64,
				  DRM_FORMAT_ARGB8888, stride, 0, 0);
		l[0] = gk_layer_of(&prim[0]);
		l[c] = gk_layer_of(&cfb);
		l[c].x = l[c].y = 100;
		igt_assert_eq(gk_commit(&k, l, c + 1, NULL, 0), 0);

		/* The cursor's owner starts drawing into it. */
		attach.handle = vh;
		do_ioctl(vgem, DRM_IOCTL_VGEM_FENCE_ATTACH, &attach);
		for (unsigned int i = 0; i < size / 4; i++)
			v[i] = 0xff00ff00;
		/* A nonblocking flip of the primary alone waits for it. */
		req = drmModeAtomicAlloc();
		igt_assert(drmModeAtomicAddProperty(req, k.planes[0].id, k.p_fb,
						    prim[1].fb_id) >= 0);
		igt_assert_eq(drmModeAtomicCommit(display, req, DRM_MODE_ATOMIC_NONBLOCK |
						  DRM_MODE_PAGE_FLIP_EVENT, NULL), 0);
		drmModeAtomicFree(req);
		p.fd = display;
		igt_assert_f(poll(&p, 1, 500) == 0,
			     "the flip went ahead of the cursor's writer\n");
		sig.fence = attach.out_fence;
		do_ioctl(vgem, DRM_IOCTL_VGEM_FENCE_SIGNAL, &sig);
		igt_assert_eq(poll(&p, 1, 10000), 1);
		igt_assert_eq(read(display, &ev, sizeof(ev)), sizeof(ev));
		igt_assert_eq_u32(ev.base.type, DRM_EVENT_FLIP_COMPLETE);

		/*
		 * A move of the cursor while its owner draws again: a commit,
		 * which waits for the writer, signalled by a child 300 ms on.
		 */
		do_ioctl(vgem, DRM_IOCTL_VGEM_FENCE_ATTACH, &attach);
		pid = fork();
		igt_assert(pid >= 0);
		if (!pid) {
			usleep(300000);
			sig.fence = attach.out_fence;
			_exit(ioctl(vgem, DRM_IOCTL_VGEM_FENCE_SIGNAL, &sig) ? 1 : 0);
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		igt_assert_eq(drmModeMoveCursor(display, k.crtc_id, 200, 200), 0);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		igt_assert_eq(waitpid(pid, &status, 0), pid);
		igt_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		igt_assert_f((t1.tv_sec - t0.tv_sec) * 1000 +
			     (t1.tv_nsec - t0.tv_nsec) / 1000000 >= 200,
			     "the cursor moved ahead of its writer\n");

		/* A frame of the state as it is: the flipped primary, the moved cursor. */
		req = drmModeAtomicAlloc();
		{
			int32_t wb_fence = -1;

			gk_req_writeback(&k, req, wb.fb_id, &wb_fence);
			/* The writeback connector joins the CRTC: a modeset. */
			igt_assert_eq(drmModeAtomicCommit(display, req,
							  DRM_MODE_ATOMIC_ALLOW_MODESET,
							  NULL), 0);
			gk_commit_finish(&k, wb_fence);
		}
		drmModeAtomicFree(req);
		px = wb.map;
		igt_assert_eq_u32(px[200 * 640 + 200] & 0xffffff, 0x00ff00);
		igt_assert_eq_u32(px[263 * 640 + 263] & 0xffffff, 0x00ff00);
		igt_assert_eq_u32(px[100 * 640 + 100] & 0xffffff, 0x101010);

		gk_disable(&k);
		gk_fb_destroy(&k, &cfb);
		gk_fb_destroy(&k, &prim[1]);
		gk_fb_destroy(&k, &prim[0]);
		gk_fb_destroy(&k, &wb);
		igt_assert_eq(drmDropMaster(display), 0);
		close(fd);
		munmap(v, size);
		gem_close(vgem, vh);
		drm_close_driver(vgem);
	}

	igt_describe("The engine waits for a foreign writer's fence (vgem); closing the handle while the job waits keeps the object until the job is done.");
	igt_subtest("close-while-busy") {
		int vgem = __drm_open_driver(DRIVER_VGEM);
		struct drm_vgem_fence_attach attach = { .flags = VGEM_FENCE_WRITE };
		struct drm_vgem_fence_signal sig = {};
		long objects = gembuf_state("objects");
		unsigned int stride;
		uint64_t size;
		uint32_t vh, h, *v;
		int fd, i;

		igt_require(vgem >= 0);
		vh = kmstest_dumb_create(vgem, 1024, 4, 32, &stride, &size);
		v = kmstest_dumb_map_buffer(vgem, vh, size, PROT_READ | PROT_WRITE);
		memset(v, 0, size);
		attach.handle = vh;
		do_ioctl(vgem, DRM_IOCTL_VGEM_FENCE_ATTACH, &attach);

		fd = prime_handle_to_fd(vgem, vh);
		h = prime_fd_to_handle(engine, fd);
		igt_assert_eq(gembuf_state("objects"), objects + 1);
		igt_assert_eq(__gembuf_fill(engine, h, 0, 4096, 0x5a5a5a5a), 0);
		/* The job waits for vgem's write. */
		igt_assert_eq(__gembuf_wait(engine, h, 0, 0), -ETIME);
		gem_close(engine, h);
		close(fd);
		usleep(100000);
		igt_assert_eq_u32(v[0], 0);
		igt_assert_eq(gembuf_state("objects"), objects + 1);

		sig.fence = attach.out_fence;
		do_ioctl(vgem, DRM_IOCTL_VGEM_FENCE_SIGNAL, &sig);
		for (i = 0; i < 600 && gembuf_state("objects") != objects; i++)
			usleep(100000);
		igt_assert_eq(gembuf_state("objects"), objects);
		igt_assert_eq_u32(v[0], 0x5a5a5a5a);
		igt_assert_eq_u32(v[1023], 0x5a5a5a5a);
		igt_assert_eq_u32(v[1024], 0);
		munmap(v, size);
		gem_close(vgem, vh);
		drm_close_driver(vgem);
	}

	igt_describe("Handles, fds and mappings hold the object in any order; the counters return to where they were.");
	igt_subtest("lifetime") {
		long objects = gembuf_state("objects"), mappings = gembuf_state("mappings");
		uint32_t h = gembuf_create(display, 8192, 0, GEMBUF_CACHE_WB);
		uint32_t he, *p;
		int fd = prime_handle_to_fd_for_mmap(display, h);

		/* Handle closed while the fd lives. */
		gem_close(display, h);
		he = prime_fd_to_handle(engine, fd);
		/* An import has no map offset: the dma-buf maps. */
		p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		igt_assert(p != MAP_FAILED);
		p[0] = 42;
		/* fd closed while the handle lives. */
		close(fd);
		igt_assert_eq(__gembuf_fill(engine, he, 4, 4, 43), 0);
		gembuf_wait(engine, he);
		igt_assert_eq_u32(p[0], 42);
		igt_assert_eq_u32(p[1], 43);
		gem_close(engine, he);
		gembuf_state_settle("objects", objects + 1);
		/* Only the mapping holds it now. */
		igt_assert_eq(gembuf_state("objects"), objects + 1);
		munmap(p, 8192);
		igt_assert_eq(gembuf_state_settle("objects", objects), objects);
		igt_assert_eq(gembuf_state_settle("mappings", mappings), mappings);
	}

	igt_fixture {
		drm_close_driver(engine);
		drm_close_driver(display);
	}
}
