// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the GEM VCM helper: objects on a DRM device with a CPU
 * context, their kernel mappings, their status, the placement of their
 * memory for the devices that use them, and their dma-bufs.
 */

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/dma-resv.h>
#include <linux/gfp.h>
#include <linux/iosys-map.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/scatterlist.h>
#include <linux/sched.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vcm.h>

#include <kunit/device.h>
#include <kunit/test.h>
#include <kunit/test-bug.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_vcm_helper.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_kunit_helpers.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>
#include <drm/drm_vma_manager.h>

#define TEST_SIZE	SZ_1M
/*
 * Memory of 4 MiB with no need but the CPU's is two chunks at least:
 * VCM's chunks for the CPU are at most a PMD (2 MiB), so it is never
 * one contiguous range.
 */
#define TEST_SCATTERED	SZ_4M
#define TEST_BYTE	0xae
#define TEST_USERS	64

KUNIT_DEFINE_ACTION_WRAPPER(drm_gem_object_put_wrapper, drm_gem_object_put,
			    struct drm_gem_object *);
KUNIT_DEFINE_ACTION_WRAPPER(dma_buf_put_wrapper, dma_buf_put, struct dma_buf *);

/* Its dma-bufs hold the driver's module, as its files do. */
DEFINE_DRM_GEM_FOPS(drm_gem_vcm_test_fops);

static const struct drm_driver drm_gem_vcm_test_driver = {
	.driver_features = DRIVER_GEM,
	.fops = &drm_gem_vcm_test_fops,
	.name = "drm-gem-vcm-test",
	.desc = "GEM VCM helper KUnit test",
	.major = 1,
};

/* A driver's subclass of the object, made by its gem_create_object. */
struct drm_gem_vcm_test_object {
	struct drm_gem_vcm_object vcm;
	u32 magic;
};

#define TEST_MAGIC	0x5ca1ab1e

static struct drm_gem_object *
drm_gem_vcm_test_gem_create_object(struct drm_device *dev, size_t size)
{
	struct drm_gem_vcm_test_object *obj = kzalloc(sizeof(*obj), GFP_KERNEL);

	if (!obj)
		return ERR_PTR(-ENOMEM);
	obj->magic = TEST_MAGIC;
	obj->vcm.map_wc = true;
	return &obj->vcm.base;
}

static const struct drm_driver drm_gem_vcm_test_subclass_driver = {
	.driver_features = DRIVER_GEM,
	.fops = &drm_gem_vcm_test_fops,
	.gem_create_object = drm_gem_vcm_test_gem_create_object,
	.name = "drm-gem-vcm-test",
	.desc = "GEM VCM helper KUnit test",
	.major = 1,
};

/* A DRM device with the GEM VCM context it embeds, as a driver's does. */
struct drm_gem_vcm_test_device {
	struct drm_device drm;
	struct drm_gem_vcm_context ctx;
};

/* A DRM device of @drv on @dev, with its context not set up yet. */
static struct drm_gem_vcm_test_device *
drm_gem_vcm_test_drm(struct kunit *test, struct device *dev,
		     const struct drm_driver *drv)
{
	struct drm_gem_vcm_test_device *tdev;
	struct drm_device *drm;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	/* The DRM device first: at offset 0. */
	drm = __drm_kunit_helper_alloc_drm_device_with_driver(test, dev,
							      sizeof(*tdev), 0,
							      drv);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, drm);
	return container_of(drm, struct drm_gem_vcm_test_device, drm);
}

/* The CPU context of a DRM device of @drv, on @dev. */
static struct drm_gem_vcm_context *
drm_gem_vcm_test_device(struct kunit *test, struct device *dev,
			const struct drm_driver *drv)
{
	struct drm_gem_vcm_test_device *tdev;
	int ret;

	tdev = drm_gem_vcm_test_drm(test, dev, drv);
	ret = drmm_gem_vcm_init(&tdev->drm, &tdev->ctx, DRM_GEM_VCM_CPU);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return &tdev->ctx;
}

/* An object of @size, put when the test ends. */
static struct drm_gem_vcm_object *drm_gem_vcm_test_create(struct kunit *test,
							  size_t size)
{
	struct drm_gem_vcm_context *ctx = test->priv;
	struct drm_gem_vcm_object *obj;
	int ret;

	obj = drm_gem_vcm_create(ctx, size);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, obj);
	ret = kunit_add_action_or_reset(test, drm_gem_object_put_wrapper,
					&obj->base);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return obj;
}

static int drm_gem_vcm_test_populate(struct drm_gem_vcm_object *obj)
{
	int ret;

	dma_resv_lock(obj->base.resv, NULL);
	ret = drm_gem_vcm_populate(obj);
	dma_resv_unlock(obj->base.resv);
	return ret;
}

static int drm_gem_vcm_test_place(struct drm_gem_vcm_object *obj,
				  const struct vcm_constraint *c,
				  const char *who)
{
	int ret;

	dma_resv_lock(obj->base.resv, NULL);
	ret = drm_gem_vcm_place(obj, c, who);
	dma_resv_unlock(obj->base.resv);
	return ret;
}

/*
 * A new object has the size asked for in whole pages, the helper's
 * functions, no memory, and the device it was made on as its only user;
 * the context counts it until it is freed.  A size of no page, or one
 * that rounds up past SIZE_MAX, is refused with -EINVAL, and an import's
 * size must be whole pages.
 */
static void drm_gem_vcm_test_create_free(struct kunit *test)
{
	struct drm_gem_vcm_context *ctx = test->priv;
	struct drm_gem_vcm_object *obj;

	obj = drm_gem_vcm_create(ctx, TEST_SIZE - 1);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, obj);
	KUNIT_EXPECT_EQ(test, obj->base.size, TEST_SIZE);
	KUNIT_EXPECT_NOT_NULL(test, obj->base.funcs);
	KUNIT_EXPECT_NULL(test, obj->base.filp);
	KUNIT_EXPECT_NULL(test, obj->physmem);
	KUNIT_EXPECT_FALSE(test, obj->imported);
	KUNIT_EXPECT_EQ(test, list_count_nodes(&obj->users), 1);
	KUNIT_EXPECT_EQ(test, obj->need.devices, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->objects), 1);

	drm_gem_object_put(&obj->base);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->objects), 0);

	KUNIT_EXPECT_EQ(test, PTR_ERR(drm_gem_vcm_create(ctx, 0)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(drm_gem_vcm_create(ctx, SIZE_MAX)), -EINVAL);
	obj = drm_gem_vcm_create_import(ctx, SZ_4K + 1);
	KUNIT_EXPECT_EQ(test, PTR_ERR(obj), -EINVAL);
	obj = drm_gem_vcm_create_import(ctx, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(obj), -EINVAL);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->objects), 0);
}

/*
 * A driver's gem_create_object makes the object, for created and
 * imported objects alike, and keeps the object functions it sets (none
 * here: the helper's).
 */
static void drm_gem_vcm_test_create_object(struct kunit *test)
{
	struct drm_gem_vcm_test_object *sub;
	struct drm_gem_vcm_object *obj;
	struct drm_gem_vcm_context *ctx;
	struct device *dev;

	/* Of its own name: KUnit makes a driver of each device's name. */
	dev = kunit_device_register(test, "drm-gem-vcm-subclass");
	ctx = drm_gem_vcm_test_device(test, dev,
				      &drm_gem_vcm_test_subclass_driver);
	obj = drm_gem_vcm_create(ctx, TEST_SIZE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, obj);
	sub = container_of(obj, struct drm_gem_vcm_test_object, vcm);
	KUNIT_EXPECT_EQ(test, sub->magic, TEST_MAGIC);
	KUNIT_EXPECT_TRUE(test, obj->map_wc);
	KUNIT_EXPECT_NOT_NULL(test, obj->base.funcs);
	drm_gem_object_put(&obj->base);

	obj = drm_gem_vcm_create_import(ctx, TEST_SIZE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, obj);
	sub = container_of(obj, struct drm_gem_vcm_test_object, vcm);
	KUNIT_EXPECT_EQ(test, sub->magic, TEST_MAGIC);
	KUNIT_EXPECT_TRUE(test, obj->imported);
	KUNIT_EXPECT_TRUE(test, list_empty(&obj->users));
	KUNIT_EXPECT_EQ(test, drm_gem_vcm_test_populate(obj), -EINVAL);
	drm_gem_object_put(&obj->base);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->objects), 0);
}

/*
 * The kernel mapping allocates the memory, is made once and shared: a
 * second user gets the same address, and the last one unmaps it.  What
 * is written through it reads back.
 */
static void drm_gem_vcm_test_vmap(struct kunit *test)
{
	struct drm_gem_vcm_context *ctx = test->priv;
	struct drm_gem_vcm_object *obj;
	struct iosys_map map, map2;
	unsigned int i;
	int ret;

	obj = drm_gem_vcm_test_create(test, TEST_SIZE);
	ret = drm_gem_vmap_unlocked(&obj->base, &map);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_FALSE(test, iosys_map_is_null(&map));
	KUNIT_EXPECT_FALSE(test, map.is_iomem);
	KUNIT_EXPECT_NOT_NULL(test, obj->physmem);
	KUNIT_EXPECT_NOT_NULL(test, obj->vmap_res);
	KUNIT_EXPECT_EQ(test, obj->vmap_use_count, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->maps), 1);
	KUNIT_EXPECT_EQ(test,
			vcm_get_res_attr(obj->vmap_res) & VCM_CACHE_POLICY,
			VCM_WB_WA);

	ret = drm_gem_vmap_unlocked(&obj->base, &map2);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_PTR_EQ(test, map2.vaddr, map.vaddr);
	KUNIT_EXPECT_EQ(test, obj->vmap_use_count, 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->maps), 1);

	iosys_map_memset(&map, 0, TEST_BYTE, TEST_SIZE);
	for (i = 0; i < TEST_SIZE; i += PAGE_SIZE / 4)
		KUNIT_EXPECT_EQ(test, iosys_map_rd(&map2, i, u8), TEST_BYTE);

	drm_gem_vunmap_unlocked(&obj->base, &map2);
	KUNIT_EXPECT_EQ(test, obj->vmap_use_count, 1);
	KUNIT_EXPECT_NOT_NULL(test, obj->vmap_res);
	drm_gem_vunmap_unlocked(&obj->base, &map);
	KUNIT_EXPECT_EQ(test, obj->vmap_use_count, 0);
	KUNIT_EXPECT_NULL(test, obj->vmap_res);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->maps), 0);
	/* The memory stays with the object. */
	KUNIT_EXPECT_NOT_NULL(test, obj->physmem);
}

/* A write-combined object's kernel mapping is write-combined. */
static void drm_gem_vcm_test_vmap_wc(struct kunit *test)
{
	struct drm_gem_vcm_object *obj;
	struct iosys_map map;
	int ret;

	obj = drm_gem_vcm_test_create(test, TEST_SIZE);
	obj->map_wc = true;
	ret = drm_gem_vmap_unlocked(&obj->base, &map);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test,
			vcm_get_res_attr(obj->vmap_res) & VCM_CACHE_POLICY,
			VCM_WC);
	drm_gem_vunmap_unlocked(&obj->base, &map);
}

/*
 * fdinfo's status: no memory before the first use, resident after; an
 * import with no attachment is not resident.
 */
static void drm_gem_vcm_test_status(struct kunit *test)
{
	struct drm_gem_vcm_context *ctx = test->priv;
	struct drm_gem_vcm_object *obj;

	obj = drm_gem_vcm_test_create(test, TEST_SIZE);
	KUNIT_EXPECT_EQ(test, drm_gem_vcm_status(obj), 0);
	KUNIT_ASSERT_EQ(test, drm_gem_vcm_test_populate(obj), 0);
	KUNIT_EXPECT_NOT_NULL(test, obj->physmem);
	KUNIT_EXPECT_EQ(test, drm_gem_vcm_status(obj), DRM_GEM_OBJECT_RESIDENT);
	KUNIT_EXPECT_EQ(test, obj->base.funcs->status(&obj->base),
			DRM_GEM_OBJECT_RESIDENT);

	obj = drm_gem_vcm_create_import(ctx, TEST_SIZE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, obj);
	KUNIT_EXPECT_EQ(test, drm_gem_vcm_status(obj), 0);
	drm_gem_object_put(&obj->base);
}

/*
 * Needs merge before the memory exists: the flags of both, the lower
 * limit, the larger granule, one device more each; nothing is allocated
 * until the first use, and then memory that meets them all.
 */
static void drm_gem_vcm_test_place_merge(struct kunit *test)
{
	struct drm_gem_vcm_object *obj;
	struct vcm_constraint a, b;

	obj = drm_gem_vcm_test_create(test, TEST_SIZE);
	vcm_constraint_init(&a);
	a.flags = VCM_CONSTRAINT_GRANULE;
	a.granule = SZ_64K;
	a.pgsizes = SZ_64K | SZ_2M;
	a.devices = 1;
	vcm_constraint_init(&b);
	b.flags = VCM_CONSTRAINT_LIMIT;
	b.dma_limit = PHYS_ADDR_MAX - SZ_1G;
	b.devices = 1;

	KUNIT_ASSERT_EQ(test, drm_gem_vcm_test_place(obj, &a, "a"), 0);
	KUNIT_ASSERT_EQ(test, drm_gem_vcm_test_place(obj, &b, "b"), 0);
	KUNIT_EXPECT_EQ(test, obj->need.flags,
			VCM_CONSTRAINT_GRANULE | VCM_CONSTRAINT_LIMIT);
	KUNIT_EXPECT_EQ(test, obj->need.granule, SZ_64K);
	KUNIT_EXPECT_EQ(test, obj->need.dma_limit, PHYS_ADDR_MAX - SZ_1G);
	/* The device it was made on, then a and b. */
	KUNIT_EXPECT_EQ(test, obj->need.devices, 3);
	KUNIT_EXPECT_NULL(test, obj->physmem);
	KUNIT_EXPECT_EQ(test, obj->refused, 0);

	KUNIT_ASSERT_EQ(test, drm_gem_vcm_test_populate(obj), 0);
	KUNIT_ASSERT_NOT_NULL(test, obj->physmem);
	KUNIT_EXPECT_EQ(test, vcm_constraint_unmet(&obj->need, obj->physmem),
			0);
	KUNIT_EXPECT_EQ(test, obj->moves, 0);
}

/*
 * A need the memory does not meet moves it while nothing maps it,
 * contents kept.
 */
static void drm_gem_vcm_test_place_move(struct kunit *test)
{
	struct drm_gem_vcm_object *obj;
	struct vcm_constraint c;
	struct iosys_map map;
	unsigned int i;

	obj = drm_gem_vcm_test_create(test, TEST_SCATTERED);
	KUNIT_ASSERT_EQ(test, drm_gem_vmap_unlocked(&obj->base, &map), 0);
	iosys_map_memset(&map, 0, TEST_BYTE, TEST_SCATTERED);
	drm_gem_vunmap_unlocked(&obj->base, &map);
	vcm_constraint_init(&c);
	c.flags = VCM_CONSTRAINT_CONTIGUOUS;
	c.devices = 1;
	KUNIT_ASSERT_NE(test, vcm_constraint_unmet(&c, obj->physmem), 0);

	KUNIT_ASSERT_EQ(test, drm_gem_vcm_test_place(obj, &c, "contiguous"), 0);
	KUNIT_EXPECT_EQ(test, obj->moves, 1);
	KUNIT_EXPECT_EQ(test, obj->refused, 0);
	KUNIT_EXPECT_EQ(test, vcm_constraint_unmet(&obj->need, obj->physmem),
			0);

	KUNIT_ASSERT_EQ(test, drm_gem_vmap_unlocked(&obj->base, &map), 0);
	for (i = 0; i < TEST_SCATTERED; i += PAGE_SIZE / 4)
		KUNIT_EXPECT_EQ(test, iosys_map_rd(&map, i, u8), TEST_BYTE);
	drm_gem_vunmap_unlocked(&obj->base, &map);
}

/*
 * Once the memory is mapped, a need it does not meet is refused with
 * -EBUSY, as the dma-buf rules allow a device's first mapping to be,
 * and the refusal is recorded; the object's needs and memory are as
 * they were.
 */
static void drm_gem_vcm_test_place_busy(struct kunit *test)
{
	struct drm_gem_vcm_object *obj;
	struct vcm_physmem *pm;
	struct vcm_constraint c;
	struct iosys_map map;
	u32 flags;

	obj = drm_gem_vcm_test_create(test, TEST_SCATTERED);
	KUNIT_ASSERT_EQ(test, drm_gem_vmap_unlocked(&obj->base, &map), 0);
	pm = obj->physmem;
	flags = obj->need.flags;
	vcm_constraint_init(&c);
	c.flags = VCM_CONSTRAINT_CONTIGUOUS;
	c.devices = 1;

	KUNIT_EXPECT_EQ(test, drm_gem_vcm_test_place(obj, &c, "late"), -EBUSY);
	KUNIT_EXPECT_EQ(test, obj->refused, -EBUSY);
	KUNIT_EXPECT_EQ(test, obj->refused_unmet, VCM_CONSTRAINT_CONTIGUOUS);
	KUNIT_EXPECT_STREQ(test, obj->refused_dev, "late");
	KUNIT_EXPECT_PTR_EQ(test, obj->physmem, pm);
	KUNIT_EXPECT_EQ(test, obj->need.flags, flags);
	KUNIT_EXPECT_EQ(test, obj->need.devices, 1);
	KUNIT_EXPECT_EQ(test, obj->moves, 0);
	drm_gem_vunmap_unlocked(&obj->base, &map);
}

/*
 * A need no memory of this system meets (a limit below the first byte
 * of RAM) is refused before any memory exists, and recorded.
 */
static void drm_gem_vcm_test_place_impossible(struct kunit *test)
{
	struct drm_gem_vcm_object *obj;
	struct vcm_constraint c;

	obj = drm_gem_vcm_test_create(test, TEST_SIZE);
	vcm_constraint_init(&c);
	c.flags = VCM_CONSTRAINT_LIMIT;
	c.dma_limit = 0;
	c.devices = 1;
	KUNIT_EXPECT_EQ(test, drm_gem_vcm_test_place(obj, &c, "none"), -ERANGE);
	KUNIT_EXPECT_EQ(test, obj->refused, -ERANGE);
	KUNIT_EXPECT_EQ(test, obj->refused_unmet, VCM_CONSTRAINT_LIMIT);
	KUNIT_EXPECT_EQ(test, obj->need.devices, 1);
	KUNIT_EXPECT_NULL(test, obj->physmem);
}

/*
 * The lowest DMA limit VCM takes, one page above the first byte of RAM
 * (vcm_constraint_merge() refuses any lower with -ERANGE), by bisection:
 * at most one page of RAM lies at or below it.
 */
static phys_addr_t drm_gem_vcm_test_lowest_limit(void)
{
	phys_addr_t lo = 0, hi = PHYS_ADDR_MAX, mid;
	struct vcm_constraint acc, c;

	vcm_constraint_init(&c);
	c.flags = VCM_CONSTRAINT_LIMIT;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		vcm_constraint_init(&acc);
		c.dma_limit = mid;
		if (vcm_constraint_merge(&acc, &c))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * A need the memory does not meet, while nothing maps it, and that no
 * memory of the object's size meets (1 MiB below the lowest limit VCM
 * takes): the move's allocation fails, and its -ENOMEM is the refusal,
 * recorded; the memory, the needs and the moves are as they were.
 */
static void drm_gem_vcm_test_place_nomem(struct kunit *test)
{
	struct drm_gem_vcm_object *obj;
	struct vcm_physmem *pm;
	struct vcm_constraint c;

	obj = drm_gem_vcm_test_create(test, TEST_SIZE);
	KUNIT_ASSERT_EQ(test, drm_gem_vcm_test_populate(obj), 0);
	pm = obj->physmem;
	vcm_constraint_init(&c);
	c.flags = VCM_CONSTRAINT_LIMIT;
	c.dma_limit = drm_gem_vcm_test_lowest_limit();
	c.devices = 1;
	KUNIT_ASSERT_NE(test, vcm_constraint_unmet(&c, pm), 0);

	KUNIT_EXPECT_EQ(test, drm_gem_vcm_test_place(obj, &c, "low"), -ENOMEM);
	KUNIT_EXPECT_EQ(test, obj->refused, -ENOMEM);
	KUNIT_EXPECT_EQ(test, obj->refused_unmet, VCM_CONSTRAINT_LIMIT);
	KUNIT_EXPECT_PTR_EQ(test, obj->physmem, pm);
	KUNIT_EXPECT_EQ(test, obj->need.flags, 0);
	KUNIT_EXPECT_EQ(test, obj->need.devices, 1);
	KUNIT_EXPECT_EQ(test, obj->moves, 0);
}

/*
 * Every device attached to an object counts once, however often it
 * attaches, with no needs until it maps, and nothing bounds their
 * number; each leaves the users at its last detach, and the devices it
 * added to the needs stay.
 */
static void drm_gem_vcm_test_users(struct kunit *test)
{
	struct drm_gem_vcm_object *obj;
	struct device_driver *drv;
	struct device *devs[TEST_USERS];
	struct drm_gem_vcm_user *user;
	char name[32];
	unsigned int i, pass;
	int ret;

	drv = kunit_driver_create(test, "drm-gem-vcm-user");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, drv);
	for (i = 0; i < TEST_USERS; i++) {
		snprintf(name, sizeof(name), "drm-gem-vcm-user.%u", i);
		devs[i] = kunit_device_register_with_driver(test, name, drv);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, devs[i]);
	}
	obj = drm_gem_vcm_test_create(test, TEST_SIZE);

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < TEST_USERS; i++) {
			dma_resv_lock(obj->base.resv, NULL);
			ret = drm_gem_vcm_place_user(obj, devs[i], NULL);
			dma_resv_unlock(obj->base.resv);
			KUNIT_ASSERT_EQ(test, ret, 0);
		}
		/* The device it was made on, and each of them once. */
		KUNIT_EXPECT_EQ(test, obj->need.devices, TEST_USERS + 1);
		KUNIT_EXPECT_EQ(test, list_count_nodes(&obj->users),
				TEST_USERS + 1);
	}
	KUNIT_EXPECT_EQ(test, obj->need.flags, 0);
	list_for_each_entry(user, &obj->users, node) {
		bool made_on = user->dev == obj->base.dev->dev;

		KUNIT_EXPECT_EQ(test, user->attachments, made_on ? 1 : 2);
		KUNIT_EXPECT_EQ(test, user->placed, made_on);
	}

	for (pass = 0; pass < 2; pass++) {
		dma_resv_lock(obj->base.resv, NULL);
		for (i = 0; i < TEST_USERS; i++)
			drm_gem_vcm_place_unuse(obj, devs[i]);
		dma_resv_unlock(obj->base.resv);
		/* Listed until the last of its two attachments goes. */
		KUNIT_EXPECT_EQ(test, list_count_nodes(&obj->users),
				pass ? 1 : TEST_USERS + 1);
	}
	user = list_first_entry(&obj->users, struct drm_gem_vcm_user, node);
	KUNIT_EXPECT_PTR_EQ(test, user->dev, obj->base.dev->dev);
	/* Needs only accumulate. */
	KUNIT_EXPECT_EQ(test, obj->need.devices, TEST_USERS + 1);
}

/* A device of its own with a 64-bit DMA mask, and no IOMMU. */
static struct device *drm_gem_vcm_test_dma_device(struct kunit *test,
						  const char *name)
{
	struct device *dev = kunit_device_register(test, name);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	dev->coherent_dma_mask = DMA_BIT_MASK(64);
	dev->dma_mask = &dev->coherent_dma_mask;
	return dev;
}

static int drm_gem_vcm_test_attach(struct drm_gem_vcm_object *obj,
				   struct device *dev)
{
	int ret;

	dma_resv_lock(obj->base.resv, NULL);
	ret = drm_gem_vcm_place_user(obj, dev, NULL);
	dma_resv_unlock(obj->base.resv);
	return ret;
}

static int drm_gem_vcm_test_map(struct drm_gem_vcm_object *obj,
				struct device *dev)
{
	int ret;

	dma_resv_lock(obj->base.resv, NULL);
	ret = drm_gem_vcm_place_map(obj, dev);
	dma_resv_unlock(obj->base.resv);
	return ret;
}

/*
 * An attached device needs nothing until its first mapping, which adds
 * what the DMA API knows of it (one range, for a device without an
 * IOMMU), once: it was counted among the devices at attach.  A device
 * without DMA needs nothing at its mapping either.  Its detach leaves
 * the needs as they are.
 */
static void drm_gem_vcm_test_attach_map(struct kunit *test)
{
	struct drm_gem_vcm_object *obj;
	struct drm_gem_vcm_user *user;
	struct device *dma, *cpu;

	dma = drm_gem_vcm_test_dma_device(test, "drm-gem-vcm-dma");
	cpu = kunit_device_register(test, "drm-gem-vcm-cpu");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cpu);
	/* KUnit gives its devices a DMA mask: this one does no DMA. */
	cpu->dma_mask = NULL;
	cpu->coherent_dma_mask = 0;
	obj = drm_gem_vcm_test_create(test, TEST_SIZE);

	KUNIT_ASSERT_EQ(test, drm_gem_vcm_test_attach(obj, dma), 0);
	KUNIT_ASSERT_EQ(test, drm_gem_vcm_test_attach(obj, cpu), 0);
	KUNIT_EXPECT_EQ(test, obj->need.flags, 0);
	KUNIT_EXPECT_EQ(test, obj->need.devices, 3);
	KUNIT_EXPECT_NULL(test, obj->need.dev);

	KUNIT_ASSERT_EQ(test, drm_gem_vcm_test_map(obj, cpu), 0);
	KUNIT_EXPECT_EQ(test, obj->need.flags, 0);
	KUNIT_ASSERT_EQ(test, drm_gem_vcm_test_map(obj, dma), 0);
	KUNIT_EXPECT_EQ(test, obj->need.flags, VCM_CONSTRAINT_CONTIGUOUS);
	KUNIT_EXPECT_PTR_EQ(test, obj->need.dev, dma);
	KUNIT_EXPECT_EQ(test, obj->need.devices, 3);
	list_for_each_entry(user, &obj->users, node)
		KUNIT_EXPECT_TRUE(test, user->placed);
	/* A second mapping adds nothing. */
	KUNIT_ASSERT_EQ(test, drm_gem_vcm_test_map(obj, dma), 0);
	KUNIT_EXPECT_EQ(test, obj->need.devices, 3);
	KUNIT_EXPECT_NULL(test, obj->physmem);

	dma_resv_lock(obj->base.resv, NULL);
	drm_gem_vcm_place_unuse(obj, dma);
	drm_gem_vcm_place_unuse(obj, cpu);
	dma_resv_unlock(obj->base.resv);
	KUNIT_EXPECT_EQ(test, list_count_nodes(&obj->users), 1);
	KUNIT_EXPECT_EQ(test, obj->need.flags, VCM_CONSTRAINT_CONTIGUOUS);
	KUNIT_EXPECT_EQ(test, obj->need.devices, 3);
}

/*
 * A device that attaches while the memory is mapped already, and that
 * the memory does not suit, is refused at its first mapping, not at
 * attach: it stays a user, unplaced, and its next mapping is refused
 * again.  The memory stays where it is.
 */
static void drm_gem_vcm_test_map_busy(struct kunit *test)
{
	struct drm_gem_vcm_object *obj;
	struct drm_gem_vcm_user *user;
	struct vcm_physmem *pm;
	struct iosys_map map;
	struct device *dma;

	dma = drm_gem_vcm_test_dma_device(test, "drm-gem-vcm-late");
	obj = drm_gem_vcm_test_create(test, TEST_SCATTERED);
	KUNIT_ASSERT_EQ(test, drm_gem_vmap_unlocked(&obj->base, &map), 0);
	pm = obj->physmem;

	KUNIT_ASSERT_EQ(test, drm_gem_vcm_test_attach(obj, dma), 0);
	KUNIT_EXPECT_EQ(test, obj->refused, 0);
	KUNIT_EXPECT_EQ(test, drm_gem_vcm_test_map(obj, dma), -EBUSY);
	KUNIT_EXPECT_EQ(test, obj->refused, -EBUSY);
	KUNIT_EXPECT_TRUE(test,
			  obj->refused_unmet & VCM_CONSTRAINT_CONTIGUOUS);
	/* The device's name, as much of it as the record keeps. */
	KUNIT_EXPECT_EQ(test, strncmp(obj->refused_dev, dev_name(dma),
				      sizeof(obj->refused_dev) - 1), 0);
	KUNIT_EXPECT_EQ(test, obj->need.flags, 0);
	KUNIT_EXPECT_PTR_EQ(test, obj->physmem, pm);
	KUNIT_EXPECT_EQ(test, obj->moves, 0);
	user = list_last_entry(&obj->users, struct drm_gem_vcm_user, node);
	KUNIT_EXPECT_PTR_EQ(test, user->dev, dma);
	KUNIT_EXPECT_FALSE(test, user->placed);
	KUNIT_EXPECT_EQ(test, drm_gem_vcm_test_map(obj, dma), -EBUSY);

	dma_resv_lock(obj->base.resv, NULL);
	drm_gem_vcm_place_unuse(obj, dma);
	dma_resv_unlock(obj->base.resv);
	KUNIT_EXPECT_EQ(test, list_count_nodes(&obj->users), 1);
	drm_gem_vunmap_unlocked(&obj->base, &map);
}

/*
 * debugfs's placement report, line by line, of an object a placement
 * refused, then with memory.
 */
static void drm_gem_vcm_test_describe(struct kunit *test)
{
	struct drm_gem_vcm_object *obj;
	phys_addr_t phys, top = 0;
	unsigned int cursor, bits;
	struct vcm_constraint c;
	struct iosys_map map;
	struct seq_buf s;
	char want[32];
	size_t len;
	char *buf;

	buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	obj = drm_gem_vcm_test_create(test, TEST_SIZE);
	vcm_constraint_init(&c);
	c.flags = VCM_CONSTRAINT_LIMIT;
	c.dma_limit = 0;
	c.devices = 1;
	KUNIT_EXPECT_EQ(test, drm_gem_vcm_test_place(obj, &c, "none"), -ERANGE);

	seq_buf_init(&s, buf, PAGE_SIZE);
	dma_resv_lock(obj->base.resv, NULL);
	drm_gem_vcm_describe_placement(obj, &s);
	dma_resv_unlock(obj->base.resv);
	KUNIT_EXPECT_FALSE(test, seq_buf_has_overflowed(&s));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "need 0x0 -\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "\ndevices 1\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "\naddr_bits 0\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "\nmoves 0\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "\nrefused -34 0x2 none\n"));

	/* With memory: the bits its highest byte's address needs. */
	KUNIT_ASSERT_EQ(test, drm_gem_vmap_unlocked(&obj->base, &map), 0);
	KUNIT_ASSERT_NOT_NULL(test, obj->physmem);
	dma_resv_lock(obj->base.resv, NULL);
	vcm_for_each_phys_chunk(obj->physmem, cursor, phys, len)
		top = max(top, phys + len - 1);
	bits = 0;
	while (bits < BITS_PER_TYPE(top) && top >> bits)
		bits++;
	seq_buf_init(&s, buf, PAGE_SIZE);
	drm_gem_vcm_describe_placement(obj, &s);
	dma_resv_unlock(obj->base.resv);
	drm_gem_vunmap_unlocked(&obj->base, &map);
	KUNIT_EXPECT_FALSE(test, seq_buf_has_overflowed(&s));
	snprintf(want, sizeof(want), "\naddr_bits %u\n", bits);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(buf, want), "highest byte %pa",
				  &top);
}

/*
 * debugfs's table row of an object: its size, whether it has memory and
 * its needs; an object whose reservation lock someone holds (a move, an
 * allocation, a job being submitted) is "busy" rather than waited for.
 */
static void drm_gem_vcm_test_show_busy(struct kunit *test)
{
	struct drm_gem_vcm_object *obj = drm_gem_vcm_test_create(test, TEST_SIZE);
	struct seq_file m = { .size = PAGE_SIZE };
	char want[32];

	m.buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m.buf);
	drm_gem_vcm_show_placement(obj, &m);
	snprintf(want, sizeof(want), "%u 0 ", TEST_SIZE);
	KUNIT_EXPECT_EQ(test, strncmp(m.buf, want, strlen(want)), 0);

	m.count = 0;
	memset(m.buf, 0, PAGE_SIZE);
	dma_resv_lock(obj->base.resv, NULL);
	drm_gem_vcm_show_placement(obj, &m);
	dma_resv_unlock(obj->base.resv);
	snprintf(want, sizeof(want), "%u busy\n", TEST_SIZE);
	KUNIT_EXPECT_STREQ(test, m.buf, want);
}

/*
 * A printer into the test's @buf of @size bytes, emptied: what is printed
 * stays a string, as it keeps the last byte for the NUL.
 */
static struct drm_printer drm_gem_vcm_test_printer(struct drm_print_iterator *iter,
						   char *buf, size_t size)
{
	memset(buf, 0, size);
	*iter = (struct drm_print_iterator){ .data = buf, .remain = size - 1 };
	return drm_coredump_printer(iter);
}

/*
 * debugfs's GEM state of an object (&drm_gem_object_funcs.print_info),
 * at the indent the DRM core asks for: whether it has memory, its cache
 * policy, its needs and its mappings; of an import, only that it is one.
 */
static void drm_gem_vcm_test_print_info(struct kunit *test)
{
	struct drm_gem_vcm_context *ctx = test->priv;
	struct drm_gem_vcm_object *obj;
	struct drm_print_iterator iter;
	struct iosys_map map;
	struct drm_printer p;
	char *buf;

	buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	obj = drm_gem_vcm_test_create(test, TEST_SIZE);
	obj->map_wc = true;
	KUNIT_ASSERT_EQ(test, drm_gem_vmap_unlocked(&obj->base, &map), 0);
	p = drm_gem_vcm_test_printer(&iter, buf, PAGE_SIZE);
	obj->base.funcs->print_info(&p, 1, &obj->base);
	drm_gem_vunmap_unlocked(&obj->base, &map);
	KUNIT_EXPECT_STREQ(test, buf,
			   "\tallocated=yes\n\tmap_wc=yes\n\tneed=0x0 devices=1\n"
			   "\tvmap_use_count=1\n\tmap_count=0\n\tuser_vmas=0\n"
			   "\tmoves=0\n");

	obj = drm_gem_vcm_create_import(ctx, TEST_SIZE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, obj);
	p = drm_gem_vcm_test_printer(&iter, buf, PAGE_SIZE);
	drm_gem_vcm_print_info(obj, &p, 2);
	drm_gem_object_put(&obj->base);
	KUNIT_EXPECT_STREQ(test, buf, "\t\timported=yes\n");
}

/*
 * What the DRM core prints of an object through its object functions
 * (drm_gem_print_info()) is what a driver's own report prints with
 * drm_gem_vcm_print_info(): an object no one used yet has no memory and,
 * as its driver did not ask for it, is not write-combined, and printing
 * it allocates nothing; an import is only that it is one, either way.
 */
static void drm_gem_vcm_test_print_info_unused(struct kunit *test)
{
	static const char unused[] =
		"\tallocated=no\n\tmap_wc=no\n\tneed=0x0 devices=1\n"
		"\tvmap_use_count=0\n\tmap_count=0\n\tuser_vmas=0\n\tmoves=0\n";
	struct drm_gem_vcm_context *ctx = test->priv;
	struct drm_gem_vcm_object *obj, *imp;
	struct drm_print_iterator iter;
	struct drm_printer p;
	char *buf;

	buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	obj = drm_gem_vcm_test_create(test, TEST_SIZE);
	p = drm_gem_vcm_test_printer(&iter, buf, PAGE_SIZE);
	obj->base.funcs->print_info(&p, 1, &obj->base);
	KUNIT_EXPECT_STREQ(test, buf, unused);
	p = drm_gem_vcm_test_printer(&iter, buf, PAGE_SIZE);
	drm_gem_vcm_print_info(obj, &p, 1);
	KUNIT_EXPECT_STREQ(test, buf, unused);
	KUNIT_EXPECT_NULL(test, obj->physmem);

	imp = drm_gem_vcm_create_import(ctx, TEST_SIZE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, imp);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							drm_gem_object_put_wrapper,
							&imp->base), 0);
	p = drm_gem_vcm_test_printer(&iter, buf, PAGE_SIZE);
	imp->base.funcs->print_info(&p, 1, &imp->base);
	KUNIT_EXPECT_STREQ(test, buf, "\timported=yes\n");
}

/* A second DRM device, CPU context and all, that imports. */
static struct drm_gem_vcm_context *drm_gem_vcm_test_importer(struct kunit *test)
{
	struct device *dev = kunit_device_register(test, "drm-gem-vcm-importer");

	return drm_gem_vcm_test_device(test, dev, &drm_gem_vcm_test_driver);
}

/*
 * An object of the context's device, in *@objp, exported: the dma-buf is
 * put when the test ends, before the object.
 */
static struct dma_buf *drm_gem_vcm_test_export(struct kunit *test,
					       struct drm_gem_vcm_object **objp)
{
	struct drm_gem_vcm_object *obj = drm_gem_vcm_test_create(test, TEST_SIZE);
	struct dma_buf *dmabuf = drm_gem_vcm_prime_export(&obj->base, O_RDWR);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dmabuf);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, dma_buf_put_wrapper,
							dmabuf), 0);
	*objp = obj;
	return dmabuf;
}

/*
 * The export: an attached device counts among the users and needs
 * nothing until it maps; its mapping places the memory for it, is listed
 * and counted until the detach, which also drops the user.  The object comes back
 * as itself on its own device.  An import is not exported again.
 */
static void drm_gem_vcm_test_prime_export(struct kunit *test)
{
	struct drm_gem_vcm_context *ctx = test->priv;
	struct dma_buf_attachment *attach;
	struct drm_gem_vcm_object *obj, *vobj;
	struct drm_gem_object *gem;
	struct dma_buf *dmabuf;
	struct sg_table *sgt;
	struct device *dma;

	dma = drm_gem_vcm_test_dma_device(test, "drm-gem-vcm-importer-dma");
	dmabuf = drm_gem_vcm_test_export(test, &obj);
	/* Told as the driver's own object, and only to that driver. */
	vobj = drm_gem_vcm_dmabuf_object(dmabuf, &drm_gem_vcm_test_driver);
	KUNIT_EXPECT_PTR_EQ(test, vobj, obj);
	vobj = drm_gem_vcm_dmabuf_object(dmabuf,
					 &drm_gem_vcm_test_subclass_driver);
	KUNIT_EXPECT_NULL(test, vobj);

	gem = drm_gem_vcm_prime_import(ctx, dmabuf);
	KUNIT_ASSERT_PTR_EQ(test, gem, &obj->base);
	drm_gem_object_put(gem);

	attach = dma_buf_attach(dmabuf, dma);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, attach);
	KUNIT_EXPECT_EQ(test, list_count_nodes(&obj->users), 2);
	KUNIT_EXPECT_EQ(test, obj->need.flags, 0);
	KUNIT_EXPECT_NULL(test, obj->physmem);

	sgt = dma_buf_map_attachment_unlocked(attach, DMA_BIDIRECTIONAL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sgt);
	KUNIT_EXPECT_NOT_NULL(test, obj->physmem);
	KUNIT_EXPECT_EQ(test, obj->need.flags, VCM_CONSTRAINT_CONTIGUOUS);
	KUNIT_EXPECT_EQ(test, obj->map_count, 1);
	KUNIT_EXPECT_EQ(test, list_count_nodes(&obj->dma_maps), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->maps), 1);
	/* One range for a device without an IOMMU, in its segments. */
	KUNIT_EXPECT_EQ(test, drm_prime_get_contiguous_size(sgt), TEST_SIZE);

	/* The mapping is cached (cache_sgt_mapping) until the detach. */
	dma_buf_unmap_attachment_unlocked(attach, sgt, DMA_BIDIRECTIONAL);
	KUNIT_EXPECT_EQ(test, obj->map_count, 1);
	dma_buf_detach(dmabuf, attach);
	KUNIT_EXPECT_EQ(test, obj->map_count, 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&obj->dma_maps));
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->maps), 0);
	KUNIT_EXPECT_EQ(test, list_count_nodes(&obj->users), 1);
}

/*
 * A write-combined object of the context's device, exported, and the
 * attachment of a DMA device @name to it.
 */
static struct dma_buf_attachment *
drm_gem_vcm_test_wc_attach(struct kunit *test, const char *name,
			   struct drm_gem_vcm_object **objp)
{
	struct dma_buf_attachment *attach;
	struct drm_gem_vcm_object *obj;
	struct dma_buf *dmabuf;

	dmabuf = drm_gem_vcm_test_export(test, &obj);
	obj->map_wc = true;
	attach = dma_buf_attach(dmabuf, drm_gem_vcm_test_dma_device(test, name));
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, attach);
	*objp = obj;
	return attach;
}

/*
 * A write-combined object is refused to importers' streaming DMA
 * mappings, which assume cacheable memory; it is still attached, and
 * detached.
 */
static void drm_gem_vcm_test_prime_wc(struct kunit *test)
{
	struct dma_buf_attachment *attach;
	struct drm_gem_vcm_object *obj;
	struct dma_buf *dmabuf;
	struct sg_table *sgt;

	attach = drm_gem_vcm_test_wc_attach(test, "drm-gem-vcm-wc", &obj);
	dmabuf = attach->dmabuf;
	sgt = dma_buf_map_attachment_unlocked(attach, DMA_BIDIRECTIONAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(sgt), -EINVAL);
	KUNIT_EXPECT_EQ(test, obj->map_count, 0);
	dma_buf_detach(dmabuf, attach);
	KUNIT_EXPECT_EQ(test, list_count_nodes(&obj->users), 1);
}

/*
 * A driver that lets importers have its write-combined objects
 * (dma_map_wc, vgem's): the mapping is made, the linear alias cleaned
 * first.
 */
static void drm_gem_vcm_test_prime_wc_allowed(struct kunit *test)
{
	struct drm_gem_vcm_context *ctx = test->priv;
	struct dma_buf_attachment *attach;
	struct drm_gem_vcm_object *obj;
	struct dma_buf *dmabuf;
	struct sg_table *sgt;

	ctx->dma_map_wc = true;
	attach = drm_gem_vcm_test_wc_attach(test, "drm-gem-vcm-wc-ok", &obj);
	dmabuf = attach->dmabuf;
	sgt = dma_buf_map_attachment_unlocked(attach, DMA_BIDIRECTIONAL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sgt);
	KUNIT_EXPECT_TRUE(test, obj->wc_clean);
	KUNIT_EXPECT_EQ(test, obj->map_count, 1);
	dma_buf_unmap_attachment_unlocked(attach, sgt, DMA_BIDIRECTIONAL);
	dma_buf_detach(dmabuf, attach);
	KUNIT_EXPECT_EQ(test, obj->map_count, 0);
}

/*
 * An importing driver syncs its mapped attachment around its device's
 * DMA with drm_gem_vcm_prime_sync(): the helper's own table of the
 * mapping, for that device and in its direction, which DMA-API
 * debugging checks (a table synced that is not mapped for the device,
 * or in another direction, warns).  The contents stay as the CPU wrote
 * them; QEMU models no caches, so a missing sync is not seen here.  An
 * attachment not mapped has nothing to sync: nothing is placed or
 * allocated for it.
 */
static void drm_gem_vcm_test_prime_sync(struct kunit *test)
{
	struct dma_buf_attachment *attach;
	struct drm_gem_vcm_dma_map *dmap;
	struct drm_gem_vcm_object *obj;
	struct dma_buf *dmabuf;
	struct iosys_map map;
	struct sg_table *sgt;
	struct device *dma;

	dma = drm_gem_vcm_test_dma_device(test, "drm-gem-vcm-sync");
	dmabuf = drm_gem_vcm_test_export(test, &obj);
	attach = dma_buf_attach(dmabuf, dma);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, attach);
	drm_gem_vcm_prime_sync(attach, false);
	drm_gem_vcm_prime_sync(attach, true);
	KUNIT_EXPECT_NULL(test, attach->priv);
	KUNIT_EXPECT_NULL(test, obj->physmem);
	KUNIT_EXPECT_EQ(test, obj->need.flags, 0);

	sgt = dma_buf_map_attachment_unlocked(attach, DMA_BIDIRECTIONAL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sgt);
	dmap = attach->priv;
	KUNIT_ASSERT_NOT_NULL(test, dmap);
	KUNIT_EXPECT_PTR_EQ(test, dmap->dev, dma);
	KUNIT_ASSERT_EQ(test, drm_gem_vmap_unlocked(&obj->base, &map), 0);
	iosys_map_memset(&map, 0, TEST_BYTE, TEST_SIZE);
	drm_gem_vcm_prime_sync(attach, false);
	drm_gem_vcm_prime_sync(attach, true);
	KUNIT_EXPECT_EQ(test, iosys_map_rd(&map, 0, u8), TEST_BYTE);
	KUNIT_EXPECT_EQ(test, iosys_map_rd(&map, TEST_SIZE - 1, u8), TEST_BYTE);
	KUNIT_EXPECT_PTR_EQ(test, attach->priv, dmap);
	KUNIT_EXPECT_EQ(test, obj->map_count, 1);
	drm_gem_vunmap_unlocked(&obj->base, &map);

	dma_buf_unmap_attachment_unlocked(attach, sgt, DMA_BIDIRECTIONAL);
	dma_buf_detach(dmabuf, attach);
	KUNIT_EXPECT_EQ(test, obj->map_count, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&obj->ctx->maps), 0);
}

/*
 * Another device with a CPU context imports without mapping: an object
 * of its own, attached, holding the dma-buf, listed among its imports,
 * never exported again.  Its unplug gives the attachment back and takes
 * no more imports; the import holds the dma-buf until it is freed.
 */
static void drm_gem_vcm_test_prime_import(struct kunit *test)
{
	struct drm_gem_vcm_context *other = drm_gem_vcm_test_importer(test);
	struct drm_gem_vcm_object *obj, *imp;
	struct drm_gem_object *gem;
	struct dma_buf *dmabuf;
	long count;

	dmabuf = drm_gem_vcm_test_export(test, &obj);
	count = file_count(dmabuf->file);

	gem = drm_gem_vcm_prime_import(other, dmabuf);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, gem);
	imp = to_drm_gem_vcm_obj(gem);
	KUNIT_EXPECT_PTR_NE(test, imp, obj);
	KUNIT_EXPECT_TRUE(test, imp->imported);
	KUNIT_EXPECT_PTR_EQ(test, gem->import_attach, imp->attach);
	KUNIT_EXPECT_PTR_EQ(test, gem->resv, dmabuf->resv);
	KUNIT_EXPECT_NULL(test, imp->sgt);
	KUNIT_EXPECT_EQ(test, file_count(dmabuf->file), count + 1);
	KUNIT_EXPECT_EQ(test, list_count_nodes(&other->imports), 1);
	KUNIT_EXPECT_EQ(test, list_count_nodes(&obj->users), 2);
	KUNIT_EXPECT_EQ(test, obj->map_count, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(drm_gem_vcm_prime_export(gem, O_RDWR)),
			-EINVAL);

	drm_gem_vcm_unplug(other);
	KUNIT_EXPECT_NULL(test, gem->import_attach);
	KUNIT_EXPECT_NULL(test, imp->attach);
	KUNIT_EXPECT_PTR_EQ(test, imp->revoked, dmabuf);
	KUNIT_EXPECT_TRUE(test, list_empty(&other->imports));
	KUNIT_EXPECT_EQ(test, list_count_nodes(&obj->users), 1);
	KUNIT_EXPECT_EQ(test, file_count(dmabuf->file), count + 1);
	KUNIT_EXPECT_EQ(test,
			PTR_ERR_OR_ZERO(drm_gem_vcm_prime_import(other, dmabuf)),
			-ENODEV);

	drm_gem_object_put(gem);
	KUNIT_EXPECT_EQ(test, file_count(dmabuf->file), count);
}

/*
 * An object and its imports share one lock, the object's reservation
 * lock, which is the dma-buf's.  The import's vmap is the exporter's
 * shared kernel mapping, made and dropped under that one lock, which
 * the DRM core holds around both, and which the importer's unplug leaves
 * to drop; the dma-buf's CPU access calls and the unplug take the lock.
 * Under lockdep, one of these paths that took it twice would be
 * reported.
 */
static void drm_gem_vcm_test_import_lock(struct kunit *test)
{
	struct drm_gem_vcm_context *other = drm_gem_vcm_test_importer(test);
	struct dma_buf_attachment *attach;
	struct drm_gem_vcm_object *obj;
	struct iosys_map own, map;
	struct drm_gem_object *gem;
	struct dma_buf *dmabuf;
	struct sg_table *sgt;
	struct device *dma;

	dma = drm_gem_vcm_test_dma_device(test, "drm-gem-vcm-cpu-access");
	dmabuf = drm_gem_vcm_test_export(test, &obj);
	gem = drm_gem_vcm_prime_import(other, dmabuf);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, gem);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							drm_gem_object_put_wrapper,
							gem), 0);
	KUNIT_EXPECT_PTR_EQ(test, gem->resv, obj->base.resv);

	KUNIT_ASSERT_EQ(test, drm_gem_vmap_unlocked(&obj->base, &own), 0);
	KUNIT_ASSERT_EQ(test, drm_gem_vmap_unlocked(gem, &map), 0);
	KUNIT_EXPECT_PTR_EQ(test, map.vaddr, own.vaddr);
	KUNIT_EXPECT_EQ(test, obj->vmap_use_count, 2);

	attach = dma_buf_attach(dmabuf, dma);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, attach);
	sgt = dma_buf_map_attachment_unlocked(attach, DMA_BIDIRECTIONAL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sgt);
	KUNIT_EXPECT_EQ(test, dma_buf_begin_cpu_access(dmabuf, DMA_TO_DEVICE), 0);
	memset(own.vaddr, 0x5a, TEST_SIZE);
	KUNIT_EXPECT_EQ(test, dma_buf_end_cpu_access(dmabuf, DMA_TO_DEVICE), 0);
	dma_buf_unmap_attachment_unlocked(attach, sgt, DMA_BIDIRECTIONAL);
	dma_buf_detach(dmabuf, attach);

	/* Once the importer gave its attachment back, its vmap still goes. */
	drm_gem_vcm_unplug(other);
	KUNIT_EXPECT_NULL(test, gem->import_attach);
	drm_gem_vunmap_unlocked(gem, &map);
	KUNIT_EXPECT_EQ(test, obj->vmap_use_count, 1);
	drm_gem_vunmap_unlocked(&obj->base, &own);
	KUNIT_EXPECT_EQ(test, obj->vmap_use_count, 0);
}

/*
 * An import stands for its attachment's dma-buf, and once its device
 * gave the attachment back (unplug) for the one it holds; an object of
 * the helper's own stands for none.  Attached, the import is resident
 * and its kernel mapping is the exporter's, which it reads and drops
 * through the attachment's dma-buf; given back, it is not resident, and
 * a new kernel mapping is refused with -EINVAL.
 */
static void drm_gem_vcm_test_import_dmabuf(struct kunit *test)
{
	struct drm_gem_vcm_context *other = drm_gem_vcm_test_importer(test);
	struct drm_gem_vcm_object *obj, *imp;
	struct iosys_map own, map;
	struct drm_gem_object *gem;
	struct dma_buf *dmabuf;

	dmabuf = drm_gem_vcm_test_export(test, &obj);
	KUNIT_EXPECT_NULL(test, drm_gem_vcm_import_dmabuf(obj));
	gem = drm_gem_vcm_prime_import(other, dmabuf);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, gem);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							drm_gem_object_put_wrapper,
							gem), 0);
	imp = to_drm_gem_vcm_obj(gem);
	KUNIT_EXPECT_PTR_EQ(test, drm_gem_vcm_import_dmabuf(imp), dmabuf);
	KUNIT_EXPECT_EQ(test, drm_gem_vcm_status(imp), DRM_GEM_OBJECT_RESIDENT);

	KUNIT_ASSERT_EQ(test, drm_gem_vmap_unlocked(&obj->base, &own), 0);
	iosys_map_memset(&own, 0, TEST_BYTE, TEST_SIZE);
	KUNIT_ASSERT_EQ(test, drm_gem_vmap_unlocked(gem, &map), 0);
	KUNIT_EXPECT_EQ(test, iosys_map_rd(&map, TEST_SIZE - 1, u8), TEST_BYTE);
	KUNIT_EXPECT_EQ(test, obj->vmap_use_count, 2);
	drm_gem_vunmap_unlocked(gem, &map);
	KUNIT_EXPECT_EQ(test, obj->vmap_use_count, 1);
	drm_gem_vunmap_unlocked(&obj->base, &own);
	KUNIT_EXPECT_EQ(test, obj->vmap_use_count, 0);

	drm_gem_vcm_unplug(other);
	KUNIT_EXPECT_PTR_EQ(test, drm_gem_vcm_import_dmabuf(imp), dmabuf);
	KUNIT_EXPECT_EQ(test, drm_gem_vcm_status(imp), 0);
	KUNIT_EXPECT_EQ(test, drm_gem_vmap_unlocked(gem, &map), -EINVAL);
	KUNIT_EXPECT_EQ(test, obj->vmap_use_count, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&obj->ctx->maps), 0);
}

/*
 * drmm_gem_vcm_init() fails as VCM does and leaves the context as it
 * was, to be set up again: no one-to-one VCM exists below a DMA mask
 * that reaches no whole page; a DMA VCM takes no device without DMA, and
 * the one made for it is freed again (VCM's gauges, checked after the
 * run, would count it).  With its DMA set up, the device has its VCM.
 */
static void drm_gem_vcm_test_init_fail(struct kunit *test)
{
	struct drm_gem_vcm_test_device *tdev;
	struct device *dev;
	int ret;

	dev = drm_gem_vcm_test_dma_device(test, "drm-gem-vcm-init");
	tdev = drm_gem_vcm_test_drm(test, dev, &drm_gem_vcm_test_driver);

	dev->coherent_dma_mask = DMA_BIT_MASK(8);
	ret = drmm_gem_vcm_init(&tdev->drm, &tdev->ctx, DRM_GEM_VCM_ONE_TO_ONE);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	KUNIT_EXPECT_NULL(test, tdev->ctx.drm);

	dev->dma_mask = NULL;
	ret = drmm_gem_vcm_init(&tdev->drm, &tdev->ctx, DRM_GEM_VCM_DMA);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	KUNIT_EXPECT_NULL(test, tdev->ctx.drm);
	KUNIT_EXPECT_NULL(test, tdev->ctx.vcm);

	dev->coherent_dma_mask = DMA_BIT_MASK(64);
	dev->dma_mask = &dev->coherent_dma_mask;
	ret = drmm_gem_vcm_init(&tdev->drm, &tdev->ctx, DRM_GEM_VCM_DMA);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, vcm_get_type(tdev->ctx.vcm), VCM_DMA);
}

/*
 * drmm_gem_vcm_init() refuses a context set up already (-EBUSY), a kind
 * it does not know (-EINVAL), and a CPU context for a device the kernel
 * VCM has already (VCM associates a device with a VCM once: -EINVAL).
 * Each leaves the context it was given as it was; the kernel VCM,
 * shared, is not freed by the failure, and objects still map through it.
 */
static void drm_gem_vcm_test_init_refused(struct kunit *test)
{
	struct drm_gem_vcm_context *ctx = test->priv;
	struct vcm_avcm *avcm = ctx->avcm, *held;
	struct drm_gem_vcm_test_device *tdev;
	struct drm_gem_vcm_object *obj;
	struct iosys_map map;
	struct device *dev;
	int ret;

	ret = drmm_gem_vcm_init(ctx->drm, ctx, DRM_GEM_VCM_DMA);
	KUNIT_EXPECT_EQ(test, ret, -EBUSY);
	KUNIT_EXPECT_EQ(test, ctx->kind, DRM_GEM_VCM_CPU);
	KUNIT_EXPECT_PTR_EQ(test, ctx->vcm, vcm_kernel());
	KUNIT_EXPECT_PTR_EQ(test, ctx->avcm, avcm);

	dev = kunit_device_register(test, "drm-gem-vcm-init-refused");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	tdev = drm_gem_vcm_test_drm(test, dev, &drm_gem_vcm_test_driver);
	ret = drmm_gem_vcm_init(&tdev->drm, &tdev->ctx,
				(enum drm_gem_vcm_kind)(DRM_GEM_VCM_ONE_TO_ONE + 1));
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	KUNIT_EXPECT_NULL(test, tdev->ctx.drm);
	KUNIT_EXPECT_NULL(test, tdev->ctx.vcm);

	held = vcm_assoc(vcm_kernel(), dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, held);
	ret = drmm_gem_vcm_init(&tdev->drm, &tdev->ctx, DRM_GEM_VCM_CPU);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	KUNIT_EXPECT_NULL(test, tdev->ctx.drm);
	KUNIT_EXPECT_NULL(test, tdev->ctx.vcm);
	KUNIT_EXPECT_NULL(test, tdev->ctx.avcm);
	KUNIT_EXPECT_EQ(test, vcm_deassoc(held), 0);

	obj = drm_gem_vcm_test_create(test, TEST_SIZE);
	KUNIT_ASSERT_EQ(test, drm_gem_vmap_unlocked(&obj->base, &map), 0);
	iosys_map_memset(&map, 0, TEST_BYTE, TEST_SIZE);
	KUNIT_EXPECT_EQ(test, iosys_map_rd(&map, TEST_SIZE - 1, u8), TEST_BYTE);
	drm_gem_vunmap_unlocked(&obj->base, &map);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->maps), 0);
}

/*
 * drm_gem_vcm_unplug() does nothing for NULL or a context
 * drmm_gem_vcm_init() did not set up (a driver's remove after a probe
 * that failed first): the context is not marked unplugged, and once set
 * up it imports.
 */
static void drm_gem_vcm_test_unplug_unset(struct kunit *test)
{
	struct drm_gem_vcm_test_device *tdev;
	struct drm_gem_vcm_object *obj;
	struct drm_gem_object *gem;
	struct dma_buf *dmabuf;
	struct device *dev;

	dev = kunit_device_register(test, "drm-gem-vcm-unset");
	tdev = drm_gem_vcm_test_drm(test, dev, &drm_gem_vcm_test_driver);
	drm_gem_vcm_unplug(NULL);
	drm_gem_vcm_unplug(&tdev->ctx);
	KUNIT_EXPECT_FALSE(test, tdev->ctx.imports_revoked);
	KUNIT_EXPECT_NULL(test, tdev->ctx.avcm);

	KUNIT_ASSERT_EQ(test, drmm_gem_vcm_init(&tdev->drm, &tdev->ctx,
						DRM_GEM_VCM_CPU), 0);
	dmabuf = drm_gem_vcm_test_export(test, &obj);
	gem = drm_gem_vcm_prime_import(&tdev->ctx, dmabuf);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, gem);
	KUNIT_EXPECT_EQ(test, list_count_nodes(&tdev->ctx.imports), 1);
	drm_gem_object_put(gem);
	KUNIT_EXPECT_EQ(test, atomic_read(&tdev->ctx.objects), 0);
	KUNIT_EXPECT_EQ(test, list_count_nodes(&obj->users), 1);
}

/* The context of @kind of a DRM device of @drv on a DMA device @name. */
static struct drm_gem_vcm_context *
drm_gem_vcm_test_context(struct kunit *test, const char *name,
			 const struct drm_driver *drv,
			 enum drm_gem_vcm_kind kind)
{
	struct drm_gem_vcm_test_device *tdev;
	int ret;

	tdev = drm_gem_vcm_test_drm(test, drm_gem_vcm_test_dma_device(test, name),
				    drv);
	ret = drmm_gem_vcm_init(&tdev->drm, &tdev->ctx, kind);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return &tdev->ctx;
}

KUNIT_DEFINE_ACTION_WRAPPER(fput_sync_wrapper, __fput_sync, struct file *);

/*
 * A client's file of @drm, as if it had opened the device, closed when
 * the test ends: then, not later from the delayed fput of a kthread.
 */
static struct file *drm_gem_vcm_test_file(struct kunit *test,
					  struct drm_device *drm)
{
	struct file *file = mock_drm_getfile(drm->primary, O_RDWR);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, file);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fput_sync_wrapper,
							file), 0);
	return file;
}

/*
 * A dumb buffer of a device without an IOMMU: an object with the
 * device's needs, its handle the client's, its pitch the width's bytes
 * rounded up.  One larger than RAM cannot be one range: it is refused
 * with -E2BIG, no handle made and no object left.
 */
static void drm_gem_vcm_test_dumb_create(struct kunit *test)
{
	struct drm_mode_create_dumb args = {
		.width = 101, .height = 64, .bpp = 12,
	};
	struct drm_gem_vcm_context *ctx;
	struct drm_gem_object *gem;
	struct drm_file *file;

	ctx = drm_gem_vcm_test_context(test, "drm-gem-vcm-one-to-one",
				       &drm_gem_vcm_test_driver,
				       DRM_GEM_VCM_ONE_TO_ONE);
	file = drm_gem_vcm_test_file(test, ctx->drm)->private_data;

	KUNIT_ASSERT_EQ(test, drm_gem_vcm_dumb_create(ctx, file, &args), 0);
	KUNIT_EXPECT_EQ(test, args.pitch, 152);
	KUNIT_EXPECT_EQ(test, args.size, PAGE_ALIGN(152 * 64));
	gem = drm_gem_object_lookup(file, args.handle);
	KUNIT_ASSERT_NOT_NULL(test, gem);
	KUNIT_EXPECT_EQ(test, to_drm_gem_vcm_obj(gem)->need.flags,
			VCM_CONSTRAINT_CONTIGUOUS | VCM_CONSTRAINT_LIMIT);
	drm_gem_object_put(gem);

	args = (struct drm_mode_create_dumb) {
		.width = PAGE_SIZE / 4, .height = totalram_pages() + 1, .bpp = 32,
	};
	KUNIT_EXPECT_EQ(test, drm_gem_vcm_dumb_create(ctx, file, &args), -E2BIG);
	KUNIT_EXPECT_EQ(test, args.pitch, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, args.handle, 0);
	/* The first buffer's, which its handle holds. */
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->objects), 1);
}

/*
 * @dmabuf imported by @ctx, put when the case ends, with a handle in a
 * new DRM file @file of @ctx's device and its fake offset @offset, ready
 * to be mapped through that file.
 */
static struct drm_gem_object *
drm_gem_vcm_test_import_mappable(struct kunit *test,
				 struct drm_gem_vcm_context *ctx,
				 struct dma_buf *dmabuf, struct file **file,
				 unsigned long *offset)
{
	struct drm_gem_object *gem = drm_gem_vcm_prime_import(ctx, dmabuf);
	u32 handle;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, gem);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							drm_gem_object_put_wrapper,
							gem), 0);
	*file = drm_gem_vcm_test_file(test, ctx->drm);
	KUNIT_ASSERT_EQ(test, drm_gem_handle_create((*file)->private_data, gem,
						    &handle), 0);
	KUNIT_ASSERT_EQ(test, drm_gem_create_mmap_offset(gem), 0);
	*offset = drm_vma_node_offset_addr(&gem->vma_node);
	return gem;
}

/*
 * A process maps an import through its exporter: the import's mmap hands
 * the VMA over to the dma-buf, whose pages the exporter's fault handler
 * puts in, and keeps no reference of the import for it.  Once the
 * importer gave its attachment back (drm_gem_vcm_unplug(), here without
 * the drm_dev_unplug() that stops a new mmap first, as in a race with
 * it), the import has nothing to map: -EINVAL.
 */
static void drm_gem_vcm_test_mmap_import(struct kunit *test)
{
	struct drm_gem_vcm_context *other = drm_gem_vcm_test_importer(test);
	struct drm_gem_vcm_object *obj;
	struct drm_gem_object *gem;
	unsigned long addr, offset;
	struct dma_buf *dmabuf;
	struct iosys_map map;
	struct file *file;
	unsigned int refs;
	u8 __user *last;
	u8 byte = 0;

	dmabuf = drm_gem_vcm_test_export(test, &obj);
	KUNIT_ASSERT_EQ(test, drm_gem_vmap_unlocked(&obj->base, &map), 0);
	iosys_map_memset(&map, 0, TEST_BYTE, TEST_SIZE);
	drm_gem_vunmap_unlocked(&obj->base, &map);
	gem = drm_gem_vcm_test_import_mappable(test, other, dmabuf, &file, &offset);
	refs = kref_read(&gem->refcount);

	addr = kunit_vm_mmap(test, file, 0, TEST_SIZE, PROT_READ | PROT_WRITE,
			     MAP_SHARED, offset);
	KUNIT_ASSERT_TRUE(test, addr && !IS_ERR_VALUE(addr));
	KUNIT_EXPECT_EQ(test, kref_read(&gem->refcount), refs);
	KUNIT_EXPECT_EQ(test, atomic_read(&obj->user_vmas), 1);
	last = (u8 __user *)(addr + TEST_SIZE - 1);
	KUNIT_EXPECT_EQ(test, copy_from_user(&byte, last, 1), 0);
	KUNIT_EXPECT_EQ(test, byte, TEST_BYTE);
	/* Here, not when the test's thread exits after the test ended. */
	KUNIT_EXPECT_EQ(test, vm_munmap(addr, TEST_SIZE), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&obj->user_vmas), 0);

	drm_gem_vcm_unplug(other);
	addr = kunit_vm_mmap(test, file, 0, TEST_SIZE, PROT_READ, MAP_SHARED,
			     offset);
	KUNIT_EXPECT_EQ(test, addr, (unsigned long)-EINVAL);
	KUNIT_EXPECT_EQ(test, kref_read(&gem->refcount), refs);
}

/*
 * A process maps an object through its dma-buf at a page offset: the
 * object's fake offset is made first and added to it, and the page the
 * process reads is the object's page at that offset.  The VMA is counted
 * until it goes.  One that reaches past the object is refused (-EINVAL)
 * by the dma-buf core: the helper's mmap does not check it again.
 */
static void drm_gem_vcm_test_dmabuf_mmap(struct kunit *test)
{
	struct drm_gem_vcm_object *obj;
	struct dma_buf *dmabuf;
	struct iosys_map map;
	unsigned long addr;
	u8 byte = 0;

	dmabuf = drm_gem_vcm_test_export(test, &obj);
	KUNIT_ASSERT_EQ(test, drm_gem_vmap_unlocked(&obj->base, &map), 0);
	iosys_map_memset(&map, 0, 0, PAGE_SIZE);
	iosys_map_memset(&map, PAGE_SIZE, TEST_BYTE, PAGE_SIZE);
	drm_gem_vunmap_unlocked(&obj->base, &map);

	/* Past its end, refused by the dma-buf core before the helper. */
	addr = kunit_vm_mmap(test, dmabuf->file, 0, 2 * PAGE_SIZE, PROT_READ,
			     MAP_SHARED, TEST_SIZE - PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, addr, (unsigned long)-EINVAL);
	KUNIT_EXPECT_EQ(test, atomic_read(&obj->user_vmas), 0);

	addr = kunit_vm_mmap(test, dmabuf->file, 0, PAGE_SIZE, PROT_READ,
			     MAP_SHARED, PAGE_SIZE);
	KUNIT_ASSERT_TRUE(test, addr && !IS_ERR_VALUE(addr));
	KUNIT_EXPECT_NE(test, drm_vma_node_start(&obj->base.vma_node), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&obj->user_vmas), 1);
	KUNIT_EXPECT_EQ(test, copy_from_user(&byte, (u8 __user *)addr, 1), 0);
	KUNIT_EXPECT_EQ(test, byte, TEST_BYTE);
	KUNIT_EXPECT_EQ(test, vm_munmap(addr, PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&obj->user_vmas), 0);
}

/*
 * An object larger than the device's whole space of fake offsets (one
 * with no memory yet costs nothing) can have no offset: its dma-buf's
 * mmap() fails with the offset manager's -ENOSPC before the object's
 * mmap runs, and nothing is allocated, counted or held.
 */
static void drm_gem_vcm_test_dmabuf_mmap_nospace(struct kunit *test)
{
	u64 size = ((u64)DRM_FILE_PAGE_OFFSET_SIZE + 1) << PAGE_SHIFT;
	struct drm_gem_vcm_object *obj;
	struct dma_buf *dmabuf;
	unsigned long addr;
	unsigned int refs;

	if (size > SIZE_MAX)
		kunit_skip(test, "the space of fake offsets is all of size_t");
	obj = drm_gem_vcm_test_create(test, size);
	dmabuf = drm_gem_vcm_prime_export(&obj->base, O_RDWR);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dmabuf);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, dma_buf_put_wrapper,
							dmabuf), 0);
	refs = kref_read(&obj->base.refcount);

	addr = kunit_vm_mmap(test, dmabuf->file, 0, PAGE_SIZE, PROT_READ,
			     MAP_SHARED, 0);
	KUNIT_EXPECT_EQ(test, addr, (unsigned long)-ENOSPC);
	KUNIT_EXPECT_EQ(test, drm_vma_node_start(&obj->base.vma_node), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&obj->user_vmas), 0);
	KUNIT_EXPECT_NULL(test, obj->physmem);
	KUNIT_EXPECT_EQ(test, kref_read(&obj->base.refcount), refs);
}

#define TEST_FOREIGN_ORDER	1
#define TEST_FOREIGN		(PAGE_SIZE << TEST_FOREIGN_ORDER)

/*
 * Another exporter's dma-buf, of two pages of its own: its mapping for a
 * device covers @mapped bytes of them, its kernel mapping is I/O memory
 * (a device's BAR, say), and it maps nothing for processes (its mmap
 * fails with -ENXIO).  It counts its importers' calls.
 */
struct drm_gem_vcm_test_exporter {
	struct page *pages;
	size_t mapped;
	bool reversed;
	unsigned int maps;
	unsigned int unmaps;
	unsigned int vmaps;
	unsigned int vunmaps;
	unsigned int mmaps;
};

static struct sg_table *
drm_gem_vcm_test_foreign_map(struct dma_buf_attachment *attach,
			     enum dma_data_direction dir)
{
	struct drm_gem_vcm_test_exporter *exp = attach->dmabuf->priv;
	struct sg_table *sgt;
	int ret;

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	ret = sg_alloc_table(sgt, exp->reversed ? 2 : 1, GFP_KERNEL);
	if (ret)
		goto err_free;
	if (exp->reversed) {
		/* Its two pages, the second first: not one range. */
		sg_set_page(sgt->sgl, exp->pages + 1, PAGE_SIZE, 0);
		sg_set_page(sg_next(sgt->sgl), exp->pages, PAGE_SIZE, 0);
	} else {
		sg_set_page(sgt->sgl, exp->pages, exp->mapped, 0);
	}
	ret = dma_map_sgtable(attach->dev, sgt, dir, 0);
	if (ret)
		goto err_table;
	exp->maps++;
	return sgt;

err_table:
	sg_free_table(sgt);
err_free:
	kfree(sgt);
	return ERR_PTR(ret);
}

static void drm_gem_vcm_test_foreign_unmap(struct dma_buf_attachment *attach,
					   struct sg_table *sgt,
					   enum dma_data_direction dir)
{
	struct drm_gem_vcm_test_exporter *exp = attach->dmabuf->priv;

	dma_unmap_sgtable(attach->dev, sgt, dir, 0);
	sg_free_table(sgt);
	kfree(sgt);
	exp->unmaps++;
}

static int drm_gem_vcm_test_foreign_vmap(struct dma_buf *dmabuf,
					 struct iosys_map *map)
{
	struct drm_gem_vcm_test_exporter *exp = dmabuf->priv;
	/* Never accessed: the helper refuses I/O memory first. */
	void __iomem *vaddr = (void __iomem __force *)page_address(exp->pages);

	iosys_map_set_vaddr_iomem(map, vaddr);
	exp->vmaps++;
	return 0;
}

static void drm_gem_vcm_test_foreign_vunmap(struct dma_buf *dmabuf,
					    struct iosys_map *map)
{
	struct drm_gem_vcm_test_exporter *exp = dmabuf->priv;

	exp->vunmaps++;
}

static int drm_gem_vcm_test_foreign_mmap(struct dma_buf *dmabuf,
					 struct vm_area_struct *vma)
{
	struct drm_gem_vcm_test_exporter *exp = dmabuf->priv;

	exp->mmaps++;
	return -ENXIO;
}

static void drm_gem_vcm_test_foreign_release(struct dma_buf *dmabuf)
{
	struct drm_gem_vcm_test_exporter *exp = dmabuf->priv;

	__free_pages(exp->pages, TEST_FOREIGN_ORDER);
	kfree(exp);
}

static const struct dma_buf_ops drm_gem_vcm_test_foreign_ops = {
	.map_dma_buf = drm_gem_vcm_test_foreign_map,
	.unmap_dma_buf = drm_gem_vcm_test_foreign_unmap,
	.release = drm_gem_vcm_test_foreign_release,
	.vmap = drm_gem_vcm_test_foreign_vmap,
	.vunmap = drm_gem_vcm_test_foreign_vunmap,
	.mmap = drm_gem_vcm_test_foreign_mmap,
};

/* Such a dma-buf, mapped in full, in *@expp; put when the test ends. */
static struct dma_buf *
drm_gem_vcm_test_foreign(struct kunit *test,
			 struct drm_gem_vcm_test_exporter **expp)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);
	struct drm_gem_vcm_test_exporter *exp;
	struct dma_buf *dmabuf = ERR_PTR(-ENOMEM);
	struct page *pages;

	exp = kzalloc(sizeof(*exp), GFP_KERNEL);
	pages = alloc_pages(GFP_KERNEL | __GFP_ZERO, TEST_FOREIGN_ORDER);
	if (exp && pages) {
		exp->pages = pages;
		exp->mapped = TEST_FOREIGN;
		exp_info.ops = &drm_gem_vcm_test_foreign_ops;
		exp_info.size = TEST_FOREIGN;
		exp_info.flags = O_RDWR;
		exp_info.priv = exp;
		dmabuf = dma_buf_export(&exp_info);
	}
	/* Once exported, they are the dma-buf's: its release frees them. */
	if (IS_ERR(dmabuf)) {
		if (pages)
			__free_pages(pages, TEST_FOREIGN_ORDER);
		kfree(exp);
	}
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dmabuf);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, dma_buf_put_wrapper,
							dmabuf), 0);
	*expp = exp;
	return dmabuf;
}

/*
 * A CPU device's import is the exporter's kernel mapping.  Of I/O memory
 * it is refused with -EOPNOTSUPP, as the helper's users read and write
 * it with plain loads and stores, and given back to the exporter at once.
 */
static void drm_gem_vcm_test_vmap_iomem(struct kunit *test)
{
	struct drm_gem_vcm_context *ctx = test->priv;
	struct drm_gem_vcm_test_exporter *exp;
	struct drm_gem_object *gem;
	struct dma_buf *dmabuf;
	struct iosys_map map;

	dmabuf = drm_gem_vcm_test_foreign(test, &exp);
	gem = drm_gem_vcm_prime_import(ctx, dmabuf);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, gem);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							drm_gem_object_put_wrapper,
							gem), 0);
	KUNIT_EXPECT_EQ(test, drm_gem_vmap_unlocked(gem, &map), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, exp->vmaps, 1);
	KUNIT_EXPECT_EQ(test, exp->vunmaps, 1);
	KUNIT_EXPECT_EQ(test, dmabuf->vmapping_counter, 0);
}

/*
 * A process maps an import whose exporter refuses it: the import's mmap
 * hands the VMA over to the exporter (dma_buf_mmap()), which is asked
 * once, and mmap() fails with the exporter's errno.  The reference the
 * DRM core took for the VMA is the core's to drop: the import's
 * references are as before, and it stays attached and resident.
 */
static void drm_gem_vcm_test_mmap_import_refused(struct kunit *test)
{
	struct drm_gem_vcm_context *ctx = test->priv;
	struct drm_gem_vcm_test_exporter *exp;
	struct drm_gem_object *gem;
	unsigned long addr, offset;
	struct dma_buf *dmabuf;
	struct file *file;
	unsigned int refs;

	dmabuf = drm_gem_vcm_test_foreign(test, &exp);
	gem = drm_gem_vcm_test_import_mappable(test, ctx, dmabuf, &file, &offset);
	refs = kref_read(&gem->refcount);

	addr = kunit_vm_mmap(test, file, 0, TEST_FOREIGN, PROT_READ, MAP_SHARED,
			     offset);
	KUNIT_EXPECT_EQ(test, addr, (unsigned long)-ENXIO);
	KUNIT_EXPECT_EQ(test, exp->mmaps, 1);
	KUNIT_EXPECT_EQ(test, kref_read(&gem->refcount), refs);
	KUNIT_EXPECT_NOT_NULL(test, gem->import_attach);
	KUNIT_EXPECT_EQ(test, drm_gem_vcm_status(to_drm_gem_vcm_obj(gem)),
			DRM_GEM_OBJECT_RESIDENT);
}

/*
 * Only the helper's own dma-bufs are told as objects, by their ops: NULL
 * is none, and another exporter's dma-buf is none, whatever its private
 * data.
 */
static void drm_gem_vcm_test_dmabuf_object(struct kunit *test)
{
	struct drm_gem_vcm_test_exporter *exp;
	struct dma_buf *dmabuf;

	KUNIT_EXPECT_NULL(test, drm_gem_vcm_dmabuf_object(NULL,
							  &drm_gem_vcm_test_driver));
	dmabuf = drm_gem_vcm_test_foreign(test, &exp);
	KUNIT_EXPECT_NULL(test, drm_gem_vcm_dmabuf_object(dmabuf,
							  &drm_gem_vcm_test_driver));
}

static struct drm_gem_vcm_context *
drm_gem_vcm_test_gem_vcm_ctx(struct drm_device *drm)
{
	return &container_of(drm, struct drm_gem_vcm_test_device, drm)->ctx;
}

DEFINE_DRM_GEM_VCM_DRIVER_OPS(drm_gem_vcm_test)

/* A driver with the helper's dumb-buffer and PRIME import callbacks. */
static const struct drm_driver drm_gem_vcm_test_ops_driver = {
	.driver_features = DRIVER_GEM,
	.fops = &drm_gem_vcm_test_fops,
	DRM_GEM_VCM_DRIVER_OPS(drm_gem_vcm_test),
	.name = "drm-gem-vcm-test",
	.desc = "GEM VCM helper KUnit test",
	.major = 1,
};

/*
 * A device on a DMA VCM imports another exporter's dma-buf as the DMA
 * addresses of its own mapping, wrapped as a physmem of the dma-buf's
 * length.  A mapping that covers less of the dma-buf is refused with
 * -EINVAL: the DRM core unmaps and detaches, and no object is left.
 */
static void drm_gem_vcm_test_import_short(struct kunit *test)
{
	struct drm_gem_vcm_test_exporter *exp;
	struct drm_gem_vcm_context *ctx;
	struct drm_gem_object *gem;
	struct dma_buf *dmabuf;

	ctx = drm_gem_vcm_test_context(test, "drm-gem-vcm-dma-importer",
				       &drm_gem_vcm_test_ops_driver,
				       DRM_GEM_VCM_DMA);
	dmabuf = drm_gem_vcm_test_foreign(test, &exp);

	gem = drm_gem_vcm_prime_import(ctx, dmabuf);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, gem);
	KUNIT_EXPECT_EQ(test,
			vcm_get_physmem_len(to_drm_gem_vcm_obj(gem)->physmem),
			TEST_FOREIGN);
	drm_gem_object_put(gem);
	KUNIT_EXPECT_EQ(test, exp->unmaps, 1);

	exp->mapped = PAGE_SIZE;
	gem = drm_gem_vcm_prime_import(ctx, dmabuf);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(gem), -EINVAL);
	KUNIT_EXPECT_EQ(test, exp->maps, 2);
	KUNIT_EXPECT_EQ(test, exp->unmaps, 2);
	KUNIT_EXPECT_TRUE(test, list_empty(&dmabuf->attachments));
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->objects), 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&ctx->imports));
}

/*
 * A device without an IOMMU imports another exporter's dma-buf as one
 * DMA range: the import keeps its mapped table, whose one range covers
 * the dma-buf, and has no physmem.  A mapping of the whole dma-buf in
 * two ranges (its pages mapped in reverse order) is refused with
 * -EINVAL: the DRM core unmaps and detaches, and no object is left.
 */
static void drm_gem_vcm_test_import_one_to_one(struct kunit *test)
{
	struct drm_gem_vcm_test_exporter *exp;
	struct drm_gem_vcm_context *ctx;
	struct drm_gem_vcm_object *imp;
	struct drm_gem_object *gem;
	struct dma_buf *dmabuf;

	ctx = drm_gem_vcm_test_context(test, "drm-gem-vcm-one-to-one-importer",
				       &drm_gem_vcm_test_ops_driver,
				       DRM_GEM_VCM_ONE_TO_ONE);
	dmabuf = drm_gem_vcm_test_foreign(test, &exp);

	gem = drm_gem_vcm_prime_import(ctx, dmabuf);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, gem);
	imp = to_drm_gem_vcm_obj(gem);
	KUNIT_EXPECT_TRUE(test, imp->imported);
	KUNIT_EXPECT_NULL(test, imp->physmem);
	KUNIT_EXPECT_PTR_EQ(test, gem->import_attach, imp->attach);
	KUNIT_EXPECT_NOT_NULL(test, imp->sgt);
	if (imp->sgt)
		KUNIT_EXPECT_EQ(test, drm_prime_get_contiguous_size(imp->sgt),
				TEST_FOREIGN);
	KUNIT_EXPECT_EQ(test, list_count_nodes(&ctx->imports), 1);
	drm_gem_object_put(gem);
	KUNIT_EXPECT_EQ(test, exp->maps, 1);
	KUNIT_EXPECT_EQ(test, exp->unmaps, 1);
	KUNIT_EXPECT_TRUE(test, list_empty(&ctx->imports));

	exp->reversed = true;
	gem = drm_gem_vcm_prime_import(ctx, dmabuf);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(gem), -EINVAL);
	KUNIT_EXPECT_EQ(test, exp->maps, 2);
	KUNIT_EXPECT_EQ(test, exp->unmaps, 2);
	KUNIT_EXPECT_TRUE(test, list_empty(&dmabuf->attachments));
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->objects), 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&ctx->imports));
}

/* A driver that makes objects of one page at most: -E2BIG for larger. */
static struct drm_gem_object *
drm_gem_vcm_test_gem_create_small(struct drm_device *dev, size_t size)
{
	struct drm_gem_vcm_object *obj;

	if (size > PAGE_SIZE)
		return ERR_PTR(-E2BIG);
	obj = kzalloc(sizeof(*obj), GFP_KERNEL);
	return obj ? &obj->base : ERR_PTR(-ENOMEM);
}

static const struct drm_driver drm_gem_vcm_test_small_driver = {
	.driver_features = DRIVER_GEM,
	.fops = &drm_gem_vcm_test_fops,
	.gem_create_object = drm_gem_vcm_test_gem_create_small,
	DRM_GEM_VCM_DRIVER_OPS(drm_gem_vcm_test),
	.name = "drm-gem-vcm-test",
	.desc = "GEM VCM helper KUnit test",
	.major = 1,
};

/*
 * The driver's gem_create_object refuses an object: drm_gem_vcm_create()
 * and the imports of every kind of device give its errno back and leave
 * nothing: the physmem a DMA device made of its mapping goes again
 * (VCM's gauges, checked after the run, would count it), the exporter's
 * mappings and attachments go, and no object or import is counted.  The
 * DMA and one-to-one devices map the dma-buf, the CPU one does not.
 */
static void drm_gem_vcm_test_create_refused(struct kunit *test)
{
	static const enum drm_gem_vcm_kind kinds[] = {
		DRM_GEM_VCM_CPU, DRM_GEM_VCM_DMA, DRM_GEM_VCM_ONE_TO_ONE,
	};
	struct drm_gem_vcm_test_exporter *exp;
	struct drm_gem_vcm_context *ctx;
	struct drm_gem_vcm_object *obj;
	struct drm_gem_object *gem;
	struct dma_buf *dmabuf;
	unsigned int i;
	char name[32];

	dmabuf = drm_gem_vcm_test_foreign(test, &exp);
	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		snprintf(name, sizeof(name), "drm-gem-vcm-small.%u", i);
		ctx = drm_gem_vcm_test_context(test, name,
					       &drm_gem_vcm_test_small_driver,
					       kinds[i]);
		obj = drm_gem_vcm_create(ctx, PAGE_SIZE);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, obj);
		drm_gem_object_put(&obj->base);
		obj = drm_gem_vcm_create(ctx, 2 * PAGE_SIZE);
		KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(obj), -E2BIG);

		gem = drm_gem_vcm_prime_import(ctx, dmabuf);
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(gem), -E2BIG,
				    "kind %d", kinds[i]);
		KUNIT_EXPECT_EQ(test, exp->unmaps, exp->maps);
		KUNIT_EXPECT_TRUE(test, list_empty(&dmabuf->attachments));
		KUNIT_EXPECT_EQ(test, atomic_read(&ctx->objects), 0);
		KUNIT_EXPECT_TRUE(test, list_empty(&ctx->imports));
	}
	KUNIT_EXPECT_EQ(test, exp->maps, 2);
}

/*
 * The objects of this driver unplug their device when their last
 * reference goes, before the helper frees them: the unplug finds an
 * import whose last reference went and that its free has not unlisted
 * yet, as when a client's last put of an import races the device's
 * unplug.
 */
static void drm_gem_vcm_test_free_unplug(struct drm_gem_object *gem)
{
	struct drm_gem_vcm_object *obj = to_drm_gem_vcm_obj(gem);
	struct kunit *test = kunit_get_current_test();

	drm_gem_vcm_unplug(drm_gem_vcm_test_gem_vcm_ctx(gem->dev));
	/* Left to its free: no reference taken, the attachment kept. */
	if (test) {
		KUNIT_EXPECT_EQ(test, kref_read(&gem->refcount), 0);
		KUNIT_EXPECT_NOT_NULL(test, obj->attach);
		KUNIT_EXPECT_PTR_EQ(test, gem->import_attach, obj->attach);
		KUNIT_EXPECT_NULL(test, obj->revoked);
	}
	drm_gem_vcm_free(obj);
}

static const struct drm_gem_object_funcs drm_gem_vcm_test_unplug_funcs = {
	.free = drm_gem_vcm_test_free_unplug,
	.print_info = drm_gem_vcm_object_print_info,
	.status = drm_gem_vcm_object_status,
	.export = drm_gem_vcm_prime_export,
	.vmap = drm_gem_vcm_object_vmap,
	.vunmap = drm_gem_vcm_object_vunmap,
	.mmap = drm_gem_vcm_object_mmap,
	.vm_ops = &drm_gem_vcm_vm_ops,
};

static struct drm_gem_object *
drm_gem_vcm_test_gem_create_unplug(struct drm_device *dev, size_t size)
{
	struct drm_gem_vcm_object *obj = kzalloc(sizeof(*obj), GFP_KERNEL);

	if (!obj)
		return ERR_PTR(-ENOMEM);
	obj->base.funcs = &drm_gem_vcm_test_unplug_funcs;
	return &obj->base;
}

static const struct drm_driver drm_gem_vcm_test_unplug_driver = {
	.driver_features = DRIVER_GEM,
	.fops = &drm_gem_vcm_test_fops,
	.gem_create_object = drm_gem_vcm_test_gem_create_unplug,
	.name = "drm-gem-vcm-test",
	.desc = "GEM VCM helper KUnit test",
	.major = 1,
};

/*
 * An unplug that comes after an import's last reference went leaves the
 * import to its free: it takes no reference of it and does not give its
 * attachment back, which the free does.  The unplug still takes no more
 * imports; the exporter's users and the dma-buf's references are as
 * before the import.
 */
static void drm_gem_vcm_test_unplug_freeing(struct kunit *test)
{
	struct drm_gem_vcm_context *other;
	struct drm_gem_vcm_object *obj;
	struct drm_gem_object *gem;
	struct dma_buf *dmabuf;
	long count;

	other = drm_gem_vcm_test_context(test, "drm-gem-vcm-unplug-at-free",
					 &drm_gem_vcm_test_unplug_driver,
					 DRM_GEM_VCM_CPU);
	dmabuf = drm_gem_vcm_test_export(test, &obj);
	count = file_count(dmabuf->file);
	gem = drm_gem_vcm_prime_import(other, dmabuf);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, gem);
	KUNIT_EXPECT_PTR_EQ(test, gem->funcs, &drm_gem_vcm_test_unplug_funcs);
	KUNIT_EXPECT_EQ(test, list_count_nodes(&other->imports), 1);
	KUNIT_EXPECT_EQ(test, list_count_nodes(&obj->users), 2);

	drm_gem_object_put(gem);
	KUNIT_EXPECT_TRUE(test, other->imports_revoked);
	KUNIT_EXPECT_TRUE(test, list_empty(&other->imports));
	KUNIT_EXPECT_EQ(test, atomic_read(&other->objects), 0);
	KUNIT_EXPECT_EQ(test, list_count_nodes(&obj->users), 1);
	KUNIT_EXPECT_EQ(test, file_count(dmabuf->file), count);
	KUNIT_EXPECT_EQ(test,
			PTR_ERR_OR_ZERO(drm_gem_vcm_prime_import(other, dmabuf)),
			-ENODEV);
}

#ifdef CONFIG_FAULT_INJECTION
/*
 * fail-nth inside the kernel, as igt's fail-nth from user space: the
 * @n-th allocation of this task fails, 0 disarms.  The guest runner sets
 * failslab's and fail_page_alloc's knobs as igt's fail-nth does.
 */
static void drm_gem_vcm_test_fail_nth(unsigned int n)
{
	WRITE_ONCE(current->fail_nth, n);
}

/* Disarm fail-nth; true if the armed allocation came and failed. */
static bool drm_gem_vcm_test_fail_nth_done(void)
{
	bool injected = !READ_ONCE(current->fail_nth);

	WRITE_ONCE(current->fail_nth, 0);
	return injected;
}

/* Hold fail-nth's count over a call that must not see a failure. */
static unsigned int drm_gem_vcm_test_fail_nth_pause(void)
{
	unsigned int n = READ_ONCE(current->fail_nth);

	WRITE_ONCE(current->fail_nth, 0);
	return n;
}

/* Whether fail-nth fails a slab and a page allocation that may sleep. */
static bool drm_gem_vcm_test_fail_nth_works(void)
{
	struct page *page;
	bool slab, pages;
	void *p;

	drm_gem_vcm_test_fail_nth(1);
	p = kmalloc(64, GFP_KERNEL);
	slab = !p && drm_gem_vcm_test_fail_nth_done();
	kfree(p);
	drm_gem_vcm_test_fail_nth(1);
	page = alloc_page(GFP_KERNEL);
	pages = !page && drm_gem_vcm_test_fail_nth_done();
	if (page)
		__free_page(page);
	return slab && pages;
}
#else
static void drm_gem_vcm_test_fail_nth(unsigned int n)
{
}

static bool drm_gem_vcm_test_fail_nth_done(void)
{
	return false;
}

static unsigned int drm_gem_vcm_test_fail_nth_pause(void)
{
	return 0;
}

static bool drm_gem_vcm_test_fail_nth_works(void)
{
	return false;
}
#endif

/* Pages a fault puts in: a copy of drm_gem_vcm_helper.c's DRM_GEM_VCM_FAULT_PAGES. */
#define TEST_FAULT_PAGES	16

/* The page frame a process's page at @addr maps, 0 for none. */
static unsigned long drm_gem_vcm_test_pfn(unsigned long addr)
{
	struct follow_pfnmap_args args = { .address = addr };
	struct mm_struct *mm = current->mm;
	unsigned long pfn = 0;

	mmap_read_lock(mm);
	args.vma = vma_lookup(mm, addr);
	if (args.vma && !follow_pfnmap_start(&args)) {
		pfn = args.pfn;
		follow_pfnmap_end(&args);
	}
	mmap_read_unlock(mm);
	return pfn;
}

/*
 * How many of the TEST_FAULT_PAGES pages from @addr on are mapped, in a
 * row from the first; they map the page frames from @pfn on, and none
 * past the first that is not mapped is.
 */
static unsigned int drm_gem_vcm_test_fault_mapped(struct kunit *test,
						  unsigned long addr,
						  unsigned long pfn)
{
	unsigned int i, mapped = TEST_FAULT_PAGES;
	unsigned long got;

	for (i = 0; i < TEST_FAULT_PAGES; i++) {
		got = drm_gem_vcm_test_pfn(addr + i * PAGE_SIZE);
		if (i < mapped && got)
			KUNIT_EXPECT_EQ_MSG(test, got, pfn + i, "page %u", i);
		else if (i < mapped)
			mapped = i;
		else
			KUNIT_EXPECT_EQ_MSG(test, got, 0UL,
					    "page %u mapped past page %u", i, mapped);
	}
	return mapped;
}

/*
 * A fault puts in the faulting page and up to 15 more of its chunk,
 * inside the VMA.  When one of those cannot be put in, as its page table
 * cannot be allocated (fail-nth), the fault stops there: it is still the
 * faulting page's, which the process reads, the pages from the one that
 * failed on are not mapped, and that one reads right at its own fault.
 * The faulting page is the last of its page table (made beforehand by a
 * fault 16 pages before it), so the page after it is the first of a
 * table the fault makes; the memory is one range, so all 16 are of one
 * chunk.  Swept n = 1, 2, ... until the fault's last allocation passed;
 * each VMA is unmapped, and uncounted, after its pass.  That assumes no
 * page table of a VMA unmapped before is still there for the next (the
 * kernel frees the tables of an unmapped range that no other VMA uses):
 * if one were, no pass would stop after the faulting page.
 */
static void drm_gem_vcm_test_fault_nomem(struct kunit *test)
{
	unsigned int n, i, mapped, stopped = 0;
	unsigned long addr, last, pfn0, nr, left;
	struct drm_gem_vcm_object *obj;
	struct vcm_constraint c;
	struct dma_buf *dmabuf;
	struct iosys_map map;
	bool injected;
	pgoff_t pgoff;
	u8 byte = 0;

	if (!drm_gem_vcm_test_fail_nth_works())
		kunit_skip(test, "fail-nth fails no allocation that may sleep: knobs unset");
	if (2 * PMD_SIZE > TEST_SCATTERED)
		kunit_skip(test, "a page table maps more than half the object");
	obj = drm_gem_vcm_test_create(test, TEST_SCATTERED);
	vcm_constraint_init(&c);
	c.flags = VCM_CONSTRAINT_CONTIGUOUS;
	c.devices = 1;
	KUNIT_ASSERT_EQ(test, drm_gem_vcm_test_place(obj, &c, "contiguous"), 0);
	/* Each page's first byte is its index. */
	KUNIT_ASSERT_EQ(test, drm_gem_vmap_unlocked(&obj->base, &map), 0);
	for (i = 0; i < TEST_SCATTERED >> PAGE_SHIFT; i++)
		iosys_map_wr(&map, (size_t)i << PAGE_SHIFT, u8, (u8)i);
	drm_gem_vunmap_unlocked(&obj->base, &map);
	KUNIT_ASSERT_EQ(test, vcm_phys_pfn(obj->physmem, 0, &pfn0, &nr), 0);
	KUNIT_ASSERT_EQ(test, nr, TEST_SCATTERED >> PAGE_SHIFT);
	dmabuf = drm_gem_vcm_prime_export(&obj->base, O_RDWR);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dmabuf);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, dma_buf_put_wrapper,
							dmabuf), 0);

	for (n = 1; n < 64; n++) {
		addr = kunit_vm_mmap(test, dmabuf->file, 0, TEST_SCATTERED,
				     PROT_READ, MAP_SHARED, 0);
		KUNIT_ASSERT_TRUE(test, addr && !IS_ERR_VALUE(addr));
		/* 16 pages into the VMA at least, with 15 more after it. */
		last = ALIGN(addr + (TEST_FAULT_PAGES + 1) * PAGE_SIZE, PMD_SIZE) -
		       PAGE_SIZE;
		pgoff = (last - addr) >> PAGE_SHIFT;
		left = copy_from_user(&byte,
				      (u8 __user *)(last - TEST_FAULT_PAGES * PAGE_SIZE),
				      1);
		KUNIT_ASSERT_EQ(test, left, 0UL);
		KUNIT_ASSERT_EQ(test, drm_gem_vcm_test_pfn(last), 0UL);

		drm_gem_vcm_test_fail_nth(n);
		left = copy_from_user(&byte, (u8 __user *)last, 1);
		injected = drm_gem_vcm_test_fail_nth_done();
		mapped = drm_gem_vcm_test_fault_mapped(test, last, pfn0 + pgoff);
		if (left) {
			/* Only injected, and before the faulting page went in. */
			KUNIT_EXPECT_TRUE_MSG(test, injected, "n=%u", n);
			KUNIT_EXPECT_EQ_MSG(test, mapped, 0U, "n=%u", n);
		} else if (mapped < TEST_FAULT_PAGES) {
			KUNIT_EXPECT_TRUE_MSG(test, injected, "n=%u", n);
			KUNIT_EXPECT_GT_MSG(test, mapped, 0U, "n=%u", n);
			KUNIT_EXPECT_EQ_MSG(test, byte, (u8)pgoff, "n=%u", n);
			stopped++;
			left = copy_from_user(&byte,
					      (u8 __user *)(last + mapped * PAGE_SIZE), 1);
			KUNIT_EXPECT_EQ(test, left, 0UL);
			KUNIT_EXPECT_EQ(test, byte, (u8)(pgoff + mapped));
		} else {
			KUNIT_EXPECT_EQ_MSG(test, byte, (u8)pgoff, "n=%u", n);
		}
		KUNIT_EXPECT_EQ(test, vm_munmap(addr, TEST_SCATTERED), 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&obj->user_vmas), 0);
		if (!injected)
			break;
	}
	KUNIT_ASSERT_LT_MSG(test, n, 64U, "the sweep did not end");
	/*
	 * Once, the page table of the page after the faulting one should
	 * have failed; none made means one was there, kept from a VMA
	 * unmapped before (see above).
	 */
	KUNIT_EXPECT_GT_MSG(test, stopped, 0U,
			    "no pass stopped early: was a page table kept after munmap?");
}

/*
 * What one pass of the fail-nth sweep made, and where its failure is
 * injected: the @n-th allocation of step @armed.
 */
struct drm_gem_vcm_test_sweep {
	struct drm_gem_vcm_test_device *tdev;
	struct device *dev, *peer;
	struct drm_gem_vcm_context *importer;
	struct drm_gem_vcm_object *obj;
	struct iosys_map imap;
	bool ivmapped;
	struct dma_buf *dmabuf;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	struct drm_gem_object *import;
	unsigned int step, armed, n, moves, dma_step;
	bool injected;
};

/* Begin the next step: fail-nth is armed for the swept step alone. */
static void drm_gem_vcm_test_step(struct drm_gem_vcm_test_sweep *s)
{
	if (s->step && s->step - 1 == s->armed)
		s->injected = drm_gem_vcm_test_fail_nth_done();
	if (s->step == s->armed)
		drm_gem_vcm_test_fail_nth(s->n);
	s->step++;
}

static int drm_gem_vcm_test_sweep_steps(struct drm_gem_vcm_test_sweep *s)
{
	struct drm_gem_vcm_test_device *tdev = s->tdev;
	unsigned int n;
	int ret;

	drm_gem_vcm_test_step(s);
	ret = drmm_gem_vcm_init(&tdev->drm, &tdev->ctx, DRM_GEM_VCM_DMA);
	if (ret)
		return ret;
	drm_gem_vcm_test_step(s);
	s->obj = drm_gem_vcm_create(&tdev->ctx, TEST_SCATTERED);
	if (IS_ERR(s->obj))
		return PTR_ERR(s->obj);
	/* Chunks, which the peer's mapping moves into one range. */
	drm_gem_vcm_test_step(s);
	ret = drm_gem_vcm_test_populate(s->obj);
	if (ret)
		return ret;
	drm_gem_vcm_test_step(s);
	s->dmabuf = drm_gem_vcm_prime_export(&s->obj->base, O_RDWR);
	if (IS_ERR(s->dmabuf))
		return PTR_ERR(s->dmabuf);
	drm_gem_vcm_test_step(s);
	s->attach = dma_buf_attach(s->dmabuf, s->peer);
	if (IS_ERR(s->attach))
		return PTR_ERR(s->attach);
	/*
	 * The peer's placement, which moves the memory into one range from
	 * the DMA API (dma_alloc_pages()), and its mapping are not under
	 * fault injection: DMA-API debugging allocates for each (its
	 * cacheline tracking, GFP_ATOMIC), and one failure turns it off for
	 * the rest of the boot, with the entries it tracked left for its
	 * dump to print the freed devices of.
	 */
	drm_gem_vcm_test_step(s);
	s->dma_step = s->step - 1;
	n = drm_gem_vcm_test_fail_nth_pause();
	ret = drm_gem_vcm_test_map(s->obj, s->peer);
	if (!ret) {
		s->sgt = dma_buf_map_attachment_unlocked(s->attach,
							 DMA_BIDIRECTIONAL);
		ret = PTR_ERR_OR_ZERO(s->sgt);
	}
	drm_gem_vcm_test_fail_nth(n);
	if (ret)
		return ret;
	drm_gem_vcm_test_step(s);
	s->import = drm_gem_vcm_prime_import(s->importer, s->dmabuf);
	if (IS_ERR(s->import))
		return PTR_ERR(s->import);
	/*
	 * The import's kernel mapping is the exporter's (dma_buf_vmap()),
	 * made here, after the peer placed the memory: mapped memory does
	 * not move, so a peer mapping after it could be refused (-EBUSY)
	 * where an absorbed failure gave scattered chunks.
	 */
	drm_gem_vcm_test_step(s);
	ret = drm_gem_vmap_unlocked(s->import, &s->imap);
	if (ret)
		return ret;
	s->ivmapped = true;
	return 0;
}

/*
 * One pass with the @n-th allocation of step @armed failed, on a new DRM
 * device: returns what the step returned; releases all of it, the
 * device's context last, checking that the context counts nothing left.
 */
static int drm_gem_vcm_test_sweep_pass(struct kunit *test,
				       struct drm_gem_vcm_test_sweep *s,
				       unsigned int armed, unsigned int n)
{
	void *group;
	int ret;

	group = devres_open_group(s->dev, NULL, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, group);
	s->tdev = drm_gem_vcm_test_drm(test, s->dev, &drm_gem_vcm_test_driver);
	s->obj = NULL;
	s->dmabuf = NULL;
	s->attach = NULL;
	s->sgt = NULL;
	s->import = NULL;
	s->ivmapped = false;
	s->step = 0;
	s->armed = armed;
	s->n = n;
	s->injected = false;
	ret = drm_gem_vcm_test_sweep_steps(s);
	if (s->step && s->step - 1 == s->armed)
		s->injected = drm_gem_vcm_test_fail_nth_done();

	s->moves = IS_ERR_OR_NULL(s->obj) ? 0 : s->obj->moves;
	if (s->ivmapped)
		drm_gem_vunmap_unlocked(s->import, &s->imap);
	if (!IS_ERR_OR_NULL(s->import))
		drm_gem_object_put(s->import);
	if (!IS_ERR_OR_NULL(s->sgt))
		dma_buf_unmap_attachment_unlocked(s->attach, s->sgt,
						  DMA_BIDIRECTIONAL);
	if (!IS_ERR_OR_NULL(s->attach))
		dma_buf_detach(s->dmabuf, s->attach);
	/* Its last reference: released now, not by a delayed fput. */
	if (!IS_ERR_OR_NULL(s->dmabuf))
		__fput_sync(s->dmabuf->file);
	if (!IS_ERR_OR_NULL(s->obj))
		drm_gem_object_put(&s->obj->base);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&s->tdev->ctx.objects), 0,
			    "step %u, n=%u", armed, n);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&s->tdev->ctx.maps), 0,
			    "step %u, n=%u", armed, n);
	KUNIT_EXPECT_TRUE_MSG(test, list_empty(&s->importer->imports),
			      "step %u, n=%u", armed, n);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&s->importer->objects), 0,
			    "step %u, n=%u", armed, n);
	/* The DRM device goes with its devres group, its context with it. */
	devres_release_group(s->dev, group);
	return ret;
}

/*
 * Every allocation of an object's life on a device with a DMA context
 * failed in turn: the context's set-up, the object and its memory (in
 * chunks), its export, a peer's attachment, another device's import and
 * its kernel mapping (the exporter's).  The peer's placement and mapping
 * between them, which go through the DMA API, are held out.
 * Each step is swept on its own, n = 1, 2, ... until its last allocation
 * passed; each pass either fails with -ENOMEM or absorbs the failure,
 * and leaves nothing counted (and nothing kmemleak finds).
 */
static void drm_gem_vcm_test_fail_nth_sweep(struct kunit *test)
{
	unsigned int armed, n, steps, failed = 0, absorbed = 0, passes = 0;
	struct drm_gem_vcm_test_sweep s = {};
	int ret;

	if (!drm_gem_vcm_test_fail_nth_works())
		kunit_skip(test, "fail-nth fails no allocation that may sleep: knobs unset");
	s.dev = drm_gem_vcm_test_dma_device(test, "drm-gem-vcm-fail-nth");
	s.peer = drm_gem_vcm_test_dma_device(test, "drm-gem-vcm-fail-nth-peer");
	s.importer = drm_gem_vcm_test_importer(test);

	/* A pass with nothing armed counts the steps. */
	KUNIT_ASSERT_EQ(test, drm_gem_vcm_test_sweep_pass(test, &s, UINT_MAX, 0), 0);
	KUNIT_EXPECT_EQ(test, s.moves, 1);
	steps = s.step;
	for (armed = 0; armed < steps; armed++) {
		for (n = 1; n < 2000; n++) {
			ret = drm_gem_vcm_test_sweep_pass(test, &s, armed, n);
			passes++;
			if (!s.injected) {
				KUNIT_ASSERT_EQ_MSG(test, ret, 0,
						    "step %u, n=%u: no failure injected",
						    armed, n);
				/*
				 * Each step allocates (but the DMA API's
				 * mapping, held out): none swept for nothing.
				 */
				KUNIT_EXPECT_TRUE_MSG(test, n > 1 || armed == s.dma_step,
						      "step %u allocates nothing", armed);
				break;
			}
			if (ret) {
				KUNIT_ASSERT_EQ_MSG(test, ret, -ENOMEM,
						    "step %u, n=%u: failed at step %u",
						    armed, n, s.step - 1);
				failed++;
			} else {
				absorbed++;
			}
		}
		KUNIT_ASSERT_LT_MSG(test, n, 2000U, "step %u: the sweep did not end",
				    armed);
	}
	kunit_info(test, "%u passes over %u steps: %u failed with -ENOMEM, %u absorbed a failure\n",
		   passes, steps, failed, absorbed);
}

static int drm_gem_vcm_test_init(struct kunit *test)
{
	struct device *dev = drm_kunit_helper_alloc_device(test);

	test->priv = drm_gem_vcm_test_device(test, dev,
					     &drm_gem_vcm_test_driver);
	return 0;
}

static struct kunit_case drm_gem_vcm_test_cases[] = {
	KUNIT_CASE(drm_gem_vcm_test_create_free),
	KUNIT_CASE(drm_gem_vcm_test_create_object),
	KUNIT_CASE(drm_gem_vcm_test_vmap),
	KUNIT_CASE(drm_gem_vcm_test_vmap_wc),
	KUNIT_CASE(drm_gem_vcm_test_status),
	KUNIT_CASE(drm_gem_vcm_test_place_merge),
	KUNIT_CASE(drm_gem_vcm_test_place_move),
	KUNIT_CASE(drm_gem_vcm_test_place_busy),
	KUNIT_CASE(drm_gem_vcm_test_place_impossible),
	KUNIT_CASE(drm_gem_vcm_test_place_nomem),
	KUNIT_CASE(drm_gem_vcm_test_users),
	KUNIT_CASE(drm_gem_vcm_test_attach_map),
	KUNIT_CASE(drm_gem_vcm_test_map_busy),
	KUNIT_CASE(drm_gem_vcm_test_describe),
	KUNIT_CASE(drm_gem_vcm_test_show_busy),
	KUNIT_CASE(drm_gem_vcm_test_print_info),
	KUNIT_CASE(drm_gem_vcm_test_print_info_unused),
	KUNIT_CASE(drm_gem_vcm_test_prime_export),
	KUNIT_CASE(drm_gem_vcm_test_prime_wc),
	KUNIT_CASE(drm_gem_vcm_test_prime_wc_allowed),
	KUNIT_CASE(drm_gem_vcm_test_prime_sync),
	KUNIT_CASE(drm_gem_vcm_test_prime_import),
	KUNIT_CASE(drm_gem_vcm_test_import_lock),
	KUNIT_CASE(drm_gem_vcm_test_import_dmabuf),
	KUNIT_CASE(drm_gem_vcm_test_init_fail),
	KUNIT_CASE(drm_gem_vcm_test_init_refused),
	KUNIT_CASE(drm_gem_vcm_test_unplug_unset),
	KUNIT_CASE(drm_gem_vcm_test_dumb_create),
	KUNIT_CASE(drm_gem_vcm_test_mmap_import),
	KUNIT_CASE(drm_gem_vcm_test_mmap_import_refused),
	KUNIT_CASE(drm_gem_vcm_test_dmabuf_mmap),
	KUNIT_CASE(drm_gem_vcm_test_dmabuf_mmap_nospace),
	KUNIT_CASE(drm_gem_vcm_test_vmap_iomem),
	KUNIT_CASE(drm_gem_vcm_test_dmabuf_object),
	KUNIT_CASE(drm_gem_vcm_test_import_short),
	KUNIT_CASE(drm_gem_vcm_test_import_one_to_one),
	KUNIT_CASE(drm_gem_vcm_test_create_refused),
	KUNIT_CASE(drm_gem_vcm_test_unplug_freeing),
	KUNIT_CASE(drm_gem_vcm_test_fault_nomem),
	KUNIT_CASE_SLOW(drm_gem_vcm_test_fail_nth_sweep),
	{}
};

static struct kunit_suite drm_gem_vcm_suite = {
	.name = "drm_gem_vcm",
	.init = drm_gem_vcm_test_init,
	.test_cases = drm_gem_vcm_test_cases,
};

kunit_test_suite(drm_gem_vcm_suite);

MODULE_IMPORT_NS(DMA_BUF);
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit tests of the GEM VCM helper");
MODULE_LICENSE("GPL");
