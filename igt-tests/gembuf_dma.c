// SPDX-License-Identifier: MIT
/*
 * gembuf_dma: the DMA engine (QEMU's edu behind the SMMU) fills and
 * copies objects through its IOMMU mapping; the CPU checks the result
 * through the display device's mapping of the same memory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "igt.h"
#include "gembuf.h"

IGT_TEST_DESCRIPTION("Fill and copy gembuf objects by device DMA.");

static int engine = -1;

static void check_words(const uint32_t *p, uint64_t from, uint64_t to,
			uint32_t value)
{
	for (uint64_t i = from / 4; i < to / 4; i++)
		igt_assert_f(p[i] == value, "byte %llu: %08x, want %08x\n",
			     (unsigned long long)i * 4, p[i], value);
}

/* A debugfs file of VCM's, whole, NUL-terminated, in a malloc()ed buffer. */
static char *vcm_debugfs(const char *name)
{
	size_t len = 0, cap = 1 << 16;
	char path[64], *buf = malloc(cap);
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/vcm/%s", name);
	f = fopen(path, "r");
	igt_require_f(f, "no %s\n", path);
	igt_assert(buf);
	while (!feof(f)) {
		if (cap - len < 4096) {
			cap *= 2;
			buf = realloc(buf, cap);
			igt_assert(buf);
		}
		len += fread(buf + len, 1, cap - len - 1, f);
		igt_assert(!ferror(f));
	}
	fclose(f);
	buf[len] = 0;
	return buf;
}

/*
 * The physmem of vcm/physmem that is @len bytes of system memory: its id,
 * or -1; its chunks' total in *@chunk_bytes and the reservations it backs
 * in *@backs.
 */
static int vcm_physmem_of_len(uint64_t len, uint64_t *chunk_bytes, int *backs)
{
	char *buf = vcm_debugfs("physmem"), *line, *save = NULL, want[64];
	int id = -1;

	*chunk_bytes = 0;
	*backs = 0;
	snprintf(want, sizeof(want), " system len %#llx ", (unsigned long long)len);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "physmem ", 8)) {
			if (id >= 0)
				break;
			if (strstr(line, want))
				id = atoi(line + 8);
		} else if (id >= 0 && !strncmp(line, "  chunks", 8)) {
			unsigned long kib, n;
			char *c = line + 8;
			int used;

			while (sscanf(c, " %luK:%lu%n", &kib, &n, &used) == 2) {
				*chunk_bytes += (uint64_t)kib * 1024 * n;
				c += used;
			}
		} else if (id >= 0 && !strncmp(line, "  backs vcm ", 12)) {
			(*backs)++;
		}
	}
	free(buf);
	return id;
}

/*
 * How many reservations of vcm/vcms are backed by physmem @id, in VCMs of
 * type @type that have an active device (@type "kernel": any).
 */
static int vcm_res_backed_by(int id, const char *type)
{
	char *buf = vcm_debugfs("vcms"), *line, *save = NULL, want[32], hdr[32];
	bool in_type = false, active = false;
	int n = 0;

	snprintf(want, sizeof(want), " physmem %d", id);
	snprintf(hdr, sizeof(hdr), " %s ", type);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "vcm ", 4)) {
			in_type = strstr(line, hdr) != NULL;
			active = strcmp(type, "dma") != 0;
		} else if (in_type && !strncmp(line, "  dev ", 6) && strstr(line, " active ")) {
			active = true;
		} else if (in_type && active && !strncmp(line, "  res ", 6)) {
			const char *p = strstr(line, want);

			if (p && (p[strlen(want)] == 0 || p[strlen(want)] == ' '))
				n++;
		}
	}
	free(buf);
	return n;
}

igt_main
{
	igt_fixture
		engine = gembuf_open_engine();

	igt_describe("A fill lands exactly on its range, across a 2 MiB / 4 KiB chunk boundary.");
	igt_subtest("fill-chunk-boundary") {
		uint64_t size = (2 << 20) + (64 << 10);
		uint32_t h = gembuf_create(engine, size, 0, GEMBUF_CACHE_WB);
		struct gembuf_report_mapping m;
		uint32_t *p = gembuf_mmap(engine, h, size);

		memset(p, 0x11, size);
		igt_assert_eq(__gembuf_fill(engine, h, (2 << 20) - 6144, 12288,
					    0xcafef00d), 0);
		gembuf_wait(engine, h);
		check_words(p, (2 << 20) - 6144, (2 << 20) + 6144, 0xcafef00d);
		check_words(p, (2 << 20) - 8192, (2 << 20) - 6144, 0x11111111);
		check_words(p, (2 << 20) + 6144, (2 << 20) + 8192, 0x11111111);

		/* The engine's mapping: one IOMMU reservation, 2M block + pages. */
		igt_assert_eq(gembuf_find_mapping(engine, h, GEMBUF_MAPPING_IOMMU, &m), 1);
		igt_assert_eq_u64(m.size, size);
		igt_assert_eq_u32(m.ptes, 1 + 16);
		munmap(p, size);
		gem_close(engine, h);
	}

	igt_describe("A copy between objects by DMA, read back through the other device's mapping.");
	igt_subtest("copy-to-display") {
		int display = gembuf_open_display();
		uint32_t src = gembuf_create(engine, 65536, 0, GEMBUF_CACHE_WB);
		uint32_t dst = gembuf_create(display, 65536, 0, GEMBUF_CACHE_WB);
		uint32_t *s = gembuf_mmap(engine, src, 65536), *d;
		uint32_t dst_on_engine;
		int dmabuf;

		for (int i = 0; i < 16384; i++)
			s[i] = 0xa5000000 | i;
		dmabuf = prime_handle_to_fd(display, dst);
		dst_on_engine = prime_fd_to_handle(engine, dmabuf);
		close(dmabuf);

		igt_assert_eq(__gembuf_copy(engine, dst_on_engine, 4096, src, 8192,
					    5000 * 4), 0);
		gembuf_wait(engine, dst_on_engine);
		d = gembuf_mmap(display, dst, 65536);
		for (int i = 0; i < 5000; i++)
			igt_assert_eq_u32(d[1024 + i], 0xa5000000 | (2048 + i));
		igt_assert_eq_u32(d[1023], 0);
		igt_assert_eq_u32(d[1024 + 5000], 0);

		munmap(d, 65536);
		munmap(s, 65536);
		gem_close(engine, dst_on_engine);
		gem_close(engine, src);
		gem_close(display, dst);
		drm_close_driver(display);
	}

	igt_describe("Each driver has the ioctls it serves: the render-only engine has no dumb buffers, not even on its primary node; the display has them.");
	igt_subtest("engine-has-no-dumb-buffers") {
		struct drm_mode_create_dumb c = { .width = 64, .height = 64, .bpp = 32 };
		int card = gembuf_open_engine_card();
		int display = gembuf_open_display();
		uint64_t dumb = 0;

		do_ioctl_err(card, DRM_IOCTL_MODE_CREATE_DUMB, &c, ENOSYS);
		igt_assert_eq_u32(c.handle, 0);
		igt_assert_eq(drmGetCap(display, DRM_CAP_DUMB_BUFFER, &dumb), 0);
		igt_assert_eq_u64(dumb, 1);
		drm_close_driver(card);
		drm_close_driver(display);
	}

	igt_describe("Bad ranges, handles and flags are refused before any DMA; only the engine does DMA.");
	igt_subtest("bad-ranges") {
		uint32_t h = gembuf_create(engine, 8192, 0, GEMBUF_CACHE_WB);
		struct drm_gembuf_dma_fill f = { .handle = h, .size = 4, .flags = 1 };
		int display = gembuf_open_display();
		uint32_t dh = gembuf_create(display, 4096, 0, GEMBUF_CACHE_WB);

		igt_assert_eq(__gembuf_fill(engine, h, 0, 0, 0), -EINVAL);
		igt_assert_eq(__gembuf_fill(engine, h, 2, 4, 0), -EINVAL);
		igt_assert_eq(__gembuf_fill(engine, h, 0, 6, 0), -EINVAL);
		igt_assert_eq(__gembuf_fill(engine, h, 8192, 4, 0), -EINVAL);
		igt_assert_eq(__gembuf_fill(engine, h, 4096, 8192, 0), -EINVAL);
		igt_assert_eq(__gembuf_fill(engine, h, ~0ull & ~3ull, 8, 0), -EINVAL);
		igt_assert_eq(__gembuf_fill(engine, 0xbad, 0, 4, 0), -ENOENT);
		do_ioctl_err(engine, DRM_IOCTL_GEMBUF_DMA_FILL, &f, EINVAL);
		igt_assert_eq(__gembuf_copy(engine, h, 0, h, 2048, 4096), -EINVAL);
		igt_assert_eq(__gembuf_copy(engine, h, 0, 0xbad, 0, 4), -ENOENT);
		igt_assert_eq(__gembuf_copy(engine, h, 0, h, 4096, 8192), -EINVAL);
		/* The display has no DMA ioctls: DRM core's answer to a number it lacks. */
		igt_assert_eq(__gembuf_fill(display, dh, 0, 4, 0), -EINVAL);
		igt_assert_eq(__gembuf_copy(display, dh, 0, dh, 2048, 4), -EINVAL);
		/* Longer than a job may take: in range, but refused. */
		{
			uint32_t big = gembuf_create(engine, 2 * GEMBUF_DMA_MAX_SIZE, 0,
						     GEMBUF_CACHE_WB);

			igt_assert_eq(__gembuf_fill(engine, big, 0, GEMBUF_DMA_MAX_SIZE + 4, 0),
				      -EINVAL);
			igt_assert_eq(__gembuf_copy(engine, big, GEMBUF_DMA_MAX_SIZE, big, 0,
						    GEMBUF_DMA_MAX_SIZE + 4), -EINVAL);
			gem_close(engine, big);
		}
		igt_assert_eq(__gembuf_wait(engine, h, 1 << 4, 0), -EINVAL);
		igt_assert_eq(__gembuf_wait(engine, 0xbad, 0, 0), -ENOENT);
		/* Nothing ran: the object is idle at once. */
		igt_assert_eq(__gembuf_wait(engine, h, 0, 0), 0);
		gem_close(display, dh);
		drm_close_driver(display);
		gem_close(engine, h);
	}

	igt_describe("Jobs run in order: a fill then a copy of what it filled.");
	igt_subtest("ordered") {
		uint32_t a = gembuf_create(engine, 16384, 0, GEMBUF_CACHE_WB);
		uint32_t b = gembuf_create(engine, 16384, 0, GEMBUF_CACHE_WB);
		uint32_t *p;

		igt_assert_eq(__gembuf_fill(engine, a, 0, 16384, 0x600dcafe), 0);
		igt_assert_eq(__gembuf_copy(engine, b, 0, a, 0, 16384), 0);
		gembuf_wait(engine, b);
		p = gembuf_mmap(engine, b, 16384);
		check_words(p, 0, 16384, 0x600dcafe);
		munmap(p, 16384);
		gem_close(engine, a);
		gem_close(engine, b);
	}

	igt_describe("Two ranges of one object that only touch do not overlap, whichever comes first: a copy from the range just after the destination, and one from the range just before it, move the bytes.");
	igt_subtest("copy-within-object") {
		uint32_t a = gembuf_create(engine, 16384, 0, GEMBUF_CACHE_WB);
		uint32_t *p;

		igt_assert_eq(__gembuf_fill(engine, a, 0, 16384, 0x11111111), 0);
		igt_assert_eq(__gembuf_fill(engine, a, 8192, 4096, 0x22222222), 0);
		igt_assert_eq(__gembuf_copy(engine, a, 4096, a, 8192, 4096), 0);
		igt_assert_eq(__gembuf_copy(engine, a, 12288, a, 8192, 4096), 0);
		gembuf_wait(engine, a);
		p = gembuf_mmap(engine, a, 16384);
		check_words(p, 0, 4096, 0x11111111);
		check_words(p, 4096, 16384, 0x22222222);
		munmap(p, 16384);
		gem_close(engine, a);
	}

	igt_describe("VCM's debugfs shows an object's memory as one physmem whose chunks add up to its size, backing one reservation, in the engine's DMA VCM (whose device is active): the process's CPU mapping, touched, is the mm's and reserves nothing in VCM; the reservation goes with the object.");
	igt_subtest("vcm-debugfs") {
		const uint64_t size = 63 * 4096;	/* a size no other object has */
		uint32_t h = gembuf_create(engine, size, 0, GEMBUF_CACHE_WB);
		uint32_t *p = gembuf_mmap(engine, h, size);
		uint64_t chunks;
		int id, backs, i;

		p[0] = 1;
		igt_assert_eq(__gembuf_fill(engine, h, 0, 4096, 0x5eed), 0);
		gembuf_wait(engine, h);
		id = vcm_physmem_of_len(size, &chunks, &backs);
		igt_assert_f(id >= 0, "no physmem of %llu bytes in vcm/physmem\n",
			     (unsigned long long)size);
		igt_assert_eq_u64(chunks, size);
		igt_assert_eq(backs, 1);
		igt_assert_eq(vcm_res_backed_by(id, "dma"), 1);

		munmap(p, size);
		gem_close(engine, h);
		/* Freed once the job that filled it is: give it a moment. */
		for (i = 0; i < 50 && vcm_physmem_of_len(size, &chunks, &backs) >= 0; i++)
			usleep(100 * 1000);
		igt_assert_f(i < 50, "physmem %d outlived its object\n", id);
		igt_assert_eq(vcm_res_backed_by(id, "dma"), 0);
	}

	igt_fixture
		drm_close_driver(engine);
}
