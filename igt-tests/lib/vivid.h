/* SPDX-License-Identifier: MIT */
/*
 * Finding V4L2's vivid test driver, the camera of the gembuf tests.  Not
 * part of igt's API: igt has no V4L2 helpers.
 */
#ifndef VIVID_H
#define VIVID_H

#include <stddef.h>

int vivid_open_capture(char *path, size_t len);
int vivid_open_instance(int inst, unsigned int caps, char *path, size_t len);

#endif /* VIVID_H */
