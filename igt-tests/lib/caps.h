/* SPDX-License-Identifier: MIT */
/*
 * Opening DRM primary nodes as an unauthenticated client.  A client that
 * holds CAP_SYS_ADMIN when it opens a primary node is authenticated at
 * once, so tests that need an unauthenticated client lower the capability
 * in the effective set around the open (it stays permitted; run as root).
 * Not part of igt's API: igt's tests drop root in a child instead.
 */
#ifndef CAPS_H
#define CAPS_H

#include <stdbool.h>

void set_sys_admin(bool on);
int open_unauthenticated(int (*open_fn)(void));

#endif /* CAPS_H */
