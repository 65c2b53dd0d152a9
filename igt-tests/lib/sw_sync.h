/* SPDX-License-Identifier: MIT */
/*
 * The subset of igt's sw_sync API (lib/sw_sync.h) the tests use: fences
 * on a software timeline from the kernel's sw_sync debugfs file.
 */
#ifndef SW_SYNC_H
#define SW_SYNC_H

#include <stdbool.h>

bool kernel_has_sw_sync(void);
int sw_sync_timeline_create(void);
int sw_sync_timeline_create_fence(int timeline, unsigned int seqno);
void sw_sync_timeline_inc(int timeline, unsigned int count);

#endif /* SW_SYNC_H */
