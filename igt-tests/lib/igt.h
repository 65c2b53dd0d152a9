/* SPDX-License-Identifier: MIT */
/* Umbrella header, as igt's lib/igt.h. */
#ifndef IGT_H
#define IGT_H

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/mman.h>

#include "igt_core.h"
#include "drmtest.h"

#endif /* IGT_H */
