// SPDX-License-Identifier: MIT
/*
 * gembuf_module: an exported dma-buf holds the gembuf module, so it
 * cannot be unloaded under a buffer someone still uses.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "igt.h"
#include "gembuf.h"

IGT_TEST_DESCRIPTION("The gembuf module stays while its dma-bufs live.");

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
}
