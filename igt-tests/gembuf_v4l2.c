// SPDX-License-Identifier: MIT
/*
 * gembuf_v4l2: the article's camera path with V4L2's vivid test driver as
 * the camera.  A captured frame exported with VIDIOC_EXPBUF is imported
 * into gembuf and read by the engine's DMA with no copy; a gembuf object
 * queued as a V4L2_MEMORY_DMABUF buffer is written by vivid in place.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/videodev2.h>

#include "igt.h"
#include "gembuf.h"
#include "vivid.h"

IGT_TEST_DESCRIPTION("Share buffers between vivid (V4L2) and gembuf.");

#define W 320
#define H 240

/* YUYV near 320x240; vivid picks the size its input allows. */
static uint32_t set_format(int v, uint32_t *width, uint32_t *height)
{
	struct v4l2_format f = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };

	f.fmt.pix.width = W;
	f.fmt.pix.height = H;
	f.fmt.pix.pixelformat = V4L2_PIX_FMT_YUYV;
	f.fmt.pix.field = V4L2_FIELD_NONE;
	igt_assert_eq(ioctl(v, VIDIOC_S_FMT, &f), 0);
	igt_assert_eq_u32(f.fmt.pix.pixelformat, V4L2_PIX_FMT_YUYV);
	igt_assert(f.fmt.pix.width && f.fmt.pix.height);
	igt_assert_lte(f.fmt.pix.width * 2 * f.fmt.pix.height, f.fmt.pix.sizeimage);
	if (width)
		*width = f.fmt.pix.width;
	if (height)
		*height = f.fmt.pix.height;
	return f.fmt.pix.sizeimage;
}

static void stream(int v, bool on)
{
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;

	igt_assert_eq(ioctl(v, on ? VIDIOC_STREAMON : VIDIOC_STREAMOFF, &type), 0);
}

static void dqbuf(int v, struct v4l2_buffer *b)
{
	struct pollfd p = { .fd = v, .events = POLLIN };

	igt_assert_eq(poll(&p, 1, 30000), 1);
	igt_assert_eq(ioctl(v, VIDIOC_DQBUF, b), 0);
}

static void release_bufs(int v, uint32_t memory)
{
	struct v4l2_requestbuffers rb = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = memory, .count = 0,
	};

	ioctl(v, VIDIOC_REQBUFS, &rb);
}

igt_main
{
	int v = -1, engine = -1, display = -1;

	igt_fixture {
		v = vivid_open_capture(NULL, 0);
		igt_require_f(v >= 0, "no vivid capture device\n");
		engine = gembuf_open_engine();
		display = gembuf_open_display();
	}

	igt_describe("A vivid frame exported with VIDIOC_EXPBUF is imported by the engine and copied by DMA; the copy equals the frame.");
	igt_subtest("vivid-to-gembuf") {
		struct v4l2_requestbuffers rb = {
			.type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP,
			.count = 1,
		};
		struct v4l2_buffer b = {
			.type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP,
		};
		struct v4l2_exportbuffer e = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
		uint32_t width, height, size = set_format(v, &width, &height), h, dst;
		uint8_t *frame, *copy;
		size_t aligned = (size + 4095) & ~4095u;

		igt_assert_eq(ioctl(v, VIDIOC_REQBUFS, &rb), 0);
		igt_assert_eq(ioctl(v, VIDIOC_QUERYBUF, &b), 0);
		frame = mmap(NULL, b.length, PROT_READ, MAP_SHARED, v, b.m.offset);
		igt_assert(frame != MAP_FAILED);
		igt_assert_eq(ioctl(v, VIDIOC_QBUF, &b), 0);
		stream(v, true);
		dqbuf(v, &b);
		stream(v, false);

		igt_assert_eq(ioctl(v, VIDIOC_EXPBUF, &e), 0);
		h = prime_fd_to_handle(engine, e.fd);
		dst = gembuf_create(engine, aligned, 0, GEMBUF_CACHE_WB);
		igt_assert_eq(__gembuf_copy(engine, dst, 0, h, 0, size & ~3u), 0);
		gembuf_wait(engine, dst);
		copy = gembuf_mmap(engine, dst, aligned);
		igt_assert_eq(memcmp(copy, frame, size & ~3u), 0);
		/* Not an empty frame: vivid drew its test pattern. */
		igt_assert(frame[(height / 2) * width * 2] != 0);

		munmap(copy, aligned);
		gem_close(engine, dst);
		gem_close(engine, h);
		close(e.fd);
		munmap(frame, b.length);
		release_bufs(v, V4L2_MEMORY_MMAP);
	}

	igt_describe("A gembuf object queued as a V4L2_MEMORY_DMABUF buffer is written by vivid in place, seen through the object's mmap.");
	igt_subtest("gembuf-to-vivid") {
		struct v4l2_requestbuffers rb = {
			.type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_DMABUF,
			.count = 1,
		};
		struct v4l2_buffer b = {
			.type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_DMABUF,
		};
		uint32_t size = set_format(v, NULL, NULL), h;
		size_t aligned = (size + 4095) & ~4095u;
		uint8_t *p;
		int fd, changed = 0;

		h = gembuf_create(display, aligned, 0, GEMBUF_CACHE_WB);
		p = gembuf_mmap(display, h, aligned);
		memset(p, 0xaa, aligned);
		fd = prime_handle_to_fd(display, h);

		igt_assert_eq(ioctl(v, VIDIOC_REQBUFS, &rb), 0);
		b.m.fd = fd;
		b.length = aligned;
		igt_assert_eq(ioctl(v, VIDIOC_QBUF, &b), 0);
		stream(v, true);
		dqbuf(v, &b);
		stream(v, false);
		igt_assert_eq_u32(b.bytesused, size);
		for (uint32_t i = 0; i < size; i += 61)
			changed += p[i] != 0xaa;
		igt_assert_f(changed > (int)(size / 61 / 2),
			     "vivid wrote %d of %u sampled bytes\n", changed, size / 61);
		/* Nothing past the image was touched. */
		for (size_t i = size; i < aligned; i++)
			igt_assert_eq(p[i], 0xaa);

		release_bufs(v, V4L2_MEMORY_DMABUF);
		close(fd);
		munmap(p, aligned);
		gem_close(display, h);
	}

	igt_fixture {
		drm_close_driver(display);
		drm_close_driver(engine);
		close(v);
	}
}
