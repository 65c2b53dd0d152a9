/* SPDX-License-Identifier: MIT */
/*
 * Subset of igt's lib/drmtest.h and lib/ioctl_wrappers.h: opening DRM
 * devices by driver, and checked ioctl wrappers.  Same names and
 * semantics as igt; DRIVER_GEMBUF is the flag upstream would gain with
 * the driver.  IGT_FORCE_DRIVER=<name> restricts DRIVER_ANY to one
 * driver, as in igt.
 */
#ifndef DRMTEST_H
#define DRMTEST_H

#include <stdint.h>
#include <sys/ioctl.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "igt_core.h"

#define DRIVER_VGEM	(1 << 1)
#define DRIVER_VKMS	(1 << 2)
#define DRIVER_GEMBUF	(1 << 3)
#define DRIVER_ANY	(~0)

int __drm_open_driver(int chipset);
int __drm_open_driver_render(int chipset);
int drm_open_driver(int chipset);
int drm_open_driver_master(int chipset);
int drm_open_driver_render(int chipset);
int __drm_open_driver_another(int idx, int chipset);
int drm_close_driver(int fd);
bool is_vgem_device(int fd);
bool is_vkms_device(int fd);
bool is_gembuf_device(int fd);

int igt_ioctl(int fd, unsigned long request, void *arg);

/* do_ioctl: the ioctl must succeed */
#define do_ioctl(fd, ioc, ioc_data) \
	do { \
		igt_assert_eq(igt_ioctl((fd), (ioc), (ioc_data)), 0); \
		errno = 0; \
	} while (0)

/* do_ioctl_err: the ioctl must fail with errno @err */
#define do_ioctl_err(fd, ioc, ioc_data, err) \
	do { \
		igt_assert_eq(igt_ioctl((fd), (ioc), (ioc_data)), -1); \
		igt_assert_eq(errno, err); \
		errno = 0; \
	} while (0)

void gem_close(int fd, uint32_t handle);
int __gem_close(int fd, uint32_t handle);
uint32_t gem_flink(int fd, uint32_t handle);
int __gem_flink(int fd, uint32_t handle, uint32_t *name);
uint32_t gem_open(int fd, uint32_t name);
int prime_handle_to_fd(int fd, uint32_t handle);
int prime_handle_to_fd_for_mmap(int fd, uint32_t handle);
uint32_t prime_fd_to_handle(int fd, int dma_buf_fd);

uint32_t kmstest_dumb_create(int fd, int width, int height, int bpp,
			     unsigned int *stride, uint64_t *size);
int kmstest_dumb_destroy(int fd, uint32_t handle);
void *kmstest_dumb_map_buffer(int fd, uint32_t handle, uint64_t size,
			      unsigned int prot);

#endif /* DRMTEST_H */
