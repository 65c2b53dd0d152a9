// SPDX-License-Identifier: MIT
/* sw_sync timelines; see sw_sync.h. */
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "igt.h"
#include "sw_sync.h"

/* The kernel's uapi for it is private to drivers/dma-buf/sw_sync.c. */
struct sw_sync_create_fence_data {
	uint32_t value;
	char name[32];
	int32_t fence;
};

#define SW_SYNC_IOC_CREATE_FENCE _IOWR('W', 0, struct sw_sync_create_fence_data)
#define SW_SYNC_IOC_INC		 _IOW('W', 1, uint32_t)
#define SW_SYNC_PATH		 "/sys/kernel/debug/sync/sw_sync"

/** kernel_has_sw_sync() - whether sw_sync timelines can be made */
bool kernel_has_sw_sync(void)
{
	return access(SW_SYNC_PATH, R_OK | W_OK) == 0;
}

/** sw_sync_timeline_create() - a new timeline, as an fd */
int sw_sync_timeline_create(void)
{
	int fd = open(SW_SYNC_PATH, O_RDWR);

	igt_assert_f(fd >= 0, "no %s\n", SW_SYNC_PATH);
	return fd;
}

/**
 * sw_sync_timeline_create_fence() - a fence signalled at @seqno
 * @timeline: the timeline fd
 * @seqno: the timeline value that signals it
 */
int sw_sync_timeline_create_fence(int timeline, unsigned int seqno)
{
	struct sw_sync_create_fence_data data = { .value = seqno };

	strcpy(data.name, "igt");
	igt_assert_eq(ioctl(timeline, SW_SYNC_IOC_CREATE_FENCE, &data), 0);
	return data.fence;
}

/**
 * sw_sync_timeline_inc() - advance @timeline by @count, signalling fences
 * @timeline: the timeline fd
 * @count: steps
 */
void sw_sync_timeline_inc(int timeline, unsigned int count)
{
	uint32_t c = count;

	igt_assert_eq(ioctl(timeline, SW_SYNC_IOC_INC, &c), 0);
}
