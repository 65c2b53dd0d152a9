// SPDX-License-Identifier: MIT
/* Device opening and ioctl wrappers of igt's drmtest/ioctl_wrappers. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "drmtest.h"

static const struct {
	int flag;
	const char *name;
} drivers[] = {
	{ DRIVER_VGEM, "vgem" },
	{ DRIVER_VKMS, "vkms" },
	{ DRIVER_GEMBUF, "gembuf" },
	{ DRIVER_GEMBUF, "gembuf_dma" },
};

/* IGT_FORCE_DRIVER names a module: gembuf covers gembuf and gembuf_dma. */
static bool forced_match(const char *forced, const char *name)
{
	size_t n = strlen(forced);

	return !strcmp(forced, name) || (!strncmp(forced, name, n) && name[n] == '_');
}

static bool driver_is(int fd, const char *name)
{
	drmVersionPtr v = drmGetVersion(fd);
	bool ret;

	if (!v)
		return false;
	ret = !strcmp(v->name, name);
	drmFreeVersion(v);
	return ret;
}

bool is_vgem_device(int fd) { return driver_is(fd, "vgem"); }
bool is_vkms_device(int fd) { return driver_is(fd, "vkms"); }
bool is_gembuf_device(int fd) { return driver_is(fd, "gembuf"); }

static bool chipset_matches(int fd, int chipset)
{
	const char *forced = getenv("IGT_FORCE_DRIVER");
	drmVersionPtr v = drmGetVersion(fd);
	bool ok = false;
	size_t i;

	if (!v)
		return false;
	/*
	 * IGT_FORCE_DRIVER picks the device of tests that take any driver;
	 * a test asking for a given driver (vgem as a PRIME peer) gets it.
	 */
	if (forced && chipset == DRIVER_ANY && !forced_match(forced, v->name))
		goto out;
	if (chipset == DRIVER_ANY) {
		ok = true;
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(drivers); i++)
		if ((chipset & drivers[i].flag) && !strcmp(v->name, drivers[i].name))
			ok = true;
out:
	drmFreeVersion(v);
	return ok;
}

/* Open the @idx-th (from 0) node of @fmt's kind whose driver matches. */
static int open_nth(const char *fmt, int base, int idx, int chipset)
{
	char path[64];
	int i, fd;

	for (i = 0; i < 16; i++) {
		snprintf(path, sizeof(path), fmt, base + i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (chipset_matches(fd, chipset) && idx-- == 0)
			return fd;
		close(fd);
	}
	return -1;
}

int __drm_open_driver_another(int idx, int chipset)
{
	return open_nth("/dev/dri/card%d", 0, idx, chipset);
}

int __drm_open_driver(int chipset)
{
	return __drm_open_driver_another(0, chipset);
}

int __drm_open_driver_render(int chipset)
{
	return open_nth("/dev/dri/renderD%d", 128, 0, chipset);
}

int drm_open_driver(int chipset)
{
	int fd = __drm_open_driver(chipset);

	igt_skip_on_f(fd < 0, "No known gpu found for chipset flags 0x%x\n", chipset);
	return fd;
}

int drm_open_driver_master(int chipset)
{
	int fd = drm_open_driver(chipset);

	igt_require_f(drmSetMaster(fd) == 0, "Can't become DRM master\n");
	return fd;
}

int drm_open_driver_render(int chipset)
{
	int fd = __drm_open_driver_render(chipset);

	igt_skip_on_f(fd < 0, "No render node for chipset flags 0x%x\n", chipset);
	return fd;
}

int drm_close_driver(int fd)
{
	return close(fd);
}

int igt_ioctl(int fd, unsigned long request, void *arg)
{
	return drmIoctl(fd, request, arg);
}

int __gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close close_bo = { .handle = handle };

	if (igt_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &close_bo))
		return -errno;
	return 0;
}

void gem_close(int fd, uint32_t handle)
{
	igt_assert_eq(__gem_close(fd, handle), 0);
}

int __gem_flink(int fd, uint32_t handle, uint32_t *name)
{
	struct drm_gem_flink flink = { .handle = handle };

	if (igt_ioctl(fd, DRM_IOCTL_GEM_FLINK, &flink))
		return -errno;
	*name = flink.name;
	return 0;
}

uint32_t gem_flink(int fd, uint32_t handle)
{
	uint32_t name = 0;

	igt_assert_eq(__gem_flink(fd, handle, &name), 0);
	return name;
}

uint32_t gem_open(int fd, uint32_t name)
{
	struct drm_gem_open open_struct = { .name = name };

	do_ioctl(fd, DRM_IOCTL_GEM_OPEN, &open_struct);
	igt_assert(open_struct.handle != 0);
	return open_struct.handle;
}

int prime_handle_to_fd(int fd, uint32_t handle)
{
	struct drm_prime_handle args = { .handle = handle, .flags = DRM_CLOEXEC };

	do_ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &args);
	return args.fd;
}

/* As upstream: a read-write dma-buf fd, for mmap(); -1 if refused. */
int prime_handle_to_fd_for_mmap(int fd, uint32_t handle)
{
	struct drm_prime_handle args = {
		.handle = handle, .flags = DRM_CLOEXEC | DRM_RDWR,
	};

	if (igt_ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &args))
		return -1;
	return args.fd;
}

uint32_t prime_fd_to_handle(int fd, int dma_buf_fd)
{
	struct drm_prime_handle args = { .fd = dma_buf_fd };

	do_ioctl(fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &args);
	return args.handle;
}

uint32_t kmstest_dumb_create(int fd, int width, int height, int bpp,
			     unsigned int *stride, uint64_t *size)
{
	struct drm_mode_create_dumb create = {
		.width = width, .height = height, .bpp = bpp,
	};

	do_ioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &create);
	igt_assert(create.handle);
	igt_assert(create.size >= (uint64_t)width * height * bpp / 8);
	if (stride)
		*stride = create.pitch;
	if (size)
		*size = create.size;
	return create.handle;
}

int kmstest_dumb_destroy(int fd, uint32_t handle)
{
	struct drm_mode_destroy_dumb arg = { .handle = handle };

	if (igt_ioctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &arg))
		return -errno;
	return 0;
}

void *kmstest_dumb_map_buffer(int fd, uint32_t handle, uint64_t size,
			      unsigned int prot)
{
	struct drm_mode_map_dumb arg = { .handle = handle };
	void *ptr;

	do_ioctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &arg);
	ptr = mmap(NULL, size, prot, MAP_SHARED, fd, arg.offset);
	igt_assert(ptr != MAP_FAILED);
	return ptr;
}
