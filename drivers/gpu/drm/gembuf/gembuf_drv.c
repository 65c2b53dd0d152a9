// SPDX-License-Identifier: GPL-2.0-only
/*
 * gembuf: the module, its two DRM drivers and the display device.
 */

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_vcm_helper.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <drm/drm_prime.h>
#include <drm/gembuf_drm.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/platform_device.h>

#include "gembuf_drv.h"
#include "gembuf_kms.h"

struct gembuf gembuf = {
	.devices_lock = __MUTEX_INITIALIZER(gembuf.devices_lock),
	.devices = LIST_HEAD_INIT(gembuf.devices),
	.objects_lock = __MUTEX_INITIALIZER(gembuf.objects_lock),
	.object_list = LIST_HEAD_INIT(gembuf.object_list),
};

static struct platform_device *gembuf_pdev;

/*
 * The display reads objects with the CPU.  As a display controller
 * without an IOMMU it scans them out from physical addresses instead,
 * with a 32-bit DMA mask: its VCM is one-to-one, so every object it
 * shows must be one range below 4 GiB (the problem CMA was made for).
 * The composer, which stands in for the controller, still reads through
 * the kernel's mapping.
 */
static bool display_dma;
module_param(display_dma, bool, 0444);
MODULE_PARM_DESC(display_dma,
		 "scan out by 32-bit DMA from physical addresses, with no IOMMU (default: read with the CPU)");

/*
 * Each driver has the ioctls it serves, no more: the display lays out
 * and waits for objects it scans out, and has no engine to run jobs on;
 * the engine does both.  An ioctl a driver lacks fails in DRM core with
 * -EINVAL: the display's table has holes where the DMA ioctls are.
 */
static const struct drm_ioctl_desc gembuf_display_ioctls[] = {
	DRM_IOCTL_DEF_DRV(GEMBUF_GEM_CREATE, gembuf_gem_create_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(GEMBUF_GEM_MMAP_OFFSET, gembuf_gem_mmap_offset_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(GEMBUF_GEM_WAIT, gembuf_gem_wait_ioctl,
			  DRM_RENDER_ALLOW),
};

static const struct drm_ioctl_desc gembuf_engine_ioctls[] = {
	DRM_IOCTL_DEF_DRV(GEMBUF_GEM_CREATE, gembuf_gem_create_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(GEMBUF_GEM_MMAP_OFFSET, gembuf_gem_mmap_offset_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(GEMBUF_DMA_FILL, gembuf_dma_fill_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(GEMBUF_DMA_COPY, gembuf_dma_copy_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(GEMBUF_GEM_WAIT, gembuf_gem_wait_ioctl,
			  DRM_RENDER_ALLOW),
};

/* drm_show_fdinfo(): the client usage stats of drm-usage-stats.rst. */
static const struct file_operations gembuf_fops = {
	.owner = THIS_MODULE,
	DRM_GEM_FOPS,
	.show_fdinfo = drm_show_fdinfo,
};

static struct drm_gem_vcm_context *gembuf_gem_vcm_ctx(struct drm_device *dev)
{
	return &to_gembuf_device(dev)->gem_vcm;
}

/*
 * The helper's imports: the same object for a dma-buf the device
 * exported; else one for the device's own attachment, whoever exported
 * it, gembuf's other device included: mapped by an engine, whose DMA VCM
 * wraps the DMA addresses, and by the display with display_dma, which
 * scans out the one range they must be; only attached by the CPU
 * display.  gembuf's dumb buffers are its own (gembuf_dumb_create()).
 */
DEFINE_DRM_GEM_VCM_DRIVER_OPS(gembuf)

const struct drm_driver gembuf_display_driver = {
	.driver_features = DRIVER_GEM | DRIVER_MODESET | DRIVER_ATOMIC,
	.fops = &gembuf_fops,
	.ioctls = gembuf_display_ioctls,
	.num_ioctls = ARRAY_SIZE(gembuf_display_ioctls),
	.gem_create_object = gembuf_gem_create_object,
	.dumb_create = gembuf_dumb_create,
	.gem_prime_import = gembuf_gem_vcm_prime_import,
	.gem_prime_import_sg_table = gembuf_gem_vcm_prime_import_sg_table,
	.debugfs_init = gembuf_debugfs_init,
	/* It runs no client's jobs: the memory of its objects only. */
	.show_fdinfo = drm_show_memory_stats,
	.name = GEMBUF_NAME,
	.desc = "gembuf display",
	.major = 1,
	.minor = 0,
};

const struct drm_driver gembuf_engine_driver = {
	.driver_features = DRIVER_GEM | DRIVER_RENDER | DRIVER_SYNCOBJ |
			   DRIVER_SYNCOBJ_TIMELINE,
	.open = gembuf_engine_open,
	.postclose = gembuf_engine_postclose,
	.fops = &gembuf_fops,
	.ioctls = gembuf_engine_ioctls,
	.num_ioctls = ARRAY_SIZE(gembuf_engine_ioctls),
	.gem_create_object = gembuf_gem_create_object,
	/* Render-only: no dumb buffers, which are for scan-out. */
	.gem_prime_import = gembuf_gem_vcm_prime_import,
	.gem_prime_import_sg_table = gembuf_gem_vcm_prime_import_sg_table,
	.debugfs_init = gembuf_debugfs_init,
	.show_fdinfo = gembuf_engine_show_fdinfo,
	.name = GEMBUF_NAME "_dma",
	.desc = "gembuf DMA engine",
	.major = 1,
	.minor = 0,
};

/* The device is released: its objects, and their mappings, are gone. */
static void gembuf_device_forget(struct drm_device *dev, void *data)
{
	struct gembuf_device *gdev = data;

	mutex_lock(&gembuf.devices_lock);
	list_del(&gdev->node);
	mutex_unlock(&gembuf.devices_lock);
}

/**
 * gembuf_device_init() - set a gembuf device up for objects
 * @gdev: the device, allocated
 * @role: display or engine
 *
 * Gives it its GEM VCM context: the display sees objects through the
 * kernel VCM, or with display_dma through a one-to-one VCM below 4 GiB;
 * an engine through a DMA VCM: it stays on the DMA API, which maps both
 * its own objects and the dma-bufs it imports inside its DMA mask.  The
 * context and the device's place in &gembuf.devices go when the DRM
 * device is released.
 *
 * Return: 0 or a negative errno.
 */
int gembuf_device_init(struct gembuf_device *gdev, enum gembuf_role role)
{
	enum drm_gem_vcm_kind kind = DRM_GEM_VCM_DMA;
	int ret;

	gdev->role = role;
	/* With display_dma, below its 32-bit mask (gembuf_display_create()). */
	if (role == GEMBUF_DISPLAY)
		kind = display_dma ? DRM_GEM_VCM_ONE_TO_ONE : DRM_GEM_VCM_CPU;
	ret = drmm_gem_vcm_init(&gdev->drm, &gdev->gem_vcm, kind);
	if (ret)
		return ret;
	mutex_lock(&gembuf.devices_lock);
	list_add_tail(&gdev->node, &gembuf.devices);
	mutex_unlock(&gembuf.devices_lock);
	return drmm_add_action_or_reset(&gdev->drm, gembuf_device_forget, gdev);
}

static int gembuf_display_create(void)
{
	struct gembuf_device *gdev;
	struct platform_device *pdev;
	int ret;

	pdev = platform_device_register_simple(GEMBUF_NAME, -1, NULL, 0);
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);
	gembuf_pdev = pdev;

	if (!devres_open_group(&pdev->dev, NULL, GFP_KERNEL)) {
		ret = -ENOMEM;
		goto err_unregister;
	}
	/*
	 * With display_dma it scans out by 32-bit DMA, and maps its imports
	 * for that.  Otherwise it does no DMA and maps no import itself, but
	 * a dynamic exporter maps at attach for a static importer: as vgem
	 * and vkms do, it says it reaches all memory, so that nothing bounces.
	 */
	ret = dma_coerce_mask_and_coherent(&pdev->dev,
					   DMA_BIT_MASK(display_dma ? 32 : 64));
	if (ret)
		goto err_devres;

	gdev = devm_drm_dev_alloc(&pdev->dev, &gembuf_display_driver,
				  struct gembuf_device, drm);
	if (IS_ERR(gdev)) {
		ret = PTR_ERR(gdev);
		goto err_devres;
	}
	/* What it sets up is released with the DRM device, by the group. */
	ret = gembuf_device_init(gdev, GEMBUF_DISPLAY);
	if (ret)
		goto err_devres;
	gembuf.display = gdev;

	ret = gembuf_kms_init(gdev);
	if (ret)
		goto err_display;
	ret = drm_dev_register(&gdev->drm, 0);
	if (ret)
		goto err_display;
	return 0;

err_display:
	gembuf.display = NULL;
err_devres:
	devres_release_group(&pdev->dev, NULL);
err_unregister:
	platform_device_unregister(pdev);
	return ret;
}

static void gembuf_display_destroy(void)
{
	struct gembuf_device *gdev = gembuf.display;

	drm_dev_unregister(&gdev->drm);
	gembuf_kms_fini(gdev);
	gembuf.display = NULL;
	devres_release_group(&gembuf_pdev->dev, NULL);
	platform_device_unregister(gembuf_pdev);
}

/* The engines of released DRM devices go with the module's code. */
static void gembuf_free_retired(void)
{
	/* The last jobs' RCU callbacks are the module's code. */
	rcu_barrier();
	gembuf_engine_free_retired();
}

static int __init gembuf_init(void)
{
	int ret;

	gembuf_formats_init();

	ret = gembuf_display_create();
	if (ret)
		return ret;
	ret = gembuf_engine_register();
	if (ret) {
		gembuf_display_destroy();
		/*
		 * The driver core probes the engines before it links the
		 * driver to the module; when that fails, it removes them
		 * again, and each engine retires when its DRM device is
		 * released, at once unless a file opened it in between.
		 */
		gembuf_free_retired();
	}
	return ret;
}

static void __exit gembuf_exit(void)
{
	gembuf_engine_unregister();
	gembuf_display_destroy();
	gembuf_free_retired();
}

module_init(gembuf_init);
module_exit(gembuf_exit);

MODULE_DESCRIPTION("gembuf: buffer objects shared between devices, on VCM");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(DMA_BUF);
