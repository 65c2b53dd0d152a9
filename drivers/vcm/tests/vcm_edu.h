/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the vcm_edu suite (vcm_edu_test.c) and benchmark (vcm_edu_bench.c)
 * share: edu, borrowed from gembuf's DMA engine.
 */
#ifndef _VCM_EDU_H
#define _VCM_EDU_H

#include <linux/mutex.h>
#include <linux/sizes.h>

#include "gembuf_edu.h"

/* The test VCMs: inside the 40-bit mask the guest gives edu. */
#define EDU_VCM_START		SZ_1G
#define EDU_VCM_LEN		SZ_1G

/**
 * struct vcm_edu - edu, borrowed from gembuf's DMA engine
 * @lease: the device and its registers, while lent
 * @lock: serialises DMA commands and the benchmark
 * @dir: debugfs folder
 * @bench: text of the last benchmark
 */
struct vcm_edu {
	struct gembuf_edu_lease lease;
	struct mutex lock;	/* see the kernel-doc above */
	struct dentry *dir;
	char bench[512];
};

extern struct vcm_edu *vcm_edu;

#endif /* _VCM_EDU_H */
