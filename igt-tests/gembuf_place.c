// SPDX-License-Identifier: MIT
/*
 * gembuf_place: memory that fits every device that shares it.
 *
 * The devices: gembuf's engine (edu behind the SMMU: it translates, 2 MiB
 * blocks), gembuf's display (reads with the CPU) and vivid's second
 * instance, loaded with allocators=1: vb2-dma-contig on a platform device
 * with no IOMMU and a 32-bit DMA mask, so its buffers must be one
 * physical range below 4 GiB (the guest has more RAM than that).  Each
 * pipeline creates an object, shares it, lets each device attach, then
 * uses it: the memory is chosen at the first use, for the devices
 * attached by then, and moved for one that attaches later while nothing
 * maps it.  Each checks that one device reads what another wrote, in one object, and
 * that the memory is what the devices need and no more.  First, the
 * problem: the dma-heaps system heap hands vivid memory it cannot use.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/videodev2.h>
#include <drm_fourcc.h>

#include "igt.h"
#include "gembuf.h"
#include "gembuf_kms.h"
#include "vivid.h"

IGT_TEST_DESCRIPTION("Allocate gembuf memory for the constraints of every device that uses it.");

/* vivid's webcam at 1280x720 YUYV: 1.76 MiB, more than one chunk. */
#define W 1280
#define H 720
#define FRAME (W * H * 2)

static int engine = -1, display = -1, vivid = -1;
/* Bytes of vivid's frame in its current format (vivid_format_as()). */
static uint32_t frame_bytes = FRAME;
static struct gk k_vkms;

static void info(int fd, uint32_t h, struct gembuf_report *gi,
		 struct gembuf_report_mapping *maps, unsigned int room)
{
	igt_assert_eq(__gembuf_info(fd, gi, maps, room), 0);
	igt_assert_eq_u32(gi->handle, h);
}

/* The cheapest memory for translating devices only: chunked, anywhere. */
static void check_for_iommu(const struct gembuf_report *gi)
{
	igt_assert(gi->flags & GEMBUF_INFO_ALLOCATED);
	igt_assert_eq_u32(gi->placement.need, GEMBUF_NEED_GRANULE);
	igt_assert_eq_u64(gi->placement.dma_limit, ~0ull);
	igt_assert_f(gi->chunks[21] >= 1, "no 2 MiB chunk\n");
}

/* Whether debugfs gembuf_objects has a line with both strings. */
static bool debugfs_has(const char *a, const char *b)
{
	char path[300], line[256];
	struct dirent *de;
	bool found = false;
	DIR *dir;
	FILE *f;

	dir = opendir("/sys/kernel/debug/dri");
	igt_assert(dir);
	while (!found && (de = readdir(dir))) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%s/gembuf_objects",
			 de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (!found && fgets(line, sizeof(line), f))
			found = strstr(line, a) && strstr(line, b);
		fclose(f);
	}
	closedir(dir);
	return found;
}

/* ---- vivid, instance 1 (dma-contig) ---- */

/* vivid's webcam at W x H in @pixfmt of @bpp bytes a pixel. */
static void vivid_format_as(uint32_t pixfmt, uint32_t bpp)
{
	struct v4l2_format f = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	struct v4l2_requestbuffers rb = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_DMABUF,
	};
	int input = 0, type = V4L2_BUF_TYPE_VIDEO_CAPTURE;

	/* Whatever a failed subtest left queued goes first. */
	ioctl(vivid, VIDIOC_STREAMOFF, &type);
	ioctl(vivid, VIDIOC_REQBUFS, &rb);
	igt_assert_eq(ioctl(vivid, VIDIOC_S_INPUT, &input), 0);
	f.fmt.pix.width = W;
	f.fmt.pix.height = H;
	f.fmt.pix.pixelformat = pixfmt;
	f.fmt.pix.field = V4L2_FIELD_NONE;
	igt_assert_eq(ioctl(vivid, VIDIOC_S_FMT, &f), 0);
	igt_require_f(f.fmt.pix.width == W && f.fmt.pix.height == H &&
		      f.fmt.pix.pixelformat == pixfmt &&
		      f.fmt.pix.sizeimage == W * H * bpp,
		      "vivid gives %ux%u (%u bytes)\n", f.fmt.pix.width,
		      f.fmt.pix.height, f.fmt.pix.sizeimage);
	frame_bytes = W * H * bpp;
}

static void vivid_format(void)
{
	vivid_format_as(V4L2_PIX_FMT_YUYV, 2);
}

static void v4l2_reqbufs(int fd, uint32_t type, uint32_t memory, unsigned int n)
{
	struct v4l2_requestbuffers rb = { .type = type, .memory = memory, .count = n };

	igt_assert_eq(ioctl(fd, VIDIOC_REQBUFS, &rb), 0);
}

static void vivid_reqbufs(unsigned int count)
{
	v4l2_reqbufs(vivid, V4L2_BUF_TYPE_VIDEO_CAPTURE, V4L2_MEMORY_DMABUF, count);
}

/* Queue a dma-buf: vb2-dma-contig attaches, maps and checks it here. */
static int vivid_queue(int fd)
{
	struct v4l2_buffer b = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_DMABUF, .index = 0,
		.m.fd = fd, .length = frame_bytes,
	};

	return ioctl(vivid, VIDIOC_QBUF, &b) ? -errno : 0;
}

/*
 * vivid set up for a frame, and an engine object of a frame the CPU
 * wrote, word i being i * 2654435761, unmapped.
 */
static uint32_t cpu_frame_for_vivid(void)
{
	uint32_t h, *p;

	igt_require_f(vivid >= 0, "no vivid instance with allocators=1\n");
	vivid_format();
	h = gembuf_create(engine, FRAME, 0, GEMBUF_CACHE_WB);
	p = gembuf_mmap(engine, h, FRAME);

	for (unsigned int i = 0; i < FRAME / 4; i++)
		p[i] = i * 2654435761u;
	munmap(p, FRAME);
	return h;
}

/*
 * vivid maps a dma-buf of engine object @h, and is refused: the
 * exporter's -EBUSY (memory mapped already that vivid cannot use), which
 * vb2-dma-contig reports as -EINVAL.  The dma-buf's fd, and the report
 * of @h after it in *@gi.
 */
static int vivid_refused(uint32_t h, struct gembuf_report *gi)
{
	int fd = prime_handle_to_fd(engine, h);

	vivid_reqbufs(1);
	igt_assert_eq(vivid_queue(fd), -EINVAL);
	vivid_reqbufs(0);
	*gi = (struct gembuf_report){ .handle = h };
	igt_assert_eq(__gembuf_info(engine, gi, NULL, 0), 0);
	igt_assert_eq(gi->placement.refused, -EBUSY);
	return fd;
}

static void vivid_capture(void)
{
	struct v4l2_buffer b = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_DMABUF,
	};
	struct pollfd p = { .fd = vivid, .events = POLLIN };
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;

	igt_assert_eq(ioctl(vivid, VIDIOC_STREAMON, &type), 0);
	igt_assert_eq(poll(&p, 1, 30000), 1);
	igt_assert_eq(ioctl(vivid, VIDIOC_DQBUF, &b), 0);
	igt_assert_eq(ioctl(vivid, VIDIOC_STREAMOFF, &type), 0);
	igt_assert(!(b.flags & V4L2_BUF_FLAG_ERROR));
	igt_assert_eq_u32(b.bytesused, frame_bytes);
}

/* Samples the engine reads or writes: edu moves 2 KiB per 100 ms. */
static const uint64_t samples[] = { 0, 0x41000, 0xe0000, FRAME - 4096 };

/*
 * The engine reads what vivid wrote: its DMA copies pages of the frame
 * out of @h (through its IOMMU mapping of the same memory) into a second
 * object, which the display imports: through the display's own mapping
 * of it, the copy must equal the frame as the CPU sees it through the
 * dma-buf.  Camera, engine, display.
 */
static void engine_reads_frame(uint32_t h, int fd)
{
	uint32_t copy = gembuf_create(engine, FRAME, 0, GEMBUF_CACHE_WB);
	uint8_t *frame, *out;
	size_t i, distinct = 0;
	int cfd;

	for (i = 0; i < ARRAY_SIZE(samples); i++)
		igt_assert_eq(__gembuf_copy(engine, copy, samples[i], h,
					    samples[i], 4096), 0);
	gembuf_wait(engine, copy);
	frame = mmap(NULL, FRAME, PROT_READ, MAP_SHARED, fd, 0);
	igt_assert(frame != MAP_FAILED);
	/* Read back through the copy's dma-buf, as another process would. */
	cfd = prime_handle_to_fd(engine, copy);
	out = mmap(NULL, FRAME, PROT_READ, MAP_SHARED, cfd, 0);
	igt_assert(out != MAP_FAILED);
	for (i = 0; i < ARRAY_SIZE(samples); i++)
		igt_assert(!memcmp(frame + samples[i], out + samples[i], 4096));
	/* A picture, not a blank buffer. */
	for (i = 1; i < FRAME; i += 997)
		distinct += frame[i] != frame[0];
	igt_assert_f(distinct > 100, "the frame is blank\n");
	munmap(out, FRAME);
	munmap(frame, FRAME);
	close(cfd);
	gem_close(engine, copy);
}

/* One object, mapped by vivid (DMA API) and the engine (its IOMMU). */
static void check_shared(uint32_t h)
{
	struct gembuf_report_mapping maps[8];
	struct gembuf_report gi = { .handle = h };
	bool vivid_map = false, engine_map = false;

	info(engine, h, &gi, maps, 8);
	for (unsigned int i = 0; i < gi.num_mappings && i < 8; i++) {
		if (maps[i].kind == GEMBUF_MAPPING_DMA_API &&
		    strstr(maps[i].device, "vivid"))
			vivid_map = true;
		if (maps[i].kind == GEMBUF_MAPPING_IOMMU)
			engine_map = true;
	}
	igt_assert(vivid_map && engine_map);
}

static void vivid_pipeline(void)
{
	struct gembuf_report gi = {};
	uint32_t h;
	int fd;

	vivid_format();
	h = gembuf_create(engine, FRAME, 0, GEMBUF_CACHE_WB);
	gi.handle = h;
	info(engine, h, &gi, NULL, 0);
	igt_assert(!(gi.flags & GEMBUF_INFO_ALLOCATED));
	igt_assert_eq_u32(gi.num_chunks, 0);
	fd = prime_handle_to_fd_for_mmap(engine, h);
	vivid_reqbufs(1);
	igt_assert_eq(vivid_queue(fd), 0);
	gi = (struct gembuf_report){ .handle = h };
	info(engine, h, &gi, NULL, 0);
	gembuf_placement_print("queued", &gi);
	gembuf_assert_low_range(&gi);
	igt_assert_eq_u32(gi.placement.moves, 0);
	vivid_capture();
	engine_reads_frame(h, fd);
	check_shared(h);
	gembuf_info_print(engine, h, "vivid -> engine");
	vivid_reqbufs(0);
	close(fd);
	gem_close(engine, h);
}

/*
 * Slots of the swiotlb in use: a mapping of memory a device cannot reach
 * bounces through them, a copy at every sync.  -1 without the debugfs
 * file.
 *
 * vivid's instance without an IOMMU sees physical addresses through
 * dma-direct: a mapping that takes no swiotlb slot is of the memory
 * itself, below its 32-bit mask, and vb2-dma-contig takes only a mapping
 * that is one DMA range.  So a buffer it queued, with the slots in use
 * no more than before, is one physical range below 4 GiB.  (Processes'
 * mappings of it are PFN maps, which /proc/self/pagemap does not show.)
 */
static long swiotlb_used(void)
{
	return gembuf_read_long("/sys/kernel/debug/swiotlb/io_tlb_used");
}

/*
 * vgem's dumb buffer of a frame, queued to vivid through its dma-buf:
 * vivid's mapping places the memory, one range below 4 GiB (see
 * swiotlb_used()); vivid captures into it; the engine's DMA through its
 * own import copies what the dma-buf's mmap shows, a picture.
 */
static void vgem_vivid_pipeline(int vgem)
{
	uint32_t vh, eh, stride;
	uint64_t size;
	long bounce;
	int fd;

	igt_require_f(swiotlb_used() >= 0, "no swiotlb in debugfs\n");
	vivid_format();
	vh = kmstest_dumb_create(vgem, W, H, 16, &stride, &size);
	igt_assert_eq_u32(stride, W * 2);
	igt_assert_lte(FRAME, size);
	fd = prime_handle_to_fd_for_mmap(vgem, vh);
	bounce = swiotlb_used();
	vivid_reqbufs(1);
	igt_assert_eq(vivid_queue(fd), 0);
	igt_info("swiotlb slots in use: %ld before, %ld with vivid's mapping\n",
		 bounce, swiotlb_used());
	igt_assert_lte(swiotlb_used(), bounce);
	vivid_capture();

	/* The engine copies from its own import what vivid wrote. */
	eh = prime_fd_to_handle(engine, fd);
	engine_reads_frame(eh, fd);

	vivid_reqbufs(0);
	gem_close(engine, eh);
	close(fd);
	gem_close(vgem, vh);
}

/* Lines at the top of the frame the engine fills, and with what. */
#define BAND_LINES	4
#define BAND_PIXEL	0x0000ff00u

/*
 * vkms's dumb buffer of an XRGB8888 frame, queued to vivid through its
 * dma-buf: vivid's mapping places the memory, with no bounce; vivid
 * captures into it (V4L2's XBGR32 is DRM's XRGB8888), the engine fills
 * its top lines through its own import, and vkms scans it out on an
 * overlay plane: its writeback shows the frame and the band, read from
 * the one buffer all three wrote into, one range below 4 GiB.
 */
static void vkms_vivid_pipeline(int vk)
{
	struct gk_fb primary, shared = {}, wb;
	struct gk_layer layers[2];
	uint32_t vh, eh, stride;
	unsigned int x, y, i, distinct = 0;
	uint32_t *src, *out;
	uint64_t size;
	long bounce;
	int fd;

	igt_require_f(drmSetMaster(vk) == 0, "vkms: not DRM master\n");
	gk_init(&k_vkms, vk);
	k_vkms.wb_only = true;
	igt_require_f(gk_set_mode(&k_vkms, W, H), "vkms: no %dx%d mode\n", W, H);
	igt_require_f(k_vkms.num_planes > 1 &&
		      k_vkms.planes[1].type == DRM_PLANE_TYPE_OVERLAY,
		      "vkms: no overlay plane (enable_overlay)\n");

	igt_require_f(swiotlb_used() >= 0, "no swiotlb in debugfs\n");
	vivid_format_as(V4L2_PIX_FMT_XBGR32, 4);
	vh = kmstest_dumb_create(vk, W, H, 32, &stride, &size);
	igt_assert_eq_u32(stride, W * 4);
	fd = prime_handle_to_fd_for_mmap(vk, vh);
	bounce = swiotlb_used();
	vivid_reqbufs(1);
	igt_assert_eq(vivid_queue(fd), 0);
	igt_assert_lte(swiotlb_used(), bounce);
	vivid_capture();

	eh = prime_fd_to_handle(engine, fd);
	igt_assert_eq(__gembuf_fill(engine, eh, 0, BAND_LINES * stride,
				    BAND_PIXEL), 0);
	gembuf_wait(engine, eh);

	gk_fb_create(&k_vkms, &primary, W, H, DRM_FORMAT_XRGB8888);
	gk_fb_fill(&primary, 0);
	gk_fb_create(&k_vkms, &wb, W, H, DRM_FORMAT_XRGB8888);
	gk_fb_from_handle(&k_vkms, &shared, vh, W, H, DRM_FORMAT_XRGB8888,
			  stride, 0, 0);
	layers[0] = gk_layer_of(&primary);
	layers[1] = gk_layer_of(&shared);
	igt_assert_eq(gk_commit(&k_vkms, layers, 2, &wb, 0), 0);
	/*
	 * gk_commit() waited for the writeback; vkms's writeback cleanup,
	 * which turns its composer off, runs after: let it before the next
	 * commit (the disable), as kms_compose does.
	 */
	usleep(50 * 1000);

	src = kmstest_dumb_map_buffer(vk, vh, size, PROT_READ);
	out = wb.map;
	for (y = 0; y < H; y++)
		for (x = 0; x < W; x++) {
			uint32_t want = y < BAND_LINES ? BAND_PIXEL : src[y * W + x];

			igt_assert_f(((out[y * W + x] ^ want) & 0xffffff) == 0,
				     "(%u,%u): 0x%08x, not 0x%08x\n", x, y,
				     out[y * W + x], want);
		}
	/* A picture below the band, not a blank buffer. */
	for (i = W * BAND_LINES; i < W * H; i += 997)
		distinct += (src[i] & 0xffffff) != (src[W * BAND_LINES] & 0xffffff);
	igt_assert_f(distinct > 100, "the frame is blank\n");
	munmap(src, size);

	gk_disable(&k_vkms);
	vivid_reqbufs(0);
	drmModeRmFB(vk, shared.fb_id);
	gk_fb_destroy(&k_vkms, &wb);
	gk_fb_destroy(&k_vkms, &primary);
	gem_close(engine, eh);
	close(fd);
	gem_close(vk, vh);
	drmDropMaster(vk);
}

static void iommu_pipeline(void)
{
	struct gembuf_report gi = {};
	uint64_t size = 8 << 20;
	uint32_t h, dh;
	uint32_t *p;
	int fd;

	h = gembuf_create(engine, size, 0, GEMBUF_CACHE_WB);
	fd = prime_handle_to_fd(engine, h);
	dh = prime_fd_to_handle(display, fd);
	/* The engine writes pages across the object... */
	for (unsigned int i = 0; i < 4; i++)
		igt_assert_eq(__gembuf_fill(engine, h, i * (size / 4) + 8192, 4096,
					    0x600df00d), 0);
	gembuf_wait(engine, h);
	gi.handle = h;
	info(engine, h, &gi, NULL, 0);
	gembuf_placement_print("engine -> display", &gi);
	check_for_iommu(&gi);
	igt_assert_lte(2, gi.placement.devices);
	/* ...and the dma-buf the display imported reads them. */
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	igt_assert(p != MAP_FAILED);
	for (uint64_t i = 0; i < size / 4; i += 257) {
		uint64_t in = (i * 4) % (size / 4);

		igt_assert_eq_u32(p[i], in >= 8192 && in < 12288 ? 0x600df00d : 0);
	}
	munmap(p, size);
	close(fd);
	gi = (struct gembuf_report){ .handle = dh };
	info(display, dh, &gi, NULL, 0);
	check_for_iommu(&gi);
	gembuf_info_print(display, dh, "engine -> display");
	gem_close(display, dh);
	gem_close(engine, h);
}

/*
 * Engine with a 28-bit mask to engine with a 40-bit one: both translate,
 * so the memory is chunked and anywhere; the 28-bit limit is on the
 * IOVAs of the first engine's VCM, which all sit below 256 MiB.
 */
static void engines_pipeline(void)
{
	struct gembuf_report_mapping maps[8];
	struct gembuf_report gi = {};
	int e28 = gembuf_open_engine_nth(1);
	uint64_t size = 4 << 20, offs[2] = { 0, (3 << 20) + 8192 };
	bool low = false;
	int engines = 0;
	uint32_t h, h40, copy;
	uint32_t *p;
	int fd;

	igt_require_f(e28 >= 0, "no second DMA engine\n");
	h = gembuf_create(e28, size, 0, GEMBUF_CACHE_WB);
	fd = prime_handle_to_fd(e28, h);
	h40 = prime_fd_to_handle(engine, fd);
	close(fd);

	/* The 28-bit engine writes, the 40-bit engine copies out. */
	for (int i = 0; i < 2; i++)
		igt_assert_eq(__gembuf_fill(e28, h, offs[i], 4096, 0x28282828 + i), 0);
	gembuf_wait(e28, h);
	copy = gembuf_create(engine, size, 0, GEMBUF_CACHE_WB);
	for (int i = 0; i < 2; i++)
		igt_assert_eq(__gembuf_copy(engine, copy, offs[i], h40, offs[i], 4096), 0);
	gembuf_wait(engine, copy);
	p = gembuf_mmap(engine, copy, size);
	for (int i = 0; i < 2; i++)
		for (int w = 0; w < 1024; w++)
			igt_assert_eq_u32(p[offs[i] / 4 + w], 0x28282828 + i);
	munmap(p, size);

	/* One object, mapped by both engines, each inside its own mask. */
	gi.handle = h;
	info(e28, h, &gi, maps, 8);
	gembuf_placement_print("engine28 -> engine40", &gi);
	check_for_iommu(&gi);
	igt_assert_eq_u32(gi.placement.devices, 2);
	for (unsigned int i = 0; i < gi.num_mappings && i < 8; i++) {
		if (maps[i].kind != GEMBUF_MAPPING_IOMMU)
			continue;
		igt_info("%s: IOVA 0x%llx + 0x%llx, %u entries\n", maps[i].device,
			 (unsigned long long)maps[i].dev_addr,
			 (unsigned long long)maps[i].size, maps[i].ptes);
		/* The DMA API maps inside each engine's mask: 28 or 40 bits. */
		igt_assert_lte_u64(maps[i].dev_addr + maps[i].size, 1ull << 40);
		if (maps[i].dev_addr + maps[i].size <= 1ull << 28)
			low = true;
		engines++;
	}
	igt_assert_eq(engines, 2);
	igt_assert_f(low, "no IOVA below 256 MiB for the 28-bit engine\n");
	gembuf_info_print(e28, h, "engine28 -> engine40");
	gem_close(engine, copy);
	gem_close(engine, h40);
	gem_close(e28, h);
	drm_close_driver(e28);
}

/* ---- the display to vivid's output (dma-contig), looped back ---- */

#define VIVID_CID_OSD_TEXT_MODE		(0x00f00000 + 0xf000 + 1)
#define VIVID_CID_HDMI_TO_OUTPUT_0	(0x00f00000 + 0xf000 + 113)
#define OW 1280
#define OH 720
#define OFRAME (OW * OH * 4)

static void v4l2_fmt(int fd, uint32_t type)
{
	struct v4l2_format f = { .type = type };

	f.fmt.pix.width = OW;
	f.fmt.pix.height = OH;
	f.fmt.pix.pixelformat = V4L2_PIX_FMT_XBGR32;	/* DRM's XRGB8888 */
	f.fmt.pix.field = V4L2_FIELD_NONE;
	igt_assert_eq(ioctl(fd, VIDIOC_S_FMT, &f), 0);
	igt_require_f(f.fmt.pix.width == OW && f.fmt.pix.height == OH &&
		      f.fmt.pix.pixelformat == V4L2_PIX_FMT_XBGR32 &&
		      f.fmt.pix.sizeimage == OFRAME,
		      "vivid gives %ux%u %.4s\n", f.fmt.pix.width, f.fmt.pix.height,
		      (char *)&f.fmt.pix.pixelformat);
}

/*
 * vivid's instance 1 with its HDMI input connected to its own HDMI
 * output: what the output device reads from a buffer comes back on the
 * capture device.  Returns the output node, or -1.
 */
static int vivid_loop(int *cap)
{
	struct v4l2_control c = { .id = VIVID_CID_HDMI_TO_OUTPUT_0 };
	struct v4l2_querymenu m = { .id = VIVID_CID_HDMI_TO_OUTPUT_0 };
	int out = vivid_open_instance(1, V4L2_CAP_VIDEO_OUTPUT, NULL, 0);
	int input = 3, output = 1;	/* HDMI, after webcam, TV, S-Video */

	*cap = vivid;
	if (out < 0)
		return -1;
	/* Whatever a failed subtest left queued goes first. */
	ioctl(vivid, VIDIOC_STREAMOFF, &(int){ V4L2_BUF_TYPE_VIDEO_CAPTURE });
	ioctl(vivid, VIDIOC_REQBUFS, &(struct v4l2_requestbuffers){
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_DMABUF,
	});
	igt_assert_eq(ioctl(vivid, VIDIOC_S_INPUT, &input), 0);
	igt_assert_eq(ioctl(out, VIDIOC_S_OUTPUT, &output), 0);
	for (m.index = 2; !ioctl(vivid, VIDIOC_QUERYMENU, &m); m.index++)
		if (!strcmp((char *)m.name, "Output HDMI 001-0"))
			c.value = m.index;
	igt_require_f(c.value, "no HDMI output of vivid's instance 1 to loop to\n");
	igt_assert_eq(ioctl(vivid, VIDIOC_S_CTRL, &c), 0);
	/* No text drawn over the frame. */
	c = (struct v4l2_control){ .id = VIVID_CID_OSD_TEXT_MODE, .value = 2 };
	igt_assert_eq(ioctl(vivid, VIDIOC_S_CTRL, &c), 0);
	v4l2_fmt(vivid, V4L2_BUF_TYPE_VIDEO_CAPTURE);
	v4l2_fmt(out, V4L2_BUF_TYPE_VIDEO_OUTPUT);
	return out;
}

static void vivid_unloop(int out)
{
	struct v4l2_control c = { .id = VIVID_CID_HDMI_TO_OUTPUT_0, .value = 0 };
	int type = V4L2_BUF_TYPE_VIDEO_OUTPUT, input = 0;

	ioctl(out, VIDIOC_STREAMOFF, &type);
	type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	ioctl(vivid, VIDIOC_STREAMOFF, &type);
	v4l2_reqbufs(out, V4L2_BUF_TYPE_VIDEO_OUTPUT, V4L2_MEMORY_DMABUF, 0);
	v4l2_reqbufs(vivid, V4L2_BUF_TYPE_VIDEO_CAPTURE, V4L2_MEMORY_MMAP, 0);
	ioctl(vivid, VIDIOC_S_CTRL, &c);
	c = (struct v4l2_control){ .id = VIVID_CID_OSD_TEXT_MODE, .value = 0 };
	ioctl(vivid, VIDIOC_S_CTRL, &c);
	ioctl(vivid, VIDIOC_S_INPUT, &input);
	close(out);
}

/*
 * vivid's output takes @h as a DMABUF buffer, in two: its thread gives a
 * buffer back every frame, and the loop copies only while one is queued,
 * so the same dma-buf goes in both, requeued as they come back.  Queuing
 * attaches and maps it.
 */
static int vivid_out_queue(int out, struct v4l2_buffer *ob, uint32_t h)
{
	int fd = prime_handle_to_fd_for_mmap(display, h);

	v4l2_reqbufs(out, V4L2_BUF_TYPE_VIDEO_OUTPUT, V4L2_MEMORY_DMABUF, 2);
	ob->m.fd = fd;
	ob->index = 0;
	igt_assert_eq(ioctl(out, VIDIOC_QBUF, ob), 0);
	ob->index = 1;
	igt_assert_eq(ioctl(out, VIDIOC_QBUF, ob), 0);
	return fd;
}

/*
 * The display writes a frame back into @h, vivid's output takes it as a
 * DMABUF buffer and its looped capture must show the same pixels.  With
 * @attach_first vivid's output attaches before the display writes, so
 * the memory is one range below 4 GiB from the start; otherwise it is
 * written back into any pages first and moved when vivid attaches.
 */
static void display_to_vivid(bool attach_first)
{
	struct v4l2_buffer ob = {
		.type = V4L2_BUF_TYPE_VIDEO_OUTPUT, .memory = V4L2_MEMORY_DMABUF,
		.length = OFRAME, .bytesused = OFRAME, .field = V4L2_FIELD_NONE,
	};
	struct gembuf_report gi = {};
	struct gk_fb primary = {}, wb = {};
	int cap, out = vivid_loop(&cap), fd = -1, type;
	uint32_t h, *pix, *got;
	bool same = false;
	struct gk_layer l;
	struct gk k;

	igt_require_f(out >= 0, "no vivid output with allocators=1\n");
	h = gembuf_create(display, OFRAME, 0, GEMBUF_CACHE_WB);
	if (attach_first)
		fd = vivid_out_queue(out, &ob, h);

	/* The display composes a picture and writes it back into @h. */
	igt_assert_eq(drmSetMaster(display), 0);
	gk_init(&k, display);
	igt_assert(gk_set_mode(&k, OW, OH));
	gk_fb_create(&k, &primary, OW, OH, DRM_FORMAT_XRGB8888);
	for (uint32_t i = 0; i < OW * OH; i++)
		((uint32_t *)primary.map)[i] = (i % OW) << 12 ^ (i / OW) * 0x10101;
	gk_fb_from_handle(&k, &wb, h, OW, OH, DRM_FORMAT_XRGB8888, OW * 4, 0, 0);
	l = gk_layer_of(&primary);
	igt_assert_eq(gk_commit(&k, &l, 1, &wb, 0), 0);
	gk_disable(&k);
	igt_assert_eq(drmModeRmFB(display, wb.fb_id), 0);
	pix = gembuf_mmap(display, h, OFRAME);
	igt_assert_eq_u32(pix[OW + 1] & 0xffffff,
			  ((uint32_t *)primary.map)[OW + 1] & 0xffffff);
	munmap(pix, OFRAME);
	gk_fb_destroy(&k, &primary);
	igt_assert_eq(drmDropMaster(display), 0);

	/* vivid's output takes it: moved to one range first, if not yet. */
	if (!attach_first)
		fd = vivid_out_queue(out, &ob, h);
	gi.handle = h;
	info(display, h, &gi, NULL, 0);
	gembuf_assert_low_range(&gi);
	igt_assert_eq_u32(gi.placement.moves, attach_first ? 0 : 1);
	type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
	igt_assert_eq(ioctl(out, VIDIOC_STREAMON, &type), 0);

	/* What vivid's output read comes back on its capture. */
	v4l2_reqbufs(cap, V4L2_BUF_TYPE_VIDEO_CAPTURE, V4L2_MEMORY_MMAP, 1);
	got = NULL;
	{
		struct v4l2_buffer cb = {
			.type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP,
		};
		struct pollfd p = { .fd = cap, .events = POLLIN };
		struct pollfd po = { .fd = out, .events = POLLOUT };

		igt_assert_eq(ioctl(cap, VIDIOC_QUERYBUF, &cb), 0);
		got = mmap(NULL, cb.length, PROT_READ, MAP_SHARED, cap, cb.m.offset);
		igt_assert(got != MAP_FAILED);
		pix = mmap(NULL, OFRAME, PROT_READ, MAP_SHARED, fd, 0);
		igt_assert(pix != MAP_FAILED);
		type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
		igt_assert_eq(ioctl(cap, VIDIOC_QBUF, &cb), 0);
		igt_assert_eq(ioctl(cap, VIDIOC_STREAMON, &type), 0);
		for (int tries = 0; tries < 30 && !same; tries++) {
			while (poll(&po, 1, 0) == 1) {
				ob.index = 0;
				igt_assert_eq(ioctl(out, VIDIOC_DQBUF, &ob), 0);
				ob.m.fd = fd;
				ob.bytesused = OFRAME;
				igt_assert_eq(ioctl(out, VIDIOC_QBUF, &ob), 0);
			}
			igt_assert_eq(poll(&p, 1, 30000), 1);
			igt_assert_eq(ioctl(cap, VIDIOC_DQBUF, &cb), 0);
			same = true;
			for (uint32_t i = 0; i < OW * OH && same; i += 97)
				same = (got[i] & 0xffffff) == (pix[i] & 0xffffff);
			if (!same)
				igt_assert_eq(ioctl(cap, VIDIOC_QBUF, &cb), 0);
		}
		{
			uint32_t differ = 0, first = 0;

			for (uint32_t i = 0; i < OW * OH; i++)
				if ((got[i] & 0xffffff) != (pix[i] & 0xffffff) && !differ++)
					first = i;
			igt_info("capture %s the display's frame: %u of %u pixels differ%s\n",
				 same ? "shows" : "does not show", differ, OW * OH,
				 differ ? "" : ", all compared");
			if (differ)
				igt_info("first at (%u, %u): 0x%08x, not 0x%08x\n", first % OW,
					 first / OW, got[first], pix[first]);
			same = !differ;
		}
		munmap(pix, OFRAME);
		munmap(got, cb.length);
	}
	gembuf_info_print(display, h, attach_first ?
			  "display -> vivid output, attached first" :
			  "display -> vivid output, attached after");
	vivid_unloop(out);
	close(fd);
	gem_close(display, h);
	igt_assert(same);
}

igt_main
{
	igt_fixture {
		engine = gembuf_open_engine();
		display = gembuf_open_display();
		vivid = vivid_open_instance(1, V4L2_CAP_VIDEO_CAPTURE, NULL, 0);
	}

	igt_describe("The problem: vivid's dma-contig instance refuses buffers of the dma-heaps system heap, scattered or above 4 GiB.");
	igt_subtest("heap-fails-vivid") {
		int fds[4], n, failed = 0;

		igt_require_f(vivid >= 0, "no vivid instance with allocators=1\n");
		vivid_format();
		for (n = 0; n < 4 && !failed; n++) {
			fds[n] = gembuf_heap_alloc("system", FRAME);
			vivid_reqbufs(1);
			failed = vivid_queue(fds[n]);
			igt_info("system heap buffer %d: QBUF %d\n", n, failed);
			vivid_reqbufs(0);
		}
		igt_assert_f(failed, "vivid took %d system heap buffers\n", n);
		while (n--)
			close(fds[n]);
	}

	igt_describe("vivid (no IOMMU, 32-bit) writes an object and the engine reads it: the object gets memory when vivid maps it, one range below 4 GiB for vivid's constraints.");
	igt_subtest("vivid-engine") {
		igt_require_f(vivid >= 0, "no vivid instance with allocators=1\n");
		vivid_pipeline();
	}

	igt_describe("A vgem buffer queued to vivid (no IOMMU, 32-bit): vgem's memory is placed at vivid's first mapping, one physical range below 4 GiB, so vb2-dma-contig takes it and nothing bounces; vivid captures into it, and the engine's DMA copies what the dma-buf's mmap shows, a picture.  vivid refuses vgem's shmem pages.");
	igt_subtest("vgem-vivid") {
		int vgem = __drm_open_driver(DRIVER_VGEM);

		igt_require(vgem >= 0);
		igt_require_f(gembuf_vgem_on_vcm(), "vgem is not on the GEM VCM helper\n");
		igt_require_f(vivid >= 0, "no vivid instance with allocators=1\n");
		vgem_vivid_pipeline(vgem);
		drm_close_driver(vgem);
	}

	igt_describe("A vkms dumb buffer queued to vivid (no IOMMU, 32-bit) and imported by the engine: vivid captures into it, the engine fills its top lines, and a vkms overlay plane scans it out; vkms's writeback shows the frame and the band, pixel for pixel, from the one buffer, placed at vivid's mapping as one physical range below 4 GiB with no bounce.  vivid refuses vkms's shmem pages.");
	igt_subtest("vkms-vivid-engine") {
		int vk = __drm_open_driver(DRIVER_VKMS);

		igt_require(vk >= 0);
		igt_require_f(vivid >= 0, "no vivid instance with allocators=1\n");
		vkms_vivid_pipeline(vk);
		drm_close_driver(vk);
	}

	igt_describe("Engine to display: every user translates or uses the CPU, so the memory is chunked with 2 MiB blocks, anywhere, chosen at the engine's first DMA.");
	igt_subtest("engine-display")
		iommu_pipeline();

	igt_describe("The engine with edu's default 28-bit mask writes and the 40-bit engine reads: chunked memory anywhere, IOVAs below 256 MiB for the first.");
	igt_subtest("engine28-engine40")
		engines_pipeline();

	igt_describe("The display writes a frame back into an object vivid's dma-contig output (no IOMMU, 32-bit) attached to first: one range below 4 GiB from the start, never moved; vivid's looped capture shows the frame.");
	igt_subtest("display-vivid-out-attached-first") {
		igt_require_f(vivid >= 0, "no vivid instance with allocators=1\n");
		display_to_vivid(true);
	}

	igt_describe("The same, vivid's output attaching after: written back first into any pages, then moved to one range when vivid's output attaches.");
	igt_subtest("display-vivid-out-attached-after") {
		igt_require_f(vivid >= 0, "no vivid instance with allocators=1\n");
		display_to_vivid(false);
	}

	igt_describe("vivid attaching to an object written by the CPU and unmapped: the memory moves to one range below 4 GiB, contents kept, and vivid captures into it.");
	igt_subtest("late-attach-moves") {
		struct gembuf_report gi = {};
		uint32_t h, *p;
		int fd;

		h = cpu_frame_for_vivid();
		gi.handle = h;
		info(engine, h, &gi, NULL, 0);
		gembuf_placement_print("cpu", &gi);
		igt_assert(gi.flags & GEMBUF_INFO_ALLOCATED);
		igt_assert_lt(1, gi.num_chunks);

		fd = prime_handle_to_fd_for_mmap(engine, h);
		vivid_reqbufs(1);
		igt_assert_eq(vivid_queue(fd), 0);
		gi = (struct gembuf_report){ .handle = h };
		info(engine, h, &gi, NULL, 0);
		gembuf_placement_print("moved", &gi);
		igt_assert_eq_u32(gi.placement.moves, 1);
		gembuf_assert_low_range(&gi);
		/* Queued, not yet captured: the CPU's data moved with it. */
		p = mmap(NULL, FRAME, PROT_READ, MAP_SHARED, fd, 0);
		igt_assert(p != MAP_FAILED);
		for (unsigned int i = 0; i < FRAME / 4; i++)
			igt_assert_eq_u32(p[i], i * 2654435761u);
		munmap(p, FRAME);
		vivid_capture();
		engine_reads_frame(h, fd);
		gembuf_info_print(engine, h, "cpu, then vivid attaches: moved");
		vivid_reqbufs(0);
		close(fd);
		gem_close(engine, h);
	}

	igt_describe("vivid mapping an object the engine maps already is refused (the exporter's -EBUSY, which vb2-dma-contig reports as -EINVAL), debugfs names it and what the memory lacked, and the engine keeps using the object.");
	igt_subtest("late-attach-busy") {
		struct gembuf_report gi = {};
		long objects = gembuf_state("objects");
		uint32_t h;
		int fd;

		igt_require_f(vivid >= 0, "no vivid instance with allocators=1\n");
		igt_require_f(objects >= 0, "no gembuf debugfs\n");
		vivid_format();
		h = gembuf_create(engine, FRAME, 0, GEMBUF_CACHE_WB);
		igt_assert_eq(__gembuf_fill(engine, h, 0, 4096, 0x1), 0);
		gembuf_wait(engine, h);
		gi.handle = h;
		info(engine, h, &gi, NULL, 0);
		igt_assert_lt(1, gi.num_chunks);

		fd = vivid_refused(h, &gi);
		gembuf_placement_print("refused", &gi);
		igt_assert(strstr(gi.placement.refused_device, "vivid"));
		igt_assert(gi.placement.refused_unmet & GEMBUF_NEED_CONTIGUOUS);
		igt_assert_eq_u32(gi.placement.moves, 0);
		igt_assert(!(gi.placement.need & GEMBUF_NEED_CONTIGUOUS));
		igt_assert(debugfs_has(" -16 vivid", "contiguous"));
		gembuf_info_print(engine, h, "engine maps, then vivid attaches: refused");

		/* Still the engine's. */
		igt_assert_eq(__gembuf_fill(engine, h, 0, 8192, 0x5eed), 0);
		gembuf_wait(engine, h);
		gembuf_check_words(engine, h, 8192, 0x5eed);
		close(fd);
		gem_close(engine, h);
		/* vivid let go of the dma-buf it could not attach. */
		igt_assert_eq(gembuf_state_settle("objects", objects), objects);
	}

	igt_describe("A process's mapping holds the memory where it is, touched or not: vivid mapping the object is refused, nothing moves, and the mapping still reads what was written.");
	igt_subtest("late-attach-busy-cpu") {
		for (int touched = 0; touched < 2; touched++) {
			struct gembuf_report gi = {};
			uint32_t h, *p;
			int fd;

			h = cpu_frame_for_vivid();
			p = gembuf_mmap(engine, h, FRAME);
			if (touched)
				igt_assert_eq_u32(p[1], 2654435761u);
			gi.handle = h;
			info(engine, h, &gi, NULL, 0);
			igt_assert_lt(1, gi.num_chunks);
			fd = vivid_refused(h, &gi);
			igt_assert_eq_u32(gi.placement.moves, 0);
			for (unsigned int i = 0; i < FRAME / 4; i += 97)
				igt_assert_eq_u32(p[i], i * 2654435761u);
			munmap(p, FRAME);
			close(fd);
			gem_close(engine, h);
		}
	}

	igt_describe("Every device counts once among an object's users, known by the struct device it attaches with: the display and vgem attach without mapping (they use the CPU) and add no needs; vgem, imported by two of its files (two attachments), counts once.");
	igt_subtest("attach-devices-counted-once") {
		int v1 = __drm_open_driver(DRIVER_VGEM), v2;
		struct gembuf_report gi = {};
		uint32_t h, hd, h1, h2;
		char names[4][64];
		unsigned int before;
		int fd;

		igt_require(v1 >= 0);
		igt_require_f(gembuf_vgem_on_vcm(), "vgem is not on the GEM VCM helper\n");
		v2 = __drm_open_driver(DRIVER_VGEM);
		igt_assert_fd(v2);
		h = gembuf_create(engine, 65536, 0, GEMBUF_CACHE_WB);
		gi.handle = h;
		info(engine, h, &gi, NULL, 0);
		before = gi.placement.devices;
		igt_assert_eq_u32(gi.placement.need, GEMBUF_NEED_GRANULE);

		fd = prime_handle_to_fd(engine, h);
		hd = prime_fd_to_handle(display, fd);
		gi = (struct gembuf_report){ .handle = h };
		info(engine, h, &gi, NULL, 0);
		igt_assert_eq_u32(gi.placement.devices, before + 1);
		igt_assert_eq_u32(gi.placement.need, GEMBUF_NEED_GRANULE);

		h1 = prime_fd_to_handle(v1, fd);
		h2 = prime_fd_to_handle(v2, fd);
		igt_assert_eq(gembuf_dmabuf_attachments(fd, names, 4), 3);
		gi = (struct gembuf_report){ .handle = h };
		info(engine, h, &gi, NULL, 0);
		gembuf_placement_print("engine, display, vgem twice", &gi);
		igt_assert_eq_u32(gi.placement.devices, before + 2);
		igt_assert_eq_u32(gi.placement.need, GEMBUF_NEED_GRANULE);

		gem_close(v2, h2);
		gem_close(v1, h1);
		gem_close(display, hd);
		close(fd);
		gem_close(engine, h);
		drm_close_driver(v2);
		drm_close_driver(v1);
	}

	igt_describe("A device that imports an object twice (two files of it) counts once among its users, and its own mapping adds nothing.");
	igt_subtest("same-device-once") {
		struct gembuf_report gi;
		int other = gembuf_open_engine(), fd;
		uint32_t h, h2;

		h = gembuf_create(engine, 4096, 0, GEMBUF_CACHE_WB);
		fd = prime_handle_to_fd(engine, h);
		h2 = prime_fd_to_handle(other, fd);
		close(fd);
		igt_assert_eq(__gembuf_fill(other, h2, 0, 4096, 7), 0);
		gembuf_wait(other, h2);
		igt_assert_eq(__gembuf_fill(engine, h, 0, 4096, 8), 0);
		gembuf_wait(engine, h);
		gi = (struct gembuf_report){ .handle = h };
		info(engine, h, &gi, NULL, 0);
		igt_assert(gi.flags & GEMBUF_INFO_ALLOCATED);
		igt_assert_eq_u32(gi.placement.devices, 1);
		igt_assert_eq_u32(gi.placement.need, GEMBUF_NEED_GRANULE);
		gem_close(other, h2);
		drm_close_driver(other);
		gem_close(engine, h);
	}

	igt_fixture {
		if (vivid >= 0)
			close(vivid);
		drm_close_driver(display);
		drm_close_driver(engine);
	}
}
