// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for VCM: lifetimes under concurrency, and the user kind through a real
 * mmap() of a test file.
 *
 * Each case checks on exit that every global gauge is back where it was
 * (vcm_test_util.h).
 */

#include <kunit/device.h>
#include <kunit/test.h>
#include <linux/anon_inodes.h>
#include <linux/completion.h>
#include <linux/dma-mapping.h>
#include <linux/file.h>
#include <linux/highmem.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/pfn.h>
#include <linux/sched.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>
#include <linux/vcm.h>

#include "../vcm_priv.h"
#include "vcm_test_util.h"

/* --- lifetimes under concurrency ----------------------------------- */

#define VCM_RACE_THREADS	4
#define VCM_RACE_LOOPS		200
#define VCM_RACE_RES		2

/* What the workers share: one VCM and one physmem, both the test's. */
struct vcm_race {
	struct vcm *vcm;
	struct vcm_physmem *pm;
	struct completion go;
};

/**
 * struct vcm_race_worker - a thread reserving and backing in the shared VCM
 * @race: what it shares
 * @settled: completed once the worker made its last backing
 * @done: completed when the worker made its last VCM call
 * @step: the first call that failed
 * @err: its error
 * @started: the thread runs
 */
struct vcm_race_worker {
	struct vcm_race *race;
	struct completion settled;
	struct completion done;
	const char *step;
	int err;
	bool started;
};

static void vcm_race_fail(struct vcm_race_worker *w, const char *step, int err)
{
	if (!w->err) {
		w->step = step;
		w->err = err;
	}
}

/*
 * Each round reserves a few ranges of the shared VCM, backs them all with
 * the shared physmem, unbacks and unreserves them.  The reservations are
 * the worker's own: only the VCM and the physmem are shared.
 */
static int vcm_race_worker_fn(void *data)
{
	struct vcm_race_worker *w = data;
	struct vcm_race *race = w->race;
	struct vcm_res *res[VCM_RACE_RES];
	bool backed[VCM_RACE_RES];
	int i, j, ret;

	wait_for_completion(&race->go);
	for (i = 0; i < VCM_RACE_LOOPS; i++) {
		for (j = 0; j < VCM_RACE_RES; j++) {
			res[j] = vcm_reserve(race->vcm, SZ_64K, RW_CACHED);
			backed[j] = false;
			if (IS_ERR(res[j])) {
				vcm_race_fail(w, "vcm_reserve", PTR_ERR(res[j]));
				res[j] = NULL;
				continue;
			}
			ret = vcm_back(res[j], race->pm);
			if (ret)
				vcm_race_fail(w, "vcm_back", ret);
			backed[j] = !ret;
		}
		/* No more backings from here: the test may free the physmem. */
		if (i == VCM_RACE_LOOPS - 1)
			complete(&w->settled);
		for (j = 0; j < VCM_RACE_RES; j++) {
			if (backed[j]) {
				ret = vcm_unback(res[j]);
				if (ret)
					vcm_race_fail(w, "vcm_unback", ret);
			}
		}
		for (j = 0; j < VCM_RACE_RES; j++) {
			if (res[j]) {
				ret = vcm_unreserve(res[j]);
				if (ret)
					vcm_race_fail(w, "vcm_unreserve", ret);
			}
		}
		cond_resched();
	}
	kthread_complete_and_exit(&w->done, 0);
}

static bool vcm_race_done(struct vcm_race_worker *w)
{
	int i;

	for (i = 0; i < VCM_RACE_THREADS; i++)
		if (w[i].started && !completion_done(&w[i].done))
			return false;
	return true;
}

/*
 * Several threads reserve, back, unback and unreserve in one VCM with one
 * physmem while the test thread does too, and the test frees the physmem
 * and the VCM as soon as they are idle, while the workers' last
 * vcm_unback() and vcm_unreserve() calls may still be returning.  The
 * counters the suite checks on exit tell whether every reservation,
 * backing and object went away; KASAN catches a VCM or physmem freed
 * under a call still using it.
 */
static void vcm_test_concurrent_unreserve(struct kunit *test)
{
	struct vcm_race_worker *w;
	struct task_struct *task;
	struct vcm_race *race;
	struct vcm_res *res;
	int i, ret, errors = 0;
	bool done;

	race = kunit_kzalloc(test, sizeof(*race), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, race);
	w = kunit_kcalloc(test, VCM_RACE_THREADS, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	race->vcm = new_dev_vcm(test);
	race->pm = new_phys(test, SZ_64K, 0, 0);
	init_completion(&race->go);

	/* From here on no assertion: the workers use what the test owns. */
	for (i = 0; i < VCM_RACE_THREADS; i++) {
		w[i].race = race;
		init_completion(&w[i].settled);
		init_completion(&w[i].done);
		task = kthread_run(vcm_race_worker_fn, &w[i], "vcm_race/%d", i);
		KUNIT_EXPECT_FALSE_MSG(test, IS_ERR(task), "worker %d: %ld", i,
				       PTR_ERR(task));
		w[i].started = !IS_ERR(task);
	}
	complete_all(&race->go);

	for (i = 0; i < VCM_RACE_LOOPS; i++) {
		res = vcm_reserve(race->vcm, SZ_64K, RW_CACHED);
		if (IS_ERR(res)) {
			errors++;
			continue;
		}
		if (i % 2 && (vcm_back(res, race->pm) || vcm_unback(res)))
			errors++;
		if (vcm_unreserve(res))
			errors++;
		cond_resched();
	}
	KUNIT_EXPECT_EQ(test, errors, 0);

	for (i = 0; i < VCM_RACE_THREADS; i++)
		if (w[i].started)
			wait_for_completion(&w[i].settled);

	/*
	 * Free each as soon as it is idle.  -EBUSY means a worker still
	 * holds it, until every worker is done: then it is a leak.
	 */
	do {
		done = vcm_race_done(w);
		ret = free_phys(test, race->pm);
		if (ret == -EBUSY && !done)
			cond_resched();
	} while (ret == -EBUSY && !done);
	KUNIT_EXPECT_EQ(test, ret, 0);
	do {
		done = vcm_race_done(w);
		ret = free_vcm(test, race->vcm);
		if (ret == -EBUSY && !done)
			cond_resched();
	} while (ret == -EBUSY && !done);
	KUNIT_EXPECT_EQ(test, ret, 0);

	for (i = 0; i < VCM_RACE_THREADS; i++) {
		if (!w[i].started)
			continue;
		wait_for_completion(&w[i].done);
		KUNIT_EXPECT_EQ_MSG(test, w[i].err, 0, "worker %d: %s", i,
				    w[i].step ?: "");
	}
}

/* --- the user kind, through a real mmap() of a test file ----------- */

struct vcm_user_ctx {
	struct kunit *test;
	struct vcm *vcm;
	struct vcm_physmem *pm;
	struct vcm_res *res;
	u32 attr;
	int closed;
};

static void vcm_user_close(struct vm_area_struct *vma)
{
	struct vcm_user_ctx *ctx = vma->vm_private_data;

	KUNIT_EXPECT_EQ(ctx->test, vcm_unback(ctx->res), 0);
	KUNIT_EXPECT_EQ(ctx->test, vcm_unreserve(ctx->res), 0);
	ctx->res = NULL;
	ctx->closed++;
}

static int vcm_user_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

static const struct vm_operations_struct vcm_user_vm_ops = {
	.close = vcm_user_close,
	.may_split = vcm_user_may_split,
};

static int vcm_user_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct vcm_user_ctx *ctx = file->private_data;
	struct vcm_res *res;
	int ret;

	res = vcm_reserve_vma(ctx->vcm, vma, ctx->attr);
	if (IS_ERR(res))
		return PTR_ERR(res);
	ret = vcm_back(res, ctx->pm);
	if (ret) {
		vcm_unreserve(res);
		return ret;
	}
	ctx->res = res;
	vma->vm_private_data = ctx;
	vma->vm_ops = &vcm_user_vm_ops;
	return 0;
}

static const struct file_operations vcm_user_fops = {
	.mmap = vcm_user_mmap,
};

static void vcm_test_user(struct kunit *test)
{
	struct vcm_physmem *pm = new_phys(test, SZ_2M + SZ_128K, 0, 0);
	struct vcm_user_ctx *ctx;
	unsigned long addr, anon;
	struct vcm_res *rk;
	struct file *file;
	struct vcm *k;
	dma_addr_t out;
	u32 word, *p;
	size_t off;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->test = test;
	ctx->pm = pm;
	ctx->attr = RW_CACHED;

	/* An anonymous mapping gives the KUnit thread an address space. */
	anon = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ, MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE(test, anon, 0);
	ctx->vcm = own_vcm(test, vcm_create_from_prebuilt(VCM_PREBUILT_USER));
	KUNIT_EXPECT_EQ(test, vcm_get_type(ctx->vcm), VCM_EXT_USER);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve(ctx->vcm, SZ_4K, RW_CACHED)),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, PTR_ERR(vcm_reserve_vma(ctx->vcm, NULL, RW)), -EINVAL);

	file = anon_inode_getfile("vcm-test", &vcm_user_fops, ctx, O_RDWR);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, file);

	vcm_fill_pattern(pm, 0x900);
	addr = kunit_vm_mmap(test, file, 0, SZ_2M + SZ_128K,
			     PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));
	KUNIT_ASSERT_NOT_NULL(test, ctx->res);
	KUNIT_EXPECT_EQ(test, vcm_get_dev_addr(ctx->res), (dma_addr_t)addr);
	KUNIT_EXPECT_PTR_EQ(test, vcm_get_res(ctx->vcm, addr + SZ_2M), ctx->res);

	/* The process sees the physmem, chunk after chunk... */
	for (off = 0; off < SZ_2M + SZ_128K; off += SZ_64K + 12) {
		KUNIT_ASSERT_EQ(test, copy_from_user(&word, (void __user *)(addr + off),
						     4), 0);
		KUNIT_EXPECT_EQ(test, word, vcm_pattern_at(pm, 0x900, off));
	}
	/* ...and its stores land in it. */
	word = 0xabcdef;
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)(addr + SZ_2M + 16), &word,
					   4), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), -EBUSY);

	KUNIT_EXPECT_EQ(test, vm_munmap(addr, SZ_2M + SZ_128K), 0);
	KUNIT_EXPECT_EQ(test, ctx->closed, 1);
	{
		unsigned int cursor = 0;
		phys_addr_t phys;
		size_t len;

		vcm_test_next_chunk(pm, &cursor, &phys, &len);
		vcm_test_next_chunk(pm, &cursor, &phys, &len);
		p = kmap_local_page(phys_to_page(phys));
		KUNIT_EXPECT_EQ(test, p[4], 0xabcdef);
		kunmap_local(p);
	}

	/*
	 * A VMA from a page offset of the buffer on: its addresses translate
	 * to the kernel mapping's from there, both ways.
	 */
	k = kernel_vcm(test);
	rk = vcm_reserve(k, SZ_2M + SZ_128K, RW_CACHED);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, rk);
	KUNIT_ASSERT_EQ(test, vcm_back(rk, pm), 0);
	addr = kunit_vm_mmap(test, file, 0, SZ_64K, PROT_READ | PROT_WRITE,
			     MAP_SHARED, SZ_2M);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));
	KUNIT_ASSERT_EQ(test, copy_from_user(&word, (void __user *)(addr + 8), 4),
			0);
	KUNIT_EXPECT_EQ(test, word, vcm_pattern_at(pm, 0x900, SZ_2M + 8));
	KUNIT_EXPECT_EQ(test, vcm_translate(ctx->vcm, addr + 8, k, &out), 0);
	KUNIT_EXPECT_EQ(test, out, vcm_get_dev_addr(rk) + SZ_2M + 8);
	KUNIT_EXPECT_EQ(test, vcm_translate(k, vcm_get_dev_addr(rk) + SZ_2M + 8,
					    ctx->vcm, &out), 0);
	KUNIT_EXPECT_EQ(test, out, (dma_addr_t)addr + 8);
	KUNIT_EXPECT_EQ(test, vcm_translate(k, vcm_get_dev_addr(rk) + 8,
					    ctx->vcm, &out), -ENOENT);
	KUNIT_EXPECT_EQ(test, vm_munmap(addr, SZ_64K), 0);
	KUNIT_EXPECT_EQ(test, vcm_unback(rk), 0);
	KUNIT_EXPECT_EQ(test, vcm_unreserve(rk), 0);

	/* A write-combined mapping refuses a write-only attribute mismatch. */
	ctx->attr = VCM_READ | VCM_WC;
	addr = kunit_vm_mmap(test, file, 0, SZ_2M + SZ_128K,
			     PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	KUNIT_EXPECT_EQ(test, (long)addr, -EACCES);

	fput(file);
	KUNIT_EXPECT_EQ(test, free_vcm(test, ctx->vcm), 0);
	KUNIT_EXPECT_EQ(test, free_phys(test, pm), 0);
}

static struct kunit_case vcm_test_user_cases[] = {
	KUNIT_CASE(vcm_test_concurrent_unreserve),
	KUNIT_CASE(vcm_test_user),
	{}
};

static struct kunit_suite vcm_test_user_suite = {
	.name = "vcm_user",
	.init = vcm_test_init,
	.test_cases = vcm_test_user_cases,
};

kunit_test_suite(vcm_test_user_suite);
