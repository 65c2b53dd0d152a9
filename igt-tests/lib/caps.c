// SPDX-License-Identifier: MIT
/* See caps.h. */
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "caps.h"
#include "igt_core.h"

void set_sys_admin(bool on)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	igt_assert_eq(syscall(SYS_capget, &hdr, data), 0);
	if (on)
		data[0].effective |= 1u << CAP_SYS_ADMIN;
	else
		data[0].effective &= ~(1u << CAP_SYS_ADMIN);
	igt_assert_eq(syscall(SYS_capset, &hdr, data), 0);
}

int open_unauthenticated(int (*open_fn)(void))
{
	int fd;

	set_sys_admin(false);
	fd = open_fn();
	set_sys_admin(true);
	igt_assert_fd(fd);
	return fd;
}
